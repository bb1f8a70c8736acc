//! [`WorkspaceToolsSection`]: the prompt section that gives a model the
//! workspace tools `ls`, `read_file`, `write_file`, `edit_file`, `glob`, `grep`
//! and `rm`, with parameter names as WINK's VFS tools.
//!
//! The tools reach the files through the `Arc<dyn Filesystem>` resource of the
//! tool context (the executor snapshots that same resource before each call
//! and restores it when the call fails, so a failed call leaves no trace).
//! Without that resource every tool fails with
//! [`NO_FILESYSTEM`].
//!
//! ```
//! use std::sync::Arc;
//! use serde_json::json;
//! use wink_core::{block_on, CallOutcome, Resources, ToolArguments, ToolCall, ToolExecutor};
//! use wink_fs::{Filesystem, InMemoryFilesystem, WriteMode};
//! use wink_workspace::WorkspaceToolsSection;
//! use wink_core::Section;
//!
//! let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
//! fs.write("src/main.rs", "fn main() {}\n", WriteMode::Create)?;
//! let section = WorkspaceToolsSection::new();
//!
//! let mut executor = ToolExecutor::new(wink_session::Session::new(), "demo:workspace");
//! executor.resources = Resources::new().with::<Arc<dyn Filesystem>>(fs);
//! let call = ToolCall {
//!     id: "1".into(),
//!     name: "read_file".into(),
//!     arguments: ToolArguments::Json(json!({"file_path": "src/main.rs"})),
//! };
//! let CallOutcome::Completed(done) = block_on(executor.execute(&call, section.tools(), None)).unwrap()
//! else { unreachable!() };
//! assert_eq!(done.model_text(), "Read src/main.rs: lines 1-1 of 1.\n\n   1 | fn main() {}");
//! # Ok::<(), wink_fs::FsError>(())
//! ```

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use wink_core::{
    ParamsValue, PromptError, Section, SectionVisibility, ToolBuilder, ToolContext, ToolError,
    ToolOutput, ToolRef, ToolResult,
};
use wink_fs::{FileKind, Filesystem, FsError, FsLimits, WriteMode, normalize_model_path};

use crate::HostFilesystem;

/// The message of every tool call made without an `Arc<dyn Filesystem>` resource.
pub const NO_FILESYSTEM: &str = "No filesystem is available to this tool.";

/// Lines `read_file` returns when no `limit` is given, and the most it returns per call.
pub const MAX_READ_LINES: usize = 2_000;

/// Most paths one `glob` call lists.
pub const MAX_GLOB_RESULTS: usize = 1_000;

/// Longest line `grep` shows, in bytes; longer lines are cut around the match.
pub const MAX_GREP_LINE_BYTES: usize = 200;

/// Lines of context shown around an edit.
const EDIT_CONTEXT_LINES: usize = 2;

/// Most lines of an edit snippet.
const EDIT_SNIPPET_MAX_LINES: usize = 20;

// region: --- section

/// A prompt section exposing the workspace tools, with short guidance on using them well.
///
/// Key `workspace` and title `Workspace` unless changed; paths are
/// workspace-relative unless a mount point is set, in which case results show
/// paths under it and the tools accept paths with or without it.
#[derive(Debug, Clone)]
pub struct WorkspaceToolsSection {
    key: String,
    title: String,
    settings: Arc<ToolSettings>,
    body: String,
    tools: Vec<ToolRef>,
    error: Option<PromptError>,
}

/// What the tool handlers share.
#[derive(Debug)]
struct ToolSettings {
    mount_point: Option<String>,
    limits: FsLimits,
}

impl ToolSettings {
    /// Normalise a path typed by the model.
    fn path(&self, raw: &str) -> Result<String, ToolError> {
        normalize_model_path(raw, self.mount_point.as_deref()).map_err(ToolError::failed)
    }

    /// How a normalised path is shown to the model.
    fn show(&self, normalized: &str) -> String {
        match (&self.mount_point, normalized.is_empty()) {
            (Some(mount), true) => mount.clone(),
            (Some(mount), false) => format!("{mount}/{normalized}"),
            (None, true) => ".".to_owned(),
            (None, false) => normalized.to_owned(),
        }
    }

    /// How a directory is named in a sentence: `the workspace root` for the
    /// root without a mount point, else as [`show`](Self::show) has it.
    fn describe_dir(&self, normalized: &str) -> String {
        if normalized.is_empty() && self.mount_point.is_none() {
            "the workspace root".to_owned()
        } else {
            self.show(normalized)
        }
    }
}

impl Default for WorkspaceToolsSection {
    fn default() -> Self {
        Self::new()
    }
}

