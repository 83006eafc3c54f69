//! The training job: data (documents, or rows already vectorized) → a held-out part, a
//! tuning grid and cross-validation as asked → the fit → the held-out evaluation → a
//! model. The command line's `train` (documents, mail and SVMlight rows) and the
//! accuracy harness are compositions of it; training over worker threads is its fit
//! step (`TrainConfig::workers`), and training over processes runs that step on a
//! cluster (`TrainingJob::run_cluster`).

use super::multilabel::{fit_label_documents, fit_label_text};
use super::text_rows::TextRows;
use super::train::fit_text;
use super::{Evaluated, cross_validate_documents, cross_validate_rows, evaluate_decisions};
use super::{TextFit, fit_documents, fit_parts, is_multilabel, tune, tune_training_rows};
use crate::error::{ConfigError, Param};
use crate::eval::Metrics;
use crate::experiment::{GridPoint, Split, TuneOptions, TuneProgress, TuneTable, holdout, kfold};
use crate::features::{RowSubset, SparseRows, Weighting};
use crate::input::Document;
use crate::learn::compose::multilabel::MultiLabelOptions;
use crate::learn::{AnyLearner, Check, Checked, Schedule};
use crate::model::Model;
use crate::training::assemble::{Space, assemble};
use crate::training::{TrainConfig, check_width, label_indices};
use crate::vocab::VocabConfig;
use crate::{Error, Result};
use std::collections::HashSet;
use std::time::Instant;

/// A seeded held-out part: scored, never trained or tuned on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Holdout {
    /// The fraction held out, in (0, 1).
    pub fraction: f64,
    /// The seed of the split.
    pub seed: u64,
}

/// Model selection by cross-validation on the training part (`train --tune`).
#[derive(Debug, Clone)]
pub struct Tuning {
    /// The grid, learners checked.
    pub points: Vec<GridPoint>,
    /// Folds, seed, budget.
    pub options: TuneOptions,
    /// The options the winner's model records (default: its flags).
    pub describe: fn(&GridPoint) -> String,
    /// On a corpus of two classes, each point with idf weights is followed by the same
    /// point with naive-Bayes weights (α = 1): those ratios compare two classes, so a
    /// grid made before the corpus is read gets them only where they apply.
    pub nb_on_two_classes: bool,
}

/// Where a job is: what a front end shows while it waits.
#[derive(Debug, Clone, Copy)]
pub enum Stage<'a> {
    /// Cross-validating the configuration.
    CrossValidating,
    /// Tuning, with the grid's progress.
    Tuning(&'a TuneProgress),
    /// Fitting the model.
    Training,
    /// Scoring the held-out part.
    Evaluating,
}

/// Everything a training run is asked to do besides its data.
#[derive(Debug, Clone)]
pub struct TrainingJob {
    /// The configuration trained (or tuned around).
    pub config: TrainConfig,
    /// A held-out part to score the model on.
    pub holdout: Option<Holdout>,
    /// k-fold cross-validation of the configuration over every document: `(k, seed)`.
    pub cv: Option<(usize, u64)>,
    /// A grid to choose the configuration from, on the training part only.
    pub tune: Option<Tuning>,
    /// Thresholds of multi-label models (their folds are checked against the documents).
    pub multilabel: MultiLabelOptions,
    /// What changes on a corpus of two classes (one label each); `rosenblatt train` sets
    /// it on text. Default: nothing.
    pub two_class: TwoClassText,
    /// The randomized perceptron's draws default to 10 per training document.
    pub rounds_per_document: bool,
    /// The names of the inputs, recorded in the model.
    pub inputs: Vec<String>,
}

