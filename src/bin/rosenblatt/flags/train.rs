//! `rosenblatt train`'s flags and the validated plan they become: the learner built and
//! checked, the vocabulary and experiment settings checked, the inputs' kind decided —
//! all before any file is read.

use super::geometry::{self, GeometryArgs};
use super::inputs::{self, Source};
use super::kernel::KernelArgs;
use super::learner::{self, LearnerArgs};
use super::mail_fields::MailFieldArgs;
use super::schedule::ScheduleArgs;
use super::tune::{self, TuneArgs, TunePlan};
use anyhow::{Result, bail};
use clap::Args;
use rosenblatt::distributed::Processes;
use rosenblatt::features::{GeometrySpec, TermCounts};
use rosenblatt::input::Format;
use rosenblatt::learn::MultiLabelOptions;
use rosenblatt::learn::{AnyLearner, Check, PassiveAggressive};
use rosenblatt::text::Source as TextSource;
use rosenblatt::training::TrainConfig;
use rosenblatt::training::{Holdout, TrainingJob, Tuning, TwoClassText};
use rosenblatt::vocab::VocabConfig;
use std::path::PathBuf;

/// `rosenblatt train`.
#[derive(Debug, Args)]
#[command(
    after_help = "--plot draws the mistakes (updates) of each epoch and their running total, \
with Novikoff's bound (R/γ)² when the learned hyperplane separates the training set (log \
scale), and beside them the training accuracy during each pass; with --tune, the \
cross-validation score of each grid point (mean ± sd over the folds) instead."
)]
// The fields are in the order of `--help`'s headings (Input, Features, Learner,
// Evaluation, Mail, Cluster, Output): each flag group names its heading, and the flags
// declared here name theirs. Every flag's help starts on a line of its own, so that the
// sections read alike.
#[command(next_line_help = true)]
pub struct TrainArgs {
    #[command(flatten)]
    pub corpus: inputs::CorpusArgs,
    #[command(flatten)]
    pub svm: inputs::SvmArgs,
    /// The positive class of a binary problem (default: spam if present, else the second
    /// label in sorted order).
    #[arg(long, help_heading = "Input")]
    pub positive: Option<String>,
    #[command(flatten)]
    pub vocab: inputs::VocabArgs,
    #[command(flatten)]
    pub geometry: GeometryArgs,
    /// What a document's row keeps of each word [default: binary]: whether it occurs, or
    /// (sublinear) its count as 1 + ln tf, read under --weighting and --normalize, for
    /// corpora whose documents repeat their topic words. Recorded in the model, so
    /// classify and eval count words as training did. Text documents only: not with mail
    /// (--spam/--ham), SVMlight rows, --cache or --processes. With --tune, fixes the
    /// grid's term counts (the default grid tries sublinear counts on idf-weighted
    /// unit-length rows beside binary rows).
    #[arg(long, value_enum, value_name = "COUNTS", help_heading = "Features")]
    pub term_counts: Option<geometry::TermCountsArg>,
    #[command(flatten)]
    pub schedule: ScheduleArgs,
    #[command(flatten)]
    pub kernel: KernelArgs,
    #[command(flatten)]
    pub learners: LearnerArgs,
    /// Two classes: call a document the positive class when the log-odds ln(P/(1 − P))
    /// of its probability P are above this. P is calibrated on out-of-fold scores of the
    /// training documents (Platt scaling; a logistic model's own), so 0 is P > 0.5,
    /// 2.197 P > 0.9, 4.595 P > 0.99 [default: ln 9 ≈ 2.197 for spam filters (--spam/
    /// --ham), as a lost wanted message costs more than a spam let through; otherwise the
    /// sign of the score]. A model without a probability (kernel-perceptron, a class of
    /// one document) decides at score 0.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "LOG_ODDS",
        help_heading = "Learner"
    )]
    pub threshold: Option<f32>,
    /// Three classes or more: give a one-vs-rest model whose scores are not
    /// probabilities (perceptron, averaged-perceptron, pa, …) one sigmoid per class,
    /// fitted on out-of-fold scores of five stratified folds (Platt scaling per class), so
    /// that `classify -k` and `eval` give P(class | document), normalised to sum to 1.
    /// Costs five more fits of the model. Two-class models are always calibrated;
    /// logistic and softmax models have probabilities of their own. Not with --processes.
    #[arg(long, help_heading = "Learner")]
    pub calibrate: bool,
    /// Hold out this fraction (seeded) and print the model's evaluation on it; the saved
    /// model is trained on the rest.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "FRACTION",
        help_heading = "Evaluation"
    )]
    pub holdout: Option<f64>,
    /// Also run K-fold cross-validation (seeded) and print each fold's accuracy; each fold's
    /// vocabulary, pruning and idf are its training part's, as a model trained on it has.
    #[arg(long, value_name = "K", help_heading = "Evaluation", value_parser = super::names::whole(2usize), allow_negative_numbers = true)]
    pub cv: Option<usize>,
    #[command(flatten)]
    pub tune: TuneArgs,
    /// Keep the training rows in this file instead of memory, for corpora whose rows do
    /// not fit in it: the documents are tokenized once into the file, and every epoch
    /// reads it back in blocks of rows visited in a seeded random order (blocks and rows
    /// within them shuffled). A later run with the same inputs (every file under a
    /// folder), --max-document-bytes, format, text options and pruning trains from the file
    /// without reading the documents again; one made from other inputs or options (or from
    /// standard input) is refused as stale, saying what changed. Training reads a private
    /// copy of the file (its size again on disk). Documents only (not mail or SVMlight),
    /// without --holdout, --cv, --tune or --processes.
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    pub cache: Option<PathBuf>,
    /// Mail (--spam PATH... --ham PATH...): a spam filter's training messages.
    #[command(flatten)]
    pub mail: inputs::MailInputs,
    #[command(flatten)]
    pub fields: MailFieldArgs,
    /// Train by iterative parameter mixing over W worker threads (timely dataflow): row i
    /// goes to worker i mod W; in each round (one per epoch) every worker runs one epoch
    /// over its rows from the mixed weights, then the weights are mixed, each worker's
    /// weighted by the updates it made (McDonald, Hall and Mann 2010). For the perceptron,
    /// averaged-perceptron, margin-perceptron, pa and logistic (its passes, without early
    /// stopping): two classes, one-vs-rest, and the label models of multi-label input
    /// (whose thresholds are still tuned on folds fitted in one process); not with --tune
    /// or --cv. W = 1 trains the model training without it does.
    #[arg(long, value_name = "W", help_heading = "Cluster", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub workers: Option<usize>,
    #[command(flatten)]
    pub cluster: super::cluster::ClusterArgs,
    /// Where to write the model.
    #[arg(short, long, help_heading = "Output")]
    pub output: PathBuf,
    /// Print the summary as one JSON object.
    #[arg(long, help_heading = "Output")]
    pub json: bool,
    #[command(flatten)]
    pub plot: super::plot::PlotArg,
}

