//! Sub-agent dispatch (seed 002): a [`PromptSubagentToolsSection`] offers the model
//! `dispatch_subagent`, which runs a registered child prompt in an isolated fork of the session
//! and hands back only a summary.
//!
//! # Flow of one call
//!
//! 1. **Validate** ([`ToolError::Validation`], seen by the model as `Tool validation failed: …`):
//!    ASCII `instructions` of 1–2,000 characters after trimming, `expected_artifacts` items of
//!    1–160 ASCII characters, `plan_step_id` when `mode` is `plan_step`, a `snapshot_version`
//!    equal to [`SNAPSHOT_VERSION`] when given, an enabled `(prompt_ns, prompt_key)` in the
//!    [`PromptRegistry`], and the nesting limit.
//! 2. **Snapshot and fork**: the parent session is snapshotted, a child is forked from it
//!    ([`Session::fork`]: same reducers, own bus, no journal) and rolled back to that snapshot so
//!    it starts from exactly the state the call saw; an optional hydrator then derives extra
//!    state.
//! 3. **Render**: the registered template (or the [`PromptFactory`]'s [`ChildPrompt`], with its
//!    bound params; section defaults apply as usual) is composed with the section's *tool
//!    suite* — the parent's tool-bearing sections, shared by reference, so the child is offered
//!    the very same tool definitions. The instructions, plan step id and expected artifacts reach
//!    the child as its **first user message** ([`LoopConfig::user_message`]), which keeps the
//!    child prompt's own text and params untouched (a factory may additionally bind them into a
//!    params section).
//! 4. **Run** the child with [`MainLoop`] on the parent's adapter (the [`SubagentAdapter`]
//!    resource, else the `Arc<dyn ProviderAdapter>` resource), the parent's resources and the
//!    shared [`BudgetTracker`] resource, so every child of a run spends from one budget.
//! 5. **Collect** the final message (or structured output), the tools used (the child's new
//!    [`ToolInvoked`] items), and artifacts: paths written by tools named like `write_file` /
//!    `edit_file`, [`SubagentArtifact`] events recorded in the child, and an `artifacts` list in
//!    the child's structured output.
//! 6. **Tear down** the child (its state is cleared and its last handle dropped) and record a
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
//! `ToolInvoked`: it goes to the evaluation's session ([`ToolContext::telemetry`]) and stays there
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

use std::any::Any;
use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::task::{Context, Poll};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_core::schemars::JsonSchema;
use wink_core::{
    EvaluationPhase, ParamsValue, Prompt, PromptError, PromptTemplate, Section, SectionParams,
    SectionRef, SectionVisibility, SelectorInput, ToolBuilder, ToolContext, ToolError, ToolOutput,
    ToolRef, ToolResult, normalize_section_key, python_json, render_json_payload,
};
use wink_session::{
    Event, SNAPSHOT_VERSION, Session, SessionId, Snapshot, Timestamp, TokenUsage, ToolInvoked,
};

use crate::budget::{Budget, BudgetLimit, BudgetTracker};
use crate::conversation::ModelRequest;
use crate::inner::{LoopConfig, LoopOutcome};
use crate::main_loop::{ExpansionPolicy, MainLoop, MainLoopConfig, RunHooks};
use crate::provider::{ProviderAdapter, ProviderFuture, StreamSink};

/// The tool's name.
pub const DISPATCH_SUBAGENT: &str = "dispatch_subagent";
/// Most characters allowed in `instructions` (after trimming).
pub const MAX_INSTRUCTIONS_CHARS: usize = 2_000;
/// Most characters allowed in one `expected_artifacts` item (after trimming).
pub const MAX_ARTIFACT_CHARS: usize = 160;
/// Session tag holding a child's nesting depth (1 for a child of the root session).
pub const SUBAGENT_DEPTH_TAG: &str = "wink.subagent_depth";

const TOOL_DESCRIPTION: &str = "Run an isolated subagent on a self-contained task. It starts from a copy of the session state, has the same tools, and returns only a summary, artifacts and tools used.";

const GUIDANCE: &str = "Use `dispatch_subagent` to hand a self-contained piece of work to a subagent. The subagent starts from a copy of the current session state, has the same tools, runs on its own and returns only a short summary, the artifacts it produced and the names of the tools it used. Its conversation never enters yours.

Dispatch when:
- a plan step needs deep investigation (many reads, searches or trial edits) whose details you will not need afterwards;
- this conversation is getting long and the remaining work can be described on its own.

Work directly instead when one or two tool calls will do, or when the task depends on details only this conversation holds: the subagent sees your instructions, not this conversation.

Write instructions that stand alone: the goal, the files, names or facts to start from, the constraints, and what to report. Use mode \"plan_step\" with plan_step_id for a step of your plan and \"ad_hoc\" otherwise; list in expected_artifacts the deliverables you need back (file paths, findings). Several dispatches in one turn run in parallel and share this run's budget.";

const CHILD_FOOTER: &str = "You are a subagent working in a copy of the parent agent's session: state changes you make stay in this run, and the parent does not see this conversation. When you are done, reply with a concise summary of what you did and found; the parent receives only that summary, the artifacts you produced and the names of the tools you used.";

// region: --- data model

/// Why a subagent is dispatched.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "wink_core::schemars", transform = drop_description)]
#[serde(rename_all = "snake_case")]
pub enum SubagentMode {
    /// To carry out one step of the parent's plan (`plan_step_id` required).
    PlanStep,
    /// For a one-off task.
    AdHoc,
}

/// The arguments of `dispatch_subagent` (seed 002's `DispatchSubagent`). Field docs are the
/// descriptions the model sees in the tool schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "wink_core::schemars", transform = drop_description)]
pub struct DispatchSubagent {
    /// "plan_step" to carry out a step of your plan (set plan_step_id), "ad_hoc" otherwise.
    pub mode: SubagentMode,
    /// Namespace of the subagent prompt to run (see the list of subagent prompts).
    pub prompt_ns: String,
    /// Key of the subagent prompt to run.
    pub prompt_key: String,
    /// Self-contained task description: goal, starting points, constraints, what to report. ASCII, 1-2000 characters.
    pub instructions: String,
    /// Deliverables you need back, such as file paths or findings. ASCII, up to 160 characters each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected_artifacts: Vec<String>,
    /// Id of the plan step this dispatch carries out; required when mode is "plan_step".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_step_id: Option<String>,
    /// Session snapshot version you expect; the call is rejected when the session's differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_version: Option<String>,
}

/// Type docs are for Rust readers; the model reads the field descriptions.
fn drop_description(schema: &mut wink_core::schemars::Schema) {
    schema.remove("description");
}

