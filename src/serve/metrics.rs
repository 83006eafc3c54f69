//! The daemon's counters, kept with relaxed atomics (one addition per event) and written
//! in Prometheus' text format for `GET /metrics`: requests by protocol and outcome,
//! verdicts, learns, a latency histogram, open connections and the model's generation.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// The protocol a request came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// SpamAssassin's spamd.
    Spamd,
    /// rspamd's HTTP protocol.
    Rspamd,
    /// The JSON API, health and metrics.
    Api,
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Answered.
    Ok,
    /// Refused: malformed, too large, not allowed, or no such path.
    Refused,
    /// Turned away: the daemon was at its connection bound.
    Busy,
    /// Failed on the daemon's side.
    Failed,
}

const PROTOCOLS: [(Protocol, &str); 3] = [
    (Protocol::Spamd, "spamd"),
    (Protocol::Rspamd, "rspamd"),
    (Protocol::Api, "api"),
];
const OUTCOMES: [(Outcome, &str); 4] = [
    (Outcome::Ok, "ok"),
    (Outcome::Refused, "refused"),
    (Outcome::Busy, "busy"),
    (Outcome::Failed, "failed"),
];
/// The latency histogram's upper bounds, in seconds.
const BOUNDS: [f64; 10] = [
    0.000_25, 0.000_5, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 1.0,
];

/// Every counter of a running daemon.
#[derive(Debug, Default)]
pub struct Metrics {
    requests: [[AtomicU64; 4]; 3],
    verdicts: [AtomicU64; 2],
    learns: [AtomicU64; 2],
    latency: [AtomicU64; BOUNDS.len() + 1],
    latency_micros: AtomicU64,
    connections: AtomicU64,
    generation: AtomicU64,
}

impl Metrics {
    /// Counts a request of `protocol` that ended as `outcome` after `took`.
    pub fn request(&self, protocol: Protocol, outcome: Outcome, took: Duration) {
        let p = PROTOCOLS
            .iter()
            .position(|(x, _)| *x == protocol)
            .unwrap_or(0);
        let o = OUTCOMES
            .iter()
            .position(|(x, _)| *x == outcome)
            .unwrap_or(0);
        self.requests[p][o].fetch_add(1, Relaxed);
        let secs = took.as_secs_f64();
        let bucket = BOUNDS
            .iter()
            .position(|&b| secs <= b)
            .unwrap_or(BOUNDS.len());
        self.latency[bucket].fetch_add(1, Relaxed);
        self.latency_micros
            .fetch_add(took.as_micros() as u64, Relaxed);
    }

    /// Counts a verdict.
    pub fn verdict(&self, spam: bool) {
        self.verdicts[usize::from(spam)].fetch_add(1, Relaxed);
    }

    /// Counts a learned message.
    pub fn learned(&self, spam: bool) {
        self.learns[usize::from(spam)].fetch_add(1, Relaxed);
    }

    /// A connection opened (`true`) or closed.
    pub fn connection(&self, open: bool) {
        if open {
            self.connections.fetch_add(1, Relaxed);
        } else {
            self.connections.fetch_sub(1, Relaxed);
        }
    }

    /// The model's generation (1 for the model the daemon started with).
    pub fn set_generation(&self, g: u64) {
        self.generation.store(g, Relaxed);
    }

    /// Counts a model put in service in place of the last: its generation.
    pub fn next_generation(&self) -> u64 {
        self.generation.fetch_add(1, Relaxed) + 1
    }

    /// The model's generation now (1 until a model is opened again).
    pub fn generation(&self) -> u64 {
        self.generation.load(Relaxed)
    }

    /// Verdicts given (spam, ham) and messages learned (spam, ham) so far.
    pub fn totals(&self) -> ((u64, u64), (u64, u64)) {
        let n = |a: &AtomicU64| a.load(Relaxed);
        (
            (n(&self.verdicts[1]), n(&self.verdicts[0])),
            (n(&self.learns[1]), n(&self.learns[0])),
        )
    }

