//! Running a grid: [`TuneOptions`] and the [`Target`] tuned for, a [`TuneRun`] that makes
//! the seeded stratified folds, evaluates points in batches under the budget and reports
//! [`TuneProgress`], and [`tune_rows`] for a grid on one matrix of rows. How one point
//! scores on one fold is `fold`'s job.

use super::fold::{fold_error, score_fold};
use super::{GridPoint, PointResult, Score, TuneRow, TuneTable};
use crate::Result;
use crate::error::{ConfigError, Param};
use crate::experiment::{Classes, LabelSets, Split, stratified_kfold};
use crate::features::{Geometry, GeometrySpec, SparseRows, Weighting};
use crate::learn::compose::multilabel::{MultiLabelOptions, Thresholds, label_counts};
use rayon::prelude::*;
use std::time::{Duration, Instant};

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
    /// Two classes scored by ROC AUC: for a model that decides at a calibrated
    /// probability (a spam filter's P > 0.9), where accuracy at score 0 is not what it
    /// will do and the ranking of its scores is.
    Ranked(Classes<'a>),
    /// Multi-label rows, scored by micro-F1.
    Labels(LabelSets<'a>),
}

impl Target<'_> {
    fn n_rows(&self) -> usize {
        match self {
            Target::Classes(c) | Target::Ranked(c) => c.of_row.len(),
            Target::Labels(l) => l.of_row.len(),
        }
    }

    fn score(&self) -> Score {
        match self {
            Target::Classes(_) => Score::Accuracy,
            Target::Ranked(_) => Score::RocAuc,
            Target::Labels(_) => Score::MicroF1,
        }
    }

    /// The stratum of every row: its class, or its rarest label (no label: one more).
    fn strata(&self) -> Vec<usize> {
        match self {
            Target::Classes(c) | Target::Ranked(c) => c.of_row.to_vec(),
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
    pub(crate) fn new(
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
    pub(crate) fn evaluate<X: SparseRows>(
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
        // Each distinct geometry is fitted once per fold, on the fold's training rows
        // alone (as a model trained on them would have its weights), and shared by its
        // points.
        let mut specs: Vec<GeometrySpec> = points.iter().map(|p| p.1.spec.geometry).collect();
        specs.dedup();
        specs.sort_by_key(|s| s.name());
        specs.dedup();
        let geometries: Vec<Vec<Geometry>> = specs
            .iter()
            .map(|&s| self.fit_geometries(s, x, target))
            .collect::<Result<_>>()?;
        let views: Vec<Vec<_>> = geometries
            .iter()
            .map(|gs| gs.iter().map(|g| g.apply(x)).collect())
            .collect();
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
                    let view = &views[g][f];
                    let t = Instant::now();
                    let s = score_fold(&p.learner, view, target, &splits[f], opt)
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

    /// `spec` fitted on each fold's training rows (naive-Bayes ratios with their two
    /// classes), one geometry a fold.
    fn fit_geometries<X: SparseRows>(
        &self,
        spec: GeometrySpec,
        x: &X,
        target: Target<'_>,
    ) -> Result<Vec<Geometry>> {
        let classes = match target {
            Target::Classes(c) | Target::Ranked(c) => Some(c),
            Target::Labels(l) if matches!(spec.weighting, Weighting::Nb { .. }) => {
                return Err(crate::features::nb_two_classes(l.names.len()));
            }
            Target::Labels(_) => None,
        };
        self.splits
            .par_iter()
            .map(|s| {
                let rows = crate::features::RowSubset::new(x, &s.train);
                match classes {
                    Some(c) => {
                        let of: Vec<usize> = s.train.iter().map(|&i| c.of_row[i]).collect();
                        Geometry::fit_classes(spec, &rows, &of, c.names.len())
                    }
                    None => Ok(Geometry::fit(spec, &rows)),
                }
            })
            .collect()
    }

    /// The table: every row (a point never evaluated counts as skipped) and the best
    /// mean (ties: the earlier row).
    pub(crate) fn finish(self, points: &[GridPoint]) -> Result<TuneTable> {
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
            (Score::Accuracy | Score::RocAuc, _) => None,
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
