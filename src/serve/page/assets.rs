//! The page's three files, embedded in the binary (no file is read, nothing is fetched
//! from elsewhere), and the headers they go with: a Content-Security-Policy that lets the
//! page load its own script and style only (no inline script or style, no other origin,
//! no framing), and no sniffing of types.

use super::reply::Body;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Response;
use hyper::header::{CONTENT_TYPE, HeaderName, HeaderValue};

/// One embedded file and its type.
#[derive(Debug)]
pub struct Asset {
    body: &'static str,
    kind: &'static str,
}

const INDEX: Asset = Asset {
    body: include_str!("assets/index.html"),
    kind: "text/html; charset=utf-8",
};
const SCRIPT: Asset = Asset {
    body: include_str!("assets/page.js"),
    kind: "text/javascript; charset=utf-8",
};
const STYLE: Asset = Asset {
    body: include_str!("assets/page.css"),
    kind: "text/css; charset=utf-8",
};

/// The policy every file of the page is served with.
pub const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                          connect-src 'self'; img-src 'self'; base-uri 'none'; \
                          form-action 'none'; frame-ancestors 'none'";

/// The file served at `path`, if any.
pub fn asset(path: &str) -> Option<&'static Asset> {
    match path {
        "/" | "/index.html" => Some(&INDEX),
        "/page.js" => Some(&SCRIPT),
        "/page.css" => Some(&STYLE),
        _ => None,
    }
}

/// `a` as an answer, with the page's headers.
pub fn response(a: &Asset) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from_static(a.body.as_bytes())).boxed());
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(a.kind));
    h.insert(
        HeaderName::from_static("content-security-policy"),
        HeaderValue::from_static(POLICY),
    );
    h.insert(
        HeaderName::from_static("x-content-type-options"),
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        HeaderName::from_static("referrer-policy"),
        HeaderValue::from_static("no-referrer"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_holds_no_inline_script_or_style_and_loads_only_its_own_files() {
        let html = INDEX.body;
        assert!(!html.contains("<style"), "an inline style");
        assert!(!html.contains(" style="), "a style attribute");
        assert!(!html.contains(" on"), "an inline event handler");
        for tag in html.split("<script").skip(1) {
            let head = &tag[..tag.find('>').unwrap()];
            assert!(
                head.contains("src=\"/page.js\""),
                "an inline script: {head}"
            );
        }
        assert!(!html.contains("http://") && !html.contains("https://"));
        // (The SVG namespace is a name, not an address asked.)
        let script = SCRIPT.body.replace("\"http://www.w3.org/2000/svg\"", "");
        assert!(!script.contains("http://") && !script.contains("https://"));
        assert!(
            !SCRIPT.body.contains("innerHTML"),
            "the script writes text, never markup"
        );
    }
}
