//! The accuracy harness behind docs/ACCURACY.md: every option set on every corpus over
//! seeded stratified 80/20 splits (seeds 1–5 by default; not 42, the split seed of
//! rosenblatt's and peers.py's defaults) beside the scikit-learn peers of
//! `../shared/tools/peers/peers.py` on the same splits, as a markdown table: accuracy mean ±
//! sd, ham false-positive rate, the worst split, and on how many splits each set matched or
//! beat the best scikit-learn learner; Reuters-21578 (fixed ModApte split): micro/macro-F1.
//!
//! It composes the library: `input` reads the corpora (mail under the default `MailRules`),
//! `experiment::stratified_holdout` splits them, each option set (a named builder of
//! `TrainConfig::default()`, or `TrainConfig::spam_filter()` for mail: `default`,
//! `averaged-perceptron`, `pa`, `logistic`, `perceptron`, any `--learner NAME`, any
//! `--set SPEC`) is fitted by a `training::TrainingJob` shuffling with the split's seed
//! (on two-class text the default PA gets `train`'s C = 0.3 unless the set names C, and
//! words of one document are kept below 20,000 documents unless it names min-df),
//! and scored by `training::evaluate_decisions` with `eval::SpamMetrics` (Reuters:
//! `evaluate_multilabel`). Two-class accuracy is taken where the peers decide, P > 0.5:
//! a mail filter's calibrated P(spam) > 0.5 (as `train --threshold 0` trains it), a text
//! model's default; the ham false-positive rate and the spam recall at the set's own
//! decision (a mail filter's P(spam) > 0.9).
//!
//! ```sh
//! cargo run --release --example accuracy -- [--out accuracy.md] [--learner winnow]
//! cargo run --release --example accuracy -- --corpus sms --seeds 1 --no-peers
//! cargo run --release --example accuracy -- --set "min-df=2 epochs=15" --set "ngrams=2"
//! ```
//!
//! A `--set` SPEC is `key=value` pairs over the corpus's default configuration: `learner`
//! (a name), `epochs`, `pa-c`, `average` (0 or 1), `positive-weight`, `min-df`, `ngrams`,
//! `chars` (words and character N-grams), `weighting` (binary, idf or nb: two classes
//! only, so an nb set leaves Reuters' cells empty), `term-counts` (binary or sublinear).
//!
//! Corpora come from `corpora/` or else `../shared/corpora/` (one in neither is skipped):
//! SpamAssassin (spam/ + ham/, read as mail), the SMS Spam Collection and Reuters-21578.
//! The peers (`--no-peers` leaves them out) read each split from `target/accuracy/CORPUS/
//! seedN/{train,test}/<class>/`; folders and peers' output are reused while the corpus, the
//! seed and peers.py are unchanged (`--fresh` redoes them): a new set costs only its runs.

use anyhow::{Context, Result, bail};
use clap::{Parser, ValueEnum};
use rosenblatt::features::Weighting;
use rosenblatt::input::{self, Document, Format, mail};
use rosenblatt::learn::{AnyLearner, Check, PassiveAggressive};
use rosenblatt::training::{TrainingJob, TwoClassText, evaluate_decisions, evaluate_multilabel};
use rosenblatt::training::{class_indices, classes_of};
use rosenblatt::vocab::VocabConfig;
use rosenblatt::{TrainConfig, experiment::stratified_holdout};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::{collections::BTreeMap, fmt::Write as _, fs, path::Path, path::PathBuf};
use std::{process::Command, time::Instant};

/// What an option set changes in the corpus's base configuration.
type Builder = Box<dyn Fn(TrainConfig) -> rosenblatt::Result<TrainConfig>>;

