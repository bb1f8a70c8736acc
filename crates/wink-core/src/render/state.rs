//! [`RenderState`]: what one render knows (template, parameters, session,
//! visibility) and the per-section decisions made from it.

use super::*;

/// Everything the builtin tools need to answer for one render.
pub(crate) struct RenderState {
    pub(crate) template: PromptTemplate,
    pub(crate) lookup: ParamLookup,
    pub(crate) session: Option<Session>,
    pub(crate) mode: DisclosureMode,
    /// Visibility of every node as computed at render time (WINK's `current_visibility`).
    pub(crate) render_visibility: Vec<Option<SectionVisibility>>,
    /// The `search_sections` index over the sections this render hides, built on first use.
    pub(crate) section_index: std::sync::OnceLock<crate::search::SectionIndex>,
}

impl fmt::Debug for RenderState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RenderState")
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

pub(super) fn with_context(error: PromptError, node: &SectionNode) -> PromptError {
    let error = error.with_section_path(&node.path);
    match node.section.params_type() {
        Some(t) => error.with_params_type(t.name()),
        None => error,
    }
}

impl RenderState {
    pub(crate) fn nodes(&self) -> &[SectionNode] {
        self.template.nodes()
    }

    /// The search index of this render (built on first use with the template's ranking).
    pub(crate) fn section_index(&self) -> &crate::search::SectionIndex {
        self.section_index
            .get_or_init(|| self.build_section_index(self.template.section_ranking().as_ref()))
    }

    /// Bound instance → section default → first default of the type → the type's default.
    pub(crate) fn resolve_params(&self, index: usize) -> Result<Option<ParamsValue>, PromptError> {
        let node = &self.nodes()[index];
        let Some(ty) = node.section.params_type() else {
            return Ok(None);
        };
        if let Some(v) = self.lookup.get(ty.id()) {
            return Ok(Some(v.clone()));
        }
        if let Some(v) = node.section.default_params() {
            return Ok(Some(v.clone()));
        }
        if let Some(v) = self.template.default_for_type(ty.id()) {
            return Ok(Some(v.clone()));
        }
        ty.type_default().map(Some).ok_or_else(|| {
            PromptError::render("Missing parameters for section.")
                .with_section_path(&node.path)
                .with_params_type(ty.name())
        })
    }

    pub(crate) fn is_enabled(
        &self,
        index: usize,
        params: Option<&ParamsValue>,
        session: Option<&Session>,
    ) -> Result<bool, PromptError> {
        let node = &self.nodes()[index];
        node.section
            .is_enabled(SelectorInput { params, session })
            .map_err(|e| with_context(e, node))
    }

    /// Session override for the path → the section's selector; `Summary` without a summary is
    /// WINK's validation error.
    pub(crate) fn effective_visibility(
        &self,
        index: usize,
        params: Option<&ParamsValue>,
        session: Option<&Session>,
    ) -> Result<SectionVisibility, PromptError> {
        let overrides = session.map(Session::visibility_overrides);
        self.visibility_under(index, params, session, overrides.as_ref())
    }

    /// [`RenderState::effective_visibility`] with the session's overrides read already (once
    /// per render rather than once per section: issue 22).
    pub(crate) fn visibility_under(
        &self,
        index: usize,
        params: Option<&ParamsValue>,
        session: Option<&Session>,
        overrides: Option<&VisibilityOverrides>,
    ) -> Result<SectionVisibility, PromptError> {
        let node = &self.nodes()[index];
        let from_session = overrides.and_then(|o| o.get(&node.path));
        let visibility = match from_session {
            Some(v) => v,
            None => node
                .section
                .visibility(SelectorInput { params, session })
                .map_err(|e| with_context(e, node))?,
        };
        if visibility == SectionVisibility::Summary && node.section.summary().is_none() {
            return Err(PromptError::missing_summary(&node.key, &node.path));
        }
        Ok(visibility)
    }

    /// Visibility of node `index` right now (for `session`), tolerating params that cannot
    /// be resolved.
    pub(super) fn live_visibility(
        &self,
        index: usize,
        session: Option<&Session>,
    ) -> SectionVisibility {
        let params = self.resolve_params(index).ok().flatten();
        self.effective_visibility(index, params.as_ref(), session)
            .unwrap_or(SectionVisibility::Full)
    }

    pub(crate) fn suffix(
        &self,
        node: &SectionNode,
        has_tools: bool,
    ) -> Result<String, PromptError> {
        self.suffix_naming(node, has_tools, &[])
    }

    /// The summary suffix of `node`, which hides the tools `hidden` (named in the suffix when the
    /// template asks for it, and in a custom suffix's `${tools}`).
    pub(crate) fn suffix_naming(
        &self,
        node: &SectionNode,
        has_tools: bool,
        hidden: &[String],
    ) -> Result<String, PromptError> {
        let key = node.path.dotted();
        let children = self.template.child_keys_joined(node);
        match node.section.summary_suffix() {
            Some(custom) => {
                custom_suffix(custom, &key, &children, hidden).map_err(|e| with_context(e, node))
            }
            None if self.template.names_hidden_tools() => Ok(summary_suffix_naming_tools(
                self.mode, &key, &children, hidden,
            )),
            None => Ok(summary_suffix(self.mode, &key, &children, has_tools)),
        }
    }

