//! `train --term-counts sublinear`: a word's count kept in its row as 1 + ln tf, recorded in
//! the model so classify counts words as training did, and refused where rows stay binary.

use crate::common::{bin, data, stderr_of_failure, stdout_of};
use rosenblatt::features::TermCounts;
use rosenblatt::model::Model;

/// The score `classify` gives `text` under `model` (a plain-text document on stdin).
fn score(model: &std::path::Path, text: &str) -> f32 {
    let out = stdout_of(
        bin()
            .args(["classify", "-m"])
            .arg(model)
            .arg("-")
            .write_stdin(text.to_string()),
    );
    out.lines()
        .next()
        .unwrap()
        .split('\t')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn a_repeated_word_counts_one_plus_the_log_of_its_count() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    // Unweighted, unscaled rows: a score is the bias plus each word's weight × its value.
    bin()
        .args(["train", "--learner", "perceptron", "--weighting", "binary"])
        .args(["--normalize", "none", "--term-counts", "sublinear", "-o"])
        .arg(&m)
        .arg(data("tiny"))
        .assert()
        .success();
    let model = Model::load(&m).unwrap();
    assert_eq!(model.term_counts(), TermCounts::Sublinear);
    let empty = score(&m, "zzzz");
    let once = score(&m, "free") - empty;
    let thrice = score(&m, "free free free") - empty;
    assert!(once != 0.0);
    let want = once * (1.0 + 3f32.ln());
    assert!(
        (thrice - want).abs() < 1e-4 * want.abs().max(1.0),
        "{thrice} vs {want}"
    );
    // inspect names the counting with the geometry.
    let shown = stdout_of(bin().args(["inspect", "-m"]).arg(&m));
    assert!(shown.contains("sublinear tf, binary"), "{shown}");
    // A binary model of the same corpus gives the repeated word its single weight.
    let b = dir.path().join("b");
    bin()
        .args(["train", "--learner", "perceptron", "--weighting", "binary"])
        .args(["--normalize", "none", "-o"])
        .arg(&b)
        .arg(data("tiny"))
        .assert()
        .success();
    assert_eq!(Model::load(&b).unwrap().term_counts(), TermCounts::Binary);
    assert_eq!(score(&b, "free free free"), score(&b, "free"));
}

#[test]
fn counts_are_refused_where_rows_stay_binary() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    let svm = dir.path().join("rows.svm");
    std::fs::write(&svm, "+1 1:1 2:1\n-1 3:1\n+1 1:1\n-1 3:1 4:1\n").unwrap();
    let err = stderr_of_failure(
        bin()
            .args(["train", "--term-counts", "sublinear", "-o"])
            .arg(&m)
            .arg(&svm),
    );
    assert!(err.contains("SVMlight"), "{err}");
    let err = stderr_of_failure(
        bin()
            .args(["train", "--term-counts", "sublinear", "--cache"])
            .arg(dir.path().join("rows.cache"))
            .arg("-o")
            .arg(&m)
            .arg(data("tiny")),
    );
    assert!(err.contains("--cache"), "{err}");
    // A spam filter reads and learns a message's words once each.
    let err = stderr_of_failure(
        bin()
            .args(["train", "--term-counts", "sublinear", "--spam"])
            .arg(data("mail/offer.eml"))
            .arg("--ham")
            .arg(data("mail/escaped.mbox"))
            .arg("-o")
            .arg(&m),
    );
    assert!(err.contains("spam filter"), "{err}");
}
