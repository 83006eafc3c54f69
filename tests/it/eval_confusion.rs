//! `eval --confusion full|top[:N]|none`: a model whose confusions are known by
//! construction (each class has a word of its own; a test document carrying another
//! class's word is given that class), checked to the pair, count, share and order, in
//! text and `--json`; the default switching from the matrix to the largest cells past 10
//! classes; per-class precision/recall/F1 for two-class, spam-filter and multi-label
//! evaluations; and the heat map of 52 classes growing so that its cells stay legible.

use crate::common::{bin, corpus_and_filter, data, stderr_of_failure, stdout_of};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Writes `lines` (`(class, text)`) as a TSV file `dir/name`.
fn tsv(dir: &Path, name: &str, lines: &[(String, String)]) -> PathBuf {
    let path = dir.join(name);
    let mut s = String::new();
    for (class, text) in lines {
        let _ = writeln!(s, "{class}\t{text}");
    }
    std::fs::write(&path, s).unwrap();
    path
}

/// A model of `classes`, each learned from five documents of its own word `w<i>`.
fn model_of(dir: &Path, classes: &[String]) -> PathBuf {
    let mut lines = Vec::new();
    for (i, c) in classes.iter().enumerate() {
        for _ in 0..5 {
            lines.push((c.clone(), format!("w{i}")));
        }
    }
    let train = tsv(dir, "train.tsv", &lines);
    let model = dir.join("m");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(&train)
        .assert()
        .success();
    model
}

/// A test document of class `truth` that the model gives class number `given`.
fn doc(truth: &str, given: usize) -> (String, String) {
    (truth.to_string(), format!("w{given}"))
}

/// Classes a, b, c and a test set where, of a's 5 documents, 2 are given b and 1 c, one
/// of b's 2 is given a, and c's one document is kept.
fn abc(dir: &Path) -> (PathBuf, PathBuf) {
    let classes: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let model = model_of(dir, &classes);
    let test = tsv(
        dir,
        "test.tsv",
        &[
            doc("a", 0),
            doc("a", 0),
            doc("a", 1),
            doc("a", 1),
            doc("a", 2),
            doc("b", 1),
            doc("b", 0),
            doc("c", 2),
        ],
    );
    (model, test)
}

/// `eval` of `model` on `test` with `flags`: stdout.
fn eval(model: &Path, test: &Path, flags: &[&str]) -> String {
    stdout_of(bin().args(["eval", "-m"]).arg(model).arg(test).args(flags))
}

/// `eval --json` of `model` on `test` with `flags`.
fn eval_json(model: &Path, test: &Path, flags: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json"];
    all.extend(flags);
    serde_json::from_str(&eval(model, test, &all)).unwrap()
}

/// The `true → predicted  count  share` rows of a text report's confusions.
fn pairs(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .filter(|l| l.contains(" → "))
        .map(|l| {
            l.split_whitespace()
                .filter(|w| *w != "→")
                .map(String::from)
                .collect()
        })
        .collect()
}

#[test]
fn top_lists_the_known_confusions_largest_first() {
    let dir = tempfile::tempdir().unwrap();
    let (model, test) = abc(dir.path());
    let out = eval(&model, &test, &["--confusion", "top"]);
    // a→b 2 of 5; then the cells of 1, the larger share first: b→a (1 of 2) before
    // a→c (1 of 5).
    assert_eq!(
        pairs(&out),
        vec![
            vec!["a", "b", "2", "40.0%"],
            vec!["b", "a", "1", "50.0%"],
            vec!["a", "c", "1", "20.0%"],
        ],
        "{out}"
    );
    assert!(
        out.contains("largest confusions (3 of 3 cells off the diagonal"),
        "{out}"
    );
    assert!(!out.contains("confusion (rows: truth"), "{out}");
    // The per-class table stays: a's recall 2/5.
    assert!(out.contains("precision  recall"), "{out}");
    let out = eval(&model, &test, &["--confusion", "top:2"]);
    assert_eq!(pairs(&out).len(), 2, "{out}");
    assert!(out.contains("(2 of 3 cells"), "{out}");

    let v = eval_json(&model, &test, &["--confusion", "top:2"]);
    assert_eq!(
        v["top_confusions"],
        serde_json::json!([
            {"true": "a", "predicted": "b", "count": 2, "share": 0.4},
            {"true": "b", "predicted": "a", "count": 1, "share": 0.5},
        ])
    );
    // The matrix stays under its key, as before.
    assert_eq!(
        v["confusion"],
        serde_json::json!([[2, 2, 1], [1, 1, 0], [0, 0, 1]])
    );
}

