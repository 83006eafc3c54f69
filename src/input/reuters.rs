//! Reuters-21578 (Distribution 1.0, original SGML, latin-1) with the ModApte split.
//!
//! ModApte keeps the documents with `TOPICS="YES"` and `LEWISSPLIT="TRAIN"` (9603) or
//! `"TEST"` (3299). The usual benchmark then keeps the 90 topic categories that have at
//! least one training and one test document, and the documents carrying at least one of
//! them (7770 train / 3019 test); a document's labels are its topics among those 90, in
//! the order the file lists them. The text is the title and the body, and the title is
//! also a `title:` field (title words weigh as their own features, as a mail subject's
//! do); a `TYPE="UNPROC"` text without either is taken whole. Character references (`&lt;`, `&#3;`) are decoded,
//! control characters become spaces.
//!
//! A `<REUTERS>` block that is cut off or lacks its attributes is counted and skipped.

use super::{Corpus, Document, decode_latin1};
use crate::{Error, Result};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// The part of a corpus with a fixed train/test split to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// The training part (ModApte: `LEWISSPLIT="TRAIN"`).
    Train,
    /// The test part (ModApte: `LEWISSPLIT="TEST"`).
    Test,
}

/// One parsed `<REUTERS>` block of the ModApte split.
#[derive(Debug, Clone, PartialEq)]
struct Article {
    newid: String,
    split: Split,
    topics: Vec<String>,
    text: String,
    title: Option<String>,
}

/// The `reut2-*.sgm` files of a folder (sorted), or the one file given.
fn sgml_files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|e| Error::io(path, e))? {
        let p = entry.map_err(|e| Error::io(path, e))?.path();
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        // Regular files only: a FIFO of that name would be waited on forever.
        let regular = std::fs::metadata(&p).is_ok_and(|m| m.is_file());
        if regular && name.starts_with("reut2-") && name.ends_with(".sgm") {
            files.push(p);
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::parse(
            path,
            None,
            "no reut2-*.sgm files (expected the Reuters-21578 SGML folder)",
        ));
    }
    Ok(files)
}

/// One file's articles and its skipped blocks (id, reason).
type FilePart = (Vec<Article>, Vec<(String, String)>);

/// Reads ModApte documents of the Reuters-21578 SGML folder (or one `.sgm` file): the
/// given split, or both when `None`, labelled with the categories that have at least one
/// training and one test document among the files read.
pub fn read_reuters(path: &Path, split: Option<Split>) -> Result<Corpus> {
    // Files are read and parsed in parallel, then joined in file order.
    let parts: Vec<FilePart> = sgml_files(path)?
        .par_iter()
        .map(|f| {
            let bytes = super::limit::read_corpus_file(f)?;
            Ok(parse_bytes(bytes, f))
        })
        .collect::<Result<_>>()?;
    Ok(modapte(parts, split))
}

/// The ModApte documents of one Reuters-21578 SGML file held in memory, as
/// [`read_reuters`] reads a file (`path` names it in the skipped blocks' ids); only
/// categories with a training and a test document in these bytes are kept.
pub fn parse_reuters(bytes: Vec<u8>, path: &Path, split: Option<Split>) -> Corpus {
    modapte(vec![parse_bytes(bytes, path)], split)
}

/// One file's bytes (Latin-1) parsed into its articles and skipped blocks.
fn parse_bytes(bytes: Vec<u8>, file: &Path) -> FilePart {
    let text = decode_latin1(bytes);
    let (mut articles, mut skipped) = (Vec::new(), Vec::new());
    parse_file(&text, file, &mut articles, &mut skipped);
    (articles, skipped)
}

