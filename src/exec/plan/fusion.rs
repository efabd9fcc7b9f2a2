//! Fusion: groups of elementwise ops and the sums over them, run as one
//! pass over blocks of elements.
//!
//! Owns: [`Fusion`] — a group of float elementwise nodes (unary, binary,
//! `where`) of one static shape, plus the sums that reduce them (or that
//! reduce a value the group reads) in an order the blocks can reproduce —
//! the planner's search for groups ([`find`]), the schedule that runs each
//! group as one node ([`reorder`]), and their execution ([`exec`]).
//!
//! A group is a DAG: an inner node may have several readers inside it, and
//! any node read from outside (or a program output) is stored in full in
//! its own slot, so a group has several results: those stored nodes and
//! its sums. It runs block by block ([`BLOCK`] elements; whole rows
//! of axis 0 when the rank is 2 or more): each op computes its block over
//! plain slices into a small buffer kept across calls (or straight into
//! its rows of a stored result), reading the leaves — values computed
//! outside the group — in place when they are contiguous, else through a
//! block copy (a reversed or strided view, a broadcast operand). So the
//! values only the group reads never exist in full.
//!
//! Sums keep the reference kernel's order ([`crate::exec::ops::reduce`]):
//! over a 1-D array (all axes or axis 0) NumPy's pairwise summation, whose
//! tree depends only on the length — the blocks are then the subtrees of
//! that tree of at most [`BLOCK`] elements, each summed by
//! [`pairwise_sum`] and combined as the tree does; over axis 0 of a larger
//! rank the rows in order. A sum of a reversed group value (`(sum (slice
//! v none none -1))`, what a backward loop's stacked terms become) joins
//! the group too, and the slice is absorbed: its tree is the mirror of
//! the blocks', so each mirrored subtree is gathered as the blocks pass
//! and summed backwards ([`RevSum`]). Results equal the unfused ones bit for bit (the
//! same element functions, the same order). Anything the fast path does
//! not cover at run time (another dtype, a shape error) runs node by node
//! through the reference kernels.
//!
//! A 1-D group whose results are all whole sums (a log-likelihood and
//! its gradient's sums) and that has enough work runs as the two halves
//! of its summation tree's root, one per thread (`splits`,
//! [`crate::exec::threads::join`]): the forward sums add the halves as the
//! root does, and a reversed sum's leaf that the halves cut is completed
//! from both states when they join (`RevSum::join`), so the bits are
//! those of one thread's pass.
//!
//! A group never overwrites its leaves (no in-place), and the planner only
//! forms a group when no path leaves it and comes back (every leaf is
//! computed before it, every reader of its results after it).
//! Must not: change any result, or allocate per call once its buffers have
//! their sizes.

use super::block::{binary2_block, binary_block, Blk};
use super::contract::Role;
use super::kernels::ensure;
use super::row_major::fill_row_major;
use super::runtime::{internal, Env, GraphRt, Meter, Params};
use super::schedule::{GraphPlan, PlanOptions};
use super::view::{Root, ValView, ViewElem};
use crate::exec::error::ExecError;
use crate::exec::ops::elementwise::Float;
use crate::exec::ops::reduce::{
    pairwise_split, pairwise_sum, pairwise_sum_rev, pairwise_sums_rev, tree_sum, PAIRWISE_LEAF,
};
use crate::exec::ops::{self, normalize_axis};
use crate::exec::threads;
use crate::exec::value::{Elem, Value};
use crate::lang::program::{Graph, NodeId};
use crate::lang::{BinaryOp, DType, Dim, Op, ReduceOp, Type, UnaryOp};
use ndarray::{ArrayViewD, Axis, Dimension, Slice};
use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

/// Elements per block: few enough for a group's block buffers to stay in
/// the near caches (16 KB each in `f64`; at 4096 a group of ten ops was 7%
/// slower on ar1_grad), enough to spread the per-block dispatch (at 256,
/// ar1_grad took 1.8 times as long; 2048 is 3-6% faster than 1024 on
/// ar1_grad and garch_grad), and a multiple of the pairwise summation's
/// runs (128), so that any block size gives the reference's sums.
pub const BLOCK: usize = 2048;

/// The most leaves a group reads (their per-call views live on the stack).
const MAX_LEAVES: usize = 24;

/// The most pairwise sums a group computes (their partial sums live on the
/// stack).
const MAX_PAIRWISE: usize = 8;

/// An operand of a fused op or sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The k-th leaf (a value computed outside the group).
    Leaf(usize),
    /// The result of the k-th op of the group.
    Op(usize),
}

/// Where an op writes its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// The k-th block buffer (the value lives only inside the group).
    Temp(usize),
    /// Its rows of the group's k-th result (the value is read outside).
    Out(usize),
}

/// One op of a group.
#[derive(Clone, Debug)]
pub struct FusedOp {
    /// The node it computes.
    pub node: usize,
    /// Its op (unary, binary or `where`).
    pub op: Op,
    /// Its operands, in argument order (a `where`'s condition is a leaf).
    pub args: Vec<Operand>,
    /// Where it writes.
    pub store: Store,
    /// An operand op computed inside this one, element by element, when
    /// this op is its only reader (see [`inline_operands`]).
    pub inner: Option<InnerOp>,
    /// Computed inside its reader's [`FusedOp::inner`]: no block of its own.
    pub inlined: bool,
}

/// A binary op computed inside its reader: the block loop computes
/// `outer(inner(a, b), c)` (or `outer(c, inner(a, b))`) per element, so
/// the inner value never goes through memory. The same element functions
/// in the same order: the same bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InnerOp {
    /// The argument position of the reader it fills (0 or 1).
    pub pos: usize,
    /// The inner op.
    pub op: BinaryOp,
    /// Its operands.
    pub args: [Operand; 2],
}

impl FusedOp {
    /// The operands the op reads when a block computes it: none when it is
    /// inlined, its inner op's operands in place of the inner op.
    fn reads(&self) -> Vec<Operand> {
        if self.inlined {
            return Vec::new();
        }
        match self.inner {
            Some(inner) => self
                .args
                .iter()
                .enumerate()
                .filter(|&(p, _)| p != inner.pos)
                .map(|(_, &a)| a)
                .chain(inner.args)
                .collect(),
            None => self.args.clone(),
        }
    }
}

/// The binary ops the block loops compute two at a time.
fn inlinable(op: &Op) -> Option<BinaryOp> {
    match op {
        Op::Binary(b @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul)) => Some(*b),
        _ => None,
    }
}

/// Marks each binary op (add, sub, mul) whose block value only one op of
/// the group reads, once, as computed inside that reader when the reader
/// is such an op too (one inner op per reader, one level deep).
fn inline_operands(ops: &mut [FusedOp], sums: &[FusedSum]) {
    let mut uses = vec![0usize; ops.len()];
    for op in ops.iter() {
        for a in &op.args {
            if let Operand::Op(j) = a {
                uses[*j] += 1;
            }
        }
    }
    for s in sums {
        if let Operand::Op(j) = s.arg {
            uses[j] += 1;
        }
    }
    for k in 0..ops.len() {
        if inlinable(&ops[k].op).is_none() || ops[k].inlined {
            continue;
        }
        for p in 0..ops[k].args.len().min(2) {
            let Operand::Op(j) = ops[k].args[p] else {
                continue;
            };
            let (Some(op), [a, b]) = (inlinable(&ops[j].op), ops[j].args.as_slice()) else {
                continue;
            };
            if uses[j] == 1
                && matches!(ops[j].store, Store::Temp(_))
                && ops[j].inner.is_none()
                && !ops[j].inlined
            {
                ops[k].inner = Some(InnerOp {
                    pos: p,
                    op,
                    args: [*a, *b],
                });
                ops[j].inlined = true;
                break;
            }
        }
    }
}

/// The order a fused sum adds in (the reference kernel's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SumOrder {
    /// A 1-D array (all axes, or axis 0): pairwise summation.
    Pairwise,
    /// A 1-D group value reversed (`(sum (slice v none none -1))`, the
    /// form a backward loop's stacked terms take once they leave it):
    /// pairwise summation of the reversed elements, whose tree is the
    /// mirror of the blocks' (see [`RevSum`]).
    PairwiseRev,
    /// Axis 0 of an array of rank 2 or more: the rows in order.
    Rows,
}

/// One sum of a group.
#[derive(Clone, Debug)]
pub struct FusedSum {
    /// The sum node.
    pub node: usize,
    /// For [`SumOrder::PairwiseRev`]: the reversing slice node the sum
    /// reads (its argument; `arg` is the slice's operand).
    pub reversal: Option<usize>,
    /// What it sums (of the group's shape).
    pub arg: Operand,
    /// Its order.
    pub order: SumOrder,
    /// Its index among the group's results.
    pub out: usize,
    /// How many of the group's ops a block has computed when the sum
    /// reads it: just after the op it sums (0 for a leaf), so that the
    /// op's block buffer is free again for the next ops.
    pub after: usize,
    /// Its index among the group's sums of its order (the pairwise
    /// partial sums, the reversed sums' states), in `sums` order.
    pub slot: usize,
}

/// A fused group, attached to its anchor node (the last of its nodes).
#[derive(Clone, Debug)]
pub struct Fusion {
    /// The nodes read from outside the group, in first-use order.
    pub leaves: Vec<usize>,
    /// Per leaf: read as a `where` condition (`bool`), else as a value.
    pub leaf_is_cond: Vec<bool>,
    /// The ops in evaluation order (the graph's).
    pub ops: Vec<FusedOp>,
    /// The reversing slices the group absorbs: read only by its
    /// [`SumOrder::PairwiseRev`] sums, never computed on their own.
    pub reversals: Vec<usize>,
    /// The sums.
    pub sums: Vec<FusedSum>,
    /// The indices of `sums` in the order a block computes them (by
    /// [`FusedSum::after`]).
    pub sum_schedule: Vec<usize>,
    /// The nodes whose values the group stores, in result order: the ops
    /// read outside the group, then the sums.
    pub outputs: Vec<usize>,
    /// Number of block buffers.
    pub n_temps: usize,
    /// The rank of the group's shape.
    pub rank: usize,
    /// The dtype every op computes in (`f64` or `f32`).
    pub dtype: DType,
    /// The least work (elements times block ops and sums) for which a
    /// pass whose results are all whole sums is split in two halves run
    /// on two threads ([`PlanOptions::split_work`]); `None`: never.
    pub split_work: Option<usize>,
}

