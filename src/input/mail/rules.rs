//! The rules that turn a mail message into a document, as data: which header fields give
//! prefixed `field:word` features (by default every field but dates and the routing
//! fields, see [`FieldGroup`]), which families of tags are added, and where long values
//! are cut. A model trained on mail keeps its rules (in its analyzer's source), and
//! `classify`, `eval` and `learn` parse new messages under those rules, not under whatever
//! this build would choose by default.

use super::fields::{self, DATE_FIELDS, FieldGroup};
use serde::{Deserialize, Serialize};
use std::fmt;

/// How the mail reader makes a document of a message. [`Default`] is the rule set that
/// `train --spam/--ham` records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailRules {
    /// Top-level header fields (lowercase names) whose words are left out; their
    /// `hdr:NAME` tag is still added. Every other field's words become `name:word`
    /// features. By default the dates (their words are noise) and the routing fields
    /// (they describe the receiving mailbox, not the message).
    pub skip_fields: Vec<String>,
    /// When set, only these fields (lowercase names) give words, and `skip_fields` still
    /// leaves out any of them it lists; `None`: every field not in `skip_fields`.
    pub only_fields: Option<Vec<String>>,
    /// Field values longer than this many bytes are cut (at a character boundary).
    pub max_field_bytes: u32,
    /// Body text longer than this many bytes is cut.
    pub max_body_bytes: u32,
    /// How deep attached messages (`message/rfc822` parts) are followed for body text.
    pub max_depth: u8,
    /// The tag families added, in the order listed by `TagFamily::ALL`.
    pub tags: Vec<TagFamily>,
    /// Whether the routing fields ([`FieldGroup::Routing`]) give their `hdr:NAME` tags,
    /// and the `Received` fields their count (`mail:received=N`), while their words are
    /// left out. The default does not: the presence of routing fields and the number of
    /// relays describe the mailbox that collected the mail, and did not carry from one
    /// SpamAssassin collection to the next (docs/MAIL.md). Rules recorded before these
    /// two switches read as `true`.
    pub routing_tags: bool,
    /// Whether the recipients' addresses (`To`, `Cc`, `Bcc`) give the words of their
    /// local part (`to:zzzz`) beside their domain and display name. The default does
    /// not: a local part names the mailbox the mail was collected in. Rules recorded
    /// before read as `true`.
    pub recipient_local_parts: bool,
}

/// Mail rules as models of format 6 and stores of format 1 recorded them, before
/// [`MailRules::routing_tags`] and [`MailRules::recipient_local_parts`]: those models
/// added both, and go on doing so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RulesBeforeSwitches {
    skip_fields: Vec<String>,
    only_fields: Option<Vec<String>>,
    max_field_bytes: u32,
    max_body_bytes: u32,
    max_depth: u8,
    tags: Vec<TagFamily>,
}

impl From<RulesBeforeSwitches> for MailRules {
    fn from(r: RulesBeforeSwitches) -> MailRules {
        MailRules {
            skip_fields: r.skip_fields,
            only_fields: r.only_fields,
            max_field_bytes: r.max_field_bytes,
            max_body_bytes: r.max_body_bytes,
            max_depth: r.max_depth,
            tags: r.tags,
            routing_tags: true,
            recipient_local_parts: true,
        }
    }
}

impl Default for MailRules {
    /// Words from every header field but the dates and the routing fields
    /// (`FieldGroup::DEFAULT`), every tag family.
    fn default() -> Self {
        MailRules::with_groups(&FieldGroup::DEFAULT)
    }
}

impl MailRules {
    /// The default rules, with words from the header fields of `groups` only (dates never
    /// give words). While [`FieldGroup::Other`] is among them the fields of the other
    /// groups are listed in `skip_fields`; without it the fields of `groups` are listed in
    /// `only_fields`.
    pub fn with_groups(groups: &[FieldGroup]) -> MailRules {
        let mut skip_fields: Vec<String> = DATE_FIELDS.iter().map(|f| f.to_string()).collect();
        let mut only_fields = None;
        let names = |keep: bool| -> Vec<String> {
            FieldGroup::ALL
                .into_iter()
                .filter(|g| groups.contains(g) == keep)
                .flat_map(FieldGroup::fields)
                .map(|f| f.to_string())
                .collect()
        };
        if groups.contains(&FieldGroup::Other) {
            skip_fields.extend(names(false));
        } else {
            only_fields = Some(names(true));
        }
        MailRules {
            skip_fields,
            only_fields,
            max_field_bytes: 4096,
            max_body_bytes: 1 << 20,
            max_depth: 3,
            tags: TagFamily::ALL.to_vec(),
            routing_tags: false,
            recipient_local_parts: false,
        }
    }

