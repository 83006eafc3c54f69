//! A saved classifier against the model it holds: the same decisions and explanations
//! from a filter's model file and from its store, a learn seen by the next call, and the
//! kinds told apart.

use super::*;
use crate::incremental::learn_document;
use crate::{Document, TrainConfig};

/// Short spam and ham texts, with words that repeat across them.
fn texts() -> Vec<(&'static str, &'static str)> {
    vec![
        ("spam", "cheap meds buy now"),
        ("ham", "lunch at noon tomorrow"),
        ("spam", "buy cheap watches now now"),
        ("ham", "the meeting moved to noon"),
        ("spam", "win money fast, click here"),
        ("ham", "minutes of the meeting attached"),
    ]
}

/// A text model of [`texts`], saved at `dir/text.model`.
fn text_model(dir: &Path) -> (PathBuf, Model) {
    let docs: Vec<Document> = texts()
        .into_iter()
        .map(|(c, t)| Document::labelled(c, t))
        .collect();
    let model = Model::fit(&docs, &TrainConfig::default()).unwrap();
    let path = dir.join("text.model");
    model.save(&path).unwrap();
    (path, model)
}

#[test]
fn a_saved_classifier_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<SavedClassifier>();
}

#[test]
fn a_text_model_is_a_text_model_and_answers_as_the_model_does() {
    let dir = tempfile::tempdir().unwrap();
    let (path, model) = text_model(dir.path());
    let c = SavedClassifier::open(&path).unwrap();
    assert_eq!(c.kind(), Kind::Text);
    assert!(!c.reads_mail());
    assert_eq!(c.classes(), model.classes());
    let e = c.spam_filter().unwrap_err().to_string();
    assert!(e.contains("this model reads plain text"), "{e}");
    let docs = [
        Document::new("a", "cheap watches", None),
        Document::new("b", "noon meeting", None),
    ];
    let x = vectorize_for(&model, &docs).matrix;
    assert_eq!(
        c.labels(&docs).unwrap(),
        labels_and_probabilities(&model, &x)
    );
    let want = model.decide_rows(&x);
    let got = c.decide(&docs).unwrap();
    let bits = |d: &[ClassDecision]| -> Vec<(usize, u32)> {
        d.iter().map(|d| (d.class, d.score.to_bits())).collect()
    };
    assert_eq!(bits(&got), bits(&want));
    let e = c.explain(&docs[0], None).unwrap();
    assert_eq!(e.score.to_bits(), want[0].score.to_bits());
    // Documents are what it reads: vectors are refused with its path.
    let refused = c.kind().check_input(&path, true).unwrap_err().to_string();
    assert!(
        refused.contains("text.model was trained on text"),
        "{refused}"
    );
}

#[test]
fn a_model_of_vectors_is_told_apart_and_refuses_documents() {
    let dir = tempfile::tempdir().unwrap();
    let x =
        crate::features::BinaryMatrix::new((2, 4), vec![0, 2, 4], vec![0, 1, 2, 3], vec![(); 4]);
    let model = crate::training::fit_rows(
        &x,
        &[0, 1],
        vec!["a".into(), "b".into()],
        &TrainConfig::default(),
        Vec::new(),
    )
    .unwrap();
    let path = dir.path().join("v.model");
    model.save(&path).unwrap();
    let c = SavedClassifier::open(&path).unwrap();
    assert_eq!(c.kind(), Kind::Vectors);
    assert_eq!(
        c.label_rows(&x).unwrap(),
        labels_and_probabilities(&model, &x)
    );
    let e = c.labels(&[Document::new("a", "words", None)]).unwrap_err();
    assert!(e.to_string().contains("trained on SVMlight vectors"), "{e}");
}

#[test]
fn a_folder_that_is_not_a_store_is_refused_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let e = SavedClassifier::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains("a folder that is not a filter store"), "{e}");
    assert!(e.contains(&*dir.path().to_string_lossy()), "{e}");
}

#[test]
fn a_learn_through_a_model_file_is_seen_by_the_next_call() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut model) = text_model(dir.path());
    let c = SavedClassifier::open_to_learn(&path, Duration::from_secs(5)).unwrap();
    let doc = Document::new("m", "noon watches click", None);
    let l = c.learn(std::slice::from_ref(&doc), "spam").unwrap();
    // The same step as the model's own, kept by the next call and in the file.
    learn_document(&mut model, &doc, "spam").unwrap();
    let want = model.decide_rows(&vectorize_for(&model, std::slice::from_ref(&doc)).matrix);
    let got = c.decide(std::slice::from_ref(&doc)).unwrap();
    assert_eq!(got[0].score.to_bits(), want[0].score.to_bits());
    assert_eq!(l.learned, model.meta().learned);
    assert_eq!(
        Model::load(&path).unwrap().to_bytes().unwrap(),
        model.to_bytes().unwrap()
    );
    assert!(!lock::lock_path(&path).exists(), "the lock is let go");
    let e = c.learn(&[doc], "other").unwrap_err().to_string();
    assert!(
        e.contains("learn teaches a two-class filter its class other"),
        "{e}"
    );
}

