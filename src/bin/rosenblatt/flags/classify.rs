//! `rosenblatt classify`'s flags — output format, input format, the spam-filter options
//! — and the plan they become, with the rules between them checked before any file is
//! read.

use super::inputs::{self, Documents};
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use rosenblatt::distributed::Processes;
use rosenblatt::incremental::SpamCut;
use rosenblatt::input::{Format, Split};
use rosenblatt::model::Ranking;
use std::path::PathBuf;

/// Output formats of `classify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// `id<TAB>label<TAB>score`.
    Tsv,
    /// `{"id":…,"label":…,"score":…}`.
    Jsonl,
}

/// `rosenblatt classify`.
#[derive(Debug, Args)]
// The fields are in the order of `--help`'s headings: Input, Mail, Cluster, Output.
pub struct ClassifyArgs {
    /// The model file.
    #[arg(short, long, help_heading = "Input")]
    pub model: PathBuf,
    /// Documents: files, folders (every file under them) or line files with --input-format;
    /// `-` (or nothing) reads one document from stdin, or its lines with --input-format
    /// jsonl or tsv. For a mail filter: messages, Maildir folders or mbox files.
    #[arg(help_heading = "Input", display_order = 0)]
    pub inputs: Vec<PathBuf>,
    /// Input format: `text` (each file one document), or a line format (jsonl, tsv:
    /// one document per line, id = line number). Detected from the extension when omitted.
    #[arg(long = "input-format", value_enum, help_heading = "Input")]
    pub input_format: Option<ClassifyFormat>,
    /// With --input-format reuters: the ModApte part to classify (train or test).
    #[arg(long, value_parser = super::names::split(), help_heading = "Input")]
    pub split: Option<Split>,
    #[command(flatten)]
    pub svm: super::inputs::SvmArgs,
    /// Documents (or SVMlight rows) read, scored and written at a time: memory holds the
    /// model and a few batches, however large the input. Mail is read whole.
    #[arg(long, default_value_t = rosenblatt::input::stream::DEFAULT_BATCH, help_heading = "Input", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub batch: usize,
    /// Spam-filter options (exit codes, --passthrough, --unsure).
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Classifying as one of several processes, each scoring its share of the inputs.
    #[command(flatten)]
    pub cluster: super::cluster::ClusterArgs,
    /// Output format: `id<TAB>label<TAB>score` lines or one JSON object per line.
    #[arg(long = "format", value_enum, default_value_t = OutputFormat::Tsv, help_heading = "Output")]
    pub output_format: OutputFormat,
    /// The N best classes of each document, best first, each with its score and
    /// probability: `id<TAB>label1<TAB>score1<TAB>p1<TAB>label2<TAB>score2<TAB>p2…`, a
    /// label, score and probability per class (`-` where the model has no probability);
    /// with --format jsonl each line gains "classes": [{"label","score","probability"}].
    /// Probabilities: a softmax model's softmax, a logistic one-vs-rest model's sigmoids
    /// normalised to sum to 1, a two-class model's calibrated P(class); perceptron, pa
    /// and other one-vs-rest models are not calibrated and give none (null). Two-class
    /// models list both classes, the decided one first; multi-label models rank every
    /// label by its score (above its threshold or not), each with its own probability.
    #[arg(short = 'k', long = "top-classes", value_name = "N", help_heading = "Output", value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub top_classes: Option<usize>,
    /// With -k: drop the classes whose probability is below P (as fastText's -t), so a
    /// document may list fewer than N, or none. Refused for a model without
    /// probabilities.
    #[arg(long, value_name = "P", requires = "top_classes", value_parser = parse_probability, help_heading = "Output")]
    pub min_probability: Option<f32>,
    /// Explain each verdict: the features the document holds that the model weighs, each
    /// with its weight and contribution (weight × the row's value), strongest first, the
    /// bias and the score they add up to; for filters, P(spam) and where the filter
    /// decides. With --format jsonl each line gains "bias" and "features" (every one).
    #[arg(long, help_heading = "Output")]
    pub explain: bool,
    /// With --explain, for a model of three classes or more: explain this class's score
    /// instead of the decided class's.
    #[arg(
        long,
        value_name = "CLASS",
        requires = "explain",
        help_heading = "Output"
    )]
    pub explain_class: Option<String>,
    /// With --explain: the strongest features listed per document in the plain form (0:
    /// all); the rest are summed on one line. JSON lines list every feature.
    #[arg(long, value_name = "N", default_value_t = 20, requires = "explain", help_heading = "Output", value_parser = super::names::whole(0usize), allow_negative_numbers = true)]
    pub explain_top: usize,
}

