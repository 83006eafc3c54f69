//! Bounded sizes: SVMlight feature ids above a limit, the kernel perceptron's estimate
//! before its index is allocated, matrices stored by column refused by the learners, and
//! model files whose lengths disagree with their size or each other — each a sentence,
//! in bounded memory, never an abort, a panic or an out-of-bounds write.

use crate::common::{bin, data, limited, stderr_of_failure};
use rosenblatt::features::{BinaryMatrix, MatrixBuilder};
use rosenblatt::learn::{AnyLearner, AnyModel, Check, KernelModel, Learner, Multiclass};
use rosenblatt::model::{FORMAT_VERSION, MAGIC, Model, Predictor};
use std::path::Path;

/// The reproducer: three rows, the last with the largest id a file may hold.
const HUGE_ID: &str = "+1 1:1\n-1 3:1\n+1 4294967295:1\n";

/// Writes `text` to `name` in `dir`.
fn file(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn an_id_above_the_limit_is_refused_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let svm = file(dir.path(), "a.svm", HUGE_ID);
    let m = dir.path().join("m");
    let (code, err) = limited(&["train", "-o", path(&m), path(&svm)]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("a.svm:3: feature id 4294967295 is above the limit of 16777216 features")
            && err.contains("--max-feature-id N"),
        "{err}"
    );
    assert!(!m.exists());
    // The same id read by `eval` and `classify` for a model trained on vectors.
    let small = file(dir.path(), "s.svm", "+1 1:1\n-1 3:1\n");
    bin()
        .args(["train", "-o"])
        .arg(&m)
        .arg(&small)
        .assert()
        .success();
    for cmd in ["eval", "classify"] {
        let (code, err) = limited(&[cmd, "-m", path(&m), path(&svm)]);
        assert!(code.is_some_and(|c| c > 0), "{cmd}: {err}");
        assert!(
            err.contains("a.svm:3: feature id 4294967295 is above the limit"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn a_raised_limit_still_refuses_weights_no_model_file_holds_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let svm = file(dir.path(), "a.svm", HUGE_ID);
    let m = dir.path().join("m");
    let limit = "--max-feature-id=4294967295";
    for learner in ["pa", "perceptron", "logistic", "centroid"] {
        let (code, err) = limited(&[
            "train",
            limit,
            "--learner",
            learner,
            "-o",
            path(&m),
            path(&svm),
        ]);
        assert_eq!(code, Some(1), "{learner}: {err}");
        assert!(
            err.contains(
                "a.svm:3: feature id 4294967295 (let through by --max-feature-id 4294967295)"
            ) && err.contains("17.2 GB: more than a model file can hold"),
            "{learner}: {err}"
        );
        assert!(!m.exists());
    }
}

#[test]
fn the_limit_is_a_flag_and_ids_beyond_32_bits_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let svm = file(dir.path(), "a.svm", "+1 1:1\n-1 3:1\n+1 40:1\n");
    let m = dir.path().join("m");
    let err = stderr_of_failure(
        bin()
            .args(["train", "--max-feature-id", "39", "-o"])
            .arg(&m)
            .arg(&svm),
    );
    assert!(
        err.contains("a.svm:3: feature id 40 is above the limit of 39 features"),
        "{err}"
    );
    bin()
        .args(["train", "--max-feature-id", "40", "-o"])
        .arg(&m)
        .arg(&svm)
        .assert()
        .success();
    bin()
        .args(["eval", "--max-feature-id", "40", "-m"])
        .arg(&m)
        .arg(&svm)
        .assert()
        .success();
    let beyond = file(dir.path(), "b.svm", "+1 1:1\n-1 4294967296:1\n");
    let err = stderr_of_failure(
        bin()
            .args(["train", "--max-feature-id", "4294967295", "-o"])
            .arg(&m)
            .arg(&beyond),
    );
    assert!(
        err.contains("b.svm:2: feature id 4294967296 is beyond the largest id")
            && err.contains("4294967295 (2^32 - 1)")
            && !err.contains("ids start at 1"),
        "{err}"
    );
}

#[test]
fn the_kernel_perceptron_costs_a_wide_file_its_nonzeros_and_checks_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let svm = file(dir.path(), "a.svm", HUGE_ID);
    let m = dir.path().join("m");
    let kernel = |memory: &'static str| {
        limited(&[
            "train",
            "--learner",
            "kernel-perceptron",
            "--memory",
            memory,
            "--max-feature-id",
            "4294967295",
            "-o",
            path(&m),
            path(&svm),
        ])
    };
    // Its index holds the features present, not a pointer per id up to 2^32 - 1.
    let (code, err) = kernel("1G");
    assert_eq!(code, Some(0), "{err}");
    let (code, out) = limited(&[
        "classify",
        "--max-feature-id",
        "4294967295",
        "-m",
        path(&m),
        path(&svm),
    ]);
    assert_eq!(code, Some(0), "{out}");
    // A budget below the index: refused from the estimate, before anything is allocated.
    let (code, err) = kernel("16K");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("here it would need 3 rows")
            && err.contains("above the limit of 16.0 KiB")
            && err.contains("--memory"),
        "{err}"
    );
}

