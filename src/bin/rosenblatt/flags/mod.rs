//! The command line: clap's structs for every subcommand and flag group, and the one step
//! that turns them into a validated plan (as ripgrep turns its low-level arguments into
//! high-level ones). Every rule between flags is checked here, before any file is read;
//! the subcommands only run plans.

mod bench;
mod classify;
mod cluster;
mod cluster_key;
mod completions;
mod convert;
mod eval;
mod features;
mod geometry;
mod inputs;
mod inspect;
mod kernel;
mod learn;
mod learner;
mod mail_fields;
mod man;
pub mod names;
mod online;
mod plot;
mod schedule;
mod serve;
mod spam_cut;
mod train;
mod tune;
mod vectorize;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod whole_tests;

pub use bench::{BenchData, BenchPlan};
pub use classify::{ClassifyPlan, OutputFormat, Unsure};
pub use completions::CompletionsPlan;
pub use convert::ConvertArgs;
pub use eval::{ConfusionView, EvalChart, EvalPlan, EvalTask, Report};
pub use inputs::{Documents, Mail, NOT_SVM, Source};
pub use inspect::InspectPlan;
pub use learn::LearnPlan;
pub use man::ManPlan;
pub use serve::ServePlan;
pub use train::TrainPlan;
pub use vectorize::VectorizePlan;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Sparse binary bag-of-words text classification: perceptrons and friends.
#[derive(Debug, Parser)]
#[command(name = "rosenblatt", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Flags of every subcommand.
    #[command(flatten)]
    pub globals: Globals,
}

/// The flags every subcommand takes.
#[derive(Debug, clap::Args)]
pub struct Globals {
    /// The most read as one document or message (a file of a class folder, a message,
    /// standard input) and from any input that is not a regular file (a FIFO, a device):
    /// beyond it the input is refused with a sentence (e.g. 256M, 2G) [default: 64M].
    #[arg(
        long,
        global = true,
        value_name = "SIZE",
        value_parser = names::parse_memory,
        help_heading = "Input"
    )]
    pub max_document_bytes: Option<u64>,
    /// When to show progress on stderr: `auto` draws a spinner with the phase and the
    /// training epochs when stderr is a terminal; `always` also writes plain progress lines
    /// (each phase, then the epochs every few seconds) to a log or pipe; `never` shows none.
    /// `--progress` alone means `always`; give a value with `=` (`--progress=never`).
    #[arg(
        long,
        global = true,
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "always",
        help_heading = "Output"
    )]
    pub progress: Option<names::Progress>,
    /// Shows no progress (the same as `--progress never`); errors, warnings and notes are
    /// still written.
    #[arg(
        long,
        short = 'q',
        global = true,
        conflicts_with = "progress",
        help_heading = "Output"
    )]
    pub quiet: bool,
}

impl Globals {
    /// When progress is shown, from `--progress` and `--quiet`.
    pub fn progress(&self) -> names::Progress {
        match (self.quiet, self.progress) {
            (true, _) => names::Progress::Never,
            (false, p) => p.unwrap_or(names::Progress::Auto),
        }
    }
}

