#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wink_session::{
    ClearVisibilityOverride, Event, SectionPath, SectionVisibility, Session, SessionId,
    SetVisibilityOverride, SliceItem, Timestamp,
};
use wink_store::{FsyncPolicy, SessionLog, ShowFormat, show};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Note(String);
impl Event for Note {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Plan {
    steps: Vec<String>,
}
impl SliceItem for Plan {}

fn logged_session(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-store-show-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = fs::remove_file(&path);
    let session = Session::builder()
        .id("c70e2d36-6a8e-4b59-9c55-3b1f6b5c2a10"
            .parse::<SessionId>()
            .unwrap())
        .created_at(Timestamp::from_unix_micros(1_795_319_259_123_456))
        .build();
    SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
    session.dispatch(Note("a".into()));
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("reference"),
        visibility: SectionVisibility::Full,
    });
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("tools"),
        visibility: SectionVisibility::Summary,
    });
    session.dispatch(ClearVisibilityOverride {
        path: SectionPath::root("tools"),
    });
    session
        .seed([Plan {
            steps: vec!["read".into(), "write".into()],
        }])
        .unwrap();
    session.dispatch(Note("b".into()));
    path
}

fn anonymize(text: &str, path: &Path) -> String {
    text.replace(&path.display().to_string(), "<path>")
}

#[test]
fn text_output() {
    let path = logged_session("text.jsonl");
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"{\"seq\":7,")
        .unwrap();
    let text = show(&path, None, ShowFormat::Text).unwrap();
    insta::assert_snapshot!(anonymize(&text, &path), @r#"
    Session c70e2d36-6a8e-4b59-9c55-3b1f6b5c2a10
      log: <path>
      schema: 1
      created: 2026-11-22T03:47:39.123456Z
      records: 6
      dropped torn last line: line 8 (9 bytes)

    Events (6):
      #1 Note "a"
      #2 SetVisibilityOverride {"path":["reference"],"visibility":"full"}
      #3 SetVisibilityOverride {"path":["tools"],"visibility":"summary"}
      #4 ClearVisibilityOverride {"path":["tools"]}
      #5 wink.slice_extended {"slice":"Plan","items":[{"steps":["read","write"]}]}
      #6 Note "b"

    Slices (3):
      Note (2 items)
        - "a"
        - "b"
      Plan (1 item)
        - {"steps":["read","write"]}
      VisibilityOverrides (1 item)
        - {"overrides":[{"path":["reference"],"visibility":"full"}]}
    "#);
}

#[test]
fn json_output_with_slice_filter() {
    let path = logged_session("json.jsonl");
    let text = show(&path, Some("Note"), ShowFormat::Json).unwrap();
    insta::assert_snapshot!(text, @r#"
    {
      "header": {
        "wink_session_log": 1,
        "session_id": "c70e2d36-6a8e-4b59-9c55-3b1f6b5c2a10",
        "created_at": "2026-11-22T03:47:39.123456Z"
      },
      "events": [
        {
          "seq": 1,
          "type": "Note",
          "event": "a"
        },
        {
          "seq": 6,
          "type": "Note",
          "event": "b"
        }
      ],
      "slices": {
        "Note": [
          "a",
          "b"
        ]
      }
    }
    "#);
    let full: serde_json::Value =
        serde_json::from_str(&show(&path, None, ShowFormat::Json).unwrap()).unwrap();
    assert_eq!(full["events"].as_array().unwrap().len(), 6);
    assert_eq!(
        full["slices"]["VisibilityOverrides"],
        serde_json::json!([{"overrides": [{"path": ["reference"], "visibility": "full"}]}])
    );
}

#[test]
fn unknown_slice_lists_the_available_ones() {
    let path = logged_session("unknown.jsonl");
    let error = show(&path, Some("Nope"), ShowFormat::Text).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session log {} has no slice \"Nope\"; slices: Note, Plan, VisibilityOverrides",
            path.display()
        )
    );
}

#[test]
fn format_parses() {
    assert_eq!("text".parse::<ShowFormat>().unwrap(), ShowFormat::Text);
    assert_eq!("json".parse::<ShowFormat>().unwrap(), ShowFormat::Json);
    assert_eq!(
        "yaml".parse::<ShowFormat>().unwrap_err(),
        "unknown format \"yaml\"; expected \"text\" or \"json\""
    );
}

