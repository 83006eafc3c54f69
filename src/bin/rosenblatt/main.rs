//! The `rosenblatt` command: a thin `main` that parses arguments, runs one subcommand and
//! turns its outcome into an exit code. A closed pipe (`… | head`) ends quietly with 0.

mod args;
mod bench;
mod classify;
mod eval;
mod inspect;
mod kernel_flags;
mod learn;
mod learner_flags;
mod load;
mod mail;
mod mail_eval;
mod names;
mod progress;
mod svm;
mod train;
mod vectorize;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let error_code = match cli.command {
        Command::Classify(_) | Command::Learn(_) => 3,
        _ => 1,
    };
    let result = match cli.command {
        Command::Train(a) => train::run(a),
        Command::Classify(a) => classify::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Learn(a) => learn::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Vectorize(a) => vectorize::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rosenblatt: error: {}", names::message(&e));
            ExitCode::from(error_code)
        }
    }
}

/// Prints a usage error (or --help/--version) and exits: 0 for help, 3 for `classify` and
/// `learn` (whose 2 means "unsure" to mail filters), clap's 2 otherwise.
fn usage_error(e: clap::Error) -> ExitCode {
    let _ = e.print();
    if !e.use_stderr() {
        return ExitCode::SUCCESS;
    }
    match std::env::args().nth(1).as_deref() {
        Some("classify" | "learn") => ExitCode::from(3),
        _ => ExitCode::from(2),
    }
}

/// Whether the error is a write to a closed pipe, which is not a failure for a filter.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
