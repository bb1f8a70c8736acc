//! Section trees that stay small at every level: a summarized section whose children are all
//! summarized renders as one line of a list; reading a group lists its children, reading a leaf
//! gives its text; `search_sections` finds a section by its text; a section too long for the
//! room left in the context is read in parts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::{Value, json};
use wink_core::*;
use wink_fs::{Filesystem, InMemoryFilesystem};
use wink_session::Session;

fn leaf(title: &str, key: &str, body: &str, summary: &str) -> MarkdownSection {
    MarkdownSection::new(title, key, body)
        .summary(summary)
        .summarized()
}

/// A book of two chapters (two and one leaves), everything summarized.
fn book(mode: DisclosureMode) -> PromptTemplate {
    PromptTemplate::builder("t", "book")
        .disclosure(mode)
        .section(MarkdownSection::new(
            "Task",
            "task",
            "Answer from the book.",
        ))
        .section(
            leaf("Book", "book", "A book about Rust.", "The Rust book.")
                .child(
                    leaf(
                        "Getting started",
                        "start",
                        "How to begin.",
                        "Installing and a first program.",
                    )
                    .child(leaf(
                        "Installation",
                        "install",
                        "Install Rust with rustup.",
                        "Installing Rust.",
                    ))
                    .child(leaf(
                        "Hello",
                        "hello",
                        "Print hello with println!.",
                        "A first program.",
                    )),
                )
                .child(
                    leaf("Ownership", "own", "", "How Rust manages memory.").child(leaf(
                        "Moves",
                        "moves",
                        "Assigning a String moves it.",
                        "Moving values.",
                    )),
                ),
        )
        .build()
        .unwrap()
}

/// Call `name` with `arguments` against `rendered`, as the agent loop does, with `room` tokens
/// left in the context when given.
fn call(
    rendered: &RenderedPrompt,
    session: &Session,
    name: &str,
    arguments: Value,
    room: Option<u64>,
) -> ToolCallResult {
    let mut executor = ToolExecutor::new(session.clone(), "t:book");
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    executor.resources = Resources::new().with(fs);
    if let Some(room) = room {
        executor.resources = executor.resources.clone().with(ContextRoom(room));
    }
    let call = ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments: ToolArguments::Json(arguments),
    };
    match block_on(executor.execute(&call, &rendered.tools, Some(rendered))).unwrap() {
        CallOutcome::Completed(result) => result,
        other => panic!("{other:?}"),
    }
}

fn read(rendered: &RenderedPrompt, key: &str) -> String {
    let result = call(
        rendered,
        &Session::new(),
        "read_section",
        json!({"section_key": key}),
        None,
    );
    assert!(result.result.success, "{}", result.model_text());
    result.model_text()
}

const HEADER: &str =
    "Summarized groups of sections (to list a group's sections, call `read_section` with its key):";

#[test]
fn a_group_is_one_line_reading_it_lists_its_children_and_a_leaf_gives_its_text() {
    let rendered = Prompt::new(book(DisclosureMode::Unified)).render().unwrap();
    assert_eq!(
        rendered.text,
        format!(
            "## 1. Task (task)\n\nAnswer from the book.\n\n{HEADER}\n- Book (book): The Rust book. [2 sections]"
        )
    );
    assert_eq!(
        rendered.section_text(&SectionPath::root("book")),
        Some(format!("{HEADER}\n- Book (book): The Rust book. [2 sections]").as_str())
    );
    assert_eq!(rendered.tool_names(), ["read_section"]);
    assert_eq!(
        read(&rendered, "book"),
        format!(
            "Content of section 'book':\n\n## 2. Book (book)\n\nA book about Rust.\n\n{HEADER}\n\
             - Getting started (book.start): Installing and a first program. [2 sections]\n\
             - Ownership (book.own): How Rust manages memory. [1 section]"
        )
    );
    assert_eq!(
        read(&rendered, "book.start"),
        "Content of section 'book.start':\n\n### 2.1. Getting started (book.start)\n\nHow to begin.\n\n\
         #### 2.1.1. Installation (book.start.install)\n\nInstalling Rust.\n\n---\n\
         [This section is summarized. To view full content, call `read_section` with key \"book.start.install\".]\n\n\
         #### 2.1.2. Hello (book.start.hello)\n\nA first program.\n\n---\n\
         [This section is summarized. To view full content, call `read_section` with key \"book.start.hello\".]"
    );
    assert_eq!(
        read(&rendered, "book.start.hello"),
        "Content of section 'book.start.hello':\n\n#### 2.1.2. Hello (book.start.hello)\n\nPrint hello with println!."
    );
}

