//! What two-class text trains with apart from other corpora. The default PA's step:
//! `train` gives it C = 0.3 when `--pa-c` is not given, and keeps C = 1 where that was
//! measured to be better or nothing was measured — one-vs-rest and multi-label models,
//! SVMlight vectors, mail filters — and wherever the user names C. The model it makes is
//! the one an explicit `--pa-c 0.3` makes. The pruning: words of one document are kept
//! below 20,000 documents (1,000 elsewhere) unless `--min-df` is given.

use crate::common::{bin, corpus_and_filter, stdout_of, train_filter};
use rosenblatt::input::Document;
use rosenblatt::learn::{PassiveAggressive, Setting};
use rosenblatt::training::{TrainConfig, TrainingJob};
use std::path::{Path, PathBuf};

/// A TSV corpus of `classes` classes (2 or 3), 90 documents, with overlapping words so
/// that the step size changes the weights.
fn corpus(dir: &Path, classes: usize) -> PathBuf {
    let words = [
        ["great", "superb", "fine", "dull"],
        ["awful", "tedious", "flat", "fine"],
        ["odd", "long", "dull", "great"],
    ];
    let lines: String = (0..90)
        .map(|i| {
            let c = i % classes;
            let w = &words[c];
            format!(
                "c{c}\tthe film was {} and {} w{} x{}\n",
                w[i % 4],
                w[(i / 3) % 4],
                i % 13,
                i % 5
            )
        })
        .collect();
    let path = dir.join(format!("c{classes}.tsv"));
    std::fs::write(&path, lines).unwrap();
    path
}

/// The learner line `inspect` shows for `model`.
fn learner_line(model: &Path) -> String {
    let out = stdout_of(bin().args(["inspect", "-m"]).arg(model));
    out.lines()
        .find(|l| l.starts_with("learner"))
        .unwrap_or_else(|| panic!("no learner line in {out}"))
        .to_string()
}

fn train(model: &Path, input: &Path, flags: &[&str]) {
    stdout_of(
        bin()
            .arg("train")
            .args(flags)
            .arg("-o")
            .arg(model)
            .arg(input),
    );
}

#[test]
fn two_class_text_trains_with_the_smaller_step_unless_told_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let (two, three) = (corpus(dir.path(), 2), corpus(dir.path(), 3));
    let m = |name: &str| dir.path().join(name);
    train(&m("default"), &two, &[]);
    assert!(
        learner_line(&m("default")).contains("pa (C 0.3,"),
        "{}",
        learner_line(&m("default"))
    );
    // Named, C is the user's, 1 included.
    train(&m("one"), &two, &["--pa-c", "1"]);
    assert!(learner_line(&m("one")).contains("pa (C 1,"));
    // The same model as an explicit --pa-c 0.3: the same lines for every document.
    train(&m("explicit"), &two, &["--pa-c", "0.3"]);
    let classify = |model: &Path| stdout_of(bin().args(["classify", "-m"]).arg(model).arg(&two));
    assert_eq!(classify(&m("default")), classify(&m("explicit")));
    assert_ne!(classify(&m("default")), classify(&m("one")));
    // Cross-validation and a held-out part train their models with it too.
    train(&m("cv"), &two, &["--cv", "3"]);
    assert!(learner_line(&m("cv")).contains("pa (C 0.3,"));
    train(&m("holdout"), &two, &["--holdout", "0.2"]);
    assert!(learner_line(&m("holdout")).contains("pa (C 0.3,"));
    // One-vs-rest keeps C = 1, as do other learners (which have no C).
    train(&m("three"), &three, &[]);
    assert!(learner_line(&m("three")).contains("pa (C 1,"));
    train(&m("ap"), &two, &["--learner", "averaged-perceptron"]);
    assert!(!learner_line(&m("ap")).contains("C 0.3"));
}

