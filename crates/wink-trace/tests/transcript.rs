//! A transcript (`wink run --transcript`) read as a run: one `invoke_agent`, a `chat` per
//! recorded call with its tokens and times, an `execute_tool` per tool result (an error result
//! in error), the turns the policies took back as `wink.intervention` events; a transcript
//! without call times is drawn a call a second and marked `wink.timing.unknown`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use wink_trace::semconv::{self, wink as w};
use wink_trace::{MapOptions, SpanRecord, SpanStatus};

fn transcript(timed: bool) -> Value {
    let system = json!({"role": "system", "content": "You answer questions about orders."});
    let user = json!({"role": "user", "content": "Where is order A-1042?"});
    let read = json!({"role": "assistant", "tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "orders"}}]});
    let opened = json!({"role": "tool", "tool_call_id": "c1", "name": "read_section", "content": "Content of section 'orders': ...", "is_error": false});
    let lookup = json!({"role": "assistant", "tool_calls": [{"id": "c2", "name": "lookup_order", "arguments": {"order_id": "A-1042"}}]});
    let failed = json!({"role": "tool", "tool_call_id": "c2", "name": "lookup_order", "content": "the order service is down", "is_error": true});
    let time = |s: u32| json!(format!("2026-11-27T12:00:{s:02}.000000Z"));
    let call = |messages: Vec<&Value>, input: u64, cached: u64, output: u64, at: u32| {
        let mut call = json!({
            "messages": messages,
            "tools": ["read_section", "lookup_order"],
            "usage": {"input_tokens": input, "output_tokens": output, "cached_tokens": cached},
        });
        if timed {
            call["started_at"] = time(at);
            call["ended_at"] = time(at + 2);
        }
        call
    };
    json!({
        "adapter": "openai",
        "model": "gpt-4.1-mini",
        "status": {"status": "finished"},
        "model_calls": [
            call(vec![&system, &user], 400, 0, 12, 0),
            call(vec![&system, &user, &read, &opened], 520, 380, 15, 3),
            call(vec![&system, &user, &read, &opened, &lookup, &failed], 600, 500, 9, 6),
        ],
        "text": "The order service is down; try again later.",
        "usage": {"input_tokens": 1520, "output_tokens": 36, "cached_tokens": 880},
        "model_call_count": 3,
        "tool_call_count": 2,
        "restarts": 0,
        "repairs": [{"rule": "named-tool", "action": "require_tool", "tool": "lookup_order",
                     "text": "You can call lookup_order."}],
    })
}

fn read(transcript: &Value) -> Vec<SpanRecord> {
    let dir = std::env::temp_dir().join(format!("wink-trace-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.json");
    std::fs::write(&path, transcript.to_string()).unwrap();
    let mut spans = wink_trace::read::from_file(&path, MapOptions::default()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    spans.sort_by_key(|s| (s.start_ns, s.name.clone()));
    spans
}

#[test]
fn a_transcript_is_a_run_with_its_calls_tools_tokens_and_repairs() {
    let spans = read(&transcript(true));
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "chat gpt-4.1-mini",
            "invoke_agent run",
            "execute_tool read_section",
            "chat gpt-4.1-mini",
            "execute_tool lookup_order",
            "chat gpt-4.1-mini",
        ]
    );
    let run = spans.iter().find(|s| s.name == "invoke_agent run").unwrap();
    assert_eq!(run.parent_span_id, None);
    assert!(
        spans[..]
            .iter()
            .filter(|s| s.span_id != run.span_id)
            .all(|s| s.parent_span_id == Some(run.span_id) && s.trace_id == run.trace_id)
    );
    let chats: Vec<&SpanRecord> = spans
        .iter()
        .filter(|s| s.name.starts_with("chat"))
        .collect();
    let calls: Vec<(i64, i64, i64, u64)> = chats
        .iter()
        .map(|s| {
            (
                s.attributes.int(semconv::USAGE_INPUT_TOKENS).unwrap(),
                s.attributes
                    .int(semconv::USAGE_CACHE_READ_INPUT_TOKENS)
                    .unwrap(),
                s.attributes.int(semconv::USAGE_OUTPUT_TOKENS).unwrap(),
                (s.end_ns - s.start_ns) / 1_000_000_000,
            )
        })
        .collect();
    assert_eq!(
        calls,
        [(400, 0, 12, 2), (520, 380, 15, 2), (600, 500, 9, 2)]
    );
    assert_eq!(
        chats[0].attributes.str(semconv::PROVIDER_NAME),
        Some("openai")
    );
    assert_eq!(run.attributes.int(semconv::USAGE_INPUT_TOKENS), Some(1520));
    assert_eq!(run.attributes.get(w::TIMING_UNKNOWN), None);
    let lookup = spans
        .iter()
        .find(|s| s.name == "execute_tool lookup_order")
        .unwrap();
    assert_eq!(
        lookup.status,
        SpanStatus::Error("the order service is down".into())
    );
    // The repair, without the text the model wrote (content is off).
    let repair = run
        .events
        .iter()
        .find(|e| e.name == "wink.intervention")
        .unwrap();
    assert_eq!(repair.attributes.str(w::EVENT_TYPE), Some("TurnRepaired"));
    assert_eq!(repair.attributes.str("wink.rule"), Some("named-tool"));
    assert_eq!(repair.attributes.str("wink.tool"), Some("lookup_order"));
    assert_eq!(repair.attributes.str("wink.text"), None);
}

#[test]
fn a_transcript_without_times_is_marked_so() {
    let spans = read(&transcript(false));
    let run = spans
        .iter()
        .find(|s| s.name.starts_with("invoke_agent"))
        .unwrap();
    assert_eq!(
        run.attributes.get(w::TIMING_UNKNOWN),
        Some(&wink_trace::AttrValue::Bool(true))
    );
    let chats: Vec<u64> = spans
        .iter()
        .filter(|s| s.name.starts_with("chat"))
        .map(|s| s.start_ns)
        .collect();
    assert_eq!(chats.len(), 3);
    assert!(chats.windows(2).all(|w| w[1] > w[0]), "{chats:?}");
}