impl Fusion {
    /// Every node of the group (ops and sums).
    pub fn nodes(&self) -> impl Iterator<Item = usize> + '_ {
        self.ops
            .iter()
            .map(|o| o.node)
            .chain(self.reversals.iter().copied())
            .chain(self.sums.iter().map(|s| s.node))
    }
}

/// Block buffers of one element type.
trait BlockElem: Float + ViewElem + Send + Sync {
    fn bufs(b: &mut Bufs) -> &mut Vec<Vec<Self>>;
    fn revs(b: &mut RevBufs) -> &mut Vec<RevSum<Self>>;
    /// `sin` and `cos` of `x` in one pass, the bits of the two unary ops;
    /// false (nothing written) when the type has no pair kernel.
    fn sin_cos(x: &[Self], sin: &mut [Self], cos: &mut [Self]) -> bool;
}

/// The state of a [`SumOrder::PairwiseRev`] sum over a 1-D group of `n`
/// elements while the group runs forwards.
///
/// The reference kernel sums the reversed array pairwise: its tree splits
/// the reversed indices down to leaves of at most [`PAIRWISE_LEAF`]
/// elements. Mirrored, those leaves are ranges of the forward indices
/// (`leaves`, in increasing order) that need not line up with the blocks:
/// a leaf inside a block is summed (backwards) straight from the block;
/// the values of a leaf that a block boundary cuts are copied into
/// `stash` until it is complete. The leaf sums are combined as the tree
/// does once the pass is over, so the result is the reference's bit for
/// bit.
#[derive(Debug, Default)]
pub struct RevSum<T> {
    /// The mirrored subtrees: forward ranges `[a, b)`, in increasing order.
    leaves: Vec<(usize, usize)>,
    /// The length the leaves were computed for.
    n: usize,
    /// Per leaf (same order): its pairwise sum once complete.
    sums: Vec<T>,
    /// The leaf being filled.
    next: usize,
    /// The values of that leaf so far (its first elements).
    stash: Vec<T>,
    /// Where this state's elements start (0 unless the pass is split,
    /// see [`RevSum::reset_from`]).
    lo: usize,
    /// That leaf, when it starts before `lo`: its first elements belong to
    /// the state before, so its sum is left to [`RevSum::join`].
    held: Option<usize>,
    /// The values of the held leaf from `lo` on (at their offsets in the
    /// leaf), kept apart from `stash`, which later leaves reuse.
    held_stash: Vec<T>,
}

/// Appends the subtrees of at most `most` elements of the pairwise tree
/// over `start..start + n`, in tree order (the split of [`Pass::walk`]
/// and of [`pairwise_sum`]).
fn subtrees(start: usize, n: usize, most: usize, out: &mut Vec<(usize, usize)>) {
    if n <= most {
        out.push((start, start + n));
        return;
    }
    let n2 = pairwise_split(n);
    subtrees(start, n2, most, out);
    subtrees(start + n2, n - n2, most, out);
}

impl<T: Float> RevSum<T> {
    /// Prepares a pass over `n` elements; false when a buffer cannot grow.
    fn reset(&mut self, n: usize) -> bool {
        self.reset_from(n, 0)
    }

    /// Prepares a pass over the elements `lo..` of `n` (the part of a
    /// split pass after `lo`; the state of the part before takes this one
    /// over through [`RevSum::join`]); false when a buffer cannot grow.
    fn reset_from(&mut self, n: usize, lo: usize) -> bool {
        if self.n != n || self.leaves.is_empty() {
            let mut rev = Vec::new();
            subtrees(0, n, PAIRWISE_LEAF, &mut rev);
            // Reversed index r is forward index n - 1 - r.
            self.leaves = rev.iter().rev().map(|&(a, b)| (n - b, n - a)).collect();
            self.n = n;
        }
        self.sums.clear();
        if self.sums.try_reserve(self.leaves.len()).is_err() {
            return false;
        }
        self.sums.resize(self.leaves.len(), T::zero());
        let most = PAIRWISE_LEAF.min(n);
        if self.stash.len() < most {
            if self.stash.try_reserve(most - self.stash.len()).is_err() {
                return false;
            }
            self.stash.resize(most, T::zero());
        }
        self.lo = lo;
        self.next = self.first_leaf();
        self.held = match self.leaves.get(self.next) {
            Some(&(a, _)) if a < lo => Some(self.next),
            _ => None,
        };
        if self.held.is_some() && self.held_stash.len() < most {
            if self
                .held_stash
                .try_reserve(most - self.held_stash.len())
                .is_err()
            {
                return false;
            }
            self.held_stash.resize(most, T::zero());
        }
        self.complete_empty();
        true
    }

    /// The first leaf this state's elements reach: the first ending after
    /// `lo` (leaves are in increasing order; with `lo` 0, the first, even
    /// when it is empty).
    fn first_leaf(&self) -> usize {
        if self.lo == 0 {
            0
        } else {
            self.leaves.partition_point(|&(_, b)| b <= self.lo)
        }
    }

    /// Takes over the state of the part after this one's elements
    /// (`right`, prepared by [`RevSum::reset_from`] where this part ends,
    /// and fed to its end): its leaf sums, and the leaf the two parts
    /// share completed from both stashes. False on an internal
    /// inconsistency.
    fn join(&mut self, right: &RevSum<T>) -> bool {
        if self.n != right.n || self.leaves.len() != right.leaves.len() {
            return false;
        }
        let mut k = self.next;
        if k != right.first_leaf() {
            return false;
        }
        if let Some(h) = right.held {
            // This part filled the shared leaf's stash up to `lo`, the
            // right part from there to its end.
            let Some(&(a, b)) = self.leaves.get(h) else {
                return false;
            };
            let (m, e) = (right.lo - a, b - a);
            if h != k || e > self.stash.len() || e > right.held_stash.len() {
                return false;
            }
            self.stash[m..e].copy_from_slice(&right.held_stash[m..e]);
            self.sums[h] = pairwise_sum_rev(&self.stash[..e]);
            k += 1;
        }
        if right.next < k || right.next > self.sums.len() {
            return false;
        }
        self.sums[k..right.next].copy_from_slice(&right.sums[k..right.next]);
        self.next = right.next;
        true
    }

    /// Sums the leaves of no elements that come next (only for `n == 0`).
    fn complete_empty(&mut self) {
        while let Some(&(a, b)) = self.leaves.get(self.next) {
            if a != b {
                break;
            }
            self.sums[self.next] = T::zero();
            self.next += 1;
        }
    }

    /// Takes the values `x` of the forward elements `e0..e0 + x.len()`
    /// (blocks arrive in order); false on an internal inconsistency.
    fn feed(&mut self, e0: usize, x: &[T]) -> bool {
        let e1 = e0 + x.len();
        let mut at = e0;
        while at < e1 {
            let Some(&(a, b)) = self.leaves.get(self.next) else {
                return false;
            };
            if at < a || at >= b {
                return false;
            }
            let end = b.min(e1);
            if at == a && end == b {
                // The leaves wholly in this block: summed in place.
                let mut last = self.next + 1;
                while self.leaves.get(last).is_some_and(|&(_, b)| b <= e1) {
                    last += 1;
                }
                pairwise_sums_rev(
                    x,
                    e0,
                    &self.leaves[self.next..last],
                    &mut self.sums[self.next..last],
                );
                at = self.leaves[last - 1].1;
                self.next = last;
                self.complete_empty();
                continue;
            }
            let held = self.held == Some(self.next);
            let stash = if held {
                &mut self.held_stash
            } else {
                &mut self.stash
            };
            stash[at - a..end - a].copy_from_slice(&x[at - e0..end - e0]);
            at = end;
            if end == b {
                if !held {
                    self.sums[self.next] = pairwise_sum_rev(&self.stash[..b - a]);
                }
                self.next += 1;
                self.complete_empty();
            }
        }
        true
    }

    /// The sum, once every element was fed; `None` otherwise.
    fn finish(&self) -> Option<T> {
        if self.next != self.leaves.len() || self.held.is_some() {
            return None;
        }
        // The leaves in tree order are `sums` backwards.
        let k = Cell::new(self.sums.len());
        let leaf = |_, _| {
            k.set(k.get() - 1);
            self.sums[k.get()]
        };
        let deep = |_, len| {
            let mut at = k.get();
            let v = self.combine(len, &mut at);
            k.set(at);
            v
        };
        Some(tree_sum(self.n, leaf, deep))
    }

    /// The tree's sum over `n` reversed elements, taking its leaves' sums
    /// from `sums[..*k]` backwards (recursively: for subtrees below the
    /// depth [`tree_sum`] walks).
    fn combine(&self, n: usize, k: &mut usize) -> T {
        if n <= PAIRWISE_LEAF {
            *k -= 1;
            return self.sums[*k];
        }
        let n2 = pairwise_split(n);
        let left = self.combine(n2, k);
        let right = self.combine(n - n2, k);
        left.add(right)
    }
}

/// The [`RevSum`] states of a group, per element type.
#[derive(Debug, Default)]
pub struct RevBufs {
    f64s: Vec<RevSum<f64>>,
    f32s: Vec<RevSum<f32>>,
}

/// The block buffers of a group, per element type.
#[derive(Debug, Default)]
struct Bufs {
    f64s: Vec<Vec<f64>>,
    f32s: Vec<Vec<f32>>,
}

impl BlockElem for f64 {
    fn bufs(b: &mut Bufs) -> &mut Vec<Vec<f64>> {
        &mut b.f64s
    }
    fn revs(b: &mut RevBufs) -> &mut Vec<RevSum<f64>> {
        &mut b.f64s
    }
    fn sin_cos(x: &[f64], sin: &mut [f64], cos: &mut [f64]) -> bool {
        crate::exec::ops::vmath::sincos_slice(x, sin, cos);
        true
    }
}

impl BlockElem for f32 {
    fn bufs(b: &mut Bufs) -> &mut Vec<Vec<f32>> {
        &mut b.f32s
    }
    fn revs(b: &mut RevBufs) -> &mut Vec<RevSum<f32>> {
        &mut b.f32s
    }
    fn sin_cos(_: &[f32], _: &mut [f32], _: &mut [f32]) -> bool {
        false
    }
}

