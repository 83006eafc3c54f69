//! `train --tune`: the grid is cross-validated on the training documents only, the winner
//! is the best mean (as the library's own cross-validation computes it), the table is
//! printed, kept in the model and shown by `inspect`, a budget skips points, and binary,
//! multiclass, multi-label and SVMlight inputs all tune.

use crate::common::{bin, data, stderr_of_failure, stdout_of};
use rosenblatt::experiment::{Grid, GridPoint, TuneOptions, stratified_kfold};
use rosenblatt::features::TermCounts;
use rosenblatt::input::Document;
use rosenblatt::model::Model;
use rosenblatt::text::{Analyzer, Source};
use rosenblatt::training;
use rosenblatt::training::TrainConfig;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// A seeded corpus of `n` documents over `classes` classes: each document has three
/// words of its class's own (`cC_W`) among five noise words, and every seventh document
/// one word of the next class, so no learner is perfect.
fn corpus(n: usize, classes: usize, seed: u64) -> Vec<(String, String)> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    (0..n)
        .map(|i| {
            let c = i % classes;
            let mut words: Vec<String> = (0..3).map(|_| format!("c{c}_{}", next(6))).collect();
            words.extend((0..5).map(|_| format!("noise{}", next(40))));
            if i % 7 == 0 {
                words.push(format!("c{}_{}", (c + 1) % classes, next(6)));
            }
            (format!("class{c}"), words.join(" "))
        })
        .collect()
}

/// Writes `docs` as a `label<TAB>text` file.
fn write_tsv(path: &Path, docs: &[(String, String)]) {
    let mut s = String::new();
    for (l, t) in docs {
        writeln!(s, "{l}\t{t}").unwrap();
    }
    std::fs::write(path, s).unwrap();
}

/// `train … --tune … --json` on `args`; the summary.
fn train_json(args: &[&str]) -> Value {
    let out = stdout_of(bin().arg("train").args(args).args(["--tune", "--json"]));
    serde_json::from_str(&out).unwrap()
}

/// The means of a JSON table's rows (`None` for skipped rows).
fn means(t: &Value) -> Vec<Option<f64>> {
    t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["result"]["mean"].as_f64())
        .collect()
}

#[test]
fn the_table_is_printed_kept_in_the_model_and_shown_by_inspect() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let m = model.to_str().unwrap();
    let tsv = dir.path().join("c.tsv");
    write_tsv(&tsv, &corpus(60, 2, 1));
    let v = train_json(&[tsv.to_str().unwrap(), "-o", m]);
    let t = &v["tuning"];
    assert_eq!(t["score"], "accuracy");
    assert_eq!(t["documents"], 60);
    // Two classes: the 32 points of the default grid and a naive-Bayes twin of each of
    // its 8 idf points on binary rows.
    assert_eq!(t["rows"].as_array().unwrap().len(), 40);
    let means: Vec<f64> = means(t).into_iter().map(Option::unwrap).collect();
    let best = t["best"].as_u64().unwrap() as usize;
    let top = means.iter().cloned().fold(f64::MIN, f64::max);
    assert_eq!(means[best], top);
    assert!(
        means[..best].iter().all(|&x| x < top),
        "ties go to the earlier point"
    );
    // The model holds the table, and inspect shows the same one.
    let saved = Model::load(&model).unwrap();
    let table = saved.meta().tuning.as_ref().unwrap();
    // Compared through JSON text, as the summary was printed.
    let recorded: Value = serde_json::from_str(&serde_json::to_string(table).unwrap()).unwrap();
    assert_eq!(recorded, *t);
    let winner = &table.winner().flags;
    assert!(
        saved.meta().options.contains(winner.as_str()),
        "{}",
        saved.meta().options
    );
    assert!(winner.contains(&format!("--learner {}", saved.meta().learner)));
    let inspect: Value =
        serde_json::from_str(&stdout_of(bin().args(["inspect", "-m", m, "--json"]))).unwrap();
    assert_eq!(inspect["tuning"], *t);
    let text = stdout_of(bin().args(["inspect", "-m", m]));
    assert!(text.contains("tuning: 5-fold cross-validation"), "{text}");
    assert!(text.contains(&format!("best: {winner}")), "{text}");
    let star = text
        .lines()
        .find(|l| l.trim_start().starts_with('*'))
        .unwrap();
    assert!(star.ends_with(winner.as_str()), "{star}");
}

