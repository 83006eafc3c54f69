//! The end of a message's header block, found on the raw bytes, and the empty line that
//! separates it from the body put back where it is missing.
//!
//! Mail separates its header block from its body with an empty line, but exported and
//! preprocessed corpora often drop it: a `Subject:` line, then the body text. mail-parser
//! reads such a body as more header lines (skipping those without a colon), so the whole
//! body is lost. Here the header block ends at the first line that is neither a header
//! field (`Name:`, the name printable ASCII without spaces or colons as RFC 5322's
//! field-name, optionally followed by spaces or tabs before the colon as its obsolete
//! syntax allows) nor a continuation line (starting with a space or a tab). When that line
//! is not empty, an empty line is inserted before it, ending in CRLF or LF as the line
//! before it does. A message with its empty line is left as it is, and so is one whose
//! first line is not a header field (it is not mail and is read as raw text); only a
//! message that needs the empty line is copied.

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
        let end = raw[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(raw.len(), |i| at + i + 1);
        let line = &raw[at..end];
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let continuation = at > 0 && matches!(text.first(), Some(b' ' | b'\t'));
        if text.is_empty() {
            return None;
        }
        if !continuation && !is_field(text) {
            return (at > 0).then_some(MissingSeparator { body: at, crlf });
        }
        crlf = line.ends_with(b"\r\n");
        at = end;
    }
    None
}

/// Whether `line` (without its line ending) starts a header field: a non-empty name of
/// printable ASCII but for the colon, then optional spaces or tabs, then a colon.
fn is_field(line: &[u8]) -> bool {
    let Some(colon) = line.iter().position(|&b| b == b':') else {
        return false;
    };
    let mut name = &line[..colon];
    while let [rest @ .., b' ' | b'\t'] = name {
        name = rest;
    }
    !name.is_empty() && name.iter().all(|b| b.is_ascii_graphic())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "Subject : obsolete space",
            "Weird!#$%&'*+-.^_`|~Name: x",
            "Empty:",
        ] {
            assert!(is_field(field.as_bytes()), "{field}");
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
        }
        assert_eq!(
            fixed("Subject: x\nHi there: John\n"),
            "Subject: x\n\nHi there: John\n"
        );
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
