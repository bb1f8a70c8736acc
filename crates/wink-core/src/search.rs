//! The builtin `search_sections` tool: a search over the sections summaries hide (their titles,
//! summaries, text and the tools they hold), returning keys with a snippet, so a model can find a
//! fact without walking the tree. Ranking is BM25 by default ([`wink_search::Bm25Ranking`]), or
//! any [`Ranking`] the template is given (the hybrid re-rank of `wink-search`'s `embeddings`
//! feature). Pre-opening (`wink_agent::preopen`) ranks with the same index
//! ([`RenderedPrompt::search_sections`](crate::RenderedPrompt::search_sections)).

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde_json::{Value, json};
use wink_search::{ParamDoc, Ranked, Ranking, ToolDocument};
use wink_session::{SectionPath, SectionVisibility};

use crate::disclosure::{DisclosureMode, OPEN_SECTIONS, READ_SECTION};
use crate::render::{RenderState, one_line};
use crate::tool::{
    Tool, ToolContext, ToolError, ToolFuture, ToolPayload, ToolRef, ToolResponse, ToolResult,
};

pub use crate::builtin::SEARCH_SECTIONS;

/// With [`SearchSections::Auto`], `search_sections` is offered once the summaries hide at least
/// this many sections (summarized ones and the sections inside them): below that, reading is as
/// quick as searching and the tool's schema is not worth its tokens.
pub const SEARCH_SECTIONS_AUTO_MIN: usize = 12;

/// Results a search returns unless asked for another number.
pub const SEARCH_SECTIONS_DEFAULT_LIMIT: usize = 5;

/// Most results one search returns.
pub const SEARCH_SECTIONS_MAX_LIMIT: usize = 10;

/// Longest snippet, in characters.
const SNIPPET_CHARS: usize = 240;

/// When the builtin `search_sections` tool is offered (never in [`DisclosureMode::Wink`], which
/// keeps WINK v0.17's tools).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SearchSections {
    /// While the summaries hide at least [`SEARCH_SECTIONS_AUTO_MIN`] sections (the default).
    #[default]
    Auto,
    /// While anything is summarized.
    On,
    /// Never.
    Off,
}

impl SearchSections {
    /// The setting's name: `auto`, `on` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::On => "on",
            Self::Off => "off",
        }
    }
}

impl fmt::Display for SearchSections {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SearchSections {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Self::Auto),
            "on" | "true" => Ok(Self::On),
            "off" | "false" => Ok(Self::Off),
            other => Err(format!(
                "unknown search_sections setting '{other}' (expected auto, on or off)"
            )),
        }
    }
}

/// One section a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionHit {
    /// The section.
    pub path: SectionPath,
    /// Its title.
    pub title: String,
    /// The ranking's score (higher is better).
    pub score: f32,
    /// The passage of its text (or its summary) that best matches the query, on one line.
    pub snippet: String,
    /// The query's terms (as the index sees them: stemmed, stopwords dropped) that the section
    /// holds in what is indexed of it, in query order.
    pub matched_terms: Vec<String>,
}

/// One indexed section: what the index holds and what a hit shows.
struct SectionDoc {
    path: SectionPath,
    title: String,
    /// Summary and body text, for snippets.
    text: String,
    /// Every term of what is indexed of the section.
    terms: BTreeSet<String>,
}

/// The search index of one render: every enabled section the render hides (summarized, or inside
/// a summarized section), built on first use.
pub(crate) struct SectionIndex {
    docs: Vec<SectionDoc>,
    ranked: Box<dyn Ranked>,
}

impl fmt::Debug for SectionIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SectionIndex")
            .field("sections", &self.docs.len())
            .finish_non_exhaustive()
    }
}

impl SectionIndex {
    /// The `limit` sections that best match `query`, best first.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<SectionHit> {
        let terms = query_terms(query);
        self.ranked
            .rank(query, limit)
            .into_iter()
            .filter_map(|hit| {
                let doc = self.docs.get(hit.index)?;
                Some(SectionHit {
                    path: doc.path.clone(),
                    title: doc.title.clone(),
                    score: hit.score,
                    snippet: snippet(&doc.text, &terms),
                    matched_terms: terms
                        .iter()
                        .filter(|term| doc.terms.contains(*term))
                        .cloned()
                        .collect(),
                })
            })
            .collect()
    }
}

