//! [`render_prompt`]: the walk over the section tree that assembles the text
//! and collects the tools.

use super::*;
use crate::search::{SEARCH_SECTIONS, SearchSections, SearchSectionsTool};

/// Render `template` with `lookup` (and `session` for overrides and session selectors).
///
/// Steps: walk the sections (text and tools) → record every node's visibility when a section
/// was summarized → add the builtin disclosure tools that answer for the summarized ones.
pub(crate) fn render_prompt(
    template: &PromptTemplate,
    lookup: ParamLookup,
    session: Option<&Session>,
) -> Result<RenderedPrompt, PromptError> {
    let mut state = RenderState {
        template: template.clone(),
        lookup,
        session: session.cloned(),
        mode: template.disclosure(),
        render_visibility: Vec::new(),
        section_index: std::sync::OnceLock::new(),
    };
    let mut walk = Walk::with_capacity(template.nodes().len());
    let overrides = session.map(Session::visibility_overrides);
    walk.sections(&state, session, overrides.as_ref())?;
    let any_summarized = walk.summarized_with_tools || walk.summarized_without_tools;
    if any_summarized {
        let seen = std::mem::take(&mut walk.visibility);
        state.render_visibility = render_visibility(&state, session, overrides.as_ref(), seen);
    }
    let state = Arc::new(state);
    if any_summarized {
        walk.add_disclosure_tools(template.disclosure(), &state)?;
    }
    check_unique_names(&walk.tools)?;
    Ok(RenderedPrompt {
        text: walk.joined.text,
        tools: walk.tools,
        output: template.output().cloned(),
        sections: walk.sections,
        hidden_tools: walk.hidden_tools,
        state,
    })
}

/// Two offered tools of one name — a section tool named like a builtin a section offers only
/// as of this render (a catalog's `find_tool` once it is deferred, a disclosure tool) — are
/// WINK's duplicate-name error, at render rather than at the provider.
fn check_unique_names(tools: &[ToolRef]) -> Result<(), PromptError> {
    let mut seen = HashSet::with_capacity(tools.len());
    match tools.iter().find(|tool| !seen.insert(tool.name())) {
        Some(clash) => Err(
            PromptError::validation("Duplicate tool name registered for prompt.")
                .with_placeholder(clash.name()),
        ),
        None => Ok(()),
    }
}

/// Visibility of every node as of this render (WINK's `current_visibility`), for the builtin
/// tools: what the walk found (`seen`), the rest worked out here.
fn render_visibility(
    state: &RenderState,
    session: Option<&Session>,
    overrides: Option<&VisibilityOverrides>,
    seen: Vec<Option<SectionVisibility>>,
) -> Vec<Option<SectionVisibility>> {
    seen.into_iter()
        .enumerate()
        .map(|(i, found)| {
            found.or_else(|| {
                let params = state.resolve_params(i).ok().flatten();
                state
                    .visibility_under(i, params.as_ref(), session, overrides)
                    .ok()
            })
        })
        .collect()
}

/// Whether a node lies inside the subtree being skipped (`skip` holds that subtree's depth);
/// the first node outside it ends the skip.
fn inside(skip: &mut Option<usize>, depth: usize) -> bool {
    match *skip {
        Some(d) if depth > d => true,
        Some(_) => {
            *skip = None;
            false
        }
        None => false,
    }
}

/// What the walk over the sections collects.
struct Walk {
    joined: Joined,
    sections: Vec<RenderedSection>,
    tools: Vec<ToolRef>,
    hidden_tools: Vec<(SectionPath, ToolRef)>,
    summarized_with_tools: bool,
    summarized_without_tools: bool,
    /// The visibility of each node the walk worked out (`None`: skipped before it).
    visibility: Vec<Option<SectionVisibility>>,
}

impl Walk {
    fn with_capacity(nodes: usize) -> Self {
        Walk {
            joined: Joined::with_capacity(256 * nodes.max(1)),
            sections: Vec::with_capacity(nodes),
            tools: Vec::new(),
            hidden_tools: Vec::new(),
            summarized_with_tools: false,
            summarized_without_tools: false,
            visibility: vec![None; nodes],
        }
    }

    /// Every enabled section in order; a disabled section hides its subtree, a summarized one
    /// shows its summary instead of its subtree.
    fn sections(
        &mut self,
        state: &RenderState,
        session: Option<&Session>,
        overrides: Option<&VisibilityOverrides>,
    ) -> Result<(), PromptError> {
        let mut disabled_skip: Option<usize> = None;
        let mut summary_skip: Option<usize> = None;
        for (index, node) in state.nodes().iter().enumerate() {
            if inside(&mut disabled_skip, node.depth) {
                continue;
            }
            let params = state.resolve_params(index)?;
            if !state.is_enabled(index, params.as_ref(), session)? {
                disabled_skip = Some(node.depth);
                continue;
            }
            if inside(&mut summary_skip, node.depth) {
                continue;
            }
            let visibility = state.visibility_under(index, params.as_ref(), session, overrides)?;
            self.visibility[index] = Some(visibility);
            let group = if visibility == SectionVisibility::Summary {
                summary_skip = Some(node.depth);
                state.group_size(index, session, overrides)
            } else {
                None
            };
            let start = match group {
                Some(_) => self
                    .joined
                    .line_start(&node.path, group_list_header(state.mode)),
                None => self.joined.block_start(),
            };
            self.section(state, index, params.as_ref(), visibility, group, session)?;
            self.sections.push(RenderedSection {
                path: node.path.clone(),
                visibility,
                range: start..self.joined.text.len(),
            });
        }
        Ok(())
    }