/// A row on a split: [accuracy at P > 0.5, ham FP rate and spam recall at the set's
/// decision, micro-F1, macro-F1, test documents (ours), seconds to train and evaluate
/// (ours)].
type Measure = [Option<f64>; 7];
/// A column: the field, how its values over the splits are shown, the header.
type Column = (usize, fn(&[f64]) -> String, &'static str);
/// The columns of a corpus split here and of Reuters, and the fields compared with peers.
const COLUMNS: [&[Column]; 2] = [
    &[
        (0, mean, "accuracy"),
        (0, min, "min"),
        (1, pct, "ham FP"),
        (2, pct, "spam recall"),
        (6, total, "seconds"),
    ],
    &[
        (3, mean, "micro-F1"),
        (4, mean, "macro-F1"),
        (6, total, "seconds"),
    ],
];
const COMPARED: [&[usize]; 2] = [&[0], &[3, 4]];
/// peers.py's arguments on a split, the folder of its cached output and the data's hash.
type Peers = (Vec<String>, PathBuf, u64);
/// A split: its seed (Reuters: 42, the library's), training and test documents, the peers.
type Part = (u64, Vec<Document>, Vec<Document>, Peers);

#[derive(Parser)]
#[command(about = "Accuracy of rosenblatt option sets beside scikit-learn over seeded splits")]
struct Cli {
    /// Split seeds (comma-separated)
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4,5")]
    seeds: Vec<u64>,
    /// Add an option set: this learner with its defaults (repeatable)
    #[arg(long = "learner", value_name = "NAME")]
    learners: Vec<String>,
    /// Add an option set: `key=value` pairs over the default (repeatable; see the top)
    #[arg(long = "set", value_name = "SPEC")]
    sets: Vec<String>,
    /// Corpus to run (repeatable)
    #[arg(long = "corpus", value_enum, default_values = ["spamassassin", "sms", "reuters"])]
    corpora: Vec<Corpus>,
    /// Also write the markdown table to this file
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where split folders and the peers' output go (relative to the repository)
    #[arg(long, default_value = "target/accuracy")]
    work: PathBuf,
    /// Redo the split folders and rerun the peers even when cached
    #[arg(long)]
    fresh: bool,
    /// Leave out the peers (rosenblatt rows only)
    #[arg(long)]
    no_peers: bool,
    /// The peers script (relative to the repository)
    #[arg(long, default_value = "../shared/tools/peers/peers.py")]
    peers: PathBuf,
    /// The python with scikit-learn [default: bin/python of $PEERS_VENV or ~/.cache/peers-venv]
    #[arg(long)]
    python: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, ValueEnum)]
enum Corpus {
    Spamassassin,
    Sms,
    Reuters,
}

/// Each corpus's title and its paths under `corpora/` and `../shared/corpora/`, in order
/// of preference (a folder, or the SMS file).
const CORPORA: [&str; 3] = [
    "SpamAssassin spamassassin spamassassin",
    "SMS sms/SMSSpamCollection.tsv sms-spam-collection/SMSSpamCollection",
    "Reuters reuters21578 reuters21578/sgml",
];

fn title(k: Corpus) -> &'static str {
    CORPORA[k as usize].split(' ').next().unwrap_or_default()
}

struct Harness {
    sets: Vec<(String, Builder)>,
    /// peers.py's python and the script.
    peers: Option<(PathBuf, PathBuf)>,
    work: PathBuf,
    fresh: bool,
    /// (corpus, row, seed) → measurement.
    results: BTreeMap<(Corpus, String, u64), Measure>,
    /// The rows in order: the option sets, then the peers as they print.
    rows: Vec<String>,
}

