//! `rosenblatt eval --processes N --process I`: this process reads and scores only its
//! share of the labelled documents or mail; process 0 gathers each document's true class,
//! decision and score (its true and given labels, for a multi-label model) in input order
//! and prints the metrics one process evaluating everything prints — accuracy, per-class
//! figures, confusion matrix, and for spam filters the ROC AUC from all the scores — and
//! draws `--plot`. The others print nothing on stdout.

use crate::flags::{Documents, EvalChart, EvalPlan, EvalTask, Mail, Report};
use crate::load;
use crate::report;
use anyhow::{Result, bail};
use rosenblatt::distributed::{Cluster, Gathered, Processes, gather_scores};
use rosenblatt::eval::{Metrics, Outcome, ProbabilityMetrics, SpamMetrics};
use rosenblatt::input::{DocStream, Document, Share, Split, mail, stream::DEFAULT_BATCH};
use rosenblatt::model::{Model, Predictor};
use rosenblatt::training;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// One document's true class, the class given, its score and, for a model with
/// probabilities, P(true class), the probability of its most probable class and whether
/// that class is the true one (an `eval::Outcome`).
type Scored = (usize, usize, f32, Option<(f32, f32, bool)>);

/// Runs `eval` as process `p.index` of a cluster.
pub fn run(plan: &EvalPlan, p: Processes) -> Result<ExitCode> {
    let me = p.index;
    let cluster = Cluster::Processes(p);
    let chart = plan.plot.as_ref();
    match &plan.task {
        EvalTask::Documents { model, documents } => {
            docs(&cluster, me, model, documents, plan.report(), chart)
        }
        EvalTask::Mail { model, mail } => spam(&cluster, me, model, mail, plan.report(), chart),
        EvalTask::Online { .. } => bail!("--online runs in one process (leave out --processes)"),
    }
}

/// Reads `share` of the documents `d` batch by batch, handing `f` each batch with its
/// documents' unit numbers; reports what could not be read.
fn each_batch(
    d: &Documents,
    share: Share,
    mut f: impl FnMut(&[usize], Vec<Document>) -> rosenblatt::Result<()>,
) -> rosenblatt::Result<()> {
    let stream = DocStream::open_detected(&d.paths, d.format, d.split, DEFAULT_BATCH, d.detect)?;
    let mut stream = stream.share(share);
    while let Some(batch) = stream.next() {
        let docs = batch?;
        let units = stream.units().to_vec();
        f(&units, docs)?;
    }
    report::skipped(&stream.skipped);
    Ok(())
}

