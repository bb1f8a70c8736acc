//! MCP servers over stdio, through the client side of `rmcp`.
//!
//! [`McpServer::spawn`] starts the server as a child process, performs the MCP handshake and
//! lists its tools; catalog tools made from them forward calls to the server. The connection runs
//! on a private one-thread tokio runtime, so callers need no runtime of their own (the returned
//! futures complete on any executor, e.g. [`wink_core::block_on`]).

use std::fmt;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{Peer, RoleClient, ServiceExt};
use serde_json::Value;
use wink_core::{Deadline, ToolError, ToolPayload, ToolResult};

use crate::error::CatalogError;
use crate::record::{ToolRecord, empty_object_schema};

/// How long the handshake and the first `tools/list` may take.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long closing the connection may take when the server is dropped.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// A running MCP server reached over stdio.
pub struct McpServer {
    command: String,
    server_name: String,
    tools: Vec<ToolRecord>,
    peer: Peer<RoleClient>,
    service: Option<RunningService<RoleClient, ()>>,
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
        let Some((program, args)) = words.split_first() else {
            return Err(CatalogError::Mcp {
                command: command_line.to_owned(),
                message: "the command is empty".to_owned(),
            });
        };
        Self::spawn_program(program, args, command_line)
    }

    fn spawn_program(program: &str, args: &[String], shown: &str) -> Result<Self, CatalogError> {
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
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        let startup = async move {
            let (transport, _) = TokioChildProcess::builder(command)
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|e| format!("cannot start: {e}"))?;
            let service =
                ().serve(transport)
                    .await
                    .map_err(|e| format!("MCP initialisation failed: {e}"))?;
            let tools = service
                .list_all_tools()
                .await
                .map_err(|e| format!("tools/list failed: {e}"))?;
            Ok::<_, String>((service, tools))
        };
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
        let (service, tools) = wink_core::block_on(handle)
            .map_err(|e| failure(format!("the connection task failed: {e}")))?
            .map_err(failure)?;
        let peer = service.peer().clone();
        let server_name = peer
            .peer_info()
            .and_then(|info| info.server_info.as_ref().map(|i| i.name.clone()))
            .unwrap_or_default();
        let tools = tools
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
            .collect();
        Ok(Self {
            command: shown.to_owned(),
            server_name,
            tools,
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

    /// Calls the server's tool `name` with `args` (a JSON object), waiting at most until
    /// `deadline`. A result the server flags `isError` becomes a failed [`ToolResult`]; a
    /// transport or protocol failure becomes [`ToolError::Failed`].
    pub async fn call(
        &self,
        name: &str,
        args: Value,
        deadline: Option<Deadline>,
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
        let peer = self.peer.clone();
        let handle = runtime.spawn(async move {
            let call = peer.call_tool(params);
            match deadline {
                Some(deadline) => match tokio::time::timeout(deadline.remaining(), call).await {
                    Ok(result) => result.map_err(|e| ToolError::Failed(e.to_string())),
                    Err(_) => Err(ToolError::DeadlineExceeded),
                },
                None => call.await.map_err(|e| ToolError::Failed(e.to_string())),
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
