//! Reading mail sources into documents: detection, message files, mbox streams and
//! Maildirs, parsed in parallel (the `mail` feature).

use super::message::{ParsedMessage, parse_message};
use super::{MailRules, MboxMessage, MboxReader, is_maildir, maildir_files, starts_with_envelope};
use crate::input::dirs::{Walk, walk_files};
use crate::input::{Corpus, Share};
use crate::{Error, Result};
use rayon::prelude::*;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// Messages parsed per parallel batch when streaming an mbox.
const BATCH: usize = 512;

/// The kinds of mail source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailSource {
    /// A Maildir: `cur/` and `new/` (and Maildir++ `.Sub/` folders).
    Maildir,
    /// A folder of files, walked recursively; each file one message (or an mbox).
    Folder,
    /// An mbox file: messages separated by "From " envelope lines.
    Mbox,
    /// A single message file.
    Message,
}

/// Mail read from one or more sources.
#[derive(Debug, Default)]
pub struct MailCorpus {
    /// The messages as documents; files that could not be read are in `corpus.skipped`.
    pub corpus: Corpus,
    /// Messages that could not be parsed as mail (id, reason); they are in `corpus.docs`
    /// too, tokenized from their raw bytes.
    pub unparsed: Vec<(String, String)>,
    /// Each document's unit number (message file or mbox message, counted from 0 across
    /// the inputs of one read, as [`Share`] counts them), parallel to `corpus.docs`: what
    /// puts the messages that several shares read back in input order.
    pub units: Vec<usize>,
}

impl MailCorpus {
    /// Appends another mail corpus.
    pub fn extend(&mut self, other: MailCorpus) {
        self.corpus.extend(other.corpus);
        self.unparsed.extend(other.unparsed);
        self.units.extend(other.units);
    }

    fn push(&mut self, p: ParsedMessage, unit: usize) {
        if let Some(why) = p.unparsed {
            self.unparsed.push((p.doc.id.clone(), why.to_string()));
        }
        self.corpus.docs.push(p.doc);
        self.units.push(unit);
    }
}

/// What kind of mail source `path` is; a path that is neither a folder nor a regular
/// file (a FIFO) is a [`MailSource::Message`], read once.
pub fn detect(path: &Path) -> Result<MailSource> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Ok(if is_maildir(path) {
            MailSource::Maildir
        } else {
            MailSource::Folder
        });
    }
    if !meta.is_file() {
        // A FIFO (`<(…)`) can be read once only: not peeked at, read whole as a message
        // file, which still splits on envelope lines.
        return Ok(MailSource::Message);
    }
    let mut head = Vec::with_capacity(1024);
    std::fs::File::open(path)
        .and_then(|f| f.take(1024).read_to_end(&mut head))
        .map_err(|e| Error::io(path, e))?;
    Ok(if starts_with_envelope(&head) {
        MailSource::Mbox
    } else {
        MailSource::Message
    })
}

/// Reads every message under `path` (any [`MailSource`]), labelled `label`, under `rules`.
pub fn read_mail(path: &Path, label: Option<&str>, rules: &MailRules) -> Result<MailCorpus> {
    read_mail_share(path, label, rules, Share::ALL, &mut 0)
}

/// As [`read_mail`], reading only `share`'s units (message files, messages of an mbox),
/// numbered on from `*next`.
fn read_mail_share(
    path: &Path,
    label: Option<&str>,
    rules: &MailRules,
    share: Share,
    next: &mut usize,
) -> Result<MailCorpus> {
    let walked = |w: Walk, files: Vec<(usize, PathBuf)>| {
        let mut m = read_files(files, label, rules);
        m.corpus.skipped.splice(0..0, w.skipped);
        m
    };
    match detect(path)? {
        MailSource::Maildir => {
            let mut w = maildir_files(path)?;
            let files = share.pick_numbered(std::mem::take(&mut w.files), next);
            Ok(walked(w, files))
        }
        MailSource::Folder => {
            let mut w = walk_files(path)?;
            let files = std::mem::take(&mut w.files)
                .into_iter()
                .filter(|f| !in_maildir_tmp(f))
                .collect();
            Ok(walked(w, share.pick_numbered(files, next)))
        }
        MailSource::Mbox => read_mbox(path, label, rules, share, next),
        MailSource::Message => Ok(read_files(
            share.pick_numbered(vec![path.to_path_buf()], next),
            label,
            rules,
        )),
    }
}

/// One message given as bytes (stdin, a delivery), parsed under `rules`.
pub fn read_message_bytes(
    bytes: &[u8],
    id: &str,
    label: Option<&str>,
    rules: &MailRules,
) -> MailCorpus {
    let mut out = MailCorpus::default();
    out.push(parse_message(bytes, id.to_string(), label, rules), 0);
    out
}

/// A file under a Maildir's `tmp/` (a delivery in progress): not a message yet.
fn in_maildir_tmp(f: &Path) -> bool {
    let Some(dir) = f.parent() else { return false };
    dir.file_name().is_some_and(|n| n == "tmp") && dir.parent().is_some_and(is_maildir)
}

/// `f` over `items`, in their order: in parallel, but for one item (a delivery, a
/// correction, a message file with its envelope line), which starts no worker threads.
fn map_in_order<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    if items.len() == 1 {
        items.iter().map(f).collect()
    } else {
        items.par_iter().map(f).collect()
    }
}

