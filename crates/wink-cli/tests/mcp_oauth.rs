//! OAuth end to end against the official conformance suite's authorization server and protected
//! MCP server (scenario `auth/metadata-default`): without a login a run stops with exit 2 and the
//! command to run; `wink mcp login` (a headless `$BROWSER` approves), then `wink run` with a
//! scripted model calls the protected tool. The token file is
//! mode 0600, and the token appears in no output: stdout, stderr, `--transcript`, `--session`.
//! Without the suite it prints a note and passes, unless `CI` is set.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

#[test]
fn a_login_then_a_run_calls_the_protected_tool_and_never_shows_the_token() {
    let Some((node, suite)) = common::conformance_suite() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wink-oauth-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let turns = json!([
        {"tool_calls": [{"id": "1", "name": "suite.test-tool", "arguments": {}}]},
        {"text": "Done."}
    ]);
    std::fs::write(dir.join("script.json"), turns.to_string()).unwrap();
    // The suite runs this with its server's URL as the last argument.
    let script = r#"set -e
url="$1"
printf '{"ns": "e2e", "key": "oauth", "sections": [{"key": "tools", "title": "Tools", "builtin": "catalog", "defer": "never", "servers": {"suite": {"url": "%s"}}}]}' "$url" > "$DIR/prompt.json"
env -u BROWSER "$WINK" render "$DIR/prompt.json" < /dev/null > "$DIR/before.out" 2> "$DIR/before.err" || echo $? > "$DIR/before.code"
"$WINK" mcp login "$DIR/prompt.json" suite > "$DIR/login.out" 2> "$DIR/login.err"
"$WINK" run "$DIR/prompt.json" --model "scripted:$DIR/script.json" --transcript "$DIR/t.json" --session "$DIR/s.jsonl" > "$DIR/run.out" 2> "$DIR/run.err"
"#;
    std::fs::write(dir.join("client.sh"), script).unwrap();
    let browser = common::conformance_dir().join("browser.py");
    let out = Command::new(node)
        .arg(suite)
        .args(["client", "--scenario", "auth/metadata-default", "--command"])
        .arg(format!("sh {}", dir.join("client.sh").display()))
        .arg("-o")
        .arg(dir.join("results"))
        .env("WINK", env!("CARGO_BIN_EXE_wink"))
        .env("DIR", &dir)
        .env("WINK_HOME", dir.join("home"))
        .env("BROWSER", format!("python3 {}", browser.display()))
        .env_remove("WINK_LOG")
        .output()
        .unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert!(
        out.status.success(),
        "{}\n{}\nlogin: {}{}\nrun: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        read("login.out"),
        read("login.err"),
        read("run.out"),
        read("run.err")
    );
    // Before the login, a run that cannot open a browser stops at once, naming the command.
    assert_eq!(read("before.code"), "2\n");
    let prompt = dir.join("prompt.json");
    assert_eq!(
        read("before.err"),
        format!(
            "error: {p}: sections[0].servers: MCP server `suite`: the server requires authorization; log in first with `wink mcp login {p} suite`\n",
            p = prompt.display()
        )
    );
    let login = read("login.out");
    assert!(
        login.starts_with("Logged in to `suite` (http://localhost:"),
        "{login}"
    );
    assert!(login.contains("; scopes: "), "{login}");
    assert_eq!(read("run.out"), "Done.\n");
    assert_eq!(common::last_tool_results(&dir.join("t.json")), ["test"]);

    // The token file: private, and the token in it shown nowhere.
    let tokens: Vec<PathBuf> = std::fs::read_dir(dir.join("home/mcp-auth"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&tokens[0]).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(&tokens[0]).unwrap()).unwrap();
    let token = stored["token_response"]["access_token"].as_str().unwrap();
    assert!(token.len() >= 8, "{token}");
    for name in [
        "login.out",
        "login.err",
        "run.out",
        "run.err",
        "t.json",
        "s.jsonl",
    ] {
        assert!(!read(name).contains(token), "{name} shows the access token");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