impl DispatchSubagent {
    /// An `ad_hoc` dispatch of `(prompt_ns, prompt_key)`.
    pub fn ad_hoc(
        prompt_ns: impl Into<String>,
        prompt_key: impl Into<String>,
        instructions: impl Into<String>,
    ) -> Self {
        Self {
            mode: SubagentMode::AdHoc,
            prompt_ns: prompt_ns.into(),
            prompt_key: prompt_key.into(),
            instructions: instructions.into(),
            expected_artifacts: Vec::new(),
            plan_step_id: None,
            snapshot_version: None,
        }
    }

    /// A `plan_step` dispatch of `(prompt_ns, prompt_key)` for plan step `plan_step_id`.
    pub fn plan_step(
        prompt_ns: impl Into<String>,
        prompt_key: impl Into<String>,
        plan_step_id: impl Into<String>,
        instructions: impl Into<String>,
    ) -> Self {
        Self {
            mode: SubagentMode::PlanStep,
            plan_step_id: Some(plan_step_id.into()),
            ..Self::ad_hoc(prompt_ns, prompt_key, instructions)
        }
    }

    /// Set the expected artifacts.
    #[must_use]
    pub fn expecting<I, S>(mut self, artifacts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.expected_artifacts = artifacts.into_iter().map(Into::into).collect();
        self
    }
}

/// What the parent receives (seed 002's `DispatchSubagentResult`, plus the child's structured
/// output when its prompt declares one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DispatchSubagentResult {
    /// Namespace of the prompt that ran.
    pub prompt_ns: String,
    /// Key of the prompt that ran.
    pub prompt_key: String,
    /// The child's final message (the tool result message restates it).
    pub message_summary: String,
    /// Deliverables the child produced (file paths, citations, ...), first mention first.
    #[serde(default)]
    pub artifacts: Vec<String>,
    /// Tools the child called, first use first.
    #[serde(default)]
    pub tools_used: Vec<String>,
    /// The child's parsed structured output, when its prompt declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
}

impl ToolOutput for DispatchSubagentResult {
    fn render(&self) -> Option<String> {
        let mut lines = Vec::new();
        if let Some(output) = &self.output {
            let rendered = render_json_payload(output);
            if rendered != self.message_summary {
                lines.push(format!("Output: {rendered}"));
            }
        }
        if !self.artifacts.is_empty() {
            lines.push(format!("Artifacts: {}", self.artifacts.join(", ")));
        }
        if !self.tools_used.is_empty() {
            lines.push(format!("Tools used: {}", self.tools_used.join(", ")));
        }
        Some(lines.join("\n"))
    }
}

/// An artifact reported by a tool running inside a subagent: dispatch it into the tool's session
/// (`ctx.session.dispatch(SubagentArtifact::new("report.md"))`) and it is listed in the
/// dispatch result's `artifacts`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubagentArtifact {
    /// The artifact (a path, a URL, a citation, ...).
    pub artifact: String,
}

impl SubagentArtifact {
    /// A new artifact record.
    pub fn new(artifact: impl Into<String>) -> Self {
        Self {
            artifact: artifact.into(),
        }
    }
}

impl Event for SubagentArtifact {}

/// How a dispatch ended, as recorded in [`SubagentRun`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum SubagentOutcome {
    /// The child finished and its summary went back to the parent.
    Completed,
    /// The child could not be set up (prompt, snapshot or configuration problem).
    Failed {
        /// What went wrong.
        message: String,
    },
    /// The child started but its run was aborted (model error, tool crash, budget, panic).
    Aborted {
        /// What went wrong.
        message: String,
    },
    /// The call was dropped before it finished.
    Cancelled,
}

/// The summary of one dispatch, recorded in the parent session (its default ledger slice, its
/// journal and its bus) so runs stay debuggable without the child's transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentRun {
    /// When the dispatch ended.
    pub created_at: Timestamp,
    /// The parent session.
    pub session_id: SessionId,
    /// The child session (absent when the dispatch failed before forking).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_session_id: Option<SessionId>,
    /// The provider's id of the `dispatch_subagent` call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Namespace of the child prompt.
    pub prompt_ns: String,
    /// Key of the child prompt.
    pub prompt_key: String,
    /// Dispatch mode.
    pub mode: SubagentMode,
    /// Plan step carried out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_step_id: Option<String>,
    /// The (trimmed) instructions.
    pub instructions: String,
    /// The summary returned to the parent, when the run completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_summary: Option<String>,
    /// Artifacts the child produced.
    #[serde(default)]
    pub artifacts: Vec<String>,
    /// Tools the child used, first use first.
    #[serde(default)]
    pub tools_used: Vec<String>,
    /// Model calls the child made.
    pub model_calls: u32,
    /// Tool calls the child made.
    pub tool_calls: u32,
    /// Tokens the child's model calls used.
    pub usage: TokenUsage,
    /// How it ended.
    pub outcome: SubagentOutcome,
}

impl Event for SubagentRun {}

// endregion: --- data model

// region: --- errors

/// Why a dispatch did not produce a result.
///
/// [`DispatchSubagentError::Invalid`] becomes a tool validation error; every other variant a
/// concise failed tool result with no payload ([`DispatchSubagentError::tool_message`]).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DispatchSubagentError {
    /// The arguments were invalid (the model sees `Tool validation failed: …`).
    #[error("{0}")]
    Invalid(String),
    /// The child prompt could not be built, composed with the tool suite, bound or rendered.
    #[error("Subagent prompt '{ns}:{key}' could not be loaded: {message}")]
    PromptUnavailable {
        /// Prompt namespace.
        ns: String,
        /// Prompt key.
        key: String,
        /// Why.
        message: String,
    },
    /// The child session could not be hydrated from the parent's snapshot.
    #[error("Subagent session could not be hydrated from the parent snapshot: {0}")]
    Snapshot(String),
    /// The tool's resources lack what a dispatch needs.
    #[error("Subagent dispatch is not configured: {0}")]
    NotConfigured(String),
    /// A child model call failed.
    #[error("the model call failed: {0}")]
    Model(String),
    /// A child tool failed fatally.
    #[error("a tool failed: {0}")]
    Tool(String),
    /// The (shared) budget ran out during the child's run.
    #[error("the budget ran out ({0})")]
    BudgetExhausted(BudgetLimit),
    /// The child panicked (a tool, usually); the panic was caught.
    #[error("the subagent panicked: {0}")]
    Panicked(String),
    /// The child's evaluation failed in another way.
    #[error("{0}")]
    Failed(String),
}

impl DispatchSubagentError {
    /// Whether the child ran and its run was aborted (as opposed to invalid arguments or a
    /// failure to set the child up).
    pub fn is_downstream(&self) -> bool {
        matches!(
            self,
            Self::Model(_)
                | Self::Tool(_)
                | Self::BudgetExhausted(_)
                | Self::Panicked(_)
                | Self::Failed(_)
        )
    }

    /// The message of the failed tool result: `Subagent run aborted: …` for downstream failures,
    /// the error itself otherwise.
    pub fn tool_message(&self) -> String {
        if self.is_downstream() {
            format!("Subagent run aborted: {self}")
        } else {
            self.to_string()
        }
    }

