//! The section exposing `dispatch_subagent`, its builder and the nesting depth.

use std::fmt;
use std::sync::Arc;

use wink_core::{
    ParamsValue, PromptError, Section, SectionRef, SectionVisibility, SelectorInput, ToolBuilder,
    ToolContext, ToolError, ToolRef, ToolResult,
};
use wink_session::{Session, Snapshot};

use super::run::dispatch;
use super::{
    DISPATCH_SUBAGENT, DispatchSubagent, DispatchSubagentError, DispatchSubagentResult,
    PromptRegistry, SUBAGENT_DEPTH_TAG,
};
use crate::budget::Budget;
use crate::inner::LoopConfig;
use crate::main_loop::{ExpansionPolicy, MainLoopConfig};
use wink_model::ProviderAdapter;

const TOOL_DESCRIPTION: &str = "Run an isolated subagent on a self-contained task. It starts from a copy of the session state, has the same tools, and returns only a summary, artifacts and tools used.";

const GUIDANCE: &str = "Use `dispatch_subagent` to hand a self-contained piece of work to a subagent. The subagent starts from a copy of the current session state, has the same tools, runs on its own and returns only a short summary, the artifacts it produced and the names of the tools it used. Its conversation never enters yours.

Dispatch when:
- a plan step needs deep investigation (many reads, searches or trial edits) whose details you will not need afterwards;
- this conversation is getting long and the remaining work can be described on its own.

Work directly instead when one or two tool calls will do, or when the task depends on details only this conversation holds: the subagent sees your instructions, not this conversation.

Write instructions that stand alone: the goal, the files, names or facts to start from, the constraints, and what to report. Use mode \"plan_step\" with plan_step_id for a step of your plan and \"ad_hoc\" otherwise; list in expected_artifacts the deliverables you need back (file paths, findings). Several dispatches in one turn run in parallel and share this run's budget.";

/// Resource: the adapter children use instead of the `Arc<dyn ProviderAdapter>` resource (for
/// example a cheaper model for subagents).
#[derive(Debug, Clone)]
pub struct SubagentAdapter(pub Arc<dyn ProviderAdapter>);

pub(super) type Hydrator = dyn Fn(&Session, &Snapshot) -> Result<(), String> + Send + Sync;

pub(super) struct Shared {
    pub(super) registry: PromptRegistry,
    pub(super) suite: Vec<SectionRef>,
    pub(super) loop_config: LoopConfig,
    pub(super) child_budget: Budget,
    pub(super) max_expansions: u32,
    pub(super) policy: ExpansionPolicy,
    pub(super) max_depth: u32,
    pub(super) hydrator: Option<Arc<Hydrator>>,
}

/// Builder for [`PromptSubagentToolsSection`].
pub struct PromptSubagentToolsSectionBuilder {
    pub(super) shared: Shared,
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

    pub(super) fn from_shared(shared: Arc<Shared>) -> Result<Self, PromptError> {
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
