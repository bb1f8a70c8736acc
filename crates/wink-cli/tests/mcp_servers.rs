//! Catalog sections backed by real MCP servers from npm (`@modelcontextprotocol/server-filesystem`,
//! `-memory`, `-everything`, installed by `scripts/setup.sh` into the wink cache) and by
//! `tests/python/flaky_server.py` (crashes and `tools/list_changed`): lazy start, the on-disk tool
//! cache, proxied calls, restarts, clean-up after SIGKILL, secrets, deferral decisions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The secret the tests pass through `env`; it must appear in no file wink writes.
const SECRET: &str = "s3cr3t-wink-test-value";

/// A fresh folder with a `data/notes.txt`, and the wink home (tool cache) under it.
fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-mcpcat-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    std::fs::write(dir.join("data/notes.txt"), "hello from wink\n").unwrap();
    dir
}

/// A prompt over the three npm servers, `defer` as given.
fn three_servers_prompt(dir: &Path, bin: &Path, defer: &str) -> PathBuf {
    let data = dir.join("data");
    let prompt = json!({
        "ns": "demo", "key": "mcp",
        "sections": [
            {"key": "task", "title": "Task", "template": "Answer with the tools."},
            {"key": "tools", "title": "Tools", "builtin": "catalog", "defer": defer,
             "servers": {
                "fs": {"command": [bin.join("mcp-server-filesystem"), data]},
                "mem": {"command": [bin.join("mcp-server-memory")],
                        "env": {"MEMORY_FILE_PATH": "${WINK_TEST_MEMORY_FILE}", "API_KEY": "${WINK_TEST_SECRET}"}},
                "all": {"command": [bin.join("mcp-server-everything")], "cwd": "data"}
             }}
        ]
    });
    let path = dir.join("prompt.json");
    std::fs::write(&path, serde_json::to_string_pretty(&prompt).unwrap()).unwrap();
    path
}

fn wink_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(args)
        .env("WINK_HOME", dir.join("home"))
        .env("WINK_TEST_MEMORY_FILE", dir.join("memory.jsonl"))
        .env("WINK_TEST_SECRET", SECRET)
        .env("RUST_BACKTRACE", "0")
        .env("NO_COLOR", "1")
        .env_remove("WINK_LOG")
        .output()
        .unwrap()
}

/// Process ids whose command line mentions `needle` (other than this test's).
fn processes_mentioning(needle: &str) -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|raw| String::from_utf8_lossy(&raw).contains(needle))
        })
        .collect()
}

fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    done()
}

/// Every file under `dir`, read as text.
fn files_text(dir: &Path) -> String {
    let mut out = String::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.push_str(&files_text(&path));
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            out.push_str(&text);
        }
    }
    out
}

