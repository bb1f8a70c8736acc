//! The filesystem layer of wink: one [`Filesystem`] trait that workspace tools
//! call, whatever stores the files.
//!
//! - Paths are workspace-relative POSIX strings, normalised by
//!   [`normalize_path`]; `..` above the root and absolute paths are refused.
//! - Reads page by lines and writes come in three [`WriteMode`]s; both are held
//!   to [`FsLimits`] with messages that say what to do instead.
//! - [`GlobPattern`] (`*`, `**`, `?`, `[a-z]`, `{a,b}`) and regex `grep` behave
//!   the same on every backend (see [`text`]).
//! - [`Filesystem::snapshot`] / [`Filesystem::restore`] make tool calls
//!   transactional: a failed call is rolled back together with the session.
//! - [`InMemoryFilesystem`] keeps everything in a persistent map (O(1)
//!   snapshots); the host-directory backend lives in the `wink-workspace` crate.
//! - [`conformance`] is the test suite every backend must pass.
//!
//! ```
//! use std::sync::Arc;
//! use wink_fs::{Filesystem, InMemoryFilesystem, WriteMode};
//!
//! let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
//! fs.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n", WriteMode::Create)?;
//! fs.edit("src/main.rs", "\"hi\"", "\"hello\"", false)?;
//!
//! let page = fs.read("src/main.rs", 1, Some(1))?;
//! assert_eq!(page.content, "    println!(\"hello\");");
//! assert_eq!((page.total_lines, page.truncated), (3, true));
//!
//! assert_eq!(fs.glob("**/*.rs", "")?, vec!["src/main.rs"]);
//! let hits = fs.grep(r"println!", "src", None)?;
//! assert_eq!(hits[0].line_number, 2);
//!
//! let err = fs.read("../etc/passwd", 0, None).unwrap_err();
//! assert_eq!(err.to_string(), "Path escapes the workspace root: ../etc/passwd");
//! # Ok::<(), wink_fs::FsError>(())
//! ```

mod batch;
pub mod conformance;
mod error;
mod filesystem;
mod glob;
mod memory;
pub mod path;
mod snapshot;
pub mod text;
mod types;

pub use batch::FsBatch;
pub use error::FsError;
pub use filesystem::Filesystem;
pub use glob::GlobPattern;
pub use memory::InMemoryFilesystem;
pub use path::{normalize_model_path, normalize_path};
pub use snapshot::{FilesystemId, FsSnapshot};
pub use types::{
    EditResult, FileInfo, FileKind, FsLimits, GrepMatch, ReadResult, UnknownWriteMode, WriteMode,
    WriteResult,
};
