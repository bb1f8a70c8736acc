//! Running one dispatch: record, fork, run, collect, tear down.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use wink_core::{ToolContext, python_json};
use wink_session::{Session, Snapshot, Timestamp, TokenUsage, ToolInvoked};

use super::guard::{CatchUnwind, Meter, MeteredAdapter};
use super::report::{ChildReport, collect_report, push_unique, summarize};
use super::section::{Hydrator, Shared, subagent_depth};
use super::task::{compose, snapshot_summary, task_message};
use super::telemetry::{Forwarding, SubagentEvent};
use super::{
    DispatchSubagent, DispatchSubagentError, DispatchSubagentResult, PromptSubagentToolsSection,
    SUBAGENT_DEPTH_TAG, SubagentAdapter, SubagentArtifact, SubagentOutcome, SubagentRun,
};
use crate::budget::BudgetTracker;
use crate::inner::{LoopConfig, LoopOutcome};
use crate::main_loop::{MainLoop, MainLoopConfig, RunHooks};
use wink_core::Prompt;
use wink_model::{ProviderAdapter, ProviderError};

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
    forwarding: Option<Forwarding>,
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
            forwarding: None,
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

    /// From now on, forward every event the child dispatches to `parent` (tagged as `tag`).
    fn forward_to(&mut self, parent: &Session, tag: SubagentEvent) {
        self.forwarding = Some(Forwarding::start(&self.session, parent, tag));
    }
}

impl Drop for ChildSession {
    fn drop(&mut self) {
        drop(self.forwarding.take());
        let _ = self.session.detach_journal();
        let _ = self.session.reset();
    }
}

pub(super) async fn dispatch(
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
    let prompt = child_prompt(shared, request, depth)?;
    let (adapter, budget) = adapter_and_budget(shared, ctx)?;
    // Snapshot, fork, hydrate.
    let snapshot = ctx.session.snapshot();
    let mut child =
        ChildSession::spawn(&ctx.session, &snapshot, depth + 1, shared.hydrator.as_ref())?;
    recorder.update(|r| r.child_session_id = Some(child.session.id()));
    child.forward_to(
        &ctx.telemetry,
        SubagentEvent {
            run_id: child.session.id(),
            parent_session_id: ctx.telemetry.id(),
            call_id: ctx.call_id.clone(),
            prompt_ns: request.prompt_ns.clone(),
            prompt_key: request.prompt_key.clone(),
            depth: depth + 1,
            event_type: String::new(),
            event: Value::Null,
        },
    );
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
            &snapshot_summary(&snapshot),
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
        opening_calls: Vec::new(),
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
        Ok(Err(render_error)) => {
            return Err(prompt_unavailable(request, render_error.to_string()));
        }
        Ok(Ok(run)) => run,
    };
    child_result(request, run.outcome, report, meter.last_error, recorder)
}

fn prompt_unavailable(request: &DispatchSubagent, message: String) -> DispatchSubagentError {
    DispatchSubagentError::PromptUnavailable {
        ns: request.prompt_ns.clone(),
        key: request.prompt_key.clone(),
        message,
    }
}

/// The child's prompt: the registered prompt bound to the request, composed with the suite's sections
/// (and the dispatch tools again while the depth allows another level).
fn child_prompt(
    shared: &Arc<Shared>,
    request: &DispatchSubagent,
    depth: u32,
) -> Result<Prompt, DispatchSubagentError> {
    let unavailable = |message: String| prompt_unavailable(request, message);
    let source = shared
        .registry
        .get(&request.prompt_ns, &request.prompt_key)
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
    child_prompt
        .into_prompt(template)
        .map_err(|e| unavailable(e.to_string()))
}

/// The adapter the child runs on (the parent's, from the tool resources) and its budget (the
/// parent's tracker when shared, else the section's child budget within the call's deadline).
fn adapter_and_budget(
    shared: &Shared,
    ctx: &ToolContext,
) -> Result<(Arc<dyn ProviderAdapter>, BudgetTracker), DispatchSubagentError> {
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
    Ok((adapter, budget))
}

/// What the dispatch returns for the child's outcome: a terminal tool's result is the child's
/// answer; artifacts the answer lists join those the child recorded.
fn child_result(
    request: &DispatchSubagent,
    outcome: LoopOutcome,
    report: ChildReport,
    last_error: Option<ProviderError>,
    recorder: &mut RunRecorder,
) -> Result<DispatchSubagentResult, DispatchSubagentError> {
    let outcome = match outcome {
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
                prompt_ns: request.prompt_ns.clone(),
                prompt_key: request.prompt_key.clone(),
                message_summary: summarize(text.as_deref(), output.as_ref()),
                artifacts,
                tools_used: report.tools_used,
                output,
            })
        }
        LoopOutcome::BudgetExceeded { limit } => Err(DispatchSubagentError::BudgetExhausted(limit)),
        LoopOutcome::Failed { message, phase } => Err(DispatchSubagentError::from_outcome(
            message, phase, last_error,
        )),
        LoopOutcome::ExpansionRequired { reason, .. } => Err(DispatchSubagentError::Failed(
            format!("the child stopped on an expansion request: {reason}"),
        )),
        LoopOutcome::Terminated { name, .. } => Err(DispatchSubagentError::Failed(format!(
            "the child ended on the terminal tool '{name}'"
        ))),
    }
}
