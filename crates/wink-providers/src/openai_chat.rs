//! OpenAI Chat Completions (`POST {base}/chat/completions`): the request body, the response body
//! and the SSE chunks. Also spoken by LiteLLM and OpenAI-compatible servers.
//!
//! * Messages: `system`, `user`, `assistant` (`content` + `tool_calls` with JSON-string
//!   `arguments`), one `tool` message per result (`tool_call_id`, text `content`; a failure is
//!   said in the text, the format has no error flag).
//! * Tools: `{"type": "function", "function": {name, description, parameters, strict?}}` under
//!   their aliases; `strict: true` when the schema fits strict mode and the config allows it.
//! * Structured output: `response_format` `json_schema` (WINK's payload, plus `"strict": true`
//!   when the schema is already in strict form and the config allows it).
//! * Body order: model and settings, `tools` (offered from the start, then the injected ones in
//!   injection order: a new tool only ever extends the array), `tool_choice`, then `messages`.
//! * Streaming: `choices[0].delta.content` and `delta.tool_calls[]` fragments per `index`;
//!   `finish_reason`; usage in the last chunk (`stream_options.include_usage`); `data: [DONE]`.

use serde_json::{Map, Value, json};
use wink_core::ToolCall;
use wink_model::{
    FinishReason, Message, ModelRequest, ModelTurn, ProviderError, StreamSink, ToolChoice,
};
use wink_schema::response_format;
use wink_session::TokenUsage;

use crate::assemble::{ArgumentStyle, StreamDecoder, TurnAssembler, structured_output};
use crate::codec::{WireCodec, is_strict_form, unsupported_message};
use crate::config::{AdapterConfig, ForcedCalls, MaxTokensField};
use crate::failure::{decode_failure, parse_body, reported_failure};
use crate::mapping::{RequestMapping, arguments_text, json_f32};
use crate::sse::SseEvent;