/// What `train` does, checked: where the data is, the training configuration, the
/// experiment around it and where the model goes.
#[derive(Debug, Clone)]
pub struct TrainPlan {
    /// The labelled data.
    pub source: Source,
    /// Where the model is written.
    pub output: PathBuf,
    /// Analyzer, vocabulary pruning and the checked learner.
    pub config: TrainConfig,
    /// Seed of the held-out part and of the folds.
    pub seed: u64,
    /// The fraction to hold out, in (0, 1).
    pub holdout: Option<f64>,
    /// Folds of the cross-validation, at least 2.
    pub cv: Option<usize>,
    /// Whether documents are visited in input order (train warns on class-sorted input).
    pub no_shuffle: bool,
    /// Multi-label settings, used when the corpus has several labels per document.
    pub multilabel: MultiLabelOptions,
    /// Print the summary as JSON.
    pub json: bool,
    /// `--plot`: the chart of the training run.
    pub plot: Option<PathBuf>,
    /// `--tune`: the grid and how it is cross-validated.
    pub tune: Option<TunePlan>,
    /// `--processes`: this process's place among those that train together.
    pub cluster: Option<Processes>,
    /// Whether random mode's rounds default to 10 × the number of documents.
    rounds_per_document: bool,
    /// Two-class text's default PA C (when `--pa-c` is not given) and pruning (when
    /// `--min-df` is not given).
    two_class: TwoClassText,
    /// `--cache`: where the training rows are kept.
    pub cache: Option<PathBuf>,
}

