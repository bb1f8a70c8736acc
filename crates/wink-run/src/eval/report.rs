//! What `wink eval` reports: one [`CaseResult`] per run, and a [`Report`] over all of them (a
//! table, or JSON).

use std::collections::BTreeMap;

use serde::Serialize;
use wink_session::TokenUsage;

use super::cases::case_type;

/// One run of one case, as reported.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// The case's id.
    pub id: String,
    /// Whether it met its expectations.
    pub passed: bool,
    /// Model calls made.
    pub model_calls: u32,
    /// Tool calls made.
    pub tool_calls: u32,
    /// Prompt tokens over the run.
    pub prompt_tokens: u64,
    /// Of those, taken from the cache.
    pub cached_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Wall time of the run.
    pub seconds: f64,
    /// The answer (`None` when the run did not finish).
    pub answer: Option<String>,
    /// Each model call's tokens, in order.
    pub calls: Vec<TokenUsage>,
    /// Why it failed (`None` when it passed).
    #[serde(skip)]
    pub failure: Option<String>,
}

impl CaseResult {
    /// The prompt tokens this run evaluates when it starts with an empty cache, as one `wink
    /// run` does: its uncached tokens plus what its first call took from a cache an earlier run
    /// left (later calls only reuse what this run itself evaluated).
    #[must_use]
    pub fn cold_uncached_prompt_tokens(&self) -> u64 {
        let uncached = self.prompt_tokens.saturating_sub(self.cached_tokens);
        uncached + self.calls.first().map_or(0, |first| first.cached_tokens)
    }
}

/// All runs of a suite.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Every run, in order.
    pub cases: Vec<CaseResult>,
    /// Passed runs over all runs.
    pub pass_rate: f64,
    /// Prompt tokens of all runs.
    pub prompt_tokens: u64,
    /// Of those, the ones not taken from the cache.
    pub uncached_prompt_tokens: u64,
    /// What `uncached_prompt_tokens` would be with every run started cold (`--cold`, or one
    /// `wink run` process per case): equal to it under `--cold`.
    pub cold_uncached_prompt_tokens: u64,
    /// Wall time of all runs.
    pub seconds: f64,
}

pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Report {
    /// The report over `cases`, which took `seconds`.
    #[must_use]
    pub fn new(cases: Vec<CaseResult>, seconds: f64) -> Self {
        let passed = cases.iter().filter(|c| c.passed).count();
        let prompt_tokens = cases.iter().map(|c| c.prompt_tokens).sum();
        let uncached_prompt_tokens = cases
            .iter()
            .map(|c| c.prompt_tokens.saturating_sub(c.cached_tokens))
            .sum();
        let cold_uncached_prompt_tokens = cases
            .iter()
            .map(CaseResult::cold_uncached_prompt_tokens)
            .sum();
        let pass_rate = if cases.is_empty() {
            0.0
        } else {
            round3(passed as f64 / cases.len() as f64)
        };
        Self {
            cases,
            pass_rate,
            prompt_tokens,
            uncached_prompt_tokens,
            cold_uncached_prompt_tokens,
            seconds: round3(seconds),
        }
    }

    /// The report as a table: a line per run, a pass rate per task type, totals.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = String::new();
        let width = self
            .cases
            .iter()
            .map(|c| c.id.len())
            .max()
            .unwrap_or(2)
            .max(2);
        out.push_str(&format!(
            "{:<4}  {:<width$}  {:>5}  {:>5}  {:>7}  {:>7}  {:>6}  {:>7}  answer\n",
            "", "id", "calls", "tools", "prompt", "cached", "output", "seconds"
        ));
        for c in &self.cases {
            let answer = c
                .answer
                .as_deref()
                .map(|a| one_line(a, 60))
                .unwrap_or_else(|| format!("({})", c.failure.as_deref().unwrap_or("no answer")));
            out.push_str(&format!(
                "{:<4}  {:<width$}  {:>5}  {:>5}  {:>7}  {:>7}  {:>6}  {:>7.1}  {answer}\n",
                if c.passed { "PASS" } else { "FAIL" },
                c.id,
                c.model_calls,
                c.tool_calls,
                c.prompt_tokens,
                c.cached_tokens,
                c.output_tokens,
                c.seconds,
            ));
        }
        let mut types: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for c in &self.cases {
            let entry = types.entry(case_type(&c.id)).or_default();
            entry.0 += 1;
            entry.1 += usize::from(c.passed);
        }
        out.push('\n');
        for (kind, (runs, passed)) in &types {
            out.push_str(&format!(
                "type {kind}: {passed}/{runs} passed ({:.0}%)\n",
                100.0 * *passed as f64 / *runs as f64
            ));
        }
        let passed = self.cases.iter().filter(|c| c.passed).count();
        out.push_str(&format!(
            "pass rate {:.1}% ({passed}/{}), {} prompt tokens ({} uncached, {} with every run started cold), {:.1}s",
            100.0 * self.pass_rate,
            self.cases.len(),
            self.prompt_tokens,
            self.uncached_prompt_tokens,
            self.cold_uncached_prompt_tokens,
            self.seconds
        ));
        out
    }
}

/// `text` on one line, cut at `max` characters.
#[must_use]
pub fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max).collect::<String>())
    } else {
        flat
    }
}
