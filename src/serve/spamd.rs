//! The SPAMC/SPAMD protocol (SpamAssassin's spamd, version 1.5), without input or output:
//! a request head parsed from the bytes a client has sent so far, and the answers written
//! as bytes. `spamc`, Exim's `spam =` condition and `spamass-milter` speak it; a listener
//! reads from its socket until [`parse_head`] has a head, then reads `Content-length` bytes
//! of message, asks the filter, and writes what [`Answer`] and [`error`] make.
//!
//! The head is a request line (`CHECK SPAMC/1.5`), header lines (`Name: value`) and an empty
//! line, each ended by CRLF (a bare LF is taken too, as spamd does). Unknown headers are
//! passed over, as the protocol asks of servers. Everything read from the client is
//! bounded: the head's length, its number of headers, the message length it announces.

use std::fmt::Write as _;

/// What a client asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// The verdict only (`Spam: True ; S / T`).
    Check,
    /// The verdict and the names of the features that made it.
    Symbols,
    /// The verdict and a report of the features that made it.
    Report,
    /// As `Report` for spam; the verdict alone for ham.
    ReportIfSpam,
    /// The message back with the verdict in its header.
    Process,
    /// The message's header fields with the verdict.
    Headers,
    /// Nothing: the client changed its mind.
    Skip,
    /// Whether the server is alive (`PONG`).
    Ping,
    /// Learn (`Set: local`) or forget (`Remove: local`) the message as its `Message-class`.
    Tell,
}

impl Command {
    /// The command named `word` on a request line.
    fn named(word: &str) -> Option<Command> {
        Some(match word {
            "CHECK" => Command::Check,
            "SYMBOLS" => Command::Symbols,
            "REPORT" => Command::Report,
            "REPORT_IFSPAM" => Command::ReportIfSpam,
            "PROCESS" => Command::Process,
            "HEADERS" => Command::Headers,
            "SKIP" => Command::Skip,
            "PING" => Command::Ping,
            "TELL" => Command::Tell,
            _ => return None,
        })
    }

    /// Whether a message follows the head.
    pub fn has_message(self) -> bool {
        !matches!(self, Command::Skip | Command::Ping)
    }
}

/// The class a `TELL` names (`Message-class: spam` or `ham`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageClass {
    /// `spam`.
    Spam,
    /// `ham`.
    Ham,
}

/// A request head: the command, the protocol version and the headers this server reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// What is asked.
    pub command: Command,
    /// The client's protocol version, `(major, minor)`: answers are written in it.
    pub version: (u8, u8),
    /// `Content-length`: the message's bytes after the head.
    pub content_length: Option<u64>,
    /// `User`: whose filter to ask (checked by the caller before it names anything).
    pub user: Option<String>,
    /// `Message-class` of a `TELL`.
    pub class: Option<MessageClass>,
    /// `Set: local` (learn) in a `TELL`.
    pub set_local: bool,
    /// `Remove: local` (forget) in a `TELL`.
    pub remove_local: bool,
}

/// The bounds on what a client may send in a head.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most bytes of a head, its empty line included.
    pub head_bytes: usize,
    /// The most header lines.
    pub headers: usize,
    /// The most bytes of message a head may announce.
    pub message_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            head_bytes: 16 << 10,
            headers: 64,
            message_bytes: 64 << 20,
        }
    }
}

/// The exit codes of `sysexits.h` that spamd answers with: a client such as `spamc` passes
/// them on as its own exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// 0: done.
    Ok,
    /// 64: the command line (here, the request) was wrong.
    Usage,
    /// 65: the message could not be read.
    DataErr,
    /// 67: no filter for that user.
    NoUser,
    /// 70: the server failed.
    Software,
    /// 74: reading or writing failed.
    IoErr,
    /// 75: busy; try again later.
    TempFail,
    /// 76: not the protocol.
    Protocol,
    /// 77: not allowed (a `TELL` without the credential).
    NoPerm,
    /// 79: the client took too long.
    Timeout,
}

impl Status {
    /// The number and the name spamd writes on its status line.
    pub fn code(self) -> (u8, &'static str) {
        match self {
            Status::Ok => (0, "EX_OK"),
            Status::Usage => (64, "EX_USAGE"),
            Status::DataErr => (65, "EX_DATAERR"),
            Status::NoUser => (67, "EX_NOUSER"),
            Status::Software => (70, "EX_SOFTWARE"),
            Status::IoErr => (74, "EX_IOERR"),
            Status::TempFail => (75, "EX_TEMPFAIL"),
            Status::Protocol => (76, "EX_PROTOCOL"),
            Status::NoPerm => (77, "EX_NOPERM"),
            Status::Timeout => (79, "EX_TIMEOUT"),
        }
    }
}

