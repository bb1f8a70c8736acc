//! # wink-promptfile
//!
//! Prompts described in files — JSON, TOML or YAML, chosen by extension, one schema (see
//! `docs/prompt-files.md` and `docs/prompt-file.schema.json`). This is how the CLI, the MCP
//! server and non-Rust users define agents.
//!
//! ```
//! use wink_core::Prompt;
//! let file = r#"{"ns": "demo", "key": "pd",
//!   "params": {"TaskParams": {"objective": {"type": "string"}}},
//!   "sections": [{"key": "task", "title": "Task", "params": "TaskParams", "template": "Do: ${objective}"}]}"#;
//! let loaded = wink_promptfile::load_str(file, wink_promptfile::FileFormat::Json, std::path::Path::new("."), "inline.json").unwrap();
//! let text = Prompt::new(loaded.template).bind_json("TaskParams", serde_json::json!({"objective": "fix bug"})).render().unwrap().text;
//! assert_eq!(text, "## 1. Task (task)\n\nDo: fix bug");
//! ```

mod command;
mod convert;
mod document;
mod model;
mod published;
mod servers;
mod strict;
mod subagents;

/// `docs/llms.md`: its Rust examples run as doctests of this crate (it depends on everything
/// they use); `tests/llms_doc.rs` loads its prompt files and scripts.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/llms.md")]
pub struct LlmsDoc;

/// `docs/tutorial.md`: its Rust step runs as a doctest of this crate; its shell steps are run by
/// `crates/wink-cli/tests/doc_pages.rs`.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/tutorial.md")]
pub struct TutorialDoc;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use wink_core::{
    DisclosureMode, FieldType, MarkdownSection, OutputSpec, ParamField, ParamsType, PromptError,
    PromptTemplate, SearchSections, SectionPath, SectionRef, SectionVisibility, ToolBuilder,
    ToolContext, ToolError, ToolRef, render_json_payload,
};

pub use command::{
    CALL_ID_VARIABLE, CommandHandler, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, DeadlinePassed,
    INPUT_RESPONSES_VARIABLE, MARKER_VARIABLE, REQUEST_STATE_VARIABLE, SESSION_ID_VARIABLE,
    kill_running_commands, parse_stdout,
};
pub use document::MAX_NESTING;
pub use model::{
    EnabledSpec, ExampleSpec, FieldSpec, HandlerSpec, PromptFile, SearchSectionsSpec, SectionSpec,
    ServerEntry, ToolDecl,
};

use convert::*;

/// Names a file's own tools may not take: the builtin tools wink adds to a rendered prompt
/// (disclosure, tool catalogs, sub-agents). A clash would offer two tools of one name.
pub const RESERVED_TOOL_NAMES: [&str; 7] = [
    wink_core::READ_SECTION,
    wink_core::OPEN_SECTIONS,
    wink_core::SEARCH_SECTIONS,
    wink_catalog::TOOL_LIST,
    wink_catalog::TOOL_DESCRIBE,
    wink_catalog::FIND_TOOL,
    wink_agent::DISPATCH_SUBAGENT,
];

/// The format of a prompt file.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// `.json`
    Json,
    /// `.toml`
    Toml,
    /// `.yaml` / `.yml`
    Yaml,
}

impl FileFormat {
    /// The format for a path's extension.
    pub fn from_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Self::Json),
            "toml" => Some(Self::Toml),
            "yaml" | "yml" => Some(Self::Yaml),
            _ => None,
        }
    }
}

/// Why a prompt file could not be loaded. `Display` names the file, where in it, and what.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum PromptFileError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// Unknown extension.
    #[error("{path}: unsupported prompt file extension (use .json, .toml, .yaml or .yml)")]
    UnsupportedFormat {
        /// File.
        path: String,
    },
    /// Not valid JSON/TOML/YAML.
    #[error("{path}:{line}:{column}: syntax error: {message}")]
    Syntax {
        /// File.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// Parser message.
        message: String,
    },
    /// Valid syntax, wrong content.
    #[error("{path}: {key_path}: {message}")]
    Invalid {
        /// File.
        path: String,
        /// Where in the document (`sections[0].tools[1].name`).
        key_path: String,
        /// What is wrong.
        message: String,
    },
}

/// A loaded prompt file.
#[derive(Debug, Clone)]
pub struct LoadedPrompt {
    /// The template.
    pub template: Arc<PromptTemplate>,
    /// The file's folder (relative paths in the file resolve against it).
    pub base_dir: PathBuf,
    /// The filesystem of the `builtin: workspace` section, if the file has one (put it in the
    /// tool resources as `Arc<dyn wink_fs::Filesystem>`).
    pub filesystem: Option<Arc<dyn wink_fs::Filesystem>>,
    /// Where that workspace lives on disk.
    pub workspace_root: Option<PathBuf>,
    /// The file's `preopen`: how many summarized sections to open before the first model call.
    pub preopen: Option<usize>,
    /// The file's `model_profile`: the model profile to run with, by name.
    pub model_profile: Option<String>,
    /// The file's `repairs`: turn policies switched on or off over the profile's.
    pub repairs: std::collections::BTreeMap<String, bool>,
    /// The `subagents` section the file's `subagents` registry added (its tool is
    /// `dispatch_subagent`). A dispatch needs a model: put an `Arc<dyn ProviderAdapter>` (or a
    /// `wink_agent::SubagentAdapter`) in the tool resources, and a `wink_agent::BudgetTracker` to
    /// share the run's budget with the children.
    pub subagents: Option<wink_agent::PromptSubagentToolsSection>,
    /// The skills of the file's `builtin: skills` sections, in order (`wink mcp serve` offers
    /// them through the MCP Skills extension).
    pub skills: Vec<Arc<wink_skills::Skill>>,
    /// The file's `builtin: catalog` sections, for their deferral decision
    /// ([`wink_catalog::ToolCatalogSection::decide`]) and their MCP servers.
    pub catalogs: Vec<Arc<wink_catalog::ToolCatalogSection>>,
    /// The file's `mcp` block: the resources, resource templates and prompts `wink mcp serve`
    /// publishes beside the prompt (empty without one).
    pub published: wink_mcp::Published,
    /// The tools declared with `task` (whether a task is required, where input is asked for):
    /// `wink mcp serve` runs their calls as MCP tasks for clients that negotiate the Tasks
    /// extension.
    pub task_tools: Vec<wink_mcp::TaskTool>,
}

