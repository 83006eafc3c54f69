//! `train --tune`'s flags and the grid they make: the library's default grid with every
//! dimension that a flag fixes taken out, and each point's learner built through the
//! same flags as a plain `train` (so `--seed`, `--bias`, `--positive-weight` … apply to
//! every point that takes them).

use super::geometry::GeometryArgs;
use super::kernel::KernelArgs;
use super::learner::{self, LearnerArgs};
use super::schedule::ScheduleArgs;
use anyhow::{Result, bail};
use clap::Args;
use rosenblatt::experiment::{Constant, Grid, GridPoint, LearnerChoice, PointSpec, TuneOptions};
use rosenblatt::features::TermCounts;
use rosenblatt::learn::{AnyLearner, Check};
use std::time::Duration;

/// The flags of `train --tune`.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Evaluation")]
pub struct TuneArgs {
    /// Choose the learner, its main constant, the weighting and the normalization (and
    /// the n-gram order, with --tune-ngrams) by K-fold cross-validation (stratified, seeded by --seed) on the training documents
    /// only — never on --holdout documents — then train the winner on all of them. The
    /// grid: pa --average (--pa-c 0.1, 1), averaged-perceptron (--epochs 5, 10),
    /// logistic (--l2 1e-5, 1e-4) and svm (--svm-c 1, 3), each on binary rows as stored, on binary unit-length
    /// rows, on idf-weighted unit-length rows, on sublinear term counts under idf and l2
    /// (--term-counts sublinear; text documents only) and, on a corpus of two classes,
    /// with naive-Bayes weights in place of idf (--weighting nb); single words, or each
    /// order of --tune-ngrams. --learner, --pa-c, --svm-c, --epochs, --l2, --weighting,
    /// --normalize, --term-counts and --ngrams fix their dimension; other learner flags keep the learners that take them. Points
    /// are scored by accuracy; spam filters (and --threshold) by ROC AUC, as they decide
    /// at a calibrated probability; multi-label corpora by micro-F1 (thresholds tuned
    /// inside each fold on a quarter of its training rows). The table is printed and kept in the
    /// model (see inspect).
    #[arg(long)]
    pub tune: bool,
    /// Word n-gram orders --tune tries, each with every other point of the grid (e.g.
    /// 1,2,3: single words, then pairs, then triples; each order costs a vectorizing of
    /// the corpus and a grid's fits) [default: --ngrams, or 1].
    #[arg(
        long,
        value_name = "N,N...",
        value_delimiter = ',',
        value_parser = super::names::whole(1usize),
        allow_negative_numbers = true
    )]
    pub tune_ngrams: Vec<usize>,
    /// Folds of --tune's cross-validation [default: 5].
    #[arg(long, value_name = "K", value_parser = super::names::whole(2usize), allow_negative_numbers = true)]
    pub tune_folds: Option<usize>,
    /// --tune starts no grid point after this many seconds: the points left are marked
    /// skipped and the best of those done wins (the first batch always runs). Points
    /// run cheapest first.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub tune_budget: Option<f64>,
}

/// What `--tune` runs: the grid's points, in evaluation order, and how.
#[derive(Debug, Clone)]
pub struct TunePlan {
    /// The points, learners built and checked.
    pub points: Vec<GridPoint>,
    /// Folds, seed, budget and the multi-label threshold settings.
    pub options: TuneOptions,
    /// Whether a corpus of two classes adds naive-Bayes weights to the grid (the
    /// weighting is not fixed by flag).
    pub nb_on_two_classes: bool,
}

/// The learners of the grid: the one `--learner` names with its constant's values, or
/// the default grid's; a constant given by flag is fixed (not varied) at its value.
fn choices(s: &ScheduleArgs, f: &LearnerArgs) -> Vec<LearnerChoice> {
    let named = s
        .learner
        .as_deref()
        .and_then(|l| AnyLearner::NAMES.iter().find(|n| **n == l));
    let mut choices = match named {
        Some(l) => LearnerChoice::defaults_for(l, f.average),
        None => Grid::default().learners,
    };
    // A constant given by flag replaces the grid's values, and stays in the point's
    // flags so that a row of the table reproduces its model.
    for c in &mut choices {
        c.constant = match c.constant {
            Some(Constant::C(v)) => Some(Constant::C(f.pa_c.unwrap_or(v))),
            Some(Constant::Epochs(e)) => Some(Constant::Epochs(s.epochs.unwrap_or(e))),
            Some(Constant::L2(v)) => Some(Constant::L2(f.l2.unwrap_or(v))),
            None => None,
        };
    }
    choices.dedup();
    choices
}

