//! The flags every `train` learner reads first: which learner (`--learner`), and the
//! perceptrons' visiting order, step and seed (`--mode`, `--epochs`, `--eta`, `--bias`,
//! `--rounds`, `--patience`, `--seed`). The kernel and the other learners' flags build on
//! these, so they live below both.

use super::names::BiasName;
use clap::{Args, ValueEnum};
use rosenblatt::learn::{PassiveAggressive, Schedule};

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

/// The learners `--learner` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LearnerName {
    /// Rosenblatt's perceptron (see --mode, --epochs, --eta, --bias).
    Perceptron,
    /// The dual (kernel) perceptron, for small corpora (see --kernel, --memory).
    KernelPerceptron,
    /// The averaged perceptron (see --epochs, --bias, --no-shuffle).
    AveragedPerceptron,
    /// Updates when y·(w·x + b) ≤ τ (see --margin, --eta, --average).
    MarginPerceptron,
    /// Passive-Aggressive PA-I, averaged (see --pa-c, --no-average). The default.
    Pa,
    /// Balanced Winnow, multiplicative updates (see --alpha, --margin).
    Winnow,
    /// Nearest class centroid (no parameters).
    Centroid,
    /// Logistic regression (see --solver, --eta, --l2, --lr-schedule, --early-stop).
    Logistic,
    /// Softmax (multinomial) regression (see --solver, --eta, --l2, --lr-schedule).
    Softmax,
}

impl LearnerName {
    /// The library name of a `--learner` value (the command line spells them alike).
    pub fn library_name(self) -> String {
        let value = self
            .to_possible_value()
            .expect("no learner name is skipped");
        value.get_name().to_string()
    }
}

/// `--learner` and the schedule flags of `train`.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Learner")]
pub struct ScheduleArgs {
    /// The learning algorithm [default: pa, averaged, over idf-weighted unit-length rows:
    /// the best mean accuracy over seeded splits of the corpora measured (`cargo run
    /// --release --example accuracy`)]. With --tune, fixes the grid's learner.
    #[arg(long, value_enum)]
    pub learner: Option<LearnerName>,
    /// Perceptron schedule.
    #[arg(long, value_enum, default_value_t = Mode::Batch)]
    pub mode: Mode,
    /// Epochs (batch), or the epoch cap (converge) [default: 7 for pa, 10 for the others].
    /// With --tune, fixes the epochs of every point.
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Learning rate η.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    pub eta: f32,
    /// Bias: none (h = sgn(w·x)), augmented (constant feature 1), r2 (b += η·y·R²).
    #[arg(long, value_enum, default_value_t = BiasName::Augmented)]
    pub bias: BiasName,
    /// Random draws for --mode random (default: 10 × the number of documents).
    #[arg(long)]
    pub rounds: Option<u64>,
    /// For --mode random: stop after this many consecutive draws without an update.
    #[arg(long)]
    pub patience: Option<u64>,
    /// Seed of the per-epoch shuffle, of random draws and of the --holdout / --cv splits.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

impl ScheduleArgs {
    /// The learner named, or the default pa.
    pub fn learner(&self) -> LearnerName {
        self.learner.unwrap_or(LearnerName::Pa)
    }

    /// The epochs given, or the learner's default (pa: 7, the others: 10).
    pub fn epochs(&self) -> usize {
        self.epochs.unwrap_or(match self.learner() {
            LearnerName::Pa => PassiveAggressive::DEFAULT_EPOCHS,
            _ => 10,
        })
    }

    /// The seed of the per-epoch shuffle, or `None` for input order (`--no-shuffle`).
    pub fn shuffle(&self, no_shuffle: bool) -> Option<u64> {
        (!no_shuffle).then_some(self.seed)
    }

    /// The perceptrons' schedule set by `--mode`, `--epochs`, `--rounds`, `--patience`
    /// and `--seed`. Without `--rounds`, random mode draws 10 × the number of documents,
    /// known only once they are read: until then the schedule holds 1 draw (see
    /// `TrainPlan::config_for`).
    pub fn schedule(&self) -> Schedule {
        match self.mode {
            Mode::Online => Schedule::Online,
            Mode::Batch => Schedule::Epochs(self.epochs()),
            Mode::Converge => Schedule::UntilConvergence {
                max_epochs: self.epochs(),
            },
            Mode::Random => Schedule::Randomized {
                rounds: self.rounds.unwrap_or(1),
                seed: self.seed,
                patience: self.patience,
            },
        }
    }

    /// The perceptron's settings in words, for the model's metadata.
    pub fn describe(&self, no_shuffle: bool) -> String {
        let order = match self.shuffle(no_shuffle) {
            Some(seed) => format!("shuffled (seed {seed})"),
            None => "in input order".to_string(),
        };
        let mode = match self.mode {
            Mode::Online => format!("online, {order}"),
            Mode::Batch => format!("batch, {} epochs, {order}", self.epochs()),
            Mode::Converge => {
                format!(
                    "until convergence, at most {} epochs, {order}",
                    self.epochs()
                )
            }
            Mode::Random => format!("random, seed {}", self.seed),
        };
        format!("{mode}, eta {}, bias {:?}", self.eta, self.bias).to_lowercase()
    }
}
