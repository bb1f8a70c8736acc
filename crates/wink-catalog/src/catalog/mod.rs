//! The catalog: tools with their level-1 metadata and listing lines, namespaces, tags and the
//! search index; and the three operations behind the meta-tools (list, describe, find) with the
//! exact texts the model reads.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use wink_core::{Tool, ToolContext, ToolError, ToolMetadata, ToolRef, ToolResult};
use wink_search::{IndexConfig, SearchConfig, SearchIndex, TaskInput, ToolDocument, ToolSearch};
use wink_tokens::TokenCounter;

use crate::error::CatalogError;
use crate::record::{CatalogFile, ToolRecord};
use crate::tool::{CatalogTool, Handler, ToolInvoker};

mod builder;
mod lines;
mod texts;
pub use builder::*;
use lines::*;
pub use texts::*;

pub use wink_core::builtin::{FIND_TOOL, TOOL_DESCRIBE, TOOL_LIST};
/// The meta-tool names, which catalog tools may not use.
pub const META_TOOL_NAMES: [&str; 3] = [TOOL_LIST, TOOL_DESCRIBE, FIND_TOOL];

/// Default page size of `tool.list`.
pub const DEFAULT_LIST_LIMIT: usize = 50;
/// Largest page `tool.list` returns.
pub const MAX_LIST_LIMIT: usize = 200;
/// Default number of `find_tool` results for one capability.
pub const DEFAULT_FIND_LIMIT: usize = 5;
/// Default number of `find_tool` results per step of a task with several steps (at most
/// [`MAX_FIND_LIMIT`] in all).
pub const DEFAULT_FIND_PER_STEP: usize = 3;
/// Most `find_tool` results.
pub const MAX_FIND_LIMIT: usize = 20;
/// Most namespaces or tags named in a hint before "and N more".
const HINT_NAMES: usize = 20;

/// How long a listing line may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineBudget {
    /// At most this many `o200k_base` tokens per line; longer summaries are cut at a word (or
    /// character, for text without spaces) and end with `…`. The name is never cut.
    Tokens(usize),
    /// Lines keep the whole first sentence.
    Unlimited,
}

impl Default for LineBudget {
    /// 20 tokens: inside seed 004's 10–30 tokens for level-1 metadata and under the 25-token
    /// line target, lean enough for a 527-tool catalog to cost 90% less than its schemas when
    /// grouped by namespace (see the crate README).
    fn default() -> Self {
        Self::Tokens(20)
    }
}

/// One tool of a catalog.
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    tool: ToolRef,
    metadata: ToolMetadata,
    line: String,
    grouped_line: OnceLock<String>,
    lines: LineMaker,
    origin: String,
}

impl CatalogEntry {
    /// The tool itself (what becomes callable once described).
    pub fn tool(&self) -> &ToolRef {
        &self.tool
    }

    /// The tool name.
    pub fn name(&self) -> &str {
        self.tool.name()
    }

    /// Level-1 metadata (summary = the description's first sentence, uncut).
    pub fn metadata(&self) -> &ToolMetadata {
        &self.metadata
    }

    /// The listing line, `- name: summary`, within the catalog's [`LineBudget`].
    pub fn line(&self) -> &str {
        &self.line
    }

    /// The line under its namespace heading in a grouped listing: `- short_name: summary`,
    /// where `short_name` drops the `namespace.` prefix (the full line when there is none).
    pub fn grouped_line(&self) -> &str {
        self.grouped_line.get_or_init(|| {
            let short = self.short_name();
            if short.len() == self.name().len() {
                self.line.clone()
            } else {
                self.lines
                    .line(&format!("- {short}"), &self.metadata.summary)
            }
        })
    }

    /// The name without its `namespace.` prefix.
    pub fn short_name(&self) -> &str {
        let name = self.tool.name();
        self.metadata
            .namespace
            .as_deref()
            .and_then(|ns| name.strip_prefix(ns))
            .and_then(|rest| rest.strip_prefix('.'))
            .unwrap_or(name)
    }

    /// Where the tool came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }
}

/// A namespace: the tools sharing a name prefix (or an MCP server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    /// The namespace (`github`, `bing-cn-mcp`).
    pub name: String,
    /// Its description, when a source gave one.
    pub description: Option<String>,
    /// Positions of its tools in [`Catalog::entries`].
    pub tools: Vec<usize>,
    /// Its listing line, `- name (N tools): description or first tool names`.
    pub line: String,
}

