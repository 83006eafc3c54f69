//! Model selection inside the training data: every point of a grid — a learner with a
//! value of its main constant, a feature weighting and row normalization, an n-gram
//! order — cross-validated on the same seeded folds of the training rows, and a table of
//! mean ± sd per point with the best one marked.
//!
//! The score is accuracy for single-label targets (binary and multiclass) and micro-F1
//! for multi-label ones. Folds are stratified: by class, or for multi-label rows by
//! their rarest label (rows without a label form a class of their own), so rare labels
//! reach every fold.
//!
//! Multi-label thresholds are tuned inside each fold, on that fold's training rows only,
//! with a cheaper rule than a final model's: the scorer is fitted on three quarters of
//! the fold's training rows, each label's F1-best cut is taken on the last quarter (a
//! label below `min_f1` keeps the default), and that model scores the fold's test rows.
//! One fit per fold instead of the `folds + 1` of nested threshold folds is what lets a
//! grid run on Reuters in about a minute on two cores; the winner is then refitted with
//! the usual rule (see [`TuneOptions::thresholds`]).
//!
//! Points run in a fixed order ([`Grid::points`]: by n-grams, then cheapest first) in
//! batches of a few points × all their folds, in parallel. With a budget, no batch
//! starts once the budget is spent (the first always runs, so there is a winner): the
//! remaining points are marked skipped and the best of those done wins. A run so exceeds
//! its budget by at most one batch. Ties go to the earlier, cheaper point.
//!
//! Geometry weights (idf) are fitted on all the rows tuned on, as the vocabulary is (see
//! [`crate::pipeline::cross_validate`]): labels take no part in either.

use super::{Classes, LabelSets, Split, holdout, score_split, stratified_kfold};
use crate::Result;
use crate::error::{ConfigError, Param};
use crate::eval::MultiLabelMetrics;
use crate::features::{Geometry, GeometrySpec, Normalize, RowSubset, SparseRows, Weighting};
use crate::learn::multilabel::{
    MultiLabelOptions, Thresholds, best_threshold, fit_scorer, label_counts,
};
use crate::learn::{AnyLearner, Check, Checked, MultiLabelModel};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The main constant of a grid learner and its value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Constant {
    /// Passive-Aggressive's aggressiveness C.
    C(f32),
    /// Passes over the data.
    Epochs(usize),
    /// The L2 strength λ of logistic and softmax regression.
    L2(f32),
}

impl Constant {
    /// The constant as the command line spells it (`--pa-c 0.1`).
    pub fn flag(&self) -> String {
        match self {
            Constant::C(c) => format!("--pa-c {c}"),
            Constant::Epochs(e) => format!("--epochs {e}"),
            Constant::L2(l) => format!("--l2 {l}"),
        }
    }

    /// Sets the constant in `learner` (learners that do not have it are left as they are).
    pub fn apply(&self, learner: &mut AnyLearner) {
        match (self, learner) {
            (Constant::C(c), AnyLearner::PassiveAggressive(p)) => p.c = *c,
            (Constant::Epochs(e), l) => l.set_epochs(*e),
            (Constant::L2(v), AnyLearner::Logistic(r)) => r.l2 = *v,
            (Constant::L2(v), AnyLearner::Softmax(s)) => s.l2 = *v,
            _ => {}
        }
    }
}

/// One learner of a grid: its name, whether it is averaged (`pa --average`), and the
/// value of its main constant when the grid varies it.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnerChoice {
    /// The learner's name, as [`AnyLearner::from_name`] takes it.
    pub name: &'static str,
    /// Averaged weights (`--average`; for the learners that offer it).
    pub average: bool,
    /// The constant's value, or `None` for the learner's own (or the user's) setting.
    pub constant: Option<Constant>,
}

