//! `--plot`: B's buffer occupancy and A's per-priority pause state over time, as an SVG drawn by
//! hand (polylines and rectangles; no plotting library). A pause storm is easier to see than to
//! read.

use std::fmt::Write;

use dataplane::sim::Sample;

use super::file::FlowControlMode;
use super::report::group;
use super::run::ScenarioResults;

const WIDTH: f64 = 960.0;
const LEFT: f64 = 140.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 40.0;
const PANEL: f64 = 260.0;
const ROW: f64 = 18.0;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The plot of the first seed's run; `None` when nothing was recorded (no `plot_interval_ns`).
pub fn svg(r: &ScenarioResults) -> Option<String> {
    let run = r.runs.first()?;
    let samples: &[Sample] = &run.series;
    let last = samples.last()?.at.as_ps().max(1) as f64;
    let rows: Vec<(String, u8)> = match r.flow_control {
        FlowControlMode::Pfc => {
            (0..8).map(|p| (format!("priority {p} paused"), 1u8 << p)).collect()
        }
        FlowControlMode::Credit => vec![("A waits for credit".to_string(), 1)],
    };
    let height = TOP + PANEL + 50.0 + rows.len() as f64 * ROW + 40.0;
    let plot_w = WIDTH - LEFT - RIGHT;
    let x = |ps: u64| LEFT + ps as f64 / last * plot_w;
    let top = r.buffer_octets.max(run.peak_occupancy_octets).max(1) as f64;
    let y = |octets: u64| TOP + PANEL - octets as f64 / top * PANEL;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="20" font-size="14">{} — seed {}, {} dropped</text>"#,
        escape(&r.name),
        run.seed,
        run.frames_dropped
    );
    // Axes and ticks.
    let _ = writeln!(
        s,
        r#"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{PANEL}" fill="none" stroke="black"/>"#
    );
    for i in 0..=4u64 {
        let octets = (top as u64) * i / 4;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            y(octets) + 4.0,
            group(octets)
        );
        let ps = (last as u64) * i / 4;
        let anchor = if i == 4 { "end" } else { "middle" };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{}" text-anchor="{anchor}">{} us</text>"#,
            x(ps),
            height - 12.0,
            group(ps / 1_000_000)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="40" y="{}" transform="rotate(-90 40 {})" text-anchor="middle">B's buffer, octets</text>"#,
        TOP + PANEL / 2.0,
        TOP + PANEL / 2.0
    );
    // Thresholds.
    // (label, octets, colour, label offset: above the line, or below it for XON).
    let mut lines = vec![("allocation", r.buffer_octets, "#c00", -3.0)];
    if let Some(xoff) = r.xoff_octets {
        lines.push(("XOFF", xoff, "#e80", -3.0));
    }
    if let Some(xon) = r.xon_octets {
        lines.push(("XON", xon, "#080", 12.0));
    }
    for (label, octets, colour, offset) in lines {
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="{colour}" stroke-dasharray="6 4"/><text x="{}" y="{:.1}" fill="{colour}" text-anchor="end">{label}</text>"#,
            LEFT + plot_w,
            LEFT + plot_w - 4.0,
            y(octets) + offset,
            y = y(octets)
        );
    }
    // Occupancy.
    let mut points = String::new();
    for sample in samples {
        let _ = write!(points, "{:.1},{:.1} ", x(sample.at.as_ps()), y(sample.occupancy_octets));
    }
    let _ = writeln!(
        s,
        r##"<polyline points="{}" fill="none" stroke="#03c" stroke-width="1.2"/>"##,
        points.trim_end()
    );
    // Pause rows: a bar wherever the bit is set.
    let rows_top = TOP + PANEL + 30.0;
    for (i, (label, bit)) in rows.iter().enumerate() {
        let ry = rows_top + i as f64 * ROW;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text><line x1="{LEFT}" x2="{}" y1="{:.1}" y2="{:.1}" stroke="lightgray"/>"#,
            LEFT - 6.0,
            ry + ROW * 0.7,
            escape(label),
            LEFT + plot_w,
            ry + ROW - 1.0,
            ry + ROW - 1.0
        );
        let mut start: Option<u64> = None;
        let bar = |from: u64, to: u64, s: &mut String| {
            let _ = writeln!(
                s,
                r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#d33"/>"##,
                x(from),
                ry + 2.0,
                (x(to) - x(from)).max(0.5),
                ROW - 5.0
            );
        };
        for sample in samples {
            let on = sample.paused & bit != 0;
            match (on, start) {
                (true, None) => start = Some(sample.at.as_ps()),
                (false, Some(from)) => {
                    bar(from, sample.at.as_ps(), &mut s);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(from) = start {
            bar(from, last as u64, &mut s);
        }
    }
    let _ = writeln!(s, "</svg>");
    Some(s)
}
