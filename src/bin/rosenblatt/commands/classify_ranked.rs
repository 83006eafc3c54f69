//! `rosenblatt classify -k N`: each document's N best classes, best first, with their
//! scores and probabilities (see [`rosenblatt::model::Ranking`]). A tab-separated line is
//! `id` then a `label<TAB>score<TAB>probability` triple per class (`-` for no
//! probability); a JSON line is today's object with `"classes"` added. The ranking is the
//! library's; this only prints it.

use crate::flags::{ClassifyPlan, OutputFormat};
use crate::report;
use anyhow::Result;
use rosenblatt::classifier::SavedClassifier;
use rosenblatt::input::Document;
use rosenblatt::model::{Model, RankedClass, Ranking};
use std::io::Write;

/// Ranks `docs`' classes and writes their lines; `model` is `c`'s, for the JSON lines'
/// decided label.
pub fn write_documents(
    out: &mut impl Write,
    plan: &ClassifyPlan,
    c: &SavedClassifier,
    model: &Model,
    docs: &[Document],
    ranking: Ranking,
) -> Result<()> {
    let ranked = c.ranked(docs, ranking)?;
    let ids = docs.iter().map(|d| d.id.as_str());
    // A JSON line keeps today's fields; a tab-separated line is the ranking alone.
    let labels = match plan.output {
        OutputFormat::Jsonl => Some(c.labels(docs)?),
        OutputFormat::Tsv => None,
    };
    write_lines(out, plan.output, model, ids, &ranked, labels)
}

/// Writes each document's line: its ranked classes, and for JSON lines the labels and
/// probabilities of today's object (`labels`, given for JSON lines).
pub fn write_lines<'a>(
    out: &mut impl Write,
    format: OutputFormat,
    model: &Model,
    ids: impl Iterator<Item = &'a str>,
    ranked: &[Vec<RankedClass>],
    labels: Option<rosenblatt::training::LabelledRows>,
) -> Result<()> {
    match (format, labels) {
        (OutputFormat::Jsonl, Some((decisions, probabilities))) => {
            let rows = ids.zip(ranked).zip(decisions.iter().zip(&probabilities));
            for ((id, classes), (labels, &p)) in rows {
                let mut v = report::labels_json(model, id, labels, p);
                v["classes"] = classes_json(classes);
                writeln!(out, "{v}")?;
            }
        }
        _ => {
            for (id, classes) in ids.zip(ranked) {
                write!(out, "{}", report::tsv_field(id))?;
                for r in classes {
                    let p = r.probability.map_or("-".to_string(), |p| p.to_string());
                    write!(out, "\t{}\t{}\t{p}", report::tsv_field(&r.label), r.score)?;
                }
                writeln!(out)?;
            }
        }
    }
    Ok(())
}

/// The `"classes"` array of a JSON line: label, score and probability (null where the
/// model has none) of each class, best first.
fn classes_json(classes: &[RankedClass]) -> serde_json::Value {
    classes
        .iter()
        .map(|r| {
            serde_json::json!({
                "label": r.label,
                "score": r.score,
                "probability": r.probability,
            })
        })
        .collect()
}
