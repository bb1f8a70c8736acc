//! [`InMemoryFilesystem`]: a workspace held in a persistent ordered map.

use std::ops::Bound;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::SystemTime;

use rpds::RedBlackTreeMapSync;

use crate::path::{self, display_path};
use crate::text::{self, GrepQuery};
use crate::{
    EditResult, FileInfo, FileKind, Filesystem, FilesystemId, FsError, FsLimits, FsSnapshot,
    GlobPattern, GrepMatch, ReadResult, WriteMode, WriteResult, normalize_path,
};

/// Entries keyed by normalised path; every ancestor of a key is a directory entry.
type Tree = RedBlackTreeMapSync<String, Node>;

#[derive(Debug, Clone)]
enum Node {
    Directory,
    File(FileNode),
}

#[derive(Debug, Clone)]
struct FileNode {
    content: Content,
    modified: SystemTime,
}

/// File content, kept as text when it is valid UTF-8 so reads and greps need no re-validation.
#[derive(Debug, Clone)]
enum Content {
    Text(Arc<str>),
    Binary(Arc<[u8]>),
}

impl Content {
    fn from_bytes(bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(text) => Self::Text(Arc::from(text)),
            Err(error) => Self::Binary(Arc::from(error.into_bytes())),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Self::Text(text) => text.as_bytes(),
            Self::Binary(bytes) => bytes,
        }
    }

    fn text(&self) -> Option<&str> {
        match self {
            Self::Text(text) => Some(text),
            Self::Binary(_) => None,
        }
    }

    fn len(&self) -> u64 {
        self.bytes().len() as u64
    }
}

/// Snapshot state: the tree itself (structural sharing makes it O(1)).
#[derive(Debug)]
struct MemorySnapshot(Tree);

/// A workspace kept entirely in memory; no real file I/O.
///
/// Entries live in a persistent red-black tree keyed by normalised path, so
/// [`snapshot`](Filesystem::snapshot) and [`restore`](Filesystem::restore) are
/// O(1) reference copies, and a failed call never leaves a half-applied
/// change (each mutation builds the new tree, then swaps it in).
///
/// ```
/// use wink_fs::{Filesystem, InMemoryFilesystem, WriteMode};
/// let fs = InMemoryFilesystem::new();
/// fs.write("notes/todo.md", "- write tests\n", WriteMode::Create).unwrap();
/// let before = fs.snapshot().unwrap();
/// fs.remove("notes", true).unwrap();
/// fs.restore(&before).unwrap();
/// assert_eq!(fs.read("notes/todo.md", 0, None).unwrap().content, "- write tests");
/// ```
#[derive(Debug)]
pub struct InMemoryFilesystem {
    id: FilesystemId,
    limits: FsLimits,
    tree: RwLock<Tree>,
}

impl Default for InMemoryFilesystem {
    fn default() -> Self {
        Self::new()
    }
}

