//! Mail on the command line: the `--spam`/`--ham` inputs, messages that did not parse
//! reported on stderr, and `classify` as a spam filter — bogofilter's exit codes (0 spam,
//! 1 ham, 2 unsure, 3 error), an optional unsure score band, and `--passthrough`, which
//! writes the message back with an `X-Rosenblatt:` header for procmail, maildrop or Sieve.

use crate::args::{ClassifyArgs, OutputFormat};
use anyhow::{Context, Result, bail};
use clap::Args;
use rosenblatt::eval::SpamMetrics;
use rosenblatt::input::mail::{self, MailCorpus, MailRules};
use rosenblatt::input::{Corpus, Document};
use rosenblatt::model::SavedModel;
use rosenblatt::pipeline;
use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Labelled mail: `--spam PATH... --ham PATH...`.
#[derive(Debug, Args, Clone, Default)]
pub struct MailInputs {
    /// Spam: Maildir folders, mbox files, folders of message files (recursively) or
    /// message files; read as mail (headers, MIME, HTML).
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub spam: Vec<PathBuf>,
    /// Ham (wanted mail), read as for --spam.
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub ham: Vec<PathBuf>,
}

impl MailInputs {
    /// Whether mail inputs were given.
    pub fn is_set(&self) -> bool {
        !self.spam.is_empty() || !self.ham.is_empty()
    }

    /// Reads the labelled mail under `rules` (a model's own, or the defaults that training
    /// records), reporting skipped and unparsed messages on stderr.
    pub fn read(&self, rules: &MailRules) -> Result<Corpus> {
        let m = mail::read_labelled(&self.spam, &self.ham, rules)?;
        Ok(report(m))
    }

    /// As [`read`](Self::read), for training: both classes are needed, and the messages
    /// are shuffled (seeded) so that spam and ham are interleaved — read folder by folder,
    /// they would come in two blocks, and a perceptron's last updates would all be ham.
    pub fn read_for_training(&self, rules: &MailRules, seed: u64) -> Result<Corpus> {
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        if self.spam.is_empty() || self.ham.is_empty() {
            bail!("a spam filter learns from both: give --spam PATH... and --ham PATH...");
        }
        let mut corpus = self.read(rules)?;
        corpus
            .docs
            .shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        Ok(corpus)
    }

    /// The input names recorded in the model: the mail paths, or `other` when none.
    pub fn names(&self, other: &[PathBuf]) -> Vec<String> {
        let tagged = |tag: &str, ps: &[PathBuf]| -> Vec<String> {
            ps.iter().map(|p| format!("{tag}{}", p.display())).collect()
        };
        if self.is_set() {
            [tagged("spam:", &self.spam), tagged("ham:", &self.ham)].concat()
        } else {
            tagged("", other)
        }
    }
}

/// Spam-filter figures of `model` on labelled messages.
pub fn spam_metrics(model: &SavedModel, docs: &[Document]) -> Result<SpamMetrics> {
    let x = pipeline::vectorize_for(model, docs).matrix;
    let scores: Vec<f32> = pipeline::decide(model, &x)
        .iter()
        .map(|d| d.score)
        .collect();
    let truth = pipeline::class_indices(docs, &model.classes)?;
    let is_spam: Vec<bool> = truth.iter().map(|&t| model.classes[t] == "spam").collect();
    Ok(SpamMetrics::new(&scores, &is_spam))
}

/// Tells the user about files that could not be read and messages that were not mail;
/// returns the corpus.
pub fn report(m: MailCorpus) -> Corpus {
    crate::load::report_skipped(&m.corpus);
    if !m.unparsed.is_empty() {
        eprintln!(
            "rosenblatt: {} message(s) did not parse as mail and were read as raw text:",
            m.unparsed.len()
        );
        for (id, why) in m.unparsed.iter().take(5) {
            eprintln!("  {id}: {why}");
        }
        if m.unparsed.len() > 5 {
            eprintln!("  … and {} more", m.unparsed.len() - 5);
        }
    }
    m.corpus
}

/// A score band, inclusive at both ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// Lowest score still unsure.
    pub low: f32,
    /// Highest score still unsure.
    pub high: f32,
}

fn parse_band(s: &str) -> std::result::Result<Band, String> {
    let (l, h) = s
        .split_once(':')
        .ok_or_else(|| format!("expected LOW:HIGH (e.g. -2:2), got {s:?}"))?;
    let num = |x: &str| {
        x.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{x:?} is not a number"))
    };
    let (low, high) = (num(l)?, num(h)?);
    if low > high {
        return Err(format!("LOW ({low}) is above HIGH ({high})"));
    }
    Ok(Band { low, high })
}

/// Spam-filter options of `classify`.
#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    /// Write the message (one, from stdin or a file) back to stdout with an
    /// `X-Rosenblatt: spam|ham|unsure; score=S` header added, instead of a verdict line.
    #[arg(long)]
    pub passthrough: bool,
    /// Scores within LOW:HIGH (inclusive) are "unsure" (exit code 2), e.g. --unsure=-5:5.
    #[arg(long, value_name = "LOW:HIGH", value_parser = parse_band, allow_hyphen_values = true)]
    pub unsure: Option<Band>,
}

impl FilterArgs {
    /// Whether any spam-filter option was given.
    pub fn is_set(&self) -> bool {
        self.passthrough || self.unsure.is_some()
    }
}

