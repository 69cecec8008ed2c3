//! [`Tensor`]: an engine plus a layout. Construction checks once that the layout fits the
//! data; every access after that is a key check against the size, never a bounds check
//! on the data.

use super::addressing::TensorLayout;
use super::engine::{Engine, EngineMut};
use super::slicing::{slice_parts, spec_notation, spec_values, SliceSpec, Sliced};
use crate::error::LayoutError;
use crate::int_tuple::IntoIntTuple;
use crate::static_layout::structure::{Flattened, Grouped, Mode};
use crate::static_layout::{Composed, StaticTiler, TiledDivided, ZippedDivided};
use crate::{ComposeWith, Layout, StaticLayout, StaticStructure};
use std::fmt;

/// A borrowed tensor: what views, slices and tiles are.
///
/// ```
/// use strideweave::{layout, tensor::{Tensor, View}};
/// let data = [1u8, 2, 3, 4];
/// let v: View<'_, u8, _> = Tensor::new(&data[..], layout!((2,2):(2,1))).unwrap();
/// assert_eq!(v[1], 3);
/// ```
pub type View<'a, T, L> = Tensor<&'a [T], L>;

/// A writable borrowed tensor.
pub type ViewMut<'a, T, L> = Tensor<&'a mut [T], L>;

/// Data plus a layout, as in CuTe: element `k` (integer key, first mode fastest) or
/// coordinate `c` lives at `data[layout(c)]`.
///
/// * `E` is the engine: `&[T]`, `&mut [T]`, `Vec<T>`, or `[T; N]` for a
///   [`Fragment`](super::Fragment) (a register tile).
/// * `L` is a runtime [`Layout`] or a [`StaticLayout`]; views of a static tensor
///   (`slice`, `mode`, `compose`, `zipped_divide`, ...) keep static layouts.
///
/// ```
/// use strideweave::{layout, Layout};
/// use strideweave::tensor::{All, Tensor};
/// let data: Vec<f32> = (0..24).map(|x| x as f32).collect();
/// // a 4x6 row-major matrix, statically laid out
/// let m = Tensor::new(&data[..], layout!((4,6):(6,1))).unwrap();
/// assert_eq!(*m.at((1, 2)), 8.0);
/// assert_eq!(m[1], 6.0);                       // key 1 = coordinate (1,0)
/// assert_eq!(m.get((4, 0)), None);             // outside the shape
/// let row = m.slice((2, All)).unwrap();        // still static: 6:1
/// assert_eq!(row.layout().to_string(), "6:1");
/// assert_eq!(row[5], 17.0);
/// // a layout larger than the data is an error naming both numbers
/// let e = Tensor::new(&data[..20], layout!((4,6):(6,1))).unwrap_err();
/// assert!(e.message().contains("cosize 24") && e.message().contains("20 elements"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tensor<E, L> {
    engine: E,
    layout: L,
}

/// What every tensor has, whatever its engine (slices, arrays, byte planes).
impl<E, L: TensorLayout> Tensor<E, L> {
    /// The pair, unchecked: only for layouts derived from a checked tensor's layout
    /// whose offsets stay inside `engine` (views, tiles).
    #[inline(always)]
    pub(crate) fn from_parts(engine: E, layout: L) -> Self {
        Tensor { engine, layout }
    }

    /// The layout.
    #[inline(always)]
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The engine (all the data, including elements the layout does not reach).
    pub fn engine(&self) -> &E {
        &self.engine
    }

    /// The engine, writable (crate-internal: writes go through the layout's offsets).
    pub(crate) fn engine_mut(&mut self) -> &mut E {
        &mut self.engine
    }

    /// Engine and layout, taken apart.
    pub fn into_parts(self) -> (E, L) {
        (self.engine, self.layout)
    }

    /// Number of logical elements.
    #[inline(always)]
    pub fn size(&self) -> u64 {
        self.layout.size()
    }
}

impl<E: Engine, L: TensorLayout> Tensor<E, L> {
    /// Pairs data with a layout, checking that the layout's cosize fits in the data
    /// (an error naming both numbers otherwise).
    pub fn new(engine: E, layout: L) -> Result<Self, LayoutError> {
        let (cosize, len) = (layout.cosize(), engine.elements().len() as u64);
        if cosize > len {
            return Err(LayoutError::value(format!(
                "tensor layout {} has cosize {cosize} but the data holds {len} elements",
                layout.runtime()
            )));
        }
        Ok(Tensor { engine, layout })
    }

