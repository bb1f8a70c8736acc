//! The meta-tools the section offers (`tool.list`, `tool.describe`, `find_tool`):
//! their descriptions, arguments and the texts they answer with.

use super::*;

#[derive(Debug, Clone, Copy)]
pub(super) enum MetaKind {
    List,
    Describe,
    Find,
}

pub(super) struct MetaTool {
    pub(super) kind: MetaKind,
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) parameters: Value,
    pub(super) shared: Arc<Shared>,
}

impl fmt::Debug for MetaTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MetaTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Description of `find_tool`: it tells the model to describe the capability, not to paste the
/// user's words.
pub const FIND_TOOL_DESCRIPTION: &str = "Search the tool catalog by capability. Describe the capability you need in a few words (e.g. \"convert currency\", \"create calendar event\"); do not paste the user's request. For a multi-step task, list each capability in `queries`. Returns matching tools, best first.";
/// What a `find_tool` result says of the tools it found in native mode ([`CatalogNativeSearch`]):
/// the provider loads them from the result, so they can be called directly.
pub const NATIVE_FIND_NOTE: &str = "loaded: call them directly";
/// What a `find_tool` result says of the tools it found, outside native mode.
pub const FIND_NOTE: &str = "call `tool.describe` with a name to make it callable";
/// Description of `tool.list`.
pub const TOOL_LIST_DESCRIPTION: &str = "List catalog tools (name and one-line summary) in pages, optionally by namespace, tag or search query.";
/// Description of `tool.describe`.
pub const TOOL_DESCRIBE_DESCRIPTION: &str =
    "Show the full specifications of catalog tools by exact name and make them callable.";

