//! Admission (`prepare`) and plans: per port required bytes and alignment, and running
//! a plan on bindings with every check done before any output byte is written.

use super::binding::{check_binding, check_disjoint, Port, RawInput, RawOutput};
use super::convert::ConvertPath;
use super::dims::Dims;
use super::dtype::DType;
use super::error::{Rule, TensorError};
use super::kernels::{self, Exec};
use super::placement::{Geometry, Placement, StridedGeom};
use super::spec::TensorSpec;

/// An operation that can be prepared into a [`Plan`].
///
/// ```
/// use strideweave::tensor::{Op, TensorSpec};
/// let a: TensorSpec = "f32[4,32] contiguous".parse().unwrap();
/// let b: TensorSpec = "bf16[4,32] mla-tiled(roles=HC, tile=(1,4,1,16), align=64)".parse().unwrap();
/// assert_eq!(Op::conversion(&a, &b), Op::CastTess);
/// assert_eq!(Op::conversion(&b, &a), Op::CastUntess);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// Float to float conversion between contiguous/strided placements.
    Cast,
    /// Cast whose output is MlaTiled or MlaCBlocked.
    CastTess,
    /// Extension: cast from a tiled placement back to contiguous/strided (for round trips).
    CastUntess,
    /// Index of the largest element along `axis`.
    Argmax {
        /// The reduced axis.
        axis: usize,
    },
}

impl Op {
    /// The conversion op (Cast, CastTess or CastUntess) for a pair of placements.
    pub fn conversion(from: &TensorSpec, to: &TensorSpec) -> Op {
        match (from.placement.is_tiled(), to.placement.is_tiled()) {
            (false, true) => Op::CastTess,
            (true, _) => Op::CastUntess,
            (false, false) => Op::Cast,
        }
    }

    /// The op's name in messages.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Cast => "cast",
            Op::CastTess => "cast-tess",
            Op::CastUntess => "cast-untess",
            Op::Argmax { .. } => "argmax",
        }
    }
}

/// What a port needs from its binding.
///
/// ```
/// use strideweave::tensor::{prepare, Op, TensorSpec};
/// let plan = prepare(Op::Cast, &["f32[3]".parse().unwrap()], &["f16[3]".parse().unwrap()]).unwrap();
/// let out = plan.outputs()[0];
/// assert_eq!((out.bytes, out.align), (6, 2));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortRequirement {
    /// The port's spec.
    pub spec: TensorSpec,
    /// Minimum capacity in bytes (the placement's span).
    pub bytes: u64,
    /// Required alignment of a non-empty binding's address (the element width).
    pub align: u64,
}

#[derive(Debug, Clone, Copy)]
enum Kernel {
    Cast { src: StridedGeom, dst: StridedGeom },
    Tess { src: StridedGeom, dst: Geometry },
    Untess { src: Geometry, dst: StridedGeom },
    Argmax { src: Geometry, axis: usize },
}

/// A prepared (admitted) operation.
///
/// ```
/// use strideweave::tensor::{prepare, AlignedBytes, Op, TensorSpec};
/// let from: TensorSpec = "f32[2,3] strided(16,4)".parse().unwrap();
/// let to: TensorSpec = "bf16[2,3] strided(8,2)".parse().unwrap();
/// let plan = prepare(Op::Cast, &[from], &[to]).unwrap();
/// assert_eq!(plan.inputs()[0].bytes, 28);
/// assert_eq!(plan.outputs()[0].bytes, 14);
/// let mut input = AlignedBytes::zeroed(28);
/// input.as_mut_slice()[24..28].copy_from_slice(&1.5f32.to_le_bytes()); // element [1,2]
/// let mut out = AlignedBytes::filled(14, 0xAA);
/// plan.run(&[input.as_slice()], &mut [out.as_mut_slice()]).unwrap();
/// assert_eq!(out.as_slice()[12..14], half::bf16::from_f32(1.5).to_le_bytes());
/// assert_eq!(out.as_slice()[6..8], [0xAA, 0xAA]); // the row gap is left unchanged
/// ```
#[derive(Debug, Clone)]
pub struct Plan {
    op: Op,
    inputs: [PortRequirement; 1],
    outputs: [PortRequirement; 1],
    kernel: Kernel,
    /// CastTess, CastUntess and Argmax of a tiled input: the tile-row walk of the tiled
    /// side (`kernels::cast_tess::rows_of`), built once here: building it costs about
    /// 76k instructions, 7% of a 1x56x56x64 pack.
    rows: Option<kernels::cast_tess::Rows>,
}

