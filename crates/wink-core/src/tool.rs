//! Tools: typed and dynamic tool definitions, results, examples and the context handlers get.
//!
//! A tool is anything implementing the object-safe [`Tool`] trait. Most are built with
//! [`ToolBuilder`] from a typed handler (`params -> ToolResult<R>`, sync or async) or from a
//! JSON schema plus a closure ([`ToolBuilder::dynamic`]).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use wink_session::{SectionPath, Session};

use crate::error::{PromptError, VisibilityExpansionRequired};
use crate::pyjson::{exclude_none, python_json};

/// A shared, type-erased tool.
pub type ToolRef = Arc<dyn Tool>;

/// The future a tool invocation returns.
pub type ToolFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ToolResponse, ToolError>> + Send + 'a>>;

// region: --- results

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

fn render_sequence(rendered: Vec<String>) -> String {
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

// endregion: --- results

// region: --- errors

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

// endregion: --- errors

// region: --- context

/// A wall-clock deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Deadline(Instant);

impl Deadline {
    /// A deadline `after` from now (a duration too large for the clock is a century).
    pub fn after(after: Duration) -> Self {
        const CENTURY: Duration = Duration::from_secs(100 * 365 * 86_400);
        let now = Instant::now();
        Self(now.checked_add(after.min(CENTURY)).unwrap_or(now))
    }

    /// A deadline at `instant`.
    pub fn at(instant: Instant) -> Self {
        Self(instant)
    }

    /// The instant.
    pub fn instant(&self) -> Instant {
        self.0
    }

    /// Time left (zero when passed).
    pub fn remaining(&self) -> Duration {
        self.0.saturating_duration_since(Instant::now())
    }

    /// Whether the deadline has passed.
    pub fn is_expired(&self) -> bool {
        Instant::now() >= self.0
    }
}

/// A typed map of shared resources available to tools (filesystem, clients, ...).
#[derive(Clone, Default)]
pub struct Resources {
    entries: Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resources")
            .field("count", &self.entries.len())
            .finish()
    }
}

impl Resources {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add (or replace) a resource of type `T`.
    #[must_use]
    pub fn with<T: Any + Send + Sync>(self, value: T) -> Self {
        let mut entries = (*self.entries).clone();
        entries.insert(TypeId::of::<T>(), Arc::new(value));
        Self {
            entries: Arc::new(entries),
        }
    }

    /// The resource of type `T`.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.entries
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref::<T>())
    }

    /// Whether both registries are the same object (cheap identity check).
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.entries, &other.entries)
    }
}

/// Everything a tool handler may use.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session the call works in: the evaluation's session, or — for calls that run
    /// concurrently — a transaction over it that is committed only if the call succeeds.
    pub session: Session,
    /// The evaluation's session itself, for records that must survive a failed call (telemetry
    /// such as `SubagentRun`, like the `ToolInvoked` the executor publishes). The same session as
    /// [`ToolContext::session`] for calls that run alone.
    pub telemetry: Session,
    /// Shared resources (filesystem, clients, ...).
    pub resources: Resources,
    /// The evaluation deadline.
    pub deadline: Option<Deadline>,
    /// The provider's id for this call, when known.
    pub call_id: Option<String>,
    /// `ns:key` of the prompt being evaluated.
    pub prompt_name: Option<String>,
    /// The text of the rendered prompt the model saw.
    pub rendered_text: Option<Arc<str>>,
}

impl ToolContext {
    /// A context over `session` with no resources.
    pub fn new(session: Session) -> Self {
        Self {
            telemetry: session.clone(),
            session,
            resources: Resources::new(),
            deadline: None,
            call_id: None,
            prompt_name: None,
            rendered_text: None,
        }
    }

    /// A typed resource.
    pub fn resource<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.resources.get::<T>()
    }

    /// The workspace filesystem, when the run has one (resource `Arc<dyn wink_fs::Filesystem>`).
    pub fn filesystem(&self) -> Option<&Arc<dyn wink_fs::Filesystem>> {
        self.resources.get::<Arc<dyn wink_fs::Filesystem>>()
    }
}

// endregion: --- context

// region: --- metadata

