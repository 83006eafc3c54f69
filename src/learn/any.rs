//! The learners and models a saved model can hold, as enums (not trait objects), so a
//! model file names exactly what it contains and `--learner NAME` maps to one variant.

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
}

/// Any fitted binary model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AnyModel {
    /// w·x + b.
    Linear(LinearModel),
    /// Σ c_s K(x_s, x) + b over support vectors.
    Kernel(KernelModel),
}

impl AnyLearner {
    /// The learner's command-line name.
    pub fn name(&self) -> &'static str {
        match self {
            AnyLearner::Perceptron(_) => "perceptron",
            AnyLearner::KernelPerceptron(_) => "kernel-perceptron",
        }
    }

    /// Checks hyper-parameters before any work.
    pub fn validate(&self) -> Result<()> {
        match self {
            AnyLearner::Perceptron(p) => p.validate(),
            AnyLearner::KernelPerceptron(p) => p.validate(),
        }
    }

    /// Fits a binary model.
    pub fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<AnyModel>> {
        match self {
            AnyLearner::Perceptron(p) => wrap(p.fit(x, y)?, AnyModel::Linear),
            AnyLearner::KernelPerceptron(p) => wrap(p.fit(x, y)?, AnyModel::Kernel),
        }
    }

    /// Whether the fitted model has a bias to fold into the margin (theory diagnostics).
    pub fn has_bias(&self) -> bool {
        match self {
            AnyLearner::Perceptron(p) => p.bias != super::Bias::None,
            AnyLearner::KernelPerceptron(p) => p.bias != super::Bias::None,
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
            AnyModel::Linear(m) => Some(m),
            AnyModel::Kernel(_) => None,
        }
    }

    /// The kernel model inside, where there is one.
    pub fn as_kernel(&self) -> Option<&KernelModel> {
        match self {
            AnyModel::Kernel(m) => Some(m),
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
