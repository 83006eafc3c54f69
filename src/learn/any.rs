//! The learners and models a saved model can hold, as enums (not trait objects), so a
//! model file names exactly what it contains and a learner's name maps to one variant
//! ([`AnyLearner::from_name`], with the defaults the command line uses).

use super::{
    AveragedPerceptron, LogisticRegression, MarginPerceptron, NearestCentroid, PassiveAggressive,
    Schedule, SoftmaxRegression, Winnow,
};
use super::{Check, Checked, Classifier, Fitted, Label, Learner, LinearModel, Perceptron};
use super::{KernelModel, KernelPerceptron, TrainReport};
use crate::Result;
use crate::error::ConfigError;
use crate::features::{RowRef, SparseRows};
use serde::{Deserialize, Serialize};

/// Any learner's configuration; checked, it fits binary, multiclass and multi-label
/// targets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AnyLearner {
    /// Rosenblatt's perceptron.
    Perceptron(Perceptron),
    /// The dual (kernel) perceptron, for small corpora.
    KernelPerceptron(KernelPerceptron),
    /// The averaged perceptron.
    AveragedPerceptron(AveragedPerceptron),
    /// The perceptron that updates when the margin is at most τ.
    MarginPerceptron(MarginPerceptron),
    /// Passive-Aggressive PA-I.
    PassiveAggressive(PassiveAggressive),
    /// Balanced Winnow (multiplicative updates).
    Winnow(Winnow),
    /// The nearest class centroid.
    Centroid(NearestCentroid),
    /// Logistic regression (batch, SGD, mini-batch).
    Logistic(LogisticRegression),
    /// Softmax regression (binary problems: two classes; see `softmax` for more).
    Softmax(SoftmaxRegression),
}

/// Any fitted binary model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AnyModel {
    /// w·x + b.
    Linear(LinearModel),
    /// Σ c_s K(x_s, x) + b over support vectors.
    Kernel(Box<KernelModel>),
    /// A logit w·x + b with P(y = 1 | x) = θ(w·x + b) (logistic and softmax regression).
    Logistic(LinearModel),
}

/// The learner `rosenblatt train` uses when no `--learner` is given: averaged PA-I.
impl Default for AnyLearner {
    fn default() -> Self {
        AnyLearner::PassiveAggressive(PassiveAggressive::default())
    }
}

impl AnyLearner {
    /// The names [`AnyLearner::from_name`] knows, one per variant (the command line's
    /// `--learner` names).
    pub const NAMES: [&'static str; 9] = [
        "perceptron",
        "kernel-perceptron",
        "averaged-perceptron",
        "margin-perceptron",
        "pa",
        "winnow",
        "centroid",
        "logistic",
        "softmax",
    ];

