//! One raw message (bytes) → one [`Document`], with mail-parser doing the decoding:
//! quoted-printable, base64, RFC 2047 encoded words and charsets to UTF-8.
//!
//! What becomes of a message is decided by its [`MailRules`] (the defaults, or those a
//! model recorded when it was trained):
//!
//! - body: every text part, HTML parts turned into text (plus `html:TAG` and `url:HOST`
//!   features), text of attached messages;
//! - header fields as prefixed fields (`subject:free` is not body `free`): each field of the
//!   top-level header, named by its lowercase name, but those the rules leave out (by
//!   default dates and the routing fields: `Received`, `Delivered-To`, …);
//! - never the filter's own verdict field ([`VERDICT_FIELD`], `X-Rosenblatt`), which
//!   delivered mail carries and a sender can forge;
//! - tags, by family: `hdr:NAME` for each field present, `from_domain:…`/`to_domain:…`,
//!   `attach:TYPE` for non-text parts (their content is skipped), `mime:TYPE`, `charset:…`,
//!   `cte:…`, and a few structural features (`mail:parts=N`, `mail:html_only`,
//!   `mail:size=2^K`, …).
//!
//! The mbox envelope line (`From sender date`) is dropped: it is not content. A header block
//! ended by a body line instead of an empty line gets that empty line first (`header_block`).
//! A message that cannot be parsed (no header field that mail defines, an empty message, or a
//! parser failure) still yields tokens from its raw bytes, tagged `mail:unparsed`, and the
//! reason is returned so the caller can count it.

use super::header_block::with_body_separator;
use super::html::html_features;
use super::rules::TagFamily;
use super::{MailRules, VERDICT_FIELD};
use crate::input::{Document, decode_text};
use mail_parser::{
    Address, Encoding, HeaderName, HeaderValue, Message, MessageParser, MimeHeaders, PartType,
};
use std::fmt::Write;
use std::sync::LazyLock;

/// The fields parsed as mail-parser's defaults do, except that `Received` is only found,
/// not parsed (where its words are kept they are read from the message's own bytes, and
/// otherwise only its count matters), dates are not parsed (they are left out), and
/// unknown fields are decoded as text (RFC 2047).
static PARSER: LazyLock<MessageParser> = LazyLock::new(|| {
    use HeaderName as H;
    let mut p = MessageParser::new()
        .with_mime_headers()
        .with_address_headers()
        .with_message_ids()
        .header_text(H::Subject)
        .header_text(H::Comments)
        .header_id(H::ReturnPath)
        .header_comma_separated(H::Keywords)
        .header_comma_separated(H::ContentLanguage)
        .header_raw(H::MimeVersion)
        .ignore_header(H::Received)
        .ignore_header(H::Date)
        .ignore_header(H::ResentDate)
        .default_header_text();
    for list in [
        H::ListArchive,
        H::ListHelp,
        H::ListId,
        H::ListOwner,
        H::ListPost,
        H::ListSubscribe,
        H::ListUnsubscribe,
    ] {
        p = p.header_address(list);
    }
    p
});

/// A message as a document, and why it had to be read as raw bytes, if it had to.
#[derive(Debug, Clone)]
pub(crate) struct ParsedMessage {
    /// The document to tokenize.
    pub doc: Document,
    /// `Some(reason)` when the message could not be parsed as mail.
    pub unparsed: Option<&'static str>,
}

