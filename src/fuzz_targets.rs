//! Fuzz-target bodies. Each takes arbitrary bytes, drives one public surface, and panics
//! only when an invariant is broken (a crash is a finding): the library itself must
//! answer every input with a value or an error.

use strideweave::{Coord, Layout, Shape, MAX_LEAVES};

/// Largest layout size the brute-force checks enumerate.
const BRUTE_LIMIT: u64 = 4096;

/// Notation parser: never panics; whatever parses prints canonically and re-parses equal.
pub fn notation(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(l) = text.parse::<Layout>() {
        let printed = l.to_string();
        let again: Layout = printed.parse().expect("printed layout re-parses");
        assert_eq!(again, l, "parse(print(x)) == x for {printed}");
        assert!(!printed.contains(' '), "canonical print has no spaces");
    }
    if let Ok(t) = text.parse::<strideweave::IntTuple>() {
        let again: strideweave::IntTuple = t.to_string().parse().expect("re-parses");
        assert_eq!(again, t);
    }
    if let Ok(c) = text.parse::<strideweave::ComposedLayout>() {
        let again: strideweave::ComposedLayout = c.to_string().parse().expect("re-parses");
        assert_eq!(again, c, "parse(print(x)) == x for {c}");
    }
    if let Ok(c) = text.parse::<strideweave::CoordLayout>() {
        let again: strideweave::CoordLayout = c.to_string().parse().expect("re-parses");
        assert_eq!(again, c, "parse(print(x)) == x for {c}");
    }
}

/// The `eval` language: never panics, always exactly one line, errors well-formed.
pub fn eval(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains('\n') || text.len() > 512 {
        return;
    }
    let out = strideweave::eval::eval_line(text);
    assert!(!out.contains('\n'), "one line per expression: {out:?}");
    if let Some(rest) = out.strip_prefix("error: ") {
        assert!(
            rest.starts_with("syntax: ")
                || rest.starts_with("type: ")
                || rest.starts_with("value: "),
            "error kind is syntax, type or value: {out}"
        );
    }
}

/// A byte reader that yields zeros once the input runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
}

/// A small layout of 1..=6 leaves (extents 1..=8, strides 0..=31), leaves grouped into
/// nested modes by the bits of one byte.
fn small_layout(b: &mut Bytes) -> Layout {
    let n = 1 + (b.next() % 6) as usize;
    let leaves: Vec<(u64, u64)> = (0..n)
        .map(|_| (1 + (b.next() % 8) as u64, (b.next() % 32) as u64))
        .collect();
    let nest = b.next();
    let mut text_s = String::from("(");
    let mut text_d = String::from("(");
    let mut open = false;
    for (i, (s, d)) in leaves.iter().enumerate() {
        let sep = if i > 0 { "," } else { "" };
        let start_group = nest >> (i % 8) & 1 == 1 && !open && i + 1 < n;
        text_s.push_str(sep);
        text_d.push_str(sep);
        if start_group {
            text_s.push('(');
            text_d.push('(');
            open = true;
        }
        text_s.push_str(&s.to_string());
        text_d.push_str(&d.to_string());
        if open && (!start_group) && (nest >> ((i + 4) % 8) & 1 == 1 || i + 1 == n) {
            text_s.push(')');
            text_d.push(')');
            open = false;
        }
    }
    if open {
        text_s.push(')');
        text_d.push(')');
    }
    text_s.push(')');
    text_d.push(')');
    format!("{text_s}:{text_d}")
        .parse()
        .expect("generated layout text is valid")
}

fn image(l: &Layout) -> Vec<u64> {
    (0..l.size())
        .map(|i| l.index_of(i).expect("in domain"))
        .collect()
}

fn brute_injective(l: &Layout) -> bool {
    let mut img = image(l);
    img.sort_unstable();
    img.windows(2).all(|w| w[0] != w[1])
}

