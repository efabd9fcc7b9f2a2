//! Fusion: chains of elementwise ops run as one loop over blocks of rows.
//!
//! Owns: [`Fusion`] — a group of float elementwise nodes, each read only by
//! the next node of the group, ending in an elementwise root or in a sum
//! over axis 0 — the planner's search for groups ([`find`]), and their
//! execution ([`exec`]). A group runs block by block (a few thousand
//! elements, rows of axis 0): each op computes its block into a small
//! buffer kept across calls (or over its argument's buffer, since that
//! argument has no other reader), and the root writes its rows of the
//! result — or, for a sum, adds them to the running total in row order,
//! which is the reference kernel's order. So the intermediate values never
//! exist in full: `sum(mul(X, X), 0)` holds a block, not a copy of `X`.
//! Results equal the unfused ones bit for bit (the same element functions
//! in the same order). Anything the fast path does not cover at run time
//! (another dtype, a shape error) runs node by node through the reference
//! kernels. Must not: fuse a node someone else reads, or change any result.

use super::contract::Role;
use super::kernels::{self, apply_binary, apply_unary, ensure, Opnd};
use super::runtime::{internal, Env, GraphRt, Meter, Params};
use super::schedule::{GraphPlan, PlanOptions};
use super::view::{Root, ViewElem};
use crate::exec::error::ExecError;
use crate::exec::ops::elementwise::Float;
use crate::exec::ops::{self, normalize_axis};
use crate::exec::value::{Elem, Value};
use crate::lang::program::{Graph, NodeId};
use crate::lang::{DType, Dim, Op, ReduceOp, Type};
use ndarray::{Axis, Dimension, IxDyn, Slice};

/// Elements per block: small enough for the block buffers to stay in cache.
const BLOCK: usize = 4096;

/// Leaves whose views are resolved once per call rather than per op.
const CACHED: usize = 8;

/// An operand of a fused op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The k-th leaf (a value computed outside the group).
    Leaf(usize),
    /// The result of the k-th op of the group.
    Op(usize),
}

/// One op of a group.
#[derive(Clone, Debug)]
pub struct FusedOp {
    /// The node it computes.
    pub node: usize,
    /// Its op (unary or binary).
    pub op: Op,
    /// Its operands, in argument order.
    pub args: Vec<Operand>,
    /// The block buffer it writes (`usize::MAX`: the result itself).
    pub temp: usize,
}

/// A fused group, attached to its root node.
#[derive(Clone, Debug)]
pub struct Fusion {
    /// The nodes read from outside the group, in first-use order.
    pub leaves: Vec<usize>,
    /// The ops in evaluation order; the last is the root (elementwise
    /// root) or the sum's argument.
    pub ops: Vec<FusedOp>,
    /// Number of block buffers.
    pub n_temps: usize,
    /// The root is a sum over axis 0 of the last op.
    pub reduce: bool,
    /// The dtype every op computes in (`f64` or `f32`).
    pub dtype: DType,
}

/// The runtime of a group: its block buffers.
#[derive(Debug, Default)]
pub struct FusedRt {
    temps: Vec<Option<Value>>,
}

fn is_float(t: &Type) -> bool {
    matches!(t.dtype, DType::F64 | DType::F32)
}

fn same_shape(a: &Type, b: &Type) -> bool {
    a.shape.len() == b.shape.len()
        && a.shape
            .iter()
            .zip(&b.shape)
            .all(|(x, y)| x == y && *x != Dim::Unknown)
}

