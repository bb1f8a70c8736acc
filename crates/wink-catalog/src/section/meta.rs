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
pub const FIND_TOOL_DESCRIPTION: &str = "Search the tool catalog by capability. Describe the capability you need in a few words (e.g. \"convert currency\", \"create calendar event\"); do not paste the user's request. Returns matching tools, best first.";
/// What a `find_tool` result says of the tools it found in native mode ([`CatalogNativeSearch`]):
/// the provider loads them from the result, so they can be called directly.
pub const NATIVE_FIND_NOTE: &str = "loaded: call them directly";
/// Description of `tool.list`.
pub const TOOL_LIST_DESCRIPTION: &str =
    "List catalog tools (name and one-line summary) in pages, optionally by namespace or tag.";
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
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_FIND_LIMIT, "description": format!("Results to return (default {DEFAULT_FIND_LIMIT}).")}
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
                };
                Ok(text_response(catalog.list_text(&query)))
            }
            MetaKind::Find => {
                let purpose = string_arg(args, "purpose")?
                    .ok_or_else(|| ToolError::validation("`purpose` is required."))?;
                let limit = count_arg(args, "limit")?.unwrap_or(DEFAULT_FIND_LIMIT);
                let found = catalog.find(&purpose, limit.clamp(1, MAX_FIND_LIMIT));
                self.shared
                    .warm(found.iter().map(|hit| catalog.entries()[hit.entry].name()));
                if native_search_enabled(&context.session) {
                    return Ok(text_response(catalog.find_text_noted(
                        &purpose,
                        limit,
                        NATIVE_FIND_NOTE,
                    )));
                }
                Ok(text_response(catalog.find_text(&purpose, limit)))
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
