//! The loop's interventions, for every provider: the repetition guard, unknown tools answered
//! with failed results, hidden tools auto-opening their sections (dynamic and restart paths),
//! default budgets, the context-window check and the per-call usage record.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::{Value, json};
use wink_agent::*;
use wink_core::*;
use wink_session::{
    ExpansionPath, LoopIntervention, Session, ToolInvoked, ToolsInjected, VisibilityExpanded,
    VisibilityOverrides,
};

fn stock() -> ToolRef {
    ToolBuilder::dynamic(
        "stock",
        "Copies in stock of a title.",
        json!({"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}),
        |_args, _ctx| Ok(ToolResult::message("7 copies in stock")),
    )
    .build()
    .unwrap()
}

fn buy() -> ToolRef {
    ToolBuilder::dynamic(
        "buy",
        "Buy a title.",
        json!({"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}),
        |_args, _ctx| Ok(ToolResult::message("bought")),
    )
    .build()
    .unwrap()
}

fn lookup() -> ToolRef {
    ToolBuilder::dynamic(
        "lookup_order",
        "Look an order up.",
        empty_params_schema(),
        |_args, _ctx| Ok(ToolResult::message("order 12: shipped")),
    )
    .build()
    .unwrap()
}

/// A shop: `stock` and `buy` visible, `lookup_order` hidden in the summarized "orders".
fn shop(mode: DisclosureMode) -> Prompt {
    Prompt::new(Arc::new(
        PromptTemplate::builder("demo", "shop")
            .disclosure(mode)
            .section(
                MarkdownSection::new("Inventory", "inventory", "Check stock.")
                    .tool(stock())
                    .tool(buy()),
            )
            .section(
                MarkdownSection::new("Orders", "orders", "Use lookup_order.")
                    .summary("Order tools.")
                    .summarized()
                    .tool(lookup()),
            )
            .section(
                MarkdownSection::new("Policies", "policies", "Returns within 30 days.")
                    .summary("Store policies.")
                    .summarized(),
            )
            .build()
            .unwrap(),
    ))
}

fn script(turns: Value) -> ScriptedProvider {
    ScriptedProvider::from_json(&turns.to_string(), "test").unwrap()
}

fn run_with(
    provider: &dyn ProviderAdapter,
    prompt: &Prompt,
    config: MainLoopConfig,
) -> (RunResult, Session) {
    let session = Session::new();
    let result =
        block_on(MainLoop::new(provider, config).execute(prompt, &session, RunHooks::default()))
            .unwrap();
    (result, session)
}

fn run(provider: &ScriptedProvider, mode: DisclosureMode) -> (RunResult, Session) {
    run_with(provider, &shop(mode), MainLoopConfig::default())
}

fn stock_call(id: &str, title: &str) -> Value {
    json!({"id": id, "name": "stock", "arguments": {"title": title}})
}

fn kinds(session: &Session) -> Vec<String> {
    session
        .slice::<LoopIntervention>()
        .all()
        .iter()
        .map(|e| e.kind.clone())
        .collect()
}

/// The content of the tool message answering `call_id` in the last request.
fn tool_result(provider: &ScriptedProvider, call_id: &str) -> (String, bool) {
    let requests = provider.requests();
    requests
        .last()
        .unwrap()
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } if tool_call_id == call_id => Some((content.clone(), *is_error)),
            _ => None,
        })
        .unwrap()
}

#[test]
fn a_model_repeating_one_call_forever_ends_at_the_guard() {
    let turns: Vec<Value> = (1..=20)
        .map(|i| json!({"tool_calls": [stock_call(&format!("c{i}"), "Dune")]}))
        .collect();
    let provider = script(Value::Array(turns));
    let (result, session) = run(&provider, DisclosureMode::Unified);
    assert_eq!(
        result.outcome,
        LoopOutcome::Failed {
            message: "The model kept calling tools after it was asked to answer without them (repeated tool calls).".into(),
            phase: EvaluationPhase::Response,
        }
    );
    assert_eq!(result.spent.model_calls, 4);
    // The tool ran once; the repetitions were answered from the first result.
    let invoked = session.slice::<ToolInvoked>().all();
    assert_eq!(invoked.len(), 1);
    let note = "\n\n[Repeated call: `stock` was already called with these arguments and returned the result above. Do not call it again: use this result and answer.]";
    assert_eq!(
        tool_result(&provider, "c2"),
        (format!("7 copies in stock{note}"), false)
    );
    assert_eq!(
        tool_result(&provider, "c3"),
        (format!("7 copies in stock{note}"), false)
    );
    let choices: Vec<ToolChoice> = provider
        .requests()
        .iter()
        .map(|r| r.tool_choice.clone())
        .collect();
    assert_eq!(
        choices,
        [
            ToolChoice::Auto,
            ToolChoice::Auto,
            ToolChoice::Auto,
            ToolChoice::None
        ]
    );
    assert_eq!(
        kinds(&session),
        [
            "repeated_call",
            "repeated_call",
            "answer_only",
            "kept_calling_tools"
        ]
    );
    let first = &session.slice::<LoopIntervention>().all()[0];
    assert_eq!(first.tool.as_deref(), Some("stock"));
    assert_eq!(first.arguments, Some(json!({"title": "Dune"})));
    assert_eq!(first.session_id, Some(session.id()));
}

#[test]
fn a_model_that_answers_when_asked_finishes() {
    let provider = script(json!([
        {"tool_calls": [stock_call("c1", "Dune")]},
        {"tool_calls": [stock_call("c2", "Dune")]},
        {"tool_calls": [stock_call("c3", "Dune")]},
        {"text": "7 copies."}
    ]));
    let (result, _) = run(&provider, DisclosureMode::Unified);
    assert_eq!(result.text(), Some("7 copies."));
    assert_eq!(
        provider.requests()[3].tool_choice,
        ToolChoice::None,
        "the call after the second repetition is answer-only"
    );
}

#[test]
fn a_model_calling_forever_with_new_arguments_ends_at_the_default_budget() {
    let turns: Vec<Value> = (1..=40)
        .map(|i| json!({"tool_calls": [stock_call(&format!("c{i}"), &format!("Book {i}"))]}))
        .collect();
    let provider = script(Value::Array(turns));
    let (result, session) = run(&provider, DisclosureMode::Unified);
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExceeded {
            limit: BudgetLimit::ModelCalls
        }
    );
    assert_eq!(result.spent.model_calls, DEFAULT_MAX_MODEL_CALLS);
    assert_eq!(DEFAULT_MAX_MODEL_CALLS, 16);
    assert!(kinds(&session).is_empty());
    // Everything so far is kept.
    assert_eq!(result.evaluations[0].model_calls.len(), 16);
    assert_eq!(session.slice::<ToolInvoked>().len(), 16);
}

