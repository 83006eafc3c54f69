//! `rosenblatt man [SUBCOMMAND]`: the manual page in roff, on stdout. The whole manual,
//! rosenblatt(1), gives the synopsis of every subcommand, the program's options, the list
//! of subcommands, then a section for each (its usage, what it does, its flags under the
//! headings of its `--help`, its notes) and the exit status. `man SUBCOMMAND` prints
//! rosenblatt-SUBCOMMAND(1), that subcommand's page of its own, for installing beside it.

use crate::flags::ManPlan;
use anyhow::{Context, Result};
use clap::Command;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};
use std::io::Write as _;
use std::process::ExitCode;

/// Runs `man`.
pub fn run(p: ManPlan) -> Result<ExitCode> {
    let page = match &p.subcommand {
        None => manual(&p.command)?,
        Some(name) => own_page(&p.command, name)?,
    };
    let page = preamble_once(String::from_utf8(page)?);
    let mut out = crate::stdout::lock();
    out.write_all(page.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The page with roff's preamble (how to set apostrophes), which starts every piece that
/// clap_mangen and roff render, once at its top.
fn preamble_once(page: String) -> String {
    let preamble = Roff::new().render();
    format!("{preamble}{}", page.replace(&preamble, ""))
}

/// The exit status, as the manual states it.
const EXIT_STATUS: [(&str, &str); 4] = [
    ("0", "Success."),
    (
        "1",
        "An error, with a message saying what is wrong: the file and line, or the flags \
         that do not go together.",
    ),
    (
        "2",
        "A usage error: an unknown flag or value, a missing one.",
    ),
    (
        "3",
        "An error or a usage error of classify and learn: classify with a spam filter exits \
         0 for spam, 1 for ham and 2 for unsure, as bogofilter does.",
    ),
];

/// The subcommands the manual describes, with their pages' names set: everything but
/// clap's `help`, and without `-h`/`--help` (the manual says once that every subcommand
/// takes them).
fn subcommands(program: &Command) -> Vec<Command> {
    let name = program.get_name();
    program
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(|s| {
            s.clone()
                .bin_name(format!("{name} {}", s.get_name()))
                .display_name(format!("{name}-{}", s.get_name()))
                .disable_help_flag(true)
        })
        .collect()
}

/// The `.TH` source field: the program and its version.
fn source(program: &Command) -> String {
    format!(
        "{} {}",
        program.get_name(),
        program.get_version().unwrap_or_default()
    )
}

/// rosenblatt(1): the program and every subcommand.
fn manual(program: &Command) -> Result<Vec<u8>> {
    let name = program.get_name();
    let subs = subcommands(program);
    let man = Man::new(program.clone().disable_help_subcommand(true))
        .title(name.to_uppercase())
        .source(source(program));
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;

    let mut roff = Roff::new();
    roff.control("SH", ["SYNOPSIS"]).control("nf", []);
    for sub in &subs {
        roff.text(usage(sub));
    }
    roff.text([
        bold(name),
        roman(" ["),
        bold("-h"),
        roman("|"),
        bold("--help"),
        roman("] ["),
        bold("-V"),
        roman("|"),
        bold("--version"),
        roman("]"),
    ]);
    roff.control("fi", []);
    roff.to_writer(&mut page)?;

    man.render_description_section(&mut page)?;
    let mut roff = Roff::new();
    roff.control("PP", []).text([roman(format!(
        "Each subcommand is described below in a section of its own, with its flags under \
         the headings of its --help. Every subcommand explains itself with -h (a summary) \
         and --help (in full); \"{name} man SUBCOMMAND\" prints one subcommand's section as \
         a page of its own, {name}-SUBCOMMAND(1)."
    ))]);
    roff.to_writer(&mut page)?;
    man.render_options_section(&mut page)?;

    let mut roff = Roff::new();
    roff.control("SH", ["SUBCOMMANDS"]);
    for sub in &subs {
        roff.control("TP", []).text([bold(sub.get_name())]);
        if let Some(about) = sub.get_about() {
            roff.text([roman(about.to_string())]);
        }
    }
    roff.to_writer(&mut page)?;

    for sub in &subs {
        section(&mut page, sub)?;
    }

    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in EXIT_STATUS {
        roff.control("TP", [])
            .text([bold(code)])
            .text([roman(meaning)]);
    }
    roff.to_writer(&mut page)?;
    man.render_version_section(&mut page)?;
    Ok(page)
}

/// A subcommand's section in the whole manual: usage, description, its flags by heading
/// (each heading a subsection) and its notes.
fn section(page: &mut Vec<u8>, sub: &Command) -> Result<()> {
    let name = sub.get_bin_name().context("subcommands are named")?;
    let man = Man::new(sub.clone());
    let mut roff = Roff::new();
    roff.control("SH", [name.to_uppercase().as_str()]);
    roff.text(usage(sub));
    description(&mut roff, sub);
    roff.to_writer(page)?;
    let mut options = Vec::new();
    man.render_options_section(&mut options)?;
    page.extend_from_slice(subsections(&String::from_utf8(options)?).as_bytes());
    notes(sub).to_writer(page)?;
    Ok(())
}

/// rosenblatt-SUBCOMMAND(1): one subcommand's page of its own, as clap_mangen renders a
/// command (with its full synopsis and a section for each heading of its flags).
fn own_page(program: &Command, name: &str) -> Result<Vec<u8>> {
    let sub = subcommands(program)
        .into_iter()
        .find(|s| s.get_name() == name)
        .with_context(|| format!("no subcommand {name:?}"))?;
    let man = Man::new(sub.clone())
        .title(sub.get_display_name().unwrap_or(name).to_uppercase())
        .source(source(program));
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    let mut roff = Roff::new();
    roff.control("SH", ["DESCRIPTION"]);
    description(&mut roff, &sub);
    roff.to_writer(&mut page)?;
    man.render_options_section(&mut page)?;
    if sub.get_after_help().is_some() {
        let mut roff = Roff::new();
        roff.control("SH", ["NOTES"]);
        roff.to_writer(&mut page)?;
        notes(&sub).to_writer(&mut page)?;
    }
    let mut roff = Roff::new();
    roff.control("SH", ["SEE ALSO"]).text([
        bold(program.get_name()),
        roman("(1), the whole manual: "),
        bold(format!("{} man", program.get_name())),
        roman("."),
    ]);
    roff.to_writer(&mut page)?;
    Ok(page)
}

/// A subcommand's usage line as its `--help` gives it, the command in bold.
fn usage(sub: &Command) -> Vec<clap_mangen::roff::Inline> {
    let name = sub.get_bin_name().unwrap_or(sub.get_name()).to_string();
    let usage = sub.clone().render_usage().to_string();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage);
    match usage.strip_prefix(name.as_str()) {
        Some(rest) => vec![bold(name), roman(rest.to_string())],
        None => vec![roman(usage.to_string())],
    }
}

/// What a subcommand does: its long description, paragraph by paragraph.
fn description(roff: &mut Roff, sub: &Command) {
    let Some(about) = sub.get_long_about().or(sub.get_about()) else {
        return;
    };
    for paragraph in about.to_string().split("\n\n") {
        roff.control("PP", [])
            .text([roman(paragraph.replace('\n', " "))]);
    }
}

/// The notes after a subcommand's flags (its help's closing text): paragraphs, and its
/// indented lines (commands to type) indented, a line each.
fn notes(sub: &Command) -> Roff {
    let mut roff = Roff::new();
    let Some(after) = sub.get_after_help() else {
        return roff;
    };
    let after = after.to_string();
    let indented = |l: &&str| l.starts_with(' ');
    let mut lines = after.lines().peekable();
    while let Some(first) = lines.next() {
        if indented(&first) {
            roff.control("RS", ["4"]).control("nf", []);
            roff.text([bold(first.trim_start())]);
            while let Some(l) = lines.next_if(indented) {
                roff.text([bold(l.trim_start())]);
            }
            roff.control("fi", []).control("RE", []);
        } else {
            roff.control("PP", []).text([roman(first)]);
            while let Some(l) = lines.next_if(|l| !indented(l)) {
                roff.text([roman(l)]);
            }
        }
    }
    roff
}

/// clap_mangen's sections of a command's flags (`.SH INPUT` …) as subsections of the
/// subcommand's section (`.SS Input` …).
fn subsections(options: &str) -> String {
    let mut out = String::with_capacity(options.len());
    for line in options.lines() {
        match line.strip_prefix(".SH ") {
            Some(heading) => {
                let lower = heading.to_lowercase();
                let mut chars = lower.chars();
                let title: String = chars
                    .next()
                    .map(|c| c.to_uppercase().chain(chars).collect())
                    .unwrap_or_default();
                out.push_str(".SS ");
                out.push_str(&title);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}