/// A prompt file's text, its format (by extension), its folder and its path as shown.
fn read_file(path: &Path) -> Result<(String, FileFormat, PathBuf, String), PromptFileError> {
    let shown = path.display().to_string();
    let format = FileFormat::from_path(path).ok_or_else(|| PromptFileError::UnsupportedFormat {
        path: shown.clone(),
    })?;
    let text = std::fs::read_to_string(path).map_err(|source| PromptFileError::Io {
        path: shown.clone(),
        source,
    })?;
    let base = path
        .parent()
        .map(Path::to_path_buf)
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from("."));
    Ok((text, format, base, shown))
}

/// Load a prompt file (format by extension).
pub fn load(path: &Path) -> Result<LoadedPrompt, PromptFileError> {
    let (text, format, base, shown) = read_file(path)?;
    load_str(&text, format, &base, &shown)
}

/// How to reach the MCP server `name` of the prompt file at `path` (an entry of a catalog
/// section's `servers`), checked, without loading the prompt or starting anything: what
/// `wink mcp login` and `wink mcp logout` need.
pub fn server_spec(path: &Path, name: &str) -> Result<wink_mcp::ServerSpec, PromptFileError> {
    let (text, format, base, shown) = read_file(path)?;
    let file = parse_file(&text, format, &shown)?;
    let converter = Converter {
        origin: &shown,
        base_dir: &base,
        workspace: None,
        skills: Vec::new(),
        catalogs: Vec::new(),
        last_params_type: None,
    };
    let mut names = Vec::new();
    let mut stack: Vec<(String, &SectionSpec<'_>)> = file
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("sections[{i}]"), s))
        .collect();
    while let Some((at, section)) = stack.pop() {
        if let Some(entry) = section.servers.get(name) {
            return converter.server_spec(name, entry, &format!("{at}.servers.{name}"));
        }
        names.extend(section.servers.keys().cloned());
        stack.extend(
            section
                .children
                .iter()
                .enumerate()
                .map(|(i, c)| (format!("{at}.children[{i}]"), c)),
        );
    }
    names.sort();
    Err(converter.invalid(
        "sections",
        format!(
            "no catalog section names an MCP server `{name}` (servers: {})",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        ),
    ))
}

/// Load a prompt from text. `origin` names it in errors; `base_dir` resolves relative paths.
pub fn load_str(
    text: &str,
    format: FileFormat,
    base_dir: &Path,
    origin: &str,
) -> Result<LoadedPrompt, PromptFileError> {
    let file = parse_file(text, format, origin)?;
    convert_file(file, base_dir, origin)
}

/// Parse and check the shape of a prompt file (nothing is built yet).
fn parse_file<'t>(
    text: &'t str,
    format: FileFormat,
    origin: &str,
) -> Result<PromptFile<'t>, PromptFileError> {
    if format == FileFormat::Json
        && let Some(file) = parse_json_once(text)
    {
        return Ok(file);
    }
    parse_in_two_passes(text, format, origin)
}

/// [`parse_file`] by way of a JSON value: for every format, and for the errors of JSON files.
fn parse_in_two_passes(
    text: &str,
    format: FileFormat,
    origin: &str,
) -> Result<PromptFile<'static>, PromptFileError> {
    let value = document::parse_document(text, format, origin)?;
    // Fast path without key-path tracking; a file that does not fit is read again with it, for
    // the error's key path (issue 22: the tracking was a sixth of loading a large file). The
    // model takes the value's texts (it cannot borrow from a value that goes away here).
    if let Ok(file) = PromptFile::deserialize(value.clone()) {
        return Ok(file);
    }
    serde_path_to_error::deserialize(value).map_err(|e| PromptFileError::Invalid {
        path: origin.to_owned(),
        key_path: display_key_path(&e.path().to_string()),
        message: e.inner().to_string(),
    })
}

/// A JSON prompt file read in one pass, straight into the model (issue 22: building a JSON value
/// first, then the model from it, was a third of loading a large file). `None` for any problem,
/// which the two passes of [`parse_file`] then report with its place (line and column, key path):
/// they accept exactly the texts this accepts, and build the same model (`strict`).
fn parse_json_once(text: &str) -> Option<PromptFile<'_>> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let file = PromptFile::deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(file)
}

fn convert_file(
    file: PromptFile<'_>,
    base_dir: &Path,
    origin: &str,
) -> Result<LoadedPrompt, PromptFileError> {
    Converter {
        origin,
        base_dir,
        workspace: None,
        skills: Vec::new(),
        catalogs: Vec::new(),
        last_params_type: None,
    }
    .convert(file)
}

fn display_key_path(path: &str) -> String {
    if path.is_empty() || path == "." {
        "(document)".to_owned()
    } else {
        path.to_owned()
    }
}
