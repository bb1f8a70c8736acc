#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Tests on the real WordLlama model (`scripts/fetch-embeddings.sh`). The model directory is
//! `$WINK_EMBED_MODEL`, else [`StaticModel::default_dir`]. When it is absent the tests print a
//! note and pass, unless `WINK_REQUIRE_EMBED_MODEL` is set: then they fail.
//!
//! Reference values were computed with the Hugging Face `tokenizers` library (0.23.3) and
//! numpy from the same two files: `tok.encode(text, add_special_tokens=False).ids`, then the
//! mean of the F16 rows as f32, divided by its L2 norm (WordLlama's `embed(norm=True)`).

use std::sync::OnceLock;

use wink_embed::{StaticModel, cosine};

fn model() -> Option<&'static StaticModel> {
    static MODEL: OnceLock<Option<StaticModel>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let dir = StaticModel::configured_dir();
            let present = dir
                .as_ref()
                .is_some_and(|dir| dir.join(wink_embed::WEIGHTS_FILE).is_file());
            if !present {
                let shown = dir.map_or_else(|| "(no cache dir)".to_owned(), |d| d.display().to_string());
                if std::env::var_os("WINK_REQUIRE_EMBED_MODEL").is_some() {
                    panic!("WINK_REQUIRE_EMBED_MODEL is set but no model at {shown}; run scripts/fetch-embeddings.sh");
                }
                eprintln!("note: no embedding model at {shown}; skipping (run scripts/fetch-embeddings.sh)");
                return None;
            }
            Some(StaticModel::load(&dir.unwrap()).unwrap())
        })
        .as_ref()
}

#[test]
fn real_tokenizer_matches_the_reference_ids() {
    let Some(model) = model() else { return };
    let tokenizer = model.tokenizer();
    let cases: [(&str, &[u32]); 6] = [
        (
            "what's the temperature in Paris right now?",
            &[825, 29915, 29879, 278, 10430, 297, 3681, 1492, 1286, 29973],
        ),
        (
            "héllo wörld 日本語 🦀",
            &[
                298, 3610, 417, 281, 1340, 430, 29871, 30325, 30346, 30968, 29871, 243, 162, 169,
                131,
            ],
        ),
        (
            "  two  spaces\tand\ttab\n",
            &[259, 1023, 29871, 8162, 12, 392, 12, 3891, 13],
        ),
        ("hello </s> world", &[22172, 29871, 2, 29871, 3186]),
        ("x<unk><unk>y", &[921, 0, 0, 343]),
        (
            "get_weather(city='Paris')",
            &[679, 29918, 705, 1624, 29898, 12690, 2433, 2177, 275, 1495],
        ),
    ];
    for (text, ids) in cases {
        assert_eq!(tokenizer.encode(text), ids, "{text:?}");
    }
    assert_eq!(tokenizer.encode(""), Vec::<u32>::new());
    assert_eq!(model.dim(), 256);
    assert_eq!(model.table().rows(), 32_000);
}

#[test]
fn real_model_ranks_the_weather_tool_first() {
    let Some(model) = model() else { return };
    let query = model.embed("what's the temperature in Paris right now?");
    let expected = [0.026_561_01, -0.030_328_594, -0.059_245_34, -0.048_097_037];
    for (got, want) in query.iter().zip(expected) {
        assert!((got - want).abs() < 1e-6, "{:?}", &query[..4]);
    }
    let tools = [
        (
            "get_weather: Get the current weather for a city.",
            0.204_360_28,
        ),
        (
            "convert_currency: Convert an amount between currencies.",
            0.018_924_583,
        ),
        ("send_email: Send an email to a recipient.", -0.103_345_98),
        (
            "search_files: Search files on disk by name.",
            -0.022_440_018,
        ),
    ];
    let scores: Vec<f32> = tools
        .iter()
        .map(|(text, _)| cosine(&query, &model.embed(text)))
        .collect();
    for ((text, want), got) in tools.iter().zip(&scores) {
        assert!((got - want).abs() < 1e-5, "{text}: {got} vs {want}");
    }
    let best = scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap()
        .0;
    assert_eq!(best, 0);
    let norm: f32 = query.iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-6);
}
