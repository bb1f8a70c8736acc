//! Screening a model turn before its calls run: the repetition guard, unknown tools, and
//! auto-opening the sections that hide called tools.

use std::ops::Range;

use wink_core::{
    DisclosureMode, EvaluationPhase, RenderedPrompt, SectionPath, ToolCall, is_disclosure_tool,
};

use super::{InjectedTool, Injection, InnerLoop, LoopOutcome, Phase, ToolOutcome, TurnEffects};
use crate::example::{
    ValueSources, copied_example, copied_example_message, quotes_the_prompt, unseen_code,
    unseen_code_message,
};
use crate::guard::{Intervention, InterventionKind, arguments_value, unknown_tool_message};
use crate::preopen::codes::returns_parameter;

/// Tools as `(name, description)`, as the refusal messages name them.
type Described = Vec<(String, String)>;

/// For each tool of `rendered` (offered or hidden), the byte range of its owning section's text.
pub(super) fn owner_ranges(rendered: &RenderedPrompt) -> Vec<(String, Range<usize>)> {
    let owners = rendered
        .tools
        .iter()
        .filter_map(|t| {
            rendered
                .template_tool(t.name())
                .map(|(path, _)| (t.name(), path))
        })
        .chain(
            rendered
                .hidden_tools
                .iter()
                .map(|(path, t)| (t.name(), path.clone())),
        );
    owners
        .filter_map(|(name, path)| {
            let section = rendered.sections.iter().find(|s| s.path == path)?;
            Some((name.to_owned(), section.range.clone()))
        })
        .collect()
}

pub(super) fn answer(call: &ToolCall, content: String, is_error: bool) -> ToolOutcome {
    ToolOutcome::Result {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content,
        is_error,
        disclosed: Vec::new(),
        disclosed_section: None,
        images: Vec::new(),
    }
}

/// What screening the calls of a turn decided so far.
#[derive(Default)]
struct Screening {
    effects: TurnEffects,
    /// Calls to run, in turn order.
    to_run: Vec<ToolCall>,
    /// Calls the loop answers itself, with their position in the turn.
    answered: Vec<(usize, ToolOutcome)>,
    /// Sections to expand by restarting the evaluation (no dynamic tools).
    restart: Vec<String>,
}

impl InnerLoop {
    pub(super) fn guard_active(&self) -> bool {
        self.config.repetition_guard.unwrap_or(true)
    }

    fn auto_open(&self) -> bool {
        self.config.auto_open_hidden_tools && self.disclosure != DisclosureMode::Wink
    }

    fn example_guard_active(&self) -> bool {
        self.config
            .example_guard
            .unwrap_or(self.disclosure != DisclosureMode::Wink)
    }

    /// The conversation's system prompt ("" when it has none).
    fn system_prompt(&self) -> &str {
        match self.messages.first() {
            Some(crate::Message::System { content }) => content.as_str(),
            _ => "",
        }
    }

    /// The failed result for `call` when it copies the example from its tool's description.
    fn copied_example_result(&self, call: &ToolCall) -> Option<String> {
        let spec = self
            .offered_tools()
            .into_iter()
            .chain(self.hidden.iter().map(|h| h.spec.clone()))
            .find(|t| t.name == call.name)?;
        let system = self.system_prompt();
        let grounding = match self
            .owner_ranges
            .iter()
            .find(|(name, _)| *name == call.name)
        {
            Some((_, range)) => format!(
                "{}\n{}",
                system.get(..range.start).unwrap_or_default(),
                system.get(range.end..).unwrap_or_default()
            ),
            None => system.to_owned(),
        };
        let (param, value) = copied_example(
            &spec,
            &arguments_value(&call.arguments),
            &grounding,
            self.messages.get(1..).unwrap_or_default(),
        )?;
        let (sources, others) = self.value_sources(&call.name, &param);
        let tools = ValueSources {
            sources: &sources,
            others: &others,
        };
        Some(copied_example_message(&call.name, &param, &value, tools))
    }

    /// The failed result for `call` when an argument is a record code found nowhere in the
    /// conversation (see [`crate::unseen_code`]). Only calls of tools the model can call are
    /// looked at, and not the disclosure and catalog tools.
    fn unseen_code_result(&self, call: &ToolCall) -> Option<String> {
        if quotes_the_prompt(&call.name)
            || !self.is_offered(&call.name) && !self.hidden.iter().any(|h| h.spec.name == call.name)
        {
            return None;
        }
        let system = self.system_prompt();
        let (param, value) = unseen_code(
            &arguments_value(&call.arguments),
            system,
            self.messages.get(1..).unwrap_or_default(),
        )?;
        let (sources, others) = self.value_sources(&call.name, &param);
        let tools = ValueSources {
            sources: &sources,
            others: &others,
        };
        Some(unseen_code_message(&call.name, &param, &value, tools))
    }

