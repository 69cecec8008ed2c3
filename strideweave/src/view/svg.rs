//! Self-contained SVG pictures of a [`Picture`]: no scripts, fonts or external references.

use super::picture::Picture;
use std::fmt::Write;

/// Most cells `render` draws (128 x 128); a larger layout is refused with a value error.
pub const RENDER_MAX_CELLS: u64 = 16384;

/// Options of [`render_svg`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SvgOptions {
    /// Leave out the per-cell tooltips (`<title>` elements) to keep large files small.
    pub no_tooltips: bool,
}

const MARGIN: usize = 16;
const CELL_H: usize = 24;
const CHAR_W: usize = 8;
const CAPTION_FIRST: usize = 22;
const CAPTION_LINE: usize = 17;
const HEADER_H: usize = 16;

/// Escapes text for XML character data and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Stroke width and colour of a line level.
fn stroke(level: u8) -> (u8, &'static str) {
    match level {
        0 => (1, "#c4c4c4"),
        1 => (2, "#3a3a3a"),
        2 => (3, "#000000"),
        _ => (4, "#000000"),
    }
}

/// Writes a picture as a standalone SVG document.
///
/// Each cell is a `<rect class="cell">` and a `<text class="label">`; lines between the
/// blocks of nested modes (and between tiles) are drawn thicker the larger the block.
///
/// ```
/// use strideweave::view::{render_svg, ColorBy, Grid, Picture, SvgOptions};
/// let g = Grid::new(&"(2,2):(1,2)".parse().unwrap(), ColorBy::Index, 64).unwrap();
/// let svg = render_svg(&Picture::from_grid(&g, None), &SvgOptions::default());
/// assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
/// assert_eq!(svg.matches("class=\"label\"").count(), 4);
/// ```
pub fn render_svg(p: &Picture, opts: &SvgOptions) -> String {
    let cw = (p.label_chars() * CHAR_W + 12).max(28);
    let rl_chars = p
        .row_labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let row_label_w = rl_chars * 7 + 10;
    let caption_h = if p.caption.is_empty() {
        0
    } else {
        CAPTION_FIRST + (p.caption.len() - 1) * CAPTION_LINE + 8
    };
    let x0 = MARGIN + row_label_w;
    let y0 = MARGIN + caption_h + HEADER_H;
    let grid_w = p.cols * cw;
    let grid_h = p.rows * CELL_H;
    let caption_w = p
        .caption
        .iter()
        .enumerate()
        .map(|(i, l)| l.chars().count() * if i == 0 { 93 } else { 73 } / 10)
        .max()
        .unwrap_or(0);
    let width = (x0 + grid_w + MARGIN).max(2 * MARGIN + caption_w);
    let height = y0 + grid_h + MARGIN;

    let mut s = String::with_capacity(200 + p.cells.len() * 160);
    s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\">"
    );
    if let Some(first) = p.caption.first() {
        let _ = writeln!(s, "<title>{}</title>", esc(first));
    }
    let _ = writeln!(
        s,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>"
    );

    // caption
    let mut y = MARGIN;
    for (i, line) in p.caption.iter().enumerate() {
        if i == 0 {
            y += CAPTION_FIRST - 6;
            let _ = writeln!(
                s,
                "<text class=\"caption\" x=\"{MARGIN}\" y=\"{y}\" font-size=\"15\" font-weight=\"bold\" fill=\"#000000\">{}</text>",
                esc(line)
            );
            y += 6;
        } else {
            y += CAPTION_LINE;
            let _ = writeln!(
                s,
                "<text class=\"caption\" x=\"{MARGIN}\" y=\"{}\" font-size=\"12\" fill=\"#555555\">{}</text>",
                y - 4,
                esc(line)
            );
        }
    }

    // headers
    let _ = writeln!(
        s,
        "<g class=\"headers\" font-size=\"10\" fill=\"#707070\" text-anchor=\"middle\">"
    );
    for (c, l) in p.col_labels.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            x0 + c * cw + cw / 2,
            y0 - 5,
            esc(l)
        );
    }
    for (r, l) in p.row_labels.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            x0 - 6,
            y0 + r * CELL_H + CELL_H / 2 + 4,
            esc(l)
        );
    }
    s.push_str("</g>\n");

    // cells
    let _ = writeln!(
        s,
        "<g class=\"cells\" font-size=\"12\" text-anchor=\"middle\" fill=\"#000000\">"
    );
    for r in 0..p.rows {
        for c in 0..p.cols {
            let cell = p.cell(r, c);
            let (x, y) = (x0 + c * cw, y0 + r * CELL_H);
            s.push_str("<g>");
            if !opts.no_tooltips {
                let _ = write!(s, "<title>{}</title>", esc(&cell.title));
            }
            let _ = write!(
                s,
                "<rect class=\"cell\" x=\"{x}\" y=\"{y}\" width=\"{cw}\" height=\"{CELL_H}\" fill=\"{}\"/>",
                cell.fill.hex()
            );
            let weight = if cell.bold {
                " font-weight=\"bold\""
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "<text class=\"label\" x=\"{}\" y=\"{}\"{weight}>{}</text></g>",
                x + cw / 2,
                y + CELL_H / 2 + 4,
                esc(&cell.label)
            );
        }
    }
    s.push_str("</g>\n");

    // lines, thin first so heavier ones cover them
    let segments = p.segments();
    let mut levels: Vec<u8> = segments.iter().map(|seg| seg.0).collect();
    levels.dedup();
    for level in levels {
        let (w, color) = stroke(level);
        let _ = write!(
            s,
            "<path class=\"line{level}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"{w}\" stroke-linecap=\"square\" d=\""
        );
        for &(_, horizontal, fixed, from, to) in segments.iter().filter(|seg| seg.0 == level) {
            if horizontal {
                let _ = write!(
                    s,
                    "M{} {}H{}",
                    x0 + from * cw,
                    y0 + fixed * CELL_H,
                    x0 + to * cw
                );
            } else {
                let _ = write!(
                    s,
                    "M{} {}V{}",
                    x0 + fixed * cw,
                    y0 + from * CELL_H,
                    y0 + to * CELL_H
                );
            }
        }
        s.push_str("\"/>\n");
    }
    let _ = writeln!(
        s,
        "<rect class=\"border\" x=\"{x0}\" y=\"{y0}\" width=\"{grid_w}\" height=\"{grid_h}\" fill=\"none\" stroke=\"#000000\" stroke-width=\"2\"/>"
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::{ColorBy, Grid};

    #[test]
    fn escapes_markup_in_captions() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }

    #[test]
    fn nested_layout_draws_heavier_lines() {
        let g = Grid::new(
            &"((2,2,2),(2,2)):((1,2,4),(8,16))".parse().unwrap(),
            ColorBy::Index,
            64,
        )
        .unwrap();
        let svg = render_svg(&Picture::from_grid(&g, None), &SvgOptions::default());
        assert!(svg.contains("class=\"line1\""), "{svg}");
        assert!(svg.contains("class=\"line2\""), "{svg}");
        assert!(svg.contains("class=\"line0\""), "{svg}");
    }

    #[test]
    fn tooltips_can_be_left_out() {
        let g = Grid::new(&"(2,2):(1,2)".parse().unwrap(), ColorBy::Index, 64).unwrap();
        let p = Picture::from_grid(&g, None);
        let with = render_svg(&p, &SvgOptions::default());
        let without = render_svg(&p, &SvgOptions { no_tooltips: true });
        assert_eq!(with.matches("<title>").count(), 5);
        assert_eq!(without.matches("<title>").count(), 1);
    }
}