impl Cli {
    /// Parses `args` (the program's name first). `classify` and `learn`, which a mail
    /// server runs once per message, are parsed by a parser of that subcommand alone:
    /// building every subcommand's flags is a sixth of the instructions of such a run.
    /// `--help`, `--version` and every error go through the whole parser, so they read
    /// as ever; so does a command line whose first argument is not the subcommand.
    pub fn parse_from_args(args: Vec<std::ffi::OsString>) -> Result<Cli, clap::Error> {
        use clap::{Args, FromArgMatches};
        let one = match args.get(1).and_then(|a| a.to_str()) {
            Some("classify") => Some(classify::ClassifyArgs::augment_args(clap::Command::new(
                "classify",
            ))),
            Some("learn") => Some(learn::LearnArgs::augment_args(clap::Command::new("learn"))),
            _ => None,
        };
        if let Some(sub) = one {
            let parser = Globals::augment_args(clap::Command::new("rosenblatt")).subcommand(sub);
            if let Ok(cli) = parser
                .try_get_matches_from(&args)
                .and_then(|m| Cli::from_arg_matches(&m))
            {
                return Ok(cli);
            }
        }
        Cli::try_parse_from(args)
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per run; boxing buys nothing
pub enum Command {
    /// Train a model on labelled documents and save it.
    Train(train::TrainArgs),
    /// Classify documents with a saved model: one `id<TAB>label<TAB>score` line each.
    ///
    /// A two-class model gives its second class above its threshold: score 0 for a text
    /// model, P(spam) > 0.9 for a spam filter, so a message of positive score can be ham
    /// (`inspect` shows where a model decides, `--explain` why a document got its label).
    ///
    /// Exit status: 0 when every document was classified; 4 when some were skipped (a bad
    /// JSON line, an unreadable file, a file over --max-document-bytes), after the lines of
    /// all the others, the count said on stderr; 3 on an error, which ends the run after
    /// the lines of the documents before it. A spam filter given one message exits 0 spam,
    /// 1 ham, 2 unsure (--passthrough: 0).
    Classify(classify::ClassifyArgs),
    /// Evaluate a saved model on labelled documents, or a spam filter under the TREC
    /// online protocol (--online INDEX: classify, then learn, message by message).
    Eval(eval::EvalArgs),
    /// Show a saved model: summary, training metadata, strongest words.
    Inspect(inspect::InspectArgs),
    /// Teach a saved mail filter one message (or a folder/mbox) by the update rule it
    /// records (see `inspect`), under a file lock, written atomically: for mail delivery
    /// and "this is spam" buttons.
    Learn(learn::LearnArgs),
    /// Convert a filter between its two forms: a model file and a store (an embedded
    /// database that classify and learn read and write per message, for mail delivery).
    Convert(convert::ConvertArgs),
    /// Serve a spam filter to mail servers and pipelines as a daemon: spamd's protocol,
    /// rspamd's HTTP protocol, a JSON API and Prometheus metrics.
    Serve(serve::ServeArgs),
    /// Benchmark sparse update throughput: vectorizing, each learner's epochs and parallel
    /// prediction on a corpus, an SVMlight file or synthetic Zipf-shaped rows.
    Bench(bench::BenchArgs),
    /// Write a corpus as SVMlight vectors (OUT) with its vocabulary (OUT.vocab) and class
    /// labels (OUT.classes), streaming the input, for LIBLINEAR, Vowpal Wabbit, scikit-learn.
    Vectorize(vectorize::VectorizeArgs),
    /// Create a cluster key: the secret the processes of `--processes` prove to each other
    /// that they hold before any data moves (`--cluster-key FILE`).
    ClusterKey(cluster_key::ClusterKeyArgs),
    /// Print the completion script of a shell (bash, zsh, fish, elvish, powershell) on
    /// stdout.
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff) on stdout: the program and every subcommand, or one
    /// subcommand's page.
    Man(man::ManArgs),
}

impl Command {
    /// The exit code of a failure: 3 for `classify` and `learn`, whose 2 means "unsure"
    /// to mail filters; 1 otherwise.
    pub fn error_code(&self) -> u8 {
        match self {
            Command::Classify(_) | Command::Learn(_) => 3,
            _ => 1,
        }
    }
}

/// One subcommand's validated plan.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // made once per run; boxing buys nothing
pub enum Plan {
    /// `train`.
    Train(TrainPlan),
    /// `classify`.
    Classify(ClassifyPlan),
    /// `eval`.
    Eval(EvalPlan),
    /// `inspect`.
    Inspect(InspectPlan),
    /// `learn`.
    Learn(LearnPlan),
    /// `convert`.
    Convert(ConvertArgs),
    /// `serve`.
    Serve(ServePlan),
    /// `bench`.
    Bench(BenchPlan),
    /// `vectorize`.
    Vectorize(VectorizePlan),
    /// `cluster-key`: the file to create.
    ClusterKey(std::path::PathBuf),
    /// `completions`.
    Completions(CompletionsPlan),
    /// `man`.
    Man(ManPlan),
}

/// Turns parsed flags into the subcommand's plan, or the sentence saying which flags do
/// not go together.
pub fn plan(command: Command) -> Result<Plan> {
    Ok(match command {
        Command::Train(a) => Plan::Train(train::plan(a)?),
        Command::Classify(a) => Plan::Classify(classify::plan(a)?),
        Command::Eval(a) => Plan::Eval(eval::plan(a)?),
        Command::Inspect(a) => Plan::Inspect(inspect::plan(a)?),
        Command::Learn(a) => Plan::Learn(learn::plan(a)?),
        Command::Convert(a) => Plan::Convert(a),
        Command::Serve(a) => Plan::Serve(serve::plan(a)?),
        Command::Bench(a) => Plan::Bench(bench::plan(a)?),
        Command::Vectorize(a) => Plan::Vectorize(vectorize::plan(a)?),
        Command::ClusterKey(a) => Plan::ClusterKey(a.file),
        Command::Completions(a) => Plan::Completions(completions::plan(a)),
        Command::Man(a) => Plan::Man(man::plan(a)),
    })
}
