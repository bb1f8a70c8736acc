//! `wink catalog eval|tokens` and `wink tools list|describe|search` end to end.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{stdout, tool_names, usage_error, wink};

use serde_json::Value;

fn fixture(name: &str) -> String {
    common::fixture(&format!("catalog/{name}"))
}

fn mcp_server() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../wink-mcp/tests/fixtures/mcp_server.py")
        .display()
        .to_string()
}

#[test]
fn eval_prints_the_metrics_as_json() {
    let tools = fixture("tools.jsonl");
    let queries = fixture("queries.jsonl");
    let text = stdout(&wink(&[
        "catalog",
        "eval",
        "--tools",
        &tools,
        "--queries",
        &queries,
        "--format",
        "json",
    ]));
    let value: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "recall@1",
            "recall@5",
            "recall@10",
            "ndcg@10",
            "mrr",
            "queries",
            "tools",
            "ranker"
        ]
    );
    assert_eq!(value["queries"], 6);
    assert_eq!(value["tools"], 5);
    // By hand: the two single-tool queries without a shared word ("raining", "schedule a
    // meeting") retrieve nothing; the other three single-tool queries hit at rank 1; the
    // two-tool query finds both at ranks 1 and 2 (recall@1 = 1/2).
    assert_eq!(value["recall@1"], 3.5 / 6.0);
    assert_eq!(value["recall@5"], 4.0 / 6.0);
    assert_eq!(value["recall@10"], 4.0 / 6.0);
    assert_eq!(value["ndcg@10"], 4.0 / 6.0);
    assert_eq!(value["mrr"], 4.0 / 6.0);
    insta::assert_snapshot!("eval_json", text);
}

#[test]
fn eval_prints_a_table() {
    let tools = fixture("tools.jsonl");
    let queries = fixture("queries.jsonl");
    let text = stdout(&wink(&[
        "catalog",
        "eval",
        "--tools",
        &tools,
        "--queries",
        &queries,
    ]));
    insta::assert_snapshot!("eval_text", text);
}

fn vendored_data(path: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(path);
    assert!(
        dir.exists(),
        "{} is missing: the vendored data/ folder of the repository is missing",
        dir.display()
    );
    dir.display().to_string()
}

fn eval_json(args: &[&str]) -> Value {
    let mut all = vec!["catalog", "eval"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    serde_json::from_str(&stdout(&wink(&all))).unwrap()
}

#[test]
fn bfcl_pooled_beats_the_published_bm25_baseline() {
    let bfcl = vendored_data("bfcl");
    let value = eval_json(&["--dataset", "bfcl", &bfcl]);
    assert_eq!(value["queries"], 2135);
    assert_eq!(value["tools"], 1883);
    assert_eq!(value["ranker"], "bm25");
    // data/README.md: BM25 baseline R@5 .691, nDCG@10 .602.
    assert!(value["recall@5"].as_f64().unwrap() > 0.691, "{value}");
    assert!(value["ndcg@10"].as_f64().unwrap() > 0.602, "{value}");
}

/// The embedding model, when this machine has it (`scripts/fetch-embeddings.sh`); required when
/// `WINK_REQUIRE_EMBED_MODEL` is set (CI sets it).
fn embedding_model() -> Option<String> {
    let dir = wink_embed::StaticModel::configured_dir()?;
    if dir.join(wink_embed::WEIGHTS_FILE).exists() {
        return Some(dir.display().to_string());
    }
    assert!(
        std::env::var_os("WINK_REQUIRE_EMBED_MODEL").is_none(),
        "WINK_REQUIRE_EMBED_MODEL is set but {} has no model",
        dir.display()
    );
    eprintln!("note: no embedding model at {}; skipped", dir.display());
    None
}

#[test]
fn hybrid_reranking_beats_bm25_on_bfcl() {
    let Some(model) = embedding_model() else {
        return;
    };
    let bfcl = vendored_data("bfcl");
    let bm25 = eval_json(&["--dataset", "bfcl", &bfcl]);
    let hybrid = eval_json(&[
        "--dataset",
        "bfcl",
        &bfcl,
        "--rerank",
        "hybrid",
        "--embedding-model",
        &model,
    ]);
    assert_eq!(hybrid["ranker"], "hybrid");
    for key in ["recall@5", "ndcg@10", "mrr"] {
        assert!(
            hybrid[key].as_f64().unwrap() > bm25[key].as_f64().unwrap(),
            "{key}: hybrid {} vs bm25 {}",
            hybrid[key],
            bm25[key]
        );
    }
}

#[test]
fn a_missing_embedding_model_is_a_usage_error() {
    let tools = fixture("tools.jsonl");
    let queries = fixture("queries.jsonl");
    let err = usage_error(&[
        "catalog",
        "eval",
        "--tools",
        &tools,
        "--queries",
        &queries,
        "--rerank",
        "dense",
        "--embedding-model",
        "/nonexistent/model",
    ]);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("/nonexistent/model"), "{err}");
    assert!(
        err.ends_with("fetch the embedding model with `bash scripts/fetch-embeddings.sh`, or pass --embedding-model DIR\n"),
        "{err}"
    );
}

