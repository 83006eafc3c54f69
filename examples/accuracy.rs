//! The accuracy harness: evidence for rosenblatt's defaults.
//!
//! Trains every option set (a list of `rosenblatt train` flag strings) on every corpus over
//! seeded stratified 80/20 splits (seeds 1–5 by default: not 42, the split seed of
//! rosenblatt's and peers.py's own defaults), runs the scikit-learn peers of
//! `../shared/tools/peers/peers.py` on the same split folders, and prints a markdown table: accuracy mean ± sd over the seeds, the spam corpora's ham
//! false-positive rate, the worst seed, and for every option set how many splits it matched
//! or beat the best scikit-learn learner on. Reuters-21578 has its fixed ModApte split and is
//! run once (micro- and macro-F1 over its 90 categories).
//!
//! ```sh
//! cargo build --release            # the rosenblatt binary the harness runs
//! cargo run --release --example accuracy -- [--out accuracy.md]
//! cargo run --release --example accuracy -- --no-default-sets \
//!     --set idf='--learner pa --average --weighting idf --normalize l2' --corpus sms
//! ```
//!
//! Corpora: SpamAssassin (spam/ + ham/, 3,250 messages, read as mail), the SMS Spam
//! Collection (one file a message, read as class folders) and Reuters-21578 (SGML), from
//! `corpora/` in the repository or else `../shared/corpora/`; a corpus found in neither is
//! skipped with a note. Peers need the virtual environment of
//! `../shared/tools/peers/setup.sh` (`--python`, `--peers`, or `--no-peers`).
//!
//! Split folders and the peers' output are kept under `target/accuracy/` and reused while
//! the corpus, the seed and peers.py are unchanged (`--fresh` redoes them), so adding an
//! option set later costs only rosenblatt's own runs. The default run (5 option sets, 3
//! corpora, 5 seeds, peers included) took 7.5 minutes on a loaded 2-core machine, most of
//! it the peers (SpamAssassin 2.8 min, SMS 0.6 min, Reuters 4 min of which peers.py's
//! `reuters` 3.3 min); a rerun with the cache took 42 s.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, ValueEnum};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

/// The option sets run unless `--no-default-sets`: (name, `rosenblatt train` flags).
const DEFAULT_SETS: &[(&str, &str)] = &[
    ("default", ""),
    ("averaged-perceptron", "--learner averaged-perceptron"),
    ("pa --average", "--learner pa --average"),
    ("logistic", "--learner logistic"),
    ("perceptron", "--learner perceptron"),
];

/// Bumped whenever the way split folders are written changes, so old ones are redone.
const SPLIT_VERSION: u32 = 1;
const TEST_FRACTION: f64 = 0.2;

#[derive(Parser)]
#[command(
    about = "Accuracy of rosenblatt option sets beside scikit-learn over seeded splits",
    after_help = "Paths are relative to the repository root. Build the binary first: \
                  cargo build --release"
)]
struct Cli {
    /// Split seeds (comma-separated)
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4,5")]
    seeds: Vec<u64>,
    /// Add an option set: NAME='rosenblatt train flags' (repeatable; flags split at spaces)
    #[arg(long = "set", value_name = "NAME=FLAGS")]
    sets: Vec<String>,
    /// Run only the --set option sets, not the default ones
    #[arg(long)]
    no_default_sets: bool,
    /// Corpus to run (repeatable; default all)
    #[arg(long = "corpus", value_enum)]
    corpora: Vec<CorpusKind>,
    /// Also write the markdown table to this file
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where split folders, models and the peers' cached output go
    #[arg(long, default_value = "target/accuracy")]
    work: PathBuf,
    /// Redo the split folders and rerun the peers even when cached
    #[arg(long)]
    fresh: bool,
    /// Leave out the peers (rosenblatt rows only)
    #[arg(long)]
    no_peers: bool,
    /// The peers script
    #[arg(long, default_value = "../shared/tools/peers/peers.py")]
    peers: PathBuf,
    /// The python with scikit-learn (default: $PEERS_VENV/bin/python, else
    /// ~/.cache/peers-venv/bin/python, as setup.sh installs it)
    #[arg(long)]
    python: Option<PathBuf>,
    /// The rosenblatt binary (default: target/release/rosenblatt beside this example)
    #[arg(long)]
    bin: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum, Debug)]
enum CorpusKind {
    Spamassassin,
    Sms,
    Reuters,
}

