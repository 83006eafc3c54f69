//! The `rosenblatt` command: a thin `main` that parses the flags, turns them into a
//! validated plan, runs it and turns the outcome into an exit code. A closed pipe
//! (`… | head`) ends quietly with 0; a closed stderr loses the messages, never the exit
//! code.

// `eprintln!` panics when stderr is closed: every message goes through `errln!`.
#![deny(clippy::print_stderr)]

/// `println!` that returns a write error (a closed pipe above all) to the caller with `?`
/// instead of panicking.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        writeln!(crate::stdout::lock(), $($t)*)?
    }};
}

/// `print!` that returns a write error to the caller with `?` instead of panicking.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        write!(crate::stdout::lock(), $($t)*)?
    }};
}

/// `eprintln!` that never panics: a note, warning or error for a stderr that is closed or
/// broken is dropped, and the program goes on to the exit code it would give anyway.
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

mod commands;
mod explain;
mod filter;
mod flags;
mod load;
mod plot;
mod progress;
mod report;
mod stdout;

use flags::Cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::parse_from_args(std::env::args_os().collect()) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let error_code = cli.command.error_code();
    progress::show(cli.globals.progress());
    if let Some(bytes) = cli.globals.max_document_bytes {
        rosenblatt::input::limit::set_max_document_bytes(bytes);
    }
    match flags::plan(cli.command).and_then(commands::run) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            errln!("rosenblatt: error: {}", flags::names::message(&e));
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