#[test]
fn eval_errors_are_usage_errors() {
    let tools = fixture("tools.jsonl");
    let err = usage_error(&[
        "catalog",
        "eval",
        "--tools",
        &tools,
        "--queries",
        "/nonexistent/q.jsonl",
    ]);
    assert!(
        err.starts_with("error: cannot read /nonexistent/q.jsonl: "),
        "{err}"
    );
    let err = usage_error(&["catalog", "eval"]);
    assert_eq!(
        err,
        "error: give `--dataset bfcl DIR`, or `--tools TOOLS.jsonl --queries QUERIES.jsonl`\n"
    );
}

#[test]
fn tokens_reports_the_footprint() {
    let tools = fixture("tools.jsonl");
    let text = stdout(&wink(&["catalog", "tokens", &tools, "--format", "json"]));
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["tools"], 5);
    assert_eq!(value["namespaces"], 4);
    insta::assert_snapshot!("tokens_json", text);
    let out = Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(["catalog", "tokens", "tools.jsonl"])
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalog"))
        .output()
        .unwrap();
    insta::assert_snapshot!("tokens_text", stdout(&out));
}

#[test]
fn tools_list_describe_search_over_a_file() {
    let tools = fixture("tools.jsonl");
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "list",
            "--catalog",
            &tools,
            "--namespace",
            "file"
        ])),
        "Namespace `file`: tools 1-2 of 2.\n- file.read: Read a file from disk and return its text.\n- file.write: Write text to a file on disk.\n"
    );
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "search",
            "--catalog",
            &tools,
            "weather forecast",
            "--limit",
            "1"
        ])),
        "Tools for \"weather forecast\", best first (call `tool.describe` with a name to make it callable):\n- weather.current: Current weather for a city.\n"
    );
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "describe",
            "--catalog",
            &tools,
            "weather.current"
        ])),
        "`weather.current` is now callable. Full specification:\n\n### weather.current\nCurrent weather for a city.\nParameters (JSON Schema): {\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}\nReturns: text\n"
    );
    let out = wink(&["tools", "describe", "--catalog", &tools, "nope"]);
    assert_eq!(out.status.code(), Some(1));
    let err = usage_error(&["tools", "list"]);
    assert!(err.contains("--catalog <FILE>"), "{err}");
}

#[test]
fn tools_over_an_mcp_server() {
    let command = format!("python3 {}", mcp_server());
    assert_eq!(
        stdout(&wink(&["tools", "list", "--mcp", &command])),
        "Catalog: tools 1-3 of 3.\n- add: Add two numbers.\n- echo: Echo a message back.\n- fail: Always fails.\n"
    );
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "search",
            "--mcp",
            &command,
            "sum of numbers",
            "--limit",
            "1"
        ])),
        "Tools for \"sum of numbers\", best first (call `tool.describe` with a name to make it callable):\n- add: Add two numbers.\n"
    );
    let err = usage_error(&["tools", "list", "--mcp", "/nonexistent/server"]);
    assert!(
        err.starts_with("error: MCP server `/nonexistent/server`: cannot start: "),
        "{err}"
    );
}

#[test]
fn tools_search_reranks_with_the_embedding_model() {
    let catalog = fixture("tools.jsonl");
    let err = usage_error(&[
        "tools",
        "search",
        "--catalog",
        &catalog,
        "weather in paris",
        "--rerank",
        "hybrid",
        "--embedding-model",
        "/nonexistent/model",
    ]);
    assert!(err.contains("/nonexistent/model"), "{err}");
    let Some(model) = embedding_model() else {
        return;
    };
    let text = stdout(&wink(&[
        "tools",
        "search",
        "--catalog",
        &catalog,
        "read the web page text",
        "--rerank",
        "hybrid",
        "--embedding-model",
        &model,
    ]));
    assert_eq!(
        text,
        "Tools for \"read the web page text\", best first (call `tool.describe` with a name to make it callable):\n- web.search: Search the web for pages matching a query.\n- file.read: Read a file from disk and return its text.\n- file.write: Write text to a file on disk.\n"
    );
}

