//! mbox files, streamed: messages are cut at "From " envelope lines and handed out one at a
//! time, so an mbox of several gigabytes is never held whole in memory.
//!
//! A line starts a new message when it begins with `From `, looks like an envelope line
//! (`From SENDER DATE`, the date ending in a time or a year) and follows a blank line (or
//! opens the file). The stricter rule keeps an unescaped "From " sentence in a body (mboxo
//! files, single-message files) from splitting the message. The envelope line itself is
//! not content. Escaped lines are unescaped mboxrd-style: `>From `, `>>From `, … lose one
//! `>` (which also undoes mboxo's `>From ` quoting).

use std::io::BufRead;

/// One message cut out of an mbox: its raw bytes and where it started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MboxMessage {
    /// 1-based line number of its envelope line (or of its first line when there is none).
    pub line: usize,
    /// The message (headers and body) without the envelope line, unescaped.
    pub bytes: Vec<u8>,
}

/// Iterates the messages of an mbox read from `reader`.
pub struct MboxReader<R> {
    reader: R,
    line_no: usize,
    buf: Vec<u8>,
    /// Bytes of a pending envelope line that starts the next message, with its line number.
    next_start: Option<usize>,
    prev_blank: bool,
    done: bool,
}

impl<R: BufRead> MboxReader<R> {
    /// Reads messages from `reader`.
    pub fn new(reader: R) -> Self {
        MboxReader {
            reader,
            line_no: 0,
            buf: Vec::with_capacity(256),
            next_start: None,
            prev_blank: true,
            done: false,
        }
    }
}

/// Whether `line` (without its line ending) looks like an mbox envelope line:
/// `From ` + a sender + a date whose last word is a time (`12:34:56`) or a year.
pub(crate) fn is_envelope(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"From ") else {
        return false;
    };
    let words: Vec<&[u8]> = rest
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() < 3 {
        return false;
    }
    let has_year = words[1..]
        .iter()
        .any(|w| w.len() == 4 && w.iter().all(u8::is_ascii_digit));
    let has_time = words[1..].iter().any(|w| {
        w.len() >= 4 && w.contains(&b':') && w.iter().all(|b| b.is_ascii_digit() || *b == b':')
    });
    has_year && has_time
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Appends `line` to `out`, removing one `>` from `>…>From ` lines.
fn push_unescaped(out: &mut Vec<u8>, line: &[u8]) {
    if line.first() == Some(&b'>') {
        let i = line.iter().position(|&b| b != b'>').unwrap_or(line.len());
        if line[i..].starts_with(b"From ") {
            out.extend_from_slice(&line[1..]);
            return;
        }
    }
    out.extend_from_slice(line);
}

impl<R: BufRead> Iterator for MboxReader<R> {
    type Item = std::io::Result<MboxMessage>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut msg = MboxMessage {
            line: self.next_start.take().unwrap_or(self.line_no + 1),
            bytes: Vec::new(),
        };
        let mut started = msg.line <= self.line_no; // an envelope line was already consumed
        loop {
            self.buf.clear();
            match self.reader.read_until(b'\n', &mut self.buf) {
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Ok(0) => {
                    self.done = true;
                    if started {
                        trim_separator(&mut msg.bytes); // the last one ends with a blank line too
                    }
                    return (started || !msg.bytes.is_empty()).then_some(Ok(msg));
                }
                Ok(_) => {}
            }
            self.line_no += 1;
            let line = trim_eol(&self.buf);
            let envelope = self.prev_blank && is_envelope(line);
            self.prev_blank = line.is_empty();
            if envelope {
                if started || !msg.bytes.is_empty() {
                    self.next_start = Some(self.line_no);
                    trim_separator(&mut msg.bytes);
                    return Some(Ok(msg));
                }
                msg.line = self.line_no;
                started = true;
                continue;
            }
            if msg.bytes.is_empty() && !started && line.is_empty() {
                msg.line = self.line_no + 1; // leading blank lines before the first message
                continue;
            }
            push_unescaped(&mut msg.bytes, &self.buf);
        }
    }
}