#[test]
fn wink_mode_keeps_the_summary_blocks_and_offers_no_search() {
    let rendered = Prompt::new(book(DisclosureMode::Wink)).render().unwrap();
    assert_eq!(
        rendered.text,
        "## 1. Task (task)\n\nAnswer from the book.\n\n## 2. Book (book)\n\nThe Rust book.\n\n---\n\
         [This section is summarized. Call `read_section` with key \"book\" to view full content including subsections: start, own.]"
    );
    let on = Prompt::new(book(DisclosureMode::Wink).with_search_sections(SearchSections::On))
        .render()
        .unwrap();
    assert_eq!(on.tool_names(), ["read_section"]);
}

#[test]
fn open_sections_modes_list_groups_and_open_them_one_level_at_a_time() {
    let header =
        "Summarized groups of sections (to open a group, call `open_sections` with its key):";
    for mode in [DisclosureMode::OpenSections, DisclosureMode::ContextFiles] {
        let session = Session::new();
        let prompt = Prompt::new(book(mode));
        let rendered = prompt.render_with(&session).unwrap();
        assert!(
            rendered.text.ends_with(&format!(
                "{header}\n- Book (book): The Rust book. [2 sections]"
            )),
            "{mode}: {}",
            rendered.text
        );
        session.dispatch(wink_session::SetVisibilityOverride {
            path: SectionPath::root("book"),
            visibility: SectionVisibility::Full,
        });
        let opened = prompt.render_with(&session).unwrap();
        assert!(
            opened.text.ends_with(&format!(
                "## 2. Book (book)\n\nA book about Rust.\n\n{header}\n\
                 - Getting started (book.start): Installing and a first program. [2 sections]\n\
                 - Ownership (book.own): How Rust manages memory. [1 section]"
            )),
            "{mode}: {}",
            opened.text
        );
    }
    // Context files hold the same list for a content-only group.
    let session = Session::new();
    let rendered = Prompt::new(book(DisclosureMode::ContextFiles))
        .render_with(&session)
        .unwrap();
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    let mut executor = ToolExecutor::new(session.clone(), "t:book");
    executor.resources = Resources::new().with(Arc::clone(&fs));
    let open = ToolCall {
        id: "c1".into(),
        name: "open_sections".into(),
        arguments: ToolArguments::Json(json!({"section_keys": ["book"], "reason": "read"})),
    };
    let outcome = block_on(executor.execute(&open, &rendered.tools, Some(&rendered))).unwrap();
    assert!(matches!(outcome, CallOutcome::Completed(_)), "{outcome:?}");
    assert_eq!(
        fs.read("context/book.md", 0, None).unwrap().content,
        format!(
            "## Book (book)\n\nA book about Rust.\n\n{header}\n\
             - Getting started (book.start): Installing and a first program. [2 sections]\n\
             - Ownership (book.own): How Rust manages memory. [1 section]"
        )
    );
}

#[test]
fn a_custom_suffix_or_a_child_shown_in_full_keeps_the_block() {
    let template = PromptTemplate::builder("t", "mixed")
        .section(
            leaf("Guide", "guide", "Body.", "A guide.").child(MarkdownSection::new(
                "Intro",
                "intro",
                "Shown in full.",
            )),
        )
        .section(
            leaf("Notes", "notes", "Body.", "Notes.")
                .summary_suffix("Ask for ${section_key}.")
                .child(leaf("One", "one", "1", "First note.")),
        )
        .build()
        .unwrap();
    let text = Prompt::new(template).render().unwrap().text;
    assert!(
        text.starts_with("## 1. Guide (guide)\n\nA guide.\n\n---\n"),
        "{text}"
    );
    assert!(
        text.ends_with("## 2. Notes (notes)\n\nNotes.\n\n---\nAsk for notes."),
        "{text}"
    );
}

/// Six parts of seven chapters of six sections: 300 sections, every one summarized.
fn manual(setting: SearchSections) -> PromptTemplate {
    let topics = [
        "installation",
        "configuration",
        "networking",
        "storage",
        "security",
        "monitoring",
    ];
    let mut builder = PromptTemplate::builder("t", "manual")
        .search_sections(setting)
        .section(MarkdownSection::new(
            "Task",
            "task",
            "Answer questions about the product from its manual. Search or read the sections you need.",
        ));
    for (p, topic) in topics.iter().enumerate() {
        let mut part = leaf(
            &format!("Part {}: {topic}", p + 1),
            &format!("part{}", p + 1),
            &format!("This part covers {topic}."),
            &format!("Everything about {topic}: concepts, tasks and reference tables."),
        );
        for c in 1..=7 {
            let mut chapter = leaf(
                &format!("Chapter {c} of {topic}"),
                &format!("ch{c}"),
                &format!("An overview of chapter {c}."),
                &format!("Tasks and settings of {topic}, chapter {c}, with worked examples."),
            );
            for s in 1..=6 {
                let fact = format!("The {topic} limit number {c}{s} is {} units.", 100 * c + s);
                chapter = chapter.child(leaf(
                    &format!("Section {c}.{s}"),
                    &format!("s{s}"),
                    &format!("{fact} Other settings of this section follow the defaults."),
                    &format!("Settings of {topic} {c}.{s}."),
                ));
            }
            part = part.child(chapter);
        }
        builder = builder.section(part);
    }
    builder.build().unwrap()
}

