//! Disclosure tools' error handling through the Rust API: seed 000's checklist ("invalid section
//! keys and already-expanded sections") for `open_sections` in the open-sections and
//! context-files modes, seed 001's re-opening of a tool-bearing section, and seed 003's
//! unified `read_section` messages (`Unknown section key: '<key>'`, `Section is already
//! expanded.` with no tools).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::{Value, json};
use wink_core::*;
use wink_fs::{Filesystem, InMemoryFilesystem};
use wink_session::{SectionPath, SectionVisibility, Session, SetVisibilityOverride};

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

fn template(mode: DisclosureMode) -> PromptTemplate {
    PromptTemplate::builder("t", "errors")
        .disclosure(mode)
        .section(MarkdownSection::new("Task", "task", "Do it."))
        .section(
            MarkdownSection::new("Guide", "guide", "Use short sentences.")
                .summary("A style guide.")
                .summarized(),
        )
        .section(
            MarkdownSection::new("Tools", "tools", "Use lookup.")
                .summary("Tools summary.")
                .summarized()
                .tool(lookup()),
        )
        .build()
        .unwrap()
}

/// Call `name` with `arguments` against `rendered`, as the agent loop does.
fn call(rendered: &RenderedPrompt, session: &Session, name: &str, arguments: Value) -> CallOutcome {
    let mut executor = ToolExecutor::new(session.clone(), "t:errors");
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    executor.resources = Resources::new().with(fs);
    let call = ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments: ToolArguments::Json(arguments),
    };
    block_on(executor.execute(&call, &rendered.tools, Some(rendered))).unwrap()
}

fn open(rendered: &RenderedPrompt, session: &Session, keys: &[&str], reason: &str) -> CallOutcome {
    call(
        rendered,
        session,
        "open_sections",
        json!({"section_keys": keys, "reason": reason}),
    )
}

/// (success, message, text for the model) of a completed call.
fn completed(outcome: CallOutcome) -> (bool, String, String) {
    match outcome {
        CallOutcome::Completed(r) => (r.result.success, r.result.message.clone(), r.model_text()),
        CallOutcome::ExpansionRequired(e) => panic!("unexpected expansion {e}"),
    }
}

fn failure(outcome: CallOutcome) -> String {
    let (success, message, text) = completed(outcome);
    assert!(!success, "{message}");
    assert_eq!(message, text, "a failure shows the model its message only");
    message
}

fn expansion_keys(outcome: CallOutcome) -> Vec<String> {
    match outcome {
        CallOutcome::ExpansionRequired(e) => e.section_keys,
        CallOutcome::Completed(r) => panic!("unexpected result {:?}", r.result),
    }
}

fn make_full(session: &Session, key: &str) {
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root(key),
        visibility: SectionVisibility::Full,
    });
}

/// Seed 000 reports bad keys as validation errors; seed 001 (context files) as handler failures.
fn prefix(mode: DisclosureMode) -> &'static str {
    match mode {
        DisclosureMode::OpenSections => "Tool validation failed: ",
        _ => "Tool 'open_sections' execution failed: ",
    }
}

#[test]
fn open_sections_rejects_unknown_keys_alone_and_an_empty_list() {
    for mode in [DisclosureMode::OpenSections, DisclosureMode::ContextFiles] {
        let session = Session::new();
        let rendered = Prompt::new(template(mode)).render_with(&session).unwrap();
        let p = prefix(mode);
        assert_eq!(
            failure(open(&rendered, &session, &["nope"], "r")),
            format!("{p}Section 'nope' does not exist in this prompt. Valid keys: guide, tools."),
            "{mode:?}"
        );
        // Beside a key that opens a section, a bad key is named in the reason, not fatal.
        match open(&rendered, &session, &["tools", "guide.nope"], "r") {
            CallOutcome::ExpansionRequired(e) => {
                assert_eq!(e.section_keys, ["tools"], "{mode:?}");
                assert_eq!(
                    e.reason,
                    "r (Not opened (no such section): 'guide.nope'. Valid keys: guide, tools.)",
                    "{mode:?}"
                );
            }
            CallOutcome::Completed(r) => panic!("{mode:?}: {:?}", r.result),
        }
        assert_eq!(
            failure(open(&rendered, &session, &[], "r")),
            format!("{p}At least one section key must be provided."),
            "{mode:?}"
        );
    }
}

