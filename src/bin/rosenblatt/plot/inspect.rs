//! `inspect --plot`: the words that weigh most for each class of a binary linear model,
//! as bars of their weights (the most negative class's on the left, the most positive
//! class's on the right).

use super::bars::{self, Bar};
use super::{COLORS, failed, save};
use anyhow::Result;
use std::path::Path;

/// Writes the strongest words of a model to `path`: `positive` and `negative` hold
/// (word, weight) pairs, strongest first, for the classes named `classes` (negative,
/// positive); `of` names the model.
pub fn draw(
    path: &Path,
    of: &str,
    classes: (&str, &str),
    negative: &[(String, f32)],
    positive: &[(String, f32)],
) -> Result<()> {
    let fail = failed(path);
    let title = format!("Strongest words of {of}");
    let note = format!(
        "the {} most {} and {} most {} features by weight (what a word adds to the score)",
        negative.len(),
        classes.0,
        positive.len(),
        classes.1
    );
    let longest = negative
        .iter()
        .chain(positive)
        .map(|(w, _)| w.chars().count().min(24))
        .max()
        .unwrap_or(4) as i32;
    let label_px = (7 * longest + 4).clamp(40, 170);
    let side = |words: &[(String, f32)], color| -> Vec<Bar> {
        words
            .iter()
            .map(|(w, s)| Bar {
                label: super::shorten(w, 24),
                value: f64::from(s.abs()),
                color,
            })
            .collect()
    };
    save(path, &title, &note, |area| {
        let (left, right) = area.split_horizontally(400);
        let fmt = |v: f64| format!("{v:.2}");
        bars::draw(
            &left,
            &side(negative, COLORS[0]),
            label_px,
            &format!("weight towards {} (absolute)", classes.0),
            &fmt,
            &fail,
        )?;
        bars::draw(
            &right,
            &side(positive, COLORS[1]),
            label_px,
            &format!("weight towards {}", classes.1),
            &fmt,
            &fail,
        )
    })
}
