//! Durable runs against a real `redis-server`: a run stopped after a checkpoint is resumed by
//! another worker without repeating its model calls or tool calls, under the same budget and
//! deadline.
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
    Claim, DurableEnd, DurableRun, QueueConfig, RedisMailbox, RedisServer, RunControl, ServerError,
    load_checkpoint,
};
use wink_session::Session;

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

#[test]
fn a_run_taken_over_resumes_from_its_last_checkpoint() {
    let Some(server) = server() else { return };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let lease = Duration::from_secs(30);
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
        assert_eq!(first.claim(id, lease).await.unwrap(), Claim::Acquired);
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
            .execute(&first, id, lease, None, &control)
            .await
            .unwrap();
        assert_eq!(end, DurableEnd::Stopped);
        assert_eq!(*executed.lock().unwrap(), ["c1"]);
        let checkpoint = load_checkpoint(&first, id).await.unwrap().unwrap();
        assert_eq!(checkpoint.steps, 3);
        assert_eq!(checkpoint.spent.model_calls, 2);
        assert_eq!(checkpoint.spent.tool_calls, 1);
        assert_eq!(checkpoint.spent.usage.input_tokens, 30);
        let deadline = checkpoint.deadline_ms.unwrap();

        // The lease is still the first worker's: the second sees it and stops.
        assert_eq!(second.claim(id, lease).await.unwrap(), Claim::Held);
        first.release(id).await.unwrap();
        assert_eq!(second.claim(id, lease).await.unwrap(), Claim::Acquired);
        // The first cannot write checkpoints any more (fenced by the lease).
        assert!(!first.checkpoint(id, "{}", lease).await.unwrap());

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
            .execute(&second, id, lease, Some(checkpoint), &RunControl::default())
            .await
            .unwrap();
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
        let last = load_checkpoint(&second, id).await.unwrap().unwrap();
        assert_eq!(last.deadline_ms, Some(deadline));
        assert_eq!(last.steps, 5);
    });
}

#[test]
fn the_deadline_survives_a_takeover() {
    let Some(server) = server() else { return };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let lease = Duration::from_secs(30);
        let mailbox: RedisMailbox<String> =
            RedisMailbox::connect(&server.url(), QueueConfig::new("d"))
                .await
                .unwrap();
        let id = "run-2";
        assert_eq!(mailbox.claim(id, lease).await.unwrap(), Claim::Acquired);
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
            run.execute(&mailbox, id, lease, None, &control)
                .await
                .unwrap(),
            DurableEnd::Stopped
        );
        let checkpoint = load_checkpoint(&mailbox, id).await.unwrap().unwrap();
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
            .execute(
                &mailbox,
                id,
                lease,
                Some(checkpoint),
                &RunControl::default(),
            )
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
