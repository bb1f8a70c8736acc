//! The sans-IO inner loop: a serialisable state machine fed with model turns and tool
//! outcomes, producing the next step — call the model with these messages and tools, run
//! these tool calls, or done. It never performs I/O; [`crate::driver`] runs it.
//!
//! Invariants: the rendered prompt is the first (system) message and the conversation only
//! grows at its end; the tool set offered to a model call is frozen for that call and the
//! model's calls are checked against it; tool results are appended in call order.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_core::{
    DisclosureMode, EvaluationPhase, OutputSpec, PromptEvaluationError, RenderedPrompt,
    SectionPath, ToolCall, VisibilityExpansionRequired,
};

use crate::budget::BudgetLimit;
use crate::guard::{Intervention, InterventionKind, RepetitionGuard};
use screen::owner_ranges;
use wink_model::{
    DeferredTool, Message, ModelRequest, ModelTurn, ToolAddition, ToolChoice, ToolImage, ToolSpec,
};

mod names;
mod outcomes;
mod screen;
mod turn;

pub use turn::{Repair, TurnSettings};

/// Loop settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoopConfig {
    /// Inject tools disclosed by `read_section` into the running conversation (seed 003) when
    /// the adapter supports it (default true); otherwise such a disclosure ends the evaluation
    /// with a restart request.
    pub supports_dynamic_tools: bool,
    /// Cap on output tokens per model call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Extra user message appended after the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message: Option<String>,
    /// A call of a tool that hides in a summarized section opens that section (as `read_section`
    /// would: injected when the adapter takes tools mid-conversation, else by a restart that
    /// replays the call) and runs the call (default true; never in `wink` mode).
    #[serde(default = "default_true")]
    pub auto_open_hidden_tools: bool,
    /// The repetition guard (see [`crate::RepetitionGuard`]): on unless `Some(false)`, in every
    /// disclosure mode. WINK v0.17 has none (its loop runs a repeated call again until a budget
    /// stops it); `Some(false)` restores that, conversation for conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetition_guard: Option<bool>,
    /// The copied-example guard (see [`crate::copied_example`]): a call whose argument is the
    /// example from the tool's description, found nowhere in the conversation, gets a failed
    /// result instead of running. On outside `wink` mode unless `Some(false)`; `Some(true)` turns
    /// it on in `wink` mode too (WINK v0.17 has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example_guard: Option<bool>,
    /// The model's context window in tokens, overriding what the adapter reports
    /// ([`crate::ProviderAdapter::context_window`]); the driver never sends a request that
    /// cannot fit it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// The model profile to run with, by name ([`wink_model::profile`]); `None`: the one the
    /// adapter chooses ([`crate::ProviderAdapter::profile`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Turn policies switched on (`true`) or off (`false`) over the profile's
    /// ([`crate::turn_policy`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub repairs: BTreeMap<String, bool>,
    /// Offer the answer tool (`final_answer`) or not, whatever the profile says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_tool: Option<bool>,
}

fn default_true() -> bool {
    true
}

impl Default for LoopConfig {
    fn default() -> Self {
        Self {
            supports_dynamic_tools: true,
            max_output_tokens: None,
            temperature: None,
            user_message: None,
            auto_open_hidden_tools: true,
            repetition_guard: None,
            example_guard: None,
            context_window: None,
            profile: None,
            repairs: BTreeMap::new(),
            answer_tool: None,
        }
    }
}

impl LoopConfig {
    /// The run's profile (the one named by `profile`, else the adapter's `profile`) fills in
    /// what the run leaves unset: the cap on a turn's output and, for a greedy profile,
    /// temperature 0.
    pub fn apply_profile_defaults(&mut self, profile: &'static wink_model::profile::ModelProfile) {
        let profile = self
            .profile
            .as_deref()
            .and_then(|name| wink_model::profile::profile_named(name).ok())
            .unwrap_or(profile);
        if self.max_output_tokens.is_none() {
            self.max_output_tokens = profile.turn_output_cap;
        }
        if self.temperature.is_none() && profile.greedy {
            self.temperature = Some(0.0);
        }
    }

