//! Anthropic Messages (`POST {base}/v1/messages`, headers `x-api-key` and `anthropic-version`):
//! the request body, the response body and the SSE events.
//!
//! * System messages go in the top-level `system` string (joined by a blank line).
//! * Assistant turns are `text` and `tool_use` blocks (`input` is a JSON object); tool results are
//!   `tool_result` blocks (`is_error: true` on failure; a result's PNG, JPEG, GIF and WebP images
//!   as base64 `image` blocks after its text) in a `user` message; consecutive results
//!   (and a user text that follows them) are merged into one user message, as the API requires
//!   alternating roles.
//! * Tools: `{name, description, input_schema}` under their aliases in the Anthropic dialect.
//! * Structured output: the native JSON output format, `output_config.format` =
//!   `{"type": "json_schema", "schema": ...}` (not a forced tool: a forced tool would forbid the
//!   other tools on every turn). The answer text is the JSON document.
//! * `max_tokens` is required: the request's cap or [`AdapterConfig::default_max_tokens`].
//! * Deferred tools ([`crate::DeferredTools`]): `defer_loading: true`; results of the catalog
//!   search tool carry `tool_reference` blocks naming the deferred tools they mention.
//! * Section deferral ([`AdapterConfig::section_deferral`]): every section tool (hidden or
//!   injected) goes out with `defer_loading: true` after the tools offered from the start; the
//!   tool result after which tools were injected carries a `tool_reference` block per tool.
//! * Body order: model and settings, `tools`, `tool_choice`, `system`, then `messages`.
//! * Usage: `input_tokens` is the whole prompt (`input_tokens` + `cache_creation_input_tokens` +
//!   `cache_read_input_tokens`), `cached_tokens` is `cache_read_input_tokens`.

use serde_json::{Map, Value, json};
use wink_core::ToolCall;
use wink_model::{
    FinishReason, Message, ModelRequest, ModelTurn, ProviderError, StreamSink, ToolChoice,
    ToolImage,
};
use wink_schema::output::response_schema;
use wink_session::TokenUsage;

use crate::assemble::{ArgumentStyle, StreamDecoder, TurnAssembler, structured_output};
use crate::codec::{WireCodec, unsupported_message};
use crate::config::AdapterConfig;
use crate::failure::{decode_failure, parse_body, reported_failure};
use crate::mapping::{RequestMapping, json_f32};
use crate::sse::SseEvent;

/// The request body for `request`.
///
/// # Errors
/// [`wink_model::ProviderErrorKind::Config`] for tool names or schemas that cannot be sent.
pub fn encode_request(
    request: &ModelRequest,
    config: &AdapterConfig,
) -> Result<Value, ProviderError> {
    AnthropicCodec.encode_request(request, config)
}

/// The request body, given the request's mapping.
///
/// # Errors
/// [`wink_model::ProviderErrorKind::Config`] for a message kind this format cannot carry.
pub fn encode_mapped(
    request: &ModelRequest,
    config: &AdapterConfig,
    mapping: &RequestMapping,
) -> Result<Value, ProviderError> {
    let (system, messages) = encode_conversation(request, config, mapping)?;

    // What changes least comes first and the conversation last, as the provider renders it
    // (tools, system, messages): each request's bytes then start with the previous one's.
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    body.insert(
        "max_tokens".into(),
        json!(
            request
                .max_output_tokens
                .unwrap_or(config.default_max_tokens)
        ),
    );
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json_f32(temperature));
    }
    if config.stream {
        body.insert("stream".into(), json!(true));
    }
    if let Some(spec) = &request.output {
        body.insert(
            "output_config".into(),
            json!({"format": {"type": "json_schema", "schema": response_schema(spec)}}),
        );
    }
    insert_tools(&mut body, request, mapping);
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    body.insert("messages".into(), Value::Array(messages));
    Ok(Value::Object(body))
}

