//! `rosenblatt eval`: a saved model's metrics on labelled documents or SVMlight rows;
//! spam filters and the TREC online protocol go to [`super::eval_mail`].

use crate::flags::{Documents, EvalPlan, EvalTask};
use crate::load::{self, with_rows};
use crate::progress::Phase;
use anyhow::{Context, Result, bail};
use rosenblatt::eval::Metrics;
use rosenblatt::model::{FeatureSpace, Predictor, SavedModel};
use rosenblatt::pipeline;
use std::path::Path;
use std::process::ExitCode;

/// Runs `eval`.
pub fn run(plan: EvalPlan) -> Result<ExitCode> {
    match &plan.task {
        EvalTask::Documents { model, documents } => docs(model, documents, plan.json),
        EvalTask::Mail { model, mail } => super::eval_mail::mail(model, mail, plan.json),
        EvalTask::Online {
            model,
            index,
            save,
            rules,
        } => super::eval_mail::online(model.as_deref(), rules, index, save.as_deref(), plan.json),
    }
}

/// Prints metrics as text or JSON.
macro_rules! print_metrics {
    ($m:expr, $json:expr) => {
        if $json {
            outln!("{}", $m.to_json());
        } else {
            out!("{}", $m.to_text());
        }
    };
}

/// `eval` of the model at `path` on labelled documents (or SVMlight rows).
fn docs(path: &Path, d: &Documents, json: bool) -> Result<ExitCode> {
    let model = SavedModel::load(path)?;
    let indexed = matches!(model.features, FeatureSpace::Indexed { .. });
    if load::check_kind(&model, path, d.reads_svmlight(indexed)?)? {
        let (data, _) =
            load::svm_rows(&d.paths, d.max_feature_id).with_context(|| load::vectors_hint(path))?;
        let truth = pipeline::label_indices(&data.labels, &model.classes)
            .context("the test rows' labels must be the model's classes")?;
        let m = with_rows!(&data.rows, x => {
            let decisions = pipeline::decide(&model, x);
            let predicted: Vec<usize> = decisions.iter().map(|d| d.class).collect();
            Metrics::new(model.classes.clone(), &truth, &predicted)
        });
        print_metrics!(m, json);
        return Ok(ExitCode::SUCCESS);
    }
    if d.max_feature_id.is_some() {
        bail!("{}", crate::flags::NOT_SVM);
    }
    let phase = Phase::start("reading documents");
    let corpus = load::documents(&d.paths, d.format, d.split, d.detect)?;
    if corpus.docs.is_empty() {
        bail!("no documents to evaluate");
    }
    phase.set("evaluating");
    if matches!(model.predictor, Predictor::MultiLabel(_)) {
        // Micro/macro-F1 over the labels (keys micro_f1, macro_f1, micro_f1_top10).
        let m = pipeline::evaluate_multilabel(&model, &corpus.docs)?;
        drop(phase);
        print_metrics!(m, json);
        return Ok(ExitCode::SUCCESS);
    }
    load::require_labels(&corpus, &d.paths)?;
    let metrics = pipeline::evaluate(&model, &corpus.docs)?;
    drop(phase);
    print_metrics!(metrics, json);
    Ok(ExitCode::SUCCESS)
}
