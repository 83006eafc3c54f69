//! What the rest of the library asks of a learner, in one trait: its name and a line
//! about it, the parameters it takes and how a [`Setting`] changes it, its bias, its
//! description for a model's metadata, its step rule when a filter goes on learning
//! message by message, how it runs under parameter mixing, and what the tuning grid
//! varies. Each learner's file implements it; [`super::AnyLearner`] dispatches to it
//! (the registry in `registry.rs`), so adding a learner is its file and a registry line.

use super::UpdateRule;
use super::mixing::{LocalEpoch, MixPlan};
use super::online::{OnlineOptions, run_epochs};
use super::step::Rule;
use super::{Bias, Check, Label, LinearModel, Schedule, Setting};
use crate::Result;
use crate::error::{ConfigError, Param};
use crate::features::SparseRows;

/// A learner's configuration, as the registry sees it.
pub(crate) trait LearnerKind: Check + Copy + Default {
    /// The name `--learner` and [`super::AnyLearner::from_name`] take.
    const NAME: &'static str;
    /// One line on what it is (the command line's list of learners).
    const ABOUT: &'static str;
    /// The parameters [`LearnerKind::set`] takes; any other is refused.
    const ACCEPTS: &'static [Param];
    /// The values of its main constant that the default tuning grid tries (none: the
    /// grid tunes it on the other dimensions only).
    const TUNED: &'static [Setting] = &[];
    /// A rough cost of one epoch relative to ten epochs of the averaged perceptron, to
    /// run cheap grid points first.
    const COST_PER_EPOCH: f64 = 0.1;

    /// Applies a setting of a parameter in [`LearnerKind::ACCEPTS`] (others never reach
    /// it); a value this learner cannot take is a [`ConfigError`].
    fn set(&mut self, setting: Setting) -> Result<(), ConfigError>;

    /// Seeds what it draws at random (shuffles, draws, held-out rows); learners that draw
    /// nothing ignore it.
    fn set_seed(&mut self, seed: u64);

    /// The bias the fitted model carries (theory folds it into the margin).
    fn bias(&self) -> Bias;

    /// Its settings in a few words, for the model's metadata.
    fn describe(&self) -> String;

    /// Whether its linear model's score is a logit (P(y = 1 | x) = θ(score)).
    fn probabilistic(&self) -> bool {
        false
    }

    /// The rule a two-class filter trained by it goes on learning by, one message at a
    /// time; `None` for learners whose model is not one weight vector updated additively.
    fn update_rule(&self) -> Option<UpdateRule> {
        None
    }

    /// The additive online learners' options and step (one-vs-rest in one pass).
    fn online_rule(&self) -> Option<(OnlineOptions, Rule)> {
        None
    }

    /// Its options and step under parameter mixing (the epochs are the rounds).
    fn mixing_rule(&self) -> Option<(OnlineOptions, Rule)> {
        self.online_rule()
    }

    /// How its rounds run under parameter mixing; `None` if it does not mix.
    fn mix_plan(&self) -> Option<MixPlan> {
        self.mixing_rule().map(|(o, _)| MixPlan {
            rounds: o.epochs,
            average: o.average,
        })
    }

    /// A worker's epoch `round` over its rows from the mixed weights `start`.
    fn local_epoch<X: SparseRows>(
        &self,
        x: &X,
        y: &[Label],
        start: &LinearModel,
        round: usize,
    ) -> Option<Result<LocalEpoch>> {
        let (opt, rule) = self.mixing_rule()?;
        let opt = OnlineOptions { epochs: 1, ..opt };
        Some(
            run_epochs(x, y, &opt, |m, q| rule.step(m, q), Some(start), round).map(|run| {
                LocalEpoch {
                    last: run.last,
                    average: run.average,
                    visits: run.report.steps,
                    updates: run.report.updates,
                    mistakes: run.report.mistakes_per_epoch.iter().sum(),
                }
            }),
        )
    }

    /// Its perceptron schedule, where it has one (random draws are set per document).
    fn schedule_mut(&mut self) -> Option<&mut Schedule> {
        None
    }
}

/// The bias of a learner with an on/off bias.
pub(crate) fn bias_of(on: bool) -> Bias {
    if on { Bias::Augmented } else { Bias::None }
}

/// In input order or shuffled, in words.
pub(crate) fn order(shuffle: Option<u64>) -> String {
    match shuffle {
        Some(seed) => format!("shuffled (seed {seed})"),
        None => "in input order".to_string(),
    }
}
