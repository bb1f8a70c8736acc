//! Sub-agent dispatch (seed 002) against the scripted provider: snapshot parity, tool
//! propagation, isolation, structured output, failure reporting, concurrency, shared budgets,
//! panics and cancellation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wink_agent::*;
use wink_core::*;
use wink_session::{Event, Session, ToolInvoked};

// region: --- fixtures

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Note(String);
impl Event for Note {}

#[derive(Serialize, Deserialize, JsonSchema)]
struct NoteParams {
    text: String,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct WriteParams {
    file_path: String,
    content: String,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct ArtifactParams {
    artifact: String,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Findings {
    summary: String,
    artifacts: Vec<String>,
}

/// The "disk" the write_file test tool writes to, reached through the tool resources.
#[derive(Debug, Clone, Default)]
struct Files(Arc<Mutex<BTreeMap<String, String>>>);

fn workspace_section() -> SectionRef {
    let add_note =
        ToolBuilder::<NoteParams, String>::new("add_note", "Record a note in the session.")
            .handler(|p: NoteParams, ctx: &mut ToolContext| {
                ctx.session.dispatch(Note(p.text));
                Ok(ToolResult::message("Noted."))
            })
            .build()
            .unwrap();
    let count_notes = ToolBuilder::<(), String>::new("count_notes", "Count the session notes.")
        .handler(|(), ctx: &mut ToolContext| {
            let n = ctx.session.slice::<Note>().len();
            Ok(ToolResult::message(format!("{n} notes")))
        })
        .build()
        .unwrap();
    let write_file = ToolBuilder::<WriteParams, Value>::new("write_file", "Write a text file.")
        .handler(|p: WriteParams, ctx: &mut ToolContext| {
            let files = ctx.resource::<Files>().cloned().unwrap_or_default();
            files
                .0
                .lock()
                .unwrap()
                .insert(p.file_path.clone(), p.content);
            Ok(ToolResult::ok(
                format!("Wrote {}.", p.file_path),
                json!({"path": p.file_path}),
            )
            .excluding_value())
        })
        .build()
        .unwrap();
    let report =
        ToolBuilder::<ArtifactParams, String>::new("report_artifact", "Report an artifact.")
            .handler(|p: ArtifactParams, ctx: &mut ToolContext| {
                ctx.session.dispatch(SubagentArtifact::new(p.artifact));
                Ok(ToolResult::message("Reported."))
            })
            .build()
            .unwrap();
    let save = ToolBuilder::<WriteParams, String>::new("save", "Save a file in the workspace.")
        .handler(|p: WriteParams, ctx: &mut ToolContext| {
            let fs = ctx
                .filesystem()
                .cloned()
                .ok_or_else(|| ToolError::failed("no workspace"))?;
            fs.write(&p.file_path, &p.content, wink_fs::WriteMode::Overwrite)
                .map_err(|e| ToolError::failed(e.to_string()))?;
            Ok(ToolResult::message(format!("Saved {}.", p.file_path)))
        })
        .build()
        .unwrap();
    let crash = ToolBuilder::<(), String>::new("crash", "Fail fatally.")
        .handler(|(), _ctx: &mut ToolContext| Err(ToolError::Fatal("disk on fire".into())))
        .build()
        .unwrap();
    let explode = ToolBuilder::<(), String>::new("explode", "Panic.")
        .handler(|(), _ctx: &mut ToolContext| panic!("kaboom"))
        .build()
        .unwrap();
    Arc::new(
        MarkdownSection::new("Workspace", "workspace", "Use the workspace tools.").tools([
            add_note,
            count_notes,
            write_file,
            save,
            report,
            crash,
            explode,
        ]),
    )
}

struct Fixture {
    registry: PromptRegistry,
    subagents: PromptSubagentToolsSection,
    parent: Arc<PromptTemplate>,
}

fn registry() -> PromptRegistry {
    let registry = PromptRegistry::new();
    registry
        .register(
            PromptTemplate::builder("research", "investigate")
                .name("Investigate a question")
                .section(MarkdownSection::new(
                    "Role",
                    "role",
                    "You investigate one question.",
                ))
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
        .register(
            PromptTemplate::builder("research", "structured")
                .section(MarkdownSection::new(
                    "Role",
                    "role",
                    "Report findings as JSON.",
                ))
                .output_object::<Findings>(false)
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
}

fn fixture_with(
    configure: impl FnOnce(PromptSubagentToolsSectionBuilder) -> PromptSubagentToolsSectionBuilder,
) -> Fixture {
    let registry = registry();
    let workspace = workspace_section();
    let subagents = configure(
        PromptSubagentToolsSection::builder(registry.clone()).tool_suite([workspace.clone()]),
    )
    .build()
    .unwrap();
    let parent = Arc::new(
        PromptTemplate::builder("demo", "root")
            .section(MarkdownSection::new(
                "Task",
                "task",
                "Plan the work and delegate.",
            ))
            .section_ref(workspace)
            .section(subagents.clone())
            .build()
            .unwrap(),
    );
    Fixture {
        registry,
        subagents,
        parent,
    }
}

fn fixture() -> Fixture {
    fixture_with(|b| b)
}

fn scripted(turns: Value) -> Arc<ScriptedProvider> {
    Arc::new(ScriptedProvider::from_json(&turns.to_string(), "test").unwrap())
}

fn dispatch_args(prompt_key: &str, instructions: &str) -> Value {
    json!({"mode": "ad_hoc", "prompt_ns": "research", "prompt_key": prompt_key, "instructions": instructions})
}

fn resources(
    adapter: Arc<dyn ProviderAdapter>,
    tracker: &BudgetTracker,
    files: &Files,
) -> Resources {
    Resources::new()
        .with(adapter)
        .with(tracker.clone())
        .with(files.clone())
}

/// Run the parent prompt with `adapter` serving every model call and a shared budget.
fn run_parent(
    fixture: &Fixture,
    adapter: Arc<dyn ProviderAdapter>,
    session: &Session,
    budget: Budget,
    files: &Files,
) -> RunResult {
    let tracker = BudgetTracker::new(budget);
    let config = MainLoopConfig {
        resources: resources(adapter.clone(), &tracker, files),
        budget,
        ..MainLoopConfig::default()
    };
    block_on(MainLoop::new(adapter.as_ref(), config).execute_with(
        &Prompt::new(fixture.parent.clone()),
        session,
        tracker,
        RunHooks::default(),
    ))
    .unwrap()
}

/// Every `SubagentRun` dispatched into `session`, captured from its bus (survives rollbacks).
fn record_runs(session: &Session) -> Arc<Mutex<Vec<SubagentRun>>> {
    let runs = Arc::new(Mutex::new(Vec::new()));
    let sink = runs.clone();
    session.bus().subscribe::<SubagentRun>(move |run| {
        sink.lock().unwrap().push(run.clone());
        Ok(())
    });
    runs
}

/// Execute one `dispatch_subagent` call through the transactional executor, as the loop does.
fn execute_call(
    fixture: &Fixture,
    session: &Session,
    resources: Resources,
    args: Value,
) -> ToolInvoked {
    let rendered = Prompt::new(fixture.parent.clone())
        .render_with(session)
        .unwrap();
    let executor = ToolExecutor {
        session: session.clone(),
        resources,
        deadline: None,
        adapter: "scripted".into(),
        prompt_name: "demo:root".into(),
    };
    let call = ToolCall {
        id: "call_1".into(),
        name: DISPATCH_SUBAGENT.into(),
        arguments: ToolArguments::Json(args),
    };
    let outcome = block_on(executor.execute(&call, &rendered.tools, Some(&rendered))).unwrap();
    assert!(matches!(outcome, CallOutcome::Completed(_)));
    session.slice::<ToolInvoked>().latest().unwrap().clone()
}

type SlicesJson = BTreeMap<&'static str, Vec<Value>>;

fn state_without_telemetry(session: &Session) -> SlicesJson {
    let mut slices = session.slices_json().unwrap();
    slices.remove("ToolInvoked");
    slices.remove("SubagentRun");
    slices
}

fn tool_messages(request: &ModelRequest) -> Vec<(String, String, bool)> {
    request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                name,
                content,
                is_error,
                ..
            } => Some((name.clone(), content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

fn user_message(request: &ModelRequest) -> Option<String> {
    request.messages.iter().find_map(|m| match m {
        Message::User { content } => Some(content.clone()),
        _ => None,
    })
}

/// Holds a token inside a subscription on the child's bus: that clone is released only when the
/// child session (and its bus) is gone. The hook itself holds one more clone for its lifetime.
fn watch_child(
    token: &Arc<()>,
) -> impl Fn(&Session, &wink_session::Snapshot) -> Result<(), String> + Send + Sync + 'static {
    let token = token.clone();
    move |child: &Session, _: &wink_session::Snapshot| {
        let held = token.clone();
        child.bus().subscribe::<Note>(move |_| {
            let _ = &held;
            Ok(())
        });
        Ok(())
    }
}

// endregion: --- fixtures

// region: --- seed 002 checklist

#[test]
fn snapshot_parity_child_starts_from_the_parent_snapshot() {
    let captured: Arc<Mutex<Vec<SlicesJson>>> = Arc::default();
    let session = Session::new();
    session.dispatch(Note("first".into()));
    session.dispatch(Note("second".into()));
    let (sink, parent) = (captured.clone(), session.clone());
    let fixture = fixture_with(move |b| {
        b.hydrate(move |child: &Session, snapshot: &wink_session::Snapshot| {
            let mut c = sink.lock().unwrap();
            c.push(parent.slices_json().unwrap());
            c.push(snapshot.slices_json().unwrap());
            c.push(child.slices_json().unwrap());
            Ok::<(), String>(())
        })
    });
    let provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Count the notes.")}]},
        {"tool_calls": [{"id": "k1", "name": "count_notes", "arguments": {}}]},
        {"text": "There are 2 notes."},
        {"text": "Done."}
    ]));
    run_parent(
        &fixture,
        provider.clone(),
        &session,
        Budget::default(),
        &Files::default(),
    );

    let captured = captured.lock().unwrap();
    let (parent_at_dispatch, snapshot, child) = (&captured[0], &captured[1], &captured[2]);
    assert_eq!(child, parent_at_dispatch);
    assert_eq!(child, snapshot);
    assert_eq!(child["Note"], [json!("first"), json!("second")]);
    // A child tool sees the same state.
    let requests = provider.requests();
    assert_eq!(
        tool_messages(&requests[2]),
        [("count_notes".to_owned(), "2 notes".to_owned(), false)]
    );
}

#[test]
fn tool_propagation_child_is_offered_the_parent_tool_definitions() {
    let fixture = fixture();
    let provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Write a note.")}]},
        {"tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"file_path": "a.md", "content": "x"}}]},
        {"text": "Wrote a.md."},
        {"text": "Done."}
    ]));
    let files = Files::default();
    run_parent(
        &fixture,
        provider.clone(),
        &Session::new(),
        Budget::default(),
        &files,
    );
    let requests = provider.requests();
    let parent_tools: Vec<ToolSpec> = requests[0]
        .tools
        .iter()
        .filter(|t| t.name != DISPATCH_SUBAGENT)
        .cloned()
        .collect();
    assert_eq!(requests[0].tools.len(), parent_tools.len() + 1);
    assert_eq!(requests[1].tools, parent_tools);
    // Invocable without any extra registration, with the parent's resources.
    assert_eq!(
        tool_messages(&requests[2]),
        [("write_file".to_owned(), "Wrote a.md.".to_owned(), false)]
    );
    assert_eq!(files.0.lock().unwrap()["a.md"], "x");
}

#[test]
fn nested_dispatch_is_offered_below_the_depth_limit() {
    let fixture = fixture_with(|b| b.max_depth(2));
    let provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Delegate further.")}]},
        {"tool_calls": [{"id": "d2", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Dig deep.")}]},
        {"text": "Grandchild result."},
        {"text": "Child result."},
        {"text": "Done."}
    ]));
    let session = Session::new();
    let run = run_parent(
        &fixture,
        provider.clone(),
        &session,
        Budget::default(),
        &Files::default(),
    );
    assert_eq!(
        run.outcome,
        LoopOutcome::Finished {
            text: Some("Done.".into()),
            output: None
        }
    );
    let requests = provider.requests();
    let names = |r: &ModelRequest| r.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    // The child (depth 1) gets exactly the parent's tools, dispatch_subagent included.
    assert_eq!(requests[1].tools, requests[0].tools);
    // The grandchild (depth 2) is at the limit: no dispatch_subagent.
    assert!(!names(&requests[2]).contains(&DISPATCH_SUBAGENT.to_owned()));
    assert_eq!(names(&requests[2]).len(), names(&requests[0]).len() - 1);
    assert_eq!(
        tool_messages(&requests[3]),
        [(
            "dispatch_subagent".to_owned(),
            "Grandchild result.".to_owned(),
            false
        )]
    );
    let runs = session.slice::<SubagentRun>().all();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].tools_used, ["dispatch_subagent"]);
    assert_eq!(runs[0].message_summary.as_deref(), Some("Child result."));
}