/// Turns a raw message into a document with id `id` and label `label`, under `rules`.
/// Never panics: a failure inside the MIME parser is caught and the raw bytes are used
/// instead.
pub(crate) fn parse_message(
    raw: &[u8],
    id: String,
    label: Option<&str>,
    rules: &MailRules,
) -> ParsedMessage {
    let body = strip_envelope(raw);
    let mut doc = Document::new(id, String::new(), label);
    if body.iter().all(u8::is_ascii_whitespace) {
        doc.tags.push("mail:unparsed".into());
        doc.tags.push("mail:empty".into());
        return ParsedMessage {
            doc,
            unparsed: Some("empty message"),
        };
    }
    let mail = with_body_separator(body);
    let built = std::panic::catch_unwind(|| {
        let msg = PARSER.parse(&mail[..])?;
        let root = msg.parts.first()?;
        if !root.headers.iter().any(|h| !h.name.is_other()) {
            return None;
        }
        let mut d = Document::default();
        message_features(&msg, body.len(), rules, &mut d);
        Some(d)
    });
    let reason = match built {
        Ok(Some(d)) => {
            doc.text = d.text;
            doc.fields = d.fields;
            doc.tags = d.tags;
            return ParsedMessage {
                doc,
                unparsed: None,
            };
        }
        Ok(None) => "no mail header fields",
        Err(_) => "the MIME parser failed on it",
    };
    doc.text = decode_text(body.to_vec());
    doc.tags.push("mail:unparsed".into());
    ParsedMessage {
        doc,
        unparsed: Some(reason),
    }
}

/// Drops a leading mbox envelope line (`From ` + anything; a header would be `From:`).
pub(crate) fn strip_envelope(raw: &[u8]) -> &[u8] {
    if raw.starts_with(b"From ") {
        match raw.iter().position(|&b| b == b'\n') {
            Some(i) => &raw[i + 1..],
            None => &[],
        }
    } else {
        raw
    }
}

/// Fills `d` with the body text, fields and tags of a parsed message of `len` bytes (its
/// envelope line not counted, nor the verdict field: a message weighs the same from an
/// mbox, a file or a pipe, before delivery and after).
fn message_features(msg: &Message<'_>, mut len: usize, rules: &MailRules, d: &mut Document) {
    let root = &msg.parts[0];
    let mut tags = Vec::new();
    let mut received = 0usize;
    let mut subject = None;
    // One buffer for the lowercased names: a name is copied out only for a field kept.
    let mut name = String::new();
    for h in &root.headers {
        name.clear();
        name.push_str(h.name.as_str());
        name.make_ascii_lowercase();
        if name.eq_ignore_ascii_case(VERDICT_FIELD) {
            // Not even its bytes count: the message weighs what it weighed before delivery.
            len = len.saturating_sub(h.offset_end.saturating_sub(h.offset_field) as usize);
            continue;
        }
        if name.is_empty() || name.len() > 64 {
            continue;
        }
        if rules.tags_field(&name) {
            tags.push(["hdr:", &name].concat());
        }
        // A field left out gives no text; it is read only for its tags.
        let keep = rules.keeps_field(&name);
        let mut text = String::new();
        match (&h.name, &h.value) {
            (HeaderName::Received, _) => {
                received += 1;
                if keep {
                    let raw = msg
                        .raw_message
                        .get(h.offset_start as usize..h.offset_end as usize)
                        .unwrap_or_default();
                    text = String::from_utf8_lossy(raw).into_owned();
                }
            }
            (HeaderName::Subject, v) => {
                value_text(v, &mut text);
                subject = Some(text.clone());
            }
            (n, HeaderValue::Address(a)) => {
                if keep {
                    let local = rules.recipient_local_parts || !is_recipient(n);
                    address_text(a, local, &mut text);
                }
                if let Some(prefix) = domain_prefix(n).filter(|_| rules.tags(TagFamily::Domains)) {
                    for dom in domains(a) {
                        tags.push([prefix, ":", &dom].concat());
                    }
                }
            }
            (_, v) if keep => value_text(v, &mut text),
            _ => {}
        }
        if keep && !text.trim().is_empty() {
            truncate(&mut text, rules.max_field_bytes as usize);
            d.fields.push((name.as_str().into(), text));
        }
    }
    if rules.tags(TagFamily::Subject) {
        subject_tags(subject.as_deref(), &mut tags);
    }
    let mut s = Structure {
        rules,
        tags,
        seen: Default::default(),
        text: 0,
        html: 0,
        attachments: 0,
    };
    walk_parts(msg, 0, d, &mut s);
    truncate(&mut d.text, rules.max_body_bytes as usize);
    let t = &mut s.tags;
    if rules.tags(TagFamily::Shape) {
        t.push(format!("mail:parts={}", msg.parts.len().min(10)));
        if s.attachments > 0 {
            t.push(format!("mail:attachments={}", s.attachments.min(5)));
        }
        if s.html > 0 && s.text == 0 {
            t.push("mail:html_only".into());
        }
        if d.text.trim().is_empty() {
            t.push("mail:no_body_text".into());
        }
        if rules.routing_tags || rules.keeps_field("received") {
            t.push(format!("mail:received={}", received.min(10)));
        }
        t.push(format!("mail:size=2^{}", usize::BITS - len.leading_zeros()));
    }
    t.sort_unstable();
    t.dedup();
    d.tags = std::mem::take(t);
}

