//! What a filter daemon speaks, apart from its sockets: the protocols mail servers ask
//! filters over, each as bytes in and bytes out, so that every listener (and a fuzzer)
//! drives the same parser. `spamd`: SpamAssassin's SPAMC/SPAMD protocol.

pub mod spamd;