/// The texts of the system messages, and the `messages` array: one entry per run of
/// same-role turns (roles must alternate), a lone text block written as a plain string.
fn encode_conversation<'r>(
    request: &'r ModelRequest,
    config: &AdapterConfig,
    mapping: &RequestMapping,
) -> Result<(Vec<&'r str>, Vec<Value>), ProviderError> {
    let mut system: Vec<&str> = Vec::new();
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for (index, message) in request.messages.iter().enumerate() {
        let (role, blocks) = match message {
            Message::System { content } => {
                system.push(content);
                continue;
            }
            Message::User { content } => ("user", vec![json!({"type": "text", "text": content})]),
            Message::Assistant {
                content,
                tool_calls,
            } => (
                "assistant",
                assistant_blocks(content.as_deref(), tool_calls, mapping),
            ),
            Message::Tool {
                tool_call_id,
                name,
                content,
                is_error,
                images,
            } => {
                let result = ToolResult {
                    index,
                    tool_call_id,
                    name,
                    content,
                    is_error: *is_error,
                    images,
                };
                ("user", vec![tool_result_block(&result, mapping)])
            }
            other => return Err(unsupported_message(config, other)),
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, blocks)| {
            let content = match blocks.as_slice() {
                [only] if only.get("type").and_then(Value::as_str) == Some("text") => {
                    only["text"].clone()
                }
                _ => Value::Array(blocks),
            };
            json!({"role": role, "content": content})
        })
        .collect();
    Ok((system, messages))
}

/// An assistant turn's blocks: its text (unless blank), then a `tool_use` block per call.
fn assistant_blocks(
    content: Option<&str>,
    tool_calls: &[ToolCall],
    mapping: &RequestMapping,
) -> Vec<Value> {
    let mut blocks = Vec::new();
    if let Some(text) = content.filter(|text| !text.trim().is_empty()) {
        blocks.push(json!({"type": "text", "text": text}));
    }
    for call in tool_calls {
        blocks.push(
            json!({"type": "tool_use", "id": call.id, "name": mapping.wire_name(&call.name),
            "input": call.arguments.to_object()}),
        );
    }
    blocks
}

/// A tool message of the conversation (message `index`).
struct ToolResult<'m> {
    index: usize,
    tool_call_id: &'m str,
    name: &'m str,
    content: &'m str,
    is_error: bool,
    images: &'m [ToolImage],
}

