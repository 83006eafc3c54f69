//! `rosenblatt inspect`'s flags and plan (`--plot` names an SVG file; `--top`'s default
//! depends on whether one class or every class is listed).

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// `rosenblatt inspect`.
#[derive(Debug, Args)]
#[command(
    after_help = "A two-class model lists the words that weigh most towards each of its \
classes. A model of more classes (one-vs-rest, softmax, logistic, multi-label) lists 5 \
words each way for every class; --class C lists C's alone (--top of each). --plot draws \
the words that weigh most towards each class of a binary linear model, or for and \
against the class of --class, as bars of their weights (--top of each). Models do not \
keep their training margins: `train --plot` shows the training run."
)]
pub struct InspectArgs {
    /// The model file.
    #[arg(short, long, help_heading = "Input")]
    pub model: PathBuf,
    /// How many of the most positive and most negative words to list [default: 20, or 5
    /// per class when a model of more than two classes lists every class]
    #[arg(long, help_heading = "Output", value_parser = super::names::whole(0usize), allow_negative_numbers = true)]
    pub top: Option<usize>,
    /// List the words of class C alone: those whose weights argue most for C (its score
    /// rises where they occur) and most against it, with their weights, for any linear
    /// model. For a two-class model either class may be named: the first class's words
    /// are the second's with every sign flipped
    #[arg(long, value_name = "C", help_heading = "Output")]
    pub class: Option<String>,
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
    /// Words listed each way: `--top`, or `None` for the default of what is listed.
    pub top: Option<usize>,
    /// `--class`: the one class whose words are listed.
    pub class: Option<String>,
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
        class: a.class,
        json: a.json,
        plot: a.plot.checked()?,
    })
}

impl InspectPlan {
    /// Words listed each way when one class (or a two-class model's pair) is shown.
    pub const TOP: usize = 20;
    /// Words listed each way per class when every class of a larger model is shown.
    pub const TOP_PER_CLASS: usize = 5;
}
