//! Lowercasing into a reused scratch buffer, so a token costs no allocation.

/// Writes the lowercase form of `word` into `out` (cleared first); ASCII takes a fast path
/// that gives the same result as the Unicode one.
pub fn lowercase_into(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
    } else {
        for c in word.chars() {
            out.extend(c.to_lowercase());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_ascii_and_unicode() {
        let mut s = String::new();
        lowercase_into("FrEE", &mut s);
        assert_eq!(s, "free");
        lowercase_into("ÉCOLE", &mut s);
        assert_eq!(s, "école");
        lowercase_into("İ", &mut s);
        assert_eq!(s, "i\u{307}");
    }
}