/// The settings that text of two classes was measured to need apart from other corpora
/// (docs/ACCURACY.md): a job applies them only where the corpus has two classes, one label
/// each, so one command line serves every corpus.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TwoClassText {
    /// The learner's C: `rosenblatt train` sets
    /// [`PassiveAggressive::TWO_CLASS_TEXT_C`](crate::learn::PassiveAggressive::TWO_CLASS_TEXT_C)
    /// for its default PA on text when `--pa-c` is not given. `None`: the learner's own C.
    pub c: Option<f32>,
    /// From how many documents words of one document are dropped (the configuration's
    /// [`VocabConfig::singletons_from`](crate::vocab::VocabConfig::singletons_from)):
    /// `rosenblatt train` sets
    /// [`VocabConfig::TWO_CLASS_SINGLETONS_FROM`](crate::vocab::VocabConfig::TWO_CLASS_SINGLETONS_FROM)
    /// on text when `--min-df` is not given; it replaces only the default rule.
    /// `None`: the configuration's own rule.
    pub singletons_from: Option<u64>,
}

impl TwoClassText {
    /// `cfg` with these settings, for a corpus of two classes.
    pub(crate) fn apply(&self, cfg: &TrainConfig) -> Result<TrainConfig> {
        let mut cfg = match self.c {
            Some(c) => cfg.with_c(c)?,
            None => cfg.clone(),
        };
        // Only in place of the default rule: a floor given stays (`with_min_df`).
        if let Some(n) = self.singletons_from
            && cfg.vocab.singletons_from == VocabConfig::default().singletons_from
        {
            cfg.vocab.singletons_from = Some(n);
        }
        Ok(cfg)
    }
}

/// What a job produced.
#[derive(Debug)]
pub struct Outcome {
    /// The model, fitted on the training part (with its tuning table, if tuned).
    pub model: Model,
    /// The model on the held-out part: metrics, truth and decisions.
    pub held_out: Option<Evaluated>,
    /// Each fold's metrics of the cross-validation.
    pub folds: Option<Vec<Metrics>>,
    /// The training accuracy at score 0 where a two-class model decides elsewhere (a
    /// filter, at P(spam) > 0.9): what the summary shows beside its own.
    pub accuracy_at_zero: Option<f64>,
}

impl TrainingJob {
    /// A job that fits `config` on all the data, nothing held out, tuned or folded.
    pub fn new(config: TrainConfig) -> Self {
        TrainingJob {
            config,
            holdout: None,
            cv: None,
            tune: None,
            multilabel: MultiLabelOptions::default(),
            two_class: TwoClassText::default(),
            rounds_per_document: false,
            inputs: Vec::new(),
        }
    }

    /// Runs the job's fit over `cluster`'s workers, each process reading its own share
    /// of the documents with `read`; `progress` hears of each mixing round on worker 0.
    /// The model comes back on process 0 (`None` on the others).
    #[cfg(feature = "cluster")]
    pub fn run_cluster<R, P>(
        &self,
        cluster: &crate::distributed::Cluster,
        read: R,
        progress: P,
    ) -> Result<Option<Model>>
    where
        R: Fn(crate::input::Share) -> Result<Vec<Document>> + Send + Sync + 'static,
        P: Fn(crate::training::Round) + Send + Sync + 'static,
    {
        self.refuse_for_cluster()?;
        crate::training::train_documents(
            cluster,
            &self.config,
            self.two_class,
            self.multilabel,
            self.inputs.clone(),
            read,
            progress,
        )
    }