impl TrainPlan {
    /// Refuses a model or chart path that is one of the inputs (or lies in an input
    /// folder), or a chart over the model: the run would destroy what it reads or writes.
    pub fn check_outputs_apart(&self) -> Result<()> {
        let inputs = self.source.paths();
        let inputs_len = inputs.len();
        rosenblatt::atomic::check_not_an_input(&self.output, &inputs)?;
        let mut all = inputs;
        all.push(&self.output);
        if let Some(plot) = &self.plot {
            rosenblatt::atomic::check_not_an_input(plot, &all)?;
            all.push(plot);
        }
        if let Some(cache) = &self.cache {
            check_cache_path(cache, &all[inputs_len..])?;
            check_cache_inputs(cache, &all[..inputs_len])?;
            rosenblatt::atomic::check_not_an_input(cache, &all)?;
        }
        Ok(())
    }

    /// The training job this plan asks for over inputs named `inputs`: the held-out
    /// part, the folds and the grid, random mode's draws per document, and the multi-label
    /// thresholds (whose default folds the library fits to the learner and the corpus).
    pub fn job(&self, inputs: Vec<String>) -> TrainingJob {
        TrainingJob {
            config: self.config.clone(),
            holdout: self.holdout.map(|fraction| Holdout {
                fraction,
                seed: self.seed,
            }),
            cv: self.cv.map(|k| (k, self.seed)),
            tune: self.tune.clone().map(|t| Tuning {
                points: t.points,
                options: t.options,
                describe: super::tune::options_of,
                nb_on_two_classes: t.nb_on_two_classes,
            }),
            multilabel: self.multilabel,
            rounds_per_document: self.rounds_per_document,
            two_class: self.two_class,
            inputs,
        }
    }

    /// Refuses `--cv K` over fewer than K documents (or rows: `what`), in terms of the
    /// flag; the training job makes the folds.
    pub fn check_cv(&self, n: usize, what: &str) -> Result<()> {
        if let Some(k) = self.cv
            && n < k
        {
            bail!("--cv {k}: only {n} {what}");
        }
        Ok(())
    }
}

