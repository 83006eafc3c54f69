//! The analyzer a model carries: `classify`, `learn` and `eval` read their inputs as the
//! model's analyzer says — as mail under its recorded rules, or as plain text — whatever
//! the input looks like; `train` records the source and steps, `inspect` shows them.

use crate::common::{bin, data, stdout_of, train_filter};
use crate::model_format::golden;
use rosenblatt::input::mail::MailRules;
use rosenblatt::model::Model;
use rosenblatt::text::{Analyzer, Source, Step};
use std::path::Path;

/// A message whose header says spam (free +2, claim +2, now +1 in the golden model) and
/// whose body says ham (the −2, for −1, project −1, review −1).
const MESSAGE: &str = "From: Prize Desk <desk@prizes.example>\n\
Subject: FREE prize, claim now\n\
Date: Mon, 7 Jan 2002 10:00:00 +0000\n\
\n\
the notes for the project review\n";

/// Writes `model` with its analyzer reading from `source` into `dir`, and `MESSAGE` beside it.
fn with_source(
    dir: &Path,
    model: &Model,
    source: Source,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut parts = model.clone().into_parts();
    parts.analyzer = model.analyzer().clone().with_source(source.clone());
    let m = Model::new(parts).unwrap();
    let path = dir.join(format!("{}.model", source.name()));
    m.save(&path).unwrap();
    let msg = dir.join("message.eml");
    std::fs::write(&msg, MESSAGE).unwrap();
    (path, msg)
}

#[test]
fn classify_reads_mail_as_mail_because_the_model_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let g = golden();
    // The same weights and vocabulary; only the analyzer's source differs.
    let (text_model, msg) = with_source(dir.path(), &g, Source::Text);
    let (mail_model, _) = with_source(dir.path(), &g, Source::mail());
    // Plain text: the header's words count as body words — free +2, claim +2, now +1,
    // the −2, for −1, project −1, review −1: 0, which is not spam.
    let text = stdout_of(bin().args(["classify", "-m"]).arg(&text_model).arg(&msg));
    assert!(text.ends_with("\tham\t0\n"), "{text}");
    // Mail: the header fields become `subject:free`, … (unknown to a text vocabulary),
    // the date is left out, and only the body counts: −2 − 1 − 1 − 1 = −5. A spam
    // filter's verdict is also its exit code (1: ham), as bogofilter's is.
    let out = bin()
        .args(["classify", "-m"])
        .arg(&mail_model)
        .arg(&msg)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let mail = String::from_utf8(out).unwrap();
    assert!(mail.ends_with("\tham\t-5\n"), "{mail}");
    // A spam filter's options follow the model too: a text model has none.
    bin()
        .args(["classify", "--unsure=-1:1", "-m"])
        .arg(&text_model)
        .arg(&msg)
        .assert()
        .failure();
    bin()
        .args(["classify", "--unsure=-1:1", "-m"])
        .arg(&mail_model)
        .arg(&msg)
        .assert()
        .code(1);
}

#[test]
fn learn_parses_mail_only_for_a_model_whose_analyzer_reads_mail() {
    let dir = tempfile::tempdir().unwrap();
    let g = golden();
    let (text_model, msg) = with_source(dir.path(), &g, Source::Text);
    let (mail_model, _) = with_source(dir.path(), &g, Source::mail());
    for model in [&text_model, &mail_model] {
        bin()
            .args(["learn", "--spam", "-m"])
            .arg(model)
            .arg(&msg)
            .assert()
            .success();
    }
    let text = Model::load(&text_model).unwrap();
    let mail = Model::load(&mail_model).unwrap();
    // Both scored the message ≤ 0 as spam: a mistake, so both learned its tokens.
    assert_eq!((text.meta().learned, text.meta().report.updates), (1, 5));
    assert_eq!((mail.meta().learned, mail.meta().report.updates), (1, 5));
    assert!(text.vocab().get("subject").is_some() && text.vocab().get("jan").is_some());
    assert!(
        text.vocab().get("subject:free").is_none() && text.vocab().get("hdr:subject").is_none()
    );
    for t in [
        "subject:free",
        "subject:claim",
        "from:desk",
        "hdr:date",
        "from_domain:prizes.example",
    ] {
        assert!(mail.vocab().get(t).is_some(), "{t}");
    }
    // The date's words are left out by the default mail rules.
    assert!(mail.vocab().get("jan").is_none() && mail.vocab().get("date:jan").is_none());
    assert_eq!(mail.analyzer().source(), &Source::mail());
}

