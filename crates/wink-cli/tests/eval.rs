//! `wink eval` end to end with the scripted provider: the exact JSON report, exit codes, the
//! `expanded` disclosure, `--preopen` and `--repeat`; plus a short real run on the 0.5B model
//! (skipped only when `WINK_SKIP_REAL_MODEL=1`; `WINK_TEST_MODEL` names another GGUF).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{embedded_model, fixture, stdout, usage_error, wink};
use serde_json::{Value, json};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-eval-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs `wink eval` with `--format json` and returns the report with every `seconds` zeroed.
fn eval_json(args: &[&str]) -> Value {
    let mut all = vec!["eval"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let mut report: Value = serde_json::from_str(&stdout(&wink(&all))).unwrap();
    report["seconds"] = json!(0.0);
    for case in report["cases"].as_array_mut().unwrap() {
        assert!(case["seconds"].as_f64().unwrap() >= 0.0);
        case["seconds"] = json!(0.0);
    }
    report
}

const TWO_CASES: &str = r#"{"id": "hidden-1", "params": {"TaskParams": {"objective": "add"}}, "input": "What is 2 + 40?", "expect": {"contains": ["42"], "tools_called": ["add"], "max_model_calls": 3}}

{"id": "plain-1", "params": {"TaskParams": {"objective": "greet"}}, "expect": {"contains": ["hello"]}}
"#;

const TWO_CASES_SCRIPT: &str = r#"[
 {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "math"}}], "usage": {"input_tokens": 50, "output_tokens": 5, "cached_tokens": 0}},
 {"tool_calls": [{"id": "c2", "name": "add", "arguments": {"a": 2, "b": 40}}], "usage": {"input_tokens": 60, "output_tokens": 6, "cached_tokens": 50}},
 {"text": "The sum is 42.", "usage": {"input_tokens": 70, "output_tokens": 4, "cached_tokens": 60}},
 {"text": "Hi there.", "usage": {"input_tokens": 40, "output_tokens": 3, "cached_tokens": 30}}
]"#;

