//! `--header-fields`: which header fields of a message give words to a new spam filter,
//! by group (routing, sender, recipients, subject, other). The choice becomes the filter's
//! mail rules, recorded in the model, so `classify`, `eval` and `learn` read messages the
//! same way.

use anyhow::{Result, bail};
use clap::Args;
use rosenblatt::input::mail::{DATE_FIELDS, FieldGroup, MailRules};
use rosenblatt::text::Analyzer;
use std::path::Path;

/// The flag's name, for error messages.
const FLAG: &str = "--header-fields";

/// Which header fields give words, for the filters `train --spam/--ham` and
/// `eval --online` make.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Mail")]
pub struct MailFieldArgs {
    /// Mail: the header fields whose words become features in a new filter, by group (a
    /// comma list of routing, sender, recipients, subject, other; or all, or none)
    /// [default: sender,recipients,subject,other]
    #[arg(
        long,
        value_name = "GROUPS",
        value_parser = parse_groups,
        long_help = long_help()
    )]
    pub header_fields: Option<Groups>,
    /// Mail: read only the first BYTES of each message's body text (header fields are
    /// cut at 4096 bytes each) [default: all of it for train; the online filter's own for
    /// eval --online]. Recorded in the model.
    #[arg(long, value_name = "BYTES", value_parser = super::names::whole(0u32), allow_negative_numbers = true)]
    pub truncate: Option<u32>,
}

/// The groups `--header-fields` named, in [`FieldGroup::ALL`] order, without repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups(pub Vec<FieldGroup>);

impl MailFieldArgs {
    /// The mail rules for these flags over `default` (the rules of the analyzer the input
    /// gets without flags): its field groups unless `--header-fields` is given, its body
    /// length unless `--truncate` is.
    pub fn rules(&self, default: &MailRules) -> MailRules {
        let mut r = default.clone();
        if let Some(Groups(g)) = &self.header_fields {
            let fields = MailRules::with_groups(g);
            (r.skip_fields, r.only_fields) = (fields.skip_fields, fields.only_fields);
        }
        if let Some(t) = self.truncate {
            r.max_body_bytes = t;
        }
        r
    }

    /// Whether either flag was given.
    fn is_set(&self) -> bool {
        self.header_fields.is_some() || self.truncate.is_some()
    }

    /// The rules of a filter trained on mail over `default`'s rules, or an error when a
    /// flag was given for input that is not mail.
    pub fn rules_for(&self, mail: bool, default: &Analyzer) -> Result<Option<MailRules>> {
        if !mail && self.is_set() {
            bail!("{FLAG} and --truncate apply to mail: give --spam PATH... --ham PATH...");
        }
        Ok(default.source().mail_rules().map(|r| self.rules(r)))
    }

    /// The rules of the empty filter `eval --online` starts from (over `default`'s), or an
    /// error when a saved model (`model`) is used instead: it reads mail under the rules
    /// it recorded.
    pub fn rules_for_new(&self, model: Option<&Path>, default: &MailRules) -> Result<MailRules> {
        if let (Some(p), true) = (model, self.is_set()) {
            bail!(
                "{FLAG} and --truncate choose how a new filter reads mail (train, or eval \
                 --online without --model); {} reads mail under the rules it was trained with",
                p.display()
            );
        }
        Ok(self.rules(default))
    }
}

/// Parses `all`, `none` or a comma list of group names.
fn parse_groups(s: &str) -> std::result::Result<Groups, String> {
    let s = s.trim();
    match s {
        "all" => return Ok(Groups(FieldGroup::ALL.to_vec())),
        "none" => return Ok(Groups(Vec::new())),
        "" => return Err("give group names, `all` or `none`".into()),
        _ => {}
    }
    let mut groups = Vec::new();
    for name in s.split(',').map(str::trim) {
        match FieldGroup::from_name(name) {
            Some(g) => groups.push(g),
            None if name == "all" || name == "none" => {
                return Err(format!("`{name}` stands alone, not in a list"));
            }
            None => {
                let names: Vec<&str> = FieldGroup::ALL.iter().map(|g| g.name()).collect();
                return Err(format!(
                    "no field group `{name}`: the groups are {}, or all, or none",
                    names.join(", ")
                ));
            }
        }
    }
    groups.sort_unstable();
    groups.dedup();
    Ok(Groups(groups))
}

