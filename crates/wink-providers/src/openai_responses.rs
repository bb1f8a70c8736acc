//! OpenAI Responses (`POST {base}/responses`): the request body, the response body and the SSE
//! events.
//!
//! * The conversation goes in `input` as items: `message` items for system, user and assistant
//!   text, a `function_call` item per tool call (JSON-string `arguments`), a
//!   `function_call_output` item per result (with the result's PNG, JPEG, GIF and WebP images,
//!   its `output` is `input_text` then `input_image` parts). `store: false`: nothing is kept
//!   server-side, every call sends the whole conversation.
//! * Tools: `{"type": "function", name, description, parameters, strict}`; `strict` is always
//!   sent because the Responses API defaults it to `true`.
//! * Structured output: `text.format` = `{"type": "json_schema", name, schema, strict}`.
//! * Deferred tools ([`crate::DeferredTools`]): `defer_loading: true`, optionally grouped in a
//!   `namespace` tool; the catalog search tool becomes `{"type": "tool_search", "execution":
//!   "client"}`; its calls arrive as `tool_search_call` items and its results go back as
//!   `tool_search_output` items listing the definitions of the tools the result names.
//! * Section deferral ([`AdapterConfig::section_deferral`]): every section tool (hidden or
//!   injected) goes out with `defer_loading: true` after the tools offered from the start; after
//!   the `function_call_output` that disclosed tools come a client `tool_search_call` and its
//!   `tool_search_output` with their definitions.
//! * Body order: model and settings, `tools`, `tool_choice`, then `input`.
//! * Streaming: `response.output_item.added`, `response.output_text.delta`,
//!   `response.function_call_arguments.delta` per `output_index`, then `response.completed`
//!   (or `response.incomplete` / `response.failed`).

use serde_json::{Map, Value, json};
use wink_core::{ToolArguments, ToolCall};
use wink_model::{
    FinishReason, Message, ModelRequest, ModelTurn, ProviderError, ProviderErrorKind, StreamSink,
    ToolChoice, ToolImage, ToolSpec,
};
use wink_schema::output::response_schema;
use wink_schema::schema_name;
use wink_session::TokenUsage;

use crate::assemble::{ArgumentStyle, StreamDecoder, TurnAssembler, structured_output};
use crate::codec::{WireCodec, is_strict_form, unsupported_message};
use crate::config::AdapterConfig;
use crate::failure::{decode_failure, failure, parse_body, reported_failure};
use crate::mapping::{RequestMapping, arguments_text, json_f32};
use crate::sse::SseEvent;

/// The request body for `request`.
///
/// # Errors
/// [`ProviderErrorKind::Config`] for tool names or schemas that cannot be sent.
pub fn encode_request(
    request: &ModelRequest,
    config: &AdapterConfig,
) -> Result<Value, ProviderError> {
    OpenAiResponsesCodec.encode_request(request, config)
}

/// The request body, given the request's mapping.
///
/// # Errors
/// [`ProviderErrorKind::Config`] for a message kind this format cannot carry.
pub fn encode_mapped(
    request: &ModelRequest,
    config: &AdapterConfig,
    mapping: &RequestMapping,
) -> Result<Value, ProviderError> {
    // What changes least comes first and the conversation last.
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    if let Some(max) = request.max_output_tokens {
        body.insert("max_output_tokens".into(), json!(max));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json_f32(temperature));
    }
    body.insert("store".into(), json!(false));
    if config.stream {
        body.insert("stream".into(), json!(true));
    }
    if let Some(spec) = &request.output {
        let strict = config.strict_output && is_strict_form(spec);
        body.insert(
            "text".into(),
            json!({"format": {"type": "json_schema", "name": schema_name(&spec.name), "schema": response_schema(spec), "strict": strict}}),
        );
    }
    let tools = mapping.tools();
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(encode_tools(tools, mapping)));
        let choice = match &request.tool_choice {
            ToolChoice::None => Some(json!("none")),
            ToolChoice::Required => Some(json!("required")),
            ToolChoice::Tool(name) => {
                Some(json!({"type": "function", "name": mapping.wire_name(name)}))
            }
            _ => None,
        };
        if let Some(choice) = choice {
            body.insert("tool_choice".into(), choice);
        }
    }
    let mut input = Vec::new();
    for (index, message) in request.messages.iter().enumerate() {
        encode_message(message, mapping, config, &mut input)?;
        if let (Message::Tool { tool_call_id, .. }, Some((section, loaded))) =
            (message, mapping.loaded_by(index))
        {
            input.extend(section_loading(tool_call_id, section, loaded, mapping));
        }
    }
    body.insert("input".into(), Value::Array(input));
    Ok(Value::Object(body))
}

