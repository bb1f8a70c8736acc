//! The data model of a dispatch: the tool's arguments and result, the artifact event and the
//! [`SubagentRun`] record.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_core::schemars::JsonSchema;
use wink_core::{ToolOutput, render_json_payload};
use wink_session::{Event, SessionId, Timestamp, TokenUsage};

/// Why a subagent is dispatched.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "wink_core::schemars", transform = drop_description)]
#[serde(rename_all = "snake_case")]
pub enum SubagentMode {
    /// To carry out one step of the parent's plan (`plan_step_id` required).
    PlanStep,
    /// For a one-off task.
    AdHoc,
}

/// The arguments of `dispatch_subagent` (seed 002's `DispatchSubagent`). Field docs are the
/// descriptions the model sees in the tool schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "wink_core::schemars", transform = drop_description)]
pub struct DispatchSubagent {
    /// "plan_step" to carry out a step of your plan (set plan_step_id), "ad_hoc" otherwise.
    pub mode: SubagentMode,
    /// Namespace of the subagent prompt to run (see the list of subagent prompts).
    pub prompt_ns: String,
    /// Key of the subagent prompt to run.
    pub prompt_key: String,
    /// Self-contained task description: goal, starting points, constraints, what to report. ASCII, 1-2000 characters.
    pub instructions: String,
    /// Deliverables you need back, such as file paths or findings. ASCII, up to 160 characters each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected_artifacts: Vec<String>,
    /// Id of the plan step this dispatch carries out; required when mode is "plan_step".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_step_id: Option<String>,
    /// Session snapshot version you expect; the call is rejected when the session's differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_version: Option<String>,
}

/// Type docs are for Rust readers; the model reads the field descriptions.
fn drop_description(schema: &mut wink_core::schemars::Schema) {
    schema.remove("description");
}

impl DispatchSubagent {
    /// An `ad_hoc` dispatch of `(prompt_ns, prompt_key)`.
    pub fn ad_hoc(
        prompt_ns: impl Into<String>,
        prompt_key: impl Into<String>,
        instructions: impl Into<String>,
    ) -> Self {
        Self {
            mode: SubagentMode::AdHoc,
            prompt_ns: prompt_ns.into(),
            prompt_key: prompt_key.into(),
            instructions: instructions.into(),
            expected_artifacts: Vec::new(),
            plan_step_id: None,
            snapshot_version: None,
        }
    }

    /// A `plan_step` dispatch of `(prompt_ns, prompt_key)` for plan step `plan_step_id`.
    pub fn plan_step(
        prompt_ns: impl Into<String>,
        prompt_key: impl Into<String>,
        plan_step_id: impl Into<String>,
        instructions: impl Into<String>,
    ) -> Self {
        Self {
            mode: SubagentMode::PlanStep,
            plan_step_id: Some(plan_step_id.into()),
            ..Self::ad_hoc(prompt_ns, prompt_key, instructions)
        }
    }

    /// Set the expected artifacts.
    #[must_use]
    pub fn expecting<I, S>(mut self, artifacts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.expected_artifacts = artifacts.into_iter().map(Into::into).collect();
        self
    }
}

/// What the parent receives (seed 002's `DispatchSubagentResult`, plus the child's structured
/// output when its prompt declares one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DispatchSubagentResult {
    /// Namespace of the prompt that ran.
    pub prompt_ns: String,
    /// Key of the prompt that ran.
    pub prompt_key: String,
    /// The child's final message (the tool result message restates it).
    pub message_summary: String,
    /// Deliverables the child produced (file paths, citations, ...), first mention first.
    #[serde(default)]
    pub artifacts: Vec<String>,
    /// Tools the child called, first use first.
    #[serde(default)]
    pub tools_used: Vec<String>,
    /// The child's parsed structured output, when its prompt declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
}

impl ToolOutput for DispatchSubagentResult {
    fn render(&self) -> Option<String> {
        let mut lines = Vec::new();
        if let Some(output) = &self.output {
            let rendered = render_json_payload(output);
            if rendered != self.message_summary {
                lines.push(format!("Output: {rendered}"));
            }
        }
        if !self.artifacts.is_empty() {
            lines.push(format!("Artifacts: {}", self.artifacts.join(", ")));
        }
        if !self.tools_used.is_empty() {
            lines.push(format!("Tools used: {}", self.tools_used.join(", ")));
        }
        Some(lines.join("\n"))
    }
}

/// An artifact reported by a tool running inside a subagent: dispatch it into the tool's session
/// (`ctx.session.dispatch(SubagentArtifact::new("report.md"))`) and it is listed in the
/// dispatch result's `artifacts`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubagentArtifact {
    /// The artifact (a path, a URL, a citation, ...).
    pub artifact: String,
}

impl SubagentArtifact {
    /// A new artifact record.
    pub fn new(artifact: impl Into<String>) -> Self {
        Self {
            artifact: artifact.into(),
        }
    }
}

impl Event for SubagentArtifact {}

/// How a dispatch ended, as recorded in [`SubagentRun`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum SubagentOutcome {
    /// The child finished and its summary went back to the parent.
    Completed,
    /// The child could not be set up (prompt, snapshot or configuration problem).
    Failed {
        /// What went wrong.
        message: String,
    },
    /// The child started but its run was aborted (model error, tool crash, budget, panic).
    Aborted {
        /// What went wrong.
        message: String,
    },
    /// The call was dropped before it finished.
    Cancelled,
}

/// The summary of one dispatch, recorded in the parent session (its default ledger slice, its
/// journal and its bus) so runs stay debuggable without the child's transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentRun {
    /// When the dispatch ended.
    pub created_at: Timestamp,
    /// The parent session.
    pub session_id: SessionId,
    /// The child session (absent when the dispatch failed before forking).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_session_id: Option<SessionId>,
    /// The provider's id of the `dispatch_subagent` call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Namespace of the child prompt.
    pub prompt_ns: String,
    /// Key of the child prompt.
    pub prompt_key: String,
    /// Dispatch mode.
    pub mode: SubagentMode,
    /// Plan step carried out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_step_id: Option<String>,
    /// The (trimmed) instructions.
    pub instructions: String,
    /// The summary returned to the parent, when the run completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_summary: Option<String>,
    /// Artifacts the child produced.
    #[serde(default)]
    pub artifacts: Vec<String>,
    /// Tools the child used, first use first.
    #[serde(default)]
    pub tools_used: Vec<String>,
    /// Model calls the child made.
    pub model_calls: u32,
    /// Tool calls the child made.
    pub tool_calls: u32,
    /// Tokens the child's model calls used.
    pub usage: TokenUsage,
    /// How it ended.
    pub outcome: SubagentOutcome,
}

impl Event for SubagentRun {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn result_renders_artifacts_tools_and_distinct_output() {
        let mut result = DispatchSubagentResult {
            prompt_ns: "r".into(),
            prompt_key: "i".into(),
            message_summary: "done".into(),
            artifacts: vec!["a.md".into()],
            tools_used: vec!["grep".into(), "write_file".into()],
            output: Some(json!({"summary": "done", "n": 2})),
        };
        assert_eq!(
            result.render_payload(),
            "Output: {\"summary\": \"done\", \"n\": 2}\nArtifacts: a.md\nTools used: grep, write_file"
        );
        result.output = None;
        result.artifacts.clear();
        result.tools_used.clear();
        assert_eq!(result.render_payload(), "");
    }
}