#[test]
fn isolation_child_state_stays_in_the_child_and_the_child_is_dropped() {
    let token = Arc::new(());
    let watcher = watch_child(&token);
    let fixture = fixture_with(move |b| b.hydrate(watcher));
    let baseline = Arc::strong_count(&token);
    let session = Session::new();
    session.dispatch(Note("parent".into()));
    let provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Take a note.")}]},
        {"tool_calls": [{"id": "n1", "name": "add_note", "arguments": {"text": "child"}}]},
        {"text": "Noted it."},
        {"text": "Done."}
    ]));
    run_parent(
        &fixture,
        provider.clone(),
        &session,
        Budget::default(),
        &Files::default(),
    );

    // The child's note never reached the parent.
    assert_eq!(session.slice::<Note>().all(), [Note("parent".into())]);
    // The child session is gone: its bus (and the subscription holding the token) was dropped.
    assert_eq!(Arc::strong_count(&token), baseline);
    let runs = session.slice::<SubagentRun>().all();
    let child_id = runs[0].child_session_id.unwrap();
    assert_eq!(session.children_ids(), [child_id]);
    // The parent conversation holds only the summary, not the child's turns.
    let requests = provider.requests();
    let last = requests.last().unwrap();
    assert_eq!(last.messages.len(), 3);
    assert_eq!(
        tool_messages(last),
        [(
            "dispatch_subagent".to_owned(),
            "Noted it.\n\nTools used: add_note".to_owned(),
            false
        )]
    );
    let transcript = serde_json::to_string(&last.messages).unwrap();
    assert!(!transcript.contains("You investigate one question."));
    assert!(!transcript.contains("Noted."));
}

