//! The word tokenizer's block scanner on every shared corpus: each document gives the
//! tokens of the byte-at-a-time path it replaced and of the Unicode reference path, and
//! vectorizing against a vocabulary gives the same rows and unknown-token counts. Skipped,
//! with a note, where `../shared/corpora` is absent.

use crate::common::shared_corpus;
use rosenblatt::features::{vectorize, vectorize_scalar};
use rosenblatt::input::{Document, Format};
use rosenblatt::text::{Analyzer, Source, Tokenizer};
use rosenblatt::training::fit_vocab;
use rosenblatt::vocab::VocabConfig;
use std::path::PathBuf;

/// Every shared corpus of text, by name: Reuters-21578, SpamAssassin read as mail and as
/// raw files, SMS, and the sentiment corpora.
fn corpora() -> Vec<(String, Vec<Document>)> {
    let mut out = Vec::new();
    if let Some(p) = shared_corpus("reuters21578/sgml") {
        out.push((
            "reuters".into(),
            rosenblatt::input::read_reuters(&p, None).unwrap().docs,
        ));
    }
    if let Some(p) = shared_corpus("spamassassin") {
        let (spam, ham): (Vec<PathBuf>, Vec<PathBuf>) = (
            vec![p.join("spam"), p.join("extra/spam")],
            vec![p.join("ham"), p.join("extra/ham")],
        );
        let mail = rosenblatt::input::mail::read_labelled(&spam, &ham, &Default::default());
        out.push(("spamassassin mail".into(), mail.unwrap().corpus.docs));
        let raw = rosenblatt::input::read(&p.join("ham"), Some(Format::Text)).unwrap();
        out.push(("spamassassin raw ham".into(), raw.docs));
        let raw = rosenblatt::input::read(&p.join("spam"), Some(Format::Text)).unwrap();
        out.push(("spamassassin raw spam".into(), raw.docs));
    }
    if let Some(p) = shared_corpus("sms-spam-collection/SMSSpamCollection") {
        let sms = rosenblatt::input::read(&p, Some(Format::Tsv)).unwrap();
        out.push(("sms".into(), sms.docs));
    }
    for name in ["cr", "mpqa", "rt-2k", "rt-s", "subj"] {
        if let Some(p) = shared_corpus(&format!("sentiment/{name}")) {
            let c = rosenblatt::input::read(&p, Some(Format::Dir)).unwrap();
            out.push((name.into(), c.docs));
        }
    }
    out
}

#[test]
fn every_shared_corpus_tokenizes_as_before() {
    for (name, docs) in corpora() {
        assert!(!docs.is_empty(), "{name}: no documents");
        for lowercase in [true, false] {
            let a = Analyzer::standard(Source::Text, lowercase);
            let words = a.words();
            for d in &docs {
                let (mut now, mut before, mut body, mut reference) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                a.tokens(d, &mut |t| now.push(t.to_string()));
                a.tokens_scalar(d, &mut |t| before.push(t.to_string()));
                assert_eq!(now, before, "{name}: document {}", d.id);
                words.tokens(&d.text, &mut |t| body.push(t.to_string()));
                words.tokens_unicode(&d.text, &mut |t| reference.push(t.to_string()));
                assert_eq!(body, reference, "{name}: document {}", d.id);
            }
        }
    }
}

#[test]
fn every_shared_corpus_vectorizes_to_the_same_rows() {
    for (name, docs) in corpora() {
        let a = Analyzer::default();
        // A vocabulary of the first half, so that the second half has unknown words.
        let vocab = fit_vocab(&a, &VocabConfig::default(), &docs[..docs.len() / 2]);
        let now = vectorize(&a, &vocab, &docs);
        let before = vectorize_scalar(&a, &vocab, &docs);
        assert_eq!(now.matrix, before.matrix, "{name}");
        assert_eq!(now.unknown_tokens, before.unknown_tokens, "{name}");
        assert!(
            now.unknown_tokens > 0,
            "{name}: the test needs unknown words"
        );
    }
}
