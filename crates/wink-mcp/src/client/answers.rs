//! How wink's MCP client answers a server that asks for input before a tool call can finish
//! (SEP-2322 `input_required`): elicitation by the person at the terminal, or declined by
//! policy; roots from the run's workspace; sampling is not offered.
//!
//! A run sets the policy in its tool resources ([`ClientAnswers`]); each answer is recorded in
//! the session as an [`McpInputAnswered`] event (what was asked and the action, never the
//! values typed).

use std::io::{BufRead, IsTerminal, Write};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use wink_session::Event;

/// What to do when a server asks the user for input (elicitation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElicitationPolicy {
    /// Show the form to the person at the terminal (stderr) and read the answers (stdin).
    Ask,
    /// Decline at once: a run without a person never waits.
    Decline,
}

impl ElicitationPolicy {
    /// `Ask` when stdin and stderr are terminals, else `Decline`.
    pub fn for_this_terminal() -> Self {
        if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            Self::Ask
        } else {
            Self::Decline
        }
    }
}

impl std::str::FromStr for ElicitationPolicy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "ask" => Ok(Self::Ask),
            "decline" => Ok(Self::Decline),
            other => Err(format!(
                "`{other}` is not an elicitation policy (ask, decline)"
            )),
        }
    }
}

/// How a run answers servers' requests for input; put it in the run's tool resources.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientAnswers {
    /// Elicitation: ask or decline.
    pub elicitation: ElicitationPolicy,
    /// The roots offered to `roots/list`, as `file://` URIs (the run's workspace).
    pub roots: Vec<String>,
}

impl Default for ClientAnswers {
    /// Decline elicitation, offer no roots.
    fn default() -> Self {
        Self {
            elicitation: ElicitationPolicy::Decline,
            roots: Vec::new(),
        }
    }
}

/// Recorded when wink answered an MCP server's request for input during a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpInputAnswered {
    /// The server (its name in the catalog).
    pub server: String,
    /// The tool being called (the server's name for it).
    pub tool: String,
    /// `elicitation/create`, `roots/list` or `sampling/createMessage`.
    pub method: String,
    /// The server's message (elicitation).
    pub message: Option<String>,
    /// `accept`, `decline`, `cancel`, `answered` (roots) or `refused` (sampling).
    pub action: String,
}

impl Event for McpInputAnswered {}

impl ClientAnswers {
    /// The answer to one input request (its JSON), and what to record. `Err` when it cannot be
    /// answered (sampling): the call fails with that message.
    pub(crate) fn answer(
        &self,
        request: &Value,
    ) -> Result<(Value, String, Option<String>), String> {
        let method = request.get("method").and_then(Value::as_str).unwrap_or("");
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "elicitation/create" => {
                let message = params.get("message").and_then(Value::as_str).map(str::to_owned);
                let (result, action) = match self.elicitation {
                    ElicitationPolicy::Decline => (json!({"action": "decline"}), "decline"),
                    ElicitationPolicy::Ask => ask_at_terminal(&params),
                };
                Ok((result, action.to_owned(), message))
            }
            "roots/list" => {
                let roots: Vec<Value> = self.roots.iter().map(|uri| json!({"uri": uri})).collect();
                Ok((json!({"roots": roots}), "answered".to_owned(), None))
            }
            "sampling/createMessage" => Err(
                "the server asked wink's client for a model completion (sampling), which this run does not offer".to_owned(),
            ),
            other => Err(format!("the server asked for `{other}`, which wink's client does not answer")),
        }
    }
}

/// Shows an elicitation form on stderr and reads the answers from stdin: one line per field
/// (an empty line takes the default, or declines when the field is required and has none).
fn ask_at_terminal(params: &Value) -> (Value, &'static str) {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock();
    let mut err = std::io::stderr().lock();
    let message = params.get("message").and_then(Value::as_str).unwrap_or("");
    let _ = writeln!(err, "\nAn MCP server asks: {message}");
    let schema = params
        .get("requestedSchema")
        .cloned()
        .unwrap_or(Value::Null);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut content = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (name, property) in &properties {
        let kind = property
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("string");
        let about = property
            .get("description")
            .or_else(|| property.get("title"))
            .and_then(Value::as_str)
            .map(|d| format!(" — {d}"))
            .unwrap_or_default();
        let default = property.get("default");
        let shown_default = default.map(|d| format!(" [{d}]")).unwrap_or_default();
        let _ = write!(err, "  {name} ({kind}){about}{shown_default}: ");
        let _ = err.flush();
        let mut line = String::new();
        if lines.read_line(&mut line).unwrap_or(0) == 0 {
            return (json!({"action": "cancel"}), "cancel");
        }
        let line = line.trim();
        let value = if line.is_empty() {
            match default {
                Some(default) => default.clone(),
                None if required.contains(&name.as_str()) => {
                    return (json!({"action": "decline"}), "decline");
                }
                None => continue,
            }
        } else {
            typed(line, kind)
        };
        content.insert(name.clone(), value);
    }
    (json!({"action": "accept", "content": content}), "accept")
}

/// A typed answer: numbers, integers and booleans parsed, anything else a string.
fn typed(line: &str, kind: &str) -> Value {
    let parsed = match kind {
        "integer" => line.parse::<i64>().ok().map(Value::from),
        "number" => line.parse::<f64>().ok().map(Value::from),
        "boolean" => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Some(Value::Bool(true)),
            "n" | "no" | "false" => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    };
    parsed.unwrap_or_else(|| Value::String(line.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declines_elicitation_answers_roots_and_refuses_sampling() {
        let answers = ClientAnswers {
            roots: vec!["file:///work".to_owned()],
            ..ClientAnswers::default()
        };
        let ask = json!({"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}});
        assert_eq!(
            answers.answer(&ask).unwrap(),
            (
                json!({"action": "decline"}),
                "decline".to_owned(),
                Some("Name?".to_owned())
            )
        );
        let roots = json!({"method": "roots/list", "params": {}});
        assert_eq!(
            answers.answer(&roots).unwrap(),
            (
                json!({"roots": [{"uri": "file:///work"}]}),
                "answered".to_owned(),
                None
            )
        );
        assert_eq!(
            answers
                .answer(&json!({"method": "sampling/createMessage", "params": {}}))
                .unwrap_err(),
            "the server asked wink's client for a model completion (sampling), which this run does not offer"
        );
        assert_eq!(typed("42", "integer"), json!(42));
        assert_eq!(typed("yes", "boolean"), json!(true));
        assert_eq!(typed("4x", "number"), json!("4x"));
        assert_eq!(
            "ask".parse::<ElicitationPolicy>(),
            Ok(ElicitationPolicy::Ask)
        );
        assert_eq!(
            "maybe".parse::<ElicitationPolicy>().unwrap_err(),
            "`maybe` is not an elicitation policy (ask, decline)"
        );
    }
}
