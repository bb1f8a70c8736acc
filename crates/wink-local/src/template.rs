//! Prompt formatting for the common chat-template families, with tools.
//!
//! The GGUF's own Jinja template is not executed. [`ChatTemplate::detect`] recognises its family from
//! marker strings in the template text (the same rules llama.cpp's built-in template support uses) and the
//! prompt is built natively, byte-for-byte as llama.cpp's built-in template of that family writes it:
//!
//! | family | turn | assistant opening |
//! |---|---|---|
//! | [`TemplateFamily::ChatMl`] (Qwen2.5, SmolLM2, …) | `<\|im_start\|>user\n…<\|im_end\|>\n` | `<\|im_start\|>assistant\n` |
//! | [`TemplateFamily::Llama3`] | `<\|start_header_id\|>user<\|end_header_id\|>\n\n…<\|eot_id\|>` | `<\|start_header_id\|>assistant<\|end_header_id\|>\n\n` |
//! | [`TemplateFamily::Gemma`] | `<start_of_turn>user\n…<end_of_turn>\n` (system text opens the next user turn) | `<start_of_turn>model\n` |
//! | [`TemplateFamily::Phi3`] | `<\|user\|>\n…<\|end\|>\n` | `<\|assistant\|>\n` |
//! | `Mistral*` | `[INST] …[/INST]` (spacing per version; v7 has `[SYSTEM_PROMPT]`) | nothing |
//!
//! No family's native tool syntax is used. Tools are injected as text, the same way for every family: a
//! `# Tools` block (Qwen2.5's wording) ends the system message, assistant turns write their calls as
//! `<tool_call>{…}</tool_call>` blocks and tool results come back in a user turn as `<tool_response>` blocks.
//! This is exactly Qwen2.5's own template, and for the other families the grammar of
//! [`crate::grammar::turn_grammar`] keeps the model to that format whatever it was trained on. The rendered
//! text never holds a BOS token: the tokenizer adds it when the GGUF asks for one.
//!
//! Building the prompt natively keeps the prompt prefix stable across calls, which the KV cache reuse needs.
//! GGUFs of other families fall back to llama.cpp's built-in template application (see
//! [`crate::LocalModel::load`]), fed with the same [`PromptTurn`]s.

use serde_json::Value;
use wink_core::ToolCall;
use wink_model::{Message, ModelRequest, ToolSpec};

const CHATML_START: &str = "<|im_start|>";
const CHATML_END: &str = "<|im_end|>";

/// A chat-template family this crate formats natively.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TemplateFamily {
    /// `<|im_start|>role\n…<|im_end|>` (Qwen2.5, SmolLM2, Hermes, …).
    ChatMl,
    /// `<|start_header_id|>role<|end_header_id|>\n\n…<|eot_id|>` (Llama 3.x).
    Llama3,
    /// `<start_of_turn>user|model\n…<end_of_turn>` (Gemma 1–3); no system role.
    Gemma,
    /// `<|role|>\n…<|end|>` (Phi-3, Phi-3.5).
    Phi3,
    /// Mistral's official v1 template: ` [INST] … [/INST] …</s>`.
    MistralV1,
    /// Mistral's official v3 template: `[INST] …[/INST] …</s>` (assistant text trimmed).
    MistralV3,
    /// Mistral's official v3-tekken template: `[INST]…[/INST]…</s>`.
    MistralV3Tekken,
    /// Mistral's official v7 template: `[SYSTEM_PROMPT] …[/SYSTEM_PROMPT][INST] …[/INST] …</s>`.
    MistralV7,
}

