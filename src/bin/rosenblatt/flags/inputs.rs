//! Where a subcommand's data comes from: the input flags shared by several subcommands
//! (`--format`, `--split`, `--spam`, `--ham`), the rules between them, and the plain
//! descriptions of inputs that plans carry (documents, mail, SVMlight rows).

use super::features::FeatureArgs;
use anyhow::{Result, bail};
use clap::Args;
use rosenblatt::input::{Format, Split};
use rosenblatt::text::Analyzer;
use rosenblatt::vocab::VocabConfig;
use std::path::{Path, PathBuf};

/// How inputs are read.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Input")]
pub struct InputArgs {
    /// Input format; detected when omitted (folder → dir, .jsonl → jsonl, else tsv).
    #[arg(long, value_parser = super::names::format())]
    pub format: Option<Format>,
    /// The part of a corpus with a fixed split to read (--format reuters: ModApte
    /// train or test; both when omitted).
    #[arg(long, value_parser = super::names::split())]
    pub split: Option<Split>,
}

/// How SVMlight rows are read (`train`, `eval`, `classify`, `bench`).
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Input")]
pub struct SvmArgs {
    /// SVMlight input: the largest feature id accepted (memory grows with the largest id)
    /// [default: 16777216; `eval` and `classify`: the model's width when larger].
    #[arg(long, value_name = "N", value_parser = super::names::whole(1u32), allow_negative_numbers = true)]
    pub max_feature_id: Option<u32>,
}

impl SvmArgs {
    /// The limit given, checked (`None`: the default).
    pub fn limit(&self) -> Result<Option<u32>> {
        if self.max_feature_id == Some(0) {
            bail!("--max-feature-id must be at least 1 (ids start at 1)");
        }
        Ok(self.max_feature_id)
    }

    /// The limit given, checked, refused for inputs that are not SVMlight (`svm`).
    pub fn limit_for(&self, svm: bool) -> Result<Option<u32>> {
        let limit = self.limit()?;
        if limit.is_some() && !svm {
            bail!("{NOT_SVM}");
        }
        Ok(limit)
    }
}

/// Why `--max-feature-id` is refused with documents.
pub const NOT_SVM: &str = "--max-feature-id applies to SVMlight input only";

/// Labelled mail: `--spam PATH... --ham PATH...`.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Mail")]
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

    /// The mail paths as a plan carries them.
    pub fn plan(self) -> Mail {
        Mail {
            spam: self.spam,
            ham: self.ham,
        }
    }
}

/// Refuses `--split` without `--format reuters` (the only corpus with a fixed split).
pub fn check_split(split: Option<Split>, format: Option<Format>) -> Result<()> {
    if split.is_some() && format != Some(Format::Reuters) {
        bail!("--split applies to --format reuters only");
    }
    Ok(())
}

/// Labelled mail to read: spam and ham paths.
#[derive(Debug, Clone, PartialEq)]
pub struct Mail {
    /// Spam: messages, Maildirs, mbox files or folders of them.
    pub spam: Vec<PathBuf>,
    /// Ham, as for `spam`.
    pub ham: Vec<PathBuf>,
}

/// Documents to read: paths, their format (given or detected) and the part of a corpus
/// with a fixed split.
#[derive(Debug, Clone)]
pub struct Documents {
    /// Files or folders.
    pub paths: Vec<PathBuf>,
    /// The format given, or `None` to detect each path's with `detect`.
    pub format: Option<Format>,
    /// With `--format reuters`: the part to read.
    pub split: Option<Split>,
    /// How a path's format is detected when none is given.
    pub detect: fn(&Path) -> Format,
    /// `--max-feature-id`, for SVMlight rows (`None`: the default limit).
    pub max_feature_id: Option<u32>,
}

impl Documents {
    /// Whether these inputs are SVMlight rows for a model whose feature space is
    /// `indexed` (trained on vectors) or text. A vector model reads its inputs as
    /// SVMlight whatever their extension (libsvm files often have none) unless they are
    /// plainly documents; a text model reads SVMlight only when every input is detected
    /// as such.
    pub fn reads_svmlight(&self, indexed: bool) -> Result<bool> {
        match self.format {
            Some(f) => Ok(f == Format::Svmlight),
            None if indexed => Ok(!self.paths.iter().any(|p| looks_like_documents(p))),
            None => is_svm(&self.paths, None, self.detect),
        }
    }
}

/// Where `train` and `vectorize` read their labelled data from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Documents in any text format.
    Documents(Documents),
    /// Labelled mail, parsed as messages.
    Mail(Mail),
    /// SVMlight rows, read as they are (no tokenizer, no vocabulary), with feature ids
    /// up to the limit (`None`: the default).
    Svmlight(Vec<PathBuf>, Option<u32>),
}

impl Source {
    /// Every input path, spam's and ham's for mail.
    pub fn paths(&self) -> Vec<&Path> {
        let paths: Vec<&PathBuf> = match self {
            Source::Documents(d) => d.paths.iter().collect(),
            Source::Mail(m) => m.spam.iter().chain(&m.ham).collect(),
            Source::Svmlight(paths, _) => paths.iter().collect(),
        };
        paths.into_iter().map(PathBuf::as_path).collect()
    }

