//! Helpers shared by the integration tests: the binary, fixtures, the shared corpora.

#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// Checks a model trained by `train` on `tests/data/tiny` against the library: the
/// library's default configuration with the model's analyzer learns the same predictor,
/// and `classify -m model` gives the tiny files the scores of its training rows (through
/// the model file alone). Returns the documents and `classify`'s output, in their order.
pub fn classify_gives_the_training_scores(
    model: &Path,
    m: &rosenblatt::model::Model,
) -> (Vec<rosenblatt::input::Document>, String) {
    use rosenblatt::training;
    use rosenblatt::training::TrainConfig;
    let corpus = rosenblatt::input::read(&data("tiny"), None).unwrap();
    // (`train` with no learner flags is the library's default configuration, with the
    // default PA's C of two-class text: the tiny corpus is spam and ham.)
    let mut pa = TrainConfig::default().learner.into_inner();
    pa.set(rosenblatt::learn::Setting::C(
        rosenblatt::learn::PassiveAggressive::TWO_CLASS_TEXT_C,
    ))
    .unwrap();
    let cfg = TrainConfig {
        analyzer: m.analyzer().clone(),
        learner: rosenblatt::learn::Check::check(pa).unwrap(),
        ..TrainConfig::default()
    };
    let t = training::train(&corpus.docs, &cfg, vec![]).unwrap();
    assert_eq!(t.model.predictor(), m.predictor());
    let trained: Vec<f32> = t
        .model
        .decide_rows(&t.matrix)
        .iter()
        .map(|d| d.score)
        .collect();
    let files: Vec<_> = corpus
        .docs
        .iter()
        .map(|d| data("tiny").join(&d.id))
        .collect();
    let out = stdout_of(bin().args(["classify", "-m"]).arg(model).args(&files));
    let classified: Vec<f32> = out
        .lines()
        .map(|l| l.split('\t').nth(2).unwrap().parse().unwrap())
        .collect();
    assert_eq!(classified, trained);
    (corpus.docs, out)
}

/// The `rosenblatt` binary under test.
pub fn bin() -> Command {
    Command::cargo_bin("rosenblatt").unwrap()
}

/// The binary under test as a plain command (for processes run side by side).
pub fn exe() -> std::process::Command {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
}

/// The `learned` count `inspect` reports for a filter (a model file or a store).
pub fn learned(filter: &Path) -> u64 {
    let out = stdout_of(bin().args(["inspect", "--json", "-m"]).arg(filter));
    serde_json::from_str::<serde_json::Value>(&out).unwrap()["learned"]
        .as_u64()
        .unwrap()
}

/// Trains a spam filter on the mail folders `spam` and `ham` into `model`, with `flags`.
pub fn train_filter(spam: &Path, ham: &Path, model: &Path, flags: &[&str]) {
    bin()
        .args(["train", "-o"])
        .arg(model)
        .arg("--spam")
        .arg(spam)
        .arg("--ham")
        .arg(ham)
        .args(flags)
        .assert()
        .success();
}

/// A file under tests/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// `../shared/corpora/<rel>` when present; otherwise prints a note and returns `None`,
/// so the calling test skips.
pub fn shared_corpus(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        // Written to stderr directly, past the test harness's capture, so the note shows
        // even when the test passes.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "note: {} is absent; skipping this test",
            p.display()
        );
        None
    }
}

/// Stdout of a successful run, as text.
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

/// The address-space limit of [`limited`], in KiB: far above what the commands need on
/// small inputs, far below what an input-sized allocation of gigabytes asks for.
pub const ADDRESS_SPACE_KIB: u64 = 400_000;

/// Runs `rosenblatt ARGS…` with its address space limited to [`ADDRESS_SPACE_KIB`]
/// (`ulimit -v`): an allocation sized by hostile input fails there instead of taking the
/// machine's memory. Returns the exit code (`None`: killed by a signal, e.g. the abort
/// of a failed allocation) and stderr.
pub fn limited(args: &[&str]) -> (Option<i32>, String) {
    let exe = assert_cmd::cargo::cargo_bin("rosenblatt");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -v {ADDRESS_SPACE_KIB}; exec \"$0\" \"$@\""))
        .arg(exe)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The peak resident memory of `rosenblatt ARGS…` in KiB, measured by `/usr/bin/time`
/// (`None`, with a note, where it is not installed).
pub fn peak_rss_kib(args: &[&str]) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("note: /usr/bin/time is not installed: peak memory not measured");
        return None;
    }
    let out = std::process::Command::new(time)
        .args(["-f", "peak-rss-kib %M"])
        .arg(assert_cmd::cargo::cargo_bin("rosenblatt"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak-rss-kib "));
    Some(line.expect("time's line").trim().parse().unwrap())
}

/// Stderr of a run that must fail, as text.
pub fn stderr_of_failure(cmd: &mut Command) -> String {
    String::from_utf8(cmd.assert().failure().get_output().stderr.clone()).unwrap()
}

/// Class folders `spam/` and `ham/` of 30 messages each from the shipped corpus, under
/// `dir/corpus`, with a filter trained on them at `dir/spam.model`.
pub fn corpus_and_filter(dir: &Path) -> (PathBuf, PathBuf) {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/spamassassin");
    let corpus = dir.join("corpus");
    for class in ["spam", "ham"] {
        let mut files: Vec<PathBuf> = walk(&shipped.join(class));
        files.sort();
        std::fs::create_dir_all(corpus.join(class)).unwrap();
        for (i, f) in files.iter().take(30).enumerate() {
            std::fs::copy(f, corpus.join(class).join(format!("{i}.eml"))).unwrap();
        }
    }
    let model = dir.join("spam.model");
    train_filter(&corpus.join("spam"), &corpus.join("ham"), &model, &[]);
    (corpus, model)
}

/// Every file under `dir`, recursively.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
