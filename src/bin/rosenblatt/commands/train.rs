//! `rosenblatt train`: read labelled documents or mail, fit, print a summary, save the
//! model; optionally evaluate on a seeded held-out part, run k-fold cross-validation, or
//! choose the learner and geometry by cross-validation on the training part (`--tune`).
//! SVMlight rows go to [`super::train_svm`].

use crate::flags::{Source, TrainPlan};
use crate::load;
use crate::progress::Phase;
use anyhow::{Result, bail};
use rosenblatt::input::Document;
use rosenblatt::training;
use std::process::ExitCode;

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
        (Source::Documents(d), _) => {
            let c = load::documents(&d.paths, d.format, d.split, d.detect)?;
            load::require_labels(&c, &d.paths)?;
            c
        }
    };
    let docs = corpus.docs;
    let inputs = plan.source.names();
    if docs.is_empty() {
        let reuters = matches!(&plan.source, Source::Documents(d)
            if d.format == Some(rosenblatt::input::Format::Reuters));
        let hint = if reuters {
            " (ModApte labels documents with the topics that have training and test documents \
             among the files read: give the whole SGML folder rather than one file)"
        } else {
            ""
        };
        bail!("no documents in {}{hint}", inputs.join(" "));
    }
    if training::is_multilabel(&docs) && (plan.holdout.is_some() || plan.cv.is_some()) {
        bail!(
            "--holdout and --cv are for single-label corpora; this one has documents with \
             several labels (or none): train, then run `eval` on a test part"
        );
    }
    plan.check_cv(docs.len(), "documents")?;
    // A held-out part keeps the input's order, so sorted documents stay sorted.
    if plan.no_shuffle && sorted_by_class(&docs) {
        phase.suspend(|| {
            errln!(
                "warning: the training documents arrive sorted by class and --no-shuffle \
                 visits them in that order: the model will lean towards the last class; \
                 drop --no-shuffle to visit them in a seeded random order"
            )
        });
    }
    let job = plan.job(docs.len(), inputs);
    let out = job.run_documents(docs, &|s| phase.set(&super::stage_line(s)))?;
    phase.set("saving");
    crate::model_lock::save(&out.model, &plan.output)?;
    let classes = out.model.classes();
    let spam = match (&out.held_out, classes.iter().position(|c| c == "spam")) {
        (Some(e), Some(s)) if matches!(plan.source, Source::Mail(_)) => {
            Some(e.spam_metrics(s, out.model.threshold()))
        }
        _ => None,
    };
    drop(phase);
    super::train_report(&plan, &out, corpus.skipped.len(), spam)
}

/// Whether the documents come in one block per class (as class folders are read), with at
/// least two classes: the order in which an in-order learner collapses.
fn sorted_by_class(docs: &[Document]) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut last: Option<&[String]> = None;
    for d in docs {
        if last != Some(&d.labels[..]) {
            if !seen.insert(&d.labels[..]) {
                return false;
            }
            last = Some(&d.labels[..]);
        }
    }
    seen.len() >= 2
}
