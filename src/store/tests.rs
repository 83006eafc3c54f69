//! The store against the whole model: the same model back bit for bit, the same
//! decisions, the same state after the same messages learned.

use super::*;
use crate::features::{GeometrySpec, Normalize};
use crate::incremental::{OnlineFilter, empty_model, learn_document};
use crate::learn::{Rate, UpdateRule};
use crate::text::{Analyzer, Source, Step};
use crate::{Document, Model, TrainConfig};

/// Short spam and ham texts, with words that repeat across them.
fn corpus() -> Vec<Document> {
    let spam = [
        "cheap meds buy now",
        "buy cheap watches now now",
        "win money fast, click here",
        "free money free offer click",
    ];
    let ham = [
        "lunch at noon tomorrow",
        "the meeting moved to noon",
        "minutes of the meeting attached",
        "tomorrow we review the offer",
    ];
    let mut docs = Vec::new();
    for (s, h) in spam.iter().zip(ham) {
        docs.push(Document::labelled("spam", *s));
        docs.push(Document::labelled("ham", h));
    }
    docs
}

/// Messages to learn after training, with words training never saw, labelled.
fn later() -> Vec<(&'static str, Document)> {
    let long = format!("{} money", "z".repeat(700)); // a word past LMDB's key size
    [
        ("spam", "cheap pills, click now"),
        ("ham", "noon lunch with the review team"),
        ("spam", long.as_str()),
        ("ham", "money for the lunch tomorrow"),
        ("spam", "free watches free pills"),
        ("ham", "cheap lunch at noon"),
    ]
    .into_iter()
    .map(|(c, t)| (c, Document::new(c, t, None)))
    .collect()
}

fn bytes(m: &Model) -> Vec<u8> {
    m.to_bytes().unwrap()
}

/// Writes `model` as a store, checks it reads back the same, then learns `later()` in
/// both forms (the store a message per transaction, then all in one) and checks the
/// decisions along the way and the models at the end are the same.
fn same_in_both_forms(mut model: Model) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.store");
    let store = Store::create(&path, &model).unwrap();
    assert!(Store::is_store(&path));
    assert_eq!(bytes(&store.to_model().unwrap()), bytes(&model));
    let probe = corpus()
        .into_iter()
        .chain(later().into_iter().map(|(_, d)| d));
    let probe: Vec<Document> = probe.collect();
    let check = |store: &Store, model: &Model| {
        let snap = store.snapshot().unwrap();
        let whole = model.decide_rows(&crate::training::vectorize_for(model, &probe).matrix);
        for (d, w) in probe.iter().zip(whole) {
            let s = snap.decide(d).unwrap();
            assert_eq!(
                (s.class, s.score.to_bits()),
                (w.class, w.score.to_bits()),
                "{}",
                d.text
            );
        }
    };
    check(&store, &model);
    let mut steps = 0;
    for (class, d) in later() {
        steps += u64::from(learn_document(&mut model, &d, class).unwrap().updated);
        let l = store.learn(std::slice::from_ref(&d), class).unwrap();
        assert_eq!(l.learned, model.meta().learned);
        check(&store, &model);
    }
    assert!(steps > 0, "the messages must make the rule step");
    assert_eq!(bytes(&store.to_model().unwrap()), bytes(&model));
    // All in one transaction: the same again.
    let docs: Vec<Document> = later().into_iter().map(|(_, d)| d).collect();
    let spam: Vec<Document> = docs.iter().step_by(2).cloned().collect();
    for d in &spam {
        learn_document(&mut model, d, "spam").unwrap();
    }
    let l = store.learn(&spam, "spam").unwrap();
    assert_eq!((l.messages, l.learned), (3, model.meta().learned));
    assert_eq!(bytes(&store.to_model().unwrap()), bytes(&model));
}

#[test]
fn a_batch_model_of_words_with_idf_is_the_same_in_both_forms() {
    let model = Model::fit(&corpus(), &TrainConfig::default()).unwrap();
    assert!(model.geometry().feature_weights().is_some());
    same_in_both_forms(model);
}

#[test]
fn a_logistic_model_learning_by_adagrad_is_the_same_in_both_forms() {
    let cfg = TrainConfig::default().learner("logistic").unwrap();
    let mut model = Model::fit(&corpus(), &cfg).unwrap();
    model.online = Some(crate::learn::OnlineState::new(OnlineFilter::LOGISTIC));
    same_in_both_forms(model);
}

