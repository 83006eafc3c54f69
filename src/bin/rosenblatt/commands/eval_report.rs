//! What the `eval` commands share, whatever reads their documents (one process, a
//! cluster, a mail filter): a single-label evaluation's report with the confusions
//! `--confusion` asks for, the `--plot` chart of a single-label evaluation and a spam
//! filter's report. `eval` dispatches to `eval_mail` and `eval_cluster`; those and `eval`
//! itself draw and print through here, so no two of them import each other.

use crate::flags::{ConfusionView, EvalChart, Report};
use anyhow::{Context, Result, bail};
use rosenblatt::eval::{Metrics, ProbabilityMetrics, SpamMetrics, log_loss, roc_auc, roc_points};
use rosenblatt::incremental::{SpamCut, SpamFilter};
use rosenblatt::model::Model;
use std::path::Path;

/// Prints a single-label evaluation as text or JSON, its confusions as `r` asks: the
/// whole matrix, the largest cells (JSON `top_confusions`) or none; with the log loss and
/// calibration error of the model's probabilities `p` where it has them (JSON `log_loss`,
/// `ece`, `ece_bins`).
pub fn print_metrics(m: &Metrics, p: Option<&ProbabilityMetrics>, r: Report) -> Result<()> {
    if r.json {
        let mut v = metrics_json(m, None, r.confusion);
        if let (Some(o), Some(p)) = (v.as_object_mut(), p.map(ProbabilityMetrics::to_json)) {
            o.extend(
                p.as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), v.clone())),
            );
        }
        outln!("{v}");
    } else {
        out!(
            "{}{}{}{}",
            m.summary_text(),
            p.map(ProbabilityMetrics::to_text).unwrap_or_default(),
            m.class_table_text(),
            confusion_text(m, r.confusion)
        );
    }
    Ok(())
}

/// The JSON of a single-label evaluation (and of a filter's `spam` figures), with the
/// confusions of `asked`: `confusion`, the whole matrix, unless `none`; with `top`, also
/// `top_confusions`.
fn metrics_json(
    m: &Metrics,
    spam: Option<&SpamMetrics>,
    asked: Option<ConfusionView>,
) -> serde_json::Value {
    let mut v = match spam {
        Some(spam) => spam_json(Some(m), spam),
        None => m.to_json(),
    };
    let Some(o) = v.as_object_mut() else {
        return v;
    };
    match ConfusionView::for_classes(asked, m.classes.len()) {
        ConfusionView::Full => {}
        ConfusionView::Top(n) => {
            o.insert(
                "top_confusions".into(),
                m.confusions_json(&m.largest_confusions(n)),
            );
        }
        ConfusionView::None => {
            o.remove("confusion");
        }
    }
    v
}

/// The confusions of `m` as text, as `asked` (or the class count) chooses: the matrix,
/// the largest cells as `true → predicted  documents  share`, or nothing.
pub fn confusion_text(m: &Metrics, asked: Option<ConfusionView>) -> String {
    use std::fmt::Write;
    let n = match ConfusionView::for_classes(asked, m.classes.len()) {
        ConfusionView::Full => return m.matrix_text(),
        ConfusionView::None => return String::new(),
        ConfusionView::Top(n) => n,
    };
    let top = m.largest_confusions(n);
    if top.is_empty() {
        return "\nconfusions    none: every document was given its true class\n".into();
    }
    let mut s = String::new();
    let (t, p) = (
        top.iter().map(|c| m.classes[c.truth].chars().count()).max(),
        top.iter()
            .map(|c| m.classes[c.predicted].chars().count())
            .max(),
    );
    let (t, p) = (t.unwrap_or(4).max(4), p.unwrap_or(9).max(9));
    let cw = top[0].count.to_string().len().max(9);
    let _ = writeln!(
        s,
        "\nlargest confusions ({} of {} cells off the diagonal, largest first)",
        top.len(),
        m.confused_cells()
    );
    let _ = writeln!(
        s,
        "{:t$}    {:p$}  {:>cw$}  share of true",
        "true", "predicted", "documents"
    );
    for c in &top {
        let _ = writeln!(
            s,
            "{:t$}  → {:p$}  {:>cw$}  {:>12.1}%",
            m.classes[c.truth],
            m.classes[c.predicted],
            c.count,
            100.0 * c.share
        );
    }
    s
}