/// The runtime of a group: its block buffers (the op buffers, then one
/// per leaf read through a copy), and its results while it runs.
#[derive(Debug, Default)]
pub struct FusedRt {
    bufs: Bufs,
    revs: RevBufs,
    conds: Vec<Vec<bool>>,
    outs: Vec<Option<Value>>,
    /// The buffers of a split pass's second half (see [`splits`]).
    helper: Option<Box<FusedRt>>,
}

impl FusedRt {
    fn bytes(&self) -> usize {
        let b = &self.bufs;
        let r = &self.revs;
        let rev_bytes = |v: &Vec<RevSum<f64>>, w: &Vec<RevSum<f32>>| {
            v.iter()
                .map(|s| {
                    (s.stash.capacity() + s.held_stash.capacity() + s.sums.capacity()) * 8
                        + s.leaves.capacity() * 16
                })
                .sum::<usize>()
                + w.iter()
                    .map(|s| {
                        (s.stash.capacity() + s.held_stash.capacity() + s.sums.capacity()) * 4
                            + s.leaves.capacity() * 16
                    })
                    .sum::<usize>()
        };
        b.f64s.iter().map(|v| v.capacity() * 8).sum::<usize>()
            + b.f32s.iter().map(|v| v.capacity() * 4).sum::<usize>()
            + self.conds.iter().map(|v| v.capacity()).sum::<usize>()
            + rev_bytes(&r.f64s, &r.f32s)
            + self.helper.as_ref().map_or(0, |h| h.bytes())
    }
}

fn is_float(t: &Type) -> bool {
    matches!(t.dtype, DType::F64 | DType::F32)
}

fn known_shape(t: &Type) -> bool {
    t.shape.iter().all(|d| *d != Dim::Unknown)
}

fn same_shape(a: &Type, b: &Type) -> bool {
    a.shape.len() == b.shape.len()
        && a.shape
            .iter()
            .zip(&b.shape)
            .all(|(x, y)| x == y && *x != Dim::Unknown)
}

/// How a node takes part in the search for groups.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    None,
    Op(usize),
    Sum(usize),
    /// A reversing slice of a group value, read only by sums.
    Rev(usize),
}

/// A group being built.
struct Building {
    /// The group's type (dtype and shape).
    ty: Type,
    /// Leaves so far (may include nodes that later join the group).
    leaves: Vec<usize>,
    /// Pairwise sums so far.
    n_pairwise: usize,
}

/// Union-find root of a group id.
fn root(parent: &mut [usize], mut g: usize) -> usize {
    while parent[g] != g {
        parent[g] = parent[parent[g]];
        g = parent[g];
    }
    g
}

/// Whether some node of `start`, or anything it depends on, belongs to a
/// group of `targets` (roots), walking back through values and, at a
/// node of another group, through all of that group's leaves (a group
/// runs as one: its results depend on all its leaves).
fn reaches(
    g: &Graph,
    start: &[usize],
    targets: &[usize],
    part: &[Part],
    parent: &mut [usize],
    bld: &[Building],
) -> bool {
    let mut seen: HashSet<usize> = HashSet::new();
    let mut seen_group: HashSet<usize> = HashSet::new();
    let mut stack: Vec<usize> = start.to_vec();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        match part[x] {
            Part::Op(h) | Part::Sum(h) | Part::Rev(h) => {
                let r = root(parent, h);
                if targets.contains(&r) {
                    return true;
                }
                if seen_group.insert(r) {
                    stack.extend(bld[r].leaves.iter().copied());
                }
            }
            Part::None => stack.extend(g.nodes[x].args.iter().map(|a| a.0)),
        }
    }
    false
}

/// The operand of a reversing slice `(slice v none none -1)` of a 1-D
/// array.
fn reversal_of(g: &Graph, i: usize) -> Option<usize> {
    let node = &g.nodes[i];
    match (&node.op, node.args.as_slice()) {
        (
            Op::Slice {
                start: None,
                stop: None,
                step: -1,
            },
            [a],
        ) if node.ty().ndim() == 1 && g.nodes[a.0].ty().ndim() == 1 => Some(a.0),
        _ => None,
    }
}

/// The order a sum node reduces its argument in, if a group can.
fn sum_order(g: &Graph, i: usize) -> Option<(usize, SumOrder)> {
    let node = &g.nodes[i];
    let (Op::Reduce(ReduceOp::Sum, ax), [a]) = (&node.op, node.args.as_slice()) else {
        return None;
    };
    let at = g.nodes[a.0].ty();
    if !is_float(node.ty()) || at.dtype != node.ty().dtype || !known_shape(at) {
        return None;
    }
    let axis = match ax {
        Some(x) => Some(normalize_axis(*x, at.ndim()).ok()?),
        None => None,
    };
    match (at.ndim(), axis) {
        (1, None | Some(0)) => Some((a.0, SumOrder::Pairwise)),
        (r, Some(0)) if r >= 2 => Some((a.0, SumOrder::Rows)),
        _ => None,
    }
}

/// Finds the fused groups of a graph. `roles` are the nodes' contracts,
/// `scheduled` the nodes the outputs need. Returns, per node, its group
/// if it is the group's anchor (its last node), and whether it is
/// absorbed into a group anchored elsewhere.
pub fn find(
    g: &Graph,
    roles: &[Role],
    scheduled: &[bool],
    options: PlanOptions,
) -> (Vec<Option<Fusion>>, Vec<bool>) {
    let n = g.nodes.len();
    let mut groups: Vec<Option<Fusion>> = (0..n).map(|_| None).collect();
    let mut absorbed = vec![false; n];
    if !options.fuse {
        return (groups, absorbed);
    }
    // The op nodes a group may hold, with the argument positions that
    // must be leaves of a given kind.
    let member = |i: usize| -> bool {
        let node = &g.nodes[i];
        if !scheduled[i] || !is_float(node.ty()) || !known_shape(node.ty()) {
            return false;
        }
        match &node.op {
            Op::Unary(_) | Op::Binary(_) => roles[i] == Role::Elementwise,
            Op::Where => node.args.len() == 3,
            _ => false,
        }
    };
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in g.nodes.iter().enumerate() {
        if scheduled[i] {
            for a in &node.args {
                readers[a.0].push(i);
            }
        }
    }
    // A reversal of a group value, all of whose readers are pairwise
    // sums: those sums join the group, reading the value backwards.
    let rev_sum_only = |a: usize| -> bool {
        !readers[a].is_empty()
            && readers[a]
                .iter()
                .all(|&r| matches!(sum_order(g, r), Some((x, SumOrder::Pairwise)) if x == a))
    };
    let mut part = vec![Part::None; n];
    let mut parent: Vec<usize> = Vec::new();
    let mut bld: Vec<Building> = Vec::new();

    for i in 0..n {
        if !scheduled[i] {
            continue;
        }
        let node = &g.nodes[i];
        if member(i) {
            let ty = node.ty();
            let cond_pos = matches!(node.op, Op::Where);
            let mut inner: Vec<usize> = Vec::new();
            let mut leaves: Vec<usize> = Vec::new();
            let mut leaves_ok = true;
            for (p, a) in node.args.iter().enumerate() {
                let a = a.0;
                let at = g.nodes[a].ty();
                let is_cond = cond_pos && p == 0;
                if let (Part::Op(h), false) = (part[a], is_cond) {
                    let r = root(&mut parent, h);
                    if at.dtype == ty.dtype && same_shape(&bld[r].ty, ty) {
                        if !inner.contains(&r) {
                            inner.push(r);
                        }
                        // Also a leaf, unless its group is the one joined.
                        if !leaves.contains(&a) {
                            leaves.push(a);
                        }
                        continue;
                    }
                }
                leaves_ok &= if is_cond {
                    at.dtype == DType::Bool || at.ndim() == 0
                } else {
                    at.dtype == ty.dtype || at.ndim() == 0
                };
                if !leaves.contains(&a) {
                    leaves.push(a);
                }
            }
            if leaves_ok {
                // No member-arg group: a group of this shape that reads
                // one of the same array leaves (siblings share their reads).
                if inner.is_empty() {
                    for r in 0..bld.len() {
                        if parent[r] == r
                            && same_shape(&bld[r].ty, ty)
                            && bld[r].ty.dtype == ty.dtype
                            && leaves
                                .iter()
                                .any(|l| g.nodes[*l].ty().ndim() > 0 && bld[r].leaves.contains(l))
                        {
                            inner.push(r);
                            break;
                        }
                    }
                }
                let valid = |set: &[usize], bld: &[Building], parent: &mut [usize]| {
                    let mut all_leaves: Vec<usize> = leaves.clone();
                    let mut pw = 0;
                    for &h in set {
                        all_leaves.extend(bld[h].leaves.iter().copied());
                        pw += bld[h].n_pairwise;
                    }
                    all_leaves.sort_unstable();
                    all_leaves.dedup();
                    // Leaves inside the merged group are its own values.
                    all_leaves.retain(|&l| match part[l] {
                        Part::Op(h) => !set.contains(&root(parent, h)),
                        _ => true,
                    });
                    all_leaves.len() <= MAX_LEAVES
                        && pw <= MAX_PAIRWISE
                        && !{
                            // Joining one group: its old leaves cannot
                            // reach it (the contracted graph is acyclic), so
                            // only the new node's own leaves are walked.
                            let start: Vec<usize> = if let [t] = set {
                                leaves
                                    .iter()
                                    .copied()
                                    .filter(|&l| match part[l] {
                                        Part::Op(h) => root(parent, h) != *t,
                                        _ => true,
                                    })
                                    .collect()
                            } else {
                                all_leaves.clone()
                            };
                            reaches(g, &start, set, &part, parent, bld)
                        }
                };
                let set: Vec<usize> = if valid(&inner, &bld, &mut parent) {
                    inner.clone()
                } else {
                    inner
                        .iter()
                        .copied()
                        .find(|&h| valid(&[h], &bld, &mut parent))
                        .into_iter()
                        .collect()
                };
                let gid = match set.first() {
                    Some(&r) => r,
                    None => {
                        parent.push(bld.len());
                        bld.push(Building {
                            ty: ty.clone(),
                            leaves: Vec::new(),
                            n_pairwise: 0,
                        });
                        bld.len() - 1
                    }
                };
                for &h in set.iter().skip(1) {
                    parent[h] = gid;
                    let (lv, pw) = (std::mem::take(&mut bld[h].leaves), bld[h].n_pairwise);
                    bld[gid].leaves.extend(lv);
                    bld[gid].n_pairwise += pw;
                }
                bld[gid].leaves.extend(leaves);
                let mut lv = std::mem::take(&mut bld[gid].leaves);
                lv.retain(|&l| match part[l] {
                    Part::Op(h) => root(&mut parent, h) != gid,
                    _ => true,
                });
                bld[gid].leaves = lv;
                bld[gid].leaves.sort_unstable();
                bld[gid].leaves.dedup();
                part[i] = Part::Op(gid);
            }
        } else if let Some((a, order)) = sum_order(g, i) {
            let pw = (order == SumOrder::Pairwise) as usize;
            let at = g.nodes[a].ty();
            let reversed = match (order, reversal_of(g, a)) {
                (SumOrder::Pairwise, Some(b)) if rev_sum_only(a) => match part[b] {
                    Part::Op(h) if g.nodes[b].ty().dtype == at.dtype => Some(h),
                    _ => None,
                },
                _ => None,
            };
            if let Some(h) = reversed {
                let r = root(&mut parent, h);
                part[a] = Part::Rev(r);
                part[i] = Part::Sum(r);
                continue;
            }
            let target = match part[a] {
                Part::Op(h) => Some(root(&mut parent, h)),
                _ => (0..bld.len()).find(|&r| {
                    parent[r] == r
                        && same_shape(&bld[r].ty, at)
                        && bld[r].ty.dtype == at.dtype
                        && bld[r].leaves.contains(&a)
                }),
            };
            match target {
                Some(r) if bld[r].n_pairwise + pw <= MAX_PAIRWISE => {
                    bld[r].n_pairwise += pw;
                    part[i] = Part::Sum(r);
                }
                Some(_) => {}
                None => {
                    // A group of its own, reading `a`.
                    parent.push(bld.len());
                    bld.push(Building {
                        ty: at.clone(),
                        leaves: vec![a],
                        n_pairwise: pw,
                    });
                    part[i] = Part::Sum(bld.len() - 1);
                }
            }
        }
    }

    // Build each group.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); bld.len()];
    for (i, p) in part.iter().enumerate() {
        if let Part::Op(h) | Part::Sum(h) | Part::Rev(h) = *p {
            let r = root(&mut parent, h);
            members[r].push(i);
        }
    }
    let is_output: Vec<bool> = {
        let mut v = vec![false; n];
        for o in &g.outputs {
            v[o.0] = true;
        }
        v
    };
    for (r, nodes) in members.iter().enumerate() {
        if let Some(mut f) = build(g, &bld[r].ty, nodes, &part, &readers, &is_output) {
            f.split_work = options.split_work;
            if options.inplace && overwrites_an_input(g, &f, &readers) {
                continue;
            }
            let anchor = f.nodes().max().unwrap_or(0);
            for m in f.nodes() {
                absorbed[m] = m != anchor;
            }
            groups[anchor] = Some(f);
        }
    }
    (groups, absorbed)
}