#[test]
fn held_out_documents_take_no_part_in_tuning() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("c.tsv");
    write_tsv(&tsv, &corpus(100, 2, 2));
    let m = dir.path().join("m");
    let v = train_json(&[
        tsv.to_str().unwrap(),
        "-o",
        m.to_str().unwrap(),
        "--holdout",
        "0.3",
    ]);
    // 30 of the 100 documents are held out: tuning and training see the other 70.
    assert_eq!(v["tuning"]["documents"], 70);
    assert_eq!(v["documents"], 70);
    assert_eq!(v["held_out"]["documents"], 30, "{}", v["held_out"]);
}

#[test]
fn the_winner_is_the_best_mean_of_the_library_cross_validation() {
    let docs: Vec<Document> = corpus(90, 3, 3)
        .into_iter()
        .enumerate()
        .map(|(i, (l, t))| Document::new(i.to_string(), t, Some(&l)))
        .collect();
    let cfg = TrainConfig {
        analyzer: Analyzer::standard(Source::Text, true),
        vocab: Default::default(),
        learner: rosenblatt::learn::Check::check(
            rosenblatt::learn::AnyLearner::from_name("perceptron").unwrap(),
        )
        .unwrap(),
        positive: None,
        options: String::new(),
        geometry: Default::default(),
        term_counts: Default::default(),
        workers: None,
        threshold: None,
        calibrate: false,
    };
    let points: Vec<GridPoint> = Grid::default()
        .points()
        .iter()
        .map(|p| p.with_defaults().unwrap())
        .collect();
    let table = training::tune(&docs, &cfg, &points, TuneOptions::default(), &|_| {}).unwrap();
    assert_eq!(table.evaluated(), points.len());
    // Every point, independently: the documents vectorized once, the same stratified
    // folds, `cross_validate_rows` with the point's configuration.
    let classes = rosenblatt::training::classes_of(&docs, None).unwrap();
    let idx = rosenblatt::training::class_indices(&docs, &classes).unwrap();
    let rows_of = |counts| {
        rosenblatt::training::vectorize_training_rows(&cfg.analyzer, counts, &cfg.vocab, &docs).1
    };
    let (binary, counted) = (rows_of(TermCounts::Binary), rows_of(TermCounts::Sublinear));
    let splits = stratified_kfold(&idx, 5, 42).unwrap();
    let mut best = (0, f64::MIN);
    for (i, p) in points.iter().enumerate() {
        let c = training::config_of(&cfg, p).unwrap();
        let x = if p.spec.counts.counted() {
            &counted
        } else {
            &binary
        };
        let folds: Vec<f64> = training::cross_validate_rows(x, &idx, &classes, &c, &splits)
            .unwrap()
            .iter()
            .map(|m| m.accuracy())
            .collect();
        assert_eq!(
            table.rows[i].result.as_ref().unwrap().folds,
            folds,
            "{}",
            p.flags()
        );
        let mean = folds.iter().sum::<f64>() / folds.len() as f64;
        if mean > best.1 {
            best = (i, mean);
        }
    }
    assert_eq!(table.best, best.0);
}

#[test]
fn a_spent_budget_skips_the_remaining_points_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("c.tsv");
    write_tsv(&tsv, &corpus(60, 2, 4));
    let m = dir.path().join("m");
    let (tsv, m) = (tsv.to_str().unwrap(), m.to_str().unwrap());
    let v = train_json(&[tsv, "-o", m, "--tune-budget", "0"]);
    let means = means(&v["tuning"]);
    let done = means.iter().take_while(|x| x.is_some()).count();
    assert!(
        done >= 1 && done < means.len(),
        "{done} of {} done",
        means.len()
    );
    assert!(means[done..].iter().all(Option::is_none));
    assert!((v["tuning"]["best"].as_u64().unwrap() as usize) < done);
    assert_eq!(v["tuning"]["budget_seconds"], 0.0);
    let text = stdout_of(bin().args(["train", tsv, "-o", m, "--tune", "--tune-budget", "0"]));
    assert!(text.contains("skipped (budget spent)"), "{text}");
}