#[test]
fn render_lists_the_servers_tools_and_starts_nothing_once_cached() {
    let Some(bin) = common::npm_servers() else {
        return;
    };
    let dir = workdir("render");
    let prompt = three_servers_prompt(&dir, &bin, "always");
    let p = prompt.to_str().unwrap();
    let cold = common::stdout(&wink_in(&dir, &["render", p, "--format", "json"]));
    let cold: Value = serde_json::from_str(&cold).unwrap();
    let servers = &cold["catalogs"]["tools"]["servers"];
    for name in ["fs", "mem", "all"] {
        assert_eq!(servers[name]["list"], "server", "{servers}");
        assert!(servers[name]["tools"].as_u64().unwrap() >= 5, "{servers}");
    }
    let text = cold["text"].as_str().unwrap();
    assert!(text.contains("\n[fs]\n- read_file: "), "{text}");
    assert!(text.contains("\n- read_text_file: "), "{text}");
    assert!(text.contains("\n[mem]\n- create_entities: "), "{text}");
    assert!(text.contains("\n[all]\n"), "{text}");
    let tools: Vec<&str> = cold["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["tool.list", "tool.describe", "find_tool"]);
    // Warm: the same prompt from the cache, nothing started.
    let warm = common::stdout(&wink_in(&dir, &["render", p, "--format", "json"]));
    let warm: Value = serde_json::from_str(&warm).unwrap();
    for name in ["fs", "mem", "all"] {
        assert_eq!(warm["catalogs"]["tools"]["servers"][name]["list"], "cache");
        assert_eq!(warm["catalogs"]["tools"]["servers"][name]["running"], false);
    }
    assert_eq!(warm["text"], cold["text"]);
    // The cache names the environment variables, never their values.
    let cache = files_text(&dir.join("home/mcp-tools"));
    assert!(
        cache.contains("\"API_KEY\""),
        "the cache holds the tool lists"
    );
    assert!(!cache.contains(SECRET));
    assert!(processes_mentioning(dir.to_str().unwrap()).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn defer_auto_compares_the_schemas_with_the_context_window() {
    let Some(bin) = common::npm_servers() else {
        return;
    };
    let dir = workdir("defer");
    let prompt = three_servers_prompt(&dir, &bin, "auto");
    let p = prompt.to_str().unwrap();
    let small = common::stdout(&wink_in(&dir, &["render", p, "--format", "json"]));
    let small: Value = serde_json::from_str(&small).unwrap();
    let decision = &small["catalogs"]["tools"];
    assert_eq!(decision["policy"], "auto:10");
    assert_eq!(decision["decision"], "deferred");
    assert_eq!(decision["context_window"], 8192);
    assert_eq!(decision["threshold_tokens"], 819);
    let schemas = decision["schema_tokens"].as_u64().unwrap();
    let deferred = decision["deferred_tokens"].as_u64().unwrap();
    assert!(schemas > 819 && deferred < schemas, "{decision}");
    // A window where the schemas fit in 10%: every tool offered in full, no meta-tools.
    let window = (schemas * 10 + 10).to_string();
    let large = common::stdout(&wink_in(
        &dir,
        &["render", p, "--format", "json", "--context-size", &window],
    ));
    let large: Value = serde_json::from_str(&large).unwrap();
    assert_eq!(large["catalogs"]["tools"]["decision"], "full");
    let tools: Vec<&str> = large["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"fs.read_text_file"), "{tools:?}");
    assert!(!tools.contains(&"find_tool"), "{tools:?}");
    // --defer overrides the file's policy.
    let forced = common::stdout(&wink_in(
        &dir,
        &[
            "render",
            p,
            "--format",
            "json",
            "--context-size",
            &window,
            "--defer",
            "always",
        ],
    ));
    let forced: Value = serde_json::from_str(&forced).unwrap();
    assert_eq!(forced["catalogs"]["tools"]["policy"], "always");
    assert_eq!(forced["catalogs"]["tools"]["decision"], "deferred");
    let bad = wink_in(&dir, &["render", p, "--defer", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr),
        "error: --defer: unknown defer policy 'sometimes' (auto, auto:N, always, never)\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_scripted_run_finds_describes_and_calls_a_tool_on_each_server() {
    let Some(bin) = common::npm_servers() else {
        return;
    };
    let dir = workdir("run");
    let prompt = three_servers_prompt(&dir, &bin, "always");
    let script = dir.join("script.json");
    let call = |id: &str, name: &str, args: Value| json!({"tool_calls": [{"id": id, "name": name, "arguments": args}]});
    let turns = json!([
        call("1", "find_tool", json!({"purpose": "read a text file"})),
        call("2", "tool.describe", json!({"names": ["fs.read_text_file"]})),
        call("3", "fs.read_text_file", json!({"path": dir.join("data/notes.txt")})),
        call("4", "find_tool", json!({"purpose": "create entities in the knowledge graph"})),
        call("5", "tool.describe", json!({"names": ["mem.create_entities"]})),
        call("6", "mem.create_entities", json!({"entities": [{"name": "wink", "entityType": "project", "observations": ["lazy MCP servers"]}]})),
        call("7", "find_tool", json!({"purpose": "echo back a message"})),
        call("8", "tool.describe", json!({"names": ["all.echo"]})),
        call("9", "all.echo", json!({"message": "hi from wink"})),
        {"text": "Done."}
    ]);
    std::fs::write(&script, turns.to_string()).unwrap();
    let transcript = dir.join("t.json");
    let log = dir.join("s.jsonl");
    let out = wink_in(
        &dir,
        &[
            "run",
            prompt.to_str().unwrap(),
            "--model",
            &format!("scripted:{}", script.display()),
            "--transcript",
            transcript.to_str().unwrap(),
            "--session",
            log.to_str().unwrap(),
        ],
    );
    assert_eq!(common::stdout(&out), "Done.\n");
    let err = String::from_utf8_lossy(&out.stderr);
    for tool in ["fs.read_text_file", "mem.create_entities", "all.echo"] {
        assert!(
            err.contains(&format!("injected tools from 'tools': {tool}")),
            "{err}"
        );
    }
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    let last = saved["model_calls"].as_array().unwrap().last().unwrap();
    let results: Vec<String> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(
        results[0].contains("\n- fs.read_text_file: "),
        "{}",
        results[0]
    );
    assert!(
        results[1].starts_with("`fs.read_text_file` is now callable."),
        "{}",
        results[1]
    );
    assert_eq!(results[2], "hello from wink\n");
    assert!(
        results[3].contains("\n- mem.create_entities: "),
        "{}",
        results[3]
    );
    assert!(results[5].contains("\"name\": \"wink\""), "{}", results[5]);
    assert!(results[6].contains("\n- all.echo: "), "{}", results[6]);
    assert_eq!(results[8], "Echo: hi from wink");
    let memory = std::fs::read_to_string(dir.join("memory.jsonl")).unwrap();
    assert!(memory.contains("lazy MCP servers"), "{memory}");
    // No secret in what wink wrote; no server left running.
    for written in [&transcript, &log] {
        assert!(!std::fs::read_to_string(written).unwrap().contains(SECRET));
    }
    assert!(!files_text(&dir.join("home")).contains(SECRET));
    assert!(processes_mentioning(dir.to_str().unwrap()).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_server_outlives_a_parent_killed_with_sigkill() {
    let Some(bin) = common::npm_servers() else {
        return;
    };
    let dir = workdir("sigkill");
    let prompt = three_servers_prompt(&dir, &bin, "always");
    // A cold cache: serving starts the servers to list their tools, then waits on stdin.
    let mut serve = Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(["mcp", "serve", prompt.to_str().unwrap()])
        .env("WINK_HOME", dir.join("home"))
        .env("WINK_TEST_MEMORY_FILE", dir.join("memory.jsonl"))
        .env("WINK_TEST_SECRET", SECRET)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let needle = dir.join("data").display().to_string();
    assert!(
        wait_until(Duration::from_secs(60), || !processes_mentioning(&needle)
            .is_empty()),
        "the filesystem server never started"
    );
    serve.kill().unwrap(); // SIGKILL: no destructor runs
    serve.wait().unwrap();
    assert!(
        wait_until(Duration::from_secs(10), || processes_mentioning(&needle)
            .is_empty()),
        "servers outlived their parent: {:?}",
        processes_mentioning(&needle)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn flaky_prompt(dir: &Path) -> PathBuf {
    let server = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/flaky_server.py");
    let prompt = json!({
        "ns": "demo", "key": "flaky",
        "sections": [{"key": "tools", "title": "Tools", "builtin": "catalog", "defer": "always",
            "servers": {"flaky": {"command": ["python3", server, dir.join("data")]}}}]
    });
    let path = dir.join("prompt.json");
    std::fs::write(&path, prompt.to_string()).unwrap();
    path
}

fn python_mcp_sdk() -> bool {
    let available = Command::new("python3")
        .args(["-c", "import mcp"])
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but the MCP Python SDK is missing: run scripts/setup.sh"
        );
        eprintln!("note: skipping: the MCP Python SDK is not installed (scripts/setup.sh)");
    }
    available
}

#[test]
fn a_crashed_server_is_restarted_once_and_tool_list_changes_are_indexed() {
    if !python_mcp_sdk() {
        return;
    }
    let dir = workdir("flaky");
    let prompt = flaky_prompt(&dir);
    // Each call differs (`note`), so the loop's repetition guard answers none of them.
    let call = |id: &str, name: &str| json!({"tool_calls": [{"id": id, "name": name, "arguments": {"note": id}}]});
    let describe = |id: &str, names: Value| json!({"tool_calls": [{"id": id, "name": "tool.describe", "arguments": {"names": names}}]});
    let turns = json!([
        describe("0", json!(["flaky.pid", "flaky.crash", "flaky.grow"])),
        call("1", "flaky.pid"),
        call("2", "flaky.crash"),
        call("3", "flaky.pid"),
        json!({"tool_calls": [{"id": "4", "name": "flaky.grow", "arguments": {}}]}),
        describe("5", json!(["flaky.extra"])),
        json!({"tool_calls": [{"id": "6", "name": "flaky.extra", "arguments": {}}]}),
        call("7", "flaky.crash"),
        call("8", "flaky.pid"),
        {"text": "Done."}
    ]);
    let script = dir.join("script.json");
    std::fs::write(&script, turns.to_string()).unwrap();
    let transcript = dir.join("t.json");
    let out = wink_in(
        &dir,
        &[
            "run",
            prompt.to_str().unwrap(),
            "--model",
            &format!("scripted:{}", script.display()),
            "--transcript",
            transcript.to_str().unwrap(),
        ],
    );
    assert_eq!(common::stdout(&out), "Done.\n");
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    let last = saved["model_calls"].as_array().unwrap().last().unwrap();
    let results: Vec<String> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    let first_pid: u32 = results[1].trim().parse().unwrap();
    assert_eq!(
        results[2],
        "Tool 'flaky.crash' execution failed: MCP server `flaky` exited during the call (Transport closed); it is restarted for the next call."
    );
    let second_pid: u32 = results[3].trim().parse().unwrap();
    assert_ne!(first_pid, second_pid, "the server was restarted");
    assert_eq!(results[4], "added extra");
    assert!(
        results[5].starts_with("`flaky.extra` is now callable."),
        "{}",
        results[5]
    );
    assert_eq!(results[6], "extra tool ran");
    assert!(
        results[7].contains("exited during the call"),
        "{}",
        results[7]
    );
    assert_eq!(
        results[8],
        "Tool 'flaky.pid' execution failed: MCP server `flaky`: the server exited again after a restart; it is not restarted a second time"
    );
    assert!(processes_mentioning(dir.to_str().unwrap()).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_call_outlasting_the_servers_timeout_s_is_a_failed_tool_result() {
    if !python_mcp_sdk() {
        return;
    }
    let dir = workdir("timeout");
    let server = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/flaky_server.py");
    // timeout_s bounds the server's start too: long enough for the SDK server to start on a
    // busy machine.
    let prompt = json!({
        "ns": "demo", "key": "slow",
        "sections": [{"key": "tools", "title": "Tools", "builtin": "catalog", "defer": "never",
            "servers": {"flaky": {"command": ["python3", server, dir.join("data")], "timeout_s": 15}}}]
    });
    let path = dir.join("prompt.json");
    std::fs::write(&path, prompt.to_string()).unwrap();
    let call = |seconds: f64| {
        let started = Instant::now();
        let out = wink_in(
            &dir,
            &[
                "call",
                path.to_str().unwrap(),
                "flaky.sleep",
                &json!({ "seconds": seconds }).to_string(),
            ],
        );
        let answer: Value = serde_json::from_str(&common::stdout(&out)).unwrap();
        (answer, started.elapsed())
    };
    let (late, took) = call(60.0);
    assert_eq!(
        late,
        json!({"success": false, "message": "Tool 'flaky.sleep' execution failed: MCP server `flaky` did not answer `sleep` within 15 s.", "value": null})
    );
    assert!(took < Duration::from_secs(50), "the call took {took:?}");
    let (quick, _) = call(0.1);
    assert_eq!(quick["success"], true, "{quick}");
    assert_eq!(quick["message"], "slept 0.1 s");
    assert!(
        wait_until(Duration::from_secs(10), || processes_mentioning(
            dir.to_str().unwrap()
        )
        .is_empty()),
        "the server outlived `wink call`"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A prompt over the filesystem server with `filter` (its `enabled_tools`/`disabled_tools`).
fn filtered_fs_prompt(dir: &Path, bin: &Path, filter: Value) -> PathBuf {
    let mut fs = json!({"command": [bin.join("mcp-server-filesystem"), dir.join("data")]});
    if let (Some(fs), Some(filter)) = (fs.as_object_mut(), filter.as_object()) {
        fs.extend(filter.clone());
    }
    let prompt = json!({
        "ns": "demo", "key": "filtered",
        "sections": [{"key": "tools", "title": "Tools", "builtin": "catalog", "defer": "never",
            "servers": {"fs": fs}}]
    });
    let path = dir.join("prompt.json");
    std::fs::write(&path, prompt.to_string()).unwrap();
    path
}

fn offered_tools(dir: &Path, prompt: &Path) -> Vec<String> {
    let out = wink_in(
        dir,
        &["render", prompt.to_str().unwrap(), "--format", "json"],
    );
    common::tool_names(&serde_json::from_str(&common::stdout(&out)).unwrap())
}

#[test]
fn enabled_and_disabled_tools_choose_what_a_server_offers() {
    let Some(bin) = common::npm_servers() else {
        return;
    };
    let dir = workdir("filter");
    let read_only = json!({"enabled_tools": ["search_files", "read_text_file", "list_directory"]});
    let prompt = filtered_fs_prompt(&dir, &bin, read_only);
    // The server's order, not the list's.
    assert_eq!(
        offered_tools(&dir, &prompt),
        ["fs.read_text_file", "fs.list_directory", "fs.search_files"]
    );
    let out = wink_in(
        &dir,
        &[
            "call",
            prompt.to_str().unwrap(),
            "fs.list_directory",
            r#"{"path": "."}"#,
        ],
    );
    let listed: Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    assert_eq!(listed["message"], "[FILE] notes.txt", "{listed}");
    let out = wink_in(
        &dir,
        &[
            "call",
            prompt.to_str().unwrap(),
            "fs.write_file",
            r#"{"path": "x", "content": "y"}"#,
        ],
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(!dir.join("data/x").exists(), "a tool left out must not run");
    // disabled_tools leaves tools out of the whole list.
    let prompt = filtered_fs_prompt(
        &dir,
        &bin,
        json!({"disabled_tools": ["write_file", "edit_file"]}),
    );
    let offered = offered_tools(&dir, &prompt);
    assert!(
        offered.contains(&"fs.read_text_file".to_owned()),
        "{offered:?}"
    );
    assert!(
        !offered
            .iter()
            .any(|t| t == "fs.write_file" || t == "fs.edit_file"),
        "{offered:?}"
    );
    // A name the server does not list is an error naming the key (from the cache too).
    let prompt = filtered_fs_prompt(
        &dir,
        &bin,
        json!({"disabled_tools": ["write_file", "delete_file"]}),
    );
    let out = wink_in(&dir, &["render", prompt.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "error: {}: sections[0].servers.fs.disabled_tools: MCP server `fs`: disabled_tools names `delete_file`, which the server does not list (its tools: read_file, read_text_file, ",
        prompt.display()
    );
    assert!(stderr.starts_with(&expected), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Example 08 on the embedded 1.5B model: the question names the file, the model reads it
/// through the filesystem server (3 of its 14 tools offered) and answers from it.
#[test]
fn the_embedded_model_reads_the_file_the_user_names_through_the_server() {
    let Some(bin) = common::npm_servers() else {
        return;
    };
    let Some(model) = common::embedded_model(
        "WINK_TEST_MODEL_1_5B",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "1.5b",
    ) else {
        return;
    };
    let dir = workdir("local-example");
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/08_mcp_servers");
    let transcript = dir.join("transcript.json");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_wink"))
        .args([
            "run",
            example.join("prompt.json").to_str().unwrap(),
            "--model",
            &format!("local:{}", model.display()),
            "--input",
            "What does shipping.md say about order A-1042?",
            "--transcript",
            transcript.to_str().unwrap(),
            "--max-model-calls",
            "6",
        ])
        .env("WINK_HOME", dir.join("home"))
        .env("PATH", path)
        .env_remove("WINK_LOG")
        .output()
        .unwrap();
    assert_eq!(
        common::stdout(&out),
        "Order A-1042 left the Malmö warehouse on 2026-11-21 with PostNord. Expected delivery: 2026-11-25. Signature required on delivery.\n"
    );
    // llama.cpp's load-time warnings about the model file are not shown by default.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("WARN"), "{stderr}");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    assert_eq!(t["status"]["status"], "finished");
    assert_eq!(t["model_call_count"], 2);
    let calls = t["model_calls"].as_array().unwrap();
    assert_eq!(
        calls[0]["tools"],
        json!(["fs.read_text_file", "fs.list_directory", "fs.search_files"])
    );
    assert_eq!(
        common::calls_made(&t),
        [(
            "fs.read_text_file".to_owned(),
            json!({"path": "shipping.md", "tail": 0})
        )]
    );
    assert!(processes_mentioning(dir.to_str().unwrap()).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_server_that_will_not_start_is_a_clear_error() {
    let dir = workdir("ghost");
    let prompt = json!({
        "ns": "demo", "key": "ghost",
        "sections": [{"key": "tools", "title": "Tools", "builtin": "catalog",
            "servers": {"ghost": {"command": ["/nonexistent/mcp-server"]}}}]
    });
    let path = dir.join("prompt.json");
    std::fs::write(&path, prompt.to_string()).unwrap();
    let out = wink_in(&dir, &["render", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {}: sections[0].servers: MCP server `ghost`: cannot start: `/nonexistent/mcp-server` is not an executable file or on PATH\n",
            path.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn streamable_http_servers_get_their_headers_from_the_environment() {
    let Some(bin) = common::npm_servers() else {
        return;
    };
    let dir = workdir("http");
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut server = Command::new(bin.join("mcp-server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let up = wait_until(Duration::from_secs(30), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    assert!(up, "the everything server did not listen on {port}");
    let prompt = json!({
        "ns": "demo", "key": "http",
        "sections": [{"key": "tools", "title": "Tools", "builtin": "catalog", "defer": "never",
            "servers": {"all": {"url": format!("http://127.0.0.1:{port}/mcp"),
                                "headers_env": {"Authorization": "WINK_TEST_SECRET"}}}}]
    });
    let path = dir.join("prompt.json");
    std::fs::write(&path, prompt.to_string()).unwrap();
    let out = wink_in(
        &dir,
        &[
            "call",
            path.to_str().unwrap(),
            "all.echo",
            r#"{"message": "over http"}"#,
        ],
    );
    let text = common::stdout(&out);
    assert!(text.contains("Echo: over http"), "{text}");
    assert!(!files_text(&dir.join("home")).contains(SECRET));
    let _ = server.kill();
    let _ = server.wait();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mcp_serve_proxies_the_servers_to_the_python_sdk() {
    let Some(bin) = common::npm_servers() else {
        return;
    };
    if !python_mcp_sdk() {
        return;
    }
    let dir = workdir("serve");
    let prompt = three_servers_prompt(&dir, &bin, "always");
    let client = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/mcp_proxy_check.py");
    let notes = dir.join("data/notes.txt");
    let output = Command::new("python3")
        .arg(client)
        .args([
            "--purpose",
            "read a text file",
            "--tool",
            "fs.read_text_file",
        ])
        .args(["--tool-args", &json!({"path": notes}).to_string()])
        .args(["--", env!("CARGO_BIN_EXE_wink"), "mcp", "serve"])
        .arg(&prompt)
        .env("WINK_HOME", dir.join("home"))
        .env("WINK_TEST_MEMORY_FILE", dir.join("memory.jsonl"))
        .env("WINK_TEST_SECRET", SECRET)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        seen["tools_before"],
        json!(["tool.list", "tool.describe", "find_tool"])
    );
    assert!(
        seen["find_tool"]
            .as_str()
            .unwrap()
            .contains("\n- fs.read_text_file: "),
        "{seen}"
    );
    assert_eq!(seen["describe"]["is_error"], false);
    assert_eq!(
        seen["tools_after"],
        json!([
            "tool.list",
            "tool.describe",
            "find_tool",
            "fs.read_text_file"
        ])
    );
    assert_eq!(
        seen["call"],
        json!({"is_error": false, "text": "hello from wink\n"})
    );
    assert!(
        wait_until(Duration::from_secs(10), || processes_mentioning(
            dir.to_str().unwrap()
        )
        .is_empty()),
        "servers outlived `wink mcp serve`"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
