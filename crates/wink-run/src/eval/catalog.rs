//! Retrieval quality of the catalog search (`wink catalog eval`): query sets ranked as
//! `find_tool` ranks tools, and whole tasks searched as `find_tool` searches them — with the
//! task's text, or with capability queries a model writes first.
//!
//! ```no_run
//! use wink_run::eval::catalog::{QuerySet, Ranker, evaluate_queries};
//!
//! let set = QuerySet::Files { tools: "tools.jsonl".into(), queries: "queries.jsonl".into() };
//! let evaluation = evaluate_queries(&set, Ranker::Bm25, None)?;
//! println!("{}", evaluation.text());
//! # Ok::<(), wink_run::RunError>(())
//! ```

use std::path::{Path, PathBuf};

use serde_json::Value;
use wink_catalog::{Catalog, TaskReport, load_catalog_file};
use wink_search::eval::{Metrics, evaluate_ranking};
use wink_search::hybrid::{HybridConfig, HybridIndex};
use wink_search::task_eval::Task;
use wink_search::{
    IndexConfig, SearchIndex, TaskInput, ToolSearch, load_bfcl, load_queries_jsonl,
    load_tasks_jsonl, load_tools_jsonl,
};

use super::task_queries::{QueryCost, write_task_queries};
use crate::catalog::load_embedding_model;
use crate::error::{Result, RunError};
use crate::model::{self, ModelOptions};

/// How tools are ranked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ranker {
    /// BM25F over names, summaries, descriptions and parameters (what `find_tool` uses).
    #[default]
    Bm25,
    /// The BM25 shortlist re-scored with static embeddings (0.5·BM25/max + 0.5·cosine).
    Hybrid,
    /// Static embeddings alone (query sets only, for comparison).
    Dense,
}

impl Ranker {
    /// The ranker's name in reports: `bm25`, `hybrid` or `dense`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Bm25 => "bm25",
            Self::Hybrid => "hybrid",
            Self::Dense => "dense",
        }
    }
}

/// A set of queries, each with the tools that answer it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuerySet {
    /// BFCL v4 function docs and answers, pooled: a directory of `BFCL_v4_*.json` files.
    Bfcl(PathBuf),
    /// Tools one JSON object per line (`{"name", "description", "parameters"?, "tags"?}`) and
    /// queries one per line (`{"query", "relevant": [names]}`).
    Files {
        /// The tools file.
        tools: PathBuf,
        /// The queries file.
        queries: PathBuf,
    },
}

/// What [`evaluate_queries`] measured.
#[derive(Debug, Clone)]
pub struct QueryEvaluation {
    /// recall@1/5/10, nDCG@10 and MRR.
    pub metrics: Metrics,
    /// Tools in the catalog.
    pub tools: usize,
    /// How they were ranked.
    pub ranker: Ranker,
}

impl QueryEvaluation {
    /// The report as lines of text.
    pub fn text(&self) -> String {
        self.metrics.text(self.tools, self.ranker.name())
    }

    /// The report as one JSON object.
    pub fn to_json(&self) -> Value {
        self.metrics.to_json(self.tools, self.ranker.name())
    }
}

/// Ranks every query of `set` over its tools with `ranker` (routing and task steps as
/// `find_tool` runs them; the embedding model from `embedding_model` or where it is
/// configured) and averages the judgements. Unreadable files are usage errors naming them.
pub fn evaluate_queries(
    set: &QuerySet,
    ranker: Ranker,
    embedding_model: Option<&Path>,
) -> Result<QueryEvaluation> {
    let usage = |e: wink_search::SearchError| RunError::usage(e.to_string());
    let (documents, queries) = match set {
        QuerySet::Bfcl(dir) => load_bfcl(dir).map_err(usage)?,
        QuerySet::Files { tools, queries } => (
            load_tools_jsonl(tools).map_err(usage)?,
            load_queries_jsonl(queries).map_err(usage)?,
        ),
    };
    let tools = documents.len();
    let index = SearchIndex::build(documents, IndexConfig::default());
    let task_ranking = |search: &ToolSearch, query: &str| {
        search
            .search_task(TaskInput::Text(query), tools)
            .hits
            .into_iter()
            .map(|hit| hit.hit)
            .collect()
    };
    let metrics = match ranker {
        Ranker::Bm25 => {
            let search = ToolSearch::new(index);
            evaluate_ranking(&queries, |q| task_ranking(&search, q))
        }
        Ranker::Hybrid => {
            let model = load_embedding_model(embedding_model)?;
            let search = ToolSearch::new(index).rerank_with(model, HybridConfig::default());
            evaluate_ranking(&queries, |q| task_ranking(&search, q))
        }
        Ranker::Dense => {
            let model = load_embedding_model(embedding_model)?;
            let hybrid = HybridIndex::from_index(index, model, HybridConfig::default());
            evaluate_ranking(&queries, |q| hybrid.search_dense(q, tools))
        }
    };
    Ok(QueryEvaluation {
        metrics,
        tools,
        ranker,
    })
}