impl LearnerChoice {
    /// The default grid's values of `name`'s main constant: C ∈ {0.1, 1} for `pa`,
    /// epochs ∈ {5, 10} for the averaged perceptron, λ ∈ {1e-5, 1e-4} for logistic and
    /// softmax regression; other learners are tuned on their other dimensions only.
    pub fn defaults_for(name: &'static str, average: bool) -> Vec<LearnerChoice> {
        let constants: Vec<Constant> = match name {
            "pa" => vec![Constant::C(0.1), Constant::C(1.0)],
            "averaged-perceptron" => vec![Constant::Epochs(5), Constant::Epochs(10)],
            "logistic" | "softmax" => vec![Constant::L2(1e-5), Constant::L2(1e-4)],
            _ => Vec::new(),
        };
        let choice = |constant| LearnerChoice {
            name,
            average,
            constant,
        };
        if constants.is_empty() {
            vec![choice(None)]
        } else {
            constants.into_iter().map(|c| choice(Some(c))).collect()
        }
    }

    /// The learner with the library's defaults and this choice applied.
    pub fn default_learner(&self) -> Option<AnyLearner> {
        let mut l = AnyLearner::from_name(self.name)?;
        if let AnyLearner::PassiveAggressive(p) = &mut l {
            p.online.average = self.average;
        }
        if let AnyLearner::MarginPerceptron(p) = &mut l {
            p.online.average = self.average;
        }
        if let Some(c) = self.constant {
            c.apply(&mut l);
        }
        Some(l)
    }

    /// A rough cost of fitting it, relative to 10 epochs of the averaged perceptron, to
    /// run cheap points first: logistic regression's exp per row costs about three times
    /// a perceptron update.
    fn relative_cost(&self) -> f64 {
        let per_epoch = match self.name {
            "logistic" | "softmax" => 0.3,
            "pa" => 0.11,
            "kernel-perceptron" => 10.0,
            _ => 0.1,
        };
        let epochs = match self.constant {
            Some(Constant::Epochs(e)) => e as f64,
            _ => 10.0,
        };
        per_epoch * epochs
    }
}

/// A grid: every learner choice × geometry × n-gram order.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// The learners and their constants.
    pub learners: Vec<LearnerChoice>,
    /// Weighting and normalization.
    pub geometries: Vec<GeometrySpec>,
    /// Word n-gram orders (1: single words).
    pub ngrams: Vec<usize>,
}

impl Default for Grid {
    /// The default grid, 18 points: `pa --average` with C ∈ {0.1, 1}, the averaged
    /// perceptron with 5 or 10 epochs and logistic regression with λ ∈ {1e-5, 1e-4}, each
    /// on binary rows as stored, on binary unit-length rows (the spam filter's default)
    /// and on idf-weighted unit-length rows (text's default); single words only.
    fn default() -> Self {
        Grid {
            learners: [
                LearnerChoice::defaults_for("pa", true),
                LearnerChoice::defaults_for("averaged-perceptron", false),
                LearnerChoice::defaults_for("logistic", false),
            ]
            .concat(),
            geometries: Grid::geometries_with(None, None),
            ngrams: vec![1],
        }
    }
}

impl Grid {
    /// The geometries a grid tries when some of weighting and normalization are fixed:
    /// the default grid's three when neither is, else every value of the free one.
    pub fn geometries_with(
        weighting: Option<Weighting>,
        normalize: Option<Normalize>,
    ) -> Vec<GeometrySpec> {
        match (weighting, normalize) {
            (None, None) => vec![
                GeometrySpec::default(),
                GeometrySpec::BINARY_L2,
                GeometrySpec::IDF_L2,
            ],
            (Some(w), None) => [Normalize::None, Normalize::L2]
                .map(|n| GeometrySpec {
                    weighting: w,
                    normalize: n,
                })
                .to_vec(),
            (None, Some(n)) => [Weighting::Binary, Weighting::Idf]
                .map(|w| GeometrySpec {
                    weighting: w,
                    normalize: n,
                })
                .to_vec(),
            (Some(w), Some(n)) => vec![GeometrySpec {
                weighting: w,
                normalize: n,
            }],
        }
    }

