//! `train --tune` through the pipeline: grid points grouped by analyzer so each analyzer
//! vectorizes the training documents once (weighting and normalization points share that
//! matrix), single-label and multi-label documents alike, and the winner turned back
//! into a training configuration.

use super::is_multilabel;
use crate::experiment::{
    Classes, GridPoint, LabelSets, Target, TuneOptions, TuneProgress, TuneRun, TuneTable,
};
use crate::features::{SparseRows, TermCounts};
use crate::input::Document;
use crate::text::{Analyzer, Ngrams, Step};
use crate::training::{
    TrainConfig, check_vocabulary, class_indices, classes_of, label_sets, vectorize_training_rows,
};
use crate::{Error, Result};

/// The analyzer of a grid point: `base` with its n-gram step set to `ngrams`-word
/// n-grams (1: single words, the step removed).
///
/// This is the one place a point's n-gram order becomes an analyzer; tuning groups its
/// points by what this returns.
pub(crate) fn analyzer_for(base: &Analyzer, ngrams: usize) -> Result<Analyzer> {
    let mut order = match ngrams {
        1 => None,
        n => Some(u8::try_from(n).map_err(|_| {
            Error::Unsupported(format!(
                "word {n}-grams: n must be from 1 to {}",
                Ngrams::MAX
            ))
        })?),
    };
    let mut b = Analyzer::builder(base.source().clone());
    for step in base.steps() {
        match step {
            Step::Ngrams(_) => {}
            // N-grams are made before hashing, as the analyzer orders its steps.
            Step::Hash(_) => {
                if let Some(n) = order.take() {
                    b = b.step(Step::Ngrams(n));
                }
                b = b.step(*step);
            }
            _ => b = b.step(*step),
        }
    }
    if let Some(n) = order {
        b = b.step(Step::Ngrams(n));
    }
    b.build()
}

/// The training configuration of a grid point: `cfg` with the point's learner, geometry
/// and analyzer; the options name the point's flags.
pub fn config_of(cfg: &TrainConfig, point: &GridPoint) -> Result<TrainConfig> {
    Ok(TrainConfig {
        analyzer: analyzer_for(&cfg.analyzer, point.spec.ngrams)?,
        learner: point.learner.clone(),
        geometry: point.spec.geometry,
        term_counts: point.spec.counts,
        options: point.flags(),
        ..cfg.clone()
    })
}

/// The class names and label sets of multi-label documents (sorted names).
fn label_names(docs: &[Document]) -> Result<(Vec<String>, Vec<Vec<usize>>)> {
    let mut names: Vec<String> = docs.iter().flat_map(|d| d.labels.iter().cloned()).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Err(Error::Data("no document has a label".into()));
    }
    let sets = label_sets(docs, &names)?;
    Ok((names, sets))
}

/// Cross-validates every grid point on the training documents `docs` (single-label:
/// accuracy, or ROC AUC for two classes decided at a calibrated probability, `cfg.threshold`
/// given; multi-label: micro-F1) and returns the table with the winner marked. The
/// documents are vectorized once per analyzer (with `cfg`'s vocabulary settings, over
/// all of `docs`); `cfg`'s learner and geometry are not used — the points carry their
/// own. Only `docs` take part: give it the training part, never held-out documents.
pub fn tune(
    docs: &[Document],
    cfg: &TrainConfig,
    points: &[GridPoint],
    opt: TuneOptions,
    progress: &(dyn Fn(&TuneProgress) + Sync),
) -> Result<TuneTable> {
    cfg.vocab.validate()?;
    let multilabel = is_multilabel(docs);
    let (names, idx, sets) = if multilabel {
        let (names, sets) = label_names(docs)?;
        (names, Vec::new(), sets)
    } else {
        let names = classes_of(docs, cfg.positive.as_deref())?;
        let idx = class_indices(docs, &names)?;
        (names, idx, Vec::new())
    };
    let target = if multilabel {
        Target::Labels(LabelSets {
            names: &names,
            of_row: &sets,
        })
    } else {
        let classes = Classes {
            names: &names,
            of_row: &idx,
        };
        // A model that will decide at a calibrated probability (a spam filter's P > 0.9)
        // is chosen by the ranking its cut is taken on, not by accuracy at score 0.
        if names.len() == 2 && cfg.threshold.is_some() {
            Target::Ranked(classes)
        } else {
            Target::Classes(classes)
        }
    };
    let mut run = TuneRun::new(target, points.len(), opt, progress)?;
    // Points grouped by analyzer and term counts, in order of first appearance; each
    // group vectorizes the documents once.
    type Group<'a> = ((Analyzer, TermCounts), Vec<(usize, &'a GridPoint)>);
    let mut groups: Vec<Group<'_>> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let a = (analyzer_for(&cfg.analyzer, p.spec.ngrams)?, p.spec.counts);
        match groups.iter_mut().find(|g| g.0 == a) {
            Some(g) => g.1.push((i, p)),
            None => groups.push((a, vec![(i, p)])),
        }
    }
    for ((analyzer, counts), group) in &groups {
        let (vocab, x) = vectorize_training_rows(analyzer, *counts, &cfg.vocab, docs);
        check_vocabulary(&vocab, &cfg.vocab, docs.len())?;
        run.evaluate(&x, target, group)?;
    }
    run.finish(points)
}

/// [`tune`] for vectorized rows with their class indices (SVMlight rows): one matrix,
/// no n-gram or term-count dimension.
pub(crate) fn tune_training_rows<X: SparseRows>(
    x: &X,
    idx: &[usize],
    classes: &[String],
    points: &[GridPoint],
    opt: TuneOptions,
    progress: &(dyn Fn(&TuneProgress) + Sync),
) -> Result<TuneTable> {
    if let Some(p) = points.iter().find(|p| p.spec.ngrams != 1) {
        return Err(Error::Unsupported(format!(
            "{}: rows that are already vectors have no words to make n-grams of",
            p.flags()
        )));
    }
    if let Some(p) = points.iter().find(|p| p.spec.counts.counted()) {
        return Err(Error::Unsupported(format!(
            "{}: rows that are already vectors have no words to count (their values are \
             read as given)",
            p.flags()
        )));
    }
    let target = Target::Classes(Classes {
        names: classes,
        of_row: idx,
    });
    crate::experiment::tune_rows(x, target, points, opt, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::Source;

    #[test]
    fn a_points_ngram_order_replaces_the_analyzers_and_stays_before_hashing() {
        let base = Analyzer::builder(Source::Text)
            .step(Step::Words)
            .step(Step::Lowercase)
            .step(Step::Ngrams(3))
            .step(Step::Hash(18))
            .build()
            .unwrap();
        let two = analyzer_for(&base, 2).unwrap();
        assert_eq!(
            two.steps(),
            [
                Step::Words,
                Step::Lowercase,
                Step::Ngrams(2),
                Step::Hash(18)
            ]
        );
        let one = analyzer_for(&base, 1).unwrap();
        assert_eq!(one.steps(), [Step::Words, Step::Lowercase, Step::Hash(18)]);
        assert_eq!(
            analyzer_for(&Analyzer::default(), 1).unwrap(),
            Analyzer::default()
        );
        assert!(analyzer_for(&base, 9).is_err() && analyzer_for(&base, 300).is_err());
    }
}