impl RenderState {
    /// Indices of the enabled nodes this render hides: summarized, or inside a summarized
    /// section (with every ancestor enabled), in tree order.
    pub(crate) fn hidden_nodes(&self) -> Vec<usize> {
        let session = self.session.as_ref();
        let mut hidden = Vec::new();
        let mut disabled_skip: Option<usize> = None;
        let mut summarized_at: Option<usize> = None;
        for (index, node) in self.nodes().iter().enumerate() {
            if let Some(d) = disabled_skip {
                if node.depth > d {
                    continue;
                }
                disabled_skip = None;
            }
            if summarized_at.is_some_and(|d| node.depth <= d) {
                summarized_at = None;
            }
            let params = self.resolve_params(index).ok().flatten();
            if !self
                .is_enabled(index, params.as_ref(), session)
                .unwrap_or(false)
            {
                disabled_skip = Some(node.depth);
                continue;
            }
            let summarized = self.render_visibility.get(index).copied().flatten()
                == Some(SectionVisibility::Summary);
            if summarized && summarized_at.is_none() {
                summarized_at = Some(node.depth);
            }
            if summarized_at.is_some() {
                hidden.push(index);
            }
        }
        hidden
    }

    /// The search index over [`RenderState::hidden_nodes`]: per section its heading and summary
    /// (as a summary renders them), its own text in full (heading, body, tool examples; not its
    /// children, which are documents of their own), and the names and descriptions of its tools.
    pub(crate) fn build_section_index(&self, ranking: &dyn Ranking) -> SectionIndex {
        let mut documents = Vec::new();
        let mut docs = Vec::new();
        for index in self.hidden_nodes() {
            let node = &self.nodes()[index];
            let params = self.resolve_params(index).ok().flatten();
            let summarized = self
                .render_node(index, params.as_ref(), SectionVisibility::Summary, false)
                .unwrap_or_default();
            let full = self
                .render_node(index, params.as_ref(), SectionVisibility::Full, true)
                .unwrap_or_default();
            let summary = match node.section.summary() {
                Some(_) => node
                    .section
                    .render_body(params.as_ref(), SectionVisibility::Summary)
                    .unwrap_or_default(),
                None => String::new(),
            };
            let body = node
                .section
                .render_body(params.as_ref(), SectionVisibility::Full)
                .unwrap_or_default();
            let mut document =
                ToolDocument::new(node.path.dotted(), format!("{summarized}\n\n{full}"));
            document.parameters = node
                .section
                .tools()
                .iter()
                .map(|tool| ParamDoc {
                    name: tool.name().to_owned(),
                    description: tool.description().to_owned(),
                })
                .collect();
            document.tags = node
                .section
                .tools()
                .iter()
                .map(|tool| tool.name().to_owned())
                .collect();
            let terms = indexed_terms(&document);
            documents.push(document);
            docs.push(SectionDoc {
                path: node.path.clone(),
                title: crate::key::python_strip(node.section.title()).to_owned(),
                text: format!("{summary}\n\n{body}"),
                terms,
            });
        }
        SectionIndex {
            ranked: ranking.index(documents),
            docs,
        }
    }

    /// Whether this render offers `search_sections` (something is summarized: the caller
    /// checks).
    pub(crate) fn offers_search(&self) -> bool {
        if self.mode == DisclosureMode::Wink {
            return false;
        }
        match self.template.search_sections() {
            SearchSections::Off => false,
            SearchSections::On => true,
            SearchSections::Auto => self.hidden_nodes().len() >= SEARCH_SECTIONS_AUTO_MIN,
        }
    }
}

/// The terms of everything indexed of a section: its key, text, and its tools' names and
/// descriptions.
fn indexed_terms(document: &ToolDocument) -> BTreeSet<String> {
    let params = document
        .parameters
        .iter()
        .flat_map(|p| [p.name.as_str(), p.description.as_str()]);
    let tags = document.tags.iter().map(String::as_str);
    [document.name.as_str(), document.description.as_str()]
        .into_iter()
        .chain(params)
        .chain(tags)
        .flat_map(wink_search::tokenize)
        .collect()
}

/// The query's terms as the index sees them (stemmed, stopwords dropped), without repeats.
fn query_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for term in wink_search::tokenize(query) {
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    terms
}

/// The line (or sentence) of `text` holding the most distinct query terms, on one line and cut
/// to [`SNIPPET_CHARS`] around its first match; the first line of `text` when none matches.
fn snippet(text: &str, terms: &[String]) -> String {
    let pieces: Vec<&str> = text
        .lines()
        .flat_map(|line| line.split_inclusive(". "))
        .map(str::trim)
        .filter(|piece| !piece.is_empty() && !piece.starts_with("```"))
        .collect();
    let matches = |piece: &str| {
        let found = wink_search::tokenize(piece);
        terms.iter().filter(|t| found.contains(t)).count()
    };
    let best = pieces.iter().map(|piece| (matches(piece), *piece)).fold(
        None::<(usize, &str)>,
        |best, (count, piece)| match best {
            Some((most, _)) if most >= count => best,
            _ => Some((count, piece)),
        },
    );
    let piece = match best {
        Some((count, piece)) if count > 0 => piece,
        _ => pieces.first().copied().unwrap_or_default(),
    };
    cut(&one_line(piece), SNIPPET_CHARS)
}

