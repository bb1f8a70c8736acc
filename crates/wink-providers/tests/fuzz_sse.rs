//! Fuzzing the SSE decoder (issue 23): any bytes, cut into chunks anywhere, decode to the same
//! events as the whole buffer fed at once, without a panic. Case count: `PROPTEST_CASES`
//! (default 256); see docs/fuzzing.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use proptest::prelude::*;
use wink_providers::SseParser;

fn stream_bytes() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        Just(b"data: {\"choices\":[]}\n\n".to_vec()),
        Just(b"event: message_start\r\n".to_vec()),
        Just(b"data:".to_vec()),
        Just(b": comment\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"id: 7\nretry: 10\n".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..12),
    ];
    proptest::collection::vec(fragment, 0..32).prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn fuzz_sse_decoder(bytes in prop_oneof![stream_bytes(), proptest::collection::vec(any::<u8>(), 0..512)],
                        cuts in proptest::collection::vec(any::<usize>(), 0..10)) {
        let started = Instant::now();
        let whole = SseParser::new().push(&bytes);
        let mut parser = SseParser::new();
        let mut chunked = Vec::new();
        let mut positions: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        positions.sort_unstable();
        let mut from = 0;
        for to in positions.into_iter().chain([bytes.len()]) {
            chunked.extend(parser.push(&bytes[from..to]));
            from = to;
        }
        prop_assert_eq!(chunked, whole);
        prop_assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    }
}
