//! Spam filters on real mail: readers (mbox escaping, Maildir, MIME decoding, broken input),
//! a never-panicking message parser, `train --spam/--ham`, `classify` exit codes and
//! `--passthrough`, `eval` figures, the TREC online protocol and concurrent `learn`.

use crate::common::{bin, data, stderr_of_failure, stdout_of};
use proptest::prelude::*;
use rosenblatt::input::Document;
use rosenblatt::input::mail::{MailRules, read_mail, read_message_bytes};
use std::path::{Path, PathBuf};

fn tokens(d: &Document) -> Vec<String> {
    let mut out = Vec::new();
    rosenblatt::text::Analyzer::default().tokens(d, &mut |t| out.push(t.to_string()));
    out
}

fn has(d: &Document, tok: &str) -> bool {
    tokens(d).iter().any(|t| t == tok)
}

#[test]
fn a_message_file_with_its_envelope_line_is_named_as_in_a_folder() {
    // A file of one message that starts with `From sender date` is read as an mbox of
    // one: its id is the file's name, as when a folder holds it, not `FILE#1`.
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.eml");
    std::fs::write(
        &one,
        "From alice@example.org Mon Jan  7 10:00:00 2002\nFrom: alice@example.org\n\
         Subject: lunch\n\nnoon?\n",
    )
    .unwrap();
    let direct = read_mail(&one, Some("ham"), &MailRules::default()).unwrap();
    let folder = read_mail(dir.path(), Some("ham"), &MailRules::default()).unwrap();
    assert_eq!(direct.corpus.docs.len(), 1);
    assert_eq!(direct.corpus.docs[0].id, one.display().to_string());
    assert_eq!(folder.corpus.docs[0].id, direct.corpus.docs[0].id);
    assert!(has(&direct.corpus.docs[0], "subject:lunch"));
}

#[test]
fn a_message_reads_the_same_with_or_without_its_envelope_line() {
    // 4,046 bytes of message: `mail:size=2^12` whether or not a 51-byte envelope line
    // (which would take the whole to 4,097 bytes) comes first.
    let envelope = "From akakay54@example.com  Tue Dec  3 11:57:08 2002\n";
    let head = "From: a@example.com\nSubject: offer\n\n";
    let mut message = format!("{head}{}", "x ".repeat((4046 - head.len()) / 2));
    message.extend(std::iter::repeat_n('\n', 4046 - message.len()));
    let bare = read_message_bytes(message.as_bytes(), "m", None, &MailRules::default())
        .corpus
        .docs
        .remove(0);
    let with = format!("{envelope}{message}");
    assert_eq!(with.len(), 4046 + envelope.len());
    let enveloped = read_message_bytes(with.as_bytes(), "m", None, &MailRules::default())
        .corpus
        .docs
        .remove(0);
    assert!(bare.tags.contains(&"mail:size=2^12".to_string()));
    assert_eq!(bare.tags, enveloped.tags);
    assert_eq!(tokens(&bare), tokens(&enveloped));
}

#[test]
fn the_filters_own_verdict_field_gives_no_feature() {
    // Mail delivered through `classify --passthrough` carries `X-Rosenblatt:`, and a
    // sender can forge it: neither a trained nor a taught filter may learn from it.
    let plain = "From: a@example.com\nSubject: offer\n\nbuy now\n";
    let forged = "From: a@example.com\nx-rosenblatt: ham; score=-1.9;\n probability=0.0001\n\
                  Subject: offer\nX-ROSENBLATT: ham\n\nbuy now\n";
    let read = |m: &str| {
        read_message_bytes(m.as_bytes(), "m", None, &MailRules::default())
            .corpus
            .docs
            .remove(0)
    };
    let (a, b) = (read(plain), read(forged));
    assert_eq!(tokens(&a), tokens(&b));
    assert!(!tokens(&b).iter().any(|t| t.contains("rosenblatt")));
    assert!(has(&b, "subject:offer") && has(&b, "buy"));
}

