//! Who may learn from `rosenblatt serve`, and what a request may reach: a learn without
//! the credential (or from a client not allowed to) is refused over every protocol and
//! changes nothing, and no user name of a request reaches the file system.

use crate::common::{bin, learned, walk};
use crate::serve_durability::{KEY, checked, key_file};
use crate::serve_support::{
    Daemon, complete_http, exchange, filter_store, http_request, p_spam, spamd_request,
};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

/// A local address other than loopback, where this host has one.
fn non_loopback_ipv4() -> Option<std::net::Ipv4Addr> {
    let mut found = None;
    // SAFETY: getifaddrs' list is read while it lives and freed once.
    unsafe {
        let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
        if libc::getifaddrs(&mut list) != 0 {
            return None;
        }
        let mut at = list;
        while !at.is_null() {
            let a = (*at).ifa_addr;
            if found.is_none() && !a.is_null() && i32::from((*a).sa_family) == libc::AF_INET {
                let sin = &*(a as *const libc::sockaddr_in);
                let ip = std::net::Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
                if !ip.is_loopback() && !ip.is_unspecified() {
                    found = Some(ip);
                }
            }
            at = (*at).ifa_next;
        }
        libc::freeifaddrs(list);
    }
    found
}

/// A connection to `to` from loopback (127.0.0.1), whatever address `to` is.
fn from_loopback(to: &str) -> TcpStream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    rt.block_on(async {
        let s = tokio::net::TcpSocket::new_v4().unwrap();
        s.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let s = s.connect(to.parse().unwrap()).await.unwrap();
        let s = s.into_std().unwrap();
        s.set_nonblocking(false).unwrap();
        s
    })
}

#[test]
fn a_learn_without_the_credential_is_refused_everywhere_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let key = key_file(dir.path());
    let path = corpus.join("spam/0.eml");
    let raw = std::fs::read(&path).unwrap();
    // What a learn would change: the store's count and P(spam) of the message.
    let state = || (learned(&store), p_spam(&store, &path));
    let before = state();
    // Learning over HTTP with the credential; spamd over loopback TCP and a Unix socket,
    // without --allow-tell.
    let sock = format!("unix:{}", dir.path().join("spamd.sock").display());
    let (a, listeners) = Daemon::listening(
        &store,
        &[
            "--http",
            "127.0.0.1:0",
            "--spamd",
            "127.0.0.1:0",
            "--spamd",
            &sock,
            "--learn-key",
            &key,
        ],
        3,
    );
    assert!(listeners.contains(&sock), "{listeners:?}");
    for addr in [&a.spamd, &sock] {
        for class in ["spam", "ham"] {
            let extra = format!("Message-class: {class}\r\nSet: local\r\n");
            let answer = exchange(addr, &spamd_request("TELL", &extra, &raw)).unwrap();
            assert_eq!(answer, b"SPAMD/1.5 77 EX_NOPERM\r\n", "{addr}");
            assert_eq!(state(), before, "TELL {class} over {addr}");
        }
    }
    let mut last_changed = KEY.as_bytes().to_vec();
    *last_changed.last_mut().unwrap() ^= 1;
    let last_changed = String::from_utf8(last_changed).unwrap();
    let longer = format!("{KEY}x");
    let twice = format!("{KEY}{KEY}");
    let capital = format!("C{}", &KEY[1..]);
    let wrong: [&[(&str, &str)]; 8] = [
        &[],
        &[("Password", "")],
        &[("Password", &KEY[..KEY.len() - 1])],
        &[("Password", &last_changed)],
        &[("Password", &longer)],
        &[("Password", &twice)],
        &[("Password", &capital)],
        // The key, but not in rspamd's header.
        &[("X-Password", KEY), ("Authorization", KEY)],
    ];
    for path in ["/learnham", "/learnspam"] {
        for headers in wrong {
            let (status, body) = a.http("POST", path, headers, &raw);
            assert_eq!(status, 403, "{path} {headers:?}: {body}");
            assert_eq!(state(), before, "{path} {headers:?}");
        }
    }
    let (_, stat) = a.http("GET", "/stat", &[], b"");
    let stat: serde_json::Value = serde_json::from_str(&stat).unwrap();
    assert_eq!(stat["learned"], 0);
    // The credential itself is taken: the comparisons above would see a learn.
    let (status, _) = a.http("POST", "/learnham", &[("Password", KEY)], &raw);
    assert_eq!(status, 200);
    let after = state();
    assert!(after.0 == before.0 + 1 && after.1 < before.1, "{after:?}");
    assert!(a.stop().success());
    let before = after;
    // TELL allowed, no credential for HTTP: a spamd listener on an address other than
    // loopback, where the host has one, and its clients from there.
    let foreign = non_loopback_ipv4();
    let spamd = match foreign {
        Some(ip) => format!("{ip}:0"),
        None => {
            eprintln!("note: this host has no address but loopback: no TELL from elsewhere");
            "127.0.0.1:0".into()
        }
    };
    let b = Daemon::started(&store, &["--spamd", &spamd, "--allow-tell"], true);
    let (status, body) = b.http("POST", "/learnspam", &[("Password", KEY)], &raw);
    assert_eq!(status, 403, "no --learn-key: {body}");
    assert_eq!(state(), before);
    let tell = spamd_request("TELL", "Message-class: ham\r\nSet: local\r\n", &raw);
    if foreign.is_some() {
        // (A client of this host connecting to that address comes from it.)
        let answer = exchange(&b.spamd, &tell).unwrap();
        assert_eq!(answer, b"SPAMD/1.5 77 EX_NOPERM\r\n");
        assert_eq!(state(), before, "TELL from {}", b.spamd);
    }
    // The same TELL from loopback learns.
    let mut s = from_loopback(&b.spamd);
    s.write_all(&tell).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    assert!(
        answer.starts_with(b"SPAMD/1.5 0 EX_OK\r\nDidSet: local"),
        "{answer:?}"
    );
    assert_eq!(state().0, before.0 + 1);
    assert!(b.stop().success());
}