    /// Every point, in the order they are evaluated: by n-gram order (each analyzer
    /// vectorizes once), then cheapest learner first (a stable sort, so equal costs keep
    /// the grid's order: learners as listed, binary rows before weighted ones).
    pub fn points(&self) -> Vec<PointSpec> {
        let mut points = Vec::new();
        for &ngrams in &self.ngrams {
            let mut group: Vec<PointSpec> = self
                .learners
                .iter()
                .flat_map(|l| {
                    self.geometries.iter().map(move |&geometry| PointSpec {
                        learner: l.clone(),
                        geometry,
                        ngrams,
                    })
                })
                .collect();
            group.sort_by(|a, b| {
                a.learner
                    .relative_cost()
                    .total_cmp(&b.learner.relative_cost())
            });
            points.extend(group);
        }
        points
    }
}

/// One point of a grid, before its learner is built.
#[derive(Debug, Clone, PartialEq)]
pub struct PointSpec {
    /// The learner and its constant.
    pub learner: LearnerChoice,
    /// Weighting and normalization.
    pub geometry: GeometrySpec,
    /// Word n-gram order.
    pub ngrams: usize,
}

impl PointSpec {
    /// The point with the library's default learner settings, checked.
    pub fn with_defaults(&self) -> Result<GridPoint> {
        let learner = self.learner.default_learner().ok_or_else(|| {
            crate::Error::Unsupported(format!("no learner is called {:?}", self.learner.name))
        })?;
        Ok(GridPoint {
            spec: self.clone(),
            learner: learner.check()?,
        })
    }
}

/// A point ready to run: its spec and its learner, built and checked.
#[derive(Debug, Clone)]
pub struct GridPoint {
    /// What the point is.
    pub spec: PointSpec,
    /// The learner, with the spec's constant in it.
    pub learner: Checked<AnyLearner>,
}

impl GridPoint {
    /// The point's flags as the command line spells them, so a row of the table can be
    /// copied into a `train` command.
    pub fn flags(&self) -> String {
        let s = &self.spec;
        let mut f = format!("--learner {}", s.learner.name);
        if s.learner.average && matches!(s.learner.name, "pa" | "margin-perceptron") {
            f.push_str(" --average");
        }
        if let Some(c) = s.learner.constant {
            f.push(' ');
            f.push_str(&c.flag());
        }
        // Both spelled out: `train`'s defaults depend on the input.
        f.push_str(match s.geometry.weighting {
            Weighting::Binary => " --weighting binary",
            Weighting::Idf => " --weighting idf",
        });
        f.push_str(match s.geometry.normalize {
            Normalize::None => " --normalize none",
            Normalize::L2 => " --normalize l2",
        });
        if s.ngrams != 1 {
            f.push_str(&format!(" --ngrams {}", s.ngrams));
        }
        f
    }
}

/// The figure a grid point is scored by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Score {
    /// The fraction of test rows whose class is right (single-label targets).
    #[serde(rename = "accuracy")]
    Accuracy,
    /// Micro-averaged F1 over every label (multi-label targets).
    #[serde(rename = "micro-F1")]
    MicroF1,
}

impl Score {
    /// The score's name, as tables print it.
    pub fn name(self) -> &'static str {
        match self {
            Score::Accuracy => "accuracy",
            Score::MicroF1 => "micro-F1",
        }
    }
}

/// What a point scored, fold by fold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The mean of the fold scores.
    pub mean: f64,
    /// Their sample standard deviation (n − 1).
    pub sd: f64,
    /// Each fold's score, in fold order.
    pub folds: Vec<f64>,
    /// Seconds its folds took, summed (they run in parallel, so this is work, not wall
    /// time).
    pub seconds: f64,
}

