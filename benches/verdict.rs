//! A daemon's verdict on a message, in process and on one thread: `Daemon::judge_kept`
//! over every shipped SpamAssassin message (parsing, tokenizing, the store's records, the
//! strongest features, the history), with no network and no HTTP.
//!
//! `serve_load` measures the service as its clients see it, but its saturation runs move
//! by a tenth from one to the next on a shared 2-core machine; this is the steady figure
//! a change to the verdict path is judged by, as a ratio against a saved baseline:
//! `cargo bench --bench verdict -- --save-baseline before`, then the change, then
//! `cargo bench --bench verdict -- --baseline before`.
//!
//! Where the machine's neighbours move even that, count instructions instead: with
//! `VERDICT_PASSES=N` (and `VERDICT_ONLY=store` or `model_file`) the bench judges every
//! message N times through each way and stops, without criterion, for
//! `valgrind --tool=callgrind --toggle-collect='rosenblatt::serve::verdict::judge*'`;
//! the difference between N = 3 and N = 1 is two passes with the memory of records warm.

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group};
use rosenblatt::input::mail::read_labelled;
use rosenblatt::serve::{Daemon, ServeConfig};
use rosenblatt::store::Store;
use rosenblatt::{Model, TrainConfig};
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// Every message file under `dirs` and their folders, in path order.
fn messages(dirs: &[PathBuf]) -> Vec<Bytes> {
    let (mut files, mut folders) = (Vec::new(), dirs.to_vec());
    while let Some(dir) = folders.pop() {
        for path in std::fs::read_dir(&dir).expect("corpora/spamassassin") {
            let path = path.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .iter()
        .map(|f| Bytes::from(std::fs::read(f).unwrap()))
        .collect()
}

/// The daemons judged: one through the store, one through the model file, both made
/// from a filter trained on the shipped corpus; and every message of it.
fn setup() -> (tempfile::TempDir, Vec<(&'static str, Daemon)>, Vec<Bytes>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/spamassassin");
    let (spam, ham) = (vec![root.join("spam")], vec![root.join("ham")]);
    let docs = read_labelled(&spam, &ham, &Default::default())
        .unwrap()
        .corpus
        .docs;
    let model = Model::fit(&docs, &TrainConfig::spam_filter()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (file, store) = (dir.path().join("f.model"), dir.path().join("f.store"));
    model.save(&file).unwrap();
    Store::create(&store, &model).unwrap();
    let raw = messages(&[spam, ham].concat());
    let daemons = [("verdicts_store", &store), ("verdicts_model_file", &file)]
        .into_iter()
        .map(|(name, path)| {
            let config = ServeConfig::default();
            let opened = Daemon::open(path, &config).unwrap();
            (name, Daemon::new(opened, config, Box::new(|_| {})))
        })
        .collect();
    (dir, daemons, raw)
}

/// Every message judged once by `daemon`.
fn pass(daemon: &Daemon, raw: &[Bytes]) {
    for m in raw {
        black_box(daemon.judge_kept(m, Some(m), true, None).unwrap());
    }
}

fn verdicts(c: &mut Criterion) {
    let (_dir, daemons, raw) = setup();
    let mut g = c.benchmark_group("serve");
    g.throughput(Throughput::Elements(raw.len() as u64));
    g.sample_size(20);
    for (name, daemon) in &daemons {
        g.bench_function(*name, |b| b.iter(|| pass(daemon, &raw)));
    }
    g.finish();
}

/// `VERDICT_PASSES` passes through each way (or the one `VERDICT_ONLY` names), for an
/// instruction count.
fn counted(passes: usize) {
    let only = std::env::var("VERDICT_ONLY").ok();
    let (_dir, daemons, raw) = setup();
    for (name, daemon) in &daemons {
        if only.as_deref().is_none_or(|o| name.ends_with(o)) {
            for _ in 0..passes {
                pass(daemon, &raw);
            }
        }
    }
}

criterion_group!(benches, verdicts);

fn main() {
    match std::env::var("VERDICT_PASSES")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        Some(n) => counted(n),
        None => {
            benches();
            Criterion::default().configure_from_args().final_summary();
        }
    }
}
