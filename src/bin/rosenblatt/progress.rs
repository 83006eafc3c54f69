//! Progress on stderr, as `--progress` (or `--quiet`) says: by default a spinner with the
//! current phase when stderr is a terminal and nothing otherwise, so piped output stays
//! clean; `--progress always` writes plain lines to a log or pipe instead (each new phase,
//! then at most one line every few seconds), and `--progress never` shows nothing.

use crate::flags::names::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

/// The process's choice, set once from the command line before any phase starts.
static WHEN: OnceLock<Progress> = OnceLock::new();

/// How often a plain progress line may repeat the same phase.
const LINE_EVERY: Duration = Duration::from_secs(5);

/// Records when progress is shown (`--progress`, `--quiet`); `auto` unless called.
pub fn show(when: Progress) {
    let _ = WHEN.set(when);
}

/// Where a phase is shown.
enum Shown {
    /// A spinner (hidden when nothing may be drawn).
    Spinner,
    /// Plain lines: the last one written and when.
    Lines(Mutex<Option<(String, Instant)>>),
}

/// A phase of a long run, shown on stderr as `--progress` says.
pub struct Phase(ProgressBar, Arc<Mutex<String>>, Arc<Shown>);

impl Phase {
    /// Starts a phase showing `msg`.
    pub fn start(msg: &str) -> Phase {
        let when = WHEN.get().copied().unwrap_or(Progress::Auto);
        let terminal = std::io::stderr().is_terminal();
        let (target, shown) = match when {
            Progress::Never => (ProgressDrawTarget::hidden(), Shown::Spinner),
            Progress::Always if !terminal => {
                (ProgressDrawTarget::hidden(), Shown::Lines(Mutex::new(None)))
            }
            _ => (ProgressDrawTarget::stderr(), Shown::Spinner),
        };
        let pb = ProgressBar::with_draw_target(None, target);
        pb.set_style(ProgressStyle::with_template("{spinner} {msg} [{elapsed}]").unwrap());
        pb.set_message(msg.to_string());
        if !pb.is_hidden() {
            pb.enable_steady_tick(Duration::from_millis(120));
        }
        let phase = Phase(pb, Arc::new(Mutex::new(msg.to_string())), Arc::new(shown));
        phase.line(msg);
        phase
    }

    /// Prints a message on stderr without tearing the spinner.
    pub fn suspend(&self, f: impl FnOnce()) {
        self.0.suspend(f)
    }

    /// Moves on to the next phase.
    pub fn set(&self, msg: &str) {
        *self.1.lock().unwrap_or_else(|e| e.into_inner()) = msg.to_string();
        self.0.set_message(msg.to_string());
        self.line(msg);
    }

    /// Writes `msg` as a plain progress line when lines are shown: at once for a new phase
    /// (its words before the first `:` differ from the last line's), otherwise at most
    /// every [`LINE_EVERY`].
    fn line(&self, msg: &str) {
        if let Shown::Lines(last) = &*self.2 {
            write_line(last, msg);
        }
    }

    /// Runs `work` (a training job) while the phase also shows how far its fits are: the
    /// epochs begun of those planned, over how many fits, the rate and an estimate of the
    /// time left, refreshed four times a second. Nothing runs beside `work` when no
    /// progress is shown.
    pub fn with_epochs<T>(&self, work: impl FnOnce() -> T) -> T {
        if self.0.is_hidden() && matches!(*self.2, Shown::Spinner) {
            return work();
        }
        let ((begun0, planned0), fits0) = (rosenblatt::learn::epochs(), rosenblatt::learn::fits());
        let (bar, stage, shown) = (self.0.clone(), Arc::clone(&self.1), Arc::clone(&self.2));
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::scope(|s| {
            s.spawn(move || {
                let start = Instant::now();
                while let Err(mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(Duration::from_millis(250))
                {
                    let (begun, planned) = rosenblatt::learn::epochs();
                    let counts = Epochs {
                        begun: begun - begun0,
                        planned: planned - planned0,
                        fits: rosenblatt::learn::fits() - fits0,
                    };
                    if counts.planned == 0 {
                        continue;
                    }
                    let stage = stage.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    let line = epochs_line(&stage, counts, start.elapsed());
                    match &*shown {
                        Shown::Spinner => bar.set_message(line),
                        Shown::Lines(last) => write_line(last, &line),
                    }
                }
            });
            let out = work();
            drop(stop);
            out
        })
    }
}

/// Writes `msg` on stderr unless the line before it was of the same phase and is recent.
fn write_line(last: &Mutex<Option<(String, Instant)>>, msg: &str) {
    let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
    let phase = |m: &str| m.split(':').next().unwrap_or("").to_string();
    let due = match &*last {
        Some((prev, at)) => phase(prev) != phase(msg) || at.elapsed() >= LINE_EVERY,
        None => true,
    };
    if due {
        errln!("rosenblatt: {msg}");
        *last = Some((msg.to_string(), Instant::now()));
    }
}

/// Epochs counted over the fits of a job: begun, planned, and the fits they belong to.
#[derive(Debug, Clone, Copy)]
struct Epochs {
    begun: u64,
    planned: u64,
    fits: u64,
}

/// `stage` with the epochs begun of those planned (over how many fits, where more than
/// one: the classes of one-vs-rest, the folds of a calibration), their rate and the time
/// left at it.
fn epochs_line(stage: &str, e: Epochs, took: Duration) -> String {
    let rate = e.begun as f64 / took.as_secs_f64().max(1e-3);
    let left = if rate > 0.0 {
        format!(
            ", about {:.0} s left",
            e.planned.saturating_sub(e.begun) as f64 / rate
        )
    } else {
        String::new()
    };
    let (begun, planned) = (e.begun, e.planned);
    let counted = if e.fits > 1 {
        format!(
            "{begun} of {planned} epochs over {} fits (the model, its classes or folds)",
            e.fits
        )
    } else {
        format!("epoch {begun} of {planned}")
    };
    format!("{stage}: {counted} ({rate:.1}/s{left})")
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
        let one = |begun, planned| Epochs {
            begun,
            planned,
            fits: 1,
        };
        let line = epochs_line("training", one(6, 42), Duration::from_secs(3));
        assert_eq!(line, "training: epoch 6 of 42 (2.0/s, about 18 s left)");
        let first = epochs_line("training", one(0, 7), Duration::from_millis(250));
        assert_eq!(first, "training: epoch 0 of 7 (0.0/s)");
    }

    #[test]
    fn epochs_of_several_fits_say_over_how_many() {
        // A 7-epoch learner with its calibration's folds fitted beside it: 14 epochs
        // planned over two fits, not "epoch 14 of 14" of one.
        let e = Epochs {
            begun: 14,
            planned: 14,
            fits: 2,
        };
        let line = epochs_line("training", e, Duration::from_secs(7));
        assert_eq!(
            line,
            "training: 14 of 14 epochs over 2 fits (the model, its classes or folds) \
             (2.0/s, about 0 s left)"
        );
    }
}