/// `p` as a `&str` (temporary paths are UTF-8).
fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A binary matrix of four rows over `cols` columns whose ids reach `cols - 1`, with its
/// ±1 labels.
fn rows(cols: u32) -> (BinaryMatrix, Vec<i8>) {
    let mut b = MatrixBuilder::default();
    for r in [vec![0, cols - 1], vec![1], vec![0, 2], vec![cols - 2]] {
        b.push_sorted(&r);
    }
    (b.finish(cols as usize), vec![1, -1, 1, -1])
}

#[test]
fn a_matrix_stored_by_column_is_refused_by_every_learner() {
    // 4 × 9 transposed: stored by column, 9 "rows" whose ids are row numbers below 4 and
    // whose width is 4 — read as CSR, its ids would pass the width of a 4-weight vector.
    let (mut x, _) = rows(9);
    x.transpose_mut();
    assert!(x.is_csc());
    let y: Vec<i8> = (0..x.rows())
        .map(|i| if i % 2 == 0 { 1 } else { -1 })
        .collect();
    for name in AnyLearner::NAMES {
        let learner = AnyLearner::from_name(name).unwrap().check().unwrap();
        let e = learner.fit(&x, &y[..]).unwrap_err().to_string();
        assert!(
            e.contains("stored as CSC") && e.contains("to_csr()"),
            "{name}: {e}"
        );
    }
    let classes: Vec<usize> = (0..x.rows()).map(|i| i % 3).collect();
    let learner = AnyLearner::from_name("perceptron")
        .unwrap()
        .check()
        .unwrap();
    let e = learner
        .fit(&x, &Multiclass::new(&classes, 3))
        .unwrap_err()
        .to_string();
    assert!(e.contains("stored as CSC"), "{e}");
    // Converted as the sentence says, the same matrix trains.
    assert!(learner.fit(&x.to_csr(), &y[..]).is_ok());
}

