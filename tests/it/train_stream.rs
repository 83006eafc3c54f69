//! Training on documents read in batches (their text dropped once tokenized) makes the
//! model that training on the same documents held whole makes: single-label and
//! multi-label corpora, through the library's job and through `train`; and so does
//! training on rows kept in a row cache file (`train --cache`), which a later run reuses
//! until its inputs or options change.

use crate::common::{bin, stderr_of_failure, stdout_of};
use rosenblatt::input::Document;
use rosenblatt::model::Model;
use rosenblatt::training::{Stage, TextRows, TrainConfig, TrainingJob};
use std::path::Path;

/// Documents of three topics; with `multi`, every fifth also carries a second topic and
/// every seventh none.
fn corpus(multi: bool) -> Vec<Document> {
    let topics = ["grain", "oil", "ship"];
    (0..240)
        .map(|i| {
            let t = i % 3;
            let text = format!(
                "{} {} report w{} w{} {}",
                topics[t],
                ["harvest wheat", "crude barrel", "port vessel"][t],
                i % 17,
                i % 29,
                if i % 4 == 0 { "market" } else { "" }
            );
            let mut d = Document::new(format!("d{i}"), text, Some(topics[t]));
            if multi && i % 5 == 0 {
                d.labels.push(topics[(t + 1) % 3].to_string());
            }
            if multi && i % 7 == 0 {
                d.labels.clear();
            }
            d
        })
        .collect()
}

/// The single-label corpus as TSV lines.
fn tsv_lines() -> String {
    corpus(false)
        .iter()
        .map(|d| format!("{}\t{}\n", d.labels[0], d.text))
        .collect()
}

/// Asserts two models decide alike because they are alike: the same vocabulary, classes,
/// geometry, predictor, threshold and calibration.
pub(crate) fn assert_same_model(a: &Model, b: &Model) {
    assert_eq!(a.vocab().len(), b.vocab().len());
    for id in 0..a.vocab().len() as u32 {
        assert_eq!(a.vocab().word(id), b.vocab().word(id));
    }
    assert_eq!(a.classes(), b.classes());
    assert_eq!(a.geometry(), b.geometry());
    assert_eq!(a.predictor(), b.predictor());
    assert_eq!(a.threshold(), b.threshold());
    assert_eq!(a.calibration(), b.calibration());
}

#[test]
fn rows_read_in_batches_train_the_model_of_the_documents_held_whole() {
    let quiet = |_: Stage<'_>| {};
    for multi in [false, true] {
        let docs = corpus(multi);
        for learner in ["perceptron", "averaged-perceptron", "logistic"] {
            let cfg = TrainConfig::default().learner(learner).unwrap();
            let job = TrainingJob::new(cfg.clone());
            let whole = job.run_documents(docs.clone(), &quiet).unwrap().model;
            let mut rows = TextRows::new(&cfg.analyzer);
            for batch in docs.chunks(31) {
                rows.push(batch).unwrap();
            }
            assert_eq!(rows.documents(), docs.len());
            let streamed = job.run_text(rows, &quiet).unwrap().model;
            assert_same_model(&whole, &streamed);
        }
    }
}

#[test]
fn a_job_with_a_held_out_part_or_folds_needs_the_documents() {
    let quiet = |_: Stage<'_>| {};
    let mut job = TrainingJob::new(TrainConfig::default());
    job.cv = Some((3, 1));
    let mut rows = TextRows::new(&job.config.analyzer);
    rows.push(&corpus(false)).unwrap();
    let err = job.run_text(rows, &quiet).unwrap_err().to_string();
    assert!(err.contains("run_documents"), "{err}");
    // Rows tokenized by another analyzer than the job's would make a model that reads
    // new documents otherwise than its rows were read.
    let job = TrainingJob::new(TrainConfig::default());
    let other = rosenblatt::text::Analyzer::standard(rosenblatt::text::Source::Text, false);
    assert_ne!(other, job.config.analyzer);
    let mut rows = TextRows::new(&other);
    rows.push(&corpus(false)).unwrap();
    let err = job.run_text(rows, &quiet).unwrap_err().to_string();
    assert!(err.contains("another analyzer"), "{err}");
}

#[test]
fn train_reads_in_batches_and_saves_the_model_train_with_folds_saves() {
    // `--cv` keeps the documents whole; its saved model is the fit of all of them, the
    // model the default (streamed) run saves.
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("c.tsv");
    std::fs::write(&tsv, tsv_lines()).unwrap();
    let (streamed, whole) = (dir.path().join("s"), dir.path().join("w"));
    stdout_of(bin().args(["train", "-o"]).arg(&streamed).arg(&tsv));
    stdout_of(
        bin()
            .args(["train", "--cv", "3", "-o"])
            .arg(&whole)
            .arg(&tsv),
    );
    assert_same_model(
        &Model::load(&streamed).unwrap(),
        &Model::load(&whole).unwrap(),
    );
}

#[cfg(unix)]
#[test]
fn a_named_pipe_is_read_once_as_its_writer_writes_it() {
    // The reader starts first and the writer comes after, writes and closes: the usual
    // order, in which a second open of the pipe would wait for a writer for ever.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("c.tsv");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let model = dir.path().join("m");
    let mut train = std::process::Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
        .args(["train", "-o"])
        .arg(&model)
        .arg(&fifo)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::fs::write(&fifo, tsv_lines()).unwrap();
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = train.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = train.kill();
            panic!("train still waits on the pipe after its writer closed it");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        Model::load(&model).unwrap().classes(),
        ["grain", "oil", "ship"]
    );
}