/// The algebra on arbitrary small layouts, each result checked against brute force.
pub fn algebra(data: &[u8]) {
    let mut b = Bytes(data);
    let op = b.next();
    let a = small_layout(&mut b);
    let c = small_layout(&mut b);
    let m = 1 + (b.next() as u64) * 4;
    if a.size() > BRUTE_LIMIT || c.size() > BRUTE_LIMIT {
        return;
    }
    match op % 10 {
        0 => {
            if let Ok(r) = a.compose(&c) {
                assert_eq!(r.size(), c.size(), "compose keeps B's size");
                // past size(A), A extends along its last mode (kept even at extent 1)
                for i in 0..r.size() {
                    let via = a.index_unbounded(c.index_of(i).unwrap());
                    assert_eq!(Some(r.index_of(i).unwrap()), via, "{a} o {c} at {i}");
                }
            }
        }
        1 => match a.complement(m) {
            Ok(comp) => {
                let both = a.append(&comp).expect("fits");
                assert!(
                    brute_injective(&both),
                    "(L, complement) injective: {a}, {m}"
                );
                let img = image(&comp);
                assert!(img.windows(2).all(|w| w[0] < w[1]), "complement increasing");
            }
            Err(_) => assert!(
                a.size() > m || !brute_injective(&a) || !chainable(&a),
                "complement rejected a complementable layout {a} to {m}"
            ),
        },
        2 => {
            let co = a.coalesce();
            assert_eq!(image(&co), image(&a), "coalesce keeps the function of {a}");
            let fi = a.filter();
            let mut x = image(&fi);
            let mut y = image(&a);
            x.sort_unstable();
            x.dedup();
            y.sort_unstable();
            y.dedup();
            assert_eq!(x, y, "filter keeps the image of {a}");
        }
        3 => {
            assert_eq!(a.is_injective(), brute_injective(&a), "is_injective({a})");
        }
        4 => {
            let target = Shape::new(1 + (m % 64)).unwrap();
            let n = target.size();
            let img = image(&a);
            let counts: Vec<u64> = (0..n)
                .map(|j| img.iter().filter(|&&v| v == j).count() as u64)
                .collect();
            let brute = (img.iter().all(|&v| v < n)
                && counts.iter().all(|&k| k == counts[0] && k > 0))
            .then(|| counts[0]);
            assert_eq!(
                a.uniform_preimage_extent(&target),
                brute,
                "uniform_preimage_extent({a}, {n})"
            );
        }
        5 => {
            if let Ok(r) = a.right_inverse() {
                for i in 0..r.size() {
                    assert_eq!(
                        a.index_of(r.index_of(i).unwrap()).unwrap(),
                        i,
                        "right_inverse({a})"
                    );
                }
            }
            if let Ok(l) = a.left_inverse() {
                // a left inverse of an injective layout, CuTe's quasi-inverse otherwise
                let injective = brute_injective(&a);
                for i in 0..a.size() {
                    let x = a.index_of(i).unwrap();
                    let back = l.index_unbounded(x).unwrap();
                    if injective {
                        assert_eq!(back, i, "left_inverse({a})");
                    } else {
                        assert_eq!(a.index_of(back).ok(), Some(x), "left_inverse({a})");
                    }
                }
            }
        }
        6 => {
            if let Ok(d) = a.divide(&c) {
                // a tile larger than A pads: its complement skips the size check
                let comp = strideweave::algebra::complement_unchecked_size(&c, a.size()).unwrap();
                let bc = Layout::EMPTY.append(&c).unwrap().append(&comp).unwrap();
                assert_eq!(
                    Ok(d),
                    a.compose(&bc),
                    "divide is compose with (B, complement)"
                );
            }
        }
        7 => {
            if let Ok(p) = a.logical_product(&c) {
                // as a mode: a rank-1 layout and its single nested item are the same mode
                let as_mode = |l: &Layout| Layout::EMPTY.append(l).unwrap();
                assert_eq!(
                    as_mode(&p.get(0).unwrap()),
                    as_mode(&a),
                    "logical_product mode 0 is A"
                );
                if a.is_injective() && c.is_injective() {
                    assert!(
                        brute_injective(&p),
                        "product of injective layouts is injective: {a} x {c} = {p}"
                    );
                }
                let bp = a.blocked_product(&c).unwrap();
                let rp = a.raked_product(&c).unwrap();
                assert_eq!(bp.size(), a.size() * c.size());
                assert_eq!(rp.size(), a.size() * c.size());
            }
        }
        8 => {
            for i in 0..a.size() {
                let flat = a.index_of(i).unwrap();
                let coord = decode(&a, i);
                assert_eq!(
                    a.index(&coord).unwrap(),
                    flat,
                    "integer key equals its coordinate"
                );
            }
        }
        _ => {
            let rank = a.rank();
            let mut order: Vec<usize> = (0..rank).collect();
            order.rotate_left(op as usize % rank.max(1));
            let p = a.permute(&order).unwrap();
            let mut inv = vec![0; rank];
            for (j, &o) in order.iter().enumerate() {
                inv[o] = j;
            }
            assert_eq!(
                p.permute(&inv).unwrap(),
                a,
                "permute then inverse is identity"
            );
        }
    }
}

