//! Prompt formatting for ChatML-family chat templates (Qwen2.5 and friends), with tools.
//!
//! The GGUF's own Jinja template is not executed: ChatML templates are recognised by their `<|im_start|>`
//! marker and the prompt is built natively, byte-for-byte as Qwen2.5's template renders it (a `# Tools`
//! block in the system message, `<tool_call>` blocks in assistant turns, `<tool_response>` blocks in user
//! turns). Building it natively keeps the prompt prefix stable across calls, which the KV cache reuse needs.

use crate::chat::{ChatMessage, ChatRequest, Role, ToolSpec};
use serde_json::Value;

/// The marker that identifies a ChatML-family template.
const CHATML_START: &str = "<|im_start|>";
const CHATML_END: &str = "<|im_end|>";

/// A recognised chat template: how to turn a [`ChatRequest`] into prompt text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatTemplate {
    default_system: Option<String>,
}

impl ChatTemplate {
    /// Recognises a template by its Jinja source. Returns `None` for templates that are not ChatML.
    ///
    /// The default system prompt (used when the conversation has none) is taken from the template when it
    /// holds a literal `<|im_start|>system\n…<|im_end|>` string, as Qwen2.5 and SmolLM2 templates do.
    #[must_use]
    pub fn detect(source: &str) -> Option<Self> {
        if !source.contains(CHATML_START) || !source.contains(CHATML_END) {
            return None;
        }
        Some(Self {
            default_system: literal_default_system(source),
        })
    }

    /// A ChatML template with the given default system prompt.
    #[must_use]
    pub fn chatml(default_system: Option<&str>) -> Self {
        Self {
            default_system: default_system.map(str::to_owned),
        }
    }

    /// The default system prompt found in the template, if any.
    #[must_use]
    pub fn default_system(&self) -> Option<&str> {
        self.default_system.as_deref()
    }

    /// Renders the conversation and tools as prompt text ending with the opening of the assistant turn.
    #[must_use]
    pub fn render(&self, request: &ChatRequest) -> String {
        let mut out = String::new();
        let messages = &request.messages;
        let explicit_system = messages
            .first()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str());
        let system = explicit_system.or(self.default_system.as_deref());

        if request.tools.is_empty() {
            if let Some(system) = system {
                push_turn(&mut out, "system", system);
            }
        } else {
            out.push_str(CHATML_START);
            out.push_str("system\n");
            if let Some(system) = system {
                out.push_str(system);
                out.push_str("\n\n");
            }
            out.push_str(&tools_block(&request.tools));
            out.push_str(CHATML_END);
            out.push('\n');
        }

        let skip = usize::from(explicit_system.is_some());
        for (index, message) in messages.iter().enumerate().skip(skip) {
            match message.role {
                Role::System | Role::User => {
                    push_turn(&mut out, message.role.as_str(), &message.content)
                }
                Role::Assistant if message.tool_calls.is_empty() => {
                    push_turn(&mut out, "assistant", &message.content);
                }
                Role::Assistant => push_assistant_calls(&mut out, message),
                Role::Tool => {
                    let previous_is_tool = index > 0 && messages[index - 1].role == Role::Tool;
                    let next_is_tool = messages
                        .get(index + 1)
                        .is_some_and(|m| m.role == Role::Tool);
                    if !previous_is_tool {
                        out.push_str(CHATML_START);
                        out.push_str("user");
                    }
                    out.push_str("\n<tool_response>\n");
                    out.push_str(&message.content);
                    out.push_str("\n</tool_response>");
                    if !next_is_tool {
                        out.push_str(CHATML_END);
                        out.push('\n');
                    }
                }
            }
        }
        out.push_str(CHATML_START);
        out.push_str("assistant\n");
        out
    }
}

/// The `# Tools` section of the system message, as Qwen2.5's template writes it.
fn tools_block(tools: &[ToolSpec]) -> String {
    let mut out = String::from(
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>",
    );
    for tool in tools {
        let entry = serde_json::json!({
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            }
        });
        out.push('\n');
        out.push_str(&python_json(&entry));
    }
    out.push_str(
        "\n</tools>\n\nFor each function call, return a json object with function name and arguments within \
         <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": \
         <args-json-object>}\n</tool_call>",
    );
    out
}

fn push_turn(out: &mut String, role: &str, content: &str) {
    out.push_str(CHATML_START);
    out.push_str(role);
    out.push('\n');
    out.push_str(content);
    out.push_str(CHATML_END);
    out.push('\n');
}

fn push_assistant_calls(out: &mut String, message: &ChatMessage) {
    out.push_str(CHATML_START);
    out.push_str("assistant");
    if !message.content.is_empty() {
        out.push('\n');
        out.push_str(&message.content);
    }
    for call in &message.tool_calls {
        out.push_str("\n<tool_call>\n");
        out.push_str(&tool_call_json(&call.name, &call.arguments));
        out.push_str("\n</tool_call>");
    }
    out.push_str(CHATML_END);
    out.push('\n');
}