#[test]
fn structured_output_produces_summary_artifacts_and_tools_used() {
    let fixture = fixture();
    let session = Session::new();
    let files = Files::default();
    let provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": {
            "mode": "plan_step", "plan_step_id": "step-2", "prompt_ns": "research", "prompt_key": "structured",
            "instructions": "  Document the API.  ", "expected_artifacts": ["docs/api.md"], "snapshot_version": "1"}}]},
        {"tool_calls": [
            {"id": "w1", "name": "write_file", "arguments": {"file_path": "docs/api.md", "content": "# API"}},
            {"id": "r1", "name": "report_artifact", "arguments": {"artifact": "https://example.com/spec"}}
        ], "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 0}},
        {"output": {"summary": "Documented the API.", "artifacts": ["docs/api.md", "ticket-7"]},
         "usage": {"input_tokens": 120, "output_tokens": 20, "cached_tokens": 5}},
        {"text": "Done."}
    ]));
    run_parent(
        &fixture,
        provider.clone(),
        &session,
        Budget::default(),
        &files,
    );

    let requests = provider.requests();
    // The child got the instructions, plan step and expected artifacts as its task message.
    let task = user_message(&requests[1]).unwrap();
    assert!(task.starts_with(
        "Task from the parent agent (plan step step-2):\n\nDocument the API.\n\nExpected artifacts:\n- docs/api.md\n\n"
    ));
    // The parent's record of the call: message restates the summary, payload is the result.
    let invoked = session
        .slice::<ToolInvoked>()
        .iter()
        .find(|t| t.name == DISPATCH_SUBAGENT)
        .unwrap()
        .clone();
    let result: DispatchSubagentResult =
        serde_json::from_value(invoked.value.clone().unwrap()).unwrap();
    assert_eq!(invoked.message, result.message_summary);
    assert_eq!(
        result,
        DispatchSubagentResult {
            prompt_ns: "research".into(),
            prompt_key: "structured".into(),
            message_summary: "Documented the API.".into(),
            artifacts: vec![
                "docs/api.md".into(),
                "https://example.com/spec".into(),
                "ticket-7".into()
            ],
            tools_used: vec!["write_file".into(), "report_artifact".into()],
            output: Some(
                json!({"summary": "Documented the API.", "artifacts": ["docs/api.md", "ticket-7"]})
            ),
        }
    );
    assert_eq!(
        tool_messages(&requests[3]),
        [(
            "dispatch_subagent".to_owned(),
            "Documented the API.\n\nOutput: {\"summary\": \"Documented the API.\", \"artifacts\": [\"docs/api.md\", \"ticket-7\"]}\nArtifacts: docs/api.md, https://example.com/spec, ticket-7\nTools used: write_file, report_artifact".to_owned(),
            false
        )]
    );
    // The summarised record in the parent session.
    let run = session.slice::<SubagentRun>().all().remove(0);
    assert_eq!(run.session_id, session.id());
    assert_eq!(run.call_id.as_deref(), Some("d1"));
    assert_eq!(
        (run.prompt_ns.as_str(), run.prompt_key.as_str()),
        ("research", "structured")
    );
    assert_eq!(run.mode, SubagentMode::PlanStep);
    assert_eq!(run.plan_step_id.as_deref(), Some("step-2"));
    assert_eq!(run.instructions, "Document the API.");
    assert_eq!(run.message_summary.as_deref(), Some("Documented the API."));
    assert_eq!(run.tools_used, result.tools_used);
    assert_eq!(run.artifacts, result.artifacts);
    assert_eq!((run.model_calls, run.tool_calls), (2, 2));
    assert_eq!(
        run.usage,
        wink_session::TokenUsage {
            input_tokens: 220,
            output_tokens: 30,
            cached_tokens: 5
        }
    );
    assert_eq!(run.outcome, SubagentOutcome::Completed);
    assert_eq!(files.0.lock().unwrap()["docs/api.md"], "# API");
}