/// What `classify --explain` shows.
#[derive(Debug, Clone)]
pub struct ExplainPlan {
    /// `--explain-class`: the class to explain instead of the decided one.
    pub class: Option<String>,
    /// `--explain-top`: features listed in the plain form (`usize::MAX`: all).
    pub top: usize,
}

/// How `classify` reads its inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClassifyFormat {
    /// Each file (or each file under a folder) is one document.
    Text,
    /// One JSON object per line (`text` field).
    Jsonl,
    /// `label<TAB>text` or `text` lines.
    Tsv,
    /// Reuters-21578 SGML (see --split).
    Reuters,
    /// SVMlight vectors, for models trained on SVMlight input (id = line number).
    Svmlight,
}

/// A score band, inclusive at both ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// Lowest score still unsure.
    pub low: f32,
    /// Highest score still unsure.
    pub high: f32,
}

/// Where `classify` calls a message "unsure": a band of scores or of P(spam).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unsure {
    /// `--unsure`: scores in this band.
    Score(Band),
    /// `--unsure-probability`: P(spam) in this band (filters that record a probability).
    Probability(Band),
}

impl Unsure {
    /// Whether a message of `score` and P(spam) `probability` is unsure.
    pub fn contains(self, score: f32, probability: Option<f32>) -> bool {
        let within = |b: Band, v: f32| v >= b.low && v <= b.high;
        match self {
            Unsure::Score(b) => within(b, score),
            Unsure::Probability(b) => probability.is_some_and(|p| within(b, p)),
        }
    }
}

/// Parses `--unsure-probability LOW:HIGH`: a band of probabilities, within [0, 1].
fn parse_probability_band(s: &str) -> std::result::Result<Band, String> {
    let b = parse_band(s)?;
    if b.low < 0.0 || b.high > 1.0 {
        return Err(format!(
            "probabilities lie in [0, 1], got {s:?} (for a band of scores use --unsure)"
        ));
    }
    Ok(b)
}

/// Parses `--min-probability P`: a probability, within [0, 1].
fn parse_probability(s: &str) -> std::result::Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("expected a probability in [0, 1], got {s:?}")),
    }
}

/// Parses `--unsure LOW:HIGH`.
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
#[command(next_help_heading = "Mail")]
pub struct FilterArgs {
    /// Write the message (one, from stdin or a file) back to stdout with an
    /// `X-Rosenblatt: spam|ham|unsure; score=S; probability=P` header added (P(spam), for
    /// filters that record one), instead of a verdict line.
    #[arg(long)]
    pub passthrough: bool,
    /// Scores within LOW:HIGH (inclusive) are "unsure" (exit code 2), e.g. --unsure=-5:5.
    #[arg(long, value_name = "LOW:HIGH", value_parser = parse_band, allow_hyphen_values = true)]
    pub unsure: Option<Band>,
    /// P(spam) within LOW:HIGH (inclusive) is "unsure" (exit code 2), e.g.
    /// --unsure-probability 0.5:0.9 (bogofilter's cutoffs are probabilities too). For
    /// filters that record a probability: `train --spam --ham` calibrates one, and a
    /// logistic filter's scores are log-odds.
    #[arg(long, value_name = "LOW:HIGH", value_parser = parse_probability_band, conflicts_with = "unsure")]
    pub unsure_probability: Option<Band>,
    /// Where a saved filter calls a message spam: its exit code and `--passthrough`'s
    /// header follow.
    #[command(flatten)]
    pub cut: super::spam_cut::SpamCutArgs,
}

/// What `classify` does, checked.
#[derive(Debug, Clone)]
pub struct ClassifyPlan {
    /// The model file.
    pub model: PathBuf,
    /// The inputs: `-` (stdin) when none were given.
    pub documents: Documents,
    /// How each document's line is written.
    pub output: OutputFormat,
    /// `--passthrough`: write the one message back with a verdict header.
    pub passthrough: bool,
    /// `--unsure` or `--unsure-probability`: where a message is "unsure".
    pub unsure: Option<Unsure>,
    /// `--spam-probability` or `--spam-score`: where a message is spam, when not at the
    /// filter's recorded threshold.
    pub cut: Option<SpamCut>,
    /// `--processes`: this process's place among those that share the inputs.
    pub cluster: Option<Processes>,
    /// `--batch`: documents or SVMlight rows read, scored and written at a time.
    pub batch: usize,
    /// `--explain`: each verdict taken apart.
    pub explain: Option<ExplainPlan>,
    /// `-k` and `--min-probability`: each document's best classes, ranked.
    pub rank: Option<Ranking>,
}

