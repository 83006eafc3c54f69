//! `rosenblatt serve` left to run unattended: a daemon killed (`kill -9`) under load
//! loses no learn it acknowledged and its store opens again; SIGTERM answers every
//! request in flight (one still arriving slowly included), takes no new connection and
//! exits 0; and a model file replaced a hundred times under load fails no request, a
//! damaged replacement being refused. (Who may learn, and what a user name may reach:
//! `serve_access.rs`.)

use crate::common::{bin, corpus_and_filter, learned, train_filter};
use crate::serve_support::{
    Daemon, Seeded, complete_http, complete_spamd, exchange, filter_store, http_request, spam_line,
    spamd_request, try_http,
};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The learning credential of these tests.
pub(crate) const KEY: &str = "correct horse battery staple";

/// Writes [`KEY`] as a key file in `dir`; its path.
pub(crate) fn key_file(dir: &Path) -> String {
    let key = dir.join("learn.key");
    std::fs::write(&key, format!("{KEY}\n")).unwrap();
    key.to_str().unwrap().to_string()
}

/// A small message of its own: `tag` in its sender, subject and body.
fn message(tag: &str) -> Vec<u8> {
    format!(
        "From: sender-{tag}@example.org\r\nTo: someone@example.org\r\nSubject: offer {tag}\r\n\
         \r\nA word of its own, w{tag}, and cheap meds for the meeting tomorrow.\r\n"
    )
    .into_bytes()
}

/// Sends `signal` to the daemon.
fn signal(d: &Daemon, signal: i32) {
    // SAFETY: kill(2) on the daemon this test started (and has not reaped).
    assert_eq!(unsafe { libc::kill(d.child.id() as i32, signal) }, 0);
}

/// Waits at most `limit` for `done`; whether it came.
fn within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a connection to `addr` is refused (nothing listens there any more).
fn refused(addr: &str) -> bool {
    matches!(TcpStream::connect(addr), Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused)
}

/// One spamd `TELL` of `raw` as `class` to `addr`: whether it was acknowledged (a whole
/// `EX_OK` answer saying it was set), or the error that ended the exchange.
fn tell(addr: &str, class: &str, raw: &[u8]) -> std::io::Result<bool> {
    let extra = format!("Message-class: {class}\r\nSet: local\r\n");
    let answer = exchange(addr, &spamd_request("TELL", &extra, raw))?;
    Ok(complete_spamd(&answer) && answer.starts_with(b"SPAMD/1.5 0 EX_OK\r\nDidSet: local\r\n"))
}

/// One rspamd learn of `raw` (`/learnspam` or `/learnham`) with the credential: whether
/// it was acknowledged, or the error that ended the exchange.
fn learn_http(addr: &str, path: &str, raw: &[u8]) -> std::io::Result<bool> {
    let (status, body) = try_http(addr, "POST", path, &[("Password", KEY)], raw)?;
    Ok(status == 200 && body.trim() == "{\"success\":true}")
}

/// Whether a spamd `CHECK` answer is whole and `EX_OK` with a verdict.
pub(crate) fn checked(answer: &[u8]) -> bool {
    complete_spamd(answer)
        && answer.starts_with(b"SPAMD/1.5 0 EX_OK\r\nSpam: ")
        && std::str::from_utf8(answer).is_ok_and(|a| {
            let (_, score, threshold) = spam_line(a);
            score.is_finite() && threshold.is_finite()
        })
}

