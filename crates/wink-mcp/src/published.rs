//! What a prompt file publishes to MCP clients beside its sections (its `mcp` block): fixed
//! resources, resource templates and prompts, each given as text, a file's bytes or a command's
//! output ([`ContentHandler`]).
//!
//! A handler's output is read like a command tool's: a JSON object in MCP's form
//! (`{"contents": [...]}` for a resource, `{"messages": [...], "description"?}` for a prompt, or
//! `{"resultType": "input_required", ...}` to ask the client for input first), else plain text
//! (the resource's text, or the prompt's one user message).

use std::fmt;
use std::sync::Arc;

use base64::Engine;
use rmcp::ErrorData;
use rmcp::model::{
    GetPromptResult, InputRequiredResult, Prompt, ReadResourceResult, Resource, ResourceTemplate,
};
use serde_json::{Map, Value, json};

use crate::call_input::ClientInput;
use crate::content::with_complete_type;

/// Produces a published resource's or prompt's content: a prompt file's command.
pub trait ContentHandler: Send + Sync + fmt::Debug {
    /// Runs with `input` (a JSON object: a prompt's arguments, or a template resource's `uri`
    /// and variables) and, on a call retried after `input_required`, the client's answers.
    /// Returns what it printed, or why it failed.
    fn produce(&self, input: &Value, client: Option<&ClientInput>) -> Result<String, String>;
}

/// Where published content comes from.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PublishedContent {
    /// Fixed text (a prompt's text may hold `${argument}` placeholders).
    Text(String),
    /// Fixed bytes (sent base64-encoded).
    Blob(Vec<u8>),
    /// A command's output.
    Handler(Arc<dyn ContentHandler>),
}

/// A resource at a fixed URI.
#[derive(Debug, Clone)]
pub struct PublishedResource {
    /// The URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its content.
    pub content: PublishedContent,
}

/// Resources whose URIs follow a template (`test://items/{id}`): each `{name}` matches one
/// path segment (no `/`), and the handler gets `{"uri": ..., name: value, ...}`.
#[derive(Debug, Clone)]
pub struct PublishedTemplate {
    /// The RFC 6570 URI template (simple `{name}` expressions).
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// What it is.
    pub description: Option<String>,
    /// The MIME type of its resources.
    pub mime_type: Option<String>,
    /// Produces a resource's content.
    pub handler: Arc<dyn ContentHandler>,
}

/// A prompt.
#[derive(Debug, Clone)]
pub struct PublishedPrompt {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Its arguments: name, description, required.
    pub arguments: Vec<(String, Option<String>, bool)>,
    /// Its content: text (one user message, `${argument}` replaced) or a command's output.
    pub content: PublishedContent,
}

/// Everything a prompt file publishes.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// Fixed resources.
    pub resources: Vec<PublishedResource>,
    /// Resource templates.
    pub templates: Vec<PublishedTemplate>,
    /// Prompts.
    pub prompts: Vec<PublishedPrompt>,
    /// Offer the builtin `ask_user` tool (elicitation through the client, [`crate::ASK_USER`]).
    pub ask_user: bool,
}

/// What reading or getting something published gives.
pub(crate) enum Produced<T> {
    /// The result.
    Complete(T),
    /// The handler asks the client for input first.
    InputRequired(InputRequiredResult),
}

/// A complete result read from JSON (see [`with_complete_type`]).
fn complete<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T, ErrorData> {
    from_json(with_complete_type(value), what)
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|e| ErrorData::internal_error(format!("{what} is not valid MCP: {e}"), None))
}

impl Published {
    /// The fixed resources, as `resources/list` gives them.
    pub(crate) fn resource_list(&self) -> Result<Vec<Resource>, ErrorData> {
        self.resources
            .iter()
            .map(|r| {
                from_json(
                    json!({"uri": r.uri, "name": r.name, "description": r.description, "mimeType": r.mime_type}),
                    "a published resource",
                )
            })
            .collect()
    }

