//! A call of a tool by a near name (`multiply` for `math.multiply`, `lookup-order` for
//! `lookup_order`) runs the one tool it can only mean, outside `wink` mode.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::{Value, json};
use wink_agent::*;
use wink_core::*;
use wink_session::{LoopIntervention, Session};

fn tool(name: &str, answer: &'static str) -> ToolRef {
    ToolBuilder::dynamic(
        name,
        "A tool.",
        empty_params_schema(),
        move |_args, _ctx| Ok(ToolResult::message(answer)),
    )
    .build()
    .unwrap()
}

/// `math.multiply` and `vector.add`, `matrix.add` visible; `lookup_order` hidden in the
/// summarized "orders".
fn prompt(mode: DisclosureMode) -> Prompt {
    Prompt::new(Arc::new(
        PromptTemplate::builder("demo", "names")
            .disclosure(mode)
            .section(
                MarkdownSection::new("Math", "math", "Arithmetic.")
                    .tool(tool("math.multiply", "144"))
                    .tool(tool("vector.add", "[2, 4]"))
                    .tool(tool("matrix.add", "[[2]]")),
            )
            .section(
                MarkdownSection::new("Orders", "orders", "Use lookup_order.")
                    .summary("Order tools.")
                    .summarized()
                    .tool(tool("lookup_order", "order 12: shipped")),
            )
            .build()
            .unwrap(),
    ))
}

fn run(turns: Value, mode: DisclosureMode) -> (RunResult, Session, ScriptedProvider) {
    let provider = ScriptedProvider::from_json(&turns.to_string(), "test").unwrap();
    let session = Session::new();
    let result = block_on(MainLoop::new(&provider, MainLoopConfig::default()).execute(
        &prompt(mode),
        &session,
        RunHooks::default(),
    ))
    .unwrap();
    (result, session, provider)
}

fn interventions(session: &Session) -> Vec<(String, Option<String>, String)> {
    session
        .slice::<LoopIntervention>()
        .all()
        .iter()
        .map(|e| (e.kind.clone(), e.tool.clone(), e.detail.clone()))
        .collect()
}

/// The calls and results of the last request, as `(name, content)`.
fn exchange(provider: &ScriptedProvider) -> Vec<(String, String)> {
    let requests = provider.requests();
    requests
        .last()
        .unwrap()
        .messages
        .iter()
        .flat_map(|m| match m {
            Message::Assistant { tool_calls, .. } => tool_calls
                .iter()
                .map(|c| ("call".to_owned(), c.name.clone()))
                .collect(),
            Message::Tool { name, content, .. } => vec![(name.clone(), content.clone())],
            _ => Vec::new(),
        })
        .collect()
}

#[test]
fn a_short_name_runs_its_qualified_tool_and_the_conversation_shows_the_tool_run() {
    let (result, session, provider) = run(
        json!([
            {"tool_calls": [{"id": "c1", "name": "multiply", "arguments": {}}]},
            {"text": "144"}
        ]),
        DisclosureMode::Unified,
    );
    assert_eq!(result.text(), Some("144"));
    assert_eq!(
        exchange(&provider),
        [
            ("call".to_owned(), "math.multiply".to_owned()),
            ("math.multiply".to_owned(), "144".to_owned())
        ]
    );
    assert_eq!(
        interventions(&session),
        [(
            "resolved_tool_name".to_owned(),
            Some("multiply".to_owned()),
            "ran `math.multiply` for the call of `multiply`".to_owned()
        )]
    );
}

#[test]
fn a_near_name_of_a_hidden_tool_opens_its_section() {
    let (result, session, provider) = run(
        json!([
            {"tool_calls": [{"id": "c1", "name": "Lookup-Order", "arguments": {}}]},
            {"text": "shipped"}
        ]),
        DisclosureMode::Unified,
    );
    assert_eq!(result.text(), Some("shipped"));
    let kinds: Vec<String> = interventions(&session).into_iter().map(|i| i.0).collect();
    assert_eq!(kinds, ["resolved_tool_name", "auto_open"]);
    assert_eq!(
        exchange(&provider).last().unwrap(),
        &("lookup_order".to_owned(), "order 12: shipped".to_owned())
    );
}

#[test]
fn an_ambiguous_name_is_an_unknown_tool() {
    let (_, session, provider) = run(
        json!([
            {"tool_calls": [{"id": "c1", "name": "add", "arguments": {}}]},
            {"text": "no"}
        ]),
        DisclosureMode::Unified,
    );
    let kinds: Vec<String> = interventions(&session).into_iter().map(|i| i.0).collect();
    assert_eq!(kinds, ["unknown_tool"]);
    assert_eq!(
        exchange(&provider).last().unwrap(),
        &(
            "add".to_owned(),
            "Unknown tool 'add'. Available tools: math.multiply, vector.add, matrix.add, read_section."
                .to_owned()
        )
    );
}

#[test]
fn wink_mode_keeps_near_names_unknown() {
    let (result, session, _) = run(
        json!([
            {"tool_calls": [{"id": "c1", "name": "multiply", "arguments": {}}]},
            {"text": "never"}
        ]),
        DisclosureMode::Wink,
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Failed {
            message: "Unknown tool 'multiply' requested by provider.".into(),
            phase: EvaluationPhase::Tool,
        }
    );
    assert!(interventions(&session).is_empty());
}
