//! `classify` and `eval` over real processes on 127.0.0.1: each process scores its share
//! (file, line or message k to process k mod N) and process 0 prints exactly what one
//! process scoring everything prints — every classify line in input order, byte for
//! byte; eval's metrics, ROC AUC included — while the others print nothing on stdout.

use crate::cluster::{hostfile, key};
use crate::common::{bin, data, stdout_of};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpora")
        .join(rel)
}

/// One cluster at a time from this file: fewer processes competing for the cores, and
/// fewer free ports picked twice.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `rosenblatt ARGS` as `n` processes; their outputs in process order. A port of
/// the hostfile taken meanwhile by another program (it was free when picked) is no
/// failure of the code under test: the run is tried again on fresh ports.
fn run_cluster(dir: &Path, args: &[String], n: usize) -> Vec<Output> {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    for _ in 0..3 {
        let hosts = hostfile(dir, n);
        let children: Vec<Child> = (0..n)
            .map(|i| {
                Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
                    .args(args)
                    .args(["--processes", &n.to_string(), "--process", &i.to_string()])
                    .arg("--hostfile")
                    .arg(&hosts)
                    .arg("--cluster-key")
                    .arg(key(dir))
                    .args(["--connect-timeout", "10"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let taken = outs
            .iter()
            .any(|o| String::from_utf8_lossy(&o.stderr).contains("cannot listen on"));
        if !taken {
            return outs;
        }
    }
    panic!("three hostfiles in a row had a port taken by another program");
}

/// Runs `ARGS` in one process, then as 2 and 3: process 0's stdout must equal the single
/// process's byte for byte and the others' must be empty. Returns the single output.
fn same_over_processes(dir: &Path, args: &[String]) -> String {
    let single = stdout_of(bin().args(args));
    assert!(!single.is_empty());
    for n in [2, 3] {
        let outs = run_cluster(dir, args, n);
        for (i, o) in outs.iter().enumerate() {
            assert!(
                o.status.success(),
                "{n} processes, process {i}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            if i > 0 {
                assert!(o.stdout.is_empty(), "process {i} printed on stdout");
            }
        }
        assert!(
            String::from_utf8_lossy(&outs[0].stdout) == single,
            "{n} processes: process 0 printed something else than one process:\n{}",
            String::from_utf8_lossy(&outs[0].stdout)
        );
    }
    single
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// A spam filter trained on the first messages of the SpamAssassin corpus only, so that
/// its scores on the whole corpus are not all perfect.
fn small_filter(dir: &Path) -> PathBuf {
    let (spam, ham) = (dir.join("spam"), dir.join("ham"));
    for (from, to, n) in [
        (corpus("spamassassin/spam"), &spam, 25),
        (corpus("spamassassin/ham/easy_ham"), &ham, 50),
    ] {
        std::fs::create_dir_all(to).unwrap();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&from)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files.into_iter().take(n) {
            std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
        }
    }
    let model = dir.join("filter.model");
    crate::common::train_filter(&spam, &ham, &model, &[]);
    model
}

/// A model trained on the first 300 lines of the SMS collection.
fn small_sms_model(dir: &Path) -> PathBuf {
    let all = std::fs::read_to_string(corpus("sms/SMSSpamCollection.tsv")).unwrap();
    let head: Vec<&str> = all.lines().take(300).collect();
    let train = dir.join("head.tsv");
    std::fs::write(&train, head.join("\n") + "\n").unwrap();
    let model = dir.join("sms.model");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(&train)
        .assert()
        .success();
    model
}

#[test]
fn classify_mail_prints_every_line_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let model = small_filter(dir.path());
    let (spam, ham) = (corpus("spamassassin/spam"), corpus("spamassassin/ham"));
    let args = |extra: &[&str]| {
        let mut a = vec!["classify".into(), "-m".into(), s(&model), s(&spam), s(&ham)];
        a.extend(extra.iter().map(|x| x.to_string()));
        a
    };
    let tsv = same_over_processes(dir.path(), &args(&[]));
    assert_eq!(tsv.lines().count(), 3250);
    let jsonl = same_over_processes(dir.path(), &args(&["--format", "jsonl", "--unsure=-1:1"]));
    assert!(
        jsonl.contains("\"unsure\""),
        "the band catches some messages"
    );
}

#[test]
fn classify_lines_and_files_prints_every_line_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let model = small_sms_model(dir.path());
    let sms = corpus("sms/SMSSpamCollection.tsv");
    // A line file alone (ids are line numbers), then a folder of text files between two
    // line files (ids FILE:LINE), numbered across the inputs.
    let one = ["classify", "-m", &s(&model), &s(&sms)].map(String::from);
    let out = same_over_processes(dir.path(), &one);
    assert_eq!(out.lines().count(), 5574);
    let many = [
        "classify",
        "-m",
        &s(&model),
        &s(&data("tiny.tsv")),
        &s(&data("tiny")),
        &s(&sms),
        "--format",
        "jsonl",
    ]
    .map(String::from);
    same_over_processes(dir.path(), &many);
}

#[test]
fn eval_of_mail_equals_one_process_auc_included() {
    let dir = tempfile::tempdir().unwrap();
    let model = small_filter(dir.path());
    let (spam, ham) = (corpus("spamassassin/spam"), corpus("spamassassin/ham"));
    let args = [
        "eval",
        "-m",
        &s(&model),
        "--json",
        "--spam",
        &s(&spam),
        "--ham",
        &s(&ham),
    ]
    .map(String::from);
    let json = same_over_processes(dir.path(), &args);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let auc = v["auc"].as_f64().unwrap();
    assert!(auc > 0.5 && auc < 1.0, "a figure worth comparing: {json}");
    assert_eq!(v["documents"], 3250);
    // The text report too.
    let text: Vec<String> = args.into_iter().filter(|a| a != "--json").collect();
    same_over_processes(dir.path(), &text);
}

#[test]
fn eval_of_documents_equals_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let model = small_sms_model(dir.path());
    let sms = corpus("sms/SMSSpamCollection.tsv");
    let args = ["eval", "-m", &s(&model), "--json", &s(&sms)].map(String::from);
    let json = same_over_processes(dir.path(), &args);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["documents"], 5574);
    assert!(v["accuracy"].as_f64().unwrap() < 1.0, "{json}");
}

