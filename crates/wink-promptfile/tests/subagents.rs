//! `"subagents": {"NAME": "FILE"}`: sub-agent prompts declared by relative file path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use wink_core::Prompt;
use wink_promptfile::{FileFormat, load, load_str};

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "wink-promptfile-subagents-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const REVIEWER: &str = r#"{"ns": "code", "key": "reviewer", "name": "Review a diff",
  "sections": [{"key": "role", "title": "Role", "template": "Review."}]}"#;

fn lead(subagents: &str) -> String {
    format!(
        r#"{{"ns": "code", "key": "lead",
  "sections": [{{"key": "task", "title": "Task", "template": "Ship it."}}],
  "subagents": {subagents}}}"#
    )
}

fn error_in(dir: &Path, text: &str) -> String {
    load_str(text, FileFormat::Json, dir, "lead.json")
        .unwrap_err()
        .to_string()
}

#[test]
fn a_subagents_registry_adds_the_dispatch_section() {
    let loaded = load(&corpus("subagents_lead.yaml")).unwrap();
    let section = loaded.subagents.as_ref().unwrap();
    assert_eq!(
        section.registry().enabled_keys(),
        [("code".to_owned(), "reviewer".to_owned())]
    );
    let rendered = Prompt::new(loaded.template).render().unwrap();
    assert_eq!(rendered.tool_names(), ["echo", "dispatch_subagent"]);
    assert!(
        rendered
            .text
            .starts_with("## 1. Task (task)\n\nShip the change; hand the review to the reviewer sub-agent.\n\n## 2. Tools (tools)\n\nUse echo to repeat a text.\n\n## 3. Subagents (subagents)\n\nUse `dispatch_subagent`"),
        "{}",
        rendered.text
    );
    assert!(
        rendered.text.contains(
            "\n\nSubagent prompts:\n- prompt_ns \"code\", prompt_key \"reviewer\": Review a diff and list problems\n\nTools:\n- dispatch_subagent: "
        ),
        "{}",
        rendered.text
    );
}

#[test]
fn a_file_without_subagents_has_no_section() {
    let loaded = load(&corpus("subagents_reviewer.json")).unwrap();
    assert!(loaded.subagents.is_none());
}

#[test]
fn sub_agent_entries_are_checked() {
    let dir = temp_dir("errors");
    std::fs::write(dir.join("reviewer.json"), REVIEWER).unwrap();
    std::fs::write(
        dir.join("nested.json"),
        r#"{"ns": "code", "key": "nested", "subagents": {"reviewer": "reviewer.json"}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("broken.json"),
        r#"{"ns": "code", "key": "broken", "sections": [{"key": "x"}]}"#,
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "not a prompt").unwrap();
    let shown = |name: &str| dir.join(name).display().to_string();
    assert_eq!(
        error_in(&dir, &lead(r#"{"critic": "reviewer.json"}"#)),
        format!(
            "lead.json: subagents.critic: {} declares key 'reviewer': the entry's name must be the prompt's key (the model dispatches it as prompt_key)",
            shown("reviewer.json")
        )
    );
    assert_eq!(
        error_in(&dir, &lead(r#"{"nested": "nested.json"}"#)),
        format!(
            "lead.json: subagents.nested: {}: a sub-agent prompt cannot declare subagents of its own",
            shown("nested.json")
        )
    );
    let missing = error_in(&dir, &lead(r#"{"ghost": "ghost.json"}"#));
    assert!(
        missing.starts_with(&format!(
            "lead.json: subagents.ghost: cannot read {}: ",
            shown("ghost.json")
        )),
        "{missing}"
    );
    assert_eq!(
        error_in(&dir, &lead(r#"{"notes": "notes.txt"}"#)),
        "lead.json: subagents.notes: 'notes.txt' is not a prompt file (use .json, .toml, .yaml or .yml)"
    );
    assert_eq!(
        error_in(&dir, &lead(r#"{"broken": "broken.json"}"#)),
        format!(
            "lead.json: subagents.broken: {}: sections[0]: missing field `title`",
            shown("broken.json")
        )
    );
}

#[test]
fn a_dispatched_child_is_offered_the_parent_tool_sections() {
    let dir = temp_dir("suite");
    std::fs::write(dir.join("reviewer.json"), REVIEWER).unwrap();
    let text = r#"{"ns": "code", "key": "lead",
      "sections": [
        {"key": "task", "title": "Task", "template": "Ship it."},
        {"key": "tools", "title": "Tools", "template": "Tools.", "summary": "Some tools.",
         "visibility": "summary",
         "tools": [{"name": "echo", "description": "Repeat.", "handler": {"command": ["cat"]}}]}
      ],
      "subagents": {"reviewer": "reviewer.json"}}"#;
    let loaded = load_str(text, FileFormat::Json, &dir, "lead.json").unwrap();
    let provider = std::sync::Arc::new(
        wink_agent::ScriptedProvider::from_json(
            r#"[{"tool_calls": [{"name": "dispatch_subagent", "arguments": {"mode": "ad_hoc",
                 "prompt_ns": "code", "prompt_key": "reviewer", "instructions": "Review."}}]},
                {"text": "Fine."}, {"text": "Shipped."}]"#,
            "inline",
        )
        .unwrap(),
    );
    let adapter: std::sync::Arc<dyn wink_agent::ProviderAdapter> = provider.clone();
    let config = wink_agent::MainLoopConfig {
        resources: wink_core::Resources::new().with(adapter),
        ..wink_agent::MainLoopConfig::default()
    };
    let run = wink_core::block_on(
        wink_agent::MainLoop::new(provider.as_ref(), config).execute(
            &Prompt::new(loaded.template),
            &wink_session::Session::new(),
            wink_agent::RunHooks::default(),
        ),
    )
    .unwrap();
    assert_eq!(
        run.outcome,
        wink_agent::LoopOutcome::Finished {
            text: Some("Shipped.".into()),
            output: None
        }
    );
    // The child's request: its own section plus the parent's tool section (summarized, as in
    // the parent), not the parent's task.
    let child = &provider.requests()[1];
    let system = match &child.messages[0] {
        wink_agent::Message::System { content } => content.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        system.starts_with("## 1. Role (role)\n\nReview.\n\n## 2. Tools (tools)\n\nSome tools."),
        "{system}"
    );
    assert!(!system.contains("Ship it."), "{system}");
}
