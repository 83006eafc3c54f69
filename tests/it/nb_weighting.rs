//! Naive-Bayes feature weighting (`--weighting nb`) from the command line: a two-class
//! model carries its ratios, so `classify` and `eval` read new documents through them and
//! a filter's store decides as its model file; `inspect` names the geometry; and it is
//! refused, with a sentence, where its ratios cannot be fitted.

use crate::common::{bin, stderr_of_failure, stdout_of, train_filter, walk};
use std::path::{Path, PathBuf};

/// A two-class TSV corpus: reviews with leaning words, 120 documents.
fn reviews(dir: &Path) -> PathBuf {
    let tsv = dir.join("reviews.tsv");
    let good = ["great", "superb", "moving", "fine"];
    let bad = ["dull", "awful", "tedious", "flat"];
    let lines: String = (0..120)
        .map(|i| {
            let (label, words) = if i % 2 == 0 {
                ("pos", &good)
            } else {
                ("neg", &bad)
            };
            format!(
                "{label}\tthe film was {} and {} plot w{} actor w{}\n",
                words[i % 4],
                words[(i / 4) % 4],
                i % 11,
                i % 7
            )
        })
        .collect();
    std::fs::write(&tsv, lines).unwrap();
    tsv
}

#[test]
fn a_model_with_naive_bayes_weights_classifies_evaluates_and_shows_them() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = reviews(dir.path());
    let model = dir.path().join("nb.model");
    let out = stdout_of(
        bin()
            .args(["train", "--weighting", "nb", "-o"])
            .arg(&model)
            .arg(&tsv),
    );
    assert!(out.contains("geometry       nb+l2"), "{out}");
    let inspect = stdout_of(bin().args(["inspect", "-m"]).arg(&model));
    assert!(inspect.contains("nb+l2"), "{inspect}");
    let eval = stdout_of(bin().args(["eval", "-m"]).arg(&model).arg(&tsv));
    assert!(eval.contains("1.0000"), "{eval}");
    let lines = stdout_of(bin().args(["classify", "-m"]).arg(&model).arg(&tsv));
    assert_eq!(lines.lines().count(), 120);
    // Another smoothing makes other ratios, so other scores.
    let other = dir.path().join("nb-half.model");
    stdout_of(
        bin()
            .args(["train", "--weighting", "nb", "--nb-alpha", "0.5", "-o"])
            .arg(&other)
            .arg(&tsv),
    );
    assert_ne!(
        stdout_of(bin().args(["classify", "-m"]).arg(&other).arg(&tsv)),
        lines
    );
    // Ten folds, each fitting its own ratios.
    let cv = stdout_of(
        bin()
            .args(["train", "--weighting", "nb", "--cv", "10", "-o"])
            .arg(&other)
            .arg(&tsv),
    );
    assert!(
        cv.contains("10-fold cross-validation accuracy: mean 1.0000"),
        "{cv}"
    );
}

#[test]
fn a_naive_bayes_filter_store_decides_as_its_model_file() {
    let dir = tempfile::tempdir().unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/spamassassin");
    let model = dir.path().join("nb.model");
    train_filter(
        &shipped.join("spam"),
        &shipped.join("ham"),
        &model,
        &["--weighting", "nb"],
    );
    let store = dir.path().join("nb.store");
    stdout_of(bin().arg("convert").arg(&model).arg(&store));
    let mut messages = walk(&shipped);
    messages.sort();
    messages.truncate(40);
    let from_model = stdout_of(bin().args(["classify", "-m"]).arg(&model).args(&messages));
    assert_eq!(from_model.lines().count(), 40);
    let from_store = stdout_of(bin().args(["classify", "-m"]).arg(&store).args(&messages));
    assert_eq!(from_store, from_model);
}

#[test]
fn naive_bayes_weighting_is_refused_where_its_ratios_cannot_be_fitted() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = reviews(dir.path());
    let three = dir.path().join("three.tsv");
    std::fs::write(&three, "a\tx y\nb\ty z\nc\tz x\na\tx\nb\ty\nc\tz\n").unwrap();
    let m = dir.path().join("m");
    let cases: Vec<(Vec<&str>, &Path, &str)> = vec![
        (
            vec!["train", "--weighting", "nb"],
            &three,
            "compares two classes",
        ),
        (
            vec!["train", "--weighting", "nb", "--tune"],
            &three,
            "compares two classes",
        ),
        (
            vec!["train", "--nb-alpha", "2"],
            &tsv,
            "--nb-alpha is the smoothing",
        ),
        (
            vec!["train", "--weighting", "nb", "--nb-alpha", "0"],
            &tsv,
            "not a number above 0",
        ),
        (vec!["vectorize", "--weighting", "nb"], &tsv, "vectorize"),
    ];
    for (args, input, want) in cases {
        let err = stderr_of_failure(bin().args(&args).arg("-o").arg(&m).arg(input));
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