/// Section deferral: the items that load the tools a tool result disclosed, as if the model had
/// searched for them: a client `tool_search_call` (id `CALL_tools`, arguments `{"section":
/// KEY}`) and its `tool_search_output` with the tools' full definitions.
fn section_loading(
    tool_call_id: &str,
    section: &str,
    loaded: &[String],
    mapping: &RequestMapping,
) -> [Value; 2] {
    let call_id = format!("{tool_call_id}_tools");
    let tools: Vec<Value> = loaded
        .iter()
        .filter_map(|name| mapping.tools().iter().find(|tool| &tool.name == name))
        .map(|tool| function_tool(tool, mapping, false))
        .collect();
    [
        json!({"type": "tool_search_call", "call_id": call_id, "execution": "client",
            "arguments": {"section": section}, "status": "completed"}),
        json!({"type": "tool_search_output", "call_id": call_id, "execution": "client", "tools": tools}),
    ]
}

fn function_tool(tool: &ToolSpec, mapping: &RequestMapping, deferred: bool) -> Value {
    let mut function = Map::new();
    function.insert("type".into(), json!("function"));
    function.insert("name".into(), json!(mapping.wire_name(&tool.name)));
    function.insert("description".into(), json!(tool.description));
    function.insert("parameters".into(), mapping.wire_parameters(tool).clone());
    function.insert("strict".into(), json!(mapping.is_strict(&tool.name)));
    if deferred {
        function.insert("defer_loading".into(), json!(true));
    }
    Value::Object(function)
}

fn encode_tools(tools: &[ToolSpec], mapping: &RequestMapping) -> Vec<Value> {
    let namespace = mapping
        .deferred()
        .and_then(|deferred| deferred.namespace.as_ref());
    let mut out = Vec::new();
    let mut grouped = Vec::new();
    for tool in tools {
        if mapping.is_search_tool(&tool.name) {
            out.push(json!({"type": "tool_search", "execution": "client", "description": tool.description,
                "parameters": mapping.wire_parameters(tool)}));
        } else if mapping.is_deferred(&tool.name) {
            let function = function_tool(tool, mapping, true);
            if namespace.is_some() && mapping.is_catalog_deferred(&tool.name) {
                grouped.push(function)
            } else {
                out.push(function)
            }
        } else {
            out.push(function_tool(tool, mapping, false));
        }
    }
    if let Some(namespace) = namespace
        && !grouped.is_empty()
    {
        out.push(json!({"type": "namespace", "name": namespace.name, "description": namespace.description, "tools": grouped}));
    }
    out
}

fn encode_message(
    message: &Message,
    mapping: &RequestMapping,
    config: &AdapterConfig,
    input: &mut Vec<Value>,
) -> Result<(), ProviderError> {
    match message {
        Message::System { content } => {
            input.push(json!({"type": "message", "role": "system", "content": content}))
        }
        Message::User { content } => {
            input.push(json!({"type": "message", "role": "user", "content": content}))
        }
        Message::Assistant {
            content,
            tool_calls,
        } => {
            if let Some(text) = content.as_deref().filter(|text| !text.is_empty()) {
                input.push(json!({"type": "message", "role": "assistant", "content": text}));
            }
            let namespace = mapping
                .deferred()
                .and_then(|deferred| deferred.namespace.as_ref());
            for call in tool_calls {
                if mapping.is_search_tool(&call.name) {
                    input.push(json!({"type": "tool_search_call", "call_id": call.id, "execution": "client",
                        "arguments": call.arguments.to_object(), "status": "completed"}));
                    continue;
                }
                let mut item = Map::new();
                item.insert("type".into(), json!("function_call"));
                item.insert("call_id".into(), json!(call.id));
                if let Some(namespace) =
                    namespace.filter(|_| mapping.is_catalog_deferred(&call.name))
                {
                    item.insert("namespace".into(), json!(namespace.name));
                }
                item.insert("name".into(), json!(mapping.wire_name(&call.name)));
                item.insert("arguments".into(), json!(arguments_text(&call.arguments)));
                input.push(Value::Object(item));
            }
        }
        Message::Tool {
            tool_call_id,
            name,
            content,
            images,
            ..
        } => {
            if mapping.is_search_tool(name) {
                let tools: Vec<Value> = mapping
                    .referenced_tools(content)
                    .iter()
                    .filter_map(|referenced| {
                        mapping.tools().iter().find(|tool| &tool.name == referenced)
                    })
                    .map(|tool| function_tool(tool, mapping, false))
                    .collect();
                input.push(json!({"type": "tool_search_output", "call_id": tool_call_id, "execution": "client", "tools": tools}));
            } else {
                input.push(json!({"type": "function_call_output", "call_id": tool_call_id, "output": call_output(content, images)}));
            }
        }
        other => return Err(unsupported_message(config, other)),
    }
    Ok(())
}

