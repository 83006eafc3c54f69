//! What the subcommands print: the training summary, the theory lines (shared by `train`
//! and `inspect`), the `--tune` table (shared likewise), one classified document's line (shared by text and SVMlight input),
//! the kernel perceptron's support summary, and the notes on stderr about skipped
//! documents and messages that did not parse as mail.

use crate::flags::OutputFormat;
use rosenblatt::eval::{Metrics, ProbabilityMetrics, SpamMetrics};
use rosenblatt::experiment::TuneTable;
use rosenblatt::model::{FeatureSpace, Model, Predictor};
use rosenblatt::theory::Theory;
use std::io::Write;
use std::path::Path;

/// A two-class model's decision rule in words: "spam when score > 2.197 (P > 0.90)"
/// (the probability where the model has one: calibrated, or a logistic model's log-odds);
/// `None` for other models.
pub fn threshold(m: &Model) -> Option<String> {
    let Predictor::Binary(_) = &m.predictor() else {
        return None;
    };
    Some(decision_rule(
        m.classes(),
        m.threshold(),
        m.probability(m.threshold()),
    ))
}

/// A two-class decision rule in words, for a model or a store: "spam when score > 2.197
/// (P > 0.90)", with `probability`, P(`classes[1]`) at `threshold`, where there is one.
pub fn decision_rule(classes: &[String], threshold: f32, probability: Option<f32>) -> String {
    let class = &classes[1];
    match probability {
        Some(p) => format!("{class} when score > {threshold:.3} (P > {p:.2})"),
        None => format!("{class} when score > {threshold}"),
    }
}

/// Tells the user how many inputs were skipped and why (the first few): unreadable or broken
/// documents, and folder entries that are not files to read (FIFOs, link cycles).
pub fn skipped(items: &[(String, String)]) {
    skipped_of(items, items.len());
}

/// As [`skipped`], for `n` skipped inputs of which `first` are the first (at least five of
/// them, or all).
fn skipped_of(first: &[(String, String)], n: usize) {
    note(
        first,
        n,
        &format!("skipped {n} input(s) (unreadable, broken, or not a file to read)"),
    );
}

/// Tells the user about messages that were not mail and were read as raw text.
pub fn unparsed(items: &[(String, String)]) {
    let n = items.len();
    note(
        items,
        n,
        &format!("{n} message(s) did not parse as mail and were read as raw text"),
    );
}

/// The `id: reason` lines a note shows; the rest are counted.
const SHOWN: usize = 5;

/// A note on stderr about `n` items, of which `first` are the first: `rosenblatt:
/// HEADLINE:`, the first five `id: reason` lines and how many more there are. Nothing when
/// there are no items.
fn note(first: &[(String, String)], n: usize, headline: &str) {
    if n == 0 {
        return;
    }
    errln!("rosenblatt: {headline}:");
    for (id, why) in first.iter().take(SHOWN) {
        errln!("  {id}: {why}");
    }
    if n > SHOWN {
        errln!("  … and {} more", n - SHOWN);
    }
}

/// Skipped inputs tallied as a stream of documents is read: the first five kept, the rest
/// counted, so a run over an input of millions of broken lines holds five. Its
/// [`Skipped::report`] is what [`skipped`] prints of them all.
#[derive(Debug, Default)]
pub struct Skipped {
    first: Vec<(String, String)>,
    n: usize,
}

impl Skipped {
    /// Takes `items` (emptied), in the order they were skipped.
    pub fn take(&mut self, items: &mut Vec<(String, String)>) {
        self.n += items.len();
        let room = SHOWN.saturating_sub(self.first.len());
        self.first.extend(items.drain(..).take(room));
    }

    /// How many were skipped in all.
    pub fn count(&self) -> usize {
        self.n
    }

    /// Tells the user about them, as [`skipped`] does.
    pub fn report(&self) {
        skipped_of(&self.first, self.n);
    }
}

/// The exit code of a run that printed the line of every document it read and skipped
/// `n` (unreadable files, bad JSON lines, files over --max-document-bytes): 0 when none
/// was skipped, else [`SKIPPED`], said on stderr, so a script can tell that lines are
/// missing.
pub fn skipped_code(n: usize) -> std::process::ExitCode {
    if n == 0 {
        return std::process::ExitCode::SUCCESS;
    }
    errln!(
        "rosenblatt: {n} input(s) passed over, as listed above; every document read was \
         classified and its line printed (exit code {SKIPPED})"
    );
    std::process::ExitCode::from(SKIPPED)
}

/// The exit code of a `classify` run that skipped documents (not one of a spam filter's
/// verdicts 0, 1, 2 or its error 3).
pub const SKIPPED: u8 = 4;

