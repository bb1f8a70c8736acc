//! `wink eval`: run a prompt file over a JSON Lines file of cases and report pass rate, tokens,
//! model calls and time.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;
use serde_json::{Map, Value};
use wink_agent::{
    Budget, LoopConfig, LoopOutcome, MainLoop, MainLoopConfig, ProviderAdapter, RunHooks,
    RunObserver,
};
use wink_core::{Deadline, ToolCall};
use wink_session::{Session, TokenUsage};

use super::common::{ModelFlags, PreparedPrompt, PromptArgs};
use crate::exit::usage;

/// `wink eval PROMPT --cases CASES.jsonl [...]`
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The prompt file (.json, .toml, .yaml).
    pub prompt: PathBuf,
    /// The cases: one JSON object per line, `{"id", "params"?, "input"?, "expect": {"contains"?,
    /// "regex"?, "tools_called"?, "max_model_calls"?}}`.
    #[arg(long, value_name = "CASES.jsonl")]
    pub cases: PathBuf,
    #[command(flatten)]
    pub model: ModelFlags,
    /// Disclosure mode: unified, wink, open-sections or context-files (default: the file's), or
    /// expanded: every summarized section rendered in full (no disclosure), for comparison.
    #[arg(long, value_name = "MODE")]
    pub disclosure: Option<String>,
    /// Run each case N times; every run counts.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub repeat: u32,
    /// Output: text (a table) or json.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub format: String,
    /// Open the K summarized sections most relevant to each case's input before its first model
    /// call. Default: the prompt file's
    /// `preopen`, else up to 3 (those scoring at least 60% of the best) for the embedded model
    /// (local, local:…) outside wink mode, else none;
    /// 0 turns it off.
    #[arg(long, value_name = "K")]
    pub preopen: Option<usize>,
    /// How pre-opened sections reach the model: `render` (in full in the system prompt, their
    /// tools offered from the first call) or `call` (unified mode: as the model's own first turn,
    /// one read_section call per section run before the first model call, so the system prompt
    /// stays the same for every input and a prefix cache serves it).
    #[arg(long, value_name = "STYLE", default_value = "render", value_parser = ["render", "call"])]
    pub preopen_style: String,
    /// Most model calls per run (a run that needs more fails).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_model_calls: u32,
    /// Wall-clock limit per run, in seconds.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Name the tools each summarized section hides in its summary (see `wink run --help`).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub name_hidden_tools: Option<bool>,
    /// Tool catalogs: auto, auto:N, always or never, for every catalog section (see
    /// `wink run --help`). Default: each catalog section's `defer`.
    #[arg(long, value_name = "POLICY")]
    pub defer: Option<String>,
    /// Start every run with an empty prompt cache (the embedded model's KV cache), as a new
    /// `wink run` process would; calls within a run still reuse it. Without it, a local model's
    /// cache carries over from one run to the next (the prompt's shared prefix is evaluated once).
    #[arg(long)]
    pub cold: bool,
    /// One line per run on stderr (answer and reason for a failure).
    #[arg(long, short)]
    pub verbose: bool,
    /// Write each run's session log into DIR, as CASE.jsonl (CASE-N.jsonl with --repeat):
    /// `wink trace serve DIR` shows the runs side by side.
    #[arg(long, value_name = "DIR")]
    pub sessions: Option<PathBuf>,
}

/// What a case expects of its run.
#[derive(Debug, Default)]
struct Expect {
    contains: Vec<String>,
    regex: Option<regex::Regex>,
    tools_called: Vec<String>,
    max_model_calls: Option<u32>,
}

/// One line of the cases file.
#[derive(Debug)]
struct Case {
    id: String,
    line: usize,
    params: Option<Map<String, Value>>,
    input: Option<String>,
    expect: Expect,
}

/// One run of one case, as reported.
#[derive(Debug, Serialize)]
struct CaseResult {
    id: String,
    passed: bool,
    model_calls: u32,
    tool_calls: u32,
    prompt_tokens: u64,
    cached_tokens: u64,
    output_tokens: u64,
    seconds: f64,
    answer: Option<String>,
    /// Each model call's tokens, in order.
    calls: Vec<TokenUsage>,
    #[serde(skip)]
    failure: Option<String>,
}