/// A `function_call_output`'s `output`: the text, or with the result's PNG, JPEG, GIF and WebP
/// images, the text as `input_text` followed by each image as an `input_image` `data:` URL.
fn call_output(content: &str, images: &[ToolImage]) -> Value {
    let mut images = images
        .iter()
        .filter(|image| image.is_web_format())
        .peekable();
    if images.peek().is_none() {
        return json!(content);
    }
    let mut parts = vec![json!({"type": "input_text", "text": content})];
    parts.extend(images.map(|image| json!({"type": "input_image", "image_url": image.data_url()})));
    Value::Array(parts)
}

/// The turn in a (non-streamed) response body.
///
/// # Errors
/// [`ProviderErrorKind::Decode`] with the body when it is not a response object; the provider's
/// error for a failed response.
pub fn decode_response(
    body: &[u8],
    mapping: &RequestMapping,
    config: &AdapterConfig,
) -> Result<ModelTurn, ProviderError> {
    let value = parse_body(config, body)?;
    if value.get("error").is_some_and(|error| !error.is_null()) {
        return Err(reported_failure(
            config,
            &value,
            &String::from_utf8_lossy(body),
        ));
    }
    let Some(items) = value.get("output").and_then(Value::as_array) else {
        return Err(decode_failure(
            config,
            "Response has no output array.",
            body,
        ));
    };
    let mut text: Option<String> = None;
    let mut refused = false;
    let mut tool_calls = Vec::new();
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => {
                            text.get_or_insert_with(String::new).push_str(
                                part.get("text").and_then(Value::as_str).unwrap_or_default(),
                            );
                        }
                        Some("refusal") => {
                            refused = true;
                            text.get_or_insert_with(String::new).push_str(
                                part.get("refusal")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default(),
                            );
                        }
                        _ => {}
                    }
                }
            }
            Some("function_call") => {
                let (Some(id), Some(name)) = (
                    item.get("call_id").and_then(Value::as_str),
                    item.get("name").and_then(Value::as_str),
                ) else {
                    return Err(decode_failure(
                        config,
                        "A function_call item lacks call_id or name.",
                        body,
                    ));
                };
                let canonical = mapping.canonical_name(name);
                let raw = item
                    .get("arguments")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let arguments = mapping.text_arguments(&canonical, raw);
                tool_calls.push(ToolCall {
                    id: id.to_owned(),
                    name: canonical,
                    arguments,
                });
            }
            Some("tool_search_call") => tool_calls.push(search_call(item, mapping)),
            _ => {}
        }
    }
    let finish_reason = if refused {
        FinishReason::Other("refusal".into())
    } else {
        status_finish(&value, !tool_calls.is_empty())
    };
    if value.get("status").and_then(Value::as_str) == Some("failed") {
        return Err(
            failure(config, ProviderErrorKind::Other, "The response failed.")
                .with_body(config.redact(&String::from_utf8_lossy(body))),
        );
    }
    let output = structured_output(mapping, text.as_deref());
    Ok(ModelTurn {
        text,
        tool_calls,
        usage: usage(value.get("usage")),
        finish_reason,
        output,
    })
}

