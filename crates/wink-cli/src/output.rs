//! Writing to stdout and stderr without panicking when the reader goes away (`wink render |
//! head`, `wink run … 2>&1 | head`), and without letting the text drive the terminal.
//!
//! Much of what wink prints comes from elsewhere: model answers, tool results, MCP servers'
//! stderr, session logs, skill descriptions, file contents in error messages. Written as is, an
//! ESC sequence in any of them would act on the terminal (set the window title, clear the screen,
//! move the cursor, write the clipboard through OSC 52). So every path out goes through here:
//! stderr (progress, notes, errors) always shows control characters escaped ([`escape_controls`]);
//! stdout does when it is a terminal, and passes text through unchanged to a pipe or a file.

use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};

/// `--format`: text for people, or JSON for programs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text for people.
    #[default]
    Text,
    /// JSON.
    Json,
}

/// `eprintln!` that never panics: progress and errors go to stderr when it is open, and are
/// dropped when it is not (a closed pipe, `wink run … 2>&1 | head`). `eprintln!` panics there,
/// which killed the signal handler and the local model's inference thread and left the run
/// waiting forever. Control characters in the text are shown escaped.
macro_rules! note {
    ($($arg:tt)*) => {{
        $crate::output::write_stderr(&format!($($arg)*), true);
    }};
}

/// `eprint!` that never panics (see `note!`).
macro_rules! note_inline {
    ($($arg:tt)*) => {{
        $crate::output::write_stderr(&format!($($arg)*), false);
    }};
}

/// `text` with every control character except line feeds and tabs shown as an escape (`ESC` as
/// `\u{1b}`, a carriage return as `\r`): C0 controls, DEL and the C1 controls (U+0080 to
/// U+009F, which some terminals also obey).
///
/// ```text
/// escape_controls("\x1b]0;title\x07ok\n") == "\\u{1b}]0;title\\u{7}ok\n"
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let shown = |c: char| !c.is_control() || c == '\n' || c == '\t';
    if text.chars().all(shown) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if shown(c) {
            out.push(c);
        } else {
            out.extend(c.escape_debug());
        }
    }
    Cow::Owned(out)
}

/// Writes `text` (and a line feed when `newline`) to stderr with control characters escaped;
/// a closed stderr is not an error.
pub fn write_stderr(text: &str, newline: bool) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(escape_controls(text).as_bytes());
    if newline {
        let _ = err.write_all(b"\n");
    }
    let _ = err.flush();
}

/// stderr for the log (`tracing`): each event written with its control characters escaped.
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        write_stderr(&String::from_utf8_lossy(buf), false);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Moves a progress line's cursor back to its start and clears the line (stderr): the one
/// terminal control wink writes itself.
pub fn erase_line() {
    let mut err = io::stderr().lock();
    let _ = err.write_all(b"\r\x1b[2K");
    let _ = err.flush();
}

/// Writes `text` to stdout as it comes (streamed answers), escaped on a terminal. A closed pipe
/// is not an error.
pub fn write_stdout(text: &str) -> io::Result<()> {
    write_out(text, false)
}

/// Print `text` and a newline to stdout, escaped on a terminal. A closed pipe is not an error.
pub fn println(text: &str) -> io::Result<()> {
    write_out(text, true)
}

fn write_out(text: &str, newline: bool) -> io::Result<()> {
    let mut out = io::stdout().lock();
    let text = if out.is_terminal() {
        escape_controls(text)
    } else {
        Cow::Borrowed(text)
    };
    let written = out
        .write_all(text.as_bytes())
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(
            escape_controls("\u{1b}]0;pwned\u{7}ok\n\tline\r\u{9b}2J\u{7f}"),
            "\\u{1b}]0;pwned\\u{7}ok\n\tline\\r\\u{9b}2J\\u{7f}"
        );
        assert_eq!(
            escape_controls("\u{1b}]52;c;aGk=\u{1b}\\"),
            "\\u{1b}]52;c;aGk=\\u{1b}\\"
        );
        assert!(matches!(
            escape_controls("plain é 日本\n"),
            Cow::Borrowed(_)
        ));
    }
}
