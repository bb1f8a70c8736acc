//! `wink catalog eval --dataset tasks FILE`: whole tasks searched as `find_tool` does.

use std::path::Path;
use std::process::ExitCode;

use wink_catalog::{Catalog, TaskReport, load_catalog_file};
use wink_run::eval::task_queries::{WrittenQueries, write_task_queries};
use wink_run::model::{self, ModelOptions};
use wink_search::load_tasks_jsonl;
use wink_search::task_eval::Task;

use super::catalog::{EvalArgs, Ranker, load_embedding_model};
use crate::exit::usage;
use crate::output::Format;

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
    let ranker = args.rerank.name();
    let text = match args.format {
        Format::Json => {
            let cost = cost.as_ref().map(serde_json::to_value).transpose()?;
            serde_json::to_string_pretty(&report.to_json(ranker, cost))?
        }
        Format::Text => match &cost {
            Some(cost) => format!("{}\n{cost}", report.text(ranker)),
            None => report.text(ranker),
        },
    };
    crate::output::println(&text)?;
    Ok(ExitCode::SUCCESS)
}
