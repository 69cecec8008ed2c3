//! Fuzz-target bodies for the tensor module (`strideweave::tensor`). Each takes arbitrary
//! bytes and panics only when an invariant is broken (a crash is a finding): the library
//! must answer every input with a value or an error, and a plan must write exactly where
//! its contract says. Shared by `fuzz/fuzz_targets/{tensor_spec,plan}.rs` (coverage-guided,
//! nightly) and `tests/fuzz_tensor_replay.rs` (corpus replay and random sweep, stable).
//!
//! ```
//! strideweave_suite::fuzz_tensor::tensor_spec(b"bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)\nf32[1,5,7,20]");
//! strideweave_suite::fuzz_tensor::plan(&[0, 3, 2, 1, 4, 7, 0, 0, 9, 9, 1]);
//! ```

use strideweave::tensor::{
    convert, prepare, AlignedBytes, DType, Op, Placement, Plan, RawInput, RawOutput, Role,
    TensorSpec, CBLOCK_LANES,
};
use strideweave::Coord;

/// Largest element count whose every byte offset the brute-force checks enumerate.
const BRUTE_ELEMENTS: u64 = 1024;
/// Largest port size (bytes) the `plan` target binds and runs.
const RUN_LIMIT: u64 = 1 << 18;

/// Every logical coordinate of `ext`, row-major (last axis fastest).
fn coords(ext: &[u64]) -> impl Iterator<Item = Vec<u64>> + '_ {
    let n: u64 = ext.iter().product();
    (0..n).map(move |mut i| {
        let mut c = vec![0; ext.len()];
        for ax in (0..ext.len()).rev() {
            c[ax] = i % ext[ax];
            i /= ext[ax];
        }
        c
    })
}

/// Byte offsets of every byte of every element, through the placement's byte layout
/// (`None` when the tensor is too large to enumerate or its layout is unavailable).
fn all_offsets(s: &TensorSpec) -> Option<Vec<Vec<u64>>> {
    let n = s.dims.element_count().ok()?;
    if n > BRUTE_ELEMENTS {
        return None;
    }
    if n == 0 {
        return Some(Vec::new());
    }
    let layout = s.byte_layout().ok()??;
    let w = s.dtype.width();
    let mut out = Vec::with_capacity(n as usize);
    for c in coords(s.dims.extents()) {
        let mut offs = Vec::with_capacity(w as usize);
        for b in 0..w {
            let mut key = vec![b];
            key.extend_from_slice(&c);
            let off = layout
                .index(&Coord::new(key).expect("coordinate"))
                .expect("every in-range coordinate has an offset");
            offs.push(off);
        }
        out.push(offs);
    }
    Some(out)
}

fn round_up(a: u64, align: u64) -> Option<u64> {
    a.checked_add(align - 1).map(|x| x / align * align)
}

/// The tiled placements' required bytes by the spec's formula:
/// tiles (outer axes included) x round_up(tile bytes, align); zero when empty.
fn tiled_formula(s: &TensorSpec) -> Option<u64> {
    let ext = s.dims.extents();
    if ext.contains(&0) {
        return Some(0);
    }
    let w = s.dtype.width();
    match &s.placement {
        Placement::MlaTiled(t) => {
            let mut tiles = 1u64;
            for (k, role) in Role::ALL.iter().enumerate() {
                let e = t.roles.axis_of(*role).map_or(1, |ax| ext[ax]);
                tiles = tiles.checked_mul(e.div_ceil(t.tile[k]))?;
            }
            for (ax, r) in t.roles.as_slice().iter().enumerate() {
                if r.is_none() {
                    tiles = tiles.checked_mul(ext[ax])?;
                }
            }
            let raw = t.tile.iter().try_fold(w, |a, &x| a.checked_mul(x))?;
            tiles.checked_mul(round_up(raw, t.tile_align)?)
        }
        Placement::MlaCBlocked(c) => {
            let r = ext.len();
            let outer = ext[..r - 3]
                .iter()
                .try_fold(1u64, |a, &x| a.checked_mul(x))?;
            let tiles = outer
                .checked_mul(ext[r - 3].div_ceil(c.tile_h))?
                .checked_mul(ext[r - 2].div_ceil(c.tile_w))?;
            let raw = ext[r - 1]
                .div_ceil(CBLOCK_LANES)
                .checked_mul(CBLOCK_LANES)?
                .checked_mul(c.tile_h)?
                .checked_mul(c.tile_w)?
                .checked_mul(w)?;
            tiles.checked_mul(round_up(raw, c.tile_align)?)
        }
        _ => None,
    }
}

