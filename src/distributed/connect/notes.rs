//! The log of failed joins: a few lines a second on standard error, the rest counted,
//! so that a flood of connections cannot flood it.

use std::io::Write;
use std::time::{Duration, Instant};

/// Lines about failed joins written per second; the rest are counted, and the count
/// written once the second is over.
const NOTES_PER_SECOND: u32 = 5;

/// Lines about failed joins on a stream (standard error), at most `NOTES_PER_SECOND` a
/// second: the rest are counted, and the count written once the second is over (or when
/// the join ends). Never fails the run.
pub(super) struct Notes<W: Write> {
    me: usize,
    out: W,
    /// When the current second began.
    since: Instant,
    /// Lines written in it.
    shown: u32,
    /// Lines held back since the last count was written.
    held: u64,
}

impl<W: Write> Notes<W> {
    pub(super) fn new(me: usize, out: W) -> Self {
        Notes {
            me,
            out,
            since: Instant::now(),
            shown: 0,
            held: 0,
        }
    }

    /// A line about a failed join: written, or counted when this second's are spent.
    pub(super) fn note(&mut self, line: &str) {
        self.note_at(line, Instant::now());
    }

    /// [`Notes::note`] at the time `now`.
    pub(super) fn note_at(&mut self, line: &str, now: Instant) {
        self.tick(now);
        if self.shown < NOTES_PER_SECOND {
            self.shown += 1;
            let _ = writeln!(self.out, "rosenblatt: process {}: {line}", self.me);
        } else {
            self.held += 1;
        }
    }

    /// At `now`: once the current second is over, writes the count of the lines held
    /// back in it and begins another.
    pub(super) fn tick(&mut self, now: Instant) {
        if now.saturating_duration_since(self.since) >= Duration::from_secs(1) {
            self.count_held();
            self.since = now;
            self.shown = 0;
        }
    }

    /// Writes how many lines were held back, if any.
    fn count_held(&mut self) {
        if self.held > 0 {
            let _ = writeln!(
                self.out,
                "rosenblatt: process {}: {} more lines about failed joins not shown",
                self.me, self.held
            );
            self.held = 0;
        }
    }
}

impl<W: Write> Drop for Notes<W> {
    fn drop(&mut self) {
        self.count_held();
    }
}