impl InMemoryFilesystem {
    /// An empty workspace with [`FsLimits::DEFAULT`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_limits(FsLimits::DEFAULT)
    }

    /// An empty workspace with the given limits.
    #[must_use]
    pub fn with_limits(limits: FsLimits) -> Self {
        Self {
            id: FilesystemId::fresh(),
            limits,
            tree: RwLock::new(Tree::new_sync()),
        }
    }

    /// Number of files and directories (the root excluded).
    #[must_use]
    pub fn entry_count(&self) -> usize {
        self.read_tree().size()
    }

    fn read_tree(&self) -> RwLockReadGuard<'_, Tree> {
        self.tree.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_tree(&self) -> RwLockWriteGuard<'_, Tree> {
        self.tree.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn file_node<'t>(tree: &'t Tree, normalized: &str) -> Result<&'t FileNode, FsError> {
        match lookup(tree, normalized) {
            Some(Node::File(file)) => Ok(file),
            Some(Node::Directory) => Err(FsError::IsADirectory {
                path: display_path(normalized).to_owned(),
            }),
            None => {
                check_ancestors(tree, normalized)?;
                Err(FsError::FileNotFound {
                    path: display_path(normalized).to_owned(),
                })
            }
        }
    }

    /// Directory entry checks for `dir`: Ok when it is the root or a directory.
    fn require_directory(tree: &Tree, dir: &str) -> Result<(), FsError> {
        match lookup(tree, dir) {
            Some(Node::Directory) => Ok(()),
            Some(Node::File(_)) => Err(FsError::NotADirectory {
                path: dir.to_owned(),
            }),
            None => {
                check_ancestors(tree, dir)?;
                Err(FsError::DirectoryNotFound {
                    path: display_path(dir).to_owned(),
                })
            }
        }
    }

    /// Create every missing ancestor of `normalized` in `tree`.
    fn ensure_parents(tree: &mut Tree, normalized: &str) -> Result<(), FsError> {
        for ancestor in path::ancestors(normalized) {
            match tree.get(ancestor) {
                Some(Node::Directory) => {}
                Some(Node::File(_)) => {
                    return Err(FsError::NotADirectory {
                        path: ancestor.to_owned(),
                    });
                }
                None => tree.insert_mut(ancestor.to_owned(), Node::Directory),
            }
        }
        Ok(())
    }

    fn store(
        &self,
        normalized: &str,
        content: Content,
        mode: WriteMode,
        written: usize,
    ) -> Result<WriteResult, FsError> {
        let mut guard = self.write_tree();
        let mut tree = guard.clone();
        Self::ensure_parents(&mut tree, normalized)?;
        let existing = match tree.get(normalized) {
            Some(Node::Directory) => {
                return Err(FsError::IsADirectory {
                    path: normalized.to_owned(),
                });
            }
            Some(Node::File(file)) => Some(file.content.clone()),
            None => None,
        };
        let content = match (mode, existing.as_ref()) {
            (WriteMode::Create, Some(_)) => {
                return Err(FsError::AlreadyExists {
                    path: normalized.to_owned(),
                    kind: FileKind::File,
                });
            }
            (WriteMode::Append, Some(previous)) => {
                let mut joined = previous.bytes().to_vec();
                joined.extend_from_slice(content.bytes());
                Content::from_bytes(joined)
            }
            _ => content,
        };
        let size_bytes = content.len();
        tree.insert_mut(
            normalized.to_owned(),
            Node::File(FileNode {
                content,
                modified: SystemTime::now(),
            }),
        );
        *guard = tree;
        Ok(WriteResult {
            path: normalized.to_owned(),
            mode,
            bytes_written: written as u64,
            size_bytes,
            created: existing.is_none(),
        })
    }
}

/// A missing path whose ancestor is a file goes through that file: report it.
fn check_ancestors(tree: &Tree, normalized: &str) -> Result<(), FsError> {
    for ancestor in path::ancestors(normalized) {
        match tree.get(ancestor) {
            Some(Node::File(_)) => {
                return Err(FsError::NotADirectory {
                    path: ancestor.to_owned(),
                });
            }
            Some(Node::Directory) => {}
            None => return Ok(()),
        }
    }
    Ok(())
}

fn lookup<'t>(tree: &'t Tree, normalized: &str) -> Option<&'t Node> {
    if normalized.is_empty() {
        Some(&Node::Directory)
    } else {
        tree.get(normalized)
    }
}

fn info(normalized: &str, node: &Node) -> FileInfo {
    let (kind, size_bytes, modified) = match node {
        Node::Directory => (FileKind::Directory, 0, None),
        Node::File(file) => (FileKind::File, file.content.len(), Some(file.modified)),
    };
    FileInfo {
        path: normalized.to_owned(),
        name: path::file_name(normalized).to_owned(),
        kind,
        size_bytes,
        modified,
    }
}

/// Every entry strictly beneath `dir`, in path order.
fn descendants<'t>(tree: &'t Tree, dir: &str) -> impl Iterator<Item = (&'t String, &'t Node)> {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    tree.range::<String, _>((Bound::Included(prefix.clone()), Bound::Unbounded))
        .take_while(move |(key, _)| key.starts_with(prefix.as_str()))
}

/// Entries directly inside `dir`, in name order, skipping over deeper subtrees.
fn children<'t>(tree: &'t Tree, dir: &str) -> Vec<(&'t String, &'t Node)> {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let mut out = Vec::new();
    let mut cursor = prefix.clone();
    let mut inclusive = true;
    loop {
        let lower = if inclusive {
            Bound::Included(cursor.as_str())
        } else {
            Bound::Excluded(cursor.as_str())
        };
        let Some((key, node)) = tree.range::<str, _>((lower, Bound::Unbounded)).next() else {
            break;
        };
        let Some(rest) = key.strip_prefix(prefix.as_str()) else {
            break;
        };
        match rest.find('/') {
            None => {
                out.push((key, node));
                cursor.clone_from(key);
                inclusive = false;
            }
            Some(slash) => {
                // '0' sorts right after '/', so this jumps past the child's subtree.
                cursor = format!("{prefix}{}0", &rest[..slash]);
                inclusive = true;
            }
        }
    }
    out
}

impl Filesystem for InMemoryFilesystem {
    fn limits(&self) -> FsLimits {
        self.limits
    }

