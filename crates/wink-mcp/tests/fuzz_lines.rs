//! Fuzzing the MCP stdio line reader (issue 23): any bytes, cut into chunks anywhere, give the
//! same lines as a whole-buffer split, and every line gets a verdict without a panic; every
//! answer is one JSON-RPC error object. Case count: `PROPTEST_CASES` (default 256); see
//! docs/fuzzing.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::Value;
use wink_mcp::lines::{Line, LineSplitter, Screened, screen_line};

/// The lines of `bytes` split at once with a `max`-byte limit: the reference.
fn reference_lines(bytes: &[u8], max: usize) -> Vec<Line> {
    let mut lines: Vec<Line> = bytes
        .split(|&b| b == b'\n')
        .map(|line| {
            if line.len() > max {
                Line::TooLong(line.len())
            } else {
                Line::Complete(line.to_vec())
            }
        })
        .collect();
    // A trailing newline ends the last line; nothing follows it.
    if bytes.last() == Some(&b'\n') || bytes.is_empty() {
        lines.pop();
    }
    lines
}

/// JSON-RPC-ish bytes: fragments of real messages, brackets and garbage.
fn message_bytes() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        Just(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":"#
                .to_vec()
        ),
        Just(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#.to_vec()),
        Just(b"[[[[{{{{".to_vec()),
        Just(b"]]}}".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\xff\xfe".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..16),
    ];
    proptest::collection::vec(fragment, 0..24).prop_map(|parts| parts.concat())
}

fn check_verdict(line: &Line) {
    if let Screened::Answer(text) = screen_line(line) {
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["jsonrpc"], "2.0");
        let code = answer["error"]["code"].as_i64().unwrap();
        assert!([-32700, -32600, -32602].contains(&code), "{text}");
        assert!(!text.contains('\n'));
    }
}

proptest! {
    #[test]
    fn fuzz_mcp_line_reader(bytes in prop_oneof![message_bytes(), proptest::collection::vec(any::<u8>(), 0..512)],
                            cuts in proptest::collection::vec(any::<usize>(), 0..8),
                            max in 1usize..64) {
        let started = Instant::now();
        let mut splitter = LineSplitter::new(max);
        let mut lines = Vec::new();
        let mut positions: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        positions.sort_unstable();
        let mut from = 0;
        for to in positions.into_iter().chain([bytes.len()]) {
            splitter.push(&bytes[from..to], &mut lines);
            from = to;
        }
        lines.extend(splitter.finish());
        prop_assert_eq!(&lines, &reference_lines(&bytes, max));
        for line in &lines {
            check_verdict(line);
        }
        check_verdict(&Line::Complete(bytes.clone()));
        prop_assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    }
}
