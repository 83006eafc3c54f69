//! Where an analyzer's documents come from: plain text as the input readers give it, or
//! mail messages parsed under recorded rules. `classify`, `eval` and `learn` read their
//! inputs the way the model's source says, so a spam filter parses headers and MIME parts
//! exactly as it did in training, and a plain-text model never does.

use crate::input::mail::MailRules;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How raw input becomes a [`Document`](crate::input::Document) before the steps run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Plain text: the body (and labels) as the text readers (folders, JSONL, TSV,
    /// Reuters SGML) give them.
    #[default]
    Text,
    /// Mail messages (RFC 5322, MIME): body text, `field:word` header features and tags,
    /// under these rules.
    Mail(MailRules),
}

impl Source {
    /// Mail under the default rules, as `train --spam/--ham` records it.
    pub fn mail() -> Source {
        Source::Mail(MailRules::default())
    }

    /// The mail rules, for a mail source.
    pub fn mail_rules(&self) -> Option<&MailRules> {
        match self {
            Source::Mail(r) => Some(r),
            Source::Text => None,
        }
    }

    /// The source's name: `text` or `mail`.
    pub fn name(&self) -> &'static str {
        match self {
            Source::Text => "text",
            Source::Mail(_) => "mail",
        }
    }
}

impl fmt::Display for Source {
    /// `text`, or `mail (RULES)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Text => f.write_str("text"),
            Source::Mail(r) => write!(f, "mail ({r})"),
        }
    }
}
