//! Fragments: owned register tiles whose storage is an array of exactly the static
//! layout's cosize, checked by the compiler.
//!
//! Stable Rust cannot write `[T; L::COSIZE]` for a generic `L` (that needs
//! `generic_const_exprs`), and a typenum length would have to be derived from the
//! layout's `const` value, which stable Rust cannot turn into a type either. So the
//! length is a const generic `N` written next to the layout, and the compiler checks
//! `N == L::COSIZE` when the fragment is created: a wrong `N` fails the build, a right
//! one gives a plain array (no heap, no length field, no run-time check).

use super::base::Tensor;
use crate::StaticLayout;
use std::marker::PhantomData;

/// A register tile: a [`Tensor`] owning `[T; N]`, laid out by the static layout `L`
/// whose cosize is `N`.
///
/// In concrete code the length can be computed from the layout:
///
/// ```
/// use strideweave::{layout_type, StaticLayout};
/// use strideweave::tensor::Fragment;
/// type Acc = layout_type!((4,4):(1,4));
/// let mut acc: Fragment<f32, Acc, { Acc::COSIZE as usize }> = Fragment::filled(0.0);
/// acc[5] += 2.0;
/// assert_eq!(*acc.at((1, 1)), 2.0);
/// assert_eq!(std::mem::size_of_val(&acc), 16 * 4);   // just the registers
/// ```
///
/// A length other than the cosize fails the build:
///
/// ```compile_fail
/// use strideweave::layout_type;
/// use strideweave::tensor::Fragment;
/// let acc: Fragment<f32, layout_type!((4,4):(1,4)), 15> = Fragment::filled(0.0);
/// ```
pub type Fragment<T, L, const N: usize> = Tensor<[T; N], L>;

struct StorageCheck<L, const N: usize>(PhantomData<L>);

impl<L: StaticLayout, const N: usize> StorageCheck<L, N> {
    const OK: () = {
        if L::COSIZE != N as u64 {
            let mut m = crate::message::ConstMessage::new();
            m.str("fragment storage length N = ")
                .u64(N as u64)
                .str(" must equal the cosize ")
                .u64(L::COSIZE)
                .str(" of its static layout ")
                .layout(&L::LAYOUT)
                .str(" (for a concrete layout type, write N as `{ L::COSIZE as usize }`)");
            // Raised at this check (as the static algebra's errors are), not in core.
            crate::static_layout::algebra::build_error(m);
        }
    };
}

impl<T, L: StaticLayout, const N: usize> Tensor<[T; N], L> {
    /// A fragment with every element `value`. `N` must be `L::COSIZE` (checked by the
    /// compiler).
    pub fn filled(value: T) -> Self
    where
        T: Copy,
    {
        let () = StorageCheck::<L, N>::OK;
        Tensor::from_parts([value; N], L::default())
    }

    /// A fragment over the given array. `N` must be `L::COSIZE` (checked by the compiler).
    ///
    /// ```
    /// use strideweave::layout_type;
    /// use strideweave::tensor::Fragment;
    /// let f: Fragment<u8, layout_type!((2,2):(2,1)), 4> = Fragment::from_array([1, 2, 3, 4]);
    /// assert_eq!((f[0], f[1], f[2], f[3]), (1, 3, 2, 4));
    /// ```
    pub fn from_array(data: [T; N]) -> Self {
        let () = StorageCheck::<L, N>::OK;
        Tensor::from_parts(data, L::default())
    }
}