impl WorkspaceToolsSection {
    /// The section with key `workspace`, title `Workspace`, workspace-relative
    /// paths and [`FsLimits::DEFAULT`].
    #[must_use]
    pub fn new() -> Self {
        Self::assemble(
            "workspace".to_owned(),
            "Workspace".to_owned(),
            None,
            FsLimits::DEFAULT,
        )
    }

    /// Use another section key.
    #[must_use]
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = key.into();
        self
    }

    /// Use another heading title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Show the workspace to the model under a mount point such as
    /// `/workspace`: results name `/workspace/src/main.rs`, and the tools
    /// accept that path as well as `src/main.rs`. An empty or `/` mount
    /// point means none.
    #[must_use]
    pub fn with_mount_point(self, mount_point: impl AsRef<str>) -> Self {
        let trimmed = mount_point.as_ref().trim().trim_matches('/');
        let mount = (!trimmed.is_empty()).then(|| format!("/{trimmed}"));
        Self::assemble(self.key, self.title, mount, self.settings.limits)
    }

    /// The limits stated in the guidance and enforced by the tools (on top of
    /// the filesystem's own): write and replacement sizes, read page size, and
    /// grep matches.
    #[must_use]
    pub fn with_limits(self, limits: FsLimits) -> Self {
        let mount = self.settings.mount_point.clone();
        Self::assemble(self.key, self.title, mount, limits)
    }

    /// The mount point shown to the model, if any.
    #[must_use]
    pub fn mount_point(&self) -> Option<&str> {
        self.settings.mount_point.as_deref()
    }

    /// The limits the tools enforce.
    #[must_use]
    pub fn limits(&self) -> FsLimits {
        self.settings.limits
    }

    fn assemble(key: String, title: String, mount_point: Option<String>, limits: FsLimits) -> Self {
        let settings = Arc::new(ToolSettings {
            mount_point,
            limits,
        });
        let body = guidance(&settings);
        let (tools, error) = match build_tools(&settings) {
            Ok(tools) => (tools, None),
            Err(error) => (Vec::new(), Some(error)),
        };
        Self {
            key,
            title,
            settings,
            body,
            tools,
            error,
        }
    }
}