fn main() -> Result<()> {
    let (cli, start) = (Cli::parse(), Instant::now());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let venv = std::env::var_os("PEERS_VENV").map_or(home.join(".cache/peers-venv"), Into::into);
    let python = cli.python.clone().unwrap_or(venv.join("bin/python"));
    let script = root.join(&cli.peers);
    if !(cli.no_peers || (python.is_file() && script.is_file())) {
        let (py, script) = (python.display(), script.display());
        bail!("{script} or its python {py} is missing: run setup.sh beside it, or --no-peers");
    }
    let peers = (!cli.no_peers).then_some((python, script));
    // the option sets: the default, then one per learner named
    let mut sets: Vec<(String, Builder)> = vec![("default".into(), Box::new(Ok))];
    let named = ["averaged-perceptron", "pa", "logistic", "perceptron"].map(String::from);
    for name in named.into_iter().chain(cli.learners.clone()) {
        TrainConfig::default().learner(&name)?; // an unknown name fails before any run
        let label = format!("--learner {name}");
        sets.push((label, Box::new(move |c| c.learner(&name))));
    }
    for spec in cli.sets.clone() {
        configure(TrainConfig::default(), &spec)?; // a bad spec fails before any run
        sets.push((spec.clone(), Box::new(move |c| configure(c, &spec))));
    }
    let rows = sets.iter().map(|s| format!("rosenblatt {}", s.0)).collect();
    let (work, fresh, results) = (root.join(&cli.work), cli.fresh, BTreeMap::new());
    let mut h = Harness {
        sets,
        peers,
        work,
        fresh,
        results,
        rows,
    };
    let bases = [root.join("corpora"), root.join("../shared/corpora")];
    let mut ran = Vec::new();
    for &k in &cli.corpora {
        let words: Vec<&str> = CORPORA[k as usize].split(' ').collect();
        let paths = [bases[0].join(words[1]), bases[1].join(words[2])];
        let found = |p: &&PathBuf| p.exists() && p.is_file() == (k == Corpus::Sms);
        let Some(src) = paths.iter().find(found) else {
            eprintln!("note: {} skipped: found at neither of {paths:?}", words[0]);
            continue;
        };
        for part in h.parts(k, src, &cli.seeds)? {
            h.run(k, &part)?;
        }
        ran.push(k);
    }
    if ran.is_empty() {
        bail!("no corpus found: nothing to measure");
    }
    let md = h.table(&ran, &cli.seeds, start);
    print!("{md}");
    if let Some(out) = &cli.out {
        fs::write(out, &md).with_context(|| format!("writing {}", out.display()))?;
    }
    Ok(())
}

/// Mean ± sample standard deviation (the mean alone of one value).
fn mean(xs: &[f64]) -> String {
    let (n, mean) = (xs.len() as f64, xs.iter().sum::<f64>() / xs.len() as f64);
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let sd = Some(format!(" ± {sd:.4}")).filter(|_| n > 1.0);
    format!("{mean:.4}{}", sd.unwrap_or_default())
}

fn pct(xs: &[f64]) -> String {
    format!("{:.2}%", 100.0 * xs.iter().sum::<f64>() / xs.len() as f64)
}

/// The sum over the splits, in seconds.
fn total(xs: &[f64]) -> String {
    format!("{:.1}", xs.iter().sum::<f64>())
}

fn min(xs: &[f64]) -> String {
    format!("{:.4}", xs.iter().copied().fold(f64::INFINITY, f64::min))
}

/// A hash of `x` and of the documents: the key of the split folders and the peers' cache.
fn digest(x: impl Hash, docs: &[&[Document]]) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    let docs = docs.iter().copied().flatten();
    docs.for_each(|d| (&d.id, &d.labels, &d.text).hash(&mut h));
    h.finish()
}

/// peers.py's result lines: `NAME  train  SECONDSs  … acc=…` (text) or `… microF1=…
/// macroF1=…` (reuters); the lines of other tasks are skipped.
fn parse_peers(text: &str) -> Vec<(String, Measure)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let toks: Vec<&str> = line.split_whitespace().collect();
        let i = toks.iter().position(|&t| t == "train").unwrap_or(0);
        let get = |key: &str| toks.iter().find_map(|t| t.strip_prefix(key)?.parse().ok());
        let m = [
            get("acc="),
            None,
            None,
            get("microF1="),
            get("macroF1="),
            None,
            None,
        ];
        if i > 0 && (m[0].is_some() || m[3].is_some()) {
            out.push((toks[..i].join(" "), m));
        }
    }
    out
}

