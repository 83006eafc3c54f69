//! `rosenblatt train`: read labelled documents, fit, print a summary, save the model;
//! optionally evaluate on a seeded held-out part and run k-fold cross-validation.

use crate::args::{Mode, TrainArgs};
use crate::load::read_inputs_part;
use crate::progress::Phase;
use anyhow::{Context, Result, bail};
use rosenblatt::eval::Metrics;
use rosenblatt::experiment::{Split, holdout, kfold};
use rosenblatt::input::{Document, Format};
use rosenblatt::learn::{AnyLearner, Check, KernelPerceptron, Perceptron, Schedule};
use rosenblatt::pipeline::{self, TrainConfig};
use rosenblatt::text::{Analyzer, Source};
use rosenblatt::theory::Theory;
use rosenblatt::vocab::VocabConfig;
use std::process::ExitCode;

/// Turns the flags into a validated training plan before any file is read.
fn config(a: &TrainArgs) -> Result<TrainConfig> {
    let learner = crate::learner_flags::learner(a)?;
    if let Some(h) = a.holdout
        && !(h > 0.0 && h < 1.0)
    {
        bail!("--holdout must be a fraction between 0 and 1, got {h}");
    }
    if a.cv.is_some_and(|k| k < 2) {
        bail!("--cv needs at least 2 folds");
    }
    let vocab = VocabConfig {
        min_df: a.min_df,
        max_features: a.max_features,
    };
    vocab.validate()?;
    Ok(TrainConfig {
        analyzer: Analyzer::standard(
            if a.mail.is_set() {
                Source::mail()
            } else {
                Source::Text
            },
            !a.keep_case,
        ),
        vocab,
        options: match crate::kernel_flags::describe(&learner) {
            Some(k) => format!("{}, {k}", options_string(a)),
            None => crate::learner_flags::describe(&learner).unwrap_or_else(|| options_string(a)),
        },
        learner: learner.check()?,
        positive: a.positive.clone(),
    })
}

fn options_string(a: &TrainArgs) -> String {
    let order = match a.shuffle() {
        Some(seed) => format!("shuffled (seed {seed})"),
        None => "in input order".to_string(),
    };
    let mode = match a.mode {
        Mode::Online => format!("online, {order}"),
        Mode::Batch => format!("batch, {} epochs, {order}", a.epochs),
        Mode::Converge => format!("until convergence, at most {} epochs, {order}", a.epochs),
        Mode::Random => format!("random, seed {}", a.seed),
    };
    format!("{mode}, eta {}, bias {:?}", a.eta, a.bias).to_lowercase()
}

/// Random mode's default rounds depend on the corpus size: without `--rounds`, 10 draws
/// per document, set once the `n` documents are read (the learner is checked again).
pub(crate) fn with_rounds(a: &TrainArgs, mut cfg: TrainConfig, n: usize) -> Result<TrainConfig> {
    if a.mode != Mode::Random || a.rounds.is_some() {
        return Ok(cfg);
    }
    let mut learner = cfg.learner.into_inner();
    if let AnyLearner::Perceptron(Perceptron { schedule, .. })
    | AnyLearner::KernelPerceptron(KernelPerceptron { schedule, .. }) = &mut learner
        && let Schedule::Randomized { rounds, .. } = schedule
    {
        *rounds = 10 * n as u64;
    }
    cfg.learner = learner.check()?;
    Ok(cfg)
}

/// The seeded folds of `--cv K` over `n` documents (or rows: `what`).
pub(crate) fn cv_splits(k: usize, n: usize, seed: u64, what: &str) -> Result<Vec<Split>> {
    if n < k {
        bail!("--cv {k}: only {n} {what}");
    }
    Ok(kfold(n, k, seed)?)
}

/// Runs `train`.
pub fn run(a: TrainArgs) -> Result<ExitCode> {
    let cfg = config(&a)?;
    if !a.mail.is_set() && crate::svm::is_svm(&a.inputs, a.input.format, Format::detect)? {
        return crate::svm::train(&a, cfg);
    }
    let phase = Phase::start("reading documents");
    // The analyzer's source says how inputs are read: mail parsed under its rules, or text.
    let corpus = match cfg.analyzer.source().mail_rules() {
        Some(rules) => a.mail.read_for_training(rules, a.seed)?,
        None => read_inputs_part(&a.inputs, a.input.format, a.input.split, Format::detect)?,
    };
    let docs = corpus.docs;
    let inputs: Vec<String> = a.mail.names(&a.inputs);
    if docs.is_empty() {
        bail!("no documents in {}", inputs.join(" "));
    }
    let cfg = with_rounds(&a, cfg, docs.len())?;
    let multilabel = pipeline::is_multilabel(&docs);
    if multilabel && (a.holdout.is_some() || a.cv.is_some()) {
        bail!(
            "--holdout and --cv are for single-label corpora; this one has documents with \
             several labels (or none): train, then run `eval` on a test part"
        );
    }
    let cv =
        a.cv.map(|k| cv_splits(k, docs.len(), a.seed, "documents"))
            .transpose()?;
    // Cross-validation covers every document. With a held-out part the model's rows are
    // the training part's only, so the folds get their own rows, vectorized once here,
    // before the documents are divided between the parts.
    let mut folds = None;
    if let (Some(splits), Some(_)) = (&cv, a.holdout) {
        phase.set("cross-validating");
        folds = Some(pipeline::cross_validate(&docs, &cfg, splits).context("cross-validation")?);
    }
    let (train_docs, test_docs) = match a.holdout {
        Some(h) => {
            let (train, test) = holdout(docs.len(), h, a.seed)?.divide(docs);
            (train, Some(test))
        }
        None => (docs, None),
    };
    if a.learners.no_shuffle && sorted_by_class(&train_docs) {
        phase.suspend(|| {
            eprintln!(
                "warning: the training documents arrive sorted by class and --no-shuffle \
                 visits them in that order: the model will lean towards the last class; \
                 drop --no-shuffle to visit them in a seeded random order"
            )
        });
    }
    phase.set("training");
    let trained = if multilabel {
        let opt = a.learners.multilabel(a.seed);
        pipeline::train_multilabel(&train_docs, &cfg, &opt, inputs)?
    } else {
        pipeline::train(&train_docs, &cfg, inputs)?
    };
    phase.set("saving");
    trained.model.save(&a.output)?;
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
        let classes = &trained.model.classes;
        let idx = pipeline::class_indices(&train_docs, classes)?;
        folds = Some(
            pipeline::cross_validate_rows(&trained.matrix, &idx, classes, &cfg, splits)
                .context("cross-validation")?,
        );
    }
    let spam = match &test_docs {
        Some(t) if a.mail.is_set() => Some(crate::mail::spam_metrics(&trained.model, t)?),
        _ => None,
    };
    drop(phase);
    let accuracies = folds.map(|f| f.iter().map(Metrics::accuracy).collect::<Vec<f64>>());
    print_summary(
        &a,
        &trained.model,
        corpus.skipped.len(),
        held_out.as_ref(),
        accuracies.as_deref(),
        spam.as_ref(),
    );
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

