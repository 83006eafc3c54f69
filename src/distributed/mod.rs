//! Training past one worker: iterative parameter mixing ([`crate::learn::mixing`]) run on
//! timely dataflow workers. [`Cluster`] says where the workers run (threads of this process
//! for now); [`train::train_mixed`] gives each worker its shard and runs the rounds;
//! [`reduce`] is the all-reduce that mixes the weights.

pub mod reduce;
pub mod train;

pub use train::{Shard, shards, train_mixed};

/// Where the workers run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cluster {
    /// This many worker threads in this process.
    Threads(usize),
}

impl Cluster {
    /// How many workers there are in all.
    pub fn workers(&self) -> usize {
        match self {
            Cluster::Threads(n) => *n,
        }
    }

    /// The timely configuration that starts them.
    pub(crate) fn config(&self) -> timely::Config {
        match self {
            Cluster::Threads(n) => timely::Config::process(*n),
        }
    }
}