#[test]
fn a_daemon_killed_under_load_loses_no_acknowledged_learn() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let key = key_file(dir.path());
    let flags = ["--allow-tell", "--learn-key", key.as_str()];
    let check = Arc::new(std::fs::read(corpus.join("spam/0.eml")).unwrap());
    assert_eq!(learned(&store), 0);
    let seed = 0x5eed_d1e5;
    let mut moments = Seeded(seed);
    let (mut acked_total, mut sent_total) = (0, 0);
    for round in 0..3 {
        let mut d = Daemon::start(&store, &flags);
        let killed = Arc::new(AtomicBool::new(false));
        let (acked, sent, checks) = (
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicU64::new(0)),
        );
        let mut clients = Vec::new();
        // Four learners of messages of their own (spamd TELL and rspamd learns, spam and
        // ham), two checkers.
        for t in 0..6 {
            let (spamd, http) = (d.spamd.clone(), d.http.clone());
            let (killed, acked, sent, checks) = (
                Arc::clone(&killed),
                Arc::clone(&acked),
                Arc::clone(&sent),
                Arc::clone(&checks),
            );
            let check = Arc::clone(&check);
            clients.push(std::thread::spawn(move || {
                for i in 0.. {
                    let raw = message(&format!("r{round}t{t}m{i}"));
                    if t < 4 {
                        sent.fetch_add(1, SeqCst);
                    }
                    let said = match t {
                        0 => tell(&spamd, "spam", &raw),
                        1 => tell(&spamd, "ham", &raw),
                        2 => learn_http(&http, "/learnspam", &raw),
                        3 => learn_http(&http, "/learnham", &raw),
                        4 => exchange(&spamd, &spamd_request("CHECK", "", &check))
                            .map(|a| checked(&a)),
                        _ => try_http(&http, "POST", "/checkv2", &[], &check)
                            .map(|(status, body)| status == 200 && body.contains("\"action\"")),
                    };
                    match said {
                        Ok(true) if t < 4 => {
                            acked.fetch_add(1, SeqCst);
                        }
                        Ok(true) => {
                            checks.fetch_add(1, SeqCst);
                        }
                        // Before the kill every request is answered, and answered well.
                        Ok(false) => assert!(killed.load(SeqCst), "client {t}: a bad answer"),
                        Err(e) => {
                            assert!(killed.load(SeqCst), "client {t}: {e}");
                            break;
                        }
                    }
                }
            }));
        }
        // Under way: some learns acknowledged, then the kill at a moment of the seed.
        assert!(within(Duration::from_secs(30), || acked.load(SeqCst) >= 5));
        let wait = 100 + moments.below(900);
        std::thread::sleep(Duration::from_millis(wait));
        killed.store(true, SeqCst);
        signal(&d, libc::SIGKILL);
        let status = d.child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        for c in clients {
            c.join().unwrap();
        }
        acked_total += acked.load(SeqCst);
        sent_total += sent.load(SeqCst);
        assert!(checks.load(SeqCst) > 0, "the checkers were answered");
        // The store opens (inspect reads its header) and holds every learn acknowledged.
        let n = learned(&store);
        eprintln!(
            "round {round} (seed {seed:#x}): killed {wait} ms in; {acked_total} learns \
             acknowledged, {n} learned, {sent_total} sent"
        );
        assert!(
            acked_total <= n && n <= sent_total,
            "{acked_total} acknowledged ≤ {n} learned ≤ {sent_total} sent"
        );
    }
    // Started again on the store: it judges, learns (its writer's lock and LMDB's were
    // left by a killed process) and stops cleanly.
    let d = Daemon::start(&store, &flags);
    assert!(checked(
        d.spamd(&spamd_request("CHECK", "", &check)).as_bytes()
    ));
    let before = learned(&store);
    assert!(tell(&d.spamd, "spam", &message("after")).unwrap());
    assert!(learn_http(&d.http, "/learnham", &message("after-http")).unwrap());
    assert_eq!(learned(&store), before + 2);
    assert!(d.stop().success());
}

/// A client that sends the first `early` bytes of `request` at once and the rest in
/// pieces once `go` is set, over about 2.4 s: the answer, read to its end.
fn slow_client(
    addr: String,
    request: Vec<u8>,
    early: usize,
    ready: Arc<AtomicUsize>,
    go: Arc<AtomicBool>,
) -> std::thread::JoinHandle<std::io::Result<Vec<u8>>> {
    std::thread::spawn(move || {
        let mut s = TcpStream::connect(&addr)?;
        s.write_all(&request[..early])?;
        ready.fetch_add(1, SeqCst);
        while !go.load(SeqCst) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let rest = &request[early..];
        let piece = rest.len().div_ceil(8);
        for part in rest.chunks(piece) {
            std::thread::sleep(Duration::from_millis(300));
            s.write_all(part)?;
        }
        let mut out = Vec::new();
        s.read_to_end(&mut out)?;
        Ok(out)
    })
}

