//! Compiling a graph into a plan: schedule, liveness, storage.
//!
//! Owns: [`GraphPlan`] and [`NodePlan`] — the order nodes run in (a
//! topological schedule of the nodes the outputs need, checked with
//! petgraph), the storage each value may live in ("tokens": one per
//! computed result; a view lives in its argument's tokens and, when its
//! layout forces a copy, in a token of its own), the last position that
//! reads each token, the in-place decisions (an elementwise node, or an
//! update of argument 0, takes over an argument's storage when the argument
//! is a whole value of the result's type that nobody reads afterwards, per
//! [`super::contract::destroy_map`]),
//! and the assignment of tokens to slots — storage the runtime keeps across
//! calls — so that values whose lifetimes do not overlap share a slot.
//! Must not: look at runtime data; sizes are the runtime's business (a slot
//! grows to the largest value it holds and keeps that capacity).

use super::contract::{destroy_map, role, Role};
use super::fusion::Fusion;
use super::scan::ScanPlan;
use crate::exec::error::ExecError;
use crate::lang::dtype::compare_dtype;
use crate::lang::program::{Graph, NodeId, Program};
use crate::lang::{DType, Dim, Op, Type};
use petgraph::graph::DiGraph;
use petgraph::visit::{Dfs, Reversed};

/// Choices that change how a program runs but never what it computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanOptions {
    /// Let elementwise ops write over dead arguments of their type. Off,
    /// every computed value gets storage of its own (the reference for the
    /// in-place differential tests).
    pub inplace: bool,
    /// The program's inputs are handed over by the caller (Aesara's
    /// `borrow=True`): they live in slots and may be overwritten once dead.
    /// (Shared variables never are: they are read-only during a call.)
    pub owned_inputs: bool,
    /// Run chains of float elementwise ops (and a sum over axis 0 of one)
    /// as one blocked loop ([`super::fusion`]). Off, every node runs on
    /// its own.
    pub fuse: bool,
    /// Run loop bodies that compile to a step tape (`plan::step`) on it
    /// after their first step. Off, every step runs on the plan (the
    /// reference for the step-tape differential tests).
    pub step_tape: bool,
    /// Compile a step tape's runs of scalar operations and of fused
    /// elementwise instructions to machine code (`plan::step::native`)
    /// when a call runs at least this many steps on the tape; `None`:
    /// never (the reference for the native-code differential tests).
    pub native_steps: Option<usize>,
    /// Split a fused group's pass in two halves run on two threads when
    /// its results are all whole sums and its work (elements times block
    /// ops and sums) is at least this much; `None`: never (the reference
    /// for the split differential tests). The two halves are the halves
    /// of the summation tree's root, so results keep their bits. The
    /// default is [`SPLIT_WORK`] when the executor may use two threads
    /// ([`crate::exec::threads::budget`]), else `None`.
    pub split_work: Option<usize>,
}

/// The fewest steps a call runs on a step tape for the default options
/// to compile it to machine code: compiling takes about 0.1-1 ms, which
/// a few thousand steps saving tens of nanoseconds each repay.
pub const NATIVE_STEPS: usize = 2000;

/// The default [`PlanOptions::native_steps`]: [`NATIVE_STEPS`], or the
/// environment's `EQSCAN_NATIVE_STEPS` (a number of steps, or `off`), to
/// force machine code on short loops or keep it off while debugging.
fn native_steps() -> Option<usize> {
    match std::env::var("EQSCAN_NATIVE_STEPS") {
        Ok(v) if v.trim() == "off" => None,
        Ok(v) => Some(v.trim().parse().unwrap_or(NATIVE_STEPS)),
        Err(_) => Some(NATIVE_STEPS),
    }
}

/// The least work for which the default options split a fused pass in
/// two: about 0.15 ms of one thread's time at 1.5 ns per block op and
/// element, against the 20-40 µs a thread takes to start and join.
pub const SPLIT_WORK: usize = 1 << 20;

impl Default for PlanOptions {
    fn default() -> PlanOptions {
        PlanOptions {
            inplace: true,
            owned_inputs: false,
            fuse: true,
            step_tape: true,
            native_steps: native_steps(),
            split_work: (crate::exec::threads::budget() >= 2).then_some(SPLIT_WORK),
        }
    }
}