    /// The templates, as `resources/templates/list` gives them.
    pub(crate) fn template_list(&self) -> Result<Vec<ResourceTemplate>, ErrorData> {
        self.templates
            .iter()
            .map(|t| {
                from_json(
                    json!({"uriTemplate": t.uri_template, "name": t.name, "description": t.description, "mimeType": t.mime_type}),
                    "a published resource template",
                )
            })
            .collect()
    }

    /// The prompts, as `prompts/list` gives them.
    pub(crate) fn prompt_list(&self) -> Result<Vec<Prompt>, ErrorData> {
        self.prompts
            .iter()
            .map(|p| {
                let arguments: Vec<Value> = p
                    .arguments
                    .iter()
                    .map(|(name, description, required)| json!({"name": name, "description": description, "required": required}))
                    .collect();
                from_json(
                    json!({"name": p.name, "description": p.description, "arguments": arguments}),
                    "a published prompt",
                )
            })
            .collect()
    }

    /// Reads `uri` when it is published here (`None` otherwise).
    pub(crate) fn read(
        &self,
        uri: &str,
        client: Option<&ClientInput>,
    ) -> Option<Result<Produced<ReadResourceResult>, ErrorData>> {
        if let Some(resource) = self.resources.iter().find(|r| r.uri == uri) {
            let mime = resource.mime_type.clone();
            let produced = match &resource.content {
                PublishedContent::Text(text) => {
                    Ok(Produced::Complete(text_contents(uri, text, mime)))
                }
                PublishedContent::Blob(bytes) => {
                    let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
                    complete(
                        json!({"contents": [{"uri": uri, "mimeType": mime, "blob": blob}]}),
                        "a resource",
                    )
                    .map(Produced::Complete)
                }
                PublishedContent::Handler(handler) => {
                    read_with(handler.as_ref(), &json!({"uri": uri}), uri, mime, client)
                }
            };
            return Some(produced);
        }
        self.templates.iter().find_map(|template| {
            let variables = match_template(&template.uri_template, uri)?;
            let mut input = Map::new();
            input.insert("uri".to_owned(), Value::String(uri.to_owned()));
            for (name, value) in variables {
                input.insert(name, Value::String(value));
            }
            Some(read_with(
                template.handler.as_ref(),
                &Value::Object(input),
                uri,
                template.mime_type.clone(),
                client,
            ))
        })
    }

    /// Gets prompt `name` when it is published here (`None` otherwise).
    pub(crate) fn get_prompt(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        client: Option<&ClientInput>,
    ) -> Option<Result<Produced<GetPromptResult>, ErrorData>> {
        let prompt = self.prompts.iter().find(|p| p.name == name)?;
        if let Some((missing, _, _)) = prompt
            .arguments
            .iter()
            .find(|(arg, _, required)| *required && !arguments.contains_key(arg))
        {
            return Some(Err(ErrorData::invalid_params(
                format!("prompt '{name}' needs the argument '{missing}'"),
                None,
            )));
        }
        let produced = match &prompt.content {
            PublishedContent::Text(text) => {
                let mut text = text.clone();
                for (arg, value) in arguments {
                    let shown = value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_owned);
                    text = text.replace(&format!("${{{arg}}}"), &shown);
                }
                prompt_text(&text, prompt.description.as_deref())
            }
            PublishedContent::Blob(_) => Err(ErrorData::internal_error(
                format!("prompt '{name}' has binary content"),
                None,
            )),
            PublishedContent::Handler(handler) => {
                match produce(handler.as_ref(), &Value::Object(arguments.clone()), client) {
                    Ok(Output::Json(value)) if value.get("messages").is_some() => {
                        let mut value = value;
                        if value.get("description").is_none()
                            && let (Some(map), Some(description)) =
                                (value.as_object_mut(), &prompt.description)
                        {
                            map.insert("description".to_owned(), json!(description));
                        }
                        complete(value, "the prompt's output").map(Produced::Complete)
                    }
                    Ok(Output::InputRequired(asked)) => Ok(Produced::InputRequired(asked)),
                    Ok(Output::Json(value)) => {
                        prompt_text(&value.to_string(), prompt.description.as_deref())
                    }
                    Ok(Output::Text(text)) => prompt_text(&text, prompt.description.as_deref()),
                    Err(e) => Err(e),
                }
            }
        };
        Some(produced)
    }
}