/// Checks `bytes` (a plan's or `required_bytes`' answer for `s`) against the brute force:
/// max byte offset + 1 for contiguous/strided, the tile formula for tiled placements.
fn check_required(s: &TensorSpec, bytes: u64) {
    if s.placement.is_tiled() {
        assert_eq!(
            tiled_formula(s),
            Some(bytes),
            "{s}: required bytes differ from the tile formula"
        );
    }
    if let Some(all) = all_offsets(s) {
        let max = all.iter().flatten().max().map_or(0, |m| m + 1);
        if s.placement.is_tiled() {
            assert!(
                max <= bytes,
                "{s}: an element lies beyond the required bytes"
            );
        } else {
            assert_eq!(max, bytes, "{s}: required bytes != max byte offset + 1");
        }
        // Distinct elements never share a byte (every admitted placement is injective).
        let mut seen: Vec<u64> = all.iter().flatten().copied().collect();
        seen.sort_unstable();
        let n = seen.len();
        seen.dedup();
        if s.placement.is_tiled() || matches!(s.placement, Placement::Contiguous) {
            assert_eq!(seen.len(), n, "{s}: two element bytes share an offset");
        }
    }
}

/// Specs that make `s` admissible on the other port: same dims in other placements and
/// dtypes, and argmax outputs.
fn partners(s: &TensorSpec) -> Vec<TensorSpec> {
    let mut out = Vec::new();
    for d in [DType::F32, DType::BF16, DType::F16] {
        if let Ok(p) = TensorSpec::contiguous(s.dims.extents(), d) {
            out.push(p);
        }
    }
    for axis in 0..s.dims.rank() {
        if let Ok(dims) = s.dims.without_axis(axis) {
            for d in [DType::I32, DType::I64] {
                if let Ok(p) = TensorSpec::contiguous(dims.extents(), d) {
                    out.push(p);
                }
            }
        }
    }
    out
}

fn ops(rank: usize) -> Vec<Op> {
    let mut v = vec![Op::Cast, Op::CastTess, Op::CastUntess];
    v.extend((0..=rank + 1).map(|axis| Op::Argmax { axis }));
    v
}

/// Checks an admitted plan's port requirements; the brute-force span check runs once per
/// distinct spec (`checked`), so an input of large specs stays well inside the fuzzer's
/// per-input time limit.
fn check_plan(plan: &Plan, checked: &mut Vec<TensorSpec>) {
    for port in plan.inputs().iter().chain(plan.outputs()) {
        assert_eq!(
            port.align,
            port.spec.dtype.width(),
            "alignment is the width"
        );
        let r = port
            .spec
            .required_bytes()
            .expect("admitted spec has a span");
        assert_eq!(port.bytes, r, "{}: plan bytes == required_bytes", port.spec);
        if !checked.contains(&port.spec) {
            check_required(&port.spec, port.bytes);
            checked.push(port.spec);
        }
    }
}

/// TensorSpec text: up to three specs, one per line. Whatever parses prints and re-parses
/// equal; `required_bytes` is the brute-force span or the tile formula; `prepare` of every
/// op on every pair (and on derived partners) returns a plan or an error, never panics, and
/// an admitted plan's bytes are those of its specs.
pub fn tensor_spec(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.len() > 512 {
        return;
    }
    let mut specs = Vec::new();
    for line in text.split('\n').take(3) {
        let Ok(s) = line.parse::<TensorSpec>() else {
            continue;
        };
        let printed = s.to_string();
        let again: TensorSpec = printed
            .parse()
            .unwrap_or_else(|e| panic!("printed spec {printed:?} re-parses: {e}"));
        assert_eq!(again, s, "parse(print(x)) == x for {printed}");
        assert_eq!(again.to_string(), printed, "printing is stable");
        if let Ok(r) = s.required_bytes() {
            check_required(&s, r);
        }
        specs.push(s);
    }
    let mut pairs = Vec::new();
    for a in &specs {
        for b in &specs {
            pairs.push((*a, *b));
        }
        for p in partners(a) {
            pairs.push((*a, p));
            pairs.push((p, *a));
        }
    }
    let mut checked = Vec::new();
    for (a, b) in pairs {
        for op in ops(a.dims.rank()) {
            if let Ok(plan) = prepare(op, &[a], &[b]) {
                check_plan(&plan, &mut checked);
            }
        }
    }
    // Wrong port counts are errors too.
    if let Some(a) = specs.first() {
        assert!(prepare(Op::Cast, &[], &[*a]).is_err());
        assert!(prepare(Op::Cast, &[*a, *a], &[*a]).is_err());
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
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.next() as usize % items.len()]
    }
}

