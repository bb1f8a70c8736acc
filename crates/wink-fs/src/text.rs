//! Text helpers shared by every backend, so reads, edits and searches behave
//! identically whatever stores the bytes.

use regex::{Regex, RegexBuilder};

use crate::{FsError, GlobPattern, GrepMatch, ReadResult, path};

/// Lines of `text` the way every backend counts them: split on `\n`, a
/// trailing `\r` removed, and no empty last line after a final newline.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
}

/// Accumulates one page of a file, line by line, under the read limit.
///
/// Feed it every line of the file (it needs the total count) and call
/// [`ReadWindow::finish`].
#[derive(Debug)]
pub struct ReadWindow {
    path: String,
    offset: usize,
    limit: Option<usize>,
    max_bytes: usize,
    content: String,
    returned: usize,
    total: usize,
    full: bool,
}

impl ReadWindow {
    /// A window over lines `offset..offset + limit` (`None`: to the end) of `path`.
    #[must_use]
    pub fn new(path: &str, offset: usize, limit: Option<usize>, max_bytes: usize) -> Self {
        Self {
            path: path.to_owned(),
            offset,
            limit,
            max_bytes,
            content: String::new(),
            returned: 0,
            total: 0,
            full: false,
        }
    }

    /// Offer the next line of the file (without its line ending).
    ///
    /// # Errors
    /// [`FsError::LineTooLong`] when the first line of the page alone exceeds the read limit.
    pub fn push(&mut self, line: &str) -> Result<(), FsError> {
        let index = self.total;
        self.total += 1;
        if self.full || index < self.offset || self.limit.is_some_and(|l| self.returned >= l) {
            return Ok(());
        }
        let separator = usize::from(self.returned > 0);
        if self.content.len() + separator + line.len() > self.max_bytes {
            if self.returned == 0 {
                return Err(FsError::LineTooLong {
                    path: self.path.clone(),
                    line_number: index + 1,
                    line_bytes: line.len(),
                    limit_bytes: self.max_bytes,
                });
            }
            self.full = true;
            return Ok(());
        }
        if separator == 1 {
            self.content.push('\n');
        }
        self.content.push_str(line);
        self.returned += 1;
        Ok(())
    }

    /// Number of lines offered so far.
    #[must_use]
    pub fn lines_seen(&self) -> usize {
        self.total
    }

    /// The page.
    #[must_use]
    pub fn finish(self) -> ReadResult {
        let offset = self.offset.min(self.total);
        ReadResult {
            path: self.path,
            content: self.content,
            total_lines: self.total,
            offset,
            limit: self.returned,
            truncated: offset + self.returned < self.total,
        }
    }
}

/// Read a page out of text already in memory.
///
/// # Errors
/// As [`ReadWindow::push`].
pub fn read_page(
    path: &str,
    text: &str,
    offset: usize,
    limit: Option<usize>,
    max_bytes: usize,
) -> Result<ReadResult, FsError> {
    let mut window = ReadWindow::new(path, offset, limit, max_bytes);
    for line in lines(text) {
        window.push(line)?;
    }
    Ok(window.finish())
}

/// The check every backend makes before loading a whole file (`read_bytes`, `edit`): a file of
/// `size_bytes` must fit `max_read_bytes`.
///
/// # Errors
/// [`FsError::FileTooLarge`] naming `path` when it does not.
pub fn check_read_size(path: &str, size_bytes: u64, max_read_bytes: usize) -> Result<(), FsError> {
    if size_bytes > max_read_bytes as u64 {
        return Err(FsError::FileTooLarge {
            path: path.to_owned(),
            size_bytes,
            limit_bytes: max_read_bytes,
        });
    }
    Ok(())
}