impl Harness {
    /// The splits of corpus `k` at `src`: Reuters's own, or a stratified one a seed, written
    /// for the peers unless this very split is there already.
    fn parts(&self, k: Corpus, src: &Path, seeds: &[u64]) -> Result<Vec<Part>> {
        let read = |p| input::read_part(src, Some(Format::Reuters), Some(p)).map(|c| c.docs);
        let corpus = match k {
            Corpus::Sms => input::read(src, Some(Format::Tsv))?,
            Corpus::Spamassassin => {
                let (spam, ham) = ([src.join("spam")], [src.join("ham")]);
                mail::read_labelled(&spam, &ham, &mail::MailRules::default())?.corpus
            }
            Corpus::Reuters => {
                let (train, test) = (read(input::Split::Train)?, read(input::Split::Test)?);
                let (dir, stamp) = (self.work.join("reuters"), digest((), &[&train, &test]));
                let args = vec!["reuters".into(), src.display().to_string()];
                return Ok(vec![(42, train, test, (args, dir, stamp))]);
            }
        };
        let (docs, skipped) = (corpus.docs, corpus.skipped.len());
        if skipped > 0 {
            eprintln!("note: {skipped} unreadable documents skipped");
        }
        let classes = class_indices(&docs, &classes_of(&docs, None)?)?;
        let mut parts = Vec::new();
        for &seed in seeds {
            let split = stratified_holdout(&classes, 0.2, seed)?;
            let dir = self.work.join(format!("{k:?}/seed{seed}").to_lowercase());
            // 2: the version of the folders' layout, bumped whenever it changes
            let stamp = digest((2, &split.train, &split.test), &[&docs]);
            let (train, test) = split.divide(docs.clone());
            let done = dir.join("split.done");
            if self.fresh || fs::read_to_string(&done).ok() != Some(stamp.to_string()) {
                let _ = fs::remove_dir_all(&dir);
                write_split(k, &dir, &train, &test)?;
                fs::write(&done, stamp.to_string())?;
            }
            let folder = |part: &str| dir.join(part).display().to_string();
            let args = vec!["text".into(), folder("train"), folder("test")];
            parts.push((seed, train, test, (args, dir, stamp)));
        }
        Ok(parts)
    }

    /// Fits every option set on a split's training part, shuffled with the split's seed,
    /// and scores it on the test part; then adds the peers' rows: peers.py's output on the
    /// split, cached with its key.
    fn run(&mut self, k: Corpus, (seed, train, test, (args, dir, stamp)): &Part) -> Result<()> {
        let what = format!("{} seed {seed}", title(k));
        for (i, (name, builder)) in self.sets.iter().enumerate() {
            let mail = k == Corpus::Spamassassin;
            let mut cfg =
                builder([TrainConfig::default, TrainConfig::spam_filter][mail as usize]())?;
            let mut learner = cfg.learner.clone().into_inner();
            learner.set_seed(*seed);
            cfg = cfg.with_learner(learner.check()?);
            // As `train` does: text of two classes gives the default PA C = 0.3 unless the
            // set names C, and keeps words of one document below 20,000 documents unless it
            // names min-df (the job sets both only where the corpus has two classes).
            let default_c = !mail
                && !name.contains("pa-c=")
                && matches!(*cfg.learner, AnyLearner::PassiveAggressive(_));
            let default_singletons = !mail && !name.contains("min-df=");
            // Naive-Bayes weights compare two classes: on Reuters' labels the set leaves
            // its cells empty.
            if k == Corpus::Reuters && matches!(cfg.geometry.weighting, Weighting::Nb { .. }) {
                eprintln!("{what} {name}: not run (naive-Bayes weights need two classes)");
                continue;
            }
            let mut job = TrainingJob::new(cfg);
            job.two_class = TwoClassText {
                c: default_c.then_some(PassiveAggressive::TWO_CLASS_TEXT_C),
                singletons_from: default_singletons
                    .then_some(VocabConfig::TWO_CLASS_SINGLETONS_FROM),
            };
            let t = Instant::now();
            let model = job.run_documents(train.clone(), &|_| {})?.model;
            let mut m = if k == Corpus::Reuters {
                let m = evaluate_multilabel(&model, test)?;
                let (micro, macro_) = (m.micro_f1(), m.macro_f1());
                let secs = t.elapsed().as_secs_f64();
                eprintln!("{what} {name}: micro-F1 {micro:.4}, macro-F1 {macro_:.4}, {secs:.2} s");
                [None, None, None, Some(micro), Some(macro_), None, None]
            } else {
                let e = evaluate_decisions(&model, test)?;
                // the positive class, spam, comes second; a cost-based decision's model
                // is also scored where the peers decide, at P > 0.5
                let at = e.spam_metrics(1, model.threshold());
                let half = match (mail, model.calibration()) {
                    (true, Some(c)) => c.score_at(0.0),
                    _ => model.threshold(),
                };
                let acc = e.spam_metrics(1, half).accuracy;
                let (fp, recall) = (at.ham_fp_rate, at.spam_recall);
                let secs = t.elapsed().as_secs_f64();
                eprintln!(
                    "{what} {name}: accuracy {acc:.4}, ham FP {fp:.4}, spam recall {recall:.4}, \
                     {secs:.2} s"
                );
                let n = Some(test.len() as f64);
                [Some(acc), Some(fp), Some(recall), None, None, n, None]
            };
            m[6] = Some(t.elapsed().as_secs_f64());
            self.results.insert((k, self.rows[i].clone(), *seed), m);
        }
        let Some((python, script)) = &self.peers else {
            return Ok(());
        };
        let cache = dir.join("peers.txt");
        let header = format!("# cache {:016x}\n", digest((fs::read(script)?, stamp), &[]));
        let cached = fs::read_to_string(&cache).unwrap_or_default();
        let text = match cached.strip_prefix(&header) {
            Some(rest) if !self.fresh => rest.to_string(),
            _ => {
                eprintln!("{} seed {seed}: running peers.py {}", title(k), args[0]);
                let out = Command::new(python).arg(script).args(args).output()?;
                let (err, status) = (String::from_utf8_lossy(&out.stderr), out.status);
                if !status.success() {
                    bail!("peers.py {args:?} failed ({status}):\n{}", err.trim_end());
                }
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                fs::create_dir_all(dir)?;
                fs::write(&cache, format!("{header}{text}"))?;
                text
            }
        };
        for (name, m) in parse_peers(&text) {
            if !self.rows.contains(&name) {
                self.rows.push(name.clone());
            }
            self.results.insert((k, name, *seed), m);
        }
        Ok(())
    }

