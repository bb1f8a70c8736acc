//! Feeding the outcomes of a turn's calls back into the loop: tool messages, tools injected by
//! `read_section`, and the outcomes that end the run (expansion, terminal tools).

use wink_core::SectionPath;
use wink_model::Message;

use super::{InjectedTool, Injection, InnerLoop, LoopOutcome, Phase, ToolOutcome};

impl InnerLoop {
    /// Feed the outcomes of the calls from [`Step::RunTools`](super::Step::RunTools), in call
    /// order. Returns the tools injected for the next model call, per `read_section` result
    /// (seed 003: a disclosed tool whose name is already offered is skipped with a warning).
    pub fn on_tool_outcomes(&mut self, outcomes: Vec<ToolOutcome>) -> Vec<Injection> {
        let mut injections = Vec::new();
        if !matches!(self.phase, Phase::NeedTools { .. }) {
            return injections;
        }
        let outcomes = self.merge_answered(outcomes);
        // The first outcome that ends the run wins.
        let mut restart: Option<LoopOutcome> = None;
        for outcome in outcomes {
            match outcome {
                ToolOutcome::Result {
                    call_id,
                    name,
                    content,
                    is_error,
                    disclosed,
                    disclosed_section,
                    images,
                } => {
                    let message = Message::Tool {
                        tool_call_id: call_id,
                        name,
                        content,
                        is_error,
                        images,
                    };
                    self.messages.push(message);
                    let after_message = self.messages.len() - 1;
                    if disclosed.is_empty() || restart.is_some() {
                        continue;
                    }
                    if self.config.supports_dynamic_tools {
                        injections.extend(self.inject_disclosed(
                            disclosed,
                            disclosed_section,
                            after_message,
                        ));
                    } else {
                        restart = Some(expansion_for(&disclosed, disclosed_section.as_ref()));
                    }
                }
                ToolOutcome::Expansion(e) => {
                    if restart.is_none() {
                        restart = Some(LoopOutcome::ExpansionRequired {
                            requested_overrides: e.requested_overrides,
                            section_keys: e.section_keys,
                            reason: e.reason,
                        });
                    }
                }
                ToolOutcome::Terminal {
                    call_id,
                    name,
                    content,
                    value,
                } => {
                    self.push_tool_message(call_id, name.clone(), content.clone(), false);
                    if restart.is_none() {
                        restart = Some(LoopOutcome::Terminated {
                            name,
                            content,
                            value,
                        });
                    }
                }
                ToolOutcome::Skipped { call_id, name } => {
                    let content = "Not run: an earlier call in this turn ended it.".into();
                    self.push_tool_message(call_id, name, content, true);
                }
            }
        }
        self.phase = match restart {
            Some(outcome) => Phase::Done { outcome },
            None => Phase::NeedModel,
        };
        injections
    }

    fn push_tool_message(
        &mut self,
        call_id: String,
        name: String,
        content: String,
        is_error: bool,
    ) {
        self.messages.push(Message::Tool {
            tool_call_id: call_id,
            name,
            content,
            is_error,
            images: Vec::new(),
        });
    }

    /// Offer the tools a `read_section` result disclosed (dynamic tools) from after message
    /// `after_message` on, skipping those whose name is already offered. `None` when nothing
    /// was added.
    fn inject_disclosed(
        &mut self,
        disclosed: Vec<InjectedTool>,
        disclosed_section: Option<SectionPath>,
        after_message: usize,
    ) -> Option<Injection> {
        let mut added = Vec::new();
        let disclosed_by = disclosed_section
            .as_ref()
            .map(SectionPath::dotted)
            .unwrap_or_default();
        for mut tool in disclosed {
            tool.after_message = after_message;
            tool.disclosed_by = disclosed_by.clone();
            let taken = self
                .base_tools
                .iter()
                .chain(self.injected.iter().map(|t| &t.spec))
                .any(|t| t.name == tool.spec.name);
            if taken {
                tracing::warn!(tool_name = %tool.spec.name, "Skipping duplicate tool during injection");
                continue;
            }
            self.injected.push(tool.clone());
            added.push(tool);
        }
        match (disclosed_section, added.is_empty()) {
            (Some(section), false) => Some(Injection {
                section,
                tools: added,
            }),
            _ => None,
        }
    }
}

/// Without dynamic tools, disclosing tools restarts the evaluation with the disclosing section
/// and the sections of the disclosed tools expanded.
fn expansion_for(
    disclosed: &[InjectedTool],
    disclosed_section: Option<&SectionPath>,
) -> LoopOutcome {
    let mut overrides: Vec<(SectionPath, wink_core::SectionVisibility)> = Vec::new();
    if let Some(section) = disclosed_section {
        overrides.push((section.clone(), wink_core::SectionVisibility::Full));
    }
    for t in disclosed {
        if !overrides.iter().any(|(p, _)| p == &t.section) {
            overrides.push((t.section.clone(), wink_core::SectionVisibility::Full));
        }
    }
    let keys = overrides.iter().map(|(p, _)| p.dotted()).collect();
    LoopOutcome::ExpansionRequired {
        requested_overrides: overrides,
        section_keys: keys,
        reason: "Adapter does not support dynamic tools".into(),
    }
}