/// The `tool_result` block of a tool message: its text, followed by its images (PNG, JPEG, GIF
/// and WebP, as base64 `image` blocks), then `tool_reference` blocks for the deferred tools a
/// search result mentions and the tools loaded after this message.
fn tool_result_block(result: &ToolResult<'_>, mapping: &RequestMapping) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), json!("tool_result"));
    block.insert("tool_use_id".into(), json!(result.tool_call_id));
    let mut references = if mapping.is_search_tool(result.name) {
        mapping.referenced_tools(result.content)
    } else {
        Vec::new()
    };
    if let Some((_, loaded)) = mapping.loaded_by(result.index) {
        references.extend(loaded.iter().cloned());
    }
    let images = result.images.iter().filter(|image| image.is_web_format());
    if references.is_empty() && images.clone().next().is_none() {
        block.insert("content".into(), json!(result.content));
    } else {
        let mut parts = vec![json!({"type": "text", "text": result.content})];
        parts.extend(images.map(|image| {
            json!({"type": "image", "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}})
        }));
        parts.extend(
            references.iter().map(
                |tool| json!({"type": "tool_reference", "tool_name": mapping.wire_name(tool)}),
            ),
        );
        block.insert("content".into(), Value::Array(parts));
    }
    if result.is_error {
        block.insert("is_error".into(), json!(true));
    }
    Value::Object(block)
}

/// `tools` (deferred ones with `defer_loading`) and `tool_choice`, when tools are offered.
fn insert_tools(body: &mut Map<String, Value>, request: &ModelRequest, mapping: &RequestMapping) {
    let tools = mapping.tools();
    if tools.is_empty() {
        return;
    }
    let tools = tools
        .iter()
        .map(|tool| {
            let mut entry = Map::new();
            entry.insert("name".into(), json!(mapping.wire_name(&tool.name)));
            entry.insert("description".into(), json!(tool.description));
            entry.insert("input_schema".into(), mapping.wire_parameters(tool).clone());
            if mapping.is_deferred(&tool.name) {
                entry.insert("defer_loading".into(), json!(true));
            }
            Value::Object(entry)
        })
        .collect();
    body.insert("tools".into(), Value::Array(tools));
    let choice = match &request.tool_choice {
        ToolChoice::None => Some(json!({"type": "none"})),
        ToolChoice::Required => Some(json!({"type": "any"})),
        ToolChoice::Tool(name) => Some(json!({"type": "tool", "name": mapping.wire_name(name)})),
        _ => None,
    };
    if let Some(choice) = choice {
        body.insert("tool_choice".into(), choice);
    }
}

/// The raw JSON text of each `tool_use` block's `input`, in order (`None` for a block without
/// one); empty when the body does not have that shape.
fn raw_tool_inputs(body: &[u8]) -> Vec<Option<String>> {
    #[derive(serde::Deserialize)]
    struct Body<'a> {
        #[serde(borrow, default)]
        content: Vec<Block<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Block<'a> {
        #[serde(rename = "type", default)]
        kind: String,
        #[serde(borrow, default)]
        input: Option<&'a serde_json::value::RawValue>,
    }
    serde_json::from_slice::<Body<'_>>(body)
        .map(|b| {
            b.content
                .into_iter()
                .filter(|block| block.kind == "tool_use")
                .map(|block| block.input.map(|raw| raw.get().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// The turn in a (non-streamed) response body.
///
/// # Errors
/// [`wink_model::ProviderErrorKind::Decode`] with the body when it is not a message; the provider's error
/// when the body reports one.
pub fn decode_response(
    body: &[u8],
    mapping: &RequestMapping,
    config: &AdapterConfig,
) -> Result<ModelTurn, ProviderError> {
    let value = parse_body(config, body)?;
    if value.get("type").and_then(Value::as_str) == Some("error") {
        return Err(reported_failure(
            config,
            &value,
            &String::from_utf8_lossy(body),
        ));
    }
    let Some(blocks) = value.get("content").and_then(Value::as_array) else {
        return Err(decode_failure(
            config,
            "Response has no content array.",
            body,
        ));
    };
    let mut text: Option<String> = None;
    let mut tool_calls = Vec::new();
    let mut raw_inputs = raw_tool_inputs(body).into_iter();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.get_or_insert_with(String::new).push_str(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            Some("tool_use") => {
                let (Some(id), Some(name)) = (
                    block.get("id").and_then(Value::as_str),
                    block.get("name").and_then(Value::as_str),
                ) else {
                    return Err(decode_failure(
                        config,
                        "A tool_use block lacks id or name.",
                        body,
                    ));
                };
                // The input as the server wrote it, so the executor's strict parse refuses a key
                // given twice or an integer beyond 64 bits, as for the other formats (issue 23).
                let arguments = match raw_inputs.next().flatten() {
                    Some(raw) => wink_core::ToolArguments::Text(raw),
                    None => wink_core::ToolArguments::Json(
                        block
                            .get("input")
                            .cloned()
                            .unwrap_or_else(|| Value::Object(Map::new())),
                    ),
                };
                tool_calls.push(ToolCall {
                    id: id.to_owned(),
                    name: mapping.canonical_name(name),
                    arguments,
                });
            }
            _ => {}
        }
    }
    let output = structured_output(mapping, text.as_deref());
    Ok(ModelTurn {
        text,
        tool_calls,
        usage: usage(value.get("usage")),
        finish_reason: stop_reason(value.get("stop_reason").and_then(Value::as_str)),
        output,
    })
}

fn stop_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        None | Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("refusal") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

fn usage(usage: Option<&Value>) -> Option<TokenUsage> {
    let usage = usage.filter(|usage| usage.is_object())?;
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    let cached = count("cache_read_input_tokens");
    Some(TokenUsage {
        input_tokens: count("input_tokens") + count("cache_creation_input_tokens") + cached,
        output_tokens: count("output_tokens"),
        cached_tokens: cached,
    })
}

/// Assembles a streamed message.
#[derive(Debug)]
pub struct MessagesStream {
    mapping: RequestMapping,
    config: AdapterConfig,
    turn: TurnAssembler,
    /// Usage fields as last reported (`message_start`, then `message_delta`).
    usage: Map<String, Value>,
    stopped: bool,
}

impl MessagesStream {
    /// A decoder for the response to the request `mapping` describes.
    pub fn new(mapping: RequestMapping, config: AdapterConfig) -> Self {
        Self {
            mapping,
            config,
            turn: TurnAssembler::default(),
            usage: Map::new(),
            stopped: false,
        }
    }

    fn merge_usage(&mut self, update: Option<&Value>) {
        if let Some(Value::Object(fields)) = update {
            for (key, value) in fields {
                if !value.is_null() {
                    self.usage.insert(key.clone(), value.clone());
                }
            }
            self.turn.usage = usage(Some(&Value::Object(self.usage.clone())));
        }
    }
}

impl StreamDecoder for MessagesStream {
    fn on_event(
        &mut self,
        event: &SseEvent,
        sink: Option<&dyn StreamSink>,
    ) -> Result<(), ProviderError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(());
        }
        let payload: Value = serde_json::from_str(data).map_err(|error| {
            decode_failure(
                &self.config,
                format!("Stream event is not JSON: {error}."),
                data.as_bytes(),
            )
        })?;
        let kind = payload
            .get("type")
            .and_then(Value::as_str)
            .or(event.event.as_deref())
            .unwrap_or_default();
        let key = payload.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => self.merge_usage(payload.pointer("/message/usage")),
            "content_block_start" => {
                let block = payload.get("content_block").unwrap_or(&Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => self.turn.push_text(
                        block
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                        sink,
                    ),
                    Some("tool_use") => {
                        let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
                        let name = self.mapping.canonical_name(
                            block
                                .get("name")
                                .and_then(Value::as_str)
                                .unwrap_or_default(),
                        );
                        self.turn.start_call(key, id, &name, sink);
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = payload.get("delta").unwrap_or(&Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => self.turn.push_text(
                        delta
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                        sink,
                    ),
                    Some("input_json_delta") => {
                        self.turn.push_arguments(
                            key,
                            delta
                                .get("partial_json")
                                .and_then(Value::as_str)
                                .unwrap_or_default(),
                            sink,
                        );
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = payload
                    .pointer("/delta/stop_reason")
                    .and_then(Value::as_str)
                {
                    self.turn.finish_reason = Some(stop_reason(Some(reason)));
                }
                self.merge_usage(payload.get("usage"));
            }
            "message_stop" => self.stopped = true,
            "error" => return Err(reported_failure(&self.config, &payload, data)),
            _ => {}
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.stopped
    }

    fn finish(self: Box<Self>) -> Result<ModelTurn, ProviderError> {
        self.turn.finish(
            self.stopped,
            &self.config,
            &self.mapping,
            ArgumentStyle::Object,
            "The stream ended before message_stop.",
        )
    }
}

/// The Anthropic Messages codec ([`WireFormat::codec`](crate::WireFormat::codec)).
#[derive(Debug, Clone, Copy, Default)]
pub struct AnthropicCodec;

impl WireCodec for AnthropicCodec {
    fn encode(
        &self,
        request: &ModelRequest,
        config: &AdapterConfig,
        mapping: &RequestMapping,
    ) -> Result<Value, ProviderError> {
        encode_mapped(request, config, mapping)
    }

    fn decode(
        &self,
        body: &[u8],
        mapping: &RequestMapping,
        config: &AdapterConfig,
    ) -> Result<ModelTurn, ProviderError> {
        decode_response(body, mapping, config)
    }

    fn stream(&self, mapping: RequestMapping, config: AdapterConfig) -> Box<dyn StreamDecoder> {
        Box::new(MessagesStream::new(mapping, config))
    }
}
