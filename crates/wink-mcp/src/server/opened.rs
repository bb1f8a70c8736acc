//! What a call that is not on offer gets, and what a call that opened sections adds to its
//! result (their text, and a notice of the tools they brought).

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use wink_core::{RenderedPrompt, SectionPath, SectionVisibility};
use wink_session::SetVisibilityOverride;

use super::{CallDone, PromptServer, internal, new_tools_notice};

/// A call of a tool the render does not offer: a tool error naming the summarized section that
/// holds it, else `invalid_params` listing what is offered.
pub(super) fn not_offered(rendered: &RenderedPrompt, name: &str) -> Result<CallDone, ErrorData> {
    match rendered.template_tool(name) {
        Some((path, _)) => Ok(CallDone::ran(
            CallToolResult::error(vec![ContentBlock::text(format!(
                "Tool '{name}' is not available yet: it belongs to section '{key}', which is summarized. \
                 Call read_section with key \"{key}\" first.",
                key = path.dotted()
            ))]),
            None,
        )),
        None => Err(ErrorData::invalid_params(
            format!(
                "Unknown tool '{name}'. Offered: {}.",
                rendered.tool_names().join(", ")
            ),
            None,
        )),
    }
}

impl PromptServer {
    /// Opens `expanded` in the session and returns `text` with what the opening brought: the
    /// sections' text (for an `open_sections` result) and the tools added since `before`;
    /// clients are told when the tool list changed.
    pub(super) fn opened(
        &self,
        expanded: &[SectionPath],
        before: &[String],
        mut text: String,
    ) -> Result<String, ErrorData> {
        let state = &self.state;
        for path in expanded {
            state.session.dispatch(SetVisibilityOverride {
                path: path.clone(),
                visibility: SectionVisibility::Full,
            });
        }
        let after = self.render().map_err(internal)?;
        if text.starts_with("Opened sections:") {
            for path in expanded {
                if let Some(content) = rendered_subtree(&after, path) {
                    text.push_str("\n\n");
                    text.push_str(&content);
                }
            }
        }
        let added: Vec<&str> = after
            .tool_names()
            .into_iter()
            .filter(|n| !before.iter().any(|b| b == n))
            .collect();
        if after.tool_names() != before {
            let _ = state.tools_changed.send(());
        }
        if !added.is_empty() {
            text.push_str("\n\n");
            text.push_str(&new_tools_notice(&added));
        }
        Ok(text)
    }
}

/// The text of `path` and its rendered descendants within `rendered` (contiguous in the text).
pub(crate) fn rendered_subtree(rendered: &RenderedPrompt, path: &SectionPath) -> Option<String> {
    let mut pieces = rendered
        .sections
        .iter()
        .filter(|s| &s.path == path || s.path.is_descendant_of(path));
    let first = pieces.next()?;
    let end = pieces.next_back().map_or(first.range.end, |s| s.range.end);
    rendered.text.get(first.range.start..end).map(str::to_owned)
}