#[test]
fn mbox_splits_unescapes_and_drops_the_envelope() {
    let m = read_mail(
        &data("mail/escaped.mbox"),
        Some("ham"),
        &MailRules::default(),
    )
    .unwrap();
    let docs = &m.corpus.docs;
    assert_eq!(docs.len(), 2);
    assert!(m.unparsed.is_empty());
    assert!(docs[0].id.ends_with("escaped.mbox#1") && docs[1].id.ends_with("escaped.mbox#2"));
    // ">From the minutes" lost one '>', ">>From quoted" kept one.
    assert!(docs[0].text.contains("\nFrom the minutes"));
    assert!(docs[0].text.contains("\n>From quoted twice"));
    assert!(has(&docs[0], "subject:first") && has(&docs[1], "zanzibar"));
    // The envelope line (sender alice@example.org, "Mon Jan 7") is not content: only the
    // From: field's address shows up, as a prefixed token.
    assert!(!has(&docs[0], "mon") && has(&docs[0], "from:alice"));
    assert_eq!(docs[1].labels, ["ham"]);
}

#[test]
fn maildir_reads_cur_and_new_and_skips_tmp() {
    let m = read_mail(&data("mail/maildir"), Some("ham"), &MailRules::default()).unwrap();
    let subjects: Vec<bool> = m
        .corpus
        .docs
        .iter()
        .map(|d| has(d, "subject:progress"))
        .collect();
    assert_eq!(m.corpus.docs.len(), 3);
    assert_eq!(subjects, [false, false, false]);
    assert!(has(&m.corpus.docs[2], "lunch"));
    assert!(
        m.corpus.docs[0]
            .tags
            .contains(&"from_domain:lists.example.org".to_string())
    );
}

#[test]
fn base64_html_part_encoded_subject_and_attachment() {
    let m = read_mail(&data("mail/base64_html.eml"), None, &MailRules::default()).unwrap();
    assert!(m.unparsed.is_empty());
    let d = &m.corpus.docs[0];
    // Body: the base64 HTML, decoded and turned into text.
    assert!(has(d, "cheap") && has(d, "pills") && !has(d, "font"));
    // Header: RFC 2047 encoded words decoded to UTF-8, kept apart from the body.
    assert!(has(d, "subject:grüße") && !has(d, "grüße"));
    for tag in [
        "mime:text/html",
        "cte:base64",
        "html:font",
        "url:pills.example.biz",
        "attach:application/pdf",
        "attach_ext:pdf",
        "from_domain:pills.example.biz",
        "mail:html_only",
    ] {
        assert!(
            d.tags.iter().any(|t| t == tag),
            "missing {tag}: {:?}",
            d.tags
        );
    }
    // The attachment's content is skipped.
    assert!(!has(d, "fake"));
}

#[test]
fn invalid_charset_still_gives_the_words() {
    let m = read_mail(&data("mail/bad_charset.eml"), None, &MailRules::default()).unwrap();
    assert!(m.unparsed.is_empty());
    let d = &m.corpus.docs[0];
    assert!(has(d, "plain") && has(d, "words") && has(d, "subject:charset"));
    assert!(d.tags.contains(&"charset:x-no-such-charset-42".to_string()));
}

#[test]
fn empty_message_and_non_mail_are_counted_not_fatal() {
    let e = read_mail(&data("mail/empty.eml"), None, &MailRules::default()).unwrap();
    assert_eq!(e.corpus.docs.len(), 1);
    assert_eq!(e.unparsed.len(), 1);
    assert_eq!(e.unparsed[0].1, "empty message");
    let n = read_mail(&data("mail/not_mail.bin"), None, &MailRules::default()).unwrap();
    assert_eq!((n.corpus.docs.len(), n.unparsed.len()), (1, 1));
    let d = &n.corpus.docs[0];
    // Raw bytes still give tokens ("binary", "tail"), tagged as unparsed.
    assert!(has(d, "binary") && has(d, "tail"));
    assert!(d.tags.contains(&"mail:unparsed".to_string()));
    assert!(read_mail(Path::new("no/such/mailbox"), None, &MailRules::default()).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the bytes, the mail reader returns a document and never panics; a message
    /// it calls parsed has at least one header field.
    #[test]
    fn parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let p = read_message_bytes(&bytes, "x", Some("spam"), &MailRules::default());
        let doc = &p.corpus.docs[0];
        prop_assert_eq!(&doc.labels, &["spam".to_string()]);
        if p.unparsed.is_empty() {
            prop_assert!(doc.tags.iter().any(|t| t.starts_with("hdr:")));
        }
    }

    /// Mail-like bytes reach deeper into the MIME parser: still no panic.
    #[test]
    fn mime_like_input_never_panics(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("Content-Type: multipart/mixed; boundary=b\n".to_string()),
                Just("Content-Type: text/html; charset=gb2312\n".to_string()),
                Just("Content-Transfer-Encoding: base64\n".to_string()),
                Just("Content-Transfer-Encoding: quoted-printable\n".to_string()),
                Just("Subject: =?utf-8?B?w7w=?= =?x?Q?=ZZ?=\n".to_string()),
                Just("\n--b\n".to_string()),
                Just("--b--\n".to_string()),
                Just("\n".to_string()),
                "[ -~]{0,40}\n",
                "<[a-z]{0,5} href=\"http://[a-z.]{0,10}",
            ],
            0..30,
        )
    ) {
        let raw = parts.concat();
        let _ = read_message_bytes(raw.as_bytes(), "y", None, &MailRules::default());
    }
}

