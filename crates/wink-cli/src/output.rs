//! Writing to stdout without panicking when the reader goes away (`wink render | head`).

use std::io::{self, Write};

/// Print `text` and a newline to stdout. A closed pipe is not an error.
pub fn println(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
