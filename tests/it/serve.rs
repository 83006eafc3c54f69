//! `rosenblatt serve` on loopback, asked over spamd's protocol, rspamd's and the JSON API
//! by clients written here from the protocols' documents (and by Debian's `spamc` and
//! `curl` where they are installed): its verdicts are `classify`'s for the same messages,
//! a learn needs the credential and is committed before it is acknowledged, malformed
//! requests are refused with the protocol's errors while the daemon goes on, a client
//! over the connection bound is answered busy, and SIGTERM ends it with status 0.

use crate::common::{bin, corpus_and_filter, stdout_of};
use crate::serve_support::{Daemon, admitted, filter_store, messages, spam_line, spamd_request};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Stdio;

#[test]
fn spamd_and_rspamd_clients_get_the_verdicts_of_classify() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let d = Daemon::start(&store, &[]);
    let msgs = messages(&corpus, &store);
    assert!(msgs.iter().any(|m| m.1) && msgs.iter().any(|m| !m.1));
    for (path, spam, p) in &msgs {
        let raw = std::fs::read(path).unwrap();
        // spamd: CHECK says the verdict, 10 × P(spam) over 10 × P at the threshold.
        let answer = d.spamd(&spamd_request("CHECK", "", &raw));
        assert!(answer.starts_with("SPAMD/1.5 0 EX_OK\r\n"), "{answer}");
        let (said, score, threshold) = spam_line(&answer);
        assert_eq!(said, *spam, "{}", path.display());
        assert!((score - 10.0 * p).abs() < 0.051, "{score} vs {p}");
        assert!((threshold - 9.0).abs() < 0.051, "{threshold}");
        // rspamd: the same verdict as JSON, with an action that follows it.
        let (status, body) = d.http("POST", "/checkv2", &[], &raw);
        assert_eq!(status, 200, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!((v["score"].as_f64().unwrap() - 10.0 * p).abs() < 1e-3);
        let action = v["action"].as_str().unwrap();
        assert_eq!(action == "no action", !spam, "{action}");
        assert!(!v["symbols"].as_object().unwrap().is_empty());
    }
    // SYMBOLS names the strongest features of classify --explain, strongest first.
    let (first, _, _) = &msgs[0];
    let raw = std::fs::read(first).unwrap();
    let answer = d.spamd(&spamd_request("SYMBOLS", "", &raw));
    let names: Vec<&str> = answer
        .rsplit("\r\n\r\n")
        .next()
        .unwrap()
        .split(',')
        .collect();
    let explained = bin()
        .args(["classify", "--explain", "--format", "jsonl", "-m"])
        .arg(&store)
        .arg(first)
        .output()
        .unwrap();
    let e: serde_json::Value = serde_json::from_slice(&explained.stdout).unwrap();
    let strongest: Vec<&str> = e["features"]
        .as_array()
        .unwrap()
        .iter()
        .take(names.len())
        .map(|f| f["feature"].as_str().unwrap())
        .collect();
    assert_eq!(names, strongest);
    // PING, and the JSON API's one document.
    assert_eq!(d.spamd(b"PING SPAMC/1.5\r\n\r\n"), "SPAMD/1.5 0 PONG\r\n");
    let (status, body) = d.http("POST", "/v1/classify", &[], &raw);
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!(v["label"] == "spam", msgs[0].1);
    assert_eq!(d.http("GET", "/healthz", &[], b"").0, 200);
    assert_eq!(d.http("GET", "/ping", &[], b""), (200, "pong\r\n".into()));
    let (_, metrics) = d.http("GET", "/metrics", &[], b"");
    let verdicts: u64 = metrics
        .lines()
        .filter(|l| l.starts_with("rosenblatt_verdicts_total"))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(verdicts, 6 * 2 + 2, "{metrics}");
    assert!(d.stop().success());
}

