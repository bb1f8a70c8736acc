//! Progressive disclosure: the disclosure modes, summary suffixes and the builtin
//! `read_section` / `open_sections` tools.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wink_session::{DisclosureTelemetry, SectionPath, SectionVisibility, Session};

use crate::error::{PromptError, VisibilityExpansionRequired};
use crate::render::RenderState;
use crate::template::Template;
use crate::tool::{
    SectionExpansion, Tool, ToolContext, ToolError, ToolFuture, ToolPayload, ToolRef, ToolResponse,
    ToolResult,
};

pub use crate::builtin::{OPEN_SECTIONS, READ_SECTION, is_disclosure_tool};
pub use crate::valid_keys::with_valid_keys;
/// Folder that context-files mode writes section content into.
pub const CONTEXT_FOLDER: &str = "context";

/// How summarized sections are disclosed to the model. Selectable per prompt.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DisclosureMode {
    /// Seed 003 (default): one `read_section` tool for every summarized section; it returns the
    /// content and the section's tools, which are injected into the running conversation (or
    /// trigger a restart when the provider cannot take new tools mid-conversation).
    #[default]
    Unified,
    /// WINK v0.17, byte for byte: `open_sections` for summarized sections holding tools,
    /// `read_section` for the others (quirks included).
    Wink,
    /// Seed 000: every summarized section opens through `open_sections`, which ends the turn and
    /// asks the caller to re-render.
    OpenSections,
    /// Seed 001: `open_sections` writes content-only sections to `context/<key>.md` and
    /// re-renders for tool-bearing ones.
    ContextFiles,
}

impl DisclosureMode {
    /// All modes.
    pub const ALL: [DisclosureMode; 4] = [
        Self::Unified,
        Self::Wink,
        Self::OpenSections,
        Self::ContextFiles,
    ];

    /// The mode's name as used in prompt files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unified => "unified",
            Self::Wink => "wink",
            Self::OpenSections => "open-sections",
            Self::ContextFiles => "context-files",
        }
    }
}

impl fmt::Display for DisclosureMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DisclosureMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| format!("unknown disclosure mode '{s}' (expected one of: unified, wink, open-sections, context-files)"))
    }
}

/// The instruction appended to a summarized section (including the leading `\n\n---\n`).
///
/// ```
/// use wink_core::{DisclosureMode, build_summary_suffix};
/// assert_eq!(
///     build_summary_suffix(DisclosureMode::Unified, "context", &[], false),
///     "\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"context\".]"
/// );
/// ```
pub fn build_summary_suffix(
    mode: DisclosureMode,
    section_key: &str,
    child_keys: &[String],
    has_tools: bool,
) -> String {
    summary_suffix(mode, section_key, &child_keys.join(", "), has_tools)
}

/// [`build_summary_suffix`] with the child keys already joined by `, ` (empty: no children).
pub(crate) fn summary_suffix(
    mode: DisclosureMode,
    section_key: &str,
    children: &str,
    has_tools: bool,
) -> String {
    let base = match (mode, has_tools, children.is_empty()) {
        (DisclosureMode::Wink, true, true) | (DisclosureMode::OpenSections, _, true) => {
            format!(
                "[This section is summarized. To view full content, call `open_sections` with key \"{section_key}\".]"
            )
        }
        (DisclosureMode::Wink, true, false) | (DisclosureMode::OpenSections, _, false) => format!(
            "[This section is summarized. Call `open_sections` with key \"{section_key}\" to view full content including subsections: {children}.]"
        ),
        (DisclosureMode::Wink | DisclosureMode::Unified, _, true) => {
            format!(
                "[This section is summarized. To view full content, call `read_section` with key \"{section_key}\".]"
            )
        }
        (DisclosureMode::Wink | DisclosureMode::Unified, _, false) => format!(
            "[This section is summarized. Call `read_section` with key \"{section_key}\" to view full content including subsections: {children}.]"
        ),
        (DisclosureMode::ContextFiles, true, true) => format!(
            "[This section is summarized. To view full content and access additional tools, call `open_sections` with key \"{section_key}\".]"
        ),
        (DisclosureMode::ContextFiles, false, true) => format!(
            "[This section is summarized. To view full content, call `open_sections` with key \"{section_key}\". The content will be written to context/{section_key}.md for you to read.]"
        ),
        (DisclosureMode::ContextFiles, true, false) => format!(
            "[This section is summarized. Call `open_sections` with key \"{section_key}\" to view full content including subsections: {children}. Additional tools may become available.]"
        ),
        (DisclosureMode::ContextFiles, false, false) => format!(
            "[This section is summarized. Call `open_sections` with key \"{section_key}\" to write content (including subsections: {children}) to context/{section_key}.md.]"
        ),
    };
    format!("\n\n---\n{base}")
}

