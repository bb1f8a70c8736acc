//! The catalog: tools with their level-1 metadata and listing lines, namespaces, tags and the
//! search index; and the three operations behind the meta-tools (list, describe, find) with the
//! exact texts the model reads.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use wink_core::{Tool, ToolContext, ToolError, ToolMetadata, ToolRef, ToolResult};
use wink_search::{IndexConfig, SearchIndex, ToolDocument};
use wink_tokens::TokenCounter;

use crate::error::CatalogError;
use crate::mcp::McpServer;
use crate::record::{CatalogFile, ToolRecord};
use crate::servers::LazyServer;
use crate::tool::{CatalogTool, Invoker};

/// Name of the paging meta-tool.
pub const TOOL_LIST: &str = "tool.list";
/// Name of the meta-tool that shows full specs and activates tools.
pub const TOOL_DESCRIBE: &str = "tool.describe";
/// Name of the search meta-tool.
pub const FIND_TOOL: &str = "find_tool";
/// The meta-tool names, which catalog tools may not use.
pub const META_TOOL_NAMES: [&str; 3] = [TOOL_LIST, TOOL_DESCRIBE, FIND_TOOL];

/// Default page size of `tool.list`.
pub const DEFAULT_LIST_LIMIT: usize = 50;
/// Largest page `tool.list` returns.
pub const MAX_LIST_LIMIT: usize = 200;
/// Default number of `find_tool` results.
pub const DEFAULT_FIND_LIMIT: usize = 5;
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

/// What `tool.list` pages through.
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
    /// The BM25 score.
    pub score: f32,
    /// The purpose contained the tool's exact name.
    pub exact_name: bool,
}

struct PendingTool {
    tool: ToolRef,
    namespace: Option<String>,
    tags: Vec<String>,
    origin: String,
}

/// Collects tools and builds a [`Catalog`].
#[derive(Default)]
pub struct CatalogBuilder {
    pending: Vec<PendingTool>,
    descriptions: Vec<(String, String)>,
    line_budget: LineBudget,
    index_config: IndexConfig,
    #[cfg(feature = "embeddings")]
    embeddings: Option<(
        Arc<wink_embed::StaticModel>,
        wink_search::hybrid::HybridConfig,
    )>,
}

impl std::fmt::Debug for CatalogBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogBuilder")
            .field("tools", &self.pending.len())
            .field("line_budget", &self.line_budget)
            .finish_non_exhaustive()
    }
}

impl CatalogBuilder {
    /// Re-ranks `find_tool`'s BM25 shortlist with static embeddings from `model` (the hybrid
    /// of `wink_search::hybrid`, default settings: BM25 top 50, 0.5·BM25/max + 0.5·cosine).
    /// Exact-name hits stay first and an empty BM25 result stays empty.
    #[cfg(feature = "embeddings")]
    #[must_use]
    pub fn rerank_with(mut self, model: Arc<wink_embed::StaticModel>) -> Self {
        self.embeddings = Some((model, wink_search::hybrid::HybridConfig::default()));
        self
    }

    /// Adds a typed or dynamic tool; its [`Tool::metadata`] gives namespace and tags.
    #[must_use]
    pub fn tool(mut self, tool: ToolRef) -> Self {
        let metadata = tool.metadata();
        let origin = format!("tool `{}`", tool.name());
        self.pending.push(PendingTool {
            namespace: metadata.namespace,
            tags: metadata.tags,
            origin,
            tool,
        });
        self
    }

    /// Adds several tools.
    #[must_use]
    pub fn tools(self, tools: impl IntoIterator<Item = ToolRef>) -> Self {
        tools.into_iter().fold(self, Self::tool)
    }

    /// Adds tools described by records, without an implementation: they can be listed, searched
    /// and described, and calling one reports that nothing runs it.
    #[must_use]
    pub fn records(self, records: impl IntoIterator<Item = ToolRecord>) -> Self {
        self.records_with(records, &Invoker::Unbound)
    }

    /// Adds tools described by records, run by `handler` (which gets each tool's remote name).
    #[must_use]
    pub fn records_with_handler<F>(
        self,
        records: impl IntoIterator<Item = ToolRecord>,
        handler: F,
    ) -> Self
    where
        F: Fn(&str, Value, &mut ToolContext) -> Result<ToolResult<Value>, ToolError>
            + Send
            + Sync
            + 'static,
    {
        self.records_with(records, &Invoker::Handler(Arc::new(handler)))
    }