/// True for a group that node by node would run over the buffer of a
/// program input read only by the group: one result, no sum, and an input
/// leaf of the result's type. A fused group never overwrites its leaves,
/// and an input handed over by value is the caller's workspace (seed 002:
/// `exp(x) * 2 + 1` on an owned `x` allocates nothing), so such chains
/// stay unfused and run in place.
fn overwrites_an_input(g: &Graph, f: &Fusion, readers: &[Vec<usize>]) -> bool {
    let [out] = f.outputs.as_slice() else {
        return false;
    };
    let out_ty = g.nodes[*out].ty();
    f.sums.is_empty()
        && f.leaves.iter().any(|&l| {
            matches!(g.nodes[l].op, Op::Input(_))
                && g.nodes[l].ty() == out_ty
                && readers[l].iter().all(|r| f.nodes().any(|m| m == *r))
        })
}

/// The group of `nodes` (sorted), or `None` when it is not worth one (a
/// single op and no sum) or breaks a limit.
fn build(
    g: &Graph,
    ty: &Type,
    nodes: &[usize],
    part: &[Part],
    readers: &[Vec<usize>],
    is_output: &[bool],
) -> Option<Fusion> {
    let ops_nodes: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|&m| matches!(part[m], Part::Op(_)))
        .collect();
    let ops_nodes = pair_sin_cos(g, ops_nodes);
    let sum_nodes: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|&m| matches!(part[m], Part::Sum(_)))
        .collect();
    if sum_nodes.is_empty() && ops_nodes.len() < 2 {
        return None;
    }
    let in_nodes = |x: usize| nodes.binary_search(&x).is_ok();
    // A reversal is absorbed when the group holds all its readers;
    // otherwise it runs on its own, and the value it reverses is stored.
    let reversals: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|&m| matches!(part[m], Part::Rev(_)) && readers[m].iter().all(|&r| in_nodes(r)))
        .collect();
    let in_group = |x: usize| {
        in_nodes(x) && (!matches!(part[x], Part::Rev(_)) || reversals.binary_search(&x).is_ok())
    };
    let op_position: std::collections::HashMap<usize, usize> =
        ops_nodes.iter().enumerate().map(|(k, &m)| (m, k)).collect();
    let op_index = |x: usize| op_position.get(&x).copied();
    let mut leaves: Vec<usize> = Vec::new();
    let mut leaf_is_cond: Vec<bool> = Vec::new();
    let mut leaf = |a: usize, cond: bool, leaves: &mut Vec<usize>| -> usize {
        match leaves.iter().position(|&l| l == a) {
            Some(k) => {
                leaf_is_cond[k] |= cond;
                k
            }
            None => {
                leaves.push(a);
                leaf_is_cond.push(cond);
                leaves.len() - 1
            }
        }
    };
    let mut ops: Vec<FusedOp> = Vec::with_capacity(ops_nodes.len());
    let mut outputs: Vec<usize> = Vec::new();
    for &m in &ops_nodes {
        let node = &g.nodes[m];
        let cond_pos = matches!(node.op, Op::Where);
        let args = node
            .args
            .iter()
            .enumerate()
            .map(|(p, a)| match op_index(a.0) {
                Some(k) if !(cond_pos && p == 0) => Operand::Op(k),
                _ => Operand::Leaf(leaf(a.0, cond_pos && p == 0, &mut leaves)),
            })
            .collect();
        let stored = is_output[m] || readers[m].iter().any(|&r| !in_group(r));
        let store = if stored {
            outputs.push(m);
            Store::Out(outputs.len() - 1)
        } else {
            Store::Temp(usize::MAX)
        };
        ops.push(FusedOp {
            node: m,
            op: node.op.clone(),
            args,
            store,
            inner: None,
            inlined: false,
        });
    }
    let mut sums: Vec<FusedSum> = Vec::with_capacity(sum_nodes.len());
    for &s in &sum_nodes {
        let (mut a, mut order) = sum_order(g, s)?;
        let mut reversal = None;
        if matches!(part[a], Part::Rev(_)) {
            reversal = Some(a);
            a = reversal_of(g, a)?;
            order = SumOrder::PairwiseRev;
        }
        let arg = match op_index(a) {
            Some(k) => Operand::Op(k),
            None => Operand::Leaf(leaf(a, false, &mut leaves)),
        };
        outputs.push(s);
        let slot = sums.iter().filter(|x| x.order == order).count();
        let after = match arg {
            Operand::Op(k) => k + 1,
            Operand::Leaf(_) => 0,
        };
        sums.push(FusedSum {
            node: s,
            reversal,
            arg,
            order,
            out: outputs.len() - 1,
            after,
            slot,
        });
    }
    let mut sum_schedule: Vec<usize> = (0..sums.len()).collect();
    sum_schedule.sort_by_key(|&k| sums[k].after);
    let n_pairwise = sums
        .iter()
        .filter(|s| s.order == SumOrder::Pairwise)
        .count();
    if leaves.len() > MAX_LEAVES || n_pairwise > MAX_PAIRWISE {
        return None;
    }
    inline_operands(&mut ops, &sums);
    // Block buffers by liveness in op order: a buffer is free again after
    // its value's last reader (a sum reads a value just after the op that
    // computes it; an op never writes over one of its operands; an inlined
    // op has none).
    let mut last_use: Vec<usize> = (0..ops.len()).collect();
    for (k, op) in ops.iter().enumerate() {
        for a in op.reads() {
            if let Operand::Op(j) = a {
                last_use[j] = last_use[j].max(k);
            }
        }
    }
    // The two ops of a `sin`/`cos` pair are computed together: the first
    // one's buffer must outlive the second's computation.
    for k in 1..ops.len() {
        if is_fused_pair(&ops[k - 1], &ops[k]) {
            last_use[k - 1] = last_use[k - 1].max(k);
        }
    }
    let mut free: Vec<usize> = Vec::new();
    let mut n_temps = 0;
    for k in 0..ops.len() {
        if ops[k].inlined {
            continue;
        }
        if let Store::Temp(_) = ops[k].store {
            let t = free.pop().unwrap_or_else(|| {
                n_temps += 1;
                n_temps - 1
            });
            ops[k].store = Store::Temp(t);
        }
        let read: Vec<usize> = ops[k]
            .reads()
            .iter()
            .filter_map(|a| match a {
                Operand::Op(j) => Some(*j),
                Operand::Leaf(_) => None,
            })
            .chain(std::iter::once(k))
            .collect();
        for j in read {
            if last_use[j] == k {
                if let Store::Temp(t) = ops[j].store {
                    if !free.contains(&t) {
                        free.push(t);
                    }
                }
            }
        }
    }
    Some(Fusion {
        leaves,
        leaf_is_cond,
        ops,
        reversals,
        sums,
        sum_schedule,
        outputs,
        n_temps,
        rank: ty.ndim(),
        dtype: ty.dtype,
        split_work: None,
    })
}

/// Whether the ops `a`, `b` (in this order in the group) are computed
/// together as a `sin`/`cos` pair ([`Pass::sin_cos_pair`]).
fn is_fused_pair(a: &FusedOp, b: &FusedOp) -> bool {
    matches!(
        (&a.op, &b.op),
        (Op::Unary(UnaryOp::Sin), Op::Unary(UnaryOp::Cos))
            | (Op::Unary(UnaryOp::Cos), Op::Unary(UnaryOp::Sin))
    ) && a.args.len() == 1
        && a.args == b.args
}

