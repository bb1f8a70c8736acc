//! `on_run_start`: one process-wide hook sees every top-level run the main loop starts — an
//! `Agent`'s — and not the runs of the sub-agents it dispatches (their events reach the
//! parent's session). This binary holds the only test that sets the hook.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use wink_agent::{
    Agent, LoopOutcome, PromptRegistry, PromptSubagentToolsSection, ScriptedProvider, on_run_start,
};
use wink_core::{MarkdownSection, Prompt, PromptTemplate, block_on};
use wink_session::SessionId;

const SCRIPT: &str = r#"[
  {"tool_calls": [{"name": "dispatch_subagent", "arguments": {"mode": "ad_hoc",
    "prompt_ns": "research", "prompt_key": "investigate", "instructions": "Find the answer."}}]},
  {"text": "The answer is 42."},
  {"text": "42."}
]"#;

fn prompt() -> Prompt {
    let registry = PromptRegistry::new();
    registry
        .register(
            PromptTemplate::builder("research", "investigate")
                .section(MarkdownSection::new("Role", "role", "You investigate."))
                .build()
                .unwrap(),
        )
        .unwrap();
    Prompt::new(
        PromptTemplate::builder("demo", "root")
            .section(MarkdownSection::new("Task", "task", "Answer."))
            .section(
                PromptSubagentToolsSection::builder(registry)
                    .build()
                    .unwrap(),
            )
            .build()
            .unwrap(),
    )
}

#[test]
fn the_hook_sees_each_agent_run_and_no_subagent_run() {
    let seen: Arc<Mutex<Vec<SessionId>>> = Arc::default();
    let sink = Arc::clone(&seen);
    assert!(on_run_start(move |session| sink
        .lock()
        .unwrap()
        .push(session.id())));
    assert!(!on_run_start(|_| {}), "one hook per process");
    let agent = Agent::new(Arc::new(
        ScriptedProvider::from_json(SCRIPT, "inline").unwrap(),
    ));
    let run = block_on(agent.run(&prompt())).unwrap();
    assert!(matches!(run.outcome, LoopOutcome::Finished { .. }));
    // Two model calls of the parent, one of the child; the hook saw the parent's run only.
    assert_eq!(*seen.lock().unwrap(), [agent.session().id()]);
}
