//! Seeded train/test splits and k-fold cross-validation over example indices.

use rand::SeedableRng;
use rand::seq::SliceRandom;

fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    idx
}

/// Shuffles `0..n` with `seed` and holds out `round(test_fraction·n)` indices:
/// returns (train, test), each sorted so input order is kept within a part.
pub fn train_test_split(n: usize, test_fraction: f64, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let idx = shuffled(n, seed);
    let n_test = ((n as f64) * test_fraction).round() as usize;
    let (test, train) = idx.split_at(n_test.min(n));
    let (mut train, mut test) = (train.to_vec(), test.to_vec());
    train.sort_unstable();
    test.sort_unstable();
    (train, test)
}

/// `k` folds over a seeded shuffle of `0..n`: for each fold, (train, test) index lists.
pub fn kfold(n: usize, k: usize, seed: u64) -> Vec<(Vec<usize>, Vec<usize>)> {
    let idx = shuffled(n, seed);
    (0..k)
        .map(|f| {
            let (lo, hi) = (f * n / k, (f + 1) * n / k);
            let mut test = idx[lo..hi].to_vec();
            let mut train: Vec<usize> = idx[..lo].iter().chain(&idx[hi..]).copied().collect();
            test.sort_unstable();
            train.sort_unstable();
            (train, test)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_partitions_and_is_seeded() {
        let (tr, te) = train_test_split(100, 0.2, 7);
        assert_eq!((tr.len(), te.len()), (80, 20));
        let mut all: Vec<usize> = tr.iter().chain(&te).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
        assert_eq!(train_test_split(100, 0.2, 7), (tr, te.clone()));
        assert_ne!(train_test_split(100, 0.2, 8).1, te);
    }

    #[test]
    fn folds_cover_every_index_once() {
        let folds = kfold(23, 5, 1);
        let mut seen: Vec<usize> = folds.iter().flat_map(|(_, t)| t.clone()).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..23).collect::<Vec<_>>());
        for (tr, te) in &folds {
            assert_eq!(tr.len() + te.len(), 23);
            assert!(te.iter().all(|i| !tr.contains(i)));
        }
    }
}
