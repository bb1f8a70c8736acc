//! Disclosure telemetry through the agent loop: the `wink.tools.injected`,
//! `wink.disclosure.dynamic` and `wink.disclosure.restarts` counters (exact counts: the tests
//! of this file take turns, the counters being process-wide), `ToolInvoked` disclosure details
//! for `read_section` and `open_sections`, and the `ToolsInjected` / `VisibilityExpanded` events.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Value, json};
use wink_agent::*;
use wink_core::*;
use wink_session::{
    DisclosureTelemetry, ExpansionPath, SectionVisibility, Session, ToolInvoked, ToolsInjected,
    VisibilityExpanded,
};

/// Serializes the tests of this binary so the counters move only for the test reading them.
static COUNTERS: Mutex<()> = Mutex::new(());

fn counters() -> MutexGuard<'static, ()> {
    COUNTERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn lookup() -> ToolRef {
    ToolBuilder::dynamic(
        "lookup",
        "Look something up.",
        empty_params_schema(),
        |_args, _ctx| Ok(ToolResult::message("found")),
    )
    .build()
    .unwrap()
}

fn template(mode: DisclosureMode) -> Arc<PromptTemplate> {
    Arc::new(
        PromptTemplate::builder("demo", "telemetry")
            .disclosure(mode)
            .section(MarkdownSection::new("Task", "task", "Do it."))
            .section(
                MarkdownSection::new("Reference", "reference", "Full reference.")
                    .summary("Reference available.")
                    .summarized(),
            )
            .section(
                MarkdownSection::new("Search", "search", "Use lookup.")
                    .summary("Search tools available.")
                    .summarized()
                    .tool(lookup()),
            )
            .build()
            .unwrap(),
    )
}

fn script(turns: Value) -> ScriptedProvider {
    ScriptedProvider::from_json(&turns.to_string(), "test").unwrap()
}

fn run(
    provider: &ScriptedProvider,
    mode: DisclosureMode,
    config: MainLoopConfig,
) -> (RunResult, Session) {
    let session = Session::new();
    let result = block_on(MainLoop::new(provider, config).execute(
        &Prompt::new(template(mode)),
        &session,
        RunHooks::default(),
    ))
    .unwrap();
    (result, session)
}

/// Counter changes since `before`: (tools injected, dynamic expansions, restarts).
fn delta(before: MetricsSnapshot) -> (u64, u64, u64) {
    let after = metrics();
    (
        after.tools_injected - before.tools_injected,
        after.disclosure_dynamic - before.disclosure_dynamic,
        after.disclosure_restarts - before.disclosure_restarts,
    )
}

fn initial_visibility() -> BTreeMap<String, SectionVisibility> {
    BTreeMap::from([
        ("task".to_owned(), SectionVisibility::Full),
        ("reference".to_owned(), SectionVisibility::Summary),
        ("search".to_owned(), SectionVisibility::Summary),
    ])
}

#[test]
fn an_open_sections_restart_counts_one_restart_and_records_the_request() {
    let _turn = counters();
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["search"], "reason": "need tools"}}]},
        {"text": "done"}
    ]));
    let before = metrics();
    let (result, session) = run(
        &provider,
        DisclosureMode::OpenSections,
        MainLoopConfig::default(),
    );
    assert_eq!(result.restarts, 1);
    assert_eq!(delta(before), (0, 0, 1));

    let invoked = session.slice::<ToolInvoked>().all();
    assert_eq!(invoked.len(), 1);
    assert_eq!(invoked[0].name, "open_sections");
    assert_eq!(
        invoked[0].disclosure,
        Some(DisclosureTelemetry {
            requested_sections: vec!["search".into()],
            reason: Some("need tools".into()),
            current_visibility_state: initial_visibility(),
        })
    );
    let expanded = session.slice::<VisibilityExpanded>().all();
    assert_eq!(expanded.len(), 1);
    assert_eq!(expanded[0].section_keys, ["search"]);
    assert_eq!(expanded[0].reason, "need tools");
    assert_eq!(expanded[0].path, ExpansionPath::Restart);
    assert_eq!(expanded[0].session_id, Some(session.id()));
    assert!(session.slice::<ToolsInjected>().all().is_empty());
}