    /// All the data, in memory order.
    #[inline(always)]
    pub fn data(&self) -> &[E::Elem] {
        self.engine.elements()
    }

    /// Offset in the data of integer key `key`, or `None` outside `[0, size)`.
    #[inline(always)]
    pub fn offset_of(&self, key: u64) -> Option<usize> {
        (key < self.layout.size()).then(|| self.layout.offset(key) as usize)
    }

    /// Offset in the data of a hierarchical coordinate (or one integer), checked.
    pub fn offset_at<K: IntoIntTuple>(&self, coord: K) -> Result<usize, LayoutError> {
        let c = crate::Coord::new(coord)?;
        Ok(self.layout.runtime().index(&c)? as usize)
    }

    /// Element at a coordinate (hierarchical, or one integer key), or `None` when the
    /// coordinate is outside the shape or does not follow its hierarchy.
    ///
    /// ```
    /// use strideweave::tensor::Tensor;
    /// let t = Tensor::new(vec![1, 2, 3, 4, 5, 6], "(2,(1,3)):(3,(0,1))".parse::<strideweave::Layout>().unwrap()).unwrap();
    /// assert_eq!(t.get((1, (0, 2))), Some(&6));
    /// assert_eq!(t.get(3), Some(&5));
    /// assert_eq!(t.get((2, 0)), None);
    /// ```
    pub fn get<K: IntoIntTuple>(&self, coord: K) -> Option<&E::Elem> {
        let off = self.offset_at(coord).ok()?;
        // SAFETY: `off` is an index of the layout, below its cosize <= data length
        Some(unsafe { self.engine.elements().get_unchecked(off) })
    }

    /// Element at a coordinate, as [`Tensor::get`].
    ///
    /// # Panics
    /// When the coordinate is outside the shape, with a message naming both (use
    /// [`Tensor::get`] for a checked access).
    pub fn at<K: IntoIntTuple>(&self, coord: K) -> &E::Elem {
        match self.offset_at(coord) {
            // SAFETY: an index of the layout, below its cosize <= data length
            Ok(off) => unsafe { self.engine.elements().get_unchecked(off) },
            Err(e) => panic!("Tensor::at: {e}"),
        }
    }

    /// Element at integer key `key`, or `None` outside `[0, size)`.
    #[inline(always)]
    pub fn get_key(&self, key: u64) -> Option<&E::Elem> {
        let off = self.offset_of(key)?;
        // SAFETY: key < size, so the offset is below cosize <= data length
        Some(unsafe { self.engine.elements().get_unchecked(off) })
    }

    /// A borrowed view with the same layout.
    pub fn view(&self) -> Tensor<&[E::Elem], L> {
        Tensor::from_parts(self.engine.elements(), self.layout)
    }

    /// The same data under another layout built from this one: the new layout's offsets,
    /// moved by `origin`, must stay inside this layout's offsets.
    #[inline]
    fn derived<L2: TensorLayout>(&self, origin: u64, layout: L2) -> Tensor<&[E::Elem], L2> {
        let data = self.engine.elements();
        let origin = (origin as usize).min(data.len());
        Tensor::from_parts(&data[origin..], layout)
    }

    /// The tensor with its layout as a runtime [`Layout`] (a borrowed view).
    pub fn to_runtime(&self) -> Tensor<&[E::Elem], Layout> {
        self.derived(0, self.layout.runtime())
    }

    /// Checks that `layout` (after `origin`) fits the data, for views built from
    /// user-supplied layouts.
    fn checked_view(
        &self,
        origin: u64,
        layout: Layout,
    ) -> Result<View<'_, E::Elem, Layout>, LayoutError> {
        let data = self.engine.elements();
        Tensor::new(&data[(origin as usize).min(data.len())..], layout)
    }

    /// Runtime slice: the kept layout and the origin, with errors naming the coordinate.
    fn slice_layout<S: SliceSpec>(&self, spec: &S) -> Result<(Layout, u64), LayoutError> {
        let l = self.layout.runtime();
        let values = spec_values(spec)?;
        slice_parts(&l, &S::PATTERN, &values).map_err(|e| {
            LayoutError::from_core(
                format!("slice({l}, {})", spec_notation(&S::PATTERN, &values)),
                e,
            )
        })
    }
}

impl<E: EngineMut, L: TensorLayout> Tensor<E, L> {
    /// All the data, in memory order, writable.
    #[inline(always)]
    pub fn data_mut(&mut self) -> &mut [E::Elem] {
        self.engine.elements_mut()
    }

