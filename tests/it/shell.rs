//! The command line in the shell: completion scripts (`completions SHELL`), the manual
//! page (`man`) as `man` renders it, and `--help` with its flags under headings.

use crate::common::{bin, stdout_of};
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// Every subcommand, as the completions and the manual must name them.
const SUBCOMMANDS: [&str; 10] = [
    "train",
    "classify",
    "eval",
    "inspect",
    "learn",
    "bench",
    "vectorize",
    "cluster-key",
    "completions",
    "man",
];

/// Prints a note (past the test harness's capture) that `what` is skipped.
fn skip(what: &str) {
    let _ = writeln!(std::io::stderr(), "note: {what}; skipping that check");
}

/// Whether `program` can be run (it answers `--version`).
fn exists(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `program ARGS…` and asserts success; its stdout.
fn run_ok(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what}: {:?}\n{err}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

/// The completion script of `shell`, written to `dir`.
fn script(dir: &Path, shell: &str) -> (std::path::PathBuf, String) {
    let text = stdout_of(bin().args(["completions", shell]));
    let path = dir.join(format!("rosenblatt.{shell}"));
    std::fs::write(&path, &text).unwrap();
    (path, text)
}

/// What bash completes for the words of `line` (the last one being completed), with the
/// script at `script` loaded, as the shell calls the completion function.
fn bash_completes(script: &Path, line: &[&str]) -> Vec<String> {
    let words: Vec<String> = line.iter().map(|w| format!("'{w}'")).collect();
    let cword = line.len() - 1;
    let prev = if cword > 0 { line[cword - 1] } else { "" };
    let program = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; \
         _rosenblatt rosenblatt '{}' '{prev}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        words.join(" "),
        line[cword],
    );
    let out = run_ok(
        Command::new("bash").arg("-c").arg(program),
        "bash completion",
    );
    out.lines().map(str::to_string).collect()
}

#[test]
fn bash_completion_script_parses_and_completes_subcommands_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let (path, text) = script(dir.path(), "bash");
    for sub in SUBCOMMANDS {
        assert!(text.contains(sub), "the bash script lacks {sub}");
    }
    run_ok(Command::new("bash").arg("-n").arg(&path), "bash -n");
    assert_eq!(bash_completes(&path, &["rosenblatt", "tr"]), ["train"]);
    assert_eq!(
        bash_completes(&path, &["rosenblatt", "cla"]),
        ["classify"],
        "the subcommand"
    );
    assert_eq!(
        bash_completes(&path, &["rosenblatt", "train", "--lea"]),
        ["--learner"]
    );
    let learners = bash_completes(&path, &["rosenblatt", "train", "--learner", "p"]);
    assert_eq!(learners, ["perceptron", "pa"], "a flag's listed values");
    let shells = bash_completes(&path, &["rosenblatt", "completions", ""]);
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        assert!(shells.iter().any(|s| s == shell), "{shell} in {shells:?}");
    }
}

#[test]
fn zsh_fish_elvish_and_powershell_scripts_name_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let (path, text) = script(dir.path(), shell);
        assert!(!text.trim().is_empty(), "{shell}: an empty script");
        for sub in SUBCOMMANDS {
            assert!(text.contains(sub), "the {shell} script lacks {sub}");
        }
        assert!(text.contains("--learner"), "{shell}: train's flags");
        let check = match shell {
            "zsh" => Some(("zsh", "-n")),
            "fish" => Some(("fish", "--no-execute")),
            _ => None,
        };
        if let Some((program, flag)) = check {
            if exists(program) {
                run_ok(Command::new(program).arg(flag).arg(&path), program);
            } else {
                skip(&format!("{program} is absent: its script is not parsed"));
            }
        }
    }
    assert!(
        stdout_of(bin().args(["completions", "zsh"])).starts_with("#compdef rosenblatt"),
        "zsh loads the script by its #compdef line"
    );
}

#[test]
fn an_unknown_shell_is_refused_with_exit_2() {
    let out = bin().args(["completions", "tcsh"]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("possible values: bash"), "{err}");
    assert!(out.get_output().stdout.is_empty());
    bin().arg("completions").assert().code(2);
}

