//! `rosenblatt eval`: a saved model's metrics on labelled documents or SVMlight rows;
//! spam filters and the TREC online protocol go to [`super::eval_mail`].

use super::eval_report;
use crate::flags::{Documents, EvalPlan, EvalTask};
use crate::load::{self, with_rows};
use crate::progress::Phase;
use anyhow::{Context, Result, bail};
use rosenblatt::classifier::{Kind, feature_limit};
use rosenblatt::eval::{Metrics, ProbabilityMetrics};
use rosenblatt::input::Split;
use rosenblatt::model::{Model, Predictor};
use rosenblatt::training;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `eval`.
pub fn run(plan: EvalPlan) -> Result<ExitCode> {
    check_outputs(&plan)?;
    if let Some(p) = plan.cluster.clone() {
        return super::eval_cluster::run(&plan, p);
    }
    let chart = plan.plot.as_ref();
    match &plan.task {
        EvalTask::Documents { model, documents } => docs(model, documents, &plan),
        EvalTask::Mail { model, mail } => {
            super::eval_mail::mail(model, mail, plan.report(), chart, plan.cut)
        }
        EvalTask::Online {
            model,
            index,
            save,
            empty,
            block,
        } => super::eval_mail::online(
            model.as_deref(),
            empty,
            index,
            save.as_deref(),
            *block,
            plan.json,
            chart.map(|c| c.file.as_path()),
        ),
    }
}

/// Refuses a chart or a saved filter that would replace one of the run's inputs.
fn check_outputs(plan: &EvalPlan) -> Result<()> {
    use rosenblatt::atomic::check_not_an_input;
    let mut inputs: Vec<&Path> = match &plan.task {
        EvalTask::Documents { model, documents } => std::iter::once(model)
            .chain(&documents.paths)
            .map(PathBuf::as_path)
            .collect(),
        EvalTask::Mail { model, mail } => std::iter::once(model)
            .chain(&mail.spam)
            .chain(&mail.ham)
            .map(PathBuf::as_path)
            .collect(),
        EvalTask::Online {
            model, index, save, ..
        } => {
            // The filter may be saved over the one it started from, learning on.
            if let Some(s) = save {
                check_not_an_input(s, &[index.as_path()])?;
            }
            model.iter().chain([index]).map(PathBuf::as_path).collect()
        }
    };
    if let Some(c) = &plan.plot {
        inputs.extend(c.compare.as_deref());
        if let EvalTask::Online { save: Some(s), .. } = &plan.task {
            inputs.push(s);
        }
        check_not_an_input(&c.file, &inputs)?;
    }
    Ok(())
}

