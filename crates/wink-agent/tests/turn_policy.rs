//! Turn policies in the loop, for every provider: a turn a policy takes back is asked for again
//! (as a call of the named tool, any call, or a plain answer after a reminder), once; every
//! firing is a `TurnRepaired` event; a profile without policies leaves turns alone; each policy
//! switches off alone; the answer tool joins after the first result; streamed text of a turn
//! that is taken back never reaches the sink.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use wink_agent::*;
use wink_core::*;
use wink_session::{Session, TurnRepaired};

fn add() -> ToolRef {
    ToolBuilder::dynamic(
        "add",
        "Add two integers a and b.",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
        |args, _ctx| {
            let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
            Ok(ToolResult::message(format!("{sum}")))
        },
    )
    .build()
    .unwrap()
}

fn calculator() -> Prompt {
    Prompt::new(Arc::new(
        PromptTemplate::builder("demo", "calc")
            .section(MarkdownSection::new("Task", "task", "Add numbers with `add`.").tool(add()))
            .build()
            .unwrap(),
    ))
}

struct Run {
    result: RunResult,
    requests: Vec<ModelRequest>,
    session: Session,
}

fn run_with(script: &str, loop_config: LoopConfig, stream: Option<&dyn StreamSink>) -> Run {
    let model = ScriptedProvider::from_json(script, "inline").unwrap();
    let session = Session::new();
    let config = MainLoopConfig {
        loop_config: LoopConfig {
            user_message: Some("What is 2 + 3?".into()),
            ..loop_config
        },
        ..MainLoopConfig::default()
    };
    let hooks = RunHooks {
        stream,
        observer: None,
    };
    let result =
        block_on(MainLoop::new(&model, config).execute(&calculator(), &session, hooks)).unwrap();
    Run {
        result,
        requests: model.requests(),
        session,
    }
}

fn small(repairs: &[(&str, bool)], answer_tool: Option<bool>) -> LoopConfig {
    LoopConfig {
        profile: Some("small-local".into()),
        repairs: repairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect::<BTreeMap<_, _>>(),
        answer_tool,
        ..LoopConfig::default()
    }
}

const DESCRIBED: &str = r#"[
  {"text": "You can call the `add` function with a = 2 and b = 3."},
  {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
  {"text": "2 + 3 = 5."}
]"#;

#[test]
fn a_described_call_is_asked_for_again_as_a_call_of_that_tool() {
    let run = run_with(DESCRIBED, small(&[], Some(false)), None);
    assert_eq!(run.result.text(), Some("2 + 3 = 5."));
    assert_eq!(run.result.spent.model_calls, 3);
    assert_eq!(run.requests[0].tool_choice, ToolChoice::Auto);
    assert_eq!(run.requests[1].tool_choice, ToolChoice::Tool("add".into()));
    // The same conversation: the answer taken back is not in it.
    assert_eq!(run.requests[1].messages, run.requests[0].messages);
    let repaired = run.session.slice::<TurnRepaired>().all();
    assert_eq!(repaired.len(), 1);
    assert_eq!(
        (
            repaired[0].rule.as_str(),
            repaired[0].action.as_str(),
            repaired[0].tool.as_deref(),
            repaired[0].text.as_str()
        ),
        (
            "named-tool",
            "require_tool",
            Some("add"),
            "You can call the `add` function with a = 2 and b = 3."
        )
    );
    // Nor later: the conversation goes on from the call.
    assert_eq!(run.requests[2].messages.len(), 4);
    assert!(
        !format!("{:?}", run.requests[2].messages).contains("You can call"),
        "{:?}",
        run.requests[2].messages
    );
}

#[test]
fn without_policies_or_with_one_switched_off_the_turn_stands() {
    for config in [
        LoopConfig::default(),
        small(&[("named-tool", false)], Some(false)),
        LoopConfig {
            profile: Some("default".into()),
            ..LoopConfig::default()
        },
    ] {
        let run = run_with(DESCRIBED, config, None);
        assert_eq!(
            run.result.text(),
            Some("You can call the `add` function with a = 2 and b = 3.")
        );
        assert_eq!(run.requests.len(), 1);
        assert!(run.session.slice::<TurnRepaired>().all().is_empty());
    }
}

#[test]
fn a_policy_switched_on_works_without_a_profile() {
    let run = run_with(
        DESCRIBED,
        LoopConfig {
            repairs: BTreeMap::from([("named-tool".to_owned(), true)]),
            ..LoopConfig::default()
        },
        None,
    );
    assert_eq!(run.result.text(), Some("2 + 3 = 5."));
}

#[test]
fn a_turn_that_answers_a_repair_is_taken_as_it_comes() {
    // The model describes the call again when asked for it: one repair per turn, the second
    // description is the answer.
    let script = r#"[
      {"text": "You can call the `add` function with a = 2 and b = 3."},
      {"text": "Use the `add` function."}
    ]"#;
    let run = run_with(script, small(&[], Some(false)), None);
    assert_eq!(run.result.text(), Some("Use the `add` function."));
    assert_eq!(run.requests.len(), 2);
    assert_eq!(run.session.slice::<TurnRepaired>().all().len(), 1);
}

