//! The largest confusions of a single-label evaluation: the off-diagonal cells of its
//! confusion matrix, largest first. With tens of classes the whole matrix is too wide to
//! read; the few cells that hold most of the errors say which classes the model mixes up.

use super::Metrics;
use serde::Serialize;

/// One off-diagonal cell of a confusion matrix: how many documents of one class were
/// given another, and what share of that class's documents they are.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Confusion {
    /// The true class (an index into [`Metrics::classes`]).
    pub truth: usize,
    /// The class given instead.
    pub predicted: usize,
    /// Documents of `truth` given `predicted`.
    pub count: u64,
    /// `count` over the documents of `truth` (its support): 0.25 means a quarter of the
    /// class went to `predicted`.
    pub share: f64,
}

/// The `n` largest off-diagonal cells of `confusion` (`confusion[truth][predicted]`),
/// largest count first. Equal counts: the larger share first (the smaller true class),
/// then by the true class's index, then by the predicted class's index, so that the
/// order never depends on anything but the counts. Empty cells are never listed.
pub fn largest_confusions(confusion: &[Vec<u64>], n: usize) -> Vec<Confusion> {
    let support: Vec<u64> = confusion.iter().map(|row| row.iter().sum()).collect();
    let mut cells: Vec<(usize, usize, u64)> = confusion
        .iter()
        .enumerate()
        .flat_map(|(t, row)| row.iter().enumerate().map(move |(p, &c)| (t, p, c)))
        .filter(|&(t, p, c)| t != p && c > 0)
        .collect();
    cells.sort_by(|a, b| {
        b.2.cmp(&a.2)
            .then(support[a.0].cmp(&support[b.0]))
            .then(a.0.cmp(&b.0))
            .then(a.1.cmp(&b.1))
    });
    cells.truncate(n);
    cells
        .into_iter()
        .map(|(truth, predicted, count)| Confusion {
            truth,
            predicted,
            count,
            share: count as f64 / support[truth] as f64,
        })
        .collect()
}

impl Metrics {
    /// The `n` largest confusions of this evaluation, in the order of
    /// [`largest_confusions`]: what to read instead of a matrix too wide to print.
    pub fn largest_confusions(&self, n: usize) -> Vec<Confusion> {
        largest_confusions(&self.confusion, n)
    }

    /// How many off-diagonal cells are not empty: the number of distinct confusions, of
    /// which [`Metrics::largest_confusions`] lists the largest.
    pub fn confused_cells(&self) -> usize {
        self.confusion
            .iter()
            .enumerate()
            .map(|(t, row)| {
                row.iter()
                    .enumerate()
                    .filter(|&(p, &c)| p != t && c > 0)
                    .count()
            })
            .sum()
    }

    /// `confusions` as the `top_confusions` array of `eval --json`: objects with the
    /// class names `true` and `predicted`, `count` and `share`.
    pub fn confusions_json(&self, confusions: &[Confusion]) -> serde_json::Value {
        confusions
            .iter()
            .map(|c| {
                serde_json::json!({
                    "true": self.classes[c.truth],
                    "predicted": self.classes[c.predicted],
                    "count": c.count,
                    "share": c.share,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(k: usize) -> Vec<String> {
        (0..k).map(|i| format!("c{i}")).collect()
    }

    #[test]
    fn hand_computed_confusions_come_largest_first() {
        // Class a (5 documents): 2 kept, 2 given b, 1 given c. Class b (2): 1 given a.
        // Class c (1): kept.
        let m = Metrics::new(
            vec!["a".into(), "b".into(), "c".into()],
            &[0, 0, 0, 0, 0, 1, 1, 2],
            &[0, 0, 1, 1, 2, 1, 0, 2],
        );
        let top = m.largest_confusions(10);
        let cells: Vec<(usize, usize, u64)> = top
            .iter()
            .map(|c| (c.truth, c.predicted, c.count))
            .collect();
        // a→b 2; then the two cells of 1: b→a (share 1/2) before a→c (share 1/5).
        assert_eq!(cells, vec![(0, 1, 2), (1, 0, 1), (0, 2, 1)]);
        assert!((top[0].share - 0.4).abs() < 1e-12);
        assert!((top[1].share - 0.5).abs() < 1e-12);
        assert!((top[2].share - 0.2).abs() < 1e-12);
        assert_eq!(m.confused_cells(), 3);
        assert_eq!(m.largest_confusions(1).len(), 1);
        assert!(m.largest_confusions(0).is_empty());
        let j = m.confusions_json(&top[..1]);
        assert_eq!(
            j,
            serde_json::json!([{"true": "a", "predicted": "b", "count": 2, "share": 0.4}])
        );
    }

    #[test]
    fn equal_counts_and_shares_go_by_class_order() {
        // Every class has 2 documents, one kept and one given the next class: all cells
        // are 1 of 2, so the order is that of the true class.
        let m = Metrics::new(names(3), &[0, 0, 1, 1, 2, 2], &[0, 1, 1, 2, 2, 0]);
        let pairs: Vec<(usize, usize)> = m
            .largest_confusions(5)
            .iter()
            .map(|c| (c.truth, c.predicted))
            .collect();
        assert_eq!(pairs, vec![(0, 1), (1, 2), (2, 0)]);
        // One true class, two predicted ones of the same count: by the predicted class.
        let m = Metrics::new(names(3), &[0, 0, 0], &[2, 1, 0]);
        let pairs: Vec<(usize, usize)> = m
            .largest_confusions(5)
            .iter()
            .map(|c| (c.truth, c.predicted))
            .collect();
        assert_eq!(pairs, vec![(0, 1), (0, 2)]);
    }

    #[test]
    fn a_perfect_evaluation_has_no_confusions() {
        let m = Metrics::new(names(2), &[0, 1, 1], &[0, 1, 1]);
        assert!(m.largest_confusions(10).is_empty());
        assert_eq!(m.confused_cells(), 0);
        assert!(largest_confusions(&[], 3).is_empty());
    }
}