/// A message to classify: its raw bytes are kept for --passthrough.
fn read_one_raw(p: &std::path::Path) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if p.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading the message from stdin")?;
    } else {
        bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
    }
    Ok(bytes)
}

/// `classify` with a spam filter; see the module docs. Messages are parsed under the mail
/// rules the model records. With `--passthrough` the exit code is 0 whatever the verdict
/// (3 on error), as with bogofilter's `-p -e`.
pub fn classify(a: &ClassifyArgs, model: &SavedModel) -> Result<ExitCode> {
    let Some(rules) = model.analyzer.source().mail_rules() else {
        bail!(
            "{}: --passthrough and --unsure need a spam filter (a model trained with \
             --spam/--ham)",
            a.model.display()
        );
    };
    let inputs: Vec<PathBuf> = if a.inputs.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        a.inputs.clone()
    };
    let mut raw = None;
    let mut m = MailCorpus::default();
    if a.filter.passthrough {
        if inputs.len() != 1 || (inputs[0].as_os_str() != "-" && !inputs[0].is_file()) {
            bail!("--passthrough writes back one message: give one file or `-` (stdin)");
        }
        let bytes = read_one_raw(&inputs[0])?;
        m.extend(mail::read_message_bytes(
            &bytes,
            &inputs[0].display().to_string(),
            None,
            rules,
        ));
        raw = Some(bytes);
    } else {
        for p in &inputs {
            if p.as_os_str() == "-" {
                m.extend(mail::read_message_bytes(
                    &read_one_raw(p)?,
                    "-",
                    None,
                    rules,
                ));
            } else {
                m.extend(mail::read_mail(p, None, rules)?);
            }
        }
    }
    let corpus = report(m);
    if corpus.docs.is_empty() {
        bail!("no message to classify");
    }
    let x = pipeline::vectorize_for(model, &corpus.docs).matrix;
    let decisions = pipeline::decide(model, &x);
    let verdict = |d: &rosenblatt::model::Decision| -> (&str, u8) {
        match a.filter.unsure {
            Some(b) if d.score >= b.low && d.score <= b.high => ("unsure", 2),
            _ if model.classes[d.class] == "spam" => ("spam", 0),
            _ => (model.classes[d.class].as_str(), 1),
        }
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    if let Some(bytes) = raw {
        // The verdict travels in the header; a filter's exit code must say "delivered"
        // (procmail's `w` and maildrop's xfilter treat non-zero as a failure).
        let (v, _) = verdict(&decisions[0]);
        let header = format!("{v}; score={:.4}", decisions[0].score);
        out.write_all(&add_header(&bytes, "X-Rosenblatt", &header))?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    } else {
        for (d, dec) in corpus.docs.iter().zip(&decisions) {
            let (v, _) = verdict(dec);
            match a.output_format {
                OutputFormat::Tsv => writeln!(out, "{}\t{}\t{}", d.id, v, dec.score)?,
                OutputFormat::Jsonl => writeln!(
                    out,
                    "{}",
                    serde_json::json!({"id": d.id, "label": v, "score": dec.score})
                )?,
            }
        }
    }
    out.flush()?;
    Ok(match decisions.as_slice() {
        [one] => ExitCode::from(verdict(one).1),
        _ => ExitCode::SUCCESS,
    })
}

/// `raw` with the field `name: value` added at the end of its header (before the blank
/// line) and any `name:` fields already there removed (a sender could forge one). Keeps
/// an mbox envelope line first and the message's line ending (CRLF or LF).
pub fn add_header(raw: &[u8], name: &str, value: &str) -> Vec<u8> {
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
    let is_ours = |l: &[u8]| {
        l.len() > name.len()
            && l[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            && l[name.len()] == b':'
    };
    let mut header = Vec::new();
    let mut in_ours = false;
    let mut body_start = None;
    for l in lines.by_ref() {
        if is_blank(l) {
            body_start = Some(l);
            break;
        }
        if l.first().is_some_and(|&b| b == b' ' || b == b'\t') && in_ours {
            continue; // continuation of a dropped field
        }
        in_ours = is_ours(l);
        if !in_ours {
            header.push(l);
        }
    }
    match body_start {
        Some(blank) => {
            header.iter().for_each(|l| out.extend_from_slice(l));
            if header.last().is_some_and(|l| !l.ends_with(b"\n")) {
                out.extend_from_slice(eol);
            }
            out.extend_from_slice(&field);
            out.extend_from_slice(blank);
            lines.for_each(|l| out.extend_from_slice(l));
        }
        None => {
            // No blank line: put the field first, keep everything else as it was.
            out.extend_from_slice(&field);
            header.iter().for_each(|l| out.extend_from_slice(l));
        }
    }
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
        assert_eq!(
            add("no header at all"),
            "X-Rosenblatt: spam; score=1.5\nno header at all"
        );
        assert_eq!(add(""), "X-Rosenblatt: spam; score=1.5\n");
    }

    #[test]
    fn bands_parse() {
        assert_eq!(
            parse_band("-2:2.5"),
            Ok(Band {
                low: -2.0,
                high: 2.5
            })
        );
        assert!(parse_band("3:1").is_err());
        assert!(parse_band("x:1").is_err());
        assert!(parse_band("1").is_err());
    }
}