impl ClassifyPlan {
    /// Whether any spam-filter option was given.
    pub fn filter(&self) -> bool {
        self.passthrough || self.unsure.is_some() || self.cut.is_some()
    }
}

/// Turns `classify`'s flags into a plan; every flag rule of `classify` is checked here.
pub fn plan(a: ClassifyArgs) -> Result<ClassifyPlan> {
    let format = a.input_format.map(|f| match f {
        ClassifyFormat::Text => Format::Text,
        ClassifyFormat::Jsonl => Format::Jsonl,
        ClassifyFormat::Tsv => Format::Tsv,
        ClassifyFormat::Reuters => Format::Reuters,
        ClassifyFormat::Svmlight => Format::Svmlight,
    });
    inputs::check_split(a.split, format)?;
    if a.batch == 0 {
        bail!("--batch must be at least 1");
    }
    let max_feature_id = a
        .svm
        .limit_for(format.is_none_or(|f| f == Format::Svmlight))?;
    let unsure = match (a.filter.unsure, a.filter.unsure_probability) {
        (Some(b), _) => Some(Unsure::Score(b)),
        (None, Some(b)) => Some(Unsure::Probability(b)),
        (None, None) => None,
    };
    let cut = a.filter.cut.cut();
    let filter = a.filter.passthrough || unsure.is_some() || cut.is_some();
    let stdin = a.inputs.is_empty() || a.inputs.iter().any(|p| p.as_os_str() == "-");
    if format == Some(Format::Svmlight) {
        if filter {
            bail!("the spam-filter options apply to mail models, not SVMlight vectors");
        }
        if stdin {
            bail!("classify reads SVMlight vectors from files; give their paths");
        }
    }
    let cluster = a.cluster.plan()?;
    let explain = a.explain.then_some(ExplainPlan {
        class: a.explain_class,
        top: if a.explain_top == 0 {
            usize::MAX
        } else {
            a.explain_top
        },
    });
    if explain.is_some() {
        if format == Some(Format::Svmlight) {
            bail!("--explain takes documents apart into their words; SVMlight rows have none");
        }
        if cluster.is_some() {
            bail!("--explain lists each document's features; leave out --processes");
        }
        if a.filter.passthrough {
            bail!("--passthrough writes the message back; --explain writes its reasons instead");
        }
    }
    let rank = a.top_classes.map(|top| Ranking {
        top,
        min_probability: a.min_probability,
    });
    if a.top_classes == Some(0) {
        bail!("-k (--top-classes) must be at least 1");
    }
    if rank.is_some() {
        if explain.is_some() {
            bail!("-k lists each document's best classes; --explain takes one apart: give one");
        }
        if filter {
            bail!(
                "-k ranks the classes of a classifier of documents; the spam-filter options \
                 give a filter's verdict instead"
            );
        }
        if cluster.is_some() {
            bail!("-k is written by one process; leave out --processes");
        }
    }
    if cluster.is_some() {
        if stdin {
            bail!(
                "classify --processes shares files, lines and messages among the processes; \
                 give the inputs' paths (stdin, `-`, cannot be shared)"
            );
        }
        if a.filter.passthrough {
            bail!("--passthrough writes back one message; leave out --processes");
        }
    }
    let paths = if a.inputs.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        a.inputs
    };
    if a.filter.passthrough
        && (paths.len() != 1 || (paths[0].as_os_str() != "-" && !paths[0].is_file()))
    {
        bail!("--passthrough writes back one message: give one file or `-` (stdin)");
    }
    Ok(ClassifyPlan {
        model: a.model,
        documents: Documents {
            paths,
            format,
            split: a.split,
            detect: Format::detect_unlabelled,
            max_feature_id,
        },
        output: a.output_format,
        passthrough: a.filter.passthrough,
        unsure,
        cut,
        cluster,
        batch: a.batch,
        explain,
        rank,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
