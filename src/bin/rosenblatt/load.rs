//! Reading the inputs a plan names — documents, labelled mail, SVMlight rows — with
//! skipped documents and unparsed messages reported on stderr, and the refusal of line
//! files given to a model that reads mail. What a model is, the model itself says
//! (`rosenblatt::classifier`).

use crate::flags::Mail;
use crate::report;
use anyhow::{Result, bail};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rosenblatt::classifier::SavedClassifier;
use rosenblatt::features::svmlight::{self, SvmChunks, SvmData};
use rosenblatt::input::mail::{self, MailCorpus, MailRules};
use rosenblatt::input::{self, Corpus, DocStream, Document, Format};
use rosenblatt::model::Model;
use std::path::{Path, PathBuf};

/// A batch of documents, or the error that ends the input, with the documents skipped
/// since the batch before.
pub type Batch = (rosenblatt::Result<Vec<Document>>, Vec<(String, String)>);

/// Hands `stream`'s batches to `each` in order while a thread of its own reads the next
/// one, so reading overlaps the work on a batch; `each` ending with an error ends the
/// reading too. The documents skipped after the last batch come with an empty one.
pub fn read_ahead(stream: DocStream, mut each: impl FnMut(Batch) -> Result<()>) -> Result<()> {
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        s.spawn(move || send_batches(stream, tx));
        for batch in rx {
            each(batch)?;
        }
        Ok(())
    })
}

/// Sends `stream`'s batches to `tx` until the input ends, an error (sent too) or the
/// receiver goes away.
fn send_batches(mut stream: DocStream, tx: std::sync::mpsc::SyncSender<Batch>) {
    while let Some(batch) = stream.next() {
        let end = batch.is_err();
        if tx
            .send((batch, std::mem::take(&mut stream.skipped)))
            .is_err()
            || end
        {
            return;
        }
    }
    let _ = tx.send((Ok(Vec::new()), std::mem::take(&mut stream.skipped)));
}

/// The whole model of a model file or a store (read whole in one read transaction: the
/// same model, bit for bit), for the subcommands that work on a whole model (`eval`,
/// `inspect`, `convert`).
pub fn model(path: &Path) -> Result<Model> {
    Ok(SavedClassifier::open(path)?.into_model()?)
}

/// Runs an expression over SVMlight rows, whichever kind (binary or real) they are.
macro_rules! with_rows {
    ($rows:expr, $x:ident => $body:expr) => {
        match $rows {
            rosenblatt::features::svmlight::Rows::Binary($x) => $body,
            rosenblatt::features::svmlight::Rows::Real($x) => $body,
        }
    };
}
pub(crate) use with_rows;

/// Reads every input (format given or detected with `detect`) into one corpus; prefixes
/// line-number ids with the file name when there are several inputs. With `split`, reads
/// only that part of corpora with a fixed split (Reuters).
pub fn documents(
    paths: &[PathBuf],
    format: Option<Format>,
    split: Option<input::Split>,
    detect: fn(&Path) -> Format,
) -> Result<Corpus> {
    let mut corpus = Corpus::default();
    for p in paths {
        let fmt = format.unwrap_or_else(|| detect(p));
        let mut c = input::read_part(p, Some(fmt), split)?;
        if paths.len() > 1 && matches!(fmt, Format::Jsonl | Format::Tsv) {
            for d in &mut c.docs {
                d.id = format!("{}:{}", p.display(), d.id);
            }
        }
        corpus.extend(c);
    }
    report::skipped(&corpus.skipped);
    Ok(corpus)
}

/// Refuses a labelled corpus with a document that has no label (a TSV line without a TAB
/// or with an empty label, a JSONL line without `label`/`labels`), naming `FILE:LINE`: such
/// a line would otherwise turn a two-class corpus into a multi-label one.
pub fn require_labels(corpus: &Corpus, paths: &[PathBuf]) -> Result<()> {
    match corpus.docs.iter().find(|d| d.labels.is_empty()) {
        Some(d) => Err(no_label(&d.id, paths)),
        None => Ok(()),
    }
}