    /// The tools other than `tool` that could supply a value of `param`, offered or hidden,
    /// each once as `(name, description)`, not the disclosure and catalog tools: first those
    /// that say they return `param` without taking it, then the rest.
    fn value_sources(&self, tool: &str, param: &str) -> (Described, Described) {
        let mut sources: Described = Vec::new();
        let mut others: Described = Vec::new();
        let candidates = self
            .offered_tools()
            .into_iter()
            .chain(self.hidden.iter().map(|h| h.spec.clone()))
            .filter(|t| t.name != tool && !quotes_the_prompt(&t.name));
        for t in candidates {
            if sources
                .iter()
                .chain(&others)
                .any(|(name, _)| *name == t.name)
            {
                continue;
            }
            if returns_parameter(&t.name, &t.description, &t.parameters, param) {
                sources.push((t.name, t.description));
            } else {
                others.push((t.name, t.description));
            }
        }
        (sources, others)
    }

    fn is_offered(&self, name: &str) -> bool {
        self.base_tools.iter().any(|t| t.name == name)
            || self.injected.iter().any(|t| t.spec.name == name)
    }

    /// Sort the calls of a turn: run, answer from the guard, answer as unknown, or open the
    /// sections hiding them.
    pub(super) fn screen_calls(&mut self, calls: Vec<ToolCall>) -> TurnEffects {
        // Calls after one that may end the turn are neither screened nor validated here: they
        // are not run when it does end the turn (issue 17).
        let checked = self.checked_calls(&calls);
        if self.fail_on_unknown_tool(&calls[..checked]) {
            return TurnEffects::default();
        }
        let first_result = self.messages.len();
        let mut screening = Screening::default();
        for (position, call) in calls.iter().enumerate() {
            if position >= checked {
                screening.to_run.push(call.clone());
            } else {
                self.screen_call(call, position, first_result, &mut screening);
            }
        }
        let Screening {
            effects,
            to_run,
            answered,
            restart,
        } = screening;
        if restart.is_empty() {
            self.phase = Phase::NeedTools {
                calls: to_run,
                answered,
            };
        } else {
            self.require_expansion(calls, restart);
        }
        effects
    }

    /// Under WINK disclosure a call of a tool that is neither offered nor hidden in a
    /// summarized section ends the run as failed (WINK v0.17's fatal error); a call of a hidden
    /// one gets a failed result naming the section to open, as in the other modes. Returns
    /// whether the run ended.
    fn fail_on_unknown_tool(&mut self, checked: &[ToolCall]) -> bool {
        if self.disclosure != DisclosureMode::Wink {
            return false;
        }
        let is_hidden = |name: &str| self.hidden.iter().any(|h| h.spec.name == name);
        let Some(unknown) = checked
            .iter()
            .find(|c| !self.is_offered(&c.name) && !is_hidden(&c.name))
        else {
            return false;
        };
        self.phase = Phase::Done {
            outcome: LoopOutcome::Failed {
                message: format!("Unknown tool '{}' requested by provider.", unknown.name),
                phase: EvaluationPhase::Tool,
            },
        };
        true
    }

    /// Screen one checked call (at `position` in its turn; the turn's results start at message
    /// `first_result`): answered by the repetition or example guard, run when offered, its
    /// hiding section opened, or answered as an unknown tool.
    fn screen_call(
        &mut self,
        call: &ToolCall,
        position: usize,
        first_result: usize,
        screening: &mut Screening,
    ) {
        if self.guard_active()
            && let Some(repetition) = self.guard.intercept(call)
        {
            screening.answered.push((
                position,
                answer(call, repetition.content, repetition.is_error),
            ));
            screening
                .effects
                .interventions
                .extend(repetition.interventions);
            return;
        }
        if self.example_guard_active()
            && let Some(message) = self.copied_example_result(call)
        {
            let kind = InterventionKind::CopiedExample;
            self.answer_failed(call, position, kind, message, screening);
            return;
        }
        if self.turn.unseen_codes
            && self.example_guard_active()
            && let Some(message) = self.unseen_code_result(call)
        {
            self.answer_failed(
                call,
                position,
                InterventionKind::UnseenCode,
                message,
                screening,
            );
            return;
        }
        if self.is_offered(&call.name) {
            screening.to_run.push(call.clone());
            return;
        }
        let hiding = self
            .hidden
            .iter()
            .find(|h| h.spec.name == call.name)
            .map(|h| h.section.clone());
        match hiding {
            Some(section) if self.auto_open() => {
                let after_message = first_result + position;
                self.auto_open_for(call, section, after_message, screening);
            }
            hiding => {
                let message = self.unknown_tool_text(call, hiding.as_deref());
                let kind = InterventionKind::UnknownTool;
                self.answer_failed(call, position, kind, message, screening);
            }
        }
    }

