//! Where the workers run and how they are started: threads of this process, or one worker
//! in each of several processes joined over TCP ([`super::connect`]). Either way the caller
//! hands a closure that every local worker runs and gets back the local workers' results.

use super::{ClusterKey, connect, watch};
use crate::{Error, Result};
use std::time::Duration;
use timely::WorkerConfig;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::worker::Worker;

/// Where the workers run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cluster {
    /// This many worker threads in this process.
    Threads(usize),
    /// One worker in each of several processes.
    Processes(Processes),
}

/// This process's place in a cluster of processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Processes {
    /// Every process's `host:port`, in process order (a hostfile's lines).
    pub addresses: Vec<String>,
    /// This process.
    pub index: usize,
    /// How long to wait for the others to join.
    pub connect_timeout: Duration,
    /// The secret every process proves it holds at the join.
    pub key: ClusterKey,
    /// How long a worker waits for the other processes in one exchange before it takes
    /// one for stopped and ends the run.
    pub peer_timeout: Duration,
}

impl Cluster {
    /// How many workers there are in all.
    pub(crate) fn workers(&self) -> usize {
        match self {
            Cluster::Threads(n) => *n,
            Cluster::Processes(p) => p.addresses.len(),
        }
    }

    /// The index of this process's first worker (its workers are numbered on from it).
    pub(crate) fn first_worker(&self) -> usize {
        match self {
            Cluster::Threads(_) => 0,
            Cluster::Processes(p) => p.index,
        }
    }

    /// Runs `work` on every worker of this process; returns their results in worker order,
    /// or the first error. A worker whose work fails drops its dataflows, so that it ends
    /// rather than waits for peers that have stopped too.
    pub(crate) fn execute<T, F>(&self, work: F) -> Result<Vec<T>>
    where
        T: Send + 'static,
        F: Fn(&mut Worker) -> Result<T> + Send + Sync + 'static,
    {
        let work = move |w: &mut Worker| {
            let r = work(w);
            if r.is_err() {
                for id in w.installed_dataflows() {
                    w.drop_dataflow(id);
                }
            }
            r
        };
        let results = match self {
            Cluster::Threads(n) => {
                watch::start(None);
                timely::execute(timely::Config::process(*n), work)
                    .map_err(|e| Error::Unsupported(format!("the workers could not start: {e}")))?
                    .join()
            }
            Cluster::Processes(p) => {
                watch::start(Some(p.peer_timeout));
                let sockets = connect::connect(&p.addresses, p.index, p.connect_timeout, &p.key)?;
                let hooks = timely::communication::Hooks::default();
                let local = ProcessBuilder::new_typed_vector(1, hooks.refill.clone(), None);
                let (builders, comms) =
                    initialize_networking_from_sockets(local, sockets, p.index, 1, hooks)
                        .map_err(|e| Error::Unsupported(format!("process {}: {e}", p.index)))?;
                let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
                let results = timely::execute::execute_from(
                    builders,
                    Box::new(()),
                    WorkerConfig::default(),
                    work,
                )
                .map_err(|e| Error::Unsupported(format!("the worker could not start: {e}")))?
                .join();
                // The network threads end when every peer has said goodbye; one that
                // went away without it must not keep this process waiting.
                // (Named as timely's threads are, so that a panic of theirs while it joins
                // them is recorded as a lost peer rather than printed.)
                let (done, wait) = std::sync::mpsc::channel();
                let _ = std::thread::Builder::new()
                    .name("timely:comms".into())
                    .spawn(move || {
                        drop(comms);
                        let _ = done.send(());
                    });
                let _ = wait.recv_timeout(Duration::from_secs(10));
                results
            }
        };
        results
            .into_iter()
            .map(|r| {
                r.map_err(|e| match watch::lost() {
                    Some(why) => Error::Unsupported(format!("{why}; the run is abandoned")),
                    None => Error::Unsupported(format!("a worker failed: {e}")),
                })?
            })
            .collect()
    }
}
