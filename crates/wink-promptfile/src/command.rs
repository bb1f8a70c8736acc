//! Command-backed tools: the tool's arguments go to the process as JSON on stdin; its stdout
//! is the result. The process (and anything it started) is killed on timeout, at the run's
//! deadline when that comes first, or when its output exceeds the cap, and never outlives the
//! call.
//!
//! "Anything it started": the command runs in its own process group, and carries a marker in
//! its environment (`WINK_COMMAND_TOOL=<wink pid>-<call>`) that its descendants inherit. When
//! the call ends — success, failure, timeout — the group is killed and, on Linux, every process
//! whose environment holds the marker too: a daemon that left the group (`setsid`, a double
//! fork) is found that way. [`kill_running_commands`] does the same for every call in flight;
//! `wink` runs it on SIGINT and SIGTERM. What escapes: a descendant that clears its environment
//! and leaves the group, and everything when wink itself is killed with SIGKILL (no handler runs).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use serde_json::Value;
use wink_core::ToolResult;

/// Default timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default cap on stdout bytes.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 1024 * 1024;
const STDERR_CAP: usize = 64 * 1024;
const STDERR_SHOWN: usize = 2000;
/// The environment variable marking a command tool's processes.
pub const MARKER_VARIABLE: &str = "WINK_COMMAND_TOOL";

/// The variable holding the model's id for the call a command tool runs for.
pub const CALL_ID_VARIABLE: &str = "WINK_TOOL_CALL_ID";

/// The variable holding the id of the session (for `wink worker`, the request id) a command
/// tool runs in.
pub const SESSION_ID_VARIABLE: &str = "WINK_SESSION_ID";

/// The variable holding the MCP client's answers (`inputResponses`, a JSON object) when a call
/// is retried after the tool asked for input (`{"resultType": "input_required", ...}`).
pub const INPUT_RESPONSES_VARIABLE: &str = "WINK_INPUT_RESPONSES";

/// The variable holding the `requestState` the tool gave with its `input_required` result, on
/// the retried call (checked by the server: a client cannot change it).
pub const REQUEST_STATE_VARIABLE: &str = "WINK_REQUEST_STATE";

/// Calls in flight: their process group and marker.
static RUNNING: Mutex<Vec<(u32, String)>> = Mutex::new(Vec::new());

/// Set by [`kill_running_commands`]: the process is about to exit.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Kill every command tool running now, with everything it started (see the module docs).
/// For signal handlers: call it, then exit. From then on no command call returns (nor starts),
/// so the interrupted run cannot go on and finish with another exit code first.
pub fn kill_running_commands() {
    STOPPING.store(true, Ordering::SeqCst);
    let running = RUNNING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    for (group, marker) in running {
        kill_group_and_marked(group, &marker);
    }
}

/// Parks the calling thread for good once the process is stopping (see
/// [`kill_running_commands`]).
fn wait_while_stopping() {
    while STOPPING.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(100));
    }
}

/// A marker unique to one call of this process.
fn next_marker() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// How to run one command-backed tool.
#[derive(Debug, Clone)]
pub struct CommandHandler {
    /// Program (resolved against the prompt folder when relative with a `/`).
    pub program: PathBuf,
    /// Arguments.
    pub args: Vec<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// Extra environment.
    pub env: IndexMap<String, String>,
    /// Kill after this long.
    pub timeout: Duration,
    /// Cap on stdout.
    pub max_output_bytes: usize,
}

enum Ending {
    Exited(ExitStatus),
    TimedOut,
    /// The run's deadline came before the tool's own timeout.
    RunDeadline,
    Overflow,
    /// The client cancelled the call.
    Cancelled,
}

/// A command stopped at the run's deadline (see [`CommandHandler::run_by`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeadlinePassed;

impl CommandHandler {
    /// The process to start: the program, through `setpriv --pdeathsig KILL` on Linux when both
    /// can be found, so that a tool still running when wink is killed (SIGKILL, where no handler
    /// runs) dies with it instead of finishing unseen; else the program itself (whose spawn error
    /// is then reported as before).
    fn command(&self) -> Command {
        let program = self.program.to_string_lossy();
        let wrapped = wink_mcp::resolve_program(&program, Some(&self.cwd))
            .and_then(|resolved| wink_mcp::killed_with_this_process(&resolved));
        match wrapped {
            Some((wrapper, args)) => {
                let mut command = Command::new(wrapper);
                command.args(args);
                command
            }
            None => Command::new(&self.program),
        }
    }

