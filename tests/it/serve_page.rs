//! `rosenblatt serve`'s page and the JSON it reads: a pasted SpamAssassin message taken
//! apart word by word exactly as `classify --explain --format jsonl` takes it apart, a
//! learn from the page that needs the credential and moves the score as `classify` then
//! sees it, the recent verdicts bounded by `--history` (and none with `--history 0`), the
//! filter's figures those of `/metrics`, and the page's files served with their policy.

use crate::common::bin;
use crate::serve_support::{Daemon, exchange, filter_store, http_request, spamd_request};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The learning credential the tests start daemons with.
const KEY: &str = "page-credential-1";

/// A file holding [`KEY`].
fn key_file(dir: &Path) -> PathBuf {
    let f = dir.join("learn.key");
    std::fs::write(&f, format!("{KEY}\n")).unwrap();
    f
}

/// `classify --explain --format jsonl -m FILTER MESSAGE`: its one line.
fn classify_explained(filter: &Path, message: &Path) -> Value {
    let out = bin()
        .args(["classify", "--explain", "--format", "jsonl", "-m"])
        .arg(filter)
        .arg(message)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The JSON answer to `METHOD PATH`, which must have `status`.
fn json(
    d: &Daemon,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    status: u16,
) -> Value {
    let (got, text) = d.http(method, path, headers, body);
    assert_eq!(got, status, "{method} {path}: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Checks that `spans` are ordered slices of `text`, each the word its feature names
/// (`prefix` + the word lowercased), each with the contribution `classify` gives it.
fn check_spans(
    text: &str,
    spans: &Value,
    prefix: &str,
    explained: &std::collections::HashMap<String, f64>,
) -> usize {
    let mut at = 0;
    let spans = spans.as_array().unwrap();
    for s in spans {
        let (start, end) = (
            s["start"].as_u64().unwrap() as usize,
            s["end"].as_u64().unwrap() as usize,
        );
        assert!(at <= start && start < end && end <= text.len(), "{s}");
        at = end;
        let word = &text[start..end];
        let feature = s["feature"].as_str().unwrap();
        assert_eq!(format!("{prefix}{}", word.to_lowercase()), feature, "{s}");
        let c = explained
            .get(feature)
            .unwrap_or_else(|| panic!("{feature} is no feature classify names"));
        assert_eq!(f(&s["contribution"]), *c, "{feature}");
    }
    spans.len()
}

#[test]
fn a_pasted_message_is_taken_apart_as_classify_explain_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let d = Daemon::start(&store, &[]);
    for class in ["spam", "ham"] {
        let message = corpus.join(class).join("0.eml");
        let raw = std::fs::read(&message).unwrap();
        let a = json(&d, "POST", "/v1/annotate", &[], &raw, 200);
        let c = classify_explained(&store, &message);
        assert_eq!(a["class"], c["label"], "{}", message.display());
        assert!((f(&a["score"]) - f(&c["score"])).abs() < 1e-6);
        assert_eq!(a["bias"], c["bias"]);
        assert_eq!(a["probability"], c["probability"]);
        assert_eq!(a["spam"], Value::Bool(c["label"] == "spam"));
        assert_eq!(a["toward"], "spam");
        // Every feature, in classify's order, with classify's figures.
        assert_eq!(a["features"], c["features"]);
        let explained = contributions(&c);
        let text = a["text"].as_str().unwrap();
        let words = check_spans(text, &a["spans"], "", &explained);
        assert!(
            words > 10,
            "{words} words coloured in {}",
            message.display()
        );
        // Header fields apart, their words their prefixed features.
        let mut field_words = 0;
        for field in a["fields"].as_array().unwrap() {
            let prefix = format!("{}:", field["name"].as_str().unwrap());
            field_words += check_spans(
                field["text"].as_str().unwrap(),
                &field["spans"],
                &prefix,
                &explained,
            );
        }
        assert!(
            field_words > 0,
            "no header field word in {}",
            message.display()
        );
        // What no word shows (MIME parts, header tags) is listed apart, and with the
        // words it is every feature.
        let mut shown: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for s in a["spans"].as_array().unwrap() {
            shown.insert(s["feature"].as_str().unwrap());
        }
        for field in a["fields"].as_array().unwrap() {
            for s in field["spans"].as_array().unwrap() {
                shown.insert(s["feature"].as_str().unwrap());
            }
        }
        let apart = a["apart"].as_array().unwrap();
        assert_eq!(shown.len() + apart.len(), explained.len());
        assert!(
            apart
                .iter()
                .all(|x| !shown.contains(x["feature"].as_str().unwrap()))
        );
    }
    // An empty message is refused with classify's sentence, and the daemon goes on.
    let e = json(&d, "POST", "/v1/annotate", &[], b"", 400);
    assert!(
        e["error"].as_str().unwrap().contains("empty message"),
        "{e}"
    );
    assert_eq!(d.http("GET", "/v1/annotate", &[], b"").0, 405);
    assert!(d.stop().success());
}

#[test]
fn learning_from_the_page_needs_the_credential_and_moves_the_score() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let key = key_file(dir.path());
    let d = Daemon::start(&store, &["--learn-key", key.to_str().unwrap()]);
    let message = corpus.join("spam").join("1.eml");
    let raw = std::fs::read(&message).unwrap();
    let before = classify_explained(&store, &message);
    for headers in [&[][..], &[("Password", "not-the-credential")][..]] {
        let e = json(&d, "POST", "/v1/learn?class=ham", headers, &raw, 403);
        assert!(e["error"].as_str().unwrap().contains("credential"), "{e}");
    }
    // Refused learns changed nothing.
    assert_eq!(
        classify_explained(&store, &message)["score"],
        before["score"]
    );
    let auth = [("Password", KEY)];
    let e = json(&d, "POST", "/v1/learn?class=eggs", &auth, &raw, 400);
    assert!(e["error"].as_str().unwrap().contains("spam or ham"), "{e}");
    json(&d, "POST", "/v1/learn", &auth, &raw, 400);
    json(&d, "POST", "/v1/learn?class=ham", &auth, b"", 400);
    let learned = json(&d, "POST", "/v1/learn?class=ham", &auth, &raw, 200);
    assert_eq!(learned["learned"], "ham");
    assert!((f(&learned["before"]["score"]) - f(&before["score"])).abs() < 1e-6);
    let after = f(&learned["after"]["score"]);
    assert!(after < f(&learned["before"]["score"]), "{learned}");
    // The page's figure is the filter's: classify reads the store the daemon learned in,
    // and the daemon's next explanation starts from it.
    let now = classify_explained(&store, &message);
    assert!(
        (f(&now["score"]) - after).abs() < 1e-6,
        "{now} vs {learned}"
    );
    let a = json(&d, "POST", "/v1/annotate", &[], &raw, 200);
    assert_eq!(a["features"], now["features"]);
    assert_eq!(d.metric("rosenblatt_learns_total{class=\"ham\"}"), 1.0);
    assert!(d.stop().success());

    // Without --learn-key the page cannot learn.
    let d = Daemon::start(&store, &[]);
    let e = json(&d, "POST", "/v1/learn?class=ham", &auth, &raw, 403);
    assert!(e["error"].as_str().unwrap().contains("--learn-key"), "{e}");
    assert!(d.stop().success());
}

#[test]
fn the_history_keeps_the_last_verdicts_and_shows_messages_with_the_credential() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let key = key_file(dir.path());
    let d = Daemon::start(
        &store,
        &["--learn-key", key.to_str().unwrap(), "--history", "3"],
    );
    let mut shown = Vec::new();
    let mut raws = Vec::new();
    for i in 0..4 {
        let raw =
            std::fs::read(corpus.join(["spam", "ham"][i % 2]).join(format!("{i}.eml"))).unwrap();
        let v = json(&d, "POST", "/checkv2", &[], &raw, 200);
        shown.push(f(&v["score"]));
        raws.push(raw);
    }
    // spamd's verdicts are recorded too.
    let answer = d.spamd(&spamd_request("CHECK", "", &raws[0]));
    assert!(answer.starts_with("SPAMD/1.5 0 EX_OK"), "{answer}");
    shown.push(shown[0]);
    raws.push(raws[0].clone());
    let h = json(&d, "GET", "/v1/history", &[], b"", 200);
    assert_eq!(h["capacity"], 3);
    let entries = h["entries"].as_array().unwrap();
    let ids: Vec<u64> = entries.iter().map(|e| e["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, [5, 4, 3], "{h}");
    for e in entries {
        let i = e["id"].as_u64().unwrap() as usize - 1;
        assert!((f(&e["shown"]) - shown[i]).abs() < 1e-9, "{e}");
        assert_eq!(e["bytes"].as_u64().unwrap() as usize, raws[i].len());
        assert_eq!(e["kept"], true);
        // No word of a message, nor its user, to a client without the credential.
        assert!(e.get("user").is_none() && e.get("text").is_none(), "{e}");
    }
    // A message is shown only with the credential; one no longer kept is gone.
    let e = json(&d, "GET", "/v1/history/4", &[], b"", 403);
    assert!(e["error"].as_str().unwrap().contains("credential"), "{e}");
    json(
        &d,
        "GET",
        "/v1/history/4",
        &[("Password", "wrong-credential")],
        b"",
        403,
    );
    let auth = [("Password", KEY)];
    let one = json(&d, "GET", "/v1/history/4", &auth, b"", 200);
    let pasted = json(&d, "POST", "/v1/annotate", &[], &raws[3], 200);
    assert_eq!(one["features"], pasted["features"]);
    assert_eq!(one["text"], pasted["text"]);
    assert_eq!(one["verdict"]["id"], 4);
    for gone in ["/v1/history/1", "/v1/history/6", "/v1/history/x"] {
        json(&d, "GET", gone, &auth, b"", 404);
    }
    // Learning a recent verdict's message by its number.
    json(&d, "POST", "/v1/learn?class=spam&id=4", &[], b"", 403);
    let learned = json(&d, "POST", "/v1/learn?class=spam&id=4", &auth, b"", 200);
    assert_eq!(learned["id"], 4);
    assert!(
        f(&learned["after"]["score"]) > f(&learned["before"]["score"]),
        "{learned}"
    );
    json(&d, "POST", "/v1/learn?class=spam&id=1", &auth, b"", 404);
    // The filter's figures are /metrics' own, and its minutes add up to them.
    let filter = json(&d, "GET", "/v1/filter", &[], b"", 200);
    assert_eq!(filter["classes"], serde_json::json!(["ham", "spam"]));
    assert_eq!(filter["history"], 3);
    assert_eq!(filter["generation"], 1);
    assert_eq!(filter["learning"], true);
    assert!(filter["features"].as_u64().unwrap() > 100, "{filter}");
    let metric =
        |class: &str| d.metric(&format!("rosenblatt_verdicts_total{{verdict=\"{class}\"}}")) as u64;
    let (spam, ham) = (metric("spam"), metric("ham"));
    assert_eq!(spam + ham, 5);
    assert_eq!(
        filter["verdicts"],
        serde_json::json!({"spam": spam, "ham": ham})
    );
    let minutes = filter["per_minute"].as_array().unwrap();
    let sum = |k: &str| minutes.iter().map(|m| m[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!((sum("spam"), sum("ham"), sum("learned")), (spam, ham, 1));
    assert!(d.stop().success());

    // Without a credential the daemon shows recent messages to its clients.
    let d = Daemon::start(&store, &["--history", "2"]);
    json(&d, "POST", "/checkv2", &[], &raws[1], 200);
    let one = json(&d, "GET", "/v1/history/1", &[], b"", 200);
    assert_eq!(one["verdict"]["id"], 1);
    assert!(d.stop().success());
}

#[test]
fn a_history_of_zero_keeps_no_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let key = key_file(dir.path());
    let d = Daemon::start(
        &store,
        &["--history", "0", "--learn-key", key.to_str().unwrap()],
    );
    let raw = std::fs::read(corpus.join("spam").join("0.eml")).unwrap();
    json(&d, "POST", "/checkv2", &[], &raw, 200);
    let auth = [("Password", KEY)];
    for path in ["/v1/history", "/v1/history/1"] {
        let e = json(&d, "GET", path, &auth, b"", 404);
        assert!(e["error"].as_str().unwrap().contains("--history 0"), "{e}");
    }
    json(&d, "POST", "/v1/learn?class=ham&id=1", &auth, b"", 404);
    assert_eq!(json(&d, "GET", "/v1/filter", &[], b"", 200)["history"], 0);
    assert!(d.stop().success());
    let refused = bin()
        .args(["serve", "-m"])
        .arg(&store)
        .args(["--history", "100001"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--history"));
}

#[test]
fn the_page_s_files_come_from_the_binary_under_their_policy() {
    let dir = tempfile::tempdir().unwrap();
    let (_, store) = filter_store(dir.path());
    let d = Daemon::start(&store, &[]);
    for (path, kind) in [
        ("/", "text/html"),
        ("/page.js", "text/javascript"),
        ("/page.css", "text/css"),
    ] {
        let answer = exchange(&d.http, &http_request("GET", path, &[], b"")).unwrap();
        let answer = String::from_utf8(answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let head = head.to_ascii_lowercase();
        assert!(head.starts_with("http/1.1 200"), "{path}: {head}");
        assert!(
            head.contains(&format!("content-type: {kind}")),
            "{path}: {head}"
        );
        assert!(
            head.contains("content-security-policy: default-src 'none'; script-src 'self'"),
            "{head}"
        );
        assert!(head.contains("x-content-type-options: nosniff"), "{head}");
        assert!(!body.is_empty());
    }
    let (_, html) = d.http("GET", "/", &[], b"");
    assert!(html.contains("<script src=\"/page.js\" defer></script>"));
    assert_eq!(d.http("POST", "/", &[], b"x").0, 405);
    assert_eq!(d.http("GET", "/nothing-here", &[], b"").0, 404);
    assert!(d.stop().success());
}

#[test]
fn a_model_of_three_classes_ranks_them_as_classify_does() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("train.tsv");
    std::fs::write(
        &data,
        "sport\tthe match ended in a late goal\nsport\ta fine win for the home team\n\
         money\tshares fell as the bank cut rates\nmoney\tthe market rallied on profits\n\
         food\ta fresh loaf of bread and soup\nfood\tthe soup and the salad were fresh\n",
    )
    .unwrap();
    let model = dir.path().join("topics.model");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(&data)
        .assert()
        .success();
    let doc = dir.path().join("doc.txt");
    std::fs::write(&doc, "A late Goal for the home team, and fresh soup").unwrap();
    let d = Daemon::started(&model, &["--no-spamd"], false);
    let a = json(
        &d,
        "POST",
        "/v1/annotate",
        &[],
        &std::fs::read(&doc).unwrap(),
        200,
    );
    let c = classify_explained(&model, &doc);
    assert_eq!(a["class"], c["label"]);
    assert_eq!(a["toward"], c["label"]);
    assert_eq!(a["features"], c["features"]);
    let explained = contributions(&c);
    assert!(check_spans(a["text"].as_str().unwrap(), &a["spans"], "", &explained) > 0);
    // The ranked classes are classify -k's.
    let out = bin()
        .args(["classify", "-k", "3", "--format", "jsonl", "-m"])
        .arg(&model)
        .arg(&doc)
        .output()
        .unwrap();
    let k: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranked: Vec<&Value> = a["ranked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["class"])
        .collect();
    let listed: Vec<&Value> = k["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["label"])
        .collect();
    assert_eq!(ranked, listed);
    // No verdict of a filter, and nothing to learn.
    assert!(a.get("spam").is_none());
    assert_eq!(
        json(&d, "GET", "/v1/filter", &[], b"", 200)["classes"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert!(d.stop().success());
}

/// Each feature of `classify --explain --format jsonl`'s line `c`, with its contribution.
fn contributions(c: &Value) -> std::collections::HashMap<String, f64> {
    c["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["feature"].as_str().unwrap().to_string(),
                f(&x["contribution"]),
            )
        })
        .collect()
}
