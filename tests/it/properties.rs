//! Property tests over the library: parallel paths equal sequential ones, and a saved
//! model scores exactly as the one in memory.

use proptest::prelude::*;
use rosenblatt::eval::{scores, scores_sequential};
use rosenblatt::features::vectorize;
use rosenblatt::input::Document;
use rosenblatt::learn::{AnyLearner, Bias, Check, Perceptron, Schedule};
use rosenblatt::model::Model;
use rosenblatt::text::Analyzer;
use rosenblatt::training;
use rosenblatt::training::TrainConfig;
use rosenblatt::vocab::VocabConfig;

/// A small vocabulary with non-ASCII words, shared by the property tests.
pub(crate) const WORDS: &[&str] = &[
    "free",
    "win",
    "prize",
    "meeting",
    "lunch",
    "report",
    "café",
    "Ünïcode",
    "now",
    "call",
    "x1",
];

fn corpus() -> impl Strategy<Value = Vec<Document>> {
    labelled_docs(700)
}

/// From 2 to `max` − 1 documents of up to 11 words of [`WORDS`], each labelled spam or ham
/// at random; shared by the property tests.
pub(crate) fn labelled_docs(max: usize) -> impl Strategy<Value = Vec<Document>> {
    proptest::collection::vec(
        (
            proptest::collection::vec(0..WORDS.len(), 0..12),
            any::<bool>(),
        ),
        2..max,
    )
    .prop_map(|docs| {
        docs.into_iter()
            .enumerate()
            .map(|(i, (ws, spam))| {
                let text: Vec<&str> = ws.iter().map(|&w| WORDS[w]).collect();
                Document::new(
                    i.to_string(),
                    text.join(" "),
                    Some(if spam { "spam" } else { "ham" }),
                )
            })
            .collect()
    })
}

fn config() -> TrainConfig {
    TrainConfig {
        analyzer: Analyzer::default(),
        vocab: VocabConfig::default(),
        learner: AnyLearner::Perceptron(Perceptron {
            eta: 1.0,
            bias: Bias::Augmented,
            schedule: Schedule::Epochs(3),
            shuffle: Some(42),
        })
        .check()
        .unwrap(),
        positive: None,
        options: String::new(),
        geometry: Default::default(),
        term_counts: Default::default(),
        workers: None,
        threshold: None,
        calibrate: false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn parallel_scoring_equals_sequential(mut docs in corpus()) {
        // Make sure both classes exist.
        docs[0].labels = vec!["spam".into()];
        docs[1].labels = vec!["ham".into()];
        let a = Analyzer::default();
        let vocab = rosenblatt::training::fit_vocab(&a, &VocabConfig::default(), &docs);
        let x = vectorize(&a, &vocab, &docs).matrix;
        let trained = training::train(&docs, &config(), vec![]).unwrap();
        let rosenblatt::model::Predictor::Binary(m) = &trained.model.predictor() else { panic!() };
        prop_assert_eq!(scores(m, &x), scores_sequential(m, &x));
    }

    #[test]
    fn one_pass_streaming_equals_two_pass(docs in corpus(), cut in 0usize..700, min_df in 1u32..4, max in proptest::option::of(1usize..12), singletons in proptest::option::of(1u64..800)) {
        let a = Analyzer::default();
        let cfg = VocabConfig {
            min_df,
            max_features: max,
            singletons_from: singletons,
        };
        let vocab = rosenblatt::training::fit_vocab(&a, &cfg, &docs);
        let two = vectorize(&a, &vocab, &docs).matrix;
        let mut s = rosenblatt::features::StreamVectorizer::new(a.clone());
        let cut = cut.min(docs.len());
        s.push(&docs[..cut]);
        s.push(&docs[cut..]);
        let (v1, one) = s.finish(&cfg);
        prop_assert_eq!(v1.len(), vocab.len());
        for id in 0..vocab.len() as u32 {
            prop_assert_eq!(v1.word(id), vocab.word(id));
            prop_assert_eq!(v1.df(id), vocab.df(id));
        }
        prop_assert_eq!(one, two);
    }

    #[test]
    fn save_load_gives_identical_scores(mut docs in corpus()) {
        // A corpus of empty documents has no word to learn: training refuses it.
        prop_assume!(docs.iter().any(|d| !d.text.trim().is_empty()));
        docs[0].labels = vec!["spam".into()];
        docs[1].labels = vec!["ham".into()];
        let trained = training::train(&docs, &config(), vec!["mem".into()]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.model");
        trained.model.save(&path).unwrap();
        let loaded = Model::load(&path).unwrap();
        let x1 = training::vectorize_for(&trained.model, &docs).matrix;
        let x2 = training::vectorize_for(&loaded, &docs).matrix;
        prop_assert_eq!(&x1, &x2);
        prop_assert_eq!(trained.model.decide_rows(&x1), loaded.decide_rows(&x2));
        prop_assert_eq!(loaded.meta(), trained.model.meta());
    }
}

#[test]
fn unknown_words_are_ignored_and_counted() {
    let docs = vec![
        Document::new("a", "free prize", Some("spam")),
        Document::new("b", "lunch", Some("ham")),
    ];
    let a = Analyzer::default();
    let vocab = rosenblatt::training::fit_vocab(&a, &VocabConfig::default(), &docs);
    let new = vec![Document::new("c", "free unseen words here", None)];
    let v = vectorize(&a, &vocab, &new);
    assert_eq!(v.unknown_tokens, 3);
    assert_eq!(
        rosenblatt::SparseRows::row(&v.matrix, 0).ids,
        &[vocab.get("free").unwrap()]
    );
}
