//! `wink render`.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde_json::{Map, Value, json};
use wink_tokens::TokenCounter;

use super::common::PromptArgs;
use crate::exit::usage;
use crate::output::Format;

/// `wink render FILE [--params JSON] [--expand KEY]... [--summarize KEY]... [--disclosure MODE] [--format text|json]`
#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    pub prompt: PromptArgs,
    /// Output format: the prompt text, or JSON `{"text", "tools", "response_format", "tokens"}`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The model's context window in tokens, for tool catalogs with `defer: auto`.
    #[arg(long, value_name = "TOKENS", default_value_t = super::common::DEFAULT_CONTEXT_WINDOW)]
    pub context_size: u64,
    /// Open the K summarized sections most relevant to `--input` first, as `wink run --preopen K`
    /// does, and say on stderr which ones: what the model would see.
    #[arg(long, value_name = "K")]
    pub preopen: Option<usize>,
    /// The user message that `--preopen` ranks sections against.
    #[arg(long, value_name = "TEXT")]
    pub input: Option<String>,
}

pub fn run(args: &RenderArgs) -> anyhow::Result<ExitCode> {
    let mut prepared = args.prompt.prepare()?;
    if args.context_size != super::common::DEFAULT_CONTEXT_WINDOW {
        prepared
            .decide_catalogs(args.context_size)
            .map_err(super::common::run_error)?;
    }
    if let Some(k) = args.preopen {
        let opened = wink_agent::preopen::apply_scored(
            &prepared.prompt,
            &prepared.session,
            args.input.as_deref().unwrap_or_default(),
            k,
        )
        .map_err(|e| usage(format!("--preopen: {e}")))?;
        let opened: Vec<String> = opened
            .iter()
            .map(|(key, score)| format!("{key} ({score:.2})"))
            .collect();
        note!("wink render: pre-opened {}", opened.join(", "));
    }
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
            let mut out = json!({
                "text": rendered.text,
                "tools": tools,
                "response_format": rendered.response_format(),
                "tokens": {"total": counter.count(&rendered.text), "sections": sections},
            });
            if !prepared.decisions.is_empty() {
                out["catalogs"] = catalogs_json(&prepared);
            }
            crate::output::println(&serde_json::to_string_pretty(&out)?)?;
        }
    }
    prepared.keep_until_exit(rendered);
    Ok(ExitCode::SUCCESS)
}

/// Each catalog section's deferral decision and token figures, and its MCP servers: how many
/// tools, where the list came from (`cache` or `server`) and whether the server is running.
fn catalogs_json(prepared: &wink_run::PreparedPrompt) -> Value {
    let mut catalogs = Map::new();
    for (section, (path, decision)) in prepared.loaded.catalogs.iter().zip(&prepared.decisions) {
        let mut entry = serde_json::to_value(decision).unwrap_or(Value::Null);
        let mut servers = Map::new();
        for server in section.servers() {
            servers.insert(
                server.name,
                json!({"tools": server.tools, "list": server.list, "running": server.running}),
            );
        }
        if !servers.is_empty() {
            entry["servers"] = Value::Object(servers);
        }
        catalogs.insert(path.clone(), entry);
    }
    Value::Object(catalogs)
}
