//! What tracing costs a run: 10,000 scripted model calls (2,000 runs of example 01's shape:
//! read a summarized section, three tool calls, an answer) with spans off; mapped live into a
//! sink that drops them (the mapping alone); exported over OTLP http/protobuf to a collector on
//! loopback that accepts them (the whole path: mapping, the SDK's batch processor, the export
//! thread); and exported to a collector that is down (a closed loopback port): every run must
//! finish, and the exit flush must not wait for it.
//!
//! `cargo bench -p wink-trace --bench overhead` (each mode runs in a child process of its own,
//! five times, the modes interleaved; medians are printed).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{Value, json};
use wink_agent::*;
use wink_core::*;
use wink_session::Session;
use wink_trace::TraceOptions;

const RUNS: usize = 2_000;
const CALLS_PER_RUN: usize = 5;

fn lookup() -> ToolRef {
    ToolBuilder::dynamic(
        "lookup",
        "Look an order up.",
        json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}),
        |args, _ctx| Ok(ToolResult::message(format!("order {} shipped", args["id"]))),
    )
    .build()
    .unwrap()
}

fn template() -> Arc<PromptTemplate> {
    Arc::new(
        PromptTemplate::builder("bench", "overhead")
            .section(MarkdownSection::new(
                "Task",
                "task",
                "Answer about the orders.",
            ))
            .section(
                MarkdownSection::new("Orders", "orders", "Use `lookup`.")
                    .summary("Order tools.")
                    .summarized()
                    .tool(lookup()),
            )
            .build()
            .unwrap(),
    )
}

fn script() -> String {
    let usage = json!({"input_tokens": 500, "output_tokens": 10, "cached_tokens": 400});
    let mut turns: Vec<Value> = vec![
        json!({"tool_calls": [{"id": "c0", "name": "read_section", "arguments": {"section_key": "orders"}}], "usage": usage}),
    ];
    for i in 1..CALLS_PER_RUN - 1 {
        turns.push(json!({"tool_calls": [{"id": format!("c{i}"), "name": "lookup", "arguments": {"id": format!("A-{i}")}}], "usage": usage}));
    }
    turns.push(json!({"text": "All shipped.", "usage": usage}));
    Value::Array(turns).to_string()
}

/// Runs the workload; `trace` decides how each run's session is traced. Returns (seconds,
/// failed runs).
fn workload(trace: &dyn Fn(&Session)) -> (f64, usize) {
    let template = template();
    let script = script();
    let mut failed = 0;
    let started = Instant::now();
    for _ in 0..RUNS {
        let provider = ScriptedProvider::from_json(&script, "bench").unwrap();
        let session = Session::new();
        trace(&session);
        let result = block_on(MainLoop::new(&provider, MainLoopConfig::default()).execute(
            &Prompt::new(Arc::clone(&template)),
            &session,
            RunHooks::default(),
        ));
        if !matches!(result, Ok(ref r) if matches!(r.outcome, LoopOutcome::Finished { .. })) {
            failed += 1;
        }
    }
    (started.elapsed().as_secs_f64(), failed)
}

/// A collector on loopback that answers every OTLP/HTTP request with 200 and counts the bytes
/// it received; returns its endpoint.
fn collector(received: Arc<AtomicU64>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let received = Arc::clone(&received);
            std::thread::spawn(move || answer_requests(stream, &received));
        }
    });
    endpoint
}

/// Answers the requests of one (kept-alive) connection.
fn answer_requests(stream: TcpStream, received: &AtomicU64) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        received.fetch_add(length as u64, Ordering::Relaxed);
        let reply =
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n";
        if out.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

fn child(mode: &str) {
    let (seconds, failed, exit_ms) = match mode {
        "off" => {
            let (s, f) = workload(&|_| {});
            (s, f, 0.0)
        }
        "mapped" => {
            let (s, f) = workload(&|session| {
                wink_trace::trace_session_to(session, TraceOptions::default(), Arc::new(drop));
            });
            (s, f, 0.0)
        }
        "exported" | "down" => {
            // OTEL_EXPORTER_OTLP_ENDPOINT is set: every run the main loop makes is traced by the
            // hook init_from_env installs.
            let guard = wink_trace::init_from_env()
                .unwrap()
                .expect("the endpoint is set");
            let (s, f) = workload(&|_| {});
            let exit = Instant::now();
            drop(guard);
            (s, f, exit.elapsed().as_secs_f64() * 1000.0)
        }
        other => panic!("unknown mode {other}"),
    };
    println!("{seconds} {failed} {exit_ms}");
}

/// One child's (seconds, failed runs, exit flush wait in ms, OTLP bytes the collector received).
type Sample = (f64, usize, f64, u64);

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

const MODES: [&str; 4] = ["off", "mapped", "exported", "down"];
const ROUNDS: usize = 5;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--child") {
        child(&args[at + 1]);
        return;
    }
    let closed = format!(
        "http://{}",
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
    );
    let received = Arc::new(AtomicU64::new(0));
    let live = collector(Arc::clone(&received));
    let exe = std::env::current_exe().unwrap();
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); MODES.len()];
    for _ in 0..ROUNDS {
        for (m, mode) in MODES.iter().enumerate() {
            let mut command = Command::new(&exe);
            command
                .args(["--child", mode])
                .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
                .env_remove("OTEL_SDK_DISABLED")
                .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
            match *mode {
                "exported" => command.env("OTEL_EXPORTER_OTLP_ENDPOINT", &live),
                "down" => command.env("OTEL_EXPORTER_OTLP_ENDPOINT", &closed),
                _ => &mut command,
            };
            let before = received.load(Ordering::Relaxed);
            let out = command.output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let line = String::from_utf8_lossy(&out.stdout);
            let fields: Vec<&str> = line.split_whitespace().collect();
            samples[m].push((
                fields[0].parse().unwrap(),
                fields[1].parse().unwrap(),
                fields[2].parse().unwrap(),
                received.load(Ordering::Relaxed) - before,
            ));
        }
    }
    let off = median(samples[0].iter().map(|s| s.0).collect());
    println!(
        "{} model calls ({RUNS} runs of {CALLS_PER_RUN}), median of {ROUNDS} processes each (modes interleaved):",
        RUNS * CALLS_PER_RUN
    );
    for (mode, samples) in MODES.iter().zip(&samples) {
        let seconds = median(samples.iter().map(|s| s.0).collect());
        let failed: usize = samples.iter().map(|s| s.1).sum();
        let exit = samples.iter().map(|s| s.2).fold(0.0, f64::max);
        let bytes = median(samples.iter().map(|s| s.3 as f64).collect());
        let label = match *mode {
            "off" => "spans off",
            "mapped" => "spans mapped, dropped",
            "exported" => "spans exported (loopback)",
            _ => "spans exported, collector down",
        };
        println!(
            "  {label:<31} {seconds:>8.3} s  {:>+6.2}%  failed runs: {failed}  longest exit flush: {exit:.1} ms  OTLP bytes received: {bytes:.0}",
            100.0 * (seconds - off) / off
        );
    }
}
