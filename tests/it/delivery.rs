//! Real delivery agents end to end: Debian's procmail and maildrop deliver messages
//! through the recipes docs/MAIL.md prints (read from the file, with the program's path
//! put in) into real Maildirs, with the filter kept in a store as docs/MAIL.md advises
//! (`rosenblatt convert`). Spam lands in the spam folder with the `X-Rosenblatt`
//! header and ham in the inbox; a filter that fails loses nothing; the retraining script
//! learns a message moved into the spam folder, once. Skipped with a note where an agent
//! is not installed (`.ci/run` installs both).

use crate::common::{bin, corpus_and_filter, stdout_of};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The agent on PATH, or `None` with a note.
fn agent(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        eprintln!("note: {name} is not installed; its delivery test is skipped");
    }
    found
}

/// The fenced block that follows `heading` in docs/MAIL.md.
fn block(heading: &str) -> String {
    let doc =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/MAIL.md")).unwrap();
    let after = &doc[doc.find(heading).expect(heading)..];
    let block = after.split("```").nth(1).unwrap();
    block.split_once('\n').unwrap().1.to_string()
}

/// A recipe of docs/MAIL.md for `home`: the agents take `$HOME` from the password
/// database, not from the environment, so the test's home is written in.
fn recipe(heading: &str, home: &Path) -> String {
    block(heading).replace("$HOME", &home.display().to_string())
}

/// A home with the filter in the store `.spam.store`, an inbox and a spam folder, and the training
/// messages (which the filter classifies as their class).
struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    spam: Vec<PathBuf>,
    ham: Vec<PathBuf>,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let (corpus, model) = corpus_and_filter(dir.path());
        for d in ["Maildir", "Maildir/.Spam"] {
            for sub in ["cur", "new", "tmp"] {
                fs::create_dir_all(home.join(d).join(sub)).unwrap();
            }
        }
        let store = home.join(".spam.store");
        crate::serve_support::converted(&model, &store);
        let pick = |class: &str| {
            (0..4)
                .map(|i| corpus.join(class).join(format!("{i}.eml")))
                .collect()
        };
        Home {
            spam: pick("spam"),
            ham: pick("ham"),
            home,
            _dir: dir,
        }
    }

    /// The messages delivered to `folder` ("Maildir" or "Maildir/.Spam").
    fn delivered(&self, folder: &str) -> Vec<String> {
        let mut out: Vec<String> = fs::read_dir(self.home.join(folder).join("new"))
            .unwrap()
            .map(|e| String::from_utf8_lossy(&fs::read(e.unwrap().path()).unwrap()).into_owned())
            .collect();
        out.sort();
        out
    }

    /// Runs `program args` as a delivery agent would, with `message` on stdin.
    fn deliver(&self, program: &Path, args: &[&Path], message: &Path) {
        let status = Command::new(program)
            .args(args)
            .env("HOME", &self.home)
            .stdin(fs::File::open(message).unwrap())
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{} exited {}: {}",
            program.display(),
            status.status,
            String::from_utf8_lossy(&status.stderr)
        );
    }
}

fn program() -> PathBuf {
    assert_cmd::cargo::cargo_bin("rosenblatt")
}

fn procmailrc(h: &Home) -> PathBuf {
    let bin_dir = program().parent().unwrap().to_path_buf();
    let rc = recipe("procmail (`~/.procmailrc`", &h.home).replace(
        &format!("PATH={}/.cargo/bin:", h.home.display()),
        &format!("PATH={}:", bin_dir.display()),
    );
    let path = h.home.join(".procmailrc");
    fs::write(&path, rc).unwrap();
    path
}

fn mailfilter(h: &Home) -> PathBuf {
    let rc = recipe("maildrop (`~/.mailfilter`)", &h.home).replace(
        "xfilter \"rosenblatt ",
        &format!("xfilter \"{} ", program().display()),
    );
    let path = h.home.join(".mailfilter");
    fs::write(&path, rc).unwrap();
    // maildrop refuses a filter file others may write.
    fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    path
}

/// Each message lands in its folder with the verdict in the header and its body intact.
fn check_sorted(h: &Home) {
    let spam = h.delivered("Maildir/.Spam");
    let inbox = h.delivered("Maildir");
    assert_eq!((spam.len(), inbox.len()), (4, 4));
    assert!(
        spam.iter()
            .all(|m| m.contains("\nX-Rosenblatt: spam; score=")),
        "{spam:?}"
    );
    assert!(
        inbox
            .iter()
            .all(|m| m.contains("\nX-Rosenblatt: ham; score="))
    );
    for (folder, sent) in [(&spam, &h.spam), (&inbox, &h.ham)] {
        for m in sent {
            let original = String::from_utf8_lossy(&fs::read(m).unwrap()).into_owned();
            let body = original.split_once("\n\n").map_or("", |(_, b)| b);
            assert!(
                folder.iter().any(|d| d.ends_with(body)),
                "{} lost its body",
                m.display()
            );
        }
    }
}

/// With the model gone the filter fails; the agent delivers the message as it came.
fn check_failure_keeps(h: &Home, deliver: impl Fn(&Path)) {
    fs::rename(h.home.join(".spam.store"), h.home.join("gone.store")).unwrap();
    let before = h.delivered("Maildir").len();
    deliver(&h.spam[0]);
    let inbox = h.delivered("Maildir");
    assert_eq!(inbox.len(), before + 1);
    let original = String::from_utf8_lossy(&fs::read(&h.spam[0]).unwrap()).into_owned();
    // The agents take the mbox `From ` line as the envelope and may trim trailing blank
    // lines; the rest arrives as sent.
    let sent = match original.strip_prefix("From ") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, m)| m),
        None => &original,
    };
    assert!(
        inbox
            .iter()
            .any(|m| m.trim_end().ends_with(sent.trim_end()) && !m.contains("X-Rosenblatt")),
        "the message was not kept whole"
    );
    fs::rename(h.home.join("gone.store"), h.home.join(".spam.store")).unwrap();
}