impl TemplateFamily {
    /// The family of a Jinja chat template, found by the marker strings llama.cpp's built-in template
    /// detection looks for. `None` for families not formatted natively (Phi-4, Llama 2, DeepSeek, …).
    #[must_use]
    pub fn detect(source: &str) -> Option<Self> {
        let has = |marker: &str| source.contains(marker);
        if has(CHATML_START) {
            // Phi-4 and SmolVLM reuse <|im_start|> with different layouts.
            return (!has("<|im_sep|>") && !has("<end_of_utterance>")).then_some(Self::ChatMl);
        }
        if source.starts_with("mistral") || has("[INST]") {
            if has("[SYSTEM_PROMPT]") {
                return Some(Self::MistralV7);
            }
            // Only Mistral's official templates; Llama 2-style [INST] templates are left to llama.cpp.
            if has("' [INST] ' + system_message") || has("[AVAILABLE_TOOLS]") {
                return Some(if has(" [INST]") {
                    Self::MistralV1
                } else if has("\"[INST]\"") {
                    Self::MistralV3Tekken
                } else {
                    Self::MistralV3
                });
            }
            return None;
        }
        if has("<|assistant|>") && has("<|end|>") {
            return Some(Self::Phi3);
        }
        if has("<start_of_turn>") {
            return Some(Self::Gemma);
        }
        if has("<|start_header_id|>") && has("<|end_header_id|>") {
            return Some(Self::Llama3);
        }
        None
    }

    /// The name of llama.cpp's built-in template for this family (`chatml`, `llama3`, `mistral-v1`, …).
    #[must_use]
    pub fn llama_cpp_name(self) -> &'static str {
        match self {
            Self::ChatMl => "chatml",
            Self::Llama3 => "llama3",
            Self::Gemma => "gemma",
            Self::Phi3 => "phi3",
            Self::MistralV1 => "mistral-v1",
            Self::MistralV3 => "mistral-v3",
            Self::MistralV3Tekken => "mistral-v3-tekken",
            Self::MistralV7 => "mistral-v7",
        }
    }
}

/// Who speaks in a [`PromptTurn`]: a chat template knows only these three (tool results are
/// user turns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// Instructions: the system prompt (and system messages later in the conversation).
    System,
    /// The user, and tool results.
    User,
    /// The model's turns, tool calls written out as text.
    Assistant,
}

impl Role {
    /// The lowercase role name used by chat templates (`system`, `user`, `assistant`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One turn of the conversation as a chat template sees it: tools, tool calls and tool results already
/// written out as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptTurn {
    /// Who speaks.
    pub role: Role,
    /// The text of the turn.
    pub content: String,
}

impl PromptTurn {
    fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
        }
    }
}

/// A recognised chat template: how to turn a [`ModelRequest`] into prompt text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatTemplate {
    family: TemplateFamily,
    default_system: Option<String>,
}

impl ChatTemplate {
    /// Recognises a template by its Jinja source. Returns `None` for families not formatted natively.
    ///
    /// For ChatML templates the default system prompt (used when the conversation has none) is taken from
    /// the template when it holds a literal `<|im_start|>system\n…<|im_end|>` string, as Qwen2.5 and SmolLM2
    /// templates do.
    #[must_use]
    pub fn detect(source: &str) -> Option<Self> {
        let family = TemplateFamily::detect(source)?;
        let default_system = match family {
            TemplateFamily::ChatMl => literal_default_system(source),
            _ => None,
        };
        Some(Self {
            family,
            default_system,
        })
    }

    /// A template of `family` with the given default system prompt.
    #[must_use]
    pub fn new(family: TemplateFamily, default_system: Option<&str>) -> Self {
        Self {
            family,
            default_system: default_system.map(str::to_owned),
        }
    }

    /// A ChatML template with the given default system prompt.
    #[must_use]
    pub fn chatml(default_system: Option<&str>) -> Self {
        Self::new(TemplateFamily::ChatMl, default_system)
    }

    /// The template's family.
    #[must_use]
    pub fn family(&self) -> TemplateFamily {
        self.family
    }

    /// The default system prompt found in the template, if any.
    #[must_use]
    pub fn default_system(&self) -> Option<&str> {
        self.default_system.as_deref()
    }

