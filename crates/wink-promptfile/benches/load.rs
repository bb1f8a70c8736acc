//! Loading and rendering prompt files of 100, 1,000 and 10,000 sections
//! (`cargo bench -p wink-promptfile --bench load`; issue 22). The file is the one
//! `bench/faststart/run.sh` runs through `wink render` (see `support/mod.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

use wink_core::Prompt;
use wink_promptfile::{FileFormat, PromptFile, load_str};

fn main() {
    divan::main();
}

const SIZES: [usize; 3] = [100, 1_000, 10_000];

fn load(text: &str) -> wink_promptfile::LoadedPrompt {
    load_str(text, FileFormat::Json, Path::new("."), "bench.json").unwrap()
}

/// Reading the text into the file model only (JSON syntax and shape).
#[divan::bench(args = SIZES)]
fn parse(bencher: divan::Bencher, sections: usize) {
    let text = support::prompt_file_text(sections);
    bencher.bench_local(|| divan::black_box(serde_json::from_str::<PromptFile>(&text).unwrap()));
}

/// The whole load: parse, check and build the template.
#[divan::bench(args = SIZES)]
fn load_file(bencher: divan::Bencher, sections: usize) {
    let text = support::prompt_file_text(sections);
    bencher.bench_local(|| divan::black_box(load(&text)));
}

/// Rendering a loaded prompt.
#[divan::bench(args = SIZES)]
fn render(bencher: divan::Bencher, sections: usize) {
    let prompt = Prompt::new(load(&support::prompt_file_text(sections)).template);
    bencher.bench_local(|| divan::black_box(prompt.render().unwrap()));
}

/// What `wink render FILE` does in-process: load, then render.
#[divan::bench(args = SIZES)]
fn load_and_render(bencher: divan::Bencher, sections: usize) {
    let text = support::prompt_file_text(sections);
    bencher.bench_local(|| {
        let prompt = Prompt::new(load(&text).template);
        divan::black_box(prompt.render().unwrap())
    });
}
