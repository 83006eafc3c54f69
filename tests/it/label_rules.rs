//! One label rule for every input format: an empty or blank class, or a label holding a
//! tab, a line end or another control character, is refused naming the file and line (a
//! class folder by its path) by `train`, `vectorize` and `eval` alike — such a label would
//! break `classify`'s tab-separated output and the model's class list.

use crate::common::{bin, stderr_of_failure};
use std::path::Path;

/// `rosenblatt SUB -o DIR/out FILE` (or `eval -m` when `sub` is eval) with `FILE` holding
/// `text`: the failure's stderr.
fn refused(sub: &str, dir: &Path, name: &str, text: &str) -> String {
    let input = dir.join(name);
    std::fs::write(&input, text).unwrap();
    let out = dir.join("out");
    stderr_of_failure(bin().args([sub, "-o"]).arg(&out).arg(&input))
}

#[test]
fn empty_blank_and_control_labels_are_refused_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let jsonl = [
        (r#"{"label":"","text":"a"}"#, "is empty"),
        (r#"{"labels":[""],"text":"a"}"#, "is empty"),
        (r#"{"label":"  ","text":"a"}"#, "is blank"),
        (r#"{"label":"a\tb","text":"a"}"#, "control character"),
        (r#"{"label":"a\nb","text":"a"}"#, "control character"),
        (r#"{"label":"a\rb","text":"a"}"#, "control character"),
        (
            r#"{"labels":["x","\u001b[31m"],"text":"a"}"#,
            "control character",
        ),
        // An array or object is no class name (a number is, as JSON writes it).
        (
            r#"{"label":["ham"],"text":"a"}"#,
            "give several classes as \"labels\"",
        ),
        (r#"{"label":{"a":1},"text":"a"}"#, "no class name"),
        (r#"{"labels":["x",["y"]],"text":"a"}"#, "no class name"),
    ];
    for (line, says) in jsonl {
        let text = format!("{{\"label\":\"x\",\"text\":\"b\"}}\n{line}\n");
        for sub in ["train", "vectorize"] {
            let e = refused(sub, d, "e.jsonl", &text);
            let at = format!("{}:2: ", d.join("e.jsonl").display());
            assert!(e.contains(&at) && e.contains(says), "{sub} {line}: {e}");
        }
    }
    let e = refused("train", d, "e.tsv", "x\tb\ny\u{1}z\ta\n");
    assert!(
        e.contains(&format!("{}:2: ", d.join("e.tsv").display()))
            && e.contains("control character"),
        "{e}"
    );
}

#[test]
fn a_class_folder_whose_name_breaks_the_rule_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    for class in ["ham", "sp\tam"] {
        std::fs::create_dir_all(corpus.join(class)).unwrap();
        std::fs::write(corpus.join(class).join("1.txt"), "some words").unwrap();
    }
    let e = stderr_of_failure(
        bin()
            .args(["train", "-o"])
            .arg(dir.path().join("m"))
            .arg(&corpus),
    );
    assert!(
        e.contains("sp\tam") && e.contains("a class folder") && e.contains("control character"),
        "{e}"
    );
}

#[test]
fn eval_refuses_a_control_character_in_a_label_too() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(crate::common::data("tiny.tsv"))
        .assert()
        .success();
    let input = dir.path().join("t.jsonl");
    std::fs::write(&input, "{\"label\":\"spam\\u0000\",\"text\":\"win\"}\n").unwrap();
    let e = stderr_of_failure(bin().args(["eval", "-m"]).arg(&model).arg(&input));
    assert!(
        e.contains("t.jsonl:1: ") && e.contains("control character"),
        "{e}"
    );
}

#[test]
fn eval_names_the_file_and_line_of_a_label_the_model_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(crate::common::data("tiny.tsv"))
        .assert()
        .success();
    let cases = [
        ("t.tsv", "spam\twin cash\neggs\tlunch\n"),
        (
            "t.jsonl",
            "{\"label\":\"spam\",\"text\":\"a\"}\n{\"label\":\"eggs\",\"text\":\"b\"}\n",
        ),
    ];
    for (name, text) in cases {
        let input = dir.path().join(name);
        std::fs::write(&input, text).unwrap();
        let e = stderr_of_failure(bin().args(["eval", "-m"]).arg(&model).arg(&input));
        let at = format!(
            "{}:2: label \"eggs\" is not one of the model's classes",
            input.display()
        );
        assert!(e.contains(&at), "{e}");
    }
    // Vectors: a model trained on SVMlight rows, a test file with a third label.
    let svm = dir.path().join("train.svm");
    std::fs::write(&svm, "+1 1:1\n-1 2:1\n").unwrap();
    let vm = dir.path().join("vm");
    bin()
        .args(["train", "-o"])
        .arg(&vm)
        .arg(&svm)
        .assert()
        .success();
    let test = dir.path().join("test.svm");
    std::fs::write(&test, "1 1:1\n7 2:1\n").unwrap();
    let e = stderr_of_failure(bin().args(["eval", "-m"]).arg(&vm).arg(&test));
    assert!(
        e.contains(&format!("{}:2: label \"7\"", test.display())),
        "{e}"
    );
}