/// What walking a message's parts collects: tags, and counts of part kinds.
struct Structure<'r> {
    /// The rules in force.
    rules: &'r MailRules,
    /// Tags so far.
    tags: Vec<String>,
    /// HTML features already tagged (a message repeats its tags many times).
    seen: hashbrown::HashSet<String>,
    text: usize,
    html: usize,
    attachments: usize,
}

/// Body text and part tags of every part, following attached messages.
fn walk_parts(msg: &Message<'_>, depth: usize, d: &mut Document, s: &mut Structure) {
    let parts = s.rules.tags(TagFamily::Parts);
    let max_body = s.rules.max_body_bytes as usize;
    for part in &msg.parts {
        let mime = part.content_type().map(|ct| {
            let mut m = [ct.ctype(), "/", ct.subtype().unwrap_or("")].concat();
            m.make_ascii_lowercase();
            m
        });
        if parts {
            part_tags(part, mime.as_deref(), &mut s.tags);
        }
        match &part.body {
            PartType::Text(t) => {
                s.text += 1;
                push_text(&mut d.text, t, max_body);
            }
            PartType::Html(h) => {
                s.html += 1;
                if s.rules.tags(TagFamily::Html) {
                    html_features(h, &mut |t| {
                        if !s.seen.contains(t) {
                            s.seen.insert(t.to_string());
                            s.tags.push(t.to_string());
                        }
                    });
                }
                let text = super::html_text::html_to_text(h);
                push_text(&mut d.text, &text, max_body);
            }
            PartType::Binary(_) | PartType::InlineBinary(_) => {
                s.attachments += 1;
                if parts {
                    let m = mime.as_deref().unwrap_or("application/octet-stream");
                    s.tags.push(format!("attach:{m}"));
                    if let Some(ext) = part
                        .attachment_name()
                        .and_then(|n| n.rsplit_once('.'))
                        .map(|(_, e)| e.to_ascii_lowercase())
                        .filter(|e| !e.is_empty() && e.len() <= 8)
                    {
                        s.tags.push(format!("attach_ext:{ext}"));
                    }
                }
            }
            PartType::Message(inner) => {
                s.attachments += 1;
                if parts {
                    s.tags.push("attach:message/rfc822".into());
                }
                if depth < usize::from(s.rules.max_depth) {
                    if let Some(subj) = inner.subject() {
                        push_text(&mut d.text, subj, max_body);
                    }
                    walk_parts(inner, depth + 1, d, s);
                }
            }
            PartType::Multipart(_) => {}
        }
    }
}

