//! `rosenblatt eval`: a saved model's metrics on labelled documents.

use crate::args::EvalArgs;
use crate::load::read_inputs;
use crate::progress::Phase;
use anyhow::{Context, Result, bail};
use rosenblatt::input::Format;
use rosenblatt::model::SavedModel;
use rosenblatt::pipeline;
use std::process::ExitCode;

/// Runs `eval`.
pub fn run(a: EvalArgs) -> Result<ExitCode> {
    if a.mail.is_set() {
        return crate::mail_eval::run(a);
    }
    let path = a.model.as_deref().context("--model is required")?;
    let model = SavedModel::load(path)?;
    let phase = Phase::start("reading documents");
    let corpus = read_inputs(&a.inputs, a.input.format, Format::detect)?;
    if corpus.docs.is_empty() {
        bail!("no documents to evaluate");
    }
    phase.set("evaluating");
    let metrics = pipeline::evaluate(&model, &corpus.docs)?;
    drop(phase);
    if a.json {
        println!("{}", metrics.to_json());
    } else {
        print!("{}", metrics.to_text());
    }
    Ok(ExitCode::SUCCESS)
}
