//! The prompt-file schema (JSON, TOML or YAML): plain serde types, validated strictly (no
//! unknown field, no key given twice: see `strict`). The texts every section has (key, title,
//! params type, template, summary) borrow the file's text where they can (issue 22: most need no
//! copy, and a large file has thousands).

use std::borrow::Cow;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use crate::strict;

/// A whole prompt file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptFile<'a> {
    /// Editor hint (`docs/prompt-file.schema.json`); ignored.
    #[serde(default, rename = "$schema")]
    pub schema: Option<String>,
    /// Namespace.
    pub ns: String,
    /// Key.
    pub key: String,
    /// Optional human-readable name.
    #[serde(default)]
    pub name: Option<String>,
    /// Disclosure mode: `unified` (default), `wink`, `open-sections`, `context-files`.
    #[serde(default)]
    pub disclosure: Option<String>,
    /// Name the tools each summarized section hides in its summary suffix, so the model can call
    /// them directly (the call opens the section). Default false; ignored in `wink` mode.
    #[serde(default)]
    pub name_hidden_tools: Option<bool>,
    /// When the builtin `search_sections` tool is offered: `"auto"` (default: once summaries hide
    /// a dozen sections or more), `"on"`/`true` (while anything is summarized) or `"off"`/`false`.
    #[serde(default)]
    pub search_sections: Option<SearchSectionsSpec>,
    /// How `search_sections` and pre-opening rank sections: `"bm25"` (default) or `"hybrid"` (BM25
    /// re-ranked with the static embedding model).
    #[serde(default)]
    pub search_rerank: Option<String>,
    /// Open this many summarized sections, the most relevant to the input, before the first
    /// model call (`wink run`/`wink eval`; see `wink_agent::preopen`).
    #[serde(default)]
    pub preopen: Option<usize>,
    /// The model profile to run with (`small-local`, `hosted`, `default`; see
    /// `wink_model::profile`), whatever the model's adapter chooses.
    #[serde(default)]
    pub model_profile: Option<String>,
    /// Turn policies switched on (`true`) or off (`false`) over the profile's: policy name →
    /// on (see `wink_agent::turn_policy`).
    #[serde(default, deserialize_with = "strict::map")]
    pub repairs: IndexMap<String, bool>,
    /// Params types: type name → field name → field spec.
    #[serde(default, deserialize_with = "strict::map_of_maps")]
    pub params: IndexMap<String, IndexMap<String, FieldSpec>>,
    /// Root sections.
    #[serde(default, borrow)]
    pub sections: Vec<SectionSpec<'a>>,
    /// Structured output: a JSON schema for an object, or `{"type": "array", "items": {...}}`.
    #[serde(default, deserialize_with = "strict::option_value")]
    pub output: Option<Value>,
    /// Accept extra keys in structured output.
    #[serde(default)]
    pub allow_extra_keys: bool,
    /// Sub-agent prompts: name → prompt file, relative to this file. Each name is the `key` its
    /// file declares; a `subagents` section offering `dispatch_subagent` is appended.
    #[serde(default, deserialize_with = "strict::map")]
    pub subagents: IndexMap<String, String>,
    /// What `wink mcp serve` publishes beside the prompt: resources, resource templates and
    /// prompts.
    #[serde(default)]
    pub mcp: Option<McpSpec>,
}

/// A prompt file's `mcp` block.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSpec {
    /// Resources at fixed URIs.
    #[serde(default)]
    pub resources: Vec<McpResourceSpec>,
    /// Resource templates.
    #[serde(default)]
    pub resource_templates: Vec<McpTemplateSpec>,
    /// Prompts.
    #[serde(default)]
    pub prompts: Vec<McpPromptSpec>,
    /// Offer the builtin `ask_user` tool: the client's model asks the person at the client
    /// (elicitation).
    #[serde(default)]
    pub ask_user: bool,
}

/// A published resource: exactly one of `text`, `file` (relative to the prompt file; its bytes)
/// or `handler` (a command's output).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpResourceSpec {
    /// The URI.
    pub uri: String,
    /// Its name (default: the URI).
    #[serde(default)]
    pub name: Option<String>,
    /// What it is.
    #[serde(default)]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default)]
    pub mime_type: Option<String>,
    /// Fixed text.
    #[serde(default)]
    pub text: Option<String>,
    /// A file whose bytes are the content.
    #[serde(default)]
    pub file: Option<String>,
    /// A command whose output is the content (it gets `{"uri": ...}` on stdin).
    #[serde(default)]
    pub handler: Option<HandlerSpec>,
}