#[test]
fn full_and_none_show_the_matrix_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (model, test) = abc(dir.path());
    // Three classes: the default is the whole matrix, as before.
    let default = eval(&model, &test, &[]);
    assert_eq!(default, eval(&model, &test, &["--confusion", "full"]));
    assert!(default.contains("confusion (rows: truth, columns: predicted)"));
    assert!(pairs(&default).is_empty(), "{default}");
    let v = eval_json(&model, &test, &["--confusion", "full"]);
    assert!(v.get("top_confusions").is_none());
    assert_eq!(v, eval_json(&model, &test, &[]));

    let none = eval(&model, &test, &["--confusion", "none"]);
    assert!(!none.contains("confusion"), "{none}");
    assert!(none.contains("accuracy       0.5000"), "{none}");
    assert!(none.contains("precision  recall"), "{none}");
    let v = eval_json(&model, &test, &["--confusion", "none"]);
    assert!(v.get("confusion").is_none() && v.get("top_confusions").is_none());
    assert_eq!(v["accuracy"], 0.5);
    assert!((v["per_class"]["a"]["recall"].as_f64().unwrap() - 0.4).abs() < 1e-12);
}

#[test]
fn a_bad_confusion_value_names_the_accepted_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (model, test) = abc(dir.path());
    for bad in ["most", "top:0", "top:x", "top=3"] {
        let err = stderr_of_failure(
            bin()
                .args(["eval", "--confusion", bad, "-m"])
                .arg(&model)
                .arg(&test),
        );
        assert!(
            err.contains(bad) && err.contains("full, top, top:N (N at least 1) or none"),
            "{bad}: {err}"
        );
    }
}

/// A model of `k` classes `k00`, `k01`, … and a test set where every class is kept
/// twice and class 0 is once given class 1.
fn classes(dir: &Path, k: usize) -> (PathBuf, PathBuf) {
    let names: Vec<String> = (0..k).map(|i| format!("k{i:02}")).collect();
    let model = model_of(dir, &names);
    let mut lines: Vec<(String, String)> = names
        .iter()
        .enumerate()
        .flat_map(|(i, n)| [doc(n, i), doc(n, i)])
        .collect();
    lines.push(doc("k00", 1));
    (model, tsv(dir, "test.tsv", &lines))
}

#[test]
fn the_default_is_the_matrix_up_to_10_classes_and_the_top_10_beyond() {
    let dir = tempfile::tempdir().unwrap();
    let (model, test) = classes(dir.path(), 10);
    let out = eval(&model, &test, &[]);
    assert!(out.contains("confusion (rows: truth"), "{out}");
    assert!(!out.contains("largest confusions"), "{out}");
    assert!(
        eval_json(&model, &test, &[])
            .get("top_confusions")
            .is_none()
    );

    let dir = tempfile::tempdir().unwrap();
    let (model, test) = classes(dir.path(), 11);
    let out = eval(&model, &test, &[]);
    assert!(!out.contains("confusion (rows: truth"), "{out}");
    assert_eq!(pairs(&out), vec![vec!["k00", "k01", "1", "33.3%"]], "{out}");
    let v = eval_json(&model, &test, &[]);
    assert_eq!(v["top_confusions"][0]["true"], "k00");
    assert_eq!(v["top_confusions"][0]["count"], 1);
    assert_eq!(v["confusion"].as_array().unwrap().len(), 11);
    // Asked for, the whole matrix is printed at any size.
    let out = eval(&model, &test, &["--confusion", "full"]);
    assert!(out.contains("confusion (rows: truth"), "{out}");
}

#[test]
fn a_perfect_evaluation_says_it_has_no_confusions() {
    let dir = tempfile::tempdir().unwrap();
    let (model, _) = abc(dir.path());
    let test = tsv(dir.path(), "right.tsv", &[doc("a", 0), doc("b", 1)]);
    let out = eval(&model, &test, &["--confusion", "top"]);
    assert!(
        out.contains("confusions    none: every document was given its true class"),
        "{out}"
    );
    let v = eval_json(&model, &test, &["--confusion", "top"]);
    assert_eq!(v["top_confusions"], serde_json::json!([]));
}

