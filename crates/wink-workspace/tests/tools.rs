//! The workspace tools section: its rendered text, and every tool run through
//! the transactional `ToolExecutor` against in-memory and host filesystems.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::{Value, json};
use wink_core::{
    CallOutcome, Prompt, PromptTemplate, Resources, Section, ToolArguments, ToolBuilder, ToolCall,
    ToolCallResult, ToolContext, ToolError, ToolExecutor, ToolRef, ToolResult, block_on,
};
use wink_fs::{Filesystem, FsLimits, InMemoryFilesystem, WriteMode};
use wink_session::Session;
use wink_workspace::tools::{MAX_READ_LINES, NO_FILESYSTEM};
use wink_workspace::{WorkspaceToolsSection, workspace_section_for_root};

// region: --- helpers

/// A small project in memory.
fn project() -> Arc<dyn Filesystem> {
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    fs.write(
        "README.md",
        "# Inventory\nTracks stock.\n",
        WriteMode::Create,
    )
    .unwrap();
    fs.write(
        "src/main.rs",
        "fn main() {\n    let level = \"info\";\n    println!(\"{level}\");\n}\n",
        WriteMode::Create,
    )
    .unwrap();
    fs.write(
        "src/util/mod.rs",
        "pub fn helper() {}\n// TODO: more helpers\n",
        WriteMode::Create,
    )
    .unwrap();
    fs.write("docs/notes.txt", "TODO: write docs\n", WriteMode::Create)
        .unwrap();
    fs
}

fn executor_with(fs: Option<Arc<dyn Filesystem>>) -> ToolExecutor {
    let mut executor = ToolExecutor::new(Session::new(), "tests:workspace");
    if let Some(fs) = fs {
        executor.resources = Resources::new().with::<Arc<dyn Filesystem>>(fs);
    }
    executor
}

/// Run one call and return its result (the call must not be fatal).
fn run(executor: &ToolExecutor, tools: &[ToolRef], name: &str, args: Value) -> ToolCallResult {
    let call = ToolCall {
        id: format!("call-{name}"),
        name: name.to_owned(),
        arguments: ToolArguments::Json(args),
    };
    match block_on(executor.execute(&call, tools, None)) {
        Ok(CallOutcome::Completed(result)) => result,
        Ok(CallOutcome::ExpansionRequired(e)) => panic!("unexpected expansion: {e:?}"),
        Err(e) => panic!("fatal error from {name}: {e}"),
    }
}

/// The text the model sees for a successful call.
fn ok_text(fs: &Arc<dyn Filesystem>, name: &str, args: Value) -> String {
    let section = WorkspaceToolsSection::new();
    let result = run(
        &executor_with(Some(fs.clone())),
        section.tools(),
        name,
        args,
    );
    assert!(
        result.result.success,
        "{name} failed: {}",
        result.model_text()
    );
    result.model_text()
}

/// The text the model sees for a failed call.
fn failure_text(fs: &Arc<dyn Filesystem>, name: &str, args: Value) -> String {
    let section = WorkspaceToolsSection::new();
    let result = run(
        &executor_with(Some(fs.clone())),
        section.tools(),
        name,
        args,
    );
    assert!(
        !result.result.success,
        "{name} succeeded: {}",
        result.model_text()
    );
    result.model_text()
}

/// Every file with its content, to compare whole workspaces.
fn contents(fs: &Arc<dyn Filesystem>) -> Vec<(String, String)> {
    fs.glob("**", "")
        .unwrap()
        .into_iter()
        .map(|path| {
            let text = fs.read_to_string(&path).unwrap();
            (path, text)
        })
        .collect()
}

// endregion: --- helpers

// region: --- section