/// A published resource template.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpTemplateSpec {
    /// The URI template: `{name}` matches one path segment.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(default)]
    pub description: Option<String>,
    /// The MIME type of its resources.
    #[serde(default)]
    pub mime_type: Option<String>,
    /// A command producing a resource (it gets `{"uri": ..., <name>: <value>, ...}` on stdin).
    pub handler: HandlerSpec,
}

/// A published prompt: `text` (one user message, `${argument}` replaced) or `handler`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpPromptSpec {
    /// Its name.
    pub name: String,
    /// What it is for.
    #[serde(default)]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Vec<McpArgumentSpec>,
    /// Fixed text.
    #[serde(default)]
    pub text: Option<String>,
    /// A command producing the prompt (it gets the arguments on stdin).
    #[serde(default)]
    pub handler: Option<HandlerSpec>,
}

/// A published prompt's argument.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpArgumentSpec {
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(default)]
    pub description: Option<String>,
    /// Whether it must be given (default false).
    #[serde(default)]
    pub required: bool,
}

/// `search_sections`: a setting's name or a boolean.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SearchSectionsSpec {
    /// `true` (on) or `false` (off).
    Flag(bool),
    /// `auto`, `on` or `off`.
    Name(String),
}

/// One params field.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// JSON type: string, integer, number, boolean, array, object, any.
    #[serde(rename = "type")]
    pub field_type: String,
    /// Default value.
    #[serde(default, deserialize_with = "strict::option_value")]
    pub default: Option<Value>,
    /// Documentation.
    #[serde(default)]
    pub description: Option<String>,
}

/// `enabled`: a constant or the name of a boolean params field.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum EnabledSpec {
    /// Constant.
    Constant(bool),
    /// Field name.
    Field(String),
}

/// One section.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionSpec<'a> {
    /// Key.
    #[serde(borrow)]
    pub key: Cow<'a, str>,
    /// Heading title.
    #[serde(borrow)]
    pub title: Cow<'a, str>,
    /// Params type name.
    #[serde(default, borrow, deserialize_with = "strict::option_text")]
    pub params: Option<Cow<'a, str>>,
    /// Body template.
    #[serde(default, borrow, deserialize_with = "strict::option_text")]
    pub template: Option<Cow<'a, str>>,
    /// Default params values.
    #[serde(default, deserialize_with = "strict::option_value")]
    pub defaults: Option<Value>,
    /// Summary template.
    #[serde(default, borrow, deserialize_with = "strict::option_text")]
    pub summary: Option<Cow<'a, str>>,
    /// `full` (default) or `summary`.
    #[serde(default)]
    pub visibility: Option<String>,
    /// Custom summary suffix.
    #[serde(default)]
    pub summary_suffix: Option<String>,
    /// `enabled`.
    #[serde(default)]
    pub enabled: Option<EnabledSpec>,
    /// Tools.
    #[serde(default)]
    pub tools: Vec<ToolDecl>,
    /// Children.
    #[serde(default, borrow)]
    pub children: Vec<SectionSpec<'a>>,
    /// A builtin section kind instead of a template (`workspace`).
    #[serde(default)]
    pub builtin: Option<String>,
    /// Root folder for the `workspace` builtin (relative to the prompt file).
    #[serde(default)]
    pub root: Option<String>,
    /// For the `catalog` builtin: a JSON tool list (OpenAI, MCP or LiveMCP format) relative to the
    /// prompt file, whose tools join the section's own `tools`.
    #[serde(default)]
    pub catalog: Option<String>,
    /// For the `catalog` builtin: `grouped` (default), `per-tool`, `per-namespace`, `namespaces-only`.
    #[serde(default)]
    pub listing: Option<String>,
    /// For the `skills` builtin: folders of Agent Skills (each child folder with a `SKILL.md`),
    /// relative to the prompt file.
    #[serde(default)]
    pub dirs: Option<Vec<String>>,
    /// For the `catalog` builtin: how `find_tool` ranks — `bm25` (default) or `hybrid` (BM25
    /// re-ranked with the static embedding model from the wink cache, or `$WINK_EMBED_MODEL`).
    #[serde(default)]
    pub rerank: Option<String>,
    /// For the `catalog` builtin: MCP servers whose tools join the catalog as `name.tool`.
    #[serde(default, deserialize_with = "strict::map")]
    pub servers: IndexMap<String, ServerEntry>,
    /// For the `catalog` builtin: `auto`, `auto:N`, `always` (default) or `never` — when the
    /// catalog is listed one line per tool with the meta-tools instead of offered in full.
    #[serde(default)]
    pub defer: Option<String>,
}

