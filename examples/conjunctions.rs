//! The seed lecture's mistake-bound study: k-literal conjunctions over {−1, 1}^d.
//!
//! A conjunction of k literals is linearly separable: with u = ±1 on its literals,
//! u·x − (k − 1) is 1 when all k hold and at most −1 otherwise. Folding the bias in as a
//! constant feature, that separator has margin 1/√(k + (k − 1)²) and the rows have radius
//! √(d + 1), so Novikoff bounds the perceptron's mistakes by (d + 1)(k² − k + 1); the
//! lecture states the looser d(2k² − 2k + 1). Both grow linearly with d. Winnow's bound
//! grows with k·log d instead, which the table shows beside the perceptron's counts.
//! XOR, the smallest inseparable set, makes the perceptron err in every epoch forever,
//! while the kernel perceptron with (x·z + 1)² separates it.
//!
//! Run with `cargo run --release --example conjunctions`.

use rand::{Rng, SeedableRng};
use rosenblatt::features::real_from_dense;
use rosenblatt::learn::{
    AnyLearner, Bias, Check, Kernel, KernelPerceptron, Label, Learner, Perceptron, Schedule, Winnow,
};
use rosenblatt::theory;

/// Examples drawn per (d, k).
const M: usize = 2000;

/// `M` uniform points of {−1, 1}^d labelled by the conjunction of literals `lits`
/// (feature index, required sign). Half the draws are forced positive so both classes
/// are well represented whatever k is.
fn sample(d: usize, lits: &[(usize, f32)], rng: &mut impl Rng) -> (Vec<Vec<f32>>, Vec<Label>) {
    let (mut xs, mut ys) = (Vec::with_capacity(M), Vec::with_capacity(M));
    for n in 0..M {
        let mut x: Vec<f32> = (0..d)
            .map(|_| if rng.r#gen::<bool>() { 1.0 } else { -1.0 })
            .collect();
        if n % 2 == 0 {
            for &(j, s) in lits {
                x[j] = s;
            }
        }
        let pos = lits.iter().all(|&(j, s)| x[j] == s);
        xs.push(x);
        ys.push(if pos { 1 } else { -1 });
    }
    (xs, ys)
}

fn main() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2024);
    let schedule = Schedule::UntilConvergence { max_epochs: 1000 };
    println!("k-literal conjunctions over {{-1,1}}^d, {M} random examples each");
    println!("(perceptron: augmented bias, epochs until one makes no mistake)\n");
    println!(
        "{:>4} {:>2} | {:>10} {:>6} {:>12} {:>14} {:>14} | {:>7}",
        "d", "k", "perceptron", "epochs", "(R/γ)² learnt", "(d+1)(k²-k+1)", "d(2k²-2k+1)", "winnow"
    );
    for &d in &[8usize, 16, 32, 64, 128, 256] {
        for k in 1..=3usize {
            // The first k features, with alternating signs, are the literals.
            let lits: Vec<(usize, f32)> = (0..k)
                .map(|j| (j * (d / k), if j % 2 == 0 { 1.0 } else { -1.0 }))
                .collect();
            let (xs, y) = sample(d, &lits, &mut rng);
            let x = real_from_dense(&xs);
            let p = Perceptron {
                eta: 1.0,
                bias: Bias::Augmented,
                schedule,
                shuffle: None,
            }
            .check()
            .expect("valid perceptron");
            let fit = p.fit(&x, &y).expect("two labels");
            let any = rosenblatt::learn::AnyModel::Linear(fit.model);
            let th = theory::diagnose_any(
                &any,
                &AnyLearner::Perceptron(*p),
                &x,
                &y,
                Some(fit.report.updates),
            )
            .expect("a linear model");
            let learnt = th
                .novikoff_bound
                .map_or("not separated".to_string(), |b| format!("{b:.0}"));
            let winnow = Winnow {
                epochs: 200,
                shuffle: None,
                ..Winnow::default()
            }
            .check()
            .expect("valid winnow");
            let mut w_mistakes = 0u64;
            winnow
                .fit_counting(&x, &y, || w_mistakes += 1)
                .expect("two labels");
            println!(
                "{d:>4} {k:>2} | {:>10} {:>6} {:>12} {:>14} {:>14} | {:>7}",
                fit.report.updates,
                fit.report.epochs,
                learnt,
                (d + 1) * (k * k - k + 1),
                d * (2 * k * k - 2 * k + 1),
                w_mistakes
            );
        }
    }

    println!("\nXOR: x = (1,1), (-1,-1) positive; (1,-1), (-1,1) negative");
    let x = real_from_dense(&[vec![1., 1.], vec![-1., -1.], vec![1., -1.], vec![-1., 1.]]);
    let y = vec![1, 1, -1, -1];
    for bias in [Bias::None, Bias::Augmented, Bias::R2] {
        let fit = Perceptron {
            eta: 1.0,
            bias,
            schedule: Schedule::UntilConvergence { max_epochs: 1000 },
            shuffle: None,
        }
        .check()
        .expect("valid perceptron")
        .fit(&x, &y)
        .expect("two labels");
        let never_clean = fit.report.mistakes_per_epoch.iter().all(|&m| m > 0);
        println!(
            "  perceptron, bias {bias:?}: {} epochs, {} mistakes, converged: {}, a mistake in every epoch: {never_clean}",
            fit.report.epochs,
            fit.report.updates,
            fit.report.converged == Some(true)
        );
    }
    let fit = KernelPerceptron {
        kernel: Kernel::Polynomial {
            degree: 2,
            coef0: 1.0,
        },
        schedule: Schedule::UntilConvergence { max_epochs: 1000 },
        shuffle: None,
        ..Default::default()
    }
    .check()
    .expect("valid kernel perceptron")
    .fit(&x, &y)
    .expect("two labels");
    println!(
        "  kernel perceptron, (x·z + 1)²: converged after {} mistakes in {} epochs, α = {:?}",
        fit.report.updates, fit.report.epochs, fit.model.alpha
    );
}