fn port_req(spec: &TensorSpec, g: &Geometry) -> PortRequirement {
    PortRequirement {
        spec: *spec,
        bytes: g.span(),
        align: spec.dtype.width(),
    }
}

fn reject(rule: Rule, msg: String) -> TensorError {
    TensorError::new(rule, msg)
}

/// The admission rules of a strided port (Cast, CastTess, CastUntess and Argmax inputs).
/// `positive` (argmax) forbids zero strides on every axis.
fn admit_strided(
    op: Op,
    port: &str,
    spec: &TensorSpec,
    positive: bool,
) -> Result<StridedGeom, TensorError> {
    let width = spec.dtype.width();
    if let Placement::Strided(s) = &spec.placement {
        spec.placement.check(&spec.dims)?;
        let ext = spec.dims.extents();
        let strides = s.as_slice();
        for (ax, &st) in strides.iter().enumerate() {
            if st < 0 {
                return Err(reject(
                    Rule::NegativeStride,
                    format!("{}: {port} stride {st} of axis {ax} is negative", op.name()),
                ));
            }
            if st.unsigned_abs() % width != 0 {
                return Err(reject(
                    Rule::MisalignedStride,
                    format!(
                        "{}: {port} stride {st} of axis {ax} is not a multiple of the element width {width}",
                        op.name()
                    ),
                ));
            }
            if st == 0 && (positive || ext[ax] > 1) {
                let why = if positive {
                    "argmax needs positive strides".to_string()
                } else {
                    format!("axis {ax} has extent {} > 1 (broadcast)", ext[ax])
                };
                return Err(reject(
                    Rule::ZeroStride,
                    format!("{}: {port} stride 0 on axis {ax}: {why}", op.name()),
                ));
            }
        }
        // Conservative non-overlap: sort axes of extent > 1 by stride; each stride must
        // cover the span accumulated so far.
        let mut axes: Vec<usize> = (0..ext.len()).filter(|&a| ext[a] > 1).collect();
        axes.sort_by_key(|&a| strides[a]);
        let mut span = width;
        for &a in &axes {
            let st = strides[a].unsigned_abs();
            if st < span {
                return Err(reject(
                    Rule::OverlappingStrides,
                    format!(
                        "{}: {port} stride {st} of axis {a} is below the span {span} of the faster axes (conservative non-overlap rule)",
                        op.name()
                    ),
                ));
            }
            let t = super::error::mul(ext[a] - 1, st, "span")?;
            span = super::error::add(span, t, "span")?;
        }
    }
    match spec.geometry()? {
        Geometry::Strided(g) => Ok(g),
        _ => {
            // Point at the op that takes this tiled port.
            let hint = match (op, port) {
                (Op::Cast, "output") => "; CastTess writes tiled outputs",
                (Op::Cast, _) => "; CastUntess reads tiled inputs",
                (Op::CastUntess, _) => "; CastTess writes tiled outputs",
                (Op::CastTess, _) => "; CastUntess reads tiled inputs",
                _ => "",
            };
            Err(reject(
                Rule::UnsupportedPlacement,
                format!(
                    "{}: {port} placement {} is not admitted (contiguous or strided required{hint})",
                    op.name(),
                    spec.placement.kind_name()
                ),
            ))
        }
    }
}

fn admit_float(op: Op, port: &str, spec: &TensorSpec) -> Result<(), TensorError> {
    if spec.dtype.is_float() {
        Ok(())
    } else {
        Err(reject(
            Rule::UnsupportedDType,
            format!(
                "{}: {port} dtype {} is not a float dtype (f32, f16, bf16)",
                op.name(),
                spec.dtype
            ),
        ))
    }
}

