//! Message and tool content on spans (only when content capture is on): the conversation in the
//! GenAI conventions' message form, and secrets blanked out of every captured string.

use serde_json::{Value, json};

/// Values that never appear in a span: the values of the process's `*_API_KEY`, `*_TOKEN` and
/// `*_SECRET` environment variables (8 characters or more), replaced by `[REDACTED]` wherever
/// captured content holds them.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    secrets: std::sync::Arc<[String]>,
}

/// What replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

impl Redactor {
    /// The secrets of this process's environment.
    pub fn from_env() -> Self {
        Self::new(std::env::vars().filter_map(|(name, value)| {
            let upper = name.to_ascii_uppercase();
            let secret = upper.ends_with("_API_KEY")
                || upper.ends_with("_TOKEN")
                || upper.ends_with("_SECRET")
                || upper == "API_KEY";
            secret.then_some(value)
        }))
    }

    /// These secrets (shorter than 8 characters: ignored, they would blank ordinary words).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| s.chars().count() >= 8)
            .collect();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Self {
            secrets: secrets.into(),
        }
    }

    /// `text` with every secret replaced.
    pub fn clean(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in self.secrets.iter() {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        out
    }

    /// `value` as compact JSON text, secrets replaced.
    pub fn json(&self, value: &Value) -> String {
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.clean(&text)
    }
}

/// One conversation message (wink's JSON: `{"role": ..., ...}`) in the conventions' form
/// `{"role", "parts": [...]}`; the system prompt gives `None` (it goes to
/// `gen_ai.system_instructions`).
pub fn genai_message(message: &Value) -> Option<Value> {
    let role = message.get("role")?.as_str()?;
    let text = |key: &str| message.get(key).and_then(Value::as_str).map(str::to_owned);
    match role {
        "system" => None,
        "user" => Some(json!({
            "role": "user",
            "parts": [{"type": "text", "content": text("content").unwrap_or_default()}],
        })),
        "assistant" => {
            let mut parts = Vec::new();
            if let Some(content) = text("content").filter(|c| !c.is_empty()) {
                parts.push(json!({"type": "text", "content": content}));
            }
            for call in message
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                parts.push(json!({
                    "type": "tool_call",
                    "id": call.get("id").cloned().unwrap_or(Value::Null),
                    "name": call.get("name").cloned().unwrap_or(Value::Null),
                    "arguments": arguments(call.get("arguments")),
                }));
            }
            Some(json!({"role": "assistant", "parts": parts}))
        }
        "tool" => Some(json!({
            "role": "tool",
            "parts": [{
                "type": "tool_call_response",
                "id": message.get("tool_call_id").cloned().unwrap_or(Value::Null),
                "result": text("content").unwrap_or_default(),
            }],
        })),
        _ => None,
    }
}

/// Tool-call arguments as an object: JSON text is parsed, as the conventions ask.
pub fn arguments(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(text)) => {
            serde_json::from_str(text).unwrap_or(Value::String(text.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Object(serde_json::Map::new()),
    }
}

/// The system prompt among `messages`, as `gen_ai.system_instructions` holds it.
pub fn system_instructions(messages: &[Value]) -> Option<Value> {
    messages
        .iter()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("system"))
        .and_then(|m| m.get("content").and_then(Value::as_str))
        .map(|content| json!([{"type": "text", "content": content}]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_blanked_and_short_values_ignored() {
        let redactor = Redactor::new(["sk-test-1234567890".to_owned(), "short".to_owned()]);
        assert_eq!(
            redactor.clean("key sk-test-1234567890 and short"),
            "key [REDACTED] and short"
        );
        assert_eq!(
            redactor.json(&json!({"k": "sk-test-1234567890"})),
            r#"{"k":"[REDACTED]"}"#
        );
    }

    #[test]
    fn messages_take_the_conventions_form() {
        let assistant = json!({"role": "assistant", "content": "Let me look.",
            "tool_calls": [{"id": "c1", "name": "search", "arguments": "{\"q\":\"x\"}"}]});
        assert_eq!(
            genai_message(&assistant).unwrap(),
            json!({"role": "assistant", "parts": [
                {"type": "text", "content": "Let me look."},
                {"type": "tool_call", "id": "c1", "name": "search", "arguments": {"q": "x"}}
            ]})
        );
        let tool = json!({"role": "tool", "tool_call_id": "c1", "name": "search", "content": "found", "is_error": false});
        assert_eq!(
            genai_message(&tool).unwrap(),
            json!({"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "result": "found"}]})
        );
        assert_eq!(
            genai_message(&json!({"role": "system", "content": "x"})),
            None
        );
        assert_eq!(
            system_instructions(&[json!({"role": "system", "content": "Be brief."})]).unwrap(),
            json!([{"type": "text", "content": "Be brief."}])
        );
    }
}
