//! `rosenblatt eval`'s flags and the plan they become: a model on labelled documents, a
//! spam filter on labelled mail, or the TREC online protocol over an index.

use super::inputs::{self, Documents, InputArgs, Mail, MailInputs};
use super::mail_fields::MailFieldArgs;
use super::online::OnlineArgs;
use anyhow::{Context, Result, bail};
use clap::Args;
use rosenblatt::distributed::Processes;
use rosenblatt::incremental::{OnlineFilter, SpamCut};
use rosenblatt::input::Format;
use std::path::PathBuf;

/// `rosenblatt eval`.
#[derive(Debug, Args)]
#[command(
    after_help = "--plot draws, for a binary model (spam filters included), its ROC curve \
(false positives on a log scale, AUC and (1-ROCA)% in the legend; --plot-compare adds a \
second model's); for a multiclass or multi-label model, the confusion heat map (rows the \
true class, columns the predicted one, counts in the cells, classes by size, the \
--plot-classes largest; past about 20 the chart grows so that every cell stays legible) \
with each class's F1 as a bar beside its row; with --online, the \
learning curve ((1-ROCA)% so far and errors per --block against messages seen)."
)]
// The fields are in the order of `--help`'s headings: Input, Mail, Evaluation (the online
// protocol), the Learner and Features of an empty online filter, Cluster, Output.
pub struct EvalArgs {
    /// The model file (with --online: the filter to start from; default an empty one).
    #[arg(
        short,
        long,
        required_unless_present = "online",
        help_heading = "Input"
    )]
    pub model: Option<PathBuf>,
    /// Labelled input(s), as for `train`.
    #[arg(
        required_unless_present_any = ["spam", "ham", "online"],
        conflicts_with_all = ["spam", "ham", "online"],
        help_heading = "Input",
        display_order = 0
    )]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub svm: inputs::SvmArgs,
    /// Labelled mail (--spam PATH... --ham PATH...) or a TREC index (--online INDEX).
    #[command(flatten)]
    pub mail: EvalMailArgs,
    /// Where a saved filter calls a message spam: the figures are those at this cut.
    #[command(flatten)]
    pub cut: super::spam_cut::SpamCutArgs,
    /// Evaluating as one of several processes, each scoring its share of the inputs.
    #[command(flatten)]
    pub cluster: super::cluster::ClusterArgs,
    /// Print one JSON object (keys accuracy, per_class, confusion, documents; with top:
    /// top_confusions, objects of true, predicted, count and share).
    #[arg(long, help_heading = "Output")]
    pub json: bool,
    /// How a single-label model's confusions are shown: `full` (the whole matrix), `top`
    /// or `top:N` (the N largest cells off the diagonal, as true → predicted, documents
    /// and their share of the true class, largest first; N 10 by default) or `none`.
    /// [default: full up to 10 classes, top beyond: wider matrices do not fit a terminal]
    #[arg(
        long,
        value_name = "full|top[:N]|none",
        value_parser = parse_confusion,
        conflicts_with = "online",
        help_heading = "Output"
    )]
    pub confusion: Option<ConfusionView>,
    #[command(flatten)]
    pub plot: super::plot::PlotArg,
    /// With --plot on a binary model: a second model, scored on the same inputs, whose
    /// ROC curve is drawn on the same chart.
    #[arg(
        long,
        value_name = "MODEL2",
        requires = "plot",
        conflicts_with = "online",
        help_heading = "Output"
    )]
    pub plot_compare: Option<PathBuf>,
    /// With --plot on a multiclass or multi-label model: how many of the classes with
    /// most documents the heat map shows [default: 20].
    #[arg(long, value_name = "N", requires = "plot", help_heading = "Output", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub plot_classes: Option<usize>,
}

/// How `eval` shows the confusions of a single-label model (`--confusion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfusionView {
    /// The whole matrix, rows the true class, columns the predicted one.
    Full,
    /// The given number of largest off-diagonal cells, largest first.
    Top(usize),
    /// No confusions at all (the per-class table stays).
    None,
}

impl ConfusionView {
    /// The most classes whose whole matrix is shown unless `--confusion` says otherwise:
    /// ten columns of short names fit an 80- to 120-column terminal.
    pub const FULL_UP_TO: usize = 10;

    /// How many cells `top` lists when no N is given.
    pub const TOP: usize = 10;

