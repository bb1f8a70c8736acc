//! The acceptance behaviours of the WINK v0.17 reference (§11), through the Rust API, in `wink`
//! disclosure mode (byte for byte), plus the same prompts in the other modes where they differ.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wink_core::*;
use wink_session::{SectionPath, SectionVisibility, Session, SetVisibilityOverride};

macro_rules! params {
    ($name:ident { $($field:ident : $ty:ty),* }) => {
        #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
        struct $name { $($field: $ty),* }
    };
}

params!(IntroParams { title: String });
params!(DetailsParams { body: String });
params!(OutroParams { footer: String });
params!(ChildParams { detail: String });
params!(LeafParams { note: String });
params!(SummaryParams { summary: String });
params!(ToggleParams {
    heading: String,
    include_children: bool
});
params!(GreetingParams { greeting: String });
params!(ValueParams { value: i64 });
params!(TopicParams { topic: String });
params!(TaskParams { objective: String });
params!(P { name: String });

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, Default)]
struct Flag {
    #[serde(default)]
    on: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct RefParams {
    #[serde(default = "auth")]
    topic: String,
}
fn auth() -> String {
    "auth".into()
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct ToolDescriptionParams {
    #[serde(default = "lookup_entity")]
    primary_tool: String,
}
fn lookup_entity() -> String {
    "lookup_entity".into()
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct LookupParams {
    entity_id: String,
    #[serde(default)]
    include_related: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct RenderedLookupResult {
    entity_id: String,
    description: String,
}
impl ToolOutput for RenderedLookupResult {
    fn render(&self) -> Option<String> {
        Some(format!("{}: {}", self.entity_id, self.description))
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Q {
    query: String,
}
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct A {
    answer: String,
}
impl ToolOutput for A {
    fn render(&self) -> Option<String> {
        Some(format!("answer={}", self.answer))
    }
}

fn wink(builder: PromptTemplateBuilder) -> PromptTemplate {
    builder.disclosure(DisclosureMode::Wink).build().unwrap()
}

#[test]
fn b1_basic_render_merges_defaults_and_bound_params() {
    let t = wink(
        PromptTemplate::builder("tests/prompts", "render-basic")
            .section(
                MarkdownSection::new("Intro", "intro", "Intro: ${title}").params::<IntroParams>(),
            )
            .section(
                MarkdownSection::new("Details", "details", "Details: ${body}")
                    .params::<DetailsParams>(),
            )
            .section(
                MarkdownSection::new("Outro", "outro", "Outro: ${footer}").default_params(
                    OutroParams {
                        footer: "bye".into(),
                    },
                ),
            ),
    );
    let text = Prompt::new(t)
        .bind(IntroParams {
            title: "hello".into(),
        })
        .bind(DetailsParams {
            body: "world".into(),
        })
        .render()
        .unwrap()
        .text;
    assert_eq!(
        text,
        "## 1. Intro (intro)\n\nIntro: hello\n\n## 2. Details (details)\n\nDetails: world\n\n## 3. Outro (outro)\n\nOutro: bye"
    );
}

fn nested(enabled_parent: bool) -> PromptTemplate {
    let leaf = MarkdownSection::new("Leaf", "leaf", "Leaf: ${note}").params::<LeafParams>();
    let child = MarkdownSection::new("Child", "child", "Child detail: ${detail}")
        .params::<ChildParams>()
        .child(leaf);
    let mut parent = MarkdownSection::new("Parent", "parent", "Parent: ${heading}")
        .params::<ToggleParams>()
        .child(child);
    if enabled_parent {
        parent = parent.enabled_when::<ToggleParams>(|p| p.include_children);
    }
    wink(
        PromptTemplate::builder("tests/prompts", "nested")
            .section(parent)
            .section(
                MarkdownSection::new("Summary", "summary", "Summary: ${summary}")
                    .params::<SummaryParams>(),
            ),
    )
}

#[test]
fn b2_nested_numbering_and_depth() {
    let text = Prompt::new(nested(false))
        .bind(ToggleParams {
            heading: "Main Heading".into(),
            include_children: true,
        })
        .bind(ChildParams {
            detail: "Child detail".into(),
        })
        .bind(LeafParams {
            note: "Deep note".into(),
        })
        .bind(SummaryParams {
            summary: "All done".into(),
        })
        .render()
        .unwrap()
        .text;
    assert_eq!(
        text,
        "## 1. Parent (parent)\n\nParent: Main Heading\n\n### 1.1. Child (parent.child)\n\nChild detail: Child detail\n\n#### 1.1.1. Leaf (parent.child.leaf)\n\nLeaf: Deep note\n\n## 2. Summary (summary)\n\nSummary: All done"
    );
}

#[test]
fn b3_disabled_parent_removes_subtree_and_keeps_numbering_gap() {
    let text = Prompt::new(nested(true))
        .bind(ToggleParams {
            heading: "Hidden".into(),
            include_children: false,
        })
        .bind(ChildParams { detail: "x".into() })
        .bind(LeafParams { note: "y".into() })
        .bind(SummaryParams {
            summary: "Visible".into(),
        })
        .render()
        .unwrap()
        .text;
    assert_eq!(text, "## 2. Summary (summary)\n\nSummary: Visible");
}

#[test]
fn b4_dedent_strip_and_direct_render_without_path() {
    let section = MarkdownSection::new(
        "Greeting",
        "greeting",
        "\n            Greeting:\n            ${greeting}\n        ",
    )
    .params::<GreetingParams>();
    let params = ParamsValue::from_typed(GreetingParams {
        greeting: "hello".into(),
    })
    .unwrap();
    assert_eq!(
        render_section(
            &section,
            Some(&params),
            0,
            "1",
            None,
            SectionVisibility::Full,
            true
        )
        .unwrap(),
        "## 1. Greeting\n\nGreeting:\nhello"
    );
    let section = MarkdownSection::new("Placeholder Demo", "placeholder", "Value: ${value}")
        .params::<ValueParams>();
    let params = ParamsValue::from_typed(ValueParams { value: 42 }).unwrap();
    assert_eq!(
        render_section(
            &section,
            Some(&params),
            1,
            "1.1",
            None,
            SectionVisibility::Full,
            true
        )
        .unwrap(),
        "### 1.1. Placeholder Demo\n\nValue: 42"
    );
}

#[test]
fn b5_summary_rendering_fallback_and_missing_summary_error() {
    let section = MarkdownSection::new("Content", "content", "Full: ${topic}")
        .params::<TopicParams>()
        .summary("Brief: ${topic}");
    let params = ParamsValue::from_typed(TopicParams {
        topic: "testing".into(),
    })
    .unwrap();
    assert_eq!(
        render_section(
            &section,
            Some(&params),
            0,
            "1",
            None,
            SectionVisibility::Summary,
            true
        )
        .unwrap(),
        "## 1. Content\n\nBrief: testing"
    );
    let no_summary = MarkdownSection::new("NoSummary", "no-summary", "Full content: ${topic}")
        .params::<TopicParams>();
    let params = ParamsValue::from_typed(TopicParams {
        topic: "test".into(),
    })
    .unwrap();
    assert_eq!(
        render_section(
            &no_summary,
            Some(&params),
            0,
            "1",
            None,
            SectionVisibility::Summary,
            true
        )
        .unwrap(),
        "## 1. NoSummary\n\nFull content: test"
    );
    let t = wink(PromptTemplate::builder("n", "k").section(no_summary.summarized()));
    let err = Prompt::new(t)
        .bind(TopicParams { topic: "x".into() })
        .render()
        .unwrap_err();
    assert_eq!(
        err.message(),
        "SUMMARY visibility requested for section 'no-summary' but no summary template is defined."
    );
    assert_eq!(err.section_path().unwrap().dotted(), "no-summary");
}

#[test]
fn b6_heading_with_path_annotation() {
    let path = SectionPath::new(vec!["parent".into(), "nested".into()]);
    assert_eq!(
        format_heading("Nested", 1, "1.2", Some(&path)),
        "### 1.2. Nested (parent.nested)"
    );
    let minimal = MarkdownSection::new("Minimal", "minimal", "");
    assert_eq!(
        render_section(&minimal, None, 0, "1", None, SectionVisibility::Full, true).unwrap(),
        "## 1. Minimal"
    );
}

#[test]
fn b7_key_normalization_and_validation() {
    assert_eq!(
        normalize_section_key(" spacing.out ").unwrap(),
        "spacing.out"
    );
    assert_eq!(
        normalize_section_key("").unwrap_err().message(),
        "Section key must be a non-empty string."
    );
    assert_eq!(
        normalize_section_key("Invalid Key").unwrap_err().message(),
        "Section key must match ^[a-z0-9][a-z0-9._-]{0,63}$."
    );
    let t = PromptTemplate::builder("n", "k")
        .section(MarkdownSection::new("T", " Spacing.Out ", "x"))
        .build()
        .unwrap();
    assert_eq!(t.nodes()[0].path.dotted(), "spacing.out");
    let err = PromptTemplate::builder("n", "k")
        .section(MarkdownSection::new("T", "Invalid Key", "x"))
        .build()
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Section key must match ^[a-z0-9][a-z0-9._-]{0,63}$."
    );
}

fn lookup_tool(with_example: bool) -> ToolRef {
    let mut b = ToolBuilder::<LookupParams, RenderedLookupResult>::new(
        "lookup_entity",
        "Fetch structured information for a given entity id.",
    )
    .handler(|p: LookupParams, _ctx: &mut ToolContext| {
        Ok(ToolResult::ok(
            "Rendered output",
            RenderedLookupResult {
                entity_id: p.entity_id,
                description: "Rendered value from handler.".into(),
            },
        ))
    });
    if with_example {
        b = b.example(
            "Rendered lookup",
            LookupParams {
                entity_id: "abc-123".into(),
                include_related: false,
            },
            RenderedLookupResult {
                entity_id: "abc-123".into(),
                description: "Rendered value from handler.".into(),
            },
        );
    }
    b.build().unwrap()
}

#[test]
fn b8_tool_examples_block_and_tools_without_examples() {
    let tools_section = MarkdownSection::new(
        "Available Tools",
        "available-tools",
        "Invoke ${primary_tool} whenever you need fresh entity context.",
    )
    .default_params(ToolDescriptionParams {
        primary_tool: "lookup_entity".into(),
    })
    .tool(lookup_tool(true));
    let rendered = Prompt::new(wink(
        PromptTemplate::builder("tests/prompts", "tools-rendered-output").section(tools_section),
    ))
    .render()
    .unwrap();
    assert_eq!(
        rendered.text,
        "## 1. Available Tools (available-tools)\n\nInvoke lookup_entity whenever you need fresh entity context.\n\nTools:\n- lookup_entity: Fetch structured information for a given entity id.\n  - lookup_entity examples:\n    - description: Rendered lookup\n      input:\n        ```json\n        {\"entity_id\": \"abc-123\", \"include_related\": false}\n        ```\n      output:\n        ```\n        abc-123: Rendered value from handler.\n        ```"
    );

    params!(GuidanceParams {
        primary_tool: String
    });
    let tools_section = MarkdownSection::new(
        "Available Tools",
        "available-tools",
        "Invoke ${primary_tool} whenever you need fresh entity context.",
    )
    .params::<ToolDescriptionParams>()
    .tool(lookup_tool(false));
    let guidance = MarkdownSection::new(
        "Guidance",
        "guidance",
        "Use tools when you need up-to-date context. Prefer ${primary_tool} for critical lookups.",
    )
    .params::<GuidanceParams>()
    .child(tools_section);
    let rendered = Prompt::new(wink(
        PromptTemplate::builder("tests/prompts", "tools-overview").section(guidance),
    ))
    .bind(GuidanceParams {
        primary_tool: "lookup_entity".into(),
    })
    .render()
    .unwrap();
    assert_eq!(
        rendered.text,
        "## 1. Guidance (guidance)\n\nUse tools when you need up-to-date context. Prefer lookup_entity for critical lookups.\n\n### 1.1. Available Tools (guidance.available-tools)\n\nInvoke lookup_entity whenever you need fresh entity context."
    );
    assert_eq!(rendered.tool_names(), ["lookup_entity"]);
}

fn search_tool() -> ToolRef {
    ToolBuilder::<Q, A>::new("search", "Search docs.")
        .handler(|q: Q, _ctx: &mut ToolContext| {
            if q.query == "boom" {
                return Err(ToolError::failed("kaboom"));
            }
            Ok(ToolResult::ok(
                "Search done.",
                A {
                    answer: q.query.to_uppercase(),
                },
            ))
        })
        .example(
            "Find auth docs",
            Q {
                query: "auth".into(),
            },
            A {
                answer: "found".into(),
            },
        )
        .build()
        .unwrap()
}

fn g1(mode: DisclosureMode) -> PromptTemplate {
    PromptTemplate::builder("demo", "pd")
        .disclosure(mode)
        .section(MarkdownSection::new("Task", "task", "Do: ${objective}").params::<TaskParams>())
        .section(
            MarkdownSection::new("Reference", "reference", "Full reference on ${topic}.")
                .default_params(RefParams {
                    topic: "auth".into(),
                })
                .summary("Reference on ${topic} available.")
                .summarized()
                .child(MarkdownSection::new("Details", "details", "Deep details.")),
        )
        .section(
            MarkdownSection::new("Search", "search", "Use search.")
                .summary("Search tools available.")
                .summarized()
                .tool(search_tool()),
        )
        .build()
        .unwrap()
}

const G1_TOOLS_BLOCK: &str = "Tools:\n- search: Search docs.\n  - search examples:\n    - description: Find auth docs\n      input:\n        ```json\n        {\"query\": \"auth\"}\n        ```\n      output:\n        ```\n        answer=found\n        ```";

#[test]
fn g1_full_example_renders_byte_for_byte() {
    let rendered = Prompt::new(g1(DisclosureMode::Wink))
        .bind(TaskParams {
            objective: "fix bug".into(),
        })
        .render()
        .unwrap();
    let expected = format!(
        "## 1. Task (task)\n\nDo: fix bug\n\n## 2. Reference (reference)\n\nReference on auth available.\n\n---\n[This section is summarized. Call `read_section` with key \"reference\" to view full content including subsections: details.]\n\n## 3. Search (search)\n\nSearch tools available.\n\n{G1_TOOLS_BLOCK}\n\n---\n[This section is summarized. To view full content, call `open_sections` with key \"search\".]"
    );
    assert_eq!(rendered.text, expected);
    assert_eq!(rendered.tool_names(), ["open_sections", "read_section"]);
    let open = rendered.tool("open_sections").unwrap();
    assert_eq!(
        open.description(),
        "Expand summarized sections to view their full content."
    );
    assert_eq!(
        serde_json::to_string(open.parameters()).unwrap(),
        r#"{"type":"object","properties":{"section_keys":{"type":"array","items":{"type":"string"}},"reason":{"type":"string"}},"additionalProperties":false,"required":["section_keys","reason"]}"#
    );
    let read = rendered.tool("read_section").unwrap();
    assert_eq!(
        read.description(),
        "Read the full content of a summarized section without expanding it. Returns the section's markdown content. Child sections may still be summarized in the output."
    );
    assert_eq!(
        serde_json::to_string(read.parameters()).unwrap(),
        r#"{"type":"object","properties":{"section_key":{"type":"string"}},"additionalProperties":false,"required":["section_key"]}"#
    );

    let session = Session::new();
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("search"),
        visibility: SectionVisibility::Full,
    });
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("reference"),
        visibility: SectionVisibility::Full,
    });
    let rendered = Prompt::new(g1(DisclosureMode::Wink))
        .bind(TaskParams {
            objective: "fix bug".into(),
        })
        .render_with(&session)
        .unwrap();
    assert_eq!(
        rendered.text,
        format!(
            "## 1. Task (task)\n\nDo: fix bug\n\n## 2. Reference (reference)\n\nFull reference on auth.\n\n### 2.1. Details (reference.details)\n\nDeep details.\n\n## 3. Search (search)\n\nUse search.\n\n{G1_TOOLS_BLOCK}"
        )
    );
    assert_eq!(rendered.tool_names(), ["search"]);
}

#[test]
fn g1_in_unified_mode_uses_read_section_everywhere_and_hides_examples_of_summaries() {
    let rendered = Prompt::new(g1(DisclosureMode::Unified))
        .bind(TaskParams {
            objective: "fix bug".into(),
        })
        .render()
        .unwrap();
    assert_eq!(
        rendered.text,
        "## 1. Task (task)\n\nDo: fix bug\n\n## 2. Reference (reference)\n\nReference on auth available.\n\n---\n[This section is summarized. Call `read_section` with key \"reference\" to view full content including subsections: details.]\n\n## 3. Search (search)\n\nSearch tools available.\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"search\".]"
    );
    assert_eq!(rendered.tool_names(), ["read_section"]);
}

#[test]
fn b9_summarized_sections_withhold_tools_and_inject_disclosure_tools() {
    let with_tools = |vis| {
        wink(
            PromptTemplate::builder("n", "k").section(
                MarkdownSection::new("S", "s", "Full")
                    .summary("Summary: Test")
                    .visibility(vis)
                    .tool(search_tool()),
            ),
        )
    };
    let rendered = Prompt::new(with_tools(SectionVisibility::Summary))
        .render()
        .unwrap();
    assert_eq!(rendered.tool_names(), ["open_sections"]);
    assert!(rendered.text.contains("Summary: Test"));
    let session = Session::new();
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("s"),
        visibility: SectionVisibility::Full,
    });
    assert_eq!(
        Prompt::new(with_tools(SectionVisibility::Summary))
            .render_with(&session)
            .unwrap()
            .tool_names(),
        ["search"]
    );

    let without = wink(
        PromptTemplate::builder("n", "k").section(
            MarkdownSection::new("S", "s", "Full")
                .summary("Summary: Test")
                .summarized(),
        ),
    );
    let rendered = Prompt::new(without).render().unwrap();
    assert_eq!(rendered.tool_names(), ["read_section"]);
    assert!(rendered.text.contains("read_section"));
    assert!(!rendered.text.contains("open_sections"));

    let rendered = Prompt::new(g1(DisclosureMode::Wink))
        .bind(TaskParams {
            objective: "x".into(),
        })
        .render()
        .unwrap();
    assert_eq!(rendered.tool_names(), ["open_sections", "read_section"]);

    let all_full = wink(
        PromptTemplate::builder("n", "k")
            .section(MarkdownSection::new("S", "s", "Full").summary("Sum")),
    );
    assert!(Prompt::new(all_full).render().unwrap().tools.is_empty());
}

