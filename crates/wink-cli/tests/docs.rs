//! `wink docs-to-prompt`: a folder of plain-text pages becomes a prompt file that loads and
//! renders; summaries by a model (a scripted one here); bad folders and output paths are usage
//! errors (exit 2).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use common::{stdout, usage_error, wink};
use serde_json::Value;

fn man_pages() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../wink-docs/tests/fixtures/man")
        .display()
        .to_string()
}

#[test]
fn a_folder_of_plain_text_pages_becomes_a_prompt_file_that_renders() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("man.json");
    let out = wink(&[
        "docs-to-prompt",
        &man_pages(),
        "--output",
        file.to_str().unwrap(),
    ]);
    stdout(&out);
    let message = String::from_utf8(out.stderr).unwrap();
    assert!(
        message.starts_with(&format!(
            "wink docs-to-prompt: wrote {}: 4 documents, 13 sections; always-on prompt ",
            file.display()
        )) && message.ends_with(
            " tokens (o200k, text and tools); 1 files skipped (not Markdown, HTML or text)\n"
        ),
        "{message}"
    );
    let rendered = stdout(&wink(&["render", file.to_str().unwrap()]));
    assert!(
        rendered.ends_with(
            "- Network tools (net): Contents: pingle - send a greeting to a host and wait for the answer. [1 section]\n"
        ),
        "{rendered}"
    );
    let read: Value = serde_json::from_str(&stdout(&wink(&[
        "call",
        file.to_str().unwrap(),
        "read_section",
        r#"{"section_key": "net.pingle.description"}"#,
    ])))
    .unwrap();
    assert!(
        read["value"]["content"]
            .as_str()
            .unwrap()
            .contains("port 4242 of HOST"),
        "{read}"
    );
}

#[test]
fn summaries_can_come_from_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns: Vec<Value> = (1..=13)
        .map(|i| serde_json::json!({"text": format!("Summary {i}.")}))
        .collect();
    std::fs::write(&script, Value::Array(turns).to_string()).unwrap();
    let file = dir.path().join("man.json");
    stdout(&wink(&[
        "docs-to-prompt",
        &man_pages(),
        "--output",
        file.to_str().unwrap(),
        "--model",
        &format!("scripted:{}", script.display()),
        "--task",
        "Answer about the tools.",
    ]));
    let prompt: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let sections = prompt["sections"].as_array().unwrap();
    assert_eq!(sections[0]["template"], "Answer about the tools.");
    // Leaves first: frob's four parts (1-4), frob (5), tidy's two (6-7), tidy (8), files (9).
    assert_eq!(sections[1]["key"], "files");
    assert_eq!(sections[1]["summary"], "Summary 9.");
    assert_eq!(sections[1]["children"][0]["summary"], "Summary 5.");
    assert_eq!(
        sections[1]["children"][0]["children"][0]["summary"],
        "Summary 1."
    );
    assert_eq!(sections[2]["summary"], "Summary 13.");
}

#[test]
fn bad_folders_and_output_paths_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.json");
    let missing = dir.path().join("nope");
    assert!(
        usage_error(&[
            "docs-to-prompt",
            missing.to_str().unwrap(),
            "--output",
            out.to_str().unwrap()
        ])
        .contains("nope: not a folder")
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert!(
        usage_error(&[
            "docs-to-prompt",
            empty.to_str().unwrap(),
            "--output",
            out.to_str().unwrap()
        ])
        .contains("holds no Markdown, HTML or plain-text document")
    );
    let nowhere = dir.path().join("no/such/folder/p.json");
    assert!(
        usage_error(&[
            "docs-to-prompt",
            &man_pages(),
            "--output",
            nowhere.to_str().unwrap()
        ])
        .contains("does not exist")
    );
    assert!(!out.exists());
}