/// The text `man` shows for the roff `page` (at 80 columns), or `None` (after a note)
/// when neither `man` nor `groff` is there to render it.
fn render(page: &str) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.1");
    std::fs::write(&file, page).unwrap();
    if exists("groff") {
        // No warning at the strictest level: the roff is well formed.
        let out = Command::new("groff")
            .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
            .arg(&file)
            .output()
            .unwrap();
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && warnings.is_empty(), "{warnings}");
    }
    let text = if exists("man") {
        // Not on a terminal, man writes plain text.
        run_ok(
            Command::new("man")
                .arg("-l")
                .arg(&file)
                .env("MANPAGER", "cat")
                .env("MANWIDTH", "80")
                .env_remove("MAN_KEEP_FORMATTING"),
            "man -l",
        )
    } else if exists("groff") {
        // -P-cbou: no bold, no underlining, no escapes.
        run_ok(
            Command::new("groff")
                .args(["-k", "-man", "-Tutf8", "-P-cbou", "-rLL=80n"])
                .arg(&file),
            "groff -man",
        )
    } else {
        skip("neither man nor groff is installed: the page is not rendered");
        return None;
    };
    // Hyphens as typeset (U+2010, U+2212) read as the ASCII ones.
    Some(text.replace(['\u{2010}', '\u{2212}'], "-"))
}

/// `text` with every run of white space as one space (man justifies its lines).
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_manual_renders_with_every_subcommand_and_its_headings() {
    let page = stdout_of(bin().arg("man"));
    assert!(page.contains("\n.TH ROSENBLATT 1 "), "{}", &page[..200]);
    let Some(text) = render(&page) else { return };
    for section in [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "SUBCOMMANDS",
        "EXIT STATUS",
    ] {
        assert!(
            text.lines().any(|l| l == section),
            "no {section} section in\n{text}"
        );
    }
    assert!(words(&text).contains("rosenblatt - "), "the NAME line");
    for sub in SUBCOMMANDS {
        let heading = format!("ROSENBLATT {}", sub.to_uppercase());
        assert!(
            text.lines().any(|l| l == heading),
            "no section for {sub} in\n{text}"
        );
        assert!(
            text.contains(&format!("rosenblatt {sub} ")),
            "no synopsis of {sub}"
        );
    }
    // train's flags, under the headings of its --help (subsections, indented 3).
    let train = &text[text.find("ROSENBLATT TRAIN").unwrap()..];
    let train = &train[..train.find("ROSENBLATT CLASSIFY").unwrap()];
    let mut at = 0;
    for (heading, flag) in TRAIN_HEADINGS {
        let h = train[at..]
            .find(&format!("\n   {heading}\n"))
            .unwrap_or_else(|| panic!("no {heading} subsection after byte {at}:\n{train}"));
        at += h;
        assert!(train[at..].contains(flag), "{flag} after {heading}");
    }
}

#[test]
fn a_subcommand_has_a_page_of_its_own() {
    let page = stdout_of(bin().args(["man", "train"]));
    assert!(
        page.contains("\n.TH ROSENBLATT-TRAIN 1 "),
        "{}",
        &page[..200]
    );
    if let Some(text) = render(&page) {
        assert!(
            words(&text).contains("rosenblatt-train - Train a model"),
            "{text}"
        );
        for section in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "INPUT",
            "LEARNER",
            "SEE ALSO",
        ] {
            assert!(
                text.lines().any(|l| l == section),
                "no {section} in\n{text}"
            );
        }
        assert!(text.contains("--learner"));
    }
    for sub in SUBCOMMANDS {
        let page = stdout_of(bin().args(["man", sub]));
        assert!(
            page.contains(&format!("\n.TH ROSENBLATT-{} 1 ", sub.to_uppercase())),
            "man {sub}"
        );
    }
    bin().args(["man", "nosuch"]).assert().code(2);
}

/// train's headings in order, each with a flag listed under it.
const TRAIN_HEADINGS: [(&str, &str); 7] = [
    ("Input", "--format"),
    ("Features", "--ngrams"),
    ("Learner", "--learner"),
    ("Evaluation", "--holdout"),
    ("Mail", "--spam"),
    ("Cluster", "--processes"),
    ("Output", "--output"),
];

