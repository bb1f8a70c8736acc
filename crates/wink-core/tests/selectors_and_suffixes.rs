//! Section selectors (`enabled` and visibility from params or session state), what a disabled or
//! summarized section does to the tool list, and the summary suffix texts of every disclosure
//! mode, including per-section `summary_suffix` overrides.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use wink_core::*;
use wink_session::{SectionPath, SectionVisibility, Session, SetVisibilityOverride, SliceItem};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, Default)]
struct Flags {
    verbose: bool,
}

/// Session state the selectors read.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Phase {
    name: String,
}
impl SliceItem for Phase {}

fn tool(name: &str) -> ToolRef {
    ToolBuilder::dynamic(
        name,
        "Does a thing.",
        empty_params_schema(),
        |_args, _ctx| Ok(ToolResult::message("ok")),
    )
    .build()
    .unwrap()
}

fn phase_is(input: &SelectorInput<'_>, name: &str) -> bool {
    input
        .session
        .and_then(|s| s.slice::<Phase>().latest().cloned())
        .is_some_and(|p| p.name == name)
}

fn session_in(phase: &str) -> Session {
    let session = Session::new();
    session.register_slice::<Phase>();
    session.seed([Phase { name: phase.into() }]).unwrap();
    session
}

#[test]
fn enabled_from_session_state_removes_the_subtree_and_its_tools() {
    let template = PromptTemplate::builder("t", "sel")
        .section(MarkdownSection::new("Task", "task", "Do it."))
        .section(
            MarkdownSection::new("Deploy", "deploy", "Deploy carefully.")
                .enabled_by(|input| phase_is(&input, "release"))
                .tool(tool("deploy_now"))
                .child(
                    MarkdownSection::new("Rollback", "rollback", "How to roll back.")
                        .tool(tool("rollback")),
                ),
        )
        .build()
        .unwrap();
    let prompt = Prompt::new(template);

    let off = prompt.render_with(&session_in("dev")).unwrap();
    assert_eq!(off.text, "## 1. Task (task)\n\nDo it.");
    assert!(off.tool_names().is_empty(), "{:?}", off.tool_names());

    let on = prompt.render_with(&session_in("release")).unwrap();
    assert_eq!(
        on.text,
        "## 1. Task (task)\n\nDo it.\n\n## 2. Deploy (deploy)\n\nDeploy carefully.\n\n### 2.1. Rollback (deploy.rollback)\n\nHow to roll back."
    );
    assert_eq!(on.tool_names(), ["deploy_now", "rollback"]);

    // Without a session the selector sees none: disabled.
    assert_eq!(prompt.render().unwrap().text, "## 1. Task (task)\n\nDo it.");
}

#[test]
fn a_disabled_parent_withholds_its_descendants_tools_too() {
    let template = PromptTemplate::builder("t", "dis")
        .section(
            MarkdownSection::new("Tools", "tools", "Tools here.")
                .enabled_when(|f: &Flags| f.verbose)
                .params::<Flags>()
                .child(MarkdownSection::new("Inner", "inner", "Inner.").tool(tool("inner_tool"))),
        )
        .section(MarkdownSection::new("Other", "other", "Other.").tool(tool("other_tool")))
        .build()
        .unwrap();
    let off = Prompt::new(template.clone())
        .bind(Flags { verbose: false })
        .render()
        .unwrap();
    assert_eq!(off.text, "## 2. Other (other)\n\nOther.");
    assert_eq!(off.tool_names(), ["other_tool"]);
    let on = Prompt::new(template)
        .bind(Flags { verbose: true })
        .render()
        .unwrap();
    assert_eq!(on.tool_names(), ["inner_tool", "other_tool"]);
}

