//! What tracing costs a run: 10,000 scripted model calls (2,000 runs of example 01's shape:
//! read a summarized section, three tool calls, an answer) with spans off; mapped live into a
//! sink that drops them (the mapping alone); exported over OTLP http/protobuf to a collector on
//! loopback that accepts them (the whole path: mapping, the SDK's batch processor, the export
//! thread); and exported to a collector that is down (a closed loopback port): every run must
//! finish, and the exit flush must not wait for it. One more row, for reference: spans off in a
//! process with a second (idle) thread, as an exporting process has (glibc's allocator takes its
//! locks once a process has two threads; the bench runs on mimalloc, as the `wink` binary does).
//!
//! `cargo bench -p wink-trace --bench overhead` (each mode runs in a child process of its own,
//! seven times, the modes interleaved; medians are printed). The percentages compare with spans
//! off. Besides wall time, each child reports its run thread's CPU time and time spent waiting
//! for a CPU (`/proc/thread-self/schedstat`), and the process's CPU time: on a busy machine the
//! wall time mostly measures the wait.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// The allocator the `wink` binary uses, so that the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

/// The calling thread's time on a CPU and waiting for one, in seconds (`/proc/thread-self/schedstat`;
/// zeros where there is none).
fn thread_times() -> (f64, f64) {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let mut fields = text
        .split_whitespace()
        .map(|f| f.parse::<f64>().unwrap_or(0.0) / 1e9);
    (fields.next().unwrap_or(0.0), fields.next().unwrap_or(0.0))
}

/// The process's CPU time so far, all threads (user and system, `/proc/self/stat`), in seconds.
fn process_cpu() -> f64 {
    let text = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command (which is in parentheses): utime and stime are the 12th and 13th.
    let after = text.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<f64> = after
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0.0))
        .collect();
    (fields.get(11).unwrap_or(&0.0) + fields.get(12).unwrap_or(&0.0)) / 100.0
}

/// What one child measured: wall seconds of the runs, failed runs, the exit wait (ms), the run
/// thread's CPU and run-queue seconds during the runs, the process's CPU seconds in all.
struct Measured {
    seconds: f64,
    failed: usize,
    exit_ms: f64,
    run_cpu: f64,
    run_wait: f64,
    process_cpu: f64,
}