/// Finds the fused groups of a graph. `roles` are the nodes' contracts,
/// `scheduled` the nodes the outputs need. Returns, per node, its group
/// if it is a root, and whether it is absorbed into another's group.
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
    let uses = g.use_counts();
    let elementwise = |i: usize| {
        roles[i] == Role::Elementwise
            && matches!(g.nodes[i].op, Op::Unary(_) | Op::Binary(_))
            && is_float(g.nodes[i].ty())
    };
    for c in (0..n).rev() {
        if !scheduled[c] || absorbed[c] {
            continue;
        }
        let node = &g.nodes[c];
        // The type every op of the group has, and where the search starts.
        let (reduce, ty, dtype) = match (&node.op, node.args.first()) {
            (Op::Reduce(ReduceOp::Sum, Some(ax)), Some(a)) => {
                let at = g.nodes[a.0].ty();
                let ok = is_float(node.ty())
                    && at.dtype == node.ty().dtype
                    && normalize_axis(*ax, at.ndim()) == Ok(0);
                if !ok {
                    continue;
                }
                (true, at.clone(), node.ty().dtype)
            }
            _ if elementwise(c) => (false, node.ty().clone(), node.ty().dtype),
            _ => continue,
        };
        // Grow the group: single-reader elementwise arguments of the type.
        let absorbable = |a: usize, absorbed: &[bool]| {
            scheduled[a]
                && !absorbed[a]
                && uses[a] == 1
                && elementwise(a)
                && g.nodes[a].ty().dtype == dtype
                && same_shape(g.nodes[a].ty(), &ty)
        };
        let mut members: Vec<usize> = Vec::new();
        let mut stack: Vec<usize> = if reduce {
            node.args.first().map(|a| a.0).into_iter().collect()
        } else {
            node.args.iter().map(|a| a.0).collect()
        };
        while let Some(a) = stack.pop() {
            if members.contains(&a) || !absorbable(a, &absorbed) {
                continue;
            }
            members.push(a);
            stack.extend(g.nodes[a].args.iter().map(|x| x.0));
        }
        if members.is_empty() {
            continue;
        }
        if !reduce {
            members.push(c);
        }
        members.sort_unstable();
        // Leaves: the dtype of the group or scalars (anything else would
        // need a conversion the fast path does not do).
        let mut leaves: Vec<usize> = Vec::new();
        let mut ops: Vec<FusedOp> = Vec::with_capacity(members.len());
        let mut leaves_ok = true;
        for &m in &members {
            let args = g.nodes[m]
                .args
                .iter()
                .map(|a| match members.iter().position(|&x| x == a.0) {
                    Some(k) => Operand::Op(k),
                    None => {
                        let t = g.nodes[a.0].ty();
                        leaves_ok &= t.dtype == dtype || t.ndim() == 0;
                        let k = match leaves.iter().position(|&l| l == a.0) {
                            Some(k) => k,
                            None => {
                                leaves.push(a.0);
                                leaves.len() - 1
                            }
                        };
                        Operand::Leaf(k)
                    }
                })
                .collect();
            ops.push(FusedOp {
                node: m,
                op: g.nodes[m].op.clone(),
                args,
                temp: 0,
            });
        }
        if !leaves_ok {
            continue;
        }
        // Block buffers: an op writes over its first op operand's buffer
        // (that operand has no other reader), else a new one.
        let mut n_temps = 0;
        for k in 0..ops.len() {
            let inherit = ops[k].args.iter().find_map(|o| match o {
                Operand::Op(j) => Some(ops[*j].temp),
                Operand::Leaf(_) => None,
            });
            ops[k].temp = match inherit {
                Some(t) if t != usize::MAX => t,
                _ => {
                    n_temps += 1;
                    n_temps - 1
                }
            };
        }
        if !reduce {
            if let Some(last) = ops.last_mut() {
                last.temp = usize::MAX;
            }
        }
        for &m in &members {
            if m != c {
                absorbed[m] = true;
            }
        }
        groups[c] = Some(Fusion {
            leaves,
            ops,
            n_temps,
            reduce,
            dtype,
        });
    }
    (groups, absorbed)
}

