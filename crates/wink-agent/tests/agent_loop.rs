//! The agent loop against the scripted provider: WINK's B14/B15, dynamic tool injection,
//! the restart fallback, terminal tools, budgets, resume, and the append-only conversation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wink_agent::*;
use wink_core::*;
use wink_session::{
    SectionPath, SectionVisibility, Session, SetVisibilityOverride, ToolInvoked, ToolsInjected,
};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Q {
    query: String,
}
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct A {
    answer: String,
}
impl ToolOutput for A {
    fn render(&self) -> Option<String> {
        Some(format!("answer={}", self.answer))
    }
}
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Task {
    objective: String,
}
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Out {
    verdict: String,
}

fn search_tool() -> ToolRef {
    ToolBuilder::<Q, A>::new("search", "Search docs.")
        .handler(|q: Q, _ctx: &mut ToolContext| {
            if q.query == "boom" {
                return Err(ToolError::failed("kaboom"));
            }
            Ok(ToolResult::ok(
                "Search done.",
                A {
                    answer: q.query.to_uppercase(),
                },
            ))
        })
        .build()
        .unwrap()
}

fn template(
    mode: DisclosureMode,
    search_visibility: SectionVisibility,
    output: bool,
) -> Arc<PromptTemplate> {
    let b = PromptTemplate::builder("demo", "loop")
        .disclosure(mode)
        .section(MarkdownSection::new("Task", "task", "Do: ${objective}").params::<Task>())
        .section(
            MarkdownSection::new("Reference", "reference", "Full reference.")
                .summary("Reference available.")
                .summarized(),
        )
        .section(
            MarkdownSection::new("Search", "search", "Use search.")
                .summary("Search tools available.")
                .visibility(search_visibility)
                .tool(search_tool()),
        );
    if output {
        Arc::new(b.output_object::<Out>(false).build().unwrap().erase())
    } else {
        Arc::new(b.build().unwrap())
    }
}

fn prompt(t: Arc<PromptTemplate>) -> Prompt {
    Prompt::new(t).bind(Task {
        objective: "fix bug".into(),
    })
}

fn script(turns: Value) -> ScriptedProvider {
    ScriptedProvider::from_json(&turns.to_string(), "test").unwrap()
}

fn run(
    provider: &ScriptedProvider,
    p: &Prompt,
    session: &Session,
    config: MainLoopConfig,
) -> RunResult {
    block_on(MainLoop::new(provider, config).execute(p, session, RunHooks::default())).unwrap()
}

fn tool_messages(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn b14_transcript_with_validation_and_handler_failures_then_structured_output() {
    let provider = script(json!([
        {"tool_calls": [
            {"id": "c1", "name": "search", "arguments": "{\"q\": \"x\"}"},
            {"id": "c2", "name": "search", "arguments": "{\"query\": \"boom\"}"},
            {"id": "c3", "name": "search", "arguments": "{\"query\": \"hi\"}"}]},
        {"text": "```json\n{\"verdict\": \"done\"}\n```"}
    ]));
    let session = Session::new();
    let result = run(
        &provider,
        &prompt(template(
            DisclosureMode::Wink,
            SectionVisibility::Full,
            true,
        )),
        &session,
        MainLoopConfig::default(),
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: None,
            output: Some(json!({"verdict": "done"}))
        }
    );
    let last = provider.requests().last().unwrap().messages.clone();
    assert_eq!(
        tool_messages(&last),
        [
            "Tool validation failed: Missing required field: 'query'",
            "Tool 'search' execution failed: kaboom",
            "Search done.\n\nanswer=HI"
        ]
    );
    match &last[1] {
        Message::Assistant {
            content,
            tool_calls,
        } => {
            assert_eq!(content, &None);
            assert_eq!(
                tool_calls[0],
                ToolCall {
                    id: "c1".into(),
                    name: "search".into(),
                    arguments: ToolArguments::Text("{\"q\": \"x\"}".into())
                }
            );
        }
        other => panic!("{other:?}"),
    }
    let invoked = session.slice::<ToolInvoked>().all();
    assert_eq!(invoked.len(), 3);
    assert_eq!(
        invoked.iter().map(|e| e.success).collect::<Vec<_>>(),
        [false, false, true]
    );
    assert_eq!(invoked[2].call_id.as_deref(), Some("c3"));
}

#[test]
fn b14_read_section_misuse_and_unknown_tool() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "task"}}]},
        {"tool_calls": [{"id": "c2", "name": "nope", "arguments": {}}]}
    ]));
    let result = run(
        &provider,
        &prompt(template(
            DisclosureMode::Wink,
            SectionVisibility::Full,
            false,
        )),
        &Session::new(),
        MainLoopConfig::default(),
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Failed {
            message: "Unknown tool 'nope' requested by provider.".into(),
            phase: EvaluationPhase::Tool
        }
    );
    let last = provider.requests().last().unwrap().messages.clone();
    assert_eq!(
        tool_messages(&last),
        ["Tool 'read_section' execution failed: Section 'task' is not summarized."]
    );
}

#[test]
fn b15_main_loop_restarts_on_expansion_and_accumulates_overrides() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["search"], "reason": "need tools"}}]},
        {"tool_calls": [{"id": "c2", "name": "read_section", "arguments": {"section_key": "reference"}}]},
        {"tool_calls": [{"id": "c3", "name": "search", "arguments": {"query": "auth"}}]},
        {"text": "done"}
    ]));
    let session = Session::new();
    let resources = Resources::new().with(42_u32);
    let config = MainLoopConfig {
        resources: resources.clone(),
        ..MainLoopConfig::default()
    };
    let result = run(
        &provider,
        &prompt(template(
            DisclosureMode::Wink,
            SectionVisibility::Summary,
            false,
        )),
        &session,
        config,
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("done".into()),
            output: None
        }
    );
    assert_eq!(result.restarts, 1);
    assert_eq!(result.evaluations.len(), 2);
    let requests = provider.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(
        session
            .visibility_overrides()
            .get(&SectionPath::root("search")),
        Some(SectionVisibility::Full)
    );
    // After the restart the system message holds the expanded section and its tool is offered.
    let Message::System { content } = &requests[1].messages[0] else {
        panic!()
    };
    assert!(
        content.contains("## 3. Search (search)\n\nUse search."),
        "{content}"
    );
    assert_eq!(
        requests[1]
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["search", "read_section"]
    );
    assert_eq!(
        requests[1].messages.len(),
        1,
        "restart begins a new conversation"
    );
}

