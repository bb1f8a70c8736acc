//! MCP servers over stdio, through the client side of `rmcp`.
//!
//! [`McpServer::spawn`] starts the server as a child process, performs the MCP handshake and
//! lists its tools; catalog tools made from them forward calls to the server. The connection runs
//! on a private one-thread tokio runtime, so callers need no runtime of their own (the returned
//! futures complete on any executor, e.g. [`wink_core::block_on`]).

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, PaginatedRequestParams, ProtocolVersion,
    ServerNotification, SubscriptionFilter,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, Peer, RoleClient};
use serde_json::Value;
use wink_core::{Deadline, ToolError, ToolPayload, ToolResult};

use wink_catalog::{CatalogError, ToolRecord, empty_object_schema};

use super::answers::ClientAnswers;
use super::call::Answered;
use super::servers::{DEFAULT_START_TIMEOUT, ServerSpec, ServerTransport};
use super::stdio::ProtocolError;
/// How long closing the connection may take when the server is dropped.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a stdio server may take to exit once its stdin is closed, before its process group
/// is killed.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// The client side of the connection: notes `notifications/tools/list_changed`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Watcher {
    tools_changed: Arc<AtomicBool>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.store(true, Ordering::SeqCst);
    }

    /// wink answers elicitation (form), roots and sampling requests ([`ClientAnswers`]; sampling
    /// needs a run with a model).
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let capabilities = serde_json::from_value(serde_json::json!({
            "elicitation": {"form": {}},
            "roots": {},
            "sampling": {}
        }))
        .unwrap_or_default();
        rmcp::model::ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("wink", env!("CARGO_PKG_VERSION")),
        )
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
    /// Why wink closed the connection, when the server broke the protocol (stdio).
    protocol_error: ProtocolError,
    /// How long the handshake, the first `tools/list` and a re-listing may take.
    timeout: Duration,
    peer: Peer<RoleClient>,
    service: Option<RunningService<RoleClient, Watcher>>,
    /// An HTTP server's spec and URL, for logging in again when it asks for more scope.
    http: Option<(ServerSpec, String)>,
    /// A stdio server's process (its process group is killed when the server is dropped).
    process: Option<Box<dyn process_wrap::tokio::ChildWrapper>>,
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
        Self::connect_as(&spec, command_line, DEFAULT_START_TIMEOUT)
    }

    /// Starts (stdio) or connects to (streamable HTTP) the server `spec` describes, initialises
    /// the MCP session and lists its tools. Blocks until done (at most 30 s).
    ///
    /// A stdio server runs in its own process group, which is killed when the server is dropped;
    /// on Linux it is started through `setpriv --pdeathsig KILL` (when `setpriv` is installed),
    /// so it is killed even when this process dies without cleaning up. Its environment holds
    /// only [`crate::INHERITED_VARIABLES`] of this process's and the variables `spec` names.
    pub fn connect(spec: &ServerSpec) -> Result<Self, CatalogError> {
        Self::connect_within(spec, DEFAULT_START_TIMEOUT)
    }

    /// [`McpServer::connect`], waiting at most `timeout` for the handshake and the first
    /// `tools/list` (and for each later re-listing).
    pub fn connect_within(spec: &ServerSpec, timeout: Duration) -> Result<Self, CatalogError> {
        Self::connect_as(spec, &spec.shown(), timeout)
    }

    fn connect_as(spec: &ServerSpec, shown: &str, timeout: Duration) -> Result<Self, CatalogError> {
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
        let protocol_error = ProtocolError::default();
        let startup = start(
            spec.clone(),
            watcher.clone(),
            stderr.clone(),
            protocol_error.clone(),
        );
        let handle = runtime.spawn(async move {
            tokio::time::timeout(timeout, startup)
                .await
                .unwrap_or_else(|_| {
                    Err(format!(
                        "no answer to the handshake within {} s",
                        timeout.as_secs_f64()
                    ))
                })
        });
        let outcome = wink_core::block_on(handle)
            .map_err(|e| failure(format!("the connection task failed: {e}")))?;
        let (service, list, process) = match outcome {
            Ok(started) => started,
            Err(message) => {
                // Give the stderr reader a moment to collect why the server stopped.
                std::thread::sleep(Duration::from_millis(50));
                let message = match protocol_note(&protocol_error) {
                    Some(note) => format!("{message}: the server {note}"),
                    None => message,
                };
                let tail = super::stdio::stderr_tail(&stderr);
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
            protocol_error,
            timeout,
            peer,
            service: Some(service),
            http: match &spec.transport {
                ServerTransport::Http { url, .. } => Some((spec.clone(), url.clone())),
                _ => None,
            },
            process,
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
        super::stdio::stderr_tail(&self.stderr)
    }

    /// Why wink closed the connection or refused to go on with it: a stdio server's message
    /// over [`crate::MAX_MESSAGE_BYTES`] (`sent a message of more than 16777217 bytes, over the
    /// limit of 16777216 bytes`), an HTTP server's redirect to another origin.
    pub fn protocol_error(&self) -> Option<String> {
        protocol_note(&self.protocol_error)
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
        let timeout = self.timeout;
        let handle = runtime.spawn(async move {
            tokio::time::timeout(timeout, list_tools(&peer))
                .await
                .map_err(|_| format!("no answer to tools/list within {} s", timeout.as_secs_f64()))?
                .map_err(|e| format!("tools/list failed: {}", plain(&e)))
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
        self.call_answering(name, args, deadline, &ClientAnswers::default(), None)
            .await
            .map(|(result, _)| result)
    }

    /// [`McpServer::call`], answering the server's requests for input (SEP-2322
    /// `input_required`) as `answers` says, round after round (at most
    /// [`DEFAULT_MRTR_MAX_ROUNDS`]). The request carries `traceparent`, the W3C trace context of
    /// the span it is made in, as `_meta.traceparent` (MCP SEP-414). Returns the result and what
    /// was answered.
    pub async fn call_answering(
        &self,
        name: &str,
        args: Value,
        deadline: Option<Deadline>,
        answers: &ClientAnswers,
        traceparent: Option<String>,
    ) -> Result<(ToolResult<ToolPayload>, Vec<Answered>), ToolError> {
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
            params
                .meta
                .get_or_insert_with(rmcp::model::RequestMetaObject::new)
                .set_traceparent(traceparent);
        }
        let peer = self.peer.clone();
        let hung_up = self.hung_up.clone();
        let answers = answers.clone();
        let http = self.http.clone();
        let handle = runtime.spawn(async move {
            let call = super::call::call_stepping_up(peer, params, answers, hung_up, http);
            match deadline {
                Some(deadline) => match tokio::time::timeout(deadline.remaining(), call).await {
                    Ok(result) => result,
                    Err(_) => Err(ToolError::DeadlineExceeded),
                },
                None => call.await,
            }
        });
        let (result, answered) = handle
            .await
            .map_err(|e| ToolError::Failed(format!("the MCP call task failed: {e}")))??;
        Ok((tool_result(&result), answered))
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        let Some(runtime) = self.runtime.take() else {
            return;
        };
        let service = self.service.take();
        let process = self.process.take();
        let (done, wait) = mpsc::channel();
        runtime.spawn(async move {
            if let Some(mut service) = service {
                // Closing the connection closes a stdio server's stdin: its cue to exit.
                let _ = service.close().await;
            }
            if let Some(mut process) = process {
                let _ = tokio::time::timeout(EXIT_GRACE, process.wait()).await;
                // Whatever is left of its process group.
                let _ = Box::into_pin(process.kill()).await;
            }
            let _ = done.send(());
        });
        let _ = wait.recv_timeout(SHUTDOWN_TIMEOUT);
        runtime.shutdown_background();
    }
}

type Started = (
    RunningService<RoleClient, Watcher>,
    (Vec<rmcp::model::Tool>, Option<u64>),
    Option<Box<dyn process_wrap::tokio::ChildWrapper>>,
);

/// Connects to the server and lists its tools (on the connection's runtime).
async fn start(
    spec: ServerSpec,
    watcher: Watcher,
    stderr: Arc<Mutex<String>>,
    protocol_error: ProtocolError,
) -> Result<Started, String> {
    let changes = watcher.clone();
    let (service, process) = match &spec.transport {
        ServerTransport::Stdio { command, cwd, .. } => {
            let env = spec.resolved_env()?;
            let mut child = super::stdio::child_command(command, cwd.as_deref())?;
            if let Some(cwd) = cwd {
                child.current_dir(cwd);
            }
            let started = super::stdio::spawn(child, env, protocol_error)
                .map_err(|e| format!("cannot start: {e}"))?;
            if let Some(err) = started.stderr {
                tokio::spawn(super::stdio::collect_stderr(err, stderr));
            }
            let service = watcher
                .serve_with_lifecycle((started.reader, started.writer), lifecycle())
                .await
                .map_err(|e| format!("MCP initialisation failed: {}", plain(&e)))?;
            (service, Some(started.process))
        }
        ServerTransport::Http { url, headers_env } => {
            let headers = spec.resolved_headers()?;
            install_crypto_provider();
            let client = http_client(url, !headers_env.is_empty(), protocol_error)?;
            let config =
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(headers);
            let (service, list) =
                super::http_auth::serve(&spec, url, &watcher, client, config).await?;
            listen_for_tool_changes(service.peer(), &changes).await;
            return Ok((service, list, None));
        }
    };
    let list = list_tools(service.peer())
        .await
        .map_err(|e| format!("tools/list failed: {}", plain(&e)))?;
    listen_for_tool_changes(service.peer(), &changes).await;
    Ok((service, list, process))
}

/// A 2026-07-28 server sends `notifications/tools/list_changed` only on a `subscriptions/listen`
/// stream: open one when the server says its tool list changes, and note each change as a
/// handshake-era connection's notification is noted. A server that refuses the subscription
/// is used without it.
async fn listen_for_tool_changes(peer: &Peer<RoleClient>, watcher: &Watcher) {
    let Some(info) = peer.peer_info() else {
        return;
    };
    let announces = info
        .capabilities
        .tools
        .as_ref()
        .is_some_and(|tools| tools.list_changed == Some(true));
    if info.protocol_version < ProtocolVersion::V_2026_07_28 || !announces {
        return;
    }
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut subscription = match peer.listen(filter).await {
        Ok(subscription) => subscription,
        Err(e) => {
            tracing::debug!(target: "wink_mcp::client", "no tools/list_changed subscription: {}", plain(&e));
            return;
        }
    };
    let changed = watcher.tools_changed.clone();
    tokio::spawn(async move {
        while let Ok(Some(notification)) = subscription.next().await {
            if matches!(
                notification,
                ServerNotification::ToolListChangedNotification(_)
            ) {
                changed.store(true, Ordering::SeqCst);
            }
        }
    });
}

/// How a connection starts: `server/discover` with protocol 2026-07-28 (stateless requests,
/// each carrying its metadata), falling back to the `initialize` handshake at 2025-11-25 when
/// the server is older.
pub(crate) fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

/// The most redirects followed to reach a streamable HTTP server.
const MAX_REDIRECTS: usize = 10;

/// The HTTP client for a server at `url`. A server sent `headers_env` secrets (`secrets`) is
/// followed through redirects within its own origin (scheme, host and port) only: a redirect
/// to another origin is refused (the reason kept in `refused` for the error message), since the
/// secrets would go with it (the HTTP client strips only `Authorization` and `Cookie`).
fn http_client(
    url: &str,
    secrets: bool,
    refused: ProtocolError,
) -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder();
    if secrets {
        let origin = reqwest::Url::parse(url)
            .map_err(|e| format!("url: {e}"))?
            .origin();
        builder = builder.redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.url().origin() != origin {
                let why = format!(
                    "redirected to {}, another origin: not followed, since its headers_env secrets go to {} only",
                    attempt.url().origin().ascii_serialization(),
                    origin.ascii_serialization()
                );
                if let Ok(mut kept) = refused.lock() {
                    kept.get_or_insert(why.clone());
                }
                attempt.error(why)
            } else if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else {
                attempt.follow()
            }
        }));
    }
    builder
        .build()
        .map_err(|e| format!("cannot make an HTTP client: {e}"))
}

