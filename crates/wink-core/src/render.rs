//! The renderer: walks the flattened section tree, resolves params, applies `enabled` and
//! visibility, assembles the text and collects tools, then adds the builtin disclosure tools.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use serde_json::{Value, json};
use wink_session::{DisclosureTelemetry, SectionPath, SectionVisibility, Session};

use crate::disclosure::{
    CONTEXT_FOLDER, DisclosureMode, OPEN_SECTIONS, OpenSectionsTool, READ_SECTION, ReadSectionTool,
    build_custom_suffix, build_summary_suffix, build_summary_suffix_naming_tools,
    disclosure_telemetry, with_valid_keys,
};
use crate::error::PromptError;
use crate::params::ParamsValue;
use crate::prompt::{OutputSpec, ParamLookup, PromptTemplate, SectionNode};
use crate::section::{SelectorInput, render_section};
use crate::tool::{SectionExpansion, ToolPayload, ToolRef, ToolResponse, ToolResult};

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

/// Everything the builtin tools need to answer for one render.
pub(crate) struct RenderState {
    pub(crate) template: PromptTemplate,
    pub(crate) lookup: ParamLookup,
    pub(crate) session: Option<Session>,
    pub(crate) mode: DisclosureMode,
    /// Visibility of every node as computed at render time (WINK's `current_visibility`).
    pub(crate) render_visibility: Vec<Option<SectionVisibility>>,
}

impl fmt::Debug for RenderState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RenderState")
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

