//! The `rosenblatt` command: a thin `main` that parses arguments, runs one subcommand and
//! turns its outcome into an exit code. A closed pipe (`… | head`) ends quietly with 0.

mod args;
mod classify;
mod eval;
mod inspect;
mod kernel_flags;
mod load;
mod progress;
mod train;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let error_code = match cli.command {
        Command::Classify(_) => 3,
        _ => 1,
    };
    let result = match cli.command {
        Command::Train(a) => train::run(a),
        Command::Classify(a) => classify::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Inspect(a) => inspect::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rosenblatt: error: {e:#}");
            ExitCode::from(error_code)
        }
    }
}

/// Whether the error is a write to a closed pipe, which is not a failure for a filter.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