/// Runs the group rooted at node `i` into the node's slot.
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
    let Some(&s) = plan.nodes[i].slots.first() else {
        return Err(internal(plan, i, "a fused node without storage"));
    };
    let mut dest = rt.slots[s].val.take();
    let mut frt = rt.fused[i].take().unwrap_or_default();
    if frt.temps.len() != fu.n_temps {
        frt.temps = (0..fu.n_temps).map(|_| None).collect();
    }
    let done = match fu.dtype {
        DType::F64 => run::<f64>(rt, fu, params, &mut frt, &mut dest, s),
        DType::F32 => run::<f32>(rt, fu, params, &mut frt, &mut dest, s),
        _ => false,
    };
    let temp_bytes: usize = frt.temps.iter().flatten().map(|v| v.len_bytes()).sum();
    rt.fused[i] = Some(frt);
    if !done {
        match reference(rt, plan, i, fu, params, env, meter) {
            Ok(v) => dest = Some(v),
            Err(e) => {
                rt.slots[s].val = dest;
                return Err(e);
            }
        }
    }
    let bytes = dest.as_ref().map_or(0, |v| v.len_bytes()) + temp_bytes;
    let slot = &mut rt.slots[s];
    slot.val = dest;
    meter.resize(&mut slot.held, bytes);
    rt.locs[i].set_whole(Root::Slot(s));
    Ok(())
}