#[test]
fn multiclass_and_multi_label_corpora_tune() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("c.tsv");
    write_tsv(&tsv, &corpus(90, 3, 5));
    let m = dir.path().join("m");
    let v = train_json(&[tsv.to_str().unwrap(), "-o", m.to_str().unwrap()]);
    assert_eq!(v["classes"].as_array().unwrap().len(), 3);
    assert_eq!(v["tuning"]["score"], "accuracy");
    let best = v["tuning"]["best"].as_u64().unwrap() as usize;
    assert!(means(&v["tuning"])[best].unwrap() > 0.8, "{}", v["tuning"]);
    // Multi-label: every document has its class's label, every third one also "extra"
    // (marked by a word of its own).
    let mut jsonl = String::new();
    for (i, (l, t)) in corpus(120, 3, 6).into_iter().enumerate() {
        let mut labels = vec![l];
        let mut text = t;
        if i % 3 == 0 {
            labels.push("extra".into());
            text.push_str(" bonus");
        }
        let line = serde_json::json!({ "labels": labels, "text": text });
        writeln!(jsonl, "{line}").unwrap();
    }
    let path = dir.path().join("ml.jsonl");
    std::fs::write(&path, jsonl).unwrap();
    let v = train_json(&[
        path.to_str().unwrap(),
        "-o",
        m.to_str().unwrap(),
        "--tune-folds",
        "3",
        "--learner",
        "pa",
    ]);
    let t = &v["tuning"];
    assert_eq!(t["score"], "micro-F1");
    assert_eq!(t["folds"], 3);
    assert!(t["thresholds"].as_str().unwrap().contains("quarter"), "{t}");
    // --learner pa fixes the learner: its two C values × three geometries and sublinear
    // counts.
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    assert!(
        rows.iter()
            .all(|r| r["flags"].as_str().unwrap().starts_with("--learner pa "))
    );
    let best = t["best"].as_u64().unwrap() as usize;
    assert!(means(t)[best].unwrap() > 0.7, "{t}");
    let model = Model::load(&m).unwrap();
    assert!(matches!(
        model.predictor(),
        rosenblatt::model::Predictor::MultiLabel(_)
    ));
}

#[test]
fn flags_fix_their_dimension_of_the_grid() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    let tiny = data("tiny");
    let (tiny, m) = (tiny.to_str().unwrap(), m.to_str().unwrap());
    // PA with C = 0.5, on tiny, tuned over 3 folds, and `more`.
    let fixed = |more: &[&str]| {
        let args = [
            tiny,
            "-o",
            m,
            "--tune-folds",
            "3",
            "--learner",
            "pa",
            "--pa-c",
            "0.5",
        ];
        train_json(&[&args[..], more].concat())
    };
    let v = fixed(&["--weighting", "idf"]);
    let flags: Vec<&str> = v["tuning"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["flags"].as_str().unwrap())
        .collect();
    assert_eq!(
        flags,
        [
            "--learner pa --pa-c 0.5 --weighting idf --normalize none",
            "--learner pa --pa-c 0.5 --weighting idf --normalize l2",
            "--learner pa --pa-c 0.5 --weighting idf --normalize l2 --term-counts sublinear"
        ]
    );
    // --term-counts fixes the counts: binary rows alone, or counts on every geometry (and
    // on the naive-Bayes twin of the idf one, the weighting not being fixed).
    let v = fixed(&["--weighting", "idf", "--term-counts", "binary"]);
    assert_eq!(v["tuning"]["rows"].as_array().unwrap().len(), 2);
    let v = fixed(&["--normalize", "none", "--term-counts", "sublinear"]);
    let rows = v["tuning"]["rows"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        3,
        "binary, idf and nb weighting, unscaled: {rows:?}"
    );
    assert!(rows.iter().all(|r| {
        r["flags"]
            .as_str()
            .unwrap()
            .ends_with("--term-counts sublinear")
    }));
    // A flag only logistic regression takes keeps logistic regression alone.
    let v = train_json(&[tiny, "-o", m, "--tune-folds", "3", "--l2", "0.001"]);
    let rows = v["tuning"]["rows"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        5,
        "three geometries, sublinear counts and the idf point's naive-Bayes twin"
    );
    assert_eq!(v["learner"], "logistic");
    assert!(
        rows.iter()
            .all(|r| r["flags"].as_str().unwrap().contains("--l2 0.001 ")),
        "{rows:?}"
    );
    // --ngrams sets the grid's n-gram order: every point is cross-validated on pairs.
    let v = train_json(&[tiny, "-o", m, "--tune-folds", "3", "--ngrams", "2"]);
    let rows = v["tuning"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 40);
    assert!(
        rows.iter()
            .all(|r| r["flags"].as_str().unwrap().ends_with(" --ngrams 2")),
        "{rows:?}"
    );
}

