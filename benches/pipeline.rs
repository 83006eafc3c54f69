//! The pipeline's throughput: tokenizing (MB/s) and vectorizing (docs/s, MB/s) Reuters-21578
//! and SpamAssassin text, every linear learner's epoch (nonzeros/s) on synthetic Zipf-shaped
//! rows (200,000 × ≈120 nonzeros, 50k and 1M features, the shape the bare-loop yardstick
//! times) and on real vectors, and parallel scoring at 1 and 2 threads.
//!
//! Each bench checks a count against an independent computation before timing, so a fast
//! but wrong change fails: tokens against the Unicode reference path, nonzeros against the
//! two-pass vectorizer, perceptron updates against a bare loop, parallel scores against
//! sequential ones.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rosenblatt::eval::{scores, scores_sequential};
use rosenblatt::features::synthetic::zipf_rows;
use rosenblatt::features::{
    BinaryMatrix, StreamVectorizer, TermCounts, vectorize, vectorize_counted, vectorize_scalar,
};
use rosenblatt::input::Document;
use rosenblatt::learn::{
    AnyLearner, AveragedPerceptron, Bias, Check, Checked, Label, Learner, LogisticRegression,
    MarginPerceptron, OnlineOptions, PassiveAggressive, Perceptron, Schedule, Winnow,
};
use rosenblatt::text::{Analyzer, Tokenizer};
use rosenblatt::training::fit_vocab;
use rosenblatt::vocab::VocabConfig;
use rosenblatt::{Classifier, SparseRows};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn corpus(name: &str) -> Vec<Document> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora");
    match name {
        "reuters" => {
            rosenblatt::input::read_reuters(&root.join("reuters21578"), None)
                .expect("Reuters-21578 in corpora/")
                .docs
        }
        _ => {
            let spam = [root.join("spamassassin/spam")];
            let ham = [root.join("spamassassin/ham")];
            rosenblatt::input::mail::read_labelled(&spam, &ham, &Default::default())
                .expect("SpamAssassin in corpora/")
                .corpus
                .docs
        }
    }
}

fn text_bytes(docs: &[Document]) -> u64 {
    docs.iter()
        .map(|d| d.text.len() + d.fields.iter().map(|(_, t)| t.len()).sum::<usize>())
        .sum::<usize>() as u64
}

fn tokenize_and_vectorize(c: &mut Criterion) {
    let analyzer = Analyzer::default();
    let words = analyzer.words();
    for name in ["reuters", "spamassassin"] {
        let docs = corpus(name);
        let bytes = text_bytes(&docs);
        // The count: the mixed ASCII/Unicode path yields exactly the reference tokens.
        let (mut fast, mut reference, mut scalar) = (0usize, 0usize, 0usize);
        for d in &docs {
            words.tokens(&d.text, &mut |_| fast += 1);
            words.tokens_unicode(&d.text, &mut |_| reference += 1);
            words.tokens_scalar(&d.text, &mut |_| scalar += 1);
        }
        assert_eq!(
            fast, scalar,
            "{name}: token counts differ from the scalar path"
        );
        assert_eq!(
            fast, reference,
            "{name}: token counts differ from the Unicode path"
        );
        let two_pass_nnz = {
            let v = fit_vocab(&analyzer, &VocabConfig::default(), &docs);
            vectorize(&analyzer, &v, &docs).matrix.nnz()
        };
        let mut g = c.benchmark_group(format!("text_{name}"));
        g.sample_size(10).measurement_time(Duration::from_secs(5));
        g.throughput(Throughput::Bytes(bytes));
        g.bench_function("tokenize", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for d in &docs {
                    words.tokens(&d.text, &mut |_| n += 1);
                }
                assert_eq!(n, fast);
            })
        });
        g.bench_function("tokenize_scalar", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for d in &docs {
                    words.tokens_scalar(&d.text, &mut |_| n += 1);
                }
                assert_eq!(n, fast);
            })
        });
        // Tokenize + vectorize against a vocabulary on one thread (`classify`, `eval`): the
        // block scanner beside the byte-at-a-time path it replaced, in the same run, after
        // checking that both give the same rows.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let vocab = fit_vocab(&analyzer, &VocabConfig::default(), &docs);
        let scanned = one.install(|| vectorize(&analyzer, &vocab, &docs));
        let scalar = one.install(|| vectorize_scalar(&analyzer, &vocab, &docs));
        assert_eq!(scanned.matrix, scalar.matrix, "{name}: rows differ");
        assert_eq!(scanned.unknown_tokens, scalar.unknown_tokens);
        for (label, path) in [
            (
                "tokenize_vectorize_scalar",
                vectorize_scalar as fn(&_, &_, &_) -> _,
            ),
            ("tokenize_vectorize_scanned", vectorize),
        ] {
            g.bench_function(label, |b| {
                b.iter(|| {
                    let v = one.install(|| path(&analyzer, &vocab, &docs));
                    assert_eq!(v.matrix.nnz(), two_pass_nnz);
                })
            });
        }
        // Rows with term counts (`--term-counts sublinear`): every token's id, then counted.
        g.bench_function("tokenize_vectorize_counted", |b| {
            b.iter(|| {
                let (m, _) = one
                    .install(|| vectorize_counted(&analyzer, &vocab, &docs, TermCounts::Sublinear));
                assert_eq!(m.nnz(), two_pass_nnz);
            })
        });
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            g.bench_function(BenchmarkId::new("vectorize_train", threads), |b| {
                b.iter(|| {
                    let (_, x) = pool.install(|| {
                        let mut s = StreamVectorizer::new(analyzer.clone());
                        s.push(&docs);
                        s.finish(&VocabConfig::default())
                    });
                    assert_eq!(x.nnz(), two_pass_nnz);
                })
            });
        }
        g.finish();
        let mut g = c.benchmark_group(format!("docs_{name}"));
        g.sample_size(10).measurement_time(Duration::from_secs(5));
        g.throughput(Throughput::Elements(docs.len() as u64));
        let v = fit_vocab(&analyzer, &VocabConfig::default(), &docs);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            g.bench_function(BenchmarkId::new("vectorize_frozen", threads), |b| {
                b.iter(|| {
                    assert_eq!(
                        pool.install(|| vectorize(&analyzer, &v, &docs))
                            .matrix
                            .nnz(),
                        two_pass_nnz
                    )
                })
            });
        }
        g.finish();
    }
}