    /// The markdown report: the table and what its columns mean.
    fn table(&self, kinds: &[Corpus], seeds: &[u64], start: Instant) -> String {
        let sklearn = self.rows.iter().filter(|r| r.starts_with("sklearn"));
        let (mut md, mut n) = (String::from("| option set / peer |"), 0);
        for &k in kinds {
            for (_, _, head) in COLUMNS[usize::from(k == Corpus::Reuters)] {
                let _ = write!(md, " {} {head} |", title(k));
                n += 1;
            }
        }
        let _ = writeln!(md, " ≥ best scikit-learn |\n|---|{}---|", "---|".repeat(n));
        for row in &self.rows {
            let (mut cells, mut vs) = (String::new(), Vec::new());
            for &k in kinds {
                let (at, reuters) = ((k, row.clone(), 0), usize::from(k == Corpus::Reuters));
                let ours: Vec<_> = self.results.range(at..(k, row.clone(), u64::MAX)).collect();
                for &(f, show, _) in COLUMNS[reuters] {
                    let xs: Vec<f64> = ours.iter().filter_map(|(_, m)| m[f]).collect();
                    let _ = write!(cells, " {} |", xs.first().map_or("–".into(), |_| show(&xs)));
                }
                // splits where the set did at least as well as the best scikit-learn learner,
                // in whole test documents (F1: at the peers' 4 decimals); Reuters: ✓ or ✗
                let mut marks = Vec::new();
                for &f in COMPARED[reuters] {
                    let (mut won, mut splits) = (0, 0);
                    for ((_, _, seed), m) in &ours {
                        let peer = |r: &String| self.results.get(&(k, r.clone(), *seed))?[f];
                        let best = sklearn.clone().filter_map(peer).reduce(f64::max);
                        if let (Some(a), Some(b), scale) = (m[f], best, m[5].unwrap_or(1e4)) {
                            splits += 1;
                            won += usize::from((a * scale).round() >= (b * scale).round());
                        }
                    }
                    marks.push(match splits {
                        0 => continue,
                        _ if reuters == 1 => ["✗", "✓"][usize::from(won == splits)].into(),
                        _ => format!("{won}/{splits}"),
                    });
                }
                if row.starts_with("rosenblatt ") && !marks.is_empty() {
                    vs.push(format!("{} {}", title(k), marks.join("/")));
                }
            }
            let _ = writeln!(md, "| {row} |{cells} {} |", vs.join(" · "));
        }
        let seeds: Vec<String> = seeds.iter().map(u64::to_string).collect();
        let _ = writeln!(
            md,
            "\nAccuracy: mean ± sd over stratified 80/20 splits (seeds {}), at P > 0.5 as the \
             peers decide (a mail filter's calibrated P(spam), as `--threshold 0` trains it); \
             min: the worst split; ham FP and spam recall: shares of test ham called spam and of \
             test spam caught at the set's own decision (the mail filter's P(spam) > 0.9); \
             seconds: training and scoring a set, summed over the splits (ours only); \
             Reuters: ModApte, 90 categories. ≥ best \
             scikit-learn: splits with at least as many test documents right as the best \
             scikit-learn learner (Reuters: micro-F1 / macro-F1, ✓ when ≥). {:.0} s.",
            seeds.join(", "),
            start.elapsed().as_secs_f64()
        );
        md
    }
}