#[derive(Debug)]
struct FailingProvider;
impl ProviderAdapter for FailingProvider {
    fn name(&self) -> &str {
        "failing"
    }
    fn model(&self) -> &str {
        "m"
    }
    fn complete<'a>(
        &'a self,
        _r: &'a ModelRequest,
        _s: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        Box::pin(async {
            Err(ProviderError::new(
                ProviderErrorKind::Status(500),
                "failing",
                "m",
                "adapter failure",
            )
            .with_body("{\"error\": \"boom\"}"))
        })
    }
}

#[test]
fn b15_adapter_failure_is_the_adapters_message_with_the_provider_beside_it() {
    let result = block_on(
        MainLoop::new(&FailingProvider, MainLoopConfig::default()).execute(
            &prompt(template(
                DisclosureMode::Wink,
                SectionVisibility::Full,
                false,
            )),
            &Session::new(),
            RunHooks::default(),
        ),
    )
    .unwrap();
    // WINK: `result.error == "adapter failure"`.
    assert_eq!(
        result.outcome,
        LoopOutcome::Failed {
            message: "adapter failure".into(),
            phase: EvaluationPhase::Request
        }
    );
    assert_eq!(
        result.provider_failure(),
        Some(&ProviderFailure {
            provider: "failing".into(),
            model: "m".into(),
            status: Some(500),
            raw_body: Some("{\"error\": \"boom\"}".into()),
        })
    );
    assert_eq!(
        result.provider_failure().unwrap().to_string(),
        "provider: failing, model: m, HTTP 500\nprovider body: {\"error\": \"boom\"}"
    );
    // The context survives a save of the loop state.
    let state = &result.evaluations[0].state;
    let restored: InnerLoop = serde_json::from_str(&serde_json::to_string(state).unwrap()).unwrap();
    assert_eq!(restored.provider_failure(), state.provider_failure());
}

#[test]
fn unified_read_section_injects_tools_for_the_next_model_call() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "search"}}]},
        {"tool_calls": [{"id": "c2", "name": "search", "arguments": {"query": "auth"}}]},
        {"text": "found AUTH"}
    ]));
    let session = Session::new();
    let before = metrics();
    let result = run(
        &provider,
        &prompt(template(
            DisclosureMode::Unified,
            SectionVisibility::Summary,
            false,
        )),
        &session,
        MainLoopConfig::default(),
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("found AUTH".into()),
            output: None
        }
    );
    assert_eq!(result.restarts, 0);
    let requests = provider.requests();
    let names = |i: usize| {
        requests[i]
            .tools
            .iter()
            .map(|t| t.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(0), ["read_section"]);
    assert_eq!(names(1), ["read_section", "search"]);
    assert_eq!(
        tool_messages(&requests[2].messages),
        ["Use search.", "Search done.\n\nanswer=AUTH"]
            .map(|s| s.to_owned())
            .iter()
            .enumerate()
            .map(|(i, s)| if i == 0 {
                "Content of section 'search':\n\n## 3. Search (search)\n\nUse search.".to_owned()
            } else {
                s.clone()
            })
            .collect::<Vec<_>>()
    );
    // The prefix never changes: same system message in every call.
    assert!(
        requests
            .windows(2)
            .all(|w| w[0].messages[0] == w[1].messages[0])
    );
    assert_eq!(
        session
            .visibility_overrides()
            .get(&SectionPath::root("search")),
        Some(SectionVisibility::Full)
    );
    let injected = session.slice::<ToolsInjected>().all();
    assert_eq!(injected.len(), 1);
    assert_eq!(injected[0].tool_names, ["search"]);
    assert_eq!(injected[0].section_key, "search");
    let after = metrics();
    assert!(after.tools_injected > before.tools_injected);
    assert!(after.disclosure_dynamic > before.disclosure_dynamic);
}

#[test]
fn opening_calls_run_before_the_first_model_call_after_the_user_message() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "search", "arguments": {"query": "auth"}}]},
        {"text": "found AUTH"}
    ]));
    let session = Session::new();
    let p = prompt(template(
        DisclosureMode::Unified,
        SectionVisibility::Summary,
        false,
    ));
    let preopened =
        wink_agent::preopen::apply_styled(&p, &session, "search", 1, preopen::PreopenStyle::Call)
            .unwrap();
    assert_eq!(preopened.opened.len(), 1);
    assert_eq!(preopened.opened[0].0, "search");
    let config = MainLoopConfig {
        loop_config: LoopConfig {
            user_message: Some("Search for auth.".into()),
            ..LoopConfig::default()
        },
        opening_calls: preopened.calls,
        ..MainLoopConfig::default()
    };
    let result = run(&provider, &p, &session, config);
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("found AUTH".into()),
            output: None
        }
    );
    assert_eq!(result.spent.model_calls, 2);
    let requests = provider.requests();
    // The first request: system (everything summarized), the user's message, the opening turn
    // and its result; the section's tool is offered from the first call.
    let first = &requests[0].messages;
    assert_eq!(first.len(), 4, "{first:?}");
    assert!(matches!(&first[1], Message::User { content } if content == "Search for auth."));
    assert!(matches!(
        &first[2],
        Message::Assistant { content: None, tool_calls } if tool_calls.len() == 1
            && tool_calls[0].id == "preopen_0"
            && tool_calls[0].name == "read_section"
    ));
    assert_eq!(
        tool_messages(first),
        ["Content of section 'search':\n\n## 3. Search (search)\n\nUse search."]
    );
    let system = |i: usize| match &requests[i].messages[0] {
        Message::System { content } => content.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        system(0).contains("Search tools available."),
        "{}",
        system(0)
    );
    assert!(!system(0).contains("Use search."), "{}", system(0));
    assert_eq!(system(0), system(1));
    let names: Vec<String> = requests[0].tools.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names, ["read_section", "search"]);
}