    /// The turn settings for a model whose adapter chose `profile`, with this config's
    /// overrides.
    #[must_use]
    pub fn turn_settings(
        &self,
        profile: &'static wink_model::profile::ModelProfile,
    ) -> TurnSettings {
        TurnSettings::resolve(
            profile,
            self.profile.as_deref(),
            &self.repairs,
            self.answer_tool,
        )
    }
}

/// What a model turn (or a replayed turn) asks the driver to announce: tools injected by
/// auto-opened sections, and the loop's interventions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnEffects {
    /// Sections opened by calls of the tools they hid (dynamic path).
    pub injections: Vec<Injection>,
    /// What the loop did instead of running the turn as asked.
    pub interventions: Vec<Intervention>,
    /// A turn policy took the turn back (or rewrote its answer).
    pub repairs: Vec<Repair>,
}

/// A tool injected mid-conversation, with the section that owns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InjectedTool {
    /// The spec offered from the next model call on.
    pub spec: ToolSpec,
    /// The section it belongs to.
    pub section: SectionPath,
    /// Index of the message after which it became available (the disclosing tool result); set
    /// by the loop when it injects the tool.
    #[serde(default)]
    pub after_message: usize,
    /// Dotted key of the section whose reading disclosed it; set by the loop when it injects.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub disclosed_by: String,
}

/// How an evaluation ended.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum LoopOutcome {
    /// The model answered.
    Finished {
        /// The answer text (`None` when structured output was parsed, as WINK does).
        text: Option<String>,
        /// The parsed structured output.
        output: Option<Value>,
    },
    /// The evaluation must restart with these sections expanded.
    ExpansionRequired {
        /// Sections and visibility to apply.
        requested_overrides: Vec<(SectionPath, wink_core::SectionVisibility)>,
        /// Keys as requested.
        section_keys: Vec<String>,
        /// Why.
        reason: String,
    },
    /// A call of a terminal tool (`ToolBuilder::terminal`) succeeded: it ended the evaluation
    /// (the calls after it in its turn were not run).
    Terminated {
        /// The terminal tool.
        name: String,
        /// Its result as the model saw it.
        content: String,
        /// Its structured value, when it returned one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<Value>,
    },
    /// A budget limit ran out (the transcript so far is kept).
    BudgetExceeded {
        /// Which one.
        limit: BudgetLimit,
    },
    /// The evaluation failed.
    Failed {
        /// What happened.
        message: String,
        /// Where.
        phase: EvaluationPhase,
    },
}

impl LoopOutcome {
    /// One line saying how the evaluation ended, for errors and logs.
    pub fn summary(&self) -> String {
        match self {
            Self::Finished { .. } => "finished".to_owned(),
            Self::ExpansionRequired {
                section_keys,
                reason,
                ..
            } => format!(
                "expansion required for [{}]: {reason}",
                section_keys.join(", ")
            ),
            Self::Terminated { name, .. } => format!("ended by the terminal tool '{name}'"),
            Self::BudgetExceeded { limit } => format!("budget exceeded ({limit})"),
            Self::Failed { message, phase } => format!("failed ({phase} phase): {message}"),
        }
    }

    /// The restart request as WINK's error type.
    pub fn expansion(&self) -> Option<VisibilityExpansionRequired> {
        match self {
            Self::ExpansionRequired {
                requested_overrides,
                section_keys,
                reason,
            } => {
                let mut e = VisibilityExpansionRequired::new(
                    section_keys.clone(),
                    requested_overrides.iter().cloned().collect(),
                    reason.clone(),
                );
                if section_keys.is_empty() {
                    e.message = reason.clone();
                }
                Some(e)
            }
            _ => None,
        }
    }
}