/// The documents of the files' articles in `split`, labelled with the categories that
/// have a training and a test document among them.
fn modapte(parts: Vec<FilePart>, split: Option<Split>) -> Corpus {
    let mut articles = Vec::new();
    let mut corpus = Corpus::default();
    for (a, s) in parts {
        articles.extend(a);
        corpus.skipped.extend(s);
    }
    let in_split = |s: Split| -> HashSet<&str> {
        articles
            .iter()
            .filter(|a| a.split == s)
            .flat_map(|a| a.topics.iter().map(String::as_str))
            .collect()
    };
    let (train, test) = (in_split(Split::Train), in_split(Split::Test));
    let keep: BTreeSet<&str> = train.intersection(&test).copied().collect();
    for a in &articles {
        if split.is_some_and(|s| s != a.split) {
            continue;
        }
        let labels: Vec<String> = a
            .topics
            .iter()
            .filter(|t| keep.contains(t.as_str()))
            .cloned()
            .collect();
        if labels.is_empty() {
            continue;
        }
        if let Some(why) = super::label::first_problem(&labels) {
            corpus.skipped.push((a.newid.clone(), why));
            continue;
        }
        corpus.docs.push(Document {
            id: a.newid.clone(),
            text: a.text.clone(),
            fields: a
                .title
                .iter()
                .map(|t| (Box::from("title"), t.clone()))
                .collect(),
            labels,
            ..Default::default()
        });
    }
    corpus
}

/// Appends the ModApte articles of one file's text; broken blocks go to `skipped`.
fn parse_file(
    text: &str,
    file: &Path,
    out: &mut Vec<Article>,
    skipped: &mut Vec<(String, String)>,
) {
    let mut rest = text;
    let mut n = 0usize;
    while let Some(start) = rest.find("<REUTERS") {
        n += 1;
        let block = &rest[start..];
        let Some(end) = block.find("</REUTERS>") else {
            skipped.push((
                format!("{}#{n}", file.display()),
                "article without </REUTERS> (file cut off?)".into(),
            ));
            return;
        };
        let article = &block[..end];
        rest = &block[end + "</REUTERS>".len()..];
        match parse_article(article) {
            Ok(Some(a)) => out.push(a),
            Ok(None) => {}
            Err(why) => skipped.push((format!("{}#{n}", file.display()), why)),
        }
    }
}

/// The value of attribute `name` in an opening tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("{name}=\"");
    let i = tag.find(&key)? + key.len();
    let len = tag[i..].find('"')?;
    Some(&tag[i..i + len])
}

/// The content of the first `<name …>…</name>` element of `s`.
fn element<'a>(s: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}");
    let mut from = 0;
    loop {
        let i = from + s[from..].find(&open)?;
        let after = &s[i + open.len()..];
        // `<TEXT` must not match `<TEXTS`: the next character ends the name.
        if after.starts_with('>') || after.starts_with(' ') {
            let body_start = i + open.len() + after.find('>')? + 1;
            let close = format!("</{name}>");
            let len = s[body_start..].find(&close)?;
            return Some(&s[body_start..body_start + len]);
        }
        from = i + open.len();
    }
}

/// One `<REUTERS …>` block: `Ok(None)` when it is outside ModApte.
fn parse_article(block: &str) -> std::result::Result<Option<Article>, String> {
    let tag_end = block.find('>').ok_or("unterminated <REUTERS> tag")?;
    let tag = &block[..tag_end];
    let newid = attr(tag, "NEWID").ok_or("<REUTERS> tag without NEWID")?;
    let lewis = attr(tag, "LEWISSPLIT").ok_or_else(|| format!("NEWID {newid}: no LEWISSPLIT"))?;
    let topics_attr = attr(tag, "TOPICS").ok_or_else(|| format!("NEWID {newid}: no TOPICS"))?;
    let split = match lewis {
        "TRAIN" => Split::Train,
        "TEST" => Split::Test,
        _ => return Ok(None),
    };
    if topics_attr != "YES" {
        return Ok(None);
    }
    let body = &block[tag_end + 1..];
    let mut topics = Vec::new();
    if let Some(t) = element(body, "TOPICS") {
        let mut r = t;
        while let Some(d) = element(r, "D") {
            topics.push(unescape(d).trim().to_string());
            let i = r.find("</D>").map_or(r.len(), |i| i + 4);
            r = &r[i..];
        }
    }
    let text_el = element(body, "TEXT").ok_or_else(|| format!("NEWID {newid}: no <TEXT>"))?;
    let title = element(text_el, "TITLE");
    let parts: Vec<&str> = [title, element(text_el, "BODY")]
        .into_iter()
        .flatten()
        .collect();
    let text = if parts.is_empty() {
        unescape(text_el)
    } else {
        unescape(&parts.join("\n"))
    };
    Ok(Some(Article {
        newid: newid.to_string(),
        split,
        topics,
        text,
        title: title.map(unescape),
    }))
}