#[test]
fn without_dynamic_tools_read_section_restarts_with_the_section_expanded() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "search"}}]},
        {"tool_calls": [{"id": "c2", "name": "search", "arguments": {"query": "auth"}}]},
        {"text": "ok"}
    ]))
    .with_dynamic_tools(false);
    let session = Session::new();
    let result = run(
        &provider,
        &prompt(template(
            DisclosureMode::Unified,
            SectionVisibility::Summary,
            false,
        )),
        &session,
        MainLoopConfig::default(),
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("ok".into()),
            output: None
        }
    );
    assert_eq!(result.restarts, 1);
    let requests = provider.requests();
    let Message::System { content } = &requests[1].messages[0] else {
        panic!()
    };
    assert!(content.contains("## 3. Search (search)\n\nUse search."));
    assert_eq!(
        requests[1]
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["search", "read_section"]
    );
}

#[test]
fn content_only_read_section_never_interrupts_the_turn() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "reference"}}]},
        {"text": "ok"}
    ]))
    .with_dynamic_tools(false);
    let result = run(
        &provider,
        &prompt(template(
            DisclosureMode::Unified,
            SectionVisibility::Summary,
            false,
        )),
        &Session::new(),
        MainLoopConfig::default(),
    );
    assert_eq!(result.restarts, 0);
    assert_eq!(
        tool_messages(&provider.requests()[1].messages),
        ["Content of section 'reference':\n\n## 2. Reference (reference)\n\nFull reference."]
    );
}

#[test]
fn terminal_open_sections_skips_later_calls_of_the_turn() {
    let provider = script(json!([
        {"tool_calls": [
            {"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["search"], "reason": "tools"}},
            {"id": "c2", "name": "open_sections", "arguments": {"section_keys": ["reference"], "reason": "more"}}]},
        {"text": "ok"}
    ]));
    let session = Session::new();
    let result = run(
        &provider,
        &prompt(template(
            DisclosureMode::OpenSections,
            SectionVisibility::Summary,
            false,
        )),
        &session,
        MainLoopConfig::default(),
    );
    assert_eq!(result.restarts, 1);
    let first = &result.evaluations[0];
    assert!(matches!(
        first.outcome,
        LoopOutcome::ExpansionRequired { .. }
    ));
    assert_eq!(
        tool_messages(first.state.messages()),
        ["Not run: an earlier call in this turn ended it."]
    );
    assert_eq!(
        session.slice::<ToolInvoked>().all().len(),
        1,
        "only open_sections ran"
    );
}

#[test]
fn conservative_and_batched_policies() {
    let t = || {
        PromptTemplate::builder("d", "p")
            .disclosure(DisclosureMode::OpenSections)
            .section(
                MarkdownSection::new("A", "a", "A body")
                    .summary("A sum")
                    .summarized(),
            )
            .section(
                MarkdownSection::new("B", "b", "B body")
                    .summary("B sum")
                    .summarized(),
            )
            .build()
            .unwrap()
    };
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["a", "b"], "reason": "r"}}]},
        {"tool_calls": [{"id": "c2", "name": "open_sections", "arguments": {"section_keys": ["b"], "reason": "r"}}]},
        {"text": "ok"}
    ]));
    let config = MainLoopConfig {
        policy: ExpansionPolicy::Conservative,
        ..MainLoopConfig::default()
    };
    let result = run(&provider, &Prompt::new(t()), &Session::new(), config);
    assert_eq!(result.restarts, 2);

    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["a"], "reason": "r"}}]},
        {"tool_calls": [{"id": "c2", "name": "open_sections", "arguments": {"section_keys": ["b"], "reason": "r"}}]},
        {"text": "ok"}
    ]));
    let session = Session::new();
    let config = MainLoopConfig {
        policy: ExpansionPolicy::Batched { size: 2 },
        ..MainLoopConfig::default()
    };
    let result = run(&provider, &Prompt::new(t()), &session, config);
    assert_eq!(result.restarts, 1);
    assert_eq!(
        tool_messages(provider.requests()[1].messages.as_slice()),
        [
            "Noted: sections a will be opened together once 2 are requested. Continue with what you have, or call open_sections again with the same key to open them now."
        ]
    );
    assert_eq!(
        session.visibility_overrides().get(&SectionPath::root("b")),
        Some(SectionVisibility::Full)
    );
    assert_eq!(
        session.visibility_overrides().get(&SectionPath::root("a")),
        Some(SectionVisibility::Full)
    );
}

#[test]
fn max_expansions_ends_the_run() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["search"], "reason": "r"}}]}
    ]));
    let config = MainLoopConfig {
        max_expansions: 0,
        ..MainLoopConfig::default()
    };
    let result = run(
        &provider,
        &prompt(template(
            DisclosureMode::OpenSections,
            SectionVisibility::Summary,
            false,
        )),
        &Session::new(),
        config,
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Failed {
            message: "Exceeded the maximum of 0 visibility expansions.".into(),
            phase: EvaluationPhase::Tool
        }
    );
}

