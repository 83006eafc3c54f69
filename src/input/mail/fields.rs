//! Groups of top-level header fields, for choosing which fields give words: the routing
//! fields a message gathers on its way and on delivery, the sender's, the recipients',
//! the subject, and every other field. [`MailRules`](super::MailRules) record the field
//! names themselves, so a model keeps the fields it was trained with even if a group's
//! list grows later.
//!
//! The default leaves the routing fields' words out. They describe the receiving side —
//! which relays and which mailbox took the message — more than the message: in the
//! SpamAssassin corpus the strongest features of a filter trained on every field are the
//! collectors' own hosts and mailbox names (`received:zzzzason.org`, `delivered-to:zzzz`
//! for spam, `delivered-to:yyyy` for ham), which say nothing about mail delivered
//! elsewhere. Trained on one SpamAssassin set and tested on another, a filter without
//! them ranks and classifies better in both directions.

use std::fmt;

/// Fields whose words are always left out: their values are dates, whose words are noise.
pub const DATE_FIELDS: [&str; 2] = ["date", "resent-date"];

/// The field `classify --passthrough` adds with its verdict (`X-Rosenblatt: spam; …`).
/// A message never gives features from it, whatever the rules: mail delivered through the
/// filter carries it, so a filter trained or taught on delivered mail would learn its own
/// past verdicts, and a sender could forge one to sway the score.
pub const VERDICT_FIELD: &str = "X-Rosenblatt";

/// A group of header fields, by where the field comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FieldGroup {
    /// Added on the way and on delivery: trace fields (`Received`), the envelope and the
    /// delivery address (`Return-Path`, `Delivered-To`, `X-Original-To`, …), and the state
    /// a mailbox keeps in the header (`Status`, `X-Keywords`, `Lines`, …).
    Routing,
    /// Who sent it: `From`, `Sender`, `Reply-To`.
    Sender,
    /// Who it is addressed to: `To`, `Cc`, `Bcc`.
    Recipients,
    /// `Subject`.
    Subject,
    /// Every field in no other group (`Message-ID`, `Content-Type`, `X-Mailer`, `List-Id`,
    /// …), dates aside.
    Other,
}

/// The routing fields (lowercase).
const ROUTING: &[&str] = &[
    "received",
    "return-path",
    "delivered-to",
    "x-original-to",
    "envelope-to",
    "x-envelope-to",
    "x-envelope-from",
    "x-envelope-info",
    "x-delivered-to",
    "delivery-date",
    "apparently-to",
    "x-apparently-to",
    "x-originalarrivaltime",
    "x-received",
    "x-rcpt-to",
    "status",
    "x-status",
    "x-keywords",
    "x-uid",
    "x-uidl",
    "lines",
    "content-length",
];

impl FieldGroup {
    /// Every group, in order.
    pub const ALL: [FieldGroup; 5] = [
        FieldGroup::Routing,
        FieldGroup::Sender,
        FieldGroup::Recipients,
        FieldGroup::Subject,
        FieldGroup::Other,
    ];

    /// The groups whose words the default rules keep: all but routing.
    pub(crate) const DEFAULT: [FieldGroup; 4] = [
        FieldGroup::Sender,
        FieldGroup::Recipients,
        FieldGroup::Subject,
        FieldGroup::Other,
    ];

    /// The group's name, as `--header-fields` takes it.
    pub fn name(self) -> &'static str {
        match self {
            FieldGroup::Routing => "routing",
            FieldGroup::Sender => "sender",
            FieldGroup::Recipients => "recipients",
            FieldGroup::Subject => "subject",
            FieldGroup::Other => "other",
        }
    }

    /// The group named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<FieldGroup> {
        FieldGroup::ALL.into_iter().find(|g| g.name() == name)
    }

    /// The group's field names (lowercase); empty for [`FieldGroup::Other`], which is
    /// every field named by no group.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            FieldGroup::Routing => ROUTING,
            FieldGroup::Sender => &["from", "sender", "reply-to"],
            FieldGroup::Recipients => &["to", "cc", "bcc"],
            FieldGroup::Subject => &["subject"],
            FieldGroup::Other => &[],
        }
    }

    #[cfg(any(feature = "mail", test))]
    /// The group of field `name` (lowercase).
    pub(crate) fn of(name: &str) -> FieldGroup {
        FieldGroup::ALL
            .into_iter()
            .find(|g| g.fields().contains(&name))
            .unwrap_or(FieldGroup::Other)
    }
}

impl fmt::Display for FieldGroup {
    /// The group's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `names` for a person to read: the names of any group they hold whole are replaced by
/// `the NAME group`, the rest listed as they come. `field a, b and the routing group`.
pub(super) fn describe(names: &[String]) -> String {
    let whole: Vec<FieldGroup> = FieldGroup::ALL
        .into_iter()
        .filter(|g| !g.fields().is_empty())
        .filter(|g| g.fields().iter().all(|f| names.iter().any(|n| n == f)))
        .collect();
    let loose: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !whole.iter().any(|g| g.fields().contains(n)))
        .collect();
    let groups = match whole.as_slice() {
        [] => String::new(),
        [g] => format!("the {g} group"),
        gs => {
            let gs: Vec<&str> = gs.iter().map(|g| g.name()).collect();
            format!("the {} groups", gs.join(", "))
        }
    };
    match (loose.is_empty(), groups.is_empty()) {
        (_, true) => loose.join(", "),
        (true, false) => groups,
        (false, false) => format!("{} and {groups}", loose.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_field_is_in_one_group_and_names_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for g in FieldGroup::ALL {
            assert_eq!(FieldGroup::from_name(g.name()), Some(g));
            for f in g.fields() {
                assert!(seen.insert(*f), "{f} is in two groups");
                assert_eq!(FieldGroup::of(f), g);
                assert_eq!(*f, f.to_ascii_lowercase());
            }
        }
        assert_eq!(FieldGroup::of("x-mailer"), FieldGroup::Other);
        assert_eq!(FieldGroup::from_name("Routing"), None);
        assert!(
            DATE_FIELDS
                .iter()
                .all(|d| FieldGroup::of(d) == FieldGroup::Other)
        );
    }

    #[test]
    fn whole_groups_are_named_and_loose_fields_listed() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut skip = names(&DATE_FIELDS);
        skip.extend(names(FieldGroup::Routing.fields()));
        assert_eq!(describe(&skip), "date, resent-date and the routing group");
        let mut only = names(FieldGroup::Sender.fields());
        only.push("subject".into());
        assert_eq!(describe(&only), "the sender, subject groups");
        // A group missing one field is not named.
        assert_eq!(describe(&names(&["from", "sender"])), "from, sender");
        assert_eq!(describe(&[]), "");
    }
}
