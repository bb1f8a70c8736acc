//! A folder of documents as a summarized wink prompt file (`wink docs-to-prompt`).
//!
//! Markdown (`.md`), HTML (`.html`; only a page's `<main>` when it has one) and plain-text files
//! (`.txt`, man pages, files without an extension) become a section tree: one group per folder,
//! one section per document, one per heading nested by level. Every section is summarized, by the
//! first sentence of its text (or the titles of what it holds), or by a model ([`Summarizer`]). A
//! group holding more than [`DocsOptions::max_children`] sections is split into ranges, so no level
//! lists more than that many lines: with `wink`'s group rendering the always-on prompt of a tree of
//! hundreds of sections stays around a thousand tokens, and each read shows one level.
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("install.md"), "# Installing\n\nUse rustup to install Rust.\n\n## Updating\n\nRun `rustup update` to update.\n").unwrap();
//! let docs = wink_docs::docs_to_prompt(dir.path(), &wink_docs::DocsOptions::default(), None).unwrap();
//! assert_eq!((docs.documents, docs.sections), (1, 2));
//! let install = &docs.prompt["sections"][1];
//! assert_eq!(install["key"], "install");
//! assert_eq!(install["summary"], "Contents: Updating.");
//! assert_eq!(install["children"][0]["summary"], "Run rustup update to update.");
//! ```

mod html;
mod markdown;
mod tree;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

pub use html::{HtmlPage, decode_entities, html_to_markdown};
pub use markdown::{Parsed, Part, clean_inline, parse_markdown, parse_text};
pub use tree::{
    DocKind, DocNode, contents_summary, document, first_sentence, folder, limit_fan_out, slug,
    summarize,
};

/// Reading a documentation folder failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DocsError {
    /// A file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The folder holds no document.
    #[error("{path} holds no Markdown, HTML or plain-text document")]
    Empty {
        /// The folder.
        path: PathBuf,
    },
    /// The model could not summarize a section.
    #[error("summarizing '{key}' failed: {message}")]
    Summary {
        /// The dotted key of the section.
        key: String,
        /// The model's error.
        message: String,
    },
}

/// The task section a prompt starts with unless told otherwise.
pub const DEFAULT_TASK: &str = "Answer the question from the documentation below, not from memory. Its sections are summarized: find the one that holds the answer (read a group to list its sections, or search them when you can), read it, and answer in one sentence with the exact value or name the documentation gives.";

/// How a folder becomes a prompt file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocsOptions {
    /// The prompt's namespace.
    pub ns: String,
    /// The prompt's key (default: the folder's name as a key).
    pub key: Option<String>,
    /// The text of the `task` section the prompt starts with.
    pub task: String,
    /// Most sections one group lists; larger ones are split into ranges.
    pub max_children: usize,
}

impl Default for DocsOptions {
    fn default() -> Self {
        Self {
            ns: "docs".to_owned(),
            key: None,
            task: DEFAULT_TASK.to_owned(),
            max_children: 24,
        }
    }
}

/// Writes summaries with a model: `text` is the section's own text (cut to a few thousand
/// characters) followed, for a group, by the titles and summaries of what it holds.
pub trait Summarizer {
    /// One sentence saying what the section holds.
    fn summarize(&mut self, title: &str, text: &str) -> Result<String, String>;
}

/// A folder's prompt file.
#[derive(Debug, Clone, PartialEq)]
pub struct DocsPrompt {
    /// The prompt file (JSON).
    pub prompt: Value,
    /// Documents read.
    pub documents: usize,
    /// Sections in the tree (the task section not counted).
    pub sections: usize,
    /// Files skipped because they are not documents.
    pub skipped: Vec<PathBuf>,
}

/// The section tree of the documents under `dir` (see the crate docs), the files skipped, and
/// how many documents were read.
pub fn docs_tree(dir: &Path, max_children: usize) -> Result<(DocNode, Vec<PathBuf>), DocsError> {
    let mut skipped = Vec::new();
    let mut root = folder(dir, &mut Vec::new(), &mut skipped)?.ok_or_else(|| DocsError::Empty {
        path: dir.to_path_buf(),
    })?;
    limit_fan_out(&mut root, max_children);
    Ok((root, skipped))
}

