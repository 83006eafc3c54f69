//! One-vs-rest logistic regression with every class trained in the same pass over the
//! rows: the classes' weights stored class-blocked (a feature's class weights side by
//! side), so a row's scores for every class are one walk over its nonzeros, and its
//! gradient step for every class a second one, each adding contiguous runs of class
//! weights. Class by class, the same row costs a gather-dot and a scatter per class.
//!
//! Each class takes exactly the steps its own binary fit would (the same held-out rows,
//! visiting order, rates, lazy L2 scale and sums in the same order), so the models are the
//! ones [`crate::learn::LogisticRegression`] fits class by class, bit for bit.

use super::blocked::dots;
use super::ovr_online::block_size;
use crate::Result;
use crate::features::{RowRef, SparseRows};
use crate::learn::logistic::{BestEpoch, Scaled, held_out_loss};
use crate::learn::online::epoch_order_in;
use crate::learn::{Fitted, Label, LinearModel, LogisticRegression, Solver, TrainReport};
use crate::learn::{check_binary, progress};
use rayon::prelude::*;

/// The most gradient coefficients a step holds at once (rows per step × classes): 16 MiB.
/// A batch solver over more rows fits class by class instead.
const COEFFICIENTS: usize = 1 << 22;

/// Whether `k` classes of `l` over `n` rows are fitted in one pass (see [`COEFFICIENTS`]).
pub(crate) fn in_one_pass(l: &LogisticRegression, n: usize, k: usize) -> bool {
    l.solver.rows_per_step(n).saturating_mul(k) <= COEFFICIENTS
}

/// Fits `k` binary problems (labels `y[c]`) with checked logistic options, blocks of
/// classes in parallel, every class of a block in one pass over the rows per epoch.
pub(crate) fn fit_logistic_ovr<X: SparseRows>(
    x: &X,
    y: &[Vec<Label>],
    l: &LogisticRegression,
) -> Result<Vec<Fitted<LinearModel>>> {
    for yc in y {
        check_binary(x, yc)?;
    }
    let (rows, held) = l.split_rows(x.n_rows())?;
    let split = Split { rows, held };
    let blocks: Vec<Vec<Fitted<LinearModel>>> = y
        .par_chunks(block_size(y.len()))
        .map(|ys| fit_block(x, ys, l, &split))
        .collect();
    Ok(blocks.into_iter().flatten().collect())
}

/// The rows trained on and those held out for early stopping (none without it).
struct Split {
    rows: Vec<usize>,
    held: Vec<usize>,
}

/// Fits one block of classes. On x86-64 processors with AVX the same loop runs eight
/// classes at a time instead of four: each class's sums take the same steps in the same
/// order, so the models are the same bits.
fn fit_block<X: SparseRows>(
    x: &X,
    y: &[Vec<Label>],
    l: &LogisticRegression,
    split: &Split,
) -> Vec<Fitted<LinearModel>> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the processor has AVX, checked just above.
        return unsafe { fit_block_avx(x, y, l, split) };
    }
    fit_block_portable(x, y, l, split)
}

/// [`fit_block`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn fit_block_avx<X: SparseRows>(
    x: &X,
    y: &[Vec<Label>],
    l: &LogisticRegression,
    split: &Split,
) -> Vec<Fitted<LinearModel>> {
    fit_block_portable(x, y, l, split)
}

/// A block's state: the class-blocked weights `v` (feature j's weight of class c at
/// `j·k + c`, the true weight being `s[c]·v`, as `Scaled` keeps one class's), the
/// biases, and each class's early-stopping record.
struct Block {
    k: usize,
    v: Vec<f32>,
    s: Vec<f32>,
    b: Vec<f32>,
    reports: Vec<TrainReport>,
    best: Vec<BestEpoch>,
    /// Rows visited by each class when it stopped (its report's steps).
    stopped_at: Vec<Option<u64>>,
}

impl Block {
    fn active(&self, c: usize) -> bool {
        self.stopped_at[c].is_none()
    }

    /// `w ← f·w` for class `c`, folding its scale into its weights when it gets small,
    /// as `Scaled::shrink` does.
    fn shrink(&mut self, c: usize, f: f32) {
        self.s[c] *= f;
        if self.s[c] < Scaled::FOLD_BELOW {
            let (k, s) = (self.k, self.s[c]);
            self.v.iter_mut().skip(c).step_by(k).for_each(|v| *v *= s);
            self.s[c] = 1.0;
        }
    }