impl CaseResult {
    /// The prompt tokens this run evaluates when it starts with an empty cache, as one `wink run` does:
    /// its uncached tokens plus what its first call took from a cache an earlier run left (later calls
    /// only reuse what this run itself evaluated).
    fn cold_uncached_prompt_tokens(&self) -> u64 {
        let uncached = self.prompt_tokens.saturating_sub(self.cached_tokens);
        uncached + self.calls.first().map_or(0, |first| first.cached_tokens)
    }
}

#[derive(Debug, Serialize)]
struct Report {
    cases: Vec<CaseResult>,
    pass_rate: f64,
    prompt_tokens: u64,
    uncached_prompt_tokens: u64,
    /// What `uncached_prompt_tokens` would be with every run started cold (`--cold`, or one `wink run`
    /// process per case): equal to it under `--cold`.
    cold_uncached_prompt_tokens: u64,
    seconds: f64,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn bad(file: &Path, line: usize, key: &str, message: impl std::fmt::Display) -> anyhow::Error {
    if key.is_empty() {
        usage(format!("{}:{line}: {message}", file.display()))
    } else {
        usage(format!("{}:{line}: {key}: {message}", file.display()))
    }
}

fn string_list(value: &Value, file: &Path, line: usize, key: &str) -> anyhow::Result<Vec<String>> {
    let items = value
        .as_array()
        .ok_or_else(|| bad(file, line, key, "expected an array of strings"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str()
                .map(str::to_owned)
                .ok_or_else(|| bad(file, line, &format!("{key}[{i}]"), "expected a string"))
        })
        .collect()
}

fn parse_expect(value: &Value, file: &Path, line: usize) -> anyhow::Result<Expect> {
    let object = value
        .as_object()
        .ok_or_else(|| bad(file, line, "expect", "expected a JSON object"))?;
    let mut expect = Expect::default();
    for (key, value) in object {
        let full = format!("expect.{key}");
        match key.as_str() {
            "contains" => expect.contains = string_list(value, file, line, &full)?,
            "tools_called" => expect.tools_called = string_list(value, file, line, &full)?,
            "regex" => {
                let text = value
                    .as_str()
                    .ok_or_else(|| bad(file, line, &full, "expected a string"))?;
                let regex = regex::Regex::new(text)
                    .map_err(|e| bad(file, line, &full, format!("invalid regex: {e}")))?;
                expect.regex = Some(regex);
            }
            "max_model_calls" => {
                let n = value
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| bad(file, line, &full, "expected a non-negative integer"))?;
                expect.max_model_calls = Some(n);
            }
            _ => {
                return Err(bad(
                    file,
                    line,
                    &full,
                    "unknown key (expected contains, regex, tools_called, max_model_calls)",
                ));
            }
        }
    }
    Ok(expect)
}

fn parse_case(text: &str, file: &Path, line: usize) -> anyhow::Result<Case> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        bad(
            file,
            line,
            "",
            format!("invalid JSON at column {}: {e}", e.column()),
        )
    })?;
    let Value::Object(object) = value else {
        return Err(bad(file, line, "", "expected a JSON object"));
    };
    let mut case = Case {
        id: String::new(),
        line,
        params: None,
        input: None,
        expect: Expect::default(),
    };
    let mut has_expect = false;
    for (key, value) in &object {
        match key.as_str() {
            "id" => {
                case.id = value
                    .as_str()
                    .filter(|id| !id.trim().is_empty())
                    .ok_or_else(|| bad(file, line, "id", "expected a non-empty string"))?
                    .to_owned();
            }
            "params" => match value {
                Value::Object(map) => case.params = Some(map.clone()),
                _ => {
                    return Err(bad(
                        file,
                        line,
                        "params",
                        "expected a JSON object mapping params type names to field values",
                    ));
                }
            },
            "input" => {
                case.input = Some(
                    value
                        .as_str()
                        .ok_or_else(|| bad(file, line, "input", "expected a string"))?
                        .to_owned(),
                );
            }
            "expect" => {
                case.expect = parse_expect(value, file, line)?;
                has_expect = true;
            }
            _ => {
                return Err(bad(
                    file,
                    line,
                    key,
                    "unknown key (expected id, params, input, expect)",
                ));
            }
        }
    }
    if case.id.is_empty() {
        return Err(bad(file, line, "id", "missing"));
    }
    if !has_expect {
        return Err(bad(file, line, "expect", "missing"));
    }
    Ok(case)
}