/// Seed 004's level 1: what a tool catalog lists (≈10–30 tokens).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolMetadata {
    /// Canonical name (dots allowed).
    pub name: String,
    /// First sentence of the description.
    pub summary: String,
    /// Part of the name before the last dot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Tags for filtering.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Capabilities for search.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// Constraints (e.g. `read-only`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
}

impl ToolMetadata {
    /// Derive metadata from a name and description (seed 004 defaults).
    pub fn derive(name: &str, description: &str) -> Self {
        Self {
            name: name.to_owned(),
            summary: first_sentence(description),
            namespace: namespace_of(name),
            tags: Vec::new(),
            capabilities: Vec::new(),
            constraints: Vec::new(),
        }
    }
}

/// Seed 004's level 2: the full specification of a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolFullSpec {
    /// Canonical name.
    pub name: String,
    /// Full description.
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
    /// What the tool returns.
    pub returns: String,
    /// A usage line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<String>,
    /// Examples (description, input, output).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<ToolExample>,
    /// Errors the tool may report.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Further notes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The namespace of a dotted tool name (`file.read` → `file`; `a.b.c` → `a.b`); `None` when the
/// name has no dot. The same rule as the catalog search's documents ([`wink_schema::namespace_of`],
/// borrowed).
pub fn namespace_of(name: &str) -> Option<String> {
    wink_schema::namespace_of(name).map(str::to_owned)
}

/// The first sentence of a description: a tool's level-1 summary (seed 004). One definition with
/// the catalog search ([`wink_schema::first_sentence`]), so listings and search agree.
pub use wink_schema::first_sentence;

// endregion: --- metadata

// region: --- the trait

/// An example call shown to the model (WINK's `ToolExample`), type-erased.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolExample {
    /// What the example shows.
    pub description: String,
    /// The arguments.
    pub input: Value,
    /// The rendered output.
    pub output: String,
}

/// Whether a tool may run at the same time as other calls of the same model turn.
///
/// Every call is transactional. A call that runs alone snapshots session and filesystem and
/// restores them when it fails. Consecutive [`ToolConcurrency::Parallel`] calls overlap, so each
/// works in its own session transaction (committed in call order once the batch is done, dropped
/// if the call fails) and writes the filesystem through an [`wink_fs::FsBatch`] member (a failed
/// call's file changes are undone alone, the others' replayed): one call's failure never undoes a
/// sibling's work, and siblings do not see each other's session changes while they run. Tools are
/// sequential by default.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolConcurrency {
    /// May run concurrently with other calls.
    Parallel,
    /// Runs alone, in call order.
    Sequential,
}

/// A tool the model can call. Object-safe; see [`ToolBuilder`] for the usual way to make one.
pub trait Tool: Send + Sync + fmt::Debug {
    /// The canonical name (may contain dots for namespaces).
    fn name(&self) -> &str;
    /// The description sent to the provider.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments.
    fn parameters(&self) -> &Value;
    /// Examples shown in the prompt's `Tools:` block.
    fn examples(&self) -> &[ToolExample] {
        &[]
    }
    /// Level-1 metadata (seed 004).
    fn metadata(&self) -> ToolMetadata {
        ToolMetadata::derive(self.name(), self.description())
    }
    /// Level-2 full specification (seed 004).
    fn full_spec(&self) -> ToolFullSpec {
        ToolFullSpec {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            parameters: self.parameters().clone(),
            returns: "text".to_owned(),
            usage: None,
            examples: self.examples().to_vec(),
            errors: Vec::new(),
            notes: Vec::new(),
        }
    }
    /// Whether prompt overrides may patch this tool (builtin tools say no).
    fn accepts_overrides(&self) -> bool {
        true
    }
    /// Terminal tools end the model turn when they take effect (a successful call, or for
    /// `open_sections` a restart request): later calls in the same turn are not run.
    fn is_terminal(&self) -> bool {
        false
    }
    /// Whether the tool may run concurrently with other calls of one turn.
    fn concurrency(&self) -> ToolConcurrency {
        ToolConcurrency::Sequential
    }
    /// Run the tool with already schema-checked `args`.
    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a>;
}

// endregion: --- the trait

// region: --- validation