#[test]
fn two_class_and_spam_filter_evaluations_have_per_class_figures() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tiny.model");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(data("tiny"))
        .assert()
        .success();
    let out = eval(&model, &data("tiny"), &[]);
    assert!(
        out.contains("class  precision  recall  f1      support"),
        "{out}"
    );
    assert!(out.contains("spam ") && out.contains("ham "), "{out}");
    let v = eval_json(&model, &data("tiny"), &[]);
    for class in ["ham", "spam"] {
        for key in ["precision", "recall", "f1", "support"] {
            assert!(v["per_class"][class][key].is_number(), "{class} {key}: {v}");
        }
    }

    let (corpus, filter) = corpus_and_filter(dir.path());
    let mail = |flags: &[&str]| {
        stdout_of(
            bin()
                .args(["eval", "-m"])
                .arg(&filter)
                .arg("--spam")
                .arg(corpus.join("spam"))
                .arg("--ham")
                .arg(corpus.join("ham"))
                .args(flags),
        )
    };
    let out = mail(&[]);
    assert!(
        out.contains("precision  recall") && out.contains("spam recall"),
        "{out}"
    );
    assert!(out.contains("confusion (rows: truth"), "{out}");
    let none = mail(&["--confusion", "none"]);
    assert!(!none.contains("confusion (rows"), "{none}");
    let v: serde_json::Value =
        serde_json::from_str(&mail(&["--json", "--confusion", "top"])).unwrap();
    assert!(v["per_class"]["spam"]["f1"].is_number(), "{v}");
    assert!(
        v["top_confusions"].is_array() && v["confusion"].is_array(),
        "{v}"
    );
    assert!(v["auc"].is_number(), "{v}");
}

#[test]
fn multi_label_evaluations_have_per_label_figures_and_no_confusion_flag() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("ml.jsonl");
    let mut s = String::new();
    for i in 0..8 {
        let _ = writeln!(
            s,
            r#"{{"labels":["grain","wheat"],"text":"wheat grain {i}"}}"#
        );
        let _ = writeln!(s, r#"{{"labels":["oil"],"text":"crude oil barrel {i}"}}"#);
    }
    std::fs::write(&corpus, s).unwrap();
    let model = dir.path().join("ml.model");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(&corpus)
        .assert()
        .success();
    let out = eval(&model, &corpus, &[]);
    assert!(
        out.contains("label  precision  recall  f1      support"),
        "{out}"
    );
    for label in ["grain", "wheat", "oil"] {
        assert!(out.lines().any(|l| l.starts_with(label)), "{label}: {out}");
    }
    let v = eval_json(&model, &corpus, &[]);
    assert_eq!(v["per_class"]["oil"]["support"], 8);
    assert!(v["per_class"]["wheat"]["f1"].is_number(), "{v}");
    let err = stderr_of_failure(
        bin()
            .args(["eval", "--confusion", "top", "-m"])
            .arg(&model)
            .arg(&corpus),
    );
    assert!(
        err.contains("--confusion") && err.contains("multi-label"),
        "{err}"
    );
}

#[test]
fn online_evaluation_refuses_the_confusion_flag() {
    let err = stderr_of_failure(bin().args(["eval", "--online", "index", "--confusion", "top"]));
    assert!(
        err.contains("--confusion") && err.contains("--online"),
        "{err}"
    );
}

#[test]
fn a_heat_map_of_52_classes_grows_and_keeps_the_names_apart() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..52).map(|i| format!("category_number_{i:02}")).collect();
    let model = model_of(dir.path(), &names);
    let mut lines: Vec<(String, String)> =
        names.iter().enumerate().map(|(i, n)| doc(n, i)).collect();
    lines.push(doc(&names[3], 7));
    let test = tsv(dir.path(), "test.tsv", &lines);
    let svg = dir.path().join("c.svg");
    bin()
        .args([
            "eval",
            "--confusion",
            "none",
            "--plot-classes",
            "52",
            "--plot",
        ])
        .arg(&svg)
        .arg("-m")
        .arg(&model)
        .arg(&test)
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let root = doc.root_element();
    let px = |k: &str| root.attribute(k).unwrap().parse::<u32>().unwrap();
    assert!(px("width") > 800 && px("height") > 500, "the chart grows");
    // Each cell at least 14 pixels wide: the outlined cells' widths.
    let cells: Vec<f64> = root
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("none"))
        .map(|n| n.attribute("width").unwrap().parse().unwrap())
        .collect();
    assert_eq!(cells.len(), 52 * 52);
    assert!(cells.iter().all(|&w| w >= 14.0), "{:?}", &cells[..3]);
    // Names cut in the middle: each of the 52 stays distinct (row and column).
    let texts: Vec<&str> = root
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    for i in 0..52 {
        let short = format!("catego…mber_{i:02}");
        assert_eq!(
            texts.iter().filter(|t| t.trim() == short).count(),
            2,
            "{short}"
        );
    }
}
