//! The repetition guard and the loop's other interventions (unknown tools, auto-opened
//! sections): pure, serialisable with the [`crate::InnerLoop`] state, no I/O.
//!
//! A tool call is a *repetition* when an identical call (same tool name, same arguments as JSON
//! values) was already answered in this conversation and nothing that could change its answer
//! happened since. "Could change" is read conservatively: any successful call of a tool other
//! than the builtin disclosure tools (`read_section`, `open_sections`) counts as a state change,
//! whatever the tool does; failed calls change nothing (their changes are rolled back). A call
//! that already succeeded [`SAME_RESULT_RUNS`] times in a row with one and the same result is a
//! repetition whatever happened in between: the state changes did not change its answer (measured
//! on Qwen2.5-Coder-1.5B: `text.reverse("stressed")` → `desserts`, then `text.reverse("desserts")`
//! → `stressed`, back and forth until the budget ran out, each call a "state change"). A
//! repetition is not executed: the model gets the earlier result again, followed by
//! [`repeated_call_note`] (or [`repeated_failure_note`] when the earlier call failed). From the
//! second repetition on, the next model call is answer-only ([`crate::ToolChoice::None`]); a
//! model that still calls tools then ends the evaluation. A repeated successful `open_sections`
//! call is let through (the batched expansion policy asks for it); a repeated failed one is not.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_core::builtin::TOOL_DESCRIBE;
use wink_core::{ToolArguments, ToolCall};

/// Repetitions after which the next model call is answer-only.
pub const ANSWER_ONLY_AFTER: u32 = 2;

/// Most tool names an unknown-tool result lists.
const MAX_LISTED_TOOLS: usize = 20;

/// What the loop did instead of running a model turn as asked.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterventionKind {
    /// A repeated call was answered with the earlier result.
    RepeatedCall,
    /// The next model call is answer-only (`tool_choice: none`).
    AnswerOnly,
    /// The model kept calling tools after it was asked to answer; the evaluation ended.
    KeptCallingTools,
    /// A call of an unknown tool was answered with a failed result.
    UnknownTool,
    /// A call of a tool hidden in a summarized section opened that section.
    AutoOpen,
    /// The next request would not fit the model's context window; the evaluation ended.
    ContextWindow,
    /// A call whose argument copies the example from the tool's description was answered with
    /// a failed result (see [`crate::copied_example`]).
    CopiedExample,
    /// A call whose argument is a record code found nowhere in the conversation was answered
    /// with a failed result (see [`crate::unseen_code`]).
    UnseenCode,
    /// A call of a tool by a near name (`multiply` for `math.multiply`) ran the one tool it
    /// can only mean.
    ResolvedToolName,
}

impl InterventionKind {
    /// The kind's wire name (`repeated_call`, `answer_only`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RepeatedCall => "repeated_call",
            Self::AnswerOnly => "answer_only",
            Self::KeptCallingTools => "kept_calling_tools",
            Self::UnknownTool => "unknown_tool",
            Self::AutoOpen => "auto_open",
            Self::ContextWindow => "context_window",
            Self::CopiedExample => "copied_example",
            Self::UnseenCode => "unseen_code",
            Self::ResolvedToolName => "resolved_tool_name",
        }
    }
}

/// One intervention, as published in the `LoopIntervention` session event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Intervention {
    /// What the loop did.
    pub kind: InterventionKind,
    /// The tool call that prompted it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// That call's arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// In words.
    pub detail: String,
}

impl Intervention {
    /// An intervention prompted by `call`.
    pub fn for_call(kind: InterventionKind, call: &ToolCall, detail: impl Into<String>) -> Self {
        Self {
            kind,
            tool: Some(call.name.clone()),
            arguments: Some(arguments_value(&call.arguments)),
            detail: detail.into(),
        }
    }

    /// An intervention not tied to a call.
    pub fn new(kind: InterventionKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            tool: None,
            arguments: None,
            detail: detail.into(),
        }
    }
}

