//! `strideweave render`: every SVG parses as XML with one cell and one label per
//! coordinate, labels equal to the layout's indices; TikZ has one cell node per
//! coordinate; tiles and repeated indices are visible; oversized requests are refused.

use std::process::Command;
use strideweave::view::eval_layout;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_strideweave"))
}

/// A fresh directory removed when the test ends, so runs leave nothing in /tmp.
fn tmp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("strideweave-view-render-")
        .tempdir()
        .unwrap()
}

/// Renders `expr` with extra args to stdout; returns (stdout, stderr, code).
fn render(expr: &str, extra: &[&str]) -> (String, String, i32) {
    let out = bin().arg("render").arg(expr).args(extra).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

/// The indices of the layout of `expr` in table order: rows mode 0, columns the rest.
fn table_indices(expr: &str) -> (usize, usize, Vec<u64>) {
    let l = eval_layout(expr).unwrap();
    let rows = if l.rank() == 0 {
        1
    } else {
        l.get(0).unwrap().size()
    } as usize;
    let cols = l.size() as usize / rows;
    let mut v = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            v.push(l.index_of((r + rows * c) as u64).unwrap());
        }
    }
    (rows, cols, v)
}

struct SvgCells {
    labels: Vec<String>,
    fills: Vec<String>,
    bold: Vec<bool>,
    rects: Vec<(f64, f64)>,
}

/// Parses an SVG and collects its cells in document order.
fn parse_svg(svg: &str) -> SvgCells {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let mut cells = SvgCells {
        labels: vec![],
        fills: vec![],
        bold: vec![],
        rects: vec![],
    };
    for n in doc.descendants() {
        if n.attribute("class") == Some("cell") {
            assert_eq!(n.tag_name().name(), "rect");
            cells.fills.push(n.attribute("fill").unwrap().to_string());
            let x: f64 = n.attribute("x").unwrap().parse().unwrap();
            let y: f64 = n.attribute("y").unwrap().parse().unwrap();
            cells.rects.push((x, y));
        }
        if n.attribute("class") == Some("label") {
            assert_eq!(n.tag_name().name(), "text");
            cells.labels.push(n.text().unwrap().to_string());
            cells.bold.push(n.attribute("font-weight") == Some("bold"));
        }
        // self-contained: no external references of any kind
        for a in n.attributes() {
            assert!(a.name() != "href", "external reference in {a:?}");
        }
    }
    cells
}

const EXPRS: &[&str] = &[
    "(2,2):(1,2)",
    "(8,8):(8,1)",
    "(64,64):(64,1)",
    "20:3",
    "():()",
    "(2,(2,2),3):(1,(2,4),8)",
    "((2,2),(2,3)):((1,4),(2,8))",
    "zipped_divide((8,8):(8,1), [2:1,4:1])",
    "tiled_divide((8,8):(1,8), [2:1,4:1])",
    "divide_tiler((8,6):(1,8), [2:1,3:1])",
    "blocked_product((2,2):(1,2), (3,2):(1,3))",
    "raked_product((2,2):(1,2), (3,2):(1,3))",
    "logical_product(4:1, 3:1)",
    "(4,4):(0,1)",
];

#[test]
fn every_svg_is_well_formed_with_one_cell_and_label_per_coordinate() {
    for expr in EXPRS {
        let (svg, err, code) = render(expr, &[]);
        assert_eq!((err.as_str(), code), ("", 0), "{expr}");
        let cells = parse_svg(&svg);
        let (rows, cols, indices) = table_indices(expr);
        assert_eq!(cells.rects.len(), rows * cols, "{expr}: cells");
        let want: Vec<String> = indices.iter().map(u64::to_string).collect();
        assert_eq!(cells.labels, want, "{expr}: labels");
        // cells form a rows x cols grid: distinct x per column, distinct y per row
        let mut xs: Vec<i64> = cells.rects.iter().map(|p| p.0 as i64).collect();
        let mut ys: Vec<i64> = cells.rects.iter().map(|p| p.1 as i64).collect();
        xs.sort();
        xs.dedup();
        ys.sort();
        ys.dedup();
        assert_eq!((ys.len(), xs.len()), (rows, cols), "{expr}: grid");
    }
}