    /// The learner called `name`, with its defaults (the command line's defaults), or
    /// `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<AnyLearner> {
        Some(match name {
            "perceptron" => AnyLearner::Perceptron(Perceptron::default()),
            "kernel-perceptron" => AnyLearner::KernelPerceptron(KernelPerceptron::default()),
            "averaged-perceptron" => AnyLearner::AveragedPerceptron(AveragedPerceptron::default()),
            "margin-perceptron" => AnyLearner::MarginPerceptron(MarginPerceptron::default()),
            "pa" => AnyLearner::PassiveAggressive(PassiveAggressive::default()),
            "winnow" => AnyLearner::Winnow(Winnow::default()),
            "centroid" => AnyLearner::Centroid(NearestCentroid),
            "logistic" => AnyLearner::Logistic(LogisticRegression::default()),
            "softmax" => AnyLearner::Softmax(SoftmaxRegression::default()),
            _ => return None,
        })
    }

    /// The learner's name, as [`AnyLearner::from_name`] takes it.
    pub fn name(&self) -> &'static str {
        match self {
            AnyLearner::Perceptron(_) => "perceptron",
            AnyLearner::KernelPerceptron(_) => "kernel-perceptron",
            AnyLearner::AveragedPerceptron(_) => "averaged-perceptron",
            AnyLearner::MarginPerceptron(_) => "margin-perceptron",
            AnyLearner::PassiveAggressive(_) => "pa",
            AnyLearner::Winnow(_) => "winnow",
            AnyLearner::Centroid(_) => "centroid",
            AnyLearner::Logistic(_) => "logistic",
            AnyLearner::Softmax(_) => "softmax",
        }
    }

    /// Sets the number of passes over the data (the epoch cap of the perceptrons'
    /// until-convergence schedule; the randomized and online schedules and the centroid,
    /// which make no epochs, are left as they are).
    pub fn set_epochs(&mut self, epochs: usize) {
        let schedule = |s: &mut Schedule| match s {
            Schedule::Epochs(e) | Schedule::UntilConvergence { max_epochs: e } => *e = epochs,
            Schedule::Online | Schedule::Randomized { .. } => {}
        };
        match self {
            AnyLearner::Perceptron(p) => schedule(&mut p.schedule),
            AnyLearner::KernelPerceptron(p) => schedule(&mut p.schedule),
            AnyLearner::AveragedPerceptron(p) => p.online.epochs = epochs,
            AnyLearner::MarginPerceptron(p) => p.online.epochs = epochs,
            AnyLearner::PassiveAggressive(p) => p.online.epochs = epochs,
            AnyLearner::Winnow(p) => p.epochs = epochs,
            AnyLearner::Centroid(_) => {}
            AnyLearner::Logistic(p) => p.epochs = epochs,
            AnyLearner::Softmax(p) => p.epochs = epochs,
        }
    }

    /// Sets the visiting order of the learners that offer one: a seeded shuffle per epoch,
    /// or input order (`None`). Gradient descent always draws its seeded order and the
    /// centroid ignores order; both are left as they are.
    pub fn set_shuffle(&mut self, shuffle: Option<u64>) {
        match self {
            AnyLearner::Perceptron(p) => p.shuffle = shuffle,
            AnyLearner::KernelPerceptron(p) => p.shuffle = shuffle,
            AnyLearner::AveragedPerceptron(p) => p.online.shuffle = shuffle,
            AnyLearner::MarginPerceptron(p) => p.online.shuffle = shuffle,
            AnyLearner::PassiveAggressive(p) => p.online.shuffle = shuffle,
            AnyLearner::Winnow(p) => p.shuffle = shuffle,
            AnyLearner::Centroid(_) | AnyLearner::Logistic(_) | AnyLearner::Softmax(_) => {}
        }
    }

    /// The rule a two-class filter trained by this learner goes on learning by, one message
    /// at a time (`learn`, the TREC online protocol): its own step with its own constants —
    /// the perceptrons add on mistakes (the margin perceptron within τ), PA takes PA-I
    /// steps, logistic regression a gradient step at its rate η (decaying when its
    /// schedule decays). `None` for learners whose model is not linear (the kernel
    /// perceptron, Winnow's two weight vectors, the centroid, softmax).
    pub(crate) fn update_rule(&self) -> Option<super::UpdateRule> {
        use super::{Rate, UpdateRule};
        Some(match self {
            AnyLearner::Perceptron(_) | AnyLearner::AveragedPerceptron(_) => UpdateRule::Perceptron,
            AnyLearner::MarginPerceptron(p) => UpdateRule::Margin { tau: p.tau },
            AnyLearner::PassiveAggressive(p) => UpdateRule::PassiveAggressive { c: p.c },
            AnyLearner::Logistic(p) => UpdateRule::Logistic {
                eta: p.eta,
                rate: match p.schedule {
                    super::RateSchedule::Constant => Rate::Constant,
                    _ => Rate::Decaying,
                },
            },
            AnyLearner::KernelPerceptron(_)
            | AnyLearner::Winnow(_)
            | AnyLearner::Centroid(_)
            | AnyLearner::Softmax(_) => return None,
        })
    }

    /// Whether the fitted model has a bias to fold into the margin (theory diagnostics).
    pub(crate) fn has_bias(&self) -> bool {
        match self {
            AnyLearner::Perceptron(p) => p.bias != super::Bias::None,
            AnyLearner::KernelPerceptron(p) => p.bias != super::Bias::None,
            AnyLearner::AveragedPerceptron(p) => p.online.bias,
            AnyLearner::MarginPerceptron(p) => p.online.bias,
            AnyLearner::PassiveAggressive(p) => p.online.bias,
            AnyLearner::Winnow(p) => p.bias,
            AnyLearner::Centroid(_) => true,
            AnyLearner::Logistic(p) => p.bias,
            AnyLearner::Softmax(_) => true,
        }
    }
}

