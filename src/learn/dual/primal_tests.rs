//! The dual form with a linear kernel makes the primal perceptron's mistakes, in the same
//! order, on real text (the SMS collection), for every bias and schedule.

use crate::features::{SparseRows, count_df, vectorize};
use crate::input::{self, Document};
use crate::learn::{Bias, Check, Classifier, KernelPerceptron, Perceptron, Schedule};
use crate::text::Analyzer;
use crate::vocab::{VocabConfig, Vocabulary};
use std::path::PathBuf;

fn sms() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/sms/SMSSpamCollection.tsv")
}

/// Every `step`-th message of the SMS collection.
fn sms_sample(step: usize) -> Vec<Document> {
    let corpus = input::read(&sms(), None).unwrap();
    corpus.docs.into_iter().step_by(step).collect()
}

#[test]
fn linear_kernel_makes_the_primal_mistakes_in_order_on_sms_text() {
    if !sms().exists() {
        eprintln!(
            "note: {} is absent (a packaged crate): skipped",
            sms().display()
        );
        return;
    }
    let docs = sms_sample(6);
    let (train, test) = docs.split_at(docs.len() * 4 / 5);
    let an = Analyzer::default();
    let vocab = Vocabulary::from_counts(count_df(&an, train), &VocabConfig::default());
    let x = vectorize(&an, &vocab, train).matrix;
    let xt = vectorize(&an, &vocab, test).matrix;
    let y: Vec<i8> = train
        .iter()
        .map(|d| if d.labels[0] == "spam" { 1 } else { -1 })
        .collect();
    assert!(x.n_rows() > 700 && y.contains(&1) && y.contains(&-1));
    let schedules = [
        Schedule::Epochs(3),
        Schedule::UntilConvergence { max_epochs: 30 },
        Schedule::Randomized {
            rounds: 3000,
            seed: 3,
            patience: Some(500),
        },
    ];
    for bias in [Bias::None, Bias::Augmented, Bias::R2] {
        for schedule in schedules {
            let primal = Perceptron {
                eta: 1.0,
                bias,
                schedule,
                shuffle: Some(5),
            };
            let mut p_seq = Vec::new();
            let p = primal
                .check()
                .unwrap()
                .fit_observed(&x, &y, |u| p_seq.push((u.example, u.epoch)))
                .unwrap();
            let dual = KernelPerceptron {
                bias,
                schedule,
                shuffle: Some(5),
                ..Default::default()
            };
            let mut d_seq = Vec::new();
            let d = dual
                .check()
                .unwrap()
                .fit_observed(&x, &y, |u| d_seq.push((u.example, u.epoch)))
                .unwrap();
            assert!(p_seq.len() > 20, "{bias:?} {schedule:?}: too easy a test");
            assert_eq!(p_seq, d_seq, "{bias:?} {schedule:?}");
            assert_eq!(p.report, d.report);
            // Integer-valued sums are exact in f32 and f64: the scores are identical.
            for m in [&x, &xt] {
                for i in 0..m.n_rows() {
                    assert_eq!(p.model.score(m.row(i)), d.model.score(m.row(i)));
                }
            }
            // α counts the updates on each example.
            let total: u64 = d.model.alpha.iter().map(|&a| u64::from(a)).sum();
            assert_eq!(total, d.report.updates);
        }
    }
}