#[test]
fn budgets_end_the_run_with_a_distinguishable_outcome() {
    let looping = || {
        script(json!([
            {"tool_calls": [{"id": "c1", "name": "search", "arguments": {"query": "a"}}], "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 0}},
            {"tool_calls": [{"id": "c2", "name": "search", "arguments": {"query": "b"}}], "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 0}},
            {"text": "never"}
        ]))
    };
    let p = prompt(template(
        DisclosureMode::Unified,
        SectionVisibility::Full,
        false,
    ));
    let cases = [
        (
            Budget {
                max_model_calls: Some(1),
                ..Budget::default()
            },
            BudgetLimit::ModelCalls,
        ),
        (
            Budget {
                max_tool_calls: Some(1),
                ..Budget::default()
            },
            BudgetLimit::ToolCalls,
        ),
        (
            Budget {
                max_input_tokens: Some(150),
                ..Budget::default()
            },
            BudgetLimit::InputTokens,
        ),
        (
            Budget {
                deadline: Some(Deadline::after(Duration::ZERO)),
                ..Budget::default()
            },
            BudgetLimit::Deadline,
        ),
    ];
    for (budget, limit) in cases {
        let provider = looping();
        let result = run(
            &provider,
            &p,
            &Session::new(),
            MainLoopConfig {
                budget,
                ..MainLoopConfig::default()
            },
        );
        assert_eq!(result.outcome, LoopOutcome::BudgetExceeded { limit });
    }
    let provider = looping();
    let result = run(
        &provider,
        &p,
        &Session::new(),
        MainLoopConfig {
            budget: Budget {
                max_model_calls: Some(2),
                ..Budget::default()
            },
            ..MainLoopConfig::default()
        },
    );
    assert_eq!(result.spent.usage.input_tokens, 200);
    assert_eq!(
        result.evaluations[0].model_calls.len(),
        2,
        "partial transcript is kept"
    );
}

fn dynamic_options<'a>() -> EvaluateOptions<'a> {
    EvaluateOptions {
        config: LoopConfig {
            supports_dynamic_tools: true,
            ..LoopConfig::default()
        },
        ..EvaluateOptions::default()
    }
}

#[test]
fn a_run_saved_mid_way_resumes_to_the_same_transcript_as_an_uninterrupted_run() {
    let p = prompt(template(
        DisclosureMode::Unified,
        SectionVisibility::Summary,
        false,
    ));
    let turns = [
        json!({"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "search"}}]}),
        json!({"tool_calls": [{"id": "c2", "name": "search", "arguments": {"query": "x"}}]}),
        json!({"text": "resumed"}),
    ];

    // Uninterrupted.
    let session = Session::new();
    let rendered = p.render_with(&session).unwrap();
    let whole = block_on(evaluate(
        &rendered,
        &session,
        &script(Value::Array(turns.to_vec())),
        dynamic_options(),
    ));

    // The same run, stopped after its first model call and the tool calls of that turn.
    let session = Session::new();
    let rendered = p.render_with(&session).unwrap();
    let first = script(Value::Array(turns[..1].to_vec()));
    let mut driver = Driver::start(&rendered, &session, &first, dynamic_options());
    assert_eq!(block_on(driver.advance()), None, "model call 1");
    assert_eq!(block_on(driver.advance()), None, "tool calls of turn 1");
    assert_eq!(driver.state().model_calls(), 1);
    assert!(matches!(driver.state().step(), Step::CallModel(_)));
    let calls_before = driver.model_calls().to_vec();
    let saved = serde_json::to_string(&driver.into_state()).unwrap();
    assert_eq!(
        first.remaining(),
        0,
        "the first provider was never asked again"
    );

    // A new process: a fresh session and render, the state read back from its JSON.
    let restored: InnerLoop = serde_json::from_str(&saved).unwrap();
    assert_eq!(restored.injected().len(), 1);
    let session = Session::new();
    let rendered = p.render_with(&session).unwrap();
    let second = script(Value::Array(turns[1..].to_vec()));
    let resumed = block_on(resume(
        restored,
        &rendered,
        &session,
        &second,
        dynamic_options(),
    ));

    assert_eq!(
        resumed.outcome,
        LoopOutcome::Finished {
            text: Some("resumed".into()),
            output: None
        }
    );
    assert_eq!(resumed.outcome, whole.outcome);
    assert_eq!(resumed.state.messages(), whole.state.messages());
    // The same calls (their times aside).
    let untimed = |calls: &[ModelCallRecord]| -> Vec<ModelCallRecord> {
        calls
            .iter()
            .map(|c| ModelCallRecord {
                started_at: None,
                ended_at: None,
                ..c.clone()
            })
            .collect()
    };
    let mut calls = calls_before;
    calls.extend(resumed.model_calls.iter().cloned());
    assert_eq!(untimed(&calls), untimed(&whole.model_calls));
    assert_eq!(
        second.requests()[0]
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["read_section", "search"]
    );
    assert_eq!(
        tool_messages(resumed.state.messages()),
        [
            "Content of section 'search':\n\n## 3. Search (search)\n\nUse search.",
            "Search done.\n\nanswer=X"
        ]
    );
}

#[derive(Debug, Default)]
struct Recorder(Mutex<Vec<String>>);
impl RunObserver for Recorder {
    fn on_tools_injected(&self, section: &str, tools: &[String]) {
        self.0
            .lock()
            .unwrap()
            .push(format!("{section}:{}", tools.join(",")));
    }
}

#[test]
fn observer_sees_injections() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "search"}}]},
        {"text": "ok"}
    ]));
    let recorder = Recorder::default();
    let p = prompt(template(
        DisclosureMode::Unified,
        SectionVisibility::Summary,
        false,
    ));
    block_on(MainLoop::new(&provider, MainLoopConfig::default()).execute(
        &p,
        &Session::new(),
        RunHooks {
            observer: Some(&recorder),
            stream: None,
        },
    ))
    .unwrap();
    assert_eq!(*recorder.0.lock().unwrap(), ["search:search"]);
}

fn arb_turn() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(
            json!({"tool_calls": [{"name": "read_section", "arguments": {"section_key": "search"}}]})
        ),
        Just(
            json!({"tool_calls": [{"name": "read_section", "arguments": {"section_key": "reference"}}]})
        ),
        Just(
            json!({"tool_calls": [{"name": "read_section", "arguments": {"section_key": "nope"}}]})
        ),
        Just(json!({"tool_calls": [{"name": "search", "arguments": {"query": "q"}}]})),
        Just(json!({"tool_calls": [{"name": "search", "arguments": {"bad": 1}}]})),
        Just(
            json!({"tool_calls": [{"name": "read_section", "arguments": {"section_key": "search"}}, {"name": "search", "arguments": {"query": "z"}}]})
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn conversation_only_grows_at_the_end(turns in proptest::collection::vec(arb_turn(), 0..6), dynamic in any::<bool>()) {
        let mut script_turns = turns.clone();
        script_turns.push(json!({"text": "end"}));
        let provider = script(Value::Array(script_turns)).with_dynamic_tools(dynamic);
        let p = prompt(template(DisclosureMode::Unified, SectionVisibility::Summary, false));
        let result = run(&provider, &p, &Session::new(), MainLoopConfig { budget: Budget { max_model_calls: Some(20), ..Budget::default() }, ..MainLoopConfig::default() });
        for evaluation in &result.evaluations {
            for pair in evaluation.model_calls.windows(2) {
                prop_assert!(pair[1].messages.len() > pair[0].messages.len());
                prop_assert_eq!(&pair[1].messages[..pair[0].messages.len()], &pair[0].messages[..]);
            }
        }
    }
}

