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

use crate::args::InputArgs;
use crate::progress::Phase;
use anyhow::{Context, Result, bail};
use clap::Args;
use rosenblatt::atomic::AtomicFile;
use rosenblatt::features::StreamVectorizer;
use rosenblatt::input::mail::MailRules;
use rosenblatt::input::svmlight::{class_labels, write_svmlight_with};
use rosenblatt::input::{DocStream, Document, Format};
use rosenblatt::text::{Analyzer, Source};
use rosenblatt::vocab::VocabConfig;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// `rosenblatt vectorize`.
#[derive(Debug, Args)]
pub struct VectorizeArgs {
    /// Labelled input(s), as for `train`: a DIR/<class>/<files> folder, a .jsonl or a
    /// label<TAB>text file (or --format text for unlabelled files).
    #[arg(required_unless_present_any = ["spam", "ham"], conflicts_with_all = ["spam", "ham"])]
    pub inputs: Vec<PathBuf>,
    /// Mail (--spam PATH... --ham PATH...), read as for `train`.
    #[command(flatten)]
    pub mail: crate::mail::MailInputs,
    /// The SVMlight file to write; the vocabulary goes to OUT.vocab (line i: feature id i,
    /// `word<TAB>document frequency`) and the class labels to OUT.classes.
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub input: InputArgs,
    /// Keep words seen in at least this many documents.
    #[arg(long, default_value_t = 1)]
    pub min_df: u32,
    /// Keep at most this many words (the most frequent).
    #[arg(long)]
    pub max_features: Option<usize>,
    /// Keep letter case (words are lowercased by default).
    #[arg(long)]
    pub keep_case: bool,
    /// The class written as +1 in a two-class corpus (default as for `train`: spam if
    /// present, else the second label in sorted order).
    #[arg(long)]
    pub positive: Option<String>,
    /// Documents read and tokenized per batch.
    #[arg(long, default_value_t = rosenblatt::input::stream::DEFAULT_BATCH)]
    pub batch: usize,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Each document's label set, interned: most corpora have few distinct sets.
#[derive(Default)]
struct Labels {
    sets: Vec<Vec<String>>,
    index: HashMap<Vec<String>, u32>,
    of_row: Vec<u32>,
}

impl Labels {
    fn push(&mut self, d: &Document) {
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
            rosenblatt::pipeline::classes_of(&docs, positive)?
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

fn side_path(out: &Path, ext: &str) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

/// Runs `vectorize`.
pub fn run(a: VectorizeArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let vocab_cfg = VocabConfig {
        min_df: a.min_df,
        max_features: a.max_features,
    };
    vocab_cfg.validate()?;
    if a.batch == 0 {
        bail!("--batch must be at least 1");
    }
    if a.input.format == Some(Format::Svmlight) {
        bail!("vectorize reads documents; SVMlight input is already vectors");
    }
    if a.input.split.is_some() && a.input.format != Some(Format::Reuters) {
        bail!("--split applies to --format reuters only");
    }
    let phase = Phase::start("vectorizing");
    let mut s = StreamVectorizer::new(Analyzer::standard(Source::Text, !a.keep_case));
    let mut labels = Labels::default();
    let mut push = |docs: &[Document]| {
        for d in docs {
            labels.push(d);
        }
        s.push(docs);
    };
    let skipped = if a.mail.is_set() {
        let corpus = a.mail.read(&MailRules::default())?;
        for part in corpus.docs.chunks(a.batch) {
            push(part);
        }
        corpus.skipped.len()
    } else {
        let mut stream = DocStream::open(&a.inputs, a.input.format, a.input.split, a.batch)?;
        for batch in stream.by_ref() {
            push(&batch?);
        }
        let c = rosenblatt::input::Corpus {
            docs: Vec::new(),
            skipped: std::mem::take(&mut stream.skipped),
        };
        crate::load::report_skipped(&c);
        c.skipped.len()
    };
    if s.rows() == 0 {
        bail!("no documents in {}", a.mail.names(&a.inputs).join(" "));
    }
    let bytes = s.bytes();
    let (classes, coded, per_set) = labels.finish(a.positive.as_deref())?;
    let (vocab, x) = s.finish(&vocab_cfg);

    phase.set("writing");
    let mut out = AtomicFile::create(&a.output)?;
    write_svmlight_with(
        &x,
        |i| per_set[labels.of_row[i] as usize].as_str(),
        &mut out,
    )
    .with_context(|| format!("writing {}", a.output.display()))?;
    let vocab_path = side_path(&a.output, ".vocab");
    let mut vf = AtomicFile::create(&vocab_path)?;
    for j in 0..vocab.len() as u32 {
        writeln!(vf, "{}\t{}", vocab.word(j), vocab.df(j))
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
        println!("{v}");
    } else {
        println!("documents      {} ({skipped} skipped)", x.rows());
        let shown: Vec<String> = classes
            .iter()
            .zip(&coded)
            .map(|(c, l)| format!("{c} = {l}"))
            .collect();
        println!("classes        {}", shown.join(", "));
        println!("vocabulary     {} words", vocab.len());
        println!("nonzeros       {}", x.nnz());
        println!(
            "text           {mb:.1} MB in {secs:.2} s ({:.1} MB/s)",
            mb / secs.max(1e-9)
        );
        println!("wrote          {}", a.output.display());
        println!("               {}", vocab_path.display());
        println!("               {}", classes_path.display());
    }
    Ok(ExitCode::SUCCESS)
}