#[test]
fn learning_needs_the_credential_and_is_committed_before_it_is_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let key = dir.path().join("key");
    std::fs::write(&key, "correct horse battery\n").unwrap();
    let d = Daemon::start(&store, &["--learn-key", key.to_str().unwrap()]);
    let raw = std::fs::read(corpus.join("ham/0.eml")).unwrap();
    let learned = || -> u64 {
        let out = stdout_of(bin().args(["inspect", "--json", "-m"]).arg(&store));
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["learned"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(learned(), 0);
    for wrong in [&[][..], &[("Password", "correct horse")]] {
        let (status, body) = d.http("POST", "/learnspam", wrong, &raw);
        assert_eq!(status, 403, "{body}");
    }
    // spamd's TELL is refused without --allow-tell: EX_NOPERM.
    let told = d.spamd(&spamd_request(
        "TELL",
        "Message-class: spam\r\nSet: local\r\n",
        &raw,
    ));
    assert_eq!(told, "SPAMD/1.5 77 EX_NOPERM\r\n");
    assert_eq!(learned(), 0, "nothing was learned without the credential");
    // An empty body is no message: refused as the client's mistake.
    let (status, _) = d.http(
        "POST",
        "/learnham",
        &[("Password", "correct horse battery")],
        b"",
    );
    assert_eq!(status, 400);
    let (status, body) = d.http(
        "POST",
        "/learnspam",
        &[("Password", "correct horse battery")],
        &raw,
    );
    assert_eq!((status, body.trim()), (200, "{\"success\":true}"));
    // Acknowledged means committed: another process reads it at once.
    assert_eq!(learned(), 1);
    let (_, stat) = d.http("GET", "/stat", &[], b"");
    let stat: serde_json::Value = serde_json::from_str(&stat).unwrap();
    assert_eq!(stat["learned"], 1);
    assert!(d.stop().success());
}

#[test]
fn malformed_requests_are_refused_and_a_client_over_the_bound_is_told_busy() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    let d = Daemon::start(
        &model,
        &["--max-connections", "3", "--max-message-bytes", "64K"],
    );
    for (request, status) in [
        (&b"HELLO SPAMC/1.5\r\n\r\n"[..], "76 EX_PROTOCOL"),
        (
            b"CHECK SPAMC/1.5\r\nContent-length: -5\r\n\r\n",
            "76 EX_PROTOCOL",
        ),
        (
            b"CHECK SPAMC/1.5\r\nContent-length: 999999999\r\n\r\n",
            "65 EX_DATAERR",
        ),
        (b"CHECK SPAMC/1.5\r\n\r\n", "76 EX_PROTOCOL"),
        // The connection closes before the message announced has come.
        (
            b"CHECK SPAMC/1.5\r\nContent-length: 50\r\n\r\nshort",
            "76 EX_PROTOCOL",
        ),
    ] {
        let mut s = TcpStream::connect(&d.spamd).unwrap();
        s.write_all(request).unwrap();
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert_eq!(out, format!("SPAMD/1.5 {status}\r\n"), "{request:?}");
    }
    let (status, _) = d.http("POST", "/checkv2", &[], &vec![b'a'; 70_000]);
    assert_eq!(status, 413);
    // A body announced over the bound is refused before it comes (no wait for it).
    let mut s = TcpStream::connect(&d.http).unwrap();
    s.write_all(b"POST /checkv2 HTTP/1.1\r\nHost: x\r\nContent-Length: 9999999\r\n\r\n")
        .unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 413");
    // A client that closes its side once its request is sent (as spamc does) is answered.
    let raw = std::fs::read(corpus.join("spam/0.eml")).unwrap();
    let mut s = TcpStream::connect(&d.http).unwrap();
    let req = format!(
        "POST /checkv2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        raw.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(&raw).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    // PROCESS keeps an mbox's From line first and ends the field as the message's lines.
    let mboxed = [
        b"From someone@example.com Mon Jan  1 00:00:00 2024\n".as_slice(),
        &raw,
    ]
    .concat();
    let answer = d.spamd(&spamd_request("PROCESS", "", &mboxed));
    let body = answer.split_once("\r\n\r\n").unwrap().1;
    let mut lines = body.split('\n');
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("From someone@example.com")
    );
    let field = lines.next().unwrap();
    assert!(field.starts_with("X-Rosenblatt: spam; score=") && !field.ends_with('\r'));
    assert_eq!(d.http("GET", "/nowhere", &[], b"").0, 404);
    // Three idle clients hold every connection: a fourth is turned away at once. (A slot
    // is given back just after its client sees the connection close, so a client let
    // in is one that no busy answer came to.)
    let held: Vec<TcpStream> = (0..3).map(|_| admitted(&d.spamd)).collect();
    assert_eq!(
        d.spamd(&spamd_request("CHECK", "", &raw)),
        "SPAMD/1.5 75 EX_TEMPFAIL\r\n"
    );
    drop(held);
    // Served again once they are gone (their slots given back as the daemon sees them
    // close).
    let served = (0..50).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        d.spamd(&spamd_request("CHECK", "", &raw)).contains("EX_OK")
    });
    assert!(served);
    assert!(d.stop().success());
}