#[test]
fn main_loop_runs_as_a_mailbox_worker() {
    let provider = script(json!([{"text": "first answer"}, {"text": "second answer"}]));
    let requests: InMemoryMailbox<String> = InMemoryMailbox::new(3);
    let responses: InMemoryMailbox<WorkerResult> = InMemoryMailbox::new(3);
    requests.send("fix bug".into());
    requests.send("".into());
    requests.send("write docs".into());
    let main_loop = MainLoop::new(&provider, MainLoopConfig::default());
    let handled = block_on(main_loop.run_worker(
        &requests,
        &responses,
        |objective: &String| {
            if objective.is_empty() {
                return Err("empty objective".to_owned());
            }
            Ok((
                Prompt::new(template(
                    DisclosureMode::Unified,
                    SectionVisibility::Full,
                    false,
                ))
                .bind(Task {
                    objective: objective.clone(),
                }),
                Session::new(),
            ))
        },
        WorkerOptions::default(),
    ));
    assert_eq!(handled, 3);
    assert!(requests.is_empty(), "every request was acked");
    let results: Vec<WorkerResult> = responses
        .receive(10, Duration::from_secs(1))
        .into_iter()
        .map(|d| d.body)
        .collect();
    assert_eq!(results.len(), 3);
    assert_eq!(
        results[0].outcome,
        Some(LoopOutcome::Finished {
            text: Some("first answer".into()),
            output: None
        })
    );
    assert!(results[0].success());
    assert_eq!(results[1].error.as_deref(), Some("empty objective"));
    assert!(!results[1].success());
    assert_eq!(
        results[2].outcome,
        Some(LoopOutcome::Finished {
            text: Some("second answer".into()),
            output: None
        })
    );
    assert_eq!(
        results.iter().map(|r| r.request_id).collect::<Vec<_>>(),
        [1, 2, 3]
    );
}

fn typed_prompt() -> Prompt<Out> {
    let template: PromptTemplate<Out> = PromptTemplate::builder("demo", "typed")
        .section(MarkdownSection::new("Task", "task", "Do: ${objective}").params::<Task>())
        .section(MarkdownSection::new("Search", "search", "Use search.").tool(search_tool()))
        .output_object::<Out>(false)
        .build()
        .unwrap();
    Prompt::new(template).bind(Task {
        objective: "judge".into(),
    })
}

#[test]
fn a_typed_prompt_run_decodes_its_output_into_the_type() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "search", "arguments": {"query": "x"}}]},
        {"text": "Verdict:\n```json\n{\"verdict\": \"ship it\"}\n```"}
    ]));
    let prompt = typed_prompt();
    let result: RunResult<Out> =
        block_on(MainLoop::new(&provider, MainLoopConfig::default()).execute(
            &prompt,
            &Session::new(),
            RunHooks::default(),
        ))
        .unwrap();
    let out: Out = result.output().unwrap();
    assert_eq!(out.verdict, "ship it");
    // As in WINK, a parsed output replaces the text.
    assert_eq!(result.text(), None);
    assert_eq!(result.evaluations.len(), 1);
    // Erasing keeps everything but the type.
    let erased: RunResult = result.clone().erase();
    assert_eq!(erased.outcome, result.outcome);
}

#[test]
fn typed_output_errors_say_why_there_is_no_value() {
    // The budget stops the run before an answer: no output, and the error says how it ended.
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "search", "arguments": {"query": "x"}}]},
        {"text": "{\"verdict\": \"late\"}"}
    ]));
    let config = MainLoopConfig {
        budget: Budget {
            max_model_calls: Some(1),
            ..Budget::default()
        },
        ..MainLoopConfig::default()
    };
    let result = block_on(MainLoop::new(&provider, config).execute(
        &typed_prompt(),
        &Session::new(),
        RunHooks::default(),
    ))
    .unwrap();
    let error = result.output().unwrap_err();
    assert!(
        matches!(error, RunOutputError::Unfinished { .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "The run did not finish: budget exceeded (max model calls)"
    );

    // A prompt without an output declaration finishes with text; asking for output says so.
    let provider = script(json!([{"text": "plain answer"}]));
    let plain = prompt(template(
        DisclosureMode::Wink,
        SectionVisibility::Full,
        false,
    ));
    let result = run(
        &provider,
        &plain,
        &Session::new(),
        MainLoopConfig::default(),
    );
    assert_eq!(result.text(), Some("plain answer"));
    assert_eq!(
        result.output().unwrap_err().to_string(),
        "Prompt does not declare structured output."
    );

    // A structured answer that fails the schema fails the run with WINK's message.
    let provider = script(json!([{"text": "{}"}]));
    let result = block_on(MainLoop::new(&provider, MainLoopConfig::default()).execute(
        &typed_prompt(),
        &Session::new(),
        RunHooks::default(),
    ))
    .unwrap();
    let error = result.output().unwrap_err();
    assert_eq!(
        error.to_string(),
        "The run did not finish: failed (response phase): Missing required field: 'verdict'"
    );
}

/// Answers from a script while it has turns, then never answers.
#[derive(Debug)]
struct StallingProvider(ScriptedProvider);
impl ProviderAdapter for StallingProvider {
    fn name(&self) -> &str {
        "stalling"
    }
    fn model(&self) -> &str {
        "m"
    }
    fn supports_dynamic_tools(&self) -> bool {
        true
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        if self.0.remaining() == 0 {
            return Box::pin(std::future::pending());
        }
        self.0.complete(request, stream)
    }
}

#[test]
fn a_model_call_that_never_answers_ends_at_the_deadline_with_the_partial_transcript() {
    let p = prompt(template(
        DisclosureMode::Unified,
        SectionVisibility::Full,
        false,
    ));
    let config = |millis| MainLoopConfig {
        budget: Budget {
            deadline: Some(Deadline::after(Duration::from_millis(millis))),
            ..Budget::default()
        },
        ..MainLoopConfig::default()
    };

    // The very first call hangs.
    let provider = StallingProvider(script(json!([])));
    let result = block_on(MainLoop::new(&provider, config(50)).execute(
        &p,
        &Session::new(),
        RunHooks::default(),
    ))
    .unwrap();
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExceeded {
            limit: BudgetLimit::Deadline
        }
    );
    let evaluation = &result.evaluations[0];
    assert_eq!(evaluation.model_calls.len(), 1, "the call that was sent");
    assert_eq!(
        evaluation.state.messages().len(),
        1,
        "only the system prompt"
    );
    assert_eq!(result.spent.model_calls, 0, "no call completed");

    // The second call hangs: the first turn and its tool result are kept.
    let provider = StallingProvider(script(json!([
        {"tool_calls": [{"id": "c1", "name": "search", "arguments": {"query": "a"}}]}
    ])));
    let result = block_on(MainLoop::new(&provider, config(50)).execute(
        &p,
        &Session::new(),
        RunHooks::default(),
    ))
    .unwrap();
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExceeded {
            limit: BudgetLimit::Deadline
        }
    );
    let state = &result.evaluations[0].state;
    assert_eq!(
        tool_messages(state.messages()),
        ["Search done.\n\nanswer=A"]
    );
    assert_eq!(result.evaluations[0].model_calls.len(), 2);
    assert_eq!(result.spent.model_calls, 1);
    assert_eq!(result.spent.tool_calls, 1);
}