    fn from_outcome(message: String, phase: EvaluationPhase) -> Self {
        match phase {
            EvaluationPhase::Request | EvaluationPhase::Response => Self::Model(message),
            EvaluationPhase::Tool => Self::Tool(message),
            _ => Self::Failed(message),
        }
    }
}

/// Why a registry operation failed.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptRegistryError {
    /// `(ns, key)` is already registered.
    #[error("A subagent prompt is already registered as '{ns}:{key}'.")]
    Duplicate {
        /// Namespace.
        ns: String,
        /// Key.
        key: String,
    },
    /// `(ns, key)` is not registered.
    #[error("No subagent prompt is registered as '{ns}:{key}'.")]
    Unknown {
        /// Namespace.
        ns: String,
        /// Key.
        key: String,
    },
    /// The namespace or key is empty.
    #[error("Subagent prompt namespace and key must be non-empty strings.")]
    EmptyKey,
}

// endregion: --- errors

// region: --- registry

/// A child prompt ready to compose: a template plus params bound as JSON (kept as JSON so they
/// can be bound again on the template composed with the tool suite).
#[derive(Debug, Clone)]
pub struct ChildPrompt {
    template: PromptTemplate,
    bindings: Vec<Result<(String, Value), PromptError>>,
}

impl ChildPrompt {
    /// `template` with nothing bound (section defaults apply).
    pub fn new<O>(template: impl Into<PromptTemplate<O>>) -> Self {
        Self {
            template: template.into().erase(),
            bindings: Vec::new(),
        }
    }

    /// Bind a typed params instance.
    #[must_use]
    pub fn bind<P: SectionParams>(mut self, params: P) -> Self {
        self.bindings.push(
            ParamsValue::from_typed(params)
                .map(|v| (v.type_name().to_owned(), Value::Object(v.fields().clone()))),
        );
        self
    }

    /// Bind params given as JSON for the params type named `type_name`.
    #[must_use]
    pub fn bind_json(mut self, type_name: impl Into<String>, value: Value) -> Self {
        self.bindings.push(Ok((type_name.into(), value)));
        self
    }

    /// The template.
    pub fn template(&self) -> &PromptTemplate {
        &self.template
    }

    fn into_prompt(self, template: PromptTemplate) -> Result<Prompt, PromptError> {
        let mut prompt = Prompt::new(template);
        for binding in self.bindings {
            let (type_name, value) = binding?;
            prompt = prompt.bind_json(type_name, value);
        }
        prompt.param_lookup()?;
        Ok(prompt)
    }
}

/// Builds a child prompt for a (validated) dispatch request — e.g. to bind the instructions into
/// a params section. Closures `Fn(&DispatchSubagent) -> Result<ChildPrompt, PromptError>` are
/// factories.
pub trait PromptFactory: Send + Sync {
    /// The child prompt for `request`.
    fn build(&self, request: &DispatchSubagent) -> Result<ChildPrompt, PromptError>;
}

impl<F> PromptFactory for F
where
    F: Fn(&DispatchSubagent) -> Result<ChildPrompt, PromptError> + Send + Sync,
{
    fn build(&self, request: &DispatchSubagent) -> Result<ChildPrompt, PromptError> {
        self(request)
    }
}

/// Where a registered child prompt comes from.
#[non_exhaustive]
#[derive(Clone)]
pub enum PromptSource {
    /// A fixed template, rendered with its section defaults.
    Template(PromptTemplate),
    /// A factory called for each dispatch.
    Factory(Arc<dyn PromptFactory>),
}

impl fmt::Debug for PromptSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Template(t) => f.debug_tuple("Template").field(&t.display_name()).finish(),
            Self::Factory(_) => f.write_str("Factory"),
        }
    }
}

impl PromptSource {
    fn child_prompt(&self, request: &DispatchSubagent) -> Result<ChildPrompt, PromptError> {
        match self {
            Self::Template(t) => Ok(ChildPrompt::new(t)),
            Self::Factory(f) => f.build(request),
        }
    }
}

#[derive(Debug, Clone)]
struct RegistryEntry {
    source: PromptSource,
    description: Option<String>,
    enabled: bool,
}

/// Child prompts that `dispatch_subagent` may run, keyed by `(ns, key)`, each enabled or
/// disabled. Clones share the same entries, so enabling a prompt after the section was built is
/// seen by the next render and the next call.
#[derive(Clone, Default)]
pub struct PromptRegistry {
    entries: Arc<RwLock<IndexMap<(String, String), RegistryEntry>>>,
}

impl fmt::Debug for PromptRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptRegistry")
            .field("prompts", &self.keys())
            .finish()
    }
}

fn registry_key(ns: &str, key: &str) -> Result<(String, String), PromptRegistryError> {
    let (ns, key) = (ns.trim(), key.trim());
    if ns.is_empty() || key.is_empty() {
        return Err(PromptRegistryError::EmptyKey);
    }
    Ok((ns.to_owned(), key.to_owned()))
}

