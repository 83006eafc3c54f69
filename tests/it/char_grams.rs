//! Character n-grams and body truncation travel in the model's analyzer: `classify` and
//! `eval` replay them from the file alone and give the scores training gave.

use crate::common::{bin, classify_gives_the_training_scores, data, stdout_of, train_filter};
use rosenblatt::model::Model;
use rosenblatt::text::Step;

#[test]
fn a_character_gram_model_classifies_its_training_files_with_the_training_scores() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.model");
    bin()
        .args([
            "train",
            "--features",
            "words+char4",
            "--hash-bits",
            "18",
            "-o",
        ])
        .arg(&model)
        .arg(data("tiny"))
        .assert()
        .success();
    let m = Model::load(&model).unwrap();
    assert_eq!(
        m.analyzer().steps(),
        [Step::Words, Step::Chars(4), Step::Lowercase, Step::Hash(18)]
    );
    let inspect = stdout_of(bin().args(["inspect", "-m"]).arg(&model));
    assert!(
        inspect.contains("text → words → chars(4) → lowercase → hash(18)"),
        "{inspect}"
    );
    // The library, trained with the recorded analyzer, learns the same model; its scores
    // of the training rows are what `classify` gives the files.
    let (docs, out) = classify_gives_the_training_scores(&model, &m);
    // `eval` agrees with those decisions.
    let right = out
        .lines()
        .zip(&docs)
        .filter(|(l, d)| l.split('\t').nth(1) == Some(d.labels[0].as_str()))
        .count();
    let v: serde_json::Value = serde_json::from_str(&stdout_of(
        bin()
            .args(["eval", "--json", "-m"])
            .arg(&model)
            .arg(data("tiny")),
    ))
    .unwrap();
    let acc = v["accuracy"].as_f64().unwrap();
    assert!(
        (acc - right as f64 / docs.len() as f64).abs() < 1e-12,
        "{v}"
    );
}

#[test]
fn a_truncated_filter_reads_only_the_first_bytes_of_each_body() {
    let dir = tempfile::tempdir().unwrap();
    let (spam, ham) = (dir.path().join("spam"), dir.path().join("ham"));
    std::fs::create_dir_all(&spam).unwrap();
    std::fs::create_dir_all(&ham).unwrap();
    for i in 0..4 {
        let s = format!("Subject: offer {i}\n\nfree cash now, claim prize {i}\n");
        let h = format!("Subject: agenda {i}\n\nthe meeting moved to room {i}\n");
        std::fs::write(spam.join(format!("{i}.eml")), s).unwrap();
        std::fs::write(ham.join(format!("{i}.eml")), h).unwrap();
    }
    let model = dir.path().join("f.model");
    train_filter(
        &spam,
        &ham,
        &model,
        &["--truncate", "10", "--features", "char3"],
    );
    let m = Model::load(&model).unwrap();
    let rules = m.analyzer().source().mail_rules().unwrap();
    assert_eq!(rules.max_body_bytes, 10);
    assert_eq!(m.analyzer().steps(), [Step::Chars(3), Step::Lowercase]);
    // Two messages whose bodies differ only after their first 10 bytes score the same.
    let a = dir.path().join("a.eml");
    let b = dir.path().join("b.eml");
    std::fs::write(&a, "Subject: hello\n\nfree cash and the meeting\n").unwrap();
    std::fs::write(&b, "Subject: hello\n\nfree cash claim prize now\n").unwrap();
    // The two messages' scores, as `classify` prints them.
    let scores = || -> Vec<String> {
        let out = stdout_of(bin().args(["classify", "-m"]).arg(&model).arg(&a).arg(&b));
        out.lines()
            .map(|l| l.rsplit('\t').next().unwrap().to_string())
            .collect()
    };
    let s = scores();
    assert_eq!(s[0], s[1], "{s:?}");
    // A message that differs within the first 10 bytes scores differently.
    std::fs::write(&b, "Subject: hello\n\nthe meeting and free cash\n").unwrap();
    let s = scores();
    assert_ne!(s[0], s[1], "{s:?}");
}