    /// Run with `params` on stdin. Failures (spawn error, non-zero exit, signal, timeout,
    /// oversized output) come back as failed results whose message says what happened.
    pub fn run(&self, params: &Value) -> ToolResult<Value> {
        self.run_with_env(params, &[])
    }

    /// As [`CommandHandler::run`], with `extra` variables in the command's environment (the
    /// call's id and the session's, for tools that must be idempotent: see docs/deploy.md).
    pub fn run_with_env(&self, params: &Value, extra: &[(&str, String)]) -> ToolResult<Value> {
        match self.run_by(params, extra, None) {
            Ok(result) => result,
            // Without a run deadline the command never stops for one.
            Err(DeadlinePassed) => ToolResult::failure("The run's deadline passed."),
        }
    }

    /// As [`CommandHandler::run_with_env`], stopping at `deadline` too (the run's) when it
    /// comes before the tool's own timeout: the command is killed then, with everything it
    /// started, and the call ends with [`DeadlinePassed`].
    pub fn run_by(
        &self,
        params: &Value,
        extra: &[(&str, String)],
        deadline: Option<Instant>,
    ) -> Result<ToolResult<Value>, DeadlinePassed> {
        self.run_reporting(params, extra, deadline, None, None)
    }

    /// As [`CommandHandler::run_by`], passing the progress reports the command writes on stderr
    /// (lines like `{"progress": 50, "total": 100}`, see [`wink_mcp::ProgressUpdate::from_line`])
    /// to `progress` as they come; they are left out of the stderr shown on failure. When
    /// `cancel` is set while it runs, the command is killed (with everything it started) and the
    /// call fails with `The call was cancelled.`.
    pub fn run_reporting(
        &self,
        params: &Value,
        extra: &[(&str, String)],
        deadline: Option<Instant>,
        progress: Option<wink_mcp::ProgressReporter>,
        cancel: Option<wink_mcp::CancelSignal>,
    ) -> Result<ToolResult<Value>, DeadlinePassed> {
        Ok(
            match self.run_for_output(params, extra, deadline, progress, cancel)? {
                Ok(stdout) => parse_stdout(&stdout),
                Err(failed) => failed,
            },
        )
    }

