//! One definition of a spam filter for every command: a two-class text model whose
//! classes are named ham and spam is no filter (no store is made of it, and every command
//! that needs a filter refuses it with the same sentence), and a saved filter is
//! re-decided at another P(spam) or score by `classify` and `eval` without changing it.

use crate::common::{bin, corpus_and_filter, stdout_of, walk};
use rosenblatt::model::Model;
use rosenblatt::store::Store;
use std::path::{Path, PathBuf};

/// What every command says of a text model named ham/spam.
const NOT_A_FILTER: &str = "not a spam filter: a spam filter reads mail and has the classes \
ham and spam, and this model reads plain text (train one with --spam PATH... --ham PATH...)";

/// Stderr of a run that must exit with `code`.
fn stderr_with_code(cmd: &mut assert_cmd::Command, code: i32) -> String {
    String::from_utf8(cmd.assert().code(code).get_output().stderr.clone()).unwrap()
}

#[test]
fn a_text_model_named_ham_and_spam_is_no_filter_to_any_command() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, _) = corpus_and_filter(dir.path());
    // The class folders trained as plain text: classes ham and spam, a text analyzer.
    let text = dir.path().join("t.model");
    stdout_of(bin().args(["train", "-o"]).arg(&text).arg(&corpus));
    let ham = corpus.join("ham").join("0.eml");
    // It classifies documents as the text model it is: a label, exit 0.
    let out = stdout_of(bin().args(["classify", "-m"]).arg(&text).arg(&ham));
    assert!(out.contains("\tham\t") || out.contains("\tspam\t"), "{out}");
    // No store is made of it (before, `classify -m STORE` exited 0, "spam", on every message).
    let store = dir.path().join("t.store");
    let err = stderr_with_code(bin().arg("convert").arg(&text).arg(&store), 1);
    assert!(err.contains(&format!("t.model: {NOT_A_FILTER}")), "{err}");
    assert!(!store.exists());
    // Every command that needs a filter refuses it with the same sentence.
    let index = dir.path().join("index");
    std::fs::write(&index, format!("ham {}\n", ham.display())).unwrap();
    let spam_dir = corpus.join("spam");
    let ham_dir = corpus.join("ham");
    let classify = |flags: &[&str]| {
        let mut c = bin();
        c.arg("classify").args(flags).arg("-m").arg(&text).arg(&ham);
        c
    };
    let mut runs: Vec<(assert_cmd::Command, i32)> = vec![
        (classify(&["--passthrough"]), 3),
        (classify(&["--unsure=-1:1"]), 3),
        (classify(&["--unsure-probability", "0.4:0.6"]), 3),
        (classify(&["--spam-probability", "0.5"]), 3),
        (classify(&["--spam-score", "0"]), 3),
    ];
    let mut eval = bin();
    eval.args(["eval", "-m"])
        .arg(&text)
        .arg("--spam")
        .arg(&spam_dir)
        .arg("--ham")
        .arg(&ham_dir);
    runs.push((eval, 1));
    let mut online = bin();
    online
        .args(["eval", "-m"])
        .arg(&text)
        .arg("--online")
        .arg(&index);
    runs.push((online, 1));
    let mut cut = bin();
    cut.args(["eval", "--spam-probability", "0.5", "-m"])
        .arg(&text)
        .arg(&corpus);
    runs.push((cut, 1));
    for (mut cmd, code) in runs {
        let err = stderr_with_code(&mut cmd, code);
        assert!(
            err.contains(&format!("t.model: {NOT_A_FILTER}")),
            "{cmd:?}: {err}"
        );
    }
    // A store of it made by an older release (the library still writes one) is refused
    // by classify (exit 3, never a verdict) and learn alike, with the same sentence.
    let old = dir.path().join("old.store");
    Store::create(&old, &Model::load(&text).unwrap()).unwrap();
    let err = stderr_with_code(bin().args(["classify", "-m"]).arg(&old).arg(&ham), 3);
    assert!(err.contains(&format!("old.store: {NOT_A_FILTER}")), "{err}");
    let err = stderr_with_code(bin().args(["learn", "--ham", "-m"]).arg(&old).arg(&ham), 3);
    assert!(err.contains(&format!("old.store: {NOT_A_FILTER}")), "{err}");
}

/// Messages of the shipped corpus the 30 + 30 filter was not trained on, 15 of each class,
/// copied into `dir/unseen/{spam,ham}`.
fn unseen(dir: &Path) -> (PathBuf, PathBuf) {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/spamassassin");
    let mut out = Vec::new();
    for class in ["spam", "ham"] {
        let mut files = walk(&shipped.join(class));
        files.sort();
        let to = dir.join("unseen").join(class);
        std::fs::create_dir_all(&to).unwrap();
        for (i, f) in files.iter().skip(30).take(15).enumerate() {
            std::fs::copy(f, to.join(format!("{i}.eml"))).unwrap();
        }
        out.push(to);
    }
    (out[0].clone(), out[1].clone())
}

