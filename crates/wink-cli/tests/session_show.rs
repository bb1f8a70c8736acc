//! `wink session show FILE [--slice TYPE] [--format text|json]`: the library (`wink_store::show`) and
//! the CLI print the same thing; `--slice` keeps the slice and the events that reduced into it; a
//! torn last line is dropped with a warning; a log from a newer wink is refused with exit 2.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use common::wink;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wink_session::{
    ClearAllVisibilityOverrides, ClearVisibilityOverride, Event, SectionPath, SectionVisibility,
    Session, SessionId, SetVisibilityOverride, Timestamp,
};
use wink_store::{FsyncPolicy, SessionLog, ShowFormat, show};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Note(String);
impl Event for Note {}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-cli-session-show-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = fs::remove_file(&path);
    path
}

fn visibility(key: &str, visibility: SectionVisibility) -> SetVisibilityOverride {
    SetVisibilityOverride {
        path: SectionPath::root(key),
        visibility,
    }
}

/// A log whose `VisibilityOverrides` were built by five events, interleaved with notes.
fn logged_session(name: &str) -> PathBuf {
    let path = scratch(name);
    let session = Session::builder()
        .id("b50f5c3e-2d7a-4c1e-9a53-0e6f1d2c3b4a"
            .parse::<SessionId>()
            .unwrap())
        .created_at(Timestamp::from_unix_micros(1_795_319_259_000_001))
        .build();
    SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
    session.dispatch(Note("start".into()));
    session.dispatch(visibility("guide", SectionVisibility::Full));
    session.dispatch(visibility("tools", SectionVisibility::Summary));
    session.dispatch(Note("middle".into()));
    session.dispatch(ClearAllVisibilityOverrides);
    session.dispatch(visibility("reference", SectionVisibility::Full));
    session.dispatch(ClearVisibilityOverride {
        path: SectionPath::root("guide"),
    });
    session.dispatch(Note("end".into()));
    path
}

fn cli_show(path: &Path, extra: &[&str]) -> (String, String) {
    let file = path.display().to_string();
    let mut args = vec!["session", "show", file.as_str()];
    args.extend_from_slice(extra);
    let out = wink(&args);
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn anonymize(text: &str, path: &Path) -> String {
    text.replace(&path.display().to_string(), "<path>")
}

const VISIBILITY_TEXT: &str = r#"Session b50f5c3e-2d7a-4c1e-9a53-0e6f1d2c3b4a
  log: <path>
  schema: 1
  created: 2026-11-22T03:47:39.000001Z
  records: 8

Events (5):
  #2 SetVisibilityOverride {"path":["guide"],"visibility":"full"}
  #3 SetVisibilityOverride {"path":["tools"],"visibility":"summary"}
  #5 ClearAllVisibilityOverrides null
  #6 SetVisibilityOverride {"path":["reference"],"visibility":"full"}
  #7 ClearVisibilityOverride {"path":["guide"]}

Slices (1):
  VisibilityOverrides (1 item)
    - {"overrides":[{"path":["reference"],"visibility":"full"}]}
"#;

#[test]
fn slice_shows_the_events_that_built_it_through_the_library() {
    let path = logged_session("library.jsonl");
    let text = show(&path, Some("VisibilityOverrides"), ShowFormat::Text).unwrap();
    assert_eq!(anonymize(&text, &path), VISIBILITY_TEXT);

    let json: Value =
        serde_json::from_str(&show(&path, Some("VisibilityOverrides"), ShowFormat::Json).unwrap())
            .unwrap();
    let seqs: Vec<u64> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [2, 3, 5, 6, 7]);

    // The ledger of an event type without a reducer keeps exactly its own events.
    let notes = show(&path, Some("Note"), ShowFormat::Text).unwrap();
    assert!(
        notes.contains(
            "Events (3):\n  #1 Note \"start\"\n  #4 Note \"middle\"\n  #8 Note \"end\"\n\nSlices (1):\n  Note (3 items)\n"
        ),
        "{notes}"
    );
}