/// Why a head cannot be served: the status to answer with and a sentence for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The status of the answer.
    pub status: Status,
    /// What was wrong.
    pub why: String,
}

fn refuse(status: Status, why: impl Into<String>) -> Refusal {
    Refusal {
        status,
        why: why.into(),
    }
}

/// The head at the start of `buf`, and its length in bytes (the message starts there);
/// `Ok(None)` while the head's empty line has not arrived yet and `buf` is within
/// `limits.head_bytes`.
pub fn parse_head(buf: &[u8], limits: &Limits) -> Result<Option<(Request, usize)>, Refusal> {
    let Some(end) = head_end(buf) else {
        return if buf.len() > limits.head_bytes {
            Err(refuse(
                Status::Protocol,
                format!("a request head over {} bytes", limits.head_bytes),
            ))
        } else {
            Ok(None)
        };
    };
    if end > limits.head_bytes {
        return Err(refuse(
            Status::Protocol,
            format!("a request head over {} bytes", limits.head_bytes),
        ));
    }
    let head = std::str::from_utf8(&buf[..end])
        .map_err(|_| refuse(Status::Protocol, "a request head that is not text"))?;
    let mut lines = head.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let mut request = request_line(lines.next().unwrap_or(""))?;
    let mut count = 0;
    for line in lines.filter(|l| !l.is_empty()) {
        count += 1;
        if count > limits.headers {
            return Err(refuse(
                Status::Protocol,
                format!("more than {} header lines", limits.headers),
            ));
        }
        header(&mut request, line, limits)?;
    }
    if request.command.has_message() && request.content_length.is_none() {
        // spamc always sends it; a message without one could not be told from the next.
        return Err(refuse(
            Status::Protocol,
            "no Content-length for the message",
        ));
    }
    if request.command == Command::Tell {
        if request.class.is_none() {
            return Err(refuse(Status::Protocol, "TELL without a Message-class"));
        }
        if request.set_local == request.remove_local {
            return Err(refuse(
                Status::Protocol,
                "TELL needs one of Set: local and Remove: local",
            ));
        }
    }
    Ok(Some((request, end)))
}

/// Where the head ends: just after its empty line (CRLF CRLF, or LF LF).
fn head_end(buf: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(nl) = buf[at..].iter().position(|&b| b == b'\n') {
        let line = &buf[at..at + nl];
        if line.is_empty() || line == b"\r" {
            return Some(at + nl + 1);
        }
        at += nl + 1;
    }
    None
}

/// `COMMAND SPAMC/MAJOR.MINOR`.
fn request_line(line: &str) -> Result<Request, Refusal> {
    let mut words = line.split(' ');
    let (Some(word), Some(protocol), None) = (words.next(), words.next(), words.next()) else {
        return Err(refuse(
            Status::Protocol,
            "a request line that is not COMMAND SPAMC/1.5",
        ));
    };
    let command = Command::named(word)
        .ok_or_else(|| refuse(Status::Protocol, format!("an unknown command {word:.32}")))?;
    let version = protocol
        .strip_prefix("SPAMC/")
        .and_then(|v| v.split_once('.'))
        .and_then(|(a, b)| Some((a.parse::<u8>().ok()?, b.parse::<u8>().ok()?)))
        .ok_or_else(|| refuse(Status::Protocol, "a request line without SPAMC/VERSION"))?;
    if version.0 != 1 || version.1 > 5 {
        return Err(refuse(
            Status::Protocol,
            "a protocol version this server does not speak (SPAMC/1.0 to 1.5)",
        ));
    }
    Ok(Request {
        command,
        version,
        content_length: None,
        user: None,
        class: None,
        set_local: false,
        remove_local: false,
    })
}

/// One `Name: value` line into `r`; names are matched without regard to case.
fn header(r: &mut Request, line: &str, limits: &Limits) -> Result<(), Refusal> {
    let Some((name, value)) = line.split_once(':') else {
        return Err(refuse(Status::Protocol, "a header line without a colon"));
    };
    let value = value.trim();
    match name.to_ascii_lowercase().as_str() {
        "content-length" => {
            if r.content_length.is_some() || !value.bytes().all(|b| b.is_ascii_digit()) {
                return Err(refuse(
                    Status::Protocol,
                    "a Content-length given twice, or not digits alone",
                ));
            }
            let n: u64 = value
                .parse()
                .map_err(|_| refuse(Status::Protocol, "a Content-length that is not a number"))?;
            if n > limits.message_bytes {
                return Err(refuse(
                    Status::DataErr,
                    format!(
                        "a message of {n} bytes, over the {} this server reads",
                        limits.message_bytes
                    ),
                ));
            }
            r.content_length = Some(n);
        }
        "user" => r.user = Some(value.to_string()),
        "message-class" => {
            if r.class.is_some() {
                return Err(refuse(Status::Protocol, "a Message-class given twice"));
            }
            r.class = Some(match value {
                "spam" => MessageClass::Spam,
                "ham" => MessageClass::Ham,
                _ => {
                    return Err(refuse(
                        Status::Protocol,
                        "a Message-class other than spam or ham",
                    ));
                }
            })
        }
        "set" | "remove" => {
            let local = value.split(',').any(|w| w.trim() == "local");
            if name.eq_ignore_ascii_case("set") {
                r.set_local |= local;
            } else {
                r.remove_local |= local;
            }
        }
        "compress" => {
            return Err(refuse(Status::Protocol, "compressed messages are not read"));
        }
        _ => {}
    }
    Ok(())
}

