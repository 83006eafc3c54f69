//! One-vs-rest for the additive online learners (averaged and margin perceptrons, PA-I)
//! with every class trained in the same pass over the rows. The weights of a block of
//! classes are stored feature-major (a feature's class weights side by side), so the
//! scores of all the block's classes for a row are a sum of contiguous vectors, one per
//! nonzero (SIMD-friendly), instead of one gather-dot per class. Updates touch only the
//! row's nonzeros of the classes that need them. Blocks of classes run in parallel.
//!
//! Every class visits the rows in the same seeded order its own binary fit would, so the
//! models equal the ones [`crate::learn::online::train_online`] fits class by class.
//!
//! The same pass fits a two-class model beside the fold models of its cross-validation
//! ([`fit_online_folds`]): each fold model learns from the rows outside its fold, met in
//! the order the model of every row meets them, so the rows are read once per epoch for
//! all of them.

use crate::Result;
use crate::features::{SparseRows, ops};
use crate::learn::online::{OnlineOptions, epoch_order_in};
use crate::learn::step::Rule;
use crate::learn::{Fitted, Label, LinearModel, TrainReport, check_binary};
use rayon::prelude::*;

/// How many nonzeros ahead of the one being added a row's weights are fetched (measured
/// on Reuters' 90 classes: 6 took a third off the fit; 10 and more, less).
const AHEAD: usize = 6;

/// Classes per block: enough blocks to keep every thread busy, at most 32 classes each.
pub(super) fn block_size(k: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    let blocks = k.div_ceil(32).max(threads).div_ceil(threads) * threads;
    k.div_ceil(blocks).max(1)
}

/// Which rows each model of a block learns from: every row, or every row but those of
/// the fold the model leaves out.
#[derive(Clone, Copy)]
struct Members<'a> {
    /// The fold of each row; empty when no model leaves a fold out.
    fold_of_row: &'a [u8],
    /// Per model, the fold it leaves out.
    held_out: &'a [Option<u8>],
}

impl Members<'_> {
    /// Whether model `c` learns from row `i`.
    #[inline]
    fn learns(&self, c: usize, i: usize) -> bool {
        self.held_out[c].is_none() || self.held_out[c] != self.fold_of_row.get(i).copied()
    }
}

/// Fits `k` binary problems (labels `y[c]`) with one online rule and checked options,
/// blocks of classes in parallel, every class of a block in one pass over the rows.
pub(crate) fn fit_online_ovr<X: SparseRows>(
    x: &X,
    y: &[Vec<Label>],
    opt: &OnlineOptions,
    rule: Rule,
) -> Result<Vec<Fitted<LinearModel>>> {
    for yc in y {
        check_binary(x, yc)?;
    }
    // Every model learns from every row.
    let held_out = vec![None; y.len()];
    let blocks: Vec<Vec<Fitted<LinearModel>>> = y
        .par_chunks(block_size(y.len()))
        .map(|ys| {
            let members = Members {
                fold_of_row: &[],
                held_out: &held_out[..ys.len()],
            };
            fit_block(x, ys, members, opt, rule)
        })
        .collect();
    Ok(blocks.into_iter().flatten().collect())
}

/// Fits one two-class model (labels `y`) per fold of `fold_of_row` (folds 0 to `folds`
/// − 1), each on the rows outside its fold, all of them in one pass over the rows per
/// epoch, in fold order. Each meets its rows in the order the model of every row meets
/// them (so without shuffling it is the model its rows alone would fit), and they share
/// one block: a nonzero's weights of every fold model are one contiguous run.
pub(crate) fn fit_online_folds<X: SparseRows>(
    x: &X,
    y: &[Label],
    fold_of_row: &[u8],
    folds: u8,
    opt: &OnlineOptions,
    rule: Rule,
) -> Result<Vec<Fitted<LinearModel>>> {
    check_binary(x, y)?;
    assert_eq!(fold_of_row.len(), x.n_rows(), "one fold per row");
    let held_out: Vec<Option<u8>> = (0..folds).map(Some).collect();
    let ys = vec![y.to_vec(); held_out.len()];
    let members = Members {
        fold_of_row,
        held_out: &held_out,
    };
    Ok(fit_block(x, &ys, members, opt, rule))
}

/// Fits one block of classes. On x86-64 processors with AVX the same loop runs eight
/// classes at a time instead of four: each class's sums take the same steps in the same
/// order, so the models are the same bits.
fn fit_block<X: SparseRows>(
    x: &X,
    y: &[Vec<Label>],
    members: Members<'_>,
    opt: &OnlineOptions,
    rule: Rule,
) -> Vec<Fitted<LinearModel>> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the processor has AVX, checked just above.
        return unsafe { fit_block_avx(x, y, members, opt, rule) };
    }
    fit_block_portable(x, y, members, opt, rule)
}