/// Runs the workload; `trace` decides how each run's session is traced. Returns (seconds,
/// failed runs, the run thread's CPU and run-queue seconds).
fn workload(trace: &dyn Fn(&Session)) -> (f64, usize, f64, f64) {
    let template = template();
    let script = script();
    let mut failed = 0;
    let (cpu, wait) = thread_times();
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
    let seconds = started.elapsed().as_secs_f64();
    let (cpu_end, wait_end) = thread_times();
    (seconds, failed, cpu_end - cpu, wait_end - wait)
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
    let ((seconds, failed, run_cpu, run_wait), exit_ms) = match mode {
        "off" => (workload(&|_| {}), 0.0),
        "off-threaded" => {
            std::thread::spawn(|| {
                loop {
                    std::thread::park();
                }
            });
            (workload(&|_| {}), 0.0)
        }
        "mapped" => {
            static SPANS: AtomicU64 = AtomicU64::new(0);
            let measured = workload(&|session| {
                wink_trace::trace_session_to(
                    session,
                    TraceOptions::default(),
                    Arc::new(|spans| {
                        SPANS.fetch_add(spans.len() as u64, Ordering::Relaxed);
                    }),
                );
            });
            // Every run's spans were built: the run, its five model calls, and its section read
            // and three tool calls.
            let expected = (RUNS * (1 + CALLS_PER_RUN + CALLS_PER_RUN - 1)) as u64;
            assert_eq!(SPANS.load(Ordering::Relaxed), expected, "spans built");
            (measured, 0.0)
        }
        "exported" | "down" => {
            // OTEL_EXPORTER_OTLP_ENDPOINT is set: every run the main loop makes is traced by the
            // hook init_from_env installs.
            let guard = wink_trace::init_from_env()
                .unwrap()
                .expect("the endpoint is set");
            let measured = workload(&|_| {});
            let exit = Instant::now();
            drop(guard);
            (measured, exit.elapsed().as_secs_f64() * 1000.0)
        }
        other => panic!("unknown mode {other}"),
    };
    let process_cpu = process_cpu();
    println!("{seconds} {failed} {exit_ms} {run_cpu} {run_wait} {process_cpu}");
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

const MODES: [&str; 5] = ["off", "off-threaded", "mapped", "exported", "down"];
const ROUNDS: usize = 7;

/// Runs one child in `mode`; returns what it measured and the OTLP bytes the collector got.
fn run_child(
    exe: &std::path::Path,
    mode: &str,
    live: &str,
    closed: &str,
    received: &AtomicU64,
) -> (Measured, u64) {
    let mut command = Command::new(exe);
    command
        .args(["--child", mode])
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
        .env_remove("OTEL_SDK_DISABLED")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
    match mode {
        "exported" => command.env("OTEL_EXPORTER_OTLP_ENDPOINT", live),
        "down" => command.env("OTEL_EXPORTER_OTLP_ENDPOINT", closed),
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
    let fields: Vec<f64> = line
        .split_whitespace()
        .map(|f| f.parse().unwrap())
        .collect();
    let measured = Measured {
        seconds: fields[0],
        failed: fields[1] as usize,
        exit_ms: fields[2],
        run_cpu: fields[3],
        run_wait: fields[4],
        process_cpu: fields[5],
    };
    (measured, received.load(Ordering::Relaxed) - before)
}

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
    let mut samples: Vec<Vec<(Measured, u64)>> = MODES.iter().map(|_| Vec::new()).collect();
    for _ in 0..ROUNDS {
        for (m, mode) in MODES.iter().enumerate() {
            samples[m].push(run_child(&exe, mode, &live, &closed, &received));
        }
    }
    let of = |samples: &[(Measured, u64)], f: fn(&Measured) -> f64| {
        median(samples.iter().map(|(s, _)| f(s)).collect())
    };
    let off = &samples[0];
    let (off_wall, off_cpu, off_all) = (
        of(off, |s| s.seconds),
        of(off, |s| s.run_cpu),
        of(off, |s| s.process_cpu),
    );
    println!(
        "{} model calls ({RUNS} runs of {CALLS_PER_RUN}), median of {ROUNDS} processes each (modes interleaved); \
         wall time of the runs, the run thread's CPU time and time waiting for a CPU, the process's CPU time:",
        RUNS * CALLS_PER_RUN
    );
    for (mode, samples) in MODES.iter().zip(&samples) {
        let wall = of(samples, |s| s.seconds);
        let cpu = of(samples, |s| s.run_cpu);
        let wait = of(samples, |s| s.run_wait);
        let all = of(samples, |s| s.process_cpu);
        let failed: usize = samples.iter().map(|(s, _)| s.failed).sum();
        let exit = samples.iter().map(|(s, _)| s.exit_ms).fold(0.0, f64::max);
        let bytes = median(samples.iter().map(|(_, b)| *b as f64).collect());
        let label = match *mode {
            "off" => "spans off",
            "off-threaded" => "spans off, an idle 2nd thread",
            "mapped" => "spans mapped, dropped",
            "exported" => "spans exported (loopback)",
            _ => "spans exported, collector down",
        };
        let change = |x: f64, base: f64| 100.0 * (x - base) / base;
        println!(
            "  {label:<31} wall {wall:.3} s {:+6.1}%  run thread {cpu:.3} s {:+6.1}% (waited {wait:.3} s)  process {all:.2} s {:+6.1}%  failed runs: {failed}  longest exit wait: {exit:.1} ms  OTLP bytes: {bytes:.0}",
            change(wall, off_wall),
            change(cpu, off_cpu),
            change(all, off_all),
        );
    }
}
