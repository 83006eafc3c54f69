//! Postings: a matrix transposed, for each feature the rows that contain it, so that one
//! query row's dot products with every indexed row cost Σ df over its features — what the
//! Gram rows of the dual perceptron and the scoring of kernel models walk.

use crate::features::{RowRef, SparseRows};

/// The transposed rows: for each feature, the rows that contain it (ascending) and their
/// values. Dot products of one query row with every indexed row cost Σ_{f ∈ q} df(f).
///
/// The features are indexed densely (a pointer per id up to the largest present) unless
/// that would be much larger than the rows themselves — a few ids near 2³² — when only
/// the features present are kept, found by binary search: the index is never sized by
/// the matrix's width, only by its nonzeros.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Postings {
    ptr: Vec<usize>,
    /// The features present, ascending, when indexed sparsely (`ptr` then has one entry
    /// per feature present, plus one).
    feats: Option<Vec<u32>>,
    rows: Vec<u32>,
    vals: Option<Vec<f32>>,
    n_cols: usize,
}

/// Whether ids up to `width` are indexed by a dense pointer array for `nnz` nonzeros.
fn dense(width: usize, nnz: usize) -> bool {
    width <= 2 * nnz + 4096
}

/// An upper bound on the bytes [`Postings::new`] spends on features (not on nonzeros)
/// for `nnz` nonzeros over `n_cols` columns: what the dual perceptron's estimate counts.
pub(crate) fn feature_bytes(n_cols: usize, nnz: usize) -> u64 {
    (n_cols.min(2 * nnz + 4096) as u64 + 1) * 8
}

impl Postings {
    /// Indexes the rows of `x` by feature (a counting sort).
    pub(crate) fn new<X: SparseRows>(x: &X) -> Self {
        let n = x.n_rows();
        let real = (0..n).any(|i| !x.row(i).is_binary());
        let width = (0..n)
            .filter_map(|i| x.row(i).ids.last())
            .max()
            .map_or(0, |&j| j as usize + 1);
        let feats = (!dense(width, x.nnz())).then(|| {
            let mut f: Vec<u32> = (0..n).flat_map(|i| x.row(i).ids.iter().copied()).collect();
            f.sort_unstable();
            f.dedup();
            f
        });
        let slot = |j: u32| match &feats {
            None => j as usize,
            Some(f) => f.binary_search(&j).expect("every id present is listed"),
        };
        let mut ptr = vec![0usize; feats.as_ref().map_or(width, Vec::len) + 1];
        for i in 0..n {
            for &j in x.row(i).ids {
                ptr[slot(j) + 1] += 1;
            }
        }
        for f in 1..ptr.len() {
            ptr[f] += ptr[f - 1];
        }
        let mut next = ptr.clone();
        let mut rows = vec![0u32; x.nnz()];
        let mut vals = real.then(|| vec![0f32; x.nnz()]);
        for i in 0..n {
            let r = x.row(i);
            for (k, &j) in r.ids.iter().enumerate() {
                let f = slot(j);
                rows[next[f]] = i as u32;
                if let Some(v) = &mut vals {
                    v[next[f]] = r.value(k);
                }
                next[f] += 1;
            }
        }
        Postings {
            ptr,
            feats,
            rows,
            vals,
            n_cols: x.n_cols(),
        }
    }

    /// Where feature `f`'s postings lie in `rows`; `None` when no indexed row has it.
    #[inline]
    fn range(&self, f: u32) -> Option<(usize, usize)> {
        let s = match &self.feats {
            None => f as usize,
            Some(feats) => feats.binary_search(&f).ok()?,
        };
        (s + 1 < self.ptr.len()).then(|| (self.ptr[s], self.ptr[s + 1]))
    }

    /// Σ_f df(f)²: the postings additions of all pairwise dot products.
    pub(crate) fn pair_ops(&self) -> u64 {
        self.ptr
            .windows(2)
            .map(|w| ((w[1] - w[0]) as u64).pow(2))
            .sum()
    }

    /// `out[j − lo] = q·x_j` for the indexed rows j in `lo .. lo + out.len()`. For one
    /// pair the products are added in increasing feature order from 0, as in
    /// [`sparse_dot`](crate::features::ops::sparse_dot), so the values are bit-identical to it.
    pub(crate) fn dots_into(&self, q: RowRef<'_>, lo: usize, out: &mut [f32]) {
        let hi = lo + out.len();
        out.fill(0.0);
        for (k, &f) in q.ids.iter().enumerate() {
            let Some((pa, pb)) = self.range(f) else {
                continue; // no indexed row has this feature
            };
            let rows = &self.rows[pa..pb];
            let start = if lo == 0 {
                0
            } else {
                rows.partition_point(|&r| (r as usize) < lo)
            };
            match &self.vals {
                None if q.is_binary() => {
                    for &r in &rows[start..] {
                        let j = r as usize;
                        if j >= hi {
                            break;
                        }
                        out[j - lo] += 1.0;
                    }
                }
                _ => {
                    let v = q.value(k);
                    for (p, &r) in rows.iter().enumerate().skip(start) {
                        let j = r as usize;
                        if j >= hi {
                            break;
                        }
                        let pv = self.vals.as_ref().map_or(1.0, |pv| pv[pa + p]);
                        out[j - lo] += v * pv;
                    }
                }
            }
        }
    }
}

impl Postings {
    /// For binary rows: `out[j − lo] = |q ∩ x_j|` as an integer count.
    pub(crate) fn counts_into(&self, q: &[u32], lo: usize, out: &mut [u32]) {
        let hi = lo + out.len();
        out.fill(0);
        for &f in q {
            let Some((pa, pb)) = self.range(f) else {
                continue;
            };
            let rows = &self.rows[pa..pb];
            let start = if lo == 0 {
                0
            } else {
                rows.partition_point(|&r| (r as usize) < lo)
            };
            for &r in &rows[start..] {
                let j = r as usize;
                if j >= hi {
                    break;
                }
                out[j - lo] += 1;
            }
        }
    }
}