/// Where the document or row `id` read from `paths` is, as errors name it: `FILE:LINE`
/// for a line number of the only input (several inputs prefix their ids already), the
/// id itself otherwise (a file path).
pub fn at(id: &str, paths: &[PathBuf]) -> String {
    match paths {
        [p] if id.parse::<usize>().is_ok() => format!("{}:{id}", p.display()),
        _ => id.to_string(),
    }
}

/// Refuses a label that is not one of a model's `classes`, naming where it is; `labelled`
/// gives each document's or row's id and labels, read from `paths`.
pub fn require_known_labels<'a>(
    labelled: impl IntoIterator<Item = (&'a str, &'a [String])>,
    classes: &[String],
    paths: &[PathBuf],
) -> Result<()> {
    for (id, labels) in labelled {
        if let Some(l) = labels.iter().find(|l| !classes.contains(l)) {
            bail!(
                "{}: label {l:?} is not one of the model's classes ({})",
                at(id, paths),
                classes.join(", ")
            );
        }
    }
    Ok(())
}

/// The error for the unlabelled document `id` of a labelled corpus read from `paths`.
/// When the one input is a file whose name does not say TSV or JSON lines, the sentence
/// says how it was read and how to read it as JSON lines instead.
pub fn no_label(id: &str, paths: &[PathBuf]) -> anyhow::Error {
    let at = at(id, paths);
    let hint = match paths {
        [p] if p.is_file() && input::Format::detect(p) == input::Format::Tsv => {
            match p.extension().and_then(|e| e.to_str()) {
                Some("tsv") => String::new(),
                Some("sgm" | "sgml") => format!(
                    "; {} was read as TSV lines: for Reuters-21578 SGML give --format reuters \
                     (with --split train or test)",
                    p.display()
                ),
                _ => format!(
                    "; {} was read as TSV lines (the format comes from the extension: \
                     .jsonl, .json or .ndjson for JSON lines); if it holds JSON lines, give \
                     --format jsonl",
                    p.display()
                ),
            }
        }
        _ => String::new(),
    };
    anyhow::anyhow!(
        "{at}: the document has no label (a labelled line is `label<TAB>text`, or JSON with \
         \"label\" or a non-empty \"labels\"){hint}"
    )
}

/// The labelled mail a mail filter (the model at `model`) is evaluated on when it is
/// given documents instead of `--spam`/`--ham`: each path must be a folder holding the
/// class folders `spam/` and `ham/`, read as mail. A line file, another format or a
/// folder without them is refused with a sentence naming the flags to use.
pub fn mail_folders(model: &Path, paths: &[PathBuf], format: Option<Format>) -> Result<Mail> {
    let mut mail = Mail {
        spam: Vec::new(),
        ham: Vec::new(),
    };
    for p in paths {
        let (spam, ham) = (p.join("spam"), p.join("ham"));
        let what = match format {
            Some(f) if f != Format::Dir => format!("given as {}", format_name(f)),
            _ if p.is_dir() && spam.is_dir() && ham.is_dir() => {
                mail.spam.push(spam);
                mail.ham.push(ham);
                continue;
            }
            _ if p.is_dir() => "a folder without spam/ and ham/ folders".to_string(),
            _ => match input::Format::detect_unlabelled(p) {
                f @ (Format::Tsv | Format::Jsonl) => format!("a {} file", format_name(f)),
                _ => "one file, not a folder of class folders".to_string(),
            },
        };
        bail!(
            "{} is a mail filter: it reads messages, and {} is {what}; give labelled mail \
             with --spam PATH --ham PATH, or a folder holding spam/ and ham/ folders of \
             messages",
            model.display(),
            p.display()
        );
    }
    Ok(mail)
}

