//! The seed lecture's mistake-bound study: k-literal conjunctions over {−1, 1}^d.
//!
//! A conjunction of k literals is linearly separable: with u = ±1 on its literals,
//! u·x − (k − 1) is 1 when all k hold and at most −1 otherwise. Folding the bias in as a
//! constant feature, that separator has margin 1/√(k + (k − 1)²) and the rows have radius
//! √(d + 1), so Novikoff bounds the perceptron's mistakes by (d + 1)(k² − k + 1); the
//! lecture states the looser d(2k² − 2k + 1). Both grow linearly with d. Winnow's bound
//! grows with k·log d instead, which the table shows beside the perceptron's counts.
//! XOR, the smallest inseparable set, makes the perceptron err in every epoch forever,
//! while the kernel perceptron with (x·z + 1)² separates it.
//!
//! Run with `cargo run --release --example conjunctions`; add `-- --plot FILE.svg` to
//! draw the table as a chart (mistakes against d, one panel per k: the perceptron,
//! Winnow and the two bounds, log scales).

use rand::{Rng, SeedableRng};
use rosenblatt::features::real_from_dense;
use rosenblatt::learn::{
    AnyLearner, Bias, Check, Kernel, KernelPerceptron, Label, Learner, Perceptron, Schedule, Winnow,
};
use rosenblatt::theory;

/// Examples drawn per (d, k).
const M: usize = 2000;

