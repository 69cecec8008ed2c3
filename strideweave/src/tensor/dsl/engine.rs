//! Engines: where a tensor's elements live. Borrowed slices, owned `Vec`s and owned
//! arrays (the storage of a [`Fragment`](super::Fragment)). The set is closed, so a
//! tensor can rely on its engine's length never changing after the one check at
//! construction.

mod sealed {
    pub trait Sealed {}
}

/// Storage a [`Tensor`](super::Tensor) reads through: `&[T]`, `&mut [T]`, `Vec<T>`, `[T; N]`.
///
/// ```
/// use strideweave::tensor::Engine;
/// let v = vec![1.0f32, 2.0];
/// assert_eq!(v.elements().len(), 2);
/// ```
pub trait Engine: sealed::Sealed {
    /// The element type.
    type Elem;
    /// All elements, in memory order.
    fn elements(&self) -> &[Self::Elem];
}

/// Storage a [`Tensor`](super::Tensor) also writes through: `&mut [T]`, `Vec<T>`, `[T; N]`.
///
/// ```
/// use strideweave::tensor::EngineMut;
/// let mut a = [0u8; 4];
/// a.elements_mut()[1] = 7;
/// assert_eq!(a, [0, 7, 0, 0]);
/// ```
pub trait EngineMut: Engine {
    /// All elements, in memory order, writable.
    fn elements_mut(&mut self) -> &mut [Self::Elem];
}

impl<T> sealed::Sealed for &[T] {}
impl<T> Engine for &[T] {
    type Elem = T;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        self
    }
}

impl<T> sealed::Sealed for &mut [T] {}
impl<T> Engine for &mut [T] {
    type Elem = T;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        self
    }
}
impl<T> EngineMut for &mut [T] {
    #[inline(always)]
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T> sealed::Sealed for Vec<T> {}
impl<T> Engine for Vec<T> {
    type Elem = T;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        self
    }
}
impl<T> EngineMut for Vec<T> {
    #[inline(always)]
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T, const N: usize> sealed::Sealed for [T; N] {}
impl<T, const N: usize> Engine for [T; N] {
    type Elem = T;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        self
    }
}
impl<T, const N: usize> EngineMut for [T; N] {
    #[inline(always)]
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}