impl Check for AnyLearner {
    fn validate(&self) -> std::result::Result<(), ConfigError> {
        match self {
            AnyLearner::Perceptron(p) => p.validate(),
            AnyLearner::KernelPerceptron(p) => p.validate(),
            AnyLearner::AveragedPerceptron(p) => p.validate(),
            AnyLearner::MarginPerceptron(p) => p.validate(),
            AnyLearner::PassiveAggressive(p) => p.validate(),
            AnyLearner::Winnow(p) => p.validate(),
            AnyLearner::Centroid(p) => p.validate(),
            AnyLearner::Logistic(p) => p.validate(),
            AnyLearner::Softmax(p) => p.validate(),
        }
    }
}

/// A binary problem: the variant's own fit (softmax: the logit of the positive class).
impl Learner for Checked<AnyLearner> {
    type Model = AnyModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<AnyModel>> {
        // Each variant was checked as part of this one.
        fn fit<P: Copy, X: SparseRows, M>(p: &P, x: &X, y: &[Label]) -> Result<Fitted<M>>
        where
            Checked<P>: Learner<Model = M>,
        {
            Checked::assume(*p).fit(x, y)
        }
        match &**self {
            AnyLearner::Perceptron(p) => wrap(fit(p, x, y)?, AnyModel::Linear),
            AnyLearner::KernelPerceptron(p) => {
                wrap(fit(p, x, y)?, |m| AnyModel::Kernel(Box::new(m)))
            }
            AnyLearner::AveragedPerceptron(p) => wrap(fit(p, x, y)?, AnyModel::Linear),
            AnyLearner::MarginPerceptron(p) => wrap(fit(p, x, y)?, AnyModel::Linear),
            AnyLearner::PassiveAggressive(p) => wrap(fit(p, x, y)?, AnyModel::Linear),
            AnyLearner::Winnow(p) => wrap(fit(p, x, y)?, AnyModel::Linear),
            AnyLearner::Centroid(p) => wrap(fit(p, x, y)?, AnyModel::Linear),
            AnyLearner::Logistic(p) => wrap(fit(p, x, y)?, AnyModel::Logistic),
            AnyLearner::Softmax(p) => wrap(fit(p, x, y)?, AnyModel::Logistic),
        }
    }
}

fn wrap<M, N>(f: Fitted<M>, into: impl FnOnce(M) -> N) -> Result<Fitted<N>> {
    Ok(Fitted {
        model: into(f.model),
        report: f.report,
    })
}

impl AnyModel {
    /// The linear model inside, where there is one (for diagnostics and `inspect`).
    pub fn as_linear(&self) -> Option<&LinearModel> {
        match self {
            AnyModel::Linear(m) | AnyModel::Logistic(m) => Some(m),
            AnyModel::Kernel(_) => None,
        }
    }

    /// P(y = 1 | x) for a score, where the model is probabilistic.
    pub fn probability(&self, score: f32) -> Option<f32> {
        match self {
            AnyModel::Logistic(_) => Some(super::logistic::sigmoid(score)),
            _ => None,
        }
    }

    /// The kernel model inside, where there is one.
    pub fn as_kernel(&self) -> Option<&KernelModel> {
        match self {
            AnyModel::Kernel(m) => Some(m.as_ref()),
            _ => None,
        }
    }
}

impl Classifier for AnyModel {
    #[inline]
    fn score(&self, row: RowRef<'_>) -> f32 {
        match self {
            AnyModel::Linear(m) => m.score(row),
            AnyModel::Kernel(m) => m.score(row),
            AnyModel::Logistic(m) => m.score(row),
        }
    }
}

/// The mistakes of every problem in each epoch, summed (a problem that stopped early adds
/// nothing to the later epochs).
fn sum_per_epoch(reports: &[TrainReport]) -> Vec<u64> {
    let epochs = reports
        .iter()
        .map(|r| r.mistakes_per_epoch.len())
        .max()
        .unwrap_or(0);
    let mut sum = vec![0; epochs];
    for r in reports {
        for (s, m) in sum.iter_mut().zip(&r.mistakes_per_epoch) {
            *s += m;
        }
    }
    sum
}

/// Combines the reports of several binary problems (one-vs-rest): totals and maxima.
pub(crate) fn combine_reports(reports: &[TrainReport]) -> TrainReport {
    TrainReport {
        epochs: reports.iter().map(|r| r.epochs).max().unwrap_or(0),
        steps: reports.iter().map(|r| r.steps).sum(),
        updates: reports.iter().map(|r| r.updates).sum(),
        mistakes_per_epoch: sum_per_epoch(reports),
        converged: reports
            .iter()
            .map(|r| r.converged)
            .try_fold(true, |acc, c| c.map(|c| acc && c)),
    }
}
