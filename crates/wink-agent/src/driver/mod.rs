//! The async driver: runs an [`InnerLoop`] against a [`ProviderAdapter`] and a
//! [`wink_core::ToolExecutor`], publishing session events on the way.
//!
//! - this file: the options, callbacks and result of one evaluation, [`evaluate`] and [`resume`];
//! - `step`: the [`Driver`], one model call or one turn of tool calls per step;
//! - `failure`: a provider error as the loop's failure (message, phase, provider context);
//! - `tools`: running one turn's tool calls (batches, terminal tools, restart requests);
//! - `injection`: publishing tools that `read_section` disclosed.

mod failure;
mod held;
mod injection;
mod step;
mod telemetry;
mod tools;

use serde::{Deserialize, Serialize};
use wink_core::{
    RenderedPrompt, Resources, SectionPath, SectionVisibility, ToolCall,
    VisibilityExpansionRequired,
};
use wink_session::{Session, Timestamp, TokenUsage};

use crate::budget::BudgetTracker;
use crate::guard::Intervention;
use crate::inner::{InnerLoop, LoopConfig, LoopOutcome};
use wink_model::{Message, ModelTurn, ProviderAdapter, StreamSink, ToolSpec};

pub use step::Driver;

/// One model call as the transcript records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCallRecord {
    /// The messages sent.
    pub messages: Vec<Message>,
    /// Names of the tools offered.
    pub tools: Vec<String>,
    /// Token usage the provider reported for the call (`None` when it reported none or the
    /// call failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// What the model answered: its text and tool calls as the adapter returned them, before
    /// the loop acted on them (`None` when the call failed or ran out of time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<ModelTurn>,
    /// When the request was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Timestamp>,
    /// When the call returned (`None` while it runs, or when the deadline cut it off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Timestamp>,
}

/// Progress callbacks (the CLI prints them to stderr).
pub trait RunObserver: Send + Sync {
    /// A model call is about to start.
    fn on_model_call(&self, index: u32, messages: usize, tools: &[ToolSpec]) {
        let _ = (index, messages, tools);
    }
    /// A model call returned.
    fn on_model_turn(&self, turn: &ModelTurn) {
        let _ = turn;
    }
    /// A tool call finished.
    fn on_tool_result(&self, call: &ToolCall, content: &str, is_error: bool) {
        let _ = (call, content, is_error);
    }
    /// Tools were injected into the conversation.
    fn on_tools_injected(&self, section: &str, tools: &[String]) {
        let _ = (section, tools);
    }
    /// The main loop restarts the evaluation with these sections (dotted paths) expanded.
    fn on_restart(&self, sections: &[String]) {
        let _ = sections;
    }
    /// A turn policy took the model's turn back (or rewrote its answer).
    fn on_turn_repaired(&self, repair: &crate::inner::Repair) {
        let _ = repair;
    }
    /// The loop stepped in (a repeated call, an answer-only call, an unknown tool, an
    /// auto-opened section, a request too large for the context window).
    fn on_intervention(&self, intervention: &Intervention) {
        let _ = intervention;
    }
}

/// What to do with a terminal expansion request (see `main_loop::ExpansionPolicy`).
#[derive(Debug, Clone, PartialEq)]
pub enum ExpansionDecision {
    /// Restart with these overrides.
    Restart(Vec<(SectionPath, SectionVisibility)>),
    /// Do not restart yet: answer the call with this text and continue.
    Defer(String),
}

/// Decides on expansion requests.
pub trait ExpansionDecider: Send {
    /// Decide on `request`.
    fn decide(&mut self, request: &VisibilityExpansionRequired) -> ExpansionDecision;

    /// Decide on `request`, made by a call of `tool` (`open_sections`, or `read_section` on the
    /// restart path); the default ignores the tool.
    fn decide_for(
        &mut self,
        tool: &str,
        request: &VisibilityExpansionRequired,
    ) -> ExpansionDecision {
        let _ = tool;
        self.decide(request)
    }

    /// The sections requested but held back so far (a batched policy's batch), in the order
    /// asked: a durable run checkpoints them so a takeover goes on with the same batch.
    fn held(&self) -> Vec<SectionPath> {
        Vec::new()
    }

    /// Take `sections` as held back already (restoring a checkpoint); the default ignores them.
    fn hold(&mut self, sections: Vec<SectionPath>) {
        let _ = sections;
    }
}

/// Options for one evaluation.
#[derive(Default)]
#[allow(missing_debug_implementations)]
pub struct EvaluateOptions<'a> {
    /// Loop settings.
    pub config: LoopConfig,
    /// The budget (shared with other evaluations of the same run).
    pub budget: BudgetTracker,
    /// Resources for tools (e.g. an `Arc<dyn wink_fs::Filesystem>`).
    pub resources: Resources,
    /// Receives streamed fragments.
    pub stream: Option<&'a dyn StreamSink>,
    /// Receives progress.
    pub observer: Option<&'a dyn RunObserver>,
    /// Decides on terminal expansion requests (default: restart with what was asked).
    pub decider: Option<&'a mut dyn ExpansionDecider>,
    /// Tool calls to run before the first model call: the turn that auto-opened sections before
    /// a restart ([`InnerLoop::replay_calls`]).
    pub replay: Vec<ToolCall>,
}

/// The result of one evaluation.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// How it ended.
    pub outcome: LoopOutcome,
    /// Every model call made, with the messages and tools it was shown.
    pub model_calls: Vec<ModelCallRecord>,
    /// The final loop state (serialize it to resume or inspect).
    pub state: InnerLoop,
}

/// Evaluate `rendered` from the start.
pub async fn evaluate(
    rendered: &RenderedPrompt,
    session: &Session,
    adapter: &dyn ProviderAdapter,
    options: EvaluateOptions<'_>,
) -> Evaluation {
    Driver::start(rendered, session, adapter, options)
        .run()
        .await
}

/// Continue a saved evaluation (`state` from [`Evaluation::state`], [`Driver::into_state`] or a
/// deserialized loop) against the same rendered prompt.
pub async fn resume(
    state: InnerLoop,
    rendered: &RenderedPrompt,
    session: &Session,
    adapter: &dyn ProviderAdapter,
    options: EvaluateOptions<'_>,
) -> Evaluation {
    Driver::resume(state, rendered, session, adapter, options)
        .run()
        .await
}
