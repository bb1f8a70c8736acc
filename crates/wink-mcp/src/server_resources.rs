//! The prompt and its sections as MCP resources, under `wink://NS/KEY` (the prompt's namespace
//! and key, percent-encoded where they are not URI-safe):
//!
//! - `wink://NS/KEY` — the rendered prompt;
//! - `wink://NS/KEY/SECTION` — a section's full content (`SECTION` is its dotted key), a
//!   summarized one's included, without expanding it;
//! - `wink://NS/KEY/SECTION{?field,...}` — a resource template for each section with params:
//!   the section rendered with the given fields over the served ones.
//!
//! `wink://prompt` and `wink://section/<dot.key>`, the URIs of earlier versions, still read
//! the same (aliases, not listed).

use rmcp::ErrorData;
use rmcp::model::{Resource, ResourceTemplate};
use serde_json::json;
use wink_core::{RenderedPrompt, SectionPath, SectionVisibility, ToolContext};

use crate::error::McpServeError;
use crate::server::{PROMPT_URI, PromptServer, SECTION_URI_PREFIX, internal, rendered_subtree};
use crate::server_params::{field_value, type_words};

/// `text` as one URI path segment: unreserved characters kept, every other byte `%XX`.
fn uri_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The URI of the prompt `ns`/`key` as a resource: `wink://NS/KEY`.
pub fn prompt_resource_uri(ns: &str, key: &str) -> String {
    format!("wink://{}/{}", uri_segment(ns), uri_segment(key))
}

/// The URI of a section of the prompt `ns`/`key`: `wink://NS/KEY/SECTION`.
///
/// ```
/// use wink_core::SectionPath;
/// let path = SectionPath::new(vec!["reference".into(), "details".into()]);
/// assert_eq!(
///     wink_mcp::section_resource_uri("docs", "guide v2", &path),
///     "wink://docs/guide%20v2/reference.details"
/// );
/// ```
pub fn section_resource_uri(ns: &str, key: &str, path: &SectionPath) -> String {
    format!("{}/{}", prompt_resource_uri(ns, key), path.dotted())
}

/// What a resource URI of this server names.
enum Target<'a> {
    Prompt,
    /// A section's dotted key, and the query of a template's URI.
    Section(&'a str, Option<&'a str>),
}

impl PromptServer {
    fn own_prompt_uri(&self) -> String {
        let template = self.prompt().template();
        prompt_resource_uri(template.ns(), template.key())
    }

