//! `bench --plot`: sparse throughput — millions of nonzeros visited per second — of each
//! learner's training and of parallel prediction at each thread count, one bar per timed
//! phase.

use super::bars::{self, Bar};
use super::{COLORS, failed, save};
use anyhow::Result;
use std::path::Path;

/// One timed phase as the chart shows it.
pub struct Timed {
    /// The learner (`-` for phases without one: reading, vectorizing).
    pub learner: String,
    /// The phase: `vectorize`, `parse`, `train` or `predict`.
    pub phase: &'static str,
    /// Threads it ran on.
    pub threads: usize,
    /// Nonzeros visited per second.
    pub nnz_per_second: f64,
}

/// Writes the throughput chart of `rows` to `path`; `source` says what data was timed.
pub fn draw(path: &Path, source: &str, rows: &[Timed]) -> Result<()> {
    let fail = failed(path);
    let learners: Vec<&str> = rows.iter().fold(Vec::new(), |mut v, r| {
        if r.learner != "-" && !v.contains(&r.learner.as_str()) {
            v.push(&r.learner);
        }
        v
    });
    let color = |r: &Timed| match r.phase {
        "train" => COLORS[0],
        "predict" => COLORS[1],
        _ => COLORS[2],
    };
    let bars: Vec<Bar> = rows
        .iter()
        .map(|r| Bar {
            label: format!(
                "{}{}, {} thread{}",
                if r.learner == "-" {
                    String::new()
                } else {
                    format!("{} ", r.learner)
                },
                r.phase,
                r.threads,
                if r.threads == 1 { "" } else { "s" }
            ),
            value: r.nnz_per_second / 1e6,
            color: color(r),
        })
        .collect();
    let longest = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(10) as i32;
    let note = format!(
        "{source}; {} learner(s), one bar per phase and thread count (train runs on 1 thread)",
        learners.len()
    );
    save(
        path,
        "Sparse throughput by learner and thread count",
        &note,
        |area| {
            bars::draw(
                area,
                &bars,
                (7 * longest).clamp(60, 300),
                "million nonzeros visited per second (more is faster)",
                &|v| format!("{v:.1}"),
                &fail,
            )
        },
    )
}
