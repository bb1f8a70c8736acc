//! The one mapping, live and offline: a scripted run traced as it happens gives exactly the
//! spans its session log gives afterwards (same ids, names, attributes, events), and those spans
//! are the run: one `invoke_agent`, a `chat` per model call with the call's tokens, an
//! `execute_tool` per tool call, the opened section and the injected tools as events, and the
//! section tree each call saw.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wink_agent::*;
use wink_core::*;
use wink_session::{LoopIntervention, Session, TraceParent, TraceScope};
use wink_trace::semconv::{self, wink as w};
use wink_trace::{AttrValue, MapOptions, SpanRecord, SpanStatus, TraceOptions};

fn search() -> ToolRef {
    ToolBuilder::dynamic(
        "search",
        "Search the docs.",
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
        |args, _ctx| {
            if args["query"] == "boom" {
                return Ok(ToolResult::failure("the index is down"));
            }
            Ok(ToolResult::message("results for login"))
        },
    )
    .build()
    .unwrap()
}

fn template() -> Arc<PromptTemplate> {
    Arc::new(
        PromptTemplate::builder("demo", "agent")
            .section(MarkdownSection::new("Task", "task", "Answer the question."))
            .section(
                MarkdownSection::new("Docs", "docs", "Use `search` for the API.")
                    .summary("API docs and a search tool.")
                    .summarized()
                    .tool(search()),
            )
            .build()
            .unwrap(),
    )
}

fn usage(input: u64, output: u64, cached: u64) -> Value {
    json!({"input_tokens": input, "output_tokens": output, "cached_tokens": cached})
}

fn script() -> ScriptedProvider {
    let turns = json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "docs"}}],
         "usage": usage(100, 10, 0)},
        {"tool_calls": [{"id": "c2", "name": "search", "arguments": {"query": "boom"}}],
         "usage": usage(140, 8, 96)},
        {"tool_calls": [{"id": "c3", "name": "search", "arguments": {"query": "boom"}}],
         "usage": usage(170, 8, 130)},
        {"text": "The cookie was not renewed.", "usage": usage(190, 7, 160)}
    ]);
    ScriptedProvider::from_json(&turns.to_string(), "test").unwrap()
}

type Collected = Arc<Mutex<Vec<SpanRecord>>>;

/// Traces `session` live into the vector returned.
fn collect(session: &Session, options: TraceOptions) -> Collected {
    let collected: Collected = Arc::default();
    let sink = Arc::clone(&collected);
    wink_trace::trace_session_to(
        session,
        options,
        Arc::new(move |spans| sink.lock().unwrap().extend(spans)),
    );
    collected
}

/// Runs the script traced live into a vector, logged to `log`; returns the live spans.
fn traced_run(log: &std::path::Path) -> Vec<SpanRecord> {
    let provider = script();
    let session = Session::new();
    let collected = collect(&session, TraceOptions::default());
    let _log =
        wink_store::SessionLog::create(log, &session, wink_store::FsyncPolicy::Never).unwrap();
    let result = block_on(MainLoop::new(&provider, MainLoopConfig::default()).execute(
        &Prompt::new(template()),
        &session,
        RunHooks::default(),
    ))
    .unwrap();
    assert!(matches!(result.outcome, LoopOutcome::Finished { .. }));
    // The tool calls were made in the spans the tracer chose: the session answered them.
    let requests = provider.requests();
    assert_eq!(requests.len(), 4);
    drop(_log);
    drop(session);
    collected.lock().unwrap().clone()
}

fn sorted(mut spans: Vec<SpanRecord>) -> Vec<SpanRecord> {
    spans.sort_by_key(|s| (s.start_ns, s.span_id));
    spans
}

fn by_name<'a>(spans: &'a [SpanRecord], name: &str) -> Vec<&'a SpanRecord> {
    spans.iter().filter(|s| s.name == name).collect()
}

