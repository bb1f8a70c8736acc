#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wink_session::{
    Event, SectionPath, SectionVisibility, Session, SessionId, SetVisibilityOverride, Timestamp,
    reducers,
};
use wink_store::{FsyncPolicy, SessionLog, StoreError, TornTail, read_log, replay};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Note(String);
impl Event for Note {}

fn note(text: &str) -> Note {
    Note(text.to_owned())
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-store-tests-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = fs::remove_file(&path);
    path
}

const SESSION_ID: &str = "7c0e2d36-6a8e-4b59-9c55-3b1f6b5c2a10";

fn fixed_session() -> Session {
    Session::builder()
        .id(SESSION_ID.parse::<SessionId>().unwrap())
        .created_at(Timestamp::from_unix_micros(1_795_319_259_123_456))
        .build()
}

fn append_bytes(path: &Path, bytes: &[u8]) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

#[test]
fn writes_header_then_one_line_per_event() {
    let path = temp_path("lines.jsonl");
    let session = fixed_session();
    let log = SessionLog::create(&path, &session, FsyncPolicy::EveryEvent).unwrap();
    assert!(session.dispatch(note("a")).ok());
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("reference"),
        visibility: SectionVisibility::Full,
    });
    assert_eq!(log.next_seq(), 3);
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        concat!(
            r#"{"wink_session_log":1,"session_id":"7c0e2d36-6a8e-4b59-9c55-3b1f6b5c2a10","created_at":"2026-11-22T03:47:39.123456Z"}"#,
            "\n",
            r#"{"seq":1,"type":"Note","event":"a"}"#,
            "\n",
            r#"{"seq":2,"type":"SetVisibilityOverride","event":{"path":["reference"],"visibility":"full"}}"#,
            "\n"
        )
    );
}

#[test]
fn create_refuses_to_overwrite() {
    let path = temp_path("exists.jsonl");
    fs::write(&path, "x").unwrap();
    let error = SessionLog::create(&path, &Session::new(), FsyncPolicy::Never).unwrap_err();
    assert!(matches!(error, StoreError::AlreadyExists { .. }));
    assert_eq!(
        error.to_string(),
        format!(
            "session log {} already exists; open it to append or choose another path",
            path.display()
        )
    );
}

#[test]
fn a_session_with_state_starts_its_log_with_a_baseline() {
    let path = temp_path("baseline.jsonl");
    let session = Session::new();
    session.dispatch(note("before the log"));
    SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
    session.dispatch(note("after"));
    let contents = read_log(&path).unwrap();
    assert_eq!(contents.records[0].type_name, "wink.restored");
    assert_eq!(contents.records[1].type_name, "Note");

    let replayed = Session::new();
    replayed.register_event::<Note>();
    replay(&path, &replayed).unwrap();
    assert_eq!(
        replayed.slice::<Note>().all(),
        [note("before the log"), note("after")]
    );
}

#[test]
fn torn_last_line_is_dropped_and_truncated_before_appending() {
    let path = temp_path("torn.jsonl");
    let session = fixed_session();
    SessionLog::create(&path, &session, FsyncPolicy::EveryEvent).unwrap();
    session.dispatch(note("a"));
    session.dispatch(note("b"));
    let intact_len = fs::metadata(&path).unwrap().len();
    append_bytes(&path, br#"{"seq":3,"type":"Note","ev"#);

    let contents = read_log(&path).unwrap();
    assert_eq!(contents.records.len(), 2);
    assert_eq!(contents.torn_tail, Some(TornTail { line: 4, bytes: 26 }));
    assert_eq!(contents.valid_len, intact_len);
    assert_eq!(
        fs::metadata(&path).unwrap().len(),
        intact_len + 26,
        "reading does not modify the file"
    );
    drop(session); // releases the log's lock

    let (reopened, log, report) = wink_store::open_session(&path, FsyncPolicy::EveryEvent, |s| {
        s.register_event::<Note>();
    })
    .unwrap();
    assert!(report.dropped_torn_line);
    assert_eq!(report.records, 2);
    assert_eq!(log.next_seq(), 3);
    reopened.dispatch(note("c"));
    let contents = read_log(&path).unwrap();
    assert_eq!(contents.torn_tail, None);
    assert_eq!(
        contents.records.iter().map(|r| r.seq).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(
        reopened.slice::<Note>().all(),
        [note("a"), note("b"), note("c")]
    );
}

#[test]
fn garbage_last_line_with_newline_is_torn_but_garbage_in_the_middle_is_corrupt() {
    let path = temp_path("garbage.jsonl");
    let session = fixed_session();
    SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
    session.dispatch(note("a"));
    append_bytes(&path, b"\0\0\0\0\n");
    let contents = read_log(&path).unwrap();
    assert_eq!(contents.records.len(), 1);
    assert_eq!(contents.torn_tail, Some(TornTail { line: 3, bytes: 5 }));

    append_bytes(&path, br#"{"seq":2,"type":"Note","event":"b"}"#);
    append_bytes(&path, b"\n");
    let error = read_log(&path).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session log {}, line 3: corrupt record: expected value at line 1 column 1",
            path.display()
        )
    );
}

#[test]
fn out_of_order_seq_in_the_middle_is_corrupt() {
    let path = temp_path("seq.jsonl");
    let session = fixed_session();
    SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
    session.dispatch(note("a"));
    append_bytes(&path, b"{\"seq\":1,\"type\":\"Note\",\"event\":\"dup\"}\n{\"seq\":2,\"type\":\"Note\",\"event\":\"b\"}\n");
    let error = read_log(&path).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session log {}, line 3: corrupt record: seq 1 does not follow seq 1",
            path.display()
        )
    );
}

