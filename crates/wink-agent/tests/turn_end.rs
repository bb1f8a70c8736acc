//! How a model turn ends (issue 17, "The loop"): calls after a terminal call are neither
//! checked nor run, a user terminal tool ends the evaluation, the restart path stops at the
//! call that needs the restart and follows the expansion policy, and context-files mode opens
//! content-only sections without ending the turn. Several tool calls in one model turn each.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::{Value, json};
use wink_agent::*;
use wink_core::*;
use wink_fs::{Filesystem, InMemoryFilesystem};
use wink_session::{SectionPath, SectionVisibility, Session, ToolInvoked};

const SKIPPED: &str = "Not run: an earlier call in this turn ended it.";

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

fn tool_names(request: &ModelRequest) -> Vec<String> {
    request.tools.iter().map(|t| t.name.clone()).collect()
}

fn invoked(session: &Session) -> Vec<String> {
    session
        .slice::<ToolInvoked>()
        .all()
        .iter()
        .map(|e| e.name.clone())
        .collect()
}

/// A tool that answers `ok` (optionally parallel).
fn plain(name: &str, parallel: bool) -> ToolRef {
    let b = ToolBuilder::dynamic(name, "A tool.", empty_params_schema(), |_a, _c| {
        Ok(ToolResult::message("ok"))
    });
    if parallel { b.parallel() } else { b }.build().unwrap()
}

/// A tool that writes `notes/<name>.txt` into the filesystem resource.
fn writer(name: &'static str, parallel: bool) -> ToolRef {
    let b = ToolBuilder::dynamic(
        name,
        "Write a note.",
        empty_params_schema(),
        move |_a, ctx| {
            let fs = ctx.filesystem().unwrap();
            fs.write(
                &format!("notes/{name}.txt"),
                "x",
                wink_fs::WriteMode::Overwrite,
            )
            .map_err(ToolError::failed)?;
            Ok(ToolResult::message("written"))
        },
    );
    if parallel { b.parallel() } else { b }.build().unwrap()
}

fn memory_fs() -> Arc<dyn Filesystem> {
    Arc::new(InMemoryFilesystem::new())
}

fn with_fs(fs: &Arc<dyn Filesystem>) -> MainLoopConfig {
    MainLoopConfig {
        resources: Resources::new().with(Arc::clone(fs)),
        ..MainLoopConfig::default()
    }
}

/// Task, then `search` summarized with its tool `search_docs`.
fn search_prompt(mode: DisclosureMode) -> Prompt {
    Prompt::new(
        PromptTemplate::builder("demo", "turns")
            .disclosure(mode)
            .section(MarkdownSection::new("Task", "task", "Answer."))
            .section(
                MarkdownSection::new("Search", "search", "Use search_docs.")
                    .summary("Search tools.")
                    .summarized()
                    .tool(plain("search_docs", false)),
            )
            .build()
            .unwrap(),
    )
}

// region: --- open_sections then a tool it is about to disclose

