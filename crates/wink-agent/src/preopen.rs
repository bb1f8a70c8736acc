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

use wink_core::{Prompt, PromptError, RenderedPrompt, SectionPath, SectionVisibility};
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
    let hits = index.search(query, k);
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
    if k == 0 {
        return Ok(Vec::new());
    }
    let rendered = prompt.render_with(session)?;
    let query = if query.trim().is_empty() {
        default_query(&rendered)
    } else {
        query.to_owned()
    };
    let candidates = with_bodies(prompt, candidates(&rendered))?;
    let chosen = scores(&candidates, &query, k);
    for (path, _) in &chosen {
        session.dispatch(SetVisibilityOverride {
            path: path.clone(),
            visibility: SectionVisibility::Full,
        });
    }
    Ok(chosen
        .into_iter()
        .map(|(path, score)| (path.dotted(), score))
        .collect())
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
    fn an_unrelated_query_or_k_zero_opens_nothing() {
        assert!(rank(&sample(), "zzz qqq", 3).is_empty());
        assert!(rank(&sample(), "sum", 0).is_empty());
        assert!(rank(&[], "sum", 2).is_empty());
    }

    #[test]
    fn apply_opens_the_best_section_and_renders_it_with_its_tools() {
        let template = wink_core::PromptTemplate::builder("t", "preopen")
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
        let prompt = Prompt::new(template);
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
}