/// Turns `train`'s flags into a plan; every flag rule of `train` is checked here.
pub fn plan(a: TrainArgs) -> Result<TrainPlan> {
    let s = &a.schedule;
    let counts = a.term_counts.map(TermCounts::from);
    let mut tune = tune::plan(
        &a.tune,
        s,
        &a.kernel,
        &a.learners,
        &a.geometry,
        a.cv,
        a.vocab.features.ngrams.map(|n| n as usize),
        counts,
    )?;
    // Text and mail start from the library's configurations: the flags change them.
    let mail = a.mail.is_set();
    let base = if mail {
        TrainConfig::spam_filter()
    } else {
        TrainConfig::default()
    };
    // With --tune the grid's learners are built instead, and the flags are checked there.
    let learner = if tune.is_some() {
        AnyLearner::from_name("averaged-perceptron").expect("a library name")
    } else {
        learner::learner(s, &a.kernel, &a.learners, Some(&base.learner))?
    };
    if let Some(h) = a.holdout
        && !(h > 0.0 && h < 1.0)
    {
        bail!("--holdout must be a fraction between 0 and 1, got {h}");
    }
    if a.cv.is_some_and(|k| k < 2) {
        bail!("--cv needs at least 2 folds");
    }
    let vocab = a.vocab.config(base.vocab)?;
    if let Some(t) = a.threshold.filter(|t| !t.is_finite()) {
        bail!("--threshold must be a number, got {t}");
    }
    let options = learner.describe();
    let default_analyzer = base.analyzer;
    let analyzer = a
        .vocab
        .analyzer(&match a.fields.rules_for(mail, &default_analyzer)? {
            Some(rules) => default_analyzer.with_source(TextSource::Mail(rules)),
            None => default_analyzer,
        })?;
    let learner = learner.check()?;
    if let Some(w) = a.workers {
        if w == 0 {
            bail!("--workers must be at least 1");
        }
        if tune.is_some() {
            bail!("--workers trains one configuration; --tune chooses one first: run them apart");
        }
        if a.cv.is_some() {
            bail!("--cv fits its folds with one learner each; it does not run with --workers");
        }
        rosenblatt::learn::mixing::check_mixable(&learner)?;
    }
    let cluster = a.cluster.plan()?;
    if cluster.is_some() {
        let alone = [
            (a.workers.is_some(), "--workers"),
            (tune.is_some(), "--tune"),
            (a.cv.is_some(), "--cv"),
            (a.holdout.is_some(), "--holdout"),
        ];
        if let Some((_, flag)) = alone.iter().find(|(given, _)| *given) {
            bail!(
                "{flag} does not run with --processes: train over processes, then evaluate \
                 the model on a test part"
            );
        }
        rosenblatt::learn::mixing::check_mixable(&learner)?;
    }
    inputs::check_split(a.corpus.input.split, a.corpus.input.format)?;
    let max_feature_id = a.svm.limit()?;
    let source = if mail {
        if a.mail.spam.is_empty() || a.mail.ham.is_empty() {
            bail!("a spam filter learns from both: give --spam PATH... and --ham PATH...");
        }
        if a.positive.as_deref().is_some_and(|p| p != "spam") {
            bail!(
                "a spam filter's positive class is spam (its P(spam) > 0.9 decision keeps \
                 wanted mail safe); leave out --positive"
            );
        }
        Source::Mail(a.mail.plan())
    } else if inputs::is_svm(&a.corpus.inputs, a.corpus.input.format, Format::detect)? {
        if a.vocab.is_set() {
            bail!("{}", inputs::VOCAB_ON_VECTORS);
        }
        if a.tune.tune_ngrams.iter().any(|&n| n != 1) {
            bail!("--tune-ngrams makes n-grams of words: SVMlight rows have no words");
        }
        if cluster.is_some() {
            bail!("--processes reads documents or mail; SVMlight rows train in one process");
        }
        Source::Svmlight(a.corpus.inputs, max_feature_id)
    } else {
        Source::Documents(a.corpus.documents())
    };
    if max_feature_id.is_some() && !matches!(source, Source::Svmlight(..)) {
        bail!("{}", inputs::NOT_SVM);
    }
    // Text of two classes trains the default PA with a smaller step and keeps words of
    // one document up to a larger corpus, unless told otherwise (mail filters keep theirs;
    // vectors keep C = 1 and have no words: the rules were measured on text).
    let text = matches!(source, Source::Documents(_));
    let two_class = TwoClassText {
        c: (text
            && tune.is_none()
            && a.learners.pa_c.is_none()
            && matches!(*learner, AnyLearner::PassiveAggressive(_)))
        .then_some(PassiveAggressive::TWO_CLASS_TEXT_C),
        singletons_from: (text && a.vocab.min_df.is_none())
            .then_some(VocabConfig::TWO_CLASS_SINGLETONS_FROM),
    };
    a.geometry
        .check_nb(cluster.is_some().then_some("--processes"))?;
    if a.calibrate && cluster.is_some() {
        bail!(
            "--calibrate does not apply with --processes: the calibration's folds are fitted \
             in one process; train without --processes, or leave out --calibrate"
        );
    }
    if a.cache.is_some() {
        check_cache(&a.holdout, a.cv, &source, tune.is_some(), cluster.is_some())?;
    }
    check_counts(counts, &source, a.cache.is_some(), cluster.is_some())?;
    // The grid counts words of text only: mail filters and vectors keep binary rows.
    if !matches!(source, Source::Documents(_))
        && let Some(t) = &mut tune
    {
        t.points.retain(|p| !p.spec.counts.counted());
    }
    let config = TrainConfig {
        analyzer,
        vocab,
        options,
        learner,
        positive: a.positive.clone(),
        // SVMlight rows keep the values they carry.
        geometry: a.geometry.spec(match source {
            Source::Svmlight(..) => GeometrySpec::default(),
            _ => base.geometry,
        }),
        term_counts: counts.unwrap_or_default(),
        workers: a.workers,
        threshold: a.threshold.or(base.threshold),
        calibrate: a.calibrate,
    };
    Ok(TrainPlan {
        source,
        output: a.output,
        config,
        seed: s.seed,
        holdout: a.holdout,
        cv: a.cv,
        no_shuffle: a.learners.no_shuffle,
        multilabel: a.learners.multilabel(s.seed),
        json: a.json,
        plot: a.plot.checked()?,
        tune,
        cluster,
        rounds_per_document: s.random() && s.rounds.is_none(),
        two_class,
        cache: a.cache,
    })
}

