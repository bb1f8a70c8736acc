//! [`ToolBuilder`] and [`DynamicToolBuilder`]: a tool from a typed handler, or
//! from a JSON schema plus a closure; the parameter schemas they derive.

use super::*;

/// The JSON Schema WINK sends for a params type: no `$schema`/`title`, objects closed with
/// `additionalProperties: false`.
pub fn params_schema<P: JsonSchema>() -> Value {
    let schema = schemars::schema_for!(P);
    let mut value = schema.to_value();
    clean_schema(&mut value, true);
    value
}

pub(super) fn clean_schema(value: &mut Value, top: bool) {
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

pub(super) type SyncHandler<P, R> =
    dyn Fn(P, &mut ToolContext) -> Result<ToolResult<R>, ToolError> + Send + Sync;
pub(super) type AsyncHandler<P, R> = dyn Fn(P, ToolContext) -> Pin<Box<dyn Future<Output = Result<ToolResult<R>, ToolError>> + Send>>
    + Send
    + Sync;
pub(super) type DynamicHandler =
    dyn Fn(Value, &mut ToolContext) -> Result<ToolResult<Value>, ToolError> + Send + Sync;

pub(super) enum Handler<P, R> {
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
    pub(super) name: String,
    pub(super) description: String,
    pub(super) handler: Option<Handler<P, R>>,
    pub(super) examples: Vec<(String, Value, String)>,
    pub(super) metadata: Option<ToolMetadata>,
    pub(super) spec_extra: SpecExtra,
    pub(super) concurrency: ToolConcurrency,
    pub(super) terminal: bool,
}

#[derive(Debug, Clone, Default)]
pub(super) struct SpecExtra {
    pub(super) returns: Option<String>,
    pub(super) usage: Option<String>,
    pub(super) errors: Vec<String>,
    pub(super) notes: Vec<String>,
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
    pub(super) name: String,
    pub(super) description: String,
    pub(super) parameters: Value,
    pub(super) handler: Arc<DynamicHandler>,
    pub(super) examples: Vec<ToolExample>,
    pub(super) strict_names: bool,
    pub(super) concurrency: ToolConcurrency,
    pub(super) terminal: bool,
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