    /// Writable element at a coordinate, or `None` outside the shape.
    pub fn get_mut<K: IntoIntTuple>(&mut self, coord: K) -> Option<&mut E::Elem> {
        let off = self.offset_at(coord).ok()?;
        // SAFETY: an index of the layout, below its cosize <= data length
        Some(unsafe { self.engine.elements_mut().get_unchecked_mut(off) })
    }

    /// Writable element at a coordinate.
    ///
    /// # Panics
    /// When the coordinate is outside the shape ([`Tensor::get_mut`] is the checked form).
    pub fn at_mut<K: IntoIntTuple>(&mut self, coord: K) -> &mut E::Elem {
        match self.offset_at(coord) {
            // SAFETY: an index of the layout, below its cosize <= data length
            Ok(off) => unsafe { self.engine.elements_mut().get_unchecked_mut(off) },
            Err(e) => panic!("Tensor::at_mut: {e}"),
        }
    }

    /// Writable element at integer key `key`, or `None` outside `[0, size)`.
    #[inline(always)]
    pub fn get_key_mut(&mut self, key: u64) -> Option<&mut E::Elem> {
        let off = self.offset_of(key)?;
        // SAFETY: key < size, so the offset is below cosize <= data length
        Some(unsafe { self.engine.elements_mut().get_unchecked_mut(off) })
    }

    /// A writable borrowed view with the same layout.
    pub fn view_mut(&mut self) -> Tensor<&mut [E::Elem], L> {
        let layout = self.layout;
        Tensor::from_parts(self.engine.elements_mut(), layout)
    }

    #[inline]
    fn derived_mut<L2: TensorLayout>(
        &mut self,
        origin: u64,
        layout: L2,
    ) -> Tensor<&mut [E::Elem], L2> {
        let data = self.engine.elements_mut();
        let origin = (origin as usize).min(data.len());
        Tensor::from_parts(&mut data[origin..], layout)
    }

    /// The tensor with its layout as a runtime [`Layout`] (a writable view).
    pub fn to_runtime_mut(&mut self) -> Tensor<&mut [E::Elem], Layout> {
        let l = self.layout.runtime();
        self.derived_mut(0, l)
    }
}

/// Views of a tensor whose layout is a runtime [`Layout`]: each returns a borrowed view
/// (`_mut`: a writable one) whose layout is computed by the layout algebra.
impl<E: Engine> Tensor<E, Layout> {
    /// Keeps the modes marked [`All`](super::All) and fixes the others (CuTe's
    /// `tensor(_, 3)`); an error names the coordinate and the layout when it does not
    /// fit the shape.
    pub fn slice<S: SliceSpec>(&self, spec: S) -> Result<View<'_, E::Elem, Layout>, LayoutError> {
        let (l, origin) = self.slice_layout(&spec)?;
        Ok(self.derived(origin, l))
    }

    /// Top-level mode `i` as a tensor (hierarchy kept).
    ///
    /// ```
    /// use strideweave::tensor::Tensor;
    /// let t = Tensor::new(vec![0u8; 12], "(3,(2,2)):(1,(3,6))".parse::<strideweave::Layout>().unwrap()).unwrap();
    /// assert_eq!(t.mode(1).unwrap().layout().to_string(), "(2,2):(3,6)");
    /// assert!(t.mode(2).is_err());
    /// ```
    pub fn mode(&self, i: usize) -> Result<View<'_, E::Elem, Layout>, LayoutError> {
        Ok(self.derived(0, self.layout.get(i)?))
    }

    /// Every leaf as a top-level mode (same elements, same key order).
    pub fn flatten(&self) -> Tensor<&[E::Elem], Layout> {
        self.derived(0, self.layout.flatten())
    }

    /// Modes `start..end` gathered into one mode.
    pub fn group(
        &self,
        start: usize,
        end: usize,
    ) -> Result<View<'_, E::Elem, Layout>, LayoutError> {
        Ok(self.derived(0, self.layout.group(start, end)?))
    }

    /// The tensor seen through `layout ∘ b` (a layout, a shape or a tiler). The result
    /// may run past the layout along its last mode (CuTe's padded tilings); then it is
    /// checked against the data and fails naming both sizes when it does not fit.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// use strideweave::tensor::Tensor;
    /// let t = Tensor::new((0..16).collect::<Vec<u32>>(), "(4,4):(4,1)".parse::<Layout>().unwrap()).unwrap();
    /// let tile = t.compose(&Shape::new((2, 2)).unwrap()).unwrap();   // the top-left 2x2
    /// assert_eq!((tile[0], tile[1], tile[2], tile[3]), (0, 4, 1, 5));
    /// ```
    pub fn compose<B: ComposeWith + ?Sized>(
        &self,
        b: &B,
    ) -> Result<View<'_, E::Elem, Layout>, LayoutError> {
        self.checked_view(0, self.layout.compose(b)?)
    }
}

