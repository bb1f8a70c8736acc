//! The README's Rust example (a doctest of this crate, `ReadmeDoctest`) uses the facade only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_start()) {
            (None, fence) if fence.starts_with("```rust") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn the_readme_example_imports_from_the_facade_only() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let blocks = rust_blocks(&readme);
    assert_eq!(blocks.len(), 1, "one Rust example in the README");
    let example = &blocks[0];
    assert!(example.contains("use wink::prelude::*;"), "{example}");
    for crate_path in ["wink_", "schemars::", "serde_json::"] {
        assert!(
            !example.contains(crate_path),
            "the README example names `{crate_path}`: use the facade"
        );
    }
    // Every `use` is the facade's or std's.
    for line in example
        .lines()
        .filter(|l| l.trim_start().starts_with("use "))
    {
        let path = line.trim_start().trim_start_matches("use ");
        assert!(
            path.starts_with("wink::") || path.starts_with("std::"),
            "{line}"
        );
    }
}