#[test]
fn the_child_task_message_carries_the_parent_snapshot_summary() {
    let fixture = fixture();
    let session = Session::new();
    session.dispatch(Note("first".into()));
    session.dispatch(Note("second".into()));
    let provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Count the notes.")}]},
        {"text": "There are 2 notes."},
        {"text": "Done."}
    ]));
    run_parent(
        &fixture,
        provider.clone(),
        &session,
        Budget::default(),
        &Files::default(),
    );
    // Seed 002: the instructions, plan metadata and snapshot summary reach the child.
    assert_eq!(
        user_message(&provider.requests()[1]).unwrap(),
        "Task from the parent agent:\n\nCount the notes.\n\n\
         Session state you start from (a copy of the parent's, snapshot version 1): Note (2 items).\n\n\
         You are a subagent working in a copy of the parent agent's session: state changes you make \
         stay in this run, and the parent does not see this conversation. When you are done, reply \
         with a concise summary of what you did and found; the parent receives only that summary, \
         the artifacts you produced and the names of the tools you used."
    );
}

/// A journal keeping `(type name, event JSON)` in memory: the parent's session log.
#[derive(Default)]
struct MemoryJournal(Mutex<Vec<(String, Value)>>);

impl wink_session::Journal for MemoryJournal {
    fn append(
        &self,
        type_name: &str,
        payload: &dyn wink_session::ErasedEvent,
    ) -> Result<(), wink_session::JournalError> {
        let json = payload.to_json().map_err(wink_session::JournalError::new)?;
        self.0.lock().unwrap().push((type_name.to_owned(), json));
        Ok(())
    }
}

#[test]
fn the_child_publishes_its_telemetry_on_the_parent_bus_tagged_with_its_run_id() {
    let fixture = fixture();
    let session = Session::new();
    let journal = Arc::new(MemoryJournal::default());
    session.attach_journal(journal.clone()).unwrap();
    let seen: Arc<Mutex<Vec<SubagentEvent>>> = Arc::default();
    let sink = seen.clone();
    session.bus().subscribe::<SubagentEvent>(move |event| {
        sink.lock().unwrap().push(event.clone());
        Ok(())
    });
    let provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Note it.")}]},
        {"tool_calls": [{"id": "n1", "name": "add_note", "arguments": {"text": "child"}}]},
        {"text": "Noted."},
        {"text": "Done."}
    ]));
    run_parent(
        &fixture,
        provider,
        &session,
        Budget::default(),
        &Files::default(),
    );
    let run = session.slice::<SubagentRun>().all().remove(0);
    let run_id = run.child_session_id.unwrap();
    let seen = seen.lock().unwrap().clone();
    // Everything the child dispatched, in order, on the parent's bus.
    let types: Vec<&str> = seen.iter().map(|e| e.event_type.as_str()).collect();
    assert_eq!(
        types,
        [
            "PromptRendered",
            "ModelCalled",
            "Note",
            "ToolInvoked",
            "ModelCalled",
            "PromptExecuted"
        ],
        "{seen:#?}"
    );
    for event in &seen {
        assert_eq!(event.run_id, run_id);
        assert_eq!(event.parent_session_id, session.id());
        assert_eq!(event.call_id.as_deref(), Some("d1"));
        assert_eq!(
            (
                event.prompt_ns.as_str(),
                event.prompt_key.as_str(),
                event.depth
            ),
            ("research", "investigate", 1)
        );
    }
    assert_eq!(seen[2].event, json!("child"));
    assert_eq!(seen[3].event["name"], "add_note");
    assert_eq!(seen[3].event["session_id"], json!(run_id));
    // The same records are in the parent's session log, before the run's summary record.
    let log = journal.0.lock().unwrap().clone();
    let logged: Vec<&Value> = log
        .iter()
        .filter(|(t, _)| t == "SubagentEvent")
        .map(|(_, e)| e)
        .collect();
    assert_eq!(logged.len(), seen.len());
    assert!(logged.iter().all(|e| e["run_id"] == json!(run_id)));
    let position = |name: &str| log.iter().position(|(t, _)| t == name).unwrap();
    assert!(position("SubagentEvent") < position("SubagentRun"));
    // The child's state stayed in the child.
    assert!(session.slice::<Note>().is_empty());
}

#[test]
fn nested_runs_keep_their_own_run_id_on_the_root_bus() {
    let fixture = fixture_with(|b| b.max_depth(2));
    let session = Session::new();
    let provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Delegate further.")}]},
        {"tool_calls": [{"id": "d2", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Dig deep.")}]},
        {"text": "Grandchild result."},
        {"text": "Child result."},
        {"text": "Done."}
    ]));
    run_parent(
        &fixture,
        provider,
        &session,
        Budget::default(),
        &Files::default(),
    );
    let events = session.slice::<SubagentEvent>().all();
    let child = session.slice::<SubagentRun>().all().remove(0);
    let child_id = child.child_session_id.unwrap();
    let grandchild: Vec<&SubagentEvent> = events.iter().filter(|e| e.depth == 2).collect();
    assert!(!grandchild.is_empty());
    let grandchild_id = grandchild[0].run_id;
    assert_ne!(grandchild_id, child_id);
    assert!(grandchild.iter().all(|e| e.run_id == grandchild_id
        && e.call_id.as_deref() == Some("d2")
        && e.parent_session_id == child_id));
    // The child's own record of the nested run reaches the root, tagged with the child's id.
    let nested_run = events
        .iter()
        .find(|e| e.event_type == "SubagentRun")
        .unwrap();
    assert_eq!(nested_run.run_id, child_id);
    assert_eq!(nested_run.event["child_session_id"], json!(grandchild_id));
}

// endregion: --- seed 002 checklist

// region: --- failure reporting

struct FailureCase {
    invoked: ToolInvoked,
    runs: Vec<SubagentRun>,
}