fn text_contents(uri: &str, text: &str, mime: Option<String>) -> ReadResourceResult {
    ReadResourceResult::new(vec![
        rmcp::model::ResourceContents::text(text, uri)
            .with_mime_type(mime.unwrap_or_else(|| "text/plain".to_owned())),
    ])
}

fn prompt_text(
    text: &str,
    description: Option<&str>,
) -> Result<Produced<GetPromptResult>, ErrorData> {
    complete(
        json!({"description": description, "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}),
        "a prompt",
    )
    .map(Produced::Complete)
}

/// A handler's output, read (see the module docs).
enum Output {
    Json(Value),
    InputRequired(InputRequiredResult),
    Text(String),
}

fn produce(
    handler: &dyn ContentHandler,
    input: &Value,
    client: Option<&ClientInput>,
) -> Result<Output, ErrorData> {
    let out = handler
        .produce(input, client)
        .map_err(|e| ErrorData::internal_error(e, None))?;
    let trimmed = out.trim();
    match serde_json::from_str::<Value>(trimmed) {
        Ok(value) if value.get("resultType").and_then(Value::as_str) == Some("input_required") => {
            from_json(value, "the input request").map(Output::InputRequired)
        }
        Ok(value @ Value::Object(_)) => Ok(Output::Json(value)),
        _ => Ok(Output::Text(out.trim_end().to_owned())),
    }
}

fn read_with(
    handler: &dyn ContentHandler,
    input: &Value,
    uri: &str,
    mime: Option<String>,
    client: Option<&ClientInput>,
) -> Result<Produced<ReadResourceResult>, ErrorData> {
    match produce(handler, input, client)? {
        Output::Json(value) if value.get("contents").is_some() => {
            complete(value, "the resource's output").map(Produced::Complete)
        }
        Output::InputRequired(asked) => Ok(Produced::InputRequired(asked)),
        Output::Json(value) => Ok(Produced::Complete(text_contents(
            uri,
            &value.to_string(),
            mime,
        ))),
        Output::Text(text) => Ok(Produced::Complete(text_contents(uri, &text, mime))),
    }
}

/// The variables of `uri` under `template` (`{name}` matches one non-empty path segment
/// without `/`), when it matches.
///
/// ```
/// # use wink_mcp::match_template;
/// assert_eq!(
///     match_template("test://template/{id}/data", "test://template/123/data"),
///     Some(vec![("id".to_owned(), "123".to_owned())])
/// );
/// assert_eq!(match_template("test://template/{id}/data", "test://template/1/2/data"), None);
/// ```
pub fn match_template(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
    let mut variables = Vec::new();
    let mut rest_template = template;
    let mut rest_uri = uri;
    while let Some(open) = rest_template.find('{') {
        let literal = &rest_template[..open];
        rest_uri = rest_uri.strip_prefix(literal)?;
        let close = rest_template[open..].find('}')? + open;
        let name = &rest_template[open + 1..close];
        rest_template = &rest_template[close + 1..];
        let next_literal = rest_template
            .find('{')
            .map_or(rest_template, |at| &rest_template[..at]);
        let end = if next_literal.is_empty() {
            rest_uri.find('/').unwrap_or(rest_uri.len())
        } else {
            rest_uri.find(next_literal)?
        };
        let value = &rest_uri[..end];
        if value.is_empty() || value.contains('/') {
            return None;
        }
        variables.push((name.to_owned(), value.to_owned()));
        rest_uri = &rest_uri[end..];
    }
    (rest_uri == rest_template).then_some(variables)
}