#[test]
fn a_bad_line_in_one_share_ends_every_process_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let model = small_sms_model(dir.path());
    let bad = dir.path().join("bad.tsv");
    // Line 5 is unit 4: process 1's of 3.
    std::fs::write(
        &bad,
        "ham\tok then\nspam\twin now\nham\tlunch\nham\tsee you\nno label here\n",
    )
    .unwrap();
    let args = ["eval", "-m", &s(&model), &s(&bad)].map(String::from);
    for (i, o) in run_cluster(dir.path(), &args, 3).iter().enumerate() {
        assert!(!o.status.success(), "process {i} must fail");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("process 1: ") && err.contains("bad.tsv:5: the document has no label"),
            "process {i}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_skipped_line_makes_the_process_whose_share_held_it_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    let model = small_sms_model(dir.path());
    let lines = dir.path().join("x.jsonl");
    // Line 2 is unit 1: process 1's of 2.
    std::fs::write(
        &lines,
        "{\"text\":\"win now\"}\nnot json\n{\"text\":\"lunch\"}\n",
    )
    .unwrap();
    let args = ["classify", "-m", &s(&model), &s(&lines)].map(String::from);
    let outs = run_cluster(dir.path(), &args, 2);
    let codes: Vec<Option<i32>> = outs.iter().map(|o| o.status.code()).collect();
    assert_eq!(codes, [Some(0), Some(4)], "{:?}", outs[1]);
    let printed = String::from_utf8_lossy(&outs[0].stdout);
    let ids: Vec<&str> = printed
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(ids, ["1", "3"]);
    assert!(String::from_utf8_lossy(&outs[1].stderr).contains("passed over"));
}

#[test]
fn what_cannot_be_shared_is_refused_before_connecting() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let refused = |args: &[&str]| {
        crate::common::stderr_of_failure(
            bin()
                .args(args)
                .args(["--processes", "2", "--process", "0", "--hostfile"])
                .arg(&hosts)
                .arg("--cluster-key")
                .arg(key(dir.path())),
        )
    };
    let e = refused(&["classify", "-m", "x.model", "-"]);
    assert!(e.contains("stdin"), "{e}");
    let e = refused(&["eval", "--online", "index"]);
    assert!(e.contains("--online") && e.contains("one process"), "{e}");
}

/// `eval --plot` on one process and on `n`: the same chart, drawn by process 0 alone.
fn same_chart(dir: &Path, args: &[String], n: usize) {
    let (one, many) = (dir.join("one.svg"), dir.join("many.svg"));
    let with = |svg: &Path| {
        let mut a = args.to_vec();
        a.extend(["--plot".to_string(), s(svg)]);
        a
    };
    bin().args(with(&one)).assert().success();
    for (i, o) in run_cluster(dir, &with(&many), n).iter().enumerate() {
        assert!(
            o.status.success(),
            "process {i}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert!(
        std::fs::read(&one).unwrap() == std::fs::read(&many).unwrap(),
        "{n} processes"
    );
}

#[test]
fn eval_of_a_multi_label_model_and_the_charts_equal_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("ml.jsonl");
    let mut text = String::new();
    for i in 0..12 {
        text.push_str(&format!(
            "{{\"labels\":[\"grain\",\"wheat\"],\"text\":\"wheat harvest grain {i}\"}}\n\
             {{\"labels\":[\"grain\"],\"text\":\"grain corn silo {i}\"}}\n\
             {{\"labels\":[\"oil\"],\"text\":\"crude oil barrel grain {i}\"}}\n"
        ));
    }
    std::fs::write(&jsonl, text).unwrap();
    let model = dir.path().join("ml.model");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(&jsonl)
        .assert()
        .success();
    let args = ["eval", "-m", &s(&model), "--json", &s(&jsonl)].map(String::from);
    let json = same_over_processes(dir.path(), &args);
    assert!(json.contains("micro_f1"), "{json}");
    same_chart(dir.path(), &args, 2);
    // A binary model's ROC curve.
    let sms = small_sms_model(dir.path());
    let roc = [
        "eval",
        "-m",
        &s(&sms),
        &s(&corpus("sms/SMSSpamCollection.tsv")),
    ]
    .map(String::from);
    same_chart(dir.path(), &roc, 3);
}
