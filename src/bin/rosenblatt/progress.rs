//! Progress on a terminal: a spinner with the current phase on stderr. When stderr is not a
//! terminal (pipes, CI, tests) nothing is drawn, so piped output stays clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// A phase spinner; hidden unless stderr is a terminal.
pub struct Phase(ProgressBar);

impl Phase {
    /// Starts a spinner showing `msg`.
    pub fn start(msg: &str) -> Phase {
        let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        pb.set_style(ProgressStyle::with_template("{spinner} {msg} [{elapsed}]").unwrap());
        pb.set_message(msg.to_string());
        pb.enable_steady_tick(Duration::from_millis(120));
        Phase(pb)
    }

    /// Prints a message on stderr without tearing the spinner.
    pub fn suspend(&self, f: impl FnOnce()) {
        self.0.suspend(f)
    }

    /// Moves on to the next phase.
    pub fn set(&self, msg: &str) {
        self.0.set_message(msg.to_string());
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
