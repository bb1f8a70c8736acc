//! What the encoders and decoders of one request share: tool name aliases, which tools went out
//! strict, the wire form of each tool's parameters, and whether structured output was asked for.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;
use wink_core::ToolArguments;
use wink_model::{Message, ModelRequest, ProviderError, ProviderErrorKind, ToolChoice, ToolSpec};
use wink_schema::{
    SchemaDialect, ToolNameAliases, fits_openai_strict, normalize, strip_strict_nulls,
};

use crate::config::{AdapterConfig, DeferredTools, ForcedCalls, WireFormat};

/// The request-side facts a response is decoded against.
#[derive(Debug, Clone)]
pub struct RequestMapping {
    aliases: ToolNameAliases,
    /// Original parameter schemas of the tools sent strict, by canonical name.
    strict: HashMap<String, Value>,
    /// Wire parameters of each offered tool, by canonical name.
    parameters: HashMap<String, Value>,
    structured_output: bool,
    deferred: Option<DeferredTools>,
    /// The tools in the order they go on the wire.
    tools: Vec<ToolSpec>,
    /// Section tools sent deferred (native section deferral).
    section_deferred: HashSet<String>,
    /// Section tools loaded by the tool result at a message index, with the disclosing section.
    loaded: BTreeMap<usize, (String, Vec<String>)>,
    /// How a forced call is asked for (never [`ForcedCalls::Detect`]: the adapter resolves it).
    forced_calls: ForcedCalls,
}

impl RequestMapping {
    /// Builds the mapping of `request` under `config`.
    ///
    /// Aliases cover the offered tools and every tool named in the conversation (a tool offered in
    /// an earlier turn keeps its alias as long as the set of names does).
    ///
    /// # Errors
    /// [`ProviderErrorKind::Config`] for a duplicate or empty tool name, or a tool schema the
    /// provider's dialect cannot express.
    pub fn new(request: &ModelRequest, config: &AdapterConfig) -> Result<Self, ProviderError> {
        let config_error = |message: String| {
            ProviderError::new(
                ProviderErrorKind::Config,
                &config.provider,
                &config.model,
                message,
            )
        };
        let mut names: Vec<&str> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for tool in &request.tools {
            if !seen.insert(tool.name.as_str()) {
                return Err(config_error(format!(
                    "Duplicate tool name '{}' in the request.",
                    tool.name
                )));
            }
            names.push(&tool.name);
        }
        // Hidden section tools keep the alias set the same for the whole run.
        for hidden in &request.deferred_tools {
            if seen.insert(hidden.spec.name.as_str()) {
                names.push(&hidden.spec.name);
            }
        }
        for message in &request.messages {
            let mentioned: Vec<&str> = match message {
                Message::Assistant { tool_calls, .. } => {
                    tool_calls.iter().map(|call| call.name.as_str()).collect()
                }
                Message::Tool { name, .. } => vec![name.as_str()],
                _ => Vec::new(),
            };
            for name in mentioned {
                if seen.insert(name) {
                    names.push(name);
                }
            }
        }
        let aliases = ToolNameAliases::new(names)
            .map_err(|error| config_error(format!("Tool names cannot be aliased: {error}")))?;

        let uses_strict = config.strict_tools
            && matches!(
                config.format,
                WireFormat::OpenAiChat | WireFormat::OpenAiResponses
            );
        let (tools, section_deferred, loaded) = if config.defers_section_tools() {
            section_layout(request)
        } else {
            (offered_with_named(request), HashSet::new(), BTreeMap::new())
        };
        let mut strict = HashMap::new();
        let mut parameters = HashMap::new();
        for tool in &tools {
            // Strict when strict mode can say the schema; one it cannot normalise goes non-strict.
            let strict_form = (uses_strict && fits_openai_strict(&tool.parameters))
                .then(|| normalize(&tool.parameters, SchemaDialect::OpenAiStrict).ok())
                .flatten();
            let sent_strict = strict_form.is_some();
            let wire = match strict_form {
                Some(wire) => wire,
                None => normalize(&tool.parameters, config.dialect).map_err(|error| {
                    config_error(format!(
                        "Tool '{}' parameters ({} dialect): {error}",
                        tool.name, config.dialect
                    ))
                })?,
            };
            if sent_strict {
                strict.insert(tool.name.clone(), tool.parameters.clone());
            }
            parameters.insert(tool.name.clone(), wire);
        }
        let deferred = match config.format {
            WireFormat::AnthropicMessages | WireFormat::OpenAiResponses => {
                config.deferred_tools.clone()
            }
            _ => None,
        };
        Ok(Self {
            aliases,
            strict,
            parameters,
            structured_output: request.output.is_some(),
            deferred,
            tools,
            section_deferred,
            loaded,
            forced_calls: ForcedCalls::ToolChoice,
        }
        .forcing_calls_by(config.forced_calls))
    }

