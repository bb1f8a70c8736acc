//! Parallel tool calls of one model turn: each is transactional without undoing its siblings —
//! session changes commit in call order only for calls that succeed, and a failed call's file
//! changes are undone while the others' stay.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;
use wink_core::*;
use wink_fs::{Filesystem, InMemoryFilesystem, WriteMode};
use wink_session::{Event, Session, ToolInvoked};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Done(String);
impl Event for Done {}

/// Appends a line to `log.txt`, writes `<name>.txt`, records `Done(name)`; fails when asked to.
fn worker() -> ToolRef {
    ToolBuilder::dynamic(
        "work",
        "Do some work.",
        json!({"type": "object", "properties": {"name": {"type": "string"}, "fail": {"type": "boolean"}}, "required": ["name", "fail"]}),
        |args, ctx| {
            let name = args["name"].as_str().unwrap_or_default().to_owned();
            let fs = ctx
                .filesystem()
                .cloned()
                .ok_or_else(|| ToolError::failed("no filesystem"))?;
            fs.write("log.txt", &format!("{name}\n"), WriteMode::Append)
                .map_err(|e| ToolError::failed(e.to_string()))?;
            fs.write(&format!("{name}.txt"), &name, WriteMode::Create)
                .map_err(|e| ToolError::failed(e.to_string()))?;
            ctx.session.dispatch(Done(name.clone()));
            if args["fail"] == json!(true) {
                return Err(ToolError::failed(format!("{name} broke")));
            }
            Ok(ToolResult::message(format!("{name} ok")))
        },
    )
    .parallel()
    .build()
    .unwrap()
}

fn call(id: &str, name: &str, fail: bool) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "work".into(),
        arguments: ToolArguments::Json(json!({"name": name, "fail": fail})),
    }
}

fn done(session: &Session) -> Vec<String> {
    session
        .slice::<Done>()
        .all()
        .iter()
        .map(|d| d.0.clone())
        .collect()
}

#[test]
fn a_failing_sibling_is_undone_alone() {
    let session = Session::new();
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    fs.write("log.txt", "start\n", WriteMode::Create).unwrap();
    let mut executor = ToolExecutor::new(session.clone(), "t:concurrent");
    executor.resources = Resources::new().with(Arc::clone(&fs));
    let tools = [worker()];
    let calls = [
        call("1", "a", false),
        call("2", "b", true),
        call("3", "c", false),
    ];

    let outcomes = block_on(executor.execute_concurrently(&calls, &tools, None));
    let messages: Vec<(String, bool)> = outcomes
        .into_iter()
        .map(|o| match o.unwrap() {
            CallOutcome::Completed(r) => (r.result.message, r.result.success),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        messages,
        [
            ("a ok".to_owned(), true),
            ("Tool 'work' execution failed: b broke".to_owned(), false),
            ("c ok".to_owned(), true),
        ]
    );
    // Session: the successful calls' changes, in call order; nothing of the failed one.
    assert_eq!(done(&session), ["a", "c"]);
    // Files: a and c stay, b is gone, the shared log keeps a's and c's lines in order.
    assert_eq!(fs.read_to_string("a.txt").unwrap(), "a");
    assert_eq!(fs.read_to_string("c.txt").unwrap(), "c");
    assert!(!fs.exists("b.txt"));
    assert_eq!(fs.read_to_string("log.txt").unwrap(), "start\na\nc\n");
    // Telemetry records every call, the failed one included.
    assert_eq!(session.slice::<ToolInvoked>().len(), 3);
}

#[test]
fn concurrent_calls_do_not_see_each_others_session_changes() {
    let session = Session::new();
    let peek = ToolBuilder::dynamic(
        "peek",
        "Count Done events.",
        json!({"type": "object", "properties": {}}),
        |_args, ctx| {
            ctx.session.dispatch(Done("peek".into()));
            Ok(ToolResult::message(format!(
                "{} done",
                ctx.session.slice::<Done>().len()
            )))
        },
    )
    .parallel()
    .build()
    .unwrap();
    let executor = ToolExecutor::new(session.clone(), "t:peek");
    let calls = [
        ToolCall {
            id: "1".into(),
            name: "peek".into(),
            arguments: ToolArguments::Json(json!({})),
        },
        ToolCall {
            id: "2".into(),
            name: "peek".into(),
            arguments: ToolArguments::Json(json!({})),
        },
    ];
    let outcomes = block_on(executor.execute_concurrently(&calls, &[peek], None));
    for outcome in outcomes {
        let CallOutcome::Completed(r) = outcome.unwrap() else {
            panic!("expected a result");
        };
        assert_eq!(r.result.message, "1 done");
    }
    assert_eq!(done(&session), ["peek", "peek"]);
}