/// Prints the theory diagnostics.
pub fn theory(t: &Theory) -> std::io::Result<()> {
    outln!("radius R       {:.4}", t.radius);
    outln!(
        "margin         functional {:.4}, geometric {:.6}",
        t.functional_margin,
        t.geometric_margin
    );
    outln!("separated      {}", if t.separated { "yes" } else { "no" });
    match (t.novikoff_bound, t.updates) {
        (Some(b), Some(k)) => outln!("(R/γ)² bound   {b:.1} (updates k = {k})"),
        (Some(b), None) => outln!("(R/γ)² bound   {b:.1}"),
        _ => outln!("(R/γ)² bound   – (training set not separated by the learned hyperplane)"),
    }
    Ok(())
}

/// Prints the `--tune` table: one row per grid point (mean ± sd of its fold scores, the
/// seconds its folds took, its flags), the winner marked `*`, skipped points said so.
pub fn tuning(t: &TuneTable) -> std::io::Result<()> {
    let budget = t
        .budget_seconds
        .map(|b| format!(", budget {b} s"))
        .unwrap_or_default();
    outln!(
        "\ntuning: {}-fold cross-validation (stratified, seed {}) on {} training documents, \
         scored by {}; {} of {} points in {:.1} s{budget}",
        t.folds,
        t.seed,
        t.documents,
        t.score.name(),
        t.evaluated(),
        t.rows.len(),
        t.seconds
    );
    if let Some(th) = &t.thresholds {
        outln!("thresholds inside the folds: {th}");
    }
    outln!("     mean ±     sd   seconds  flags");
    for (i, r) in t.rows.iter().enumerate() {
        let mark = if i == t.best { '*' } else { ' ' };
        match &r.result {
            Some(p) => outln!(
                "  {mark} {:.4} ± {:.4} {:9.1}  {}",
                p.mean,
                p.sd,
                p.seconds,
                r.flags
            ),
            None => outln!("    skipped (budget spent)     {}", r.flags),
        }
    }
    outln!("best: {}", t.winner().flags);
    Ok(())
}

/// Everything `train`'s summary shows besides the model itself.
pub struct TrainSummary<'a> {
    /// Where the model was written.
    pub output: &'a Path,
    /// Print one JSON object.
    pub json: bool,
    /// Documents skipped while reading.
    pub skipped: usize,
    /// The held-out fraction and the seed of the split, with the held-out metrics.
    pub held_out: Option<(f64, u64, Metrics)>,
    /// The log loss and calibration error on the held-out part, where the model gives
    /// probabilities (as `eval` reports them).
    pub held_out_probabilities: Option<ProbabilityMetrics>,
    /// The spam measures on the held-out part (spam filters).
    pub spam: Option<SpamMetrics>,
    /// Each fold's cross-validation accuracy.
    pub folds: Option<Vec<f64>>,
    /// The training accuracy at score 0, for a two-class model that decides elsewhere.
    pub accuracy_at_zero: Option<f64>,
}

/// Prints `train`'s summary of model `m`.
pub fn train_summary(m: &Model, s: &TrainSummary) -> std::io::Result<()> {
    let meta = &m.meta();
    if s.json {
        let mut v = serde_json::json!({
            "model": s.output.display().to_string(),
            "documents": meta.documents,
            "skipped": s.skipped,
            "classes": m.classes(),
            "vocabulary": m.vocab().len(),
            "nonzeros": meta.nnz,
            "geometry": m.geometry_name(),
            "learner": meta.learner,
            "options": meta.options,
            "epochs": meta.report.epochs,
            "updates": meta.report.updates,
            "converged": meta.report.converged,
            "training_accuracy": meta.training_accuracy,
            "training_accuracy_at_zero": s.accuracy_at_zero,
            "seconds": meta.seconds,
            "fit_seconds": meta.fit_seconds,
            "theory": meta.theory,
        });
        if let Some((_, _, h)) = &s.held_out {
            v["held_out"] = h.to_json();
        }
        if let (Some(sp), Some(o)) = (&s.spam, v["held_out"].as_object_mut()) {
            o.extend(sp.to_json().as_object().cloned().unwrap_or_default());
        }
        if let (Some(p), Some(o)) = (&s.held_out_probabilities, v["held_out"].as_object_mut()) {
            o.extend(p.to_json().as_object().cloned().unwrap_or_default());
        }
        if let Some(f) = &s.folds {
            v["cv_accuracy"] = serde_json::json!(f);
        }
        if let Some(t) = &meta.tuning {
            v["tuning"] = serde_json::json!(t);
        }
        outln!("{v}");
        return Ok(());
    }
    outln!("documents      {} ({} skipped)", meta.documents, s.skipped);
    outln!("classes        {}", m.classes().join(", "));
    match m.features() {
        FeatureSpace::Indexed { n_features } => {
            outln!("features       {n_features} (SVMlight ids)")
        }
        FeatureSpace::Text => outln!("vocabulary     {}", m.vocab().describe()),
    }
    outln!("nonzeros       {}", meta.nnz);
    outln!("geometry       {}", m.geometry_name());
    outln!("learner        {} ({})", meta.learner, meta.options);
    if let Some((n, kernel)) = support(m.predictor()) {
        outln!("support vecs   {n} ({kernel})");
    }
    outln!("epochs         {}", meta.report.epochs);
    outln!("updates k      {}", meta.report.updates);
    if let Some(c) = meta.report.converged {
        outln!("converged      {}", if c { "yes" } else { "no" });
    }
    match (s.accuracy_at_zero, threshold(m)) {
        (Some(zero), Some(at)) => outln!(
            "training acc   {:.4} deciding {at}; {zero:.4} at score > 0",
            meta.training_accuracy
        ),
        _ => outln!("training acc   {:.4}", meta.training_accuracy),
    }
    if let Some(t) = &meta.theory {
        theory(t)?;
    }
    outln!(
        "time           {:.3} s (fitting {:.3} s)",
        meta.seconds,
        meta.fit_seconds
    );
    outln!("model          {}", s.output.display());
    if let Some(t) = &meta.tuning {
        tuning(t)?;
    }
    if let Some((frac, seed, h)) = &s.held_out {
        outln!(
            "\nheld-out evaluation ({:.0}% of the documents, seed {seed}):",
            frac * 100.0
        );
        let p = s
            .held_out_probabilities
            .as_ref()
            .map(ProbabilityMetrics::to_text)
            .unwrap_or_default();
        match &s.spam {
            // One block: the spam figures count the messages and the accuracy once.
            Some(sp) => out!("{}{p}{}", sp.to_text(), h.tables_text()),
            None => out!("{}{p}{}", h.summary_text(), h.tables_text()),
        }
    }
    if let Some(f) = &s.folds {
        let mean = f.iter().sum::<f64>() / f.len() as f64;
        let fs: Vec<String> = f.iter().map(|x| format!("{x:.4}")).collect();
        outln!(
            "\n{}-fold cross-validation accuracy: mean {mean:.4} ({})",
            f.len(),
            fs.join(" ")
        );
    }
    Ok(())
}