/// Refuses `--confusion` for a multi-label model, which has no confusion matrix.
pub fn no_confusion(r: Report, path: &Path) -> Result<()> {
    if r.confusion.is_some() {
        bail!(
            "--confusion: {} is a multi-label model; its evaluation has per-label \
             precision, recall and F1 but no confusion matrix (--plot draws the labels \
             given against the true ones); leave out --confusion",
            path.display()
        );
    }
    Ok(())
}

/// Refuses `--plot-compare` for a model of `k` classes other than two.
pub fn no_compare(c: &EvalChart, path: &Path, k: usize) -> Result<()> {
    if let Some(other) = &c.compare {
        bail!(
            "--plot-compare {}: ROC curves are drawn for binary models; {} has {k} classes \
             (its --plot is a confusion heat map)",
            other.display(),
            path.display()
        );
    }
    Ok(())
}

/// Draws `eval --plot` for a single-label model at `path`: the ROC curve of a binary one
/// (with the `--plot-compare` model's, scored by `other`), the confusion heat map of a
/// multiclass one. `data` names the inputs; `truth` and `scores` are per document.
#[allow(clippy::too_many_arguments)] // the evaluation's parts, each used once
pub fn single_chart(
    c: &EvalChart,
    model: &Model,
    path: &Path,
    data: &str,
    metrics: &Metrics,
    truth: &[usize],
    scores: &[f32],
    other: impl FnOnce(&Model) -> Result<Vec<f32>>,
) -> Result<()> {
    use crate::plot::roc::{self, Labels};
    let k = model.classes().len();
    if k != 2 {
        no_compare(c, path, k)?;
        let confusion = crate::plot::confusion::Confusion {
            classes: model.classes(),
            counts: metrics.confusion.clone(),
            f1: (0..k).map(|i| metrics.class(i).f1).collect(),
            support: (0..k).map(|i| metrics.class(i).support).collect(),
            multilabel: false,
        };
        let of = format!("{} on {data}", crate::plot::name(path));
        return crate::plot::confusion::draw(&c.file, &of, &confusion, c.classes);
    }
    let positive: Vec<bool> = truth.iter().map(|&t| t == 1).collect();
    let mut curves = vec![curve(crate::plot::name(path), scores, &positive)?];
    if let Some(p2) = &c.compare {
        let m2 = crate::load::model(p2)?;
        if m2.classes() != model.classes() {
            bail!(
                "--plot-compare {}: its classes ({}) are not those of {} ({})",
                p2.display(),
                m2.classes().join(", "),
                path.display(),
                model.classes().join(", ")
            );
        }
        let s2 = other(&m2).with_context(|| format!("scoring with {}", p2.display()))?;
        curves.push(curve(crate::plot::name(p2), &s2, &positive)?);
    }
    let labels = Labels {
        negative: &model.classes()[0],
        positive: &model.classes()[1],
        data,
    };
    roc::draw(&c.file, &labels, &curves)
}

/// One model's ROC curve for the chart, or the error when one class is absent.
fn curve(name: String, scores: &[f32], positive: &[bool]) -> Result<crate::plot::roc::Curve> {
    let (Some(points), Some(auc)) = (roc_points(scores, positive), roc_auc(scores, positive))
    else {
        bail!("--plot: a ROC curve needs documents of both classes among those evaluated");
    };
    Ok(crate::plot::roc::Curve {
        name,
        points,
        auc,
        negatives: positive.iter().filter(|&&p| !p).count() as u64,
        positives: positive.iter().filter(|&&p| p).count() as u64,
    })
}