/// Whether `a` and `b` are `sin` and `cos` (either order) of one operand.
fn is_sin_cos_pair(a: &Op, a_args: &[NodeId], b: &Op, b_args: &[NodeId]) -> bool {
    matches!(
        (a, b),
        (Op::Unary(UnaryOp::Sin), Op::Unary(UnaryOp::Cos))
            | (Op::Unary(UnaryOp::Cos), Op::Unary(UnaryOp::Sin))
    ) && a_args == b_args
}

/// The group's ops (graph order) with each `cos x` moved up to just after
/// the `sin x` of the same operand (or the other way round), so the pass
/// computes the pair together ([`Pass::block`]). Still a topological
/// order: the moved op reads only that operand, which its partner read.
fn pair_sin_cos(g: &Graph, mut ops: Vec<usize>) -> Vec<usize> {
    let mut k = 0;
    while k + 1 < ops.len() {
        let a = &g.nodes[ops[k]];
        let partner = (k + 1..ops.len()).find(|&j| {
            let b = &g.nodes[ops[j]];
            is_sin_cos_pair(&a.op, &a.args, &b.op, &b.args)
        });
        match partner {
            Some(j) => {
                let m = ops.remove(j);
                ops.insert(k + 1, m);
                k += 2;
            }
            None => k += 1,
        }
    }
    ops
}

/// The schedule with each group run once, at its anchor: a topological
/// order of the graph with each group's nodes taken as one, the earliest
/// position of `order` first (parameters stay first). `None` if the
/// groups made a cycle (the planner rules that out).
pub fn reorder(g: &Graph, order: &[usize], groups: &[Option<Fusion>]) -> Option<Vec<usize>> {
    let n = g.nodes.len();
    let mut rep: Vec<usize> = (0..n).collect();
    for (a, f) in groups.iter().enumerate() {
        if let Some(f) = f {
            for m in f.nodes().chain(f.outputs.iter().copied()) {
                rep[m] = a;
            }
        }
    }
    let mut prio = vec![usize::MAX; n];
    for (p, &i) in order.iter().enumerate() {
        prio[i] = p;
    }
    let mut indeg = vec![0usize; n];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &i in order {
        let deps: Vec<usize> = match &groups[i] {
            Some(f) => f.leaves.clone(),
            None => g.nodes[i].args.iter().map(|a| a.0).collect(),
        };
        for d in deps {
            let r = rep[d];
            if r != i && prio[r] != usize::MAX && !succ[r].contains(&i) {
                succ[r].push(i);
                indeg[i] += 1;
            }
        }
    }
    let mut ready: BinaryHeap<Reverse<(usize, usize)>> = order
        .iter()
        .filter(|&&i| indeg[i] == 0)
        .map(|&i| Reverse((prio[i], i)))
        .collect();
    let mut out = Vec::with_capacity(order.len());
    while let Some(Reverse((_, i))) = ready.pop() {
        out.push(i);
        for &s in &succ[i] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.push(Reverse((prio[s], s)));
            }
        }
    }
    (out.len() == order.len()).then_some(out)
}

/// Runs the group anchored at node `i`, storing each of its results in
/// its node's slot.
pub fn exec(
    rt: &mut GraphRt,
    plan: &GraphPlan,
    i: usize,
    params: &dyn Params,
    env: Env<'_>,
    meter: &mut Meter,
) -> Result<(), ExecError> {
    let Some(fu) = plan.nodes[i].fusion.as_deref() else {
        return Err(internal(plan, i, "a fused node without its group"));
    };
    let mut frt = rt.fused[i].take().unwrap_or_default();
    if frt.outs.len() != fu.outputs.len() {
        frt.outs = (0..fu.outputs.len()).map(|_| None).collect();
    }
    for (k, &o) in fu.outputs.iter().enumerate() {
        let Some(&s) = plan.nodes[o].slots.first() else {
            rt.fused[i] = Some(frt);
            return Err(internal(plan, o, "a fused result without storage"));
        };
        frt.outs[k] = rt.slots[s].val.take();
    }
    let done = match fu.dtype {
        DType::F64 => run::<f64>(rt, fu, params, &mut frt),
        DType::F32 => run::<f32>(rt, fu, params, &mut frt),
        _ => false,
    };
    let mut result = Ok(());
    if !done {
        match reference(rt, plan, fu, params, env, meter) {
            Ok(vals) => {
                for (k, v) in vals.into_iter().enumerate() {
                    frt.outs[k] = Some(v);
                }
            }
            Err(e) => result = Err(e),
        }
    }
    let temp_bytes = frt.bytes();
    for (k, &o) in fu.outputs.iter().enumerate() {
        if let Some(&s) = plan.nodes[o].slots.first() {
            let v = frt.outs[k].take();
            let bytes =
                v.as_ref().map_or(0, |v| v.len_bytes()) + if k == 0 { temp_bytes } else { 0 };
            let slot = &mut rt.slots[s];
            slot.val = v;
            meter.resize(&mut slot.held, bytes);
            if result.is_ok() {
                rt.locs[o].set_whole(Root::Slot(s));
            }
        }
    }
    rt.fused[i] = Some(frt);
    result
}

/// A leaf as the fast path reads it.
enum Src<'a, T> {
    /// A 0-D value, converted as `astype` does.
    Scalar(T),
    /// Contiguous data of the group's shape (row-major).
    Contig(&'a [T]),
    /// A 1-D array of the group's length stored backwards: element `i` is
    /// `mem[len - 1 - i]`.
    Rev(&'a [T]),
    /// Contiguous data of a suffix of the group's shape, repeated every
    /// `len` elements (a row operand broadcast over a matrix).
    Repeat(&'a [T]),
    /// Anything else: copied block by block (broadcast to the group's
    /// shape).
    Copy(ArrayViewD<'a, T>),
}

impl<T> Src<'_, T> {
    /// Read through a block copy ([`gather`]).
    fn is_copied(&self) -> bool {
        matches!(self, Src::Rev(_) | Src::Repeat(_) | Src::Copy(_))
    }
}

/// The source of a leaf for a group of shape `full`; `None` when the fast
/// path does not read it (another dtype).
fn src_of<'a, T: Elem + ViewElem>(v: &ValView<'a>, full: &[usize]) -> Option<Src<'a, T>> {
    if v.ndim() == 0 {
        return crate::exec::plan::view::with_view!(v, a => a.first().map(|e| Src::Scalar(e.cast::<T>())));
    }
    let a = T::of_view(v)?;
    if a.shape() == full {
        if let Some(s) = a.to_slice() {
            return Some(Src::Contig(s));
        }
        if a.ndim() == 1 && a.strides() == [-1isize].as_slice() {
            if let Some(s) = a.to_slice_memory_order() {
                return Some(Src::Rev(s));
            }
        }
    }
    // Broadcasting is checked before the run.
    a.broadcast(full)?;
    let lead = a.shape().iter().take_while(|&&d| d == 1).count();
    let own = &a.shape()[lead..];
    if own.len() < full.len() && full.ends_with(own) && !a.is_empty() {
        if let Some(s) = a.to_slice() {
            return Some(Src::Repeat(s));
        }
    }
    Some(Src::Copy(a))
}

/// The elements `e0..e1` of the group (whole rows when `rank >= 2`).
#[derive(Clone, Copy)]
struct Range {
    e0: usize,
    e1: usize,
}

/// Fills `buf[..len]` with the block of a copied leaf.
fn gather<T: Copy>(src: &Src<'_, T>, full: &[usize], row_len: usize, r: Range, buf: &mut [T]) {
    let len = r.e1 - r.e0;
    let buf = &mut buf[..len];
    match src {
        Src::Scalar(s) => buf.fill(*s),
        Src::Contig(d) => buf.copy_from_slice(&d[r.e0..r.e1]),
        Src::Rev(m) => {
            let n = m.len();
            for (d, &x) in buf.iter_mut().zip(m[n - r.e1..n - r.e0].iter().rev()) {
                *d = x;
            }
        }
        Src::Repeat(d) => {
            // `e0` starts a row, and a row is a whole number of periods.
            let off = r.e0 % d.len();
            if off == 0 {
                for chunk in buf.chunks_mut(d.len()) {
                    chunk.copy_from_slice(&d[..chunk.len()]);
                }
            } else {
                for (k, v) in buf.iter_mut().enumerate() {
                    *v = d[(off + k) % d.len()];
                }
            }
        }
        Src::Copy(a) => {
            let Some(b) = a.broadcast(full) else { return };
            let mut b = b;
            if !full.is_empty() {
                let (r0, r1) = if full.len() == 1 {
                    (r.e0, r.e1)
                } else {
                    (r.e0 / row_len.max(1), r.e1 / row_len.max(1))
                };
                b.slice_axis_inplace(Axis(0), Slice::from(r0..r1));
            }
            // Lane by lane: the dynamic-rank iterator is several times
            // slower per element.
            fill_row_major(&b.view(), buf, |x| x);
        }
    }
}

/// `o = op(x)`, as [`super::kernels::apply_unary`] computes it.
fn unary_block<T: Float>(op: UnaryOp, o: &mut [T], x: Blk<'_, T>) {
    match x {
        Blk::Slice(a) => T::unary_slice(op, &a[..o.len()], o),
        Blk::Scalar(s) => o.fill(match op {
            UnaryOp::Neg => s.neg(),
            UnaryOp::Abs => s.abs(),
            UnaryOp::Sign => s.sign(),
            _ => s.unary(op),
        }),
    }
}

/// `o = where(c, x, y)`.
fn where_block<T: Copy>(o: &mut [T], c: Blk<'_, bool>, x: Blk<'_, T>, y: Blk<'_, T>) {
    let n = o.len();
    match c {
        Blk::Scalar(c) => match if c { x } else { y } {
            Blk::Scalar(s) => o.fill(s),
            Blk::Slice(a) => o.copy_from_slice(&a[..n]),
        },
        Blk::Slice(cs) => {
            let at = |b: &Blk<'_, T>, k: usize| match b {
                Blk::Scalar(s) => *s,
                Blk::Slice(a) => a[k],
            };
            for (k, (v, &c)) in o.iter_mut().zip(&cs[..n]).enumerate() {
                *v = if c { at(&x, k) } else { at(&y, k) };
            }
        }
    }
}

/// An op's target taken out of the pass's state, so that its operands can
/// borrow the rest; put back with [`Taken::restore`].
enum Taken<T> {
    /// Block buffer `t`.
    Buf(usize, Vec<T>),
    /// Result `k` (its rows of the block are written).
    Out(usize, Option<Value>),
}

