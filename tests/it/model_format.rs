//! The model file format: a committed golden model in the current format loads and
//! scores as recorded, and an older-format file is refused with a sentence naming it.
//!
//! The fixtures in `tests/data`:
//! - `format1.model`: written by the last build of format 1 with
//!   `rosenblatt train -o tests/data/format1.model tests/data/tiny`. Never regenerate it.
//! - `format2.model`: the golden file of format 2 (before the geometry was saved). Never
//!   regenerate it.
//! - `format3.model`: the golden file of format 3 (before the tuning table was saved).
//!   Never regenerate it.
//! - `format4.model`: the golden file of format 4 (before the online update rule was
//!   saved); the older-format fixture. Never regenerate it.
//! - `format5.model`: the golden file of format 5 (before the decision threshold was
//!   saved); still read, as format 9 with threshold 0, no calibrations and binary rows. Never
//!   regenerate it.
//! - `format6.model`: the golden file of format 6 (before the calibration was saved);
//!   still read, as format 9 without calibrations and with binary rows. Never regenerate it.
//! - `format7.model`: the golden file of format 7 (before the term counts were saved);
//!   still read, as format 9 with binary rows and no per-class calibration. Never
//!   regenerate it.
//! - `format8.model`: the golden file of format 8 (before the per-class calibration of
//!   one-vs-rest models was saved); still read, as format 9 without one. Never regenerate
//!   it.
//! - `format9.model`: the golden file of format 9 (before the arrays were stored as bytes,
//!   the vocabulary as its table and the checksum as XXH3); still read, as the same model.
//!   Never regenerate it.
//! - `format10.model`: the golden file of format 10 (before each array was padded to 64
//!   bytes into the file, to be read in place); still read, as the same model, its arrays
//!   read in place where they happen to be aligned. Never regenerate it.
//! - `format11.model`: the golden file of the current format, written with
//!   `cargo run --release -- train --learner perceptron --weighting binary --normalize none
//!   -o tests/data/format11.model tests/data/tiny`
//!   (run from the repository root, so that the recorded input is `tests/data/tiny`; any
//!   build profile writes the same model, only the recorded timings differ).
//!   When the format changes on purpose: bump `FORMAT_VERSION`; this file becomes the
//!   older-format fixture (point the refused-file test at it, with its version in the
//!   sentence); write the new golden file with the same command as `formatN.model` and
//!   point the golden tests at it.
//!   The expected scores below must not change: they are the model's, not the format's.

use crate::common::{bin, data, stdout_of};
use rosenblatt::input::Document;
use rosenblatt::model::{FORMAT_VERSION, Model};
use rosenblatt::text::{Analyzer, Source, Step};
use rosenblatt::training;
use rosenblatt::training::TrainConfig;
use std::path::Path;

/// The tiny corpus's documents with the label and score the format-1 build gave each of
/// them (`rosenblatt classify -m tests/data/format1.model tests/data/tiny/*/*`).
/// Scores are integers: the perceptron learns ±1 steps (η = 1), so a score is the sum of
/// the weights of the document's words plus the bias (0), e.g. s1.txt "WIN a FREE prize
/// now, click here" = a (+1) + free (+2) + now (+1) = 4, and h1.txt = the (−2).
const RECORDED: [(&str, &str, f32); 12] = [
    ("ham/h1.txt", "ham", -2.0),
    ("ham/h2.txt", "ham", -1.0),
    ("ham/h3.txt", "ham", -1.0),
    ("ham/h4.txt", "ham", -7.0),
    ("ham/h5.txt", "ham", -2.0),
    ("ham/h6.txt", "ham", -8.0),
    ("spam/s1.txt", "spam", 4.0),
    ("spam/s2.txt", "spam", 7.0),
    ("spam/s3.txt", "spam", 3.0),
    ("spam/s4.txt", "spam", 11.0),
    ("spam/s5.txt", "spam", 8.0),
    ("spam/s6.txt", "spam", 2.0),
];

