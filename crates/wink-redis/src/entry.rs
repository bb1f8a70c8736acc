//! What a queue accepts: request ids, queue names, and the screening of a stream entry before a
//! worker runs it. An entry that does not pass is dead-lettered with its raw bytes and the
//! reason (see [`screen_entry`]); it never runs and never merges with another request.

use serde::de::DeserializeOwned;

/// The largest request body (JSON) a queue takes by default: 1 MiB. `wink submit` refuses a
/// larger one; a worker dead-letters it without reading it whole.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// The longest request id or queue name, in characters.
pub const MAX_NAME_CHARS: usize = 128;

/// Most fields an entry may have (a request has two: `id` and `body`).
pub const MAX_ENTRY_FIELDS: usize = 32;

/// Checks a request id: 1 to [`MAX_NAME_CHARS`] ASCII letters, digits, `-`, `_`, `.` and `:`
/// (`wink submit` makes UUIDs).
///
/// ```
/// assert!(wink_redis::check_request_id("0b9e4f2a-7c1d-4e5f-9a8b-1c2d3e4f5a6b").is_ok());
/// assert_eq!(wink_redis::check_request_id("").unwrap_err(), "a request id is not empty");
/// ```
pub fn check_request_id(id: &str) -> Result<(), String> {
    check_name("a request id", id)
}

/// Checks a queue name: as a request id (see [`check_request_id`]); braces are refused in
/// particular, since the name is the Redis Cluster hash tag that keeps a queue's keys in one
/// slot.
///
/// ```
/// assert!(wink_redis::check_queue_name("support").is_ok());
/// assert_eq!(
///     wink_redis::check_queue_name("a}b").unwrap_err(),
///     "a queue name holds only ASCII letters, digits, '-', '_', '.' and ':', not '}'"
/// );
/// ```
pub fn check_queue_name(name: &str) -> Result<(), String> {
    check_name("a queue name", name)
}

fn check_name(what: &str, name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{what} is not empty"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':')))
    {
        return Err(format!(
            "{what} holds only ASCII letters, digits, '-', '_', '.' and ':', not {c:?}"
        ));
    }
    if name.len() > MAX_NAME_CHARS {
        return Err(format!(
            "{what} has at most {MAX_NAME_CHARS} characters, not {}",
            name.len()
        ));
    }
    Ok(())
}

/// A field value of an entry as the receive script hands it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    /// The bytes.
    Bytes(Vec<u8>),
    /// A value over the size limit: only its length was read.
    TooLong(u64),
}

/// A stream entry as received: its id and its fields (name, value) in order, or how many
/// fields it has when that is over [`MAX_ENTRY_FIELDS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEntry {
    /// The stream entry's id.
    pub entry_id: String,
    /// Its fields, or their count when there are too many to read.
    pub fields: Result<Vec<(FieldValue, FieldValue)>, u64>,
}

/// Why an entry is not run: its request id when it has a usable one (its result then records
/// the reason), and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// The entry's request id, when it has a valid one.
    pub request_id: Option<String>,
    /// What is wrong, e.g. `the body is not JSON: expected value at line 1 column 1`.
    pub reason: String,
}

/// The request id of an entry: its one `id` field, valid by [`check_request_id`].
pub fn entry_request_id(entry: &RawEntry) -> Result<String, Malformed> {
    let stray = |reason: String| Malformed {
        request_id: None,
        reason,
    };
    let fields = entry.fields.as_ref().map_err(|count| {
        stray(format!(
            "the entry has {count} fields (a request has id and body)"
        ))
    })?;
    let id = match single(fields, "id").map_err(stray)? {
        None => return Err(stray("the entry has no id".to_owned())),
        Some(FieldValue::TooLong(length)) => {
            return Err(stray(format!("the id is {length} bytes long")));
        }
        Some(FieldValue::Bytes(bytes)) => {
            std::str::from_utf8(bytes).map_err(|_| stray("the id is not UTF-8".to_owned()))?
        }
    };
    check_request_id(id).map_err(stray)?;
    Ok(id.to_owned())
}