    /// Runs the command: what it printed when it exited with status 0, else the failed result
    /// saying what happened.
    fn run_for_output(
        &self,
        params: &Value,
        extra: &[(&str, String)],
        deadline: Option<Instant>,
        progress: Option<wink_mcp::ProgressReporter>,
        cancel: Option<wink_mcp::CancelSignal>,
    ) -> Result<Result<String, ToolResult<Value>>, DeadlinePassed> {
        wait_while_stopping();
        let marker = next_marker();
        let mut command = self.command();
        command
            .args(&self.args)
            .current_dir(&self.cwd)
            .envs(&self.env)
            .envs(extra.iter().map(|(k, v)| (*k, v.as_str())))
            .env(MARKER_VARIABLE, &marker)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = match command.spawn() {
            Ok(c) => c,
            Err(e) if !self.cwd.is_dir() => {
                return Ok(Err(ToolResult::failure(format!(
                    "Command '{}' could not be started: its working directory '{}' does not exist ({e})",
                    self.program.display(),
                    self.cwd.display()
                ))));
            }
            Err(e) => {
                return Ok(Err(ToolResult::failure(format!(
                    "Command '{}' could not be started: {e}",
                    self.program.display()
                ))));
            }
        };
        RUNNING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((child.id(), marker.clone()));
        let input = serde_json::to_vec(params).unwrap_or_else(|_| b"{}".to_vec());
        let writer = child.stdin.take().map(|mut stdin| {
            thread::spawn(move || {
                let _ = stdin.write_all(&input);
            })
        });
        let overflow = Arc::new(AtomicBool::new(false));
        let stdout = child
            .stdout
            .take()
            .map(|out| spawn_reader(out, self.max_output_bytes, Some(overflow.clone())));
        let stderr = child.stderr.take().map(|err| match progress {
            Some(reporter) => spawn_progress_reader(err, reporter),
            None => spawn_reader(err, STDERR_CAP, None),
        });
        let ending = self.wait(&mut child, &overflow, deadline, cancel.as_ref());
        kill_group_and_marked(child.id(), &marker);
        let _ = child.kill();
        let _ = child.wait();
        RUNNING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(_, m)| *m != marker);
        wait_while_stopping();
        if let Some(w) = writer {
            let _ = w.join();
        }
        let stdout = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
        let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
        Ok(Err(match ending {
            Ending::RunDeadline => return Err(DeadlinePassed),
            Ending::TimedOut => ToolResult::failure(format!(
                "Command timed out after {} and was killed.",
                format_duration(self.timeout)
            )),
            Ending::Cancelled => ToolResult::failure("The call was cancelled."),
            Ending::Overflow => ToolResult::failure(format!(
                "Command output exceeded {} bytes; the command was killed.",
                self.max_output_bytes
            )),
            Ending::Exited(status) if !status.success() => {
                let detail = tail(&String::from_utf8_lossy(&stderr), STDERR_SHOWN);
                let what = match status.code() {
                    Some(code) => format!("Command exited with status {code}"),
                    None => "Command was terminated by a signal".to_owned(),
                };
                if detail.is_empty() {
                    ToolResult::failure(format!("{what}."))
                } else {
                    ToolResult::failure(format!("{what}: {detail}"))
                }
            }
            Ending::Exited(_) => return Ok(Ok(String::from_utf8_lossy(&stdout).into_owned())),
        }))
    }

    fn wait(
        &self,
        child: &mut Child,
        overflow: &AtomicBool,
        run: Option<Instant>,
        cancel: Option<&wink_mcp::CancelSignal>,
    ) -> Ending {
        let own = Instant::now() + self.timeout;
        let (deadline, timed_out) = match run {
            Some(run) if run < own => (run, Ending::RunDeadline),
            _ => (own, Ending::TimedOut),
        };
        let mut pause = Duration::from_millis(1);
        loop {
            if overflow.load(Ordering::SeqCst) {
                return Ending::Overflow;
            }
            if cancel.is_some_and(wink_mcp::CancelSignal::is_cancelled) {
                return Ending::Cancelled;
            }
            match child.try_wait() {
                Ok(Some(status)) => return Ending::Exited(status),
                Ok(None) => {}
                Err(_) => return Ending::TimedOut,
            }
            if Instant::now() >= deadline {
                return timed_out;
            }
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}

fn spawn_reader<R: Read + Send + 'static>(
    mut reader: R,
    cap: usize,
    overflow: Option<Arc<AtomicBool>>,
) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if out.len() + n > cap {
                        let keep = cap.saturating_sub(out.len());
                        out.extend_from_slice(&buf[..keep]);
                        if let Some(flag) = &overflow {
                            flag.store(true, Ordering::SeqCst);
                            break;
                        }
                        // stderr: keep draining so the child never blocks on a full pipe
                        continue;
                    }
                    out.extend_from_slice(&buf[..n]);
                }
            }
        }
        out
    })
}

/// Reads stderr line by line: progress reports go to `reporter`, the rest is kept (at most
/// [`STDERR_CAP`] bytes, the stream drained to its end).
fn spawn_progress_reader<R: Read + Send + 'static>(
    reader: R,
    reporter: wink_mcp::ProgressReporter,
) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut out = Vec::new();
        let mut lines = std::io::BufReader::new(reader);
        let mut line = Vec::new();
        while let Ok(read) = std::io::BufRead::read_until(&mut lines, b'\n', &mut line) {
            if read == 0 {
                break;
            }
            match std::str::from_utf8(&line)
                .ok()
                .and_then(wink_mcp::ProgressUpdate::from_line)
            {
                Some(update) => reporter.report(update),
                None => {
                    let keep = STDERR_CAP.saturating_sub(out.len()).min(line.len());
                    out.extend_from_slice(&line[..keep]);
                }
            }
            line.clear();
        }
        out
    })
}

/// Kill the process group `group` (the child and what stayed in its group), then every process
/// carrying `marker` in its environment, until none is left (at most about half a second).
fn kill_group_and_marked(group: u32, marker: &str) {
    #[cfg(unix)]
    {
        send_kill(&[format!("-{group}")]);
        for _ in 0..50 {
            let marked = marked_processes(marker);
            if marked.is_empty() {
                break;
            }
            send_kill(&marked);
            thread::sleep(Duration::from_millis(10));
        }
    }
}

