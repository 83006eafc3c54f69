//! Reading the inputs a subcommand was given, reporting skipped documents on stderr.

use anyhow::Result;
use rosenblatt::input::{self, Corpus, Format};
use std::path::PathBuf;

/// Reads every input (format given or detected) into one corpus; prefixes line-number ids
/// with the file name when there are several inputs.
/// With `split`, reads only that part of corpora with a fixed split (Reuters).
pub fn read_inputs_part(
    paths: &[PathBuf],
    format: Option<Format>,
    split: Option<input::Split>,
    detect: fn(&std::path::Path) -> Format,
) -> Result<Corpus> {
    if split.is_some() && format != Some(Format::Reuters) {
        anyhow::bail!("--split applies to --format reuters only");
    }
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
    report_skipped(&corpus);
    Ok(corpus)
}

/// Tells the user how many documents were skipped and why (the first few).
pub fn report_skipped(corpus: &Corpus) {
    if corpus.skipped.is_empty() {
        return;
    }
    eprintln!(
        "rosenblatt: skipped {} unreadable document(s):",
        corpus.skipped.len()
    );
    for (id, why) in corpus.skipped.iter().take(5) {
        eprintln!("  {id}: {why}");
    }
    if corpus.skipped.len() > 5 {
        eprintln!("  … and {} more", corpus.skipped.len() - 5);
    }
}