#[test]
fn open_sections_then_a_tool_not_offered_yet_restarts_instead_of_failing() {
    for mode in [DisclosureMode::OpenSections, DisclosureMode::Wink] {
        let provider = script(json!([
            {"tool_calls": [
                {"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["search"], "reason": "need the tool"}},
                {"id": "c2", "name": "search_docs", "arguments": {}}]},
            {"tool_calls": [{"id": "c3", "name": "search_docs", "arguments": {}}]},
            {"text": "done"}
        ]));
        let session = Session::new();
        let result = run(
            &provider,
            &search_prompt(mode),
            &session,
            MainLoopConfig::default(),
        );
        assert_eq!(
            result.outcome,
            LoopOutcome::Finished {
                text: Some("done".into()),
                output: None
            },
            "{mode}"
        );
        assert_eq!(result.restarts, 1);
        let first = &result.evaluations[0];
        assert_eq!(
            first.outcome,
            LoopOutcome::ExpansionRequired {
                requested_overrides: vec![(SectionPath::root("search"), SectionVisibility::Full)],
                section_keys: vec!["search".into()],
                reason: "need the tool".into(),
            }
        );
        assert_eq!(tool_messages(first.state.messages()), [SKIPPED]);
        assert_eq!(
            invoked(&session),
            ["open_sections", "search_docs"],
            "c2 never ran"
        );
        assert_eq!(tool_names(&provider.requests()[1])[0], "search_docs");
    }
}

#[test]
fn a_hidden_tool_called_in_the_turn_that_opens_its_section_is_there_after_the_restart() {
    // Wink mode: the call of the hidden tool gets a failed result naming its section (the run
    // does not end on it), the `open_sections` call of the same turn restarts the evaluation
    // with the section open, and the tool is offered from then on.
    let provider = script(json!([
        {"tool_calls": [
            {"id": "c1", "name": "search_docs", "arguments": {}},
            {"id": "c2", "name": "open_sections", "arguments": {"section_keys": ["search"], "reason": "r"}}]},
        {"tool_calls": [{"id": "c3", "name": "search_docs", "arguments": {}}]},
        {"text": "found"}
    ]));
    let session = Session::new();
    let result = run(
        &provider,
        &search_prompt(DisclosureMode::Wink),
        &session,
        MainLoopConfig::default(),
    );
    assert_eq!(result.text(), Some("found"));
    assert_eq!(result.restarts, 1);
    assert_eq!(
        tool_messages(result.evaluations[0].state.messages())[0],
        "Unknown tool 'search_docs'. It is in section \"search\": call `open_sections` with key \"search\" first. Available tools: open_sections."
    );
    assert!(tool_names(&provider.requests()[1]).contains(&"search_docs".to_owned()));
    assert_eq!(invoked(&session), ["open_sections", "search_docs"]);
}

#[test]
fn a_failed_open_sections_does_not_end_the_turn() {
    // `task` is not summarized: the call fails, and the call after it runs (as in WINK v0.17).
    let provider = script(json!([
        {"tool_calls": [
            {"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["task"], "reason": "r"}},
            {"id": "c2", "name": "open_sections", "arguments": {"section_keys": ["search"], "reason": "r"}}]},
        {"text": "done"}
    ]));
    let session = Session::new();
    let result = run(
        &provider,
        &search_prompt(DisclosureMode::OpenSections),
        &session,
        MainLoopConfig::default(),
    );
    assert_eq!(result.restarts, 1);
    assert_eq!(invoked(&session), ["open_sections", "open_sections"]);
    assert_eq!(
        tool_messages(result.evaluations[0].state.messages()),
        ["Tool validation failed: Section 'task' is already expanded."]
    );
}

// endregion: --- open_sections then a tool it is about to disclose

// region: --- user terminal tools

fn submit_tool(parallel: bool) -> ToolRef {
    let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"], "additionalProperties": false});
    let b = ToolBuilder::dynamic("submit", "Submit the final answer.", schema, |args, _c| {
        Ok(ToolResult::ok(
            "Submitted.",
            json!({"answer": args["answer"]}),
        ))
    })
    .terminal();
    if parallel { b.parallel() } else { b }.build().unwrap()
}

fn submit_prompt(parallel: bool) -> Prompt {
    Prompt::new(
        PromptTemplate::builder("demo", "submit")
            .section(
                MarkdownSection::new("Task", "task", "Answer, then submit.")
                    .tool(writer("note", parallel))
                    .tool(submit_tool(parallel)),
            )
            .build()
            .unwrap(),
    )
}

#[test]
fn a_terminal_user_tool_ends_the_evaluation_with_its_result() {
    for parallel in [false, true] {
        let provider = script(json!([
            {"tool_calls": [
                {"id": "c1", "name": "note", "arguments": {}},
                {"id": "c2", "name": "submit", "arguments": {"answer": "42"}},
                {"id": "c3", "name": "note", "arguments": {}},
                {"id": "c4", "name": "not_offered", "arguments": {}}]},
            {"text": "never asked"}
        ]));
        let session = Session::new();
        let fs = memory_fs();
        let result = run(&provider, &submit_prompt(parallel), &session, with_fs(&fs));
        assert_eq!(
            result.outcome,
            LoopOutcome::Terminated {
                name: "submit".into(),
                content: "Submitted.\n\n{\"answer\": \"42\"}".into(),
                value: Some(json!({"answer": "42"})),
            },
            "parallel: {parallel}"
        );
        assert_eq!(result.restarts, 0);
        assert_eq!(
            provider.requests().len(),
            1,
            "no model call after the terminal tool"
        );
        assert_eq!(invoked(&session), ["note", "submit"], "c3 and c4 never ran");
        assert_eq!(
            tool_messages(result.evaluations[0].state.messages()),
            [
                "written",
                "Submitted.\n\n{\"answer\": \"42\"}",
                SKIPPED,
                SKIPPED
            ]
        );
        assert_eq!(
            result.outcome.summary(),
            "ended by the terminal tool 'submit'"
        );
    }
}

#[test]
fn a_worker_counts_a_terminal_tool_ending_as_success() {
    let result = WorkerResult {
        request_id: 1,
        outcome: Some(LoopOutcome::Terminated {
            name: "submit".into(),
            content: "Submitted.".into(),
            value: None,
        }),
        error: None,
        restarts: 0,
    };
    assert!(result.success());
    let json = serde_json::to_value(result.outcome.as_ref().unwrap()).unwrap();
    assert_eq!(
        json,
        json!({"status": "terminated", "name": "submit", "content": "Submitted."})
    );
}

#[test]
fn a_failed_terminal_call_is_reported_to_the_model_and_the_run_goes_on() {
    let provider = script(json!([
        {"tool_calls": [
            {"id": "c1", "name": "submit", "arguments": {}},
            {"id": "c2", "name": "note", "arguments": {}}]},
        {"tool_calls": [{"id": "c3", "name": "submit", "arguments": {"answer": "7"}}]}
    ]));
    let session = Session::new();
    let result = run(
        &provider,
        &submit_prompt(false),
        &session,
        with_fs(&memory_fs()),
    );
    assert!(matches!(result.outcome, LoopOutcome::Terminated { .. }));
    assert_eq!(
        tool_messages(&provider.requests()[1].messages),
        [
            "Tool validation failed: Missing required field: 'answer'",
            "written"
        ]
    );
    assert_eq!(invoked(&session), ["submit", "note", "submit"]);
}

// endregion: --- user terminal tools

// region: --- the restart path (unified mode, no dynamic tools)

#[test]
fn read_section_that_needs_a_restart_stops_the_turn_there() {
    // `note` after the read: sequential and parallel; neither runs nor writes.
    for parallel in [false, true] {
        let provider = script(json!([
            {"tool_calls": [
                {"id": "c1", "name": "note", "arguments": {}},
                {"id": "c2", "name": "read_section", "arguments": {"section_key": "search"}},
                {"id": "c3", "name": "late", "arguments": {}},
                {"id": "c4", "name": "search_docs", "arguments": {}}]},
            {"text": "done"}
        ]))
        .with_dynamic_tools(false);
        let prompt = Prompt::new(
            PromptTemplate::builder("demo", "restart")
                .section(
                    MarkdownSection::new("Task", "task", "Answer.")
                        .tool(writer("note", parallel))
                        .tool(writer("late", parallel)),
                )
                .section(
                    MarkdownSection::new("Search", "search", "Use search_docs.")
                        .summary("Search tools.")
                        .summarized()
                        .tool(plain("search_docs", false)),
                )
                .build()
                .unwrap(),
        );
        let session = Session::new();
        let fs = memory_fs();
        let result = run(&provider, &prompt, &session, with_fs(&fs));
        assert_eq!(result.restarts, 1, "parallel: {parallel}");
        assert_eq!(invoked(&session), ["note", "read_section"]);
        assert!(fs.exists("notes/note.txt"));
        assert!(
            !fs.exists("notes/late.txt"),
            "a call after the restart point ran"
        );
        assert_eq!(
            tool_messages(result.evaluations[0].state.messages()),
            ["written", SKIPPED, SKIPPED]
        );
        assert_eq!(
            tool_names(&provider.requests()[1]),
            ["note", "late", "search_docs"]
        );
    }
}

/// `kit` (tool `kit_tool`) holds `kit.deep` (tool `deep_tool`), both summarized; `other`
/// (tool `other_tool`) is summarized too.
fn kit_prompt() -> Prompt {
    Prompt::new(
        PromptTemplate::builder("demo", "policies")
            .section(MarkdownSection::new("Task", "task", "Answer."))
            .section(
                MarkdownSection::new("Kit", "kit", "Kit body.")
                    .summary("Kit summary.")
                    .summarized()
                    .tool(plain("kit_tool", false))
                    .child(
                        MarkdownSection::new("Deep", "deep", "Deep body.")
                            .summary("Deep summary.")
                            .summarized()
                            .tool(plain("deep_tool", false)),
                    ),
            )
            .section(
                MarkdownSection::new("Other", "other", "Other body.")
                    .summary("Other summary.")
                    .summarized()
                    .tool(plain("other_tool", false)),
            )
            .build()
            .unwrap(),
    )
}

fn policy_config(policy: ExpansionPolicy) -> MainLoopConfig {
    MainLoopConfig {
        policy,
        ..MainLoopConfig::default()
    }
}

fn overrides(session: &Session) -> Vec<String> {
    session
        .visibility_overrides()
        .iter()
        .map(|(p, v)| format!("{}={v}", p.dotted()))
        .collect()
}

#[test]
fn the_eager_policy_opens_everything_a_read_disclosed() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "kit"}}]},
        {"text": "done"}
    ]))
    .with_dynamic_tools(false);
    let session = Session::new();
    let result = run(
        &provider,
        &kit_prompt(),
        &session,
        policy_config(ExpansionPolicy::Eager),
    );
    assert_eq!(result.restarts, 1);
    assert_eq!(overrides(&session), ["kit=full", "kit.deep=full"]);
    assert_eq!(
        tool_names(&provider.requests()[1]),
        ["kit_tool", "deep_tool", "read_section"]
    );
}

