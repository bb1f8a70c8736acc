//! The catalog section at scale: building a catalog (level-1 lines with the 20-token budget,
//! namespaces, search index) and answering `find_tool`, over synthetic catalogs of 1K, 10K and
//! 100K tools. `examples/catalog_scale.rs` prints p50/p99 and memory for the README.

use divan::Bencher;
use wink_catalog::{Catalog, ToolRecord};
use wink_search::{ToolDocument, synthetic};

fn main() {
    divan::main();
}

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// Synthetic tools as records with a JSON-schema parameter list.
fn records(size: usize) -> Vec<ToolRecord> {
    synthetic::catalog(size, 42)
        .into_iter()
        .map(|document: ToolDocument| {
            let properties: serde_json::Map<String, serde_json::Value> = document
                .parameters
                .iter()
                .map(|p| {
                    (
                        p.name.clone(),
                        serde_json::json!({"type": "string", "description": p.description}),
                    )
                })
                .collect();
            ToolRecord::new(document.name, document.description)
                .with_parameters(serde_json::json!({"type": "object", "properties": properties}))
        })
        .collect()
}

#[divan::bench(args = SIZES, sample_count = 3, sample_size = 1)]
fn build(bencher: Bencher, size: usize) {
    let records = records(size);
    bencher
        .with_inputs(|| records.clone())
        .bench_values(|records| Catalog::builder().records(records).build());
}

#[divan::bench(args = SIZES, sample_count = 20, sample_size = 50)]
fn find_tool(bencher: Bencher, size: usize) {
    let Ok(catalog) = Catalog::builder().records(records(size)).build() else {
        return;
    };
    let queries = synthetic::queries(catalog.index().documents(), 1_000, 7);
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % queries.len();
        catalog.find_text(divan::black_box(&queries[next]), 5)
    });
}
