//! `rosenblatt classify`: one line per document, in input order —
//! `id<TAB>label<TAB>score` or a JSON object per line — for text and SVMlight input;
//! spam filters go to [`super::classify_mail`].

use crate::flags::ClassifyPlan;
use crate::load::{self, with_rows};
use crate::report;
use anyhow::{Context, Result, bail};
use rosenblatt::input::{Corpus, Document, decode_text};
use rosenblatt::model::{FeatureSpace, Model};
use rosenblatt::store::Store;
use rosenblatt::training;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// Runs `classify`.
pub fn run(plan: ClassifyPlan) -> Result<ExitCode> {
    if Store::is_store(&plan.model) && plan.cluster.is_none() {
        // A mail filter's store is read per message, in one read transaction.
        let store = Store::open_read_only(&plan.model)?;
        let snapshot = store.snapshot()?;
        if snapshot.analyzer().source().mail_rules().is_some() {
            plan.documents.reads_svmlight(false)?;
            if plan.documents.max_feature_id.is_some() {
                bail!("{}", crate::flags::NOT_SVM);
            }
            load::refuse_line_files(&plan.model, &plan.documents.paths, plan.documents.format)?;
            return super::classify_mail::run(&plan, &snapshot);
        }
    }
    let model = load::model(&plan.model)?;
    let indexed = matches!(model.features(), FeatureSpace::Indexed { .. });
    let svm_input = plan.documents.reads_svmlight(indexed)?;
    if let Some(p) = plan.cluster.clone() {
        load::check_kind(&model, &plan.model, svm_input)?;
        return super::classify_cluster::run(&plan, model, svm_input, p);
    }
    if load::check_kind(&model, &plan.model, svm_input)? {
        return svmlight(&plan, &model);
    }
    if plan.documents.max_feature_id.is_some() {
        bail!("{}", crate::flags::NOT_SVM);
    }
    // The model's analyzer says how its inputs are read: a mail source parses messages.
    if model.analyzer().source().mail_rules().is_some() || plan.filter() {
        load::refuse_line_files(&plan.model, &plan.documents.paths, plan.documents.format)?;
        return super::classify_mail::run(&plan, &model);
    }
    let d = &plan.documents;
    let mut corpus = Corpus::default();
    for p in &d.paths {
        if p.as_os_str() == "-" {
            let bytes = load::read_raw(p, "the document")?;
            corpus
                .docs
                .push(Document::new("-", decode_text(bytes), None));
        } else {
            corpus.extend(load::documents(
                std::slice::from_ref(p),
                d.format,
                d.split,
                d.detect,
            )?);
        }
    }
    let x = training::vectorize_for(&model, &corpus.docs).matrix;
    // Each document's labels (one, or all above threshold for multi-label models) with
    // their scores, probabilities where the model has them.
    let (decisions, probabilities) = training::labels_and_probabilities(&model, &x);
    let ids = corpus.docs.iter().map(|d| d.id.as_str());
    write_all(&plan, &model, ids, &decisions, &probabilities)
}

/// `classify` on SVMlight rows, for a model trained on vectors. Ids are line numbers
/// (`FILE:LINE` with several files); labels in the file are ignored.
fn svmlight(plan: &ClassifyPlan, model: &Model) -> Result<ExitCode> {
    if plan.filter() {
        bail!("the spam-filter options apply to mail models, not SVMlight vectors");
    }
    let paths = &plan.documents.paths;
    if paths.iter().any(|p| p.as_os_str() == "-") {
        bail!("classify reads SVMlight vectors from files; give their paths");
    }
    let limit = plan.documents.max_feature_id;
    let (data, ids) =
        load::svm_rows(paths, limit).with_context(|| load::vectors_hint(&plan.model))?;
    let (labels, probabilities) =
        with_rows!(&data.rows, x => training::labels_and_probabilities(model, x));
    write_all(
        plan,
        model,
        ids.iter().map(String::as_str),
        &labels,
        &probabilities,
    )
}

/// Writes each document's line to stdout.
fn write_all<'a>(
    plan: &ClassifyPlan,
    model: &Model,
    ids: impl Iterator<Item = &'a str>,
    decisions: &[Vec<(usize, f32)>],
    probabilities: &[Option<f32>],
) -> Result<ExitCode> {
    let mut out = BufWriter::new(std::io::stdout().lock());
    for ((id, labels), &p) in ids.zip(decisions).zip(probabilities) {
        report::labels(&mut out, plan.output, model, id, labels, p)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