/// Every path under `dir` (folders included), relative to it.
fn tree(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for f in walk(dir) {
        let mut p = f.strip_prefix(dir).unwrap().to_path_buf();
        out.insert(p.clone());
        while p.pop() && !p.as_os_str().is_empty() {
            out.insert(p.clone());
        }
    }
    out
}

/// `strace` following the file system calls of process `pid` (its threads, and those
/// it starts) into `out`, once it has attached; `None`, with a note, where it cannot.
fn traced(pid: u32, out: &Path) -> Option<std::process::Child> {
    let started = std::process::Command::new("strace")
        .args(["-f", "-e", "trace=%file", "-s", "4096", "-o"])
        .arg(out)
        .args(["-p", &pid.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let Ok(mut strace) = started else {
        eprintln!("note: strace is not installed: the daemon's file calls are not traced");
        return None;
    };
    // "strace: Process N attached with T threads", once it holds them all.
    let mut lines = BufReader::new(strace.stderr.take().unwrap()).lines();
    loop {
        match lines.next() {
            Some(Ok(line)) if line.contains("attached") => break,
            Some(Ok(_)) => {}
            _ => {
                let _ = strace.wait();
                eprintln!("note: strace could not attach: the daemon's file calls are not traced");
                return None;
            }
        }
    }
    std::thread::spawn(move || for _ in lines {});
    Some(strace)
}

#[test]
fn no_user_name_reaches_the_file_system() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = filter_store(dir.path());
    let key = key_file(dir.path());
    // The users' folder deep in the test's folder, alice's filter in it: a name that
    // left the folder (up to three levels) would land in the test's folder.
    let stores = dir.path().join("deep/er/users");
    std::fs::create_dir_all(&stores).unwrap();
    bin()
        .arg("convert")
        .arg(dir.path().join("spam.model"))
        .arg(stores.join("alice"))
        .assert()
        .success();
    let outside = dir.path().join("outside");
    let before = tree(dir.path());
    let d = Daemon::start(
        &store,
        &[
            "--stores",
            stores.to_str().unwrap(),
            "--allow-tell",
            "--learn-key",
            &key,
        ],
    );
    // (The trace is written outside the folder watched.)
    let elsewhere = tempfile::tempdir().unwrap();
    let trace = elsewhere.path().join("strace.out");
    let strace = traced(d.child.id(), &trace);
    let raw = std::fs::read(corpus.join("spam/0.eml")).unwrap();
    let long = "a".repeat(65);
    let longer = "a".repeat(1000);
    let wide = "é".repeat(32);
    let absolute = outside.to_str().unwrap().to_string();
    let names: Vec<&[u8]> = vec![
        b"a\0b",
        b"\0",
        b"alice\0",
        b"\0alice",
        b"alice\0/../../../outside",
        absolute.as_bytes(),
        b"../../../outside",
        b"alice/../../../../outside",
        b"alice/",
        b"./alice",
        b"...",
        b"a b",
        b"a\tb",
        b"a\\b",
        long.as_bytes(),
        longer.as_bytes(),
        // 64 bytes, but not letters of the name's alphabet.
        wide.as_bytes(),
    ];
    // An rspamd request to `path` (with the credential) for the user `name`, its bytes
    // as they come.
    let deliver_to = |path: &str, name: &[u8]| {
        let plain = http_request("POST", path, &[("Password", KEY)], &raw);
        let cut = plain.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 2;
        let request = [&plain[..cut], b"Deliver-To: ", name, b"\r\n", &plain[cut..]].concat();
        complete_http(&exchange(&d.http, &request).unwrap()).unwrap()
    };
    let commands = [
        ("CHECK", ""),
        ("SYMBOLS", ""),
        ("REPORT", ""),
        ("REPORT_IFSPAM", ""),
        ("HEADERS", ""),
        ("PROCESS", ""),
        ("TELL", "Message-class: spam\r\nSet: local\r\n"),
    ];
    for name in &names {
        // spamd: the header's bytes as they come (a NUL is text to its parser).
        for (command, extra) in commands {
            let mut user = b"User: ".to_vec();
            user.extend_from_slice(name);
            user.extend_from_slice(b"\r\n");
            let head = format!("{command} SPAMC/1.5\r\n{extra}");
            let request = [
                head.as_bytes(),
                &user,
                format!("Content-length: {}\r\n\r\n", raw.len()).as_bytes(),
                &raw,
            ]
            .concat();
            let answer = exchange(&d.spamd, &request).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&answer),
                "SPAMD/1.5 67 EX_NOUSER\r\n",
                "{command} for {:?}",
                String::from_utf8_lossy(name)
            );
        }
        // rspamd: Deliver-To, checked and learned (with the credential).
        for path in ["/checkv2", "/learnspam", "/learnham"] {
            let (status, body) = deliver_to(path, name);
            let name = String::from_utf8_lossy(name);
            assert_eq!(status, 400, "{path} for {name:?}: {body}");
        }
    }
    // A name that is not text is no request (spamd) and not the name of anyone (HTTP).
    let length = format!("Content-length: {}\r\n\r\n", raw.len());
    let request = [
        b"CHECK SPAMC/1.5\r\nUser: \xff\r\n",
        length.as_bytes(),
        &raw,
    ]
    .concat();
    let answer = exchange(&d.spamd, &request).unwrap();
    assert_eq!(answer, b"SPAMD/1.5 76 EX_PROTOCOL\r\n");
    for path in ["/checkv2", "/learnspam", "/learnham"] {
        assert_eq!(deliver_to(path, b"\xff").0, 400, "{path}");
    }
    // The longest name is a name: a user without a filter, judged by the daemon's.
    let longest = "a".repeat(64);
    let answer = d.spamd(&spamd_request(
        "CHECK",
        &format!("User: {longest}\r\n"),
        &raw,
    ));
    assert!(checked(answer.as_bytes()), "{answer}");
    let (status, _) = d.http("POST", "/checkv2", &[("Deliver-To", &longest)], &raw);
    assert_eq!(status, 200);
    let answer = d.spamd(&spamd_request("CHECK", "User: alice\r\n", &raw));
    assert!(checked(answer.as_bytes()), "{answer}");
    // Nothing was learned anywhere, no file or folder made, none reached outside.
    assert_eq!(d.metric("rosenblatt_learns_total{class=\"spam\"}"), 0.0);
    assert!(d.stop().success());
    assert_eq!(learned(&store), 0);
    assert_eq!(learned(&stores.join("alice")), 0);
    assert_eq!(tree(dir.path()), before);
    assert!(!outside.exists());
    // The daemon's own file calls: under the users' folder, only alice's filter and the
    // longest name were looked for (the trace sees such paths), and nothing outside.
    if let Some(mut strace) = strace {
        assert!(strace.wait().unwrap().success());
        let calls = std::fs::read_to_string(&trace).unwrap();
        let users = format!("{}/", stores.display());
        let mut seen = BTreeSet::new();
        for line in calls.lines() {
            assert!(!line.contains("outside"), "{line}");
            for (at, _) in line.match_indices(&users) {
                let rest = &line[at + users.len()..];
                let name = rest.split(['/', '"']).next().unwrap();
                assert!(name == "alice" || name == longest, "{line}");
                seen.insert(name.to_string());
            }
        }
        assert_eq!(seen, BTreeSet::from(["alice".to_string(), longest]));
    }
}
