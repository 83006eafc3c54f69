//! Labelled horizontal bars laid out on a drawing area: the strongest words of `inspect`
//! and the throughputs of `bench` (one bar per named row, its value written beside it,
//! an axis with round ticks below).

use super::{Area, FONT, GREY, axis_style};
use anyhow::Result;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One bar: its row label, its length (≥ 0) and its colour.
pub struct Bar {
    /// The row's label.
    pub label: String,
    /// The value, drawn to scale.
    pub value: f64,
    /// The bar's colour.
    pub color: RGBColor,
}

/// Round ticks from 0 to at least `max`: steps of 1, 2 or 5 times a power of ten, 3 to 6
/// of them.
pub fn ticks(max: f64) -> Vec<f64> {
    if max <= 0.0 || !max.is_finite() {
        return vec![0.0, 1.0];
    }
    let raw = max / 4.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| max / s <= 5.0)
        .unwrap_or(10.0 * mag);
    let n = (max / step - 1e-9).ceil() as usize;
    (0..=n).map(|i| i as f64 * step).collect()
}

/// Draws `bars` top to bottom on `area`, labels in a column `label_px` wide on the left,
/// an axis described by `desc` below; `fmt` writes values (and the ticks of a short axis). `fail` turns a
/// drawing error into the command's error.
pub fn draw(
    area: &Area,
    bars: &[Bar],
    label_px: i32,
    desc: &str,
    fmt: &dyn Fn(f64) -> String,
    fail: &dyn Fn(&dyn std::fmt::Display) -> anyhow::Error,
) -> Result<()> {
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    let max = bars.iter().map(|b| b.value).fold(0.0, f64::max);
    let ticks = ticks(max);
    let top_tick = *ticks.last().unwrap_or(&1.0);
    let (x0, y0) = (label_px + 8, 6);
    let full = (w - x0 - 70).max(20);
    let rows = bars.len().max(1) as i32;
    let row = ((h - y0 - 58) / rows).clamp(6, 40);
    let size = (f64::from(row) * 0.62).clamp(8.0, 13.0);
    let scale = |v: f64| x0 + (v / top_tick * f64::from(full)).round() as i32;
    for (i, b) in bars.iter().enumerate() {
        let y = y0 + i as i32 * row;
        let pad = (row / 6).max(1);
        area.draw(&Rectangle::new(
            [(x0, y + pad), (scale(b.value), y + row - pad)],
            b.color.filled(),
        ))
        .map_err(|e| fail(&e))?;
        let text = |s: String, x: i32, h: HPos| {
            Text::new(
                s,
                (x, y + row / 2),
                TextStyle::from((FONT, size).into_font()).pos(Pos::new(h, VPos::Center)),
            )
        };
        area.draw(&text(b.label.clone(), x0 - 6, HPos::Right))
            .map_err(|e| fail(&e))?;
        area.draw(&text(fmt(b.value), scale(b.value) + 4, HPos::Left))
            .map_err(|e| fail(&e))?;
    }
    let axis_y = y0 + rows * row + 2;
    area.draw(&PathElement::new(
        vec![(x0, axis_y), (x0 + full, axis_y)],
        GREY.stroke_width(1),
    ))
    .map_err(|e| fail(&e))?;
    for &t in &ticks {
        let x = scale(t);
        area.draw(&PathElement::new(
            vec![(x, axis_y), (x, axis_y + 4)],
            GREY.stroke_width(1),
        ))
        .map_err(|e| fail(&e))?;
        let tick = if top_tick >= 10.0 {
            format!("{t:.0}")
        } else {
            fmt(t)
        };
        area.draw(&Text::new(
            tick,
            (x, axis_y + 6),
            TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(|e| fail(&e))?;
    }
    area.draw(&Text::new(
        desc.to_string(),
        (x0 + full / 2, axis_y + 26),
        axis_style().pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(|e| fail(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_maximum() {
        assert_eq!(ticks(10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(37.0), vec![0.0, 10.0, 20.0, 30.0, 40.0]);
        assert_eq!(ticks(0.8).len(), 5);
        for max in [0.8, 3.0, 99.0, 123_456.0] {
            let t = ticks(max);
            assert!(t.len() >= 3 && t.len() <= 7, "{max}: {t:?}");
            assert!(*t.last().unwrap() >= max * (1.0 - 1e-9));
        }
        assert_eq!(ticks(0.0), vec![0.0, 1.0]);
    }
}
