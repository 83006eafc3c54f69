//! `--plot FILE.svg`: every chart is parsed as SVG and its series are checked against
//! the figures the command prints (the ROC path, the heat map's cells, the learning
//! curve's blocks, the training run's mistakes, the bench's bars), and a name that is not
//! .svg is refused before any work.

use crate::common::{bin, data, stderr_of_failure, stdout_of};
use std::path::{Path, PathBuf};

/// The colours of the charts' first, second and fifth series (Okabe–Ito blue, vermilion,
/// sky blue), as the SVG writes them.
const FIRST: &str = "#0072B2";
const SECOND: &str = "#D55E00";
const FIFTH: &str = "#56B4E9";

/// A chart as read back: its polylines and lines (stroke, points), filled rectangles (fill),
/// outlined rectangles (stroke) and texts, in document order.
struct Chart {
    lines: Vec<(String, Vec<(f64, f64)>)>,
    filled: Vec<String>,
    outlined: Vec<String>,
    texts: Vec<(String, f64)>,
}

impl Chart {
    /// Parses the SVG file at `path` (it must be well-formed SVG of 800×500 pixels).
    fn read(path: &Path) -> Chart {
        let svg = std::fs::read_to_string(path).unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("the chart is well-formed XML");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(root.attribute("width"), Some("800"));
        assert_eq!(root.attribute("height"), Some("500"));
        let mut c = Chart {
            lines: vec![],
            filled: vec![],
            outlined: vec![],
            texts: vec![],
        };
        for n in root.descendants().filter(|n| n.is_element()) {
            let a = |k: &str| n.attribute(k).unwrap_or("").to_string();
            match n.tag_name().name() {
                "polyline" => {
                    let pts = a("points")
                        .split_whitespace()
                        .map(|p| {
                            let (x, y) = p.split_once(',').unwrap();
                            (x.parse().unwrap(), y.parse().unwrap())
                        })
                        .collect();
                    c.lines.push((a("stroke"), pts));
                }
                "line" => {
                    let num = |k: &str| a(k).parse::<f64>().unwrap();
                    let pts = vec![(num("x1"), num("y1")), (num("x2"), num("y2"))];
                    c.lines.push((a("stroke"), pts));
                }
                "rect" if a("fill") == "none" => c.outlined.push(a("stroke")),
                "rect" => c.filled.push(a("fill")),
                "text" => c.texts.push((
                    n.text().unwrap_or("").trim().to_string(),
                    a("y").parse().unwrap(),
                )),
                _ => {}
            }
        }
        c
    }

    /// The longest polyline drawn in `color` (a series, not its legend mark).
    fn series(&self, color: &str) -> &[(f64, f64)] {
        self.lines
            .iter()
            .filter(|l| l.0 == color)
            .map(|l| &l.1[..])
            .max_by_key(|p| p.len())
            .unwrap_or_else(|| panic!("no series in {color}"))
    }

    /// Whether some text contains `s`.
    fn says(&self, s: &str) -> bool {
        self.texts.iter().any(|t| t.0.contains(s))
    }

    /// The texts that are whole numbers (the counts written in heat-map cells).
    fn counts(&self) -> Vec<u64> {
        self.texts.iter().filter_map(|t| t.0.parse().ok()).collect()
    }

    /// The y pixel of the tick label `label`.
    fn tick_y(&self, label: &str) -> f64 {
        self.texts.iter().find(|t| t.0 == label).unwrap().1
    }
}

/// JSON printed by a successful run.
fn json(cmd: &mut assert_cmd::Command) -> serde_json::Value {
    serde_json::from_str(&stdout_of(cmd)).unwrap()
}

/// Trains a model on `input` with `args` into `dir/NAME`.
fn trained(dir: &Path, name: &str, args: &[&str], input: &Path) -> PathBuf {
    let model = dir.join(name);
    bin()
        .arg("train")
        .args(args)
        .arg("-o")
        .arg(&model)
        .arg(input)
        .assert()
        .success();
    model
}

/// Trains `learner` (2 epochs) on tests/data/tiny into `dir/NAME`.
fn tiny_model(dir: &Path, name: &str, learner: &str) -> PathBuf {
    trained(
        dir,
        name,
        &["--learner", learner, "--epochs", "2"],
        &data("tiny"),
    )
}

/// `eval --json` of `model` on `input`, charted into `svg`: the printed figures and the
/// chart read back.
fn eval_plot(model: &Path, input: &Path, svg: &Path) -> (serde_json::Value, Chart) {
    let v = json(
        bin()
            .args(["eval", "--json", "-m"])
            .arg(model)
            .arg(input)
            .arg("--plot")
            .arg(svg),
    );
    (v, Chart::read(svg))
}

