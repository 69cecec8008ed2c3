//! Public tree markers (`Tree`, `Node::id`) and the rearrangement they drive.

use crate::error::LayoutError;
use crate::int_tuple::Node;
use crate::Layout;
use std::fmt;

/// One item of a [`Tree`]: a plain leaf, a leaf identifying source sublayout `n`, or a
/// nested tree.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TreeItem {
    /// An unidentified leaf (`Node::Leaf`, or an integer).
    Leaf,
    /// A leaf naming source sublayout `n` (`Node::id(n)`).
    Id(usize),
    /// A nested subtree.
    Tree(Tree),
}

impl Node {
    /// An identified leaf marker naming source sublayout `n`. A negative or non-integer
    /// `n` does not compile (see `ui-tests/`).
    ///
    /// ```
    /// use strideweave::{Node, Tree};
    /// let t = Tree::new([Node::id(2)]).unwrap();
    /// assert_eq!(t.recipe(), vec![Node::Leaf]);
    /// assert_eq!(t.size(), 1);
    /// ```
    pub const fn id(n: usize) -> TreeItem {
        TreeItem::Id(n)
    }
}

/// Values a [`Tree`] item can be built from: a [`TreeItem`], a nested [`Tree`], an
/// integer (a plain leaf) or a [`Node`] (only `Node::Leaf` is an item).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tree item",
    label = "a tree item is an integer leaf, `Node::Leaf`, `Node::id(n)` or a nested `Tree`",
    note = "write e.g. `Tree::new([Node::id(0), Node::id(1)])` or `Tree::new([1, 2])`"
)]
pub trait IntoTreeItem {
    /// The item, or a value error for a marker that is not an item.
    fn into_tree_item(self) -> Result<TreeItem, LayoutError>;
}

impl IntoTreeItem for TreeItem {
    fn into_tree_item(self) -> Result<TreeItem, LayoutError> {
        Ok(self)
    }
}
impl IntoTreeItem for Tree {
    fn into_tree_item(self) -> Result<TreeItem, LayoutError> {
        Ok(TreeItem::Tree(self))
    }
}
impl IntoTreeItem for Node {
    fn into_tree_item(self) -> Result<TreeItem, LayoutError> {
        match self {
            Node::Leaf => Ok(TreeItem::Leaf),
            other => Err(LayoutError::value(format!(
                "tree item {other} is neither an integer, a leaf marker nor a tree"
            ))),
        }
    }
}
macro_rules! int_tree_items {
    ($($t:ty),*) => {$(
        impl IntoTreeItem for $t {
            fn into_tree_item(self) -> Result<TreeItem, LayoutError> {
                Ok(TreeItem::Leaf)
            }
        }
    )*};
}
int_tree_items!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// A hierarchy of leaves, some naming source sublayouts: the spec's `Tree(*items)`.
///
/// ```
/// use strideweave::{Layout, Node, Tree, TreeItem};
/// let l: Layout = "(2,3):(1,2)".parse().unwrap();
/// let out = Tree::new([Node::id(1), TreeItem::Leaf, Node::id(0)]).unwrap();
/// assert_eq!(l.rearrange(&out, None).unwrap().to_string(), "(3,1,2):(2,0,1)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Tree {
    items: Vec<TreeItem>,
}

impl Tree {
    /// A tree of the given items.
    pub fn new<T: IntoTreeItem>(items: impl IntoIterator<Item = T>) -> Result<Tree, LayoutError> {
        let items = items
            .into_iter()
            .map(IntoTreeItem::into_tree_item)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Tree { items })
    }

    /// The top-level items.
    pub fn items(&self) -> &[TreeItem] {
        &self.items
    }

    /// The recipe of public markers; identified leaves appear as `Leaf`.
    pub fn recipe(&self) -> Vec<Node> {
        let mut out = Vec::new();
        self.write_recipe(&mut out);
        out
    }

    fn write_recipe(&self, out: &mut Vec<Node>) {
        for it in &self.items {
            match it {
                TreeItem::Leaf | TreeItem::Id(_) => out.push(Node::Leaf),
                TreeItem::Tree(t) => {
                    out.push(Node::Push);
                    t.write_recipe(out);
                    out.push(Node::Pop);
                }
            }
        }
    }

    /// Number of leaves.
    pub fn size(&self) -> usize {
        self.items
            .iter()
            .map(|it| match it {
                TreeItem::Tree(t) => t.size(),
                _ => 1,
            })
            .sum()
    }
}

