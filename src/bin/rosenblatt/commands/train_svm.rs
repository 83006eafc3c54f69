//! `rosenblatt train` on SVMlight rows: read as they are (no tokenizer, no vocabulary),
//! fitted into a model with an indexed feature space; the held-out part, the folds and
//! the `--tune` folds (over the training rows only) are views of the rows read.

use crate::flags::TrainPlan;
use crate::load::{self, with_rows};
use crate::progress::Phase;
use crate::report::{self, TrainSummary};
use anyhow::{Context, Result, bail};
use rosenblatt::eval::Metrics;
use rosenblatt::experiment::holdout;
use rosenblatt::features::svmlight;
use rosenblatt::features::{RowSubset, SparseRows};
use rosenblatt::model::Model;
use rosenblatt::pipeline;
use rosenblatt::training::TrainConfig;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// The metrics of `model` on rows `x` whose true classes are `truth`.
fn metrics<X: SparseRows>(model: &Model, x: &X, truth: &[usize]) -> Metrics {
    let decisions = pipeline::decide(model, x);
    let predicted: Vec<usize> = decisions.iter().map(|d| d.class).collect();
    Metrics::new(model.classes().to_vec(), truth, &predicted)
}

/// The entries of `idx` at the positions `part`.
fn pick(idx: &[usize], part: &[usize]) -> Vec<usize> {
    part.iter().map(|&i| idx[i]).collect()
}

/// Cross-validation accuracies of `--cv K` over all rows, folds as views of `x`.
fn cv<X: SparseRows>(
    plan: &TrainPlan,
    x: &X,
    idx: &[usize],
    classes: &[String],
    cfg: &TrainConfig,
) -> Result<Option<Vec<f64>>> {
    let Some(splits) = plan.cv_splits(idx.len(), "rows")? else {
        return Ok(None);
    };
    let m =
        pipeline::cross_validate_rows(x, idx, classes, cfg, &splits).context("cross-validation")?;
    Ok(Some(m.iter().map(Metrics::accuracy).collect()))
}

/// `train` on the SVMlight rows in `paths`, feature ids up to `limit` (`None`: the
/// default).
pub fn run(plan: &TrainPlan, paths: &[PathBuf], limit: Option<u32>) -> Result<ExitCode> {
    let start = Instant::now();
    let (data, _) = load::svm_rows(paths, limit)?;
    if let Some(l) = data.labels.iter().find(|l| l.contains(',')) {
        bail!(
            "label {l:?}: multi-label SVMlight rows are not supported for training; train on \
             the documents instead"
        );
    }
    let cfg = plan.config_for(data.labels.len())?;
    let classes = svmlight::classes_of_labels(&data.labels, cfg.positive.as_deref())?;
    let idx = rosenblatt::training::label_indices(&data.labels, &classes)?;
    // The model is fitted on the training part and scored on the held-out part, both
    // views of the rows read.
    let split = plan
        .holdout
        .map(|h| holdout(idx.len(), h, plan.seed))
        .transpose()?;
    if let (Some(s), Some(h)) = (&split, plan.holdout) {
        let classes: HashSet<usize> = s.train.iter().map(|&i| idx[i]).collect();
        super::check_holdout(h, classes.len(), s.train.len(), s.test.len())?;
    }
    let all: Vec<usize> = (0..idx.len()).collect();
    let train = split.as_ref().map_or(&all[..], |s| &s.train[..]);
    let (train_idx, inputs) = (pick(&idx, train), plan.source.names());
    // Tuning sees the training rows only, never the held-out ones.
    let (cfg, table) = match plan.tune_for(train.len())? {
        Some(t) => {
            let phase = Phase::start("tuning");
            let table = with_rows!(&data.rows, x => pipeline::tune_rows(
                &RowSubset::new(x, train),
                &train_idx,
                &classes,
                &t.points,
                t.options,
                &|p| phase.set(&super::tune_progress(p)),
            ))
            .context("tuning")?;
            (
                super::tuned_config(&cfg, &t.points[table.best])?,
                Some(table),
            )
        }
        None => (cfg, None),
    };
    let mut model = with_rows!(&data.rows, x => pipeline::fit_rows(
        &RowSubset::new(x, train),
        &train_idx,
        classes.clone(),
        &cfg,
        inputs,
    ))?;
    model.meta_mut().seconds = start.elapsed().as_secs_f64();
    model.meta_mut().tuning = table;
    model.save(&plan.output)?;
    let held_out = split.map(|s| {
        let truth = pick(&idx, &s.test);
        with_rows!(&data.rows, x => metrics(&model, &RowSubset::new(x, &s.test), &truth))
    });
    let folds = with_rows!(&data.rows, x => cv(plan, x, &idx, &classes, &cfg))?;
    let summary = TrainSummary {
        output: &plan.output,
        json: plan.json,
        skipped: 0,
        held_out: plan.holdout.zip(held_out).map(|(f, m)| (f, plan.seed, m)),
        spam: None,
        folds,
    };
    report::train_summary(&model, &summary)?;
    if let Some(file) = &plan.plot {
        super::train_chart(file, &model, &plan.source.names())?;
    }
    Ok(ExitCode::SUCCESS)
}
