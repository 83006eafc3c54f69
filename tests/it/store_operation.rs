//! A filter's store under what a mail server does to it over the years: readers killed by
//! the hundred, bulk learns, damaged pages, outputs aimed inside it, a truncated or
//! unreadable data file, its lock file removed under running learners, a stopped writer,
//! and converts killed before their rename.

use crate::common::{bin, corpus_and_filter, exe, learned, stdout_of, walk};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A filter trained on 30 + 30 shipped messages converted to a store; the corpus and the
/// store.
fn small_store(dir: &Path) -> (PathBuf, PathBuf) {
    let (corpus, model) = corpus_and_filter(dir);
    let store = dir.join("spam.store");
    stdout_of(bin().arg("convert").arg(&model).arg(&store));
    (corpus, store)
}

/// One shipped spam message.
fn a_message(corpus: &Path) -> PathBuf {
    let mut all = walk(&corpus.join("spam"));
    all.sort();
    all.swap_remove(0)
}

/// Whether process `pid` has the store's data file mapped (it has opened the store and
/// holds its reader slot).
fn maps_store(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/maps")).is_ok_and(|m| m.contains("data.mdb"))
}

/// A `classify -m store -` waiting on its standard input (held open by the child handle).
fn waiting_reader(store: &Path) -> Child {
    exe()
        .args(["classify", "-m"])
        .arg(store)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
#[cfg(target_os = "linux")]
fn two_hundred_readers_killed_beside_a_live_one_leave_the_store_usable() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = small_store(dir.path());
    let message = a_message(&corpus);
    let mut live = waiting_reader(&store);
    let mut killed = 0;
    for _ in 0..4 {
        let mut batch: Vec<Child> = (0..50).map(|_| waiting_reader(&store)).collect();
        // Each holds its reader slot once it has mapped the store (it opens the store
        // before it reads its input).
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline && !batch.iter().all(|c| maps_store(c.id())) {
            std::thread::sleep(Duration::from_millis(20));
        }
        for c in &mut batch {
            killed += usize::from(maps_store(c.id()));
            c.kill().unwrap(); // SIGKILL
            c.wait().unwrap();
        }
    }
    assert!(killed >= 190, "only {killed} readers had opened the store");
    let out = bin()
        .args(["classify", "-m"])
        .arg(&store)
        .arg(&message)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "classify after the kills: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    learns_one(&store, &message);
    live.kill().unwrap();
    live.wait().unwrap();
}

/// Asserts that `learn` teaches `store` `message` as spam, its first message learned.
fn learns_one(store: &Path, message: &Path) {
    bin()
        .args(["learn", "--spam", "-m"])
        .arg(store)
        .arg(message)
        .assert()
        .success();
    assert_eq!(learned(store), 1);
}

/// The size of `store`'s data file.
fn data_size(store: &Path) -> u64 {
    std::fs::metadata(store.join("data.mdb")).unwrap().len()
}

#[test]
fn a_bulk_learn_keeps_the_store_near_the_size_of_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/spamassassin");
    let model = dir.path().join("spam.model");
    crate::common::train_filter(&shipped.join("spam"), &shipped.join("ham"), &model, &[]);
    let store = dir.path().join("spam.store");
    stdout_of(bin().arg("convert").arg(&model).arg(&store));
    let fresh = data_size(&store);
    // 2,750 messages of ham, then the same as spam: one learn each.
    for class in ["--ham", "--spam"] {
        let out = stdout_of(
            bin()
                .args(["learn", class, "--json", "-m"])
                .arg(&store)
                .arg(shipped.join("ham")),
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["messages"], 2750, "{out}");
    }
    assert_eq!(learned(&store), 5500);
    let after = data_size(&store);
    assert!(
        after <= 2 * fresh + (8 << 20),
        "data.mdb grew from {fresh} to {after} bytes"
    );
    // The same filter, written afresh, decides alike.
    let back = dir.path().join("back.model");
    stdout_of(bin().arg("convert").arg(&store).arg(&back));
    let again = dir.path().join("again.store");
    stdout_of(bin().arg("convert").arg(&back).arg(&again));
    let messages: Vec<PathBuf> = walk(&shipped.join("spam")).into_iter().take(40).collect();
    let lines = |s: &Path| stdout_of(bin().arg("classify").arg("-m").arg(s).args(&messages));
    assert_eq!(lines(&store), lines(&again));
}

