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

/// The events being written for one transcript, with what every event carries.
struct Events<'a> {
    label: &'a str,
    adapter: &'a str,
    session: String,
    counter: u64,
    out: Vec<(String, Value)>,
}

impl Events<'_> {
    /// A fresh event id (the same for the same transcript every time).
    fn next_id(&mut self) -> String {
        self.counter += 1;
        event_id(self.label, self.counter)
    }

    fn push(&mut self, type_name: &str, event: Value) {
        self.out.push((type_name.to_owned(), event));
    }

    /// A `PromptExecuted` at `at` (Unix microseconds) with `fields`.
    fn executed(&mut self, at: i64, fields: Value) {
        let mut event = json!({
            "event_id": self.next_id(), "created_at": stamp(at), "prompt_name": self.label,
            "adapter": self.adapter, "session_id": self.session,
        });
        if let (Value::Object(event), Value::Object(fields)) = (&mut event, fields) {
            event.extend(fields);
        }
        self.push("PromptExecuted", event);
    }

    /// The turns the turn policies took back: a transcript does not say when, so at `at`.
    fn repairs(&mut self, t: &Value, at: i64) {
        let repairs = t.get("repairs").and_then(Value::as_array);
        for repair in repairs.into_iter().flatten() {
            let mut event = repair.clone();
            if let Value::Object(fields) = &mut event {
                fields.insert("event_id".into(), json!(self.next_id()));
                fields.insert("created_at".into(), stamp(at));
                fields.insert("session_id".into(), json!(self.session));
                self.push("TurnRepaired", event);
            }
        }
    }
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
    let timed = calls.iter().all(|c| c.get("started_at").is_some());
    let mut events = Events {
        label,
        adapter,
        session: event_id(label, u64::MAX),
        counter: 0,
        out: Vec::new(),
    };
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
                events.executed(last_end, json!({"status": "expansion_required"}));
            }
            let text = messages
                .first()
                .filter(|m| role(m) == "system")
                .and_then(|m| m.get("content"))
                .cloned()
                .unwrap_or(Value::Null);
            let id = events.next_id();
            events.push("PromptRendered", json!({
                "event_id": id, "created_at": stamp(start), "prompt_ns": "transcript",
                "prompt_key": label, "prompt_name": label, "adapter": adapter,
                "session_id": events.session, "text": text, "tool_names": call.get("tools").cloned().unwrap_or(json!([])),
            }));
            sent.clear();
            index = 0;
            last_end = start;
        }
        let new: Vec<Value> = messages.get(sent.len()..).unwrap_or_default().to_vec();
        tool_results(&mut events, &new, last_end, start);
        let next_assistant = calls
            .get(i + 1)
            .and_then(|c| c.get("messages"))
            .and_then(Value::as_array)
            .and_then(|m| m.get(messages.len()))
            .filter(|m| role(m) == "assistant");
        let tool_calls: Vec<Value> = next_assistant
            .and_then(|m| m.get("tool_calls")).and_then(Value::as_array).into_iter().flatten()
            .map(|c| json!({"id": c.get("id"), "name": c.get("name"), "arguments": c.get("arguments")}))
            .collect();
        let text = match next_assistant {
            Some(m) => m.get("content").cloned().unwrap_or(Value::Null),
            None if i + 1 == calls.len() => t.get("text").cloned().unwrap_or(Value::Null),
            None => Value::Null,
        };
        let id = events.next_id();
        events.push("ModelCalled", json!({
            "event_id": id, "created_at": stamp(end), "started_at": stamp(start),
            "adapter": adapter, "model": model, "session_id": events.session, "index": index,
            "messages": messages.len(), "tools": call.get("tools").cloned().unwrap_or(json!([])),
            "usage": call.get("usage"), "finish_reason": if tool_calls.is_empty() { "stop" } else { "tool_calls" },
            "tool_calls": tool_calls, "text": text, "new_messages": new,
        }));
        index += 1;
        last_end = end;
        sent = messages;
    }
    events.repairs(t, last_end);
    let status = t.get("status");
    let error = status.and_then(|s| s.get("message")).cloned();
    let status = status.and_then(|s| s.get("status")).and_then(Value::as_str);
    events.executed(
        last_end,
        json!({"usage": t.get("usage"), "status": status.unwrap_or("finished"), "error": error}),
    );
    if !timed {
        events.push(TIMING_UNKNOWN, Value::Null);
    }
    Ok(events.out)
}

/// A `ToolInvoked` per tool result among `new`, placed between the model calls around them
/// (`from` and `to`, Unix microseconds).
fn tool_results(events: &mut Events<'_>, new: &[Value], from: i64, to: i64) {
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
        let event_id = events.next_id();
        let event = json!({
            "event_id": event_id, "created_at": stamp(from + step * (k + 1)),
            "started_at": stamp(from + step * k), "prompt_name": events.label,
            "adapter": events.adapter, "session_id": events.session, "name": name, "call_id": id,
            "params": params, "success": !failed, "message": content,
            "value": null, "rendered_output": content, "usage": null, "disclosure": disclosure,
        });
        events.push("ToolInvoked", event);
    }
}
