//! MCP servers named by a catalog: how to reach one ([`ServerSpec`]), and [`LazyServer`], which
//! starts it the first time it is needed, restarts it once after a crash, keeps its tool list in
//! the on-disk [`ToolCache`] and follows `notifications/tools/list_changed`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use serde_json::Value;
use wink_core::{Deadline, ToolError, ToolPayload, ToolResult};

use wink_catalog::{Catalog, CatalogBuilder, CatalogError, ToolFilter, ToolRecord};

use super::answers::ClientAnswers;
use super::cache::ToolCache;
use super::call::Answered;
use super::catalog::CatalogBuilderMcp;
use super::connection::{McpServer, ToolList};
use super::oauth::OAuthSpec;

/// How long a call may wait for its answer unless configured otherwise (or the run's deadline
/// comes first).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// How long starting a server (the MCP handshake and the first `tools/list`) may take unless
/// configured otherwise (or the run's deadline comes first).
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(30);

/// Checks a streamable HTTP server's URL: an absolute `http` or `https` URL with a host.
///
/// ```
/// assert!(wink_mcp::check_server_url("http://127.0.0.1:3001/mcp").is_ok());
/// assert_eq!(
///     wink_mcp::check_server_url("localhost:3001/mcp").unwrap_err(),
///     "`localhost:3001/mcp` is not an http:// or https:// URL"
/// );
/// ```
pub fn check_server_url(url: &str) -> Result<(), String> {
    // The URL parser drops these silently; a URL that holds them was not meant as written.
    if url.trim() != url || url.chars().any(char::is_control) {
        return Err(format!(
            "`{url}` has spaces or control characters around or in it"
        ));
    }
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("`{url}` is not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("`{url}` is not an http:// or https:// URL"));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("`{url}` names no host"));
    }
    Ok(())
}

/// Checks a `headers_env` header name.
///
/// ```
/// assert!(wink_mcp::check_header_name("X-Api-Key").is_ok());
/// assert_eq!(
///     wink_mcp::check_header_name("Bad Header").unwrap_err(),
///     "`Bad Header` is not an HTTP header name"
/// );
/// ```
pub fn check_header_name(name: &str) -> Result<(), String> {
    HeaderName::try_from(name)
        .map(|_| ())
        .map_err(|_| format!("`{name}` is not an HTTP header name"))
}

/// How a catalog reaches one MCP server. Values are kept as written: `${VAR}` references in
/// `env` and the variables named by `headers_env` are read from the environment only when the
/// server is started, and never stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    /// The server's name in the catalog: its tools are listed as `name.tool`.
    pub name: String,
    /// Where it runs.
    pub transport: ServerTransport,
    /// How a streamable HTTP server's client logs in (OAuth); `None`: discover and register
    /// when the server asks for authorization.
    pub oauth: Option<OAuthSpec>,
    /// The command that logs in to it ahead of a run (`wink mcp login FILE SERVER`), named when
    /// a run needs a login it cannot do itself.
    pub login_command: Option<String>,
}

/// Where an MCP server runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerTransport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        /// Program and arguments.
        command: Vec<String>,
        /// Extra environment variables; values may reference `${VAR}`.
        env: Vec<(String, String)>,
        /// Working directory (default: the current one).
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint, e.g. `http://127.0.0.1:3001/mcp`.
        url: String,
        /// HTTP header → the environment variable holding its value.
        headers_env: Vec<(String, String)>,
    },
}

impl ServerSpec {
    /// A stdio server started with `command` (program and arguments).
    pub fn stdio(name: impl Into<String>, command: Vec<String>) -> Self {
        Self {
            name: name.into(),
            transport: ServerTransport::Stdio {
                command,
                env: Vec::new(),
                cwd: None,
            },
            oauth: None,
            login_command: None,
        }
    }

