//! Model files and outputs: reached through links, refused when they are devices or
//! folders, locked by another `learn`, left half-written by a killed run.

use super::{DEADLINE, finish, json_field, mkfifo, ok, raw, run, tiny_model};
use crate::common::{bin, data, stdout_of};
use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The model's `learned` count, from `inspect --json`.
fn learned(model: &Path) -> serde_json::Value {
    let out = stdout_of(bin().args(["inspect", "--json", "-m"]).arg(model));
    json_field(&out, "learned")
}

/// `learn` of `model` as `class`, reading one message from a stdin pipe the caller writes.
fn spawn_learn(model: &Path, class: &str, extra: &[&str]) -> Child {
    raw()
        .args(["learn", class, "-m"])
        .arg(model)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_model_reached_through_a_link_is_updated_and_the_link_kept() {
    let dir = tempfile::tempdir().unwrap();
    let real = tiny_model(dir.path());
    let link = dir.path().join("link.model");
    std::os::unix::fs::symlink("tiny.model", &link).unwrap();
    let mut child = spawn_learn(&link, "--spam", &[]);
    {
        use std::io::Write;
        let mut w = child.stdin.take().unwrap();
        w.write_all(b"free cash prize").unwrap();
    }
    let o = finish(child, "learn through a link");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    assert_eq!(learned(&real), 1, "the linked model learned");
    // The lock beside the file the link reaches (learn_gives_up_on_a_held_lock_after_lock_timeout)
    // is removed as it is let go; none is made beside the link.
    assert!(!dir.path().join("tiny.model.lock").exists());
    assert!(!dir.path().join("link.model.lock").exists());

    // train -o through a link replaces the file it points to, too.
    ok(
        raw().args(["train", "-o"]).arg(&link).arg(data("tiny")),
        "train -o LINK",
    );
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(learned(&real), 0, "retrained in place");
}

#[test]
fn an_output_that_is_a_fifo_or_a_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    mkfifo(&fifo);
    let folder = dir.path().join("out.d");
    std::fs::create_dir(&folder).unwrap();
    for (out, why) in [
        (&fifo, "is not a regular file (FIFO)"),
        (&folder, "is a folder"),
    ] {
        let o = run(
            raw().args(["train", "-o"]).arg(out).arg(data("tiny")),
            "train -o SPECIAL",
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("{}: {why}", out.display())), "{err}");
        // Refused before any input is read: a missing input is not what it reports.
        for cmd in ["train", "vectorize"] {
            let o = run(
                raw()
                    .args([cmd, "-o"])
                    .arg(out)
                    .arg(dir.path().join("absent")),
                "-o SPECIAL with a missing input",
            );
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(why) && !err.contains("absent"), "{cmd}: {err}");
        }
    }
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 2, "no temporary file is written");
}

#[test]
fn learn_gives_up_on_a_held_lock_after_lock_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let link = dir.path().join("other-name.model");
    std::os::unix::fs::symlink(&model, &link).unwrap();
    let held = std::fs::File::create(dir.path().join("tiny.model.lock")).unwrap();
    held.lock().unwrap();
    let start = Instant::now();
    let mut child = spawn_learn(&link, "--spam", &["--lock-timeout", "1"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"Subject: cheap\n\nbuy now\n").unwrap();
    drop(stdin);
    let o = finish(child, "learn on a held lock");
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("is locked by another learn (waited 1 s); try again or raise --lock-timeout"),
        "{err}"
    );
    assert!(took < Duration::from_secs(5), "returned after {took:?}");
    held.unlock().unwrap();
    assert_eq!(learned(&model), 0);
}

#[test]
fn a_slow_stdin_does_not_hold_the_lock_and_no_update_is_lost() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    // Eight deliveries whose messages arrive slowly, all at once.
    let mut children: Vec<Child> = (0..8)
        .map(|i| spawn_learn(&model, if i % 2 == 0 { "--spam" } else { "--ham" }, &[]))
        .collect();
    for c in &mut children {
        c.stdin.as_mut().unwrap().write_all(b"free ").unwrap();
    }
    // Meanwhile another delivery goes through at once: none of the eight holds the lock.
    let mut quick = spawn_learn(&model, "--spam", &["--lock-timeout", "0"]);
    quick
        .stdin
        .take()
        .unwrap()
        .write_all(b"cash prize")
        .unwrap();
    let o = finish(quick, "learn beside slow ones");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::thread::sleep(Duration::from_millis(300));
    for c in &mut children {
        c.stdin.take().unwrap().write_all(b"lunch at noon").unwrap();
    }
    for c in children {
        let o = finish(c, "slow learn");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(learned(&model), 9);
}

/// Temporary files (`.NAME.PID.tmp`) in `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn a_write_removes_temporary_files_of_dead_runs_only() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let stale = dir.path().join(".tiny.model.999999999.tmp");
    let live = dir
        .path()
        .join(format!(".tiny.model.{}.tmp", std::process::id()));
    let other = dir.path().join(".other.model.999999999.tmp");
    for p in [&stale, &live, &other] {
        std::fs::write(p, "half a model").unwrap();
    }
    ok(
        raw().args(["train", "-o"]).arg(&model).arg(data("tiny")),
        "train -o",
    );
    assert!(!stale.exists(), "a dead run's temporary file is removed");
    assert!(live.exists(), "a running process's temporary file is kept");
    assert!(other.exists(), "another target's temporary file is kept");
}

#[test]
fn killing_train_or_learn_at_any_moment_leaves_a_loadable_model() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let start = Instant::now();
    for i in 0..30u64 {
        let delay = Duration::from_millis(i * 3);
        let mut train = raw()
            .args(["train", "-o"])
            .arg(&model)
            .arg(data("tiny"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = train.kill();
        train.wait().unwrap();
        let mut learn = spawn_learn(&model, "--spam", &[]);
        let _ = learn.stdin.take().unwrap().write_all(b"free cash prize");
        std::thread::sleep(delay);
        let _ = learn.kill();
        learn.wait().unwrap();
        ok(
            raw().args(["inspect", "-m"]).arg(&model),
            &format!("inspect after a kill at {delay:?}"),
        );
    }
    ok(
        raw().args(["train", "-o"]).arg(&model).arg(data("tiny")),
        "train -o after the kills",
    );
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    assert!(start.elapsed() < DEADLINE, "took {:?}", start.elapsed());
}
