//! Which header fields give words: the routing fields are left out by default, the
//! `--header-fields` groups choose others, and the choice is recorded in the model, so
//! `classify`, `eval` and `learn` read messages the way training did.

use crate::common::{bin, stderr_of_failure, stdout_of, train_filter};
use rosenblatt::input::Document;
use rosenblatt::input::mail::{FieldGroup, MailRules, read_message_bytes};
use rosenblatt::model::Model;
use rosenblatt::text::Source;
use std::path::{Path, PathBuf};

/// A message with routing, sender, recipient, subject and other fields; only the routing
/// fields name `relay`.
fn message(relay: &str, subject: &str, body: &str) -> String {
    format!(
        "Return-Path: <bounce@{relay}>\n\
         Delivered-To: trap@collector.example\n\
         Received: from {relay} (mx.{relay} [10.0.0.1])\n\tby mail.collector.example with SMTP\n\
         Received: from localhost by mail.collector.example\n\
         X-Original-To: trap@collector.example\n\
         From: Sender <someone@mail.example>\n\
         To: reader@collector.example\n\
         Subject: {subject}\n\
         X-Mailer: quuxmail 2\n\
         Date: Mon, 7 Jan 2002 10:00:00 +0000\n\
         \n\
         {body}\n"
    )
}

/// The analyzed tokens of `raw` parsed under `rules`.
fn tokens(raw: &str, rules: &MailRules) -> Vec<String> {
    let d: Document = read_message_bytes(raw.as_bytes(), "m", None, rules)
        .corpus
        .docs
        .remove(0);
    let mut out = Vec::new();
    rosenblatt::text::Analyzer::default().tokens(&d, &mut |t| out.push(t.to_string()));
    out
}

fn with_prefix<'a>(toks: &'a [String], prefix: &str) -> Vec<&'a str> {
    toks.iter()
        .map(String::as_str)
        .filter(|t| t.starts_with(prefix))
        .collect()
}

const ROUTING_PREFIXES: [&str; 4] = [
    "received:",
    "delivered-to:",
    "return-path:",
    "x-original-to:",
];

#[test]
fn by_default_routing_fields_and_recipients_mailboxes_give_nothing() {
    let raw = message("relay.example", "cheap offer", "hello there");
    let t = tokens(&raw, &MailRules::default());
    for p in ROUTING_PREFIXES {
        assert!(with_prefix(&t, p).is_empty(), "{p} in {t:?}");
    }
    for kept in [
        "from:someone",
        "subject:cheap",
        "to:collector.example",
        "x-mailer:quuxmail",
        "hdr:from",
        "hdr:to",
        "hdr:date",
    ] {
        assert!(t.iter().any(|x| x == kept), "{kept} missing from {t:?}");
    }
    // Neither the routing fields' presence, nor the number of hops, nor the mailbox the
    // message was delivered to.
    for gone in [
        "hdr:received",
        "hdr:delivered-to",
        "mail:received=2",
        "to:reader",
    ] {
        assert!(!t.iter().any(|x| x == gone), "{gone} in {t:?}");
    }
    // Rules recorded before the two switches add them all.
    let before = MailRules {
        routing_tags: true,
        recipient_local_parts: true,
        ..MailRules::default()
    };
    let t = tokens(&raw, &before);
    for tag in [
        "hdr:received",
        "hdr:delivered-to",
        "mail:received=2",
        "to:reader",
    ] {
        assert!(t.iter().any(|x| x == tag), "{tag} missing from {t:?}");
    }
    for p in ROUTING_PREFIXES {
        assert!(with_prefix(&t, p).is_empty(), "{p} in {t:?}");
    }
    // Every field: the routing words come back; dates never give words.
    let all = tokens(&raw, &MailRules::with_groups(&FieldGroup::ALL));
    assert!(all.iter().any(|x| x == "received:relay.example"), "{all:?}");
    assert!(all.iter().any(|x| x == "delivered-to:trap"), "{all:?}");
    assert!(with_prefix(&all, "date:").is_empty());
    // Sender and subject only: no recipient, routing or other words.
    let ss = tokens(
        &raw,
        &MailRules::with_groups(&[FieldGroup::Sender, FieldGroup::Subject]),
    );
    assert!(ss.iter().any(|x| x == "subject:offer") && ss.iter().any(|x| x == "from:sender"));
    for p in ROUTING_PREFIXES.into_iter().chain(["to:", "x-mailer:"]) {
        assert!(with_prefix(&ss, p).is_empty(), "{p} in {ss:?}");
    }
    // None: the body and tags only.
    let none = tokens(&raw, &MailRules::with_groups(&[]));
    for p in ROUTING_PREFIXES
        .into_iter()
        .chain(["from:", "to:", "subject:", "x-mailer:"])
    {
        assert!(with_prefix(&none, p).is_empty(), "{p} in {none:?}");
    }
    assert!(none.iter().any(|x| x == "hdr:subject"));
    assert!(none.iter().any(|x| x == "hello"));
}