#[test]
fn slice_in_text_format_through_the_cli() {
    let path = logged_session("cli-text.jsonl");
    let (stdout, stderr) = cli_show(&path, &["--slice", "VisibilityOverrides"]);
    assert_eq!(anonymize(&stdout, &path), VISIBILITY_TEXT);
    assert_eq!(stderr, "");
    // The CLI prints what the library renders.
    assert_eq!(
        stdout,
        show(&path, Some("VisibilityOverrides"), ShowFormat::Text).unwrap()
    );
}

#[test]
fn slice_in_json_format_through_the_cli() {
    let path = logged_session("cli-json.jsonl");
    let (stdout, _) = cli_show(
        &path,
        &["--slice", "VisibilityOverrides", "--format", "json"],
    );
    assert_eq!(
        stdout,
        show(&path, Some("VisibilityOverrides"), ShowFormat::Json).unwrap()
    );
    let shown: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        shown,
        json!({
            "header": {
                "wink_session_log": 1,
                "session_id": "b50f5c3e-2d7a-4c1e-9a53-0e6f1d2c3b4a",
                "created_at": "2026-11-22T03:47:39.000001Z"
            },
            "events": [
                {"seq": 2, "type": "SetVisibilityOverride", "event": {"path": ["guide"], "visibility": "full"}},
                {"seq": 3, "type": "SetVisibilityOverride", "event": {"path": ["tools"], "visibility": "summary"}},
                {"seq": 5, "type": "ClearAllVisibilityOverrides", "event": null},
                {"seq": 6, "type": "SetVisibilityOverride", "event": {"path": ["reference"], "visibility": "full"}},
                {"seq": 7, "type": "ClearVisibilityOverride", "event": {"path": ["guide"]}}
            ],
            "slices": {
                "VisibilityOverrides": [{"overrides": [{"path": ["reference"], "visibility": "full"}]}]
            }
        })
    );
    // Without --slice, every event and slice.
    let (all, _) = cli_show(&path, &["--format", "json"]);
    let all: Value = serde_json::from_str(&all).unwrap();
    assert_eq!(all["events"].as_array().unwrap().len(), 8);
    assert_eq!(
        all["slices"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["Note", "VisibilityOverrides"]
    );
}

#[test]
fn a_torn_last_line_is_dropped_with_a_warning() {
    let path = logged_session("torn.jsonl");
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"{\"seq\":9,\"type\":\"Note\",\"ev")
        .unwrap();
    let before = fs::read(&path).unwrap();

    let (text, stderr) = cli_show(&path, &["--slice", "VisibilityOverrides"]);
    let expected = VISIBILITY_TEXT.replace(
        "  records: 8\n",
        "  records: 8\n  dropped torn last line: line 10 (26 bytes)\n",
    );
    assert_eq!(anonymize(&text, &path), expected);
    assert_eq!(
        stderr.trim_end(),
        format!(
            " WARN wink_store::read: Dropping torn last line of session log (a write interrupted by a crash; it was never acknowledged). path={} line=10 bytes=26",
            path.display()
        )
    );

    let (json, _) = cli_show(&path, &["--format", "json", "--slice", "Note"]);
    let json: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["dropped_torn_line"], 10);
    assert_eq!(json["events"].as_array().unwrap().len(), 3);
    assert_eq!(
        fs::read(&path).unwrap(),
        before,
        "show never modifies the log"
    );
}

#[test]
fn a_newer_schema_version_exits_2() {
    let path = scratch("newer.jsonl");
    fs::write(
        &path,
        "{\"wink_session_log\":2,\"session_id\":\"b50f5c3e-2d7a-4c1e-9a53-0e6f1d2c3b4a\",\"created_at\":\"2026-11-22T03:47:39.000001Z\"}\n{\"seq\":1,\"type\":\"Note\",\"event\":\"a\"}\n",
    )
    .unwrap();
    let file = path.display().to_string();
    for format in ["text", "json"] {
        let out = wink(&["session", "show", &file, "--format", format]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!(
                "error: session log {file} has schema version 2, newer than the supported version 1; upgrade wink to read it\n"
            )
        );
    }
}

#[test]
fn an_unknown_slice_exits_2_and_lists_the_slices() {
    let path = logged_session("unknown.jsonl");
    let file = path.display().to_string();
    let out = wink(&["session", "show", &file, "--slice", "Nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "error: session log {file} has no slice \"Nope\"; slices: Note, VisibilityOverrides\n"
        )
    );
}