impl PointResult {
    fn new(folds: Vec<f64>, seconds: f64) -> PointResult {
        let n = folds.len() as f64;
        let mean = folds.iter().sum::<f64>() / n;
        let sd = if folds.len() > 1 {
            (folds.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        PointResult {
            mean,
            sd,
            folds,
            seconds,
        }
    }
}

/// One row of the table: a point's flags and its result (`None`: skipped, the budget
/// was spent before its turn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneRow {
    /// The point's flags, as `train` takes them.
    pub flags: String,
    /// What it scored, or `None` when it was skipped.
    pub result: Option<PointResult>,
}

/// The outcome of a tuning run, kept in the model so `inspect` can show how it was
/// chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneTable {
    /// What the points were scored by.
    pub score: Score,
    /// Folds of the cross-validation.
    pub folds: usize,
    /// Seed of the folds.
    pub seed: u64,
    /// Rows (documents) tuned on: the training part only, never held-out rows.
    pub documents: u64,
    /// How multi-label thresholds were chosen inside the folds (`None`: single-label).
    pub thresholds: Option<String>,
    /// The budget in seconds, if one was given.
    pub budget_seconds: Option<f64>,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
    /// One row per point, in evaluation order.
    pub rows: Vec<TuneRow>,
    /// The index of the winning row.
    pub best: usize,
}

impl TuneTable {
    /// Points evaluated (not skipped).
    pub fn evaluated(&self) -> usize {
        self.rows.iter().filter(|r| r.result.is_some()).count()
    }

    /// The winning row.
    pub fn winner(&self) -> &TuneRow {
        &self.rows[self.best]
    }
}

/// How a tuning run goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TuneOptions {
    /// Folds of the cross-validation (at least 2).
    pub folds: usize,
    /// Seed of the folds (and of the threshold split inside them).
    pub seed: u64,
    /// No batch of points starts after this much time (the first always does).
    pub budget: Option<Duration>,
    /// The multi-label settings the winner will be refitted with: `at_least_one` and
    /// `min_f1` are used inside the folds as they are; cross-validated thresholds are
    /// tuned inside a fold on a quarter of its training rows (see the module docs),
    /// default thresholds stay default.
    pub thresholds: MultiLabelOptions,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            folds: 5,
            seed: 42,
            budget: None,
            thresholds: MultiLabelOptions::default(),
        }
    }
}

/// What is tuned for: a class per row, or a set of labels per row.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// Single-label rows, scored by accuracy.
    Classes(Classes<'a>),
    /// Multi-label rows, scored by micro-F1.
    Labels(LabelSets<'a>),
}

impl Target<'_> {
    fn n_rows(&self) -> usize {
        match self {
            Target::Classes(c) => c.of_row.len(),
            Target::Labels(l) => l.of_row.len(),
        }
    }

    fn score(&self) -> Score {
        match self {
            Target::Classes(_) => Score::Accuracy,
            Target::Labels(_) => Score::MicroF1,
        }
    }

    /// The stratum of every row: its class, or its rarest label (no label: one more).
    fn strata(&self) -> Vec<usize> {
        match self {
            Target::Classes(c) => c.of_row.to_vec(),
            Target::Labels(l) => {
                let k = l.names.len();
                let counts = label_counts(l.of_row, k);
                l.of_row
                    .iter()
                    .map(|set| {
                        set.iter()
                            .copied()
                            .min_by_key(|&c| (counts[c], c))
                            .unwrap_or(k)
                    })
                    .collect()
            }
        }
    }
}

/// Where a run is: which points are done, the clock and the budget. Points may be
/// evaluated in several calls (one per analyzer, each on its own rows); the budget
/// and the "first batch always runs" rule hold across them.
pub struct TuneRun<'p> {
    opt: TuneOptions,
    start: Instant,
    splits: Vec<Split>,
    score: Score,
    documents: usize,
    rows: Vec<Option<TuneRow>>,
    done: usize,
    progress: &'p (dyn Fn(&TuneProgress) + Sync),
}

