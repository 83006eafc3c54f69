//! The rules that turn a mail message into a document, as data: which header fields give
//! prefixed `field:word` features, which families of tags are added, and where long
//! values are cut. A model trained on mail keeps its rules (in its analyzer's source), and
//! `classify`, `eval` and `learn` parse new messages under those rules, not under whatever
//! this build would choose by default.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How the mail reader makes a document of a message. [`Default`] is the rule set that
/// `train --spam/--ham` records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailRules {
    /// Top-level header fields (lowercase names) whose words are left out; their
    /// `hdr:NAME` tag is still added. Every other field's words become `name:word`
    /// features. Dates by default: their words are noise.
    pub skip_fields: Vec<String>,
    /// Field values longer than this many bytes are cut (at a character boundary).
    pub max_field_bytes: u32,
    /// Body text longer than this many bytes is cut.
    pub max_body_bytes: u32,
    /// How deep attached messages (`message/rfc822` parts) are followed for body text.
    pub max_depth: u8,
    /// The tag families added, in the order listed by [`TagFamily::ALL`].
    pub tags: Vec<TagFamily>,
}

impl Default for MailRules {
    fn default() -> Self {
        MailRules {
            skip_fields: vec!["date".into(), "resent-date".into()],
            max_field_bytes: 4096,
            max_body_bytes: 1 << 20,
            max_depth: 3,
            tags: TagFamily::ALL.to_vec(),
        }
    }
}

impl MailRules {
    /// Whether the words of header field `name` (lowercase) become `name:word` features.
    pub fn keeps_field(&self, name: &str) -> bool {
        !self.skip_fields.iter().any(|f| f == name)
    }

    /// Whether tags of `family` are added.
    pub fn tags(&self, family: TagFamily) -> bool {
        self.tags.contains(&family)
    }
}

/// A family of literal tags the mail reader can add beside the words. Messages that do
/// not parse as mail are always tagged `mail:unparsed` (and `mail:empty` when empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TagFamily {
    /// `hdr:NAME` for each top-level header field present.
    Headers,
    /// `from_domain:…`, `to_domain:…`, `reply_to_domain:…` from address fields.
    Domains,
    /// `mail:no_subject`, `mail:subject_allcaps`, `mail:subject_exclaim`.
    Subject,
    /// Per part: `mime:TYPE`, `charset:…`, `cte:…`, `attach:TYPE`, `attach_ext:EXT`,
    /// `mail:encoding_problem`.
    Parts,
    /// `html:TAG` for tags used and `url:HOST` for link and image hosts of HTML parts.
    Html,
    /// The message's shape: `mail:parts=N`, `mail:attachments=N`, `mail:html_only`,
    /// `mail:no_body_text`, `mail:received=N`, `mail:size=2^K`.
    Shape,
}

impl TagFamily {
    /// Every family, in order.
    pub const ALL: [TagFamily; 6] = [
        TagFamily::Headers,
        TagFamily::Domains,
        TagFamily::Subject,
        TagFamily::Parts,
        TagFamily::Html,
        TagFamily::Shape,
    ];

    /// The family's short name, as `inspect` shows it.
    pub fn name(self) -> &'static str {
        match self {
            TagFamily::Headers => "headers",
            TagFamily::Domains => "domains",
            TagFamily::Subject => "subject",
            TagFamily::Parts => "parts",
            TagFamily::Html => "html",
            TagFamily::Shape => "shape",
        }
    }
}

impl fmt::Display for MailRules {
    /// One line: `fields except date, resent-date (≤ 4096 B); body ≤ 1048576 B;
    /// attached messages 3 deep; tags headers, domains, …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let skip = if self.skip_fields.is_empty() {
            "every field".to_string()
        } else {
            format!("fields except {}", self.skip_fields.join(", "))
        };
        let tags: Vec<&str> = self.tags.iter().map(|t| t.name()).collect();
        let tags = if tags.is_empty() {
            "none".to_string()
        } else {
            tags.join(", ")
        };
        write!(
            f,
            "{skip} (≤ {} B); body ≤ {} B; attached messages {} deep; tags {tags}",
            self.max_field_bytes, self.max_body_bytes, self.max_depth
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_rules_leave_out_dates_and_add_every_tag_family() {
        let r = MailRules::default();
        assert!(!r.keeps_field("date") && !r.keeps_field("resent-date"));
        assert!(r.keeps_field("subject") && r.keeps_field("received"));
        assert!(TagFamily::ALL.iter().all(|&t| r.tags(t)));
        assert_eq!(
            r.to_string(),
            "fields except date, resent-date (≤ 4096 B); body ≤ 1048576 B; \
             attached messages 3 deep; tags headers, domains, subject, parts, html, shape"
        );
    }
}