#[test]
fn a_state_change_between_identical_calls_lets_the_second_run() {
    let provider = script(json!([
        {"tool_calls": [stock_call("c1", "Dune")]},
        {"tool_calls": [{"id": "c2", "name": "buy", "arguments": {"title": "Dune"}}]},
        {"tool_calls": [stock_call("c3", "Dune")]},
        {"text": "done"}
    ]));
    let (result, session) = run(&provider, DisclosureMode::Unified);
    assert_eq!(result.text(), Some("done"));
    assert_eq!(session.slice::<ToolInvoked>().len(), 3);
    assert!(kinds(&session).is_empty());
}

#[test]
fn a_repeated_unknown_section_key_is_answered_from_the_guard_with_the_valid_keys() {
    let read = |id: &str| json!({"tool_calls": [{"id": id, "name": "read_section", "arguments": {"section_key": "orders.12"}}]});
    let provider = script(json!([read("c1"), read("c2"), {"text": "sorry"}]));
    let (result, session) = run(&provider, DisclosureMode::Unified);
    assert_eq!(result.text(), Some("sorry"));
    let error = "Unknown section key: 'orders.12'. Valid keys: orders, policies.";
    assert_eq!(tool_result(&provider, "c1"), (error.to_owned(), true));
    assert_eq!(
        tool_result(&provider, "c2"),
        (
            format!(
                "{error}\n\n[Repeated call: this call of `read_section` already failed with the error above. Do not repeat it: change the arguments, call another tool, or answer.]"
            ),
            true
        )
    );
    assert_eq!(session.slice::<ToolInvoked>().len(), 1);
    assert_eq!(kinds(&session), ["repeated_call"]);
}