impl<E: EngineMut> Tensor<E, Layout> {
    /// [`Tensor::slice`], writable.
    pub fn slice_mut<S: SliceSpec>(
        &mut self,
        spec: S,
    ) -> Result<ViewMut<'_, E::Elem, Layout>, LayoutError> {
        let (l, origin) = self.slice_layout(&spec)?;
        Ok(self.derived_mut(origin, l))
    }

    /// [`Tensor::mode`], writable.
    pub fn mode_mut(&mut self, i: usize) -> Result<ViewMut<'_, E::Elem, Layout>, LayoutError> {
        let l = self.layout.get(i)?;
        Ok(self.derived_mut(0, l))
    }

    /// [`Tensor::flatten`], writable.
    pub fn flatten_mut(&mut self) -> Tensor<&mut [E::Elem], Layout> {
        let l = self.layout.flatten();
        self.derived_mut(0, l)
    }

    /// [`Tensor::group`], writable.
    pub fn group_mut(
        &mut self,
        start: usize,
        end: usize,
    ) -> Result<ViewMut<'_, E::Elem, Layout>, LayoutError> {
        let l = self.layout.group(start, end)?;
        Ok(self.derived_mut(0, l))
    }

    /// [`Tensor::compose`], writable.
    pub fn compose_mut<B: ComposeWith + ?Sized>(
        &mut self,
        b: &B,
    ) -> Result<ViewMut<'_, E::Elem, Layout>, LayoutError> {
        let l = self.layout.compose(b)?;
        let data = self.engine.elements_mut();
        Tensor::new(data, l)
    }
}

/// Views of a tensor whose layout is static: the views' layouts are static too,
/// computed by the compiler (only a slice's origin is a run-time value).
impl<E: Engine, L: StaticLayout> Tensor<E, L> {
    /// Keeps the modes marked [`All`](super::All), fixes the others; the kept layout is
    /// static. An integer outside its mode is an error naming both.
    ///
    /// ```
    /// use strideweave::layout;
    /// use strideweave::tensor::{All, Tensor};
    /// let data = [0u16; 32];
    /// let t = Tensor::new(&data[..], layout!((4,(2,4)):(8,(1,2)))).unwrap();
    /// let s = t.slice((1, (All, 3))).unwrap();
    /// assert_eq!(s.layout().to_string(), "2:1");
    /// assert!(t.slice((4, All)).is_err());
    /// ```
    pub fn slice<S: SliceSpec + 'static>(
        &self,
        spec: S,
    ) -> Result<View<'_, E::Elem, Sliced<L, S>>, LayoutError> {
        let (_, origin) = self.slice_layout(&spec)?;
        Ok(self.derived(origin, Sliced::new()))
    }

    /// Top-level mode `I`, static.
    ///
    /// ```
    /// use strideweave::layout;
    /// use strideweave::tensor::Tensor;
    /// let t = Tensor::new([0u8; 12], layout!((3,(2,2)):(1,(3,6)))).unwrap();
    /// assert_eq!(t.mode::<1>().layout().to_string(), "(2,2):(3,6)");
    /// ```
    pub fn mode<const I: usize>(&self) -> Tensor<&[E::Elem], Mode<L, I>> {
        self.derived(0, self.layout.mode::<I>())
    }

    /// Every leaf as a top-level mode, static.
    pub fn flatten(&self) -> Tensor<&[E::Elem], Flattened<L>> {
        self.derived(0, StaticStructure::flatten(self.layout))
    }

    /// Modes `S..E` gathered into one mode, static.
    pub fn group<const S: usize, const F: usize>(&self) -> Tensor<&[E::Elem], Grouped<L, S, F>> {
        self.derived(0, self.layout.group::<S, F>())
    }

    /// The tensor seen through `L ∘ B`, static. An inadmissible composition fails the
    /// build; a padded one that runs past the data is an error naming both sizes.
    pub fn compose<B: StaticLayout>(
        &self,
        b: B,
    ) -> Result<View<'_, E::Elem, Composed<L, B>>, LayoutError> {
        let c = StaticLayout::compose(self.layout, b);
        fits(&c, self.data().len())?;
        Ok(self.derived(0, c))
    }

    /// `zipped_divide` by a static tiler whose tiles divide the modes (CuTe's layout
    /// division; for tiles that overhang use [`zipped_divide`](super::zipped_divide)).
    ///
    /// ```
    /// use strideweave::{layout, layout_type};
    /// use strideweave::tensor::Tensor;
    /// let t = Tensor::new([0.0f32; 64], layout!((8,8):(1,8))).unwrap();
    /// let z = t.zipped_divide((layout!(4:1), layout!(2:1))).unwrap();
    /// assert_eq!(z.layout().to_string(), "((4,2),(2,4)):((1,8),(4,16))");
    /// ```
    pub fn zipped_divide<T: StaticTiler>(
        &self,
        tiler: T,
    ) -> Result<View<'_, E::Elem, ZippedDivided<L, T>>, LayoutError> {
        let z = StaticLayout::zipped_divide(self.layout, tiler);
        fits(&z, self.data().len())?;
        Ok(self.derived(0, z))
    }

    /// `tiled_divide` by a static tiler whose tiles divide the modes.
    pub fn tiled_divide<T: StaticTiler>(
        &self,
        tiler: T,
    ) -> Result<View<'_, E::Elem, TiledDivided<L, T>>, LayoutError> {
        let z = StaticLayout::tiled_divide(self.layout, tiler);
        fits(&z, self.data().len())?;
        Ok(self.derived(0, z))
    }
}

