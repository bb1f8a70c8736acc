//! Publishing tools that `read_section` disclosed: visibility overrides, session events,
//! metrics and the observer.

use std::collections::HashMap;

use wink_core::{RenderedPrompt, SectionVisibility, ToolRef};
use wink_session::{
    ExpansionPath, Session, SetVisibilityOverride, ToolsInjected, VisibilityExpanded,
};

use super::RunObserver;
use crate::inner::Injection;
use crate::metrics;

pub(super) fn announce_injection(
    injection: &Injection,
    session: &Session,
    registry: &mut HashMap<String, ToolRef>,
    rendered: &RenderedPrompt,
    observer: Option<&dyn RunObserver>,
    reason: &str,
) {
    let section = &injection.section;
    let names: Vec<String> = injection
        .tools
        .iter()
        .map(|t| t.spec.name.clone())
        .collect();
    // The section read and the descendants owning injected tools are full from now on, so a
    // resumed or re-rendered conversation agrees with what the model saw.
    let mut paths = vec![section.clone()];
    for t in &injection.tools {
        if !paths.contains(&t.section) {
            paths.push(t.section.clone());
        }
    }
    for path in &paths {
        session.dispatch(SetVisibilityOverride {
            path: path.clone(),
            visibility: SectionVisibility::Full,
        });
    }
    for name in &names {
        if let Some((_, tool)) = rendered.template_tool(name) {
            registry.insert(name.clone(), tool);
        }
    }
    session.dispatch(
        ToolsInjected::new(names.clone(), section.dotted()).with_session_id(session.id()),
    );
    session.dispatch(
        VisibilityExpanded::new(vec![section.dotted()], reason, ExpansionPath::Dynamic)
            .with_session_id(session.id()),
    );
    metrics::record_injection(names.len());
    tracing::info!(section_key = %section.dotted(), tool_count = names.len(), tool_names = ?names, "Injected tools from section expansion");
    if let Some(o) = observer {
        o.on_tools_injected(&section.dotted(), &names);
    }
}
