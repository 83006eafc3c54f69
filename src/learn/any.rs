//! What any learner offers the rest of the program ([`AnyLearner`]'s methods, each a
//! dispatch to the learner's own file through the registry), and the models a saved
//! model can hold ([`AnyModel`]), as enums rather than trait objects, so a model file
//! names exactly what it contains.

use super::kind::LearnerKind;
use super::mixing::{LocalEpoch, MixPlan};
use super::online::OnlineOptions;
use super::registry::each;
use super::step::Rule;
use super::{AnyLearner, Bias, Classifier, KernelModel, Label, LinearModel, PassiveAggressive};
use super::{Schedule, Setting, TrainReport, UpdateRule};
use crate::error::Param;
use crate::features::{RowRef, SparseRows};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

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
    /// The learner's name, as [`AnyLearner::from_name`] takes it.
    pub fn name(&self) -> &'static str {
        each!(self, l => kind_name(l))
    }

    /// One line on what the learner named `name` is (`None`: no such learner).
    pub fn about(name: &str) -> Option<&'static str> {
        AnyLearner::from_name(name).map(|l| each!(l, l => about(&l)))
    }

    /// The parameters this learner takes ([`AnyLearner::set`] refuses the others).
    pub fn accepts(&self) -> &'static [Param] {
        each!(self, l => accepts(l))
    }

    /// Whether this learner takes `param`.
    pub fn takes(&self, param: Param) -> bool {
        self.accepts().contains(&param)
    }

    /// Applies `setting` where this learner takes its parameter (`Ok(false)`: it does
    /// not, and is left as it is); a value it cannot take is refused as by
    /// [`AnyLearner::set`]. For settings meant for whichever learners have them (a grid's
    /// constant, a benchmark's epochs).
    pub fn set_where_taken(&mut self, setting: Setting) -> Result<bool> {
        if !self.takes(setting.param()) {
            return Ok(false);
        }
        self.set(setting)?;
        Ok(true)
    }

    /// The names of the learners that take `param`, in registry order.
    pub fn taking(param: Param) -> Vec<&'static str> {
        AnyLearner::NAMES
            .iter()
            .filter_map(|n| AnyLearner::from_name(n))
            .filter(|l| l.takes(param))
            .map(|l| l.name())
            .collect()
    }

    /// Applies `setting`; a parameter this learner does not take, or a value it cannot,
    /// is refused (a setting it would ignore is an error, not a silent no-op).
    pub fn set(&mut self, setting: Setting) -> Result<()> {
        let param = setting.param();
        if !self.takes(param) {
            let takers = AnyLearner::taking(param);
            return Err(Error::Unsupported(format!(
                "{} does not take {} ({}); {} {}",
                self.name(),
                param.noun(),
                param.name(),
                list(&takers),
                if takers.len() == 1 { "does" } else { "do" }
            )));
        }
        each!(self, l => l.set(setting))?;
        Ok(())
    }

    /// Seeds what the learner draws at random (shuffles, random draws, held-out rows).
    pub fn set_seed(&mut self, seed: u64) {
        each!(self, l => l.set_seed(seed))
    }

    /// The learner's settings in a few words, for a model's metadata.
    pub fn describe(&self) -> String {
        each!(self, l => l.describe())
    }

    /// The values of its main constant the default tuning grid tries.
    pub(crate) fn tuned(&self) -> &'static [Setting] {
        each!(self, l => tuned(l))
    }

    /// A rough cost of one epoch, relative to ten of the averaged perceptron.
    pub(crate) fn cost_per_epoch(&self) -> f64 {
        each!(self, l => cost(l))
    }

    /// The bias the fitted model carries.
    pub(crate) fn bias(&self) -> Bias {
        each!(self, l => l.bias())
    }

    /// Whether the fitted linear model's score is a logit.
    pub(crate) fn probabilistic(&self) -> bool {
        each!(self, l => l.probabilistic())
    }

    /// The rule a two-class filter trained by this learner goes on learning by, one
    /// message at a time (`learn`, the TREC online protocol); `None` for learners whose
    /// model is not one weight vector updated additively.
    pub(crate) fn update_rule(&self) -> Option<UpdateRule> {
        each!(self, l => l.update_rule())
    }

    /// The additive online learners' options and step.
    pub(crate) fn online_rule(&self) -> Option<(OnlineOptions, Rule)> {
        each!(self, l => l.online_rule())
    }

    /// How its rounds run under parameter mixing; `None` if it does not mix.
    pub(crate) fn mix_plan(&self) -> Option<MixPlan> {
        each!(self, l => l.mix_plan())
    }

    /// A worker's epoch of parameter mixing; `None` if it does not mix.
    pub(crate) fn local_epoch<X: SparseRows>(
        &self,
        x: &X,
        y: &[Label],
        start: &LinearModel,
        round: usize,
    ) -> Option<Result<LocalEpoch>> {
        each!(self, l => l.local_epoch(x, y, start, round))
    }

    /// Its perceptron schedule, where it has one.
    pub(crate) fn schedule_mut(&mut self) -> Option<&mut Schedule> {
        each!(self, l => l.schedule_mut())
    }
}

fn kind_name<K: LearnerKind>(_: &K) -> &'static str {
    K::NAME
}

fn about<K: LearnerKind>(_: &K) -> &'static str {
    K::ABOUT
}

fn accepts<K: LearnerKind>(_: &K) -> &'static [Param] {
    K::ACCEPTS
}

fn tuned<K: LearnerKind>(_: &K) -> &'static [Setting] {
    K::TUNED
}

fn cost<K: LearnerKind>(_: &K) -> f64 {
    K::COST_PER_EPOCH
}

/// "a", "a and b", "a, b and c".
fn list(names: &[&str]) -> String {
    match names {
        [] => "no learner".to_string(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
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
