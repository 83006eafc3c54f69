//! Training on documents spread over a cluster: each process reads only its share of the
//! input ([`crate::input::Share`]), and everything the single-process pipeline computes
//! from the whole corpus is computed from exchanged counts instead:
//!
//! 1. the class names, the document count and any reading error (a word-keyed all-reduce,
//!    so every process stops together, each saying why);
//! 2. the vocabulary: each process counts its documents' words (numbering its rows by
//!    them in the same pass), each word's counts are
//!    summed by its owner, which drops words under `--min-df`; the survivors are broadcast
//!    and every process ranks them as [`crate::vocab::Vocabulary::from_counts`] does, so
//!    the ids equal the single-process ones, and the local rows are renumbered into
//!    them. Under `--hash-bits` the words never travel: the document frequencies of the
//!    hashed ids do;
//! 3. the feature weights (idf) from those document frequencies;
//! 4. the training rounds (`run_worker`) on the local rows: one binary
//!    problem, one per class (one-vs-rest), or one per label (multi-label: the label
//!    thresholds are tuned by each process on its own rows and averaged);
//! 5. the training accuracy, from the counts of correct answers.
//!
//! Worker 0 (process 0) assembles the model; the others return nothing.

use super::assemble::{Fit, Space, assemble};
use super::rounds::{Round, Shard, owned_rows, run_worker};
use crate::distributed::Cluster;
use crate::distributed::reduce::{AllReduce, agree};
use crate::experiment::{exact_label_sets, predict_classes, tune_thresholds};
use crate::features::{BinaryMatrix, Geometry, MatrixBuilder, SparseRows};
use crate::input::{Document, Share};
use crate::learn::compose::multilabel::MultiLabelOptions;
use crate::learn::mixing::mixed_model;
use crate::learn::{AnyModel, LabelScorer, MultiLabel, MultiLabelModel};
use crate::model::{Metadata, Model, Predictor};
use crate::training::{
    TrainConfig, binary_labels, check_vocabulary, class_indices, classes_from, label_sets,
    training_metadata, vectorize_training,
};
use crate::vocab::{DfCounts, VocabConfig, Vocabulary};
use crate::{Error, Result};
use std::sync::Arc;
use std::time::Instant;

/// Key prefixes of the word-keyed exchange.
const LABEL: char = 'l';
const WORD: char = 'w';
const DOCS: &str = "n";
const MULTI: &str = "m";