/// The request body for `request`.
///
/// # Errors
/// [`wink_model::ProviderErrorKind::Config`] for tool names or schemas that cannot be sent.
pub fn encode_request(
    request: &ModelRequest,
    config: &AdapterConfig,
) -> Result<Value, ProviderError> {
    OpenAiChatCodec.encode_request(request, config)
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
    // What changes least comes first and the conversation last: each request's bytes then start
    // with the previous one's up to the end of its tools.
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    if let Some(max) = request.max_output_tokens {
        let field = match config.max_tokens_field {
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
            MaxTokensField::MaxTokens => "max_tokens",
        };
        body.insert(field.into(), json!(max));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json_f32(temperature));
    }
    if config.stream {
        body.insert("stream".into(), json!(true));
        if config.stream_usage {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
    }
    if let Some(spec) = &request.output {
        let mut format = response_format(spec);
        if config.strict_output
            && is_strict_form(spec)
            && let Some(schema) = format.get_mut("json_schema").and_then(Value::as_object_mut)
        {
            schema.insert("strict".into(), json!(true));
        }
        body.insert("response_format".into(), format);
    }
    let tools = mapping.tools();
    if !tools.is_empty() {
        let tools = tools
            .iter()
            .map(|tool| {
                let mut function = Map::new();
                function.insert("name".into(), json!(mapping.wire_name(&tool.name)));
                function.insert("description".into(), json!(tool.description));
                function.insert("parameters".into(), mapping.wire_parameters(tool).clone());
                if mapping.is_strict(&tool.name) {
                    function.insert("strict".into(), json!(true));
                }
                json!({"type": "function", "function": function})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        match forced_call_format(request, mapping) {
            Some(format) => {
                body.insert("response_format".into(), format);
            }
            None => {
                if let Some(choice) = tool_choice(&request.tool_choice, mapping) {
                    body.insert("tool_choice".into(), choice);
                }
            }
        }
    }
    let messages = request
        .messages
        .iter()
        .map(|message| encode_message(message, mapping, config))
        .collect::<Result<_, _>>()?;
    body.insert("messages".into(), Value::Array(messages));
    Ok(Value::Object(body))
}

/// With [`ForcedCalls::ResponseSchema`], a request that must call a tool (and wants no
/// structured output of its own) asks for the call as a JSON document: `{"name": the tool,
/// "arguments": its parameters}`, one `anyOf` branch per offered tool when any may be called.
/// `None` when the request forces no call or the tool it names is not offered.
fn forced_call_format(request: &ModelRequest, mapping: &RequestMapping) -> Option<Value> {
    if mapping.forced_calls() != ForcedCalls::ResponseSchema || request.output.is_some() {
        return None;
    }
    let call = |tool: &wink_model::ToolSpec| {
        json!({
            "type": "object",
            "properties": {
                "name": {"const": mapping.wire_name(&tool.name)},
                "arguments": mapping.wire_parameters(tool),
            },
            "required": ["name", "arguments"],
        })
    };
    let offered = mapping
        .tools()
        .iter()
        .filter(|tool| !mapping.is_deferred(&tool.name));
    let schema = match &request.tool_choice {
        ToolChoice::Required => {
            let branches: Vec<Value> = offered.map(call).collect();
            match branches.len() {
                0 => return None,
                1 => branches.into_iter().next()?,
                _ => json!({"anyOf": branches}),
            }
        }
        ToolChoice::Tool(name) => call(offered.into_iter().find(|tool| &tool.name == name)?),
        _ => return None,
    };
    Some(json!({
        "type": "json_schema",
        "json_schema": {"name": "tool_call", "schema": schema},
    }))
}

fn tool_choice(choice: &ToolChoice, mapping: &RequestMapping) -> Option<Value> {
    match choice {
        ToolChoice::None => Some(json!("none")),
        ToolChoice::Required => Some(json!("required")),
        ToolChoice::Tool(name) => {
            Some(json!({"type": "function", "function": {"name": mapping.wire_name(name)}}))
        }
        _ => None,
    }
}

fn encode_message(
    message: &Message,
    mapping: &RequestMapping,
    config: &AdapterConfig,
) -> Result<Value, ProviderError> {
    Ok(match message {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut map = Map::new();
            map.insert("role".into(), json!("assistant"));
            map.insert(
                "content".into(),
                content.as_ref().map_or(Value::Null, |text| json!(text)),
            );
            if !tool_calls.is_empty() {
                let calls = tool_calls
                    .iter()
                    .map(|call| {
                        json!({"id": call.id, "type": "function", "function": {
                            "name": mapping.wire_name(&call.name), "arguments": arguments_text(&call.arguments)}})
                    })
                    .collect();
                map.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(map)
        }
        Message::Tool {
            tool_call_id,
            content,
            ..
        } => json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
        other => return Err(unsupported_message(config, other)),
    })
}

/// The turn in a (non-streamed) response body.
///
/// # Errors
/// [`wink_model::ProviderErrorKind::Decode`] with the body when it is not a chat completion; the provider's
/// error when the body reports one.
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
    let Some(choice) = value.pointer("/choices/0") else {
        return Err(decode_failure(config, "Response has no choices.", body));
    };
    let Some(message) = choice.get("message").filter(|message| message.is_object()) else {
        return Err(decode_failure(
            config,
            "Response choice has no message.",
            body,
        ));
    };
    let mut text = message
        .get("content")
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
        .map(str::to_owned);
    let mut finish_reason = finish_reason(choice.get("finish_reason").and_then(Value::as_str));
    if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
        text = Some(refusal.to_owned());
        finish_reason = FinishReason::Other("refusal".into());
    }
    let mut tool_calls = Vec::new();
    for (index, call) in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let (Some(id), Some(name)) = (
            call.get("id").and_then(Value::as_str),
            call.pointer("/function/name").and_then(Value::as_str),
        ) else {
            return Err(decode_failure(
                config,
                format!("Tool call {index} lacks an id or a function name."),
                body,
            ));
        };
        let canonical = mapping.canonical_name(name);
        let raw = match call.pointer("/function/arguments") {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let arguments = mapping.text_arguments(&canonical, raw);
        tool_calls.push(ToolCall {
            id: id.to_owned(),
            name: canonical,
            arguments,
        });
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

fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        None | Some("stop") => FinishReason::Stop,
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

/// `usage` of a completion: prompt, completion and cached prompt tokens.
fn usage(usage: Option<&Value>) -> Option<TokenUsage> {
    let usage = usage.filter(|usage| usage.is_object())?;
    let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    Some(TokenUsage {
        input_tokens: count("/prompt_tokens"),
        output_tokens: count("/completion_tokens"),
        cached_tokens: count("/prompt_tokens_details/cached_tokens"),
    })
}

/// Assembles a streamed chat completion.
#[derive(Debug)]
pub struct ChatStream {
    mapping: RequestMapping,
    config: AdapterConfig,
    turn: TurnAssembler,
    finished: bool,
    done: bool,
}

impl ChatStream {
    /// A decoder for the response to the request `mapping` describes.
    pub fn new(mapping: RequestMapping, config: AdapterConfig) -> Self {
        Self {
            mapping,
            config,
            turn: TurnAssembler::default(),
            finished: false,
            done: false,
        }
    }
}

impl StreamDecoder for ChatStream {
    fn on_event(
        &mut self,
        event: &SseEvent,
        sink: Option<&dyn StreamSink>,
    ) -> Result<(), ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|error| {
            decode_failure(
                &self.config,
                format!("Stream chunk is not JSON: {error}."),
                data.as_bytes(),
            )
        })?;
        if chunk.get("error").is_some_and(|error| !error.is_null()) {
            return Err(reported_failure(&self.config, &chunk, data));
        }
        if let Some(usage) = usage(chunk.get("usage")) {
            self.turn.usage = Some(usage);
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return Ok(());
        };
        if let Some(delta) = choice.get("delta") {
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.turn.push_text(text, sink);
            }
            if let Some(refusal) = delta.get("refusal").and_then(Value::as_str) {
                self.turn.push_text(refusal, sink);
                self.turn.finish_reason = Some(FinishReason::Other("refusal".into()));
            }
            for (position, call) in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let key = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or(position as u64);
                let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
                let name = call
                    .pointer("/function/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !id.is_empty() || !name.is_empty() {
                    let canonical = if name.is_empty() {
                        String::new()
                    } else {
                        self.mapping.canonical_name(name)
                    };
                    self.turn.start_call(key, id, &canonical, sink);
                }
                if let Some(fragment) = call.pointer("/function/arguments").and_then(Value::as_str)
                {
                    self.turn.push_arguments(key, fragment, sink);
                }
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finished = true;
            if !matches!(self.turn.finish_reason, Some(FinishReason::Other(_))) {
                self.turn.finish_reason = Some(finish_reason(Some(reason)));
            }
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.done
    }

    fn finish(self: Box<Self>) -> Result<ModelTurn, ProviderError> {
        self.turn.finish(
            self.finished,
            &self.config,
            &self.mapping,
            ArgumentStyle::Text,
            "The stream ended before the model finished its turn.",
        )
    }
}

/// The OpenAI Chat Completions codec ([`WireFormat::codec`](crate::WireFormat::codec)).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiChatCodec;

impl WireCodec for OpenAiChatCodec {
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
        Box::new(ChatStream::new(mapping, config))
    }
}