/// A task set to search: one `{"id", "task", "tools": [names or [alternatives]], "split"?}` per
/// line, over a tool catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskEvalSpec {
    /// The tasks file.
    pub tasks: PathBuf,
    /// The catalog the tasks name tools of (default: `tools.json` beside the tasks file).
    pub catalog: Option<PathBuf>,
    /// BM25 or the hybrid (`Dense` is refused: it is for query sets).
    pub ranker: Ranker,
    /// The embedding model directory for the hybrid (default: where it is configured).
    pub embedding_model: Option<PathBuf>,
    /// A model spec (`local`, `openai:gpt-4.1-mini`, ...) that first writes each task's
    /// capability queries, searched instead of the task's text.
    pub model: Option<String>,
}

/// What [`evaluate_tasks`] measured.
#[derive(Debug, Clone)]
pub struct TaskEvaluation {
    /// Per task and overall: recall@5/10, all-needed@10 and list length.
    pub report: TaskReport,
    /// What the model that wrote the queries cost, when one did.
    pub cost: Option<QueryCost>,
    /// How tools were ranked.
    pub ranker: Ranker,
}

impl TaskEvaluation {
    /// The report as lines of text, with the model's cost last.
    pub fn text(&self) -> String {
        let report = self.report.text(self.ranker.name());
        match &self.cost {
            Some(cost) => format!("{report}\n{cost}"),
            None => report,
        }
    }

    /// The report as one JSON object, the model's cost under `query_model`.
    pub fn to_json(&self) -> Value {
        let cost = self
            .cost
            .as_ref()
            .and_then(|cost| serde_json::to_value(cost).ok());
        self.report.to_json(self.ranker.name(), cost)
    }
}

/// Searches every task of `spec` as `find_tool` does and scores the tools found against those
/// the task needs. With a model, `progress` gets the tasks whose queries are written and the
/// total after each. A task naming a tool the catalog lacks is a usage error naming its line.
pub fn evaluate_tasks(
    spec: &TaskEvalSpec,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<TaskEvaluation> {
    let set = load_tasks_jsonl(&spec.tasks).map_err(|e| RunError::usage(e.to_string()))?;
    let catalog_path = spec
        .catalog
        .clone()
        .unwrap_or_else(|| spec.tasks.with_file_name("tools.json"));
    let builder = match spec.ranker {
        Ranker::Bm25 => Catalog::builder(),
        Ranker::Hybrid => {
            Catalog::builder().rerank_with(load_embedding_model(spec.embedding_model.as_deref())?)
        }
        Ranker::Dense => {
            return Err(RunError::usage(
                "`--rerank dense` is for query sets, not tasks",
            ));
        }
    };
    let file = load_catalog_file(&catalog_path).map_err(|e| {
        RunError::usage(format!(
            "{e}\n(the task catalog: give it with --catalog FILE)"
        ))
    })?;
    let catalog = builder
        .file(file)
        .build()
        .map_err(|e| RunError::usage(format!("{}: {e}", catalog_path.display())))?;
    set.check_names(|name| catalog.get(name).is_some())
        .map_err(|e| RunError::usage(e.to_string()))?;
    let written = match &spec.model {
        Some(model_spec) => {
            let adapter = model::adapter(model_spec, &ModelOptions::default())?;
            Some(write_task_queries(
                adapter.as_ref(),
                model_spec,
                &set,
                progress,
            )?)
        }
        None => None,
    };
    let report = TaskReport::evaluate_with(&catalog, &set, |task: &Task| {
        written.as_ref()?.queries.get(&task.id).cloned()
    });
    Ok(TaskEvaluation {
        report,
        cost: written.map(|written| written.cost),
        ranker: spec.ranker,
    })
}
