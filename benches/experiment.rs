//! What a cross-validation fold costs beyond its fit: one shuffled epoch of a learner on
//! the training part of a 5-fold split (160,000 of 200,000 Zipf-shaped rows, ≈120
//! nonzeros each, 50k features), three ways:
//!
//! - `view`: on a `RowSubset` of the one matrix (no copy; the learners' unchecked CSR
//!   loops read each chosen row through its span), as `experiment` runs folds;
//! - `copy`: the training rows copied into a matrix of their own first (copy included);
//! - `generic`: on a row source without a CSR block (the learners' checked path).
//!
//! `copy_rows` times the copy alone. Before timing, each way's fit is checked against
//! the copy's: the same updates and the same model.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rosenblatt::experiment::kfold;
use rosenblatt::features::synthetic::zipf_rows;
use rosenblatt::features::{RowRef, RowSubset, SparseRows, select_rows};
use rosenblatt::learn::{
    AnyLearner, AveragedPerceptron, Bias, Check, Learner, LogisticRegression, OnlineOptions,
    Perceptron, Schedule,
};
use std::hint::black_box;
use std::time::Duration;

/// Rows of a subset, hiding its CSR block: learners take their generic, checked path.
struct Generic<'a, X>(&'a X);

impl<X: SparseRows> SparseRows for Generic<'_, X> {
    fn n_rows(&self) -> usize {
        self.0.n_rows()
    }
    fn n_cols(&self) -> usize {
        self.0.n_cols()
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        self.0.row(i)
    }
    fn nnz(&self) -> usize {
        self.0.nnz()
    }
}

fn learners() -> Vec<AnyLearner> {
    vec![
        AnyLearner::Perceptron(Perceptron {
            eta: 1.0,
            bias: Bias::Augmented,
            schedule: Schedule::Epochs(1),
            shuffle: Some(1),
        }),
        AnyLearner::AveragedPerceptron(AveragedPerceptron {
            online: OnlineOptions {
                epochs: 1,
                ..OnlineOptions::default()
            },
        }),
        AnyLearner::Logistic(LogisticRegression {
            epochs: 1,
            ..LogisticRegression::default()
        }),
    ]
}

fn fold_epochs(c: &mut Criterion) {
    let (x, y) = zipf_rows(200_000, 50_000, 120, 42);
    let split = kfold(x.n_rows(), 5, 42).unwrap().swap_remove(0);
    let train_y: Vec<i8> = split.train.iter().map(|&i| y[i]).collect();
    let view = RowSubset::new(&x, &split.train);
    assert!(
        view.csr().is_some(),
        "a view of CSR rows keeps the fast path"
    );
    let mut g = c.benchmark_group("fold_zipf_50000");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(view.nnz() as u64));
    g.bench_function("copy_rows", |b| {
        b.iter(|| black_box(select_rows(&x, &split.train)))
    });
    for l in learners() {
        let l = l.check().unwrap();
        let copied = l.fit(&select_rows(&x, &split.train), &train_y[..]).unwrap();
        let on_view = l.fit(&view, &train_y[..]).unwrap();
        let generic = l.fit(&Generic(&view), &train_y[..]).unwrap();
        assert_eq!(on_view.model, copied.model, "{}: view", l.name());
        assert_eq!(generic.model, copied.model, "{}: generic", l.name());
        assert_eq!(on_view.report.updates, copied.report.updates);
        g.bench_function(format!("{}/view", l.name()), |b| {
            b.iter(|| black_box(l.fit(&view, &train_y[..]).unwrap().model))
        });
        g.bench_function(format!("{}/copy", l.name()), |b| {
            b.iter(|| {
                let m = select_rows(&x, &split.train);
                black_box(l.fit(&m, &train_y[..]).unwrap().model)
            })
        });
        g.bench_function(format!("{}/generic", l.name()), |b| {
            b.iter(|| black_box(l.fit(&Generic(&view), &train_y[..]).unwrap().model))
        });
    }
    g.finish();
}

criterion_group!(benches, fold_epochs);
criterion_main!(benches);
