//! `wink worker`, `wink submit`, `wink result` and `wink queue stats` against a real
//! `redis-server` (each test starts its own on a free port; skipped, saying so, only where
//! redis-server is not installed: scripts/setup.sh installs it), and the fault test: worker
//! processes killed with SIGKILL every second and restarted, the Redis server restarted once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{fixture, stdout, wink};
use serde_json::{Value, json};
use wink_agent::AsyncMailbox;
use wink_redis::{QueueConfig, RedisMailbox, RedisServer, RunRequest, ServerError};

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

/// A `wink worker` process; killed on drop (a failing test leaves no worker behind).
struct Worker {
    child: Option<Child>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Worker {
    fn start(url: &str, queue: &str, concurrency: usize, env: &[(&str, &Path)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_wink"));
        command
            .args(["worker", &fixture("queue/prompt.json"), "--redis", url])
            .args(["--queue", queue, "--concurrency", &concurrency.to_string()])
            .args([
                "--model",
                &format!("scripted:{}", fixture("queue/script.json")),
            ])
            .args(["--lease", "2", "--max-deliveries", "100"])
            .env("RUST_BACKTRACE", "0")
            .env_remove("WINK_LOG")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        if let Some(sleep) = std::env::var_os("WINK_FAULT_TOOL_SLEEP") {
            command.env("WINK_TOOL_SLEEP", sleep);
        } else {
            command.env("WINK_TOOL_SLEEP", "0.1");
        }
        Self {
            child: Some(command.spawn().unwrap()),
        }
    }

    fn sigterm(mut self) -> String {
        let mut child = self.child.take().unwrap();
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "worker exit {status:?}: {stderr}");
        stderr
    }

    fn sigkill(self) {
        drop(self);
    }
}

fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

fn stats(url: &str, queue: &str) -> Value {
    let out = wink(&[
        "queue", "stats", "--redis", url, "--queue", queue, "--format", "json",
    ]);
    serde_json::from_str(&stdout(&out)).unwrap()
}

const DONE_USAGE: &str = r#"{"input_tokens":60,"output_tokens":7,"cached_tokens":0}"#;

#[test]
fn submit_worker_result_and_stats() {
    let Some(server) = server() else { return };
    let url = server.url();
    let prompt = fixture("queue/prompt.json");
    let submitted = wink(&[
        "submit",
        &prompt,
        "--redis",
        &url,
        "--params",
        r#"{"Task": {"objective": "a"}}"#,
    ]);
    let first = stdout(&submitted).trim().to_owned();
    assert_eq!(first.len(), 36, "{first}");
    assert_eq!(
        stats(&url, "wink"),
        json!({"pending": 1, "in_flight": 0, "dead_lettered": 0, "done": 0})
    );
    let pending = wink(&["result", &first, "--redis", &url, "--format", "json"]);
    assert_eq!(
        stdout(&pending).trim(),
        format!(
            r#"{{"request_id":"{first}","status":"pending","text":null,"output":null,"usage":{{"input_tokens":0,"output_tokens":0,"cached_tokens":0}}}}"#
        )
    );
    let worker = Worker::start(&url, "wink", 2, &[]);
    // --wait prints the result of the request it sent.
    let waited = wink(&[
        "submit", &prompt, "--redis", &url, "--input", "go", "--wait", "--format", "json",
    ]);
    let waited: Value = serde_json::from_str(stdout(&waited).trim()).unwrap();
    let second = waited["request_id"].as_str().unwrap().to_owned();
    assert_eq!(
        waited.to_string(),
        format!(
            r#"{{"request_id":"{second}","status":"done","text":"all done","output":null,"usage":{DONE_USAGE}}}"#
        )
    );
    let result = wink(&[
        "result", &first, "--redis", &url, "--wait", "--format", "json",
    ]);
    assert_eq!(
        stdout(&result).trim(),
        format!(
            r#"{{"request_id":"{first}","status":"done","text":"all done","output":null,"usage":{DONE_USAGE}}}"#
        )
    );
    let text = wink(&["result", &first, "--redis", &url]);
    assert_eq!(stdout(&text), "all done\n");
    assert_eq!(
        stats(&url, "wink"),
        json!({"pending": 0, "in_flight": 0, "dead_lettered": 0, "done": 2})
    );
    let text_stats = wink(&["queue", "stats", "--redis", &url]);
    assert_eq!(
        stdout(&text_stats),
        "pending: 0\nin_flight: 0\ndead_lettered: 0\ndone: 2\n"
    );
    let stderr = worker.sigterm();
    assert!(
        stderr.contains(
            "wink worker: stopped: 2 completed, 0 resumed, 0 skipped, 0 released; 10 checkpoints"
        ),
        "{stderr}"
    );
}

#[test]
fn sigterm_hands_a_run_back_after_its_step_and_another_worker_resumes_it() {
    let Some(server) = server() else { return };
    let url = server.url();
    let tool_log = server.dir().join("tools.log");
    let env = [
        ("WINK_TOOL_LOG", tool_log.as_path()),
        ("WINK_TOOL_SLEEP", Path::new("1")),
    ];
    let prompt = fixture("queue/prompt.json");
    let id = stdout(&wink(&["submit", &prompt, "--redis", &url]))
        .trim()
        .to_owned();
    let first = Worker::start(&url, "wink", 1, &env);
    // Stopped while its first tool call runs: it finishes that step, checkpoints it and hands
    // the request back.
    assert!(wait_until(Duration::from_secs(20), || tool_log.exists()));
    let stderr = first.sigterm();
    assert!(
        stderr.contains("stopped: 0 completed, 0 resumed, 0 skipped, 1 released; 2 checkpoints"),
        "{stderr}"
    );
    assert_eq!(
        stats(&url, "wink"),
        json!({"pending": 1, "in_flight": 0, "dead_lettered": 0, "done": 0})
    );
    let second = Worker::start(&url, "wink", 1, &env);
    let result = wink(&["result", &id, "--redis", &url, "--wait", "--format", "json"]);
    assert_eq!(
        stdout(&result).trim(),
        format!(
            r#"{{"request_id":"{id}","status":"done","text":"all done","output":null,"usage":{DONE_USAGE}}}"#
        )
    );
    let stderr = second.sigterm();
    assert!(
        stderr.contains("stopped: 1 completed, 1 resumed, 0 skipped, 0 released; 3 checkpoints"),
        "{stderr}"
    );
    // Each tool call ran once, with the request id as the session id.
    assert_eq!(
        std::fs::read_to_string(&tool_log).unwrap(),
        format!("{id} c1\n{id} c2\n")
    );
}

#[test]
fn bad_input_is_refused_before_anything_is_sent() {
    let prompt = fixture("queue/prompt.json");
    let out = wink(&[
        "submit",
        &prompt,
        "--redis",
        "redis://127.0.0.1:1/",
        "--params",
        r#"{"Nope": {}}"#,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --params: unknown params type 'Nope' (declared: Task)\n"
    );
    let out = wink(&["queue", "stats", "--redis", "http://x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("error: --redis: 'http://x' is not a Redis URL"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn oversized_requests_unknown_ids_and_bad_queue_names_are_refused() {
    let Some(server) = server() else { return };
    let url = server.url();
    let prompt = fixture("queue/prompt.json");
    // Over the limit: refused before anything is sent.
    let input = "x".repeat(2000);
    let out = wink(&[
        "submit",
        &prompt,
        "--redis",
        &url,
        "--input",
        &input,
        "--max-request-bytes",
        "1000",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: the request is 2012 bytes, over the limit of 1000 bytes (--max-request-bytes; the workers must take it too)\n"
    );
    assert_eq!(
        stats(&url, "wink"),
        json!({"pending": 0, "in_flight": 0, "dead_lettered": 0, "done": 0})
    );
    // A mistyped id is unknown (exit 1), with --wait too, which returns at once.
    for wait in [false, true] {
        let mut args = vec!["result", "0b9e4f2a-no-such-request", "--redis", &url];
        if wait {
            args.push("--wait");
        }
        let out = wink(&args);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "error: request 0b9e4f2a-no-such-request is unknown: the queue has no such request (a mistyped id, or its result has expired)\n"
        );
    }
    let out = wink(&["result", "not an id", "--redis", &url]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: REQUEST_ID: a request id holds only ASCII letters, digits, '-', '_', '.' and ':', not ' '\n"
    );
    for queue in ["", "a{b}"] {
        let out = wink(&["queue", "stats", "--redis", &url, "--queue", queue]);
        assert_eq!(out.status.code(), Some(2), "{queue}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .starts_with(&format!("error: --queue '{queue}': a queue name ")),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_port_without_redis_is_named_as_such() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let _ = std::io::Write::write_all(&mut stream, b"SSH-2.0-OpenSSH_9.2\r\n");
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let url = format!("redis://127.0.0.1:{port}/");
    let out = wink(&["queue", "stats", "--redis", &url]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: --redis {url}: what answered there does not speak the Redis protocol (is it the port of a Redis or Valkey server?)\n"
        )
    );
}

/// Lines of a log, counted: (total, repeated) where repeated = total − distinct.
fn repeats(path: &Path) -> (usize, usize) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for line in text.lines() {
        *seen.entry(line).or_default() += 1;
    }
    let total: usize = seen.values().sum();
    (total, total - seen.len())
}

/// A small deterministic generator for which worker to kill (no `rand` dependency).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// What the fault run measured.
#[derive(Debug)]
struct FaultReport {
    requests: usize,
    kills: usize,
    seconds: f64,
    model_calls: usize,
    repeated_model_calls: usize,
    tool_runs: usize,
    repeated_tool_runs: usize,
}

fn fault_run(server: &mut RedisServer, requests: usize) -> FaultReport {
    let url = server.url();
    let queue = "fault";
    let dir = server.dir().to_owned();
    let (tool_log, call_log): (PathBuf, PathBuf) = (dir.join("tools.log"), dir.join("calls.log"));
    let env = [
        ("WINK_TOOL_LOG", tool_log.as_path()),
        ("WINK_SCRIPTED_CALL_LOG", call_log.as_path()),
    ];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ids: Vec<String> = rt.block_on(async {
        let mailbox: RedisMailbox<RunRequest> =
            RedisMailbox::connect(&url, QueueConfig::new(queue))
                .await
                .unwrap();
        let mut ids = Vec::new();
        for i in 0..requests {
            let request = RunRequest {
                params: Some(json!({"Task": {"objective": format!("request {i}")}})),
                ..RunRequest::default()
            };
            ids.push(mailbox.send(request).await.unwrap());
        }
        ids
    });
    let started = Instant::now();
    let mut workers: Vec<Worker> = (0..4)
        .map(|_| Worker::start(&url, queue, 2, &env))
        .collect();
    let mut lcg = Lcg(0x5eed);
    let mut kills = 0;
    let mut restarted_redis = false;
    let finished = wait_until(Duration::from_secs(600), || {
        let done = stats(&url, queue)["done"].as_u64().unwrap_or(0) as usize;
        // Mid-run (a tenth done): restart the server (SIGTERM; append-only file on).
        if !restarted_redis && done >= requests / 10 {
            server.restart().unwrap();
            restarted_redis = true;
        }
        if done >= requests {
            return true;
        }
        // Once a second: SIGKILL one worker at random and start a new one.
        std::thread::sleep(Duration::from_millis(900));
        let victim = lcg.next(workers.len());
        workers.remove(victim).sigkill();
        kills += 1;
        workers.push(Worker::start(&url, queue, 2, &env));
        false
    });
    let seconds = started.elapsed().as_secs_f64();
    for w in workers {
        w.sigterm();
    }
    assert!(
        finished,
        "not every request finished: {}",
        stats(&url, queue)
    );
    assert!(restarted_redis);
    // Exactly one result per request, each the full run's.
    let results: Vec<Value> = rt.block_on(async {
        let mailbox: RedisMailbox<RunRequest> =
            RedisMailbox::connect(&url, QueueConfig::new(queue))
                .await
                .unwrap();
        let mut out = Vec::new();
        for id in &ids {
            out.push(serde_json::to_value(mailbox.result(id).await.unwrap()).unwrap());
        }
        out
    });
    for (id, result) in ids.iter().zip(&results) {
        assert_eq!(
            result.to_string(),
            format!(
                r#"{{"request_id":"{id}","status":"done","text":"all done","output":null,"usage":{DONE_USAGE}}}"#
            )
        );
    }
    assert_eq!(
        stats(&url, queue),
        json!({"pending": 0, "in_flight": 0, "dead_lettered": 0, "done": requests})
    );
    let calls = std::fs::read_to_string(&call_log).unwrap_or_default();
    for id in &ids {
        let mut turns: Vec<&str> = calls
            .lines()
            .filter_map(|l| l.strip_prefix(id.as_str()))
            .collect();
        turns.sort_unstable();
        turns.dedup();
        assert_eq!(turns, [" 0", " 1", " 2"], "model calls of {id}:\n{calls}");
    }
    let (model_calls, repeated_model_calls) = repeats(&call_log);
    let (tool_runs, repeated_tool_runs) = repeats(&tool_log);
    FaultReport {
        requests,
        kills,
        seconds,
        model_calls,
        repeated_model_calls,
        tool_runs,
        repeated_tool_runs,
    }
}

/// 4 workers (2 slots each), requests with two slow tool calls each; a worker SIGKILLed every
/// second and restarted; Redis restarted once. `WINK_FAULT_REQUESTS` sets the count
/// (bench/fault.sh runs 500).
#[test]
fn killed_workers_and_a_redis_restart_lose_nothing_and_repeat_only_inside_the_window() {
    let Some(mut server) = server() else { return };
    let requests = std::env::var("WINK_FAULT_REQUESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(80);
    let report = fault_run(&mut server, requests);
    println!(
        "fault report: {} requests, 4 workers x 2 slots, {} SIGKILLs, 1 redis restart, {:.1} s; \
         model calls {} ({} repeated), tool runs {} ({} repeated)",
        report.requests,
        report.kills,
        report.seconds,
        report.model_calls,
        report.repeated_model_calls,
        report.tool_runs,
        report.repeated_tool_runs
    );
    assert!(report.kills >= 2, "{report:?}");
    // Every request made its 3 model calls and 2 tool calls at least once; anything more is a
    // repeat, and a repeat happens only for a step cut off before its checkpoint: at most one
    // per in-flight run of a killed worker (2 slots), or per run cut off by the Redis restart.
    assert_eq!(
        report.model_calls - report.repeated_model_calls,
        3 * requests
    );
    assert_eq!(report.tool_runs - report.repeated_tool_runs, 2 * requests);
    let bound = 2 * report.kills + 8;
    assert!(report.repeated_model_calls <= bound, "{report:?}");
    assert!(report.repeated_tool_runs <= bound, "{report:?}");
}