    /// The view for a model of `classes` classes: the one asked for, else the whole
    /// matrix up to [`ConfusionView::FULL_UP_TO`] classes and the largest cells beyond.
    pub fn for_classes(asked: Option<ConfusionView>, classes: usize) -> ConfusionView {
        asked.unwrap_or(if classes <= Self::FULL_UP_TO {
            ConfusionView::Full
        } else {
            ConfusionView::Top(Self::TOP)
        })
    }
}

/// Parses `--confusion`: `full`, `none`, `top` or `top:N` with N at least 1.
fn parse_confusion(s: &str) -> Result<ConfusionView, String> {
    let accepted = "accepted: full, top, top:N (N at least 1) or none";
    match s {
        "full" => Ok(ConfusionView::Full),
        "none" => Ok(ConfusionView::None),
        "top" => Ok(ConfusionView::Top(ConfusionView::TOP)),
        _ => match s.strip_prefix("top:").map(str::parse::<usize>) {
            Some(Ok(n)) if n > 0 => Ok(ConfusionView::Top(n)),
            Some(_) => Err(format!(
                "`{s}`: N of top:N must be a whole number of at least 1; {accepted}"
            )),
            None => Err(format!("`{s}` is not a way to show confusions; {accepted}")),
        },
    }
}

/// Mail inputs of `eval`.
#[derive(Debug, Args, Clone)]
pub struct EvalMailArgs {
    /// Labelled mail to evaluate a spam filter on.
    #[command(flatten)]
    pub mail: MailInputs,
    /// The TREC online protocol over INDEX (`spam PATH` / `ham PATH` lines, paths relative
    /// to INDEX, e.g. trec07p/full/index): each message is classified, then learned by
    /// the filter's update rule, in order; starts from --model, or from an empty filter
    /// (see --learner and the feature flags).
    #[arg(long, value_name = "INDEX", help_heading = "Evaluation")]
    pub online: Option<PathBuf>,
    /// With --online: save the filter as it stands after the run.
    #[arg(
        long,
        value_name = "MODEL",
        requires = "online",
        help_heading = "Evaluation"
    )]
    pub save: Option<PathBuf>,
    /// With --online: print the learning curve every this many messages ((1-ROCA)% and
    /// errors per block, and so far) [default: 500].
    #[arg(
        long,
        value_name = "N",
        requires = "online",
        help_heading = "Evaluation",
        value_parser = super::names::whole(1usize),
        allow_negative_numbers = true
    )]
    pub block: Option<usize>,
    /// An empty filter's rule and features (with --online and no --model).
    #[command(flatten)]
    pub filter: OnlineArgs,
    /// With --online and no --model: the header fields of the empty filter.
    #[command(flatten)]
    pub fields: MailFieldArgs,
}

/// What `eval` does, checked.
#[derive(Debug, Clone)]
pub enum EvalTask {
    /// A model on labelled documents (or SVMlight rows).
    Documents {
        /// The model file.
        model: PathBuf,
        /// The labelled inputs.
        documents: Documents,
    },
    /// A spam filter on labelled mail.
    Mail {
        /// The filter.
        model: PathBuf,
        /// The labelled mail.
        mail: Mail,
    },
    /// The TREC online protocol: classify, then learn, each message in index order.
    Online {
        /// The filter to start from; an empty one when `None`.
        model: Option<PathBuf>,
        /// The TREC index file.
        index: PathBuf,
        /// Where to save the filter after the run.
        save: Option<PathBuf>,
        /// The filter to start from when there is no model.
        empty: OnlineFilter,
        /// Messages per block of the learning curve.
        block: usize,
    },
}

/// `eval`'s plan: the task and how its result is printed.
#[derive(Debug, Clone)]
pub struct EvalPlan {
    /// What to evaluate on what.
    pub task: EvalTask,
    /// Print one JSON object.
    pub json: bool,
    /// `--confusion`: how a single-label model's confusions are shown; `None` when not
    /// given (chosen by the class count).
    pub confusion: Option<ConfusionView>,
    /// `--plot`: the chart to draw, if any.
    pub plot: Option<EvalChart>,
    /// `--processes`: this process's place among those that share the inputs.
    pub cluster: Option<Processes>,
    /// `--spam-probability` or `--spam-score`: where a saved filter is evaluated, when not
    /// at its recorded threshold.
    pub cut: Option<SpamCut>,
}

