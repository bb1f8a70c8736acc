//! Writing to stdout and stderr without panicking when the reader goes away (`wink render |
//! head`, `wink run … 2>&1 | head`).

use std::io::{self, Write};

/// `eprintln!` that never panics: progress and errors go to stderr when it is open, and are
/// dropped when it is not (a closed pipe, `wink run … 2>&1 | head`). `eprintln!` panics there,
/// which killed the signal handler and the local model's inference thread and left the run
/// waiting forever.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that never panics (see `note!`).
macro_rules! note_inline {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stderr = std::io::stderr();
        let _ = write!(stderr, $($arg)*);
        let _ = stderr.flush();
    }};
}

/// Print `text` and a newline to stdout. A closed pipe is not an error.
pub fn println(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
