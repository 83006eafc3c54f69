//! What HTML-to-text conversion throws away but a spam filter wants: the tag names used
//! (`html:font`, `html:img`, `html:!--` for comments) and the hosts that links and images
//! point to (`url:example.com`). The text itself comes from `html_text` (mail-parser's
//! `html_to_text`, run by runs of plain bytes).

use memchr::memchr;

/// Longest tag name kept as a feature (longer ones are junk).
const MAX_TAG: usize = 12;
/// Longest host kept as a feature.
const MAX_HOST: usize = 80;

/// Calls `sink` with `html:NAME` for each tag and `url:HOST` for each `href`/`src` host.
/// The features are made in one reused buffer: a message repeats its tags hundreds of
/// times, and a string for each was a tenth of reading an HTML message.
pub(crate) fn html_features(html: &str, sink: &mut dyn FnMut(&str)) {
    let b = html.as_bytes();
    let (mut feature, mut lower) = (String::new(), String::new());
    let mut i = 0;
    while let Some(off) = memchr(b'<', &b[i..]) {
        i += off + 1;
        if b[i..].starts_with(b"!--") {
            sink("html:!--");
            i += 3;
            continue;
        }
        let start = i + usize::from(b.get(i) == Some(&b'/'));
        let len = b[start..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        if len == 0 || len > MAX_TAG || !b[start].is_ascii_alphabetic() {
            continue;
        }
        feature.clear();
        feature.push_str("html:");
        feature.push_str(&html[start..start + len]);
        feature.make_ascii_lowercase();
        sink(&feature);
        let end = memchr(b'>', &b[start..]).map_or(b.len(), |e| start + e);
        attribute_hosts(&html[start + len..end], &mut lower, &mut feature, sink);
        i = end;
    }
}

/// Hosts of `href=` and `src=` URLs inside one tag's attribute text (`lower` and
/// `feature` are scratch buffers).
fn attribute_hosts(
    attrs: &str,
    lower: &mut String,
    feature: &mut String,
    sink: &mut dyn FnMut(&str),
) {
    if !attrs.contains('=') {
        return;
    }
    lower.clear();
    lower.push_str(attrs);
    lower.make_ascii_lowercase();
    // A key's value follows the key, spaces and `=`: found from each `=` back to its key
    // (a tag has few `=` and searching the text for each key cost a hundredth of a
    // verdict), every `href` before every `src`, each in the order of the text.
    for key in ["href", "src"] {
        for (eq, _) in lower.match_indices('=') {
            if !lower[..eq].trim_end().ends_with(key) {
                continue;
            }
            let rest = lower[eq + 1..].trim_start().trim_start_matches(['"', '\'']);
            if let Some(host) = url_host(rest) {
                feature.clear();
                feature.push_str("url:");
                feature.push_str(host);
                sink(feature);
            }
        }
    }
}

/// The host of an absolute `http(s)://` URL at the start of `s` (lowercase input).
fn url_host(s: &str) -> Option<&str> {
    let rest = s
        .strip_prefix("http://")
        .or_else(|| s.strip_prefix("https://"))?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .unwrap_or(rest.len());
    let host = rest[..end].trim_end_matches('.');
    (!host.is_empty() && host.len() <= MAX_HOST).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_comments_and_link_hosts() {
        let mut got = Vec::new();
        html_features(
            "<HTML><Font color=red>Buy</font><!-- x --><a HREF=\"http://Cheap.Example.COM/x\">\
             go</a><img src='https://img.example.net:80/a.gif'>< notatag <123>",
            &mut |t| got.push(t.to_string()),
        );
        assert_eq!(
            got,
            [
                "html:html",
                "html:font",
                "html:font",
                "html:!--",
                "html:a",
                "url:cheap.example.com",
                "html:a",
                "html:img",
                "url:img.example.net",
            ]
        );
    }

    #[test]
    fn odd_input_does_not_panic() {
        for s in ["<", "<a", "<a href=", "<a href=\"http://", "é<é>", "<!--"] {
            html_features(s, &mut |_| {});
        }
    }

    /// The hosts as the text search for each key found them, before the search went from
    /// each `=` back to its key.
    fn hosts_by_search(attrs: &str) -> Vec<String> {
        let lower = attrs.to_ascii_lowercase();
        let mut out = Vec::new();
        for key in ["href", "src"] {
            let mut from = 0;
            while let Some(p) = lower[from..].find(key) {
                let after = from + p + key.len();
                from = after;
                let Some(rest) = lower[after..].trim_start().strip_prefix('=') else {
                    continue;
                };
                let rest = rest.trim_start().trim_start_matches(['"', '\'']);
                if let Some(host) = url_host(rest) {
                    out.push(format!("url:{host}"));
                }
            }
        }
        out
    }

    proptest::proptest! {
        /// Keys, spaces (ASCII and not), quotes and `=` in any order give the hosts the
        /// search for each key gave.
        #[test]
        fn hosts_are_those_the_search_for_each_key_found(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "href", "HREF", "src", "Src", "x", "hrefsrc", "=", " ", "\u{a0}", "\u{3000}",
                "\"", "'", "http://", "https://", "a.example", "B.org", "/p", "é",
            ]), 0..24)
        ) {
            let attrs = parts.concat();
            let (mut lower, mut feature, mut got) = (String::new(), String::new(), Vec::new());
            attribute_hosts(&attrs, &mut lower, &mut feature, &mut |h| got.push(h.to_string()));
            proptest::prop_assert_eq!(got, hosts_by_search(&attrs));
        }
    }
}
