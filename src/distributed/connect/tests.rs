//! Unit tests of the joins: the hostfile, real sockets between threads (three processes,
//! a missing peer, strangers, silent and trickling connections, a join closed early,
//! another key), and the log of failed joins.

use super::*;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn hostfile_lines_are_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("hosts");
    std::fs::write(
        &p,
        "# cluster\nh0:2101\n\n10.0.0.2:2102  # second\nh2:2103\n",
    )
    .unwrap();
    assert_eq!(read_hostfile(&p, 2).unwrap(), ["h0:2101", "10.0.0.2:2102"]);
    let e = read_hostfile(&p, 4).unwrap_err().to_string();
    assert!(e.contains("3 addresses for 4 processes"), "{e}");
    std::fs::write(&p, "h0:2101\nh1\n").unwrap();
    let e = read_hostfile(&p, 2).unwrap_err().to_string();
    assert!(e.contains("hosts:2:") && e.contains("host:port"), "{e}");
    std::fs::write(&p, "h0:2101\n# two\nh0:2101\n").unwrap();
    let e = read_hostfile(&p, 2).unwrap_err().to_string();
    assert!(
        e.contains("hosts:3:") && e.contains("listed twice (line 1 too)"),
        "{e}"
    );
    std::fs::write(&p, "h0:2101\nh1:0\n").unwrap();
    let e = read_hostfile(&p, 2).unwrap_err().to_string();
    assert!(e.contains("hosts:2:") && e.contains("port 0"), "{e}");
    std::fs::write(&p, b"h0:2101\nh\xff:2102\n").unwrap();
    let e = read_hostfile(&p, 2).unwrap_err().to_string();
    assert!(e.contains("hosts:2:") && e.contains("not UTF-8"), "{e}");
    #[cfg(unix)]
    {
        let e = read_hostfile(std::path::Path::new("/dev/zero"), 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("longer than 1048576 bytes"), "{e}");
    }
}

fn addresses(n: usize) -> Vec<String> {
    (0..n)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect()
}