#[test]
fn the_json_report_is_exact_and_a_failing_case_still_exits_0() {
    let dir = temp_dir("json");
    let cases = write(&dir, "cases.jsonl", TWO_CASES);
    let script = write(&dir, "script.json", TWO_CASES_SCRIPT);
    let report = eval_json(&[
        &fixture("unified.json"),
        "--cases",
        &cases,
        "--model",
        &format!("scripted:{script}"),
    ]);
    assert_eq!(
        report,
        json!({
            "cases": [
                {"id": "hidden-1", "passed": true, "model_calls": 3, "tool_calls": 2,
                 "prompt_tokens": 180, "cached_tokens": 110, "output_tokens": 15,
                 "seconds": 0.0, "answer": "The sum is 42.",
                 "calls": [
                    {"input_tokens": 50, "output_tokens": 5, "cached_tokens": 0},
                    {"input_tokens": 60, "output_tokens": 6, "cached_tokens": 50},
                    {"input_tokens": 70, "output_tokens": 4, "cached_tokens": 60}
                 ]},
                {"id": "plain-1", "passed": false, "model_calls": 1, "tool_calls": 0,
                 "prompt_tokens": 40, "cached_tokens": 30, "output_tokens": 3,
                 "seconds": 0.0, "answer": "Hi there.",
                 "calls": [{"input_tokens": 40, "output_tokens": 3, "cached_tokens": 30}]}
            ],
            "pass_rate": 0.5,
            "prompt_tokens": 220,
            "uncached_prompt_tokens": 80,
            // plain-1's first call took 30 tokens from hidden-1's cache: cold, it evaluates them.
            "cold_uncached_prompt_tokens": 110,
            "seconds": 0.0
        })
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_text_report_has_a_line_per_run_and_a_pass_rate_per_type() {
    let dir = temp_dir("text");
    let cases = write(&dir, "cases.jsonl", TWO_CASES);
    let script = write(&dir, "script.json", TWO_CASES_SCRIPT);
    let out = stdout(&wink(&[
        "eval",
        &fixture("unified.json"),
        "--cases",
        &cases,
        "--model",
        &format!("scripted:{script}"),
    ]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "      id        calls  tools   prompt   cached  output  seconds  answer"
    );
    assert!(
        lines[1].starts_with("PASS  hidden-1      3      2      180      110      15  "),
        "{out}"
    );
    assert!(lines[1].ends_with("  The sum is 42."), "{out}");
    assert!(
        lines[2].starts_with("FAIL  plain-1       1      0       40       30       3  "),
        "{out}"
    );
    assert_eq!(
        &lines[3..6],
        [
            "",
            "type hidden: 1/1 passed (100%)",
            "type plain: 0/1 passed (0%)"
        ]
    );
    assert!(
        lines[6].starts_with("pass rate 50.0% (1/2), 220 prompt tokens (80 uncached, 110 with every run started cold), "),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn repeat_runs_each_case_n_times_and_every_run_counts() {
    let dir = temp_dir("repeat");
    let cases = write(
        &dir,
        "cases.jsonl",
        r#"{"id": "r-1", "params": {"TaskParams": {"objective": "x"}}, "expect": {"regex": "^ok$"}}"#,
    );
    let script = write(&dir, "script.json", r#"[{"text": "ok"}, {"text": "no"}]"#);
    let report = eval_json(&[
        &fixture("unified.json"),
        "--cases",
        &cases,
        "--model",
        &format!("scripted:{script}"),
        "--repeat",
        "2",
    ]);
    let passed: Vec<(Value, Value)> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].clone(), c["passed"].clone()))
        .collect();
    assert_eq!(
        passed,
        [(json!("r-1"), json!(true)), (json!("r-1"), json!(false))]
    );
    assert_eq!(report["pass_rate"], 0.5);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The model calls `add` at once: it passes only when `add` is offered from the first call.
const ADD_AT_ONCE: &str = r#"[
 {"tool_calls": [{"id": "c1", "name": "add", "arguments": {"a": 1, "b": 2}}]},
 {"text": "3"}
]"#;

#[test]
fn expanded_and_preopen_offer_the_hidden_tool_from_the_first_call() {
    let dir = temp_dir("expanded");
    let cases = write(
        &dir,
        "cases.jsonl",
        r#"{"id": "e-1", "params": {"TaskParams": {"objective": "sum"}}, "input": "Add the integers 1 and 2.", "expect": {"contains": ["3"], "tools_called": ["add"]}}"#,
    );
    let script = write(&dir, "script.json", ADD_AT_ONCE);
    for extra in [["--disclosure", "expanded"], ["--preopen", "1"]] {
        let mut args = vec![
            fixture("unified.json"),
            "--cases".into(),
            cases.clone(),
            "--model".into(),
            format!("scripted:{script}"),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let report = eval_json(&args);
        assert_eq!(report["cases"][0]["passed"], true, "{extra:?}: {report}");
        assert_eq!(report["cases"][0]["tool_calls"], 1, "{extra:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wink_run_preopen_opens_the_relevant_section_before_the_first_call() {
    let dir = temp_dir("run-preopen");
    let script = write(&dir, "script.json", ADD_AT_ONCE);
    let out = wink(&[
        "run",
        &fixture("unified.json"),
        "--model",
        &format!("scripted:{script}"),
        "--params",
        r#"{"TaskParams": {"objective": "sum"}}"#,
        "--input",
        "Add the integers 1 and 2.",
        "--preopen",
        "1",
    ]);
    assert_eq!(stdout(&out), "3\n");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("wink run: pre-opened math\n"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn preopen_style_call_reads_the_section_as_the_first_turn_and_keeps_the_system_prompt() {
    let dir = temp_dir("run-preopen-call");
    let script = write(&dir, "script.json", ADD_AT_ONCE);
    let transcript = dir.join("transcript.json");
    let out = wink(&[
        "run",
        &fixture("unified.json"),
        "--model",
        &format!("scripted:{script}"),
        "--params",
        r#"{"TaskParams": {"objective": "sum"}}"#,
        "--input",
        "Add the integers 1 and 2.",
        "--preopen",
        "1",
        "--preopen-style",
        "call",
        "--transcript",
        &transcript.display().to_string(),
    ]);
    assert_eq!(stdout(&out), "3\n");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("wink run: pre-opened math\n"), "{err}");
    let text = std::fs::read_to_string(&transcript).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["model_calls"].as_array().unwrap().len(), 2, "{text}");
    let first = doc["model_calls"][0]["messages"].as_array().unwrap();
    let roles: Vec<&str> = first.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool"], "{text}");
    assert_eq!(first[2]["tool_calls"][0]["id"], "preopen_0", "{text}");
    assert_eq!(first[2]["tool_calls"][0]["name"], "read_section");
    assert_eq!(first[3]["name"], "read_section");
    // The system prompt still shows the section summarized; its tool is offered from the start.
    let system = first[0]["content"].as_str().unwrap();
    assert!(system.contains("read_section"), "{system}");
    assert_eq!(
        doc["model_calls"][0]["tools"],
        json!(["read_section", "add"]),
        "{text}"
    );
    let bad = usage_error(&[
        "run",
        &fixture("unified.json"),
        "--model",
        &format!("scripted:{script}"),
        "--preopen-style",
        "inline",
    ]);
    assert!(bad.contains("'inline'"), "{bad}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn preopen_describes_the_best_matching_catalog_tool_before_the_first_call() {
    let dir = temp_dir("run-predescribe");
    let script = write(
        &dir,
        "script.json",
        r#"[{"tool_calls": [{"id": "c1", "name": "math.add", "arguments": {"a": 2, "b": 40}}]}, {"text": "42"}]"#,
    );
    let transcript = dir.join("transcript.json");
    let out = wink(&[
        "run",
        &fixture("catalog_prompt.json"),
        "--model",
        &format!("scripted:{script}"),
        "--input",
        "Add 2 and 40.",
        "--preopen",
        "1",
        "--transcript",
        &transcript.display().to_string(),
    ]);
    assert_eq!(stdout(&out), "42\n");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("wink run: pre-described [\"math.add\"]\n"),
        "{err}"
    );
    let text = std::fs::read_to_string(&transcript).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let first = doc["model_calls"][0]["messages"].as_array().unwrap();
    assert_eq!(
        first[2]["tool_calls"][0]["id"], "preopen_describe",
        "{text}"
    );
    assert_eq!(
        first[2]["tool_calls"][0]["arguments"],
        json!({"names": ["math.add"]})
    );
    assert_eq!(
        doc["model_calls"][0]["tools"],
        json!(["tool.list", "tool.describe", "find_tool", "math.add"]),
        "{text}"
    );
    // Without input there is nothing to match: no call is made up front.
    let out = wink(&[
        "run",
        &fixture("catalog_prompt.json"),
        "--model",
        &format!("scripted:{script}"),
        "--preopen",
        "1",
    ]);
    assert!(
        !String::from_utf8(out.stderr)
            .unwrap()
            .contains("pre-described"),
        "no input"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wink_render_preopen_shows_what_the_model_would_see_and_why() {
    let out = wink(&[
        "render",
        &fixture("unified.json"),
        "--params",
        r#"{"TaskParams": {"objective": "sum"}}"#,
        "--input",
        "Add the integers 1 and 2.",
        "--preopen",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(err, "wink render: pre-opened math (2.70)\n");
    let text = stdout(&out);
    assert!(
        text.ends_with("## 3. Math (math)\n\nUse add for sums.\n"),
        "{text}"
    );
}

#[test]
fn wink_render_preopen_opens_the_section_that_finds_a_code_the_input_lacks() {
    let dir = temp_dir("codes");
    let tool = |name: &str, description: &str, param: &str, param_description: &str| {
        serde_json::json!({
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {param: {"type": "string", "description": param_description}},
                "required": [param],
            },
            "handler": {"command": ["true"]},
        })
    };
    let prompt = serde_json::json!({
        "ns": "test", "key": "codes",
        "sections": [
            {"key": "task", "title": "Task", "template": "Help the warehouse staff."},
            {"key": "products", "title": "Products", "template": "The product catalogue.",
             "summary": "Product catalogue.", "visibility": "summary",
             "tools": [tool("search_products", "Search products by name: SKU and name of each match.",
                            "query", "Words of the product name.")]},
            {"key": "stock", "title": "Stock", "template": "Stock on hand and bins.",
             "summary": "Stock on hand and bins by SKU.", "visibility": "summary",
             "tools": [tool("stock_level", "Units on hand and the bin of a SKU.",
                            "sku", "The SKU, e.g. NB-1001.")]},
        ],
    });
    let file = write(&dir, "codes.json", &prompt.to_string());
    let render = |input: &str| {
        let out = wink(&["render", &file, "--input", input, "--preopen", "3"]);
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stderr).unwrap()
    };
    assert_eq!(
        render("which bin are the gloves in?"),
        "wink render: pre-opened stock (1.16), products (finds a code the input lacks)\n"
    );
    assert_eq!(
        // The SKU is given, and its kind (`sku`) adds to the stock section's score.
        render("which bin is NB-1002 in?"),
        "wink render: pre-opened stock (1.42)\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_cases_and_bad_usage_exit_2_naming_the_file_line_and_key() {
    let dir = temp_dir("errors");
    let script = write(&dir, "script.json", r#"[{"text": "x"}]"#);
    let model = format!("scripted:{script}");
    let prompt = fixture("unified.json");
    let run = |cases_text: &str, extra: &[&str]| {
        let cases = write(&dir, "cases.jsonl", cases_text);
        let mut args = vec![
            "eval",
            prompt.as_str(),
            "--cases",
            cases.as_str(),
            "--model",
            model.as_str(),
        ];
        args.extend_from_slice(extra);
        let err = usage_error(&args);
        err.replace(&format!("{}/", dir.display()), "")
    };
    let ok = r#"{"id": "a", "params": {"TaskParams": {"objective": "x"}}, "expect": {}}"#;
    assert_eq!(
        run(
            &format!("{ok}\n\n{{\"id\": \"b\", \"expect\": {{\"regex\": 3}}}}\n"),
            &[]
        ),
        "error: cases.jsonl:3: expect.regex: expected a string\n"
    );
    assert_eq!(
        run(&format!("{ok}\n{ok}\n"), &[]),
        "error: cases.jsonl:2: id: duplicate id 'a' (first on line 1)\n"
    );
    assert_eq!(
        run(r#"{"id": "a", "params": {"Nope": {}}, "expect": {}}"#, &[]),
        "error: cases.jsonl:1: params: unknown params type 'Nope' (declared: TaskParams)\n"
    );
    assert_eq!(run("\n", &[]), "error: --cases cases.jsonl: no cases\n");
    assert_eq!(
        run(ok, &["--repeat", "0"]),
        "error: --repeat must be at least 1\n"
    );
    assert_eq!(
        run(ok, &["--disclosure", "everything"]),
        "error: --disclosure: unknown disclosure mode 'everything' (expected one of: unified, wink, open-sections, context-files)\n"
    );
    let err = usage_error(&[
        "eval",
        &prompt,
        "--cases",
        "/nonexistent/cases.jsonl",
        "--model",
        &model,
    ]);
    assert!(
        err.starts_with("error: --cases /nonexistent/cases.jsonl: "),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// CI-sized check on the real 0.5B model: `wink eval` runs three cases of the bench suite and
/// reports the full JSON shape (the pass rate is not asserted).
#[test]
fn eval_runs_a_few_cases_on_the_small_local_model() {
    let Some(model) = embedded_model(
        "WINK_TEST_MODEL",
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "0.5b",
    ) else {
        return;
    };
    let bench = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/eval");
    let out = wink(&[
        "eval",
        &bench.join("calc.json").display().to_string(),
        "--cases",
        &bench.join("ci.cases.jsonl").display().to_string(),
        "--model",
        &format!("local:{}", model.display()),
        "--max-model-calls",
        "4",
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for case in cases {
        let keys: Vec<&str> = case
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "id",
                "passed",
                "model_calls",
                "tool_calls",
                "prompt_tokens",
                "cached_tokens",
                "output_tokens",
                "seconds",
                "answer",
                "calls"
            ]
        );
        assert!(case["model_calls"].as_u64().unwrap() >= 1, "{case}");
        let calls = case["calls"].as_array().unwrap();
        assert_eq!(calls.len() as u64, case["model_calls"].as_u64().unwrap());
        let summed: u64 = calls
            .iter()
            .map(|call| call["input_tokens"].as_u64().unwrap())
            .sum();
        assert_eq!(summed, case["prompt_tokens"].as_u64().unwrap(), "{case}");
        assert!(case["prompt_tokens"].as_u64().unwrap() > 0, "{case}");
    }
    let rate = report["pass_rate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&rate));
    let uncached = report["uncached_prompt_tokens"].as_u64().unwrap();
    let cold = report["cold_uncached_prompt_tokens"].as_u64().unwrap();
    assert!(uncached <= cold && cold <= report["prompt_tokens"].as_u64().unwrap());
}
