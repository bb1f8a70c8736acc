//! Hostile prompt files (issue 23): duplicate keys, pathological nesting and size are refused or
//! loaded in linear time, with errors naming the key path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use wink_promptfile::{FileFormat, load_str};

fn error(text: &str, format: FileFormat, origin: &str) -> String {
    load_str(text, format, Path::new("."), origin)
        .unwrap_err()
        .to_string()
}

#[test]
fn duplicate_keys_in_json_are_refused_with_their_key_path() {
    assert_eq!(
        error(
            r#"{"ns": "a", "key": "b",
 "sections": [{"key": "x", "title": "X", "template": "one"}],
 "sections": [{"key": "y", "title": "Y", "template": "two"}]}"#,
            FileFormat::Json,
            "p.json"
        ),
        "p.json: (document): duplicate key 'sections' (line 3, column 11)"
    );
    assert_eq!(
        error(
            r#"{"ns": "a", "key": "b", "sections": [{"key": "x", "title": "X", "template": "one", "title": "Z"}]}"#,
            FileFormat::Json,
            "p.json"
        ),
        "p.json: sections[0]: duplicate key 'title' (line 1, column 90)"
    );
}

#[test]
fn duplicate_keys_in_yaml_are_refused_with_their_key_path() {
    let text = "ns: a\nkey: b\nsections:\n  - key: x\n    title: X\n    template: one\n    template: two\n";
    assert_eq!(
        error(text, FileFormat::Yaml, "p.yaml"),
        "p.yaml: sections[0]: duplicate key 'template'"
    );
    let text = "ns: a\nkey: b\nsections: []\nns: c\n";
    assert_eq!(
        error(text, FileFormat::Yaml, "p.yaml"),
        "p.yaml: (document): duplicate key 'ns'"
    );
}