impl Section for WorkspaceToolsSection {
    fn title(&self) -> &str {
        &self.title
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn tools(&self) -> &[ToolRef] {
        &self.tools
    }
    fn construction_error(&self) -> Option<&PromptError> {
        self.error.as_ref()
    }
    fn render_body(
        &self,
        _params: Option<&ParamsValue>,
        _visibility: SectionVisibility,
    ) -> Result<String, PromptError> {
        Ok(self.body.clone())
    }
    fn accepts_overrides(&self) -> bool {
        false
    }
}

/// Open a [`HostFilesystem`] rooted at `root` (with [`FsLimits::DEFAULT`]) and a
/// [`WorkspaceToolsSection`] with `key` and `title` over it. Put the returned
/// filesystem into the tool resources as `Arc<dyn Filesystem>`.
///
/// # Errors
/// [`FsError::RootUnavailable`] (and the other errors of
/// [`HostFilesystem::open`]) when `root` cannot serve as a workspace.
pub fn workspace_section_for_root(
    root: &Path,
    key: &str,
    title: &str,
) -> Result<(WorkspaceToolsSection, Arc<dyn Filesystem>), FsError> {
    let filesystem = HostFilesystem::open(root, FsLimits::DEFAULT)?;
    let section = WorkspaceToolsSection::new()
        .with_key(key)
        .with_title(title)
        .with_limits(filesystem.limits());
    Ok((section, Arc::new(filesystem)))
}

fn guidance(settings: &ToolSettings) -> String {
    let limits = settings.limits;
    let paths = match &settings.mount_point {
        Some(mount) => format!(
            "The workspace is mounted at `{mount}`: `{mount}/src/main.rs` and `src/main.rs` name the same file. Nothing outside it can be reached."
        ),
        None => "Paths are relative to the workspace root (`src/main.rs`); a leading `/` also means the root (`/src/main.rs` is `src/main.rs`), and `..` above the root is refused. Nothing outside the root can be reached.".to_owned(),
    };
    let items = [
        paths,
        "Find before you open: `ls` shows one directory, `glob` finds files by name pattern, `grep` finds lines by regular expression.".to_owned(),
        format!(
            "`read_file` numbers its lines and returns up to {} lines per call; continue long files with `offset` and `limit`.",
            thousands(MAX_READ_LINES)
        ),
        "Read a file before changing it. For small changes use `edit_file`, copying `old_string` exactly from the file without the line-number prefix; add surrounding lines if it occurs more than once.".to_owned(),
        "Use `write_file` for new files; pass `mode` \"overwrite\" to replace a file or \"append\" to extend it.".to_owned(),
        "`rm` deletes a file or an empty directory; set `recursive` to delete a directory with its contents.".to_owned(),
        format!(
            "Each write or replacement is limited to {}, and a read returns at most {}: split large content into several appends.",
            byte_size(limits.max_write_bytes),
            byte_size(limits.max_read_bytes)
        ),
    ];
    let mut body =
        String::from("Use these tools to explore and change the files of the workspace.\n");
    for (index, item) in items.iter().enumerate() {
        let _ = write!(body, "\n{}. {item}", index + 1);
    }
    body
}

/// `48000` → `48,000`.
fn thousands(value: usize) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `1048576` → `1 MiB`, `48000` → `48,000 bytes`.
fn byte_size(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    const KIB: usize = 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", thousands(bytes / MIB))
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", thousands(bytes / KIB))
    } else {
        format!("{} bytes", thousands(bytes))
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

// endregion: --- section

// region: --- parameters

/// Arguments of `ls`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = drop_description)]
pub struct ListParams {
    /// Directory to list; omit it to list the workspace root.
    #[serde(default)]
    pub path: Option<String>,
}

/// Arguments of `read_file`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = drop_description)]
pub struct ReadFileParams {
    /// Path of the file to read.
    pub file_path: String,
    /// Zero-based index of the first line to return.
    #[serde(default)]
    pub offset: usize,
    /// Most lines to return (at most 2000).
    #[serde(default = "default_read_limit")]
    #[schemars(range(min = 1))]
    pub limit: usize,
}

/// Keep a params struct's doc comment out of the schema sent to providers
/// (the tool description says it already).
fn drop_description(schema: &mut schemars::Schema) {
    schema.remove("description");
}

fn default_read_limit() -> usize {
    MAX_READ_LINES
}

/// Arguments of `write_file`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = drop_description)]
pub struct WriteFileParams {
    /// Path of the file to write; missing parent directories are created.
    pub file_path: String,
    /// The UTF-8 text to write.
    pub content: String,
    /// "create" (the default) refuses an existing file, "overwrite" replaces it, "append" adds to its end.
    #[serde(default = "default_write_mode")]
    #[schemars(with = "WriteModeSchema")]
    pub mode: WriteMode,
}

fn default_write_mode() -> WriteMode {
    WriteMode::Create
}

/// The JSON Schema of `mode` (the wire spelling of [`WriteMode`]).
#[derive(JsonSchema)]
#[schemars(inline)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum WriteModeSchema {
    Create,
    Overwrite,
    Append,
}

/// Arguments of `edit_file`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = drop_description)]
pub struct EditFileParams {
    /// Path of the file to edit.
    pub file_path: String,
    /// The exact text to replace, as it appears in the file.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default)]
    pub replace_all: bool,
}

/// Arguments of `glob`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = drop_description)]
pub struct GlobParams {
    /// Glob matched against paths relative to `path`: `*`, `?`, `[a-z]`, `{a,b}`, and `**` across directories.
    pub pattern: String,
    /// Directory to search; omit it to search the whole workspace.
    #[serde(default)]
    pub path: Option<String>,
}

/// Arguments of `grep`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = drop_description)]
pub struct GrepParams {
    /// Regular expression searched for in each line.
    pub pattern: String,
    /// Directory or file to search; omit it to search the whole workspace.
    #[serde(default)]
    pub path: Option<String>,
    /// Only search files matching this glob (a name such as `*.rs`, or a path pattern with `/`).
    #[serde(default)]
    pub glob: Option<String>,
}

/// Arguments of `rm`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = drop_description)]
pub struct RemoveParams {
    /// Path of the file or directory to delete.
    pub path: String,
    /// Also delete a directory's contents (needed for non-empty directories).
    #[serde(default)]
    pub recursive: bool,
}

// endregion: --- parameters

// region: --- results

/// One entry listed by `ls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedEntry {
    /// The path as shown to the model.
    pub path: String,
    /// `file` or `directory`.
    pub kind: FileKind,
    /// Size of a file in bytes (`None` for directories).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
}

/// What `ls` returns: one line per entry, directories with a trailing `/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectoryListing {
    /// The directory as shown to the model.
    pub path: String,
    /// Its entries, sorted by name.
    pub entries: Vec<ListedEntry>,
}

impl ToolOutput for DirectoryListing {
    fn render(&self) -> Option<String> {
        if self.entries.is_empty() {
            return Some("(empty directory)".to_owned());
        }
        let lines: Vec<String> = self
            .entries
            .iter()
            .map(|entry| match entry.size_bytes {
                _ if entry.kind == FileKind::Directory => format!("{}/", entry.path),
                Some(size) => format!(
                    "{} ({})",
                    entry.path,
                    plural(saturate(size), "byte", "bytes")
                ),
                None => entry.path.clone(),
            })
            .collect();
        Some(lines.join("\n"))
    }
}