/// The prompt file for the documents under `dir`: a `task` section, then the folder's contents as
/// summarized sections (its index document's text, when it has one, as an `overview` section).
/// With a `summarizer`, every summary is the model's, written leaves first.
pub fn docs_to_prompt(
    dir: &Path,
    options: &DocsOptions,
    summarizer: Option<&mut dyn Summarizer>,
) -> Result<DocsPrompt, DocsError> {
    let (mut root, skipped) = docs_tree(dir, options.max_children)?;
    if let Some(summarizer) = summarizer {
        for child in &mut root.children {
            summarize_with(child, "", summarizer)?;
        }
    }
    let documents = count_documents(dir, &skipped);
    let mut sections =
        vec![json!({"key": "task", "title": "Task", "template": escape(&options.task)})];
    let mut count = 0;
    let mut taken: Vec<String> = vec!["task".to_owned()];
    if !root.body.trim().is_empty() {
        let overview = DocNode {
            key: slug("overview", &mut taken),
            title: root.title.clone(),
            body: root.body.clone(),
            summary: root.summary.clone(),
            children: Vec::new(),
        };
        sections.push(section_json(&overview, &mut count));
    }
    for child in &mut root.children {
        if taken.contains(&child.key) {
            child.key = slug(&child.key, &mut taken);
        }
        sections.push(section_json(child, &mut count));
    }
    let key = options.key.clone().unwrap_or_else(|| {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        slug(&name, &mut Vec::new())
    });
    let prompt = json!({
        "ns": options.ns,
        "key": key,
        "name": root.title,
        "disclosure": "unified",
        "sections": sections,
    });
    Ok(DocsPrompt {
        prompt,
        documents,
        sections: count,
        skipped,
    })
}

/// Documents under `dir`: files of a [`DocKind`], hidden ones left out.
fn count_documents(dir: &Path, skipped: &[PathBuf]) -> usize {
    let mut count = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if !skipped.contains(&path) && DocKind::of(&path).is_some() {
                count += 1;
            }
        }
    }
    count
}

/// `$` doubled: prompt-file templates substitute `${name}`.
fn escape(text: &str) -> String {
    text.replace('$', "$$")
}

fn section_json(node: &DocNode, count: &mut usize) -> Value {
    *count += 1;
    let mut section = json!({
        "key": node.key,
        "title": if node.title.trim().is_empty() { node.key.clone() } else { node.title.clone() },
        "template": escape(&node.body),
        "summary": escape(&node.summary),
        "visibility": "summary",
    });
    if !node.children.is_empty() {
        let children: Vec<Value> = node
            .children
            .iter()
            .map(|child| section_json(child, count))
            .collect();
        section["children"] = Value::Array(children);
    }
    section
}

/// Most characters of a section's own text given to the summarizer.
const SUMMARIZED_CHARS: usize = 4_000;

/// Every summary of `node`'s tree written by `summarizer`, leaves first (a group's request
/// lists its children's new summaries).
fn summarize_with(
    node: &mut DocNode,
    parent: &str,
    summarizer: &mut dyn Summarizer,
) -> Result<(), DocsError> {
    let dotted = if parent.is_empty() {
        node.key.clone()
    } else {
        format!("{parent}.{}", node.key)
    };
    for child in &mut node.children {
        summarize_with(child, &dotted, summarizer)?;
    }
    let own: String = node.body.chars().take(SUMMARIZED_CHARS).collect();
    let mut text = own;
    if !node.children.is_empty() {
        text.push_str("\n\nIt holds:\n");
        for child in &node.children {
            text.push_str(&format!("- {}: {}\n", child.title, child.summary));
        }
    }
    let summary = summarizer
        .summarize(&node.title, text.trim())
        .map_err(|message| DocsError::Summary {
            key: dotted.clone(),
            message,
        })?;
    let summary = summary.split_whitespace().collect::<Vec<_>>().join(" ");
    if !summary.is_empty() {
        node.summary = summary;
    }
    Ok(())
}
