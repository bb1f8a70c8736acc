//! Pre-opening: before the first model call, open the summarized sections most relevant to the
//! task, so a small model starts with the content (and tools) it most likely needs.
//!
//! Relevance is BM25 (the `wink-search` index) over each summarized section's rendered heading
//! (title and key) and summary, the text it shows when opened (its body, children included), and
//! the names and descriptions of the tools it hides. No model call is made. The body counts
//! because a summary is one line: measured on `bench/disclosure` (56 documentation sections whose
//! summaries are their first sentences, 7 documentation questions), ranking on summaries alone put
//! the section holding the answer first for 3 questions and among the opened ones for 4; with the
//! bodies, first for 4 and among the opened ones for 6.
//!
//! [`apply`] opens at most `k` sections, and after the best one only those scoring at least
//! [`RELATIVE_SCORE`] of its score: a second section is opened when it is about as relevant as the
//! first (a question that needs two tools), not merely because `k` allows it. Opening a section is a [`SetVisibilityOverride`] to full dispatched into the
//! session, so the next render shows it in full with its tools offered; the run then starts as
//! usual.
//!
//! ```
//! use wink_agent::preopen;
//! use wink_core::{MarkdownSection, Prompt, PromptTemplate, SectionVisibility};
//! use wink_session::Session;
//!
//! let template = PromptTemplate::builder("demo", "preopen")
//!     .section(MarkdownSection::new("Task", "task", "Answer the question."))
//!     .section(
//!         MarkdownSection::new("Weather", "weather", "Forecasts for cities.")
//!             .summary("Weather forecasts.")
//!             .visibility(SectionVisibility::Summary),
//!     )
//!     .section(
//!         MarkdownSection::new("Billing", "billing", "Invoices and refunds.")
//!             .summary("Invoices and payments.")
//!             .visibility(SectionVisibility::Summary),
//!     )
//!     .build()
//!     .unwrap();
//! let prompt = Prompt::new(template);
//! let session = Session::new();
//! let opened = preopen::apply(&prompt, &session, "Where is my invoice?", 1).unwrap();
//! assert_eq!(opened, ["billing"]);
//! assert!(prompt.render_with(&session).unwrap().text.contains("Invoices and refunds."));
//! ```

use serde_json::json;
use wink_core::{
    DisclosureMode, Prompt, PromptError, READ_SECTION, RenderedPrompt, SectionPath,
    SectionVisibility, ToolArguments, ToolCall,
};
use wink_search::{IndexConfig, ParamDoc, SearchIndex, ToolDocument};
use wink_session::{Session, SetVisibilityOverride};

/// One summarized section as pre-opening sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionCandidate {
    /// The section.
    pub path: SectionPath,
    /// Its rendered heading and summary, without the disclosure instruction.
    pub text: String,
    /// `(name, description)` of every tool it hides (its own and its descendants').
    pub tools: Vec<(String, String)>,
    /// The text it renders when opened (heading, body, children), empty when unknown.
    pub body: String,
}

/// The summarized sections of a rendered prompt, in render order.
pub fn candidates(rendered: &RenderedPrompt) -> Vec<SectionCandidate> {
    rendered
        .sections
        .iter()
        .filter(|s| s.visibility == SectionVisibility::Summary)
        .map(|s| {
            let text = rendered.text.get(s.range.clone()).unwrap_or_default();
            // The disclosure instruction is the same in every section: drop it.
            let text = text.rfind("\n\n---\n").map_or(text, |end| &text[..end]);
            let tools = rendered
                .hidden_tools
                .iter()
                .filter(|(owner, _)| *owner == s.path || owner.is_descendant_of(&s.path))
                .map(|(_, tool)| (tool.name().to_owned(), tool.description().to_owned()))
                .collect();
            SectionCandidate {
                path: s.path.clone(),
                text: text.trim().to_owned(),
                tools,
                body: String::new(),
            }
        })
        .collect()
}