#[test]
fn rows_kept_in_a_cache_file_train_the_model_of_rows_in_memory() {
    let quiet = |_: Stage<'_>| {};
    let dir = tempfile::tempdir().unwrap();
    for multi in [false, true] {
        let docs = corpus(multi);
        let cfg = TrainConfig::default();
        let job = TrainingJob::new(cfg.clone());
        let mut rows = TextRows::new(&cfg.analyzer);
        rows.push(&docs).unwrap();
        let in_memory = job.run_text(rows, &quiet).unwrap().model;
        let path = dir.path().join(format!("rows-{multi}.cache"));
        let mut rows = TextRows::cached_at(&cfg.analyzer, &path, &[], "test").unwrap();
        for batch in docs.chunks(50) {
            rows.push(batch).unwrap();
        }
        let cached = job.run_text(rows, &quiet).unwrap().model;
        assert_same_model(&in_memory, &cached);
        // Read back from the file: nothing to tokenize, the same model.
        let rows = TextRows::open_cache(&path, &cfg.analyzer, &cfg.vocab, &[], "test").unwrap();
        assert_eq!(rows.documents(), docs.len());
        assert_same_model(&in_memory, &job.run_text(rows, &quiet).unwrap().model);
        // Another analyzer's run may not use it.
        let other = rosenblatt::text::Analyzer::standard(rosenblatt::text::Source::Text, false);
        let err = TextRows::open_cache(&path, &other, &cfg.vocab, &[], "test").unwrap_err();
        assert!(err.to_string().contains("stale"), "{err}");
    }
}

/// `train --cache CACHE -o MODEL TSV` with `flags` before `--cache`.
fn train_cached(flags: &[&str], cache: &Path, model: &Path, tsv: &Path) -> assert_cmd::Command {
    let mut cmd = bin();
    cmd.arg("train")
        .args(flags)
        .arg("--cache")
        .arg(cache)
        .arg("-o")
        .arg(model)
        .arg(tsv);
    cmd
}

/// Text of two classes keeps words of one document below 20,000 documents: a cache made
/// under that rule serves the rerun with the same options (it records the options given,
/// not the rule the labels added), and the models agree.
#[test]
fn a_two_class_cache_serves_its_rerun() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("two.tsv");
    let lines: String = (0..1200)
        .map(|i| format!("c{}\tcue{} common only{i}\n", i % 2, i % 2))
        .collect();
    std::fs::write(&tsv, lines).unwrap();
    let cache = dir.path().join("rows.cache");
    let [plain, first, again] = ["p", "f", "a"].map(|m| dir.path().join(m));
    stdout_of(bin().args(["train", "-o"]).arg(&plain).arg(&tsv));
    assert!(
        train_cached(&[], &cache, &first, &tsv)
            .output()
            .unwrap()
            .status
            .success()
    );
    let out = train_cached(&[], &cache, &again, &tsv).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("1200 documents"),
        "{err}"
    );
    let plain = Model::load(&plain).unwrap();
    assert_eq!(plain.vocab().len(), 1200 + 3);
    assert_same_model(&plain, &Model::load(&first).unwrap());
    assert_same_model(&plain, &Model::load(&again).unwrap());
}

#[test]
fn train_keeps_its_rows_in_a_cache_and_trains_from_it_until_the_input_changes() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("c.tsv");
    let lines = tsv_lines();
    std::fs::write(&tsv, &lines).unwrap();
    let cache = dir.path().join("rows.cache");
    let [plain, first, again] = ["p", "f", "a"].map(|m| dir.path().join(m));
    stdout_of(bin().args(["train", "-o"]).arg(&plain).arg(&tsv));
    let out = train_cached(&[], &cache, &first, &tsv).output().unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("from the cache"));
    assert!(cache.is_file());
    let out = train_cached(&[], &cache, &again, &tsv).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rows.cache") && err.contains("240 documents"),
        "{err}"
    );
    let plain = Model::load(&plain).unwrap();
    assert_same_model(&plain, &Model::load(&first).unwrap());
    assert_same_model(&plain, &Model::load(&again).unwrap());
    // Other pruning rules, or an input that changed, make the cache stale.
    let stale = stderr_of_failure(&mut train_cached(&["--min-df", "3"], &cache, &again, &tsv));
    assert!(
        stale.contains("rows.cache") && stale.contains("stale"),
        "{stale}"
    );
    std::fs::write(&tsv, format!("{lines}grain\tone more wheat report\n")).unwrap();
    let stale = stderr_of_failure(&mut train_cached(&[], &cache, &again, &tsv));
    assert!(
        stale.contains("stale") && stale.contains("c.tsv"),
        "{stale}"
    );
    // A damaged cache is refused by name; a stale one as stale before its rows are
    // checked, damaged or not. --cache does not run with folds.
    let damage = |cache: &std::path::Path| {
        let mut bytes = std::fs::read(cache).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x40;
        std::fs::write(cache, bytes).unwrap();
    };
    damage(&cache);
    let stale = stderr_of_failure(&mut train_cached(&[], &cache, &again, &tsv));
    assert!(
        stale.contains("stale") && !stale.contains("corrupt"),
        "{stale}"
    );
    std::fs::remove_file(&cache).unwrap();
    train_cached(&[], &cache, &first, &tsv).assert().success();
    damage(&cache);
    let bad = stderr_of_failure(&mut train_cached(&[], &cache, &again, &tsv));
    assert!(
        bad.contains("rows.cache") && bad.contains("corrupt"),
        "{bad}"
    );
    let refused = stderr_of_failure(&mut train_cached(&["--cv", "3"], &cache, &again, &tsv));
    assert!(refused.contains("--cv"), "{refused}");
}