#[test]
fn unsupported_combinations_are_refused_with_a_sentence() {
    let tiny = data("tiny");
    let tiny = tiny.to_str().unwrap();
    for (args, expect) in [
        (vec!["--tune", "--cv", "3"], "--tune-folds"),
        (
            vec!["--tune", "--learner", "kernel-perceptron"],
            "kernel perceptron",
        ),
        (
            vec!["--tune", "--tune-budget", "-1"],
            "--tune-budget must be",
        ),
        (vec!["--tune", "--tune-folds", "1"], "at least 2 folds"),
        (vec!["--tune-folds", "3"], "apply to --tune only"),
        (
            vec!["--tune", "--alpha", "2"],
            "only --learner winnow reads it",
        ),
    ] {
        let err = stderr_of_failure(bin().args(["train", tiny, "-o", "/dev/null/m"]).args(&args));
        assert!(err.contains(expect), "{args:?}: {err}");
    }
}

#[test]
fn svmlight_rows_tune_on_their_training_part() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = String::new();
    for i in 0..80 {
        let (label, base) = if i % 2 == 0 { ("+1", 1) } else { ("-1", 20) };
        let noise = 40 + (i * 7) % 30;
        writeln!(s, "{label} {}:1 {}:1 {noise}:1", base + i % 5, base + 10).unwrap();
    }
    let svm = dir.path().join("rows.svm");
    std::fs::write(&svm, s).unwrap();
    let m = dir.path().join("m");
    let v = train_json(&[
        svm.to_str().unwrap(),
        "-o",
        m.to_str().unwrap(),
        "--holdout",
        "0.25",
    ]);
    assert_eq!(v["tuning"]["documents"], 60);
    assert_eq!(v["held_out"]["accuracy"], 1.0, "{}", v["held_out"]);
}

#[test]
fn a_model_deciding_at_a_calibrated_probability_is_tuned_by_its_ranking() {
    use rosenblatt::experiment::Score;
    let docs: Vec<Document> = corpus(120, 2, 5)
        .into_iter()
        .enumerate()
        .map(|(i, (l, t))| Document::new(i.to_string(), t, Some(&l)))
        .collect();
    let cfg = |threshold| TrainConfig {
        threshold,
        ..TrainConfig::default()
    };
    let points: Vec<GridPoint> = Grid::default()
        .points()
        .iter()
        .map(|p| p.with_defaults().unwrap())
        .collect();
    let tune = |c: &TrainConfig| {
        training::tune(&docs, c, &points, TuneOptions::default(), &|_| {}).unwrap()
    };
    // Deciding at P > 0.9: every fold scored by ROC AUC, which ranks better than chance
    // on this corpus and is no accuracy (a fold may rank perfectly and still misclassify).
    let ranked = tune(&cfg(Some(rosenblatt::learn::SPAM_ODDS)));
    assert_eq!(ranked.score, Score::RocAuc);
    for row in &ranked.rows {
        for &f in &row.result.as_ref().unwrap().folds {
            assert!((0.5..=1.0).contains(&f), "{f}");
        }
    }
    let best = ranked.rows[ranked.best].result.as_ref().unwrap().mean;
    assert!(
        ranked
            .rows
            .iter()
            .all(|r| r.result.as_ref().unwrap().mean <= best)
    );
    // At score 0 (no calibrated threshold) the same grid is scored by accuracy.
    assert_eq!(tune(&cfg(None)).score, Score::Accuracy);
    // The command line says which figure it chose by.
    let dir = tempfile::tempdir().unwrap();
    let (corpus, _) = crate::common::corpus_and_filter(dir.path());
    let out = stdout_of(
        bin()
            .args(["train", "--tune", "--spam"])
            .arg(corpus.join("spam"))
            .arg("--ham")
            .arg(corpus.join("ham"))
            .arg("-o")
            .arg(dir.path().join("t.model")),
    );
    assert!(out.contains("scored by ROC AUC"), "{out}");
}

