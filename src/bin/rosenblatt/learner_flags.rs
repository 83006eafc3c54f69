//! Flags of the linear learners beside the perceptron (averaged and margin perceptrons,
//! PA-I, Winnow, nearest centroid, logistic and softmax regression) and of multi-label
//! training, with their translation into a learner.

use crate::args::{LearnerName, Mode, TrainArgs};
use crate::names::{BiasName, RateScheduleName};
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use rosenblatt::learn::multilabel::MultiLabelOptions;
use rosenblatt::learn::{
    AnyLearner, AveragedPerceptron, EarlyStopping, LogisticRegression, MarginPerceptron,
    NearestCentroid, OnlineOptions, PassiveAggressive, SoftmaxRegression, Solver, Thresholds,
    Winnow,
};

/// The gradient solvers `--solver` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolverName {
    /// Steepest descent on the full gradient, one step per epoch.
    Batch,
    /// One step per document.
    Sgd,
    /// One step per --batch-size documents.
    Minibatch,
}

/// How multi-label thresholds are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ThresholdMode {
    /// The F1-best cut of each label's out-of-fold scores (--threshold-folds folds).
    Cv,
    /// 0 for discriminants, ½ for softmax probabilities.
    Default,
}

/// Flags of the learners other than the perceptron and the kernel perceptron.
#[derive(Debug, Args, Clone)]
pub struct LearnerArgs {
    /// Margin τ: margin-perceptron updates when y·(w·x + b) ≤ τ [default: 1]; winnow also
    /// updates below it [default: 0].
    #[arg(long)]
    pub margin: Option<f32>,
    /// PA-I aggressiveness C: the largest step [default: 1].
    #[arg(long = "pa-c")]
    pub pa_c: Option<f32>,
    /// Winnow's promotion factor α > 1 [default: 1.5].
    #[arg(long)]
    pub alpha: Option<f32>,
    /// Return the averaged weights (margin-perceptron, pa).
    #[arg(long)]
    pub average: bool,
    /// Visit documents in input order, as the textbook perceptron does, instead of a fresh
    /// seeded shuffle per epoch (every learner shuffles by default). Input sorted by class
    /// (class folders) then pulls the model towards the last class; train warns.
    #[arg(long)]
    pub no_shuffle: bool,
    /// Multiply the steps on positive examples (helps rare classes in one-vs-rest).
    #[arg(long, default_value_t = 1.0)]
    pub positive_weight: f32,
    /// L2 strength λ of logistic and softmax regression.
    #[arg(long, default_value_t = 1e-5)]
    pub l2: f32,
    /// Gradient solver of logistic regression (softmax: sgd or minibatch).
    #[arg(long, value_enum, default_value_t = SolverName::Sgd)]
    pub solver: SolverName,
    /// Documents per step for --solver minibatch.
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    /// Learning-rate decay of logistic and softmax regression.
    #[arg(long, value_enum, default_value_t = RateScheduleName::InverseSqrt)]
    pub lr_schedule: RateScheduleName,
    /// Logistic regression: hold out this fraction and stop when its log-loss stops
    /// improving (the best epoch is kept).
    #[arg(long, value_name = "FRACTION")]
    pub early_stop: Option<f64>,
    /// Epochs without held-out improvement before --early-stop stops.
    #[arg(long, default_value_t = 3)]
    pub early_stop_patience: usize,
    /// Multi-label: how per-label thresholds are chosen.
    #[arg(long, value_enum, default_value_t = ThresholdMode::Cv)]
    pub thresholds: ThresholdMode,
    /// Multi-label: folds of the threshold cross-validation.
    #[arg(long, default_value_t = 5)]
    pub threshold_folds: usize,
    /// Multi-label: labels whose best cross-validated F1 is below this keep the default
    /// threshold.
    #[arg(long, default_value_t = 0.3)]
    pub threshold_min_f1: f64,
    /// Multi-label: allow documents with no label (by default a document with no score
    /// above threshold gets its best label).
    #[arg(long)]
    pub allow_empty: bool,
}

impl LearnerArgs {
    /// The multi-label settings.
    pub fn multilabel(&self, seed: u64) -> MultiLabelOptions {
        MultiLabelOptions {
            thresholds: match self.thresholds {
                ThresholdMode::Cv => Thresholds::CrossValidated {
                    folds: self.threshold_folds,
                    seed,
                    min_f1: self.threshold_min_f1,
                },
                ThresholdMode::Default => Thresholds::Default,
            },
            at_least_one: !self.allow_empty,
        }
    }
}

