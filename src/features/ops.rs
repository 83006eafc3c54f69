//! The four sparse operations every learner is built from (as in LIBLINEAR): `dot`,
//! `axpy`, `sparse_dot` and `nrm2_sq`. Each touches only a row's nonzeros, and reads a
//! weighted row's values (row scale × feature weight) as it goes, never from a copy.

use super::RowRef;

/// `w · x` for a row `x`; ids must be below `w.len()`.
#[inline]
pub(crate) fn dot(w: &[f32], x: RowRef<'_>) -> f32 {
    match (x.vals, x.feature_weights) {
        _ if x.is_uniform() => x.scale * dot_binary(w, x.ids),
        // A weighted binary row: each value is scale × weight, as `RowRef::value` reads it
        // (the stored value 1 multiplies nothing), in the same order.
        (None, Some(f)) => {
            let s = x.scale;
            x.ids
                .iter()
                .map(|&j| w[j as usize] * (s * f[j as usize]))
                .sum()
        }
        _ => x.iter().map(|(j, v)| w[j as usize] * v).sum(),
    }
}

/// `w · x` for a binary row: the sum of the weights of its ids, four partial sums at a time.
#[inline]
pub(crate) fn dot_binary(w: &[f32], ids: &[u32]) -> f32 {
    let mut acc = [0f32; 4];
    let chunks = ids.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        acc[0] += w[c[0] as usize];
        acc[1] += w[c[1] as usize];
        acc[2] += w[c[2] as usize];
        acc[3] += w[c[3] as usize];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for &j in rest {
        s += w[j as usize];
    }
    s
}

/// Checks once that every id is below `n` — the precondition of the unchecked loops.
pub(crate) fn ids_below(ids: &[u32], n: usize) -> bool {
    // The largest id, without an early exit, so the pass vectorizes: it runs over every id
    // of a matrix each time a learner takes its fast path.
    ids.is_empty() || (ids.iter().copied().fold(0, u32::max) as usize) < n
}

/// `w · x` for a binary row without bounds checks: the learners' inner loop.
///
/// # Safety
/// Every id in `ids` must be below `w.len()` (see [`ids_below`]).
#[inline(always)]
pub(crate) unsafe fn dot_binary_unchecked(w: &[f32], ids: &[u32]) -> f32 {
    let mut acc = [0f32; 4];
    let chunks = ids.chunks_exact(4);
    let rest = chunks.remainder();
    // SAFETY: the caller guarantees every id is in bounds.
    unsafe {
        for c in chunks {
            acc[0] += *w.get_unchecked(c[0] as usize);
            acc[1] += *w.get_unchecked(c[1] as usize);
            acc[2] += *w.get_unchecked(c[2] as usize);
            acc[3] += *w.get_unchecked(c[3] as usize);
        }
        let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        for &j in rest {
            s += *w.get_unchecked(j as usize);
        }
        s
    }
}

/// `w ← w + a·x` for a binary row without bounds checks.
///
/// # Safety
/// Every id in `ids` must be below `w.len()` (see [`ids_below`]).
#[inline(always)]
pub(crate) unsafe fn axpy_binary_unchecked(a: f32, ids: &[u32], w: &mut [f32]) {
    for &j in ids {
        // SAFETY: the caller guarantees every id is in bounds.
        unsafe { *w.get_unchecked_mut(j as usize) += a };
    }
}

/// `w ← w + a·x`.
#[inline]
pub(crate) fn axpy(a: f32, x: RowRef<'_>, w: &mut [f32]) {
    if x.is_uniform() {
        let a = a * x.scale;
        for &j in x.ids {
            w[j as usize] += a;
        }
    } else {
        for (j, v) in x.iter() {
            w[j as usize] += a * v;
        }
    }
}

/// `x · z` for two rows; for binary rows the size of their intersection.
pub(crate) fn sparse_dot(x: RowRef<'_>, z: RowRef<'_>) -> f32 {
    let (mut i, mut k, mut s) = (0, 0, 0f32);
    while i < x.ids.len() && k < z.ids.len() {
        match x.ids[i].cmp(&z.ids[k]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => k += 1,
            std::cmp::Ordering::Equal => {
                s += x.value(i) * z.value(k);
                i += 1;
                k += 1;
            }
        }
    }
    s
}

/// `‖x‖²`; for binary rows the number of nonzeros.
#[inline]
pub(crate) fn nrm2_sq(x: RowRef<'_>) -> f32 {
    if x.is_uniform() {
        x.scale * x.scale * x.ids.len() as f32
    } else {
        x.iter().map(|(_, v)| v * v).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dense(x: RowRef<'_>, n: usize) -> Vec<f32> {
        let mut d = vec![0.0; n];
        for (k, &j) in x.ids.iter().enumerate() {
            d[j as usize] = x.vals.map_or(1.0, |v| v[k]);
        }
        d
    }

    fn row_strategy(n: u32) -> impl Strategy<Value = (Vec<u32>, Vec<f32>)> {
        proptest::collection::btree_set(0..n, 0..20).prop_flat_map(|s| {
            let ids: Vec<u32> = s.into_iter().collect();
            let len = ids.len();
            (
                Just(ids),
                proptest::collection::vec(-4i8..5, len)
                    .prop_map(|v| v.into_iter().map(f32::from).collect()),
            )
        })
    }

    proptest! {
        #[test]
        fn sparse_ops_equal_dense(
            (xi, xv) in row_strategy(30), (zi, zv) in row_strategy(30),
            w in proptest::collection::vec(-8i8..8, 30), a in -3i8..4, binary in any::<bool>()
        ) {
            let w: Vec<f32> = w.into_iter().map(f32::from).collect();
            let x = RowRef::stored(&xi, if binary { None } else { Some(&xv) });
            let z = RowRef::stored(&zi, if binary { None } else { Some(&zv) });
            let (dx, dz) = (dense(x, 30), dense(z, 30));
            let ddot: f32 = w.iter().zip(&dx).map(|(a, b)| a * b).sum();
            prop_assert_eq!(dot(&w, x), ddot);
            prop_assert_eq!(sparse_dot(x, z), dx.iter().zip(&dz).map(|(a, b)| a * b).sum::<f32>());
            prop_assert_eq!(nrm2_sq(x), dx.iter().map(|v| v * v).sum::<f32>());
            let mut ws = w.clone();
            axpy(f32::from(a), x, &mut ws);
            let wd: Vec<f32> = w.iter().zip(&dx).map(|(w, x)| w + f32::from(a) * x).collect();
            prop_assert_eq!(ws, wd);
        }
    }
}
