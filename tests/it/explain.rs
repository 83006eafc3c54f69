//! `classify --explain`: a verdict taken apart into the bias and each feature's
//! contribution, which add up to the score, the same from a filter's model file and from
//! its store, as a table and as JSON lines; multi-class models explain the decided class
//! or the one named.

use crate::common::{bin, corpus_and_filter, stderr_of_failure, stdout_of, walk};
use rosenblatt::features::{GeometrySpec, Normalize, Weighting};
use rosenblatt::learn::Predictor;
use rosenblatt::{Document, Model, TrainConfig};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The JSON line `classify --explain --format jsonl` writes for `doc` under `model`.
fn explained(model: &Path, doc: &Path, extra: &[&str]) -> Value {
    let out = stdout_of(
        bin()
            .args(["classify", "--explain", "--format", "jsonl", "-m"])
            .arg(model)
            .args(extra)
            .arg(doc),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    serde_json::from_str(lines[0]).unwrap()
}

/// The features of an explained line: (feature, weight, contribution).
fn features(v: &Value) -> Vec<(String, f64, f64)> {
    v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["feature"].as_str().unwrap().to_string(),
                f["weight"].as_f64().unwrap(),
                f["contribution"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Checks that the bias plus the contributions add up to `score` (±1e-3) and that the
/// features come strongest first.
fn adds_up(v: &Value, score: f64) {
    let f = features(v);
    let total: f64 = v["bias"].as_f64().unwrap() + f.iter().map(|c| c.2).sum::<f64>();
    assert!((total - score).abs() <= 1e-3, "{total} vs {score}: {v}");
    assert!(
        f.windows(2).all(|p| p[0].2.abs() >= p[1].2.abs()),
        "not strongest first: {v}"
    );
}

/// A spam message of the shipped corpus that the 30 + 30 filter was not trained on.
fn unseen_spam() -> PathBuf {
    let mut files = walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/spamassassin/spam"));
    files.sort();
    files[100].clone()
}

#[test]
fn a_filter_explains_a_message_alike_from_its_model_file_and_its_store() {
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = corpus_and_filter(dir.path());
    let store = dir.path().join("spam.store");
    stdout_of(bin().arg("convert").arg(&model).arg(&store));
    let message = unseen_spam();
    let line = stdout_of(bin().arg("classify").arg("-m").arg(&model).arg(&message));
    let score: f64 = line.trim_end().split('\t').nth(2).unwrap().parse().unwrap();
    let from_file = explained(&model, &message, &[]);
    let from_store = explained(&store, &message, &[]);
    // The explanation's score is the verdict's, and its parts add up to it.
    assert_eq!(from_file["score"].as_f64().unwrap() as f32, score as f32);
    adds_up(&from_file, score);
    adds_up(&from_store, score);
    assert!(from_file["probability"].as_f64().is_some(), "{from_file}");
    // The same features, weights and contributions from both forms of the filter.
    let (a, b) = (features(&from_file), features(&from_store));
    assert_eq!(a.len(), b.len());
    assert!(
        a.len() > 20,
        "a real message holds many weighed features: {}",
        a.len()
    );
    for (x, y) in a.iter().zip(&b).take(10) {
        assert_eq!(x.0, y.0);
        assert!(
            (x.1 - y.1).abs() < 1e-6 && (x.2 - y.2).abs() < 1e-6,
            "{x:?} {y:?}"
        );
    }
    // Mail features are named as the model names them: header fields by their prefix.
    assert!(
        a.iter().any(|f| f.0.contains(':')),
        "no field-prefixed feature among {:?}",
        &a[..10]
    );
    // Every weight is nonzero (a feature the model does not weigh is not listed).
    assert!(a.iter().all(|f| f.1 != 0.0));
}

#[test]
fn the_plain_form_is_a_table_whose_lines_add_up_to_the_score() {
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = corpus_and_filter(dir.path());
    let message = unseen_spam();
    let out = stdout_of(
        bin()
            .args(["classify", "--explain", "--explain-top", "5", "-m"])
            .arg(&model)
            .arg(&message),
    );
    let lines: Vec<&str> = out.lines().collect();
    // The verdict line as without --explain, then the heading and the decision.
    let plain = stdout_of(bin().arg("classify").arg("-m").arg(&model).arg(&message));
    assert_eq!(lines[0], plain.trim_end(), "{out}");
    let score: f64 = lines[0].split('\t').nth(2).unwrap().parse().unwrap();
    assert!(
        lines[1].contains("score") && lines[1].contains("bias"),
        "{out}"
    );
    assert!(
        lines[2].contains("P(spam)") && lines[2].contains("spam when score >"),
        "{out}"
    );
    assert!(
        lines[3].contains("contribution") && lines[3].contains("feature"),
        "{out}"
    );
    // Five features, the rest on one line, the bias and the score: the first numbers of
    // the lines below the header add up to the score (four decimals each).
    let rows = &lines[4..];
    assert_eq!(rows.len(), 5 + 3, "{out}");
    assert!(rows[5].contains("more features"), "{out}");
    assert!(
        rows[6].ends_with("bias") && rows[7].ends_with("score"),
        "{out}"
    );
    let first = |l: &str| -> f64 { l.split_whitespace().next().unwrap().parse().unwrap() };
    let total: f64 = rows[..7].iter().map(|l| first(l)).sum();
    assert!((total - score).abs() < 2e-3, "{total} vs {score}\n{out}");
    assert!((first(rows[7]) - score).abs() < 1e-4, "{out}");
}

/// Three class folders of a few documents each.
fn three_classes(dir: &Path) -> PathBuf {
    let root = dir.join("topics");
    let docs = [
        (
            "fruit",
            [
                "apple banana pear",
                "banana smoothie apple",
                "ripe pear and apple",
            ],
        ),
        (
            "pets",
            ["dog cat hamster", "cat food for the dog", "a dog and a cat"],
        ),
        (
            "cars",
            [
                "engine wheel brake",
                "brake pads and wheel",
                "engine oil and brake",
            ],
        ),
    ];
    for (class, texts) in docs {
        std::fs::create_dir_all(root.join(class)).unwrap();
        for (i, t) in texts.iter().enumerate() {
            std::fs::write(root.join(class).join(format!("{i}.txt")), t).unwrap();
        }
    }
    root
}

#[test]
fn multi_class_models_explain_the_decided_class_or_the_one_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = three_classes(dir.path());
    let doc = dir.path().join("doc.txt");
    std::fs::write(&doc, "the dog ate an apple").unwrap();
    for learner in ["pa", "softmax"] {
        let model = dir.path().join(format!("{learner}.model"));
        bin()
            .args(["train", "--learner", learner, "-o"])
            .arg(&model)
            .arg(&root)
            .assert()
            .success();
        let decided = explained(&model, &doc, &[]);
        let label = decided["label"].as_str().unwrap().to_string();
        let score = decided
            .get("explained_score")
            .unwrap_or(&decided["score"])
            .as_f64()
            .unwrap();
        adds_up(&decided, score);
        // "the" and "ate" and "an" are not in the vocabulary; dog and apple are.
        let names: Vec<String> = features(&decided).into_iter().map(|f| f.0).collect();
        assert!(
            names.contains(&"dog".into()) && names.contains(&"apple".into()),
            "{names:?}"
        );
        // Another class named: its own score, reported beside the line's.
        let other = ["fruit", "pets", "cars"]
            .into_iter()
            .find(|c| *c != label)
            .unwrap();
        let named = explained(&model, &doc, &["--explain-class", other]);
        assert_eq!(named["explained_class"], other, "{named}");
        let s = named["explained_score"].as_f64().unwrap();
        adds_up(&named, s);
        assert!(s <= score, "{learner}: the decided class scores highest");
        // A class the model does not have is named with those it has.
        let err = stderr_of_failure(
            bin()
                .args(["classify", "--explain", "--explain-class", "boats", "-m"])
                .arg(&model)
                .arg(&doc),
        );
        assert!(err.contains("\"boats\"") && err.contains("fruit"), "{err}");
    }
}

#[test]
fn explain_refuses_what_it_cannot_take_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = corpus_and_filter(dir.path());
    let message = unseen_spam();
    // A filter has one score: no class to name.
    let err = stderr_of_failure(
        bin()
            .args(["classify", "--explain", "--explain-class", "ham", "-m"])
            .arg(&model)
            .arg(&message),
    );
    assert!(err.contains("one score"), "{err}");
    // --explain-class without --explain, and --explain with --passthrough.
    let err = stderr_of_failure(
        bin()
            .args(["classify", "--explain-class", "ham", "-m"])
            .arg(&model)
            .arg(&message),
    );
    assert!(err.contains("--explain"), "{err}");
    let err = stderr_of_failure(
        bin()
            .args(["classify", "--explain", "--passthrough", "-m"])
            .arg(&model)
            .arg(&message),
    );
    assert!(err.contains("--passthrough"), "{err}");
    // A kernel model's score is no sum over features.
    let kernel = dir.path().join("kernel.model");
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tiny");
    bin()
        .args(["train", "--learner", "kernel-perceptron", "-o"])
        .arg(&kernel)
        .arg(&tiny)
        .assert()
        .success();
    let err = stderr_of_failure(
        bin()
            .args(["classify", "--explain", "-m"])
            .arg(&kernel)
            .arg(tiny.join("spam/s1.txt")),
    );
    assert!(err.contains("kernel") && err.contains("linear"), "{err}");
}

/// Three spam and three ham texts for the library's checks.
fn library_docs() -> Vec<Document> {
    let spam = [
        "cheap meds buy now",
        "buy cheap watches now",
        "win cheap prizes now",
    ];
    let ham = [
        "lunch at noon",
        "meeting at noon tomorrow",
        "notes from the meeting",
    ];
    let mut d: Vec<Document> = spam
        .iter()
        .map(|&t| Document::labelled("spam", t))
        .collect();
    d.extend(ham.iter().map(|&t| Document::labelled("ham", t)));
    d
}

/// The library: each contribution is the model's weight times the row's value under
/// its geometry (1, idf, idf/‖x‖), hand-checked.
#[test]
fn library_contributions_are_the_weights_times_the_geometry_values() {
    for geometry in [
        GeometrySpec::default(),
        GeometrySpec::IDF_L2,
        GeometrySpec {
            weighting: Weighting::Idf,
            normalize: Normalize::None,
        },
    ] {
        let config = TrainConfig {
            geometry,
            ..TrainConfig::default()
        };
        let model = Model::fit(&library_docs(), &config).unwrap();
        let Predictor::Binary(m) = model.predictor() else {
            panic!("two classes")
        };
        let w = &m.as_linear().unwrap().w;
        let text = "buy cheap lunch now at noon";
        let e = model.explain(text).unwrap();
        assert_eq!(e.score, model.classify(text).unwrap().score);
        assert!((e.total() - f64::from(e.score)).abs() < 1e-5, "{e:?}");
        // "lunch" and "noon" and "buy" ... each known word once, at its own weight.
        let words = ["buy", "cheap", "lunch", "now", "at", "noon"];
        let weighed = words
            .iter()
            .filter(|t| w[model.vocab().get(t).unwrap() as usize] != 0.0);
        assert_eq!(e.features.len(), weighed.count());
        // The row's values: 1 (binary), idf, idf/‖x‖ (the six idf values' length).
        let idf = |t: &str| model.geometry().weight(model.vocab().get(t).unwrap());
        let norm = words.iter().map(|t| idf(t).powi(2)).sum::<f32>().sqrt();
        for c in &e.features {
            let j = model.vocab().get(&c.feature).unwrap() as usize;
            assert_eq!(c.weight, w[j]);
            let want = match (geometry.weighting, geometry.normalize) {
                (Weighting::Binary, _) => 1.0,
                (_, Normalize::None) => idf(&c.feature),
                (_, Normalize::L2) => idf(&c.feature) / norm,
            };
            assert!((c.value - want).abs() < 1e-6, "{c:?} vs {want}");
            assert_eq!(c.contribution, c.weight * c.value);
        }
    }
}

#[test]
fn a_two_class_model_has_no_class_to_name_in_the_library() {
    let model = Model::fit(&library_docs(), &TrainConfig::default()).unwrap();
    let err = model
        .explain_class("cheap", "spam")
        .unwrap_err()
        .to_string();
    assert!(err.contains("one score"), "{err}");
}

#[test]
fn a_hashed_model_names_features_by_the_documents_own_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("hashed.model");
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tiny");
    bin()
        .args(["train", "--hash-bits", "18", "-o"])
        .arg(&model)
        .arg(&tiny)
        .assert()
        .success();
    let doc = tiny.join("spam/s1.txt");
    let text = std::fs::read_to_string(&doc).unwrap().to_lowercase();
    let v = explained(&model, &doc, &[]);
    let f = features(&v);
    assert!(!f.is_empty(), "{v}");
    for (name, _, _) in &f {
        // A space of 2^18 ids keeps no words: each id is named by the tokens of this
        // document that hash to it.
        assert!(!name.starts_with('#'), "{name}");
        assert!(
            name.split(" | ").all(|w| text.contains(w)),
            "{name} not in {text}"
        );
    }
    adds_up(&v, v["score"].as_f64().unwrap());
}