    /// Renders the conversation and tools as prompt text ending with the opening of the assistant turn.
    #[must_use]
    pub fn render(&self, request: &ModelRequest) -> String {
        let turns = prompt_turns(request, self.default_system.as_deref());
        let mut out = String::new();
        match self.family {
            TemplateFamily::ChatMl => {
                for turn in &turns {
                    out.push_str(CHATML_START);
                    out.push_str(turn.role.as_str());
                    out.push('\n');
                    out.push_str(&turn.content);
                    out.push_str(CHATML_END);
                    out.push('\n');
                }
                out.push_str("<|im_start|>assistant\n");
            }
            TemplateFamily::Llama3 => {
                for turn in &turns {
                    out.push_str("<|start_header_id|>");
                    out.push_str(turn.role.as_str());
                    out.push_str("<|end_header_id|>\n\n");
                    out.push_str(turn.content.trim());
                    out.push_str("<|eot_id|>");
                }
                out.push_str("<|start_header_id|>assistant<|end_header_id|>\n\n");
            }
            TemplateFamily::Gemma => render_gemma(&mut out, &turns),
            TemplateFamily::Phi3 => {
                for turn in &turns {
                    out.push_str("<|");
                    out.push_str(turn.role.as_str());
                    out.push_str("|>\n");
                    out.push_str(&turn.content);
                    out.push_str("<|end|>\n");
                }
                out.push_str("<|assistant|>\n");
            }
            TemplateFamily::MistralV1 => render_mistral(&mut out, &turns, " ", " ", false),
            TemplateFamily::MistralV3 => render_mistral(&mut out, &turns, "", " ", true),
            TemplateFamily::MistralV3Tekken => render_mistral(&mut out, &turns, "", "", false),
            TemplateFamily::MistralV7 => render_mistral_v7(&mut out, &turns),
        }
        out
    }
}

/// Gemma has no system role: system text (trimmed) opens the next user turn, followed by a blank line.
fn render_gemma(out: &mut String, turns: &[PromptTurn]) {
    let mut pending_system = String::new();
    for turn in turns {
        let role = match turn.role {
            Role::System => {
                pending_system.push_str(turn.content.trim());
                continue;
            }
            Role::Assistant => "model",
            _ => "user",
        };
        out.push_str("<start_of_turn>");
        out.push_str(role);
        out.push('\n');
        if role == "user" && !pending_system.is_empty() {
            out.push_str(&pending_system);
            out.push_str("\n\n");
            pending_system.clear();
        }
        out.push_str(turn.content.trim());
        out.push_str("<end_of_turn>\n");
    }
    out.push_str("<start_of_turn>model\n");
}

/// Mistral v1/v3/v3-tekken, as llama.cpp writes them: system text opens the instruction block, an assistant
/// turn closes it with `</s>`. Consecutive user turns share one block, separated by a blank line.
fn render_mistral(
    out: &mut String,
    turns: &[PromptTurn],
    leading_space: &str,
    trailing_space: &str,
    trim_assistant: bool,
) {
    let mut inside_block = false;
    let mut after_user = false;
    for turn in turns {
        if !inside_block {
            out.push_str(leading_space);
            out.push_str("[INST]");
            out.push_str(trailing_space);
            inside_block = true;
        }
        match turn.role {
            Role::Assistant => {
                out.push_str(trailing_space);
                out.push_str(if trim_assistant {
                    turn.content.trim()
                } else {
                    &turn.content
                });
                out.push_str("</s>");
                inside_block = false;
                after_user = false;
            }
            Role::System if !after_user => {
                out.push_str(&turn.content);
                out.push_str("\n\n");
            }
            _ => {
                if after_user {
                    // Reopen the block the previous user turn closed, keeping one instruction.
                    let close = format!("{leading_space}[/INST]");
                    out.truncate(out.len() - close.len());
                    out.push_str("\n\n");
                }
                out.push_str(&turn.content);
                out.push_str(leading_space);
                out.push_str("[/INST]");
                after_user = true;
            }
        }
    }
}

/// Mistral v7: `[SYSTEM_PROMPT] …[/SYSTEM_PROMPT]`, `[INST] …[/INST]`, ` …</s>`.
fn render_mistral_v7(out: &mut String, turns: &[PromptTurn]) {
    for turn in turns {
        match turn.role {
            Role::System => {
                out.push_str("[SYSTEM_PROMPT] ");
                out.push_str(&turn.content);
                out.push_str("[/SYSTEM_PROMPT]");
            }
            Role::Assistant => {
                out.push(' ');
                out.push_str(&turn.content);
                out.push_str("</s>");
            }
            _ => {
                out.push_str("[INST] ");
                out.push_str(&turn.content);
                out.push_str("[/INST]");
            }
        }
    }
}

