//! Hostile or careless input to `wink run` and friends (issue 23): never a panic, never a lost
//! answer, a clear error before any work is done.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{fixture, stdout, usage_error, wink};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A scripted model that answers `text` at once.
fn answering_script(dir: &Path, text: &str) -> String {
    let script = dir.join("script.json");
    std::fs::write(&script, format!(r#"[{{"text": "{text}"}}]"#)).unwrap();
    format!("scripted:{}", script.display())
}

#[test]
fn a_huge_timeout_is_refused_not_a_panic() {
    let dir = scratch("timeout");
    let model = answering_script(&dir, "ok");
    let f = fixture("unified.json");
    for value in ["1e20", "18446744073709551616", "inf", "NaN", "-1", "0"] {
        let err = usage_error(&[
            "run",
            &f,
            "--model",
            &model,
            "--params",
            r#"{"TaskParams": {"objective": "x"}}"#,
            &format!("--timeout={value}"),
        ]);
        assert!(
            err.contains(
                "--timeout must be a positive number of seconds up to 31536000 (one year), not "
            ),
            "{value}: {err}"
        );
    }
    let out = wink(&[
        "run",
        &f,
        "--model",
        &model,
        "--params",
        r#"{"TaskParams": {"objective": "x"}}"#,
        "--timeout",
        "31536000",
    ]);
    assert_eq!(stdout(&out), "ok\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A prompt file in `dir` with one visible tool `act` running `sh -c SCRIPT` in `dir`.
fn acting_prompt(dir: &Path, script: &str) -> String {
    let prompt = dir.join("prompt.json");
    let file = serde_json::json!({
        "ns": "hostile", "key": "act",
        "sections": [{"key": "task", "title": "Task", "template": "Call act.",
            "tools": [{"name": "act", "description": "Acts.",
                "handler": {"command": ["sh", "-c", script]}}]}]
    });
    std::fs::write(&prompt, file.to_string()).unwrap();
    prompt.display().to_string()
}

/// A scripted model that calls `act` once, then answers `text`.
fn acting_script(dir: &Path, text: &str) -> String {
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        format!(
            r#"[{{"tool_calls": [{{"id": "c1", "name": "act", "arguments": {{}}}}]}}, {{"text": "{text}"}}]"#
        ),
    )
    .unwrap();
    format!("scripted:{}", script.display())
}

#[test]
fn an_unwritable_transcript_path_fails_before_any_tool_runs() {
    let dir = scratch("transcript-early");
    let prompt = acting_prompt(&dir, "touch acted; echo done");
    let model = acting_script(&dir, "answer");
    let missing = dir.join("missing/t.json");
    let err = usage_error(&[
        "run",
        &prompt,
        "--model",
        &model,
        "--transcript",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(
        err,
        format!(
            "error: --transcript: cannot write {}: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
    assert!(!dir.join("acted").exists(), "the tool ran");
    let err = usage_error(&[
        "run",
        &prompt,
        "--model",
        &model,
        "--transcript",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(
        err,
        format!("error: --transcript: {} is a directory\n", dir.display())
    );
    assert!(!dir.join("acted").exists(), "the tool ran");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_answer_is_printed_even_when_the_transcript_cannot_be_written() {
    let dir = scratch("transcript-late");
    std::fs::create_dir(dir.join("out")).unwrap();
    // The tool removes the transcript's folder during the run.
    let prompt = acting_prompt(&dir, "rm -r out; echo done");
    let model = acting_script(&dir, "the answer");
    let transcript = dir.join("out/t.json");
    let out = wink(&[
        "run",
        &prompt,
        "--model",
        &model,
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "the answer\n");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.ends_with(&format!(
            "error: cannot write transcript {}: No such file or directory (os error 2)\n",
            transcript.display()
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