    /// `w ← w + a[c]·x` for every class `c` that takes a step (`on[c]`), as `Scaled::add`
    /// and `ops::axpy` take it: `a[c]/s[c]`, times the row's scale for a uniform row. The
    /// others are left untouched (adding 0 would turn a −0 weight into +0). `a` is
    /// overwritten. The class weights of `next`'s features (the row scored next) are
    /// fetched meanwhile, one per feature added: scoring waits on them otherwise.
    #[inline(always)]
    fn add(&mut self, row: RowRef<'_>, a: &mut [f32], on: &[bool], next: &[u32]) {
        let k = self.k;
        let every = on.iter().all(|&o| o);
        for (ac, &sc) in a.iter_mut().zip(&self.s) {
            *ac /= sc;
        }
        let fetch = |v: &[f32], j: Option<&u32>| {
            if let Some(&j) = j {
                crate::hint::prefetch(&v[j as usize * k..(j as usize + 1) * k]);
            }
        };
        if row.is_uniform() {
            for ac in a.iter_mut() {
                *ac *= row.scale;
            }
            for (n, &j) in row.ids.iter().enumerate() {
                fetch(&self.v, next.get(n));
                let wj = &mut self.v[j as usize * k..(j as usize + 1) * k];
                if every {
                    wj.iter_mut().zip(&*a).for_each(|(w, &ac)| *w += ac);
                } else {
                    for ((w, &ac), _) in wj.iter_mut().zip(&*a).zip(on).filter(|(_, o)| **o) {
                        *w += ac;
                    }
                }
            }
        } else {
            for (n, (j, x)) in row.iter().enumerate() {
                fetch(&self.v, next.get(n));
                let wj = &mut self.v[j as usize * k..(j as usize + 1) * k];
                for ((w, &ac), _) in wj.iter_mut().zip(&*a).zip(on).filter(|(_, o)| **o) {
                    *w += ac * x;
                }
            }
        }
        for j in next.iter().skip(row.ids.len()) {
            fetch(&self.v, Some(j));
        }
    }

    /// Class `c`'s weights as `Scaled::to_vec` reads them out.
    fn model(&self, c: usize) -> LinearModel {
        LinearModel {
            w: self
                .v
                .iter()
                .skip(c)
                .step_by(self.k)
                .map(|v| v * self.s[c])
                .collect(),
            bias: self.b[c],
        }
    }
}