/// Trains a model on labelled documents read in shares by `cluster`'s workers: `read`
/// reads a share (this process's documents). A corpus where some document has other than
/// one label trains a multi-label model; its thresholds (`multilabel`) are cross-validated
/// by each process on its own rows, with scorers fitted there alone, and averaged over
/// the processes. `progress` hears of each round on worker 0. Returns the model on
/// worker 0's process and `None` on the others. `two_class`: what changes on a corpus
/// of two classes (see [`super::TwoClassText`]).
pub(crate) fn train_documents<R, P>(
    cluster: &Cluster,
    cfg: &TrainConfig,
    two_class: super::TwoClassText,
    multilabel: MultiLabelOptions,
    inputs: Vec<String>,
    read: R,
    progress: P,
) -> Result<Option<Model>>
where
    R: Fn(Share) -> Result<Vec<Document>> + Send + Sync + 'static,
    P: Fn(Round) + Send + Sync + 'static,
{
    cfg.vocab.validate()?;
    crate::learn::mixing::check_mixable(&cfg.learner)?;
    if cfg.term_counts.counted() {
        return Err(Error::Unsupported(
            "training over processes exchanges binary rows: term counts (--term-counts \
             sublinear) train in one process"
                .into(),
        ));
    }
    let cfg = Arc::new(cfg.clone());
    let workers = cluster.workers();
    let inputs = Arc::new(inputs);
    let results = cluster.execute(move |worker| {
        let start = Instant::now();
        let mut words: AllReduce<String> = AllReduce::new(worker);
        let mut numbers: AllReduce = AllReduce::new(worker);
        let share = Share {
            index: worker.index(),
            of: workers,
        };
        // 1. Read, and agree on the classes, the size, and whether everyone could read.
        let read = read(share);
        let mut records = Vec::new();
        if let Ok(docs) = &read {
            records.push((DOCS.to_string(), docs.len() as f64));
            for d in docs {
                if d.labels.len() != 1 {
                    records.push((MULTI.to_string(), 1.0));
                }
                for l in &d.labels {
                    records.push((format!("{LABEL}{l}"), 1.0));
                }
            }
        }
        let totals = agree(worker, &mut words, &read, records)?;
        let docs = read?;
        let count = |key: &str| totals.iter().find(|(k, _)| k == key).map_or(0.0, |r| r.1);
        let n = count(DOCS) as usize;
        if n == 0 {
            return Err(Error::Data("no documents in the input".into()));
        }
        let multi = count(MULTI) > 0.0;
        let mut labels: Vec<(String, u32)> = totals
            .iter()
            .filter_map(|(k, v)| k.strip_prefix(LABEL).map(|l| (l.to_string(), *v as u32)))
            .collect();
        labels.sort_unstable();
        let (names, train_counts): (Vec<String>, Vec<u32>) = labels.into_iter().unzip();
        let (classes, target) = if multi {
            let sets = label_sets(&docs, &names)?;
            (names, Target::Sets(sets))
        } else {
            let classes = classes_from(names, cfg.positive.as_deref())?;
            let idx = class_indices(&docs, &classes)?;
            (classes, Target::Classes(idx))
        };
        // Every process agrees on the classes, so each sets the same C and pruning.
        let cfg = if !multi && classes.len() == 2 {
            Arc::new(two_class.apply(&cfg)?)
        } else {
            Arc::clone(&cfg)
        };

        // 2. The vocabulary, and 3. the feature weights from its document frequencies.
        // One tokenizing pass: the local rows are numbered by a local vocabulary (every
        // word kept), then renumbered into the cluster's.
        let (local, rows) = vectorize_training(&cfg.analyzer, &VocabConfig::every_word(), &docs);
        drop(docs);
        let hashing = cfg.analyzer.hashing();
        let (vocab, stored) = match hashing {
            None => {
                let records = (0..local.len() as u32)
                    .map(|j| (format!("{WORD}{}", local.word(j)), f64::from(local.df(j))));
                let floor = f64::from(cfg.vocab.min_df_for(n as u64));
                let kept = words.sum_at_least(worker, records, floor)?;
                let kept = kept
                    .into_iter()
                    .filter_map(|(k, df)| k.strip_prefix(WORD).map(|w| (Box::from(w), df as u32)))
                    .collect();
                let vocab = Vocabulary::from_df(kept, n as u64, &cfg.vocab);
                let ids: Vec<Option<u32>> = (0..local.len() as u32)
                    .map(|j| vocab.get(local.word(j)))
                    .collect();
                let stored = renumber(&rows, &ids, vocab.len());
                (vocab, stored)
            }
            Some(_) => {
                let records = (0..local.len() as u32)
                    .filter(|&j| local.df(j) > 0)
                    .map(|j| (u64::from(j), f64::from(local.df(j))));
                let ids = numbers
                    .sum(worker, records)?
                    .into_iter()
                    .map(|(j, df)| (j as u32, df as u32));
                let vocab = Vocabulary::from_counts(
                    DfCounts::from_totals(hashing, [], ids, n as u64),
                    &cfg.vocab,
                );
                (vocab, rows)
            }
        };
        check_vocabulary(&vocab, &cfg.vocab, n)?;
        let df: Vec<u32> = (0..vocab.len()).map(|j| vocab.df(j as u32)).collect();
        let geometry = Geometry::from_df(cfg.geometry, &df, n);
        let x = owned_rows(
            &geometry.apply(&stored),
            &(0..stored.n_rows()).collect::<Vec<_>>(),
        );

        // 4. The rounds: one binary problem, or one per class or label.
        let k = classes.len();
        let y = match &target {
            Target::Classes(idx) if k == 2 => vec![binary_labels(idx, 1)],
            Target::Classes(idx) => (0..k).map(|c| binary_labels(idx, c)).collect(),
            Target::Sets(sets) => {
                let m = MultiLabel::new(sets, k);
                (0..k).map(|c| m.one_vs_rest(c)).collect()
            }
        };
        let shard = Shard { y, x };
        let fits = run_worker(
            worker,
            &mut numbers,
            &cfg.learner,
            &shard,
            vocab.len(),
            &progress,
        )?;
        let reports: Vec<_> = fits.iter().map(|f| f.report.clone()).collect();
        let mut models: Vec<AnyModel> = fits
            .into_iter()
            .map(|f| mixed_model(&cfg.learner, f.model))
            .collect();
        let predictor = match &target {
            Target::Classes(_) if k == 2 => Predictor::Binary(models.remove(0)),
            Target::Classes(_) => Predictor::OneVsRest(models),
            Target::Sets(sets) => {
                let scorer = LabelScorer::OneVsRest(models);
                // Thresholds cross-validated on each process's own rows, then averaged.
                let local = tune_thresholds(&cfg.learner, &shard.x, sets, &scorer, &multilabel)?;
                let sums = numbers.sum(
                    worker,
                    local
                        .iter()
                        .enumerate()
                        .map(|(c, &t)| (c as u64, f64::from(t))),
                )?;
                let mut thresholds = vec![scorer.default_threshold(); k];
                for (c, t) in sums {
                    thresholds[c as usize] = (t / workers as f64) as f32;
                }
                Predictor::MultiLabel(MultiLabelModel {
                    thresholds,
                    scorer,
                    train_counts,
                    at_least_one: multilabel.at_least_one,
                })
            }
        };

        // 5. Training accuracy (exact label sets) and size over every process.
        let correct = target.correct(&predictor, &shard.x);
        let sums = numbers.sum(worker, [(0, correct as f64), (1, stored.nnz() as f64)])?;
        let total = |key: u64| sums.iter().find(|r| r.0 == key).map_or(0.0, |r| r.1);
        if worker.index() != 0 {
            return Ok(None);
        }
        let report = if reports.len() == 1 {
            reports[0].clone()
        } else {
            crate::learn::combine_reports(&reports)
        };
        let seconds = start.elapsed().as_secs_f64();
        let fit = Fit {
            geometry,
            classes,
            predictor,
            meta: Metadata {
                fit_seconds: seconds,
                seconds,
                training_accuracy: total(0) / n as f64,
                ..training_metadata(&cfg, (*inputs).clone(), n, total(1) as usize, report)
            },
            calibration: None,
            class_calibration: None,
            threshold: 0.0,
            accuracy_at_zero: None,
        };
        let model = assemble(&cfg, Space::Text(vocab), fit)?;
        Ok(Some(model))
    })?;
    Ok(results.into_iter().flatten().next())
}

/// Rows numbered by a local vocabulary, renumbered by `ids` (local id → the cluster's,
/// `None` for a word pruned away) into `n_cols` columns.
fn renumber(rows: &BinaryMatrix, ids: &[Option<u32>], n_cols: usize) -> BinaryMatrix {
    let mut b = MatrixBuilder::with_capacity(rows.rows(), rows.nnz());
    let mut row = Vec::new();
    for r in rows.outer_iterator() {
        row.clear();
        row.extend(r.indices().iter().filter_map(|&j| ids[j as usize]));
        b.push_unsorted(&mut row);
    }
    b.finish(n_cols)
}

/// What the local documents are labelled with.
enum Target {
    /// One class index each.
    Classes(Vec<usize>),
    /// A set of label indices each.
    Sets(Vec<Vec<usize>>),
}

impl Target {
    /// How many rows of `x` the predictor labels exactly right.
    fn correct<X: SparseRows>(&self, predictor: &Predictor, x: &X) -> usize {
        match self {
            Target::Classes(idx) => predict_classes(predictor, x)
                .iter()
                .zip(idx)
                .filter(|(p, t)| p == t)
                .count(),
            Target::Sets(sets) => exact_label_sets(predictor, x, sets),
        }
    }
}
