//! Word n-grams (`--ngrams N`) and feature hashing (`--hash-bits B`): the features they
//! make, known by hand on small inputs; pruning of n-grams; models that replay both from
//! the file alone; hashed models learning words training never saw; flags out of range.

use crate::common::{bin, classify_gives_the_training_scores, data, stderr_of_failure, stdout_of};
use proptest::prelude::*;
use rosenblatt::features::{StreamVectorizer, vectorize};
use rosenblatt::input::Document;
use rosenblatt::input::mail::{MailRules, read_message_bytes};
use rosenblatt::learn::{AnyLearner, Bias, Check, Perceptron, Schedule};
use rosenblatt::model::Model;
use rosenblatt::text::{Analyzer, Source, Step};
use rosenblatt::training;
use rosenblatt::training::TrainConfig;
use rosenblatt::vocab::VocabConfig;
use std::collections::BTreeMap;
use std::path::Path;

/// Words, lowercase, then `extra` steps, reading `source`.
fn analyzer(source: Source, extra: &[Step]) -> Analyzer {
    let mut b = Analyzer::builder(source)
        .step(Step::Words)
        .step(Step::Lowercase);
    for &s in extra {
        b = b.step(s);
    }
    b.build().unwrap()
}

fn tokens(a: &Analyzer, d: &Document) -> Vec<String> {
    let mut out = Vec::new();
    a.tokens(d, &mut |t| out.push(t.to_string()));
    out
}

/// The `.vocab` file `vectorize` writes beside OUT: feature → document frequency.
fn vocab_file(out: &Path) -> Vec<(String, u32)> {
    let text = std::fs::read_to_string(format!("{}.vocab", out.display())).unwrap();
    text.lines()
        .map(|l| {
            let (w, df) = l.split_once('\t').unwrap();
            (w.to_string(), df.parse().unwrap())
        })
        .collect()
}

#[test]
fn bigrams_of_a_short_text_are_known() {
    let a = analyzer(Source::Text, &[Step::Ngrams(2)]);
    let d = Document::new("d", "Click HERE, click here now", None);
    assert_eq!(
        tokens(&a, &d),
        [
            "click",
            "here",
            "click here",
            "click",
            "here click",
            "here",
            "click here",
            "now",
            "here now"
        ]
    );
    let a3 = analyzer(Source::Text, &[Step::Ngrams(3)]);
    let d = Document::new("d", "new york city", None);
    assert_eq!(
        tokens(&a3, &d),
        [
            "new",
            "york",
            "new york",
            "city",
            "york city",
            "new york city"
        ]
    );
}

#[test]
fn mail_n_grams_never_join_two_fields_or_header_and_body() {
    let msg = b"From: Desk <desk@example.com>\n\
Subject: Cheap meds\n\
\n\
buy now\n";
    let rules = MailRules::default();
    let doc = read_message_bytes(msg, "m", Some("spam"), &rules)
        .corpus
        .docs
        .remove(0);
    let a = analyzer(Source::Mail(rules), &[Step::Ngrams(2)]);
    // The body, then each header field with its prefix, then the tags as they are. The
    // From field reads "desk desk example.com": its bigrams are its own, and no bigram
    // joins the body's last word to a field, a field to the next, or two tags.
    assert_eq!(
        tokens(&a, &doc),
        [
            "buy",
            "now",
            "buy now",
            "from:desk",
            "from:desk",
            "from:desk desk",
            "from:example.com",
            "from:desk example.com",
            "subject:cheap",
            "subject:meds",
            "subject:cheap meds",
            "from_domain:example.com",
            "hdr:from",
            "hdr:subject",
            "mail:parts=1",
            "mail:size=2^6"
        ]
    );
}

