//! Parameter mixing run by timely workers: each worker holds one shard of the training
//! rows and the labels of every binary problem on them (one for a two-class model, one per
//! class for one-vs-rest), runs its epoch of each problem per round from the mixed
//! weights (`crate::learn::mixing::local_epoch`), and hands in what changed times its
//! update count; the all-reduce (`super::reduce`) sums those and the round's counts, and
//! every worker adds the sum divided by all updates (the error-weighted mix). The result equals [`crate::learn::mixing::fit_mixed`] on the same
//! shards up to float rounding.
//!
//! Keys of the records: problem c, feature j is `c·(d + 1) + j` and its bias
//! `c·(d + 1) + d`; after those come each problem's updates, mistakes and visits.

use crate::distributed::Cluster;
use crate::distributed::reduce::{AllReduce, Record};
use crate::features::{RealMatrix, SparseRows};
use crate::learn::mixing::{
    AverageSum, check_mixable, check_split, close_round, local_epoch, mix_plan, shard_rows,
};
use crate::learn::{AnyLearner, Checked, Fitted, Label, LinearModel, TrainReport};
use crate::{Error, Result};
use std::sync::{Arc, Mutex};

/// One worker's share: its rows, read in the training geometry, and the ±1 labels of
/// each binary problem on them.
#[derive(Debug, Clone)]
pub(crate) struct Shard {
    /// The rows.
    pub x: RealMatrix,
    /// One label vector per problem, aligned with the rows.
    pub y: Vec<Vec<Label>>,
}

/// Splits rows `x` with the labels `y` of each problem into `workers` shards, row i to
/// shard i mod workers (as `shard_rows` and the single-process reference split them).
pub(crate) fn shards<X: SparseRows>(x: &X, y: &[Vec<Label>], workers: usize) -> Result<Vec<Shard>> {
    check_split(x.n_rows(), workers)?;
    Ok((0..workers)
        .map(|s| {
            let rows = shard_rows(x.n_rows(), workers, s);
            Shard {
                x: owned_rows(x, &rows),
                y: y.iter()
                    .map(|yc| rows.iter().map(|&i| yc[i]).collect())
                    .collect(),
            }
        })
        .collect())
}

/// Rows `idx` of `x` as an owned matrix with their values as `x` reads them.
pub(crate) fn owned_rows<X: SparseRows>(x: &X, idx: &[usize]) -> RealMatrix {
    let mut indptr = Vec::with_capacity(idx.len() + 1);
    indptr.push(0usize);
    let (mut indices, mut data) = (Vec::new(), Vec::new());
    for &i in idx {
        for (j, v) in x.row(i).iter() {
            indices.push(j);
            data.push(v);
        }
        indptr.push(indices.len());
    }
    RealMatrix::new((idx.len(), x.n_cols()), indptr, indices, data)
}

/// One round's totals over every worker, for progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    /// The round, from 1.
    pub round: usize,
    /// The most rounds the run makes (it stops sooner once no worker updates).
    pub rounds: usize,
    /// Updates made in it over all workers and problems.
    pub updates: u64,
    /// Records (key, value: 16 bytes) worker 0 sent: its changed weights and its counts.
    pub sent: usize,
    /// Sums every worker received: the keys any worker changed, with the counts.
    pub received: usize,
    /// Seconds since training began.
    pub seconds: f64,
}

/// Trains every problem of this process's shards by parameter mixing on `cluster`'s
/// workers (one shard per local worker, in worker order); `n_cols` is the width of the
/// rows. Returns one fitted model per problem, with the rounds' totals as its report.
pub(crate) fn train_mixed(
    cluster: &Cluster,
    learner: &Checked<AnyLearner>,
    shards: Vec<Shard>,
    n_cols: usize,
) -> Result<Vec<Fitted<LinearModel>>> {
    check_shards(cluster, learner, &shards)?;
    let slots = slots(shards);
    let learner = learner.clone();
    let first = cluster.first_worker();
    let mut results = cluster
        .execute(move |worker| {
            let shard = take(&slots, worker.index() - first);
            let mut reduce = AllReduce::new(worker);
            run_worker(worker, &mut reduce, &learner, &shard, n_cols, &|_| ())
        })?
        .into_iter();
    results
        .next()
        .ok_or_else(|| Error::Unsupported("no worker ran".into()))
}

/// Refuses a learner that does not mix, a shard count other than the local workers', and
/// shards that are not binary problems.
pub(crate) fn check_shards(
    cluster: &Cluster,
    learner: &Checked<AnyLearner>,
    shards: &[Shard],
) -> Result<()> {
    check_mixable(learner)?;
    let local = match cluster {
        Cluster::Threads(n) => *n,
        Cluster::Processes(_) => 1,
    };
    if shards.len() != local {
        return Err(Error::Data(format!(
            "{} shards for {local} local workers",
            shards.len()
        )));
    }
    for s in shards {
        for yc in &s.y {
            crate::learn::check_binary(&s.x, yc)?;
        }
    }
    Ok(())
}

/// Shards waiting for their workers, each taken once.
type Slots<T> = Arc<Vec<Mutex<Option<T>>>>;

pub(crate) fn slots<T>(items: Vec<T>) -> Slots<T> {
    Arc::new(items.into_iter().map(|s| Mutex::new(Some(s))).collect())
}

