//! Training on documents spread over a cluster: each process reads only its share of the
//! input ([`crate::input::Share`]), and everything the single-process pipeline computes
//! from the whole corpus is computed from exchanged counts instead:
//!
//! 1. the class names, the document count and any reading error (a word-keyed all-reduce,
//!    so every process stops together, each saying why);
//! 2. the vocabulary: each process counts its documents' words, each word's counts are
//!    summed by its owner, which drops words under `--min-df`; the survivors are broadcast
//!    and every process ranks them as [`crate::vocab::Vocabulary::from_counts`] does, so
//!    the ids equal the single-process ones. Under `--hash-bits` the words never travel:
//!    the document frequencies of the hashed ids do;
//! 3. the feature weights (idf) from those document frequencies;
//! 4. the training rounds ([`super::train::run_worker`]) on the local rows;
//! 5. the training accuracy, from the counts of correct answers.
//!
//! Worker 0 (process 0) assembles the model; the others return nothing.

use super::Cluster;
use super::reduce::AllReduce;
use super::train::{Round, Shard, owned_rows, run_worker};
use crate::experiment::predict_classes;
use crate::features::{Geometry, SparseRows, vectorize};
use crate::input::{Document, Share};
use crate::learn::{AnyModel, OnlineState};
use crate::model::{FeatureSpace, Metadata, Predictor, SavedModel};
use crate::pipeline::{TrainConfig, binary_labels, class_indices, classes_from, training_metadata};
use crate::vocab::{DfCounts, Vocabulary};
use crate::{Error, Result};
use std::sync::Arc;
use std::time::Instant;

/// Key prefixes of the word-keyed exchange.
const ERROR: char = '!';
const LABEL: char = 'l';
const WORD: char = 'w';
const DOCS: &str = "n";
const MULTI: &str = "m";

/// Trains a model on labelled documents read in shares by `cluster`'s workers: `read`
/// reads a share (this process's documents). `progress` hears of each round on worker 0.
/// Returns the model on worker 0's process and `None` on the others.
pub fn train_documents<R, P>(
    cluster: &Cluster,
    cfg: &TrainConfig,
    inputs: Vec<String>,
    read: R,
    progress: P,
) -> Result<Option<SavedModel>>
where
    R: Fn(Share) -> Result<Vec<Document>> + Send + Sync + 'static,
    P: Fn(Round) + Send + Sync + 'static,
{
    cfg.vocab.validate()?;
    crate::learn::mixing::check_mixable(&cfg.learner)?;
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
        match &read {
            Ok(docs) => {
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
            Err(e) => records.push((format!("{ERROR}process {}: {e}", worker.index()), 1.0)),
        }
        let totals = words.sum(worker, records)?;
        let errors: Vec<&str> = totals
            .iter()
            .filter_map(|(k, _)| k.strip_prefix(ERROR))
            .collect();
        if !errors.is_empty() {
            return Err(Error::Data(errors.join("; ")));
        }
        let docs = read?;
        let count = |key: &str| totals.iter().find(|(k, _)| k == key).map_or(0.0, |r| r.1);
        let n = count(DOCS) as usize;
        if n == 0 {
            return Err(Error::Data("no documents in the input".into()));
        }
        if count(MULTI) > 0.0 {
            return Err(Error::Unsupported(
                "training over processes is for single-label corpora; this one has documents \
                 with several labels (or none)"
                    .into(),
            ));
        }
        let names = totals
            .iter()
            .filter_map(|(k, _)| k.strip_prefix(LABEL).map(str::to_string))
            .collect();
        let classes = classes_from(names, cfg.positive.as_deref())?;
        let idx = class_indices(&docs, &classes)?;

        // 2. The vocabulary, and 3. the feature weights from its document frequencies.
        let local = crate::features::count_df(&cfg.analyzer, &docs);
        let hashing = cfg.analyzer.hashing();
        let vocab = match hashing {
            None => {
                let records = local
                    .word_df()
                    .map(|(w, df)| (format!("{WORD}{w}"), f64::from(df)));
                let floor = f64::from(cfg.vocab.min_df);
                let kept = words.sum_at_least(worker, records, floor)?;
                let kept = kept
                    .into_iter()
                    .filter_map(|(k, df)| k.strip_prefix(WORD).map(|w| (Box::from(w), df as u32)));
                Vocabulary::from_counts(DfCounts::from_totals(None, kept, [], n as u64), &cfg.vocab)
            }
            Some(_) => {
                let records = local.id_df().map(|(j, df)| (u64::from(j), f64::from(df)));
                let ids = numbers
                    .sum(worker, records)?
                    .into_iter()
                    .map(|(j, df)| (j as u32, df as u32));
                Vocabulary::from_counts(
                    DfCounts::from_totals(hashing, [], ids, n as u64),
                    &cfg.vocab,
                )
            }
        };
        crate::pipeline::check_vocabulary(&vocab, &cfg.vocab, n)?;
        let stored = vectorize(&cfg.analyzer, &vocab, &docs).matrix;
        drop(docs);
        let df: Vec<u32> = (0..vocab.len()).map(|j| vocab.df(j as u32)).collect();
        let geometry = Geometry::from_df(cfg.geometry, &df, n);
        let x = owned_rows(
            &geometry.apply(&stored),
            &(0..stored.n_rows()).collect::<Vec<_>>(),
        );

        // 4. The rounds.
        let k = classes.len();
        let problems: Vec<usize> = if k == 2 { vec![1] } else { (0..k).collect() };
        let shard = Shard {
            y: problems.iter().map(|&c| binary_labels(&idx, c)).collect(),
            x,
        };
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
            .map(|f| AnyModel::Linear(f.model))
            .collect();
        let predictor = if k == 2 {
            Predictor::Binary(models.remove(0))
        } else {
            Predictor::OneVsRest(models)
        };

        // 5. Training accuracy and size over every process.
        let predicted = predict_classes(&predictor, &shard.x);
        let correct = predicted.iter().zip(&idx).filter(|(p, t)| p == t).count();
        let sums = numbers.sum(worker, [(0, correct as f64), (1, stored.nnz() as f64)])?;
        let total = |key: u64| sums.iter().find(|r| r.0 == key).map_or(0.0, |r| r.1);
        if worker.index() != 0 {
            return Ok(None);
        }
        let report = if k == 2 {
            reports[0].clone()
        } else {
            crate::learn::combine_reports(&reports)
        };
        let seconds = start.elapsed().as_secs_f64();
        let mut model = SavedModel {
            analyzer: cfg.analyzer.clone(),
            vocab,
            features: FeatureSpace::Text,
            geometry,
            classes,
            predictor,
            meta: Metadata {
                fit_seconds: seconds,
                seconds,
                training_accuracy: total(0) / n as f64,
                ..training_metadata(&cfg, (*inputs).clone(), n, total(1) as usize, report)
            },
            online: None,
            threshold: 0.0,
        };
        if let Predictor::Binary(AnyModel::Linear(_)) = &model.predictor {
            model.online = cfg.learner.update_rule().map(OnlineState::new);
        }
        Ok(Some(model))
    })?;
    Ok(results.into_iter().flatten().next())
}