/// One executed (or skipped) tool call, as fed back into the loop.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolOutcome {
    /// The tool produced a result for the model.
    Result {
        /// Call id.
        call_id: String,
        /// Tool name.
        name: String,
        /// Text for the model.
        content: String,
        /// Whether it failed.
        is_error: bool,
        /// Tools the call disclosed, with their sections.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        disclosed: Vec<InjectedTool>,
        /// The section the call read, when it disclosed tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disclosed_section: Option<SectionPath>,
        /// The images of the result, for adapters that send images in tool results.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ToolImage>,
    },
    /// A terminal request to re-render with sections expanded.
    Expansion(VisibilityExpansionRequiredData),
    /// A successful call of a terminal tool: its result ends the evaluation.
    Terminal {
        /// Call id.
        call_id: String,
        /// Tool name.
        name: String,
        /// Text for the model.
        content: String,
        /// The structured value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<Value>,
    },
    /// Not run because an earlier call of the turn ended it.
    Skipped {
        /// Call id.
        call_id: String,
        /// Tool name.
        name: String,
    },
}

/// The provider behind a failed model call. [`LoopOutcome::Failed`] carries the provider's
/// message alone (WINK's `result.error == "adapter failure"`); who failed and what they sent
/// back are kept here, beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderFailure {
    /// Adapter name (`openai`, `scripted`, ...).
    pub provider: String,
    /// The model.
    pub model: String,
    /// The HTTP status, when the provider answered with an error status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The provider's raw response body, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_body: Option<String>,
}

/// Tools injected from one `read_section` result: the section read and the tools added to the
/// offered set (disclosed tools whose names were taken are skipped and not listed).
#[derive(Debug, Clone, PartialEq)]
pub struct Injection {
    /// The section that was read.
    pub section: SectionPath,
    /// The tools injected, with the sections that own them.
    pub tools: Vec<InjectedTool>,
}

/// Serializable form of [`VisibilityExpansionRequired`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VisibilityExpansionRequiredData {
    /// Call id of the tool that asked.
    pub call_id: String,
    /// Overrides.
    pub requested_overrides: Vec<(SectionPath, wink_core::SectionVisibility)>,
    /// Keys.
    pub section_keys: Vec<String>,
    /// Reason.
    pub reason: String,
}

impl VisibilityExpansionRequiredData {
    /// From the core type.
    pub fn from_error(call_id: impl Into<String>, e: &VisibilityExpansionRequired) -> Self {
        Self {
            call_id: call_id.into(),
            requested_overrides: e
                .requested_overrides
                .iter()
                .map(|(p, v)| (p.clone(), *v))
                .collect(),
            section_keys: e.section_keys.clone(),
            reason: e.reason.clone(),
        }
    }
}

/// What the driver must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Call the model.
    CallModel(ModelRequest),
    /// Run these calls (in this order; results come back in the same order).
    RunTools(Vec<ToolCall>),
    /// Finished.
    Done(LoopOutcome),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum Phase {
    NeedModel,
    NeedTools {
        calls: Vec<ToolCall>,
        /// Calls of the turn the loop answered itself (repetitions, unknown tools), with their
        /// positions in the turn; merged with the run calls' outcomes in turn order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        answered: Vec<(usize, ToolOutcome)>,
    },
    Done {
        outcome: LoopOutcome,
    },
}

/// The state of one evaluation. Serialize it to save a run; deserialize to resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InnerLoop {
    prompt_name: String,
    messages: Vec<Message>,
    base_tools: Vec<ToolSpec>,
    injected: Vec<InjectedTool>,
    /// Tools hidden in summarized sections at the start, with the summarized section to read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    hidden: Vec<DeferredTool>,
    /// Names of the terminal tools among those offered or hidden: a turn's calls are checked
    /// up to the first call of one; the calls after it are the driver's to run or skip.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    terminal: Vec<String>,
    phase: Phase,
    config: LoopConfig,
    #[serde(skip)]
    output: Option<OutputSpec>,
    model_calls: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    provider_failure: Option<ProviderFailure>,
    /// The disclosure mode of the rendered prompt.
    #[serde(default)]
    disclosure: DisclosureMode,
    /// The owning section of each hidden tool (by name), for auto-open injections.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    hidden_owners: Vec<(String, SectionPath)>,
    #[serde(default)]
    guard: RepetitionGuard,
    /// The calls to replay after a restart that auto-opened sections.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    replay: Vec<ToolCall>,
    /// For each tool of the template, the byte range of its owning section in the system
    /// prompt: the copied-example guard does not count text there as a source of values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    owner_ranges: Vec<(String, Range<usize>)>,
    /// The turn policies and the answer tool.
    #[serde(default)]
    turn: TurnSettings,
    /// A turn policy took back the last turn: the next model call asks again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pending_repair: Option<crate::turn_policy::Firing>,
}