fn search_call(item: &Value, mapping: &RequestMapping) -> ToolCall {
    let name = mapping.deferred().map_or_else(
        || "tool_search".to_owned(),
        |deferred| deferred.search_tool.clone(),
    );
    let id = item
        .get("call_id")
        .or_else(|| item.get("id"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let arguments = match item.get("arguments") {
        Some(Value::String(text)) => ToolArguments::Text(text.clone()),
        Some(value) if !value.is_null() => ToolArguments::Json(value.clone()),
        _ => ToolArguments::Json(Value::Object(Map::new())),
    };
    ToolCall {
        id,
        name,
        arguments,
    }
}

fn status_finish(response: &Value, has_calls: bool) -> FinishReason {
    if has_calls {
        return FinishReason::ToolCalls;
    }
    match response.get("status").and_then(Value::as_str) {
        Some("incomplete") => match response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str)
        {
            Some("max_output_tokens") => FinishReason::Length,
            Some("content_filter") => FinishReason::ContentFilter,
            Some(other) => FinishReason::Other(other.to_owned()),
            None => FinishReason::Other("incomplete".into()),
        },
        _ => FinishReason::Stop,
    }
}

fn usage(usage: Option<&Value>) -> Option<TokenUsage> {
    let usage = usage.filter(|usage| usage.is_object())?;
    let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    Some(TokenUsage {
        input_tokens: count("/input_tokens"),
        output_tokens: count("/output_tokens"),
        cached_tokens: count("/input_tokens_details/cached_tokens"),
    })
}

/// Assembles a streamed response.
#[derive(Debug)]
pub struct ResponsesStream {
    mapping: RequestMapping,
    config: AdapterConfig,
    turn: TurnAssembler,
    refused: bool,
    done: bool,
}

impl ResponsesStream {
    /// A decoder for the response to the request `mapping` describes.
    pub fn new(mapping: RequestMapping, config: AdapterConfig) -> Self {
        Self {
            mapping,
            config,
            turn: TurnAssembler::default(),
            refused: false,
            done: false,
        }
    }
}

impl ResponsesStream {
    /// An output item opened (`added`) or closed at `key`: a function call starts with its
    /// name and first arguments, or gets its whole arguments; a tool search call likewise.
    fn on_output_item(
        &mut self,
        item: &Value,
        key: u64,
        added: bool,
        sink: Option<&dyn StreamSink>,
    ) {
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                if added {
                    let id = item
                        .get("call_id")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let name = self.mapping.canonical_name(
                        item.get("name").and_then(Value::as_str).unwrap_or_default(),
                    );
                    self.turn.start_call(key, id, &name, sink);
                    let arguments = item
                        .get("arguments")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    self.turn.push_arguments(key, arguments, sink);
                } else if let Some(arguments) = item.get("arguments").and_then(Value::as_str) {
                    self.turn.set_arguments(key, arguments);
                }
            }
            Some("tool_search_call") => {
                let call = search_call(item, &self.mapping);
                if added {
                    self.turn.start_call(key, &call.id, &call.name, sink);
                }
                if let ToolArguments::Json(value) = call.arguments
                    && value.as_object().is_some_and(|map| !map.is_empty())
                {
                    self.turn.set_whole_arguments(key, value);
                }
            }
            _ => {}
        }
    }

    /// The response completed (or ended incomplete): its usage and why it stopped.
    fn on_completed(&mut self, response: &Value) {
        self.turn.usage = usage(response.get("usage"));
        self.turn.finish_reason = Some(if self.refused {
            FinishReason::Other("refusal".into())
        } else {
            status_finish(response, self.turn.has_calls())
        });
        self.done = true;
    }
}

/// The failure a `response.failed` or `error` event reports, shaped as `{"error": …}` when it
/// has a message (else the event itself).
fn stream_failure(payload: &Value) -> Value {
    let error = payload
        .pointer("/response/error")
        .or_else(|| payload.get("error"))
        .cloned()
        .unwrap_or(payload.clone());
    if error.get("message").is_some() {
        json!({"error": error})
    } else {
        payload.clone()
    }
}

impl StreamDecoder for ResponsesStream {
    fn on_event(
        &mut self,
        event: &SseEvent,
        sink: Option<&dyn StreamSink>,
    ) -> Result<(), ProviderError> {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
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
        let key = payload
            .get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        match kind {
            "response.output_text.delta" => self.turn.push_text(
                payload
                    .get("delta")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
                sink,
            ),
            "response.refusal.delta" => {
                self.refused = true;
                self.turn.push_text(
                    payload
                        .get("delta")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    sink,
                );
            }
            "response.output_item.added" | "response.output_item.done" => {
                if let Some(item) = payload.get("item") {
                    let added = kind == "response.output_item.added";
                    self.on_output_item(item, key, added, sink);
                }
            }
            "response.function_call_arguments.delta" => {
                self.turn.push_arguments(
                    key,
                    payload
                        .get("delta")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    sink,
                );
            }
            "response.function_call_arguments.done" => {
                if let Some(arguments) = payload.get("arguments").and_then(Value::as_str) {
                    self.turn.set_arguments(key, arguments);
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = payload.get("response").unwrap_or(&Value::Null);
                self.on_completed(response);
            }
            "response.failed" | "error" => {
                return Err(reported_failure(
                    &self.config,
                    &stream_failure(&payload),
                    data,
                ));
            }
            _ => {}
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.done
    }

    fn finish(self: Box<Self>) -> Result<ModelTurn, ProviderError> {
        self.turn.finish(
            self.done,
            &self.config,
            &self.mapping,
            ArgumentStyle::Text,
            "The stream ended before the response completed.",
        )
    }
}

/// The OpenAI Responses codec ([`WireFormat::codec`](crate::WireFormat::codec)).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiResponsesCodec;

impl WireCodec for OpenAiResponsesCodec {
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
        Box::new(ResponsesStream::new(mapping, config))
    }
}