#[test]
fn open_sections_rejects_sections_already_expanded_by_default_or_by_an_override() {
    for mode in [DisclosureMode::OpenSections, DisclosureMode::ContextFiles] {
        let session = Session::new();
        let rendered = Prompt::new(template(mode)).render_with(&session).unwrap();
        let p = prefix(mode);
        assert_eq!(
            failure(open(&rendered, &session, &["task"], "r")),
            format!("{p}Section 'task' is already expanded."),
            "{mode:?}"
        );
        // Visibility is read live from the session: an override dispatched after the render
        // counts.
        make_full(&session, "guide");
        assert_eq!(
            failure(open(&rendered, &session, &["guide"], "r")),
            format!("{p}Section 'guide' is already expanded."),
            "{mode:?}"
        );
    }
}

#[test]
fn open_sections_limits_the_reason_to_256_characters() {
    for mode in [DisclosureMode::OpenSections, DisclosureMode::ContextFiles] {
        let session = Session::new();
        let rendered = Prompt::new(template(mode)).render_with(&session).unwrap();
        let long = "é".repeat(257);
        assert_eq!(
            failure(open(&rendered, &session, &["tools"], &long)),
            format!("{}Reason must be at most 256 characters.", prefix(mode)),
            "{mode:?}"
        );
        // 256 characters (not bytes) is within the limit.
        let limit = "é".repeat(256);
        assert_eq!(
            expansion_keys(open(&rendered, &session, &["tools"], &limit)),
            ["tools"],
            "{mode:?}"
        );
    }
}

#[test]
fn reopening_a_tool_bearing_section_after_the_retry_is_already_expanded() {
    // Seed 001 "Re-opening Sections": tool-bearing → expansion, then "already expanded".
    let session = Session::new();
    let prompt = Prompt::new(template(DisclosureMode::ContextFiles));
    let rendered = prompt.render_with(&session).unwrap();
    assert_eq!(
        expansion_keys(open(&rendered, &session, &["tools"], "need lookup")),
        ["tools"]
    );
    // The caller applies the override and renders again; the model asks once more.
    make_full(&session, "tools");
    let retried = prompt.render_with(&session).unwrap();
    assert_eq!(retried.tool_names(), ["lookup", "open_sections"]);
    assert_eq!(
        failure(open(&retried, &session, &["tools"], "again")),
        "Tool 'open_sections' execution failed: Section 'tools' is already expanded."
    );
    // A content-only section can still be opened (written) on the retried prompt.
    let (success, message, _) = completed(open(&retried, &session, &["guide"], "read"));
    assert!(success);
    assert_eq!(message, "Section content written to: context/guide.md");
}

