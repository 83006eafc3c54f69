//! `classify --explain`: each verdict taken apart, as a table under the document's line
//! (the strongest features, the rest summed on one line, then the bias and the score) or
//! as fields added to its JSON line (every feature, so that the contributions plus the
//! bias add up to the score).

use rosenblatt::model::Explanation;
use serde_json::{Value, json};
use std::io::Write;

/// What a two-class model's table says under its heading: the document's P(class 1)
/// where the model has one, and where it decides ("P(spam) 0.9987; spam when score >
/// 1.2345 (P > 0.90)", as `train` and `inspect` say it).
pub fn decides_at(
    classes: &[String],
    threshold: f32,
    probability: impl Fn(f32) -> Option<f32>,
    score: f32,
) -> String {
    let rule = crate::report::decision_rule(classes, threshold, probability(threshold));
    match probability(score) {
        Some(p) => format!("P({}) {p:.4}; {rule}", classes[1]),
        None => rule,
    }
}

/// Writes the table of `e` under a document's line: a heading with the explained class,
/// score and bias, then `decision` (where a filter decides, its P), the `top` strongest
/// features and one line for the rest.
pub fn table(
    out: &mut impl Write,
    e: &Explanation,
    classes: &[String],
    decision: Option<&str>,
    top: usize,
) -> std::io::Result<()> {
    let n = e.features.len();
    let class = &classes[e.class];
    let noun = if n == 1 { "feature" } else { "features" };
    writeln!(
        out,
        "  {class}: score {:+.4} = bias {:+.4} + {n} {noun}",
        e.score, e.bias
    )?;
    if let Some(d) = decision {
        writeln!(out, "  {d}")?;
    }
    if n == 0 {
        return writeln!(
            out,
            "  (no feature of this document has a weight in the model)"
        );
    }
    writeln!(
        out,
        "  {:>12}  {:>10}  {:>8}  feature",
        "contribution", "weight", "value"
    )?;
    for c in e.features.iter().take(top) {
        writeln!(
            out,
            "  {:>+12.4}  {:>+10.4}  {:>8.4}  {}",
            c.contribution,
            c.weight,
            c.value,
            crate::report::tsv_field(&c.feature)
        )?;
    }
    if n > top {
        let rest: f64 = e.features[top..]
            .iter()
            .map(|c| f64::from(c.contribution))
            .sum();
        writeln!(
            out,
            "  {rest:>+12.4}  {:>20}  ({} more features)",
            "",
            n - top
        )?;
    }
    writeln!(out, "  {:>+12.4}  {:>20}  bias", e.bias, "")?;
    writeln!(out, "  {:>+12.4}  {:>20}  score", e.score, "")
}

/// Adds `e` to a document's JSON line `v`: `"bias"` and `"features"` (every feature,
/// strongest first, with its weight, value and contribution), and `"explained_class"`
/// with `"explained_score"` where the explained score is not the line's `"score"`.
pub fn add_json(v: &mut Value, e: &Explanation, classes: &[String]) {
    let features: Vec<Value> = e
        .features
        .iter()
        .map(|c| {
            json!({
                "feature": c.feature,
                "weight": c.weight,
                "value": c.value,
                "contribution": c.contribution,
            })
        })
        .collect();
    v["bias"] = json!(e.bias);
    v["features"] = Value::Array(features);
    let same = v["score"].as_f64() == Some(f64::from(e.score));
    if !same {
        v["explained_class"] = json!(classes[e.class]);
        v["explained_score"] = json!(e.score);
    }
}