/// `text` cut to at most `max` characters at a word boundary, with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let end = text
        .char_indices()
        .nth(max)
        .map_or(text.len(), |(index, _)| index);
    let head = &text[..end];
    let head = head.rsplit_once(' ').map_or(head, |(words, _)| words);
    format!("{head}…")
}

fn search_sections_schema() -> Value {
    json!({"type": "object", "properties": {
        "query": {"type": "string", "description": "Words to look for in the sections' titles, summaries and text."},
        "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_SECTIONS_MAX_LIMIT, "description": "How many sections to return (default 5)."}
    }, "additionalProperties": false, "required": ["query"]})
}

/// The builtin `search_sections` tool bound to one render.
pub(crate) struct SearchSectionsTool {
    state: Arc<RenderState>,
    parameters: Value,
}

impl fmt::Debug for SearchSectionsTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SearchSectionsTool")
            .field("mode", &self.state.mode)
            .finish()
    }
}

impl SearchSectionsTool {
    pub(crate) fn tool(state: Arc<RenderState>) -> ToolRef {
        Arc::new(Self {
            state,
            parameters: search_sections_schema(),
        })
    }

    fn run(&self, args: &Value) -> Result<ToolResponse, ToolError> {
        let query = match args.get("query") {
            Some(Value::String(q)) => q.trim().to_owned(),
            Some(_) => {
                return Err(ToolError::Validation(
                    "Field 'query' must be a string.".into(),
                ));
            }
            None => {
                return Err(ToolError::Validation(
                    "Missing required field: 'query'".into(),
                ));
            }
        };
        let limit = match args.get("limit") {
            None | Some(Value::Null) => SEARCH_SECTIONS_DEFAULT_LIMIT,
            Some(v) => match v.as_u64() {
                Some(n) if n >= 1 => usize::try_from(n)
                    .unwrap_or(SEARCH_SECTIONS_MAX_LIMIT)
                    .min(SEARCH_SECTIONS_MAX_LIMIT),
                _ => {
                    return Err(ToolError::Validation(
                        "Field 'limit' must be a positive integer.".into(),
                    ));
                }
            },
        };
        if query.is_empty() {
            return Ok(ToolResult::<ToolPayload>::failure(
                "The query is empty: give the words to look for.",
            )
            .into());
        }
        let hits = self.state.section_index().search(&query, limit);
        Ok(search_result(&query, &hits, self.state.mode).into())
    }
}

/// The tool result for `hits`: a numbered list of `Title (key): snippet`, then how to read one.
fn search_result(
    query: &str,
    hits: &[SectionHit],
    mode: DisclosureMode,
) -> ToolResult<ToolPayload> {
    if hits.is_empty() {
        return ToolResult::message(format!(
            "No section matches \"{query}\". Try other words, or open a section the prompt lists."
        ));
    }
    let how = match mode {
        DisclosureMode::OpenSections | DisclosureMode::ContextFiles => {
            format!("To read one, call `{OPEN_SECTIONS}` with its key.")
        }
        _ => format!("To read one, call `{READ_SECTION}` with its key."),
    };
    let lines: Vec<String> = hits
        .iter()
        .enumerate()
        .map(|(i, hit)| {
            format!(
                "{}. {} ({}): {}",
                i + 1,
                hit.title,
                hit.path.dotted(),
                hit.snippet
            )
        })
        .collect();
    let rendered = format!("{}\n\n{how}", lines.join("\n"));
    let json = json!({"query": query, "results": hits.iter().map(|hit| json!({
        "key": hit.path.dotted(), "title": hit.title, "snippet": hit.snippet, "score": hit.score,
    })).collect::<Vec<_>>()});
    ToolResult::ok(
        format!("Sections matching \"{query}\", best first:"),
        ToolPayload { json, rendered },
    )
}

impl Tool for SearchSectionsTool {
    fn name(&self) -> &str {
        SEARCH_SECTIONS
    }
    fn description(&self) -> &str {
        "Search the summarized sections (titles, summaries and full text) for words. Returns the best matching section keys with a snippet; then read the section to get its content."
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn accepts_overrides(&self) -> bool {
        false
    }
    fn concurrency(&self) -> crate::tool::ToolConcurrency {
        crate::tool::ToolConcurrency::Parallel
    }
    fn invoke<'a>(&'a self, args: Value, _context: &'a mut ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { self.run(&args) })
    }
}