/// The bytes of a format-9 model file holding `payload` (a list of words where format 10
/// has its table), with the header that writer put: magic, format version, payload length
/// and its FNV-1a checksum.
fn model_file(payload: &[u8]) -> Vec<u8> {
    let mut sum: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in payload {
        sum = (sum ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&9u32.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&sum.to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// A model trained on the tiny corpus in format 9 (the golden file): its file's payload
/// and the model.
fn tiny_payload() -> (Vec<u8>, Model) {
    let m = data("format9.model");
    let bytes = std::fs::read(&m).unwrap();
    (bytes[28..].to_vec(), Model::load(&m).unwrap())
}

/// Where word `w` is encoded in `payload` (its one-byte length, then its bytes).
fn word_at(payload: &[u8], w: &str) -> usize {
    let mut enc = vec![w.len() as u8];
    enc.extend_from_slice(w.as_bytes());
    payload.windows(enc.len()).position(|s| s == enc).unwrap()
}

/// `rosenblatt inspect -m` on a file holding `bytes`, under the address-space limit:
/// must fail with exit code 1 and a sentence naming the file that contains `says`.
fn inspect_refuses(dir: &Path, bytes: &[u8], says: &str) {
    let m = dir.join("crafted.model");
    std::fs::write(&m, bytes).unwrap();
    let (code, err) = limited(&["inspect", "-m", path(&m)]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("{}: ", m.display())) && err.contains(says),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_length_field_beyond_the_file_is_an_error_not_an_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let (payload, model) = tiny_payload();
    // The first word's length becomes 2^60 (varint: 253, then 8 bytes).
    let at = word_at(&payload, model.vocab().word(0));
    let mut crafted = payload[..at].to_vec();
    crafted.push(253);
    crafted.extend_from_slice(&(1u64 << 60).to_le_bytes());
    crafted.extend_from_slice(&payload[at + 1..]);
    inspect_refuses(
        dir.path(),
        &model_file(&crafted),
        "the model file is damaged: a length in it asks for more bytes than its",
    );
    // The number of words becomes 2^60.
    let mut crafted = payload[..at - 1].to_vec();
    crafted.push(253);
    crafted.extend_from_slice(&(1u64 << 60).to_le_bytes());
    crafted.extend_from_slice(&payload[at..]);
    inspect_refuses(dir.path(), &model_file(&crafted), "damaged");
}

#[test]
fn a_repeated_word_and_disagreeing_parts_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (payload, model) = tiny_payload();
    // Word 1 spelled as word 0.
    let (w0, w1) = (model.vocab().word(0), model.vocab().word(1));
    let at = word_at(&payload, w1);
    let mut crafted = payload[..at].to_vec();
    crafted.push(w0.len() as u8);
    crafted.extend_from_slice(w0.as_bytes());
    crafted.extend_from_slice(&payload[at + 1 + w1.len()..]);
    inspect_refuses(
        dir.path(),
        &model_file(&crafted),
        &format!("the model file is damaged: the vocabulary holds the word {w0:?} twice"),
    );
    // Parts that disagree, in files whose checksums are right.
    let mut wide = model.clone().into_parts();
    let Predictor::Binary(AnyModel::Linear(l)) = &mut wide.predictor else {
        panic!("the tiny model is a binary perceptron")
    };
    l.w.to_mut().push(1.0);
    let says = format!(
        "the weights cover {} features but the model has {}",
        model.vocab().len() + 1,
        model.vocab().len()
    );
    inspect_refuses(dir.path(), &wide.to_bytes_unchecked().unwrap(), &says);
    let mut three = model.clone().into_parts();
    three.classes.push("other".into());
    inspect_refuses(
        dir.path(),
        &three.to_bytes_unchecked().unwrap(),
        "a binary model names 3 classes instead of 2",
    );
    let mut twice = model.clone().into_parts();
    twice.classes[1] = twice.classes[0].clone();
    inspect_refuses(
        dir.path(),
        &twice.to_bytes_unchecked().unwrap(),
        "names the class",
    );
    // Trailing bytes after the model.
    let mut longer = payload.clone();
    longer.push(0);
    inspect_refuses(dir.path(), &model_file(&longer), "the model ends after");
}

#[test]
fn support_vectors_must_agree_with_their_rows() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("k.model");
    bin()
        .args(["train", "--learner", "kernel-perceptron", "-o"])
        .arg(&m)
        .arg(data("tiny"))
        .assert()
        .success();
    let model = Model::load(&m).unwrap();
    let kernel = |f: &dyn Fn(&mut KernelModel)| {
        let mut k = model.clone().into_parts();
        let Predictor::Binary(AnyModel::Kernel(km)) = &mut k.predictor else {
            panic!("a binary kernel model expected")
        };
        f(km);
        k.to_bytes_unchecked().unwrap()
    };
    let bytes = kernel(&|km| *km.support.indptr.last_mut().unwrap() += 1);
    inspect_refuses(dir.path(), &bytes, "the support rows' pointers");
    let bytes = kernel(&|km| km.support.n_cols = 1 << 40);
    inspect_refuses(
        dir.path(),
        &bytes,
        "the support vectors span 1099511627776 features",
    );
    let bytes = kernel(&|km| km.alpha.push(1));
    inspect_refuses(dir.path(), &bytes, "coefficients");
}

#[test]
fn a_model_path_that_is_not_a_bounded_file_is_refused_before_reading() {
    let (code, err) = limited(&["inspect", "-m", "/dev/zero"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("/dev/zero: not a regular file"), "{err}");
    // The review's reproducer: a sparse 4 GiB file is refused from its first 8 bytes, in
    // a fraction of a second and little memory; so is one above the documented 4 GiB cap.
    let dir = tempfile::tempdir().unwrap();
    for (name, len) in [("z.model", 4u64 << 30), ("big.model", (4u64 << 30) + 1)] {
        let big = dir.path().join(name);
        std::fs::File::create(&big).unwrap().set_len(len).unwrap();
        let t = std::time::Instant::now();
        let (code, err) = limited(&["inspect", "-m", path(&big)]);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("not a rosenblatt model (wrong magic number)"),
            "{err}"
        );
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
        if let Some(kib) = crate::common::peak_rss_kib(&["inspect", "-m", path(&big)]) {
            assert!(kib < 200 * 1024, "{kib} KiB");
        }
    }
    // A right header on a 4 GiB file: its stated length is checked against the file's
    // size before the payload is read, and a length above the cap is refused from it.
    let header = |len: u64| {
        let mut h = MAGIC.to_vec();
        h.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        h.extend_from_slice(&len.to_le_bytes());
        h.extend_from_slice(&0u64.to_le_bytes());
        h
    };
    let big = dir.path().join("z.model");
    for (len, says) in [
        (100, "corrupted model file"),
        ((4u64 << 30) - 20, "truncated model file"),
        (
            1 << 40,
            "its header claims 1099511627776 payload bytes: above the 4294967296",
        ),
    ] {
        std::fs::write(&big, header(len)).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&big)
            .unwrap()
            .set_len(4 << 30)
            .unwrap();
        let (code, err) = limited(&["inspect", "-m", path(&big)]);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains(says), "{len}: {err}");
    }
}

