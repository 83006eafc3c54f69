//! `--plot FILE.svg`: the charts the subcommands draw, one file per kind of chart, all in
//! one style (800×500 pixels, a title saying what is shown and on which data, labelled
//! axes with units). SVG only: plotters' bitmap backend would need system fonts or a
//! bundled font to write text, and an SVG viewer or browser renders the text itself.
//!
//! Nothing here runs unless `--plot` is given: the commands keep the data a chart needs
//! only then.

pub mod bars;
pub mod bench;
pub mod confusion;
pub mod curve;
pub mod inspect;
pub mod roc;
pub mod train;

use anyhow::{Context, Result, anyhow, bail};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::io::Write;
use std::path::Path;

/// The drawing area every chart draws on.
pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Width and height of every chart, in pixels: readable on a laptop screen and in a README.
pub const SIZE: (u32, u32) = (800, 500);

/// The one font family: SVG viewers pick their own sans-serif face.
pub const FONT: &str = "sans-serif";

/// The colours of a chart's series, in order (colour-blind safe Okabe–Ito hues).
pub const COLORS: [RGBColor; 5] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
];

/// The colour of notes and of secondary lines.
pub const GREY: RGBColor = RGBColor(90, 90, 90);

/// The error when `--plot` names a file that is not SVG, said before any work is done.
pub fn check_path(path: &Path) -> Result<()> {
    let svg = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if !svg {
        bail!(
            "--plot {}: charts are written as SVG only; name the file with a .svg ending",
            path.display()
        );
    }
    rosenblatt::atomic::check_output(path)?;
    Ok(())
}

/// Plotters' drawing errors as an error naming the chart file.
pub fn failed(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> anyhow::Error + '_ {
    move |e| anyhow!("drawing the chart {}: {e}", path.display())
}

/// Draws a chart on a white 800×500 area under its title (what is shown, bold) and a
/// note (on which data, how), with `draw` on the area left below them, and writes it to
/// `path` atomically (the old file, if any, stays whole until the new one is complete).
pub fn save(
    path: &Path,
    title: &str,
    note: &str,
    draw: impl FnOnce(&Area) -> Result<()>,
) -> Result<()> {
    save_sized(path, SIZE, title, note, draw)
}

/// [`save`] on an area of `size` pixels: for the one chart that outgrows 800×500, a heat
/// map of many classes, whose cells would otherwise be too small to read.
pub fn save_sized(
    path: &Path,
    size: (u32, u32),
    title: &str,
    note: &str,
    draw: impl FnOnce(&Area) -> Result<()>,
) -> Result<()> {
    let (title, note) = (shorten(title, 62), shorten(note, 112));
    let mut svg = String::new();
    {
        let fail = failed(path);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let below = root.titled(&title, title_style()).map_err(|e| fail(&e))?;
        let below = below.titled(&note, note_style()).map_err(|e| fail(&e))?;
        draw(&below)?;
        root.present().map_err(|e| fail(&e))?;
    }
    let mut f = rosenblatt::atomic::AtomicFile::create(path)?;
    f.write_all(svg.as_bytes())
        .with_context(|| format!("writing the chart {}", path.display()))?;
    f.commit()?;
    Ok(())
}

/// `text` cut to `n` characters (an ellipsis ending it), so that it fits the chart's width.
pub fn shorten(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        return text.to_string();
    }
    let mut s: String = text.chars().take(n - 1).collect();
    s.push('…');
    s
}

/// `text` cut to `n` characters in its middle (an ellipsis there), keeping its start
/// and its end: class names often share a prefix (`comp.sys.ibm…`, `category_12`) and
/// differ at the end.
pub fn shorten_middle(text: &str, n: usize) -> String {
    let len = text.chars().count();
    if len <= n || n < 3 {
        return shorten(text, n.max(1));
    }
    let head = (n - 1) / 2;
    let tail = n - 1 - head;
    let mut s: String = text.chars().take(head).collect();
    s.push('…');
    s.extend(text.chars().skip(len - tail));
    s
}

/// The style of a chart's title.
pub fn title_style() -> TextStyle<'static> {
    (FONT, 22).into_font().style(FontStyle::Bold).into()
}

/// The style of the note under a title: the data and how the chart was made.
pub fn note_style() -> TextStyle<'static> {
    TextStyle::from((FONT, 15).into_font()).color(&GREY)
}

/// The style of an axis description (what is measured, and its unit).
pub fn axis_style() -> TextStyle<'static> {
    (FONT, 16).into_font().into()
}

/// The style of tick labels and of the legend.
pub fn label_style() -> TextStyle<'static> {
    (FONT, 14).into_font().into()
}

/// A legend mark: a short line in the series' colour.
pub fn legend_line(color: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
}

/// A legend mark: a small filled box in the series' colour.
pub fn legend_box(color: RGBColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled())
}

/// Draws the legend of `chart` in the corner `pos`, on a white box.
pub fn legend<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    pos: SeriesLabelPosition,
    path: &Path,
) -> Result<()>
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
{
    chart
        .configure_series_labels()
        .position(pos)
        .label_font(label_style())
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(|e| failed(path)(&e))
}

/// A file name's last part, for titles ("on spam.model").
pub fn name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Inputs as titles show them: the last part of a path; paths in one folder as
/// `folder/{a, b}`; otherwise the last parts of at most three, then "…".
pub fn names(paths: &[std::path::PathBuf]) -> String {
    let parents: Vec<Option<&Path>> = paths.iter().map(|p| p.parent()).collect();
    let shared = parents
        .first()
        .copied()
        .flatten()
        .filter(|p| p.file_name().is_some());
    if let (true, Some(parent)) = (
        paths.len() > 1 && parents.windows(2).all(|w| w[0] == w[1]),
        shared,
    ) {
        let inner: Vec<String> = paths.iter().map(|p| name(p)).collect();
        return format!("{}/{{{}}}", name(parent), inner.join(", "));
    }
    let mut s: Vec<String> = paths.iter().take(3).map(|p| name(p)).collect();
    if paths.len() > 3 {
        s.push("…".into());
    }
    s.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn titles_name_inputs_shortly() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(names(&[p("/a/b/train.tsv")]), "train.tsv");
        assert_eq!(names(&[]), "");
        assert_eq!(
            names(&[p("x/test/spam"), p("x/test/ham")]),
            "test/{spam, ham}"
        );
        assert_eq!(names(&[p("a/one"), p("b/two")]), "one two");
        assert_eq!(names(&[p("a/1"), p("b/2"), p("c/3"), p("d/4")]), "1 2 3 …");
    }

    #[test]
    fn long_titles_are_cut_to_fit() {
        assert_eq!(shorten("short", 10), "short");
        assert_eq!(shorten("abcdefghijkl", 5), "abcd…");
        assert_eq!(shorten_middle("short", 10), "short");
        assert_eq!(shorten_middle("category_number_07", 14), "catego…mber_07");
        assert_eq!(shorten_middle("abcdefghijkl", 5), "ab…kl");
    }

    #[test]
    fn only_svg_names_are_accepted() {
        assert!(check_path(Path::new("/tmp/chart.svg")).is_ok());
        assert!(check_path(Path::new("/tmp/chart.SVG")).is_ok());
        let e = check_path(Path::new("/tmp/chart.png"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/tmp/chart.png") && e.contains("SVG only"),
            "{e}"
        );
        assert!(check_path(Path::new("/tmp/chart")).is_err());
    }
}