    fn read(&self, path: &str, offset: usize, limit: Option<usize>) -> Result<ReadResult, FsError> {
        let normalized = normalize_path(path)?;
        let tree = self.read_tree().clone();
        let file = Self::file_node(&tree, &normalized)?;
        let text = file.content.text().ok_or_else(|| FsError::NotUtf8 {
            path: normalized.clone(),
        })?;
        text::read_page(&normalized, text, offset, limit, self.limits.max_read_bytes)
    }

    fn read_bytes(&self, path: &str) -> Result<Vec<u8>, FsError> {
        let normalized = normalize_path(path)?;
        let tree = self.read_tree().clone();
        let file = Self::file_node(&tree, &normalized)?;
        text::check_read_size(&normalized, file.content.len(), self.limits.max_read_bytes)?;
        Ok(file.content.bytes().to_vec())
    }

    fn write_bytes(
        &self,
        path: &str,
        content: &[u8],
        mode: WriteMode,
    ) -> Result<WriteResult, FsError> {
        let normalized = text::write_target(path, content.len(), self.limits.max_write_bytes)?;
        self.store(
            &normalized,
            Content::from_bytes(content.to_vec()),
            mode,
            content.len(),
        )
    }

    fn edit(
        &self,
        path: &str,
        old: &str,
        new: &str,
        replace_all: bool,
    ) -> Result<EditResult, FsError> {
        let normalized = normalize_path(path)?;
        let mut guard = self.write_tree();
        let file = Self::file_node(&guard, &normalized)?;
        text::check_read_size(&normalized, file.content.len(), self.limits.max_read_bytes)?;
        let text = file.content.text().ok_or_else(|| FsError::NotUtf8 {
            path: normalized.clone(),
        })?;
        let (updated, replacements) = text::apply_edit(
            &normalized,
            text,
            old,
            new,
            replace_all,
            self.limits.max_write_bytes,
        )?;
        let size_bytes = updated.len() as u64;
        guard.insert_mut(
            normalized.clone(),
            Node::File(FileNode {
                content: Content::Text(Arc::from(updated)),
                modified: SystemTime::now(),
            }),
        );
        Ok(EditResult {
            path: normalized,
            replacements,
            size_bytes,
        })
    }

    fn mkdir(&self, path: &str, parents: bool, exist_ok: bool) -> Result<(), FsError> {
        let normalized = normalize_path(path)?;
        let mut guard = self.write_tree();
        match lookup(&guard, &normalized) {
            Some(Node::Directory) if exist_ok => return Ok(()),
            Some(node) => {
                return Err(FsError::AlreadyExists {
                    path: display_path(&normalized).to_owned(),
                    kind: info(&normalized, node).kind,
                });
            }
            None => {}
        }
        let mut tree = guard.clone();
        if parents {
            Self::ensure_parents(&mut tree, &normalized)?;
        } else {
            Self::require_directory(&tree, path::parent_of(&normalized))?;
        }
        tree.insert_mut(normalized, Node::Directory);
        *guard = tree;
        Ok(())
    }

    fn list(&self, path: &str) -> Result<Vec<FileInfo>, FsError> {
        let normalized = normalize_path(path)?;
        let tree = self.read_tree().clone();
        Self::require_directory(&tree, &normalized)?;
        Ok(children(&tree, &normalized)
            .into_iter()
            .map(|(key, node)| info(key, node))
            .collect())
    }

    fn glob(&self, pattern: &str, path: &str) -> Result<Vec<String>, FsError> {
        let base = normalize_path(path)?;
        let pattern = GlobPattern::new(pattern)?;
        let tree = self.read_tree().clone();
        match lookup(&tree, &base) {
            None => {
                check_ancestors(&tree, &base)?;
                return Ok(Vec::new());
            }
            Some(Node::File(_)) => return Err(FsError::NotADirectory { path: base }),
            Some(Node::Directory) => {}
        }
        Ok(descendants(&tree, &base)
            .filter(|(key, node)| {
                matches!(node, Node::File(_)) && pattern.matches(path::relative_to(key, &base))
            })
            .map(|(key, _)| key.clone())
            .collect())
    }

    fn grep(
        &self,
        pattern: &str,
        path: &str,
        glob: Option<&str>,
    ) -> Result<Vec<GrepMatch>, FsError> {
        let base = normalize_path(path)?;
        let query = GrepQuery::new(pattern, &base, glob)?;
        let tree = self.read_tree().clone();
        let cap = self.limits.max_grep_matches;
        let mut out = Vec::new();
        let search = |key: &str, file: &FileNode, out: &mut Vec<GrepMatch>| {
            if file.content.len() <= self.limits.max_read_bytes as u64
                && let Some(text) = file.content.text()
            {
                query.search(key, text, cap - out.len(), out);
            }
        };
        match lookup(&tree, &base) {
            None => check_ancestors(&tree, &base)?,
            Some(Node::File(file)) => {
                if query.accepts_path(&base) {
                    search(&base, file, &mut out);
                }
            }
            Some(Node::Directory) => {
                for (key, node) in descendants(&tree, &base) {
                    if out.len() >= cap {
                        break;
                    }
                    if let Node::File(file) = node
                        && query.accepts_path(key)
                    {
                        search(key, file, &mut out);
                    }
                }
            }
        }
        Ok(out)
    }

