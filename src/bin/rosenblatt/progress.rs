//! Progress on a terminal: a spinner with the current phase on stderr. When stderr is not a
//! terminal (pipes, CI, tests) nothing is drawn, so piped output stays clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// A phase spinner; hidden unless stderr is a terminal.
pub struct Phase(ProgressBar, Arc<Mutex<String>>);

impl Phase {
    /// Starts a spinner showing `msg`.
    pub fn start(msg: &str) -> Phase {
        let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        pb.set_style(ProgressStyle::with_template("{spinner} {msg} [{elapsed}]").unwrap());
        pb.set_message(msg.to_string());
        pb.enable_steady_tick(Duration::from_millis(120));
        Phase(pb, Arc::new(Mutex::new(msg.to_string())))
    }

    /// Prints a message on stderr without tearing the spinner.
    pub fn suspend(&self, f: impl FnOnce()) {
        self.0.suspend(f)
    }

    /// Moves on to the next phase.
    pub fn set(&self, msg: &str) {
        *self.1.lock().unwrap_or_else(|e| e.into_inner()) = msg.to_string();
        self.0.set_message(msg.to_string());
    }

    /// Runs `work` (a training job) while the phase also shows how far its fits are: the
    /// epoch begun of those planned, the rate and an estimate of the time left, refreshed
    /// four times a second. Nothing runs beside `work` when the spinner is hidden.
    pub fn with_epochs<T>(&self, work: impl FnOnce() -> T) -> T {
        if self.0.is_hidden() {
            return work();
        }
        let (begun0, planned0) = rosenblatt::learn::epochs();
        let (bar, stage) = (self.0.clone(), Arc::clone(&self.1));
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::scope(|s| {
            s.spawn(move || {
                let start = Instant::now();
                while let Err(mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(Duration::from_millis(250))
                {
                    let (begun, planned) = rosenblatt::learn::epochs();
                    let (begun, planned) = (begun - begun0, planned - planned0);
                    if planned == 0 {
                        continue;
                    }
                    let stage = stage.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    bar.set_message(epochs_line(&stage, begun, planned, start.elapsed()));
                }
            });
            let out = work();
            drop(stop);
            out
        })
    }
}

/// `stage` with the epochs begun of those planned, their rate and the time left at it.
fn epochs_line(stage: &str, begun: u64, planned: u64, took: Duration) -> String {
    let rate = begun as f64 / took.as_secs_f64().max(1e-3);
    let left = if rate > 0.0 {
        format!(
            ", about {:.0} s left",
            planned.saturating_sub(begun) as f64 / rate
        )
    } else {
        String::new()
    };
    format!("{stage}: epoch {begun} of {planned} planned ({rate:.1}/s{left})")
}

impl Drop for Phase {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epochs_line_gives_the_rate_and_the_time_left() {
        let line = epochs_line("training", 6, 42, Duration::from_secs(3));
        assert_eq!(
            line,
            "training: epoch 6 of 42 planned (2.0/s, about 18 s left)"
        );
        let first = epochs_line("training", 0, 7, Duration::from_millis(250));
        assert_eq!(first, "training: epoch 0 of 7 planned (0.0/s)");
    }
}
