//! The confusion heat map of a multiclass or multi-label model (`eval --plot`): rows the
//! true class, columns the predicted one, the count written in each cell, the classes
//! ordered by how many documents truly belong to them (most first); beside it, each
//! class's F1 as a bar on the same row. Names are cut in their middle, so that names
//! sharing a prefix stay apart; past the classes whose cells fit 800×500 pixels at a
//! legible size (about 20), the chart grows instead of its cells shrinking.

use super::{COLORS, FONT, GREY, SIZE, failed, save_sized};
use anyhow::Result;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// What the heat map shows.
pub struct Confusion<'a> {
    /// Every class name.
    pub classes: &'a [String],
    /// `counts[truth][predicted]`: for a single-label model, documents; for a multi-label
    /// one, documents of the row's class given the column's class (the diagonal: found;
    /// off the diagonal: a class given that the document does not have).
    pub counts: Vec<Vec<u64>>,
    /// Each class's F1.
    pub f1: Vec<f64>,
    /// Each class's documents (its true members), which orders the classes.
    pub support: Vec<u64>,
    /// Whether documents may have several classes (the cells count pairs then).
    pub multilabel: bool,
}

/// The classes shown: the `limit` with most documents, most first (ties by name order).
pub fn shown(support: &[u64], limit: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..support.len()).collect();
    order.sort_by(|&a, &b| support[b].cmp(&support[a]).then(a.cmp(&b)));
    order.truncate(limit.max(1));
    order
}

/// The smallest cell, in pixels, the chart draws: a count and a class name of 7 to 8
/// pixels still fit it. Smaller cells make the chart grow.
const MIN_CELL: i32 = 14;

/// Room the title and the note take above the drawing area, in pixels (at least).
const HEADER: i32 = 80;

/// The chart's size for `n` classes whose names take `label_px` pixels: 800×500 while
/// cells of [`MIN_CELL`] fit, else as large as such cells need.
fn size(n: usize, label_px: i32) -> (u32, u32) {
    let (left, bottom, right) = margins(label_px);
    let grid = n as i32 * MIN_CELL;
    let w = (left + grid + right + 10).max(SIZE.0 as i32);
    let h = (HEADER + grid + bottom + 8).max(SIZE.1 as i32);
    (w as u32, h as u32)
}

/// The left, bottom and right margins of the heat map: room for the row names, the
/// rotated column names and the F1 bars.
fn margins(label_px: i32) -> (i32, i32, i32) {
    (22 + label_px, 22 + label_px, 230)
}

/// A cell's colour: white for 0 to dark blue for the largest count, on a log scale so
/// that small confusions beside large diagonals still show.
fn heat(count: u64, max: u64) -> (RGBColor, f64) {
    let t = if count == 0 || max == 0 {
        0.0
    } else {
        ((count as f64).ln_1p() / (max as f64).ln_1p()).clamp(0.08, 1.0)
    };
    let blend = |hi: u8| (255.0 - t * (255.0 - f64::from(hi))).round() as u8;
    let c = COLORS[0];
    (RGBColor(blend(c.0 / 2), blend(c.1 / 2), blend(c.2 / 2)), t)
}

/// Writes the heat map and F1 bars of `c` (the `limit` largest classes) to `path`; `of`
/// names the model and the data for the title.
pub fn draw(path: &Path, of: &str, c: &Confusion, limit: usize) -> Result<()> {
    let show = shown(&c.support, limit);
    let n = show.len();
    let total_docs: u64 = c.support.iter().sum();
    let shown_docs: u64 = show.iter().map(|&i| c.support[i]).sum();
    let what = if c.multilabel {
        "labels given against true labels"
    } else {
        "predicted against true class"
    };
    let title = format!("Confusion of {of}");
    let scope = if n < c.classes.len() {
        format!(
            "{n} largest of {} classes ({shown_docs} of {total_docs} {})",
            c.classes.len(),
            if c.multilabel {
                "true labels"
            } else {
                "documents"
            }
        )
    } else if c.multilabel {
        format!("all {n} labels ({total_docs} true labels)")
    } else {
        format!("all {n} classes ({total_docs} documents)")
    };
    let note = format!("{what}: {scope}; F1 at right");
    let fail = failed(path);
    let names: Vec<String> = show
        .iter()
        .map(|&i| super::shorten_middle(&c.classes[i], 14))
        .collect();
    let longest = names.iter().map(|s| s.chars().count()).max().unwrap_or(1) as i32;
    let label_px = 12 + 7 * longest; // room for the rotated or right-aligned names
    save_sized(path, size(n, label_px), &title, &note, |area| {
        let (w, h) = area.dim_in_pixel();
        let (w, h) = (w as i32, h as i32);
        let (left, bottom, right) = margins(label_px);
        let cell = ((w - left - right - 10) / n as i32)
            .min((h - bottom - 8) / n as i32)
            .max(4);
        let (x0, y0) = (left, 4);
        let max = show
            .iter()
            .flat_map(|&r| show.iter().map(move |&p| (r, p)))
            .map(|(r, p)| c.counts[r][p])
            .max()
            .unwrap_or(0);
        let font = (f64::from(cell) * 0.46).clamp(7.0, 14.0);
        let centre = Pos::new(HPos::Center, VPos::Center);
        for (row, &t) in show.iter().enumerate() {
            for (col, &p) in show.iter().enumerate() {
                let (x, y) = (x0 + col as i32 * cell, y0 + row as i32 * cell);
                let count = c.counts[t][p];
                let (fill, depth) = heat(count, max);
                let cells = [(x, y), (x + cell, y + cell)];
                area.draw(&Rectangle::new(cells, fill.filled()))
                    .map_err(|e| fail(&e))?;
                area.draw(&Rectangle::new(cells, WHITE.stroke_width(1)))
                    .map_err(|e| fail(&e))?;
                if count > 0 {
                    let ink = if depth > 0.6 { WHITE } else { BLACK };
                    let style = TextStyle::from((FONT, font).into_font())
                        .color(&ink)
                        .pos(centre);
                    area.draw(&Text::new(
                        count.to_string(),
                        (x + cell / 2, y + cell / 2),
                        style,
                    ))
                    .map_err(|e| fail(&e))?;
                }
            }
        }
        let label = |size: f64| TextStyle::from((FONT, size).into_font());
        let names_size = (f64::from(cell) * 0.6).clamp(8.0, 13.0);
        for (i, name) in names.iter().enumerate() {
            let mid = i as i32 * cell + cell / 2;
            let row = label(names_size).pos(Pos::new(HPos::Right, VPos::Center));
            area.draw(&Text::new(name.clone(), (x0 - 5, y0 + mid), row))
                .map_err(|e| fail(&e))?;
            let col = label(names_size)
                .pos(Pos::new(HPos::Right, VPos::Center))
                .transform(FontTransform::Rotate270);
            area.draw(&Text::new(
                name.clone(),
                (x0 + mid, y0 + n as i32 * cell + 5),
                col,
            ))
            .map_err(|e| fail(&e))?;
        }
        let side = n as i32 * cell;
        let desc = label(15.0).pos(centre);
        area.draw(&Text::new(
            if c.multilabel {
                "label given"
            } else {
                "predicted class"
            },
            (x0 + side / 2, (y0 + side + label_px + 14).min(h - 10)),
            desc.clone(),
        ))
        .map_err(|e| fail(&e))?;
        area.draw(&Text::new(
            if c.multilabel {
                "true label"
            } else {
                "true class"
            },
            (10, y0 + side / 2),
            desc.transform(FontTransform::Rotate270),
        ))
        .map_err(|e| fail(&e))?;
        f1_bars(area, &fail, c, &show, (x0 + side + 60, y0), cell)
    })
}

