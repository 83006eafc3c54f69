//! `inspect` of each class's words: every class of a one-vs-rest, softmax, logistic or
//! multi-label model lists the words that argue most for and against it, `--class C`
//! lists C's alone (either class of a two-class model, the first as the second's words
//! with signs flipped), and a class the model lacks is refused with those it has.

use crate::common::{bin, data, stderr_of_failure, stdout_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Each class and the word all its documents repeat.
const CLASSES: [(&str, &str); 3] = [("cars", "wheel"), ("fruit", "apple"), ("pets", "dog")];

/// Class folders under `dir/corpus`: four documents a class, each its class's word twice
/// beside words every class shares.
fn three_classes(dir: &Path) -> PathBuf {
    let root = dir.join("corpus");
    for (class, word) in CLASSES {
        std::fs::create_dir_all(root.join(class)).unwrap();
        for (i, filler) in ["red big", "small old", "new blue", "red old"]
            .iter()
            .enumerate()
        {
            std::fs::write(
                root.join(class).join(format!("{i}.txt")),
                format!("{word} {word} {filler}"),
            )
            .unwrap();
        }
    }
    root
}

/// Trains `input` into `dir/NAME.model` with `flags`.
fn train(dir: &Path, name: &str, input: &Path, flags: &[&str]) -> PathBuf {
    let model = dir.join(format!("{name}.model"));
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .args(flags)
        .arg(input)
        .assert()
        .success();
    model
}

/// `inspect --json -m MODEL EXTRA…`.
fn inspected(model: &Path, extra: &[&str]) -> Value {
    let out = stdout_of(
        bin()
            .args(["inspect", "--json", "-m"])
            .arg(model)
            .args(extra),
    );
    serde_json::from_str(&out).unwrap()
}

/// A list of `[word, weight]` pairs as (word, weight).
fn pairs(v: &Value) -> Vec<(String, f64)> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_f64().unwrap()))
        .collect()
}

/// Checks one class object of `class_words`: at most `top` words each way, positive
/// weights largest first, negative ones most negative first; returns its strongest word.
fn checked(class: &Value, top: usize) -> String {
    let pos = pairs(&class["most_positive"]);
    let neg = pairs(&class["most_negative"]);
    assert!(!pos.is_empty() && pos.len() <= top, "{class}");
    assert!(neg.len() <= top, "{class}");
    assert!(pos.iter().all(|p| p.1 > 0.0), "{class}");
    assert!(neg.iter().all(|p| p.1 < 0.0), "{class}");
    assert!(pos.windows(2).all(|p| p[0].1 >= p[1].1), "{class}");
    assert!(neg.windows(2).all(|p| p[0].1 <= p[1].1), "{class}");
    assert!(class["bias"].is_number(), "{class}");
    pos[0].0.clone()
}

#[test]
fn every_class_of_each_multi_class_learner_lists_its_own_word_first() {
    let dir = tempfile::tempdir().unwrap();
    let root = three_classes(dir.path());
    for learner in ["pa", "softmax", "logistic"] {
        let model = train(dir.path(), learner, &root, &["--learner", learner]);
        // Every class, 5 words each way by default.
        let v = inspected(&model, &[]);
        assert_eq!(v["classes"], serde_json::json!(["cars", "fruit", "pets"]));
        assert_eq!(v["most_positive"], serde_json::json!([]), "{learner}");
        let classes = v["class_words"].as_array().unwrap();
        assert_eq!(classes.len(), 3, "{learner}: {v}");
        for (c, (class, word)) in classes.iter().zip(CLASSES) {
            assert_eq!(c["class"], class, "{learner}");
            assert_eq!(checked(c, 5), word, "{learner}: {c}");
            // The other classes' words argue against it.
            let against: Vec<String> = pairs(&c["most_negative"])
                .into_iter()
                .map(|p| p.0)
                .collect();
            for (_, other) in CLASSES.iter().filter(|(o, _)| *o != class) {
                assert!(against.contains(&other.to_string()), "{learner}: {c}");
            }
        }
        // One class, bounded by --top.
        let v = inspected(&model, &["--class", "pets", "--top", "2"]);
        let one = v["class_words"].as_array().unwrap();
        assert_eq!(one.len(), 1, "{v}");
        assert_eq!(one[0]["class"], "pets");
        assert_eq!(checked(&one[0], 2), "dog", "{learner}");
        // The text lists the same: the class's word first under its heading.
        let text = stdout_of(bin().args(["inspect", "--class", "pets", "-m"]).arg(&model));
        let after = text.split("words for pets").nth(1).expect(&text);
        let first = after.lines().nth(1).unwrap();
        assert!(first.trim_end().ends_with(" dog"), "{learner}: {text}");
        assert!(after.contains("words against pets:"), "{text}");
        assert!(!text.contains("words for fruit"), "{text}");
        let text = stdout_of(bin().args(["inspect", "-m"]).arg(&model));
        for (class, _) in CLASSES {
            assert!(
                text.contains(&format!("words for {class} (bias ")),
                "{text}"
            );
        }
    }
}