/// Run one dispatch through the executor and check the parent session ends untouched.
fn failing_dispatch(fixture: &Fixture, resources: Resources, args: Value) -> FailureCase {
    let session = Session::new();
    session.dispatch(Note("parent".into()));
    let runs = record_runs(&session);
    let before = state_without_telemetry(&session);
    let invoked = execute_call(fixture, &session, resources, args);
    assert_eq!(
        state_without_telemetry(&session),
        before,
        "the parent session changed"
    );
    assert!(!invoked.success);
    assert_eq!(invoked.value, None, "a failed dispatch carries no payload");
    let runs = runs.lock().unwrap().clone();
    FailureCase { invoked, runs }
}

fn adapter_resources(provider: &Arc<ScriptedProvider>) -> Resources {
    let adapter: Arc<dyn ProviderAdapter> = provider.clone();
    Resources::new()
        .with(adapter)
        .with(BudgetTracker::default())
}

#[test]
fn unknown_or_disabled_prompts_are_validation_errors() {
    let fixture = fixture();
    let provider = scripted(json!([{"text": "Child done."}]));
    let case = failing_dispatch(
        &fixture,
        adapter_resources(&provider),
        dispatch_args("missing", "Go."),
    );
    assert_eq!(
        case.invoked.message,
        "Tool validation failed: Unknown subagent prompt 'research:missing'. Enabled prompts: 'research:investigate', 'research:structured'."
    );
    assert!(case.runs.is_empty());

    fixture.registry.disable("research", "investigate").unwrap();
    let case = failing_dispatch(
        &fixture,
        adapter_resources(&provider),
        dispatch_args("investigate", "Go."),
    );
    assert_eq!(
        case.invoked.message,
        "Tool validation failed: Subagent prompt 'research:investigate' is disabled. Enabled prompts: 'research:structured'."
    );
    assert_eq!(provider.requests().len(), 0);

    fixture.registry.enable("research", "investigate").unwrap();
    let session = Session::new();
    let invoked = execute_call(
        &fixture,
        &session,
        adapter_resources(&provider),
        dispatch_args("investigate", "Go."),
    );
    assert!(invoked.success);
    assert_eq!(invoked.message, "Child done.");
}

#[test]
fn invalid_arguments_are_validation_errors() {
    let fixture = fixture();
    let provider = scripted(json!([]));
    let cases = [
        (
            json!({"mode": "plan_step", "prompt_ns": "research", "prompt_key": "investigate", "instructions": "Go."}),
            "Tool validation failed: plan_step_id is required when mode is \"plan_step\".",
        ),
        (
            dispatch_args("investigate", "  \n "),
            "Tool validation failed: instructions must not be empty.",
        ),
        (
            dispatch_args("investigate", &"x".repeat(2001)),
            "Tool validation failed: instructions must be at most 2000 characters after trimming (got 2001).",
        ),
        (
            dispatch_args("investigate", "na\u{ef}ve"),
            "Tool validation failed: instructions must be ASCII text (non-ASCII character at position 2).",
        ),
        (
            json!({"mode": "ad_hoc", "prompt_ns": "research", "prompt_key": "investigate", "instructions": "Go.",
                "expected_artifacts": ["ok", "y".repeat(161)]}),
            "Tool validation failed: expected_artifacts[1] must be at most 160 characters (got 161).",
        ),
        (
            json!({"mode": "ad_hoc", "prompt_ns": "research", "prompt_key": "investigate", "instructions": "Go.",
                "snapshot_version": "2"}),
            "Tool validation failed: snapshot_version \"2\" is not compatible with this session (snapshot version \"1\").",
        ),
    ];
    for (args, expected) in cases {
        let case = failing_dispatch(&fixture, adapter_resources(&provider), args);
        assert_eq!(case.invoked.message, expected);
        assert!(case.runs.is_empty());
    }
    assert_eq!(provider.requests().len(), 0);
}

#[test]
fn instructions_of_exactly_2000_characters_after_trimming_are_accepted() {
    let fixture = fixture();
    let provider = scripted(json!([{"text": "Long task done."}]));
    let session = Session::new();
    let instructions = format!("  {}\n", "a".repeat(2000));
    let invoked = execute_call(
        &fixture,
        &session,
        adapter_resources(&provider),
        dispatch_args("investigate", &instructions),
    );
    assert_eq!(invoked.message, "Long task done.");
}

#[test]
fn prompt_lookup_failure_is_a_concise_failed_result() {
    let fixture = fixture();
    fixture
        .registry
        .register_factory(
            "research",
            "broken",
            "Always fails",
            |_: &DispatchSubagent| Err(PromptError::validation("the brief template is missing")),
        )
        .unwrap();
    let provider = scripted(json!([]));
    let case = failing_dispatch(
        &fixture,
        adapter_resources(&provider),
        dispatch_args("broken", "Go."),
    );
    assert_eq!(
        case.invoked.message,
        "Subagent prompt 'research:broken' could not be loaded: the brief template is missing"
    );
    assert_eq!(case.runs.len(), 1);
    assert_eq!(case.runs[0].child_session_id, None);
    assert_eq!(
        case.runs[0].outcome,
        SubagentOutcome::Failed {
            message: "Subagent prompt 'research:broken' could not be loaded: the brief template is missing".into()
        }
    );
    assert_eq!(provider.requests().len(), 0);
}

#[test]
fn snapshot_hydration_failure_is_a_concise_failed_result() {
    let fixture = fixture_with(|b| {
        b.hydrate(|_: &Session, _: &wink_session::Snapshot| {
            Err("metrics slice does not match the snapshot")
        })
    });
    let provider = scripted(json!([]));
    let case = failing_dispatch(
        &fixture,
        adapter_resources(&provider),
        dispatch_args("investigate", "Go."),
    );
    assert_eq!(
        case.invoked.message,
        "Subagent session could not be hydrated from the parent snapshot: metrics slice does not match the snapshot"
    );
    assert!(matches!(
        case.runs[0].outcome,
        SubagentOutcome::Failed { .. }
    ));
    assert_eq!(provider.requests().len(), 0);
}

