//! Scoring over a cluster: each process reads and scores only its share of the input
//! ([`crate::input::Share`]), and process 0 gathers every document's result back in input
//! order, so that it can print what one process scoring everything would print.
//!
//! 1. Each worker scores its share: a list of `(unit, result)`, the unit being the
//!    document's number in the share numbering (a file, a non-blank line, a message).
//! 2. The workers agree, through a word-keyed all-reduce, on whether every share could
//!    be read and on how many documents there are, so that all stop together on an error.
//! 3. Every result is sent to worker 0 (an exchange whose every record is routed to it),
//!    which sorts them by unit. A unit holds the documents of one process only, and each
//!    process sends its own in order, so sorting by (unit, place in the sender's list)
//!    restores the input order exactly, even where a unit yields several documents (a
//!    file of several messages) or none (a file that could not be read).
//!
//! Traffic: each result crosses the network once, to process 0, which holds them all:
//! about (16 bytes + the result's size) per document — a line of output for `classify`,
//! the true class, decision and score for `eval`.

use super::reduce::{AllReduce, agree};
use super::{Cluster, watch};
use crate::input::Share;
use crate::{Error, Result};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;
use timely::dataflow::operators::{Exchange, Inspect, Probe};
use timely::dataflow::{InputHandleVec, ProbeHandle};

/// Key of the document count in the word-keyed agreement.
const DOCS: &str = "n";

/// What process 0 gathered from every share; the other processes learn the total only.
#[derive(Debug, Clone, PartialEq)]
pub struct Gathered<T> {
    /// How many documents every share scored together.
    pub total: usize,
    /// On process 0: every document's result, in input order; `None` elsewhere.
    pub results: Option<Vec<T>>,
}

/// Runs `score` on each worker's share of the input and gathers the results, in input
/// order, on worker 0 (process 0). `score` returns `(unit, result)` pairs, units rising
/// (see [`crate::input::DocStream::units`] and [`crate::input::mail::MailCorpus::units`]).
/// A share that fails to read or score ends every process with the same error, naming
/// the process whose share it was.
pub fn gather_scores<T, F>(cluster: &Cluster, score: F) -> Result<Gathered<T>>
where
    T: timely::ExchangeData + Clone,
    F: Fn(Share) -> Result<Vec<(usize, T)>> + Send + Sync + 'static,
{
    let workers = cluster.workers();
    let score = Arc::new(score);
    let results = cluster.execute(move |worker| {
        let mut words: AllReduce<String> = AllReduce::new(worker);
        let mut input: InputHandleVec<usize, (usize, usize, T)> = InputHandleVec::new();
        let probe = ProbeHandle::new();
        let sink: Rc<RefCell<Vec<(usize, usize, T)>>> = Rc::default();
        let into = Rc::clone(&sink);
        worker.dataflow::<usize, _, _>(|scope| {
            input
                .to_stream(scope)
                .exchange(|_| 0)
                .inspect(move |r: &(usize, usize, T)| into.borrow_mut().push(r.clone()))
                .probe_with(&probe);
        });
        let share = Share {
            index: worker.index(),
            of: workers,
        };

        // 1. Score, and 2. agree on whether everyone could, and on the count.
        let scored = score(share);
        let count = match &scored {
            Ok(r) => vec![(DOCS.to_string(), r.len() as f64)],
            Err(_) => Vec::new(),
        };
        let totals = agree(worker, &mut words, &scored, count)?;
        let scored = scored?;
        let total = totals
            .iter()
            .find(|(k, _)| k == DOCS)
            .map_or(0, |r| r.1 as usize);

        // 3. Every result to worker 0.
        for (place, (unit, r)) in scored.into_iter().enumerate() {
            input.send((unit, place, r));
        }
        input.advance_to(1);
        while probe.less_than(input.time()) {
            if let Some(why) = watch::lost() {
                return Err(Error::Unsupported(format!(
                    "worker {}: {why}; the run is abandoned",
                    worker.index()
                )));
            }
            worker.step_or_park(Some(Duration::from_millis(20)));
        }
        if worker.index() != 0 {
            return Ok(Gathered {
                total,
                results: None,
            });
        }
        let mut all = std::mem::take(&mut *sink.borrow_mut());
        all.sort_unstable_by_key(|r| (r.0, r.1));
        Ok(Gathered {
            total,
            results: Some(all.into_iter().map(|r| r.2).collect()),
        })
    })?;
    // One worker per process, or threads of this one: the first holds the results.
    let mut results = results.into_iter();
    let first = results
        .next()
        .ok_or_else(|| Error::Unsupported("no worker ran".into()))?;
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_unit_order() {
        // 23 units; unit 5 yields two documents, unit 7 none.
        for threads in 1..4 {
            let got = gather_scores(&Cluster::Threads(threads), |share: Share| {
                Ok((0..23)
                    .filter(|&k| share.takes(k) && k != 7)
                    .flat_map(|k| {
                        let n = if k == 5 { 2 } else { 1 };
                        (0..n).map(move |i| (k, format!("{k}.{i}")))
                    })
                    .collect())
            })
            .unwrap();
            let want: Vec<String> = (0..23)
                .filter(|&k| k != 7)
                .flat_map(|k| (0..if k == 5 { 2 } else { 1 }).map(move |i| format!("{k}.{i}")))
                .collect();
            assert_eq!(got.total, 23);
            assert_eq!(got.results, Some(want), "{threads} workers");
        }
    }

    #[test]
    fn an_error_in_one_share_ends_every_worker_with_it() {
        let e = gather_scores(&Cluster::Threads(3), |share: Share| {
            if share.index == 1 {
                Err(Error::Data("x.tsv: unreadable".into()))
            } else {
                Ok(vec![(share.index, 1.0f32)])
            }
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("process 1: x.tsv: unreadable"), "{e}");
    }
}
