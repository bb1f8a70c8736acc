//! MCP servers over stdio, through the client side of `rmcp`.
//!
//! [`McpServer::spawn`] starts the server as a child process, performs the MCP handshake and
//! lists its tools; catalog tools made from them forward calls to the server. The connection runs
//! on a private one-thread tokio runtime, so callers need no runtime of their own (the returned
//! futures complete on any executor, e.g. [`wink_core::block_on`]).

use std::fmt;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, PaginatedRequestParams};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use wink_core::{Deadline, ToolError, ToolPayload, ToolResult};

use crate::error::CatalogError;
use crate::record::{ToolRecord, empty_object_schema};
use crate::servers::{ServerSpec, ServerTransport};

/// How long the handshake and the first `tools/list` may take.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long closing the connection may take when the server is dropped.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);
/// How much of a server's stderr is kept for error messages.
const STDERR_TAIL: usize = 2000;

/// The client side of the connection: notes `notifications/tools/list_changed`.
#[derive(Debug, Clone, Default)]
struct Watcher {
    tools_changed: Arc<AtomicBool>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.store(true, Ordering::SeqCst);
    }
}

/// A server's tools as one `tools/list` (all pages) returned them.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolList {
    /// The tools, named as the server names them.
    pub tools: Vec<ToolRecord>,
    /// How long the list may be treated as fresh (the result's `ttlMs`), when the server said.
    pub ttl_ms: Option<u64>,
}

/// A running MCP server reached over stdio or streamable HTTP.
pub struct McpServer {
    command: String,
    server_name: String,
    server_version: String,
    tools: Vec<ToolRecord>,
    ttl_ms: Option<u64>,
    watcher: Watcher,
    stderr: Arc<Mutex<String>>,
    /// Set when a request found the transport closed (before the service notices).
    hung_up: Arc<AtomicBool>,
    peer: Peer<RoleClient>,
    service: Option<RunningService<RoleClient, Watcher>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("command", &self.command)
            .field("server_name", &self.server_name)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// Starts `command_line` (a program and its arguments, split like a shell does: whitespace,
    /// `'single'` and `"double"` quotes, `\` escapes), initialises the MCP session and lists the
    /// server's tools. Blocks until done (at most 30 s).
    pub fn spawn(command_line: &str) -> Result<Self, CatalogError> {
        let words = split_command_line(command_line).map_err(|message| CatalogError::Mcp {
            command: command_line.to_owned(),
            message,
        })?;
        if words.is_empty() {
            return Err(CatalogError::Mcp {
                command: command_line.to_owned(),
                message: "the command is empty".to_owned(),
            });
        }
        let spec = ServerSpec::stdio("mcp", words);
        Self::connect_as(&spec, command_line)
    }

    /// Starts (stdio) or connects to (streamable HTTP) the server `spec` describes, initialises
    /// the MCP session and lists its tools. Blocks until done (at most 30 s).
    ///
    /// A stdio server runs in its own process group, which is killed when the server is dropped;
    /// on Linux it is started through `setpriv --pdeathsig KILL` (when `setpriv` is installed),
    /// so it is killed even when this process dies without cleaning up.
    pub fn connect(spec: &ServerSpec) -> Result<Self, CatalogError> {
        Self::connect_as(spec, &spec.shown())
    }

