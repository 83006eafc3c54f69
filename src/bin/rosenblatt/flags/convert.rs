//! `rosenblatt convert FROM TO`'s flags: which form of a filter to write where.

use clap::Args;
use std::path::PathBuf;

/// `rosenblatt convert`.
#[derive(Debug, Args)]
#[command(
    after_help = "A model file becomes a store (a folder, created new); a store \
becomes a model file (written atomically). Both forms decide every message alike: the store \
is the form for a mail server, where classify reads and learn writes only one message's \
features per process; the model file is the form for moving a filter between machines and \
for eval and inspect. A store is read in one transaction, so converting it while mail is \
delivered gives the filter as of one moment."
)]
pub struct ConvertArgs {
    /// The filter to convert: a model file or a store folder.
    #[arg(help_heading = "Input")]
    pub from: PathBuf,
    /// Where the other form goes: a store folder that does not exist yet, or a model file.
    #[arg(help_heading = "Output")]
    pub to: PathBuf,
    /// Print one JSON object.
    #[arg(long, help_heading = "Output")]
    pub json: bool,
}
