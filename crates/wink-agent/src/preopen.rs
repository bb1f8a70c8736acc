//! Pre-opening: before the first model call, open the summarized sections most relevant to the
//! task, so a small model starts with the content (and tools) it most likely needs.
//!
//! Relevance is BM25 (the `wink-search` index) over each summarized section's rendered heading
//! (title and key) and summary, plus the names and descriptions of the tools it hides. No model
//! call is made. Opening a section is a [`SetVisibilityOverride`] to full dispatched into the
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

/// The (at most) `k` candidates most relevant to `query`, best first. Candidates sharing no term
/// with the query are never chosen, so an unrelated query opens nothing.
pub fn rank(candidates: &[SectionCandidate], query: &str, k: usize) -> Vec<SectionPath> {
    if k == 0 || candidates.is_empty() {
        return Vec::new();
    }
    let documents = candidates
        .iter()
        .map(|c| {
            let mut doc = ToolDocument::new(c.path.dotted(), c.text.clone());
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
    index
        .search(query, k)
        .into_iter()
        .filter_map(|hit| {
            candidates
                .iter()
                .find(|c| c.path.dotted() == hit.name)
                .map(|c| c.path.clone())
        })
        .collect()
}

/// Renders `prompt` with `session`, ranks its summarized sections against `query` (or, when it is
/// blank, against the fully rendered sections' text) and opens the best `k` by dispatching
/// [`SetVisibilityOverride`]s to full. Returns the dotted keys opened, best first.
pub fn apply<O>(
    prompt: &Prompt<O>,
    session: &Session,
    query: &str,
    k: usize,
) -> Result<Vec<String>, PromptError> {
    if k == 0 {
        return Ok(Vec::new());
    }
    let rendered = prompt.render_with(session)?;
    let query = if query.trim().is_empty() {
        default_query(&rendered)
    } else {
        query.to_owned()
    };
    let chosen = rank(&candidates(&rendered), &query, k);
    for path in &chosen {
        session.dispatch(SetVisibilityOverride {
            path: path.clone(),
            visibility: SectionVisibility::Full,
        });
    }
    Ok(chosen.iter().map(SectionPath::dotted).collect())
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
            keys(&rank(&sample(), "read the file and the forecasts", 2)),
            ["files", "weather"]
        );
        assert_eq!(
            keys(&rank(&sample(), "read the file and the forecasts", 1)),
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
