//! `examples/09_first_agent` runs to its answer on the bundled script (no network).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
#[path = "../examples/09_first_agent.rs"]
mod example;

use std::sync::Arc;

use wink::prelude::*;

#[test]
fn the_first_agent_reads_the_section_calls_the_tool_and_answers() {
    let model = ScriptedProvider::from_json(example::DEFAULT_SCRIPT, "script.json").unwrap();
    let (answer, result) = example::run(Arc::new(model)).unwrap();
    assert_eq!(
        answer,
        "Order A-1042 has shipped and should arrive on 2026-11-25 with PostNord."
    );
    assert_eq!(result.spent.model_calls, 3);
    assert_eq!(result.spent.tool_calls, 2);
    let names: Vec<String> = result
        .evaluations
        .iter()
        .flat_map(|e| e.state.messages())
        .filter_map(|m| match m {
            wink::agent::Message::Tool { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    assert!(names.iter().any(|n| n == "lookup_order"), "{names:?}");
}
