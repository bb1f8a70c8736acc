//! The OpenTelemetry names wink's spans use, in one place.
//!
//! The GenAI names follow the GenAI semantic conventions of the `semantic-conventions-genai`
//! repository, v0.1.0 (built on semconv v1.45.0). Every `gen_ai.*` item there is at
//! *Development* status and may still be renamed, so nothing outside this module spells one.
//! The `wink.*` names are wink's own.

/// The version of the GenAI conventions the names below follow.
pub const GENAI_CONVENTIONS: &str = "semantic-conventions-genai v0.1.0";

/// `gen_ai.operation.name`: what the span does.
pub const OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.provider.name`: the provider as the client knows it.
pub const PROVIDER_NAME: &str = "gen_ai.provider.name";
/// `gen_ai.request.model`.
pub const REQUEST_MODEL: &str = "gen_ai.request.model";
/// `gen_ai.response.model`.
pub const RESPONSE_MODEL: &str = "gen_ai.response.model";
/// `gen_ai.response.finish_reasons` (string array).
pub const RESPONSE_FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// `gen_ai.usage.input_tokens`: every input token, cached ones included.
pub const USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// `gen_ai.usage.output_tokens`.
pub const USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// `gen_ai.usage.cache_read.input_tokens`: input tokens served from a cache.
pub const USAGE_CACHE_READ_INPUT_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
/// `gen_ai.conversation.id`: the session the run works in.
pub const CONVERSATION_ID: &str = "gen_ai.conversation.id";
/// `gen_ai.agent.name`.
pub const AGENT_NAME: &str = "gen_ai.agent.name";
/// `gen_ai.agent.id`.
pub const AGENT_ID: &str = "gen_ai.agent.id";
/// `gen_ai.tool.name`.
pub const TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.tool.call.id`.
pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
/// `gen_ai.tool.type`.
pub const TOOL_TYPE: &str = "gen_ai.tool.type";
/// `gen_ai.tool.call.arguments` (opt-in content).
pub const TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
/// `gen_ai.tool.call.result` (opt-in content).
pub const TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";
/// `gen_ai.input.messages` (opt-in content).
pub const INPUT_MESSAGES: &str = "gen_ai.input.messages";
/// `gen_ai.output.messages` (opt-in content).
pub const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
/// `gen_ai.system_instructions` (opt-in content).
pub const SYSTEM_INSTRUCTIONS: &str = "gen_ai.system_instructions";
/// `gen_ai.request.top_k` (a double).
pub const REQUEST_TOP_K: &str = "gen_ai.request.top_k";
/// `gen_ai.data_source.id`.
pub const DATA_SOURCE_ID: &str = "gen_ai.data_source.id";
/// `gen_ai.retrieval.query.text` (opt-in content).
pub const RETRIEVAL_QUERY_TEXT: &str = "gen_ai.retrieval.query.text";
/// `error.type` (stable, general conventions).
pub const ERROR_TYPE: &str = "error.type";
/// The `error.type` fallback of the conventions.
pub const ERROR_TYPE_OTHER: &str = "_OTHER";

/// `gen_ai.operation.name` values.
pub mod operation {
    /// A model call.
    pub const CHAT: &str = "chat";
    /// A run of an agent.
    pub const INVOKE_AGENT: &str = "invoke_agent";
    /// A tool call.
    pub const EXECUTE_TOOL: &str = "execute_tool";
    /// A search of a tool catalog (`find_tool`).
    pub const RETRIEVAL: &str = "retrieval";
}

/// Span events of progressive disclosure and of the loop's interventions (wink's own).
pub mod event {
    /// A section was opened (`wink.section.key`).
    pub const SECTION_OPENED: &str = "wink.section.opened";
    /// Tools arrived in the running conversation (`wink.tools`).
    pub const TOOLS_INJECTED: &str = "wink.tools.injected";
    /// The evaluation restarted with more sections expanded (`wink.sections`).
    pub const RUN_RESTARTED: &str = "wink.run.restarted";
    /// The loop stepped in, or a turn was repaired: any session event whose type names an
    /// intervention or a repair, with its fields (`wink.event.type`, `wink.<field>`).
    pub const INTERVENTION: &str = "wink.intervention";
}

/// `wink.*` attributes.
pub mod wink {
    /// The prompt's `ns:key`.
    pub const PROMPT: &str = "wink.prompt";
    /// JSON: the prompt's section tree as the model call saw it (key, title, depth,
    /// visibility, bytes, tools, hidden tools, when opened).
    pub const PROMPT_SECTIONS: &str = "wink.prompt.sections";
    /// The model call's number in the run, from 0.
    pub const MODEL_CALL_INDEX: &str = "wink.model_call.index";
    /// The evaluation the span belongs to (0, then 1 after the first restart, ...).
    pub const EVALUATION: &str = "wink.evaluation";
    /// Messages sent with a model call.
    pub const MESSAGES: &str = "wink.messages";
    /// Tools offered with a model call (string array).
    pub const TOOLS_OFFERED: &str = "wink.tools.offered";
    /// The adapter that made the call (`local`, `openai`, `scripted`, ...).
    pub const ADAPTER: &str = "wink.adapter";
    /// A run that ended how (`finished`, `terminated`, `budget_exceeded`, `failed`).
    pub const RUN_STATUS: &str = "wink.run.status";
    /// Model calls of a run.
    pub const RUN_MODEL_CALLS: &str = "wink.run.model_calls";
    /// Tool calls of a run.
    pub const RUN_TOOL_CALLS: &str = "wink.run.tool_calls";
    /// Restarts of a run.
    pub const RUN_RESTARTS: &str = "wink.run.restarts";
    /// The run had not ended when the trace was cut (a stopped process, a log that ends early).
    pub const RUN_INCOMPLETE: &str = "wink.run.incomplete";
    /// The times are not known (a transcript without them): spans follow each other.
    pub const TIMING_UNKNOWN: &str = "wink.timing.unknown";
    /// A section key (events).
    pub const SECTION_KEY: &str = "wink.section.key";
    /// Section keys (string array, events).
    pub const SECTIONS: &str = "wink.sections";
    /// Tool names (string array, events).
    pub const TOOLS: &str = "wink.tools";
    /// The type name of the session event behind an intervention event.
    pub const EVENT_TYPE: &str = "wink.event.type";
    /// Hits a `find_tool` retrieval returned.
    pub const RETRIEVAL_RESULTS: &str = "wink.retrieval.results";
    /// The error message of a failed tool call, model call or run.
    pub const ERROR_MESSAGE: &str = "wink.error.message";
}

/// The `gen_ai.provider.name` of an adapter: the conventions' well-known value where one
/// applies, else wink's adapter name.
pub fn provider_name(adapter: &str) -> &str {
    match adapter {
        "openai" | "openai-responses" | "openai-chat" => "openai",
        "anthropic" => "anthropic",
        other => other,
    }
}