/// An `rmcp` error's message without the transport's Rust type
/// (`Transport [rmcp::transport::async_rw::AsyncRwTransport<…>] error: `), which tells a user
/// nothing, and ending with its root cause when the message leaves it out (`error sending
/// request` says nothing of the `Connection refused` under it).
pub(crate) fn plain(error: &(dyn std::error::Error + 'static)) -> String {
    const TRANSPORT: &str = "Transport [";
    let mut text = error.to_string();
    let mut root = None;
    let mut next = error.source();
    while let Some(source) = next {
        root = Some(source);
        next = source.source();
    }
    if let Some(cause) = root.map(ToString::to_string)
        && !text.contains(&cause)
    {
        text = format!("{text} ({cause})");
    }
    while let Some(start) = text.find(TRANSPORT) {
        let inside = start + TRANSPORT.len();
        let mut depth = 1;
        let Some(end) = text[inside..].char_indices().find_map(|(at, c)| {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(inside + at)
        }) else {
            break;
        };
        let rest = text[end + 1..].trim_start_matches(" error:").to_owned();
        text = format!("{}transport error:{rest}", &text[..start]);
    }
    text
}

fn protocol_note(protocol_error: &ProtocolError) -> Option<String> {
    protocol_error.lock().ok()?.clone()
}

/// Makes `ring` the process's rustls crypto provider unless one is installed already (this
/// crate's reqwest brings none, and building a client without one panics).
pub(crate) fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race with another installer is fine: a provider is installed either way.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// Every page of `tools/list`, and the smallest `ttlMs` the pages gave.
pub(crate) async fn list_tools(
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
    let mut parts: Vec<String> = blocks.iter().map(crate::content::block_text).collect();
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

/// Splits a command line into words like a POSIX shell does for simple commands: whitespace
/// separates words, `'…'` keeps everything literally, `"…"` keeps everything but `\"` and `\\`,
/// and `\` outside quotes escapes the next character.
///
/// ```
/// assert_eq!(
///     wink_mcp::split_command_line(r#"python3 -u 'my server.py' --name "a \"b\"" c\ d"#).unwrap(),
///     ["python3", "-u", "my server.py", "--name", "a \"b\"", "c d"]
/// );
/// assert_eq!(wink_mcp::split_command_line("a 'b").unwrap_err(), "unterminated ' quote");
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
    fn transport_types_are_left_out_of_messages_and_root_causes_named() {
        let message = |text: &str| std::io::Error::other(text.to_owned());
        assert_eq!(
            plain(&message(
                "Send message error Transport [rmcp::transport::async_rw::AsyncRwTransport<rmcp::service::client::RoleClient, tokio::io::util::mem::DuplexStream, tokio::process::ChildStdin>] error: Broken pipe (os error 32), when send initialize request"
            )),
            "Send message error transport error: Broken pipe (os error 32), when send initialize request"
        );
        assert_eq!(plain(&message("Transport closed")), "Transport closed");
        /// An error whose message leaves its cause out.
        #[derive(Debug)]
        struct Vague(std::io::Error);
        impl std::fmt::Display for Vague {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("error sending request")
            }
        }
        impl std::error::Error for Vague {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(
            plain(&Vague(refused)),
            "error sending request (connection refused)"
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
