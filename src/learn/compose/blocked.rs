//! Every class scored in one pass over a row: the weights of K linear models laid out
//! class-blocked (for each feature, its K weights side by side), so a row's nonzeros are
//! walked once and each adds a contiguous run of K weights, where K separate dot products
//! would walk the row K times and gather from K weight vectors.
//!
//! The sums are taken in exactly the order `ops::dot` takes them for each class (four
//! partial sums for a uniform binary row, one running sum otherwise), so every score is
//! bit-identical to the one the class's own model gives.

use crate::features::RowRef;
use crate::learn::AnyModel;
use rayon::prelude::*;

/// Features transposed at a time when a block is built: 256 features of 90 classes are
/// 92 KB, within a core's cache.
const TRANSPOSE_TILE: usize = 256;

/// The largest class-blocked copy built: 1 GiB of weights. A block is a second copy of
/// every class's weights; past this (90 classes over 2^22 hashed ids are 1.5 GB) the
/// classes are scored one by one, the same scores bit for bit, and the model's weights
/// are held once.
const MAX_BLOCK_BYTES: usize = 1 << 30;

/// K linear models' weights, class-blocked, and their biases.
#[derive(Debug, Clone)]
pub(crate) struct ClassBlock {
    /// Classes.
    k: usize,
    /// `w[j·k + c]`: class c's weight of feature j.
    w: Vec<f32>,
    /// Each class's bias.
    bias: Vec<f32>,
}

impl ClassBlock {
    /// The block of `models`, when each is linear (or logistic) over the same number of
    /// features and the block fits [`MAX_BLOCK_BYTES`]; `None` otherwise (kernel models
    /// score through their support rows, larger ones class by class).
    pub(crate) fn of(models: &[AnyModel]) -> Option<ClassBlock> {
        Self::within(models, MAX_BLOCK_BYTES)
    }

    /// [`Self::of`] with at most `max_bytes` of block weights.
    fn within(models: &[AnyModel], max_bytes: usize) -> Option<ClassBlock> {
        let linear: Vec<_> = models
            .iter()
            .map(|m| match m {
                AnyModel::Linear(l) | AnyModel::Logistic(l) => Some(l),
                AnyModel::Kernel(_) => None,
            })
            .collect::<Option<_>>()?;
        let n = linear.first()?.w.len();
        if linear.iter().any(|l| l.w.len() != n) {
            return None;
        }
        let k = linear.len();
        if n.saturating_mul(k).saturating_mul(size_of::<f32>()) > max_bytes {
            return None;
        }
        let mut w = vec![0.0; n * k];
        // Fresh pages, every one written below: backed in one call rather than a fault
        // each (2,200 of them for the 90-class Reuters model), in huge pages where the
        // system gives them (the block is read at random).
        crate::raw::populate_huge(w.as_mut_ptr().cast::<u8>(), n * k * size_of::<f32>());
        // A tile of features at a time, every class within it: the tile's rows of `w`
        // stay in cache while each class's run of it is read in order (a class at a time
        // over all features would walk the whole block once per class). Tiles are filled
        // in parallel: a model is loaded before anything else can run.
        w.par_chunks_mut(TRANSPOSE_TILE * k)
            .enumerate()
            .for_each(|(t, rows)| {
                let start = t * TRANSPOSE_TILE;
                let end = start + rows.len() / k;
                for (c, l) in linear.iter().enumerate() {
                    for (j, &v) in l.w[start..end].iter().enumerate() {
                        rows[j * k + c] = v;
                    }
                }
            });
        Some(ClassBlock {
            k,
            w,
            bias: linear.iter().map(|l| l.bias).collect(),
        })
    }

