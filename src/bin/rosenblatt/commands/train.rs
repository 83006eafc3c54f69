//! `rosenblatt train`: read labelled documents or mail, fit, print a summary, save the
//! model; optionally evaluate on a seeded held-out part, run k-fold cross-validation, or
//! choose the learner and geometry by cross-validation on the training part (`--tune`).
//! SVMlight rows go to [`super::train_svm`].

use crate::flags::{Source, TrainPlan};
use crate::load;
use crate::progress::Phase;
use crate::report::{self, TrainSummary};
use anyhow::{Context, Result, bail};
use rosenblatt::eval::{Metrics, SpamMetrics};
use rosenblatt::experiment::holdout;
use rosenblatt::input::Document;
use rosenblatt::model::Model;
use rosenblatt::pipeline;
use std::collections::HashSet;
use std::process::ExitCode;

/// Runs `train`.
pub fn run(plan: TrainPlan) -> Result<ExitCode> {
    if let Some(p) = plan.cluster.clone() {
        return super::train_cluster::run(plan, p);
    }
    rosenblatt::atomic::check_output(&plan.output)?;
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
        bail!("no documents in {}", inputs.join(" "));
    }
    let cfg = plan.config_for(docs.len())?;
    let multilabel = pipeline::is_multilabel(&docs);
    if multilabel && (plan.holdout.is_some() || plan.cv.is_some()) {
        bail!(
            "--holdout and --cv are for single-label corpora; this one has documents with \
             several labels (or none): train, then run `eval` on a test part"
        );
    }
    let cv = plan.cv_splits(docs.len(), "documents")?;
    // Cross-validation covers every document. With a held-out part the model's rows are
    // the training part's only, so the folds get their own rows, vectorized once here,
    // before the documents are divided between the parts.
    let mut folds = None;
    if let (Some(splits), Some(_)) = (&cv, plan.holdout) {
        phase.set("cross-validating");
        folds = Some(pipeline::cross_validate(&docs, &cfg, splits).context("cross-validation")?);
    }
    let (train_docs, test_docs) = match plan.holdout {
        Some(h) => {
            let (train, test) = holdout(docs.len(), h, plan.seed)?.divide(docs);
            let classes: HashSet<&String> = train.iter().flat_map(|d| &d.labels).collect();
            super::check_holdout(h, classes.len(), train.len(), test.len())?;
            (train, Some(test))
        }
        None => (docs, None),
    };
    if plan.no_shuffle && sorted_by_class(&train_docs) {
        phase.suspend(|| {
            eprintln!(
                "warning: the training documents arrive sorted by class and --no-shuffle \
                 visits them in that order: the model will lean towards the last class; \
                 drop --no-shuffle to visit them in a seeded random order"
            )
        });
    }
    // Tuning sees the training part only: held-out documents were divided off above.
    let (cfg, table) = match plan.tune_for(train_docs.len())? {
        Some(t) => {
            phase.set("tuning");
            let table = pipeline::tune(&train_docs, &cfg, &t.points, t.options, &|p| {
                phase.set(&super::tune_progress(p))
            })
            .context("tuning")?;
            (
                super::tuned_config(&cfg, &t.points[table.best])?,
                Some(table),
            )
        }
        None => (cfg, None),
    };
    phase.set("training");
    let mut trained = if multilabel {
        pipeline::train_multilabel(
            &train_docs,
            &cfg,
            &plan.multilabel_for(train_docs.len()),
            inputs,
        )?
    } else {
        pipeline::train(&train_docs, &cfg, inputs)?
    };
    trained.model.meta_mut().tuning = table;
    phase.set("saving");
    trained.model.save(&plan.output)?;
    let held_out = match &test_docs {
        Some(t) => {
            phase.set("evaluating held-out documents");
            Some(pipeline::evaluate(&trained.model, t)?)
        }
        None => None,
    };
    if let (Some(splits), None) = (&cv, &test_docs) {
        // The training rows are every document's: the folds are views of them.
        phase.set("cross-validating");
        let classes = &trained.model.classes();
        let idx = rosenblatt::training::class_indices(&train_docs, classes)?;
        folds = Some(
            pipeline::cross_validate_rows(&trained.matrix, &idx, classes, &cfg, splits)
                .context("cross-validation")?,
        );
    }
    let spam = match &test_docs {
        Some(t) if matches!(plan.source, Source::Mail(_)) => Some(spam_metrics(&trained.model, t)?),
        _ => None,
    };
    drop(phase);
    let summary = TrainSummary {
        output: &plan.output,
        json: plan.json,
        skipped: corpus.skipped.len(),
        held_out: plan.holdout.zip(held_out).map(|(f, m)| (f, plan.seed, m)),
        spam,
        folds: folds.map(|f| f.iter().map(Metrics::accuracy).collect()),
    };
    report::train_summary(&trained.model, &summary)?;
    if let Some(file) = &plan.plot {
        super::train_chart(file, &trained.model, &plan.source.names())?;
    }
    Ok(ExitCode::SUCCESS)
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

/// Spam-filter figures of `model` on labelled messages.
fn spam_metrics(model: &Model, docs: &[Document]) -> Result<SpamMetrics> {
    let x = pipeline::vectorize_for(model, docs).matrix;
    let scores: Vec<f32> = pipeline::decide(model, &x)
        .iter()
        .map(|d| d.score)
        .collect();
    let truth = rosenblatt::training::class_indices(docs, model.classes())?;
    let is_spam: Vec<bool> = truth
        .iter()
        .map(|&t| model.classes()[t] == "spam")
        .collect();
    Ok(SpamMetrics::new(&scores, &is_spam, model.threshold()))
}
