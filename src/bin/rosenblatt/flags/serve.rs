//! `rosenblatt serve`'s flags: the filter to answer with, the listeners, the learning
//! credential and the daemon's bounds, turned into the library's [`ServeConfig`].

use anyhow::{Context, Result, bail};
use clap::Args;
use rosenblatt::serve::{Listen, ServeConfig};
use std::path::PathBuf;
use std::time::Duration;

/// `rosenblatt serve`.
#[derive(Debug, Args)]
#[command(
    after_help = "Mail servers ask the filter over spamd's protocol (spamc, Exim's \
`spam =` condition, spamass-milter) or rspamd's (rspamc, Exim's variant=rspamd, Haraka): \
POST /checkv2, /learnspam, /learnham, GET /ping, /stat. Pipelines use the JSON API: POST \
/v1/classify (a document as the body, or JSON lines {\"text\": …} with Content-Type \
application/x-ndjson) and /v1/explain; GET /healthz and /metrics (Prometheus). A browser opening / sees the \
filter, its recent verdicts (--history), a pasted message's words coloured by what each \
adds to the score, and learns from it with the credential (all files in the binary; \
JSON from /v1/filter, /v1/history, /v1/annotate and /v1/learn). Scores are \
10 × P(spam), and mail is spam from 10 × P(spam) at the filter's threshold (9.0 for the \
default filter). A store sees every learn committed before each request. SIGTERM or SIGINT \
stops taking connections and lets those in flight finish."
)]
pub struct ServeArgs {
    /// The filter to answer with: a store (made by `convert`) or a model file.
    #[arg(short, long, value_name = "STORE_OR_MODEL", help_heading = "Input")]
    pub model: PathBuf,
    /// Where the HTTP protocols listen (rspamd's, the JSON API, /metrics): HOST:PORT or
    /// unix:PATH; give it again for more listeners [default: 127.0.0.1:11333].
    #[arg(long, value_name = "ADDR", help_heading = "Listen")]
    pub http: Vec<String>,
    /// Where spamd's protocol listens: HOST:PORT or unix:PATH; give it again for more
    /// listeners [default: 127.0.0.1:783].
    #[arg(long, value_name = "ADDR", help_heading = "Listen")]
    pub spamd: Vec<String>,
    /// Serve no spamd listener (only HTTP).
    #[arg(long, conflicts_with = "spamd", help_heading = "Listen")]
    pub no_spamd: bool,
    /// Serve no HTTP listener (only spamd).
    #[arg(long, conflicts_with_all = ["http", "no_spamd"], help_heading = "Listen")]
    pub no_http: bool,
    /// A file whose first line is the credential that learning over HTTP needs (sent as
    /// rspamd's `Password` header); without it, HTTP learns are refused.
    #[arg(long, value_name = "FILE", help_heading = "Learning")]
    pub learn_key: Option<PathBuf>,
    /// A folder of per-user filters: user U's is the store `DIR/U`, chosen by spamd's
    /// `User:` and rspamd's `Deliver-To`; a user without one gets the -m filter. A user
    /// name other than 1–64 letters, digits and . _ - + @ (not starting with a dot) is
    /// refused (spamd EX_NOUSER, HTTP 400) before any path is made of it.
    #[arg(long, value_name = "DIR", help_heading = "Input")]
    pub stores: Option<PathBuf>,
    /// Let spamd's TELL learn, from loopback and Unix-socket clients only.
    #[arg(long, help_heading = "Learning")]
    pub allow_tell: bool,
    /// The most connections open at once; one more is answered busy (spamd EX_TEMPFAIL,
    /// HTTP 503). The daemon raises its limit of open files to fit it where it may.
    #[arg(long, value_name = "N", default_value_t = 4096, help_heading = "Limits",
          value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub max_connections: usize,
    /// The most bytes of one message or request body (e.g. 32M).
    #[arg(long, value_name = "SIZE", value_parser = super::names::parse_memory, allow_negative_numbers = true, help_heading = "Limits")]
    pub max_message_bytes: Option<u64>,
    /// The most bytes of messages held at once over all connections [default: 96M, or
    /// --max-message-bytes when larger]; a request whose message would pass it is
    /// answered busy. A message counts as its bytes arrive, so a client sending slowly
    /// holds only what it has sent.
    #[arg(long, value_name = "SIZE", value_parser = super::names::parse_memory, allow_negative_numbers = true, help_heading = "Limits")]
    pub max_buffered_bytes: Option<u64>,
    /// Seconds a client may take to send a request or keep an HTTP connection idle, and
    /// may leave its answer unread (a write that waits that long ends the connection).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        help_heading = "Limits"
    )]
    pub request_timeout: f64,
    /// From which P(spam) rspamd clients are told to reject the message.
    #[arg(
        long,
        value_name = "P",
        default_value_t = 0.99,
        help_heading = "Decision"
    )]
    pub reject_probability: f32,
    /// How many recent verdicts the page at / lists, newest first, in memory only (the
    /// messages of the newest kept too, up to 32 MiB of them, for the page to take apart
    /// or learn from); 0 keeps none. With --learn-key a message is shown only to a client
    /// sending the credential.
    #[arg(long, value_name = "N", default_value_t = 100, help_heading = "Page",
          value_parser = super::names::whole(0usize), allow_negative_numbers = true)]
    pub history: usize,
}

