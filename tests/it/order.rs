//! Visiting order never decides the model: class-folder input arrives sorted by class, and
//! every learner must reach the same accuracy on it as on the same documents mixed.

use crate::common::{bin, stdout_of};
use rosenblatt::input::{Split, read_reuters};
use std::path::{Path, PathBuf};

/// The shipped Reuters ModApte documents with exactly one topic, written as
/// `ROOT/{train,test}/<topic>/<newid>.txt` (class folders, read in sorted order), and the
/// same training documents as one TSV file in their original (mixed) order. Test documents
/// of topics with no training document are left out.
fn reuters_as_class_folders(root: &Path) -> PathBuf {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/reuters21578");
    let mut mixed = String::new();
    let mut topics = std::collections::HashSet::new();
    for (part, split) in [("train", Split::Train), ("test", Split::Test)] {
        let docs = read_reuters(&corpus, Some(split)).unwrap().docs;
        for d in docs.iter().filter(|d| d.labels.len() == 1) {
            if part == "train" {
                topics.insert(d.labels[0].clone());
            } else if !topics.contains(&d.labels[0]) {
                continue;
            }
            let dir = root.join(part).join(&d.labels[0]);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("{}.txt", d.id)), &d.text).unwrap();
            if part == "train" {
                let text = d.text.replace(['\t', '\n', '\r'], " ");
                mixed.push_str(&format!("{}\t{text}\n", d.labels[0]));
            }
        }
    }
    let tsv = root.join("train-mixed.tsv");
    std::fs::write(&tsv, mixed).unwrap();
    tsv
}

/// Trains with `flags` on `input` and returns the accuracy on the test folders.
fn test_accuracy(root: &Path, input: &Path, flags: &[&str]) -> f64 {
    let model = root.join("m");
    bin()
        .arg("train")
        .arg(input)
        .arg("-o")
        .arg(&model)
        .args(flags)
        .assert()
        .success();
    let out = stdout_of(
        bin()
            .args(["eval", "--json", "-m"])
            .arg(&model)
            .arg(root.join("test")),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["accuracy"].as_f64().unwrap()
}

#[test]
fn class_sorted_input_does_not_decide_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mixed = reuters_as_class_folders(root);
    let sorted = root.join("train");

    // The plain default, on class folders: before the per-epoch shuffle it sent nearly
    // every document to the last class.
    let default = test_accuracy(root, &sorted, &[]);
    let mut best = default;
    for learner in ["averaged-perceptron", "pa", "logistic"] {
        let on_sorted = test_accuracy(root, &sorted, &["--learner", learner]);
        let on_mixed = test_accuracy(root, &mixed, &["--learner", learner]);
        eprintln!("{learner}: sorted {on_sorted:.4}, mixed {on_mixed:.4}");
        assert!(
            (on_sorted - on_mixed).abs() <= 0.015,
            "{learner}: {on_sorted} on class-sorted input, {on_mixed} mixed"
        );
        best = best.max(on_sorted);
    }
    eprintln!("default: {default:.4}, best {best:.4}");
    // In input order the old default (the perceptron) reached 0.67 here. The default,
    // chosen across corpora and seeds, is within 1 point of the best learner (measured:
    // 0.9295, itself the best).
    assert!(
        default >= best - 0.01,
        "default {default}, best learner {best}"
    );

    // The seed notes' in-order schedule stays available, and says what it does.
    let sorted_in_order = test_accuracy(root, &sorted, &["--no-shuffle"]);
    eprintln!("default with --no-shuffle: {sorted_in_order:.4}");
    let in_order = bin()
        .arg("train")
        .arg(&sorted)
        .arg("-o")
        .arg(root.join("m"))
        .arg("--no-shuffle")
        .assert()
        .success()
        .get_output()
        .stderr
        .clone();
    let warning = String::from_utf8(in_order).unwrap();
    assert!(warning.contains("sorted by class"), "{warning}");
}
