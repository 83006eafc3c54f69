//! `rosenblatt vectorize`: a corpus → SVMlight rows (`OUT`), its vocabulary (`OUT.vocab`)
//! and its classes (`OUT.classes`), so the same vectors feed rosenblatt, LIBLINEAR, Vowpal
//! Wabbit and scikit-learn.
//!
//! The input is streamed: documents are read a batch at a time, tokenized into the growing
//! matrix and dropped, so memory holds the rows, the vocabulary and one batch of text —
//! never the corpus. Mail (`--spam/--ham`) and Reuters SGML are read whole, then pushed in
//! batches.
//!
//! Labels: with two classes the positive one (as `train` picks it) is `+1` and the other
//! `-1`; with more, the class names when they are all numbers, otherwise `1..=k` in sorted
//! class order. `OUT.classes` lists `LABEL<TAB>CLASS` for each. A document with several
//! labels gets them comma-separated (the LIBSVM multi-label convention); an unlabelled
//! one gets `0`.
//!
//! Values are 1 (binary rows) unless `--weighting`/`--normalize` ask for the weighted,
//! scaled values a model trained with the same flags reads (idf counted over this corpus).

use crate::flags::{Source, VectorizePlan};
use crate::progress::Phase;
use anyhow::{Context, Result, bail};
use rosenblatt::atomic::AtomicFile;
use rosenblatt::features::svmlight::{class_labels, write_svmlight_with};
use rosenblatt::features::{Geometry, StreamVectorizer};
use rosenblatt::input::mail::MailRules;
use rosenblatt::input::{DocStream, Document};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Each document's label set, interned: most corpora have few distinct sets.
#[derive(Default)]
struct Labels {
    sets: Vec<Vec<String>>,
    index: HashMap<Vec<String>, u32>,
    of_row: Vec<u32>,
    /// The id of the first document without a label.
    unlabelled: Option<String>,
}

impl Labels {
    /// Records the label set of the next row.
    fn push(&mut self, d: &Document) {
        if d.labels.is_empty() && self.unlabelled.is_none() {
            self.unlabelled = Some(d.id.clone());
        }
        let mut set = d.labels.clone();
        set.sort();
        set.dedup();
        let k = match self.index.get(&set) {
            Some(&k) => k,
            None => {
                let k = self.sets.len() as u32;
                self.sets.push(set.clone());
                self.index.insert(set, k);
                k
            }
        };
        self.of_row.push(k);
    }

    /// The document without a label in a single-label corpus, where its row would read
    /// as a class of its own (in a multi-label corpus an empty set is a row with no label).
    fn stray_unlabelled(&self) -> Option<&str> {
        let single = self.sets.iter().all(|s| s.len() <= 1);
        let labelled = self.sets.iter().any(|s| !s.is_empty());
        self.unlabelled.as_deref().filter(|_| single && labelled)
    }

    /// The classes (ordered as `train` orders them) and each label set's SVMlight label.
    fn finish(&self, positive: Option<&str>) -> Result<(Vec<String>, Vec<String>, Vec<String>)> {
        let mut names: Vec<String> = self.sets.iter().flatten().cloned().collect();
        names.sort();
        names.dedup();
        let classes = if names.len() >= 2 {
            let docs: Vec<Document> = names
                .iter()
                .map(|c| Document::new("", "", Some(c)))
                .collect();
            rosenblatt::training::classes_of(&docs, positive)?
        } else {
            if let Some(p) = positive {
                bail!("--positive {p}: the corpus has fewer than two classes ({names:?})");
            }
            names
        };
        let coded = class_labels(&classes);
        let code = |c: &String| coded[classes.iter().position(|x| x == c).unwrap()].as_str();
        let per_set = self
            .sets
            .iter()
            .map(|s| match s.as_slice() {
                [] => "0".to_string(),
                _ => s.iter().map(code).collect::<Vec<_>>().join(","),
            })
            .collect();
        Ok((classes, coded, per_set))
    }
}

/// `out` with `ext` appended: the vocabulary and classes files beside the vectors.
fn side_path(out: &Path, ext: &str) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