/// Reads every case; blank lines are skipped. Any problem names the file, line and key.
fn read_cases(file: &Path) -> anyhow::Result<Vec<Case>> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| usage(format!("--cases {}: {e}", file.display())))?;
    let mut cases: Vec<Case> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case = parse_case(line, file, index + 1)?;
        if let Some(first) = cases.iter().find(|c| c.id == case.id) {
            return Err(bad(
                file,
                case.line,
                "id",
                format!("duplicate id '{}' (first on line {})", case.id, first.line),
            ));
        }
        cases.push(case);
    }
    if cases.is_empty() {
        return Err(usage(format!("--cases {}: no cases", file.display())));
    }
    Ok(cases)
}

/// Records the names of the tools a run called.
#[derive(Default)]
struct ToolLog {
    names: Mutex<Vec<String>>,
}

impl RunObserver for ToolLog {
    fn on_tool_result(&self, call: &ToolCall, _content: &str, _is_error: bool) {
        if let Ok(mut names) = self.names.lock() {
            names.push(call.name.clone());
        }
    }
}

/// The disclosure to evaluate: a mode for the prompt, or every section expanded.
struct Disclosure {
    mode: Option<String>,
    expanded: bool,
}

fn parse_disclosure(text: Option<&str>) -> Disclosure {
    match text {
        Some("expanded") => Disclosure {
            mode: None,
            expanded: true,
        },
        other => Disclosure {
            mode: other.map(str::to_owned),
            expanded: false,
        },
    }
}

/// Everything shared by the runs.
struct Evaluator<'a> {
    args: &'a EvalArgs,
    disclosure: Disclosure,
    expand_keys: Vec<String>,
    adapter: Arc<dyn ProviderAdapter>,
    timeout: Option<Duration>,
}

