//! What each fuzz target does with its bytes: the reader that input reaches in real use,
//! then the analysis that follows it, so a panic anywhere on that path is found. Shared
//! by the fuzz targets and by the stable test that replays the committed seeds.

use rosenblatt::distributed::connect::join_with_bytes;
use rosenblatt::features::svmlight::parse_svmlight;
use rosenblatt::input::mail::{MailRules, MboxReader, read_message_bytes};
use rosenblatt::input::{Corpus, Document, parse_jsonl, parse_reuters, parse_tsv};
use rosenblatt::model::{MAGIC, Model};
use rosenblatt::text::{Analyzer, Source};
use rosenblatt::training::vectorize_for;
use std::path::Path;

/// Tokenizes every document as `train` would, so the text a reader produced is used.
fn analyze(corpus: &Corpus, analyzer: &Analyzer) {
    for d in &corpus.docs {
        analyzer.tokens(d, &mut |w| assert!(!w.is_empty(), "an empty token"));
    }
}

/// One message (stdin to `learn`, a file in a mail folder), then its mail features.
pub fn mail(data: &[u8]) {
    let rules = MailRules::default();
    let m = read_message_bytes(data, "fuzz", Some("spam"), &rules);
    analyze(&m.corpus, &Analyzer::standard(Source::Mail(rules), true));
}

/// An mbox cut into messages; each must be a part of the input.
pub fn mbox(data: &[u8]) {
    let rules = MailRules::default();
    let analyzer = Analyzer::standard(Source::Mail(rules.clone()), true);
    for m in MboxReader::new(data) {
        let Ok(m) = m else { return };
        assert!(
            m.bytes.len() <= data.len(),
            "a message longer than its mbox"
        );
        analyze(
            &read_message_bytes(&m.bytes, "fuzz", None, &rules).corpus,
            &analyzer,
        );
    }
}

/// An SVMlight file: parsed or refused; a parsed one has a label and a line per row.
pub fn svmlight(data: &[u8]) {
    if let Ok(d) = parse_svmlight(data, Path::new("fuzz.svm")) {
        assert_eq!(d.labels.len(), d.rows.n_rows(), "one label per row");
        assert_eq!(d.lines.len(), d.rows.n_rows(), "one line number per row");
    }
}

/// JSON Lines, then the plain-text analyzer.
pub fn jsonl(data: &[u8]) {
    if let Ok(corpus) = parse_jsonl(data.to_vec(), Path::new("fuzz.jsonl")) {
        analyze(&corpus, &Analyzer::default());
    }
}

/// `label<TAB>text` lines, then the plain-text analyzer.
pub fn tsv(data: &[u8]) {
    if let Ok(corpus) = parse_tsv(data.to_vec(), Path::new("fuzz.tsv")) {
        analyze(&corpus, &Analyzer::default());
    }
}

/// One Reuters-21578 SGML file (Latin-1), then the plain-text analyzer.
pub fn reuters(data: &[u8]) {
    let corpus = parse_reuters(data.to_vec(), Path::new("fuzz.sgm"), None);
    for d in &corpus.docs {
        assert!(!d.labels.is_empty(), "a ModApte document without a topic");
    }
    analyze(&corpus, &Analyzer::default());
}

/// A model file: decoded or refused with an error; a decoded model scores a document
/// holding its first words, as `classify` would, and encodes again. Input that starts like
/// a model file is also tried with its header resealed (length and checksum of the bytes
/// after it), so mutations reach the payload decoder instead of stopping at the checksum.
pub fn model(data: &[u8]) {
    score_model(data);
    if data.len() >= HEADER && data.starts_with(MAGIC) {
        let payload = &data[HEADER..];
        let mut sealed = data[..12].to_vec();
        sealed.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        let version = u32::from_le_bytes(data[8..12].try_into().expect("4 bytes"));
        let sum = rosenblatt::model::checksum(version, payload);
        sealed.extend_from_slice(&sum.to_le_bytes());
        sealed.extend_from_slice(payload);
        score_model(&sealed);
    }
}

/// Magic, version, payload length and checksum: the bytes before a model's payload.
const HEADER: usize = 8 + 4 + 8 + 8;

/// Decodes `data` as a model file; when it decodes, scores a document and encodes it again.
fn score_model(data: &[u8]) {
    let Ok(m) = Model::from_bytes(data, Path::new("fuzz.model")) else {
        return;
    };
    let n = m.vocab().len().min(64) as u32;
    let text: Vec<&str> = (0..n).map(|id| m.vocab().word(id)).collect();
    let doc = Document::new("d", text.join(" "), None);
    let x = vectorize_for(&m, &[doc]).matrix;
    let _ = m.decide_rows(&x);
    let _ = m.to_bytes();
}