#[test]
fn every_tikz_picture_has_one_cell_node_per_coordinate() {
    for expr in EXPRS {
        let (tikz, _, code) = render(expr, &["--format", "tikz"]);
        assert_eq!(code, 0, "{expr}");
        let (rows, cols, indices) = table_indices(expr);
        let labels: Vec<String> = tikz
            .lines()
            .filter(|l| l.starts_with("\\node[cell"))
            .map(|l| {
                let body = &l[l.rfind('{').unwrap() + 1..];
                body.trim_end_matches("};")
                    .trim_end_matches('}')
                    .to_string()
            })
            .collect();
        assert_eq!(labels.len(), rows * cols, "{expr}");
        let want: Vec<String> = indices.iter().map(u64::to_string).collect();
        assert_eq!(labels, want, "{expr}");
        assert_eq!(tikz.matches("\\begin{tikzpicture}").count(), 1);
        assert!(tikz.trim_end().ends_with("\\end{tikzpicture}"));
    }
}

#[test]
fn zipped_divide_tiles_are_columns_with_one_colour_each() {
    let cells = parse_svg(&render("zipped_divide((8,8):(8,1), [2:1,4:1])", &[]).0);
    for c in 0..8 {
        let col: Vec<&String> = (0..8).map(|r| &cells.fills[r * 8 + c]).collect();
        assert!(col.iter().all(|f| *f == col[0]), "column {c} is one tile");
        if c > 0 {
            assert_ne!(
                cells.fills[c],
                cells.fills[c - 1],
                "neighbouring tiles differ"
            );
        }
    }
}

#[test]
fn blocked_product_tiles_are_blocks_of_the_first_layout() {
    // ((2,3),(2,2)): blocks of 2x2 cells, each a copy of A
    let cells = parse_svg(&render("blocked_product((2,2):(1,2), (3,2):(1,3))", &[]).0);
    let fill = |r: usize, c: usize| cells.fills[r * 4 + c].clone();
    assert_eq!(fill(0, 0), fill(1, 1));
    assert_ne!(fill(1, 0), fill(2, 0));
    assert_ne!(fill(0, 1), fill(0, 2));
}

#[test]
fn equal_indices_share_a_colour_and_are_bold() {
    let cells = parse_svg(&render("(4,4):(0,1)", &[]).0);
    assert!(cells.bold.iter().all(|b| *b), "every index repeats");
    for c in 0..4 {
        assert!(
            (0..4).all(|r| cells.fills[r * 4 + c] == cells.fills[c]),
            "column {c}"
        );
    }
    let cells = parse_svg(&render("(4,4):(1,4)", &[]).0);
    assert!(cells.bold.iter().all(|b| !*b), "injective: nothing bold");
}

#[test]
fn nested_modes_draw_heavier_lines_between_blocks() {
    let (svg, _, _) = render("((2,2),(2,3)):((1,4),(2,8))", &[]);
    assert!(svg.contains("class=\"line1\""), "{svg}");
    let (svg, _, _) = render("(4,6):(1,4)", &[]);
    assert!(
        !svg.contains("class=\"line1\""),
        "flat layout has no block lines"
    );
}

#[test]
fn output_file_and_format_from_extension() {
    let dir = tmp_dir();
    let svg = dir.path().join("a.svg");
    let tex = dir.path().join("a.tex");
    for p in [&svg, &tex] {
        let st = bin()
            .args(["render", "(2,2):(1,2)", "-o"])
            .arg(p)
            .status()
            .unwrap();
        assert!(st.success());
    }
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<?xml"));
    assert!(std::fs::read_to_string(&tex)
        .unwrap()
        .contains("\\begin{tikzpicture}"));
    let st = bin()
        .args([
            "render",
            "(2,2):(1,2)",
            "--format",
            "tikz",
            "--standalone",
            "-o",
        ])
        .arg(&svg)
        .status()
        .unwrap();
    assert!(st.success());
    assert!(std::fs::read_to_string(&svg)
        .unwrap()
        .starts_with("\\documentclass"));
}