impl<T: BlockElem> Taken<T> {
    fn take(store: Store, bufs: &mut [Vec<T>], outs: &mut [Option<Value>]) -> Taken<T> {
        match store {
            Store::Temp(t) => {
                Taken::Buf(t, bufs.get_mut(t).map(std::mem::take).unwrap_or_default())
            }
            Store::Out(k) => Taken::Out(k, outs.get_mut(k).and_then(Option::take)),
        }
    }

    /// The target's slice for the block `r` (`None` if it is missing or
    /// too short).
    fn rows(&mut self, r: Range) -> Option<&mut [T]> {
        match self {
            Taken::Buf(_, b) => b.get_mut(..r.e1 - r.e0),
            Taken::Out(_, o) => o
                .as_mut()
                .and_then(T::peek_mut)
                .and_then(|a| a.as_slice_mut())
                .and_then(|s| s.get_mut(r.e0..r.e1)),
        }
    }

    fn restore(self, bufs: &mut [Vec<T>], outs: &mut [Option<Value>]) {
        match self {
            Taken::Buf(t, b) => {
                if let Some(slot) = bufs.get_mut(t) {
                    *slot = b;
                }
            }
            Taken::Out(k, o) => {
                if let Some(slot) = outs.get_mut(k) {
                    *slot = o;
                }
            }
        }
    }
}

/// Everything one pass reads, resolved once per call.
struct Pass<'p, 'a, T> {
    fu: &'p Fusion,
    srcs: &'p [Src<'a, T>],
    conds: &'p [Src<'a, bool>],
    full: &'p [usize],
    row_len: usize,
    /// Pairwise sums: their index among the partial sums.
    pw_index: [usize; MAX_PAIRWISE],
}

/// The mutable state of one pass: block buffers, condition buffers, the
/// group's results, the reversed sums.
struct PassState<'s, T> {
    bufs: &'s mut [Vec<T>],
    conds: &'s mut [Vec<bool>],
    outs: &'s mut [Option<Value>],
    revs: &'s mut [RevSum<T>],
}