    /// The number of classes.
    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// The k classes' scores of `row` into `out` (`k` long), each equal to its model's
    /// `score(row)`; `acc` is scratch space kept between calls. On x86-64 processors with
    /// AVX the same sums run eight classes at a time instead of four: each class's sum
    /// takes the same steps in the same order, so the scores are the same bits.
    pub(crate) fn scores(&self, row: RowRef<'_>, out: &mut [f32], acc: &mut Vec<f32>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the processor has AVX, checked just above.
            return unsafe { self.scores_avx(row, out, acc) };
        }
        self.scores_portable(row, out, acc)
    }

    /// [`ClassBlock::scores`] compiled for AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn scores_avx(&self, row: RowRef<'_>, out: &mut [f32], acc: &mut Vec<f32>) {
        self.scores_portable(row, out, acc)
    }

    /// [`ClassBlock::scores`] for any processor (inlined into the AVX version).
    #[inline(always)]
    fn scores_portable(&self, row: RowRef<'_>, out: &mut [f32], acc: &mut Vec<f32>) {
        dots(&self.w, self.k, row, out, acc);
        for (o, b) in out.iter_mut().zip(&self.bias) {
            *o += b;
        }
    }
}

/// Each class's `ops::dot` with `row` of its weights in the class-blocked `w` (`k` per
/// feature), into `out` (`k` long), bit for bit; `acc` is scratch space kept between
/// calls. Ids beyond the weights (a wider matrix than the model) contribute nothing.
/// Scoring and one-vs-rest logistic training share it.
#[inline(always)]
pub(crate) fn dots(w: &[f32], k: usize, row: RowRef<'_>, out: &mut [f32], acc: &mut Vec<f32>) {
    let n = w.len() / k.max(1);
    let keep = row.ids.partition_point(|&j| (j as usize) < n);
    let ids = &row.ids[..keep];
    let block = |j: u32| &w[j as usize * k..(j as usize + 1) * k];
    if row.is_uniform() {
        // `ops::dot_binary`: four partial sums over chunks of four ids, added in pairs,
        // then the remaining ids one by one, times the row's scale.
        acc.clear();
        acc.resize(4 * k, 0.0);
        let (a0, rest) = acc.split_at_mut(k);
        let (a1, rest) = rest.split_at_mut(k);
        let (a2, a3) = rest.split_at_mut(k);
        let chunks = ids.chunks_exact(4);
        let tail = chunks.remainder();
        for ch in chunks {
            add(a0, block(ch[0]));
            add(a1, block(ch[1]));
            add(a2, block(ch[2]));
            add(a3, block(ch[3]));
        }
        for c in 0..k {
            out[c] = (a0[c] + a1[c]) + (a2[c] + a3[c]);
        }
        for &j in tail {
            add(out, block(j));
        }
        for o in out.iter_mut() {
            *o *= row.scale;
        }
        return;
    }
    // `ops::dot` otherwise: one running sum per class from the neutral element of `f32`'s
    // `Sum`, each nonzero's value as `RowRef::value` reads it (for a weighted binary row,
    // (scale × 1) × weight: the scale × weight `ops::dot` multiplies by).
    let zero: f32 = std::iter::empty::<f32>().sum();
    out.fill(zero);
    for (i, &j) in ids.iter().enumerate() {
        // The block of the nonzero a few places on is asked for while this one is added:
        // the blocks lie at random in the weights, most of them not in any cache.
        if let Some(&next) = ids.get(i + AHEAD) {
            crate::hint::prefetch(block(next));
        }
        let v = row.value(i);
        for (o, &wc) in out.iter_mut().zip(block(j)) {
            *o += wc * v;
        }
    }
}

/// How many nonzeros ahead a row's class blocks are asked for.
const AHEAD: usize = 4;

