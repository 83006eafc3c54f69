//! A filter's store from the command line: `convert` both ways with the same decisions
//! and the same model back, `classify` and `learn` on a store as on the model file,
//! concurrent learners and readers, and learners killed mid-transaction.

use crate::common::{bin, corpus_and_filter, exe, learned, stdout_of, walk};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `classify`'s lines for `messages` under `filter`.
fn classify(filter: &Path, messages: &[PathBuf]) -> String {
    stdout_of(bin().arg("classify").arg("-m").arg(filter).args(messages))
}

/// A filter trained on 30 + 30 shipped messages, as a model file and as a store.
fn both_forms(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (corpus, model) = corpus_and_filter(dir);
    let store = dir.join("spam.store");
    let out = stdout_of(bin().arg("convert").arg(&model).arg(&store));
    assert!(out.contains("as a store"), "{out}");
    (corpus, model, store)
}

#[test]
fn a_store_decides_and_learns_as_its_model_file_and_converts_back_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model, store) = both_forms(dir.path());
    let mut messages = walk(&corpus);
    messages.sort();
    let lines = classify(&model, &messages);
    assert_eq!(lines.lines().count(), 60);
    assert_eq!(classify(&store, &messages), lines);
    // The same corrections taught to both: a spam as ham, then a folder as spam, then one
    // message from stdin.
    let spam = messages
        .iter()
        .find(|p| p.to_str().unwrap().contains("/spam/"))
        .unwrap();
    for filter in [&model, &store] {
        bin()
            .args(["learn", "--ham", "-m"])
            .arg(filter)
            .arg(spam)
            .assert()
            .success();
        bin()
            .args(["learn", "--spam", "-m"])
            .arg(filter)
            .arg(corpus.join("ham"))
            .assert()
            .success();
        let msg = std::fs::read(&messages[0]).unwrap();
        bin()
            .args(["learn", "--ham", "-m"])
            .arg(filter)
            .write_stdin(msg)
            .assert()
            .success();
    }
    assert_eq!(learned(&store), 32);
    let lines = classify(&model, &messages);
    assert_eq!(classify(&store, &messages), lines);
    let back = dir.path().join("back.model");
    stdout_of(bin().arg("convert").arg(&store).arg(&back));
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(&model).unwrap()
    );
    // The mail rules apply to a store too: a line file is refused with a sentence.
    let tsv = dir.path().join("x.tsv");
    std::fs::write(&tsv, "spam\tbuy now\n").unwrap();
    let out = bin()
        .args(["classify", "-m"])
        .arg(&store)
        .arg(&tsv)
        .assert()
        .code(3);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("a line file would be read as one message"),
        "{err}"
    );
    // A folder that is no store is named as such, by classify, learn and convert.
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    for args in [
        &["classify", "-m"][..],
        &["learn", "--spam", "-m"],
        &["convert"],
    ] {
        let out = bin()
            .args(args)
            .arg(&plain)
            .arg(&messages[0])
            .assert()
            .failure();
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(
            err.contains("a folder that is not a filter store"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&plain).unwrap().count(),
        0,
        "nothing was created in it"
    );
    // An existing store is not overwritten.
    let out = bin()
        .arg("convert")
        .arg(&model)
        .arg(&store)
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("already exists"), "{err}");
    // A model that cannot be a store is named, not the store that was not made.
    let tiny = dir.path().join("tiny.model");
    stdout_of(
        bin()
            .args(["train", "--learner", "kernel-perceptron", "-o"])
            .arg(&tiny)
            .arg(crate::common::data("tiny")),
    );
    let to = dir.path().join("tiny.store");
    let out = bin().arg("convert").arg(&tiny).arg(&to).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("tiny.model: a store holds two-class linear models"),
        "{err}"
    );
    assert!(!to.exists());
}

/// One process that runs `learn` of `message` `n` times as `class`.
fn learner(store: &Path, message: &Path, class: &str, n: usize) -> std::thread::JoinHandle<usize> {
    let (store, message, class) = (
        store.to_path_buf(),
        message.to_path_buf(),
        class.to_string(),
    );
    std::thread::spawn(move || {
        (0..n)
            .filter(|_| {
                exe()
                    .args(["learn", "-m"])
                    .arg(&store)
                    .arg(format!("--{class}"))
                    .arg(&message)
                    .stdout(Stdio::null())
                    .status()
                    .unwrap()
                    .success()
            })
            .count()
    })
}

#[test]
fn eight_learners_and_eight_readers_lose_nothing_and_readers_never_fail() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, _, store) = both_forms(dir.path());
    let mut messages = walk(&corpus);
    messages.sort();
    let before = learned(&store);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..8)
        .map(|i| {
            let (store, msg, stop) = (store.clone(), messages[i].clone(), stop.clone());
            std::thread::spawn(move || {
                let (mut runs, mut failures, mut longest) = (0, Vec::new(), Duration::ZERO);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let t = Instant::now();
                    let out = exe()
                        .args(["classify", "-m"])
                        .arg(&store)
                        .arg(&msg)
                        .output()
                        .unwrap();
                    longest = longest.max(t.elapsed());
                    runs += 1;
                    // 0 spam, 1 ham; anything else is a failed reader.
                    if !matches!(out.status.code(), Some(0 | 1)) || out.stdout.is_empty() {
                        failures.push(String::from_utf8_lossy(&out.stderr).to_string());
                    }
                }
                (runs, failures, longest)
            })
        })
        .collect();
    let learners: Vec<_> = (0..8)
        .map(|i| {
            learner(
                &store,
                &messages[10 + i],
                if i % 2 == 0 { "spam" } else { "ham" },
                200,
            )
        })
        .collect();
    let ok: usize = learners.into_iter().map(|h| h.join().unwrap()).sum();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (mut runs, mut longest) = (0, Duration::ZERO);
    for r in readers {
        let (n, failures, l) = r.join().unwrap();
        assert!(failures.is_empty(), "readers failed: {failures:?}");
        runs += n;
        longest = longest.max(l);
    }
    assert_eq!(ok, 1600, "every learn succeeds");
    assert_eq!(learned(&store), before + 1600, "every learn is counted");
    assert!(runs >= 8, "the readers ran ({runs})");
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "note: {runs} classify runs beside 1600 learns; the longest took {} ms",
        longest.as_millis()
    );
}