/// WINK's tool-name rule, extended with dot-separated namespaces: each segment matches
/// `[a-z0-9_-]+`, the whole name is 1–64 characters.
pub fn validate_tool_name(name: &str) -> Result<(), PromptError> {
    let stripped = crate::key::python_strip(name);
    if stripped != name {
        return Err(
            PromptError::validation("Tool name must not contain surrounding whitespace.")
                .with_placeholder(stripped),
        );
    }
    if name.is_empty() {
        return Err(PromptError::validation(
            "Tool name must match the OpenAI function name constraints (1-64 lowercase ASCII letters, digits, underscores, or hyphens).",
        )
        .with_placeholder(name));
    }
    let segments_ok = name.split('.').all(|seg| {
        !seg.is_empty()
            && seg
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
    });
    if name.len() > 64 || !segments_ok {
        return Err(PromptError::validation(
            "Tool name must match the OpenAI function name constraints (pattern: ^[a-z0-9_-]{1,64}$).",
        )
        .with_placeholder(name));
    }
    Ok(())
}

/// WINK's description rule: 1–200 ASCII characters after stripping. Returns the stripped text.
pub fn validate_tool_description(description: &str) -> Result<String, PromptError> {
    let clean = crate::key::python_strip(description);
    if clean.is_empty() || clean.chars().count() > 200 {
        return Err(
            PromptError::validation("Tool description must be 1-200 ASCII characters.")
                .with_placeholder("description"),
        );
    }
    if !clean.is_ascii() {
        return Err(PromptError::validation("Tool description must be ASCII.")
            .with_placeholder("description"));
    }
    Ok(clean.to_owned())
}

fn validate_example_description(description: &str) -> Result<String, PromptError> {
    let clean = crate::key::python_strip(description);
    if clean.is_empty() || clean.chars().count() > 200 {
        return Err(PromptError::validation(
            "Tool example description must be 1-200 ASCII characters.",
        )
        .with_placeholder("description"));
    }
    if !clean.is_ascii() {
        return Err(
            PromptError::validation("Tool example description must be ASCII.")
                .with_placeholder("description"),
        );
    }
    Ok(clean.to_owned())
}

// endregion: --- validation

// region: --- builder

/// The JSON Schema WINK sends for a params type: no `$schema`/`title`, objects closed with
/// `additionalProperties: false`.
pub fn params_schema<P: JsonSchema>() -> Value {
    let schema = schemars::schema_for!(P);
    let mut value = schema.to_value();
    clean_schema(&mut value, true);
    value
}

fn clean_schema(value: &mut Value, top: bool) {
    if let Value::Object(map) = value {
        map.remove("$schema");
        if top {
            map.remove("title");
        }
        let is_object = map.get("type").and_then(Value::as_str) == Some("object")
            && map.contains_key("properties");
        if is_object && !map.contains_key("additionalProperties") {
            let mut reordered = Map::new();
            let required = map.remove("required");
            for (k, v) in std::mem::take(map) {
                reordered.insert(k, v);
            }
            reordered.insert("additionalProperties".into(), Value::Bool(false));
            if let Some(required) = required {
                reordered.insert("required".into(), required);
            }
            *map = reordered;
        }
        for (k, v) in map.iter_mut() {
            if k == "properties" || k == "$defs" || k == "definitions" {
                if let Value::Object(props) = v {
                    for prop in props.values_mut() {
                        clean_schema(prop, false);
                    }
                }
            } else if k == "items" || k == "additionalProperties" {
                clean_schema(v, false);
            } else if (k == "anyOf" || k == "oneOf" || k == "allOf")
                && let Value::Array(items) = v
            {
                items.iter_mut().for_each(|i| clean_schema(i, false));
            }
        }
    }
}

/// The schema of a tool without parameters.
pub fn empty_params_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
}

type SyncHandler<P, R> =
    dyn Fn(P, &mut ToolContext) -> Result<ToolResult<R>, ToolError> + Send + Sync;
type AsyncHandler<P, R> = dyn Fn(P, ToolContext) -> Pin<Box<dyn Future<Output = Result<ToolResult<R>, ToolError>> + Send>>
    + Send
    + Sync;
type DynamicHandler =
    dyn Fn(Value, &mut ToolContext) -> Result<ToolResult<Value>, ToolError> + Send + Sync;

enum Handler<P, R> {
    Sync(Arc<SyncHandler<P, R>>),
    Async(Arc<AsyncHandler<P, R>>),
}

