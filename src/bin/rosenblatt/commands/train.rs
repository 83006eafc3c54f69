//! `rosenblatt train`: read labelled documents or mail, fit, print a summary, save the
//! model; optionally evaluate on a seeded held-out part, run k-fold cross-validation, or
//! choose the learner and geometry by cross-validation on the training part (`--tune`).
//! SVMlight rows go to [`super::train_svm`]. Documents fitted whole (no held-out part,
//! folds or tuning, the default) are read in batches whose text is dropped once tokenized.

use crate::flags::{Documents, Source, TrainPlan};
use crate::load;
use crate::progress::Phase;
use crate::report;
use anyhow::{Result, bail};
use rosenblatt::input::DocStream;
use rosenblatt::input::stream::DEFAULT_BATCH;
use rosenblatt::training::{self, Outcome, TextRows};
use std::process::ExitCode;
use std::time::Instant;

/// Runs `train`.
pub fn run(plan: TrainPlan) -> Result<ExitCode> {
    if let Some(p) = plan.cluster.clone() {
        return super::train_cluster::run(plan, p);
    }
    rosenblatt::atomic::check_output(&plan.output)?;
    plan.check_outputs_apart()?;
    let phase = Phase::start("reading documents");
    // The analyzer's source says how inputs are read: mail parsed under its rules, or text.
    let corpus = match (&plan.source, plan.config.analyzer.source().mail_rules()) {
        (Source::Svmlight(paths, limit), _) => {
            drop(phase);
            return super::train_svm::run(&plan, paths, *limit);
        }
        (Source::Mail(m), Some(rules)) => load::mail_shuffled(&m.spam, &m.ham, rules, plan.seed)?,
        (Source::Mail(_), None) => unreachable!("a mail source has mail rules"),
        (Source::Documents(d), _)
            if plan.holdout.is_none() && plan.cv.is_none() && plan.tune.is_none() =>
        {
            return run_streamed(&plan, d, phase);
        }
        (Source::Documents(d), _) => {
            let c = load::documents(&d.paths, d.format, d.split, d.detect)?;
            load::require_labels(&c, &d.paths)?;
            c
        }
    };
    let docs = corpus.docs;
    let inputs = plan.source.names();
    if docs.is_empty() {
        return Err(no_documents(&plan, &inputs));
    }
    if training::is_multilabel(&docs) && (plan.holdout.is_some() || plan.cv.is_some()) {
        bail!(
            "--holdout and --cv are for single-label corpora; this one has documents with \
             several labels (or none): train, then run `eval` on a test part"
        );
    }
    plan.check_cv(docs.len(), "documents")?;
    warn_if_sorted(&plan, training::sorted_by_class(&docs), &phase);
    let job = plan.job(inputs);
    let out =
        phase.with_epochs(|| job.run_documents(docs, &|s| phase.set(&super::stage_line(s))))?;
    save_and_report(&plan, out, corpus.skipped.len(), phase)
}

/// Trains on documents read `DEFAULT_BATCH` at a time, each batch's text dropped once it
/// is tokenized: the fit of every document needs only their rows and labels, so memory
/// holds the rows, not the text. The model equals the one of the documents held whole.
fn run_streamed(plan: &TrainPlan, d: &Documents, phase: Phase) -> Result<ExitCode> {
    let inputs = plan.source.names();
    let mut skipped = Vec::new();
    let rows = match &plan.cache {
        Some(path) => {
            let reading = reading_of(d);
            if path.exists() {
                phase.set(&format!("reading the row cache {}", path.display()));
                let (analyzer, vocab) = (&plan.config.analyzer, &plan.config.vocab);
                let rows = TextRows::open_cache(path, analyzer, vocab, &d.paths, &reading)?;
                phase.suspend(|| {
                    errln!(
                        "note: training rows read from the cache {} ({} documents); the \
                         inputs are not read again",
                        path.display(),
                        rows.documents()
                    )
                });
                rows
            } else {
                let rows = TextRows::cached_at(&plan.config.analyzer, path, &d.paths, &reading)?;
                read_rows(d, rows, &mut skipped, &phase)?
            }
        }
        None => read_rows(
            d,
            TextRows::with_counts(&plan.config.analyzer, plan.config.term_counts),
            &mut skipped,
            &phase,
        )?,
    };
    if rows.documents() == 0 {
        return Err(no_documents(plan, &inputs));
    }
    warn_if_sorted(plan, rows.sorted_by_class(), &phase);
    let job = plan.job(inputs);
    let out = phase.with_epochs(|| job.run_text(rows, &|s| phase.set(&super::stage_line(s))))?;
    save_and_report(plan, out, skipped.len(), phase)
}