#[test]
fn reading_a_section_inside_a_summarized_parent_restarts_with_the_parent_open() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "kit.deep"}}]},
        {"tool_calls": [{"id": "c2", "name": "deep_tool", "arguments": {}}]},
        {"text": "done"}
    ]))
    .with_dynamic_tools(false);
    let session = Session::new();
    let result = run(
        &provider,
        &kit_prompt(),
        &session,
        MainLoopConfig::default(),
    );
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("done".into()),
            output: None
        }
    );
    assert_eq!(result.restarts, 1);
    assert_eq!(overrides(&session), ["kit=full", "kit.deep=full"]);
    assert_eq!(
        tool_names(&provider.requests()[1]),
        ["kit_tool", "deep_tool", "read_section"]
    );
}

#[test]
fn the_conservative_policy_opens_one_section_per_restart_on_the_read_path() {
    let provider = script(json!([
        {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "kit"}}]},
        {"text": "done"}
    ]))
    .with_dynamic_tools(false);
    let session = Session::new();
    let result = run(
        &provider,
        &kit_prompt(),
        &session,
        policy_config(ExpansionPolicy::Conservative),
    );
    assert_eq!(result.restarts, 1);
    assert_eq!(overrides(&session), ["kit=full"]);
    assert_eq!(
        tool_names(&provider.requests()[1]),
        ["kit_tool", "read_section"]
    );
}