impl PromptRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, IndexMap<(String, String), RegistryEntry>> {
        self.entries.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, IndexMap<(String, String), RegistryEntry>> {
        self.entries.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn insert(
        &self,
        ns: &str,
        key: &str,
        source: PromptSource,
        description: Option<String>,
    ) -> Result<(), PromptRegistryError> {
        let id = registry_key(ns, key)?;
        let mut entries = self.write();
        if entries.contains_key(&id) {
            return Err(PromptRegistryError::Duplicate {
                ns: id.0,
                key: id.1,
            });
        }
        entries.insert(
            id,
            RegistryEntry {
                source,
                description,
                enabled: true,
            },
        );
        Ok(())
    }

    /// Register `template` (enabled) under its own `(ns, key)`; its name, when set, describes it
    /// in the section's list.
    pub fn register<O>(
        &self,
        template: impl Into<PromptTemplate<O>>,
    ) -> Result<(), PromptRegistryError> {
        let template: PromptTemplate = template.into().erase();
        let (ns, key) = (template.ns().to_owned(), template.key().to_owned());
        let description = template.name().map(str::to_owned);
        self.insert(&ns, &key, PromptSource::Template(template), description)
    }

    /// Register a factory (enabled) under `(ns, key)`, described by `description` in the
    /// section's list.
    pub fn register_factory(
        &self,
        ns: &str,
        key: &str,
        description: impl Into<String>,
        factory: impl PromptFactory + 'static,
    ) -> Result<(), PromptRegistryError> {
        self.insert(
            ns,
            key,
            PromptSource::Factory(Arc::new(factory)),
            Some(description.into()),
        )
    }

    fn set_enabled(&self, ns: &str, key: &str, enabled: bool) -> Result<(), PromptRegistryError> {
        let id = registry_key(ns, key)?;
        match self.write().get_mut(&id) {
            Some(entry) => {
                entry.enabled = enabled;
                Ok(())
            }
            None => Err(PromptRegistryError::Unknown {
                ns: id.0,
                key: id.1,
            }),
        }
    }

    /// Allow dispatches of `(ns, key)`.
    pub fn enable(&self, ns: &str, key: &str) -> Result<(), PromptRegistryError> {
        self.set_enabled(ns, key, true)
    }

    /// Refuse dispatches of `(ns, key)` (it stays registered).
    pub fn disable(&self, ns: &str, key: &str) -> Result<(), PromptRegistryError> {
        self.set_enabled(ns, key, false)
    }

    /// The source registered under `(ns, key)`, enabled or not.
    pub fn get(&self, ns: &str, key: &str) -> Option<PromptSource> {
        let id = registry_key(ns, key).ok()?;
        self.read().get(&id).map(|e| e.source.clone())
    }

    /// Whether `(ns, key)` is registered and enabled.
    pub fn is_enabled(&self, ns: &str, key: &str) -> bool {
        registry_key(ns, key)
            .ok()
            .and_then(|id| self.read().get(&id).map(|e| e.enabled))
            .unwrap_or(false)
    }

    /// Every registered `(ns, key)`, in registration order.
    pub fn keys(&self) -> Vec<(String, String)> {
        self.read().keys().cloned().collect()
    }

    /// The enabled `(ns, key)`s, in registration order.
    pub fn enabled_keys(&self) -> Vec<(String, String)> {
        self.read()
            .iter()
            .filter(|(_, e)| e.enabled)
            .map(|(k, _)| k.clone())
            .collect()
    }

    fn enabled_listing(&self) -> Vec<(String, String, Option<String>)> {
        self.read()
            .iter()
            .filter(|(_, e)| e.enabled)
            .map(|((ns, key), e)| (ns.clone(), key.clone(), e.description.clone()))
            .collect()
    }

    fn enabled_names(&self) -> String {
        let names: Vec<String> = self
            .enabled_keys()
            .into_iter()
            .map(|(ns, key)| format!("'{ns}:{key}'"))
            .collect();
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    }
}

// endregion: --- registry

// region: --- section

/// Resource: the adapter children use instead of the `Arc<dyn ProviderAdapter>` resource (for
/// example a cheaper model for subagents).
#[derive(Debug, Clone)]
pub struct SubagentAdapter(pub Arc<dyn ProviderAdapter>);

type Hydrator = dyn Fn(&Session, &Snapshot) -> Result<(), String> + Send + Sync;

struct Shared {
    registry: PromptRegistry,
    suite: Vec<SectionRef>,
    loop_config: LoopConfig,
    child_budget: Budget,
    max_expansions: u32,
    policy: ExpansionPolicy,
    max_depth: u32,
    hydrator: Option<Arc<Hydrator>>,
}

/// Builder for [`PromptSubagentToolsSection`].
pub struct PromptSubagentToolsSectionBuilder {
    shared: Shared,
}

impl fmt::Debug for PromptSubagentToolsSectionBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptSubagentToolsSectionBuilder")
            .field("registry", &self.shared.registry)
            .finish_non_exhaustive()
    }
}

impl PromptSubagentToolsSectionBuilder {
    /// Sections whose tools every child is offered in addition to its own prompt's — pass the
    /// same [`SectionRef`]s the parent template holds, so children get the parent's tool
    /// definitions unchanged. A suite section whose key the child prompt already has is skipped.
    #[must_use]
    pub fn tool_suite(mut self, sections: impl IntoIterator<Item = SectionRef>) -> Self {
        self.shared.suite.extend(sections);
        self
    }

    /// Loop settings for children (a `user_message` set here precedes the task message).
    #[must_use]
    pub fn loop_config(mut self, config: LoopConfig) -> Self {
        self.shared.loop_config = config;
        self
    }

    /// The budget of each child when the tool's resources hold no shared [`BudgetTracker`]
    /// (the call's deadline applies too).
    #[must_use]
    pub fn child_budget(mut self, budget: Budget) -> Self {
        self.shared.child_budget = budget;
        self
    }

    /// Restarts allowed per child (default 8).
    #[must_use]
    pub fn max_expansions(mut self, max: u32) -> Self {
        self.shared.max_expansions = max;
        self
    }

    /// Expansion policy of children (default eager).
    #[must_use]
    pub fn policy(mut self, policy: ExpansionPolicy) -> Self {
        self.shared.policy = policy;
        self
    }

    /// Nesting limit (default 1: children cannot dispatch subagents). With `n > 1` children
    /// below depth `n` are offered `dispatch_subagent` too; the section hides itself at the
    /// limit.
    #[must_use]
    pub fn max_depth(mut self, depth: u32) -> Self {
        self.shared.max_depth = depth.max(1);
        self
    }

    /// Derive extra state in each child right after it was rolled back to the parent's snapshot
    /// (register derived reducers, seed metrics slices, ...). The hook must derive
    /// deterministically from the snapshot; an error aborts the dispatch as a hydration failure.
    #[must_use]
    pub fn hydrate<F, E>(mut self, hydrator: F) -> Self
    where
        F: Fn(&Session, &Snapshot) -> Result<(), E> + Send + Sync + 'static,
        E: fmt::Display,
    {
        self.shared.hydrator = Some(Arc::new(move |child: &Session, snapshot: &Snapshot| {
            hydrator(child, snapshot).map_err(|e| e.to_string())
        }));
        self
    }

    /// Build the section and its tool.
    pub fn build(self) -> Result<PromptSubagentToolsSection, PromptError> {
        PromptSubagentToolsSection::from_shared(Arc::new(self.shared))
    }
}

/// The section exposing `dispatch_subagent`, with model-facing guidance on when to dispatch and
/// the list of enabled subagent prompts.
#[derive(Clone)]
pub struct PromptSubagentToolsSection {
    shared: Arc<Shared>,
    tools: Vec<ToolRef>,
}

impl fmt::Debug for PromptSubagentToolsSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptSubagentToolsSection")
            .field("registry", &self.shared.registry)
            .field("suite", &self.shared.suite.len())
            .field("max_depth", &self.shared.max_depth)
            .finish_non_exhaustive()
    }
}

impl PromptSubagentToolsSection {
    /// Start a section dispatching the prompts of `registry`.
    pub fn builder(registry: PromptRegistry) -> PromptSubagentToolsSectionBuilder {
        let defaults = MainLoopConfig::default();
        PromptSubagentToolsSectionBuilder {
            shared: Shared {
                registry,
                suite: Vec::new(),
                loop_config: defaults.loop_config,
                child_budget: Budget::default(),
                max_expansions: defaults.max_expansions,
                policy: defaults.policy,
                max_depth: 1,
                hydrator: None,
            },
        }
    }