/// The conversation of `request` as template turns, with tools written out as text:
///
/// * the system message (the request's leading one, else `default_system`) gets the `# Tools` block
///   appended after a blank line when tools are offered from the start (the block alone when there is no
///   system text); tools named in [`ModelRequest::tool_additions`] are not listed there;
/// * an assistant turn with calls is its text (if any) and one `<tool_call>\n{…}\n</tool_call>` block per
///   call, joined by newlines;
/// * consecutive tool results become one user turn of `<tool_response>\n…\n</tool_response>` blocks joined
///   by newlines;
/// * tools added mid-conversation are announced at the end of the turn holding the message after which
///   they became available, after a blank line (see [`tools_announcement`]). Nothing before that point
///   changes, so a growing conversation renders to a growing prompt.
#[must_use]
pub fn prompt_turns(request: &ModelRequest, default_system: Option<&str>) -> Vec<PromptTurn> {
    let messages = &request.messages;
    let explicit_system = match messages.first() {
        Some(Message::System { content }) => Some(content.as_str()),
        _ => None,
    };
    let system = explicit_system.or(default_system);
    let late: Vec<&str> = request
        .tool_additions
        .iter()
        .flat_map(|addition| addition.tools.iter().map(String::as_str))
        .collect();
    let initial: Vec<&ToolSpec> = request
        .tools
        .iter()
        .filter(|tool| !late.contains(&tool.name.as_str()))
        .collect();
    let mut tools_listed = !initial.is_empty();
    let mut turns = Vec::with_capacity(messages.len() + 1);
    match (system, initial.is_empty()) {
        (Some(system), true) => turns.push(PromptTurn::new(Role::System, system)),
        (Some(system), false) => turns.push(PromptTurn::new(
            Role::System,
            format!("{system}\n\n{}", tools_block(&initial)),
        )),
        (None, false) => turns.push(PromptTurn::new(Role::System, tools_block(&initial))),
        (None, true) => {}
    }
    let last_index = messages.len().saturating_sub(1);
    let mut previous_was_tool = false;
    for (index, message) in messages.iter().enumerate() {
        let is_leading_system = index == 0 && explicit_system.is_some();
        if !is_leading_system {
            push_message(&mut turns, message, previous_was_tool);
            previous_was_tool = matches!(message, Message::Tool { .. });
        }
        let announced: Vec<&ToolSpec> = request
            .tool_additions
            .iter()
            .filter(|a| a.after_message.min(last_index) == index)
            .flat_map(|a| a.tools.iter())
            .filter_map(|name| request.tools.iter().find(|t| t.name == *name))
            .collect();
        if announced.is_empty() {
            continue;
        }
        let text = tools_announcement(&announced, tools_listed);
        tools_listed = true;
        match turns.last_mut() {
            Some(turn) if !turn.content.is_empty() => {
                turn.content.push_str("\n\n");
                turn.content.push_str(&text);
            }
            Some(turn) => turn.content = text,
            None => turns.push(PromptTurn::new(Role::System, text)),
        }
    }
    turns
}

fn push_message(turns: &mut Vec<PromptTurn>, message: &Message, previous_was_tool: bool) {
    match message {
        Message::Tool { content, .. } => {
            let block = format!("<tool_response>\n{content}\n</tool_response>");
            match turns.last_mut().filter(|_| previous_was_tool) {
                Some(turn) => {
                    turn.content.push('\n');
                    turn.content.push_str(&block);
                }
                None => turns.push(PromptTurn::new(Role::User, block)),
            }
        }
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let content = content.as_deref().unwrap_or_default();
            let text = if tool_calls.is_empty() {
                content.to_owned()
            } else {
                assistant_calls(content, tool_calls)
            };
            turns.push(PromptTurn::new(Role::Assistant, text));
        }
        Message::System { content } => turns.push(PromptTurn::new(Role::System, content.clone())),
        Message::User { content } => turns.push(PromptTurn::new(Role::User, content.clone())),
        // A message kind this crate does not know yet says nothing to a chat template.
        _ => {}
    }
}

