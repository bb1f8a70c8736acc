//! `open_sections` outside `wink` mode (issue 17): keys already expanded are skipped (WINK
//! HEAD), disabled sections are rejected with a reason, a section inside a summarized parent
//! opens the parent chain, the call's value is seed 000's `OpenSectionsResult`, and context
//! files hold the section's whole subtree. `wink` mode keeps v0.17's strict checks.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::json;
use wink_core::*;
use wink_fs::{Filesystem, InMemoryFilesystem};
use wink_session::{SectionPath, SectionVisibility, Session, SetVisibilityOverride, ToolInvoked};

fn lookup(name: &str) -> ToolRef {
    ToolBuilder::dynamic(
        name,
        "Look something up.",
        empty_params_schema(),
        |_a, _c| Ok(ToolResult::message("ok")),
    )
    .build()
    .unwrap()
}

/// `task` (full); `tools` (summarized, tool `lookup`); `kit` (summarized) holding `kit.inner`
/// (full by default, tool `inner_tool`) and `kit.extra` (summarized, tool `extra_tool`);
/// `off` (disabled, summarized) holding `off.child`; `guide` (summarized, content only) holding
/// `guide.step` (full), `guide.deep` (summarized, with `guide.deep.more`) and `guide.gone`
/// (disabled).
fn template(mode: DisclosureMode) -> PromptTemplate {
    PromptTemplate::builder("t", "open")
        .disclosure(mode)
        .section(MarkdownSection::new("Task", "task", "Do it."))
        .section(
            MarkdownSection::new("Tools", "tools", "Use lookup.")
                .summary("Tools summary.")
                .summarized()
                .tool(lookup("lookup")),
        )
        .section(
            MarkdownSection::new("Kit", "kit", "Kit body.")
                .summary("Kit summary.")
                .summarized()
                .child(
                    MarkdownSection::new("Inner", "inner", "Inner body.")
                        .tool(lookup("inner_tool")),
                )
                .child(
                    MarkdownSection::new("Extra", "extra", "Extra body.")
                        .summary("Extra summary.")
                        .summarized()
                        .tool(lookup("extra_tool")),
                ),
        )
        .section(
            MarkdownSection::new("Off", "off", "Off body.")
                .summary("Off summary.")
                .summarized()
                .enabled(false)
                .child(MarkdownSection::new("Child", "child", "Child body.")),
        )
        .section(
            MarkdownSection::new("Guide", "guide", "Guide body.")
                .summary("A guide.")
                .summarized()
                .child(MarkdownSection::new("Step", "step", "Step body."))
                .child(
                    MarkdownSection::new("Deep", "deep", "Deep body.")
                        .summary("Deep summary.")
                        .summarized()
                        .child(MarkdownSection::new("More", "more", "More body.")),
                )
                .child(MarkdownSection::new("Gone", "gone", "Gone body.").enabled(false)),
        )
        .build()
        .unwrap()
}

fn open(mode: DisclosureMode, session: &Session, keys: &[&str]) -> CallOutcome {
    open_with(mode, session, keys, Arc::new(InMemoryFilesystem::new()))
}

fn open_with(
    mode: DisclosureMode,
    session: &Session,
    keys: &[&str],
    fs: Arc<dyn Filesystem>,
) -> CallOutcome {
    let rendered = Prompt::new(template(mode)).render_with(session).unwrap();
    let mut executor = ToolExecutor::new(session.clone(), "t:open");
    executor.resources = Resources::new().with(fs);
    let call = ToolCall {
        id: "c1".into(),
        name: "open_sections".into(),
        arguments: ToolArguments::Json(json!({"section_keys": keys, "reason": "need it"})),
    };
    block_on(executor.execute(&call, &rendered.tools, Some(&rendered))).unwrap()
}

fn failure(outcome: CallOutcome) -> String {
    match outcome {
        CallOutcome::Completed(r) => {
            assert!(!r.result.success, "{}", r.result.message);
            r.result.message
        }
        CallOutcome::ExpansionRequired(e) => panic!("unexpected expansion {e}"),
    }
}

