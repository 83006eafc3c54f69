//! `rosenblatt bench`: sparse update throughput on a corpus, an SVMlight file or
//! synthetic Zipf-shaped rows — per phase, learner and thread count — with peak memory.
//!
//! Phases: `vectorize` (corpus input: tokenize + build the vocabulary + rows, text MB/s),
//! `train` (each learner; nonzeros visited per second, updates per second, CSR MB/s), and
//! `predict` (parallel scoring of every row). Every figure is wall-clock time of that phase
//! alone, measured in this process; compare ratios taken in one run.

use crate::flags::{BenchData, BenchPlan};
use crate::load;
use anyhow::{Context, Result, bail};
use rosenblatt::eval::scores;
use rosenblatt::features::svmlight::{DEFAULT_MAX_FEATURE_ID, Rows, read_svmlight_limited};
use rosenblatt::features::synthetic::zipf_rows;
use rosenblatt::features::{BinaryMatrix, SparseRows, StreamVectorizer};
use rosenblatt::learn::{Label, Learner};
use rosenblatt::text::Analyzer;
use rosenblatt::training::{binary_labels, class_indices, classes_of};
use rosenblatt::vocab::VocabConfig;
use std::process::ExitCode;
use std::time::Instant;

/// One timed phase.
struct Row {
    phase: &'static str,
    learner: String,
    threads: usize,
    seconds: f64,
    docs: f64,
    nnz: f64,
    updates: Option<u64>,
    bytes: f64,
}

/// A thread pool of `threads` threads.
fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting threads")
}

/// Peak resident memory of this process (Linux `VmHWM`), in bytes.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn csr_bytes<X: SparseRows>(x: &X) -> f64 {
    (4 * x.nnz() + 8 * x.n_rows()) as f64
}

/// Times every learner (train, then predict at each thread count) on rows `x`.
fn time_learners<X: SparseRows>(
    a: &BenchPlan,
    x: &X,
    y: &[Label],
    out: &mut Vec<Row>,
) -> Result<()> {
    for l in &a.learners {
        let t = Instant::now();
        let fit = l.fit(x, y)?;
        let secs = t.elapsed().as_secs_f64();
        let epochs = fit.report.epochs.max(1) as f64;
        out.push(Row {
            phase: "train",
            learner: l.name().to_string(),
            threads: 1,
            seconds: secs,
            docs: fit.report.steps as f64,
            nnz: epochs * x.nnz() as f64,
            updates: Some(fit.report.updates),
            bytes: epochs * csr_bytes(x),
        });
        for &th in &a.threads {
            let p = pool(th)?;
            let t = Instant::now();
            let s = p.install(|| scores(&fit.model, x));
            let secs = t.elapsed().as_secs_f64();
            assert_eq!(s.len(), x.n_rows());
            out.push(Row {
                phase: "predict",
                learner: l.name().to_string(),
                threads: th,
                seconds: secs,
                docs: x.n_rows() as f64,
                nnz: x.nnz() as f64,
                updates: None,
                bytes: csr_bytes(x),
            });
        }
    }
    Ok(())
}

/// The ±1 labels of a corpus: its positive class against the rest.
fn corpus_labels(labels: &[Vec<String>]) -> Result<Vec<Label>> {
    let docs: Vec<rosenblatt::input::Document> = labels
        .iter()
        .map(|l| rosenblatt::input::Document {
            labels: l.iter().take(1).cloned().collect(),
            ..Default::default()
        })
        .collect();
    let classes = classes_of(&docs, None)?;
    Ok(binary_labels(&class_indices(&docs, &classes)?, 1))
}

