//! The MCP client behind catalogs: a server's tools in a catalog, calls forwarded over stdio;
//! lazy servers (`LazyServer`) behind a catalog section: with a warm tool cache nothing starts
//! until `find_tool` or `tool.describe` names one of the server's tools. Uses the small servers
//! of `tests/fixtures/mcp_server.py` and `crates/wink-cli/tests/python/flaky_server.py`
//! (official MCP Python SDK).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::python_mcp_sdk;
use serde_json::{Value, json};
use wink_catalog::{Catalog, ListQuery, ToolCatalogSection};
use wink_core::{ToolContext, block_on};
use wink_mcp::{
    CatalogBuilderMcp, LazyServer, ListSource, McpServer, ServerCatalog, ServerSpec, ToolCache,
};
use wink_session::Session;

fn spec() -> ServerSpec {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../wink-cli/tests/python/flaky_server.py")
        .display()
        .to_string();
    ServerSpec::stdio("flaky", vec!["python3".into(), script])
}

/// A catalog section over the server, from a warm cache.
fn warm_section(cache: &ToolCache) -> (ToolCatalogSection, Arc<LazyServer>) {
    let server = Arc::new(LazyServer::new(spec(), Some(cache.clone())));
    let servers = ServerCatalog::new(Catalog::builder, vec![server.clone()]);
    let section = ToolCatalogSection::with_servers("Tools", "tools", Arc::new(servers)).unwrap();
    (section, server)
}

fn call(section: &ToolCatalogSection, name: &str, args: Value) -> String {
    let tool = section
        .meta_tools()
        .iter()
        .find(|t| t.name() == name)
        .unwrap()
        .clone();
    let mut context = ToolContext::new(Session::new());
    let response = block_on(tool.invoke(args, &mut context)).unwrap();
    response.result.message
}

fn wait_until(mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn servers_start_when_find_tool_or_tool_describe_names_their_tools() {
    if !python_mcp_sdk() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("wink-lazy-servers-{}", std::process::id()));
    let cache = ToolCache::at(&dir);
    // A cold cache: listing starts the server; its list is cached.
    let cold = LazyServer::new(spec(), Some(cache.clone()));
    assert_eq!(cold.load_tools().unwrap(), ListSource::Server);
    assert!(cold.is_running());
    drop(cold);

    let (section, server) = warm_section(&cache);
    assert_eq!(server.list_source(), Some(ListSource::Cache));
    assert!(!server.is_running(), "a warm cache starts nothing");
    assert!(
        section.body().contains("\n- flaky.pid: "),
        "{}",
        section.body()
    );
    let found = call(&section, "find_tool", json!({"purpose": "process id"}));
    assert!(found.contains("\n- flaky.pid: "), "{found}");
    assert!(
        wait_until(|| server.is_running()),
        "find_tool did not start the server"
    );
    assert_eq!(server.starts(), 1);

    let (section, server) = warm_section(&cache);
    assert!(!server.is_running());
    let described = call(&section, "tool.describe", json!({"names": ["flaky.pid"]}));
    assert!(
        described.starts_with("`flaky.pid` is now callable."),
        "{described}"
    );
    assert!(
        wait_until(|| server.is_running()),
        "tool.describe did not start the server"
    );
    drop(section);
    drop(server);
    // The started server refreshes its cache entry in the background; a
    // removal racing that write is cleanup, not the behaviour under test.
    let _ = std::fs::remove_dir_all(&dir);
}

/// The flaky server over streamable HTTP on 127.0.0.1:`port`, once it listens.
fn http_server(port: u16) -> std::process::Child {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../wink-cli/tests/python/flaky_server.py");
    let child = Command::new("python3")
        .arg(script)
        .args(["--http", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        wait_until(|| std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()),
        "the flaky server did not listen on {port}"
    );
    child
}

/// A call the server's crash cut short: each request of a 2026-07-28 session is its own HTTP
/// request, so the message names the failed request (its URL's port varies).
fn assert_lost_during_the_call(message: &str) {
    assert!(
        message.starts_with(
            "MCP server `flaky` closed the connection during the call (Transport send error: "
        ) && message.ends_with("); it is reconnected for the next call."),
        "{message}"
    );
}

fn call_server(server: &LazyServer, tool: &str) -> Result<String, String> {
    block_on(server.call(tool, json!({}), None))
        .map(|result| result.message)
        .map_err(|e| e.to_string())
}

#[test]
fn a_crashed_streamable_http_server_is_reconnected_once() {
    if !python_mcp_sdk() {
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = LazyServer::new(
        ServerSpec::http("flaky", format!("http://127.0.0.1:{port}/mcp")),
        None,
    );
    let mut first = http_server(port);
    let first_pid = call_server(&server, "pid").unwrap();
    let crashed = call_server(&server, "crash").unwrap_err();
    assert_lost_during_the_call(&crashed);
    let _ = first.wait();

    // Whoever restarts the server, wink reconnects once: a new session with the new process.
    let mut second = http_server(port);
    let second_pid = call_server(&server, "pid").unwrap();
    assert_ne!(first_pid, second_pid);
    assert_eq!(server.starts(), 2);
    let crashed = call_server(&server, "crash").unwrap_err();
    assert_lost_during_the_call(&crashed);
    let _ = second.wait();

    // A second crash: no third connection, even with a server listening again.
    let mut third = http_server(port);
    assert_eq!(
        call_server(&server, "pid").unwrap_err(),
        "MCP server `flaky`: the connection was lost again after reconnecting; it is not reconnected a second time"
    );
    assert_eq!(server.starts(), 2);
    let _ = third.kill();
    let _ = third.wait();
}

#[test]
fn mcp_stdio_round_trip() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp_server.py");
    let command = format!("python3 {}", script.display());
    let server = Arc::new(McpServer::spawn(&command).unwrap());
    assert_eq!(server.server_name(), "fixture-server");
    let names: Vec<&str> = server.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "echo", "fail"]);

    let catalog = Catalog::builder()
        .mcp_server_in(server.clone(), "math")
        .build()
        .unwrap();
    assert_eq!(
        catalog.list_text(&ListQuery::new()),
        "Catalog: tools 1-3 of 3.\n- math.add: Add two numbers.\n- math.echo: Echo a message back.\n- math.fail: Always fails."
    );
    let add = catalog.get("math.add").unwrap().tool().clone();
    let mut context = ToolContext::new(Session::new());
    let response = block_on(add.invoke(json!({"a": 2, "b": 3.5}), &mut context)).unwrap();
    assert!(response.result.success);
    assert_eq!(response.result.model_text(), "5.5");
    let fail = catalog.get("math.fail").unwrap().tool().clone();
    let response = block_on(fail.invoke(json!({}), &mut context)).unwrap();
    assert!(!response.result.success);
    assert_eq!(response.result.model_text(), "it failed");
    drop(catalog);
    drop(add);
    drop(fail);
    drop(server);
}