/// The normalised path a whole-file write of `size_bytes` goes to, with the checks every
/// backend makes before touching anything: the root is a directory, and the content must fit
/// `max_write_bytes`.
///
/// # Errors
/// The errors of [`normalize_path`](crate::normalize_path), [`FsError::IsADirectory`] for the
/// root, [`FsError::WriteTooLarge`].
pub fn write_target(
    path: &str,
    size_bytes: usize,
    max_write_bytes: usize,
) -> Result<String, FsError> {
    let normalized = path::normalize_path(path)?;
    if normalized.is_empty() {
        return Err(FsError::IsADirectory {
            path: ".".to_owned(),
        });
    }
    if size_bytes > max_write_bytes {
        return Err(FsError::WriteTooLarge {
            path: normalized,
            size_bytes,
            limit_bytes: max_write_bytes,
        });
    }
    Ok(normalized)
}

/// Replace `old` with `new` in `text`: exactly one occurrence unless `replace_all`.
///
/// Returns the new text and the number of replacements.
///
/// # Errors
/// [`FsError::EmptyEdit`], [`FsError::EditTargetNotFound`], [`FsError::AmbiguousEdit`],
/// or [`FsError::WriteTooLarge`] when `new` exceeds `max_write_bytes`.
pub fn apply_edit(
    path: &str,
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    max_write_bytes: usize,
) -> Result<(String, usize), FsError> {
    if old.is_empty() {
        return Err(FsError::EmptyEdit {
            path: path.to_owned(),
        });
    }
    if new.len() > max_write_bytes {
        return Err(FsError::WriteTooLarge {
            path: path.to_owned(),
            size_bytes: new.len(),
            limit_bytes: max_write_bytes,
        });
    }
    let occurrences = text.matches(old).count();
    match occurrences {
        0 => Err(FsError::EditTargetNotFound {
            path: path.to_owned(),
        }),
        1 => Ok((text.replacen(old, new, 1), 1)),
        n if replace_all => Ok((text.replace(old, new), n)),
        n => Err(FsError::AmbiguousEdit {
            path: path.to_owned(),
            occurrences: n,
        }),
    }
}

/// A compiled `grep` request: the regular expression plus the file filter.
#[derive(Debug, Clone)]
pub struct GrepQuery {
    line_regex: Regex,
    file_prefilter: Regex,
    base: String,
    glob: Option<GlobPattern>,
}

impl GrepQuery {
    /// Compile `pattern` for searching files under the normalised `base`,
    /// optionally filtered by `glob` (see [`GlobPattern::matches_file`]).
    ///
    /// # Errors
    /// [`FsError::InvalidRegex`] or [`FsError::InvalidGlob`].
    pub fn new(pattern: &str, base: &str, glob: Option<&str>) -> Result<Self, FsError> {
        let invalid = |error: regex::Error| FsError::InvalidRegex {
            pattern: pattern.to_owned(),
            reason: error.to_string(),
        };
        let line_regex = RegexBuilder::new(pattern).build().map_err(invalid)?;
        // Whole-file screen: `^`/`$` anchor at line boundaries, so any line
        // match is also a match here, and files without one are skipped fast.
        let file_prefilter = RegexBuilder::new(pattern)
            .multi_line(true)
            .crlf(true)
            .build()
            .map_err(invalid)?;
        let glob = glob
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map(GlobPattern::new)
            .transpose()?;
        Ok(Self {
            line_regex,
            file_prefilter,
            base: base.to_owned(),
            glob,
        })
    }

    /// The normalised search base.
    #[must_use]
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Should the file at normalised `path` be searched?
    #[must_use]
    pub fn accepts_path(&self, file_path: &str) -> bool {
        path::is_within(file_path, &self.base)
            && self
                .glob
                .as_ref()
                .is_none_or(|glob| glob.matches_file(path::relative_to(file_path, &self.base)))
    }