#[test]
fn train_records_the_mail_source_and_inspect_shows_the_analyzer() {
    let dir = tempfile::tempdir().unwrap();
    let (spam, ham) = (dir.path().join("spam"), dir.path().join("ham"));
    std::fs::create_dir_all(&spam).unwrap();
    std::fs::create_dir_all(&ham).unwrap();
    for i in 0..3 {
        std::fs::write(
            spam.join(format!("{i}.eml")),
            format!("Subject: cheap offer {i}\nFrom: a@spam.example\n\nbuy now\n"),
        )
        .unwrap();
        std::fs::write(
            ham.join(format!("{i}.eml")),
            format!("Subject: minutes {i}\nFrom: b@work.example\n\nsee you at noon\n"),
        )
        .unwrap();
    }
    let model = dir.path().join("filter.model");
    train_filter(&spam, &ham, &model, &[]);
    let m = Model::load(&model).unwrap();
    assert_eq!(m.analyzer(), &Analyzer::standard(Source::mail(), true));
    assert!(m.vocab().get("subject:cheap").is_some());
    let text = stdout_of(bin().args(["inspect", "--model"]).arg(&model));
    assert!(
        text.contains("analyzer       mail → words → lowercase\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("mail rules     {}\n", MailRules::default())),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout_of(
        bin().args(["inspect", "--json", "--model"]).arg(&model),
    ))
    .unwrap();
    let a = &json["analyzer"];
    assert_eq!(a["steps"], serde_json::json!(["words", "lowercase"]));
    assert_eq!(
        a["source"]["mail"]["skip_fields"],
        serde_json::json!(MailRules::default().skip_fields)
    );
    assert_eq!(a["source"]["mail"]["skip_fields"][2], "received");
    assert_eq!(a["source"]["mail"]["tags"][0], "headers");
    // A plain-text model says so, and `eval` on mail refuses it as no spam filter.
    let golden = stdout_of(
        bin()
            .args(["inspect", "--json", "--model"])
            .arg(data("format6.model")),
    );
    let g: serde_json::Value = serde_json::from_str(&golden).unwrap();
    assert_eq!(
        g["analyzer"],
        serde_json::json!({"source": "text", "steps": ["words", "lowercase"]})
    );
    bin()
        .args(["eval", "--model"])
        .arg(data("format6.model"))
        .arg("--spam")
        .arg(&spam)
        .arg("--ham")
        .arg(&ham)
        .assert()
        .failure()
        .stderr(predicates::str::contains("not a spam filter"));
}

#[test]
fn keep_case_is_an_analyzer_without_the_lowercase_step() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("case.model");
    bin()
        .args(["train", "--keep-case", "-o"])
        .arg(&model)
        .arg(data("tiny"))
        .assert()
        .success();
    let m = Model::load(&model).unwrap();
    assert_eq!(m.analyzer().steps(), [Step::Words]);
    assert!(m.vocab().get("URGENT").is_some() && m.vocab().get("urgent").is_none());
    let text = stdout_of(bin().args(["inspect", "--model"]).arg(&model));
    assert!(text.contains("analyzer       text → words\n"), "{text}");
}

#[test]
fn a_model_trained_on_vectors_shows_no_analyzer() {
    let dir = tempfile::tempdir().unwrap();
    let svm = dir.path().join("x.svm");
    std::fs::write(&svm, "+1 1:1 3:1\n-1 2:1\n+1 1:1\n-1 2:1 3:1\n").unwrap();
    let model = dir.path().join("x.model");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(&svm)
        .assert()
        .success();
    let text = stdout_of(bin().args(["inspect", "--model"]).arg(&model));
    assert!(!text.contains("analyzer"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&stdout_of(
        bin().args(["inspect", "--json", "--model"]).arg(&model),
    ))
    .unwrap();
    assert!(json["analyzer"].is_null(), "{json}");
}

#[test]
fn the_recorded_mail_rules_decide_what_a_message_gives() {
    use rosenblatt::input::mail::{TagFamily, read_message_bytes};
    let parse = |rules: &MailRules| {
        read_message_bytes(MESSAGE.as_bytes(), "m", None, rules)
            .corpus
            .docs
            .remove(0)
    };
    let d = parse(&MailRules::default());
    let fields: Vec<&str> = d.fields.iter().map(|(n, _)| &**n).collect();
    assert_eq!(fields, ["from", "subject"], "the date's words are left out");
    assert!(d.tags.contains(&"hdr:date".to_string()));
    assert!(d.tags.contains(&"from_domain:prizes.example".to_string()));
    assert!(d.tags.contains(&"mail:parts=1".to_string()));
    // Other rules, other document: the subject skipped, values cut, only header tags.
    let rules = MailRules {
        skip_fields: vec!["subject".into()],
        max_field_bytes: 5,
        max_body_bytes: 9,
        tags: vec![TagFamily::Headers],
        ..MailRules::default()
    };
    let d = parse(&rules);
    assert_eq!(d.fields, [(Box::<str>::from("from"), "Prize".to_string())]);
    assert_eq!(d.text, "the notes");
    assert_eq!(d.tags, ["hdr:date", "hdr:from", "hdr:subject"]);
}