/// The plan of one node.
#[derive(Clone, Debug)]
pub struct NodePlan {
    /// What the node does with storage (its contract).
    pub role: Role,
    /// The slots of the node's own results: one for most nodes (for a view,
    /// the copy it falls back to), one per output for a scan, none for a
    /// parameter the caller keeps or a projection.
    pub slots: Vec<usize>,
    /// The argument (for a fused group: the leaf) whose storage the result
    /// takes over, if any.
    pub inplace: Option<usize>,
    /// The loop, for a scan node.
    pub scan: Option<Box<ScanPlan>>,
    /// The dtype a comparison computes in (from the weak flags of its
    /// arguments' static types).
    pub compare_dtype: Option<DType>,
    /// The fused group this node is the root of, if any (its members do
    /// not run on their own).
    pub fusion: Option<Box<Fusion>>,
}

/// A compiled graph: run `order` to compute `graph.outputs`.
#[derive(Clone, Debug)]
pub struct GraphPlan {
    /// The graph (owned, so the plan stands alone).
    pub graph: Graph,
    /// The schedule: the node ids to run, arguments first. Nodes the
    /// outputs do not need are left out.
    pub order: Vec<usize>,
    /// One entry per node of `graph`.
    pub nodes: Vec<NodePlan>,
    /// Number of slots.
    pub n_slots: usize,
    /// Slots that hold constants: filled once per binding of the sizes and
    /// never shared.
    pub pinned: Vec<bool>,
    /// The options the plan was made with.
    pub options: PlanOptions,
}

/// Storage that one result may occupy.
type Token = usize;

fn internal(g: &Graph, i: usize, what: &str) -> ExecError {
    ExecError::Op {
        span: g.span(NodeId(i)),
        op: g.nodes[i].op.name().to_string(),
        msg: format!("internal error: {what}"),
    }
}

/// The nodes the outputs need, in the graph's order, which is topological
/// (a node's arguments come before it; a graph breaking that is an
/// internal error). Reachability from the outputs is a depth-first search
/// over the reversed dependency graph (petgraph), so dead nodes never run.
fn schedule(g: &Graph) -> Result<Vec<usize>, ExecError> {
    let n = g.nodes.len();
    let mut dg: DiGraph<usize, ()> = DiGraph::with_capacity(n, n);
    let ids: Vec<_> = (0..n).map(|i| dg.add_node(i)).collect();
    for (i, node) in g.nodes.iter().enumerate() {
        for a in &node.args {
            if a.0 >= i {
                return Err(internal(g, i, "an argument comes after its reader"));
            }
            dg.add_edge(ids[a.0], ids[i], ());
        }
    }
    let mut needed = vec![false; n];
    let rev = Reversed(&dg);
    for o in &g.outputs {
        let Some(&start) = ids.get(o.0) else {
            return Err(internal(g, 0, "an output is not in the graph"));
        };
        let mut dfs = Dfs::new(rev, start);
        while let Some(x) = dfs.next(rev) {
            needed[x.index()] = true;
        }
    }
    // Parameters first: owned inputs are in their slots before anything runs.
    let (mut order, rest): (Vec<usize>, Vec<usize>) = (0..n)
        .filter(|&i| needed[i])
        .partition(|&i| matches!(g.nodes[i].op, Op::Input(_)));
    order.extend(rest);
    Ok(order)
}

/// Two static types that are certainly the same at run time.
fn same_type(a: &Type, b: &Type) -> bool {
    a.dtype == b.dtype
        && a.shape.len() == b.shape.len()
        && a.shape
            .iter()
            .zip(&b.shape)
            .all(|(x, y)| x == y && *x != Dim::Unknown)
}

impl GraphPlan {
    /// Compiles a program's graph; with `owned_inputs`, its inputs (not
    /// its shared variables) live in slots.
    pub fn compile_program(p: &Program, options: PlanOptions) -> Result<GraphPlan, ExecError> {
        let owned = if options.owned_inputs {
            p.n_inputs()
        } else {
            0
        };
        GraphPlan::compile_graph(&p.graph, options, owned)
    }

    /// Compiles `g`: schedule, storage, in-place decisions, and the loops
    /// inside it. With `owned_inputs`, every parameter lives in a slot.
    pub fn compile(g: &Graph, options: PlanOptions) -> Result<GraphPlan, ExecError> {
        let owned = if options.owned_inputs { g.n_params } else { 0 };
        GraphPlan::compile_graph(g, options, owned)
    }

