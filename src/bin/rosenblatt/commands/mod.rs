//! The subcommands, one file each (with their mail and SVMlight variants beside them):
//! each runs its validated plan and knows nothing of flags or of the other subcommands.

mod bench;
mod classify;
mod classify_cluster;
mod classify_mail;
mod classify_ranked;
mod cluster_key;
mod completions;
mod convert;
mod eval;
mod eval_cluster;
mod eval_mail;
mod eval_report;
mod inspect;
mod learn;
mod man;
mod serve;
mod train;
mod train_cluster;
mod train_svm;
mod vectorize;

use crate::flags::{Plan, TrainPlan};
use crate::report::{self, TrainSummary};
use anyhow::Result;
use rosenblatt::eval::{Metrics, SpamMetrics};
use rosenblatt::experiment::TuneProgress;
use rosenblatt::model::Model;
use rosenblatt::training::{Outcome, Stage};
use std::process::ExitCode;

/// Runs a plan; its exit code on success.
pub fn run(plan: Plan) -> Result<ExitCode> {
    match plan {
        Plan::Train(p) => train::run(p),
        Plan::Classify(p) => classify::run(p),
        Plan::Eval(p) => eval::run(p),
        Plan::Inspect(p) => inspect::run(p),
        Plan::Learn(p) => learn::run(p),
        Plan::Convert(p) => convert::run(p),
        Plan::Serve(p) => serve::run(p),
        Plan::Bench(p) => bench::run(p),
        Plan::Vectorize(p) => vectorize::run(p),
        Plan::ClusterKey(file) => cluster_key::run(file),
        Plan::Completions(p) => completions::run(p),
        Plan::Man(p) => man::run(p),
    }
}

/// Draws `train --plot` for the model just trained (from its metadata: the per-epoch
/// mistakes, the bound, the tuning table); `inputs` names the training data.
fn train_chart(file: &std::path::Path, model: &Model, inputs: &[String]) -> Result<()> {
    let meta = &model.meta();
    let names: Vec<std::path::PathBuf> = inputs.iter().map(Into::into).collect();
    let of = format!("{} on {}", meta.learner, crate::plot::names(&names));
    let t = crate::plot::train::Training {
        mistakes: &meta.report.mistakes_per_epoch,
        epochs: meta.report.epochs,
        updates: meta.report.updates,
        steps: meta.report.steps,
        bound: meta.theory.as_ref().and_then(|t| t.novikoff_bound),
        accuracy: meta.training_accuracy,
        tuning: meta.tuning.as_ref(),
    };
    crate::plot::train::draw(file, &of, &t)
}

/// The summary of a training job (and its chart, with `--plot`): the model, the held-out
/// metrics, the folds' accuracies and the spam figures of a filter's held-out part.
fn train_report(
    plan: &TrainPlan,
    out: &Outcome,
    skipped: usize,
    spam: Option<SpamMetrics>,
) -> Result<ExitCode> {
    let held_out = out.held_out.as_ref().map(|e| e.metrics.clone());
    let summary = TrainSummary {
        output: &plan.output,
        json: plan.json,
        skipped,
        held_out: plan.holdout.zip(held_out).map(|(f, m)| (f, plan.seed, m)),
        held_out_probabilities: out.held_out.as_ref().and_then(|e| e.probabilities),
        spam,
        folds: out
            .folds
            .as_ref()
            .map(|f| f.iter().map(Metrics::accuracy).collect()),
        accuracy_at_zero: out.accuracy_at_zero,
    };
    report::train_summary(&out.model, &summary)?;
    if let Some(file) = &plan.plot {
        train_chart(file, &out.model, &plan.source.names())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The progress line of a training job's stage.
fn stage_line(stage: Stage<'_>) -> String {
    match stage {
        Stage::CrossValidating => "cross-validating".into(),
        Stage::Tuning(p) => tune_progress(p),
        Stage::Training => "training".into(),
        Stage::Evaluating => "evaluating held-out documents".into(),
    }
}

/// The progress line of `--tune`: points done (and skipped) of the grid, time so far.
fn tune_progress(p: &TuneProgress) -> String {
    let skipped = if p.skipped > 0 {
        format!(", {} skipped", p.skipped)
    } else {
        String::new()
    };
    format!(
        "tuning: {}/{} points{skipped}, {:.0} s",
        p.done,
        p.total,
        p.elapsed.as_secs_f64()
    )
}