/// The body of an entry whose request id is `request_id`, decoded: its one `body` field, at most
/// `max_bytes`, UTF-8, JSON with no key twice and no integer beyond 64 bits, of type `T`.
pub fn entry_body<T: DeserializeOwned>(
    entry: &RawEntry,
    request_id: &str,
    max_bytes: usize,
) -> Result<T, Malformed> {
    let bad = |reason: String| Malformed {
        request_id: Some(request_id.to_owned()),
        reason,
    };
    let Ok(fields) = &entry.fields else {
        return Err(bad("the entry has too many fields".to_owned()));
    };
    let bytes = match single(fields, "body").map_err(bad)? {
        None => return Err(bad("the entry has no body".to_owned())),
        Some(FieldValue::TooLong(length)) => {
            return Err(bad(format!(
                "the body is {length} bytes, over the limit of {max_bytes} bytes"
            )));
        }
        Some(FieldValue::Bytes(bytes)) => bytes,
    };
    if bytes.len() > max_bytes {
        return Err(bad(format!(
            "the body is {} bytes, over the limit of {max_bytes} bytes",
            bytes.len()
        )));
    }
    let text =
        std::str::from_utf8(bytes).map_err(|e| bad(format!("the body is not UTF-8 ({e})")))?;
    let value = wink_schema::parse_strict_json(text).map_err(|e| {
        bad(format!(
            "the body is not JSON a request can be read from: {e}"
        ))
    })?;
    serde_json::from_value(value).map_err(|e| bad(format!("the body is not a request: {e}")))
}

/// A screened entry, ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screened<T> {
    /// The request id.
    pub request_id: String,
    /// The decoded body.
    pub body: T,
}

/// [`entry_request_id`], then [`entry_body`]: the whole screening of an entry.
pub fn screen_entry<T: DeserializeOwned>(
    entry: &RawEntry,
    max_bytes: usize,
) -> Result<Screened<T>, Malformed> {
    let request_id = entry_request_id(entry)?;
    let body = entry_body(entry, &request_id, max_bytes)?;
    Ok(Screened { request_id, body })
}

/// The value of the field `name`, when it appears once (twice is an error).
fn single<'a>(
    fields: &'a [(FieldValue, FieldValue)],
    name: &str,
) -> Result<Option<&'a FieldValue>, String> {
    let mut found = None;
    for (field, value) in fields {
        if matches!(field, FieldValue::Bytes(bytes) if bytes == name.as_bytes()) {
            if found.is_some() {
                return Err(format!("the entry has the field {name} twice"));
            }
            found = Some(value);
        }
    }
    Ok(found)
}

/// The entries of a [`crate::scripts::RECEIVE`] reply; `None` when it says the group does not exist.
pub(crate) fn raw_entries(reply: redis::Value) -> Option<Vec<RawEntry>> {
    let redis::Value::Array(items) = reply else {
        return None;
    };
    let text = |value: &redis::Value| match value {
        redis::Value::BulkString(bytes) => String::from_utf8(bytes.clone()).ok(),
        redis::Value::SimpleString(text) => Some(text.clone()),
        _ => None,
    };
    let entries = items
        .into_iter()
        .filter_map(|item| {
            let redis::Value::Array(parts) = item else {
                return None;
            };
            let entry_id = text(parts.first()?)?;
            let fields = match parts.get(1)? {
                redis::Value::Int(count) => Err(u64::try_from(*count).unwrap_or(0)),
                redis::Value::Array(values) => Ok(values
                    .chunks(2)
                    .map(|pair| {
                        (
                            field_value(&pair[0]),
                            pair.get(1)
                                .map_or(FieldValue::Bytes(Vec::new()), field_value),
                        )
                    })
                    .collect()),
                _ => Ok(Vec::new()),
            };
            Some(RawEntry { entry_id, fields })
        })
        .collect();
    Some(entries)
}