const EXTENTS: [u64; 8] = [1, 2, 3, 4, 5, 0, 2, 3];
const DTYPES: [&str; 7] = ["f32", "f32", "bf16", "f16", "bf16", "i32", "i64"];
const TILES: [u64; 6] = [1, 2, 3, 4, 16, 1];
const ALIGNS: [u64; 8] = [1, 2, 4, 8, 16, 64, 128, 3];

/// A small spec as text (so the parser's own checks apply), over `ext`.
fn small_spec(b: &mut Bytes, ext: &[u64], dtype: &str) -> String {
    let dims = ext
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let width: i64 = match dtype {
        "f32" | "i32" => 4,
        "i64" => 8,
        _ => 2,
    };
    let placement = match b.next() % 6 {
        0 | 1 => String::new(),
        2 => {
            // Strided: a permuted compact order with gaps (mostly admissible), or raw strides.
            let mode = b.next();
            let strides: Vec<i64> = if !mode.is_multiple_of(3) {
                let mut order: Vec<usize> = (0..ext.len()).collect();
                for i in (1..order.len()).rev() {
                    order.swap(i, b.next() as usize % (i + 1));
                }
                let mut s = vec![0i64; ext.len()];
                let mut span = width;
                for &ax in order.iter().rev() {
                    let gap = i64::from(b.next() % 3) * width;
                    s[ax] = span + gap;
                    span = s[ax] * (ext[ax].max(1) as i64);
                }
                s
            } else {
                (0..ext.len())
                    .map(|_| i64::from(b.next() as i8) * if mode & 8 != 0 { width } else { 1 })
                    .collect()
            };
            let s: Vec<String> = strides.iter().map(|x| x.to_string()).collect();
            format!(" strided({})", s.join(","))
        }
        3 | 4 => {
            // MlaTiled: roles drawn without replacement mostly, tiles 1 on absent roles.
            let mut free = vec!['D', 'H', 'W', 'C'];
            let sloppy = b.next().is_multiple_of(8);
            let mut roles = String::new();
            for _ in 0..ext.len() {
                let k = b.next() as usize % (free.len() + 1);
                if k == free.len() {
                    roles.push('.');
                } else if sloppy {
                    roles.push(free[k]);
                } else {
                    roles.push(free.remove(k));
                }
            }
            let tile: Vec<String> = ['D', 'H', 'W', 'C']
                .iter()
                .map(|r| {
                    let t = b.pick(&TILES);
                    if roles.contains(*r) || sloppy {
                        t
                    } else {
                        1
                    }
                })
                .map(|t| t.to_string())
                .collect();
            format!(
                " mla-tiled(roles={roles}, tile=({}), align={})",
                tile.join(","),
                b.pick(&ALIGNS)
            )
        }
        _ => format!(
            " mla-cblocked(tile=({},{}), align={})",
            b.pick(&TILES),
            b.pick(&TILES),
            b.pick(&ALIGNS)
        ),
    };
    format!("{dtype}[{dims}]{placement}")
}

/// xorshift64*: input contents derived from the fuzz bytes.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn fill(&mut self, buf: &mut [u8]) {
        for c in buf.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }
}

/// Reads the element at byte offsets `offs` of `buf` as raw bits.
fn read_bits(buf: &[u8], offs: &[u64]) -> u64 {
    offs.iter()
        .enumerate()
        .fold(0, |a, (i, &o)| a | (u64::from(buf[o as usize]) << (8 * i)))
}

fn to_f32_bits(d: DType, bits: u64) -> u32 {
    match d {
        DType::F32 => bits as u32,
        DType::F16 => convert::f16_to_f32_bits(bits as u16),
        _ => convert::bf16_to_f32_bits(bits as u16),
    }
}

/// The documented conversion: equal dtypes copy bits, others go through F32 and round once.
fn convert_bits(from: DType, to: DType, bits: u64) -> u64 {
    if from == to {
        return bits;
    }
    let f = to_f32_bits(from, bits);
    match to {
        DType::F32 => u64::from(f),
        DType::F16 => u64::from(convert::f32_to_f16_bits(f)),
        _ => u64::from(convert::f32_to_bf16_bits(f)),
    }
}