/// Everything a peer sends during a cluster's join, to both sides (process 0 accepting,
/// process 1 connecting): refused with an error, never a panic, and never taken in —
/// bytes that do not hold the key cannot prove it.
pub fn cluster(data: &[u8]) {
    let (accepted, connected) = join_with_bytes(data);
    assert!(accepted.is_err(), "a join without the key was accepted");
    assert!(connected.is_err(), "a join without the key was completed");
}

/// A spamd request head as a client's bytes arrive: refused with a status or parsed, and
/// a parsed head ends within the bytes it was read from.
pub fn spamd(data: &[u8]) {
    use rosenblatt::serve::spamd::{Limits, parse_head};
    for cut in [data.len(), data.len() / 2] {
        if let Ok(Some((r, end))) = parse_head(&data[..cut], &Limits::default()) {
            assert!(end <= cut, "a head longer than its bytes");
            assert!(!r.command.has_message() || r.content_length.is_some());
        }
    }
}

/// A client's bytes on a connection to the daemon's HTTP listener, its side closed once
/// they are sent: the connection ends, and whatever is answered is HTTP (1.1, or 1.0 to
/// a 1.0 request), none of it a failure inside the daemon (500). The daemon answers with
/// a small spam filter trained once, its file removed once opened; the stream is in
/// memory.
pub fn http(data: &[u8]) {
    use rosenblatt::serve::{Daemon, ServeConfig, serve_http};
    use std::sync::{Arc, OnceLock};
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    static DAEMON: OnceLock<(tokio::runtime::Runtime, Arc<Daemon>)> = OnceLock::new();
    let (runtime, daemon) = DAEMON.get_or_init(|| {
        let rules = MailRules::default();
        let mut docs = Vec::new();
        for (i, (label, subject, body)) in [
            ("spam", "cheap meds", "buy cheap meds now, free offer"),
            ("spam", "win a prize", "claim your free prize now"),
            ("ham", "lunch", "lunch at noon tomorrow with the team"),
            ("ham", "the meeting", "the meeting moved to friday at noon"),
        ]
        .into_iter()
        .enumerate()
        {
            let raw = format!("From: a@example.org\r\nSubject: {subject}\r\n\r\n{body}\r\n");
            let m = read_message_bytes(raw.as_bytes(), &i.to_string(), Some(label), &rules);
            docs.extend(m.corpus.docs);
        }
        let model = Model::fit(&docs, &rosenblatt::TrainConfig::spam_filter()).unwrap();
        let name = format!("rosenblatt-fuzz-http-{}", std::process::id());
        let dir = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        model.save(dir.join("spam.model")).unwrap();
        let config = ServeConfig {
            max_message_bytes: 1 << 20,
            request_timeout: Duration::from_secs(2),
            ..ServeConfig::default()
        };
        let classifier = Daemon::open(&dir.join("spam.model"), &config).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let daemon = Daemon::new(classifier, config, Box::new(|_| {}));
        (runtime, Arc::new(daemon))
    });
    let answer = runtime.block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let served = tokio::spawn(serve_http(
            Arc::clone(daemon),
            server,
            std::future::pending(),
        ));
        let (mut reading, mut writing) = tokio::io::split(client);
        let write = async {
            // (The daemon may close before it has taken all.)
            let _ = writing.write_all(data).await;
            let _ = writing.shutdown().await;
        };
        let read = async {
            let mut out = Vec::new();
            let _ = reading.read_to_end(&mut out).await;
            out
        };
        let exchange = async {
            let ((), out) = tokio::join!(write, read);
            served.await.unwrap();
            out
        };
        tokio::time::timeout(Duration::from_secs(10), exchange)
            .await
            .expect("the connection did not end once its client had closed")
    });
    let shown = String::from_utf8_lossy(&answer);
    // (An HTTP/1.0 request is answered in HTTP/1.0.)
    let http = |v: &[u8]| answer.starts_with(v);
    assert!(
        answer.is_empty() || http(b"HTTP/1.1 ") || http(b"HTTP/1.0 "),
        "{shown:?}"
    );
    assert!(!statuses(&answer).contains(&500), "{shown:?}");
}

/// The statuses of the HTTP answers at the start of `stream`, one after another as their
/// `content-length` says where the next begins (up to the first that is not whole).
fn statuses(mut stream: &[u8]) -> Vec<u16> {
    let mut out = Vec::new();
    while let Some(rest) = stream
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| stream.strip_prefix(b"HTTP/1.0 "))
    {
        let Some(status) = std::str::from_utf8(&rest[..rest.len().min(3)])
            .ok()
            .and_then(|s| s.parse().ok())
        else {
            break;
        };
        out.push(status);
        let Some(end) = stream.windows(4).position(|w| w == b"\r\n\r\n") else {
            break;
        };
        let head = String::from_utf8_lossy(&stream[..end]);
        let length = head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        });
        let Some(next) = length.and_then(|n| stream.get(end + 4 + n..)) else {
            break;
        };
        stream = next;
    }
    out
}