    fn connect_as(spec: &ServerSpec, shown: &str) -> Result<Self, CatalogError> {
        let failure = |message: String| CatalogError::Mcp {
            command: shown.to_owned(),
            message,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("wink-mcp-client")
            .enable_all()
            .build()
            .map_err(|e| failure(format!("cannot start the async runtime: {e}")))?;
        let watcher = Watcher::default();
        let stderr = Arc::new(Mutex::new(String::new()));
        let startup = start(spec.clone(), watcher.clone(), stderr.clone());
        let handle = runtime.spawn(async move {
            tokio::time::timeout(STARTUP_TIMEOUT, startup)
                .await
                .unwrap_or_else(|_| {
                    Err(format!(
                        "no answer to the handshake within {} s",
                        STARTUP_TIMEOUT.as_secs()
                    ))
                })
        });
        let outcome = wink_core::block_on(handle)
            .map_err(|e| failure(format!("the connection task failed: {e}")))?;
        let (service, list) = match outcome {
            Ok(started) => started,
            Err(message) => {
                // Give the stderr reader a moment to collect why the server stopped.
                std::thread::sleep(Duration::from_millis(50));
                let tail = stderr_tail(&stderr);
                runtime.shutdown_background();
                return Err(failure(match tail {
                    Some(tail) => format!("{message}; its stderr ends: {tail}"),
                    None => message,
                }));
            }
        };
        let peer = service.peer().clone();
        let info = peer.peer_info();
        let server_name = info
            .as_ref()
            .and_then(|info| info.server_info.as_ref().map(|i| i.name.clone()))
            .unwrap_or_default();
        let server_version = info
            .as_ref()
            .and_then(|info| info.server_info.as_ref().map(|i| i.version.clone()))
            .unwrap_or_default();
        let tools = records(list.0, shown);
        Ok(Self {
            command: shown.to_owned(),
            server_name,
            server_version,
            tools,
            ttl_ms: list.1,
            watcher,
            stderr,
            hung_up: Arc::new(AtomicBool::new(false)),
            peer,
            service: Some(service),
            runtime: Some(runtime),
        })
    }

    /// The command line the server was started with.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The name the server gave in its handshake (empty when it gave none).
    pub fn server_name(&self) -> &str {
        &self.server_name
    }

    /// The server's tools, as listed at startup (named as the server names them).
    pub fn tools(&self) -> &[ToolRecord] {
        &self.tools
    }

    /// The version the server gave in its handshake (empty when it gave none).
    pub fn server_version(&self) -> &str {
        &self.server_version
    }

    /// The `ttlMs` of the startup `tools/list`, when the server gave one.
    pub fn ttl_ms(&self) -> Option<u64> {
        self.ttl_ms
    }

    /// True once the connection has ended (the server exited or hung up).
    pub fn is_closed(&self) -> bool {
        self.hung_up.load(Ordering::SeqCst)
            || self.service.as_ref().is_none_or(RunningService::is_closed)
    }

    /// True when the server sent `notifications/tools/list_changed` since the last call (which
    /// clears the flag).
    pub fn take_tools_changed(&self) -> bool {
        self.watcher.tools_changed.swap(false, Ordering::SeqCst)
    }

    /// The end of what the server wrote to stderr (stdio servers), for error messages.
    pub fn stderr_tail(&self) -> Option<String> {
        stderr_tail(&self.stderr)
    }

    /// Lists the server's tools again (after `notifications/tools/list_changed`).
    pub fn relist(&self) -> Result<ToolList, CatalogError> {
        let failure = |message: String| CatalogError::Mcp {
            command: self.command.clone(),
            message,
        };
        let Some(runtime) = &self.runtime else {
            return Err(failure("the MCP connection is closed".to_owned()));
        };
        let peer = self.peer.clone();
        let handle = runtime.spawn(async move {
            tokio::time::timeout(STARTUP_TIMEOUT, list_tools(&peer))
                .await
                .map_err(|_| "no answer to tools/list within 30 s".to_owned())?
                .map_err(|e| format!("tools/list failed: {e}"))
        });
        let (tools, ttl_ms) = wink_core::block_on(handle)
            .map_err(|e| failure(format!("the listing task failed: {e}")))?
            .map_err(failure)?;
        Ok(ToolList {
            tools: records(tools, &self.command),
            ttl_ms,
        })
    }

    /// Calls the server's tool `name` with `args` (a JSON object), waiting at most until
    /// `deadline`. A result the server flags `isError` becomes a failed [`ToolResult`]; a
    /// transport or protocol failure becomes [`ToolError::Failed`].
    pub async fn call(
        &self,
        name: &str,
        args: Value,
        deadline: Option<Deadline>,
    ) -> Result<ToolResult<ToolPayload>, ToolError> {
        self.call_traced(name, args, deadline, None).await
    }

    /// [`McpServer::call`] made in the span `traceparent` names: the request carries it as
    /// `_meta.traceparent` (W3C trace context, MCP SEP-414).
    pub async fn call_traced(
        &self,
        name: &str,
        args: Value,
        deadline: Option<Deadline>,
        traceparent: Option<String>,
    ) -> Result<ToolResult<ToolPayload>, ToolError> {
        let Some(runtime) = &self.runtime else {
            return Err(ToolError::Failed("the MCP connection is closed".to_owned()));
        };
        let mut params = CallToolRequestParams::new(name.to_owned());
        match args {
            Value::Object(arguments) => params = params.with_arguments(arguments),
            Value::Null => {}
            other => {
                return Err(ToolError::Validation(format!(
                    "MCP tool arguments must be a JSON object, got {other}"
                )));
            }
        }
        if let Some(traceparent) = traceparent {
            let mut meta = rmcp::model::RequestMetaObject::new();
            meta.set_traceparent(traceparent);
            params.meta = Some(meta);
        }
        let peer = self.peer.clone();
        let hung_up = self.hung_up.clone();
        let failed = move |e: rmcp::ServiceError| {
            if matches!(
                e,
                rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)
            ) {
                hung_up.store(true, Ordering::SeqCst);
            }
            ToolError::Failed(e.to_string())
        };
        let handle = runtime.spawn(async move {
            let call = peer.call_tool(params);
            match deadline {
                Some(deadline) => match tokio::time::timeout(deadline.remaining(), call).await {
                    Ok(result) => result.map_err(failed),
                    Err(_) => Err(ToolError::DeadlineExceeded),
                },
                None => call.await.map_err(failed),
            }
        });
        let result = handle
            .await
            .map_err(|e| ToolError::Failed(format!("the MCP call task failed: {e}")))??;
        Ok(tool_result(&result))
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        let Some(runtime) = self.runtime.take() else {
            return;
        };
        if let Some(mut service) = self.service.take() {
            let (done, wait) = mpsc::channel();
            runtime.spawn(async move {
                let _ = service.close().await;
                let _ = done.send(());
            });
            let _ = wait.recv_timeout(SHUTDOWN_TIMEOUT);
        }
        runtime.shutdown_background();
    }
}

