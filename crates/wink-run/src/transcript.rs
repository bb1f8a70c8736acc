//! The transcript of a run (`--transcript`): every model call's messages, tools and usage, the
//! outcome and what the run spent, as pretty-printed JSON.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wink_agent::{LoopOutcome, ProviderAdapter, RunResult};
use wink_session::TurnRepaired;

use crate::error::{Result, RunError};

/// The transcript of `result` as JSON: the adapter and model it ran on, each model call (with
/// its start and end), and `repairs`: the turns the turn policies took back during the run
/// (its `TurnRepaired` events: rule, action, tool, the text).
#[must_use]
pub fn transcript_json(
    result: &RunResult,
    adapter: &dyn ProviderAdapter,
    repairs: &[TurnRepaired],
) -> Value {
    let repairs: Vec<Value> = repairs
        .iter()
        .map(|r| json!({"rule": r.rule, "action": r.action, "tool": r.tool, "text": r.text}))
        .collect();
    let spent = result.spent;
    let calls: Vec<Value> = result
        .evaluations
        .iter()
        .flat_map(|e| e.model_calls.iter())
        .map(|c| {
            json!({
                "messages": c.messages,
                "tools": c.tools,
                "usage": c.usage.unwrap_or_default(),
                "turn": c.turn,
                "started_at": c.started_at,
                "ended_at": c.ended_at,
            })
        })
        .collect();
    let (text, output) = match &result.outcome {
        LoopOutcome::Finished { text, output } => (json!(text), json!(output)),
        LoopOutcome::Terminated { content, value, .. } => (json!(content), json!(value)),
        _ => (Value::Null, Value::Null),
    };
    json!({
        "adapter": adapter.name(),
        "model": adapter.model(),
        "status": result.outcome,
        "model_calls": calls,
        "output": output,
        "text": text,
        "usage": spent.usage,
        "model_call_count": spent.model_calls,
        "tool_call_count": spent.tool_calls,
        "restarts": result.restarts,
        "provider_failure": result.provider_failure(),
        "repairs": repairs,
    })
}

/// The `TurnRepaired` events `session` holds after the first `before`.
#[must_use]
pub fn repairs_since(session: &wink_session::Session, before: usize) -> Vec<TurnRepaired> {
    session
        .slice::<TurnRepaired>()
        .all()
        .get(before..)
        .map(<[TurnRepaired]>::to_vec)
        .unwrap_or_default()
}

/// Writes the transcript of `result` to `path` (through a temporary file, renamed into place).
///
/// # Errors
/// [`RunError::Failed`] naming the file.
pub fn write_transcript(
    path: &Path,
    result: &RunResult,
    adapter: &dyn ProviderAdapter,
    repairs: &[TurnRepaired],
) -> Result<()> {
    let data =
        serde_json::to_string_pretty(&transcript_json(result, adapter, repairs)).map_err(|e| {
            RunError::failed(format!("cannot write transcript {}: {e}", path.display()))
        })?;
    write_atomically(path, data.as_bytes())
        .map_err(|e| RunError::failed(format!("cannot write transcript {}: {e}", path.display())))
}

/// Refuses an output path that cannot be written, before the run does any work: its directory
/// must exist and accept a new file (probed with the temporary file the write will use).
///
/// # Errors
/// The reason, naming the path.
pub fn check_writable(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!("{} is a directory", path.display()));
    }
    let probe = temporary_path(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The temporary file a write of `path` goes through.
fn temporary_path(path: &Path) -> PathBuf {
    path.with_extension("tmp-wink")
}

/// Writes `data` to `path` through a temporary file renamed into place.
///
/// # Errors
/// The I/O error.
pub fn write_atomically(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let tmp = temporary_path(path);
    std::fs::write(&tmp, data)?;
    std::fs::rename(&tmp, path)
}