/// `{"name": "NAME", "arguments": ARGS}` exactly as the template writes a call (and as the model emits it).
pub(crate) fn tool_call_json(name: &str, arguments: &Value) -> String {
    format!(
        "{{\"name\": {}, \"arguments\": {}}}",
        python_json(&Value::String(name.to_owned())),
        python_json(arguments)
    )
}

/// Serialises like Python's `json.dumps(value, ensure_ascii=False)` (the `tojson` filter of Hugging Face chat
/// templates): `", "` between items and `": "` after keys, keys in their given order.
#[must_use]
pub fn python_json(value: &Value) -> String {
    wink_schema::python::dumps(value, false)
}

/// Finds a literal default system prompt: `<|im_start|>system\n` followed by plain text up to `<|im_end|>`,
/// inside one Jinja string literal (so no quotes, braces or `+` in between).
fn literal_default_system(source: &str) -> Option<String> {
    let opener = format!("{CHATML_START}system\\n");
    let mut rest = source;
    while let Some(start) = rest.find(&opener) {
        let after = &rest[start + opener.len()..];
        if let Some(end) = after.find(CHATML_END) {
            let candidate = &after[..end];
            let is_literal =
                !candidate.is_empty() && !candidate.contains(['\'', '"', '{', '}', '+', '\n']);
            if is_literal {
                return Some(unescape_jinja(candidate));
            }
        }
        rest = after;
    }
    None
}

fn unescape_jinja(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{ChatMessage, ChatRequest, ToolCall};
    use serde_json::json;

    const QWEN25_TEMPLATE: &str = include_str!("../tests/data/qwen25_chat_template.jinja");

    fn qwen() -> ChatTemplate {
        ChatTemplate::detect(QWEN25_TEMPLATE).unwrap()
    }

    fn add_tool() -> ToolSpec {
        ToolSpec::new(
            "add",
            "Add two integers.",
            json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
        )
    }

    #[test]
    fn detects_qwen_default_system_prompt() {
        assert_eq!(
            qwen().default_system(),
            Some("You are Qwen, created by Alibaba Cloud. You are a helpful assistant.")
        );
    }

    #[test]
    fn detects_smollm_style_template_and_rejects_llama3_style() {
        let smol = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}";
        assert_eq!(
            ChatTemplate::detect(smol).unwrap().default_system(),
            Some("You are a helpful AI assistant named SmolLM, trained by Hugging Face")
        );
        let llama3 = "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}";
        assert_eq!(ChatTemplate::detect(llama3), None);
    }

    #[test]
    fn plain_conversation_without_system_uses_default() {
        let request = ChatRequest::new(vec![ChatMessage::user("Hello")]);
        assert_eq!(
            qwen().render(&request),
            "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n\
             <|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn template_without_default_and_no_system_has_no_system_turn() {
        let request = ChatRequest::new(vec![ChatMessage::user("Hi")]);
        assert_eq!(
            ChatTemplate::chatml(None).render(&request),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    // The two snapshots below were checked byte-for-byte against Python jinja2 rendering the GGUF's own
    // template (tests/data/qwen25_chat_template.jinja) with `tojson` = `json.dumps(ensure_ascii=False)`.
    #[test]
    fn tools_round_trip_matches_qwen_template() {
        let call = ToolCall {
            id: "call_0".into(),
            name: "add".into(),
            arguments: json!({"a": 1234, "b": 4321}),
        };
        let request = ChatRequest::new(vec![
            ChatMessage::system("You are a calculator."),
            ChatMessage::user("What is 1234 plus 4321?"),
            ChatMessage::assistant_tool_calls("", vec![call.clone()]),
            ChatMessage::tool_result(&call, "{\"sum\": 5555}"),
        ])
        .with_tools(vec![add_tool()]);
        insta::assert_snapshot!(qwen().render(&request));
    }

    #[test]
    fn consecutive_tool_results_share_one_user_turn_and_late_system_is_inline() {
        let first = ToolCall {
            id: "call_0".into(),
            name: "add".into(),
            arguments: json!({"a": 1, "b": 2}),
        };
        let second = ToolCall {
            id: "call_1".into(),
            name: "add".into(),
            arguments: json!({"a": 3, "b": 4}),
        };
        let request = ChatRequest::new(vec![
            ChatMessage::user("Two sums please."),
            ChatMessage::assistant_tool_calls(
                "Calling twice.",
                vec![first.clone(), second.clone()],
            ),
            ChatMessage::tool_result(&first, "3"),
            ChatMessage::tool_result(&second, "7"),
            ChatMessage::system("Answer briefly."),
            ChatMessage::assistant("3 and 7."),
        ])
        .with_tools(vec![add_tool()]);
        insta::assert_snapshot!(qwen().render(&request));
    }

    #[test]
    fn python_json_matches_json_dumps() {
        let value = json!({"b": [1, 2.5, "x\"y\n"], "a": {"ü": null, "t": true}});
        assert_eq!(
            python_json(&value),
            r#"{"b": [1, 2.5, "x\"y\n"], "a": {"ü": null, "t": true}}"#
        );
    }
}
