//! Checks [`BpeTokenizer::encode`] against reference token ids, e.g. produced by the Hugging Face
//! `tokenizers` library with `tok.encode(text, add_special_tokens=False).ids`.
//!
//! `cargo run --release -p wink-embed --example compare_tokens -- TOKENIZER_JSON REFERENCE_JSONL`
//! where each reference line is `{"text": …, "ids": [...]}`. Prints the first mismatches and a
//! count; exits non-zero on any mismatch.

use std::path::PathBuf;
use std::process::ExitCode;

use serde::Deserialize;
use wink_embed::BpeTokenizer;

#[derive(Deserialize)]
struct Reference {
    text: String,
    ids: Vec<u32>,
}

fn main() -> ExitCode {
    let arguments: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [tokenizer, reference] = arguments.as_slice() else {
        eprintln!("usage: compare_tokens TOKENIZER_JSON REFERENCE_JSONL");
        return ExitCode::from(2);
    };
    let tokenizer = match BpeTokenizer::from_file(tokenizer) {
        Ok(tokenizer) => tokenizer,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let text = match std::fs::read_to_string(reference) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("error: cannot read {}: {error}", reference.display());
            return ExitCode::FAILURE;
        }
    };
    let (mut checked, mut mismatched, mut tokens) = (0usize, 0usize, 0usize);
    let started = std::time::Instant::now();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let reference: Reference = match serde_json::from_str(line) {
            Ok(reference) => reference,
            Err(error) => {
                eprintln!("error: {}:{}: {error}", reference.display(), number + 1);
                return ExitCode::FAILURE;
            }
        };
        let ids = tokenizer.encode(&reference.text);
        checked += 1;
        tokens += ids.len();
        if ids != reference.ids {
            mismatched += 1;
            if mismatched <= 5 {
                let shown: String = reference.text.chars().take(80).collect();
                eprintln!(
                    "mismatch on line {}: {shown:?}\n  expected {:?}\n  got      {:?}",
                    number + 1,
                    &reference.ids[..reference.ids.len().min(40)],
                    &ids[..ids.len().min(40)]
                );
            }
        }
    }
    println!(
        "{checked} texts, {tokens} tokens, {mismatched} mismatches, {:.0} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    if mismatched == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