/// Checks the output span `out` of a successful run of `plan` on input span `inp`
/// against an oracle built from the specs' byte layouts.
fn check_result(plan: &Plan, inp: &[u8], out: &[u8], before: &[u8]) {
    let (is, os) = (plan.inputs()[0].spec, plan.outputs()[0].spec);
    let (Some(io), Some(oo)) = (all_offsets(&is), all_offsets(&os)) else {
        return;
    };
    let mut written = vec![false; out.len()];
    match plan.op() {
        Op::Argmax { axis } => {
            let ext = is.dims.extents();
            let n = ext[axis];
            // Strides of the row-major element numbering of the input.
            let inner: u64 = ext[axis + 1..].iter().product();
            for (k, offs) in oo.iter().enumerate() {
                let (outer, rest) = (k as u64 / inner, k as u64 % inner);
                let mut best: Option<(u64, f32)> = None;
                for j in 0..n {
                    let e = ((outer * n + j) * inner + rest) as usize;
                    let v = f32::from_bits(to_f32_bits(is.dtype, read_bits(inp, &io[e])));
                    best = match best {
                        None => Some((j, v)),
                        Some((_, b)) if b.is_nan() => best,
                        Some(_) if v.is_nan() => Some((j, v)),
                        Some((_, b)) if v > b => Some((j, v)),
                        _ => best,
                    };
                }
                let want = best.map_or(0, |(j, _)| j);
                assert_eq!(read_bits(out, offs), want, "argmax of output element {k}");
                offs.iter().for_each(|&o| written[o as usize] = true);
            }
        }
        _ => {
            for (i, o) in io.iter().zip(&oo) {
                let want = convert_bits(is.dtype, os.dtype, read_bits(inp, i));
                assert_eq!(read_bits(out, o), want, "{is} -> {os}: converted element");
                o.iter().for_each(|&x| written[x as usize] = true);
            }
        }
    }
    for (k, w) in written.iter().enumerate() {
        if !*w {
            if os.placement.is_tiled() {
                assert_eq!(out[k], 0, "{os}: padding byte {k} is zero");
            } else {
                assert_eq!(out[k], before[k], "{os}: gap byte {k} unchanged");
            }
        }
    }
}

/// Capacity `required + delta` (delta in -2..=5), at least zero.
fn capacity(b: &mut Bytes, required: u64) -> usize {
    let delta = i64::from(b.next() % 8) - 2;
    (required as i64 + delta).max(0) as usize
}

/// A binding offset: mostly a multiple of the element width `w`, sometimes any of 0..=8.
fn offset(b: &mut Bytes, w: usize) -> usize {
    match b.next() % 4 {
        0 => (b.next() % 9) as usize,
        _ => (b.next() % 3) as usize * w,
    }
}