/// What `read_file` returns: the page with line numbers (`   1 | text`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileContent {
    /// The file as shown to the model.
    pub path: String,
    /// The numbered lines.
    pub content: String,
    /// Zero-based index of the first line returned.
    pub offset: usize,
    /// Lines returned.
    pub limit: usize,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// Whether lines remain after this page.
    pub truncated: bool,
}

impl ToolOutput for FileContent {
    fn render(&self) -> Option<String> {
        let mut out = self.content.clone();
        if self.truncated {
            let next = self.offset + self.limit;
            let remaining = self.total_lines.saturating_sub(next);
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            let _ = write!(
                out,
                "[Truncated: {} not shown. Call read_file with offset={next} to continue.]",
                plural(remaining, "more line", "more lines")
            );
        }
        Some(out)
    }
}

/// What `write_file` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileWritten {
    /// The file as shown to the model.
    pub path: String,
    /// The mode used.
    pub mode: WriteMode,
    /// Bytes written by this call.
    pub bytes_written: u64,
    /// Size of the file afterwards.
    pub size_bytes: u64,
    /// Whether the file was new.
    pub created: bool,
}

impl FileWritten {
    fn summary(&self) -> String {
        let written = plural(saturate(self.bytes_written), "byte", "bytes");
        match self.mode {
            WriteMode::Append if !self.created => format!(
                "Appended {written} to {} (now {}).",
                self.path,
                plural(saturate(self.size_bytes), "byte", "bytes")
            ),
            _ if self.created => format!("Created {} ({written}).", self.path),
            _ => format!("Overwrote {} ({written}).", self.path),
        }
    }
}

impl ToolOutput for FileWritten {
    fn render(&self) -> Option<String> {
        Some(self.summary())
    }
}

/// What `edit_file` returns: the edited region with line numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEdited {
    /// The file as shown to the model.
    pub path: String,
    /// Occurrences replaced.
    pub replacements: usize,
    /// Size of the file afterwards.
    pub size_bytes: u64,
    /// Numbered lines around the first replacement (empty when the file could not be shown).
    pub snippet: String,
}

impl ToolOutput for FileEdited {
    fn render(&self) -> Option<String> {
        Some(self.snippet.clone())
    }
}

/// What `glob` returns: matching file paths, one per line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobMatches {
    /// Matching files as shown to the model, sorted (at most [`MAX_GLOB_RESULTS`]).
    pub paths: Vec<String>,
    /// Matches in total, including those left out.
    pub total: usize,
}

impl ToolOutput for GlobMatches {
    fn render(&self) -> Option<String> {
        let mut out = self.paths.join("\n");
        if self.total > self.paths.len() {
            let _ = write!(
                out,
                "\n[{} more not shown; use a narrower pattern or path.]",
                self.total - self.paths.len()
            );
        }
        Some(out)
    }
}

/// One line found by `grep`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepHit {
    /// The file as shown to the model.
    pub path: String,
    /// One-based line number.
    pub line_number: usize,
    /// The line (cut around the match when longer than [`MAX_GREP_LINE_BYTES`]).
    pub line: String,
}

/// What `grep` returns: `path:line: text` per matching line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepResults {
    /// Matching lines, sorted by path then line.
    pub matches: Vec<GrepHit>,
    /// Whether the search stopped at the match limit.
    pub limit_reached: bool,
}

impl ToolOutput for GrepResults {
    fn render(&self) -> Option<String> {
        let mut lines: Vec<String> = self
            .matches
            .iter()
            .map(|hit| format!("{}:{}: {}", hit.path, hit.line_number, hit.line))
            .collect();
        if self.limit_reached {
            lines
                .push("[Stopped at the match limit; narrow the pattern, path or glob.]".to_owned());
        }
        Some(lines.join("\n"))
    }
}

/// What `rm` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Removed {
    /// The removed entry as shown to the model.
    pub path: String,
    /// What it was.
    pub kind: FileKind,
    /// Files deleted with it (1 for a file).
    pub files_removed: usize,
}

impl Removed {
    fn summary(&self) -> String {
        match self.kind {
            FileKind::Directory => format!(
                "Removed directory {} ({}).",
                self.path,
                plural(self.files_removed, "file", "files")
            ),
            _ => format!("Removed file {}.", self.path),
        }
    }
}

impl ToolOutput for Removed {
    fn render(&self) -> Option<String> {
        Some(self.summary())
    }
}

