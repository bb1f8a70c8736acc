//! # wink
//!
//! The front door to wink: Rust agents whose prompts disclose themselves progressively. One
//! dependency brings the crates an agent needs, and `use wink::prelude::*` what a first agent
//! uses.
//!
//! The roles, in the order a run meets them:
//! - **Sections** ([`MarkdownSection`](prelude::MarkdownSection)) carry instructions and tools;
//!   a section can render as a one-paragraph summary that the model opens with `read_section`.
//! - A **template** ([`PromptTemplate`](prelude::PromptTemplate), built with
//!   [`PromptTemplate::builder`](prelude::PromptTemplate::builder)) is a validated tree of
//!   sections, optionally with a typed structured output (`.output::<T>()`); a
//!   [`Prompt`](prelude::Prompt) binds its params.
//! - **Tools** are typed functions built with [`ToolBuilder`](prelude::ToolBuilder): their
//!   handlers get the parameters and a [`ToolContext`](prelude::ToolContext) (session,
//!   resources, filesystem) and answer a [`ToolResult`](prelude::ToolResult).
//! - A **model** is a [`ProviderAdapter`](prelude::ProviderAdapter): an HTTP provider
//!   ([`adapter_from_spec`](prelude::adapter_from_spec), feature `providers`, on by default),
//!   the embedded llama.cpp model (feature `local`) or the
//!   [`ScriptedProvider`](prelude::ScriptedProvider) test double.
//! - An **agent** ([`Agent`](prelude::Agent)) owns a model, a [`Budget`](prelude::Budget) and a
//!   [`Session`](prelude::Session); `agent.run(&prompt)` drives the tool-calling loop to an
//!   answer, and sub-agents it dispatches inherit its model and budget.
//!   [`MainLoop`](prelude::MainLoop) is the same loop over a borrowed adapter.
//!
//! ```
//! use std::sync::Arc;
//! use wink::prelude::*;
//!
//! #[derive(Serialize, Deserialize, JsonSchema)]
//! struct Order { id: String }
//!
//! let lookup = ToolBuilder::<Order, String>::new("lookup_order", "Look an order up.")
//!     .handler(|o: Order, _ctx: &mut ToolContext| Ok(ToolResult::ok("Shipped.", format!("{} shipped", o.id))))
//!     .build()?;
//! let template = PromptTemplate::builder("shop", "support")
//!     .section(MarkdownSection::new("Task", "task", "Answer the customer."))
//!     .section(MarkdownSection::new("Orders", "orders", "Use `lookup_order`.")
//!         .summary("Order lookup.")
//!         .summarized()
//!         .tool(lookup))
//!     .build()?;
//! // A scripted model: open the section, call the tool, answer.
//! let model = ScriptedProvider::from_json(r#"[
//!   {"tool_calls": [{"name": "read_section", "arguments": {"section_key": "orders"}}]},
//!   {"tool_calls": [{"name": "lookup_order", "arguments": {"id": "A-1"}}]},
//!   {"text": "Order A-1 has shipped."}
//! ]"#, "inline")?;
//! let agent = Agent::new(Arc::new(model));
//! let result = block_on(agent.run(&Prompt::new(template)))?;
//! assert_eq!(result.text(), Some("Order A-1 has shipped."));
//! assert_eq!(result.spent.tool_calls, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The crates behind it are re-exported whole for everything else: [`core`], [`agent`],
//! [`model`], [`session`], [`schema`], [`fs`], and by feature `providers`, `promptfile`, `workspace`, `store`, `skills`, `catalog`, `local`, `run`.
//!
//! ## Features
//!
//! | feature | re-exports | default |
//! |---|---|---|
//! | `providers` | `wink::providers` (`wink-providers`: OpenAI, Anthropic, LiteLLM, OpenAI-compatible) | yes |
//! | `promptfile` | `wink::promptfile` (prompt files, command tools) | no |
//! | `workspace` | `wink::workspace` (host-directory filesystem, workspace tools) | no |
//! | `store` | `wink::store` (durable session logs) | no |
//! | `skills` | `wink::skills` (Agent Skills) | no |
//! | `catalog` | `wink::catalog` (tool catalogs, MCP servers behind a prompt) | no |
//! | `local` | `wink::local` (embedded llama.cpp model; builds llama.cpp) | no |
//! | `run` | `wink::run` (prompt files run as `wink run` runs them: `Agent::from_file`, model specs, the eval harness) | no |

/// Prompt sections, rendering, disclosure, tools and the transactional executor
/// (`wink-core`).
pub use wink_core as core;

