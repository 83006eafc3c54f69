//! SVMlight interchange through the binary: `vectorize` writes what in-memory vectorizing
//! builds, a model trained on its output decides exactly as one trained on the text, and
//! mixing text models with vectors (or the reverse) is refused with a clear message.

use crate::common::{bin, data, shared_corpus, stdout_of};
use predicates::str::contains;
use rosenblatt::features::svmlight::{Rows, read_svmlight};
use rosenblatt::text::Analyzer;
use rosenblatt::training::vectorize_training;
use rosenblatt::vocab::VocabConfig;
use std::path::{Path, PathBuf};

fn vectorize(input: &Path, out: &Path, extra: &[&str]) -> String {
    stdout_of(
        bin()
            .arg("vectorize")
            .args(extra)
            .arg("-o")
            .arg(out)
            .arg(input),
    )
}

/// `(svm label, class)` pairs of OUT.classes.
fn classes_file(out: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(format!("{}.classes", out.display())).unwrap();
    text.lines()
        .map(|l| {
            let (a, b) = l.split_once('\t').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect()
}

/// Vectorizes `input` and checks the file against in-memory vectorizing of the same
/// documents: rows, vocabulary with document frequencies, labels.
fn check_round_trip(
    dir: &Path,
    input: &Path,
    format: Option<&str>,
    min_df: u32,
    batch: &str,
) -> PathBuf {
    let out = dir.join(format!("corpus-{min_df}-{batch}.svm"));
    let mut extra = vec!["--batch", batch];
    let min_df_s = min_df.to_string();
    extra.extend(["--min-df", &min_df_s]);
    if let Some(f) = format {
        extra.extend(["--format", f]);
    }
    vectorize(input, &out, &extra);

    let fmt = format.map(|f| match f {
        "tsv" => rosenblatt::input::Format::Tsv,
        "jsonl" => rosenblatt::input::Format::Jsonl,
        other => panic!("{other}"),
    });
    let docs = rosenblatt::input::read(input, fmt).unwrap().docs;
    let cfg = VocabConfig {
        min_df,
        max_features: None,
        singletons_from: None,
    };
    let (vocab, x) = vectorize_training(&Analyzer::default(), &cfg, &docs);
    let parsed = read_svmlight(&out).unwrap();
    let Rows::Binary(m) = &parsed.rows else {
        panic!("vectorize writes binary rows")
    };
    assert_eq!(m.rows(), x.rows());
    for i in 0..x.rows() {
        assert_eq!(
            m.outer_view(i).unwrap().indices(),
            x.outer_view(i).unwrap().indices(),
            "row {i}"
        );
    }
    let vocab_lines: Vec<String> = std::fs::read_to_string(format!("{}.vocab", out.display()))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(vocab_lines.len(), vocab.len());
    for (j, l) in vocab_lines.iter().enumerate() {
        assert_eq!(
            *l,
            format!("{}\t{}", vocab.word(j as u32), vocab.df(j as u32))
        );
    }
    let classes = classes_file(&out);
    for (d, l) in docs.iter().zip(&parsed.labels) {
        let (code, _) = classes.iter().find(|c| c.1 == d.labels[0]).unwrap();
        assert_eq!(code.trim_start_matches('+'), l, "{}", d.id);
    }
    out
}

/// `(class, score)` per classified row or document.
fn decisions(model: &Path, input: &Path, extra: &[&str]) -> Vec<(String, String)> {
    let out = stdout_of(
        bin()
            .arg("classify")
            .arg("-m")
            .arg(model)
            .args(extra)
            .arg(input),
    );
    out.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[1].to_string(), f[2].to_string())
        })
        .collect()
}