/// An assistant turn with calls: its text (if any) and one `<tool_call>` block per call, joined
/// by newlines. The arguments are written as JSON (text arguments parsed, empty text as `{}`).
fn assistant_calls(content: &str, tool_calls: &[ToolCall]) -> String {
    let mut parts = Vec::with_capacity(tool_calls.len() + 1);
    if !content.is_empty() {
        parts.push(content.to_owned());
    }
    for call in tool_calls {
        parts.push(format!(
            "<tool_call>\n{}\n</tool_call>",
            tool_call_json(&call.name, &call.arguments.to_value())
        ));
    }
    parts.join("\n")
}

const TOOLS_INTRO: &str = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
    You are provided with function signatures within <tools></tools> XML tags:";
const TOOLS_CALL_FORMAT: &str = "For each function call, return a json object with function name and arguments within \
    <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": \
    <args-json-object>}\n</tool_call>";
/// Opens the announcement of tools added after others were listed.
pub const NEW_TOOLS_INTRO: &str =
    "# New tools\n\nThese functions are now available too, within <tools></tools> XML tags:";

/// The `# Tools` section of the system message, as Qwen2.5's template writes it.
fn tools_block(tools: &[&ToolSpec]) -> String {
    format!(
        "{TOOLS_INTRO}\n{}\n\n{TOOLS_CALL_FORMAT}",
        tools_list(tools)
    )
}

/// `<tools>`, one JSON line per tool as Qwen2.5's template writes them, `</tools>`.
fn tools_list(tools: &[&ToolSpec]) -> String {
    let mut out = String::from("<tools>");
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
    out.push_str("\n</tools>");
    out
}

