//! The telemetry a driver publishes about its render and its model calls: the sections of
//! `PromptRendered`, one `ModelCalled` per model call, the status of `PromptExecuted`.

use wink_core::{RenderedPrompt, SectionPath};
use wink_model::{Message, ModelRequest, ModelTurn, ProviderError, ProviderErrorKind};
use wink_session::{
    ModelCalled, RenderedSectionTelemetry, RequestedCall, SectionVisibility, Timestamp, TraceParent,
};

use crate::inner::LoopOutcome;

/// The sections of `rendered` in tree order: heading, depth, visibility, size, and the tools
/// each offers or hides.
pub(super) fn rendered_sections(rendered: &RenderedPrompt) -> Vec<RenderedSectionTelemetry> {
    let owner_of =
        |name: &str| -> Option<SectionPath> { rendered.template_tool(name).map(|(path, _)| path) };
    let offered: Vec<(SectionPath, String)> = rendered
        .tools
        .iter()
        .filter_map(|tool| owner_of(tool.name()).map(|path| (path, tool.name().to_owned())))
        .collect();
    rendered
        .sections
        .iter()
        .map(|section| {
            let text = rendered.text.get(section.range.clone()).unwrap_or_default();
            let title = text
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches('#')
                .trim()
                .to_owned();
            let names = |pairs: &mut dyn Iterator<Item = (&SectionPath, &str)>| -> Vec<String> {
                pairs
                    .filter(|(path, _)| **path == section.path)
                    .map(|(_, name)| name.to_owned())
                    .collect()
            };
            RenderedSectionTelemetry {
                key: section.path.dotted(),
                title,
                depth: u32::try_from(section.path.segments().len()).unwrap_or(u32::MAX),
                visibility: section.visibility,
                bytes: section.range.len() as u64,
                tools: names(&mut offered.iter().map(|(p, n)| (p, n.as_str()))),
                hidden_tools: names(
                    &mut rendered
                        .hidden_tools
                        .iter()
                        .filter(|_| section.visibility == SectionVisibility::Summary)
                        .map(|(p, t)| (p, t.name())),
                ),
            }
        })
        .collect()
}

/// One model call as telemetry: what was sent (the messages new since the evaluation's last
/// call, from `first_new`) and what came back (`Ok`) or went wrong (`Err`: the error's kind
/// and message).
pub(super) struct CallRecord<'a> {
    pub adapter: &'a str,
    pub model: &'a str,
    pub index: u32,
    pub started_at: Timestamp,
    pub request: &'a ModelRequest,
    pub first_new: usize,
    pub span: Option<TraceParent>,
}

impl CallRecord<'_> {
    pub(super) fn event(&self, result: Result<&ModelTurn, (&str, &str)>) -> ModelCalled {
        let mut event = ModelCalled::new(self.adapter, self.model, self.index, self.started_at);
        event.messages = self.request.messages.len() as u64;
        event.tools = self.request.tools.iter().map(|t| t.name.clone()).collect();
        event.span = self.span;
        event.new_messages = self
            .request
            .messages
            .get(self.first_new..)
            .unwrap_or_default()
            .iter()
            .filter_map(|m: &Message| serde_json::to_value(m).ok())
            .collect::<Vec<_>>()
            .into();
        match result {
            Ok(turn) => {
                event.usage = turn.usage;
                event.finish_reason = serde_json::to_value(&turn.finish_reason)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned));
                event.text.clone_from(&turn.text);
                event.tool_calls = turn
                    .tool_calls
                    .iter()
                    .map(|call| RequestedCall {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.to_value(),
                    })
                    .collect();
            }
            Err((kind, message)) => {
                event.error_type = Some(kind.to_owned());
                event.error = Some(message.to_owned());
            }
        }
        event
    }
}

impl CallRecord<'_> {
    /// The `ModelCalled` of a call that ended as `outcome` (`Err`: the run's deadline passed).
    pub(super) fn outcome_event(
        &self,
        outcome: &Result<Result<ModelTurn, ProviderError>, crate::timer::DeadlineExpired>,
    ) -> ModelCalled {
        match outcome {
            Err(_) => self.event(Err(("timeout", "the run's deadline passed"))),
            Ok(Ok(turn)) => self.event(Ok(turn)),
            Ok(Err(error)) => self.event(Err((&error_type(error), &error.to_string()))),
        }
    }
}

/// A low-cardinality name for a provider error's kind (`error.type`).
fn error_type(error: &ProviderError) -> String {
    match &error.kind {
        ProviderErrorKind::Status(code) => code.to_string(),
        ProviderErrorKind::RateLimited(_) => "rate_limited".to_owned(),
        ProviderErrorKind::Connection => "connection".to_owned(),
        ProviderErrorKind::Timeout => "timeout".to_owned(),
        ProviderErrorKind::Decode => "decode".to_owned(),
        ProviderErrorKind::TruncatedStream => "truncated_stream".to_owned(),
        ProviderErrorKind::Config => "config".to_owned(),
        ProviderErrorKind::Cancelled => "cancelled".to_owned(),
        ProviderErrorKind::ContextOverflow => "context_overflow".to_owned(),
        _ => "_OTHER".to_owned(),
    }
}

/// How an evaluation ended, as `PromptExecuted` records it: the status and, unless it
/// answered, why.
pub(super) fn outcome_status(outcome: &LoopOutcome) -> (&'static str, Option<String>) {
    match outcome {
        LoopOutcome::Finished { .. } => ("finished", None),
        LoopOutcome::Terminated { .. } => ("terminated", None),
        LoopOutcome::ExpansionRequired { section_keys, .. } => (
            "expansion_required",
            Some(format!("sections {} requested", section_keys.join(", "))),
        ),
        LoopOutcome::BudgetExceeded { limit } => (
            "budget_exceeded",
            Some(format!("the {limit} budget ran out")),
        ),
        LoopOutcome::Failed { message, phase } => ("failed", Some(format!("{phase}: {message}"))),
    }
}
