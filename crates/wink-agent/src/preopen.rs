//! Pre-opening: before the first model call, open the summarized sections most relevant to the
//! task, so a small model starts with the content (and tools) it most likely needs.
//!
//! Relevance is the index of the builtin `search_sections` tool
//! ([`RenderedPrompt::search_sections`]): BM25 (the `wink-search` index, or the template's
//! ranking) over every section the render hides — summarized, or inside a summarized section —
//! by its rendered heading (title and key) and summary, its own text and the names and
//! descriptions of its tools. No model call is made. The body counts because a summary is one
//! line: measured on `bench/disclosure` (56 documentation sections whose summaries are their first
//! sentences, 7 documentation questions), ranking on summaries alone put the section holding the
//! answer first for 3 questions and among the opened ones for 4; with the bodies, first for 4 and
//! among the opened ones for 6. A nested section opens with the summarized sections that hide it.
//!
//! [`apply`] opens at most `k` sections, and after the best one only those scoring at least
//! [`RELATIVE_SCORE`] of its score and holding a term of the question that none opened before it
//! holds: a second section is opened when it is about as relevant as the first and answers
//! another part of the question (a question that needs two tools), not merely because `k` allows
//! it or because it shares the first one's words ("the status of ticket T-5002" opens the
//! tickets section, not also the escalation policy that mentions tickets). The record codes of
//! the question (`E-205`) add the kind of record their shape belongs to, and a section whose tool
//! needs a code the question does not give opens with the section whose tool finds one (below).
//! Opening a section is a [`SetVisibilityOverride`] to full dispatched into the
//! session, so the next render shows it in full with its tools offered; the run then starts as
//! usual.
//!
//! # Record codes
//!
//! Tool schemas often show a code's shape by an example (`employee_id`: "The employee id, e.g.
//! E-104"). A code in the question with the shape of a parameter's example adds the parameter as
//! words to the query ("who is E-205?" is searched with `employee id`; where several parameters'
//! examples have the shape, those sharing the code's leading letters). And when a section chosen
//! to open has a tool that requires such a parameter while no word of the question has its
//! shape, the hidden section whose tool names the parameter in its description without taking
//! it ("SKU and name of each match") opens too, beyond `k`: else the model holds a tool it can
//! only call with a made-up code. A parameter no tool gives an example for is never guessed at.
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

pub(crate) mod codes;

use serde_json::json;
use wink_core::{
    DisclosureMode, Prompt, PromptError, READ_SECTION, RenderedPrompt, SectionPath,
    SectionVisibility, ToolArguments, ToolCall,
};
use wink_session::{Session, SetVisibilityOverride};

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

/// The (at most) `k` sections `rendered` hides that are most relevant to `query`, best first,
/// with their scores: the best one, then those scoring at least [`RELATIVE_SCORE`] of it that
/// hold a query term none chosen before them holds ([`wink_core::SectionHit::matched_terms`]). The
/// ranking is the `search_sections` index of the render
/// ([`RenderedPrompt::search_sections`]: BM25 over each hidden section's title, key, summary,
/// text and the names and descriptions of its tools, nested sections included), with the kinds
/// of the values in the query added ([`with_value_kinds`]) and the kinds of its record codes (the
/// parameter whose example code has the code's shape, as words: `employee id`). Sections sharing
/// no term with the query are never chosen, so an unrelated query opens nothing.
pub fn scores(rendered: &RenderedPrompt, query: &str, k: usize) -> Vec<(SectionPath, f32)> {
    if k == 0 {
        return Vec::new();
    }
    let mut query = with_value_kinds(query);
    for kind in codes::code_kinds(rendered, &query) {
        query = format!("{query} {kind}");
    }
    let hits = rendered.search_sections(&query, k);
    let best = hits.first().map_or(0.0, |hit| hit.score);
    let mut covered: Vec<&str> = Vec::new();
    let mut chosen = Vec::new();
    for (position, hit) in hits.iter().enumerate() {
        let adds_terms = hit
            .matched_terms
            .iter()
            .any(|term| !covered.contains(&term.as_str()));
        if position == 0 || hit.score >= RELATIVE_SCORE * best && adds_terms {
            covered.extend(hit.matched_terms.iter().map(String::as_str));
            chosen.push((hit.path.clone(), hit.score));
        }
    }
    chosen
}

/// [`scores`] without the scores.
pub fn rank(rendered: &RenderedPrompt, query: &str, k: usize) -> Vec<SectionPath> {
    scores(rendered, query, k)
        .into_iter()
        .map(|(path, _)| path)
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

/// [`apply`], with the BM25 score of each section opened (0 for a section opened to find a
/// record code the query lacks).
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
    apply_within(prompt, session, query, k, style, None)
}