/// [`fit_block`] for any processor (inlined into the AVX version): `Learner::fit` of
/// [`LogisticRegression`], every class at once.
#[inline(always)]
fn fit_block_portable<X: SparseRows>(
    x: &X,
    y: &[Vec<Label>],
    l: &LogisticRegression,
    split: &Split,
) -> Vec<Fitted<LinearModel>> {
    let (k, d) = (y.len(), x.n_cols());
    let mut rows = split.rows.clone();
    let n = rows.len();
    let batch = l.solver.rows_per_step(n);
    let shuffle = (l.solver != Solver::Batch).then_some(l.seed);
    let mut st = Block {
        k,
        v: vec![0.0; d * k],
        s: vec![1.0; k],
        b: vec![0.0; k],
        reports: vec![TrainReport::default(); k],
        best: (0..k).map(|_| BestEpoch::default()).collect(),
        stopped_at: vec![None; k],
    };
    let (mut scores, mut acc, mut a) = (vec![0f32; k], Vec::new(), vec![0f32; k]);
    let mut on = vec![false; k];
    let mut coef = vec![0f32; batch * k];
    let mut seen = 0u64;
    progress::plan(l.epochs);
    for epoch in 0..l.epochs {
        if (0..k).all(|c| !st.active(c)) {
            break;
        }
        progress::epoch_begun();
        epoch_order_in(&mut rows, shuffle, epoch, x.shuffle_block());
        let mut mistakes = vec![0u64; k];
        let mut steps = 0u64;
        for (at, chunk) in rows.chunks(batch).enumerate() {
            let eta = l.schedule.rate(l.eta, seen as f32 / n as f32);
            for (r, &i) in chunk.iter().enumerate() {
                dots(&st.v, k, x.row(i), &mut scores, &mut acc);
                for c in (0..k).filter(|&c| st.active(c)) {
                    let yi = f32::from(y[c][i]);
                    let m = yi * (st.s[c] * scores[c] + st.b[c]);
                    mistakes[c] += u64::from(m <= 0.0);
                    let weight = if yi > 0.0 { l.positive_weight } else { 1.0 };
                    coef[r * k + c] = weight * yi / (1.0 + m.exp());
                }
            }
            let step = eta / chunk.len() as f32;
            for c in 0..k {
                if st.active(c) {
                    st.shrink(c, 1.0 - eta * l.l2);
                }
            }
            for (r, &i) in chunk.iter().enumerate() {
                let cr = &coef[r * k..(r + 1) * k];
                for c in 0..k {
                    on[c] = st.active(c) && cr[c] != 0.0;
                    a[c] = step * cr[c];
                    if l.bias && st.active(c) {
                        st.b[c] += step * cr[c];
                    }
                }
                // The row scored next, when it is the next one visited (one row a step).
                let next = match rows.get(at + 1) {
                    Some(&i) if batch == 1 => x.row(i).ids,
                    _ => &[],
                };
                if on.iter().any(|&o| o) {
                    st.add(x.row(i), &mut a, &on, next);
                }
            }
            seen += chunk.len() as u64;
            steps += 1;
        }
        for c in 0..k {
            if !st.active(c) {
                continue;
            }
            let r = &mut st.reports[c];
            r.updates += steps;
            r.epochs += 1;
            r.mistakes_per_epoch.push(mistakes[c]);
            if split.held.is_empty() {
                continue;
            }
            let m = st.model(c);
            let loss = held_out_loss(&m, x, &y[c], &split.held);
            if st.best[c].stops(loss, m, l.patience()) {
                st.reports[c].converged = Some(true);
                st.stopped_at[c] = Some(seen);
            }
        }
    }
    (0..k)
        .map(|c| {
            let mut report = std::mem::take(&mut st.reports[c]);
            report.steps = st.stopped_at[c].unwrap_or(seen);
            if l.early_stopping.is_some() && report.converged.is_none() {
                report.converged = Some(false);
            }
            let model = std::mem::take(&mut st.best[c])
                .into_model()
                .unwrap_or_else(|| st.model(c));
            Fitted { model, report }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::synthetic::zipf_rows;
    use crate::features::{Geometry, GeometrySpec};
    use crate::learn::{Check, EarlyStopping, Learner};

    /// Where two models' bits first differ (−0 and +0 differ), if they do.
    fn first_difference(a: &LinearModel, b: &LinearModel) -> Option<String> {
        if a.bias.to_bits() != b.bias.to_bits() {
            return Some(format!("bias {} against {}", a.bias, b.bias));
        }
        if a.w.len() != b.w.len() {
            return Some(format!("{} weights against {}", a.w.len(), b.w.len()));
        }
        let j =
            a.w.iter()
                .zip(&b.w)
                .position(|(p, q)| p.to_bits() != q.to_bits())?;
        Some(format!("weight {j}: {} against {}", a.w[j], b.w[j]))
    }

    /// Every class fitted in the one pass equals its own binary fit bit for bit, with the
    /// same report: SGD, mini-batches, the batch solver, early stopping (classes stopping
    /// at different epochs), a positive weight, and an L2 strong enough to fold the scale
    /// into the weights; on binary rows and on the same rows idf-weighted and scaled to
    /// length 1. The processor's fastest path fits the portable loop's bits.
    #[test]
    fn one_pass_fits_each_class_as_its_own_fit_does() {
        let (x, y) = zipf_rows(300, 2_000, 15, 3);
        let ys: Vec<Vec<Label>> = (0..5)
            .map(|c| {
                y.iter()
                    .enumerate()
                    .map(|(i, &l)| if (i + c) % 4 == 0 { l } else { -l })
                    .collect()
            })
            .collect();
        let base = LogisticRegression {
            epochs: 3,
            ..LogisticRegression::default()
        };
        let configs = [
            base,
            LogisticRegression {
                solver: Solver::MiniBatch(16),
                ..base
            },
            LogisticRegression {
                solver: Solver::Batch,
                ..base
            },
            LogisticRegression {
                epochs: 15,
                eta: 4.0,
                early_stopping: Some(EarlyStopping {
                    fraction: 0.25,
                    patience: 1,
                }),
                positive_weight: 2.0,
                ..base
            },
            LogisticRegression { l2: 0.05, ..base },
        ];
        let idf = Geometry::fit(GeometrySpec::IDF_L2, &x);
        let wx = idf.apply(&x);
        let mut stopped_at = std::collections::BTreeSet::new();
        for l in configs {
            let l = l.check().unwrap();
            let (rows, held) = l.split_rows(x.n_rows()).unwrap();
            let split = Split { rows, held };
            for (name, joint, portable) in [
                (
                    "binary",
                    fit_logistic_ovr(&x, &ys, &l).unwrap(),
                    fit_block_portable(&x, &ys, &l, &split),
                ),
                (
                    "idf+l2",
                    fit_logistic_ovr(&wx, &ys, &l).unwrap(),
                    fit_block_portable(&wx, &ys, &l, &split),
                ),
            ] {
                let alone = |c: usize| match name {
                    "binary" => l.fit(&x, &ys[c]).unwrap(),
                    _ => l.fit(&wx, &ys[c]).unwrap(),
                };
                for c in 0..ys.len() {
                    let alone = alone(c);
                    let what = format!("{name}, {:?}, class {c}", *l);
                    assert_eq!(
                        first_difference(&joint[c].model, &alone.model),
                        None,
                        "{what}"
                    );
                    assert_eq!(joint[c].report, alone.report, "{what}");
                    let fast = first_difference(&portable[c].model, &alone.model);
                    assert_eq!(fast, None, "portable loop, {what}");
                    if l.early_stopping.is_some() {
                        stopped_at.insert(alone.report.epochs);
                    }
                }
            }
        }
        assert!(stopped_at.len() >= 2, "classes stopped at {stopped_at:?}");
    }
}
