//! `wink call`.

use std::process::ExitCode;

use clap::Args;
use serde_json::{Map, Value, json};
use wink_core::{CallOutcome, ToolArguments, ToolCall, ToolExecutor, block_on};

use super::common::PromptArgs;
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
    let arguments = match serde_json::from_str::<Value>(&args.args) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return Err(usage("ARGS_JSON must be a JSON object")),
        Err(e) => return Err(usage(format!("ARGS_JSON is not valid JSON: {e}"))),
    };
    if rendered.tool(&args.tool).is_none() {
        let offered = rendered.tool_names().join(", ");
        let hint = match rendered.template_tool(&args.tool) {
            Some((path, _)) => format!(
                " (it belongs to section '{}', which is summarized or disabled; try --expand {})",
                path.dotted(),
                path.dotted()
            ),
            None => String::new(),
        };
        return Err(usage(format!(
            "tool '{}' is not offered by the rendered prompt{hint}; offered: {}",
            args.tool,
            if offered.is_empty() { "none" } else { &offered }
        )));
    }
    let executor = ToolExecutor {
        adapter: "cli".into(),
        resources: prepared.resources.clone(),
        ..ToolExecutor::new(
            prepared.session.clone(),
            prepared.loaded.template.display_name(),
        )
    };
    let call = ToolCall {
        id: "call_0".into(),
        name: args.tool.clone(),
        arguments: ToolArguments::Json(arguments),
    };
    let outcome = block_on(executor.execute(&call, &rendered.tools, Some(&rendered)))
        .map_err(|e| usage(e.message))?;
    let out = match outcome {
        CallOutcome::Completed(r) => json!({
            "success": r.result.success,
            "message": r.result.message,
            "value": r.result.value.map(|v| v.json).unwrap_or(Value::Null),
        }),
        CallOutcome::ExpansionRequired(e) => {
            let overrides: Map<String, Value> = e
                .requested_overrides
                .iter()
                .map(|(p, v)| (p.dotted(), json!(v.to_string())))
                .collect();
            json!({"expansion_required": {"section_keys": e.section_keys, "reason": e.reason, "requested_overrides": overrides}})
        }
    };
    crate::output::println(&serde_json::to_string_pretty(&out)?)?;
    prepared.keep_until_exit(rendered);
    Ok(ExitCode::SUCCESS)
}