    /// The input names recorded in a model: `spam:PATH` and `ham:PATH` for mail, the
    /// paths otherwise.
    pub fn names(&self) -> Vec<String> {
        let tagged = |tag: &str, ps: &[PathBuf]| -> Vec<String> {
            ps.iter().map(|p| format!("{tag}{}", p.display())).collect()
        };
        match self {
            Source::Documents(d) => tagged("", &d.paths),
            Source::Mail(m) => [tagged("spam:", &m.spam), tagged("ham:", &m.ham)].concat(),
            Source::Svmlight(paths, _) => tagged("", paths),
        }
    }
}

/// Whether the inputs are SVMlight: `--format svmlight`, or every input detected as such
/// (`.svm`, `.svmlight`, `.libsvm`). Mixing vectors with documents is an error.
pub fn is_svm(
    paths: &[PathBuf],
    format: Option<Format>,
    detect: fn(&Path) -> Format,
) -> Result<bool> {
    if let Some(f) = format {
        return Ok(f == Format::Svmlight);
    }
    let svm = paths
        .iter()
        .filter(|p| detect(p) == Format::Svmlight)
        .count();
    if svm > 0 && svm < paths.len() {
        bail!(
            "some inputs are SVMlight vectors and some are documents; give one kind (or \
             --format)"
        );
    }
    Ok(svm > 0)
}

/// Whether a path is plainly documents (a folder, or a text or mail extension), not
/// SVMlight rows.
fn looks_like_documents(p: &Path) -> bool {
    p.is_dir()
        || matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("jsonl" | "json" | "ndjson" | "tsv" | "txt" | "eml" | "mbox" | "sgm")
        )
}

/// How the words of a corpus become its features (`train`, `vectorize`): the tokens
/// ([`FeatureArgs`]), and a pruned vocabulary or hashed ids.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Features")]
pub struct VocabArgs {
    /// Keep words seen in at least this many (training) documents [default for train: 1
    /// below 1,000 documents, 2 from there on, as in a large corpus a word of one document
    /// is mostly a name, a number or a typo; text of two classes keeps them below 20,000
    /// documents, as short opinions were measured to need them; vectorize keeps every
    /// word].
    #[arg(long, value_parser = super::names::whole(1u32), allow_negative_numbers = true)]
    pub min_df: Option<u32>,
    /// Keep at most this many words (the most frequent).
    #[arg(long, value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub max_features: Option<usize>,
    #[command(flatten)]
    pub features: FeatureArgs,
}

/// Why vocabulary flags are refused with SVMlight input.
pub const VOCAB_ON_VECTORS: &str = "--min-df, --max-features, --keep-case, --ngrams, \
                                    --features and --hash-bits shape a vocabulary; SVMlight \
                                    rows have none";

impl VocabArgs {
    /// The vocabulary settings over `default` (what the subcommand prunes without flags),
    /// checked with the n-gram and hashing flags they go with.
    pub fn config(&self, default: VocabConfig) -> Result<VocabConfig> {
        self.features.steps()?;
        if self.features.hash_bits.is_some_and(|b| b > 0)
            && (self.min_df.is_some_and(|m| m != 1) || self.max_features.is_some())
        {
            bail!(
                "--min-df and --max-features prune a vocabulary of words, and --hash-bits \
                 keeps no words (every hashed id stays): give one or the other"
            );
        }
        let vocab = VocabConfig {
            max_features: self.max_features,
            ..default
        };
        // A floor given is the floor, whatever the corpus's size.
        let vocab = self.min_df.map_or(vocab, |n| vocab.with_min_df(n));
        vocab.validate()?;
        Ok(vocab)
    }

    /// The analyzer the tokenizing flags ask for, over `default` (see
    /// [`FeatureArgs::analyzer`]).
    pub fn analyzer(&self, default: &Analyzer) -> Result<Analyzer> {
        self.features.analyzer(default)
    }

    /// Whether any of them was given (they shape features made from text, which vectors
    /// lack).
    pub fn is_set(&self) -> bool {
        self.min_df.is_some_and(|m| m != 1) || self.max_features.is_some() || self.features.is_set()
    }
}

/// A labelled corpus of documents (`train`, `vectorize`); mail comes instead through
/// [`MailInputs`], flattened apart so that it is listed under its own heading.
#[derive(Debug, Args, Clone)]
// The inputs head the Input heading: a positional sorts by its display order as flags do
// but takes none of the running count, so the flags here count from 1.
#[command(next_help_heading = "Input", next_display_order = 1)]
pub struct CorpusArgs {
    /// Labelled input(s): a DIR/<class>/<files> folder, a .jsonl or a label<TAB>text file
    /// (vectorize: --format text for unlabelled files); `-` reads stdin, as TSV lines
    /// unless --format says jsonl.
    #[arg(
        required_unless_present_any = ["spam", "ham"],
        conflicts_with_all = ["spam", "ham"],
        display_order = 0
    )]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
}

impl CorpusArgs {
    /// The documents to read, their format detected as for labelled input.
    pub fn documents(self) -> Documents {
        Documents {
            paths: self.inputs,
            format: self.input.format,
            split: self.input.split,
            detect: Format::detect,
            max_feature_id: None,
        }
    }
}