impl Evaluator<'_> {
    /// The case's prompt in a fresh session (each run starts from the file, workspace included).
    fn prepare(&self, case: &Case) -> anyhow::Result<PreparedPrompt> {
        let prompt_args = PromptArgs {
            file: self.args.prompt.clone(),
            params: case
                .params
                .as_ref()
                .map(|p| Value::Object(p.clone()).to_string()),
            expand: if self.disclosure.expanded {
                self.expand_keys.clone()
            } else {
                Vec::new()
            },
            summarize: Vec::new(),
            disclosure: self.disclosure.mode.clone(),
            name_hidden_tools: self.args.name_hidden_tools,
            defer: self.args.defer.clone(),
        };
        let mut prepared = prompt_args.prepare_in(Session::new()).map_err(|e| {
            let message = e.to_string();
            match message.strip_prefix("--params: ") {
                Some(rest) => bad(&self.args.cases, case.line, "params", rest),
                None => e,
            }
        })?;
        // Catalogs with `defer: auto` decide for this model's window, as in `wink run`.
        let window = self
            .args
            .model
            .context_size
            .or_else(|| self.adapter.context_window())
            .unwrap_or(super::common::DEFAULT_CONTEXT_WINDOW);
        if window != super::common::DEFAULT_CONTEXT_WINDOW {
            prepared.decide_catalogs(window)?;
        }
        prepared
            .prompt
            .render_with(&prepared.session)
            .map_err(|e| bad(&self.args.cases, case.line, "params", e))?;
        Ok(prepared)
    }

    fn run_case(
        &self,
        runtime: &tokio::runtime::Runtime,
        case: &Case,
        log: Option<PathBuf>,
    ) -> anyhow::Result<CaseResult> {
        let prepared = self.prepare(case)?;
        let _log = match log {
            Some(path) => Some(session_log(&path, &prepared.session)?),
            None => None,
        };
        let preopen = super::common::effective_preopen(
            self.args.preopen,
            prepared.loaded.preopen,
            &self.args.model.model,
            prepared.prompt.template().disclosure(),
        );
        let mut opening_calls = Vec::new();
        if let Some(k) = preopen
            && !self.disclosure.expanded
        {
            opening_calls = super::common::preopen(
                &prepared,
                case.input.as_deref(),
                k,
                &self.args.preopen_style,
            )?
            .calls;
        }
        let config = MainLoopConfig {
            loop_config: LoopConfig {
                user_message: case.input.clone(),
                context_window: self.args.model.context_size,
                ..LoopConfig::default()
            },
            budget: Budget {
                max_model_calls: Some(self.args.max_model_calls),
                deadline: self.timeout.map(Deadline::after),
                ..Budget::default()
            },
            resources: prepared.resources.clone(),
            opening_calls,
            ..MainLoopConfig::default()
        };
        let tools = ToolLog::default();
        let hooks = RunHooks {
            observer: Some(&tools),
            stream: None,
        };
        let started = Instant::now();
        let main_loop = MainLoop::new(self.adapter.as_ref(), config);
        let result = runtime
            .block_on(main_loop.execute(&prepared.prompt, &prepared.session, hooks))
            .map_err(|e| bad(&self.args.cases, case.line, "", e))?;
        let seconds = started.elapsed().as_secs_f64();
        let called = tools.names.into_inner().unwrap_or_default();
        let spent = result.spent;
        let calls = result
            .evaluations
            .iter()
            .flat_map(|evaluation| evaluation.model_calls.iter())
            .map(|call| call.usage.unwrap_or_default())
            .collect();
        let (answer, failure) = match &result.outcome {
            LoopOutcome::Finished { text, output } => {
                let answer = match output {
                    Some(output) => output.to_string(),
                    None => text.clone().unwrap_or_default(),
                };
                (Some(answer), None)
            }
            other => (None, Some(describe_outcome(other))),
        };
        let failure =
            failure.or_else(|| check(&case.expect, answer.as_deref(), &called, spent.model_calls));
        Ok(CaseResult {
            id: case.id.clone(),
            passed: failure.is_none(),
            model_calls: spent.model_calls,
            tool_calls: spent.tool_calls,
            prompt_tokens: spent.usage.input_tokens,
            cached_tokens: spent.usage.cached_tokens,
            output_tokens: spent.usage.output_tokens,
            seconds: round3(seconds),
            answer,
            calls,
            failure,
        })
    }
}

/// A fresh session log at `path` (an earlier eval's log there is replaced) for a case's run.
fn session_log(
    path: &Path,
    session: &Session,
) -> anyhow::Result<std::sync::Arc<wink_store::SessionLog>> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(usage(format!("--sessions: {}: {e}", path.display()))),
    }
    wink_store::SessionLog::create(path, session, wink_store::FsyncPolicy::Never)
        .map_err(|e| usage(format!("--sessions: {e}")))
}

fn describe_outcome(outcome: &LoopOutcome) -> String {
    match outcome {
        LoopOutcome::BudgetExceeded { limit } => format!("stopped: the {limit} budget ran out"),
        LoopOutcome::Failed { message, phase } => format!("failed ({phase}): {message}"),
        LoopOutcome::ExpansionRequired { section_keys, .. } => {
            format!("stopped waiting for sections {}", section_keys.join(", "))
        }
        _ => "did not finish".to_owned(),
    }
}