/// A small deterministic generator for the damage (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The last page of `data` (an LMDB data file) its newest commit uses.
fn last_page(data: &[u8]) -> u64 {
    let meta = |k: usize| {
        let at = k * 4096 + 136;
        let word = |i: usize| u64::from_le_bytes(data[i..i + 8].try_into().unwrap());
        (word(at + 8), word(at))
    };
    meta(0).max(meta(1)).1
}

/// `data` with one to four bytes changed in its B-tree pages: anywhere in a page, in its
/// header, in its node pointers, or among its nodes.
fn damaged(data: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = data.to_vec();
    let last = last_page(data);
    let kind = rng.below(4);
    for _ in 0..=rng.below(4) {
        let page = (2 + rng.below(last - 1)) as usize * 4096;
        let lower = u16::from_le_bytes([out[page + 12], out[page + 13]]) as u64;
        let offset = match kind {
            0 => rng.below(4096),
            1 => rng.below(16),
            2 => 16 + rng.below(lower.clamp(17, 4096) - 16),
            _ => 2048 + rng.below(2048),
        } as usize;
        out[page + offset] = rng.below(256) as u8;
    }
    out
}

#[test]
fn no_command_dies_by_a_signal_on_a_damaged_store() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = small_store(dir.path());
    let message = a_message(&corpus);
    let data = std::fs::read(store.join("data.mdb")).unwrap();
    let copy = dir.path().join("copy.store");
    let out_model = dir.path().join("out.model");
    let mut rng = Rng(0x5EED_0036);
    let mut refused = 0;
    for round in 0..500 {
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir(&copy).unwrap();
        std::fs::write(copy.join("data.mdb"), damaged(&data, &mut rng)).unwrap();
        let mut runs: Vec<(&str, Command)> = Vec::new();
        let mut classify = exe();
        classify.args(["classify", "-m"]).arg(&copy).arg(&message);
        runs.push(("classify", classify));
        let _ = std::fs::remove_file(&out_model);
        let mut convert = exe();
        convert.arg("convert").arg(&copy).arg(&out_model);
        runs.push(("convert", convert));
        let mut learn = exe();
        learn
            .args(["learn", "--spam", "-m"])
            .arg(&copy)
            .arg(&message);
        runs.push(("learn", learn));
        for (name, mut cmd) in runs {
            let out = cmd.output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            let Some(code) = out.status.code() else {
                panic!("round {round}: {name} died by {:?}: {err}", out.status);
            };
            // classify's 0–2 are verdicts; elsewhere any failure is an error.
            let failed = if name == "classify" {
                code > 2
            } else {
                code != 0
            };
            if failed {
                refused += 1;
                assert!(
                    err.contains(&*copy.to_string_lossy()),
                    "round {round}: {name} failed without naming the store: {err}"
                );
            }
        }
    }
    // The damage is real: many runs met it.
    assert!(refused > 100, "only {refused} runs refused a damaged copy");
}

#[test]
fn outputs_inside_a_store_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = small_store(dir.path());
    let message = a_message(&corpus);
    let before = std::fs::read(store.join("data.mdb")).unwrap();
    for inside in ["data.mdb", "lock.mdb", "x.model", "."] {
        let err = crate::common::stderr_of_failure(
            bin().arg("convert").arg(&store).arg(store.join(inside)),
        );
        assert!(
            err.contains("writing there would destroy"),
            "{inside}: {err}"
        );
    }
    assert!(!store.join("x.model").exists());
    assert_eq!(std::fs::read(store.join("data.mdb")).unwrap(), before);
    stdout_of(bin().args(["classify", "-m"]).arg(&store).arg(&message));
}