/// Trains a perceptron on the text and on its vectors with the same options, both read
/// as stored (binary rows: the vectors' values); both models must decide every document
/// alike, with equal scores.
fn check_same_model(text: &Path, text_args: &[&str], svm: &Path, train_args: &[&str]) {
    let stored = ["--weighting", "binary", "--normalize", "none"];
    let train_args = &[train_args, &stored[..]].concat();
    let dir = tempfile::tempdir().unwrap();
    let (tm, sm) = (dir.path().join("t.model"), dir.path().join("s.model"));
    let t_out = stdout_of(
        bin()
            .arg("train")
            .args(train_args)
            .args(text_args)
            .arg("-o")
            .arg(&tm)
            .arg(text),
    );
    let s_out = stdout_of(
        bin()
            .arg("train")
            .args(train_args)
            .arg("-o")
            .arg(&sm)
            .arg(svm),
    );
    let line = |o: &str, k: &str| o.lines().find(|l| l.starts_with(k)).unwrap().to_string();
    assert_eq!(line(&t_out, "updates k"), line(&s_out, "updates k"));
    assert!(s_out.contains("(SVMlight ids)"), "{s_out}");
    let input_format: Vec<&str> = match text_args {
        ["--format", f] => vec!["--input-format", f],
        _ => vec![],
    };
    let from_text = decisions(&tm, text, &input_format);
    let from_svm = decisions(&sm, svm, &[]);
    let classes = classes_file(svm);
    let named: Vec<(String, String)> = from_svm
        .into_iter()
        .map(|(l, s)| {
            let c = classes
                .iter()
                .find(|c| c.0.trim_start_matches('+') == l)
                .unwrap();
            (c.1.clone(), s)
        })
        .collect();
    assert_eq!(from_text, named);
}

#[test]
fn vectorize_a_folder_and_train_on_it_as_on_the_text() {
    let dir = tempfile::tempdir().unwrap();
    for min_df in [1, 2] {
        let svm = check_round_trip(dir.path(), &data("tiny"), None, min_df, "5");
        let min_df_s = min_df.to_string();
        // C named: two-class text would otherwise take its own default C, vectors 1.
        check_same_model(
            &data("tiny"),
            &["--min-df", &min_df_s],
            &svm,
            &["--epochs", "3", "--pa-c", "1"],
        );
    }
    let svm = check_round_trip(dir.path(), &data("tiny"), None, 1, "2048");
    let classes = classes_file(&svm);
    assert_eq!(
        classes,
        [("-1".into(), "ham".into()), ("+1".into(), "spam".into())]
    );
}

#[test]
fn vectorize_line_files_streamed_in_small_batches() {
    let dir = tempfile::tempdir().unwrap();
    let svm = check_round_trip(dir.path(), &data("tiny.tsv"), Some("tsv"), 1, "2");
    check_same_model(
        &data("tiny.tsv"),
        &["--format", "tsv"],
        &svm,
        &["--learner", "perceptron", "--mode", "online"],
    );
    // The bad JSON line is skipped (and said so); the three good ones are written.
    let svm = check_round_trip(dir.path(), &data("tiny.jsonl"), Some("jsonl"), 1, "1");
    assert_eq!(read_svmlight(&svm).unwrap().labels, ["-1", "1", "1"]);
}

#[test]
fn multiclass_labels_are_class_indices_and_train_one_vs_rest_alike() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    // Three classes: ham, spam, and a class made of the ham texts reversed word by word.
    for (class, src) in [
        ("ham", "tiny/ham"),
        ("spam", "tiny/spam"),
        ("zz", "tiny/ham"),
    ] {
        let to = corpus.join(class);
        std::fs::create_dir_all(&to).unwrap();
        for e in std::fs::read_dir(data(src)).unwrap() {
            let p = e.unwrap().path();
            let mut text = std::fs::read_to_string(&p).unwrap();
            if class == "zz" {
                text = text.split_whitespace().rev().collect::<Vec<_>>().join(" ") + " zzz";
            }
            std::fs::write(to.join(p.file_name().unwrap()), text).unwrap();
        }
    }
    let svm = dir.path().join("c.svm");
    let out = vectorize(&corpus, &svm, &[]);
    assert!(out.contains("ham = 1, spam = 2, zz = 3"), "{out}");
    assert_eq!(
        read_svmlight(&svm).unwrap().labels[..],
        [vec!["1"; 6], vec!["2"; 6], vec!["3"; 6]].concat()[..]
    );
    check_same_model(&corpus, &[], &svm, &["--epochs", "4"]);
    // eval on the vectors: the labels are the model's classes.
    let model = dir.path().join("c.model");
    stdout_of(bin().args(["train", "-o"]).arg(&model).arg(&svm));
    let json = stdout_of(bin().args(["eval", "--json", "-m"]).arg(&model).arg(&svm));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["documents"], 18);
}

