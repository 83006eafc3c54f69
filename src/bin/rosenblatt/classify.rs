//! `rosenblatt classify`: one line per document, in input order —
//! `id<TAB>label<TAB>score` or a JSON object per line.

use crate::args::{ClassifyArgs, ClassifyFormat, OutputFormat};
use crate::load::read_inputs;
use anyhow::{Context, Result};
use rosenblatt::input::{Corpus, Document, Format, decode_text};
use rosenblatt::model::SavedModel;
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
    if model.meta.mail || a.filter.is_set() {
        return crate::mail::classify(&a, &model);
    }
    let format = a.input_format.map(|f| match f {
        ClassifyFormat::Text => Format::Text,
        ClassifyFormat::Jsonl => Format::Jsonl,
        ClassifyFormat::Tsv => Format::Tsv,
    });
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
            corpus.extend(read_inputs(
                std::slice::from_ref(p),
                format,
                Format::detect_unlabelled,
            )?);
        }
    }
    let x = pipeline::vectorize_for(&model, &corpus.docs).matrix;
    let decisions = pipeline::decide(&model, &x);
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (d, dec) in corpus.docs.iter().zip(&decisions) {
        let label = &model.classes[dec.class];
        match a.output_format {
            OutputFormat::Tsv => writeln!(out, "{}\t{}\t{}", d.id, label, dec.score)?,
            OutputFormat::Jsonl => writeln!(
                out,
                "{}",
                serde_json::json!({"id": d.id, "label": label, "score": dec.score})
            )?,
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