#[test]
fn missing_adapter_is_a_concise_failed_result() {
    let fixture = fixture();
    let case = failing_dispatch(
        &fixture,
        Resources::new(),
        dispatch_args("investigate", "Go."),
    );
    assert_eq!(
        case.invoked.message,
        "Subagent dispatch is not configured: the tool resources hold no provider adapter (add an Arc<dyn ProviderAdapter> or a SubagentAdapter)."
    );
}

#[test]
fn model_errors_abort_the_run() {
    let fixture = fixture();
    let provider = scripted(
        json!([{"tool_calls": [{"id": "n1", "name": "add_note", "arguments": {"text": "lost"}}]}]),
    );
    let case = failing_dispatch(
        &fixture,
        adapter_resources(&provider),
        dispatch_args("investigate", "Go."),
    );
    assert_eq!(
        case.invoked.message,
        "Subagent run aborted: the model call failed: the script has no turn 2 (it has 1 turns)"
    );
    let run = &case.runs[0];
    assert!(run.child_session_id.is_some());
    assert_eq!(run.tools_used, ["add_note"]);
    assert_eq!(run.model_calls, 2);
    assert_eq!(
        run.outcome,
        SubagentOutcome::Aborted {
            message: "the model call failed: the script has no turn 2 (it has 1 turns)".into()
        }
    );
}

#[test]
fn fatal_tool_errors_abort_the_run() {
    let fixture = fixture();
    let provider = scripted(json!([
        {"tool_calls": [{"id": "n1", "name": "add_note", "arguments": {"text": "lost"}}]},
        {"tool_calls": [{"id": "c1", "name": "crash", "arguments": {}}]}
    ]));
    let case = failing_dispatch(
        &fixture,
        adapter_resources(&provider),
        dispatch_args("investigate", "Go."),
    );
    assert_eq!(
        case.invoked.message,
        "Subagent run aborted: a tool failed: disk on fire"
    );
    assert_eq!(case.runs[0].tools_used, ["add_note"]);
}

#[test]
fn a_panic_inside_a_child_tool_is_caught_and_the_child_dropped() {
    let token = Arc::new(());
    let watcher = watch_child(&token);
    let fixture = fixture_with(move |b| b.hydrate(watcher));
    let baseline = Arc::strong_count(&token);
    let provider = scripted(json!([
        {"tool_calls": [{"id": "n1", "name": "add_note", "arguments": {"text": "lost"}}]},
        {"tool_calls": [{"id": "e1", "name": "explode", "arguments": {}}]}
    ]));
    let case = failing_dispatch(
        &fixture,
        adapter_resources(&provider),
        dispatch_args("investigate", "Go."),
    );
    assert_eq!(
        case.invoked.message,
        "Subagent run aborted: the subagent panicked: kaboom"
    );
    assert_eq!(
        case.runs[0].outcome,
        SubagentOutcome::Aborted {
            message: "the subagent panicked: kaboom".into()
        }
    );
    assert_eq!(Arc::strong_count(&token), baseline);
}

#[test]
fn a_panic_inside_a_child_tool_does_not_end_the_parent_run() {
    let fixture = fixture();
    let session = Session::new();
    let provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Explode.")}]},
        {"tool_calls": [{"id": "e1", "name": "explode", "arguments": {}}]},
        {"text": "The subagent failed; I will do it myself."}
    ]));
    let run = run_parent(
        &fixture,
        provider.clone(),
        &session,
        Budget::default(),
        &Files::default(),
    );
    assert_eq!(
        run.outcome,
        LoopOutcome::Finished {
            text: Some("The subagent failed; I will do it myself.".into()),
            output: None
        }
    );
    assert_eq!(
        tool_messages(&provider.requests()[2]),
        [(
            "dispatch_subagent".to_owned(),
            "Subagent run aborted: the subagent panicked: kaboom".to_owned(),
            true
        )]
    );
}

// endregion: --- failure reporting

// region: --- concurrency, budgets, cancellation, adapters