fn tokens(rendered: &RenderedPrompt) -> usize {
    let counter = wink_tokens::TokenCounter::o200k().unwrap();
    let tools: String = rendered
        .tools
        .iter()
        .map(|t| format!("{}{}{}", t.name(), t.description(), t.parameters()))
        .collect();
    counter.count(&rendered.text) + counter.count(&tools)
}

#[test]
fn a_300_section_tree_costs_under_1500_tokens_always_on_and_at_every_level() {
    let template = manual(SearchSections::Auto);
    assert_eq!(template.nodes().len(), 1 + 6 + 6 * 7 + 6 * 7 * 6);
    let rendered = Prompt::new(template).render().unwrap();
    assert_eq!(rendered.tool_names(), ["read_section", "search_sections"]);
    assert_eq!(rendered.hidden_section_count(), 300);
    let always_on = tokens(&rendered);
    assert!(always_on < 1_500, "{always_on} tokens:\n{}", rendered.text);
    let counter = wink_tokens::TokenCounter::o200k().unwrap();
    for key in ["part3", "part3.ch4", "part3.ch4.s2"] {
        let text = read(&rendered, key);
        let cost = counter.count(&text);
        assert!(cost < 1_500, "{key}: {cost} tokens\n{text}");
    }
    assert!(
        read(&rendered, "part3.ch4.s2").contains("The networking limit number 42 is 402 units.")
    );
}

#[test]
fn search_sections_finds_a_section_by_its_text_with_a_snippet() {
    let rendered = Prompt::new(manual(SearchSections::Auto)).render().unwrap();
    let result = call(
        &rendered,
        &Session::new(),
        "search_sections",
        json!({"query": "networking limit number 42", "limit": 2}),
        None,
    );
    assert!(result.result.success);
    let text = result.model_text();
    assert!(
        text.starts_with(
            "Sections matching \"networking limit number 42\", best first:\n\n\
             1. Section 4.2 (part3.ch4.s2): The networking limit number 42 is 402 units."
        ),
        "{text}"
    );
    assert!(
        text.ends_with("\n\nTo read one, call `read_section` with its key."),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("2. ")).count(),
        1,
        "{text}"
    );
    let hits = rendered.search_sections("storage limit number 73", 1);
    assert_eq!(hits[0].path.dotted(), "part4.ch7.s3");
    assert_eq!(hits[0].title, "Section 7.3");
    let none = call(
        &rendered,
        &Session::new(),
        "search_sections",
        json!({"query": "zzz qqq"}),
        None,
    );
    assert_eq!(
        none.model_text(),
        "No section matches \"zzz qqq\". Try other words, or open a section the prompt lists."
    );
    let bad = call(
        &rendered,
        &Session::new(),
        "search_sections",
        json!({"query": "x", "limit": 0}),
        None,
    );
    assert!(!bad.result.success, "{}", bad.model_text());
}

#[test]
fn search_sections_is_offered_by_its_setting() {
    let small = Prompt::new(book(DisclosureMode::Unified)).render().unwrap();
    assert_eq!(small.hidden_section_count(), 6);
    assert_eq!(
        small.tool_names(),
        ["read_section"],
        "auto: too few sections"
    );
    let on = Prompt::new(book(DisclosureMode::Unified).with_search_sections(SearchSections::On))
        .render()
        .unwrap();
    assert_eq!(on.tool_names(), ["read_section", "search_sections"]);
    let open =
        Prompt::new(book(DisclosureMode::OpenSections).with_search_sections(SearchSections::On))
            .render()
            .unwrap();
    assert_eq!(open.tool_names(), ["open_sections", "search_sections"]);
    let off = Prompt::new(manual(SearchSections::Off)).render().unwrap();
    assert_eq!(off.tool_names(), ["read_section"]);
    assert_eq!(
        "off".parse::<SearchSections>().unwrap(),
        SearchSections::Off
    );
    assert_eq!(
        "sometimes".parse::<SearchSections>().unwrap_err(),
        "unknown search_sections setting 'sometimes' (expected auto, on or off)"
    );
    // Nothing summarized: no search either.
    let expanded = Prompt::new(
        PromptTemplate::builder("t", "flat")
            .search_sections(SearchSections::On)
            .section(MarkdownSection::new("Task", "task", "Do."))
            .build()
            .unwrap(),
    )
    .render()
    .unwrap();
    assert!(expanded.tools.is_empty());
}