/// A four-class corpus with some documents that mix two classes' words: 30, 20, 12 and
/// 8 documents, written as `label<TAB>text`.
fn four_classes(path: &Path) -> u64 {
    let words = [
        ("sport", ["goal", "match", "team", "score", "coach"]),
        ("tech", ["computer", "chip", "code", "network", "cloud"]),
        ("food", ["recipe", "cook", "taste", "bread", "sauce"]),
        ("travel", ["flight", "hotel", "beach", "tour", "ticket"]),
    ];
    let mut s = String::new();
    let mut n = 0;
    for i in 0..30 {
        for (c, (label, w)) in words.iter().enumerate() {
            if i >= [30, 20, 12, 8][c] {
                continue;
            }
            let other = words[(c + i) % 4].1;
            let mix = if i % 4 == 3 { other[i % 5] } else { "" };
            s.push_str(&format!(
                "{label}\t{} {} the {mix} {}\n",
                w[i % 5],
                w[(i + 2) % 5],
                other[(i + 1) % 5]
            ));
            n += 1;
        }
    }
    std::fs::write(path, s).unwrap();
    n
}

#[test]
fn a_name_that_is_not_svg_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let png = dir.path().join("chart.png");
    let err = stderr_of_failure(
        bin()
            .args(["train", "-o"])
            .arg(&model)
            .arg(data("tiny"))
            .arg("--plot")
            .arg(&png),
    );
    assert!(err.contains("chart.png"), "{err}");
    assert!(err.contains("charts are written as SVG only"), "{err}");
    assert!(
        !model.exists(),
        "no model is trained when the chart name is refused"
    );
    assert!(!png.exists());
    for args in [
        vec!["inspect", "-m", "whatever"],
        vec!["bench", "--rows", "10"],
    ] {
        let err = stderr_of_failure(bin().args(&args).arg("--plot").arg(&png));
        assert!(err.contains("SVG only"), "{err}");
    }
}

#[test]
fn the_roc_path_climbs_from_the_bottom_left_to_the_top_right_corner() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path(), "m", "perceptron");
    let svg = dir.path().join("roc.svg");
    // Scored on the TSV corpus (other texts than the training folders): not a perfect
    // ranking, so the path has real steps.
    let (v, c) = eval_plot(&model, &data("tiny.tsv"), &svg);
    let roc = c.series(FIRST);
    assert!(roc.len() >= 3);
    for w in roc.windows(2) {
        // Pixel y grows downwards: the true-positive rate never falls, nor the false one.
        assert!(
            w[1].0 >= w[0].0 && w[1].1 <= w[0].1,
            "not monotone: {roc:?}"
        );
    }
    // (0, 0): the left edge (where the chance line starts) at the 0% tick; (1, 1): the
    // right edge (where chance ends) at the 100% tick.
    let chance = c.series("#000000");
    assert!(
        chance.len() > 10,
        "the chance line is the longest black one"
    );
    assert_eq!(roc[0], (chance[0].0, c.tick_y("0")));
    assert_eq!(
        *roc.last().unwrap(),
        (chance.last().unwrap().0, c.tick_y("100"))
    );
    assert!(c.says("m: AUC "));
    assert_eq!(v["documents"], 6);
    assert!(c.says("spam is the positive class"));
}

#[test]
fn a_spam_filter_and_a_second_one_share_the_roc_chart() {
    let dir = tempfile::tempdir().unwrap();
    let (spam, ham) = (data("tiny").join("spam"), data("tiny").join("ham"));
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    crate::common::train_filter(
        &spam,
        &ham,
        &a,
        &["--learner", "perceptron", "--epochs", "1"],
    );
    crate::common::train_filter(&spam, &ham, &b, &["--learner", "pa"]);
    let svg = dir.path().join("two.svg");
    // Filter a charted beside the filter `other`, on the tiny mail.
    let compare = |other: &Path| {
        let mut cmd = bin();
        cmd.args(["eval", "--json", "-m"])
            .arg(&a)
            .arg("--spam")
            .arg(&spam)
            .arg("--ham")
            .arg(&ham)
            .arg("--plot")
            .arg(&svg)
            .arg("--plot-compare")
            .arg(other);
        cmd
    };
    let v = json(&mut compare(&b));
    let c = Chart::read(&svg);
    for color in [FIRST, SECOND] {
        let s = c.series(color);
        assert!(s.len() >= 2 && s.windows(2).all(|w| w[1].0 >= w[0].0 && w[1].1 <= w[0].1));
    }
    let auc = v["auc"].as_f64().unwrap();
    assert!(c.says(&format!("a: AUC {auc:.4}")), "{:?}", c.texts);
    assert!(c.says("b: AUC "));
    // Comparing needs two binary models with the same classes.
    let tsv = dir.path().join("c.tsv");
    four_classes(&tsv);
    let mc = trained(dir.path(), "mc", &[], &tsv);
    let err = stderr_of_failure(&mut compare(&mc));
    assert!(err.contains("--plot-compare"), "{err}");
}

