//! Groups: a summarized section whose children are all summarized renders as one line of a
//! list (its title, key, summary and how many sections it holds) instead of a heading, its
//! summary and an instruction each. A tree of hundreds of sections then costs a line per group at
//! every level: the prompt lists the top groups, reading a group lists its children, reading a leaf
//! gives its text. Not in `wink` mode (WINK v0.17's texts are kept there), and not for a section
//! with a custom summary suffix (its author chose its text).

use super::*;

/// Texts of shown sections joined as a render joins them: a blank line between blocks, one line
/// break between the lines of one list of groups (siblings), each list headed once.
#[derive(Debug, Default)]
pub(crate) struct Joined {
    pub(crate) text: String,
    /// The parent of the groups listed last, while the last piece was a group line.
    list_parent: Option<Vec<String>>,
}

impl Joined {
    pub(crate) fn with_capacity(bytes: usize) -> Self {
        Self {
            text: String::with_capacity(bytes),
            list_parent: None,
        }
    }

    pub(crate) fn starting_with(text: String) -> Self {
        Self {
            text,
            list_parent: None,
        }
    }

    /// Where the next block starts (after a blank line when something precedes it).
    pub(crate) fn block_start(&mut self) -> usize {
        self.list_parent = None;
        if !self.text.is_empty() {
            self.text.push_str("\n\n");
        }
        self.text.len()
    }

    /// Where the next group line of `path` starts: after a line break when it continues the list
    /// of its siblings, else after a blank line and the list's `header`.
    pub(crate) fn line_start(&mut self, path: &SectionPath, header: &str) -> usize {
        let segments = path.segments();
        let parent = segments[..segments.len().saturating_sub(1)].to_vec();
        if self.list_parent.as_ref() == Some(&parent) {
            self.text.push('\n');
            return self.text.len();
        }
        if !self.text.is_empty() {
            self.text.push_str("\n\n");
        }
        let start = self.text.len();
        self.text.push_str(header);
        self.text.push('\n');
        self.list_parent = Some(parent);
        start
    }
}

/// The line that heads a list of groups.
pub(crate) fn group_list_header(mode: DisclosureMode) -> &'static str {
    match mode {
        DisclosureMode::OpenSections | DisclosureMode::ContextFiles => {
            "Summarized groups of sections (to open a group, call `open_sections` with its key):"
        }
        _ => {
            "Summarized groups of sections (to list a group's sections, call `read_section` with its key):"
        }
    }
}

impl RenderState {
    /// How many enabled children node `index` has when it renders as a group line (see the
    /// module docs): not in `wink` mode, no custom summary suffix, at least one enabled child and
    /// every enabled child summarized. `None` when it renders as a block.
    pub(crate) fn group_size(
        &self,
        index: usize,
        session: Option<&Session>,
        overrides: Option<&VisibilityOverrides>,
    ) -> Option<usize> {
        let node = &self.nodes()[index];
        if self.mode == DisclosureMode::Wink || node.section.summary_suffix().is_some() {
            return None;
        }
        let mut children = 0;
        for child in index + 1..node.subtree_end {
            if self.nodes()[child].depth != node.depth + 1 {
                continue;
            }
            let params = self.resolve_params(child).ok()?;
            if !self.is_enabled(child, params.as_ref(), session).ok()? {
                continue;
            }
            let visibility = self
                .visibility_under(child, params.as_ref(), session, overrides)
                .ok()?;
            if visibility != SectionVisibility::Summary {
                return None;
            }
            children += 1;
        }
        (children > 0).then_some(children)
    }

    /// The list line of the group at `index` holding `children` sections:
    /// `- Title (key): summary [N sections]`, and the tools it hides when the template names them.
    pub(crate) fn group_line_into(
        &self,
        out: &mut String,
        index: usize,
        params: Option<&ParamsValue>,
        children: usize,
        hidden: &[String],
    ) -> Result<(), PromptError> {
        let node = &self.nodes()[index];
        let summary = node
            .section
            .render_body(params, SectionVisibility::Summary)
            .map_err(|e| with_context(e, node))?;
        out.push_str("- ");
        out.push_str(crate::key::python_strip(node.section.title()));
        out.push_str(" (");
        out.push_str(&node.path.dotted());
        out.push(')');
        let summary = one_line(&summary);
        if !summary.is_empty() {
            out.push_str(": ");
            out.push_str(&summary);
        }
        let noun = if children == 1 { "section" } else { "sections" };
        out.push_str(&format!(" [{children} {noun}]"));
        if self.template.names_hidden_tools() && !hidden.is_empty() {
            out.push_str(&format!(" Its tools, callable now: {}.", hidden.join(", ")));
        }
        Ok(())
    }

    /// Appends the shown child `index` of a section being read to `joined`: a group line, or a
    /// block (`heading_depth` and `number` place its heading) at `visibility`, followed by its
    /// summary suffix when summarized. Returns whether its subtree is hidden (summarized).
    pub(crate) fn push_child(
        &self,
        joined: &mut Joined,
        index: usize,
        session: &Session,
        heading: &Heading<'_>,
    ) -> Result<bool, PromptError> {
        let node = &self.nodes()[index];
        let params = self.resolve_params(index)?;
        let visibility = self.effective_visibility(index, params.as_ref(), Some(session))?;
        let summarized = visibility == SectionVisibility::Summary;
        let hidden = if summarized {
            self.hidden_tool_names(index, Some(session))?
        } else {
            Vec::new()
        };
        let overrides = session.visibility_overrides();
        let group = if summarized {
            self.group_size(index, Some(session), Some(&overrides))
        } else {
            None
        };
        if let Some(children) = group {
            joined.line_start(&node.path, group_list_header(self.mode));
            self.group_line_into(&mut joined.text, index, params.as_ref(), children, &hidden)?;
            return Ok(true);
        }
        joined.block_start();
        render_section_into(
            &mut joined.text,
            node.section.as_ref(),
            params.as_ref(),
            heading,
            visibility,
            !summarized,
        )
        .map_err(|e| with_context(e, node))?;
        if summarized {
            joined
                .text
                .push_str(&self.suffix_naming(node, node.subtree_has_tools, &hidden)?);
        }
        Ok(summarized)
    }
}

/// `text` on one line: runs of whitespace (line breaks included) become one space.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