#[test]
fn an_unknown_tool_gets_a_failed_result_listing_the_tools() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "refund", "arguments": {}}]},
        {"text": "I cannot refund."}
    ]));
    let (result, session) = run(&provider, DisclosureMode::Unified);
    assert_eq!(result.text(), Some("I cannot refund."));
    assert_eq!(
        tool_result(&provider, "c1"),
        (
            "Unknown tool 'refund'. Available tools: stock, buy, read_section.".to_owned(),
            true
        )
    );
    assert_eq!(kinds(&session), ["unknown_tool"]);
}

#[test]
fn with_auto_open_off_an_unknown_hidden_tool_names_the_section_to_open() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": {}}]},
        {"text": "ok"}
    ]));
    let mut config = MainLoopConfig::default();
    config.loop_config.auto_open_hidden_tools = false;
    let (result, _) = run_with(&provider, &shop(DisclosureMode::Unified), config.clone());
    assert_eq!(result.text(), Some("ok"));
    assert_eq!(
        tool_result(&provider, "c1").0,
        "Unknown tool 'lookup_order'. It is in section \"orders\": call `read_section` with key \"orders\" first. Available tools: stock, buy, read_section."
    );
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": {}}]},
        {"text": "ok"}
    ]));
    let _ = run_with(&provider, &shop(DisclosureMode::OpenSections), config);
    assert_eq!(
        tool_result(&provider, "c1").0,
        "Unknown tool 'lookup_order'. It is in section \"orders\": call `open_sections` with key \"orders\" first. Available tools: stock, buy, open_sections."
    );
}

#[test]
fn wink_mode_keeps_the_fatal_unknown_tool_error_and_no_auto_open() {
    // A tool no section holds: WINK v0.17's fatal error.
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "refund", "arguments": {}}]},
        {"text": "never"}
    ]));
    let (result, session) = run(&provider, DisclosureMode::Wink);
    assert_eq!(
        result.outcome,
        LoopOutcome::Failed {
            message: "Unknown tool 'refund' requested by provider.".into(),
            phase: EvaluationPhase::Tool,
        }
    );
    assert!(kinds(&session).is_empty());
}

#[test]
fn wink_mode_answers_a_call_of_a_hidden_tool_with_the_section_to_open() {
    // A tool a summarized section holds: not opened (no auto-open in wink mode), not fatal
    // either: a failed result names the section and `open_sections`.
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": {}}]},
        {"text": "ok"}
    ]));
    let (result, session) = run(&provider, DisclosureMode::Wink);
    assert_eq!(result.text(), Some("ok"));
    assert_eq!(
        tool_result(&provider, "c1"),
        (
            "Unknown tool 'lookup_order'. It is in section \"orders\": call `open_sections` with key \"orders\" first. Available tools: stock, buy, open_sections, read_section.".to_owned(),
            true
        )
    );
    assert_eq!(kinds(&session), ["unknown_tool"]);
}

#[test]
fn wink_mode_has_the_repetition_guard_unless_turned_off() {
    let turns = json!([
        {"tool_calls": [stock_call("c1", "Dune")]},
        {"tool_calls": [stock_call("c2", "Dune")]},
        {"text": "done"}
    ]);
    let provider = script(turns.clone());
    let (_, session) = run(&provider, DisclosureMode::Wink);
    assert_eq!(session.slice::<ToolInvoked>().len(), 1);
    assert_eq!(kinds(&session), ["repeated_call"]);
    let provider = script(turns);
    let mut config = MainLoopConfig::default();
    config.loop_config.repetition_guard = Some(false);
    let (_, session) = run_with(&provider, &shop(DisclosureMode::Wink), config);
    assert_eq!(session.slice::<ToolInvoked>().len(), 2);
    assert!(kinds(&session).is_empty());
}

