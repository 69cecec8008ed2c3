//! How cells are coloured: by index value, or by the tile a divide or product puts them in.

use crate::eval::{eval, Value};
use std::fmt;
use std::str::FromStr;

/// The colouring of a picture's cells.
///
/// The tiles of a divided or product layout cannot be read off the result alone
/// (`zipped_divide` and `divide_tiler` both give `((2,4),(4,2))`-shaped layouts whose tiles
/// lie differently), so [`ColorBy::infer`] looks at the function the expression calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColorBy {
    /// No fill.
    None,
    /// A gradient over the index value: equal indices get equal colours.
    Index,
    /// Each column is one tile (`zipped_divide`, `tiled_divide`, `divide`, `logical_product`
    /// by a layout): mode 0 walks a tile, the other modes pick it.
    Column,
    /// In every mode `(inner, outer...)`, the outer items pick the tile (`divide_tiler`,
    /// `blocked_product`, `logical_product` by a tiler): tiles are contiguous blocks.
    Block,
    /// In every mode `(inner, outer...)`, the inner item picks the tile (`raked_product`):
    /// tiles interleave.
    Rake,
}

impl ColorBy {
    /// All variants, in the order the command line documents them.
    pub const ALL: [ColorBy; 5] = [
        ColorBy::None,
        ColorBy::Index,
        ColorBy::Column,
        ColorBy::Block,
        ColorBy::Rake,
    ];

    /// The command-line word for this colouring.
    pub fn as_str(self) -> &'static str {
        match self {
            ColorBy::None => "none",
            ColorBy::Index => "index",
            ColorBy::Column => "column",
            ColorBy::Block => "block",
            ColorBy::Rake => "rake",
        }
    }

    /// Whether cells are coloured by tile (rather than by index or not at all).
    pub fn is_tiling(self) -> bool {
        matches!(self, ColorBy::Column | ColorBy::Block | ColorBy::Rake)
    }

    /// A short human description, for picture captions and `show`.
    pub fn describe(self) -> &'static str {
        match self {
            ColorBy::None => "none",
            ColorBy::Index => "by index (equal indices share a colour)",
            ColorBy::Column => "by tile: each column is one tile",
            ColorBy::Block => "by tile: the outer item of each mode picks the tile",
            ColorBy::Rake => "by tile: the inner item of each mode picks the tile (raked)",
        }
    }

    /// The colouring that shows the tiles of the function an expression calls outermost,
    /// or [`ColorBy::Index`] for anything else.
    ///
    /// ```
    /// use strideweave::view::ColorBy;
    /// assert_eq!(ColorBy::infer("zipped_divide((8,8):(8,1), [2:1,4:1])"), ColorBy::Column);
    /// assert_eq!(ColorBy::infer("divide_tiler((8,8):(8,1), [2:1,4:1])"), ColorBy::Block);
    /// assert_eq!(ColorBy::infer("logical_product(4:1, 3:1)"), ColorBy::Column);
    /// assert_eq!(ColorBy::infer("logical_product((2,2):(1,2), [2:1,3:1])"), ColorBy::Block);
    /// assert_eq!(ColorBy::infer("(8,8):(8,1)"), ColorBy::Index);
    /// ```
    pub fn infer(expr: &str) -> ColorBy {
        let text = expr.trim();
        let name_end = text
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len());
        let (name, rest) = text.split_at(name_end);
        if !rest.trim_start().starts_with('(') {
            return ColorBy::Index;
        }
        match name {
            "zipped_divide" | "tiled_divide" | "divide" => ColorBy::Column,
            "divide_tiler" | "blocked_product" => ColorBy::Block,
            "raked_product" => ColorBy::Rake,
            "logical_product" => {
                let args = split_args(rest.trim_start());
                match args.get(1).map(|a| eval(a)) {
                    Some(Ok(Value::Layout(_))) => ColorBy::Column,
                    _ => ColorBy::Block,
                }
            }
            _ => ColorBy::Index,
        }
    }
}

/// The top-level comma-separated arguments of `(a, b, ...)`.
fn split_args(call: &str) -> Vec<&str> {
    let inner = call
        .strip_prefix('(')
        .and_then(|s| s.trim_end().strip_suffix(')'))
        .unwrap_or("");
    let mut args = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                args.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(inner[start..].trim());
    args
}

