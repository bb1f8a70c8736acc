//! A stdio MCP server's process, and the screen between its stdout and the MCP SDK.
//!
//! The server gets a clean environment: only [`INHERITED_VARIABLES`] from wink's own, plus what
//! its entry names (wink's API keys and cloud credentials never reach it).
//!
//! Its stdout is read here, one line (one JSON-RPC message) at a time, before `rmcp` sees it:
//! - a line longer than [`MAX_MESSAGE_BYTES`] ends the connection at once, with the reason kept
//!   for the error message (`rmcp` alone drops the line and the request waits out its timeout);
//! - notifications wink does not act on (logging, progress, resource updates, unknown ones) are
//!   dropped here: `rmcp` spawns a task per notification, and a server writing them faster than
//!   they are handled grew wink's memory without bound (about 2 KB each). What is forwarded goes
//!   through a bounded pipe, so a flood of the notifications wink does use
//!   (`notifications/tools/list_changed`, `notifications/cancelled`,
//!   `notifications/subscriptions/acknowledged`) waits for `rmcp` instead of piling up.

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::process::{ChildStderr, ChildStdin};

/// The variables a stdio server inherits from wink's environment (when set), as the official MCP
/// SDKs' stdio clients pass them; everything else it gets comes from its entry's `env`.
pub const INHERITED_VARIABLES: [&str; 6] = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// The longest message (one line, without its newline) read from a stdio server: 16 MiB.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The notifications forwarded to the MCP client; others are dropped (see the module docs).
const FORWARDED_NOTIFICATIONS: [&str; 3] = [
    "notifications/tools/list_changed",
    "notifications/cancelled",
    // The acknowledgment of the `subscriptions/listen` a 2026-07-28 server sends list_changed on.
    "notifications/subscriptions/acknowledged",
];

/// How much of a server's stderr is kept for error messages.
const STDERR_TAIL: usize = 2000;

/// Bytes buffered between the screen and the MCP client.
const PIPE_BYTES: usize = 64 * 1024;

/// Why the screen closed the connection (the server broke the protocol), for error messages.
pub(crate) type ProtocolError = Arc<Mutex<Option<String>>>;

/// A started server: its process (killed with its process group when dropped), its stderr,
/// and the two ends the MCP client speaks through.
pub(crate) struct StdioChild {
    /// The process.
    pub(crate) process: Box<dyn ChildWrapper>,
    /// Its stderr, when piped.
    pub(crate) stderr: Option<ChildStderr>,
    /// The screened stdout, for the MCP client to read.
    pub(crate) reader: DuplexStream,
    /// Its stdin, for the MCP client to write.
    pub(crate) writer: ChildStdin,
}

/// Starts `command` in its own process group with a clean environment (see the module docs),
/// `env` added, and its stdout screened (must run on a tokio runtime).
pub(crate) fn spawn(
    mut command: tokio::process::Command,
    env: Vec<(String, String)>,
    protocol_error: ProtocolError,
) -> std::io::Result<StdioChild> {
    command.env_clear();
    for name in INHERITED_VARIABLES {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    command
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut wrapped = CommandWrap::from(command);
    wrapped.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let mut process = wrapped.spawn()?;
    let missing = |what: &str| std::io::Error::other(format!("the server's {what} is not piped"));
    let writer = process.stdin().take().ok_or_else(|| missing("stdin"))?;
    let stdout = process.stdout().take().ok_or_else(|| missing("stdout"))?;
    let stderr = process.stderr().take();
    let (reader, screen_side) = tokio::io::duplex(PIPE_BYTES);
    tokio::spawn(screen(stdout, screen_side, protocol_error));
    Ok(StdioChild {
        process,
        stderr,
        reader,
        writer,
    })
}

/// The fields of a message that decide whether it is forwarded.
#[derive(Deserialize)]
struct Shape<'a> {
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    id: Option<IgnoredAny>,
}

/// Whether a line from the server goes on to the MCP client: everything but notifications
/// outside [`FORWARDED_NOTIFICATIONS`] (a line that is not JSON goes on, for the client to
/// report).
pub(crate) fn forwarded(line: &[u8]) -> bool {
    match serde_json::from_slice::<Shape<'_>>(line) {
        Ok(Shape {
            method: Some(method),
            id: None,
        }) => FORWARDED_NOTIFICATIONS.contains(&method.as_ref()),
        _ => true,
    }
}

