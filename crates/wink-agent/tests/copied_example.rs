//! The copied-example guard, for every provider: a call whose argument is the example from the
//! tool's own description, found nowhere in the conversation, gets a failed result and does not
//! run; a value the user, a tool or the task gave runs; `wink` mode keeps WINK v0.17's loop.
//! The unseen-code guard of the small-local profile: a record code found nowhere in the
//! conversation gets a failed result too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use wink_agent::*;
use wink_core::*;
use wink_session::{LoopIntervention, Session};

const EXPECTED: &str = "The tracking_number \"TRK-9931\" is the example in the description of `track_parcel`, not a value from this conversation. Get the tracking_number first: call lookup_order (Look up an order by id: status and tracking number.), then call `track_parcel` with the tracking_number it returns.";

/// A shop whose `track_parcel` teaches its format by example; `lookup_order` hides in a
/// summarized section. `task` goes into the task section, as a prompt's parameters would.
fn shop(mode: DisclosureMode, task: &str, runs: &Arc<AtomicUsize>) -> Prompt {
    let counter = Arc::clone(runs);
    let track = ToolBuilder::dynamic(
        "track_parcel",
        "Tell where a parcel is now.",
        json!({"type": "object", "properties": {"tracking_number": {"type": "string", "description": "The tracking number, e.g. TRK-9931."}}, "required": ["tracking_number"]}),
        move |_args, _ctx| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(ToolResult::message("In Lyon."))
        },
    )
    .build()
    .unwrap();
    let lookup = ToolBuilder::dynamic(
        "lookup_order",
        "Look up an order by id: status and tracking number. Needs the order id.",
        empty_params_schema(),
        |_args, _ctx| Ok(ToolResult::message("shipped, TRK-5555")),
    )
    .build()
    .unwrap();
    Prompt::new(Arc::new(
        PromptTemplate::builder("demo", "shop")
            .disclosure(mode)
            .section(MarkdownSection::new("Task", "task", task))
            .section(
                MarkdownSection::new(
                    "Shipping",
                    "shipping",
                    "Tracking numbers look like TRK-9931.",
                )
                .tool(track),
            )
            .section(
                MarkdownSection::new("Orders", "orders", "Order lookup.")
                    .summary("Orders.")
                    .summarized()
                    .tool(lookup),
            )
            .build()
            .unwrap(),
    ))
}

fn track_then_answer() -> ScriptedProvider {
    let turns = json!([
        {"tool_calls": [{"id": "c1", "name": "track_parcel", "arguments": {"tracking_number": "TRK-9931"}}]},
        {"text": "done"}
    ]);
    ScriptedProvider::from_json(&turns.to_string(), "test").unwrap()
}

fn run(
    mode: DisclosureMode,
    task: &str,
    configure: impl FnOnce(&mut MainLoopConfig),
) -> (ScriptedProvider, Session, usize) {
    let runs = Arc::new(AtomicUsize::new(0));
    let prompt = shop(mode, task, &runs);
    let provider = track_then_answer();
    let mut config = MainLoopConfig::default();
    configure(&mut config);
    let session = finish(&prompt, &provider, config);
    let count = runs.load(Ordering::SeqCst);
    (provider, session, count)
}

/// Runs `prompt` with `provider` until the model answers, and gives the session.
fn finish(prompt: &Prompt, provider: &ScriptedProvider, config: MainLoopConfig) -> Session {
    let session = Session::new();
    let result =
        block_on(MainLoop::new(provider, config).execute(prompt, &session, RunHooks::default()))
            .unwrap();
    assert!(
        matches!(result.outcome, LoopOutcome::Finished { .. }),
        "{:?}",
        result.outcome
    );
    session
}

/// The tool message answering `c1` in the last request.
fn result_of_c1(provider: &ScriptedProvider) -> (String, bool) {
    let requests = provider.requests();
    requests
        .last()
        .unwrap()
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } if tool_call_id == "c1" => Some((content.clone(), *is_error)),
            _ => None,
        })
        .unwrap()
}

fn interventions(session: &Session) -> Vec<(String, String)> {
    session
        .slice::<LoopIntervention>()
        .all()
        .iter()
        .map(|e| (e.kind.clone(), e.detail.clone()))
        .collect()
}

#[test]
fn the_example_from_the_description_is_refused_and_the_tool_does_not_run() {
    for mode in [DisclosureMode::Unified, DisclosureMode::OpenSections] {
        let (provider, session, runs) = run(mode, "Answer customers.", |config| {
            config.loop_config.user_message = Some("Where is my parcel?".into());
        });
        assert_eq!(runs, 0, "{mode:?}");
        assert_eq!(result_of_c1(&provider), (EXPECTED.to_owned(), true));
        assert_eq!(
            interventions(&session),
            [("copied_example".to_owned(), EXPECTED.to_owned())]
        );
    }
}

