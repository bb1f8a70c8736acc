//! A transcript (`wink run --transcript`) as the session events the mapping reads: a
//! `PromptRendered` per evaluation, a `ModelCalled` per model call, a `ToolInvoked` per tool
//! result, a `TurnRepaired` per repair (at the end: a transcript does not say when), a
//! `PromptExecuted` at the end. A transcript holds no section tree and, when it was
//! written without call times, no times: the calls then follow each other a second apart and
//! the run is marked `wink.timing.unknown`.

use serde_json::{Value, json};

use super::stamp;

/// The marker event of a transcript without call times.
pub(super) const TIMING_UNKNOWN: &str = "wink.timing_unknown";

/// Where synthetic times start when the transcript has none (2026-01-01T00:00:00Z).
const NO_TIME_BASE: i64 = 1_767_225_600_000_000;

/// A deterministic UUID for the `n`th synthetic event of `label` (so a transcript maps to the
/// same span ids every time).
fn event_id(label: &str, n: u64) -> String {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x8422_2325_cbf2_9ce4 ^ n;
    for byte in label.bytes().chain(n.to_le_bytes()) {
        a = (a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        b = (b ^ u64::from(byte))
            .wrapping_mul(0x0000_0100_0000_01b3)
            .rotate_left(7);
    }
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a.to_be_bytes());
    bytes[8..].copy_from_slice(&b.to_be_bytes());
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

fn micros(value: Option<&Value>) -> Option<i64> {
    let time: wink_session::Timestamp = serde_json::from_value(value?.clone()).ok()?;
    Some(time.unix_micros())
}

fn role(message: &Value) -> &str {
    message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The events of transcript `t`; `label` names the run (the file's stem).
pub(super) fn events(t: &Value, label: &str) -> Result<Vec<(String, Value)>, String> {
    let calls = t
        .get("model_calls")
        .and_then(Value::as_array)
        .ok_or("not a session log or a transcript: no \"model_calls\" array")?;
    let adapter = t
        .get("adapter")
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let model = t.get("model").and_then(Value::as_str).unwrap_or("unknown");
    let session = event_id(label, u64::MAX);
    let timed = calls.iter().all(|c| c.get("started_at").is_some());
    let mut counter = 0u64;
    let mut next_id = || {
        counter += 1;
        event_id(label, counter)
    };
    let mut out: Vec<(String, Value)> = Vec::new();
    let mut sent: Vec<Value> = Vec::new();
    let mut index = 0u32;
    let mut last_end = NO_TIME_BASE;
    for (i, call) in calls.iter().enumerate() {
        let messages: Vec<Value> = call
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let offset = i64::try_from(i)
            .unwrap_or(i64::MAX)
            .saturating_mul(2_000_000);
        let start = micros(call.get("started_at")).unwrap_or(NO_TIME_BASE + offset);
        let end = micros(call.get("ended_at")).unwrap_or(start + 1_000_000);
        let continues = i > 0 && messages.len() >= sent.len() && messages.first() == sent.first();
        if !continues {
            if i > 0 {
                out.push((
                    "PromptExecuted".into(),
                    json!({
                        "event_id": next_id(), "created_at": stamp(last_end), "prompt_name": label,
                        "adapter": adapter, "session_id": session, "status": "expansion_required",
                    }),
                ));
            }
            let text = messages
                .first()
                .filter(|m| role(m) == "system")
                .and_then(|m| m.get("content"))
                .cloned()
                .unwrap_or(Value::Null);
            out.push(("PromptRendered".into(), json!({
                "event_id": next_id(), "created_at": stamp(start), "prompt_ns": "transcript",
                "prompt_key": label, "prompt_name": label, "adapter": adapter,
                "session_id": session, "text": text, "tool_names": call.get("tools").cloned().unwrap_or(json!([])),
            })));
            sent.clear();
            index = 0;
            last_end = start;
        }
        let new: Vec<Value> = messages.get(sent.len()..).unwrap_or_default().to_vec();
        tool_results(
            &mut out,
            &new,
            &mut next_id,
            &session,
            adapter,
            label,
            last_end,
            start,
        );
        let (tool_calls, text) = answer_of(t, calls, i, messages.len());
        out.push(("ModelCalled".into(), json!({
            "event_id": next_id(), "created_at": stamp(end), "started_at": stamp(start),
            "adapter": adapter, "model": model, "session_id": session, "index": index,
            "messages": messages.len(), "tools": call.get("tools").cloned().unwrap_or(json!([])),
            "usage": call.get("usage"), "finish_reason": if tool_calls.is_empty() { "stop" } else { "tool_calls" },
            "tool_calls": tool_calls, "text": text, "new_messages": new,
        })));
        index += 1;
        last_end = end;
        sent = messages;
    }
    run_end(
        t,
        &mut out,
        &mut next_id,
        &session,
        adapter,
        label,
        last_end,
    );
    if !timed {
        out.push((TIMING_UNKNOWN.into(), Value::Null));
    }
    Ok(out)
}

/// What model call `i` answered: the tool calls and text of the assistant message the next
/// call's request holds after the `sent` messages (the run's answer for the last call).
fn answer_of(t: &Value, calls: &[Value], i: usize, sent: usize) -> (Vec<Value>, Value) {
    let next_assistant = calls
        .get(i + 1)
        .and_then(|c| c.get("messages"))
        .and_then(Value::as_array)
        .and_then(|m| m.get(sent))
        .filter(|m| role(m) == "assistant");
    let tool_calls: Vec<Value> = next_assistant
        .and_then(|m| m.get("tool_calls"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| json!({"id": c.get("id"), "name": c.get("name"), "arguments": c.get("arguments")}))
        .collect();
    let text = match next_assistant {
        Some(m) => m.get("content").cloned().unwrap_or(Value::Null),
        None if i + 1 == calls.len() => t.get("text").cloned().unwrap_or(Value::Null),
        None => Value::Null,
    };
    (tool_calls, text)
}

/// The events of a run's end: the repaired turns (a transcript does not say when: at the end)
/// and the run's outcome.
fn run_end(
    t: &Value,
    out: &mut Vec<(String, Value)>,
    next_id: &mut impl FnMut() -> String,
    session: &str,
    adapter: &str,
    label: &str,
    last_end: i64,
) {
    for repair in t
        .get("repairs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let mut event = repair.clone();
        if let Value::Object(fields) = &mut event {
            fields.insert("event_id".into(), json!(next_id()));
            fields.insert("created_at".into(), stamp(last_end));
            fields.insert("session_id".into(), json!(session));
            out.push(("TurnRepaired".into(), event));
        }
    }
    let status = t
        .get("status")
        .and_then(|s| s.get("status"))
        .and_then(Value::as_str)
        .unwrap_or("finished");
    let error = t
        .get("status")
        .and_then(|s| s.get("message"))
        .cloned()
        .unwrap_or(Value::Null);
    out.push((
        "PromptExecuted".into(),
        json!({
            "event_id": next_id(), "created_at": stamp(last_end), "prompt_name": label,
            "adapter": adapter, "session_id": session, "usage": t.get("usage"),
            "status": status, "error": error,
        }),
    ));
}

/// A `ToolInvoked` per tool result among `new`, placed between the model calls around them.
#[allow(clippy::too_many_arguments)]
fn tool_results(
    out: &mut Vec<(String, Value)>,
    new: &[Value],
    next_id: &mut impl FnMut() -> String,
    session: &str,
    adapter: &str,
    label: &str,
    from: i64,
    to: i64,
) {
    let arguments_of = |id: &Value| -> Value {
        new.iter()
            .filter(|m| role(m) == "assistant")
            .flat_map(|m| {
                m.get("tool_calls")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            })
            .find(|c| c.get("id") == Some(id))
            .and_then(|c| c.get("arguments").cloned())
            .map(|a| match a {
                Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
                other => other,
            })
            .unwrap_or(json!({}))
    };
    let results: Vec<&Value> = new.iter().filter(|m| role(m) == "tool").collect();
    let count = i64::try_from(results.len()).unwrap_or(1).max(1);
    let step = (to - from).max(0) / count;
    for (k, result) in results.into_iter().enumerate() {
        let k = i64::try_from(k).unwrap_or(0);
        let id = result.get("tool_call_id").cloned().unwrap_or(Value::Null);
        let failed = result
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let content = result.get("content").cloned().unwrap_or(Value::Null);
        let name = result
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let params = arguments_of(&id);
        let disclosure = match name {
            "read_section" | "open_sections" if !failed => {
                let keys: Vec<Value> = match (params.get("section_key"), params.get("section_keys"))
                {
                    (Some(key), _) => vec![key.clone()],
                    (None, Some(Value::Array(keys))) => keys.clone(),
                    _ => Vec::new(),
                };
                json!({"requested_sections": keys, "reason": null, "current_visibility_state": {}})
            }
            _ => Value::Null,
        };
        out.push((
            "ToolInvoked".into(),
            json!({
                "event_id": next_id(), "created_at": stamp(from + step * (k + 1)),
                "started_at": stamp(from + step * k), "prompt_name": label, "adapter": adapter,
                "session_id": session, "name": name, "call_id": id,
                "params": params, "success": !failed, "message": content,
                "value": null, "rendered_output": content, "usage": null, "disclosure": disclosure,
            }),
        ));
    }
}
