//! Charts as inline SVG, drawn with plotters' SVG backend (text becomes `<text>` elements, so
//! no fonts are needed and labels are XML-escaped by plotters).
//!
//! Every function takes data already computed by the harness and only draws it; a chart with
//! no data is not drawn at all (the caller leaves it out of the report).

use plotters::element::DashedPathElement;
use plotters::prelude::*;

/// Size of every chart in pixels.
pub const SIZE: (u32, u32) = (760, 360);

/// Series colours, in order.
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// How many series get colours of their own; series `i` and `i + COLOURS` share one.
pub const COLOURS: usize = PALETTE.len();

/// The colour of series `i`.
pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A named sequence of (x, y) points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points in drawing order.
    pub points: Vec<(f64, f64)>,
}

/// Axis titles of a chart.
#[derive(Debug, Clone, Copy)]
pub struct Axes<'a> {
    /// Horizontal axis.
    pub x: &'a str,
    /// Vertical axis.
    pub y: &'a str,
}

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

/// An upper axis bound a little above `max` (1 when everything is zero).
fn headroom(max: f64) -> f64 {
    if max > 0.0 {
        max * 1.08
    } else {
        1.0
    }
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn svg(
    draw: impl FnOnce(DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> DrawResult,
) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        draw(root.clone()).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Width of the legend panel beside a line chart of more series than [`COLOURS`].
const LEGEND_PANEL: u32 = 230;

/// The dash and gap lengths, in pixels, of line series `i`: solid for the first
/// [`COLOURS`], then dashed, dotted and long-dashed rounds of the same colours.
fn dash(i: usize) -> Option<(u32, u32)> {
    match (i / COLOURS) % 4 {
        0 => None,
        1 => Some((7, 4)),
        2 => Some((2, 3)),
        _ => Some((14, 5)),
    }
}

/// `text` cut to `max` characters, with an ellipsis when cut.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut t: String = text.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// An axis tick as people write it: `200`, not `200.0`; `0.25`, not `0.25000`.
fn tick(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 * v.abs().max(1.0) {
        format!("{:.0}", v.round())
    } else {
        let t = format!("{v:.6}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Lines (with a marker at every point when `markers`), one per series, with a legend.
/// With more series than [`COLOURS`], the colours come round again dashed, then dotted, and
/// the legend moves to a panel beside the plot. `None` when no series has a point.
pub fn lines(series: &[Series], axes: Axes<'_>, markers: bool) -> Option<Result<String, String>> {
    let pts = || series.iter().flat_map(|s| s.points.iter().copied());
    pts().next()?;
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for (x, y) in pts() {
        x0 = x0.min(finite(x));
        x1 = x1.max(finite(x));
        y1 = y1.max(finite(y));
    }
    if x1 <= x0 {
        x0 -= 0.5;
        x1 += 0.5;
    }
    let panel = series.len() > COLOURS;
    let y_max = if panel {
        headroom(y1)
    } else {
        let points: Vec<(f64, f64, f64)> = pts()
            .map(|(x, y)| (finite(x), finite(x), finite(y)))
            .collect();
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        headroom(y1).max(clear_of_legend(
            &points,
            (x0, x1),
            &names,
            Corner::UpperLeft,
        ))
    };
    Some(svg(|root| {
        let (plot, legend) = if panel {
            let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_PANEL);
            (plot, Some(legend))
        } else {
            (root.clone(), None)
        };
        let mut chart = ChartBuilder::on(&plot)
            .margin(PLOT_MARGIN)
            .x_label_area_size(X_LABELS)
            .y_label_area_size(Y_LABELS)
            .build_cartesian_2d(x0..x1, 0.0..y_max)?;
        chart
            .configure_mesh()
            .x_desc(axes.x)
            .y_desc(axes.y)
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (i, s) in series.iter().enumerate() {
            let c = colour(i);
            let style = c.stroke_width(2);
            let data: Vec<(f64, f64)> = s
                .points
                .iter()
                .map(|&(x, y)| (finite(x), finite(y)))
                .collect();
            let drawn = match dash(i) {
                None => chart.draw_series(LineSeries::new(data.clone(), style))?,
                Some((on, off)) => {
                    chart.draw_series(DashedLineSeries::new(data.clone(), on, off, style))?
                }
            };
            if !panel {
                drawn
                    .label(s.name.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
            }
            if markers {
                chart.draw_series(data.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
            }
        }
        match legend {
            None => chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(180, 180, 180))
                .draw()?,
            Some(area) => {
                let row = ((SIZE.1 as i32 - 28) / series.len() as i32).clamp(6, 16);
                let chars = (LEGEND_PANEL as usize - 44) / 6;
                for (i, s) in series.iter().enumerate() {
                    let y = 14 + row * i as i32 + row / 2;
                    let style = colour(i).stroke_width(2);
                    let swatch = vec![(6, y), (30, y)];
                    match dash(i) {
                        None => area.draw(&PathElement::new(swatch, style))?,
                        Some((on, off)) => {
                            area.draw(&DashedPathElement::new(swatch, on, off, style))?
                        }
                    }
                    area.draw(&Text::new(
                        clip(&s.name, chars),
                        (36, y - 6),
                        ("sans-serif", 12).into_font(),
                    ))?;
                }
            }
        }
        Ok(())
    }))
}

/// Whether `labels`, one under each bar group of a chart [`SIZE`] wide, fit side by side
/// (at about 7 pixels a character, in the plot's width less its axis area).
pub fn categories_fit(labels: &[&str]) -> bool {
    fits_in(labels, f64::from(SIZE.0) - 100.0)
}

/// Whether `labels` fit side by side in `plot` pixels (see [`categories_fit`]).
fn fits_in(labels: &[&str], plot: f64) -> bool {
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64;
    (widest + 2.0) * 7.0 * labels.len() as f64 <= plot
}

/// Pixels around the plot of a chart: the margin, and the axis label areas (left, bottom),
/// as [`bars`] and [`lines`] build it.
const PLOT_MARGIN: u32 = 14;
const Y_LABELS: u32 = 64;
const X_LABELS: u32 = 42;

/// The corner of the plot where plotters draws a chart's legend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Corner {
    /// Bar charts.
    UpperRight,
    /// Line charts whose legend is not in a panel beside the plot.
    UpperLeft,
}

/// The least upper bound of a chart's vertical axis (which starts at 0) that keeps what it
/// draws clear of the legend in `corner` (one 15-pixel row per entry, about 6 pixels a
/// character and 50 of swatch and padding): anything under the legend's width must end below
/// its bottom. `items` are (left, right, top) in data coordinates (a bar, or a point with
/// left = right), `x_range` the horizontal axis, `names` the legend entries.
fn clear_of_legend(
    items: &[(f64, f64, f64)],
    x_range: (f64, f64),
    names: &[&str],
    corner: Corner,
) -> f64 {
    let plot_w = f64::from(SIZE.0 - 2 * PLOT_MARGIN - Y_LABELS);
    let plot_h = f64::from(SIZE.1 - 2 * PLOT_MARGIN - X_LABELS);
    let chars = names.iter().map(|n| n.chars().count()).max().unwrap_or(0) as f64;
    // 5 pixels in from the plot's edge, the legend's width, and a gap of 4
    let legend_w = 5.0 + 50.0 + 6.0 * chars + 4.0;
    // 5 pixels below the plot's top, a row per entry, its padding, and a gap of 4
    let legend_h = 5.0 + 15.0 * names.len() as f64 + 15.0 + 4.0;
    if legend_h >= plot_h * 0.75 || legend_w >= plot_w {
        return 0.0; // a legend this large covers the plot whatever the scale
    }
    let span = (x_range.1 - x_range.0) * legend_w / plot_w;
    let under = |(l, r): (f64, f64)| match corner {
        Corner::UpperRight => r >= x_range.1 - span,
        Corner::UpperLeft => l <= x_range.0 + span,
    };
    let free = 1.0 - legend_h / plot_h;
    items
        .iter()
        .filter(|b| under((b.0, b.1)))
        .map(|b| b.2 / free)
        .fold(0.0, f64::max)
}

/// Where a bar chart's legend goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// In the plot's upper right corner (plotters' legend box).
    Inside,
    /// In a panel [`LEGEND_PANEL`] wide beside the plot.
    Beside,
    /// In a band below the plot.
    Below(Band),
}

/// A legend laid out in columns in a band below a chart's plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Band {
    columns: usize,
    rows: usize,
    /// Characters of a name shown (longer ones are clipped).
    chars: usize,
}

impl Band {
    /// Pixels per legend row in the band.
    const ROW: u32 = 16;
    /// Widest name shown whole, in characters (about 6 pixels each).
    const MOST_CHARS: usize = 60;

    /// The band for legend entries `names`, in as many columns as the chart's width holds;
    /// `None` when it would take more than a third of the chart's height.
    fn of(names: &[&str]) -> Option<Band> {
        let chars = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(0)
            .min(Self::MOST_CHARS);
        // a swatch, a gap and the name, then a gap to the next column
        let column = 18 + 6 * chars + 16;
        let width = SIZE.0 as usize - 2 * PLOT_MARGIN as usize;
        let columns = (width / column).clamp(1, names.len().max(1));
        let rows = names.len().div_ceil(columns);
        let band = Band {
            columns,
            rows,
            chars,
        };
        (band.height() <= SIZE.1 / 3).then_some(band)
    }

    /// Height of the band in pixels.
    fn height(&self) -> u32 {
        self.rows as u32 * Self::ROW + 12
    }

    /// Where entry `i`'s swatch goes in the band (its left edge, its vertical middle), row
    /// by row.
    fn at(&self, i: usize) -> (i32, i32) {
        let width = SIZE.0 as usize - 2 * PLOT_MARGIN as usize;
        let column = width / self.columns;
        let (row, col) = (i / self.columns, i % self.columns);
        (
            (PLOT_MARGIN as usize + col * column) as i32,
            (4 + row as u32 * Self::ROW + Self::ROW / 2) as i32,
        )
    }
}

/// Bars per category; several series are drawn side by side (grouped) or, when `stacked`,
/// on top of each other, with the vertical axis tall enough that no bar runs under the
/// legend. `None` when there is no category.
pub fn bars(
    categories: &[String],
    series: &[(String, Vec<f64>)],
    axes: Axes<'_>,
    stacked: bool,
) -> Option<Result<String, String>> {
    bars_annotated(categories, series, axes, stacked, &Annotations::default())
}

/// What [`bars_annotated`] draws over side-by-side bars, each indexed like the bars (series,
/// then category); empty vectors draw nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Annotations {
    /// An interval per bar, drawn as an error bar (a vertical line with caps) from its low
    /// to its high end.
    pub intervals: Vec<Vec<Option<(f64, f64)>>>,
    /// A predicted value per bar, drawn as a cross at the bar's middle; each series' crosses
    /// are joined by a dashed line (a model's curve through the simulated points).
    pub model: Vec<Vec<Option<f64>>>,
    /// The legend's name of the crosses.
    pub model_name: String,
    /// Whether the values are counts: the vertical axis then reads `200`, not `200.0`.
    pub integer_ticks: bool,
}

/// [`bars`] (side by side, not stacked) with `notes` drawn over them: error bars, a model's
/// crosses and curve, integer tick labels.
pub fn bars_annotated(
    categories: &[String],
    series: &[(String, Vec<f64>)],
    axes: Axes<'_>,
    stacked: bool,
    notes: &Annotations,
) -> Option<Result<String, String>> {
    if categories.is_empty() || series.is_empty() {
        return None;
    }
    let n = categories.len();
    let value = |s: usize, c: usize| finite(series[s].1.get(c).copied().unwrap_or(0.0)).max(0.0);
    let note = |v: &Vec<Vec<Option<f64>>>, s: usize, c: usize| {
        v.get(s)
            .and_then(|x| x.get(c).copied().flatten())
            .map(finite)
    };
    let interval = |s: usize, c: usize| {
        notes
            .intervals
            .get(s)
            .and_then(|x| x.get(c).copied().flatten())
            .map(|(lo, hi)| (finite(lo).max(0.0), finite(hi).max(0.0)))
    };
    let top = (0..n)
        .map(|c| {
            if stacked {
                (0..series.len()).map(|s| value(s, c)).sum::<f64>()
            } else {
                (0..series.len())
                    .map(|s| {
                        value(s, c)
                            .max(interval(s, c).map_or(0.0, |(_, hi)| hi))
                            .max(note(&notes.model, s, c).unwrap_or(0.0))
                    })
                    .fold(0.0, f64::max)
            }
        })
        .fold(0.0, f64::max);
    let k = series.len() as f64;
    // each bar's (left, right, bottom, top), as drawn below
    let extent = |s: usize, cat: usize| -> (f64, f64, f64, f64) {
        let x = cat as f64;
        if stacked {
            let below: f64 = (0..s).map(|t| value(t, cat)).sum();
            (x - 0.35, x + 0.35, below, below + value(s, cat))
        } else {
            let w = 0.8 / k;
            let left = x - 0.4 + w * s as f64;
            (left, left + w * 0.92, 0.0, value(s, cat))
        }
    };
    let tops: Vec<(f64, f64, f64)> = (0..series.len())
        .flat_map(|s| (0..n).map(move |c| (s, c)))
        .map(|(s, c)| {
            let (l, r, _, t) = extent(s, c);
            // what is drawn above the bar counts too: its error bar and its model cross
            let t = t
                .max(interval(s, c).map_or(0.0, |(_, hi)| hi))
                .max(note(&notes.model, s, c).unwrap_or(0.0));
            (l, r, t)
        })
        .collect();
    let names: Vec<&str> = series.iter().map(|(name, _)| name.as_str()).collect();
    let has_model = notes.model.iter().flatten().any(Option::is_some);
    let mut legend_names = names.clone();
    if has_model {
        legend_names.push(notes.model_name.as_str());
    }
    let clear = clear_of_legend(
        &tops,
        (-0.5, n as f64 - 0.5),
        &legend_names,
        Corner::UpperRight,
    );
    // a legend that would stretch the axis by more than a seventh (a utilization chart to
    // 140 %) goes in a panel beside the plot instead, if the categories still fit there, or
    // else in a band below it
    let cats: Vec<&str> = categories.iter().map(String::as_str).collect();
    let place = if clear <= headroom(top) * 1.15 {
        Place::Inside
    } else if fits_in(&cats, f64::from(SIZE.0 - LEGEND_PANEL) - 100.0) {
        Place::Beside
    } else {
        match Band::of(&names) {
            Some(band) => Place::Below(band),
            None => Place::Inside,
        }
    };
    let y_max = if place == Place::Inside {
        headroom(top).max(clear)
    } else {
        headroom(top)
    };
    Some(svg(|root| {
        let (root, legend) = match place {
            Place::Inside => (root, None),
            Place::Beside => {
                let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_PANEL);
                (plot, Some(legend))
            }
            Place::Below(band) => {
                let (plot, legend) = root.split_vertically(SIZE.1 - band.height());
                (plot, Some(legend))
            }
        };
        let mut chart = ChartBuilder::on(&root)
            .margin(PLOT_MARGIN)
            .x_label_area_size(X_LABELS)
            .y_label_area_size(Y_LABELS)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0.0..y_max)?;
        let label = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
                categories[i as usize].clone()
            } else {
                String::new()
            }
        };
        let integer = |y: &f64| {
            if (y - y.round()).abs() < 1e-9 {
                format!("{y:.0}")
            } else {
                format!("{y}")
            }
        };
        let mut mesh = chart.configure_mesh();
        mesh.disable_x_mesh()
            .x_labels(n.min(32))
            .x_label_formatter(&label)
            .x_desc(axes.x)
            .y_desc(axes.y)
            .light_line_style(RGBColor(235, 235, 235));
        if notes.integer_ticks {
            mesh.y_label_formatter(&integer);
        }
        mesh.draw()?;
        for (s, (name, _)) in series.iter().enumerate() {
            let c = colour(s);
            let rects: Vec<Rectangle<(f64, f64)>> = (0..n)
                .map(|cat| {
                    let (l, r, b, t) = extent(s, cat);
                    Rectangle::new([(l, b), (r, t)], c.filled())
                })
                .collect();
            let drawn = chart.draw_series(rects)?;
            if legend.is_none() {
                drawn.label(name.as_str()).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled())
                });
            }
        }
        // error bars: a line from low to high at the bar's middle, capped at both ends
        let ink = RGBColor(40, 40, 40);
        for s in 0..series.len() {
            for cat in 0..n {
                let Some((lo, hi)) = interval(s, cat) else {
                    continue;
                };
                let (l, r, _, _) = extent(s, cat);
                let (mid, cap) = ((l + r) / 2.0, (r - l) * 0.25);
                chart.draw_series([
                    PathElement::new(vec![(mid, lo), (mid, hi)], ink.stroke_width(1)),
                    PathElement::new(vec![(mid - cap, lo), (mid + cap, lo)], ink.stroke_width(1)),
                    PathElement::new(vec![(mid - cap, hi), (mid + cap, hi)], ink.stroke_width(1)),
                ])?;
            }
        }
        // the model: a cross per bar, each series' crosses joined by a dashed line
        let mut model_labelled = false;
        for s in 0..series.len() {
            let pts: Vec<(f64, f64)> = (0..n)
                .filter_map(|cat| {
                    let (l, r, _, _) = extent(s, cat);
                    note(&notes.model, s, cat).map(|m| ((l + r) / 2.0, m.max(0.0)))
                })
                .collect();
            if pts.is_empty() {
                continue;
            }
            if pts.len() > 1 {
                chart.draw_series(DashedLineSeries::new(
                    pts.clone(),
                    4,
                    3,
                    ink.stroke_width(1),
                ))?;
            }
            let crosses =
                chart.draw_series(pts.iter().map(|&p| Cross::new(p, 5, ink.stroke_width(2))))?;
            if !model_labelled && legend.is_none() {
                model_labelled = true;
                crosses
                    .label(notes.model_name.as_str())
                    .legend(move |(x, y)| Cross::new((x + 6, y), 5, ink.stroke_width(2)));
            }
        }
        match (legend, place) {
            (None, _) => chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(180, 180, 180))
                .draw()?,
            (Some(area), Place::Below(band)) => {
                for (i, name) in names.iter().enumerate() {
                    bar_legend_entry(&area, i, &clip(name, band.chars), band.at(i))?;
                }
            }
            (Some(area), _) => {
                let row = ((SIZE.1 as i32 - 28) / names.len() as i32).clamp(6, 16);
                let chars = (LEGEND_PANEL as usize - 44) / 6;
                for (i, name) in names.iter().enumerate() {
                    let y = 14 + row * i as i32 + row / 2;
                    bar_legend_entry(&area, i, &clip(name, chars), (6, y))?;
                }
            }
        }
        Ok(())
    }))
}