impl CorpusKind {
    fn name(self) -> &'static str {
        match self {
            CorpusKind::Spamassassin => "spamassassin",
            CorpusKind::Sms => "sms",
            CorpusKind::Reuters => "reuters",
        }
    }
    fn title(self) -> &'static str {
        match self {
            CorpusKind::Spamassassin => "SpamAssassin",
            CorpusKind::Sms => "SMS",
            CorpusKind::Reuters => "Reuters",
        }
    }
    /// Where the corpus may be, relative to the repository root, in order of preference.
    fn candidates(self) -> &'static [&'static str] {
        match self {
            CorpusKind::Spamassassin => &["corpora/spamassassin", "../shared/corpora/spamassassin"],
            CorpusKind::Sms => &[
                "corpora/sms/SMSSpamCollection.tsv",
                "../shared/corpora/sms-spam-collection/SMSSpamCollection",
            ],
            CorpusKind::Reuters => &[
                "corpora/reuters21578",
                "../shared/corpora/reuters21578/sgml",
            ],
        }
    }
    fn present(self, p: &Path) -> bool {
        match self {
            CorpusKind::Spamassassin => p.join("spam").is_dir() && p.join("ham").is_dir(),
            CorpusKind::Sms => p.is_file(),
            CorpusKind::Reuters => p.join("reut2-000.sgm").is_file(),
        }
    }
}

/// One row of the table: a rosenblatt option set or a peer.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Row {
    Set(usize),
    Peer(String),
}

/// One measurement: a row on one corpus and one split (seed 0 for Reuters).
#[derive(Default, Clone)]
struct Measure {
    acc: Option<f64>,
    ham_fp: Option<f64>,
    micro_f1: Option<f64>,
    macro_f1: Option<f64>,
    train_s: Option<f64>,
}

struct Harness {
    bin: PathBuf,
    peers: Option<(PathBuf, PathBuf)>,
    work: PathBuf,
    fresh: bool,
    sets: Vec<(String, Vec<String>)>,
    start: Instant,
    /// (corpus, seed, row) → measurement; a missing entry is a run that failed.
    results: BTreeMap<(CorpusKind, u64, Row), Measure>,
    /// Rows in the order they appeared (sets first, then peers as they print).
    rows: Vec<Row>,
    failures: usize,
    /// (corpus, seed) → test documents, for comparisons in whole documents.
    test_sizes: BTreeMap<(CorpusKind, u64), usize>,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("accuracy: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let cli = Cli::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = match &cli.bin {
        Some(b) => b.clone(),
        None => std::env::current_exe()?
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| anyhow!("cannot locate the target folder beside this example"))?
            .join("rosenblatt"),
    };
    if !bin.is_file() {
        bail!(
            "the rosenblatt binary {} is missing: build it first with `cargo build --release` \
             (or pass --bin PATH)",
            bin.display()
        );
    }
    warn_if_stale(&root, &bin);

    let peers = if cli.no_peers {
        None
    } else {
        let script = root.join(&cli.peers);
        if !script.is_file() {
            bail!(
                "the peers script {} is missing (pass --peers PATH, or --no-peers for \
                 rosenblatt rows only)",
                cli.peers.display()
            );
        }
        let python = match &cli.python {
            Some(p) => p.clone(),
            None => match std::env::var_os("PEERS_VENV") {
                Some(v) => PathBuf::from(v).join("bin/python"),
                None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                    .join(".cache/peers-venv/bin/python"),
            },
        };
        if !python.is_file() {
            bail!(
                "the peers' python {} is missing: run {} once (it installs scikit-learn in a \
                 virtual environment), or pass --python PATH, or --no-peers",
                python.display(),
                cli.peers.with_file_name("setup.sh").display()
            );
        }
        Some((python, script))
    };

    let mut sets: Vec<(String, Vec<String>)> = Vec::new();
    if !cli.no_default_sets {
        for (name, flags) in DEFAULT_SETS {
            sets.push((name.to_string(), split_flags(flags)));
        }
    }
    for s in &cli.sets {
        let (name, flags) = s
            .split_once('=')
            .ok_or_else(|| anyhow!("--set {s:?}: expected NAME='flags…'"))?;
        if name.trim().is_empty() {
            bail!("--set {s:?}: the option set needs a name before '='");
        }
        sets.push((name.trim().to_string(), split_flags(flags)));
    }
    if sets.is_empty() {
        bail!("no option set to run: --no-default-sets needs at least one --set NAME='flags'");
    }
    if cli.seeds.is_empty() {
        bail!("--seeds needs at least one seed");
    }
    if cli.seeds.contains(&42) {
        eprintln!("note: seed 42 is rosenblatt's and peers.py's own default split seed");
    }
    let mut kinds = cli.corpora.clone();
    if kinds.is_empty() {
        kinds = vec![
            CorpusKind::Spamassassin,
            CorpusKind::Sms,
            CorpusKind::Reuters,
        ];
    }
    kinds.sort();
    kinds.dedup();

    let mut h = Harness {
        rows: (0..sets.len()).map(Row::Set).collect(),
        bin,
        peers,
        work: root.join(&cli.work),
        fresh: cli.fresh,
        sets,
        start: Instant::now(),
        results: BTreeMap::new(),
        failures: 0,
        test_sizes: BTreeMap::new(),
    };
    let mut ran = Vec::new();
    for kind in kinds {
        let Some(src) = kind
            .candidates()
            .iter()
            .map(|c| root.join(c))
            .find(|p| kind.present(p))
        else {
            eprintln!(
                "note: {} skipped: not found at {}",
                kind.title(),
                kind.candidates().join(" or ")
            );
            continue;
        };
        let t = Instant::now();
        match kind {
            CorpusKind::Reuters => h.reuters(&src)?,
            _ => {
                for &seed in &cli.seeds {
                    h.split_run(kind, &src, seed)?;
                }
            }
        }
        h.progress(&format!(
            "{} done in {:.0} s",
            kind.title(),
            t.elapsed().as_secs_f64()
        ));
        ran.push(kind);
    }
    if ran.is_empty() {
        bail!("no corpus found: nothing to measure");
    }

    let md = h.table(&ran, &cli.seeds);
    print!("{md}");
    std::io::stdout().flush()?;
    if let Some(out) = &cli.out {
        fs::write(out, &md).with_context(|| format!("writing {}", out.display()))?;
        eprintln!("table written to {}", out.display());
    }
    h.progress("all done");
    if h.failures > 0 {
        bail!(
            "{} run(s) failed (see above); their cells are empty",
            h.failures
        );
    }
    Ok(())
}

