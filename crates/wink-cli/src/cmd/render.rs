//! `wink render`.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use serde_json::{Map, Value, json};
use wink_tokens::TokenCounter;

use super::common::PromptArgs;
use crate::exit::usage;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The prompt text.
    Text,
    /// `{"text", "tools", "response_format", "tokens"}`.
    Json,
}

/// `wink render FILE [--params JSON] [--expand KEY]... [--summarize KEY]... [--disclosure MODE] [--format text|json]`
#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    pub prompt: PromptArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: &RenderArgs) -> anyhow::Result<ExitCode> {
    let prepared = args.prompt.prepare()?;
    let rendered = prepared
        .prompt
        .render_with(&prepared.session)
        .map_err(|e| usage(format!("{}: {e}", args.prompt.file.display())))?;
    match args.format {
        Format::Text => crate::output::println(&rendered.text)?,
        Format::Json => {
            let counter = TokenCounter::o200k().context("token counter")?;
            let tools: Vec<Value> = rendered
                .tools
                .iter()
                .map(|t| json!({"name": t.name(), "description": t.description(), "parameters": t.parameters()}))
                .collect();
            let mut sections = Map::new();
            for s in &rendered.sections {
                sections.insert(
                    s.path.dotted(),
                    json!(counter.count(&rendered.text[s.range.clone()])),
                );
            }
            let out = json!({
                "text": rendered.text,
                "tools": tools,
                "response_format": rendered.response_format(),
                "tokens": {"total": counter.count(&rendered.text), "sections": sections},
            });
            crate::output::println(&serde_json::to_string_pretty(&out)?)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
