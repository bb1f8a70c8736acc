//! The renderer: walks the flattened section tree, resolves params, applies `enabled` and
//! visibility, assembles the text and collects tools, then adds the builtin disclosure tools.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use serde_json::{Value, json};
use wink_session::{
    DisclosureTelemetry, SectionPath, SectionVisibility, Session, VisibilityOverrides,
};

use crate::disclosure::{
    CONTEXT_FOLDER, DisclosureMode, OPEN_SECTIONS, OpenSectionsTool, READ_SECTION, ReadSectionTool,
    custom_suffix, disclosure_telemetry, summary_suffix, summary_suffix_naming_tools,
    with_valid_keys,
};
use crate::error::PromptError;
use crate::params::ParamsValue;
use crate::prompt::{OutputSpec, ParamLookup, PromptTemplate, SectionNode};
use crate::section::{Heading, SelectorInput, render_section, render_section_into};
use crate::tool::{SectionExpansion, ToolPayload, ToolRef, ToolResponse, ToolResult};

mod assemble;
mod groups;
mod parts;
mod read_section;
mod state;
pub(crate) use assemble::*;
pub(crate) use groups::*;
pub(crate) use parts::*;
pub use parts::{ContextRoom, READ_PART_BYTES};
pub(crate) use read_section::SectionRead;
pub(crate) use state::*;

/// One section's piece of the rendered text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedSection {
    /// The section.
    pub path: SectionPath,
    /// How it rendered.
    pub visibility: SectionVisibility,
    /// Byte range of its text (heading, body, tools block, suffix) within [`RenderedPrompt::text`].
    pub range: Range<usize>,
}

/// The result of rendering: the system prompt text, the tools to offer, structured output.
#[derive(Clone)]
pub struct RenderedPrompt {
    /// The prompt text.
    pub text: String,
    /// Tools of enabled, fully rendered sections in tree order, then the builtin disclosure tools.
    pub tools: Vec<ToolRef>,
    /// Structured output declared by the template.
    pub output: Option<OutputSpec>,
    /// Each rendered section's place in `text`.
    pub sections: Vec<RenderedSection>,
    /// Tools of enabled sections that are summarized (or under a summarized ancestor), with the
    /// path of the section that owns each, in tree order: not offered yet; reading (or opening)
    /// the summarized section discloses them. Adapters with native deferral can declare them up
    /// front, and the loop uses them to tell the model where a hidden tool lives.
    pub hidden_tools: Vec<(SectionPath, ToolRef)>,
    state: Arc<RenderState>,
}

impl fmt::Debug for RenderedPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RenderedPrompt")
            .field("text", &self.text)
            .field("tools", &self.tool_names())
            .finish_non_exhaustive()
    }
}

impl RenderedPrompt {
    /// Names of the offered tools, in order.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// The offered tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolRef> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// Any tool of the template named `name`, offered or not, with the path of its section.
    pub fn template_tool(&self, name: &str) -> Option<(SectionPath, ToolRef)> {
        let nodes = self.state.template.nodes();
        nodes
            .iter()
            .find_map(|n| {
                n.section
                    .tools()
                    .iter()
                    .find(|t| t.name() == name)
                    .map(|t| (n.path.clone(), t.clone()))
            })
            .or_else(|| {
                nodes.iter().find_map(|n| {
                    n.section
                        .session_tools(self.state.session.as_ref())
                        .into_iter()
                        .find(|t| t.name() == name)
                        .map(|t| (n.path.clone(), t))
                })
            })
    }
    /// The text of one rendered section.
    pub fn section_text(&self, path: &SectionPath) -> Option<&str> {
        self.sections
            .iter()
            .find(|s| &s.path == path)
            .map(|s| &self.text[s.range.clone()])
    }

    /// The summarized section (its dotted key, as the model must pass it to `read_section` /
    /// `open_sections`) that hides the tool `name`, when a summarized section hides it.
    pub fn hiding_section(&self, name: &str) -> Option<String> {
        let (owner, _) = self.hidden_tools.iter().find(|(_, t)| t.name() == name)?;
        self.sections
            .iter()
            .find(|s| {
                s.visibility == SectionVisibility::Summary
                    && (&s.path == owner || owner.is_descendant_of(&s.path))
            })
            .map(|s| s.path.dotted())
    }

    /// The refusal of the first tool policy of the template that refuses calling `tool` with
    /// `params` in `session` (see [`crate::ToolPolicy`]); `None` when every policy allows it.
    /// The builtin disclosure tools are never refused.
    pub fn policy_refusal(&self, tool: &str, params: &Value, session: &Session) -> Option<String> {
        if crate::is_disclosure_tool(tool) {
            return None;
        }
        let request = crate::PolicyRequest::new(tool, params, session);
        self.state
            .template
            .nodes()
            .iter()
            .flat_map(|node| node.section.tool_policies())
            .find_map(|policy| policy.check(request))
    }

    /// The disclosure mode this render used.
    pub fn disclosure(&self) -> DisclosureMode {
        self.state.mode
    }

    /// The template rendered.
    pub fn template(&self) -> &PromptTemplate {
        &self.state.template
    }

    /// The `limit` sections this render hides (summarized, or inside a summarized section) that
    /// best match `query`, best first, ranked as the builtin `search_sections` ranks them (BM25
    /// over titles, summaries, text and tools, or the template's
    /// [`PromptTemplate::with_section_ranking`]). Empty when nothing is summarized.
    pub fn search_sections(&self, query: &str, limit: usize) -> Vec<crate::SectionHit> {
        self.state.section_index().search(query, limit)
    }

    /// How many sections this render hides (what [`RenderedPrompt::search_sections`] searches).
    pub fn hidden_section_count(&self) -> usize {
        self.state.hidden_nodes().len()
    }

    /// Whether any section rendered summarized.
    pub fn has_summarized_sections(&self) -> bool {
        self.sections
            .iter()
            .any(|s| s.visibility == SectionVisibility::Summary)
    }

    /// WINK's `response_format` JSON for the declared structured output.
    pub fn response_format(&self) -> Option<Value> {
        self.output.as_ref().map(wink_schema::response_format)
    }

    /// Telemetry for a call of a builtin disclosure tool (`None` for other tools).
    pub fn disclosure_telemetry(
        &self,
        tool: &str,
        args: &Value,
        session: &Session,
    ) -> Option<DisclosureTelemetry> {
        disclosure_telemetry(&self.state, tool, args, session)
    }
}
