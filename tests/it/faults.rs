//! Faults of the file system around a run: FIFOs, sockets and devices inside input folders,
//! symbolic-link cycles, a model reached through a link, an output that is a device, a
//! model locked by another `learn` (and written by `train` only once it is let go), an output
//! that is also an input, temporary files left by a killed run. Every run that
//! could hang is given a deadline inside the test.

mod folders;
mod outputs;
mod overwrite;

use crate::common::{bin, data, stdout_of};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The longest any run here may take before the test kills it and fails.
pub(super) const DEADLINE: Duration = Duration::from_secs(20);

/// The binary as a plain process, for tests that spawn it.
pub(super) fn raw() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
}

/// Waits for `child` (stdout and stderr piped) at most [`DEADLINE`]; kills it and fails
/// naming `what` when it does not end.
pub(super) fn finish(mut child: Child, what: &str) -> Output {
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
pub(super) fn run(cmd: &mut Command, what: &str) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, what)
}

/// Runs `cmd` under the deadline and returns its stdout and stderr, asserting success.
pub(super) fn ok(cmd: &mut Command, what: &str) -> (String, String) {
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
pub(super) fn tiny_copy(dir: &Path) -> PathBuf {
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
pub(super) fn tiny_model(dir: &Path) -> PathBuf {
    let model = dir.join("tiny.model");
    stdout_of(bin().args(["train", "-o"]).arg(&model).arg(data("tiny")));
    model
}

/// Makes a FIFO at `p`.
pub(super) fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(st.success(), "mkfifo {}", p.display());
}

/// One number of a `--json` summary.
pub(super) fn json_field(out: &str, key: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    v[key].clone()
}