/// The committed golden model of the current format.
pub(crate) fn golden() -> Model {
    Model::load(data("format11.model")).unwrap()
}

/// Score of `text` (a plain-text document) under `model`.
fn score(model: &Model, text: &str) -> f32 {
    let docs = [Document::new("q", text, None)];
    let x = training::vectorize_for(model, &docs).matrix;
    model.decide_rows(&x)[0].score
}

#[test]
fn the_golden_model_loads_and_scores_as_the_format_1_build_did() {
    let m = golden();
    assert_eq!(FORMAT_VERSION, 11);
    // A text model trained in batch decides at score 0, and its scores have a probability
    // fitted on out-of-fold scores.
    assert_eq!(m.threshold(), 0.0);
    let c = m
        .calibration()
        .expect("a two-class linear model is calibrated");
    assert!(c.a > 0.0 && c.scores == 12, "{c:?}");
    // A perceptron's filter goes on learning by the perceptron's rule.
    assert_eq!(
        m.online().as_ref().map(|o| o.rule),
        Some(rosenblatt::learn::UpdateRule::Perceptron)
    );
    assert_eq!(m.classes(), ["ham", "spam"]);
    assert_eq!(m.analyzer(), &Analyzer::default());
    assert_eq!(m.analyzer().source(), &Source::Text);
    assert_eq!(m.analyzer().steps(), [Step::Words, Step::Lowercase]);
    assert_eq!(m.vocab().len(), 60);
    assert_eq!((m.meta().documents, m.meta().nnz), (12, 89));
    assert_eq!(m.meta().inputs, ["tests/data/tiny"]);
    // Scores of new text, by hand from the weights (free +2, the −2, for −1, bias 0):
    // "Free prize meeting" = 2; "the agenda for the office meeting" = −2 − 1 = −3.
    assert_eq!(score(&m, "Free prize meeting"), 2.0);
    assert_eq!(score(&m, "the agenda for the office meeting"), -3.0);
    assert_eq!(score(&m, "WIN a FREE prize NOW"), 4.0);
    // The CLI, file by file, gives the format-1 build's verdicts and scores.
    let files: Vec<_> = RECORDED
        .iter()
        .map(|(f, ..)| data("tiny").join(f))
        .collect();
    let out = stdout_of(
        bin()
            .args(["classify", "-m"])
            .arg(data("format11.model"))
            .args(&files),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), RECORDED.len());
    for (line, (file, label, s)) in lines.iter().zip(RECORDED) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert!(cols[0].ends_with(file), "{line}");
        assert_eq!(
            (cols[1], cols[2].parse::<f32>().unwrap()),
            (label, s),
            "{file}"
        );
    }
}

#[test]
fn training_today_gives_the_golden_model() {
    let g = golden();
    let corpus = rosenblatt::input::read(&data("tiny"), None).unwrap();
    let cfg = TrainConfig {
        analyzer: Analyzer::default(),
        vocab: Default::default(),
        learner: rosenblatt::learn::Check::check(rosenblatt::learn::AnyLearner::Perceptron(
            Default::default(),
        ))
        .unwrap(),
        positive: None,
        options: String::new(),
        geometry: Default::default(),
        term_counts: Default::default(),
        workers: None,
        threshold: None,
        calibrate: false,
    };
    let t = training::train(&corpus.docs, &cfg, vec![]).unwrap();
    assert_eq!(t.model.analyzer(), g.analyzer());
    assert_eq!(t.model.classes(), g.classes());
    assert_eq!(t.model.predictor(), g.predictor());
    assert_eq!(t.model.calibration(), g.calibration());
    assert_eq!(words(&t.model), words(&g));
}

