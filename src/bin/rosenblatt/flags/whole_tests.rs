//! Whole-number flags: a negative, fractional or wordy value is a sentence naming the
//! flag, never clap's "unexpected argument" with its `-- -1` tip; and every flag of a
//! whole-number type is read by [`names::whole`](super::names::whole).

use super::*;
use std::any::TypeId;

/// What `rosenblatt ARGS…` says when parsing fails.
fn refusal(args: &[&str]) -> String {
    let argv = std::iter::once("rosenblatt").chain(args.iter().copied());
    match Cli::try_parse_from(argv) {
        Ok(_) => panic!("{args:?} parsed"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn negative_and_fractional_values_are_sentences_naming_the_flag() {
    let t = ["train", "-o", "m", "in.tsv"];
    let cases: [(&[&str], &str); 9] = [
        (
            &["--epochs", "-1"],
            "--epochs must be a whole number of at least 1, got -1",
        ),
        (
            &["--epochs=-1"],
            "--epochs must be a whole number of at least 1, got -1",
        ),
        (
            &["--epochs", "2.5"],
            "--epochs must be a whole number of at least 1, got 2.5",
        ),
        (
            &["--cv", "-3"],
            "--cv must be a whole number of at least 2, got -3",
        ),
        (
            &["--min-df", "-1"],
            "--min-df must be a whole number of at least 1, got -1",
        ),
        (
            &["--hash-bits", "-4"],
            "--hash-bits must be a whole number of at least 0, got -4",
        ),
        (
            &["--workers", "ten"],
            "--workers must be a whole number of at least 1, got ten",
        ),
        (
            &["--max-feature-id", "4294967296"],
            "--max-feature-id must be a whole number of at least 1 and at most 4294967295, \
             got 4294967296",
        ),
        (
            &["--processes", "-2", "--hostfile", "h"],
            "--processes must be a whole number of at least 1, got -2",
        ),
    ];
    for (flags, says) in cases {
        let args: Vec<&str> = t.iter().chain(flags).copied().collect();
        let e = refusal(&args);
        assert!(e.starts_with(&format!("error: {says}\n")), "{args:?}: {e}");
        assert!(!e.contains("unexpected argument"), "{args:?}: {e}");
    }
    let e = refusal(&["bench", "--threads", "1,-2"]);
    assert!(
        e.contains("--threads must be a whole number of at least 1, got -2"),
        "{e}"
    );
}

#[test]
fn every_whole_number_flag_reads_negative_values_as_values() {
    use clap::CommandFactory;
    let whole = [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
    ];
    let cli = Cli::command();
    let mut seen = 0;
    for sub in cli.get_subcommands() {
        for arg in sub.get_arguments() {
            let ty = arg.get_value_parser().type_id();
            if whole.iter().any(|w| ty == *w) {
                seen += 1;
                assert!(
                    arg.is_allow_negative_numbers_set(),
                    "{} --{}: a whole-number flag without names::whole",
                    sub.get_name(),
                    arg.get_id()
                );
            }
        }
    }
    assert!(seen > 20, "only {seen} whole-number flags found");
}
