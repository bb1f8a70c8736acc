//! The tools that only read: `ls`, `read_file` (paged to fit the budget),
//! `glob` and `grep`.

use super::*;

pub(super) fn ls_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
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

pub(super) fn read_file_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
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
pub(super) fn fit_page(
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
pub(super) fn number_lines(content: &str, offset: usize, count: usize) -> String {
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

pub(super) fn glob_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
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

pub(super) fn grep_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
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
pub(super) fn clip_line(line: &str, match_start: usize) -> String {
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