/// `M` uniform points of {−1, 1}^d labelled by the conjunction of literals `lits`
/// (feature index, required sign). Half the draws are forced positive so both classes
/// are well represented whatever k is.
fn sample(d: usize, lits: &[(usize, f32)], rng: &mut impl Rng) -> (Vec<Vec<f32>>, Vec<Label>) {
    let (mut xs, mut ys) = (Vec::with_capacity(M), Vec::with_capacity(M));
    for n in 0..M {
        let mut x: Vec<f32> = (0..d)
            .map(|_| if rng.r#gen::<bool>() { 1.0 } else { -1.0 })
            .collect();
        if n % 2 == 0 {
            for &(j, s) in lits {
                x[j] = s;
            }
        }
        let pos = lits.iter().all(|&(j, s)| x[j] == s);
        xs.push(x);
        ys.push(if pos { 1 } else { -1 });
    }
    (xs, ys)
}

/// One line of the table: d, k, the perceptron's and Winnow's mistakes, and the two
/// perceptron bounds ((d + 1)(k² − k + 1) and the lecture's d(2k² − 2k + 1)).
type Row = (usize, usize, u64, u64, usize, usize);

/// Draws the mistake table into the SVG file `path`: one panel per k, mistakes against
/// d on log scales.
fn plot(path: &std::path::Path, rows: &[Row]) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    use std::io::Write;
    let colors = [
        RGBColor(0, 114, 178),
        RGBColor(213, 94, 0),
        RGBColor(90, 90, 90),
        RGBColor(0, 158, 115),
    ];
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        root.fill(&WHITE)?;
        let root = root.titled(
            "Mistakes on k-literal conjunctions against d",
            ("sans-serif", 22).into_font().style(FontStyle::Bold),
        )?;
        let root = root.titled(
            &format!("{M} random examples of {{-1,1}}^d each; perceptron until a clean epoch, Winnow 200 epochs"),
            TextStyle::from(("sans-serif", 15).into_font()).color(&colors[2]),
        )?;
        let top = rows.iter().map(|r| r.4.max(r.5) as u64).max().unwrap_or(1) as f64 * 2.0;
        let ds: Vec<usize> = rows.iter().map(|r| r.0).collect();
        let (d_lo, d_hi) = (
            *ds.iter().min().unwrap_or(&1),
            *ds.iter().max().unwrap_or(&2),
        );
        for (i, panel) in root.split_evenly((1, 3)).iter().enumerate() {
            let k = i + 1;
            let mut chart = ChartBuilder::on(panel)
                .caption(format!("k = {k}"), ("sans-serif", 17))
                .margin(8)
                .x_label_area_size(44)
                .y_label_area_size(if k == 1 { 56 } else { 40 })
                .build_cartesian_2d(
                    (d_lo as f64).log2() - 0.3..(d_hi as f64).log2() + 0.3,
                    (0.8..top).log_scale(),
                )?;
            chart
                .configure_mesh()
                .x_desc("d (features, log scale)")
                .y_desc(if k == 1 { "mistakes (log scale)" } else { "" })
                .axis_desc_style(("sans-serif", 15))
                .label_style(("sans-serif", 13))
                .x_labels(6)
                .x_label_formatter(&|v| format!("{:.0}", v.exp2()))
                .y_label_formatter(&|v| format!("{v:.0}"))
                .light_line_style(WHITE.mix(0.0))
                .bold_line_style(BLACK.mix(0.12))
                .draw()?;
            let of_k: Vec<&Row> = rows.iter().filter(|r| r.1 == k).collect();
            let series: [(&str, Vec<(f64, f64)>); 4] = [
                (
                    "perceptron",
                    of_k.iter()
                        .map(|r| ((r.0 as f64).log2(), r.2.max(1) as f64))
                        .collect(),
                ),
                (
                    "Winnow",
                    of_k.iter()
                        .map(|r| ((r.0 as f64).log2(), r.3.max(1) as f64))
                        .collect(),
                ),
                (
                    "(d+1)(k²-k+1)",
                    of_k.iter()
                        .map(|r| ((r.0 as f64).log2(), r.4 as f64))
                        .collect(),
                ),
                (
                    "d(2k²-2k+1)",
                    of_k.iter()
                        .map(|r| ((r.0 as f64).log2(), r.5 as f64))
                        .collect(),
                ),
            ];
            for (j, (name, pts)) in series.into_iter().enumerate() {
                let c = colors[j];
                chart
                    .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
                    .label(name)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3))
                    });
                chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))?;
            }
            if k == 1 {
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::UpperLeft)
                    .label_font(("sans-serif", 12))
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK.mix(0.4))
                    .draw()?;
            }
        }
        root.present()?;
    }
    let mut f = rosenblatt::atomic::AtomicFile::create(path)?;
    f.write_all(svg.as_bytes())?;
    f.commit()?;
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let chart = match args.as_slice() {
        [] => None,
        [flag, file] if flag == "--plot" && file.ends_with(".svg") => {
            Some(std::path::PathBuf::from(file))
        }
        _ => {
            eprintln!("usage: conjunctions [--plot FILE.svg] (charts are written as SVG only)");
            std::process::exit(2);
        }
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2024);
    let schedule = Schedule::UntilConvergence { max_epochs: 1000 };
    println!("k-literal conjunctions over {{-1,1}}^d, {M} random examples each");
    println!("(perceptron: augmented bias, epochs until one makes no mistake)\n");
    println!(
        "{:>4} {:>2} | {:>10} {:>6} {:>12} {:>14} {:>14} | {:>7}",
        "d", "k", "perceptron", "epochs", "(R/γ)² learnt", "(d+1)(k²-k+1)", "d(2k²-2k+1)", "winnow"
    );
    for &d in &[8usize, 16, 32, 64, 128, 256] {
        for k in 1..=3usize {
            // The first k features, with alternating signs, are the literals.
            let lits: Vec<(usize, f32)> = (0..k)
                .map(|j| (j * (d / k), if j % 2 == 0 { 1.0 } else { -1.0 }))
                .collect();
            let (xs, y) = sample(d, &lits, &mut rng);
            let x = real_from_dense(&xs);
            let p = Perceptron {
                eta: 1.0,
                bias: Bias::Augmented,
                schedule,
                shuffle: None,
            }
            .check()
            .expect("valid perceptron");
            let fit = p.fit(&x, &y).expect("two labels");
            let any = rosenblatt::learn::AnyModel::Linear(fit.model);
            let th = theory::diagnose_any(
                &any,
                &AnyLearner::Perceptron(*p),
                &x,
                &y,
                Some(fit.report.updates),
            )
            .expect("a linear model");
            let learnt = th
                .novikoff_bound
                .map_or("not separated".to_string(), |b| format!("{b:.0}"));
            let winnow = Winnow {
                epochs: 200,
                shuffle: None,
                ..Winnow::default()
            }
            .check()
            .expect("valid winnow");
            let mut w_mistakes = 0u64;
            winnow
                .fit_counting(&x, &y, || w_mistakes += 1)
                .expect("two labels");
            println!(
                "{d:>4} {k:>2} | {:>10} {:>6} {:>12} {:>14} {:>14} | {:>7}",
                fit.report.updates,
                fit.report.epochs,
                learnt,
                (d + 1) * (k * k - k + 1),
                d * (2 * k * k - 2 * k + 1),
                w_mistakes
            );
            rows.push((
                d,
                k,
                fit.report.updates,
                w_mistakes,
                (d + 1) * (k * k - k + 1),
                d * (2 * k * k - 2 * k + 1),
            ));
        }
    }
    if let Some(path) = &chart {
        if let Err(e) = plot(path, &rows) {
            eprintln!("conjunctions: error: drawing {}: {e}", path.display());
            std::process::exit(1);
        }
        println!("\nchart written to {}", path.display());
    }

    println!("\nXOR: x = (1,1), (-1,-1) positive; (1,-1), (-1,1) negative");
    let x = real_from_dense(&[vec![1., 1.], vec![-1., -1.], vec![1., -1.], vec![-1., 1.]]);
    let y = vec![1, 1, -1, -1];
    for bias in [Bias::None, Bias::Augmented, Bias::R2] {
        let fit = Perceptron {
            eta: 1.0,
            bias,
            schedule: Schedule::UntilConvergence { max_epochs: 1000 },
            shuffle: None,
        }
        .check()
        .expect("valid perceptron")
        .fit(&x, &y)
        .expect("two labels");
        let never_clean = fit.report.mistakes_per_epoch.iter().all(|&m| m > 0);
        println!(
            "  perceptron, bias {bias:?}: {} epochs, {} mistakes, converged: {}, a mistake in every epoch: {never_clean}",
            fit.report.epochs,
            fit.report.updates,
            fit.report.converged == Some(true)
        );
    }
    let fit = KernelPerceptron {
        kernel: Kernel::Polynomial {
            degree: 2,
            coef0: 1.0,
        },
        schedule: Schedule::UntilConvergence { max_epochs: 1000 },
        shuffle: None,
        ..Default::default()
    }
    .check()
    .expect("valid kernel perceptron")
    .fit(&x, &y)
    .expect("two labels");
    println!(
        "  kernel perceptron, (x·z + 1)²: converged after {} mistakes in {} epochs, α = {:?}",
        fit.report.updates, fit.report.epochs, fit.model.alpha
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_draws_each_series_of_each_k_at_every_d() {
        // Three values of d for each k: 3 panels × 4 series × 3 points.
        let mut rows: Vec<Row> = Vec::new();
        for d in [8usize, 16, 32] {
            for k in 1..=3usize {
                let p = (d * k) as u64;
                rows.push((
                    d,
                    k,
                    p,
                    p / 2 + 1,
                    (d + 1) * (k * k - k + 1),
                    d * (2 * k * k - 2 * k + 1),
                ));
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.svg");
        plot(&path, &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let circles = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle"))
            .count();
        assert_eq!(circles, 36);
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        for caption in ["k = 1", "k = 2", "k = 3", "perceptron", "Winnow"] {
            assert!(
                texts.iter().any(|t| t.trim() == caption),
                "{caption}: {texts:?}"
            );
        }
    }
}
