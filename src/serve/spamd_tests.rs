//! The spamd protocol's tests: request heads parsed and refused within bounds, answers
//! written as spamd writes them.

use super::*;

fn parsed(head: &str) -> Result<Option<(Request, usize)>, Refusal> {
    parse_head(head.as_bytes(), &Limits::default())
}

#[test]
fn a_check_head_is_read_up_to_its_empty_line() {
    let raw =
        "CHECK SPAMC/1.5\r\nContent-length: 12\r\nUser: alice\r\nX-Other: 1\r\n\r\nSubject: hi\n";
    let (r, end) = parsed(raw).unwrap().unwrap();
    assert_eq!(end, raw.len() - "Subject: hi\n".len());
    assert_eq!(r.command, Command::Check);
    assert_eq!(r.version, (1, 5));
    assert_eq!(r.content_length, Some(12));
    assert_eq!(r.user.as_deref(), Some("alice"));
    // A bare LF ends lines as CRLF does.
    let (r, _) = parsed("SYMBOLS SPAMC/1.3\ncontent-length: 3\n\n")
        .unwrap()
        .unwrap();
    assert_eq!(
        (r.command, r.version, r.content_length),
        (Command::Symbols, (1, 3), Some(3))
    );
}

#[test]
fn a_head_not_yet_ended_waits_for_more_within_its_bound() {
    assert_eq!(parsed("CHECK SPAMC/1.5\r\nContent-le").unwrap(), None);
    let limits = Limits {
        head_bytes: 32,
        ..Limits::default()
    };
    let long = format!("CHECK SPAMC/1.5\r\nX: {}", "a".repeat(40));
    let e = parse_head(long.as_bytes(), &limits).unwrap_err();
    assert_eq!(e.status, Status::Protocol);
}

#[test]
fn ping_and_skip_need_no_message() {
    let (r, end) = parsed("PING SPAMC/1.5\r\n\r\n").unwrap().unwrap();
    assert_eq!((r.command, end), (Command::Ping, 18));
    assert!(parsed("SKIP SPAMC/1.5\r\n\r\n").unwrap().is_some());
    // A message command without its length cannot be framed.
    assert_eq!(
        parsed("CHECK SPAMC/1.5\r\n\r\n").unwrap_err().status,
        Status::Protocol
    );
}

#[test]
fn tell_needs_a_class_and_one_action() {
    let (r, _) = parsed(
        "TELL SPAMC/1.5\r\nMessage-class: spam\r\nSet: local, remote\r\nContent-length: 5\r\n\r\n",
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        (r.class, r.set_local, r.remove_local),
        (Some(MessageClass::Spam), true, false)
    );
    for bad in [
        "TELL SPAMC/1.5\r\nSet: local\r\nContent-length: 5\r\n\r\n",
        "TELL SPAMC/1.5\r\nMessage-class: ham\r\nContent-length: 5\r\n\r\n",
        "TELL SPAMC/1.5\r\nMessage-class: ham\r\nSet: local\r\nRemove: local\r\nContent-length: 5\r\n\r\n",
        "TELL SPAMC/1.5\r\nMessage-class: eggs\r\nSet: local\r\nContent-length: 5\r\n\r\n",
    ] {
        assert_eq!(parsed(bad).unwrap_err().status, Status::Protocol, "{bad}");
    }
}

#[test]
fn malformed_heads_are_refused_with_a_status() {
    let cases = [
        ("GET / HTTP/1.1\r\n\r\n", Status::Protocol),
        ("CHECK\r\n\r\n", Status::Protocol),
        (
            "CHECK SPAMC/x.y\r\nContent-length: 1\r\n\r\n",
            Status::Protocol,
        ),
        ("CHECK SPAMC/1.5 extra\r\n\r\n", Status::Protocol),
        (
            "CHECK SPAMC/9.9\r\nContent-length: 1\r\n\r\n",
            Status::Protocol,
        ),
        (
            "CHECK SPAMC/1.5\r\nContent-length: +4\r\n\r\n",
            Status::Protocol,
        ),
        (
            "CHECK SPAMC/1.5\r\nContent-length: 4\r\nContent-length: 5\r\n\r\n",
            Status::Protocol,
        ),
        (
            "CHECK SPAMC/1.5\r\nContent-length: -1\r\n\r\n",
            Status::Protocol,
        ),
        (
            "CHECK SPAMC/1.5\r\nContent-length: 99999999999999999999\r\n\r\n",
            Status::Protocol,
        ),
        (
            "CHECK SPAMC/1.5\r\nContent-length: 999999999\r\n\r\n",
            Status::DataErr,
        ),
        ("CHECK SPAMC/1.5\r\nno colon here\r\n\r\n", Status::Protocol),
        (
            "CHECK SPAMC/1.5\r\nCompress: zlib\r\nContent-length: 1\r\n\r\n",
            Status::Protocol,
        ),
    ];
    for (head, status) in cases {
        assert_eq!(parsed(head).unwrap_err().status, status, "{head:?}");
    }
    let not_text = b"CHECK SPAMC/1.5\r\nUser: \xff\r\n\r\n";
    assert!(parse_head(not_text, &Limits::default()).is_err());
    let many = format!(
        "CHECK SPAMC/1.5\r\n{}Content-length: 1\r\n\r\n",
        "X: y\r\n".repeat(65)
    );
    assert_eq!(parsed(&many).unwrap_err().status, Status::Protocol);
}

#[test]
fn answers_are_written_as_spamc_reads_them() {
    let v = Verdict {
        spam: true,
        score: 9.94,
        threshold: 9.0,
    };
    assert_eq!(
        answer((1, 5), &Answer::Verdict(v)),
        b"SPAMD/1.5 0 EX_OK\r\nSpam: True ; 9.9 / 9.0\r\nContent-length: 0\r\n\r\n"
    );
    let names = ["free".to_string(), "cash".to_string()];
    assert_eq!(
        answer(
            (1, 5),
            &Answer::Symbols(Verdict { spam: false, ..v }, &names)
        ),
        b"SPAMD/1.5 0 EX_OK\r\nSpam: False ; 8.9 / 9.0\r\nContent-length: 9\r\n\r\nfree,cash"
    );
    // A score that rounds to the threshold stays on its verdict's side of it.
    let near = |spam, score| {
        let v = Verdict {
            spam,
            score,
            threshold: 9.0,
        };
        String::from_utf8(answer((1, 5), &Answer::Verdict(v))).unwrap()
    };
    assert!(near(false, 8.96).contains("False ; 8.9 / 9.0"));
    assert!(near(false, 3.04).contains("False ; 3.0 / 9.0"));
    assert!(near(true, 8.9999).contains("True ; 9.0 / 9.0"));
    assert!(near(true, 9.04).contains("True ; 9.0 / 9.0"));
    assert_eq!(answer((1, 2), &Answer::Pong), b"SPAMD/1.2 0 PONG\r\n");
    assert_eq!(
        answer(
            (1, 5),
            &Answer::Told {
                set: true,
                removed: false
            }
        ),
        b"SPAMD/1.5 0 EX_OK\r\nDidSet: local\r\nContent-length: 0\r\n\r\n"
    );
    assert_eq!(
        error((1, 5), Status::TempFail),
        b"SPAMD/1.5 75 EX_TEMPFAIL\r\n"
    );
}