    fn from_shared(shared: Arc<Shared>) -> Result<Self, PromptError> {
        let handler_shared = Arc::clone(&shared);
        let tool = ToolBuilder::<DispatchSubagent, DispatchSubagentResult>::new(
            DISPATCH_SUBAGENT,
            TOOL_DESCRIPTION,
        )
        .async_handler(move |params: DispatchSubagent, ctx: ToolContext| {
            let shared = Arc::clone(&handler_shared);
            async move {
                match dispatch(shared, params, ctx).await {
                    Ok(result) => Ok(ToolResult::ok(result.message_summary.clone(), result)),
                    Err(DispatchSubagentError::Invalid(message)) => {
                        Err(ToolError::Validation(message))
                    }
                    Err(error) => Ok(ToolResult::failure(error.tool_message())),
                }
            }
        })
        .example(
            "Hand one plan step to a subagent",
            DispatchSubagent::plan_step(
                "research",
                "investigate",
                "step-2",
                "Find where request timeouts are configured in src/ and report the file and default value.",
            )
            .expecting(["timeout config location"]),
            DispatchSubagentResult {
                prompt_ns: "research".to_owned(),
                prompt_key: "investigate".to_owned(),
                message_summary: "Timeouts are set in src/config.rs (default 30s).".to_owned(),
                artifacts: vec!["src/config.rs".to_owned()],
                tools_used: vec!["grep".to_owned(), "read_file".to_owned()],
                output: None,
            },
        )
        .parallel()
        .build()?;
        Ok(Self {
            shared,
            tools: vec![tool],
        })
    }

    /// The registry.
    pub fn registry(&self) -> &PromptRegistry {
        &self.shared.registry
    }

    /// Run one dispatch outside the tool executor (for orchestrators): the same validation,
    /// isolation and recording as the tool, with the session, resources and deadline of `ctx`.
    /// The caller owns rollback of the parent on failure.
    pub async fn dispatch(
        &self,
        request: DispatchSubagent,
        ctx: &ToolContext,
    ) -> Result<DispatchSubagentResult, DispatchSubagentError> {
        dispatch(Arc::clone(&self.shared), request, ctx.clone()).await
    }
}

impl Section for PromptSubagentToolsSection {
    fn title(&self) -> &str {
        "Subagents"
    }
    fn key(&self) -> &str {
        "subagents"
    }
    fn tools(&self) -> &[ToolRef] {
        &self.tools
    }
    fn is_enabled(&self, input: SelectorInput<'_>) -> Result<bool, PromptError> {
        Ok(input.session.map_or(0, subagent_depth) < self.shared.max_depth)
    }
    fn render_body(
        &self,
        _params: Option<&ParamsValue>,
        _visibility: SectionVisibility,
    ) -> Result<String, PromptError> {
        let mut body = String::from(GUIDANCE);
        body.push_str("\n\nSubagent prompts:");
        let listing = self.shared.registry.enabled_listing();
        if listing.is_empty() {
            body.push_str("\n- none enabled right now");
        }
        for (ns, key, description) in listing {
            body.push_str(&format!("\n- prompt_ns \"{ns}\", prompt_key \"{key}\""));
            if let Some(d) = description {
                body.push_str(": ");
                body.push_str(&d);
            }
        }
        Ok(body)
    }
}

/// The nesting depth of `session` (0 for a root session).
pub fn subagent_depth(session: &Session) -> u32 {
    session
        .tags()
        .get(SUBAGENT_DEPTH_TAG)
        .and_then(|d| d.parse().ok())
        .unwrap_or(0)
}

// endregion: --- section

// region: --- validation

fn ascii_problem(field: &str, text: &str) -> Option<String> {
    text.chars()
        .position(|c| !c.is_ascii())
        .map(|at| format!("{field} must be ASCII text (non-ASCII character at position {at})."))
}

impl Shared {
    /// Check and normalise (trim) a request.
    fn validate(
        &self,
        mut request: DispatchSubagent,
        depth: u32,
    ) -> Result<DispatchSubagent, DispatchSubagentError> {
        let mut problems: Vec<String> = Vec::new();
        request.instructions = request.instructions.trim().to_owned();
        let length = request.instructions.chars().count();
        if length == 0 {
            problems.push("instructions must not be empty.".to_owned());
        } else if let Some(p) = ascii_problem("instructions", &request.instructions) {
            problems.push(p);
        } else if length > MAX_INSTRUCTIONS_CHARS {
            problems.push(format!(
                "instructions must be at most {MAX_INSTRUCTIONS_CHARS} characters after trimming (got {length})."
            ));
        }
        for (index, artifact) in request.expected_artifacts.iter_mut().enumerate() {
            *artifact = artifact.trim().to_owned();
            let field = format!("expected_artifacts[{index}]");
            let length = artifact.chars().count();
            if length == 0 {
                problems.push(format!("{field} must not be empty."));
            } else if let Some(p) = ascii_problem(&field, artifact) {
                problems.push(p);
            } else if length > MAX_ARTIFACT_CHARS {
                problems.push(format!(
                    "{field} must be at most {MAX_ARTIFACT_CHARS} characters (got {length})."
                ));
            }
        }
        request.plan_step_id = request
            .plan_step_id
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty());
        if request.mode == SubagentMode::PlanStep && request.plan_step_id.is_none() {
            problems.push("plan_step_id is required when mode is \"plan_step\".".to_owned());
        }
        request.snapshot_version = request
            .snapshot_version
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty());
        if let Some(version) = &request.snapshot_version
            && version != SNAPSHOT_VERSION
        {
            problems.push(format!(
                "snapshot_version \"{version}\" is not compatible with this session (snapshot version \"{SNAPSHOT_VERSION}\")."
            ));
        }
        request.prompt_ns = request.prompt_ns.trim().to_owned();
        request.prompt_key = request.prompt_key.trim().to_owned();
        let (ns, key) = (&request.prompt_ns, &request.prompt_key);
        if self.registry.get(ns, key).is_none() {
            problems.push(format!(
                "Unknown subagent prompt '{ns}:{key}'. Enabled prompts: {}.",
                self.registry.enabled_names()
            ));
        } else if !self.registry.is_enabled(ns, key) {
            problems.push(format!(
                "Subagent prompt '{ns}:{key}' is disabled. Enabled prompts: {}.",
                self.registry.enabled_names()
            ));
        }
        if depth >= self.max_depth {
            problems.push(format!(
                "Subagents cannot dispatch further subagents (nesting limit {} reached).",
                self.max_depth
            ));
        }
        if problems.is_empty() {
            Ok(request)
        } else {
            Err(DispatchSubagentError::Invalid(problems.join(" ")))
        }
    }
}

// endregion: --- validation

// region: --- execution

/// Records a [`SubagentRun`] in the parent when finished — or, when dropped unfinished (the call
/// was cancelled), a `cancelled` one.
struct RunRecorder {
    parent: Session,
    record: Option<SubagentRun>,
}

