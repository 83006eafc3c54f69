//! The one collective parameter mixing needs, as a timely dataflow: every worker hands in
//! sparse `(key, value)` records for a round, each key's values are summed by the worker
//! that owns the key (keys are exchanged by value, so each key has one owner), and the sums
//! are broadcast, so that every worker ends the round holding every key's total.
//!
//! A round is a timestamp: the worker sends its records, advances the input past the
//! round and steps the dataflow until the probe has passed it; the sums then wait in the
//! worker's sink. Only keys some worker sent travel, so the traffic of a round is about
//! (records sent + distinct keys × workers) × 12 bytes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{Capability, Inspect, Operator, Probe};
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

/// One sparse record: a key and its value.
pub type Record = (u64, f64);

/// A worker's end of the all-reduce.
pub struct AllReduce {
    input: InputHandleVec<usize, Record>,
    probe: ProbeHandle<usize>,
    sink: Rc<RefCell<Vec<Record>>>,
    round: usize,
}

impl AllReduce {
    /// Builds the dataflow on `worker` (every worker must build it, in the same order as
    /// its other dataflows).
    pub fn new(worker: &mut Worker) -> AllReduce {
        let mut input = InputHandleVec::new();
        let probe = ProbeHandle::new();
        let sink: Rc<RefCell<Vec<Record>>> = Rc::default();
        let into = Rc::clone(&sink);
        worker.dataflow::<usize, _, _>(|scope| {
            input
                .to_stream(scope)
                .unary_frontier(Exchange::new(|r: &Record| r.0), "SumByKey", |_, _| {
                    // Rounds still open, each with its capability (a few at most).
                    let mut pending: Vec<(Capability<usize>, HashMap<u64, f64>)> = Vec::new();
                    move |(input, frontier), output| {
                        input.for_each_stamp(|cap, data| {
                            let Some(cap) = cap.retain_least(output.output_index()) else {
                                return;
                            };
                            let at = match pending.iter().position(|(c, _)| c.time() == cap.time())
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
                            for r in sums.drain() {
                                session.give(r);
                            }
                            false
                        });
                    }
                })
                .container::<Vec<Record>>()
                .broadcast()
                .inspect(move |r: &Record| into.borrow_mut().push(*r))
                .probe_with(&probe);
        });
        AllReduce {
            input,
            probe,
            sink,
            round: 0,
        }
    }

    /// Sends this worker's records for the next round and returns every key's sum over
    /// all workers, sorted by key (every worker gets the same list).
    pub fn sum(
        &mut self,
        worker: &mut Worker,
        records: impl IntoIterator<Item = Record>,
    ) -> Vec<Record> {
        for r in records {
            self.input.send(r);
        }
        self.round += 1;
        self.input.advance_to(self.round);
        while self.probe.less_than(self.input.time()) {
            worker.step();
        }
        let mut out = std::mem::take(&mut *self.sink.borrow_mut());
        out.sort_unstable_by_key(|r| r.0);
        out
    }
}
