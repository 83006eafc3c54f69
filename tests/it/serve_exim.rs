//! `rosenblatt serve` asked by a real MTA: Exim's `spam =` condition (spamd's protocol)
//! takes mail over SMTP from swaks, delivers ham to a Maildir with the daemon's score in a
//! header and rejects spam above its threshold. Skips with a note where Exim with content
//! scanning or swaks is not installed (.ci/run installs them).

use crate::serve_clients::{run, sample, sorted};
use crate::serve_support::{Daemon, installed, p_spam};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Exim's binary where it is installed with content scanning (the `spam =` condition):
/// Debian's exim4-daemon-heavy; exim4-daemon-light is built without it.
fn exim_with_content_scanning() -> Option<PathBuf> {
    let exim = ["/usr/sbin/exim4", "/usr/sbin/exim"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())?;
    let out = Command::new(&exim).arg("-bV").output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .contains("Content_Scanning")
        .then_some(exim)
}

/// Exim's configuration for a test under `dir`: every recipient accepted, each message
/// scanned by spamd at `spamd` (its score in `X-Spam-Score:`, `X-Spam-Flag: YES` on spam),
/// rejected from spamd score `reject_at` tenths, and delivered to the Maildir `dir/Maildir`.
fn exim_config(dir: &Path, spamd: &str, reject_at: u32) -> String {
    let (host, port) = spamd.rsplit_once(':').unwrap();
    // Exim run with -C gives up root for its own user (Debian-exim), and delivers as that
    // user; run by anyone else it runs as them, and is told they are its user.
    let uid = unsafe { libc::getuid() };
    let user = if uid == 0 {
        String::new()
    } else {
        format!("exim_user = {uid}\nexim_group = {}\n", unsafe {
            libc::getgid()
        })
    };
    let d = dir.display();
    format!(
        r#"{user}keep_environment =
primary_hostname = test.invalid
spool_directory = {d}/spool
log_file_path = {d}/log/%slog
spamd_address = {host} {port}
acl_smtp_rcpt = acl_rcpt
acl_smtp_data = acl_data

begin acl
acl_rcpt:
  accept
acl_data:
  warn    spam = nobody:true
          add_header = X-Spam-Score: $spam_score
  deny    spam = nobody
          condition = ${{if >={{$spam_score_int}}{{{reject_at}}}}}
          message = rejected as spam, score $spam_score
  warn    spam = nobody
          add_header = X-Spam-Flag: YES
  accept

begin routers
local:
  driver = accept
  transport = maildir

begin transports
maildir:
  driver = appendfile
  directory = {d}/Maildir
  maildir_format
  create_directory
  user = $exim_uid
  group = $exim_gid
"#
    )
}

/// The messages delivered to the Maildir `dir`.
fn delivered(dir: &Path) -> std::collections::BTreeSet<PathBuf> {
    let new = dir.join("new");
    if !new.is_dir() {
        return Default::default();
    }
    sorted(&new).into_iter().collect()
}

#[test]
fn exim_spam_condition_delivers_ham_and_rejects_spam() {
    if !installed("swaks") {
        eprintln!("note: swaks is not installed (.ci/run installs it); skipping");
        return;
    }
    let Some(exim) = exim_with_content_scanning() else {
        eprintln!(
            "note: Exim with content scanning (Debian's exim4-daemon-heavy, which .ci/run \
             installs) is not installed; skipping"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (store, msgs) = sample(dir.path());
    // Exim's own directory, writable by the user Exim runs as.
    let mta = dir.path().join("exim");
    for sub in ["", "spool", "log", "Maildir"] {
        std::fs::create_dir_all(mta.join(sub)).unwrap();
    }
    use std::os::unix::fs::PermissionsExt;
    let open = std::fs::Permissions::from_mode(0o777);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for sub in ["", "spool", "log", "Maildir"] {
        std::fs::set_permissions(mta.join(sub), open.clone()).unwrap();
    }
    // Rejected from a spamd score of 9.9 (99 tenths), where rspamd's clients are told to
    // reject (the daemon's --reject-probability, 0.99).
    let d = Daemon::start(&store, &[]);
    let config = mta.join("exim.conf");
    std::fs::write(&config, exim_config(&mta, &d.spamd, 99)).unwrap();
    let pipe = format!("{} -bs -odi -C {}", exim.display(), config.display());
    let send = |message: &Path| {
        let out = run(
            "swaks",
            &[
                "--to",
                "user@test.invalid",
                "--from",
                "sender@test.invalid",
                "--data",
                &format!("@{}", message.display()),
                "--pipe",
                &pipe,
            ],
            None,
        );
        let log = std::fs::read_to_string(mta.join("log/mainlog")).unwrap_or_default();
        (out, log)
    };
    let maildir = mta.join("Maildir");

    // The ham judged least likely spam, the spam most likely, and a spam below the reject
    // line where the sample has one.
    let ham = msgs
        .iter()
        .filter(|m| !m.spam)
        .min_by(|a, b| a.p.total_cmp(&b.p))
        .unwrap();
    let spam = msgs
        .iter()
        .filter(|m| m.spam)
        .max_by(|a, b| a.p.total_cmp(&b.p))
        .unwrap();
    assert!(ham.p < 0.5 && spam.p > 0.995, "{ham:?} {spam:?}");

    // Ham: accepted (swaks exits 0) and delivered, with the daemon's score and no flag.
    let (out, log) = send(&ham.path);
    assert!(out.status.success(), "{out:?}\n{log}");
    let got = delivered(&maildir);
    assert_eq!(got.len(), 1, "{log}");
    let text = std::fs::read_to_string(got.first().unwrap()).unwrap();
    let score: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("X-Spam-Score: "))
        .unwrap_or_else(|| panic!("no X-Spam-Score in {text}"))
        .parse()
        .unwrap();
    assert!(!text.contains("X-Spam-Flag:"), "{text}");
    // The score is the one classify gives the message as Exim passed it on (its own
    // Received field added); the fields Exim's ACL added are taken off again.
    let scanned = dir.path().join("scanned.eml");
    let without: String = text
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("X-Spam-"))
        .collect();
    std::fs::write(&scanned, without).unwrap();
    let p = p_spam(&store, &scanned);
    assert!(
        (score - 10.0 * p).abs() < 0.0501,
        "X-Spam-Score {score}, P {p}"
    );
    assert!(score < 9.0);

    // Spam above the reject line: refused after DATA with a 550 (swaks exits 26: the
    // server did not accept the mail), nothing delivered.
    let (out, log) = send(&spam.path);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(26), "{said}\n{log}");
    assert!(said.contains("<** 550 rejected as spam, score"), "{said}");
    assert!(
        log.contains("rejected after DATA: rejected as spam"),
        "{log}"
    );
    assert_eq!(delivered(&maildir).len(), 1);

    // Spam below the reject line: delivered, flagged.
    if let Some(m) = msgs.iter().find(|m| m.spam && m.p > 0.92 && m.p < 0.98) {
        let before = delivered(&maildir);
        let (out, log) = send(&m.path);
        assert!(out.status.success(), "{out:?}\n{log}");
        let got: Vec<PathBuf> = delivered(&maildir).difference(&before).cloned().collect();
        assert_eq!(got.len(), 1, "{log}");
        let text = std::fs::read_to_string(&got[0]).unwrap();
        assert!(text.contains("\nX-Spam-Flag: YES\n"), "{text}");
    } else {
        eprintln!("note: the sample has no spam between P(spam) 0.92 and 0.98");
    }
    assert!(d.stop().success());
}
