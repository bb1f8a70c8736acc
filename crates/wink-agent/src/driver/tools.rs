//! Running the tool calls of one model turn: concurrent batches, terminal tools and restart
//! requests decided by the expansion policy.

use std::collections::HashMap;

use indexmap::IndexMap;
use wink_core::{
    CallOutcome, PromptEvaluationError, READ_SECTION, RenderedPrompt, SectionPath,
    SectionVisibility, ToolCall, ToolCallResult, ToolConcurrency, ToolExecutor, ToolRef,
    VisibilityExpansionRequired, expansion_overrides, is_disclosure_tool,
};

use super::{EvaluateOptions, ExpansionDecision};
use crate::inner::{InjectedTool, ToolOutcome, VisibilityExpansionRequiredData};
use wink_model::{ToolSpec, tool_images};

pub(super) enum RunCallsError {
    Budget(crate::budget::BudgetLimit),
    Fatal(PromptEvaluationError),
}

/// Run the calls of one turn: consecutive calls of tools that allow it run concurrently;
/// results come back in call order. A call that ends the turn — a restart request
/// (`open_sections`, or without `dynamic_tools` a `read_section` that discloses tools) or a
/// successful call of a terminal tool — ends its concurrent batch, and the calls after it are
/// not run (each is answered as skipped).
pub(super) async fn run_calls(
    calls: &[ToolCall],
    registry: &HashMap<String, ToolRef>,
    executor: &ToolExecutor,
    rendered: &RenderedPrompt,
    options: &mut EvaluateOptions<'_>,
    dynamic_tools: bool,
) -> Result<Vec<ToolOutcome>, RunCallsError> {
    let available: Vec<ToolRef> = registry.values().cloned().collect();
    let mut outcomes: Vec<ToolOutcome> = Vec::with_capacity(calls.len());
    let mut index = 0;
    let mut stopped = false;
    // Calls that may end the turn close their concurrent batch, so nothing after them runs early.
    let may_end_turn = |c: &ToolCall| {
        registry.get(&c.name).is_some_and(|t| t.is_terminal())
            || (!dynamic_tools && c.name == READ_SECTION)
    };
    while index < calls.len() {
        if stopped {
            let c = &calls[index];
            outcomes.push(ToolOutcome::Skipped {
                call_id: c.id.clone(),
                name: c.name.clone(),
            });
            index += 1;
            continue;
        }
        let parallel = |c: &ToolCall| {
            registry
                .get(&c.name)
                .is_some_and(|t| t.concurrency() == ToolConcurrency::Parallel)
        };
        let mut end = index + 1;
        if parallel(&calls[index]) && !may_end_turn(&calls[index]) {
            while end < calls.len() && parallel(&calls[end]) {
                end += 1;
                if may_end_turn(&calls[end - 1]) {
                    break;
                }
            }
        }
        let batch = &calls[index..end];
        for _ in batch {
            options
                .budget
                .check_tool_call()
                .map_err(RunCallsError::Budget)?;
            options.budget.record_tool_call();
        }
        // Overlapping calls each run in their own transaction (a failed one is undone alone).
        let results = match batch {
            [call] => vec![executor.execute(call, &available, Some(rendered)).await],
            _ => {
                executor
                    .execute_concurrently(batch, &available, Some(rendered))
                    .await
            }
        };
        for (call, result) in batch.iter().zip(results) {
            let outcome = match result.map_err(RunCallsError::Fatal)? {
                CallOutcome::Completed(r) => {
                    let terminal = registry.get(&call.name).is_some_and(|t| t.is_terminal());
                    completed_outcome(r, terminal, dynamic_tools, rendered, options)
                }
                CallOutcome::ExpansionRequired(e) => expansion_outcome(call, &e, options),
            };
            if let Some(o) = options.observer {
                match &outcome {
                    ToolOutcome::Result {
                        content, is_error, ..
                    } => o.on_tool_result(call, content, *is_error),
                    ToolOutcome::Terminal { content, .. } => o.on_tool_result(call, content, false),
                    _ => {}
                }
            }
            stopped |= matches!(
                outcome,
                ToolOutcome::Expansion(_) | ToolOutcome::Terminal { .. }
            );
            outcomes.push(outcome);
        }
        index = end;
    }
    Ok(outcomes)
}