/// Whether sorted non-trivial strides each reach past the span below (CuTe's condition).
fn chainable(l: &Layout) -> bool {
    let mut leaves: Vec<(u64, u64)> = (0..l.leaf_count())
        .map(|i| (l.leaf_stride(i), l.leaf_extent(i)))
        .filter(|&(_, s)| s > 1)
        .collect();
    leaves.sort_unstable();
    let mut current = 1;
    for (d, s) in leaves {
        if d < current {
            return false;
        }
        current = s * d;
    }
    true
}

/// The full-depth coordinate of integer key `i`, first leaf fastest, as nested text.
fn decode(l: &Layout, mut i: u64) -> Coord {
    let mut leaves = [0u64; MAX_LEAVES];
    for (k, leaf) in leaves.iter_mut().enumerate().take(l.leaf_count()) {
        *leaf = i % l.leaf_extent(k);
        i /= l.leaf_extent(k);
    }
    // reuse the shape's tree: same recipe, coordinate values as leaves
    let shape = l.shape().to_string();
    let mut out = String::new();
    let mut k = 0;
    let mut chars = shape.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch.is_ascii_digit() {
            while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                chars.next();
            }
            out.push_str(&leaves[k].to_string());
            k += 1;
        } else {
            out.push(ch);
        }
    }
    if l.leaf_count() == 1 && l.shape().as_tuple().is_scalar() {
        return Coord::new((leaves[0],)).unwrap();
    }
    out.parse().expect("decoded coordinate parses")
}

/// Every operation on layouts with extents and strides near the `u64` limits: each must
/// answer with a value or a value error, never a panic or a wrapped result.
pub fn extremes(data: &[u8]) {
    let mut b = Bytes(data);
    let word = |b: &mut Bytes| -> u64 {
        // mostly values near powers of two and near u64::MAX
        let sel = b.next();
        let base = match sel % 4 {
            0 => u64::MAX - u64::from(b.next()),
            1 => 1u64 << (b.next() % 64),
            2 => (1u64 << (b.next() % 64)).wrapping_sub(1),
            _ => u64::from(b.next()),
        };
        base.max(u64::from(sel.is_multiple_of(2)))
    };
    let n = 1 + (b.next() % 3) as usize;
    let shape: Vec<u64> = (0..n).map(|_| word(&mut b).max(1)).collect();
    let stride: Vec<u64> = (0..n).map(|_| word(&mut b)).collect();
    let Ok(a) = Layout::new(
        Shape::new(shape).unwrap(),
        strideweave::Stride::new(stride).unwrap(),
    ) else {
        return;
    };
    let m = word(&mut b);
    let other = Layout::leaf(word(&mut b).max(1), word(&mut b));
    let check = |r: Result<Layout, strideweave::LayoutError>| {
        if let Err(e) = r {
            assert_eq!(e.kind(), strideweave::ErrorKind::Value, "{e}");
        }
    };
    // bounded: an extreme layout must not make the fuzzer wait on an exponential search
    if let Err(e) = a.try_is_injective() {
        assert!(e.to_string().contains("not decided"), "{e}");
    }
    let _ = a.uniform_preimage_extent(&Shape::new(m.max(1)).unwrap());
    let _ = a.index_of(m);
    let _ = a.index_unbounded(m);
    let _ = a.coalesce();
    let _ = a.filter();
    check(a.complement(m));
    check(a.right_inverse());
    check(a.left_inverse());
    check(a.nullspace());
    check(a.make_layout_like());
    check(a.upcast(m.max(1)));
    check(a.downcast(m.max(1)));
    check(a.recast(m.max(1), 8));
    check(a.tile_to_shape(&a.shape(), None));
    if let Ok(o) = other {
        check(a.flat_divide(&[o]));
        check(a.zipped_product(&[o]));
        check(a.product_by(&o, strideweave::algebra::Arrangement::Flat));
        check(a.compose_by_mode(&[None]));
        check(o.tile_to_shape(&a.shape(), None));
        check(a.compose(&o));
        check(o.compose(&a));
        check(a.divide(&o));
        check(a.logical_product(&o));
        check(a.blocked_product(&o));
        check(a.raked_product(&o));
        check(a.concat(&o));
    }
}