#[test]
fn n_grams_are_pruned_as_words_are() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tiny.svm");
    bin()
        .args(["vectorize", "--ngrams", "2", "--min-df", "2", "-o"])
        .arg(&out)
        .arg(data("tiny"))
        .assert()
        .success();
    // By hand from the twelve tiny documents: the only pairs of adjacent words found in
    // two documents ("WIN a FREE prize now, click here" and "Click here for free
    // credit, …"; "a free" in s1 and s4; "claim your" in s2 and s5; "prize now" in s1
    // and s2). Every other pair is in one document and pruned with the rare words.
    let grams: BTreeMap<String, u32> = vocab_file(&out)
        .into_iter()
        .filter(|(w, _)| w.contains(' '))
        .collect();
    let expect: BTreeMap<String, u32> = [
        ("a free", 2),
        ("claim your", 2),
        ("click here", 2),
        ("prize now", 2),
    ]
    .into_iter()
    .map(|(w, df)| (w.to_string(), df))
    .collect();
    assert_eq!(grams, expect);
    // --max-features keeps the most frequent features, n-grams ranked with the words:
    // document frequency first (free and the 6, now 5, claim 3), then the feature itself
    // among those of df 2 ("a" < "a free" < "call").
    bin()
        .args(["vectorize", "--ngrams", "2", "--max-features", "7", "-o"])
        .arg(&out)
        .arg(data("tiny"))
        .assert()
        .success();
    let top: Vec<String> = vocab_file(&out).into_iter().map(|(w, _)| w).collect();
    assert_eq!(top, ["free", "the", "now", "claim", "a", "a free", "call"]);
}

/// A perceptron config over `analyzer` (three epochs) on idf-weighted unit-length rows.
fn config(analyzer: Analyzer) -> TrainConfig {
    TrainConfig {
        analyzer,
        vocab: VocabConfig::default(),
        learner: AnyLearner::Perceptron(Perceptron {
            eta: 1.0,
            bias: Bias::Augmented,
            schedule: Schedule::Epochs(3),
            ..Default::default()
        })
        .check()
        .unwrap(),
        positive: None,
        options: String::new(),
        // Weighted and scaled, so hashed ids' idf weights travel through the file too.
        geometry: rosenblatt::features::GeometrySpec::IDF_L2,
        term_counts: Default::default(),
        workers: None,
        threshold: None,
        calibrate: false,
    }
}

#[test]
fn an_n_gram_model_classifies_its_training_files_with_the_training_scores() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.model");
    bin()
        .args(["train", "--ngrams", "2", "-o"])
        .arg(&model)
        .arg(data("tiny"))
        .assert()
        .success();
    let m = Model::load(&model).unwrap();
    assert_eq!(
        m.analyzer().steps(),
        [Step::Words, Step::Lowercase, Step::Ngrams(2)]
    );
    let inspect = stdout_of(bin().args(["inspect", "-m"]).arg(&model));
    assert!(
        inspect.contains("analyzer       text → words → lowercase → ngrams(2)"),
        "{inspect}"
    );
    // The same training in the library: its training rows' scores are what `classify`
    // gives the files, through the model file alone.
    classify_gives_the_training_scores(&model, &m);
    assert!(m.vocab().get("click here").is_some());
}

#[test]
fn hashed_ids_are_below_two_to_the_b_and_the_same_in_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.svm"), dir.path().join("b.svm"));
    for out in [&a, &b] {
        bin()
            .args(["vectorize", "--hash-bits", "6", "--ngrams", "2", "-o"])
            .arg(out)
            .arg(data("tiny"))
            .assert()
            .success();
    }
    let (ta, tb) = (
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
    );
    assert_eq!(ta, tb);
    assert_eq!(ta.lines().count(), 12);
    for line in ta.lines() {
        for pair in line.split(' ').skip(1) {
            let id: u32 = pair.split(':').next().unwrap().parse().unwrap();
            // SVMlight ids are 1-based: 1 to 2^6.
            assert!((1..=64).contains(&id), "{line}");
        }
    }
    let vocab = vocab_file(&a);
    assert_eq!(vocab.len(), 64);
    assert_eq!(vocab[5].0, "#5");
    // "free" is in six documents: its id (FNV-1a, folded to 6 bits) counts at least six.
    let free = rosenblatt::text::Hashing::new(6).unwrap().id("free");
    assert!(vocab[free as usize].1 >= 6);
}

