//! A message or document taken apart for the page: its verdict, every feature's
//! contribution (as `classify --explain --format jsonl` lists them), its text with the
//! span of each word the score weighs, its mail header fields apart with their own spans,
//! the features no word of the text shows (MIME parts, header tags, n-grams), and for a
//! model of three classes or more its classes ranked.

use super::spans::{Span, by_name, spans};
use crate::classifier::SavedClassifier;
use crate::incremental::Filter;
use crate::input::Document;
use crate::model::Ranking;
use crate::serve::verdict::judge;
use serde_json::{Value, json};
use std::collections::HashSet;

/// The document a classifier reads from the bytes `raw`: a message parsed under a mail
/// filter's rules, or text (UTF-8, else latin-1) for a model of text, as `/v1/explain`
/// reads it.
pub fn document(c: &SavedClassifier, raw: &[u8]) -> crate::Result<Document> {
    if c.reads_mail() {
        crate::model::refuse_empty_message(raw)?;
        Ok(crate::model::document_of(c.analyzer(), raw))
    } else {
        Ok(Document::new(
            "1",
            crate::input::decode_text(raw.to_vec()),
            None,
        ))
    }
}

/// The page's explanation of `raw` by `c` (see the module docs), in JSON. Byte offsets
/// of the spans are into `text` and each field's text as UTF-8.
pub fn annotate(c: &SavedClassifier, raw: &[u8]) -> crate::Result<Value> {
    let doc = document(c, raw)?;
    let e = c.explain(&doc, None)?;
    let classes = c.classes();
    let analyzer = c.analyzer();
    let named = by_name(&e, analyzer);
    let body = spans(analyzer, &doc.text, "", &named);
    let mut prefix = String::new();
    let fields: Vec<(&str, &str, Vec<Span>)> = doc
        .fields
        .iter()
        .map(|(name, text)| {
            prefix.clear();
            prefix.push_str(name);
            prefix.push(':');
            (
                &**name,
                text.as_str(),
                spans(analyzer, text, &prefix, &named),
            )
        })
        .collect();
    let shown: HashSet<&str> = body
        .iter()
        .chain(fields.iter().flat_map(|f| &f.2))
        .map(|s| s.feature.as_str())
        .collect();
    let features = |keep: &dyn Fn(&str) -> bool| -> Vec<Value> {
        e.features
            .iter()
            .filter(|f| keep(&f.feature))
            .map(|f| {
                json!({
                    "feature": f.feature,
                    "weight": f.weight,
                    "value": f.value,
                    "contribution": f.contribution,
                })
            })
            .collect()
    };
    // A two-class model's one score is positive towards its second class.
    let toward = if classes.len() == 2 { 1 } else { e.class };
    let mut out = json!({
        "class": classes[e.class],
        "classes": classes,
        "toward": classes[toward],
        "score": e.score,
        "bias": e.bias,
        "features": features(&|_| true),
        "text": doc.text,
        "spans": body,
        "fields": fields
            .iter()
            .map(|(name, text, s)| json!({"name": name, "text": text, "spans": s}))
            .collect::<Vec<_>>(),
        "apart": features(&|f| !shown.contains(f)),
    });
    if c.spam_filter().is_ok() {
        let v = judge(c, raw, false)?;
        out["spam"] = json!(v.spam);
        out["probability"] = json!(v.probability);
        out["shown"] = json!(v.shown);
        out["required"] = json!(v.required);
        out["threshold"] = json!(c.view()?.threshold());
    } else if classes.len() > 2 {
        let all = Ranking {
            top: usize::MAX,
            min_probability: None,
        };
        if let Ok(mut ranked) = c.ranked(std::slice::from_ref(&doc), all) {
            let ranked: Vec<Value> = ranked
                .swap_remove(0)
                .into_iter()
                .map(|r| json!({"class": r.label, "score": r.score, "probability": r.probability}))
                .collect();
            out["ranked"] = Value::Array(ranked);
        }
    }
    Ok(out)
}

/// A filter's verdict on `raw` as the page's learning shows it before and after.
pub fn verdict(c: &SavedClassifier, raw: &[u8]) -> crate::Result<Value> {
    let v = judge(c, raw, false)?;
    Ok(json!({
        "spam": v.spam,
        "score": v.score,
        "probability": v.probability,
        "shown": v.shown,
        "required": v.required,
    }))
}
