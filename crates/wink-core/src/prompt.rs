//! Prompt templates (the validated section tree) and prompts (a template plus bound params).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use serde_json::Value;
use wink_session::{SectionPath, Session};

use crate::disclosure::{DisclosureMode, SUFFIX_PLACEHOLDERS};
use crate::error::{OutputError, PromptError};
use crate::key::{normalize_section_key, python_strip};
use crate::params::{ParamsType, ParamsTypeId, ParamsValue, SectionParams};
use crate::render::{RenderedPrompt, render_prompt};
use crate::section::{Section, SectionRef};
use crate::template::Template;

/// A section placed in the tree: its path, depth and registration-time number.
#[derive(Debug, Clone)]
pub struct SectionNode {
    /// The section.
    pub section: SectionRef,
    /// The normalised key.
    pub key: String,
    /// Dot path from the root.
    pub path: SectionPath,
    /// 0 for root sections.
    pub depth: usize,
    /// `1`, `1.2`, ... (assigned at registration: disabled sections leave gaps).
    pub number: String,
    /// Index one past the last descendant in the flattened order.
    pub(crate) subtree_end: usize,
    /// Whether the section or any descendant holds tools.
    pub(crate) subtree_has_tools: bool,
    /// Keys of the direct children.
    pub(crate) child_keys: Vec<String>,
}

/// Structured output declared by a prompt.
pub type OutputSpec = wink_schema::OutputSpec;

/// A validated, immutable prompt definition: namespace, key, sections, disclosure mode and, when
/// `O` is not `()`, the Rust type its structured output decodes into.
///
/// A template is a cheap handle (one `Arc`): clone it freely. [`PromptTemplate::erase`] drops the
/// output type for code that handles templates of any output (renderers, loops, prompt files).
pub struct PromptTemplate<O = ()> {
    data: Arc<TemplateData>,
    output_type: PhantomData<fn() -> O>,
}

#[derive(Debug)]
struct TemplateData {
    ns: String,
    key: String,
    name: Option<String>,
    disclosure: DisclosureMode,
    name_hidden_tools: bool,
    nodes: Vec<SectionNode>,
    params_types: Vec<ParamsType>,
    defaults_by_type: HashMap<ParamsTypeId, ParamsValue>,
    output: Option<OutputSpec>,
}

impl<O> Clone for PromptTemplate<O> {
    fn clone(&self) -> Self {
        Self {
            data: Arc::clone(&self.data),
            output_type: PhantomData,
        }
    }
}

impl<O> fmt::Debug for PromptTemplate<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptTemplate")
            .field("ns", &self.data.ns)
            .field("key", &self.data.key)
            .field("name", &self.data.name)
            .field("disclosure", &self.data.disclosure)
            .field("sections", &self.data.nodes.len())
            .field("output", &self.data.output)
            .field("output_type", &std::any::type_name::<O>())
            .finish()
    }
}

impl<O> From<Arc<PromptTemplate<O>>> for PromptTemplate<O> {
    fn from(template: Arc<PromptTemplate<O>>) -> Self {
        (*template).clone()
    }
}

impl<O> From<&PromptTemplate<O>> for PromptTemplate<O> {
    fn from(template: &PromptTemplate<O>) -> Self {
        template.clone()
    }
}

/// Builder for [`PromptTemplate`]; `O` is the structured output type chosen with
/// [`PromptTemplateBuilder::output_object`] or [`PromptTemplateBuilder::output_list`].
pub struct PromptTemplateBuilder<O = ()> {
    ns: String,
    key: String,
    name: Option<String>,
    sections: Vec<SectionRef>,
    disclosure: DisclosureMode,
    name_hidden_tools: bool,
    output: Option<OutputSpec>,
    allow_extra_keys: bool,
    output_type: PhantomData<fn() -> O>,
}