fn same_dims(op: Op, a: &Dims, b: &Dims) -> Result<(), TensorError> {
    if a == b {
        Ok(())
    } else {
        Err(reject(
            Rule::DimsMismatch,
            format!("{}: input dims {a} differ from output dims {b}", op.name()),
        ))
    }
}

fn admit_tiled(op: Op, port: &str, spec: &TensorSpec) -> Result<Geometry, TensorError> {
    if !spec.placement.is_tiled() {
        return Err(reject(
            Rule::UnsupportedPlacement,
            format!(
                "{}: {port} placement {} is not admitted (mla-tiled or mla-cblocked required)",
                op.name(),
                spec.placement.kind_name()
            ),
        ));
    }
    spec.geometry()
}

/// Validates `inputs`/`outputs` for `op` (admission) and returns the plan, which states
/// per port the required bytes and alignment. Each rejection names the rule it broke.
///
/// ```
/// use strideweave::tensor::{prepare, Op, Rule, TensorSpec};
/// let bad: TensorSpec = "f32[3,2] strided(8,12)".parse().unwrap();
/// let out: TensorSpec = "bf16[3,2]".parse().unwrap();
/// let err = prepare(Op::Cast, &[bad], &[out]).unwrap_err();
/// assert_eq!(err.rule(), Rule::OverlappingStrides);
/// ```
pub fn prepare(op: Op, inputs: &[TensorSpec], outputs: &[TensorSpec]) -> Result<Plan, TensorError> {
    let (input, output) = match (inputs, outputs) {
        ([i], [o]) => (i, o),
        _ => {
            return Err(reject(
                Rule::PortCount,
                format!(
                    "{} takes 1 input and 1 output, got {} and {}",
                    op.name(),
                    inputs.len(),
                    outputs.len()
                ),
            ))
        }
    };
    let kernel = match op {
        Op::Cast | Op::CastTess | Op::CastUntess => {
            admit_float(op, "input", input)?;
            admit_float(op, "output", output)?;
            same_dims(op, &input.dims, &output.dims)?;
            match op {
                Op::Cast => Kernel::Cast {
                    src: admit_strided(op, "input", input, false)?,
                    dst: admit_strided(op, "output", output, false)?,
                },
                Op::CastTess => Kernel::Tess {
                    src: admit_strided(op, "input", input, false)?,
                    dst: admit_tiled(op, "output", output)?,
                },
                _ => Kernel::Untess {
                    src: admit_tiled(op, "input", input)?,
                    dst: admit_strided(op, "output", output, false)?,
                },
            }
        }
        Op::Argmax { axis } => {
            admit_float(op, "input", input)?;
            let rank = input.dims.rank();
            if axis >= rank {
                return Err(reject(
                    Rule::AxisOutOfRange,
                    format!("argmax: axis {axis} of a rank-{rank} input"),
                ));
            }
            let n = input.dims.extents()[axis];
            if n == 0 {
                return Err(reject(
                    Rule::EmptyReducedAxis,
                    format!("argmax: the reduced axis {axis} has extent 0"),
                ));
            }
            let src = if input.placement.is_tiled() {
                input.geometry()?
            } else {
                Geometry::Strided(admit_strided(op, "input", input, true)?)
            };
            let limit = match output.dtype {
                DType::I32 => i32::MAX as u64,
                DType::I64 => i64::MAX as u64,
                d => {
                    return Err(reject(
                        Rule::UnsupportedDType,
                        format!("argmax: output dtype {d} is not i32 or i64"),
                    ))
                }
            };
            if n - 1 > limit {
                return Err(reject(
                    Rule::Overflow,
                    format!(
                        "argmax: index {} does not fit the output dtype {}",
                        n - 1,
                        output.dtype
                    ),
                ));
            }
            if output.placement != Placement::Contiguous {
                return Err(reject(
                    Rule::UnsupportedPlacement,
                    format!(
                        "argmax: output placement {} is not admitted (contiguous required)",
                        output.placement.kind_name()
                    ),
                ));
            }
            let want = input.dims.without_axis(axis)?;
            if output.dims != want {
                return Err(reject(
                    Rule::DimsMismatch,
                    format!(
                        "argmax: output dims {} must be the input dims {} without axis {axis}, i.e. {want}",
                        output.dims, input.dims
                    ),
                ));
            }
            Kernel::Argmax { src, axis }
        }
    };
    let (gi, go) = match &kernel {
        Kernel::Cast { src, dst } => (Geometry::Strided(*src), Geometry::Strided(*dst)),
        Kernel::Tess { src, dst } => (Geometry::Strided(*src), *dst),
        Kernel::Untess { src, dst } => (*src, Geometry::Strided(*dst)),
        Kernel::Argmax { src, .. } => (*src, output.geometry()?),
    };
    let rows = match &kernel {
        Kernel::Tess { src, dst } => kernels::cast_tess::rows_of(dst, &input.dims, src)?,
        Kernel::Untess { src, dst } if dst.span > 0 => {
            kernels::cast_tess::rows_of(src, &input.dims, dst)?
        }
        // A tiled argmax input is unpacked into its contiguous layout first.
        Kernel::Argmax { src, .. } if !matches!(src, Geometry::Strided(_)) => {
            let flat = StridedGeom::contiguous(&input.dims, input.dtype.width())?;
            kernels::cast_tess::rows_of(src, &input.dims, &flat)?
        }
        _ => None,
    };
    Ok(Plan {
        op,
        rows,
        inputs: [port_req(input, &gi)],
        outputs: [port_req(output, &go)],
        kernel,
    })
}

