//! What the child leaves behind: tools used, artifacts, and the summary handed to the parent.

use serde_json::Value;
use wink_core::render_json_payload;
use wink_session::{Session, ToolInvoked};

use super::SubagentArtifact;

pub(super) fn push_unique(list: &mut Vec<String>, item: &str) {
    let item = item.trim();
    if !item.is_empty() && !list.iter().any(|i| i == item) {
        list.push(item.to_owned());
    }
}

/// Whether a tool name reads like a file-writing tool (`write_file`, `fs.edit_file`, ...).
pub(super) fn writes_files(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    ["write_file", "edit_file", "create_file", "append_file"]
        .iter()
        .any(|w| last.contains(w))
}

pub(super) struct ChildReport {
    pub(super) tools_used: Vec<String>,
    pub(super) tool_calls: u32,
    pub(super) artifacts: Vec<String>,
}

pub(super) fn collect_report(
    child: &Session,
    invoked_before: usize,
    artifacts_before: usize,
) -> ChildReport {
    let mut report = ChildReport {
        tools_used: Vec::new(),
        tool_calls: 0,
        artifacts: Vec::new(),
    };
    for invoked in child.slice::<ToolInvoked>().iter().skip(invoked_before) {
        report.tool_calls += 1;
        push_unique(&mut report.tools_used, &invoked.name);
        if invoked.success && writes_files(&invoked.name) {
            let path = invoked
                .value
                .as_ref()
                .and_then(|v| v.get("path"))
                .or_else(|| invoked.params.get("file_path"))
                .or_else(|| invoked.params.get("path"))
                .and_then(Value::as_str);
            if let Some(path) = path {
                push_unique(&mut report.artifacts, path);
            }
        }
    }
    for recorded in child
        .slice::<SubagentArtifact>()
        .iter()
        .skip(artifacts_before)
    {
        push_unique(&mut report.artifacts, &recorded.artifact);
    }
    report
}

/// The summary of a finished child: its text, else a `message_summary` / `summary` field of its
/// structured output, else the output itself.
pub(super) fn summarize(text: Option<&str>, output: Option<&Value>) -> String {
    if let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) {
        return text.to_owned();
    }
    if let Some(output) = output {
        for field in ["message_summary", "summary"] {
            if let Some(s) = output
                .get(field)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                return s.to_owned();
            }
        }
        let rendered = render_json_payload(output);
        if !rendered.is_empty() {
            return rendered;
        }
    }
    "The subagent finished without a message.".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summary_prefers_text_then_summary_fields_then_output() {
        assert_eq!(summarize(Some("  done "), None), "done");
        assert_eq!(
            summarize(None, Some(&json!({"summary": "found it", "x": 1}))),
            "found it"
        );
        assert_eq!(
            summarize(
                None,
                Some(&json!({"message_summary": "ms", "summary": "s"}))
            ),
            "ms"
        );
        assert_eq!(summarize(None, Some(&json!({"x": 1}))), "{\"x\": 1}");
        assert_eq!(
            summarize(Some(" "), None),
            "The subagent finished without a message."
        );
    }

    #[test]
    fn file_writing_tools_are_recognised() {
        assert!(writes_files("write_file"));
        assert!(writes_files("fs.write_file"));
        assert!(writes_files("vfs_edit_file"));
        assert!(!writes_files("read_file"));
        assert!(!writes_files("write_file.read"));
    }
}
