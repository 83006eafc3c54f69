//! `rosenblatt eval` for spam filters: a saved filter on labelled mail (`--spam`/`--ham`),
//! or the TREC online protocol over an index file (`--online INDEX`). Both report
//! accuracy, spam recall, the ham false-positive rate, ROC AUC and (1-ROCA)%.

use super::eval_report;
use crate::flags::{EvalChart, Mail, Report};
use crate::load;
use crate::progress::Phase;
use anyhow::{Result, bail};
use rosenblatt::eval::learning_curve;
use rosenblatt::incremental::trec::{read_index, run_online};
use rosenblatt::incremental::{OnlineFilter, SpamCut, empty_model};
use rosenblatt::model::Model;
use rosenblatt::training;
use std::path::Path;
use std::process::ExitCode;

/// `eval` of the filter at `path` on labelled mail, drawing its ROC curve with `--plot`.
pub fn mail(
    path: &Path,
    mail: &Mail,
    report: Report,
    chart: Option<&EvalChart>,
    cut: Option<SpamCut>,
) -> Result<ExitCode> {
    let model = crate::load::model(path)?;
    let f = crate::filter::spam_filter(&model, path)?;
    crate::filter::check_cut(&f, cut, path)?;
    let phase = Phase::start("reading mail");
    let corpus = load::mail(&mail.spam, &mail.ham, f.rules)?;
    if corpus.docs.is_empty() {
        bail!("no messages to evaluate");
    }
    phase.set("evaluating");
    let evaluated = training::evaluate_decisions(&model, &corpus.docs)?;
    let scores: Vec<f32> = evaluated.decisions.iter().map(|d| d.score).collect();
    let (metrics, spam) = match cut {
        Some(cut) => eval_report::at_cut(&model, &f, cut, &scores, &evaluated.truth),
        None => {
            let spam = evaluated.spam_metrics(f.spam, model.threshold());
            (evaluated.metrics, spam)
        }
    };
    let truth = evaluated.truth;
    drop(phase);
    eval_report::print_filter(&model, &metrics, &spam, &scores, &truth, report, cut)?;
    if let Some(c) = chart {
        let other = |m2: &Model| {
            crate::filter::spam_filter(m2, c.compare.as_deref().unwrap_or(path))?;
            let x2 = training::vectorize_for(m2, &corpus.docs).matrix;
            Ok(m2.decide_rows(&x2).iter().map(|d| d.score).collect())
        };
        let mut data: Vec<_> = mail.spam.clone();
        data.extend(mail.ham.iter().cloned());
        let data = crate::plot::names(&data);
        eval_report::single_chart(c, &model, path, &data, &metrics, &truth, &scores, other)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The TREC online protocol over `index`, from the filter at `start` or `empty`; the
/// filter is saved to `save` afterwards. The learning curve has a point every `block`
/// messages, and is drawn into `plot` when given.
pub fn online(
    start: Option<&Path>,
    empty: &OnlineFilter,
    index: &Path,
    save: Option<&Path>,
    block: usize,
    json: bool,
    plot: Option<&Path>,
) -> Result<ExitCode> {
    let mut model = match start {
        Some(p) => {
            let m = crate::load::model(p)?;
            crate::filter::spam_filter(&m, p)?;
            m
        }
        None => empty_model(empty.clone(), "ham", "spam")?,
    };
    let entries = read_index(index)?;
    let phase = Phase::start("classifying and learning, in order");
    let run = run_online(&mut model, &entries)?;
    drop(phase);
    crate::report::skipped(&run.skipped);
    crate::report::unparsed(&run.unparsed);
    if run.scores.is_empty() {
        bail!(
            "{}: no message of the index could be read (see above); nothing was evaluated{}",
            index.display(),
            if save.is_some() { " or saved" } else { "" }
        );
    }
    if let Some(save) = save {
        rosenblatt::classifier::lock::save_locked(&model, save)?;
    }
    let curve = learning_curve(&run.scores, &run.truth, block, model.threshold());
    let rule = model
        .online()
        .as_ref()
        .map_or_else(String::new, |o| o.rule.to_string());
    if let Some(file) = plot {
        let of = format!(
            "{} on {}",
            start.map_or_else(|| "an empty filter".to_string(), crate::plot::name),
            crate::plot::name(index)
        );
        crate::plot::curve::draw(file, &of, &rule, &curve, block)?;
    }
    if json {
        let mut v = eval_report::spam_json(None, &run.metrics);
        v["rule"] = rule.into();
        v["analyzer"] = model.analyzer().to_string().into();
        v["threshold"] = model.threshold().into();
        v["curve"] = serde_json::to_value(&curve)?;
        v["updates"] = run.updates.into();
        v["seconds"] = run.seconds.into();
        v["ms_per_message"] = run.ms_per_message().into();
        v["vocabulary"] = model.vocab().len().into();
        v["unparsed"] = run.unparsed.len().into();
        v["skipped"] = run.skipped.len().into();
        outln!("{v}");
    } else {
        outln!("TREC online protocol: {}", index.display());
        outln!("filter         {rule}; {}", model.analyzer());
        if let Some(t) = crate::report::threshold(&model) {
            outln!("decides        {t}");
        }
        out!("{}", run.metrics.to_text());
        outln!("updates        {}", run.updates);
        outln!("vocabulary     {}", model.vocab().describe());
        outln!(
            "time           {:.3} s ({:.3} ms per message)",
            run.seconds,
            run.ms_per_message()
        );
        outln!("learning curve (every {block} messages: errors, (1-ROCA)% of the block; so far)");
        let pct = |p: Option<f64>| p.map_or_else(|| "-".to_string(), |p| format!("{p:.4}"));
        for p in &curve {
            outln!(
                "  {:>8}  {:>5}  {:>8}  |  {:>6}  {:>8}",
                p.messages,
                p.block_errors,
                pct(p.block_one_minus_roca_pct),
                p.errors,
                pct(p.one_minus_roca_pct)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