/// The query used when the run has no user message: the text of the fully rendered sections
/// (the task as the prompt states it).
pub fn default_query(rendered: &RenderedPrompt) -> String {
    rendered
        .sections
        .iter()
        .filter(|s| s.visibility == SectionVisibility::Full)
        .filter_map(|s| rendered.text.get(s.range.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// After the best section, a section is opened only when its score is at least this share of the
/// best one's.
pub const RELATIVE_SCORE: f32 = 0.6;

/// How many times [`with_bodies`] opens a level of nested summaries.
const MAX_NESTING: usize = 16;

/// `candidates` with their [`SectionCandidate::body`] filled from a render of `prompt` in which
/// every summarized section is open (a scratch session, so `session`-free: the run's session is
/// not touched).
pub fn with_bodies<O>(
    prompt: &Prompt<O>,
    mut candidates: Vec<SectionCandidate>,
) -> Result<Vec<SectionCandidate>, PromptError> {
    let scratch = Session::new();
    let mut rendered = prompt.render_with(&scratch)?;
    for _ in 0..MAX_NESTING {
        let summarized: Vec<SectionPath> = rendered
            .sections
            .iter()
            .filter(|s| s.visibility == SectionVisibility::Summary)
            .map(|s| s.path.clone())
            .collect();
        if summarized.is_empty() {
            break;
        }
        for path in summarized {
            scratch.dispatch(SetVisibilityOverride {
                path,
                visibility: SectionVisibility::Full,
            });
        }
        rendered = prompt.render_with(&scratch)?;
    }
    for candidate in &mut candidates {
        if let Some(section) = rendered.sections.iter().find(|s| s.path == candidate.path) {
            candidate.body = rendered
                .text
                .get(section.range.clone())
                .unwrap_or_default()
                .trim()
                .to_owned();
        }
    }
    Ok(candidates)
}

/// The (at most) `k` candidates most relevant to `query`, best first: the best one, then those
/// scoring at least [`RELATIVE_SCORE`] of it. Candidates sharing no term with the query are never
/// chosen, so an unrelated query opens nothing.
pub fn rank(candidates: &[SectionCandidate], query: &str, k: usize) -> Vec<SectionPath> {
    scores(candidates, query, k)
        .into_iter()
        .map(|(path, _)| path)
        .collect()
}

/// [`rank`] with each chosen section's BM25 score.
pub fn scores(candidates: &[SectionCandidate], query: &str, k: usize) -> Vec<(SectionPath, f32)> {
    if k == 0 || candidates.is_empty() {
        return Vec::new();
    }
    let documents = candidates
        .iter()
        .map(|c| {
            let description = if c.body.is_empty() {
                c.text.clone()
            } else {
                format!("{}\n\n{}", c.text, c.body)
            };
            let mut doc = ToolDocument::new(c.path.dotted(), description);
            doc.parameters = c
                .tools
                .iter()
                .map(|(name, description)| ParamDoc {
                    name: name.clone(),
                    description: description.clone(),
                })
                .collect();
            doc.tags = c.tools.iter().map(|(name, _)| name.clone()).collect();
            doc
        })
        .collect();
    let index = SearchIndex::build(documents, IndexConfig::default());
    let hits = index.search(&with_value_kinds(query), k);
    let best = hits.first().map_or(0.0, |hit| hit.score);
    hits.into_iter()
        .enumerate()
        .filter(|(position, hit)| *position == 0 || hit.score >= RELATIVE_SCORE * best)
        .filter_map(|(_, hit)| {
            candidates
                .iter()
                .find(|c| c.path.dotted() == hit.name)
                .map(|c| (c.path.clone(), hit.score))
        })
        .collect()
}

/// `query` followed by the kind of each value in it that names no kind itself: `email` for an
/// e-mail address, `url` for a web address. "omar@example.com here: when does my order arrive?"
/// then finds the section whose tool looks customers up by email (measured on the shop prompt of
/// `bench/eval`: without it the customers section was not opened and the 1.5B model, lacking
/// `find_customer`, never got the order).
pub fn with_value_kinds(query: &str) -> String {
    let mut kinds = Vec::new();
    for token in query.split_whitespace() {
        let token = token.trim_matches(|c: char| !c.is_alphanumeric());
        let lower = token.to_lowercase();
        let kind = if lower.starts_with("http://") || lower.starts_with("https://") {
            "url"
        } else if is_email(token) {
            "email"
        } else {
            continue;
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if kinds.is_empty() {
        query.to_owned()
    } else {
        format!("{query} {}", kinds.join(" "))
    }
}

/// `local@domain.tld`, with a dot in the domain and letters around the `@`.
fn is_email(token: &str) -> bool {
    match token.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.contains('@')
                && domain
                    .rsplit_once('.')
                    .is_some_and(|(host, tld)| !host.is_empty() && tld.len() >= 2)
        }
        None => false,
    }
}

/// Renders `prompt` with `session`, ranks its summarized sections against `query` (or, when it is
/// blank, against the fully rendered sections' text) and opens the best ones (see [`rank`]) by
/// dispatching [`SetVisibilityOverride`]s to full. Returns the dotted keys opened, best first.
pub fn apply<O>(
    prompt: &Prompt<O>,
    session: &Session,
    query: &str,
    k: usize,
) -> Result<Vec<String>, PromptError> {
    Ok(apply_scored(prompt, session, query, k)?
        .into_iter()
        .map(|(key, _)| key)
        .collect())
}

/// [`apply`], with the BM25 score of each section opened.
pub fn apply_scored<O>(
    prompt: &Prompt<O>,
    session: &Session,
    query: &str,
    k: usize,
) -> Result<Vec<(String, f32)>, PromptError> {
    Ok(apply_styled(prompt, session, query, k, PreopenStyle::Render)?.opened)
}

/// How pre-opened sections reach the model.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PreopenStyle {
    /// Rendered in full in the system prompt (a visibility override dispatched into the session),
    /// their tools offered from the first call.
    #[default]
    Render,
    /// As the model's own first turn: one `read_section` call per section, run before the first
    /// model call ([`opening_calls`]). The system prompt stays the render with every section
    /// summarized, the same for every input, so a prefix cache (the embedded model's KV cache, a
    /// hosted provider's prompt cache) serves it from one question to the next; the content and
    /// the tools arrive after the user's message, as when the model reads a section itself.
    /// Unified mode only (the others have no `read_section` for every section): elsewhere it
    /// behaves as [`PreopenStyle::Render`].
    Call,
}

impl PreopenStyle {
    /// The style's name on the command line: `render` or `call`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Render => "render",
            Self::Call => "call",
        }
    }
}