/// `cfg` changed as `spec` (`key=value` pairs, see the top) says.
fn configure(mut cfg: TrainConfig, spec: &str) -> rosenblatt::Result<TrainConfig> {
    use rosenblatt::features::GeometrySpec;
    use rosenblatt::learn::Setting;
    use rosenblatt::text::Step;
    let bad = |what: String| rosenblatt::Error::Unsupported(format!("--set {spec:?}: {what}"));
    for pair in spec.split_whitespace() {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| bad(format!("{pair} is no key=value")))?;
        let num = |v: &str| {
            v.parse::<f64>()
                .map_err(|_| bad(format!("{key} takes a number")))
        };
        let mut learner = cfg.learner.clone().into_inner();
        match key {
            "learner" => {
                cfg = cfg.learner(value)?;
                continue;
            }
            "epochs" => learner.set(Setting::Epochs(num(value)? as usize))?,
            "pa-c" => learner.set(Setting::C(num(value)? as f32))?,
            "average" => learner.set(Setting::Average(num(value)? != 0.0))?,
            "positive-weight" => learner.set(Setting::PositiveWeight(num(value)? as f32))?,
            "min-df" => cfg = cfg.min_df(num(value)? as u32),
            "weighting" => {
                cfg = cfg.geometry(match value {
                    "binary" => GeometrySpec::BINARY_L2,
                    "idf" => GeometrySpec::IDF_L2,
                    "nb" => GeometrySpec {
                        weighting: Weighting::Nb { alpha: 1.0 },
                        ..GeometrySpec::IDF_L2
                    },
                    _ => return Err(bad("weighting is binary, idf or nb".into())),
                })
            }
            "term-counts" => {
                cfg = cfg.term_counts(match value {
                    "binary" => rosenblatt::features::TermCounts::Binary,
                    "sublinear" => rosenblatt::features::TermCounts::Sublinear,
                    _ => return Err(bad("term-counts is binary or sublinear".into())),
                })
            }
            "ngrams" => {
                let n = Step::Ngrams(num(value)? as u8);
                let analyzer = with_steps(&cfg, [Step::Words, Step::Lowercase, n])?;
                cfg = cfg.analyzer(analyzer);
            }
            "chars" => {
                let n = Step::Chars(num(value)? as u8);
                let analyzer = with_steps(&cfg, [Step::Words, n, Step::Lowercase])?;
                cfg = cfg.analyzer(analyzer);
            }
            _ => return Err(bad(format!("no key {key}"))),
        }
        cfg = cfg.with_learner(learner.check()?);
    }
    Ok(cfg)
}

/// `cfg`'s analyzer source read through `steps` instead of its own steps.
fn with_steps(
    cfg: &TrainConfig,
    steps: [rosenblatt::text::Step; 3],
) -> rosenblatt::Result<rosenblatt::text::Analyzer> {
    let b = rosenblatt::text::Analyzer::builder(cfg.analyzer.source().clone());
    steps.into_iter().fold(b, |b, s| b.step(s)).build()
}

/// Writes `dir/{train,test}/<class>/NNNNN`: mail as hard links (or copies), text as files.
fn write_split(k: Corpus, dir: &Path, train: &[Document], test: &[Document]) -> Result<()> {
    for (part, docs) in [("train", train), ("test", test)] {
        for (i, d) in docs.iter().enumerate() {
            let class_dir = dir.join(part).join(&d.labels[0]);
            fs::create_dir_all(&class_dir)?;
            let (from, to) = (Path::new(&d.id), class_dir.join(format!("{i:05}")));
            let written = match k {
                Corpus::Sms => fs::write(&to, &d.text),
                _ => fs::hard_link(from, &to).or_else(|_| fs::copy(from, &to).map(drop)),
            };
            written.with_context(|| format!("writing {}", to.display()))?;
        }
    }
    Ok(())
}