/// Progress of a run, reported after every batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TuneProgress {
    /// Points evaluated so far.
    pub done: usize,
    /// Points skipped (budget spent).
    pub skipped: usize,
    /// Points in the grid.
    pub total: usize,
    /// Time since the run started.
    pub elapsed: Duration,
}

impl<'p> TuneRun<'p> {
    /// A run of `total` points on `target`'s rows: the seeded stratified folds are made
    /// here, so every point sees the same ones.
    pub fn new(
        target: Target<'_>,
        total: usize,
        opt: TuneOptions,
        progress: &'p (dyn Fn(&TuneProgress) + Sync),
    ) -> Result<TuneRun<'p>> {
        let start = Instant::now();
        if opt.folds < 2 {
            return Err(ConfigError::new(Param::Folds, opt.folds, "must be at least 2").into());
        }
        if total == 0 {
            return Err(crate::Error::Data("the tuning grid has no point".into()));
        }
        let splits = stratified_kfold(&target.strata(), opt.folds, opt.seed)?;
        Ok(TuneRun {
            opt,
            start,
            splits,
            score: target.score(),
            documents: target.n_rows(),
            rows: vec![None; total],
            done: 0,
            progress,
        })
    }

    /// The folds every point is scored on.
    pub fn splits(&self) -> &[Split] {
        &self.splits
    }

    fn spent(&self) -> bool {
        self.done > 0 && self.opt.budget.is_some_and(|b| self.start.elapsed() >= b)
    }

    fn report(&self) {
        let skipped = self
            .rows
            .iter()
            .filter(|r| r.as_ref().is_some_and(|r| r.result.is_none()))
            .count();
        (self.progress)(&TuneProgress {
            done: self.done,
            skipped,
            total: self.rows.len(),
            elapsed: self.start.elapsed(),
        });
    }

    /// Evaluates the points `(row index, point)` on rows `x` (stored; each point's
    /// geometry is fitted on them), in batches, until the budget is spent; the rest are
    /// marked skipped.
    pub fn evaluate<X: SparseRows>(
        &mut self,
        x: &X,
        target: Target<'_>,
        points: &[(usize, &GridPoint)],
    ) -> Result<()> {
        if x.n_rows() != self.documents {
            return Err(crate::Error::Data(format!(
                "tuning rows: {} rows for {} targets",
                x.n_rows(),
                self.documents
            )));
        }
        // Each distinct geometry is fitted once and shared by its points.
        let mut specs: Vec<GeometrySpec> = points.iter().map(|p| p.1.spec.geometry).collect();
        specs.dedup();
        specs.sort_by_key(|s| s.name());
        specs.dedup();
        let geometries: Vec<Geometry> = specs.iter().map(|&s| Geometry::fit(s, x)).collect();
        let views: Vec<_> = geometries.iter().map(|g| g.apply(x)).collect();
        let k = self.splits.len();
        let per_batch = (2 * rayon::current_num_threads()).div_ceil(k).max(1);
        for batch in points.chunks(per_batch) {
            if self.spent() {
                for &(i, p) in batch {
                    self.rows[i] = Some(TuneRow {
                        flags: p.flags(),
                        result: None,
                    });
                }
                continue;
            }
            let tasks: Vec<(usize, usize)> = (0..batch.len())
                .flat_map(|b| (0..k).map(move |f| (b, f)))
                .collect();
            let (splits, opt) = (&self.splits, &self.opt);
            let scores: Vec<Result<(f64, f64)>> = tasks
                .par_iter()
                .map(|&(b, f)| {
                    let p = batch[b].1;
                    let g = specs
                        .iter()
                        .position(|&s| s == p.spec.geometry)
                        .expect("every point's geometry is fitted");
                    let t = Instant::now();
                    let s = score_fold(&p.learner, &views[g], target, &splits[f], opt)
                        .map_err(|e| fold_error(e, p, f))?;
                    Ok((s, t.elapsed().as_secs_f64()))
                })
                .collect();
            let mut scores = scores.into_iter();
            for &(i, p) in batch {
                let (mut folds, mut seconds) = (Vec::with_capacity(k), 0.0);
                for _ in 0..k {
                    let (s, t) = scores.next().expect("one score per task")?;
                    folds.push(s);
                    seconds += t;
                }
                self.rows[i] = Some(TuneRow {
                    flags: p.flags(),
                    result: Some(PointResult::new(folds, seconds)),
                });
                self.done += 1;
            }
            self.report();
        }
        Ok(())
    }

    /// The table: every row (a point never evaluated counts as skipped) and the best
    /// mean (ties: the earlier row).
    pub fn finish(self, points: &[GridPoint]) -> Result<TuneTable> {
        let rows: Vec<TuneRow> = self
            .rows
            .into_iter()
            .zip(points)
            .map(|(r, p)| {
                r.unwrap_or_else(|| TuneRow {
                    flags: p.flags(),
                    result: None,
                })
            })
            .collect();
        let mut best: Option<(usize, f64)> = None;
        for (i, r) in rows.iter().enumerate() {
            if let Some(res) = &r.result
                && best.is_none_or(|(_, m)| res.mean > m)
            {
                best = Some((i, res.mean));
            }
        }
        let (best, _) = best.ok_or_else(|| {
            crate::Error::Data("no grid point was evaluated: nothing to choose from".into())
        })?;
        let thresholds = match (self.score, self.opt.thresholds.thresholds) {
            (Score::Accuracy, _) => None,
            (Score::MicroF1, Thresholds::Default) => Some("default thresholds".to_string()),
            (Score::MicroF1, Thresholds::CrossValidated { min_f1, .. }) => Some(format!(
                "F1-best cut on a quarter of each fold's training rows (min F1 {min_f1})"
            )),
        };
        Ok(TuneTable {
            score: self.score,
            folds: self.opt.folds,
            seed: self.opt.seed,
            documents: self.documents as u64,
            thresholds,
            budget_seconds: self.opt.budget.map(|b| b.as_secs_f64()),
            seconds: self.start.elapsed().as_secs_f64(),
            rows,
            best,
        })
    }
}