/// Runs `bench`.
pub fn run(a: BenchPlan) -> Result<ExitCode> {
    let mut out = Vec::new();
    let source;
    match &a.data {
        &BenchData::Synthetic {
            rows,
            features,
            nnz,
            seed,
        } => {
            let (x, y) = zipf_rows(rows, features, nnz, seed);
            source = format!(
                "synthetic Zipf rows: {} rows, {} features, {} nonzeros",
                x.n_rows(),
                x.n_cols(),
                x.nnz()
            );
            time_learners(&a, &x, &y, &mut out)?;
        }
        BenchData::Svmlight(path, limit) => {
            let t = Instant::now();
            let data = read_svmlight_limited(path, limit.unwrap_or(DEFAULT_MAX_FEATURE_ID))?;
            let secs = t.elapsed().as_secs_f64();
            let bytes = std::fs::metadata(path)
                .map(|m| m.len() as f64)
                .unwrap_or(0.0);
            out.push(Row {
                phase: "parse",
                learner: "-".into(),
                threads: 1,
                seconds: secs,
                docs: data.labels.len() as f64,
                nnz: data.rows.nnz() as f64,
                updates: None,
                bytes,
            });
            let y = corpus_labels(
                &data
                    .labels
                    .iter()
                    .map(|l| vec![l.clone()])
                    .collect::<Vec<_>>(),
            )?;
            source = format!(
                "{}: {} rows, {} nonzeros",
                path.display(),
                data.rows.n_rows(),
                data.rows.nnz()
            );
            match &data.rows {
                Rows::Binary(x) => time_learners(&a, x, &y, &mut out)?,
                Rows::Real(x) => time_learners(&a, x, &y, &mut out)?,
            }
        }
        BenchData::Corpus(d) => {
            let corpus = load::documents(&d.paths, d.format, d.split, d.detect)?;
            let docs = corpus.docs;
            if docs.is_empty() {
                bail!("no documents in the input");
            }
            let text: f64 = docs.iter().map(|d| d.text.len() as f64).sum();
            let mut x: Option<BinaryMatrix> = None;
            for &th in &a.threads {
                let p = pool(th)?;
                let t = Instant::now();
                let (_, m) = p.install(|| {
                    let mut s = StreamVectorizer::new(Analyzer::default());
                    s.push(&docs);
                    s.finish(&VocabConfig::every_word())
                });
                let secs = t.elapsed().as_secs_f64();
                out.push(Row {
                    phase: "vectorize",
                    learner: "-".into(),
                    threads: th,
                    seconds: secs,
                    docs: docs.len() as f64,
                    nnz: m.nnz() as f64,
                    updates: None,
                    bytes: text,
                });
                x = Some(m);
            }
            let x = x.expect("at least one thread count");
            let labels: Vec<Vec<String>> = docs.iter().map(|d| d.labels.clone()).collect();
            let y = corpus_labels(&labels)?;
            source = format!(
                "{} documents, {:.1} MB of text, {} nonzeros",
                docs.len(),
                text / 1e6,
                x.nnz()
            );
            time_learners(&a, &x, &y, &mut out)?;
        }
    }
    print(&a, &source, &out)?;
    if let Some(file) = &a.plot {
        let timed: Vec<crate::plot::bench::Timed> = out
            .iter()
            .map(|r| crate::plot::bench::Timed {
                learner: r.learner.clone(),
                phase: r.phase,
                threads: r.threads,
                nnz_per_second: r.nnz / r.seconds,
            })
            .collect();
        crate::plot::bench::draw(file, &source, &timed)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the timed phases as a table or JSON lines, with the peak memory.
fn print(a: &BenchPlan, source: &str, rows: &[Row]) -> std::io::Result<()> {
    let peak = peak_memory();
    if a.json {
        for r in rows {
            let v = serde_json::json!({
                "phase": r.phase, "learner": r.learner, "threads": r.threads, "seconds": r.seconds,
                "docs_per_s": r.docs / r.seconds, "nnz_per_s": r.nnz / r.seconds,
                "updates_per_s": r.updates.map(|u| u as f64 / r.seconds), "mb_per_s": r.bytes / r.seconds / 1e6,
            });
            outln!("{v}");
        }
        outln!(
            "{}",
            serde_json::json!({"peak_memory_bytes": peak, "source": source})
        );
        return Ok(());
    }
    outln!("{source}");
    outln!(
        "{:<10} {:<20} {:>7} {:>9} {:>12} {:>12} {:>12} {:>9}",
        "phase",
        "learner",
        "threads",
        "seconds",
        "docs/s",
        "updates/s",
        "nnz/s",
        "MB/s"
    );
    for r in rows {
        let updates = r
            .updates
            .map_or("-".to_string(), |u| format!("{:.3e}", u as f64 / r.seconds));
        outln!(
            "{:<10} {:<20} {:>7} {:>9.4} {:>12.0} {:>12} {:>12.3e} {:>9.1}",
            r.phase,
            r.learner,
            r.threads,
            r.seconds,
            r.docs / r.seconds,
            updates,
            r.nnz / r.seconds,
            r.bytes / r.seconds / 1e6
        );
    }
    match peak {
        Some(b) => outln!("peak memory {:.1} MiB", b as f64 / (1u64 << 20) as f64),
        None => outln!("peak memory n/a"),
    }
    outln!(
        "(MB/s: text for vectorize and parse, CSR bytes — 4 per nonzero + 8 per row — for train and predict)"
    );
    Ok(())
}