    /// A streamable HTTP server at `url`.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            transport: ServerTransport::Http {
                url: url.into(),
                headers_env: Vec::new(),
            },
            oauth: None,
            login_command: None,
        }
    }

    /// Adds an environment variable for a stdio server (`value` may reference `${VAR}`).
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let ServerTransport::Stdio { env, .. } = &mut self.transport {
            env.push((key.into(), value.into()));
        }
        self
    }

    /// Sets a stdio server's working directory.
    #[must_use]
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        if let ServerTransport::Stdio { cwd, .. } = &mut self.transport {
            *cwd = Some(dir.into());
        }
        self
    }

    /// How the HTTP server's client logs in (a prompt file's `oauth`).
    #[must_use]
    pub fn oauth(mut self, oauth: OAuthSpec) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// The command that logs in to the server, for messages (`wink mcp login FILE SERVER`).
    #[must_use]
    pub fn login_command(mut self, command: impl Into<String>) -> Self {
        self.login_command = Some(command.into());
        self
    }

    /// Sends header `header` to an HTTP server, its value read from the environment variable `var`.
    #[must_use]
    pub fn header_env(mut self, header: impl Into<String>, var: impl Into<String>) -> Self {
        if let ServerTransport::Http { headers_env, .. } = &mut self.transport {
            headers_env.push((header.into(), var.into()));
        }
        self
    }

    /// The command line or URL, as shown in messages (no environment values, no headers).
    pub fn shown(&self) -> String {
        match &self.transport {
            ServerTransport::Stdio { command, .. } => command
                .iter()
                .map(|word| {
                    if word.is_empty() || word.contains(char::is_whitespace) {
                        format!("'{word}'")
                    } else {
                        word.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
            ServerTransport::Http { url, .. } => url.clone(),
        }
    }

    /// True for a streamable HTTP server (wink reconnects to it rather than restarting it).
    pub fn is_http(&self) -> bool {
        matches!(self.transport, ServerTransport::Http { .. })
    }

    /// How a lost server is described: a process `exited`, an HTTP server `closed the
    /// connection`.
    fn ended(&self) -> &'static str {
        self.revival().ended
    }

    /// The words for losing this server and bringing it back: a process exits and is restarted,
    /// an HTTP server closes the connection and is reconnected.
    fn revival(&self) -> Revival {
        if self.is_http() {
            Revival {
                ended: "closed the connection",
                doing: "reconnecting",
                done: "reconnected",
            }
        } else {
            Revival {
                ended: "exited",
                doing: "restarting it",
                done: "restarted",
            }
        }
    }

    /// The environment of a stdio server with `${VAR}` references replaced.
    pub(crate) fn resolved_env(&self) -> Result<Vec<(String, String)>, String> {
        let ServerTransport::Stdio { env, .. } = &self.transport else {
            return Ok(Vec::new());
        };
        env.iter()
            .map(|(key, value)| {
                expand_env(value)
                    .map(|value| (key.clone(), value))
                    .map_err(|var| format!("env.{key} refers to ${{{var}}}, which is not set"))
            })
            .collect()
    }

    /// The HTTP headers, each value read from its environment variable.
    pub(crate) fn resolved_headers(&self) -> Result<HashMap<HeaderName, HeaderValue>, String> {
        let ServerTransport::Http { headers_env, .. } = &self.transport else {
            return Ok(HashMap::new());
        };
        let mut headers = HashMap::new();
        for (header, var) in headers_env {
            let value = std::env::var(var)
                .map_err(|_| format!("headers_env.{header} names ${var}, which is not set"))?;
            let name = HeaderName::try_from(header.as_str())
                .map_err(|e| format!("headers_env.{header}: not a header name ({e})"))?;
            let mut value = HeaderValue::try_from(value)
                .map_err(|_| format!("headers_env.{header}: ${var} is not a valid header value"))?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        Ok(headers)
    }
}

/// `text` with every `${VAR}` replaced by the variable's value; `Err(VAR)` names a missing one.
fn expand_env(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let var = &after[..end];
        out.push_str(&std::env::var(var).map_err(|_| var.to_owned())?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Where a [`LazyServer`]'s tool list came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListSource {
    /// A fresh entry of the on-disk cache (the server was not started to list it).
    Cache,
    /// The server itself.
    Server,
}

impl ListSource {
    /// `cache` or `server`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cache => "cache",
            Self::Server => "server",
        }
    }
}

/// An MCP server started on first use.
///
/// Its tool list comes from the [`ToolCache`] when a fresh entry exists, else from starting it.
/// It starts the first time one of its tools is described, found or called ([`LazyServer::warm`]
/// starts it in the background), is restarted once if it exits, and is stopped (with its process
/// group) when the last handle is dropped.
#[derive(Debug)]
pub struct LazyServer {
    spec: ServerSpec,
    cache: Option<ToolCache>,
    call_timeout: Duration,
    start_timeout: Duration,
    filter: ToolFilter,
    generation: AtomicU64,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    running: Option<Arc<McpServer>>,
    starts: u32,
    start_error: Option<String>,
    tools: Vec<ToolRecord>,
    source: Option<ListSource>,
}

impl LazyServer {
    /// A server that is not started yet; `cache` keeps its tool lists between runs.
    pub fn new(spec: ServerSpec, cache: Option<ToolCache>) -> Self {
        Self {
            spec,
            cache,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            start_timeout: DEFAULT_START_TIMEOUT,
            filter: ToolFilter::all(),
            generation: AtomicU64::new(0),
            state: Mutex::new(State::default()),
        }
    }

    /// How long a call may wait for its answer (default two minutes), and starting the server
    /// (the handshake and the first `tools/list`, default 30 s) may take: a prompt file's
    /// `timeout_s`. A run's deadline that comes first still ends either.
    #[must_use]
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self.start_timeout = timeout;
        self
    }

    /// Offers only the tools `filter` admits (default: all). [`LazyServer::load_tools`] fails
    /// when the filter names a tool the server does not list.
    #[must_use]
    pub fn tool_filter(mut self, filter: ToolFilter) -> Self {
        self.filter = filter;
        self
    }

    /// How the server is reached.
    pub fn spec(&self) -> &ServerSpec {
        &self.spec
    }

    /// The server's name (its tools' namespace).
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Loads the tool list: a fresh cache entry, else by starting the server now. Returns where
    /// it came from. Fails when the server cannot be started, or when its [`ToolFilter`] names a
    /// tool it does not list.
    pub fn load_tools(&self) -> Result<ListSource, CatalogError> {
        let source = self.load_list()?;
        self.filter.check(&self.spec.name, &self.lock().tools)?;
        Ok(source)
    }

    fn load_list(&self) -> Result<ListSource, CatalogError> {
        if let Some(source) = self.lock().source {
            return Ok(source);
        }
        if let Some(cached) = self.cache.as_ref().and_then(|c| c.load(&self.spec)) {
            let mut state = self.lock();
            state.tools = cached.tools;
            state.source = Some(ListSource::Cache);
            return Ok(ListSource::Cache);
        }
        self.running(None).map_err(|message| CatalogError::Mcp {
            command: self.spec.name.clone(),
            message,
        })?;
        Ok(ListSource::Server)
    }

    /// The tools offered, as the server names them: its list (empty before
    /// [`LazyServer::load_tools`]) through its [`ToolFilter`].
    pub fn tools(&self) -> Vec<ToolRecord> {
        self.filter.apply(&self.lock().tools)
    }

    /// Where the current tool list came from (`None` before it was loaded).
    pub fn list_source(&self) -> Option<ListSource> {
        self.lock().source
    }

    /// Bumped whenever the tool list changes (a live list differing from the cached one, or
    /// `tools/list_changed`).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// True while a server process (or HTTP session) is up.
    pub fn is_running(&self) -> bool {
        self.lock().running.as_ref().is_some_and(|s| !s.is_closed())
    }

    /// How many times the server was started (restarts included).
    pub fn starts(&self) -> u32 {
        self.lock().starts
    }

    /// Starts the server in the background when it is not running yet (a failure is reported
    /// by the next call).
    pub fn warm(self: &Arc<Self>) {
        {
            let state = self.lock();
            if state.running.is_some() || state.start_error.is_some() {
                return;
            }
        }
        let server = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name(format!("wink-mcp-start-{}", self.spec.name))
            .spawn(move || {
                if let Err(message) = server.running(None) {
                    tracing::warn!("MCP server `{}`: {message}", server.spec.name);
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(
                "cannot start a thread for MCP server `{}`: {e}",
                self.spec.name
            );
        }
    }

    /// Re-lists the tools of a running server that announced `tools/list_changed`. Returns true
    /// when the list changed.
    pub fn refresh(&self) -> bool {
        let running = self.lock().running.clone();
        let Some(server) = running else {
            return false;
        };
        if !server.take_tools_changed() {
            return false;
        }
        match server.relist() {
            Ok(list) => self.adopt(&server, list),
            Err(e) => {
                tracing::warn!("{e}");
                false
            }
        }
    }

    /// Takes a live tool list: stores it in the cache, and bumps the generation when it differs.
    fn adopt(&self, server: &McpServer, list: ToolList) -> bool {
        if let Some(cache) = &self.cache
            && let Err(e) = cache.store(&self.spec, server.server_version(), &list)
        {
            tracing::warn!(
                "MCP server `{}`: cannot cache its tools: {e}",
                self.spec.name
            );
        }
        let mut state = self.lock();
        let changed = state.source.is_some() && state.tools != list.tools;
        state.tools = list.tools;
        state.source = Some(state.source.unwrap_or(ListSource::Server));
        if changed {
            self.generation.fetch_add(1, Ordering::SeqCst);
        }
        changed
    }

    /// The running server: started now if needed, restarted once if it exited. Starting waits
    /// at most the start timeout, or until `deadline` when that comes first (a start cut short
    /// by a run's deadline is tried again by the next call).
    fn running(&self, deadline: Option<Deadline>) -> Result<Arc<McpServer>, String> {
        let mut state = self.lock();
        if let Some(server) = &state.running {
            if !server.is_closed() {
                return Ok(Arc::clone(server));
            }
            if state.starts >= 2 {
                return Err(if self.spec.is_http() {
                    "the connection was lost again after reconnecting; it is not reconnected a second time".to_owned()
                } else {
                    format!(
                        "the server exited again after a restart; it is not restarted a second time{}",
                        tail_note(server.stderr_tail())
                    )
                });
            }
            tracing::warn!(
                "MCP server `{}` {}{}; {}",
                self.spec.name,
                self.spec.ended(),
                tail_note(server.stderr_tail()),
                self.spec.revival().doing
            );
        } else if let Some(error) = &state.start_error {
            return Err(error.clone());
        }
        state.starts += 1;
        let (timeout, cut_short) = match deadline {
            Some(run) if run.remaining() < self.start_timeout => (run.remaining(), true),
            _ => (self.start_timeout, false),
        };
        let server = match McpServer::connect_within(&self.spec, timeout) {
            Ok(server) => Arc::new(server),
            Err(e) => {
                let message = match e {
                    CatalogError::Mcp { message, .. } => message,
                    other => other.to_string(),
                };
                state.running = None;
                if !cut_short {
                    state.start_error = Some(message.clone());
                }
                return Err(message);
            }
        };
        state.running = Some(Arc::clone(&server));
        drop(state);
        let list = ToolList {
            tools: server.tools().to_vec(),
            ttl_ms: server.ttl_ms(),
        };
        self.adopt(&server, list);
        Ok(server)
    }

    /// Calls the server's tool `remote_name`. Every failure — the server will not start, exits,
    /// times out or answers with a protocol error — is a [`ToolError::Failed`] naming the server.
    pub async fn call(
        &self,
        remote_name: &str,
        args: Value,
        deadline: Option<Deadline>,
    ) -> Result<ToolResult<ToolPayload>, ToolError> {
        self.call_answering(remote_name, args, deadline, &ClientAnswers::default(), None)
            .await
            .map(|(result, _)| result)
    }

    /// [`LazyServer::call`], answering the server's requests for input as `answers` says, in
    /// the span `traceparent` names (sent as the request's `_meta.traceparent`); returns what
    /// was answered too.
    pub async fn call_answering(
        &self,
        remote_name: &str,
        args: Value,
        deadline: Option<Deadline>,
        answers: &ClientAnswers,
        traceparent: Option<String>,
    ) -> Result<(ToolResult<ToolPayload>, Vec<Answered>), ToolError> {
        let name = &self.spec.name;
        if !self.filter.admits(remote_name) {
            return Err(ToolError::Failed(format!(
                "MCP server `{name}`: tool `{remote_name}` is not offered (enabled_tools / disabled_tools)."
            )));
        }
        let server = self.running(deadline).map_err(|message| {
            if deadline.is_some_and(|run| run.is_expired()) {
                ToolError::DeadlineExceeded
            } else {
                ToolError::Failed(format!("MCP server `{name}`: {message}"))
            }
        })?;
        // The call's own timeout, unless the run's deadline comes first.
        let own = Deadline::after(self.call_timeout);
        let (deadline, own_deadline) = match deadline {
            Some(run) if run.remaining() < own.remaining() => (run, false),
            _ => (own, true),
        };
        match server
            .call_answering(remote_name, args, Some(deadline), answers, traceparent)
            .await
        {
            Ok(done) => Ok(done),
            Err(ToolError::DeadlineExceeded) if own_deadline => Err(ToolError::Failed(format!(
                "MCP server `{name}` did not answer `{remote_name}` within {} s.",
                self.call_timeout.as_secs_f64()
            ))),
            Err(ToolError::Failed(message)) => {
                let message = if let Some(broke) = server.protocol_error() {
                    format!(
                        "MCP server `{name}` {broke}; wink closed the connection{}. It is {} for the next call.",
                        tail_note(server.stderr_tail()),
                        self.spec.revival().done
                    )
                } else if server.is_closed() {
                    format!(
                        "MCP server `{name}` {} during the call ({message}){}; it is {} for the next call.",
                        self.spec.ended(),
                        tail_note(server.stderr_tail()),
                        self.spec.revival().done
                    )
                } else {
                    format!("MCP server `{name}`: {message}")
                };
                Err(ToolError::Failed(message))
            }
            Err(other) => Err(other),
        }
    }
}

/// The MCP servers of one catalog section, and how its catalog is built: the tools `base`
/// adds (static tools, a catalog file, the search configuration), then each server's tools
/// under its name.
pub struct ServerCatalog {
    base: Box<dyn Fn() -> CatalogBuilder + Send + Sync>,
    servers: Vec<Arc<LazyServer>>,
}

impl std::fmt::Debug for ServerCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerCatalog")
            .field("servers", &self.servers)
            .finish_non_exhaustive()
    }
}