/// Copies the server's stdout to `to_client` line by line (see the module docs) until either
/// side closes or a line is too long.
async fn screen<R, W>(stdout: R, mut to_client: W, protocol_error: ProtocolError)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(PIPE_BYTES, stdout);
    let mut line = Vec::new();
    loop {
        match next_line(&mut reader, &mut line, MAX_MESSAGE_BYTES).await {
            Ok(Line::End) | Err(_) => break,
            Ok(Line::TooLong(length)) => {
                let reason = format!(
                    "sent a message of more than {length} bytes, over the limit of {MAX_MESSAGE_BYTES} bytes"
                );
                tracing::warn!("MCP server {reason}; closing the connection");
                if let Ok(mut kept) = protocol_error.lock() {
                    kept.get_or_insert(reason);
                }
                break;
            }
            Ok(Line::Read) => {
                if !forwarded(&line) {
                    tracing::debug!(
                        target: "wink_mcp::client",
                        "dropped a notification: {}",
                        String::from_utf8_lossy(&line[..line.len().min(200)])
                    );
                    continue;
                }
                line.push(b'\n');
                if to_client.write_all(&line).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = to_client.shutdown().await;
}

/// What [`next_line`] read.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line is in the buffer (without its newline).
    Read,
    /// The line went over the limit after this many bytes; nothing more is read.
    TooLong(usize),
    /// The stream ended.
    End,
}

/// Reads the next line into `line`, holding at most `max` bytes of it.
async fn next_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    line.clear();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() {
                Line::End
            } else {
                Line::Read
            });
        }
        let (take, ends) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        if line.len() + take > max {
            return Ok(Line::TooLong(line.len() + take));
        }
        line.extend_from_slice(&available[..take]);
        reader.consume(take + usize::from(ends));
        if ends {
            return Ok(Line::Read);
        }
    }
}

/// The process to start for `command`: the program found on `PATH` (or relative to `cwd`), run
/// through `setpriv --pdeathsig KILL` where that exists, so the server dies with this process.
pub(crate) fn child_command(
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
pub(crate) async fn collect_stderr(mut err: tokio::process::ChildStderr, tail: Arc<Mutex<String>>) {
    let mut buffer = [0u8; 4096];
    while let Ok(read) = err.read(&mut buffer).await {
        if read == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&buffer[..read]);
        tracing::debug!(target: "wink_mcp::client", "server stderr: {}", text.trim_end());
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

pub(crate) fn stderr_tail(tail: &Mutex<String>) -> Option<String> {
    let kept = tail.lock().ok()?;
    let text = kept.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_notifications_wink_uses_are_forwarded() {
        assert!(forwarded(
            br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
        ));
        assert!(forwarded(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
        ));
        assert!(!forwarded(
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#
        ));
        assert!(!forwarded(
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#
        ));
        // Responses, requests (the server's pings) and lines that are not JSON go on.
        assert!(forwarded(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert!(forwarded(br#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#));
        assert!(forwarded(b"not json"));
    }

    fn screened(input: &[u8], max: usize) -> (Vec<Line>, Vec<Vec<u8>>) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut reader = BufReader::with_capacity(4, input);
            let mut line = Vec::new();
            let (mut verdicts, mut lines) = (Vec::new(), Vec::new());
            loop {
                let verdict = next_line(&mut reader, &mut line, max).await.unwrap();
                if verdict == Line::Read {
                    lines.push(line.clone());
                }
                let last = verdict != Line::Read;
                verdicts.push(verdict);
                if last {
                    return (verdicts, lines);
                }
            }
        })
    }

    #[test]
    fn lines_are_bounded_across_buffer_refills() {
        let (verdicts, lines) = screened(b"abc\nde\n\nfgh", 5);
        assert_eq!(
            verdicts,
            [Line::Read, Line::Read, Line::Read, Line::Read, Line::End]
        );
        assert_eq!(
            lines,
            [b"abc".to_vec(), b"de".to_vec(), Vec::new(), b"fgh".to_vec()]
        );
        let (verdicts, _) = screened(b"ok\n123456789\nmore\n", 5);
        assert_eq!(verdicts, [Line::Read, Line::TooLong(9)]);
    }
}