impl<T: BlockElem> Pass<'_, '_, T> {
    /// An operand's block; `None` on an internal inconsistency.
    fn operand<'s>(
        &'s self,
        a: Operand,
        r: Range,
        bufs: &'s [Vec<T>],
        outs: &'s [Option<Value>],
    ) -> Option<Blk<'s, T>> {
        let len = r.e1 - r.e0;
        match a {
            Operand::Leaf(l) => match self.srcs.get(l)? {
                Src::Scalar(s) => Some(Blk::Scalar(*s)),
                Src::Contig(d) => Some(Blk::Slice(&d[r.e0..r.e1])),
                Src::Rev(_) | Src::Repeat(_) | Src::Copy(_) => {
                    Some(Blk::Slice(&bufs.get(self.fu.n_temps + l)?[..len]))
                }
            },
            Operand::Op(j) => match self.fu.ops.get(j)?.store {
                Store::Temp(t) => Some(Blk::Slice(&bufs.get(t)?[..len])),
                Store::Out(k) => {
                    let a = outs.get(k)?.as_ref().and_then(T::peek)?.as_slice()?;
                    Some(Blk::Slice(&a[r.e0..r.e1]))
                }
            },
        }
    }

    /// Computes the block `r`: every op, the stored rows, the row sums;
    /// `partial[k]` is the pairwise sum of the block of the k-th pairwise
    /// sum. False on an internal inconsistency.
    fn block(&self, r: Range, st: &mut PassState<'_, T>, partial: &mut [T; MAX_PAIRWISE]) -> bool {
        let bufs: &mut [Vec<T>] = st.bufs;
        let conds: &mut [Vec<bool>] = st.conds;
        let outs: &mut [Option<Value>] = st.outs;
        let revs: &mut [RevSum<T>] = st.revs;
        let fu = self.fu;
        let len = r.e1 - r.e0;
        for (l, s) in self.srcs.iter().enumerate() {
            if matches!(s, Src::Rev(_) | Src::Repeat(_) | Src::Copy(_)) {
                let Some(b) = bufs.get_mut(fu.n_temps + l) else {
                    return false;
                };
                gather(s, self.full, self.row_len, r, b);
            }
        }
        for (l, s) in self.conds.iter().enumerate() {
            if matches!(s, Src::Rev(_) | Src::Repeat(_) | Src::Copy(_)) {
                let Some(b) = conds.get_mut(l) else {
                    return false;
                };
                gather(s, self.full, self.row_len, r, b);
            }
        }
        // The sums that read leaves, then each op followed by the sums
        // that read it.
        let mut next_sum = 0;
        if !self.sums_upto(0, &mut next_sum, r, bufs, outs, revs, partial) {
            return false;
        }
        let mut k = 0;
        while k < fu.ops.len() {
            if self.sin_cos_pair(k, r, bufs, outs) {
                k += 2;
                if !self.sums_upto(k, &mut next_sum, r, bufs, outs, revs, partial) {
                    return false;
                }
                continue;
            }
            let op = &fu.ops[k];
            k += 1;
            if op.inlined {
                // Computed by its reader; nothing reads it before (nor
                // sums it).
                continue;
            }
            // Take the target out so operands can borrow the rest.
            let (mut tbuf, mut tout) = (Vec::new(), None);
            let ok = {
                let target: Option<&mut [T]> = match op.store {
                    Store::Temp(t) => match bufs.get_mut(t) {
                        Some(b) => {
                            tbuf = std::mem::take(b);
                            Some(&mut tbuf[..len])
                        }
                        None => None,
                    },
                    Store::Out(k) => match outs.get_mut(k) {
                        Some(o) => {
                            tout = o.take();
                            tout.as_mut()
                                .and_then(T::peek_mut)
                                .and_then(|a| a.as_slice_mut())
                                .map(|s| &mut s[r.e0..r.e1])
                        }
                        None => None,
                    },
                };
                match target {
                    Some(o) => self.apply(op, o, r, bufs, conds, outs),
                    None => false,
                }
            };
            match op.store {
                Store::Temp(t) => bufs[t] = tbuf,
                Store::Out(k) => outs[k] = tout,
            }
            if !ok || !self.sums_upto(k, &mut next_sum, r, bufs, outs, revs, partial) {
                return false;
            }
        }
        next_sum == fu.sum_schedule.len()
    }

    /// Computes the sums of `sum_schedule[*next..]` that read a value of
    /// the first `done` ops (or a leaf), advancing `*next`: `partial[k]`
    /// is the block's pairwise sum of the k-th pairwise sum. False on an
    /// internal inconsistency.
    #[allow(clippy::too_many_arguments)]
    fn sums_upto(
        &self,
        done: usize,
        next: &mut usize,
        r: Range,
        bufs: &[Vec<T>],
        outs: &mut [Option<Value>],
        revs: &mut [RevSum<T>],
        partial: &mut [T; MAX_PAIRWISE],
    ) -> bool {
        let fu = self.fu;
        while let Some(s) = fu.sum_schedule.get(*next).and_then(|&k| fu.sums.get(k)) {
            if s.after > done {
                break;
            }
            *next += 1;
            match s.order {
                SumOrder::Pairwise => {
                    let Some(Blk::Slice(x)) = self.operand(s.arg, r, bufs, outs) else {
                        return false;
                    };
                    let Some(p) = partial.get_mut(s.slot) else {
                        return false;
                    };
                    *p = pairwise_sum(x);
                }
                SumOrder::PairwiseRev => {
                    let Some(Blk::Slice(x)) = self.operand(s.arg, r, bufs, outs) else {
                        return false;
                    };
                    let Some(acc) = revs.get_mut(s.slot) else {
                        return false;
                    };
                    if !acc.feed(r.e0, x) {
                        return false;
                    }
                }
                SumOrder::Rows => {
                    let Some(slot) = outs.get_mut(s.out) else {
                        return false;
                    };
                    let mut acc_v = slot.take();
                    let acc = acc_v
                        .as_mut()
                        .and_then(T::peek_mut)
                        .and_then(|a| a.as_slice_mut());
                    let ok = match (acc, self.operand(s.arg, r, bufs, outs)) {
                        (Some(acc), Some(Blk::Slice(x))) => {
                            if self.row_len > 0 {
                                for row in x.chunks_exact(self.row_len) {
                                    for (a, &v) in acc.iter_mut().zip(row) {
                                        *a = a.add(v);
                                    }
                                }
                            }
                            true
                        }
                        _ => false,
                    };
                    outs[s.out] = acc_v;
                    if !ok {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// When ops `k` and `k + 1` are `sin` and `cos` of one operand (see
    /// [`pair_sin_cos`]), computes both blocks in one pass and returns true;
    /// otherwise (or when the type or operand has no pair kernel) writes
    /// nothing and returns false.
    fn sin_cos_pair(
        &self,
        k: usize,
        r: Range,
        bufs: &mut [Vec<T>],
        outs: &mut [Option<Value>],
    ) -> bool {
        let (Some(a), Some(b)) = (self.fu.ops.get(k), self.fu.ops.get(k + 1)) else {
            return false;
        };
        if !is_fused_pair(a, b) {
            return false;
        }
        let (sin_op, cos_op) = match a.op {
            Op::Unary(UnaryOp::Sin) => (a, b),
            _ => (b, a),
        };
        let mut sin_t = Taken::take(sin_op.store, bufs, outs);
        let mut cos_t = Taken::take(cos_op.store, bufs, outs);
        let done = match self.operand(a.args[0], r, bufs, outs) {
            Some(Blk::Slice(x)) => match (sin_t.rows(r), cos_t.rows(r)) {
                (Some(s), Some(c)) => T::sin_cos(&x[..s.len()], s, c),
                _ => false,
            },
            _ => false,
        };
        sin_t.restore(bufs, outs);
        cos_t.restore(bufs, outs);
        done
    }

    /// Applies one op to its operands' blocks.
    fn apply(
        &self,
        op: &FusedOp,
        o: &mut [T],
        r: Range,
        bufs: &[Vec<T>],
        conds: &[Vec<bool>],
        outs: &[Option<Value>],
    ) -> bool {
        let arg = |k: usize| op.args.get(k).and_then(|&a| self.operand(a, r, bufs, outs));
        match &op.op {
            Op::Unary(u) => match arg(0) {
                Some(x) => {
                    unary_block(*u, o, x);
                    true
                }
                None => false,
            },
            Op::Binary(b) => match op.inner {
                Some(inner) => {
                    let other =
                        |k: usize| op.args.get(k).and_then(|&a| self.operand(a, r, bufs, outs));
                    let inner_arg = |k: usize| self.operand(inner.args[k], r, bufs, outs);
                    match (inner_arg(0), inner_arg(1), other(1 - inner.pos.min(1))) {
                        (Some(x), Some(y), Some(z)) => {
                            binary2_block(*b, inner.op, inner.pos == 0, o, x, y, z)
                        }
                        _ => false,
                    }
                }
                None => match (arg(0), arg(1)) {
                    (Some(x), Some(y)) => {
                        binary_block(*b, o, x, y);
                        true
                    }
                    _ => false,
                },
            },
            Op::Where => {
                let Some(Operand::Leaf(l)) = op.args.first() else {
                    return false;
                };
                let c = match self.conds.get(*l) {
                    Some(Src::Scalar(c)) => Blk::Scalar(*c),
                    Some(Src::Contig(d)) => Blk::Slice(&d[r.e0..r.e1]),
                    Some(_) => match conds.get(*l) {
                        Some(b) => Blk::Slice(&b[..r.e1 - r.e0]),
                        None => return false,
                    },
                    None => return false,
                };
                match (arg(1), arg(2)) {
                    (Some(x), Some(y)) => {
                        where_block(o, c, x, y);
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// The pairwise sums of the subtree `e0..e0 + n` of the summation tree
    /// (the split of [`pairwise_sum`]), computing its blocks on the way.
    fn walk(&self, e0: usize, n: usize, st: &mut PassState<'_, T>) -> Option<[T; MAX_PAIRWISE]> {
        let mut p = [T::zero(); MAX_PAIRWISE];
        if n <= BLOCK {
            let r = Range { e0, e1: e0 + n };
            return self.block(r, st, &mut p).then_some(p);
        }
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        let left = self.walk(e0, n2, st)?;
        let right = self.walk(e0 + n2, n - n2, st)?;
        for k in 0..MAX_PAIRWISE {
            p[k] = left[k].add(right[k]);
        }
        Some(p)
    }

    /// [`Pass::walk`] over all `total` elements (more than a block) as
    /// the two halves of the tree's root, the second on the helper thread
    /// with the buffers of `helper` (blocks of `buf_len`): the same blocks
    /// and the same additions as one thread's walk. The reversed sums'
    /// states of `st` take over the second half's.
    fn walk_split(
        &self,
        total: usize,
        buf_len: usize,
        st: &mut PassState<'_, T>,
        helper: &mut Option<Box<FusedRt>>,
    ) -> Option<[T; MAX_PAIRWISE]> {
        let n2 = pairwise_split(total);
        let n_rev = st.revs.len();
        let helper = helper.get_or_insert_with(Default::default);
        let hbufs = T::bufs(&mut helper.bufs);
        size_bufs(
            self.fu,
            self.srcs,
            self.conds,
            buf_len,
            hbufs,
            &mut helper.conds,
        )
        .then_some(())?;
        let hrevs = T::revs(&mut helper.revs);
        if hrevs.len() < n_rev {
            hrevs.resize_with(n_rev, Default::default);
        }
        for acc in hrevs.iter_mut().take(n_rev) {
            acc.reset_from(total, n2).then_some(())?;
        }
        let mut hst = PassState {
            bufs: T::bufs(&mut helper.bufs),
            conds: &mut helper.conds,
            outs: &mut [],
            revs: &mut hrevs[..n_rev],
        };
        let (left, right) = threads::join(
            || self.walk(0, n2, st),
            || self.walk(n2, total - n2, &mut hst),
        );
        let (left, right) = (left?, right?);
        for (acc, h) in st.revs.iter_mut().zip(hst.revs.iter()) {
            acc.join(h).then_some(())?;
        }
        Some(std::array::from_fn(|k| left[k].add(right[k])))
    }
}

/// Whether a pass over `total` elements runs as two halves on two threads
/// ([`Fusion::split_work`]): a 1-D group whose results are all whole
/// sums (pairwise, forwards or reversed), with enough work.
fn splits(fu: &Fusion, total: usize) -> bool {
    let Some(least) = fu.split_work else {
        return false;
    };
    let block_ops = fu.ops.iter().filter(|o| !o.inlined).count();
    let work = total.saturating_mul(block_ops + fu.sums.len());
    fu.rank == 1
        && total > BLOCK
        && !fu.sums.is_empty()
        && fu.sums.iter().all(|s| s.order != SumOrder::Rows)
        && fu.ops.iter().all(|o| matches!(o.store, Store::Temp(_)))
        && work >= least
}

/// Gives a pass's block buffers (the ops', one per leaf read through a
/// copy, one per condition read through a copy) at least `buf_len`
/// elements; false when one cannot grow.
fn size_bufs<T: BlockElem>(
    fu: &Fusion,
    srcs: &[Src<'_, T>],
    conds: &[Src<'_, bool>],
    buf_len: usize,
    bufs: &mut Vec<Vec<T>>,
    cond_bufs: &mut Vec<Vec<bool>>,
) -> bool {
    let n_bufs = fu.n_temps + fu.leaves.len();
    if bufs.len() < n_bufs {
        bufs.resize_with(n_bufs, Vec::new);
    }
    for (k, b) in bufs.iter_mut().enumerate().take(n_bufs) {
        let needed = k < fu.n_temps || srcs.get(k - fu.n_temps).is_some_and(Src::is_copied);
        if needed && b.len() < buf_len {
            if b.try_reserve_exact(buf_len - b.len()).is_err() {
                return false;
            }
            b.resize(buf_len, T::zero());
        }
    }
    if cond_bufs.len() < fu.leaves.len() {
        cond_bufs.resize_with(fu.leaves.len(), Vec::new);
    }
    for (k, b) in cond_bufs.iter_mut().enumerate().take(fu.leaves.len()) {
        if conds.get(k).is_some_and(Src::is_copied) && b.len() < buf_len {
            if b.try_reserve_exact(buf_len - b.len()).is_err() {
                return false;
            }
            b.resize(buf_len, false);
        }
    }
    true
}

/// The fast path; false when it does not apply (nothing is reported, and
/// the results are recomputed by the reference kernels).
fn run<T: BlockElem>(rt: &GraphRt, fu: &Fusion, params: &dyn Params, frt: &mut FusedRt) -> bool {
    if fu.leaves.len() > MAX_LEAVES {
        return false;
    }
    // The views of the leaves, and the group's shape: theirs broadcast.
    let mut views: [Option<ValView<'_>>; MAX_LEAVES] = Default::default();
    let mut full = ndarray::IxDyn::zeros(0);
    for (k, &l) in fu.leaves.iter().enumerate() {
        let Some(v) = rt.view(l, params) else {
            return false;
        };
        if v.ndim() != 0 && v.shape() != full.slice() {
            match super::kernels::broadcast(&[full.slice(), v.shape()]) {
                Some(b) => full = b,
                None => return false,
            }
        }
        views[k] = Some(v);
    }
    if full.ndim() != fu.rank {
        return false;
    }
    let full = full.slice();
    let mut srcs: [Src<'_, T>; MAX_LEAVES] = std::array::from_fn(|_| Src::Scalar(T::zero()));
    let mut conds: [Src<'_, bool>; MAX_LEAVES] = std::array::from_fn(|_| Src::Scalar(false));
    for k in 0..fu.leaves.len() {
        let Some(v) = &views[k] else { return false };
        if fu.leaf_is_cond[k] {
            match src_of::<bool>(v, full) {
                Some(s) => conds[k] = s,
                None => return false,
            }
        }
        let value_use = fu.ops.iter().any(|o| {
            o.args
                .iter()
                .enumerate()
                .any(|(p, a)| *a == Operand::Leaf(k) && !(matches!(o.op, Op::Where) && p == 0))
        }) || fu.sums.iter().any(|s| s.arg == Operand::Leaf(k));
        if value_use {
            match src_of::<T>(v, full) {
                Some(s) => srcs[k] = s,
                None => return false,
            }
        }
    }
    let total: usize = full.iter().product();
    let row_len: usize = full.iter().skip(1).product();
    // Block sizes: whole rows when the rank is 2 or more.
    let per_block = match fu.rank {
        0 => 1,
        1 => BLOCK,
        _ => (BLOCK / row_len.max(1)).max(1) * row_len,
    };
    let buf_len = per_block.min(total).max(1);
    // Buffers: the ops', then one per copied leaf.
    if !size_bufs(
        fu,
        &srcs,
        &conds,
        buf_len,
        T::bufs(&mut frt.bufs),
        &mut frt.conds,
    ) {
        return false;
    }
    // Results: stored ops in full, sums zeroed.
    for op in &fu.ops {
        if let Store::Out(k) = op.store {
            if ensure::<T>(&mut frt.outs[k], full).is_none() {
                return false;
            }
        }
    }
    let mut pw_index = [0usize; MAX_PAIRWISE];
    let mut n_pw = 0;
    for s in &fu.sums {
        let shape = match s.order {
            SumOrder::Pairwise | SumOrder::PairwiseRev => &full[..0],
            SumOrder::Rows => &full[1..],
        };
        match ensure::<T>(&mut frt.outs[s.out], shape) {
            Some(a) => a.fill(T::zero()),
            None => return false,
        }
        if s.order == SumOrder::Pairwise {
            if n_pw >= MAX_PAIRWISE {
                return false;
            }
            pw_index[n_pw] = s.out;
            n_pw += 1;
        }
    }
    let pass = Pass {
        fu,
        srcs: &srcs[..fu.leaves.len()],
        conds: &conds[..fu.leaves.len()],
        full,
        row_len,
        pw_index,
    };
    let n_rev = fu
        .sums
        .iter()
        .filter(|s| s.order == SumOrder::PairwiseRev)
        .count();
    if n_rev > 0 && fu.rank != 1 {
        return false;
    }
    let revs = T::revs(&mut frt.revs);
    if revs.len() < n_rev {
        revs.resize_with(n_rev, Default::default);
    }
    for acc in revs.iter_mut().take(n_rev) {
        if !acc.reset(total) {
            return false;
        }
    }
    let mut st = PassState {
        bufs: T::bufs(&mut frt.bufs),
        conds: &mut frt.conds,
        outs: &mut frt.outs,
        revs: &mut revs[..n_rev],
    };
    let split = splits(fu, total);
    if split || n_pw > 0 {
        // The blocks are the subtrees of the summation tree.
        let p = if split {
            pass.walk_split(total, buf_len, &mut st, &mut frt.helper)
        } else {
            pass.walk(0, total, &mut st)
        };
        let Some(p) = p else {
            return false;
        };
        for (k, &out) in pass.pw_index.iter().enumerate().take(n_pw) {
            let Some(a) = st.outs[out].as_mut().and_then(T::peek_mut) else {
                return false;
            };
            a.fill(p[k]);
        }
    } else {
        let mut scratch = [T::zero(); MAX_PAIRWISE];
        let mut e0 = 0;
        loop {
            let e1 = (e0 + per_block).min(total);
            let r = Range { e0, e1 };
            if !pass.block(r, &mut st, &mut scratch) {
                return false;
            }
            if e1 >= total {
                break;
            }
            e0 = e1;
        }
    }
    let rev_sums = fu.sums.iter().filter(|s| s.order == SumOrder::PairwiseRev);
    for (s, acc) in rev_sums.zip(st.revs.iter()) {
        let Some(v) = acc.finish() else {
            return false;
        };
        let Some(a) = st.outs[s.out].as_mut().and_then(T::peek_mut) else {
            return false;
        };
        a.fill(v);
    }
    true
}

/// The group computed node by node with the reference kernels (what the
/// unfused plan computes), for the cases the fast path leaves out; the
/// values of its results in order.
fn reference(
    rt: &GraphRt,
    plan: &GraphPlan,
    fu: &Fusion,
    params: &dyn Params,
    env: Env<'_>,
    meter: &mut Meter,
) -> Result<Vec<Value>, ExecError> {
    let g = &plan.graph;
    let bind = |s: &str| env.dims.get(s).copied();
    let mut vals: Vec<Option<Value>> = (0..fu.ops.len()).map(|_| None).collect();
    // `given`: a node not computed outside the group (an absorbed
    // reversal) and its value.
    let eval_given = |node: usize,
                      vals: &[Option<Value>],
                      given: Option<(usize, &Value)>|
     -> Result<Value, ExecError> {
        let n = &g.nodes[node];
        let mut owned: Vec<Value> = Vec::with_capacity(n.args.len());
        for a in &n.args {
            let v = match (fu.ops.iter().position(|o| o.node == a.0), given) {
                (Some(k), _) => vals[k].clone(),
                (None, Some((x, v))) if x == a.0 => Some(v.clone()),
                (None, _) => rt.view(a.0, params).map(|v| v.to_value()),
            };
            owned.push(v.ok_or_else(|| internal(plan, node, "argument not computed"))?);
        }
        let refs: Vec<&Value> = owned.iter().collect();
        let tys: Vec<&Type> = n.args.iter().map(|a| g.nodes[a.0].ty()).collect();
        ops::eval(&n.op, &refs, &tys, n.ty(), &bind).map_err(|msg| ExecError::Op {
            span: g.span(NodeId(node)),
            op: n.op.name().to_string(),
            msg,
        })
    };
    let eval = |node: usize, vals: &[Option<Value>]| eval_given(node, vals, None);
    for k in 0..fu.ops.len() {
        let v = eval(fu.ops[k].node, &vals)?;
        meter
            .transient(vals.iter().flatten().map(|v| v.len_bytes()).sum::<usize>() + v.len_bytes());
        vals[k] = Some(v);
    }
    let mut out: Vec<Value> = Vec::with_capacity(fu.outputs.len());
    for op in &fu.ops {
        if let Store::Out(_) = op.store {
            let k = fu.ops.iter().position(|o| o.node == op.node);
            let v = k.and_then(|k| vals[k].clone());
            out.push(v.ok_or_else(|| internal(plan, op.node, "fused result not computed"))?);
        }
    }
    for s in &fu.sums {
        match s.reversal {
            Some(rv) => {
                let reversed = eval(rv, &vals)?;
                out.push(eval_given(s.node, &vals, Some((rv, &reversed)))?);
            }
            None => out.push(eval(s.node, &vals)?),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::plan::Compiled;
    use crate::lang::parse_program;

    fn groups_of(text: &str) -> Vec<Fusion> {
        let p = parse_program(text).unwrap();
        let f = Compiled::new(&p, &Default::default()).unwrap();
        f.plan()
            .nodes
            .iter()
            .filter_map(|n| n.fusion.as_deref().cloned())
            .collect()
    }

    #[test]
    fn groups_found() {
        let groups = groups_of(
            "(program m (input X (f64 T D)) (input w (f64 D))
               (let s (sin X))
               (output (add (mul 2.0 (exp X)) (mul X s)) (sum (mul X w) 0) (mul s 3.0)))",
        );
        // One group over X's shape: sin (read by two ops of the group and
        // stored, since `mul s 3.0`... is in the group too), exp, the
        // muls, the add, and the sum over axis 0.
        assert_eq!(groups.len(), 1);
        let g = &groups[0];
        assert_eq!(g.ops.len(), 7);
        assert_eq!(g.sums.len(), 1);
        assert_eq!(g.sums[0].order, SumOrder::Rows);
        // Stored: the two elementwise outputs and the sum.
        assert_eq!(g.outputs.len(), 3);
    }

    #[test]
    fn shared_inner_nodes_and_several_sums() {
        let groups = groups_of(
            "(program m (input x (f64 T)) (input c (f64))
               (let e (sub x c))
               (let ee (mul e e))
               (output (sum ee) (sum e 0) (sum (mul ee e) 0) (add ee 1.0)))",
        );
        assert_eq!(groups.len(), 1);
        let g = &groups[0];
        assert_eq!(g.sums.len(), 3);
        assert!(g.sums.iter().all(|s| s.order == SumOrder::Pairwise));
        assert_eq!(g.outputs.len(), 4);
    }

    #[test]
    fn sums_of_reversed_group_values_join_the_group() {
        // The form of a backward loop's stacked terms once they leave it:
        // sums over reversals of group values run in the group's one pass.
        let groups = groups_of(
            "(program m (input x (f64 T)) (input c (f64))
               (let e (sub x c))
               (let d (mul e 2.0))
               (output (sum (mul e e)) (sum (slice d none none -1) 0)
                       (sum (slice (mul d x) none none -1))))",
        );
        assert_eq!(groups.len(), 1, "{groups:?}");
        let g = &groups[0];
        let orders: Vec<SumOrder> = g.sums.iter().map(|s| s.order).collect();
        assert_eq!(
            orders,
            [
                SumOrder::Pairwise,
                SumOrder::PairwiseRev,
                SumOrder::PairwiseRev
            ]
        );
        assert_eq!(g.reversals.len(), 2);
        // Only the three sums are stored.
        assert_eq!(g.outputs.len(), 3);
    }

    #[test]
    fn a_reversal_read_elsewhere_stays_out() {
        let groups = groups_of(
            "(program m (input x (f64 T)) (input c (f64))
               (let d (mul (sub x c) 2.0))
               (let r (slice d none none -1))
               (output (sum r 0) (mul r x)))",
        );
        for g in &groups {
            assert!(g.reversals.is_empty(), "{g:?}");
            assert!(g.sums.iter().all(|s| s.order != SumOrder::PairwiseRev));
        }
    }

    #[test]
    fn reversed_sums_equal_the_reference_bit_for_bit() {
        // Lengths around the block and the pairwise tree's splits, values
        // of mixed magnitudes so that the order shows in the last bits.
        for n in [
            0usize, 1, 7, 8, 9, 127, 128, 129, 1000, 4095, 4096, 4097, 9000, 20011,
        ] {
            let x: Vec<f64> = (0..n)
                .map(|i| {
                    let t = i as f64;
                    (t * 0.7).sin() * 10f64.powi((i % 17) as i32 - 8) + 1.0 / (t + 3.0)
                })
                .collect();
            let mut acc = RevSum::<f64>::default();
            assert!(acc.reset(n));
            // Blocks of the forward tree, as the pass feeds them.
            let mut blocks = Vec::new();
            subtrees(0, n, BLOCK, &mut blocks);
            for &(a, b) in &blocks {
                assert!(acc.feed(a, &x[a..b]));
            }
            let reversed: Vec<f64> = x.iter().rev().copied().collect();
            let want = pairwise_sum(&reversed);
            let got = acc.finish().unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "n = {n}");
            // Any other split of the forward elements gives the same.
            let mut acc2 = RevSum::<f64>::default();
            assert!(acc2.reset(n));
            let mut e0 = 0;
            while e0 < n {
                let e1 = (e0 + 333).min(n);
                assert!(acc2.feed(e0, &x[e0..e1]));
                e0 = e1;
            }
            assert_eq!(acc2.finish().unwrap().to_bits(), want.to_bits(), "n = {n}");
            // Split in two parts fed by two states (a split pass), joined:
            // at the root's split, at leaf boundaries and inside leaves.
            let mut cuts = vec![1, 8, 100, 128, 129, n / 3, n.saturating_sub(5)];
            if n > 1 {
                cuts.push(pairwise_split(n));
            }
            for lo in cuts.into_iter().filter(|&c| c > 0 && c < n) {
                let mut left = RevSum::<f64>::default();
                let mut right = RevSum::<f64>::default();
                assert!(left.reset(n) && right.reset_from(n, lo));
                for (acc, a, b) in [(&mut left, 0, lo), (&mut right, lo, n)] {
                    let mut e0 = a;
                    while e0 < b {
                        let e1 = (e0 + 1000).min(b);
                        assert!(acc.feed(e0, &x[e0..e1]), "n = {n}, lo = {lo}");
                        e0 = e1;
                    }
                }
                assert!(left.finish().is_none() || lo == n);
                assert!(left.join(&right), "n = {n}, lo = {lo}");
                let got = left.finish().unwrap();
                assert_eq!(got.to_bits(), want.to_bits(), "n = {n}, lo = {lo}");
            }
        }
    }

    #[test]
    fn a_sum_read_back_into_the_group_splits_it() {
        // x - sum(x) / n: the sum must finish before the subtraction.
        let groups = groups_of(
            "(program m (input x (f64 T))
               (let y (mul x 2.0))
               (output (sub y (sum y 0))))",
        );
        for g in &groups {
            let nodes: Vec<usize> = g.nodes().collect();
            assert!(
                !(g.sums.len() == 1 && g.ops.len() == 2),
                "a group holds a sum and its reader: {nodes:?}"
            );
        }
    }
}
