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
use crate::key::python_strip;
use crate::params::{ParamsType, ParamsTypeId, ParamsValue, SectionParams};
use crate::render::{RenderedPrompt, render_prompt};
use crate::search::SearchSections;
use crate::section::{Section, SectionRef};
use crate::template::Template;
use wink_search::Ranking;

mod bound;
mod builder;
mod registry;
pub use bound::*;
pub use builder::*;
use registry::*;

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
    /// Index in the flattened order.
    pub(crate) index: usize,
    /// Index one past the last descendant in the flattened order.
    pub(crate) subtree_end: usize,
    /// Whether the section or any descendant holds tools.
    pub(crate) subtree_has_tools: bool,
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
    search_sections: SearchSections,
    section_ranking: Arc<dyn Ranking>,
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
            search_sections: SearchSections::default(),
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
        self.with_settings(|d| d.disclosure = mode)
    }

    /// The same template with summaries that name (or do not name) the tools they hide.
    #[must_use]
    pub fn with_hidden_tool_names(&self, on: bool) -> Self {
        self.with_settings(|d| d.name_hidden_tools = on)
    }

    /// When the builtin `search_sections` tool is offered
    /// ([`PromptTemplateBuilder::search_sections`]).
    pub fn search_sections(&self) -> SearchSections {
        self.data.search_sections
    }

    /// How `search_sections` and pre-opening rank sections (BM25 unless set with
    /// [`PromptTemplate::with_section_ranking`]).
    pub fn section_ranking(&self) -> &Arc<dyn Ranking> {
        &self.data.section_ranking
    }

    /// The same template offering `search_sections` as `setting` says.
    #[must_use]
    pub fn with_search_sections(&self, setting: SearchSections) -> Self {
        self.with_settings(|d| d.search_sections = setting)
    }

    /// The same template ranking sections with `ranking` (for instance `wink-search`'s hybrid
    /// re-rank, `wink_search::hybrid::HybridRanking`).
    #[must_use]
    pub fn with_section_ranking(&self, ranking: Arc<dyn Ranking>) -> Self {
        self.with_settings(|d| d.section_ranking = Arc::clone(&ranking))
    }

    fn with_settings(&self, change: impl FnOnce(&mut TemplateData)) -> Self {
        let d = &self.data;
        let mut data = TemplateData {
            ns: d.ns.clone(),
            key: d.key.clone(),
            name: d.name.clone(),
            disclosure: d.disclosure,
            name_hidden_tools: d.name_hidden_tools,
            search_sections: d.search_sections,
            section_ranking: Arc::clone(&d.section_ranking),
            nodes: d.nodes.clone(),
            params_types: d.params_types.clone(),
            defaults_by_type: d.defaults_by_type.clone(),
            output: d.output.clone(),
        };
        change(&mut data);
        Self {
            data: Arc::new(data),
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

    /// The keys of `node`'s children joined by `, ` (empty: it has none), as summary suffixes
    /// name them.
    pub(crate) fn child_keys_joined(&self, node: &SectionNode) -> String {
        let mut joined = String::new();
        let subtree = self.data.nodes.get(node.index + 1..node.subtree_end);
        for child in subtree.unwrap_or_default() {
            if child.depth == node.depth + 1 {
                if !joined.is_empty() {
                    joined.push_str(", ");
                }
                joined.push_str(&child.key);
            }
        }
        joined
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