impl std::str::FromStr for PreopenStyle {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "render" => Ok(Self::Render),
            "call" => Ok(Self::Call),
            other => Err(format!(
                "unknown pre-opening style '{other}' (expected render or call)"
            )),
        }
    }
}

/// What pre-opening chose and how it is delivered.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Preopened {
    /// Dotted keys of the sections opened, best first, with their BM25 scores.
    pub opened: Vec<(String, f32)>,
    /// Under [`PreopenStyle::Call`] (unified mode): the calls to run before the first model call
    /// (`MainLoopConfig::opening_calls`); empty when the sections were rendered open.
    pub calls: Vec<ToolCall>,
}

/// Ranks the summarized sections of `prompt` against `query` (see [`apply`]) and opens the best
/// `k` in `style`: [`PreopenStyle::Render`] dispatches the visibility overrides into `session`;
/// [`PreopenStyle::Call`] leaves the session alone and returns the `read_section` calls to run
/// first (in a prompt whose disclosure mode is not unified, it renders them open instead).
pub fn apply_styled<O>(
    prompt: &Prompt<O>,
    session: &Session,
    query: &str,
    k: usize,
    style: PreopenStyle,
) -> Result<Preopened, PromptError> {
    if k == 0 {
        return Ok(Preopened::default());
    }
    let rendered = prompt.render_with(session)?;
    let query = if query.trim().is_empty() {
        default_query(&rendered)
    } else {
        query.to_owned()
    };
    let candidates = with_bodies(prompt, candidates(&rendered))?;
    let chosen = scores(&candidates, &query, k);
    let opened: Vec<(String, f32)> = chosen
        .iter()
        .map(|(path, score)| (path.dotted(), *score))
        .collect();
    if style == PreopenStyle::Call && rendered.disclosure() == DisclosureMode::Unified {
        let keys: Vec<String> = opened.iter().map(|(key, _)| key.clone()).collect();
        return Ok(Preopened {
            calls: opening_calls(&keys),
            opened,
        });
    }
    for (path, _) in chosen {
        session.dispatch(SetVisibilityOverride {
            path,
            visibility: SectionVisibility::Full,
        });
    }
    Ok(Preopened {
        opened,
        calls: Vec::new(),
    })
}