#[test]
fn the_heat_map_has_k_by_k_cells_whose_counts_sum_to_the_documents() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("c.tsv");
    let n = four_classes(&tsv);
    let model = trained(
        dir.path(),
        "m",
        &["--learner", "perceptron", "--epochs", "1"],
        &tsv,
    );
    let svg = dir.path().join("heat.svg");
    let (v, c) = eval_plot(&model, &tsv, &svg);
    assert_eq!(v["documents"].as_u64(), Some(n));
    let cells = c.outlined.iter().filter(|s| *s == "#FFFFFF").count();
    assert_eq!(cells, 16, "4 × 4 cells");
    assert_eq!(c.counts().iter().sum::<u64>(), n);
    // The diagonal's counts are the correct documents: the accuracy printed.
    let correct = (v["accuracy"].as_f64().unwrap() * n as f64).round() as u64;
    assert!(c.counts().iter().sum::<u64>() >= correct);
    // Each class's F1, as printed, on its row.
    for class in ["sport", "tech", "food", "travel"] {
        let f1 = v["per_class"][class]["f1"].as_f64().unwrap();
        assert!(c.says(&format!("{f1:.2}")), "{class} F1 {f1}");
    }
    // --plot-classes 2: the two largest classes only, said in the note.
    bin()
        .args(["eval", "-m"])
        .arg(&model)
        .arg(&tsv)
        .arg("--plot")
        .arg(&svg)
        .args(["--plot-classes", "2"])
        .assert()
        .success();
    let c = Chart::read(&svg);
    assert_eq!(c.outlined.iter().filter(|s| *s == "#FFFFFF").count(), 4);
    assert!(
        c.says("2 largest of 4 classes (50 of 70 documents)"),
        "{:?}",
        c.texts
    );
    assert!(c.says("sport") && c.says("tech") && !c.says("travel"));
}

#[test]
fn a_multi_label_heat_map_counts_the_labels_given() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("ml.jsonl");
    let mut s = String::new();
    for i in 0..12 {
        s.push_str(&format!(
            "{{\"labels\":[\"grain\",\"wheat\"],\"text\":\"wheat harvest grain {i}\"}}\n"
        ));
        s.push_str(&format!(
            "{{\"labels\":[\"grain\"],\"text\":\"grain corn silo {i}\"}}\n"
        ));
        s.push_str(&format!(
            "{{\"labels\":[\"oil\"],\"text\":\"crude oil barrel {i}\"}}\n"
        ));
    }
    std::fs::write(&jsonl, s).unwrap();
    let model = trained(dir.path(), "m", &[], &jsonl);
    let svg = dir.path().join("ml.svg");
    let (v, c) = eval_plot(&model, &jsonl, &svg);
    assert_eq!(c.outlined.iter().filter(|s| *s == "#FFFFFF").count(), 9);
    assert!(c.says("labels given against true labels"));
    // The diagonal holds the labels found: at least the true positives of every label.
    let found: f64 = ["grain", "wheat", "oil"]
        .iter()
        .map(|l| {
            let p = &v["per_class"][l];
            p["recall"].as_f64().unwrap() * p["support"].as_f64().unwrap()
        })
        .sum();
    assert!(c.counts().iter().sum::<u64>() as f64 >= found.round());
}

#[test]
fn the_learning_curve_has_one_point_per_block() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = String::new();
    for i in 0..10 {
        let spam = dir.path().join(format!("s{i}.eml"));
        let ham = dir.path().join(format!("h{i}.eml"));
        std::fs::write(
            &spam,
            format!("Subject: FREE CASH {i}\n\nwin free cash now, click\n"),
        )
        .unwrap();
        std::fs::write(
            &ham,
            format!("Subject: agenda {i}\n\nthe meeting agenda is in the wiki\n"),
        )
        .unwrap();
        index.push_str(&format!("spam s{i}.eml\nham h{i}.eml\n"));
    }
    std::fs::write(dir.path().join("index"), index).unwrap();
    let svg = dir.path().join("curve.svg");
    let v = json(
        bin()
            .args(["eval", "--json", "--online"])
            .arg(dir.path().join("index"))
            .args(["--learner", "perceptron", "--block", "8", "--plot"])
            .arg(&svg),
    );
    let blocks = v["curve"].as_array().unwrap().len();
    assert_eq!(blocks, 3);
    let c = Chart::read(&svg);
    // Errors per block: one point each, at the block's end, left to right.
    let errors = c.series(SECOND);
    assert_eq!(errors.len(), blocks);
    assert!(errors.windows(2).all(|w| w[1].0 > w[0].0));
    assert!(c.says("3 blocks of 8"));
}

