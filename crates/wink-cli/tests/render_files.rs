//! WINK's B5 (summary rendering and its fallback) and B6 (heading-only sections) through prompt
//! files and `wink render`; `wink render --format json` for prompts that declare structured output
//! (object and list); prompt-file errors about the template's own fields (`ns`, `key`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use common::{fixture, wink};

use serde_json::{Value, json};
use wink_core::{SectionVisibility, render_section};

/// `wink render FIXTURE EXTRA...`: stdout without the final newline; the command must succeed.
fn render(file: &str, extra: &[&str]) -> String {
    let path = fixture(file);
    let mut args = vec!["render", path.as_str()];
    args.extend_from_slice(extra);
    let out = wink(&args);
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let text = String::from_utf8(out.stdout).unwrap();
    text.strip_suffix('\n').unwrap().to_owned()
}

fn render_json(file: &str, extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&render(file, &args)).unwrap()
}

/// `wink render FIXTURE EXTRA...` must exit 2; returns stderr.
fn render_failure(file: &str, extra: &[&str]) -> String {
    let path = fixture(file);
    let mut args = vec!["render", path.as_str()];
    args.extend_from_slice(extra);
    let out = wink(&args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    String::from_utf8(out.stderr).unwrap()
}

// ---- B6: heading-only sections ----

#[test]
fn b6_heading_only_sections_render_their_heading_alone() {
    // No template, an empty template and a blank template are all heading-only; the nested one is
    // WINK's `### 1.2. Nested (parent.nested)`.
    assert_eq!(
        render("b6_heading_only.yaml", &[]),
        "## 1. Parent (parent)\n\n### 1.1. Intro (parent.intro)\n\nIntro.\n\n### 1.2. Nested (parent.nested)\n\n## 2. Minimal (minimal)"
    );
    assert_eq!(render("b6_minimal.toml", &[]), "## 1. Minimal (minimal)");
}

#[test]
fn b6_heading_only_sections_in_json() {
    let out = render_json("b6_heading_only.yaml", &[]);
    assert_eq!(
        out["text"],
        "## 1. Parent (parent)\n\n### 1.1. Intro (parent.intro)\n\nIntro.\n\n### 1.2. Nested (parent.nested)\n\n## 2. Minimal (minimal)"
    );
    assert_eq!(out["tools"], json!([]));
    assert_eq!(out["response_format"], Value::Null);
    assert_eq!(
        out["tokens"],
        json!({"total": 42, "sections": {"parent": 8, "parent.intro": 14, "parent.nested": 12, "minimal": 8}})
    );
}

#[test]
fn b6_a_file_section_rendered_directly_is_the_bare_heading() {
    // WINK's `render(depth=0, number="1")` of a heading-only section: no path annotation.
    let loaded =
        wink_promptfile::load(PathBuf::from(fixture("b6_minimal.toml")).as_path()).unwrap();
    let node = loaded.template.find_section("minimal").unwrap();
    assert_eq!(
        render_section(
            node.section.as_ref(),
            None,
            0,
            "1",
            None,
            SectionVisibility::Full,
            true
        )
        .unwrap(),
        "## 1. Minimal"
    );
    let loaded =
        wink_promptfile::load(PathBuf::from(fixture("b6_heading_only.yaml")).as_path()).unwrap();
    let nested = loaded.template.find_section("parent.nested").unwrap();
    assert_eq!(
        render_section(
            nested.section.as_ref(),
            None,
            1,
            "1.2",
            Some(&nested.path),
            SectionVisibility::Full,
            true
        )
        .unwrap(),
        "### 1.2. Nested (parent.nested)"
    );
}

// ---- B5: summary rendering and its fallback ----

#[test]
fn b5_summarized_section_renders_its_summary_and_the_other_stays_full() {
    assert_eq!(
        render("b5_fallback.json", &[]),
        "## 1. Content (content)\n\nFull: testing\n\n## 2. NoSummary (no-summary)\n\nFull content: testing"
    );
    assert_eq!(
        render(
            "b5_fallback.json",
            &[
                "--summarize",
                "content",
                "--params",
                r#"{"TopicParams": {"topic": "test"}}"#
            ]
        ),
        "## 1. Content (content)\n\nBrief: test\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"content\".]\n\n## 2. NoSummary (no-summary)\n\nFull content: test"
    );
}

#[test]
fn b5_a_section_without_summary_falls_back_to_its_full_text() {
    // WINK: `render(params, visibility=SUMMARY)` of a section without a summary renders the full
    // text; with a summary it renders the summary.
    let loaded =
        wink_promptfile::load(PathBuf::from(fixture("b5_fallback.json")).as_path()).unwrap();
    let topic = loaded.template.params_type_named("TopicParams").unwrap();
    let render_summarized = |key: &str, value: &str, title_number: &str| {
        let node = loaded.template.find_section(key).unwrap();
        let params = topic.value_from_json(json!({"topic": value})).unwrap();
        render_section(
            node.section.as_ref(),
            Some(&params),
            0,
            title_number,
            None,
            SectionVisibility::Summary,
            true,
        )
        .unwrap()
    };
    assert_eq!(
        render_summarized("no-summary", "test", "1"),
        "## 1. NoSummary\n\nFull content: test"
    );
    assert_eq!(
        render_summarized("content", "testing", "1"),
        "## 1. Content\n\nBrief: testing"
    );
}

#[test]
fn b5_requesting_a_summary_the_section_lacks_is_an_error_in_a_prompt() {
    // In a whole prompt, the requested visibility is checked first (WINK's effective_visibility):
    // asking to summarize a section without a summary is refused, never silently ignored. A file
    // that declares it is refused when loaded, at the offending key.
    let err = render_failure("b5_fallback.json", &["--summarize", "no-summary"]);
    assert_eq!(
        err,
        "error: --summarize: section 'no-summary' has no summary\n"
    );
    let err = render_failure("b5_error.json", &[]);
    assert_eq!(
        err,
        format!(
            "error: {}: sections[0].visibility: SUMMARY visibility requested for section 'no-summary' but no summary template is defined. (section 'no-summary')\n",
            fixture("b5_error.json")
        )
    );
}

// ---- --format json with structured output ----

#[test]
fn json_render_of_an_object_output_prompt() {
    let out = render_json(
        "output_object.json",
        &[
            "--params",
            r#"{"DocParams": {"document": "Rust is fast."}}"#,
        ],
    );
    assert_eq!(
        out["text"],
        "## 1. Task (task)\n\nSummarize this document:\nRust is fast.\n\n## 2. Style (style)\n\nStyle rules.\n\n---\n[This section is summarized. To view full content, call `open_sections` with key \"style\".]"
    );
    // The summarized section's tool is withheld; `open_sections` is offered instead (wink mode).
    assert_eq!(
        out["tools"],
        json!([
            {"name": "fetch_page", "description": "Fetch a page of the document.",
             "parameters": {"type": "object", "properties": {"page": {"type": "integer"}},
                            "required": ["page"], "additionalProperties": false}},
            {"name": "open_sections", "description": "Expand summarized sections to view their full content.",
             "parameters": {"type": "object",
                            "properties": {"section_keys": {"type": "array", "items": {"type": "string"}},
                                           "reason": {"type": "string"}},
                            "additionalProperties": false, "required": ["section_keys", "reason"]}}
        ])
    );
    assert_eq!(
        out["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "Summarize_schema", "schema": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "gist": {"type": "string"}},
            "required": ["title", "gist"], "additionalProperties": false}}})
    );
    assert_eq!(
        out["tokens"],
        json!({"total": 52, "sections": {"task": 18, "style": 34}})
    );
    // Expanding the section offers its tool and drops `open_sections`; the response format stays.
    let expanded = render_json(
        "output_object.json",
        &[
            "--params",
            r#"{"DocParams": {"document": "Rust is fast."}}"#,
            "--expand",
            "style",
        ],
    );
    assert_eq!(
        expanded["text"],
        "## 1. Task (task)\n\nSummarize this document:\nRust is fast.\n\n## 2. Style (style)\n\nBe brief."
    );
    let names: Vec<&str> = expanded["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fetch_page", "style_check"]);
    assert_eq!(expanded["response_format"], out["response_format"]);
}