fn saturate(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

// endregion: --- results

// region: --- tools

fn filesystem(ctx: &ToolContext) -> Result<Arc<dyn Filesystem>, ToolError> {
    ctx.filesystem()
        .cloned()
        .ok_or_else(|| ToolError::failed(NO_FILESYSTEM))
}

fn build_tools(settings: &Arc<ToolSettings>) -> Result<Vec<ToolRef>, PromptError> {
    Ok(vec![
        ls_tool(settings)?,
        read_file_tool(settings)?,
        write_file_tool(settings)?,
        edit_file_tool(settings)?,
        glob_tool(settings)?,
        grep_tool(settings)?,
        rm_tool(settings)?,
    ])
}

fn ls_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
    let shared = Arc::clone(settings);
    ToolBuilder::<ListParams, DirectoryListing>::new(
        "ls",
        "List the files and directories directly inside a workspace directory (the root when path is omitted).",
    )
    .handler(move |params: ListParams, ctx: &mut ToolContext| {
        let fs = filesystem(ctx)?;
        let dir = shared.path(params.path.as_deref().unwrap_or(""))?;
        let entries = fs.list(&dir).map_err(ToolError::failed)?;
        let listing = DirectoryListing {
            path: shared.show(&dir),
            entries: entries
                .into_iter()
                .map(|info| ListedEntry {
                    path: shared.show(&info.path),
                    kind: info.kind,
                    size_bytes: info.is_file().then_some(info.size_bytes),
                })
                .collect(),
        };
        let directories = listing.entries.iter().filter(|e| e.kind == FileKind::Directory).count();
        let files = listing.entries.len() - directories;
        let message = format!(
            "Listed {}: {}, {}.",
            shared.describe_dir(&dir),
            plural(directories, "directory", "directories"),
            plural(files, "file", "files")
        );
        Ok(ToolResult::ok(message, listing))
    })
    .example(
        "List the src directory",
        ListParams {
            path: Some("src".to_owned()),
        },
        DirectoryListing {
            path: "src".to_owned(),
            entries: vec![
                ListedEntry {
                    path: "src/bin".to_owned(),
                    kind: FileKind::Directory,
                    size_bytes: None,
                },
                ListedEntry {
                    path: "src/lib.rs".to_owned(),
                    kind: FileKind::File,
                    size_bytes: Some(1_204),
                },
            ],
        },
    )
    .build()
}

fn read_file_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
    let shared = Arc::clone(settings);
    ToolBuilder::<ReadFileParams, FileContent>::new(
        "read_file",
        "Read a text file with numbered lines: up to 2000 lines starting at offset (0-based). Use offset and limit to page through long files.",
    )
    .handler(move |params: ReadFileParams, ctx: &mut ToolContext| {
        if params.file_path.trim().is_empty() {
            return Err(ToolError::validation("file_path must not be empty."));
        }
        if params.limit == 0 {
            return Err(ToolError::validation("limit must be at least 1."));
        }
        let fs = filesystem(ctx)?;
        let path = shared.path(&params.file_path)?;
        let limit = params.limit.min(MAX_READ_LINES);
        let page = fs
            .read(&path, params.offset, Some(limit))
            .and_then(|page| fit_page(page, shared.limits.max_read_bytes))
            .map_err(ToolError::failed)?;
        let shown = shared.show(&path);
        let message = if page.total_lines == 0 {
            format!("Read {shown}: the file is empty.")
        } else if page.limit == 0 {
            format!(
                "Read {shown}: no lines at offset {}, the file has {}.",
                params.offset,
                plural(page.total_lines, "line", "lines")
            )
        } else {
            format!(
                "Read {shown}: lines {}-{} of {}.",
                page.offset + 1,
                page.offset + page.limit,
                page.total_lines
            )
        };
        let content = number_lines(&page.content, page.offset, page.limit);
        Ok(ToolResult::ok(
            message,
            FileContent {
                path: shown,
                content,
                offset: page.offset,
                limit: page.limit,
                total_lines: page.total_lines,
                truncated: page.truncated,
            },
        ))
    })
    .example(
        "Read the first two lines of the README",
        ReadFileParams {
            file_path: "README.md".to_owned(),
            offset: 0,
            limit: 2,
        },
        FileContent {
            path: "README.md".to_owned(),
            content: "   1 | # Inventory service\n   2 | Tracks stock levels per warehouse.".to_owned(),
            offset: 0,
            limit: 2,
            total_lines: 48,
            truncated: true,
        },
    )
    .build()
}

/// Shorten a page so its content fits `max_bytes` (whole lines only).
fn fit_page(
    mut page: wink_fs::ReadResult,
    max_bytes: usize,
) -> Result<wink_fs::ReadResult, FsError> {
    if page.content.len() <= max_bytes {
        return Ok(page);
    }
    let mut kept = 0usize;
    let mut end = 0usize;
    for line in page.content.split('\n') {
        let next_end = if kept == 0 {
            line.len()
        } else {
            end + 1 + line.len()
        };
        if next_end > max_bytes {
            if kept == 0 {
                return Err(FsError::LineTooLong {
                    path: page.path,
                    line_number: page.offset + 1,
                    line_bytes: line.len(),
                    limit_bytes: max_bytes,
                });
            }
            break;
        }
        end = next_end;
        kept += 1;
    }
    page.content.truncate(end);
    page.limit = kept;
    page.truncated = page.offset + kept < page.total_lines;
    Ok(page)
}