impl RunRecorder {
    fn start(parent: &Session, request: &DispatchSubagent, call_id: Option<String>) -> Self {
        Self {
            parent: parent.clone(),
            record: Some(SubagentRun {
                created_at: Timestamp::now(),
                session_id: parent.id(),
                child_session_id: None,
                call_id,
                prompt_ns: request.prompt_ns.clone(),
                prompt_key: request.prompt_key.clone(),
                mode: request.mode,
                plan_step_id: request.plan_step_id.clone(),
                instructions: request.instructions.clone(),
                message_summary: None,
                artifacts: Vec::new(),
                tools_used: Vec::new(),
                model_calls: 0,
                tool_calls: 0,
                usage: TokenUsage::default(),
                outcome: SubagentOutcome::Cancelled,
            }),
        }
    }

    fn update(&mut self, f: impl FnOnce(&mut SubagentRun)) {
        if let Some(record) = self.record.as_mut() {
            f(record);
        }
    }

    fn finish(mut self, outcome: SubagentOutcome, summary: Option<String>) {
        if let Some(mut record) = self.record.take() {
            record.outcome = outcome;
            record.message_summary = summary;
            record.created_at = Timestamp::now();
            let _ = self.parent.dispatch(record);
        }
    }
}

impl Drop for RunRecorder {
    fn drop(&mut self) {
        if let Some(mut record) = self.record.take() {
            record.outcome = SubagentOutcome::Cancelled;
            record.created_at = Timestamp::now();
            let _ = self.parent.dispatch(record);
        }
    }
}

/// The child session; dropping it tears the child down (its state is cleared, so a handle a
/// tool may have leaked sees nothing, and the last handle goes with it).
struct ChildSession {
    session: Session,
}

impl ChildSession {
    fn spawn(
        parent: &Session,
        snapshot: &Snapshot,
        depth: u32,
        hydrator: Option<&Arc<Hydrator>>,
    ) -> Result<Self, DispatchSubagentError> {
        let child = Self {
            session: parent.fork(),
        };
        child
            .session
            .rollback(snapshot)
            .map_err(|e| DispatchSubagentError::Snapshot(e.to_string()))?;
        child.session.set_tag(SUBAGENT_DEPTH_TAG, depth.to_string());
        if let Some(hydrate) = hydrator {
            hydrate(&child.session, snapshot).map_err(DispatchSubagentError::Snapshot)?;
        }
        Ok(child)
    }
}

