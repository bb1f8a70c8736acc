#![cfg(feature = "embeddings")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The hybrid ranker (feature `embeddings`) with a hand-made three-dimensional word model, plus
//! the BFCL check with the real model when it is present (see `real_model()` for the skip rule).

use std::path::PathBuf;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;
use wink_embed::{BpeTokenizer, EmbeddingTable, StaticModel, cosine};
use wink_search::hybrid::{DocumentText, Fusion, HybridConfig, HybridIndex, embedding_text};
use wink_search::{IndexConfig, SearchHit, SearchIndex, ToolDocument, eval, load_bfcl};

/// Word vectors on three axes: weather, files, money. Words not listed embed as nothing.
const WORDS: [(&str, [f32; 3]); 14] = [
    ("weather", [1.0, 0.0, 0.0]),
    ("forecast", [0.9, 0.1, 0.0]),
    ("temperature", [1.0, 0.0, 0.1]),
    ("climate", [0.9, 0.0, 0.0]),
    ("rain", [1.0, 0.1, 0.0]),
    ("city", [0.6, 0.0, 0.4]),
    ("file", [0.0, 1.0, 0.0]),
    ("read", [0.0, 0.9, 0.1]),
    ("disk", [0.1, 1.0, 0.0]),
    ("text", [0.0, 0.8, 0.2]),
    ("money", [0.0, 0.0, 1.0]),
    ("convert", [0.1, 0.1, 0.9]),
    ("currency", [0.0, 0.0, 1.0]),
    ("report", [0.3, 0.5, 0.3]),
];

fn word_model() -> Arc<StaticModel> {
    let mut vocab = serde_json::Map::new();
    vocab.insert("<unk>".into(), json!(0));
    vocab.insert("▁".into(), json!(1));
    let mut values = vec![0.0f32; 2 * 3];
    for (position, (word, vector)) in WORDS.iter().enumerate() {
        vocab.insert(format!("▁{word}"), json!(position + 2));
        values.extend_from_slice(vector);
    }
    let tokenizer = json!({
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Lowercase"},
            {"type": "Replace", "pattern": {"String": "."}, "content": " "},
            {"type": "Replace", "pattern": {"String": ","}, "content": " "},
            {"type": "Replace", "pattern": {"String": "_"}, "content": " "}
        ]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
        "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "ignore_merges": true, "vocab": vocab, "merges": []}
    });
    let tokenizer = BpeTokenizer::from_json_str(&tokenizer.to_string(), "fixture").unwrap();
    let table = EmbeddingTable::new(WORDS.len() + 2, 3, values).unwrap();
    Arc::new(StaticModel::new(tokenizer, table).unwrap())
}

fn catalog() -> Vec<ToolDocument> {
    vec![
        ToolDocument::new("get_weather", "Current weather for a city."),
        ToolDocument::new(
            "city_report",
            "A report about a city: population, money, text.",
        ),
        ToolDocument::new("climate.history", "Temperature and rain records."),
        ToolDocument::new("file.read", "Reads a file from disk as text."),
        ToolDocument::new("currency.convert", "Convert money between currencies."),
    ]
}

fn names(hits: &[SearchHit]) -> Vec<&str> {
    hits.iter().map(|hit| hit.name.as_str()).collect()
}

fn hybrid(config: HybridConfig) -> HybridIndex {
    HybridIndex::build(catalog(), IndexConfig::default(), word_model(), config)
}

#[test]
fn the_fixture_model_embeds_words() {
    let model = word_model();
    assert_eq!(
        model.tokenizer().tokenize("City weather"),
        ["▁city", "▁weather"]
    );
    // The comma becomes a space (a lone "▁" word); "▁weather!" is not a word, so it falls
    // apart into "▁" and one fused unknown.
    assert_eq!(
        model.tokenizer().tokenize("City, weather!"),
        ["▁city", "▁", "▁", "<unk>"]
    );
    assert!(cosine(&model.embed("rain forecast"), &model.embed("weather")) > 0.95);
    assert!(cosine(&model.embed("rain"), &model.embed("money")) < 0.05);
}

#[test]
fn embeddings_reorder_the_bm25_shortlist() {
    let index = hybrid(HybridConfig::default());
    // BM25 ranks `city_report` first (its name and description both say "city"); the
    // embeddings see that the query is about weather.
    let query = "forecast for my city";
    let lexical = index.lexical().search(query, 5);
    assert_eq!(names(&lexical), ["city_report", "get_weather"]);
    let hits = index.search(query, 5);
    assert_eq!(names(&hits), ["get_weather", "city_report"]);
    assert!(hits.iter().all(|hit| !hit.exact_name));

    // The fused score is (1 − w) · bm25 / max bm25 + w · cosine, w = 0.5.
    let model = word_model();
    let query_vector = model.embed(query);
    let top = lexical[0].score;
    for hit in &hits {
        let bm25 = lexical.iter().find(|h| h.index == hit.index).unwrap().score;
        let document = &index.lexical().documents()[hit.index];
        let cosine = cosine(
            &query_vector,
            &model.embed(&embedding_text(document, DocumentText::NameAndDescription)),
        );
        let expected = 0.5 * bm25 / top + 0.5 * cosine;
        assert!((hit.score - expected).abs() < 1e-5, "{hit:?} vs {expected}");
    }
}

#[test]
fn reciprocal_rank_fusion_follows_its_formula() {
    let index = hybrid(HybridConfig {
        fusion: Fusion::ReciprocalRank {
            k: 1.0,
            dense_weight: 2.0,
        },
        ..HybridConfig::default()
    });
    let hits = index.search("forecast for my city", 5);
    // BM25 ranks: city_report 1, get_weather 2; cosine ranks: get_weather 1, city_report 2.
    assert_eq!(names(&hits), ["get_weather", "city_report"]);
    assert!((hits[0].score - (1.0 / 3.0 + 2.0 / 2.0)).abs() < 1e-6);
    assert!((hits[1].score - (1.0 / 2.0 + 2.0 / 3.0)).abs() < 1e-6);
}

