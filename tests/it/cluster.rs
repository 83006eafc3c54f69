//! Training over real processes on 127.0.0.1 (free ports, a hostfile): the vocabulary
//! equals single-process `train`'s, the weights equal the single-process simulation of
//! parameter mixing over the same shares (unit k to process k mod N), the model loads and
//! evaluates like any other; flags are checked before any work. (Processes that die,
//! never come or are flooded: `cluster_faults.rs`.)

use crate::common::{bin, data};
use rosenblatt::features::{Geometry, SparseRows};
use rosenblatt::input::mail::{MailRules, read_labelled};
use rosenblatt::input::{Document, read};
use rosenblatt::learn::mixing::fit_mixed;
use rosenblatt::learn::{AnyModel, LinearModel};
use rosenblatt::model::{Model, Predictor};
use rosenblatt::training::TrainConfig;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

pub(crate) fn rosenblatt() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
}

/// The cluster key of the processes started in `dir` (created once; `rosenblatt
/// cluster-key`'s file).
pub(crate) fn key(dir: &Path) -> PathBuf {
    let p = dir.join("cluster.key");
    if !p.exists() {
        rosenblatt::distributed::ClusterKey::create(&p).unwrap();
    }
    p
}

/// A hostfile of `n` free ports on 127.0.0.1 (and the cluster key beside it). The
/// listeners stay open until every port is chosen, so no port is handed out twice.
pub(crate) fn hostfile(dir: &Path, n: usize) -> PathBuf {
    key(dir);
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let lines: Vec<String> = listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}", l.local_addr().unwrap().port()))
        .collect();
    drop(listeners);
    let p = dir.join(format!("hosts{n}"));
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

