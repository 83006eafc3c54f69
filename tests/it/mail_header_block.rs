//! Messages whose header block is followed directly by the body, with no empty line
//! between them (as exported corpora often have them): the body is read as body text,
//! through `vectorize --spam` on message files and on an mbox, with LF and CRLF line
//! endings and folded header fields; a message with its empty line reads as before.

use crate::common::{bin, stdout_of};
use rosenblatt::input::Document;
use rosenblatt::input::mail::{MailRules, read_mail};
use std::path::Path;

/// The features `vectorize --spam PATH` finds in `PATH` (a message file, a folder or an
/// mbox), read from the vocabulary it writes.
fn vectorized(path: &Path) -> Vec<String> {
    let out = path.with_extension("svm");
    stdout_of(
        bin()
            .args(["vectorize", "-o"])
            .arg(&out)
            .arg("--spam")
            .arg(path),
    );
    let vocab = std::fs::read_to_string(format!("{}.vocab", out.display())).unwrap();
    vocab
        .lines()
        .map(|l| l.split_once('\t').unwrap().0.to_string())
        .collect()
}

/// The features of one message file holding `raw`.
fn message_features(raw: &[u8]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let spam = dir.path().join("spam");
    std::fs::create_dir(&spam).unwrap();
    std::fs::write(spam.join("1"), raw).unwrap();
    vectorized(&spam)
}

fn has(features: &[String], f: &str) -> bool {
    features.iter().any(|x| x == f)
}

/// Asserts that each of `want` is among `features` and none of `not`.
fn check(features: &[String], want: &[&str], not: &[&str]) {
    for f in want {
        assert!(has(features, f), "{f} missing from {features:?}");
    }
    for f in not {
        assert!(!has(features, f), "{f} unexpected in {features:?}");
    }
}

fn tokens(d: &Document) -> Vec<String> {
    let mut out = Vec::new();
    rosenblatt::text::Analyzer::default().tokens(d, &mut |t| out.push(t.to_string()));
    out
}

/// Features of the body words and subject of "Subject: cheap meds", "buy viagra now".
const CHEAP_MEDS: [&str; 5] = ["buy", "viagra", "now", "subject:cheap", "subject:meds"];

/// What a lost body looked like: no body text, and the body read as a broken header field.
const LOST_BODY: [&str; 2] = ["mail:no_body_text", "mail:encoding_problem"];

#[test]
fn body_text_right_after_the_header_fields_is_body() {
    let f = message_features(b"Subject: cheap meds\nbuy viagra now\n");
    check(&f, &CHEAP_MEDS, &LOST_BODY);
    check(&f, &["hdr:subject"], &["subject:now", "hdr:buy"]);
}

#[test]
fn body_text_right_after_crlf_header_fields_is_body() {
    let f = message_features(b"Subject: cheap meds\r\nbuy viagra now\r\n");
    check(&f, &CHEAP_MEDS, &LOST_BODY);
    // More fields, and a body of several lines.
    let f = message_features(
        b"From: Pharmacy <sales@meds.example>\r\nSubject: cheap meds\r\n\
          buy viagra now\r\nlowest prices\r\n",
    );
    check(
        &f,
        &[
            &CHEAP_MEDS[..],
            &["lowest", "prices", "from_domain:meds.example"],
        ]
        .concat(),
        &LOST_BODY,
    );
}

#[test]
fn a_header_looking_body_line_after_the_empty_line_stays_body() {
    for raw in [
        &b"Subject: lunch\nFrom: ann@example.org\n\nHi: John\nsee you at noon\n"[..],
        b"Subject: lunch\r\nFrom: ann@example.org\r\n\r\nHi: John\r\nsee you at noon\r\n",
    ] {
        let f = message_features(raw);
        check(
            &f,
            &[
                "hi",
                "john",
                "see",
                "noon",
                "subject:lunch",
                "from_domain:example.org",
            ],
            &[
                "hdr:hi",
                "hi:john",
                "mail:no_body_text",
                "mail:encoding_problem",
            ],
        );
    }
}

#[test]
fn mbox_messages_without_the_empty_line_keep_their_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let mbox = dir.path().join("spam.mbox");
    std::fs::write(
        &mbox,
        "From spammer@meds.example Mon Jan  7 10:00:00 2008\n\
         From: spammer@meds.example\n\
         Subject: cheap meds\n\
         buy viagra now\n\
         \n\
         From friend@example.org Tue Jan  8 11:00:00 2008\n\
         Subject: weekend\n\
         hiking on saturday\n",
    )
    .unwrap();
    let f = vectorized(&mbox);
    check(
        &f,
        &[&CHEAP_MEDS[..], &["hiking", "saturday", "subject:weekend"]].concat(),
        &LOST_BODY,
    );
    // Each message keeps its own body, and the envelope line is still not content.
    let m = read_mail(&mbox, Some("spam"), &MailRules::default()).unwrap();
    assert!(m.unparsed.is_empty());
    let docs: Vec<Vec<String>> = m.corpus.docs.iter().map(tokens).collect();
    assert_eq!(docs.len(), 2);
    check(
        &docs[0],
        &CHEAP_MEDS,
        &["hiking", "mon", "mail:no_body_text"],
    );
    check(
        &docs[1],
        &["hiking", "saturday"],
        &["buy", "tue", "mail:no_body_text"],
    );
}

#[test]
fn a_folded_field_then_body_text_keeps_both() {
    for raw in [
        &b"Subject: cheap\n\tmeds\nbuy viagra now\n"[..],
        b"Subject: cheap\r\n meds\r\nbuy viagra now\r\n",
    ] {
        let f = message_features(raw);
        check(&f, &CHEAP_MEDS, &LOST_BODY);
    }
}

/// Messages in the style of preprocessed public corpora (Ling-Spam, Enron): punctuation
/// spaced out, the body right after the subject; `http : / / www` and `note : …` are body
/// lines, not header fields in the obsolete syntax.
#[test]
fn spaced_colon_lines_of_preprocessed_mail_are_body() {
    const NOT_FIELDS: [&str; 7] = [
        "hdr:http",
        "hdr:note",
        "http:www",
        "note:meeting",
        "note:friday",
        "mail:no_body_text",
        "mail:encoding_problem",
    ];
    for raw in [
        // The whole body is one such line.
        &b"Subject: re : 2 . 882 s - > np np\nhttp : / / www . example . com\n"[..],
        b"Subject: re : 2 . 882 s - > np np\r\nhttp : / / www . example . com\r\n",
        // Such lines first, a paragraph after an empty line.
        b"Subject: re : 2 . 882 s - > np np\nhttp : / / www . example . com\n\
          note : the meeting is moved to friday\n\nsee you there\n",
    ] {
        let f = message_features(raw);
        check(
            &f,
            &["http", "www", "example", "com", "subject:np", "subject:882"],
            &NOT_FIELDS,
        );
        // Read through the library: the body's words are the message's tokens.
        let m = rosenblatt::input::mail::read_message_bytes(raw, "m", None, &MailRules::default());
        let t = tokens(&m.corpus.docs[0]);
        check(&t, &["http", "www", "example", "com"], &NOT_FIELDS);
    }
    let f = message_features(
        b"Subject: lunch\nnote : the meeting is moved to friday\n\nsee you there\n",
    );
    check(
        &f,
        &["note", "meeting", "friday", "see", "subject:lunch"],
        &NOT_FIELDS,
    );
}