    fn remove(&self, path: &str, recursive: bool) -> Result<(), FsError> {
        let normalized = normalize_path(path)?;
        if normalized.is_empty() {
            return Err(FsError::RootRemoval);
        }
        let mut guard = self.write_tree();
        match guard.get(normalized.as_str()) {
            None => {
                check_ancestors(&guard, &normalized)?;
                return Err(FsError::FileNotFound { path: normalized });
            }
            Some(Node::File(_)) => {
                guard.remove_mut(normalized.as_str());
                return Ok(());
            }
            Some(Node::Directory) => {}
        }
        let doomed: Vec<String> = descendants(&guard, &normalized)
            .map(|(key, _)| key.clone())
            .collect();
        if !doomed.is_empty() && !recursive {
            return Err(FsError::DirectoryNotEmpty { path: normalized });
        }
        let mut tree = guard.clone();
        for key in &doomed {
            tree.remove_mut(key.as_str());
        }
        tree.remove_mut(normalized.as_str());
        *guard = tree;
        Ok(())
    }

    fn stat(&self, path: &str) -> Result<FileInfo, FsError> {
        let normalized = normalize_path(path)?;
        let tree = self.read_tree().clone();
        match lookup(&tree, &normalized) {
            Some(node) => Ok(info(&normalized, node)),
            None => {
                check_ancestors(&tree, &normalized)?;
                Err(FsError::FileNotFound { path: normalized })
            }
        }
    }

    fn snapshot(&self) -> Result<FsSnapshot, FsError> {
        let tree = self.read_tree().clone();
        Ok(FsSnapshot::new(
            self.id,
            &self.root_label(),
            Arc::new(MemorySnapshot(tree)),
        ))
    }

    fn restore(&self, snapshot: &FsSnapshot) -> Result<(), FsError> {
        let state: &MemorySnapshot = snapshot.state_for(self.id, &self.root_label())?;
        *self.write_tree() = state.0.clone();
        Ok(())
    }

    fn root_label(&self) -> String {
        "memory".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_skip_nested_subtrees_and_sort_by_name() {
        let fs = InMemoryFilesystem::new();
        for file in ["a/x/deep.txt", "a-b", "a/y", "a0", "b/c"] {
            fs.write(file, "", WriteMode::Create).unwrap();
        }
        let tree = fs.read_tree().clone();
        let top: Vec<&str> = children(&tree, "")
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(top, vec!["a", "a-b", "a0", "b"]);
        let inside: Vec<&str> = children(&tree, "a")
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(inside, vec!["a/x", "a/y"]);
    }

    #[test]
    fn binary_content_round_trips_but_is_not_text() {
        let fs = InMemoryFilesystem::new();
        fs.write_bytes("img.bin", &[0xff, 0x00, 0x10], WriteMode::Create)
            .unwrap();
        assert_eq!(fs.read_bytes("img.bin").unwrap(), vec![0xff, 0x00, 0x10]);
        assert_eq!(
            fs.read("img.bin", 0, None).unwrap_err().to_string(),
            "File is not valid UTF-8 text: img.bin"
        );
        assert!(fs.grep(".", "", None).unwrap().is_empty());
    }

    #[test]
    fn snapshots_share_structure_and_ignore_later_writes() {
        let fs = InMemoryFilesystem::new();
        fs.write("a", "1", WriteMode::Create).unwrap();
        let snapshot = fs.snapshot().unwrap();
        fs.write("a", "2", WriteMode::Overwrite).unwrap();
        fs.write("b", "3", WriteMode::Create).unwrap();
        fs.restore(&snapshot).unwrap();
        assert_eq!(fs.read_to_string("a").unwrap(), "1");
        assert!(!fs.exists("b"));
        assert_eq!(fs.entry_count(), 1);
    }

    #[test]
    fn foreign_snapshots_are_refused() {
        let first = InMemoryFilesystem::new();
        let second = InMemoryFilesystem::new();
        let snapshot = first.snapshot().unwrap();
        let message = second.restore(&snapshot).unwrap_err().to_string();
        assert!(
            message.starts_with("Snapshot was taken from memory (#"),
            "{message}"
        );
        assert!(
            message.contains("it cannot be restored into memory (#"),
            "{message}"
        );
    }
}