/// A connection to `addr`, once something listens there.
fn reach(addr: &str) -> TcpStream {
    loop {
        if let Ok(s) = TcpStream::connect(addr) {
            return s;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn three_processes_join_and_see_each_other() {
    let addrs = addresses(3);
    let key = ClusterKey::generate().unwrap();
    let handles: Vec<_> = (0..3)
        .map(|me| {
            let (a, k) = (addrs.clone(), key.clone());
            std::thread::spawn(move || connect(&a, me, Duration::from_secs(20), &k))
        })
        .collect();
    for (me, h) in handles.into_iter().enumerate() {
        let streams = h.join().unwrap().unwrap();
        let present: Vec<bool> = streams.iter().map(Option::is_some).collect();
        let expect: Vec<bool> = (0..3).map(|i| i != me).collect();
        assert_eq!(present, expect);
    }
}

#[test]
fn a_missing_peer_ends_the_wait_with_a_sentence() {
    let addrs = addresses(2);
    let key = ClusterKey::generate().unwrap();
    let t = Instant::now();
    let e = connect(&addrs, 0, Duration::from_secs(1), &key)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no word from process 1"), "{e}");
    let e = connect(&addrs, 1, Duration::from_secs(1), &key)
        .unwrap_err()
        .to_string();
    assert!(e.contains("could not reach process 0"), "{e}");
    let e = connect(&addrs, 0, Duration::MAX, &key)
        .unwrap_err()
        .to_string();
    assert!(e.contains("too long"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(10));
}

/// The review's reproducers: a forged greeting (the right magic, version, size and
/// index, without the key), garbage, and a connection that says nothing, all while
/// process 0 waits for process 1. Each is dropped, the forger gets no data beyond the
/// acceptor's nonce and tag, and the real process 1 then joins.
#[test]
fn strangers_are_dropped_and_the_real_peer_still_joins() {
    let addrs = addresses(2);
    let key = ClusterKey::generate().unwrap();
    let (a, k) = (addrs.clone(), key.clone());
    let p0 = std::thread::spawn(move || connect(&a, 0, Duration::from_secs(30), &k));
    let mut forger = reach(&addrs[0]);
    let mut hello = Vec::new();
    hello.extend_from_slice(MAGIC);
    hello.extend_from_slice(&PROTOCOL.to_le_bytes());
    hello.extend_from_slice(&2u64.to_le_bytes());
    hello.extend_from_slice(&1u64.to_le_bytes());
    hello.extend_from_slice(&[7; NONCE]);
    forger.write_all(&hello).unwrap();
    let mut reply = [0u8; NONCE + TAG];
    forger.read_exact(&mut reply).unwrap();
    forger.write_all(&[0; TAG]).unwrap();
    let mut rest = Vec::new();
    forger
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = forger.read_to_end(&mut rest);
    assert!(rest.is_empty(), "the forger was sent {} bytes", rest.len());
    let mut garbage = reach(&addrs[0]);
    garbage
        .write_all(b"GET / HTTP/1.0\r\n\r\n----------------------------------------------------")
        .unwrap();
    let _silent = reach(&addrs[0]);
    let (a, k) = (addrs.clone(), key.clone());
    let p1 = std::thread::spawn(move || connect(&a, 1, Duration::from_secs(30), &k));
    let s0 = p0.join().unwrap().unwrap();
    let s1 = p1.join().unwrap().unwrap();
    assert!(s0[1].is_some() && s1[0].is_some());
}

/// The tester's reproducer: 32 connections to process 0's port that say nothing,
/// held open while process 1 joins. The strangers must neither refuse the real peer
/// nor keep it waiting for their deadlines to pass one by one.
#[test]
fn silent_connections_cannot_hold_off_the_real_peer() {
    let addrs = addresses(2);
    let key = ClusterKey::generate().unwrap();
    let (a, k) = (addrs.clone(), key.clone());
    let p0 = std::thread::spawn(move || connect(&a, 0, Duration::from_secs(20), &k));
    let silent: Vec<TcpStream> = (0..32).map(|_| reach(&addrs[0])).collect();
    // Let process 0 take them all in before the real peer comes.
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    let s1 = connect(&addrs, 1, Duration::from_secs(20), &key).unwrap();
    let s0 = p0.join().unwrap().unwrap();
    assert!(s0[1].is_some() && s1[0].is_some());
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    drop(silent);
}

/// A stranger that trickles a byte every 300 ms (never a whole greeting in time) is
/// cut off `STRANGER` after it was taken in, not after each byte's read timeout.
#[test]
fn a_trickling_stranger_is_dropped_after_its_deadline() {
    let addrs = addresses(2);
    let key = ClusterKey::generate().unwrap();
    let (a, k) = (addrs.clone(), key.clone());
    let p0 = std::thread::spawn(move || connect(&a, 0, Duration::from_secs(20), &k));
    let mut slow = reach(&addrs[0]);
    let t = Instant::now();
    let cut = loop {
        // A write fails, or a read sees the end, once process 0 has dropped it.
        let mut buf = [0u8; 1];
        slow.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        match slow.read(&mut buf) {
            Ok(0) => break t.elapsed(),
            Err(e) if e.kind() != ErrorKind::WouldBlock && e.kind() != ErrorKind::TimedOut => {
                break t.elapsed();
            }
            _ => {}
        }
        if slow.write_all(b"R").is_err() {
            break t.elapsed();
        }
        assert!(t.elapsed() < Duration::from_secs(8), "still connected");
    };
    assert!(
        cut >= STRANGER - Duration::from_millis(400) && cut < STRANGER * 2,
        "{cut:?}"
    );
    let s1 = connect(&addrs, 1, Duration::from_secs(20), &key).unwrap();
    assert!(p0.join().unwrap().unwrap()[1].is_some() && s1[0].is_some());
}

/// Process 1's first try is taken in and closed before the join (what a full acceptor
/// or a restarted process 0 does); it tries again and joins the real process 0.
#[test]
fn a_join_closed_early_is_tried_again() {
    let addrs = addresses(2);
    let key = ClusterKey::generate().unwrap();
    let fake = TcpListener::bind(&addrs[0]).unwrap();
    let (a, k) = (addrs.clone(), key.clone());
    let p1 = std::thread::spawn(move || connect(&a, 1, Duration::from_secs(20), &k));
    let (first, _) = fake.accept().unwrap();
    drop(first);
    drop(fake);
    let s0 = connect(&addrs, 0, Duration::from_secs(20), &key).unwrap();
    let s1 = p1.join().unwrap().unwrap();
    assert!(s0[1].is_some() && s1[0].is_some());
}

/// At most `NOTES_PER_SECOND` lines a second; the rest are counted in one line when
/// the second is over, and at the end.
#[test]
fn failed_joins_are_logged_a_few_lines_a_second() {
    let mut out = Vec::new();
    {
        let mut notes = Notes::new(3, &mut out);
        let t = Instant::now();
        for i in 0..100 {
            notes.note_at(&format!("failed {i}"), t);
        }
        notes.tick(t + Duration::from_millis(500));
        for i in 0..7 {
            notes.note_at(&format!("again {i}"), t + Duration::from_millis(1500));
        }
    }
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    let mut want: Vec<String> = (0..5)
        .map(|i| format!("rosenblatt: process 3: failed {i}"))
        .collect();
    want.push("rosenblatt: process 3: 95 more lines about failed joins not shown".into());
    want.extend((0..5).map(|i| format!("rosenblatt: process 3: again {i}")));
    want.push("rosenblatt: process 3: 2 more lines about failed joins not shown".into());
    assert_eq!(lines, want);
}

#[test]
fn a_peer_with_another_key_is_not_joined() {
    let addrs = addresses(2);
    let (a, k) = (addrs.clone(), ClusterKey::generate().unwrap());
    let p0 = std::thread::spawn(move || connect(&a, 0, Duration::from_secs(3), &k));
    let other = ClusterKey::generate().unwrap();
    let e = connect(&addrs, 1, Duration::from_secs(3), &other)
        .unwrap_err()
        .to_string();
    assert!(e.contains("did not prove the cluster key"), "{e}");
    let e = p0.join().unwrap().unwrap_err().to_string();
    assert!(e.contains("no word from process 1"), "{e}");
}