/// [`apply_styled`], keeping the rendered prompt (text and tools, estimated at one token per 3
/// bytes as the agent loop estimates requests) within `max_tokens`: a chosen section that would
/// take it past that is not opened (the model can still read it, in parts if need be). Pass half
/// the model's context window, so that the conversation has room after the prompt.
///
/// A section nested in a summarized one could render only with its ancestors open — their text
/// and the lists of their other sections around it — so in unified mode it is read instead, by a
/// `read_section` call run before the first model call (as [`PreopenStyle::Call`] does), and its
/// text comes right after the question. A section inside (or holding) one already chosen is
/// skipped: it would open the same text.
pub fn apply_within<O>(
    prompt: &Prompt<O>,
    session: &Session,
    query: &str,
    k: usize,
    style: PreopenStyle,
    max_tokens: Option<u64>,
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
    let mut opening = Opening {
        summarized: rendered
            .sections
            .iter()
            .filter(|s| s.visibility == SectionVisibility::Summary)
            .map(|s| s.path.clone())
            .collect(),
        unified: rendered.disclosure() == DisclosureMode::Unified,
        style,
        max_tokens,
        ..Opening::default()
    };
    for (path, score) in scores(&rendered, &query, k) {
        opening.consider(prompt, session, path, score)?;
    }
    for path in codes::producers(&rendered, &opening.chosen, &query) {
        opening.consider(prompt, session, path, 0.0)?;
    }
    let Opening {
        opened,
        overrides,
        reads,
        ..
    } = opening;
    for path in overrides {
        session.dispatch(SetVisibilityOverride {
            path,
            visibility: SectionVisibility::Full,
        });
    }
    let keys: Vec<String> = reads.iter().map(SectionPath::dotted).collect();
    Ok(Preopened {
        opened,
        calls: opening_calls(&keys),
    })
}

/// Whether opening `a` and `b` opens the same text: one is the other or holds it.
fn overlapping(a: &SectionPath, b: &SectionPath) -> bool {
    a == b || a.is_descendant_of(b) || b.is_descendant_of(a)
}

/// The sections [`apply_within`] has chosen so far, and how each reaches the model.
#[derive(Default)]
struct Opening {
    summarized: Vec<SectionPath>,
    unified: bool,
    style: PreopenStyle,
    max_tokens: Option<u64>,
    opened: Vec<(String, f32)>,
    chosen: Vec<SectionPath>,
    overrides: Vec<SectionPath>,
    reads: Vec<SectionPath>,
    read_tokens: u64,
}

impl Opening {
    /// Opens `path` unless a chosen section holds it or is inside it, or it would take the
    /// prompt past `max_tokens`: read by a call in unified mode when the style says so or it is
    /// nested, else rendered open with the summarized sections that hide it.
    fn consider<O>(
        &mut self,
        prompt: &Prompt<O>,
        session: &Session,
        path: SectionPath,
        score: f32,
    ) -> Result<(), PromptError> {
        if self.chosen.iter().any(|c| overlapping(c, &path)) {
            return Ok(());
        }
        let nested = !self.summarized.contains(&path);
        if self.unified && (self.style == PreopenStyle::Call || nested) {
            let cost = read_cost(prompt, session, &path)?;
            if let Some(max) = self.max_tokens
                && estimated_tokens(prompt, session, &self.overrides)? + self.read_tokens + cost
                    > max
            {
                return Ok(());
            }
            self.read_tokens += cost;
            self.reads.push(path.clone());
        } else {
            // Outside unified mode a nested section opens with the summarized sections that hide
            // it, outermost first.
            let mut with = self.overrides.clone();
            for open in self
                .summarized
                .iter()
                .filter(|s| path.is_descendant_of(s))
                .cloned()
                .chain([path.clone()])
            {
                if !with.contains(&open) {
                    with.push(open);
                }
            }
            if let Some(max) = self.max_tokens
                && estimated_tokens(prompt, session, &with)? + self.read_tokens > max
            {
                return Ok(());
            }
            self.overrides = with;
        }
        self.opened.push((path.dotted(), score));
        self.chosen.push(path);
        Ok(())
    }
}