/// Prints the theory diagnostics (also used by `inspect`).
pub fn print_theory(t: &Theory) {
    println!("radius R       {:.4}", t.radius);
    println!(
        "margin         functional {:.4}, geometric {:.6}",
        t.functional_margin, t.geometric_margin
    );
    println!("separated      {}", if t.separated { "yes" } else { "no" });
    match (t.novikoff_bound, t.updates) {
        (Some(b), Some(k)) => println!("(R/γ)² bound   {b:.1} (updates k = {k})"),
        (Some(b), None) => println!("(R/γ)² bound   {b:.1}"),
        _ => println!("(R/γ)² bound   – (training set not separated by the learned hyperplane)"),
    }
}

pub(crate) fn print_summary(
    a: &TrainArgs,
    m: &rosenblatt::model::SavedModel,
    skipped: usize,
    held_out: Option<&Metrics>,
    folds: Option<&[f64]>,
    spam: Option<&rosenblatt::eval::SpamMetrics>,
) {
    let meta = &m.meta;
    if a.json {
        let mut v = serde_json::json!({
            "model": a.output.display().to_string(),
            "documents": meta.documents,
            "skipped": skipped,
            "classes": m.classes,
            "vocabulary": m.vocab.len(),
            "nonzeros": meta.nnz,
            "learner": meta.learner,
            "options": meta.options,
            "epochs": meta.report.epochs,
            "updates": meta.report.updates,
            "converged": meta.report.converged,
            "training_accuracy": meta.training_accuracy,
            "seconds": meta.seconds,
            "fit_seconds": meta.fit_seconds,
            "theory": meta.theory,
        });
        if let Some(h) = held_out {
            v["held_out"] = h.to_json();
        }
        if let (Some(s), Some(o)) = (spam, v["held_out"].as_object_mut()) {
            o.extend(s.to_json().as_object().cloned().unwrap_or_default());
        }
        if let Some(f) = folds {
            v["cv_accuracy"] = serde_json::json!(f);
        }
        println!("{v}");
        return;
    }
    println!("documents      {} ({} skipped)", meta.documents, skipped);
    println!("classes        {}", m.classes.join(", "));
    match m.features {
        rosenblatt::model::FeatureSpace::Indexed { n_features } => {
            println!("features       {n_features} (SVMlight ids)")
        }
        rosenblatt::model::FeatureSpace::Text => {
            println!("vocabulary     {} words", m.vocab.len())
        }
    }
    println!("nonzeros       {}", meta.nnz);
    println!("learner        {} ({})", meta.learner, meta.options);
    if let Some((n, kernel)) = crate::kernel_flags::support_summary(&m.predictor) {
        println!("support vecs   {n} ({kernel})");
    }
    println!("epochs         {}", meta.report.epochs);
    println!("updates k      {}", meta.report.updates);
    if let Some(c) = meta.report.converged {
        println!("converged      {}", if c { "yes" } else { "no" });
    }
    println!("training acc   {:.4}", meta.training_accuracy);
    if let Some(t) = &meta.theory {
        print_theory(t);
    }
    println!(
        "time           {:.3} s (fitting {:.3} s)",
        meta.seconds, meta.fit_seconds
    );
    println!("model          {}", a.output.display());
    if let (Some(h), Some(frac)) = (held_out, a.holdout) {
        println!(
            "\nheld-out evaluation ({:.0}% of the documents, seed {}):",
            frac * 100.0,
            a.seed
        );
        if let Some(s) = spam {
            println!("{}", s.to_text());
        }
        print!("{}", h.to_text());
    }
    if let Some(f) = folds {
        let mean = f.iter().sum::<f64>() / f.len() as f64;
        let fs: Vec<String> = f.iter().map(|x| format!("{x:.4}")).collect();
        println!(
            "\n{}-fold cross-validation accuracy: mean {mean:.4} ({})",
            f.len(),
            fs.join(" ")
        );
    }
}