/// A fold's error, naming the point and the fold (1-based).
fn fold_error(e: crate::Error, p: &GridPoint, f: usize) -> crate::Error {
    match e {
        crate::Error::Data(m) => {
            crate::Error::Data(format!("tuning {}: fold {}: {m}", p.flags(), f + 1))
        }
        other => other,
    }
}

/// One point's score on one fold of rows `x` (read in the point's geometry).
fn score_fold<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    target: Target<'_>,
    split: &Split,
    opt: &TuneOptions,
) -> Result<f64> {
    match target {
        Target::Classes(c) => Ok(score_split(learner, x, c, split)?.accuracy()),
        Target::Labels(l) => score_labels_fold(learner, x, l, split, opt),
    }
}

/// A multi-label fold: thresholds tuned on a seeded quarter of the fold's training rows
/// (scorer fitted on the rest), test rows scored by micro-F1.
fn score_labels_fold<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    labels: LabelSets<'_>,
    split: &Split,
    opt: &TuneOptions,
) -> Result<f64> {
    let k = labels.names.len();
    let sets_of = |rows: &[usize]| -> Vec<Vec<usize>> {
        rows.iter().map(|&i| labels.of_row[i].clone()).collect()
    };
    let ml = opt.thresholds;
    let (fit_rows, cut_rows, min_f1) = match ml.thresholds {
        Thresholds::CrossValidated { min_f1, .. } if split.train.len() >= 4 => {
            let inner = holdout(split.train.len(), 0.25, opt.seed)?;
            let pick =
                |part: &[usize]| -> Vec<usize> { part.iter().map(|&p| split.train[p]).collect() };
            (pick(&inner.train), pick(&inner.test), Some(min_f1))
        }
        _ => (split.train.clone(), Vec::new(), None),
    };
    let fit_sets = sets_of(&fit_rows);
    let scorer = fit_scorer(learner, &RowSubset::new(x, &fit_rows), &fit_sets, k)?.model;
    let mut thresholds = vec![scorer.default_threshold(); k];
    if let Some(min_f1) = min_f1 {
        let scores: Vec<Vec<f32>> = cut_rows.iter().map(|&i| scorer.scores(x.row(i))).collect();
        for (c, t) in thresholds.iter_mut().enumerate() {
            let mut pairs: Vec<(f32, bool)> = scores
                .iter()
                .zip(&cut_rows)
                .map(|(s, &i)| (s[c], labels.of_row[i].contains(&c)))
                .collect();
            if let Some((best, f1)) = best_threshold(&mut pairs)
                && f1 >= min_f1
            {
                *t = best;
            }
        }
    }
    let model = MultiLabelModel {
        scorer,
        thresholds,
        train_counts: label_counts(&fit_sets, k),
        at_least_one: ml.at_least_one,
    };
    let predicted: Vec<Vec<usize>> = split
        .test
        .par_iter()
        .map(|&i| model.labels(x.row(i)).into_iter().map(|l| l.0).collect())
        .collect();
    let m = MultiLabelMetrics::new(
        labels.names.to_vec(),
        &sets_of(&split.test),
        &predicted,
        Vec::new(),
    );
    Ok(m.micro_f1())
}