#[test]
fn rows_wider_than_a_vector_model_are_scored_by_every_learner() {
    let dir = tempfile::tempdir().unwrap();
    let train = file(
        dir.path(),
        "t.svm",
        "+1 1:1\n-1 3:1\n+1 1:1 2:1\n-1 3:1 2:1\n",
    );
    let wide = file(dir.path(), "w.svm", "+1 1:1 9:1\n-1 3:1 40:1\n");
    let m = dir.path().join("m");
    for learner in AnyLearner::NAMES {
        bin()
            .args(["train", "--learner", learner, "-o"])
            .arg(&m)
            .arg(&train)
            .assert()
            .success();
        let (code, err) = limited(&["classify", "-m", path(&m), path(&wide)]);
        assert_eq!(code, Some(0), "{learner}: {err}");
    }
}

/// The review's endless inputs: `/dev/zero` as a line file, as mail, as a message to
/// classify or learn, as an index and as a hostfile; each ends with a sentence naming the
/// input (and the flag that raises the bound), in bounded memory.
#[cfg(unix)]
#[test]
fn endless_inputs_stop_at_the_bound_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    bin()
        .args(["train", "-o"])
        .arg(&m)
        .arg(data("tiny.tsv"))
        .assert()
        .success();
    let filter = dir.path().join("f");
    bin()
        .args(["train", "-o"])
        .arg(&filter)
        .args(["--spam"])
        .arg(data("mail/base64_html.eml"))
        .args(["--ham"])
        .arg(data("mail/bad_charset.eml"))
        .assert()
        .success();
    let bound = "more than 67108864 bytes";
    let x = dir.path().join("x");
    let x = path(&x);
    let cases: [(&[&str], i32, &str); 5] = [
        (
            &["train", "-o", x, "--format", "tsv", "/dev/zero"],
            1,
            bound,
        ),
        (
            &[
                "train",
                "-o",
                x,
                "--spam",
                "/dev/zero",
                "--ham",
                "/dev/zero",
            ],
            1,
            bound,
        ),
        (
            &["learn", "-m", path(&filter), "--spam", "/dev/zero"],
            3,
            bound,
        ),
        (
            &["eval", "-m", path(&filter), "--online", "/dev/zero"],
            1,
            bound,
        ),
        // classify counts and skips an input it cannot read, goes on, and exits 4.
        (
            &["classify", "-m", path(&m), "--format", "tsv", "/dev/zero"],
            4,
            bound,
        ),
    ];
    for (args, code, says) in cases {
        let (got, err) = limited(args);
        assert_eq!(got, Some(code), "{args:?}: {err}");
        assert!(
            err.contains(says) && err.contains("/dev/zero"),
            "{args:?}: {err}"
        );
        assert!(err.contains("--max-document-bytes"), "{args:?}: {err}");
        if let Some(kib) = crate::common::peak_rss_kib(args) {
            assert!(kib < 200 * 1024, "{args:?}: {kib} KiB");
        }
    }
    // 100 MB on standard input.
    let exe = assert_cmd::cargo::cargo_bin("rosenblatt");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("head -c 100000000 /dev/zero | \"$0\" classify -m \"$1\" -")
        .arg(exe)
        .arg(&m)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("the document on stdin: more than 67108864 bytes"),
        "{err}"
    );
    // The flag moves the bound.
    let (got, err) = limited(&[
        "train",
        "-o",
        x,
        "--max-document-bytes",
        "5",
        path(&data("tiny")),
    ]);
    assert_eq!(got, Some(1), "{err}");
    assert!(err.contains("more than 5 bytes"), "{err}");
}

