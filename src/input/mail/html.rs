//! What HTML-to-text conversion throws away but a spam filter wants: the tag names used
//! (`html:font`, `html:img`, `html:!--` for comments) and the hosts that links and images
//! point to (`url:example.com`). The text itself comes from mail-parser's `html_to_text`.

/// Longest tag name kept as a feature (longer ones are junk).
const MAX_TAG: usize = 12;
/// Longest host kept as a feature.
const MAX_HOST: usize = 80;

/// Calls `sink` with `html:NAME` for each tag and `url:HOST` for each `href`/`src` host.
pub(crate) fn html_features(html: &str, sink: &mut dyn FnMut(String)) {
    let b = html.as_bytes();
    let mut i = 0;
    while let Some(off) = memchr(b'<', &b[i..]) {
        i += off + 1;
        if b[i..].starts_with(b"!--") {
            sink("html:!--".to_string());
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
        let name = html[start..start + len].to_ascii_lowercase();
        sink(format!("html:{name}"));
        let end = memchr(b'>', &b[start..]).map_or(b.len(), |e| start + e);
        attribute_hosts(&html[start + len..end], sink);
        i = end;
    }
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&c| c == needle)
}

/// Hosts of `href=` and `src=` URLs inside one tag's attribute text.
fn attribute_hosts(attrs: &str, sink: &mut dyn FnMut(String)) {
    let lower = attrs.to_ascii_lowercase();
    for key in ["href", "src"] {
        let mut from = 0;
        while let Some(p) = lower[from..].find(key) {
            let after = from + p + key.len();
            from = after;
            let rest = lower[after..].trim_start();
            let Some(rest) = rest.strip_prefix('=') else {
                continue;
            };
            let rest = rest.trim_start().trim_start_matches(['"', '\'']);
            if let Some(host) = url_host(rest) {
                sink(format!("url:{host}"));
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
            &mut |t| got.push(t),
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
}