impl fmt::Display for ColorBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ColorBy {
    type Err = String;
    /// Parses `none`, `index`, `column`, `block` or `rake`.
    fn from_str(s: &str) -> Result<ColorBy, String> {
        ColorBy::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                format!("unknown colouring '{s}' (expected none, index, column, block or rake)")
            })
    }
}

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// The nearest colour of the xterm 256-colour cube (for terminals).
    pub fn xterm256(self) -> u8 {
        let q = |v: u8| -> u8 {
            // cube levels 0, 95, 135, 175, 215, 255
            if v < 48 {
                0
            } else if v < 115 {
                1
            } else {
                ((v as u16 - 35) / 40).min(5) as u8
            }
        };
        16 + 36 * q(self.0) + 6 * q(self.1) + q(self.2)
    }
}

/// Twelve light, distinct colours for tiles (ColorBrewer's Set3), black text reads on all.
pub const TILE_PALETTE: [Rgb; 12] = [
    Rgb(0x8d, 0xd3, 0xc7),
    Rgb(0xff, 0xff, 0xb3),
    Rgb(0xbe, 0xba, 0xda),
    Rgb(0xfb, 0x80, 0x72),
    Rgb(0x80, 0xb1, 0xd3),
    Rgb(0xfd, 0xb4, 0x62),
    Rgb(0xb3, 0xde, 0x69),
    Rgb(0xfc, 0xcd, 0xe5),
    Rgb(0xd9, 0xd9, 0xd9),
    Rgb(0xbc, 0x80, 0xbd),
    Rgb(0xcc, 0xeb, 0xc5),
    Rgb(0xff, 0xed, 0x6f),
];

/// Light colours the index gradient runs through, lowest index first.
const RAMP: [Rgb; 5] = [
    Rgb(0xc6, 0xdb, 0xef),
    Rgb(0xc7, 0xe9, 0xc0),
    Rgb(0xff, 0xf7, 0xbc),
    Rgb(0xfd, 0xd0, 0xa2),
    Rgb(0xf4, 0xb6, 0xc2),
];

/// The colour of index `idx` on a gradient over `0..=max`: equal indices, equal colours.
///
/// ```
/// use strideweave::view::index_color;
/// assert_eq!(index_color(7, 63), index_color(7, 63));
/// assert_ne!(index_color(0, 63), index_color(63, 63));
/// ```
pub fn index_color(idx: u64, max: u64) -> Rgb {
    if max == 0 {
        return RAMP[0];
    }
    let segments = (RAMP.len() - 1) as u128;
    // position along the ramp in 1/max steps of a segment, integer arithmetic only
    let pos = idx.min(max) as u128 * segments;
    let seg = ((pos / max as u128) as usize).min(RAMP.len() - 2);
    let frac = pos - seg as u128 * max as u128; // in 0..=max
    let (a, b) = (RAMP[seg], RAMP[seg + 1]);
    let mix = |x: u8, y: u8| -> u8 {
        let v = x as i128 * (max as i128 - frac as i128) + y as i128 * frac as i128;
        ((v + max as i128 / 2) / max as i128) as u8
    };
    Rgb(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_words_round_trip() {
        for c in ColorBy::ALL {
            assert_eq!(c.as_str().parse::<ColorBy>().unwrap(), c);
        }
        assert!("tiles".parse::<ColorBy>().is_err());
    }

    #[test]
    fn infer_knows_the_tiling_functions() {
        assert_eq!(
            ColorBy::infer(" tiled_divide((8,8):(1,8), [2:1])"),
            ColorBy::Column
        );
        assert_eq!(
            ColorBy::infer("blocked_product((2,2):(1,2), (2,3):(1,2))"),
            ColorBy::Block
        );
        assert_eq!(
            ColorBy::infer("raked_product((2,2):(1,2), (2,3):(1,2))"),
            ColorBy::Rake
        );
        assert_eq!(ColorBy::infer("compose(20:2, (5,4):(4,1))"), ColorBy::Index);
        assert_eq!(ColorBy::infer("divide"), ColorBy::Index);
    }

    #[test]
    fn gradient_ends_at_the_ramp_ends() {
        assert_eq!(index_color(0, 100), RAMP[0]);
        assert_eq!(index_color(100, 100), RAMP[4]);
        assert_eq!(index_color(0, 0), RAMP[0]);
        assert_eq!(index_color(u64::MAX, u64::MAX), RAMP[4]);
    }

    #[test]
    fn xterm_cube_maps_extremes() {
        assert_eq!(Rgb(0, 0, 0).xterm256(), 16);
        assert_eq!(Rgb(255, 255, 255).xterm256(), 231);
    }
}