type Started = (
    RunningService<RoleClient, Watcher>,
    (Vec<rmcp::model::Tool>, Option<u64>),
);

/// Connects to the server and lists its tools (on the connection's runtime).
async fn start(
    spec: ServerSpec,
    watcher: Watcher,
    stderr: Arc<Mutex<String>>,
) -> Result<Started, String> {
    let service = match &spec.transport {
        ServerTransport::Stdio { command, cwd, .. } => {
            let env = spec.resolved_env()?;
            let mut child = child_command(command, cwd.as_deref())?;
            child.envs(env);
            if let Some(cwd) = cwd {
                child.current_dir(cwd);
            }
            let mut wrapped = process_wrap::tokio::CommandWrap::from(child);
            wrapped
                .wrap(process_wrap::tokio::ProcessGroup::leader())
                .wrap(process_wrap::tokio::KillOnDrop);
            let (transport, err) = TokioChildProcess::builder(wrapped)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("cannot start: {e}"))?;
            if let Some(err) = err {
                tokio::spawn(collect_stderr(err, stderr));
            }
            watcher
                .serve(transport)
                .await
                .map_err(|e| format!("MCP initialisation failed: {e}"))?
        }
        ServerTransport::Http { url, .. } => {
            let headers = spec.resolved_headers()?;
            install_crypto_provider();
            let client = reqwest::Client::builder()
                .build()
                .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
            let config =
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(headers);
            let transport = StreamableHttpClientTransport::with_client(client, config);
            watcher
                .serve(transport)
                .await
                .map_err(|e| format!("MCP initialisation failed: {e}"))?
        }
    };
    let list = list_tools(service.peer())
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    Ok((service, list))
}