/// The text announcing tools that became available mid-conversation. When tools were listed before
/// (`tools_listed`), a short [`NEW_TOOLS_INTRO`] and the same `<tools>` lines the system message uses;
/// otherwise the whole `# Tools` block, call format included.
#[must_use]
pub fn tools_announcement(tools: &[&ToolSpec], tools_listed: bool) -> String {
    if tools_listed {
        format!("{NEW_TOOLS_INTRO}\n{}", tools_list(tools))
    } else {
        tools_block(tools)
    }
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
/// templates): `", "` between items and `": "` after keys, keys in their given order. The same
/// function as [`wink_core::python_json`] (one copy in the workspace).
pub use wink_core::python_json;

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
    use serde_json::json;
    use wink_core::ToolArguments;

    const QWEN25_TEMPLATE: &str = include_str!("../tests/data/qwen25_chat_template.jinja");

    fn qwen() -> ChatTemplate {
        ChatTemplate::detect(QWEN25_TEMPLATE).unwrap()
    }

    /// A request of `messages` offering `tools`.
    fn conversation(messages: Vec<Message>, tools: Vec<ToolSpec>) -> ModelRequest {
        ModelRequest {
            messages,
            tools,
            ..ModelRequest::default()
        }
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
    fn detects_smollm_style_template() {
        let smol = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}";
        assert_eq!(
            ChatTemplate::detect(smol).unwrap().default_system(),
            Some("You are a helpful AI assistant named SmolLM, trained by Hugging Face")
        );
    }

    #[test]
    fn plain_conversation_without_system_uses_default() {
        let request = conversation(vec![Message::user("Hello")], Vec::new());
        assert_eq!(
            qwen().render(&request),
            "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n\
             <|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn template_without_default_and_no_system_has_no_system_turn() {
        let request = conversation(vec![Message::user("Hi")], Vec::new());
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
            arguments: ToolArguments::Json(json!({"a": 1234, "b": 4321})),
        };
        let request = conversation(
            vec![
                Message::system("You are a calculator."),
                Message::user("What is 1234 plus 4321?"),
                Message::assistant_tool_calls("", vec![call.clone()]),
                Message::tool_result(&call, "{\"sum\": 5555}"),
            ],
            vec![add_tool()],
        );
        insta::assert_snapshot!(qwen().render(&request));
    }

    #[test]
    fn consecutive_tool_results_share_one_user_turn_and_late_system_is_inline() {
        let first = ToolCall {
            id: "call_0".into(),
            name: "add".into(),
            arguments: ToolArguments::Json(json!({"a": 1, "b": 2})),
        };
        let second = ToolCall {
            id: "call_1".into(),
            name: "add".into(),
            arguments: ToolArguments::Json(json!({"a": 3, "b": 4})),
        };
        let request = conversation(
            vec![
                Message::user("Two sums please."),
                Message::assistant_tool_calls(
                    "Calling twice.",
                    vec![first.clone(), second.clone()],
                ),
                Message::tool_result(&first, "3"),
                Message::tool_result(&second, "7"),
                Message::system("Answer briefly."),
                Message::assistant("3 and 7."),
            ],
            vec![add_tool()],
        );
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

    const LLAMA3_TEMPLATE: &str = "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";
    const GEMMA_TEMPLATE: &str = "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{% for message in messages %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif %}";
    const PHI3_TEMPLATE: &str = "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\\n' + message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\\n' + message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\\n' + message['content'] + '<|end|>\\n'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% else %}{{ eos_token }}{% endif %}";
    const MISTRAL_V1_TEMPLATE: &str = "{%- for message in loop_messages %}{%- if message['role'] == 'user' %}{%- if loop.first and system_message is defined %}{{- ' [INST] ' + system_message + '\\n\\n' + message['content'] + ' [/INST]' }}{%- else %}{{- ' [INST] ' + message['content'] + ' [/INST]' }}{%- endif %}{%- elif message['role'] == 'assistant' %}{{- ' ' + message['content'] + eos_token}}{%- endif %}{%- endfor %}";
    const MISTRAL_V3_TEMPLATE: &str = "{%- for message in loop_messages %}{%- if message[\"role\"] == \"user\" %}{%- if tools is not none and (message == user_messages[-1]) %}{{- \"[AVAILABLE_TOOLS] [\" }}{%- endif %}{{- \"[INST] \" + message[\"content\"] + \"[/INST]\" }}{%- elif message[\"role\"] == \"assistant\" %}{{- \" \" + message[\"content\"]|trim + eos_token}}{%- endif %}{%- endfor %}";
    const MISTRAL_V3_TEKKEN_TEMPLATE: &str = "{%- for message in loop_messages %}{%- if message[\"role\"] == \"user\" %}{%- if tools is not none %}{{- \"[AVAILABLE_TOOLS][\" }}{%- endif %}{{- \"[INST]\" + message[\"content\"] + \"[/INST]\" }}{%- elif message[\"role\"] == \"assistant\" %}{{- message[\"content\"] + eos_token}}{%- endif %}{%- endfor %}";
    const MISTRAL_V7_TEMPLATE: &str = "{%- if messages[0]['role'] == 'system' %}{{- '[SYSTEM_PROMPT] ' + messages[0]['content'] + '[/SYSTEM_PROMPT]' }}{%- endif %}{%- for message in loop_messages %}{%- if message['role'] == 'user' %}{{- '[INST] ' + message['content'] + '[/INST]' }}{%- endif %}{%- endfor %}";
    const LLAMA2_TEMPLATE: &str = "{% if messages[0]['role'] == 'system' %}{% set system_message = '<<SYS>>\\n' + messages[0]['content'].strip() + '\\n<</SYS>>\\n\\n' %}{% endif %}{% for message in loop_messages %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}{% endif %}{% endfor %}";
    const PHI4_TEMPLATE: &str = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '<|im_sep|>' + message['content'] + '<|im_end|>'}}{% endfor %}";

    #[test]
    fn detects_families_like_llama_cpp() {
        let cases = [
            (QWEN25_TEMPLATE, Some(TemplateFamily::ChatMl)),
            (LLAMA3_TEMPLATE, Some(TemplateFamily::Llama3)),
            (GEMMA_TEMPLATE, Some(TemplateFamily::Gemma)),
            (PHI3_TEMPLATE, Some(TemplateFamily::Phi3)),
            (MISTRAL_V1_TEMPLATE, Some(TemplateFamily::MistralV1)),
            (MISTRAL_V3_TEMPLATE, Some(TemplateFamily::MistralV3)),
            (
                MISTRAL_V3_TEKKEN_TEMPLATE,
                Some(TemplateFamily::MistralV3Tekken),
            ),
            (MISTRAL_V7_TEMPLATE, Some(TemplateFamily::MistralV7)),
            (LLAMA2_TEMPLATE, None),
            (PHI4_TEMPLATE, None),
            ("{{ messages }}", None),
        ];
        for (source, family) in cases {
            assert_eq!(TemplateFamily::detect(source), family, "{source}");
            assert_eq!(
                ChatTemplate::detect(source).map(|t| t.family()),
                family,
                "{source}"
            );
        }
        assert_eq!(
            ChatTemplate::detect(LLAMA3_TEMPLATE)
                .unwrap()
                .default_system(),
            None
        );
    }

    /// System, user, assistant, user: the conversation every family renders the same way as llama.cpp.
    fn plain_conversation() -> ModelRequest {
        conversation(
            vec![
                Message::system("Be brief."),
                Message::user("Hi "),
                Message::assistant(" Hello!"),
                Message::user("Bye"),
            ],
            Vec::new(),
        )
    }

    fn render(family: TemplateFamily, request: &ModelRequest) -> String {
        ChatTemplate::new(family, None).render(request)
    }

    #[test]
    fn plain_conversations_per_family() {
        let request = plain_conversation();
        assert_eq!(
            render(TemplateFamily::ChatMl, &request),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi <|im_end|>\n\
             <|im_start|>assistant\n Hello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n"
        );
        assert_eq!(
            render(TemplateFamily::Llama3, &request),
            "<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>\
             <|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>\
             <|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\n"
        );
        assert_eq!(
            render(TemplateFamily::Gemma, &request),
            "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n\
             <start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n"
        );
        assert_eq!(
            render(TemplateFamily::Phi3, &request),
            "<|system|>\nBe brief.<|end|>\n<|user|>\nHi <|end|>\n<|assistant|>\n Hello!<|end|>\n\
             <|user|>\nBye<|end|>\n<|assistant|>\n"
        );
        assert_eq!(
            render(TemplateFamily::MistralV1, &request),
            " [INST] Be brief.\n\nHi  [/INST]  Hello!</s> [INST] Bye [/INST]"
        );
        assert_eq!(
            render(TemplateFamily::MistralV3, &request),
            "[INST] Be brief.\n\nHi [/INST] Hello!</s>[INST] Bye[/INST]"
        );
        assert_eq!(
            render(TemplateFamily::MistralV3Tekken, &request),
            "[INST]Be brief.\n\nHi [/INST] Hello!</s>[INST]Bye[/INST]"
        );
        assert_eq!(
            render(TemplateFamily::MistralV7, &request),
            "[SYSTEM_PROMPT] Be brief.[/SYSTEM_PROMPT][INST] Hi [/INST]  Hello!</s>[INST] Bye[/INST]"
        );
    }

    /// A small tool keeps the expected texts readable.
    fn ping_tool() -> ToolSpec {
        ToolSpec::new("ping", "Ping.", json!({"type": "object"}))
    }

    const PING_TOOLS_BLOCK: &str = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
        You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n\
        {\"type\": \"function\", \"function\": {\"name\": \"ping\", \"description\": \"Ping.\", \"parameters\": {\"type\": \"object\"}}}\n\
        </tools>\n\nFor each function call, return a json object with function name and arguments within \
        <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";

    /// A tool round trip ending with a nudge: system, user, call, two results, user.
    fn tool_conversation() -> ModelRequest {
        let first = ToolCall {
            id: "call_0".into(),
            name: "ping".into(),
            arguments: ToolArguments::Json(json!({})),
        };
        let second = ToolCall {
            id: "call_1".into(),
            name: "ping".into(),
            arguments: ToolArguments::Json(json!({"n": 2})),
        };
        conversation(
            vec![
                Message::system("Use tools."),
                Message::user("Ping twice."),
                Message::assistant_tool_calls("", vec![first.clone(), second.clone()]),
                Message::tool_result(&first, "pong"),
                Message::tool_result(&second, "pong 2"),
                Message::user("Answer now."),
            ],
            vec![ping_tool()],
        )
    }

    const CALLS: &str = "<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}\n</tool_call>\n\
        <tool_call>\n{\"name\": \"ping\", \"arguments\": {\"n\": 2}}\n</tool_call>";
    const RESULTS: &str =
        "<tool_response>\npong\n</tool_response>\n<tool_response>\npong 2\n</tool_response>";

    #[test]
    fn tools_are_injected_as_text_into_every_family() {
        let request = tool_conversation();
        let system = format!("Use tools.\n\n{PING_TOOLS_BLOCK}");
        assert_eq!(
            prompt_turns(&request, None),
            [
                PromptTurn::new(Role::System, system.clone()),
                PromptTurn::new(Role::User, "Ping twice."),
                PromptTurn::new(Role::Assistant, CALLS),
                PromptTurn::new(Role::User, RESULTS),
                PromptTurn::new(Role::User, "Answer now."),
            ]
        );
        assert_eq!(
            render(TemplateFamily::Llama3, &request),
            format!(
                "<|start_header_id|>system<|end_header_id|>\n\n{system}<|eot_id|>\
                 <|start_header_id|>user<|end_header_id|>\n\nPing twice.<|eot_id|>\
                 <|start_header_id|>assistant<|end_header_id|>\n\n{CALLS}<|eot_id|>\
                 <|start_header_id|>user<|end_header_id|>\n\n{RESULTS}<|eot_id|>\
                 <|start_header_id|>user<|end_header_id|>\n\nAnswer now.<|eot_id|>\
                 <|start_header_id|>assistant<|end_header_id|>\n\n"
            )
        );
        assert_eq!(
            render(TemplateFamily::Gemma, &request),
            format!(
                "<start_of_turn>user\n{system}\n\nPing twice.<end_of_turn>\n\
                 <start_of_turn>model\n{CALLS}<end_of_turn>\n\
                 <start_of_turn>user\n{RESULTS}<end_of_turn>\n\
                 <start_of_turn>user\nAnswer now.<end_of_turn>\n<start_of_turn>model\n"
            )
        );
        assert_eq!(
            render(TemplateFamily::Phi3, &request),
            format!(
                "<|system|>\n{system}<|end|>\n<|user|>\nPing twice.<|end|>\n\
                 <|assistant|>\n{CALLS}<|end|>\n<|user|>\n{RESULTS}<|end|>\n\
                 <|user|>\nAnswer now.<|end|>\n<|assistant|>\n"
            )
        );
        // Consecutive user turns (the results and the nudge) share one instruction block.
        assert_eq!(
            render(TemplateFamily::MistralV3, &request),
            format!(
                "[INST] {system}\n\nPing twice.[/INST] {CALLS}</s>[INST] {RESULTS}\n\nAnswer now.[/INST]"
            )
        );
        assert_eq!(
            render(TemplateFamily::MistralV1, &request),
            format!(
                " [INST] {system}\n\nPing twice. [/INST] {CALLS}</s> [INST] {RESULTS}\n\nAnswer now. [/INST]"
            )
        );
        assert_eq!(
            render(TemplateFamily::MistralV7, &request),
            format!(
                "[SYSTEM_PROMPT] {system}[/SYSTEM_PROMPT][INST] Ping twice.[/INST] {CALLS}</s>\
                 [INST] {RESULTS}[/INST][INST] Answer now.[/INST]"
            )
        );
    }

    #[test]
    fn tools_without_system_text_make_a_system_turn_of_their_own() {
        let request = conversation(vec![Message::user("Ping.")], vec![ping_tool()]);
        assert_eq!(
            render(TemplateFamily::Gemma, &request),
            format!(
                "<start_of_turn>user\n{PING_TOOLS_BLOCK}\n\nPing.<end_of_turn>\n<start_of_turn>model\n"
            )
        );
        assert_eq!(
            render(TemplateFamily::Phi3, &request),
            format!(
                "<|system|>\n{PING_TOOLS_BLOCK}<|end|>\n<|user|>\nPing.<|end|>\n<|assistant|>\n"
            )
        );
    }

    #[test]
    fn llama_cpp_names() {
        assert_eq!(TemplateFamily::Llama3.llama_cpp_name(), "llama3");
        assert_eq!(
            TemplateFamily::MistralV3Tekken.llama_cpp_name(),
            "mistral-v3-tekken"
        );
    }
}