#[test]
fn running_out_of_output_tokens_ends_the_run() {
    let looping = || {
        script(json!([
            {"tool_calls": [{"id": "c1", "name": "search", "arguments": {"query": "a"}}], "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 0}},
            {"tool_calls": [{"id": "c2", "name": "search", "arguments": {"query": "b"}}], "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 0}},
            {"text": "never"}
        ]))
    };
    let p = prompt(template(
        DisclosureMode::Unified,
        SectionVisibility::Full,
        false,
    ));
    // 15: the second turn takes the total to 20 > 15 (checked after the call).
    // 10: the first turn uses it all up; the next call is refused before it starts.
    for (max, model_calls, tool_calls) in [(15, 2, 1), (10, 1, 1)] {
        let provider = looping();
        let result = run(
            &provider,
            &p,
            &Session::new(),
            MainLoopConfig {
                budget: Budget {
                    max_output_tokens: Some(max),
                    ..Budget::default()
                },
                ..MainLoopConfig::default()
            },
        );
        assert_eq!(
            result.outcome,
            LoopOutcome::BudgetExceeded {
                limit: BudgetLimit::OutputTokens
            },
            "max_output_tokens {max}"
        );
        assert_eq!(result.spent.model_calls, model_calls, "max {max}");
        assert_eq!(result.spent.tool_calls, tool_calls, "max {max}");
        assert_eq!(
            result.spent.usage.output_tokens,
            10 * u64::from(model_calls)
        );
        assert_eq!(provider.requests().len(), model_calls as usize);
    }
}

/// A resource the probe tool sees: it records the address of the resource it was given.
#[derive(Debug, Default)]
struct Probe(Mutex<Vec<usize>>);

fn probe_tool() -> ToolRef {
    ToolBuilder::dynamic(
        "probe",
        "Record the resources seen.",
        empty_params_schema(),
        |_args, ctx: &mut ToolContext| {
            let probe = ctx.resource::<Arc<Probe>>().unwrap();
            assert_eq!(ctx.resource::<u32>(), Some(&42));
            probe.0.lock().unwrap().push(Arc::as_ptr(probe) as usize);
            Ok(ToolResult::message("probed"))
        },
    )
    .build()
    .unwrap()
}

fn plain_tool(name: &str) -> ToolRef {
    ToolBuilder::dynamic(name, "A tool.", empty_params_schema(), |_args, _ctx| {
        Ok(ToolResult::message("ok"))
    })
    .build()
    .unwrap()
}

#[test]
fn b15_two_expansions_make_three_model_calls_with_the_same_resources() {
    let template = PromptTemplate::builder("demo", "retry")
        .disclosure(DisclosureMode::Wink)
        .section(MarkdownSection::new("Task", "task", "Probe.").tool(probe_tool()))
        .section(
            MarkdownSection::new("One", "section1", "One body.")
                .summary("One.")
                .summarized()
                .tool(plain_tool("one")),
        )
        .section(
            MarkdownSection::new("Two", "section2", "Two body.")
                .summary("Two.")
                .summarized()
                .tool(plain_tool("two")),
        )
        .build()
        .unwrap();
    let provider = script(json!([
        {"tool_calls": [
            {"id": "c1", "name": "probe", "arguments": {}},
            {"id": "c2", "name": "open_sections", "arguments": {"section_keys": ["section1"], "reason": "r"}}]},
        {"tool_calls": [
            {"id": "c3", "name": "probe", "arguments": {}},
            {"id": "c4", "name": "open_sections", "arguments": {"section_keys": ["section2"], "reason": "r"}}]},
        {"text": "done"}
    ]));
    let probe = Arc::new(Probe::default());
    let config = MainLoopConfig {
        resources: Resources::new().with(42_u32).with(probe.clone()),
        ..MainLoopConfig::default()
    };
    let session = Session::new();
    let result = run(&provider, &Prompt::new(template), &session, config);
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("done".into()),
            output: None
        }
    );
    assert_eq!(result.restarts, 2);
    assert_eq!(result.evaluations.len(), 3);
    assert_eq!(provider.requests().len(), 3, "2 expansions → 3 calls");
    assert_eq!(
        provider
            .requests()
            .iter()
            .map(|r| r
                .tools
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(","))
            .collect::<Vec<_>>(),
        [
            "probe,open_sections",
            "probe,one,open_sections",
            "probe,one,two"
        ]
    );
    let expected = Arc::as_ptr(&probe) as usize;
    assert_eq!(*probe.0.lock().unwrap(), [expected, expected]);
    // The overrides accumulate in the session.
    let overrides = session.visibility_overrides();
    assert_eq!(
        overrides.get(&SectionPath::root("section1")),
        Some(SectionVisibility::Full)
    );
    assert_eq!(
        overrides.get(&SectionPath::root("section2")),
        Some(SectionVisibility::Full)
    );
}