impl<P, R> Clone for Handler<P, R> {
    fn clone(&self) -> Self {
        match self {
            Self::Sync(h) => Self::Sync(h.clone()),
            Self::Async(h) => Self::Async(h.clone()),
        }
    }
}

/// Builds a tool from a typed handler.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
/// use wink_core::{ToolBuilder, ToolContext, ToolOutput, ToolResult};
///
/// #[derive(Serialize, Deserialize, JsonSchema)]
/// struct Query { query: String }
/// #[derive(Serialize, Deserialize, JsonSchema)]
/// struct Answer { answer: String }
/// impl ToolOutput for Answer {
///     fn render(&self) -> Option<String> { Some(format!("answer={}", self.answer)) }
/// }
///
/// let search = ToolBuilder::<Query, Answer>::new("search", "Search docs.")
///     .handler(|q: Query, _ctx: &mut ToolContext| Ok(ToolResult::ok("Search done.", Answer { answer: q.query.to_uppercase() })))
///     .example("Find auth docs", Query { query: "auth".into() }, Answer { answer: "found".into() })
///     .build()
///     .unwrap();
/// assert_eq!(search.name(), "search");
/// ```
pub struct ToolBuilder<P, R> {
    name: String,
    description: String,
    handler: Option<Handler<P, R>>,
    examples: Vec<(String, Value, String)>,
    metadata: Option<ToolMetadata>,
    spec_extra: SpecExtra,
    concurrency: ToolConcurrency,
    terminal: bool,
}

#[derive(Debug, Clone, Default)]
struct SpecExtra {
    returns: Option<String>,
    usage: Option<String>,
    errors: Vec<String>,
    notes: Vec<String>,
}

impl<P, R> fmt::Debug for ToolBuilder<P, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolBuilder")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<P, R> ToolBuilder<P, R>
where
    P: DeserializeOwned + Serialize + JsonSchema + Send + 'static,
    R: ToolOutput,
{
    /// Start a tool named `name`.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            handler: None,
            examples: Vec::new(),
            metadata: None,
            spec_extra: SpecExtra::default(),
            concurrency: ToolConcurrency::Sequential,
            terminal: false,
        }
    }

    /// A synchronous handler.
    #[must_use]
    pub fn handler<F>(mut self, f: F) -> Self
    where
        F: Fn(P, &mut ToolContext) -> Result<ToolResult<R>, ToolError> + Send + Sync + 'static,
    {
        self.handler = Some(Handler::Sync(Arc::new(f)));
        self
    }

    /// An asynchronous handler (gets its own clone of the context).
    #[must_use]
    pub fn async_handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(P, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolResult<R>, ToolError>> + Send + 'static,
    {
        self.handler = Some(Handler::Async(Arc::new(move |p, ctx| Box::pin(f(p, ctx)))));
        self
    }

    /// Add an example.
    #[must_use]
    pub fn example(mut self, description: impl Into<String>, input: P, output: R) -> Self {
        let input = serde_json::to_value(&input).unwrap_or(Value::Null);
        self.examples
            .push((description.into(), input, output.render_payload()));
        self
    }

    /// Override the level-1 metadata (tags, capabilities, constraints).
    #[must_use]
    pub fn metadata(mut self, metadata: ToolMetadata) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// Level-2 extras: what it returns, a usage line, errors and notes.
    #[must_use]
    pub fn spec(
        mut self,
        returns: Option<String>,
        usage: Option<String>,
        errors: Vec<String>,
        notes: Vec<String>,
    ) -> Self {
        self.spec_extra = SpecExtra {
            returns,
            usage,
            errors,
            notes,
        };
        self
    }

    /// Allow running concurrently with other calls of the same turn.
    #[must_use]
    pub fn parallel(mut self) -> Self {
        self.concurrency = ToolConcurrency::Parallel;
        self
    }

    /// Make the tool terminal: a successful call ends the evaluation with
    /// `LoopOutcome::Terminated` (its result is the outcome) and the calls after it in the same
    /// model turn are not run; a failed call is reported to the model like any other.
    #[must_use]
    pub fn terminal(mut self) -> Self {
        self.terminal = true;
        self
    }

    /// Validate and build. Errors carry WINK's messages (name, description, examples).
    pub fn build(self) -> Result<ToolRef, PromptError> {
        validate_tool_name(&self.name)?;
        let description = validate_tool_description(&self.description)
            .map_err(|e| e.with_placeholder(self.name.clone()))?;
        let examples = self
            .examples
            .into_iter()
            .map(|(d, input, output)| {
                Ok(ToolExample {
                    description: validate_example_description(&d)?,
                    input: exclude_none(&input),
                    output,
                })
            })
            .collect::<Result<Vec<_>, PromptError>>()?;
        let parameters = if TypeId::of::<P>() == TypeId::of::<()>() {
            empty_params_schema()
        } else {
            params_schema::<P>()
        };
        Ok(Arc::new(FunctionTool {
            name: self.name,
            description,
            parameters,
            examples,
            handler: self.handler,
            metadata: self.metadata,
            spec_extra: self.spec_extra,
            concurrency: self.concurrency,
            terminal: self.terminal,
        }))
    }
}