/// `acc[c] += w[c]` for every class.
#[inline(always)]
fn add(acc: &mut [f32], w: &[f32]) {
    for (a, &x) in acc.iter_mut().zip(w) {
        *a += x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{BinaryMatrix, Geometry, GeometrySpec, SparseRows, real_from_dense};
    use crate::learn::{Classifier, LinearModel};
    use rand::{Rng, SeedableRng};

    fn models(k: usize, n: usize, seed: u64) -> Vec<AnyModel> {
        let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..k)
            .map(|c| {
                let l = LinearModel {
                    w: (0..n).map(|_| r.gen_range(-1.0..1.0)).collect(),
                    bias: r.gen_range(-0.5..0.5),
                };
                if c % 2 == 0 {
                    AnyModel::Linear(l)
                } else {
                    AnyModel::Logistic(l)
                }
            })
            .collect()
    }

    /// Every class's score through the block (the processor's fastest path, and the
    /// portable one) is its own model's, bit for bit.
    fn check<X: SparseRows>(ms: &[AnyModel], x: &X) {
        let b = ClassBlock::of(ms).unwrap();
        let (mut out, mut portable, mut acc) =
            (vec![0.0; ms.len()], vec![0.0; ms.len()], Vec::new());
        for i in 0..x.n_rows() {
            b.scores(x.row(i), &mut out, &mut acc);
            b.scores_portable(x.row(i), &mut portable, &mut acc);
            for (c, m) in ms.iter().enumerate() {
                assert_eq!(out[c].to_bits(), portable[c].to_bits(), "row {i} class {c}");
                assert_eq!(
                    out[c].to_bits(),
                    m.score(x.row(i)).to_bits(),
                    "row {i} class {c}"
                );
            }
        }
    }

    #[test]
    fn every_class_scores_bit_for_bit_as_its_own_model() {
        let (k, n) = (7, 40);
        let ms = models(k, n, 3);
        let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        // Rows of 0 to 23 nonzeros (chunks of four and their remainders), some with ids
        // beyond the models' 40 features.
        let (mut indptr, mut ids) = (vec![0], Vec::new());
        for len in 0..24 {
            let mut row: Vec<u32> = (0..len).map(|_| r.gen_range(0..48)).collect();
            row.sort_unstable();
            row.dedup();
            ids.extend(row);
            indptr.push(ids.len());
        }
        let x = BinaryMatrix::new((24, 48), indptr, ids.clone(), vec![(); ids.len()]);
        check(&ms, &x);
        // The same rows l2-scaled, idf-weighted and both: the weighted paths.
        for spec in [
            GeometrySpec::BINARY_L2,
            GeometrySpec {
                weighting: crate::features::Weighting::Idf,
                ..GeometrySpec::BINARY_L2
            },
        ] {
            let g = Geometry::fit(spec, &x);
            check(&ms, &g.apply(&x));
        }
        // Real-valued rows.
        let dense: Vec<Vec<f32>> = (0..10)
            .map(|_| {
                (0..n)
                    .map(|_| {
                        if r.gen_bool(0.3) {
                            r.gen_range(-2.0..2.0)
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect();
        check(&ms, &real_from_dense(&dense));
    }

    #[test]
    fn the_block_holds_every_weight_across_tiles() {
        // Two whole tiles and a part of a third.
        let (k, n) = (5, 2 * TRANSPOSE_TILE + 37);
        let ms = models(k, n, 4);
        let b = ClassBlock::of(&ms).unwrap();
        for (c, m) in ms.iter().enumerate() {
            let w = &m.as_linear().unwrap().w;
            for (j, &v) in w.iter().enumerate() {
                assert_eq!(
                    b.w[j * k + c].to_bits(),
                    v.to_bits(),
                    "feature {j} class {c}"
                );
            }
        }
    }

    /// Past its budget no block is built (the classes are then scored one by one).
    #[test]
    fn a_block_over_its_budget_is_not_built() {
        let ms = models(5, 100, 2);
        assert!(ClassBlock::within(&ms, 5 * 100 * 4).is_some());
        assert!(ClassBlock::within(&ms, 5 * 100 * 4 - 1).is_none());
    }

    #[test]
    fn kernel_models_and_unequal_widths_have_no_block() {
        let mut ms = models(3, 5, 1);
        ms.push(AnyModel::Linear(LinearModel::zeros(6)));
        assert!(ClassBlock::of(&ms).is_none());
        assert!(ClassBlock::of(&[]).is_none());
    }
}
