//! Fuzzing the session-log reader (issue 23): any file content — garbage, or a real header
//! followed by mutated records — is read, replayed and shown, or refused with an error naming
//! the file; never a panic. Case count: `PROPTEST_CASES` (default 256); see docs/fuzzing.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use wink_session::{Event, Session};
use wink_store::{ShowFormat, read_log, replay, show};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Note(String);
impl Event for Note {}

const HEADER: &str = r#"{"wink_session_log":1,"session_id":"7c0e2d36-6a8e-4b59-9c55-3b1f6b5c2a10","created_at":"2026-11-22T03:47:39.123456Z"}"#;

fn temp_path() -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("wink-store-fuzz-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir.join(format!(
        "{}.jsonl",
        COUNTER.fetch_add(1, Ordering::Relaxed) % 64
    ))
}

fn record_line() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u64..6, "[a-z]{0,6}")
            .prop_map(|(seq, text)| format!(r#"{{"seq":{seq},"type":"Note","event":"{text}"}}"#)),
        Just(r#"{"seq":1,"type":"wink.reset","event":{}}"#.to_owned()),
        Just(
            r#"{"seq":2,"type":"wink.slice_replaced","event":{"slice":"Note","items":["a"]}}"#
                .to_owned()
        ),
        Just(r#"{"seq":1,"type":"Unknown","event":null}"#.to_owned()),
        "[ -~]{0,40}",
    ]
}

fn log_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..256),
        (
            proptest::collection::vec(record_line(), 0..6),
            any::<bool>()
        )
            .prop_map(|(lines, newline)| {
                let mut text = format!("{HEADER}\n{}", lines.join("\n"));
                if newline {
                    text.push('\n');
                }
                text.into_bytes()
            }),
    ]
}

proptest! {
    #[test]
    fn fuzz_session_log_reader(bytes in log_bytes()) {
        let started = Instant::now();
        let path = temp_path();
        fs::write(&path, &bytes).unwrap();
        if let Err(error) = read_log(&path) {
            prop_assert!(error.to_string().contains(&path.display().to_string()), "{error}");
        }
        let session = Session::new();
        session.register_event::<Note>();
        let _ = replay(&path, &session);
        let _ = show(&path, None, ShowFormat::Text);
        let _ = show(&path, Some("Note"), ShowFormat::Json);
        prop_assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    }
}