    /// The mapping with forced calls asked for as `form` (the adapter's resolution of
    /// [`ForcedCalls::Detect`]).
    #[must_use]
    pub fn forcing_calls_by(mut self, form: ForcedCalls) -> Self {
        self.forced_calls = match form {
            ForcedCalls::Detect => ForcedCalls::ToolChoice,
            form => form,
        };
        self
    }

    /// How a forced call is asked for.
    pub fn forced_calls(&self) -> ForcedCalls {
        self.forced_calls
    }

    /// The tools to send, in wire order: the request's tools, or with native section deferral
    /// the tools offered from the start followed by every section tool (hidden or already
    /// injected) ordered by section key and name, so the list is the same on every call.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// With native section deferral: the section and the tools that the tool result at message
    /// `index` loads.
    pub fn loaded_by(&self, index: usize) -> Option<(&str, &[String])> {
        self.loaded
            .get(&index)
            .map(|(section, tools)| (section.as_str(), tools.as_slice()))
    }

    /// The name a tool goes out under.
    pub fn wire_name<'a>(&'a self, canonical: &'a str) -> &'a str {
        self.aliases.alias(canonical).unwrap_or(canonical)
    }

    /// The canonical name behind a wire name (unknown names come back unchanged, so the loop
    /// can report them).
    pub fn canonical_name(&self, wire: &str) -> String {
        self.aliases.original(wire).unwrap_or(wire).to_owned()
    }

    /// The normalised parameters of an offered tool.
    pub fn wire_parameters<'a>(&'a self, tool: &'a ToolSpec) -> &'a Value {
        self.parameters.get(&tool.name).unwrap_or(&tool.parameters)
    }

    /// Whether the tool went out with `"strict": true`.
    pub fn is_strict(&self, canonical: &str) -> bool {
        self.strict.contains_key(canonical)
    }

    /// Whether the request asked for structured output.
    pub fn wants_structured_output(&self) -> bool {
        self.structured_output
    }

    /// The deferred-tools setting, when the format supports it.
    pub fn deferred(&self) -> Option<&DeferredTools> {
        self.deferred.as_ref()
    }

    /// Whether the tool is deferred (a catalog tool, or a section tool under native section
    /// deferral).
    pub fn is_deferred(&self, canonical: &str) -> bool {
        self.section_deferred.contains(canonical) || self.is_catalog_deferred(canonical)
    }

    /// Whether the tool is a deferred catalog tool (loaded by the catalog search tool).
    pub fn is_catalog_deferred(&self, canonical: &str) -> bool {
        self.deferred.as_ref().is_some_and(|deferred| {
            deferred.tools.contains(canonical) && deferred.search_tool != canonical
        })
    }

    /// Whether the tool is the catalog search tool of the deferred setting.
    pub fn is_search_tool(&self, canonical: &str) -> bool {
        self.deferred
            .as_ref()
            .is_some_and(|deferred| deferred.search_tool == canonical)
    }

    /// The deferred tools a search result names, in catalog (sorted) order.
    pub fn referenced_tools(&self, result_text: &str) -> Vec<String> {
        let Some(deferred) = &self.deferred else {
            return Vec::new();
        };
        deferred
            .tools
            .iter()
            .filter(|name| *name != &deferred.search_tool && names_token(result_text, name))
            .cloned()
            .collect()
    }

    /// Arguments a provider sent as JSON text, under their canonical form: for a strict tool the
    /// `null`s strict mode forced on optional fields are removed (when the text parses).
    pub fn text_arguments(&self, canonical: &str, raw: String) -> ToolArguments {
        if let Some(schema) = self.strict.get(canonical)
            && let Ok(parsed) = wink_schema::parse_strict_json(&raw)
        {
            let stripped = strip_strict_nulls(schema, &parsed);
            if stripped != parsed {
                return ToolArguments::Text(stripped.to_string());
            }
        }
        ToolArguments::Text(raw)
    }
}

