//! Seeded holdout: the rows of a data set cut once into a training part and a test part,
//! plainly or stratified by class.
//!
//! Both draw one seeded permutation of the rows (ChaCha8), so a split depends only on the
//! number of rows (and, stratified, their classes) and the seed — never on threads or on
//! the rows' content.

use crate::Result;
use crate::error::{ConfigError, Param};
use rand::SeedableRng;
use rand::seq::SliceRandom;

/// One cut of the rows: indices of the training part and of the test part, each sorted so
/// that input order is kept within a part. Together they hold every row exactly once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Split {
    /// Rows to fit on.
    pub train: Vec<usize>,
    /// Rows to score.
    pub test: Vec<usize>,
}

impl Split {
    /// A split from two index lists, each sorted.
    pub(crate) fn sorted(mut train: Vec<usize>, mut test: Vec<usize>) -> Split {
        train.sort_unstable();
        test.sort_unstable();
        Split { train, test }
    }

    /// Moves `items` (one per row) into the training part and the test part, in row
    /// order, without cloning any: for data that must be handled as items, such as the
    /// documents a saved model's vocabulary is built from.
    ///
    /// # Panics
    /// When the split does not partition `0..items.len()`.
    pub fn divide<T>(&self, items: Vec<T>) -> (Vec<T>, Vec<T>) {
        let n = items.len();
        assert_eq!(
            self.train.len() + self.test.len(),
            n,
            "a split divides as many items as it has rows"
        );
        let mut in_test = vec![false; n];
        for &i in &self.test {
            in_test[i] = true;
        }
        let (mut train, mut test) = (
            Vec::with_capacity(self.train.len()),
            Vec::with_capacity(self.test.len()),
        );
        for (item, t) in items.into_iter().zip(in_test) {
            if t { test.push(item) } else { train.push(item) }
        }
        assert_eq!(test.len(), self.test.len(), "test rows must be distinct");
        (train, test)
    }
}

/// `0..n` in a seeded random order.
pub(crate) fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    idx
}

/// The seeded order of [`shuffled`], regrouped by class (stable: within a class the
/// random order is kept), with the number of rows of each class in that order.
pub(crate) fn shuffled_by_class(classes: &[usize], seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut idx = shuffled(classes.len(), seed);
    idx.sort_by_key(|&i| classes[i]);
    let k = classes.iter().max().map_or(0, |&c| c + 1);
    let mut sizes = vec![0usize; k];
    for &c in classes {
        sizes[c] += 1;
    }
    sizes.retain(|&s| s > 0);
    (idx, sizes)
}

fn check_fraction(test_fraction: f64) -> Result<()> {
    if test_fraction > 0.0 && test_fraction < 1.0 {
        Ok(())
    } else {
        Err(ConfigError::new(
            Param::HoldoutFraction,
            test_fraction,
            "must lie between 0 and 1",
        )
        .into())
    }
}

/// Holds out `round(test_fraction · n)` of the rows `0..n`, drawn by a seeded shuffle.
///
/// This is the split `train --holdout F --seed S` has always made; the published figures
/// rest on it, so its draw must not change.
pub fn holdout(n: usize, test_fraction: f64, seed: u64) -> Result<Split> {
    check_fraction(test_fraction)?;
    let idx = shuffled(n, seed);
    let n_test = ((n as f64) * test_fraction).round() as usize;
    let (test, train) = idx.split_at(n_test.min(n));
    Ok(Split::sorted(train.to_vec(), test.to_vec()))
}

/// Holds out `round(test_fraction · n_c)` rows of every class `c` (row `i` has class
/// `classes[i]`), so both parts keep the class proportions of the whole; the rows of a
/// class are drawn in the order of one seeded shuffle.
pub fn stratified_holdout(classes: &[usize], test_fraction: f64, seed: u64) -> Result<Split> {
    check_fraction(test_fraction)?;
    let (idx, sizes) = shuffled_by_class(classes, seed);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    let mut start = 0;
    for n_c in sizes {
        let n_test = ((n_c as f64) * test_fraction).round() as usize;
        test.extend_from_slice(&idx[start..start + n_test]);
        train.extend_from_slice(&idx[start + n_test..start + n_c]);
        start += n_c;
    }
    Ok(Split::sorted(train, test))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_partition(s: &Split, n: usize) -> bool {
        let mut all: Vec<usize> = s.train.iter().chain(&s.test).copied().collect();
        all.sort_unstable();
        all == (0..n).collect::<Vec<_>>()
    }

    #[test]
    fn holdout_partitions_and_is_seeded() {
        let s = holdout(100, 0.2, 7).unwrap();
        assert_eq!((s.train.len(), s.test.len()), (80, 20));
        assert!(is_partition(&s, 100));
        assert!(s.test.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(holdout(100, 0.2, 7).unwrap(), s);
        assert_ne!(holdout(100, 0.2, 8).unwrap().test, s.test);
        for bad in [0.0, 1.0, -0.5, f64::NAN] {
            assert!(holdout(100, bad, 7).is_err(), "{bad}");
        }
    }

    #[test]
    fn divide_moves_items_into_their_parts_in_order() {
        let s = holdout(10, 0.3, 1).unwrap();
        let items: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        let (train, test) = s.divide(items);
        let names = |idx: &[usize]| idx.iter().map(|i| i.to_string()).collect::<Vec<_>>();
        assert_eq!((train, test), (names(&s.train), names(&s.test)));
    }

    #[test]
    fn the_holdout_draw_is_the_published_one() {
        // `train --holdout 0.2 --seed 42` on 12 documents has always held out these two.
        assert_eq!(holdout(12, 0.2, 42).unwrap().test, [3, 10]);
        let mut first: Vec<usize> = shuffled(5574, 42)[..1115].to_vec();
        first.sort_unstable();
        assert_eq!(holdout(5574, 0.2, 42).unwrap().test, first);
    }

    #[test]
    fn stratified_holdout_keeps_class_proportions() {
        // 30 rows of class 0, 70 of class 1, interleaved.
        let classes: Vec<usize> = (0..100).map(|i| usize::from(i % 10 >= 3)).collect();
        let s = stratified_holdout(&classes, 0.2, 3).unwrap();
        assert!(is_partition(&s, 100));
        let count = |part: &[usize], c| part.iter().filter(|&&i| classes[i] == c).count();
        assert_eq!((count(&s.test, 0), count(&s.test, 1)), (6, 14));
        assert_eq!((count(&s.train, 0), count(&s.train, 1)), (24, 56));
        assert_eq!(stratified_holdout(&classes, 0.2, 3).unwrap(), s);
        assert_ne!(stratified_holdout(&classes, 0.2, 4).unwrap(), s);
    }
}