impl ServerCatalog {
    /// Servers whose tools join what `base` builds.
    pub fn new(
        base: impl Fn() -> CatalogBuilder + Send + Sync + 'static,
        servers: Vec<Arc<LazyServer>>,
    ) -> Self {
        Self {
            base: Box::new(base),
            servers,
        }
    }

    /// The servers.
    pub fn servers(&self) -> &[Arc<LazyServer>] {
        &self.servers
    }

    /// Loads every server's tool list (from the cache when fresh; servers without a fresh entry
    /// are started, in parallel).
    pub fn load(&self) -> Result<(), CatalogError> {
        std::thread::scope(|scope| {
            let loads: Vec<_> = self
                .servers
                .iter()
                .map(|server| scope.spawn(move || server.load_tools()))
                .collect();
            for load in loads {
                match load.join() {
                    Ok(result) => {
                        result?;
                    }
                    Err(_) => {
                        return Err(CatalogError::Tokenizer(
                            "a thread loading an MCP server's tools panicked".to_owned(),
                        ));
                    }
                }
            }
            Ok(())
        })
    }

    /// The catalog: `base`'s tools, then each server's as `server.tool`.
    pub fn build(&self) -> Result<Catalog, CatalogError> {
        self.servers
            .iter()
            .fold((self.base)(), |builder, server| builder.lazy_server(server))
            .build()
    }

