//! Writes the issue-22 benchmark prompt file: `cargo run --release -p wink-promptfile --example
//! bench_prompt -- SECTIONS OUT.json` (used by `bench/faststart/run.sh`).

#[path = "../benches/support/mod.rs"]
mod support;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(sections), Some(out)) = (args.next(), args.next()) else {
        return Err("usage: bench_prompt SECTIONS OUT.json".into());
    };
    std::fs::write(&out, support::prompt_file_text(sections.parse()?))?;
    Ok(())
}
