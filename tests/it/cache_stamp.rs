//! A row cache (`train --cache FILE`) is reused only by a run of the same inputs and
//! options: a file added to, removed from or moved between class folders, a file
//! rewritten, another document bound, analyzer, pruning rule or format makes it stale,
//! refused with a sentence saying what changed — so no cached run trains another model
//! than the run without the cache. A cache truncated, replaced or overwritten while
//! `train` reads it ends the run with a model or a sentence, never a signal; a folder or
//! the model's own path is refused as a cache before anything is read.

use crate::common::{bin, stderr_of_failure};
use crate::train_stream::assert_same_model;
use rand::{Rng, SeedableRng};
use rosenblatt::model::Model;
use std::path::{Path, PathBuf};

/// Words of class `class` for document `i`: `len` words, some of them the class's cues.
fn text(class: usize, i: usize, len: usize) -> String {
    (0..len)
        .map(|k| {
            if (i + k).is_multiple_of(3) {
                format!("cue{class}w{}", (i * 7 + k) % 11)
            } else {
                format!("w{}", (i * 13 + k * 5) % 97)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Class folders `corp/c0`, `corp/c1`, `corp/c2` under `dir`, `n` files each; every
/// fourth file holds more than 3 KiB.
fn class_folders(dir: &Path, n: usize) -> PathBuf {
    let corp = dir.join("corp");
    for c in 0..3 {
        let class = corp.join(format!("c{c}"));
        std::fs::create_dir_all(&class).unwrap();
        for i in 0..n {
            let len = if i % 4 == 0 { 700 } else { 20 + i % 30 };
            std::fs::write(class.join(format!("{i:03}.txt")), text(c, i, len)).unwrap();
        }
    }
    corp
}

/// `train FLAGS [--cache CACHE] -o MODEL INPUTS`.
fn train(
    flags: &[String],
    cache: Option<&Path>,
    model: &Path,
    inputs: &[PathBuf],
) -> assert_cmd::Command {
    let mut cmd = bin();
    cmd.arg("train").args(flags);
    if let Some(c) = cache {
        cmd.arg("--cache").arg(c);
    }
    cmd.arg("-o").arg(model).args(inputs);
    cmd
}

/// The stderr of a `train --cache` run that succeeds.
fn cached(flags: &[String], cache: &Path, model: &Path, inputs: &[PathBuf]) -> String {
    let out = train(flags, Some(cache), model, inputs).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

/// Moves the first `n` files of `from` (in name order) into `to`.
fn move_files(from: &Path, to: &Path, n: usize) {
    let mut names: Vec<_> = std::fs::read_dir(from)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    std::fs::create_dir_all(to).unwrap();
    for name in names.into_iter().take(n) {
        std::fs::rename(from.join(&name), to.join(&name)).unwrap();
    }
}

#[test]
fn a_class_folder_cache_is_stale_once_files_move_out_back_or_between_classes() {
    let dir = tempfile::tempdir().unwrap();
    let corp = class_folders(dir.path(), 100);
    let aside = dir.path().join("aside");
    let cache = dir.path().join("d.rows");
    let model = dir.path().join("m");
    let inputs = [corp.clone()];
    move_files(&corp.join("c0"), &aside, 30);
    cached(&[], &cache, &model, &inputs);
    move_files(&aside, &corp.join("c0"), 30);
    let err = stderr_of_failure(&mut train(&[], Some(&cache), &model, &inputs));
    assert!(
        err.contains("d.rows")
            && err.contains("stale")
            && err.contains("the files under")
            && err.contains("270 when the cache was made, 300 now"),
        "{err}"
    );
    // Files moved from one class to another: as many files, other labels.
    std::fs::remove_file(&cache).unwrap();
    cached(&[], &cache, &model, &inputs);
    let moved = dir.path().join("moved");
    move_files(&corp.join("c0"), &moved, 50);
    for e in std::fs::read_dir(&moved).unwrap() {
        let e = e.unwrap();
        let to = corp
            .join("c1")
            .join(format!("from-c0-{}", e.file_name().to_string_lossy()));
        std::fs::rename(e.path(), to).unwrap();
    }
    let err = stderr_of_failure(&mut train(&[], Some(&cache), &model, &inputs));
    assert!(
        err.contains("stale") && err.contains("changed after the cache was made"),
        "{err}"
    );
}

#[test]
fn a_cache_made_under_another_document_bound_is_stale() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [class_folders(dir.path(), 40)];
    let cache = dir.path().join("m.rows");
    let model = dir.path().join("m");
    let bound = ["--max-document-bytes".to_string(), "3K".to_string()];
    cached(&bound, &cache, &model, &inputs);
    let err = stderr_of_failure(&mut train(&[], Some(&cache), &model, &inputs));
    assert!(
        err.contains("m.rows") && err.contains("it was made with --max-document-bytes 3072"),
        "{err}"
    );
}

#[test]
fn a_folder_or_the_model_path_is_refused_as_a_cache_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [class_folders(dir.path(), 10)];
    let folder = dir.path().join("rows");
    std::fs::create_dir(&folder).unwrap();
    let model = dir.path().join("m");
    let err = stderr_of_failure(&mut train(&[], Some(&folder), &model, &inputs));
    assert!(
        err.contains("is a folder") && err.contains("a row cache is a file"),
        "{err}"
    );
    assert!(!model.exists());
    // The same path for the cache and the model: refused while neither exists, so the
    // model never overwrites the cache.
    let same = dir.path().join("x");
    let err = stderr_of_failure(&mut train(&[], Some(&same), &same, &inputs));
    assert!(
        err.contains("--cache") && err.contains("also where"),
        "{err}"
    );
    assert!(!same.exists());
    // A cache inside the folder it is the cache of would change it: refused at once.
    let inside = inputs[0].join("c.rows");
    let err = stderr_of_failure(&mut train(&[], Some(&inside), &model, &inputs));
    assert!(err.contains("lies in the input folder"), "{err}");
    assert!(!inside.exists() && !model.exists());
}

#[test]
fn a_cache_of_standard_input_is_refused_even_beside_a_file_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    // A file named `-` where the run starts: its size and time say nothing of stdin.
    std::fs::write(dir.path().join("-"), "a\tone two\n").unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args([
            "train", "--format", "tsv", "--cache", "c.rows", "-o", "m", "-",
        ])
        .write_stdin("a\tone two\nb\tthree four\n")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("standard input (-) cannot be checked again"),
        "{err}"
    );
    assert!(!dir.path().join("c.rows").exists() && !dir.path().join("m").exists());
}

/// A change to a run's flags and inputs (or to the files they name).
type Apply = Box<dyn Fn(&mut Vec<String>, &mut Vec<PathBuf>)>;

/// One change to the inputs or options, and the words its refusal must hold.
struct Change {
    apply: Apply,
    says: &'static str,
}

#[test]
fn no_cached_run_trains_another_model_than_the_run_without_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let corp = class_folders(dir.path(), 30);
    let tsv = dir.path().join("c.tsv");
    let lines: String = (0..90)
        .map(|i| format!("c{}\t{}\n", i % 3, text(i % 3, i, 25)))
        .collect();
    std::fs::write(&tsv, &lines).unwrap();
    let (c0, c1) = (corp.join("c0"), corp.join("c1"));
    let flag = |f: &'static [&'static str]| -> Apply {
        Box::new(move |flags, _| flags.extend(f.iter().map(|s| s.to_string())))
    };
    let changes = vec![
        Change {
            apply: Box::new({
                let c0 = c0.clone();
                move |_, _| std::fs::write(c0.join("new.txt"), text(0, 5, 40)).unwrap()
            }),
            says: "90 when the cache was made, 91 now",
        },
        Change {
            apply: Box::new({
                let c1 = c1.clone();
                move |_, _| std::fs::remove_file(c1.join("003.txt")).unwrap()
            }),
            says: "91 when the cache was made, 90 now",
        },
        Change {
            apply: Box::new({
                let (c0, c1) = (c0.clone(), c1.clone());
                move |_, _| std::fs::rename(c0.join("005.txt"), c1.join("from-c0-005.txt")).unwrap()
            }),
            says: "changed after the cache was made",
        },
        Change {
            apply: Box::new({
                let c1 = c1.clone();
                move |_, _| std::fs::write(c1.join("006.txt"), text(2, 6, 33)).unwrap()
            }),
            says: "changed after the cache was made",
        },
        Change {
            apply: flag(&["--max-document-bytes", "3K"]),
            says: "--max-document-bytes 67108864",
        },
        Change {
            apply: flag(&["--ngrams", "2"]),
            says: "other text options",
        },
        Change {
            apply: flag(&["--min-df", "2"]),
            says: "pruned under other rules",
        },
        Change {
            apply: flag(&["--format", "dir"]),
            says: "it was read as each input's format detected",
        },
        Change {
            apply: Box::new({
                let tsv = tsv.clone();
                move |flags, inputs| {
                    flags.truncate(flags.len() - 2);
                    *inputs = vec![tsv.clone()];
                }
            }),
            says: "not",
        },
        Change {
            apply: Box::new({
                let (tsv, lines) = (tsv.clone(), lines.clone());
                move |_, _| std::fs::write(&tsv, format!("{lines}c1\tone more\n")).unwrap()
            }),
            says: "c.tsv changed",
        },
    ];
    let cache = dir.path().join("rows.cache");
    let [plain, first, again] = ["p", "f", "a"].map(|m| dir.path().join(m));
    let (mut flags, mut inputs) = (Vec::<String>::new(), vec![corp.clone()]);
    cached(&flags, &cache, &first, &inputs);
    for change in &changes {
        (change.apply)(&mut flags, &mut inputs);
        let err = stderr_of_failure(&mut train(&flags, Some(&cache), &again, &inputs));
        assert!(
            err.contains("rows.cache") && err.contains("stale") && err.contains(change.says),
            "{:?} {:?}: {err}",
            flags,
            change.says
        );
        std::fs::remove_file(&cache).unwrap();
        train(&flags, None, &plain, &inputs).assert().success();
        cached(&flags, &cache, &first, &inputs);
        let err = cached(&flags, &cache, &again, &inputs);
        assert!(err.contains("from the cache"), "{err}");
        let plain = Model::load(&plain).unwrap();
        assert_same_model(&plain, &Model::load(&first).unwrap());
        assert_same_model(&plain, &Model::load(&again).unwrap());
    }
}