fn field_value(value: &redis::Value) -> FieldValue {
    match value {
        redis::Value::BulkString(bytes) => FieldValue::Bytes(bytes.clone()),
        redis::Value::SimpleString(text) => FieldValue::Bytes(text.as_bytes().to_vec()),
        redis::Value::Int(length) => FieldValue::TooLong(u64::try_from(*length).unwrap_or(0)),
        _ => FieldValue::Bytes(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RunRequest;

    fn entry(fields: &[(&str, &[u8])]) -> RawEntry {
        RawEntry {
            entry_id: "1-0".to_owned(),
            fields: Ok(fields
                .iter()
                .map(|(k, v)| {
                    (
                        FieldValue::Bytes(k.as_bytes().to_vec()),
                        FieldValue::Bytes(v.to_vec()),
                    )
                })
                .collect()),
        }
    }

    fn reason(entry: &RawEntry) -> (Option<String>, String) {
        let error = screen_entry::<RunRequest>(entry, 100).unwrap_err();
        (error.request_id, error.reason)
    }

    #[test]
    fn a_request_has_one_valid_id_and_one_object_body() {
        let ok = screen_entry::<RunRequest>(
            &entry(&[("id", b"r-1"), ("body", b"{\"input\": \"hi\"}")]),
            100,
        )
        .unwrap();
        assert_eq!(ok.request_id, "r-1");
        assert_eq!(ok.body.input.as_deref(), Some("hi"));
        let stray = |why: &str| (None, why.to_owned());
        let own = |why: &str| (Some("r-1".to_owned()), why.to_owned());
        assert_eq!(
            reason(&entry(&[("body", b"{}")])),
            stray("the entry has no id")
        );
        assert_eq!(
            reason(&entry(&[("id", b""), ("body", b"{}")])),
            stray("a request id is not empty")
        );
        assert_eq!(
            reason(&entry(&[("id", b"\xff"), ("body", b"{}")])),
            stray("the id is not UTF-8")
        );
        assert_eq!(
            reason(&entry(&[("id", b"a"), ("id", b"b"), ("body", b"{}")])),
            stray("the entry has the field id twice")
        );
        assert_eq!(
            reason(&entry(&[("id", b"r-1"), ("body", b"\xc3\x28")])),
            own("the body is not UTF-8 (invalid utf-8 sequence of 1 bytes from index 0)")
        );
        assert_eq!(
            reason(&entry(&[("id", b"r-1"), ("body", b"[]")])),
            own(
                "the body is not a request: invalid type: sequence, expected a JSON object with params and input"
            )
        );
        assert_eq!(
            reason(&entry(&[
                ("id", b"r-1"),
                ("body", b"{\"input\": \"a\", \"input\": \"b\"}")
            ])),
            own("the body is not JSON a request can be read from: duplicate key 'input'")
        );
        assert_eq!(
            reason(&entry(&[("id", b"r-1"), ("body", b"{\"inputs\": \"a\"}")])),
            own(
                "the body is not a request: unknown field `inputs`, expected one of `params`, `input`, `traceparent`"
            )
        );
        assert_eq!(
            reason(&entry(&[("id", b"r-1"), ("body", b"{\"params\": [1]}")])),
            own("the body is not a request: invalid type: sequence, expected a map")
        );
        assert_eq!(
            reason(&entry(&[("id", b"r-1"), ("body", &[b' '; 101])])),
            own("the body is 101 bytes, over the limit of 100 bytes")
        );
        assert_eq!(
            reason(&RawEntry {
                entry_id: "1-0".to_owned(),
                fields: Ok(vec![
                    (
                        FieldValue::Bytes(b"id".to_vec()),
                        FieldValue::Bytes(b"r-1".to_vec())
                    ),
                    (
                        FieldValue::Bytes(b"body".to_vec()),
                        FieldValue::TooLong(60_000_000)
                    ),
                ]),
            }),
            own("the body is 60000000 bytes, over the limit of 100 bytes")
        );
        assert_eq!(
            reason(&RawEntry {
                entry_id: "1-0".to_owned(),
                fields: Err(5000),
            }),
            stray("the entry has 5000 fields (a request has id and body)")
        );
    }

    #[test]
    fn names_are_checked() {
        assert!(check_queue_name("support.eu-1:a_b").is_ok());
        assert_eq!(
            check_queue_name("").unwrap_err(),
            "a queue name is not empty"
        );
        assert_eq!(
            check_queue_name("two words").unwrap_err(),
            "a queue name holds only ASCII letters, digits, '-', '_', '.' and ':', not ' '"
        );
        assert_eq!(
            check_request_id(&"x".repeat(129)).unwrap_err(),
            "a request id has at most 128 characters, not 129"
        );
    }
}