#[test]
fn a_value_from_the_user_or_the_task_runs() {
    let (provider, session, runs) = run(DisclosureMode::Unified, "Answer customers.", |config| {
        config.loop_config.user_message = Some("Where is parcel TRK-9931?".into());
    });
    assert_eq!(runs, 1);
    assert_eq!(result_of_c1(&provider), ("In Lyon.".to_owned(), false));
    assert!(interventions(&session).is_empty());
    // The question bound into the task section (no user message) is a source too.
    let (_, _, runs) = run(DisclosureMode::Unified, "Where is parcel TRK-9931?", |_| {});
    assert_eq!(runs, 1);
}

#[test]
fn wink_mode_and_the_switch_keep_the_call() {
    let (_, session, runs) = run(DisclosureMode::Wink, "Answer customers.", |_| {});
    assert_eq!(runs, 1);
    assert!(interventions(&session).is_empty());
    let (_, _, runs) = run(DisclosureMode::Unified, "Answer customers.", |config| {
        config.loop_config.example_guard = Some(false);
    });
    assert_eq!(runs, 1);
    let (provider, _, runs) = run(DisclosureMode::Wink, "Answer customers.", |config| {
        config.loop_config.example_guard = Some(true);
    });
    assert_eq!(runs, 0);
    assert!(result_of_c1(&provider).1);
}

/// A shop whose `track_parcel` has no example: a tracking number the model writes is either
/// from the conversation or made up. `parcel_history` names tracking numbers but takes one: it
/// is no source of them.
fn track_made_up(
    number: &str,
    configure: impl FnOnce(&mut MainLoopConfig),
) -> (ScriptedProvider, Session, usize) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let track = ToolBuilder::dynamic(
        "track_parcel",
        "Tell where a parcel is now.",
        json!({"type": "object", "properties": {"tracking_number": {"type": "string"}}, "required": ["tracking_number"]}),
        move |_args, _ctx| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(ToolResult::message("In Lyon."))
        },
    )
    .build()
    .unwrap();
    let history = ToolBuilder::dynamic(
        "parcel_history",
        "Every scan of the parcel with this tracking number.",
        json!({"type": "object", "properties": {"tracking_number": {"type": "string"}}, "required": ["tracking_number"]}),
        |_args, _ctx| Ok(ToolResult::message("Scanned in Paris.")),
    )
    .build()
    .unwrap();
    let prompt = Prompt::new(Arc::new(
        PromptTemplate::builder("demo", "shop")
            .section(
                MarkdownSection::new("Task", "task", "Answer customers.")
                    .tool(track)
                    .tool(history),
            )
            .build()
            .unwrap(),
    ));
    let turns = json!([
        {"tool_calls": [{"id": "c1", "name": "track_parcel", "arguments": {"tracking_number": number}}]},
        {"text": "done"}
    ]);
    let provider = ScriptedProvider::from_json(&turns.to_string(), "test").unwrap();
    let mut config = MainLoopConfig::default();
    config.loop_config.user_message =
        Some("Where is the parcel of Ana Lima? It was TRK-5555.".into());
    // Every turn policy off: the script's plain "done" is taken as it comes.
    for name in wink_model::profile::ALL_TURN_POLICIES {
        config.loop_config.repairs.insert(name.to_owned(), false);
    }
    configure(&mut config);
    let session = finish(&prompt, &provider, config);
    let count = runs.load(Ordering::SeqCst);
    (provider, session, count)
}

#[test]
fn a_made_up_code_is_refused_for_a_profile_that_asks_for_it() {
    const UNSEEN: &str = "The tracking_number \"TRK-4242\" appears nowhere in this conversation: not in the question, the prompt or a tool result. Call `track_parcel` with the tracking_number the user gave or a tool returned; if there is none yet, get it with another tool first or ask the user. Other tools: parcel_history (Every scan of the parcel with this tracking number.).";
    let small =
        |config: &mut MainLoopConfig| config.loop_config.profile = Some("small-local".into());
    let (provider, session, runs) = track_made_up("TRK-4242", small);
    assert_eq!(runs, 0);
    assert_eq!(result_of_c1(&provider), (UNSEEN.to_owned(), true));
    assert_eq!(
        interventions(&session),
        [("unseen_code".to_owned(), UNSEEN.to_owned())]
    );
    // A code the user gave runs, in any case.
    let (_, session, runs) = track_made_up("trk-5555", small);
    assert_eq!(runs, 1);
    assert!(interventions(&session).is_empty());
    // Profiles that do not ask for it (the scripted model's is the default), and the
    // example-guard switch, keep the call.
    let (_, _, runs) = track_made_up("TRK-4242", |_| {});
    assert_eq!(runs, 1);
    let (_, _, runs) = track_made_up("TRK-4242", |config| {
        small(config);
        config.loop_config.example_guard = Some(false);
    });
    assert_eq!(runs, 1);
}
