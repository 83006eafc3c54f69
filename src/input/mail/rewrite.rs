//! A message written back with one header field set, for filters that deliver the
//! message on (procmail, maildrop, Sieve): the verdict travels in the header, and a field
//! of the same name the sender wrote is dropped, so a verdict cannot be forged.

/// `raw` with the field `name: value` added at the end of its header (before the blank
/// line) and any `name:` fields already there removed (a sender could forge one). Keeps
/// an mbox envelope line first and the message's line ending (CRLF or LF).
pub fn with_field(raw: &[u8], name: &str, value: &str) -> Vec<u8> {
    let crlf = raw
        .iter()
        .position(|&b| b == b'\n')
        .is_some_and(|i| i > 0 && raw[i - 1] == b'\r');
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let field = [format!("{name}: {value}").as_bytes(), eol].concat();
    let mut out = Vec::with_capacity(raw.len() + field.len());
    let mut lines = raw.split_inclusive(|&b| b == b'\n').peekable();
    if let Some(first) = lines.peek()
        && first.starts_with(b"From ")
    {
        out.extend_from_slice(first);
        lines.next();
    }
    let is_blank = |l: &[u8]| l.iter().all(|&b| b == b'\r' || b == b'\n');
    // Our field, in any case, with spaces or tabs before its ':' (the obsolete syntax).
    let is_ours = |l: &[u8]| {
        l.len() > name.len()
            && l[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            && l[name.len()..].iter().find(|&&b| b != b' ' && b != b'\t') == Some(&b':')
    };
    // A header field line: a name of printable characters but ':', then ':' (after
    // spaces or tabs, as the obsolete syntax allows).
    let is_field = |l: &[u8]| {
        let n = l
            .iter()
            .take_while(|&&b| b.is_ascii_graphic() && b != b':')
            .count();
        let gap = l[n..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        n > 0 && l.get(n + gap) == Some(&b':')
    };
    let is_continuation = |l: &[u8]| l.first().is_some_and(|&b| b == b' ' || b == b'\t');
    let mut header = Vec::new();
    let mut in_ours = false;
    // Where the header block ends: a blank line, or a line that is no header field (the
    // body, as the parser reads it, when the blank line is missing), or the end.
    let mut end = None;
    for l in lines.by_ref() {
        let continues = is_continuation(l) && (in_ours || !header.is_empty());
        if is_blank(l) || !(is_field(l) || continues) {
            end = Some(l);
            break;
        }
        if is_continuation(l) && in_ours {
            continue; // continuation of a dropped field
        }
        in_ours = is_ours(l);
        if !in_ours {
            header.push(l);
        }
    }
    header.iter().for_each(|l| out.extend_from_slice(l));
    if header.last().is_some_and(|l| !l.ends_with(b"\n")) {
        out.extend_from_slice(eol);
    }
    out.extend_from_slice(&field);
    match end {
        Some(blank) if is_blank(blank) => out.extend_from_slice(blank),
        Some(body) => {
            // The body began without the blank line: give it one, so that the body's
            // lines are not read as header lines below the new field.
            out.extend_from_slice(eol);
            out.extend_from_slice(body);
        }
        None => {}
    }
    lines.for_each(|l| out.extend_from_slice(l));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(s: &str) -> String {
        String::from_utf8(with_field(s.as_bytes(), "X-Rosenblatt", "spam; score=1.5")).unwrap()
    }

    #[test]
    fn header_goes_before_the_blank_line_and_forgeries_go() {
        assert_eq!(
            add(
                "From a@b Mon Jan  1 00:00:00 2001\nSubject: hi\nX-rosenblatt: ham;\n x\n\nbody\n\nmore\n"
            ),
            "From a@b Mon Jan  1 00:00:00 2001\nSubject: hi\nX-Rosenblatt: spam; score=1.5\n\nbody\n\nmore\n"
        );
        assert_eq!(
            add("Subject: hi\r\n\r\nbody\r\n"),
            "Subject: hi\r\nX-Rosenblatt: spam; score=1.5\r\n\r\nbody\r\n"
        );
        // Text without a header: the field, the blank line, then the text as the body.
        assert_eq!(
            add("no header at all\nfree: money\n"),
            "X-Rosenblatt: spam; score=1.5\n\nno header at all\nfree: money\n"
        );
        // A header ended by a body line instead of a blank line gets the blank line.
        assert_eq!(
            add("Subject: hi\r\n folded\r\nbody text\r\n\r\nmore\r\n"),
            "Subject: hi\r\n folded\r\nX-Rosenblatt: spam; score=1.5\r\n\r\nbody text\r\n\r\nmore\r\n"
        );
        // A forged field right before a body line that lost its blank line.
        assert_eq!(
            add("Subject: hi\nX-Rosenblatt: ham\n folded\nbody\n"),
            "Subject: hi\nX-Rosenblatt: spam; score=1.5\n\nbody\n"
        );
        // The obsolete `Name :` form is a field too.
        assert_eq!(
            add("Subject : hi\nTo: a@b\n\nbody\n"),
            "Subject : hi\nTo: a@b\nX-Rosenblatt: spam; score=1.5\n\nbody\n"
        );
        // A forgery in that form goes too; a longer name that starts with ours stays.
        assert_eq!(
            add("X-Rosenblatt \t: ham\nX-Rosenblatt-Seen: 1\n\nbody\n"),
            "X-Rosenblatt-Seen: 1\nX-Rosenblatt: spam; score=1.5\n\nbody\n"
        );
        // A header and no body.
        assert_eq!(
            add("Subject: hi\nX-Rosenblatt: ham\n"),
            "Subject: hi\nX-Rosenblatt: spam; score=1.5\n"
        );
        assert_eq!(
            add("Subject: hi"),
            "Subject: hi\nX-Rosenblatt: spam; score=1.5\n"
        );
        assert_eq!(add(""), "X-Rosenblatt: spam; score=1.5\n");
    }
}