/// Makes `ring` the process's rustls crypto provider unless one is installed already (this
/// crate's reqwest brings none, and building a client without one panics).
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race with another installer is fine: a provider is installed either way.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// The process to start for `command`: the program found on `PATH` (or relative to `cwd`), run
/// through `setpriv --pdeathsig KILL` where that exists, so the server dies with this process.
fn child_command(
    command: &[String],
    cwd: Option<&std::path::Path>,
) -> Result<tokio::process::Command, String> {
    let Some((program, args)) = command.split_first() else {
        return Err("the command is empty".to_owned());
    };
    let resolved = resolve_program(program, cwd)
        .ok_or_else(|| format!("cannot start: `{program}` is not an executable file or on PATH"))?;
    let mut child = match killed_with_this_process(&resolved) {
        Some((wrapper, wrapper_args)) => {
            let mut child = tokio::process::Command::new(wrapper);
            child.args(wrapper_args);
            child
        }
        None => tokio::process::Command::new(&resolved),
    };
    child.args(args);
    Ok(child)
}

/// How to start `program` (a resolved path) so that it is killed when this process dies, even by
/// SIGKILL: on Linux, through `setpriv --pdeathsig KILL -- program` (util-linux) when `setpriv`
/// is on `PATH`; `None` elsewhere (start `program` itself). The signal is sent when the thread
/// that started it ends, so start it from a thread that waits for it (a command tool's call, an
/// MCP server's runtime).
pub fn killed_with_this_process(
    program: &std::path::Path,
) -> Option<(std::path::PathBuf, Vec<std::ffi::OsString>)> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let setpriv = find_on_path("setpriv")?;
    let args = ["--pdeathsig", "KILL", "--"]
        .into_iter()
        .map(std::ffi::OsString::from)
        .chain(std::iter::once(program.as_os_str().to_owned()))
        .collect();
    Some((setpriv, args))
}

/// `program` as the path that would run: found on `PATH` when it has no `/`, else taken
/// relative to `cwd`; `None` when that is not an executable file.
pub fn resolve_program(program: &str, cwd: Option<&std::path::Path>) -> Option<std::path::PathBuf> {
    if program.contains('/') {
        let path = std::path::PathBuf::from(program);
        let path = match cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path,
        };
        return is_executable(&path).then_some(path);
    }
    find_on_path(program)
}

fn find_on_path(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Keeps the last [`STDERR_TAIL`] bytes of the server's stderr (and logs it at debug level).
async fn collect_stderr(mut err: tokio::process::ChildStderr, tail: Arc<Mutex<String>>) {
    let mut buffer = [0u8; 4096];
    while let Ok(read) = err.read(&mut buffer).await {
        if read == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&buffer[..read]);
        tracing::debug!(target: "wink_catalog::mcp", "server stderr: {}", text.trim_end());
        if let Ok(mut kept) = tail.lock() {
            kept.push_str(&text);
            if kept.len() > STDERR_TAIL {
                let mut cut = kept.len() - STDERR_TAIL;
                while !kept.is_char_boundary(cut) {
                    cut += 1;
                }
                kept.replace_range(..cut, "");
            }
        }
    }
}

