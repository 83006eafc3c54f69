//! The subcommands, one file each (with their mail and SVMlight variants beside them):
//! each runs its validated plan and knows nothing of flags or of the other subcommands.

mod bench;
mod classify;
mod classify_mail;
mod eval;
mod eval_mail;
mod inspect;
mod learn;
mod train;
mod train_svm;
mod vectorize;

use crate::flags::Plan;
use anyhow::Result;
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
    }
}