fn g5() -> PromptTemplate {
    wink(
        PromptTemplate::builder("n", "k")
            .section(
                MarkdownSection::new("Optional", "optional", "Optional body.")
                    .default_params(Flag::default())
                    .enabled_when::<Flag>(|f| f.on),
            )
            .section(
                MarkdownSection::new("Guide", "guide", "Guide for ${name}.")
                    .params::<P>()
                    .summary("Guide summary for ${name}.")
                    .summarized()
                    .child(
                        MarkdownSection::new("Step A", "step-a", "Do A for ${name}.").params::<P>(),
                    )
                    .child(
                        MarkdownSection::new("Step B", "step-b", "Do B.")
                            .params::<P>()
                            .summary("B summary.")
                            .summarized()
                            .child(
                                MarkdownSection::new("Deep", "deep", "Deep ${name}.").params::<P>(),
                            ),
                    ),
            ),
    )
}

fn call(tool: &ToolRef, args: Value, session: &Session) -> Result<ToolResponse, ToolError> {
    let mut ctx = ToolContext::new(session.clone());
    block_on(tool.invoke(args, &mut ctx))
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct Noop;
    impl Wake for Noop {
        fn wake(self: std::sync::Arc<Self>) {}
    }
    let waker = Waker::from(std::sync::Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[test]
fn b10_summary_suffix_lists_children() {
    let rendered = Prompt::new(g5())
        .bind(P {
            name: "repo".into(),
        })
        .render()
        .unwrap();
    assert_eq!(
        rendered.text,
        "## 2. Guide (guide)\n\nGuide summary for repo.\n\n---\n[This section is summarized. Call `read_section` with key \"guide\" to view full content including subsections: step-a, step-b.]"
    );
    assert_eq!(rendered.tool_names(), ["read_section"]);
}

#[test]
fn b11_read_section_output() {
    let session = Session::new();
    let rendered = Prompt::new(g5())
        .bind(P {
            name: "repo".into(),
        })
        .render_with(&session)
        .unwrap();
    let read = rendered.tool("read_section").unwrap();
    let out = call(read, json!({"section_key": "guide"}), &session).unwrap();
    assert_eq!(out.result.message, "Content of section 'guide':");
    assert_eq!(
        out.result.value.as_ref().unwrap().rendered,
        "## 2. Guide (guide)\n\nGuide for repo.\n\n### 2.1. Step A (guide.step-a)\n\nDo A for repo.\n\n### 2.2. Step B (guide.step-b)\n\nB summary.\n\n---\n[This section is summarized. Call `read_section` with key \"guide.step-b\" to view full content including subsections: deep.]"
    );
    let out = call(read, json!({"section_key": "guide.step-b"}), &session).unwrap();
    assert_eq!(
        out.result.value.as_ref().unwrap().rendered,
        "### 2.2. Step B (guide.step-b)\n\nDo B.\n\n#### 2.2.1. Deep (guide.step-b.deep)\n\nDeep repo."
    );
    let err = call(read, json!({"section_key": "nope"}), &session).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Section 'nope' does not exist in this prompt."
    );
    let err = call(read, json!({"section_key": "guide.step-a"}), &session).unwrap_err();
    assert_eq!(err.to_string(), "Section 'guide.step-a' is not summarized.");
}

#[test]
fn b12_open_sections_handler_semantics() {
    let session = Session::new();
    let t = wink(
        PromptTemplate::builder("n", "k")
            .section(MarkdownSection::new("Task", "task", "Do it."))
            .section(
                MarkdownSection::new("Summarized", "summarized", "Body")
                    .summary("Sum")
                    .summarized()
                    .tool(search_tool()),
            )
            .section(
                MarkdownSection::new("Parent", "parent", "P")
                    .summary("PS")
                    .summarized()
                    .child(
                        MarkdownSection::new("Child", "child", "C")
                            .summary("Child summary")
                            .summarized()
                            .tool(lookup_tool(false)),
                    ),
            ),
    );
    let rendered = Prompt::new(t).render_with(&session).unwrap();
    let open = rendered.tool("open_sections").unwrap();
    assert!(open.is_terminal());
    match call(
        open,
        json!({"section_keys": ["summarized"], "reason": "Need details"}),
        &session,
    ) {
        Err(ToolError::ExpansionRequired(e)) => {
            assert_eq!(e.section_keys, ["summarized"]);
            assert_eq!(e.reason, "Need details");
            assert_eq!(
                e.requested_overrides.get(&SectionPath::root("summarized")),
                Some(&SectionVisibility::Full)
            );
            assert_eq!(
                e.message,
                "Model requested expansion of sections: summarized"
            );
            assert_eq!(
                e.to_string(),
                "Visibility expansion required for sections: summarized. Reason: Need details"
            );
        }
        other => panic!("{other:?}"),
    }
    let err = |args: Value| call(open, args, &session).unwrap_err().to_string();
    assert_eq!(
        err(json!({"section_keys": [], "reason": "r"})),
        "At least one section key must be provided."
    );
    assert_eq!(
        err(json!({"section_keys": ["nope"], "reason": "r"})),
        "Section 'nope' does not exist in this prompt."
    );
    assert_eq!(
        err(json!({"section_keys": ["task"], "reason": "r"})),
        "Section 'task' is already expanded."
    );
    match call(
        open,
        json!({"section_keys": ["parent.child"], "reason": "r"}),
        &session,
    ) {
        Err(ToolError::ExpansionRequired(e)) => {
            let path = SectionPath::new(vec!["parent".into(), "child".into()]);
            assert_eq!(e.requested_overrides.keys().collect::<Vec<_>>(), [&path]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn b17_prompt_validation_errors() {
    let err = PromptTemplate::builder("n", "k")
        .section(MarkdownSection::new("T", "t", "${value}"))
        .build()
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Section does not accept parameters but declares placeholders."
    );
    assert_eq!(err.placeholder(), Some("value"));
    let err = PromptTemplate::builder("n", "k")
        .section(MarkdownSection::new("T", "t", "${nope}").params::<TaskParams>())
        .build()
        .unwrap_err();
    assert_eq!(err.message(), "Template references unknown placeholder.");
    assert_eq!(err.placeholder(), Some("nope"));
    assert_eq!(err.params_type(), Some("TaskParams"));
    let t = PromptTemplate::builder("n", "k")
        .section(MarkdownSection::new("T", "t", "${objective}").params::<TaskParams>())
        .build()
        .unwrap();
    let t = std::sync::Arc::new(t);
    let err = Prompt::new(t.clone()).render().unwrap_err();
    assert_eq!(err.message(), "Missing parameters for section.");
    assert_eq!(err.params_type(), Some("TaskParams"));
    // As WINK's `bind`: a later call replaces the earlier binding of the same type...
    let rendered = Prompt::new(t.clone())
        .bind(TaskParams {
            objective: "a".into(),
        })
        .bind(TaskParams {
            objective: "b".into(),
        })
        .render()
        .unwrap();
    assert_eq!(rendered.text, "## 1. T (t)\n\nb");
    // ...while two of one type in a single call are an error.
    let value = |objective: &str| {
        ParamsValue::from_typed(TaskParams {
            objective: objective.into(),
        })
        .unwrap()
    };
    let err = Prompt::new(t.clone())
        .bind_values([value("a"), value("b")])
        .render()
        .unwrap_err();
    assert_eq!(err.message(), "Duplicate params type supplied to prompt.");
    assert_eq!(err.params_type(), Some("TaskParams"));
    let err = Prompt::new(t)
        .bind(P { name: "x".into() })
        .render()
        .unwrap_err();
    assert_eq!(err.message(), "Unexpected params type supplied to prompt.");
    let err = PromptTemplate::builder("n", "k")
        .section(MarkdownSection::new("A", "a", "x").tool(search_tool()))
        .section(MarkdownSection::new("B", "b", "y").tool(search_tool()))
        .build()
        .unwrap_err();
    assert_eq!(err.message(), "Duplicate tool name registered for prompt.");
    let err = PromptTemplate::builder(" ", "k").build().unwrap_err();
    assert_eq!(
        err.message(),
        "Prompt namespace must be a non-empty string."
    );
    let err = PromptTemplate::builder("n", "").build().unwrap_err();
    assert_eq!(err.message(), "Prompt key must be a non-empty string.");
}

#[test]
fn b18_tool_contract_validation() {
    let err = ToolBuilder::<Q, A>::new("Lookup", "d").build().unwrap_err();
    assert_eq!(
        err.message(),
        "Tool name must match the OpenAI function name constraints (pattern: ^[a-z0-9_-]{1,64}$)."
    );
    assert_eq!(err.placeholder(), Some("Lookup"));
    let err = ToolBuilder::<Q, A>::new(" lookup", "d")
        .build()
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Tool name must not contain surrounding whitespace."
    );
    let err = ToolBuilder::<Q, A>::new("lookup", "x".repeat(201))
        .build()
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Tool description must be 1-200 ASCII characters."
    );
    let err = ToolBuilder::<Q, A>::new("lookup", "  ")
        .build()
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Tool description must be 1-200 ASCII characters."
    );
    assert!(
        ToolBuilder::<Q, A>::new("file.read", "Reads a file.")
            .build()
            .is_ok()
    );
}