/// Spam and ham folders in `dir` whose messages come through different relays.
fn corpus(dir: &Path) -> (PathBuf, PathBuf) {
    let (spam, ham) = (dir.join("spam"), dir.join("ham"));
    std::fs::create_dir_all(&spam).unwrap();
    std::fs::create_dir_all(&ham).unwrap();
    for i in 0..10 {
        let s = message(
            "spamrelay.example",
            &format!("cheap pills {i}"),
            "buy cheap pills now",
        );
        let h = message(
            "goodrelay.example",
            &format!("minutes {i}"),
            "the minutes of the meeting",
        );
        std::fs::write(spam.join(format!("{i}.eml")), s).unwrap();
        std::fs::write(ham.join(format!("{i}.eml")), h).unwrap();
    }
    (spam, ham)
}

fn train(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let (spam, ham) = corpus(dir);
    let model = dir.join(name);
    train_filter(&spam, &ham, &model, flags);
    model
}

fn rules_of(model: &Path) -> MailRules {
    let m = Model::load(model).unwrap();
    m.analyzer().source().mail_rules().unwrap().clone()
}

#[test]
fn train_records_the_fields_and_learn_reads_new_mail_by_them() {
    let dir = tempfile::tempdir().unwrap();
    // The default: routing words left out, recorded as skipped fields.
    let default = train(dir.path(), "default.model", &[]);
    assert_eq!(rules_of(&default), MailRules::default());
    let m = Model::load(&default).unwrap();
    assert!(m.vocab().get("received:spamrelay.example").is_none());
    assert!(m.vocab().get("to:reader").is_none() && m.vocab().get("hdr:received").is_none());
    assert!(m.vocab().get("to:collector.example").is_some() && m.vocab().get("hdr:to").is_some());
    // Sender and subject only.
    let model = train(
        dir.path(),
        "ss.model",
        &["--header-fields", "subject,sender"],
    );
    let rules = rules_of(&model);
    assert_eq!(
        rules,
        MailRules::with_groups(&[FieldGroup::Sender, FieldGroup::Subject])
    );
    let m = Model::load(&model).unwrap();
    assert!(m.vocab().get("subject:pills").is_some());
    assert!(m.vocab().get("to:reader").is_none() && m.vocab().get("x-mailer:quuxmail").is_none());
    let text = stdout_of(bin().args(["inspect", "--model"]).arg(&model));
    assert!(
        text.contains("mail rules     only fields of the sender, subject groups (≤"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout_of(
        bin().args(["inspect", "--json", "--model"]).arg(&model),
    ))
    .unwrap();
    assert_eq!(
        json["analyzer"]["source"]["mail"]["only_fields"],
        serde_json::json!(["from", "sender", "reply-to", "subject"])
    );
    // `learn` a ham-looking message as spam (a mistake, so its words are added): the new
    // subject word joins the vocabulary, the new relay and mailer words do not.
    let msg = dir.path().join("new.eml");
    std::fs::write(
        &msg,
        message(
            "novelrelay.example",
            "zorblatt minutes",
            "the minutes of the meeting",
        )
        .replace("quuxmail", "frobmailer"),
    )
    .unwrap();
    bin()
        .args(["learn", "--spam", "-m"])
        .arg(&model)
        .arg(&msg)
        .assert()
        .success();
    let m = Model::load(&model).unwrap();
    assert!(m.vocab().get("subject:zorblatt").is_some());
    assert!(m.vocab().get("received:novelrelay.example").is_none());
    assert!(m.vocab().get("x-mailer:frobmailer").is_none());
    assert_eq!(rules_of(&model), rules, "learn keeps the recorded rules");
}

#[test]
fn classify_and_eval_read_mail_under_the_recorded_fields() {
    let dir = tempfile::tempdir().unwrap();
    // Trained on every field, the relay's words count.
    let all = train(dir.path(), "all.model", &["--header-fields", "all"]);
    let m = Model::load(&all).unwrap();
    assert!(m.vocab().get("received:spamrelay.example").is_some());
    // The same weights, recorded as leaving the routing fields out.
    let mut parts = m.clone().into_parts();
    parts.analyzer = m.analyzer().clone().with_source(Source::mail());
    let routing_out = Model::new(parts).unwrap();
    let no_routing = dir.path().join("no-routing.model");
    routing_out.save(&no_routing).unwrap();
    let score = |model: &Path, msg: &str| -> f64 {
        let p = dir.path().join("msg.eml");
        std::fs::write(&p, msg).unwrap();
        let out = bin()
            .args(["classify", "-m"])
            .arg(model)
            .arg(&p)
            .output()
            .unwrap();
        let line = String::from_utf8(out.stdout).unwrap();
        line.trim_end()
            .rsplit('\t')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let through_spam_relay = message("spamrelay.example", "minutes", "the minutes");
    let through_good_relay = message("goodrelay.example", "minutes", "the minutes");
    // Under every field the relay moves the score; under the recorded rules it cannot.
    assert!(score(&all, &through_spam_relay) > score(&all, &through_good_relay));
    assert_eq!(
        score(&no_routing, &through_spam_relay),
        score(&no_routing, &through_good_relay)
    );
    // eval reads the test mail under the model's rules too: the same figures for mail that
    // differs only in its routing fields.
    let (spam, ham) = corpus(dir.path());
    let moved = dir.path().join("moved");
    std::fs::create_dir_all(&moved).unwrap();
    for i in 0..10 {
        let s = message(
            "goodrelay.example",
            &format!("cheap pills {i}"),
            "buy cheap pills now",
        );
        std::fs::write(moved.join(format!("{i}.eml")), s).unwrap();
    }
    let eval = |spam_dir: &Path| -> serde_json::Value {
        serde_json::from_str(&stdout_of(
            bin()
                .args(["eval", "--json", "-m"])
                .arg(&no_routing)
                .arg("--spam")
                .arg(spam_dir)
                .arg("--ham")
                .arg(&ham),
        ))
        .unwrap()
    };
    assert_eq!(eval(&spam)["auc"], eval(&moved)["auc"]);
    assert_eq!(eval(&spam)["accuracy"], eval(&moved)["accuracy"]);
}

#[test]
fn online_eval_starts_from_an_empty_filter_with_the_fields_given() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let mut index = String::new();
    for i in 0..10 {
        index.push_str(&format!("spam spam/{i}.eml\nham ham/{i}.eml\n"));
    }
    let index_path = dir.path().join("index");
    std::fs::write(&index_path, index).unwrap();
    for (flags, want) in [
        (&[][..], MailRules::default()),
        (
            &["--header-fields", "all"][..],
            MailRules::with_groups(&FieldGroup::ALL),
        ),
    ] {
        let saved = dir.path().join("online.model");
        bin()
            .args(["eval", "--online"])
            .arg(&index_path)
            .arg("--save")
            .arg(&saved)
            .args(flags)
            .assert()
            .success();
        // The online filter reads the first 1000 bytes of each body unless told otherwise,
        // with the tags of left-out fields and the recipients' local parts.
        let want = MailRules {
            max_body_bytes: rosenblatt::incremental::OnlineFilter::TRUNCATE,
            routing_tags: true,
            recipient_local_parts: true,
            ..want
        };
        assert_eq!(rules_of(&saved), want, "{flags:?}");
        std::fs::remove_file(&saved).unwrap();
    }
}

#[test]
fn bad_header_fields_name_the_flag_and_the_groups() {
    let dir = tempfile::tempdir().unwrap();
    let (spam, ham) = corpus(dir.path());
    let err = stderr_of_failure(
        bin()
            .args(["train", "-o"])
            .arg(dir.path().join("x.model"))
            .arg("--spam")
            .arg(&spam)
            .arg("--ham")
            .arg(&ham)
            .args(["--header-fields", "sender,headers"]),
    );
    assert!(err.contains("--header-fields"), "{err}");
    assert!(err.contains("no field group `headers`"), "{err}");
    assert!(
        err.contains("routing, sender, recipients, subject, other"),
        "{err}"
    );
    // Not mail: the flag has nothing to choose from.
    let text = dir.path().join("text");
    std::fs::create_dir_all(text.join("a")).unwrap();
    std::fs::create_dir_all(text.join("b")).unwrap();
    std::fs::write(text.join("a/1.txt"), "one").unwrap();
    std::fs::write(text.join("b/1.txt"), "two").unwrap();
    let err = stderr_of_failure(
        bin()
            .args(["train", "--header-fields", "all", "-o"])
            .arg(dir.path().join("t.model"))
            .arg(&text),
    );
    assert!(
        err.contains("--header-fields and --truncate apply to mail"),
        "{err}"
    );
    // A saved filter keeps its own fields.
    let model = train(dir.path(), "f.model", &[]);
    let err = stderr_of_failure(
        bin()
            .args(["eval", "--header-fields", "all", "-m"])
            .arg(&model)
            .arg("--spam")
            .arg(&spam)
            .arg("--ham")
            .arg(&ham),
    );
    assert!(
        err.contains("--header-fields and --truncate choose how a new filter reads mail"),
        "{err}"
    );
}
