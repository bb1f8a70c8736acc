//! Builds synthetic catalogs of 1K, 10K and 100K tools and prints build time, p50/p99 query
//! latency over 1,000 queries (top 10, one thread) and the index's structural heap size; then
//! the latency of what `find_tool` runs ([`ToolSearch`]: server routing over the catalog's
//! namespaces and task steps) for one query and for tasks of five steps.
//!
//! Each query is timed in 5 passes. "p50/p99 (min of 5)" takes each query's fastest pass, which
//! removes interference from other processes on a shared machine; "p99 (1 pass)" is the raw
//! first measured pass. Build time is given as wall time and as this thread's CPU time (Linux).
//!
//! `cargo run --release -p wink-search --example latency [SIZES...]`

use std::time::{Duration, Instant};

use wink_search::{IndexConfig, SearchIndex, TaskInput, ToolSearch, synthetic};

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.replace('_', "").parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        sizes
    };
    println!(
        "| tools | build (wall) | build (CPU) | terms | postings | index heap | with documents | p50 (min of 5) | p99 (min of 5) | p50 (1 pass) | p99 (1 pass) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut tool_search_rows = Vec::new();
    for size in sizes {
        let catalog = synthetic::catalog(size, 42);
        let started = Instant::now();
        let cpu_started = thread_cpu_time();
        let index = SearchIndex::build(catalog, IndexConfig::default());
        let build = started.elapsed();
        let build_cpu = thread_cpu_time()
            .zip(cpu_started)
            .map(|(end, start)| end - start);
        let queries = synthetic::queries(index.documents(), 1_000, 7);
        let mut returned = 0;
        let mut fastest = vec![Duration::MAX; queries.len()];
        let mut first_pass = Vec::with_capacity(queries.len());
        for pass in 0..=5 {
            for (slot, query) in fastest.iter_mut().zip(&queries) {
                let started = Instant::now();
                let hits = index.search(query, 10);
                let elapsed = started.elapsed();
                returned += hits.len();
                // Pass 0 warms caches up and is not counted.
                if pass == 1 {
                    first_pass.push(elapsed);
                }
                if pass > 0 {
                    *slot = (*slot).min(elapsed);
                }
            }
        }
        fastest.sort_unstable();
        first_pass.sort_unstable();
        let usage = index.heap_usage();
        println!(
            "| {size} | {:.0} ms | {} | {} | {} | {:.1} MiB | {:.1} MiB | {:.0} µs | {:.0} µs | {:.0} µs | {:.0} µs |",
            build.as_secs_f64() * 1e3,
            build_cpu.map_or_else(
                || "n/a".to_owned(),
                |cpu| format!("{:.0} ms", cpu.as_secs_f64() * 1e3)
            ),
            index.term_count(),
            index.posting_count(),
            (usage.total() - usage.documents) as f64 / (1024.0 * 1024.0),
            usage.total() as f64 / (1024.0 * 1024.0),
            quantile(&fastest, 0.5),
            quantile(&fastest, 0.99),
            quantile(&first_pass, 0.5),
            quantile(&first_pass, 0.99),
        );
        assert!(returned > 0, "queries returned nothing");
        tool_search_rows.push(tool_search_row(size, index, &queries));
    }
    println!();
    println!(
        "find_tool's search (ToolSearch: routing, task steps), top 10, fastest of 5 passes; tasks join five queries with \", then \""
    );
    println!(
        "| tools | routed | one query p50 | one query p99 | 5-step task p50 | 5-step task p99 | steps found |"
    );
    println!("|---|---|---|---|---|---|---|");
    for row in tool_search_rows {
        println!("{row}");
    }
}

/// Times [`ToolSearch`] on single queries and on five-step tasks built from them.
fn tool_search_row(size: usize, index: SearchIndex, queries: &[String]) -> String {
    let search = ToolSearch::new(index);
    let tasks: Vec<String> = queries
        .chunks(5)
        .map(|chunk| {
            chunk
                .iter()
                .map(|query| format!("find {query}"))
                .collect::<Vec<_>>()
                .join(", then ")
        })
        .collect();
    let single = fastest_of_5(queries, |query| {
        search.search_task(TaskInput::Text(query), 10).hits.len()
    });
    let mut steps = 0;
    let multi = fastest_of_5(&tasks, |task| {
        let result = search.search_task(TaskInput::Text(task), 10);
        steps = steps.max(result.steps.len());
        result.hits.len()
    });
    format!(
        "| {size} | {} | {:.0} µs | {:.0} µs | {:.0} µs | {:.0} µs | up to {steps} |",
        search.is_routed(),
        quantile(&single, 0.5),
        quantile(&single, 0.99),
        quantile(&multi, 0.5),
        quantile(&multi, 0.99),
    )
}

/// Each input's fastest of 5 timed passes (after one warm-up pass), sorted.
fn fastest_of_5(inputs: &[String], mut run: impl FnMut(&str) -> usize) -> Vec<Duration> {
    let mut fastest = vec![Duration::MAX; inputs.len()];
    let mut returned = 0;
    for pass in 0..=5 {
        for (slot, input) in fastest.iter_mut().zip(inputs) {
            let started = Instant::now();
            returned += run(input);
            let elapsed = started.elapsed();
            if pass > 0 {
                *slot = (*slot).min(elapsed);
            }
        }
    }
    assert!(returned > 0, "searches returned nothing");
    fastest.sort_unstable();
    fastest
}

/// The `q` quantile of sorted latencies, in µs.
fn quantile(latencies: &[Duration], q: f64) -> f64 {
    latencies[((latencies.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6
}

/// Time this thread has spent on a CPU (Linux `/proc/thread-self/schedstat`), so that build
/// times are not inflated by other processes on a shared machine.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanoseconds: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanoseconds))
}
