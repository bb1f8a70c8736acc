//! Example 06: a Markdown folder becomes a summarized prompt file; rendering it shows one line
//! per document (a group: its headings are summarized sections), and `read_section` returns a
//! heading's text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/06_mcp_docs/docs_to_prompt.py")
}

fn wink(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_docs_folder_becomes_a_summarized_prompt() {
    let dir = std::env::temp_dir().join(format!("wink-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(
        dir.join("docs/guide.md"),
        "# Deploy guide\n\nHow we ship the service. Read it before a release.\n\n## Rollback\n\nRun `ship --undo` within ten minutes. Then page the on-call.\n",
    )
    .unwrap();
    let prompt = dir.join("docs.json");
    let status = Command::new("python3")
        .arg(script())
        .arg(&prompt)
        .arg(dir.join("docs"))
        .status()
        .unwrap();
    assert!(status.success());

    let text = wink(&["render", prompt.to_str().unwrap()]);
    assert_eq!(
        text,
        "Summarized groups of sections (to list a group's sections, call `read_section` with its key):\n- Deploy guide (guide): How we ship the service. [1 section]\n"
    );
    let out: Value = serde_json::from_str(&wink(&[
        "call",
        prompt.to_str().unwrap(),
        "read_section",
        r#"{"section_key": "guide.rollback"}"#,
    ]))
    .unwrap();
    assert_eq!(out["success"], true);
    let content = out["value"]["content"].as_str().unwrap();
    assert!(
        content.ends_with("Run `ship --undo` within ten minutes. Then page the on-call."),
        "{content}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
