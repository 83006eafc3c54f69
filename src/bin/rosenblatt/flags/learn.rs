//! `rosenblatt learn`'s flags and plan; clap itself refuses `--spam` with `--ham` and
//! requires one of them, the plan refuses a negative or infinite `--lock-timeout`.

use anyhow::{Result, bail};
use clap::Args;
use std::path::PathBuf;

/// `rosenblatt learn`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("class").required(true).args(["spam", "ham"])))]
pub struct LearnArgs {
    /// The model file, updated in place.
    #[arg(short, long)]
    pub model: PathBuf,
    /// Learn the message(s) as spam.
    #[arg(long, conflicts_with = "ham")]
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
    /// How long to wait for another `learn` of the same model or store to finish (the messages are
    /// read first; only the model update waits), then give up with exit code 3.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10.0,
        allow_negative_numbers = true
    )]
    pub lock_timeout: f64,
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
    /// The longest wait for the model's lock.
    pub lock_timeout: std::time::Duration,
}

/// Turns `learn`'s flags into its plan.
pub fn plan(a: LearnArgs) -> Result<LearnPlan> {
    let t = a.lock_timeout;
    if !(t.is_finite() && t >= 0.0) {
        bail!("--lock-timeout must be a number of seconds, 0 or more, got {t}");
    }
    Ok(LearnPlan {
        model: a.model,
        class: if a.spam { "spam" } else { "ham" },
        inputs: if a.inputs.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            a.inputs
        },
        json: a.json,
        // Beyond what a Duration holds is as good as forever.
        lock_timeout: std::time::Duration::try_from_secs_f64(t).unwrap_or(std::time::Duration::MAX),
    })
}