#[cfg(all(feature = "mail", feature = "store"))]
mod filter {
    use super::*;
    use crate::input::mail::{MailRules, read_message_bytes};
    use crate::store::Store;

    /// A raw message of `subject` and `body`.
    fn raw(subject: &str, body: &str) -> Vec<u8> {
        format!("From: a@example.org\nSubject: {subject}\n\n{body}\n").into_bytes()
    }

    /// A spam filter of [`texts`] as mail, saved as `dir/f.model` and `dir/f.store`.
    fn filter(dir: &Path) -> (PathBuf, PathBuf) {
        let rules = MailRules::default();
        let docs: Vec<Document> = texts()
            .into_iter()
            .map(|(c, t)| {
                let m = read_message_bytes(&raw(t, t), t, Some(c), &rules);
                m.corpus.docs.into_iter().next().unwrap()
            })
            .collect();
        let model = Model::fit(&docs, &TrainConfig::spam_filter()).unwrap();
        let (file, store) = (dir.join("f.model"), dir.join("f.store"));
        model.save(&file).unwrap();
        Store::create(&store, &model).unwrap();
        (file, store)
    }

    #[test]
    fn a_filter_file_and_its_store_answer_alike() {
        let dir = tempfile::tempdir().unwrap();
        let (file, store) = filter(dir.path());
        let (f, s) = (
            SavedClassifier::open(&file).unwrap(),
            SavedClassifier::open(&store).unwrap(),
        );
        assert_eq!((f.kind(), s.kind()), (Kind::SpamFilter, Kind::SpamFilter));
        assert!(f.reads_mail() && s.reads_mail());
        assert_eq!(f.classes(), s.classes());
        for m in [raw("cheap", "buy meds now"), raw("lunch", "noon tomorrow")] {
            let (a, b) = (f.classify_mail(&m).unwrap(), s.classify_mail(&m).unwrap());
            assert_eq!((&a.label, a.score.to_bits()), (&b.label, b.score.to_bits()));
            let (a, b) = (f.explain_mail(&m).unwrap(), s.explain_mail(&m).unwrap());
            assert_eq!(a, b);
            assert_eq!(
                a.score.to_bits(),
                f.classify_mail(&m).unwrap().score.to_bits()
            );
        }
        let m = raw("cheap", "buy meds now");
        assert_eq!(
            f.view().unwrap().spam_filter().unwrap().spam,
            s.spam_filter().unwrap().spam
        );
        let e = s.labels(&[]).unwrap_err().to_string();
        assert!(e.contains("a store gives a filter's decision"), "{e}");
        let e = s
            .explain_mail(&m)
            .map(|_| ())
            .and(s.explain(&Document::default(), Some("spam")));
        assert!(e.is_err());
    }

    #[test]
    fn a_learn_through_either_form_is_seen_by_the_next_classify_alike() {
        let dir = tempfile::tempdir().unwrap();
        let (file, store) = filter(dir.path());
        let f = SavedClassifier::open_to_learn(&file, Duration::from_secs(5)).unwrap();
        let s = SavedClassifier::open_to_learn(&store, Duration::from_secs(5)).unwrap();
        let m = raw("noon", "lunch meeting click here");
        let before = f.classify_mail(&m).unwrap().score;
        for _ in 0..3 {
            let (a, b) = (
                f.learn_mail(&m, "spam").unwrap(),
                s.learn_mail(&m, "spam").unwrap(),
            );
            assert_eq!(a, b);
        }
        let (a, b) = (f.classify_mail(&m).unwrap(), s.classify_mail(&m).unwrap());
        assert_eq!((&a.label, a.score.to_bits()), (&b.label, b.score.to_bits()));
        assert!(a.score > before, "{} after {before}", a.score);
        // The store holds the model the file holds, bit for bit.
        let whole = s.model().unwrap();
        assert_eq!(
            whole.to_bytes().unwrap(),
            f.model().unwrap().to_bytes().unwrap()
        );
    }
}
