//! `rosenblatt bench`'s flags and the plan they become: the data to time on (synthetic
//! rows, an SVMlight file or a corpus), the checked learners and the thread counts.

use super::inputs::Documents;
use super::schedule::learner_values_but;
use anyhow::{Context, Result, bail};
use clap::Args;
use rosenblatt::input::Format;
use rosenblatt::learn::{AnyLearner, Check, Checked, Setting};
use std::path::PathBuf;

/// `rosenblatt bench`.
#[derive(Debug, Args)]
#[command(
    after_help = "--plot draws the nonzeros visited per second of every timed phase as bars: \
each learner's training (1 thread) and prediction at each --threads count."
)]
// The fields are in the order of `--help`'s headings: Input (a corpus, or the synthetic
// rows), Learner (what is timed), Output. The inputs head the Input heading (see
// `CorpusArgs`).
#[command(next_help_heading = "Input", next_display_order = 1)]
pub struct BenchArgs {
    /// A labelled corpus (as for `train`) or an SVMlight file; synthetic rows when omitted.
    #[arg(display_order = 0)]
    pub inputs: Vec<PathBuf>,
    /// Input format; detected when omitted.
    #[arg(long, value_parser = super::names::format())]
    pub format: Option<Format>,
    #[command(flatten)]
    pub svm: super::inputs::SvmArgs,
    /// Synthetic data: number of rows.
    #[arg(long, default_value_t = 200_000, help_heading = "Input", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub rows: usize,
    /// Synthetic data: number of features (columns).
    #[arg(long, default_value_t = 50_000, help_heading = "Input", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub features: usize,
    /// Synthetic data: average nonzeros per row (before duplicates are removed).
    #[arg(long, default_value_t = 120, help_heading = "Input", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub nnz: usize,
    /// Synthetic data: generator seed.
    #[arg(long, default_value_t = 42, help_heading = "Input", value_parser = super::names::whole(0u64), allow_negative_numbers = true)]
    pub seed: u64,
    /// Learners to time (comma-separated): perceptron, averaged-perceptron,
    /// margin-perceptron, pa, winnow, logistic, centroid.
    #[arg(
        long,
        value_parser = learner_values_but(NOT_TIMED),
        value_delimiter = ',',
        default_value = "perceptron,averaged-perceptron,pa,logistic",
        help_heading = "Learner"
    )]
    pub learner: Vec<String>,
    /// Thread counts to run the parallel phases with (comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,2",
        help_heading = "Learner",
        value_parser = super::names::whole(1usize),
        allow_negative_numbers = true
    )]
    pub threads: Vec<usize>,
    /// Epochs per learner.
    #[arg(long, default_value_t = 5, help_heading = "Learner", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub epochs: usize,
    /// Print one JSON object per line instead of a table.
    #[arg(long, help_heading = "Output")]
    pub json: bool,
    #[command(flatten)]
    pub plot: super::plot::PlotArg,
}

/// Learners `bench` does not time: the kernel perceptron's cost follows its Gram matrix,
/// and softmax is a multiclass learner, while bench times two-class rows.
const NOT_TIMED: &[&str] = &["kernel-perceptron", "softmax"];

/// The most memory synthetic rows may take (64 GiB): more is a typing slip, refused
/// before any allocation rather than aborted by the allocator.
const MAX_SYNTHETIC_BYTES: usize = 64 << 30;

/// The rows `bench` times on.
#[derive(Debug, Clone)]
pub enum BenchData {
    /// Synthetic Zipf-shaped rows.
    Synthetic {
        /// Number of rows.
        rows: usize,
        /// Number of features.
        features: usize,
        /// Average nonzeros per row.
        nnz: usize,
        /// Generator seed.
        seed: u64,
    },
    /// One SVMlight file, with feature ids up to the limit (`None`: the default).
    Svmlight(PathBuf, Option<u32>),
    /// A labelled corpus, vectorized (and timed) first.
    Corpus(Documents),
}

/// What `bench` times, checked.
#[derive(Debug, Clone)]
pub struct BenchPlan {
    /// The rows.
    pub data: BenchData,
    /// The learners, each as `train --learner NAME --epochs E --no-shuffle` fits it.
    pub learners: Vec<Checked<AnyLearner>>,
    /// Thread counts of the parallel phases, each at least 1.
    pub threads: Vec<usize>,
    /// One JSON object per line.
    pub json: bool,
    /// `--plot`: the throughput chart.
    pub plot: Option<PathBuf>,
}

/// The learner `train --learner NAME --epochs EPOCHS` fits, visiting rows in input order
/// (as the bare loops it is compared with do).
fn learner(name: &str, epochs: usize) -> Result<Checked<AnyLearner>> {
    let mut l = AnyLearner::from_name(name).context("no such learner")?;
    for setting in [Setting::Epochs(epochs), Setting::Shuffle(None)] {
        // The centroid takes neither: one pass, in no order.
        l.set_where_taken(setting)?;
    }
    Ok(l.check()?)
}

/// Turns `bench`'s flags into a plan; every flag rule of `bench` is checked here.
pub fn plan(a: BenchArgs) -> Result<BenchPlan> {
    if a.threads.is_empty() || a.threads.contains(&0) {
        bail!("--threads needs thread counts of at least 1");
    }
    if a.epochs == 0 {
        bail!("--epochs must be at least 1");
    }
    let learners = a
        .learner
        .iter()
        .map(|name| learner(name, a.epochs))
        .collect::<Result<Vec<_>>>()?;
    let svm = a
        .inputs
        .first()
        .is_some_and(|first| a.format.unwrap_or_else(|| Format::detect(first)) == Format::Svmlight);
    let max_feature_id = a.svm.limit_for(svm)?;
    let data = match a.inputs.first() {
        None => {
            if a.rows == 0 || a.features == 0 || a.nnz == 0 {
                bail!("--rows, --features and --nnz must be at least 1");
            }
            if u32::try_from(a.features).is_err() {
                bail!(
                    "--features {} is more than a feature index holds ({})",
                    a.features,
                    u32::MAX
                );
            }
            // Rows hold nnz/2 to 3·nnz/2 nonzeros, 4 bytes each.
            let bytes = a.rows.checked_mul(a.nnz).and_then(|n| n.checked_mul(6));
            if bytes.is_none_or(|b| b > MAX_SYNTHETIC_BYTES) {
                bail!(
                    "--rows {} × --nnz {} would take more than {} GiB of nonzeros; \
                     ask for fewer rows or nonzeros",
                    a.rows,
                    a.nnz,
                    MAX_SYNTHETIC_BYTES >> 30
                );
            }
            BenchData::Synthetic {
                rows: a.rows,
                features: a.features,
                nnz: a.nnz,
                seed: a.seed,
            }
        }
        Some(first) if svm => BenchData::Svmlight(first.clone(), max_feature_id),
        Some(_) => BenchData::Corpus(Documents {
            paths: a.inputs,
            format: a.format,
            split: None,
            detect: Format::detect,
            max_feature_id: None,
        }),
    };
    Ok(BenchPlan {
        data,
        learners,
        threads: a.threads,
        json: a.json,
        plot: a.plot.checked()?,
    })
}
