//! `docs/llms.md` stays true: its prompt files load, its scripts parse, and its Rust examples
//! are doctests of this crate (`LlmsDoc` in `src/lib.rs`) that nothing skips.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use wink_promptfile::{FileFormat, load, load_str};

/// A fenced block: its info string (after the backticks) and its text.
struct Block {
    info: String,
    text: String,
    line: usize,
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (index, line) in markdown.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_owned(),
                    text: String::new(),
                    line: index + 1,
                });
            }
            (Some(_), Some("")) => out.extend(open.take()),
            (Some(block), _) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed code block");
    out
}

fn llms_md() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/llms.md");
    std::fs::read_to_string(path).unwrap()
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-llms-doc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_json_block_loads_and_every_rust_block_is_a_doctest() {
    let blocks = blocks(&llms_md());
    let dir = temp_dir();
    // Files first: prompt files may name each other (sub-agents).
    let files: Vec<(&Block, &str)> = blocks
        .iter()
        .filter_map(|b| b.info.strip_prefix("json file=").map(|name| (b, name)))
        .collect();
    for (block, name) in &files {
        std::fs::write(dir.join(name), &block.text).unwrap();
    }
    let (mut prompt_files, mut scripts, mut rust) = (0, 0, 0);
    for block in &blocks {
        let at = format!("docs/llms.md:{}", block.line);
        match block.info.as_str() {
            "json prompt-file" => {
                load_str(&block.text, FileFormat::Json, &dir, &at)
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
                prompt_files += 1;
            }
            "json script" => {
                wink_agent::ScriptedProvider::from_json(&block.text, &at)
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
                scripts += 1;
            }
            info if info.starts_with("json file=") => {
                let name = &info["json file=".len()..];
                load(&dir.join(name)).unwrap_or_else(|e| panic!("{at}: {e}"));
                prompt_files += 1;
            }
            info if info.starts_with("json") => {
                panic!(
                    "{at}: a JSON block must be `json prompt-file`, `json file=NAME` or `json script`"
                )
            }
            "rust" | "rust,no_run" => rust += 1,
            info if info.starts_with("rust") => {
                panic!("{at}: `{info}`: Rust examples must compile (rust or rust,no_run)")
            }
            _ => {}
        }
    }
    assert!(prompt_files >= 3, "{prompt_files} prompt files");
    assert!(scripts >= 1, "{scripts} scripts");
    assert!(rust >= 6, "{rust} Rust examples");
    // The sub-agent example wires the two files together.
    let lead = load(&dir.join("lead.json")).unwrap();
    assert_eq!(
        lead.subagents.unwrap().registry().enabled_keys(),
        [("code".to_owned(), "reviewer".to_owned())]
    );
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}