#[cfg(unix)]
fn send_kill(targets: &[String]) {
    let _ = Command::new("kill")
        .arg("-KILL")
        .arg("--")
        .args(targets)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Pids of the live processes whose environment holds `MARKER_VARIABLE=marker` (Linux `/proc`;
/// nothing elsewhere). Zombies are skipped (their environment reads empty).
fn marked_processes(marker: &str) -> Vec<String> {
    let wanted = format!("{MARKER_VARIABLE}={marker}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            if !name.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            environ
                .split(|&b| b == 0)
                .any(|variable| variable == wanted.as_bytes())
                .then_some(name)
        })
        .collect()
}

fn tail(text: &str, max_chars: usize) -> String {
    let trimmed = text.trim();
    let count = trimmed.chars().count();
    if count <= max_chars {
        return trimmed.to_owned();
    }
    let skip = count - max_chars;
    format!("…{}", trimmed.chars().skip(skip).collect::<String>())
}

fn format_duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{secs}s")
    }
}

impl wink_mcp::ContentHandler for CommandHandler {
    /// Runs the command with `input` on stdin (and the client's answers in
    /// [`INPUT_RESPONSES_VARIABLE`] and [`REQUEST_STATE_VARIABLE`] on a retried request).
    fn produce(
        &self,
        input: &Value,
        client: Option<&wink_mcp::ClientInput>,
    ) -> Result<String, String> {
        let mut env = Vec::new();
        if let Some(client) = client {
            env.push((INPUT_RESPONSES_VARIABLE, client.responses.to_string()));
            if let Some(state) = &client.state {
                env.push((REQUEST_STATE_VARIABLE, state.clone()));
            }
        }
        match self.run_for_output(input, &env, None, None, None) {
            Ok(Ok(stdout)) => Ok(stdout),
            Ok(Err(failed)) => Err(failed.message),
            Err(DeadlinePassed) => Err("The run's deadline passed.".to_owned()),
        }
    }
}

