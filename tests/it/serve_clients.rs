//! `rosenblatt serve` asked by Debian's own clients of the protocols it speaks: `spamc`
//! (spamd's), `rspamc` (rspamd's), `curl` (the JSON API) and Exim's `spam =` condition
//! (spamd's, from a real MTA taking mail over SMTP). On 200 messages of the SpamAssassin
//! corpus each client reports the verdict and score that `classify` gives; `spamc -L` and
//! `rspamc learn_spam` learn only where the daemon allows it, and move the message's
//! P(spam) the way they were told (Exim, a real MTA: `serve_exim.rs`). Each test skips
//! with a note where its client is not installed (.ci/run installs them all).

use crate::common::{exe, learned, train_filter};
use crate::serve_support::{Daemon, installed, p_spam};
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A message of the test sample with `classify`'s verdict and P(spam).
#[derive(Debug, Clone)]
pub(crate) struct Judged {
    pub(crate) path: PathBuf,
    pub(crate) spam: bool,
    pub(crate) p: f64,
}

/// `../shared/corpora/spamassassin` where it is present, else the copy the repository ships.
fn corpus_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = manifest.join("../shared/corpora/spamassassin");
    if shared.join("spam").is_dir() {
        shared
    } else {
        manifest.join("corpora/spamassassin")
    }
}

/// The files of `dir`, sorted by name.
pub(crate) fn sorted(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Copies `files` into `dir` as `PREFIX-NNN.eml`; the copies' paths.
fn copied(files: &[PathBuf], dir: &Path, prefix: &str) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let to = dir.join(format!("{prefix}-{i:03}.eml"));
            std::fs::copy(f, &to).unwrap();
            to
        })
        .collect()
}

/// A filter store trained on 150 spam and 350 ham (300 easy, 50 hard) of the SpamAssassin
/// corpus, under `dir`, and 200 other messages of it (100 spam, 80 easy ham, 20 hard ham)
/// with `classify`'s verdicts.
pub(crate) fn sample(dir: &Path) -> (PathBuf, Vec<Judged>) {
    let root = corpus_root();
    let spam = sorted(&root.join("spam"));
    let easy = sorted(&root.join("ham/easy_ham"));
    let hard = sorted(&root.join("ham/hard_ham"));
    let train = dir.join("train");
    copied(&spam[..150], &train.join("spam"), "spam");
    copied(
        &[&easy[..300], &hard[..50]].concat(),
        &train.join("ham"),
        "ham",
    );
    let model = dir.join("spam.model");
    train_filter(&train.join("spam"), &train.join("ham"), &model, &[]);
    let store = dir.join("spam.store");
    crate::serve_support::converted(&model, &store);
    let mut test = copied(&spam[150..250], &dir.join("test"), "spam");
    test.extend(copied(
        &[&easy[300..380], &hard[50..70]].concat(),
        &dir.join("test"),
        "ham",
    ));
    let judged = classify(&store, &test);
    (store, judged)
}

/// `classify -m STORE --format jsonl` over `paths` in one run: each one's verdict and P(spam).
pub(crate) fn classify(store: &Path, paths: &[PathBuf]) -> Vec<Judged> {
    let out = exe()
        .args(["classify", "--format", "jsonl", "-m"])
        .arg(store)
        .args(paths)
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut by_id = HashMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = v["id"].as_str().unwrap().to_string();
        by_id.insert(
            id,
            (v["label"] == "spam", v["probability"].as_f64().unwrap()),
        );
    }
    paths
        .iter()
        .map(|p| {
            let (spam, p_spam) = by_id[p.to_str().unwrap()];
            Judged {
                path: p.clone(),
                spam,
                p: p_spam,
            }
        })
        .collect()
}

/// Runs `program ARGS…` with `stdin` (a file) or nothing as its input.
pub(crate) fn run(program: &str, args: &[&str], stdin: Option<&Path>) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args);
    match stdin {
        Some(p) => cmd.stdin(File::open(p).unwrap()),
        None => cmd.stdin(std::process::Stdio::null()),
    };
    cmd.output().unwrap()
}

/// The `SCORE/THRESHOLD` line `spamc -c` and `spamc -R` begin with.
fn score_over_threshold(line: &str) -> (f64, f64) {
    let (s, t) = line
        .trim()
        .split_once('/')
        .unwrap_or_else(|| panic!("no SCORE/THRESHOLD in {line:?}"));
    (s.parse().unwrap(), t.parse().unwrap())
}

/// What `rspamc symbols` printed for one file.
#[derive(Debug, Default)]
struct RspamcResult {
    action: String,
    spam: Option<bool>,
    score: f64,
    required: f64,
    symbols: usize,
}

