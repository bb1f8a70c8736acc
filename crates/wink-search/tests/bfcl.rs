#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The pooled BFCL set, vendored in the repository's `data/bfcl` (override the folder holding
//! `bfcl/` with `WINK_DATA_DIR`); see `data/README.md` for its source and license.

use std::collections::HashSet;
use std::path::PathBuf;

use wink_search::{IndexConfig, Metrics, SearchIndex, ToolDocument, evaluate, load_bfcl};

fn bfcl() -> Option<(Vec<ToolDocument>, Vec<wink_search::Query>)> {
    let dir = std::env::var_os("WINK_DATA_DIR")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data"),
            PathBuf::from,
        )
        .join("bfcl");
    assert!(
        dir.is_dir(),
        "{} is missing: the vendored data/ folder of the repository is missing (or WINK_DATA_DIR is wrong)",
        dir.display()
    );
    Some(load_bfcl(&dir).unwrap())
}

#[test]
fn bfcl_pool_has_the_published_counts() {
    let Some((documents, queries)) = bfcl() else {
        return;
    };
    assert_eq!(documents.len(), 1_883);
    assert_eq!(queries.len(), 2_135);
    let distinct: HashSet<(&str, &str)> = documents
        .iter()
        .map(|d| (d.name.as_str(), d.description.as_str()))
        .collect();
    assert_eq!(distinct.len(), 1_883);
    for query in &queries {
        let relevant = query.relevant_documents.as_ref().unwrap();
        assert_eq!(relevant.len(), query.relevant.len());
        for (position, name) in relevant.iter().zip(&query.relevant) {
            assert_eq!(&documents[*position].name, name);
        }
    }
}

fn metrics(config: IndexConfig) -> Option<Metrics> {
    let (documents, queries) = bfcl()?;
    Some(evaluate(&SearchIndex::build(documents, config), &queries))
}

#[test]
fn baseline_configuration_reproduces_the_published_bm25_numbers() {
    let Some(m) = metrics(IndexConfig::baseline()) else {
        return;
    };
    // Published (Python, README): .390 / .691 / .799 / .602. The Rust tokenizer also splits
    // acronyms (`HTTPServer`) and keeps non-ASCII letters, and nested parameters are indexed.
    for (measured, published) in [
        (m.recall_at_1, 0.390),
        (m.recall_at_5, 0.691),
        (m.recall_at_10, 0.799),
        (m.ndcg_at_10, 0.602),
    ] {
        assert!(
            (measured - published).abs() < 0.01,
            "{measured} vs {published}: {m:?}"
        );
    }
}

#[test]
fn default_configuration_beats_the_baseline() {
    let Some(m) = metrics(IndexConfig::default()) else {
        return;
    };
    assert!(m.recall_at_5 > 0.691, "{m:?}");
    assert!(m.recall_at_1 > 0.390, "{m:?}");
    assert!(m.recall_at_10 > 0.799, "{m:?}");
    assert!(m.ndcg_at_10 > 0.602, "{m:?}");
}