#[test]
fn section_renders_guidance_and_tool_examples() {
    let template = PromptTemplate::builder("tests", "workspace")
        .section(WorkspaceToolsSection::new())
        .build()
        .unwrap();
    let rendered = Prompt::new(template).render().unwrap();
    assert_eq!(
        rendered.tool_names(),
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
    insta::assert_snapshot!("workspace_section", rendered.text);
}

#[test]
fn section_options_change_key_title_mount_and_limits() {
    let section = WorkspaceToolsSection::new()
        .with_key("files")
        .with_title("Project files")
        .with_mount_point("/workspace")
        .with_limits(FsLimits {
            max_read_bytes: 64 * 1024,
            max_write_bytes: 10_000,
            max_grep_matches: 50,
        });
    assert_eq!((section.key(), section.title()), ("files", "Project files"));
    assert!(!section.accepts_overrides());
    let template = PromptTemplate::builder("tests", "files")
        .section(section)
        .build()
        .unwrap();
    let text = Prompt::new(template).render().unwrap().text;
    let body: Vec<&str> = text.lines().take(5).collect();
    assert_eq!(
        body,
        [
            "## 1. Project files (files)",
            "",
            "Use these tools to explore and change the files of the workspace.",
            "",
            "1. The workspace is mounted at `/workspace`: `/workspace/src/main.rs` and `src/main.rs` name the same file. Nothing outside it can be reached.",
        ]
    );
    assert!(text.contains(
        "7. Each write or replacement is limited to 10,000 bytes, and a read returns at most 64 KiB: split large content into several appends."
    ));
}

#[test]
fn tool_schemas_use_wink_parameter_names() {
    let section = WorkspaceToolsSection::new();
    let schemas: serde_json::Map<String, Value> = section
        .tools()
        .iter()
        .map(|tool| {
            (
                tool.name().to_owned(),
                json!({"description": tool.description(), "parameters": tool.parameters()}),
            )
        })
        .collect();
    insta::assert_json_snapshot!("workspace_tool_schemas", schemas);
}

// endregion: --- section

// region: --- ls

#[test]
fn ls_lists_entries_by_name_with_file_sizes() {
    let fs = project();
    assert_eq!(
        ok_text(&fs, "ls", json!({})),
        "Listed the workspace root: 2 directories, 1 file.\n\nREADME.md (26 bytes)\ndocs/\nsrc/"
    );
    assert_eq!(
        ok_text(&fs, "ls", json!({"path": "/src/"})),
        "Listed src: 1 directory, 1 file.\n\nsrc/main.rs (63 bytes)\nsrc/util/"
    );
    fs.mkdir("empty", false, false).unwrap();
    assert_eq!(
        ok_text(&fs, "ls", json!({"path": "empty"})),
        "Listed empty: 0 directories, 0 files.\n\n(empty directory)"
    );
}

#[test]
fn ls_reports_missing_and_non_directories() {
    let fs = project();
    assert_eq!(
        failure_text(&fs, "ls", json!({"path": "nope"})),
        "Tool 'ls' execution failed: Directory not found: nope"
    );
    assert_eq!(
        failure_text(&fs, "ls", json!({"path": "README.md"})),
        "Tool 'ls' execution failed: Not a directory: README.md"
    );
    assert_eq!(
        failure_text(&fs, "ls", json!({"path": "../etc"})),
        "Tool 'ls' execution failed: Path escapes the workspace root: ../etc"
    );
}

#[test]
fn mount_point_prefixes_shown_paths_and_is_accepted_in_arguments() {
    let fs = project();
    let section = WorkspaceToolsSection::new().with_mount_point("/workspace");
    let executor = executor_with(Some(fs));
    let listing = run(
        &executor,
        section.tools(),
        "ls",
        json!({"path": "/workspace/src"}),
    );
    assert_eq!(
        listing.model_text(),
        "Listed /workspace/src: 1 directory, 1 file.\n\n/workspace/src/main.rs (63 bytes)\n/workspace/src/util/"
    );
    let read = run(
        &executor,
        section.tools(),
        "read_file",
        json!({"file_path": "README.md", "limit": 1}),
    );
    assert_eq!(
        read.model_text(),
        "Read /workspace/README.md: lines 1-1 of 2.\n\n   1 | # Inventory\n\n[Truncated: 1 more line not shown. Call read_file with offset=1 to continue.]"
    );
}

// endregion: --- ls

// region: --- read_file

#[test]
fn read_file_numbers_lines_and_pages() {
    let fs = project();
    assert_eq!(
        ok_text(&fs, "read_file", json!({"file_path": "src/main.rs"})),
        "Read src/main.rs: lines 1-4 of 4.\n\n   1 | fn main() {\n   2 |     let level = \"info\";\n   3 |     println!(\"{level}\");\n   4 | }"
    );
    assert_eq!(
        ok_text(
            &fs,
            "read_file",
            json!({"file_path": "src/main.rs", "offset": 1, "limit": 2})
        ),
        "Read src/main.rs: lines 2-3 of 4.\n\n   2 |     let level = \"info\";\n   3 |     println!(\"{level}\");\n\n[Truncated: 1 more line not shown. Call read_file with offset=3 to continue.]"
    );
    assert_eq!(
        ok_text(
            &fs,
            "read_file",
            json!({"file_path": "src/main.rs", "offset": 10})
        ),
        "Read src/main.rs: no lines at offset 10, the file has 4 lines."
    );
    fs.write("empty.txt", "", WriteMode::Create).unwrap();
    assert_eq!(
        ok_text(&fs, "read_file", json!({"file_path": "empty.txt"})),
        "Read empty.txt: the file is empty."
    );
}

#[test]
fn read_file_caps_a_page_at_two_thousand_lines() {
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    let text: String = (1..=2_500).map(|n| format!("line {n}\n")).collect();
    fs.write("big.txt", &text, WriteMode::Create).unwrap();
    let section = WorkspaceToolsSection::new();
    let result = run(
        &executor_with(Some(fs)),
        section.tools(),
        "read_file",
        json!({"file_path": "big.txt", "limit": 5000}),
    );
    let value = &result.result.value.as_ref().unwrap().json;
    assert_eq!(value["limit"], json!(MAX_READ_LINES));
    assert_eq!(value["truncated"], json!(true));
    let text = result.model_text();
    assert!(text.starts_with("Read big.txt: lines 1-2000 of 2500.\n\n   1 | line 1\n"));
    assert!(text.ends_with(
        "2000 | line 2000\n\n[Truncated: 500 more lines not shown. Call read_file with offset=2000 to continue.]"
    ));
}

#[test]
fn read_file_holds_pages_to_the_read_limit() {
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    fs.write(
        "wide.txt",
        "aaaaaaaa\nbbbbbbbb\ncccccccc\n",
        WriteMode::Create,
    )
    .unwrap();
    let section = WorkspaceToolsSection::new().with_limits(FsLimits {
        max_read_bytes: 20,
        ..FsLimits::DEFAULT
    });
    let executor = executor_with(Some(fs));
    let page = run(
        &executor,
        section.tools(),
        "read_file",
        json!({"file_path": "wide.txt"}),
    );
    assert_eq!(
        page.model_text(),
        "Read wide.txt: lines 1-2 of 3.\n\n   1 | aaaaaaaa\n   2 | bbbbbbbb\n\n[Truncated: 1 more line not shown. Call read_file with offset=2 to continue.]"
    );
    let narrow = WorkspaceToolsSection::new().with_limits(FsLimits {
        max_read_bytes: 4,
        ..FsLimits::DEFAULT
    });
    let refused = run(
        &executor,
        narrow.tools(),
        "read_file",
        json!({"file_path": "wide.txt", "offset": 1}),
    );
    assert_eq!(
        refused.model_text(),
        "Tool 'read_file' execution failed: Line 2 of wide.txt is 8 bytes, longer than the read limit of 4 bytes"
    );
}

#[test]
fn read_file_reports_bad_arguments_and_missing_files() {
    let fs = project();
    // As the guidance says, a leading `/` names the workspace root, never the host's.
    assert_eq!(
        failure_text(&fs, "read_file", json!({"file_path": "/etc/passwd"})),
        "Tool 'read_file' execution failed: File not found: etc/passwd"
    );
    assert_eq!(
        failure_text(&fs, "read_file", json!({"file_path": "nope.md"})),
        "Tool 'read_file' execution failed: File not found: nope.md"
    );
    assert_eq!(
        failure_text(&fs, "read_file", json!({"file_path": "src"})),
        "Tool 'read_file' execution failed: Is a directory, not a file: src"
    );
    assert_eq!(
        failure_text(
            &fs,
            "read_file",
            json!({"file_path": "README.md", "limit": 0})
        ),
        "Tool validation failed: limit: must be >= 1"
    );
    // The handler checks it too when invoked without schema validation.
    let section = WorkspaceToolsSection::new();
    let read_file = &section.tools()[1];
    let mut ctx = ToolContext::new(Session::new());
    ctx.resources = Resources::new().with::<Arc<dyn Filesystem>>(fs.clone());
    let error = block_on(read_file.invoke(json!({"file_path": "README.md", "limit": 0}), &mut ctx))
        .unwrap_err();
    assert_eq!(error.to_string(), "limit must be at least 1.");
    assert_eq!(
        failure_text(&fs, "read_file", json!({"file_path": "  "})),
        "Tool validation failed: file_path must not be empty."
    );
    assert!(
        failure_text(&fs, "read_file", json!({"path": "README.md"}))
            .starts_with("Tool validation failed: ")
    );
}

// endregion: --- read_file

// region: --- write_file

#[test]
fn write_file_creates_overwrites_and_appends() {
    let fs = project();
    assert_eq!(
        ok_text(
            &fs,
            "write_file",
            json!({"file_path": "notes/todo.md", "content": "- one\n"})
        ),
        "Created notes/todo.md (6 bytes)."
    );
    assert_eq!(
        ok_text(
            &fs,
            "write_file",
            json!({"file_path": "notes/todo.md", "content": "- two\n", "mode": "append"})
        ),
        "Appended 6 bytes to notes/todo.md (now 12 bytes)."
    );
    assert_eq!(
        fs.read_to_string("notes/todo.md").unwrap(),
        "- one\n- two\n"
    );
    assert_eq!(
        ok_text(
            &fs,
            "write_file",
            json!({"file_path": "notes/todo.md", "content": "x", "mode": "overwrite"})
        ),
        "Overwrote notes/todo.md (1 byte)."
    );
    assert_eq!(fs.read_to_string("notes/todo.md").unwrap(), "x");
}

#[test]
fn write_file_refuses_existing_files_oversized_content_and_escapes() {
    let fs = project();
    assert_eq!(
        failure_text(
            &fs,
            "write_file",
            json!({"file_path": "README.md", "content": "new"})
        ),
        "Tool 'write_file' execution failed: File already exists: README.md (use edit_file to change it, or mode \"overwrite\" to replace it)"
    );
    assert_eq!(
        failure_text(
            &fs,
            "write_file",
            json!({"file_path": "big.txt", "content": "x".repeat(48_001)})
        ),
        "Tool 'write_file' execution failed: Content for big.txt is 48001 bytes, the write limit is 48000 bytes (split it into smaller appends)"
    );
    assert_eq!(
        failure_text(
            &fs,
            "write_file",
            json!({"file_path": "../outside.txt", "content": "x"})
        ),
        "Tool 'write_file' execution failed: Path escapes the workspace root: ../outside.txt"
    );
    assert!(
        failure_text(
            &fs,
            "write_file",
            json!({"file_path": "a.txt", "content": "x", "mode": "truncate"})
        )
        .starts_with("Tool validation failed: ")
    );
    assert_eq!(
        fs.read_to_string("README.md").unwrap(),
        "# Inventory\nTracks stock.\n"
    );
    assert!(!fs.exists("big.txt") && !fs.exists("a.txt"));
}

// endregion: --- write_file

// region: --- edit_file

#[test]
fn edit_file_replaces_once_and_shows_the_region() {
    let fs = project();
    assert_eq!(
        ok_text(
            &fs,
            "edit_file",
            json!({"file_path": "src/main.rs", "old_string": "\"info\"", "new_string": "\"debug\""})
        ),
        "Replaced 1 occurrence in src/main.rs.\n\n   1 | fn main() {\n   2 |     let level = \"debug\";\n   3 |     println!(\"{level}\");\n   4 | }"
    );
    assert_eq!(
        fs.read_to_string("src/main.rs").unwrap(),
        "fn main() {\n    let level = \"debug\";\n    println!(\"{level}\");\n}\n"
    );
}

#[test]
fn edit_file_replace_all_and_its_failures() {
    let fs = project();
    fs.write("list.txt", "a\nb\na\nc\na\n", WriteMode::Create)
        .unwrap();
    assert_eq!(
        failure_text(
            &fs,
            "edit_file",
            json!({"file_path": "list.txt", "old_string": "a", "new_string": "z"})
        ),
        "Tool 'edit_file' execution failed: The text to replace occurs 3 times in list.txt; include more surrounding text to make it unique, or replace all occurrences"
    );
    assert_eq!(
        failure_text(
            &fs,
            "edit_file",
            json!({"file_path": "list.txt", "old_string": "q", "new_string": "z"})
        ),
        "Tool 'edit_file' execution failed: The text to replace was not found in list.txt"
    );
    assert_eq!(
        failure_text(
            &fs,
            "edit_file",
            json!({"file_path": "missing.txt", "old_string": "q", "new_string": "z"})
        ),
        "Tool 'edit_file' execution failed: File not found: missing.txt"
    );
    assert_eq!(
        ok_text(
            &fs,
            "edit_file",
            json!({"file_path": "list.txt", "old_string": "a", "new_string": "z", "replace_all": true})
        ),
        "Replaced 3 occurrences in list.txt.\n\n   1 | z\n   2 | b\n   3 | z"
    );
    assert_eq!(fs.read_to_string("list.txt").unwrap(), "z\nb\nz\nc\nz\n");
}

// endregion: --- edit_file

// region: --- glob and grep

#[test]
fn glob_finds_files_by_pattern() {
    let fs = project();
    assert_eq!(
        ok_text(&fs, "glob", json!({"pattern": "**/*.rs"})),
        "Found 2 files matching '**/*.rs' in the workspace root.\n\nsrc/main.rs\nsrc/util/mod.rs"
    );
    assert_eq!(
        ok_text(&fs, "glob", json!({"pattern": "*.rs", "path": "src/util"})),
        "Found 1 file matching '*.rs' in src/util.\n\nsrc/util/mod.rs"
    );
    assert_eq!(
        ok_text(&fs, "glob", json!({"pattern": "*.py"})),
        "Found 0 files matching '*.py' in the workspace root."
    );
    assert_eq!(
        failure_text(&fs, "glob", json!({"pattern": " "})),
        "Tool validation failed: pattern must not be empty."
    );
}

#[test]
fn grep_finds_lines_and_respects_glob_and_limits() {
    let fs = project();
    assert_eq!(
        ok_text(&fs, "grep", json!({"pattern": "TODO"})),
        "Found 2 matches for 'TODO' in 2 files.\n\ndocs/notes.txt:1: TODO: write docs\nsrc/util/mod.rs:2: // TODO: more helpers"
    );
    assert_eq!(
        ok_text(
            &fs,
            "grep",
            json!({"pattern": "TODO", "path": "src", "glob": "*.rs"})
        ),
        "Found 1 match for 'TODO' in 1 file.\n\nsrc/util/mod.rs:2: // TODO: more helpers"
    );
    assert!(
        failure_text(&fs, "grep", json!({"pattern": "(unclosed"}))
            .starts_with("Tool 'grep' execution failed: Invalid regular expression '(unclosed': ")
    );

    let capped = WorkspaceToolsSection::new().with_limits(FsLimits {
        max_grep_matches: 1,
        ..FsLimits::DEFAULT
    });
    let result = run(
        &executor_with(Some(fs)),
        capped.tools(),
        "grep",
        json!({"pattern": "TODO"}),
    );
    assert_eq!(
        result.model_text(),
        "Found 1 match for 'TODO' in 1 file.\n\ndocs/notes.txt:1: TODO: write docs\n[Stopped at the match limit; narrow the pattern, path or glob.]"
    );
}

// endregion: --- glob and grep

// region: --- rm

#[test]
fn rm_removes_files_and_directories() {
    let fs = project();
    assert_eq!(
        ok_text(&fs, "rm", json!({"path": "docs/notes.txt"})),
        "Removed file docs/notes.txt."
    );
    assert_eq!(
        failure_text(&fs, "rm", json!({"path": "src"})),
        "Tool 'rm' execution failed: Directory not empty: src (remove it recursively to delete its contents too)"
    );
    assert_eq!(
        ok_text(&fs, "rm", json!({"path": "src", "recursive": true})),
        "Removed directory src (2 files)."
    );
    assert_eq!(
        failure_text(&fs, "rm", json!({"path": "/", "recursive": true})),
        "Tool 'rm' execution failed: Cannot remove the workspace root"
    );
    assert_eq!(
        failure_text(&fs, "rm", json!({"path": "src"})),
        "Tool 'rm' execution failed: File not found: src"
    );
    assert_eq!(fs.glob("**", "").unwrap(), vec!["README.md"]);
}

// endregion: --- rm

// region: --- context and transactions

#[test]
fn every_tool_fails_cleanly_without_a_filesystem() {
    let section = WorkspaceToolsSection::new();
    let executor = executor_with(None);
    let calls = [
        ("ls", json!({})),
        ("read_file", json!({"file_path": "a"})),
        ("write_file", json!({"file_path": "a", "content": "x"})),
        (
            "edit_file",
            json!({"file_path": "a", "old_string": "x", "new_string": "y"}),
        ),
        ("glob", json!({"pattern": "*"})),
        ("grep", json!({"pattern": "x"})),
        ("rm", json!({"path": "a"})),
    ];
    for (name, args) in calls {
        let result = run(&executor, section.tools(), name, args);
        assert!(!result.result.success);
        assert_eq!(
            result.model_text(),
            format!("Tool '{name}' execution failed: {NO_FILESYSTEM}")
        );
    }
    assert_eq!(NO_FILESYSTEM, "No filesystem is available to this tool.");
}

#[test]
fn a_failed_call_leaves_the_workspace_unchanged() {
    let fs = project();
    let before = contents(&fs);

    let write_then_fail = ToolBuilder::<wink_workspace::tools::RemoveParams, String>::new(
        "scribble",
        "Writes a file, deletes another, then fails.",
    )
    .handler(|params, ctx: &mut ToolContext| {
        let fs = ctx.resource::<Arc<dyn Filesystem>>().unwrap().clone();
        fs.write("scratch.txt", "half-done", WriteMode::Create)
            .unwrap();
        fs.remove(&params.path, true).unwrap();
        Err(ToolError::failed("gave up halfway"))
    })
    .build()
    .unwrap();
    let write_then_report_failure =
        ToolBuilder::<wink_workspace::tools::RemoveParams, String>::new(
            "scribble_soft",
            "Edits a file, then reports a failure.",
        )
        .handler(|params, ctx: &mut ToolContext| {
            let fs = ctx.resource::<Arc<dyn Filesystem>>().unwrap().clone();
            fs.write(&params.path, "clobbered", WriteMode::Overwrite)
                .unwrap();
            Ok(ToolResult::failure("could not finish"))
        })
        .build()
        .unwrap();

    let executor = executor_with(Some(fs.clone()));
    let tools = [write_then_fail, write_then_report_failure];
    let hard = run(&executor, &tools, "scribble", json!({"path": "src"}));
    assert_eq!(
        hard.model_text(),
        "Tool 'scribble' execution failed: gave up halfway"
    );
    assert_eq!(contents(&fs), before);

    let soft = run(
        &executor,
        &tools,
        "scribble_soft",
        json!({"path": "README.md"}),
    );
    assert_eq!(soft.model_text(), "could not finish");
    assert_eq!(contents(&fs), before);

    // A failing workspace tool leaves no partial state either.
    let section = WorkspaceToolsSection::new();
    let failed = run(
        &executor,
        section.tools(),
        "edit_file",
        json!({"file_path": "src/util/mod.rs", "old_string": "nothing", "new_string": "x"}),
    );
    assert!(!failed.result.success);
    assert_eq!(contents(&fs), before);
}

#[test]
fn tools_work_on_a_host_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn answer() -> u32 {\n    41\n}\n",
    )
    .unwrap();
    let (section, fs) = workspace_section_for_root(dir.path(), "repo", "Repository").unwrap();
    assert_eq!((section.key(), section.title()), ("repo", "Repository"));
    let executor = executor_with(Some(fs));
    let tools = section.tools();

    let edit = run(
        &executor,
        tools,
        "edit_file",
        json!({"file_path": "src/lib.rs", "old_string": "    41", "new_string": "    42"}),
    );
    assert_eq!(
        edit.model_text(),
        "Replaced 1 occurrence in src/lib.rs.\n\n   1 | pub fn answer() -> u32 {\n   2 |     42\n   3 | }"
    );
    let write = run(
        &executor,
        tools,
        "write_file",
        json!({"file_path": "notes/plan.md", "content": "ship it\n"}),
    );
    assert_eq!(write.model_text(), "Created notes/plan.md (8 bytes).");
    let grep = run(&executor, tools, "grep", json!({"pattern": "42|ship"}));
    assert_eq!(
        grep.model_text(),
        "Found 2 matches for '42|ship' in 2 files.\n\nnotes/plan.md:1: ship it\nsrc/lib.rs:2:     42"
    );
    let escape = run(
        &executor,
        tools,
        "read_file",
        json!({"file_path": "../../etc/passwd"}),
    );
    assert_eq!(
        escape.model_text(),
        "Tool 'read_file' execution failed: Path escapes the workspace root: ../../etc/passwd"
    );
    let failed = run(
        &executor,
        tools,
        "write_file",
        json!({"file_path": "src/lib.rs", "content": "gone"}),
    );
    assert!(!failed.result.success);
    let removed = run(
        &executor,
        tools,
        "rm",
        json!({"path": "notes", "recursive": true}),
    );
    assert_eq!(removed.model_text(), "Removed directory notes (1 file).");

    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        "pub fn answer() -> u32 {\n    42\n}\n"
    );
    assert!(!dir.path().join("notes").exists());
}

#[test]
fn workspace_section_for_root_refuses_a_missing_root() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent");
    let error = workspace_section_for_root(&missing, "workspace", "Workspace").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("Workspace root unavailable: "),
        "{error}"
    );
}

// endregion: --- context and transactions