    /// Whether the words of header field `name` (lowercase) become `name:word` features.
    pub fn keeps_field(&self, name: &str) -> bool {
        !self.skip_fields.iter().any(|f| f == name)
            && self
                .only_fields
                .as_ref()
                .is_none_or(|only| only.iter().any(|f| f == name))
    }

    #[cfg(any(feature = "mail", test))]
    /// Whether tags of `family` are added.
    pub(crate) fn tags(&self, family: TagFamily) -> bool {
        self.tags.contains(&family)
    }

    #[cfg(feature = "mail")]
    /// Whether field `name` (lowercase) gives its `hdr:NAME` tag: every field present,
    /// but a routing field whose words are left out unless [`MailRules::routing_tags`].
    pub(crate) fn tags_field(&self, name: &str) -> bool {
        self.tags(TagFamily::Headers)
            && (self.routing_tags
                || self.keeps_field(name)
                || FieldGroup::of(name) != FieldGroup::Routing)
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
    pub(crate) const ALL: [TagFamily; 6] = [
        TagFamily::Headers,
        TagFamily::Domains,
        TagFamily::Subject,
        TagFamily::Parts,
        TagFamily::Html,
        TagFamily::Shape,
    ];

    /// The family's short name, as `inspect` shows it.
    pub(crate) fn name(self) -> &'static str {
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
    /// One line: `fields except date, resent-date and the routing group (≤ 4096 B);
    /// body ≤ 1048576 B; attached messages 3 deep; tags headers, domains, …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let except = fields::describe(&self.skip_fields);
        let skip = match &self.only_fields {
            Some(only) if only.iter().all(|n| !self.keeps_field(n)) => "no fields".to_string(),
            Some(only) if self.skip_fields.iter().all(|n| !only.contains(n)) => {
                format!("only fields of {}", fields::describe(only))
            }
            Some(only) => format!("only fields of {}, except {except}", fields::describe(only)),
            None if self.skip_fields.is_empty() => "every field".to_string(),
            None => format!("fields except {except}"),
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
        )?;
        if self.routing_tags {
            f.write_str(" (routing fields' presence and hops too)")?;
        }
        if self.recipient_local_parts {
            f.write_str("; recipients' local parts")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_rules_leave_out_dates_and_routing_and_add_every_tag_family() {
        let r = MailRules::default();
        assert!(!r.keeps_field("date") && !r.keeps_field("resent-date"));
        for routing in ["received", "delivered-to", "return-path", "x-original-to"] {
            assert!(!r.keeps_field(routing), "{routing}");
        }
        for kept in [
            "subject",
            "from",
            "reply-to",
            "to",
            "message-id",
            "x-mailer",
        ] {
            assert!(r.keeps_field(kept), "{kept}");
        }
        assert_eq!(r.only_fields, None, "expressed as fields skipped");
        assert!(TagFamily::ALL.iter().all(|&t| r.tags(t)));
        assert_eq!(
            r.to_string(),
            "fields except date, resent-date and the routing group (≤ 4096 B); \
             body ≤ 1048576 B; attached messages 3 deep; \
             tags headers, domains, subject, parts, html, shape"
        );
    }

    #[test]
    fn groups_choose_the_fields_and_dates_stay_out() {
        let all = MailRules::with_groups(&FieldGroup::ALL);
        assert_eq!(all.skip_fields, DATE_FIELDS);
        assert!(all.keeps_field("received") && !all.keeps_field("date"));
        assert!(
            all.to_string()
                .starts_with("fields except date, resent-date (≤")
        );
        let r = MailRules::with_groups(&[FieldGroup::Sender, FieldGroup::Subject]);
        assert_eq!(
            r.only_fields.as_deref(),
            Some(&["from", "sender", "reply-to", "subject"].map(String::from)[..])
        );
        assert!(r.keeps_field("from") && r.keeps_field("subject"));
        for left_out in ["received", "to", "x-mailer", "date"] {
            assert!(!r.keeps_field(left_out), "{left_out}");
        }
        assert!(
            r.to_string()
                .starts_with("only fields of the sender, subject groups (≤")
        );
        let none = MailRules::with_groups(&[]);
        assert!(!none.keeps_field("subject") && !none.keeps_field("x-mailer"));
        assert!(none.to_string().starts_with("no fields (≤"));
        // A rule built by hand that lists a skipped field among the only ones says so.
        let odd = MailRules {
            only_fields: Some(vec!["subject".into(), "date".into()]),
            ..MailRules::with_groups(&FieldGroup::ALL)
        };
        assert!(
            odd.to_string().starts_with(
                "only fields of date and the subject group, except date, resent-date (≤"
            ),
            "{odd}"
        );
    }
}
