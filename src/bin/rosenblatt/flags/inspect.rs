//! `rosenblatt inspect`'s flags and plan (one rule: `--plot` names an SVG file).

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// `rosenblatt inspect`.
#[derive(Debug, Args)]
#[command(
    after_help = "--plot draws the words that weigh most towards each class of a binary \
linear model as bars of their weights (--top of each). Models do not keep their training \
margins: `train --plot` shows the training run."
)]
pub struct InspectArgs {
    /// The model file.
    #[arg(short, long, help_heading = "Input")]
    pub model: PathBuf,
    /// How many of the most positive and most negative words to list.
    #[arg(long, default_value_t = 20, help_heading = "Output", value_parser = super::names::whole(0usize), allow_negative_numbers = true)]
    pub top: usize,
    /// Print one JSON object.
    #[arg(long, help_heading = "Output")]
    pub json: bool,
    #[command(flatten)]
    pub plot: super::plot::PlotArg,
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
    /// `--plot`: the chart of the strongest words.
    pub plot: Option<PathBuf>,
}

/// Turns `inspect`'s flags into its plan.
pub fn plan(a: InspectArgs) -> Result<InspectPlan> {
    Ok(InspectPlan {
        model: a.model,
        top: a.top,
        json: a.json,
        plot: a.plot.checked()?,
    })
}
