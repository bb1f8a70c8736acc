//! The pages of `docs/` run: every `sh runnable` block of a page is executed in order, in one
//! empty folder per page (holding a link `examples` to the repository's examples, so a block runs
//! as it would from the repository's root), with the built `wink` first on `PATH`; a
//! `text output` block right after one must equal what it printed. Each page's count of blocks
//! is pinned, so a block that loses its `runnable` tag fails here. (The tutorial's Rust code is a
//! doctest of `wink-promptfile`; the other command lines of the pages are parsed by
//! `tests/command_lines.rs`.)
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

fn run_block(page: &str, dir: &Path, block: &Block) -> String {
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
        "{page}:{}: exit {:?}\nstdout: {}\nstderr: {}",
        block.line,
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `page`'s runnable blocks and returns how many ran and how many had their output checked.
fn run_page(page: &str) -> (usize, usize) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let blocks = blocks(&std::fs::read_to_string(root.join(page)).unwrap());
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root.join("examples"), dir.path().join("examples")).unwrap();
    let (mut ran, mut checked) = (0, 0);
    for (index, block) in blocks.iter().enumerate() {
        if block.info != "sh runnable" {
            continue;
        }
        let stdout = run_block(page, dir.path(), block);
        ran += 1;
        if let Some(expected) = blocks.get(index + 1).filter(|b| b.info == "text output") {
            assert_eq!(
                stdout, expected.text,
                "{page}:{}: output differs from the block at line {}",
                block.line, expected.line
            );
            checked += 1;
        }
    }
    (ran, checked)
}

#[test]
fn the_tutorial_runs_and_prints_what_it_shows() {
    assert_eq!(run_page("docs/tutorial.md"), (6, 6));
}

#[test]
fn the_prompt_file_errors_are_what_the_page_shows() {
    assert_eq!(run_page("docs/prompt-files.md"), (1, 1));
}

#[test]
fn the_disclosure_modes_render_what_the_page_shows() {
    assert_eq!(run_page("docs/disclosure.md"), (1, 1));
}

#[test]
fn the_mcp_page_talks_to_wink_mcp_serve_by_hand() {
    assert_eq!(run_page("docs/mcp.md"), (1, 1));
}

#[test]
fn the_skills_page_validates_and_lists_the_example_skill() {
    assert_eq!(run_page("docs/skills.md"), (1, 1));
}

#[test]
fn the_providers_page_shows_the_profile_a_run_gets() {
    assert_eq!(run_page("docs/providers.md"), (1, 1));
}

#[test]
fn the_deploy_page_runs_a_worker_and_a_request_on_a_private_redis() {
    if !wink_redis::redis_server_installed() {
        println!("SKIPPED: redis-server is not installed (scripts/setup.sh installs it)");
        return;
    }
    assert_eq!(run_page("docs/deploy.md"), (1, 1));
}

#[test]
fn the_tracing_page_records_a_run_and_shows_it() {
    assert_eq!(run_page("docs/tracing.md"), (1, 0));
}