#[test]
fn a_million_cells_is_refused_with_one_error_line_and_no_file() {
    let dir = tmp_dir();
    let out = dir.path().join("big.svg");
    let o = bin()
        .args(["render", "(1024,1024):(1,1024)", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "error: value: layout (1024,1024):(1,1024) has 1048576 cells, more than the 16384 this view draws\n"
    );
    assert!(!out.exists());
}

#[test]
fn render_errors_are_one_line_with_their_kind() {
    let (out, err, code) = render("compose(20:2, (5,4):(4,1)", &[]);
    assert_eq!((out.as_str(), code), ("", 1));
    assert!(
        err.starts_with("error: syntax: ") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn unwritable_output_is_an_io_error() {
    let o = bin()
        .args(["render", "(2,2):(1,2)", "-o", "/nonexistent-dir/x.svg"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .starts_with("error: io: cannot write /nonexistent-dir/x.svg"));
}

#[test]
fn placement_svg_has_one_cell_per_element_labelled_with_its_first_byte() {
    use strideweave::tensor::TensorSpec;
    for text in [
        "bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        "f32[3,3,20] mla-cblocked(tile=(2,2), align=128)",
        "f32[2,3] strided(16,4)",
        "f16[4,6]",
        "f32[]",
    ] {
        let (svg, err, code) = render("--placement", &[text]);
        assert_eq!((err.as_str(), code), ("", 0), "{text}");
        let cells = parse_svg(&svg);
        let spec: TensorSpec = text.parse().unwrap();
        let ext = spec.dims.extents().to_vec();
        let mut want = Vec::new();
        let count: u64 = ext.iter().product();
        for i in 0..count {
            // row-major coordinate of element i
            let mut coord = vec![0u64; ext.len()];
            let mut rest = i;
            for ax in (0..ext.len()).rev() {
                coord[ax] = rest % ext[ax];
                rest /= ext[ax];
            }
            want.push(spec.byte_offset(&coord, 0).unwrap().to_string());
        }
        assert_eq!(cells.labels, want, "{text}");
        assert_eq!(cells.rects.len(), count as usize, "{text}");
    }
}

#[test]
fn placement_tiles_get_outlines_and_one_colour_each() {
    let text = "bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)";
    let (svg, _, _) = render("--placement", &[text]);
    let cells = parse_svg(&svg);
    let mut colour_of_tile = std::collections::HashMap::new();
    for (label, fill) in cells.labels.iter().zip(&cells.fills) {
        let tile = label.parse::<u64>().unwrap() / 512;
        let prev = colour_of_tile.insert(tile, fill.clone());
        assert!(
            prev.is_none() || prev.as_ref() == Some(fill),
            "tile {tile} has one colour"
        );
    }
    assert_eq!(colour_of_tile.len(), 8);
    let distinct: std::collections::HashSet<_> = colour_of_tile.values().collect();
    assert_eq!(distinct.len(), 8, "eight tiles, eight colours");
    assert!(
        svg.contains("class=\"line2\""),
        "tile borders are drawn heavy"
    );
    let (tikz, _, _) = render("--placement", &[text, "--format", "tikz"]);
    assert_eq!(
        tikz.lines()
            .filter(|l| l.starts_with("\\node[cell"))
            .count(),
        700
    );
}

#[test]
fn placement_errors_are_one_line() {
    let (_, err, code) = render("--placement", &["f32[2,3"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: syntax: expected `,` or `]` at byte 7 of `f32[2,3` (in --placement `f32[2,3`)\n"
    );
    let (_, err, code) = render("--placement", &["f32[0,3]"]);
    assert_eq!(
        (err.as_str(), code),
        (
            "error: value: f32[0,3] contiguous: the tensor is empty: no element to draw\n",
            1
        )
    );
    let (_, err, code) = render("--placement", &["f32[200,200]"]);
    assert_eq!(code, 1);
    assert!(err.contains("40000 elements, more than the 16384"), "{err}");
    let out = bin()
        .args(["render", "(2,2):(1,2)", "--placement", "f32[2]"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a layout and a placement at once is a usage error"
    );
}

#[test]
fn placement_row_axes_moves_axes_into_the_columns() {
    let (svg, _, code) = render("--placement", &["f32[2,3,4]", "--row-axes", "1"]);
    assert_eq!(code, 0);
    let cells = parse_svg(&svg);
    let mut ys: Vec<i64> = cells.rects.iter().map(|p| p.1 as i64).collect();
    ys.sort();
    ys.dedup();
    assert_eq!(ys.len(), 2);
}