#[test]
fn slice_filter_keeps_the_events_that_reduced_into_the_slice() {
    let path = logged_session("reduced.jsonl");
    let text = show(&path, Some("VisibilityOverrides"), ShowFormat::Text).unwrap();
    insta::assert_snapshot!(anonymize(&text, &path), @r#"
    Session c70e2d36-6a8e-4b59-9c55-3b1f6b5c2a10
      log: <path>
      schema: 1
      created: 2026-11-22T03:47:39.123456Z
      records: 6

    Events (3):
      #2 SetVisibilityOverride {"path":["reference"],"visibility":"full"}
      #3 SetVisibilityOverride {"path":["tools"],"visibility":"summary"}
      #4 ClearVisibilityOverride {"path":["tools"]}

    Slices (1):
      VisibilityOverrides (1 item)
        - {"overrides":[{"path":["reference"],"visibility":"full"}]}
    "#);
    // A slice changed directly shows the `wink.slice_*` records that name it.
    let plan: serde_json::Value =
        serde_json::from_str(&show(&path, Some("Plan"), ShowFormat::Json).unwrap()).unwrap();
    assert_eq!(
        plan["events"],
        serde_json::json!([{"seq": 5, "type": "wink.slice_extended", "event": {"slice": "Plan", "items": [{"steps": ["read", "write"]}]}}])
    );
    assert_eq!(
        plan["slices"],
        serde_json::json!({"Plan": [{"steps": ["read", "write"]}]})
    );
}

#[test]
fn restores_and_resets_reduce_into_every_slice() {
    let dir = std::env::temp_dir().join(format!("wink-store-show-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("restore.jsonl");
    let _ = fs::remove_file(&path);
    let session = Session::new();
    SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
    session.dispatch(Note("a".into()));
    let snapshot = session.snapshot();
    session.dispatch(Note("b".into()));
    session.restore(&snapshot).unwrap();
    session.reset().unwrap();
    session.dispatch(Note("c".into()));
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("x"),
        visibility: SectionVisibility::Full,
    });
    let types = |slice: &str| -> Vec<String> {
        let shown: serde_json::Value =
            serde_json::from_str(&show(&path, Some(slice), ShowFormat::Json).unwrap()).unwrap();
        shown["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|event| format!("#{} {}", event["seq"], event["type"].as_str().unwrap()))
            .collect()
    };
    assert_eq!(
        types("Note"),
        [
            "#1 Note",
            "#2 Note",
            "#3 wink.restored",
            "#4 wink.reset",
            "#5 Note"
        ]
    );
    assert_eq!(
        types("VisibilityOverrides"),
        [
            "#3 wink.restored",
            "#4 wink.reset",
            "#6 SetVisibilityOverride"
        ]
    );
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct AddStep(String);
impl Event for AddStep {}

#[test]
fn show_with_folds_through_the_programs_own_reducers() {
    let dir = std::env::temp_dir().join(format!("wink-store-show-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("reducers.jsonl");
    let _ = fs::remove_file(&path);
    let register = |session: &Session| {
        session.register_reducer::<Plan, AddStep>(
            |plan: &wink_session::SliceView<Plan>, step: &AddStep| {
                let mut steps = plan.latest().map(|p| p.steps.clone()).unwrap_or_default();
                steps.push(step.0.clone());
                Ok(wink_session::SliceOp::Replace(vec![Plan { steps }]))
            },
        );
    };
    let session = Session::new();
    register(&session);
    SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
    session.dispatch(AddStep("read".into()));
    session.dispatch(Note("aside".into()));
    session.dispatch(AddStep("write".into()));

    let shown: serde_json::Value = serde_json::from_str(
        &wink_store::show_with(&path, Some("Plan"), ShowFormat::Json, register).unwrap(),
    )
    .unwrap();
    assert_eq!(
        shown["events"],
        serde_json::json!([
            {"seq": 1, "type": "AddStep", "event": "read"},
            {"seq": 3, "type": "AddStep", "event": "write"}
        ])
    );
    assert_eq!(
        shown["slices"],
        serde_json::json!({"Plan": [{"steps": ["read", "write"]}]})
    );
    // Without the reducers, the events are a ledger of their own type and there is no Plan slice.
    let error = show(&path, Some("Plan"), ShowFormat::Json).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session log {} has no slice \"Plan\"; slices: AddStep, Note, VisibilityOverrides",
            path.display()
        )
    );
}