/// A call's arguments as a JSON value (text that is not JSON stays a string; empty text is `{}`):
/// [`ToolArguments::to_value`].
pub fn arguments_value(arguments: &ToolArguments) -> Value {
    arguments.to_value()
}

/// The note after the earlier result when a successful call is repeated.
pub fn repeated_call_note(tool: &str) -> String {
    format!(
        "[Repeated call: `{tool}` was already called with these arguments and returned the result above. Do not call it again: use this result and answer.]"
    )
}

/// The note after the earlier result when a failed call is repeated.
pub fn repeated_failure_note(tool: &str) -> String {
    format!(
        "[Repeated call: this call of `{tool}` already failed with the error above. Do not repeat it: change the arguments, call another tool, or answer.]"
    )
}

/// The failed result for a call of a tool that is not offered (outside `wink` mode): names the
/// section to open when the tool hides in one (`opener` is `read_section` or `open_sections`),
/// or, when a tool catalog is offered, says how to make a catalog tool callable (a model calls
/// one by the name its listing shows without describing it first); then lists the tools offered
/// (at most 20).
///
/// ```
/// use wink_agent::unknown_tool_message;
/// assert_eq!(
///     unknown_tool_message("lookup_order", Some(("read_section", "orders")), &["read_section".into(), "add".into()]),
///     "Unknown tool 'lookup_order'. It is in section \"orders\": call `read_section` with key \"orders\" first. Available tools: read_section, add."
/// );
/// ```
pub fn unknown_tool_message(
    tool: &str,
    hiding: Option<(&str, &str)>,
    available: &[String],
) -> String {
    let mut message = format!("Unknown tool '{tool}'.");
    if let Some((opener, section)) = hiding {
        message.push_str(&format!(
            " It is in section \"{section}\": call `{opener}` with key \"{section}\" first."
        ));
    } else if available.iter().any(|name| name == TOOL_DESCRIBE) {
        message.push_str(&format!(
            " If it is in the tool catalog, call `{TOOL_DESCRIBE}` with names [\"{tool}\"] first: that makes it callable."
        ));
    }
    if available.is_empty() {
        message.push_str(" No tools are available: answer without tools.");
        return message;
    }
    let listed: Vec<&str> = available
        .iter()
        .take(MAX_LISTED_TOOLS)
        .map(String::as_str)
        .collect();
    message.push_str(&format!(" Available tools: {}", listed.join(", ")));
    if available.len() > MAX_LISTED_TOOLS {
        message.push_str(&format!(" and {} more", available.len() - MAX_LISTED_TOOLS));
    }
    message.push('.');
    message
}

/// A call answered earlier in the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct AnsweredCall {
    name: String,
    arguments: Value,
    content: String,
    is_error: bool,
    /// The state-change count right after it was answered.
    state_changes: u32,
    /// How many times in a row this call succeeded with this same result.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    same_results: u32,
}

fn one() -> u32 {
    1
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_one(n: &u32) -> bool {
    *n == 1
}

/// Successful runs with one and the same result after which a call counts as a repetition even
/// when state changed in between.
pub const SAME_RESULT_RUNS: u32 = 2;

/// The repetition guard's memory of one conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RepetitionGuard {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    answered: Vec<AnsweredCall>,
    #[serde(default)]
    state_changes: u32,
    #[serde(default)]
    repetitions: u32,
}

/// A repetition the guard caught: what to answer instead of running the call.
#[derive(Debug, Clone, PartialEq)]
pub struct Repetition {
    /// The tool result text for the model.
    pub content: String,
    /// Whether the earlier call failed.
    pub is_error: bool,
    /// What to record.
    pub interventions: Vec<Intervention>,
}

impl RepetitionGuard {
    /// Whether the next model call must be answer-only.
    pub fn answer_only(&self) -> bool {
        self.repetitions >= ANSWER_ONLY_AFTER
    }

    /// Repetitions caught so far.
    pub fn repetitions(&self) -> u32 {
        self.repetitions
    }

