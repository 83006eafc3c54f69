//! Where an analyzer's documents come from: plain text as the input readers give it, or
//! mail messages parsed under recorded rules. `classify`, `eval` and `learn` read their
//! inputs the way the model's source says, so a spam filter parses headers and MIME parts
//! exactly as it did in training, and a plain-text model never does.

use crate::input::mail::MailRules;
use crate::input::mail::RulesBeforeSwitches;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How raw input becomes a [`Document`](crate::input::Document) before the steps run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Stored", into = "Stored")]
pub enum Source {
    /// Plain text: the body (and labels) as the text readers (folders, JSONL, TSV,
    /// Reuters SGML) give them.
    #[default]
    Text,
    /// Mail messages (RFC 5322, MIME): body text, `field:word` header features and tags,
    /// under these rules.
    Mail(MailRules),
}

/// A source as model files and stores hold it: mail rules recorded before their two
/// switches ([`MailRules::routing_tags`], [`MailRules::recipient_local_parts`]) are the
/// second variant and read with both on; this build writes the third.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Stored {
    Text,
    MailBeforeSwitches(RulesBeforeSwitches),
    Mail(MailRules),
}

impl From<Stored> for Source {
    fn from(s: Stored) -> Source {
        match s {
            Stored::Text => Source::Text,
            Stored::MailBeforeSwitches(r) => Source::Mail(r.into()),
            Stored::Mail(r) => Source::Mail(r),
        }
    }
}

impl From<Source> for Stored {
    fn from(s: Source) -> Stored {
        match s {
            Source::Text => Stored::Text,
            Source::Mail(r) => Stored::Mail(r),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::mail::TagFamily;

    /// The source as builds before the two switches wrote it: `Mail` the second variant,
    /// its rules six fields.
    #[derive(Serialize)]
    enum Before {
        #[allow(dead_code)]
        Text,
        Mail(
            Vec<String>,
            Option<Vec<String>>,
            u32,
            u32,
            u8,
            Vec<TagFamily>,
        ),
    }

    #[test]
    fn mail_rules_recorded_before_the_switches_read_with_both_on() {
        let cfg = bincode::config::standard();
        let old = Before::Mail(
            vec!["date".into()],
            None,
            100,
            200,
            2,
            vec![TagFamily::Shape],
        );
        let bytes = bincode::serde::encode_to_vec(&old, cfg).unwrap();
        let (read, n): (Source, usize) = bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
        assert_eq!(n, bytes.len());
        let want = MailRules {
            skip_fields: vec!["date".into()],
            only_fields: None,
            max_field_bytes: 100,
            max_body_bytes: 200,
            max_depth: 2,
            tags: vec![TagFamily::Shape],
            routing_tags: true,
            recipient_local_parts: true,
        };
        assert_eq!(read, Source::Mail(want.clone()));
        // Written again, it is the current variant and reads back the same.
        let again = bincode::serde::encode_to_vec(&read, cfg).unwrap();
        assert_eq!(again[0], 2);
        let (back, _): (Source, usize) = bincode::serde::decode_from_slice(&again, cfg).unwrap();
        assert_eq!(back, Source::Mail(want));
        for s in [Source::Text, Source::mail()] {
            let bytes = bincode::serde::encode_to_vec(&s, cfg).unwrap();
            let (back, _): (Source, usize) =
                bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
            assert_eq!(back, s);
        }
    }
}
