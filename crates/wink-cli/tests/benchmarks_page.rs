//! `docs/benchmarks.md` stays true: `bash bench/run.sh --quick` checks that every benchmark has
//! its generated block, that the blocks' tables parse, that the commands they were made with
//! still exist, that the deterministic figures (token counts, task-search recall) are what the
//! built `wink` prints now, and that the README's headline figures are on the page. A few
//! seconds; the benchmarks themselves run with `bash bench/run.sh NAME`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn quick(page: Option<&Path>) -> std::process::Output {
    quick_with(page, None)
}

fn quick_with(page: Option<&Path>, readme: Option<&Path>) -> std::process::Output {
    let mut command = Command::new("bash");
    command
        .args(["bench/run.sh", "--quick"])
        .current_dir(root())
        .env("WINK", env!("CARGO_BIN_EXE_wink"))
        .env("NO_COLOR", "1");
    if let Some(page) = page {
        command.env("WINK_BENCH_PAGE", page);
    }
    if let Some(readme) = readme {
        command.env("WINK_BENCH_README", readme);
    }
    command.output().unwrap()
}

#[test]
fn the_benchmarks_page_parses_and_its_commands_run() {
    let out = quick(None);
    assert!(
        out.status.success(),
        "bash bench/run.sh --quick failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(
        said.starts_with("docs/benchmarks.md: 13 blocks, tables parse, commands resolve; README: "),
        "{said}"
    );
}

#[test]
fn a_broken_table_or_a_stale_figure_fails_the_check() {
    let page = std::fs::read_to_string(root().join("docs/benchmarks.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.md");

    // A block whose measurement line is gone.
    let without_block = page.replace("<!-- bench:queue end -->", "");
    std::fs::write(&broken, &without_block).unwrap();
    let out = quick(Some(&broken));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no block for queue"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A figure of the catalog block that the command no longer prints.
    let row = "| every tool's full schema | 89,863 |";
    assert!(
        page.contains(row),
        "the catalog block shows the full-schema row"
    );
    std::fs::write(
        &broken,
        page.replace(row, "| every tool's full schema | 89,000 |"),
    )
    .unwrap();
    let out = quick(Some(&broken));
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("block 'catalog'") && said.contains("89,863"),
        "{said}"
    );

    // A table row with a cell too many.
    let marker = "<!-- bench:render end -->";
    let extra = page.replace(
        marker,
        &format!("\n| a | b |\n|---|---|\n| 1 | 2 | 3 |\n{marker}"),
    );
    std::fs::write(&broken, &extra).unwrap();
    let out = quick(Some(&broken));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("table rows have"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_readme_figure_missing_from_the_page_fails_the_check() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let figure = "8,946 as the one-line listing";
    assert!(readme.contains(figure), "the README's catalog headline");
    let dir = tempfile::tempdir().unwrap();
    let changed = dir.path().join("README.md");
    std::fs::write(
        &changed,
        readme.replace(figure, "8,000 as the one-line listing"),
    )
    .unwrap();
    let out = quick_with(None, Some(&changed));
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("README.md: 8,000") && said.contains("under ## catalog"),
        "{said}"
    );
}