/// `eval` of the model at `path` on labelled documents shared among the processes.
fn docs(
    cluster: &Cluster,
    me: usize,
    path: &Path,
    d: &Documents,
    report: Report,
    chart: Option<&EvalChart>,
) -> Result<ExitCode> {
    let model = crate::load::model(path)?;
    let kind = rosenblatt::classifier::Kind::of(&model);
    let svm_input = d.reads_svmlight(kind == rosenblatt::classifier::Kind::Vectors)?;
    kind.check_input(path, svm_input)?;
    if svm_input {
        bail!(
            "eval --processes reads documents or mail; SVMlight vectors are evaluated by one \
             process (leave out --processes)"
        );
    }
    if d.max_feature_id.is_some() {
        bail!("{}", crate::flags::NOT_SVM);
    }
    let data = match d.split {
        Some(Split::Train) => format!("{} (ModApte train)", crate::plot::names(&d.paths)),
        Some(Split::Test) => format!("{} (ModApte test)", crate::plot::names(&d.paths)),
        None => crate::plot::names(&d.paths),
    };
    let model = Arc::new(model);
    let m = Arc::clone(&model);
    let inputs = d.clone();
    if matches!(model.predictor(), Predictor::MultiLabel(_)) {
        super::eval_report::no_confusion(report, path)?;
        let gathered = gather_scores(cluster, move |share: Share| {
            let mut out = Vec::new();
            each_batch(&inputs, share, |units, docs| {
                let truth = rosenblatt::training::label_sets(&docs, m.classes())?;
                let x = training::vectorize_for(&m, &docs).matrix;
                let given = training::decide_labels(&m, &x)
                    .into_iter()
                    .map(|ls| ls.into_iter().map(|l| l.0).collect::<Vec<usize>>());
                out.extend(units.iter().copied().zip(truth.into_iter().zip(given)));
                Ok(())
            })?;
            Ok(out)
        })?;
        let Some(sets) = results(gathered, me)? else {
            return Ok(ExitCode::SUCCESS);
        };
        let (truth, given): (Vec<Vec<usize>>, Vec<Vec<usize>>) = sets.into_iter().unzip();
        let metrics = training::label_set_metrics(&model, &truth, &given);
        if report.json {
            outln!("{}", metrics.to_json());
        } else {
            out!("{}", metrics.to_text());
        }
        if let Some(c) = chart {
            let k = model.classes().len();
            let confusion = crate::plot::confusion::Confusion {
                classes: model.classes(),
                counts: rosenblatt::eval::label_confusion(k, &truth, &given),
                f1: (0..k).map(|i| metrics.class(i).f1).collect(),
                support: (0..k).map(|i| metrics.class(i).support).collect(),
                multilabel: true,
            };
            let of = format!("{} on {data}", crate::plot::name(path));
            crate::plot::confusion::draw(&c.file, &of, &confusion, c.classes)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let paths = d.paths.clone();
    let gathered = gather_scores(cluster, move |share: Share| {
        let mut out = Vec::new();
        each_batch(&inputs, share, |units, docs| {
            if let Some(doc) = docs.iter().find(|d| d.labels.is_empty()) {
                return Err(rosenblatt::Error::Data(
                    load::no_label(&doc.id, &paths).to_string(),
                ));
            }
            out.extend(units.iter().copied().zip(score(&m, &docs)?));
            Ok(())
        })?;
        Ok(out)
    })?;
    let Some(scored) = results(gathered, me)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let (metrics, truth, scores) = metrics(&model, &scored);
    let p = probability_metrics(&scored);
    super::eval_report::print_metrics(&metrics, p.as_ref(), report)?;
    if let Some(c) = chart {
        chart_of(c, &model, path, &data, &metrics, &truth, &scores)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `eval` of the spam filter at `path` on labelled mail shared among the processes.
fn spam(
    cluster: &Cluster,
    me: usize,
    path: &Path,
    mail: &Mail,
    report: Report,
    chart: Option<&EvalChart>,
) -> Result<ExitCode> {
    let model = crate::load::model(path)?;
    let rules = crate::filter::spam_filter(&model, path)?.rules.clone();
    let model = Arc::new(model);
    let m = Arc::clone(&model);
    let (spam, ham) = (mail.spam.clone(), mail.ham.clone());
    let gathered = gather_scores(cluster, move |share: Share| {
        let read = mail::read_labelled_share(&spam, &ham, &rules, share)?;
        let units = read.units.clone();
        let corpus = load::mail_corpus(read);
        Ok(units.into_iter().zip(score(&m, &corpus.docs)?).collect())
    })?;
    let Some(scored) = results_named(gathered, me, "no messages to evaluate")? else {
        return Ok(ExitCode::SUCCESS);
    };
    let (metrics, truth, scores) = metrics(&model, &scored);
    let is_spam: Vec<bool> = truth.iter().map(|&t| t == 1).collect();
    let figures = SpamMetrics::new(&scores, &is_spam, model.threshold());
    super::eval_report::print_filter(&model, &metrics, &figures, &scores, &truth, report, None)?;
    if let Some(c) = chart {
        let mut data: Vec<_> = mail.spam.clone();
        data.extend(mail.ham.iter().cloned());
        let data = crate::plot::names(&data);
        chart_of(c, &model, path, &data, &metrics, &truth, &scores)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Each labelled document's true class, the class the model gives and its score.
fn score(model: &Model, docs: &[Document]) -> rosenblatt::Result<Vec<Scored>> {
    let truth = rosenblatt::training::class_indices(docs, model.classes())?;
    let x = training::vectorize_for(model, docs).matrix;
    let decisions = model.decide_rows(&x);
    let mut outcomes = model.class_probability_rows(&x).map(Vec::into_iter);
    Ok(truth
        .into_iter()
        .zip(decisions)
        .map(|(t, d)| {
            let o = outcomes.as_mut().and_then(Iterator::next).map(|p| {
                let o = Outcome::of(&p, t);
                (o.truth_probability, o.confidence, o.right)
            });
            (t, d.class, d.score, o)
        })
        .collect())
}

/// The log loss and calibration error of the gathered documents, where the model gave
/// probabilities.
fn probability_metrics(scored: &[Scored]) -> Option<ProbabilityMetrics> {
    let outcomes: Option<Vec<Outcome>> = scored
        .iter()
        .map(|s| {
            s.3.map(|(truth_probability, confidence, right)| Outcome {
                truth_probability,
                confidence,
                right,
            })
        })
        .collect();
    outcomes.map(|o| ProbabilityMetrics::of_outcomes(&o))
}

/// The metrics of the gathered documents, with their true classes and scores.
fn metrics(model: &Model, scored: &[Scored]) -> (Metrics, Vec<usize>, Vec<f32>) {
    let truth: Vec<usize> = scored.iter().map(|s| s.0).collect();
    let given: Vec<usize> = scored.iter().map(|s| s.1).collect();
    let scores: Vec<f32> = scored.iter().map(|s| s.2).collect();
    (
        Metrics::new(model.classes().to_vec(), &truth, &given),
        truth,
        scores,
    )
}

/// Process 0's gathered results; `None` on the others (which say so on stderr). No
/// documents at all is an error on every process.
fn results<T>(g: Gathered<T>, me: usize) -> Result<Option<Vec<T>>> {
    results_named(g, me, "no documents to evaluate")
}

/// As [`results`], with `empty` the error for no documents at all.
fn results_named<T>(g: Gathered<T>, me: usize, empty: &str) -> Result<Option<Vec<T>>> {
    if g.total == 0 {
        bail!("{empty}");
    }
    if g.results.is_none() {
        errln!(
            "process {me}: done; process 0 prints the metrics of the {} document(s)",
            g.total
        );
    }
    Ok(g.results)
}

/// Draws `eval --plot` of an evaluation over processes (`--plot-compare`, which would
/// score a second model, is refused with them).
fn chart_of(
    c: &EvalChart,
    model: &Model,
    path: &Path,
    data: &str,
    metrics: &Metrics,
    truth: &[usize],
    scores: &[f32],
) -> Result<()> {
    super::eval_report::single_chart(c, model, path, data, metrics, truth, scores, |_| {
        bail!("--plot-compare is refused with --processes")
    })
}
