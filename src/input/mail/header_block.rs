//! The end of a message's header block, found on the raw bytes, and the empty line that
//! separates it from the body put back where it is missing.
//!
//! Mail separates its header block from its body with an empty line, but exported and
//! preprocessed corpora often drop it: a `Subject:` line, then the body text. mail-parser
//! reads such a body as more header lines (skipping those without a colon), so the whole
//! body is lost. Here the header block ends at the first line that is neither a header
//! field nor a continuation line (starting with a space or a tab, after a field). A field
//! is `Name:`, the name printable ASCII without spaces or colons (RFC 5322's field-name)
//! followed directly by the colon. The obsolete syntax's spaces before the colon are taken
//! on the first line, and later only where a field in today's syntax follows before the
//! header's empty line (`X-Mailer : foo` then `Subject: …`, as old mailers wrote): once a
//! body could have begun, a line such as `http : / / www` or `note : the meeting`
//! (preprocessed corpora space their punctuation) is body text.
//! When the line that ends the block is not empty, an empty line is inserted before it,
//! ending in CRLF or LF as the line before it does. A message with its empty line is left
//! as it is, and so is one whose first line is not a header field (it is not mail and is
//! read as raw text); only a message that needs the empty line is copied.

use std::borrow::Cow;

/// `raw` with an empty line between its header block and its body where a line that is
/// not a header field ends the header block; borrowed when nothing is missing.
pub(crate) fn with_body_separator(raw: &[u8]) -> Cow<'_, [u8]> {
    let Some(gap) = missing_separator(raw) else {
        return Cow::Borrowed(raw);
    };
    let eol: &[u8] = if gap.crlf { b"\r\n" } else { b"\n" };
    let mut out = Vec::with_capacity(raw.len() + eol.len());
    out.extend_from_slice(&raw[..gap.body]);
    out.extend_from_slice(eol);
    out.extend_from_slice(&raw[gap.body..]);
    Cow::Owned(out)
}

/// Where a header block ends without an empty line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MissingSeparator {
    /// Offset of the first body line: the first line after the header fields that is
    /// neither a header field nor a continuation line.
    body: usize,
    /// Whether the last header line ends in CRLF (else LF).
    crlf: bool,
}

/// Where the header block of `raw` is ended by a body line instead of an empty line;
/// `None` when it ends with an empty line, runs to the end of `raw`, or when the first
/// line of `raw` is not a header field.
fn missing_separator(raw: &[u8]) -> Option<MissingSeparator> {
    let mut at = 0;
    let mut crlf = false;
    while at < raw.len() {
        let end = memchr::memchr(b'\n', &raw[at..]).map_or(raw.len(), |i| at + i + 1);
        let line = &raw[at..end];
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let continuation = at > 0 && matches!(text.first(), Some(b' ' | b'\t'));
        if text.is_empty() {
            return None;
        }
        let field = if at == 0 {
            is_first_field(text)
        } else {
            is_field(text)
        };
        // (Looked ahead for only where the line is no field in today's syntax.)
        let header_line =
            continuation || field || at > 0 && obsolete_field_of_a_header(raw, text, end);
        if !header_line {
            return (at > 0).then_some(MissingSeparator { body: at, crlf });
        }
        crlf = line.ends_with(b"\r\n");
        at = end;
    }
    None
}

/// Whether `line`, a field only in the obsolete syntax (`X-Mailer : foo`), is one of a
/// header block that goes on after it (from `rest`, the offset of the next line) with a
/// field in today's syntax and ends with an empty line: mail as old mailers sent it, as
/// opposed to the spaced-out punctuation of a preprocessed body (`http : / / www`),
/// which no well-formed field follows before the body's own empty lines.
fn obsolete_field_of_a_header(raw: &[u8], line: &[u8], rest: usize) -> bool {
    if !is_first_field(line) {
        return false;
    }
    let mut strict = false;
    for next in raw[rest..].split(|&b| b == b'\n') {
        let next = next.strip_suffix(b"\r").unwrap_or(next);
        if next.is_empty() {
            return strict;
        }
        if matches!(next.first(), Some(b' ' | b'\t')) {
            continue;
        }
        if is_field(next) {
            strict = true;
        } else if !is_first_field(next) {
            return false;
        }
    }
    false
}

/// Whether `line` (without its line ending) starts a header field: a non-empty name of
/// printable ASCII but for the colon, then the colon.
fn is_field(line: &[u8]) -> bool {
    line.iter()
        .position(|&b| b == b':')
        .is_some_and(|colon| is_name(&line[..colon]))
}

/// Whether the first line of a message starts a header field, in the obsolete syntax too:
/// spaces or tabs may come between the name and the colon.
fn is_first_field(line: &[u8]) -> bool {
    let Some(colon) = line.iter().position(|&b| b == b':') else {
        return false;
    };
    let mut name = &line[..colon];
    while let [rest @ .., b' ' | b'\t'] = name {
        name = rest;
    }
    is_name(name)
}

