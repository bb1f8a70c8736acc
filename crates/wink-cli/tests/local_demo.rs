//! The demo of README command 1 (`examples/01_local_demo/prompt.json`) run end to end with a scripted
//! model: it opens the summarized `orders` section with `read_section`, which injects `lookup_order`; it
//! calls that tool (the example's Python handler answers) and then answers. The real-model version of this
//! run is `crates/wink-local/tests/agent_loop.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

const ANSWER: &str = "Order A-1042 has shipped and should arrive on 2026-11-25.";

fn demo_prompt() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/01_local_demo/prompt.json")
        .canonicalize()
        .unwrap()
}

#[test]
fn the_demo_opens_orders_calls_the_injected_tool_and_answers() {
    let dir = std::env::temp_dir().join(format!("wink-local-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        json!([
            {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "orders"}}]},
            {"tool_calls": [{"id": "c2", "name": "lookup_order", "arguments": {"order_id": "A-1042"}}]},
            {"text": ANSWER}
        ])
        .to_string(),
    )
    .unwrap();
    let transcript = dir.join("transcript.json");
    // Run from an unrelated directory: the tool handler resolves against the prompt file's folder.
    let out = Command::new(env!("CARGO_BIN_EXE_wink"))
        .current_dir(&dir)
        .args(["run"])
        .arg(demo_prompt())
        .arg("--model")
        .arg(format!("scripted:{}", script.display()))
        .arg("--transcript")
        .arg(&transcript)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{ANSWER}\n"));
    assert!(
        stderr.contains("injected tools from 'orders': lookup_order"),
        "{stderr}"
    );

    let t: Value = serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    assert_eq!(t["status"]["status"], "finished");
    assert_eq!(t["text"], ANSWER);
    assert_eq!(t["model_call_count"], 3);
    assert_eq!(t["tool_call_count"], 2);
    assert_eq!(t["restarts"], 0);
    let offered: Vec<&Value> = t["model_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| &call["tools"])
        .collect();
    assert_eq!(
        offered,
        [
            &json!(["read_section"]),
            &json!(["read_section", "lookup_order"]),
            &json!(["read_section", "lookup_order"])
        ]
    );

    // The last call saw the whole exchange: the tool sequence and what each tool returned.
    let messages = t["model_calls"][2]["messages"].as_array().unwrap();
    let system = messages[0]["content"].as_str().unwrap();
    assert!(
        system.contains("[This section is summarized. To view full content, call `read_section` with key \"orders\".]"),
        "{system}"
    );
    let exchange: Vec<(String, String)> = messages[1..]
        .iter()
        .map(|m| match m["role"].as_str().unwrap() {
            "assistant" => (
                "call".to_owned(),
                format!(
                    "{} {}",
                    m["tool_calls"][0]["name"].as_str().unwrap(),
                    m["tool_calls"][0]["arguments"]
                ),
            ),
            "tool" => (
                format!("result of {}", m["name"].as_str().unwrap()),
                m["content"].as_str().unwrap().to_owned(),
            ),
            other => panic!("unexpected message role {other}"),
        })
        .collect();
    let expected = [
        ("call", r#"read_section {"section_key":"orders"}"#),
        (
            "result of read_section",
            "Content of section 'orders':\n\n## 2. Order Tools (orders)\n\nCall `lookup_order` with the order id \
             exactly as the customer wrote it (for example A-1042). It returns the order's status and its \
             estimated delivery date (ISO 8601).",
        ),
        ("call", r#"lookup_order {"order_id":"A-1042"}"#),
        (
            "result of lookup_order",
            "Order A-1042:\n\n{\"status\": \"shipped\", \"estimated_delivery\": \"2026-11-25\", \"carrier\": \"PostNord\"}",
        ),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
    assert_eq!(exchange, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}
