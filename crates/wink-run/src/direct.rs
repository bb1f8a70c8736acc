//! A prepared prompt used without a model: what it renders as data (text, tools, token counts,
//! catalog decisions), and one tool call run as the loop runs it. `wink render --format json`
//! and `wink call` print these.

use serde_json::{Map, Value, json};
use wink_core::{CallOutcome, RenderedPrompt, ToolArguments, ToolCall, ToolExecutor, block_on};
use wink_tokens::TokenCounter;

use crate::{PreparedPrompt, Result, RunError};

impl PreparedPrompt {
    /// The rendering as JSON: `{"text", "tools": [{"name", "description", "parameters"}],
    /// "response_format", "tokens": {"total", "sections": {KEY: n}}}`, plus `"catalogs"` (each
    /// catalog section's deferral decision and MCP servers) once catalogs were decided. Tokens
    /// are counted with `counter`.
    #[must_use]
    pub fn render_json(&self, rendered: &RenderedPrompt, counter: &TokenCounter) -> Value {
        let tools: Vec<Value> = rendered
            .tools
            .iter()
            .map(|t| json!({"name": t.name(), "description": t.description(), "parameters": t.parameters()}))
            .collect();
        let sections: Map<String, Value> = rendered
            .sections
            .iter()
            .map(|s| {
                let tokens = counter.count(&rendered.text[s.range.clone()]);
                (s.path.dotted(), json!(tokens))
            })
            .collect();
        let mut out = json!({
            "text": rendered.text,
            "tools": tools,
            "response_format": rendered.response_format(),
            "tokens": {"total": counter.count(&rendered.text), "sections": sections},
        });
        if !self.decisions.is_empty() {
            out["catalogs"] = self.catalogs_json();
        }
        out
    }

    /// Each catalog section's deferral decision and token figures, and its MCP servers: how many
    /// tools, where the list came from (`cache` or `server`) and whether the server is running.
    fn catalogs_json(&self) -> Value {
        let mut catalogs = Map::new();
        for (section, (path, decision)) in self.loaded.catalogs.iter().zip(&self.decisions) {
            let mut entry = serde_json::to_value(decision).unwrap_or(Value::Null);
            let servers: Map<String, Value> = section
                .servers()
                .into_iter()
                .map(|s| {
                    let server = json!({"tools": s.tools, "list": s.list, "running": s.running});
                    (s.name, server)
                })
                .collect();
            if !servers.is_empty() {
                entry["servers"] = Value::Object(servers);
            }
            catalogs.insert(path.clone(), entry);
        }
        Value::Object(catalogs)
    }

    /// Runs `tool` of `rendered` with `arguments` (a JSON object, read strictly as a model's
    /// arguments are: a key twice or an integer beyond 64 bits is refused rather than changed)
    /// and gives `{"success", "message", "value"}`, or `{"expansion_required": {"section_keys",
    /// "reason", "requested_overrides"}}` when the tool asks for sections to be opened.
    ///
    /// # Errors
    /// [`RunError::Usage`] when the arguments are not a JSON object, when `rendered` does not
    /// offer `tool` (naming the summarized section that holds it, and the tools offered), or
    /// when the executor refuses the call.
    pub fn call_tool(
        &self,
        rendered: &RenderedPrompt,
        tool: &str,
        arguments: &str,
    ) -> Result<Value> {
        let arguments = match wink_schema::parse_strict_json(arguments) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => return Err(RunError::usage("ARGS_JSON must be a JSON object")),
            Err(wink_schema::StrictJsonError::Syntax(e)) => {
                return Err(RunError::usage(format!("ARGS_JSON is not valid JSON: {e}")));
            }
            Err(e) => return Err(RunError::usage(format!("ARGS_JSON: {e}"))),
        };
        if rendered.tool(tool).is_none() {
            return Err(RunError::usage(not_offered(rendered, tool)));
        }
        let executor = ToolExecutor {
            adapter: "cli".into(),
            resources: self.resources.clone(),
            ..ToolExecutor::new(self.session.clone(), self.loaded.template.display_name())
        };
        let call = ToolCall {
            id: "call_0".into(),
            name: tool.to_owned(),
            arguments: ToolArguments::Json(arguments),
        };
        let outcome = block_on(executor.execute(&call, &rendered.tools, Some(rendered)))
            .map_err(|e| RunError::usage(e.message))?;
        Ok(match outcome {
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
        })
    }
}

/// Why `tool` cannot be called: the section that hides it (with the `--expand` that opens it)
/// and the tools offered.
fn not_offered(rendered: &RenderedPrompt, tool: &str) -> String {
    let offered = rendered.tool_names().join(", ");
    let hint = match rendered.template_tool(tool) {
        Some((path, _)) => format!(
            " (it belongs to section '{}', which is summarized or disabled; try --expand {})",
            path.dotted(),
            path.dotted()
        ),
        None => String::new(),
    };
    format!(
        "tool '{tool}' is not offered by the rendered prompt{hint}; offered: {}",
        if offered.is_empty() { "none" } else { &offered }
    )
}
