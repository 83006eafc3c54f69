//! Bounded sizes: SVMlight feature ids above a limit, the kernel perceptron's estimate
//! before its index is allocated, and matrices stored by column refused by the learners —
//! each a sentence, in bounded memory, never an abort or an out-of-bounds write.

use crate::common::{bin, limited};
use rosenblatt::features::{BinaryMatrix, MatrixBuilder};
use rosenblatt::learn::{AnyLearner, Check, Learner, Multiclass};
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
fn the_limit_is_a_flag_and_ids_beyond_32_bits_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let svm = file(dir.path(), "a.svm", "+1 1:1\n-1 3:1\n+1 40:1\n");
    let m = dir.path().join("m");
    let err = bin()
        .args(["train", "--max-feature-id", "39", "-o"])
        .arg(&m)
        .arg(&svm)
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(err).unwrap();
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
    let err = bin()
        .args(["train", "--max-feature-id", "4294967295", "-o"])
        .arg(&m)
        .arg(&beyond)
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(err).unwrap();
    assert!(
        err.contains("b.svm:2: feature id 4294967296 is beyond the largest id")
            && err.contains("4294967295 (2^32 - 1)")
            && !err.contains("ids start at 1"),
        "{err}"
    );
}

#[test]
fn the_kernel_perceptron_refuses_a_wide_file_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let svm = file(dir.path(), "a.svm", HUGE_ID);
    let m = dir.path().join("m");
    let (code, err) = limited(&[
        "train",
        "--learner",
        "kernel-perceptron",
        "--memory",
        "1G",
        "--max-feature-id",
        "4294967295",
        "-o",
        path(&m),
        path(&svm),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("here it would need")
            && err.contains("32.0 GiB of memory")
            && err.contains("above the limit of 1.0 GiB")
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
