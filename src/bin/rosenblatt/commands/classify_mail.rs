//! `rosenblatt classify` with a spam filter: bogofilter's exit codes (0 spam, 1 ham,
//! 2 unsure, 3 error), an optional unsure score band, and `--passthrough`, which writes
//! the message back with an `X-Rosenblatt:` header for procmail, maildrop or Sieve.
//! The filter is a model file or a store, whose read transaction looks up only each
//! message's features.

use crate::explain;
use crate::flags::{ClassifyPlan, OutputFormat, Unsure};
use crate::load;
use anyhow::{Result, bail};
use rosenblatt::incremental::{Filter, SpamFilter};
use rosenblatt::input::mail::{self, MailCorpus};
use rosenblatt::model::ClassDecision;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// `classify` with a spam filter; see the module docs. Messages are parsed under the mail
/// rules the filter records. With `--passthrough` the exit code is 0 whatever the verdict
/// (3 on error), as with bogofilter's `-p -e`. Several messages exit 0, or
/// [`crate::report::SKIPPED`] when some were skipped; an input refused ends the run after
/// the lines of the messages of the inputs before it.
pub fn run(a: &ClassifyPlan, filter: &dyn Filter) -> Result<ExitCode> {
    let classes = filter.classes();
    let f = filter_rules(a, filter)?;
    let rules = f.rules;
    let inputs = &a.documents.paths;
    let mut raw = None;
    let mut m = MailCorpus::default();
    let mut refused = None;
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
            let read = if p.as_os_str() == "-" {
                load::read_raw(p, "the message")
                    .map(|bytes| mail::read_message_bytes(&bytes, "-", None, rules))
            } else {
                mail::read_mail(p, None, rules).map_err(Into::into)
            };
            match read {
                Ok(c) => m.extend(c),
                // The messages of the inputs before a refused one are classified first.
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
    }
    let corpus = load::mail_corpus(m);
    if corpus.docs.is_empty() {
        if let Some(e) = refused {
            return Err(e);
        }
        bail!("no message to classify");
    }
    let decisions: Vec<ClassDecision> = filter
        .decide_documents(&corpus.docs)?
        .iter()
        .map(|d| at_cut(a, &f, d, filter.probability(d.score)))
        .collect();
    let mut out = BufWriter::new(crate::stdout::lock());
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
        out.write_all(&mail::with_field(&bytes, mail::VERDICT_FIELD, &header))?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    } else {
        if a.explain.as_ref().is_some_and(|x| x.class.is_some()) {
            bail!(
                "{}: a filter has one score, positive for spam and negative for ham; \
                 leave out --explain-class",
                a.model.display()
            );
        }
        for (d, dec) in corpus.docs.iter().zip(&decisions) {
            let p = filter.probability(dec.score);
            let Some(x) = &a.explain else {
                writeln!(out, "{}", line(a, classes, &d.id, dec, p))?;
                continue;
            };
            let e = filter.explain(d)?;
            match a.output {
                OutputFormat::Tsv => {
                    writeln!(out, "{}", line(a, classes, &d.id, dec, p))?;
                    let at = match a.cut {
                        Some(cut) => {
                            let rule = crate::filter::cut_rule(cut);
                            p.map_or(rule.clone(), |p| format!("P(spam) {p:.4}; {rule}"))
                        }
                        None => {
                            let t = filter.threshold();
                            explain::decides_at(classes, t, |s| filter.probability(s), dec.score)
                        }
                    };
                    explain::table(&mut out, &e, classes, Some(&at), x.top)?;
                }
                OutputFormat::Jsonl => {
                    let mut v = json_line(a, classes, &d.id, dec, p);
                    explain::add_json(&mut v, &e, classes);
                    writeln!(out, "{v}")?;
                }
            }
        }
    }
    out.flush()?;
    if let Some(e) = refused {
        return Err(e);
    }
    // One message's verdict is the exit code only when nothing else was passed over.
    Ok(match decisions.as_slice() {
        [one] if corpus.skipped.is_empty() => {
            ExitCode::from(verdict(a, classes, one, filter.probability(one.score)).1)
        }
        _ => crate::report::skipped_code(corpus.skipped.len()),
    })
}

/// The spam filter `a` classifies with, as the one definition of a filter says, or its
/// sentence; `--unsure-probability` and `--spam-probability` are refused for a filter
/// without a probability.
pub fn filter_rules<'f>(a: &ClassifyPlan, filter: &'f dyn Filter) -> Result<SpamFilter<'f>> {
    let f = crate::filter::spam_filter(filter, &a.model)?;
    if matches!(a.unsure, Some(Unsure::Probability(_))) && !f.probability {
        bail!(
            "{}: --unsure-probability needs a filter that records P(spam), and this one has \
             none (trained over processes, or by an older release); give the band in scores \
             with --unsure",
            a.model.display()
        );
    }
    crate::filter::check_cut(&f, a.cut, &a.model)?;
    Ok(f)
}

/// `d` decided again at `a`'s `--spam-probability` or `--spam-score`, where one was
/// given (`probability` is the message's P(spam)); the filter's own decision otherwise.
pub fn at_cut(
    a: &ClassifyPlan,
    f: &SpamFilter<'_>,
    d: &ClassDecision,
    probability: Option<f32>,
) -> ClassDecision {
    let Some(cut) = a.cut else { return *d };
    let class = if cut.is_spam(d.score, probability) {
        f.spam
    } else {
        1 - f.spam
    };
    ClassDecision { class, ..*d }
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
    match a.output {
        OutputFormat::Tsv => {
            let (v, _) = verdict(a, classes, d, probability);
            format!("{}\t{v}\t{}", crate::report::tsv_field(id), d.score)
        }
        OutputFormat::Jsonl => json_line(a, classes, id, d, probability).to_string(),
    }
}

/// The JSON object of [`line`]: id, verdict, score and P(spam) where the filter has one.
fn json_line(
    a: &ClassifyPlan,
    classes: &[String],
    id: &str,
    d: &ClassDecision,
    probability: Option<f32>,
) -> serde_json::Value {
    let (v, _) = verdict(a, classes, d, probability);
    let mut o = serde_json::json!({"id": id, "label": v, "score": d.score});
    if let Some(p) = probability {
        o["probability"] = p.into();
    }
    o
}