/// Why a finished run does not meet `expect` (`None`: it passes). `contains` is
/// case-insensitive; `tools_called` needs each name called at least once, in any order.
fn check(
    expect: &Expect,
    answer: Option<&str>,
    called: &[String],
    model_calls: u32,
) -> Option<String> {
    let answer = answer.unwrap_or_default();
    let lower = answer.to_lowercase();
    if let Some(missing) = expect
        .contains
        .iter()
        .find(|needle| !lower.contains(&needle.to_lowercase()))
    {
        return Some(format!("the answer does not contain {missing:?}"));
    }
    if let Some(regex) = &expect.regex
        && !regex.is_match(answer)
    {
        return Some(format!("the answer does not match /{}/", regex.as_str()));
    }
    if let Some(missing) = expect.tools_called.iter().find(|t| !called.contains(t)) {
        return Some(format!(
            "{missing} was not called (called: {})",
            called.join(", ")
        ));
    }
    if let Some(max) = expect.max_model_calls
        && model_calls > max
    {
        return Some(format!("{model_calls} model calls, more than {max}"));
    }
    None
}

/// The task type of a case: its id without the last `-` segment (`single-hidden-03` →
/// `single-hidden`).
fn case_type(id: &str) -> &str {
    id.rsplit_once('-').map_or(id, |(prefix, _)| prefix)
}

/// A hand-drawn progress line on stderr (only on a terminal).
struct ProgressBar {
    total: usize,
    started: Instant,
    enabled: bool,
}

impl ProgressBar {
    fn draw(&self, done: usize, passed: usize, current: &str) {
        if !self.enabled {
            return;
        }
        const WIDTH: usize = 24;
        let filled = (done * WIDTH).checked_div(self.total).unwrap_or(WIDTH);
        note_inline!(
            "\r\x1b[2K[{}{}] {done}/{} runs, {passed} passed, {:.0}s  {current}",
            "#".repeat(filled),
            "-".repeat(WIDTH - filled),
            self.total,
            self.started.elapsed().as_secs_f64()
        );
        let _ = std::io::stderr().flush();
    }

