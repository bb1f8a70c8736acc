//! Loads and renders a prompt file `REPEAT` times in one process: `cargo run --release -p
//! wink-promptfile --example load_prompt -- FILE.json [REPEAT]` (issue 22). For instruction
//! counts of the in-process work alone, run it under `valgrind --tool=callgrind` with two
//! repeat counts and divide the difference (start-up and reading the file cancel out).

use std::path::Path;

use wink_core::Prompt;
use wink_promptfile::{FileFormat, load_str};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        return Err("usage: load_prompt FILE.json [REPEAT]".into());
    };
    let repeat: usize = args.next().map_or(Ok(1), |n| n.parse())?;
    let text = std::fs::read_to_string(&file)?;
    let mut bytes = 0;
    for _ in 0..repeat {
        let loaded = load_str(&text, FileFormat::Json, Path::new("."), &file)?;
        bytes += Prompt::new(loaded.template).render()?.text.len();
    }
    println!("{bytes} bytes rendered");
    Ok(())
}
