//! The fuzz targets' committed inputs — their seeds and every input a fuzzer found that
//! once failed — replayed on stable through the same code the targets run
//! (`tests/fuzz/targets.rs`), so a reader that breaks on one of them fails here.

#[path = "../fuzz/targets.rs"]
mod targets;

use std::path::Path;

/// A fuzz target's body.
type Target = fn(&[u8]);

/// Feeds every file under `tests/fuzz/seeds/NAME/` to `target`; returns how many.
fn replay(name: &str, target: Target) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/seeds")
        .join(name);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        let run = std::panic::catch_unwind(|| target(&bytes));
        assert!(run.is_ok(), "fuzz target {name} fails on {}", p.display());
        n += 1;
    }
    n
}

#[test]
fn every_committed_fuzz_input_passes_its_target() {
    let targets: [(&str, Target); 10] = [
        ("mail", targets::mail),
        ("mbox", targets::mbox),
        ("svmlight", targets::svmlight),
        ("jsonl", targets::jsonl),
        ("tsv", targets::tsv),
        ("reuters", targets::reuters),
        ("model", targets::model),
        ("cluster", targets::cluster),
        ("spamd", targets::spamd),
        ("http", targets::http),
    ];
    for (name, target) in targets {
        assert!(
            replay(name, target) >= 2,
            "target {name} has at least two seeds"
        );
    }
}