    /// Adds the tools and namespace descriptions of a catalog document, without implementations.
    #[must_use]
    pub fn file(mut self, file: CatalogFile) -> Self {
        self.descriptions.extend(file.namespaces);
        self.records(file.tools)
    }

    /// Adds an MCP server's tools under their own names; calls are forwarded to the server.
    #[must_use]
    pub fn mcp_server(self, server: Arc<McpServer>) -> Self {
        let records = server.tools().to_vec();
        self.records_with(records, &Invoker::Mcp(server))
    }

    /// Adds an MCP server's tools as `namespace.<tool>`; calls are forwarded under the server's
    /// own names.
    #[must_use]
    pub fn mcp_server_in(self, server: Arc<McpServer>, namespace: &str) -> Self {
        let records: Vec<ToolRecord> = server
            .tools()
            .iter()
            .map(|record| {
                let mut record = record.clone();
                record.name = format!("{namespace}.{}", record.remote_name);
                record.namespace = Some(namespace.to_owned());
                record
            })
            .collect();
        self.records_with(records, &Invoker::Mcp(server))
    }

    /// Adds the tools of an MCP server started on first use, as `<server name>.<tool>` (the
    /// tools it has listed so far: call [`LazyServer::load_tools`] first).
    #[must_use]
    pub fn lazy_server(self, server: &Arc<LazyServer>) -> Self {
        let namespace = server.name().to_owned();
        let records: Vec<ToolRecord> = server
            .tools()
            .into_iter()
            .map(|mut record| {
                record.name = format!("{namespace}.{}", record.remote_name);
                record.namespace = Some(namespace.clone());
                record.origin = format!("MCP server `{namespace}`: tool `{}`", record.remote_name);
                record
            })
            .collect();
        self.records_with(records, &Invoker::Lazy(Arc::clone(server)))
    }

    fn records_with(
        mut self,
        records: impl IntoIterator<Item = ToolRecord>,
        invoker: &Invoker,
    ) -> Self {
        for record in records {
            let namespace = record
                .namespace
                .clone()
                .or_else(|| wink_search::namespace_of(&record.name).map(str::to_owned));
            let tags = record.tags.clone();
            let origin = record.origin.clone();
            let tool: ToolRef = Arc::new(CatalogTool::new(record, invoker.clone()));
            self.pending.push(PendingTool {
                tool,
                namespace,
                tags,
                origin,
            });
        }
        self
    }

    /// Describes a namespace (shown in per-namespace listings).
    #[must_use]
    pub fn namespace_description(
        mut self,
        namespace: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.descriptions
            .push((namespace.into(), description.into()));
        self
    }

    /// How long listing lines may be (default 20 tokens).
    #[must_use]
    pub fn line_budget(mut self, budget: LineBudget) -> Self {
        self.line_budget = budget;
        self
    }

    /// The search configuration (default: `wink_search`'s tuned BM25).
    #[must_use]
    pub fn index_config(mut self, config: IndexConfig) -> Self {
        self.index_config = config;
        self
    }

