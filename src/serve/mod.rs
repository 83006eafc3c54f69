//! The filter as a daemon that mail servers and pipelines ask over a socket. `spamd`
//! holds SpamAssassin's SPAMC/SPAMD protocol as bytes in and bytes out, without input or
//! output, so every listener (and a fuzzer) drives the same parser. With the `serve`
//! feature the rest runs it: `daemon` (what connections share: the saved classifier, the
//! configuration, the counters and a log cut to a few lines a second), `verdict` (a
//! message judged, in the scales the protocols speak), `spamd_conn` (one spamd
//! connection), `http` (rspamd's protocol, the JSON API, health and metrics over
//! hyper; `stream` answers JSON lines as they are read, `documents` reads a body's documents and writes their answer lines for both), `metrics` (Prometheus' text format), `history` (the recent verdicts), `rates` (verdicts and learns per minute), `page` (the page at `/` and the JSON it reads), `activation` (sockets handed over by
//! systemd) and `run` (listeners, the connection bound, reloading, stopping on SIGTERM). No scoring here: every answer is the classifier's.

pub mod spamd;

#[cfg(feature = "serve")]
mod activation;
#[cfg(feature = "serve")]
mod daemon;
#[cfg(feature = "serve")]
mod documents;
#[cfg(feature = "serve")]
pub mod history;
#[cfg(feature = "serve")]
mod http;
#[cfg(feature = "serve")]
pub mod metrics;
#[cfg(feature = "serve")]
mod page;
#[cfg(feature = "serve")]
pub mod rates;
#[cfg(feature = "serve")]
mod run;
#[cfg(feature = "serve")]
mod spamd_conn;
#[cfg(feature = "serve")]
mod stream;
#[cfg(feature = "serve")]
pub mod verdict;

#[cfg(feature = "serve")]
pub use daemon::{Daemon, Listen, ServeConfig};
#[cfg(feature = "serve")]
pub use http::serve_connection as serve_http;
#[cfg(feature = "serve")]
pub use run::run;