fn with_context(error: PromptError, node: &SectionNode) -> PromptError {
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
        let node = &self.nodes()[index];
        let from_session = session.and_then(|s| s.visibility_overrides().get(&node.path));
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
    fn live_visibility(&self, index: usize, session: Option<&Session>) -> SectionVisibility {
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
        match node.section.summary_suffix() {
            Some(custom) => build_custom_suffix(custom, &key, &node.child_keys, hidden)
                .map_err(|e| with_context(e, node)),
            None if self.template.names_hidden_tools() => Ok(build_summary_suffix_naming_tools(
                self.mode,
                &key,
                &node.child_keys,
                hidden,
            )),
            None => Ok(build_summary_suffix(
                self.mode,
                &key,
                &node.child_keys,
                has_tools,
            )),
        }
    }

    /// Names of the tools the summarized node `index` hides (its own and its enabled
    /// descendants').
    fn hidden_tool_names(
        &self,
        index: usize,
        session: Option<&Session>,
    ) -> Result<Vec<String>, PromptError> {
        let mut hidden = Vec::new();
        self.collect_hidden_tools(index, session, &mut hidden)?;
        Ok(hidden.iter().map(|(_, t)| t.name().to_owned()).collect())
    }

    fn render_node(
        &self,
        index: usize,
        params: Option<&ParamsValue>,
        visibility: SectionVisibility,
        tool_examples: bool,
    ) -> Result<String, PromptError> {
        let node = &self.nodes()[index];
        render_section(
            node.section.as_ref(),
            params,
            node.depth,
            &node.number,
            Some(&node.path),
            visibility,
            tool_examples,
        )
        .map_err(|e| with_context(e, node))
    }

    /// Tools examples show for summarized sections only in WINK mode (quirk 2 of the reference).
    fn examples_when_summarized(&self) -> bool {
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
    fn shown_section_extended_by(
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
    fn collect_hidden_tools(
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

    /// WINK v0.17 `read_section` (quirks 3 and 4 kept).
    pub(crate) fn wink_read_section(
        &self,
        key: &str,
    ) -> Result<ToolResult<ToolPayload>, PromptError> {
        let path = SectionPath::new(key.split('.').map(str::to_owned).collect());
        let Some(index) = self.template.node_index(&path) else {
            return Err(PromptError::validation(format!(
                "Section '{key}' does not exist in this prompt."
            )));
        };
        if self.render_visibility[index] == Some(SectionVisibility::Full) {
            return Err(PromptError::validation(format!(
                "Section '{key}' is not summarized."
            )));
        }
        let params = self.resolve_params(index)?;
        let mut content =
            self.render_node(index, params.as_ref(), SectionVisibility::Full, true)?;
        let end = self.nodes()[index].subtree_end;
        let mut skip: Option<usize> = None;
        let mut children = Vec::new();
        for child in index + 1..end {
            let node = &self.nodes()[child];
            if let Some(d) = skip {
                if node.depth > d {
                    continue;
                }
                skip = None;
            }
            let child_params = self.resolve_params(child)?;
            let Some(child_params) = child_params else {
                skip = Some(node.depth); // v0.17 skips sections without params (quirk 3)
                continue;
            };
            if !self.is_enabled(child, Some(&child_params), self.session.as_ref())? {
                skip = Some(node.depth);
                continue;
            }
            let effective = self.render_visibility[child].unwrap_or(SectionVisibility::Full);
            let mut rendered = self.render_node(child, Some(&child_params), effective, true)?;
            if effective == SectionVisibility::Summary && node.section.summary().is_some() {
                rendered.push_str(&self.suffix(node, !node.section.tools().is_empty())?); // quirk 4: own tools only
                skip = Some(node.depth);
            }
            children.push(rendered);
        }
        if !children.is_empty() {
            content.push_str("\n\n");
            content.push_str(&children.join("\n\n"));
        }
        Ok(ToolResult::ok(
            format!("Content of section '{key}':"),
            ToolPayload {
                json: json!({"content": content}),
                rendered: content,
            },
        ))
    }

    /// Seed 003 `read_section`: content at current visibility plus the tools of the section and
    /// its enabled descendants.
    pub(crate) fn unified_read_section(
        &self,
        key: &str,
        session: &Session,
    ) -> Result<ToolResponse, PromptError> {
        let unknown = || {
            let summarized = self.summarized_keys(Some(session));
            let mut message =
                with_valid_keys(&format!("Unknown section key: '{key}'"), key, &summarized);
            if let Some(shown) = self.shown_section_extended_by(key, &summarized, session) {
                message.push_str(&format!(
                    " Section '{shown}' is shown in full already: answer from its text above."
                ));
            }
            ToolResponse::from(ToolResult::<ToolPayload>::failure(message))
        };
        let Some(index) = self.nodes().iter().position(|n| n.path.dotted() == key) else {
            return Ok(unknown());
        };
        // The section must be reachable: it and its ancestors enabled.
        let ancestors: Vec<usize> = (0..index)
            .filter(|&i| {
                self.nodes()[index]
                    .path
                    .is_descendant_of(&self.nodes()[i].path)
            })
            .collect();
        let mut visible = true;
        for &i in ancestors.iter().chain(std::iter::once(&index)) {
            let p = self.resolve_params(i)?;
            if !self.is_enabled(i, p.as_ref(), Some(session))? {
                return Ok(unknown());
            }
            if self.effective_visibility(i, p.as_ref(), Some(session))?
                == SectionVisibility::Summary
            {
                visible = false;
            }
        }
        let params = self.resolve_params(index)?;
        let mut content =
            self.render_node(index, params.as_ref(), SectionVisibility::Full, true)?;
        let end = self.nodes()[index].subtree_end;
        let mut tools: Vec<(SectionPath, ToolRef)> = self.nodes()[index]
            .section
            .tools()
            .iter()
            .map(|t| (self.nodes()[index].path.clone(), t.clone()))
            .collect();
        let mut render_skip: Option<usize> = None;
        let mut disabled_skip: Option<usize> = None;
        let mut children = Vec::new();
        for child in index + 1..end {
            let node = &self.nodes()[child];
            if let Some(d) = disabled_skip {
                if node.depth > d {
                    continue;
                }
                disabled_skip = None;
            }
            let child_params = self.resolve_params(child)?;
            if !self.is_enabled(child, child_params.as_ref(), Some(session))? {
                disabled_skip = Some(node.depth);
                continue;
            }
            tools.extend(
                node.section
                    .tools()
                    .iter()
                    .map(|t| (node.path.clone(), t.clone())),
            );
            if let Some(d) = render_skip {
                if node.depth > d {
                    continue;
                }
                render_skip = None;
            }
            let effective =
                self.effective_visibility(child, child_params.as_ref(), Some(session))?;
            let mut rendered = self.render_node(
                child,
                child_params.as_ref(),
                effective,
                effective == SectionVisibility::Full,
            )?;
            if effective == SectionVisibility::Summary {
                let hidden = self.hidden_tool_names(child, Some(session))?;
                rendered.push_str(&self.suffix_naming(node, node.subtree_has_tools, &hidden)?);
                render_skip = Some(node.depth);
            }
            children.push(rendered);
        }
        if !children.is_empty() {
            content.push_str("\n\n");
            content.push_str(&children.join("\n\n"));
        }
        if visible {
            let result = ToolResult::ok(
                "Section is already expanded.",
                ToolPayload {
                    json: json!({"content": content, "expanded_tools": []}),
                    rendered: content,
                },
            );
            return Ok(result.into());
        }
        let names: Vec<&str> = tools.iter().map(|(_, t)| t.name()).collect();
        let result = ToolResult::ok(
            format!("Content of section '{key}':"),
            ToolPayload {
                json: json!({"content": content, "expanded_tools": names}),
                rendered: content,
            },
        );
        let expansion = (!tools.is_empty()).then(|| SectionExpansion {
            path: self.nodes()[index].path.clone(),
            tools,
        });
        Ok(ToolResponse { result, expansion })
    }

    /// WINK v0.17's `open_sections` validation, against the render-time visibility: keys
    /// non-empty, existing, summarized (the other modes use
    /// [`RenderState::lenient_open_request`]).
    pub(crate) fn validate_open_request(
        &self,
        keys: &[String],
    ) -> Result<Vec<SectionPath>, PromptError> {
        if keys.is_empty() {
            return Err(PromptError::validation(
                "At least one section key must be provided.",
            ));
        }
        let mut paths = Vec::new();
        for key in keys {
            let path = SectionPath::new(key.split('.').map(str::to_owned).collect());
            let Some(index) = self.template.node_index(&path) else {
                return Err(PromptError::validation(format!(
                    "Section '{key}' does not exist in this prompt."
                )));
            };
            if self.render_visibility[index] == Some(SectionVisibility::Full) {
                return Err(PromptError::validation(format!(
                    "Section '{key}' is already expanded."
                )));
            }
            let path = self.nodes()[index].path.clone();
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        Ok(paths)
    }

    /// Seed 001: render the section standalone (depth 0, no number) in full, followed by its
    /// enabled descendants at their current visibility for `session` (one level deeper each, no
    /// numbers; a summarized descendant shows its summary and suffix and hides its subtree), and
    /// write it to `context/<dot.key>.md`. Returns the file path.
    pub(crate) fn write_context_file(
        &self,
        path: &SectionPath,
        fs: &dyn wink_fs::Filesystem,
        session: &Session,
    ) -> Result<String, String> {
        let index = self
            .template
            .node_index(path)
            .ok_or_else(|| format!("Section '{}' does not exist in this prompt.", path.dotted()))?;
        let node = &self.nodes()[index];
        let params = self.resolve_params(index).map_err(|e| e.to_string())?;
        let mut parts = vec![
            render_section(
                node.section.as_ref(),
                params.as_ref(),
                0,
                "",
                Some(&node.path),
                SectionVisibility::Full,
                true,
            )
            .map_err(|e| e.to_string())?,
        ];
        let mut skip: Option<usize> = None;
        for child in index + 1..node.subtree_end {
            let descendant = &self.nodes()[child];
            if let Some(d) = skip {
                if descendant.depth > d {
                    continue;
                }
                skip = None;
            }
            let child_params = self.resolve_params(child).map_err(|e| e.to_string())?;
            if !self
                .is_enabled(child, child_params.as_ref(), Some(session))
                .map_err(|e| e.to_string())?
            {
                skip = Some(descendant.depth);
                continue;
            }
            let visibility = self
                .effective_visibility(child, child_params.as_ref(), Some(session))
                .map_err(|e| e.to_string())?;
            let summarized = visibility == SectionVisibility::Summary;
            let mut rendered = render_section(
                descendant.section.as_ref(),
                child_params.as_ref(),
                descendant.depth - node.depth,
                "",
                Some(&descendant.path),
                visibility,
                !summarized,
            )
            .map_err(|e| e.to_string())?;
            if summarized {
                rendered.push_str(
                    &self
                        .suffix(descendant, descendant.subtree_has_tools)
                        .map_err(|e| e.to_string())?,
                );
                skip = Some(descendant.depth);
            }
            parts.push(rendered);
        }
        let content = parts.join("\n\n");
        let file = format!("{CONTEXT_FOLDER}/{}.md", path.dotted());
        fs.mkdir(CONTEXT_FOLDER, true, true)
            .map_err(|e| e.to_string())?;
        fs.write(&file, &content, wink_fs::WriteMode::Overwrite)
            .map_err(|e| e.to_string())?;
        Ok(file)
    }
}

/// Render `template` with `lookup` (and `session` for overrides and session selectors).
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
    };
    let nodes = template.nodes();
    let mut text = String::with_capacity(256 * nodes.len().max(1));
    let mut sections = Vec::with_capacity(nodes.len());
    let mut tools: Vec<ToolRef> = Vec::new();
    let mut disabled_skip: Option<usize> = None;
    let mut summary_skip: Option<usize> = None;
    let mut summarized_with_tools = false;
    let mut summarized_without_tools = false;
    let mut hidden_tools: Vec<(SectionPath, ToolRef)> = Vec::new();
    for (index, node) in nodes.iter().enumerate() {
        if let Some(d) = disabled_skip {
            if node.depth > d {
                continue;
            }
            disabled_skip = None;
        }
        let params = state.resolve_params(index)?;
        if !state.is_enabled(index, params.as_ref(), session)? {
            disabled_skip = Some(node.depth);
            continue;
        }
        if let Some(d) = summary_skip {
            if node.depth > d {
                continue;
            }
            summary_skip = None;
        }
        let visibility = state.effective_visibility(index, params.as_ref(), session)?;
        let summarized = visibility == SectionVisibility::Summary;
        let hidden_before = hidden_tools.len();
        if summarized {
            summary_skip = Some(node.depth);
            if node.subtree_has_tools {
                summarized_with_tools = true;
                state.collect_hidden_tools(index, session, &mut hidden_tools)?;
            } else {
                summarized_without_tools = true;
            }
        }
        let examples = !summarized || state.examples_when_summarized();
        let mut rendered = state.render_node(index, params.as_ref(), visibility, examples)?;
        if summarized {
            let hidden: Vec<String> = hidden_tools[hidden_before..]
                .iter()
                .map(|(_, t)| t.name().to_owned())
                .collect();
            rendered.push_str(&state.suffix_naming(node, node.subtree_has_tools, &hidden)?);
        } else {
            tools.extend(node.section.tools().iter().cloned());
            for tool in node.section.session_tools(session) {
                if !tools.iter().any(|t| t.name() == tool.name()) {
                    tools.push(tool);
                }
            }
        }
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        let start = text.len();
        text.push_str(&rendered);
        sections.push(RenderedSection {
            path: node.path.clone(),
            visibility,
            range: start..text.len(),
        });
    }
    let any_summarized = summarized_with_tools || summarized_without_tools;
    if any_summarized {
        state.render_visibility = (0..nodes.len())
            .map(|i| {
                let params = state.resolve_params(i).ok().flatten();
                state.effective_visibility(i, params.as_ref(), session).ok()
            })
            .collect();
    }
    let state = Arc::new(state);
    if any_summarized {
        // A section tool named like the builtin about to be added would offer two tools of one
        // name (found by a provider, not here): WINK's duplicate-name error, at render.
        let builtins: Vec<&str> = match template.disclosure() {
            DisclosureMode::Wink => [
                (summarized_with_tools, OPEN_SECTIONS),
                (summarized_without_tools, READ_SECTION),
            ]
            .into_iter()
            .filter_map(|(added, name)| added.then_some(name))
            .collect(),
            DisclosureMode::Unified => vec![READ_SECTION],
            DisclosureMode::OpenSections | DisclosureMode::ContextFiles => vec![OPEN_SECTIONS],
        };
        if let Some(clash) = tools
            .iter()
            .chain(hidden_tools.iter().map(|(_, t)| t))
            .find(|t| builtins.contains(&t.name()))
        {
            return Err(
                PromptError::validation("Duplicate tool name registered for prompt.")
                    .with_placeholder(clash.name()),
            );
        }
        match template.disclosure() {
            DisclosureMode::Wink => {
                if summarized_with_tools {
                    tools.push(OpenSectionsTool::tool(state.clone()));
                }
                if summarized_without_tools {
                    tools.push(ReadSectionTool::tool(state.clone()));
                }
            }
            DisclosureMode::Unified => tools.push(ReadSectionTool::tool(state.clone())),
            DisclosureMode::OpenSections | DisclosureMode::ContextFiles => {
                tools.push(OpenSectionsTool::tool(state.clone()))
            }
        }
    }
    debug_assert!(
        tools
            .iter()
            .filter(|t| t.name() == READ_SECTION || t.name() == OPEN_SECTIONS)
            .count()
            <= 2
    );
    Ok(RenderedPrompt {
        text,
        tools,
        output: template.output().cloned(),
        sections,
        hidden_tools,
        state,
    })
}
