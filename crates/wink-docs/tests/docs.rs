//! `docs_to_prompt` on a folder of plain-text pages (man pages and a README) and on the vendored
//! Rust book (`data/rust-book/book`): the prompt file loads, renders as one line per group, and
//! every level reads back.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::json;
use wink_core::{
    CallOutcome, Prompt, RenderedPrompt, Resources, ToolArguments, ToolCall, ToolExecutor, block_on,
};
use wink_docs::{DocsOptions, docs_to_prompt};
use wink_session::Session;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The prompt file written for `dir`, loaded and rendered.
fn render(dir: &Path) -> (wink_docs::DocsPrompt, RenderedPrompt) {
    let docs = docs_to_prompt(dir, &DocsOptions::default(), None).unwrap();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("prompt.json");
    std::fs::write(&file, serde_json::to_string_pretty(&docs.prompt).unwrap()).unwrap();
    let loaded = wink_promptfile::load(&file).unwrap();
    let rendered = Prompt::new(loaded.template).render().unwrap();
    (docs, rendered)
}

fn read(rendered: &RenderedPrompt, key: &str) -> String {
    let executor = ToolExecutor {
        resources: Resources::new(),
        ..ToolExecutor::new(Session::new(), "docs")
    };
    let call = ToolCall {
        id: "c1".into(),
        name: "read_section".into(),
        arguments: ToolArguments::Json(json!({"section_key": key})),
    };
    match block_on(executor.execute(&call, &rendered.tools, Some(rendered))).unwrap() {
        CallOutcome::Completed(result) => {
            assert!(result.result.success, "{}", result.model_text());
            result.model_text()
        }
        other => panic!("{other:?}"),
    }
}

const HEADER: &str =
    "Summarized groups of sections (to list a group's sections, call `read_section` with its key):";

#[test]
fn a_folder_of_man_pages_becomes_groups_of_pages_of_sections() {
    let (docs, rendered) = render(&fixture("man"));
    assert_eq!((docs.documents, docs.sections), (4, 13));
    assert_eq!(docs.skipped, [fixture("man").join("notes.bin")]);
    assert_eq!(
        rendered.text,
        format!(
            "## 1. Task (task)\n\n{}\n\n{HEADER}\n\
             - files (files): Contents: frob - rewrite the bytes of a file in place; tidy - remove empty lines from text files. [2 sections]\n\
             - Network tools (net): Contents: pingle - send a greeting to a host and wait for the answer. [1 section]",
            wink_docs::DEFAULT_TASK
        )
    );
    assert_eq!(
        read(&rendered, "files"),
        format!(
            "Content of section 'files':\n\n## 2. files (files)\n\n{HEADER}\n\
             - frob - rewrite the bytes of a file in place (files.frob): Contents: SYNOPSIS; DESCRIPTION; OPTIONS; EXIT STATUS. [4 sections]\n\
             - tidy - remove empty lines from text files (files.tidy): Contents: DESCRIPTION; ENVIRONMENT. [2 sections]"
        )
    );
    let frob = read(&rendered, "files.frob");
    assert!(
        frob.starts_with(
            "Content of section 'files.frob':\n\n### 2.1. frob - rewrite the bytes of a file in place (files.frob)\n\nfrob - rewrite the bytes of a file in place\n\n\
             #### 2.1.1. SYNOPSIS (files.frob.synopsis)\n\nfrob [-n COUNT] [-q] FILE\n\n---\n"
        ),
        "{frob}"
    );
    assert_eq!(
        read(&rendered, "files.frob.exit-status"),
        "Content of section 'files.frob.exit-status':\n\n#### 2.1.4. EXIT STATUS (files.frob.exit-status)\n\n\
         0 when the file was rewritten, 2 when it could not be opened."
    );
    assert!(read(&rendered, "net.pingle.description").contains("port 4242"));
}

#[test]
fn the_vendored_rust_book_is_a_tree_small_at_every_level() {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/rust-book/book");
    let (docs, rendered) = render(&book);
    assert_eq!(docs.documents, 103);
    assert!(docs.skipped.is_empty());
    let counter = wink_tokens::TokenCounter::o200k().unwrap();
    let tools: String = rendered
        .tools
        .iter()
        .map(|t| format!("{}{}{}", t.name(), t.description(), t.parameters()))
        .collect();
    let always_on = counter.count(&rendered.text) + counter.count(&tools);
    assert!(always_on < 1_500, "{always_on}\n{}", rendered.text);
    assert_eq!(rendered.tool_names(), ["read_section", "search_sections"]);
    assert!(rendered.text.contains(
        "- Common Programming Concepts (ch03-common-programming-concepts): Contents: Keywords; Variables and Mutability; Data Types; Functions; Comments; Control Flow. [6 sections]"
    ), "{}", rendered.text);
    // The whole book is far past an 8K or 32K window.
    let full: usize = docs.prompt["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| counter.count(&s.to_string()))
        .sum();
    assert!(full > 150_000, "{full}");
    let chapter = read(&rendered, "ch03-common-programming-concepts");
    assert!(counter.count(&chapter) < 1_500, "{chapter}");
    let hits = rendered.search_sections("shadowing a variable with let", 3);
    assert!(
        hits.iter().any(|h| h
            .path
            .dotted()
            .starts_with("ch03-common-programming-concepts.01-variables")),
        "{hits:?}"
    );
}
