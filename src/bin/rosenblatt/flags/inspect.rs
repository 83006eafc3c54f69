//! `rosenblatt inspect`'s flags and plan (no rules: every combination is valid).

use clap::Args;
use std::path::PathBuf;

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

/// What `inspect` shows: the model file, how many words each way, text or JSON.
#[derive(Debug, Clone)]
pub struct InspectPlan {
    /// The model file.
    pub model: PathBuf,
    /// Words listed each way.
    pub top: usize,
    /// Print one JSON object.
    pub json: bool,
}

/// Turns `inspect`'s flags into its plan.
pub fn plan(a: InspectArgs) -> InspectPlan {
    InspectPlan {
        model: a.model,
        top: a.top,
        json: a.json,
    }
}
