//! Workspace-relative path handling.
//!
//! Every path crossing the [`Filesystem`](crate::Filesystem) trait is a POSIX
//! string relative to the workspace root. [`normalize_path`] turns it into a
//! canonical form: segments separated by single `/`, no `.` segments, `..`
//! resolved *lexically*, no leading or trailing slash, and `""` for the root.

use crate::FsError;

/// Longest single path segment accepted (the common file-system limit).
pub const MAX_SEGMENT_BYTES: usize = 255;

/// Normalise a workspace-relative path.
///
/// Refuses absolute paths, `..` climbing above the root, NUL bytes and
/// segments longer than [`MAX_SEGMENT_BYTES`].
///
/// ```
/// use wink_fs::normalize_path;
/// assert_eq!(normalize_path("a/./b//c/").unwrap(), "a/b/c");
/// assert_eq!(normalize_path("a/../b").unwrap(), "b");
/// assert_eq!(normalize_path(".").unwrap(), "");
/// assert!(normalize_path("../etc/passwd").is_err());
/// assert!(normalize_path("/etc/passwd").is_err());
/// ```
///
/// # Errors
/// [`FsError::AbsolutePath`], [`FsError::EscapesRoot`] or [`FsError::InvalidPath`].
pub fn normalize_path(path: &str) -> Result<String, FsError> {
    if path.contains('\0') {
        return Err(FsError::InvalidPath {
            path: path.replace('\0', "\\0"),
            reason: "contains a NUL byte".to_owned(),
        });
    }
    if path.starts_with('/') {
        return Err(FsError::AbsolutePath {
            path: path.to_owned(),
        });
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return Err(FsError::EscapesRoot {
                        path: path.to_owned(),
                    });
                }
            }
            other => {
                if other.len() > MAX_SEGMENT_BYTES {
                    return Err(FsError::InvalidPath {
                        path: path.to_owned(),
                        reason: format!(
                            "segment is {} bytes, longer than {MAX_SEGMENT_BYTES}",
                            other.len()
                        ),
                    });
                }
                segments.push(other);
            }
        }
    }
    Ok(segments.join("/"))
}

/// Normalise a path typed by a model: surrounding whitespace is trimmed, an
/// optional `mount_point` prefix (such as `/workspace`) is removed, and leading
/// slashes are dropped, so `/src/main.rs` means `src/main.rs` in the
/// workspace. Everything else follows [`normalize_path`].
///
/// ```
/// use wink_fs::normalize_model_path;
/// assert_eq!(normalize_model_path(" /src/main.rs ", None).unwrap(), "src/main.rs");
/// assert_eq!(normalize_model_path("/workspace/a.md", Some("/workspace")).unwrap(), "a.md");
/// assert_eq!(normalize_model_path("/workspace", Some("/workspace")).unwrap(), "");
/// assert!(normalize_model_path("/../x", None).is_err());
/// ```
///
/// # Errors
/// As [`normalize_path`].
pub fn normalize_model_path(path: &str, mount_point: Option<&str>) -> Result<String, FsError> {
    let mut rest = path.trim();
    if let Some(mount) = mount_point
        .map(|m| m.trim_end_matches('/'))
        .filter(|m| !m.is_empty())
        && let Some(after) = rest.strip_prefix(mount)
        && (after.is_empty() || after.starts_with('/'))
    {
        rest = after;
    }
    normalize_path(rest.trim_start_matches('/')).map_err(|error| match error {
        FsError::EscapesRoot { .. } => FsError::EscapesRoot {
            path: path.trim().to_owned(),
        },
        other => other,
    })
}

/// How a normalised path is shown in messages: `.` for the root.
#[must_use]
pub fn display_path(normalized: &str) -> &str {
    if normalized.is_empty() {
        "."
    } else {
        normalized
    }
}

/// Parent of a normalised path (`""` for top-level entries and the root).
#[must_use]
pub fn parent_of(normalized: &str) -> &str {
    normalized.rfind('/').map_or("", |i| &normalized[..i])
}