#[test]
fn a_hashed_online_filter_is_the_same_in_both_forms_and_stores_only_what_it_saw() {
    for rule in [
        OnlineFilter::LOGISTIC,
        UpdateRule::PassiveAggressive { c: 0.5 },
        UpdateRule::Logistic {
            eta: 0.5,
            rate: Rate::Decaying,
        },
    ] {
        let analyzer = Analyzer::builder(Source::Text)
            .step(Step::Words)
            .step(Step::Lowercase)
            .step(Step::Ngrams(2))
            .step(Step::Hash(18))
            .build()
            .unwrap();
        let filter = OnlineFilter {
            analyzer,
            geometry: crate::features::Geometry::binary(Normalize::L2),
            rule,
            threshold: OnlineFilter::threshold_for(rule),
        };
        let mut model = empty_model(filter, "ham", "spam").unwrap();
        for d in corpus() {
            let class = d.labels[0].clone();
            learn_document(&mut model, &d, &class).unwrap();
        }
        same_in_both_forms(model);
    }
    // An empty filter of 2^18 ids keeps no feature entry at all.
    let dir = tempfile::tempdir().unwrap();
    let empty = empty_model(OnlineFilter::default(), "ham", "spam").unwrap();
    let store = Store::create(dir.path().join("e"), &empty).unwrap();
    let txn = store.env.read_txn().unwrap();
    assert_eq!(store.features.len(&txn).unwrap(), 0);
}

#[test]
fn a_hashed_batch_model_with_idf_is_the_same_in_both_forms() {
    let analyzer = Analyzer::builder(Source::Text)
        .step(Step::Words)
        .step(Step::Lowercase)
        .step(Step::Hash(12))
        .build()
        .unwrap();
    let cfg = TrainConfig::default()
        .analyzer(analyzer)
        .geometry(GeometrySpec::IDF_L2);
    same_in_both_forms(Model::fit(&corpus(), &cfg).unwrap());
}

#[test]
fn what_cannot_be_a_store_and_what_is_not_one_are_refused_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let docs: Vec<Document> = ["a x", "b y", "c z"]
        .iter()
        .zip(["a", "b", "c"])
        .map(|(t, l)| Document::labelled(l, *t))
        .collect();
    let three = Model::fit(&docs, &TrainConfig::default()).unwrap();
    let err = Store::create(dir.path().join("s"), &three)
        .unwrap_err()
        .to_string();
    assert!(err.contains("two-class linear models"), "{err}");
    assert!(!dir.path().join("s").exists());
    let two = Model::fit(&corpus(), &TrainConfig::default()).unwrap();
    Store::create(dir.path().join("s"), &two).unwrap();
    let err = Store::create(dir.path().join("s"), &two)
        .unwrap_err()
        .to_string();
    assert!(err.contains("already exists"), "{err}");
    // A plain folder is no store, and opening it creates nothing.
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let err = Store::open(&plain).unwrap_err().to_string();
    assert!(err.contains("not a filter store"), "{err}");
    assert_eq!(std::fs::read_dir(&plain).unwrap().count(), 0);
    // A foreign LMDB environment: opened, refused, named.
    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    drop(open_env(&foreign, Access::Write, Some(MAP_STEP)).unwrap());
    let err = Store::open(&foreign).unwrap_err().to_string();
    assert!(err.contains("without a filter's tables"), "{err}");
    // A class the filter does not have.
    let store = Store::open(dir.path().join("s")).unwrap();
    let err = store.learn(&docs[..1], "eggs").unwrap_err().to_string();
    assert!(err.contains("not one of the model's two classes"), "{err}");
}

#[test]
fn a_damaged_header_or_record_is_refused_naming_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    let model = Model::fit(&corpus(), &TrainConfig::default()).unwrap();
    let store = Store::create(&path, &model).unwrap();
    let mut txn = store.env.write_txn().unwrap();
    store.features.put(&mut txn, b"noon", b"short").unwrap();
    txn.commit().unwrap();
    let err = store.to_model().unwrap_err().to_string();
    assert!(err.contains("\"noon\" is not a feature record"), "{err}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    let err = store
        .snapshot()
        .unwrap()
        .decide(&Document::new("d", "lunch at noon", None))
        .unwrap_err()
        .to_string();
    assert!(err.contains("\"noon\" is not a record"), "{err}");
    let mut txn = store.env.write_txn().unwrap();
    store
        .meta
        .put(&mut txn, HEADER_KEY, b"RSNBSTOR\x09\0\0\0")
        .unwrap();
    txn.commit().unwrap();
    let err = store.snapshot().unwrap_err().to_string();
    assert!(err.contains("store format 9"), "{err}");
}

#[test]
fn records_that_are_not_finite_out_of_range_or_repeated_are_refused_where_read() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::fit(&corpus(), &TrainConfig::default()).unwrap();
    let noon = model.vocab().get("noon").unwrap();
    let lunch = model.vocab().get("lunch").unwrap();
    let record = |id: u32, w: f32| {
        super::record::Record {
            id,
            w,
            df: 1,
            sq: 0.0,
            fw: 1.0,
        }
        .encode(None)
    };
    let cases = [
        (record(noon, f32::NAN), "not a finite number"),
        (record(noon, f32::INFINITY), "not a finite number"),
        (record(u32::MAX, 0.5), "has id 4294967295"),
        (
            record(lunch, 0.5),
            &*format!("shares id {lunch} with another word"),
        ),
    ];
    for (k, (bytes, why)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("s{k}"));
        let store = Store::create(&path, &model).unwrap();
        let mut txn = store.env.write_txn().unwrap();
        store.features.put(&mut txn, b"noon", bytes).unwrap();
        txn.commit().unwrap();
        let doc = Document::new("d", "lunch at noon", None);
        let err = store
            .snapshot()
            .unwrap()
            .decide(&doc)
            .unwrap_err()
            .to_string();
        assert!(err.contains(why) && err.contains("damaged store"), "{err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
        let err = store.learn(&[doc], "spam").unwrap_err().to_string();
        assert!(err.contains(why), "{err}");
        assert!(store.to_model().is_err(), "{why}");
    }
}

