//! `wink skills list|validate`: exact outputs and exit codes, and agreement with the reference
//! validator (`skills-ref validate`, PyPI `skills-ref` 0.1.1) on every vendored skill, valid and
//! invalid (`data/skills/`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{embedded_model, stdout, wink};
use serde_json::{Value, json};

fn data(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/skills")
        .join(sub)
}

fn skill_folders() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for group in ["valid", "edge", "invalid"] {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(data(group))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        all.extend(dirs);
    }
    all
}

fn skills_ref_installed() -> bool {
    common::python_module("skills_ref", "skills-ref==0.1.1")
}

/// The reference's verdict: exit code and its messages (the `  - ` lines of stderr; a YAML
/// error's message is cut to its first line, `Invalid YAML in frontmatter: …`).
fn reference(dir: &Path) -> (i32, Vec<String>) {
    let out = Command::new("python3")
        .args(["-m", "skills_ref.cli", "validate"])
        .arg(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let messages = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("  - "))
        .map(yaml_prefix)
        .collect();
    (out.status.code().unwrap(), messages)
}

fn yaml_prefix(message: &str) -> String {
    if message.starts_with("Invalid YAML in frontmatter:") {
        "Invalid YAML in frontmatter:".to_owned()
    } else {
        message.to_owned()
    }
}