/// What `tool.list` pages through: the catalog in order, or the tools a search finds (in search
/// order), filtered by namespace and tag.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// Only this namespace (and namespaces nested in it, `a` covers `a.b`).
    pub namespace: Option<String>,
    /// Only tools with this tag (case-insensitive).
    pub tag: Option<String>,
    /// Matching tools to skip.
    pub offset: usize,
    /// Page size (clamped to 1..=[`MAX_LIST_LIMIT`]).
    pub limit: usize,
    /// Only tools the search finds for these capabilities, or for a task when there is one
    /// (split into steps), in search order.
    pub queries: Vec<String>,
}

impl ListQuery {
    /// The first page of everything, [`DEFAULT_LIST_LIMIT`] tools.
    pub fn new() -> Self {
        Self {
            limit: DEFAULT_LIST_LIMIT,
            ..Self::default()
        }
    }
}

/// The result of [`Catalog::describe`].
#[derive(Debug, Clone)]
pub struct Description {
    /// The text for the model: what became callable, then each full specification.
    pub text: String,
    /// The described tools, in request order (duplicates removed).
    pub tools: Vec<ToolRef>,
    /// Requested names that are not catalog tools (ambiguous short names included).
    pub unknown: Vec<String>,
}

/// A `find_tool` hit.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Position in [`Catalog::entries`].
    pub entry: usize,
    /// The search score (BM25, fused with the server's when routed, or with embeddings).
    pub score: f32,
    /// The purpose contained the tool's exact name.
    pub exact_name: bool,
    /// The step of the task the tool serves (position in [`FoundTask::steps`]; 0 for a single
    /// request).
    pub step: usize,
}

/// The result of [`Catalog::find_task`]: the steps of the task and the tools covering them.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundTask {
    /// The steps, in task order (one for a single request).
    pub steps: Vec<String>,
    /// The tools, in list order (the whole task's best and each step's best, then the others
    /// by reciprocal-rank fusion of the lists).
    pub hits: Vec<Found>,
}

/// An immutable catalog of tools: entries in insertion order, namespaces, tags and the index.
#[derive(Debug)]
pub struct Catalog {
    entries: Vec<CatalogEntry>,
    by_name: HashMap<String, usize>,
    namespaces: Vec<Namespace>,
    tags: Vec<String>,
    search: ToolSearch,
}

impl Catalog {
    /// Starts a catalog.
    pub fn builder() -> CatalogBuilder {
        CatalogBuilder::default()
    }

    /// A catalog without tools.
    pub fn empty() -> Self {
        Self {
            entries: Vec::new(),
            by_name: HashMap::new(),
            namespaces: Vec::new(),
            tags: Vec::new(),
            search: ToolSearch::new(SearchIndex::build(Vec::new(), IndexConfig::default())),
        }
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the catalog holds no tools.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All entries, in insertion order.
    pub fn entries(&self) -> &[CatalogEntry] {
        &self.entries
    }

    /// The entry named `name`.
    pub fn get(&self, name: &str) -> Option<&CatalogEntry> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }

    /// Namespaces in order of first appearance.
    pub fn namespaces(&self) -> &[Namespace] {
        &self.namespaces
    }

    /// Tags, sorted.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The search index (documents in entry order).
    pub fn index(&self) -> &SearchIndex {
        self.search.index()
    }

    /// The search behind `find_tool` (routing, task steps, embeddings when configured).
    pub fn search(&self) -> &ToolSearch {
        &self.search
    }

    /// Entries without a namespace.
    pub fn unnamespaced(&self) -> impl Iterator<Item = &CatalogEntry> {
        self.entries
            .iter()
            .filter(|e| e.metadata.namespace.is_none())
    }

    fn in_namespace(entry: &CatalogEntry, namespace: &str) -> bool {
        entry.metadata.namespace.as_deref().is_some_and(|ns| {
            ns == namespace
                || ns
                    .strip_prefix(namespace)
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    }

    fn has_tag(entry: &CatalogEntry, tag: &str) -> bool {
        entry
            .metadata
            .tags
            .iter()
            .any(|t| t.eq_ignore_ascii_case(tag))
    }
}