/// Draws bar series `i`'s legend entry outside the plot: its colour swatch with its left
/// edge and vertical middle at `(x, y)` in `area`, and `text` beside it.
fn bar_legend_entry(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    i: usize,
    text: &str,
    (x, y): (i32, i32),
) -> DrawResult {
    area.draw(&Rectangle::new(
        [(x, y - 5), (x + 12, y + 5)],
        colour(i).filled(),
    ))?;
    area.draw(&Text::new(
        text.to_string(),
        (x + 18, y - 6),
        ("sans-serif", 12).into_font(),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_read_as_people_write_them() {
        assert_eq!(tick(&200.0), "200");
        assert_eq!(tick(&2.0), "2");
        assert_eq!(tick(&0.0), "0");
        assert_eq!(tick(&0.25), "0.25");
        assert_eq!(tick(&-1.5), "-1.5");
        assert_eq!(tick(&0.1234567), "0.123457");
    }

    #[test]
    fn line_charts_tick_whole_numbers_without_a_point() {
        let svg = lines(
            &[Series {
                name: "s".into(),
                points: vec![(1.0, 0.5), (20.0, 1.0)],
            }],
            Axes { x: "l", y: "p" },
            true,
        )
        .unwrap()
        .unwrap();
        assert!(svg.contains(">\n10\n<") || svg.contains(">10<"), "{svg}");
        assert!(!svg.contains("10.0"), "{svg}");
    }

    #[test]
    fn annotated_bars_draw_error_bars_a_model_curve_and_integer_ticks() {
        let cats: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let series = vec![("max".to_string(), vec![180.0, 200.0, 210.0])];
        let axes = Axes {
            x: "stripe",
            y: "terminals",
        };
        let plain = bars(&cats, &series, axes, false).unwrap().unwrap();
        let notes = Annotations {
            intervals: vec![vec![Some((170.0, 190.0)), Some((195.0, 205.0)), None]],
            model: vec![vec![Some(185.0), Some(230.0), Some(240.0)]],
            model_name: "model".into(),
            integer_ticks: true,
        };
        let drawn = bars_annotated(&cats, &series, axes, false, &notes)
            .unwrap()
            .unwrap();
        // two error bars of three lines each, three crosses, a dashed curve: more paths
        let lines = |svg: &str| svg.matches("<polyline").count() + svg.matches("<line").count();
        assert!(lines(&drawn) >= lines(&plain) + 6 + 3, "{}", lines(&drawn));
        // (plotters writes a text's content on a line of its own)
        assert!(drawn.contains("\nmodel\n"), "the legend names the model");
        // counts read as counts
        assert!(drawn.contains("\n200\n") && !drawn.contains("\n200.0\n"));
        assert!(plain.contains("\n200.0\n"), "plain bars keep their labels");
        // the axis reaches past the model's highest value
        assert!(drawn.contains("\n250\n"), "axis top");
    }

    #[test]
    fn line_chart_draws_every_series_and_escapes_labels() {
        let s = vec![
            Series {
                name: "<script>alert(1)</script>".into(),
                points: vec![(1.0, 0.0), (2.0, 5.0)],
            },
            Series {
                name: "b".into(),
                points: vec![(1.0, 1.0), (2.0, 2.0)],
            },
        ];
        let svg = lines(
            &s,
            Axes {
                x: "terminals",
                y: "glitches",
            },
            true,
        )
        .unwrap()
        .unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("&lt;script&gt;"), "legend text escaped");
        assert!(!svg.contains("<script"), "no raw script element");
        assert_eq!(svg.matches("<circle").count(), 4, "one marker per point");
        assert!(
            svg.contains(">\nterminals\n</text>"),
            "axis title drawn as text"
        );
    }

    #[test]
    fn more_series_than_colours_come_round_dashed_with_a_legend_panel() {
        let s: Vec<Series> = (0..COLOURS + 3)
            .map(|i| Series {
                name: format!("run {i} with a label far too long for the panel"),
                points: vec![(0.0, i as f64), (10.0, i as f64 + 1.0)],
            })
            .collect();
        let svg = lines(&s, Axes { x: "t", y: "v" }, false).unwrap().unwrap();
        // every series is named once, clipped to the panel
        assert_eq!(
            svg.matches("with a label far").count(),
            COLOURS + 3,
            "{svg}"
        );
        assert_eq!(svg.matches("…").count(), COLOURS + 3, "{svg}");
        assert!(!svg.contains("for the panel"));
        // the first round solid, the next dashed (many short segments)
        assert_eq!(dash(0), None);
        assert_eq!(dash(COLOURS - 1), None);
        assert!(dash(COLOURS).is_some() && dash(2 * COLOURS) != dash(COLOURS));
        let few = lines(&s[..2], Axes { x: "t", y: "v" }, false)
            .unwrap()
            .unwrap();
        assert!(few.matches("<polyline").count() < svg.matches("<polyline").count() / 2);
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcd", 3), "ab…");
    }

    #[test]
    fn no_data_draws_no_chart() {
        assert!(lines(&[], Axes { x: "x", y: "y" }, false).is_none());
        assert!(bars(&[], &[("a".into(), vec![])], Axes { x: "x", y: "y" }, false).is_none());
    }

    /// The `<rect>`s of an SVG as (x, y, width, height, has a stroke).
    fn rects(svg: &str) -> Vec<(f64, f64, f64, f64, bool)> {
        let attr = |r: &str, a: &str| -> f64 {
            let at = r.find(&format!(" {a}=\"")).unwrap() + a.len() + 3;
            r[at..at + r[at..].find('"').unwrap()].parse().unwrap()
        };
        svg.split("<rect")
            .skip(1)
            .map(|r| &r[..r.find('>').unwrap()])
            .map(|r| {
                let stroke = !r.contains("stroke=\"none\"");
                let (x, y) = (attr(r, "x"), attr(r, "y"));
                (x, y, attr(r, "width"), attr(r, "height"), stroke)
            })
            .collect()
    }

    #[test]
    fn no_bar_runs_under_the_legend() {
        // the tallest bars at the right, where the legend goes; 4 series (SPIFFI Fig. 13's
        // layout × popularity), and a chart whose right-hand bars are low
        let cats: Vec<String> = vec!["32MiB".into(), "128MiB".into(), "1GiB".into()];
        let names = [
            "striped / Zipf z = 1",
            "striped / uniform",
            "non-striped / Zipf",
            "x",
        ];
        // (the first goes to a panel beside the plot, the second raises the axis a little,
        // the third needs nothing)
        let mut raised = false;
        for values in [
            [203.0, 206.0, 233.0],
            [233.0, 206.0, 186.0],
            [233.0, 206.0, 20.0],
        ] {
            let series: Vec<(String, Vec<f64>)> = names
                .iter()
                .map(|n| (n.to_string(), values.to_vec()))
                .collect();
            let svg = bars(&cats, &series, Axes { x: "m", y: "t" }, false)
                .unwrap()
                .unwrap();
            let all = rects(&svg);
            let Some(&legend) = all.iter().find(|r| r.4) else {
                // the legend went to a panel beside the plot: every name is there
                assert!(
                    names.iter().all(|n| svg.contains(&format!("\n{n}\n"))),
                    "{svg}"
                );
                continue;
            };
            let (bottom, left) = (legend.1 + legend.3, legend.0);
            let mut under = 0;
            for r in all.iter().filter(|r| !r.4 && r.2 < 100.0 && r.3 > 12.0) {
                if r.0 + r.2 > left {
                    under += 1;
                    assert!(
                        r.1 > bottom,
                        "bar {r:?} under the legend ending at {bottom}"
                    );
                    raised |= r.1 < bottom + 10.0;
                }
            }
            assert!(under > 0, "bars lie below the legend's width");
        }
        assert!(
            raised,
            "a bar ends just below the legend: the axis was raised for it"
        );
        // with the right-hand bars low the scale is the usual one: the tallest bar reaches
        // as high as the legend's top (a headroom of 8 %)
        let low: Vec<(String, Vec<f64>)> = names
            .iter()
            .map(|n| (n.to_string(), vec![233.0, 206.0, 20.0]))
            .collect();
        let svg = bars(&cats, &low, Axes { x: "m", y: "t" }, false)
            .unwrap()
            .unwrap();
        let tallest = rects(&svg)
            .into_iter()
            .filter(|r| !r.4 && r.2 < 100.0 && r.3 > 12.0)
            .map(|r| r.1)
            .fold(f64::INFINITY, f64::min);
        assert!(tallest < 50.0, "{tallest}");
    }

    #[test]
    fn a_legend_that_would_stretch_a_percentage_axis_goes_beside_the_plot() {
        // SPIFFI Fig. 14: disk utilization at the maximum, striped at 100 % in every group
        let cats: Vec<String> = vec!["32MiB".into(), "128MiB".into(), "1GiB".into()];
        let series: Vec<(String, Vec<f64>)> = [
            ("striped / Zipf z = 1", 99.9),
            ("striped / uniform", 99.8),
            ("non-striped / Zipf z = 1", 21.5),
            ("non-striped / uniform", 49.4),
        ]
        .iter()
        .map(|(n, v)| (n.to_string(), vec![*v; 3]))
        .collect();
        // no legend box in the plot, and the axis at the usual headroom: no tick label
        // above 100 %
        let outside_with_axis_at_100 = |svg: &str| {
            assert!(rects(svg).iter().all(|r| !r.4), "no legend box in the plot");
            assert!(
                svg.contains("\n100.0\n") && !svg.contains("\n120.0\n"),
                "{svg}"
            );
        };
        let svg = bars(&cats, &series, Axes { x: "m", y: "%" }, false)
            .unwrap()
            .unwrap();
        outside_with_axis_at_100(&svg);
        for (n, _) in &series {
            assert!(svg.contains(&format!("\n{n}\n")), "{n} in the panel");
        }
        // with categories too wide for the narrower plot the legend goes below the plot,
        // and the axis still stops at 100 %
        let wide: Vec<String> = (0..3)
            .map(|i| format!("{i} a label of forty-odd characters here"))
            .collect();
        let svg = bars(&wide, &series, Axes { x: "m", y: "%" }, false)
            .unwrap()
            .unwrap();
        outside_with_axis_at_100(&svg);
        // every entry is named once, below every bar and the category labels
        let lowest_bar = rects(&svg)
            .iter()
            .filter(|r| !r.4 && r.2 < 100.0 && r.3 > 12.0)
            .map(|r| r.1 + r.3)
            .fold(0.0, f64::max);
        for (n, _) in &series {
            let at = svg.find(&format!("\n{n}\n")).expect("named");
            let text = &svg[svg[..at].rfind("<text").unwrap()..at];
            let y: f64 = text
                .split("y=\"")
                .nth(1)
                .and_then(|t| t.split('"').next())
                .and_then(|t| t.parse().ok())
                .expect("a y attribute");
            assert!(
                y > lowest_bar + 30.0,
                "{n} at {y}, bars end at {lowest_bar}"
            );
            assert!(y < f64::from(SIZE.1), "{n} at {y}");
        }
    }

    #[test]
    fn a_legend_band_takes_as_many_columns_as_fit_and_refuses_to_fill_the_chart() {
        let names = ["a"; 5];
        let band = Band::of(&names).unwrap();
        assert_eq!((band.columns, band.rows), (5, 1));
        let long = vec!["x".repeat(70); 5];
        let long: Vec<&str> = long.iter().map(String::as_str).collect();
        let band = Band::of(&long).unwrap();
        assert_eq!((band.columns, band.rows, band.chars), (1, 5, 60));
        // entries go row by row, each below the one before in a column
        assert!(band.at(1).1 > band.at(0).1);
        let many = vec!["x".repeat(70); 40];
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(Band::of(&many), None);
    }

    #[test]
    fn no_line_runs_under_the_legend() {
        // a utilization series pinned at its maximum from the start, where the line chart's
        // legend goes (upper left), as `vodbench compare` draws disk utilization over time
        let s: Vec<Series> = ["r200", "r250"]
            .iter()
            .enumerate()
            .map(|(i, n)| Series {
                name: n.to_string(),
                points: (0..60)
                    .map(|t| (t as f64 * 10.0, 94.0 + 6.0 * i as f64))
                    .collect(),
            })
            .collect();
        let svg = lines(&s, Axes { x: "t", y: "%" }, true).unwrap().unwrap();
        let legend = *rects(&svg)
            .iter()
            .find(|r| r.4)
            .expect("the legend's border");
        let (right, bottom) = (legend.0 + legend.2, legend.1 + legend.3);
        let attr = |c: &str, a: &str| -> f64 {
            let at = c.find(&format!(" {a}=\"")).unwrap() + a.len() + 3;
            c[at..at + c[at..].find('"').unwrap()].parse().unwrap()
        };
        let mut under = 0;
        for c in svg.split("<circle").skip(1) {
            let (cx, cy) = (attr(c, "cx"), attr(c, "cy"));
            if cx <= right + 3.0 {
                under += 1;
                assert!(cy - 3.0 > bottom, "marker at ({cx}, {cy}) under the legend");
            }
        }
        assert!(under > 0);
    }

    #[test]
    fn stacked_bars_draw_one_rectangle_per_part_and_category() {
        let cats: Vec<String> = vec!["0".into(), "1".into()];
        let parts = vec![
            ("queue".into(), vec![1.0, 2.0]),
            ("seek".into(), vec![3.0, 4.0]),
        ];
        let svg = bars(&cats, &parts, Axes { x: "disk", y: "ms" }, true)
            .unwrap()
            .unwrap();
        // background + 4 bars + 2 legend swatches (+ the legend box)
        assert!(svg.matches("<rect").count() >= 7, "{svg}");
    }
}
