//! Seed 001's edge cases (context-files mode) and disclosure telemetry, through the Rust API.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::{Value, json};
use wink_core::*;
use wink_fs::{Filesystem, InMemoryFilesystem};
use wink_session::{SectionVisibility, Session, ToolInvoked};

fn lookup() -> ToolRef {
    ToolBuilder::dynamic(
        "lookup",
        "Look something up.",
        empty_params_schema(),
        |_args, _ctx| Ok(ToolResult::message("ok")),
    )
    .build()
    .unwrap()
}

/// A section whose full body cannot render (its summary can).
#[derive(Debug)]
struct Broken;
impl Section for Broken {
    fn title(&self) -> &str {
        "Broken"
    }
    fn key(&self) -> &str {
        "broken"
    }
    fn summary(&self) -> Option<&str> {
        Some("Broken summary.")
    }
    fn visibility(&self, _input: SelectorInput<'_>) -> Result<SectionVisibility, PromptError> {
        Ok(SectionVisibility::Summary)
    }
    fn render_body(
        &self,
        _params: Option<&ParamsValue>,
        visibility: SectionVisibility,
    ) -> Result<String, PromptError> {
        match visibility {
            SectionVisibility::Summary => Ok("Broken summary.".into()),
            _ => Err(PromptError::render("the body source is unavailable")),
        }
    }
}

fn template() -> PromptTemplate {
    PromptTemplate::builder("t", "ctx")
        .disclosure(DisclosureMode::ContextFiles)
        .section(
            MarkdownSection::new("Guide", "guide", "Use short sentences.")
                .summary("A style guide.")
                .summarized(),
        )
        .section(
            MarkdownSection::new("Parent", "parent", "Parent body.")
                .summary("Parent summary.")
                .summarized()
                .child(MarkdownSection::new("Child A", "child-a", "A body.").tool(lookup()))
                .child(
                    MarkdownSection::new("Child B", "child-b", "B body.")
                        .summary("B summary.")
                        .summarized(),
                ),
        )
        .section(
            MarkdownSection::new("Tools", "tools", "Tools body.")
                .summary("Tools summary.")
                .summarized()
                .tool(
                    ToolBuilder::dynamic(
                        "other",
                        "Other tool.",
                        empty_params_schema(),
                        |_a, _c| Ok(ToolResult::message("ok")),
                    )
                    .build()
                    .unwrap(),
                ),
        )
        .section_ref(Arc::new(Broken))
        .build()
        .unwrap()
}

fn open(
    keys: &[&str],
    session: &Session,
    fs: Option<Arc<dyn Filesystem>>,
) -> Result<CallOutcome, PromptEvaluationError> {
    let rendered = Prompt::new(template()).render_with(session).unwrap();
    let mut executor = ToolExecutor::new(session.clone(), "t:ctx");
    if let Some(fs) = fs {
        executor.resources = Resources::new().with(fs);
    }
    let call = ToolCall {
        id: "c1".into(),
        name: "open_sections".into(),
        arguments: ToolArguments::Json(json!({"section_keys": keys, "reason": "need it"})),
    };
    block_on(executor.execute(&call, &rendered.tools, Some(&rendered)))
}

fn result(outcome: CallOutcome) -> (bool, String, Value) {
    match outcome {
        CallOutcome::Completed(r) => (
            r.result.success,
            r.result.message,
            r.result.value.map(|v| v.json).unwrap_or(Value::Null),
        ),
        CallOutcome::ExpansionRequired(e) => panic!("unexpected expansion {e}"),
    }
}

#[test]
fn suffixes_follow_seed_001() {
    let text = Prompt::new(template()).render().unwrap().text;
    assert!(text.contains("[This section is summarized. To view full content, call `open_sections` with key \"guide\". The content will be written to context/guide.md for you to read.]"));
    assert!(text.contains("[This section is summarized. Call `open_sections` with key \"parent\" to view full content including subsections: child-a, child-b. Additional tools may become available.]"));
    assert!(text.contains("[This section is summarized. To view full content and access additional tools, call `open_sections` with key \"tools\".]"));
}

#[test]
fn content_only_sections_are_written_and_reopening_overwrites() {
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    let session = Session::new();
    let (ok, message, value) = result(open(&["guide"], &session, Some(fs.clone())).unwrap());
    assert!(ok);
    assert_eq!(message, "Section content written to: context/guide.md");
    assert_eq!(value, json!({"written_files": ["context/guide.md"]}));
    assert_eq!(
        fs.read_to_string("context/guide.md").unwrap(),
        "## Guide (guide)\n\nUse short sentences."
    );
    let (ok, _, _) = result(open(&["guide"], &session, Some(fs.clone())).unwrap());
    assert!(ok, "re-opening a content-only section is idempotent");
    assert_eq!(
        fs.read_to_string("context/guide.md").unwrap(),
        "## Guide (guide)\n\nUse short sentences."
    );
}

#[test]
fn mixed_and_nested_requests_signal_expansion_for_all() {
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    let session = Session::new();
    match open(&["guide", "tools"], &session, Some(fs.clone())).unwrap() {
        CallOutcome::ExpansionRequired(e) => {
            assert_eq!(e.section_keys, ["guide", "tools"]);
            assert_eq!(
                e.requested_overrides.len(),
                2,
                "all sections, not just the tool-bearing one"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        !fs.exists("context/guide.md"),
        "mixed requests write nothing"
    );
    // parent has no tools of its own but child-a has: the parent counts as tool-bearing.
    assert!(matches!(
        open(&["parent"], &session, Some(fs.clone())).unwrap(),
        CallOutcome::ExpansionRequired(_)
    ));
    // child-b has no tools: content path.
    let (ok, message, _) = result(open(&["parent.child-b"], &session, Some(fs)).unwrap());
    assert!(ok, "{message}");
    assert_eq!(
        message,
        "Section content written to: context/parent.child-b.md"
    );
}

#[test]
fn no_filesystem_and_render_failures_are_failed_results() {
    let session = Session::new();
    let (ok, message, _) = result(open(&["guide"], &session, None).unwrap());
    assert!(!ok);
    assert_eq!(
        message,
        "Cannot write context files: no filesystem available."
    );
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    let (ok, message, _) = result(open(&["broken"], &session, Some(fs)).unwrap());
    assert!(!ok);
    assert_eq!(
        message,
        "Failed to write context for 'broken': the body source is unavailable"
    );
}

#[test]
fn tool_invoked_records_disclosure_telemetry() {
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    let session = Session::new();
    open(&["guide"], &session, Some(fs)).unwrap();
    let events = session.slice::<ToolInvoked>().all();
    let telemetry = events[0].disclosure.clone().unwrap();
    assert_eq!(telemetry.requested_sections, ["guide"]);
    assert_eq!(telemetry.reason.as_deref(), Some("need it"));
    assert_eq!(
        telemetry.current_visibility_state.get("guide"),
        Some(&SectionVisibility::Summary)
    );
    assert_eq!(
        telemetry.current_visibility_state.get("parent.child-a"),
        Some(&SectionVisibility::Full)
    );
}
