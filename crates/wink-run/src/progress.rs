//! What a run does, as lines of text: [`ProgressLines`] is a [`RunObserver`] that writes one
//! line per model call, tool result, injection, restart, repair and loop intervention (what
//! `wink run` prints on stderr), and [`PreparedRun::report`] says what preparing the run
//! decided.

use std::time::Instant;

use wink_agent::{Intervention, ModelTurn, Repair, RunObserver, Spent, ToolSpec};
use wink_core::ToolCall;

use crate::PreparedRun;
use crate::eval::one_line;

/// Where progress lines go (each without its line feed).
pub type LineSink = Box<dyn Fn(&str) + Send + Sync>;

/// A [`RunObserver`] writing a line per step, each stamped with the seconds since it was made;
/// `verbose` adds the model's text and longer tool results.
pub struct ProgressLines {
    verbose: bool,
    started: Instant,
    write: LineSink,
}

impl std::fmt::Debug for ProgressLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgressLines")
            .field("verbose", &self.verbose)
            .finish_non_exhaustive()
    }
}

impl ProgressLines {
    /// Lines to `write`, timed from now.
    pub fn new(verbose: bool, write: LineSink) -> Self {
        Self {
            verbose,
            started: Instant::now(),
            write,
        }
    }

    fn line(&self, text: &str) {
        (self.write)(&format!(
            "[{:>6.1}s] {text}",
            self.started.elapsed().as_secs_f64()
        ));
    }

    /// The last line: what the run spent.
    pub fn done(&self, spent: &Spent, restarts: u32) {
        self.line(&format!(
            "done: {} model calls, {} tool calls, {} input tokens ({} cached), {} output tokens, {restarts} restarts",
            spent.model_calls,
            spent.tool_calls,
            spent.usage.input_tokens,
            spent.usage.cached_tokens,
            spent.usage.output_tokens,
        ));
    }

    fn cut(&self, short: usize) -> usize {
        if self.verbose { 400 } else { short }
    }
}

impl RunObserver for ProgressLines {
    fn on_model_call(&self, index: u32, messages: usize, tools: &[ToolSpec]) {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        self.line(&format!(
            "model call {} ({messages} messages, tools: {})",
            index + 1,
            names.join(", ")
        ));
    }

    fn on_model_turn(&self, turn: &ModelTurn) {
        if let Some(u) = &turn.usage {
            self.line(&format!(
                "  tokens: {} in ({} cached), {} out",
                u.input_tokens, u.cached_tokens, u.output_tokens
            ));
        }
        if self.verbose
            && let Some(t) = &turn.text
        {
            (self.write)(&format!("           text: {}", one_line(t, 200)));
        }
    }

    fn on_tool_result(&self, call: &ToolCall, content: &str, is_error: bool) {
        let args = serde_json::to_string(&call.arguments).unwrap_or_default();
        self.line(&format!(
            "  tool {}({}) -> {}{}",
            call.name,
            one_line(&args, 120),
            if is_error { "ERROR " } else { "" },
            one_line(content, self.cut(100))
        ));
    }

    fn on_tools_injected(&self, section: &str, tools: &[String]) {
        self.line(&format!(
            "  injected tools from '{section}': {}",
            tools.join(", ")
        ));
    }

    fn on_restart(&self, sections: &[String]) {
        self.line(&format!(
            "  restarting with sections expanded: {}",
            sections.join(", ")
        ));
    }

    fn on_turn_repaired(&self, repair: &Repair) {
        let action = &repair.firing.action;
        let tool = action.tool().map(|t| format!(" {t}")).unwrap_or_default();
        self.line(&format!(
            "  repair {}: {}{tool} (took back: {})",
            repair.firing.rule,
            action.as_str(),
            one_line(&repair.text, self.cut(120))
        ));
    }

    fn on_intervention(&self, intervention: &Intervention) {
        let call = match (&intervention.tool, &intervention.arguments) {
            (Some(tool), Some(args)) => format!(" {tool}({})", one_line(&args.to_string(), 120)),
            _ => String::new(),
        };
        self.line(&format!(
            "  loop {}{call}: {}",
            intervention.kind.as_str(),
            one_line(&intervention.detail, self.cut(160))
        ));
    }
}

impl PreparedRun {
    /// What preparing the run decided, a line each: the profile with its turn policies and
    /// answer tool (when `verbose`), every catalog deferral but `always`, the sections
    /// pre-opened and the catalog tools described before the first call.
    #[must_use]
    pub fn report(&self, verbose: bool) -> Vec<String> {
        let mut lines = Vec::new();
        if verbose {
            let turn = self.config.loop_config.turn_settings(self.profile);
            lines.push(format!(
                "profile {} (turn policies: {}; answer tool: {})",
                turn.profile,
                if turn.policies.is_empty() {
                    "none".to_owned()
                } else {
                    turn.policies.join(", ")
                },
                if turn.answer_tool { "on" } else { "off" }
            ));
        }
        for (path, decision) in self.decisions() {
            if decision.policy != "always" {
                lines.push(format!(
                    "catalog '{path}' {} ({}: {} schema tokens, threshold {} of {} tokens)",
                    decision.decision,
                    decision.policy,
                    decision.schema_tokens,
                    decision
                        .threshold_tokens
                        .map_or("none".to_owned(), |t| t.to_string()),
                    decision.context_window
                ));
            }
        }
        if !self.preopened.is_empty() {
            lines.push(format!("pre-opened {}", self.preopened.join(", ")));
        }
        if !self.described.is_empty() {
            lines.push(format!(
                "pre-described {}",
                serde_json::Value::from(self.described.clone())
            ));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use super::*;

    #[test]
    fn each_step_is_one_stamped_line() {
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = Arc::clone(&lines);
        let progress = ProgressLines::new(
            false,
            Box::new(move |line| sink.lock().unwrap().push(line.to_owned())),
        );
        let call = ToolCall {
            id: "c1".into(),
            name: "lookup".into(),
            arguments: wink_core::ToolArguments::Json(json!({"id": "A-1"})),
        };
        progress.on_tool_result(&call, "order A-1\nshipped", false);
        progress.on_restart(&["orders".to_owned()]);
        progress.done(&Spent::default(), 1);
        let lines = lines.lock().unwrap();
        let unstamped: Vec<&str> = lines.iter().map(|l| &l[10..]).collect();
        assert_eq!(
            unstamped,
            [
                "  tool lookup({\"id\":\"A-1\"}) -> order A-1 shipped",
                "  restarting with sections expanded: orders",
                "done: 0 model calls, 0 tool calls, 0 input tokens (0 cached), 0 output tokens, 1 restarts",
            ]
        );
        assert!(lines[0].starts_with("[   0.0s] "), "{}", lines[0]);
    }
}