/// Whether `name` is a field name: non-empty printable ASCII (no spaces, no controls).
fn is_name(name: &[u8]) -> bool {
    !name.is_empty() && name.iter().all(u8::is_ascii_graphic)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fixed(raw: &str) -> String {
        String::from_utf8(with_body_separator(raw.as_bytes()).into_owned()).unwrap()
    }

    fn borrowed(raw: &str) -> bool {
        matches!(with_body_separator(raw.as_bytes()), Cow::Borrowed(_))
    }

    #[test]
    fn a_body_line_after_the_fields_gets_an_empty_line_before_it() {
        assert_eq!(
            fixed("Subject: cheap meds\nbuy viagra now\n"),
            "Subject: cheap meds\n\nbuy viagra now\n"
        );
        assert_eq!(
            missing_separator(b"Subject: cheap meds\nbuy viagra now\n"),
            Some(MissingSeparator {
                body: 20,
                crlf: false
            })
        );
    }

    #[test]
    fn crlf_messages_get_a_crlf_empty_line() {
        assert_eq!(
            fixed("Subject: cheap meds\r\nFrom: a@b.example\r\nbuy viagra now\r\n"),
            "Subject: cheap meds\r\nFrom: a@b.example\r\n\r\nbuy viagra now\r\n"
        );
    }

    #[test]
    fn continuation_lines_belong_to_the_header_block() {
        assert_eq!(
            fixed("Subject: cheap\n\tmeds\n  online\nbuy now\n"),
            "Subject: cheap\n\tmeds\n  online\n\nbuy now\n"
        );
        // A line of spaces is a continuation line too, not the empty line.
        assert_eq!(fixed("Subject: a\n \nbody\n"), "Subject: a\n \n\nbody\n");
    }

    #[test]
    fn a_last_body_line_without_a_line_ending_is_found() {
        assert_eq!(fixed("Subject: x\nbody"), "Subject: x\n\nbody");
    }

    #[test]
    fn field_names_follow_rfc_5322() {
        for field in [
            "Subject: x",
            "X-Spam-Flag:YES",
            "Weird!#$%&'*+-.^_`|~Name: x",
            "Empty:",
        ] {
            assert!(is_field(field.as_bytes()), "{field}");
            assert!(is_first_field(field.as_bytes()), "{field}");
        }
        for body in [
            "buy viagra now",
            "Hi there: John",
            ": no name",
            " : no name",
            "Grüße: x",
            "Tab\tname: x",
            "",
        ] {
            assert!(!is_field(body.as_bytes()), "{body}");
            assert!(!is_first_field(body.as_bytes()), "{body}");
        }
        // The obsolete space before the colon: a field on the first line only.
        for obsolete in ["Subject : obsolete space", "Subject\t: x", "http : / / www"] {
            assert!(is_first_field(obsolete.as_bytes()), "{obsolete}");
            assert!(!is_field(obsolete.as_bytes()), "{obsolete}");
        }
        assert_eq!(
            fixed("Subject: x\nHi there: John\n"),
            "Subject: x\n\nHi there: John\n"
        );
    }

    #[test]
    fn spaced_colons_after_the_first_line_are_body_text() {
        // Preprocessed corpora: punctuation spaced out, no empty line after the subject.
        assert_eq!(
            fixed("Subject: re : 2 . 882 s - > np np\nhttp : / / www . example . com\n"),
            "Subject: re : 2 . 882 s - > np np\n\nhttp : / / www . example . com\n"
        );
        assert_eq!(
            fixed("Subject: lunch\r\nnote : the meeting moved\r\n\r\nsee you\r\n"),
            "Subject: lunch\r\n\r\nnote : the meeting moved\r\n\r\nsee you\r\n"
        );
        // A field in the obsolete syntax amid fields of today's, the empty line after
        // them: real mail, left as it is.
        assert!(borrowed(
            "From: a@b.c\nX-Mailer : foo\nSubject: buy cheap pills\n\nbody\n"
        ));
        assert!(borrowed(
            "From: a@b.c\r\nX-Mailer : foo\r\n  continued\r\nTo: d@e.f\r\n\r\nbody\r\n"
        ));
        // On the first line the obsolete syntax still starts the header block.
        assert_eq!(
            fixed("Subject : cheap meds\nbuy now\n"),
            "Subject : cheap meds\n\nbuy now\n"
        );
    }

    /// Whether `raw` has an empty line after a header block of fields (the obsolete syntax
    /// allowed on every line) and continuation lines: mail as it is sent.
    fn has_its_empty_line(raw: &[u8]) -> bool {
        let mut lines = raw
            .split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
        if !lines.next().is_some_and(is_first_field) {
            return false;
        }
        for line in lines {
            if line.is_empty() {
                return true;
            }
            if !matches!(line.first(), Some(b' ' | b'\t')) && !is_first_field(line) {
                return false;
            }
        }
        false
    }

    #[test]
    fn real_mail_with_its_empty_line_is_left_as_it_is() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut folders = vec![root.join("tests/data/mail")];
        let shared = root.join("../shared/corpora/spamassassin");
        if shared.is_dir() {
            folders.push(shared);
        } else {
            eprintln!(
                "note: {} is absent; reading tests/data only",
                shared.display()
            );
        }
        let mut checked = 0;
        for folder in folders {
            for file in crate::input::dirs::walk_files(&folder).unwrap().files {
                let raw = std::fs::read(&file).unwrap();
                if has_its_empty_line(&raw) {
                    checked += 1;
                    assert!(
                        matches!(with_body_separator(&raw), Cow::Borrowed(_)),
                        "{}",
                        file.display()
                    );
                }
            }
        }
        assert!(checked > 0);
    }

    #[test]
    fn messages_that_need_nothing_are_borrowed() {
        for raw in [
            // The empty line is there (LF, CRLF), before a header-looking body line too.
            "Subject: x\n\nbody\n",
            "Subject: x\r\n\r\nbody\r\n",
            "Subject: x\n\nHi: John\n",
            // Headers only, with or without a final line ending.
            "Subject: x\nFrom: a@b.example\n",
            "Subject: x",
            // Not mail: the first line is not a header field.
            "just some text\nSubject: x\n",
            " indented: first line\nbody\n",
            "\nbody\n",
            "",
        ] {
            assert!(borrowed(raw), "{raw:?}");
        }
    }
}
