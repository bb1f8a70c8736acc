//! `wink docs-to-prompt DIR --output FILE [--model SPEC]`: a folder of Markdown, HTML or
//! plain-text documents as a prompt file whose sections are summarized (see `wink_docs`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use wink_docs::{DocsOptions, Summarizer};
use wink_run::ModelSummarizer;

use crate::exit::usage;

/// `wink docs-to-prompt DIR --output FILE`
#[derive(Debug, Args)]
pub struct DocsArgs {
    /// A folder of documents: Markdown (.md), HTML (.html; a page's <main> when it has one) and
    /// plain text (.txt, man pages, files without an extension), in sub-folders or not.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The prompt file to write (JSON).
    #[arg(long, short, value_name = "FILE")]
    pub output: PathBuf,
    /// Write every summary with this model (a `wink run --model` spec, e.g. local or
    /// openai:gpt-4.1-mini) instead of taking titles and first sentences: one model call per
    /// section, leaves first.
    #[arg(long, value_name = "SPEC")]
    pub model: Option<String>,
    /// The text of the task section the prompt starts with.
    #[arg(long, value_name = "TEXT")]
    pub task: Option<String>,
    /// The prompt's key (default: the folder's name).
    #[arg(long, value_name = "KEY")]
    pub key: Option<String>,
    /// Most sections one group lists: larger groups are split into ranges.
    #[arg(long, value_name = "N", default_value_t = 24)]
    pub max_children: usize,
}

/// Run `wink docs-to-prompt`.
pub fn run(args: &DocsArgs) -> anyhow::Result<ExitCode> {
    if !args.dir.is_dir() {
        return Err(usage(format!("{}: not a folder", args.dir.display())));
    }
    if args.output.is_dir() {
        return Err(usage(format!(
            "--output {}: is a folder, not a file",
            args.output.display()
        )));
    }
    let parent = args
        .output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if !parent.is_dir() {
        return Err(usage(format!(
            "--output {}: the folder {} does not exist",
            args.output.display(),
            parent.display()
        )));
    }
    let mut options = DocsOptions {
        key: args.key.clone(),
        max_children: args.max_children,
        ..DocsOptions::default()
    };
    if let Some(task) = &args.task {
        options.task.clone_from(task);
    }
    let progress = |written: usize| {
        if written.is_multiple_of(25) {
            note!("wink docs-to-prompt: {written} summaries written");
        }
    };
    let mut summarizer = match &args.model {
        Some(spec) => Some(ModelSummarizer::new(spec, progress).map_err(super::common::run_error)?),
        None => None,
    };
    let docs = wink_docs::docs_to_prompt(
        &args.dir,
        &options,
        summarizer.as_mut().map(|s| s as &mut dyn Summarizer),
    )
    .map_err(|e| match e {
        wink_docs::DocsError::Empty { .. } => usage(e.to_string()),
        other => anyhow::Error::new(other),
    })?;
    let text = serde_json::to_string_pretty(&docs.prompt)? + "\n";
    std::fs::write(&args.output, text)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.output.display()))?;
    let loaded = wink_promptfile::load(&args.output)?;
    let rendered = wink_core::Prompt::new(Arc::clone(&loaded.template)).render()?;
    let counter = wink_tokens::TokenCounter::o200k()?;
    let tools: String = rendered
        .tools
        .iter()
        .map(|t| format!("{}{}{}", t.name(), t.description(), t.parameters()))
        .collect();
    let always_on = counter.count(&rendered.text) + counter.count(&tools);
    note!(
        "wink docs-to-prompt: wrote {}: {} documents, {} sections; always-on prompt {} tokens (o200k, text and tools){}",
        args.output.display(),
        docs.documents,
        docs.sections,
        always_on,
        match docs.skipped.len() {
            0 => String::new(),
            n => format!("; {n} files skipped (not Markdown, HTML or text)"),
        }
    );
    Ok(ExitCode::SUCCESS)
}
