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

mod params;
mod read;
mod results;
mod section;
mod write;
pub use params::*;
use read::*;
pub use results::*;
pub use section::*;
use write::*;

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
