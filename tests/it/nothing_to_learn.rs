//! Training rows without a single feature are refused, as a vocabulary pruned to nothing
//! is: SVMlight lines that are a label alone, or documents none of whose tokens reach a
//! hashed id, would give a model that scores every input the same.

use crate::common::{bin, stderr_of_failure};

/// `train -o DIR/m FLAGS… FILE` with `FILE` (named `name`) holding `text`: the failure's
/// stderr, after checking that no model was written.
fn train_refuses(name: &str, text: &str, flags: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join(name);
    std::fs::write(&input, text).unwrap();
    let model = dir.path().join("m");
    let e = stderr_of_failure(
        bin()
            .args(["train", "-o"])
            .arg(&model)
            .args(flags)
            .arg(&input),
    );
    assert!(!model.exists(), "{name}: a model was written");
    assert!(e.contains(&format!("{}: ", input.display())), "{e}");
    e
}

#[test]
fn svmlight_lines_that_are_labels_alone_are_refused() {
    let e = train_refuses("e.svm", "+1\n-1\n", &[]);
    assert!(
        e.contains("none of the 2 training rows has a feature"),
        "{e}"
    );
}

#[test]
fn hashed_documents_without_tokens_are_refused() {
    let e = train_refuses("e.tsv", "a\t!!\nb\t...\n", &["--hash-bits", "10"]);
    assert!(
        e.contains("none of the 2 training documents has a feature"),
        "{e}"
    );
}