/// Documents over a small vocabulary, both classes present, at least one of them with a
/// word (a corpus of empty documents is refused before any model is made).
fn corpus() -> impl Strategy<Value = Vec<Document>> {
    crate::properties::labelled_docs(300)
        .prop_filter("a corpus with a word", |docs| {
            docs.iter().any(|d| !d.text.is_empty())
        })
        .prop_map(|mut out| {
            out[0].labels = vec!["spam".into()];
            out[1].labels = vec!["ham".into()];
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Hashing gives the same scores after save → load: the model file alone replays the
    /// n-grams and the hash.
    #[test]
    fn hashing_gives_the_same_scores_after_save_and_load(
        docs in corpus(),
        bits in 1u8..=12,
        n in 1u8..=3,
    ) {
        let mut steps = Vec::new();
        if n > 1 {
            steps.push(Step::Ngrams(n));
        }
        steps.push(Step::Hash(bits));
        let t = training::train(&docs, &config(analyzer(Source::Text, &steps)), vec![]).unwrap();
        prop_assert_eq!(t.model.vocab().len(), 1 << bits);
        prop_assert!(t.matrix.binary().unwrap().indices().iter().all(|&j| j < 1 << bits));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.model");
        t.model.save(&path).unwrap();
        let loaded = Model::load(&path).unwrap();
        prop_assert_eq!(&loaded.analyzer(), &t.model.analyzer());
        let x1 = training::vectorize_for(&t.model, &docs).matrix;
        let x2 = training::vectorize_for(&loaded, &docs).matrix;
        prop_assert_eq!(&x1, &t.matrix);
        prop_assert_eq!(&x1, &x2);
        prop_assert_eq!(t.model.decide_rows(&x1), loaded.decide_rows(&x2));
        for j in 0..1u32 << bits {
            prop_assert_eq!(loaded.vocab().df(j), t.model.vocab().df(j));
        }
    }

    /// The one-pass training vectorizer and counting then vectorizing agree under
    /// n-grams and hashing, document frequencies included.
    #[test]
    fn one_pass_equals_two_pass_with_n_grams_and_hashing(
        docs in corpus(),
        cut in 0usize..300,
        bits in proptest::option::of(1u8..=12),
    ) {
        let mut steps = vec![Step::Ngrams(2)];
        steps.extend(bits.map(Step::Hash));
        let a = analyzer(Source::Text, &steps);
        let cfg = VocabConfig::default();
        let vocab = rosenblatt::training::fit_vocab(&a, &cfg, &docs);
        let two = vectorize(&a, &vocab, &docs).matrix;
        let mut s = StreamVectorizer::new(a.clone());
        let cut = cut.min(docs.len());
        s.push(&docs[..cut]);
        s.push(&docs[cut..]);
        let (v1, one) = s.finish(&cfg);
        prop_assert_eq!(&one, &two);
        prop_assert_eq!((v1.len(), v1.documents()), (vocab.len(), vocab.documents()));
        prop_assert_eq!(v1.hashing(), vocab.hashing());
        for id in 0..vocab.len() as u32 {
            prop_assert_eq!(v1.word(id), vocab.word(id));
            // Counting per id is exact: each document counts an id once.
            prop_assert_eq!(v1.df(id), vocab.df(id));
        }
    }
}

#[test]
fn learn_on_a_hashed_model_weighs_a_word_training_never_saw() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.model");
    // The perceptron on rows as stored: `learn` takes its ±1 steps.
    bin()
        .args(["train", "--hash-bits", "16", "--learner", "perceptron"])
        .args(["--weighting", "binary", "--normalize", "none", "-o"])
        .arg(&model)
        .arg(data("tiny"))
        .assert()
        .success();
    let score = |text: &str| -> f32 {
        let f = dir.path().join("q.txt");
        std::fs::write(&f, text).unwrap();
        let out = String::from_utf8(
            bin()
                .args(["classify", "-m"])
                .arg(&model)
                .arg(&f)
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        out.trim_end().rsplit('\t').next().unwrap().parse().unwrap()
    };
    // Neither word is in the tiny corpus: both score the bias alone.
    let (before, other) = (score("zyzzyva"), score("quokka"));
    assert_eq!(before, other);
    let msg = dir.path().join("new.txt");
    std::fs::write(&msg, "zyzzyva").unwrap();
    let out = stdout_of(bin().args(["learn", "--spam", "-m"]).arg(&model).arg(&msg));
    assert!(out.contains("1 update(s), 0 new word(s)"), "{out}");
    // The update gave zyzzyva's id +1 and the bias +1 (a zero or negative score was a
    // mistake for spam): zyzzyva now scores one more than another unseen word.
    let (after, other_after) = (score("zyzzyva"), score("quokka"));
    assert_eq!(after, other_after + 1.0);
    assert!(after > before);
    let m = Model::load(&model).unwrap();
    assert_eq!((m.vocab().len(), m.meta().learned), (1 << 16, 1));
}

#[test]
fn inspect_names_hashed_features_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.model");
    bin()
        .args(["train", "--hash-bits", "12", "--ngrams", "2", "-o"])
        .arg(&model)
        .arg(data("tiny"))
        .assert()
        .success();
    let out = stdout_of(bin().args(["inspect", "--top", "3", "-m"]).arg(&model));
    assert!(out.contains("vocabulary     2^12 hashed ids"), "{out}");
    assert!(
        out.contains("analyzer       text → words → lowercase → ngrams(2) → hash(12)"),
        "{out}"
    );
    let free = rosenblatt::text::Hashing::new(12).unwrap().id("free");
    assert!(out.contains(&format!("  #{free}\n")), "{out}");
}

#[test]
fn flags_out_of_range_are_refused_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.model");
    let cases: [(&[&str], &str); 5] = [
        (
            &["--hash-bits", "40"],
            "--hash-bits must be 0 (a vocabulary of words) or from 1 to 28 (2^B feature \
             ids), got 40",
        ),
        (
            &["--ngrams", "0"],
            "--ngrams must be from 1 (words only) to 8, got 0",
        ),
        (
            &["--ngrams", "9"],
            "--ngrams must be from 1 (words only) to 8, got 9",
        ),
        (
            &["--hash-bits", "18", "--min-df", "2"],
            "--min-df and --max-features prune a vocabulary of words, and --hash-bits keeps \
             no words (every hashed id stays): give one or the other",
        ),
        (
            &["--hash-bits", "18", "--max-features", "100"],
            "give one or the other",
        ),
    ];
    for (flags, sentence) in cases {
        for cmd in ["train", "vectorize"] {
            let err = stderr_of_failure(
                bin()
                    .arg(cmd)
                    .args(flags)
                    .arg("-o")
                    .arg(&model)
                    .arg(data("tiny")),
            );
            assert!(err.contains(sentence), "{cmd} {flags:?}: {err}");
        }
    }
    assert!(!model.exists());
    let svm = dir.path().join("x.svm");
    std::fs::write(&svm, "+1 1:1\n-1 2:1\n").unwrap();
    let err = stderr_of_failure(
        bin()
            .args(["train", "--ngrams", "2", "-o"])
            .arg(&model)
            .arg(&svm),
    );
    assert!(
        err.contains("--features and --hash-bits shape a vocabulary; SVMlight rows have none"),
        "{err}"
    );
}
