//! The tools that change files: `write_file`, `edit_file` and `rm`.

use super::*;

pub(super) fn write_file_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
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

pub(super) fn edit_file_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
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
pub(super) fn edit_snippet(
    fs: &dyn Filesystem,
    path: &str,
    first_line: usize,
    span: usize,
) -> String {
    let start = first_line.saturating_sub(EDIT_CONTEXT_LINES);
    let count = (first_line - start + span + EDIT_CONTEXT_LINES).min(EDIT_SNIPPET_MAX_LINES);
    match fs.read(path, start, Some(count)) {
        Ok(page) => number_lines(&page.content, page.offset, page.limit),
        Err(_) => String::new(),
    }
}

pub(super) fn rm_tool(settings: &Arc<ToolSettings>) -> Result<ToolRef, PromptError> {
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