/// Refuses inputs a mail filter (the model at `model`) would misread: line files (TSV,
/// JSONL, by `--input-format` or by their extension) hold documents, not messages; `-`
/// is one message unless `--input-format` says otherwise.
pub fn refuse_line_files(model: &Path, paths: &[PathBuf], format: Option<Format>) -> Result<()> {
    for p in paths
        .iter()
        .filter(|p| format.is_some() || p.as_os_str() != "-")
    {
        let f = format.unwrap_or_else(|| input::Format::detect_unlabelled(p));
        if matches!(f, Format::Tsv | Format::Jsonl | Format::Reuters) {
            bail!(
                "{} is a mail filter: it reads messages (files, Maildirs, mbox files, \
                 folders of them), and {} is {}; a line file would be read as one message",
                model.display(),
                p.display(),
                match format {
                    Some(f) => format!("given as {}", format_name(f)),
                    None => format!("a {} file", format_name(f)),
                }
            );
        }
    }
    Ok(())
}

/// A format as the flags spell it.
fn format_name(f: Format) -> &'static str {
    match f {
        Format::Dir => "class folders",
        Format::Text => "text",
        Format::Jsonl => "JSONL",
        Format::Tsv => "TSV",
        Format::Reuters => "Reuters SGML",
        Format::Svmlight => "SVMlight",
    }
}

/// Reports what did not read or parse in `m` and returns its corpus.
pub fn mail_corpus(m: MailCorpus) -> Corpus {
    report::skipped(&m.corpus.skipped);
    report::unparsed(&m.unparsed);
    m.corpus
}

/// Reads labelled mail under `rules` (a model's own, or the defaults that training
/// records).
pub fn mail(spam: &[PathBuf], ham: &[PathBuf], rules: &MailRules) -> Result<Corpus> {
    Ok(mail_corpus(mail::read_labelled(spam, ham, rules)?))
}

/// As [`mail`], for training: the messages are shuffled (seeded) so that spam and ham are
/// interleaved — read folder by folder, they would come in two blocks, and a perceptron's
/// last updates would all be ham.
pub fn mail_shuffled(
    spam: &[PathBuf],
    ham: &[PathBuf],
    rules: &MailRules,
    seed: u64,
) -> Result<Corpus> {
    let mut corpus = mail(spam, ham, rules)?;
    corpus
        .docs
        .shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    Ok(corpus)
}

/// Reads SVMlight rows with their ids (line numbers, `FILE:LINE` with several files),
/// feature ids up to `limit` (`None`: the default); no rows at all is an error.
pub fn svm_rows(paths: &[PathBuf], limit: Option<u32>) -> Result<(SvmData, Vec<String>)> {
    let limit = limit.unwrap_or(svmlight::DEFAULT_MAX_FEATURE_ID);
    let (d, ids) = svmlight::read_svmlight_files_limited(paths, limit)?;
    if d.labels.is_empty() {
        bail!("no rows in {}", names(paths));
    }
    Ok((d, ids))
}

/// The rows of SVMlight files (regular files) `batch` at a time, with their ids as
/// [`svm_rows`] gives them; the files are checked whole first, with the errors of
/// [`svm_rows`], and no rows at all is an error.
pub fn svm_chunks(paths: &[PathBuf], limit: Option<u32>, batch: usize) -> Result<SvmChunks> {
    let limit = limit.unwrap_or(svmlight::DEFAULT_MAX_FEATURE_ID);
    let chunks = SvmChunks::open(paths, limit, batch)?;
    if chunks.rows() == 0 {
        bail!("no rows in {}", names(paths));
    }
    Ok(chunks)
}

/// The paths, as a sentence names them.
fn names(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(" ")
}

/// The context of a read error for a vector model's inputs.
pub fn vectors_hint(model_path: &Path) -> String {
    format!(
        "{} was trained on SVMlight vectors, so its inputs are read as SVMlight",
        model_path.display()
    )
}

/// The raw bytes of one input: a file, or stdin for `-` (`what` names it in the error,
/// e.g. "the message").
pub fn read_raw(p: &Path, what: &str) -> Result<Vec<u8>> {
    use rosenblatt::input::limit::{read_bounded, read_document};
    if p.as_os_str() == "-" {
        let bytes = read_bounded(std::io::stdin().lock(), &format!("{what} on stdin"))?;
        if bytes.is_empty() {
            bail!("{what} on stdin is empty (0 bytes): nothing to read");
        }
        Ok(bytes)
    } else {
        Ok(read_document(p)?)
    }
}