    /// The sum of the servers' generations (changes whenever a tool list does).
    pub fn generation(&self) -> u64 {
        self.servers.iter().map(|s| s.generation()).sum()
    }

    /// Re-lists the servers that announced `tools/list_changed`; true when a list changed.
    pub fn refresh(&self) -> bool {
        let mut changed = false;
        for server in &self.servers {
            changed |= server.refresh();
        }
        changed
    }

    /// Starts, in the background, the servers whose namespaces prefix `names`.
    pub fn warm<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        for name in names {
            let Some((namespace, _)) = name.split_once('.') else {
                continue;
            };
            if let Some(server) = self.servers.iter().find(|s| s.name() == namespace) {
                server.warm();
            }
        }
    }
}

fn tail_note(tail: Option<String>) -> String {
    tail.map(|t| format!("; its stderr ends: {t}"))
        .unwrap_or_default()
}

/// How a lost server is worded ([`ServerSpec::revival`]).
struct Revival {
    /// What it did: `exited`, `closed the connection`.
    ended: &'static str,
    /// What wink does about it: `restarting it`, `reconnecting`.
    doing: &'static str,
    /// What it will have been: `restarted`, `reconnected`.
    done: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_environment_references() {
        // PATH is set in every test environment.
        let path = std::env::var("PATH").unwrap();
        assert_eq!(expand_env("a${PATH}b").unwrap(), format!("a{path}b"));
        assert_eq!(expand_env("plain").unwrap(), "plain");
        assert_eq!(expand_env("${").unwrap(), "${");
        assert_eq!(
            expand_env("${WINK_TEST_SURELY_UNSET_VAR}").unwrap_err(),
            "WINK_TEST_SURELY_UNSET_VAR"
        );
    }

