//! Training past one worker: iterative parameter mixing ([`crate::learn::mixing`]) run on
//! timely dataflow workers. [`Cluster`] says where the workers run (threads of this
//! process, or processes joined by [`connect`]); [`train::train_mixed`] gives each worker its shard and runs the rounds;
//! `reduce` is the all-reduce that mixes the weights.

mod cluster;
pub mod connect;
mod documents;
mod key;
pub(crate) mod reduce;
mod score;
pub mod train;
mod watch;

pub use cluster::{Cluster, Processes};
pub(crate) use documents::train_documents;
pub use key::ClusterKey;
pub use score::{Gathered, gather_scores};
pub use train::{Round, Shard, shards, train_mixed};

use crate::Result;
use crate::features::SparseRows;
use crate::learn::{AnyLearner, AnyModel, Checked, Fitted, LabelScorer, MultiLabel};
use crate::model::Predictor;
use crate::training::binary_labels;

/// Fits one binary model per label of multi-label rows (`sets`: each row's label
/// indices, `k` labels) by parameter mixing over `workers` threads: the scorer of a
/// multi-label model (its thresholds are tuned apart).
pub fn fit_label_sets<X: SparseRows>(
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
    let fits = train_mixed(
        &Cluster::Threads(workers),
        learner,
        shards(x, ys, workers)?,
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
pub fn fit_classes<X: SparseRows>(
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