/// The outcome of a call that produced a result: a successful terminal tool ends the evaluation;
/// without `dynamic_tools` a `read_section` that discloses tools is a restart request (the
/// summarized sections hiding the one read, outermost first, then it and the descendants owning
/// its tools), decided by the expansion policy like an `open_sections` call.
fn completed_outcome(
    r: ToolCallResult,
    terminal: bool,
    dynamic_tools: bool,
    rendered: &RenderedPrompt,
    options: &mut EvaluateOptions<'_>,
) -> ToolOutcome {
    let content = r.model_text();
    let is_error = !r.result.success;
    let images = r
        .result
        .value
        .as_ref()
        .map(|value| tool_images(&value.json))
        .unwrap_or_default();
    if terminal && !is_error && !is_disclosure_tool(&r.name) {
        return ToolOutcome::Terminal {
            call_id: r.call_id,
            name: r.name,
            content,
            value: r.result.value.map(|v| v.json),
        };
    }
    let Some(expansion) = &r.expansion else {
        return ToolOutcome::Result {
            call_id: r.call_id,
            name: r.name,
            content,
            is_error,
            disclosed: Vec::new(),
            disclosed_section: None,
            images,
        };
    };
    if !dynamic_tools {
        let hiding = rendered.sections.iter().filter(|s| {
            s.visibility == SectionVisibility::Summary && expansion.path.is_descendant_of(&s.path)
        });
        let overrides: IndexMap<SectionPath, SectionVisibility> = hiding
            .map(|s| s.path.clone())
            .chain(expansion_overrides(expansion))
            .map(|p| (p, SectionVisibility::Full))
            .collect();
        let keys = overrides.keys().map(SectionPath::dotted).collect();
        let request = VisibilityExpansionRequired::new(
            keys,
            overrides,
            "Adapter does not support dynamic tools",
        );
        return match decide(&r.name, &request, options) {
            ExpansionDecision::Restart(overrides) => {
                let mut data = VisibilityExpansionRequiredData::from_error(r.call_id, &request);
                data.requested_overrides = overrides;
                ToolOutcome::Expansion(data)
            }
            // The content is shown; the tools wait for the restart.
            ExpansionDecision::Defer(note) => ToolOutcome::Result {
                call_id: r.call_id,
                name: r.name,
                content: format!("{content}\n\n{note}"),
                is_error,
                disclosed: Vec::new(),
                disclosed_section: None,
                images: Vec::new(),
            },
        };
    }
    ToolOutcome::Result {
        disclosed: expansion
            .tools
            .iter()
            .map(|(p, t)| InjectedTool {
                spec: ToolSpec::of(t),
                section: p.clone(),
                after_message: 0,
                disclosed_by: String::new(),
            })
            .collect(),
        disclosed_section: Some(expansion.path.clone()),
        call_id: r.call_id,
        name: r.name,
        content,
        is_error,
        images,
    }
}

/// The outcome of an `open_sections` restart request, as the expansion policy decides it.
fn expansion_outcome(
    call: &ToolCall,
    request: &VisibilityExpansionRequired,
    options: &mut EvaluateOptions<'_>,
) -> ToolOutcome {
    match decide(&call.name, request, options) {
        ExpansionDecision::Defer(text) => ToolOutcome::Result {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: text,
            is_error: false,
            disclosed: Vec::new(),
            disclosed_section: None,
            images: Vec::new(),
        },
        ExpansionDecision::Restart(overrides) => {
            let mut data = VisibilityExpansionRequiredData::from_error(call.id.clone(), request);
            data.requested_overrides = overrides;
            ToolOutcome::Expansion(data)
        }
    }
}

fn decide(
    tool: &str,
    request: &VisibilityExpansionRequired,
    options: &mut EvaluateOptions<'_>,
) -> ExpansionDecision {
    match options.decider.as_deref_mut() {
        Some(d) => d.decide_for(tool, request),
        None => ExpansionDecision::Restart(
            request
                .requested_overrides
                .iter()
                .map(|(p, v)| (p.clone(), *v))
                .collect(),
        ),
    }
}
