//! Standard output as every command writes it: a write that fails (a full disk, a closed
//! descriptor) says it was standard output that failed, keeping the error's kind, so a
//! closed pipe is still told apart from a failure.

use std::io::{self, StdoutLock, Write};

/// Standard output, locked, whose write errors name it.
pub struct Stdout(StdoutLock<'static>);

/// Locks standard output for writing.
pub fn lock() -> Stdout {
    Stdout(io::stdout().lock())
}

/// The error `e` of a write to standard output, naming it.
fn named(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("standard output: {e}"))
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(named)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(named)
    }
}