#[test]
fn json_render_of_a_list_output_prompt() {
    let out = render_json("output_list.yaml", &[]);
    assert_eq!(
        out["text"],
        "## 1. Review (review)\n\nList every finding in the diff.\n\nTools:\n- read_diff: Read the diff under review.\n  - read_diff examples:\n    - description: Read the whole diff.\n      input:\n        ```json\n        {}\n        ```\n      output:\n        ```\n        diff --git a/x b/x\n        ```"
    );
    assert_eq!(
        out["tools"],
        json!([{"name": "read_diff", "description": "Read the diff under review.",
                "parameters": {"type": "object", "properties": {}, "additionalProperties": false}}])
    );
    // A list is wrapped in an object under `items`; the name is the prompt's, sanitized.
    assert_eq!(
        out["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "My_Prompt_schema", "schema": {
            "type": "object",
            "properties": {"items": {"type": "array", "items": {
                "type": "object",
                "properties": {"file": {"type": "string"}, "line": {"type": "integer"},
                               "message": {"type": "string"}},
                "required": ["file", "line", "message"], "additionalProperties": false}}},
            "required": ["items"], "additionalProperties": false}}})
    );
    assert_eq!(
        out["tokens"],
        json!({"total": 69, "sections": {"review": 69}})
    );
}

// ---- errors about the template's own fields ----

#[test]
fn blank_namespace_and_key_name_their_field() {
    assert_eq!(
        render_failure("blank_ns.json", &[]),
        format!(
            "error: {}: ns: Prompt namespace must be a non-empty string.\n",
            fixture("blank_ns.json")
        )
    );
    assert_eq!(
        render_failure("blank_key.toml", &["--format", "json"]),
        format!(
            "error: {}: key: Prompt key must be a non-empty string.\n",
            fixture("blank_key.toml")
        )
    );
}
