//! `rosenblatt completions SHELL`: the shell's completion script for every subcommand,
//! flag and listed value, on stdout.

use crate::flags::CompletionsPlan;
use anyhow::Result;
use std::io::Write as _;
use std::process::ExitCode;

/// Runs `completions`.
pub fn run(p: CompletionsPlan) -> Result<ExitCode> {
    let mut command = p.command;
    let name = command.get_name().to_string();
    // Written whole into memory first: clap_complete panics on a failed write, and a
    // closed pipe must end quietly instead.
    let mut script = Vec::new();
    clap_complete::generate(p.shell, &mut command, name, &mut script);
    let mut out = crate::stdout::lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
