//! The prompt's sections as MCP resources: `wink://prompt` (the rendered prompt) and
//! `wink://section/<dot.key>` (a section's full content, a summarized one's included).

use rmcp::ErrorData;
use rmcp::model::Resource;
use serde_json::json;
use wink_core::{SectionPath, SectionVisibility, ToolContext};

use crate::error::McpServeError;
use crate::server::{
    PROMPT_URI, PromptServer, SECTION_URI_PREFIX, internal, rendered_subtree, section_uri,
};

impl PromptServer {
    /// The resources: the rendered prompt, then one per section the client can read (rendered
    /// sections and the descendants of summarized ones), in tree order.
    pub fn resource_list(&self) -> Result<Vec<Resource>, McpServeError> {
        let rendered = self.render()?;
        let template = rendered.template().clone();
        let mut resources = vec![
            Resource::new(PROMPT_URI, "prompt")
                .with_title(self.prompt_name().to_owned())
                .with_description(
                    "The rendered prompt: summarized sections show their summary; read a section's resource or call read_section for its full content.",
                )
                .with_mime_type("text/markdown"),
        ];
        let summarized: Vec<&SectionPath> = rendered
            .sections
            .iter()
            .filter(|s| s.visibility == SectionVisibility::Summary)
            .map(|s| &s.path)
            .collect();
        for node in template.nodes() {
            let rendered_section = rendered.sections.iter().find(|s| s.path == node.path);
            let under_summary = summarized.iter().any(|p| node.path.is_descendant_of(p));
            if rendered_section.is_none() && !under_summary {
                continue;
            }
            let summarized_here = rendered_section
                .is_some_and(|s| s.visibility == SectionVisibility::Summary)
                || under_summary;
            let description = match (summarized_here, node.section.summary()) {
                (true, Some(summary)) if !summary.contains('$') => {
                    format!(
                        "{} (summarized; reading returns the full content)",
                        summary.trim()
                    )
                }
                (true, _) => "Summarized section; reading returns the full content.".to_owned(),
                (false, _) => "Section shown in full in the prompt.".to_owned(),
            };
            resources.push(
                Resource::new(section_uri(&node.path), node.path.dotted())
                    .with_title(node.section.title().to_owned())
                    .with_description(description)
                    .with_mime_type("text/markdown"),
            );
        }
        resources.extend(crate::skills::skill_resources(self.skills()));
        Ok(resources)
    }

    /// Read `wink://prompt` or `wink://section/<dot.key>` (a summarized section's full content,
    /// as `read_section` returns it, without expanding it).
    pub async fn read_resource_text(&self, uri: &str) -> Result<String, ErrorData> {
        let rendered = self.render().map_err(internal)?;
        if uri == PROMPT_URI {
            return Ok(rendered.text);
        }
        let Some(key) = uri.strip_prefix(SECTION_URI_PREFIX) else {
            return Err(ErrorData::resource_not_found(
                format!(
                    "Unknown resource '{uri}': expected {PROMPT_URI} or {SECTION_URI_PREFIX}<dot.key>."
                ),
                Some(json!({"uri": uri})),
            ));
        };
        let not_found = || {
            ErrorData::resource_not_found(
                format!("Unknown section key: '{key}' (resource '{uri}')."),
                Some(json!({"uri": uri})),
            )
        };
        let node = rendered
            .template()
            .find_section(key)
            .ok_or_else(not_found)?;
        let path = node.path.clone();
        let shown_in_full = rendered
            .sections
            .iter()
            .any(|s| s.path == path && s.visibility == SectionVisibility::Full);
        if shown_in_full && let Some(text) = rendered_subtree(&rendered, &path) {
            return Ok(text);
        }
        let Some(reader) = rendered.tool(wink_core::READ_SECTION) else {
            return Err(not_found());
        };
        let mut context = ToolContext::new(self.session().clone());
        context.resources = self.tool_resources();
        let response = reader
            .invoke(json!({"section_key": path.dotted()}), &mut context)
            .await
            .map_err(|e| {
                ErrorData::resource_not_found(
                    format!("{e} (resource '{uri}')."),
                    Some(json!({"uri": uri})),
                )
            })?;
        match (response.result.success, response.result.value) {
            (true, Some(payload)) => Ok(payload.rendered),
            _ => Err(ErrorData::resource_not_found(
                format!("{} (resource '{uri}').", response.result.message),
                Some(json!({"uri": uri})),
            )),
        }
    }
}
