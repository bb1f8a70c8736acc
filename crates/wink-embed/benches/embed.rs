//! Embedding throughput with the real model (skipped with a note when it is absent): load time,
//! one short query, and a 100-text batch of tool descriptions.

use std::path::PathBuf;

use divan::Bencher;
use wink_embed::StaticModel;

fn main() {
    divan::main();
}

fn model_dir() -> Option<PathBuf> {
    let dir = StaticModel::configured_dir()?;
    if dir.join(wink_embed::WEIGHTS_FILE).is_file() {
        Some(dir)
    } else {
        eprintln!(
            "note: no embedding model at {}; run scripts/fetch-embeddings.sh",
            dir.display()
        );
        None
    }
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn load(bencher: Bencher) {
    let Some(dir) = model_dir() else { return };
    bencher.bench(|| StaticModel::load(&dir).map(|model| model.dim()));
}

#[divan::bench(sample_count = 20, sample_size = 100)]
fn embed_query(bencher: Bencher) {
    let Some(model) = model_dir().and_then(|dir| StaticModel::load(&dir).ok()) else {
        return;
    };
    bencher.bench(|| {
        model.embed(divan::black_box(
            "what's the temperature in Paris right now?",
        ))
    });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn embed_100_descriptions(bencher: Bencher) {
    let Some(model) = model_dir().and_then(|dir| StaticModel::load(&dir).ok()) else {
        return;
    };
    let texts: Vec<String> = (0..100)
        .map(|i| {
            format!(
                "tool_{i}: Retrieves the current record number {i} from the remote service, \
                 filtering by owner, date range and status. Parameters: id, owner, since, until."
            )
        })
        .collect();
    bencher.bench(|| model.embed_matrix(divan::black_box(&texts)));
}
