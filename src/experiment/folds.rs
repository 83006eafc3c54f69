//! Seeded k-fold cross-validation: the rows dealt into `k` test parts, each fold training
//! on the other `k − 1`; plainly or stratified by class.
//!
//! Plain folds are consecutive stretches of one seeded shuffle (the assignment
//! `train --cv` and the multi-label threshold tuning have always used). Stratified folds
//! regroup that shuffle by class and deal the rows round-robin, so every fold holds
//! ⌊n_c/k⌋ or ⌈n_c/k⌉ rows of each class `c` and the fold sizes differ by at most one.

use super::split::{Split, shuffled, shuffled_by_class};
use crate::error::{ConfigError, Param};
use crate::{Error, Result};

fn check_folds(n: usize, k: usize) -> Result<()> {
    if k < 2 {
        return Err(ConfigError::new(Param::Folds, k, "must be at least 2").into());
    }
    if k > n {
        return Err(Error::Data(format!(
            "{k}-fold cross-validation needs at least {k} rows, got {n}"
        )));
    }
    Ok(())
}

/// `k` folds over a seeded shuffle of `0..n`: fold `f` tests on the shuffle's positions
/// `f·n/k .. (f+1)·n/k` and trains on the rest.
pub fn kfold(n: usize, k: usize, seed: u64) -> Result<Vec<Split>> {
    check_folds(n, k)?;
    let idx = shuffled(n, seed);
    Ok((0..k)
        .map(|f| {
            let (lo, hi) = (f * n / k, (f + 1) * n / k);
            let train = idx[..lo].iter().chain(&idx[hi..]).copied().collect();
            Split::sorted(train, idx[lo..hi].to_vec())
        })
        .collect())
}

/// `k` folds that keep the class proportions (row `i` has class `classes[i]`): the seeded
/// shuffle regrouped by class, position `p` going to fold `p mod k`.
pub fn stratified_kfold(classes: &[usize], k: usize, seed: u64) -> Result<Vec<Split>> {
    let n = classes.len();
    check_folds(n, k)?;
    let (idx, _) = shuffled_by_class(classes, seed);
    let mut tests: Vec<Vec<usize>> = vec![Vec::with_capacity(n / k + 1); k];
    for (p, &i) in idx.iter().enumerate() {
        tests[p % k].push(i);
    }
    let mut fold_of = vec![0usize; n];
    for (f, t) in tests.iter().enumerate() {
        for &i in t {
            fold_of[i] = f;
        }
    }
    Ok(tests
        .into_iter()
        .enumerate()
        .map(|(f, test)| {
            let train = (0..n).filter(|&i| fold_of[i] != f).collect();
            Split::sorted(train, test)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every row is tested in exactly one fold, and each fold's parts partition the rows.
    fn assert_partition(folds: &[Split], n: usize) {
        let mut tested: Vec<usize> = folds.iter().flat_map(|s| s.test.clone()).collect();
        tested.sort_unstable();
        assert_eq!(tested, (0..n).collect::<Vec<_>>());
        for s in folds {
            let mut all: Vec<usize> = s.train.iter().chain(&s.test).copied().collect();
            all.sort_unstable();
            assert_eq!(all, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn plain_folds_are_the_published_assignment() {
        // The assignment `--cv` has always used: consecutive stretches of one shuffle.
        let idx = shuffled(23, 1);
        let folds = kfold(23, 5, 1).unwrap();
        let mut third = idx[9..13].to_vec();
        third.sort_unstable();
        assert_eq!(folds[2].test, third);
        assert_partition(&folds, 23);
    }

    #[test]
    fn too_few_rows_or_folds_is_an_error() {
        assert!(kfold(3, 4, 0).is_err());
        assert!(kfold(10, 1, 0).is_err());
        assert!(stratified_kfold(&[0, 1], 3, 0).is_err());
        assert_eq!(kfold(4, 4, 0).unwrap().len(), 4);
    }

    proptest! {
        #[test]
        fn folds_partition_the_rows(n in 2usize..200, k in 2usize..12, seed in any::<u64>()) {
            prop_assume!(k <= n);
            let folds = kfold(n, k, seed).unwrap();
            prop_assert_eq!(folds.len(), k);
            assert_partition(&folds, n);
            let sizes: Vec<usize> = folds.iter().map(|s| s.test.len()).collect();
            prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
        }

        #[test]
        fn stratified_folds_keep_class_proportions(
            classes in proptest::collection::vec(0usize..4, 2..300),
            k in 2usize..8,
            seed in any::<u64>(),
        ) {
            prop_assume!(k <= classes.len());
            let folds = stratified_kfold(&classes, k, seed).unwrap();
            assert_partition(&folds, classes.len());
            for c in 0..4 {
                let n_c = classes.iter().filter(|&&x| x == c).count();
                for s in &folds {
                    let in_fold = s.test.iter().filter(|&&i| classes[i] == c).count();
                    // ⌊n_c/k⌋ or ⌈n_c/k⌉ rows of the class in every fold.
                    let (lo, hi) = (n_c / k, n_c.div_ceil(k));
                    prop_assert!((lo..=hi).contains(&in_fold),
                        "class {} has {} rows, {} in a fold of {}", c, n_c, in_fold, k);
                }
            }
            let sizes: Vec<usize> = folds.iter().map(|s| s.test.len()).collect();
            prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
            prop_assert_eq!(stratified_kfold(&classes, k, seed).unwrap(), folds);
        }
    }
}
