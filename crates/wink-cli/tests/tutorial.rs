//! `docs/tutorial.md` runs: every `sh runnable` block is executed in order, in one empty folder,
//! with the built `wink` first on `PATH`; a `text output` block right after one must equal what
//! it printed. (The tutorial's Rust code is a doctest of `wink-promptfile`.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fenced block: its info string, its text and the line it starts on.
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

fn run_block(dir: &Path, block: &Block) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_wink")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &block.text])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("WINK_LOG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "docs/tutorial.md:{}: exit {:?}\nstdout: {}\nstderr: {}",
        block.line,
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_tutorial_commands_run_and_print_what_it_shows() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/tutorial.md");
    let blocks = blocks(&std::fs::read_to_string(path).unwrap());
    let dir = std::env::temp_dir().join(format!("wink-tutorial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (mut ran, mut checked) = (0, 0);
    for (index, block) in blocks.iter().enumerate() {
        if block.info != "sh runnable" {
            continue;
        }
        let stdout = run_block(&dir, block);
        ran += 1;
        if let Some(expected) = blocks.get(index + 1).filter(|b| b.info == "text output") {
            assert_eq!(
                stdout, expected.text,
                "docs/tutorial.md:{}: output differs from the block at line {}",
                block.line, expected.line
            );
            checked += 1;
        }
    }
    assert_eq!((ran, checked), (6, 6));
    let _ = std::fs::remove_dir_all(&dir);
}
