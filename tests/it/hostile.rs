//! Hostile input and faults through the binary: closed pipes, label lines without a
//! label (in train, eval and vectorize), foreign SVMlight labels, a byte-order mark, a
//! stray latin-1 byte among UTF-8 lines, a
//! vocabulary pruned to nothing, a held-out part that leaves nothing to learn or score, and
//! a missing model named in the words of a missing input.

use crate::common::{bin, data, stderr_of_failure, stdout_of};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The binary as a plain process, for tests that need control of its pipes.
fn raw() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
}

/// A model trained on the tiny folder corpus.
fn tiny_model(dir: &Path) -> PathBuf {
    let model = dir.join("tiny.model");
    stdout_of(bin().args(["train", "-o"]).arg(&model).arg(data("tiny")));
    model
}

/// Runs `cmd` with a stdout pipe whose reader is closed before the child writes, and
/// asserts a quiet, successful end.
fn quiet_on_closed_pipe(cmd: &mut Command, what: &str) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(out.status.success(), "{what}: {:?} {err}", out.status);
}

#[test]
fn closed_stdout_ends_every_printing_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    quiet_on_closed_pipe(raw().args(["inspect", "-m"]).arg(&model), "inspect");
    let m2 = dir.path().join("m2.model");
    quiet_on_closed_pipe(
        raw()
            .args(["train", "--json", "-o"])
            .arg(&m2)
            .arg(data("tiny")),
        "train --json",
    );
    quiet_on_closed_pipe(
        raw().args(["train", "-o"]).arg(&m2).arg(data("tiny")),
        "train",
    );
    quiet_on_closed_pipe(
        raw().args(["eval", "-m"]).arg(&model).arg(data("tiny")),
        "eval",
    );
    let svm = dir.path().join("v.svm");
    quiet_on_closed_pipe(
        raw().args(["vectorize", "-o"]).arg(&svm).arg(data("tiny")),
        "vectorize",
    );
}

/// `train` on a file holding `text`, named `name`; the failure's stderr.
fn train_fails(name: &str, text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join(name);
    std::fs::write(&input, text).unwrap();
    stderr_of_failure(
        bin()
            .args(["train", "-o"])
            .arg(dir.path().join("m"))
            .arg(&input),
    )
}

const GOOD_TSV: &str = "spam\tfree cash\nham\tlunch at noon\nspam\twin a prize\nham\tsee you\n";

/// `GOOD_TSV` as JSONL lines.
fn good_jsonl() -> String {
    GOOD_TSV
        .lines()
        .map(|l| {
            let (c, t) = l.split_once('\t').unwrap();
            format!("{{\"label\": \"{c}\", \"text\": \"{t}\"}}\n")
        })
        .collect()
}

#[test]
fn a_labelled_line_without_a_label_is_an_error_naming_file_and_line() {
    for (name, bad) in [
        ("a.tsv", "no tab on this line\n"),
        ("b.tsv", "\tan empty label\n"),
        ("c.jsonl", "{\"text\": \"no label\"}\n"),
        ("d.jsonl", "{\"text\": \"x\", \"label\": null}\n"),
        ("e.jsonl", "{\"text\": \"x\", \"labels\": []}\n"),
    ] {
        let text = if name.ends_with(".tsv") {
            format!("{GOOD_TSV}{bad}")
        } else {
            format!("{}{bad}", good_jsonl())
        };
        let err = train_fails(name, &text);
        assert!(err.contains(&format!("{name}:5")), "{name}: {err}");
        assert!(err.contains("no label"), "{name}: {err}");
    }
}

#[test]
fn unlabelled_tsv_lines_are_still_documents_for_classify() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let tsv = dir.path().join("docs.tsv");
    std::fs::write(&tsv, "free cash prize\n\tan empty label\n").unwrap();
    let out = stdout_of(bin().args(["classify", "-m"]).arg(&model).arg(&tsv));
    assert_eq!(out.lines().count(), 2, "{out}");
}