    /// Compiles `g`; its first `owned` parameters are handed over.
    fn compile_graph(
        g: &Graph,
        options: PlanOptions,
        owned: usize,
    ) -> Result<GraphPlan, ExecError> {
        let n = g.nodes.len();
        let mut order = schedule(g)?;
        let roles: Vec<Role> = g
            .nodes
            .iter()
            .map(|node| {
                let out = node.ty.first().map(|t| t.dtype).unwrap_or(DType::F64);
                let arg0 = node.args.first().and_then(|a| g.nodes[a.0].ty.first());
                role(&node.op, arg0.map(|t| t.dtype), out)
            })
            .collect();
        let mut scheduled = vec![false; n];
        for &i in &order {
            scheduled[i] = true;
        }
        let (mut fusions, absorbed) = super::fusion::find(g, &roles, &scheduled, options);
        order.retain(|&i| !absorbed[i]);
        if fusions.iter().any(|f| f.is_some()) {
            order = super::fusion::reorder(g, &order, &fusions)
                .ok_or_else(|| internal(g, 0, "fused groups form a cycle"))?;
        }
        let mut pos = vec![usize::MAX; n];
        for (p, &i) in order.iter().enumerate() {
            pos[i] = p;
        }
        // A group's results are defined where the group runs.
        let mut defs: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
        for &i in &order {
            if let Some(f) = &fusions[i] {
                for &o in &f.outputs {
                    pos[o] = pos[i];
                }
                defs[i] = f.outputs.clone();
            }
        }
        // What each node reads: a fused root reads its group's leaves.
        let reads: Vec<Vec<usize>> = (0..n)
            .map(|i| match &fusions[i] {
                Some(f) => f.leaves.clone(),
                None => g.nodes[i].args.iter().map(|a| a.0).collect(),
            })
            .collect();

        // Roles, and the tokens each node defines and may live in.
        let mut nodes: Vec<NodePlan> = Vec::with_capacity(n);
        let mut own: Vec<Vec<Token>> = vec![Vec::new(); n];
        let mut lives_in: Vec<Vec<Token>> = vec![Vec::new(); n];
        let mut token_pos: Vec<usize> = Vec::new();
        let mut token_pinned: Vec<bool> = Vec::new();
        let mut token_ty: Vec<Type> = Vec::new();
        for (i, node) in g.nodes.iter().enumerate() {
            let r = roles[i];
            let compare_dtype = match (&node.op, node.args.as_slice()) {
                (Op::Compare(_), [a, b]) => {
                    let (ta, tb) = (g.nodes[a.0].ty(), g.nodes[b.0].ty());
                    Some(compare_dtype(ta.dtype, ta.weak, tb.dtype, tb.weak))
                }
                _ => None,
            };
            let scan = match &node.op {
                Op::Scan(s) if pos[i] != usize::MAX => Some(Box::new(ScanPlan::compile(
                    s,
                    PlanOptions {
                        owned_inputs: false,
                        ..options
                    },
                )?)),
                _ => None,
            };
            nodes.push(NodePlan {
                role: r,
                slots: Vec::new(),
                inplace: None,
                scan,
                compare_dtype,
                fusion: fusions[i].take().map(Box::new),
            });
            if pos[i] == usize::MAX {
                continue;
            }
            let mut new_token = |ty: &Type, pinned: bool| {
                token_pos.push(pos[i]);
                token_pinned.push(pinned);
                token_ty.push(ty.clone());
                token_pos.len() - 1
            };
            match r {
                Role::Param(k) => {
                    if k < owned {
                        let t = new_token(node.ty(), false);
                        own[i].push(t);
                        lives_in[i].push(t);
                    }
                }
                Role::Const | Role::Elementwise | Role::Update | Role::Fresh => {
                    let t = new_token(node.ty(), r == Role::Const);
                    own[i].push(t);
                    lives_in[i].push(t);
                }
                Role::View => {
                    let t = new_token(node.ty(), false);
                    own[i].push(t);
                    let Some(a) = node.args.first() else {
                        return Err(internal(g, i, "a view without an argument"));
                    };
                    let mut l = lives_in[a.0].clone();
                    l.push(t);
                    lives_in[i] = l;
                }
                Role::Loop => {
                    for ty in &node.ty {
                        let t = new_token(ty, false);
                        own[i].push(t);
                    }
                }
                Role::Proj(k) => {
                    let src = node.args.first().map(|a| a.0);
                    match src.and_then(|s| own[s].get(k).copied()) {
                        Some(t) if matches!(src.map(|s| nodes[s].role), Some(Role::Loop)) => {
                            lives_in[i].push(t)
                        }
                        _ => return Err(internal(g, i, "projection of a single value")),
                    }
                }
            }
        }

        // Liveness: the last position reading each token.
        let mut last = token_pos.clone();
        for &i in &order {
            for &a in &reads[i] {
                for &t in &lives_in[a] {
                    last[t] = last[t].max(pos[i]);
                }
            }
        }
        for o in &g.outputs {
            for &t in &lives_in[o.0] {
                last[t] = usize::MAX;
            }
        }
        for (t, &p) in token_pinned.iter().enumerate() {
            if p {
                last[t] = usize::MAX;
            }
        }

        // In-place: an elementwise node (or fused elementwise group), or
        // an update of argument 0, takes over the storage of an argument
        // that is a whole value of its type, read by nobody after — and
        // not seen through a view by another of its arguments (writing
        // the result would change what that view reads).
        if options.inplace {
            for &i in &order {
                let node = &g.nodes[i];
                // A fused group never overwrites its leaves.
                let fused = nodes[i].fusion.is_some();
                if !matches!(nodes[i].role, Role::Elementwise | Role::Update) || fused {
                    continue;
                }
                for j in destroy_map(nodes[i].role, reads[i].len()) {
                    let a = reads[i][j];
                    let whole = match nodes[a].role {
                        Role::Elementwise | Role::Update | Role::Fresh | Role::Proj(_) => true,
                        Role::Param(k) => k < owned,
                        Role::Const | Role::View | Role::Loop => false,
                    };
                    let [t] = lives_in[a][..] else { continue };
                    let seen_elsewhere =
                        reads[i].iter().any(|&b| b != a && lives_in[b].contains(&t));
                    if whole
                        && !seen_elsewhere
                        && !token_pinned[t]
                        && last[t] == pos[i]
                        && same_type(node.ty(), &token_ty[t])
                        && same_type(node.ty(), g.nodes[a].ty())
                    {
                        nodes[i].inplace = Some(j);
                        break;
                    }
                }
            }
        }

        // Slots: tokens whose lifetimes do not overlap share one.
        let mut slot_of: Vec<usize> = vec![usize::MAX; token_pos.len()];
        let mut busy: Vec<usize> = Vec::new();
        let mut slot_ty: Vec<Type> = Vec::new();
        let mut pinned: Vec<bool> = Vec::new();
        let mut free: Vec<usize> = Vec::new();
        let mut is_free: Vec<bool> = Vec::new();
        for (p, &i) in order.iter().enumerate() {
            for (d, k, t) in defs[i]
                .iter()
                .flat_map(|&d| own[d].iter().enumerate().map(move |(k, &t)| (d, k, t)))
            {
                let reuse = match nodes[i].inplace {
                    Some(j) if k == 0 && d == i => {
                        lives_in[reads[i][j]].first().map(|&a| slot_of[a])
                    }
                    _ => None,
                };
                let s = match reuse {
                    Some(s) => s,
                    None if token_pinned[t] => usize::MAX,
                    None => {
                        let ty = &token_ty[t];
                        let pick = free
                            .iter()
                            .position(|&s| same_type(&slot_ty[s], ty))
                            .or_else(|| free.iter().position(|&s| slot_ty[s].dtype == ty.dtype));
                        match pick {
                            Some(f) => free.swap_remove(f),
                            None => usize::MAX,
                        }
                    }
                };
                let s = if s == usize::MAX {
                    busy.push(0);
                    slot_ty.push(token_ty[t].clone());
                    pinned.push(token_pinned[t]);
                    is_free.push(false);
                    busy.len() - 1
                } else {
                    s
                };
                is_free[s] = false;
                busy[s] = if reuse.is_some() {
                    last[t]
                } else {
                    busy[s].max(last[t])
                };
                slot_ty[s] = token_ty[t].clone();
                slot_of[t] = s;
                nodes[d].slots.push(s);
            }
            // Free the slots whose last reader is this node.
            let mut release = |t: Token| {
                let s = slot_of[t];
                if s != usize::MAX && !pinned[s] && !is_free[s] && busy[s] == p {
                    is_free[s] = true;
                    free.push(s);
                }
            };
            for &a in &reads[i] {
                for &t in &lives_in[a] {
                    release(t);
                }
            }
            for &d in &defs[i] {
                for &t in &own[d] {
                    release(t);
                }
            }
        }
        Ok(GraphPlan {
            graph: g.clone(),
            order,
            nodes,
            n_slots: busy.len(),
            pinned,
            options,
        })
    }

    /// Number of in-place decisions in this graph and the loops inside it
    /// (for tests and reports).
    pub fn n_inplace(&self) -> usize {
        self.order
            .iter()
            .map(|&i| {
                self.nodes[i].inplace.is_some() as usize
                    + self.nodes[i]
                        .scan
                        .as_ref()
                        .map_or(0, |s| s.body.n_inplace())
            })
            .sum()
    }
}
