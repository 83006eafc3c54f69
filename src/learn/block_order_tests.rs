//! Rows read from an on-disk row cache are visited a block at a time
//! ([`SparseRows::shuffle_block`]); these tests hold that such a visiting order is a
//! permutation that stays within one block for a whole run of visits, and that a fit on
//! the cache equals the fit on the same rows in memory visited in the same blocks.

use super::online::epoch_order_in;
use super::{Check, Classifier, Learner, PassiveAggressive};
use crate::features::synthetic::zipf_rows;
use crate::features::{BinaryMatrix, CsrView, RowCacheWriter, RowRef, SparseRows};

/// Rows in memory that ask to be visited in blocks of `block`.
struct Blocked<'a>(&'a BinaryMatrix, usize);

impl SparseRows for Blocked<'_> {
    fn n_rows(&self) -> usize {
        SparseRows::n_rows(self.0)
    }
    fn n_cols(&self) -> usize {
        SparseRows::n_cols(self.0)
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        SparseRows::row(self.0, i)
    }
    fn nnz(&self) -> usize {
        SparseRows::nnz(self.0)
    }
    fn csr(&self) -> Option<CsrView<'_>> {
        self.0.csr()
    }
    fn shuffle_block(&self) -> Option<usize> {
        Some(self.1)
    }
}

#[test]
fn a_block_order_is_a_permutation_visiting_each_block_in_one_run() {
    for (n, b) in [(10usize, 3usize), (1000, 64), (1000, 1000), (37, 5)] {
        let mut order: Vec<usize> = (0..n).collect();
        for epoch in 0..3 {
            epoch_order_in(&mut order, Some(9), epoch, Some(b));
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            let runs = 1 + order.windows(2).filter(|w| w[0] / b != w[1] / b).count();
            assert_eq!(runs, n.div_ceil(b), "n {n}, block {b}");
        }
        // Not input order, and another epoch another order.
        let mut again: Vec<usize> = (0..n).collect();
        epoch_order_in(&mut again, Some(9), 3, Some(b));
        if n > 10 {
            assert_ne!(again, (0..n).collect::<Vec<_>>());
        }
    }
}

/// The block order as first written: every run copied out, the runs shuffled, then each
/// run shuffled as it is copied back (the order models trained on a cache were fitted in).
fn reference_block_order(order: &mut [usize], seed: u64, epoch: usize, b: usize) {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed.wrapping_add(epoch as u64));
    order.sort_unstable();
    let mut runs: Vec<Vec<usize>> = order.chunks(b).map(<[usize]>::to_vec).collect();
    runs.shuffle(&mut rng);
    let mut at = 0;
    for mut run in runs {
        run.shuffle(&mut rng);
        order[at..at + run.len()].copy_from_slice(&run);
        at += run.len();
    }
}

#[test]
fn a_block_order_is_the_one_models_were_fitted_in() {
    // All the rows (written in place) and a subset of them (copied once), each epoch.
    let subset: Vec<usize> = (0..500).map(|i| i * 7 + 3).collect();
    for (rows, b) in [
        ((0..1000).collect::<Vec<usize>>(), 64),
        ((0..37).collect(), 5),
        (subset, 16),
    ] {
        let (mut order, mut reference) = (rows.clone(), rows.clone());
        for epoch in 0..3 {
            epoch_order_in(&mut order, Some(11), epoch, Some(b));
            reference_block_order(&mut reference, 11, epoch, b);
            assert_eq!(
                order,
                reference,
                "{} rows, block {b}, epoch {epoch}",
                rows.len()
            );
        }
    }
}

#[test]
fn a_fit_on_a_row_cache_equals_the_fit_in_memory_in_the_same_blocks() {
    let (x, y) = zipf_rows(40_000, 3_000, 12, 4);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.cache");
    let mut w = RowCacheWriter::create(&path, x.cols()).unwrap();
    w.push_rows(x.indptr().raw_storage(), x.indices()).unwrap();
    let cache = w.commit(b"").unwrap();
    let block = cache.shuffle_block().expect("a cache is read in blocks");
    assert!(block < 40_000, "the test spans several blocks");
    let pa = PassiveAggressive::default().check().unwrap();
    let on_disk = pa.fit(&cache, &y).unwrap();
    let in_memory = pa.fit(&Blocked(&x, block), &y).unwrap();
    assert_eq!(on_disk.model.w, in_memory.model.w);
    assert_eq!(on_disk.model.bias, in_memory.model.bias);
    assert_eq!(on_disk.report.updates, in_memory.report.updates);
    // The blocks change the order, not what is learnt: the fit in any order is as good.
    let shuffled = pa.fit(&x, &y).unwrap();
    let acc = |m: &crate::learn::LinearModel| {
        (0..x.rows())
            .filter(|&i| (m.score(SparseRows::row(&x, i)) > 0.0) == (y[i] > 0))
            .count() as f64
            / x.rows() as f64
    };
    let (a, b) = (acc(&on_disk.model), acc(&shuffled.model));
    assert!((a - b).abs() < 0.02, "blocked {a}, shuffled {b}");
}
