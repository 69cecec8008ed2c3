//! Structure on static layouts: `get`/`mode`, `slice` (a range of modes), `concat`,
//! `append`, `flatten` and `group`, each a zero-sized type whose `LAYOUT` the compiler
//! computes with the same `const fn`s the runtime [`Layout`] methods use.

use super::{static_common, StaticLayout};
use crate::algebra;
use crate::error::CoreError;
use crate::Layout;
use std::marker::PhantomData;

/// A structural result, or a build error naming what went wrong.
macro_rules! structural {
    ($op:literal, $result:expr) => {
        match $result {
            Ok(l) => l,
            Err(CoreError::ModeOutOfRange { .. }) => panic!(concat!(
                "static ", $op, ": a mode index is out of range for the layout's rank (or the range is reversed)"
            )),
            Err(CoreError::Overflow { .. }) => panic!(concat!(
                "static ", $op, " overflows: a size or cosize does not fit in 64 bits"
            )),
            Err(_) => panic!(concat!(
                "static ", $op, ": the result has more leaves or nodes than a layout holds (32 leaves, 96 nodes)"
            )),
        }
    };
}

macro_rules! structure_type {
    ($(#[$doc:meta])* $name:ident [$($gen:tt)*] <$($p:tt),*> ($($ty:ident),*) = $op:literal, |$($arg:ident),*| $body:expr) => {
        $(#[$doc])*
        pub struct $name<$($gen)*>(PhantomData<fn() -> ($($ty,)*)>);

        impl<$($gen)*> $name<$($p),*> {
            /// The (zero-sized) value; fails the build if the operation does.
            pub const fn new() -> Self {
                let _ = <Self as StaticLayout>::LAYOUT;
                $name(PhantomData)
            }
        }

        impl<$($gen)*> StaticLayout for $name<$($p),*> {
            const LAYOUT: Layout = structural!($op, {
                $(let $arg = ();)*
                let _ = ($($arg,)*);
                $body
            });
        }

        static_common!([$($gen)*] $name<$($p),*>);
    };
}

/// `a.modes(S, E)` then validated, in `const`.
const fn modes(a: &Layout, start: usize, end: usize) -> Result<Layout, CoreError> {
    if start > end {
        return Err(CoreError::ModeOutOfRange {
            index: start as u64,
            rank: a.rank() as u64,
        });
    }
    match a.modes(start, end) {
        Ok(l) => l.validated(),
        Err(e) => Err(e),
    }
}

const fn joined(a: &Layout, b: &Layout, as_one_mode: bool) -> Result<Layout, CoreError> {
    let mut r = *a;
    let pushed = if as_one_mode {
        r.push_mode(b)
    } else {
        r.push_modes(b)
    };
    match pushed {
        Ok(()) => r.validated(),
        Err(e) => Err(e),
    }
}

structure_type!(
    /// Top-level mode `I` of `A`, hierarchy kept ([`StaticStructure::mode`]).
    Mode [A: StaticLayout, const I: usize] <A, I> (A) = "mode::<I>(L)", | | match A::LAYOUT.mode(I) {
        Ok(l) => l.validated(),
        Err(e) => Err(e),
    }
);

structure_type!(
    /// Top-level modes `S..E` of `A` ([`StaticStructure::slice`]).
    Modes [A: StaticLayout, const S: usize, const E: usize] <A, S, E> (A) = "slice::<S, E>(L)", | | modes(&A::LAYOUT, S, E)
);

structure_type!(
    /// Every mode of `A` then every mode of `B` ([`StaticStructure::concat`]).
    Concat [A: StaticLayout, B: StaticLayout] <A, B> (A, B) = "concat(A, B)", | | joined(&A::LAYOUT, &B::LAYOUT, false)
);

structure_type!(
    /// `A`'s modes then `B` as one mode ([`StaticStructure::append`]).
    Appended [A: StaticLayout, B: StaticLayout] <A, B> (A, B) = "append(A, B)", | | joined(&A::LAYOUT, &B::LAYOUT, true)
);

structure_type!(
    /// Every leaf of `A` as a top-level mode ([`StaticStructure::flatten`]).
    Flattened [A: StaticLayout] <A> (A) = "flatten(L)", | | Ok::<Layout, CoreError>(algebra::flatten(&A::LAYOUT))
);

structure_type!(
    /// Modes `S..E` of `A` gathered into one mode ([`StaticStructure::group`]).
    Grouped [A: StaticLayout, const S: usize, const E: usize] <A, S, E> (A) = "group::<S, E>(L)", | | algebra::group(&A::LAYOUT, S, E)
);

/// `get`, `mode`, `slice`, `concat`, `append`, `flatten` and `group` on static layouts:
/// the results are static layouts, computed by the compiler; a mode out of range fails
/// the build. Implemented for every [`StaticLayout`].
///
/// ```
/// use strideweave::{layout, StaticLayout, StaticStructure};
/// let l = layout!((2,(3,4),5):(1,(2,6),24));
/// assert_eq!(l.mode::<1>().to_string(), "(3,4):(2,6)");
/// assert_eq!(l.get::<2>().to_string(), "5:24");
/// assert_eq!(l.slice::<1, 3>().to_string(), "((3,4),5):((2,6),24)");
/// assert_eq!(l.flatten().to_string(), "(2,3,4,5):(1,2,6,24)");
/// assert_eq!(l.flatten().group::<1, 3>().to_string(), "(2,(3,4),5):(1,(2,6),24)");
/// let a = layout!((2,2):(1,2));
/// assert_eq!(a.concat(layout!(3:4)).to_string(), "(2,2,3):(1,2,4)");
/// assert_eq!(a.append(layout!((3,2):(4,12))).to_string(), "(2,2,(3,2)):(1,2,(4,12))");
/// assert_eq!(a.mode::<0>().layout(), a.layout().mode(0).unwrap());
/// ```
///
/// A mode out of range fails the build:
///
/// ```compile_fail
/// use strideweave::{layout, StaticStructure};
/// let m = layout!((2,3):(1,2)).mode::<2>();
/// ```
pub trait StaticStructure: StaticLayout {
    /// Top-level mode `I`, hierarchy kept.
    fn mode<const I: usize>(self) -> Mode<Self, I> {
        Mode::new()
    }

    /// Top-level mode `I` (the spec's `get`).
    fn get<const I: usize>(self) -> Mode<Self, I> {
        Mode::new()
    }

    /// Top-level modes `S..E`.
    fn slice<const S: usize, const E: usize>(self) -> Modes<Self, S, E> {
        Modes::new()
    }

    /// Every mode of `self`, then every mode of `b`.
    fn concat<B: StaticLayout>(self, b: B) -> Concat<Self, B> {
        let _ = b;
        Concat::new()
    }

    /// `self`'s modes, then `b` as one mode (nested unless it has rank 1).
    fn append<B: StaticLayout>(self, b: B) -> Appended<Self, B> {
        let _ = b;
        Appended::new()
    }

    /// Every leaf as a top-level mode.
    fn flatten(self) -> Flattened<Self> {
        Flattened::new()
    }

    /// Modes `S..E` gathered into one nested mode.
    fn group<const S: usize, const E: usize>(self) -> Grouped<Self, S, E> {
        Grouped::new()
    }
}

impl<L: StaticLayout> StaticStructure for L {}
