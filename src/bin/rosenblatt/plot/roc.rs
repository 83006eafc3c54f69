//! The ROC curve of one or two binary models (`eval --plot`, `--plot-compare`): the share
//! of positives found against the share of negatives wrongly flagged, the false-positive
//! axis in log scale as the TREC spam track draws it, each curve's AUC and (1-ROCA)% in
//! the legend.

use super::{COLORS, axis_style, failed, label_style, legend, legend_line, save};
use anyhow::Result;
use plotters::prelude::*;
use std::path::Path;

/// One model's curve: its name in the legend, its ROC points (false-positive rate,
/// true-positive rate, both in [0, 1], from (0, 0) to (1, 1)) and its AUC.
pub struct Curve {
    /// The model's name, as the legend shows it.
    pub name: String,
    /// The ROC points.
    pub points: Vec<(f64, f64)>,
    /// The area under the curve.
    pub auc: f64,
    /// Negatives scored (sets the smallest false-positive rate shown).
    pub negatives: u64,
    /// Positives scored.
    pub positives: u64,
}

/// What the chart is of: the classes and the data, for the title and axes.
pub struct Labels<'a> {
    /// The negative class (ham).
    pub negative: &'a str,
    /// The positive class (spam).
    pub positive: &'a str,
    /// The data scored, as the title names it.
    pub data: &'a str,
}

/// The left edge of the log-scale false-positive axis, in percent: a power of ten below
/// one negative in `negatives` (a false-positive rate of 0 is drawn at this edge).
fn floor_pct(negatives: u64) -> f64 {
    let one = 100.0 / negatives.max(1) as f64;
    let mut edge = 10f64.powf(one.log10().floor());
    if edge >= one {
        edge /= 10.0;
    }
    edge.min(1.0)
}

/// Writes the ROC chart of `curves` to `path`.
pub fn draw(path: &Path, labels: &Labels, curves: &[Curve]) -> Result<()> {
    let most = curves.iter().map(|c| c.negatives).max().unwrap_or(1);
    let floor = floor_pct(most);
    let fail = failed(path);
    let title = if curves.len() == 1 {
        format!("ROC curve of {} on {}", curves[0].name, labels.data)
    } else {
        format!("ROC curves on {}", labels.data)
    };
    let first = curves.first();
    let note = format!(
        "{} {} and {} {} scored; {} is the positive class",
        first.map_or(0, |c| c.positives),
        labels.positive,
        first.map_or(0, |c| c.negatives),
        labels.negative,
        labels.positive
    );
    save(path, &title, &note, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(62)
            .build_cartesian_2d((floor..100.0).log_scale(), 0.0..100.0)
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc(format!(
                "false positives: % of {} called {} (log scale; 0 at the left edge)",
                labels.negative, labels.positive
            ))
            .y_desc(format!("true positives: % of {} found", labels.positive))
            .axis_desc_style(axis_style())
            .label_style(label_style())
            .x_label_formatter(&|v| percent(*v))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .light_line_style(BLACK.mix(0.04))
            .bold_line_style(BLACK.mix(0.12))
            .draw()
            .map_err(|e| fail(&e))?;
        // Chance: a curve that flags as many negatives as positives.
        let steps = 60;
        let chance = (0..=steps).map(|i| {
            let f = floor * (100.0 / floor).powf(f64::from(i) / f64::from(steps));
            (f, f)
        });
        chart
            .draw_series(LineSeries::new(chance, BLACK.mix(0.35).stroke_width(1)))
            .map_err(|e| fail(&e))?
            .label("chance")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.35)));
        for (i, c) in curves.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let pts = c
                .points
                .iter()
                .map(|&(f, t)| ((100.0 * f).max(floor), 100.0 * t));
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(|e| fail(&e))?
                .label(format!(
                    "{}: AUC {:.4}, (1-ROCA)% {:.3}",
                    c.name,
                    c.auc,
                    rosenblatt::eval::one_minus_roca_pct(c.auc)
                ))
                .legend(legend_line(color));
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight, path)
    })
}

/// A percentage as the log axis labels it: no trailing zeros ("0.1", "1", "10").
fn percent(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_starts_below_one_negative() {
        assert_eq!(floor_pct(500), 0.1); // one of 500 is 0.2%
        assert_eq!(floor_pct(50), 1.0); // 2%
        assert_eq!(floor_pct(5), 1.0); // 20%: the axis spans two decades at least
        assert_eq!(floor_pct(100), 0.1); // 1% exactly: one decade lower
        assert!(floor_pct(100_000) < 0.001);
        assert_eq!(percent(0.1), "0.1%");
        assert_eq!(percent(10.0), "10%");
    }
}