#[test]
fn svmlight_labels_that_are_not_numbers_or_outside_plus_minus_one_are_refused() {
    for (label, why) in [
        ("abc", "not a number"),
        ("nan", "not a number"),
        ("1.5", "outside"),
    ] {
        let text = format!("+1 1:1\n-1 2:1\n{label} 3:1\n");
        let err = train_fails("a.svm", &text);
        assert!(err.contains("line 3") || err.contains("a.svm:3"), "{err}");
        assert!(err.contains(why), "{label}: {err}");
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("b.jsonl");
    std::fs::write(&input, format!("\u{feff}{}", good_jsonl())).unwrap();
    let out = stdout_of(
        bin()
            .args(["train", "-o"])
            .arg(dir.path().join("m"))
            .arg(&input),
    );
    assert!(out.contains("documents      4 (0 skipped)"), "{out}");
    assert!(out.contains("classes        ham, spam"), "{out}");
}

#[test]
fn a_vocabulary_pruned_to_nothing_is_an_error_and_writes_no_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let err = stderr_of_failure(
        bin()
            .arg("train")
            .arg(data("tiny"))
            .arg("-o")
            .arg(&model)
            .args(["--min-df", "1000"]),
    );
    assert!(
        err.contains("no word is left in the vocabulary")
            && err.contains("at least 1000 of the 12 documents"),
        "{err}"
    );
    assert!(!model.exists());
}

#[test]
fn a_holdout_that_leaves_no_classes_or_no_test_part_is_named_by_its_flag() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    let train = |input: &Path, h: &str| {
        stderr_of_failure(
            bin()
                .arg("train")
                .arg(input)
                .arg("-o")
                .arg(&m)
                .args(["--holdout", h]),
        )
    };
    let err = train(&data("tiny"), "0.99");
    assert!(
        err.contains(
            "the held-out fraction (--holdout) must leave at least two classes to train on: it \
             keeps 0 of 12 documents for training, with 0 class(es), got 0.99"
        ),
        "{err}"
    );
    let err = train(&data("tiny"), "0.01");
    assert!(
        err.contains("(--holdout) must hold out at least one of the 12 documents, got 0.01"),
        "{err}"
    );
    let svm = dir.path().join("a.svm");
    std::fs::write(&svm, "+1 1:1\n-1 2:1\n+1 3:1\n-1 4:1\n").unwrap();
    let err = train(&svm, "0.9");
    assert!(err.contains("it keeps 0 of 4 rows for training"), "{err}");
    assert!(!m.exists(), "no model is written");
}

#[test]
fn eval_and_vectorize_refuse_an_unlabelled_line_in_a_labelled_file() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let tsv = dir.path().join("x.tsv");
    std::fs::write(&tsv, format!("{GOOD_TSV}no tab here\n")).unwrap();
    let err = stderr_of_failure(bin().args(["eval", "-m"]).arg(&model).arg(&tsv));
    assert!(err.contains("x.tsv:5: the document has no label"), "{err}");
    let out = dir.path().join("x.svm");
    let err = stderr_of_failure(bin().args(["vectorize", "-o"]).arg(&out).arg(&tsv));
    assert!(err.contains("x.tsv:5: the document has no label"), "{err}");
    assert!(!out.exists(), "no vectors are written");
    // In a multi-label corpus an empty label set is a row with no label, written as 0.
    let ml = dir.path().join("m.jsonl");
    std::fs::write(
        &ml,
        "{\"labels\": [\"a\", \"b\"], \"text\": \"x\"}\n{\"labels\": [], \"text\": \"y\"}\n",
    )
    .unwrap();
    stdout_of(bin().args(["vectorize", "-o"]).arg(&out).arg(&ml));
    let rows = std::fs::read_to_string(&out).unwrap();
    assert_eq!(rows.lines().nth(1), Some("0 2:1"), "{rows}");
}

#[test]
fn a_stray_latin1_byte_changes_only_its_own_line() {
    // Twenty UTF-8 spam lines, one ham line holding a latin-1 é.
    let dir = tempfile::tempdir().unwrap();
    let mut tsv = "spam\tcafé crème offre spéciale\n".repeat(20).into_bytes();
    tsv.extend(b"ham\trendez-vous demain midi\nham\tune caf\xE9 lointaine\n");
    let input = dir.path().join("mixed.tsv");
    std::fs::write(&input, &tsv).unwrap();
    let corpus = rosenblatt::input::read(&input, None).unwrap();
    assert_eq!(corpus.docs[0].text, "café crème offre spéciale");
    assert_eq!(corpus.docs[21].text, "une café lointaine");
    // Training reads the file as classify's stream reads it: the same words either way.
    let model = dir.path().join("m.model");
    stdout_of(bin().args(["train", "-o"]).arg(&model).arg(&input));
    let words = stdout_of(bin().args(["inspect", "--top", "30", "-m"]).arg(&model));
    assert!(words.contains("crème") && !words.contains("crã"), "{words}");
}