#[test]
fn a_hidden_tool_call_opens_its_section_by_injection_and_runs() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": {}}]},
        {"text": "Order 12 has shipped."}
    ]));
    let (result, session) = run(&provider, DisclosureMode::Unified);
    assert_eq!(result.text(), Some("Order 12 has shipped."));
    assert_eq!(result.restarts, 0);
    assert_eq!(
        tool_result(&provider, "c1"),
        ("order 12: shipped".to_owned(), false)
    );
    let second = &provider.requests()[1];
    assert_eq!(
        second
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["stock", "buy", "read_section", "lookup_order"]
    );
    // Available after the call's own result (message 2: system, assistant, tool).
    assert_eq!(
        second.tool_additions,
        [ToolAddition {
            after_message: 2,
            section: "orders".into(),
            tools: vec!["lookup_order".into()],
        }]
    );
    let injected = session.slice::<ToolsInjected>().all();
    assert_eq!(injected.len(), 1);
    assert_eq!(injected[0].tool_names, ["lookup_order"]);
    assert_eq!(injected[0].section_key, "orders");
    let expanded = session.slice::<VisibilityExpanded>().all();
    assert_eq!(expanded.len(), 1);
    assert_eq!(expanded[0].path, ExpansionPath::Dynamic);
    assert_eq!(
        expanded[0].reason,
        "a call of a tool it hid opened the section"
    );
    let view = session.slice::<VisibilityOverrides>();
    let overrides = view.latest().unwrap();
    assert_eq!(
        overrides.get(&SectionPath::new(vec!["orders".into()])),
        Some(SectionVisibility::Full)
    );
    let events = session.slice::<LoopIntervention>().all();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, "auto_open");
    assert_eq!(events[0].detail, "opened section \"orders\" (injected)");
}

#[test]
fn a_hidden_tool_call_restarts_with_its_section_open_and_replays_the_call() {
    for mode in [DisclosureMode::Unified, DisclosureMode::OpenSections] {
        let provider = script(json!([
            {"tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": {}}]},
            {"text": "Order 12 has shipped."}
        ]))
        .with_dynamic_tools(false);
        let (result, session) = run(&provider, mode);
        assert_eq!(result.text(), Some("Order 12 has shipped."), "{mode}");
        assert_eq!(result.restarts, 1);
        assert_eq!(
            result.spent.model_calls, 2,
            "the replay is not a model call"
        );
        assert_eq!(session.slice::<ToolInvoked>().len(), 1);
        let expanded = session.slice::<VisibilityExpanded>().all();
        assert_eq!(expanded.len(), 1);
        assert_eq!(expanded[0].section_keys, ["orders"]);
        assert_eq!(expanded[0].path, ExpansionPath::Restart);
        // The restarted conversation starts with the replayed call and its result.
        let second = &provider.requests()[1];
        assert!(second.messages[0].clone() != Message::system(""));
        assert!(matches!(
            &second.messages[1],
            Message::Assistant { tool_calls, .. } if tool_calls[0].name == "lookup_order"
        ));
        assert_eq!(
            tool_result(&provider, "c1"),
            ("order 12: shipped".to_owned(), false)
        );
        assert!(second.tools.iter().any(|t| t.name == "lookup_order"));
        assert_eq!(kinds(&session), ["auto_open"]);
    }
}

#[test]
fn default_budgets_derive_the_input_limit_from_the_context_window() {
    struct Windowed(ScriptedProvider, Option<u64>);
    impl std::fmt::Debug for Windowed {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Windowed")
        }
    }
    impl ProviderAdapter for Windowed {
        fn name(&self) -> &str {
            "windowed"
        }
        fn model(&self) -> &str {
            "m"
        }
        fn context_window(&self) -> Option<u64> {
            self.1
        }
        fn complete<'a>(
            &'a self,
            request: &'a ModelRequest,
            stream: Option<&'a dyn StreamSink>,
        ) -> ProviderFuture<'a> {
            self.0.complete(request, stream)
        }
    }
    let known = Windowed(script(json!([])), Some(8192));
    let budget = MainLoop::new(&known, MainLoopConfig::default()).budget();
    assert_eq!(budget.max_model_calls, Some(16));
    assert_eq!(budget.max_input_tokens, Some(65_536));
    let unknown = Windowed(script(json!([])), None);
    assert_eq!(
        MainLoop::new(&unknown, MainLoopConfig::default())
            .budget()
            .max_input_tokens,
        Some(DEFAULT_MAX_INPUT_TOKENS)
    );
    let mut config = MainLoopConfig::default();
    config.loop_config.context_window = Some(1000);
    assert_eq!(
        MainLoop::new(&unknown, config.clone())
            .budget()
            .max_input_tokens,
        Some(8000)
    );
    config.derive_input_budget = false;
    assert_eq!(
        MainLoop::new(&unknown, config).budget().max_input_tokens,
        None
    );
}

