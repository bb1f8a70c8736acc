//! `wink catalog eval --dataset tasks FILE`: whole tasks searched as `find_tool` does.

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;
use wink_catalog::{Catalog, TASK_EVAL_LIMIT, TaskReport, load_catalog_file};
use wink_run::eval::task_queries::{WrittenQueries, write_task_queries};
use wink_run::model::{self, ModelOptions};
use wink_search::load_tasks_jsonl;
use wink_search::task_eval::{Task, TaskMetrics};

use super::catalog::{EvalArgs, Format, Ranker, load_embedding_model};
use crate::exit::usage;

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
    let written = match &args.model {
        Some(spec) => {
            let adapter =
                model::adapter(spec, &ModelOptions::default()).map_err(super::common::run_error)?;
            let mut progress = |done: usize, total: usize| {
                if done.is_multiple_of(10) {
                    note!("wink catalog eval: queries written for {done} of {total} tasks");
                }
            };
            Some(
                write_task_queries(adapter.as_ref(), spec, &set, &mut progress)
                    .map_err(super::common::run_error)?,
            )
        }
        None => None,
    };
    let report = TaskReport::evaluate_with(&catalog, &set, |task: &Task| {
        written.as_ref()?.queries.get(&task.id).cloned()
    });
    let cost = written.map(|WrittenQueries { cost, .. }| cost);
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