    /// Remember an answered call. `changes_state` is false for the disclosure tools.
    pub fn record(&mut self, call: &ToolCall, content: &str, is_error: bool, changes_state: bool) {
        if changes_state && !is_error {
            self.state_changes += 1;
        }
        let arguments = arguments_value(&call.arguments);
        let same_results = self
            .answered
            .iter()
            .find(|a| a.name == call.name && a.arguments == arguments)
            .filter(|a| !is_error && !a.is_error && a.content == content)
            .map_or(1, |a| a.same_results + 1);
        self.answered
            .retain(|a| !(a.name == call.name && a.arguments == arguments));
        self.answered.push(AnsweredCall {
            name: call.name.clone(),
            arguments,
            content: content.to_owned(),
            is_error,
            state_changes: self.state_changes,
            same_results,
        });
    }

    /// If `call` repeats an answered call with no state change since, count it and say what to
    /// answer instead of running it.
    pub fn intercept(&mut self, call: &ToolCall) -> Option<Repetition> {
        let arguments = arguments_value(&call.arguments);
        let earlier = self.answered.iter().rev().find(|a| {
            a.name == call.name
                && a.arguments == arguments
                && (a.state_changes == self.state_changes || a.same_results >= SAME_RESULT_RUNS)
        })?;
        // A batched expansion policy answers `open_sections` with a note asking the model to
        // call it again to open the sections now: only a repeated failure is caught.
        if call.name == wink_core::OPEN_SECTIONS && !earlier.is_error {
            return None;
        }
        let note = if earlier.is_error {
            repeated_failure_note(&call.name)
        } else {
            repeated_call_note(&call.name)
        };
        let content = format!("{}\n\n{note}", earlier.content);
        let is_error = earlier.is_error;
        self.repetitions += 1;
        let mut interventions = vec![Intervention::for_call(
            InterventionKind::RepeatedCall,
            call,
            format!(
                "repetition {}: answered with the earlier result",
                self.repetitions
            ),
        )];
        if self.repetitions == ANSWER_ONLY_AFTER {
            interventions.push(Intervention::for_call(
                InterventionKind::AnswerOnly,
                call,
                "the next model call is answer-only (tool_choice none)",
            ));
        }
        Some(Repetition {
            content,
            is_error,
            interventions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: Value) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: name.into(),
            arguments: ToolArguments::Json(args),
        }
    }

    #[test]
    fn an_identical_call_with_no_state_change_between_is_a_repetition() {
        let mut guard = RepetitionGuard::default();
        let stock = call("stock", json!({"title": "Dune"}));
        guard.record(&stock, "7 copies in stock", false, true);
        // Same arguments given as text: still the same call.
        let again = ToolCall {
            arguments: ToolArguments::Text("{\"title\":\"Dune\"}".into()),
            ..stock.clone()
        };
        let caught = guard.intercept(&again).unwrap();
        assert_eq!(
            caught.content,
            "7 copies in stock\n\n[Repeated call: `stock` was already called with these arguments and returned the result above. Do not call it again: use this result and answer.]"
        );
        assert!(!caught.is_error);
        assert_eq!(caught.interventions.len(), 1);
        assert!(!guard.answer_only());
        let second = guard.intercept(&stock).unwrap();
        assert_eq!(
            second
                .interventions
                .iter()
                .map(|i| i.kind)
                .collect::<Vec<_>>(),
            vec![InterventionKind::RepeatedCall, InterventionKind::AnswerOnly]
        );
        assert!(guard.answer_only());
    }

    #[test]
    fn another_successful_call_in_between_is_a_state_change() {
        let mut guard = RepetitionGuard::default();
        let stock = call("stock", json!({"title": "Dune"}));
        guard.record(&stock, "7", false, true);
        guard.record(
            &call("buy", json!({"title": "Dune"})),
            "bought",
            false,
            true,
        );
        assert_eq!(guard.intercept(&stock), None);
        // Different arguments are a different call.
        guard.record(&stock, "6", false, true);
        assert_eq!(
            guard.intercept(&call("stock", json!({"title": "Emma"}))),
            None
        );
    }

