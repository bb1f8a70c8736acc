//! `wink catalog eval --dataset tasks FILE`: whole tasks searched as `find_tool` does.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use serde_json::json;
use wink_agent::{Message, ModelRequest, ProviderAdapter};
use wink_catalog::{Catalog, TASK_EVAL_LIMIT, TaskReport, load_catalog_file};
use wink_run::model::{self, ModelOptions};
use wink_search::model_queries::{INSTRUCTIONS, MAX_OUTPUT_TOKENS, parse_queries, user_message};
use wink_search::task_eval::{Task, TaskMetrics};
use wink_search::{TaskSet, load_tasks_jsonl};

use super::catalog::{EvalArgs, Format, Ranker, load_embedding_model};
use crate::exit::usage;

/// What the model that wrote the queries cost, over the whole set.
#[derive(Debug, Default, Serialize)]
struct QueryCost {
    model: String,
    model_calls: usize,
    input_tokens: u64,
    output_tokens: u64,
    seconds: f64,
    /// Tasks whose answer held no query: searched with their text.
    fallbacks: usize,
}

/// Each task's capability queries, written by the model `spec` (one call per task, greedy).
fn written_queries(
    spec: &str,
    set: &TaskSet,
) -> anyhow::Result<(HashMap<String, Vec<String>>, QueryCost)> {
    let adapter: Arc<dyn ProviderAdapter> =
        model::adapter(spec, &ModelOptions::default()).map_err(super::common::run_error)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
    let mut cost = QueryCost {
        model: spec.to_owned(),
        ..QueryCost::default()
    };
    let mut written = HashMap::new();
    for task in &set.tasks {
        let request = ModelRequest {
            messages: vec![
                Message::system(INSTRUCTIONS),
                Message::user(user_message(&task.task)),
            ],
            max_output_tokens: Some(MAX_OUTPUT_TOKENS),
            temperature: Some(0.0),
            ..ModelRequest::default()
        };
        let started = Instant::now();
        let turn = runtime
            .block_on(adapter.complete(&request, None))
            .map_err(|e| anyhow::anyhow!("task {}: the model failed: {e}", task.id))?;
        cost.seconds += started.elapsed().as_secs_f64();
        cost.model_calls += 1;
        if let Some(usage) = &turn.usage {
            cost.input_tokens += usage.input_tokens;
            cost.output_tokens += usage.output_tokens;
        }
        let queries = parse_queries(turn.text.as_deref().unwrap_or_default());
        if queries.is_empty() {
            cost.fallbacks += 1;
        }
        written.insert(task.id.clone(), queries);
        if cost.model_calls.is_multiple_of(10) {
            note!(
                "wink catalog eval: queries written for {} of {} tasks",
                cost.model_calls,
                set.tasks.len()
            );
        }
    }
    Ok((written, cost))
}

pub fn run(file: &Path, args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let set = load_tasks_jsonl(file).map_err(|e| usage(e.to_string()))?;
    let catalog_path = match &args.catalog {
        Some(path) => path.clone(),
        None => file.with_file_name("tools.json"),
    };
    let catalog_file = load_catalog_file(&catalog_path).map_err(|e| {
        usage(format!(
            "{e}\n(the task catalog: give it with --catalog FILE)"
        ))
    })?;
    let builder = match args.rerank {
        Ranker::Bm25 => Catalog::builder(),
        Ranker::Hybrid => {
            Catalog::builder().rerank_with(load_embedding_model(args.embedding_model.as_deref())?)
        }
        Ranker::Dense => return Err(usage("`--rerank dense` is for query sets, not tasks")),
    };
    let catalog = builder
        .file(catalog_file)
        .build()
        .map_err(|e| usage(format!("{}: {e}", catalog_path.display())))?;
    set.check_names(|name| catalog.get(name).is_some())
        .map_err(|e| usage(e.to_string()))?;
    let (written, cost) = match &args.model {
        Some(spec) => {
            let (written, cost) = written_queries(spec, &set)?;
            (written, Some(cost))
        }
        None => (HashMap::new(), None),
    };
    let report =
        TaskReport::evaluate_with(&catalog, &set, |task: &Task| written.get(&task.id).cloned());
    match args.format {
        Format::Json => {
            let mut out =
                json!({"dataset": "tasks", "tools": report.tools, "ranker": args.rerank.name()});
            if let (Some(map), Ok(serde_json::Value::Object(overall))) =
                (out.as_object_mut(), serde_json::to_value(report.overall))
            {
                map.extend(overall);
                map.insert("splits".into(), serde_json::to_value(&report.splits)?);
                if let Some(cost) = &cost {
                    map.insert("query_model".into(), serde_json::to_value(cost)?);
                }
                map.insert("per_task".into(), serde_json::to_value(&report.tasks)?);
            }
            crate::output::println(&serde_json::to_string_pretty(&out)?)?;
        }
        Format::Text => {
            let mut text = text(&report, args.rerank);
            if let Some(cost) = &cost {
                text.push_str(&format!(
                    "\nqueries written by {}: {} model calls, {} input and {} output tokens, {:.1} s ({:.2} s per task); {} tasks searched with their text (no query in the answer)",
                    cost.model,
                    cost.model_calls,
                    cost.input_tokens,
                    cost.output_tokens,
                    cost.seconds,
                    cost.seconds / cost.model_calls.max(1) as f64,
                    cost.fallbacks
                ));
            }
            crate::output::println(&text)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn text(report: &TaskReport, ranker: Ranker) -> String {
    let mut lines = vec![
        format!(
            "{} tasks over {} tools ({}), judged on the first {TASK_EVAL_LIMIT} tools of each list",
            report.overall.tasks,
            report.tools,
            ranker.name()
        ),
        "id        split     recall@5 recall@10 all@10 len steps missing".to_owned(),
    ];
    for row in &report.tasks {
        lines.push(format!(
            "{:<9} {:<9} {:>8.2} {:>9.2} {:>6} {:>3} {:>5} {}",
            row.id,
            row.split.as_deref().unwrap_or("-"),
            row.recall_at_5,
            row.recall_at_10,
            if row.all_needed_at_10 { "yes" } else { "no" },
            row.list_length,
            row.steps.len(),
            if row.missing.is_empty() {
                "-".to_owned()
            } else {
                row.missing.join(", ")
            }
        ));
    }
    lines.push(String::new());
    lines.push(summary("overall", &report.overall));
    for split in &report.splits {
        lines.push(summary(&split.split, &split.metrics));
    }
    lines.join("\n")
}

fn summary(label: &str, metrics: &TaskMetrics) -> String {
    format!(
        "{label:<9} {} tasks: recall@5 {:.3}  recall@10 {:.3}  all-needed@10 {:.3}  mean list length {:.1}",
        metrics.tasks,
        metrics.recall_at_5,
        metrics.recall_at_10,
        metrics.all_needed_at_10,
        metrics.mean_list_length
    )
}
