//! `GET /v1/filter`: what the page says of the filter in service — its classes, size,
//! training metadata, where it decides, the model's generation — with the counts
//! `/metrics` gives and the verdicts and learns of each of the last minutes.

use crate::classifier::{SavedClassifier, View};
use crate::incremental::Filter;
use crate::model::Metadata;
use crate::serve::daemon::Daemon;
use crate::serve::rates::totals;
use serde_json::{Value, json};

/// The filter as the page shows it (see the module docs).
pub fn describe(daemon: &Daemon) -> crate::Result<Value> {
    let c = daemon.classifier();
    let view = c.view()?;
    let (meta, features) = summary(&view);
    let now = totals(&daemon.metrics);
    let mut out = json!({
        "path": c.path().display().to_string(),
        "form": if c.is_store() { "store" } else { "model file" },
        "kind": format!("{:?}", c.kind()),
        "classes": c.classes(),
        "analyzer": c.analyzer().to_string(),
        "features": features,
        "learner": meta.learner,
        "options": meta.options,
        "trained_on": meta.documents,
        "trained_by": meta.version,
        "training_seconds": meta.seconds,
        "training_accuracy": meta.training_accuracy,
        "learned": meta.learned,
        "threshold": view.threshold(),
        "generation": daemon.metrics.generation(),
        "verdicts": {"spam": now[0], "ham": now[1]},
        "learns": {"spam": now[2], "ham": now[3]},
        "per_minute": daemon.rates.series(now),
        "history": daemon.history.capacity(),
        "learning": daemon.config.learn_key.is_some(),
    });
    if spam_filter(&c) {
        out["probability_at_threshold"] = json!(view.probability(view.threshold()));
        out["reject_probability"] = json!(daemon.config.reject_probability);
    }
    Ok(out)
}

/// Whether `c` is a spam filter (the page then shows verdicts, P(spam) and learning).
fn spam_filter(c: &SavedClassifier) -> bool {
    c.spam_filter().is_ok()
}

/// The view's training metadata and how many feature ids its model has.
fn summary<'v>(view: &'v View<'_>) -> (&'v Metadata, u64) {
    match view {
        View::Model(m) => {
            let ids = match m.features() {
                crate::model::FeatureSpace::Indexed { n_features } => n_features,
                crate::model::FeatureSpace::Text => m.vocab().len(),
            };
            (m.meta(), ids as u64)
        }
        View::Store(s) => (s.meta(), s.feature_ids()),
    }
}