/// The `charset:`, `cte:`, `mail:encoding_problem` and `mime:` tags of one part.
fn part_tags(part: &mail_parser::MessagePart<'_>, mime: Option<&str>, tags: &mut Vec<String>) {
    if let Some(cs) = part.content_type().and_then(|ct| ct.attribute("charset")) {
        tags.push(format!("charset:{}", cs.to_ascii_lowercase()));
    }
    match part.encoding {
        Encoding::Base64 => tags.push("cte:base64".into()),
        Encoding::QuotedPrintable => tags.push("cte:quoted-printable".into()),
        Encoding::None => {}
    }
    if part.is_encoding_problem {
        tags.push("mail:encoding_problem".into());
    }
    if let Some(m) = mime {
        tags.push(["mime:", m].concat());
    }
}

fn push_text(out: &mut String, t: &str, max: usize) {
    if out.len() < max {
        out.push_str(t);
        out.push('\n');
    }
}

/// Cuts `s` to at most `max` bytes, at a character boundary.
fn truncate(s: &mut String, max: usize) {
    if s.len() > max {
        let mut i = max;
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        s.truncate(i);
    }
}

/// The tag prefix for the domains of an address field, for the fields that have one.
fn domain_prefix(name: &HeaderName<'_>) -> Option<&'static str> {
    match name {
        HeaderName::From | HeaderName::Sender => Some("from_domain"),
        HeaderName::To | HeaderName::Cc => Some("to_domain"),
        HeaderName::ReplyTo => Some("reply_to_domain"),
        _ => None,
    }
}

/// Lowercase domains of every address in `a`.
fn domains(a: &Address<'_>) -> Vec<String> {
    let mut out: Vec<String> = a
        .iter()
        .filter_map(|x| x.address.as_deref())
        .filter_map(|addr| addr.rsplit_once('@'))
        .map(|(_, dom)| dom.trim_end_matches('>').to_ascii_lowercase())
        .filter(|d| !d.is_empty() && d.len() <= 80)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether a field names the message's recipients (`To`, `Cc`, `Bcc`).
fn is_recipient(name: &HeaderName<'_>) -> bool {
    matches!(name, HeaderName::To | HeaderName::Cc | HeaderName::Bcc)
}

/// Display names and addresses, space-separated; without `local`, an address gives its
/// domain alone (`@example.org`).
fn address_text(a: &Address<'_>, local: bool, out: &mut String) {
    for x in a.iter() {
        if let Some(n) = &x.name {
            let _ = write!(out, "{n} ");
        }
        if let Some(addr) = &x.address {
            match addr.rsplit_once('@') {
                Some((_, domain)) if !local => {
                    let _ = write!(out, "@{domain} ");
                }
                _ if !local => {}
                _ => {
                    let _ = write!(out, "{addr} ");
                }
            }
        }
    }
}

/// The text of a typed header value (addresses, lists, content types; dates give none).
fn value_text(v: &HeaderValue<'_>, out: &mut String) {
    match v {
        HeaderValue::Text(t) => out.push_str(t),
        HeaderValue::TextList(l) => {
            for t in l {
                out.push_str(t);
                out.push(' ');
            }
        }
        HeaderValue::Address(a) => address_text(a, true, out),
        HeaderValue::ContentType(ct) => {
            let _ = write!(out, "{}/{}", ct.ctype(), ct.subtype().unwrap_or(""));
            for at in ct.attributes().unwrap_or_default() {
                if !at.name.eq_ignore_ascii_case("boundary") {
                    let _ = write!(out, " {}", at.value);
                }
            }
        }
        HeaderValue::Received(_) | HeaderValue::DateTime(_) | HeaderValue::Empty => {}
    }
}

/// `subject:none`, `subject:allcaps`, `subject:exclaim`: shapes of the subject line.
fn subject_tags(subject: Option<&str>, tags: &mut Vec<String>) {
    let Some(s) = subject.filter(|s| !s.trim().is_empty()) else {
        tags.push("mail:no_subject".into());
        return;
    };
    let letters: Vec<char> = s.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() >= 4 && letters.iter().all(|c| !c.is_lowercase()) {
        tags.push("mail:subject_allcaps".into());
    }
    if s.contains('!') {
        tags.push("mail:subject_exclaim".into());
    }
}