impl<O> fmt::Debug for PromptTemplateBuilder<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptTemplateBuilder")
            .field("ns", &self.ns)
            .field("key", &self.key)
            .field("name", &self.name)
            .field("sections", &self.sections.len())
            .field("disclosure", &self.disclosure)
            .field("output", &self.output)
            .field("allow_extra_keys", &self.allow_extra_keys)
            .finish()
    }
}

impl<O> PromptTemplateBuilder<O> {
    /// A human-readable name.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Add a root section.
    #[must_use]
    pub fn section<S: Section + 'static>(mut self, section: S) -> Self {
        self.sections.push(Arc::new(section));
        self
    }

    /// Add a shared root section.
    #[must_use]
    pub fn section_ref(mut self, section: SectionRef) -> Self {
        self.sections.push(section);
        self
    }

    /// The disclosure mode (default [`DisclosureMode::Unified`]).
    #[must_use]
    pub fn disclosure(mut self, mode: DisclosureMode) -> Self {
        self.disclosure = mode;
        self
    }

    /// Name the tools a summarized section hides in its summary suffix (default off; ignored in
    /// [`DisclosureMode::Wink`], which keeps WINK v0.17's texts). See
    /// [`crate::build_summary_suffix_naming_tools`].
    #[must_use]
    pub fn name_hidden_tools(mut self, on: bool) -> Self {
        self.name_hidden_tools = on;
        self
    }

    /// Declare structured output from a JSON-level spec. The output type stays `O`: use this for
    /// specs read from files, and [`PromptTemplateBuilder::output`] /
    /// [`PromptTemplateBuilder::output_vec`] to tie the output to a Rust type.
    #[must_use]
    pub fn output_spec(mut self, output: OutputSpec) -> Self {
        self.output = Some(output);
        self
    }

    /// Declare structured output of type `T`, an object: the template becomes a
    /// `PromptTemplate<T>` and its answers decode into `T`. Keys the schema does not declare
    /// are refused unless [`PromptTemplateBuilder::allow_extra_keys`] is called too.
    #[must_use]
    pub fn output<T>(self) -> PromptTemplateBuilder<T>
    where
        T: schemars::JsonSchema + DeserializeOwned,
    {
        let spec = self.output_spec_of::<T>(wink_schema::OutputContainer::Object);
        self.with_output_type(spec)
    }

    /// Declare structured output as a list of `T` (wrapped under `"items"` on the wire): the
    /// template becomes a `PromptTemplate<Vec<T>>`. Extra keys as for
    /// [`PromptTemplateBuilder::output`].
    #[must_use]
    pub fn output_vec<T>(self) -> PromptTemplateBuilder<Vec<T>>
    where
        T: schemars::JsonSchema + DeserializeOwned,
    {
        let spec = self.output_spec_of::<T>(wink_schema::OutputContainer::Array);
        self.with_output_type(spec)
    }

    /// Accept keys the output schema does not declare (WINK's `allow_extra_keys`; default: they
    /// are refused). Applies to the structured output declared before or after this call.
    #[must_use]
    pub fn allow_extra_keys(mut self) -> Self {
        self.allow_extra_keys = true;
        self
    }

    /// [`PromptTemplateBuilder::output`], with extra keys allowed when `allow_extra_keys` is
    /// true (the positional form; prefer `.output::<T>()` and `.allow_extra_keys()`).
    #[must_use]
    pub fn output_object<T>(self, allow_extra_keys: bool) -> PromptTemplateBuilder<T>
    where
        T: schemars::JsonSchema + DeserializeOwned,
    {
        self.output::<T>().allow_extra_keys_if(allow_extra_keys)
    }

    /// [`PromptTemplateBuilder::output_vec`], with extra keys allowed when `allow_extra_keys` is
    /// true (the positional form; prefer `.output_vec::<T>()` and `.allow_extra_keys()`).
    #[must_use]
    pub fn output_list<T>(self, allow_extra_keys: bool) -> PromptTemplateBuilder<Vec<T>>
    where
        T: schemars::JsonSchema + DeserializeOwned,
    {
        self.output_vec::<T>().allow_extra_keys_if(allow_extra_keys)
    }

    fn allow_extra_keys_if(self, allow: bool) -> Self {
        if allow { self.allow_extra_keys() } else { self }
    }

    fn output_spec_of<T: schemars::JsonSchema>(
        &self,
        container: wink_schema::OutputContainer,
    ) -> OutputSpec {
        OutputSpec {
            name: self.output_name(),
            schema: crate::tool::params_schema::<T>(),
            container,
            allow_extra_keys: false,
        }
    }

    fn output_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.key.clone())
    }

    fn with_output_type<T>(self, spec: OutputSpec) -> PromptTemplateBuilder<T> {
        PromptTemplateBuilder {
            ns: self.ns,
            key: self.key,
            name: self.name,
            sections: self.sections,
            disclosure: self.disclosure,
            name_hidden_tools: self.name_hidden_tools,
            output: Some(spec),
            allow_extra_keys: self.allow_extra_keys,
            output_type: PhantomData,
        }
    }

    /// Validate the whole tree and build the template. Every error carries WINK's message and
    /// the path of the offending section.
    pub fn build(self) -> Result<PromptTemplate<O>, PromptError> {
        if python_strip(&self.ns).is_empty() {
            return Err(PromptError::validation(
                "Prompt namespace must be a non-empty string.",
            ));
        }
        if python_strip(&self.key).is_empty() {
            return Err(PromptError::validation(
                "Prompt key must be a non-empty string.",
            ));
        }
        let mut registry = Registry::default();
        for section in &self.sections {
            registry.register(section.clone(), None, 0)?;
        }
        registry.finish();
        Ok(PromptTemplate {
            data: Arc::new(TemplateData {
                ns: python_strip(&self.ns).to_owned(),
                key: python_strip(&self.key).to_owned(),
                name: self.name,
                disclosure: self.disclosure,
                name_hidden_tools: self.name_hidden_tools,
                nodes: registry.nodes,
                params_types: registry.params_types,
                defaults_by_type: registry.defaults_by_type,
                output: self.output.map(|mut spec| {
                    spec.allow_extra_keys |= self.allow_extra_keys;
                    spec
                }),
            }),
            output_type: PhantomData,
        })
    }
}

