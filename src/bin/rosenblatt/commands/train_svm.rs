//! `rosenblatt train` on SVMlight rows: read as they are (no tokenizer, no vocabulary)
//! and handed to the training job, whose held-out part, folds and `--tune` folds are
//! views of the rows read.

use crate::flags::TrainPlan;
use crate::load::{self, with_rows};
use crate::progress::Phase;
use anyhow::{Result, bail};
use rosenblatt::features::svmlight;
use std::path::PathBuf;
use std::process::ExitCode;

/// `train` on the SVMlight rows in `paths`, feature ids up to `limit` (`None`: the
/// default).
pub fn run(plan: &TrainPlan, paths: &[PathBuf], limit: Option<u32>) -> Result<ExitCode> {
    let (data, _) = load::svm_rows(paths, limit)?;
    if let Some(l) = data.labels.iter().find(|l| l.contains(',')) {
        bail!(
            "label {l:?}: multi-label SVMlight rows are not supported for training; train on \
             the documents instead"
        );
    }
    let classes = svmlight::classes_of_labels(&data.labels, plan.config.positive.as_deref())?;
    plan.check_cv(data.labels.len(), "rows")?;
    let job = plan.job(data.labels.len(), plan.source.names());
    let phase = Phase::start("training");
    let out = with_rows!(&data.rows, x => job.run_rows(
        x,
        &data.labels,
        classes,
        &|s| phase.set(&super::stage_line(s)),
    ))?;
    out.model.save(&plan.output)?;
    drop(phase);
    super::train_report(plan, &out, 0, None)
}
