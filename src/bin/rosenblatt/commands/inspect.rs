//! `rosenblatt inspect`: what a model file holds, how `train --tune` chose it, and the
//! words that weigh most.

use crate::flags::InspectPlan;
use crate::report;
use anyhow::{Result, bail};
use rosenblatt::model::{FeatureSpace, Model, Predictor};
use std::process::ExitCode;

/// A feature's name: its word (`#ID` in a hashed space), or its SVMlight id for models
/// trained on vectors.
fn feature_name(m: &Model, j: u32) -> String {
    match m.features() {
        FeatureSpace::Text => m.vocab().name(j).into_owned(),
        FeatureSpace::Indexed { .. } => rosenblatt::features::svmlight::feature_name(j),
    }
}

/// The `k` ids among `0..n` of largest `weight` (`positive`) or most negative, strongest
/// first, ties by id; ids of weight 0 or of the other sign left out. A bounded selection,
/// so a model of millions of features is ranked without a copy of its weights.
fn strongest(n: usize, k: usize, positive: bool, weight: impl Fn(u32) -> f32) -> Vec<u32> {
    let order = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    // No more than n ids can be shown, whatever `--top` asks for.
    let k = k.min(n);
    if k == 0 {
        return Vec::new();
    }
    let mut best: Vec<(f32, u32)> = Vec::with_capacity(2 * k);
    for j in 0..u32::try_from(n).unwrap_or(u32::MAX) {
        let v = if positive { weight(j) } else { -weight(j) };
        if v > 0.0 {
            best.push((v, j));
            if best.len() == 2 * k {
                best.select_nth_unstable_by(k - 1, order);
                best.truncate(k);
            }
        }
    }
    best.sort_by(order);
    best.truncate(k);
    best.into_iter().map(|(_, j)| j).collect()
}

/// Runs `inspect`.
pub fn run(a: InspectPlan) -> Result<ExitCode> {
    let m = crate::load::model(&a.model)?;
    let meta = &m.meta();
    // Under a weighted geometry a word adds w_j · f_j (before the row's scale): words
    // are ranked and shown by that.
    let linear = match &m.predictor() {
        Predictor::Binary(b) => b.as_linear(),
        _ => None,
    };
    let top = |positive: bool| -> Vec<(String, f32)> {
        linear
            .map(|l| {
                let weight = |j: u32| l.w[j as usize] * m.geometry().weight(j);
                strongest(l.w.len(), a.top, positive, weight)
                    .into_iter()
                    .map(|j| (feature_name(&m, j), weight(j)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (pos, neg) = (top(true), top(false));
    if let Some(file) = &a.plot {
        if linear.is_none() {
            bail!(
                "--plot {}: the strongest words are drawn for binary linear models; {} is not one",
                file.display(),
                a.model.display()
            );
        }
        let classes = (
            m.classes().first().map_or("-", String::as_str),
            m.classes().get(1).map_or("+", String::as_str),
        );
        crate::plot::inspect::draw(file, &crate::plot::name(&a.model), classes, &neg, &pos)?;
    }
    let support = report::support(m.predictor());
    if a.json {
        let v = serde_json::json!({
            "model": a.model.display().to_string(),
            "classes": m.classes(),
            // Models trained on vectors read no text: they have no analyzer to show.
            "analyzer": (m.features() == FeatureSpace::Text).then_some(&m.analyzer()),
            "vocabulary": m.vocab().len(),
            "geometry": m.geometry().spec.name(),
            "learner": meta.learner,
            "options": meta.options,
            "inputs": meta.inputs,
            "documents": meta.documents,
            "nonzeros": meta.nnz,
            "epochs": meta.report.epochs,
            "updates": meta.report.updates,
            "converged": meta.report.converged,
            "training_accuracy": meta.training_accuracy,
            "learned": meta.learned,
            "online_rule": m.online().as_ref().map(|o| o.rule.to_string()),
            "threshold": matches!(m.predictor(), Predictor::Binary(_)).then_some(m.threshold()),
            "theory": meta.theory,
            "bias": linear.map(|l| l.bias),
            "most_positive": pos,
            "most_negative": neg,
            "support_vectors": support.as_ref().map(|s| s.0),
            "kernel": support.as_ref().map(|s| &s.1),
            "tuning": meta.tuning,
        });
        outln!("{v}");
        return Ok(ExitCode::SUCCESS);
    }
    outln!("model          {}", a.model.display());
    outln!("version        {}", meta.version);
    outln!("classes        {}", m.classes().join(", "));
    if m.features() == FeatureSpace::Text {
        outln!("analyzer       {}", m.analyzer());
        if let Some(rules) = m.analyzer().source().mail_rules() {
            outln!("mail rules     {rules}");
        }
    }
    outln!("vocabulary     {}", m.vocab().describe());
    outln!("geometry       {}", m.geometry().spec.name());
    outln!("learner        {} ({})", meta.learner, meta.options);
    outln!("inputs         {}", meta.inputs.join(" "));
    outln!("documents      {}", meta.documents);
    outln!("nonzeros       {}", meta.nnz);
    outln!("epochs         {}", meta.report.epochs);
    outln!("updates k      {}", meta.report.updates);
    if let Some(c) = meta.report.converged {
        outln!("converged      {}", if c { "yes" } else { "no" });
    }
    outln!("training acc   {:.4}", meta.training_accuracy);
    if let Some(t) = report::threshold(&m) {
        outln!("decides        {t}");
    }
    if let Some(o) = &m.online() {
        outln!("learns by      {} (learn, eval --online)", o.rule);
    }
    if meta.learned > 0 {
        outln!("learned since  {} message(s)", meta.learned);
    }
    if let Some((n, kernel)) = &support {
        outln!("support vecs   {n} ({kernel})");
    }
    if let Some(t) = &meta.theory {
        report::theory(t)?;
    }
    if let Some(t) = &meta.tuning {
        report::tuning(t)?;
    }
    if let Some(l) = linear {
        outln!("bias           {}", l.bias);
        let positive = m.classes().get(1).map(String::as_str).unwrap_or("+");
        let negative = m.classes().first().map(String::as_str).unwrap_or("-");
        let unit = match m.features() {
            FeatureSpace::Text => "words",
            FeatureSpace::Indexed { .. } => "features",
        };
        outln!("\nmost {positive} {unit}:");
        for (w, s) in &pos {
            outln!("  {s:+10.3}  {w}");
        }
        outln!("\nmost {negative} {unit}:");
        for (w, s) in &neg {
            outln!("  {s:+10.3}  {w}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::strongest;

    #[test]
    fn the_strongest_are_those_a_full_sort_ranks_first() {
        // Weights with ties, zeros and both signs; the bounded selection against sorting
        // every id, for k below, at and above the number of features of each sign.
        let w: Vec<f32> = (0..1000u32)
            .map(|j| ((j * 7919) % 23) as f32 - 11.0)
            .collect();
        for positive in [true, false] {
            let sign = if positive { 1.0 } else { -1.0 };
            let mut all: Vec<u32> = (0..1000).filter(|&j| sign * w[j as usize] > 0.0).collect();
            all.sort_by(|&a, &b| {
                (sign * w[b as usize])
                    .total_cmp(&(sign * w[a as usize]))
                    .then(a.cmp(&b))
            });
            for k in [0, 1, 5, 40, 455, 1000, usize::MAX] {
                let got = strongest(w.len(), k, positive, |j| w[j as usize]);
                assert_eq!(got, all[..k.min(all.len())], "k {k}, positive {positive}");
            }
        }
    }
}
