//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `tests/conformance/package-lock.json`, installed by `scripts/setup.sh`) against `wink mcp
//! serve tests/conformance/server.json` and against wink's client driven by
//! `tests/conformance/client.py`, at the 2026-07-28 requirements. The checks wink does not pass
//! yet are listed in `tests/conformance/expected-failures.yml` (with the reason in
//! `docs/mcp.md`): the test fails on any other failure, and on a listed check that passes.
//! Without the suite it prints a note and passes, unless `CI` is set.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

#[test]
fn wink_passes_the_conformance_suite_but_for_the_listed_checks() {
    if common::conformance_suite().is_none() {
        return;
    }
    let root = common::conformance_dir();
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
