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

#[test]
fn a_second_run_on_a_session_log_in_use_fails_at_once() {
    let dir = scratch("session-lock");
    let prompt = acting_prompt(&dir, "sleep 4; echo done");
    let model = acting_script(&dir, "first");
    let log = dir.join("same.jsonl");
    let first = std::process::Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(["run", &prompt, "--model", &model, "--session"])
        .arg(&log)
        .env("RUST_BACKTRACE", "0")
        .env_remove("WINK_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first run has written the log's header (it holds the lock from then on).
    let started = std::time::Instant::now();
    while std::fs::read(&log).map_or(true, |bytes| !bytes.contains(&b'\n')) {
        assert!(
            started.elapsed().as_secs() < 30,
            "the first run never wrote its log"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second_started = std::time::Instant::now();
    let err = usage_error(&[
        "run",
        &prompt,
        "--model",
        &model,
        "--session",
        log.to_str().unwrap(),
    ]);
    assert!(
        second_started.elapsed().as_secs() < 3,
        "the second run waited {:?}",
        second_started.elapsed()
    );
    assert_eq!(
        err,
        format!(
            "error: --session: session log {} is in use by another run (it is locked); wait for that run to end or choose another log\n",
            log.display()
        )
    );
    let first = first.wait_with_output().unwrap();
    assert_eq!(String::from_utf8(first.stdout).unwrap(), "first\n");
    // The log is whole: it shows and resumes.
    stdout(&wink(&["session", "show", log.to_str().unwrap()]));
    std::fs::write(dir.join("script.json"), r#"[{"text": "second"}]"#).unwrap();
    let out = wink(&[
        "run",
        &prompt,
        "--model",
        &model,
        "--session",
        log.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&out), "second\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resuming_a_session_log_with_another_prompt_needs_force() {
    let dir = scratch("session-prompt");
    let prompt = acting_prompt(&dir, "echo done");
    let model = answering_script(&dir, "ok");
    let log = dir.join("s.jsonl");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            prompt.as_str(),
            "--model",
            model.as_str(),
            "--session",
            log.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        wink(&args)
    };
    assert_eq!(stdout(&run(&[])), "ok\n");
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let logged = header["prompt"]["sha256"].as_str().unwrap().to_owned();
    assert_eq!(header["prompt"]["ns"], "hostile");
    assert_eq!(header["prompt"]["key"], "act");
    assert_eq!(logged.len(), 64);
    // Same prompt: resumed.
    assert_eq!(stdout(&run(&[])), "ok\n");
    // The prompt file changed: refused, then forced.
    let prompt = acting_prompt(&dir, "echo changed");
    let changed = wink_sha256(Path::new(&prompt));
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "error: --session: {} was recorded for prompt hostile:act (sha256 {logged}), not hostile:act (sha256 {changed}); use another log, or --force to resume it anyway\n",
            log.display()
        )
    );
    assert_eq!(stdout(&run(&["--force"])), "ok\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// sha256 of a file, by `sha256sum`.
fn wink_sha256(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_owned()
}

#[test]
fn duplicate_keys_and_oversized_integers_in_tool_arguments_are_refused() {
    let dir = scratch("arguments");
    let prompt = acting_prompt(&dir, "touch acted; echo done");
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        r#"[{"tool_calls": [{"id": "c1", "name": "act", "arguments": "{\"a\": 1, \"a\": 2}"}]},
            {"tool_calls": [{"id": "c2", "name": "act", "arguments": "{\"n\": 123456789012345678901234567890}"}]},
            {"text": "gave up"}]"#,
    )
    .unwrap();
    let transcript = dir.join("t.json");
    let out = wink(&[
        "run",
        &prompt,
        "--model",
        &format!("scripted:{}", script.display()),
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&out), "gave up\n");
    assert!(!dir.join("acted").exists(), "the tool ran");
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    let messages = t["model_calls"][2]["messages"].as_array().unwrap();
    let results: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        results,
        [
            "Tool validation failed: duplicate key 'a' in the arguments",
            "Tool validation failed: the integer 123456789012345678901234567890 does not fit in 64 bits (in the arguments)"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_interrupted_run_kills_its_running_command_tool() {
    let dir = scratch("sigint");
    let prompt = acting_prompt(
        &dir,
        "setsid sh -c 'echo $$ > daemon.pid; exec sleep 60' </dev/null >/dev/null 2>&1 & echo $$ > tool.pid; exec sleep 60",
    );
    let model = acting_script(&dir, "never");
    // The last case closes stderr's read end before wink writes its progress (`--verbose`), as
    // `wink run … 2>&1 | head` does: writing to it must neither end the run nor the signal
    // handler (`eprintln!` panicked there, and the run then waited forever).
    for (signal, code, close_stderr) in [
        ("-INT", 130, false),
        ("-TERM", 143, false),
        ("-TERM", 143, true),
    ] {
        let _ = std::fs::remove_file(dir.join("tool.pid"));
        let _ = std::fs::remove_file(dir.join("daemon.pid"));
        let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_wink"))
            .args(["run", &prompt, "--model", &model, "--verbose"])
            .env("RUST_BACKTRACE", "0")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if close_stderr {
            drop(run.stderr.take());
        }
        let tool = wait_for_pid(&dir.join("tool.pid"));
        let daemon = wait_for_pid(&dir.join("daemon.pid"));
        std::process::Command::new("kill")
            .args([signal, &run.id().to_string()])
            .status()
            .unwrap();
        let started = std::time::Instant::now();
        let status = run.wait().unwrap();
        assert_eq!(status.code(), Some(code));
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
        for pid in [tool, daemon] {
            assert!(!alive(&pid), "process {pid} outlived wink ({signal})");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_command_tool_dies_with_a_killed_run() {
    // SIGKILL runs no handler: the tool is started through `setpriv --pdeathsig KILL` so that it
    // does not go on running (and finish unseen) after wink is gone, as under a killed worker.
    if !std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|dir| dir.join("setpriv").is_file())
    {
        println!("SKIPPED: setpriv (util-linux) is not installed");
        return;
    }
    let dir = scratch("sigkill");
    let prompt = acting_prompt(&dir, "echo $$ > tool.pid; exec sleep 60");
    let model = acting_script(&dir, "never");
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(["run", &prompt, "--model", &model])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let tool = wait_for_pid(&dir.join("tool.pid"));
    run.kill().unwrap();
    let status = run.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    assert!(!alive(&tool), "the tool ({tool}) outlived the killed run");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn wait_for_pid(path: &Path) -> String {
    let started = std::time::Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.trim().is_empty()
        {
            return text.trim().to_owned();
        }
        assert!(
            started.elapsed().as_secs() < 20,
            "{} never written",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether a process runs (a zombie waiting to be reaped counts as gone).
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
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

/// Runs `wink ARGS` on a pseudo-terminal (util-linux `script`), stdout and stderr both on it;
/// what the terminal got. `None` (with a note) where `script` is missing.
fn on_terminal(args: &[&str]) -> Option<String> {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_wink"))
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let out = std::process::Command::new("script")
        .args(["-q", "-e", "-c", &quoted.join(" "), "/dev/null"])
        .env("RUST_BACKTRACE", "0")
        .env_remove("WINK_LOG")
        .output();
    match out {
        Ok(out) => Some(String::from_utf8_lossy(&out.stdout).into_owned()),
        Err(e) => {
            eprintln!("note: skipping the terminal half: `script` cannot run ({e})");
            None
        }
    }
}

/// `dir/prompt.json`: one section offering `tools` (a JSON list of tool declarations).
fn prompt_with_tools(dir: &Path, tools: &str) -> String {
    let prompt = dir.join("prompt.json");
    std::fs::write(
        &prompt,
        format!(
            r#"{{"ns": "t", "key": "k", "sections": [{{"key": "a", "title": "A", "template": "Use the tools.", "tools": {tools}}}]}}"#
        ),
    )
    .unwrap();
    prompt.display().to_string()
}

/// A prompt with a tool whose output drives a terminal (window title, clear screen), and a
/// scripted model that calls it and answers with an OSC 52 clipboard write and a C1 control
/// (CSI, which JSON leaves as it is).
fn terminal_attack(dir: &Path) -> (String, String) {
    let prompt = prompt_with_tools(
        dir,
        r#"[{"name": "shout", "description": "Shout.", "handler": {"command": ["printf", "\u001b]0;PWNED\u0007\u001b[2Jloud"]}}]"#,
    );
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        r#"[{"tool_calls": [{"id": "c1", "name": "shout", "arguments": {}}]}, {"text": "\u001b]52;c;aGk=\u0007done\u009b2J"}]"#,
    )
    .unwrap();
    (prompt, format!("scripted:{}", script.display()))
}

#[test]
fn control_characters_never_reach_a_terminal() {
    let dir = scratch("terminal");
    let (prompt, model) = terminal_attack(&dir);
    let log = dir.join("session.jsonl").display().to_string();
    // To a pipe: the answer is the model's, byte for byte; the progress on stderr is escaped.
    let out = wink(&[
        "run",
        &prompt,
        "--model",
        &model,
        "--verbose",
        "--session",
        &log,
    ]);
    assert_eq!(stdout(&out), "\u{1b}]52;c;aGk=\u{7}done\u{9b}2J\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tool shout({}) -> \\u{1b}]0;PWNED\\u{7}\\u{1b}[2Jloud")
            && err.contains("text: \\u{1b}]52;c;aGk=\\u{7}done\\u{9b}2J")
            && !err.contains('\u{1b}'),
        "{err}"
    );
    // On a terminal: nothing raw, from the run, the session log or a skill's description.
    let skills = dir.join("skills/shouty");
    std::fs::create_dir_all(&skills).unwrap();
    std::fs::write(
        skills.join("SKILL.md"),
        "---\nname: shouty\ndescription: \"Loud \\e]0;PWNED\\a\\e[2J skill.\"\n---\nBody.\n",
    )
    .unwrap();
    let skills_root = dir.join("skills").display().to_string();
    for args in [
        vec!["run", &prompt, "--model", &model, "--verbose"],
        vec!["session", "show", &log],
        vec!["skills", "list", &skills_root],
    ] {
        let Some(shown) = on_terminal(&args) else {
            break;
        };
        assert!(
            !shown.contains(['\u{1b}', '\u{7}', '\u{9b}']),
            "{args:?}: {shown:?}"
        );
        assert!(shown.contains("\\u{"), "{args:?}: {shown}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_command_tool_ends_at_the_runs_deadline() {
    let dir = scratch("deadline");
    let prompt = prompt_with_tools(
        &dir,
        r#"[{"name": "wait", "description": "Wait.", "handler": {"command": ["sleep", "86400"], "timeout_s": 86400}}]"#,
    );
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        r#"[{"tool_calls": [{"id": "c1", "name": "wait", "arguments": {}}]}, {"text": "never"}]"#,
    )
    .unwrap();
    let model = format!("scripted:{}", script.display());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(["run", &prompt, "--model", &model, "--timeout", "1"])
        .env_remove("WINK_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Before the fix the run waited for the tool's own day-long timeout: give up after a minute.
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("wink run --timeout 1 still runs after 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .ends_with("error: budget exceeded: the deadline passed (raise it with --timeout)\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wink_call_refuses_arguments_a_tool_would_get_changed() {
    let dir = scratch("call-args");
    let prompt = prompt_with_tools(
        &dir,
        r#"[{"name": "echo", "description": "Echo.", "parameters": {"type": "object", "properties": {"a": {}}}, "handler": {"command": ["cat"]}}]"#,
    );
    assert_eq!(
        usage_error(&["call", &prompt, "echo", r#"{"a": 1, "a": 2}"#]),
        "error: ARGS_JSON: duplicate key 'a'\n"
    );
    assert_eq!(
        usage_error(&["call", &prompt, "echo", r#"{"a": 99999999999999999999999}"#]),
        "error: ARGS_JSON: the integer 99999999999999999999999 does not fit in 64 bits\n"
    );
    let out = stdout(&wink(&[
        "call",
        &prompt,
        "echo",
        r#"{"a": 18446744073709551615}"#,
    ]));
    assert!(
        out.contains(r#""message": "{\"a\":18446744073709551615}""#),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