/// What reading the section at `path` adds to the conversation, in the loop's estimate: the text
/// it shows open (itself and its descendants, rendered with its chain open in a transaction of
/// `session`, dropped after).
fn read_cost<O>(
    prompt: &Prompt<O>,
    session: &Session,
    path: &SectionPath,
) -> Result<u64, PromptError> {
    let trial = session.begin();
    for segments in 1..=path.segments().len() {
        trial.session().dispatch(SetVisibilityOverride {
            path: SectionPath::new(path.segments()[..segments].to_vec()),
            visibility: SectionVisibility::Full,
        });
    }
    let rendered = prompt.render_with(trial.session())?;
    let bytes: usize = rendered
        .sections
        .iter()
        .filter(|s| s.path == *path || s.path.is_descendant_of(path))
        .map(|s| s.range.len())
        .sum();
    Ok(bytes.div_ceil(3) as u64 + 16)
}

/// The loop's estimate of the prompt rendered with `overrides` opened (in a transaction of
/// `session`, dropped after): its text and tools at one token per 3 bytes, plus 8 per tool.
fn estimated_tokens<O>(
    prompt: &Prompt<O>,
    session: &Session,
    overrides: &[SectionPath],
) -> Result<u64, PromptError> {
    let trial = session.begin();
    for path in overrides {
        trial.session().dispatch(SetVisibilityOverride {
            path: path.clone(),
            visibility: SectionVisibility::Full,
        });
    }
    let rendered = prompt.render_with(trial.session())?;
    let tools: usize = rendered
        .tools
        .iter()
        .map(|t| t.name().len() + t.description().len() + t.parameters().to_string().len())
        .sum();
    Ok((rendered.text.len() + tools).div_ceil(3) as u64 + 8 * rendered.tools.len() as u64)
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

    fn keys(paths: &[SectionPath]) -> Vec<String> {
        paths.iter().map(SectionPath::dotted).collect()
    }

    fn tool(name: &str, description: &str) -> wink_core::ToolRef {
        wink_core::ToolBuilder::dynamic(name, description, json!({"type": "object"}), |_, _| {
            Ok(wink_core::ToolResult::message("done"))
        })
        .build()
        .unwrap()
    }

    /// A summarized section: key, summary, body and `(name, description)` of its tools.
    type Spec<'a> = (&'a str, &'a str, &'a str, &'a [(&'a str, &'a str)]);

    /// A task and summarized sections.
    fn prompt(sections: &[Spec<'_>]) -> RenderedPrompt {
        let mut builder = wink_core::PromptTemplate::builder("t", "rank")
            .section(wink_core::MarkdownSection::new("Task", "task", "Answer."));
        for (key, summary, body, tools) in sections {
            let mut section = wink_core::MarkdownSection::new(*key, *key, *body)
                .summary(*summary)
                .visibility(SectionVisibility::Summary);
            for (name, description) in *tools {
                section = section.tool(tool(name, description));
            }
            builder = builder.section(section);
        }
        Prompt::new(builder.build().unwrap()).render().unwrap()
    }

    fn sample() -> RenderedPrompt {
        prompt(&[
            ("weather", "Forecasts.", "", &[]),
            (
                "math",
                "Arithmetic helpers.",
                "",
                &[("add", "Add two integers and return the sum.")],
            ),
            (
                "files",
                "Reading the project's files.",
                "",
                &[("read_file", "Read a file of the workspace.")],
            ),
        ])
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
    fn a_second_section_opens_only_for_a_part_of_the_question_the_first_does_not_hold() {
        let tickets = (
            "tickets",
            "Tickets by id.",
            "Ticket ids look like T-5001.",
            &[("get_ticket", "A ticket's status and subject by ticket id.")][..],
        );
        let escalate = [(
            "escalate_ticket",
            "Escalate a ticket to the lead by ticket id.",
        )];
        let escalation = (
            "escalation",
            "When to escalate a ticket.",
            "Escalate a ticket about a safety problem: its status becomes escalated.",
            &escalate[..],
        );
        let warranty = ("warranty", "The warranty.", "A two-year warranty.", &[][..]);
        let rendered = prompt(&[tickets, escalation, warranty]);
        // The escalation section scores close to the tickets one, on the same words only.
        let hits = rendered.search_sections("status of ticket T-5002", 3);
        let found: Vec<SectionPath> = hits.iter().map(|h| h.path.clone()).collect();
        assert_eq!(keys(&found), ["tickets", "escalation"]);
        assert!(hits[1].score >= RELATIVE_SCORE * hits[0].score, "{hits:?}");
        assert_eq!(hits[0].matched_terms, ["status", "ticket"]);
        assert_eq!(hits[1].matched_terms, ["status", "ticket"]);
        assert_eq!(
            keys(&rank(&rendered, "status of ticket T-5002", 3)),
            ["tickets"]
        );
        // A question with two parts opens a section for each.
        let two_parts = "status of ticket T-5002 and the warranty";
        assert_eq!(
            keys(&rank(&rendered, two_parts, 3)),
            ["warranty", "tickets"]
        );
    }

    #[test]
    fn the_body_ranks_a_section_whose_summary_does_not_mention_the_answer() {
        let without = prompt(&[("files", "Reading the project's files.", "", &[])]);
        assert!(rank(&without, "the retry delay of the HTTP client", 1).is_empty());
        let with = prompt(&[(
            "files",
            "Reading the project's files.",
            "The HTTP client retries after a delay of 2 s.",
            &[],
        )]);
        assert_eq!(
            keys(&rank(&with, "the retry delay of the HTTP client", 1)),
            ["files"]
        );
    }

    #[test]
    fn a_nested_section_is_read_in_unified_mode_and_opens_with_its_ancestors_elsewhere() {
        let leaf = |key: &str, body: &str| {
            wink_core::MarkdownSection::new(key, key, body)
                .summary(format!("About {key}."))
                .visibility(SectionVisibility::Summary)
        };
        let template = |mode| {
            wink_core::PromptTemplate::builder("t", "nested")
                .disclosure(mode)
                .section(wink_core::MarkdownSection::new("Task", "task", "Answer."))
                .section(
                    wink_core::MarkdownSection::new("Guide", "guide", "The user guide.")
                        .summary("The user guide.")
                        .visibility(SectionVisibility::Summary)
                        .child(leaf("install", "Install with rustup."))
                        .child(leaf("config", "The retry delay is 2 s.")),
                )
                .build()
                .unwrap()
        };
        let query = "What is the retry delay?";
        let unified = Prompt::new(template(DisclosureMode::Unified));
        let session = Session::new();
        let before = unified.render_with(&session).unwrap().text;
        let preopened = apply_styled(&unified, &session, query, 3, PreopenStyle::Render).unwrap();
        assert_eq!(preopened.opened.len(), 1, "{:?}", preopened.opened);
        assert_eq!(preopened.opened[0].0, "guide.config");
        assert_eq!(preopened.calls, opening_calls(&["guide.config".to_owned()]));
        assert_eq!(unified.render_with(&session).unwrap().text, before);

        let open = Prompt::new(template(DisclosureMode::OpenSections));
        let session = Session::new();
        assert_eq!(apply(&open, &session, query, 3).unwrap(), ["guide.config"]);
        let text = open.render_with(&session).unwrap().text;
        assert!(text.contains("The retry delay is 2 s."), "{text}");
        assert!(!text.contains("Install with rustup."), "{text}");
    }

    #[test]
    fn a_section_that_would_take_the_prompt_past_the_budget_is_not_opened() {
        let long = "The retry delay is 2 s. ".repeat(200);
        let template = wink_core::PromptTemplate::builder("t", "budget")
            .section(wink_core::MarkdownSection::new("Task", "task", "Answer."))
            .section(
                wink_core::MarkdownSection::new("Long", "long", long.as_str())
                    .summary("Retry settings.")
                    .visibility(SectionVisibility::Summary),
            )
            .section(
                wink_core::MarkdownSection::new("Short", "short", "The retry count is 3.")
                    .summary("Retry counts.")
                    .visibility(SectionVisibility::Summary),
            )
            .build()
            .unwrap();
        let prompt = Prompt::new(template);
        let query = "What are the retry delay and the retry count?";
        let session = Session::new();
        let opened = apply_within(&prompt, &session, query, 3, PreopenStyle::Render, Some(600))
            .unwrap()
            .opened;
        assert_eq!(
            opened.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            ["short"]
        );
        let text = prompt.render_with(&session).unwrap().text;
        assert!(text.contains("The retry count is 3.") && !text.contains("The retry delay"));
        let unbounded = Session::new();
        let all = apply_within(&prompt, &unbounded, query, 3, PreopenStyle::Render, None).unwrap();
        assert_eq!(all.opened.len(), 2, "{:?}", all.opened);
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
            &prompt(&[
                ("orders", "Order lookup by order id.", "", &[]),
                ("customers", "Customer lookup by email.", "", &[]),
            ]),
            "omar@example.com here",
            1,
        );
        assert_eq!(keys(&ranked), ["customers"]);
    }

    #[test]
    fn an_unrelated_query_or_k_zero_opens_nothing() {
        assert!(rank(&sample(), "zzz qqq", 3).is_empty());
        assert!(rank(&sample(), "sum", 0).is_empty());
        assert!(rank(&prompt(&[]), "sum", 2).is_empty());
    }

    #[test]
    fn apply_opens_the_best_section_and_renders_it_with_its_tools() {
        let prompt = notes_and_shipping(DisclosureMode::Unified);
        let session = Session::new();
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
