//! BM25 vs dense vs hybrid (BM25 shortlist re-ranked with WordLlama embeddings) on the pooled
//! BFCL set. Needs the feature `embeddings` and the model (`scripts/fetch-embeddings.sh`).
//!
//! ```text
//! cargo run --release -p wink-search --features embeddings --example hybrid [-- --grid] [BFCL_DIR]
//! ```
//!
//! Without `--grid`: the README table (all queries, even = tuning half, odd = held out).
//! With `--grid`: the fusion sweep on the even-numbered queries that chose the default.
//! The model directory is `$WINK_EMBED_MODEL`, else the wink model cache.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use wink_embed::StaticModel;
use wink_search::hybrid::{DocumentText, Fusion, HybridConfig, HybridIndex};
use wink_search::{IndexConfig, Metrics, Query, SearchIndex, ToolDocument, eval, load_bfcl};

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let grid = arguments.iter().any(|a| a == "--grid");
    let dir = arguments
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("WINK_DATA_DIR")
                .map_or_else(
                    || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data"),
                    PathBuf::from,
                )
                .join("bfcl")
        });
    let Some(model_dir) = StaticModel::configured_dir() else {
        eprintln!("error: no model directory (set WINK_EMBED_MODEL or HOME)");
        return ExitCode::FAILURE;
    };
    let started = Instant::now();
    let model = match StaticModel::load(&model_dir) {
        Ok(model) => Arc::new(model),
        Err(error) => {
            eprintln!("error: {error}\n(run scripts/fetch-embeddings.sh)");
            return ExitCode::FAILURE;
        }
    };
    let load_time = started.elapsed();
    let (documents, queries) = match load_bfcl(&dir) {
        Ok(loaded) => loaded,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let even: Vec<Query> = queries.iter().step_by(2).cloned().collect();
    let odd: Vec<Query> = queries.iter().skip(1).step_by(2).cloned().collect();
    println!(
        "BFCL pooled: {} functions, {} queries; model {} loaded in {:.0} ms",
        documents.len(),
        queries.len(),
        model_dir.display(),
        load_time.as_secs_f64() * 1000.0
    );
    if grid {
        sweep(&documents, &even, &model);
    } else {
        table(&documents, &queries, &even, &odd, &model);
    }
    ExitCode::SUCCESS
}