    fn clear(&self) {
        if self.enabled {
            note_inline!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
    }
}

pub fn run(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    if args.repeat == 0 {
        return Err(usage("--repeat must be at least 1"));
    }
    let timeout = super::common::timeout_flag(args.timeout)?;
    let disclosure = parse_disclosure(args.disclosure.as_deref());
    let cases = read_cases(&args.cases)?;
    let template = wink_promptfile::load(&args.prompt)
        .map_err(|e| usage(e.to_string()))?
        .template;
    let expand_keys = template
        .nodes()
        .iter()
        .filter(|n| n.section.summary().is_some())
        .map(|n| n.path.dotted())
        .collect();
    let options = args.model.options(false, false);
    let adapter = super::common::build_model(
        &args.model.model,
        options,
        false,
        &template,
        &Session::new(),
    )?;
    let evaluator = Evaluator {
        args,
        disclosure,
        expand_keys,
        adapter,
        timeout,
    };
    // Every case must load and render before the first model call.
    for case in &cases {
        evaluator.prepare(case)?;
    }
    if let Some(dir) = &args.sessions {
        std::fs::create_dir_all(dir)
            .map_err(|e| usage(format!("--sessions {}: {e}", dir.display())))?;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
    let runs: Vec<&Case> = cases
        .iter()
        .flat_map(|c| std::iter::repeat_n(c, args.repeat as usize))
        .collect();
    let bar = ProgressBar {
        total: runs.len(),
        started: Instant::now(),
        enabled: std::io::stderr().is_terminal(),
    };
    let started = Instant::now();
    let mut results = Vec::with_capacity(runs.len());
    for (index, case) in runs.iter().enumerate() {
        let passed = results.iter().filter(|r: &&CaseResult| r.passed).count();
        bar.draw(index, passed, &case.id);
        if args.cold {
            evaluator.adapter.forget_cached_prefix();
        }
        let log = args.sessions.as_ref().map(|dir| {
            let n = runs[..index].iter().filter(|c| c.id == case.id).count() + 1;
            match args.repeat {
                1 => dir.join(format!("{}.jsonl", case.id)),
                _ => dir.join(format!("{}-{n}.jsonl", case.id)),
            }
        });
        let result = evaluator.run_case(&runtime, case, log)?;
        if args.verbose {
            bar.clear();
            note!(
                "{} {}: {}",
                if result.passed { "PASS" } else { "FAIL" },
                result.id,
                result.failure.as_deref().unwrap_or("ok")
            );
        }
        results.push(result);
    }
    bar.clear();
    let report = summarize(results, started.elapsed().as_secs_f64());
    let text = if args.format == "json" {
        serde_json::to_string_pretty(&report)?
    } else {
        text_report(&report)
    };
    crate::output::println(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn summarize(cases: Vec<CaseResult>, seconds: f64) -> Report {
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
    Report {
        cases,
        pass_rate,
        prompt_tokens,
        uncached_prompt_tokens,
        cold_uncached_prompt_tokens,
        seconds: round3(seconds),
    }
}

fn text_report(report: &Report) -> String {
    let mut out = String::new();
    let width = report
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
    for c in &report.cases {
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
    for c in &report.cases {
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
    let passed = report.cases.iter().filter(|c| c.passed).count();
    out.push_str(&format!(
        "pass rate {:.1}% ({passed}/{}), {} prompt tokens ({} uncached, {} with every run started cold), {:.1}s",
        100.0 * report.pass_rate,
        report.cases.len(),
        report.prompt_tokens,
        report.uncached_prompt_tokens,
        report.cold_uncached_prompt_tokens,
        report.seconds
    ));
    out
}

fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max).collect::<String>())
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn expect(line: &str) -> Expect {
        parse_case(line, Path::new("c.jsonl"), 1).unwrap().expect
    }

    #[test]
    fn check_reports_the_first_unmet_expectation() {
        let e = expect(
            r#"{"id": "a", "expect": {"contains": ["5555"], "regex": "^The", "tools_called": ["add"], "max_model_calls": 2}}"#,
        );
        let called = vec!["read_section".to_owned(), "add".to_owned()];
        assert_eq!(check(&e, Some("The sum is 5555."), &called, 2), None);
        assert_eq!(
            check(&e, Some("the SUM is 5555."), &called, 2).as_deref(),
            Some("the answer does not match /^The/")
        );
        assert_eq!(
            check(&e, Some("The sum is 5556."), &called, 2).as_deref(),
            Some("the answer does not contain \"5555\"")
        );
        assert_eq!(
            check(&e, Some("The sum is 5555."), &called[..1], 2).as_deref(),
            Some("add was not called (called: read_section)")
        );
        assert_eq!(
            check(&e, Some("The sum is 5555."), &called, 3).as_deref(),
            Some("3 model calls, more than 2")
        );
    }

    #[test]
    fn case_errors_name_the_file_line_and_key() {
        let err = |line: &str| {
            parse_case(line, Path::new("c.jsonl"), 7)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(err(r#"{"id": "a"}"#), "c.jsonl:7: expect: missing");
        assert_eq!(err(r#"{"expect": {}}"#), "c.jsonl:7: id: missing");
        assert_eq!(
            err(r#"{"id": "a", "expect": {"regex": "("}}"#)
                .lines()
                .next()
                .unwrap(),
            "c.jsonl:7: expect.regex: invalid regex: regex parse error:"
        );
        assert_eq!(
            err(r#"{"id": "a", "expect": {"tools": []}}"#),
            "c.jsonl:7: expect.tools: unknown key (expected contains, regex, tools_called, max_model_calls)"
        );
        assert_eq!(
            err(r#"{"id": "a", "expect": {"tools_called": ["x", 1]}}"#),
            "c.jsonl:7: expect.tools_called[1]: expected a string"
        );
        assert_eq!(
            err(r#"{"id": "a", "inputs": "x", "expect": {}}"#),
            "c.jsonl:7: inputs: unknown key (expected id, params, input, expect)"
        );
        assert_eq!(
            err("{\"id\": "),
            "c.jsonl:7: invalid JSON at column 7: EOF while parsing a value at line 1 column 7"
        );
    }

    #[test]
    fn the_case_type_is_the_id_without_its_last_segment() {
        assert_eq!(case_type("single-hidden-03"), "single-hidden");
        assert_eq!(case_type("multi-1"), "multi");
        assert_eq!(case_type("plain"), "plain");
    }
}