#[test]
fn an_expansion_refused_by_max_expansions_is_not_counted_as_a_restart() {
    let _turn = counters();
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["search"], "reason": "r"}}]}
    ]));
    let before = metrics();
    let (result, session) = run(
        &provider,
        DisclosureMode::OpenSections,
        MainLoopConfig {
            max_expansions: 0,
            ..MainLoopConfig::default()
        },
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Failed {
            message: "Exceeded the maximum of 0 visibility expansions.".into(),
            phase: EvaluationPhase::Tool
        }
    );
    assert_eq!(result.restarts, 0);
    assert_eq!(delta(before), (0, 0, 0));
    assert!(session.slice::<VisibilityExpanded>().all().is_empty());
}

#[test]
fn a_dynamic_injection_counts_its_tools_and_one_dynamic_expansion() {
    let _turn = counters();
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "search"}}]},
        {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {}}]},
        {"text": "done"}
    ]));
    let before = metrics();
    let (result, session) = run(
        &provider,
        DisclosureMode::Unified,
        MainLoopConfig::default(),
    );
    assert_eq!(result.restarts, 0);
    assert_eq!(delta(before), (1, 1, 0));

    let invoked = session.slice::<ToolInvoked>().all();
    assert_eq!(
        invoked.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["read_section", "lookup"]
    );
    assert_eq!(
        invoked[0].disclosure,
        Some(DisclosureTelemetry {
            requested_sections: vec!["search".into()],
            reason: None,
            current_visibility_state: initial_visibility(),
        })
    );
    assert_eq!(invoked[1].disclosure, None);
    let injected = session.slice::<ToolsInjected>().all();
    assert_eq!(injected.len(), 1);
    assert_eq!(injected[0].tool_names, ["lookup"]);
    assert_eq!(injected[0].section_key, "search");
    assert_eq!(injected[0].session_id, Some(session.id()));
    let expanded = session.slice::<VisibilityExpanded>().all();
    assert_eq!(expanded.len(), 1);
    assert_eq!(expanded[0].section_keys, ["search"]);
    assert_eq!(expanded[0].path, ExpansionPath::Dynamic);
}

#[test]
fn without_dynamic_tools_a_tool_bearing_read_counts_a_restart() {
    let _turn = counters();
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "search"}}]},
        {"text": "done"}
    ]))
    .with_dynamic_tools(false);
    let before = metrics();
    let (result, session) = run(
        &provider,
        DisclosureMode::Unified,
        MainLoopConfig::default(),
    );
    assert_eq!(result.restarts, 1);
    assert_eq!(delta(before), (0, 0, 1));
    let expanded = session.slice::<VisibilityExpanded>().all();
    assert_eq!(expanded.len(), 1);
    assert_eq!(expanded[0].section_keys, ["search"]);
    assert_eq!(expanded[0].reason, "Adapter does not support dynamic tools");
    assert_eq!(expanded[0].path, ExpansionPath::Restart);
}

#[test]
fn a_read_of_an_expanded_section_records_the_visibility_at_invocation() {
    let _turn = counters();
    // The second read finds `search` full (the first read injected its tools). The repetition
    // guard would answer it from the first result: off here.
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "search"}}]},
        {"tool_calls": [{"id": "c2", "name": "read_section", "arguments": {"section_key": "search"}}]},
        {"text": "done"}
    ]));
    let before = metrics();
    let mut config = MainLoopConfig::default();
    config.loop_config.repetition_guard = Some(false);
    let (_, session) = run(&provider, DisclosureMode::Unified, config);
    assert_eq!(delta(before), (1, 1, 0), "the second read injects nothing");
    let invoked = session.slice::<ToolInvoked>().all();
    assert_eq!(invoked.len(), 2);
    assert_eq!(invoked[1].message, "Section is already expanded.");
    let mut visibility = initial_visibility();
    visibility.insert("search".into(), SectionVisibility::Full);
    assert_eq!(
        invoked[1]
            .disclosure
            .as_ref()
            .map(|d| d.current_visibility_state.clone()),
        Some(visibility)
    );
    assert_eq!(
        invoked[1].value,
        Some(json!({"content": "## 3. Search (search)\n\nUse lookup.", "expanded_tools": []}))
    );
}