/// Small random specs, prepared and run with arbitrary binding lengths and offsets into
/// sentinel-filled buffers: a rejected run leaves every output byte untouched, an admitted
/// run writes nothing outside the output span and matches the byte-layout oracle. Then
/// `run_raw` on two sub-slices of one buffer: intersecting spans, short capacities and
/// misaligned addresses are rejected with the whole buffer untouched.
pub fn plan(data: &[u8]) {
    let mut b = Bytes(data);
    let rank = (b.next() % 5) as usize;
    let ext: Vec<u64> = (0..rank).map(|_| b.pick(&EXTENTS)).collect();
    let op_sel = b.next() % 8;
    let in_dtype = b.pick(&DTYPES);
    let from = small_spec(&mut b, &ext, in_dtype);
    let (to, op_hint) = if op_sel < 2 {
        let axis = b.next() as usize % (rank + 1);
        let mut o = ext.clone();
        if axis < o.len() {
            o.remove(axis);
        }
        let dims: Vec<String> = o.iter().map(|e| e.to_string()).collect();
        let dt = if b.next() % 2 == 0 { "i32" } else { "i64" };
        (
            format!("{dt}[{}]", dims.join(",")),
            Some(Op::Argmax { axis }),
        )
    } else {
        let dt = b.pick(&DTYPES);
        (small_spec(&mut b, &ext, dt), None)
    };
    let (Ok(from), Ok(to)) = (from.parse::<TensorSpec>(), to.parse::<TensorSpec>()) else {
        return;
    };
    let op = match (op_hint, op_sel) {
        (Some(op), _) => op,
        (None, 2) => Op::Cast,
        (None, 3) => Op::CastTess,
        _ => Op::conversion(&from, &to),
    };
    let Ok(plan) = prepare(op, &[from], &[to]) else {
        return;
    };
    check_plan(&plan, &mut Vec::new());
    let (ri, ro) = (plan.inputs()[0].bytes, plan.outputs()[0].bytes);
    if ri > RUN_LIMIT || ro > RUN_LIMIT {
        return;
    }
    let (wi, wo) = (
        plan.inputs()[0].align as usize,
        plan.outputs()[0].align as usize,
    );
    let mut rng = Rng(u64::from_le_bytes(std::array::from_fn(|_| b.next())) | 1);

    // Safe API: arbitrary capacities and offsets.
    let (ci, off_i) = (capacity(&mut b, ri), offset(&mut b, wi));
    let (co, off_o) = (capacity(&mut b, ro), offset(&mut b, wo));
    let sentinel = b.next();
    let mut inbuf = AlignedBytes::zeroed(off_i + ci);
    rng.fill(inbuf.as_mut_slice());
    const MARGIN: usize = 16;
    let mut outbuf = AlignedBytes::filled(MARGIN + off_o + co + MARGIN, sentinel);
    let before = outbuf.as_slice().to_vec();
    let ok_in = ci as u64 >= ri && (ci == 0 || off_i.is_multiple_of(wi));
    let ok_out = co as u64 >= ro && (co == 0 || (MARGIN + off_o).is_multiple_of(wo));
    let res = {
        let inp = &inbuf.as_slice()[off_i..off_i + ci];
        let out = &mut outbuf.as_mut_slice()[MARGIN + off_o..MARGIN + off_o + co];
        plan.run(&[inp], &mut [out])
    };
    assert_eq!(
        res.is_ok(),
        ok_in && ok_out,
        "{from} -> {to}: run accepts exactly the valid bindings (ci {ci}/{ri} at +{off_i}, co {co}/{ro} at +{off_o}): {res:?}"
    );
    let o = outbuf.as_slice();
    let span = MARGIN + off_o..MARGIN + off_o + ro as usize;
    if res.is_err() {
        assert_eq!(o, &before[..], "a rejected run writes nothing");
    } else {
        assert_eq!(
            o[..span.start],
            before[..span.start],
            "nothing before the span"
        );
        assert_eq!(o[span.end..], before[span.end..], "nothing after the span");
        let inp = &inbuf.as_slice()[off_i..off_i + ri as usize];
        check_result(&plan, inp, &o[span.clone()], &before[span]);
    }
    // Wrong binding counts are rejected before writing.
    let mut spare = AlignedBytes::filled(ro as usize, sentinel);
    assert!(plan.run(&[], &mut [spare.as_mut_slice()]).is_err());
    assert!(spare.as_slice().iter().all(|&x| x == sentinel));

    // Raw API: input and output are sub-slices of one buffer, possibly overlapping.
    let total = (ri + ro) as usize + 24;
    let mut shared = AlignedBytes::zeroed(total);
    rng.fill(shared.as_mut_slice());
    let snapshot = shared.as_slice().to_vec();
    let ci = capacity(&mut b, ri).min(total);
    let co = capacity(&mut b, ro).min(total);
    let ai = b.next() as usize * 7 % (total - ci + 1);
    let ao = b.next() as usize * 13 % (total - co + 1);
    let (ri_, ro_) = (ri as usize, ro as usize);
    let ok_in = ci >= ri_ && (ci == 0 || ai.is_multiple_of(wi));
    let ok_out = co >= ro_ && (co == 0 || ao.is_multiple_of(wo));
    let spans_meet = ri_ > 0 && ro_ > 0 && ai < ao + ro_ && ao < ai + ri_;
    let caps_meet = ci > 0 && co > 0 && ai < ao + co && ao < ai + ci;
    if caps_meet && !spans_meet && ok_in && ok_out {
        // The plan would run, and the input binding's storage would be written
        // meanwhile: outside run_raw's contract, so not a call to make.
        return;
    }
    let base = shared.as_mut_slice().as_mut_ptr();
    // SAFETY: both bindings lie inside `shared` (ai + ci <= total, ao + co <= total), which
    // lives across the call and is touched by nothing else. When their capacities
    // intersect, their required spans intersect too (checked just above), so run_raw must
    // reject the call before it forms any slice or writes.
    let res = unsafe {
        plan.run_raw(
            &[RawInput::new(base.add(ai), ci)],
            &[RawOutput::new(base.add(ao), co)],
        )
    };
    assert_eq!(
        res.is_ok(),
        ok_in && ok_out && !spans_meet,
        "{from} -> {to}: run_raw input {ai}+{ci}/{ri} output {ao}+{co}/{ro}: {res:?}"
    );
    let s = shared.as_slice();
    if res.is_err() {
        assert_eq!(s, &snapshot[..], "a rejected run_raw writes nothing");
    } else {
        assert_eq!(s[..ao], snapshot[..ao], "nothing before the output span");
        assert_eq!(
            s[ao + ro_..],
            snapshot[ao + ro_..],
            "nothing after the span"
        );
        check_result(
            &plan,
            &snapshot[ai..ai + ri_],
            &s[ao..ao + ro_],
            &snapshot[ao..ao + ro_],
        );
    }
}