/// How CastTess chooses its tile packing loop.
///
/// ```
/// use strideweave::tensor::TileDispatch;
/// assert_ne!(TileDispatch::Auto, TileDispatch::Runtime);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileDispatch {
    /// A monomorphized loop when the tile shape is one of the built-in static shapes,
    /// else the runtime-tile loop.
    Auto,
    /// Always the runtime-tile loop (same bytes).
    Runtime,
}

/// Below this many bytes (input span plus output span) a run with automatic threading
/// stays on the calling thread: splitting costs more than it saves.
pub const PARALLEL_MIN_BYTES: u64 = 2 << 20;

/// Options of one run: the CastTess tile loop, the thread count and the conversion
/// instruction-set path. The bytes written never depend on the thread count or path.
///
/// ```
/// use strideweave::tensor::{prepare, AlignedBytes, Op, RunOptions, TensorSpec};
/// use strideweave::tensor::convert::ConvertPath;
/// let plan = prepare(Op::Cast, &["f32[1000]".parse().unwrap()], &["bf16[1000]".parse().unwrap()]).unwrap();
/// let input = AlignedBytes::zeroed(4000);
/// let (mut a, mut b) = (AlignedBytes::zeroed(2000), AlignedBytes::zeroed(2000));
/// plan.run_with_options(&[input.as_slice()], &mut [a.as_mut_slice()], RunOptions::new().threads(4)).unwrap();
/// let single = RunOptions::new().threads(1).path(ConvertPath::Portable);
/// plan.run_with_options(&[input.as_slice()], &mut [b.as_mut_slice()], single).unwrap();
/// assert_eq!(a.as_slice(), b.as_slice());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    tiles: TileDispatch,
    threads: usize,
    path: Option<ConvertPath>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl RunOptions {
    /// Built-in static tile loops, automatic threading, the fastest path of this CPU.
    pub const fn new() -> Self {
        RunOptions {
            tiles: TileDispatch::Auto,
            threads: 0,
            path: None,
        }
    }

    /// Splits the work into `n` parts run on the current rayon thread pool (the global
    /// pool, or the one the caller entered with `ThreadPool::install`); `1` runs on the
    /// calling thread. `0` (the default) is automatic: one part per pool thread when the
    /// input and output spans together reach [`PARALLEL_MIN_BYTES`], else one.
    pub const fn threads(self, n: usize) -> Self {
        RunOptions { threads: n, ..self }
    }

    /// Chooses the CastTess tile loop.
    pub const fn tile_dispatch(self, tiles: TileDispatch) -> Self {
        RunOptions { tiles, ..self }
    }

    /// Forces a conversion path (an error at run time, before any write, when this CPU
    /// lacks it); by default the fastest available one.
    pub const fn path(self, path: ConvertPath) -> Self {
        RunOptions {
            path: Some(path),
            ..self
        }
    }
}

