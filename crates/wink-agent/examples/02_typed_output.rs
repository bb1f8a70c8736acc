//! Typed structured output: a review prompt declares `output_vec::<Finding>()`, so it is a
//! `PromptTemplate<Vec<Finding>>`; the run returns a `RunResult<Vec<Finding>>` whose `output()`
//! is the decoded list. The style guide and its `lint` tool sit in a summarized section that the
//! model opens with `read_section` (the tool is injected for the next call).
//!
//! Run: `cargo run -p wink-agent --example 02_typed_output [SCRIPT.json]` (default script:
//! `examples/02_typed_output/script.json`, replayed by the scripted provider).
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use wink_agent::{MainLoop, MainLoopConfig, RunHooks, RunResult, ScriptedProvider};
use wink_core::{
    MarkdownSection, Prompt, PromptTemplate, ToolBuilder, ToolContext, ToolResult, block_on,
};
use wink_session::Session;

const DEFAULT_SCRIPT: &str = include_str!("../../../examples/02_typed_output/script.json");

/// One review finding: the prompt's output is a list of these.
#[derive(Debug, Deserialize, JsonSchema)]
struct Finding {
    /// File the finding is about.
    file: String,
    /// 1-based line.
    line: u32,
    /// `high`, `medium` or `low`.
    severity: Severity,
    /// What is wrong and how to fix it.
    message: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Severity {
    High,
    Medium,
    Low,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone)]
struct Review {
    /// The change under review.
    change: String,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct LintParams {
    /// File to lint.
    path: String,
}

fn template() -> Result<PromptTemplate<Vec<Finding>>, Box<dyn Error>> {
    let lint = ToolBuilder::<LintParams, Vec<String>>::new("lint", "Run the linter on one file.")
        .handler(|p: LintParams, _ctx: &mut ToolContext| {
            Ok(ToolResult::ok(
                format!("2 warnings in {}.", p.path),
                vec![
                    format!("{}:12 password compared with ==", p.path),
                    format!("{}:40 unwrap on user input", p.path),
                ],
            ))
        })
        .build()?;
    Ok(PromptTemplate::builder("review", "findings")
        .section(
            MarkdownSection::new("Task", "task", "Review ${change}. Report every finding.")
                .params::<Review>(),
        )
        .section(
            MarkdownSection::new(
                "Style guide",
                "style",
                "Secrets are compared in constant time. Never unwrap user input. \
                 Lint every changed file with `lint`.",
            )
            .summary("The team's style guide and a linter.")
            .summarized()
            .tool(lint),
        )
        .output_vec::<Finding>()
        .build()?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let provider = match std::env::args().nth(1) {
        Some(path) => ScriptedProvider::from_file(Path::new(&path))?,
        None => ScriptedProvider::from_json(DEFAULT_SCRIPT, "02_typed_output/script.json")?,
    };
    let prompt: Prompt<Vec<Finding>> = Prompt::new(template()?).bind(Review {
        change: "the login handler".into(),
    });
    let session = Session::new();
    let result: RunResult<Vec<Finding>> =
        block_on(MainLoop::new(&provider, MainLoopConfig::default()).execute(
            &prompt,
            &session,
            RunHooks::default(),
        ))?;
    let findings: Vec<Finding> = result.output()?;
    println!(
        "{} model calls, {} findings:",
        result.spent.model_calls,
        findings.len()
    );
    for f in &findings {
        println!("  {}:{} [{:?}] {}", f.file, f.line, f.severity, f.message);
    }
    Ok(())
}
