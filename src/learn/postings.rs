//! Postings: a matrix transposed, for each feature the rows that contain it, so that one
//! query row's dot products with every indexed row cost Σ df over its features — what the
//! Gram rows of the dual perceptron and the scoring of kernel models walk.

use crate::features::{RowRef, SparseRows};

/// The transposed rows: for each feature, the rows that contain it (ascending) and their
/// values. Dot products of one query row with every indexed row cost Σ_{f ∈ q} df(f).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Postings {
    ptr: Vec<usize>,
    rows: Vec<u32>,
    vals: Option<Vec<f32>>,
}

impl Postings {
    /// Indexes the rows of `x` by feature (a counting sort).
    pub fn new<X: SparseRows>(x: &X) -> Self {
        let n = x.n_rows();
        let real = (0..n).any(|i| x.row(i).vals.is_some());
        let mut ptr = vec![0usize; x.n_cols() + 1];
        for i in 0..n {
            for &j in x.row(i).ids {
                ptr[j as usize + 1] += 1;
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
                let f = j as usize;
                rows[next[f]] = i as u32;
                if let Some(v) = &mut vals {
                    v[next[f]] = r.vals.map_or(1.0, |rv| rv[k]);
                }
                next[f] += 1;
            }
        }
        Postings { ptr, rows, vals }
    }

    /// Number of features indexed.
    pub fn n_cols(&self) -> usize {
        self.ptr.len().saturating_sub(1)
    }

    /// Σ_f df(f)²: the postings additions of all pairwise dot products.
    pub fn pair_ops(&self) -> u64 {
        self.ptr
            .windows(2)
            .map(|w| ((w[1] - w[0]) as u64).pow(2))
            .sum()
    }

    /// `out[j − lo] = q·x_j` for the indexed rows j in `lo .. lo + out.len()`. For one
    /// pair the products are added in increasing feature order from 0, as in
    /// [`sparse_dot`](crate::features::ops::sparse_dot), so the values are bit-identical to it.
    pub fn dots_into(&self, q: RowRef<'_>, lo: usize, out: &mut [f32]) {
        let hi = lo + out.len();
        out.fill(0.0);
        for (k, &f) in q.ids.iter().enumerate() {
            let f = f as usize;
            if f + 1 >= self.ptr.len() {
                break; // ids are sorted: the rest are unknown to the index too
            }
            let (pa, pb) = (self.ptr[f], self.ptr[f + 1]);
            let rows = &self.rows[pa..pb];
            let start = if lo == 0 {
                0
            } else {
                rows.partition_point(|&r| (r as usize) < lo)
            };
            match &self.vals {
                None if q.vals.is_none() => {
                    for &r in &rows[start..] {
                        let j = r as usize;
                        if j >= hi {
                            break;
                        }
                        out[j - lo] += 1.0;
                    }
                }
                _ => {
                    let v = q.vals.map_or(1.0, |qv| qv[k]);
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
    pub fn counts_into(&self, q: &[u32], lo: usize, out: &mut [u32]) {
        let hi = lo + out.len();
        out.fill(0);
        for &f in q {
            let f = f as usize;
            if f + 1 >= self.ptr.len() {
                break;
            }
            let rows = &self.rows[self.ptr[f]..self.ptr[f + 1]];
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
