//! The flags every `train` learner reads first: which learner (`--learner`), and the
//! perceptrons' visiting order, step and seed (`--mode`, `--epochs`, `--eta`, `--bias`,
//! `--rounds`, `--patience`, `--seed`). The kernel and the other learners' flags build on
//! these, so they live below both.

use super::names::{BiasName, flag};
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Args, ValueEnum};
use rosenblatt::learn::{AnyLearner, Schedule};

/// The perceptron's visiting order and stopping rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// One predict-then-learn pass; reports the online mistakes.
    Online,
    /// `--epochs` passes in order.
    Batch,
    /// Passes in order until one makes no mistake, at most `--epochs`.
    Converge,
    /// `--rounds` examples drawn at random (seeded); see `--patience`.
    Random,
}

/// The values `--learner` accepts: the library's learners, each with its line and the
/// flags it reads (its parameters, under their flags).
pub fn learner_values() -> PossibleValuesParser {
    learner_values_but(&[])
}

/// [`learner_values`] without the learners `left_out` (those a subcommand cannot run), so
/// that `--help` lists only what the flag takes.
pub fn learner_values_but(left_out: &[&str]) -> PossibleValuesParser {
    let names = AnyLearner::NAMES.iter().filter(|n| !left_out.contains(n));
    PossibleValuesParser::new(names.map(|&name| {
        let learner = AnyLearner::from_name(name).expect("a registry name");
        let flags: Vec<&str> = learner.accepts().iter().filter_map(|&p| flag(p)).collect();
        let reads = match flags.as_slice() {
            [] => "no parameters".to_string(),
            _ => format!("reads {}", flags.join(", ")),
        };
        let about = AnyLearner::about(name).unwrap_or_default();
        PossibleValue::new(name).help(format!("{about} ({reads})"))
    }))
}

/// `--learner` and the schedule flags of `train`.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Learner")]
pub struct ScheduleArgs {
    /// The learning algorithm [default: pa, averaged, over idf-weighted unit-length rows:
    /// the best mean accuracy over seeded splits of the corpora measured (`cargo run
    /// --release --example accuracy`); for a spam filter pa for 20 epochs keeping its last
    /// weights, over binary unit-length rows]. With --tune, fixes the grid's learner.
    #[arg(long, value_parser = learner_values())]
    pub learner: Option<String>,
    /// Perceptron schedule [default: batch].
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Epochs (batch), or the epoch cap (converge) [default: 7 for pa, 20 for a spam
    /// filter's pa, 10 for the others]. With --tune, fixes the epochs of every point.
    #[arg(long, value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub epochs: Option<usize>,
    /// Learning rate η [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub eta: Option<f32>,
    /// Bias: none (h = sgn(w·x)), augmented (constant feature 1), r2 (b += η·y·R²; the
    /// perceptrons only) [default: augmented].
    #[arg(long, value_enum)]
    pub bias: Option<BiasName>,
    /// Random draws for --mode random (default: 10 × the number of documents).
    #[arg(long, value_parser = super::names::whole(1u64), allow_negative_numbers = true)]
    pub rounds: Option<u64>,
    /// For --mode random: stop after this many consecutive draws without an update.
    #[arg(long, value_parser = super::names::whole(1u64), allow_negative_numbers = true)]
    pub patience: Option<u64>,
    /// Seed of the per-epoch shuffle, of random draws and of the --holdout / --cv splits.
    #[arg(long, default_value_t = 42, value_parser = super::names::whole(0u64), allow_negative_numbers = true)]
    pub seed: u64,
}

impl ScheduleArgs {
    /// The learner named, or the default pa.
    pub fn learner(&self) -> &str {
        self.learner.as_deref().unwrap_or("pa")
    }

    /// Whether `--mode random` was given.
    pub fn random(&self) -> bool {
        self.mode == Some(Mode::Random)
    }

    /// The perceptrons' schedule set by `--mode`, `--epochs`, `--rounds`, `--patience`
    /// and `--seed` (`None` without `--mode`). Without `--rounds`, random mode draws 10 ×
    /// the number of documents, known only once they are read: until then the schedule
    /// holds 1 draw (see `TrainPlan::config_for`).
    pub fn schedule(&self) -> Option<Schedule> {
        let epochs = self.epochs.unwrap_or(10);
        Some(match self.mode? {
            Mode::Online => Schedule::Online,
            Mode::Batch => Schedule::Epochs(epochs),
            Mode::Converge => Schedule::UntilConvergence { max_epochs: epochs },
            Mode::Random => Schedule::Randomized {
                rounds: self.rounds.unwrap_or(1),
                seed: self.seed,
                patience: self.patience,
            },
        })
    }
}