/// The chart `eval --plot` draws and how.
#[derive(Debug, Clone)]
pub struct EvalChart {
    /// The SVG file.
    pub file: PathBuf,
    /// A second binary model for the ROC chart.
    pub compare: Option<PathBuf>,
    /// Classes shown by the heat map, at least 1.
    pub classes: usize,
}

impl EvalPlan {
    /// How the metrics are printed: what the commands that print them need of the plan.
    pub fn report(&self) -> Report {
        Report {
            json: self.json,
            confusion: self.confusion,
        }
    }
}

/// How `eval` prints a model's metrics: as JSON or text, and which confusions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// Print one JSON object.
    pub json: bool,
    /// `--confusion`, when given.
    pub confusion: Option<ConfusionView>,
}

/// Turns `eval`'s flags into a plan; every flag rule of `eval` is checked here.
pub fn plan(a: EvalArgs) -> Result<EvalPlan> {
    let m = a.mail;
    inputs::check_split(a.input.split, a.input.format)?;
    // Whether the inputs are SVMlight is known once the model is read, unless --format
    // says.
    let max_feature_id = a
        .svm
        .limit_for(a.input.format.is_none_or(|f| f == Format::Svmlight))?;
    if max_feature_id.is_some() && (m.online.is_some() || m.mail.is_set()) {
        bail!("{}", inputs::NOT_SVM);
    }
    if m.filter.is_set() && (m.online.is_none() || a.model.is_some()) {
        if m.filter.threshold.is_some() && !m.filter.is_set_without_threshold() {
            bail!(
                "--threshold sets where an empty --online filter decides; a saved model \
                 decides where it was trained to (train --threshold T); eval's ROC AUC and \
                 --plot's ROC curve cover every threshold"
            );
        }
        bail!(
            "--learner, --margin, --pa-c, --eta, --rate, --normalize, --threshold and the \
             feature flags describe an empty filter for --online; a filter read with --model \
             learns and reads mail as it records"
        );
    }
    if m.block == Some(0) {
        bail!("--block must be at least 1 message");
    }
    if a.plot_classes == Some(0) {
        bail!("--plot-classes must be at least 1");
    }
    let cluster = a.cluster.plan()?;
    let cut = a.cut.cut();
    if cut.is_some() {
        if m.online.is_some() {
            bail!(
                "--spam-probability and --spam-score evaluate a saved filter at another cut; \
                 --online decides where the filter learns to (leave them out)"
            );
        }
        if cluster.is_some() {
            bail!(
                "--spam-probability and --spam-score evaluate a saved filter in one process \
                 (leave out --processes)"
            );
        }
    }
    if cluster.is_some() {
        if m.online.is_some() {
            bail!(
                "--online classifies and learns each message in index order, one after \
                 another; it runs in one process (leave out --processes)"
            );
        }
        if let Some(other) = &a.plot_compare {
            bail!(
                "--plot-compare {}: with --processes only the model evaluated is drawn; \
                 compare two models from one process (leave out --processes)",
                other.display()
            );
        }
        if a.inputs.iter().any(|p| p.as_os_str() == "-") {
            bail!("eval --processes shares files and lines among the processes; give paths");
        }
    }
    let plot = a.plot.checked()?.map(|file| EvalChart {
        file,
        compare: a.plot_compare,
        classes: a.plot_classes.unwrap_or(20),
    });
    let empty = m.filter.filter(&m.fields, a.model.as_deref())?;
    if m.online.is_some() && m.mail.is_set() {
        bail!(
            "--online reads its messages, and their classes, from the index; leave out \
             --spam and --ham (they are for evaluating a saved filter)"
        );
    }
    let task = match (m.online, a.model) {
        (Some(index), model) => EvalTask::Online {
            model,
            index,
            save: m.save,
            empty,
            block: m.block.unwrap_or(500),
        },
        (None, model) => {
            let model = model.context("--model is required")?;
            if m.mail.is_set() {
                EvalTask::Mail {
                    model,
                    mail: m.mail.plan(),
                }
            } else {
                EvalTask::Documents {
                    model,
                    documents: Documents {
                        paths: a.inputs,
                        format: a.input.format,
                        split: a.input.split,
                        detect: Format::detect,
                        max_feature_id,
                    },
                }
            }
        }
    };
    Ok(EvalPlan {
        task,
        json: a.json,
        confusion: a.confusion,
        plot,
        cluster,
        cut,
    })
}