impl ToolBuilder<Value, Value> {
    /// A dynamic tool: a JSON schema plus a handler over JSON (prompt files, MCP).
    pub fn dynamic<F>(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        handler: F,
    ) -> DynamicToolBuilder
    where
        F: Fn(Value, &mut ToolContext) -> Result<ToolResult<Value>, ToolError>
            + Send
            + Sync
            + 'static,
    {
        DynamicToolBuilder {
            name: name.into(),
            description: description.into(),
            parameters,
            handler: Arc::new(handler),
            examples: Vec::new(),
            strict_names: true,
            concurrency: ToolConcurrency::Sequential,
            terminal: false,
        }
    }
}

/// Builder for [`ToolBuilder::dynamic`] tools.
pub struct DynamicToolBuilder {
    name: String,
    description: String,
    parameters: Value,
    handler: Arc<DynamicHandler>,
    examples: Vec<ToolExample>,
    strict_names: bool,
    concurrency: ToolConcurrency,
    terminal: bool,
}

impl fmt::Debug for DynamicToolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicToolBuilder")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl DynamicToolBuilder {
    /// Add an example with a JSON input and the output text.
    #[must_use]
    pub fn example(
        mut self,
        description: impl Into<String>,
        input: Value,
        output: impl Into<String>,
    ) -> Self {
        self.examples.push(ToolExample {
            description: description.into(),
            input,
            output: output.into(),
        });
        self
    }

    /// Allow the tool to run concurrently with other parallel calls of the same model turn (see
    /// [`ToolConcurrency`]).
    #[must_use]
    pub fn parallel(mut self) -> Self {
        self.concurrency = ToolConcurrency::Parallel;
        self
    }

    /// Make the tool terminal: a successful call ends the evaluation (see
    /// [`ToolBuilder::terminal`]).
    #[must_use]
    pub fn terminal(mut self) -> Self {
        self.terminal = true;
        self
    }

    /// Accept names from foreign catalogs (MCP): any of `[A-Za-z0-9_.-]`, up to 128 characters,
    /// and descriptions of any length.
    #[must_use]
    pub fn lenient(mut self) -> Self {
        self.strict_names = false;
        self
    }

    /// Validate and build.
    pub fn build(self) -> Result<ToolRef, PromptError> {
        let description = if self.strict_names {
            validate_tool_name(&self.name)?;
            validate_tool_description(&self.description)
                .map_err(|e| e.with_placeholder(self.name.clone()))?
        } else {
            let ok = !self.name.is_empty()
                && self.name.len() <= 128
                && self
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
            if !ok {
                return Err(PromptError::validation(
                    "Tool name must be 1-128 characters of letters, digits, '_', '-' or '.'.",
                )
                .with_placeholder(self.name.clone()));
            }
            self.description.trim().to_owned()
        };
        let examples = self
            .examples
            .into_iter()
            .map(|e| {
                Ok(ToolExample {
                    description: validate_example_description(&e.description)?,
                    input: exclude_none(&e.input),
                    output: e.output,
                })
            })
            .collect::<Result<Vec<_>, PromptError>>()?;
        if !self.parameters.is_object() {
            return Err(
                PromptError::validation("Tool parameters must be a JSON Schema object.")
                    .with_placeholder(self.name.clone()),
            );
        }
        Ok(Arc::new(DynamicTool {
            name: self.name,
            description,
            parameters: self.parameters,
            examples,
            handler: self.handler,
            concurrency: self.concurrency,
            terminal: self.terminal,
        }))
    }
}

