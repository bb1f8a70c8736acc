//! The tools' parameters, with the schemas the model sees.

use super::*;

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
pub(super) fn drop_description(schema: &mut schemars::Schema) {
    schema.remove("description");
}

pub(super) fn default_read_limit() -> usize {
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

pub(super) fn default_write_mode() -> WriteMode {
    WriteMode::Create
}

/// The JSON Schema of `mode` (the wire spelling of [`WriteMode`]).
#[derive(JsonSchema)]
#[schemars(inline)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub(super) enum WriteModeSchema {
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