pub(crate) fn take<T>(slots: &Slots<T>, i: usize) -> T {
    slots[i]
        .lock()
        .map(|mut s| s.take())
        .ok()
        .flatten()
        .expect("each worker takes its own shard once")
}

/// Where problem `c`'s entries live among the record keys.
#[derive(Debug, Clone, Copy)]
struct Keys {
    k: u64,
    d: u64,
}

impl Keys {
    fn weight(self, c: usize, j: usize) -> u64 {
        c as u64 * (self.d + 1) + j as u64
    }
    fn bias(self, c: usize) -> u64 {
        self.weight(c, self.d as usize)
    }
    /// Counts: 0 updates, 1 mistakes, 2 visits.
    fn count(self, what: u64, c: usize) -> u64 {
        self.k * (self.d + 1) + what * self.k + c as u64
    }
    /// What a key holds: a weight or bias (problem, feature; d = bias) or a count.
    fn read(self, key: u64) -> Entry {
        let block = self.k * (self.d + 1);
        if key < block {
            Entry::Weight((key / (self.d + 1)) as usize, (key % (self.d + 1)) as usize)
        } else {
            let r = key - block;
            Entry::Count(r / self.k, (r % self.k) as usize)
        }
    }
}

enum Entry {
    Weight(usize, usize),
    Count(u64, usize),
}

/// One worker's rounds over `reduce`; every worker returns the same models. `progress`
/// hears of every round on worker 0.
pub(crate) fn run_worker(
    worker: &mut timely::worker::Worker,
    reduce: &mut AllReduce,
    learner: &Checked<AnyLearner>,
    shard: &Shard,
    d: usize,
    progress: &dyn Fn(Round),
) -> Result<Vec<Fitted<LinearModel>>> {
    let start = std::time::Instant::now();
    let opt = mix_plan(learner).expect("checked before the workers started");
    let k = shard.y.len();
    let keys = Keys {
        k: k as u64,
        d: d as u64,
    };
    let mut models = vec![LinearModel::zeros(d); k];
    let mut sums = vec![AverageSum::default(); k];
    let mut reports = vec![TrainReport::default(); k];
    let mut done = vec![false; k];
    for round in 0..opt.rounds {
        if done.iter().all(|&x| x) {
            break;
        }
        let mut records: Vec<Record> = Vec::new();
        for c in (0..k).filter(|&c| !done[c]) {
            let l = local_epoch(learner, &shard.x, &shard.y[c], &models[c], round)?;
            // Each change weighted by the worker's updates: the sum over workers, divided
            // by all their updates, is the error-weighted mix.
            let (start, mu) = (&models[c], l.updates as f64);
            for (j, (&a, &b)) in l.last.w.iter().zip(&start.w).enumerate() {
                if a != b {
                    records.push((keys.weight(c, j), mu * (f64::from(a) - f64::from(b))));
                }
            }
            if l.last.bias != start.bias {
                records.push((
                    keys.bias(c),
                    mu * (f64::from(l.last.bias) - f64::from(start.bias)),
                ));
            }
            for (what, n) in [(0, l.updates), (1, l.mistakes), (2, l.visits)] {
                records.push((keys.count(what, c), n as f64));
            }
            if let Some(a) = &l.average {
                sums[c].add(a, l.visits);
            }
        }
        let sent = records.len();
        let sums = reduce.sum(worker, records)?;
        let received = sums.len();
        let mut counts = vec![[0u64; 3]; k];
        for &(key, v) in &sums {
            if let Entry::Count(what, c) = keys.read(key) {
                counts[c][what as usize] = v as u64;
            }
        }
        for (key, v) in sums {
            if let Entry::Weight(c, j) = keys.read(key) {
                let step = v / counts[c][0].max(1) as f64;
                let w = if j == d {
                    &mut models[c].bias
                } else {
                    &mut models[c].w[j]
                };
                *w = (f64::from(*w) + step) as f32;
            }
        }
        for c in 0..k {
            if done[c] {
                continue;
            }
            let [updates, mistakes, visits] = counts[c];
            done[c] = close_round(&mut reports[c], updates, mistakes, visits, opt.average);
        }
        if worker.index() == 0 {
            progress(Round {
                round: round + 1,
                rounds: opt.rounds,
                updates: counts.iter().map(|c| c[0]).sum(),
                sent,
                received,
                seconds: start.elapsed().as_secs_f64(),
            });
        }
    }
    if opt.average {
        // One more exchange: the visit-weighted sums of every worker's averages.
        let mut records: Vec<Record> = Vec::new();
        for (c, s) in sums.iter().enumerate() {
            for (j, &v) in s.w.iter().enumerate() {
                if v != 0.0 {
                    records.push((keys.weight(c, j), v));
                }
            }
            records.push((keys.bias(c), s.bias));
            records.push((keys.count(2, c), s.visits as f64));
        }
        let mut totals = vec![
            AverageSum {
                w: vec![0.0; d],
                ..AverageSum::default()
            };
            k
        ];
        for (key, v) in reduce.sum(worker, records)? {
            match keys.read(key) {
                Entry::Weight(c, j) if j == d => totals[c].bias = v,
                Entry::Weight(c, j) => totals[c].w[j] = v,
                Entry::Count(_, c) => totals[c].visits = v as u64,
            }
        }
        for (m, t) in models.iter_mut().zip(&totals) {
            *m = t.model();
        }
    }
    Ok(models
        .into_iter()
        .zip(reports)
        .map(|(model, report)| Fitted { model, report })
        .collect())
}