fn ours(dir: &Path) -> (i32, Vec<String>, Value) {
    let out = wink(&[
        "skills",
        "validate",
        "--format",
        "json",
        dir.to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let messages = report[0]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| yaml_prefix(e["message"].as_str().unwrap()))
        .collect();
    (out.status.code().unwrap(), messages, report)
}

#[test]
fn validate_agrees_with_the_reference_validator_on_every_vendored_skill() {
    if !skills_ref_installed() {
        return;
    }
    let folders = skill_folders();
    assert!(folders.len() >= 36, "{} folders", folders.len());
    let mut invalid = 0;
    for dir in &folders {
        let (ref_code, ref_messages) = reference(dir);
        let (code, messages, report) = ours(dir);
        assert_eq!(
            (code, &messages),
            (ref_code, &ref_messages),
            "{}: wink {report:#}",
            dir.display()
        );
        invalid += usize::from(code == 1);
    }
    assert_eq!(invalid, 21);
}

#[test]
fn every_vendored_skill_from_anthropics_is_valid_and_keeps_its_license() {
    let dir = data("valid");
    let out = wink(&["skills", "validate", dir.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 10, "{text}");
    for line in text.lines() {
        assert!(line.starts_with("valid: "), "{line}");
        let folder = line
            .trim_start_matches("valid: ")
            .split(" (")
            .next()
            .unwrap();
        assert!(Path::new(folder).join("LICENSE.txt").is_file(), "{folder}");
    }
}

#[test]
fn invalid_skills_are_reported_by_file_line_and_field_with_exit_1() {
    let dir = data("invalid/uppercase-name");
    let out = wink(&["skills", "validate", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let file = dir.join("SKILL.md");
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "invalid: {dir}\n  {file}:2: name: Skill name 'Uppercase-Name' must be lowercase\n  {file}:2: name: Directory name 'uppercase-name' must match skill name 'Uppercase-Name'\n",
            dir = dir.display(),
            file = file.display()
        )
    );
    let dir = data("invalid/flow-allowed-tools");
    let out = wink(&[
        "skills",
        "validate",
        "--format",
        "json",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report[0]["errors"][0],
        serde_json::json!({
            "file": dir.join("SKILL.md").display().to_string(),
            "line": 4,
            "field": null,
            "message": "Invalid YAML in frontmatter: flow style is not allowed (line 4)"
        })
    );
}

#[test]
fn bad_usage_exits_2() {
    let out = wink(&["skills", "validate", "/no/such/skills"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: /no/such/skills: no such file or folder\n"
    );
    assert_eq!(wink(&["skills", "validate"]).status.code(), Some(2));
    assert_eq!(wink(&["skills", "list"]).status.code(), Some(2));
    let out = wink(&["skills", "list", data("invalid").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn list_reports_names_descriptions_paths_and_token_counts() {
    let dir = data("valid");
    let out = wink(&["skills", "list", "--format", "json", dir.to_str().unwrap()]);
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 10);
    let brand = &list[1];
    assert_eq!(brand["name"], "brand-guidelines");
    assert_eq!(
        brand["path"],
        dir.join("brand-guidelines").display().to_string()
    );
    assert_eq!(brand["files"], serde_json::json!(["LICENSE.txt"]));
    assert_eq!(
        (
            brand["metadata_tokens"].as_u64(),
            brand["body_tokens"].as_u64()
        ),
        (Some(49), Some(454))
    );
    let metadata: u64 = list
        .iter()
        .map(|s| s["metadata_tokens"].as_u64().unwrap())
        .sum();
    let body: u64 = list
        .iter()
        .map(|s| s["body_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!((metadata, body), (554, 19348));
    assert!(
        list.iter()
            .all(|s| s["metadata_tokens"].as_u64().unwrap() <= 100)
    );
    let text = stdout(&wink(&["skills", "list", dir.to_str().unwrap()]));
    assert!(
        text.ends_with("\n10 skills: metadata 554 tokens, bodies 19348 tokens (o200k)\n"),
        "{text}"
    );
}

fn example(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/07_skills")
        .join(file)
        .display()
        .to_string()
}

const REFUSAL: &str = "Tool 'close_ticket' is not allowed while skill 'ticket-triage' is active: its allowed-tools are label_ticket. Read another skill's section to switch skills.";

/// The scripted model reads the skill, reads its bundled label list, tries a tool the skill
/// does not allow (refused), labels the ticket and answers: the example's script.
#[test]
fn a_scripted_model_reads_a_skill_and_follows_it() {
    let (answer, t) = run_example("e2e", &format!("scripted:{}", example("script.json")), "6");
    assert_eq!(answer, "billing\n");
    let calls = t["model_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 5);
    assert_eq!(
        calls[0]["tools"],
        serde_json::json!([
            "read_skill_file",
            "label_ticket",
            "close_ticket",
            "read_section"
        ])
    );
    let system = calls[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("### 2.1. ticket-triage (skills.ticket-triage)\n\nTriage a support ticket - pick its label from the team's label list and record it with label_ticket. Use whenever a ticket needs a label.\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"skills.ticket-triage\".]"), "{system}");
    // Nothing of the body or the bundled files is in the prompt before the skill is read.
    assert!(!system.contains("labels.md") && !system.contains("# Ticket triage"));
    let messages = calls[4]["messages"].as_array().unwrap();
    let results: Vec<(&str, bool)> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["content"].as_str().unwrap(),
                m["is_error"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            (
                "Content of section 'skills.ticket-triage':\n\n### 2.1. ticket-triage (skills.ticket-triage)\n\n# Ticket triage\n\n1. Read the label list: call `read_skill_file` with skill \"ticket-triage\" and path \"references/labels.md\".\n2. Pick the one label whose rule matches the ticket.\n3. Call `label_ticket` with the ticket id and that label.\n4. Answer with the label alone.\n\nBundled files of skill \"ticket-triage\" (read one with `read_skill_file`):\n- references/labels.md",
                false
            ),
            (
                "# Labels\n\n- `billing`: invoices, charges, payments or refunds.\n- `outage`: a service is down, unreachable or failing for everyone.\n- `how-to`: a question about using the product.\n",
                false
            ),
            (REFUSAL, true),
            ("Ticket T-7 labelled billing.", false),
        ]
    );
}

/// Example 07 on the embedded Qwen2.5-Coder-1.5B model, as its README shows: the model reads the
/// skill's bundled label list, labels the ticket and answers, in four model calls: one is the
/// `follow-up` turn policy asking again after an answer that claimed the label without calling
/// `label_ticket`. Greedy decoding makes the run deterministic for one build of llama.cpp.
#[test]
fn the_embedded_model_reads_the_skill_labels_the_ticket_and_answers() {
    let Some(model) = embedded_model(
        "WINK_TEST_MODEL_1_5B",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "1.5b",
    ) else {
        return;
    };
    let (answer, t) = run_example("local", &format!("local:{}", model.display()), "8");
    assert_eq!(answer, "Ticket T-7 labelled billing.\n");
    assert_eq!(t["status"]["status"], "finished");
    assert_eq!(t["model_call_count"], 4);
    assert_eq!(
        t["repairs"],
        json!([{
            "rule": "follow-up",
            "action": "follow_up",
            "tool": "label_ticket",
            "text": "The ticket has been labeled as 'billing' and the charge has been refunded."
        }])
    );
    assert_eq!(
        common::calls_made(&t),
        [
            (
                "read_skill_file".to_owned(),
                json!({"skill": "ticket-triage", "path": "references/labels.md"})
            ),
            (
                "label_ticket".to_owned(),
                json!({"ticket_id": "T-7", "label": "billing"})
            ),
        ]
    );
    // The answer tool is the local adapter's own: the loop offers the prompt's tools only.
    assert_eq!(
        t["model_calls"][0]["tools"],
        json!(["read_skill_file", "label_ticket", "close_ticket"])
    );
}

/// `wink run` of example 07 on `model` (at most `max_calls` model calls): its stdout and its
/// transcript.
fn run_example(tag: &str, model: &str, max_calls: &str) -> (String, Value) {
    let dir = std::env::temp_dir().join(format!("wink-skills-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join("transcript.json");
    let out = wink(&[
        "run",
        &example("prompt.json"),
        "--model",
        model,
        "--transcript",
        transcript.to_str().unwrap(),
        "--max-model-calls",
        max_calls,
    ]);
    let text = std::fs::read_to_string(&transcript).unwrap_or_else(|e| {
        panic!(
            "no transcript ({e}); stdout: {}; stderr: {}",
            stdout(&out),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let t = serde_json::from_str(&text).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (stdout(&out), t)
}

fn open_script(dir: &Path, opener: &str) -> String {
    let first = if opener == "read_section" {
        serde_json::json!({"id": "c1", "name": "read_section", "arguments": {"section_key": "skills.ticket-triage"}})
    } else {
        serde_json::json!({"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["skills.ticket-triage"], "reason": "follow the skill"}})
    };
    let script = serde_json::json!([
        {"tool_calls": [first]},
        {"tool_calls": [{"id": "c2", "name": "read_skill_file", "arguments": {"skill": "ticket-triage", "path": "references/labels.md"}}]},
        {"tool_calls": [{"id": "c3", "name": "close_ticket", "arguments": {"ticket_id": "T-7"}}]},
        {"tool_calls": [{"id": "c4", "name": "label_ticket", "arguments": {"ticket_id": "T-7", "label": "billing"}}]},
        {"text": "billing"}
    ]);
    let path = dir.join(format!("script-{opener}.json"));
    std::fs::write(&path, script.to_string()).unwrap();
    path.display().to_string()
}

/// The same run in the other disclosure modes: the skill opens (read_section in `wink` mode,
/// open_sections with a restart in `open-sections`, a context file in `context-files`) and its
/// `allowed-tools` hold afterwards.
#[test]
fn skills_work_in_every_disclosure_mode() {
    let dir = std::env::temp_dir().join(format!("wink-skills-modes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    // A copy of the example with a workspace (context-files mode writes into it), pointing back
    // at the example's skills and tool script.
    let mut prompt: Value =
        serde_json::from_str(&std::fs::read_to_string(example("prompt.json")).unwrap()).unwrap();
    prompt["sections"][1]["dirs"] = serde_json::json!([example("skills")]);
    for tool in prompt["sections"][2]["tools"].as_array_mut().unwrap() {
        tool["handler"]["command"][1] = Value::String(example("label_ticket.py"));
    }
    prompt["sections"].as_array_mut().unwrap().push(
        serde_json::json!({"key": "ws", "title": "Workspace", "builtin": "workspace", "root": "ws"}),
    );
    let prompt_path = dir.join("prompt.json");
    std::fs::write(&prompt_path, prompt.to_string()).unwrap();
    for (mode, opener, restarts) in [
        ("wink", "read_section", 0),
        ("open-sections", "open_sections", 1),
        ("context-files", "open_sections", 0),
    ] {
        let script = open_script(&dir, opener);
        let out = wink(&[
            "run",
            prompt_path.to_str().unwrap(),
            "--model",
            &format!("scripted:{script}"),
            "--disclosure",
            mode,
            "--max-model-calls",
            "6",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(stdout(&out), "billing\n", "{mode}: {stderr}");
        assert!(
            stderr.contains("tool close_ticket({\"ticket_id\":\"T-7\"}) -> ERROR Tool 'close_ticket' is not allowed while skill 'ticket-triage' is active"),
            "{mode}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("{restarts} restarts")),
            "{mode}: {stderr}"
        );
    }
    assert!(
        std::fs::read_to_string(dir.join("ws/context/skills.ticket-triage.md"))
            .unwrap()
            .contains("# Ticket triage")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
