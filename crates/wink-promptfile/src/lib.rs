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
mod document;
mod model;
mod servers;
mod subagents;

/// `docs/llms.md`: its Rust examples run as doctests of this crate (it depends on everything
/// they use); `tests/llms_doc.rs` loads its prompt files and scripts.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/llms.md")]
pub struct LlmsDoc;

/// `docs/tutorial.md`: its Rust step runs as a doctest of this crate; its shell steps are run by
/// `crates/wink-cli/tests/tutorial.rs`.
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
    PromptTemplate, SectionPath, SectionRef, SectionVisibility, ToolBuilder, ToolContext,
    ToolError, ToolRef, render_json_payload,
};

pub use command::{
    CALL_ID_VARIABLE, CommandHandler, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, MARKER_VARIABLE,
    SESSION_ID_VARIABLE, kill_running_commands, parse_stdout,
};
pub use document::MAX_NESTING;
pub use model::{
    EnabledSpec, ExampleSpec, FieldSpec, HandlerSpec, PromptFile, SectionSpec, ServerEntry,
    ToolSpec,
};

/// Names a file's own tools may not take: the builtin tools wink adds to a rendered prompt
/// (disclosure, tool catalogs, sub-agents). A clash would offer two tools of one name.
pub const RESERVED_TOOL_NAMES: [&str; 6] = [
    wink_core::READ_SECTION,
    wink_core::OPEN_SECTIONS,
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
}