    #[test]
    fn shows_commands_without_environment_values() {
        let spec = ServerSpec::stdio("fs", vec!["server".into(), "my dir".into()])
            .env("TOKEN", "secret-value");
        assert_eq!(spec.shown(), "server 'my dir'");
        assert_eq!(
            spec.resolved_env().unwrap(),
            [("TOKEN".to_owned(), "secret-value".to_owned())]
        );
        let missing = ServerSpec::stdio("fs", vec!["server".into()])
            .env("TOKEN", "${WINK_TEST_SURELY_UNSET_VAR}");
        assert_eq!(
            missing.resolved_env().unwrap_err(),
            "env.TOKEN refers to ${WINK_TEST_SURELY_UNSET_VAR}, which is not set"
        );
    }

    #[test]
    fn a_server_that_will_not_start_fails_its_calls() {
        let server = LazyServer::new(
            ServerSpec::stdio("ghost", vec!["/nonexistent/wink-mcp".into()]),
            None,
        );
        let error = wink_core::block_on(server.call("x", Value::Null, None)).unwrap_err();
        assert_eq!(
            error.to_string(),
            ToolError::Failed(
                "MCP server `ghost`: cannot start: `/nonexistent/wink-mcp` is not an executable file or on PATH"
                    .to_owned()
            )
            .to_string()
        );
        assert_eq!(server.starts(), 1);
        // It is not started again for every call.
        let _ = wink_core::block_on(server.call("x", Value::Null, None));
        assert_eq!(server.starts(), 1);
    }
}
