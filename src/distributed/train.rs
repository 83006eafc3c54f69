//! Parameter mixing run by timely workers: each worker holds one shard of the training
//! rows and the labels of every binary problem on them (one for a two-class model, one per
//! class for one-vs-rest), runs its epoch of each problem per round from the mixed
//! weights ([`crate::learn::mixing::local_epoch`]), and hands in what changed; the
//! all-reduce ([`super::reduce`]) sums the changes and the round's counts, and every worker
//! applies the mean. The result equals [`crate::learn::mixing::fit_mixed`] on the same
//! shards up to float rounding.
//!
//! Keys of the records: problem c, feature j is `c·(d + 1) + j` and its bias
//! `c·(d + 1) + d`; after those come each problem's updates, mistakes and visits.

use super::Cluster;
use super::reduce::{AllReduce, Record};
use crate::features::{RealMatrix, SparseRows};
use crate::learn::mixing::{
    AverageSum, check_mixable, check_split, close_round, local_epoch, mixing_rule, shard_rows,
};
use crate::learn::{AnyLearner, Checked, Fitted, Label, LinearModel, TrainReport};
use crate::{Error, Result};
use std::sync::{Arc, Mutex};

/// One worker's share: its rows, read in the training geometry, and the ±1 labels of
/// each binary problem on them.
#[derive(Debug, Clone)]
pub struct Shard {
    /// The rows.
    pub x: RealMatrix,
    /// One label vector per problem, aligned with the rows.
    pub y: Vec<Vec<Label>>,
}

/// Splits rows `x` with the labels `y` of each problem into `workers` shards, row i to
/// shard i mod workers (as [`shard_rows`] and the single-process reference split them).
pub fn shards<X: SparseRows>(x: &X, y: &[Vec<Label>], workers: usize) -> Result<Vec<Shard>> {
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
fn owned_rows<X: SparseRows>(x: &X, idx: &[usize]) -> RealMatrix {
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

/// Trains every problem of the shards by parameter mixing on `cluster`'s workers (one
/// shard per worker, in worker order); `n_cols` is the width of the rows. Returns one
/// fitted model per problem, with the rounds' totals as its report.
pub fn train_mixed(
    cluster: &Cluster,
    learner: &Checked<AnyLearner>,
    shards: Vec<Shard>,
    n_cols: usize,
) -> Result<Vec<Fitted<LinearModel>>> {
    check_mixable(learner)?;
    if shards.len() != cluster.workers() {
        return Err(Error::Data(format!(
            "{} shards for {} workers",
            shards.len(),
            cluster.workers()
        )));
    }
    for s in &shards {
        for yc in &s.y {
            crate::learn::check_binary(&s.x, yc)?;
        }
    }
    let slots: Arc<Vec<Mutex<Option<Shard>>>> =
        Arc::new(shards.into_iter().map(|s| Mutex::new(Some(s))).collect());
    let learner = learner.clone();
    let guards = timely::execute(cluster.config(), move |worker| {
        let shard = slots[worker.index()]
            .lock()
            .map(|mut s| s.take())
            .ok()
            .flatten()
            .expect("each worker takes its own shard once");
        run_worker(worker, &learner, &shard, n_cols)
    })
    .map_err(|e| Error::Unsupported(format!("the workers could not start: {e}")))?;
    let mut results = guards.join().into_iter();
    match results.next() {
        Some(Ok(fits)) => Ok(fits),
        Some(Err(e)) => Err(Error::Unsupported(format!("worker 0 failed: {e}"))),
        None => Err(Error::Unsupported("no worker ran".into())),
    }
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

/// One worker's rounds; every worker returns the same models.
fn run_worker(
    worker: &mut timely::worker::Worker,
    learner: &Checked<AnyLearner>,
    shard: &Shard,
    d: usize,
) -> Vec<Fitted<LinearModel>> {
    let mut reduce = AllReduce::new(worker);
    let peers = worker.peers() as f64;
    let (opt, _) = mixing_rule(learner).expect("checked before the workers started");
    let k = shard.y.len();
    let keys = Keys {
        k: k as u64,
        d: d as u64,
    };
    let mut models = vec![LinearModel::zeros(d); k];
    let mut sums = vec![AverageSum::default(); k];
    let mut reports = vec![TrainReport::default(); k];
    let mut done = vec![false; k];
    for round in 0..opt.epochs {
        if done.iter().all(|&x| x) {
            break;
        }
        let mut records: Vec<Record> = Vec::new();
        for c in (0..k).filter(|&c| !done[c]) {
            let l = local_epoch(learner, &shard.x, &shard.y[c], &models[c], round)
                .expect("shards are checked before the workers start");
            let start = &models[c];
            for (j, (&a, &b)) in l.last.w.iter().zip(&start.w).enumerate() {
                if a != b {
                    records.push((keys.weight(c, j), f64::from(a) - f64::from(b)));
                }
            }
            if l.last.bias != start.bias {
                records.push((keys.bias(c), f64::from(l.last.bias) - f64::from(start.bias)));
            }
            for (what, n) in [(0, l.updates), (1, l.mistakes), (2, l.visits)] {
                records.push((keys.count(what, c), n as f64));
            }
            if let Some(a) = &l.average {
                sums[c].add(a, l.visits);
            }
        }
        let mut counts = vec![[0u64; 3]; k];
        for (key, v) in reduce.sum(worker, records) {
            match keys.read(key) {
                Entry::Weight(c, j) if j == d => {
                    models[c].bias = (f64::from(models[c].bias) + v / peers) as f32;
                }
                Entry::Weight(c, j) => {
                    models[c].w[j] = (f64::from(models[c].w[j]) + v / peers) as f32;
                }
                Entry::Count(what, c) => counts[c][what as usize] = v as u64,
            }
        }
        for c in 0..k {
            if done[c] {
                continue;
            }
            let [updates, mistakes, visits] = counts[c];
            done[c] = close_round(&mut reports[c], updates, mistakes, visits, opt.average);
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
        for (key, v) in reduce.sum(worker, records) {
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
    models
        .into_iter()
        .zip(reports)
        .map(|(model, report)| Fitted { model, report })
        .collect()
}