#[test]
fn visibility_from_params_and_from_session_with_overrides_on_top() {
    let template = PromptTemplate::builder("t", "vis")
        .section(
            MarkdownSection::new("Guide", "guide", "The whole guide.")
                .summary("A guide.")
                .params::<Flags>()
                .visibility_when(|f: &Flags| {
                    if f.verbose {
                        SectionVisibility::Full
                    } else {
                        SectionVisibility::Summary
                    }
                }),
        )
        .section(
            MarkdownSection::new("Ops", "ops", "Runbook.")
                .summary("Operations runbook.")
                .visibility_by(|input| {
                    if phase_is(&input, "incident") {
                        SectionVisibility::Full
                    } else {
                        SectionVisibility::Summary
                    }
                })
                .tool(tool("page_oncall")),
        )
        .build()
        .unwrap();
    let quiet = Prompt::new(template.clone()).bind(Flags { verbose: false });
    let rendered = quiet.render_with(&session_in("calm")).unwrap();
    assert_eq!(
        rendered.text,
        "## 1. Guide (guide)\n\nA guide.\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"guide\".]\n\n## 2. Ops (ops)\n\nOperations runbook.\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"ops\".]"
    );
    assert_eq!(rendered.tool_names(), ["read_section"]);

    let loud = Prompt::new(template.clone()).bind(Flags { verbose: true });
    let rendered = loud.render_with(&session_in("incident")).unwrap();
    assert_eq!(
        rendered.text,
        "## 1. Guide (guide)\n\nThe whole guide.\n\n## 2. Ops (ops)\n\nRunbook."
    );
    // Nothing summarized: no builtin tool.
    assert_eq!(rendered.tool_names(), ["page_oncall"]);

    // A session override beats the selector.
    let session = session_in("incident");
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::new(vec!["ops".into()]),
        visibility: SectionVisibility::Summary,
    });
    let rendered = loud.render_with(&session).unwrap();
    assert!(rendered.text.ends_with("Operations runbook.\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"ops\".]"), "{}", rendered.text);
    assert_eq!(rendered.tool_names(), ["read_section"]);
}

fn suffix_template(mode: DisclosureMode) -> PromptTemplate {
    PromptTemplate::builder("t", "suffix")
        .disclosure(mode)
        .section(
            MarkdownSection::new("Notes", "notes", "All notes.")
                .summary("Notes.")
                .summarized(),
        )
        .section(
            MarkdownSection::new("Book", "book", "The book.")
                .summary("A book.")
                .summarized()
                .child(MarkdownSection::new("Intro", "intro", "Intro."))
                .child(MarkdownSection::new("End", "end", "End.")),
        )
        .section(
            MarkdownSection::new("Api", "api", "API docs.")
                .summary("API.")
                .summarized()
                .tool(tool("call_api")),
        )
        .section(
            MarkdownSection::new("Custom", "custom", "Custom body.")
                .summary("Custom.")
                .summarized()
                .summary_suffix("Ask for `${section_key}` (parts: ${child_keys}); $$5 per read.")
                .child(MarkdownSection::new("Part", "part", "Part.")),
        )
        .build()
        .unwrap()
}

/// The text after each section's summary, in order.
fn suffixes(mode: DisclosureMode) -> Vec<String> {
    let text = Prompt::new(suffix_template(mode)).render().unwrap().text;
    text.split("\n\n## ")
        .map(|part| part.split_once("\n\n---\n").unwrap().1.to_owned())
        .collect()
}

#[test]
fn suffix_texts_of_every_mode() {
    let custom = "Ask for `custom` (parts: part); $5 per read.".to_owned();
    assert_eq!(
        suffixes(DisclosureMode::Unified),
        [
            "[This section is summarized. To view full content, call `read_section` with key \"notes\".]",
            "[This section is summarized. Call `read_section` with key \"book\" to view full content including subsections: intro, end.]",
            "[This section is summarized. To view full content, call `read_section` with key \"api\".]",
            custom.as_str(),
        ]
    );
    assert_eq!(
        suffixes(DisclosureMode::Wink),
        [
            "[This section is summarized. To view full content, call `read_section` with key \"notes\".]",
            "[This section is summarized. Call `read_section` with key \"book\" to view full content including subsections: intro, end.]",
            "[This section is summarized. To view full content, call `open_sections` with key \"api\".]",
            custom.as_str(),
        ]
    );
    assert_eq!(
        suffixes(DisclosureMode::OpenSections),
        [
            "[This section is summarized. To view full content, call `open_sections` with key \"notes\".]",
            "[This section is summarized. Call `open_sections` with key \"book\" to view full content including subsections: intro, end.]",
            "[This section is summarized. To view full content, call `open_sections` with key \"api\".]",
            custom.as_str(),
        ]
    );
    assert_eq!(
        suffixes(DisclosureMode::ContextFiles),
        [
            "[This section is summarized. To view full content, call `open_sections` with key \"notes\". The content will be written to context/notes.md for you to read.]",
            "[This section is summarized. Call `open_sections` with key \"book\" to write content (including subsections: intro, end) to context/book.md.]",
            "[This section is summarized. To view full content and access additional tools, call `open_sections` with key \"api\".]",
            custom.as_str(),
        ]
    );
}

