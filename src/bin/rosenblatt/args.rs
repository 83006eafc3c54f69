//! Command-line arguments (clap only; no work happens here).

use crate::names::BiasName;
use clap::{Args, Parser, Subcommand, ValueEnum};
use rosenblatt::input::{Format, Split};
use std::path::PathBuf;

/// Sparse binary bag-of-words text classification: perceptrons and friends.
#[derive(Debug, Parser)]
#[command(name = "rosenblatt", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per run; boxing buys nothing
pub enum Command {
    /// Train a model on labelled documents and save it.
    Train(TrainArgs),
    /// Classify documents with a saved model: one `id<TAB>label<TAB>score` line each.
    Classify(ClassifyArgs),
    /// Evaluate a saved model on labelled documents.
    Eval(EvalArgs),
    /// Show a saved model: summary, training metadata, strongest words.
    Inspect(InspectArgs),
    /// Train-on-error update of a saved mail filter with one message (or a folder/mbox),
    /// under a file lock, written atomically: for mail delivery and "this is spam" buttons.
    Learn(crate::learn::LearnArgs),
    /// Benchmark sparse update throughput: vectorizing, each learner's epochs and parallel
    /// prediction on a corpus, an SVMlight file or synthetic Zipf-shaped rows.
    Bench(crate::bench::BenchArgs),
    /// Write a corpus as SVMlight vectors (OUT) with its vocabulary (OUT.vocab) and class
    /// labels (OUT.classes), streaming the input, for LIBLINEAR, Vowpal Wabbit, scikit-learn.
    Vectorize(crate::vectorize::VectorizeArgs),
}

/// How inputs are read.
#[derive(Debug, Args, Clone)]
pub struct InputArgs {
    /// Input format; detected when omitted (folder → dir, .jsonl → jsonl, else tsv).
    #[arg(long, value_parser = crate::names::format())]
    pub format: Option<Format>,
    /// The part of a corpus with a fixed split to read (--format reuters: ModApte
    /// train or test; both when omitted).
    #[arg(long, value_parser = crate::names::split())]
    pub split: Option<Split>,
}

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
    /// Passive-Aggressive PA-I (see --pa-c, --average).
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

/// `rosenblatt train`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Labelled input(s): a DIR/<class>/<files> folder, a .jsonl or a label<TAB>text file.
    #[arg(required_unless_present_any = ["spam", "ham"], conflicts_with_all = ["spam", "ham"])]
    pub inputs: Vec<PathBuf>,
    /// Mail to train a spam filter on (--spam PATH... --ham PATH...).
    #[command(flatten)]
    pub mail: crate::mail::MailInputs,
    /// Where to write the model.
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub input: InputArgs,
    /// The learning algorithm.
    #[arg(long, value_enum, default_value_t = LearnerName::Perceptron)]
    pub learner: LearnerName,
    /// Perceptron schedule.
    #[arg(long, value_enum, default_value_t = Mode::Batch)]
    pub mode: Mode,
    /// Epochs (batch), or the epoch cap (converge).
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    /// Learning rate η.
    #[arg(long, default_value_t = 1.0)]
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
    /// Keep words seen in at least this many training documents.
    #[arg(long, default_value_t = 1)]
    pub min_df: u32,
    /// Keep at most this many words (the most frequent).
    #[arg(long)]
    pub max_features: Option<usize>,
    /// Keep letter case (words are lowercased by default).
    #[arg(long)]
    pub keep_case: bool,
    /// The positive class of a binary problem (default: spam if present, else the second
    /// label in sorted order).
    #[arg(long)]
    pub positive: Option<String>,
    /// Hold out this fraction (seeded) and print the model's evaluation on it; the saved
    /// model is trained on the rest.
    #[arg(long, value_name = "FRACTION")]
    pub holdout: Option<f64>,
    /// Also run K-fold cross-validation (seeded) and print each fold's accuracy.
    #[arg(long, value_name = "K")]
    pub cv: Option<usize>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub kernel: crate::kernel_flags::KernelArgs,
    #[command(flatten)]
    pub learners: crate::learner_flags::LearnerArgs,
}

impl TrainArgs {
    /// The seed of the per-epoch shuffle, or `None` for input order (`--no-shuffle`).
    pub fn shuffle(&self) -> Option<u64> {
        (!self.learners.no_shuffle).then_some(self.seed)
    }
}

/// Output formats of `classify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// `id<TAB>label<TAB>score`.
    Tsv,
    /// `{"id":…,"label":…,"score":…}`.
    Jsonl,
}

/// `rosenblatt classify`.
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// The model file.
    #[arg(short, long)]
    pub model: PathBuf,
    /// Output format: `id<TAB>label<TAB>score` lines or one JSON object per line.
    #[arg(long = "format", value_enum, default_value_t = OutputFormat::Tsv)]
    pub output_format: OutputFormat,
    /// Documents: files, folders (every file under them) or line files with --format;
    /// `-` (or nothing) reads one document from stdin. For a mail filter: messages, Maildir
    /// folders or mbox files.
    pub inputs: Vec<PathBuf>,
    /// Spam-filter options (exit codes, --passthrough, --unsure).
    #[command(flatten)]
    pub filter: crate::mail::FilterArgs,
    /// Input format: `text` (each file one document), or a line format (jsonl, tsv:
    /// one document per line, id = line number). Detected from the extension when omitted.
    #[arg(long = "input-format", value_enum)]
    pub input_format: Option<ClassifyFormat>,
    /// With --input-format reuters: the ModApte part to classify (train or test).
    #[arg(long, value_parser = crate::names::split())]
    pub split: Option<Split>,
}

/// How `classify` reads its inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClassifyFormat {
    /// Each file (or each file under a folder) is one document.
    Text,
    /// One JSON object per line (`text` field).
    Jsonl,
    /// `label<TAB>text` or `text` lines.
    Tsv,
    /// Reuters-21578 SGML (see --split).
    Reuters,
    /// SVMlight vectors, for models trained on SVMlight input (id = line number).
    Svmlight,
}

/// `rosenblatt eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The model file (with --online: the filter to start from; default an empty one).
    #[arg(short, long, required_unless_present = "online")]
    pub model: Option<PathBuf>,
    /// Labelled input(s), as for `train`.
    #[arg(required_unless_present_any = ["spam", "ham", "online"], conflicts_with_all = ["spam", "ham", "online"])]
    pub inputs: Vec<PathBuf>,
    /// Labelled mail (--spam PATH... --ham PATH...) or a TREC index (--online INDEX).
    #[command(flatten)]
    pub mail: crate::mail_eval::EvalMailArgs,
    #[command(flatten)]
    pub input: InputArgs,
    /// Print one JSON object (keys accuracy, per_class, confusion, documents).
    #[arg(long)]
    pub json: bool,
}

/// `rosenblatt inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The model file.
    #[arg(short, long)]
    pub model: PathBuf,
    /// How many of the most positive and most negative words to list.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}