#[test]
fn a_section_tool_named_search_sections_wins_over_auto_and_clashes_with_on() {
    let own = ToolBuilder::dynamic(
        "search_sections",
        "Mine.",
        empty_params_schema(),
        |_args, _ctx| Ok(ToolResult::message("ok")),
    )
    .build()
    .unwrap();
    let template = |setting| {
        PromptTemplate::builder("t", "clash")
            .search_sections(setting)
            .section(MarkdownSection::new("Task", "task", "Do.").tool(own.clone()))
            .section(leaf("Notes", "notes", "Body.", "Notes."))
            .build()
            .unwrap()
    };
    let auto = Prompt::new(template(SearchSections::Auto))
        .render()
        .unwrap();
    assert_eq!(auto.tool_names(), ["search_sections", "read_section"]);
    let error = Prompt::new(template(SearchSections::On))
        .render()
        .unwrap_err();
    assert_eq!(
        error.message(),
        "Duplicate tool name registered for prompt."
    );
}

/// A section of `paragraphs` paragraphs of 100 words (502 bytes each).
fn long_section(paragraphs: usize) -> PromptTemplate {
    let body = (1..=paragraphs)
        .map(|i| format!("Paragraph {i}: {}", "word ".repeat(98).trim_end()))
        .collect::<Vec<_>>()
        .join("\n\n");
    PromptTemplate::builder("t", "long")
        .section(MarkdownSection::new("Task", "task", "Do."))
        .section(
            leaf("Reference", "ref", &body, "A long reference.").child(leaf(
                "Appendix",
                "appendix",
                "More.",
                "An appendix.",
            )),
        )
        .build()
        .unwrap()
}

#[test]
fn a_section_longer_than_the_room_left_is_read_in_parts() {
    let rendered = Prompt::new(long_section(25)).render().unwrap();
    let session = Session::new();
    // Everything fits: one piece, as before.
    let whole = call(
        &rendered,
        &session,
        "read_section",
        json!({"section_key": "ref"}),
        Some(100_000),
    );
    assert_eq!(whole.result.message, "Content of section 'ref':");
    // Room for about two parts of the five.
    let first = call(
        &rendered,
        &session,
        "read_section",
        json!({"section_key": "ref"}),
        Some(2_000),
    );
    assert!(first.result.success);
    assert_eq!(
        first.result.message,
        "Content of section 'ref' (parts 1–2 of 5):"
    );
    let text = first.model_text();
    assert!(
        text.contains("Paragraph 1:") && text.contains("Paragraph 10:"),
        "{text}"
    );
    assert!(!text.contains("Paragraph 11:"), "{text}");
    assert!(
        text.ends_with(
            "[Section 'ref' continues: call `read_section` with key \"ref\" and part 3 to read on (5 parts). Its subsections: ref.appendix.]"
        ),
        "{text}"
    );
    assert!((text.len() as u64).div_ceil(3) <= 2_000, "{}", text.len());
    assert_eq!(
        first.result.value.as_ref().unwrap().json["parts"],
        json!({"first": 1, "last": 2, "count": 5})
    );
    // Reading on from part 3: the same text whatever the room now.
    let on = call(
        &rendered,
        &session,
        "read_section",
        json!({"section_key": "ref", "part": 3}),
        Some(50_000),
    );
    assert_eq!(
        on.result.message,
        "Content of section 'ref' (parts 3–5 of 5):"
    );
    let rest = on.model_text();
    assert!(
        rest.contains("Paragraph 11:") && !rest.contains("Paragraph 10:"),
        "{rest}"
    );
    assert!(rest.ends_with("An appendix.\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"ref.appendix\".]"), "{rest}");
    // Too little room for one part, or a part that does not exist: a failed read, never an
    // overflow.
    let tight = call(
        &rendered,
        &session,
        "read_section",
        json!({"section_key": "ref"}),
        Some(300),
    );
    assert!(!tight.result.success);
    assert_eq!(
        tight.result.message,
        "Section 'ref' does not fit in the room left in the context (about 300 tokens): answer with what you have."
    );
    let missing = call(
        &rendered,
        &session,
        "read_section",
        json!({"section_key": "ref", "part": 9}),
        None,
    );
    assert_eq!(
        missing.result.message,
        "Section 'ref' has 5 parts: part 9 does not exist."
    );
    let schema = rendered.tool("read_section").unwrap().parameters().clone();
    assert_eq!(schema["properties"]["part"]["type"], "integer");
}