/// A validated `serve`.
#[derive(Debug)]
pub struct ServePlan {
    /// The filter's path.
    pub model: PathBuf,
    /// How the daemon runs.
    pub config: ServeConfig,
    /// Whether spamd listeners were asked for by flag (not the default one).
    pub spamd_given: bool,
}

/// The plan of `a`, or the sentence saying which flag is wrong.
pub fn plan(a: ServeArgs) -> Result<ServePlan> {
    let listeners = |given: &[String], default: &[Listen], off: bool| -> Result<Vec<Listen>> {
        if off {
            return Ok(Vec::new());
        }
        if given.is_empty() {
            return Ok(default.to_vec());
        }
        given
            .iter()
            .map(|s| Listen::parse(s).map_err(|e| anyhow::anyhow!("--http/--spamd {e}")))
            .collect()
    };
    let defaults = ServeConfig::default();
    let http = listeners(&a.http, &defaults.http, a.no_http)?;
    let spamd = listeners(&a.spamd, &defaults.spamd, a.no_spamd)?;
    if !(a.request_timeout > 0.0 && a.request_timeout.is_finite()) {
        bail!("--request-timeout must be a number of seconds above 0");
    }
    if !(a.reject_probability > 0.0 && a.reject_probability <= 1.0) {
        bail!("--reject-probability must be above 0 and at most 1");
    }
    if a.history > MAX_HISTORY {
        bail!(
            "--history {}: at most {MAX_HISTORY} verdicts are kept (each holds a few hundred \
             bytes besides its message)",
            a.history
        );
    }
    if let Some(dir) = a.stores.as_ref().filter(|d| !d.is_dir()) {
        bail!("--stores {}: not a folder", dir.display());
    }
    let max_message_bytes = a.max_message_bytes.unwrap_or(defaults.max_message_bytes);
    let max_buffered_bytes = a
        .max_buffered_bytes
        .unwrap_or(defaults.max_buffered_bytes.max(max_message_bytes));
    if max_buffered_bytes < max_message_bytes {
        bail!(
            "--max-buffered-bytes ({max_buffered_bytes}) is below --max-message-bytes \
             ({max_message_bytes}): the largest message allowed could never be taken"
        );
    }
    let learn_key = match &a.learn_key {
        None => None,
        Some(file) => Some(read_key(file)?),
    };
    Ok(ServePlan {
        spamd_given: !a.spamd.is_empty(),
        model: a.model,
        config: ServeConfig {
            http,
            spamd,
            learn_key,
            allow_tell: a.allow_tell,
            max_connections: a.max_connections,
            max_message_bytes,
            max_buffered_bytes,
            request_timeout: Duration::from_secs_f64(a.request_timeout),
            reject_probability: a.reject_probability,
            stop_timeout: defaults.stop_timeout,
            stores: a.stores,
            history: a.history,
        },
    })
}

/// The most verdicts `--history` may keep.
const MAX_HISTORY: usize = 100_000;

/// The credential in `file`: its first line, of at least 8 bytes.
fn read_key(file: &std::path::Path) -> Result<Vec<u8>> {
    let bytes = std::fs::read(file).with_context(|| format!("--learn-key {}", file.display()))?;
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() < 8 {
        bail!(
            "--learn-key {}: the credential (its first line) must be at least 8 bytes",
            file.display()
        );
    }
    Ok(line.to_vec())
}
