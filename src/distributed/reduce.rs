//! The one collective parameter mixing needs, as a timely dataflow: every worker hands in
//! sparse `(key, value)` records for a round, each key's values are summed by the worker
//! that owns the key (keys are exchanged by value, so each key has one owner), and the sums
//! are broadcast, so that every worker ends the round holding every key's total.
//!
//! A round is a timestamp: the worker sends its records, advances the input past the
//! round and steps the dataflow until the probe has passed it; the sums then wait in the
//! worker's sink. Only keys some worker sent travel, so the traffic of a round is about
//! (records sent + distinct keys × workers) × 16 bytes for numeric keys.
//!
//! Keys are numbers (weights, counts) or words (the vocabulary's document frequencies);
//! a key's owner is fixed by a hash that is the same in every process. The owner can
//! drop small sums before they are broadcast (a vocabulary's `--min-df`).

use super::watch;
use crate::{Error, Result};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::Hash;
use std::rc::Rc;
use std::time::{Duration, Instant};
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{Capability, Inspect, Operator, Probe};
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

/// One sparse record: a key and its value.
pub(crate) type Record<K = u64> = (K, f64);

/// What can key a record: it travels between processes and names its owner.
pub(crate) trait Key: timely::ExchangeData + Clone + Hash + Eq + Ord {
    /// A hash that every process computes alike: the owner is `route() mod workers`.
    fn route(&self) -> u64;
}

impl Key for u64 {
    fn route(&self) -> u64 {
        *self
    }
}

impl Key for String {
    fn route(&self) -> u64 {
        crate::fnv::fnv1a(self.as_bytes())
    }
}

/// A worker's end of the all-reduce.
pub(crate) struct AllReduce<K: Key = u64> {
    input: InputHandleVec<usize, Record<K>>,
    probe: ProbeHandle<usize>,
    sink: Rc<RefCell<Vec<Record<K>>>>,
    floor: Rc<Cell<f64>>,
    round: usize,
}

impl<K: Key> AllReduce<K> {
    /// Builds the dataflow on `worker` (every worker must build it, in the same order as
    /// its other dataflows).
    pub(crate) fn new(worker: &mut Worker) -> AllReduce<K> {
        let mut input = InputHandleVec::new();
        let probe = ProbeHandle::new();
        let sink: Rc<RefCell<Vec<Record<K>>>> = Rc::default();
        let into = Rc::clone(&sink);
        let floor = Rc::new(Cell::new(f64::NEG_INFINITY));
        let keep = Rc::clone(&floor);
        worker.dataflow::<usize, _, _>(|scope| {
            input
                .to_stream(scope)
                .unary_frontier(
                    Exchange::new(|r: &Record<K>| r.0.route()),
                    "SumByKey",
                    |_, _| {
                        // Rounds still open, each with its capability (a few at most).
                        let mut pending: Vec<(Capability<usize>, HashMap<K, f64>)> = Vec::new();
                        move |(input, frontier), output| {
                            input.for_each_stamp(|cap, data| {
                                let Some(cap) = cap.retain_least(output.output_index()) else {
                                    return;
                                };
                                let at = match pending
                                    .iter()
                                    .position(|(c, _)| c.time() == cap.time())
                                {
                                    Some(i) => i,
                                    None => {
                                        pending.push((cap, HashMap::new()));
                                        pending.len() - 1
                                    }
                                };
                                let sums = &mut pending[at].1;
                                for batch in data {
                                    for (k, v) in batch.drain(..) {
                                        *sums.entry(k).or_insert(0.0) += v;
                                    }
                                }
                            });
                            // A round whose records have all arrived sends its sums on.
                            pending.retain_mut(|(cap, sums)| {
                                if frontier.less_equal(cap.time()) {
                                    return true;
                                }
                                let mut session = output.session(cap);
                                let floor = keep.get();
                                for r in sums.drain().filter(|r| r.1 >= floor) {
                                    session.give(r);
                                }
                                false
                            });
                        }
                    },
                )
                .container::<Vec<Record<K>>>()
                .broadcast()
                .inspect(move |r: &Record<K>| into.borrow_mut().push(r.clone()))
                .probe_with(&probe);
        });
        AllReduce {
            input,
            probe,
            sink,
            floor,
            round: 0,
        }
    }

    /// Sends this worker's records for the next round and returns every key's sum over
    /// all workers, in no particular order (every worker gets the same sums); an error if
    /// a peer process went away meanwhile.
    pub(crate) fn sum(
        &mut self,
        worker: &mut Worker,
        records: impl IntoIterator<Item = Record<K>>,
    ) -> Result<Vec<Record<K>>> {
        self.sum_at_least(worker, records, f64::NEG_INFINITY)
    }

    /// As [`AllReduce::sum`], keeping only the sums of at least `floor`: the others are
    /// dropped by their owner and never broadcast.
    pub(crate) fn sum_at_least(
        &mut self,
        worker: &mut Worker,
        records: impl IntoIterator<Item = Record<K>>,
        floor: f64,
    ) -> Result<Vec<Record<K>>> {
        self.floor.set(floor);
        for r in records {
            self.input.send(r);
        }
        self.round += 1;
        self.input.advance_to(self.round);
        let since = Instant::now();
        while self.probe.less_than(self.input.time()) {
            if let Some(why) = watch::lost().or_else(|| watch::waited_too_long(since)) {
                return Err(Error::Unsupported(format!(
                    "worker {}: {why}; the run is abandoned",
                    worker.index()
                )));
            }
            worker.step_or_park(Some(Duration::from_millis(20)));
        }
        Ok(std::mem::take(&mut *self.sink.borrow_mut()))
    }
}

/// Key prefix of a process's error in a word-keyed round of [`agree`].
const FAILED: char = '!';

/// A word-keyed round in which every process also says whether its own part went well:
/// `records` (this process's, when `local` is `Ok`) are summed as by [`AllReduce::sum`],
/// and an error travels beside them; if any process failed, every process returns the
/// same error, naming each process that failed and why, so that all stop together.
pub(crate) fn agree<T>(
    worker: &mut Worker,
    words: &mut AllReduce<String>,
    local: &Result<T>,
    records: Vec<Record<String>>,
) -> Result<Vec<Record<String>>> {
    let records = match local {
        Ok(_) => records,
        Err(e) => vec![(format!("{FAILED}process {}: {e}", worker.index()), 1.0)],
    };
    let totals = words.sum(worker, records)?;
    let mut errors: Vec<&str> = totals
        .iter()
        .filter_map(|(k, _)| k.strip_prefix(FAILED))
        .collect();
    if errors.is_empty() {
        return Ok(totals);
    }
    errors.sort_unstable();
    Err(Error::Data(errors.join("; ")))
}