/// Yields once before answering, so concurrent calls overlap; tracks the most calls in flight.
#[derive(Debug)]
struct GateAdapter {
    script: ScriptedProvider,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

struct YieldOnce(bool);
impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

impl ProviderAdapter for GateAdapter {
    fn name(&self) -> &str {
        "gate"
    }
    fn model(&self) -> &str {
        "gate"
    }
    fn supports_dynamic_tools(&self) -> bool {
        true
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let turn = self.script.complete(request, stream);
        Box::pin(async move {
            YieldOnce(false).await;
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            turn.await
        })
    }
}

#[test]
fn two_dispatches_in_one_turn_run_concurrently_and_in_isolation() {
    let fixture = fixture();
    let session = Session::new();
    let gate = Arc::new(GateAdapter {
        script: ScriptedProvider::from_json(
            &json!([
                {"tool_calls": [
                    {"id": "a", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Task A.")},
                    {"id": "b", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Task B.")}
                ]},
                {"tool_calls": [{"id": "n1", "name": "add_note", "arguments": {"text": "from A"}}]},
                {"tool_calls": [{"id": "k1", "name": "count_notes", "arguments": {}}]},
                {"text": "A done."},
                {"text": "B saw 0 notes."},
                {"text": "Both done."}
            ])
            .to_string(),
            "gate",
        )
        .unwrap(),
        in_flight: AtomicUsize::new(0),
        max_in_flight: AtomicUsize::new(0),
    });
    let run = run_parent(
        &fixture,
        gate.clone(),
        &session,
        Budget::default(),
        &Files::default(),
    );
    assert_eq!(
        run.outcome,
        LoopOutcome::Finished {
            text: Some("Both done.".into()),
            output: None
        }
    );
    assert_eq!(gate.max_in_flight.load(Ordering::SeqCst), 2);
    let requests = gate.script.requests();
    // B counted notes while A had already added one in its own child: B saw none.
    assert_eq!(
        tool_messages(&requests[4]),
        [("count_notes".to_owned(), "0 notes".to_owned(), false)]
    );
    assert_eq!(
        tool_messages(requests.last().unwrap()),
        [
            (
                "dispatch_subagent".to_owned(),
                "A done.\n\nTools used: add_note".to_owned(),
                false
            ),
            (
                "dispatch_subagent".to_owned(),
                "B saw 0 notes.\n\nTools used: count_notes".to_owned(),
                false
            ),
        ]
    );
    assert!(session.slice::<Note>().is_empty());
    let runs = session.slice::<SubagentRun>().all();
    assert_eq!(runs.len(), 2);
    assert_ne!(runs[0].child_session_id, runs[1].child_session_id);
}

#[test]
fn a_shared_budget_caps_every_child_and_the_parent() {
    let fixture = fixture();
    let session = Session::new();
    let runs = record_runs(&session);
    let provider = scripted(json!([
        {"tool_calls": [
            {"id": "a", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Task A.")},
            {"id": "b", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Task B.")}
        ]},
        {"text": "A done."},
        {"tool_calls": [{"id": "n1", "name": "add_note", "arguments": {"text": "from B"}}]},
        {"text": "never reached"}
    ]));
    let budget = Budget {
        max_model_calls: Some(3),
        ..Budget::default()
    };
    let run = run_parent(
        &fixture,
        provider.clone(),
        &session,
        budget,
        &Files::default(),
    );
    assert_eq!(
        run.outcome,
        LoopOutcome::BudgetExceeded {
            limit: BudgetLimit::ModelCalls
        }
    );
    assert_eq!(run.spent.model_calls, 3);
    assert_eq!(provider.requests().len(), 3);
    let runs = runs.lock().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].outcome, SubagentOutcome::Completed);
    assert_eq!(
        runs[1].outcome,
        SubagentOutcome::Aborted {
            message: "the budget ran out (max model calls)".into()
        }
    );
    // Both runs are on record (telemetry survives a failed call); the failed one's other
    // changes were undone.
    assert_eq!(session.slice::<SubagentRun>().len(), 2);
}

/// Never answers.
#[derive(Debug)]
struct PendingAdapter;
impl ProviderAdapter for PendingAdapter {
    fn name(&self) -> &str {
        "pending"
    }
    fn model(&self) -> &str {
        "pending"
    }
    fn complete<'a>(
        &'a self,
        _request: &'a ModelRequest,
        _stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        Box::pin(std::future::pending())
    }
}

#[test]
fn dropping_the_call_tears_the_child_down_and_records_a_cancellation() {
    let token = Arc::new(());
    let watcher = watch_child(&token);
    let fixture = fixture_with(move |b| b.hydrate(watcher));
    let baseline = Arc::strong_count(&token);
    let session = Session::new();
    session.dispatch(Note("parent".into()));
    let adapter: Arc<dyn ProviderAdapter> = Arc::new(PendingAdapter);
    let mut ctx = ToolContext::new(session.clone());
    ctx.resources = Resources::new().with(adapter);
    ctx.call_id = Some("c9".into());
    {
        let mut call = Box::pin(fixture.subagents.dispatch(
            DispatchSubagent::ad_hoc("research", "investigate", "Wait forever."),
            &ctx,
        ));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(call.as_mut().poll(&mut cx).is_pending());
        assert_eq!(
            Arc::strong_count(&token),
            baseline + 1,
            "the child is running"
        );
    }
    assert_eq!(
        Arc::strong_count(&token),
        baseline,
        "the child was dropped with the call"
    );
    let runs = session.slice::<SubagentRun>().all();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].outcome, SubagentOutcome::Cancelled);
    assert_eq!(runs[0].call_id.as_deref(), Some("c9"));
    assert!(runs[0].child_session_id.is_some());
    assert_eq!(session.slice::<Note>().all(), [Note("parent".into())]);
}