#[test]
fn live_spans_are_the_spans_of_the_log() {
    let dir = std::env::temp_dir().join(format!("wink-trace-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("run.jsonl");
    let live = sorted(traced_run(&log));
    let offline = sorted(wink_trace::read::from_session_log(&log, MapOptions::default()).unwrap());
    assert_eq!(live, offline);

    let names: Vec<&str> = live.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "invoke_agent demo:agent",
            "chat script",
            "execute_tool read_section",
            "chat script",
            "execute_tool search",
            "chat script",
            "chat script",
        ]
    );
    let run = &live[0];
    assert_eq!(run.parent_span_id, None);
    for span in &live[1..] {
        assert_eq!(span.trace_id, run.trace_id);
        assert_eq!(span.parent_span_id, Some(run.span_id), "{}", span.name);
    }
    // Token counts per call, as the provider reported them; the run's are their sums.
    let chats = by_name(&live, "chat script");
    let tokens: Vec<(i64, i64, i64)> = chats
        .iter()
        .map(|s| {
            let a = &s.attributes;
            (
                a.int(semconv::USAGE_INPUT_TOKENS).unwrap(),
                a.int(semconv::USAGE_CACHE_READ_INPUT_TOKENS).unwrap(),
                a.int(semconv::USAGE_OUTPUT_TOKENS).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tokens,
        [(100, 0, 10), (140, 96, 8), (170, 130, 8), (190, 160, 7)]
    );
    assert_eq!(run.attributes.int(semconv::USAGE_INPUT_TOKENS), Some(600));
    assert_eq!(run.attributes.int(semconv::USAGE_OUTPUT_TOKENS), Some(33));
    assert_eq!(run.attributes.str(w::RUN_STATUS), Some("finished"));
    assert_eq!(run.attributes.int(w::RUN_MODEL_CALLS), Some(4));
    assert_eq!(
        chats[0].attributes.str(semconv::OPERATION_NAME),
        Some("chat")
    );
    assert_eq!(
        chats[0].attributes.str(semconv::PROVIDER_NAME),
        Some("scripted")
    );
    assert_eq!(
        chats[0].attributes.get(semconv::RESPONSE_FINISH_REASONS),
        Some(&AttrValue::StrList(["tool_calls".into()].into()))
    );
    // The failed search is an error in place.
    let search = by_name(&live, "execute_tool search");
    assert_eq!(search.len(), 1);
    assert_eq!(
        search[0].status,
        SpanStatus::Error("the index is down".into())
    );
    assert_eq!(
        search[0].attributes.str(semconv::ERROR_TYPE),
        Some("tool_error")
    );
    assert_eq!(search[0].attributes.str(semconv::TOOL_CALL_ID), Some("c2"));
    // Disclosure and the repetition guard are events of the run.
    let events: Vec<(&str, Option<&str>)> = run
        .events
        .iter()
        .map(|e| {
            (
                e.name.as_str(),
                e.attributes
                    .str(w::SECTION_KEY)
                    .or_else(|| e.attributes.str("wink.kind")),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("wink.section.opened", Some("docs")),
            ("wink.tools.injected", Some("docs")),
            ("wink.intervention", Some("repeated_call")),
        ]
    );
    assert_eq!(
        run.events[2].attributes.str(w::EVENT_TYPE),
        Some("LoopIntervention")
    );
    // What each call saw: docs summarized for the first call, opened before the second.
    let tree = |span: &SpanRecord| -> Vec<Value> {
        serde_json::from_str(span.attributes.str(w::PROMPT_SECTIONS).unwrap()).unwrap()
    };
    let first = tree(chats[0]);
    assert_eq!(first[1]["key"], "docs");
    assert_eq!(first[1]["visibility"], "summary");
    assert_eq!(first[1]["hidden_tools"], json!(["search"]));
    assert_eq!(first[1].get("opened_before_call"), None);
    let second = tree(chats[1]);
    assert_eq!(second[1]["opened_before_call"], 1);
    assert_eq!(second[1]["injected"], json!(["search"]));
    // No content without the opt-in.
    assert!(
        live.iter()
            .all(|s| s.attributes.get(semconv::INPUT_MESSAGES).is_none()
                && s.attributes.get(semconv::TOOL_CALL_ARGUMENTS).is_none())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_session_answers_with_the_spans_it_will_record() {
    let session = Session::new();
    let parent: TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        .parse()
        .unwrap();
    let collected = collect(
        &session,
        TraceOptions {
            parent: Some(parent),
            resumable: false,
        },
    );
    assert_eq!(
        session.traceparent(TraceScope::ModelCall),
        None,
        "no run yet"
    );
    let provider = script();
    block_on(MainLoop::new(&provider, MainLoopConfig::default()).execute(
        &Prompt::new(template()),
        &session,
        RunHooks::default(),
    ))
    .unwrap();
    let spans = collected.lock().unwrap().clone();
    let run = spans
        .iter()
        .find(|s| s.name.starts_with("invoke_agent"))
        .unwrap();
    // The run continues the remote parent's trace.
    assert_eq!(run.trace_id, parent.trace_id);
    assert_eq!(run.parent_span_id, Some(parent.span_id));
    assert!(run.parent_is_remote);
    // Each model call was made in its chat span (ModelCalled records what the request carried).
    let called: Vec<TraceParent> = session
        .slice::<wink_session::ModelCalled>()
        .all()
        .iter()
        .map(|e| e.span.unwrap())
        .collect();
    let chat_ids: Vec<[u8; 8]> = spans
        .iter()
        .filter(|s| s.name.starts_with("chat"))
        .map(|s| s.span_id)
        .collect();
    assert_eq!(
        called.iter().map(|c| c.span_id).collect::<Vec<_>>(),
        chat_ids
    );
    assert!(called.iter().all(|c| c.trace_id == parent.trace_id));
    // The run recorded its ids for a takeover.
    let started = session.slice::<wink_session::TraceStarted>().all();
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].span.span_id, run.span_id);
    assert_eq!(started[0].parent, Some(parent));
    let _ = LoopIntervention::new("x", "y");
}

#[test]
fn a_repaired_turn_is_an_intervention_of_the_run_and_its_text_is_content() {
    // The answer names the tool instead of calling it: the named-tool policy takes it back.
    let turns = json!([
        {"text": "You can call the `search` function with query login.", "usage": usage(80, 12, 0)},
        {"tool_calls": [{"id": "c1", "name": "search", "arguments": {"query": "login"}}], "usage": usage(90, 9, 64)},
        {"text": "Log in with the API key.", "usage": usage(120, 7, 80)}
    ]);
    let provider = ScriptedProvider::from_json(&turns.to_string(), "test").unwrap();
    let template = Arc::new(
        PromptTemplate::builder("demo", "repair")
            .section(MarkdownSection::new("Task", "task", "Answer with `search`.").tool(search()))
            .build()
            .unwrap(),
    );
    let session = Session::new();
    let collected = collect(&session, TraceOptions::default());
    let dir = std::env::temp_dir().join(format!("wink-trace-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("run.jsonl");
    let log_writer =
        wink_store::SessionLog::create(&log, &session, wink_store::FsyncPolicy::Never).unwrap();
    let config = MainLoopConfig {
        loop_config: LoopConfig {
            repairs: std::collections::BTreeMap::from([("named-tool".to_owned(), true)]),
            answer_tool: Some(false),
            ..LoopConfig::default()
        },
        ..MainLoopConfig::default()
    };
    let result = block_on(MainLoop::new(&provider, config).execute(
        &Prompt::new(template),
        &session,
        RunHooks::default(),
    ))
    .unwrap();
    assert_eq!(result.text(), Some("Log in with the API key."));
    drop(log_writer);
    drop(session);
    let live = sorted(collected.lock().unwrap().clone());
    let names: Vec<&str> = live.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "invoke_agent demo:repair",
            "chat script",
            "chat script",
            "execute_tool search",
            "chat script",
        ]
    );
    let repair = |spans: &[SpanRecord]| -> Vec<(String, Option<String>)> {
        let event = spans[0]
            .events
            .iter()
            .find(|e| e.name == "wink.intervention")
            .unwrap();
        [
            "wink.event.type",
            "wink.rule",
            "wink.action",
            "wink.tool",
            "wink.text",
        ]
        .iter()
        .map(|k| ((*k).to_owned(), event.attributes.str(k).map(str::to_owned)))
        .collect()
    };
    let fields = |text: Option<&str>| {
        vec![
            (
                "wink.event.type".to_owned(),
                Some("TurnRepaired".to_owned()),
            ),
            ("wink.rule".to_owned(), Some("named-tool".to_owned())),
            ("wink.action".to_owned(), Some("require_tool".to_owned())),
            ("wink.tool".to_owned(), Some("search".to_owned())),
            ("wink.text".to_owned(), text.map(str::to_owned)),
        ]
    };
    // Without the opt-in, what the model wrote stays out; with it, the taken-back text is there.
    assert_eq!(repair(&live), fields(None));
    let captured = sorted(
        wink_trace::read::from_session_log(
            &log,
            MapOptions {
                capture_content: true,
                ..MapOptions::default()
            },
        )
        .unwrap(),
    );
    assert_eq!(
        repair(&captured),
        fields(Some("You can call the `search` function with query login."))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
