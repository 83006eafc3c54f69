//! `rosenblatt classify` with a spam filter: bogofilter's exit codes (0 spam, 1 ham,
//! 2 unsure, 3 error), an optional unsure score band, and `--passthrough`, which writes
//! the message back with an `X-Rosenblatt:` header for procmail, maildrop or Sieve.
//! The filter is a model file or a store, whose read transaction looks up only each
//! message's features.

use crate::flags::{ClassifyPlan, OutputFormat, Unsure};
use crate::load;
use anyhow::{Result, bail};
use rosenblatt::input::Document;
use rosenblatt::input::mail::{self, MailCorpus, MailRules};
use rosenblatt::model::{ClassDecision, Model};
use rosenblatt::store::Snapshot;
use rosenblatt::text::Analyzer;
use rosenblatt::training;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// A filter classify reads: a whole model, or a store's read transaction.
pub enum Filter<'a> {
    /// A model file, loaded.
    Model(&'a Model),
    /// A store, read per message.
    Store(&'a Snapshot<'a>),
}

impl Filter<'_> {
    /// How the filter reads its inputs.
    fn analyzer(&self) -> &Analyzer {
        match self {
            Filter::Model(m) => m.analyzer(),
            Filter::Store(s) => s.analyzer(),
        }
    }

    /// The filter's two classes.
    fn classes(&self) -> &[String] {
        match self {
            Filter::Model(m) => m.classes(),
            Filter::Store(s) => s.classes(),
        }
    }

    /// P(spam) for a score, where the filter has a probability.
    fn probability(&self, score: f32) -> Option<f32> {
        match self {
            Filter::Model(m) => m.probability(score),
            Filter::Store(s) => s.probability(score),
        }
    }

    /// The decisions for `docs`, in order.
    fn decide(&self, docs: &[Document]) -> Result<Vec<ClassDecision>> {
        Ok(match self {
            Filter::Model(m) => m.decide_rows(&training::vectorize_for(m, docs).matrix),
            Filter::Store(s) => docs.iter().map(|d| s.decide(d)).collect::<Result<_, _>>()?,
        })
    }
}

/// `classify` with a spam filter; see the module docs. Messages are parsed under the mail
/// rules the filter records. With `--passthrough` the exit code is 0 whatever the verdict
/// (3 on error), as with bogofilter's `-p -e`.
pub fn run(a: &ClassifyPlan, filter: &Filter) -> Result<ExitCode> {
    let classes = filter.classes();
    let rules = filter_rules(a, filter.analyzer(), filter.probability(0.0).is_some())?;
    let inputs = &a.documents.paths;
    let mut raw = None;
    let mut m = MailCorpus::default();
    if a.passthrough {
        // The plan holds exactly one input for --passthrough, which must be one message.
        let bytes = load::read_raw(&inputs[0], "the message")?;
        let messages = mail::MboxReader::new(&bytes[..])
            .take(2)
            .filter(|m| m.as_ref().is_ok_and(|m| !m.bytes.is_empty()))
            .count();
        // A named mbox of several is refused; standard input in a delivery chain is only
        // warned about (an unescaped `From ` line in a body must not bounce a message).
        if messages > 1 && inputs[0].as_os_str() != "-" {
            bail!(
                "{}: --passthrough writes back one message, and this is an mbox of several \
                 (classify it without --passthrough)",
                inputs[0].display()
            );
        } else if messages > 1 {
            errln!(
                "rosenblatt: warning: standard input reads as an mbox of several messages; \
                 --passthrough classifies and writes it back as one"
            );
        }
        m.extend(mail::read_message_bytes(
            &bytes,
            &inputs[0].display().to_string(),
            None,
            rules,
        ));
        raw = Some(bytes);
    } else {
        for p in inputs {
            if p.as_os_str() == "-" {
                m.extend(mail::read_message_bytes(
                    &load::read_raw(p, "the message")?,
                    "-",
                    None,
                    rules,
                ));
            } else {
                m.extend(mail::read_mail(p, None, rules)?);
            }
        }
    }
    let corpus = load::mail_corpus(m);
    if corpus.docs.is_empty() {
        bail!("no message to classify");
    }
    let decisions = filter.decide(&corpus.docs)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if let Some(bytes) = raw {
        // The verdict travels in the header; a filter's exit code must say "delivered"
        // (procmail's `w` and maildrop's xfilter treat non-zero as a failure).
        let score = decisions[0].score;
        let p = filter.probability(score);
        let (v, _) = verdict(a, classes, &decisions[0], p);
        let mut header = format!("{v}; score={score:.4}");
        if let Some(p) = p {
            header.push_str(&format!("; probability={p:.6}"));
        }
        out.write_all(&add_header(&bytes, mail::VERDICT_FIELD, &header))?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    } else {
        for (d, dec) in corpus.docs.iter().zip(&decisions) {
            let p = filter.probability(dec.score);
            writeln!(out, "{}", line(a, classes, &d.id, dec, p))?;
        }
    }
    out.flush()?;
    Ok(match decisions.as_slice() {
        [one] => ExitCode::from(verdict(a, classes, one, filter.probability(one.score)).1),
        _ => ExitCode::SUCCESS,
    })
}