/// `rspamc`'s report, one section per file (`Results for file: PATH (T seconds)`), by path.
fn rspamc_results(out: &str) -> HashMap<String, RspamcResult> {
    let mut results = HashMap::new();
    for section in out.split("Results for file: ").skip(1) {
        let (head, body) = section.split_once('\n').unwrap();
        let path = head.rsplit_once(" (").map_or(head, |(p, _)| p).to_string();
        let mut r = RspamcResult::default();
        for line in body.lines() {
            if let Some(a) = line.strip_prefix("Action: ") {
                r.action = a.to_string();
            } else if let Some(s) = line.strip_prefix("Spam: ") {
                r.spam = Some(s == "true");
            } else if let Some(s) = line.strip_prefix("Score: ") {
                let (a, b) = s.split_once(" / ").unwrap();
                r.score = a.trim().parse().unwrap();
                r.required = b.trim().parse().unwrap();
            } else if line.starts_with("Symbol: ") {
                r.symbols += 1;
            }
        }
        results.insert(path, r);
    }
    results
}

#[test]
fn spamc_rspamc_and_curl_agree_with_classify_on_200_messages() {
    if !installed("spamc") || !installed("rspamc") || !installed("curl") {
        eprintln!("note: spamc, rspamc or curl is not installed (.ci/run installs them); skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (store, msgs) = sample(dir.path());
    assert_eq!(msgs.len(), 200);
    // The sample holds both verdicts, and spam over the line rspamd clients reject from.
    let spam = msgs.iter().filter(|m| m.spam).count();
    assert!((50..=150).contains(&spam), "{spam} of 200 judged spam");
    assert!(msgs.iter().any(|m| m.p >= 0.99));
    let d = Daemon::start(&store, &[]);
    let (host, port) = d.spamd.rsplit_once(':').unwrap();

    for m in &msgs {
        // 10·P to one decimal, kept on the verdict's side of the threshold 9.0 (as Exim
        // compares the two printed numbers).
        let rounded = (100.0 * m.p).round() / 10.0;
        // (P as printed by classify may round the other way at a tenth's half.)
        let tol = if ((100.0 * m.p).fract() - 0.5).abs() < 1e-3 {
            0.1001
        } else {
            1e-9
        };
        let ten_p = if m.spam {
            rounded.max(9.0)
        } else {
            rounded.min(8.9)
        };
        // spamc -c prints SCORE/THRESHOLD and exits 1 for spam, 0 for ham; -x: an error is
        // an error, not spamc's safe fallback of "0/0" and ham.
        let out = run(
            "spamc",
            &["-x", "-d", host, "-p", port, "-c"],
            Some(&m.path),
        );
        assert_eq!(out.status.code(), Some(i32::from(m.spam)), "{m:?}: {out:?}");
        let (score, threshold) = score_over_threshold(&String::from_utf8_lossy(&out.stdout));
        assert!((score - ten_p).abs() < tol, "spamc -c {score} for {m:?}");
        assert_eq!(threshold, 9.0);
        // spamc -R -E: the same line, then the report; the exit code is the verdict.
        let out = run(
            "spamc",
            &["-x", "-d", host, "-p", port, "-R", "-E"],
            Some(&m.path),
        );
        assert_eq!(out.status.code(), Some(i32::from(m.spam)), "{m:?}: {out:?}");
        let said = String::from_utf8_lossy(&out.stdout);
        let mut lines = said.lines();
        let (score, threshold) = score_over_threshold(lines.next().unwrap());
        assert!((score - ten_p).abs() < tol, "spamc -R {score} for {m:?}");
        assert_eq!(threshold, 9.0);
        assert!(
            lines.any(|l| l.contains("adds ")),
            "no feature in spamc -R's report for {m:?}: {said}"
        );
    }

    // rspamc, over the HTTP listener, all 200 files in one run (its requests in parallel).
    let mut args = vec!["-h", &d.http, "symbols"];
    args.extend(msgs.iter().map(|m| m.path.to_str().unwrap()));
    let out = run("rspamc", &args, None);
    assert!(out.status.success(), "{out:?}");
    let results = rspamc_results(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(results.len(), msgs.len());
    for m in &msgs {
        let r = &results[m.path.to_str().unwrap()];
        assert_eq!(r.spam, Some(m.spam), "{m:?}: {r:?}");
        assert!((r.score - 10.0 * m.p).abs() < 0.00501, "{m:?}: {r:?}");
        assert_eq!(r.required, 9.0, "{r:?}");
        let action = match (m.spam, m.p >= 0.99) {
            (false, _) => "no action",
            (true, false) => "add header",
            (true, true) => "reject",
        };
        assert_eq!(r.action, action, "{m:?}: {r:?}");
        assert!(r.symbols > 0, "{m:?}: {r:?}");
    }

    // curl against the JSON API: 200 requests in one run, their answers in order.
    let url = format!("http://{}/v1/classify", d.http);
    let mut args: Vec<String> = vec!["-sS".into(), "--fail".into()];
    for (i, m) in msgs.iter().enumerate() {
        if i > 0 {
            args.push("--next".into());
        }
        args.push("--data-binary".into());
        args.push(format!("@{}", m.path.display()));
        args.push(url.clone());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run("curl", &args, None);
    assert!(out.status.success(), "{out:?}");
    let answers: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), msgs.len());
    for (m, v) in msgs.iter().zip(&answers) {
        assert_eq!(v["label"] == "spam", m.spam, "{m:?}: {v}");
        let p = v["probability"].as_f64().unwrap();
        assert!((p - m.p).abs() < 1e-6, "{m:?}: {v}");
    }
    assert!(d.stop().success());
}

#[test]
fn spamc_and_rspamc_learn_only_where_allowed() {
    if !installed("spamc") || !installed("rspamc") {
        eprintln!("note: spamc or rspamc is not installed (.ci/run installs them); skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (store, msgs) = sample(dir.path());
    // Two hams and two spams, each judged as its class, to teach the other way.
    let hams: Vec<&Judged> = msgs.iter().filter(|m| !m.spam).take(2).collect();
    let spams: Vec<&Judged> = msgs.iter().filter(|m| m.spam).take(2).collect();
    assert_eq!((hams.len(), spams.len()), (2, 2));
    let key = dir.path().join("learn.key");
    let password = "correct horse battery staple";
    std::fs::write(&key, format!("{password}\n")).unwrap();
    let ham = &hams[0].path;

    // A daemon without --allow-tell or --learn-key: every learn is refused, nothing changes.
    let d = Daemon::start(&store, &[]);
    let (host, port) = d.spamd.rsplit_once(':').unwrap();
    let (before, p0) = (learned(&store), p_spam(&store, ham));
    let out = run(
        "spamc",
        &["-x", "-d", host, "-p", port, "-L", "spam"],
        Some(ham),
    );
    assert!(!out.status.success(), "{out:?}");
    let ham_arg = ham.to_str().unwrap();
    let out = run(
        "rspamc",
        &["-h", &d.http, "-P", password, "learn_spam", ham_arg],
        None,
    );
    assert!(!out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("403"),
        "{out:?}"
    );
    assert_eq!((learned(&store), p_spam(&store, ham)), (before, p0));
    assert!(d.stop().success());

    let d = Daemon::start(
        &store,
        &["--allow-tell", "--learn-key", key.to_str().unwrap()],
    );
    let (host, port) = d.spamd.rsplit_once(':').unwrap();

    // spamc -L (spamd's TELL, from loopback): learned and committed before spamc returns.
    let out = run(
        "spamc",
        &["-x", "-d", host, "-p", port, "-L", "spam"],
        Some(ham),
    );
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Message successfully un/learned"),
        "{out:?}"
    );
    let p1 = p_spam(&store, ham);
    assert!(p1 > p0, "spamc -L spam: P(spam) {p0} -> {p1}");
    assert_eq!(learned(&store), before + 1);
    let spam = &spams[0].path;
    let q0 = p_spam(&store, spam);
    let out = run(
        "spamc",
        &["-x", "-d", host, "-p", port, "-L", "ham"],
        Some(spam),
    );
    assert!(out.status.success(), "{out:?}");
    let q1 = p_spam(&store, spam);
    assert!(q1 < q0, "spamc -L ham: P(spam) {q0} -> {q1}");
    assert_eq!(learned(&store), before + 2);

    // rspamc learns over HTTP (its Password header) only with the key's credential.
    let ham = &hams[1].path;
    let ham_arg = ham.to_str().unwrap();
    let p0 = p_spam(&store, ham);
    for refused in [
        vec!["-h", &d.http, "learn_spam", ham_arg],
        vec![
            "-h",
            &d.http,
            "-P",
            "correct horse battery",
            "learn_spam",
            ham_arg,
        ],
        vec!["-h", &d.http, "-P", "wrong", "learn_spam", ham_arg],
    ] {
        let out = run("rspamc", &refused, None);
        assert!(!out.status.success(), "{refused:?}: {out:?}");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.contains("HTTP error: 403"), "{refused:?}: {said}");
    }
    assert_eq!((learned(&store), p_spam(&store, ham)), (before + 2, p0));
    let out = run(
        "rspamc",
        &["-h", &d.http, "-P", password, "learn_spam", ham_arg],
        None,
    );
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("success = true"),
        "{out:?}"
    );
    let p1 = p_spam(&store, ham);
    assert!(p1 > p0, "rspamc learn_spam: P(spam) {p0} -> {p1}");
    assert_eq!(learned(&store), before + 3);
    let spam = spams[1].path.to_str().unwrap();
    let q0 = p_spam(&store, &spams[1].path);
    let out = run(
        "rspamc",
        &["-h", &d.http, "-P", password, "learn_ham", spam],
        None,
    );
    assert!(out.status.success(), "{out:?}");
    let q1 = p_spam(&store, &spams[1].path);
    assert!(q1 < q0, "rspamc learn_ham: P(spam) {q0} -> {q1}");
    assert_eq!(learned(&store), before + 4);
    assert!(d.stop().success());
}