/// (keys, dotted overrides) of an expansion.
fn expansion(outcome: CallOutcome) -> (Vec<String>, Vec<String>) {
    match outcome {
        CallOutcome::ExpansionRequired(e) => (
            e.section_keys,
            e.requested_overrides
                .keys()
                .map(SectionPath::dotted)
                .collect(),
        ),
        CallOutcome::Completed(r) => panic!("unexpected result {:?}", r.result),
    }
}

fn make_full(session: &Session, path: SectionPath) {
    session.dispatch(SetVisibilityOverride {
        path,
        visibility: SectionVisibility::Full,
    });
}

const LENIENT: [DisclosureMode; 2] = [DisclosureMode::OpenSections, DisclosureMode::ContextFiles];

fn prefix(mode: DisclosureMode) -> &'static str {
    match mode {
        DisclosureMode::OpenSections => "Tool validation failed: ",
        _ => "Tool 'open_sections' execution failed: ",
    }
}

#[test]
fn keys_already_expanded_are_skipped_and_only_an_all_expanded_request_fails() {
    for mode in LENIENT {
        let session = Session::new();
        assert_eq!(
            expansion(open(mode, &session, &["task", "tools"])),
            (vec!["tools".into()], vec!["tools".into()]),
            "{mode}"
        );
        let p = prefix(mode);
        assert_eq!(
            failure(open(mode, &session, &["task"])),
            format!("{p}Section 'task' is already expanded.")
        );
        make_full(&session, SectionPath::root("tools"));
        assert_eq!(
            failure(open(mode, &session, &["task", "tools", "task"])),
            format!("{p}All requested sections are already expanded: 'task', 'tools'")
        );
        // A request that opens nothing and names an unknown key fails, naming the keys that can
        // be opened.
        assert_eq!(
            failure(open(mode, &session, &["task", "nope"])),
            format!(
                "{p}Section 'nope' does not exist in this prompt. Valid keys: kit, guide, kit.extra, guide.deep."
            )
        );
    }
}

#[test]
fn the_known_keys_open_and_the_reason_names_the_unknown_ones() {
    for mode in [DisclosureMode::OpenSections, DisclosureMode::Wink] {
        let session = Session::new();
        match open(mode, &session, &["tools", "nope"]) {
            CallOutcome::ExpansionRequired(e) => {
                assert_eq!(e.section_keys, ["tools"], "{mode}");
                assert_eq!(
                    e.reason,
                    "need it (Not opened (no such section): 'nope'. Valid keys: tools, kit, guide, kit.extra, guide.deep.)",
                    "{mode}"
                );
            }
            CallOutcome::Completed(r) => panic!("{mode}: {:?}", r.result),
        }
    }
    // Only unknown keys: refused as before (v0.17's message in wink mode).
    assert_eq!(
        failure(open(
            DisclosureMode::Wink,
            &Session::new(),
            &["nope", "gone"]
        )),
        "Tool 'open_sections' execution failed: Section 'nope' does not exist in this prompt."
    );
}

#[test]
fn wink_mode_keeps_v017s_strict_check() {
    let session = Session::new();
    assert_eq!(
        failure(open(DisclosureMode::Wink, &session, &["task", "tools"])),
        "Tool 'open_sections' execution failed: Section 'task' is already expanded."
    );
}

#[test]
fn disabled_sections_are_rejected_with_the_reason() {
    for mode in LENIENT {
        let session = Session::new();
        let p = prefix(mode);
        assert_eq!(
            failure(open(mode, &session, &["off"])),
            format!("{p}Section 'off' is disabled, so it cannot be opened."),
            "{mode}"
        );
        assert_eq!(
            failure(open(mode, &session, &["tools", "off.child"])),
            format!(
                "{p}Section 'off.child' is inside the disabled section 'off', so it cannot be opened."
            )
        );
        assert_eq!(
            failure(open(mode, &session, &["guide.gone"])),
            format!("{p}Section 'guide.gone' is disabled, so it cannot be opened.")
        );
    }
}