/// The wire tools, the deferred section tools and which tool result loads which of them.
type SectionLayout = (
    Vec<ToolSpec>,
    HashSet<String>,
    BTreeMap<usize, (String, Vec<String>)>,
);

/// The request's tools, and the hidden section tool its `tool_choice` names when it is not among
/// them: a turn policy may ask for a call of a tool the model named before its section was open
/// (the loop opens the section when the call comes), and the wire must offer what it forces.
fn offered_with_named(request: &ModelRequest) -> Vec<ToolSpec> {
    let mut tools = request.tools.clone();
    if let ToolChoice::Tool(name) = &request.tool_choice
        && !tools.iter().any(|tool| tool.name == *name)
        && let Some(hidden) = request.deferred_tools.iter().find(|d| d.spec.name == *name)
    {
        tools.push(hidden.spec.clone());
    }
    tools
}

/// Native section deferral: tools offered from the start in their order, then every section
/// tool (still hidden, or injected since) by section key and name; each injection is loaded by
/// the tool result it followed (the nearest tool result at or before `after_message`).
fn section_layout(request: &ModelRequest) -> SectionLayout {
    let injected: HashMap<&str, &str> = request
        .tool_additions
        .iter()
        .flat_map(|addition| {
            addition
                .tools
                .iter()
                .map(|name| (name.as_str(), addition.section.as_str()))
        })
        .collect();
    let mut tools: Vec<ToolSpec> = Vec::new();
    let mut section_tools: Vec<(&str, &ToolSpec)> = Vec::new();
    for tool in &request.tools {
        match injected.get(tool.name.as_str()) {
            Some(section) => section_tools.push((section, tool)),
            None => tools.push(tool.clone()),
        }
    }
    for hidden in &request.deferred_tools {
        let offered = request
            .tools
            .iter()
            .any(|tool| tool.name == hidden.spec.name);
        if !offered {
            section_tools.push((hidden.section.as_str(), &hidden.spec));
        }
    }
    section_tools.sort_by(|a, b| (a.0, a.1.name.as_str()).cmp(&(b.0, b.1.name.as_str())));
    let deferred = section_tools
        .iter()
        .map(|(_, tool)| tool.name.clone())
        .collect();
    tools.extend(section_tools.into_iter().map(|(_, tool)| tool.clone()));
    let mut loaded: BTreeMap<usize, (String, Vec<String>)> = BTreeMap::new();
    for addition in &request.tool_additions {
        let last = addition
            .after_message
            .min(request.messages.len().saturating_sub(1));
        let Some(index) = (0..=last)
            .rev()
            .find(|&index| matches!(request.messages.get(index), Some(Message::Tool { .. })))
        else {
            continue;
        };
        let entry = loaded
            .entry(index)
            .or_insert_with(|| (addition.section.clone(), Vec::new()));
        // `open_sections` may disclose several sections with one result.
        if entry.0 != addition.section {
            entry.0 = format!("{}, {}", entry.0, addition.section);
        }
        entry.1.extend(addition.tools.iter().cloned());
    }
    (tools, deferred, loaded)
}

/// Arguments as JSON text for the wire.
pub(crate) fn arguments_text(arguments: &ToolArguments) -> String {
    match arguments {
        ToolArguments::Text(text) => text.clone(),
        ToolArguments::Json(value) => value.to_string(),
    }
}

fn is_name_char(character: char) -> bool {
    character.is_alphanumeric() || character == '_' || character == '-'
}