/// [`build_summary_suffix`], naming the tools the section hides (`tool_names`) right after its
/// opening words, for prompts built with
/// [`PromptTemplateBuilder::name_hidden_tools`](crate::PromptTemplateBuilder::name_hidden_tools).
/// A call of a named tool opens the section and runs (the agent loop's auto-open), so the model can
/// skip the `read_section` step. Wink mode, and sections hiding no tool, keep the plain suffix.
///
/// ```
/// use wink_core::{DisclosureMode, build_summary_suffix_naming_tools};
/// assert_eq!(
///     build_summary_suffix_naming_tools(DisclosureMode::Unified, "orders", &[], &["lookup_order".into()]),
///     "\n\n---\n[This section is summarized. Its tools, callable now: lookup_order. To view full content, call `read_section` with key \"orders\".]"
/// );
/// ```
pub fn build_summary_suffix_naming_tools(
    mode: DisclosureMode,
    section_key: &str,
    child_keys: &[String],
    tool_names: &[String],
) -> String {
    summary_suffix_naming_tools(mode, section_key, &child_keys.join(", "), tool_names)
}

/// [`build_summary_suffix_naming_tools`] with the child keys already joined by `, `.
pub(crate) fn summary_suffix_naming_tools(
    mode: DisclosureMode,
    section_key: &str,
    children: &str,
    tool_names: &[String],
) -> String {
    let plain = summary_suffix(mode, section_key, children, !tool_names.is_empty());
    if tool_names.is_empty() || mode == DisclosureMode::Wink {
        return plain;
    }
    let opener = "[This section is summarized.";
    plain.replacen(
        opener,
        &format!(
            "{opener} Its tools, callable now: {}.",
            tool_names.join(", ")
        ),
        1,
    )
}

/// A custom suffix: `\n\n---\n` then the text with `${section_key}` and `${child_keys}` substituted.
///
/// `${tools}` is replaced by the names of the tools the section hides, comma-separated (empty when
/// it hides none).
pub fn build_custom_suffix(
    custom: &str,
    section_key: &str,
    child_keys: &[String],
    tool_names: &[String],
) -> Result<String, PromptError> {
    custom_suffix(custom, section_key, &child_keys.join(", "), tool_names)
}

/// [`build_custom_suffix`] with the child keys already joined by `, `.
pub(crate) fn custom_suffix(
    custom: &str,
    section_key: &str,
    children: &str,
    tool_names: &[String],
) -> Result<String, PromptError> {
    let template = Template::parse_section(custom);
    let tools = tool_names.join(", ");
    let text = template.render(|name| match name {
        "section_key" => Some(section_key.into()),
        "child_keys" => Some(children.into()),
        "tools" => Some(tools.clone().into()),
        _ => None,
    })?;
    Ok(format!("\n\n---\n{text}"))
}

/// Placeholders a custom summary suffix may use.
pub(crate) const SUFFIX_PLACEHOLDERS: [&str; 3] = ["section_key", "child_keys", "tools"];

// region: --- builtin tools

fn wink_read_section_schema() -> Value {
    json!({"type": "object", "properties": {"section_key": {"type": "string"}}, "additionalProperties": false, "required": ["section_key"]})
}

