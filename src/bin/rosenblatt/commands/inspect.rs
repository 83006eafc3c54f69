//! `rosenblatt inspect`: what a model file holds, how `train --tune` chose it, and the
//! words that weigh most: towards each class of a two-class model, for and against each
//! class of a larger one, or for and against the one class `--class` names (the library
//! finds them, `Model::class_words`; this prints them).

use crate::flags::InspectPlan;
use crate::report;
use anyhow::{Context, Result, bail};
use rosenblatt::model::{ClassWords, FeatureSpace, Model, Predictor};
use std::process::ExitCode;

/// One class's words as `--json` shows them.
fn class_json(m: &Model, w: &ClassWords) -> serde_json::Value {
    serde_json::json!({
        "class": m.classes()[w.class],
        "bias": w.bias,
        "most_positive": w.most_positive,
        "most_negative": w.most_negative,
    })
}

/// Prints one class's words, for and against it.
fn class_text(m: &Model, w: &ClassWords, unit: &str) -> Result<()> {
    let name = &m.classes()[w.class];
    outln!("\n{unit} for {name} (bias {}):", w.bias);
    for (f, s) in &w.most_positive {
        outln!("  {s:+10.3}  {f}");
    }
    outln!("{unit} against {name}:");
    for (f, s) in &w.most_negative {
        outln!("  {s:+10.3}  {f}");
    }
    Ok(())
}

/// Where a model of three classes or more (one label each) gets its class probabilities
/// from, in words: softmax, logistic sigmoids, a calibration per class, or none (`classify
/// -k` then prints scores only). `None` for two-class and multi-label models.
fn class_probabilities(m: &Model) -> Option<String> {
    match m.predictor() {
        Predictor::Softmax(_) => Some("softmax".into()),
        Predictor::OneVsRest(_) if m.predictor().probabilistic() => {
            Some("logistic sigmoids, normalised to sum to 1".into())
        }
        Predictor::OneVsRest(_) => Some(match m.class_calibration() {
            Some(c) => format!(
                "a sigmoid per class on out-of-fold scores ({} pooled), normalised to sum to 1",
                c.pooled
            ),
            None => "none: scores only (train --calibrate gives them)".into(),
        }),
        _ => None,
    }
}

/// Runs `inspect`.
pub fn run(a: InspectPlan) -> Result<ExitCode> {
    let m = crate::load::model(&a.model)?;
    let meta = &m.meta();
    let binary = matches!(m.predictor(), Predictor::Binary(_));
    let linear = match &m.predictor() {
        Predictor::Binary(b) => b.as_linear(),
        _ => None,
    };
    let words_of = |c: usize, top: usize| {
        m.class_words(c, top)
            .with_context(|| format!("inspect {}", a.model.display()))
    };
    // Under a weighted geometry a word adds w_j · f_j (before the row's scale): words
    // are ranked and shown by that. A two-class model's pair is its second class's view
    // (in `--json` beside the class named, as before `--class` was given).
    let (pos, neg) = match linear {
        Some(_) => {
            let w = words_of(1, a.top.unwrap_or(InspectPlan::TOP))?;
            (w.most_positive, w.most_negative)
        }
        _ => (Vec::new(), Vec::new()),
    };
    // The classes whose words are listed one by one: the one named, or every class of a
    // larger linear model.
    let by_class: Vec<ClassWords> = match &a.class {
        Some(name) => {
            let c = m
                .class_index(name)
                .with_context(|| format!("inspect --class {name}: {}", a.model.display()))?;
            vec![words_of(c, a.top.unwrap_or(InspectPlan::TOP))?]
        }
        None if !binary && m.has_class_words() => m
            .words_by_class(a.top.unwrap_or(InspectPlan::TOP_PER_CLASS))
            .with_context(|| format!("inspect {}", a.model.display()))?,
        None => Vec::new(),
    };
    if let Some(file) = &a.plot {
        let of = crate::plot::name(&a.model);
        match (&a.class, by_class.first()) {
            (Some(name), Some(w)) => {
                let against = format!("not {name}");
                let classes = (against.as_str(), name.as_str());
                crate::plot::inspect::draw(file, &of, classes, &w.most_negative, &w.most_positive)?;
            }
            _ if linear.is_some() => {
                let classes = (
                    m.classes().first().map_or("-", String::as_str),
                    m.classes().get(1).map_or("+", String::as_str),
                );
                crate::plot::inspect::draw(file, &of, classes, &neg, &pos)?;
            }
            _ => bail!(
                "--plot {}: the strongest words are drawn for binary linear models, or for \
                 one class named by --class; {} is not one",
                file.display(),
                a.model.display()
            ),
        }
    }
    let support = report::support(m.predictor());
    if a.json {
        let mut v = serde_json::json!({
            "model": a.model.display().to_string(),
            "classes": m.classes(),
            // Models trained on vectors read no text: they have no analyzer to show.
            "analyzer": (m.features() == FeatureSpace::Text).then_some(&m.analyzer()),
            "vocabulary": m.vocab().len(),
            "geometry": m.geometry_name(),
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
            "class_probabilities": class_probabilities(&m),
            "theory": meta.theory,
            "bias": linear.map(|l| l.bias),
            "most_positive": pos,
            "most_negative": neg,
            "support_vectors": support.as_ref().map(|s| s.0),
            "kernel": support.as_ref().map(|s| &s.1),
            "tuning": meta.tuning,
        });
        // Its own key: "classes" names the model's classes.
        if !by_class.is_empty() {
            v["class_words"] = by_class.iter().map(|w| class_json(&m, w)).collect();
        }
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
    outln!("geometry       {}", m.geometry_name());
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
    if let Some(p) = class_probabilities(&m) {
        outln!("probabilities  {p}");
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
    let unit = match m.features() {
        FeatureSpace::Text => "words",
        FeatureSpace::Indexed { .. } => "features",
    };
    if let (Some(l), None) = (linear, &a.class) {
        outln!("bias           {}", l.bias);
        let positive = m.classes().get(1).map(String::as_str).unwrap_or("+");
        let negative = m.classes().first().map(String::as_str).unwrap_or("-");
        outln!("\nmost {positive} {unit}:");
        for (w, s) in &pos {
            outln!("  {s:+10.3}  {w}");
        }
        outln!("\nmost {negative} {unit}:");
        for (w, s) in &neg {
            outln!("  {s:+10.3}  {w}");
        }
    }
    if a.class.is_none() && !by_class.is_empty() {
        let each = a.top.unwrap_or(InspectPlan::TOP_PER_CLASS);
        outln!("\nstrongest {unit} of each class ({each} each way; --class C lists one class):");
    }
    for w in &by_class {
        class_text(&m, w, unit)?;
    }
    Ok(ExitCode::SUCCESS)
}