#[test]
fn a_request_that_cannot_fit_the_context_window_is_not_sent() {
    let provider = script(json!([{"text": "never"}]));
    let mut config = MainLoopConfig::default();
    config.loop_config.context_window = Some(100);
    config.loop_config.max_output_tokens = Some(50);
    let (result, session) = run_with(&provider, &shop(DisclosureMode::Unified), config);
    assert!(provider.requests().is_empty());
    let LoopOutcome::Failed { message, phase } = &result.outcome else {
        panic!("{:?}", result.outcome);
    };
    assert_eq!(*phase, EvaluationPhase::Request);
    let estimate: u64 = message
        .strip_prefix("the next request (~")
        .and_then(|m| {
            m.strip_suffix(" tokens) does not fit the model's context window (100 tokens)")
        })
        .unwrap()
        .parse()
        .unwrap();
    assert!(estimate > 100, "{estimate}");
    assert_eq!(kinds(&session), ["context_window"]);
}

#[test]
fn the_estimate_counts_bytes_per_three_with_overhead_and_the_output_reserve() {
    let request = ModelRequest {
        messages: vec![
            Message::system("x".repeat(300)),
            Message::user("y".repeat(30)),
        ],
        ..ModelRequest::default()
    };
    assert_eq!(
        estimate_request_tokens(&request),
        110 + 16 + DEFAULT_OUTPUT_RESERVE
    );
    let capped = ModelRequest {
        max_output_tokens: Some(10),
        ..request
    };
    assert_eq!(estimate_request_tokens(&capped), 136);
}

#[test]
fn the_estimate_takes_measured_tokens_as_they_are_and_adds_what_came_since() {
    let request = ModelRequest {
        messages: vec![
            Message::system("x".repeat(3000)),
            Message::user("q"),
            Message::Assistant {
                content: Some("a".repeat(30)),
                tool_calls: Vec::new(),
            },
            Message::user("y".repeat(30)),
        ],
        max_output_tokens: Some(100),
        ..ModelRequest::default()
    };
    // Measured: the first two messages were 700 tokens in, the answer 12 out.
    let measured = MeasuredRequest {
        tokens: 712,
        messages: 2,
        tools: 0,
    };
    assert_eq!(
        estimate_request_tokens_after(&request, Some(measured)),
        712 + 10 + 8 + 100
    );
    // Without a measure, everything is estimated from bytes.
    assert_eq!(
        estimate_request_tokens(&request),
        (3000u64 + 1 + 30 + 30).div_ceil(3) + 4 * 8 + 100
    );
    // A measure that does not describe a prefix is ignored.
    let stale = MeasuredRequest {
        messages: 9,
        ..measured
    };
    assert_eq!(
        estimate_request_tokens_after(&request, Some(stale)),
        estimate_request_tokens(&request)
    );
}

#[test]
fn a_provider_context_overflow_is_reported_with_the_window() {
    #[derive(Debug)]
    struct Overflowing;
    impl ProviderAdapter for Overflowing {
        fn name(&self) -> &str {
            "overflowing"
        }
        fn model(&self) -> &str {
            "m"
        }
        fn context_window(&self) -> Option<u64> {
            Some(8192)
        }
        fn complete<'a>(
            &'a self,
            _request: &'a ModelRequest,
            _stream: Option<&'a dyn StreamSink>,
        ) -> ProviderFuture<'a> {
            Box::pin(async {
                Err(ProviderError::new(
                    ProviderErrorKind::ContextOverflow,
                    "overflowing",
                    "m",
                    "the request exceeds the available context size",
                ))
            })
        }
    }
    let (result, _) = run_with(
        &Overflowing,
        &shop(DisclosureMode::Unified),
        MainLoopConfig::default(),
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Failed {
            message: "the request does not fit the model's context window (8192 tokens): the request exceeds the available context size".into(),
            phase: EvaluationPhase::Request,
        }
    );
}