#[test]
fn an_older_format_model_is_refused_with_a_sentence_naming_it() {
    let path = data("format4.model");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..8], b"RSNBLATT");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 4);
    let sentence = "written by an older rosenblatt (model format 4); this build reads \
                    format 11: train the model again";
    let err = Model::load(&path).unwrap_err().to_string();
    assert_eq!(err, format!("{}: {sentence}", path.display()));
    // `learn` writes a lock file beside the model: give it a copy.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("old.model");
    std::fs::copy(&path, &copy).unwrap();
    let doc = data("tiny/spam/s1.txt");
    let runs: [(&Path, Vec<&std::ffi::OsStr>); 3] = [
        (
            &path,
            vec![
                "classify".as_ref(),
                "-m".as_ref(),
                path.as_os_str(),
                doc.as_os_str(),
            ],
        ),
        (
            &path,
            vec!["inspect".as_ref(), "--model".as_ref(), path.as_os_str()],
        ),
        (
            &copy,
            vec![
                "learn".as_ref(),
                "--spam".as_ref(),
                "-m".as_ref(),
                copy.as_os_str(),
                doc.as_os_str(),
            ],
        ),
    ];
    for (model, args) in runs {
        let out = bin()
            .args(&args)
            .assert()
            .failure()
            .get_output()
            .stderr
            .clone();
        let stderr = String::from_utf8(out).unwrap();
        assert!(
            stderr.contains(&format!("{}: {sentence}", model.display())),
            "{args:?}: {stderr}"
        );
    }
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        bytes,
        "a refused model is left as it was"
    );
}