impl Plan {
    /// The prepared op.
    pub fn op(&self) -> Op {
        self.op
    }

    /// Requirements of the input ports.
    pub fn inputs(&self) -> &[PortRequirement] {
        &self.inputs
    }

    /// Requirements of the output ports.
    pub fn outputs(&self) -> &[PortRequirement] {
        &self.outputs
    }

    fn check_safe(&self, inputs: &[&[u8]], outputs: &[&mut [u8]]) -> Result<(), TensorError> {
        self.check_counts(inputs.len(), outputs.len())?;
        for (i, (b, r)) in inputs.iter().zip(&self.inputs).enumerate() {
            check_binding(Port::Input(i), r, b.as_ptr() as usize, b.len())?;
        }
        for (i, (b, r)) in outputs.iter().zip(&self.outputs).enumerate() {
            check_binding(Port::Output(i), r, b.as_ptr() as usize, b.len())?;
        }
        Ok(())
    }

    fn check_counts(&self, ni: usize, no: usize) -> Result<(), TensorError> {
        if ni != self.inputs.len() || no != self.outputs.len() {
            return Err(reject(
                Rule::PortCount,
                format!(
                    "{} takes {} input and {} output bindings, got {ni} and {no}",
                    self.op.name(),
                    self.inputs.len(),
                    self.outputs.len()
                ),
            ));
        }
        Ok(())
    }

    /// Runs the plan. Input and output lengths are the capacities. Every check is done
    /// before any output byte is written; a rejected call changes no output byte.
    pub fn run(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), TensorError> {
        self.run_with_options(inputs, outputs, RunOptions::new())
    }

    /// [`Plan::run`] with [`RunOptions`] (thread count, conversion path, tile loop).
    pub fn run_with_options(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
        options: RunOptions,
    ) -> Result<(), TensorError> {
        self.check_safe(inputs, outputs)?;
        let exec = self.exec(options)?;
        let src = &inputs[0][..self.inputs[0].bytes as usize];
        let dst = &mut outputs[0][..self.outputs[0].bytes as usize];
        self.execute(&exec, src, dst, options.tiles)
    }

    /// How a run with `options` executes (checks the path before any write).
    fn exec(&self, options: RunOptions) -> Result<Exec, TensorError> {
        let path = match options.path {
            Some(p) => {
                p.require()?;
                p
            }
            None => ConvertPath::best(),
        };
        let bytes = self.inputs[0].bytes.saturating_add(self.outputs[0].bytes);
        let parts = match options.threads {
            0 if bytes >= PARALLEL_MIN_BYTES => rayon::current_num_threads(),
            0 => 1,
            n => n,
        };
        let streams = crate::tensor::kernels::cache::spills(bytes);
        Ok(Exec {
            path,
            parts,
            streams,
        })
    }

    /// [`Plan::run`] with an explicit choice of the CastTess tile loop.
    pub fn run_with(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
        dispatch: TileDispatch,
    ) -> Result<(), TensorError> {
        self.run_with_options(inputs, outputs, RunOptions::new().tile_dispatch(dispatch))
    }

