//! Where each word of a document stands in its text, and what it adds to the score: the
//! spans the page colours. The word tokenizer hands out slices of the text it reads, so
//! a word's place is its slice's offset; the feature it becomes is the word as the
//! model's analyzer makes it (lowercased where the analyzer lowercases, prefixed with
//! its field's name in a mail header field), looked up among the explanation's features.

use crate::model::Explanation;
use crate::text::{Analyzer, Step, Words};
use std::collections::HashMap;

/// One word of a text that the explained score weighs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Span {
    /// Its first byte in the text.
    pub start: usize,
    /// The byte after its last.
    pub end: usize,
    /// The feature it is, as the explanation names it.
    pub feature: String,
    /// The feature's weight in the explained score.
    pub weight: f32,
    /// What the feature adds to the score.
    pub contribution: f32,
}

/// The explanation's features by name, each with its weight and contribution. In a
/// hashed space a feature is named by the tokens hashing to it, joined by ` | `: each of
/// them names it.
pub fn by_name<'e>(
    e: &'e Explanation,
    analyzer: &Analyzer,
) -> HashMap<&'e str, (&'e str, f32, f32)> {
    let mut out = HashMap::with_capacity(e.features.len());
    for f in &e.features {
        let part = (f.feature.as_str(), f.weight, f.contribution);
        if analyzer.hashing().is_some() {
            for token in f.feature.split(" | ") {
                out.insert(token, part);
            }
        } else {
            out.insert(f.feature.as_str(), part);
        }
    }
    out
}

/// The spans of `text`, read as the words of a field named `prefix` (`""` for a
/// document's body, `"subject:"` for its subject), in the order they stand.
pub fn spans(
    analyzer: &Analyzer,
    text: &str,
    prefix: &str,
    features: &HashMap<&str, (&str, f32, f32)>,
) -> Vec<Span> {
    let mut out = Vec::new();
    if !analyzer.steps().contains(&Step::Words) || features.is_empty() {
        return out;
    }
    let lowercase = analyzer.words().lowercase;
    let base = text.as_ptr() as usize;
    let mut name = String::new();
    let mut lower = String::new();
    // The byte-at-a-time path hands out slices of `text` itself (the block scanner's
    // words are copies), and finds the same words.
    Words { lowercase: false }.tokens_scalar(text, &mut |word| {
        let Some(start) = (word.as_ptr() as usize).checked_sub(base) else {
            return;
        };
        if start + word.len() > text.len() {
            return;
        }
        let token = if lowercase {
            crate::text::Lowercase.apply(word, &mut lower)
        } else {
            word
        };
        name.clear();
        name.push_str(prefix);
        name.push_str(token);
        if let Some(&(feature, weight, contribution)) = features.get(name.as_str()) {
            out.push(Span {
                start,
                end: start + word.len(),
                feature: feature.to_string(),
                weight,
                contribution,
            });
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Contribution;
    use crate::text::Source;

    fn explained(features: &[(&str, f32)]) -> Explanation {
        Explanation {
            class: 1,
            score: 0.0,
            bias: 0.0,
            features: features
                .iter()
                .map(|&(f, w)| Contribution {
                    feature: f.to_string(),
                    weight: w,
                    value: 0.5,
                    contribution: w * 0.5,
                })
                .collect(),
        }
    }

    #[test]
    fn each_weighed_word_is_its_slice_of_the_text() {
        let a = Analyzer::default();
        let e = explained(&[("free", 2.0), ("money", -1.0), ("déjà", 0.5)]);
        let text = "Get FREE money, déjà vu: free!";
        let s = spans(&a, text, "", &by_name(&e, &a));
        let got: Vec<(&str, &str, f32)> = s
            .iter()
            .map(|s| (&text[s.start..s.end], s.feature.as_str(), s.contribution))
            .collect();
        assert_eq!(
            got,
            [
                ("FREE", "free", 1.0),
                ("money", "money", -0.5),
                ("déjà", "déjà", 0.25),
                ("free", "free", 1.0)
            ]
        );
    }

    #[test]
    fn a_field_s_words_are_its_prefixed_features() {
        let a = Analyzer::standard(Source::mail(), true);
        let e = explained(&[("subject:cheap", 1.0), ("cheap", -1.0)]);
        let s = spans(&a, "Cheap meds", "subject:", &by_name(&e, &a));
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].start, s[0].end, s[0].feature.as_str()),
            (0, 5, "subject:cheap")
        );
    }
}