/// How `d` is read, in the flags' words, for a row cache's stamp and its refusal: the
/// format (given or detected) and the Reuters part.
fn reading_of(d: &Documents) -> String {
    let format = match d.format {
        Some(f) => format!("--format {}", format!("{f:?}").to_lowercase()),
        None => "each input's format detected".to_string(),
    };
    match d.split {
        Some(s) => format!("{format} --split {}", format!("{s:?}").to_lowercase()),
        None => format,
    }
}

/// Reads the documents of `d` in batches into `rows`; the inputs that could not be read
/// go to `skipped` (and are reported).
fn read_rows(
    d: &Documents,
    mut rows: TextRows,
    skipped: &mut Vec<(String, String)>,
    phase: &Phase,
) -> Result<TextRows> {
    let stream = DocStream::open_detected(&d.paths, d.format, d.split, DEFAULT_BATCH, d.detect)?;
    let start = Instant::now();
    // The next batch is read while this one is tokenized.
    load::read_ahead(stream, |(batch, passed_over)| {
        skipped.extend(passed_over);
        let batch = batch?;
        if let Some(doc) = batch.iter().find(|doc| doc.labels.is_empty()) {
            phase.suspend(|| report::skipped(skipped));
            return Err(load::no_label(&doc.id, &d.paths));
        }
        rows.push(&batch)?;
        phase.set(&reading_line(
            rows.documents(),
            rows.bytes(),
            start.elapsed(),
        ));
        Ok(())
    })?;
    phase.suspend(|| report::skipped(skipped));
    Ok(rows)
}

/// What the spinner shows while documents are read: how many, how much text, how fast.
fn reading_line(docs: usize, bytes: u64, took: std::time::Duration) -> String {
    let secs = took.as_secs_f64().max(1e-3);
    format!(
        "reading documents: {docs} read ({:.0} MB, {:.0} documents/s)",
        bytes as f64 / 1e6,
        docs as f64 / secs
    )
}

/// The refusal of inputs that hold no document, with a hint for a Reuters file alone.
fn no_documents(plan: &TrainPlan, inputs: &[String]) -> anyhow::Error {
    let reuters = matches!(&plan.source, Source::Documents(d)
        if d.format == Some(rosenblatt::input::Format::Reuters));
    let hint = if reuters {
        " (ModApte labels documents with the topics that have training and test documents \
         among the files read: give the whole SGML folder rather than one file)"
    } else {
        ""
    };
    anyhow::anyhow!("no documents in {}{hint}", inputs.join(" "))
}

/// Warns when `--no-shuffle` would visit documents that arrive `sorted` by class in order.
fn warn_if_sorted(plan: &TrainPlan, sorted: bool, phase: &Phase) {
    // A held-out part keeps the input's order, so sorted documents stay sorted.
    if plan.no_shuffle && sorted {
        phase.suspend(|| {
            errln!(
                "warning: the training documents arrive sorted by class and --no-shuffle \
                 visits them in that order: the model will lean towards the last class; \
                 drop --no-shuffle to visit them in a seeded random order"
            )
        });
    }
}

/// Saves the model and prints the summary (`skipped` inputs could not be read).
fn save_and_report(
    plan: &TrainPlan,
    out: Outcome,
    skipped: usize,
    phase: Phase,
) -> Result<ExitCode> {
    phase.set("saving");
    rosenblatt::classifier::lock::save_locked(&out.model, &plan.output)?;
    let classes = out.model.classes();
    let spam = match (&out.held_out, classes.iter().position(|c| c == "spam")) {
        (Some(e), Some(s)) if matches!(plan.source, Source::Mail(_)) => {
            Some(e.spam_metrics(s, out.model.threshold()))
        }
        _ => None,
    };
    drop(phase);
    super::train_report(plan, &out, skipped, spam)
}
