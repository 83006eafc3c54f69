//! `rosenblatt classify`: one line per document, in input order —
//! `id<TAB>label<TAB>score` or a JSON object per line — for text and SVMlight input;
//! spam filters go to [`super::classify_mail`]. Documents and rows are read, scored and
//! written a batch at a time, so memory holds the model and a few batches, not the input.

use crate::explain;
use crate::flags::{ClassifyPlan, OutputFormat};
use crate::load::{self, with_rows};
use crate::report;
use anyhow::{Context, Result, bail};
use rosenblatt::features::svmlight::SvmData;
use rosenblatt::input::{DocStream, Document, Format, decode_text, stdin};
use rosenblatt::model::{FeatureSpace, Model, Predictor};
use rosenblatt::store::Store;
use rosenblatt::training;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// Runs `classify`.
pub fn run(plan: ClassifyPlan) -> Result<ExitCode> {
    if Store::is_store(&plan.model) {
        // A store is a spam filter's delivery-time form, read per message in one read
        // transaction; a store of anything else (made before `convert` refused it) is
        // refused as every command refuses a model that is no filter, never classified.
        let store = Store::open_read_only(&plan.model)?;
        let snapshot = store.snapshot()?;
        crate::filter::spam_filter(&snapshot, &plan.model)?;
        if plan.cluster.is_none() {
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
    documents(&plan, &model)
}

/// `classify` on documents, `--batch` at a time: a batch is vectorized, scored and
/// written while the next one is read, so memory holds the model and three batches at
/// most (the one scored, the one waiting, the one being read). Each input is read alone,
/// as it always was: a line file's ids are its line numbers without its name, and the
/// documents it skipped are reported after its lines. `-` is one document from standard
/// input, or its lines with `--input-format tsv` or `jsonl`. An input refused part-way
/// ends the run after the lines of the documents before it; documents skipped make the
/// exit code [`report::SKIPPED`].
fn documents(plan: &ClassifyPlan, model: &Model) -> Result<ExitCode> {
    let d = &plan.documents;
    // Every input is there before the first line is written.
    for p in d.paths.iter().filter(|p| !stdin::is_stdin(p)) {
        rosenblatt::input::require_exists(p)?;
    }
    let mut out = BufWriter::new(crate::stdout::lock());
    let mut n_skipped = 0;
    for p in &d.paths {
        let lines = matches!(d.format, Some(Format::Tsv | Format::Jsonl));
        if stdin::is_stdin(p) && !lines {
            let bytes = load::read_raw(p, "the document")?;
            let docs = [Document::new("-", decode_text(bytes), None)];
            write_documents(&mut out, plan, model, &docs)?;
            continue;
        }
        let one = std::slice::from_ref(p);
        let stream = DocStream::open_detected(one, d.format, d.split, plan.batch, d.detect)?;
        let mut skipped = report::Skipped::default();
        // The next batch is read while this one is scored.
        let read = load::read_ahead(stream, |(batch, mut passed_over)| {
            skipped.take(&mut passed_over);
            write_documents(&mut out, plan, model, &batch?)
        });
        out.flush()?;
        skipped.report();
        read?;
        n_skipped += skipped.count();
    }
    out.flush()?;
    Ok(report::skipped_code(n_skipped))
}

/// Vectorizes and scores `docs` (in parallel) and writes their lines.
fn write_documents(
    out: &mut impl Write,
    plan: &ClassifyPlan,
    model: &Model,
    docs: &[Document],
) -> Result<()> {
    if docs.is_empty() {
        return Ok(());
    }
    let x = training::vectorize_for(model, docs).matrix;
    // Each document's labels (one, or all above threshold for multi-label models) with
    // their scores, probabilities where the model has them.
    let (decisions, probabilities) = training::labels_and_probabilities(model, &x);
    let Some(x) = &plan.explain else {
        let ids = docs.iter().map(|d| d.id.as_str());
        return write_lines(out, plan, model, ids, &decisions, &probabilities);
    };
    let class = match &x.class {
        Some(name) => Some(
            model
                .class_to_explain(name)
                .with_context(|| format!("{}: --explain-class", plan.model.display()))?,
        ),
        None => None,
    };
    for ((d, labels), &p) in docs.iter().zip(&decisions).zip(&probabilities) {
        let e = model.explain_document(d, class)?;
        let classes = model.classes();
        match plan.output {
            OutputFormat::Tsv => {
                report::labels(out, plan.output, model, &d.id, labels, p)?;
                let at = matches!(model.predictor(), Predictor::Binary(_)).then(|| {
                    let p = |s| model.probability(s);
                    explain::decides_at(classes, model.threshold(), p, e.score)
                });
                explain::table(out, &e, classes, at.as_deref(), x.top)?;
            }
            OutputFormat::Jsonl => {
                let mut v = report::labels_json(model, &d.id, labels, p);
                explain::add_json(&mut v, &e, classes);
                writeln!(out, "{v}")?;
            }
        }
    }
    Ok(())
}

/// `classify` on SVMlight rows, for a model trained on vectors, `--batch` rows at a time
/// (files are checked whole first, then read again in batches; a stream such as a FIFO
/// is read whole, within --max-document-bytes). Ids are line numbers (`FILE:LINE` with
/// several files); labels in the file are ignored.
fn svmlight(plan: &ClassifyPlan, model: &Model) -> Result<ExitCode> {
    if plan.filter() {
        bail!("the spam-filter options apply to mail models, not SVMlight vectors");
    }
    if plan.explain.is_some() {
        bail!("--explain takes documents apart into their words; SVMlight rows have none");
    }
    let paths = &plan.documents.paths;
    if paths.iter().any(|p| p.as_os_str() == "-") {
        bail!("classify reads SVMlight vectors from files; give their paths");
    }
    let limit = load::feature_limit(model, plan.documents.max_feature_id);
    let hint = || load::vectors_hint(&plan.model);
    let mut out = BufWriter::new(crate::stdout::lock());
    let mut write = |data: SvmData, ids: Vec<String>| {
        let (labels, probabilities) =
            with_rows!(&data.rows, x => training::labels_and_probabilities(model, x));
        let ids = ids.iter().map(String::as_str);
        write_lines(&mut out, plan, model, ids, &labels, &probabilities)
    };
    if paths.iter().all(|p| p.is_file()) {
        for chunk in load::svm_chunks(paths, limit, plan.batch).with_context(hint)? {
            let chunk = chunk.with_context(hint)?;
            write(chunk.data, chunk.ids)?;
        }
    } else {
        let (data, ids) = load::svm_rows(paths, limit).with_context(hint)?;
        write(data, ids)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Writes each document's line.
fn write_lines<'a>(
    out: &mut impl Write,
    plan: &ClassifyPlan,
    model: &Model,
    ids: impl Iterator<Item = &'a str>,
    decisions: &[Vec<(usize, f32)>],
    probabilities: &[Option<f32>],
) -> Result<()> {
    for ((id, labels), &p) in ids.zip(decisions).zip(probabilities) {
        report::labels(out, plan.output, model, id, labels, p)?;
    }
    Ok(())
}
