//! What a process pays to count tokens (issue 22): the first `TokenCounter::o200k()`, the first
//! count, and counting speed over the project's docs.
//! `cargo run --release -p wink-tokens --example startup`

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let counter = wink_tokens::TokenCounter::o200k()?;
    let built = start.elapsed();
    let start = Instant::now();
    let hello = counter.count("hello world");
    let first = start.elapsed();
    let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs");
    let mut text = String::new();
    for entry in std::fs::read_dir(docs)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "md") {
            text.push_str(&std::fs::read_to_string(path)?);
        }
    }
    let start = Instant::now();
    let tokens = counter.count(&text);
    let counting = start.elapsed();
    println!(
        "first TokenCounter::o200k(): {:.2} ms; first count ({hello} tokens): {:.3} ms; docs/*.md: {tokens} tokens in {:.2} ms ({:.1} M tokens/s)",
        built.as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e3,
        counting.as_secs_f64() * 1e3,
        tokens as f64 / counting.as_secs_f64() / 1e6
    );
    Ok(())
}