fn unified_read_section_schema() -> Value {
    json!({"type": "object", "properties": {
        "section_key": {"type": "string", "description": "Key of the summarized section, exactly as its summary shows it (dot notation for nested sections, e.g. 'parent.child')."},
        "part": {"type": "integer", "minimum": 1, "description": "Which part of a long section to read, when an earlier read of it said it continues (default 1)."}
    }, "additionalProperties": false, "required": ["section_key"]})
}

fn wink_open_sections_schema() -> Value {
    json!({"type": "object", "properties": {"section_keys": {"type": "array", "items": {"type": "string"}}, "reason": {"type": "string"}}, "additionalProperties": false, "required": ["section_keys", "reason"]})
}

fn described_open_sections_schema() -> Value {
    json!({"type": "object", "properties": {
        "section_keys": {"type": "array", "items": {"type": "string"}, "description": "Keys of the summarized sections to open, as their summaries show them (dot notation for nested sections)."},
        "reason": {"type": "string", "description": "Why you need these sections, in at most 256 characters."}
    }, "additionalProperties": false, "required": ["section_keys", "reason"]})
}

/// The builtin `read_section` tool bound to one render.
pub(crate) struct ReadSectionTool {
    state: Arc<RenderState>,
    description: &'static str,
    parameters: Value,
}

impl fmt::Debug for ReadSectionTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadSectionTool")
            .field("mode", &self.state.mode)
            .finish()
    }
}

impl ReadSectionTool {
    pub(crate) fn tool(state: Arc<RenderState>) -> ToolRef {
        let (description, parameters) = match state.mode {
            DisclosureMode::Wink => (
                "Read the full content of a summarized section without expanding it. Returns the section's markdown content. Child sections may still be summarized in the output.",
                wink_read_section_schema(),
            ),
            _ => (
                "Read the full content of a summarized section. Tools the section holds become available to you.",
                unified_read_section_schema(),
            ),
        };
        Arc::new(Self {
            state,
            description,
            parameters,
        })
    }

    fn key_arg(args: &Value) -> Result<String, ToolError> {
        match args.get("section_key") {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(ToolError::Validation(
                "Field 'section_key' must be a string.".into(),
            )),
            None => Err(ToolError::Validation(
                "Missing required field: 'section_key'".into(),
            )),
        }
    }

    fn part_arg(args: &Value) -> Result<Option<usize>, ToolError> {
        match args.get("part") {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|&n| n >= 1)
                .map(|n| Some(usize::try_from(n).unwrap_or(usize::MAX)))
                .ok_or_else(|| {
                    ToolError::Validation("Field 'part' must be a positive integer.".into())
                }),
        }
    }

    fn run(&self, args: &Value, context: &ToolContext) -> Result<ToolResponse, ToolError> {
        let key = Self::key_arg(args)?;
        match self.state.mode {
            DisclosureMode::Wink => self
                .state
                .wink_read_section(&key)
                .map(ToolResponse::from)
                .map_err(ToolError::from),
            _ => {
                let read = crate::render::SectionRead {
                    key: &key,
                    part: Self::part_arg(args)?,
                    room: context.resource::<crate::ContextRoom>().map(|r| r.0),
                };
                self.state
                    .unified_read_section(&read, &context.session)
                    .map_err(ToolError::from)
            }
        }
    }
}

impl Tool for ReadSectionTool {
    fn name(&self) -> &str {
        READ_SECTION
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
    fn concurrency(&self) -> crate::tool::ToolConcurrency {
        crate::tool::ToolConcurrency::Parallel
    }
    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { self.run(&args, context) })
    }
}

/// The builtin `open_sections` tool bound to one render.
pub(crate) struct OpenSectionsTool {
    state: Arc<RenderState>,
    parameters: Value,
}

impl fmt::Debug for OpenSectionsTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenSectionsTool")
            .field("mode", &self.state.mode)
            .finish()
    }
}