    /// Validates the names (non-empty, at most 128 characters, no whitespace or control
    /// characters, not a meta-tool name, unique), computes listing lines and builds the index.
    pub fn build(self) -> Result<Catalog, CatalogError> {
        let counter = match self.line_budget {
            LineBudget::Tokens(_) => {
                Some(TokenCounter::o200k().map_err(|e| CatalogError::Tokenizer(e.to_string()))?)
            }
            LineBudget::Unlimited => None,
        };
        let lines = LineMaker {
            budget: self.line_budget,
            counter,
        };
        let mut by_name: HashMap<String, usize> = HashMap::with_capacity(self.pending.len());
        let mut entries: Vec<CatalogEntry> = Vec::with_capacity(self.pending.len());
        let mut documents = Vec::with_capacity(self.pending.len());
        for pending in self.pending {
            let name = pending.tool.name().to_owned();
            check_name(&name, &pending.origin)?;
            if let Some(&first) = by_name.get(&name) {
                return Err(CatalogError::DuplicateTool {
                    name,
                    first: entries[first].origin.clone(),
                    second: pending.origin,
                });
            }
            let mut metadata = pending.tool.metadata();
            metadata.summary = wink_search::first_sentence(pending.tool.description());
            metadata.namespace = pending.namespace;
            metadata.tags = pending.tags;
            let mut document = ToolDocument::from_json_schema(
                name.clone(),
                pending.tool.description(),
                pending.tool.parameters(),
            )
            .with_tags(metadata.tags.clone());
            document.namespace = metadata.namespace.clone();
            documents.push(document);
            let line = lines.line(&format!("- {name}"), &metadata.summary);
            by_name.insert(name, entries.len());
            entries.push(CatalogEntry {
                tool: pending.tool,
                metadata,
                line,
                grouped_line: OnceLock::new(),
                lines,
                origin: pending.origin,
            });
        }
        let descriptions: HashMap<String, String> = self.descriptions.into_iter().collect();
        let namespaces = group_namespaces(&entries, &descriptions, &lines);
        let mut tags: Vec<String> = entries
            .iter()
            .flat_map(|e| e.metadata.tags.iter().cloned())
            .collect();
        tags.sort();
        tags.dedup();
        let index = SearchIndex::build(documents, self.index_config);
        #[cfg(feature = "embeddings")]
        let search = match self.embeddings {
            Some((model, config)) => Search::Hybrid(wink_search::hybrid::HybridIndex::from_index(
                index, model, config,
            )),
            None => Search::Lexical(index),
        };
        #[cfg(not(feature = "embeddings"))]
        let search = Search::Lexical(index);
        Ok(Catalog {
            entries,
            by_name,
            namespaces,
            tags,
            search,
        })
    }
}

fn check_name(name: &str, origin: &str) -> Result<(), CatalogError> {
    let reject = |reason: &str| {
        Err(CatalogError::InvalidName {
            name: name.to_owned(),
            origin: origin.to_owned(),
            reason: reason.to_owned(),
        })
    };
    if name.is_empty() {
        return reject("the name is empty");
    }
    if name.chars().count() > 128 {
        return reject("names are at most 128 characters");
    }
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return reject("names contain no whitespace or control characters");
    }
    if META_TOOL_NAMES.contains(&name) {
        return reject("this is the name of a catalog meta-tool");
    }
    Ok(())
}