#[test]
fn builtin_tools_per_mode_follow_what_is_summarized() {
    let names = |mode| {
        Prompt::new(suffix_template(mode))
            .render()
            .unwrap()
            .tool_names()
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(names(DisclosureMode::Unified), ["read_section"]);
    assert_eq!(
        names(DisclosureMode::Wink),
        ["open_sections", "read_section"]
    );
    assert_eq!(names(DisclosureMode::OpenSections), ["open_sections"]);
    assert_eq!(names(DisclosureMode::ContextFiles), ["open_sections"]);
}

#[test]
fn a_custom_suffix_with_an_unknown_placeholder_is_a_validation_error() {
    let err = PromptTemplate::builder("t", "bad")
        .section(
            MarkdownSection::new("S", "s", "Body.")
                .summary("Sum.")
                .summarized()
                .summary_suffix("Open ${nope}."),
        )
        .build()
        .unwrap_err();
    assert_eq!(
        err.section_path().map(SectionPath::dotted),
        Some("s".into())
    );
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
fn summaries_name_the_tools_they_hide_when_the_template_asks() {
    let named = |mode: DisclosureMode| {
        let template = suffix_template(mode).with_hidden_tool_names(true);
        let text = Prompt::new(template).render().unwrap().text;
        text.split("\n\n## ")
            .map(|part| part.split_once("\n\n---\n").unwrap().1.to_owned())
            .collect::<Vec<_>>()
    };
    let custom = "Ask for `custom` (parts: part); $5 per read.".to_owned();
    // Only the section hiding a tool changes; custom suffixes stay as written.
    assert_eq!(
        named(DisclosureMode::Unified),
        [
            "[This section is summarized. To view full content, call `read_section` with key \"notes\".]",
            "[This section is summarized. Call `read_section` with key \"book\" to view full content including subsections: intro, end.]",
            "[This section is summarized. Its tools, callable now: call_api. To view full content, call `read_section` with key \"api\".]",
            custom.as_str(),
        ]
    );
    assert_eq!(
        named(DisclosureMode::OpenSections)[2],
        "[This section is summarized. Its tools, callable now: call_api. To view full content, call `open_sections` with key \"api\".]"
    );
    // Wink mode keeps WINK v0.17's texts.
    assert_eq!(named(DisclosureMode::Wink), suffixes(DisclosureMode::Wink));
    assert!(
        !suffix_template(DisclosureMode::Wink)
            .with_hidden_tool_names(true)
            .names_hidden_tools()
    );
}

#[test]
fn a_custom_suffix_can_name_the_hidden_tools() {
    let template = PromptTemplate::builder("t", "custom-tools")
        .section(
            MarkdownSection::new("Api", "api", "API docs.")
                .summary("API.")
                .summarized()
                .summary_suffix("Tools here: ${tools}. Read `${section_key}` for more.")
                .tool(tool("call_api"))
                .child(MarkdownSection::new("Admin", "admin", "Admin.").tool(tool("reset_api"))),
        )
        .build()
        .unwrap();
    let text = Prompt::new(template).render().unwrap().text;
    assert_eq!(
        text.split_once("\n\n---\n").unwrap().1,
        "Tools here: call_api, reset_api. Read `api` for more."
    );
}