/// Parsed `open_sections` arguments.
struct OpenSectionsArgs {
    section_keys: Vec<String>,
    reason: String,
}

impl OpenSectionsTool {
    pub(crate) fn tool(state: Arc<RenderState>) -> ToolRef {
        let parameters = match state.mode {
            DisclosureMode::Wink => wink_open_sections_schema(),
            _ => described_open_sections_schema(),
        };
        Arc::new(Self { state, parameters })
    }

    fn parse(args: &Value) -> Result<OpenSectionsArgs, ToolError> {
        let keys = match args.get("section_keys") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str().map(str::to_owned).ok_or_else(|| {
                        ToolError::Validation(
                            "Field 'section_keys' must be a list of strings.".into(),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => {
                return Err(ToolError::Validation(
                    "Field 'section_keys' must be a list of strings.".into(),
                ));
            }
            None => {
                return Err(ToolError::Validation(
                    "Missing required field: 'section_keys'".into(),
                ));
            }
        };
        let reason = match args.get("reason") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                return Err(ToolError::Validation(
                    "Field 'reason' must be a string.".into(),
                ));
            }
            None => {
                return Err(ToolError::Validation(
                    "Missing required field: 'reason'".into(),
                ));
            }
        };
        Ok(OpenSectionsArgs {
            section_keys: keys,
            reason,
        })
    }

    /// The model's reason, naming the keys that open no section and the valid ones.
    fn reason(&self, reason: &str, unknown: &[String], session: &Session) -> String {
        let Some(first) = unknown.first() else {
            return reason.to_owned();
        };
        let named: Vec<String> = unknown.iter().map(|k| format!("'{k}'")).collect();
        let note = with_valid_keys(
            &format!("Not opened (no such section): {}", named.join(", ")),
            first,
            &self.state.summarized_keys(Some(session)),
        );
        if reason.is_empty() {
            note
        } else {
            format!("{reason} ({note})")
        }
    }

    fn run(&self, args: &Value, context: &ToolContext) -> Result<ToolResponse, ToolError> {
        let parsed = Self::parse(args)?;
        let mode = self.state.mode;
        // Seed 000 reports bad keys as validation errors; WINK and seed 001 as handler failures.
        let to_error = |e: PromptError| match mode {
            DisclosureMode::OpenSections => ToolError::Validation(e.message().to_owned()),
            _ => ToolError::Failed(e.message().to_owned()),
        };
        if mode != DisclosureMode::Wink && parsed.reason.chars().count() > 256 {
            return Err(to_error(PromptError::validation(
                "Reason must be at most 256 characters.",
            )));
        }
        let request = match mode {
            DisclosureMode::Wink => {
                let (paths, unknown) = self
                    .state
                    .validate_open_request(&parsed.section_keys)
                    .map_err(to_error)?;
                OpenRequest {
                    keys: parsed
                        .section_keys
                        .iter()
                        .filter(|k| !unknown.contains(k))
                        .cloned()
                        .collect(),
                    targets: paths.clone(),
                    overrides: paths,
                    unknown,
                }
            }
            _ => self
                .state
                .lenient_open_request(&parsed.section_keys, &context.session)
                .map_err(to_error)?,
        };
        let reason = self.reason(&parsed.reason, &request.unknown, &context.session);
        let expansion = || {
            ToolError::ExpansionRequired(Box::new(VisibilityExpansionRequired::new(
                request.keys.clone(),
                request
                    .overrides
                    .iter()
                    .map(|p| (p.clone(), SectionVisibility::Full))
                    .collect::<IndexMap<_, _>>(),
                reason.clone(),
            )))
        };
        if mode != DisclosureMode::ContextFiles {
            return Err(expansion());
        }
        if request
            .targets
            .iter()
            .any(|p| self.state.subtree_has_tools(p))
        {
            return Err(expansion());
        }
        let Some(fs) = context.filesystem() else {
            return Ok(
                ToolResult::failure("Cannot write context files: no filesystem available.").into(),
            );
        };
        let mut written = Vec::new();
        for path in &request.targets {
            let file = self
                .state
                .write_context_file(path, fs.as_ref(), &context.session)
                .map_err(|e| {
                    ToolError::Failed(format!(
                        "Failed to write context for '{}': {e}",
                        path.dotted()
                    ))
                });
            match file {
                Ok(f) => written.push(f),
                Err(ToolError::Failed(message)) => return Ok(ToolResult::failure(message).into()),
                Err(other) => return Err(other),
            }
        }
        let value = json!({"written_files": written});
        let message = format!("Section content written to: {}", written.join(", "));
        Ok(ToolResult::ok(
            message,
            ToolPayload {
                rendered: String::new(),
                json: value,
            },
        )
        .into())
    }
}