fn table(
    documents: &[ToolDocument],
    all: &[Query],
    even: &[Query],
    odd: &[Query],
    model: &Arc<StaticModel>,
) {
    println!("| ranking | split | R@1 | R@5 | R@10 | nDCG@10 | MRR |");
    println!("|---|---|---|---|---|---|---|");
    let lexical = SearchIndex::build(documents.to_vec(), IndexConfig::default());
    let started = Instant::now();
    let hybrid = HybridIndex::from_index(lexical.clone(), model.clone(), HybridConfig::default());
    let embed_time = started.elapsed();
    let rrf = HybridIndex::from_index(
        lexical.clone(),
        model.clone(),
        HybridConfig {
            fusion: Fusion::ReciprocalRank {
                k: 60.0,
                dense_weight: 1.0,
            },
            ..HybridConfig::default()
        },
    );
    let with_parameters = HybridConfig {
        document_text: DocumentText::WithParameters,
        ..HybridConfig::default()
    };
    let hybrid_parameters =
        HybridIndex::from_index(lexical.clone(), model.clone(), with_parameters);
    let n = lexical.len();
    for (split, set) in [
        ("all", all),
        ("even (tuning)", even),
        ("odd (held out)", odd),
    ] {
        row("BM25 (default)", split, &eval::evaluate(&lexical, set));
        row(
            "dense, name + description",
            split,
            &eval::evaluate_ranking(set, |q| hybrid.search_dense(q, n)),
        );
        row(
            "dense, with parameters",
            split,
            &eval::evaluate_ranking(set, |q| hybrid_parameters.search_dense(q, n)),
        );
        row(
            "hybrid RRF k=60, equal weights (shortlist 50)",
            split,
            &eval::evaluate_ranking(set, |q| rrf.search(q, n)),
        );
        row(
            "**hybrid default** (interpolation 0.5, shortlist 50)",
            split,
            &eval::evaluate_ranking(set, |q| hybrid.search(q, n)),
        );
    }
    // Paired comparison on the held-out half: queries the hybrid helps vs hurts.
    let (mut gained, mut lost, mut better, mut worse) = (0, 0, 0, 0);
    for query in odd {
        let bm25 = eval::judge_hits(query, &lexical.search(&query.query, n));
        let fused = eval::judge_hits(query, &hybrid.search(&query.query, n));
        match bm25.recall_at(5).total_cmp(&fused.recall_at(5)) {
            std::cmp::Ordering::Less => gained += 1,
            std::cmp::Ordering::Greater => lost += 1,
            std::cmp::Ordering::Equal => {}
        }
        match bm25.reciprocal_rank().total_cmp(&fused.reciprocal_rank()) {
            std::cmp::Ordering::Less => better += 1,
            std::cmp::Ordering::Greater => worse += 1,
            std::cmp::Ordering::Equal => {}
        }
    }
    println!(
        "\nheld out ({} queries), hybrid default vs BM25: recall@5 up on {gained}, down on {lost}; first relevant rank better on {better}, worse on {worse}",
        odd.len()
    );
    let started = Instant::now();
    for query in all {
        std::hint::black_box(hybrid.search(&query.query, 10));
    }
    let hybrid_time = started.elapsed();
    let started = Instant::now();
    for query in all {
        std::hint::black_box(lexical.search(&query.query, 10));
    }
    let lexical_time = started.elapsed();
    println!(
        "embedding {} documents: {:.0} ms; top-10 per query: BM25 {:.1} µs, hybrid {:.1} µs (mean over {} queries)",
        documents.len(),
        embed_time.as_secs_f64() * 1000.0,
        lexical_time.as_secs_f64() * 1e6 / all.len() as f64,
        hybrid_time.as_secs_f64() * 1e6 / all.len() as f64,
        all.len()
    );
}

fn sweep(documents: &[ToolDocument], even: &[Query], model: &Arc<StaticModel>) {
    let lexical = SearchIndex::build(documents.to_vec(), IndexConfig::default());
    let n = lexical.len();
    row("BM25 (default)", "even", &eval::evaluate(&lexical, even));
    let mut fusions = Vec::new();
    for k in [5.0, 20.0, 60.0] {
        for dense_weight in [0.5, 1.0] {
            fusions.push(Fusion::ReciprocalRank { k, dense_weight });
        }
    }
    for dense_weight in [0.1, 0.2, 0.3, 0.4, 0.5, 0.6] {
        fusions.push(Fusion::Interpolation { dense_weight });
    }
    for document_text in [
        DocumentText::NameAndDescription,
        DocumentText::WithParameters,
    ] {
        for shortlist in [20, 50, 100] {
            let base = HybridIndex::from_index(
                lexical.clone(),
                model.clone(),
                HybridConfig {
                    shortlist,
                    document_text,
                    ..HybridConfig::default()
                },
            );
            for &fusion in &fusions {
                let config = HybridConfig {
                    shortlist,
                    fusion,
                    document_text,
                };
                let index = base.clone().with_config(config);
                let label = format!("{document_text:?}, shortlist {shortlist}, {fusion:?}");
                row(
                    &label,
                    "even",
                    &eval::evaluate_ranking(even, |q| index.search(q, n)),
                );
            }
        }
    }
}

fn row(label: &str, split: &str, m: &Metrics) {
    println!(
        "| {label} | {split} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
        m.recall_at_1, m.recall_at_5, m.recall_at_10, m.ndcg_at_10, m.mrr
    );
}