    fn target<'a>(&self, uri: &'a str) -> Option<Target<'a>> {
        if uri == PROMPT_URI {
            return Some(Target::Prompt);
        }
        if let Some(key) = uri.strip_prefix(SECTION_URI_PREFIX) {
            return Some(Target::Section(key, None));
        }
        let rest = uri.strip_prefix(self.own_prompt_uri().as_str())?;
        if rest.is_empty() {
            return Some(Target::Prompt);
        }
        let rest = rest.strip_prefix('/')?;
        Some(match rest.split_once('?') {
            Some((key, query)) => Target::Section(key, Some(query)),
            None => Target::Section(rest, None),
        })
    }

    /// The resources: the rendered prompt, then one per section the client can read (rendered
    /// sections and the descendants of summarized ones), in tree order.
    pub fn resource_list(&self) -> Result<Vec<Resource>, McpServeError> {
        let rendered = self.render()?;
        let template = rendered.template().clone();
        let mut resources = vec![
            Resource::new(self.own_prompt_uri(), "prompt")
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
                Resource::new(
                    section_resource_uri(template.ns(), template.key(), &node.path),
                    node.path.dotted(),
                )
                .with_title(node.section.title().to_owned())
                .with_description(description)
                .with_mime_type("text/markdown"),
            );
        }
        resources.extend(crate::skills::skill_resources(self.skills()));
        Ok(resources)
    }

    /// A resource template per section with params, in tree order:
    /// `wink://NS/KEY/SECTION{?field,...}`.
    pub fn section_templates(&self) -> Vec<ResourceTemplate> {
        let template = self.prompt().template();
        template
            .nodes()
            .iter()
            .filter_map(|node| {
                let params = node.section.params_type()?;
                if params.fields().is_empty() {
                    return None;
                }
                let names: Vec<&str> = params.fields().iter().map(|f| f.name.as_str()).collect();
                let fields: Vec<String> = params
                    .fields()
                    .iter()
                    .map(|f| format!("{} ({})", f.name, type_words(f.field_type)))
                    .collect();
                Some(
                    ResourceTemplate::new(
                        format!(
                            "{}{{?{}}}",
                            section_resource_uri(template.ns(), template.key(), &node.path),
                            names.join(",")
                        ),
                        node.path.dotted(),
                    )
                    .with_title(node.section.title().to_owned())
                    .with_description(format!(
                        "The section rendered with the given fields of the params '{}': {}; a field left out keeps the served value.",
                        params.name(),
                        fields.join(", ")
                    ))
                    .with_mime_type("text/markdown"),
                )
            })
            .collect()
    }

    /// Reads a resource of the prompt (see the module docs): the rendered prompt, or a section's
    /// full content as `read_section` returns it, without expanding it.
    pub async fn read_resource_text(&self, uri: &str) -> Result<String, ErrorData> {
        let Some(target) = self.target(uri) else {
            return Err(ErrorData::resource_not_found(
                format!(
                    "Unknown resource '{uri}': expected {prompt} or {prompt}/<dot.key>.",
                    prompt = self.own_prompt_uri()
                ),
                Some(json!({"uri": uri})),
            ));
        };
        let (key, query) = match target {
            Target::Prompt => return Ok(self.render().map_err(internal)?.text),
            Target::Section(key, query) => (key, query),
        };
        let rendered = match query {
            None => self.render().map_err(internal)?,
            Some(query) => self.render_with_query(key, query, uri)?,
        };
        self.section_text(&rendered, key, uri).await
    }

    /// The prompt rendered with a template URI's fields for section `key`.
    fn render_with_query(
        &self,
        key: &str,
        query: &str,
        uri: &str,
    ) -> Result<RenderedPrompt, ErrorData> {
        let template = self.prompt().template();
        let node = template
            .find_section(key)
            .ok_or_else(|| unknown_section(key, uri))?;
        let Some(params) = node.section.params_type() else {
            return Err(ErrorData::invalid_params(
                format!("Section '{key}' has no params to set (resource '{uri}')."),
                None,
            ));
        };
        let mut fields = Vec::new();
        for (name, text) in url::form_urlencoded::parse(query.as_bytes()) {
            let field = params.fields().iter().find(|f| f.name == *name).ok_or_else(|| {
                ErrorData::invalid_params(
                    format!(
                        "Section '{key}' has no param '{name}' (resource '{uri}'); its params: {}.",
                        params
                            .fields()
                            .iter()
                            .map(|f| f.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    None,
                )
            })?;
            if fields.iter().any(|(taken, _)| *taken == field.name) {
                return Err(ErrorData::invalid_params(
                    format!("Param '{name}' is given twice (resource '{uri}')."),
                    None,
                ));
            }
            let value = field_value(field, &text).map_err(|why| {
                ErrorData::invalid_params(format!("{why} (resource '{uri}')."), None)
            })?;
            fields.push((field.name.clone(), value));
        }
        self.bind_fields(self.prompt().clone(), params, fields)
            .render_with(self.session())
            .map_err(|e| ErrorData::invalid_params(format!("{e} (resource '{uri}')."), None))
    }

    /// Section `key`'s full content in `rendered`.
    async fn section_text(
        &self,
        rendered: &RenderedPrompt,
        key: &str,
        uri: &str,
    ) -> Result<String, ErrorData> {
        let node = rendered
            .template()
            .find_section(key)
            .ok_or_else(|| unknown_section(key, uri))?;
        let path = node.path.clone();
        let shown_in_full = rendered
            .sections
            .iter()
            .any(|s| s.path == path && s.visibility == SectionVisibility::Full);
        if shown_in_full && let Some(text) = rendered_subtree(rendered, &path) {
            return Ok(text);
        }
        let Some(reader) = rendered.tool(wink_core::READ_SECTION) else {
            return Err(unknown_section(key, uri));
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

fn unknown_section(key: &str, uri: &str) -> ErrorData {
    ErrorData::resource_not_found(
        format!("Unknown section key: '{key}' (resource '{uri}')."),
        Some(json!({"uri": uri})),
    )
}
