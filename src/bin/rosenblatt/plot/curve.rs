//! The learning curve of `eval --online` (`--plot`): the (1-ROCA)% of every message so
//! far and the errors in each block, against messages seen, so the user sees the filter
//! improve as it learns (the TREC spam track's learning curve).

use super::{COLORS, axis_style, failed, label_style, legend, legend_line, save};
use anyhow::Result;
use plotters::prelude::*;
use rosenblatt::eval::CurvePoint;
use std::path::Path;

/// Writes the learning curve `curve` (blocks of `block` messages) to `path`; `of` names
/// the filter and the index for the title, `rule` the filter's update rule.
pub fn draw(path: &Path, of: &str, rule: &str, curve: &[CurvePoint], block: usize) -> Result<()> {
    let fail = failed(path);
    let last = curve.last().map_or(1, |p| p.messages).max(1);
    let roca_max = curve
        .iter()
        .filter_map(|p| p.one_minus_roca_pct)
        .fold(0.0f64, f64::max);
    let errors_max = curve.iter().map(|p| p.block_errors).max().unwrap_or(0);
    let title = format!("Learning curve of {of}");
    let note = format!(
        "TREC online protocol ({rule}): classify, then learn each message; {} blocks of {block}",
        curve.len()
    );
    save(path, &title, &note, |area| {
        let mut chart = ChartBuilder::on(area)
            .margin(14)
            .x_label_area_size(46)
            .y_label_area_size(62)
            .right_y_label_area_size(62)
            .build_cartesian_2d(0.0..last as f64, 0.0..(roca_max * 1.1).max(0.01))
            .map_err(|e| fail(&e))?
            .set_secondary_coord(0.0..last as f64, 0.0..(errors_max as f64 * 1.1).max(1.0));
        chart
            .configure_mesh()
            .x_desc("messages seen")
            .y_desc("(1-ROCA)% of all messages so far")
            .axis_desc_style(axis_style())
            .label_style(label_style())
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.*}", decimals(roca_max)))
            .light_line_style(BLACK.mix(0.04))
            .bold_line_style(BLACK.mix(0.12))
            .draw()
            .map_err(|e| fail(&e))?;
        chart
            .configure_secondary_axes()
            .y_desc(format!("errors per block of {block} messages"))
            .axis_desc_style(axis_style())
            .label_style(label_style())
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(|e| fail(&e))?;
        let roca = curve
            .iter()
            .filter_map(|p| p.one_minus_roca_pct.map(|r| (p.messages as f64, r)));
        chart
            .draw_series(LineSeries::new(roca, COLORS[0].stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label("(1-ROCA)% so far (left axis)")
            .legend(legend_line(COLORS[0]));
        let errors = curve
            .iter()
            .map(|p| (p.messages as f64, p.block_errors as f64));
        chart
            .draw_secondary_series(LineSeries::new(errors, COLORS[1].stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label("errors in the block (right axis)")
            .legend(legend_line(COLORS[1]));
        legend(&mut chart, SeriesLabelPosition::UpperRight, path)
    })
}

/// Decimals of the (1-ROCA)% axis labels: fewer as the largest value grows.
fn decimals(max: f64) -> usize {
    match max {
        m if m >= 10.0 => 0,
        m if m >= 1.0 => 1,
        m if m >= 0.1 => 2,
        _ => 3,
    }
}