/// Runs `vectorize`.
pub fn run(a: VectorizePlan) -> Result<ExitCode> {
    rosenblatt::atomic::check_output(&a.output)?;
    let inputs = a.source.paths();
    for out in [
        a.output.clone(),
        side_path(&a.output, ".vocab"),
        side_path(&a.output, ".classes"),
    ] {
        rosenblatt::atomic::check_not_an_input(&out, &inputs)?;
    }
    let start = Instant::now();
    let phase = Phase::start("vectorizing");
    let mut s = StreamVectorizer::new(a.analyzer.clone());
    let mut labels = Labels::default();
    let mut push = |docs: &[Document]| {
        for d in docs {
            labels.push(d);
        }
        s.push(docs);
    };
    let skipped = match &a.source {
        Source::Mail(m) => {
            let corpus = crate::load::mail(&m.spam, &m.ham, &MailRules::default())?;
            for part in corpus.docs.chunks(a.batch) {
                push(part);
            }
            corpus.skipped.len()
        }
        Source::Documents(d) => {
            let mut stream = DocStream::open(&d.paths, d.format, d.split, a.batch)?;
            for batch in stream.by_ref() {
                push(&batch?);
            }
            crate::report::skipped(&stream.skipped);
            stream.skipped.len()
        }
        Source::Svmlight(..) => unreachable!("a vectorize plan holds documents or mail"),
    };
    if s.rows() == 0 {
        bail!("no documents in {}", a.source.names().join(" "));
    }
    if let (Some(id), Source::Documents(d)) = (labels.stray_unlabelled(), &a.source) {
        return Err(crate::load::no_label(id, &d.paths));
    }
    let bytes = s.bytes();
    let (classes, coded, per_set) = labels.finish(a.positive.as_deref())?;
    let (vocab, x) = s.finish(&a.vocab);

    phase.set("writing");
    let geometry = Geometry::fit(a.geometry, &x);
    let mut out = AtomicFile::create(&a.output)?;
    write_svmlight_with(
        &geometry.apply(&x),
        |i| per_set[labels.of_row[i] as usize].as_str(),
        &mut out,
    )
    .with_context(|| format!("writing {}", a.output.display()))?;
    let vocab_path = side_path(&a.output, ".vocab");
    let mut vf = AtomicFile::create(&vocab_path)?;
    for j in 0..vocab.len() as u32 {
        writeln!(vf, "{}\t{}", vocab.name(j), vocab.df(j))
            .with_context(|| format!("writing {}", vocab_path.display()))?;
    }
    let classes_path = side_path(&a.output, ".classes");
    let mut cf = AtomicFile::create(&classes_path)?;
    for (c, l) in classes.iter().zip(&coded) {
        writeln!(cf, "{l}\t{c}").with_context(|| format!("writing {}", classes_path.display()))?;
    }
    out.commit()?;
    vf.commit()?;
    cf.commit()?;
    drop(phase);

    let secs = start.elapsed().as_secs_f64();
    let mb = bytes as f64 / 1e6;
    if a.json {
        let v = serde_json::json!({
            "output": a.output.display().to_string(),
            "vocabulary_file": vocab_path.display().to_string(),
            "classes_file": classes_path.display().to_string(),
            "documents": x.rows(),
            "skipped": skipped,
            "classes": classes,
            "labels": coded,
            "vocabulary": vocab.len(),
            "nonzeros": x.nnz(),
            "text_bytes": bytes,
            "seconds": secs,
        });
        outln!("{v}");
    } else {
        outln!("documents      {} ({skipped} skipped)", x.rows());
        let shown: Vec<String> = classes
            .iter()
            .zip(&coded)
            .map(|(c, l)| format!("{c} = {l}"))
            .collect();
        outln!("classes        {}", shown.join(", "));
        outln!("vocabulary     {}", vocab.describe());
        outln!("nonzeros       {}", x.nnz());
        outln!(
            "text           {mb:.1} MB in {secs:.2} s ({:.1} MB/s)",
            mb / secs.max(1e-9)
        );
        outln!("wrote          {}", a.output.display());
        outln!("               {}", vocab_path.display());
        outln!("               {}", classes_path.display());
    }
    Ok(ExitCode::SUCCESS)
}
