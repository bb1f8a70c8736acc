//! Index build and query cost over synthetic catalogs of 1K, 10K and 100K tools.

use divan::Bencher;
use wink_search::{IndexConfig, SearchIndex, synthetic};

fn main() {
    divan::main();
}

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn build(bencher: Bencher, size: usize) {
    let catalog = synthetic::catalog(size, 42);
    bencher
        .with_inputs(|| catalog.clone())
        .bench_values(|documents| SearchIndex::build(documents, IndexConfig::default()));
}

#[divan::bench(args = SIZES, sample_count = 20, sample_size = 50)]
fn query(bencher: Bencher, size: usize) {
    let index = SearchIndex::build(synthetic::catalog(size, 42), IndexConfig::default());
    let queries = synthetic::queries(index.documents(), 1_000, 7);
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % queries.len();
        index.search(divan::black_box(&queries[next]), 10)
    });
}
