//! `find_tool` re-ranked with static embeddings (feature `embeddings`), on the real WordLlama
//! table when this machine has it (`scripts/fetch-embeddings.sh`; CI sets
//! `WINK_REQUIRE_EMBED_MODEL` so that a missing model fails instead of skipping).
#![cfg(feature = "embeddings")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use wink_catalog::{Catalog, ToolRecord};
use wink_embed::StaticModel;
use wink_search::hybrid::{HybridConfig, HybridIndex};

fn model() -> Option<Arc<StaticModel>> {
    let dir = StaticModel::configured_dir()?;
    match StaticModel::load(&dir) {
        Ok(model) => Some(Arc::new(model)),
        Err(error) => {
            assert!(
                std::env::var_os("WINK_REQUIRE_EMBED_MODEL").is_none(),
                "WINK_REQUIRE_EMBED_MODEL is set but the model does not load: {error}"
            );
            eprintln!("note: no embedding model ({error}); skipped");
            None
        }
    }
}

fn records() -> Vec<ToolRecord> {
    vec![
        ToolRecord::new("weather.current", "Current weather conditions for a city."),
        ToolRecord::new(
            "weather.history",
            "Past temperature and rain records for a place.",
        ),
        ToolRecord::new("files.read", "Read a text file from the workspace."),
        ToolRecord::new("money.convert", "Convert an amount between two currencies."),
        ToolRecord::new("calendar.create", "Create a meeting in the calendar."),
    ]
}

#[test]
fn find_uses_the_hybrid_ranking_and_keeps_the_rules() {
    let Some(model) = model() else { return };
    let plain = Catalog::builder().records(records()).build().unwrap();
    let reranked = Catalog::builder()
        .records(records())
        .rerank_with(Arc::clone(&model))
        .build()
        .unwrap();
    let expected = HybridIndex::from_index(plain.index().clone(), model, HybridConfig::default());
    for purpose in [
        "how warm is it in Paris right now",
        "rain last year in Oslo",
        "change dollars into euros",
        "set up a meeting with the team",
    ] {
        let got: Vec<&str> = reranked
            .find(purpose, 3)
            .iter()
            .map(|f| reranked.entries()[f.entry].name())
            .collect();
        let want: Vec<String> = expected
            .search(purpose, 3)
            .into_iter()
            .map(|h| h.name)
            .collect();
        assert_eq!(got, want, "{purpose}");
    }
    // An exact name still ranks first; a purpose with no known word still finds nothing.
    let first = reranked.find("use money.convert for this", 1);
    assert_eq!(reranked.entries()[first[0].entry].name(), "money.convert");
    assert!(reranked.find("zzqx vvkp", 5).is_empty());
    assert!(
        reranked.find_text("zzqx vvkp", 5).contains("tool.list"),
        "an empty result points at tool.list"
    );
}