/// The JSON of both metric sets: `accuracy`, `per_class`, … plus `spam_recall`,
/// `ham_fp_rate`, `auc`, `one_minus_roca_pct`, `false_positives`, `false_negatives`.
pub fn spam_json(metrics: Option<&Metrics>, spam: &SpamMetrics) -> serde_json::Value {
    let mut v = metrics.map_or_else(|| serde_json::json!({}), Metrics::to_json);
    if let (Some(o), serde_json::Value::Object(s)) = (v.as_object_mut(), spam.to_json()) {
        o.extend(s);
    }
    v
}

/// Prints a filter's evaluation: the spam figures and the metrics (with the confusions
/// `r` asks for), where it decides and the log-loss of its probabilities (JSON:
/// `threshold`, `threshold_probability`, `log_loss`).
pub fn print_filter(
    model: &Model,
    metrics: &Metrics,
    spam: &SpamMetrics,
    scores: &[f32],
    truth: &[usize],
    r: Report,
    cut: Option<SpamCut>,
) -> Result<()> {
    let loss = probabilities(model, scores).map(|p| log_loss(&p, truth));
    if r.json {
        let mut v = metrics_json(metrics, Some(spam), r.confusion);
        // A cut in P(spam) has no score of its own; a score has its P(spam) where the
        // filter records one.
        match cut {
            Some(SpamCut::Probability(p)) => v["threshold_probability"] = p.into(),
            Some(SpamCut::Score(_)) | None => {
                let t = if let Some(SpamCut::Score(t)) = cut {
                    t
                } else {
                    model.threshold()
                };
                v["threshold"] = t.into();
                if let Some(p) = model.probability(t) {
                    v["threshold_probability"] = p.into();
                }
            }
        }
        if let Some(l) = loss {
            v["log_loss"] = l.into();
        }
        outln!("{v}");
    } else {
        match (cut, crate::report::threshold(model)) {
            (Some(cut), Some(own)) => outln!(
                "decides        {} (given; the filter's own: {own})",
                crate::filter::cut_rule(cut)
            ),
            (Some(cut), None) => outln!("decides        {}", crate::filter::cut_rule(cut)),
            (None, Some(t)) => outln!("decides        {t}"),
            (None, None) => {}
        }
        if let Some(l) = loss {
            outln!("log-loss       {l:.4} (of its probabilities)");
        }
        // One block: the spam figures count the messages and the accuracy once.
        out!(
            "{}{}{}",
            spam.to_text(),
            metrics.class_table_text(),
            confusion_text(metrics, r.confusion)
        );
    }
    Ok(())
}

/// A filter's P(spam) for each of `scores`, where it has a probability.
fn probabilities(model: &Model, scores: &[f32]) -> Option<Vec<f32>> {
    scores.iter().map(|&s| model.probability(s)).collect()
}

/// A filter's figures re-decided at `cut`: each message of `scores` (true classes
/// `truth`) called spam at the cut, the metrics and the spam figures of those verdicts
/// (the AUC is the scores', whatever the cut).
pub fn at_cut(
    model: &Model,
    f: &SpamFilter<'_>,
    cut: SpamCut,
    scores: &[f32],
    truth: &[usize],
) -> (Metrics, SpamMetrics) {
    let called: Vec<bool> = scores
        .iter()
        .map(|&s| cut.is_spam(s, model.probability(s)))
        .collect();
    let given: Vec<usize> = called
        .iter()
        .map(|&c| if c { f.spam } else { 1 - f.spam })
        .collect();
    let is_spam: Vec<bool> = truth.iter().map(|&t| t == f.spam).collect();
    (
        Metrics::new(model.classes().to_vec(), truth, &given),
        SpamMetrics::of_verdicts(scores, &is_spam, &called),
    )
}
