//! One way to prepare a run: `wink run` and a Rust `Agent::from_file` of the same prompt file
//! and scripted model write byte-identical transcripts; turn repairs show on `--verbose` and in
//! the transcript.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use common::{calls_made, fixture, stdout, wink};
use serde_json::{Value, json};
use wink_agent::Agent;
use wink_run::FromPromptFile;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("run_assembly");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

const INPUT: &str = "Has order A-1 shipped, and can I return it?";

#[test]
fn an_agent_from_the_file_and_wink_run_write_the_same_transcript() {
    let prompt = fixture("run_assembly/prompt.json");
    let script = format!("scripted:{}", fixture("run_assembly/script.json"));
    let params = r#"{"Shop": {"name": "Ada's"}}"#;
    let from_cli = scratch("cli.json");
    let out = wink(&[
        "run",
        &prompt,
        "--model",
        &script,
        "--input",
        INPUT,
        "--params",
        params,
        "--transcript",
        from_cli.to_str().unwrap(),
    ]);
    assert_eq!(
        stdout(&out),
        "Order A-1 has shipped; returns are accepted within 30 days.\n"
    );
    // The prompt file's `preopen: 1` opened the orders section for the input.
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("wink run: pre-opened orders\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let from_rust = scratch("rust.json");
    let result = Agent::from_file(&prompt)
        .model(&script)
        .input(INPUT)
        .params(serde_json::from_str(params).unwrap())
        .transcript(&from_rust)
        .run_blocking()
        .unwrap();
    assert_eq!(
        result.text(),
        Some("Order A-1 has shipped; returns are accepted within 30 days.")
    );
    // Byte for byte, but for the wall-clock times of each model call.
    let cli = without_times(&std::fs::read_to_string(&from_cli).unwrap());
    let rust = without_times(&std::fs::read_to_string(&from_rust).unwrap());
    assert!(cli.contains("\"turn\""), "{cli}");
    assert_eq!(cli, rust);
    let transcript: Value =
        serde_json::from_str(&std::fs::read_to_string(&from_cli).unwrap()).unwrap();
    assert_eq!(
        calls_made(&transcript),
        [
            ("read_section".to_owned(), json!({"section_key": "returns"})),
            ("lookup_order".to_owned(), json!({"id": "A-1"})),
        ]
    );
    assert_eq!(transcript["repairs"], json!([]));
}

#[test]
fn a_repaired_turn_shows_on_verbose_and_in_the_transcript() {
    let prompt = fixture("run_assembly/prompt.json");
    let script = scratch("described.json");
    std::fs::write(
        &script,
        r#"[
 {"text": "You can call the `lookup_order` function with the id A-1."},
 {"tool_calls": [{"name": "lookup_order", "arguments": {"id": "A-1"}}]},
 {"text": "Order A-1 has shipped."}
]"#,
    )
    .unwrap();
    let transcript = scratch("described-transcript.json");
    let out = wink(&[
        "run",
        &prompt,
        "--model",
        &format!("scripted:{}", script.display()),
        "--profile",
        "small-local",
        "--no-answer-tool",
        "--input",
        INPUT,
        "--transcript",
        transcript.to_str().unwrap(),
        "--verbose",
    ]);
    assert_eq!(stdout(&out), "Order A-1 has shipped.\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wink run: profile small-local (turn policies: empty-answer, described-answer, follow-up, disclosure-echo, named-tool, narration, procedure, ungrounded; answer tool: off)\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("repair named-tool: require_tool lookup_order (took back: You can call the `lookup_order` function with the id A-1.)"),
        "{stderr}"
    );
    let transcript: Value = serde_json::from_slice(&std::fs::read(&transcript).unwrap()).unwrap();
    assert_eq!(
        transcript["repairs"],
        json!([{"rule": "named-tool", "action": "require_tool", "tool": "lookup_order",
                "text": "You can call the `lookup_order` function with the id A-1."}])
    );
    assert_eq!(transcript["model_call_count"], json!(3));
    // Switched off alone, the same turn stands.
    let out = wink(&[
        "run",
        &prompt,
        "--model",
        &format!("scripted:{}", script.display()),
        "--profile",
        "small-local",
        "--no-repair",
        "named-tool",
        "--input",
        INPUT,
    ]);
    assert_eq!(
        stdout(&out),
        "You can call the `lookup_order` function with the id A-1.\n"
    );
}

#[test]
fn unknown_profiles_and_policies_are_usage_errors() {
    let prompt = fixture("run_assembly/prompt.json");
    let script = format!("scripted:{}", fixture("run_assembly/script.json"));
    for (flag, value, message) in [
        (
            "--profile",
            "tiny",
            "error: --profile: unknown model profile 'tiny' (known: small-local, hosted, default)\n",
        ),
        (
            "--no-repair",
            "guess",
            "error: --no-repair: unknown turn policy 'guess' (known: empty-answer, described-answer, follow-up, disclosure-echo, named-tool, narration, procedure, ungrounded)\n",
        ),
    ] {
        let out = wink(&["run", &prompt, "--model", &script, flag, value]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&out.stderr), message);
    }
}

/// A transcript's text with the values of its `started_at` and `ended_at` lines blanked.
fn without_times(transcript: &str) -> String {
    transcript
        .lines()
        .map(|line| {
            let key = line.trim_start();
            if key.starts_with("\"started_at\": ") || key.starts_with("\"ended_at\": ") {
                let (name, _) = line.split_once(": ").unwrap_or((line, ""));
                format!("{name}: TIME")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