#[test]
fn a_mail_message_past_the_bound_is_skipped_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = crate::common::corpus_and_filter(dir.path());
    // The shipped spam messages are each more than 1,000 bytes; an mbox of two of them
    // skips each message by its number, a file of one message by its name.
    let one = corpus.join("spam").join("0.eml");
    let mbox = dir.path().join("two.mbox");
    let mut text = Vec::new();
    for f in ["0.eml", "1.eml"] {
        text.extend(b"From someone@example.com Thu Jan  1 00:00:00 2002\n");
        text.extend(std::fs::read(corpus.join("spam").join(f)).unwrap());
        text.extend(b"\n");
    }
    std::fs::write(&mbox, &text).unwrap();
    for (input, ids) in [
        (&one, vec![one.display().to_string()]),
        (
            &mbox,
            vec![
                format!("{}#1", mbox.display()),
                format!("{}#2", mbox.display()),
            ],
        ),
    ] {
        let err = stderr_of_failure(
            bin()
                .args(["classify", "--max-document-bytes", "1000", "-m"])
                .arg(&model)
                .arg(input),
        );
        for id in ids {
            assert!(
                err.contains(&format!("{id}: more than 1000 bytes")),
                "{id}: {err}"
            );
        }
        assert!(err.contains("no message to classify"), "{err}");
    }
    // Within the bound the same message is classified.
    bin()
        .args(["classify", "-m"])
        .arg(&model)
        .arg(&one)
        .assert()
        .code(0);
}