fn stderr_tail(tail: &Mutex<String>) -> Option<String> {
    let kept = tail.lock().ok()?;
    let text = kept.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// Every page of `tools/list`, and the smallest `ttlMs` the pages gave.
async fn list_tools(
    peer: &Peer<RoleClient>,
) -> Result<(Vec<rmcp::model::Tool>, Option<u64>), rmcp::ServiceError> {
    let mut tools = Vec::new();
    let mut cursor = None;
    let mut ttl_ms: Option<u64> = None;
    loop {
        let page = peer
            .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await?;
        ttl_ms = match (ttl_ms, page.ttl_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        tools.extend(page.tools);
        cursor = page.next_cursor;
        if cursor.is_none() {
            return Ok((tools, ttl_ms));
        }
    }
}

fn records(tools: Vec<rmcp::model::Tool>, shown: &str) -> Vec<ToolRecord> {
    tools
        .into_iter()
        .enumerate()
        .map(|(index, tool)| {
            let parameters = Value::Object((*tool.input_schema).clone());
            let parameters = if parameters.as_object().is_some_and(|m| m.is_empty()) {
                empty_object_schema()
            } else {
                parameters
            };
            let name = tool.name.into_owned();
            ToolRecord {
                remote_name: name.clone(),
                name,
                description: tool.description.map(|d| d.into_owned()).unwrap_or_default(),
                parameters,
                namespace: None,
                tags: Vec::new(),
                origin: format!("{shown}: tools/list #{index}"),
            }
        })
        .collect()
}

/// The text the model gets for an MCP result: text blocks joined by blank lines, other blocks as
/// compact JSON (binary data replaced by its size), or the structured content when there is no
/// content at all.
fn tool_result(result: &CallToolResult) -> ToolResult<ToolPayload> {
    let blocks: Vec<Value> = result
        .content
        .iter()
        .filter_map(|block| serde_json::to_value(block).ok())
        .collect();
    let mut parts: Vec<String> = blocks.iter().map(render_block).collect();
    if parts.is_empty()
        && let Some(structured) = &result.structured_content
    {
        parts.push(structured.to_string());
    }
    let text = parts.join("\n\n");
    let json = result
        .structured_content
        .clone()
        .unwrap_or(Value::Array(blocks));
    let payload = ToolPayload {
        json,
        rendered: String::new(),
    };
    if result.is_error == Some(true) {
        let mut failed = ToolResult::failure(text);
        failed.value = Some(payload);
        failed
    } else {
        ToolResult::ok(text, payload)
    }
}

fn render_block(block: &Value) -> String {
    if block.get("type").and_then(Value::as_str) == Some("text")
        && let Some(text) = block.get("text").and_then(Value::as_str)
    {
        return text.to_owned();
    }
    let mut shown = block.clone();
    if let Some(map) = shown.as_object_mut()
        && let Some(Value::String(data)) = map.get("data")
    {
        let summary = format!("<{} base64 characters>", data.len());
        map.insert("data".to_owned(), Value::String(summary));
    }
    shown.to_string()
}

/// Splits a command line into words like a POSIX shell does for simple commands: whitespace
/// separates words, `'…'` keeps everything literally, `"…"` keeps everything but `\"` and `\\`,
/// and `\` outside quotes escapes the next character.
///
/// ```
/// assert_eq!(
///     wink_catalog::split_command_line(r#"python3 -u 'my server.py' --name "a \"b\"" c\ d"#).unwrap(),
///     ["python3", "-u", "my server.py", "--name", "a \"b\"", "c d"]
/// );
/// assert_eq!(wink_catalog::split_command_line("a 'b").unwrap_err(), "unterminated ' quote");
/// ```
pub fn split_command_line(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => current.push(c),
                        None => return Err("unterminated ' quote".to_owned()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => current.push(c),
                            Some(c) => {
                                current.push('\\');
                                current.push(c);
                            }
                            None => return Err("unterminated \" quote".to_owned()),
                        },
                        Some(c) => current.push(c),
                        None => return Err("unterminated \" quote".to_owned()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => current.push(c),
                    None => return Err("a trailing \\ escapes nothing".to_owned()),
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_command_lines() {
        assert_eq!(split_command_line("  ").unwrap(), Vec::<String>::new());
        assert_eq!(split_command_line("a  b\tc").unwrap(), ["a", "b", "c"]);
        assert_eq!(split_command_line("''").unwrap(), [""]);
        assert_eq!(split_command_line(r#""a\nb""#).unwrap(), ["a\\nb"]);
        assert_eq!(
            split_command_line("x\\").unwrap_err(),
            "a trailing \\ escapes nothing"
        );
        assert_eq!(
            split_command_line("\"x").unwrap_err(),
            "unterminated \" quote"
        );
    }

    #[test]
    fn renders_blocks() {
        assert_eq!(
            render_block(&serde_json::json!({"type": "text", "text": "hi"})),
            "hi"
        );
        assert_eq!(
            render_block(
                &serde_json::json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})
            ),
            r#"{"type":"image","data":"<4 base64 characters>","mimeType":"image/png"}"#
        );
    }

    #[test]
    fn a_missing_program_is_a_clear_error() {
        let error = McpServer::spawn("/nonexistent/wink-mcp-server --flag").unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with("MCP server `/nonexistent/wink-mcp-server --flag`: cannot start: "),
            "{text}"
        );
        assert_eq!(
            McpServer::spawn("   ").unwrap_err().to_string(),
            "MCP server `   `: the command is empty"
        );
    }
}
