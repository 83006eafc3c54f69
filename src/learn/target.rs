//! What a learner fits to, besides the rows: ±1 labels (a binary problem, `[Label]`), one
//! class per row ([`Multiclass`]) or a set of labels per row ([`MultiLabel`]). Each target
//! is a type, so the model a fit returns follows from the target.

use super::{Label, SparseRows};
use crate::{Error, Result};

/// Single-label targets over `k` classes: row i belongs to class `classes[i]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Multiclass<'a> {
    /// Each row's class, below `k`.
    pub classes: &'a [usize],
    /// The number of classes.
    pub k: usize,
}

impl<'a> Multiclass<'a> {
    /// Rows of `k` classes, row i of class `classes[i]`.
    pub fn new(classes: &'a [usize], k: usize) -> Self {
        Multiclass { classes, k }
    }

    /// The ±1 labels of the problem "class `c` against the rest".
    pub(crate) fn one_vs_rest(&self, c: usize) -> Vec<Label> {
        self.classes
            .iter()
            .map(|&i| if i == c { 1 } else { -1 })
            .collect()
    }

    /// Checks that there is one class per row of `x`, each below `k`, and at least two.
    pub(crate) fn check<X: SparseRows>(&self, x: &X) -> Result<()> {
        rows_match(x, self.classes.len(), "classes")?;
        if self.k < 2 {
            return Err(Error::Data(format!(
                "a multiclass problem needs at least two classes, got {}",
                self.k
            )));
        }
        below_k(self.classes.iter(), self.k)
    }
}

/// Label-set targets over `k` labels: row i carries every label in `sets[i]` (maybe none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiLabel<'a> {
    /// Each row's labels, each below `k`.
    pub sets: &'a [Vec<usize>],
    /// The number of labels.
    pub k: usize,
}

impl<'a> MultiLabel<'a> {
    /// Rows with label sets over `k` labels.
    pub(crate) fn new(sets: &'a [Vec<usize>], k: usize) -> Self {
        MultiLabel { sets, k }
    }

    /// The ±1 labels of the problem "label `c` or not".
    pub(crate) fn one_vs_rest(&self, c: usize) -> Vec<Label> {
        self.sets
            .iter()
            .map(|s| if s.contains(&c) { 1 } else { -1 })
            .collect()
    }

    /// Checks that there is one label set per row of `x`, every label below `k`.
    pub(crate) fn check<X: SparseRows>(&self, x: &X) -> Result<()> {
        rows_match(x, self.sets.len(), "label sets")?;
        below_k(self.sets.iter().flatten(), self.k)
    }
}

fn rows_match<X: SparseRows>(x: &X, n: usize, what: &str) -> Result<()> {
    x.check_rows()?;
    if x.n_rows() == n {
        Ok(())
    } else {
        Err(Error::Data(format!("{} rows but {n} {what}", x.n_rows())))
    }
}

fn below_k<'a>(mut labels: impl Iterator<Item = &'a usize>, k: usize) -> Result<()> {
    match labels.find(|&&c| c >= k) {
        Some(c) => Err(Error::Data(format!("label index {c} is not below {k}"))),
        None => Ok(()),
    }
}