#[test]
fn the_batched_policy_defers_reads_until_the_batch_is_full() {
    let provider = script(json!([
        {"tool_calls": [
            {"id": "c1", "name": "read_section", "arguments": {"section_key": "other"}},
            {"id": "c2", "name": "read_section", "arguments": {"section_key": "kit.deep"}}]},
        {"tool_calls": [{"id": "c3", "name": "read_section", "arguments": {"section_key": "kit"}}]},
        {"text": "done"}
    ]))
    .with_dynamic_tools(false);
    let session = Session::new();
    let result = run(
        &provider,
        &kit_prompt(),
        &session,
        policy_config(ExpansionPolicy::Batched { size: 4 }),
    );
    assert_eq!(result.restarts, 1);
    // Deferred reads show their content and the note; no tool is offered before the restart.
    assert_eq!(
        tool_messages(&provider.requests()[1].messages),
        [
            "Content of section 'other':\n\n## 3. Other (other)\n\nOther body.\n\nNoted: sections other will be opened together once 4 are requested. Continue with what you have, or call read_section again with the same key to open them now.",
            "Content of section 'kit.deep':\n\n### 2.1. Deep (kit.deep)\n\nDeep body.\n\nNoted: sections other, kit, kit.deep will be opened together once 4 are requested. Continue with what you have, or call read_section again with the same key to open them now."
        ]
    );
    assert_eq!(tool_names(&provider.requests()[1]), ["read_section"]);
    assert_eq!(
        overrides(&session),
        ["kit=full", "kit.deep=full", "other=full"]
    );
    assert_eq!(
        tool_names(&provider.requests()[2]),
        ["kit_tool", "deep_tool", "other_tool"]
    );
}