/// Decodes `&lt; &gt; &amp; &quot; &apos; &#N;`; control characters become spaces.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let entity = tail.find(';').filter(|&j| j <= 8).map(|j| &tail[1..j]);
        let decoded = entity.and_then(|e| match e {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => e
                .strip_prefix('#')
                .and_then(|n| n.parse::<u32>().ok())
                .and_then(char::from_u32),
        });
        match (decoded, entity) {
            (Some(c), Some(e)) => {
                out.push(if c.is_control() && c != '\n' { ' ' } else { c });
                rest = &tail[e.len() + 2..];
            }
            _ => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"<!DOCTYPE lewis SYSTEM "lewis.dtd">
<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="1" NEWID="1">
<TOPICS><D>grain</D><D>wheat</D><D>rare</D></TOPICS>
<TEXT>&#2;
<TITLE>WHEAT &amp; GRAIN</TITLE>
<DATELINE>ROME</DATELINE><BODY>Prices &lt;rose&gt;.
&#3;</BODY></TEXT>
</REUTERS>
<REUTERS TOPICS="NO" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="2" NEWID="2">
<TOPICS><D>grain</D></TOPICS><TEXT><TITLE>NOT MODAPTE</TITLE></TEXT>
</REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="TEST" CGISPLIT="PUBLISHED-TESTSET" OLDID="3" NEWID="3">
<TOPICS><D>wheat</D><D>grain</D><D>onlytest</D></TOPICS>
<TEXT TYPE="UNPROC">&#2; raw text only &#3;</TEXT>
</REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="TEST" CGISPLIT="PUBLISHED-TESTSET" OLDID="4" NEWID="4">
<TOPICS><D>rare2</D></TOPICS><TEXT TYPE="BRIEF"><TITLE>NO KEPT TOPIC</TITLE></TEXT>
</REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="TEST" NEWID="5">
<TOPICS><D>grain</D></TOPICS><TEXT>cut off"#;

    #[test]
    fn modapte_categories_split_and_text() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("reut2-000.sgm");
        std::fs::write(&f, SAMPLE).unwrap();
        let all = read_reuters(dir.path(), None).unwrap();
        // Categories in both splits: grain, wheat. Doc 2 is not ModApte, doc 4 keeps none.
        let ids: Vec<&str> = all.docs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["1", "3"]);
        assert_eq!(all.docs[0].labels, ["grain", "wheat"]);
        assert_eq!(all.docs[1].labels, ["wheat", "grain"]);
        assert_eq!(all.docs[0].text, "WHEAT & GRAIN\nPrices <rose>.\n ");
        assert_eq!(all.docs[1].text.trim(), "raw text only");
        // The title is also a `title:` field; an article without one has no field.
        assert_eq!(
            all.docs[0].fields,
            [(Box::from("title"), "WHEAT & GRAIN".to_string())]
        );
        assert!(all.docs[1].fields.is_empty());
        assert_eq!(all.skipped.len(), 1, "{:?}", all.skipped);
        let train = read_reuters(&f, Some(Split::Train)).unwrap();
        assert_eq!(train.docs.len(), 1);
        let test = read_reuters(&f, Some(Split::Test)).unwrap();
        assert_eq!(test.docs[0].id, "3");
    }

    #[test]
    fn latin1_bytes_and_missing_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = SAMPLE.replace("Prices", "Pr\u{1}ices").into_bytes();
        let i = bytes.iter().position(|&b| b == 1).unwrap();
        bytes[i] = 0xFC;
        std::fs::write(dir.path().join("reut2-001.sgm"), bytes).unwrap();
        let c = read_reuters(dir.path(), Some(Split::Train)).unwrap();
        assert!(c.docs[0].text.contains("Prüices"));
        let empty = tempfile::tempdir().unwrap();
        let err = read_reuters(empty.path(), None).unwrap_err().to_string();
        assert!(err.contains("reut2-"), "{err}");
    }
}