/// Whether `name` occurs in `text` as a whole token.
fn names_token(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    let mut start = 0;
    while let Some(found) = text[start..].find(name) {
        let at = start + found;
        let end = at + name.len();
        let before = text[..at].chars().next_back();
        let mut after = text[end..].chars();
        let next = after.next();
        let continues_before = before.is_some_and(|c| is_name_char(c) || c == '.');
        let continues_after = match next {
            Some('.') => after.next().is_some_and(is_name_char),
            Some(c) => is_name_char(c),
            None => false,
        };
        if !continues_before && !continues_after {
            return true;
        }
        start = at + text[at..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Converts an `f32` to the JSON number a person would write (`0.2`, not `0.20000000298`).
pub(crate) fn json_f32(value: f32) -> Value {
    value
        .to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wink_model::{DeferredTool, ToolAddition};

    fn spec(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: format!("{name}."),
            parameters: json!({"type": "object", "properties": {}}),
        }
    }

    fn hidden(name: &str, section: &str) -> DeferredTool {
        DeferredTool {
            spec: spec(name),
            section: section.into(),
        }
    }

    #[test]
    fn section_layout_is_the_same_before_and_after_injections() {
        let before = ModelRequest {
            messages: vec![Message::user("go")],
            tools: vec![spec("read_section")],
            deferred_tools: vec![
                hidden("ship", "shipping"),
                hidden("stock", "inventory"),
                hidden("price", "inventory"),
            ],
            ..ModelRequest::default()
        };
        let after = ModelRequest {
            messages: vec![
                Message::user("go"),
                Message::Assistant {
                    content: None,
                    tool_calls: Vec::new(),
                },
                Message::Tool {
                    tool_call_id: "c1".into(),
                    name: "open_sections".into(),
                    content: "ok".into(),
                    is_error: false,
                    images: Vec::new(),
                },
            ],
            tools: vec![
                spec("read_section"),
                spec("stock"),
                spec("price"),
                spec("ship"),
            ],
            tool_additions: vec![
                ToolAddition {
                    after_message: 2,
                    section: "inventory".into(),
                    tools: vec!["stock".into(), "price".into()],
                },
                ToolAddition {
                    after_message: 2,
                    section: "shipping".into(),
                    tools: vec!["ship".into()],
                },
            ],
            ..ModelRequest::default()
        };
        let mut config = AdapterConfig::anthropic("claude");
        config.section_deferral = true;
        let names = |request: &ModelRequest| {
            let mapping = RequestMapping::new(request, &config).unwrap();
            let names: Vec<(String, bool)> = mapping
                .tools()
                .iter()
                .map(|tool| (tool.name.clone(), mapping.is_deferred(&tool.name)))
                .collect();
            (
                names,
                mapping
                    .loaded_by(2)
                    .map(|(section, tools)| (section.to_owned(), tools.to_vec())),
            )
        };
        let expected: Vec<(String, bool)> = [
            ("read_section", false),
            ("price", true),
            ("stock", true),
            ("ship", true),
        ]
        .map(|(name, deferred)| (name.to_owned(), deferred))
        .to_vec();
        assert_eq!(names(&before), (expected.clone(), None));
        assert_eq!(
            names(&after),
            (
                expected,
                Some((
                    "inventory, shipping".to_owned(),
                    vec!["stock".to_owned(), "price".to_owned(), "ship".to_owned()]
                ))
            )
        );
    }

    #[test]
    fn a_forced_hidden_tool_goes_out_offered_without_native_deferral() {
        let mut request = ModelRequest {
            messages: vec![Message::user("go")],
            tools: vec![spec("read_section")],
            deferred_tools: vec![hidden("ship", "shipping"), hidden("stock", "inventory")],
            ..ModelRequest::default()
        };
        let config = AdapterConfig::openai_compat("qwen", "http://127.0.0.1:1/v1");
        let names = |request: &ModelRequest| -> Vec<String> {
            let mapping = RequestMapping::new(request, &config).unwrap();
            mapping
                .tools()
                .iter()
                .map(|tool| tool.name.clone())
                .collect()
        };
        assert_eq!(names(&request), ["read_section"]);
        request.tool_choice = ToolChoice::Tool("stock".into());
        assert_eq!(names(&request), ["read_section", "stock"]);
        request.tool_choice = ToolChoice::Tool("read_section".into());
        assert_eq!(names(&request), ["read_section"]);
        request.tool_choice = ToolChoice::Tool("nowhere".into());
        assert_eq!(names(&request), ["read_section"]);
    }

    #[test]
    fn whole_token_mentions() {
        assert!(names_token("Found: file.read, file.write.", "file.write"));
        assert!(names_token("- file.read\n", "file.read"));
        assert!(!names_token("file.read_all", "file.read"));
        assert!(!names_token("xfile.read", "file.read"));
        assert!(!names_token("file.read.v2", "file.read"));
        assert!(names_token("`file.read`", "file.read"));
    }

    #[test]
    fn temperature_is_written_as_typed() {
        assert_eq!(json_f32(0.2), json!(0.2));
        assert_eq!(json_f32(1.0), json!(1.0));
    }
}
