//! Multi-label targets: a multi-label model fitted on a split's training rows — its
//! thresholds tuned by folds inside those rows only — and scored on the test rows by
//! micro- and macro-F1, for cross-validating multi-label corpora such as Reuters.

use super::{Split, fit_multilabel, run_folds};
use crate::Result;
use crate::eval::MultiLabelMetrics;
use crate::features::{RowSubset, SparseRows};
use crate::learn::compose::multilabel::{MultiLabelOptions, label_counts};
use crate::learn::{AnyLearner, Checked};
use rayon::prelude::*;

/// The labels of every row of a matrix: row `i` carries `names[c]` for each `c` in
/// `of_row[i]` (possibly none).
#[derive(Debug, Clone, Copy)]
pub struct LabelSets<'a> {
    /// The label names, in index order.
    pub names: &'a [String],
    /// Each row's label indices.
    pub of_row: &'a [Vec<usize>],
}

impl LabelSets<'_> {
    fn of(&self, rows: &[usize]) -> Vec<Vec<usize>> {
        rows.iter().map(|&i| self.of_row[i].clone()).collect()
    }
}

/// The `n` labels with the most rows (ties: the lower index first), for the "top 10"
/// figures of multi-label evaluations.
pub(crate) fn most_frequent(counts: &[u32], n: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..counts.len()).collect();
    idx.sort_by(|&a, &b| counts[b].cmp(&counts[a]).then(a.cmp(&b)));
    idx.truncate(n);
    idx
}

/// Fits a multi-label model on the split's training rows of `x` (thresholds as `opt`
/// says, tuned on folds of those rows only) and scores its test rows; the top labels are
/// the 10 most frequent in the training rows.
pub fn score_split_labels<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    labels: LabelSets<'_>,
    opt: &MultiLabelOptions,
    split: &Split,
) -> Result<MultiLabelMetrics> {
    let k = labels.names.len();
    let train_sets = labels.of(&split.train);
    let train = RowSubset::new(x, &split.train);
    let model = fit_multilabel(learner, &train, &train_sets, k, opt)?.model;
    let test = RowSubset::new(x, &split.test);
    let predicted: Vec<Vec<usize>> = (0..test.n_rows())
        .into_par_iter()
        .map(|i| model.labels(test.row(i)).into_iter().map(|l| l.0).collect())
        .collect();
    Ok(MultiLabelMetrics::new(
        labels.names.to_vec(),
        &labels.of(&split.test),
        &predicted,
        most_frequent(&label_counts(&train_sets, k), 10),
    ))
}

/// Cross-validates a multi-label configuration: every split fitted and scored by
/// [`score_split_labels`], folds in parallel, results in fold order. A data error names
/// the fold (1-based).
pub fn cross_validate_labels<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    labels: LabelSets<'_>,
    opt: &MultiLabelOptions,
    splits: &[Split],
) -> Result<Vec<MultiLabelMetrics>> {
    run_folds(splits, |_, s| {
        score_split_labels(learner, x, labels, opt, s)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::{kfold, run_splits_sequential};
    use crate::features::synthetic::zipf_rows;
    use crate::learn::{AveragedPerceptron, Check};

    #[test]
    fn most_frequent_ranks_by_count_then_index() {
        assert_eq!(most_frequent(&[3, 9, 3, 1, 9], 3), vec![1, 4, 0]);
        assert_eq!(most_frequent(&[1], 10), vec![0]);
    }

    #[test]
    fn multi_label_folds_in_parallel_equal_sequential_and_learn_the_labels() {
        let (x, y) = zipf_rows(500, 400, 20, 8);
        // Label 0 follows the synthetic label, label 1 a frequent column; some rows have
        // both, some none.
        let sets = crate::features::synthetic::two_label_sets(&x, &y);
        let names = vec!["a".to_string(), "b".to_string()];
        let labels = LabelSets {
            names: &names,
            of_row: &sets,
        };
        let learner = AnyLearner::AveragedPerceptron(AveragedPerceptron::default())
            .check()
            .unwrap();
        // No fallback label for rows that clear no threshold: label 1's figures are its own.
        let opt = MultiLabelOptions {
            at_least_one: false,
            ..MultiLabelOptions::default()
        };
        let splits = kfold(500, 4, 5).unwrap();
        let par = cross_validate_labels(&learner, &x, labels, &opt, &splits).unwrap();
        let seq = run_splits_sequential(&splits, |_, s| {
            score_split_labels(&learner, &x, labels, &opt, s)
        })
        .unwrap();
        assert_eq!(par, seq);
        for m in &par {
            assert_eq!(m.documents, 125);
            // Label 1 is one column: every fold finds it.
            assert_eq!(m.fp[1] + m.fn_[1], 0, "{m:?}");
        }
    }
}
