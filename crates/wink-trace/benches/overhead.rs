//! What tracing costs a run: 10,000 scripted model calls (2,000 runs of example-01's shape:
//! read a summarized section, three tool calls, an answer) with spans off, with spans on (live
//! mapping into a sink that drops them), and with OTLP export to a collector that is down
//! (a closed loopback port): the runs must all finish, and the exit flush must not wait.
//!
//! `cargo bench -p wink-trace --bench overhead` (each mode runs in a child process of its own,
//! three times; medians are printed).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;
use std::sync::Arc;
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

fn child(mode: &str) {
    let (seconds, failed, exit_ms) = match mode {
        "off" => {
            let (s, f) = workload(&|_| {});
            (s, f, 0.0)
        }
        "on" => {
            let (s, f) = workload(&|session| {
                wink_trace::trace_session_to(session, TraceOptions::default(), Arc::new(drop));
            });
            (s, f, 0.0)
        }
        "down" => {
            let guard = wink_trace::init_from_env()
                .unwrap()
                .expect("the endpoint is set");
            // Runs made by the main loop are traced by the hook init_from_env installed.
            let (s, f) = workload(&|_| {});
            let exit = Instant::now();
            drop(guard);
            (s, f, exit.elapsed().as_secs_f64() * 1000.0)
        }
        other => panic!("unknown mode {other}"),
    };
    println!("{seconds} {failed} {exit_ms}");
}

/// One child's (seconds, failed runs, exit flush wait in ms).
type Sample = (f64, usize, f64);

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--child") {
        child(&args[at + 1]);
        return;
    }
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let exe = std::env::current_exe().unwrap();
    let mut results: Vec<(&str, Vec<Sample>)> = Vec::new();
    for mode in ["off", "on", "down"] {
        let mut samples = Vec::new();
        for _ in 0..3 {
            let mut command = Command::new(&exe);
            command.args(["--child", mode]);
            command
                .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                .env_remove("OTEL_SDK_DISABLED");
            if mode == "down" {
                command.env(
                    "OTEL_EXPORTER_OTLP_ENDPOINT",
                    format!("http://127.0.0.1:{closed}"),
                );
            } else {
                command.env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
            }
            let out = command.output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let line = String::from_utf8_lossy(&out.stdout);
            let fields: Vec<&str> = line.split_whitespace().collect();
            samples.push((
                fields[0].parse().unwrap(),
                fields[1].parse().unwrap(),
                fields[2].parse().unwrap(),
            ));
        }
        results.push((mode, samples));
    }
    let off = median(results[0].1.iter().map(|s| s.0).collect());
    println!(
        "{} model calls ({RUNS} runs of {CALLS_PER_RUN}), median of 3 processes each:",
        RUNS * CALLS_PER_RUN
    );
    for (mode, samples) in &results {
        let seconds = median(samples.iter().map(|s| s.0).collect());
        let failed: usize = samples.iter().map(|s| s.1).sum();
        let exit = median(samples.iter().map(|s| s.2).collect());
        let label = match *mode {
            "off" => "spans off",
            "on" => "spans on (mapped, dropped)",
            _ => "spans exported, collector down",
        };
        println!(
            "  {label:<32} {seconds:>8.3} s  {:>+6.2}%  failed runs: {failed}  exit flush wait: {exit:.1} ms",
            100.0 * (seconds - off) / off
        );
    }
}
