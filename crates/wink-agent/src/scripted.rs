//! A scripted provider: replays a list of model turns and records every request it gets — the
//! test double for the loop, also reachable from the CLI as `--model scripted:PATH`.
//!
//! Script format (JSON): `[{"tool_calls": [{"id": "c1", "name": "search", "arguments": {...}}]}, {"text": "done"}]`
//! — `arguments` may be an object or a JSON string; a turn may also carry `"usage":
//! {"input_tokens", "output_tokens", "cached_tokens"}` and `"output"` (native structured output).

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use serde::Deserialize;
use serde_json::Value;
use wink_core::{ToolArguments, ToolCall};
use wink_session::TokenUsage;

use wink_model::{FinishReason, ModelRequest, ModelTurn};
use wink_model::{ProviderAdapter, ProviderError, ProviderErrorKind, ProviderFuture, StreamSink};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedCall {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default)]
    arguments: Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedTurn {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ScriptedCall>,
    #[serde(default)]
    usage: Option<TokenUsage>,
    #[serde(default)]
    output: Option<Value>,
}

/// Replays scripted turns.
#[derive(Debug)]
pub struct ScriptedProvider {
    turns: Vec<ModelTurn>,
    state: Mutex<(usize, Vec<ModelRequest>)>,
    dynamic_tools: bool,
}

/// Why a script could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ScriptError {
    /// File.
    pub path: String,
    /// What is wrong (with line/column for JSON errors).
    pub message: String,
}

impl ScriptedProvider {
    /// A provider replaying `turns`.
    pub fn new(turns: Vec<ModelTurn>) -> Self {
        Self {
            turns,
            state: Mutex::new((0, Vec::new())),
            dynamic_tools: true,
        }
    }

    /// Parse a script from JSON text.
    pub fn from_json(text: &str, origin: &str) -> Result<Self, ScriptError> {
        let raw: Vec<ScriptedTurn> = serde_json::from_str(text).map_err(|e| ScriptError {
            path: origin.to_owned(),
            message: format!("line {} column {}: {e}", e.line(), e.column()),
        })?;
        let mut counter = 0;
        let turns = raw
            .into_iter()
            .map(|t| {
                let tool_calls: Vec<ToolCall> = t
                    .tool_calls
                    .into_iter()
                    .map(|c| {
                        counter += 1;
                        let arguments = match c.arguments {
                            Value::String(s) => ToolArguments::Text(s),
                            Value::Null => ToolArguments::Json(Value::Object(Default::default())),
                            other => ToolArguments::Json(other),
                        };
                        ToolCall {
                            id: c.id.unwrap_or_else(|| format!("call_{counter}")),
                            name: c.name,
                            arguments,
                        }
                    })
                    .collect();
                let finish_reason = if tool_calls.is_empty() {
                    FinishReason::Stop
                } else {
                    FinishReason::ToolCalls
                };
                ModelTurn {
                    text: t.text,
                    tool_calls,
                    usage: t.usage,
                    finish_reason,
                    output: t.output,
                }
            })
            .collect();
        Ok(Self::new(turns))
    }

    /// Load a script file.
    pub fn from_file(path: &Path) -> Result<Self, ScriptError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScriptError {
            path: shown.clone(),
            message: format!("cannot read: {e}"),
        })?;
        Self::from_json(&text, &shown)
    }

    /// The same script as a fresh provider (nothing replayed, no requests recorded) that
    /// replays from turn `start` (0: the first): a worker serving many requests replays it from
    /// the start for each, or from where a resumed run stopped.
    pub fn replay_from(&self, start: usize) -> Self {
        Self {
            turns: self.turns.clone(),
            state: Mutex::new((start, Vec::new())),
            dynamic_tools: self.dynamic_tools,
        }
    }

    /// Report (or not) support for dynamic tools.
    #[must_use]
    pub fn with_dynamic_tools(mut self, supported: bool) -> Self {
        self.dynamic_tools = supported;
        self
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .clone()
    }

    /// Turns not yet replayed.
    pub fn remaining(&self) -> usize {
        let s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        self.turns.len().saturating_sub(s.0)
    }
}

impl ProviderAdapter for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }
    fn model(&self) -> &str {
        "script"
    }
    fn supports_dynamic_tools(&self) -> bool {
        self.dynamic_tools
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        let turn = {
            let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            s.1.push(request.clone());
            let index = s.0;
            s.0 += 1;
            self.turns.get(index).cloned().ok_or(index)
        };
        Box::pin(async move {
            let turn = turn.map_err(|used| {
                ProviderError::new(
                    ProviderErrorKind::Other,
                    "scripted",
                    "script",
                    format!(
                        "the script has no turn {} (it has {} turns)",
                        used + 1,
                        self.turns.len()
                    ),
                )
            })?;
            if let (Some(sink), Some(text)) = (stream, &turn.text) {
                sink.on_delta(&wink_model::StreamDelta::Text { text: text.clone() });
            }
            Ok(turn)
        })
    }
}