#[test]
fn sigterm_answers_every_request_in_flight_and_takes_no_new_connection() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let key = key_file(dir.path());
    let mut d = Daemon::start(&store, &["--allow-tell", "--learn-key", &key]);
    let spam = std::fs::read(corpus.join("spam/0.eml")).unwrap();
    let half_body = |r: &[u8], body: &[u8]| r.len() - body.len() / 2;
    let check_http = http_request("POST", "/checkv2", &[], &spam);
    let learn_raw = message("slow-learn");
    let learn = http_request("POST", "/learnspam", &[("Password", KEY)], &learn_raw);
    let check_spamd = spamd_request("CHECK", "", &spam);
    let tell_raw = message("slow-tell");
    let told = spamd_request("TELL", "Message-class: spam\r\nSet: local\r\n", &tell_raw);
    // Each slow client: what it asks, and how much of it is sent before the signal.
    let slow = [
        (
            "an HTTP check, half its head sent",
            &d.http,
            &check_http,
            20,
        ),
        (
            "an HTTP check, half its body sent",
            &d.http,
            &check_http,
            half_body(&check_http, &spam),
        ),
        (
            "an HTTP learn, half its body sent",
            &d.http,
            &learn,
            half_body(&learn, &learn_raw),
        ),
        (
            "a spamd check, half its head sent",
            &d.spamd,
            &check_spamd,
            10,
        ),
        (
            "a spamd check, half its body sent",
            &d.spamd,
            &check_spamd,
            half_body(&check_spamd, &spam),
        ),
        (
            "a spamd TELL, half its body sent",
            &d.spamd,
            &told,
            half_body(&told, &tell_raw),
        ),
    ];
    let (ready, go) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    let slow_clients: Vec<_> = slow
        .iter()
        .map(|(_, addr, request, early)| {
            let (r, g) = (Arc::clone(&ready), Arc::clone(&go));
            slow_client(addr.to_string(), request.to_vec(), *early, r, g)
        })
        .collect();
    assert!(within(Duration::from_secs(10), || ready.load(SeqCst) == 6));
    // The daemon holds every one of them (and the connection asking).
    assert!(within(Duration::from_secs(10), || d
        .metric("rosenblatt_open_connections")
        >= 7.0));
    // Clients asking again and again over both protocols, through the stop.
    let stopping = Arc::new(AtomicBool::new(false));
    let bad = Arc::new(Mutex::new(Vec::<String>::new()));
    let fast: Vec<_> = [d.spamd.clone(), d.http.clone()]
        .into_iter()
        .enumerate()
        .map(|(k, addr)| {
            let (spam, bad, stopping) = (spam.clone(), Arc::clone(&bad), Arc::clone(&stopping));
            std::thread::spawn(move || {
                let mut answered = 0;
                loop {
                    let request = if k == 0 {
                        spamd_request("CHECK", "", &spam)
                    } else {
                        http_request("POST", "/checkv2", &[], &spam)
                    };
                    match exchange(&addr, &request) {
                        Ok(a) => {
                            // A connection the daemon took is answered in full.
                            let whole = if k == 0 {
                                checked(&a)
                            } else {
                                complete_http(&a).is_some_and(|(s, _)| s == 200)
                            };
                            if whole {
                                answered += 1;
                            } else {
                                let a = String::from_utf8_lossy(&a).into_owned();
                                bad.lock().unwrap().push(a);
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => break,
                        // Taken by the system, not by the daemon, as it closed its socket.
                        Err(e) => assert!(stopping.load(SeqCst), "{e}"),
                    }
                }
                answered
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    stopping.store(true, SeqCst);
    let signalled = Instant::now();
    signal(&d, libc::SIGTERM);
    go.store(true, SeqCst);
    // New connections are refused at once, while those in flight are still arriving.
    assert!(within(Duration::from_secs(1), || refused(&d.spamd)
        && refused(&d.http)));
    assert!(slow_clients.iter().all(|c| !c.is_finished()));
    for ((what, ..), c) in slow.iter().zip(slow_clients) {
        let answer = c.join().unwrap().unwrap_or_else(|e| panic!("{what}: {e}"));
        let text = String::from_utf8_lossy(&answer);
        let whole = if what.starts_with("an HTTP") {
            complete_http(&answer).is_some_and(|(status, body)| {
                let v: serde_json::Value = serde_json::from_str(&body).unwrap();
                status == 200 && (v["success"] == true || v["action"].is_string())
            })
        } else if what.contains("TELL") {
            complete_spamd(&answer) && answer.starts_with(b"SPAMD/1.5 0 EX_OK\r\nDidSet: local")
        } else {
            checked(&answer)
        };
        assert!(whole, "{what}: {text:?}");
    }
    for f in fast {
        assert!(f.join().unwrap() > 0, "the fast clients were answered");
    }
    assert_eq!(*bad.lock().unwrap(), Vec::<String>::new());
    let status = d.child.wait().unwrap();
    assert!(status.success(), "{status}");
    // It ended when the last request was answered, not at the stop deadline (10 s).
    let took = signalled.elapsed();
    assert!(
        took >= Duration::from_millis(2400) && took < Duration::from_secs(9),
        "{took:?}"
    );
    assert!(refused(&d.spamd) && refused(&d.http));
    // Both learns in flight were committed.
    assert_eq!(learned(&store), 2);
}

#[test]
fn a_model_file_replaced_a_hundred_times_under_load_fails_no_request() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    // The same messages with their classes swapped: every verdict turns.
    let swapped = dir.path().join("swapped.model");
    train_filter(&corpus.join("ham"), &corpus.join("spam"), &swapped, &[]);
    // A text model: no spam filter.
    let topics = dir.path().join("topics.model");
    let tsv = dir.path().join("topics.tsv");
    std::fs::write(&tsv, "a\tone two three\nb\tfour five six\n").unwrap();
    bin()
        .args(["train", "-o"])
        .arg(&topics)
        .arg(&tsv)
        .assert()
        .success();
    let served = dir.path().join("served.model");
    std::fs::copy(&model, &served).unwrap();
    let d = Daemon::start(&served, &[]);
    let raw = std::fs::read(corpus.join("spam/0.eml")).unwrap();
    // The verdict on `raw` now, over rspamd's protocol: spam under `model`, ham under
    // `swapped`.
    let says_spam = || {
        let (status, body) = d.http("POST", "/checkv2", &[], &raw);
        assert_eq!(status, 200, "{body}");
        body.contains("\"action\":\"add header\"") || body.contains("\"action\":\"reject\"")
    };
    assert!(says_spam());
    let generation = || d.metric("rosenblatt_model_generation") as u64;
    // Three clients check the message over spamd, rspamd and the JSON API until told to
    // stop; every answer must be whole, with a verdict.
    let stop = Arc::new(AtomicBool::new(false));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let verdicts = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let checkers: Vec<_> = (0..3)
        .map(|k| {
            let (spamd, http, raw) = (d.spamd.clone(), d.http.clone(), raw.clone());
            let (stop, failures, verdicts) = (
                Arc::clone(&stop),
                Arc::clone(&failures),
                Arc::clone(&verdicts),
            );
            std::thread::spawn(move || {
                while !stop.load(SeqCst) {
                    let said: Result<bool, String> = match k {
                        0 => exchange(&spamd, &spamd_request("CHECK", "", &raw))
                            .map_err(|e| e.to_string())
                            .and_then(|a| {
                                let text = String::from_utf8_lossy(&a).into_owned();
                                if checked(&a) {
                                    Ok(spam_line(&text).0)
                                } else {
                                    Err(text)
                                }
                            }),
                        1 => match try_http(&http, "POST", "/checkv2", &[], &raw) {
                            Ok((200, body)) => Ok(!body.contains("\"action\":\"no action\"")),
                            Ok((status, body)) => Err(format!("{status} {body}")),
                            Err(e) => Err(e.to_string()),
                        },
                        _ => match try_http(&http, "POST", "/v1/classify", &[], &raw) {
                            Ok((200, body)) => serde_json::from_str::<serde_json::Value>(&body)
                                .map(|v| v["label"] == "spam")
                                .map_err(|e| format!("{e}: {body}")),
                            Ok((status, body)) => Err(format!("{status} {body}")),
                            Err(e) => Err(e.to_string()),
                        },
                    };
                    match said {
                        Ok(spam) => {
                            verdicts[usize::from(spam)].fetch_add(1, SeqCst);
                        }
                        Err(e) => failures.lock().unwrap().push(format!("client {k}: {e}")),
                    }
                    // (Load, not all of the machine: other tests run beside this one.)
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
        })
        .collect();
    let models = [&swapped, &model];
    // Renamed over the served path as `train -o` writes a model: a whole file each time.
    let replace = |i: usize, with: &[u8]| {
        let next = dir.path().join(format!("served.{i}.tmp"));
        std::fs::write(&next, with).unwrap();
        std::fs::rename(&next, &served).unwrap();
    };
    let bytes = models.map(|m| std::fs::read(m).unwrap());
    let mut hangups = 0;
    for i in 0..100 {
        replace(i, &bytes[i % 2]);
        if i % 3 == 0 {
            signal(&d, libc::SIGHUP);
            hangups += 1;
        }
        if i % 30 == 29 {
            // No signal after this one: the daemon's look at the path finds it.
            let want = i % 2 == 1;
            assert!(
                within(Duration::from_secs(5), || says_spam() == want),
                "replacement {i} was not picked up"
            );
        } else {
            std::thread::sleep(Duration::from_millis(40));
        }
        if i == 49 {
            // Damaged replacements are refused and the model in service goes on: one
            // truncated, one no spam filter. (What settles first: the last sound model
            // in service.)
            signal(&d, libc::SIGHUP);
            hangups += 1;
            assert!(within(Duration::from_secs(5), &says_spam));
            std::thread::sleep(Duration::from_millis(300));
            let g = generation();
            let truncated = &bytes[1][..bytes[1].len() / 2];
            let topics = std::fs::read(&topics).unwrap();
            for (k, damaged) in [truncated, &topics].into_iter().enumerate() {
                replace(1000 + k, damaged);
                signal(&d, libc::SIGHUP);
                // (Past the daemon's look at the path, once a second, too.)
                std::thread::sleep(Duration::from_millis(1300));
                assert_eq!(generation(), g, "a damaged replacement ({k}) was taken");
                assert!(says_spam());
            }
        }
    }
    // The last, `model`, is in service in the end.
    assert!(within(Duration::from_secs(5), says_spam));
    stop.store(true, SeqCst);
    for c in checkers {
        c.join().unwrap();
    }
    assert_eq!(*failures.lock().unwrap(), Vec::<String>::new());
    let (ham, spam) = (verdicts[0].load(SeqCst), verdicts[1].load(SeqCst));
    eprintln!(
        "{spam} spam and {ham} ham verdicts; generation {}",
        generation()
    );
    assert!(
        ham > 0 && spam > 0,
        "both models answered during the replacements"
    );
    // The metrics count the reloads: at least the three found by looking, and most of
    // the SIGHUPs (two signals close together may arrive as one).
    let reloads = generation() - 1;
    assert!(
        reloads >= 3 + hangups / 2,
        "{reloads} reloads for {hangups} SIGHUPs"
    );
    for protocol in ["spamd", "rspamd", "api"] {
        let failed =
            format!("rosenblatt_requests_total{{protocol=\"{protocol}\",outcome=\"failed\"}}");
        assert_eq!(d.metric(&failed), 0.0, "{failed}");
    }
    assert!(d.stop().success());
}

#[test]
fn a_model_file_rewritten_in_place_leaves_the_model_in_service_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    let swapped = dir.path().join("swapped.model");
    train_filter(&corpus.join("ham"), &corpus.join("spam"), &swapped, &[]);
    let served = dir.path().join("served.model");
    std::fs::copy(&model, &served).unwrap();
    let d = Daemon::start(&served, &[]);
    let raw = std::fs::read(corpus.join("spam/0.eml")).unwrap();
    let p = || p_served(&d, &raw);
    let before = p();
    assert!(before > 0.5, "{before}");
    // Rewritten in place, as `cp` does: cut to nothing, then half the file, then garbage.
    // A model read in place from its mapping would end the daemon (SIGBUS) or change under
    // it; this one was copied out, so it answers as before while each is refused.
    let whole = std::fs::read(&swapped).unwrap();
    for content in [&b""[..], &whole[..whole.len() / 2], b"not a model at all"] {
        std::fs::write(&served, content).unwrap();
        signal(&d, libc::SIGHUP);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(p(), before);
    }
    // The whole new model, written in place too, is taken.
    std::fs::write(&served, &whole).unwrap();
    signal(&d, libc::SIGHUP);
    assert!(within(Duration::from_secs(10), || p() < 0.5));
    assert!(d.stop().success());
}

/// P(spam) of `raw` as the daemon `d` says it over the JSON API.
fn p_served(d: &Daemon, raw: &[u8]) -> f64 {
    let (status, body) = d.http("POST", "/v1/classify", &[], raw);
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(body.lines().next().unwrap()).unwrap();
    v["probability"].as_f64().unwrap_or_else(|| panic!("{v}"))
}

#[test]
fn sigterm_as_soon_as_the_daemon_listens_stops_it_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let (_, store) = filter_store(dir.path());
    // A service manager may stop the daemon the moment it says it listens: the signal is
    // the daemon's by then, so it stops with status 0 rather than being ended by it.
    for _ in 0..20 {
        let d = Daemon::start(&store, &[]);
        let status = d.stop();
        assert!(status.success(), "{status:?}");
    }
}