#[test]
fn model_overrides_merge_with_the_callers_and_take_precedence() {
    let session = Session::new();
    // The caller opens `reference` and pins `search` to its summary.
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("reference"),
        visibility: SectionVisibility::Full,
    });
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("search"),
        visibility: SectionVisibility::Summary,
    });
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["search"], "reason": "need tools"}}]},
        {"text": "done"}
    ]));
    let result = run(
        &provider,
        &prompt(template(
            DisclosureMode::OpenSections,
            SectionVisibility::Full,
            false,
        )),
        &session,
        MainLoopConfig::default(),
    );
    assert_eq!(result.restarts, 1);
    let overrides = session.visibility_overrides();
    assert_eq!(
        overrides.get(&SectionPath::root("reference")),
        Some(SectionVisibility::Full),
        "the caller's override is kept"
    );
    assert_eq!(
        overrides.get(&SectionPath::root("search")),
        Some(SectionVisibility::Full),
        "the model's override wins"
    );
    let requests = provider.requests();
    let system = |i: usize| match &requests[i].messages[0] {
        Message::System { content } => content.clone(),
        other => panic!("{other:?}"),
    };
    assert!(system(0).contains("## 2. Reference (reference)\n\nFull reference."));
    assert!(system(0).contains("## 3. Search (search)\n\nSearch tools available."));
    assert_eq!(
        system(1),
        "## 1. Task (task)\n\nDo: fix bug\n\n## 2. Reference (reference)\n\nFull reference.\n\n## 3. Search (search)\n\nUse search."
    );
    assert_eq!(
        requests[1]
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["search"]
    );
}

#[test]
fn disclosure_tools_are_absent_when_overrides_make_everything_full_in_every_mode() {
    for mode in [
        DisclosureMode::Wink,
        DisclosureMode::Unified,
        DisclosureMode::OpenSections,
        DisclosureMode::ContextFiles,
    ] {
        let session = Session::new();
        for key in ["reference", "search"] {
            session.dispatch(SetVisibilityOverride {
                path: SectionPath::root(key),
                visibility: SectionVisibility::Full,
            });
        }
        let provider = script(json!([{"text": "ok"}]));
        let result = run(
            &provider,
            &prompt(template(mode, SectionVisibility::Summary, false)),
            &session,
            MainLoopConfig::default(),
        );
        assert_eq!(
            result.outcome,
            LoopOutcome::Finished {
                text: Some("ok".into()),
                output: None
            }
        );
        let request = &provider.requests()[0];
        assert_eq!(
            request
                .tools
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>(),
            ["search"],
            "{mode:?}"
        );
        let Message::System { content } = &request.messages[0] else {
            panic!()
        };
        assert_eq!(
            content,
            "## 1. Task (task)\n\nDo: fix bug\n\n## 2. Reference (reference)\n\nFull reference.\n\n## 3. Search (search)\n\nUse search.",
            "{mode:?}"
        );
    }
}

/// Collects what `tracing` prints while `f` runs on this thread.
fn captured_logs(f: impl FnOnce()) -> String {
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .without_time()
        .finish();
    tracing::subscriber::with_default(subscriber, f);
    let bytes = buffer.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn a_disclosed_tool_whose_name_is_taken_is_skipped_with_a_warning() {
    // Sans-IO: `search` is already offered, so disclosing it again injects nothing.
    let p = prompt(template(
        DisclosureMode::Unified,
        SectionVisibility::Full,
        false,
    ));
    let rendered = p.render().unwrap();
    let mut state = InnerLoop::start(&rendered, "demo", LoopConfig::default());
    let offered = |s: &InnerLoop| {
        s.offered_tools()
            .into_iter()
            .map(|t| t.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(offered(&state), ["search", "read_section"]);
    state.on_model_turn(ModelTurn {
        tool_calls: vec![ToolCall {
            id: "c1".into(),
            name: "read_section".into(),
            arguments: ToolArguments::Json(json!({"section_key": "reference"})),
        }],
        ..ModelTurn::default()
    });
    let search_spec = ToolSpec::of(&search_tool());
    let mut injections = Vec::new();
    let logs = captured_logs(|| {
        injections = state.on_tool_outcomes(vec![ToolOutcome::Result {
            call_id: "c1".into(),
            name: "read_section".into(),
            content: "Content of section 'reference':".into(),
            is_error: false,
            disclosed: vec![InjectedTool {
                spec: search_spec.clone(),
                section: SectionPath::root("reference"),
                after_message: 0,
                disclosed_by: String::new(),
            }],
            disclosed_section: Some(SectionPath::root("reference")),
            images: Vec::new(),
        }]);
    });
    assert_eq!(injections, []);
    assert_eq!(offered(&state), ["search", "read_section"]);
    assert!(state.injected().is_empty());
    assert!(
        logs.contains("WARN") && logs.contains("Skipping duplicate tool during injection"),
        "{logs}"
    );
    assert!(logs.contains("tool_name=search"), "{logs}");
}

#[test]
fn overlapping_reads_in_one_turn_inject_each_tool_once() {
    let nested = PromptTemplate::builder("demo", "nested")
        .disclosure(DisclosureMode::Unified)
        .section(
            MarkdownSection::new("Tools", "tools", "Tools body.")
                .summary("Tools.")
                .summarized()
                .child(
                    MarkdownSection::new("Web", "web", "Web body.")
                        .summary("Web.")
                        .summarized()
                        .tool(search_tool()),
                ),
        )
        .build()
        .unwrap();
    let provider = script(json!([
        {"tool_calls": [
            {"id": "c1", "name": "read_section", "arguments": {"section_key": "tools"}},
            {"id": "c2", "name": "read_section", "arguments": {"section_key": "tools.web"}}]},
        {"tool_calls": [{"id": "c3", "name": "search", "arguments": {"query": "q"}}]},
        {"text": "ok"}
    ]));
    let session = Session::new();
    let result = run(
        &provider,
        &Prompt::new(nested),
        &session,
        MainLoopConfig::default(),
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("ok".into()),
            output: None
        }
    );
    assert_eq!(
        provider.requests()[1]
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["read_section", "search"]
    );
    let injected = session.slice::<ToolsInjected>().all();
    assert_eq!(injected.len(), 1, "the second read injected nothing new");
    assert_eq!(injected[0].tool_names, ["search"]);
    assert_eq!(injected[0].section_key, "tools");
}

#[test]
fn a_tool_that_runs_out_of_time_ends_the_run_at_the_deadline_not_as_a_failure() {
    let waits_out_the_deadline = ToolBuilder::dynamic(
        "wait",
        "Wait for the deadline.",
        empty_params_schema(),
        |_args, ctx: &mut ToolContext| {
            let deadline = ctx.deadline.unwrap();
            while !deadline.is_expired() {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(ToolError::DeadlineExceeded)
        },
    )
    .build()
    .unwrap();
    let template = PromptTemplate::builder("demo", "slow")
        .section(MarkdownSection::new("Task", "task", "Wait.").tool(waits_out_the_deadline))
        .build()
        .unwrap();
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "wait", "arguments": {}}]},
        {"text": "never"}
    ]));
    let result = run(
        &provider,
        &Prompt::new(template),
        &Session::new(),
        MainLoopConfig {
            budget: Budget {
                deadline: Some(Deadline::after(Duration::from_millis(30))),
                ..Budget::default()
            },
            ..MainLoopConfig::default()
        },
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExceeded {
            limit: BudgetLimit::Deadline
        }
    );
    assert_eq!(provider.requests().len(), 1);
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct JobStarted(String);
impl wink_session::Event for JobStarted {}

