//! `--processes N --process I --hostfile FILE --cluster-key FILE --connect-timeout SECS
//! --peer-timeout SECS`: running one of
//! several processes that train, classify or evaluate together, each on its share of the
//! input.

use anyhow::{Result, bail};
use clap::Args;
use rosenblatt::distributed::{ClusterKey, Processes, connect};
use std::path::PathBuf;
use std::time::Duration;

/// Where this process stands in a cluster.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Cluster")]
pub struct ClusterArgs {
    /// Run as one of N processes (on one host or several), each reading only its share
    /// of the input: file, line or message k goes to process k mod N. Start the same
    /// command on every host with its own --process; they find each other through
    /// --hostfile. train: process 0 prints the progress and writes the model (for the
    /// learners --workers mixes, on documents or mail with one label each); classify and
    /// eval: process 0 prints every line in input order, or the metrics.
    #[arg(long, value_name = "N", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub processes: Option<usize>,
    /// This process's index, 0 to N-1 (its line in the hostfile, counted from 0).
    #[arg(long, value_name = "I", requires = "processes", value_parser = super::names::whole(0usize), allow_negative_numbers = true)]
    pub process: Option<usize>,
    /// Every process's host:port, one line each in process order (`#` starts a comment);
    /// process I listens on line I's port.
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub hostfile: Option<PathBuf>,
    /// Seconds to wait for the other processes to join before giving up with an error.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 30,
        requires = "processes",
        value_parser = super::names::whole(1u64),
        allow_negative_numbers = true
    )]
    pub connect_timeout: u64,
    /// The cluster key every process holds (created by `rosenblatt cluster-key FILE`,
    /// readable by its owner only): processes prove it to each other before any data
    /// moves, and a connection that cannot is dropped.
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub cluster_key: Option<PathBuf>,
    /// Seconds one exchange between the processes may wait before the run ends: a
    /// process stopped or hung (its connection still open) is given up on after it. Raise
    /// it when one round of training on a share takes longer.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 300,
        requires = "processes",
        value_parser = super::names::whole(1u64),
        allow_negative_numbers = true
    )]
    pub peer_timeout: u64,
}

/// The longest --connect-timeout and --peer-timeout: a week.
const MAX_WAIT: u64 = 7 * 24 * 3600;

impl ClusterArgs {
    /// The cluster this process joins, checked; `None` without `--processes`.
    pub fn plan(&self) -> Result<Option<Processes>> {
        let Some(n) = self.processes else {
            return Ok(None);
        };
        if n == 0 {
            bail!("--processes must be at least 1");
        }
        let Some(index) = self.process else {
            bail!(
                "--processes {n} needs --process I: this process's index, 0 to {}",
                n - 1
            );
        };
        if index >= n {
            bail!(
                "--process {index} is not one of the {n} processes (0 to {})",
                n - 1
            );
        }
        let Some(hostfile) = &self.hostfile else {
            bail!("--processes needs --hostfile FILE: one host:port line per process");
        };
        for (flag, secs) in [
            ("--connect-timeout", self.connect_timeout),
            ("--peer-timeout", self.peer_timeout),
        ] {
            if !(1..=MAX_WAIT).contains(&secs) {
                bail!("{flag} must be 1 to {MAX_WAIT} seconds (a week), got {secs}");
            }
        }
        let Some(key) = &self.cluster_key else {
            bail!(
                "--processes needs --cluster-key FILE: the secret every process proves it \
                 holds (create one with `rosenblatt cluster-key FILE` and copy it to every host)"
            );
        };
        Ok(Some(Processes {
            addresses: connect::read_hostfile(hostfile, n)?,
            index,
            connect_timeout: Duration::from_secs(self.connect_timeout),
            key: ClusterKey::load(key)?,
            peer_timeout: Duration::from_secs(self.peer_timeout),
        }))
    }
}