/// `eval` of the model at `path` on labelled documents (or SVMlight rows), drawing
/// `plan`'s chart when `--plot` is given.
fn docs(path: &Path, d: &Documents, plan: &EvalPlan) -> Result<ExitCode> {
    let (report, chart) = (plan.report(), plan.plot.as_ref());
    let model = crate::load::model(path)?;
    if plan.cut.is_some() {
        // A cut re-decides a spam filter; anything else is refused as no filter.
        crate::filter::spam_filter(&model, path)?;
    }
    let kind = Kind::of(&model);
    let data = match d.split {
        Some(Split::Train) => format!("{} (ModApte train)", crate::plot::names(&d.paths)),
        Some(Split::Test) => format!("{} (ModApte test)", crate::plot::names(&d.paths)),
        None => crate::plot::names(&d.paths),
    };
    let svm_input = d.reads_svmlight(kind == Kind::Vectors)?;
    kind.check_input(path, svm_input)?;
    if svm_input {
        let (rows, ids) = load::svm_rows(&d.paths, feature_limit(&model, d.max_feature_id))
            .with_context(|| load::vectors_hint(path))?;
        let labelled = ids.iter().zip(&rows.labels);
        load::require_known_labels(
            labelled.map(|(id, l)| (id.as_str(), std::slice::from_ref(l))),
            model.classes(),
            &d.paths,
        )?;
        let truth = rosenblatt::training::label_indices(&rows.labels, model.classes())
            .context("the test rows' labels must be the model's classes")?;
        let (m, decisions, p) = with_rows!(&rows.rows, x => {
            let decisions = model.decide_rows(x);
            let predicted: Vec<usize> = decisions.iter().map(|d| d.class).collect();
            let p = model
                .class_probability_rows(x)
                .map(|p| ProbabilityMetrics::new(&p, &truth));
            (Metrics::new(model.classes().to_vec(), &truth, &predicted), decisions, p)
        });
        eval_report::print_metrics(&m, p.as_ref(), report)?;
        if let Some(c) = chart {
            let scores: Vec<f32> = decisions.iter().map(|d| d.score).collect();
            let other = |m2: &Model| {
                Ok(with_rows!(&rows.rows, x => m2.decide_rows(x))
                    .iter()
                    .map(|d| d.score)
                    .collect())
            };
            eval_report::single_chart(c, &model, path, &data, &m, &truth, &scores, other)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if d.max_feature_id.is_some() {
        bail!("{}", crate::flags::NOT_SVM);
    }
    // A mail filter reads its inputs as mail: class folders spam/ and ham/, else a
    // sentence naming --spam/--ham (never messages read as plain text).
    if model.analyzer().source().mail_rules().is_some() {
        let mail = load::mail_folders(path, &d.paths, d.format)?;
        return super::eval_mail::mail(path, &mail, report, chart, plan.cut);
    }
    let phase = Phase::start("reading documents");
    let corpus = load::documents(&d.paths, d.format, d.split, d.detect)?;
    if corpus.docs.is_empty() {
        bail!("no documents to evaluate");
    }
    phase.set("evaluating");
    let labelled = corpus.docs.iter().map(|d| (d.id.as_str(), &d.labels[..]));
    load::require_known_labels(labelled, model.classes(), &d.paths)?;
    if matches!(model.predictor(), Predictor::MultiLabel(_)) {
        // Micro/macro-F1 over the labels (keys micro_f1, macro_f1, micro_f1_top10).
        eval_report::no_confusion(report, path)?;
        let (m, truth, given) = training::evaluate_label_sets(&model, &corpus.docs)?;
        drop(phase);
        if report.json {
            outln!("{}", m.to_json());
        } else {
            out!("{}", m.to_text());
        }
        let Some(c) = chart else {
            return Ok(ExitCode::SUCCESS);
        };
        eval_report::no_compare(c, path, model.classes().len())?;
        let confusion = crate::plot::confusion::Confusion {
            classes: model.classes(),
            counts: rosenblatt::eval::label_confusion(model.classes().len(), &truth, &given),
            f1: (0..model.classes().len()).map(|k| m.class(k).f1).collect(),
            support: (0..model.classes().len())
                .map(|k| m.class(k).support)
                .collect(),
            multilabel: true,
        };
        let of = format!("{} on {data}", crate::plot::name(path));
        crate::plot::confusion::draw(&c.file, &of, &confusion, c.classes)?;
        return Ok(ExitCode::SUCCESS);
    }
    load::require_labels(&corpus, &d.paths)?;
    let e = training::evaluate_decisions(&model, &corpus.docs)?;
    drop(phase);
    eval_report::print_metrics(&e.metrics, e.probabilities.as_ref(), report)?;
    let Some(c) = chart else {
        return Ok(ExitCode::SUCCESS);
    };
    let scores: Vec<f32> = e.decisions.iter().map(|d| d.score).collect();
    let other = |m2: &Model| {
        Ok(training::evaluate_decisions(m2, &corpus.docs)?
            .decisions
            .iter()
            .map(|d| d.score)
            .collect())
    };
    eval_report::single_chart(c, &model, path, &data, &e.metrics, &e.truth, &scores, other)?;
    Ok(ExitCode::SUCCESS)
}