/// What each group holds.
fn about(g: FieldGroup) -> &'static str {
    match g {
        FieldGroup::Routing => {
            "added on the way and on delivery: trace, envelope and delivery-address fields, \
             and the state a mailbox keeps in the header"
        }
        FieldGroup::Sender => "who sent the message",
        FieldGroup::Recipients => "who it is addressed to",
        FieldGroup::Subject => "the subject line",
        FieldGroup::Other => {
            "every field in no other group: message-id, content-type, x-mailer, list-id, …"
        }
    }
}

/// `--help`'s text for the flag: every group with its fields, from the library's lists.
fn long_help() -> String {
    let mut h = String::from(
        "Mail: the header fields whose words become `field:word` features in a new filter \
         (train --spam/--ham, eval --online without --model), by group: a comma list of \
         groups, or `all`, or `none` (no header words). Recorded in the model; `classify`, \
         `eval` and `learn` read mail the same way.\n",
    );
    for g in FieldGroup::ALL {
        h.push_str(&format!("\n  {:<11} {}", g.name(), about(g)));
        if !g.fields().is_empty() {
            h.push_str(&format!(": {}", g.fields().join(", ")));
        }
    }
    h.push_str(&format!(
        "\n\nDates ({}) never give words. Whatever the groups, every field present gives its \
         `hdr:NAME` tag and the `mail:received=N` tag counts the Received fields.\n\n\
         [default: sender,recipients,subject,other — routing fields describe the relays and \
         the mailbox that received the mail, not the message, and do not carry to another \
         mailbox]",
        DATE_FIELDS.join(", ")
    ));
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_parse_in_order_without_repeats() {
        assert_eq!(
            parse_groups("subject, sender,subject").unwrap(),
            Groups(vec![FieldGroup::Sender, FieldGroup::Subject])
        );
        assert_eq!(parse_groups("all").unwrap().0, FieldGroup::ALL);
        assert_eq!(parse_groups("none").unwrap().0, []);
    }

    #[test]
    fn bad_group_names_say_which_groups_there_are() {
        let e = parse_groups("sender,headers").unwrap_err();
        assert!(e.contains("`headers`"), "{e}");
        assert!(
            e.contains("routing, sender, recipients, subject, other"),
            "{e}"
        );
        assert!(
            parse_groups("all,routing")
                .unwrap_err()
                .contains("stands alone")
        );
        assert!(parse_groups("").is_err());
        assert!(
            parse_groups("sender,").is_err(),
            "an empty name is no group"
        );
    }

    #[test]
    fn no_flag_is_the_library_default_and_all_keeps_routing() {
        let d = MailRules::default();
        let none = MailFieldArgs::default();
        assert_eq!(none.rules(&d), d);
        let all = MailFieldArgs {
            header_fields: Some(parse_groups("all").unwrap()),
            truncate: Some(1000),
        };
        let r = all.rules(&d);
        assert!(r.keeps_field("received"));
        assert_eq!(
            (r.max_body_bytes, r.max_field_bytes),
            (1000, d.max_field_bytes)
        );
        let text = Analyzer::default();
        assert!(all.rules_for(false, &text).is_err());
        assert_eq!(none.rules_for(false, &text).unwrap(), None);
        assert!(all.rules_for_new(Some(Path::new("f.model")), &d).is_err());
        assert!(none.rules_for_new(Some(Path::new("f.model")), &d).is_ok());
    }

    #[test]
    fn the_long_help_lists_every_group_and_its_fields() {
        let h = long_help();
        for g in FieldGroup::ALL {
            assert!(h.contains(&format!("\n  {:<11} ", g.name())), "{h}");
            assert!(g.fields().iter().all(|f| h.contains(f)), "{h}");
        }
    }
}
