//! How the default configuration was chosen: ablations and a coordinate search over field
//! weights and BM25 parameters on the even-numbered BFCL queries, scored by the sum of recall@1/5/10,
//! nDCG@10 and MRR, then checked on the odd-numbered (held-out) queries.
//!
//! `cargo run --release -p wink-search --example tune [DIR]`

use std::path::PathBuf;
use std::process::ExitCode;

use wink_search::{
    ExactNameRule, FieldScoring, IndexConfig, Metrics, Query, SearchIndex, Stemming, ToolDocument,
    evaluate, load_bfcl,
};

fn main() -> ExitCode {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("WINK_DATA_DIR")
                .map_or_else(
                    || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data"),
                    PathBuf::from,
                )
                .join("bfcl")
        });
    let (documents, queries) = match load_bfcl(&dir) {
        Ok(loaded) => loaded,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let even: Vec<Query> = queries.iter().step_by(2).cloned().collect();
    let odd: Vec<Query> = queries.iter().skip(1).step_by(2).cloned().collect();
    let tuning = Tuning {
        documents: &documents,
        queries: &even,
    };

    println!("## Ablations from the baseline (even queries)");
    let baseline = IndexConfig::baseline();
    let mut ablations: Vec<(&str, IndexConfig)> = vec![("baseline", baseline)];
    let mut with = |label, change: &dyn Fn(&mut IndexConfig)| {
        let mut config = baseline;
        change(&mut config);
        ablations.push((label, config));
    };
    with("bm25f scoring", &|c| c.scoring = FieldScoring::Bm25f);
    with("split digits", &|c| c.tokenizer.split_digits = true);
    with("stopwords", &|c| c.tokenizer.stopwords = true);
    with("plural stemming", &|c| {
        c.tokenizer.stemming = Stemming::Plural
    });
    with("light stemming", &|c| {
        c.tokenizer.stemming = Stemming::Light
    });
    with("min_len 1", &|c| c.tokenizer.min_len = 1);
    with("min_len 3", &|c| c.tokenizer.min_len = 3);
    with("exact names (any)", &|c| {
        c.exact_names = ExactNameRule::AnyName
    });
    with("exact compound or quoted names", &|c| {
        c.exact_names = ExactNameRule::CompoundOrQuoted
    });
    with("query tf", &|c| c.query_term_frequency = true);
    for (label, config) in &ablations {
        print_row(label, &tuning.metrics(*config));
    }

    println!("\n## Coordinate search (even queries)");
    let mut best = IndexConfig::default();
    let mut best_metrics = tuning.metrics(best);
    print_row("start: default", &best_metrics);
    let weight_grid = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0];
    for round in 0..3 {
        let mut improved = false;
        for coordinate in 0..11 {
            let values: &[f32] = match coordinate {
                0..=4 => &weight_grid,
                5 => &[0.6, 0.8, 1.0, 1.2, 1.5, 2.0, 3.0],
                6 => &[0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0],
                9 => &[0.0, 1.0, 2.0],
                _ => &[0.0, 1.0],
            };
            for &value in values {
                let mut candidate = best;
                set(&mut candidate, coordinate, value);
                if candidate == best {
                    continue;
                }
                let metrics = tuning.metrics(candidate);
                if better(&metrics, &best_metrics) {
                    best = candidate;
                    best_metrics = metrics;
                    improved = true;
                }
            }
        }
        print_row(&format!("after round {}", round + 1), &best_metrics);
        if !improved {
            break;
        }
    }
    println!("\nbest: {best:#?}");
    println!("\n## Held out (odd queries) and all");
    for (label, config) in [
        ("baseline", baseline),
        ("best", best),
        ("default", IndexConfig::default()),
    ] {
        let index = SearchIndex::build(documents.clone(), config);
        print_row(&format!("{label} odd"), &evaluate(&index, &odd));
        print_row(&format!("{label} all"), &evaluate(&index, &queries));
    }
    ExitCode::SUCCESS
}

struct Tuning<'a> {
    documents: &'a [ToolDocument],
    queries: &'a [Query],
}

impl Tuning<'_> {
    fn metrics(&self, config: IndexConfig) -> Metrics {
        evaluate(
            &SearchIndex::build(self.documents.to_vec(), config),
            self.queries,
        )
    }
}

fn set(config: &mut IndexConfig, coordinate: usize, value: f32) {
    let w = &mut config.weights;
    match coordinate {
        0 => w.name = value,
        1 => w.summary = value,
        2 => w.description = value,
        3 => w.param_names = value,
        4 => w.param_descriptions = value,
        5 => config.bm25.k1 = value,
        6 => config.bm25.b = value,
        7 => config.tokenizer.stopwords = value > 0.5,
        8 => config.tokenizer.split_digits = value > 0.5,
        9 => {
            config.tokenizer.stemming = match value as u8 {
                0 => Stemming::None,
                1 => Stemming::Plural,
                _ => Stemming::Light,
            }
        }
        _ => {
            config.scoring = if value > 0.5 {
                FieldScoring::Bm25f
            } else {
                FieldScoring::Concatenated
            }
        }
    }
}

/// The objective: the sum of all five metrics, so no metric is bought with another.
fn better(a: &Metrics, b: &Metrics) -> bool {
    let total = |m: &Metrics| m.recall_at_1 + m.recall_at_5 + m.recall_at_10 + m.ndcg_at_10 + m.mrr;
    total(a) > total(b)
}

fn print_row(label: &str, m: &Metrics) {
    println!(
        "| {label} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
        m.recall_at_1, m.recall_at_5, m.recall_at_10, m.ndcg_at_10, m.mrr
    );
}