#[test]
fn a_tool_that_never_finishes_ends_at_the_deadline_and_its_changes_are_undone() {
    // Writes a file and records a note, then waits forever.
    let hang = ToolBuilder::<Q, String>::new("hang", "Start a job that never ends.")
        .async_handler(|q: Q, ctx: ToolContext| async move {
            if let Some(fs) = ctx.filesystem() {
                let _ = fs.write("job.txt", &q.query, wink_fs::WriteMode::Create);
            }
            ctx.session.dispatch(JobStarted(q.query.clone()));
            std::future::pending::<()>().await;
            Ok(ToolResult::message("never"))
        })
        .build()
        .unwrap();
    let template = PromptTemplate::builder("demo", "hang")
        .section(MarkdownSection::new("Jobs", "jobs", "Run jobs.").tool(hang))
        .build()
        .unwrap();
    let provider = script(json!([
        {"tool_calls": [{"id": "h1", "name": "hang", "arguments": {"query": "started"}}]}
    ]));
    let fs: Arc<dyn wink_fs::Filesystem> = Arc::new(wink_fs::InMemoryFilesystem::new());
    let session = Session::new();
    let config = MainLoopConfig {
        budget: Budget {
            deadline: Some(Deadline::after(Duration::from_millis(50))),
            ..Budget::default()
        },
        resources: Resources::new().with(Arc::clone(&fs)),
        ..MainLoopConfig::default()
    };
    let result = block_on(MainLoop::new(&provider, config).execute(
        &Prompt::new(template),
        &session,
        RunHooks::default(),
    ))
    .unwrap();
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExceeded {
            limit: BudgetLimit::Deadline
        }
    );
    assert_eq!(result.spent.model_calls, 1);
    assert!(!fs.exists("job.txt"), "the cut-off call's file is undone");
    assert!(
        session.slice::<JobStarted>().is_empty(),
        "and its session change"
    );
}

#[test]
fn images_a_tool_returns_reach_the_model_beside_its_text() {
    let screenshot = ToolBuilder::dynamic(
        "screenshot",
        "Take a screenshot.",
        json!({"type": "object", "properties": {}}),
        |_arguments, _context| {
            let value = json!({"content": [
                {"type": "text", "text": "The page:"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
            ]});
            Ok(ToolResult::ok("The page: (one image)", value).excluding_value())
        },
    )
    .build()
    .unwrap();
    let template = PromptTemplate::builder("demo", "images")
        .section(MarkdownSection::new("Look", "look", "Look at the page.").tool(screenshot))
        .build()
        .unwrap();
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "screenshot", "arguments": "{}"}]},
        {"text": "A login form."}
    ]));
    let result = run(
        &provider,
        &Prompt::new(Arc::new(template)),
        &Session::new(),
        MainLoopConfig::default(),
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("A login form.".into()),
            output: None
        }
    );
    let last = provider.requests().last().unwrap().messages.clone();
    assert_eq!(
        last.last(),
        Some(&Message::Tool {
            tool_call_id: "c1".into(),
            name: "screenshot".into(),
            content: "The page: (one image)".into(),
            is_error: false,
            images: vec![ToolImage::new("image/png", "iVBORw0KGgo=")],
        })
    );
}

#[test]
fn a_greedy_profile_caps_each_turn_and_decodes_greedily_unless_the_run_says_otherwise() {
    let first_request = |loop_config: LoopConfig| {
        let provider = script(json!([{"text": "Done."}, {"text": "Done."}, {"text": "Done."}]));
        let config = MainLoopConfig {
            loop_config,
            ..MainLoopConfig::default()
        };
        let p = prompt(template(
            DisclosureMode::Wink,
            SectionVisibility::Full,
            false,
        ));
        run(&provider, &p, &Session::new(), config);
        let request = provider.requests()[0].clone();
        (request.max_output_tokens, request.temperature)
    };
    // The scripted adapter's profile is the default one: nothing is filled in.
    assert_eq!(first_request(LoopConfig::default()), (None, None));
    let small = LoopConfig {
        profile: Some("small-local".into()),
        ..LoopConfig::default()
    };
    assert_eq!(first_request(small.clone()), (Some(512), Some(0.0)));
    let own = LoopConfig {
        max_output_tokens: Some(2048),
        temperature: Some(0.7),
        ..small
    };
    assert_eq!(first_request(own), (Some(2048), Some(0.7)));
}