impl InnerLoop {
    /// Start an evaluation of `rendered`.
    pub fn start(
        rendered: &RenderedPrompt,
        prompt_name: impl Into<String>,
        config: LoopConfig,
    ) -> Self {
        let mut messages = vec![Message::system(rendered.text.clone())];
        if let Some(user) = &config.user_message {
            messages.push(Message::user(user.clone()));
        }
        Self {
            prompt_name: prompt_name.into(),
            messages,
            base_tools: rendered.tools.iter().map(ToolSpec::of).collect(),
            injected: Vec::new(),
            hidden: rendered
                .hidden_tools
                .iter()
                .filter_map(|(_, tool)| {
                    Some(DeferredTool {
                        spec: ToolSpec::of(tool),
                        section: rendered.hiding_section(tool.name())?,
                    })
                })
                .collect(),
            terminal: rendered
                .tools
                .iter()
                .chain(rendered.hidden_tools.iter().map(|(_, t)| t))
                .filter(|t| t.is_terminal())
                .map(|t| t.name().to_owned())
                .collect(),
            phase: Phase::NeedModel,
            config,
            output: rendered.output.clone(),
            model_calls: 0,
            provider_failure: None,
            disclosure: rendered.disclosure(),
            hidden_owners: rendered
                .hidden_tools
                .iter()
                .map(|(owner, tool)| (tool.name().to_owned(), owner.clone()))
                .collect(),
            guard: RepetitionGuard::default(),
            replay: Vec::new(),
            owner_ranges: owner_ranges(rendered),
            turn: TurnSettings::default(),
            pending_repair: None,
        }
    }

    /// Sets the turn policies and the answer tool (the driver resolves them from the model's
    /// profile).
    pub fn set_turn_settings(&mut self, turn: TurnSettings) {
        self.turn = turn;
    }

    /// The turn policies and the answer tool this evaluation runs with.
    pub fn turn_settings(&self) -> &TurnSettings {
        &self.turn
    }

    /// Whether the policies will review the turn that answers the next model call (the driver
    /// holds its streamed text back until they have).
    pub fn reviews_next_turn(&self) -> bool {
        match self.step() {
            Step::CallModel(request) => {
                self.pending_repair.is_none() && self.turn.reviews(&request)
            }
            _ => false,
        }
    }

    /// Re-attach the structured-output declaration after deserializing.
    pub fn set_output(&mut self, output: Option<OutputSpec>) {
        self.output = output;
    }

    /// The conversation so far.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Tools injected so far.
    pub fn injected(&self) -> &[InjectedTool] {
        &self.injected
    }

    /// The prompt being evaluated.
    pub fn prompt_name(&self) -> &str {
        &self.prompt_name
    }

    /// The config.
    pub fn config(&self) -> &LoopConfig {
        &self.config
    }

    /// Model calls made in this evaluation.
    pub fn model_calls(&self) -> u32 {
        self.model_calls
    }

    /// The provider behind a failed model call, when the loop ended that way.
    pub fn provider_failure(&self) -> Option<&ProviderFailure> {
        self.provider_failure.as_ref()
    }

    /// Whether the loop has finished.
    pub fn outcome(&self) -> Option<&LoopOutcome> {
        match &self.phase {
            Phase::Done { outcome } => Some(outcome),
            _ => None,
        }
    }

    /// The tools offered to the next model call: the rendered prompt's, then injected ones.
    pub fn offered_tools(&self) -> Vec<ToolSpec> {
        let mut tools = self.base_tools.clone();
        tools.extend(self.injected.iter().map(|t| t.spec.clone()));
        tools
    }

