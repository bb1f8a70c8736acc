//! `wink docs-to-prompt DIR --output FILE [--model SPEC]`: a folder of Markdown, HTML or
//! plain-text documents as a prompt file whose sections are summarized (see `wink_docs`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use wink_docs::{DocsOptions, Summarizer};
use wink_run::ModelSummarizer;
use wink_run::docs::write_docs_prompt;

use super::common::run_error;

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
        Some(spec) => Some(ModelSummarizer::new(spec, progress).map_err(run_error)?),
        None => None,
    };
    let summarizer = summarizer.as_mut().map(|s| s as &mut dyn Summarizer);
    let written =
        write_docs_prompt(&args.dir, &args.output, &options, summarizer).map_err(run_error)?;
    note!("wink docs-to-prompt: {written}");
    Ok(ExitCode::SUCCESS)
}
