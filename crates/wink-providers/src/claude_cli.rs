//! `ClaudeCliAdapter`: the claude CLI (Claude Code / the Claude Agent SDK's engine) as a wink
//! [`ProviderAdapter`], with wink's tools attached over MCP.
//!
//! Each model call continues one long-lived `claude -p --input-format stream-json
//! --output-format stream-json` process. Its only tools come from a [`ToolBridge`] MCP server on
//! loopback (streamable HTTP, `--mcp-config … --strict-mcp-config --tools ""`) that forwards every
//! call back to the wink loop: a bridged call ends the model turn ([`ModelTurn::tool_calls`]), the
//! loop runs the tool with its usual semantics, and the next [`ProviderAdapter::complete`]
//! answers the pending MCP call with the loop's result. The CLI's `result` event ends the
//! evaluation with the final text.
//!
//! The MCP server is configured once per process, so the adapter reports
//! `supports_dynamic_tools() == false` (seed 003): when `read_section` discloses a tool-bearing
//! section, the loop raises `VisibilityExpansionRequired`, the main loop re-renders with the
//! section expanded and calls the adapter with a new system prompt — the adapter then stops the
//! old process and starts a fresh one whose bridge offers the new tools.

use std::fmt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::{Mutex, mpsc};
use wink_core::{ToolArguments, ToolCall};
use wink_model::{
    FinishReason, Message, ModelRequest, ModelTurn, ProviderAdapter, ProviderError,
    ProviderErrorKind, ProviderFuture, StreamDelta, StreamSink,
};
use wink_session::TokenUsage;

use wink_mcp::{BridgeReply, BridgedCall, HttpServer, ToolBridge, serve_http};

/// How to start the claude CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeCliConfig {
    /// The executable (default `claude`).
    pub program: PathBuf,
    /// Arguments placed before wink's own (e.g. a script path when `program` is an interpreter).
    pub program_args: Vec<String>,
    /// `--model` (the CLI's default when `None`).
    pub model: Option<String>,
    /// Name of the MCP server in the CLI's config; tools appear as `mcp__<name>__<tool>`.
    pub server_name: String,
    /// Extra CLI arguments appended last (e.g. `--max-turns 20`).
    pub extra_args: Vec<String>,
    /// Extra environment variables for the CLI.
    pub env: Vec<(String, String)>,
    /// The first user message when the request has none (the CLI needs a user turn to start;
    /// the rendered prompt goes in as the system prompt).
    pub start_message: String,
}

impl Default for ClaudeCliConfig {
    fn default() -> Self {
        Self {
            program: PathBuf::from("claude"),
            program_args: Vec::new(),
            model: None,
            server_name: "wink".into(),
            extra_args: Vec::new(),
            env: Vec::new(),
            start_message: "Follow the instructions in the system prompt.".into(),
        }
    }
}

impl ClaudeCliConfig {
    /// The arguments wink passes for one process (after [`ClaudeCliConfig::program_args`]).
    ///
    /// ```
    /// let config = wink_providers::ClaudeCliConfig::default();
    /// let args = config.cli_args("/tmp/mcp.json", "SYSTEM", &["read_section".into()]);
    /// assert_eq!(args.join(" "), "-p --input-format stream-json --output-format stream-json --verbose \
    ///     --mcp-config /tmp/mcp.json --strict-mcp-config --tools  --allowedTools mcp__wink__read_section \
    ///     --system-prompt SYSTEM");
    /// ```
    pub fn cli_args(&self, mcp_config: &str, system: &str, bridge_tools: &[String]) -> Vec<String> {
        let allowed: Vec<String> = bridge_tools
            .iter()
            .map(|t| format!("mcp__{}__{t}", self.server_name))
            .collect();
        let mut args: Vec<String> = [
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--mcp-config",
            mcp_config,
            "--strict-mcp-config",
            "--tools",
            "",
            "--allowedTools",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        args.push(allowed.join(","));
        args.push("--system-prompt".into());
        args.push(system.to_owned());
        if let Some(model) = &self.model {
            args.push("--model".into());
            args.push(model.clone());
        }
        args.extend(self.extra_args.iter().cloned());
        args
    }

    /// The `--mcp-config` document attaching the bridge at `url`.
    ///
    /// ```
    /// let config = wink_providers::ClaudeCliConfig::default();
    /// assert_eq!(
    ///     config.mcp_config("http://127.0.0.1:4000/mcp").to_string(),
    ///     r#"{"mcpServers":{"wink":{"type":"http","url":"http://127.0.0.1:4000/mcp"}}}"#
    /// );
    /// ```
    pub fn mcp_config(&self, url: &str) -> Value {
        let mut servers = serde_json::Map::new();
        servers.insert(
            self.server_name.clone(),
            json!({"type": "http", "url": url}),
        );
        json!({"mcpServers": servers})
    }
}

/// One running claude process and its bridge.
struct LiveRun {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    stderr: Option<tokio::task::JoinHandle<String>>,
    bridge: HttpServer,
    calls: mpsc::UnboundedReceiver<BridgedCall>,
    pending: Vec<(String, BridgeReply)>,
    system: String,
    consumed: usize,
    config_file: PathBuf,
    next_call: u64,
}

impl Drop for LiveRun {
    /// Ends the process, the bridge and the config file (pending MCP calls get an error).
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        self.bridge.cancel();
        let _ = std::fs::remove_file(&self.config_file);
    }
}

