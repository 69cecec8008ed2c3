//! TikZ pictures of a [`Picture`], for LaTeX documents.

use super::picture::Picture;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Options of [`render_tikz`].
#[derive(Clone, Copy, Debug, Default)]
pub struct TikzOptions {
    /// Wrap the picture in a complete `standalone` LaTeX document.
    pub standalone: bool,
}

/// Escapes text for LaTeX.
fn tex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\textbackslash{}"),
            '_' | '%' | '&' | '#' | '$' | '{' | '}' => {
                out.push('\\');
                out.push(ch);
            }
            '^' => out.push_str("\\^{}"),
            '~' => out.push_str("\\~{}"),
            c => out.push(c),
        }
    }
    out
}

/// Line width in points of a line level.
fn line_width(level: u8) -> &'static str {
    match level {
        0 => "0.3pt",
        1 => "0.9pt",
        2 => "1.5pt",
        _ => "2pt",
    }
}

/// Writes a picture as a `tikzpicture` (needs `\usepackage{tikz}`; colours are defined
/// inside the picture with `xcolor`'s `\definecolor`).
///
/// Every cell is one line `\node[cell,fill=...] at (x,y) {label};`, one unit per cell,
/// row 0 at the top.
///
/// ```
/// use strideweave::view::{render_tikz, ColorBy, Grid, Picture, TikzOptions};
/// let g = Grid::new(&"(2,3):(3,1)".parse().unwrap(), ColorBy::Index, 64).unwrap();
/// let tikz = render_tikz(&Picture::from_grid(&g, None), &TikzOptions::default());
/// assert_eq!(tikz.matches("\\node[cell").count(), 6);
/// assert!(tikz.contains("\\begin{tikzpicture}") && tikz.contains("\\end{tikzpicture}"));
/// ```
pub fn render_tikz(p: &Picture, opts: &TikzOptions) -> String {
    // one unit is one cell; a label of n characters needs about 0.17cm per character
    let unit_w = (p.label_chars() as f64 * 0.17 + 0.25).max(0.6);
    let unit_h = 0.5;
    let mut s = String::new();
    if opts.standalone {
        s.push_str("\\documentclass[tikz,border=4pt]{standalone}\n\\begin{document}\n");
    }
    s.push_str("% strideweave render --format tikz\n");
    for line in &p.caption {
        let _ = writeln!(s, "% {line}");
    }
    let _ = writeln!(
        s,
        "\\begin{{tikzpicture}}[x={unit_w:.2}cm,y={unit_h:.2}cm,\n  cell/.style={{inner sep=0pt,minimum width={unit_w:.2}cm,minimum height={unit_h:.2}cm,font=\\ttfamily\\scriptsize}},\n  hdr/.style={{inner sep=1pt,font=\\ttfamily\\tiny,text=black!55}}]"
    );
    let colors: BTreeSet<String> = p.cells.iter().map(|c| c.fill.hex()).collect();
    for hex in &colors {
        let _ = writeln!(
            s,
            "\\definecolor{{sw{}}}{{HTML}}{{{}}}",
            &hex[1..],
            hex[1..].to_uppercase()
        );
    }
    let rows = p.rows as i64;
    // caption above the column headers, first line larger
    for (i, line) in p.caption.iter().enumerate() {
        let y = 1.2 + (p.caption.len() - 1 - i) as f64 * 0.9;
        let font = if i == 0 {
            "\\small\\bfseries"
        } else {
            "\\scriptsize"
        };
        let _ = writeln!(
            s,
            "\\node[anchor=south west,inner sep=0pt,font={font}] at (0,{y:.2}) {{{}}};",
            tex(line)
        );
    }
    for (c, l) in p.col_labels.iter().enumerate() {
        let _ = writeln!(s, "\\node[hdr,anchor=south] at ({}.5,0) {{{}}};", c, tex(l));
    }
    for (r, l) in p.row_labels.iter().enumerate() {
        let _ = writeln!(s, "\\node[hdr,anchor=east] at (0,-{}.5) {{{}}};", r, tex(l));
    }
    for r in 0..p.rows {
        for c in 0..p.cols {
            let cell = p.cell(r, c);
            let label = if cell.bold {
                format!("\\textbf{{{}}}", tex(&cell.label))
            } else {
                tex(&cell.label)
            };
            let _ = writeln!(
                s,
                "\\node[cell,fill=sw{}] at ({c}.5,-{r}.5) {{{label}}};",
                &cell.fill.hex()[1..]
            );
        }
    }
    let segments = p.segments();
    let mut levels: Vec<u8> = segments.iter().map(|seg| seg.0).collect();
    levels.dedup();
    for level in levels {
        let color = if level == 0 { "black!25" } else { "black" };
        let _ = write!(s, "\\draw[{color},line width={}]", line_width(level));
        for &(_, horizontal, fixed, from, to) in segments.iter().filter(|seg| seg.0 == level) {
            if horizontal {
                let _ = write!(s, " ({from},-{fixed}) -- ({to},-{fixed})");
            } else {
                let _ = write!(s, " ({fixed},-{from}) -- ({fixed},-{to})");
            }
        }
        s.push_str(";\n");
    }
    let _ = writeln!(
        s,
        "\\draw[black,line width=1.2pt] (0,0) rectangle ({},{});",
        p.cols, -rows
    );
    s.push_str("\\end{tikzpicture}\n");
    if opts.standalone {
        s.push_str("\\end{document}\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::{ColorBy, Grid};

    #[test]
    fn escapes_latex_specials_in_captions() {
        assert_eq!(tex("zipped_divide{#}"), "zipped\\_divide\\{\\#\\}");
    }

    #[test]
    fn standalone_wraps_a_document() {
        let g = Grid::new(&"4:1".parse().unwrap(), ColorBy::Index, 64).unwrap();
        let p = Picture::from_grid(&g, Some("coalesce(4:1)"));
        let t = render_tikz(&p, &TikzOptions { standalone: true });
        assert!(t.starts_with("\\documentclass"));
        assert!(t.trim_end().ends_with("\\end{document}"));
        assert_eq!(t.matches("\\node[cell").count(), 4);
    }

    #[test]
    fn every_fill_colour_is_defined() {
        let g = Grid::new(&"(4,4):(4,1)".parse().unwrap(), ColorBy::Index, 64).unwrap();
        let t = render_tikz(&Picture::from_grid(&g, None), &TikzOptions::default());
        for line in t.lines().filter(|l| l.starts_with("\\node[cell")) {
            let name = line
                .split("fill=")
                .nth(1)
                .unwrap()
                .split(']')
                .next()
                .unwrap();
            assert!(
                t.contains(&format!("\\definecolor{{{name}}}")),
                "{name} undefined"
            );
        }
    }
}