#[test]
fn every_model_call_record_carries_its_usage() {
    let provider = script(json!([
        {"tool_calls": [stock_call("c1", "Dune")], "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 0}},
        {"text": "7", "usage": {"input_tokens": 120, "output_tokens": 2, "cached_tokens": 100}}
    ]));
    let (result, _) = run(&provider, DisclosureMode::Unified);
    let usage: Vec<Option<wink_session::TokenUsage>> = result.evaluations[0]
        .model_calls
        .iter()
        .map(|c| c.usage)
        .collect();
    assert_eq!(
        usage,
        [
            Some(wink_session::TokenUsage {
                input_tokens: 100,
                output_tokens: 10,
                cached_tokens: 0
            }),
            Some(wink_session::TokenUsage {
                input_tokens: 120,
                output_tokens: 2,
                cached_tokens: 100
            })
        ]
    );
}

#[test]
fn the_guard_state_survives_a_save_and_resume() {
    let provider = script(json!([
        {"tool_calls": [stock_call("c1", "Dune")]},
        {"tool_calls": [stock_call("c2", "Dune")]},
        {"tool_calls": [stock_call("c3", "Dune")]},
        {"text": "7 copies."}
    ]));
    let prompt = shop(DisclosureMode::Unified);
    let session = Session::new();
    let rendered = prompt.render_with(&session).unwrap();
    let mut driver = Driver::start(&rendered, &session, &provider, EvaluateOptions::default());
    // Two model calls and their tool runs, then save.
    for _ in 0..4 {
        assert!(block_on(driver.advance()).is_none());
    }
    let saved = serde_json::to_string(driver.state()).unwrap();
    drop(driver);
    let state: InnerLoop = serde_json::from_str(&saved).unwrap();
    assert_eq!(state.guard().repetitions(), 1);
    let evaluation = block_on(resume(
        state,
        &rendered,
        &session,
        &provider,
        EvaluateOptions::default(),
    ));
    assert_eq!(
        evaluation.outcome,
        LoopOutcome::Finished {
            text: Some("7 copies.".into()),
            output: None
        }
    );
    assert_eq!(provider.requests()[3].tool_choice, ToolChoice::None);
    assert_eq!(session.slice::<ToolInvoked>().len(), 1);
}

#[test]
fn the_batched_policy_still_opens_on_a_repeated_open_sections() {
    let open = |id: &str| json!({"tool_calls": [{"id": id, "name": "open_sections", "arguments": {"section_keys": ["orders"], "reason": "r"}}]});
    let provider = script(json!([open("c1"), open("c2"), {"text": "ok"}]));
    let config = MainLoopConfig {
        policy: ExpansionPolicy::Batched { size: 2 },
        ..MainLoopConfig::default()
    };
    let (result, session) = run_with(&provider, &shop(DisclosureMode::OpenSections), config);
    assert_eq!(result.text(), Some("ok"));
    assert_eq!(result.restarts, 1);
    assert!(kinds(&session).is_empty());
}

#[test]
fn a_section_read_larger_than_the_context_left_comes_in_parts_and_the_run_goes_on() {
    let body = (1..=40)
        .map(|i| format!("Paragraph {i}: {}", "word ".repeat(98).trim_end()))
        .collect::<Vec<_>>()
        .join("\n\n");
    let prompt = Prompt::new(Arc::new(
        PromptTemplate::builder("demo", "manual")
            .section(MarkdownSection::new(
                "Task",
                "task",
                "Answer from the manual.",
            ))
            .section(
                MarkdownSection::new("Manual", "manual", body)
                    .summary("The whole manual.")
                    .summarized(),
            )
            .build()
            .unwrap(),
    ));
    let provider = script(json!([
        {"tool_calls": [{"id": "r1", "name": "read_section", "arguments": {"section_key": "manual"}}]},
        {"text": "Paragraph 1 says word."}
    ]));
    let mut config = MainLoopConfig::default();
    // The manual is ~6,700 tokens by the loop's estimate: whole, it would not fit.
    config.loop_config.context_window = Some(4_000);
    let (result, session) = run_with(&provider, &prompt, config);
    assert_eq!(
        result.text(),
        Some("Paragraph 1 says word."),
        "{:?}",
        result.outcome
    );
    assert!(kinds(&session).is_empty(), "{:?}", kinds(&session));
    let (content, is_error) = tool_result(&provider, "r1");
    assert!(!is_error);
    assert!(
        content.starts_with("Content of section 'manual' (parts 1–"),
        "{content}"
    );
    assert!(content.contains("Paragraph 1:") && !content.contains("Paragraph 40:"));
    assert!(
        content.ends_with("to read on (8 parts).]"),
        "{}",
        &content[content.len() - 120..]
    );
    let last = provider.requests().last().cloned().unwrap();
    assert!(estimate_request_tokens(&last) <= 4_000);
}