#[test]
fn deeply_nested_yaml_is_refused_before_parsing() {
    let depth = 100_000;
    let text = format!(
        "ns: a\nkey: b\nsections: {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let started = Instant::now();
    assert_eq!(
        error(&text, FileFormat::Yaml, "p.yaml"),
        "p.yaml:3:1011: syntax error: nesting deeper than 1000 levels"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

fn sections_file(count: usize) -> String {
    let sections: Vec<String> = (0..count)
        .map(|i| format!(r#"{{"key": "s{i}", "title": "S{i}", "template": "Body {i}."}}"#))
        .collect();
    format!(
        r#"{{"ns": "a", "key": "b", "sections": [{}]}}"#,
        sections.join(",")
    )
}

fn load_time(count: usize) -> Duration {
    let text = sections_file(count);
    let started = Instant::now();
    let loaded = load_str(&text, FileFormat::Json, Path::new("."), "p.json").unwrap();
    assert_eq!(loaded.template.nodes().len(), count);
    started.elapsed()
}

#[test]
fn loading_many_sections_takes_linear_time() {
    // Quadratic loading made 8× the sections take ~64× the time; linear takes ~8×.
    let small = load_time(5_000);
    let large = load_time(40_000);
    assert!(
        large < small * 24 + Duration::from_millis(200),
        "5,000 sections: {small:?}; 40,000 sections: {large:?}"
    );
}

#[test]
fn deeply_nested_json_and_toml_fail_fast_without_overflowing_the_stack() {
    let depth = 100_000;
    let started = Instant::now();
    let json = format!(
        r#"{{"ns": "a", "key": "b", "sections": {}{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let message = error(&json, FileFormat::Json, "p.json");
    assert!(
        message.starts_with("p.json:1:163: syntax error: recursion limit exceeded"),
        "{message}"
    );
    let toml = format!(
        "ns = \"a\"\nkey = \"b\"\nsections = {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let message = error(&toml, FileFormat::Toml, "p.toml");
    assert!(message.starts_with("p.toml:3:"), "{message}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

fn with_tool(tool: &str) -> String {
    format!(
        r#"{{"ns": "a", "key": "b", "sections": [{{"key": "t", "title": "T", "template": "x", "tools": [{tool}]}}]}}"#
    )
}

#[test]
fn a_tool_named_like_a_builtin_is_refused() {
    for name in [
        "read_section",
        "open_sections",
        "tool.describe",
        "tool.list",
        "find_tool",
        "dispatch_subagent",
    ] {
        assert_eq!(
            error(
                &with_tool(&format!(r#"{{"name": "{name}", "description": "Mine."}}"#)),
                FileFormat::Json,
                "p.json"
            ),
            format!(
                "p.json: sections[0].tools[0].name: '{name}' is the name of a builtin tool; choose another name"
            )
        );
    }
}

#[test]
fn tool_and_output_schemas_must_be_usable_json_schema() {
    let tool = |parameters: &str| {
        error(
            &with_tool(&format!(
                r#"{{"name": "t", "description": "T.", "parameters": {parameters}}}"#
            )),
            FileFormat::Json,
            "p.json",
        )
    };
    assert_eq!(
        tool(r#"{"type": "objectz"}"#),
        "p.json: sections[0].tools[0].parameters: type: unknown type 'objectz' (expected string, integer, number, boolean, object, array or null)"
    );
    assert_eq!(
        tool(r##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}"##),
        "p.json: sections[0].tools[0].parameters: properties.a.$ref: '#/$defs/A' does not resolve to a schema in this document"
    );
    assert_eq!(
        tool(r#"{"type": "object", "properties": {"a": {"type": "string", "pattern": "[z-a]"}}}"#),
        "p.json: sections[0].tools[0].parameters: properties.a.pattern: '[z-a]' is not a regular expression: invalid character class range, the start must be <= the end"
    );
    let output = error(
        r#"{"ns": "a", "key": "b", "sections": [{"key": "t", "title": "T", "template": "x"}],
            "output": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"], "additionalProperties": false}}"#,
        FileFormat::Json,
        "p.json",
    );
    assert_eq!(
        output,
        "p.json: output: required: 'b' is required but not declared in properties while additionalProperties is false, so no value can satisfy the schema"
    );
}

#[test]
fn a_missing_command_cwd_is_named_at_load_and_at_run() {
    let dir = std::env::temp_dir().join(format!("wink-pf-cwd-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("work")).unwrap();
    let file = |cwd: &str| {
        with_tool(&format!(
            r#"{{"name": "t", "description": "T.", "handler": {{"command": ["cat"], "cwd": "{cwd}"}}}}"#
        ))
    };
    let message = load_str(&file("nowhere"), FileFormat::Json, &dir, "p.json")
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "p.json: sections[0].tools[0].handler.cwd: the working directory '{}' does not exist",
            dir.join("nowhere").display()
        )
    );
    // Removed after loading: the failure names it too.
    let loaded = load_str(&file("work"), FileFormat::Json, &dir, "p.json").unwrap();
    std::fs::remove_dir(dir.join("work")).unwrap();
    let prompt = wink_core::Prompt::new(loaded.template);
    let rendered = prompt.render().unwrap();
    let tool = rendered.tool("t").unwrap();
    let mut context = wink_core::ToolContext::new(wink_session::Session::new());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let response = runtime
        .block_on(tool.invoke(serde_json::json!({}), &mut context))
        .unwrap();
    assert_eq!(
        response.result.message,
        format!(
            "Command 'cat' could not be started: its working directory '{}' does not exist (No such file or directory (os error 2))",
            dir.join("work").display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn alive(pid: &str) -> bool {
    // SIGKILL is delivered asynchronously: give a loaded machine a moment.
    for _ in 0..100 {
        if !running(pid) {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}

fn running(pid: &str) -> bool {
    // A zombie counts as gone: it has exited and only waits to be reaped.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

fn read_pid(path: &Path) -> String {
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.trim().is_empty()
        {
            return text.trim().to_owned();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{} never written",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn daemons_started_by_a_command_tool_do_not_outlive_the_call() {
    let dir = std::env::temp_dir().join(format!("wink-pf-daemon-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // One daemon leaves the process group with setsid, one double-forks; the tool then succeeds
    // (first run) or fails (second run).
    for (exit, name) in [(0, "ok"), (3, "failing")] {
        let script = format!(
            "setsid sh -c 'echo $$ > {name}-setsid.pid; exec sleep 60' </dev/null >/dev/null 2>&1 & \
             (sh -c 'echo $$ > {name}-fork.pid; exec sleep 60' &) ; \
             while [ ! -s {name}-setsid.pid ] || [ ! -s {name}-fork.pid ]; do sleep 0.05; done; \
             echo done; exit {exit}"
        );
        let handler = wink_promptfile::CommandHandler {
            program: "sh".into(),
            args: vec!["-c".into(), script],
            cwd: dir.clone(),
            env: Default::default(),
            timeout: Duration::from_secs(20),
            max_output_bytes: 1024,
        };
        let result = handler.run(&serde_json::json!({}));
        assert_eq!(result.success, exit == 0, "{}", result.message);
        for daemon in ["setsid", "fork"] {
            let pid = read_pid(&dir.join(format!("{name}-{daemon}.pid")));
            assert!(
                !alive(&pid),
                "the {daemon} daemon {pid} of the {name} call is still running"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_command_tool_stops_at_the_runs_deadline_whatever_its_own_timeout() {
    let dir = std::env::temp_dir().join(format!("wink-pf-deadline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = with_tool(
        r#"{"name": "t", "description": "T.", "handler": {"command": ["sh", "-c", "echo $$ > tool.pid; exec sleep 86400"], "timeout_s": 86400}}"#,
    );
    let loaded = load_str(&file, FileFormat::Json, &dir, "p.json").unwrap();
    let rendered = wink_core::Prompt::new(loaded.template).render().unwrap();
    let tool = rendered.tool("t").unwrap();
    let mut context = wink_core::ToolContext::new(wink_session::Session::new());
    context.deadline = Some(wink_core::Deadline::after(Duration::from_millis(500)));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let started = Instant::now();
    let outcome = runtime.block_on(tool.invoke(serde_json::json!({}), &mut context));
    assert!(
        matches!(outcome, Err(wink_core::ToolError::DeadlineExceeded)),
        "{:?} after {:?}",
        outcome.map(|r| r.result.message),
        started.elapsed()
    );
    let pid = read_pid(&dir.join("tool.pid"));
    assert!(!alive(&pid), "the tool {pid} still runs");
    std::fs::remove_dir_all(&dir).unwrap();
}