/// Last segment of a normalised path (`""` for the root).
#[must_use]
pub fn file_name(normalized: &str) -> &str {
    normalized
        .rfind('/')
        .map_or(normalized, |i| &normalized[i + 1..])
}

/// Join a normalised directory and a child name.
#[must_use]
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// True when `path` is `base` or lies beneath it (both normalised).
#[must_use]
pub fn is_within(path: &str, base: &str) -> bool {
    base.is_empty()
        || path == base
        || (path.len() > base.len()
            && path.starts_with(base)
            && path.as_bytes()[base.len()] == b'/')
}

/// `path` relative to `base` (both normalised, `path` within `base`).
#[must_use]
pub fn relative_to<'a>(path: &'a str, base: &str) -> &'a str {
    if base.is_empty() {
        path
    } else {
        path.get(base.len() + 1..).unwrap_or("")
    }
}

/// Ancestors of a normalised path from the top down, excluding the root and the path itself.
pub fn ancestors(normalized: &str) -> impl Iterator<Item = &str> {
    normalized
        .match_indices('/')
        .map(move |(i, _)| &normalized[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_dots_slashes_and_parents() {
        assert_eq!(normalize_path("").unwrap(), "");
        assert_eq!(normalize_path("./").unwrap(), "");
        assert_eq!(normalize_path("a//b/./c/").unwrap(), "a/b/c");
        assert_eq!(normalize_path("a/b/../../c").unwrap(), "c");
        assert_eq!(normalize_path("a/..").unwrap(), "");
    }

    #[test]
    fn refuses_escapes_absolute_and_nul() {
        assert_eq!(
            normalize_path("../etc/passwd").unwrap_err().to_string(),
            "Path escapes the workspace root: ../etc/passwd"
        );
        assert_eq!(
            normalize_path("a/../../b").unwrap_err().to_string(),
            "Path escapes the workspace root: a/../../b"
        );
        assert_eq!(
            normalize_path("/etc/passwd").unwrap_err().to_string(),
            "Absolute paths are not allowed, use a path relative to the workspace root: /etc/passwd"
        );
        assert_eq!(
            normalize_path("a\0b").unwrap_err().to_string(),
            "Invalid path \"a\\\\0b\": contains a NUL byte"
        );
        assert!(normalize_path(&"x".repeat(256)).is_err());
        assert!(normalize_path(&"x".repeat(255)).is_ok());
    }

    #[test]
    fn helpers_split_paths() {
        assert_eq!(parent_of("a/b/c"), "a/b");
        assert_eq!(parent_of("a"), "");
        assert_eq!(file_name("a/b/c"), "c");
        assert_eq!(file_name("a"), "a");
        assert_eq!(join("", "a"), "a");
        assert_eq!(join("a", "b"), "a/b");
        assert!(is_within("a/b", "a"));
        assert!(is_within("a", "a"));
        assert!(is_within("a", ""));
        assert!(!is_within("ab", "a"));
        assert_eq!(relative_to("a/b/c", "a"), "b/c");
        assert_eq!(relative_to("a", "a"), "");
        assert_eq!(ancestors("a/b/c").collect::<Vec<_>>(), vec!["a", "a/b"]);
        assert_eq!(ancestors("a").count(), 0);
        assert_eq!(display_path(""), ".");
    }

    #[test]
    fn model_paths_drop_leading_slashes_and_mount_points() {
        assert_eq!(normalize_model_path("/a/b", None).unwrap(), "a/b");
        assert_eq!(
            normalize_model_path("/workspacex/a", Some("/workspace")).unwrap(),
            "workspacex/a"
        );
        assert_eq!(
            normalize_model_path("/workspace/../../x", Some("/workspace/"))
                .unwrap_err()
                .to_string(),
            "Path escapes the workspace root: /workspace/../../x"
        );
    }
}
