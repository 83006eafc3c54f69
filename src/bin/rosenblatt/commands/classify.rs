//! `rosenblatt classify`: one line per document, in input order —
//! `id<TAB>label<TAB>score` or a JSON object per line — for text and SVMlight input;
//! spam filters go to [`super::classify_mail`]. Documents and rows are read, scored and
//! written a batch at a time, so memory holds the model and a few batches, not the input.

use crate::explain;
use crate::flags::{ClassifyPlan, OutputFormat};
use crate::load::{self, with_rows};
use crate::report;
use anyhow::{Context, Result, bail};
use rosenblatt::classifier::{Kind, SavedClassifier, feature_limit};
use rosenblatt::features::svmlight::SvmData;
use rosenblatt::input::{DocStream, Document, Format, decode_text, stdin};
use rosenblatt::model::{Model, Predictor};
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// Runs `classify`: the model says what it reads (documents, mail, SVMlight rows), the
/// flags say how the lines look.
pub fn run(plan: ClassifyPlan) -> Result<ExitCode> {
    let c = SavedClassifier::open(&plan.model)?;
    // A model that reads mail is a spam filter or nothing, refused as every command
    // refuses one (a store of anything else, made by an older release, included).
    if c.reads_mail() {
        crate::filter::checked(c.spam_filter(), &plan.model)?;
    }
    let kind = c.kind();
    let svm_input = plan.documents.reads_svmlight(kind == Kind::Vectors)?;
    kind.check_input(&plan.model, svm_input)?;
    if let Some(p) = plan.cluster.clone() {
        return super::classify_cluster::run(&plan, &c, svm_input, p);
    }
    if kind == Kind::Vectors {
        return svmlight(&plan, &c);
    }
    if plan.documents.max_feature_id.is_some() {
        bail!("{}", crate::flags::NOT_SVM);
    }
    if c.reads_mail() || plan.filter() {
        if plan.rank.is_some() {
            bail!(
                "{}: a spam filter gives one verdict per message; -k ranks the classes of \
                 a classifier of documents",
                plan.model.display()
            );
        }
        load::refuse_line_files(&plan.model, &plan.documents.paths, plan.documents.format)?;
        return super::classify_mail::run(&plan, &c.view()?);
    }
    documents(&plan, &c)
}

/// `classify` on documents, `--batch` at a time: a batch is vectorized, scored and
/// written while the next one is read, so memory holds the model and three batches at
/// most (the one scored, the one waiting, the one being read). Each input is read alone,
/// as it always was: a line file's ids are its line numbers without its name, and the
/// documents it skipped are reported after its lines. `-` is one document from standard
/// input, or its lines with `--input-format tsv` or `jsonl`. An input refused part-way
/// ends the run after the lines of the documents before it; documents skipped make the
/// exit code [`report::SKIPPED`].
fn documents(plan: &ClassifyPlan, c: &SavedClassifier) -> Result<ExitCode> {
    let d = &plan.documents;
    let model = &*c.model()?;
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
            write_documents(&mut out, plan, c, model, &docs)?;
            continue;
        }
        let one = std::slice::from_ref(p);
        let stream = DocStream::open_detected(one, d.format, d.split, plan.batch, d.detect)?;
        let mut skipped = report::Skipped::default();
        // The next batch is read while this one is scored.
        let read = load::read_ahead(stream, |(batch, mut passed_over)| {
            skipped.take(&mut passed_over);
            write_documents(&mut out, plan, c, model, &batch?)
        });
        out.flush()?;
        skipped.report();
        read?;
        n_skipped += skipped.count();
    }
    out.flush()?;
    Ok(report::skipped_code(n_skipped))
}

/// Scores `docs` (in parallel) and writes their lines; `model` is `c`'s, for the lines'
/// class names and decision rule.
fn write_documents(
    out: &mut impl Write,
    plan: &ClassifyPlan,
    c: &SavedClassifier,
    model: &Model,
    docs: &[Document],
) -> Result<()> {
    if docs.is_empty() {
        return Ok(());
    }
    if let Some(r) = plan.rank {
        return super::classify_ranked::write_documents(out, plan, c, model, docs, r);
    }
    // Each document's labels (one, or all above threshold for multi-label models) with
    // their scores, probabilities where the model has them.
    let (decisions, probabilities) = c.labels(docs)?;
    let Some(x) = &plan.explain else {
        let ids = docs.iter().map(|d| d.id.as_str());
        return write_lines(out, plan, model, ids, &decisions, &probabilities);
    };
    let class = x.class.as_deref();
    for ((d, labels), &p) in docs.iter().zip(&decisions).zip(&probabilities) {
        let e = match c.explain(d, class) {
            Err(e) if class.is_some() => {
                Err(e).with_context(|| format!("{}: --explain-class", plan.model.display()))?
            }
            e => e?,
        };
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
fn svmlight(plan: &ClassifyPlan, c: &SavedClassifier) -> Result<ExitCode> {
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
    let model = &*c.model()?;
    let limit = feature_limit(model, plan.documents.max_feature_id);
    let hint = || load::vectors_hint(&plan.model);
    let mut out = BufWriter::new(crate::stdout::lock());
    let mut write = |data: SvmData, ids: Vec<String>| {
        let (labels, probabilities) = with_rows!(&data.rows, x => c.label_rows(x))?;
        let ids = ids.iter().map(String::as_str);
        if let Some(r) = plan.rank {
            let ranked = with_rows!(&data.rows, x => c.ranked_rows(x, r))?;
            let labels = Some((labels, probabilities));
            return super::classify_ranked::write_lines(
                &mut out,
                plan.output,
                model,
                ids,
                &ranked,
                labels,
            );
        }
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
