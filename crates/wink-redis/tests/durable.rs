//! Durable runs against a real `redis-server`: a run stopped after a checkpoint is resumed by
//! another worker without repeating its model calls or tool calls, under the same budget and
//! deadline; its stream holds the session's events step by step (a base every eight steps),
//! a gap left by lost writes is resumed from before it, and a batched policy's held sections
//! are carried over.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use wink_agent::{
    LoopOutcome, MainLoopConfig, ModelRequest, ProviderAdapter, ProviderFuture, ScriptedProvider,
    StreamSink,
};
use wink_core::{MarkdownSection, Prompt, PromptTemplate, ToolBuilder, ToolContext, ToolResult};
use wink_redis::{
    Claim, DurableEnd, DurableRun, QueueConfig, RedisMailbox, RedisServer, RunControl, RunEntry,
    ServerError, load_run,
};
use wink_session::{Session, ToolInvoked};

fn server() -> Option<RedisServer> {
    match RedisServer::start() {
        Ok(s) => Some(s),
        Err(ServerError::NotInstalled) => {
            println!("SKIPPED: redis-server is not installed (scripts/setup.sh installs it)");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// Sets `stop` when the model is called for the `at`-th time (counting from 1).
#[derive(Debug)]
struct StopAt {
    inner: ScriptedProvider,
    calls: Mutex<u32>,
    at: u32,
    stop: Arc<AtomicBool>,
}

impl ProviderAdapter for StopAt {
    fn name(&self) -> &str {
        "scripted"
    }
    fn model(&self) -> &str {
        "script"
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        let mut calls = self.calls.lock().unwrap();
        *calls += 1;
        if *calls == self.at {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.inner.complete(request, stream)
    }
}

const SCRIPT: &str = r#"[
  {"tool_calls": [{"id": "c1", "name": "work", "arguments": {"n": 1}}], "usage": {"input_tokens": 10, "output_tokens": 1, "cached_tokens": 0}},
  {"tool_calls": [{"id": "c2", "name": "work", "arguments": {"n": 2}}], "usage": {"input_tokens": 20, "output_tokens": 1, "cached_tokens": 0}},
  {"text": "done", "usage": {"input_tokens": 30, "output_tokens": 1, "cached_tokens": 0}}
]"#;

fn prompt(executed: Arc<Mutex<Vec<String>>>) -> Prompt {
    let work = ToolBuilder::dynamic(
        "work",
        "Do some work.",
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": false}),
        move |_args, ctx: &mut ToolContext| {
            executed
                .lock()
                .unwrap()
                .push(ctx.call_id.clone().unwrap_or_default());
            Ok(ToolResult::message("worked"))
        },
    )
    .build()
    .unwrap();
    let template = PromptTemplate::builder("demo", "durable")
        .section(MarkdownSection::new("Task", "task", "Work twice.").tool(work))
        .build()
        .unwrap();
    Prompt::new(template)
}

/// An entry's step, whether it is a base, and the types of the session records it holds.
fn entry_shape(entry: &RunEntry) -> (u64, bool, Vec<String>) {
    let types = entry
        .events
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    (entry.step, entry.base, types)
}

/// The call ids of the session's `ToolInvoked` records, in order.
fn call_ids(session: &Session) -> Vec<String> {
    session
        .slice::<ToolInvoked>()
        .all()
        .iter()
        .map(|t| t.call_id.clone().unwrap_or_default())
        .collect()
}

#[test]
fn a_run_taken_over_resumes_from_its_last_checkpoint() {
    let Some(server) = server() else { return };
    current_thread().block_on(async {
        let first: RedisMailbox<String> =
            RedisMailbox::connect(&server.url(), QueueConfig::new("d"))
                .await
                .unwrap();
        let second = first.clone().with_consumer("second");
        let id = "run-1";
        let executed = Arc::new(Mutex::new(Vec::new()));
        let script = ScriptedProvider::from_json(SCRIPT, "script").unwrap();
        let control = RunControl::default();
        let first_model = StopAt {
            inner: script.replay_from(0),
            calls: Mutex::new(0),
            at: 2,
            stop: control.stop.clone(),
        };
        assert_eq!(first.claim(id, LEASE).await.unwrap(), Claim::Acquired);
        let the_prompt = prompt(executed.clone());
        let session = Session::new();
        let run = DurableRun {
            prompt: &the_prompt,
            session: &session,
            adapter: &first_model,
            config: MainLoopConfig::default(),
            timeout: Some(Duration::from_secs(600)),
        };
        // Stopped after the second model turn was checkpointed.
        let end = run
            .execute(&first, id, LEASE, None, &control)
            .await
            .unwrap();
        assert_eq!(end, DurableEnd::Stopped);
        assert_eq!(*executed.lock().unwrap(), ["c1"]);
        let stored = load_run(&first, id).await.unwrap().unwrap();
        assert!(!stored.gap);
        let checkpoint = stored.checkpoint.clone();
        assert_eq!(checkpoint.steps, 3);
        assert_eq!(checkpoint.spent.model_calls, 2);
        assert_eq!(checkpoint.spent.tool_calls, 1);
        assert_eq!(checkpoint.spent.usage.input_tokens, 30);
        let deadline = checkpoint.deadline_ms.unwrap();

        // The lease is still the first worker's: the second sees it and stops.
        assert_eq!(second.claim(id, LEASE).await.unwrap(), Claim::Held);
        first.release(id).await.unwrap();
        assert_eq!(second.claim(id, LEASE).await.unwrap(), Claim::Acquired);
        // The first cannot write checkpoints any more (fenced by the lease).
        let entry = RunEntry {
            step: 4,
            base: false,
            events: String::new(),
            checkpoint: "{}".into(),
        };
        assert!(!first.checkpoint(id, &entry, LEASE).await.unwrap());
        // The stream: the first step is a base, the others hold their step's session events.
        assert_eq!(
            stream_shape(&first, id).await,
            [
                (1, true, vec!["wink.restored".into()]),
                (2, false, vec!["ToolInvoked".into()]),
                (3, false, vec!["ModelCalled".into()]),
            ]
        );

        let resumed_model = script.replay_from(checkpoint.spent.model_calls as usize);
        let session = Session::new();
        let run = DurableRun {
            prompt: &the_prompt,
            session: &session,
            adapter: &resumed_model,
            config: MainLoopConfig::default(),
            timeout: Some(Duration::from_secs(600)),
        };
        let end = run
            .execute(&second, id, LEASE, Some(stored), &RunControl::default())
            .await
            .unwrap();
        // The session was rebuilt from the stream's events: c1's record came from the first
        // worker, c2's from this one.
        assert_eq!(call_ids(&session), ["c1", "c2"]);
        let DurableEnd::Finished { outcome, spent } = end else {
            panic!("{end:?}")
        };
        assert_eq!(
            outcome,
            LoopOutcome::Finished {
                text: Some("done".into()),
                output: None
            }
        );
        // c2 ran once (by the second worker); c1 was not run again; one more model call.
        assert_eq!(*executed.lock().unwrap(), ["c1", "c2"]);
        assert_eq!(resumed_model.requests().len(), 1);
        assert_eq!(spent.model_calls, 3);
        assert_eq!(spent.tool_calls, 2);
        assert_eq!(spent.usage.input_tokens, 60);
        // The resumed model call saw the whole conversation so far: the system prompt, then two
        // calls with their results.
        let roles: Vec<String> = resumed_model.requests()[0]
            .messages
            .iter()
            .map(|m| {
                serde_json::to_value(m).unwrap()["role"]
                    .as_str()
                    .unwrap_or("?")
                    .to_owned()
            })
            .collect();
        assert_eq!(roles, ["system", "assistant", "tool", "assistant", "tool"]);
        let last = load_run(&second, id).await.unwrap().unwrap().checkpoint;
        assert_eq!(last.deadline_ms, Some(deadline));
        assert_eq!(last.steps, 5);
    });
}

#[test]
fn the_deadline_survives_a_takeover() {
    let Some(server) = server() else { return };
    current_thread().block_on(async {
        let mailbox: RedisMailbox<String> =
            RedisMailbox::connect(&server.url(), QueueConfig::new("d"))
                .await
                .unwrap();
        let id = "run-2";
        assert_eq!(mailbox.claim(id, LEASE).await.unwrap(), Claim::Acquired);
        let executed = Arc::new(Mutex::new(Vec::new()));
        let the_prompt = prompt(executed);
        let script = ScriptedProvider::from_json(SCRIPT, "script").unwrap();
        let control = RunControl::default();
        let model = StopAt {
            inner: script.replay_from(0),
            calls: Mutex::new(0),
            at: 1,
            stop: control.stop.clone(),
        };
        let session = Session::new();
        let run = DurableRun {
            prompt: &the_prompt,
            session: &session,
            adapter: &model,
            config: MainLoopConfig::default(),
            timeout: Some(Duration::from_millis(300)),
        };
        assert_eq!(
            run.execute(&mailbox, id, LEASE, None, &control)
                .await
                .unwrap(),
            DurableEnd::Stopped
        );
        let stored = load_run(&mailbox, id).await.unwrap();
        // The takeover comes after the run's 300 ms: it ends on the deadline at once, although
        // the new worker's own timeout would allow 600 s.
        tokio::time::sleep(Duration::from_millis(400)).await;
        let resumed_model = script.replay_from(1);
        let session = Session::new();
        let run = DurableRun {
            prompt: &the_prompt,
            session: &session,
            adapter: &resumed_model,
            config: MainLoopConfig::default(),
            timeout: Some(Duration::from_secs(600)),
        };
        let end = run
            .execute(&mailbox, id, LEASE, stored, &RunControl::default())
            .await
            .unwrap();
        let DurableEnd::Finished { outcome, .. } = end else {
            panic!("{end:?}")
        };
        assert_eq!(
            outcome,
            LoopOutcome::BudgetExceeded {
                limit: wink_agent::BudgetLimit::Deadline
            }
        );
        assert!(resumed_model.requests().is_empty());
    });
}

/// A script of `calls` tool calls, then the answer `done`.
fn script_of(calls: usize) -> ScriptedProvider {
    let mut turns: Vec<serde_json::Value> = (1..=calls)
        .map(|n| json!({"tool_calls": [{"id": format!("c{n}"), "name": "work", "arguments": {"n": n}}]}))
        .collect();
    turns.push(json!({"text": "done"}));
    ScriptedProvider::from_json(&serde_json::Value::Array(turns).to_string(), "script").unwrap()
}

/// The lease of every run here.
const LEASE: Duration = Duration::from_secs(30);

async fn connect(server: &RedisServer, consumer: &str) -> RedisMailbox<String> {
    RedisMailbox::connect(&server.url(), QueueConfig::new("d"))
        .await
        .unwrap()
        .with_consumer(consumer)
}

/// A plain connection to the server, to change a run's stream behind the workers' backs.
async fn raw(server: &RedisServer) -> redis::aio::MultiplexedConnection {
    redis::Client::open(server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

/// The stream key of the run of `id`.
fn run_key(id: &str) -> String {
    wink_redis::QueueKeys::new("d").run(id)
}

/// Runs `prompt` on `model` as `mailbox`'s consumer (which must hold the lease), from what the
/// run has stored.
async fn execute(
    mailbox: &RedisMailbox<String>,
    id: &str,
    prompt: &Prompt,
    session: &Session,
    model: &dyn ProviderAdapter,
    config: MainLoopConfig,
    control: &RunControl,
) -> DurableEnd {
    let stored = load_run(mailbox, id).await.unwrap();
    DurableRun {
        prompt,
        session,
        adapter: model,
        config,
        timeout: None,
    }
    .execute(mailbox, id, LEASE, stored, control)
    .await
    .unwrap()
}

/// Claims `id` for `mailbox` and runs `prompt` on `script` from its start, stopping once the
/// step of the model's `at`-th call is checkpointed.
async fn run_until_call(
    mailbox: &RedisMailbox<String>,
    id: &str,
    prompt: &Prompt,
    script: &ScriptedProvider,
    at: u32,
    config: MainLoopConfig,
) {
    let control = RunControl::default();
    let model = StopAt {
        inner: script.replay_from(0),
        calls: Mutex::new(0),
        at,
        stop: control.stop.clone(),
    };
    assert_eq!(mailbox.claim(id, LEASE).await.unwrap(), Claim::Acquired);
    let end = execute(
        mailbox,
        id,
        prompt,
        &Session::new(),
        &model,
        config,
        &control,
    )
    .await;
    assert_eq!(end, DurableEnd::Stopped);
}

/// `from` gives the lease of `id` up and `to` takes it.
async fn hand_over(from: &RedisMailbox<String>, to: &RedisMailbox<String>, id: &str) {
    from.release(id).await.unwrap();
    assert_eq!(to.claim(id, LEASE).await.unwrap(), Claim::Acquired);
}

/// Resumes the run of `id` as `mailbox` into `session`, its model `script` from turn `turn`,
/// and runs it to the end.
async fn finish(
    mailbox: &RedisMailbox<String>,
    id: &str,
    prompt: &Prompt,
    session: &Session,
    script: &ScriptedProvider,
    turn: usize,
    config: MainLoopConfig,
) {
    let model = script.replay_from(turn);
    let end = execute(
        mailbox,
        id,
        prompt,
        session,
        &model,
        config,
        &RunControl::default(),
    )
    .await;
    assert!(matches!(end, DurableEnd::Finished { .. }), "{end:?}");
}

/// [`entry_shape`] of every entry of the run of `id`.
async fn stream_shape(mailbox: &RedisMailbox<String>, id: &str) -> Vec<(u64, bool, Vec<String>)> {
    mailbox
        .run_entries(id)
        .await
        .unwrap()
        .iter()
        .map(entry_shape)
        .collect()
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_long_run_keeps_a_base_every_eight_steps_and_only_what_follows_it() {
    let Some(server) = server() else { return };
    current_thread().block_on(async {
        let (first, second) = (
            connect(&server, "first").await,
            connect(&server, "second").await,
        );
        let id = "run-long";
        let executed = Arc::new(Mutex::new(Vec::new()));
        let the_prompt = prompt(executed.clone());
        let script = script_of(6);
        let config = MainLoopConfig::default();
        // Stopped after the sixth model turn: step 11.
        run_until_call(&first, id, &the_prompt, &script, 6, config.clone()).await;
        assert_eq!(
            stream_shape(&first, id).await,
            [
                (8, true, vec!["wink.restored".into()]),
                (9, false, vec!["ModelCalled".into()]),
                (10, false, vec!["ToolInvoked".into()]),
                (11, false, vec!["ModelCalled".into()]),
            ]
        );
        hand_over(&first, &second, id).await;
        let session = Session::new();
        finish(&second, id, &the_prompt, &session, &script, 6, config).await;
        // Every call ran once; the resumed session holds all six (five from the base and the
        // entries after it, the sixth from this worker).
        let ran: Vec<String> = (1..=6).map(|n| format!("c{n}")).collect();
        assert_eq!(*executed.lock().unwrap(), ran);
        assert_eq!(call_ids(&session), ran);
    });
}

#[test]
fn a_gap_left_by_lost_writes_is_resumed_from_before_it_and_a_base_written() {
    let Some(server) = server() else { return };
    current_thread().block_on(async {
        let (first, second) = (
            connect(&server, "first").await,
            connect(&server, "second").await,
        );
        let id = "run-gap";
        let executed = Arc::new(Mutex::new(Vec::new()));
        let the_prompt = prompt(executed.clone());
        let script = script_of(2);
        let config = MainLoopConfig::default();
        run_until_call(&first, id, &the_prompt, &script, 2, config.clone()).await;
        // Step 2 (c1's outcome) is lost, as in a fail-over that lost writes while the worker
        // went on to write step 3.
        let mut conn = raw(&server).await;
        let ids: Vec<(String, Vec<(String, String)>)> = redis::cmd("XRANGE")
            .arg(run_key(id))
            .arg("-")
            .arg("+")
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(ids.len(), 3);
        let _: u64 = redis::cmd("XDEL")
            .arg(run_key(id))
            .arg(&ids[1].0)
            .query_async(&mut conn)
            .await
            .unwrap();
        let stored = load_run(&first, id).await.unwrap().unwrap();
        assert!(stored.gap);
        assert_eq!(stored.checkpoint.steps, 1);
        assert_eq!(stored.checkpoint.spent.model_calls, 1);

        hand_over(&first, &second, id).await;
        let session = Session::new();
        finish(&second, id, &the_prompt, &session, &script, 1, config).await;
        // c1 ran again (its outcome was lost: inside the documented window), once in the
        // session; the stream now starts with the second worker's base.
        assert_eq!(*executed.lock().unwrap(), ["c1", "c1", "c2"]);
        assert_eq!(call_ids(&session), ["c1", "c2"]);
        let shape = stream_shape(&second, id).await;
        assert_eq!(shape[0], (2, true, vec!["wink.restored".into()]));
        assert_eq!(shape.iter().map(|s| s.0).collect::<Vec<_>>(), [2, 3, 4, 5]);
    });
}

#[test]
fn the_sections_a_batched_policy_holds_back_survive_a_takeover() {
    let Some(server) = server() else { return };
    current_thread().block_on(async {
        let (first, second) = (connect(&server, "first").await, connect(&server, "second").await);
        let id = "run-held";
        let template = PromptTemplate::builder("demo", "held")
            .disclosure(wink_core::DisclosureMode::OpenSections)
            .section(MarkdownSection::new("A", "a", "A body").summary("A sum").summarized())
            .section(MarkdownSection::new("B", "b", "B body").summary("B sum").summarized())
            .build()
            .unwrap();
        let the_prompt = Prompt::new(template);
        let open = |id: &str, key: &str| {
            json!({"tool_calls": [{"id": id, "name": "open_sections", "arguments": {"section_keys": [key], "reason": "r"}}]})
        };
        let turns = json!([open("c1", "a"), open("c2", "b"), {"text": "ok"}]);
        let script = ScriptedProvider::from_json(&turns.to_string(), "script").unwrap();
        let config = MainLoopConfig {
            policy: wink_agent::ExpansionPolicy::Batched { size: 2 },
            ..MainLoopConfig::default()
        };
        run_until_call(&first, id, &the_prompt, &script, 2, config.clone()).await;
        let stored = load_run(&first, id).await.unwrap().unwrap();
        assert_eq!(stored.checkpoint.held, [wink_session::SectionPath::root("a")]);

        hand_over(&first, &second, id).await;
        let session = Session::new();
        finish(&second, id, &the_prompt, &session, &script, 2, config).await;
        // The second request made the batch of two: both sections opened in one restart.
        let overrides = session.visibility_overrides();
        for key in ["a", "b"] {
            assert_eq!(
                overrides.get(&wink_session::SectionPath::root(key)),
                Some(wink_session::SectionVisibility::Full),
                "{key}"
            );
        }
        let last = load_run(&second, id).await.unwrap().unwrap();
        assert_eq!(last.checkpoint.restarts, 1);
    });
}

#[test]
fn a_run_left_by_an_earlier_checkpoint_format_starts_again_from_its_first_step() {
    let Some(server) = server() else { return };
    current_thread().block_on(async {
        let mailbox = connect(&server, "worker").await;
        let id = "run-upgraded";
        // What a wink before event streams wrote: the whole state under `checkpoint` alone.
        let mut conn = raw(&server).await;
        let _: String = redis::cmd("XADD")
            .arg(run_key(id))
            .arg("*")
            .arg("checkpoint")
            .arg(r#"{"steps": 3, "session": {}}"#)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(load_run(&mailbox, id).await.unwrap(), None);
        assert_eq!(mailbox.claim(id, LEASE).await.unwrap(), Claim::Acquired);
        let executed = Arc::new(Mutex::new(Vec::new()));
        let the_prompt = prompt(executed.clone());
        let config = MainLoopConfig::default();
        finish(
            &mailbox,
            id,
            &the_prompt,
            &Session::new(),
            &script_of(1),
            0,
            config,
        )
        .await;
        assert_eq!(*executed.lock().unwrap(), ["c1"]);
        // The old entry was trimmed by the run's first base.
        let steps: Vec<(u64, bool)> = mailbox
            .run_entries(id)
            .await
            .unwrap()
            .iter()
            .map(|e| (e.step, e.base))
            .collect();
        assert_eq!(steps, [(1, true), (2, false), (3, false)]);
        let len: u64 = redis::cmd("XLEN")
            .arg(run_key(id))
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(len, 3);
    });
}