    #[cfg(feature = "cluster")]
    /// Refuses what a fit over processes cannot do: they read their shares only, so no
    /// process holds a held-out part, folds or a tuning grid's data.
    pub(crate) fn refuse_for_cluster(&self) -> Result<()> {
        if self.holdout.is_some() || self.cv.is_some() || self.tune.is_some() {
            return Err(Error::Unsupported(
                "training over processes fits all the data: held-out parts, cross-validation \
                 and tuning run in one process"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Runs the job on labelled documents (one label each, or label sets).
    pub fn run_documents(
        &self,
        docs: Vec<Document>,
        stage: &(dyn Fn(Stage<'_>) + Sync),
    ) -> Result<Outcome> {
        let start = Instant::now();
        let n = docs.len();
        let multilabel = is_multilabel(&docs);
        if multilabel && (self.holdout.is_some() || self.cv.is_some()) {
            return Err(Error::Unsupported(
                "held-out parts and cross-validation are for single-label corpora; this one \
                 has documents with several labels (or none): train, then evaluate on a \
                 test part"
                    .into(),
            ));
        }
        let two = !multilabel && docs_in_two_classes(&docs, self.config.positive.as_deref());
        let cfg = self.config_for(&self.config, n, two)?;
        let cv = self.cv_splits(n)?;
        // With a held-out part the folds still cover every document: they run before the
        // division.
        let mut folds = None;
        if let (Some(splits), Some(_)) = (&cv, self.holdout) {
            stage(Stage::CrossValidating);
            folds = Some(cross_validate_documents(&docs, &cfg, splits)?);
        }
        let (train_docs, test_docs) = match self.holdout {
            Some(h) => {
                let split = holdout(n, h.fraction, h.seed)?;
                let classes: HashSet<&String> =
                    split.train.iter().flat_map(|&i| &docs[i].labels).collect();
                check_holdout(h.fraction, classes.len(), &split, "documents")?;
                let (train, test) = split.divide(docs);
                (train, Some(test))
            }
            None => (docs, None),
        };
        let (cfg, table) = match &self.tune {
            Some(t) => {
                let t = self.tuning_for(t, train_docs.len(), two)?;
                let table = tune(&train_docs, &cfg, &t.points, t.options, &|p| {
                    stage(Stage::Tuning(p))
                })?;
                (self.winner(&cfg, &t, &table)?, Some(table))
            }
            None => (cfg, None),
        };
        stage(Stage::Training);
        let inputs = self.inputs.clone();
        // The training rows are not kept: the folds below build their own.
        let TextFit { mut fit, vocab, .. } = if multilabel {
            fit_label_documents(&train_docs, &cfg, &self.multilabel, inputs)?
        } else {
            fit_documents(&train_docs, &cfg, inputs)?
        };
        fit.meta.tuning = table;
        fit.meta.seconds = start.elapsed().as_secs_f64();
        let accuracy_at_zero = fit.accuracy_at_zero;
        let model = assemble(&cfg, Space::Text(vocab), fit)?;
        let held_out = match &test_docs {
            Some(t) => {
                stage(Stage::Evaluating);
                Some(evaluate_decisions(&model, t)?)
            }
            None => None,
        };
        if let (Some(splits), None) = (&cv, &test_docs) {
            stage(Stage::CrossValidating);
            folds = Some(cross_validate_documents(&train_docs, &cfg, splits)?);
        }
        Ok(Outcome {
            model,
            held_out,
            folds,
            accuracy_at_zero,
        })
    }

    /// Runs the job on documents already taken in as rows ([`TextRows`]: read in batches,
    /// each batch's text dropped once tokenized): the fit of every document, equal to what
    /// [`TrainingJob::run_documents`] fits on the same documents held whole. A held-out
    /// part, cross-validation and tuning fit vocabularies on parts of the documents, so
    /// they need the documents and are refused here.
    pub fn run_text(&self, rows: TextRows, stage: &(dyn Fn(Stage<'_>) + Sync)) -> Result<Outcome> {
        if self.holdout.is_some() || self.cv.is_some() || self.tune.is_some() {
            return Err(Error::Unsupported(
                "held-out parts, cross-validation and tuning fit on parts of the documents: \
                 run them on the documents held whole (`run_documents`)"
                    .into(),
            ));
        }
        if rows.analyzer() != &self.config.analyzer {
            return Err(Error::Data(
                "the rows were tokenized with another analyzer than the job's: the model \
                 would read new documents differently"
                    .into(),
            ));
        }
        let start = Instant::now();
        let tokenizing = rows.seconds();
        let labels = rows.labels();
        let two = !labels.is_multilabel()
            && labels
                .classes(self.config.positive.as_deref())
                .is_ok_and(|c| c.len() == 2);
        let cfg = self.config_for(&self.config, rows.documents(), two)?;
        stage(Stage::Training);
        let inputs = self.inputs.clone();
        let TextFit { mut fit, vocab, .. } = if labels.is_multilabel() {
            fit_label_text(rows, &cfg, &self.multilabel, inputs)?
        } else {
            fit_text(rows, &cfg, &self.config.vocab, inputs)?
        };
        // Vectorizing included, as for documents held whole.
        fit.meta.seconds = tokenizing + start.elapsed().as_secs_f64();
        Ok(Outcome {
            accuracy_at_zero: fit.accuracy_at_zero,
            model: assemble(&cfg, Space::Text(vocab), fit)?,
            held_out: None,
            folds: None,
        })
    }

    /// Runs the job on rows already vectorized (SVMlight), one label each, `classes`
    /// ordered as the model will keep them; the held-out part, the folds and the tuning
    /// folds are views of `x`.
    pub fn run_rows<X: SparseRows>(
        &self,
        x: &X,
        labels: &[String],
        classes: Vec<String>,
        stage: &(dyn Fn(Stage<'_>) + Sync),
    ) -> Result<Outcome> {
        let start = Instant::now();
        // Before tuning or folds size anything by the width.
        check_width(x.n_cols(), classes.len(), &self.config)?;
        let idx = label_indices(labels, &classes)?;
        let n = idx.len();
        // Vectors keep the learner's own C: the two-class rule was measured on text.
        let cfg = self.config_for(&self.config, n, false)?;
        let split = match self.holdout {
            Some(h) => {
                let s = holdout(n, h.fraction, h.seed)?;
                let train_classes: HashSet<usize> = s.train.iter().map(|&i| idx[i]).collect();
                check_holdout(h.fraction, train_classes.len(), &s, "rows")?;
                Some(s)
            }
            None => None,
        };
        let all: Vec<usize> = (0..n).collect();
        let train_rows = split.as_ref().map_or(&all[..], |s| &s.train[..]);
        let train_idx = pick(&idx, train_rows);
        let x_train = RowSubset::new(x, train_rows);
        let (cfg, table) = match &self.tune {
            Some(t) => {
                let t = self.tuning_for(t, train_rows.len(), classes.len() == 2)?;
                let table = tune_training_rows(
                    &x_train,
                    &train_idx,
                    &classes,
                    &t.points,
                    t.options,
                    &|p| stage(Stage::Tuning(p)),
                )?;
                (self.winner(&cfg, &t, &table)?, Some(table))
            }
            None => (cfg, None),
        };
        stage(Stage::Training);
        let mut fit = fit_parts(
            &x_train,
            &train_idx,
            classes.clone(),
            &cfg,
            self.inputs.clone(),
        )?;
        fit.meta.seconds = start.elapsed().as_secs_f64();
        fit.meta.tuning = table;
        let space = Space::Indexed(x_train.n_cols());
        let accuracy_at_zero = fit.accuracy_at_zero;
        let model = assemble(&cfg, space, fit)?;
        let held_out = split.as_ref().map(|s| {
            stage(Stage::Evaluating);
            let truth = pick(&idx, &s.test);
            let test = RowSubset::new(x, &s.test);
            let decisions = model.decide_rows(&test);
            let predicted: Vec<usize> = decisions.iter().map(|d| d.class).collect();
            let probabilities = model
                .class_probability_rows(&test)
                .map(|p| crate::eval::ProbabilityMetrics::new(&p, &truth));
            Evaluated {
                metrics: Metrics::new(classes.clone(), &truth, &predicted),
                truth,
                decisions,
                probabilities,
            }
        });
        let folds = match self.cv_splits(n)? {
            Some(splits) => {
                stage(Stage::CrossValidating);
                Some(cross_validate_rows(x, &idx, &classes, &cfg, &splits)?)
            }
            None => None,
        };
        Ok(Outcome {
            model,
            held_out,
            folds,
            accuracy_at_zero,
        })
    }

    /// The seeded folds of the cross-validation over `n` documents or rows.
    fn cv_splits(&self, n: usize) -> Result<Option<Vec<Split>>> {
        self.cv.map(|(k, seed)| kfold(n, k, seed)).transpose()
    }

    /// `cfg` with random mode's default draws set for `n` training documents, and the
    /// two-class C where the corpus has `two` classes.
    fn config_for(&self, cfg: &TrainConfig, n: usize, two: bool) -> Result<TrainConfig> {
        let cfg = if two {
            self.two_class.apply(cfg)?
        } else {
            cfg.clone()
        };
        Ok(TrainConfig {
            learner: self.per_document(cfg.learner.clone(), n)?,
            ..cfg
        })
    }

    /// The grid with random mode's draws set for `n` training documents, and with its
    /// naive-Bayes points where `two_classes` (see [`Tuning::nb_on_two_classes`]).
    fn tuning_for(&self, t: &Tuning, n: usize, two_classes: bool) -> Result<Tuning> {
        let mut t = t.clone();
        for p in &mut t.points {
            p.learner = self.per_document(p.learner.clone(), n)?;
        }
        if t.nb_on_two_classes && two_classes {
            let all_counted = t.points.iter().all(|q| q.spec.counts.counted());
            t.points = t
                .points
                .into_iter()
                .flat_map(|p| {
                    // Binary rows' idf points only: ratios of counted rows are not
                    // tried by default (they are with --term-counts sublinear).
                    let twin = p.spec.geometry.weighting == Weighting::Idf
                        && (!p.spec.counts.counted() || all_counted);
                    let nb = twin.then(|| {
                        let mut nb = p.clone();
                        nb.spec.geometry.weighting = Weighting::Nb { alpha: 1.0 };
                        nb
                    });
                    std::iter::once(p).chain(nb)
                })
                .collect();
        }
        Ok(t)
    }

    /// `learner` with random mode's draws set to 10 per document, when asked.
    fn per_document(&self, learner: Checked<AnyLearner>, n: usize) -> Result<Checked<AnyLearner>> {
        if !self.rounds_per_document {
            return Ok(learner);
        }
        let mut learner = learner.into_inner();
        if let Some(Schedule::Randomized { rounds, .. }) = learner.schedule_mut() {
            *rounds = 10 * n as u64;
        }
        Ok(learner.check()?)
    }

    /// The configuration the tuning winner is refitted with.
    fn winner(&self, cfg: &TrainConfig, t: &Tuning, table: &TuneTable) -> Result<TrainConfig> {
        let point = &t.points[table.best];
        let mut cfg = super::config_of(cfg, point)?;
        cfg.options = (t.describe)(point);
        Ok(cfg)
    }
}

/// The entries of `idx` at the positions `part`.
fn pick(idx: &[usize], part: &[usize]) -> Vec<usize> {
    part.iter().map(|&i| idx[i]).collect()
}

/// Refuses a held-out split that leaves nothing to learn from or to score.
fn check_holdout(fraction: f64, train_classes: usize, s: &Split, what: &str) -> Result<()> {
    let (n_train, n_test) = (s.train.len(), s.test.len());
    let n = n_train + n_test;
    if train_classes < 2 {
        return Err(ConfigError::new(
            Param::HoldoutFraction,
            fraction,
            format!(
                "must leave at least two classes to train on: it keeps {n_train} of {n} \
                 {what} for training, with {train_classes} class(es)"
            ),
        )
        .into());
    }
    if n_test == 0 {
        return Err(ConfigError::new(
            Param::HoldoutFraction,
            fraction,
            format!("must hold out at least one of the {n} {what}"),
        )
        .into());
    }
    Ok(())
}

/// Whether `docs`, one label each, make two classes (`positive` against the rest, or two
/// labels); `false` where they make an error, which the fit reports in its place.
fn docs_in_two_classes(docs: &[Document], positive: Option<&str>) -> bool {
    super::labels::classes_of(docs, positive).is_ok_and(|c| c.len() == 2)
}