impl<E: EngineMut, L: StaticLayout> Tensor<E, L> {
    /// [`Tensor::slice`], writable.
    pub fn slice_mut<S: SliceSpec + 'static>(
        &mut self,
        spec: S,
    ) -> Result<ViewMut<'_, E::Elem, Sliced<L, S>>, LayoutError> {
        let (_, origin) = self.slice_layout(&spec)?;
        Ok(self.derived_mut(origin, Sliced::new()))
    }

    /// [`Tensor::mode`], writable.
    pub fn mode_mut<const I: usize>(&mut self) -> Tensor<&mut [E::Elem], Mode<L, I>> {
        let m = self.layout.mode::<I>();
        self.derived_mut(0, m)
    }

    /// [`Tensor::zipped_divide`], writable.
    pub fn zipped_divide_mut<T: StaticTiler>(
        &mut self,
        tiler: T,
    ) -> Result<ViewMut<'_, E::Elem, ZippedDivided<L, T>>, LayoutError> {
        let z = StaticLayout::zipped_divide(self.layout, tiler);
        fits(&z, self.data().len())?;
        Ok(self.derived_mut(0, z))
    }
}

/// Checks that a static result still fits the data (a composition may run past the
/// layout along its last mode); for static layouts the comparison folds away.
#[inline(always)]
fn fits<X: StaticLayout>(_: &X, len: usize) -> Result<(), LayoutError> {
    if X::COSIZE > len as u64 {
        return Err(LayoutError::value(format!(
            "view {} has cosize {} but the data holds {len} elements",
            X::LAYOUT,
            X::COSIZE
        )));
    }
    Ok(())
}

impl<E: Engine, L: TensorLayout> std::ops::Index<usize> for Tensor<E, L> {
    type Output = E::Elem;
    /// Element at integer key `i` (first mode fastest).
    ///
    /// # Panics
    /// When `i >= size`, like slice indexing.
    #[inline(always)]
    fn index(&self, i: usize) -> &E::Elem {
        match self.get_key(i as u64) {
            Some(v) => v,
            None => key_out_of_range(i, self.layout.size()),
        }
    }
}

impl<E: EngineMut, L: TensorLayout> std::ops::IndexMut<usize> for Tensor<E, L> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut E::Elem {
        let size = self.layout.size();
        match self.get_key_mut(i as u64) {
            Some(v) => v,
            None => key_out_of_range(i, size),
        }
    }
}

#[cold]
#[inline(never)]
fn key_out_of_range(i: usize, size: u64) -> ! {
    panic!("tensor key {i} is outside [0, {size})")
}

impl<E: Engine, L: TensorLayout> fmt::Debug for Tensor<E, L>
where
    E::Elem: fmt::Debug,
{
    /// `Tensor(LAYOUT, [elements in key order])` (at most 64 shown).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor({}, [", self.layout.runtime())?;
        let n = self.size().min(64);
        for k in 0..n {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{:?}", self[k as usize])?;
        }
        if self.size() > n {
            f.write_str(", ...")?;
        }
        f.write_str("])")
    }
}
