//! Fuzzing the screening of queue entries (issue 41): any fields — real requests, fragments,
//! random bytes, values over the limit, too many fields — get a verdict without a panic, and the
//! verdict is the one an independent reading of the rules gives: run only an entry with one
//! valid `id`, one `body` within the limit that is UTF-8, strict JSON and a request object. Case
//! count: `PROPTEST_CASES` (default 256); see docs/fuzzing.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::Value;
use wink_redis::{FieldValue, RawEntry, RunRequest, check_request_id, screen_entry};

/// Field names: the two a request has, near misses and random bytes.
fn field_name() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => Just(b"id".to_vec()),
        4 => Just(b"body".to_vec()),
        1 => Just(b"ID".to_vec()),
        1 => Just(b"deliveries".to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 0..6),
    ]
}

/// Values: ids, request bodies and pieces of them, JSON that is almost a request, random bytes.
fn field_value() -> impl Strategy<Value = FieldValue> {
    let bytes = prop_oneof![
        Just(b"0b9e4f2a-7c1d-4e5f-9a8b-1c2d3e4f5a6b".to_vec()),
        Just(b"r-1".to_vec()),
        Just(Vec::new()),
        Just(b"two words".to_vec()),
        Just(b"{}".to_vec()),
        Just(b"[]".to_vec()),
        Just(br#"{"input": "hi"}"#.to_vec()),
        Just(br#"{"params": {"Task": {"objective": "x"}}, "input": "go"}"#.to_vec()),
        Just(br#"{"params": [1]}"#.to_vec()),
        Just(br#"{"params": null, "input": null}"#.to_vec()),
        Just(br#"{"input": "a", "input": "b"}"#.to_vec()),
        Just(br#"{"inputs": "a"}"#.to_vec()),
        Just(br#"{"input": 99999999999999999999999}"#.to_vec()),
        Just(br#"{"params": {"n": 18446744073709551615}}"#.to_vec()),
        Just(b"\"input\"".to_vec()),
        Just(b"\xc3\x28".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..40),
        "[a-z0-9:._{}-]{0,140}".prop_map(String::into_bytes),
    ];
    prop_oneof![
        12 => bytes.prop_map(FieldValue::Bytes),
        1 => (0u64..u64::MAX).prop_map(FieldValue::TooLong),
    ]
}

fn raw_entry() -> impl Strategy<Value = RawEntry> {
    let fields = proptest::collection::vec(
        (field_name().prop_map(FieldValue::Bytes), field_value()),
        0..5,
    );
    prop_oneof![
        12 => fields.prop_map(Ok),
        1 => (33u64..100_000).prop_map(Err),
    ]
    .prop_map(|fields| RawEntry {
        entry_id: "1-0".to_owned(),
        fields,
    })
}

/// The one value of field `name`, as the rules read it: `None` when absent or repeated.
fn only<'a>(fields: &'a [(FieldValue, FieldValue)], name: &str) -> Option<&'a FieldValue> {
    let mut found = fields
        .iter()
        .filter(|(k, _)| matches!(k, FieldValue::Bytes(b) if b == name.as_bytes()))
        .map(|(_, v)| v);
    let first = found.next();
    found.next().map_or(first, |_| None)
}

/// Whether the rules let `entry` run (written independently of the screen).
fn runs(entry: &RawEntry, max: usize) -> bool {
    let Ok(fields) = &entry.fields else {
        return false;
    };
    let id_ok = matches!(only(fields, "id"), Some(FieldValue::Bytes(id))
        if std::str::from_utf8(id).is_ok_and(|id| check_request_id(id).is_ok()));
    let Some(FieldValue::Bytes(body)) = only(fields, "body") else {
        return false;
    };
    if !id_ok || body.len() > max {
        return false;
    }
    let Ok(text) = std::str::from_utf8(body) else {
        return false;
    };
    let Ok(Value::Object(map)) = wink_schema::parse_strict_json(text) else {
        return false;
    };
    map.iter().all(|(key, value)| match key.as_str() {
        "params" => value.is_object() || value.is_null(),
        "input" => value.is_string() || value.is_null(),
        _ => false,
    })
}

proptest! {
    #[test]
    fn fuzz_queue_entries(entry in raw_entry(), max in prop_oneof![Just(1usize << 20), 0usize..64]) {
        let started = Instant::now();
        let verdict = screen_entry::<RunRequest>(&entry, max);
        prop_assert_eq!(verdict.is_ok(), runs(&entry, max), "{:?} → {:?}", entry, verdict);
        match verdict {
            Ok(screened) => {
                prop_assert!(check_request_id(&screened.request_id).is_ok());
                // What runs encodes back to a body that screens to the same request.
                let again = RawEntry {
                    entry_id: "2-0".to_owned(),
                    fields: Ok(vec![
                        (FieldValue::Bytes(b"id".to_vec()), FieldValue::Bytes(screened.request_id.clone().into_bytes())),
                        (FieldValue::Bytes(b"body".to_vec()), FieldValue::Bytes(serde_json::to_vec(&screened.body).unwrap())),
                    ]),
                };
                let again = screen_entry::<RunRequest>(&again, usize::MAX).unwrap();
                prop_assert_eq!(again.body, screened.body);
            }
            Err(malformed) => {
                prop_assert!(!malformed.reason.is_empty());
                if let Some(id) = &malformed.request_id {
                    prop_assert!(check_request_id(id).is_ok());
                }
            }
        }
        prop_assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    }
}