/// Refuses `--term-counts sublinear` where rows cannot keep counts: mail (a filter reads
/// and learns a message's words once each), SVMlight rows (values as given), a row cache
/// and training over processes (both keep binary rows).
fn check_counts(
    counts: Option<TermCounts>,
    source: &Source,
    cache: bool,
    cluster: bool,
) -> Result<()> {
    if !counts.is_some_and(|c| c.counted()) {
        return Ok(());
    }
    let what = match source {
        Source::Mail(_) => {
            Some("a spam filter (--spam/--ham), which reads and learns a message's words once each")
        }
        Source::Svmlight(..) => Some("SVMlight rows, whose values are read as given"),
        Source::Documents(_) if cache => Some("--cache, whose rows are binary"),
        Source::Documents(_) if cluster => Some("--processes, whose shares exchange binary rows"),
        Source::Documents(_) => None,
    };
    match what {
        Some(what) => {
            bail!("--term-counts sublinear counts the words of text documents; not with {what}")
        }
        None => Ok(()),
    }
}

/// Refuses a `--cache` path that is a folder or something else than a file, or that is
/// also one of the run's `outputs` (the model, the chart), existing or not: the output
/// would replace the cache.
fn check_cache_path(cache: &std::path::Path, outputs: &[&std::path::Path]) -> Result<()> {
    if let Ok(meta) = std::fs::metadata(cache) {
        if meta.is_dir() {
            bail!(
                "--cache {}: is a folder; a row cache is a file: give the path of a file \
                 (one that `train --cache` wrote, or one it will write)",
                cache.display()
            );
        }
        rosenblatt::atomic::check_output(cache)?;
    }
    let target = rosenblatt::atomic::real_target(cache)?;
    for out in outputs {
        if rosenblatt::atomic::real_target(out).is_ok_and(|t| t == target) {
            bail!(
                "--cache {} is also where {} is written: the one would replace the other; \
                 give the cache another path",
                cache.display(),
                out.display()
            );
        }
    }
    Ok(())
}

/// Refuses a row cache that no later run could reuse: one of standard input (whose
/// documents cannot be checked again), or one written inside an input folder (it would
/// change the folder it is the cache of).
fn check_cache_inputs(cache: &std::path::Path, inputs: &[&std::path::Path]) -> Result<()> {
    if inputs.iter().any(|p| p.as_os_str() == "-") {
        bail!(
            "--cache {}: standard input (-) cannot be checked again by a later run, so its              rows cannot be reused: save the documents to a file and train from it",
            cache.display()
        );
    }
    let target = rosenblatt::atomic::real_target(cache)?;
    for input in inputs {
        let Ok(folder) = std::fs::canonicalize(input) else {
            continue;
        };
        if folder.is_dir() && target.starts_with(&folder) {
            bail!(
                "--cache {}: lies in the input folder {}, which it would change: give the                  cache a path outside it",
                cache.display(),
                input.display()
            );
        }
    }
    Ok(())
}

/// Refuses `--cache` where the rows are not a document corpus fitted whole.
fn check_cache(
    holdout: &Option<f64>,
    cv: Option<usize>,
    source: &Source,
    tune: bool,
    cluster: bool,
) -> Result<()> {
    if !matches!(source, Source::Documents(_)) {
        bail!(
            "--cache keeps the rows of documents; mail and SVMlight rows are read into \
             memory: leave out --cache"
        );
    }
    let alone = [
        (holdout.is_some(), "--holdout"),
        (cv.is_some(), "--cv"),
        (tune, "--tune"),
        (cluster, "--processes"),
    ];
    if let Some((_, flag)) = alone.iter().find(|(given, _)| *given) {
        bail!(
            "--cache trains one model on every document; {flag} needs the documents in \
             memory: run it without --cache"
        );
    }
    Ok(())
}