    /// Runs CastTess with the monomorphized loop of the static tile layout `L`: a
    /// [`StaticLayout`](crate::StaticLayout) of shape `(TC, TW, TH, TD)` with the compact
    /// strides `(1, TC, TC*TW, TC*TW*TH)` (checked at compile time; see
    /// [`StaticTile`](crate::tensor::StaticTile)). A [`TileMismatch`](Rule::TileMismatch)
    /// error, before any write, when the plan's tile differs. MlaCBlocked tiles are
    /// `(16, TW, TH, 1)`.
    ///
    /// ```
    /// use strideweave::layout_type;
    /// use strideweave::tensor::{prepare, AlignedBytes, Op, TensorSpec, Tile1x4x4x16};
    /// let a: TensorSpec = "f32[4,4,16]".parse().unwrap();
    /// let b: TensorSpec = "bf16[4,4,16] mla-tiled(roles=HWC, tile=(1,4,4,16), align=64)".parse().unwrap();
    /// let plan = prepare(Op::CastTess, &[a], &[b]).unwrap();
    /// let input = AlignedBytes::zeroed(1024);
    /// let mut out = AlignedBytes::filled(512, 1);
    /// plan.run_static::<layout_type!((16,4,4,1):(1,16,64,256))>(&[input.as_slice()], &mut [out.as_mut_slice()]).unwrap();
    /// assert!(out.as_slice().iter().all(|&b| b == 0));
    /// // the built-in alias is the same layout type
    /// plan.run_static::<Tile1x4x4x16>(&[input.as_slice()], &mut [out.as_mut_slice()]).unwrap();
    /// ```
    pub fn run_static<L: crate::StaticLayout>(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
    ) -> Result<(), TensorError> {
        self.check_safe(inputs, outputs)?;
        match &self.kernel {
            Kernel::Tess { src, dst } => {
                kernels::cast_tess::check_static::<L>(dst)?;
                let exec = self.exec(RunOptions::new())?;
                let s = &inputs[0][..self.inputs[0].bytes as usize];
                let d = &mut outputs[0][..self.outputs[0].bytes as usize];
                kernels::cast_tess::run_static::<L>(
                    &exec,
                    &self.inputs[0].spec,
                    src,
                    &self.rows,
                    s,
                    &self.outputs[0].spec,
                    dst,
                    d,
                )
            }
            _ => Err(reject(
                Rule::UnsupportedPlacement,
                format!(
                    "run_static needs a cast-tess plan, this is {}",
                    self.op.name()
                ),
            )),
        }
    }

    /// Runs the plan on raw bindings (address + capacity). Besides the checks of
    /// [`Plan::run`] it rejects address overflow and intersecting bounding spans of an
    /// input and an output, before any output byte is written.
    ///
    /// # Safety
    /// Each binding must describe `capacity` bytes of storage that is accessible for the
    /// whole call: readable for inputs, writable for outputs, not written by anyone else
    /// meanwhile. The capacity is trusted as a fact about the allocation.
    ///
    /// ```
    /// use strideweave::tensor::{prepare, Op, RawInput, RawOutput, Rule, TensorSpec};
    /// let a: TensorSpec = "f32[4]".parse().unwrap();
    /// let b: TensorSpec = "f32[4]".parse().unwrap();
    /// let plan = prepare(Op::Cast, &[a], &[b]).unwrap();
    /// let mut buf = vec![0u32; 6];
    /// let p = buf.as_mut_ptr().cast::<u8>();
    /// // SAFETY: both bindings lie inside `buf` (24 bytes).
    /// let err = unsafe {
    ///     plan.run_raw(&[RawInput::new(p, 16)], &[RawOutput::new(p.add(8), 16)])
    /// }.unwrap_err();
    /// assert_eq!(err.rule(), Rule::IntersectingSpans);
    /// ```
    pub unsafe fn run_raw(
        &self,
        inputs: &[RawInput],
        outputs: &[RawOutput],
    ) -> Result<(), TensorError> {
        // SAFETY: the caller's contract, passed on unchanged.
        unsafe { self.run_raw_with_options(inputs, outputs, RunOptions::new()) }
    }