#[test]
fn an_echo_of_the_prompt_after_the_result_is_asked_again_as_text() {
    let script = r#"[
      {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
      {"text": "To view full content, call `read_section` with key \"notes\"."},
      {"text": "2 + 3 = 5."}
    ]"#;
    let run = run_with(
        script,
        LoopConfig {
            repairs: BTreeMap::from([
                ("disclosure-echo".to_owned(), true),
                ("ungrounded".to_owned(), true),
            ]),
            ..LoopConfig::default()
        },
        None,
    );
    assert_eq!(run.result.text(), Some("2 + 3 = 5."));
    let asked = &run.requests[2];
    assert_eq!(asked.tool_choice, ToolChoice::None);
    assert_eq!(
        asked.messages.last(),
        Some(&Message::user(format!(
            "{}\nMy question: What is 2 + 3?",
            turn_policy::ANSWER_REMINDER
        )))
    );
    assert_eq!(asked.messages.len(), run.requests[1].messages.len() + 1);
    let repaired = run.session.slice::<TurnRepaired>().all();
    assert_eq!(
        (repaired[0].rule.as_str(), repaired[0].action.as_str()),
        ("ungrounded", "ask_again_as_text")
    );
}

#[test]
fn the_answer_tool_joins_after_the_first_result_and_its_call_is_the_answer() {
    let script = r#"[
      {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
      {"tool_calls": [{"name": "final_answer", "arguments": {"answer": " 2 + 3 = 5. "}}]}
    ]"#;
    let run = run_with(script, small(&[], None), None);
    assert_eq!(run.result.text(), Some("2 + 3 = 5."));
    let names = |r: &ModelRequest| r.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&run.requests[0]), ["add"]);
    assert_eq!(names(&run.requests[1]), ["add", "final_answer"]);
    assert_eq!(
        run.requests[1].tool_additions,
        [ToolAddition {
            after_message: 3,
            section: String::new(),
            tools: vec!["final_answer".into()],
        }]
    );
    // Off by the run's say-so: never offered.
    let off = run_with(script, small(&[], Some(false)), None);
    assert_eq!(names(&off.requests[1]), ["add"]);
}

#[test]
fn an_empty_answer_to_the_answer_only_turn_is_asked_again_as_the_answer_tool() {
    // Two repeats make the next turn answer-only; the model ends it at once, writing nothing.
    let script = r#"[
      {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
      {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
      {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
      {"text": ""},
      {"tool_calls": [{"name": "final_answer", "arguments": {"answer": "2 + 3 = 5."}}]}
    ]"#;
    let run = run_with(script, small(&[], None), None);
    assert_eq!(run.result.text(), Some("2 + 3 = 5."));
    assert_eq!(run.result.spent.model_calls, 5);
    assert_eq!(run.requests[3].tool_choice, ToolChoice::None);
    assert_eq!(
        run.requests[4].tool_choice,
        ToolChoice::Tool("final_answer".into())
    );
    assert_eq!(run.requests[4].messages, run.requests[3].messages);
    let repaired = run.session.slice::<TurnRepaired>().all();
    assert_eq!(
        repaired
            .iter()
            .map(|r| (r.rule.as_str(), r.action.as_str(), r.tool.as_deref()))
            .collect::<Vec<_>>(),
        [("empty-answer", "require_tool", Some("final_answer"))]
    );
    // Switched off, the empty answer stands.
    let off = run_with(script, small(&[("empty-answer", false)], None), None);
    assert_eq!(off.result.text(), Some(""));
    assert_eq!(off.result.spent.model_calls, 4);
}

#[derive(Default)]
struct Collect(Mutex<String>);

impl StreamSink for Collect {
    fn on_delta(&self, delta: &StreamDelta) {
        if let StreamDelta::Text { text } = delta {
            self.0.lock().unwrap().push_str(text);
        }
    }
}

#[test]
fn the_text_of_a_turn_taken_back_is_never_streamed() {
    let sink = Collect::default();
    let run = run_with(DESCRIBED, small(&[], Some(false)), Some(&sink));
    assert_eq!(run.result.text(), Some("2 + 3 = 5."));
    assert_eq!(sink.0.lock().unwrap().as_str(), "2 + 3 = 5.");
}

#[test]
fn without_a_user_message_a_small_model_profile_gets_the_prompt_as_its_user_turn() {
    let send = |profile: &str| {
        let model = ScriptedProvider::from_json(r#"[{"text": "5"}]"#, "inline").unwrap();
        let config = MainLoopConfig {
            loop_config: LoopConfig {
                profile: Some(profile.into()),
                ..LoopConfig::default()
            },
            ..MainLoopConfig::default()
        };
        let session = Session::new();
        let result = block_on(MainLoop::new(&model, config).execute(
            &calculator(),
            &session,
            RunHooks::default(),
        ))
        .unwrap();
        assert_eq!(result.text(), Some("5"));
        model.requests().remove(0).messages
    };
    let prompt = "## 1. Task (task)\n\nAdd numbers with `add`.";
    assert_eq!(send("small-local"), [Message::user(prompt)]);
    assert_eq!(send("default"), [Message::system(prompt)]);
    assert_eq!(send("hosted"), [Message::system(prompt)]);
}
