//! The subcommands, one file each (with their mail and SVMlight variants beside them):
//! each runs its validated plan and knows nothing of flags or of the other subcommands.

mod bench;
mod classify;
mod classify_cluster;
mod classify_mail;
mod completions;
mod eval;
mod eval_cluster;
mod eval_mail;
mod inspect;
mod learn;
mod man;
mod train;
mod train_cluster;
mod train_svm;
mod vectorize;

use crate::flags::Plan;
use anyhow::Result;
use rosenblatt::experiment::{GridPoint, TuneProgress};
use rosenblatt::model::Model;
use rosenblatt::pipeline;
use rosenblatt::training::TrainConfig;
use std::process::ExitCode;

/// Runs a plan; its exit code on success.
pub fn run(plan: Plan) -> Result<ExitCode> {
    match plan {
        Plan::Train(p) => train::run(p),
        Plan::Classify(p) => classify::run(p),
        Plan::Eval(p) => eval::run(p),
        Plan::Inspect(p) => inspect::run(p),
        Plan::Learn(p) => learn::run(p),
        Plan::Bench(p) => bench::run(p),
        Plan::Vectorize(p) => vectorize::run(p),
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

/// Refuses a `--holdout` split that leaves nothing to learn from or to score: a training
/// part with fewer than two classes, or an empty held-out part, said in terms of the flag
/// rather than of the learner that would fail later.
fn check_holdout(fraction: f64, train_classes: usize, n_train: usize, n_test: usize) -> Result<()> {
    let n = n_train + n_test;
    if train_classes < 2 {
        anyhow::bail!(
            "--holdout {fraction} keeps {n_train} of {n} documents for training, with \
             {train_classes} class(es); training needs at least two: lower --holdout"
        );
    }
    if n_test == 0 {
        anyhow::bail!("--holdout {fraction} holds out none of {n} documents: raise --holdout");
    }
    Ok(())
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

/// The configuration the `--tune` winner is refitted with: `cfg` with the point's
/// learner, geometry and analyzer, its options naming the point.
fn tuned_config(cfg: &TrainConfig, point: &GridPoint) -> Result<TrainConfig> {
    let mut cfg = pipeline::config_of(cfg, point)?;
    cfg.options = crate::flags::options_of(point);
    Ok(cfg)
}
