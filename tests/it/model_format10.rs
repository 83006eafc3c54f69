//! Format 10, the model laid out to open in milliseconds (its arrays as bytes, the
//! vocabulary as the table it is probed in, an XXH3-64 checksum): the golden file of
//! format 9 reads as the same model as the current golden file, and a damaged,
//! truncated or crafted format-10 file is refused with a sentence naming it, never a panic.

use crate::common::data;
use crate::model_format::{decides_as, golden, words};
use rosenblatt::model::Model;
use std::path::Path;

#[test]
fn a_format_9_model_reads_as_the_current_golden_model() {
    // The same training command wrote both golden files: format 10 on lays the same model
    // out to open without decoding (arrays as bytes, the vocabulary as its table), so
    // format 9 reads as the same model, every part of it, and finds every word.
    let old = Model::load(data("format9.model")).unwrap();
    let new = golden();
    assert_eq!(words(&old), words(&new));
    for (j, (w, _)) in words(&new).iter().enumerate() {
        assert_eq!(new.vocab().get(w), Some(j as u32), "{w}");
    }
    assert_eq!(new.vocab().get("not-a-word-of-the-tiny-corpus"), None);
    assert_eq!(old.vocab().documents(), new.vocab().documents());
    assert_eq!(old.analyzer(), new.analyzer());
    assert_eq!(old.geometry(), new.geometry());
    assert_eq!(old.classes(), new.classes());
    assert_eq!(old.calibration(), new.calibration());
    assert_eq!(old.class_calibration(), new.class_calibration());
    assert_eq!(old.term_counts(), new.term_counts());
    assert_eq!(old.meta().inputs, new.meta().inputs);
    // Saved again it is the current format's golden file, but for the recorded timings.
    let bytes = decides_as(&old, &new);
    let again = Model::from_bytes(&bytes, Path::new("again.model")).unwrap();
    assert_eq!(words(&again), words(&new));
    assert_eq!(again.predictor(), new.predictor());
}

#[test]
fn a_damaged_or_truncated_format_10_model_is_refused_with_a_sentence_naming_it() {
    refused_when_damaged("format10.model", 10);
}

/// The golden file `golden` of format `version` (10 on), damaged, truncated and crafted:
/// refused with a sentence naming the file every time, never a panic.
pub(crate) fn refused_when_damaged(golden: &str, version: u32) {
    let bytes = std::fs::read(data(golden)).unwrap();
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
        version
    );
    let payload = &bytes[28..];
    assert_eq!(
        u64::from_le_bytes(bytes[20..28].try_into().unwrap()),
        rosenblatt::model::checksum(version, payload),
        "the header states the payload's XXH3-64"
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.model");
    let refused = |damaged: &[u8]| -> String {
        std::fs::write(&bad, damaged).unwrap();
        let err = Model::load(&bad).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}: ", bad.display())), "{err}");
        err
    };
    // Every byte of the payload flipped in turn: the checksum's sentence, never a panic.
    for at in 28..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x5a;
        let err = refused(&damaged);
        assert!(
            err.ends_with("corrupted model file (checksum mismatch)"),
            "byte {at}: {err}"
        );
    }
    for keep in [0, 5, 20, 28, 29, bytes.len() / 2, bytes.len() - 1] {
        let err = refused(&bytes[..keep]);
        assert!(
            err.contains("truncated model file") || err.contains("wrong magic number"),
            "{keep} bytes: {err}"
        );
    }
    // Payloads resealed with a right checksum: each cut is refused with a sentence.
    let seal = |p: &[u8]| -> Vec<u8> {
        let mut out = bytes[..12].to_vec();
        out.extend_from_slice(&(p.len() as u64).to_le_bytes());
        out.extend_from_slice(&rosenblatt::model::checksum(version, p).to_le_bytes());
        out.extend_from_slice(p);
        out
    };
    for keep in (0..payload.len()).step_by(7) {
        let err = refused(&seal(&payload[..keep]));
        assert!(err.contains("damaged"), "{keep} bytes: {err}");
    }
    // Every byte flipped and resealed: refused with a sentence or read as some model,
    // never a panic (a word's bytes in the arena may change and still be a word).
    for at in 0..payload.len() {
        let mut p = payload.to_vec();
        p[at] ^= 0x5a;
        std::fs::write(&bad, seal(&p)).unwrap();
        if let Err(e) = Model::load(&bad) {
            assert!(
                e.to_string().starts_with(&format!("{}: ", bad.display())),
                "{e}"
            );
        }
    }
}
