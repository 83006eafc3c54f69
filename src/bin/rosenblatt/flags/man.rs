//! `rosenblatt man [SUBCOMMAND]`'s flags and plan: the whole manual page, or one
//! subcommand's page of its own.

use clap::builder::PossibleValuesParser;
use clap::{Args, CommandFactory};

/// The subcommands, as `man SUBCOMMAND` accepts them (a test checks them against
/// [`Command`](super::Command)).
pub const SUBCOMMANDS: [&str; 12] = [
    "train",
    "classify",
    "eval",
    "inspect",
    "learn",
    "convert",
    "serve",
    "bench",
    "vectorize",
    "cluster-key",
    "completions",
    "man",
];

/// `rosenblatt man`.
#[derive(Debug, Args)]
#[command(
    after_help = "Read it at once with `man -l <(rosenblatt man)`, or install it where \
man finds it, with each subcommand's page beside it (for `man rosenblatt-train`):
  rosenblatt man > ~/.local/share/man/man1/rosenblatt.1
  rosenblatt man train > ~/.local/share/man/man1/rosenblatt-train.1"
)]
pub struct ManArgs {
    /// Print this subcommand's page (rosenblatt-SUBCOMMAND(1)) instead of the whole
    /// manual, rosenblatt(1), which describes every subcommand in a section of its own.
    #[arg(value_name = "SUBCOMMAND", value_parser = PossibleValuesParser::new(SUBCOMMANDS))]
    pub subcommand: Option<String>,
}

/// What `man` prints.
#[derive(Debug, Clone)]
pub struct ManPlan {
    /// The whole command line, every subcommand and flag.
    pub command: clap::Command,
    /// The subcommand whose own page is printed; the whole manual when `None`.
    pub subcommand: Option<String>,
}

/// Turns `man`'s flags into a plan (clap has already refused an unknown subcommand).
pub fn plan(a: ManArgs) -> ManPlan {
    ManPlan {
        command: super::Cli::command(),
        subcommand: a.subcommand,
    }
}
