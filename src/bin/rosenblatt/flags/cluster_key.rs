//! `rosenblatt cluster-key FILE`'s flags: where the new key goes.

use clap::Args;
use std::path::PathBuf;

/// `rosenblatt cluster-key`.
#[derive(Debug, Args)]
#[command(
    after_help = "Copy the file to every host of the cluster (readable by the user \
who runs rosenblatt only: `chmod 600`), and give it to every process with --cluster-key FILE. \
Processes prove to each other that they hold it before any data moves; see docs/SCALE-OUT.md \
for what this protects and what it does not."
)]
pub struct ClusterKeyArgs {
    /// The key file to create (it must not exist yet).
    #[arg(help_heading = "Output")]
    pub file: PathBuf,
}