/// The bare loop the perceptron must match: its mistakes are our updates.
fn bare_mistakes(x: &BinaryMatrix, y: &[Label], epochs: usize) -> u64 {
    let mut w = vec![0f32; x.cols()];
    let mut m = 0;
    for _ in 0..epochs {
        for (i, &yi) in y.iter().enumerate() {
            let r = x.row(i).ids;
            let s: f32 = r.iter().map(|&j| w[j as usize]).sum();
            if f32::from(yi) * s <= 0.0 {
                m += 1;
                for &j in r {
                    w[j as usize] += f32::from(yi);
                }
            }
        }
    }
    m
}

fn learners() -> Vec<Checked<AnyLearner>> {
    let online = OnlineOptions {
        epochs: 1,
        shuffle: None,
        average: true,
        ..OnlineOptions::default()
    };
    vec![
        AnyLearner::Perceptron(Perceptron {
            eta: 1.0,
            bias: Bias::None,
            schedule: Schedule::Epochs(1),
            shuffle: None,
        }),
        AnyLearner::AveragedPerceptron(AveragedPerceptron { online }),
        AnyLearner::MarginPerceptron(MarginPerceptron {
            online,
            ..MarginPerceptron::default()
        }),
        AnyLearner::PassiveAggressive(PassiveAggressive {
            online,
            ..PassiveAggressive::default()
        }),
        AnyLearner::Winnow(Winnow {
            epochs: 1,
            shuffle: None,
            ..Winnow::default()
        }),
        AnyLearner::Logistic(LogisticRegression {
            epochs: 1,
            ..LogisticRegression::default()
        }),
    ]
    .into_iter()
    .map(|l| l.check().unwrap())
    .collect()
}

fn epochs_on(c: &mut Criterion, group: &str, x: &BinaryMatrix, y: &[Label]) {
    let p = Perceptron {
        eta: 1.0,
        bias: Bias::None,
        schedule: Schedule::Epochs(1),
        shuffle: None,
    }
    .check()
    .unwrap();
    assert_eq!(
        p.fit(x, y).unwrap().report.updates,
        bare_mistakes(x, y, 1),
        "{group}: perceptron updates"
    );
    let mut g = c.benchmark_group(group);
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(x.nnz() as u64));
    for l in learners() {
        let expected = l.fit(x, y).unwrap().report;
        g.bench_function(l.name(), |b| {
            b.iter(|| {
                let f = l.fit(x, y).unwrap();
                assert_eq!(f.report.updates, expected.updates);
                black_box(f.model)
            })
        });
    }
    g.finish();
}

fn learner_epochs(c: &mut Criterion) {
    for features in [50_000, 1_000_000] {
        let (x, y) = zipf_rows(200_000, features, 120, 42);
        epochs_on(c, &format!("epoch_zipf_{features}"), &x, &y);
    }
    let docs = corpus("spamassassin");
    let analyzer = Analyzer::default();
    let v = fit_vocab(&analyzer, &VocabConfig::default(), &docs);
    let x = vectorize(&analyzer, &v, &docs).matrix;
    let y: Vec<Label> = docs
        .iter()
        .map(|d| if d.labels[0] == "spam" { 1 } else { -1 })
        .collect();
    epochs_on(c, "epoch_spamassassin", &x, &y);
}

fn parallel_scoring(c: &mut Criterion) {
    let (x, y) = zipf_rows(200_000, 50_000, 120, 42);
    let p = Perceptron {
        eta: 1.0,
        bias: Bias::Augmented,
        schedule: Schedule::Epochs(2),
        shuffle: None,
    }
    .check()
    .unwrap();
    let m = p.fit(&x, &y).unwrap().model;
    let reference = scores_sequential(&m, &x);
    let mut g = c.benchmark_group("score_zipf_50000");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(x.nnz() as u64));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| scores(&m, &x)), reference);
        g.bench_function(BenchmarkId::from_parameter(threads), |b| {
            b.iter(|| black_box(pool.install(|| scores(&m, &x))))
        });
    }
    g.finish();
    let _ = m.score(x.row(0));
}

criterion_group!(
    benches,
    tokenize_and_vectorize,
    learner_epochs,
    parallel_scoring
);
criterion_main!(benches);