struct FunctionTool<P, R> {
    name: String,
    description: String,
    parameters: Value,
    examples: Vec<ToolExample>,
    handler: Option<Handler<P, R>>,
    metadata: Option<ToolMetadata>,
    spec_extra: SpecExtra,
    concurrency: ToolConcurrency,
    terminal: bool,
}

impl<P, R> fmt::Debug for FunctionTool<P, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FunctionTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

fn decode_args<P: DeserializeOwned + 'static>(args: Value) -> Result<P, ToolError> {
    if TypeId::of::<P>() == TypeId::of::<()>() {
        let empty = matches!(&args, Value::Object(m) if m.is_empty()) || args.is_null();
        if !empty {
            return Err(ToolError::Fatal(
                "Tool does not accept any arguments.".to_owned(),
            ));
        }
        return serde_json::from_value::<P>(Value::Null).map_err(ToolError::validation);
    }
    serde_json::from_value::<P>(args).map_err(ToolError::validation)
}

impl<P, R> Tool for FunctionTool<P, R>
where
    P: DeserializeOwned + Serialize + JsonSchema + Send + 'static,
    R: ToolOutput,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn examples(&self) -> &[ToolExample] {
        &self.examples
    }
    fn metadata(&self) -> ToolMetadata {
        self.metadata
            .clone()
            .unwrap_or_else(|| ToolMetadata::derive(&self.name, &self.description))
    }
    fn full_spec(&self) -> ToolFullSpec {
        ToolFullSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.parameters.clone(),
            returns: self
                .spec_extra
                .returns
                .clone()
                .unwrap_or_else(|| wink_session::short_type_name::<R>().to_owned()),
            usage: self.spec_extra.usage.clone(),
            examples: self.examples.clone(),
            errors: self.spec_extra.errors.clone(),
            notes: self.spec_extra.notes.clone(),
        }
    }
    fn is_terminal(&self) -> bool {
        self.terminal
    }
    fn concurrency(&self) -> ToolConcurrency {
        self.concurrency
    }
    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a> {
        let Some(handler) = self.handler.clone() else {
            let name = self.name.clone();
            return Box::pin(async move {
                Err(ToolError::Fatal(format!(
                    "Tool '{name}' does not have a registered handler."
                )))
            });
        };
        Box::pin(async move {
            let params = decode_args::<P>(args)?;
            let result = match handler {
                Handler::Sync(h) => h(params, context)?,
                Handler::Async(h) => h(params, context.clone()).await?,
            };
            Ok(ToolResponse::from(result.erase()))
        })
    }
}

struct DynamicTool {
    name: String,
    description: String,
    parameters: Value,
    examples: Vec<ToolExample>,
    handler: Arc<DynamicHandler>,
    concurrency: ToolConcurrency,
    terminal: bool,
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Tool for DynamicTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn examples(&self) -> &[ToolExample] {
        &self.examples
    }
    fn is_terminal(&self) -> bool {
        self.terminal
    }
    fn concurrency(&self) -> ToolConcurrency {
        self.concurrency
    }
    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let result = (self.handler)(args, context)?;
            Ok(ToolResponse::from(result.erase()))
        })
    }
}

// endregion: --- builder

// region: --- Tools: block

/// WINK's `Tools:` block for the tools that have examples (empty when none do).
pub fn render_tool_examples_block(tools: &[ToolRef]) -> String {
    let mut rendered = Vec::new();
    for tool in tools {
        if tool.examples().is_empty() {
            continue;
        }
        let block = render_examples_for_tool(tool.as_ref());
        rendered.push(format!(
            "- {}: {}\n{}",
            tool.name(),
            tool.description(),
            python_indent(&block, "  ")
        ));
    }
    if rendered.is_empty() {
        return String::new();
    }
    let mut out = String::from("Tools:");
    for r in rendered {
        out.push('\n');
        out.push_str(&r);
    }
    out
}

fn render_examples_for_tool(tool: &dyn Tool) -> String {
    let mut lines = vec![format!("- {} examples:", tool.name())];
    for example in tool.examples() {
        lines.push(format!("  - description: {}", example.description));
        lines.push("    input:".to_owned());
        fenced(
            &mut lines,
            &python_json(&example.input),
            "      ",
            "```json",
        );
        lines.push("    output:".to_owned());
        fenced(&mut lines, &example.output, "      ", "```");
    }
    lines.join("\n")
}

