//! What a tool returns and how it fails: [`ToolResult`], its payload and the
//! text the model sees, [`ToolOutput`], [`ToolError`].

use super::*;

/// What a tool returns: a message for the model, an optional value, and whether it succeeded.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult<T = ToolPayload> {
    /// Text for the model.
    pub message: String,
    /// The structured value (rendered after the message unless excluded).
    pub value: Option<T>,
    /// Whether the call succeeded. A failed call rolls back session and filesystem state.
    pub success: bool,
    /// Send only the message to the model, not the rendered value.
    pub exclude_value_from_context: bool,
}

impl<T> ToolResult<T> {
    /// A successful result with a value.
    pub fn ok(message: impl Into<String>, value: T) -> Self {
        Self {
            message: message.into(),
            value: Some(value),
            success: true,
            exclude_value_from_context: false,
        }
    }

    /// A successful result with no value.
    pub fn message(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            value: None,
            success: true,
            exclude_value_from_context: false,
        }
    }

    /// A failed result (state changes made by the call are rolled back).
    pub fn failure(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            value: None,
            success: false,
            exclude_value_from_context: false,
        }
    }

    /// Keep the value out of the model's context.
    #[must_use]
    pub fn excluding_value(mut self) -> Self {
        self.exclude_value_from_context = true;
        self
    }
}

/// A type-erased tool value: its JSON form and the text the model sees for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolPayload {
    /// The value as JSON (for events, transcripts and structured consumers).
    pub json: Value,
    /// WINK's `render_tool_payload` text.
    pub rendered: String,
}

impl ToolPayload {
    /// Erase a typed output.
    pub fn from_output<R: ToolOutput>(value: &R) -> Self {
        Self {
            json: serde_json::to_value(value).unwrap_or(Value::Null),
            rendered: value.render_payload(),
        }
    }
}

impl ToolResult<ToolPayload> {
    /// The text sent back to the model for this result (WINK's `serialize_tool_message`).
    pub fn model_text(&self) -> String {
        if self.exclude_value_from_context {
            return self.message.clone();
        }
        match self.value.as_ref().map(|v| v.rendered.as_str()) {
            Some(rendered) if !rendered.is_empty() => {
                if self.message.is_empty() {
                    rendered.to_owned()
                } else {
                    format!("{}\n\n{}", self.message, rendered)
                }
            }
            _ => self.message.clone(),
        }
    }
}

impl<R: ToolOutput> ToolResult<R> {
    /// Erase the value type.
    pub fn erase(self) -> ToolResult<ToolPayload> {
        ToolResult {
            message: self.message,
            value: self.value.as_ref().map(ToolPayload::from_output),
            success: self.success,
            exclude_value_from_context: self.exclude_value_from_context,
        }
    }
}

/// Sections that a tool call expanded, with the tools they hold (unified `read_section`).
#[derive(Debug, Clone)]
pub struct SectionExpansion {
    /// The section that was read.
    pub path: SectionPath,
    /// Tools of the section and its descendants, with the path of the section that owns each.
    pub tools: Vec<(SectionPath, ToolRef)>,
}

/// What an invocation produced.
#[derive(Debug, Clone)]
pub struct ToolResponse {
    /// The result.
    pub result: ToolResult<ToolPayload>,
    /// Set when the call disclosed tool-bearing sections (dynamic tool injection).
    pub expansion: Option<SectionExpansion>,
}

impl From<ToolResult<ToolPayload>> for ToolResponse {
    fn from(result: ToolResult<ToolPayload>) -> Self {
        Self {
            result,
            expansion: None,
        }
    }
}

/// How a tool result value reads for the model (WINK's `render()` on result dataclasses).
///
/// Implement it for your result types; the default renders the value as JSON without `null`
/// members, exactly as WINK does for a dataclass without `render()`.
pub trait ToolOutput: Serialize + Send + Sync + 'static {
    /// Custom text for the model; `None` falls back to JSON.
    fn render(&self) -> Option<String> {
        None
    }

    /// The payload text (WINK's `render_tool_payload`).
    fn render_payload(&self) -> String {
        if let Some(text) = self.render() {
            return text;
        }
        match serde_json::to_value(self) {
            Ok(value) => render_json_payload(&value),
            Err(_) => String::new(),
        }
    }
}

impl ToolOutput for String {
    fn render(&self) -> Option<String> {
        Some(self.clone())
    }
}

impl ToolOutput for Value {
    fn render(&self) -> Option<String> {
        Some(render_json_payload(self))
    }
}

impl ToolOutput for () {
    fn render(&self) -> Option<String> {
        Some(String::new())
    }
}

impl<T: ToolOutput> ToolOutput for Vec<T> {
    fn render(&self) -> Option<String> {
        Some(render_sequence(
            self.iter().map(ToolOutput::render_payload).collect(),
        ))
    }
}

/// WINK's `render_tool_payload` for a JSON value: null → empty, strings verbatim, arrays item by
/// item, everything else as Python-style JSON.
pub fn render_json_payload(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => render_sequence(items.iter().map(render_json_payload).collect()),
        Value::Object(_) => python_json(&exclude_none(value)),
        other => other.to_string(),
    }
}

pub(super) fn render_sequence(rendered: Vec<String>) -> String {
    if rendered.is_empty() {
        return "[]".to_owned();
    }
    let parsed: Result<Vec<Value>, _> = rendered
        .iter()
        .map(|s| serde_json::from_str::<Value>(s))
        .collect();
    match parsed {
        Ok(values) => python_json(&Value::Array(values)),
        Err(_) => {
            let kept: Vec<&str> = rendered
                .iter()
                .map(String::as_str)
                .filter(|s| !s.is_empty())
                .collect();
            if kept.is_empty() {
                "[]".to_owned()
            } else {
                kept.join("\n\n")
            }
        }
    }
}

/// Why a tool call did not produce a result.
#[non_exhaustive]
#[derive(Debug, Clone, thiserror::Error)]
pub enum ToolError {
    /// The arguments were wrong; the model gets `Tool validation failed: …`.
    #[error("{0}")]
    Validation(String),
    /// The handler failed; the model gets `Tool '<name>' execution failed: …`.
    #[error("{0}")]
    Failed(String),
    /// The call asks the caller to re-render with sections expanded (terminal).
    #[error("{0}")]
    ExpansionRequired(Box<VisibilityExpansionRequired>),
    /// The deadline passed during the call.
    #[error("Deadline exceeded while running the tool.")]
    DeadlineExceeded,
    /// A failure that must end the evaluation.
    #[error("{0}")]
    Fatal(String),
}

impl ToolError {
    /// A handler failure from any displayable error.
    pub fn failed(error: impl fmt::Display) -> Self {
        Self::Failed(error.to_string())
    }

    /// A validation failure.
    pub fn validation(error: impl fmt::Display) -> Self {
        Self::Validation(error.to_string())
    }
}

impl From<PromptError> for ToolError {
    fn from(error: PromptError) -> Self {
        Self::Failed(error.message().to_owned())
    }
}