/// What is done to the cache while `train` reads it.
#[derive(Debug, Clone, Copy)]
enum Hurt {
    Truncate,
    Replace,
    Overwrite,
}

#[test]
fn a_cache_changed_while_train_reads_it_ends_the_run_with_a_model_or_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("c.tsv");
    let lines: String = (0..600)
        .map(|i| format!("c{}\t{}\n", i % 3, text(i % 3, i, 40)))
        .collect();
    std::fs::write(&tsv, &lines).unwrap();
    let other_tsv = dir.path().join("o.tsv");
    let half: String = lines.lines().take(300).map(|l| format!("{l}\n")).collect();
    std::fs::write(&other_tsv, half).unwrap();
    let (pristine, other) = (
        dir.path().join("pristine.rows"),
        dir.path().join("other.rows"),
    );
    let model = dir.path().join("m");
    cached(&[], &pristine, &model, std::slice::from_ref(&tsv));
    cached(&[], &other, &model, &[other_tsv]);
    let cache = dir.path().join("s.rows");
    let epochs = ["--epochs".to_string(), "200".to_string()];
    // How long one undisturbed run takes: the window the changes fall in.
    std::fs::copy(&pristine, &cache).unwrap();
    let start = std::time::Instant::now();
    cached(&epochs, &cache, &model, std::slice::from_ref(&tsv));
    let window = start.elapsed().as_micros().max(1000) as u64;
    let undisturbed = Model::load(&model).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(51);
    for hurt in [Hurt::Truncate, Hurt::Replace, Hurt::Overwrite] {
        for _ in 0..20 {
            std::fs::copy(&pristine, &cache).unwrap();
            let _ = std::fs::remove_file(&model);
            let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
                .arg("train")
                .args(&epochs)
                .arg("--cache")
                .arg(&cache)
                .arg("-o")
                .arg(&model)
                .arg(&tsv)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            std::thread::sleep(std::time::Duration::from_micros(rng.gen_range(0..window)));
            match hurt {
                Hurt::Truncate => std::fs::File::options()
                    .write(true)
                    .open(&cache)
                    .unwrap()
                    .set_len(1000)
                    .unwrap(),
                Hurt::Replace => {
                    std::fs::copy(&other, &cache).unwrap();
                }
                Hurt::Overwrite => {
                    use std::io::{Seek, SeekFrom, Write};
                    let mut f = std::fs::File::options().write(true).open(&cache).unwrap();
                    let len = f.metadata().unwrap().len() as usize;
                    f.seek(SeekFrom::Start(8)).unwrap();
                    f.write_all(&vec![0xFF; len / 2]).unwrap();
                }
            }
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.code().is_some() && !err.contains("panicked"),
                "{hurt:?}: {:?} {err}",
                out.status
            );
            if out.status.success() {
                // A run that read its private copy before the change trains the model of
                // the undisturbed cache.
                assert_same_model(&Model::load(&model).unwrap(), &undisturbed);
            } else {
                assert!(err.contains("s.rows"), "{hurt:?}: {err}");
            }
        }
    }
}