fn fenced(lines: &mut Vec<String>, content: &str, indent: &str, fence: &str) {
    lines.push(format!("{indent}{fence}"));
    let split = crate::text::python_splitlines(content);
    if split.is_empty() {
        lines.push(indent.to_owned());
    } else {
        lines.extend(split.iter().map(|l| format!("{indent}{l}")));
    }
    lines.push(format!("{indent}```"));
}

/// Python's `textwrap.indent(text, prefix)`: prefix every line that is not whitespace-only.
fn python_indent(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            out.push_str(line);
        } else {
            out.push_str(prefix);
            out.push_str(line);
        }
    }
    out
}

// endregion: --- Tools: block

#[cfg(test)]
mod tests {
    #[test]
    fn the_context_filesystem_is_the_filesystem_resource() {
        let mut ctx = ToolContext::new(Session::new());
        assert!(ctx.filesystem().is_none());
        let fs: Arc<dyn wink_fs::Filesystem> = Arc::new(wink_fs::InMemoryFilesystem::new());
        ctx.resources = Resources::new().with(Arc::clone(&fs));
        let found = ctx.filesystem().map(Arc::clone);
        assert!(found.is_some_and(|f| Arc::ptr_eq(&f, &fs)));
    }

    use super::*;
    use serde_json::json;

    fn payload(value: Value) -> ToolResult<ToolPayload> {
        ToolResult::ok("ok", ToolPayload::from_output(&value))
    }

    #[test]
    fn serializes_tool_messages_like_wink() {
        assert_eq!(
            payload(json!({"group": {"value": 1}})).model_text(),
            "ok\n\n{\"group\": {\"value\": 1}}"
        );
        assert_eq!(
            payload(json!({"group": 1})).excluding_value().model_text(),
            "ok"
        );
        let mut r = payload(json!({"answer": "value"}));
        r.message.clear();
        assert_eq!(r.model_text(), "{\"answer\": \"value\"}");
        assert_eq!(
            ToolResult::<ToolPayload>::message("fallback").model_text(),
            "fallback"
        );
        assert_eq!(
            payload(json!([{"answer": "first"}, {"answer": "second"}])).model_text(),
            "ok\n\n[{\"answer\": \"first\"}, {\"answer\": \"second\"}]"
        );
    }

    #[test]
    fn validates_names_and_descriptions_with_wink_messages() {
        assert_eq!(
            validate_tool_name("Lookup").unwrap_err().message(),
            "Tool name must match the OpenAI function name constraints (pattern: ^[a-z0-9_-]{1,64}$)."
        );
        assert_eq!(
            validate_tool_name("Lookup").unwrap_err().placeholder(),
            Some("Lookup")
        );
        assert_eq!(
            validate_tool_name(" lookup").unwrap_err().message(),
            "Tool name must not contain surrounding whitespace."
        );
        assert!(validate_tool_name("file.read").is_ok());
        assert!(validate_tool_name("file..read").is_err());
        assert!(validate_tool_name(&"a".repeat(65)).is_err());
        assert_eq!(
            validate_tool_description(&"x".repeat(201))
                .unwrap_err()
                .message(),
            "Tool description must be 1-200 ASCII characters."
        );
        assert_eq!(
            validate_tool_description("   ").unwrap_err().message(),
            "Tool description must be 1-200 ASCII characters."
        );
        assert_eq!(validate_tool_description(" ok ").unwrap(), "ok");
    }

    #[test]
    fn metadata_summary_and_namespace() {
        assert_eq!(
            first_sentence("Reads a file from the filesystem. Supports line ranges."),
            "Reads a file from the filesystem."
        );
        assert_eq!(
            first_sentence("Use e.g. this. Then that."),
            "Use e.g. this."
        );
        assert_eq!(namespace_of("file.read").as_deref(), Some("file"));
        assert_eq!(namespace_of("a.b.c").as_deref(), Some("a.b"));
        assert_eq!(namespace_of("read"), None);
    }

    #[test]
    fn python_indent_skips_blank_lines() {
        assert_eq!(python_indent("a\n\n  \nb", "  "), "  a\n\n  \n  b");
    }
}
