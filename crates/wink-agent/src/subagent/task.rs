//! What the child is given: its task message and its prompt composed with the tool suite.

use std::collections::BTreeSet;
use std::sync::Arc;

use wink_core::{PromptError, PromptTemplate, SectionRef, normalize_section_key};

use wink_session::{SNAPSHOT_VERSION, Snapshot};

use super::DispatchSubagent;

const CHILD_FOOTER: &str = "You are a subagent working in a copy of the parent agent's session: state changes you make stay in this run, and the parent does not see this conversation. When you are done, reply with a concise summary of what you did and found; the parent receives only that summary, the artifacts you produced and the names of the tools you used.";

/// Slices that record what happened (telemetry, visibility bookkeeping) rather than state a
/// task works on; the snapshot summary leaves them out.
const RECORD_SLICES: [&str; 11] = [
    "ModelCalled",
    "PromptExecuted",
    "PromptRendered",
    "SubagentArtifact",
    "SubagentEvent",
    "SubagentRun",
    "ToolInvoked",
    "ToolsInjected",
    "TraceStarted",
    "VisibilityExpanded",
    "VisibilityOverrides",
];

/// One line naming the state the child starts from: the parent snapshot's non-empty state
/// slices with their item counts, sorted by name (`Note (2 items), Plan (1 item)`).
pub(super) fn snapshot_summary(snapshot: &Snapshot) -> String {
    let slices: Vec<String> = match snapshot.slices_json() {
        Ok(slices) => slices
            .into_iter()
            .filter(|(name, items)| !items.is_empty() && !RECORD_SLICES.contains(name))
            .map(|(name, items)| match items.len() {
                1 => format!("{name} (1 item)"),
                n => format!("{name} ({n} items)"),
            })
            .collect(),
        Err(_) => snapshot
            .slice_type_names()
            .into_iter()
            .filter(|name| !RECORD_SLICES.contains(name))
            .map(str::to_owned)
            .collect(),
    };
    let state = if slices.is_empty() {
        "no state slices".to_owned()
    } else {
        slices.join(", ")
    };
    format!(
        "Session state you start from (a copy of the parent's, snapshot version {SNAPSHOT_VERSION}): {state}."
    )
}

/// The child's first user message: the task, plan metadata, expected artifacts and the summary
/// of the parent snapshot the child starts from.
pub(super) fn task_message(
    request: &DispatchSubagent,
    preamble: Option<&str>,
    snapshot_summary: &str,
) -> String {
    let mut out = String::new();
    if let Some(p) = preamble.map(str::trim).filter(|p| !p.is_empty()) {
        out.push_str(p);
        out.push_str("\n\n");
    }
    match &request.plan_step_id {
        Some(step) => out.push_str(&format!("Task from the parent agent (plan step {step}):")),
        None => out.push_str("Task from the parent agent:"),
    }
    out.push_str("\n\n");
    out.push_str(&request.instructions);
    if !request.expected_artifacts.is_empty() {
        out.push_str("\n\nExpected artifacts:");
        for artifact in &request.expected_artifacts {
            out.push_str("\n- ");
            out.push_str(artifact);
        }
    }
    out.push_str("\n\n");
    out.push_str(snapshot_summary);
    out.push_str("\n\n");
    out.push_str(CHILD_FOOTER);
    out
}

/// `template` with the suite sections it lacks appended (by root key).
pub(super) fn compose(
    template: &PromptTemplate,
    extra: &[SectionRef],
) -> Result<PromptTemplate, PromptError> {
    let roots: Vec<&wink_core::SectionNode> =
        template.nodes().iter().filter(|n| n.depth == 0).collect();
    let mut seen: BTreeSet<String> = roots.iter().map(|n| n.key.clone()).collect();
    let mut missing: Vec<SectionRef> = Vec::new();
    for section in extra {
        let key = normalize_section_key(section.key())?;
        if seen.insert(key) {
            missing.push(Arc::clone(section));
        }
    }
    if missing.is_empty() {
        return Ok(template.clone());
    }
    let mut builder =
        PromptTemplate::builder(template.ns(), template.key()).disclosure(template.disclosure());
    if let Some(name) = template.name() {
        builder = builder.name(name);
    }
    if let Some(output) = template.output() {
        builder = builder.output_spec(output.clone());
    }
    for node in roots {
        builder = builder.section_ref(Arc::clone(&node.section));
    }
    for section in missing {
        builder = builder.section_ref(section);
    }
    builder.build()
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_message_carries_instructions_plan_step_and_artifacts() {
        let request =
            DispatchSubagent::plan_step("r", "i", "s2", "Find X.").expecting(["x.md", "notes"]);
        assert_eq!(
            task_message(&request, Some("Be brief."), "STATE"),
            format!(
                "Be brief.\n\nTask from the parent agent (plan step s2):\n\nFind X.\n\nExpected artifacts:\n- x.md\n- notes\n\nSTATE\n\n{CHILD_FOOTER}"
            )
        );
        assert_eq!(
            task_message(&DispatchSubagent::ad_hoc("r", "i", "Go."), None, "STATE"),
            format!("Task from the parent agent:\n\nGo.\n\nSTATE\n\n{CHILD_FOOTER}")
        );
    }

    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Note(String);
    impl wink_session::Event for Note {}

    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Plan(Vec<String>);
    impl wink_session::Event for Plan {}

    #[test]
    fn snapshot_summary_counts_state_slices_and_skips_telemetry() {
        let session = wink_session::Session::new();
        assert_eq!(
            snapshot_summary(&session.snapshot()),
            "Session state you start from (a copy of the parent's, snapshot version 1): no state slices."
        );
        session.dispatch(Note("a".into()));
        session.dispatch(Note("b".into()));
        session.dispatch(Plan(vec!["step".into()]));
        session.dispatch(wink_session::ToolInvoked::new(
            "p",
            "a",
            "t",
            serde_json::json!({}),
            true,
            "ok",
        ));
        assert_eq!(
            snapshot_summary(&session.snapshot()),
            "Session state you start from (a copy of the parent's, snapshot version 1): Note (2 items), Plan (1 item)."
        );
    }
}
