//! The cluster's transport, on timely dataflow workers: [`Cluster`] says where the workers
//! run (threads of this process, or processes joined by [`connect`] under a
//! [`ClusterKey`]); `reduce` is the all-reduce the mixing rounds of
//! [`crate::training`] exchange their weights through; `watch` notices a peer that broke
//! off; [`gather_scores`] brings scores computed over shares back in input order. What is
//! trained over it lives in `training`.

mod cluster;
pub mod connect;
mod key;
pub(crate) mod reduce;
mod score;
mod watch;

pub use cluster::{Cluster, Processes};
pub use key::ClusterKey;
pub use score::{Gathered, gather_scores};