/// The sections of a `--help` text: each heading (a line `Heading:`) with its lines.
fn sections(help: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in help.lines() {
        let heading = line
            .strip_suffix(':')
            .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_alphabetic() || c == ' '));
        match (heading, out.last_mut()) {
            (Some(h), _) if line.starts_with(|c: char| c.is_ascii_uppercase()) => {
                out.push((h.to_string(), String::new()))
            }
            (_, Some((_, body))) => {
                body.push_str(line);
                body.push('\n');
            }
            (_, None) => {}
        }
    }
    out
}

/// The flags (`-x`, `--long`) that start the lines of a section (indented at most 6: the
/// lines of their help are indented further).
fn flags_of(body: &str) -> Vec<String> {
    body.lines()
        .map(str::trim_end)
        .filter(|l| l.len() - l.trim_start().len() <= 6)
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .flat_map(|l| {
            l.split([' ', ','])
                .take_while(|w| w.starts_with('-') || w.is_empty())
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn train_help_lists_every_flag_under_its_heading() {
    for help_flag in ["--help", "-h"] {
        let help = stdout_of(bin().args(["train", help_flag]));
        let sections = sections(&help);
        let names: Vec<&str> = sections.iter().map(|(h, _)| h.as_str()).collect();
        let mut expected = vec!["Options"];
        expected.extend(TRAIN_HEADINGS.iter().map(|(h, _)| *h));
        assert_eq!(names, expected, "{help_flag}");
        let flags = |heading: &str| {
            let (_, body) = sections.iter().find(|(h, _)| h == heading).unwrap();
            flags_of(body)
        };
        // Nothing but -h/--help is left out of the headings.
        assert_eq!(flags("Options"), ["-h", "--help"], "{help_flag}");
        for (heading, flag) in TRAIN_HEADINGS {
            assert!(
                flags(heading).iter().any(|f| f == flag),
                "{help_flag}: {flag} is not under {heading}: {:?}",
                flags(heading)
            );
        }
        let input = &sections.iter().find(|(h, _)| h == "Input").unwrap().1;
        assert!(input.trim_start().starts_with("[INPUTS]..."), "{input}");
        assert!(flags("Output").contains(&"-o".to_string()));
        assert!(flags("Mail").contains(&"--header-fields".to_string()));
        assert!(flags("Cluster").contains(&"--workers".to_string()));
        assert!(flags("Evaluation").contains(&"--tune".to_string()));
        assert!(flags("Features").contains(&"--hash-bits".to_string()));
        let all: usize = sections.iter().map(|(_, b)| flags_of(b).len()).sum();
        assert!(all > 60, "{all} flags listed");
    }
}

#[test]
fn the_other_long_helps_have_headings_too() {
    let cases: [(&str, &[&str]); 5] = [
        (
            "eval",
            &[
                "Options",
                "Input",
                "Mail",
                "Evaluation",
                "Learner",
                "Features",
                "Cluster",
                "Output",
            ],
        ),
        (
            "classify",
            &["Options", "Input", "Mail", "Cluster", "Output"],
        ),
        (
            "vectorize",
            &["Options", "Input", "Features", "Mail", "Output"],
        ),
        ("bench", &["Options", "Input", "Learner", "Output"]),
        ("inspect", &["Options", "Input", "Output"]),
    ];
    for (sub, expected) in cases {
        let help = stdout_of(bin().args([sub, "--help"]));
        let sections = sections(&help);
        let names: Vec<&str> = sections.iter().map(|(h, _)| h.as_str()).collect();
        assert_eq!(names, expected, "{sub}");
        assert_eq!(flags_of(&sections[0].1), ["-h", "--help"], "{sub}");
    }
}

/// Runs `rosenblatt ARGS…` with a stdout pipe whose reader is closed before it writes,
/// and asserts a quiet, successful end.
fn quiet_on_closed_pipe(args: &[&str]) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "{args:?}: {err}");
    assert!(out.status.success(), "{args:?}: {:?}", out.status);
}

#[test]
fn completions_and_man_end_quietly_on_a_closed_pipe() {
    quiet_on_closed_pipe(&["completions", "bash"]);
    quiet_on_closed_pipe(&["completions", "zsh"]);
    quiet_on_closed_pipe(&["man"]);
    quiet_on_closed_pipe(&["man", "train"]);
}