#[test]
fn each_label_of_a_multi_label_model_lists_its_own_word_first() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("ml.jsonl");
    let mut lines = String::new();
    let fillers = ["red big", "small old", "new blue", "red old"];
    for (i, filler) in fillers.iter().enumerate() {
        for (label, word) in CLASSES {
            lines +=
                &format!("{{\"labels\": [\"{label}\"], \"text\": \"{word} {word} {filler}\"}}\n");
        }
        // Documents of two labels hold both words.
        let (a, b) = (CLASSES[i % 3], CLASSES[(i + 1) % 3]);
        lines += &format!(
            "{{\"labels\": [\"{}\", \"{}\"], \"text\": \"{} {} {filler}\"}}\n",
            a.0, b.0, a.1, b.1
        );
    }
    std::fs::write(&corpus, lines).unwrap();
    for learner in ["pa", "softmax"] {
        let model = train(dir.path(), learner, &corpus, &["--learner", learner]);
        let v = inspected(&model, &["--top", "3"]);
        let classes = v["class_words"].as_array().unwrap();
        assert_eq!(classes.len(), 3, "{learner}: {v}");
        for (c, (class, word)) in classes.iter().zip(CLASSES) {
            assert_eq!(c["class"], class);
            assert_eq!(checked(c, 3), word, "{learner}: {c}");
        }
        let v = inspected(&model, &["--class", "fruit"]);
        assert_eq!(checked(&v["class_words"][0], 20), "apple", "{learner}");
    }
}

#[test]
fn a_two_class_model_keeps_its_shape_and_names_either_class() {
    let dir = tempfile::tempdir().unwrap();
    let model = train(dir.path(), "tiny", &data("tiny"), &[]);
    let whole = inspected(&model, &["--top", "4"]);
    assert!(whole.get("class_words").is_none(), "{whole}");
    let spam_pos = pairs(&whole["most_positive"]);
    let spam_neg = pairs(&whole["most_negative"]);
    assert_eq!(spam_pos.len(), 4);
    // The positive class's view is the model's own pair of lists.
    let spam = inspected(&model, &["--top", "4", "--class", "spam"]);
    assert_eq!(spam["class_words"][0]["class"], "spam");
    assert_eq!(pairs(&spam["class_words"][0]["most_positive"]), spam_pos);
    assert_eq!(pairs(&spam["class_words"][0]["most_negative"]), spam_neg);
    assert_eq!(spam["class_words"][0]["bias"], whole["bias"]);
    // The other class's: the same words with their signs flipped.
    let ham = inspected(&model, &["--top", "4", "--class", "ham"]);
    let flipped = |l: &[(String, f64)]| -> Vec<(String, f64)> {
        l.iter().map(|(w, s)| (w.clone(), -s)).collect()
    };
    assert_eq!(
        pairs(&ham["class_words"][0]["most_positive"]),
        flipped(&spam_neg)
    );
    assert_eq!(
        pairs(&ham["class_words"][0]["most_negative"]),
        flipped(&spam_pos)
    );
    checked(&ham["class_words"][0], 4);
    // Without --class the text is as it was: the two lists under their classes.
    let text = stdout_of(bin().args(["inspect", "-m"]).arg(&model));
    assert!(
        text.contains("most spam words:") && text.contains("most ham words:"),
        "{text}"
    );
    assert!(!text.contains("words for"), "{text}");
    let text = stdout_of(bin().args(["inspect", "--class", "ham", "-m"]).arg(&model));
    assert!(
        text.contains("words for ham") && !text.contains("most spam words:"),
        "{text}"
    );
}

#[test]
fn a_class_the_model_lacks_is_refused_with_the_file_and_its_classes() {
    let dir = tempfile::tempdir().unwrap();
    let root = three_classes(dir.path());
    let model = train(dir.path(), "pa", &root, &[]);
    for json in [false, true] {
        let mut cmd = bin();
        cmd.args(["inspect", "--class", "boats", "-m"]).arg(&model);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.assert().code(1).get_output().clone();
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains(&model.display().to_string())
                && err.contains("\"boats\"")
                && err.contains("cars, fruit, pets"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    // --help says what --class lists (read with its lines rejoined).
    let help = stdout_of(bin().args(["inspect", "--help"]));
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("--class <C> List the words of class C alone")
            && help.contains("with every sign flipped"),
        "{help}"
    );
}

#[test]
fn hashed_and_kernel_models_name_what_they_can() {
    let dir = tempfile::tempdir().unwrap();
    let root = three_classes(dir.path());
    // A hashed space keeps no words: features are named by their ids.
    let hashed = train(dir.path(), "hashed", &root, &["--hash-bits", "10"]);
    let v = inspected(&hashed, &["--class", "fruit"]);
    let top = checked(&v["class_words"][0], 20);
    assert!(top.starts_with('#'), "{v}");
    // A kernel model weighs support vectors, not words: none are listed, and naming a
    // class says why.
    let kernel = train(
        dir.path(),
        "kernel",
        &root,
        &["--learner", "kernel-perceptron"],
    );
    let v = inspected(&kernel, &[]);
    assert!(v.get("class_words").is_none(), "{v}");
    let err = stderr_of_failure(
        bin()
            .args(["inspect", "--class", "fruit", "-m"])
            .arg(&kernel),
    );
    assert!(err.contains("kernel") && err.contains("linear"), "{err}");
}
