//! `wink mcp serve` offers a prompt file's skills through the MCP Skills extension
//! (`io.modelcontextprotocol/skills`: `skills/list`, `skills/get`, `skill://` resources), seen by
//! the official MCP Python SDK (`pip install mcp`, 2.3.0) in both protocol eras.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn client(mode: &str, prompt: &Path, extra: &[&str]) -> Value {
    let output = Command::new("python3")
        .arg(repo("crates/wink-mcp/tests/python/skills_client_check.py"))
        .args(["--mode", mode])
        .args(extra)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_wink"))
        .args(["mcp", "serve"])
        .arg(prompt)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_python_sdk_lists_gets_and_reads_skills_and_the_policy_holds_over_mcp() {
    if !common::python_module("mcp", "mcp==2.3.0") {
        return;
    }
    let description = "Triage a support ticket - pick its label from the team's label list and record it with label_ticket. Use whenever a ticket needs a label.";
    for (mode, modern) in [("legacy", false), ("auto", true)] {
        let seen = client(
            mode,
            &repo("examples/07_skills/prompt.json"),
            &[
                "--skill-uri",
                "skill://ticket-triage/SKILL.md",
                "--section",
                "skills.ticket-triage",
                "--refused-tool",
                "close_ticket",
                "--tool-args",
                r#"{"ticket_id": "T-7"}"#,
            ],
        );
        assert_eq!(
            seen,
            json!({
                "modern": modern,
                "extension": {},
                "skill_resources": [{"uri": "skill://ticket-triage/SKILL.md", "name": "ticket-triage", "mimeType": "text/markdown"}],
                "listed_uris": ["skill://ticket-triage/SKILL.md"],
                "list_cache_hints": if modern { json!(["cacheScope", "ttlMs"]) } else { json!([]) },
                "verified_files": 2,
                "get": {
                    "uri": "skill://ticket-triage/SKILL.md",
                    "frontmatter": {"name": "ticket-triage", "description": description, "license": "Apache-2.0",
                                    "allowed-tools": "label_ticket", "metadata": {"author": "wink"}},
                    "files": ["skill://ticket-triage/SKILL.md", "skill://ticket-triage/references/labels.md"]
                },
                "skill_md_head": ["---", "name: ticket-triage", format!("description: {description}")],
                "unknown_get": -32602,
                "escape": "refused",
                "read_section_head": "Content of section 'skills.ticket-triage':",
                "refused": {"is_error": true, "text": "Tool 'close_ticket' is not allowed while skill 'ticket-triage' is active: its allowed-tools are label_ticket. Read another skill's section to switch skills."}
            }),
            "{mode}"
        );
    }
}

/// Every file of the ten vendored skills (text and binary: a PDF, a .tar.gz) is served with the
/// digest and size its manifest announces.
#[test]
fn every_vendored_skill_file_matches_its_manifest() {
    if !common::python_module("mcp", "mcp==2.3.0") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("wink-skills-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prompt = dir.join("prompt.json");
    let skills = repo("data/skills/valid").canonicalize().unwrap();
    std::fs::write(
        &prompt,
        json!({"ns": "t", "key": "skills", "sections": [
            {"key": "skills", "title": "Skills", "builtin": "skills", "dirs": [skills]}
        ]})
        .to_string(),
    )
    .unwrap();
    let seen = client(
        "legacy",
        &prompt,
        &["--skill-uri", "skill://theme-factory/SKILL.md"],
    );
    assert_eq!(seen["listed_uris"].as_array().unwrap().len(), 10);
    // 10 SKILL.md files and 63 bundled files.
    assert_eq!(seen["verified_files"], 73);
    assert_eq!(seen["get"]["files"].as_array().unwrap().len(), 13);
    let _ = std::fs::remove_dir_all(&dir);
}