    /// Search `text` (the content of `file_path`), appending at most `room` matches to `out`.
    pub fn search(&self, file_path: &str, text: &str, room: usize, out: &mut Vec<GrepMatch>) {
        if room == 0 || !self.file_prefilter.is_match(text) {
            return;
        }
        let mut added = 0;
        for (index, line) in lines(text).enumerate() {
            if let Some(found) = self.line_regex.find(line) {
                out.push(GrepMatch {
                    path: file_path.to_owned(),
                    line_number: index + 1,
                    line: line.to_owned(),
                    match_start: found.start(),
                    match_end: found.end(),
                });
                added += 1;
                if added == room {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_lines_with_offset_and_limit() {
        let page = read_page("a.txt", "one\ntwo\r\nthree\n", 1, Some(1), 100).unwrap();
        assert_eq!(
            page,
            ReadResult {
                path: "a.txt".into(),
                content: "two".into(),
                total_lines: 3,
                offset: 1,
                limit: 1,
                truncated: true,
            }
        );
        let rest = read_page("a.txt", "one\ntwo\r\nthree\n", 1, None, 100).unwrap();
        assert_eq!(rest.content, "two\nthree");
        assert!(!rest.truncated);
        let beyond = read_page("a.txt", "one\n", 9, None, 100).unwrap();
        assert_eq!(
            (beyond.offset, beyond.limit, beyond.content.as_str()),
            (1, 0, "")
        );
        let empty = read_page("e", "", 0, None, 100).unwrap();
        assert_eq!((empty.total_lines, empty.truncated), (0, false));
    }

    #[test]
    fn pages_stop_at_the_byte_limit() {
        let page = read_page("a", "aaaa\nbbbb\ncccc", 0, None, 9).unwrap();
        assert_eq!(
            (page.content.as_str(), page.limit, page.truncated),
            ("aaaa\nbbbb", 2, true)
        );
        assert_eq!(
            read_page("a", "aaaa\nbbbbbbbbbbbb", 1, None, 9)
                .unwrap_err()
                .to_string(),
            "Line 2 of a is 12 bytes, longer than the read limit of 9 bytes"
        );
    }

    #[test]
    fn edits_replace_exactly_once_or_all() {
        assert_eq!(
            apply_edit("f", "a b a", "b", "c", false, 10).unwrap(),
            ("a c a".into(), 1)
        );
        assert_eq!(
            apply_edit("f", "a b a", "a", "x", true, 10).unwrap(),
            ("x b x".into(), 2)
        );
        assert_eq!(
            apply_edit("f", "a b a", "a", "x", false, 10)
                .unwrap_err()
                .to_string(),
            "The text to replace occurs 2 times in f; include more surrounding text to make it unique, or replace all occurrences"
        );
        assert_eq!(
            apply_edit("f", "a", "z", "x", false, 10)
                .unwrap_err()
                .to_string(),
            "The text to replace was not found in f"
        );
        assert_eq!(
            apply_edit("f", "a", "", "x", false, 10)
                .unwrap_err()
                .to_string(),
            "The text to replace must not be empty (editing f)"
        );
        assert!(matches!(
            apply_edit("f", "a", "a", "xxxxx", false, 4),
            Err(FsError::WriteTooLarge {
                size_bytes: 5,
                limit_bytes: 4,
                ..
            })
        ));
    }

    #[test]
    fn grep_anchors_work_per_line_including_crlf() {
        let query = GrepQuery::new("^b.*d$", "", None).unwrap();
        let mut out = Vec::new();
        query.search("f", "abc\r\nbcd\r\nbxd", 10, &mut out);
        let found: Vec<_> = out
            .iter()
            .map(|m| (m.line_number, m.line.as_str()))
            .collect();
        assert_eq!(found, vec![(2, "bcd"), (3, "bxd")]);
        let mut capped = Vec::new();
        query.search("f", "abc\r\nbcd\r\nbxd", 1, &mut capped);
        assert_eq!(capped.len(), 1);
    }

    #[test]
    fn grep_filters_by_base_and_glob() {
        let query = GrepQuery::new("x", "src", Some("*.rs")).unwrap();
        assert!(query.accepts_path("src/a/b.rs"));
        assert!(!query.accepts_path("src/a/b.md"));
        assert!(!query.accepts_path("srcx/b.rs"));
        let nested = GrepQuery::new("x", "src", Some("a/*.rs")).unwrap();
        assert!(nested.accepts_path("src/a/b.rs"));
        assert!(!nested.accepts_path("src/c/a/b.rs"));
        assert_eq!(
            GrepQuery::new("(", "", None)
                .unwrap_err()
                .to_string()
                .lines()
                .next()
                .unwrap(),
            "Invalid regular expression '(': regex parse error:"
        );
    }
}
