//! `rosenblatt classify --processes N --process I`: this process reads and scores only its
//! share of the documents or messages; process 0 gathers every line and prints them in
//! input order, exactly as one process classifying everything prints them, and the others
//! print nothing on stdout.

use crate::flags::ClassifyPlan;
use crate::load;
use crate::report;
use anyhow::{Result, bail};
use rosenblatt::classifier::SavedClassifier;
use rosenblatt::distributed::{Cluster, Processes, gather_scores};
use rosenblatt::incremental::SpamFilter;
use rosenblatt::input::{DocStream, Share, mail};
use rosenblatt::training;
use std::io::{BufWriter, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `classify` as process `p.index` of a cluster, with the model already opened.
pub fn run(
    plan: &ClassifyPlan,
    c: &SavedClassifier,
    svm_input: bool,
    p: Processes,
) -> Result<ExitCode> {
    if svm_input {
        bail!(
            "classify --processes reads documents or mail; SVMlight vectors are classified \
             by one process (leave out --processes)"
        );
    }
    if plan.documents.max_feature_id.is_some() {
        bail!("{}", crate::flags::NOT_SVM);
    }
    let me = p.index;
    let cluster = Cluster::Processes(p);
    // Every worker scores with the whole model, read once (a store in one transaction).
    let model = c.model()?;
    let shared = Arc::new(plan.clone());
    let mail = c.reads_mail() || plan.filter();
    // What this process's share passed over: it says so on its own stderr and exits 4.
    let skipped = Arc::new(AtomicUsize::new(0));
    let passed_over = Arc::clone(&skipped);
    let gathered = if mail {
        let f = super::classify_mail::filter_rules(plan, &*model)?;
        let (rules, spam, probability) = (f.rules.clone(), f.spam, f.probability);
        gather_scores(&cluster, move |share: Share| {
            let m = mail::read_share(&shared.documents.paths, &rules, share)?;
            let units = m.units.clone();
            let corpus = load::mail_corpus(m);
            passed_over.fetch_add(corpus.skipped.len(), Ordering::Relaxed);
            let x = training::vectorize_for(&model, &corpus.docs).matrix;
            let decisions = model.decide_rows(&x);
            Ok(units
                .into_iter()
                .zip(corpus.docs.iter().zip(&decisions))
                .map(|(k, (d, dec))| {
                    let p = model.probability(dec.score);
                    let f = SpamFilter {
                        rules: &rules,
                        spam,
                        probability,
                    };
                    let dec = &super::classify_mail::at_cut(&shared, &f, dec, p);
                    let line = super::classify_mail::line(&shared, model.classes(), &d.id, dec, p);
                    (
                        k,
                        (
                            line,
                            super::classify_mail::verdict(&shared, model.classes(), dec, p).1,
                        ),
                    )
                })
                .collect())
        })?
    } else {
        gather_scores(&cluster, move |share: Share| {
            let d = &shared.documents;
            let stream =
                DocStream::open_detected(&d.paths, d.format, d.split, shared.batch, d.detect)?;
            // As `classify` reads each input alone: line numbers without the file's name.
            let mut stream = stream.share(share).prefix_ids(false);
            let mut lines = Vec::new();
            while let Some(batch) = stream.next() {
                let docs = batch?;
                let x = training::vectorize_for(&model, &docs).matrix;
                let (decisions, probabilities) = training::labels_and_probabilities(&model, &x);
                let units = stream.units().iter().zip(&docs);
                for (((k, doc), labels), &p) in units.zip(&decisions).zip(&probabilities) {
                    let mut line = Vec::new();
                    report::labels(&mut line, shared.output, &model, &doc.id, labels, p)
                        .map_err(|e| rosenblatt::Error::Data(e.to_string()))?;
                    let line = String::from_utf8_lossy(&line)
                        .trim_end_matches('\n')
                        .to_string();
                    lines.push((*k, (line, 0u8)));
                }
            }
            report::skipped(&stream.skipped);
            passed_over.fetch_add(stream.skipped.len(), Ordering::Relaxed);
            Ok(lines)
        })?
    };
    if mail && gathered.total == 0 {
        bail!("no message to classify");
    }
    let Some(lines) = gathered.results else {
        errln!(
            "process {me}: done; process 0 prints the {} line(s)",
            gathered.total
        );
        return Ok(report::skipped_code(skipped.load(Ordering::Relaxed)));
    };
    let mut out = BufWriter::new(crate::stdout::lock());
    for (line, _) in &lines {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    let skipped = skipped.load(Ordering::Relaxed);
    Ok(match lines.as_slice() {
        [(_, code)] if mail && skipped == 0 => ExitCode::from(*code),
        _ => report::skipped_code(skipped),
    })
}