impl fmt::Display for Tree {
    /// `tree(id(1),leaf,tree(...))`, the `eval` notation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tree(")?;
        for (i, it) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match it {
                TreeItem::Leaf => f.write_str("leaf")?,
                TreeItem::Id(n) => write!(f, "id({n})")?,
                TreeItem::Tree(t) => write!(f, "{t}")?,
            }
        }
        f.write_str(")")
    }
}

/// Splits `l` into the sublayouts the selection tree names (depth-first), checking that
/// the selection follows `l`'s hierarchy.
fn extract(l: &Layout, sel: &Tree, out: &mut Vec<Layout>) -> Result<(), String> {
    if sel.items.len() != l.rank() {
        return Err(format!(
            "selection {sel} has {} items where layout {l} has {} modes",
            sel.items.len(),
            l.rank()
        ));
    }
    for (i, it) in sel.items.iter().enumerate() {
        let m = l.mode(i).map_err(|e| e.describe())?;
        match it {
            TreeItem::Leaf | TreeItem::Id(_) => out.push(m),
            TreeItem::Tree(t) => {
                if l.shape_tuple()
                    .item_range(i)
                    .is_some_and(|(s, e, _, _)| e - s == 1)
                {
                    return Err(format!(
                        "selection {sel} nests at mode {i}, where layout {l} has a leaf"
                    ));
                }
                extract(&m, t, out)?
            }
        }
    }
    Ok(())
}

fn build(
    out_tree: &Tree,
    parts: &[Layout],
    used: &mut [bool],
    r: &mut Layout,
) -> Result<(), String> {
    for it in &out_tree.items {
        match it {
            TreeItem::Leaf => r.push_leaf(1, 0).map_err(|e| e.describe())?,
            TreeItem::Id(n) => {
                let p = parts.get(*n).ok_or_else(|| {
                    format!(
                        "source id {n} is out of range: {} sublayouts were extracted",
                        parts.len()
                    )
                })?;
                if std::mem::replace(&mut used[*n], true) {
                    return Err(format!("source id {n} appears more than once"));
                }
                r.push_mode(p).map_err(|e| e.describe())?;
            }
            TreeItem::Tree(t) => {
                let mut sub = Layout::EMPTY;
                build(t, parts, used, &mut sub)?;
                r.push_group(&sub).map_err(|e| e.describe())?;
            }
        }
    }
    Ok(())
}

impl Layout {
    /// Builds a new hierarchy from sublayouts of `self`.
    ///
    /// `selection` (default: every leaf) names the extracted sublayouts, in depth-first
    /// order; `output` places them by `Node::id(n)` and inserts `1:0` for each plain leaf.
    /// Every extracted sublayout of size > 1 must be used exactly once.
    ///
    /// ```
    /// use strideweave::{Layout, Node, Tree, TreeItem};
    /// let l: Layout = "(1,(2,3)):(5,(7,14))".parse().unwrap();
    /// let sel = Tree::new([TreeItem::Leaf, TreeItem::Leaf]).unwrap();
    /// let out = Tree::new([Node::id(1), Node::id(0)]).unwrap();
    /// assert_eq!(l.rearrange(&out, Some(&sel)).unwrap().to_string(), "((2,3),1):((7,14),5)");
    /// ```
    pub fn rearrange(
        &self,
        output: &Tree,
        selection: Option<&Tree>,
    ) -> Result<Layout, LayoutError> {
        let ctx = |msg: String| {
            let sel = selection.map(|s| format!(", {s}")).unwrap_or_default();
            LayoutError::value(format!("rearrange({self}, {output}{sel}): {msg}"))
        };
        let mut parts = Vec::new();
        match selection {
            Some(sel) => extract(self, sel, &mut parts).map_err(ctx)?,
            None => {
                for i in 0..self.leaf_count() {
                    let p = Layout::leaf(self.leaf_extent(i), self.leaf_stride(i))
                        .map_err(|e| ctx(e.describe()))?;
                    parts.push(p);
                }
            }
        }
        let mut used = vec![false; parts.len()];
        let mut r = Layout::EMPTY;
        build(output, &parts, &mut used, &mut r).map_err(ctx)?;
        if let Some((n, p)) = parts
            .iter()
            .enumerate()
            .find(|(n, p)| !used[*n] && p.size() > 1)
        {
            return Err(ctx(format!(
                "extracted sublayout {n} ({p}) has size {} > 1 but the output omits it",
                p.size()
            )));
        }
        r.validated().map_err(|e| ctx(e.describe()))
    }
}

/// The recipe as an [`IntTuple`](crate::IntTuple)-free list, for display: `[Leaf,Push,Leaf,Pop]`.
pub fn profile_notation(recipe: &[Node]) -> String {
    let items: Vec<String> = recipe.iter().map(|n| n.to_string()).collect();
    format!("[{}]", items.join(","))
}