#[test]
fn two_classes_add_naive_bayes_points_and_tune_ngrams_lists_the_orders() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    let m = m.to_str().unwrap();
    let flags_of = |v: &Value| -> Vec<String> {
        v["tuning"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["flags"].as_str().unwrap().to_string())
            .collect()
    };
    let two = dir.path().join("two.tsv");
    write_tsv(&two, &corpus(60, 2, 3));
    let two = two.to_str().unwrap();
    // PA's grid on the two-class corpus, with more flags.
    let pa_grid = |more: &[&str]| {
        let args = [two, "-o", m, "--tune-folds", "3", "--learner", "pa"];
        train_json(&[&args[..], more].concat())
    };
    // Each idf point is followed by its naive-Bayes twin, pairs after single words.
    let words = flags_of(&pa_grid(&[]));
    let v = pa_grid(&["--tune-ngrams", "1,2"]);
    let flags = flags_of(&v);
    assert_eq!(flags.len(), 20, "{flags:?}");
    assert_eq!(&flags[..10], &words[..]);
    for (f, w) in flags[10..].iter().zip(&words) {
        assert_eq!(f, &format!("{w} --ngrams 2"));
    }
    for (i, f) in flags.iter().enumerate() {
        if f.contains("--weighting nb") {
            let idf = f.replace("--weighting nb --nb-alpha 1", "--weighting idf");
            assert_eq!(flags[i - 1], idf, "{flags:?}");
        }
    }
    assert_eq!(
        flags
            .iter()
            .filter(|f| f.contains("--weighting nb"))
            .count(),
        4
    );
    // The winner is trained as its row says, pairs and naive-Bayes weights included.
    let best = &flags[v["tuning"]["best"].as_u64().unwrap() as usize];
    let inspect = stdout_of(bin().args(["inspect", "-m", m]));
    assert!(inspect.contains(best.as_str()), "{best} not in\n{inspect}");
    // Three classes: no naive-Bayes point (its ratios compare two classes).
    let three = dir.path().join("three.tsv");
    write_tsv(&three, &corpus(60, 3, 3));
    let v = train_json(&[
        three.to_str().unwrap(),
        "-o",
        m,
        "--tune-folds",
        "3",
        "--learner",
        "pa",
    ]);
    let flags = flags_of(&v);
    assert_eq!(flags.len(), 8);
    assert!(flags.iter().all(|f| !f.contains("nb")), "{flags:?}");
    // An order given twice runs once.
    assert_eq!(flags_of(&pa_grid(&["--tune-ngrams", "2,1,2"])).len(), 20);
    // SVMlight rows have no words to pair.
    let svm = dir.path().join("rows.svm");
    std::fs::write(&svm, "+1 1:1 2:1\n-1 3:1\n+1 1:1\n-1 3:1 4:1\n").unwrap();
    let err = stderr_of_failure(bin().arg("train").arg(&svm).args([
        "-o",
        m,
        "--tune",
        "--tune-ngrams",
        "1,2",
    ]));
    assert!(
        err.contains("--tune-ngrams makes n-grams of words"),
        "{err}"
    );
    // The flag's own refusals.
    for (args, says) in [
        (
            vec!["--tune", "--tune-ngrams", "1,2", "--ngrams", "2"],
            "give one of them",
        ),
        (vec!["--tune-ngrams", "2"], "apply to --tune only"),
        (
            vec!["--tune", "--tune-ngrams", "9"],
            "--tune-ngrams orders must be from 1 (words only) to 8, got 9",
        ),
        (
            vec!["--tune", "--tune-ngrams", "1,-2"],
            "--tune-ngrams must be a whole number of at least 1, got -2",
        ),
    ] {
        let err = stderr_of_failure(bin().arg("train").arg(two).args(["-o", m]).args(&args));
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