/// `   1 | text` for each of the `count` lines of `content`, numbered from `offset + 1`.
fn number_lines(content: &str, offset: usize, count: usize) -> String {
    if count == 0 {
        return String::new();
    }
    let mut out = String::with_capacity(content.len() + content.len() / 8 + 8);
    for (index, line) in content.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let _ = write!(out, "{:>4} | {line}", offset + index + 1);
    }
    out
}

fn write_file_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
    let shared = Arc::clone(settings);
    ToolBuilder::<WriteFileParams, FileWritten>::new(
        "write_file",
        "Write a text file. mode \"create\" (default) fails if it exists, \"overwrite\" replaces it, \"append\" adds to its end. Parent directories are created.",
    )
    .handler(move |params: WriteFileParams, ctx: &mut ToolContext| {
        if params.file_path.trim().is_empty() {
            return Err(ToolError::validation("file_path must not be empty."));
        }
        let fs = filesystem(ctx)?;
        let path = shared.path(&params.file_path)?;
        let limit = shared.limits.max_write_bytes;
        if params.content.len() > limit {
            return Err(ToolError::failed(FsError::WriteTooLarge {
                path,
                size_bytes: params.content.len(),
                limit_bytes: limit,
            }));
        }
        let written = fs
            .write(&path, &params.content, params.mode)
            .map_err(|error| match error {
                FsError::AlreadyExists {
                    kind: FileKind::File,
                    path,
                } if params.mode == WriteMode::Create => ToolError::failed(format!(
                    "File already exists: {path} (use edit_file to change it, or mode \"overwrite\" to replace it)"
                )),
                other => ToolError::failed(other),
            })?;
        let result = FileWritten {
            path: shared.show(&path),
            mode: written.mode,
            bytes_written: written.bytes_written,
            size_bytes: written.size_bytes,
            created: written.created,
        };
        Ok(ToolResult::ok(result.summary(), result).excluding_value())
    })
    .example(
        "Create a notes file",
        WriteFileParams {
            file_path: "notes/todo.md".to_owned(),
            content: "- add pagination tests\n".to_owned(),
            mode: WriteMode::Create,
        },
        FileWritten {
            path: "notes/todo.md".to_owned(),
            mode: WriteMode::Create,
            bytes_written: 23,
            size_bytes: 23,
            created: true,
        },
    )
    .build()
}

fn edit_file_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
    let shared = Arc::clone(settings);
    ToolBuilder::<EditFileParams, FileEdited>::new(
        "edit_file",
        "Replace exact text in a file. old_string must occur exactly once unless replace_all is true; copy it from read_file output without the line numbers.",
    )
    .handler(move |params: EditFileParams, ctx: &mut ToolContext| {
        if params.file_path.trim().is_empty() {
            return Err(ToolError::validation("file_path must not be empty."));
        }
        let fs = filesystem(ctx)?;
        let path = shared.path(&params.file_path)?;
        let limit = shared.limits.max_write_bytes;
        if params.new_string.len() > limit {
            return Err(ToolError::failed(FsError::WriteTooLarge {
                path,
                size_bytes: params.new_string.len(),
                limit_bytes: limit,
            }));
        }
        let before = fs.read_to_string(&path).ok();
        let edited = fs
            .edit(&path, &params.old_string, &params.new_string, params.replace_all)
            .map_err(ToolError::failed)?;
        let snippet = before
            .as_deref()
            .and_then(|text| text.find(&params.old_string).map(|at| &text[..at]))
            .map(|prefix| {
                let first_line = prefix.matches('\n').count();
                let new_lines = params.new_string.matches('\n').count() + 1;
                edit_snippet(fs.as_ref(), &path, first_line, new_lines)
            })
            .unwrap_or_default();
        let shown = shared.show(&path);
        let message = format!(
            "Replaced {} in {shown}.",
            plural(edited.replacements, "occurrence", "occurrences")
        );
        Ok(ToolResult::ok(
            message,
            FileEdited {
                path: shown,
                replacements: edited.replacements,
                size_bytes: edited.size_bytes,
                snippet,
            },
        ))
    })
    .example(
        "Turn off debug mode in the settings",
        EditFileParams {
            file_path: "app/settings.py".to_owned(),
            old_string: "DEBUG = True".to_owned(),
            new_string: "DEBUG = False".to_owned(),
            replace_all: false,
        },
        FileEdited {
            path: "app/settings.py".to_owned(),
            replacements: 1,
            size_bytes: 412,
            snippet: "  11 | ALLOWED_HOSTS = [\"localhost\"]\n  12 | DEBUG = False\n  13 | LOG_LEVEL = \"info\"".to_owned(),
        },
    )
    .build()
}

