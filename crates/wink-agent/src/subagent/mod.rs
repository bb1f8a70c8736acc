//! Sub-agent dispatch (seed 002): a [`PromptSubagentToolsSection`] offers the model
//! `dispatch_subagent`, which runs a registered child prompt in an isolated fork of the session
//! and hands back only a summary.
//!
//! # Flow of one call
//!
//! 1. **Validate** ([`ToolError::Validation`](wink_core::ToolError::Validation), seen by the model as `Tool validation failed: …`):
//!    ASCII `instructions` of 1–2,000 characters after trimming, `expected_artifacts` items of
//!    1–160 ASCII characters, `plan_step_id` when `mode` is `plan_step`, a `snapshot_version`
//!    equal to [`SNAPSHOT_VERSION`](wink_session::SNAPSHOT_VERSION) when given, an enabled `(prompt_ns, prompt_key)` in the
//!    [`PromptRegistry`], and the nesting limit.
//! 2. **Snapshot and fork**: the parent session is snapshotted, a child is forked from it
//!    ([`Session::fork`](wink_session::Session::fork): same reducers, own bus, no journal) and rolled back to that snapshot so
//!    it starts from exactly the state the call saw; an optional hydrator then derives extra
//!    state.
//! 3. **Render**: the registered template (or the [`PromptFactory`]'s [`ChildPrompt`], with its
//!    bound params; section defaults apply as usual) is composed with the section's *tool
//!    suite* — the parent's tool-bearing sections, shared by reference, so the child is offered
//!    the very same tool definitions. The instructions, plan step id, expected artifacts and a
//!    one-line **summary of the parent snapshot** (its state slices with item counts: `Session
//!    state you start from (a copy of the parent's, snapshot version 1): Note (2 items).`) reach
//!    the child as its **first user message** ([`LoopConfig::user_message`](crate::LoopConfig::user_message)), which keeps the
//!    child prompt's own text and params untouched (a factory may additionally bind them into a
//!    params section).
//! 4. **Run** the child with [`MainLoop`](crate::MainLoop) on the parent's adapter (the [`SubagentAdapter`]
//!    resource, else the `Arc<dyn ProviderAdapter>` resource), the parent's resources and the
//!    shared [`BudgetTracker`](crate::BudgetTracker) resource, so every child of a run spends from one budget. While it
//!    runs, every event the child session dispatches (its `PromptRendered`, `ToolInvoked`,
//!    `PromptExecuted`, state events, ...) is forwarded to the parent as a [`SubagentEvent`]
//!    tagged with the child's run id (its session id): dispatched into the evaluation's session
//!    ([`ToolContext::telemetry`](wink_core::ToolContext::telemetry)), it is published on the parent's bus and appended to the
//!    parent's session log. The child's state itself stays in the child.
//! 5. **Collect** the final message (or structured output), the tools used (the child's new
//!    [`ToolInvoked`](wink_session::ToolInvoked) items), and artifacts: paths written by tools named like `write_file` /
//!    `edit_file`, [`SubagentArtifact`] events recorded in the child, and an `artifacts` list in
//!    the child's structured output.
//! 6. **Tear down** the child (forwarding stops, its state is cleared and its last handle dropped) and record a
//!    [`SubagentRun`] summary event in the parent session: prompt, message summary, tools used,
//!    model and tool calls, token usage and outcome. The child's transcript never enters the
//!    parent conversation.
//!
//! # Failures
//!
//! Following seed 002's split, every [`DispatchSubagentError`] ends the call with a concise
//! failed result and no payload:
//! - *setup* failures — the prompt cannot be built or rendered, snapshot hydration fails, no
//!   adapter is configured — read as the error itself (`Subagent prompt 'ns:key' could not be
//!   loaded: …`);
//! - *downstream* failures — a model error, a fatal tool error, the shared budget running out, a
//!   panic inside the child — read `Subagent run aborted: …`.
//!
//! A failed call is rolled back by the parent's transactional executor, so the parent session's
//! slices end as they were but for the [`SubagentRun`] record, which is telemetry like
//! `ToolInvoked`: it goes to the evaluation's session ([`ToolContext::telemetry`](wink_core::ToolContext::telemetry)) and stays there
//! (slice, journal and bus) whatever the outcome. Several dispatches of one model turn run
//! concurrently, each in its own session transaction and filesystem batch member, so one that
//! fails is undone without touching what the others did. A panic anywhere in the child is caught; dropping the call's future (cancellation)
//! drops the child with it and records a `cancelled` run. The child never outlives the call.
//!
//! Shared resources stay shared: a filesystem resource is the parent's, so files a child writes
//! are its deliverables (reported as artifacts) and are undone with the rest of a failed call.
//!
//! ```
//! use std::sync::Arc;
//! use wink_agent::{
//!     BudgetTracker, MainLoop, MainLoopConfig, PromptRegistry, PromptSubagentToolsSection,
//!     ProviderAdapter, RunHooks, ScriptedProvider, SubagentRun, LoopOutcome,
//! };
//! use wink_core::{block_on, MarkdownSection, Prompt, PromptTemplate, Resources};
//! use wink_session::Session;
//!
//! let registry = PromptRegistry::new();
//! registry
//!     .register(
//!         PromptTemplate::builder("research", "investigate")
//!             .section(MarkdownSection::new("Role", "role", "You investigate one question."))
//!             .build()
//!             .unwrap(),
//!     )
//!     .unwrap();
//! let subagents = PromptSubagentToolsSection::builder(registry).build().unwrap();
//! let parent = PromptTemplate::builder("demo", "root")
//!     .section(MarkdownSection::new("Task", "task", "Answer the question."))
//!     .section(subagents)
//!     .build()
//!     .unwrap();
//!
//! // One scripted model serves the parent and the child, in order.
//! let provider = Arc::new(ScriptedProvider::from_json(r#"[
//!   {"tool_calls": [{"name": "dispatch_subagent", "arguments": {"mode": "ad_hoc",
//!     "prompt_ns": "research", "prompt_key": "investigate", "instructions": "Find the answer."}}]},
//!   {"text": "The answer is 42."},
//!   {"text": "42."}
//! ]"#, "inline").unwrap());
//! let tracker = BudgetTracker::default();
//! let adapter: Arc<dyn ProviderAdapter> = provider.clone();
//! let config = MainLoopConfig {
//!     resources: Resources::new().with(adapter).with(tracker.clone()),
//!     ..MainLoopConfig::default()
//! };
//! let session = Session::new();
//! let run = block_on(
//!     MainLoop::new(provider.as_ref(), config)
//!         .execute_with(&Prompt::new(parent), &session, tracker, RunHooks::default()),
//! )
//! .unwrap();
//! assert_eq!(run.outcome, LoopOutcome::Finished { text: Some("42.".into()), output: None });
//! let recorded = session.slice::<SubagentRun>().all();
//! assert_eq!(recorded[0].message_summary.as_deref(), Some("The answer is 42."));
//! ```

mod error;
mod guard;
mod model;
mod registry;
mod report;
mod run;
mod section;
mod task;
mod telemetry;
mod validation;

pub use error::{DispatchSubagentError, PromptRegistryError};
pub use model::{
    DispatchSubagent, DispatchSubagentResult, SubagentArtifact, SubagentMode, SubagentOutcome,
    SubagentRun,
};
pub use registry::{ChildPrompt, PromptFactory, PromptRegistry, PromptSource};
pub use section::{
    PromptSubagentToolsSection, PromptSubagentToolsSectionBuilder, SubagentAdapter, subagent_depth,
};
pub use telemetry::SubagentEvent;

pub use wink_core::builtin::DISPATCH_SUBAGENT;
/// Most characters allowed in `instructions` (after trimming).
pub const MAX_INSTRUCTIONS_CHARS: usize = 2_000;
/// Most characters allowed in one `expected_artifacts` item (after trimming).
pub const MAX_ARTIFACT_CHARS: usize = 160;
/// Session tag holding a child's nesting depth (1 for a child of the root session).
pub const SUBAGENT_DEPTH_TAG: &str = "wink.subagent_depth";