/// stdout as a result: a JSON object with a string `message` is a ToolResult
/// (`message`, `value`, `success`, `exclude_value_from_context`); an object in one of MCP's
/// result forms ([`wink_mcp::result_form`]: content blocks, or `input_required`) is kept whole
/// as the value, for MCP clients, with what a model reads as the message; anything else is the
/// message.
pub fn parse_stdout(stdout: &str) -> ToolResult<Value> {
    let text = stdout.trim_end();
    if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(text.trim_start())
        && let Some(form) = wink_mcp::result_form(&value)
    {
        return match form {
            wink_mcp::ToolResultForm::Complete(result) => ToolResult {
                message: wink_mcp::content_text(&result.content),
                value: Some(value),
                success: result.is_error != Some(true),
                exclude_value_from_context: true,
            },
            _ => ToolResult {
                message: format!(
                    "The tool asks its MCP client for input, which only an MCP client can give: {}",
                    value.get("inputRequests").unwrap_or(&Value::Null)
                ),
                value: Some(value),
                success: false,
                exclude_value_from_context: true,
            },
        };
    }
    if let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(text.trim_start())
        && let Some(Value::String(message)) = obj.get("message")
    {
        let value = obj.get("value").cloned().filter(|v| !v.is_null());
        return ToolResult {
            message: message.clone(),
            value,
            success: obj.get("success").and_then(Value::as_bool).unwrap_or(true),
            exclude_value_from_context: obj
                .get("exclude_value_from_context")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
    }
    ToolResult::message(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sh(script: &str, timeout_ms: u64, cap: usize) -> CommandHandler {
        CommandHandler {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            cwd: std::env::temp_dir(),
            env: IndexMap::new(),
            timeout: Duration::from_millis(timeout_ms),
            max_output_bytes: cap,
        }
    }

    #[test]
    fn mcp_result_forms_are_kept_whole_with_the_text_a_model_reads() {
        let result = parse_stdout(
            r#"{"content": [{"type": "text", "text": "Oops"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}], "isError": true}"#,
        );
        assert_eq!(
            result.message,
            "Oops\n\n{\"type\":\"image\",\"data\":\"<4 base64 characters>\",\"mimeType\":\"image/png\"}"
        );
        assert!(!result.success);
        assert!(result.exclude_value_from_context);
        assert_eq!(result.value.unwrap()["content"][1]["data"], json!("AAAA"));
        let asked = parse_stdout(
            r#"{"resultType": "input_required", "inputRequests": {"q": {"method": "roots/list", "params": {}}}}"#,
        );
        assert_eq!(
            asked.message,
            r#"The tool asks its MCP client for input, which only an MCP client can give: {"q":{"method":"roots/list","params":{}}}"#
        );
        assert!(!asked.success);
        // Another key makes it a plain value.
        let plain = parse_stdout(r#"{"content": [], "extra": 1}"#);
        assert_eq!(plain.message, r#"{"content": [], "extra": 1}"#);
    }

    #[test]
    fn progress_lines_on_stderr_are_reported_and_left_out_of_failures() {
        let reports = Arc::new(Mutex::new(Vec::new()));
        let kept = reports.clone();
        let reporter = wink_mcp::ProgressReporter::new(move |update| {
            kept.lock().unwrap().push((update.progress, update.total));
        });
        let handler = sh(
            r#"echo '{"progress": 1, "total": 2}' >&2; echo 'real trouble' >&2; echo '{"progress": 2, "total": 2}' >&2; exit 3"#,
            5_000,
            1024,
        );
        let result = handler
            .run_reporting(&json!({}), &[], None, Some(reporter), None)
            .unwrap();
        assert_eq!(
            *reports.lock().unwrap(),
            [(1.0, Some(2.0)), (2.0, Some(2.0))]
        );
        assert_eq!(result.message, "Command exited with status 3: real trouble");
    }

    #[test]
    fn passes_params_on_stdin_and_reads_plain_stdout() {
        let r = sh("cat", 5000, 1024).run(&json!({"q": 1}));
        assert!(r.success);
        assert_eq!(r.message, "{\"q\":1}");
    }

    #[test]
    fn parses_tool_result_objects() {
        let r = sh(
            r#"echo '{"message": "done", "value": {"n": 2}, "success": false}'"#,
            5000,
            1024,
        )
        .run(&json!({}));
        assert_eq!(r.message, "done");
        assert_eq!(r.value, Some(json!({"n": 2})));
        assert!(!r.success);
    }

    #[test]
    fn non_zero_exit_is_a_failed_result_with_stderr() {
        let r = sh("echo oops >&2; exit 3", 5000, 1024).run(&json!({}));
        assert!(!r.success);
        assert_eq!(r.message, "Command exited with status 3: oops");
    }

    #[test]
    fn timeout_kills_the_process_group() {
        let started = Instant::now();
        let r = sh("sleep 30 & sleep 30", 200, 1024).run(&json!({}));
        assert!(!r.success);
        assert_eq!(r.message, "Command timed out after 0.2s and was killed.");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn the_run_deadline_stops_a_command_before_its_own_timeout() {
        let started = Instant::now();
        let deadline = Some(started + Duration::from_millis(300));
        let outcome = sh("sleep 30 & sleep 30", 86_400_000, 1024).run_by(&json!({}), &[], deadline);
        assert!(matches!(outcome, Err(DeadlinePassed)));
        assert!(started.elapsed() < Duration::from_secs(10));
        // The tool's own timeout still applies when it comes first.
        let later = Some(Instant::now() + Duration::from_secs(60));
        let outcome = sh("sleep 30", 200, 1024).run_by(&json!({}), &[], later);
        assert_eq!(
            outcome.map(|r| r.message),
            Ok("Command timed out after 0.2s and was killed.".to_owned())
        );
    }

    #[test]
    fn oversized_output_is_refused() {
        let r = sh("yes x | head -c 100000", 5000, 1000).run(&json!({}));
        assert!(!r.success);
        assert_eq!(
            r.message,
            "Command output exceeded 1000 bytes; the command was killed."
        );
    }

    #[test]
    fn missing_program_is_reported() {
        let mut h = sh("true", 1000, 10);
        h.program = "/nonexistent/tool".into();
        let r = h.run(&json!({}));
        assert!(!r.success);
        assert!(
            r.message
                .starts_with("Command '/nonexistent/tool' could not be started: "),
            "{}",
            r.message
        );
    }
}