#[test]
fn prompt_file_catalogs_can_rerank_find_tool() {
    let dir = std::env::temp_dir().join(format!("wink-rerank-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture("tools.jsonl"), dir.join("tools.jsonl")).unwrap();
    let prompt = dir.join("prompt.json");
    let write = |rerank: &str| {
        std::fs::write(
            &prompt,
            format!(
                r#"{{"ns": "t", "key": "rerank", "sections": [{{"key": "tools", "title": "Tools", "builtin": "catalog", "catalog": "tools.jsonl", "defer": "always", "rerank": "{rerank}"}}]}}"#
            ),
        )
        .unwrap();
    };
    let call = |model: &str| {
        Command::new(env!("CARGO_BIN_EXE_wink"))
            .args([
                "call",
                prompt.to_str().unwrap(),
                "find_tool",
                r#"{"purpose": "read the web page text"}"#,
            ])
            .env("WINK_EMBED_MODEL", model)
            .output()
            .unwrap()
    };
    write("fancy");
    let out = call("/nonexistent/model");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("sections[0].rerank: unknown rerank 'fancy' (bm25, hybrid)"),
        "{out:?}"
    );
    write("hybrid");
    let out = call("/nonexistent/model");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("sections[0].rerank: "), "{err}");
    assert!(
        err.contains("(fetch it with `bash scripts/fetch-embeddings.sh`)"),
        "{err}"
    );
    if let Some(model) = embedding_model() {
        let out = call(&model);
        let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(
            value["message"],
            "Tools for \"read the web page text\", best first (call `tool.describe` with a name to make it callable):\n- web.search: Search the web for pages matching a query.\n- file.read: Read a file from disk and return its text.\n- file.write: Write text to a file on disk."
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `render --format json` of `catalog_auto.json` (no `defer` key) for a context window.
fn decision_at(window: u64, extra: &[&str]) -> Value {
    let prompt = common::fixture("catalog_auto.json");
    let window = window.to_string();
    let mut args = vec![
        "render",
        prompt.as_str(),
        "--format",
        "json",
        "--context-size",
        window.as_str(),
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&stdout(&wink(&args))).unwrap()
}

#[test]
fn the_default_defer_policy_is_auto_with_a_ten_percent_threshold() {
    // Find the schema figure, then render on each side of the threshold: full when the schemas
    // fit in exactly 10% of the window, deferred one token below.
    let probe = decision_at(100_000, &[]);
    let schemas = probe["catalogs"]["tools"]["schema_tokens"]
        .as_u64()
        .unwrap();
    assert!(schemas > 0, "{probe}");
    let fits = decision_at(schemas * 10, &[]);
    let decision = &fits["catalogs"]["tools"];
    assert_eq!(decision["policy"], "auto:10");
    assert_eq!(decision["decision"], "full");
    assert_eq!(decision["threshold_tokens"], schemas);
    assert_eq!(decision["context_window"], schemas * 10);
    let names = tool_names(&fits);
    assert!(names.contains(&"math.add".to_owned()), "{names:?}");
    assert!(!names.contains(&"find_tool".to_owned()), "{names:?}");
    let over = decision_at(schemas * 10 - 10, &[]);
    let decision = &over["catalogs"]["tools"];
    assert_eq!(decision["policy"], "auto:10");
    assert_eq!(decision["decision"], "deferred");
    assert_eq!(decision["threshold_tokens"], schemas - 1);
    let names = tool_names(&over);
    assert!(names.contains(&"find_tool".to_owned()), "{names:?}");
    assert!(!names.contains(&"math.add".to_owned()), "{names:?}");
}

#[test]
fn eval_takes_a_defer_flag() {
    let dir = std::env::temp_dir().join(format!("wink-eval-defer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = dir.join("cases.jsonl");
    std::fs::write(
        &cases,
        "{\"id\": \"a\", \"input\": \"Add 2 and 40.\", \"expect\": {\"contains\": [\"42\"]}}\n",
    )
    .unwrap();
    let script = dir.join("script.json");
    std::fs::write(&script, r#"[{"text": "42"}]"#).unwrap();
    let model = format!("scripted:{}", script.display());
    let err = usage_error(&[
        "eval",
        &common::fixture("catalog_prompt.json"),
        "--cases",
        cases.to_str().unwrap(),
        "--model",
        &model,
        "--defer",
        "sometimes",
    ]);
    assert_eq!(
        err,
        "error: --defer: unknown defer policy 'sometimes' (auto, auto:N, always, never)\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_judges_whole_tasks() {
    let tasks = fixture("tasks.jsonl");
    let tools = fixture("tools.jsonl");
    let value = eval_json(&["--dataset", "tasks", &tasks, "--catalog", &tools]);
    assert_eq!(value["dataset"], "tasks");
    assert_eq!(value["tools"], 5);
    assert_eq!(value["tasks"], 2);
    let keys: Vec<&str> = value["per_task"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "split",
            "steps",
            "recall@5",
            "recall@10",
            "all_needed@10",
            "list_length",
            "missing",
            "found"
        ]
    );
    assert_eq!(
        value["per_task"][0]["steps"],
        serde_json::json!(["Read the notes file", "save a summary into another file"])
    );
    for key in ["recall@5", "recall@10", "all_needed@10", "mean_list_length"] {
        assert!(value[key].is_number(), "{key}: {value}");
    }
    assert_eq!(value["splits"][0]["split"], "dev");
    assert_eq!(value["splits"][1]["split"], "held-out");
    let text = stdout(&wink(&[
        "catalog",
        "eval",
        "--dataset",
        "tasks",
        &tasks,
        "--catalog",
        &tools,
    ]));
    assert!(
        text.starts_with("2 tasks over 5 tools (bm25), judged on the first 10 tools of each list\nid        split     recall@5 recall@10 all@10 len steps missing\na         dev"),
        "{text}"
    );
    assert!(text.contains("\noverall   2 tasks: recall@5 "), "{text}");
    assert!(text.contains("\nheld-out  1 tasks: recall@5 "), "{text}");

    // A tool the catalog lacks, and a task file without a catalog beside it, are usage errors.
    let unknown = fixture("tasks_unknown.jsonl");
    let err = usage_error(&[
        "catalog",
        "eval",
        "--dataset",
        "tasks",
        &unknown,
        "--catalog",
        &tools,
    ]);
    assert_eq!(
        err,
        format!("error: {unknown}:1: task `c` needs `nope`, which is not in the catalog\n")
    );
    let err = usage_error(&["catalog", "eval", "--dataset", "tasks", &tasks]);
    assert!(err.contains("tools.json"), "{err}");
    assert!(err.contains("--catalog FILE"), "{err}");
}

#[test]
fn a_model_writes_the_queries_of_each_task() {
    let tasks = fixture("tasks.jsonl");
    let tools = fixture("tools.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("queries.json");
    // Task a: two queries in a numbered list; task b: an answer with no query at all.
    std::fs::write(
        &script,
        r#"[{"text": "Here are the queries:\n1. Read a file.\n2. Write a file", "usage": {"input_tokens": 120, "output_tokens": 14, "cached_tokens": 0}},
            {"text": "```\n```", "usage": {"input_tokens": 110, "output_tokens": 3, "cached_tokens": 0}}]"#,
    )
    .unwrap();
    let model = format!("scripted:{}", script.display());
    let value = eval_json(&[
        "--dataset",
        "tasks",
        &tasks,
        "--catalog",
        &tools,
        "--model",
        &model,
    ]);
    assert_eq!(
        value["per_task"][0]["steps"],
        serde_json::json!(["read a file", "write a file"])
    );
    assert_eq!(
        value["per_task"][0]["found"],
        serde_json::json!(["file.read", "file.write"])
    );
    // No query in the answer: the task's own text, split as without a model.
    assert_eq!(
        value["per_task"][1]["steps"],
        serde_json::json!([
            "Is it raining in Paris? If it is",
            "put a reminder in my calendar"
        ])
    );
    let cost = &value["query_model"];
    assert_eq!(cost["model"], model.as_str());
    assert_eq!(cost["model_calls"], 2);
    assert_eq!(cost["input_tokens"], 230);
    assert_eq!(cost["output_tokens"], 17);
    assert_eq!(cost["fallbacks"], 1);
    assert!(cost["seconds"].as_f64().unwrap() >= 0.0, "{cost}");

    // The model is for task sets only.
    let err = usage_error(&[
        "catalog",
        "eval",
        "--dataset",
        "bfcl",
        "x",
        "--model",
        "local",
    ]);
    assert_eq!(err, "error: `--model` goes with `--dataset tasks`\n");
}

#[test]
fn tools_search_covers_the_steps_of_a_task() {
    let tools = fixture("tools.jsonl");
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "search",
            "--catalog",
            &tools,
            "--query",
            "current weather",
            "--query",
            "create a calendar event",
        ])),
        "Tools for \"current weather\", \"create a calendar event\", by step (2 steps; call `tool.describe` with a name to make it callable):\nStep 1, \"current weather\":\n- weather.current: Current weather for a city.\nStep 2, \"create a calendar event\":\n- calendar.create_event: Create an event in the calendar.\n"
    );
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "list",
            "--catalog",
            &tools,
            "--query",
            "file",
            "--limit",
            "1"
        ])),
        "Catalog, tools found for \"file\": tools 1-1 of 2.\n- file.read: Read a file from disk and return its text.\nMore: call `tool.list` with offset 1.\n"
    );
}
