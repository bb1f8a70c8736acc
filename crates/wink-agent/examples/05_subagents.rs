//! Sub-agent dispatch end to end: a lead prompt plans two steps and hands both to isolated
//! subagents in one turn; each child writes a note with the parent's tools and returns a
//! summary. The lead's conversation only ever holds the two summaries; the parent session keeps
//! a `SubagentRun` record of each child.
//!
//! Run: `cargo run -p wink-agent --example 05_subagents [SCRIPT.json]` (default script:
//! `examples/05_subagents/script.json`, replayed by the scripted provider — one script serves the
//! lead and both children, in call order).
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::error::Error;
use std::path::Path;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use wink_agent::{
    BudgetTracker, MainLoop, MainLoopConfig, Message, PromptRegistry, PromptSubagentToolsSection,
    ProviderAdapter, RunHooks, ScriptedProvider, SubagentRun,
};
use wink_core::{
    MarkdownSection, Prompt, PromptTemplate, Resources, SectionRef, ToolBuilder, ToolContext,
    ToolError, ToolResult, block_on,
};
use wink_session::Session;

const DEFAULT_SCRIPT: &str = include_str!("../../../examples/05_subagents/script.json");

/// An in-memory "disk" the write_file tool writes to, shared through the tool resources.
#[derive(Debug, Clone, Default)]
struct Disk(Arc<Mutex<BTreeMap<String, String>>>);

#[derive(Serialize, Deserialize, JsonSchema)]
struct WriteFile {
    /// Path of the file to write.
    file_path: String,
    /// Full text of the file.
    content: String,
}

fn workspace() -> Result<SectionRef, Box<dyn Error>> {
    let write_file = ToolBuilder::<WriteFile, serde_json::Value>::new(
        "write_file",
        "Write a text file (replaces it if it exists).",
    )
    .handler(|params: WriteFile, ctx: &mut ToolContext| {
        let disk = ctx
            .resource::<Disk>()
            .ok_or_else(|| ToolError::failed("no disk attached"))?;
        let bytes = params.content.len();
        disk.0
            .lock()
            .map_err(|_| ToolError::failed("disk lock poisoned"))?
            .insert(params.file_path.clone(), params.content);
        Ok(ToolResult::ok(
            format!("Wrote {bytes} bytes to {}.", params.file_path),
            serde_json::json!({"path": params.file_path}),
        )
        .excluding_value())
    })
    .build()?;
    Ok(Arc::new(
        MarkdownSection::new(
            "Workspace",
            "workspace",
            "Write notes with write_file; keep them short.",
        )
        .tool(write_file),
    ))
}

fn main() -> Result<(), Box<dyn Error>> {
    let script = match std::env::args().nth(1) {
        Some(path) => ScriptedProvider::from_file(Path::new(&path))?,
        None => ScriptedProvider::from_json(DEFAULT_SCRIPT, "examples/05_subagents/script.json")?,
    };
    let provider = Arc::new(script);

    // The prompts subagents may run.
    let registry = PromptRegistry::new();
    registry.register(
        PromptTemplate::builder("research", "investigate")
            .name("Investigate one question and write up the findings")
            .section(MarkdownSection::new(
                "Role",
                "role",
                "You investigate exactly the task you are given, write your findings to the requested file, and reply with a two-sentence summary.",
            ))
            .build()?,
    )?;

    // The lead prompt: its workspace section is also the children's tool suite.
    let workspace = workspace()?;
    let subagents = PromptSubagentToolsSection::builder(registry)
        .tool_suite([workspace.clone()])
        .build()?;
    let lead = PromptTemplate::builder("demo", "lead")
        .section(MarkdownSection::new(
            "Task",
            "task",
            "Survey the HTTP layer: plan the work, delegate self-contained steps, then report.",
        ))
        .section_ref(workspace)
        .section(subagents)
        .build()?;

    // One budget for the lead and every child; the adapter reaches the tool through resources.
    let tracker = BudgetTracker::default();
    let disk = Disk::default();
    let adapter: Arc<dyn ProviderAdapter> = provider.clone();
    let config = MainLoopConfig {
        resources: Resources::new()
            .with(adapter)
            .with(tracker.clone())
            .with(disk.clone()),
        ..MainLoopConfig::default()
    };
    let session = Session::new();
    let run = block_on(MainLoop::new(provider.as_ref(), config).execute_with(
        &Prompt::new(lead),
        &session,
        tracker,
        RunHooks::default(),
    ))?;

    println!("== lead conversation (as sent on its last model call)");
    let lead_calls = &run.evaluations[0].model_calls;
    if let Some(last) = lead_calls.last() {
        for message in &last.messages {
            match message {
                Message::System { content } => {
                    println!("[system] {} characters", content.len());
                }
                Message::User { content } => println!("[user] {content}"),
                Message::Assistant {
                    content,
                    tool_calls,
                } => {
                    if let Some(text) = content {
                        println!("[assistant] {text}");
                    }
                    for call in tool_calls {
                        println!("[assistant -> {}] id {}", call.name, call.id);
                    }
                }
                Message::Tool { name, content, .. } => println!("[{name}] {content}"),
                other => println!("{other:?}"),
            }
        }
    }
    println!("\n== outcome\n{:?}", run.outcome);

    println!("\n== subagent runs recorded in the lead session");
    for record in session.slice::<SubagentRun>().all() {
        println!("{}", serde_json::to_string_pretty(&record)?);
    }

    println!("\n== files written by the subagents");
    let files = disk.0.lock().map_err(|_| "disk lock poisoned")?;
    for (path, content) in files.iter() {
        println!("--- {path}\n{}", content.trim_end());
    }

    println!(
        "\n== spent: {} model calls ({} by the lead), {} tool calls, {} input / {} output tokens",
        run.spent.model_calls,
        lead_calls.len(),
        run.spent.tool_calls,
        run.spent.usage.input_tokens,
        run.spent.usage.output_tokens
    );
    Ok(())
}
