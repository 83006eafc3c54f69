//! Faults of the file system around a run: FIFOs, sockets and devices inside input folders,
//! symbolic-link cycles, a model reached through a link, an output that is a device, a
//! model locked by another `learn`, temporary files left by a killed run. Every run that
//! could hang is given a deadline inside the test.

use crate::common::{bin, data, stdout_of};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The longest any run here may take before the test kills it and fails.
const DEADLINE: Duration = Duration::from_secs(20);

/// The binary as a plain process, for tests that spawn it.
fn raw() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
}

/// Waits for `child` (stdout and stderr piped) at most [`DEADLINE`]; kills it and fails
/// naming `what` when it does not end.
fn finish(mut child: Child, what: &str) -> Output {
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {DEADLINE:?} (hangs)");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// Runs `cmd` (stdin closed) under the deadline.
fn run(cmd: &mut Command, what: &str) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, what)
}

/// Runs `cmd` under the deadline and returns its stdout and stderr, asserting success.
fn ok(cmd: &mut Command, what: &str) -> (String, String) {
    let o = run(cmd, what);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{what}: {:?}\n{out}\n{err}", o.status);
    assert!(!err.contains("panicked"), "{what}: {err}");
    (out, err)
}

/// A copy of the tiny folder corpus (`ham/`, `spam/`, six files each) under `dir`.
fn tiny_copy(dir: &Path) -> PathBuf {
    let root = dir.join("corpus");
    for class in ["ham", "spam"] {
        std::fs::create_dir_all(root.join(class)).unwrap();
        for f in std::fs::read_dir(data("tiny").join(class)).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, root.join(class).join(f.file_name().unwrap())).unwrap();
        }
    }
    root
}

/// A model trained on the tiny folder corpus.
fn tiny_model(dir: &Path) -> PathBuf {
    let model = dir.join("tiny.model");
    stdout_of(bin().args(["train", "-o"]).arg(&model).arg(data("tiny")));
    model
}

/// Makes a FIFO at `p`.
fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(st.success(), "mkfifo {}", p.display());
}

/// One number of a `--json` summary.
fn json_field(out: &str, key: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    v[key].clone()
}

#[test]
fn fifo_socket_and_device_in_folders_are_skipped_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = tiny_copy(dir.path());
    mkfifo(&corpus.join("ham/fifo"));
    let _socket = std::os::unix::net::UnixListener::bind(corpus.join("spam/sock")).unwrap();
    std::os::unix::fs::symlink("/dev/null", corpus.join("ham/null")).unwrap();
    let model = dir.path().join("m.model");

    let (out, err) = ok(
        raw()
            .args(["train", "--json", "-o"])
            .arg(&model)
            .arg(&corpus),
        "train DIR",
    );
    assert_eq!(json_field(&out, "documents"), 12, "{err}");
    assert_eq!(json_field(&out, "skipped"), 3, "{err}");
    for why in [
        "ham/fifo: not a regular file (FIFO)",
        "spam/sock: not a regular file (socket)",
        "ham/null: not a regular file (character device)",
    ] {
        assert!(err.contains(why), "train: {why} in {err}");
    }

    let (out, err) = ok(
        raw().args(["classify", "-m"]).arg(&model).arg(&corpus),
        "classify DIR",
    );
    assert_eq!(out.lines().count(), 12, "{err}");
    assert!(err.contains("not a regular file (FIFO)"), "{err}");

    let mail_model = dir.path().join("mail.model");
    let (out, err) = ok(
        raw()
            .args(["train", "--json", "-o"])
            .arg(&mail_model)
            .arg("--spam")
            .arg(corpus.join("spam"))
            .arg("--ham")
            .arg(corpus.join("ham")),
        "train --spam DIR --ham DIR",
    );
    assert_eq!(json_field(&out, "documents"), 12, "{err}");
    assert!(err.contains("not a regular file (FIFO)"), "{err}");

    let (out, err) = ok(
        raw()
            .args(["learn", "--json", "--ham", "-m"])
            .arg(&mail_model)
            .arg(corpus.join("ham")),
        "learn --ham DIR",
    );
    assert_eq!(json_field(&out, "messages"), 6, "{err}");
    assert!(err.contains("not a regular file (FIFO)"), "{err}");
}

#[test]
fn fifo_in_a_maildir_is_skipped_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("maildir");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).unwrap();
    }
    let src = data("mail/maildir/cur");
    for f in std::fs::read_dir(&src).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, md.join("cur").join(f.file_name().unwrap())).unwrap();
    }
    mkfifo(&md.join("new/fifo"));
    std::os::unix::fs::symlink("..", md.join(".Loop")).unwrap();
    let model = dir.path().join("mail.model");
    ok(
        raw()
            .args(["train", "-o"])
            .arg(&model)
            .arg("--spam")
            .arg(data("mail/escaped.mbox"))
            .arg("--ham")
            .arg(&md),
        "train with a Maildir",
    );
    let (out, err) = ok(
        raw()
            .args(["learn", "--json", "--spam", "-m"])
            .arg(&model)
            .arg(&md),
        "learn a Maildir",
    );
    assert_eq!(json_field(&out, "messages"), 2, "{err}");
    assert!(err.contains("new/fifo: not a regular file (FIFO)"), "{err}");
}

#[test]
fn a_fifo_named_on_the_command_line_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, "free cash prize now\n").unwrap())
    };
    let (out, _) = ok(
        raw().args(["classify", "-m"]).arg(&model).arg(&fifo),
        "classify FIFO",
    );
    writer.join().unwrap();
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("\tspam\t"), "{out}");
}

#[test]
fn symlink_cycles_in_folders_end_and_read_no_file_twice() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = tiny_copy(dir.path());
    std::os::unix::fs::symlink("..", corpus.join("ham/loop")).unwrap();
    std::fs::create_dir(corpus.join("spam/deep")).unwrap();
    std::os::unix::fs::symlink("../../spam", corpus.join("spam/deep/again")).unwrap();
    let model = dir.path().join("m.model");
    let (out, err) = ok(
        raw()
            .args(["train", "--json", "-o"])
            .arg(&model)
            .arg(&corpus),
        "train DIR with cycles",
    );
    assert_eq!(json_field(&out, "documents"), 12, "{err}");
    assert!(
        err.contains("ham/loop: a link back to a folder being read (a cycle)"),
        "{err}"
    );
    assert!(
        err.contains("deep/again: a link to a folder already read"),
        "{err}"
    );

    let (out, err) = ok(
        raw()
            .args(["train", "--json", "-o"])
            .arg(dir.path().join("mail.model"))
            .arg("--spam")
            .arg(corpus.join("spam"))
            .arg("--ham")
            .arg(corpus.join("ham")),
        "train --spam DIR --ham DIR with cycles",
    );
    assert_eq!(json_field(&out, "documents"), 12, "{err}");
    assert!(err.contains("a cycle"), "{err}");

    let (out, err) = ok(
        raw()
            .args(["classify", "-m"])
            .arg(&model)
            .arg(corpus.join("ham")),
        "classify DIR with a cycle",
    );
    assert_eq!(out.lines().count(), 6, "{out}\n{err}");
}
