//! `wink tools list|describe|search`: the catalog meta-tools over a JSON tool list or an MCP
//! server started over stdio — exactly the texts a model would get.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use wink_catalog::{DEFAULT_LIST_LIMIT, FIND_NOTE, ListQuery};
use wink_run::catalog::{OpenCatalog, ToolSource, load_embedding_model};
use wink_search::TaskInput;

use super::common::run_error;
use crate::exit::usage;

/// `wink tools list|describe|search`
#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(subcommand)]
    pub command: ToolsCommand,
}

/// Tools subcommands.
#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// One line per tool (`tool.list`), paged and filtered.
    List(ListArgs),
    /// Full specifications of tools by name (`tool.describe`).
    Describe(DescribeArgs),
    /// Tools for a capability, best first (`find_tool`).
    Search(SearchArgs),
}

/// Where the tools come from.
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// A JSON tool list (OpenAI, MCP or LiveMCP layout; JSON or JSON lines).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "mcp",
        conflicts_with = "mcp"
    )]
    pub catalog: Option<PathBuf>,
    /// Start this MCP server over stdio and use its tools, e.g. --mcp "python3 server.py".
    #[arg(long, value_name = "COMMAND")]
    pub mcp: Option<String>,
}

/// `wink tools list`
#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Only this namespace.
    #[arg(long)]
    pub namespace: Option<String>,
    /// Only tools with this tag.
    #[arg(long)]
    pub tag: Option<String>,
    /// Only the tools the search finds for this capability or task, in search order
    /// (repeat for several capabilities).
    #[arg(long, value_name = "TEXT")]
    pub query: Vec<String>,
    /// Tools to skip.
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Page size (at most 200).
    #[arg(long, default_value_t = DEFAULT_LIST_LIMIT)]
    pub limit: usize,
}

/// `wink tools describe NAME...`
#[derive(Debug, Args)]
pub struct DescribeArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Tool names.
    #[arg(required = true)]
    pub names: Vec<String>,
}

/// `wink tools search PURPOSE` or `wink tools search --query A --query B`
#[derive(Debug, Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The capability needed, in a few words, or a whole task (split into steps).
    #[arg(required_unless_present = "query")]
    pub purpose: Option<String>,
    /// One capability per step of a task (repeat); the result covers each.
    #[arg(long, value_name = "CAPABILITY", conflicts_with = "purpose")]
    pub query: Vec<String>,
    /// Results to show (at most 20; default 5, or 3 per step of a task).
    #[arg(long)]
    pub limit: Option<usize>,
    /// `bm25`, or `hybrid`: the BM25 shortlist re-scored with the static embedding model
    /// (`scripts/fetch-embeddings.sh` fetches it).
    #[arg(long, value_enum, default_value_t = SearchRanker::Bm25)]
    pub rerank: SearchRanker,
    /// The embedding model directory (default: `$WINK_EMBED_MODEL`, else the cache, as
    /// `wink catalog eval`).
    #[arg(long)]
    pub embedding_model: Option<PathBuf>,
}

/// How `wink tools search` ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchRanker {
    /// BM25F (the default `find_tool`).
    #[default]
    Bm25,
    /// BM25 re-ranked with static embeddings.
    Hybrid,
}

/// The catalog, and the MCP server behind it (kept alive while the catalog is used).
impl SourceArgs {
    /// The catalog these flags name, re-ranked by `model` when one is given.
    fn open(&self, model: Option<Arc<wink_embed::StaticModel>>) -> anyhow::Result<OpenCatalog> {
        let source = match (&self.catalog, &self.mcp) {
            (Some(path), None) => ToolSource::File(path.clone()),
            (None, Some(command)) => ToolSource::Mcp(command.clone()),
            _ => return Err(usage("give exactly one of --catalog FILE or --mcp COMMAND")),
        };
        source.open(model).map_err(run_error)
    }
}

pub fn run(args: &ToolsArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        ToolsCommand::List(args) => {
            let loaded = args.source.open(None)?;
            let query = ListQuery {
                namespace: args.namespace.clone(),
                tag: args.tag.clone(),
                offset: args.offset,
                limit: args.limit,
                queries: args.query.clone(),
            };
            crate::output::println(&loaded.catalog.list_text(&query))?;
            Ok(ExitCode::SUCCESS)
        }
        ToolsCommand::Describe(args) => {
            let loaded = args.source.open(None)?;
            let description = loaded.catalog.describe(&args.names);
            crate::output::println(&description.text)?;
            Ok(if description.tools.is_empty() {
                ExitCode::from(crate::exit::FAILURE)
            } else {
                ExitCode::SUCCESS
            })
        }
        ToolsCommand::Search(args) => {
            let model = match args.rerank {
                SearchRanker::Bm25 => None,
                SearchRanker::Hybrid => {
                    Some(load_embedding_model(args.embedding_model.as_deref()).map_err(run_error)?)
                }
            };
            let loaded = args.source.open(model)?;
            let input = match &args.purpose {
                Some(purpose) => TaskInput::Text(purpose),
                None => TaskInput::Queries(&args.query),
            };
            crate::output::println(&loaded.catalog.task_text(input, args.limit, FIND_NOTE))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
