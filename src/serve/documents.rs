//! The documents of the JSON API's bodies and its answer lines: a body read as one
//! document or as JSON lines (`{"text": …, "id": …}`, a line's number its id where it names
//! none), and one JSON line per document as `classify --format jsonl` gives it. Shared by
//! the whole-body answers (`http`) and the streamed ones (`stream`).

use super::daemon::Daemon;
use crate::input::Document;
use serde_json::{Value, json};

/// The documents of a `/v1` body: one per JSON line (`{"text": …, "id": …}`) when it is
/// JSON lines, else the whole body as one; a line that is not such an object is an error
/// naming it.
pub(super) fn documents(body: &[u8], jsonl: bool) -> Result<Vec<Document>, String> {
    if !jsonl {
        let text = crate::input::decode_text(body.to_vec());
        return Ok(vec![Document::new("1", text, None)]);
    }
    json_lines(body, 1)
}

/// The documents of JSON lines, the first of them line `first` of its body (a line's
/// number is its id where it names none; blank lines are passed over).
fn json_lines(body: &[u8], first: usize) -> Result<Vec<Document>, String> {
    match json_lines_until(body, first) {
        (docs, None) => Ok(docs),
        (_, Some(why)) => Err(why),
    }
}

/// [`json_lines`] up to the first line that is not a document, and why it is not.
pub(super) fn json_lines_until(body: &[u8], first: usize) -> (Vec<Document>, Option<String>) {
    let mut docs = Vec::new();
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        let n = first + i;
        match json_line(line, n) {
            Ok(Some(d)) => docs.push(d),
            Ok(None) => {}
            Err(why) => return (docs, Some(format!("line {n}: {why}"))),
        }
    }
    (docs, None)
}

/// The document of JSON line number `n`; `None` for a blank line.
fn json_line(line: &[u8], n: usize) -> Result<Option<Document>, String> {
    let line = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_string())?;
    if line.trim().is_empty() {
        return Ok(None);
    }
    let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let Some(t) = v.get("text").and_then(Value::as_str) else {
        return Err("no \"text\"".into());
    };
    let id = match v.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => n.to_string(),
    };
    Ok(Some(Document::new(id, t, None)))
}

/// One JSON line per document: `id`, `label`, `score` and, where the model has one,
/// `probability`; `raw`, a message's own bytes where the body was one message.
pub(super) fn classify_documents(
    daemon: &Daemon,
    docs: &[Document],
    raw: Option<&[u8]>,
) -> Result<String, String> {
    let c = daemon.classifier();
    let mut out = String::new();
    if c.reads_mail() {
        for d in docs {
            let message = raw.unwrap_or(d.text.as_bytes());
            let v = daemon
                .judge(message, false, None)
                .map_err(|e| e.to_string())?;
            let label = if v.spam { "spam" } else { "ham" };
            let line =
                json!({"id": d.id, "label": label, "score": v.score, "probability": v.probability});
            out.push_str(&format!("{line}\n"));
        }
        return Ok(out);
    }
    let (labels, probabilities) = c.labels(docs).map_err(|e| e.to_string())?;
    for ((d, l), p) in docs.iter().zip(&labels).zip(&probabilities) {
        let (label, score) = l
            .first()
            .map(|&(k, s)| (c.classes()[k].as_str(), s))
            .unwrap_or(("", 0.0));
        let mut line = json!({"id": d.id, "label": label, "score": score});
        if let Some(p) = p {
            line["probability"] = json!(p);
        }
        out.push_str(&format!("{line}\n"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_one_document_or_one_per_json_line() {
        let one = documents(b"free cash\nnow", false).unwrap();
        assert_eq!((one.len(), one[0].text.as_str()), (1, "free cash\nnow"));
        let lines = documents(
            b"{\"text\":\"a b\"}\n\n{\"id\":\"x7\",\"text\":\"c\"}\n",
            true,
        )
        .unwrap();
        let ids: Vec<&str> = lines.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["1", "x7"]);
        assert_eq!(lines[1].text, "c");
        assert_eq!(
            documents(b"{\"text\":1}\n", true).unwrap_err(),
            "line 1: no \"text\""
        );
        assert!(
            documents(b"{bad\n", true)
                .unwrap_err()
                .starts_with("line 1:")
        );
    }
}
