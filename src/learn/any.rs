//! The learners and models a saved model can hold, as enums (not trait objects), so a
//! model file names exactly what it contains and `--learner NAME` maps to one variant.

use super::{
    AveragedPerceptron, LogisticRegression, MarginPerceptron, NearestCentroid, PassiveAggressive,
    SoftmaxRegression, Winnow,
};
use super::{Classifier, Fitted, Label, Learner, LinearModel, Perceptron, TrainReport};
use super::{KernelModel, KernelPerceptron};
use crate::Result;
use crate::features::{RowRef, SparseRows};
use serde::{Deserialize, Serialize};

/// Any binary learner's configuration.
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

impl AnyLearner {
    /// The learner's command-line name.
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

    /// Checks hyper-parameters before any work.
    pub fn validate(&self) -> std::result::Result<(), crate::ConfigError> {
        match self {
            AnyLearner::Perceptron(p) => p.validate(),
            AnyLearner::KernelPerceptron(p) => p.validate(),
            AnyLearner::AveragedPerceptron(p) => p.validate(),
            AnyLearner::MarginPerceptron(p) => p.validate(),
            AnyLearner::PassiveAggressive(p) => p.validate(),
            AnyLearner::Winnow(p) => p.validate(),
            AnyLearner::Centroid(_) => Ok(()),
            AnyLearner::Logistic(p) => p.validate(),
            AnyLearner::Softmax(p) => p.validate(),
        }
    }

    /// Fits a binary model.
    pub fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<AnyModel>> {
        match self {
            AnyLearner::Perceptron(p) => wrap(p.fit(x, y)?, AnyModel::Linear),
            AnyLearner::KernelPerceptron(p) => {
                wrap(p.fit(x, y)?, |m| AnyModel::Kernel(Box::new(m)))
            }
            AnyLearner::AveragedPerceptron(p) => wrap(p.fit(x, y)?, AnyModel::Linear),
            AnyLearner::MarginPerceptron(p) => wrap(p.fit(x, y)?, AnyModel::Linear),
            AnyLearner::PassiveAggressive(p) => wrap(p.fit(x, y)?, AnyModel::Linear),
            AnyLearner::Winnow(p) => wrap(p.fit(x, y)?, AnyModel::Linear),
            AnyLearner::Centroid(p) => wrap(p.fit(x, y)?, AnyModel::Linear),
            AnyLearner::Logistic(p) => wrap(p.fit(x, y)?, AnyModel::Logistic),
            AnyLearner::Softmax(p) => {
                super::check_binary(x, y)?;
                let classes: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
                let f = p.fit_classes(x, &classes, 2)?;
                let m = f.model.to_binary().expect("two classes");
                wrap(
                    Fitted {
                        model: m,
                        report: f.report,
                    },
                    AnyModel::Logistic,
                )
            }
        }
    }

    /// Whether the fitted model has a bias to fold into the margin (theory diagnostics).
    pub fn has_bias(&self) -> bool {
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

fn wrap<M>(f: Fitted<M>, into: impl FnOnce(M) -> AnyModel) -> Result<Fitted<AnyModel>> {
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

/// Combines the reports of several binary problems (one-vs-rest): totals and maxima.
pub fn combine_reports(reports: &[TrainReport]) -> TrainReport {
    TrainReport {
        epochs: reports.iter().map(|r| r.epochs).max().unwrap_or(0),
        steps: reports.iter().map(|r| r.steps).sum(),
        updates: reports.iter().map(|r| r.updates).sum(),
        mistakes_per_epoch: Vec::new(),
        converged: reports
            .iter()
            .map(|r| r.converged)
            .try_fold(true, |acc, c| c.map(|c| acc && c)),
    }
}