#[test]
fn ids_with_tabs_or_line_ends_keep_classify_lines_whole() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    for name in ["a\tb", "c\nd", "e\\f"] {
        std::fs::write(docs.join(name), "free prize now").unwrap();
    }
    let out = stdout_of(bin().args(["classify", "-m"]).arg(&model).arg(&docs));
    let mut ids: Vec<&str> = out
        .lines()
        .map(|l| {
            let fields: Vec<&str> = l.split('\t').collect();
            assert_eq!(fields.len(), 3, "{l:?}");
            fields[0].rsplit('/').next().unwrap()
        })
        .collect();
    ids.sort();
    assert_eq!(ids, ["a\\tb", "c\\nd", "e\\\\f"]);
}

#[test]
fn learn_on_a_model_of_other_classes_names_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("three.jsonl");
    std::fs::write(
        &corpus,
        "{\"label\":\"a\",\"text\":\"x y\"}\n{\"label\":\"b\",\"text\":\"z w\"}\n\
         {\"label\":\"c\",\"text\":\"q r\"}\n",
    )
    .unwrap();
    let model = dir.path().join("three.model");
    stdout_of(bin().args(["train", "-o"]).arg(&model).arg(&corpus));
    let before = std::fs::read(&model).unwrap();
    let out = raw()
        .args(["learn", "--spam", "-m"])
        .arg(&model)
        .arg(&corpus)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("three.model: learn teaches a two-class filter")
            && err.contains("the classes a, b, c"),
        "{err}"
    );
    assert_eq!(std::fs::read(&model).unwrap(), before);
}

#[test]
fn reuters_sgml_read_wrongly_says_how_to_read_it() {
    let dir = tempfile::tempdir().unwrap();
    // One file whose ModApte documents are all training ones: no topic is in both parts.
    let sgm = dir.path().join("reut2-000.sgm");
    let block = |id: u32| {
        format!(
            "<REUTERS TOPICS=\"YES\" LEWISSPLIT=\"TRAIN\" CGISPLIT=\"TRAINING-SET\" \
             OLDID=\"{id}\" NEWID=\"{id}\">\n<TOPICS><D>grain</D></TOPICS>\n<TEXT>\n\
             <TITLE>WHEAT</TITLE>\n<BODY>wheat prices rose</BODY></TEXT>\n</REUTERS>\n"
        )
    };
    std::fs::write(
        &sgm,
        format!(
            "<!DOCTYPE lewis SYSTEM \"lewis.dtd\">\n{}{}",
            block(1),
            block(2)
        ),
    )
    .unwrap();
    let model = dir.path().join("r.model");
    let err = stderr_of_failure(bin().args(["train", "-o"]).arg(&model).arg(&sgm));
    assert!(err.contains("give --format reuters"), "{err}");
    let err = stderr_of_failure(
        bin()
            .args(["train", "--format", "reuters", "--split", "train", "-o"])
            .arg(&model)
            .arg(&sgm),
    );
    assert!(err.contains("give the whole SGML folder"), "{err}");
}

#[test]
fn a_missing_model_is_named_as_a_missing_input_is() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("gone.model");
    let input = dir.path().join("gone.tsv");
    let tsv = dir.path().join("c.tsv");
    std::fs::write(&tsv, "a\tone two\nb\tthree four\n").unwrap();
    let trained = dir.path().join("m");
    crate::common::stdout_of(
        crate::common::bin()
            .args(["train", "-o"])
            .arg(&trained)
            .arg(&tsv),
    );
    let cases = [
        (
            vec![
                "classify",
                "-m",
                model.to_str().unwrap(),
                tsv.to_str().unwrap(),
            ],
            &model,
        ),
        (vec!["inspect", "-m", model.to_str().unwrap()], &model),
        (
            vec![
                "classify",
                "-m",
                trained.to_str().unwrap(),
                input.to_str().unwrap(),
            ],
            &input,
        ),
    ];
    for (args, gone) in cases {
        let err = stderr_of_failure(bin().args(&args));
        let want = format!("{}: no such file or folder", gone.display());
        assert!(err.contains(&want), "{args:?}: {err}");
        assert!(!err.contains("os error"), "{err}");
    }
}