/// Each message's (path, default label, score, P(spam)) from `classify --format jsonl`.
fn judged(model: &Path, folder: &Path) -> Vec<(PathBuf, String, f32, f32)> {
    let out = stdout_of(
        bin()
            .args(["classify", "--format", "jsonl", "-m"])
            .arg(model)
            .arg(folder),
    );
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                PathBuf::from(v["id"].as_str().unwrap()),
                v["label"].as_str().unwrap().to_string(),
                v["score"].as_f64().unwrap() as f32,
                v["probability"].as_f64().unwrap() as f32,
            )
        })
        .collect()
}

/// `eval --json` of `model` on the two folders, with `flags`.
fn eval_json(model: &Path, spam: &Path, ham: &Path, flags: &[&str]) -> serde_json::Value {
    let out = stdout_of(
        bin()
            .args(["eval", "--json"])
            .args(flags)
            .arg("-m")
            .arg(model)
            .arg("--spam")
            .arg(spam)
            .arg("--ham")
            .arg(ham),
    );
    serde_json::from_str(&out).unwrap()
}

#[test]
fn a_saved_filter_is_re_decided_at_another_probability_or_score() {
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = corpus_and_filter(dir.path());
    let (spam, ham) = unseen(dir.path());
    let (s, h) = (judged(&model, &spam), judged(&model, &ham));
    // The message the filter is least sure is ham of those it calls ham: a cut at half
    // its P(spam) calls it spam, where the recorded threshold (P > 0.9) does not.
    let (m, _, score, p) = s
        .iter()
        .chain(&h)
        .filter(|j| j.1 == "ham")
        .max_by(|a, b| a.3.total_cmp(&b.3))
        .cloned()
        .unwrap();
    assert!(p > 0.0 && p <= 0.9, "{p}");
    let cut = p / 2.0;
    let cut_arg = cut.to_string();
    // eval at the cut counts what `probability > cut` counts in classify's lines.
    let spam_called = s.iter().filter(|j| j.3 > cut).count() as u64;
    let ham_called = h.iter().filter(|j| j.3 > cut).count() as u64;
    let at_cut = eval_json(&model, &spam, &ham, &["--spam-probability", &cut_arg]);
    let own = eval_json(&model, &spam, &ham, &[]);
    assert_eq!(at_cut["false_negatives"], 15 - spam_called, "{at_cut}");
    assert_eq!(at_cut["false_positives"], ham_called, "{at_cut}");
    assert_eq!(
        at_cut["threshold_probability"].as_f64().unwrap() as f32,
        cut
    );
    assert_eq!(at_cut["auc"], own["auc"], "the scores are the same");
    assert_ne!(
        (&at_cut["false_negatives"], &at_cut["false_positives"]),
        (&own["false_negatives"], &own["false_positives"]),
        "the cut changed a verdict"
    );
    let called = 30
        - at_cut["false_negatives"].as_u64().unwrap()
        - at_cut["false_positives"].as_u64().unwrap();
    let accuracy = called as f64 / 30.0;
    assert!((at_cut["accuracy"].as_f64().unwrap() - accuracy).abs() < 1e-9);
    // classify: the exit code and --passthrough's header follow the cut, from the model
    // file and from its store alike (the store is read, never changed).
    let store = dir.path().join("spam.store");
    stdout_of(bin().arg("convert").arg(&model).arg(&store));
    for filter in [&model, &store] {
        let classify = |flags: &[&str]| {
            let mut c = bin();
            c.arg("classify").args(flags).arg("-m").arg(filter).arg(&m);
            c
        };
        classify(&[]).assert().code(1);
        classify(&["--spam-probability", &cut_arg]).assert().code(0);
        // Just above the message's P(spam): ham again.
        let above = (p + (1.0 - p) / 2.0).to_string();
        classify(&["--spam-probability", &above]).assert().code(1);
        // A cut in scores: just below its score is spam, at its score is not.
        let below = (score - 1e-3).to_string();
        classify(&["--spam-score", &below]).assert().code(0);
        classify(&["--spam-score", &score.to_string()])
            .assert()
            .code(1);
        let out = stdout_of(&mut classify(&[
            "--passthrough",
            "--spam-probability",
            &cut_arg,
        ]));
        assert!(out.contains("X-Rosenblatt: spam; score="), "{out}");
        let out = stdout_of(&mut classify(&["--passthrough"]));
        assert!(out.contains("X-Rosenblatt: ham; score="), "{out}");
    }
    // A filter without P(spam) takes a cut in scores only, and says so.
    let mut parts = Model::load(&model).unwrap().into_parts();
    parts.calibration = None;
    let bare = dir.path().join("bare.model");
    Model::new(parts).unwrap().save(&bare).unwrap();
    let mut c = bin();
    c.args(["classify", "--spam-probability", "0.5", "-m"])
        .arg(&bare)
        .arg(&m);
    let err = stderr_with_code(&mut c, 3);
    assert!(
        err.contains("bare.model: --spam-probability needs a filter that records P(spam)"),
        "{err}"
    );
    let mut c = bin();
    c.args(["eval", "--spam-probability", "0.5", "-m"])
        .arg(&bare)
        .arg("--spam")
        .arg(&spam)
        .arg("--ham")
        .arg(&ham);
    let err = stderr_with_code(&mut c, 1);
    assert!(err.contains("records P(spam)"), "{err}");
    let at = eval_json(&bare, &spam, &ham, &["--spam-score", &score.to_string()]);
    assert_eq!(at["threshold"].as_f64().unwrap() as f32, score);
}