    /// Every counter in Prometheus' text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let n = |a: &AtomicU64| a.load(Relaxed);
        out.push_str("# HELP rosenblatt_requests_total Requests by protocol and outcome.\n");
        out.push_str("# TYPE rosenblatt_requests_total counter\n");
        for (p, (_, pn)) in PROTOCOLS.iter().enumerate() {
            for (o, (_, on)) in OUTCOMES.iter().enumerate() {
                let v = n(&self.requests[p][o]);
                let _ = writeln!(
                    out,
                    "rosenblatt_requests_total{{protocol=\"{pn}\",outcome=\"{on}\"}} {v}"
                );
            }
        }
        out.push_str("# HELP rosenblatt_verdicts_total Messages judged, by verdict.\n");
        out.push_str("# TYPE rosenblatt_verdicts_total counter\n");
        for (i, name) in ["ham", "spam"].iter().enumerate() {
            let v = n(&self.verdicts[i]);
            let _ = writeln!(out, "rosenblatt_verdicts_total{{verdict=\"{name}\"}} {v}");
        }
        out.push_str("# HELP rosenblatt_learns_total Messages learned, by class.\n");
        out.push_str("# TYPE rosenblatt_learns_total counter\n");
        for (i, name) in ["ham", "spam"].iter().enumerate() {
            let v = n(&self.learns[i]);
            let _ = writeln!(out, "rosenblatt_learns_total{{class=\"{name}\"}} {v}");
        }
        out.push_str(
            "# HELP rosenblatt_request_seconds Time from a request's head to its answer.\n",
        );
        out.push_str("# TYPE rosenblatt_request_seconds histogram\n");
        let mut cumulative = 0;
        for (i, b) in BOUNDS.iter().enumerate() {
            cumulative += n(&self.latency[i]);
            let _ = writeln!(
                out,
                "rosenblatt_request_seconds_bucket{{le=\"{b}\"}} {cumulative}"
            );
        }
        cumulative += n(&self.latency[BOUNDS.len()]);
        let _ = writeln!(
            out,
            "rosenblatt_request_seconds_bucket{{le=\"+Inf\"}} {cumulative}"
        );
        let sum = n(&self.latency_micros) as f64 / 1e6;
        let _ = writeln!(out, "rosenblatt_request_seconds_sum {sum}");
        let _ = writeln!(out, "rosenblatt_request_seconds_count {cumulative}");
        out.push_str("# HELP rosenblatt_open_connections Connections open now.\n");
        out.push_str("# TYPE rosenblatt_open_connections gauge\n");
        let _ = writeln!(out, "rosenblatt_open_connections {}", n(&self.connections));
        out.push_str("# HELP rosenblatt_model_generation The model's generation since start.\n");
        out.push_str("# TYPE rosenblatt_model_generation gauge\n");
        let _ = writeln!(out, "rosenblatt_model_generation {}", n(&self.generation));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_written_as_prometheus_reads_them() {
        let m = Metrics::default();
        m.request(Protocol::Spamd, Outcome::Ok, Duration::from_micros(300));
        m.request(Protocol::Spamd, Outcome::Ok, Duration::from_millis(3));
        m.request(Protocol::Rspamd, Outcome::Busy, Duration::from_secs(2));
        m.verdict(true);
        m.learned(false);
        m.connection(true);
        m.set_generation(1);
        let text = m.render();
        for line in [
            "rosenblatt_requests_total{protocol=\"spamd\",outcome=\"ok\"} 2",
            "rosenblatt_requests_total{protocol=\"rspamd\",outcome=\"busy\"} 1",
            "rosenblatt_verdicts_total{verdict=\"spam\"} 1",
            "rosenblatt_learns_total{class=\"ham\"} 1",
            // 300 µs falls in the 0.0005 bucket; 3 ms in 0.005; 2 s beyond the last.
            "rosenblatt_request_seconds_bucket{le=\"0.00025\"} 0",
            "rosenblatt_request_seconds_bucket{le=\"0.0005\"} 1",
            "rosenblatt_request_seconds_bucket{le=\"0.005\"} 2",
            "rosenblatt_request_seconds_bucket{le=\"1\"} 2",
            "rosenblatt_request_seconds_bucket{le=\"+Inf\"} 3",
            "rosenblatt_request_seconds_count 3",
            "rosenblatt_open_connections 1",
            "rosenblatt_model_generation 1",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} not in\n{text}");
        }
        assert_eq!(m.totals(), ((1, 0), (0, 1)));
    }
}