/// Draws each shown class's F1 as a horizontal bar on its heat-map row, its value beside
/// it, over an axis from 0 to 1 starting at `origin`.
fn f1_bars(
    area: &super::Area,
    fail: &impl Fn(&dyn std::fmt::Display) -> anyhow::Error,
    c: &Confusion,
    show: &[usize],
    origin: (i32, i32),
    cell: i32,
) -> Result<()> {
    let (x0, y0) = origin;
    let full = 130;
    let side = show.len() as i32 * cell;
    let small = TextStyle::from((FONT, 12).into_font());
    for (row, &k) in show.iter().enumerate() {
        let y = y0 + row as i32 * cell;
        let len = (c.f1[k] * f64::from(full)).round() as i32;
        let pad = (cell / 6).max(1);
        area.draw(&Rectangle::new(
            [(x0, y + pad), (x0 + len, y + cell - pad)],
            COLORS[1].filled(),
        ))
        .map_err(|e| fail(&e))?;
        let size = (f64::from(cell) * 0.55).clamp(8.0, 12.0);
        area.draw(&Text::new(
            format!("{:.2}", c.f1[k]),
            (x0 + len + 4, y + cell / 2),
            TextStyle::from((FONT, size).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(|e| fail(&e))?;
    }
    let axis_y = y0 + side + 2;
    area.draw(&PathElement::new(
        vec![(x0, axis_y), (x0 + full, axis_y)],
        GREY.stroke_width(1),
    ))
    .map_err(|e| fail(&e))?;
    for (i, tick) in ["0.0", "0.5", "1.0"].iter().enumerate() {
        let x = x0 + full * i as i32 / 2;
        area.draw(&PathElement::new(
            vec![(x, axis_y), (x, axis_y + 4)],
            GREY.stroke_width(1),
        ))
        .map_err(|e| fail(&e))?;
        area.draw(&Text::new(
            tick.to_string(),
            (x, axis_y + 6),
            small.clone().pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(|e| fail(&e))?;
    }
    area.draw(&Text::new(
        "F1 per class (0 to 1)",
        (x0 + full / 2, axis_y + 26),
        TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(|e| fail(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_shown_largest_first() {
        assert_eq!(shown(&[3, 9, 3, 1], 3), vec![1, 0, 2]);
        assert_eq!(shown(&[3, 9], 10), vec![1, 0]);
    }

    #[test]
    fn the_chart_grows_only_past_the_classes_that_fit() {
        let label_px = 12 + 7 * 14;
        assert_eq!(size(4, label_px), SIZE);
        assert_eq!(size(20, label_px), SIZE);
        let (w, h) = size(52, label_px);
        assert!(w > SIZE.0 && h > SIZE.1);
        let (left, bottom, right) = margins(label_px);
        assert!(w as i32 - left - right - 10 >= 52 * MIN_CELL);
        assert!(h as i32 - HEADER - bottom - 8 >= 52 * MIN_CELL);
    }

    #[test]
    fn empty_cells_are_white() {
        assert_eq!(heat(0, 10).0, RGBColor(255, 255, 255));
        assert_ne!(heat(1, 10).0, RGBColor(255, 255, 255));
    }
}