#[test]
fn newer_schema_version_is_a_clear_error() {
    let path = temp_path("newer.jsonl");
    fs::write(
        &path,
        "{\"wink_session_log\":7,\"session_id\":\"7c0e2d36-6a8e-4b59-9c55-3b1f6b5c2a10\",\"future\":true}\n",
    )
    .unwrap();
    let error = read_log(&path).unwrap_err();
    assert!(matches!(
        error,
        StoreError::UnsupportedVersion {
            found: 7,
            supported: 1,
            ..
        }
    ));
    assert_eq!(
        error.to_string(),
        format!(
            "session log {} has schema version 7, newer than the supported version 1; upgrade wink to read it",
            path.display()
        )
    );
    assert_eq!(
        wink_store::read_header(&path).unwrap_err().to_string(),
        error.to_string()
    );
}

#[test]
fn missing_or_invalid_header() {
    let path = temp_path("empty.jsonl");
    fs::write(&path, "").unwrap();
    assert_eq!(
        read_log(&path).unwrap_err().to_string(),
        format!(
            "session log {} has no complete header line (empty, or the process stopped while creating it)",
            path.display()
        )
    );
    fs::write(&path, "{\"hello\":1}\n").unwrap();
    assert_eq!(
        read_log(&path).unwrap_err().to_string(),
        format!(
            "session log {}: invalid header line: missing numeric field \"wink_session_log\"",
            path.display()
        )
    );
    let missing = temp_path("does-not-exist.jsonl");
    let error = read_log(&missing).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&format!("session log {}: open: ", missing.display()))
    );
}

#[test]
fn resume_checks_the_session_id_and_unknown_types() {
    let path = temp_path("mismatch.jsonl");
    let session = fixed_session();
    SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
    session.dispatch(note("a"));
    drop(session); // releases the log's lock
    let other = Session::new();
    let error = SessionLog::resume(&path, &other, FsyncPolicy::Never).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session log {} belongs to session {SESSION_ID}, not {}",
            path.display(),
            other.id()
        )
    );
    let unconfigured = wink_store::session_builder(&path).unwrap().build();
    let error = SessionLog::resume(&path, &unconfigured, FsyncPolicy::Never).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session log {}, record 1: event type \"Note\" is not registered in this session",
            path.display()
        )
    );
}

#[test]
fn replay_reproduces_reducers_restores_and_direct_changes() {
    let path = temp_path("replay.jsonl");
    let configure = |s: &Session| {
        s.register_reducer::<Note, Note>(reducers::replace_latest());
    };
    let live = Session::new();
    configure(&live);
    SessionLog::create(&path, &live, FsyncPolicy::Never).unwrap();
    live.dispatch(note("a"));
    let snapshot = live.snapshot();
    live.dispatch(note("b"));
    live.restore(&snapshot).unwrap();
    live.seed([note("seeded")]).unwrap();
    live.dispatch(SetVisibilityOverride {
        path: SectionPath::root("x"),
        visibility: SectionVisibility::Summary,
    });

    let expected = live.slices_json().unwrap();
    drop(live); // releases the log's lock
    let (replayed, _, report) =
        wink_store::open_session(&path, FsyncPolicy::Never, configure).unwrap();
    assert_eq!(report.records, 5);
    assert_eq!(replayed.slice::<Note>().all(), [note("a"), note("seeded")]);
    assert_eq!(replayed.slices_json().unwrap(), expected);
}

#[test]
fn a_log_in_use_is_locked_until_its_writer_is_dropped() {
    let path = temp_path("locked.jsonl");
    let session = fixed_session();
    let log = SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
    session.dispatch(note("a"));
    let locked = |error: StoreError| {
        assert!(matches!(error, StoreError::Locked { .. }), "{error:?}");
        assert_eq!(
            error.to_string(),
            format!(
                "session log {} is in use by another run (it is locked); wait for that run to end or choose another log",
                path.display()
            )
        );
    };
    locked(SessionLog::resume(&path, &fixed_session(), FsyncPolicy::Never).unwrap_err());
    locked(
        wink_store::open_session(&path, FsyncPolicy::Never, |s| s.register_event::<Note>())
            .unwrap_err(),
    );
    // Readers do not lock.
    assert_eq!(read_log(&path).unwrap().records.len(), 1);
    drop(session);
    drop(log);
    let (reopened, _log, report) =
        wink_store::open_session(&path, FsyncPolicy::Never, |s| s.register_event::<Note>())
            .unwrap();
    assert_eq!(report.records, 1);
    assert_eq!(reopened.slice::<Note>().all().len(), 1);
}
