//! `train --plot`: the mistakes (updates) the learner made in each epoch and in all, with
//! Novikoff's bound (R/γ)² when the learned hyperplane separates the training set (log
//! scale: the bound is often far above); beside it, the share of examples the learner got
//! right during each pass, or with `--tune` the cross-validation score of each grid point
//! with its spread over the folds.

use super::{COLORS, GREY, axis_style, failed, label_style, legend, legend_box, legend_line, save};
use anyhow::Result;
use plotters::prelude::*;
use rosenblatt::experiment::TuneTable;
use std::path::Path;

/// What a training run recorded, as the chart needs it.
pub struct Training<'a> {
    /// Mistakes in each epoch (one entry for randomized training: the whole run).
    pub mistakes: &'a [u64],
    /// Epochs, as the model reports them.
    pub epochs: usize,
    /// Weight updates k, as the model reports them.
    pub updates: u64,
    /// Examples visited in all (every epoch, every one-vs-rest problem).
    pub steps: u64,
    /// Novikoff's bound (R/γ)² when the training set is separated.
    pub bound: Option<f64>,
    /// The final model's accuracy on its training documents.
    pub accuracy: f64,
    /// The `--tune` table, when the model was chosen by cross-validation.
    pub tuning: Option<&'a TuneTable>,
}

/// Writes the training chart to `path`; `of` names the learner and the data for the title.
pub fn draw(path: &Path, of: &str, t: &Training) -> Result<()> {
    let title = format!("Training of {of}");
    let total: u64 = t.mistakes.iter().sum();
    let record = if t.mistakes.is_empty() {
        " (no per-epoch record for this learner)"
    } else {
        ""
    };
    let note = format!(
        "{} epoch(s){record}, {} examples visited, updates k = {}; training accuracy {:.4}",
        t.epochs, t.steps, t.updates, t.accuracy
    );
    save(path, &title, &note, |area| {
        let (left, right) = area.split_horizontally(440);
        mistakes(&left, path, t, total)?;
        match t.tuning {
            Some(table) => tuning(&right, path, table),
            None => pass_accuracy(&right, path, t),
        }
    })
}