/// A verdict as spamd states it: spam or not, a score and the score from which mail is
/// spam (the caller chooses the scale and says which in its documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// Whether the message is spam.
    pub spam: bool,
    /// Its score.
    pub score: f64,
    /// The score from which mail is spam.
    pub threshold: f64,
}

/// One answer to a request that was served.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<'a> {
    /// `PONG` to a `PING`.
    Pong,
    /// The verdict alone (`CHECK`, or `REPORT_IFSPAM` of ham).
    Verdict(Verdict),
    /// The verdict and the names of the features that made it (`SYMBOLS`).
    Symbols(Verdict, &'a [String]),
    /// The verdict and a report's text (`REPORT`, `REPORT_IFSPAM` of spam).
    Report(Verdict, &'a str),
    /// The verdict and the message or its header fields with the verdict (`PROCESS`,
    /// `HEADERS`).
    Message(Verdict, &'a [u8]),
    /// What a `TELL` changed: learned (`DidSet: local`) or forgotten (`DidRemove: local`),
    /// or nothing.
    Told {
        /// The message was learned.
        set: bool,
        /// The message was forgotten.
        removed: bool,
    },
}

/// The score and threshold of a verdict in the tenths they are printed in, the score
/// kept on the verdict's side of the threshold: clients such as Exim's `spam =` compare
/// the two printed numbers rather than read the word, so a ham at P(spam) 0.896 is
/// printed 8.9 / 9.0, not 9.0 / 9.0, and a spam just over the threshold 9.0 / 9.0.
fn printed(v: &Verdict) -> (i32, i32) {
    let tenths = |x: f64| (x * 10.0).round() as i32;
    let (score, threshold) = (tenths(v.score), tenths(v.threshold));
    let score = if v.spam {
        score.max(threshold)
    } else {
        score.min(threshold - 1)
    };
    (score, threshold)
}

/// The bytes of `answer` to a client of protocol `version`.
pub fn answer(version: (u8, u8), answer: &Answer<'_>) -> Vec<u8> {
    let (major, minor) = version;
    let mut head = format!("SPAMD/{major}.{minor} 0 EX_OK\r\n");
    let spam_line = |head: &mut String, v: &Verdict| {
        let word = if v.spam { "True" } else { "False" };
        let (score, threshold) = printed(v);
        let _ = write!(
            head,
            "Spam: {word} ; {:.1} / {:.1}\r\n",
            f64::from(score) / 10.0,
            f64::from(threshold) / 10.0
        );
    };
    let body: Vec<u8> = match answer {
        Answer::Pong => {
            return format!("SPAMD/{major}.{minor} 0 PONG\r\n").into_bytes();
        }
        Answer::Verdict(v) => {
            spam_line(&mut head, v);
            Vec::new()
        }
        Answer::Symbols(v, names) => {
            spam_line(&mut head, v);
            names.join(",").into_bytes()
        }
        Answer::Report(v, text) => {
            spam_line(&mut head, v);
            text.as_bytes().to_vec()
        }
        Answer::Message(v, bytes) => {
            spam_line(&mut head, v);
            bytes.to_vec()
        }
        Answer::Told { set, removed } => {
            if *set {
                head.push_str("DidSet: local\r\n");
            }
            if *removed {
                head.push_str("DidRemove: local\r\n");
            }
            Vec::new()
        }
    };
    let _ = write!(head, "Content-length: {}\r\n\r\n", body.len());
    let mut out = head.into_bytes();
    out.extend_from_slice(&body);
    out
}

/// The bytes of a refusal: the status line alone, after which the connection closes.
pub fn error(version: (u8, u8), status: Status) -> Vec<u8> {
    let (code, name) = status.code();
    format!("SPAMD/{}.{} {code} {name}\r\n", version.0, version.1).into_bytes()
}

#[cfg(test)]
#[path = "spamd_tests.rs"]
mod tests;