#[test]
fn a_reader_that_unmaps_the_store_as_it_goes_decides_as_the_model() {
    // A message of 1,000 distinct words: its lookups unmap the store's pages 7 times.
    let text: Vec<String> = (0..1000).map(|i| format!("w{i}")).collect();
    let mut docs = corpus();
    docs.push(Document::labelled("spam", text.join(" ")));
    let model = Model::fit(&docs, &TrainConfig::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    Store::create(dir.path().join("s"), &model).unwrap();
    let store = Store::open_read_only(dir.path().join("s")).unwrap();
    let snap = store.snapshot().unwrap();
    #[cfg(target_os = "linux")]
    assert!(snap.resident.found(), "the map was not found");
    let probe = Document::new("p", text[..900].join(" ") + " lunch noon", None);
    let whole = model
        .decide_rows(&crate::training::vectorize_for(&model, std::slice::from_ref(&probe)).matrix)
        [0];
    for _ in 0..2 {
        let d = snap.decide(&probe).unwrap();
        assert_eq!(
            (d.class, d.score.to_bits()),
            (whole.class, whole.score.to_bits())
        );
    }
}

#[test]
fn a_store_grows_its_map_as_it_learns_and_keeps_the_same_model() {
    // An empty filter of 2^20 ids (a store of a few pages), then 2,000 messages of 60
    // distinct words each in one call: about 100,000 entries, past the first map.
    let analyzer = Analyzer::builder(Source::Text)
        .step(Step::Words)
        .step(Step::Hash(20))
        .build()
        .unwrap();
    let filter = OnlineFilter {
        analyzer,
        geometry: crate::features::Geometry::binary(Normalize::L2),
        rule: OnlineFilter::LOGISTIC,
        threshold: OnlineFilter::SPAM_ODDS,
    };
    let mut model = empty_model(filter, "ham", "spam").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path().join("s"), &model).unwrap();
    let first_map = store.env.info().map_size;
    let docs: Vec<Document> = (0..2000)
        .map(|i| {
            let words: Vec<String> = (0..60)
                .map(|k| format!("t{}", (i * 61 + k * 7919) % 150_000))
                .collect();
            Document::new(i.to_string(), words.join(" "), None)
        })
        .collect();
    for d in &docs {
        learn_document(&mut model, d, "spam").unwrap();
    }
    store.learn(&docs, "spam").unwrap();
    assert!(
        store.env.info().map_size > first_map,
        "the map did not grow"
    );
    assert_eq!(bytes(&store.to_model().unwrap()), bytes(&model));
}

#[test]
fn a_data_file_cut_short_is_refused_not_read_past_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    let model = Model::fit(&corpus(), &TrainConfig::default()).unwrap();
    drop(Store::create(&path, &model).unwrap());
    let data = path.join(DATA_FILE);
    let f = std::fs::OpenOptions::new().write(true).open(&data).unwrap();
    f.set_len(3 * 4096).unwrap();
    let err = Store::open_read_only(&path).unwrap_err().to_string();
    assert!(
        err.contains("damaged store: data.mdb holds 12288 bytes"),
        "{err}"
    );
}

#[test]
fn a_format_1_store_reads_without_a_calibration_and_decides_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    let model = Model::fit(&corpus(), &TrainConfig::default()).unwrap();
    assert!(model.calibration().is_some());
    let store = Store::create(&path, &model).unwrap();
    let doc = Document::new("d", "cheap meds at noon", None);
    let before = store.snapshot().unwrap().decide(&doc).unwrap();
    let p = store.snapshot().unwrap().probability(before.score);
    assert_eq!(p, model.probability(before.score));
    // The header as format 1 wrote it: no calibration at its end.
    let txn = store.env.read_txn().unwrap();
    let bytes = store.meta.get(&txn, HEADER_KEY).unwrap().unwrap().to_vec();
    drop(txn);
    let mut h = header::Header::decode(&bytes).unwrap();
    h.calibration = None;
    let mut old = h.encode().unwrap();
    assert_eq!(old.pop(), Some(0), "None is one zero byte at the end");
    old[8..12].copy_from_slice(&1u32.to_le_bytes());
    let mut txn = store.env.write_txn().unwrap();
    store.meta.put(&mut txn, HEADER_KEY, &old).unwrap();
    txn.commit().unwrap();
    let snapshot = store.snapshot().unwrap();
    assert_eq!(snapshot.decide(&doc).unwrap(), before);
    assert_eq!(snapshot.probability(before.score), None);
    drop(snapshot);
    assert_eq!(store.to_model().unwrap().calibration(), None);
}
