//! `rosenblatt cluster-key FILE`: a new secret for the processes of a cluster, in a file
//! only its owner may read.

use anyhow::Result;
use rosenblatt::distributed::ClusterKey;
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs `cluster-key`.
pub fn run(file: PathBuf) -> Result<ExitCode> {
    ClusterKey::create(&file)?;
    outln!(
        "wrote a new cluster key to {} (readable by you only); copy it to every host and \
         give it to every process with --cluster-key",
        file.display()
    );
    Ok(ExitCode::SUCCESS)
}