/// [`fit_block`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn fit_block_avx<X: SparseRows>(
    x: &X,
    y: &[Vec<Label>],
    members: Members<'_>,
    opt: &OnlineOptions,
    rule: Rule,
) -> Vec<Fitted<LinearModel>> {
    fit_block_portable(x, y, members, opt, rule)
}

/// [`fit_block`] for any processor (inlined into the AVX version).
#[inline(always)]
fn fit_block_portable<X: SparseRows>(
    x: &X,
    y: &[Vec<Label>],
    members: Members<'_>,
    opt: &OnlineOptions,
    rule: Rule,
) -> Vec<Fitted<LinearModel>> {
    let (k, d, n) = (y.len(), x.n_cols(), x.n_rows());
    let mut w = vec![0f32; d * k];
    let mut u = vec![0f64; if opt.average { d * k } else { 0 }];
    let (mut b, mut ub) = (vec![0f32; k], vec![0f64; k]);
    let mut s = vec![0f32; k];
    let extra = if opt.bias { 1.0 } else { 0.0 };
    let mut reports = vec![TrainReport::default(); k];
    let mut done = vec![false; k];
    let mut order: Vec<usize> = (0..n).collect();
    let mut vals: Vec<(u32, f32)> = Vec::new();
    // Each model's visits so far (the averaging's clock), and this epoch's.
    let mut t = vec![0u64; k];
    let mut visits = vec![0u64; k];
    crate::learn::progress::plan(opt.epochs);
    for epoch in 0..opt.epochs {
        crate::learn::progress::epoch_begun();
        epoch_order_in(&mut order, opt.shuffle, epoch, x.shuffle_block());
        let mut mistakes = vec![0u64; k];
        let mut updates = vec![0u64; k];
        visits.iter_mut().for_each(|v| *v = 0);
        for (at, &i) in order.iter().enumerate() {
            let row = x.row(i);
            s.iter_mut().for_each(|a| *a = 0.0);
            // The weights of the nonzero `AHEAD` places on (in this row or the next) are
            // fetched while this one's are added: a row's features are scattered over the
            // block, and waiting for each in turn costs more than the sums.
            let next = order.get(at + 1).map(|&r| x.row(r).ids).unwrap_or(&[]);
            crate::hint::prefetch(next);
            let ahead = |n: usize| {
                let p = row
                    .ids
                    .get(n + AHEAD)
                    .or_else(|| next.get(n + AHEAD - row.ids.len()));
                if let Some(&p) = p {
                    crate::hint::prefetch(&w[p as usize * k..(p as usize + 1) * k]);
                }
            };
            if row.is_binary() {
                for (n, &j) in row.ids.iter().enumerate() {
                    ahead(n);
                    let wj = &w[j as usize * k..(j as usize + 1) * k];
                    s.iter_mut().zip(wj).for_each(|(a, &v)| *a += v);
                }
            } else {
                for (n, (j, v)) in row.iter().enumerate() {
                    ahead(n);
                    let wj = &w[j as usize * k..(j as usize + 1) * k];
                    s.iter_mut().zip(wj).for_each(|(a, &wv)| *a += v * wv);
                }
            }
            // The bias last, as the class-by-class loop adds it.
            s.iter_mut().zip(&b).for_each(|(a, &bc)| *a += bc);
            let q = ops::nrm2_sq(row) + extra;
            // The row's values, read once for all the classes it updates.
            vals.clear();
            for c in 0..k {
                if !members.learns(c, i) {
                    continue;
                }
                // A model's clock counts every row it learns from, converged or not.
                let tc = t[c];
                t[c] += 1;
                visits[c] += 1;
                if done[c] {
                    continue;
                }
                let yc = f32::from(y[c][i]);
                let m = yc * s[c];
                mistakes[c] += u64::from(m <= 0.0);
                let mut tau = rule.step(m, q);
                if yc > 0.0 {
                    tau *= opt.positive_weight;
                }
                if tau <= 0.0 {
                    continue;
                }
                let step = tau * yc;
                let acc = tc as f64 * f64::from(step);
                if vals.is_empty() {
                    vals.extend(row.iter());
                }
                for &(j, v) in &vals {
                    let at = j as usize * k + c;
                    w[at] += step * v;
                    if opt.average {
                        u[at] += acc * f64::from(v);
                    }
                }
                if opt.bias {
                    b[c] += step;
                    ub[c] += acc;
                }
                updates[c] += 1;
            }
        }
        for c in 0..k {
            if done[c] {
                continue;
            }
            let r = &mut reports[c];
            r.epochs += 1;
            r.updates += updates[c];
            r.steps += visits[c];
            r.mistakes_per_epoch.push(mistakes[c]);
            if updates[c] == 0 && !opt.average {
                r.converged = Some(true);
                done[c] = true;
            }
        }
    }
    // Read out feature-major, as the weights are stored: one pass over w (and u), k
    // output streams, instead of k strided passes.
    let averaged = |c: usize| opt.average && t[c] > 0;
    let mut ws: Vec<Vec<f32>> = (0..k).map(|_| Vec::with_capacity(d)).collect();
    for (j, wj) in w.chunks_exact(k).enumerate() {
        for (c, (out, &v)) in ws.iter_mut().zip(wj).enumerate() {
            out.push(if averaged(c) {
                (f64::from(v) - u[j * k + c] / t[c] as f64) as f32
            } else {
                v
            });
        }
    }
    ws.into_iter()
        .enumerate()
        .map(|(c, wc)| {
            let bc = if averaged(c) {
                (f64::from(b[c]) - ub[c] / t[c] as f64) as f32
            } else {
                b[c]
            };
            Fitted {
                model: LinearModel {
                    w: wc.into(),
                    bias: bc,
                },
                report: std::mem::take(&mut reports[c]),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::synthetic::zipf_rows;
    use crate::features::{Geometry, GeometrySpec};

    /// The processor's fastest path (AVX where there is one) fits the same bits as the
    /// portable loop, averaged or not, on rows scattered over thousands of features.
    #[test]
    fn the_fast_path_fits_the_portable_bits() {
        let (x, y) = zipf_rows(600, 3_000, 20, 7);
        let ys: Vec<Vec<Label>> = (0..5)
            .map(|c| {
                y.iter()
                    .enumerate()
                    .map(|(i, &l)| if (i + c) % 3 == 0 { l } else { -l })
                    .collect()
            })
            .collect();
        for average in [true, false] {
            let opt = OnlineOptions {
                epochs: 3,
                average,
                ..OnlineOptions::default()
            };
            let rule = Rule::PassiveAggressive { c: 0.3 };
            let check = |fast: Vec<Fitted<LinearModel>>, portable: Vec<Fitted<LinearModel>>| {
                for (f, p) in fast.iter().zip(&portable) {
                    assert_eq!(f.model, p.model);
                    assert_eq!(f.report.updates, p.report.updates);
                }
            };
            // Binary rows, and the same rows idf-weighted and scaled to length 1; every
            // row learned, and rows of a fold left out by some of the models.
            let folds: Vec<u8> = (0..600).map(|i| (i % 3) as u8).collect();
            let all = [None; 5];
            let some = [None, Some(0), Some(1), None, Some(2)];
            for (fold_of_row, held_out) in [(&[][..], &all), (&folds[..], &some)] {
                let m = Members {
                    fold_of_row,
                    held_out,
                };
                check(
                    fit_block(&x, &ys, m, &opt, rule),
                    fit_block_portable(&x, &ys, m, &opt, rule),
                );
                let w = Geometry::fit(GeometrySpec::IDF_L2, &x);
                let wx = w.apply(&x);
                check(
                    fit_block(&wx, &ys, m, &opt, rule),
                    fit_block_portable(&wx, &ys, m, &opt, rule),
                );
            }
        }
    }

    /// Without shuffling each fold model fitted in the one pass is the model its training
    /// rows alone fit, bit for bit, averaged or not, with PA's step and the perceptron's;
    /// shuffled, each learns from its own rows only (as many visits) and differs.
    #[test]
    fn fold_models_in_one_pass_are_the_models_of_their_rows() {
        use crate::features::RowSubset;
        let (x, y) = zipf_rows(500, 2_000, 15, 3);
        let folds = 4u8;
        let fold_of_row: Vec<u8> = (0..500).map(|i| ((i * 7) % 4) as u8).collect();
        for (average, shuffle, rule) in [
            (true, false, Rule::PassiveAggressive { c: 0.3 }),
            (false, false, Rule::Perceptron),
            (true, true, Rule::PassiveAggressive { c: 0.3 }),
        ] {
            let opt = OnlineOptions {
                epochs: 3,
                average,
                shuffle: shuffle.then_some(7),
                ..OnlineOptions::default()
            };
            let fits = fit_online_folds(&x, &y, &fold_of_row, folds, &opt, rule).unwrap();
            assert_eq!(fits.len(), folds as usize);
            for f in 0..folds {
                let rows: Vec<usize> = (0..500).filter(|&i| fold_of_row[i] != f).collect();
                let yf: Vec<Label> = rows.iter().map(|&i| y[i]).collect();
                let sub = RowSubset::new(&x, &rows);
                let own = fit_online_ovr(&sub, std::slice::from_ref(&yf), &opt, rule).unwrap();
                let fit = &fits[f as usize];
                assert_eq!(fit.report.steps, own[0].report.steps, "fold {f}");
                assert_eq!(fit.model == own[0].model, !shuffle, "fold {f}");
            }
        }
    }
}
