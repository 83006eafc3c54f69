//! Where commands write: an output that is also an input is refused before any work (a
//! corpus overwritten by its own model, a model by its chart), a model file that `learn`
//! holds is replaced only once `learn` lets go, and sizes no machine holds are refused
//! with a sentence instead of a panic.

use super::raw;
use crate::common::{bin, corpus_and_filter, data, stderr_of_failure};
use std::fs::File;
use std::time::Duration;

#[test]
fn an_output_that_is_an_input_is_refused_and_left_whole() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("corpus.tsv");
    std::fs::copy(data("tiny.tsv"), &tsv).unwrap();
    let before = std::fs::read(&tsv).unwrap();
    for args in [
        vec!["train", "-o", "corpus.tsv", "corpus.tsv"],
        vec!["vectorize", "-o", "corpus.tsv", "corpus.tsv"],
    ] {
        let err = stderr_of_failure(bin().current_dir(dir.path()).args(&args));
        assert!(
            err.contains("corpus.tsv: is one of the inputs"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read(&tsv).unwrap(), before, "{args:?}");
    }
    // A model written into a class folder would replace a training document.
    let (corpus, model) = corpus_and_filter(dir.path());
    let message = corpus.join("spam").join("0.eml");
    let mail_before = std::fs::read(&message).unwrap();
    let err = stderr_of_failure(
        bin()
            .args(["train", "--spam"])
            .arg(corpus.join("spam"))
            .arg("--ham")
            .arg(corpus.join("ham"))
            .arg("-o")
            .arg(&message),
    );
    assert!(err.contains("lies in the input folder"), "{err}");
    assert_eq!(std::fs::read(&message).unwrap(), mail_before);
    // A chart over the model it draws.
    let model_before = std::fs::read(&model).unwrap();
    let chart = dir.path().join("m.svg");
    std::fs::copy(&model, &chart).unwrap();
    let err = stderr_of_failure(
        bin()
            .args(["eval", "-m"])
            .arg(&chart)
            .arg("--spam")
            .arg(corpus.join("spam"))
            .arg("--ham")
            .arg(corpus.join("ham"))
            .arg("--plot")
            .arg(&chart),
    );
    assert!(err.contains("is one of the inputs"), "{err}");
    assert_eq!(std::fs::read(&chart).unwrap(), model_before);
}

#[test]
fn train_replaces_a_model_only_once_learn_lets_go_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    let before = std::fs::read(&model).unwrap();
    // Hold the lock `learn` takes, as a long `learn` would.
    let lock = File::create(dir.path().join("spam.model.lock")).unwrap();
    lock.lock().unwrap();
    let mut train = raw()
        .args(["train", "--epochs", "3", "-o"])
        .arg(&model)
        .arg("--spam")
        .arg(corpus.join("spam"))
        .arg("--ham")
        .arg(corpus.join("ham"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Training takes well under this; the write must still wait.
    std::thread::sleep(Duration::from_secs(3));
    assert!(train.try_wait().unwrap().is_none(), "train did not wait");
    assert_eq!(std::fs::read(&model).unwrap(), before);
    lock.unlock().unwrap();
    assert!(train.wait().unwrap().success());
    assert_ne!(
        std::fs::read(&model).unwrap(),
        before,
        "the new model is written"
    );
}

#[test]
fn sizes_past_what_a_machine_holds_are_refused_with_a_sentence() {
    for (args, says) in [
        (
            vec!["bench", "--rows", "18446744073709551615"],
            "would take more than 64 GiB",
        ),
        (
            vec!["bench", "--rows", "10", "--features", "5000000000"],
            "more than a feature index holds",
        ),
    ] {
        let err = stderr_of_failure(bin().args(&args));
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // A tuning budget past what a duration holds is no limit, not a panic.
    let dir = tempfile::tempdir().unwrap();
    bin()
        .args(["train", "--tune", "--tune-budget", "1e20", "-o"])
        .arg(dir.path().join("t.model"))
        .arg(data("tiny.tsv"))
        .assert()
        .success();
}