/// A small labelled mail set in `dir`: spam and ham folders of distinct vocabularies.
fn write_corpus(dir: &Path, n: usize) -> (PathBuf, PathBuf) {
    let (spam, ham) = (dir.join("spam"), dir.join("ham"));
    std::fs::create_dir_all(&spam).unwrap();
    std::fs::create_dir_all(&ham).unwrap();
    for i in 0..n {
        std::fs::write(spam.join(format!("{i}.eml")), spam_message(i)).unwrap();
        std::fs::write(ham.join(format!("{i}.eml")), ham_message(i)).unwrap();
    }
    (spam, ham)
}

fn spam_message(i: usize) -> String {
    format!(
        "From: Deals <deals{i}@cheap-offers.biz>\nTo: you@example.com\nSubject: FREE \
         CASH NOW {i}\nContent-Type: text/html\n\n<html><font>Win free cash, cheap \
         viagra, click now</font> <a href=\"http://cheap-offers.biz/{i}\">here</a></html>\n"
    )
}

fn ham_message(i: usize) -> String {
    format!(
        "From: Dan <dan@lists.example.org>\nTo: team@example.org\nSubject: meeting \
         agenda {i}\n\nHi team, the agenda for the project meeting is in the wiki. \
         Please review the patch before Thursday.\n"
    )
}

fn train_filter(dir: &Path) -> PathBuf {
    let (spam, ham) = write_corpus(dir, 12);
    let model = dir.join("filter.model");
    bin()
        .args(["train", "--spam"])
        .arg(&spam)
        .arg("--ham")
        .arg(&ham)
        .arg("-o")
        .arg(&model)
        .assert()
        .success();
    model
}

#[test]
fn classify_uses_bogofilter_exit_codes_and_passthrough() {
    let dir = tempfile::tempdir().unwrap();
    let model = train_filter(dir.path());
    let spam = spam_message(99);
    let ham = ham_message(99);
    let out = bin()
        .arg("classify")
        .arg("-m")
        .arg(&model)
        .write_stdin(spam.clone())
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(out).unwrap().starts_with("-\tspam\t"));
    bin()
        .arg("classify")
        .arg("-m")
        .arg(&model)
        .write_stdin(ham.clone())
        .assert()
        .code(1);
    // Every score falls in a wide enough band: unsure.
    bin()
        .args(["classify", "--unsure=-1e9:1e9", "-m"])
        .arg(&model)
        .write_stdin(ham.clone())
        .assert()
        .code(2);
    // Errors are 3 (not clap's 2, which would read as "unsure").
    bin().args(["classify", "--no-such-flag"]).assert().code(3);
    bin()
        .args(["classify", "-m", "no/such/model"])
        .write_stdin(ham.clone())
        .assert()
        .code(3);
    // --passthrough: the message comes back with the header added before the body.
    let out = bin()
        .args(["classify", "--passthrough", "-m"])
        .arg(&model)
        .write_stdin(spam.clone())
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let (head, body) = spam.split_once("\n\n").unwrap();
    assert!(out.starts_with(head), "{out}");
    assert!(out.contains("\nX-Rosenblatt: spam; score="));
    assert!(out.ends_with(&format!("\n\n{body}")));
    // The header's P(spam) is the one `classify --format jsonl` gives, to six places.
    let field = out
        .lines()
        .find(|l| l.starts_with("X-Rosenblatt:"))
        .unwrap();
    let header_p: f64 = field
        .split("; probability=")
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let line = stdout_of(
        bin()
            .args(["classify", "--format", "jsonl", "-m"])
            .arg(&model)
            .write_stdin(spam.clone()),
    );
    let json: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    let jsonl_p = json["probability"].as_f64().unwrap();
    assert!(
        (header_p - jsonl_p).abs() <= 5e-7,
        "{field} against {jsonl_p}"
    );
    // A named mbox of two messages is not glued into one and written back.
    let refused = bin()
        .args(["classify", "--passthrough", "-m"])
        .arg(&model)
        .arg(data("mail/escaped.mbox"))
        .assert()
        .code(3)
        .get_output()
        .stderr
        .clone();
    let refused = String::from_utf8(refused).unwrap();
    assert!(
        refused.contains("escaped.mbox: --passthrough writes back one message"),
        "{refused}"
    );
    // On standard input, as in a delivery chain, it is only warned about: mail must flow.
    let warned = bin()
        .args(["classify", "--passthrough", "-m"])
        .arg(&model)
        .write_stdin(std::fs::read(data("mail/escaped.mbox")).unwrap())
        .assert()
        .code(0)
        .get_output()
        .stderr
        .clone();
    assert!(
        String::from_utf8(warned)
            .unwrap()
            .contains("warning: standard input reads as an mbox")
    );
    // A filter in a delivery chain must not fail on ham: the verdict is in the header.
    let out = bin()
        .args(["classify", "--passthrough", "-m"])
        .arg(&model)
        .write_stdin(ham.clone())
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("\nX-Rosenblatt: ham; score=-")
    );
}

