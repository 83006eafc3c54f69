//! `rosenblatt eval`: a saved model's metrics on labelled documents.

use crate::args::EvalArgs;
use crate::load::read_inputs_part;
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
    if let Some(code) = crate::svm::eval(&a, &model, path)? {
        return Ok(code);
    }
    let phase = Phase::start("reading documents");
    let corpus = read_inputs_part(&a.inputs, a.input.format, a.input.split, Format::detect)?;
    if corpus.docs.is_empty() {
        bail!("no documents to evaluate");
    }
    phase.set("evaluating");
    if matches!(model.predictor, rosenblatt::model::Predictor::MultiLabel(_)) {
        // Micro/macro-F1 over the labels (keys micro_f1, macro_f1, micro_f1_top10).
        let m = pipeline::evaluate_multilabel(&model, &corpus.docs)?;
        drop(phase);
        if a.json {
            println!("{}", m.to_json());
        } else {
            print!("{}", m.to_text());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let metrics = pipeline::evaluate(&model, &corpus.docs)?;
    drop(phase);
    if a.json {
        println!("{}", metrics.to_json());
    } else {
        print!("{}", metrics.to_text());
    }
    Ok(ExitCode::SUCCESS)
}