// endregion: --- the restart path (unified mode, no dynamic tools)

// region: --- context files

fn read_file_tool() -> ToolRef {
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false});
    ToolBuilder::dynamic("read_file", "Read a file.", schema, |args, ctx| {
        let fs = ctx.filesystem().unwrap();
        let text = fs
            .read_to_string(args["path"].as_str().unwrap_or_default())
            .map_err(ToolError::failed)?;
        Ok(ToolResult::message(text))
    })
    .build()
    .unwrap()
}

fn context_prompt() -> Prompt {
    Prompt::new(
        PromptTemplate::builder("demo", "ctx")
            .disclosure(DisclosureMode::ContextFiles)
            .section(MarkdownSection::new("Task", "task", "Answer.").tool(read_file_tool()))
            .section(
                MarkdownSection::new("Guide", "guide", "Guide body.")
                    .summary("A guide.")
                    .summarized()
                    .child(MarkdownSection::new("Step", "step", "Step body.")),
            )
            .section(
                MarkdownSection::new("Search", "search", "Use search_docs.")
                    .summary("Search tools.")
                    .summarized()
                    .tool(plain("search_docs", false)),
            )
            .build()
            .unwrap(),
    )
}

#[test]
fn context_files_a_content_only_open_goes_on_and_a_mixed_open_restarts() {
    let provider = script(json!([
        {"tool_calls": [
            {"id": "c1", "name": "open_sections", "arguments": {"section_keys": ["guide"], "reason": "r"}},
            {"id": "c2", "name": "read_file", "arguments": {"path": "context/guide.md"}}]},
        {"tool_calls": [
            {"id": "c3", "name": "open_sections", "arguments": {"section_keys": ["guide", "search"], "reason": "tools"}},
            {"id": "c4", "name": "search_docs", "arguments": {}}]},
        {"text": "done"}
    ]));
    let session = Session::new();
    let fs = memory_fs();
    let result = run(&provider, &context_prompt(), &session, with_fs(&fs));
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("done".into()),
            output: None
        }
    );
    assert_eq!(result.restarts, 1);
    // The write did not end the turn: the read in the same turn saw the whole subtree.
    assert_eq!(
        tool_messages(&provider.requests()[1].messages),
        [
            "Section content written to: context/guide.md",
            "## Guide (guide)\n\nGuide body.\n\n### Step (guide.step)\n\nStep body."
        ]
    );
    assert_eq!(
        result.evaluations[0].outcome,
        LoopOutcome::ExpansionRequired {
            requested_overrides: vec![
                (SectionPath::root("guide"), SectionVisibility::Full),
                (SectionPath::root("search"), SectionVisibility::Full)
            ],
            section_keys: vec!["guide".into(), "search".into()],
            reason: "tools".into(),
        }
    );
    assert_eq!(
        tool_names(&provider.requests()[2]),
        ["read_file", "search_docs"],
        "everything is open after the restart"
    );
    assert_eq!(
        invoked(&session),
        ["open_sections", "read_file", "open_sections"]
    );
}

// endregion: --- context files
