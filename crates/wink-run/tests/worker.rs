//! The runs of `wink worker` are prepared as every other run: the prompt file's `preopen` opens
//! the sections most relevant to the request's input, and catalogs decide for the model's window.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use wink_redis::{RunFactory, RunRequest};
use wink_run::model::ModelOptions;
use wink_run::worker::WorkerRuns;
use wink_run::{PromptSpec, RunSettings};

const PROMPT: &str = r#"{"ns": "tests", "key": "desk", "preopen": 1,
 "sections": [
  {"key": "task", "title": "Task", "template": "Help the customer."},
  {"key": "returns", "title": "Returns", "summary": "The returns policy.", "visibility": "summary",
   "template": "Refunds are paid within 14 days of a return."},
  {"key": "shipping", "title": "Shipping", "summary": "Shipping times.", "visibility": "summary",
   "template": "Parcels ship in two days."}
 ]}"#;

#[test]
fn a_worker_run_pre_opens_what_the_prompt_file_asks_for() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("desk.json");
    std::fs::write(&prompt, PROMPT).unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(&script, r#"[{"text": "ok"}]"#).unwrap();
    let runs = WorkerRuns::new(
        PromptSpec::file(&prompt),
        &format!("scripted:{}", script.display()),
        ModelOptions::default(),
        RunSettings::default(),
    )
    .unwrap();
    let request = RunRequest {
        input: Some("When is my refund paid after a return?".into()),
        ..RunRequest::default()
    };
    let run = runs.prepare("request-1", &request, 0).unwrap();
    let text = run.prompt.render_with(&run.session).unwrap().text;
    assert!(text.contains("Refunds are paid within 14 days"), "{text}");
    assert!(!text.contains("Parcels ship in two days"), "{text}");
    assert_eq!(
        run.config.loop_config.user_message.as_deref(),
        Some("When is my refund paid after a return?")
    );
}

#[test]
fn a_prepared_session_replays_the_events_a_run_dispatches_later() {
    // A worker's takeover replays the run's stream into a freshly prepared session: the event
    // types dispatched only once something happens must be known to it.
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("desk.json");
    std::fs::write(&prompt, PROMPT).unwrap();
    let prepared = PromptSpec::file(&prompt).load().unwrap();
    use wink_session::Event;
    for name in [
        wink_catalog::CatalogToolsActivated::type_name(),
        wink_catalog::CatalogNativeSearch::type_name(),
        wink_agent::SubagentRun::type_name(),
        wink_agent::SubagentEvent::type_name(),
        wink_session::TurnRepaired::type_name(),
    ] {
        assert!(prepared.session.is_event_type_registered(name), "{name}");
    }
}