fn split_flags(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn mtime(p: &Path) -> Option<SystemTime> {
    fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// The newest modification time of the files under `dir`.
fn newest(dir: &Path) -> Option<SystemTime> {
    let mut best = None;
    for e in fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        let t = if p.is_dir() { newest(&p) } else { mtime(&p) };
        best = best.max(t);
    }
    best
}

fn warn_if_stale(root: &Path, bin: &Path) {
    let src = newest(&root.join("src")).max(mtime(&root.join("Cargo.toml")));
    if let (Some(src), Some(b)) = (src, mtime(bin))
        && src > b
    {
        eprintln!(
            "warning: {} is older than the sources; run `cargo build --release` to measure \
             the current code",
            bin.display()
        );
    }
}

/// FNV-1a, a hash that stays the same across Rust releases (the caches' keys).
fn fnv(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

fn mean_sd(xs: &[f64]) -> (f64, Option<f64>) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, None);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, Some(var.sqrt()))
}

fn f(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

/// The whole `train` command's seconds from its summary: training, plus the
/// cross-validation of `--tune` when it ran.
fn train_seconds(v: &Value) -> Option<f64> {
    let tuning = v.get("tuning").and_then(|t| f(t, "seconds")).unwrap_or(0.0);
    f(v, "seconds").map(|s| s + tuning)
}

/// The ham false-positive rate from `eval --json`: its own key for mail models, else the
/// confusion matrix of a ham/spam model.
fn ham_fp(v: &Value) -> Option<f64> {
    if let Some(x) = f(v, "ham_fp_rate") {
        return Some(x);
    }
    let classes: Vec<&str> = v
        .get("classes")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let ham = classes.iter().position(|c| *c == "ham")?;
    let spam = classes.iter().position(|c| *c == "spam")?;
    let row = v.get("confusion")?.as_array()?.get(ham)?.as_array()?;
    let total: f64 = row.iter().filter_map(Value::as_f64).sum();
    Some(row.get(spam)?.as_f64()? / total)
}

/// Files under `dir`, recursively, sorted.
fn walk(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A column of the summary: its header, its cell (the value compared, the text shown) for
/// a row, and whether higher is better.
type Column<'a> = (
    String,
    Box<dyn Fn(&Row) -> Option<(f64, String)> + 'a>,
    bool,
);

/// A document of a split: its class and where its bytes come from.
enum Doc {
    File(PathBuf, String),
    Text(Vec<u8>, String),
}

impl Harness {
    fn progress(&self, msg: &str) {
        eprintln!("[{:7.1} s] {msg}", self.start.elapsed().as_secs_f64());
    }

    fn set_label(&self, i: usize) -> String {
        let (name, flags) = &self.sets[i];
        let flags = flags.join(" ");
        if flags.is_empty() {
            format!("rosenblatt {name} (no flags)")
        } else if flags == *name || flags == format!("--learner {name}") {
            format!("rosenblatt `{flags}`")
        } else {
            format!("rosenblatt {name}: `{flags}`")
        }
    }

    fn run_cmd(&self, cmd: &mut Command, what: &str) -> Result<Output> {
        let out = cmd
            .output()
            .with_context(|| format!("starting {what}: {cmd:?}"))?;
        Ok(out)
    }

    /// Runs `rosenblatt ARGS --json` and parses its one JSON object.
    fn rosenblatt(&mut self, args: &[String], what: &str) -> Option<Value> {
        let out = match self.run_cmd(Command::new(&self.bin).args(args).arg("--json"), what) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("  {what} failed: {e:#}");
                self.failures += 1;
                return None;
            }
        };
        if !out.status.success() {
            eprintln!(
                "  {what} failed ({}): rosenblatt {}\n{}",
                out.status,
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim_end()
            );
            self.failures += 1;
            return None;
        }
        match serde_json::from_slice(&out.stdout) {
            Ok(v) => Some(v),
            Err(e) => {
                eprintln!("  {what}: rosenblatt printed no JSON object ({e})");
                self.failures += 1;
                None
            }
        }
    }

    /// Writes (or reuses) the split folders of one seed, then runs every set and the peers.
    fn split_run(&mut self, kind: CorpusKind, src: &Path, seed: u64) -> Result<()> {
        let dir = self.work.join(kind.name()).join(format!("seed{seed}"));
        let (train, test, n_test, stamp) = self.write_split(kind, src, seed, &dir)?;
        self.test_sizes.insert((kind, seed), n_test);
        let model = dir.join("model");
        for i in 0..self.sets.len() {
            let flags = self.sets[i].1.clone();
            let what = format!("{} seed {seed} {}", kind.title(), self.sets[i].0);
            let mut targs: Vec<String> = vec!["train".into()];
            let mut eargs: Vec<String> = vec!["eval".into(), "-m".into(), path(&model)];
            let data: Vec<String> = match kind {
                CorpusKind::Spamassassin => vec![
                    "--spam".into(),
                    path(&train.join("spam")),
                    "--ham".into(),
                    path(&train.join("ham")),
                ],
                _ => vec![path(&train), "--format".into(), "dir".into()],
            };
            targs.extend(data);
            targs.extend(["-o".into(), path(&model)]);
            // The shuffle seed follows the split's, unless the set fixes it.
            if !flags
                .iter()
                .any(|a| a == "--seed" || a.starts_with("--seed="))
            {
                targs.extend(["--seed".into(), seed.to_string()]);
            }
            targs.extend(flags);
            match kind {
                CorpusKind::Spamassassin => eargs.extend([
                    "--spam".into(),
                    path(&test.join("spam")),
                    "--ham".into(),
                    path(&test.join("ham")),
                ]),
                _ => eargs.extend([path(&test), "--format".into(), "dir".into()]),
            }
            let Some(tj) = self.rosenblatt(&targs, &format!("{what} train")) else {
                continue;
            };
            let Some(ej) = self.rosenblatt(&eargs, &format!("{what} eval")) else {
                continue;
            };
            let m = Measure {
                acc: f(&ej, "accuracy"),
                ham_fp: ham_fp(&ej),
                train_s: train_seconds(&tj),
                ..Default::default()
            };
            let skipped = tj.get("skipped").and_then(Value::as_u64).unwrap_or(0);
            self.progress(&format!(
                "{what}: accuracy {:.4}, ham FP {:.4}, train {:.2} s{}",
                m.acc.unwrap_or(f64::NAN),
                m.ham_fp.unwrap_or(f64::NAN),
                m.train_s.unwrap_or(f64::NAN),
                if skipped > 0 {
                    format!(" ({skipped} training documents skipped)")
                } else {
                    String::new()
                }
            ));
            self.results.insert((kind, seed, Row::Set(i)), m);
        }
        let _ = fs::remove_file(&model);
        let peer_args = vec!["text".to_string(), path(&train), path(&test)];
        if let Some(lines) = self.peers_output(
            &dir,
            &peer_args,
            stamp,
            &format!("{} seed {seed}", kind.title()),
        )? {
            for (name, m) in parse_peers(&lines) {
                self.add_peer(kind, seed, name, m);
            }
        }
        Ok(())
    }

    fn add_peer(&mut self, kind: CorpusKind, seed: u64, name: String, m: Measure) {
        let row = Row::Peer(name);
        if !self.rows.contains(&row) {
            self.rows.push(row.clone());
        }
        self.results.insert((kind, seed, row), m);
    }

    /// Runs peers.py with `args`, or returns its cached output when the cache key matches.
    fn peers_output(
        &mut self,
        dir: &Path,
        args: &[String],
        stamp: u64,
        what: &str,
    ) -> Result<Option<String>> {
        let Some((python, script)) = self.peers.clone() else {
            return Ok(None);
        };
        let key = fnv(&fs::read(&script)?, stamp);
        let cache = dir.join("peers.txt");
        let header = format!("# cache {key:016x}\n");
        if !self.fresh
            && let Ok(text) = fs::read_to_string(&cache)
            && let Some(rest) = text.strip_prefix(&header)
        {
            self.progress(&format!("{what} peers: cached ({})", cache.display()));
            return Ok(Some(rest.to_string()));
        }
        self.progress(&format!("{what} peers: running peers.py {}", args[0]));
        let t = Instant::now();
        let out = self.run_cmd(Command::new(&python).arg(&script).args(args), "peers.py")?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = err.lines().rev().take(15).collect();
            eprintln!(
                "  {what} peers failed ({}):\n{}",
                out.status,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
            self.failures += 1;
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        fs::create_dir_all(dir)?;
        fs::write(&cache, format!("{header}{text}"))?;
        let parsed = parse_peers(&text);
        self.progress(&format!(
            "{what} peers: {} results in {:.0} s",
            parsed.len(),
            t.elapsed().as_secs_f64()
        ));
        for (name, m) in parsed {
            if let Some(a) = m.acc {
                eprintln!("    {name}: accuracy {a:.4}");
            }
        }
        Ok(Some(text))
    }

    /// The documents of a corpus, with their classes.
    fn documents(kind: CorpusKind, src: &Path) -> Result<Vec<Doc>> {
        let mut docs = Vec::new();
        match kind {
            CorpusKind::Spamassassin => {
                for class in ["spam", "ham"] {
                    for p in walk(&src.join(class))? {
                        docs.push(Doc::File(p, class.to_string()));
                    }
                }
            }
            CorpusKind::Sms => {
                let bytes = fs::read(src).with_context(|| format!("reading {}", src.display()))?;
                for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    if line.is_empty() {
                        continue;
                    }
                    let tab = line.iter().position(|&b| b == b'\t').ok_or_else(|| {
                        anyhow!(
                            "{} line {}: no tab between label and text",
                            src.display(),
                            i + 1
                        )
                    })?;
                    let label = String::from_utf8_lossy(&line[..tab]).into_owned();
                    docs.push(Doc::Text(line[tab + 1..].to_vec(), label));
                }
            }
            CorpusKind::Reuters => unreachable!("Reuters has a fixed split"),
        }
        Ok(docs)
    }

    /// Writes `dir/train/<class>/…` and `dir/test/<class>/…`: a stratified seeded 80/20 split
    /// (each class shuffled by ChaCha8 from the seed, its first 20%, rounded, to test).
    /// Mail files are hard links (copies across file systems); SMS messages one file each.
    /// Returns the two folders, the test size and the split's hash (the peers' cache key).
    fn write_split(
        &mut self,
        kind: CorpusKind,
        src: &Path,
        seed: u64,
        dir: &Path,
    ) -> Result<(PathBuf, PathBuf, usize, u64)> {
        let docs = Self::documents(kind, src)?;
        let mut by_class: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, d) in docs.iter().enumerate() {
            let c = match d {
                Doc::File(_, c) | Doc::Text(_, c) => c,
            };
            by_class.entry(c.clone()).or_default().push(i);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut assign = Vec::new(); // (doc, is_test)
        let mut stamp = fnv(
            format!("v{SPLIT_VERSION} {} seed {seed}", kind.name()).as_bytes(),
            FNV_START,
        );
        for ids in by_class.values_mut() {
            ids.shuffle(&mut rng);
            let n_test = (ids.len() as f64 * TEST_FRACTION).round() as usize;
            for (k, &i) in ids.iter().enumerate() {
                assign.push((i, k < n_test));
            }
        }
        let names: Vec<String> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| match d {
                // spam/…, ham/easy_ham/… → the path below the class folder, flattened
                Doc::File(p, c) => p
                    .strip_prefix(src.join(c))
                    .unwrap_or(p)
                    .to_string_lossy()
                    .replace('/', "__"),
                Doc::Text(..) => format!("{:05}.txt", i + 1),
            })
            .collect();
        assign.sort();
        for &(i, test) in &assign {
            stamp = fnv(names[i].as_bytes(), stamp);
            stamp = fnv(&[u8::from(test)], stamp);
            if let Doc::Text(t, _) = &docs[i] {
                stamp = fnv(t, stamp);
            }
        }
        let n_test = assign.iter().filter(|a| a.1).count();
        let (train, test) = (dir.join("train"), dir.join("test"));
        let done = dir.join("split.done");
        let key = format!("{stamp:016x}\n");
        if !self.fresh && fs::read_to_string(&done).ok().as_deref() == Some(key.as_str()) {
            return Ok((train, test, n_test, stamp));
        }
        for d in [&train, &test] {
            if d.exists() {
                fs::remove_dir_all(d).with_context(|| format!("removing {}", d.display()))?;
            }
        }
        let _ = fs::remove_file(&done);
        for &(i, is_test) in &assign {
            let (class, base) = match &docs[i] {
                Doc::File(_, c) | Doc::Text(_, c) => (c, if is_test { &test } else { &train }),
            };
            let cdir = base.join(class);
            fs::create_dir_all(&cdir).with_context(|| format!("creating {}", cdir.display()))?;
            let to = cdir.join(&names[i]);
            match &docs[i] {
                Doc::File(p, _) => {
                    if fs::hard_link(p, &to).is_err() {
                        fs::copy(p, &to).with_context(|| {
                            format!("copying {} to {}", p.display(), to.display())
                        })?;
                    }
                }
                Doc::Text(t, _) => {
                    fs::write(&to, t).with_context(|| format!("writing {}", to.display()))?
                }
            }
        }
        fs::write(&done, &key)?;
        self.progress(&format!(
            "{} seed {seed}: split written, {} train / {n_test} test",
            kind.title(),
            assign.len() - n_test
        ));
        Ok((train, test, n_test, stamp))
    }

    /// Reuters-21578 ModApte: one run of every set, and peers.py's `reuters` command.
    fn reuters(&mut self, src: &Path) -> Result<()> {
        let kind = CorpusKind::Reuters;
        let dir = self.work.join(kind.name());
        fs::create_dir_all(&dir)?;
        let model = dir.join("model");
        for i in 0..self.sets.len() {
            let what = format!("Reuters {}", self.sets[i].0);
            let mut targs: Vec<String> = [
                "train",
                &path(src),
                "--format",
                "reuters",
                "--split",
                "train",
                "-o",
                &path(&model),
            ]
            .map(String::from)
            .to_vec();
            targs.extend(self.sets[i].1.clone());
            let eargs: Vec<String> = [
                "eval",
                "-m",
                &path(&model),
                &path(src),
                "--format",
                "reuters",
                "--split",
                "test",
            ]
            .map(String::from)
            .to_vec();
            let Some(tj) = self.rosenblatt(&targs, &format!("{what} train")) else {
                continue;
            };
            let Some(ej) = self.rosenblatt(&eargs, &format!("{what} eval")) else {
                continue;
            };
            let m = Measure {
                micro_f1: f(&ej, "micro_f1"),
                macro_f1: f(&ej, "macro_f1"),
                train_s: train_seconds(&tj),
                ..Default::default()
            };
            self.progress(&format!(
                "{what}: micro-F1 {:.4}, macro-F1 {:.4}, train {:.2} s",
                m.micro_f1.unwrap_or(f64::NAN),
                m.macro_f1.unwrap_or(f64::NAN),
                m.train_s.unwrap_or(f64::NAN)
            ));
            self.results.insert((kind, 0, Row::Set(i)), m);
        }
        let _ = fs::remove_file(&model);
        let mut stamp = FNV_START;
        for p in walk(src)? {
            if p.extension().is_some_and(|e| e == "sgm") {
                stamp = fnv(p.file_name().unwrap_or_default().as_encoded_bytes(), stamp);
                stamp = fnv(&fs::metadata(&p)?.len().to_le_bytes(), stamp);
            }
        }
        if let Some(lines) =
            self.peers_output(&dir, &["reuters".into(), path(src)], stamp, "Reuters")?
        {
            for (name, m) in parse_peers(&lines) {
                self.add_peer(kind, 0, name, m);
            }
        }
        Ok(())
    }

    /// Measurements of `row` on `kind`, in seed order.
    fn measures(&self, kind: CorpusKind, row: &Row) -> Vec<(u64, &Measure)> {
        self.results
            .iter()
            .filter(|((k, _, r), _)| *k == kind && r == row)
            .map(|((_, s, _), m)| (*s, m))
            .collect()
    }

    fn is_sklearn(row: &Row) -> bool {
        matches!(row, Row::Peer(n) if n.starts_with("sklearn"))
    }

    /// The markdown report: the summary table, then accuracy per split.
    fn table(&self, kinds: &[CorpusKind], seeds: &[u64]) -> String {
        let mut cols: Vec<Column<'_>> = Vec::new();
        for &kind in kinds {
            let t = kind.title();
            if kind == CorpusKind::Reuters {
                for (label, get) in [
                    (
                        "micro-F1",
                        (|m: &Measure| m.micro_f1) as fn(&Measure) -> Option<f64>,
                    ),
                    ("macro-F1", |m: &Measure| m.macro_f1),
                ] {
                    cols.push((
                        format!("{t} {label}"),
                        Box::new(move |row| {
                            let v = self.measures(kind, row).first().and_then(|(_, m)| get(m))?;
                            Some((v, format!("{v:.4}")))
                        }),
                        true,
                    ));
                }
                continue;
            }
            let complete = move |row: &Row, get: fn(&Measure) -> Option<f64>| -> Option<Vec<f64>> {
                let ms = self.measures(kind, row);
                let xs: Vec<f64> = ms.iter().filter_map(|(_, m)| get(m)).collect();
                (!xs.is_empty()).then_some(xs)
            };
            let note = move |n: usize| {
                let ran = seeds
                    .iter()
                    .filter(|s| self.test_sizes.contains_key(&(kind, **s)))
                    .count();
                if n < ran {
                    format!(" ({n}/{ran} splits)")
                } else {
                    String::new()
                }
            };
            cols.push((
                format!("{t} accuracy"),
                Box::new(move |row| {
                    let xs = complete(row, |m| m.acc)?;
                    let (mean, sd) = mean_sd(&xs);
                    let sd = sd.map(|s| format!(" ± {s:.4}")).unwrap_or_default();
                    Some((mean, format!("{mean:.4}{sd}{}", note(xs.len()))))
                }),
                true,
            ));
            cols.push((
                format!("{t} ham FP"),
                Box::new(move |row| {
                    let xs = complete(row, |m| m.ham_fp)?;
                    let (mean, _) = mean_sd(&xs);
                    Some((mean, format!("{:.2}%", 100.0 * mean)))
                }),
                false,
            ));
            cols.push((
                format!("{t} min"),
                Box::new(move |row| {
                    let xs = complete(row, |m| m.acc)?;
                    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
                    Some((min, format!("{min:.4}")))
                }),
                true,
            ));
        }

        let mut md = String::new();
        let _ = writeln!(
            md,
            "| option set / peer | {} | ≥ best scikit-learn |",
            cols.iter()
                .map(|c| c.0.as_str())
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(md, "|---|{}---|", "---|".repeat(cols.len()));
        let cells: Vec<Vec<Option<(f64, String)>>> = self
            .rows
            .iter()
            .map(|r| cols.iter().map(|c| c.1(r)).collect())
            .collect();
        for (ri, row) in self.rows.iter().enumerate() {
            let label = match row {
                Row::Set(i) => self.set_label(*i),
                Row::Peer(n) => n.clone(),
            };
            let mut line = format!("| {label} |");
            for (ci, col) in cols.iter().enumerate() {
                let Some((v, text)) = &cells[ri][ci] else {
                    line.push_str(" – |");
                    continue;
                };
                // best: the highest (lowest for FP) value at the printed precision
                let key = |x: f64| (x * 1e4).round() as i64;
                let best = cells
                    .iter()
                    .filter_map(|c| c[ci].as_ref().map(|c| key(c.0)))
                    .reduce(|a, b| if col.2 { a.max(b) } else { a.min(b) });
                if best == Some(key(*v)) {
                    let (head, tail) = text.split_once(' ').unwrap_or((text, ""));
                    let _ = write!(
                        line,
                        " **{head}**{}{tail} |",
                        if tail.is_empty() { "" } else { " " }
                    );
                } else {
                    let _ = write!(line, " {text} |");
                }
            }
            let _ = writeln!(line, " {} |", self.vs_sklearn(row, kinds));
            md.push_str(&line);
        }
        let _ = writeln!(
            md,
            "\nAccuracy: mean ± sd over seeded stratified 80/20 splits (seeds {}); ham FP: mean \
             share of test ham called spam; min: the worst split; Reuters-21578: the fixed \
             ModApte split, 90 categories. Bold: the best in the column. \"≥ best \
             scikit-learn\": splits on which the set classified at least as many test \
             documents right as the best scikit-learn learner of peers.py on that split \
             (Reuters: micro-F1 / macro-F1, each ✓ when ≥). rosenblatt's training shuffle \
             uses the split's seed (Reuters: train's default seed).",
            seeds
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );

        for &kind in kinds.iter().filter(|k| **k != CorpusKind::Reuters) {
            let run: Vec<u64> = seeds
                .iter()
                .copied()
                .filter(|s| self.test_sizes.contains_key(&(kind, *s)))
                .collect();
            let _ = writeln!(
                md,
                "\n{} accuracy per split (test documents: {}):\n",
                kind.title(),
                run.iter()
                    .map(|s| self.test_sizes[&(kind, *s)].to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let _ = writeln!(
                md,
                "| option set / peer | {} | train s |",
                run.iter()
                    .map(|s| format!("seed {s}"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
            let _ = writeln!(md, "|---|{}---|", "---|".repeat(run.len()));
            for row in &self.rows {
                let ms = self.measures(kind, row);
                if ms.is_empty() {
                    continue;
                }
                let label = match row {
                    Row::Set(i) => self.set_label(*i),
                    Row::Peer(n) => n.clone(),
                };
                let mut line = format!("| {label} |");
                for s in &run {
                    match ms.iter().find(|(x, _)| x == s).and_then(|(_, m)| m.acc) {
                        Some(a) => {
                            let _ = write!(line, " {a:.4} |");
                        }
                        None => line.push_str(" – |"),
                    }
                }
                let ts: Vec<f64> = ms.iter().filter_map(|(_, m)| m.train_s).collect();
                if ts.is_empty() {
                    line.push_str(" – |");
                } else {
                    let _ = write!(line, " {:.2} |", mean_sd(&ts).0);
                }
                let _ = writeln!(md, "{line}");
            }
        }
        let _ = writeln!(
            md,
            "\nMeasured in {:.0} s (with cached split folders and peer runs where they were \
             reusable). \"train s\", mean over splits: rosenblatt's whole `train` command (reading, \
             parsing, fitting, saving); the peers' fit alone, as peers.py prints it.",
            self.start.elapsed().as_secs_f64()
        );
        md
    }

    /// "3/5" per spam corpus and "✓/✗" for Reuters: splits where `row` is ≥ the best
    /// scikit-learn learner; empty for peers.
    fn vs_sklearn(&self, row: &Row, kinds: &[CorpusKind]) -> String {
        if !matches!(row, Row::Set(_)) {
            return String::new();
        }
        let mut parts = Vec::new();
        for &kind in kinds {
            let sk: Vec<&Row> = self.rows.iter().filter(|r| Self::is_sklearn(r)).collect();
            if kind == CorpusKind::Reuters {
                let best = |get: fn(&Measure) -> Option<f64>| {
                    sk.iter()
                        .filter_map(|r| self.measures(kind, r).first().and_then(|(_, m)| get(m)))
                        .reduce(f64::max)
                };
                let ours = self.measures(kind, row);
                let Some((_, m)) = ours.first() else { continue };
                let mark = |v: Option<f64>, b: Option<f64>| match (v, b) {
                    // peers print 4 decimals
                    (Some(v), Some(b)) => {
                        if (v * 1e4).round() >= (b * 1e4).round() {
                            "✓"
                        } else {
                            "✗"
                        }
                    }
                    _ => "–",
                };
                parts.push(format!(
                    "{} {}/{}",
                    kind.title(),
                    mark(m.micro_f1, best(|m| m.micro_f1)),
                    mark(m.macro_f1, best(|m| m.macro_f1))
                ));
                continue;
            }
            let (mut wins, mut splits) = (0, 0);
            for ((k, seed, r), m) in &self.results {
                if *k != kind || r != row {
                    continue;
                }
                let n = self.test_sizes[&(kind, *seed)] as f64;
                let best = sk
                    .iter()
                    .filter_map(|r| {
                        self.results
                            .get(&(kind, *seed, (*r).clone()))
                            .and_then(|m| m.acc)
                    })
                    .reduce(f64::max);
                let (Some(a), Some(b)) = (m.acc, best) else {
                    continue;
                };
                splits += 1;
                // compare in documents: peers print 4 decimals, enough for ≤ 5000 test docs
                if (a * n).round() >= (b * n).round() {
                    wins += 1;
                }
            }
            if splits > 0 {
                parts.push(format!("{} {wins}/{splits}", kind.title()));
            }
        }
        parts.join(" · ")
    }
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// peers.py's result lines: `NAME  train  SECONDSs  … acc=… [macroF1=…]` (text) or
/// `… microF1=… macroF1=…` (reuters). Lines of other tasks and comments are skipped.
fn parse_peers(text: &str) -> Vec<(String, Measure)> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        let Some(i) = (1..toks.len().saturating_sub(1)).find(|&i| {
            toks[i] == "train"
                && toks[i + 1]
                    .strip_suffix('s')
                    .is_some_and(|s| s.parse::<f64>().is_ok())
        }) else {
            continue;
        };
        let get = |key: &str| {
            toks.iter()
                .find_map(|t| t.strip_prefix(key).and_then(|v| v.parse::<f64>().ok()))
        };
        let m = Measure {
            acc: get("acc="),
            micro_f1: get("microF1="),
            macro_f1: get("macroF1="),
            train_s: toks[i + 1].strip_suffix('s').and_then(|s| s.parse().ok()),
            ham_fp: None,
        };
        if m.acc.is_some() || m.micro_f1.is_some() {
            out.push((toks[..i].join(" "), m));
        }
    }
    out
}