#[test]
fn eval_reports_spam_figures_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let model = train_filter(dir.path());
    let test = dir.path().join("test");
    let (spam, ham) = write_corpus(&test, 5);
    let out = stdout_of(
        bin()
            .args(["eval", "--json", "-m"])
            .arg(&model)
            .arg("--spam")
            .arg(&spam)
            .arg("--ham")
            .arg(&ham),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["documents"], 10);
    assert_eq!(v["accuracy"], 1.0);
    assert_eq!(v["spam_recall"], 1.0);
    assert_eq!(v["ham_fp_rate"], 0.0);
    assert_eq!(v["auc"], 1.0);
    assert_eq!(v["one_minus_roca_pct"], 0.0);
    // A model that is not a spam filter is refused with its name.
    bin()
        .args(["eval", "-m", "no/such.model", "--spam"])
        .arg(&spam)
        .assert()
        .failure();
}

#[test]
fn trec_online_protocol_counts_every_message() {
    let dir = tempfile::tempdir().unwrap();
    let (spam, ham) = write_corpus(dir.path(), 10);
    let mut index = String::new();
    for i in 0..10 {
        index.push_str(&format!("spam spam/{i}.eml\nham ham/{i}.eml\n"));
    }
    std::fs::write(dir.path().join("index"), index).unwrap();
    let _ = (spam, ham);
    let saved = dir.path().join("online.model");
    let out = stdout_of(
        bin()
            .args(["eval", "--json", "--online"])
            .arg(dir.path().join("index"))
            .args(["--learner", "perceptron", "--block", "8"])
            .arg("--save")
            .arg(&saved),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["documents"], 20);
    // The learning curve: blocks of 8, 8 and 4 messages, errors adding up.
    let curve = v["curve"].as_array().unwrap();
    let ends: Vec<u64> = curve
        .iter()
        .map(|p| p["messages"].as_u64().unwrap())
        .collect();
    assert_eq!(ends, [8, 16, 20]);
    let total: u64 = curve
        .iter()
        .map(|p| p["block_errors"].as_u64().unwrap())
        .sum();
    assert_eq!(curve[2]["errors"].as_u64().unwrap(), total);
    assert_eq!(v["spam"], 10);
    // The first message (score 0) is a mistake; from the third on, the two vocabularies
    // are apart: only the first two messages can be wrong.
    let mistakes = v["false_positives"].as_u64().unwrap() + v["false_negatives"].as_u64().unwrap();
    assert!((1..=2).contains(&mistakes), "{v}");
    assert_eq!(v["updates"].as_u64().unwrap(), mistakes);
    let inspect = stdout_of(bin().args(["inspect", "--json", "-m"]).arg(&saved));
    let m: serde_json::Value = serde_json::from_str(&inspect).unwrap();
    assert_eq!(m["learned"], 20);
    // A bad index line names the file and line.
    std::fs::write(dir.path().join("bad"), "spam a\nmaybe b\n").unwrap();
    bin()
        .args(["eval", "--online"])
        .arg(dir.path().join("bad"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("bad:2"));
    // An index none of whose messages can be read evaluates nothing and saves nothing.
    std::fs::write(dir.path().join("gone"), "spam nope1\nham nope2\n").unwrap();
    let empty = dir.path().join("empty.model");
    let err = stderr_of_failure(
        bin()
            .args(["eval", "--online"])
            .arg(dir.path().join("gone"))
            .arg("--save")
            .arg(&empty),
    );
    assert!(
        err.contains("no message of the index could be read"),
        "{err}"
    );
    // Each missing message is named once, with the reason.
    let nope = dir.path().join("nope1").display().to_string();
    assert!(
        err.contains(&format!("{nope}: no such file or folder")),
        "{err}"
    );
    assert!(!err.contains(&format!("{nope}: {nope}")), "{err}");
    assert!(!empty.exists());
}

/// 8 processes × 20 `learn`s of one model: every message counts.
fn learn_concurrently(model: &Path, msgs: &Path) {
    std::thread::scope(|s| {
        for p in 0..8 {
            s.spawn(move || {
                for i in 0..20 {
                    let class = if (p + i) % 2 == 0 { "--spam" } else { "--ham" };
                    bin()
                        .args(["learn", class, "-m"])
                        .arg(model)
                        .arg(msgs.join(format!("{i}")))
                        .assert()
                        .success();
                }
            });
        }
    });
}

#[test]
fn replacing_a_model_leaves_no_lock_file_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let model = train_filter(dir.path());
    let lock = model.with_extension("model.lock");
    // A second train -o over the model takes the lock for its write, then removes it.
    train_filter(dir.path());
    assert!(!lock.exists(), "train -o left {}", lock.display());
    let msg = dir.path().join("one");
    std::fs::write(&msg, spam_message(7)).unwrap();
    bin()
        .args(["learn", "--spam", "-m"])
        .arg(&model)
        .arg(&msg)
        .assert()
        .success();
    assert!(!lock.exists(), "learn left {}", lock.display());
    // A lock file left by a killed process is taken over and removed by the next writer.
    std::fs::write(&lock, "").unwrap();
    train_filter(dir.path());
    assert!(!lock.exists());
}

