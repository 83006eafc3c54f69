//! `rosenblatt eval` for spam filters: a saved filter on labelled mail (`--spam`/`--ham`),
//! or the TREC online protocol over an index file (`--online INDEX`). Both report
//! accuracy, spam recall, the ham false-positive rate, ROC AUC and (1-ROCA)%.

use crate::args::EvalArgs;
use crate::mail::MailInputs;
use crate::progress::Phase;
use anyhow::{Result, bail};
use clap::Args;
use rosenblatt::eval::{Metrics, SpamMetrics};
use rosenblatt::incremental::empty_model;
use rosenblatt::input::mail::MailRules;
use rosenblatt::model::SavedModel;
use rosenblatt::pipeline;
use rosenblatt::pipeline::trec::{read_index, run_online};
use rosenblatt::text::{Analyzer, Source};
use std::path::PathBuf;
use std::process::ExitCode;

/// Mail inputs of `eval`.
#[derive(Debug, Args, Clone, Default)]
pub struct EvalMailArgs {
    /// Labelled mail to evaluate a spam filter on.
    #[command(flatten)]
    pub mail: MailInputs,
    /// The TREC online protocol over INDEX (`spam PATH` / `ham PATH` lines, paths relative
    /// to INDEX, e.g. trec07p/full/index): each message is classified, then learned
    /// (train on error), in order; starts from --model, or from an empty filter.
    #[arg(long, value_name = "INDEX")]
    pub online: Option<PathBuf>,
    /// With --online: save the filter as it stands after the run.
    #[arg(long, value_name = "MODEL", requires = "online")]
    pub save: Option<PathBuf>,
}

impl EvalMailArgs {
    /// Whether this is a mail evaluation.
    pub fn is_set(&self) -> bool {
        self.mail.is_set() || self.online.is_some()
    }
}

/// The JSON of both metric sets: `accuracy`, `per_class`, … plus `spam_recall`,
/// `ham_fp_rate`, `auc`, `one_minus_roca_pct`, `false_positives`, `false_negatives`.
fn json(metrics: Option<&Metrics>, spam: &SpamMetrics) -> serde_json::Value {
    let mut v = metrics.map_or_else(|| serde_json::json!({}), Metrics::to_json);
    if let (Some(o), serde_json::Value::Object(s)) = (v.as_object_mut(), spam.to_json()) {
        o.extend(s);
    }
    v
}

/// The model's mail rules, or an error when it is not a spam filter (an analyzer that
/// reads mail, classes ham and spam).
fn check_filter<'m>(model: &'m SavedModel, path: &std::path::Path) -> Result<&'m MailRules> {
    match model.analyzer.source().mail_rules() {
        Some(rules) if model.classes == ["ham", "spam"] => Ok(rules),
        _ => bail!(
            "{}: not a spam filter (train one with --spam PATH... --ham PATH...)",
            path.display()
        ),
    }
}

/// Runs `eval` on mail.
pub fn run(a: EvalArgs) -> Result<ExitCode> {
    if let Some(index) = &a.mail.online {
        return online(&a, index);
    }
    let Some(path) = &a.model else {
        bail!("--model is required");
    };
    let model = SavedModel::load(path)?;
    let rules = check_filter(&model, path)?;
    let phase = Phase::start("reading mail");
    let corpus = a.mail.mail.read(rules)?;
    if corpus.docs.is_empty() {
        bail!("no messages to evaluate");
    }
    phase.set("evaluating");
    let x = pipeline::vectorize_for(&model, &corpus.docs).matrix;
    let decisions = pipeline::decide(&model, &x);
    let truth = pipeline::class_indices(&corpus.docs, &model.classes)?;
    let predicted: Vec<usize> = decisions.iter().map(|d| d.class).collect();
    let metrics = Metrics::new(model.classes.clone(), &truth, &predicted);
    let scores: Vec<f32> = decisions.iter().map(|d| d.score).collect();
    let is_spam: Vec<bool> = truth.iter().map(|&t| t == 1).collect();
    let spam = SpamMetrics::new(&scores, &is_spam);
    drop(phase);
    if a.json {
        println!("{}", json(Some(&metrics), &spam));
    } else {
        print!("{}\n{}", spam.to_text(), metrics.to_text());
    }
    Ok(ExitCode::SUCCESS)
}

fn online(a: &EvalArgs, index: &std::path::Path) -> Result<ExitCode> {
    let mut model = match &a.model {
        Some(p) => {
            let m = SavedModel::load(p)?;
            check_filter(&m, p)?;
            m
        }
        None => empty_model(
            Analyzer::default().with_source(Source::mail()),
            "ham",
            "spam",
        ),
    };
    let entries = read_index(index)?;
    let phase = Phase::start("classifying and learning, in order");
    let run = run_online(&mut model, &entries)?;
    drop(phase);
    crate::mail::report(rosenblatt::input::mail::MailCorpus {
        corpus: rosenblatt::input::Corpus {
            docs: Vec::new(),
            skipped: run.skipped.clone(),
        },
        unparsed: run.unparsed.clone(),
    });
    if let Some(save) = &a.mail.save {
        model.save(save)?;
    }
    if a.json {
        let mut v = json(None, &run.metrics);
        v["updates"] = run.updates.into();
        v["seconds"] = run.seconds.into();
        v["ms_per_message"] = run.ms_per_message().into();
        v["vocabulary"] = model.vocab.len().into();
        v["unparsed"] = run.unparsed.len().into();
        v["skipped"] = run.skipped.len().into();
        println!("{v}");
    } else {
        println!("TREC online protocol: {}", index.display());
        print!("{}", run.metrics.to_text());
        println!("updates        {}", run.updates);
        println!("vocabulary     {} words", model.vocab.len());
        println!(
            "time           {:.3} s ({:.3} ms per message)",
            run.seconds,
            run.ms_per_message()
        );
    }
    Ok(ExitCode::SUCCESS)
}