    /// Answer `call` with the failed result `message` instead of running it: the repetition
    /// guard remembers it and it is reported as a `kind` intervention.
    fn answer_failed(
        &mut self,
        call: &ToolCall,
        position: usize,
        kind: InterventionKind,
        message: String,
        screening: &mut Screening,
    ) {
        if self.guard_active() {
            self.guard.record(call, &message, true, false);
        }
        screening
            .effects
            .interventions
            .push(Intervention::for_call(kind, call, message.clone()));
        screening
            .answered
            .push((position, answer(call, message, true)));
    }

    /// Open `section`, which hides the tool `call` names: inject its tools after message
    /// `after_message` and run the call (dynamic tools under unified disclosure), or restart
    /// the evaluation with the section expanded.
    fn auto_open_for(
        &mut self,
        call: &ToolCall,
        section: String,
        after_message: usize,
        screening: &mut Screening,
    ) {
        let dynamic =
            self.disclosure == DisclosureMode::Unified && self.config.supports_dynamic_tools;
        screening.effects.interventions.push(Intervention::for_call(
            InterventionKind::AutoOpen,
            call,
            format!(
                "opened section \"{section}\" ({})",
                if dynamic { "injected" } else { "restart" }
            ),
        ));
        if dynamic {
            screening
                .effects
                .injections
                .extend(self.open_hidden(&section, after_message));
            screening.to_run.push(call.clone());
        } else if !screening.restart.contains(&section) {
            screening.restart.push(section);
        }
    }

    /// The result for a call of a tool that is not offered: the tools that are, and the
    /// section to open when `hiding` names the one that hides it.
    fn unknown_tool_text(&self, call: &ToolCall, hiding: Option<&str>) -> String {
        let opener = match self.disclosure {
            DisclosureMode::Unified => wink_core::READ_SECTION,
            _ => wink_core::OPEN_SECTIONS,
        };
        let available: Vec<String> = self.offered_tools().into_iter().map(|t| t.name).collect();
        unknown_tool_message(&call.name, hiding.map(|s| (opener, s)), &available)
    }

    /// End the run asking for the sections of `restart` expanded; `calls` are replayed after
    /// the restart.
    fn require_expansion(&mut self, calls: Vec<ToolCall>, restart: Vec<String>) {
        let overrides: Vec<(SectionPath, wink_core::SectionVisibility)> = restart
            .iter()
            .map(|key| {
                (
                    SectionPath::new(key.split('.').map(str::to_owned).collect()),
                    wink_core::SectionVisibility::Full,
                )
            })
            .collect();
        self.replay = calls;
        self.phase = Phase::Done {
            outcome: LoopOutcome::ExpansionRequired {
                requested_overrides: overrides,
                reason: format!("The model called tools hidden in {}", restart.join(", ")),
                section_keys: restart,
            },
        };
    }

    /// Inject the tools hidden in the summarized section `section` (an auto-open), available
    /// after message `after_message` (the result of the call that opened it).
    fn open_hidden(&mut self, section: &str, after_message: usize) -> Option<Injection> {
        let tools: Vec<InjectedTool> = self
            .hidden
            .iter()
            .filter(|h| h.section == section)
            .filter(|h| !self.is_offered(&h.spec.name))
            .map(|h| InjectedTool {
                spec: h.spec.clone(),
                section: self
                    .hidden_owners
                    .iter()
                    .find(|(name, _)| name == &h.spec.name)
                    .map(|(_, owner)| owner.clone())
                    .unwrap_or_else(|| {
                        SectionPath::new(section.split('.').map(str::to_owned).collect())
                    }),
                after_message,
                disclosed_by: section.to_owned(),
            })
            .collect();
        if tools.is_empty() {
            return None;
        }
        self.injected.extend(tools.iter().cloned());
        Some(Injection {
            section: SectionPath::new(section.split('.').map(str::to_owned).collect()),
            tools,
        })
    }

    /// Merge the outcomes of the run calls with the calls the loop answered itself (turn
    /// order), and let the repetition guard remember the answers.
    pub(super) fn merge_answered(&mut self, outcomes: Vec<ToolOutcome>) -> Vec<ToolOutcome> {
        let Phase::NeedTools { calls, answered } = &self.phase else {
            return outcomes;
        };
        let (calls, answered) = (calls.clone(), answered.clone());
        if self.guard_active() {
            for (call, outcome) in calls.iter().zip(&outcomes) {
                if let ToolOutcome::Result {
                    content, is_error, ..
                } = outcome
                {
                    let changes_state = !is_disclosure_tool(&call.name);
                    self.guard.record(call, content, *is_error, changes_state);
                }
            }
        }
        if answered.is_empty() {
            return outcomes;
        }
        let total = outcomes.len() + answered.len();
        let mut run = outcomes.into_iter();
        let mut answered = answered.into_iter().peekable();
        let mut merged = Vec::with_capacity(total);
        for position in 0..total {
            match answered.next_if(|(p, _)| *p == position) {
                Some((_, outcome)) => merged.push(outcome),
                None => merged.extend(run.next()),
            }
        }
        merged
    }
}
