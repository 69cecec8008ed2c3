//! Bindings: an address plus the capacity actually available there, checked on every call.

use super::error::{Rule, TensorError};
use super::plan::PortRequirement;

/// A raw input binding for [`Plan::run_raw`](super::Plan::run_raw): address and capacity.
///
/// ```
/// use strideweave::tensor::RawInput;
/// let data = [0u8; 8];
/// let b = RawInput::new(data.as_ptr(), data.len());
/// assert_eq!(b.capacity, 8);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RawInput {
    /// Start of the readable storage.
    pub ptr: *const u8,
    /// Bytes readable from `ptr`.
    pub capacity: usize,
}

impl RawInput {
    /// A binding of `capacity` bytes at `ptr`.
    pub fn new(ptr: *const u8, capacity: usize) -> Self {
        RawInput { ptr, capacity }
    }
}

/// A raw output binding for [`Plan::run_raw`](super::Plan::run_raw): address and capacity.
///
/// ```
/// use strideweave::tensor::RawOutput;
/// let mut data = [0u8; 8];
/// let b = RawOutput::new(data.as_mut_ptr(), data.len());
/// assert_eq!(b.capacity, 8);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RawOutput {
    /// Start of the writable storage.
    pub ptr: *mut u8,
    /// Bytes writable from `ptr`.
    pub capacity: usize,
}

impl RawOutput {
    /// A binding of `capacity` bytes at `ptr`.
    pub fn new(ptr: *mut u8, capacity: usize) -> Self {
        RawOutput { ptr, capacity }
    }
}

/// A port of a plan, named in binding errors (`input 0`, `output 1`); formatted only
/// when an error is built, so a successful check allocates nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Port {
    Input(usize),
    Output(usize),
}

impl std::fmt::Display for Port {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Port::Input(i) => write!(f, "input {i}"),
            Port::Output(i) => write!(f, "output {i}"),
        }
    }
}

/// Checks one binding against its port: address overflow, capacity, null and
/// alignment of non-empty buffers. Returns the bounding span `[addr, addr + required)`,
/// which is then known not to wrap, to be non-null when non-empty, and to be at most
/// `isize::MAX` bytes long.
pub(crate) fn check_binding(
    port: Port,
    req: &PortRequirement,
    addr: usize,
    capacity: usize,
) -> Result<(usize, usize), TensorError> {
    addr.checked_add(capacity).ok_or_else(|| {
        TensorError::new(
            Rule::AddressOverflow,
            format!("{port}: address {addr:#x} + capacity {capacity} overflows the address space"),
        )
    })?;
    let required = usize::try_from(req.bytes).map_err(|_| {
        TensorError::new(
            Rule::Overflow,
            format!(
                "{port}: required bytes {} exceed the address space",
                req.bytes
            ),
        )
    })?;
    // No allocation exceeds isize::MAX bytes (the limit of `slice::from_raw_parts`), so a
    // larger requirement cannot be backed by real storage, whatever capacity is claimed.
    if required > isize::MAX as usize {
        return Err(TensorError::new(
            Rule::Overflow,
            format!("{port}: required bytes {required} exceed the largest possible allocation"),
        ));
    }
    if capacity < required {
        return Err(TensorError::new(
            Rule::CapacityTooSmall,
            format!("{port}: capacity {capacity} bytes is below the required {required} bytes"),
        ));
    }
    if capacity > 0 {
        if addr == 0 {
            return Err(TensorError::new(
                Rule::NullAddress,
                format!("{port}: non-empty binding of {capacity} bytes at a null address"),
            ));
        }
        let align = usize::try_from(req.align).unwrap_or(usize::MAX);
        if !addr.is_multiple_of(align) {
            return Err(TensorError::new(
                Rule::MisalignedAddress,
                format!("{port}: address {addr:#x} is not aligned to {align} bytes"),
            ));
        }
    }
    Ok((addr, required))
}

/// Rejects intersecting bounding spans `[a, a + la)` and `[b, b + lb)` (empty spans never intersect).
pub(crate) fn check_disjoint(
    input: (usize, usize),
    output: (usize, usize),
    names: (Port, Port),
) -> Result<(), TensorError> {
    let (a, la) = input;
    let (b, lb) = output;
    if la == 0 || lb == 0 {
        return Ok(());
    }
    // Both ends fit: addr + capacity was checked and required <= capacity.
    if a < b + lb && b < a + la {
        return Err(TensorError::new(
            Rule::IntersectingSpans,
            format!(
                "{} span [{a:#x}, {:#x}) intersects {} span [{b:#x}, {:#x})",
                names.0,
                a + la,
                names.1,
                b + lb
            ),
        ));
    }
    Ok(())
}

/// A heap byte buffer aligned to 64 bytes (a cache line; enough for every element
/// width), for bindings whose address must be aligned. A `Vec<u8>` promises only
/// 1-byte alignment.
///
/// ```
/// use strideweave::tensor::AlignedBytes;
/// let mut b = AlignedBytes::zeroed(10);
/// b.as_mut_slice()[9] = 7;
/// assert_eq!(b.as_slice().len(), 10);
/// assert_eq!(b.as_slice().as_ptr() as usize % 64, 0);
/// assert_eq!(AlignedBytes::from_slice(&[1, 2, 3]).as_slice(), &[1, 2, 3]);
/// ```
#[derive(Clone, Default)]
pub struct AlignedBytes {
    words: Vec<Line>,
    len: usize,
}

/// One zero-initialized, 64-byte aligned cache line of storage.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

impl AlignedBytes {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        AlignedBytes {
            words: vec![Line([0; 64]); len.div_ceil(64)],
            len,
        }
    }

    /// `len` bytes each equal to `byte`.
    pub fn filled(len: usize, byte: u8) -> Self {
        AlignedBytes {
            words: vec![Line([byte; 64]); len.div_ceil(64)],
            len,
        }
    }

    /// A copy of `bytes`.
    pub fn from_slice(bytes: &[u8]) -> Self {
        let mut b = AlignedBytes::zeroed(bytes.len());
        b.as_mut_slice().copy_from_slice(bytes);
        b
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `words` holds at least `len` initialized bytes (len <= 64 * words.len(),
        // `Line` is `repr(C)` over `[u8; 64]` with no padding); u8 has alignment 1.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }

    /// The bytes, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`; the exclusive borrow of `self` makes this the only view,
        // and any byte pattern is a valid `Line`.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

impl std::fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}