#[test]
fn real_valued_rows_train_eval_and_classify() {
    let dir = tempfile::tempdir().unwrap();
    // The seeds' 4-point set, x = (1,2), (2,1), (−1,−1), (−1,1): separable by x1 > 0.
    let train = dir.path().join("four.svm");
    std::fs::write(
        &train,
        "+1 1:1 2:2\n+1 1:2 2:1\n-1 1:-1 2:-1\n# a comment\n\n-1 1:-1 2:1\n",
    )
    .unwrap();
    let model = dir.path().join("four.model");
    let out = stdout_of(
        bin()
            .args(["train", "--learner", "perceptron", "--mode", "converge"])
            .args(["--epochs", "100", "-o"])
            .arg(&model)
            .arg(&train),
    );
    assert!(out.contains("training acc   1.0000"), "{out}");
    assert!(out.contains("features       2 (SVMlight ids)"), "{out}");
    let json = stdout_of(bin().args(["eval", "--json", "-m"]).arg(&model).arg(&train));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["accuracy"], 1.0);
    // classify ids are line numbers; the comment and blank lines are not rows.
    let test = dir.path().join("test");
    std::fs::write(&test, "0 1:3 2:0.5\n0 1:-2 2:4\n\n0 1:-1 2:-3 3:7\n").unwrap();
    let out = stdout_of(bin().args(["classify", "-m"]).arg(&model).arg(&test));
    let got: Vec<(&str, &str)> = out
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0], f[1])
        })
        .collect();
    assert_eq!(got, [("1", "1"), ("2", "-1"), ("4", "-1")]);
    // inspect names features by their SVMlight ids.
    let out = stdout_of(bin().args(["inspect", "-m"]).arg(&model));
    assert!(out.contains("most 1 features:"), "{out}");
}

#[test]
fn text_models_and_vectors_do_not_mix() {
    let dir = tempfile::tempdir().unwrap();
    let svm = dir.path().join("tiny.svm");
    vectorize(&data("tiny"), &svm, &[]);
    let (tm, sm) = (dir.path().join("t.model"), dir.path().join("s.model"));
    stdout_of(bin().args(["train", "-o"]).arg(&tm).arg(data("tiny")));
    stdout_of(bin().args(["train", "-o"]).arg(&sm).arg(&svm));
    bin()
        .args(["eval", "-m"])
        .arg(&tm)
        .arg(&svm)
        .assert()
        .code(1)
        .stderr(contains(
            "was trained on text; SVMlight vectors need a model",
        ));
    bin()
        .args(["classify", "-m"])
        .arg(&tm)
        .arg(&svm)
        .assert()
        .code(3)
        .stderr(contains("was trained on text"));
    for (cmd, input) in [("eval", data("tiny")), ("classify", data("tiny.tsv"))] {
        bin()
            .args([cmd, "-m"])
            .arg(&sm)
            .arg(input)
            .assert()
            .failure()
            .stderr(contains(
                "was trained on SVMlight vectors; give it SVMlight input",
            ));
    }
    // A document file without an extension is read as vectors and fails on its line.
    let doc = dir.path().join("notes");
    std::fs::write(&doc, "-1 1:1\nfree money now\n").unwrap();
    bin()
        .args(["eval", "-m"])
        .arg(&sm)
        .arg(&doc)
        .assert()
        .code(1)
        .stderr(contains("notes:2: expected id:value"))
        .stderr(contains("read as SVMlight"));
    bin()
        .args(["train", "--min-df", "2", "-o"])
        .arg(dir.path().join("x.model"))
        .arg(&svm)
        .assert()
        .code(1)
        .stderr(contains("SVMlight rows have none"));
    bin()
        .args(["vectorize", "-o"])
        .arg(dir.path().join("again.svm"))
        .arg(&svm)
        .assert()
        .code(1)
        .stderr(contains("SVMlight files hold vectors, not documents"));
    bin()
        .args(["train", "-o"])
        .arg(dir.path().join("x.model"))
        .arg(&svm)
        .arg(data("tiny.tsv"))
        .assert()
        .code(1)
        .stderr(contains("some inputs are SVMlight vectors"));
}

#[test]
fn libsvm_w8a_has_its_published_shape() {
    let Some(w8a) = shared_corpus("libsvm/w8a") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("w8a.model");
    let out = stdout_of(
        bin()
            .args([
                "train", "--format", "svmlight", "--epochs", "1", "--json", "-o",
            ])
            .arg(&model)
            .arg(&w8a),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // LIBSVM's data page: w8a has 49,749 rows and 300 binary features, labels ±1.
    assert_eq!(v["documents"], 49749);
    assert_eq!(v["classes"], serde_json::json!(["-1", "1"]));
    let m = rosenblatt::model::Model::load(&model).unwrap();
    assert!(matches!(
        m.features(),
        rosenblatt::model::FeatureSpace::Indexed { n_features: 300 }
    ));
}
