//! The character n-gram tokenizer: every run of N characters of a field, whitespace runs
//! read as one space. Spam hides its words (`v1agra`, `f r e e`, `<b>FR</b>EE`) and mail
//! mixes languages without spaces between words; runs of characters catch what a word
//! tokenizer splits or never sees. The published spam filters that led the TREC spam
//! tracks used 4-grams of each message's first few kilobytes.
//!
//! A gram is written after its field's prefix and a `#` (`#free`, `subject:#free`): a word
//! token never holds a `#`, so a gram never equals a word. A field shorter than N
//! characters gives one gram of the whole field. With the lowercase step the text is
//! lowercased first. Each field costs two reused buffers (the normalized text and the
//! gram being written), not an allocation per gram.

/// The character n-gram tokenizer (stored in the model as `chars(N)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharGrams {
    /// Characters per gram (2 to [`CharGrams::MAX`]).
    pub n: u8,
}

impl CharGrams {
    /// The step's name in a model file and in `inspect`, before its `(N)`.
    pub(crate) const NAME: &'static str = "chars";
    /// The longest grams: beyond that nearly every gram is seen once.
    pub const MAX: u8 = 8;
    /// What separates a gram from its field's prefix.
    pub(crate) const MARK: char = '#';

    /// Checks `n`: grams of 2 to [`CharGrams::MAX`] characters.
    pub fn new(n: u8) -> Result<CharGrams, String> {
        if (2..=Self::MAX).contains(&n) {
            Ok(CharGrams { n })
        } else {
            Err(format!(
                "character n-grams are 2 to {} characters long, not {n}",
                Self::MAX
            ))
        }
    }

    /// Every gram of `text`, written after `prefix` and the mark, lowercased when
    /// `lowercase`; `bufs` are scratch buffers the caller reuses from field to field.
    pub(crate) fn field(
        &self,
        text: &str,
        prefix: &str,
        lowercase: bool,
        bufs: &mut (String, String),
        sink: &mut dyn FnMut(&str),
    ) {
        let (norm, out) = bufs;
        norm.clear();
        let mut space = true; // drop leading whitespace
        for c in text.chars() {
            if c.is_whitespace() {
                if !space {
                    norm.push(' ');
                    space = true;
                }
            } else {
                space = false;
                if lowercase {
                    norm.extend(c.to_lowercase());
                } else {
                    norm.push(c);
                }
            }
        }
        if norm.ends_with(' ') {
            norm.pop();
        }
        if norm.is_empty() {
            return;
        }
        out.clear();
        out.push_str(prefix);
        out.push(Self::MARK);
        let head = out.len();
        let n = usize::from(self.n);
        // Byte offsets of the last n + 1 character starts: a gram is norm[starts[0]..end].
        let mut starts = std::collections::VecDeque::with_capacity(n + 1);
        let mut any = false;
        for (i, _) in norm.char_indices().chain([(norm.len(), ' ')]) {
            starts.push_back(i);
            if starts.len() == n + 1 {
                out.truncate(head);
                out.push_str(&norm[starts[0]..i]);
                sink(out);
                starts.pop_front();
                any = true;
            }
        }
        if !any {
            out.truncate(head);
            out.push_str(norm);
            sink(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grams(n: u8, text: &str, prefix: &str, lowercase: bool) -> Vec<String> {
        let mut out = Vec::new();
        let mut bufs = Default::default();
        CharGrams::new(n)
            .unwrap()
            .field(text, prefix, lowercase, &mut bufs, &mut |g| {
                out.push(g.to_string())
            });
        out
    }

    #[test]
    fn grams_slide_over_characters_with_whitespace_runs_as_one_space() {
        assert_eq!(
            grams(4, "  Free\n\t cash ", "", true),
            ["#free", "#ree ", "#ee c", "#e ca", "# cas", "#cash"]
        );
        assert_eq!(
            grams(3, "Héllo", "subject:", false),
            ["subject:#Hél", "subject:#éll", "subject:#llo"]
        );
        // Shorter than n: the whole field, once; whitespace only: nothing.
        assert_eq!(grams(4, "ok", "", true), ["#ok"]);
        assert_eq!(grams(4, "abcd", "", true), ["#abcd"]);
        assert!(grams(4, " \n ", "", true).is_empty());
        assert!(CharGrams::new(1).is_err() && CharGrams::new(9).is_err());
    }
}