impl Tool for OpenSectionsTool {
    fn name(&self) -> &str {
        OPEN_SECTIONS
    }
    fn description(&self) -> &str {
        match self.state.mode {
            DisclosureMode::ContextFiles => {
                "Open summarized sections: content-only sections are written to context/<key>.md for you to read; sections with tools are expanded in the prompt."
            }
            _ => "Expand summarized sections to view their full content.",
        }
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn accepts_overrides(&self) -> bool {
        false
    }
    fn is_terminal(&self) -> bool {
        true
    }
    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { self.run(&args, context) })
    }
}

/// A validated `open_sections` request.
pub(crate) struct OpenRequest {
    /// The keys to open, as the model sent them (already expanded ones left out).
    pub(crate) keys: Vec<String>,
    /// The sections asked for.
    pub(crate) targets: Vec<SectionPath>,
    /// What a restart sets to full: each target's summarized ancestors, then the target when it
    /// is summarized itself (opening a nested section opens the chain that hides it).
    pub(crate) overrides: Vec<SectionPath>,
    /// Keys that name no section (the others are opened all the same).
    pub(crate) unknown: Vec<String>,
}

impl RenderState {
    /// Indices of the ancestors of node `index`, outermost first.
    fn ancestor_indices(&self, index: usize) -> Vec<usize> {
        let path = &self.nodes()[index].path;
        (0..index)
            .filter(|&i| path.is_descendant_of(&self.nodes()[i].path))
            .collect()
    }