/// The learner of one choice, built from the flags with the choice's name, averaging and
/// constant put in.
fn build(
    c: &LearnerChoice,
    s: &ScheduleArgs,
    k: &KernelArgs,
    f: &LearnerArgs,
) -> Result<AnyLearner> {
    let mut s = s.clone();
    let mut f = f.clone();
    s.learner = Some(c.name.to_string());
    f.average = c.average || f.average;
    match c.constant {
        Some(Constant::C(v)) => f.pa_c = Some(v),
        Some(Constant::Epochs(e)) => s.epochs = Some(e),
        Some(Constant::L2(v)) => f.l2 = Some(v),
        None => {}
    }
    learner::learner(&s, k, &f, None)
}

/// Turns the tuning flags into a plan (`None` without `--tune`); `cv` is `train --cv`,
/// `ngrams` is `--ngrams` (the grid's n-gram order), if given.
#[allow(clippy::too_many_arguments)] // the flag groups and flags that fix the grid's dimensions
pub fn plan(
    t: &TuneArgs,
    s: &ScheduleArgs,
    k: &KernelArgs,
    f: &LearnerArgs,
    g: &GeometryArgs,
    cv: Option<usize>,
    ngrams: Option<usize>,
    counts: Option<TermCounts>,
) -> Result<Option<TunePlan>> {
    if !t.tune {
        if t.tune_folds.is_some() || t.tune_budget.is_some() || !t.tune_ngrams.is_empty() {
            bail!("--tune-folds, --tune-budget and --tune-ngrams apply to --tune only");
        }
        return Ok(None);
    }
    if !t.tune_ngrams.is_empty() && ngrams.is_some() {
        bail!(
            "--ngrams fixes the grid's n-gram order and --tune-ngrams lists the orders to \
             try: give one of them"
        );
    }
    if cv.is_some() {
        bail!(
            "--tune runs its own cross-validation: give --tune-folds K instead of --cv \
             (--holdout still scores the winner on documents tuning never saw)"
        );
    }
    if s.learner() == "kernel-perceptron" {
        bail!(
            "--tune does not tune the kernel perceptron (each fit costs a Gram matrix); \
             tune the linear learners, or train the kernel perceptron as configured"
        );
    }
    let folds = t.tune_folds.unwrap_or(5);
    if folds < 2 {
        bail!("--tune-folds needs at least 2 folds");
    }
    let budget = match t.tune_budget {
        Some(b) if !(b.is_finite() && b >= 0.0) => {
            bail!("--tune-budget must be a number of seconds, 0 or more, got {b}")
        }
        // A budget past what a Duration holds (about 585 billion years) is no limit.
        b => b.map(|b| Duration::try_from_secs_f64(b).unwrap_or(Duration::MAX)),
    };
    // A learner that refuses the flags given (e.g. --l2 for pa) leaves the grid; if
    // every learner does, the first refusal is the error.
    let mut kept = Vec::new();
    let mut built = Vec::new();
    let mut refusal = None;
    for c in choices(s, f) {
        match build(&c, s, k, f) {
            Ok(l) => {
                built.push((c.clone(), l.check()?));
                kept.push(c);
            }
            Err(e) => {
                refusal.get_or_insert(e);
            }
        }
    }
    if kept.is_empty() {
        let e = refusal.expect("an empty grid has a refusal");
        return Err(e.context("no learner of the --tune grid takes these flags"));
    }
    let grid = Grid {
        learners: kept,
        geometries: Grid::geometries_with(g.weighting(), g.normalize()),
        counts: counts.map_or(Grid::COUNTS.to_vec(), |c| vec![c]),
        ngrams: match &t.tune_ngrams[..] {
            [] => vec![ngrams.unwrap_or(1)],
            orders => {
                let max = usize::from(rosenblatt::text::Ngrams::MAX);
                if let Some(n) = orders.iter().find(|&&n| n > max) {
                    bail!("--tune-ngrams orders must be from 1 (words only) to {max}, got {n}");
                }
                // Each order once, where it first appears.
                let mut orders = orders.to_vec();
                let mut seen = std::collections::HashSet::new();
                orders.retain(|&n| seen.insert(n));
                orders
            }
        },
    };
    let points = grid
        .points()
        .into_iter()
        .map(|spec: PointSpec| {
            let learner = built
                .iter()
                .find(|b| b.0 == spec.learner)
                .expect("every choice is built")
                .1
                .clone();
            GridPoint { spec, learner }
        })
        .collect();
    Ok(Some(TunePlan {
        points,
        options: TuneOptions {
            folds,
            seed: s.seed,
            budget,
            thresholds: f.multilabel(s.seed),
        },
        nb_on_two_classes: g.weighting().is_none(),
    }))
}

/// The options a tuned model records: the winner's settings in words and its flags.
pub fn options_of(point: &GridPoint) -> String {
    format!(
        "{}; chosen by --tune: {}",
        point.learner.describe(),
        point.flags()
    )
}