/// The mail rules of the spam filter `a` classifies with (read by `analyzer`): the
/// spam-filter options refused for a model that reads no mail, and `--unsure-probability`
/// for a filter without a probability (`has_probability`).
pub fn filter_rules<'m>(
    a: &ClassifyPlan,
    analyzer: &'m Analyzer,
    has_probability: bool,
) -> Result<&'m MailRules> {
    let Some(rules) = analyzer.source().mail_rules() else {
        bail!(
            "{}: --passthrough, --unsure and --unsure-probability need a spam filter (a model \
             trained with --spam/--ham)",
            a.model.display()
        );
    };
    if matches!(a.unsure, Some(Unsure::Probability(_))) && !has_probability {
        bail!(
            "{}: --unsure-probability needs a filter that records P(spam), and this one has \
             none (trained over processes, or by an older release); give the band in scores \
             with --unsure",
            a.model.display()
        );
    }
    Ok(rules)
}

/// The verdict on a message (spam, ham or unsure) and its exit code, from its decision
/// and its P(spam) where the filter has one.
pub fn verdict<'m>(
    a: &ClassifyPlan,
    classes: &'m [String],
    d: &ClassDecision,
    probability: Option<f32>,
) -> (&'m str, u8) {
    match a.unsure {
        Some(u) if u.contains(d.score, probability) => ("unsure", 2),
        _ if classes[d.class] == "spam" => ("spam", 0),
        _ => (classes[d.class].as_str(), 1),
    }
}

/// The line `classify` prints for the message `id` (without its line end); JSON lines
/// add the filter's P(spam) where it has one.
pub fn line(
    a: &ClassifyPlan,
    classes: &[String],
    id: &str,
    d: &ClassDecision,
    probability: Option<f32>,
) -> String {
    let (v, _) = verdict(a, classes, d, probability);
    match a.output {
        OutputFormat::Tsv => format!("{}\t{v}\t{}", crate::report::tsv_field(id), d.score),
        OutputFormat::Jsonl => {
            let mut o = serde_json::json!({"id": id, "label": v, "score": d.score});
            if let Some(p) = probability {
                o["probability"] = p.into();
            }
            o.to_string()
        }
    }
}

/// `raw` with the field `name: value` added at the end of its header (before the blank
/// line) and any `name:` fields already there removed (a sender could forge one). Keeps
/// an mbox envelope line first and the message's line ending (CRLF or LF).
fn add_header(raw: &[u8], name: &str, value: &str) -> Vec<u8> {
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
        String::from_utf8(add_header(s.as_bytes(), "X-Rosenblatt", "spam; score=1.5")).unwrap()
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