/// Tunes `points` on one matrix of rows (all points share it: no n-gram dimension, as
/// for SVMlight rows or documents vectorized once).
pub fn tune_rows<X: SparseRows>(
    x: &X,
    target: Target<'_>,
    points: &[GridPoint],
    opt: TuneOptions,
    progress: &(dyn Fn(&TuneProgress) + Sync),
) -> Result<TuneTable> {
    let mut run = TuneRun::new(target, points.len(), opt, progress)?;
    let all: Vec<(usize, &GridPoint)> = points.iter().enumerate().collect();
    run.evaluate(x, target, &all)?;
    run.finish(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::cross_validate;
    use crate::features::synthetic::zipf_rows;

    fn default_points() -> Vec<GridPoint> {
        Grid::default()
            .points()
            .iter()
            .map(|p| p.with_defaults().unwrap())
            .collect()
    }

    #[test]
    fn the_default_grid_runs_cheap_points_first_and_spells_their_flags() {
        let points = default_points();
        assert_eq!(points.len(), 18);
        let flags: Vec<String> = points.iter().map(GridPoint::flags).collect();
        assert_eq!(
            flags[0],
            "--learner averaged-perceptron --epochs 5 --weighting binary --normalize none"
        );
        assert_eq!(
            flags[1],
            "--learner averaged-perceptron --epochs 5 --weighting binary --normalize l2"
        );
        assert_eq!(
            flags[2],
            "--learner averaged-perceptron --epochs 5 --weighting idf --normalize l2"
        );
        assert_eq!(
            flags[6],
            "--learner pa --average --pa-c 0.1 --weighting binary --normalize none"
        );
        assert_eq!(
            flags[17],
            "--learner logistic --l2 0.0001 --weighting idf --normalize l2"
        );
        let AnyLearner::PassiveAggressive(p) = &*points[6].learner else {
            panic!("pa expected");
        };
        assert_eq!((p.c, p.online.average), (0.1, true));
    }

    #[test]
    fn the_winner_has_the_best_mean_as_cross_validate_computes_it() {
        let (x, y) = zipf_rows(400, 600, 20, 3);
        let of_row: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
        let names = ["no".to_string(), "yes".to_string()];
        let classes = Classes {
            names: &names,
            of_row: &of_row,
        };
        let points = default_points();
        let opt = TuneOptions::default();
        let table = tune_rows(&x, Target::Classes(classes), &points, opt, &|_| {}).unwrap();
        assert_eq!(table.evaluated(), 18);
        assert_eq!(table.documents, 400);
        let means: Vec<f64> = table
            .rows
            .iter()
            .map(|r| r.result.as_ref().unwrap().mean)
            .collect();
        let top = means.iter().cloned().fold(f64::MIN, f64::max);
        assert_eq!(means[table.best], top);
        assert!(
            means[..table.best].iter().all(|&m| m < top),
            "ties go to the earlier row"
        );
        // The same figure, independently: the best point through `cross_validate`.
        let p = &points[table.best];
        let splits = stratified_kfold(&of_row, 5, 42).unwrap();
        let g = Geometry::fit(p.spec.geometry, &x);
        let m = cross_validate(&p.learner, &g.apply(&x), classes, &splits).unwrap();
        let accs: Vec<f64> = m.iter().map(|m| m.accuracy()).collect();
        assert_eq!(table.winner().result.as_ref().unwrap().folds, accs);
    }

    #[test]
    fn a_spent_budget_skips_the_rest_after_the_first_batch() {
        let (x, y) = zipf_rows(200, 300, 10, 4);
        let of_row: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
        let names = ["no".to_string(), "yes".to_string()];
        let target = Target::Classes(Classes {
            names: &names,
            of_row: &of_row,
        });
        let opt = TuneOptions {
            budget: Some(Duration::ZERO),
            ..TuneOptions::default()
        };
        let seen = std::sync::Mutex::new(Vec::new());
        let table = tune_rows(&x, target, &default_points(), opt, &|p| {
            seen.lock().unwrap().push(*p)
        })
        .unwrap();
        let done = table.evaluated();
        assert!((1..18).contains(&done), "{done} points done");
        assert!(table.rows[done..].iter().all(|r| r.result.is_none()));
        assert!(table.best < done);
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!((seen[0].done, seen[0].total), (done, 18));
    }

    #[test]
    fn multi_label_rows_are_scored_by_micro_f1() {
        let (x, y) = zipf_rows(300, 300, 20, 8);
        let sets: Vec<Vec<usize>> = (0..300)
            .map(|i| {
                let mut s = Vec::new();
                if y[i] > 0 {
                    s.push(0);
                }
                if x.row(i).ids.contains(&2) {
                    s.push(1);
                }
                s
            })
            .collect();
        let names = vec!["a".to_string(), "b".to_string()];
        let target = Target::Labels(LabelSets {
            names: &names,
            of_row: &sets,
        });
        let points: Vec<GridPoint> = default_points().into_iter().take(2).collect();
        let table = tune_rows(&x, target, &points, TuneOptions::default(), &|_| {}).unwrap();
        assert_eq!(table.score, Score::MicroF1);
        let r = table.winner().result.as_ref().unwrap();
        assert!(r.mean > 0.5 && r.mean <= 1.0, "{r:?}");
        assert!(table.thresholds.as_deref().unwrap().contains("quarter"));
    }

    #[test]
    fn fixed_dimensions_shrink_the_grid() {
        let g = Grid::geometries_with(Some(Weighting::Idf), None);
        assert_eq!(g.len(), 2);
        assert!(g.iter().all(|s| s.weighting == Weighting::Idf));
        assert_eq!(
            Grid::geometries_with(Some(Weighting::Binary), Some(Normalize::L2)).len(),
            1
        );
        assert_eq!(LearnerChoice::defaults_for("winnow", false).len(), 1);
        assert!(
            TuneRun::new(
                Target::Classes(Classes {
                    names: &["a".into(), "b".into()],
                    of_row: &[0, 1, 0, 1]
                }),
                1,
                TuneOptions {
                    folds: 1,
                    ..TuneOptions::default()
                },
                &|_| {}
            )
            .is_err()
        );
    }
}