/// Reads message files (with their unit numbers) in parallel, keeping their order. A file
/// holding several envelope-separated messages yields each of them (`FILE#N`).
fn read_files(files: Vec<(usize, PathBuf)>, label: Option<&str>, rules: &MailRules) -> MailCorpus {
    type Read = std::result::Result<(usize, Vec<Parsed>), (String, String)>;
    let read = |(k, f): &(usize, PathBuf)| -> Read {
        let bytes = crate::input::limit::read_corpus_file(f)
            .map_err(|e| crate::input::skip_reason(f, &e))?;
        Ok((*k, split_file(&bytes, f, label, rules)))
    };
    let results: Vec<Read> = map_in_order(&files, read);
    let mut out = MailCorpus::default();
    for r in results {
        match r {
            Ok((k, msgs)) => {
                for m in msgs {
                    match m {
                        Ok(m) => out.push(m, k),
                        Err(s) => out.corpus.skipped.push(s),
                    }
                }
            }
            Err(s) => out.corpus.skipped.push(s),
        }
    }
    out
}

/// A message parsed, or skipped (id, reason): one past the bound on a message's size.
type Parsed = std::result::Result<ParsedMessage, (String, String)>;

/// `raw` parsed as the message `id`, unless it is longer than the bound.
fn parse_bounded(raw: &[u8], id: String, label: Option<&str>, rules: &MailRules) -> Parsed {
    match crate::input::limit::over_bound(raw.len()) {
        Some(why) => Err((id, why)),
        None => Ok(parse_message(raw, id, label, rules)),
    }
}

fn split_file(bytes: &[u8], f: &Path, label: Option<&str>, rules: &MailRules) -> Vec<Parsed> {
    let name = f.display().to_string();
    if !starts_with_envelope(bytes) {
        return vec![parse_bounded(bytes, name, label, rules)];
    }
    let msgs: Vec<MboxMessage> = MboxReader::new(bytes)
        .map_while(std::io::Result::ok)
        .collect();
    if msgs.len() <= 1 {
        let body = msgs.into_iter().next().map(|m| m.bytes).unwrap_or_default();
        return vec![parse_bounded(&body, name, label, rules)];
    }
    msgs.iter()
        .enumerate()
        .map(|(i, m)| parse_bounded(&m.bytes, format!("{name}#{}", i + 1), label, rules))
        .collect()
}

/// Streams an mbox: batches of messages are parsed in parallel while the file is read
/// sequentially. Ids are `FILE#N` (N counts from 1), or `FILE` for a file of one message
/// (a message file that starts with its envelope line), as [`split_file`] names it.
fn read_mbox(
    path: &Path,
    label: Option<&str>,
    rules: &MailRules,
    share: Share,
    next: &mut usize,
) -> Result<MailCorpus> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let name = path.display().to_string();
    let mut out = MailCorpus::default();
    let mut batch: Vec<(usize, usize, Vec<u8>)> = Vec::with_capacity(BATCH);
    let mut n = 0usize;
    let flush = |batch: &mut Vec<(usize, usize, Vec<u8>)>, out: &mut MailCorpus, one: bool| {
        let parse = |(i, k, b): &(usize, usize, Vec<u8>)| {
            let id = if one {
                name.clone()
            } else {
                format!("{name}#{i}")
            };
            (*k, parse_message(b, id, label, rules))
        };
        let parsed: Vec<(usize, ParsedMessage)> = map_in_order(batch, parse);
        parsed.into_iter().for_each(|(k, p)| out.push(p, k));
        batch.clear();
    };
    for m in MboxReader::new(BufReader::with_capacity(1 << 16, file)) {
        match m {
            Ok(m) => {
                n += 1;
                *next += 1;
                if !share.takes(*next - 1) {
                    continue;
                }
                if let Some(why) = crate::input::limit::over_bound(m.bytes.len()) {
                    out.corpus.skipped.push((format!("{name}#{n}"), why));
                    continue;
                }
                batch.push((n, *next - 1, m.bytes));
                if batch.len() == BATCH {
                    flush(&mut batch, &mut out, false);
                }
            }
            Err(e) => {
                out.corpus
                    .skipped
                    .push((format!("{name}#{}", n + 1), e.to_string()));
                break;
            }
        }
    }
    flush(&mut batch, &mut out, n == 1);
    if n == 1 {
        // A file of one message is called by its name, skipped or not.
        let first = format!("{name}#1");
        for s in out.corpus.skipped.iter_mut().filter(|s| s.0 == first) {
            s.0.clone_from(&name);
        }
    }
    Ok(out)
}

/// Unlabelled mail to classify: every message under `paths` (any [`MailSource`]) that is
/// `share`'s, numbered across the paths in order, parsed under `rules`.
pub fn read_share(paths: &[PathBuf], rules: &MailRules, share: Share) -> Result<MailCorpus> {
    let mut out = MailCorpus::default();
    let mut next = 0;
    for p in paths {
        out.extend(read_mail_share(p, None, rules, share, &mut next)?);
    }
    Ok(out)
}

/// Labelled mail for training and evaluation: every `spam` path labelled `spam`, every
/// `ham` path labelled `ham`, parsed under `rules`.
pub fn read_labelled(spam: &[PathBuf], ham: &[PathBuf], rules: &MailRules) -> Result<MailCorpus> {
    read_labelled_share(spam, ham, rules, Share::ALL)
}

/// As [`read_labelled`], reading only `share`'s units: message files and mbox messages
/// are numbered across the spam paths, then the ham paths.
pub fn read_labelled_share(
    spam: &[PathBuf],
    ham: &[PathBuf],
    rules: &MailRules,
    share: Share,
) -> Result<MailCorpus> {
    let mut out = MailCorpus::default();
    let mut next = 0;
    for (paths, label) in [(spam, "spam"), (ham, "ham")] {
        for p in paths {
            out.extend(read_mail_share(p, Some(label), rules, share, &mut next)?);
        }
    }
    Ok(out)
}