    #[test]
    fn a_call_that_gave_the_same_result_twice_is_a_repetition_across_state_changes() {
        let mut guard = RepetitionGuard::default();
        let forward = call("reverse", json!({"text": "stressed"}));
        let back = call("reverse", json!({"text": "desserts"}));
        guard.record(&forward, "desserts", false, true);
        guard.record(&back, "stressed", false, true);
        // Once: a state change in between lets it run.
        assert_eq!(guard.intercept(&forward), None);
        guard.record(&forward, "desserts", false, true);
        guard.record(&back, "stressed", false, true);
        // Twice with the same result: caught whatever ran between.
        let caught = guard.intercept(&forward).unwrap();
        assert!(
            caught
                .content
                .starts_with("desserts\n\n[Repeated call: `reverse`")
        );
        // A call whose result changed (a status that moves on) is not.
        let status = call("status", json!({}));
        guard.record(&status, "pending", false, true);
        guard.record(&status, "shipped", false, true);
        guard.record(&forward, "desserts", false, true);
        assert_eq!(guard.intercept(&status), None);
    }

    #[test]
    fn disclosure_reads_and_failures_change_no_state() {
        let mut guard = RepetitionGuard::default();
        let read = call("read_section", json!({"section_key": "inventory.Dune"}));
        guard.record(&read, "Unknown section key: 'inventory.Dune'", true, false);
        guard.record(
            &call("read_section", json!({"section_key": "inventory"})),
            "Content of section 'inventory':",
            false,
            false,
        );
        guard.record(&call("buy", json!({})), "no such title", true, true);
        let caught = guard.intercept(&read).unwrap();
        assert!(caught.is_error);
        assert_eq!(
            caught.content,
            "Unknown section key: 'inventory.Dune'\n\n[Repeated call: this call of `read_section` already failed with the error above. Do not repeat it: change the arguments, call another tool, or answer.]"
        );
    }

    #[test]
    fn a_repeated_open_sections_is_caught_only_when_it_failed() {
        let mut guard = RepetitionGuard::default();
        let open = call(
            "open_sections",
            json!({"section_keys": ["a"], "reason": "r"}),
        );
        guard.record(
            &open,
            "Noted: sections a will be opened together",
            false,
            false,
        );
        assert_eq!(guard.intercept(&open), None);
        guard.record(&open, "Section 'a' is already expanded.", true, false);
        assert!(guard.intercept(&open).is_some());
    }

    #[test]
    fn the_guard_round_trips_through_json() {
        let mut guard = RepetitionGuard::default();
        guard.record(&call("stock", json!({"t": 1})), "7", false, true);
        let _ = guard.intercept(&call("stock", json!({"t": 1})));
        let back: RepetitionGuard =
            serde_json::from_value(serde_json::to_value(&guard).unwrap()).unwrap();
        assert_eq!(back, guard);
    }

    #[test]
    fn unknown_tool_messages() {
        assert_eq!(
            unknown_tool_message("nope", None, &["add".into()]),
            "Unknown tool 'nope'. Available tools: add."
        );
        assert_eq!(
            unknown_tool_message(
                "reverse",
                None,
                &["tool.describe".into(), "find_tool".into()]
            ),
            "Unknown tool 'reverse'. If it is in the tool catalog, call `tool.describe` with names [\"reverse\"] first: that makes it callable. Available tools: tool.describe, find_tool."
        );
        assert_eq!(
            unknown_tool_message("nope", None, &[]),
            "Unknown tool 'nope'. No tools are available: answer without tools."
        );
        let many: Vec<String> = (0..22).map(|i| format!("t{i}")).collect();
        assert!(
            unknown_tool_message("nope", None, &many).ends_with("t18, t19 and 2 more."),
            "{}",
            unknown_tool_message("nope", None, &many)
        );
    }
}
