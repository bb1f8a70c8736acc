//! # wink-run
//!
//! Preparing and running a prompt, one way for every front end: `wink run`, `wink eval`,
//! `wink worker`, `wink mcp serve` (sub-agents) and Rust agents built with
//! [`Agent::from_file`](FromPromptFile::from_file) all go through it, so a prompt file runs
//! alike wherever it runs.
//!
//! The roles, in the order a run meets them:
//! - [`PromptSpec`] names the prompt file, its params and section overrides;
//!   [`PromptSpec::load`] gives a [`PreparedPrompt`] (params bound, overrides in its session).
//! - [`model::adapter`] builds the model from a spec (`local`, `openai:gpt-4.1`,
//!   `scripted:PATH`, ...).
//! - [`RunSettings`] holds the input, pre-opening, budgets and expansion policy;
//!   [`PreparedRun::new`] decides tool catalogs for the model's window, pre-opens the sections
//!   most relevant to the input and configures the loop; [`PreparedRun::execute`] runs it.
//! - [`RunSpec`] is all of it at once, with the session log and the transcript, as `wink run`
//!   takes it; [`FileAgent`] is the same for Rust code.
//! - [`eval`] runs a prompt over a cases file and reports pass rates, tokens and time
//!   ([`eval::catalog`]: the catalog search's retrieval quality over query and task sets,
//!   `wink catalog eval`, with [`eval::task_queries`] when a model writes a task's queries);
//!   [`worker::WorkerRuns`] prepares the runs of a Redis queue's requests.
//!
//! - [`PreparedPrompt::render_json`] and [`PreparedPrompt::call_tool`] use a prompt without a
//!   model: its rendering as data, one tool call (`wink render`, `wink call`);
//!   [`PreparedPrompt::into_mcp_server`] and [`serve_mcp`] serve it to MCP clients
//!   (`wink mcp serve`);
//!   [`docs::write_docs_prompt`] writes a documentation folder as a prompt file, with
//!   [`ModelSummarizer`] writing its summaries (`wink docs-to-prompt`).
//! - [`catalog::ToolSource`] opens a tool catalog from a JSON tool list or an MCP server
//!   (`wink tools`).
//! - [`signals`] ends a run on SIGINT or SIGTERM without leaving its command tools behind.
//! - [`progress`] words a run for a person: [`progress::ProgressLines`] observes a run and
//!   writes a line per step, [`PreparedRun::report`] says what preparing decided.
//!
//! Nothing here prints: what a front end reports (catalog decisions, pre-opened sections) is
//! data on the [`PreparedRun`], and the lines of [`progress`] go wherever the front end sends
//! them.

mod agent;
pub mod catalog;
mod direct;
pub mod docs;
mod error;
pub mod eval;
pub mod log;
pub mod model;
mod preopen;
mod prepared;
pub mod progress;
mod prompt;
mod serve;
pub mod settings;
pub mod signals;
mod spec;
mod trace;
pub mod transcript;
pub mod worker;

pub use agent::{FileAgent, FromPromptFile};
pub use docs::ModelSummarizer;
pub use error::{Result, RunError};
pub use preopen::{catalog_opening_call, effective_preopen, preopen};
pub use prepared::{PreparedRun, RunSettings, runtime};
pub use prompt::{DEFAULT_CONTEXT_WINDOW, PreparedPrompt, PromptSpec, register_run_events};
pub use serve::{McpListen, serve_mcp};
pub use spec::{OpenedRun, RunSpec};
