//! `wink call`.

use std::process::ExitCode;

use clap::Args;

use super::common::{PromptArgs, run_error};
use crate::exit::usage;

/// `wink call FILE TOOL ARGS_JSON [--params JSON] [--expand KEY]... [--disclosure MODE]`
#[derive(Debug, Args)]
pub struct CallArgs {
    #[command(flatten)]
    pub prompt: PromptArgs,
    /// The tool to run (as offered by the rendered prompt, builtin tools included).
    pub tool: String,
    /// The tool's arguments as a JSON object.
    #[arg(value_name = "ARGS_JSON")]
    pub args: String,
}

pub fn run(args: &CallArgs) -> anyhow::Result<ExitCode> {
    let prepared = args.prompt.prepare()?;
    let rendered = prepared
        .prompt
        .render_with(&prepared.session)
        .map_err(|e| usage(format!("{}: {e}", args.prompt.file.display())))?;
    let out = prepared
        .call_tool(&rendered, &args.tool, &args.args)
        .map_err(run_error)?;
    crate::output::println(&serde_json::to_string_pretty(&out)?)?;
    prepared.keep_until_exit(rendered);
    Ok(ExitCode::SUCCESS)
}