/// Drops the blank line that separates a message from the next envelope line.
fn trim_separator(bytes: &mut Vec<u8>) {
    if bytes.ends_with(b"\r\n\r\n") {
        bytes.truncate(bytes.len() - 2);
    } else if bytes.ends_with(b"\n\n") {
        bytes.truncate(bytes.len() - 1);
    }
}

/// Whether the first non-blank line of `bytes` is an envelope line (the file is an mbox,
/// or a single message carrying its envelope).
#[cfg_attr(not(feature = "mail"), allow(dead_code))]
pub(crate) fn starts_with_envelope(bytes: &[u8]) -> bool {
    let start = bytes
        .iter()
        .position(|b| !matches!(b, b'\r' | b'\n'))
        .unwrap_or(bytes.len());
    let rest = &bytes[start..];
    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    is_envelope(trim_eol(&rest[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn split(s: &str) -> Vec<(usize, String)> {
        MboxReader::new(s.as_bytes())
            .map(|m| {
                let m = m.unwrap();
                (m.line, String::from_utf8(m.bytes).unwrap())
            })
            .collect()
    }

    #[test]
    fn splits_on_envelopes_and_unescapes() {
        let mbox = "From a@x.org Mon Jan  1 10:00:00 2001\nSubject: one\n\nhi\n>From here\n\
                    >>From there\n>Fromage\n\nFrom b@y.org Tue Jan  2 11:00:00 2001\n\
                    Subject: two\n\nbody\n";
        let got = split(mbox);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, 1);
        assert_eq!(
            got[0].1,
            "Subject: one\n\nhi\nFrom here\n>From there\n>Fromage\n"
        );
        assert_eq!(got[1], (9, "Subject: two\n\nbody\n".to_string()));
    }

    #[test]
    fn from_sentence_in_body_does_not_split() {
        // Not after a blank line, and not envelope-shaped: both stay in the body.
        let m = "From a@x.org Mon Jan  1 10:00:00 2001\nSubject: s\n\nline\nFrom me to you\n\n\
                 From the desk of the director\n";
        let got = split(m);
        assert_eq!(got.len(), 1);
        assert!(got[0].1.contains("From me to you\n\nFrom the desk"));
    }

    #[test]
    fn crlf_and_no_envelope() {
        let got = split("Subject: x\r\n\r\nbody\r\n");
        assert_eq!(got, vec![(1, "Subject: x\r\n\r\nbody\r\n".to_string())]);
        assert!(split("").is_empty());
        assert!(starts_with_envelope(
            b"\nFrom MAILER-DAEMON Fri Jul  8 12:08:34 2011\n"
        ));
        assert!(!starts_with_envelope(b"From: a@b.c\n"));
        assert!(!is_envelope(b"From here to eternity"));
    }

    /// mboxrd escaping as a writer does it: one more '>' before `>*From `.
    fn escape(msg: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for line in msg.split_inclusive(|&b| b == b'\n') {
            let i = line.iter().position(|&b| b != b'>').unwrap_or(line.len());
            if line[i..].starts_with(b"From ") {
                out.push(b'>');
            }
            out.extend_from_slice(line);
        }
        out
    }

    proptest! {
        /// Messages written as an mboxrd file (escaped, envelope lines, blank separators) are
    /// read back byte for byte.
    #[test]
    fn mbox_round_trip(msgs in proptest::collection::vec(
        proptest::collection::vec(
            prop_oneof!["[a-zA-Z :>]{0,20}", Just("From me".to_string()), Just(">From x".to_string()), Just(String::new())],
            1..6,
        ).prop_map(|lines| lines.iter().map(|l| format!("{l}\n")).collect::<String>()),
        0..5,
    )) {
        let mut mbox = Vec::new();
        for m in &msgs {
            mbox.extend_from_slice(b"From sender@example.org Mon Jan  7 10:00:00 2002\n");
            mbox.extend_from_slice(&escape(m.as_bytes()));
            mbox.push(b'\n');
        }
        let back: Vec<String> = MboxReader::new(&mbox[..])
            .map(|m| String::from_utf8(m.unwrap().bytes).unwrap())
            .collect();
        prop_assert_eq!(back, msgs);
    }
    }
}