    /// The text of one shown section, appended to the prompt's. A summarized section hides its
    /// subtree's tools and names them in its suffix (a group, `group` holding that many sections,
    /// is one line of a list); any other section adds its tools (and its session's, once each).
    fn section(
        &mut self,
        state: &RenderState,
        index: usize,
        params: Option<&ParamsValue>,
        visibility: SectionVisibility,
        group: Option<usize>,
        session: Option<&Session>,
    ) -> Result<(), PromptError> {
        let node = &state.nodes()[index];
        let summarized = visibility == SectionVisibility::Summary;
        let hidden_before = self.hidden_tools.len();
        if summarized {
            if node.subtree_has_tools {
                self.summarized_with_tools = true;
                state.collect_hidden_tools(index, session, &mut self.hidden_tools)?;
            } else {
                self.summarized_without_tools = true;
            }
        }
        let hidden = || -> Vec<String> {
            self.hidden_tools[hidden_before..]
                .iter()
                .map(|(_, t)| t.name().to_owned())
                .collect()
        };
        if let Some(children) = group {
            let hidden = hidden();
            return state.group_line_into(&mut self.joined.text, index, params, children, &hidden);
        }
        let examples = !summarized || state.examples_when_summarized();
        state.render_node_into(&mut self.joined.text, index, params, visibility, examples)?;
        if summarized {
            let hidden = hidden();
            let suffix = state.suffix_naming(node, node.subtree_has_tools, &hidden)?;
            self.joined.text.push_str(&suffix);
        } else {
            self.tools.extend(node.section.tools().iter().cloned());
            for tool in node.section.session_tools(session) {
                if !self.tools.iter().any(|t| t.name() == tool.name()) {
                    self.tools.push(tool);
                }
            }
        }
        Ok(())
    }

    /// The builtin tools the disclosure mode offers for summarized sections. A section tool
    /// named like one of them would offer two tools of one name (found by a provider, not
    /// here): WINK's duplicate-name error, at render.
    fn add_disclosure_tools(
        &mut self,
        mode: DisclosureMode,
        state: &Arc<RenderState>,
    ) -> Result<(), PromptError> {
        let builtins: Vec<&str> = match mode {
            DisclosureMode::Wink => [
                (self.summarized_with_tools, OPEN_SECTIONS),
                (self.summarized_without_tools, READ_SECTION),
            ]
            .into_iter()
            .filter_map(|(added, name)| added.then_some(name))
            .collect(),
            DisclosureMode::Unified => vec![READ_SECTION],
            DisclosureMode::OpenSections | DisclosureMode::ContextFiles => vec![OPEN_SECTIONS],
        };
        if let Some(clash) = self
            .tools
            .iter()
            .chain(self.hidden_tools.iter().map(|(_, t)| t))
            .find(|t| builtins.contains(&t.name()))
        {
            return Err(
                PromptError::validation("Duplicate tool name registered for prompt.")
                    .with_placeholder(clash.name()),
            );
        }
        // Offered on its own (`auto`), the tool gives way to a section tool of its name.
        let search = state.offers_search()
            && !(state.template.search_sections() == SearchSections::Auto
                && self.offers_named(SEARCH_SECTIONS));
        if search && self.offers_named(SEARCH_SECTIONS) {
            return Err(
                PromptError::validation("Duplicate tool name registered for prompt.")
                    .with_placeholder(SEARCH_SECTIONS),
            );
        }
        match mode {
            DisclosureMode::Wink => {
                if self.summarized_with_tools {
                    self.tools.push(OpenSectionsTool::tool(state.clone()));
                }
                if self.summarized_without_tools {
                    self.tools.push(ReadSectionTool::tool(state.clone()));
                }
            }
            DisclosureMode::Unified => self.tools.push(ReadSectionTool::tool(state.clone())),
            DisclosureMode::OpenSections | DisclosureMode::ContextFiles => {
                self.tools.push(OpenSectionsTool::tool(state.clone()))
            }
        }
        if search {
            self.tools.push(SearchSectionsTool::tool(state.clone()));
        }
        Ok(())
    }

    /// Whether a section tool (offered or hidden) is named `name`.
    fn offers_named(&self, name: &str) -> bool {
        self.tools
            .iter()
            .chain(self.hidden_tools.iter().map(|(_, t)| t))
            .any(|t| t.name() == name)
    }
}
