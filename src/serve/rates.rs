//! Verdicts and learns per minute, for the daemon's page: the totals `/metrics` counts,
//! sampled once a minute by a task of the daemon's (nothing is added to a verdict's
//! work), the last hour of them kept. A minute's figures are the differences between
//! the samples around it; the minute under way is the totals now less the last sample.

use super::metrics::Metrics;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Minutes of figures kept.
pub const MINUTES: usize = 60;

/// The totals `/metrics` counts at one moment: verdicts (spam, ham), then learns (spam,
/// ham).
pub type Totals = [u64; 4];

/// The totals of the daemon's counters now.
pub fn totals(metrics: &Metrics) -> Totals {
    let ((spam, ham), (learned_spam, learned_ham)) = metrics.totals();
    [spam, ham, learned_spam, learned_ham]
}

/// The current minute, counted from 1970.
pub fn minute_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 60)
}

/// One minute's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Minute {
    /// The minute, counted from 1970 (× 60: its first second).
    pub minute: u64,
    /// Verdicts of spam in it.
    pub spam: u64,
    /// Verdicts of ham in it.
    pub ham: u64,
    /// Messages learned in it (spam and ham).
    pub learned: u64,
}

/// The samples of the totals, one a minute: see the module docs.
#[derive(Debug)]
pub struct Rates {
    samples: Mutex<VecDeque<(u64, Totals)>>,
}

impl Rates {
    /// Figures starting at `minute` from totals of zero (a daemon starting).
    pub fn new(minute: u64) -> Rates {
        Rates {
            samples: Mutex::new(VecDeque::from([(minute, [0; 4])])),
        }
    }

    /// Records the totals as `minute` begins (a sample for a minute already sampled
    /// replaces it).
    pub fn sample(&self, minute: u64, totals: Totals) {
        let mut s = self.samples.lock().unwrap_or_else(|e| e.into_inner());
        if s.back().is_some_and(|&(m, _)| m >= minute) {
            s.pop_back();
        }
        s.push_back((minute, totals));
        while s.len() > MINUTES {
            s.pop_front();
        }
    }

    /// Each minute's figures, oldest first, the minute under way (from the totals `now`)
    /// last.
    pub fn series(&self, now: Totals) -> Vec<Minute> {
        let s = self.samples.lock().unwrap_or_else(|e| e.into_inner());
        let ends = s.iter().skip(1).map(|&(_, t)| t).chain([now]);
        s.iter()
            .zip(ends)
            .map(|(&(minute, from), to)| {
                let d = |i: usize| to[i].saturating_sub(from[i]);
                Minute {
                    minute,
                    spam: d(0),
                    ham: d(1),
                    learned: d(2) + d(3),
                }
            })
            .collect()
    }
}

/// Calls `sample` as each minute begins (the daemon samples its totals), until
/// `stopped` changes.
pub async fn every_minute(sample: impl Fn(), mut stopped: tokio::sync::watch::Receiver<bool>) {
    loop {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let wait = Duration::from_secs(60 - secs % 60);
        tokio::select! {
            _ = stopped.changed() => return,
            _ = tokio::time::sleep(wait) => {}
        }
        sample();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_minute_is_the_difference_of_the_samples_around_it() {
        let r = Rates::new(100);
        r.sample(101, [3, 2, 1, 0]);
        r.sample(102, [5, 2, 1, 2]);
        let s = r.series([6, 4, 1, 2]);
        let got: Vec<(u64, u64, u64, u64)> = s
            .iter()
            .map(|m| (m.minute, m.spam, m.ham, m.learned))
            .collect();
        assert_eq!(got, [(100, 3, 2, 1), (101, 2, 0, 2), (102, 1, 2, 0)]);
        // The figures add up to the totals.
        assert_eq!(s.iter().map(|m| m.spam + m.ham).sum::<u64>(), 10);
    }

    #[test]
    fn an_hour_is_kept() {
        let r = Rates::new(0);
        for m in 1..200 {
            r.sample(m, [m, 0, 0, 0]);
        }
        let s = r.series([200, 0, 0, 0]);
        assert_eq!(s.len(), MINUTES);
        assert!(s.iter().all(|m| m.spam == 1));
        assert_eq!(s.last().unwrap().minute, 199);
    }
}