/// Refuses flags that the chosen learner would ignore.
pub fn refuse_unused(a: &TrainArgs) -> Result<()> {
    let f = &a.learners;
    let per_perceptron = matches!(
        a.learner,
        LearnerName::AveragedPerceptron | LearnerName::MarginPerceptron | LearnerName::Pa
    );
    if !per_perceptron && (f.average || f.pa_c.is_some()) {
        bail!("--average and --pa-c apply to the perceptron family (margin-perceptron, pa)");
    }
    if f.margin.is_some()
        && !matches!(
            a.learner,
            LearnerName::MarginPerceptron | LearnerName::Winnow
        )
    {
        bail!("--margin applies to --learner margin-perceptron and winnow only");
    }
    if f.alpha.is_some() && a.learner != LearnerName::Winnow {
        bail!("--alpha applies to --learner winnow only");
    }
    if f.early_stop.is_some() && a.learner != LearnerName::Logistic {
        bail!("--early-stop applies to --learner logistic only");
    }
    if f.no_shuffle
        && matches!(
            a.learner,
            LearnerName::Centroid | LearnerName::Logistic | LearnerName::Softmax
        )
    {
        bail!(
            "--no-shuffle applies to the perceptron family and winnow (centroids ignore \
             order; gradient descent always draws its seeded order)"
        );
    }
    if f.no_shuffle && a.mode == Mode::Random {
        bail!("--no-shuffle does not apply to --mode random (it draws documents at random)");
    }
    Ok(())
}

/// The learner named by `--learner`, for the names this file handles (`None`: another).
pub fn learner(a: &TrainArgs) -> Result<Option<AnyLearner>> {
    refuse_unused(a)?;
    let f = &a.learners;
    let online = OnlineOptions {
        epochs: a.epochs,
        bias: a.bias != BiasName::None,
        average: f.average,
        shuffle: a.shuffle(),
        positive_weight: f.positive_weight,
    };
    if a.mode != Mode::Batch
        && !matches!(
            a.learner,
            LearnerName::Perceptron | LearnerName::KernelPerceptron
        )
    {
        bail!("--mode applies to the perceptron and the kernel perceptron only");
    }
    let solver = match f.solver {
        SolverName::Batch => Solver::Batch,
        SolverName::Sgd => Solver::Sgd,
        SolverName::Minibatch => Solver::MiniBatch(f.batch_size),
    };
    let l = match a.learner {
        LearnerName::AveragedPerceptron => AnyLearner::AveragedPerceptron(AveragedPerceptron {
            online: OnlineOptions {
                average: true,
                ..online
            },
        }),
        LearnerName::MarginPerceptron => AnyLearner::MarginPerceptron(MarginPerceptron {
            tau: f.margin.unwrap_or(1.0),
            eta: a.eta,
            online,
        }),
        LearnerName::Pa => AnyLearner::PassiveAggressive(PassiveAggressive {
            c: f.pa_c.unwrap_or(1.0),
            online,
        }),
        LearnerName::Winnow => AnyLearner::Winnow(Winnow {
            alpha: f.alpha.unwrap_or(1.5),
            epochs: a.epochs,
            bias: a.bias != BiasName::None,
            margin: f.margin.unwrap_or(0.0),
            shuffle: online.shuffle,
        }),
        LearnerName::Centroid => AnyLearner::Centroid(NearestCentroid),
        LearnerName::Logistic => AnyLearner::Logistic(LogisticRegression {
            solver,
            eta: a.eta,
            schedule: f.lr_schedule.into(),
            l2: f.l2,
            epochs: a.epochs,
            bias: a.bias != BiasName::None,
            early_stopping: f.early_stop.map(|fraction| EarlyStopping {
                fraction,
                patience: f.early_stop_patience,
            }),
            seed: a.seed,
            positive_weight: f.positive_weight,
        }),
        LearnerName::Softmax => {
            if f.solver == SolverName::Batch {
                bail!("softmax regression trains with --solver sgd or minibatch");
            }
            AnyLearner::Softmax(SoftmaxRegression {
                eta: a.eta,
                schedule: f.lr_schedule.into(),
                l2: f.l2,
                epochs: a.epochs,
                batch: if f.solver == SolverName::Minibatch {
                    f.batch_size
                } else {
                    1
                },
                seed: a.seed,
            })
        }
        _ => return Ok(None),
    };
    Ok(Some(l))
}

/// A one-line description of the learner's settings, for the model's metadata.
pub fn describe(l: &AnyLearner) -> Option<String> {
    let on = |o: &OnlineOptions| {
        format!(
            "{} epochs, bias {}, averaged {}, shuffle {}",
            o.epochs,
            o.bias,
            o.average,
            o.shuffle.is_some()
        )
    };
    Some(match l {
        AnyLearner::AveragedPerceptron(p) => on(&p.online),
        AnyLearner::MarginPerceptron(p) => {
            format!("margin {}, eta {}, {}", p.tau, p.eta, on(&p.online))
        }
        AnyLearner::PassiveAggressive(p) => format!("C {}, {}", p.c, on(&p.online)),
        AnyLearner::Winnow(w) => format!(
            "alpha {}, margin {}, {} epochs",
            w.alpha, w.margin, w.epochs
        ),
        AnyLearner::Centroid(_) => "class means".to_string(),
        AnyLearner::Logistic(r) => format!(
            "{:?}, eta {} ({:?}), l2 {}, {} epochs, early stopping {:?}",
            r.solver, r.eta, r.schedule, r.l2, r.epochs, r.early_stopping
        )
        .to_lowercase(),
        AnyLearner::Softmax(s) => format!(
            "batch {}, eta {} ({:?}), l2 {}, {} epochs",
            s.batch, s.eta, s.schedule, s.l2, s.epochs
        )
        .to_lowercase(),
        _ => return None,
    })
}