/// Writes one document's line: `id<TAB>label1,label2<TAB>score1,score2`, or a JSON object
/// (`labels` and `scores` added for multi-label models).
pub fn labels(
    out: &mut impl Write,
    format: OutputFormat,
    model: &Model,
    id: &str,
    labels: &[(usize, f32)],
    probability: Option<f32>,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Tsv => {
            let names: Vec<&str> = labels
                .iter()
                .map(|l| model.classes()[l.0].as_str())
                .collect();
            let scores: Vec<f32> = labels.iter().map(|l| l.1).collect();
            let s: Vec<String> = scores.iter().map(f32::to_string).collect();
            writeln!(
                out,
                "{}\t{}\t{}",
                tsv_field(id),
                names.join(","),
                s.join(",")
            )
        }
        OutputFormat::Jsonl => writeln!(out, "{}", labels_json(model, id, labels, probability)),
    }
}

/// The JSON object of [`labels`]: id, best label and score, P where the model has one,
/// and for multi-label models every label and score.
pub fn labels_json(
    model: &Model,
    id: &str,
    labels: &[(usize, f32)],
    probability: Option<f32>,
) -> serde_json::Value {
    let names: Vec<&str> = labels
        .iter()
        .map(|l| model.classes()[l.0].as_str())
        .collect();
    let scores: Vec<f32> = labels.iter().map(|l| l.1).collect();
    let mut v = serde_json::json!({
        "id": id,
        "label": names.first(),
        "score": scores.first(),
    });
    if let Some(p) = probability {
        v["probability"] = serde_json::json!(p);
    }
    if matches!(model.predictor(), Predictor::MultiLabel(_)) {
        v["labels"] = serde_json::json!(names);
        v["scores"] = serde_json::json!(scores);
    }
    v
}

/// `s` as one field of a tab-separated line: a backslash, tab, line feed or carriage
/// return (a file named so, a JSONL id) is written as `\\`, `\t`, `\n` or `\r`, so every
/// line keeps its three fields and an id reads back unchanged.
pub fn tsv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['\\', '\t', '\n', '\r']) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.into()
}

/// Support vectors and kernel of a model's kernel perceptrons (summed over one-vs-rest
/// models), for `train` and `inspect`.
pub fn support(p: &Predictor) -> Option<(usize, String)> {
    let models: Vec<&rosenblatt::learn::KernelModel> = match p {
        Predictor::Binary(m) => m.as_kernel().into_iter().collect(),
        Predictor::OneVsRest(ms) => ms.iter().filter_map(|m| m.as_kernel()).collect(),
        _ => Vec::new(),
    };
    let first = models.first()?;
    let n = models.iter().map(|m| m.n_support()).sum();
    let voted = if first.votes.is_some() { ", voted" } else { "" };
    let cost = match first.cost {
        Some((e, rows)) => format!(
            "; estimated {:.2} s and {}, {rows} Gram rows computed",
            e.seconds,
            rosenblatt::error::human_bytes(e.memory_bytes)
        ),
        None => String::new(),
    };
    Some((n, format!("{}{voted}{cost}", first.kernel.describe())))
}