#[test]
fn a_text_model_is_served_over_the_json_api_alone() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("train.tsv");
    std::fs::write(
        &data,
        "sport\tthe match ended in a late goal\nsport\ta fine win for the home team\n\
         money\tshares fell as the bank cut rates\nmoney\tthe market rallied on profits\n",
    )
    .unwrap();
    let model = dir.path().join("topics.model");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(&data)
        .assert()
        .success();
    // Asked for spamd or learning, it refuses with the one sentence of a non-filter.
    let out = bin()
        .args(["serve", "--spamd", "127.0.0.1:0", "-m"])
        .arg(&model)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a spam filter"));
    let d = Daemon::started(&model, &["--no-spamd"], false);
    let lines = "{\"id\":\"a\",\"text\":\"a late goal for the team\"}\n\
                 {\"id\":\"b\",\"text\":\"the bank and the market\"}\n";
    let (status, body) = d.http(
        "POST",
        "/v1/classify",
        &[("Content-Type", "application/x-ndjson")],
        lines.as_bytes(),
    );
    assert_eq!(status, 200, "{body}");
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, lines).unwrap();
    let want = stdout_of(
        bin()
            .args(["classify", "--format", "jsonl", "-m"])
            .arg(&model)
            .arg(&input),
    );
    let labels = |s: &str| -> Vec<(String, String)> {
        s.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (v["label"].to_string(), v["score"].to_string())
            })
            .collect()
    };
    assert_eq!(labels(&body), labels(&want));
    let (status, body) = d.http("POST", "/checkv2", &[], b"Subject: hi\n\nhello\n");
    assert_eq!(status, 400);
    assert!(body.contains("not a spam filter"), "{body}");

    // JSON lines are answered as they are read, any number of them: 30,000 here, in
    // batches, every line in its order with classify's label, then a line that cannot be
    // read ends the answer naming it after the answers before it.
    let many: String = (0..30_000)
        .map(|i| {
            let text = if i % 3 == 0 {
                "a late goal for the team"
            } else {
                "the bank and the market"
            };
            format!("{{\"id\":\"d{i}\",\"text\":\"{text} {i}\"}}\n")
        })
        .collect();
    std::fs::write(&input, &many).unwrap();
    let want = stdout_of(
        bin()
            .args(["classify", "--format", "jsonl", "-m"])
            .arg(&model)
            .arg(&input),
    );
    let ndjson = [("Content-Type", "application/x-ndjson")];
    let (status, body) = d.http("POST", "/v1/classify", &ndjson, many.as_bytes());
    assert_eq!(status, 200);
    assert_eq!(body.lines().count(), 30_000);
    assert_eq!(labels(&body), labels(&want));
    let ids: Vec<String> = body
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].to_string())
        .collect();
    assert_eq!(ids[29_999], "\"d29999\"");
    let broken = format!("{many}{{\"text\": 3}}\n{many}");
    let (status, body) = d.http("POST", "/v1/classify", &ndjson, broken.as_bytes());
    assert_eq!(status, 200);
    let last: serde_json::Value = serde_json::from_str(body.lines().last().unwrap()).unwrap();
    assert_eq!(last["error"], "line 30001: no \"text\"", "{last}");
    assert_eq!(body.lines().count(), 30_001);
    assert!(d.stop().success());
}

#[test]
fn a_model_file_replaced_under_the_daemon_is_picked_up_and_a_damaged_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    // The same messages with their classes swapped: every verdict turns.
    let swapped = dir.path().join("swapped.model");
    crate::common::train_filter(&corpus.join("ham"), &corpus.join("spam"), &swapped, &[]);
    let served = dir.path().join("served.model");
    std::fs::copy(&model, &served).unwrap();
    let d = Daemon::started(&served, &["--no-spamd"], false);
    let raw = std::fs::read(corpus.join("spam/0.eml")).unwrap();
    let action = || {
        let (_, body) = d.http("POST", "/checkv2", &[], &raw);
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        v["action"].as_str().unwrap().to_string()
    };
    let generation = || -> u64 {
        let (_, m) = d.http("GET", "/metrics", &[], b"");
        m.lines()
            .find_map(|l| l.strip_prefix("rosenblatt_model_generation "))
            .unwrap()
            .parse()
            .unwrap()
    };
    let wait_for = |g: u64| {
        (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            generation() == g
        })
    };
    let before = action();
    assert_ne!(before, "no action", "the filter calls its own spam spam");
    // Replaced as train -o writes it: a rename over the path.
    let next = dir.path().join("next.tmp");
    std::fs::copy(&swapped, &next).unwrap();
    std::fs::rename(&next, &served).unwrap();
    assert!(wait_for(2), "the replacement was not picked up");
    assert_eq!(action(), "no action");
    // A damaged replacement is refused; the model in service goes on.
    std::fs::write(&next, b"RSNBLATT but not a model").unwrap();
    std::fs::rename(&next, &served).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert_eq!(generation(), 2);
    assert_eq!(action(), "no action");
    // SIGHUP opens it again: the sound model put back is taken.
    std::fs::copy(&model, &next).unwrap();
    std::fs::rename(&next, &served).unwrap();
    unsafe { libc::kill(d.child.id() as i32, libc::SIGHUP) };
    assert!(wait_for(3) || wait_for(4), "not reopened");
    assert_eq!(action(), before);
    assert!(d.stop().success());
}