#[test]
fn exact_names_still_rank_first() {
    let index = hybrid(HybridConfig::default());
    let hits = index.search("use city_report for the weather forecast", 5);
    assert_eq!(hits[0].name, "city_report");
    assert!(hits[0].exact_name);
    assert_eq!(names(&hits[1..]), ["get_weather"]);
    let dotted = index.search("rain temperature, via file.read", 3);
    assert_eq!(names(&dotted), ["file.read", "climate.history"]);
}

#[test]
fn an_empty_bm25_result_stays_empty_but_dense_ranks_everything() {
    let index = hybrid(HybridConfig::default());
    assert!(index.search("zzz qqq", 5).is_empty());
    assert!(index.search("forecast", 0).is_empty());
    let dense = index.search_dense("zzz qqq", 3);
    // The query embeds as the zero vector: every cosine is 0, ties go by name.
    assert_eq!(
        names(&dense),
        ["city_report", "climate.history", "currency.convert"]
    );
    let dense = index.search_dense("rain", 2);
    assert_eq!(names(&dense), ["climate.history", "get_weather"]);
    assert_eq!(index.search_dense("rain", 10).len(), 5);
}

#[test]
fn the_shortlist_bounds_the_reranking() {
    let bm25_only = hybrid(HybridConfig {
        shortlist: 1,
        ..HybridConfig::default()
    });
    let query = "forecast for my city";
    assert_eq!(
        names(&bm25_only.search(query, 5)),
        names(&bm25_only.lexical().search(query, 5))
    );
    let limited = hybrid(HybridConfig::default()).search(query, 1);
    assert_eq!(names(&limited), ["get_weather"]);
}

#[test]
fn document_text_options() {
    let tool = ToolDocument::from_json_schema(
        "fileRead",
        "Reads a file.",
        &json!({"properties": {"file_path": {"description": "Where it is."}, "raw": {}}}),
    );
    assert_eq!(
        embedding_text(&tool, DocumentText::NameAndDescription),
        "file Read: Reads a file."
    );
    assert_eq!(
        embedding_text(&tool, DocumentText::WithParameters),
        "file Read: Reads a file.\nfile path: Where it is.\nraw"
    );
    let index = hybrid(HybridConfig::default()).with_config(HybridConfig {
        document_text: DocumentText::WithParameters,
        ..HybridConfig::default()
    });
    assert_eq!(index.config().document_text, DocumentText::WithParameters);
    assert_eq!(index.dense().len(), 5);
}

proptest! {
    /// The hybrid ranking is a permutation of the BM25 ranking, exact-name hits unchanged on top.
    #[test]
    fn hybrid_permutes_bm25_hits(words in proptest::collection::vec(
        prop::sample::select(vec!["city", "rain", "weather", "file", "money", "get_weather", "file.read", "text", "zzz", "for", "report"]),
        0..6,
    )) {
        let index = hybrid(HybridConfig::default());
        let query = words.join(" ");
        let lexical = index.lexical().search(&query, 5);
        let fused = index.search(&query, 5);
        let mut a: Vec<usize> = lexical.iter().map(|h| h.index).collect();
        let mut b: Vec<usize> = fused.iter().map(|h| h.index).collect();
        let exact = lexical.iter().take_while(|h| h.exact_name).count();
        prop_assert_eq!(&a[..exact], &b[..exact]);
        a.sort_unstable();
        b.sort_unstable();
        prop_assert_eq!(a, b);
    }
}

/// The real model, or `None` (with a note) when it is absent and `WINK_REQUIRE_EMBED_MODEL` is
/// unset; a panic when it is absent and the variable is set.
fn real_model() -> Option<Arc<StaticModel>> {
    let dir = StaticModel::configured_dir();
    match dir.filter(|dir| dir.join(wink_embed::WEIGHTS_FILE).is_file()) {
        Some(dir) => Some(Arc::new(StaticModel::load(&dir).unwrap())),
        None if std::env::var_os("WINK_REQUIRE_EMBED_MODEL").is_some() => {
            panic!(
                "WINK_REQUIRE_EMBED_MODEL is set but the embedding model is missing; run scripts/fetch-embeddings.sh"
            )
        }
        None => {
            eprintln!("note: no embedding model; skipping (run scripts/fetch-embeddings.sh)");
            None
        }
    }
}

#[test]
fn hybrid_beats_bm25_on_bfcl_with_the_real_model() {
    let Some(model) = real_model() else { return };
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
    let (documents, queries) = load_bfcl(&dir).unwrap();
    let lexical = SearchIndex::build(documents, IndexConfig::default());
    let index = HybridIndex::from_index(lexical.clone(), model, HybridConfig::default());
    let n = index.len();
    let bm25 = eval::evaluate(&lexical, &queries);
    let fused = eval::evaluate_ranking(&queries, |query| index.search(query, n));
    // Measured: BM25 .720 / .624, hybrid .727 / .634 (R@5 / nDCG@10), crate README.
    assert!(fused.recall_at_5 >= 0.725, "{fused:?}");
    assert!(fused.ndcg_at_10 >= 0.630, "{fused:?}");
    assert!(
        fused.recall_at_5 > bm25.recall_at_5,
        "{fused:?} vs {bm25:?}"
    );
    assert!(fused.ndcg_at_10 > bm25.ndcg_at_10, "{fused:?} vs {bm25:?}");
    assert!(fused.recall_at_5 > 0.691, "the published baseline");
}
