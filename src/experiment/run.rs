//! Running one task per split — folds in parallel, results in fold order.
//!
//! Each fold is independent (its own fit on its own rows), so running them on rayon's
//! threads gives exactly what running them one after another gives; the sequential path
//! is kept as the reference that tests compare against. When several folds fail, the
//! error reported is the first fold's, as a sequential run would report it.

use super::Split;
use crate::Result;
use rayon::prelude::*;

/// Runs `task(f, split)` for every split `f` in parallel; the results come back in split
/// order, equal to a sequential run's.
pub(crate) fn run_splits<T, F>(splits: &[Split], task: F) -> Result<Vec<T>>
where
    T: Send,
    F: Fn(usize, &Split) -> Result<T> + Sync,
{
    let out: Vec<Result<T>> = splits
        .par_iter()
        .enumerate()
        .map(|(f, s)| task(f, s))
        .collect();
    out.into_iter().collect()
}

/// [`run_splits`], a data error naming the fold (1-based) it happened in: what
/// cross-validation reports.
pub(crate) fn run_folds<T, F>(splits: &[Split], task: F) -> Result<Vec<T>>
where
    T: Send,
    F: Fn(usize, &Split) -> Result<T> + Sync,
{
    run_splits(splits, |f, s| {
        task(f, s).map_err(|e| match e {
            crate::Error::Data(m) => crate::Error::Data(format!("fold {}: {m}", f + 1)),
            other => other,
        })
    })
}

/// The sequential reference path of [`run_splits`].
#[cfg(test)]
pub(crate) fn run_splits_sequential<T, F>(splits: &[Split], task: F) -> Result<Vec<T>>
where
    F: Fn(usize, &Split) -> Result<T>,
{
    splits.iter().enumerate().map(|(f, s)| task(f, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn results_keep_fold_order_and_the_first_error_wins() {
        let splits: Vec<Split> = (0..8)
            .map(|f| Split {
                train: vec![],
                test: vec![f],
            })
            .collect();
        let task = |f: usize, s: &Split| Ok(f * 10 + s.test[0]);
        assert_eq!(
            run_splits(&splits, task).unwrap(),
            run_splits_sequential(&splits, task).unwrap()
        );
        let failing = |f: usize, _: &Split| -> Result<usize> {
            if f % 3 == 2 {
                Err(Error::Data(format!("fold {f}")))
            } else {
                Ok(f)
            }
        };
        let err = run_splits(&splits, failing).unwrap_err();
        assert_eq!(err.to_string(), Error::Data("fold 2".into()).to_string());
    }
}