impl MetaTool {
    pub(super) fn list(shared: Arc<Shared>) -> Self {
        Self {
            kind: MetaKind::List,
            name: TOOL_LIST,
            description: TOOL_LIST_DESCRIPTION,
            parameters: json!({
                "type": "object",
                "properties": {
                    "namespace": {"type": "string", "description": "Only this namespace."},
                    "tag": {"type": "string", "description": "Only tools with this tag."},
                    "query": {"type": "string", "description": "Only tools found for this capability."},
                    "offset": {"type": "integer", "minimum": 0, "description": "Tools to skip (default 0)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_LIMIT, "description": format!("Page size (default {DEFAULT_LIST_LIMIT}).")}
                },
                "additionalProperties": false
            }),
            shared,
        }
    }

    pub(super) fn describe(shared: Arc<Shared>) -> Self {
        Self {
            kind: MetaKind::Describe,
            name: TOOL_DESCRIBE,
            description: TOOL_DESCRIBE_DESCRIPTION,
            parameters: json!({
                "type": "object",
                "properties": {
                    "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 20, "description": "Exact tool names."}
                },
                "required": ["names"],
                "additionalProperties": false
            }),
            shared,
        }
    }

    pub(super) fn find(shared: Arc<Shared>) -> Self {
        Self {
            kind: MetaKind::Find,
            name: FIND_TOOL,
            description: FIND_TOOL_DESCRIPTION,
            parameters: json!({
                "type": "object",
                "properties": {
                    "purpose": {"type": "string", "description": "The capability needed, in a few words."},
                    "queries": {"type": "array", "items": {"type": "string"}, "maxItems": wink_search::MAX_STEPS, "description": "One capability per step."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_FIND_LIMIT, "description": format!("Results to return (default {DEFAULT_FIND_LIMIT}; {DEFAULT_FIND_PER_STEP} per step).")}
                },
                "required": ["purpose"],
                "additionalProperties": false
            }),
            shared,
        }
    }

    pub(super) fn run(
        &self,
        args: &Value,
        context: &ToolContext,
    ) -> Result<ToolResponse, ToolError> {
        let catalog = self.shared.catalog();
        match self.kind {
            MetaKind::List => {
                let query = ListQuery {
                    namespace: string_arg(args, "namespace")?,
                    tag: string_arg(args, "tag")?,
                    offset: count_arg(args, "offset")?.unwrap_or(0),
                    limit: count_arg(args, "limit")?.unwrap_or(DEFAULT_LIST_LIMIT),
                    queries: string_arg(args, "query")?.into_iter().collect(),
                };
                Ok(text_response(catalog.list_text(&query)))
            }
            MetaKind::Find => {
                let purpose = string_arg(args, "purpose")?;
                let queries = strings_arg(args, "queries")?;
                let input = match (&purpose, queries.is_empty()) {
                    (_, false) => TaskInput::Queries(&queries),
                    (Some(purpose), true) => TaskInput::Text(purpose),
                    (None, true) => {
                        return Err(ToolError::validation(
                            "`purpose` is required (or `queries`).",
                        ));
                    }
                };
                let limit = count_arg(args, "limit")?;
                let found = catalog.find_task(
                    input,
                    limit.map_or_else(
                        || crate::catalog::default_find_limit(crate::catalog::step_count(input)),
                        |limit| limit.clamp(1, MAX_FIND_LIMIT),
                    ),
                );
                self.shared.warm(
                    found
                        .hits
                        .iter()
                        .map(|hit| catalog.entries()[hit.entry].name()),
                );
                let note = if native_search_enabled(&context.session) {
                    NATIVE_FIND_NOTE
                } else {
                    FIND_NOTE
                };
                Ok(text_response(catalog.task_text(input, limit, note)))
            }
            MetaKind::Describe => {
                let names: Vec<String> = match args.get("names") {
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|item| {
                            item.as_str().map(str::to_owned).ok_or_else(|| {
                                ToolError::validation("`names` must be a list of strings.")
                            })
                        })
                        .collect::<Result<_, _>>()?,
                    Some(Value::String(name)) => vec![name.clone()],
                    _ => return Err(ToolError::validation("`names` is required.")),
                };
                let description = catalog.describe(&names);
                self.shared
                    .warm(description.tools.iter().map(|tool| tool.name()));
                if description.tools.is_empty() {
                    return Ok(ToolResponse::from(ToolResult::<ToolPayload>::failure(
                        description.text,
                    )));
                }
                let activated: Vec<String> = description
                    .tools
                    .iter()
                    .map(|t| t.name().to_owned())
                    .collect();
                context.session.dispatch(CatalogToolsActivated {
                    catalog: self.shared.id(),
                    tools: activated,
                });
                let path = self.shared.path.clone();
                Ok(ToolResponse {
                    result: ToolResult::message(description.text),
                    expansion: Some(SectionExpansion {
                        tools: description
                            .tools
                            .into_iter()
                            .map(|tool| (path.clone(), tool))
                            .collect(),
                        path,
                    }),
                })
            }
        }
    }
}

pub(super) fn text_response(text: String) -> ToolResponse {
    ToolResponse::from(ToolResult::<ToolPayload>::message(text))
}

pub(super) fn string_arg(args: &Value, key: &str) -> Result<Option<String>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(ToolError::validation(format!("`{key}` must be a string."))),
    }
}

/// A list of strings (a lone string counts as a list of one); missing or null is empty.
pub(super) fn strings_arg(args: &Value, key: &str) -> Result<Vec<String>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(vec![text.clone()]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str().map(str::to_owned).ok_or_else(|| {
                    ToolError::validation(format!("`{key}` must be a list of strings."))
                })
            })
            .collect(),
        Some(_) => Err(ToolError::validation(format!(
            "`{key}` must be a list of strings."
        ))),
    }
}

pub(super) fn count_arg(args: &Value, key: &str) -> Result<Option<usize>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| ToolError::validation(format!("`{key}` must be a whole number ≥ 0."))),
    }
}

impl Tool for MetaTool {
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self) -> &str {
        self.description
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn accepts_overrides(&self) -> bool {
        false
    }

    fn concurrency(&self) -> ToolConcurrency {
        match self.kind {
            MetaKind::List | MetaKind::Find => ToolConcurrency::Parallel,
            MetaKind::Describe => ToolConcurrency::Sequential,
        }
    }

    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { self.run(&args, context) })
    }
}
