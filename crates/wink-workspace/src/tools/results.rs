//! The tools' results and the text each renders for the model.

use super::*;

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
    pub(super) fn summary(&self) -> String {
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
    pub(super) fn summary(&self) -> String {
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

pub(super) fn saturate(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}
