//! The host-directory backend of the wink [`Filesystem`](wink_fs::Filesystem)
//! trait: a workspace rooted at a real directory that tools can read and
//! change, and never leave.
//!
//! - `..` above the root and absolute paths are refused before any I/O.
//! - Symbolic links are followed only while they stay inside the root.
//! - Every component is opened through the handle of its verified parent, so
//!   a directory swapped for a link between check and use is caught (see
//!   [`resolve`]).
//! - [`snapshot`](wink_fs::Filesystem::snapshot) keeps a manifest plus
//!   in-memory file contents, shared between snapshots; `restore` rewrites
//!   only what changed (see [`snapshot`]).
//!
//! Linux only (it needs `/proc/self/fd`).
//!
//! ```
//! use wink_fs::{Filesystem, FsLimits, WriteMode};
//! use wink_workspace::HostFilesystem;
//!
//! let dir = std::env::temp_dir().join(format!("wink-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let fs = HostFilesystem::open(&dir, FsLimits::default())?;
//!
//! fs.write("notes/plan.md", "1. read\n2. write\n", WriteMode::Overwrite)?;
//! let before = fs.snapshot()?;
//! fs.edit("notes/plan.md", "2. write", "2. test", false)?;
//! fs.restore(&before)?;
//! assert_eq!(fs.read("notes/plan.md", 1, Some(1))?.content, "2. write");
//!
//! let escape = fs.read("../outside.txt", 0, None).unwrap_err();
//! assert_eq!(escape.to_string(), "Path escapes the workspace root: ../outside.txt");
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), wink_fs::FsError>(())
//! ```

mod host;
pub mod resolve;
pub mod snapshot;
pub mod tools;

pub use host::HostFilesystem;
pub use snapshot::SnapshotLimits;
pub use tools::{WorkspaceToolsSection, workspace_section_for_root};