#[test]
fn a_truncated_data_file_is_named_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = small_store(dir.path());
    let message = a_message(&corpus);
    std::fs::File::create(store.join("data.mdb")).unwrap();
    for args in [&["classify", "-m"][..], &["learn", "--ham", "-m"]] {
        let err = crate::common::stderr_of_failure(bin().args(args).arg(&store).arg(&message));
        assert!(
            err.contains(&*store.to_string_lossy()) && err.contains("damaged store"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(data_size(&store), 0, "learn wrote nothing over it");
}

#[test]
#[cfg(unix)]
fn a_store_the_user_may_not_read_is_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = small_store(dir.path());
    let message = a_message(&corpus);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(corpus.join("spam"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&corpus, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&message, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut cmd = exe();
    cmd.args(["classify", "-m"]).arg(&store).arg(&message);
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } == 0 {
        // Root reads every folder: the run is made as nobody.
        cmd.uid(65534).gid(65534);
    }
    let out = cmd.output();
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o755)).unwrap();
    let Ok(out) = out else {
        println!("note: the program cannot be run as another user here; skipped");
        return;
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("ermission denied"), "{err}");
    assert!(!err.contains("not a filter store"), "{err}");
}

#[test]
fn learns_reported_done_are_counted_while_lock_mdb_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = small_store(dir.path());
    let message = a_message(&corpus);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let remover = {
        let (stop, lock) = (stop.clone(), store.join("lock.mdb"));
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let _ = std::fs::remove_file(&lock);
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let learners: Vec<_> = (0..6)
        .map(|_| {
            let (store, message) = (store.clone(), message.clone());
            std::thread::spawn(move || {
                let mut done = 0u64;
                for _ in 0..30 {
                    let out = exe()
                        .args(["learn", "--spam", "-m"])
                        .arg(&store)
                        .arg(&message)
                        .output()
                        .unwrap();
                    let err = String::from_utf8_lossy(&out.stderr);
                    match out.status.code() {
                        Some(0) => done += 1,
                        _ => assert!(err.contains("lock.mdb was removed"), "{err}"),
                    }
                }
                done
            })
        })
        .collect();
    let done: u64 = learners.into_iter().map(|l| l.join().unwrap()).sum();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    remover.join().unwrap();
    assert!(done > 0);
    assert_eq!(
        learned(&store),
        done,
        "every learn reported done is counted"
    );
}

#[test]
fn a_held_store_makes_learn_give_up_at_its_lock_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = small_store(dir.path());
    let message = a_message(&corpus);
    // What a stopped learn holds: the writer's lock on the data file.
    let held = std::fs::File::open(store.join("data.mdb")).unwrap();
    held.lock().unwrap();
    let t = Instant::now();
    let out = bin()
        .args(["learn", "--spam", "--lock-timeout", "1", "-m"])
        .arg(&store)
        .arg(&message)
        .output()
        .unwrap();
    let waited = t.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("--lock-timeout") && err.contains(&*store.to_string_lossy()),
        "{err}"
    );
    assert!(waited >= Duration::from_secs(1), "{waited:?}");
    held.unlock().unwrap();
    learns_one(&store, &message);
}

#[test]
fn a_killed_converts_folder_is_removed_by_the_next_convert() {
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = corpus_and_filter(dir.path());
    // A process id that has ended: a child that was waited for.
    let mut gone = exe()
        .arg("--version")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    let left = dir.path().join(format!("spam.store.tmp-{pid}"));
    std::fs::create_dir(&left).unwrap();
    std::fs::write(left.join("data.mdb"), vec![0u8; 8192]).unwrap();
    let store = dir.path().join("spam.store");
    stdout_of(bin().arg("convert").arg(&model).arg(&store));
    assert!(!left.exists(), "the dead convert's folder was removed");
    assert!(store.join("data.mdb").exists());
}
