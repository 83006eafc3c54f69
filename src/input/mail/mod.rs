//! Mail: Maildir folders, mbox files and folders of one message per file → [`Document`](crate::input::Document)s.
//!
//! Every source is read as bytes. [`detect`] tells the kinds apart: a folder with `cur/` or
//! `new/` is a Maildir, any other folder is walked recursively (one message per file, as
//! the SpamAssassin corpus is laid out), and a file whose first line is an envelope line
//! (`From sender date`) is an mbox, streamed message by message. Messages are parsed in
//! parallel; each becomes a document through `parse_message`, under the [`MailRules`]
//! the caller gives (a model's own, when it classifies). A message that is not mail
//! still becomes a document (from its raw bytes) and is listed in [`MailCorpus::unparsed`];
//! a file that cannot be read is listed in the corpus's `skipped`. Nothing aborts the run
//! but a path that does not exist.
//!
//! Parsing needs the `mail` feature (mail-parser); without it only the rules, the mbox
//! splitter and the Maildir listing are here.

mod fields;
#[cfg(feature = "mail")]
mod header_block;
#[cfg(feature = "mail")]
mod html;
#[cfg(feature = "mail")]
mod html_text;
#[cfg(feature = "mail")]
mod maildir;
mod mbox;
#[cfg(feature = "mail")]
mod message;
mod rewrite;
mod rules;

pub use fields::{DATE_FIELDS, FieldGroup, VERDICT_FIELD};
#[cfg(feature = "mail")]
mod read;

#[cfg(feature = "mail")]
pub(crate) use maildir::{is_maildir, maildir_files};
#[cfg(feature = "mail")]
pub(crate) use mbox::starts_with_envelope;
pub use mbox::{MboxMessage, MboxReader};
#[cfg(feature = "mail")]
pub(crate) use message::{ParsedMessage, parse_message};
#[cfg(feature = "mail")]
pub use read::{
    MailCorpus, MailSource, detect, read_labelled, read_labelled_share, read_mail,
    read_message_bytes, read_share,
};
pub use rewrite::with_field;
pub(crate) use rules::RulesBeforeSwitches;
pub use rules::{MailRules, TagFamily};
