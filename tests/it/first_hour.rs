//! What puzzled a new user, each answered where it is met: a filter's training accuracy
//! names the decision it is counted at and gives it at score 0 too, `eval` of a filter
//! counts the messages and the accuracy once, and Reuters SGML given without `--format
//! reuters` says to give it.

use crate::common::{bin, data, stderr_of_failure, stdout_of, train_filter};
use std::path::Path;

/// The value after `name` on its summary line.
fn line_of<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no {name:?} line in {out}"))
}

#[test]
fn a_filters_training_accuracy_names_its_decision_and_gives_it_at_score_zero() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tiny.model");
    let out = stdout_of(
        bin()
            .args(["train", "--spam"])
            .arg(data("tiny/spam"))
            .arg("--ham")
            .arg(data("tiny/ham"))
            .arg("-o")
            .arg(&model),
    );
    let acc = line_of(&out, "training acc");
    // "training acc   A deciding spam when score > T (P > 0.90); B at score > 0"
    assert!(acc.contains("deciding spam when score >"), "{acc}");
    assert!(
        acc.contains("(P > 0.90)") && acc.ends_with("at score > 0"),
        "{acc}"
    );
    let zero: f64 = acc
        .split("; ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // Separated training documents are all on their side of score 0.
    if line_of(&out, "separated").ends_with("yes") {
        assert_eq!(zero, 1.0, "{out}");
    }
    // A text model decides at score 0: one accuracy, as before.
    let text = dir.path().join("text.model");
    let out = stdout_of(bin().args(["train", "-o"]).arg(&text).arg(data("tiny")));
    let acc = line_of(&out, "training acc");
    assert!(!acc.contains("deciding"), "{acc}");
}

#[test]
fn eval_of_a_filter_counts_the_messages_and_the_accuracy_once() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tiny.model");
    train_filter(&data("tiny/spam"), &data("tiny/ham"), &model, &[]);
    let out = stdout_of(
        bin()
            .args(["eval", "-m"])
            .arg(&model)
            .arg("--spam")
            .arg(data("tiny/spam"))
            .arg("--ham")
            .arg(data("tiny/ham")),
    );
    let starting = |w: &str| out.lines().filter(|l| l.starts_with(w)).count();
    assert_eq!(starting("accuracy"), 1, "{out}");
    assert_eq!(starting("messages"), 1, "{out}");
    assert_eq!(starting("documents"), 0, "{out}");
    // The per-class table and the confusion matrix are still there.
    assert!(
        out.contains("precision") && out.contains("confusion"),
        "{out}"
    );
}

#[test]
fn reuters_sgml_without_its_format_says_to_give_it() {
    let reuters = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/reuters21578");
    let dir = tempfile::tempdir().unwrap();
    let err = stderr_of_failure(
        bin()
            .args(["train", "-o"])
            .arg(dir.path().join("m"))
            .arg(&reuters),
    );
    assert!(err.contains("no class folders"), "{err}");
    assert!(err.contains("--format reuters"), "{err}");
}
