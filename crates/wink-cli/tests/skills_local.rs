//! Example 07 (`examples/07_skills`) on the embedded Qwen2.5-Coder-1.5B model, as its README
//! shows: the model reads the skill's bundled label list, labels the ticket and answers, in three
//! model calls. Greedy decoding makes the run deterministic for one build of llama.cpp.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{stdout, wink};
use serde_json::{Value, json};

/// The 1.5B model file (`WINK_TEST_MODEL_1_5B`, else the cache `scripts/setup.sh` fills); `None`
/// with `WINK_SKIP_REAL_MODEL=1`.
fn model_file() -> Option<PathBuf> {
    if std::env::var("WINK_SKIP_REAL_MODEL").is_ok_and(|value| value == "1") {
        eprintln!("skipping: WINK_SKIP_REAL_MODEL=1");
        return None;
    }
    let path = std::env::var_os("WINK_TEST_MODEL_1_5B")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default()
                .join(".cache/wink/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
        });
    assert!(
        path.is_file(),
        "this test needs {} (scripts/fetch-model.sh 1.5b), or WINK_SKIP_REAL_MODEL=1 to skip it",
        path.display()
    );
    Some(path)
}

fn example(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/07_skills")
        .join(file)
        .display()
        .to_string()
}

#[test]
fn the_embedded_model_reads_the_skill_labels_the_ticket_and_answers() {
    let Some(model) = model_file() else { return };
    let dir = std::env::temp_dir().join(format!("wink-skills-local-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join("transcript.json");
    let out = wink(&[
        "run",
        &example("prompt.json"),
        "--model",
        &format!("local:{}", model.display()),
        "--transcript",
        transcript.to_str().unwrap(),
        "--max-model-calls",
        "8",
    ]);
    assert_eq!(stdout(&out), "Ticket T-7 labelled billing.\n");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    assert_eq!(t["status"]["status"], "finished");
    assert_eq!(t["model_call_count"], 3);
    let calls = t["model_calls"].as_array().unwrap();
    let last = calls.last().unwrap()["messages"].as_array().unwrap();
    let made: Vec<(&str, Value)> = last
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| (c["name"].as_str().unwrap(), c["arguments"].clone()))
        .collect();
    assert_eq!(
        made,
        [
            (
                "read_skill_file",
                json!({"skill": "ticket-triage", "path": "references/labels.md"})
            ),
            (
                "label_ticket",
                json!({"ticket_id": "T-7", "label": "billing"})
            ),
        ]
    );
    // The answer tool is the local adapter's own: the loop offers the prompt's tools only.
    assert_eq!(
        calls[0]["tools"],
        json!(["read_skill_file", "label_ticket", "close_ticket"])
    );
    let _ = std::fs::remove_dir_all(&dir);
}