    /// [`Plan::run_raw`] with [`RunOptions`] (thread count, conversion path, tile loop).
    ///
    /// # Safety
    /// As for [`Plan::run_raw`].
    ///
    /// ```
    /// use strideweave::tensor::{prepare, Op, RawInput, RawOutput, RunOptions, TensorSpec};
    /// let a: TensorSpec = "f32[4]".parse().unwrap();
    /// let b: TensorSpec = "bf16[4]".parse().unwrap();
    /// let plan = prepare(Op::Cast, &[a], &[b]).unwrap();
    /// let src = [1.0f32, 2.0, 3.0, 4.0];
    /// let mut dst = [0u16; 4];
    /// // SAFETY: each binding is its whole array, alive and untouched during the call.
    /// unsafe {
    ///     plan.run_raw_with_options(
    ///         &[RawInput::new(src.as_ptr().cast(), 16)],
    ///         &[RawOutput::new(dst.as_mut_ptr().cast(), 8)],
    ///         RunOptions::new().threads(2),
    ///     )
    /// }
    /// .unwrap();
    /// assert_eq!(dst, [0x3F80, 0x4000, 0x4040, 0x4080]);
    /// ```
    pub unsafe fn run_raw_with_options(
        &self,
        inputs: &[RawInput],
        outputs: &[RawOutput],
        options: RunOptions,
    ) -> Result<(), TensorError> {
        self.check_counts(inputs.len(), outputs.len())?;
        let mut ispans = Vec::with_capacity(inputs.len());
        for (i, (b, r)) in inputs.iter().zip(&self.inputs).enumerate() {
            ispans.push(check_binding(
                Port::Input(i),
                r,
                b.ptr as usize,
                b.capacity,
            )?);
        }
        let mut ospans = Vec::with_capacity(outputs.len());
        for (i, (b, r)) in outputs.iter().zip(&self.outputs).enumerate() {
            ospans.push(check_binding(
                Port::Output(i),
                r,
                b.ptr as usize,
                b.capacity,
            )?);
        }
        for (i, a) in ispans.iter().enumerate() {
            for (o, b) in ospans.iter().enumerate() {
                check_disjoint(*a, *b, (Port::Input(i), Port::Output(o)))?;
            }
        }
        let il = ispans[0].1;
        let ol = ospans[0].1;
        let empty_in: &[u8] = &[];
        let mut empty_out: [u8; 0] = [];
        let src: &[u8] = if il == 0 {
            empty_in
        } else {
            // SAFETY: the caller promises `capacity` readable bytes at `ptr`, not written
            // during the call; `check_binding` proved il <= capacity, il <= isize::MAX, a
            // non-null address (il > 0 here) and no wrap. u8 needs no alignment and every
            // byte is initialized storage per the contract.
            unsafe { std::slice::from_raw_parts(inputs[0].ptr, il) }
        };
        let dst: &mut [u8] = if ol == 0 {
            &mut empty_out
        } else {
            // SAFETY: the caller promises `capacity` writable bytes at `ptr`, accessed by no
            // one else during the call; `check_binding` proved ol <= capacity,
            // ol <= isize::MAX, non-null and no wrap; `check_disjoint` proved
            // [ptr, ptr + ol) does not intersect the input span [in, in + il), so this
            // exclusive slice aliases neither `src` nor any other reference made here.
            unsafe { std::slice::from_raw_parts_mut(outputs[0].ptr, ol) }
        };
        let exec = self.exec(options)?;
        self.execute(&exec, src, dst, options.tiles)
    }

    /// Runs the kernel on slices already cut to exactly the required bytes.
    fn execute(
        &self,
        exec: &Exec,
        src: &[u8],
        dst: &mut [u8],
        dispatch: TileDispatch,
    ) -> Result<(), TensorError> {
        let is = &self.inputs[0].spec;
        let os = &self.outputs[0].spec;
        match &self.kernel {
            Kernel::Cast { src: a, dst: b } => {
                kernels::cast::cast(exec, is.dtype, a, src, os.dtype, b, dst)
            }
            Kernel::Tess { src: a, dst: b } => {
                kernels::cast_tess::cast_tess(exec, is, a, &self.rows, src, os, b, dst, dispatch)
            }
            Kernel::Untess { src: a, dst: b } => kernels::cast_tess::cast_untess(
                exec, is, a, &self.rows, src, os.dtype, b, dst, None,
            ),
            Kernel::Argmax { src: a, axis } => {
                kernels::argmax::argmax(exec, is, a, &self.rows, *axis, src, os.dtype, dst)
            }
        }
    }
}
