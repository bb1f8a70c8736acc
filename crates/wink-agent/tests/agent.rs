//! `Agent`: one owner of adapter, budget and session; sub-agents inherit the adapter and the
//! budget without resources wired by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use wink_agent::{
    Agent, Budget, BudgetTracker, LoopOutcome, PromptRegistry, PromptSubagentToolsSection,
    RunHooks, ScriptedProvider, SubagentRun,
};
use wink_core::{MarkdownSection, Prompt, PromptTemplate, block_on};
use wink_session::Session;

fn parent_prompt() -> Prompt {
    let registry = PromptRegistry::new();
    registry
        .register(
            PromptTemplate::builder("research", "investigate")
                .section(MarkdownSection::new(
                    "Role",
                    "role",
                    "You investigate one question.",
                ))
                .build()
                .unwrap(),
        )
        .unwrap();
    let subagents = PromptSubagentToolsSection::builder(registry)
        .build()
        .unwrap();
    Prompt::new(
        PromptTemplate::builder("demo", "root")
            .section(MarkdownSection::new("Task", "task", "Answer the question."))
            .section(subagents)
            .build()
            .unwrap(),
    )
}

const SCRIPT: &str = r#"[
  {"tool_calls": [{"name": "dispatch_subagent", "arguments": {"mode": "ad_hoc",
    "prompt_ns": "research", "prompt_key": "investigate", "instructions": "Find the answer."}}],
   "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 0}},
  {"text": "The answer is 42.", "usage": {"input_tokens": 50, "output_tokens": 5, "cached_tokens": 0}},
  {"text": "42.", "usage": {"input_tokens": 120, "output_tokens": 3, "cached_tokens": 0}}
]"#;

#[test]
fn subagents_inherit_the_agents_adapter_and_budget() {
    let model = ScriptedProvider::from_json(SCRIPT, "inline").unwrap();
    let agent = Agent::new(Arc::new(model));
    let run = block_on(agent.run(&parent_prompt())).unwrap();
    assert_eq!(
        run.outcome,
        LoopOutcome::Finished {
            text: Some("42.".into()),
            output: None
        }
    );
    // The child's model call is spent from the run's budget.
    assert_eq!(run.spent.model_calls, 3);
    assert_eq!(run.spent.usage.input_tokens, 270);
    let recorded = agent.session().slice::<SubagentRun>().all();
    assert_eq!(recorded.len(), 1);
    assert_eq!(
        recorded[0].message_summary.as_deref(),
        Some("The answer is 42.")
    );
}

#[test]
fn the_agents_budget_caps_the_parent_and_its_children_together() {
    let model = ScriptedProvider::from_json(SCRIPT, "inline").unwrap();
    // Two model calls: the parent's first and the child's; the parent's answer is over budget.
    let agent = Agent::new(Arc::new(model)).with_budget(Budget {
        max_model_calls: Some(2),
        ..Budget::default()
    });
    let run = block_on(agent.run(&parent_prompt())).unwrap();
    assert!(
        matches!(run.outcome, LoopOutcome::BudgetExceeded { .. }),
        "{:?}",
        run.outcome
    );
    assert_eq!(run.spent.model_calls, 2);
}

#[test]
fn run_with_shares_a_tracker_across_runs_and_the_session_is_the_agents() {
    let model = ScriptedProvider::from_json(
        r#"[{"text": "one"}, {"text": "two"}, {"text": "three"}]"#,
        "inline",
    )
    .unwrap();
    let session = Session::new();
    let agent = Agent::new(Arc::new(model)).with_session(session.clone());
    assert_eq!(agent.session().id(), session.id());
    let prompt = Prompt::new(
        PromptTemplate::builder("demo", "hello")
            .section(MarkdownSection::new("Task", "task", "Say something."))
            .build()
            .unwrap(),
    );
    let tracker = BudgetTracker::new(Budget {
        max_model_calls: Some(2),
        ..Budget::default()
    });
    let first = block_on(agent.run_with(&prompt, tracker.clone(), RunHooks::default())).unwrap();
    assert_eq!(first.text(), Some("one"));
    let second = block_on(agent.run_with(&prompt, tracker.clone(), RunHooks::default())).unwrap();
    assert_eq!(second.text(), Some("two"));
    let third = block_on(agent.run_with(&prompt, tracker, RunHooks::default())).unwrap();
    assert!(matches!(third.outcome, LoopOutcome::BudgetExceeded { .. }));
    // A plain run gets a fresh budget.
    let fourth = block_on(agent.run(&prompt)).unwrap();
    assert_eq!(fourth.text(), Some("three"));
}
