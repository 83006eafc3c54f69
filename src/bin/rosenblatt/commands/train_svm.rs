//! `rosenblatt train` on SVMlight rows: read as they are (no tokenizer, no vocabulary)
//! and handed to the training job, whose held-out part, folds and `--tune` folds are
//! views of the rows read.

use crate::flags::TrainPlan;
use crate::load::{self, with_rows};
use crate::progress::Phase;
use anyhow::{Result, bail};
use rosenblatt::features::SparseRows;
use rosenblatt::features::svmlight::{self, SvmData};
use std::path::PathBuf;
use std::process::ExitCode;

/// `train` on the SVMlight rows in `paths`, feature ids up to `limit` (`None`: the
/// default).
pub fn run(plan: &TrainPlan, paths: &[PathBuf], limit: Option<u32>) -> Result<ExitCode> {
    let (data, ids) = load::svm_rows(paths, limit)?;
    if let Some(l) = data.labels.iter().find(|l| l.contains(',')) {
        bail!(
            "label {l:?}: multi-label SVMlight rows are not supported for training; train on \
             the documents instead"
        );
    }
    let classes = svmlight::classes_of_labels(&data.labels, plan.config.positive.as_deref())?;
    check_width(plan, &data, &ids, paths, limit, classes.len())?;
    plan.check_cv(data.labels.len(), "rows")?;
    let job = plan.job(plan.source.names());
    let phase = Phase::start("training");
    let out = phase.with_epochs(|| {
        with_rows!(&data.rows, x => job.run_rows(
            x,
            &data.labels,
            classes,
            &|s| phase.set(&super::stage_line(s)),
        ))
    })?;
    rosenblatt::classifier::lock::save_locked(&out.model, &plan.output)?;
    drop(phase);
    super::train_report(plan, &out, 0, None)
}

/// Refuses rows too wide for a model (`training::check_width`), naming the line that
/// holds the largest feature id and the `--max-feature-id` that let it through.
fn check_width(
    plan: &TrainPlan,
    data: &SvmData,
    ids: &[String],
    paths: &[PathBuf],
    limit: Option<u32>,
    classes: usize,
) -> Result<()> {
    let width = with_rows!(&data.rows, x => x.n_cols());
    let Err(e) = rosenblatt::training::check_width(width, classes, &plan.config) else {
        return Ok(());
    };
    let widest = with_rows!(&data.rows, x => {
        (0..x.n_rows()).max_by_key(|&i| x.row(i).ids.last().copied())
    });
    let at = widest.map_or_else(String::new, |i| format!("{}: ", load::at(&ids[i], paths)));
    let limit = limit.unwrap_or(svmlight::DEFAULT_MAX_FEATURE_ID);
    Err(anyhow::Error::new(e).context(format!(
        "{at}feature id {width} (let through by --max-feature-id {limit})"
    )))
}