#[derive(Default)]
struct Registry {
    nodes: Vec<SectionNode>,
    params_types: Vec<ParamsType>,
    defaults_by_type: HashMap<ParamsTypeId, ParamsValue>,
    tool_names: HashMap<String, SectionPath>,
    numbering: Vec<usize>,
    /// Every registered path (duplicate keys are found in O(1), so loading stays linear).
    paths: HashSet<SectionPath>,
    /// Name → id of every registered params type.
    params_type_names: HashMap<String, ParamsTypeId>,
}

impl Registry {
    fn next_number(&mut self, depth: usize) -> String {
        self.numbering.truncate(depth + 1);
        if self.numbering.len() <= depth {
            self.numbering.resize(depth + 1, 1);
        } else if let Some(last) = self.numbering.last_mut() {
            *last += 1;
        }
        self.numbering
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(".")
    }

    fn register(
        &mut self,
        section: SectionRef,
        parent: Option<&SectionPath>,
        depth: usize,
    ) -> Result<(), PromptError> {
        let key = normalize_section_key(section.key()).map_err(|e| {
            let raw = python_strip(section.key()).to_lowercase();
            match parent {
                Some(p) => e.with_section_path(&p.child(raw)),
                None => e.with_section_path(&SectionPath::root(raw)),
            }
        })?;
        let path = match parent {
            Some(p) => p.child(key.clone()),
            None => SectionPath::root(key.clone()),
        };
        if !self.paths.insert(path.clone()) {
            return Err(
                PromptError::validation(format!("Duplicate section key '{key}'."))
                    .with_section_path(&path),
            );
        }
        if let Some(error) = section.construction_error() {
            return Err(error.clone().with_section_path(&path));
        }
        let params_type = section.params_type().cloned();
        self.check_placeholders(section.as_ref(), &path, params_type.as_ref())?;
        if let Some(default) = section.default_params() {
            let Some(ty) = &params_type else {
                return Err(PromptError::validation(
                    "Section without parameters cannot define default_params.",
                )
                .with_section_path(&path));
            };
            if default.type_id() != ty.id() {
                return Err(PromptError::validation(
                    "Section defaults must match section params type.",
                )
                .with_section_path(&path)
                .with_params_type(ty.name()));
            }
            self.defaults_by_type
                .entry(ty.id().clone())
                .or_insert_with(|| default.clone());
        }
        if let Some(ty) = &params_type {
            match self.params_type_names.get(ty.name()) {
                Some(id) if id == ty.id() => {}
                Some(_) => {
                    return Err(PromptError::validation(format!(
                        "Two different params types are named '{}'.",
                        ty.name()
                    ))
                    .with_section_path(&path)
                    .with_params_type(ty.name()));
                }
                None => {
                    self.params_type_names
                        .insert(ty.name().to_owned(), ty.id().clone());
                    self.params_types.push(ty.clone());
                }
            }
        }
        for tool in section.tools() {
            if self.tool_names.contains_key(tool.name()) {
                return Err(
                    PromptError::validation("Duplicate tool name registered for prompt.")
                        .with_section_path(&path)
                        .with_placeholder(tool.name()),
                );
            }
            self.tool_names.insert(tool.name().to_owned(), path.clone());
        }
        if let Some(suffix) = section.summary_suffix() {
            let t = Template::parse_section(suffix);
            if let Some((line, col)) = t.first_invalid_placeholder() {
                return Err(PromptError::validation(format!(
                    "Invalid placeholder in string: line {line}, col {col}"
                ))
                .with_section_path(&path)
                .with_placeholder("summary_suffix"));
            }
            if let Some(bad) = t
                .placeholder_names()
                .into_iter()
                .find(|p| !SUFFIX_PLACEHOLDERS.contains(p))
            {
                return Err(PromptError::validation(
                    "Summary suffix references unknown placeholder.",
                )
                .with_section_path(&path)
                .with_placeholder(bad));
            }
        }
        let number = self.next_number(depth);
        let index = self.nodes.len();
        let has_tools = !section.tools().is_empty();
        self.nodes.push(SectionNode {
            section: section.clone(),
            key,
            path: path.clone(),
            depth,
            number,
            subtree_end: index + 1,
            subtree_has_tools: has_tools,
            child_keys: Vec::new(),
        });
        for child in section.children() {
            self.register(child.clone(), Some(&path), depth + 1)?;
        }
        let end = self.nodes.len();
        let child_keys: Vec<String> = self.nodes[index + 1..end]
            .iter()
            .filter(|n| n.depth == depth + 1)
            .map(|n| n.key.clone())
            .collect();
        let descendants_have_tools = self.nodes[index + 1..end]
            .iter()
            .any(|n| !n.section.tools().is_empty());
        let node = &mut self.nodes[index];
        node.subtree_end = end;
        node.child_keys = child_keys;
        node.subtree_has_tools = has_tools || descendants_have_tools;
        Ok(())
    }