#[test]
fn a_subagent_adapter_resource_serves_the_children() {
    let fixture = fixture();
    let parent_provider = scripted(json!([
        {"tool_calls": [{"id": "d1", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Go.")}]},
        {"text": "Done."}
    ]));
    let child_provider = scripted(json!([{"text": "Child answer."}]));
    let tracker = BudgetTracker::default();
    let parent_adapter: Arc<dyn ProviderAdapter> = parent_provider.clone();
    let config = MainLoopConfig {
        resources: Resources::new()
            .with(parent_adapter)
            .with(SubagentAdapter(child_provider.clone()))
            .with(tracker.clone()),
        ..MainLoopConfig::default()
    };
    let run = block_on(
        MainLoop::new(parent_provider.as_ref(), config).execute_with(
            &Prompt::new(fixture.parent.clone()),
            &Session::new(),
            tracker.clone(),
            RunHooks::default(),
        ),
    )
    .unwrap();
    assert_eq!(
        run.outcome,
        LoopOutcome::Finished {
            text: Some("Done.".into()),
            output: None
        }
    );
    assert_eq!(parent_provider.requests().len(), 2);
    assert_eq!(child_provider.requests().len(), 1);
    assert_eq!(
        tool_messages(&parent_provider.requests()[1]),
        [(
            "dispatch_subagent".to_owned(),
            "Child answer.".to_owned(),
            false
        )]
    );
    // Both adapters spent from the one shared budget.
    assert_eq!(tracker.spent().model_calls, 3);
}

#[test]
fn direct_dispatch_leaves_the_parent_untouched_but_for_the_record() {
    let fixture = fixture();
    let session = Session::new();
    session.dispatch(Note("parent".into()));
    let before = session.slices_json().unwrap();
    let provider = scripted(json!([
        {"tool_calls": [{"id": "n1", "name": "add_note", "arguments": {"text": "child"}}]},
        {"text": "ok"}
    ]));
    let mut ctx = ToolContext::new(session.clone());
    ctx.resources = adapter_resources(&provider);
    let result = block_on(fixture.subagents.dispatch(
        DispatchSubagent::ad_hoc("research", "investigate", "Note it."),
        &ctx,
    ))
    .unwrap();
    assert_eq!(result.message_summary, "ok");
    let mut after = session.slices_json().unwrap();
    assert_eq!(after.remove("SubagentRun").map(|r| r.len()), Some(1));
    // The child's telemetry, forwarded to the parent: records, not state.
    let forwarded: Vec<Value> = after.remove("SubagentEvent").unwrap();
    assert_eq!(forwarded[1]["event_type"], "ModelCalled");
    assert_eq!(forwarded[2]["event_type"], "Note");
    assert_eq!(after, before);
}

// endregion: --- concurrency, budgets, cancellation, adapters

// region: --- rendering and schema

#[test]
fn section_renders_guidance_and_enabled_prompts() {
    let fixture = fixture();
    fixture
        .registry
        .register_factory(
            "research",
            "bound",
            "Investigate with bound params",
            |_: &DispatchSubagent| Err(PromptError::validation("unused")),
        )
        .unwrap();
    fixture.registry.disable("research", "structured").unwrap();
    let rendered = Prompt::new(fixture.parent.clone()).render().unwrap();
    insta::assert_snapshot!("parent_prompt", rendered.text);
    let spec = rendered
        .tools
        .iter()
        .find(|t| t.name() == DISPATCH_SUBAGENT)
        .unwrap();
    insta::assert_json_snapshot!("dispatch_subagent_spec", ToolSpec::of(spec));
}

#[test]
fn the_section_hides_itself_at_the_nesting_limit() {
    let fixture = fixture();
    let session = Session::new();
    session.set_tag(SUBAGENT_DEPTH_TAG, "1");
    let rendered = Prompt::new(fixture.parent.clone())
        .render_with(&session)
        .unwrap();
    assert!(!rendered.tool_names().contains(&DISPATCH_SUBAGENT));
    assert!(!rendered.text.contains("Subagents"));
}

#[test]
fn a_factory_binds_the_request_into_the_child_prompt() {
    #[derive(Serialize, Deserialize, JsonSchema)]
    struct Brief {
        step: String,
    }
    let fixture = fixture();
    let template = Arc::new(
        PromptTemplate::builder("research", "bound")
            .section(
                MarkdownSection::new("Brief", "brief", "You own plan step ${step}.")
                    .params::<Brief>(),
            )
            .build()
            .unwrap(),
    );
    fixture
        .registry
        .register_factory(
            "research",
            "bound",
            "Plan step worker",
            move |request: &DispatchSubagent| {
                Ok(ChildPrompt::new(template.clone()).bind(Brief {
                    step: request.plan_step_id.clone().unwrap_or_default(),
                }))
            },
        )
        .unwrap();
    let provider = scripted(json!([{"text": "Step done."}]));
    let session = Session::new();
    let invoked = execute_call(
        &fixture,
        &session,
        adapter_resources(&provider),
        json!({"mode": "plan_step", "plan_step_id": "s-4", "prompt_ns": "research", "prompt_key": "bound", "instructions": "Do it."}),
    );
    assert_eq!(invoked.message, "Step done.");
    let system = match &provider.requests()[0].messages[0] {
        Message::System { content } => content.clone(),
        other => panic!("unexpected first message {other:?}"),
    };
    assert!(system.starts_with(
        "## 1. Brief (brief)\n\nYou own plan step s-4.\n\n## 2. Workspace (workspace)"
    ));
}

// endregion: --- rendering and schema

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Instructions are accepted exactly when, trimmed, they are 1-2000 ASCII characters.
    #[test]
    fn instructions_validation_matches_the_rule(
        instructions in prop_oneof![
            "[ -~]{0,40}",
            "\\PC{0,20}",
            "[a-z]{1990,2010}",
            Just(" \n\t ".to_owned()),
        ]
    ) {
        let fixture = fixture();
        let mut ctx = ToolContext::new(Session::new());
        // No adapter: a valid request gets past validation and stops at configuration.
        ctx.resources = Resources::new();
        let result = block_on(fixture.subagents.dispatch(
            DispatchSubagent::ad_hoc("research", "investigate", instructions.clone()),
            &ctx,
        ));
        let trimmed = instructions.trim();
        let valid = !trimmed.is_empty() && trimmed.is_ascii() && trimmed.chars().count() <= 2000;
        match result {
            Err(DispatchSubagentError::Invalid(_)) => prop_assert!(!valid),
            Err(DispatchSubagentError::NotConfigured(_)) => prop_assert!(valid),
            other => prop_assert!(false, "unexpected {other:?}"),
        }
    }
}

#[test]
fn a_failed_dispatch_is_undone_without_touching_a_concurrent_one() {
    let fixture = fixture();
    let session = Session::new();
    let fs: Arc<dyn wink_fs::Filesystem> = Arc::new(wink_fs::InMemoryFilesystem::new());
    let provider = scripted(json!([
        {"tool_calls": [
            {"id": "a", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Task A.")},
            {"id": "b", "name": "dispatch_subagent", "arguments": dispatch_args("investigate", "Task B.")}
        ]},
        {"tool_calls": [{"id": "s1", "name": "save", "arguments": {"file_path": "a.md", "content": "from A"}}]},
        {"text": "A done."},
        {"tool_calls": [{"id": "s2", "name": "save", "arguments": {"file_path": "b.md", "content": "from B"}}]},
        {"tool_calls": [{"id": "x", "name": "crash", "arguments": {}}]},
        {"text": "A worked, B failed."}
    ]));
    let adapter: Arc<dyn ProviderAdapter> = provider.clone();
    let tracker = BudgetTracker::default();
    let config = MainLoopConfig {
        resources: resources(adapter.clone(), &tracker, &Files::default()).with(Arc::clone(&fs)),
        ..MainLoopConfig::default()
    };
    let run = block_on(MainLoop::new(adapter.as_ref(), config).execute_with(
        &Prompt::new(fixture.parent.clone()),
        &session,
        tracker,
        RunHooks::default(),
    ))
    .unwrap();
    assert_eq!(
        run.outcome,
        LoopOutcome::Finished {
            text: Some("A worked, B failed.".into()),
            output: None
        }
    );
    let results = tool_messages(provider.requests().last().unwrap());
    assert_eq!(
        results[0],
        (
            "dispatch_subagent".to_owned(),
            "A done.\n\nTools used: save".to_owned(),
            false
        )
    );
    assert!(results[1].2, "{results:?}");
    // A's file stays; B's is undone with B.
    assert_eq!(fs.read_to_string("a.md").unwrap(), "from A");
    assert!(!fs.exists("b.md"));
    // Both runs are on record.
    let outcomes: Vec<bool> = session
        .slice::<SubagentRun>()
        .all()
        .iter()
        .map(|r| r.outcome == SubagentOutcome::Completed)
        .collect();
    assert_eq!(outcomes, [true, false]);
}