#[test]
fn concurrent_learn_loses_no_message() {
    let dir = tempfile::tempdir().unwrap();
    let model = train_filter(dir.path());
    let msgs = dir.path().join("incoming");
    std::fs::create_dir_all(&msgs).unwrap();
    for i in 0..20 {
        std::fs::write(msgs.join(format!("{i}")), spam_message(1000 + i)).unwrap();
    }
    // The default filter (PA steps) and an AdaGrad filter, whose per-feature sums are
    // written back with its weights.
    let index = dir.path().join("index");
    std::fs::write(&index, "spam incoming/0\nham incoming/1\n").unwrap();
    let adagrad = dir.path().join("adagrad.model");
    bin()
        .args(["eval", "--online"])
        .arg(&index)
        .args(["--learner", "logistic", "--hash-bits", "14", "--save"])
        .arg(&adagrad)
        .assert()
        .success();
    for (model, before) in [(&model, 0), (&adagrad, 2)] {
        learn_concurrently(model, &msgs);
        let out = stdout_of(bin().args(["inspect", "--json", "-m"]).arg(model));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["learned"], 160 + before, "{}", model.display());
        // Every learn removed the lock file as it let go of the lock.
        assert!(!model.with_extension("model.lock").exists());
    }
    let m = rosenblatt::model::Model::load(&adagrad).unwrap();
    assert_eq!(m.online().as_ref().unwrap().seen, 162);
}

#[test]
fn spamassassin_sample_trains_an_accurate_filter() {
    // The corpus shipped in corpora/ (a seeded 20% held out); debug builds keep it small.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/spamassassin");
    if !root.exists() {
        eprintln!("note: {} is absent; skipping", root.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = stdout_of(
        bin()
            .args(["train", "--json", "--holdout", "0.2", "--spam"])
            .arg(root.join("spam"))
            .arg("--ham")
            .arg(root.join("ham/hard_ham"))
            .arg("-o")
            .arg(dir.path().join("sa.model")),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["documents"], 600); // 80% of 500 spam + 250 hard ham
    let h = &v["held_out"];
    assert!(h["accuracy"].as_f64().unwrap() >= 0.9, "{h}");
    assert!(h["auc"].as_f64().unwrap() >= 0.97, "{h}");
}
