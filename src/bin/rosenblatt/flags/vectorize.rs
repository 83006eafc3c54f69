//! `rosenblatt vectorize`'s flags and the plan they become, checked before any file is
//! read: vocabulary pruning, batch size, and inputs that are documents.

use super::geometry::GeometryArgs;
use super::inputs::{self, Source};
use anyhow::{Result, bail};
use clap::Args;
use rosenblatt::features::GeometrySpec;
use rosenblatt::input::Format;
use rosenblatt::text::Analyzer;
use rosenblatt::vocab::VocabConfig;
use std::path::PathBuf;

/// `rosenblatt vectorize`.
#[derive(Debug, Args)]
// The fields are in the order of `--help`'s headings, as `train`'s are.
pub struct VectorizeArgs {
    #[command(flatten)]
    pub corpus: inputs::CorpusArgs,
    /// The class written as +1 in a two-class corpus (default as for `train`: spam if
    /// present, else the second label in sorted order).
    #[arg(long, help_heading = "Input")]
    pub positive: Option<String>,
    /// Documents read and tokenized per batch.
    #[arg(long, default_value_t = rosenblatt::input::stream::DEFAULT_BATCH, help_heading = "Input", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub batch: usize,
    #[command(flatten)]
    pub vocab: inputs::VocabArgs,
    /// The values written: 1 per word (binary, the default) or the weighted, scaled
    /// values `train` would read with the same flags (idf over this corpus).
    #[command(flatten)]
    pub geometry: GeometryArgs,
    /// Mail (--spam PATH... --ham PATH...): messages, written as a spam filter reads them.
    #[command(flatten)]
    pub mail: inputs::MailInputs,
    /// The SVMlight file to write; the vocabulary goes to OUT.vocab (line i: feature id i,
    /// `word<TAB>document frequency`; with --hash-bits, `#ID<TAB>document frequency` for
    /// each of the 2^B ids) and the class labels to OUT.classes. A file name, not `-`:
    /// the vectors are written once the whole corpus is read and their ids mean nothing
    /// without the two files beside them (write to a file, then `cat` it; `./-` names a
    /// file called `-`).
    #[arg(short, long, help_heading = "Output")]
    pub output: PathBuf,
    /// Print the summary as one JSON object.
    #[arg(long, help_heading = "Output")]
    pub json: bool,
}

/// What `vectorize` does, checked.
#[derive(Debug, Clone)]
pub struct VectorizePlan {
    /// Documents or mail (never SVMlight rows).
    pub source: Source,
    /// The SVMlight file; `.vocab` and `.classes` files go beside it.
    pub output: PathBuf,
    /// Vocabulary pruning, validated.
    pub vocab: VocabConfig,
    /// How documents become tokens (case, n-grams, hashing), validated.
    pub analyzer: Analyzer,
    /// The class written as +1 in a two-class corpus.
    pub positive: Option<String>,
    /// Documents per batch, at least 1.
    pub batch: usize,
    /// Print the summary as JSON.
    pub json: bool,
    /// The values the rows are written with.
    pub geometry: GeometrySpec,
}

/// Turns `vectorize`'s flags into a plan; every flag rule of `vectorize` is checked here.
pub fn plan(a: VectorizeArgs) -> Result<VectorizePlan> {
    // A conversion keeps every word unless asked to prune.
    let vocab = a
        .vocab
        .config(rosenblatt::vocab::VocabConfig::every_word())?;
    if a.batch == 0 {
        bail!("--batch must be at least 1");
    }
    if a.output.as_os_str() == "-" {
        bail!(
            "-o -: vectorize writes three files (OUT, OUT.vocab and OUT.classes), so -o takes \
             a file name, not standard output (./- names a file called -)"
        );
    }
    if a.corpus.input.format == Some(Format::Svmlight) {
        bail!("vectorize reads documents; SVMlight input is already vectors");
    }
    inputs::check_split(a.corpus.input.split, a.corpus.input.format)?;
    let source = if a.mail.is_set() {
        Source::Mail(a.mail.plan())
    } else {
        Source::Documents(a.corpus.documents())
    };
    a.geometry
        .check_nb(Some("vectorize (whose rows carry no model)"))?;
    Ok(VectorizePlan {
        source,
        output: a.output,
        analyzer: a.vocab.analyzer(&Analyzer::default())?,
        vocab,
        positive: a.positive,
        batch: a.batch,
        json: a.json,
        geometry: a.geometry.spec(GeometrySpec::default()),
    })
}