/// Starts process `i` of `n` of `train ARGS`.
pub(crate) fn start(args: &[&str], hosts: &Path, n: usize, i: usize) -> Child {
    rosenblatt()
        .arg("train")
        .args(args)
        .args(["--processes", &n.to_string(), "--process", &i.to_string()])
        .args(["--connect-timeout", "10"])
        .arg("--hostfile")
        .arg(hosts)
        .arg("--cluster-key")
        .arg(key(hosts.parent().unwrap()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Whether a process could not listen on its port: another program took it between the
/// hostfile's making and the process's start (the test then tries fresh ports).
pub(crate) fn port_taken(stderr: &[u8]) -> bool {
    String::from_utf8_lossy(stderr).contains("cannot listen on")
}

/// Runs `train ARGS` as `n` processes; their outputs in process order.
fn run_cluster(dir: &Path, args: &[&str], n: usize) -> Vec<Output> {
    for _ in 0..3 {
        let hosts = hostfile(dir, n);
        let children: Vec<Child> = (0..n).map(|i| start(args, &hosts, n, i)).collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        if !outs.iter().any(|o| port_taken(&o.stderr)) {
            return outs;
        }
    }
    panic!("three hostfiles in a row had a port taken by another program");
}

pub(crate) fn succeeded(outs: &[Output]) {
    for (i, o) in outs.iter().enumerate() {
        assert!(
            o.status.success(),
            "process {i}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

fn linear(m: &AnyModel) -> &LinearModel {
    match m {
        AnyModel::Linear(l) => l,
        other => panic!("not a linear model: {other:?}"),
    }
}

fn problems(p: &Predictor) -> Vec<&LinearModel> {
    match p {
        Predictor::Binary(m) => vec![linear(m)],
        Predictor::OneVsRest(ms) => ms.iter().map(linear).collect(),
        other => panic!("unexpected predictor {other:?}"),
    }
}

/// The cluster's model against what one process computes from all of `docs` (in the
/// order the shares number them): the same vocabulary (ids and counts) as `single`,
/// and for each binary problem the weights of parameter mixing over the same shares.
fn equals_the_simulation(
    cluster: &Model,
    single: &Model,
    docs: &[Document],
    cfg: &TrainConfig,
    n: usize,
) {
    assert_eq!(cluster.vocab().len(), single.vocab().len());
    for j in 0..single.vocab().len() as u32 {
        assert_eq!(cluster.vocab().word(j), single.vocab().word(j), "id {j}");
        assert_eq!(cluster.vocab().df(j), single.vocab().df(j), "df of id {j}");
    }
    assert_eq!(cluster.classes(), single.classes());
    let (_, stored) = rosenblatt::training::vectorize_training(&cfg.analyzer, &cfg.vocab, docs);
    let g = Geometry::fit(cfg.geometry, &stored);
    let x = g.apply(&stored);
    let idx = rosenblatt::training::class_indices(docs, single.classes()).unwrap();
    let k = single.classes().len();
    let wanted: Vec<usize> = if k == 2 { vec![1] } else { (0..k).collect() };
    let models = problems(cluster.predictor());
    assert_eq!(models.len(), wanted.len());
    for (m, &c) in models.iter().zip(&wanted) {
        let y = rosenblatt::training::binary_labels(&idx, c);
        let sim = fit_mixed(&cfg.learner, &x, &y, n).unwrap().model;
        assert_eq!(m.w.len(), sim.w.len());
        for (j, (a, b)) in
            m.w.iter()
                .zip(&sim.w)
                .chain([(&m.bias, &sim.bias)])
                .enumerate()
        {
            assert!(
                (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                "problem {c}, weight {j}: {a} vs simulated {b}"
            );
        }
    }
    assert_eq!(x.n_rows(), cluster.meta().documents as usize);
}

#[test]
fn mail_over_two_and_three_processes_equals_the_simulation() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/spamassassin");
    let (spam, ham) = (corpus.join("spam"), corpus.join("ham"));
    let single_path = dir.path().join("single.model");
    crate::common::train_filter(&spam, &ham, &single_path, &[]);
    let single = Model::load(&single_path).unwrap();
    let cfg = TrainConfig::spam_filter();
    let rules = MailRules::default();
    let docs = read_labelled(
        std::slice::from_ref(&spam),
        std::slice::from_ref(&ham),
        &rules,
    )
    .unwrap()
    .corpus
    .docs;
    for n in [2, 3] {
        let out = dir.path().join(format!("cluster{n}.model"));
        let args = [
            "--spam",
            spam.to_str().unwrap(),
            "--ham",
            ham.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        let outs = run_cluster(dir.path(), &args, n);
        succeeded(&outs);
        let progress = String::from_utf8_lossy(&outs[0].stderr);
        assert!(progress.contains("round 1/20:"), "{progress}");
        for o in &outs[1..] {
            assert!(o.stdout.is_empty(), "only process 0 prints the summary");
        }
        let model = Model::load(&out).unwrap();
        equals_the_simulation(&model, &single, &docs, &cfg, n);
        // It evaluates like any other model.
        let eval = crate::common::stdout_of(
            bin()
                .args(["eval", "-m", out.to_str().unwrap(), "--json", "--spam"])
                .arg(&spam)
                .arg("--ham")
                .arg(&ham),
        );
        let v: serde_json::Value = serde_json::from_str(&eval).unwrap();
        assert!(v["accuracy"].as_f64().unwrap() > 0.99, "{eval}");
    }
}

/// A three-class corpus in class folders: each class has its own words beside shared ones.
fn class_folders(dir: &Path) -> PathBuf {
    let root = dir.join("topics");
    let mut state = 7u64;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    for (c, name) in ["alpha", "beta", "gamma"].iter().enumerate() {
        std::fs::create_dir_all(root.join(name)).unwrap();
        for d in 0..40 {
            let words: Vec<String> = (0..12)
                .map(|_| match next(3) {
                    0 => format!("{name}{}", next(20)),
                    _ => format!("common{}", next(60 + c as u64 * 5)),
                })
                .collect();
            std::fs::write(root.join(name).join(format!("{d:03}.txt")), words.join(" ")).unwrap();
        }
    }
    root
}

#[test]
fn class_folders_over_three_processes_equal_the_simulation() {
    let dir = tempfile::tempdir().unwrap();
    let root = class_folders(dir.path());
    let single_path = dir.path().join("single.model");
    let flags = ["--min-df", "2"];
    crate::common::stdout_of(
        bin()
            .arg("train")
            .arg(&root)
            .arg("-o")
            .arg(&single_path)
            .args(flags),
    );
    let single = Model::load(&single_path).unwrap();
    let mut cfg = TrainConfig::default();
    cfg.vocab.min_df = 2;
    let docs = read(&root, None).unwrap().docs;
    let out = dir.path().join("cluster.model");
    let mut args = vec![root.to_str().unwrap(), "-o", out.to_str().unwrap()];
    args.extend(flags);
    succeeded(&run_cluster(dir.path(), &args, 3));
    let model = Model::load(&out).unwrap();
    equals_the_simulation(&model, &single, &docs, &cfg, 3);
    // The idf weights travel too: features weigh differently.
    let g = model.geometry();
    let n = model.vocab().len() as u32;
    assert!(
        (1..n).any(|j| g.weight(j) != g.weight(0)),
        "idf travels too"
    );
}

/// Text of two classes over processes takes the default PA's two-class C, as one process
/// does: every process agrees on the classes before any fits.
#[test]
fn two_class_text_over_processes_takes_the_two_class_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("reviews");
    for (name, words) in [
        ("pos", ["good", "fine", "great"]),
        ("neg", ["bad", "poor", "dull"]),
    ] {
        std::fs::create_dir_all(root.join(name)).unwrap();
        for d in 0..20 {
            let text = format!(
                "{} {} w{} x{}",
                words[d % 3],
                words[(d + 1) % 3],
                d % 7,
                d % 4
            );
            std::fs::write(root.join(name).join(format!("{d:02}.txt")), text).unwrap();
        }
    }
    let out = dir.path().join("two.model");
    succeeded(&run_cluster(
        dir.path(),
        &[root.to_str().unwrap(), "-o", out.to_str().unwrap()],
        2,
    ));
    let model = Model::load(&out).unwrap();
    let options = &model.meta().options;
    assert!(options.starts_with("C 0.3,"), "{options}");
}

#[test]
fn cluster_flags_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let out = dir.path().join("m.model");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--processes", "2", "--process", "2"],
            "--process 2 is not one of the 2 processes",
        ),
        (&["--processes", "2"], "needs --process I"),
        (
            &["--processes", "2", "--process", "0", "--learner", "winnow"],
            "winnow",
        ),
        (
            &["--processes", "2", "--process", "0", "--holdout", "0.2"],
            "--holdout does not run with --processes",
        ),
    ];
    for (flags, wanted) in cases {
        let e = crate::common::stderr_of_failure(
            bin()
                .arg("train")
                .arg(data("tiny.tsv"))
                .arg("-o")
                .arg(&out)
                .args(flags)
                .arg("--hostfile")
                .arg(&hosts)
                .arg("--cluster-key")
                .arg(key(dir.path())),
        );
        assert!(e.contains(wanted), "{flags:?}: {e}");
    }
    let e = crate::common::stderr_of_failure(
        bin()
            .arg("train")
            .arg(data("tiny.tsv"))
            .arg("-o")
            .arg(&out)
            .args(["--processes", "3", "--process", "0", "--hostfile"])
            .arg(&hosts)
            .arg("--cluster-key")
            .arg(key(dir.path())),
    );
    assert!(e.contains("2 addresses for 3 processes"), "{e}");
    let no_key = crate::common::stderr_of_failure(
        bin()
            .arg("train")
            .arg(data("tiny.tsv"))
            .arg("-o")
            .arg(&out)
            .args(["--processes", "2", "--process", "0", "--hostfile"])
            .arg(&hosts),
    );
    assert!(
        no_key.contains("--processes needs --cluster-key FILE"),
        "{no_key}"
    );
    let e = crate::common::stderr_of_failure(
        bin()
            .arg("train")
            .arg(data("tiny.tsv"))
            .arg("-o")
            .arg(&out)
            .args(["--processes", "2", "--process", "0", "--hostfile"])
            .arg(&hosts)
            .arg("--cluster-key")
            .arg(key(dir.path()))
            .args(["--connect-timeout", "18446744073709551615"]),
    );
    assert!(
        e.contains("--connect-timeout must be 1 to 604800 seconds"),
        "{e}"
    );
}

/// `cluster-key FILE` writes a key only its owner may read, and will not overwrite one.
#[test]
fn cluster_key_creates_a_private_key_once() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("k");
    bin().arg("cluster-key").arg(&k).assert().success();
    rosenblatt::distributed::ClusterKey::load(&k).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&k).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let e = crate::common::stderr_of_failure(bin().arg("cluster-key").arg(&k));
    assert!(e.contains("exists"), "{e}");
}