#[test]
fn a_learner_killed_mid_transaction_leaves_the_state_of_a_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, _, store) = both_forms(dir.path());
    let mut messages = walk(&corpus);
    messages.sort();
    // Every message 4 times over: one learn of 240 messages, committed every 8,192 tokens
    // (a few dozen messages).
    let batch = dir.path().join("batch");
    std::fs::create_dir(&batch).unwrap();
    for k in 0..4 {
        for (i, m) in messages.iter().enumerate() {
            std::fs::copy(m, batch.join(format!("{k}-{i}.eml"))).unwrap();
        }
    }
    let learn = || {
        let mut c = exe();
        c.args(["learn", "--spam", "-m"])
            .arg(&store)
            .arg(&batch)
            .stdout(Stdio::null());
        c
    };
    let t = Instant::now();
    assert!(learn().status().unwrap().success());
    let whole = t.elapsed();
    let mut count = learned(&store);
    let (mut killed_before, mut finished) = (0, 0);
    for k in 0..30u32 {
        let mut child = learn().spawn().unwrap();
        // Kills spread over the run's length and past it.
        std::thread::sleep(whole * k / 10);
        unsafe { libc_kill(child.id() as i32) };
        child.wait().unwrap();
        let now = learned(&store);
        assert!(
            (count..=count + 240).contains(&now),
            "learned {count} → {now}"
        );
        if now == count + 240 {
            finished += 1;
        } else {
            killed_before += 1;
        }
        // Whatever commit it stopped after, the store reads whole.
        let back = dir.path().join("back.model");
        let _ = std::fs::remove_file(&back);
        stdout_of(bin().arg("convert").arg(&store).arg(&back));
        count = now;
        let out = exe()
            .args(["classify", "-m"])
            .arg(&store)
            .arg(&messages[0])
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    }
    assert!(killed_before > 0, "no kill landed before the last commit");
    // The writer's lock of the killed learners is free again: a learn runs to its end.
    assert!(learn().status().unwrap().success());
    assert_eq!(learned(&store), count + 240);
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "note: 30 kills of a {} ms learn: {killed_before} before its last commit, {finished} after",
        whole.as_millis()
    );
}

/// `kill -9`.
unsafe fn libc_kill(pid: i32) {
    unsafe extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    unsafe { kill(pid, 9) };
}

/// A small file system mounted for one test and unmounted however it ends.
struct SmallDisk(PathBuf);

impl SmallDisk {
    /// A tmpfs of `size` at `dir`, or `None` (with a note) where mounting needs a root
    /// this run does not have.
    fn mount(dir: &Path, size: &str) -> Option<SmallDisk> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("note: skipped: mounting a small tmpfs needs root");
        }
        ok.then(|| SmallDisk(dir.to_path_buf()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Asserts that `classify` gives `message` a verdict (spam or ham) under `store`.
fn verdict(store: &Path, message: &Path) {
    let out = exe()
        .args(["classify", "-m"])
        .arg(store)
        .arg(message)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
}

#[test]
fn a_full_disk_under_a_store_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    // Too small for the store: convert says so, and leaves nothing behind.
    let Some(tiny) = SmallDisk::mount(&dir.path().join("tiny"), "100k") else {
        return;
    };
    let out = exe()
        .arg("convert")
        .arg(&model)
        .arg(tiny.0.join("s.store"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(
        err.contains("s.store: "),
        "names the store, not its temporary: {err}"
    );
    assert_eq!(std::fs::read_dir(&tiny.0).unwrap().count(), 0);
    drop(tiny);
    // A store that fits, then a disk filled by something else: learn fails with a
    // sentence and the store still classifies as before.
    let Some(small) = SmallDisk::mount(&dir.path().join("small"), "3m") else {
        return;
    };
    let store = small.0.join("s.store");
    stdout_of(bin().arg("convert").arg(&model).arg(&store));
    let message = corpus.join("spam").join("0.eml");
    verdict(&store, &message);
    let free = vec![0u8; 4 << 20];
    let _ = std::fs::write(small.0.join("fill"), &free);
    // The store's map is reserved whole: a learn that fits in it needs no more disk.
    let out = exe()
        .args(["learn", "--ham", "-m"])
        .arg(&store)
        .arg(&message)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    verdict(&store, &message);
    // The whole shipped corpus, taught as spam, grows the map past the disk.
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/spamassassin");
    let out = exe()
        .args(["learn", "--spam", "-m"])
        .arg(&store)
        .arg(&shipped)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains("s.store"), "{err}");
    // What was committed before the disk filled reads whole and classifies.
    verdict(&store, &message);
    let back = dir.path().join("back.model");
    stdout_of(bin().arg("convert").arg(&store).arg(&back));
}