/// Delivers every message through the agent `name`, run with `args` of the rc file that
/// `recipe` writes, then checks the folders and a failing filter.
fn sorts_through(name: &str, recipe: fn(&Home) -> PathBuf, args: fn(&Path) -> Vec<PathBuf>) {
    let Some(program) = agent(name) else {
        return;
    };
    let h = Home::new();
    let args = args(&recipe(&h));
    let refs: Vec<&Path> = args.iter().map(PathBuf::as_path).collect();
    for m in h.spam.iter().chain(&h.ham) {
        h.deliver(&program, &refs, m);
    }
    check_sorted(&h);
    check_failure_keeps(&h, |m| h.deliver(&program, &refs, m));
}

#[test]
fn procmail_sorts_mail_through_the_documented_recipe() {
    sorts_through("procmail", procmailrc, |rc| {
        vec!["-m".into(), rc.to_path_buf()]
    });
}

#[test]
fn maildrop_sorts_mail_through_the_documented_recipe() {
    sorts_through("maildrop", mailfilter, |rc| vec![rc.to_path_buf()]);
}

#[test]
fn a_message_moved_to_the_spam_folder_is_learned_once() {
    let Some(procmail) = agent("procmail") else {
        return;
    };
    let h = Home::new();
    let rc = procmailrc(&h);
    h.deliver(&procmail, &[Path::new("-m"), &rc], &h.ham[0]);
    // The reader moves the message the filter let through into the spam folder.
    let inbox = h.home.join("Maildir/new");
    let name = fs::read_dir(&inbox)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();
    fs::rename(
        inbox.join(&name),
        h.home.join("Maildir/.Spam/cur").join(&name),
    )
    .unwrap();
    let script = h.home.join("retrain");
    fs::write(&script, block("Retraining:")).unwrap();
    let learned = || {
        let out = stdout_of(
            bin()
                .args(["inspect", "--json", "-m"])
                .arg(h.home.join(".spam.store")),
        );
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["learned"]
            .as_u64()
            .unwrap()
    };
    let path = format!(
        "{}:{}",
        program().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let retrain = || {
        let status = Command::new("sh")
            .arg(&script)
            .env("HOME", &h.home)
            .env("PATH", &path)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    };
    assert_eq!(learned(), 0);
    retrain();
    assert_eq!(learned(), 1, "the moved message was not learned");
    retrain();
    assert_eq!(learned(), 1, "the moved message was learned twice");
}

#[test]
fn a_sieve_script_files_spam_through_dovecots_filter_extension() {
    let Some(sieve_test) = agent("sieve-test") else {
        return;
    };
    let h = Home::new();
    // Dovecot drops root's privileges to `nobody`, which must reach the store (its lock
    // file too: readers take a slot in it) and the messages.
    let open = |p: &Path, mode| {
        fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
    };
    let mut up = h.home.clone();
    while up.pop() && up.starts_with(std::env::temp_dir()) && up != std::env::temp_dir() {
        open(&up, 0o755);
    }
    open(&h.home, 0o777);
    let store = h.home.join(".spam.store");
    open(&store, 0o777);
    open(&store.join("data.mdb"), 0o644);
    open(&store.join("lock.mdb"), 0o666);
    let bin_dir = h.home.join("sieve-filter");
    fs::create_dir(&bin_dir).unwrap();
    open(&bin_dir, 0o755);
    std::os::unix::fs::symlink(program(), bin_dir.join("rosenblatt")).unwrap();
    let plugin = block("`sieve_filter_bin_dir` names, then").replace(
        "/usr/local/lib/dovecot/sieve-filter",
        &bin_dir.display().to_string(),
    );
    let root = is_root();
    let conf = h.home.join("dovecot.conf");
    fs::write(
        &conf,
        format!(
            "mail_location = maildir:{}/Maildir\n{}{plugin}",
            h.home.display(),
            if root {
                "mail_uid = nobody\nmail_gid = nogroup\nfirst_valid_uid = 0\nfirst_valid_gid = 0\n"
            } else {
                ""
            }
        ),
    )
    .unwrap();
    let script = h.home.join("spam.sieve");
    let rule =
        block("in the user's script").replace("/home/me/.spam.store", &store.display().to_string());
    fs::write(&script, rule).unwrap();
    let folder = |message: &Path| {
        let out = Command::new(&sieve_test)
            .arg("-c")
            .arg(&conf)
            .arg(&script)
            .arg(message)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text.lines()
            .find_map(|l| l.trim().strip_prefix("* store message in folder: "))
            .unwrap_or_else(|| panic!("no folder in: {text}"))
            .to_string()
    };
    for m in &h.spam {
        assert_eq!(folder(m), "Spam", "{}", m.display());
    }
    for m in &h.ham {
        assert_eq!(folder(m), "INBOX", "{}", m.display());
    }
    // A filter that fails: the message is kept in the inbox.
    fs::rename(&store, h.home.join("gone.store")).unwrap();
    assert_eq!(folder(&h.spam[0]), "INBOX");
}

/// Whether the tests run as root (Dovecot will not read mail as root).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}