    /// Tools injected so far, grouped by the message after which they became available.
    pub fn tool_additions(&self) -> Vec<ToolAddition> {
        let mut additions: Vec<ToolAddition> = Vec::new();
        for tool in &self.injected {
            match additions.last_mut() {
                Some(last)
                    if last.after_message == tool.after_message
                        && last.section == tool.disclosed_by =>
                {
                    last.tools.push(tool.spec.name.clone());
                }
                _ => additions.push(ToolAddition {
                    after_message: tool.after_message,
                    section: tool.disclosed_by.clone(),
                    tools: vec![tool.spec.name.clone()],
                }),
            }
        }
        additions
    }

    /// Tools still hidden in summarized sections (not offered, not injected).
    pub fn deferred_tools(&self) -> Vec<DeferredTool> {
        self.hidden
            .iter()
            .filter(|h| !self.offered_tools().iter().any(|t| t.name == h.spec.name))
            .cloned()
            .collect()
    }

    /// The request of the next model call as the conversation has it (before a repair).
    fn request(&self) -> ModelRequest {
        let mut request = ModelRequest {
            messages: self.messages.clone(),
            tools: self.offered_tools(),
            tool_additions: self.tool_additions(),
            deferred_tools: self.deferred_tools(),
            tool_choice: if self.guard_active() && self.guard.answer_only() {
                ToolChoice::None
            } else {
                ToolChoice::Auto
            },
            output: self.output.clone(),
            max_output_tokens: self.config.max_output_tokens,
            temperature: self.config.temperature,
        };
        self.turn.offer_answer_tool(&mut request);
        request
    }

    /// The next step.
    pub fn step(&self) -> Step {
        match &self.phase {
            Phase::NeedModel => {
                let request = self.request();
                let again = self
                    .pending_repair
                    .as_ref()
                    .and_then(|firing| firing.action.request(&request));
                let request = again.unwrap_or(request);
                // What the model is sent; the turn policies review the conversation as it is.
                Step::CallModel(if self.turn.prompt_as_user_turn {
                    request.with_user_turn()
                } else {
                    request
                })
            }
            Phase::NeedTools { calls, .. } => Step::RunTools(calls.clone()),
            Phase::Done { outcome } => Step::Done(outcome.clone()),
        }
    }

    /// End the loop because a budget limit ran out.
    pub fn exhaust(&mut self, limit: BudgetLimit) {
        self.phase = Phase::Done {
            outcome: LoopOutcome::BudgetExceeded { limit },
        };
    }

    /// End the loop with a failure.
    pub fn fail(&mut self, error: &PromptEvaluationError) {
        self.phase = Phase::Done {
            outcome: LoopOutcome::Failed {
                message: error.message.clone(),
                phase: error.phase,
            },
        };
    }

    /// End the loop because the model call failed: the outcome's message is the provider's
    /// own message, and `failure` says which provider it was and what it sent back.
    pub fn fail_provider(&mut self, error: &PromptEvaluationError, failure: ProviderFailure) {
        self.fail(error);
        self.provider_failure = Some(failure);
    }

    /// Feed the model's turn. Tool calls are checked against the tools that were offered: in
    /// `wink` mode an unknown tool ends the evaluation (WINK's fatal error); otherwise it gets a
    /// failed tool result saying what is available, or — for a tool hidden in a summarized
    /// section, with auto-open on — opens that section. Repeated calls are answered by the
    /// repetition guard. Returns what the driver must announce.
    pub fn on_model_turn(&mut self, turn: ModelTurn) -> TurnEffects {
        if !matches!(self.phase, Phase::NeedModel) {
            return TurnEffects::default();
        }
        self.model_calls += 1;
        let mut turn = self.turn.take_answer_calls(turn);
        let mut repairs = Vec::new();
        // A turn that answers a repair is taken as it is: one repair per turn.
        if self.pending_repair.take().is_none()
            && let Some(firing) = self.turn.review(&self.request(), &turn)
        {
            let text = turn.text.clone().unwrap_or_default();
            let asks_again = firing.action.asks_again();
            if let crate::turn_policy::Action::Answer { text } = &firing.action {
                turn.text = Some(text.clone());
            }
            repairs.push(Repair {
                firing: firing.clone(),
                text,
            });
            if asks_again {
                self.pending_repair = Some(firing);
                return TurnEffects {
                    repairs,
                    ..TurnEffects::default()
                };
            }
        }
        let mut effects = self.take_turn(turn);
        effects.repairs = repairs;
        effects
    }