/// Numbered lines around the replaced region (zero-based `first_line`, `span` lines long).
fn edit_snippet(fs: &dyn Filesystem, path: &str, first_line: usize, span: usize) -> String {
    let start = first_line.saturating_sub(EDIT_CONTEXT_LINES);
    let count = (first_line - start + span + EDIT_CONTEXT_LINES).min(EDIT_SNIPPET_MAX_LINES);
    match fs.read(path, start, Some(count)) {
        Ok(page) => number_lines(&page.content, page.offset, page.limit),
        Err(_) => String::new(),
    }
}

fn glob_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
    let shared = Arc::clone(settings);
    ToolBuilder::<GlobParams, GlobMatches>::new(
        "glob",
        "Find files whose path relative to path (default: the workspace root) matches a glob such as **/*.rs or src/*.{ts,tsx}.",
    )
    .handler(move |params: GlobParams, ctx: &mut ToolContext| {
        let pattern = params.pattern.trim();
        if pattern.is_empty() {
            return Err(ToolError::validation("pattern must not be empty."));
        }
        let fs = filesystem(ctx)?;
        let base = shared.path(params.path.as_deref().unwrap_or(""))?;
        let found = fs.glob(pattern, &base).map_err(ToolError::failed)?;
        let total = found.len();
        let paths: Vec<String> = found
            .iter()
            .take(MAX_GLOB_RESULTS)
            .map(|path| shared.show(path))
            .collect();
        let message = format!(
            "Found {} matching '{pattern}' in {}.",
            plural(total, "file", "files"),
            shared.describe_dir(&base)
        );
        Ok(ToolResult::ok(message, GlobMatches { paths, total }))
    })
    .example(
        "Find the test files under tests",
        GlobParams {
            pattern: "**/test_*.py".to_owned(),
            path: Some("tests".to_owned()),
        },
        GlobMatches {
            paths: vec![
                "tests/test_api.py".to_owned(),
                "tests/unit/test_models.py".to_owned(),
            ],
            total: 2,
        },
    )
    .build()
}

fn grep_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
    let shared = Arc::clone(settings);
    ToolBuilder::<GrepParams, GrepResults>::new(
        "grep",
        "Search file contents with a regular expression; returns path:line: text for each matching line. Narrow it with path and a glob on file names.",
    )
    .handler(move |params: GrepParams, ctx: &mut ToolContext| {
        if params.pattern.is_empty() {
            return Err(ToolError::validation("pattern must not be empty."));
        }
        let fs = filesystem(ctx)?;
        let base = shared.path(params.path.as_deref().unwrap_or(""))?;
        let glob = params.glob.as_deref().map(str::trim).filter(|g| !g.is_empty());
        let found = fs
            .grep(&params.pattern, &base, glob)
            .map_err(ToolError::failed)?;
        let cap = shared.limits.max_grep_matches.min(fs.limits().max_grep_matches);
        let limit_reached = found.len() >= cap;
        let matches: Vec<GrepHit> = found
            .iter()
            .take(cap)
            .map(|hit| GrepHit {
                path: shared.show(&hit.path),
                line_number: hit.line_number,
                line: clip_line(&hit.line, hit.match_start),
            })
            .collect();
        let mut files: Vec<&str> = matches.iter().map(|m| m.path.as_str()).collect();
        files.dedup();
        let message = format!(
            "Found {} for '{}' in {}.",
            plural(matches.len(), "match", "matches"),
            params.pattern,
            plural(files.len(), "file", "files")
        );
        Ok(ToolResult::ok(
            message,
            GrepResults {
                matches,
                limit_reached,
            },
        ))
    })
    .example(
        "Find where the log level is set",
        GrepParams {
            pattern: "LOG_LEVEL\\s*=".to_owned(),
            path: Some("app".to_owned()),
            glob: Some("*.py".to_owned()),
        },
        GrepResults {
            matches: vec![GrepHit {
                path: "app/settings.py".to_owned(),
                line_number: 13,
                line: "LOG_LEVEL = \"info\"".to_owned(),
            }],
            limit_reached: false,
        },
    )
    .build()
}