    /// `open_sections` validation outside `wink` mode, against the live visibility in `session`:
    /// unknown keys and disabled sections (or sections inside a disabled one) are rejected with
    /// a message saying so; a key whose section is already visible (it and every ancestor full)
    /// is skipped, and only a request where every key is is rejected (WINK HEAD); a section
    /// inside a summarized parent opens the parent chain with it.
    pub(crate) fn lenient_open_request(
        &self,
        keys: &[String],
        session: &Session,
    ) -> Result<OpenRequest, PromptError> {
        if keys.is_empty() {
            return Err(PromptError::validation(
                "At least one section key must be provided.",
            ));
        }
        let mut request = OpenRequest {
            keys: Vec::new(),
            targets: Vec::new(),
            overrides: Vec::new(),
            unknown: Vec::new(),
        };
        let mut expanded: Vec<&str> = Vec::new();
        for key in keys {
            let Some(index) = self.nodes().iter().position(|n| n.path.dotted() == *key) else {
                request.unknown.push(key.clone());
                continue;
            };
            let mut hidden_by = Vec::new();
            for i in self.ancestor_indices(index).into_iter().chain([index]) {
                let node = &self.nodes()[i];
                let params = self.resolve_params(i)?;
                if !self.is_enabled(i, params.as_ref(), Some(session))? {
                    return Err(PromptError::validation(if i == index {
                        format!("Section '{key}' is disabled, so it cannot be opened.")
                    } else {
                        format!(
                            "Section '{key}' is inside the disabled section '{}', so it cannot be opened.",
                            node.path.dotted()
                        )
                    }));
                }
                if self.effective_visibility(i, params.as_ref(), Some(session))?
                    == SectionVisibility::Summary
                {
                    hidden_by.push(node.path.clone());
                }
            }
            if hidden_by.is_empty() {
                if !expanded.contains(&key.as_str()) {
                    expanded.push(key);
                }
                continue;
            }
            let target = self.nodes()[index].path.clone();
            if request.targets.contains(&target) {
                continue;
            }
            request.keys.push(key.clone());
            request.targets.push(target);
            for path in hidden_by {
                if !request.overrides.contains(&path) {
                    request.overrides.push(path);
                }
            }
        }
        if let Some(key) = request.unknown.first()
            && request.targets.is_empty()
        {
            return Err(PromptError::validation(with_valid_keys(
                &format!("Section '{key}' does not exist in this prompt."),
                key,
                &self.summarized_keys(Some(session)),
            )));
        }
        match expanded.as_slice() {
            _ if !request.targets.is_empty() => Ok(request),
            [key] => Err(PromptError::validation(format!(
                "Section '{key}' is already expanded."
            ))),
            all => Err(PromptError::validation(format!(
                "All requested sections are already expanded: {}",
                all.iter()
                    .map(|k| format!("'{k}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }
}

/// Seed 000's `OpenSectionsResult`: the value of an `open_sections` call that asks for a
/// restart (outside `wink` mode, where WINK v0.17 raises without a result).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenSectionsResult {
    /// The sections to expand, with the visibility requested (`full`).
    pub requested_overrides: IndexMap<SectionPath, SectionVisibility>,
}

impl OpenSectionsResult {
    /// The result for an expansion request.
    pub fn of(expansion: &VisibilityExpansionRequired) -> Self {
        Self {
            requested_overrides: expansion.requested_overrides.clone(),
        }
    }

    /// Seed 000's `render()`: `Sections requested for expansion: a, b/c. Retry prompt with
    /// visibility overrides.` (path segments joined with `/`).
    pub fn render(&self) -> String {
        let keys: Vec<String> = self
            .requested_overrides
            .keys()
            .map(|p| p.segments().join("/"))
            .collect();
        format!(
            "Sections requested for expansion: {}. Retry prompt with visibility overrides.",
            keys.join(", ")
        )
    }

    /// The value as a tool payload: `{"requested_overrides": {"a": "full", "b.c": "full"}}`
    /// (dotted keys) and the rendered text.
    pub fn payload(&self) -> ToolPayload {
        let overrides: serde_json::Map<String, Value> = self
            .requested_overrides
            .iter()
            .map(|(p, v)| (p.dotted(), Value::String(v.as_str().to_owned())))
            .collect();
        ToolPayload {
            json: json!({"requested_overrides": overrides}),
            rendered: self.render(),
        }
    }
}

/// Telemetry for a disclosure tool call: requested sections, reason, visibility at invocation.
pub(crate) fn disclosure_telemetry(
    state: &RenderState,
    tool: &str,
    args: &Value,
    session: &Session,
) -> Option<DisclosureTelemetry> {
    let requested_sections: Vec<String> = match tool {
        READ_SECTION => args
            .get("section_key")
            .and_then(Value::as_str)
            .map(|s| vec![s.to_owned()])
            .unwrap_or_default(),
        OPEN_SECTIONS => args
            .get("section_keys")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        _ => return None,
    };
    let reason = args
        .get("reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Some(DisclosureTelemetry {
        requested_sections,
        reason,
        current_visibility_state: state.visibility_state(Some(session)),
    })
}

/// Expansion helper re-exported for the loop: which section owns each expanded tool.
pub fn expansion_overrides(expansion: &SectionExpansion) -> Vec<SectionPath> {
    let mut paths: Vec<SectionPath> = Vec::new();
    for (owner, _) in &expansion.tools {
        if !paths.contains(owner) {
            paths.push(owner.clone());
        }
    }
    if !paths.contains(&expansion.path) {
        paths.insert(0, expansion.path.clone());
    }
    paths
}

// endregion: --- builtin tools