#[test]
fn vectors_and_mail_filters_keep_their_step() {
    let dir = tempfile::tempdir().unwrap();
    let svm = dir.path().join("rows.svm");
    let rows: String = (0..40)
        .map(|i| {
            format!(
                "{} {}:1 {}:1\n",
                if i % 2 == 0 { 1 } else { -1 },
                1 + i % 2,
                3 + i % 7
            )
        })
        .collect();
    std::fs::write(&svm, rows).unwrap();
    let model = dir.path().join("svm.model");
    train(&model, &svm, &[]);
    assert!(
        learner_line(&model).contains("pa (C 1,"),
        "{}",
        learner_line(&model)
    );
    let (_, filter) = corpus_and_filter(dir.path());
    assert!(
        learner_line(&filter).contains("pa (C 1,"),
        "{}",
        learner_line(&filter)
    );
}

#[test]
fn a_job_sets_the_two_class_c_only_where_asked_and_only_on_two_classes() {
    let docs = |classes: usize| -> Vec<Document> {
        (0..60)
            .map(|i| {
                let c = i % classes;
                let text = format!("w{c} w{} shared v{}", (i * 7) % 5, i % 3);
                Document::new(i.to_string(), text, Some(format!("c{c}").as_str()))
            })
            .collect()
    };
    let weights = |job: &TrainingJob, d: Vec<Document>| {
        let m = job.run_documents(d, &|_| {}).unwrap().model;
        format!("{:?}", m.predictor())
    };
    let mut asked = TrainingJob::new(TrainConfig::default());
    asked.two_class.c = Some(PassiveAggressive::TWO_CLASS_TEXT_C);
    let mut explicit_cfg = TrainConfig::default();
    let mut pa = explicit_cfg.learner.clone().into_inner();
    pa.set(Setting::C(PassiveAggressive::TWO_CLASS_TEXT_C))
        .unwrap();
    explicit_cfg.learner = rosenblatt::learn::Check::check(pa).unwrap();
    let explicit = TrainingJob::new(explicit_cfg);
    let library = TrainingJob::new(TrainConfig::default());
    // Two classes: asked equals an explicit C; the library's own job keeps C = 1.
    assert_eq!(weights(&asked, docs(2)), weights(&explicit, docs(2)));
    assert_ne!(weights(&asked, docs(2)), weights(&library, docs(2)));
    // Three classes: asked keeps C = 1.
    assert_eq!(weights(&asked, docs(3)), weights(&library, docs(3)));
}

/// The vocabulary size `inspect` shows for `model`.
fn vocabulary_words(model: &Path) -> usize {
    let out = stdout_of(bin().args(["inspect", "-m"]).arg(model));
    let line = out
        .lines()
        .find(|l| l.starts_with("vocabulary"))
        .unwrap_or_else(|| panic!("no vocabulary line in {out}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn two_class_text_keeps_words_of_one_document_unless_min_df_is_given() {
    let dir = tempfile::tempdir().unwrap();
    // 1,200 documents (past the 1,000 from which other corpora drop words of one
    // document): each has a word of its own and two words every document of its class
    // shares.
    let corpus = |classes: usize| {
        let lines: String = (0..1200)
            .map(|i| {
                let c = i % classes;
                format!("c{c}	cue{c} common{c} only{i}\n")
            })
            .collect();
        let path = dir.path().join(format!("k{classes}.tsv"));
        std::fs::write(&path, lines).unwrap();
        path
    };
    let model = dir.path().join("m");
    let words = |classes: usize, flags: &[&str]| {
        train(&model, &corpus(classes), flags);
        vocabulary_words(&model)
    };
    assert_eq!(words(2, &[]), 1200 + 4);
    assert_eq!(words(2, &["--min-df", "2"]), 4);
    assert_eq!(words(3, &[]), 6);
    assert_eq!(words(3, &["--min-df", "1"]), 1200 + 6);
    // Mail filters keep their own pruning.
    let (spam, ham) = (dir.path().join("spam"), dir.path().join("ham"));
    for (folder, tag) in [(&spam, "spam"), (&ham, "ham")] {
        std::fs::create_dir(folder).unwrap();
        for i in 0..600 {
            let mail = format!("From: a@b.c\nSubject: {tag}\n\n{tag}cue only{tag}{i}\n");
            std::fs::write(folder.join(format!("{i}.eml")), mail).unwrap();
        }
    }
    train_filter(&spam, &ham, &model, &[]);
    assert!(vocabulary_words(&model) < 100);
}