/// The agent loop, [`Agent`](agent::Agent), [`MainLoop`](agent::MainLoop), budgets,
/// mailboxes, sub-agents and the provider contract (`wink-agent`).
pub use wink_agent as agent;

/// The model contract alone: conversation types and [`ProviderAdapter`](model::ProviderAdapter)
/// (`wink-model`; [`agent`] re-exports the same items). An adapter crate needs only this.
pub use wink_model as model;

/// Event-sourced session state (`wink-session`).
pub use wink_session as session;

/// JSON-Schema validation, structured output parsing and provider schema dialects
/// (`wink-schema`).
pub use wink_schema as schema;

/// The `Filesystem` trait and the in-memory backend (`wink-fs`).
pub use wink_fs as fs;

/// HTTP provider adapters (`wink-providers`, feature `providers`).
#[cfg(feature = "providers")]
pub use wink_providers as providers;

/// Prompt files (`wink-promptfile`, feature `promptfile`).
#[cfg(feature = "promptfile")]
pub use wink_promptfile as promptfile;

/// The host-directory filesystem and workspace tools (`wink-workspace`, feature `workspace`).
#[cfg(feature = "workspace")]
pub use wink_workspace as workspace;

/// Durable session logs (`wink-store`, feature `store`).
#[cfg(feature = "store")]
pub use wink_store as store;

/// Agent Skills (`wink-skills`, feature `skills`).
#[cfg(feature = "skills")]
pub use wink_skills as skills;

/// Tool catalogs and MCP servers behind a prompt (`wink-catalog`, feature `catalog`).
#[cfg(feature = "catalog")]
pub use wink_catalog as catalog;

/// The embedded llama.cpp model (`wink-local`, feature `local`).
#[cfg(feature = "local")]
pub use wink_local as local;

/// Prompt files run as `wink run` runs them (`wink-run`, feature `run`): `Agent::from_file`,
/// model specs, run settings and the eval harness.
#[cfg(feature = "run")]
pub use wink_run as run;

/// OpenTelemetry GenAI spans of every run, exported over OTLP with the standard `OTEL_*`
/// environment (`wink-trace`, feature `trace`): keep `wink::trace::init_from_env()?` for the
/// life of `main`, and each `Agent` run is traced.
#[cfg(feature = "trace")]
pub use wink_trace as trace;

/// The `schemars` wink uses: `#[derive(JsonSchema)]` finds it through the prelude, so it need
/// not be a dependency of its own.
pub use wink_core::schemars;

/// `serde_json`, for tool results and structured outputs as JSON values.
pub use serde_json;

/// What a first agent needs: `use wink::prelude::*;`.
///
/// Sections, the prompt and its template builder, the tool builder with its context and result,
/// the session, the agent and the loop with their settings, model adapters and budgets, and the
/// derives a typed parameter or output needs (`Serialize`/`Deserialize` need `serde` as a
/// dependency of the crate that derives them; `JsonSchema` finds [`crate::schemars`] through
/// this prelude).
pub mod prelude {
    pub use serde::{Deserialize, Serialize};
    pub use wink_core::schemars::{self, JsonSchema};

    // Sections and prompts.
    pub use wink_core::{
        DisclosureMode, MarkdownSection, Prompt, PromptError, PromptTemplate,
        PromptTemplateBuilder, RenderedPrompt, Section, SectionRef, SectionVisibility,
    };
    // Tools.
    pub use wink_core::{
        Deadline, Resources, Tool, ToolBuilder, ToolContext, ToolError, ToolRef, ToolResult,
        block_on,
    };
    // Session.
    pub use wink_session::Session;
    // Agent, loop, settings, budget, models.
    pub use wink_agent::{
        Agent, Budget, BudgetTracker, ExpansionPolicy, LoopConfig, LoopOutcome, MainLoop,
        MainLoopConfig, ProviderAdapter, ProviderError, RunHooks, RunResult, ScriptedProvider,
        SubagentAdapter,
    };
    // HTTP providers: `adapter_from_spec("openai:gpt-4.1", &AdapterOptions::default())`.
    #[cfg(feature = "providers")]
    pub use wink_providers::{AdapterConfig, AdapterOptions, HttpAdapter, adapter_from_spec};
    // Prompt files: `Agent::from_file("prompt.json").model("local").input("…").run_blocking()`.
    #[cfg(feature = "run")]
    pub use wink_run::{FileAgent, FromPromptFile};
}

/// The README's Rust example, compiled and run as a doctest of this crate
/// (`tests/readme.rs` checks that it imports from the facade only).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctest;