#[test]
fn a_section_inside_a_summarized_parent_opens_the_parent_chain() {
    let mode = DisclosureMode::OpenSections;
    let session = Session::new();
    // Full by default but hidden by its parent: the parent opens.
    assert_eq!(
        expansion(open(mode, &session, &["kit.inner"])),
        (vec!["kit.inner".into()], vec!["kit".into()])
    );
    // Summarized itself: parent first, then the section.
    assert_eq!(
        expansion(open(mode, &session, &["kit.extra", "kit"])),
        (
            vec!["kit.extra".into(), "kit".into()],
            vec!["kit".into(), "kit.extra".into()]
        )
    );
    // After the restart both are visible and their tools offered: nothing loops.
    make_full(&session, SectionPath::root("kit"));
    make_full(
        &session,
        SectionPath::new(vec!["kit".into(), "extra".into()]),
    );
    let rendered = Prompt::new(template(mode)).render_with(&session).unwrap();
    assert!(
        rendered
            .text
            .contains("### 3.2. Extra (kit.extra)\n\nExtra body.")
    );
    assert_eq!(
        rendered.tool_names(),
        ["inner_tool", "extra_tool", "open_sections"]
    );
    assert_eq!(
        failure(open(mode, &session, &["kit.inner", "kit.extra"])),
        "Tool validation failed: All requested sections are already expanded: 'kit.inner', 'kit.extra'"
    );
}

fn invoked(session: &Session) -> ToolInvoked {
    session
        .slice::<ToolInvoked>()
        .all()
        .last()
        .cloned()
        .unwrap()
}

#[test]
fn the_value_of_a_restart_request_is_seed_000s_open_sections_result() {
    let session = Session::new();
    open(
        DisclosureMode::OpenSections,
        &session,
        &["tools", "kit.extra"],
    );
    let event = invoked(&session);
    assert!(event.success);
    assert_eq!(
        event.message,
        "Model requested expansion of sections: tools, kit.extra"
    );
    assert_eq!(
        event.value,
        Some(json!({"requested_overrides": {"tools": "full", "kit": "full", "kit.extra": "full"}}))
    );
    assert_eq!(
        event.rendered_output,
        "Model requested expansion of sections: tools, kit.extra\n\nSections requested for expansion: tools, kit, kit/extra. Retry prompt with visibility overrides."
    );
    // WINK v0.17 raises without a result: the message alone, no value.
    let session = Session::new();
    open(DisclosureMode::Wink, &session, &["tools"]);
    let event = invoked(&session);
    assert_eq!(event.value, None);
    assert_eq!(
        event.rendered_output,
        "Model requested expansion of sections: tools"
    );
}

#[test]
fn a_context_file_holds_the_whole_subtree_at_current_visibility() {
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    let session = Session::new();
    match open_with(
        DisclosureMode::ContextFiles,
        &session,
        &["guide"],
        fs.clone(),
    ) {
        CallOutcome::Completed(r) => {
            assert_eq!(
                r.result.message,
                "Section content written to: context/guide.md"
            );
            assert_eq!(
                r.result.value.map(|v| v.json),
                Some(json!({"written_files": ["context/guide.md"]}))
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        fs.read_to_string("context/guide.md").unwrap(),
        "## Guide (guide)\n\nGuide body.\n\n### Step (guide.step)\n\nStep body.\n\n### Deep (guide.deep)\n\nDeep summary.\n\n---\n[This section is summarized. Call `open_sections` with key \"guide.deep\" to write content (including subsections: more) to context/guide.deep.md.]"
    );
    // The summarized child is reachable the same way.
    open_with(
        DisclosureMode::ContextFiles,
        &session,
        &["guide.deep"],
        fs.clone(),
    );
    assert_eq!(
        fs.read_to_string("context/guide.deep.md").unwrap(),
        "## Deep (guide.deep)\n\nDeep body.\n\n### More (guide.deep.more)\n\nMore body."
    );
}