#[test]
fn a_model_of_many_short_words_loads_again() {
    // In format 9 each word is written in about 12 bytes but claims its 24-byte String
    // beside its weight and idf when decoded: a payload under 16 MiB that claims more
    // than 16 MiB.
    let words = |from: usize| -> String {
        (from..from + 350_000)
            .map(|i| format!("w{i:x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let docs = [
        Document::new("a", words(0), Some("a")),
        Document::new("b", words(350_000), Some("b")),
    ];
    let cfg = TrainConfig::default();
    let trained = training::train(&docs, &cfg, vec![]).unwrap();
    assert_eq!(trained.model.vocab().len(), 700_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.model");
    trained.model.save(&path).unwrap();
    let loaded = Model::load(&path).unwrap();
    assert_eq!(loaded.vocab().len(), 700_000);
    assert_eq!(loaded.predictor(), trained.model.predictor());
    // In format 9 (the words as a list, the arrays as sequences) the payload is under
    // 16 MiB; format 10 stores the words' table and claims what it is written in.
    let parts = trained.model.into_parts();
    let payload9 = bincode::serde::encode_to_vec(&parts, bincode::config::standard()).unwrap();
    assert!(
        (1 << 20..16 << 20).contains(&payload9.len()),
        "{} bytes",
        payload9.len()
    );
    let mut file9 = std::fs::read(&path).unwrap()[..12].to_vec();
    file9[8..12].copy_from_slice(&9u32.to_le_bytes());
    file9.extend_from_slice(&(payload9.len() as u64).to_le_bytes());
    file9.extend_from_slice(&rosenblatt::fnv::fnv1a(&payload9).to_le_bytes());
    file9.extend_from_slice(&payload9);
    let old = Model::from_bytes(&file9, Path::new("format9.model")).unwrap();
    assert_eq!(old.vocab().len(), 700_000);
    assert_eq!(old.predictor(), loaded.predictor());
}

/// Checks that `old`, read from an older format, decides as the golden model `new` does
/// (threshold, weights, update rule, a score by hand) and is saved again in the current
/// format; its bytes saved again.
pub(crate) fn decides_as(old: &Model, new: &Model) -> Vec<u8> {
    assert_eq!(old.threshold(), new.threshold());
    assert_eq!(old.predictor(), new.predictor());
    assert_eq!(old.online(), new.online());
    assert_eq!(score(old, "WIN a FREE prize NOW"), 4.0);
    let bytes = old.to_bytes().unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 11);
    bytes
}

/// Every word of `m` with its document frequency, in id order.
pub(crate) fn words(m: &Model) -> Vec<(String, u32)> {
    (0..m.vocab().len() as u32)
        .map(|j| (m.vocab().word(j).to_string(), m.vocab().df(j)))
        .collect()
}

#[test]
fn a_format_7_model_reads_as_format_9_with_binary_rows() {
    // The same training command wrote both golden files: format 7 lacks the term counts
    // and the per-class calibration, so it reads as the format-9 golden model does, its
    // rows binary.
    let old = Model::load(data("format7.model")).unwrap();
    let new = golden();
    assert_eq!(old.term_counts(), rosenblatt::features::TermCounts::Binary);
    assert_eq!(old.class_calibration(), None);
    assert_eq!(old.calibration(), new.calibration());
    decides_as(&old, &new);
}

#[test]
fn a_format_6_model_reads_as_format_9_without_a_calibration() {
    // The same training command wrote both golden files: format 6 lacks the calibration,
    // the term counts and the per-class calibration, so it reads as the format-9 golden
    // model does, without them.
    let old = Model::load(data("format6.model")).unwrap();
    let new = golden();
    assert_eq!(old.calibration(), None);
    assert_eq!(
        old.probability(4.0),
        None,
        "a perceptron's score is no probability"
    );
    // Saved again it is format 9, still without a calibration.
    let bytes = decides_as(&old, &new);
    let again = Model::from_bytes(&bytes, Path::new("again.model")).unwrap();
    assert_eq!(again.calibration(), None);
}

#[test]
fn a_format_8_model_reads_as_format_9_without_a_class_calibration() {
    // The same training command wrote both golden files: format 8 lacks only the
    // per-class calibration (which a two-class model never has), so it reads as the
    // format-9 golden model, its calibration and all.
    let old = Model::load(data("format8.model")).unwrap();
    let new = golden();
    assert_eq!(old.class_calibration(), None);
    assert_eq!(old.term_counts(), new.term_counts());
    assert_eq!(old.calibration(), new.calibration());
    decides_as(&old, &new);
}

#[test]
fn a_format_5_model_reads_as_format_9_with_threshold_zero() {
    // The same training command wrote both golden files: format 5 lacks the threshold
    // and the calibration, so it reads as the format-6 golden model does.
    let old = Model::load(data("format5.model")).unwrap();
    let new = Model::load(data("format6.model")).unwrap();
    assert_eq!(old.threshold(), 0.0);
    assert_eq!(old.calibration(), None);
    assert_eq!(old.predictor(), new.predictor());
    assert_eq!(old.online(), new.online());
    assert_eq!(old.classes(), new.classes());
    assert_eq!(score(&old, "WIN a FREE prize NOW"), 4.0);
    // A damaged format-5 file is still refused: one payload byte flipped.
    let mut bytes = std::fs::read(data("format5.model")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    let err = Model::from_bytes(&bytes, std::path::Path::new("f5.model"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("checksum mismatch"), "{err}");
}

/// Runs `rosenblatt ARGS…` and returns its exit code, stderr and peak resident memory in
/// KiB. Under `/usr/bin/time` where it is installed: a process this test process starts
/// directly (by `posix_spawn`, which shares this process's memory until `exec`) has this
/// process's own peak folded into its `ru_maxrss` at `exec`, so under tests running beside
/// this one it can read hundreds of MiB it never used; `time` starts it from a small
/// process of its own. Elsewhere, the child's `ru_maxrss` as `wait4` reports it.
#[cfg(unix)]
fn run_with_peak_rss(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, u64) {
    let time = std::path::Path::new("/usr/bin/time");
    if !time.exists() {
        return run_with_own_rusage(args);
    }
    let out = std::process::Command::new(time)
        .args(["-f", "peak-rss-kib %M"])
        .arg(assert_cmd::cargo::cargo_bin("rosenblatt"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let (err, last) = err
        .trim_end()
        .rsplit_once('\n')
        .unwrap_or(("", err.trim_end()));
    let kib = last
        .strip_prefix("peak-rss-kib ")
        .expect("time's line")
        .parse()
        .unwrap();
    (out.status.code(), err.to_string(), kib)
}

/// [`run_with_peak_rss`] without `/usr/bin/time`: the child's `ru_maxrss` from `wait4`.
#[cfg(unix)]
#[allow(clippy::zombie_processes)] // reaped by wait4, which reports its peak memory
fn run_with_own_rusage(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, u64) {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is this process's unwaited child; both pointers are to live locals.
    let waited = loop {
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r != -1 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break r;
        }
    };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = std::process::ExitStatus::from_raw(status).code();
    // Linux and the BSDs give ru_maxrss in KiB (macOS in bytes: only ever larger).
    (code, err, u64::try_from(usage.ru_maxrss).unwrap())
}

#[cfg(unix)]
#[test]
fn a_corrupt_model_too_large_to_hold_is_refused_after_streaming_its_checksum() {
    // A real model's header whose payload length is rewritten to match a sparse 320 MiB
    // file: its size agrees with its header, so only the checksum can refuse it. The
    // checksum is streamed through a small buffer before the payload is decoded, so the
    // peak stays far below the payload's size (a file of gigabytes is refused the same
    // way, in the same memory, only later).
    // Formats 10 and 11 alike: the checksum is streamed before the file is mapped.
    for golden in ["format9.model", "format10.model", "format11.model"] {
        refused_in_a_buffer(golden);
    }
}

/// Refuses the golden file `golden` with a 320 MiB payload stated in its header.
#[cfg(unix)]
fn refused_in_a_buffer(golden: &str) {
    const SIZE: u64 = 320 << 20;
    const HEADER: u64 = 28;
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.model");
    let mut bytes = std::fs::read(data(golden)).unwrap();
    bytes[12..20].copy_from_slice(&(SIZE - HEADER).to_le_bytes());
    std::fs::write(&big, &bytes).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(SIZE)
        .unwrap();
    let t = std::time::Instant::now();
    let (code, err, kib) = run_with_peak_rss(&["inspect".as_ref(), "-m".as_ref(), big.as_ref()]);
    let took = t.elapsed();
    eprintln!("refused in {took:?} with a peak RSS of {kib} KiB");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "{}: corrupted model file (checksum mismatch)",
            big.display()
        )),
        "{err}"
    );
    assert!(kib < 200 * 1024, "peak RSS {kib} KiB");
}

#[cfg(unix)]
#[test]
fn a_model_over_64_mib_decodes_as_it_is_read_without_holding_its_file() {
    // A format-10 payload over 64 MiB is checksummed through a buffer, then decoded from
    // a mapping of the file: the same model as one decoded from memory, refused for its
    // checksum wherever a byte is damaged. The same model in format 9 decodes as it is
    // read: loaded in about the model's memory, where reading the file first held its
    // bytes beside the model (twice the file). Its training file, whose feature ids run
    // past the default limit, classifies without `--max-feature-id` again: the model's
    // width raises it.
    let dir = tempfile::tempdir().unwrap();
    let svm = dir.path().join("wide.svm");
    std::fs::write(&svm, "+1 1:1 18000000:1\n-1 2:1\n+1 3:1\n-1 4:1 5:1\n").unwrap();
    let m = dir.path().join("wide.model");
    bin()
        .arg("train")
        .arg(&svm)
        .args(["--max-feature-id", "18000000", "-o"])
        .arg(&m)
        .assert()
        .success();
    let bytes = std::fs::read(&m).unwrap();
    assert!(bytes.len() > (64 << 20) + 28, "{} bytes", bytes.len());
    let loaded = Model::load(&m).unwrap();
    let whole = Model::from_bytes(&bytes, &m).unwrap();
    assert!(loaded.calibration().is_none());
    assert_eq!(loaded.to_bytes().unwrap(), whole.to_bytes().unwrap());
    // The model in format 9 (its parts encoded with the arrays as sequences and the
    // vocabulary as its words, FNV-1a over them) reads as it is read, the same model.
    let parts = Model::from_bytes(&bytes, &m).unwrap().into_parts();
    let payload9 = bincode::serde::encode_to_vec(&parts, bincode::config::standard()).unwrap();
    let mut file9 = bytes[..28].to_vec();
    file9[8..12].copy_from_slice(&9u32.to_le_bytes());
    file9[12..20].copy_from_slice(&(payload9.len() as u64).to_le_bytes());
    file9[20..28].copy_from_slice(&rosenblatt::fnv::fnv1a(&payload9).to_le_bytes());
    file9.extend_from_slice(&payload9);
    assert!(file9.len() > (64 << 20) + 28, "{} bytes", file9.len());
    let m9 = dir.path().join("format9.model");
    std::fs::write(&m9, &file9).unwrap();
    let streamed = Model::load(&m9).unwrap();
    assert_eq!(streamed.to_bytes().unwrap(), whole.to_bytes().unwrap());
    // The same payload without its last three fields (no calibration, binary rows, no
    // per-class calibration: a zero byte each) is a file of format 6, upgraded as it is
    // read.
    let payload = &payload9[..payload9.len() - 3];
    let mut old = bytes[..28].to_vec();
    old[8..12].copy_from_slice(&6u32.to_le_bytes());
    old[12..20].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    old[20..28].copy_from_slice(&rosenblatt::fnv::fnv1a(payload).to_le_bytes());
    old.extend_from_slice(payload);
    let format6 = dir.path().join("format6.model");
    std::fs::write(&format6, &old).unwrap();
    let upgraded = Model::load(&format6).unwrap();
    assert_eq!(upgraded.to_bytes().unwrap(), whole.to_bytes().unwrap());
    // Classified from either file; the format-9 one, read as it decodes, in about the
    // model's memory (the format-10 mapping's pages count in the resident size while it
    // decodes, though they are the system's cached file, not the process's memory).
    for (model, most) in [(&m9, 1.5), (&m, 2.5)] {
        let (code, err, kib) = run_with_peak_rss(&[
            "classify".as_ref(),
            "-m".as_ref(),
            model.as_ref(),
            "--input-format".as_ref(),
            "svmlight".as_ref(),
            svm.as_ref(),
        ]);
        assert_eq!(code, Some(0), "{err}");
        let file_kib = std::fs::metadata(model).unwrap().len() / 1024;
        assert!(
            (kib as f64) < file_kib as f64 * most,
            "peak RSS {kib} KiB for a {file_kib} KiB file"
        );
    }
    let bad = dir.path().join("bad.model");
    for at in [28, 29, bytes.len() / 2, bytes.len() - 1] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x5a;
        std::fs::write(&bad, &damaged).unwrap();
        let err = Model::load(&bad).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: corrupted model file (checksum mismatch)",
                bad.display()
            ),
            "byte {at}"
        );
    }
}

#[test]
fn a_damaged_model_of_megabytes_is_refused_for_its_checksum_wherever_the_damage_is() {
    // A payload of a mebibyte or more is hashed on a second thread while it decodes; a
    // flipped byte is the checksum's error, whether the damaged payload decodes or not.
    let dir = tempfile::tempdir().unwrap();
    let svm = dir.path().join("wide.svm");
    std::fs::write(&svm, "+1 1:1 300000:1\n-1 2:1\n+1 3:1\n-1 4:1 5:1\n").unwrap();
    let m = dir.path().join("wide.model");
    bin()
        .arg("train")
        .arg(&svm)
        .arg("-o")
        .arg(&m)
        .assert()
        .success();
    let bytes = std::fs::read(&m).unwrap();
    assert!(bytes.len() > (1 << 20) + 28, "{} bytes", bytes.len());
    assert!(Model::from_bytes(&bytes, &m).is_ok());
    for at in [28, 29, 40, bytes.len() / 2, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x5a;
        let err = Model::from_bytes(&bad, Path::new("bad.model"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err, "bad.model: corrupted model file (checksum mismatch)",
            "byte {at}"
        );
    }
}
