//! # wink-agent
//!
//! The agent loop:
//! - the model contract, re-exported from `wink-model`: [`Message`], [`ModelRequest`],
//!   [`ModelTurn`] and the [`ProviderAdapter`] trait that provider crates implement;
//! - [`InnerLoop`], a sans-IO, serialisable state machine (model turn in → "call the model" /
//!   "run these tools" / "done" out);
//! - [`evaluate`] / [`resume`] and the step-wise [`Driver`], the async driver that runs it
//!   against an adapter and the transactional [`wink_core::ToolExecutor`], injecting tools
//!   disclosed by `read_section` (or asking for a restart when the adapter cannot take tools
//!   mid-conversation) and racing every model call against the run's wall-clock deadline;
//! - [`MainLoop`], which restarts evaluations on expansion requests with an eager,
//!   conservative or batched policy under one budget;
//! - [`Agent`], which owns an adapter, a budget and a session: `agent.run(&prompt)`, with
//!   sub-agents inheriting the adapter and the budget;
//! - [`Mailbox`] / [`InMemoryMailbox`] to run the loop as a worker;
//! - [`ScriptedProvider`], the test double.
//!
//! ```
//! use wink_agent::{MainLoop, MainLoopConfig, RunHooks, ScriptedProvider, LoopOutcome};
//! use wink_core::{block_on, MarkdownSection, Prompt, PromptTemplate};
//! use wink_session::Session;
//!
//! let template = PromptTemplate::builder("demo", "hello")
//!     .section(MarkdownSection::new("Task", "task", "Say hello."))
//!     .build()
//!     .unwrap();
//! let provider = ScriptedProvider::from_json(r#"[{"text": "Hello!"}]"#, "inline").unwrap();
//! let main_loop = MainLoop::new(&provider, MainLoopConfig::default());
//! let result = block_on(main_loop.execute(&Prompt::new(template), &Session::new(), RunHooks::default())).unwrap();
//! assert_eq!(result.outcome, LoopOutcome::Finished { text: Some("Hello!".into()), output: None });
//! ```

mod agent;
mod budget;
mod budgeted;
mod driver;
mod example;
mod guard;
mod inner;
mod mailbox;
mod main_loop;
mod metrics;
pub mod preopen;
pub mod run_hook;
mod scripted;
mod subagent;
mod timer;
pub mod turn_policy;

/// Model profiles (`wink-model`): what a model family needs from a run.
pub use wink_model::profile;

pub use agent::Agent;
pub use budget::{
    Budget, BudgetLimit, BudgetTracker, DEFAULT_OUTPUT_RESERVE, MeasuredRequest, Spent,
    estimate_request_tokens, estimate_request_tokens_after,
};
pub use budgeted::BudgetedAdapter;
pub use driver::{
    Driver, EvaluateOptions, Evaluation, ExpansionDecider, ExpansionDecision, ModelCallRecord,
    RunObserver, evaluate, resume,
};
pub use example::{
    ValueSources, copied_example, copied_example_message, unseen_code, unseen_code_message,
};
pub use guard::{
    ANSWER_ONLY_AFTER, Intervention, InterventionKind, Repetition, RepetitionGuard,
    SAME_RESULT_RUNS, arguments_value, repeated_call_note, repeated_failure_note,
    unknown_tool_message,
};
pub use inner::{
    InjectedTool, Injection, InnerLoop, LoopConfig, LoopOutcome, ProviderFailure, Repair, Step,
    ToolOutcome, TurnEffects, TurnSettings, VisibilityExpansionRequiredData,
};
pub use mailbox::{
    AsyncMailbox, Deliveries, Delivery, InMemoryMailbox, Mailbox, MailboxError, MailboxFuture,
    Receipt,
};
pub use main_loop::{
    DEFAULT_MAX_INPUT_TOKENS, DEFAULT_MAX_MODEL_CALLS, ExpansionPolicy,
    INPUT_TOKENS_PER_CONTEXT_WINDOW, MainLoop, MainLoopConfig, RunHooks, RunOutputError, RunResult,
    WorkerOptions, WorkerResult, default_max_input_tokens, dispatch_expansion, too_many_expansions,
};
pub use metrics::{MetricsSnapshot, metrics};
pub use run_hook::on_run_start;
pub use scripted::{ScriptError, ScriptedProvider};
pub use subagent::{
    ChildPrompt, DISPATCH_SUBAGENT, DispatchSubagent, DispatchSubagentError,
    DispatchSubagentResult, MAX_ARTIFACT_CHARS, MAX_INSTRUCTIONS_CHARS, PromptFactory,
    PromptRegistry, PromptRegistryError, PromptSource, PromptSubagentToolsSection,
    PromptSubagentToolsSectionBuilder, SUBAGENT_DEPTH_TAG, SubagentAdapter, SubagentArtifact,
    SubagentEvent, SubagentMode, SubagentOutcome, SubagentRun, subagent_depth,
};
pub use wink_model::{
    DeferredTool, FinishReason, Message, ModelRequest, ModelTurn, StreamDelta, ToolAddition,
    ToolChoice, ToolImage, ToolSpec, tool_images,
};
pub use wink_model::{
    ProviderAdapter, ProviderError, ProviderErrorKind, ProviderFuture, StreamSink,
};
