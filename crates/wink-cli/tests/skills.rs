//! `wink skills list|validate`: exact outputs and exit codes, and agreement with the reference
//! validator (`skills-ref validate`, PyPI `skills-ref` 0.1.1) on every vendored skill, valid and
//! invalid (`data/skills/`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{stdout, wink};
use serde_json::Value;

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

/// Whether the reference validator is importable. Outside CI a missing one skips the test
/// with a note; in CI (env `CI` set) it is a failure.
fn skills_ref_installed() -> bool {
    let available = Command::new("python3")
        .args(["-c", "import skills_ref"])
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but the reference validator is missing: python3 -m pip install 'skills-ref==0.1.1'"
        );
        eprintln!(
            "note: skipping: the reference validator skills-ref is not installed (python3 -m pip install 'skills-ref==0.1.1')"
        );
    }
    available
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