#[test]
fn unified_read_section_reports_an_unknown_key() {
    let session = Session::new();
    let rendered = Prompt::new(template(DisclosureMode::Unified))
        .render_with(&session)
        .unwrap();
    // The valid keys (the sections summarized now) come closest first: a key the bad one
    // extends, then by edit distance.
    // A key under a section shown in full says so (small models ask for `glossary.dreich`
    // when `glossary` is above them already).
    let shown = " Section 'task' is shown in full already: answer from its text above.";
    for (key, valid, tail) in [
        ("nope", "guide, tools", ""),
        ("tools.nope", "tools, guide", ""),
        ("", "guide, tools", ""),
        ("task.step", "tools, guide", shown),
    ] {
        let expected = format!("Unknown section key: '{key}'. Valid keys: {valid}.{tail}");
        match call(
            &rendered,
            &session,
            "read_section",
            json!({"section_key": key}),
        ) {
            CallOutcome::Completed(r) => {
                assert!(!r.result.success);
                assert_eq!(r.result.message, expected);
                assert_eq!(r.model_text(), expected);
                assert!(r.result.value.is_none());
                assert!(r.expansion.is_none());
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn unified_read_section_of_an_expanded_section_returns_its_content_without_tools() {
    let session = Session::new();
    let rendered = Prompt::new(template(DisclosureMode::Unified))
        .render_with(&session)
        .unwrap();
    // Full by default.
    match call(
        &rendered,
        &session,
        "read_section",
        json!({"section_key": "task"}),
    ) {
        CallOutcome::Completed(r) => {
            assert!(r.result.success);
            assert_eq!(r.result.message, "Section is already expanded.");
            assert_eq!(
                r.result.value.as_ref().map(|v| v.json.clone()),
                Some(json!({"content": "## 1. Task (task)\n\nDo it.", "expanded_tools": []}))
            );
            assert_eq!(
                r.model_text(),
                "Section is already expanded.\n\n## 1. Task (task)\n\nDo it."
            );
            assert!(r.expansion.is_none());
        }
        other => panic!("{other:?}"),
    }
    // A tool-bearing section read once discloses its tools ...
    match call(
        &rendered,
        &session,
        "read_section",
        json!({"section_key": "tools"}),
    ) {
        CallOutcome::Completed(r) => {
            assert_eq!(r.result.message, "Content of section 'tools':");
            assert_eq!(
                r.result
                    .value
                    .as_ref()
                    .map(|v| v.json["expanded_tools"].clone()),
                Some(json!(["lookup"]))
            );
            let expansion = r.expansion.unwrap();
            assert_eq!(expansion.path, SectionPath::root("tools"));
            assert_eq!(expansion.tools.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    // ... and once it is full, reading it again discloses none.
    make_full(&session, "tools");
    match call(
        &rendered,
        &session,
        "read_section",
        json!({"section_key": "tools"}),
    ) {
        CallOutcome::Completed(r) => {
            assert!(r.result.success);
            assert_eq!(r.result.message, "Section is already expanded.");
            assert_eq!(
                r.result.value.as_ref().map(|v| v.json.clone()),
                Some(
                    json!({"content": "## 3. Tools (tools)\n\nUse lookup.", "expanded_tools": []})
                )
            );
            assert!(r.expansion.is_none());
        }
        other => panic!("{other:?}"),
    }
}

/// A tool named `name` in a section of its own.
fn named(name: &str) -> ToolRef {
    ToolBuilder::dynamic(
        name,
        "A user tool.",
        empty_params_schema(),
        |_args, _ctx| Ok(ToolResult::message("mine")),
    )
    .build()
    .unwrap()
}

#[test]
fn a_section_tool_named_like_the_builtin_the_render_adds_is_a_duplicate() {
    for (mode, name) in [
        (DisclosureMode::Unified, "read_section"),
        (DisclosureMode::OpenSections, "open_sections"),
        (DisclosureMode::ContextFiles, "open_sections"),
        (DisclosureMode::Wink, "open_sections"),
        (DisclosureMode::Wink, "read_section"),
    ] {
        let template = PromptTemplate::builder("t", "clash")
            .disclosure(mode)
            .section(MarkdownSection::new("Task", "task", "Do it.").tool(named(name)))
            .section(
                MarkdownSection::new("Guide", "guide", "Use short sentences.")
                    .summary("A style guide.")
                    .summarized(),
            )
            .section(
                MarkdownSection::new("Tools", "tools", "Use lookup.")
                    .summary("Tools summary.")
                    .summarized()
                    .tool(lookup()),
            )
            .build()
            .unwrap();
        let err = Prompt::new(Arc::new(template)).render().unwrap_err();
        assert_eq!(
            (err.message(), err.placeholder()),
            ("Duplicate tool name registered for prompt.", Some(name)),
            "{mode:?}"
        );
    }
    // No summarized section, no builtin: the name is free (as in WINK v0.17).
    let template = PromptTemplate::builder("t", "free")
        .section(MarkdownSection::new("Task", "task", "Do it.").tool(named("read_section")))
        .build()
        .unwrap();
    let rendered = Prompt::new(Arc::new(template)).render().unwrap();
    assert_eq!(rendered.tool_names(), ["read_section"]);
}

/// A section that offers the tool `find_tool` only once `offering` is set, after the template
/// was built (as a catalog section whose deferral is decided later does).
#[derive(Debug)]
struct LateTools {
    offering: Arc<std::sync::atomic::AtomicBool>,
    tools: Vec<ToolRef>,
}

impl Section for LateTools {
    fn title(&self) -> &str {
        "Catalog"
    }
    fn key(&self) -> &str {
        "catalog"
    }
    fn tools(&self) -> &[ToolRef] {
        if self.offering.load(std::sync::atomic::Ordering::SeqCst) {
            &self.tools
        } else {
            &[]
        }
    }
    fn render_body(
        &self,
        _params: Option<&ParamsValue>,
        _visibility: SectionVisibility,
    ) -> Result<String, PromptError> {
        Ok("Find tools with find_tool.".to_owned())
    }
}

#[test]
fn two_offered_tools_of_one_name_fail_the_render_even_when_offered_after_the_build() {
    let offering = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let template = PromptTemplate::builder("t", "late")
        .section(MarkdownSection::new("Task", "task", "Do it.").tool(named("find_tool")))
        .section(LateTools {
            offering: offering.clone(),
            tools: vec![named("find_tool")],
        })
        .build()
        .unwrap();
    let prompt = Prompt::new(Arc::new(template));
    assert_eq!(prompt.render().unwrap().tool_names(), ["find_tool"]);
    offering.store(true, std::sync::atomic::Ordering::SeqCst);
    let err = prompt.render().unwrap_err();
    assert_eq!(
        (err.message(), err.placeholder()),
        (
            "Duplicate tool name registered for prompt.",
            Some("find_tool")
        )
    );
}
