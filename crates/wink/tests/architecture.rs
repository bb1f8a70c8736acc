//! ARCHITECTURE.md's crate-graph block is the crate graph `cargo metadata` reports
//! (`scripts/architecture.sh --check`; run the script without `--check` to regenerate it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

#[test]
fn the_architecture_diagram_matches_the_crate_graph() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut command = Command::new("bash");
    command
        .arg(root.join("scripts/architecture.sh"))
        .arg("--check")
        .current_dir(&root);
    // The cargo running this test, when there is one (the script calls `cargo metadata`).
    if let Some(cargo) = std::env::var_os("CARGO") {
        let dir = Path::new(&cargo).parent().map(Path::to_path_buf);
        if let Some(dir) = dir {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let mut paths = vec![dir];
            paths.extend(std::env::split_paths(&path));
            command.env("PATH", std::env::join_paths(paths).unwrap());
        }
    }
    let output = command.output().expect("bash runs scripts/architecture.sh");
    assert!(
        output.status.success(),
        "ARCHITECTURE.md's crate graph is out of date; run `bash scripts/architecture.sh`:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
