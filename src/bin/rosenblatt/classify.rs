//! `rosenblatt classify`: one line per document, in input order —
//! `id<TAB>label<TAB>score` or a JSON object per line.

use crate::args::{ClassifyArgs, ClassifyFormat, OutputFormat};
use crate::load::read_inputs_part;
use anyhow::{Context, Result};
use rosenblatt::input::{Corpus, Document, Format, decode_text};
use rosenblatt::model::{Predictor, SavedModel};
use rosenblatt::pipeline;
use std::io::{BufWriter, Read, Write};
use std::process::ExitCode;

fn read_stdin() -> Result<Document> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("reading stdin")?;
    Ok(Document::new("-", decode_text(bytes), None))
}

/// Runs `classify`.
pub fn run(a: ClassifyArgs) -> Result<ExitCode> {
    let model = SavedModel::load(&a.model)?;
    let format = a.input_format.map(|f| match f {
        ClassifyFormat::Text => Format::Text,
        ClassifyFormat::Jsonl => Format::Jsonl,
        ClassifyFormat::Tsv => Format::Tsv,
        ClassifyFormat::Reuters => Format::Reuters,
        ClassifyFormat::Svmlight => Format::Svmlight,
    });
    if let Some(code) = crate::svm::classify(&a, &model, format)? {
        return Ok(code);
    }
    // The model's analyzer says how its inputs are read: a mail source parses messages.
    if model.analyzer.source().mail_rules().is_some() || a.filter.is_set() {
        return crate::mail::classify(&a, &model);
    }
    let mut corpus = Corpus::default();
    let stdin = [std::path::PathBuf::from("-")];
    let inputs = if a.inputs.is_empty() {
        &stdin[..]
    } else {
        &a.inputs[..]
    };
    for p in inputs {
        if p.as_os_str() == "-" {
            corpus.docs.push(read_stdin()?);
        } else {
            corpus.extend(read_inputs_part(
                std::slice::from_ref(p),
                format,
                a.split,
                Format::detect_unlabelled,
            )?);
        }
    }
    let x = pipeline::vectorize_for(&model, &corpus.docs).matrix;
    // Each document's labels (one, or all above threshold for multi-label models) with
    // their scores, probabilities where the model has them.
    let decisions = pipeline::decide_labels(&model, &x);
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (d, labels) in corpus.docs.iter().zip(&decisions) {
        write_labels(&mut out, a.output_format, &model, &d.id, labels)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Writes one document's line: `id<TAB>label1,label2<TAB>score1,score2`, or a JSON object
/// (`labels` and `scores` added for multi-label models). Shared with SVMlight input.
pub fn write_labels(
    out: &mut impl Write,
    format: OutputFormat,
    model: &SavedModel,
    id: &str,
    labels: &[(usize, f32)],
) -> std::io::Result<()> {
    let names: Vec<&str> = labels.iter().map(|l| model.classes[l.0].as_str()).collect();
    let scores: Vec<f32> = labels.iter().map(|l| l.1).collect();
    match format {
        OutputFormat::Tsv => {
            let s: Vec<String> = scores.iter().map(f32::to_string).collect();
            writeln!(out, "{id}\t{}\t{}", names.join(","), s.join(","))
        }
        OutputFormat::Jsonl => {
            let mut v = serde_json::json!({
                "id": id,
                "label": names.first(),
                "score": scores.first(),
            });
            if matches!(model.predictor, Predictor::MultiLabel(_)) {
                v["labels"] = serde_json::json!(names);
                v["scores"] = serde_json::json!(scores);
            }
            writeln!(out, "{v}")
        }
    }
}