/// Drives the claude CLI with wink's tools attached over MCP; see the module docs.
pub struct ClaudeCliAdapter {
    config: ClaudeCliConfig,
    runtime: Option<tokio::runtime::Runtime>,
    live: Arc<Mutex<Option<LiveRun>>>,
    processes: Arc<std::sync::atomic::AtomicU32>,
}

impl fmt::Debug for ClaudeCliAdapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClaudeCliAdapter")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl ClaudeCliAdapter {
    /// An adapter with its own small runtime (so any executor may drive it).
    pub fn new(config: ClaudeCliConfig) -> Result<Self, ProviderError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .thread_name("wink-claude-cli")
            .build()
            .map_err(|e| {
                ProviderError::new(
                    ProviderErrorKind::Config,
                    "claude-cli",
                    config.model.clone().unwrap_or_else(|| "default".into()),
                    format!("cannot start the adapter's runtime: {e}"),
                )
            })?;
        Ok(Self {
            config,
            runtime: Some(runtime),
            live: Arc::new(Mutex::new(None)),
            processes: Arc::new(std::sync::atomic::AtomicU32::new(0)),
        })
    }

    /// How many claude processes this adapter started (one per evaluation; restarts add one).
    pub fn processes_started(&self) -> u32 {
        self.processes.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for ClaudeCliAdapter {
    fn drop(&mut self) {
        // Kills the process (LiveRun's drop) and stops the bridge's tasks; safe inside async code.
        if let Ok(mut live) = self.live.try_lock() {
            live.take();
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl ProviderAdapter for ClaudeCliAdapter {
    fn name(&self) -> &str {
        "claude-cli"
    }

    fn model(&self) -> &str {
        self.config.model.as_deref().unwrap_or("default")
    }

    /// The MCP server is configured once per claude process: new tools need a restart.
    fn supports_dynamic_tools(&self) -> bool {
        false
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        let step = Step {
            config: self.config.clone(),
            live: self.live.clone(),
            processes: self.processes.clone(),
            request: request.clone(),
        };
        let handle = self.runtime.as_ref().map(|rt| rt.spawn(step.run()));
        Box::pin(async move {
            let Some(handle) = handle else {
                return Err(step_error(&self.config, "the adapter was shut down"));
            };
            let turn = handle
                .await
                .map_err(|e| step_error(&self.config, format!("adapter task failed: {e}")))??;
            if let (Some(sink), Some(text)) = (stream, &turn.text) {
                sink.on_delta(&StreamDelta::Text { text: text.clone() });
            }
            Ok(turn)
        })
    }
}

fn step_error(config: &ClaudeCliConfig, message: impl Into<String>) -> ProviderError {
    ProviderError::new(
        ProviderErrorKind::Other,
        "claude-cli",
        config.model.clone().unwrap_or_else(|| "default".into()),
        message,
    )
}

struct Step {
    config: ClaudeCliConfig,
    live: Arc<Mutex<Option<LiveRun>>>,
    processes: Arc<std::sync::atomic::AtomicU32>,
    request: ModelRequest,
}

impl Step {
    fn error(&self, kind: ProviderErrorKind, message: impl Into<String>) -> ProviderError {
        ProviderError::new(
            kind,
            "claude-cli",
            self.config
                .model
                .clone()
                .unwrap_or_else(|| "default".into()),
            message,
        )
    }

    fn system(&self) -> String {
        match self.request.messages.first() {
            Some(Message::System { content }) => content.clone(),
            _ => String::new(),
        }
    }

    async fn run(self) -> Result<ModelTurn, ProviderError> {
        let mut guard = self.live.lock().await;
        let system = self.system();
        let continuing = guard.as_ref().is_some_and(|run| {
            run.system == system
                && run.consumed <= self.request.messages.len()
                && !self.request.messages[run.consumed..]
                    .iter()
                    .any(|m| matches!(m, Message::System { .. }))
        });
        if !continuing {
            guard.take();
            *guard = Some(self.start(system).await?);
        }
        let Some(run) = guard.as_mut() else {
            return Err(self.error(ProviderErrorKind::Other, "no claude process"));
        };
        if continuing {
            self.deliver(run).await?;
        }
        self.next_turn(run).await
    }

    async fn start(&self, system: String) -> Result<LiveRun, ProviderError> {
        let (bridge, calls, wire_names) = ToolBridge::new(&self.request.tools);
        let server = serve_http(bridge, ([127, 0, 0, 1], 0).into())
            .await
            .map_err(|e| self.error(ProviderErrorKind::Config, e.to_string()))?;
        let config_file = std::env::temp_dir().join(format!(
            "wink-claude-mcp-{}-{}.json",
            std::process::id(),
            server.local_addr().port()
        ));
        let document = self.config.mcp_config(&server.url()).to_string();
        std::fs::write(&config_file, document).map_err(|e| {
            self.error(
                ProviderErrorKind::Config,
                format!("cannot write {}: {e}", config_file.display()),
            )
        })?;
        let mut command = tokio::process::Command::new(&self.config.program);
        command
            .args(&self.config.program_args)
            .args(
                self.config
                    .cli_args(&config_file.display().to_string(), &system, &wire_names),
            )
            .envs(self.config.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| {
            self.error(
                ProviderErrorKind::Config,
                format!("cannot start '{}': {e}", self.config.program.display()),
            )
        })?;
        self.processes
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (Some(stdin), Some(stdout), Some(mut stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(self.error(ProviderErrorKind::Config, "claude pipes unavailable"));
        };
        let stderr = tokio::spawn(async move {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text).await;
            text
        });
        let mut run = LiveRun {
            child,
            stdin,
            stdout: BufReader::new(stdout).lines(),
            stderr: Some(stderr),
            bridge: server,
            calls,
            pending: Vec::new(),
            system,
            consumed: 1,
            config_file,
            next_call: 0,
        };
        for message in &self.request.messages[1.min(self.request.messages.len())..] {
            match message {
                Message::User { content } => self.send_user(&mut run, content).await?,
                Message::System { .. } => {}
                _ => {
                    return Err(self.error(
                        ProviderErrorKind::Config,
                        "the claude CLI adapter starts from the prompt and user messages only; \
                         this request already holds assistant turns from another process",
                    ));
                }
            }
        }
        if !self
            .request
            .messages
            .iter()
            .any(|m| matches!(m, Message::User { .. }))
        {
            self.send_user(&mut run, &self.config.start_message).await?;
        }
        run.consumed = self.request.messages.len();
        Ok(run)
    }

    /// Write one user message. A process that already exited is reported by the next read
    /// (with its exit status and stderr), so a broken pipe is not an error here.
    async fn send_user(&self, run: &mut LiveRun, content: &str) -> Result<(), ProviderError> {
        let line = json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": content}]}});
        let written = match run.stdin.write_all(format!("{line}\n").as_bytes()).await {
            Ok(()) => run.stdin.flush().await,
            Err(e) => Err(e),
        };
        match written {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(self.error(
                ProviderErrorKind::Connection,
                format!("cannot write to claude: {e}"),
            )),
            _ => Ok(()),
        }
    }

    /// Hand the loop's new messages to the process: tool results answer pending MCP calls,
    /// user messages start a new CLI turn, assistant messages are the loop's record of our own
    /// turns.
    async fn deliver(&self, run: &mut LiveRun) -> Result<(), ProviderError> {
        let fresh: Vec<Message> = self.request.messages[run.consumed..].to_vec();
        for message in fresh {
            match message {
                Message::Tool {
                    tool_call_id,
                    content,
                    is_error,
                    ..
                } => {
                    let Some(index) = run.pending.iter().position(|(id, _)| *id == tool_call_id)
                    else {
                        return Err(self.error(
                            ProviderErrorKind::Other,
                            format!("tool result for unknown call '{tool_call_id}'"),
                        ));
                    };
                    let (_, reply) = run.pending.remove(index);
                    reply.answer(content, is_error);
                }
                Message::User { content } => self.send_user(run, &content).await?,
                _ => {}
            }
        }
        run.consumed = self.request.messages.len();
        Ok(())
    }

    async fn next_turn(&self, run: &mut LiveRun) -> Result<ModelTurn, ProviderError> {
        let mut text = String::new();
        loop {
            tokio::select! {
                call = run.calls.recv() => {
                    let Some(call) = call else {
                        return Err(self.error(ProviderErrorKind::Other, "the MCP bridge stopped"));
                    };
                    run.next_call += 1;
                    let id = format!("claude_call_{}", run.next_call);
                    run.pending.push((id.clone(), call.reply));
                    return Ok(ModelTurn {
                        text: (!text.is_empty()).then_some(text),
                        tool_calls: vec![ToolCall { id, name: call.name, arguments: ToolArguments::Json(call.arguments) }],
                        usage: None,
                        finish_reason: FinishReason::ToolCalls,
                        output: None,
                    });
                }
                line = run.stdout.next_line() => {
                    let line = line.map_err(|e| self.error(ProviderErrorKind::Connection, format!("cannot read from claude: {e}")))?;
                    let Some(line) = line else {
                        let status = run.child.wait().await.map(|s| s.to_string()).unwrap_or_default();
                        let stderr = match run.stderr.take() {
                            Some(reader) => tokio::time::timeout(std::time::Duration::from_secs(5), reader)
                                .await
                                .ok()
                                .and_then(Result::ok)
                                .unwrap_or_default(),
                            None => String::new(),
                        };
                        return Err(self.error(
                            ProviderErrorKind::TruncatedStream,
                            format!("claude exited ({status}) before answering{}", if stderr.trim().is_empty() { String::new() } else { format!(": {}", stderr.trim()) }),
                        ));
                    };
                    let Ok(event) = serde_json::from_str::<Value>(&line) else {
                        tracing::debug!(%line, "ignoring non-JSON line from claude");
                        continue;
                    };
                    match event.get("type").and_then(Value::as_str) {
                        Some("assistant") => {
                            for block in event.pointer("/message/content").and_then(Value::as_array).into_iter().flatten() {
                                if block.get("type").and_then(Value::as_str) == Some("text")
                                    && let Some(t) = block.get("text").and_then(Value::as_str)
                                {
                                    if !text.is_empty() { text.push('\n'); }
                                    text.push_str(t);
                                }
                            }
                        }
                        Some("result") => return self.finish(&event),
                        _ => {}
                    }
                }
            }
        }
    }

    fn finish(&self, event: &Value) -> Result<ModelTurn, ProviderError> {
        let is_error = event
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            || event
                .get("subtype")
                .and_then(Value::as_str)
                .is_some_and(|s| s != "success");
        let result = event
            .get("result")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if is_error {
            let detail = result
                .or_else(|| {
                    event
                        .get("error")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| event.to_string());
            return Err(self
                .error(ProviderErrorKind::Other, format!("claude failed: {detail}"))
                .with_body(event.to_string()));
        }
        let number = |key: &str| {
            event
                .pointer(&format!("/usage/{key}"))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let usage = event.get("usage").map(|_| TokenUsage {
            input_tokens: number("input_tokens")
                + number("cache_read_input_tokens")
                + number("cache_creation_input_tokens"),
            output_tokens: number("output_tokens"),
            cached_tokens: number("cache_read_input_tokens"),
        });
        Ok(ModelTurn {
            text: result,
            tool_calls: Vec::new(),
            usage,
            finish_reason: FinishReason::Stop,
            output: None,
        })
    }
}