#[test]
fn the_training_chart_adds_up_to_the_reported_updates() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let svg = dir.path().join("train.svg");
    let v = json(
        bin()
            .args([
                "train",
                "--json",
                "--learner",
                "perceptron",
                "--epochs",
                "4",
                "-o",
            ])
            .arg(&model)
            .arg(data("tiny"))
            .arg("--plot")
            .arg(&svg),
    );
    let c = Chart::read(&svg);
    let updates = v["updates"].as_u64().unwrap();
    assert!(updates > 0);
    assert!(
        c.says(&format!("cumulative mistakes (total {updates})")),
        "{:?}",
        c.texts
    );
    assert!(c.says(&format!("updates k = {updates}")));
    let epochs = v["epochs"].as_u64().unwrap() as usize;
    assert_eq!(
        c.series(FIRST).len(),
        epochs,
        "one cumulative point per epoch"
    );
    // One bar per epoch, plus the legend's box.
    assert_eq!(c.filled.iter().filter(|f| *f == FIFTH).count(), epochs + 1);
    let bound = v["theory"]["novikoff_bound"].as_f64();
    assert_eq!(c.says("Novikoff bound"), bound.is_some());
    if let Some(b) = bound {
        assert!(c.says(&format!("(R/γ)² = {b:.0}")));
    }
}

#[test]
fn the_tuning_chart_has_an_error_bar_per_grid_point() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("c.tsv");
    four_classes(&tsv);
    let model = dir.path().join("m");
    let svg = dir.path().join("tune.svg");
    let v = json(
        bin()
            .args(["train", "--json", "--tune", "--learner", "perceptron", "-o"])
            .arg(&model)
            .arg(&tsv)
            .arg("--plot")
            .arg(&svg),
    );
    let rows = v["tuning"]["rows"].as_array().unwrap();
    let scored = rows.iter().filter(|r| !r["result"].is_null()).count();
    let c = Chart::read(&svg);
    // An error bar is three strokes (the bar and its two caps).
    let strokes = c
        .lines
        .iter()
        .filter(|l| l.0 == FIRST || l.0 == SECOND)
        .filter(|l| l.1.len() == 2 && (l.1[0].0 == l.1[1].0 || l.1[0].1 == l.1[1].1))
        .count();
    assert!(
        strokes >= 3 * scored,
        "{strokes} strokes for {scored} points"
    );
    let best = v["tuning"]["best"].as_u64().unwrap() + 1;
    assert!(c.says(&format!("chosen: point {best}")));
}

#[test]
fn inspect_draws_the_strongest_words() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path(), "m", "perceptron");
    let svg = dir.path().join("words.svg");
    let v = json(
        bin()
            .args(["inspect", "--json", "--top", "5", "-m"])
            .arg(&model)
            .arg("--plot")
            .arg(&svg),
    );
    let c = Chart::read(&svg);
    for side in ["most_positive", "most_negative"] {
        for w in v[side].as_array().unwrap() {
            let word = w[0].as_str().unwrap();
            assert!(c.texts.iter().any(|t| t.0 == word), "{word} not drawn");
        }
    }
    let bars =
        v["most_positive"].as_array().unwrap().len() + v["most_negative"].as_array().unwrap().len();
    let drawn = c
        .filled
        .iter()
        .filter(|f| *f == FIRST || *f == SECOND)
        .count();
    assert_eq!(drawn, bars);
}

#[test]
fn bench_draws_one_bar_per_learner_and_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("bench.svg");
    stdout_of(
        bin()
            .args(["bench", "--rows", "300", "--features", "100", "--nnz", "10"])
            .args(["--learner", "perceptron,pa", "--threads", "1,2", "--plot"])
            .arg(&svg),
    );
    let c = Chart::read(&svg);
    // Each learner: training (1 thread) and prediction at 1 and 2 threads.
    let train = c.filled.iter().filter(|f| *f == FIRST).count();
    let predict = c.filled.iter().filter(|f| *f == SECOND).count();
    assert_eq!((train, predict), (2, 4));
    assert!(c.says("pa predict, 2 threads") && c.says("perceptron train, 1 thread"));
}
