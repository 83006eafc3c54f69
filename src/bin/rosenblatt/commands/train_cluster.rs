//! `rosenblatt train --processes N --process I`: this process reads its share of the
//! documents or mail and trains with the others by parameter mixing; process 0 prints
//! each round, writes the model and prints the summary.

use crate::flags::{Source, TrainPlan};
use crate::load;
use crate::report::{self, TrainSummary};
use anyhow::Result;
use rosenblatt::distributed::{Cluster, Processes};
use rosenblatt::input::{DocStream, Share, mail, stream::DEFAULT_BATCH};
use rosenblatt::training::Round;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `train` as process `p.index` of a cluster.
pub fn run(plan: TrainPlan, p: Processes) -> Result<ExitCode> {
    let me = p.index;
    if me == 0 {
        rosenblatt::atomic::check_output(&plan.output)?;
        plan.check_outputs_apart()?;
    }
    let skipped = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&skipped);
    let read = match plan.source.clone() {
        Source::Documents(d) => Box::new(move |share: Share| {
            let stream =
                DocStream::open_detected(&d.paths, d.format, d.split, DEFAULT_BATCH, d.detect)?;
            let mut stream = stream.share(share);
            let mut docs = Vec::new();
            for batch in stream.by_ref() {
                docs.extend(batch?);
            }
            report::skipped(&stream.skipped);
            count.store(stream.skipped.len(), Ordering::Relaxed);
            if let Some(doc) = docs.iter().find(|doc| doc.labels.is_empty()) {
                let e = load::no_label(&doc.id, &d.paths);
                return Err(rosenblatt::Error::Data(e.to_string()));
            }
            Ok(docs)
        })
            as Box<dyn Fn(Share) -> rosenblatt::Result<_> + Send + Sync>,
        Source::Mail(m) => {
            let rules = plan
                .config
                .analyzer
                .source()
                .mail_rules()
                .cloned()
                .unwrap_or_default();
            Box::new(move |share: Share| {
                let c = mail::read_labelled_share(&m.spam, &m.ham, &rules, share)?;
                count.store(c.corpus.skipped.len(), Ordering::Relaxed);
                Ok(load::mail_corpus(c).docs)
            })
        }
        Source::Svmlight(..) => unreachable!("refused when the plan was made"),
    };
    // The first round, then at most two lines a second, and the last.
    let shown = std::sync::Mutex::new(f64::NEG_INFINITY);
    let progress = move |r: Round| {
        let mut last = shown.lock().unwrap_or_else(|p| p.into_inner());
        if r.seconds - *last >= 0.5 || r.round == 1 || r.round == r.rounds || r.updates == 0 {
            *last = r.seconds;
            errln!(
                "round {}/{}: {} updates, {:.2} s; sent {} records, received {}",
                r.round,
                r.rounds,
                r.updates,
                r.seconds,
                r.sent,
                r.received
            );
        }
    };
    // No process knows how many documents there are: the threshold folds stay as given.
    let job = plan.job(plan.source.names());
    let model = job.run_cluster(&Cluster::Processes(p), read, progress)?;
    let Some(model) = model else {
        errln!("process {me}: done; process 0 writes the model");
        return Ok(ExitCode::SUCCESS);
    };
    rosenblatt::classifier::lock::save_locked(&model, &plan.output)?;
    if plan.config.threshold.is_some() && model.probability(0.0).is_none() {
        // Each process holds its share only: no out-of-fold scores to calibrate on.
        errln!(
            "rosenblatt: trained over processes, the model has no calibrated probability and \
             decides at score 0 (train in one process for --threshold)"
        );
    }
    let summary = TrainSummary {
        output: &plan.output,
        json: plan.json,
        skipped: skipped.load(Ordering::Relaxed),
        held_out: None,
        held_out_probabilities: None,
        spam: None,
        folds: None,
        accuracy_at_zero: None,
    };
    report::train_summary(&model, &summary)?;
    if let Some(file) = &plan.plot {
        super::train_chart(file, &model, &plan.source.names())?;
    }
    Ok(ExitCode::SUCCESS)
}