/// Groups entries by namespace, in order of first appearance.
fn group_namespaces(
    entries: &[CatalogEntry],
    descriptions: &HashMap<String, String>,
    lines: &LineMaker,
) -> Vec<Namespace> {
    let mut order: Vec<String> = Vec::new();
    let mut members: HashMap<&str, Vec<usize>> = HashMap::new();
    for (position, entry) in entries.iter().enumerate() {
        if let Some(namespace) = entry.metadata.namespace.as_deref() {
            let list = members.entry(namespace).or_default();
            if list.is_empty() {
                order.push(namespace.to_owned());
            }
            list.push(position);
        }
    }
    order
        .into_iter()
        .map(|name| {
            let tools = members.remove(name.as_str()).unwrap_or_default();
            let description = descriptions.get(&name).cloned();
            let count = match tools.len() {
                1 => "1 tool".to_owned(),
                n => format!("{n} tools"),
            };
            let head = format!("- {name} ({count})");
            let detail = match &description {
                Some(text) => wink_search::first_sentence(text),
                None => tools
                    .iter()
                    .map(|&t| {
                        let full = entries[t].name();
                        full.strip_prefix(name.as_str())
                            .and_then(|rest| rest.strip_prefix('.'))
                            .unwrap_or(full)
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            let line = lines.line(&head, &detail);
            Namespace {
                name,
                description,
                tools,
                line,
            }
        })
        .collect()
}

#[derive(Debug, Clone, Copy)]
struct LineMaker {
    budget: LineBudget,
    counter: Option<TokenCounter>,
}

impl LineMaker {
    /// `head: detail`, with `detail` cut to fit the budget (`head` alone when even one character
    /// of detail does not fit).
    fn line(&self, head: &str, detail: &str) -> String {
        if detail.is_empty() {
            return head.to_owned();
        }
        let full = format!("{head}: {detail}");
        let (LineBudget::Tokens(budget), Some(counter)) = (self.budget, self.counter) else {
            return full;
        };
        let fits = |text: &str| counter.count(text) <= budget;
        // Cheap exit: o200k never needs more tokens than bytes / 1 for ASCII, and short ASCII
        // lines are the common case; count only when the line could be over.
        if full.is_ascii() && full.len() <= budget {
            return full;
        }
        let total_tokens = counter.count(&full);
        if total_tokens <= budget {
            return full;
        }
        let boundaries: Vec<usize> = detail
            .char_indices()
            .map(|(i, _)| i)
            .skip(1)
            .chain(std::iter::once(detail.len()))
            .collect();
        let cut = |end: usize| -> String {
            let mut kept = detail[..end].trim_end();
            // Prefer a word boundary in the second half of the kept text.
            if end < detail.len()
                && let Some(space) = kept.rfind(char::is_whitespace)
                && space >= kept.len() / 2
            {
                kept = kept[..space].trim_end();
            }
            let kept = kept.trim_end_matches([',', ';', ':', '-', '(', '.', ' ']);
            format!("{head}: {kept}…")
        };
        // Find the longest prefix whose cut line fits: start from an estimate made with the
        // line's own tokens-per-character ratio, gallop to bracket the answer, then bisect.
        let kept_ok = |kept: usize| kept > 0 && fits(&cut(boundaries[kept - 1]));
        let n = boundaries.len();
        let estimate = (n * budget / total_tokens).clamp(1, n);
        let (mut low, mut high);
        if kept_ok(estimate) {
            low = estimate;
            let mut step = (n / 8).max(2);
            high = loop {
                let probe = (low + step).min(n);
                if probe == low {
                    break low;
                }
                if kept_ok(probe) {
                    low = probe;
                    step *= 2;
                } else {
                    break probe - 1;
                }
            };
        } else {
            high = estimate - 1;
            let mut step = (n / 8).max(2);
            low = loop {
                let probe = high.saturating_sub(step);
                if probe == 0 {
                    break 0;
                }
                if kept_ok(probe) {
                    break probe;
                }
                high = probe - 1;
                step *= 2;
            };
        }
        while low < high {
            let middle = (low + high).div_ceil(2);
            if kept_ok(middle) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        // Token counts are not strictly monotonic in the prefix length: step down until it fits.
        let mut kept = low;
        while kept > 0 {
            let line = cut(boundaries[kept - 1]);
            if fits(&line) && line.len() > head.len() + 3 {
                return line;
            }
            kept -= 1;
        }
        head.to_owned()
    }
}

/// An immutable catalog of tools: entries in insertion order, namespaces, tags and the index.
#[derive(Debug)]
pub struct Catalog {
    entries: Vec<CatalogEntry>,
    by_name: HashMap<String, usize>,
    namespaces: Vec<Namespace>,
    tags: Vec<String>,
    search: Search,
}

/// How `find_tool` ranks: the BM25 index alone, or the hybrid built on it (which owns it).
#[derive(Debug)]
enum Search {
    Lexical(SearchIndex),
    #[cfg(feature = "embeddings")]
    Hybrid(wink_search::hybrid::HybridIndex),
}

impl Search {
    fn lexical(&self) -> &SearchIndex {
        match self {
            Self::Lexical(index) => index,
            #[cfg(feature = "embeddings")]
            Self::Hybrid(hybrid) => hybrid.lexical(),
        }
    }

    fn search(&self, query: &str, limit: usize) -> Vec<wink_search::SearchHit> {
        match self {
            Self::Lexical(index) => index.search(query, limit),
            #[cfg(feature = "embeddings")]
            Self::Hybrid(hybrid) => hybrid.search(query, limit),
        }
    }
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
            search: Search::Lexical(SearchIndex::build(Vec::new(), IndexConfig::default())),
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
        self.search.lexical()
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

    /// The `tool.list` text: a header with the range shown, one line per tool, and how to get
    /// the next page. Filters that match nothing say what exists instead.
    pub fn list_text(&self, query: &ListQuery) -> String {
        let namespace = query.namespace.as_deref().filter(|n| !n.is_empty());
        let tag = query.tag.as_deref().filter(|t| !t.is_empty());
        if self.entries.is_empty() {
            return "The catalog holds no tools.".to_owned();
        }
        if let Some(namespace) = namespace
            && !self
                .entries
                .iter()
                .any(|e| Self::in_namespace(e, namespace))
        {
            let names: Vec<&str> = self.namespaces.iter().map(|n| n.name.as_str()).collect();
            return if names.is_empty() {
                format!("No namespace `{namespace}`: the catalog's tools have no namespaces.")
            } else {
                format!("No namespace `{namespace}`. Namespaces: {}.", hint(&names))
            };
        }
        if let Some(tag) = tag
            && !self.entries.iter().any(|e| Self::has_tag(e, tag))
        {
            let names: Vec<&str> = self.tags.iter().map(String::as_str).collect();
            return if names.is_empty() {
                format!("No tag `{tag}`: the catalog's tools have no tags.")
            } else {
                format!("No tag `{tag}`. Tags: {}.", hint(&names))
            };
        }
        let matching: Vec<&CatalogEntry> = self
            .entries
            .iter()
            .filter(|e| namespace.is_none_or(|n| Self::in_namespace(e, n)))
            .filter(|e| tag.is_none_or(|t| Self::has_tag(e, t)))
            .collect();
        let scope = match (namespace, tag) {
            (None, None) => "Catalog".to_owned(),
            (Some(n), None) => format!("Namespace `{n}`"),
            (None, Some(t)) => format!("Tag `{t}`"),
            (Some(n), Some(t)) => format!("Namespace `{n}`, tag `{t}`"),
        };
        let total = matching.len();
        if total == 0 {
            return format!("{scope}: no tools match both filters.");
        }
        if query.offset >= total {
            return format!(
                "{scope}: {total} tools; offset {} is past the end. Call `tool.list` with a smaller offset.",
                query.offset
            );
        }
        let limit = query.limit.clamp(1, MAX_LIST_LIMIT);
        let end = (query.offset + limit).min(total);
        let mut out = format!("{scope}: tools {}-{end} of {total}.", query.offset + 1);
        for entry in &matching[query.offset..end] {
            out.push('\n');
            out.push_str(&entry.line);
        }
        if end < total {
            out.push_str(&format!("\nMore: call `tool.list` with offset {end}."));
        }
        out
    }

    /// `tool.describe`: the full specification of each named tool. A name may omit its
    /// `namespace.` prefix when that leaves it unambiguous (grouped listings show such names).
    /// Unknown names are reported with the closest matches, ambiguous ones with their
    /// candidates; meta-tool names are noted as always callable.
    pub fn describe(&self, names: &[String]) -> Description {
        let mut found: Vec<usize> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        let mut meta: Vec<&str> = Vec::new();
        let mut ambiguous: Vec<(String, Vec<usize>)> = Vec::new();
        for name in names {
            let name = name.trim();
            let resolved = match self.by_name.get(name) {
                Some(&position) => Some(position),
                None => {
                    let matches = self.by_short_name(name);
                    match matches.as_slice() {
                        [only] => Some(*only),
                        [] => None,
                        _ => {
                            if !ambiguous.iter().any(|(n, _)| n == name) {
                                ambiguous.push((name.to_owned(), matches));
                            }
                            continue;
                        }
                    }
                }
            };
            if let Some(position) = resolved {
                if !found.contains(&position) {
                    found.push(position);
                }
            } else if let Some(m) = META_TOOL_NAMES.iter().find(|m| **m == name) {
                if !meta.contains(m) {
                    meta.push(m);
                }
            } else if !unknown.iter().any(|u| u == name) {
                unknown.push(name.to_owned());
            }
        }
        let mut parts: Vec<String> = Vec::new();
        if !found.is_empty() {
            let listed: Vec<String> = found
                .iter()
                .map(|&i| format!("`{}`", self.entries[i].name()))
                .collect();
            let verb = if found.len() == 1 { "is" } else { "are" };
            parts.push(format!(
                "{} {verb} now callable. Full specification{}:",
                listed.join(", "),
                if found.len() == 1 { "" } else { "s" }
            ));
        }
        for name in &meta {
            parts.push(format!(
                "`{name}` is a catalog meta-tool; it is always callable."
            ));
        }
        for (name, matches) in &ambiguous {
            let listed: Vec<String> = matches
                .iter()
                .map(|&i| format!("`{}`", self.entries[i].name()))
                .collect();
            parts.push(format!(
                "`{name}` is ambiguous: {}. Pass the full name.",
                listed.join(", ")
            ));
        }
        for name in &unknown {
            let closest: Vec<String> = self
                .index()
                .search(name, 3)
                .into_iter()
                .map(|hit| format!("`{}`", hit.name))
                .collect();
            parts.push(if closest.is_empty() {
                format!("No catalog tool is named `{name}`; `find_tool` searches by capability.")
            } else {
                format!(
                    "No catalog tool is named `{name}`. Closest names: {}.",
                    closest.join(", ")
                )
            });
        }
        for &position in &found {
            parts.push(full_spec_text(self.entries[position].tool.as_ref()));
        }
        unknown.extend(ambiguous.into_iter().map(|(name, _)| name));
        Description {
            text: parts.join("\n\n"),
            tools: found
                .iter()
                .map(|&i| self.entries[i].tool.clone())
                .collect(),
            unknown,
        }
    }

    /// Entries whose name without its namespace prefix is `short`.
    fn by_short_name(&self, short: &str) -> Vec<usize> {
        if short.is_empty() {
            return Vec::new();
        }
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.name().len() > short.len() && e.short_name() == short)
            .map(|(i, _)| i)
            .collect()
    }

    /// `find_tool`: up to `limit` entries for `purpose`, best first (tools whose exact name the
    /// purpose contains come first; ties by name).
    pub fn find(&self, purpose: &str, limit: usize) -> Vec<Found> {
        self.search
            .search(purpose, limit)
            .into_iter()
            .map(|hit| Found {
                entry: hit.index,
                score: hit.score,
                exact_name: hit.exact_name,
            })
            .collect()
    }

    /// The `find_tool` text. An empty result says the search found nothing — never that no
    /// such tool exists — and points at `tool.list`.
    pub fn find_text(&self, purpose: &str, limit: usize) -> String {
        self.find_text_noted(
            purpose,
            limit,
            "call `tool.describe` with a name to make it callable",
        )
    }

    /// [`Catalog::find_text`] with `note` in the heading's parentheses (native mode: the provider
    /// has loaded the tools found).
    pub(crate) fn find_text_noted(&self, purpose: &str, limit: usize, note: &str) -> String {
        let limit = limit.clamp(1, MAX_FIND_LIMIT);
        let found = self.find(purpose, limit);
        let quoted = purpose.trim();
        if found.is_empty() {
            let browse = if self.namespaces.is_empty() {
                "browse the catalog with `tool.list`".to_owned()
            } else {
                let names: Vec<&str> = self.namespaces.iter().map(|n| n.name.as_str()).collect();
                format!(
                    "browse the catalog with `tool.list` (namespaces: {})",
                    hint(&names)
                )
            };
            return format!(
                "The search found no tool for \"{quoted}\". That does not mean the catalog lacks one: the search only matches words of tool names and descriptions. Describe the capability in other words, or {browse}."
            );
        }
        let mut out = format!("Tools for \"{quoted}\", best first ({note}):");
        for hit in found {
            out.push('\n');
            out.push_str(&self.entries[hit.entry].line);
        }
        out
    }
}

/// `a, b, c` — or the first [`HINT_NAMES`] and how many more.
fn hint(names: &[&str]) -> String {
    if names.len() <= HINT_NAMES {
        names.join(", ")
    } else {
        format!(
            "{}, and {} more",
            names[..HINT_NAMES].join(", "),
            names.len() - HINT_NAMES
        )
    }
}

/// Seed 004's level 2 as text: name, description, parameters (compact JSON Schema), returns,
/// usage, examples, errors and notes.
pub fn full_spec_text(tool: &dyn Tool) -> String {
    let spec = tool.full_spec();
    let mut out = format!("### {}\n", spec.name);
    if !spec.description.trim().is_empty() {
        out.push_str(spec.description.trim());
        out.push('\n');
    }
    out.push_str("Parameters (JSON Schema): ");
    out.push_str(&spec.parameters.to_string());
    out.push_str("\nReturns: ");
    out.push_str(&spec.returns);
    if let Some(usage) = &spec.usage {
        out.push_str("\nUsage: ");
        out.push_str(usage);
    }
    if !spec.examples.is_empty() {
        out.push_str("\nExamples:");
        for example in &spec.examples {
            out.push_str(&format!(
                "\n- {}: {} → {}",
                example.description, example.input, example.output
            ));
        }
    }
    if !spec.errors.is_empty() {
        out.push_str("\nErrors: ");
        out.push_str(&spec.errors.join("; "));
    }
    if !spec.notes.is_empty() {
        out.push_str("\nNotes: ");
        out.push_str(&spec.notes.join("; "));
    }
    out
}
