//! `wink catalog eval` (retrieval quality of `find_tool`'s search) and `wink catalog tokens`
//! (the first request's token footprint with and without two-level disclosure).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use wink_catalog::{Catalog, Footprint, LineBudget, load_catalog_file};
use wink_run::eval::catalog::{QuerySet, Ranker, TaskEvalSpec, evaluate_queries, evaluate_tasks};
use wink_tokens::TokenCounter;

use super::common::run_error;
use crate::exit::usage;
use crate::output::Format;

/// Datasets `--dataset` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Dataset {
    /// BFCL v4 function docs and answers (pooled): a directory of `BFCL_v4_*.json` files.
    Bfcl,
    /// Multi-step tasks, one `{"id", "task", "tools": [names or [alternatives]], "split"?}` per
    /// line, over a tool catalog (`--catalog`, default `tools.json` beside the file).
    Tasks,
}

/// How `wink catalog eval` ranks tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum RerankFlag {
    /// BM25F over names, summaries, descriptions and parameters (what `find_tool` uses).
    #[default]
    Bm25,
    /// The BM25 shortlist re-scored with static embeddings (0.5·BM25/max + 0.5·cosine).
    Hybrid,
    /// Static embeddings alone (for comparison).
    Dense,
}

impl From<RerankFlag> for Ranker {
    fn from(flag: RerankFlag) -> Self {
        match flag {
            RerankFlag::Bm25 => Ranker::Bm25,
            RerankFlag::Hybrid => Ranker::Hybrid,
            RerankFlag::Dense => Ranker::Dense,
        }
    }
}

/// `wink catalog eval|tokens`
#[derive(Debug, Args)]
pub struct CatalogArgs {
    #[command(subcommand)]
    pub command: CatalogCommand,
}

/// Catalog subcommands.
#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Retrieval quality of the catalog search: recall@1/5/10, nDCG@10, MRR; for tasks, recall@5/10,
    /// all-needed@10 and list length, per task and overall.
    Eval(EvalArgs),
    /// Tokens of the first request: full schemas vs level-1 listings plus meta-tools.
    Tokens(TokensArgs),
}

/// `wink catalog eval --dataset bfcl DIR`, `wink catalog eval --dataset tasks FILE` or
/// `wink catalog eval --tools T.jsonl --queries Q.jsonl`
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// A known dataset, read from DIR (bfcl) or FILE (tasks).
    #[arg(long, value_enum, requires = "dir", conflicts_with_all = ["tools", "queries"])]
    pub dataset: Option<Dataset>,
    /// The dataset directory or file (with `--dataset`).
    #[arg(requires = "dataset", value_name = "DIR|FILE")]
    pub dir: Option<PathBuf>,
    /// The tool catalog the tasks refer to (OpenAI, MCP or LiveMCP layout; with
    /// `--dataset tasks`; default: `tools.json` beside the task file).
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    /// Tools, one JSON object per line: {"name", "description", "parameters"?, "tags"?}.
    #[arg(long, requires = "queries")]
    pub tools: Option<PathBuf>,
    /// Queries, one JSON object per line: {"query", "relevant": [names]}.
    #[arg(long, requires = "tools")]
    pub queries: Option<PathBuf>,
    /// How to rank: `bm25`, or `hybrid` / `dense` with the static embedding model
    /// (`scripts/fetch-embeddings.sh` fetches it).
    #[arg(long, value_enum, default_value_t = RerankFlag::Bm25)]
    pub rerank: RerankFlag,
    /// The embedding model directory (default: `$WINK_EMBED_MODEL`, else
    /// `$WINK_HOME/models/wordllama-l2-256`, else the cache directory).
    #[arg(long)]
    pub embedding_model: Option<PathBuf>,
    /// With `--dataset tasks`: a model first writes each task's capability queries, one per
    /// step, and those are searched instead of the task's text; the report adds the model's
    /// calls, tokens and seconds. SPEC is a `wink run --model` spec (`local`, `local:0.5b`,
    /// `openai:gpt-4.1-mini`, ...); `--model` alone is the embedded model.
    #[arg(long, value_name = "SPEC", num_args = 0..=1, default_missing_value = "local")]
    pub model: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `wink catalog tokens FILE`
#[derive(Debug, Args)]
pub struct TokensArgs {
    /// A JSON tool list (OpenAI, MCP or LiveMCP layout; JSON or JSON lines).
    pub file: PathBuf,
    /// Most tokens per listing line (0: no limit).
    #[arg(long, default_value_t = 20)]
    pub line_budget: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: &CatalogArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        CatalogCommand::Eval(args) => eval(args),
        CatalogCommand::Tokens(args) => tokens(args),
    }
}

fn eval(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let ranker = args.rerank.into();
    let text = match (&args.dataset, &args.dir, &args.tools, &args.queries) {
        (Some(Dataset::Tasks), Some(file), _, _) => {
            let spec = TaskEvalSpec {
                tasks: file.clone(),
                catalog: args.catalog.clone(),
                ranker,
                embedding_model: args.embedding_model.clone(),
                model: args.model.clone(),
            };
            let mut progress = |done: usize, total: usize| {
                if done.is_multiple_of(10) {
                    note!("wink catalog eval: queries written for {done} of {total} tasks");
                }
            };
            let evaluation = evaluate_tasks(&spec, &mut progress).map_err(run_error)?;
            match args.format {
                Format::Json => serde_json::to_string_pretty(&evaluation.to_json())?,
                Format::Text => evaluation.text(),
            }
        }
        _ if args.catalog.is_some() => {
            return Err(usage("`--catalog` goes with `--dataset tasks`"));
        }
        _ if args.model.is_some() => return Err(usage("`--model` goes with `--dataset tasks`")),
        (Some(Dataset::Bfcl), Some(dir), _, _) => {
            query_report(&QuerySet::Bfcl(dir.clone()), args, ranker)?
        }
        (None, None, Some(tools), Some(queries)) => {
            let set = QuerySet::Files {
                tools: tools.clone(),
                queries: queries.clone(),
            };
            query_report(&set, args, ranker)?
        }
        _ => {
            return Err(usage(
                "give `--dataset bfcl DIR`, or `--tools TOOLS.jsonl --queries QUERIES.jsonl`",
            ));
        }
    };
    crate::output::println(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn query_report(set: &QuerySet, args: &EvalArgs, ranker: Ranker) -> anyhow::Result<String> {
    let evaluation =
        evaluate_queries(set, ranker, args.embedding_model.as_deref()).map_err(run_error)?;
    Ok(match args.format {
        Format::Json => serde_json::to_string_pretty(&evaluation.to_json())?,
        Format::Text => evaluation.text(),
    })
}

fn tokens(args: &TokensArgs) -> anyhow::Result<ExitCode> {
    let file = load_catalog_file(&args.file).map_err(|e| usage(e.to_string()))?;
    let budget = match args.line_budget {
        0 => LineBudget::Unlimited,
        n => LineBudget::Tokens(n),
    };
    let catalog = Catalog::builder()
        .file(file)
        .line_budget(budget)
        .build()
        .map_err(|e| usage(format!("{}: {e}", args.file.display())))?;
    let counter = TokenCounter::o200k().context("token counter")?;
    let footprint = Footprint::measure(&catalog, counter);
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&footprint.to_json())?,
        Format::Text => footprint.report(&args.file.display().to_string()),
    };
    crate::output::println(&text)?;
    Ok(ExitCode::SUCCESS)
}