/// An MCP server of a catalog section: `command` (stdio) or `url` (streamable HTTP).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerEntry {
    /// Program and arguments (stdio); a relative program path is resolved against the prompt
    /// file's folder.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// Extra environment variables (stdio); values may reference `${VAR}`.
    #[serde(default, deserialize_with = "strict::map")]
    pub env: IndexMap<String, String>,
    /// Working directory relative to the prompt file (stdio; default: the prompt file's folder).
    #[serde(default)]
    pub cwd: Option<String>,
    /// The endpoint of a streamable HTTP server.
    #[serde(default)]
    pub url: Option<String>,
    /// HTTP header → the environment variable holding its value.
    #[serde(default, deserialize_with = "strict::map")]
    pub headers_env: IndexMap<String, String>,
    /// Seconds a call may wait for the server's answer (default 120; a run's earlier deadline
    /// still applies).
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Only these tools of the server are offered (its own names).
    #[serde(default)]
    pub enabled_tools: Option<Vec<String>>,
    /// These tools of the server are left out.
    #[serde(default)]
    pub disabled_tools: Vec<String>,
    /// How a `url` server's client logs in (OAuth 2.1); every key optional, absent means
    /// discover the authorization server and register a client.
    #[serde(default)]
    pub oauth: Option<OAuthEntry>,
}

/// A server's `oauth` block.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthEntry {
    /// A pre-registered client id.
    #[serde(default)]
    pub client_id: Option<String>,
    /// The environment variable holding the client secret.
    #[serde(default)]
    pub client_secret_env: Option<String>,
    /// For `private_key_jwt`: the environment variable holding the PEM private key.
    #[serde(default)]
    pub private_key_env: Option<String>,
    /// For `private_key_jwt`: the PEM private key's file (relative to the prompt file's folder).
    #[serde(default)]
    pub private_key_file: Option<String>,
    /// The scopes to ask for.
    #[serde(default)]
    pub scopes: Option<Vec<String>>,
    /// `authorization_code` (default) or `client_credentials`.
    #[serde(default)]
    pub grant: Option<String>,
    /// `client_secret_basic`, `client_secret_post`, `none` or `private_key_jwt`.
    #[serde(default)]
    pub token_endpoint_auth: Option<String>,
    /// A Client ID Metadata Document URL (https) to use as the client id where supported.
    #[serde(default)]
    pub client_metadata_url: Option<String>,
}

/// One tool as a prompt file declares it (name, description, schema, examples, handler); the
/// converter turns it into a `wink_core::ToolRef`. Not the model contract's `wink_model::ToolSpec`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolDecl {
    /// Name (dots allowed for namespaces).
    pub name: String,
    /// Description (1–200 ASCII characters).
    pub description: String,
    /// JSON Schema of the arguments (default: no arguments).
    #[serde(default, deserialize_with = "strict::option_value")]
    pub parameters: Option<Value>,
    /// Examples shown in the prompt.
    #[serde(default)]
    pub examples: Vec<ExampleSpec>,
    /// How the tool runs.
    #[serde(default)]
    pub handler: Option<HandlerSpec>,
    /// A successful call ends the run with its result (`ToolBuilder::terminal`).
    #[serde(default)]
    pub terminal: bool,
    /// Run its MCP calls as tasks (the MCP Tasks extension): `optional` — as a task for clients
    /// that negotiate the extension, synchronously for others; `required` — clients without the
    /// extension get `-32021`. A task's call returns at once; the client polls for the result
    /// and may cancel it.
    #[serde(default)]
    pub task: Option<String>,
    /// Where a task tool asks for input: `during` (default) — in the task (`tasks/get` shows
    /// the requests, `tasks/update` answers); `before` — on the call, before the task exists
    /// (the call that brings the answers starts the task).
    #[serde(default)]
    pub task_input: Option<String>,
}

/// A tool example.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExampleSpec {
    /// What it shows.
    pub description: String,
    /// Arguments.
    #[serde(default, deserialize_with = "strict::value")]
    pub input: Value,
    /// Output: a string, or a JSON value rendered like a tool result.
    #[serde(default, deserialize_with = "strict::value")]
    pub output: Value,
}

/// A command handler.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandlerSpec {
    /// Program and arguments; a relative program path is resolved against the prompt file's folder.
    pub command: Vec<String>,
    /// Seconds before the process is killed (default 30).
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Working directory relative to the prompt file (default: the prompt file's folder).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Extra environment variables.
    #[serde(default, deserialize_with = "strict::map")]
    pub env: IndexMap<String, String>,
    /// Cap on stdout bytes (default 1 MiB).
    #[serde(default)]
    pub max_output_bytes: Option<usize>,
}
