//! `"terminal": true` on a prompt-file tool: its successful call ends the run with its result.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use wink_agent::{Agent, LoopOutcome, ScriptedProvider};
use wink_core::{Prompt, block_on};
use wink_promptfile::{FileFormat, load_str};

fn prompt(terminal: &str) -> String {
    format!(
        r#"{{"ns": "desk", "key": "tickets",
  "sections": [{{"key": "task", "title": "Task", "template": "File the ticket.",
    "tools": [{{"name": "file_ticket", "description": "File a ticket.",
      "parameters": {{"type": "object", "properties": {{"title": {{"type": "string"}}}},
                      "required": ["title"]}},
      "handler": {{"command": ["sh", "-c", "cat > /dev/null; echo Filed."]}}{terminal}}}]}}]}}"#
    )
}

/// A call the schema refuses, then a good one, then an answer.
const SCRIPT: &str = r#"[
  {"tool_calls": [{"id": "c1", "name": "file_ticket", "arguments": {}}]},
  {"tool_calls": [{"id": "c2", "name": "file_ticket", "arguments": {"title": "Printer on fire"}}]},
  {"text": "I filed it."}
]"#;

fn run(file: &str) -> wink_agent::RunResult {
    let loaded = load_str(file, FileFormat::Json, Path::new("."), "tickets.json").unwrap();
    let model = ScriptedProvider::from_json(SCRIPT, "inline").unwrap();
    block_on(Agent::new(Arc::new(model)).run(&Prompt::new(loaded.template))).unwrap()
}

#[test]
fn a_successful_call_of_a_terminal_tool_ends_the_run_with_its_result() {
    let result = run(&prompt(r#", "terminal": true"#));
    assert_eq!(
        result.outcome,
        LoopOutcome::Terminated {
            name: "file_ticket".to_owned(),
            content: "Filed.".to_owned(),
            value: None,
        }
    );
    // The refused call did not end it; the third turn was never asked for.
    assert_eq!(result.spent.model_calls, 2);
    assert_eq!(result.spent.tool_calls, 2);
}

#[test]
fn tools_are_not_terminal_by_default() {
    for file in [prompt(""), prompt(r#", "terminal": false"#)] {
        let result = run(&file);
        assert_eq!(result.text(), Some("I filed it."));
        assert_eq!(result.spent.model_calls, 3);
    }
}