    /// Takes `turn` into the conversation: an answer ends the evaluation, calls are screened.
    fn take_turn(&mut self, mut turn: ModelTurn) -> TurnEffects {
        let resolved = self.resolve_call_names(&mut turn.tool_calls);
        let answer_only = self.guard_active() && self.guard.answer_only();
        self.messages.push(Message::Assistant {
            content: turn.text.clone(),
            tool_calls: turn.tool_calls.clone(),
        });
        if turn.tool_calls.is_empty() {
            self.phase = Phase::Done {
                outcome: self.finish(turn),
            };
            return TurnEffects::default();
        }
        if answer_only {
            let detail = "The model kept calling tools after it was asked to answer without them (repeated tool calls).";
            self.phase = Phase::Done {
                outcome: LoopOutcome::Failed {
                    message: detail.into(),
                    phase: EvaluationPhase::Response,
                },
            };
            return TurnEffects {
                interventions: vec![Intervention::new(
                    InterventionKind::KeptCallingTools,
                    detail,
                )],
                ..TurnEffects::default()
            };
        }
        let mut effects = self.screen_calls(turn.tool_calls);
        effects.interventions.splice(0..0, resolved);
        effects
    }

    /// After a restart that auto-opened sections: the calls to run first (as the model's turn).
    pub fn replay_calls(&self) -> &[ToolCall] {
        &self.replay
    }

    /// Start with `calls` (the turn that auto-opened sections before a restart), as if the model
    /// had just made them; does not count as a model call.
    pub fn replay(&mut self, calls: Vec<ToolCall>) -> TurnEffects {
        if !matches!(self.phase, Phase::NeedModel) || calls.is_empty() {
            return TurnEffects::default();
        }
        self.messages.push(Message::Assistant {
            content: None,
            tool_calls: calls.clone(),
        });
        self.screen_calls(calls)
    }

    /// The disclosure mode of the prompt.
    pub fn disclosure(&self) -> DisclosureMode {
        self.disclosure
    }

    /// The repetition guard's state.
    pub fn guard(&self) -> &RepetitionGuard {
        &self.guard
    }

    /// How many of a turn's calls are checked against the offered tools: all of them, or those
    /// up to and including the first call that may end the turn — a terminal tool, or without
    /// dynamic tools a `read_section` (the calls after it are not run when it ends the turn, so
    /// a tool it is about to disclose is no error; when it does not, the driver's executor
    /// checks them as they run).
    fn checked_calls(&self, calls: &[ToolCall]) -> usize {
        calls
            .iter()
            .position(|c| {
                self.terminal.contains(&c.name)
                    || (!self.config.supports_dynamic_tools && c.name == wink_core::READ_SECTION)
            })
            .map_or(calls.len(), |i| i + 1)
    }

    fn finish(&self, turn: ModelTurn) -> LoopOutcome {
        let Some(spec) = &self.output else {
            return LoopOutcome::Finished {
                text: Some(turn.text.unwrap_or_default()),
                output: None,
            };
        };
        let parsed = match turn.output {
            Some(native) => wink_schema::parse_provider_payload(native, spec),
            None => match turn.text.as_deref() {
                Some(text) => wink_schema::parse_structured_output(text, spec),
                None => {
                    return LoopOutcome::Failed {
                        message: "Provider response did not include structured output.".into(),
                        phase: EvaluationPhase::Response,
                    };
                }
            },
        };
        match parsed {
            Ok(output) => LoopOutcome::Finished {
                text: None,
                output: Some(output),
            },
            Err(e) => LoopOutcome::Failed {
                message: e.to_string(),
                phase: EvaluationPhase::Response,
            },
        }
    }
}
