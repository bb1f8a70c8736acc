//! `wink render`.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
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
            .map(|(key, score)| match score {
                0.0 => format!("{key} (finds a code the input lacks)"),
                score => format!("{key} ({score:.2})"),
            })
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
            let out = prepared.render_json(&rendered, &counter);
            crate::output::println(&serde_json::to_string_pretty(&out)?)?;
        }
    }
    prepared.keep_until_exit(rendered);
    Ok(ExitCode::SUCCESS)
}
