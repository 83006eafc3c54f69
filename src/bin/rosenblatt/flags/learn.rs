//! `rosenblatt learn`'s flags and plan; clap itself refuses `--spam` with `--ham` and
//! requires one of them.

use clap::Args;
use std::path::PathBuf;

/// `rosenblatt learn`.
#[derive(Debug, Args)]
pub struct LearnArgs {
    /// The model file, updated in place.
    #[arg(short, long)]
    pub model: PathBuf,
    /// Learn the message(s) as spam.
    #[arg(long, required_unless_present = "ham", conflicts_with = "ham")]
    pub spam: bool,
    /// Learn the message(s) as ham.
    #[arg(long)]
    pub ham: bool,
    /// A message file, a Maildir, an mbox or a folder of messages; `-` or nothing reads
    /// one message from stdin.
    pub inputs: Vec<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// What `learn` does: teach `model` the messages in `inputs` as `class`.
#[derive(Debug, Clone)]
pub struct LearnPlan {
    /// The filter, updated in place.
    pub model: PathBuf,
    /// `spam` or `ham`.
    pub class: &'static str,
    /// The messages: `-` (stdin) when none were given.
    pub inputs: Vec<PathBuf>,
    /// Print one JSON object.
    pub json: bool,
}

/// Turns `learn`'s flags into its plan.
pub fn plan(a: LearnArgs) -> LearnPlan {
    LearnPlan {
        model: a.model,
        class: if a.spam { "spam" } else { "ham" },
        inputs: if a.inputs.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            a.inputs
        },
        json: a.json,
    }
}