    fn check_placeholders(
        &self,
        section: &dyn Section,
        path: &SectionPath,
        params_type: Option<&ParamsType>,
    ) -> Result<(), PromptError> {
        let body = section.placeholder_names();
        let summary = section.summary_placeholder_names();
        match params_type {
            None => {
                if let Some(first) = body.iter().next().or(summary.iter().next()) {
                    return Err(PromptError::validation(
                        "Section does not accept parameters but declares placeholders.",
                    )
                    .with_section_path(path)
                    .with_placeholder(first.clone()));
                }
            }
            Some(ty) => {
                for set in [&body, &summary] {
                    if let Some(unknown) = set.iter().find(|p| !ty.has_field(p)) {
                        return Err(PromptError::validation(
                            "Template references unknown placeholder.",
                        )
                        .with_section_path(path)
                        .with_params_type(ty.name())
                        .with_placeholder(unknown.clone()));
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self) {}
}

impl PromptTemplate {
    /// Start a template in namespace `ns` with key `key`.
    pub fn builder(ns: impl Into<String>, key: impl Into<String>) -> PromptTemplateBuilder {
        PromptTemplateBuilder {
            ns: ns.into(),
            key: key.into(),
            name: None,
            sections: Vec::new(),
            disclosure: DisclosureMode::default(),
            name_hidden_tools: false,
            output: None,
            allow_extra_keys: false,
            output_type: PhantomData,
        }
    }
}

impl<O> PromptTemplate<O> {
    /// The same template without its output type (the structured output spec is kept).
    pub fn erase(&self) -> PromptTemplate {
        PromptTemplate {
            data: Arc::clone(&self.data),
            output_type: PhantomData,
        }
    }

    /// Whether `self` and `other` are handles to the same built template.
    pub fn same_as<P>(&self, other: &PromptTemplate<P>) -> bool {
        Arc::ptr_eq(&self.data, &other.data)
    }

    /// Namespace.
    pub fn ns(&self) -> &str {
        &self.data.ns
    }

    /// Key.
    pub fn key(&self) -> &str {
        &self.data.key
    }

    /// Human-readable name, if given.
    pub fn name(&self) -> Option<&str> {
        self.data.name.as_deref()
    }

    /// `ns:key`, or the name when set — what events and errors call the prompt.
    pub fn display_name(&self) -> String {
        self.data
            .name
            .clone()
            .unwrap_or_else(|| format!("{}:{}", self.data.ns, self.data.key))
    }

    /// The disclosure mode.
    pub fn disclosure(&self) -> DisclosureMode {
        self.data.disclosure
    }

    /// Whether summaries name the tools their sections hide
    /// ([`PromptTemplateBuilder::name_hidden_tools`]).
    pub fn names_hidden_tools(&self) -> bool {
        self.data.name_hidden_tools && self.data.disclosure != DisclosureMode::Wink
    }

    /// The same template with another disclosure mode.
    #[must_use]
    pub fn with_disclosure(&self, mode: DisclosureMode) -> Self {
        self.with_settings(mode, self.data.name_hidden_tools)
    }

    /// The same template with summaries that name (or do not name) the tools they hide.
    #[must_use]
    pub fn with_hidden_tool_names(&self, on: bool) -> Self {
        self.with_settings(self.data.disclosure, on)
    }

    fn with_settings(&self, mode: DisclosureMode, name_hidden_tools: bool) -> Self {
        let d = &self.data;
        Self {
            data: Arc::new(TemplateData {
                ns: d.ns.clone(),
                key: d.key.clone(),
                name: d.name.clone(),
                disclosure: mode,
                name_hidden_tools,
                nodes: d.nodes.clone(),
                params_types: d.params_types.clone(),
                defaults_by_type: d.defaults_by_type.clone(),
                output: d.output.clone(),
            }),
            output_type: PhantomData,
        }
    }

    /// The flattened section tree in render order.
    pub fn nodes(&self) -> &[SectionNode] {
        &self.data.nodes
    }

    /// The node at `path`.
    pub fn node(&self, path: &SectionPath) -> Option<&SectionNode> {
        self.data.nodes.iter().find(|n| &n.path == path)
    }

    /// The node whose dotted path is `dotted`.
    pub fn find_section(&self, dotted: &str) -> Option<&SectionNode> {
        self.data.nodes.iter().find(|n| n.path.dotted() == dotted)
    }

    /// Params types the sections bind, in first-use order.
    pub fn params_types(&self) -> &[ParamsType] {
        &self.data.params_types
    }

    /// The params type named `name`.
    pub fn params_type_named(&self, name: &str) -> Option<&ParamsType> {
        self.data.params_types.iter().find(|t| t.name() == name)
    }

    /// Structured output, if declared.
    pub fn output(&self) -> Option<&OutputSpec> {
        self.data.output.as_ref()
    }

    pub(crate) fn default_for_type(&self, id: &ParamsTypeId) -> Option<&ParamsValue> {
        self.data.defaults_by_type.get(id)
    }

    pub(crate) fn node_index(&self, path: &SectionPath) -> Option<usize> {
        self.data.nodes.iter().position(|n| &n.path == path)
    }
}

impl<O: DeserializeOwned> PromptTemplate<O> {
    /// Parse the model's final answer as this template's structured output, in WINK's order
    /// (fenced ```` ```json ```` block, whole message, first embedded value), check it against the
    /// schema and decode it into `O`.
    ///
    /// # Errors
    /// [`OutputError::Parse`] with WINK's message, or [`OutputError::Decode`].
    pub fn parse_output(&self, text: &str) -> Result<O, OutputError> {
        let value = wink_schema::parse_prompt_output(text, self.output())?;
        decode_output::<O>(&value)
    }

    /// Decode an output that was already parsed and checked (for instance
    /// `LoopOutcome::Finished { output, .. }`) into `O`.
    ///
    /// # Errors
    /// [`OutputError::Parse`] (`NotDeclared`) when the template declares no output,
    /// [`OutputError::Decode`] when the value does not fit `O`.
    pub fn decode_output(&self, value: Value) -> Result<O, OutputError> {
        if self.output().is_none() {
            return Err(wink_schema::OutputParseError::NotDeclared.into());
        }
        decode_output::<O>(&value)
    }
}

/// Deserializes a parsed structured output into `O` (the value is copied into the error only
/// when it does not fit).
///
/// # Errors
/// [`OutputError::Decode`] naming `O`.
pub fn decode_output<O: DeserializeOwned>(value: &Value) -> Result<O, OutputError> {
    O::deserialize(value).map_err(|source| OutputError::Decode {
        type_name: std::any::type_name::<O>(),
        value: value.clone(),
        source,
    })
}

#[derive(Debug, Clone)]
enum Binding {
    Value(ParamsValue),
    Json { type_name: String, value: Value },
    Invalid(PromptError),
}

/// A template with bound params, ready to render; `O` is the template's output type.
pub struct Prompt<O = ()> {
    template: PromptTemplate<O>,
    /// One group per `bind*` call, in call order (WINK's `bind(*params)`).
    bindings: Vec<Vec<Binding>>,
}

impl<O> Clone for Prompt<O> {
    fn clone(&self) -> Self {
        Self {
            template: self.template.clone(),
            bindings: self.bindings.clone(),
        }
    }
}

impl<O> fmt::Debug for Prompt<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("template", &self.template.display_name())
            .field("bindings", &self.bindings.len())
            .finish()
    }
}

/// The params bound to a prompt, resolved by type.
#[derive(Debug, Clone, Default)]
pub struct ParamLookup {
    by_type: HashMap<ParamsTypeId, ParamsValue>,
}

impl ParamLookup {
    /// The instance bound for `id`.
    pub fn get(&self, id: &ParamsTypeId) -> Option<&ParamsValue> {
        self.by_type.get(id)
    }
}

impl<O> Prompt<O> {
    /// A prompt over `template` with nothing bound.
    pub fn new(template: impl Into<PromptTemplate<O>>) -> Self {
        Self {
            template: template.into(),
            bindings: Vec::new(),
        }
    }

    /// The template.
    pub fn template(&self) -> &PromptTemplate<O> {
        &self.template
    }

    /// The same prompt without its output type (bindings and output spec kept).
    pub fn erase(&self) -> Prompt {
        Prompt {
            template: self.template.erase(),
            bindings: self.bindings.clone(),
        }
    }

    /// Bind a typed params instance. As WINK's `bind`, a later binding of the same params type
    /// replaces the earlier one.
    #[must_use]
    pub fn bind<P: SectionParams>(self, params: P) -> Self {
        let binding = match ParamsValue::from_typed(params) {
            Ok(v) => Binding::Value(v),
            Err(e) => Binding::Invalid(e),
        };
        self.bind_group(vec![binding])
    }

    /// Bind several params instances in one call (WINK's `bind(a, b, ...)`): they replace earlier
    /// bindings of their types, and two of the same type in this one call are an error at render
    /// (`Duplicate params type supplied to prompt.`).
    #[must_use]
    pub fn bind_values(self, values: impl IntoIterator<Item = ParamsValue>) -> Self {
        self.bind_group(values.into_iter().map(Binding::Value).collect())
    }

    /// Bind params given as JSON for the params type named `type_name` (replaces an earlier
    /// binding of that type).
    #[must_use]
    pub fn bind_json(self, type_name: impl Into<String>, value: Value) -> Self {
        self.bind_group(vec![Binding::Json {
            type_name: type_name.into(),
            value,
        }])
    }

    /// Bind a map of params type name → field values (`{"TaskParams": {"objective": "…"}}`) in
    /// one call.
    #[must_use]
    pub fn bind_all_json(self, params: &serde_json::Map<String, Value>) -> Self {
        self.bind_group(
            params
                .iter()
                .map(|(name, value)| Binding::Json {
                    type_name: name.clone(),
                    value: value.clone(),
                })
                .collect(),
        )
    }

    fn bind_group(mut self, group: Vec<Binding>) -> Self {
        self.bindings.push(group);
        self
    }

    /// Resolve the bindings into a lookup, reporting WINK's binding errors.
    pub fn param_lookup(&self) -> Result<ParamLookup, PromptError> {
        let mut lookup = ParamLookup::default();
        for group in &self.bindings {
            let mut resolved: Vec<ParamsValue> = Vec::with_capacity(group.len());
            for binding in group {
                let value = self.resolve(binding)?;
                if resolved.iter().any(|v| v.type_id() == value.type_id()) {
                    return Err(PromptError::validation(
                        "Duplicate params type supplied to prompt.",
                    )
                    .with_params_type(value.type_name()));
                }
                resolved.push(value);
            }
            for value in resolved {
                lookup.by_type.insert(value.type_id().clone(), value);
            }
        }
        Ok(lookup)
    }

    fn resolve(&self, binding: &Binding) -> Result<ParamsValue, PromptError> {
        let value = match binding {
            Binding::Invalid(e) => return Err(e.clone()),
            Binding::Value(v) => v.clone(),
            Binding::Json { type_name, value } => {
                let Some(ty) = self.template.params_type_named(type_name) else {
                    return Err(PromptError::validation(
                        "Unexpected params type supplied to prompt.",
                    )
                    .with_params_type(type_name.clone()));
                };
                ty.value_from_json(value.clone())?
            }
        };
        if !self
            .template
            .params_types()
            .iter()
            .any(|t| t.id() == value.type_id())
        {
            return Err(
                PromptError::validation("Unexpected params type supplied to prompt.")
                    .with_params_type(value.type_name()),
            );
        }
        Ok(value)
    }

    /// Render without a session (no visibility overrides, no session-based selectors).
    pub fn render(&self) -> Result<RenderedPrompt, PromptError> {
        render_prompt(&self.template.erase(), self.param_lookup()?, None)
    }

    /// Render with `session`: its `VisibilityOverrides` take precedence over section selectors.
    pub fn render_with(&self, session: &Session) -> Result<RenderedPrompt, PromptError> {
        render_prompt(&self.template.erase(), self.param_lookup()?, Some(session))
    }
}

impl<O: DeserializeOwned> Prompt<O> {
    /// [`PromptTemplate::parse_output`] for this prompt's template.
    ///
    /// # Errors
    /// As [`PromptTemplate::parse_output`].
    pub fn parse_output(&self, text: &str) -> Result<O, OutputError> {
        self.template.parse_output(text)
    }
}
