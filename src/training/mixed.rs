//! Training over worker threads (`TrainConfig::workers`): parameter mixing on timely with
//! the `cluster` feature, a sentence naming the feature without it.

use crate::Result;
use crate::features::SparseRows;
use crate::learn::{AnyLearner, Checked, Fitted, LabelScorer};
use crate::model::Predictor;

#[cfg(feature = "cluster")]
pub(crate) use over_threads::{fit_classes_mixed, fit_label_sets_mixed};

/// The refusal when this build cannot train over workers.
#[cfg(not(feature = "cluster"))]
fn no_cluster() -> crate::Error {
    crate::Error::Data(
        "training over workers needs rosenblatt built with the `cluster` feature".into(),
    )
}

/// Without the `cluster` feature: refused with a sentence.
#[cfg(not(feature = "cluster"))]
pub(crate) fn fit_classes_mixed<X: SparseRows>(
    _: &Checked<AnyLearner>,
    _: &X,
    _: &[usize],
    _: usize,
    _: usize,
) -> Result<Fitted<Predictor>> {
    Err(no_cluster())
}

/// Without the `cluster` feature: refused with a sentence.
#[cfg(not(feature = "cluster"))]
pub(crate) fn fit_label_sets_mixed<X: SparseRows>(
    _: &Checked<AnyLearner>,
    _: &X,
    _: &[Vec<usize>],
    _: usize,
    _: usize,
) -> Result<Fitted<LabelScorer>> {
    Err(no_cluster())
}

/// The fits over threads, with the `cluster` feature.
#[cfg(feature = "cluster")]
mod over_threads {
    use super::*;
    use crate::learn::{AnyModel, MultiLabel};
    use crate::training::binary_labels;

    /// Fits one binary model per label of multi-label rows (`sets`: each row's label
    /// indices, `k` labels) by parameter mixing over `workers` threads: the scorer of a
    /// multi-label model (its thresholds are tuned apart).
    pub(crate) fn fit_label_sets_mixed<X: SparseRows>(
        learner: &Checked<AnyLearner>,
        x: &X,
        sets: &[Vec<usize>],
        k: usize,
        workers: usize,
    ) -> Result<Fitted<LabelScorer>> {
        let target = MultiLabel::new(sets, k);
        let ys: Vec<_> = (0..k).map(|c| target.one_vs_rest(c)).collect();
        let (models, reports) = mix_problems(learner, x, &ys, workers)?;
        Ok(Fitted {
            model: LabelScorer::OneVsRest(models),
            report: crate::learn::combine_reports(&reports),
        })
    }

    /// The binary problems `ys` on rows `x`, mixed over `workers` threads: their models and
    /// reports.
    fn mix_problems<X: SparseRows>(
        learner: &Checked<AnyLearner>,
        x: &X,
        ys: &[Vec<crate::learn::Label>],
        workers: usize,
    ) -> Result<(Vec<AnyModel>, Vec<crate::learn::TrainReport>)> {
        let fits = crate::training::train_mixed(
            &crate::distributed::Cluster::Threads(workers),
            learner,
            crate::training::shards(x, ys, workers)?,
            x.n_cols(),
        )?;
        Ok(fits
            .into_iter()
            .map(|f| {
                (
                    crate::learn::mixing::mixed_model(learner, f.model),
                    f.report,
                )
            })
            .unzip())
    }

    /// Fits rows whose labels are class indices (`k` classes: binary for two, one-vs-rest
    /// otherwise) by parameter mixing over `workers` threads, as
    /// [`crate::experiment::fit_classes`] fits them with one learner.
    pub(crate) fn fit_classes_mixed<X: SparseRows>(
        learner: &Checked<AnyLearner>,
        x: &X,
        classes: &[usize],
        k: usize,
        workers: usize,
    ) -> Result<Fitted<Predictor>> {
        let problems: Vec<usize> = if k == 2 { vec![1] } else { (0..k).collect() };
        let ys: Vec<_> = problems
            .iter()
            .map(|&c| binary_labels(classes, c))
            .collect();
        let (mut models, reports) = mix_problems(learner, x, &ys, workers)?;
        Ok(if k == 2 {
            Fitted {
                model: Predictor::Binary(models.remove(0)),
                report: reports[0].clone(),
            }
        } else {
            Fitted {
                model: Predictor::OneVsRest(models),
                report: crate::learn::combine_reports(&reports),
            }
        })
    }
}