impl Drop for ChildSession {
    fn drop(&mut self) {
        let _ = self.session.detach_journal();
        let _ = self.session.reset();
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Meter {
    calls: u32,
    usage: TokenUsage,
}

/// Counts the child's own model calls and tokens (the budget tracker may be shared).
#[derive(Debug)]
struct MeteredAdapter {
    inner: Arc<dyn ProviderAdapter>,
    meter: Mutex<Meter>,
}

impl MeteredAdapter {
    fn meter(&self) -> Meter {
        *self.meter.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ProviderAdapter for MeteredAdapter {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn model(&self) -> &str {
        self.inner.model()
    }
    fn supports_dynamic_tools(&self) -> bool {
        self.inner.supports_dynamic_tools()
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        self.meter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .calls += 1;
        let call = self.inner.complete(request, stream);
        Box::pin(async move {
            let turn = call.await?;
            if let Some(u) = &turn.usage {
                let mut meter = self.meter.lock().unwrap_or_else(PoisonError::into_inner);
                meter.usage.input_tokens += u.input_tokens;
                meter.usage.output_tokens += u.output_tokens;
                meter.usage.cached_tokens += u.cached_tokens;
            }
            Ok(turn)
        })
    }
}

/// Polls a future, turning a panic during a poll into an error (the future is not polled again).
struct CatchUnwind<F> {
    future: Pin<Box<F>>,
}

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = self.get_mut().future.as_mut();
        match catch_unwind(AssertUnwindSafe(move || future.poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-text payload".to_owned()
    }
}

/// The child's first user message: the task, plan metadata and expected artifacts.
fn task_message(request: &DispatchSubagent, preamble: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(p) = preamble.map(str::trim).filter(|p| !p.is_empty()) {
        out.push_str(p);
        out.push_str("\n\n");
    }
    match &request.plan_step_id {
        Some(step) => out.push_str(&format!("Task from the parent agent (plan step {step}):")),
        None => out.push_str("Task from the parent agent:"),
    }
    out.push_str("\n\n");
    out.push_str(&request.instructions);
    if !request.expected_artifacts.is_empty() {
        out.push_str("\n\nExpected artifacts:");
        for artifact in &request.expected_artifacts {
            out.push_str("\n- ");
            out.push_str(artifact);
        }
    }
    out.push_str("\n\n");
    out.push_str(CHILD_FOOTER);
    out
}

/// `template` with the suite sections it lacks appended (by root key).
fn compose(template: &PromptTemplate, extra: &[SectionRef]) -> Result<PromptTemplate, PromptError> {
    let roots: Vec<&wink_core::SectionNode> =
        template.nodes().iter().filter(|n| n.depth == 0).collect();
    let mut seen: BTreeSet<String> = roots.iter().map(|n| n.key.clone()).collect();
    let mut missing: Vec<SectionRef> = Vec::new();
    for section in extra {
        let key = normalize_section_key(section.key())?;
        if seen.insert(key) {
            missing.push(Arc::clone(section));
        }
    }
    if missing.is_empty() {
        return Ok(template.clone());
    }
    let mut builder =
        PromptTemplate::builder(template.ns(), template.key()).disclosure(template.disclosure());
    if let Some(name) = template.name() {
        builder = builder.name(name);
    }
    if let Some(output) = template.output() {
        builder = builder.output(output.clone());
    }
    for node in roots {
        builder = builder.section_ref(Arc::clone(&node.section));
    }
    for section in missing {
        builder = builder.section_ref(section);
    }
    builder.build()
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    let item = item.trim();
    if !item.is_empty() && !list.iter().any(|i| i == item) {
        list.push(item.to_owned());
    }
}

/// Whether a tool name reads like a file-writing tool (`write_file`, `fs.edit_file`, ...).
fn writes_files(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    ["write_file", "edit_file", "create_file", "append_file"]
        .iter()
        .any(|w| last.contains(w))
}

struct ChildReport {
    tools_used: Vec<String>,
    tool_calls: u32,
    artifacts: Vec<String>,
}

fn collect_report(child: &Session, invoked_before: usize, artifacts_before: usize) -> ChildReport {
    let mut report = ChildReport {
        tools_used: Vec::new(),
        tool_calls: 0,
        artifacts: Vec::new(),
    };
    for invoked in child.slice::<ToolInvoked>().iter().skip(invoked_before) {
        report.tool_calls += 1;
        push_unique(&mut report.tools_used, &invoked.name);
        if invoked.success && writes_files(&invoked.name) {
            let path = invoked
                .value
                .as_ref()
                .and_then(|v| v.get("path"))
                .or_else(|| invoked.params.get("file_path"))
                .or_else(|| invoked.params.get("path"))
                .and_then(Value::as_str);
            if let Some(path) = path {
                push_unique(&mut report.artifacts, path);
            }
        }
    }
    for recorded in child
        .slice::<SubagentArtifact>()
        .iter()
        .skip(artifacts_before)
    {
        push_unique(&mut report.artifacts, &recorded.artifact);
    }
    report
}

/// The summary of a finished child: its text, else a `message_summary` / `summary` field of its
/// structured output, else the output itself.
fn summarize(text: Option<&str>, output: Option<&Value>) -> String {
    if let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) {
        return text.to_owned();
    }
    if let Some(output) = output {
        for field in ["message_summary", "summary"] {
            if let Some(s) = output
                .get(field)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                return s.to_owned();
            }
        }
        let rendered = render_json_payload(output);
        if !rendered.is_empty() {
            return rendered;
        }
    }
    "The subagent finished without a message.".to_owned()
}

async fn dispatch(
    shared: Arc<Shared>,
    request: DispatchSubagent,
    ctx: ToolContext,
) -> Result<DispatchSubagentResult, DispatchSubagentError> {
    let depth = subagent_depth(&ctx.session);
    let request = shared.validate(request, depth)?;
    let mut recorder = RunRecorder::start(&ctx.telemetry, &request, ctx.call_id.clone());
    let result = run_child(&shared, &request, &ctx, depth, &mut recorder).await;
    match &result {
        Ok(done) => recorder.finish(
            SubagentOutcome::Completed,
            Some(done.message_summary.clone()),
        ),
        Err(error) if error.is_downstream() => recorder.finish(
            SubagentOutcome::Aborted {
                message: error.to_string(),
            },
            None,
        ),
        Err(error) => recorder.finish(
            SubagentOutcome::Failed {
                message: error.to_string(),
            },
            None,
        ),
    }
    result
}

async fn run_child(
    shared: &Arc<Shared>,
    request: &DispatchSubagent,
    ctx: &ToolContext,
    depth: u32,
    recorder: &mut RunRecorder,
) -> Result<DispatchSubagentResult, DispatchSubagentError> {
    let (ns, key) = (request.prompt_ns.clone(), request.prompt_key.clone());
    let unavailable = |message: String| DispatchSubagentError::PromptUnavailable {
        ns: ns.clone(),
        key: key.clone(),
        message,
    };
    // Prompt lookup and composition.
    let source = shared
        .registry
        .get(&ns, &key)
        .ok_or_else(|| unavailable("it is no longer registered".to_owned()))?;
    let child_prompt = source
        .child_prompt(request)
        .map_err(|e| unavailable(e.to_string()))?;
    let mut extra = shared.suite.clone();
    if depth + 1 < shared.max_depth {
        let nested = PromptSubagentToolsSection::from_shared(Arc::clone(shared))
            .map_err(|e| unavailable(e.to_string()))?;
        extra.push(Arc::new(nested));
    }
    let template =
        compose(child_prompt.template(), &extra).map_err(|e| unavailable(e.to_string()))?;
    let prompt = child_prompt
        .into_prompt(template)
        .map_err(|e| unavailable(e.to_string()))?;
    // Adapter and budget.
    let adapter = ctx
        .resource::<SubagentAdapter>()
        .map(|a| Arc::clone(&a.0))
        .or_else(|| ctx.resource::<Arc<dyn ProviderAdapter>>().cloned())
        .ok_or_else(|| {
            DispatchSubagentError::NotConfigured(
                "the tool resources hold no provider adapter (add an Arc<dyn ProviderAdapter> or a SubagentAdapter).".to_owned(),
            )
        })?;
    let budget = ctx.resource::<BudgetTracker>().cloned().unwrap_or_else(|| {
        let mut budget = shared.child_budget;
        budget.deadline = budget.deadline.or(ctx.deadline);
        BudgetTracker::new(budget)
    });
    // Snapshot, fork, hydrate.
    let snapshot = ctx.session.snapshot();
    let child = ChildSession::spawn(&ctx.session, &snapshot, depth + 1, shared.hydrator.as_ref())?;
    recorder.update(|r| r.child_session_id = Some(child.session.id()));
    let invoked_before = child.session.slice::<ToolInvoked>().len();
    let artifacts_before = child.session.slice::<SubagentArtifact>().len();
    // Run.
    let metered = MeteredAdapter {
        inner: adapter,
        meter: Mutex::new(Meter::default()),
    };
    let loop_config = LoopConfig {
        user_message: Some(task_message(
            request,
            shared.loop_config.user_message.as_deref(),
        )),
        ..shared.loop_config.clone()
    };
    let config = MainLoopConfig {
        loop_config,
        budget: *budget.budget(),
        resources: ctx.resources.clone(),
        max_expansions: shared.max_expansions,
        policy: shared.policy,
        derive_input_budget: false,
    };
    let run = {
        let main_loop = MainLoop::new(&metered, config);
        CatchUnwind {
            future: Box::pin(main_loop.execute_with(
                &prompt,
                &child.session,
                budget,
                RunHooks::default(),
            )),
        }
        .await
    };
    // Collect, then tear the child down.
    let meter = metered.meter();
    let report = collect_report(&child.session, invoked_before, artifacts_before);
    drop(child);
    recorder.update(|r| {
        r.model_calls = meter.calls;
        r.usage = meter.usage;
        r.tool_calls = report.tool_calls;
        r.tools_used = report.tools_used.clone();
        r.artifacts = report.artifacts.clone();
    });
    let run = match run {
        Err(panic) => return Err(DispatchSubagentError::Panicked(panic)),
        Ok(Err(render_error)) => return Err(unavailable(render_error.to_string())),
        Ok(Ok(run)) => run,
    };
    // A terminal tool's result is the child's answer.
    let outcome = match run.outcome {
        LoopOutcome::Terminated { content, .. } => LoopOutcome::Finished {
            text: Some(content),
            output: None,
        },
        other => other,
    };
    match outcome {
        LoopOutcome::Finished { text, output } => {
            let mut artifacts = report.artifacts;
            if let Some(listed) = output
                .as_ref()
                .and_then(|o| o.get("artifacts"))
                .and_then(Value::as_array)
            {
                for item in listed {
                    match item {
                        Value::String(s) => push_unique(&mut artifacts, s),
                        other => push_unique(&mut artifacts, &python_json(other)),
                    }
                }
            }
            recorder.update(|r| r.artifacts = artifacts.clone());
            Ok(DispatchSubagentResult {
                prompt_ns: ns,
                prompt_key: key,
                message_summary: summarize(text.as_deref(), output.as_ref()),
                artifacts,
                tools_used: report.tools_used,
                output,
            })
        }
        LoopOutcome::BudgetExceeded { limit } => Err(DispatchSubagentError::BudgetExhausted(limit)),
        LoopOutcome::Failed { message, phase } => {
            Err(DispatchSubagentError::from_outcome(message, phase))
        }
        LoopOutcome::ExpansionRequired { reason, .. } => Err(DispatchSubagentError::Failed(
            format!("the child stopped on an expansion request: {reason}"),
        )),
        LoopOutcome::Terminated { name, .. } => Err(DispatchSubagentError::Failed(format!(
            "the child ended on the terminal tool '{name}'"
        ))),
    }
}

// endregion: --- execution

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wink_core::MarkdownSection;

    fn template(ns: &str, key: &str) -> Arc<PromptTemplate> {
        Arc::new(
            PromptTemplate::builder(ns, key)
                .section(MarkdownSection::new("Role", "role", "Investigate."))
                .build()
                .unwrap(),
        )
    }

    fn shared(registry: PromptRegistry) -> Shared {
        PromptSubagentToolsSection::builder(registry).shared
    }

    #[test]
    fn registry_registers_enables_disables_and_gets() {
        let registry = PromptRegistry::new();
        registry
            .register(template("research", "investigate"))
            .unwrap();
        assert_eq!(
            registry.register(template("research", "investigate")),
            Err(PromptRegistryError::Duplicate {
                ns: "research".into(),
                key: "investigate".into()
            })
        );
        registry
            .register_factory("research", "bound", "Bound task", |_: &DispatchSubagent| {
                Ok(ChildPrompt::new(template("research", "bound")))
            })
            .unwrap();
        assert!(registry.is_enabled(" research ", "investigate"));
        registry.disable("research", "investigate").unwrap();
        assert!(!registry.is_enabled("research", "investigate"));
        assert!(matches!(
            registry.get("research", "investigate"),
            Some(PromptSource::Template(_))
        ));
        assert!(matches!(
            registry.get("research", "bound"),
            Some(PromptSource::Factory(_))
        ));
        assert_eq!(
            registry.enabled_keys(),
            [("research".to_owned(), "bound".to_owned())]
        );
        assert_eq!(registry.keys().len(), 2);
        registry.enable("research", "investigate").unwrap();
        assert_eq!(registry.enabled_keys().len(), 2);
        assert_eq!(
            registry.enable("x", "y").unwrap_err().to_string(),
            "No subagent prompt is registered as 'x:y'."
        );
        assert_eq!(
            registry.disable(" ", "y"),
            Err(PromptRegistryError::EmptyKey)
        );
        assert!(registry.get("nope", "nope").is_none());
    }

    #[test]
    fn validation_trims_and_reports_every_problem() {
        let registry = PromptRegistry::new();
        registry
            .register(template("research", "investigate"))
            .unwrap();
        let shared = shared(registry);
        let ok = shared
            .validate(
                DispatchSubagent::plan_step(" research ", "investigate", " s1 ", "  do it  ")
                    .expecting([" a.md "]),
                0,
            )
            .unwrap();
        assert_eq!(ok.instructions, "do it");
        assert_eq!(ok.expected_artifacts, ["a.md"]);
        assert_eq!(ok.plan_step_id.as_deref(), Some("s1"));
        assert_eq!(ok.prompt_ns, "research");

        let mut bad = DispatchSubagent::ad_hoc("research", "nope", "   ").expecting([
            "",
            "caf\u{e9}",
            &"x".repeat(161),
        ]);
        bad.mode = SubagentMode::PlanStep;
        bad.snapshot_version = Some("0".into());
        let error = shared.validate(bad, 1).unwrap_err();
        assert_eq!(
            error,
            DispatchSubagentError::Invalid(
                "instructions must not be empty. \
                 expected_artifacts[0] must not be empty. \
                 expected_artifacts[1] must be ASCII text (non-ASCII character at position 3). \
                 expected_artifacts[2] must be at most 160 characters (got 161). \
                 plan_step_id is required when mode is \"plan_step\". \
                 snapshot_version \"0\" is not compatible with this session (snapshot version \"1\"). \
                 Unknown subagent prompt 'research:nope'. Enabled prompts: 'research:investigate'. \
                 Subagents cannot dispatch further subagents (nesting limit 1 reached)."
                    .into()
            )
        );
    }

    #[test]
    fn summary_prefers_text_then_summary_fields_then_output() {
        assert_eq!(summarize(Some("  done "), None), "done");
        assert_eq!(
            summarize(None, Some(&json!({"summary": "found it", "x": 1}))),
            "found it"
        );
        assert_eq!(
            summarize(
                None,
                Some(&json!({"message_summary": "ms", "summary": "s"}))
            ),
            "ms"
        );
        assert_eq!(summarize(None, Some(&json!({"x": 1}))), "{\"x\": 1}");
        assert_eq!(
            summarize(Some(" "), None),
            "The subagent finished without a message."
        );
    }

    #[test]
    fn file_writing_tools_are_recognised() {
        assert!(writes_files("write_file"));
        assert!(writes_files("fs.write_file"));
        assert!(writes_files("vfs_edit_file"));
        assert!(!writes_files("read_file"));
        assert!(!writes_files("write_file.read"));
    }

    #[test]
    fn task_message_carries_instructions_plan_step_and_artifacts() {
        let request =
            DispatchSubagent::plan_step("r", "i", "s2", "Find X.").expecting(["x.md", "notes"]);
        assert_eq!(
            task_message(&request, Some("Be brief.")),
            format!(
                "Be brief.\n\nTask from the parent agent (plan step s2):\n\nFind X.\n\nExpected artifacts:\n- x.md\n- notes\n\n{CHILD_FOOTER}"
            )
        );
        assert_eq!(
            task_message(&DispatchSubagent::ad_hoc("r", "i", "Go."), None),
            format!("Task from the parent agent:\n\nGo.\n\n{CHILD_FOOTER}")
        );
    }

    #[test]
    fn result_renders_artifacts_tools_and_distinct_output() {
        let mut result = DispatchSubagentResult {
            prompt_ns: "r".into(),
            prompt_key: "i".into(),
            message_summary: "done".into(),
            artifacts: vec!["a.md".into()],
            tools_used: vec!["grep".into(), "write_file".into()],
            output: Some(json!({"summary": "done", "n": 2})),
        };
        assert_eq!(
            result.render_payload(),
            "Output: {\"summary\": \"done\", \"n\": 2}\nArtifacts: a.md\nTools used: grep, write_file"
        );
        result.output = None;
        result.artifacts.clear();
        result.tools_used.clear();
        assert_eq!(result.render_payload(), "");
    }

    #[test]
    fn error_messages_split_setup_from_downstream() {
        assert_eq!(
            DispatchSubagentError::Model("boom".into()).tool_message(),
            "Subagent run aborted: the model call failed: boom"
        );
        assert_eq!(
            DispatchSubagentError::BudgetExhausted(BudgetLimit::ModelCalls).tool_message(),
            "Subagent run aborted: the budget ran out (max model calls)"
        );
        assert_eq!(
            DispatchSubagentError::Snapshot("bad".into()).tool_message(),
            "Subagent session could not be hydrated from the parent snapshot: bad"
        );
        assert!(!DispatchSubagentError::Invalid("x".into()).is_downstream());
    }
}