/// The left panel: mistakes per epoch (bars), cumulative (line) and the bound (line).
fn mistakes(area: &super::Area, path: &Path, t: &Training, total: u64) -> Result<()> {
    let fail = failed(path);
    let epochs = t.mistakes.len().max(1);
    // Headroom above the highest line for the legend.
    let top = (total.max(1) as f64).max(t.bound.unwrap_or(0.0)) * 12.0;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(66)
        .build_cartesian_2d(0.5..epochs as f64 + 0.5, (0.5..top).log_scale())
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("epoch (pass over the training set)")
        .y_desc("mistakes (log scale; 0 at the bottom)")
        .axis_desc_style(axis_style())
        .label_style(label_style())
        .x_labels(epochs.min(10))
        .y_labels(8)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(BLACK.mix(0.04))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(|e| fail(&e))?;
    let bars = t.mistakes.iter().enumerate().map(|(i, &m)| {
        let x = i as f64 + 1.0;
        Rectangle::new(
            [(x - 0.3, 0.5), (x + 0.3, (m as f64).max(0.5))],
            COLORS[4].filled(),
        )
    });
    chart
        .draw_series(bars)
        .map_err(|e| fail(&e))?
        .label("mistakes in the epoch")
        .legend(legend_box(COLORS[4]));
    let mut sum = 0u64;
    let cumulative = t.mistakes.iter().enumerate().map(|(i, &m)| {
        sum += m;
        (i as f64 + 1.0, (sum as f64).max(0.5))
    });
    chart
        .draw_series(LineSeries::new(cumulative, COLORS[0].stroke_width(2)))
        .map_err(|e| fail(&e))?
        .label(format!("cumulative mistakes (total {total})"))
        .legend(legend_line(COLORS[0]));
    if let Some(b) = t.bound {
        let line = [(0.5, b), (epochs as f64 + 0.5, b)];
        chart
            .draw_series(LineSeries::new(line, COLORS[1].stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label(format!("Novikoff bound (R/γ)² = {b:.0}"))
            .legend(legend_line(COLORS[1]));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight, path)
}

/// The right panel without `--tune`: the share of examples on the right side during each
/// pass (1 − mistakes / examples visited in the pass), against the final accuracy.
fn pass_accuracy(area: &super::Area, path: &Path, t: &Training) -> Result<()> {
    let fail = failed(path);
    let epochs = t.mistakes.len().max(1);
    let per_pass = t.steps as f64 / epochs as f64;
    let acc: Vec<(f64, f64)> = t
        .mistakes
        .iter()
        .enumerate()
        .map(|(i, &m)| (i as f64 + 1.0, 100.0 * (1.0 - m as f64 / per_pass.max(1.0))))
        .collect();
    let low = acc
        .iter()
        .map(|a| a.1)
        .fold(100.0 * t.accuracy, f64::min)
        .min(99.0);
    let low = (low - (100.0 - low) * 0.15).max(0.0).floor();
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(0.5..epochs as f64 + 0.5, low..100.0)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("training accuracy (%)")
        .axis_desc_style(axis_style())
        .label_style(label_style())
        .x_labels(epochs.min(10))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.1}"))
        .light_line_style(BLACK.mix(0.04))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(|e| fail(&e))?;
    chart
        .draw_series(LineSeries::new(
            acc.iter().copied(),
            COLORS[2].stroke_width(2),
        ))
        .map_err(|e| fail(&e))?
        .label("during the pass")
        .legend(legend_line(COLORS[2]));
    chart
        .draw_series(acc.iter().map(|&p| Circle::new(p, 3, COLORS[2].filled())))
        .map_err(|e| fail(&e))?;
    let fin = 100.0 * t.accuracy;
    chart
        .draw_series(LineSeries::new(
            [(0.5, fin), (epochs as f64 + 0.5, fin)],
            GREY.stroke_width(1),
        ))
        .map_err(|e| fail(&e))?
        .label("final model")
        .legend(legend_line(GREY));
    legend(&mut chart, SeriesLabelPosition::LowerRight, path)
}

/// The right panel with `--tune`: each grid point's mean cross-validation score with
/// bars of ± one standard deviation over the folds, the winner in its own colour.
fn tuning(area: &super::Area, path: &Path, table: &TuneTable) -> Result<()> {
    let fail = failed(path);
    let n = table.rows.len().max(1);
    let scored: Vec<(usize, f64, f64)> = table
        .rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.result.as_ref().map(|p| (i, p.mean, p.sd)))
        .collect();
    let lo = scored.iter().map(|s| s.1 - s.2).fold(1.0, f64::min);
    let hi = scored.iter().map(|s| s.1 + s.2).fold(0.0, f64::max);
    // Room below the lowest bar for the legend.
    let pad = ((hi - lo) * 0.1).max(0.002);
    let lo = lo - (hi - lo) * 0.3;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(62)
        .build_cartesian_2d(
            0.5..n as f64 + 0.5,
            (lo - pad).max(0.0)..(hi + pad).min(1.0),
        )
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("grid point (rows of the --tune table)")
        .y_desc(format!(
            "{}-fold {} (mean ± sd)",
            table.folds,
            table.score.name()
        ))
        .axis_desc_style(axis_style())
        .label_style(label_style())
        .x_labels(n.min(12))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.3}"))
        .light_line_style(BLACK.mix(0.04))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(|e| fail(&e))?;
    let color = |i: usize| {
        if i == table.best {
            COLORS[1]
        } else {
            COLORS[0]
        }
    };
    chart
        .draw_series(scored.iter().map(|&(i, m, sd)| {
            let x = i as f64 + 1.0;
            ErrorBar::new_vertical(x, m - sd, m, m + sd, color(i).filled(), 8)
        }))
        .map_err(|e| fail(&e))?
        .label("grid point")
        .legend(legend_box(COLORS[0]));
    if let Some(&(i, m, _)) = scored.iter().find(|s| s.0 == table.best) {
        chart
            .draw_series([Circle::new((i as f64 + 1.0, m), 5, COLORS[1].filled())])
            .map_err(|e| fail(&e))?
            .label(format!("chosen: point {}", i + 1))
            .legend(legend_box(COLORS[1]));
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight, path)
}