/// One `read_section` call per key, ids `preopen_0`, `preopen_1`, …: the turn
/// [`PreopenStyle::Call`] runs before the first model call.
pub fn opening_calls(keys: &[String]) -> Vec<ToolCall> {
    keys.iter()
        .enumerate()
        .map(|(i, key)| ToolCall {
            id: format!("preopen_{i}"),
            name: READ_SECTION.to_owned(),
            arguments: ToolArguments::Json(json!({ "section_key": key })),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn candidate(key: &str, text: &str, tools: &[(&str, &str)]) -> SectionCandidate {
        SectionCandidate {
            path: SectionPath::root(key),
            text: text.to_owned(),
            tools: tools
                .iter()
                .map(|(n, d)| ((*n).to_owned(), (*d).to_owned()))
                .collect(),
            body: String::new(),
        }
    }

    fn keys(paths: &[SectionPath]) -> Vec<String> {
        paths.iter().map(SectionPath::dotted).collect()
    }

    fn sample() -> Vec<SectionCandidate> {
        vec![
            candidate("weather", "## 2. Weather (weather)\n\nForecasts.", &[]),
            candidate(
                "math",
                "## 3. Math (math)\n\nArithmetic helpers.",
                &[("add", "Add two integers and return the sum.")],
            ),
            candidate(
                "files",
                "## 4. Files (files)\n\nReading the project's files.",
                &[("read_file", "Read a file of the workspace.")],
            ),
        ]
    }

    #[test]
    fn a_hidden_tool_description_ranks_its_section() {
        assert_eq!(
            keys(&rank(&sample(), "What is the sum of 3 and 4?", 1)),
            ["math"]
        );
    }

    #[test]
    fn the_title_and_summary_rank_a_section_and_k_caps_the_count() {
        assert_eq!(
            keys(&rank(&sample(), "tomorrow's forecasts for Paris", 2)),
            ["weather"]
        );
        assert_eq!(
            keys(&rank(&sample(), "weather forecasts and reading files", 2)),
            ["files", "weather"]
        );
        assert_eq!(
            keys(&rank(&sample(), "weather forecasts and reading files", 1)),
            ["files"]
        );
        // A second section far less relevant than the first is not opened, whatever `k`.
        let scored = scores(&sample(), "read files and forecasts", 3);
        assert_eq!(scored.len(), 1, "{scored:?}");
        assert_eq!(scored[0].0.dotted(), "files");
    }

    #[test]
    fn the_body_ranks_a_section_whose_summary_does_not_mention_the_answer() {
        let mut docs = sample();
        assert!(rank(&docs, "the retry delay of the HTTP client", 1).is_empty());
        docs[2].body =
            "## 4. Files (files)\n\nThe HTTP client retries after a delay of 2 s.".into();
        assert_eq!(
            keys(&rank(&docs, "the retry delay of the HTTP client", 1)),
            ["files"]
        );
    }

    #[test]
    fn e_mail_addresses_and_web_addresses_add_their_kind_to_the_query() {
        assert_eq!(
            with_value_kinds("omar@example.com here - when does my order arrive?"),
            "omar@example.com here - when does my order arrive? email"
        );
        assert_eq!(
            with_value_kinds("Fetch <https://example.org/a> and mail a@b.io, c@d.org."),
            "Fetch <https://example.org/a> and mail a@b.io, c@d.org. url email"
        );
        assert_eq!(
            with_value_kinds("@home and x@y and 3 @ 4"),
            "@home and x@y and 3 @ 4"
        );
        let ranked = rank(
            &[
                candidate("orders", "Order lookup by order id.", &[]),
                candidate("customers", "Customer lookup by email.", &[]),
            ],
            "omar@example.com here",
            1,
        );
        assert_eq!(keys(&ranked), ["customers"]);
    }

    #[test]
    fn an_unrelated_query_or_k_zero_opens_nothing() {
        assert!(rank(&sample(), "zzz qqq", 3).is_empty());
        assert!(rank(&sample(), "sum", 0).is_empty());
        assert!(rank(&[], "sum", 2).is_empty());
    }

    #[test]
    fn apply_opens_the_best_section_and_renders_it_with_its_tools() {
        let prompt = notes_and_shipping(DisclosureMode::Unified);
        let session = Session::new();
        let rendered = prompt.render_with(&session).unwrap();
        assert_eq!(
            candidates(&rendered)
                .iter()
                .map(|c| c.text.as_str())
                .collect::<Vec<_>>(),
            [
                "## 2. Notes (notes)\n\nNotes from meetings.",
                "## 3. Shipping (shipping)\n\nShipping policy."
            ]
        );
        assert_eq!(
            apply(&prompt, &session, "When does my parcel ship?", 2).unwrap(),
            ["shipping"]
        );
        let text = prompt.render_with(&session).unwrap().text;
        assert!(text.contains("Parcels ship daily."), "{text}");
        assert!(!text.contains("Meeting notes."), "{text}");
        // No input: the task's own text is the query.
        let session = Session::new();
        assert!(apply(&prompt, &session, " ", 2).unwrap().is_empty());
    }

    fn notes_and_shipping(mode: DisclosureMode) -> Prompt {
        let template = wink_core::PromptTemplate::builder("t", "preopen")
            .disclosure(mode)
            .section(wink_core::MarkdownSection::new("Task", "task", "Answer."))
            .section(
                wink_core::MarkdownSection::new("Notes", "notes", "Meeting notes.")
                    .summary("Notes from meetings.")
                    .visibility(SectionVisibility::Summary),
            )
            .section(
                wink_core::MarkdownSection::new("Shipping", "shipping", "Parcels ship daily.")
                    .summary("Shipping policy.")
                    .visibility(SectionVisibility::Summary),
            )
            .build()
            .unwrap();
        Prompt::new(template)
    }

    #[test]
    fn the_call_style_leaves_the_render_alone_and_returns_read_section_calls() {
        let prompt = notes_and_shipping(DisclosureMode::Unified);
        let session = Session::new();
        let before = prompt.render_with(&session).unwrap().text;
        let preopened = apply_styled(
            &prompt,
            &session,
            "When does my parcel ship?",
            2,
            PreopenStyle::Call,
        )
        .unwrap();
        assert_eq!(
            preopened
                .opened
                .iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>(),
            ["shipping"]
        );
        assert_eq!(
            preopened.calls,
            [ToolCall {
                id: "preopen_0".into(),
                name: "read_section".into(),
                arguments: ToolArguments::Json(json!({"section_key": "shipping"})),
            }]
        );
        assert_eq!(prompt.render_with(&session).unwrap().text, before);
    }

    #[test]
    fn the_call_style_renders_open_outside_unified_mode() {
        let prompt = notes_and_shipping(DisclosureMode::OpenSections);
        let session = Session::new();
        let preopened = apply_styled(
            &prompt,
            &session,
            "When does my parcel ship?",
            2,
            PreopenStyle::Call,
        )
        .unwrap();
        assert!(preopened.calls.is_empty());
        let text = prompt.render_with(&session).unwrap().text;
        assert!(text.contains("Parcels ship daily."), "{text}");
    }

    #[test]
    fn styles_parse_from_their_names() {
        for style in [PreopenStyle::Render, PreopenStyle::Call] {
            assert_eq!(style.as_str().parse::<PreopenStyle>().unwrap(), style);
        }
        assert_eq!(
            "inline".parse::<PreopenStyle>().unwrap_err(),
            "unknown pre-opening style 'inline' (expected render or call)"
        );
    }
}