#[test]
fn sockets_handed_over_by_systemd_are_served() {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = corpus_and_filter(dir.path());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let fd = listener.as_raw_fd();
    // As systemd starts a socket-activated service: the socket as descriptor 3, and
    // LISTEN_PID naming the process that execs the daemon.
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg("LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=spamd exec \"$0\" serve -m \"$1\"")
        .arg(assert_cmd::cargo::cargo_bin("rosenblatt"))
        .arg(&model)
        .stderr(Stdio::piped());
    // SAFETY: dup2 is async-signal-safe; the new descriptor does not close on exec.
    unsafe {
        cmd.pre_exec(move || {
            let moved = if fd == 3 {
                libc::fcntl(3, libc::F_SETFD, 0)
            } else {
                libc::dup2(fd, 3)
            };
            match moved {
                -1 => Err(std::io::Error::last_os_error()),
                _ => Ok(()),
            }
        });
    }
    let mut child = cmd.spawn().unwrap();
    drop(listener);
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    assert_eq!(
        line,
        "rosenblatt serve: listening: spamd (a socket from systemd, spamd)"
    );
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(b"PING SPAMC/1.5\r\n\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert_eq!(out, "SPAMD/1.5 0 PONG\r\n");
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert!(child.wait().unwrap().success());
}

#[test]
fn each_user_gets_their_own_filter_and_no_name_leaves_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    // Alice's filter was taught the other way round: her verdicts turn.
    let stores = dir.path().join("users");
    std::fs::create_dir(&stores).unwrap();
    let swapped = dir.path().join("swapped.model");
    crate::common::train_filter(&corpus.join("ham"), &corpus.join("spam"), &swapped, &[]);
    bin()
        .arg("convert")
        .arg(&swapped)
        .arg(stores.join("alice"))
        .assert()
        .success();
    let d = Daemon::start(&store, &["--stores", stores.to_str().unwrap()]);
    let raw = std::fs::read(corpus.join("spam/0.eml")).unwrap();
    let said = |user: &str| spam_line(&d.spamd(&spamd_request("CHECK", user, &raw))).0;
    assert!(said(""), "the daemon's filter calls its spam spam");
    assert!(!said("User: alice\r\n"), "alice's filter calls it ham");
    assert!(said("User: bob\r\n"), "bob has none: the daemon's filter");
    for bad in ["../alice", "a/b", "..", ".alice", &"x".repeat(65)] {
        let answer = d.spamd(&spamd_request("CHECK", &format!("User: {bad}\r\n"), &raw));
        assert_eq!(answer, "SPAMD/1.5 67 EX_NOUSER\r\n", "{bad}");
    }
    let (status, body) = d.http("POST", "/checkv2", &[("Deliver-To", "alice")], &raw);
    assert_eq!(status, 200);
    assert!(body.contains("\"action\":\"no action\""), "{body}");
    let (status, _) = d.http("POST", "/checkv2", &[("Deliver-To", "../alice")], &raw);
    assert_eq!(status, 400);
    assert!(d.stop().success());
}

#[test]
fn debian_spamc_and_curl_agree_with_classify() {
    let found = |p: &str| {
        std::process::Command::new(p)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    };
    if !found("spamc") || !found("curl") {
        eprintln!("note: spamc or curl is not installed (.ci/run installs them); skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let d = Daemon::start(&store, &[]);
    let (host, port) = d.spamd.rsplit_once(':').unwrap();
    for (path, spam, p) in messages(&corpus, &store) {
        // spamc -c prints SCORE/THRESHOLD and exits 1 for spam, 0 for ham.
        let out = std::process::Command::new("spamc")
            .args(["-d", host, "-p", port, "-c"])
            .stdin(std::fs::File::open(&path).unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(i32::from(spam)), "{out:?}");
        let said = String::from_utf8_lossy(&out.stdout);
        let score: f64 = said.trim().split('/').next().unwrap().parse().unwrap();
        assert!((score - 10.0 * p).abs() < 0.051, "{said} vs {p}");
        let out = std::process::Command::new("curl")
            .args(["-s", "--data-binary"])
            .arg(format!("@{}", path.display()))
            .arg(format!("http://{}/checkv2", d.http))
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["action"] != "no action", spam);
    }
    assert!(d.stop().success());
}
