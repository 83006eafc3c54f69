//! What the commands that need a spam filter ask of it: whether it is one (the library's
//! one definition, with the one refusal every command gives), and whether a cut given
//! with `--spam-probability` can be applied to it.

use anyhow::{Result, anyhow, bail};
use rosenblatt::incremental::{Filter, SpamCut, SpamFilter};
use std::path::Path;

/// `filter` (read from `path`) as a spam filter, or the sentence that says it is not one.
pub fn spam_filter<'f>(filter: &'f dyn Filter, path: &Path) -> Result<SpamFilter<'f>> {
    checked(filter.spam_filter(), path)
}

/// A spam filter as its model or store at `path` answered, or the sentence that says it
/// is not one.
pub fn checked<'f>(
    filter: rosenblatt::Result<SpamFilter<'f>>,
    path: &Path,
) -> Result<SpamFilter<'f>> {
    filter.map_err(|e| {
        anyhow!(
            "{}: {e} (train one with --spam PATH... --ham PATH...)",
            path.display()
        )
    })
}

/// Refuses a `--spam-probability` cut for the filter `f` at `path` when it records no
/// P(spam).
pub fn check_cut(f: &SpamFilter<'_>, cut: Option<SpamCut>, path: &Path) -> Result<()> {
    if matches!(cut, Some(SpamCut::Probability(_))) && !f.probability {
        bail!(
            "{}: --spam-probability needs a filter that records P(spam), and this one has none \
             (trained over processes, or by an older release); give the cut in scores with \
             --spam-score",
            path.display()
        );
    }
    Ok(())
}

/// The cut in words, as `eval` and `classify --explain` say where a filter decides:
/// "spam when P(spam) > 0.50" or "spam when score > -1".
pub fn cut_rule(cut: SpamCut) -> String {
    match cut {
        SpamCut::Probability(p) => format!("spam when P(spam) > {p}"),
        SpamCut::Score(s) => format!("spam when score > {s}"),
    }
}