/// The line, or a window of it around the match when it is too long.
fn clip_line(line: &str, match_start: usize) -> String {
    if line.len() <= MAX_GREP_LINE_BYTES {
        return line.to_owned();
    }
    let mut start = match_start
        .min(line.len())
        .saturating_sub(MAX_GREP_LINE_BYTES / 4);
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + MAX_GREP_LINE_BYTES).min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end - start + 6);
    if start > 0 {
        out.push_str("...");
    }
    out.push_str(&line[start..end]);
    if end < line.len() {
        out.push_str("...");
    }
    out
}

fn rm_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
    let shared = Arc::clone(settings);
    ToolBuilder::<RemoveParams, Removed>::new(
        "rm",
        "Delete a file or an empty directory; set recursive to true to delete a directory and everything in it.",
    )
    .handler(move |params: RemoveParams, ctx: &mut ToolContext| {
        if params.path.trim().is_empty() {
            return Err(ToolError::validation("path must not be empty."));
        }
        let fs = filesystem(ctx)?;
        let path = shared.path(&params.path)?;
        if path.is_empty() {
            return Err(ToolError::failed(FsError::RootRemoval));
        }
        let info = fs.stat(&path).map_err(ToolError::failed)?;
        let files_removed = if info.is_dir() {
            fs.glob("**", &path).map_err(ToolError::failed)?.len()
        } else {
            1
        };
        fs.remove(&path, params.recursive)
            .map_err(ToolError::failed)?;
        let result = Removed {
            path: shared.show(&path),
            kind: info.kind,
            files_removed,
        };
        Ok(ToolResult::ok(result.summary(), result).excluding_value())
    })
    .example(
        "Delete a build directory and its contents",
        RemoveParams {
            path: "build".to_owned(),
            recursive: true,
        },
        Removed {
            path: "build".to_owned(),
            kind: FileKind::Directory,
            files_removed: 12,
        },
    )
    .build()
}

// endregion: --- tools

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers_and_sizes() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(48_000), "48,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(byte_size(1024 * 1024), "1 MiB");
        assert_eq!(byte_size(64 * 1024), "64 KiB");
        assert_eq!(byte_size(48_000), "48,000 bytes");
    }

    #[test]
    fn numbers_lines_from_the_offset() {
        assert_eq!(number_lines("a\nb", 0, 2), "   1 | a\n   2 | b");
        assert_eq!(number_lines("x", 9999, 1), "10000 | x");
        assert_eq!(number_lines("", 0, 0), "");
        assert_eq!(number_lines("", 3, 1), "   4 | ");
    }

    #[test]
    fn fits_pages_to_whole_lines() {
        let page = wink_fs::ReadResult {
            path: "a".into(),
            content: "aaaa\nbbbb\ncccc".into(),
            total_lines: 5,
            offset: 1,
            limit: 3,
            truncated: true,
        };
        let fitted = fit_page(page.clone(), 9).unwrap();
        assert_eq!(
            (fitted.content.as_str(), fitted.limit, fitted.truncated),
            ("aaaa\nbbbb", 2, true)
        );
        assert_eq!(fit_page(page.clone(), 100).unwrap(), page);
        assert_eq!(
            fit_page(page, 3).unwrap_err().to_string(),
            "Line 2 of a is 4 bytes, longer than the read limit of 3 bytes"
        );
    }

    #[test]
    fn clips_long_lines_around_the_match() {
        let line = format!("{}NEEDLE{}", "a".repeat(300), "b".repeat(300));
        let clipped = clip_line(&line, 300);
        assert!(clipped.starts_with("...") && clipped.ends_with("..."));
        assert!(clipped.contains("NEEDLE"));
        assert_eq!(clipped.len(), MAX_GREP_LINE_BYTES + 6);
        assert_eq!(clip_line("short", 0), "short");
        let multibyte = "é".repeat(150);
        assert!(clip_line(&multibyte, 0).ends_with("..."));
    }

    #[test]
    fn mount_points_are_normalised_and_shown() {
        let section = WorkspaceToolsSection::new().with_mount_point("workspace/");
        assert_eq!(section.mount_point(), Some("/workspace"));
        assert_eq!(section.settings.show(""), "/workspace");
        assert_eq!(section.settings.show("a/b"), "/workspace/a/b");
        assert_eq!(
            WorkspaceToolsSection::new()
                .with_mount_point("/")
                .mount_point(),
            None
        );
        assert_eq!(WorkspaceToolsSection::new().settings.show(""), ".");
    }

    #[test]
    fn every_tool_builds_with_an_example() {
        let section = WorkspaceToolsSection::new();
        assert!(section.construction_error().is_none());
        let names: Vec<&str> = section.tools().iter().map(|t| t.name()).collect();
        assert_eq!(
            names,
            [
                "ls",
                "read_file",
                "write_file",
                "edit_file",
                "glob",
                "grep",
                "rm"
            ]
        );
        assert!(section.tools().iter().all(|t| t.examples().len() == 1));
    }
}
