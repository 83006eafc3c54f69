//! Format 11, the arrays padded to 64 bytes into the file and read in place from its
//! mapping: a mapped model scores every class exactly as the same model held in memory
//! of its own, a model that changes copies its arrays out and leaves the file alone, the
//! golden file of format 10 (arrays unaligned) reads as the same model, and a damaged or
//! truncated format-11 file is refused with a sentence naming it.

use crate::common::data;
use crate::model_format::{decides_as, golden, words};
use crate::model_format10::refused_when_damaged;
use rosenblatt::Document;
use rosenblatt::SparseRows;
use rosenblatt::learn::{AnyModel, Predictor};
use rosenblatt::model::Model;
use rosenblatt::training::{self, TrainConfig};

/// Whether arrays are read in place here (on a little-endian Unix machine; elsewhere they
/// are copied out, as before format 11).
const IN_PLACE: bool = cfg!(all(unix, target_endian = "little"));

/// The weights of every linear model of `m`'s predictor.
fn linear_parts(m: &Model) -> Vec<&rosenblatt::LinearModel> {
    match m.predictor() {
        Predictor::Binary(a) => vec![a.as_linear().unwrap()],
        Predictor::OneVsRest(ms) => ms.iter().map(|a| a.as_linear().unwrap()).collect(),
        p => panic!("not a linear model: {p:?}"),
    }
}

/// Four topics of 50 documents each over a vocabulary of 2,000 words, seeded.
fn topics() -> Vec<Document> {
    let mut state = 11u64;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut docs = Vec::new();
    for c in 0..4u64 {
        for d in 0..50 {
            let words: Vec<String> = (0..40)
                .map(|_| match next(3) {
                    0 => format!("t{c}w{}", next(200)),
                    _ => format!("w{}", next(2000)),
                })
                .collect();
            let label = format!("topic{c}");
            docs.push(Document::new(
                format!("{c}-{d}"),
                words.join(" "),
                Some(&label),
            ));
        }
    }
    docs
}

#[test]
fn a_mapped_model_scores_every_class_as_the_same_model_in_memory_does() {
    let docs = topics();
    let trained = training::train(&docs, &TrainConfig::default(), vec![])
        .unwrap()
        .model;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("topics.model");
    trained.save(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 11);
    let mapped = Model::load(&path).unwrap();
    let owned = Model::from_bytes(&bytes, &path).unwrap();
    let parts = linear_parts(&mapped);
    assert_eq!(parts.len(), 4);
    assert!(
        parts.iter().all(|l| l.w.is_mapped() == IN_PLACE),
        "read in place"
    );
    assert!(linear_parts(&owned).iter().all(|l| !l.w.is_mapped()));
    assert!(linear_parts(&trained).iter().all(|l| !l.w.is_mapped()));
    assert_eq!(mapped.predictor(), trained.predictor());
    assert_eq!(mapped.geometry(), trained.geometry());
    assert_eq!(words(&mapped), words(&trained));
    // Every class's score of every document, bit for bit, and the decisions: row by row
    // and through the class block (64 rows or more).
    let x = training::vectorize_for(&mapped, &docs).matrix;
    let scores = |m: &Model| -> Vec<u32> {
        let w = m.geometry().apply(&x);
        assert_eq!(w.n_rows(), docs.len());
        let s = m.predictor().score_rows(&w);
        s.iter().map(|v| v.to_bits()).collect()
    };
    assert_eq!(scores(&mapped), scores(&owned));
    assert_eq!(mapped.decide_rows(&x), owned.decide_rows(&x));
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    for n in [1, 3, texts.len()] {
        assert_eq!(
            mapped.classify_batch(&texts[..n]).unwrap(),
            owned.classify_batch(&texts[..n]).unwrap()
        );
    }
    // Saved again, the same bytes (the file holds no trace of where its arrays were).
    assert_eq!(mapped.to_bytes().unwrap(), owned.to_bytes().unwrap());
}

#[test]
fn a_mapped_model_that_learns_copies_its_weights_out_and_leaves_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.model");
    std::fs::copy(data("format11.model"), &path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let opened = Model::load(&path).unwrap();
    assert_eq!(linear_parts(&opened)[0].w.is_mapped(), IN_PLACE);
    let mut learner = opened.clone();
    let doc = Document::new("q", "the agenda for the office meeting", None);
    let out = rosenblatt::incremental::learn_document(&mut learner, &doc, "spam").unwrap();
    assert!(out.updated, "{out:?}");
    let (w0, w1) = (&linear_parts(&opened)[0].w, &linear_parts(&learner)[0].w);
    assert!(w0.is_mapped() == IN_PLACE && !w1.is_mapped());
    assert_ne!(w0, w1, "learned into its own copy");
    assert_eq!(
        opened.predictor(),
        golden().predictor(),
        "the one opened unchanged"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before, "the file unchanged");
    // Saved over the file it was read from (renamed over it): the model opened before
    // goes on reading the file it opened.
    learner.save(&path).unwrap();
    assert_eq!(opened.predictor(), golden().predictor());
    let again = Model::load(&path).unwrap();
    assert_eq!(again.predictor(), learner.predictor());
    // Changed by hand through the public field: copied out as well.
    let mut parts = again.clone().into_parts();
    let Predictor::Binary(AnyModel::Linear(l)) = &mut parts.predictor else {
        panic!("the tiny model is a binary perceptron")
    };
    assert_eq!(l.w.is_mapped(), IN_PLACE);
    l.w[0] += 1.0;
    assert!(!l.w.is_mapped());
    assert_eq!(l.w[0], linear_parts(&again)[0].w[0] + 1.0);
}

#[test]
fn the_format_10_golden_model_reads_as_the_format_11_golden_model() {
    // The same training command wrote both: format 11 only pads each array to 64 bytes.
    // Format 10's arrays lie where the bytes before them put them: read in place where
    // that happens to be their numbers' alignment, else copied out.
    let old = Model::load(data("format10.model")).unwrap();
    let new = golden();
    assert_eq!(linear_parts(&new)[0].w.is_mapped(), IN_PLACE);
    assert_eq!(words(&old), words(&new));
    assert_eq!(old.geometry(), new.geometry());
    assert_eq!(old.classes(), new.classes());
    assert_eq!(old.calibration(), new.calibration());
    assert_eq!(old.meta().inputs, new.meta().inputs);
    // Saved again it is the format-11 file.
    let bytes = decides_as(&old, &new);
    let golden_bytes = std::fs::read(data("format11.model")).unwrap();
    assert_eq!(bytes.len(), golden_bytes.len());
}

#[test]
fn a_damaged_or_truncated_format_11_model_is_refused_with_a_sentence_naming_it() {
    refused_when_damaged("format11.model", 11);
}