    /// Names of the tools the summarized node `index` hides (its own and its enabled
    /// descendants').
    pub(super) fn hidden_tool_names(
        &self,
        index: usize,
        session: Option<&Session>,
    ) -> Result<Vec<String>, PromptError> {
        let mut hidden = Vec::new();
        self.collect_hidden_tools(index, session, &mut hidden)?;
        Ok(hidden.iter().map(|(_, t)| t.name().to_owned()).collect())
    }

    pub(crate) fn render_node(
        &self,
        index: usize,
        params: Option<&ParamsValue>,
        visibility: SectionVisibility,
        tool_examples: bool,
    ) -> Result<String, PromptError> {
        let mut out = String::new();
        self.render_node_into(&mut out, index, params, visibility, tool_examples)?;
        Ok(out)
    }

    /// [`RenderState::render_node`], appended to `out`.
    pub(super) fn render_node_into(
        &self,
        out: &mut String,
        index: usize,
        params: Option<&ParamsValue>,
        visibility: SectionVisibility,
        tool_examples: bool,
    ) -> Result<(), PromptError> {
        let node = &self.nodes()[index];
        let heading = Heading {
            depth: node.depth,
            number: &node.number,
            path: Some(&node.path),
        };
        render_section_into(
            out,
            node.section.as_ref(),
            params,
            &heading,
            visibility,
            tool_examples,
        )
        .map_err(|e| with_context(e, node))
    }

    /// Tools examples show for summarized sections only in WINK mode (quirk 2 of the reference).
    pub(super) fn examples_when_summarized(&self) -> bool {
        self.mode == DisclosureMode::Wink
    }

    pub(crate) fn subtree_has_tools(&self, path: &SectionPath) -> bool {
        self.template
            .node(path)
            .is_some_and(|n| n.subtree_has_tools)
    }

    /// Keys of the enabled sections that are summarized now (what `read_section` /
    /// `open_sections` can open), in tree order.
    pub(crate) fn summarized_keys(&self, session: Option<&Session>) -> Vec<String> {
        (0..self.nodes().len())
            .filter(|&i| {
                let params = self.resolve_params(i).ok().flatten();
                self.is_enabled(i, params.as_ref(), session)
                    .unwrap_or(false)
                    && self.live_visibility(i, session) == SectionVisibility::Summary
            })
            .map(|i| self.nodes()[i].path.dotted())
            .collect()
    }

    /// The longest key of an enabled section shown in full (not in `summarized`) that `key`
    /// extends (`glossary` for `glossary.dreich`): a small model asks for a part of a section it
    /// can already read.
    pub(super) fn shown_section_extended_by(
        &self,
        key: &str,
        summarized: &[String],
        session: &Session,
    ) -> Option<String> {
        (0..self.nodes().len())
            .filter(|&i| {
                let params = self.resolve_params(i).ok().flatten();
                self.is_enabled(i, params.as_ref(), Some(session))
                    .unwrap_or(false)
            })
            .map(|i| self.nodes()[i].path.dotted())
            .filter(|dotted| {
                key.starts_with(&format!("{dotted}."))
                    && !summarized
                        .iter()
                        .any(|s| s == dotted || dotted.starts_with(&format!("{s}.")))
            })
            .max_by_key(String::len)
    }

    pub(crate) fn visibility_state(
        &self,
        session: Option<&Session>,
    ) -> BTreeMap<String, SectionVisibility> {
        (0..self.nodes().len())
            .map(|i| {
                (
                    self.nodes()[i].path.dotted(),
                    self.live_visibility(i, session),
                )
            })
            .collect()
    }

    /// The tools of the summarized node `index` and its enabled descendants (disabled subtrees
    /// hide nothing), appended to `out` with their owners' paths.
    pub(super) fn collect_hidden_tools(
        &self,
        index: usize,
        session: Option<&Session>,
        out: &mut Vec<(SectionPath, ToolRef)>,
    ) -> Result<(), PromptError> {
        let end = self.nodes()[index].subtree_end;
        let mut skip: Option<usize> = None;
        for i in index..end {
            let node = &self.nodes()[i];
            if let Some(d) = skip {
                if node.depth > d {
                    continue;
                }
                skip = None;
            }
            if i != index {
                let params = self.resolve_params(i)?;
                if !self.is_enabled(i, params.as_ref(), session)? {
                    skip = Some(node.depth);
                    continue;
                }
            }
            for tool in node.section.tools() {
                if !out.iter().any(|(_, t)| t.name() == tool.name()) {
                    out.push((node.path.clone(), tool.clone()));
                }
            }
        }
        Ok(())
    }
}