/// Load a prompt file (format by extension).
pub fn load(path: &Path) -> Result<LoadedPrompt, PromptFileError> {
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
    load_str(&text, format, &base, &shown)
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
fn parse_file(text: &str, format: FileFormat, origin: &str) -> Result<PromptFile, PromptFileError> {
    let value = document::parse_document(text, format, origin)?;
    // Fast path without key-path tracking; a file that does not fit is read again with it, for
    // the error's key path (issue 22: the tracking was a sixth of loading a large file).
    if let Ok(file) = PromptFile::deserialize(&value) {
        return Ok(file);
    }
    serde_path_to_error::deserialize(value).map_err(|e| PromptFileError::Invalid {
        path: origin.to_owned(),
        key_path: display_key_path(&e.path().to_string()),
        message: e.inner().to_string(),
    })
}

fn convert_file(
    file: PromptFile,
    base_dir: &Path,
    origin: &str,
) -> Result<LoadedPrompt, PromptFileError> {
    Converter {
        origin,
        base_dir,
        json_paths: HashMap::new(),
        workspace: None,
        skills: Vec::new(),
        catalogs: Vec::new(),
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

struct Converter<'a> {
    origin: &'a str,
    base_dir: &'a Path,
    /// Dotted section path → location in the document.
    json_paths: HashMap<String, String>,
    workspace: Option<(PathBuf, Arc<dyn wink_fs::Filesystem>)>,
    skills: Vec<Arc<wink_skills::Skill>>,
    catalogs: Vec<Arc<wink_catalog::ToolCatalogSection>>,
}

impl Converter<'_> {
    fn invalid(&self, key_path: impl Into<String>, message: impl fmt::Display) -> PromptFileError {
        PromptFileError::Invalid {
            path: self.origin.to_owned(),
            key_path: key_path.into(),
            message: message.to_string(),
        }
    }

    /// A template error at the key path of its section: `sections` for a section the file does not
    /// name directly, the document itself for an error outside every section.
    fn prompt_error(&self, error: &PromptError) -> PromptFileError {
        let key_path = match error.section_path() {
            Some(path) => self
                .json_paths
                .get(&path.dotted())
                .cloned()
                .unwrap_or_else(|| "sections".to_owned()),
            None => display_key_path(""),
        };
        self.invalid(key_path, error)
    }

    /// Validates `ns` and `key` one at a time (wink-core owns the rules and WINK's messages), so that
    /// an error names the field it is about rather than the whole template.
    fn check_identity(&self, file: &PromptFile) -> Result<(), PromptFileError> {
        let alone = [
            ("ns", PromptTemplate::builder(file.ns.clone(), "key")),
            ("key", PromptTemplate::builder("ns", file.key.clone())),
        ];
        for (field, bare) in alone {
            bare.build().map_err(|error| self.invalid(field, error))?;
        }
        Ok(())
    }

    fn convert(mut self, file: PromptFile) -> Result<LoadedPrompt, PromptFileError> {
        self.check_identity(&file)?;
        let mut types: HashMap<String, ParamsType> = HashMap::new();
        for (type_name, fields) in &file.params {
            let mut params = Vec::new();
            for (field, spec) in fields {
                let at = format!("params.{type_name}.{field}");
                let field_type = FieldType::from_name(&spec.field_type).ok_or_else(|| {
                    self.invalid(format!("{at}.type"), format!("unknown field type '{}' (expected string, integer, number, boolean, array, object or any)", spec.field_type))
                })?;
                if let Some(default) = &spec.default
                    && !default.is_null()
                    && !field_type.accepts(default)
                {
                    return Err(self.invalid(
                        format!("{at}.default"),
                        format!("default must be of type {}", field_type.name()),
                    ));
                }
                params.push(ParamField {
                    name: field.clone(),
                    field_type,
                    default: spec.default.clone(),
                });
            }
            types.insert(
                type_name.clone(),
                ParamsType::named(type_name.clone(), params),
            );
        }
        let disclosure = match &file.disclosure {
            None => DisclosureMode::default(),
            Some(mode) => mode
                .parse::<DisclosureMode>()
                .map_err(|e| self.invalid("disclosure", e))?,
        };
        let mut builder = PromptTemplate::builder(file.ns.clone(), file.key.clone())
            .disclosure(disclosure)
            .name_hidden_tools(file.name_hidden_tools.unwrap_or(false));
        if let Some(name) = &file.name {
            builder = builder.name(name.clone());
        }
        let mut roots = Vec::new();
        for (i, spec) in file.sections.iter().enumerate() {
            let section = self.section(spec, &format!("sections[{i}]"), None, &types)?;
            roots.push(Arc::clone(&section));
            builder = builder.section_ref(section);
        }
        let subagents = if file.subagents.is_empty() {
            None
        } else {
            let section = self.subagents(&file.subagents, &roots)?;
            builder = builder.section(section.clone());
            Some(section)
        };
        if let Some(output) = &file.output {
            builder = builder.output_spec(self.output(output, &file)?);
        }
        let template = builder.build().map_err(|e| self.prompt_error(&e))?;
        let (workspace_root, filesystem) = match self.workspace {
            Some((root, fs)) => (Some(root), Some(fs)),
            None => (None, None),
        };
        Ok(LoadedPrompt {
            template: Arc::new(template),
            base_dir: self.base_dir.to_path_buf(),
            filesystem,
            workspace_root,
            preopen: file.preopen,
            subagents,
            skills: self.skills,
            catalogs: self.catalogs,
        })
    }

    fn output(&self, output: &Value, file: &PromptFile) -> Result<OutputSpec, PromptFileError> {
        let Value::Object(obj) = output else {
            return Err(self.invalid("output", "output must be a JSON Schema object"));
        };
        let name = file.name.clone().unwrap_or_else(|| file.key.clone());
        let (container, schema) = if obj.get("type").and_then(Value::as_str) == Some("array") {
            let items = obj.get("items").cloned().ok_or_else(|| {
                self.invalid("output.items", "an array output needs an `items` schema")
            })?;
            (wink_schema::OutputContainer::Array, items)
        } else {
            (wink_schema::OutputContainer::Object, output.clone())
        };
        if !schema.is_object() {
            return Err(self.invalid("output", "output schema must be an object"));
        }
        wink_schema::check_schema(output).map_err(|problem| self.invalid("output", problem))?;
        Ok(OutputSpec {
            name,
            schema,
            container,
            allow_extra_keys: file.allow_extra_keys,
        })
    }

    fn section(
        &mut self,
        spec: &SectionSpec,
        at: &str,
        parent: Option<&str>,
        types: &HashMap<String, ParamsType>,
    ) -> Result<SectionRef, PromptFileError> {
        let normalized = spec.key.trim().to_lowercase();
        let dotted = match parent {
            Some(p) => format!("{p}.{normalized}"),
            None => normalized.clone(),
        };
        self.json_paths.insert(dotted.clone(), at.to_owned());
        if let Some(builtin) = &spec.builtin {
            return self.builtin(spec, builtin, at, parent);
        }
        let mut section = MarkdownSection::new(
            spec.title.clone(),
            spec.key.clone(),
            spec.template.as_deref().unwrap_or(""),
        );
        let params_type = match &spec.params {
            Some(name) => {
                let ty = types.get(name).cloned().ok_or_else(|| {
                    let mut known: Vec<&str> = types.keys().map(String::as_str).collect();
                    known.sort_unstable();
                    self.invalid(
                        format!("{at}.params"),
                        format!(
                            "unknown params type '{name}' (declared: {})",
                            if known.is_empty() {
                                "none".to_owned()
                            } else {
                                known.join(", ")
                            }
                        ),
                    )
                })?;
                section = section.params_type(ty.clone());
                Some(ty)
            }
            None => None,
        };
        if let Some(defaults) = &spec.defaults {
            if params_type.is_none() {
                return Err(self.invalid(
                    format!("{at}.defaults"),
                    "a section without `params` cannot have defaults",
                ));
            }
            section = section.default_json(defaults.clone());
        }
        if let Some(summary) = &spec.summary {
            section = section.summary(summary);
        }
        match spec.visibility.as_deref() {
            None | Some("full") => {}
            Some("summary") if spec.summary.is_none() => {
                // WINK reports this when rendering (wink-core's `effective_visibility`); a file's
                // visibility is a constant, so the file is wrong whatever the params: say so now.
                let path = SectionPath::new(dotted.split('.').map(str::to_owned).collect());
                let error = PromptError::missing_summary(&normalized, &path);
                return Err(self.invalid(format!("{at}.visibility"), error));
            }
            Some("summary") => section = section.visibility(SectionVisibility::Summary),
            Some(other) => {
                return Err(self.invalid(
                    format!("{at}.visibility"),
                    format!("visibility must be \"full\" or \"summary\", not \"{other}\""),
                ));
            }
        }
        if let Some(suffix) = &spec.summary_suffix {
            section = section.summary_suffix(suffix.clone());
        }
        match &spec.enabled {
            None => {}
            Some(EnabledSpec::Constant(b)) => section = section.enabled(*b),
            Some(EnabledSpec::Field(field)) => {
                let ok = params_type
                    .as_ref()
                    .and_then(|t| t.fields().iter().find(|f| &f.name == field))
                    .is_some_and(|f| f.field_type == FieldType::Boolean);
                if !ok {
                    return Err(self.invalid(format!("{at}.enabled"), format!("`enabled` must be a boolean or the name of a boolean field of the section's params type; '{field}' is not")));
                }
                section = section.enabled_if_field(field.clone());
            }
        }
        for (i, tool) in spec.tools.iter().enumerate() {
            let tool_at = format!("{at}.tools[{i}]");
            section = section.tool(self.tool(tool, &tool_at)?);
        }
        for (i, child) in spec.children.iter().enumerate() {
            let child =
                self.section(child, &format!("{at}.children[{i}]"), Some(&dotted), types)?;
            section = section.child_ref(child);
        }
        Ok(Arc::new(section))
    }

    fn catalog_section(
        &mut self,
        spec: &SectionSpec,
        at: &str,
        parent: Option<&str>,
    ) -> Result<SectionRef, PromptFileError> {
        let extra = [
            ("params", spec.params.is_some()),
            ("template", spec.template.is_some()),
            ("children", !spec.children.is_empty()),
            ("root", spec.root.is_some()),
            ("dirs", spec.dirs.is_some()),
        ];
        self.reject_fields(at, &extra, "a builtin catalog section takes key, title, tools, catalog, servers, defer, listing, rerank and summary")?;
        let mut tools = Vec::with_capacity(spec.tools.len());
        for (i, tool) in spec.tools.iter().enumerate() {
            tools.push(self.tool(tool, &format!("{at}.tools[{i}]"))?);
        }
        let file = match &spec.catalog {
            Some(file) => {
                let path = self.base_dir.join(file);
                Some(
                    wink_catalog::load_catalog_file(&path)
                        .map_err(|e| self.invalid(format!("{at}.catalog"), e))?,
                )
            }
            None => None,
        };
        let rerank = match spec.rerank.as_deref() {
            None | Some("bm25") => None,
            Some("hybrid") => Some(self.embedding_model(at)?),
            Some(other) => {
                return Err(self.invalid(
                    format!("{at}.rerank"),
                    format!("unknown rerank '{other}' (bm25, hybrid)"),
                ));
            }
        };
        let defer = match &spec.defer {
            None => wink_catalog::DeferPolicy::default(),
            Some(text) => text
                .parse::<wink_catalog::DeferPolicy>()
                .map_err(|e| self.invalid(format!("{at}.defer"), e))?,
        };
        let base = move || {
            let mut builder = wink_catalog::Catalog::builder().tools(tools.clone());
            if let Some(file) = &file {
                builder = builder.file(file.clone());
            }
            if let Some(model) = &rerank {
                builder = builder.rerank_with(Arc::clone(model));
            }
            builder
        };
        let listing = match spec.listing.as_deref() {
            Some("per-tool") => wink_catalog::CatalogListing::PerTool,
            None | Some("grouped") => wink_catalog::CatalogListing::Grouped,
            Some("per-namespace") => wink_catalog::CatalogListing::PerNamespace,
            Some("namespaces-only") => wink_catalog::CatalogListing::NamespacesOnly,
            Some(other) => {
                return Err(self.invalid(format!("{at}.listing"), format!("unknown listing '{other}' (per-tool, grouped, per-namespace, namespaces-only)")));
            }
        };
        let path = builtin_path(&spec.key, parent);
        let mut section = if spec.servers.is_empty() {
            let catalog = base().build().map_err(|e| self.invalid(at, e))?;
            wink_catalog::ToolCatalogSection::new(spec.title.clone(), spec.key.clone(), catalog)
        } else {
            let servers = self.servers(spec, at)?;
            let servers = wink_catalog::ServerCatalog::new(base, servers);
            wink_catalog::ToolCatalogSection::with_servers(
                spec.title.clone(),
                spec.key.clone(),
                Arc::new(servers),
            )
            .map_err(|e| self.invalid(format!("{at}.servers"), e))?
        }
        .listing(listing)
        .at_path(path)
        .defer(defer);
        if let Some(summary) = &spec.summary {
            section = section.summary(summary.clone());
        }
        let section = Arc::new(section);
        self.catalogs.push(Arc::clone(&section));
        Ok(section)
    }

    fn skills_section(
        &mut self,
        spec: &SectionSpec,
        at: &str,
        parent: Option<&str>,
    ) -> Result<SectionRef, PromptFileError> {
        let extra = [
            ("params", spec.params.is_some()),
            ("template", spec.template.is_some()),
            ("summary", spec.summary.is_some()),
            ("tools", !spec.tools.is_empty()),
            ("children", !spec.children.is_empty()),
            ("visibility", spec.visibility.is_some()),
            ("enabled", spec.enabled.is_some()),
            ("defaults", spec.defaults.is_some()),
            ("root", spec.root.is_some()),
            ("catalog", spec.catalog.is_some()),
        ];
        self.reject_fields(
            at,
            &extra,
            "a builtin skills section takes only key, title and dirs",
        )?;
        let dirs: Vec<PathBuf> = match &spec.dirs {
            Some(dirs) if !dirs.is_empty() => dirs.iter().map(|d| self.base_dir.join(d)).collect(),
            _ => {
                return Err(self.invalid(
                    format!("{at}.dirs"),
                    "a skills section needs `dirs`, folders of skills relative to the prompt file",
                ));
            }
        };
        let skills =
            wink_skills::load_skills(&dirs).map_err(|e| self.invalid(format!("{at}.dirs"), e))?;
        let path = builtin_path(&spec.key, parent);
        let section = wink_skills::SkillsSection::new(spec.title.clone(), spec.key.clone(), skills)
            .map_err(|e| self.invalid(format!("{at}.dirs"), e))?
            .at_path(path);
        self.skills.extend(section.skills().iter().cloned());
        Ok(Arc::new(section))
    }

    /// The first field of `fields` that is set, as an error at `{at}.{field}` saying what the
    /// builtin section takes (`message`).
    fn reject_fields(
        &self,
        at: &str,
        fields: &[(&str, bool)],
        message: &str,
    ) -> Result<(), PromptFileError> {
        match fields.iter().find(|(_, set)| *set) {
            Some((field, _)) => Err(self.invalid(format!("{at}.{field}"), message)),
            None => Ok(()),
        }
    }

    /// The static embedding model for `rerank: hybrid`: `$WINK_EMBED_MODEL`, else the wink cache.
    fn embedding_model(&self, at: &str) -> Result<Arc<wink_embed::StaticModel>, PromptFileError> {
        let dir = wink_embed::StaticModel::configured_dir().ok_or_else(|| {
            self.invalid(
                format!("{at}.rerank"),
                "no cache directory for the embedding model: set WINK_HOME or WINK_EMBED_MODEL",
            )
        })?;
        let model = wink_embed::StaticModel::load(&dir).map_err(|e| {
            self.invalid(
                format!("{at}.rerank"),
                format!("{e} (fetch it with `bash scripts/fetch-embeddings.sh`)"),
            )
        })?;
        Ok(Arc::new(model))
    }

    fn builtin(
        &mut self,
        spec: &SectionSpec,
        builtin: &str,
        at: &str,
        parent: Option<&str>,
    ) -> Result<SectionRef, PromptFileError> {
        match builtin {
            "workspace" => {
                let extra = [
                    ("params", spec.params.is_some()),
                    ("template", spec.template.is_some()),
                    ("summary", spec.summary.is_some()),
                    ("tools", !spec.tools.is_empty()),
                    ("children", !spec.children.is_empty()),
                    ("visibility", spec.visibility.is_some()),
                    ("enabled", spec.enabled.is_some()),
                    ("defaults", spec.defaults.is_some()),
                    ("dirs", spec.dirs.is_some()),
                ];
                self.reject_fields(
                    at,
                    &extra,
                    "a builtin workspace section takes only key, title and root",
                )?;
                if self.workspace.is_some() {
                    return Err(self.invalid(
                        format!("{at}.builtin"),
                        "a prompt can hold only one workspace section",
                    ));
                }
                let root = spec.root.as_deref().ok_or_else(|| {
                    self.invalid(
                        format!("{at}.root"),
                        "a workspace section needs `root`, a folder relative to the prompt file",
                    )
                })?;
                let root = self.base_dir.join(root);
                let (section, fs) =
                    wink_workspace::workspace_section_for_root(&root, &spec.key, &spec.title)
                        .map_err(|e| {
                            self.invalid(
                                format!("{at}.root"),
                                format!("cannot open workspace {}: {e}", root.display()),
                            )
                        })?;
                self.workspace = Some((root, fs));
                Ok(Arc::new(section))
            }
            "catalog" => self.catalog_section(spec, at, parent),
            "skills" => self.skills_section(spec, at, parent),
            other => Err(self.invalid(
                format!("{at}.builtin"),
                format!("unknown builtin section '{other}' (known: workspace, catalog, skills)"),
            )),
        }
    }

    fn tool(&self, spec: &ToolSpec, at: &str) -> Result<ToolRef, PromptFileError> {
        let parameters = spec
            .parameters
            .clone()
            .unwrap_or_else(wink_core::empty_params_schema);
        if !parameters.is_object() {
            return Err(self.invalid(
                format!("{at}.parameters"),
                "parameters must be a JSON Schema object",
            ));
        }
        wink_schema::check_schema(&parameters)
            .map_err(|problem| self.invalid(format!("{at}.parameters"), problem))?;
        if let Some(builtin) = RESERVED_TOOL_NAMES.iter().find(|n| **n == spec.name) {
            return Err(self.invalid(
                format!("{at}.name"),
                format!("'{builtin}' is the name of a builtin tool; choose another name"),
            ));
        }
        let handler = match &spec.handler {
            Some(h) => Some(self.command(h, &format!("{at}.handler"))?),
            None => None,
        };
        let name = spec.name.clone();
        let mut builder = ToolBuilder::dynamic(
            spec.name.clone(),
            spec.description.clone(),
            parameters,
            move |args: Value, ctx: &mut ToolContext| match &handler {
                Some(h) => {
                    let mut env = vec![(SESSION_ID_VARIABLE, ctx.telemetry.id().to_string())];
                    if let Some(id) = &ctx.call_id {
                        env.push((CALL_ID_VARIABLE, id.clone()));
                    }
                    Ok(h.run_with_env(&args, &env))
                }
                None => Err(ToolError::Fatal(format!(
                    "Tool '{name}' does not have a registered handler."
                ))),
            },
        );
        for example in &spec.examples {
            let output = match &example.output {
                Value::String(s) => s.clone(),
                other => render_json_payload(other),
            };
            builder = builder.example(example.description.clone(), example.input.clone(), output);
        }
        builder.build().map_err(|e| self.invalid(at, e))
    }

    fn command(&self, spec: &HandlerSpec, at: &str) -> Result<CommandHandler, PromptFileError> {
        let Some((program, args)) = spec.command.split_first() else {
            return Err(self.invalid(format!("{at}.command"), "command must name a program"));
        };
        let program_path = PathBuf::from(program);
        let program = if program.contains('/') && program_path.is_relative() {
            self.base_dir.join(program_path)
        } else {
            program_path
        };
        let timeout = match spec.timeout_s {
            None => DEFAULT_TIMEOUT,
            Some(t) if t.is_finite() && t > 0.0 && t <= 86_400.0 => Duration::from_secs_f64(t),
            Some(t) => {
                return Err(self.invalid(
                    format!("{at}.timeout_s"),
                    format!("timeout_s must be between 0 and 86400 seconds, not {t}"),
                ));
            }
        };
        let cwd = match &spec.cwd {
            Some(dir) => {
                let cwd = self.base_dir.join(dir);
                if !cwd.is_dir() {
                    return Err(self.invalid(
                        format!("{at}.cwd"),
                        format!("the working directory '{}' does not exist", cwd.display()),
                    ));
                }
                cwd
            }
            None => self.base_dir.to_path_buf(),
        };
        Ok(CommandHandler {
            program,
            args: args.to_vec(),
            cwd,
            env: spec.env.clone(),
            timeout,
            max_output_bytes: spec.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES),
        })
    }
}

/// The path of a builtin section with key `key` under the dotted `parent` path.
fn builtin_path(key: &str, parent: Option<&str>) -> SectionPath {
    let key = key.trim().to_lowercase();
    match parent {
        Some(p) => SectionPath::new(
            p.split('.')
                .map(str::to_owned)
                .chain(std::iter::once(key))
                .collect(),
        ),
        None => SectionPath::root(key),
    }
}