/// The fast path; false when it does not apply (nothing is reported).
/// `s` is the result's slot, taken out into `dest`: a leaf living there
/// is the argument the group overwrites in place.
fn run<T: Float + ViewElem>(
    rt: &GraphRt,
    fu: &Fusion,
    params: &dyn Params,
    frt: &mut FusedRt,
    dest: &mut Option<Value>,
    s: usize,
) -> bool {
    let in_dest = |l: usize| rt.locs[l].root == Root::Slot(s) && rt.locs[l].steps.is_empty();
    // The full shape: the leaves broadcast together.
    let mut full = IxDyn::zeros(0);
    // Leaf views are resolved once per call (up to CACHED leaves).
    let mut cache: [Option<Opnd<'_, T>>; CACHED] = Default::default();
    for (k, &l) in fu.leaves.iter().enumerate() {
        if in_dest(l) {
            // The leaf the result overwrites: a whole value of the result's
            // type (the planner checked), read from the destination.
            match dest.as_ref() {
                Some(d) if d.dtype() == T::DTYPE => {
                    match kernels::broadcast(&[full.slice(), d.shape()]) {
                        Some(b) => full = b,
                        None => return false,
                    }
                }
                _ => return false,
            }
            continue;
        }
        let Some(v) = rt.view(l, params) else {
            return false;
        };
        if v.dtype() != T::DTYPE && v.ndim() != 0 {
            return false;
        }
        if v.ndim() != 0 && v.shape() != full.slice() {
            match kernels::broadcast(&[full.slice(), v.shape()]) {
                Some(b) => full = b,
                None => return false,
            }
        }
        if k < CACHED {
            cache[k] = kernels::opnd::<T>(&kernels::Arg::View(v));
        }
    }
    let rank = full.ndim();
    if fu.reduce && rank == 0 {
        return false;
    }
    let rows = if rank == 0 { 1 } else { full[0] };
    let row_len: usize = full.slice().iter().skip(1).product();
    let per_block = (BLOCK / row_len.max(1)).max(1);
    // The result: the full array, or the running sum (starting at zero).
    if fu.reduce {
        let Some(acc) = ensure::<T>(dest, &full.slice()[1..]) else {
            return false;
        };
        acc.fill(T::zero());
    } else if ensure::<T>(dest, full.slice()).is_none() {
        return false;
    }
    let mut block_shape = full.clone();
    let mut r0 = 0;
    while r0 < rows {
        let r1 = (r0 + per_block).min(rows);
        if rank > 0 {
            block_shape[0] = r1 - r0;
        }
        for (k, op) in fu.ops.iter().enumerate() {
            let blk = Block { rank, rows, r0, r1 };
            let ok = if k + 1 == fu.ops.len() && !fu.reduce {
                // The root writes its rows of the result; a leaf that lives
                // there is read in place.
                let Some(a) = dest.as_mut().and_then(T::peek_mut) else {
                    return false;
                };
                let mut out = a.view_mut();
                if rank > 0 {
                    out.slice_axis_inplace(Axis(0), Slice::from(r0..r1));
                }
                let xs = operands::<T>(rt, fu, op, params, frt, None, &in_dest, blk, &cache);
                apply(op, out, xs)
            } else {
                // Into the op's block buffer (over its operand's buffer
                // when that is where it was written).
                let Some(t) = frt.temps.get_mut(op.temp) else {
                    return false;
                };
                let mut temp = t.take();
                let over_operand = op
                    .args
                    .iter()
                    .any(|o| matches!(o, Operand::Op(j) if fu.ops[*j].temp == op.temp));
                let target = if over_operand {
                    temp.as_mut()
                        .and_then(T::peek_mut)
                        .filter(|a| a.shape() == block_shape.slice())
                } else {
                    ensure::<T>(&mut temp, block_shape.slice())
                };
                let ok = match target {
                    Some(out) => {
                        let xs = operands::<T>(
                            rt,
                            fu,
                            op,
                            params,
                            frt,
                            dest.as_ref(),
                            &in_dest,
                            blk,
                            &cache,
                        );
                        apply(op, out.view_mut(), xs)
                    }
                    None => false,
                };
                frt.temps[op.temp] = temp;
                ok
            };
            if !ok {
                return false;
            }
        }
        if fu.reduce {
            // Add this block's rows to the running sum, in row order.
            let Some(last) = fu.ops.last() else {
                return false;
            };
            let (Some(acc), Some(block)) = (
                dest.as_mut().and_then(T::peek_mut),
                frt.temps
                    .get(last.temp)
                    .and_then(|v| v.as_ref())
                    .and_then(T::peek),
            ) else {
                return false;
            };
            let (Some(acc), Some(b)) = (acc.as_slice_mut(), block.as_slice()) else {
                return false;
            };
            if row_len > 0 {
                for row in b.chunks_exact(row_len) {
                    for (a, &x) in acc.iter_mut().zip(row) {
                        *a = crate::exec::ops::elementwise::Arith::add(*a, x);
                    }
                }
            }
        }
        if rank == 0 {
            break;
        }
        r0 = r1;
    }
    true
}

/// The block being computed: rows `r0..r1` of `rows`, of an array of
/// `rank` axes.
#[derive(Clone, Copy)]
struct Block {
    rank: usize,
    rows: usize,
    r0: usize,
    r1: usize,
}

/// The operands of `op` for a block. `dest` is the result's storage when
/// the op does not write it (a leaf living there is read from it), `None`
/// when it does (such a leaf is the destination itself).
#[allow(clippy::too_many_arguments)]
fn operands<'s, 'c: 's, T: ViewElem>(
    rt: &'s GraphRt,
    fu: &Fusion,
    op: &FusedOp,
    params: &'s dyn Params,
    frt: &'s FusedRt,
    dest: Option<&'s Value>,
    in_dest: &dyn Fn(usize) -> bool,
    b: Block,
    cache: &'s [Option<Opnd<'c, T>>],
) -> [Option<Opnd<'s, T>>; 2] {
    let mut xs: [Option<Opnd<'s, T>>; 2] = [None, None];
    for (x, arg) in xs.iter_mut().zip(&op.args) {
        *x = match *arg {
            Operand::Leaf(l) if in_dest(fu.leaves[l]) => match dest {
                None => Some(Opnd::Dest),
                Some(d) => T::peek(d).map(|a| {
                    let mut v = a.view();
                    if b.rank > 0 {
                        v.slice_axis_inplace(Axis(0), Slice::from(b.r0..b.r1));
                    }
                    Opnd::Arr(v)
                }),
            },
            Operand::Leaf(l) => match cache.get(l) {
                Some(Some(Opnd::Scalar(x))) => Some(Opnd::Scalar(*x)),
                Some(Some(Opnd::Arr(a))) => Some(Opnd::Arr(rows_of(a.view(), b))),
                _ => leaf_block::<T>(rt, fu.leaves[l], params, b.rank, b.rows, b.r0, b.r1),
            },
            Operand::Op(j) => {
                let t = fu.ops[j].temp;
                if t == op.temp {
                    Some(Opnd::Dest)
                } else {
                    frt.temps
                        .get(t)
                        .and_then(|v| v.as_ref())
                        .and_then(T::peek)
                        .map(|a| Opnd::Arr(a.view()))
                }
            }
        };
    }
    xs
}

/// The rows of the block, when the leaf has the full leading axis.
fn rows_of<T>(mut a: ndarray::ArrayViewD<'_, T>, b: Block) -> ndarray::ArrayViewD<'_, T> {
    if b.rank > 0 && a.ndim() == b.rank && a.shape()[0] == b.rows && b.rows != 1 {
        a.slice_axis_inplace(Axis(0), Slice::from(b.r0..b.r1));
    }
    a
}

/// Applies a fused op to its operands; false when an operand is missing.
fn apply<T: Float>(
    op: &FusedOp,
    out: ndarray::ArrayViewMutD<'_, T>,
    xs: [Option<Opnd<'_, T>>; 2],
) -> bool {
    match (&op.op, &xs) {
        (Op::Unary(u), [Some(x), None]) => {
            apply_unary(*u, out, x);
            true
        }
        (Op::Binary(b), [Some(x), Some(y)]) => {
            apply_binary(*b, out, x, y);
            true
        }
        _ => false,
    }
}

/// The rows `r0..r1` of a leaf as an operand: a 0-D leaf is a scalar; a
/// leaf with the full leading axis is sliced; any other broadcasts whole.
fn leaf_block<'s, T: ViewElem>(
    rt: &'s GraphRt,
    l: usize,
    params: &'s dyn Params,
    rank: usize,
    rows: usize,
    r0: usize,
    r1: usize,
) -> Option<Opnd<'s, T>> {
    let v = rt.view(l, params)?;
    if v.ndim() == 0 {
        return crate::exec::plan::view::with_view!(&v, a => a.first().map(|e| Opnd::Scalar(e.cast::<T>())));
    }
    let mut a = T::of_view(&v)?;
    if rank > 0 && a.ndim() == rank && a.shape()[0] == rows && rows != 1 {
        a.slice_axis_inplace(Axis(0), Slice::from(r0..r1));
    }
    Some(Opnd::Arr(a))
}

/// The group computed node by node with the reference kernels (what the
/// unfused plan computes), for the cases the fast path leaves out.
fn reference(
    rt: &GraphRt,
    plan: &GraphPlan,
    i: usize,
    fu: &Fusion,
    params: &dyn Params,
    env: Env<'_>,
    meter: &mut Meter,
) -> Result<Value, ExecError> {
    let g = &plan.graph;
    let bind = |s: &str| env.dims.get(s).copied();
    let mut vals: Vec<Option<Value>> = (0..fu.ops.len()).map(|_| None).collect();
    let eval = |node: usize, vals: &[Option<Value>]| -> Result<Value, ExecError> {
        let n = &g.nodes[node];
        let mut owned: Vec<Value> = Vec::with_capacity(n.args.len());
        for a in &n.args {
            let v = match fu.ops.iter().position(|o| o.node == a.0) {
                Some(k) => vals[k].clone(),
                None => rt.view(a.0, params).map(|v| v.to_value()),
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
    for k in 0..fu.ops.len() {
        let v = eval(fu.ops[k].node, &vals)?;
        meter
            .transient(vals.iter().flatten().map(|v| v.len_bytes()).sum::<usize>() + v.len_bytes());
        vals[k] = Some(v);
    }
    if fu.reduce {
        eval(i, &vals)
    } else {
        vals.pop()
            .flatten()
            .ok_or_else(|| internal(plan, i, "fused result not computed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::plan::Compiled;
    use crate::lang::parse_program;

    #[test]
    fn groups_found() {
        let p = parse_program(
            "(program m (input X (f64 T D)) (input w (f64 D))
               (let s (sin X))
               (output (add (mul 2.0 (exp X)) (mul X s)) (sum (mul X w) 0) (mul s 3.0)))",
        )
        .unwrap();
        let f = Compiled::new(&p, &Default::default()).unwrap();
        let plan = f.plan();
        let groups: Vec<&Fusion> = plan
            .nodes
            .iter()
            .filter_map(|n| n.fusion.as_deref())
            .collect();
        // exp, mul, mul, add in one group (sin X is read twice: a leaf);
        // mul X w under the sum in another.
        assert_eq!(groups.len(), 2);
        assert_eq!(groups.iter().map(|g| g.ops.len()).sum::<usize>(), 5);
        assert!(groups.iter().any(|g| g.reduce));
    }
}
