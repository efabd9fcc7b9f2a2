//! The identities of FractalTensor's functions (seed 003, issue 41) on
//! list programs, as a term-level pass: lists are not in the e-graph, so
//! `optimize` carries a list program through this pass instead of
//! saturating it (`docs/lists.md` "The identities").
//!
//! Owns: [`list_identities`], which fuses a loop that maps (`map`, or the
//! map inside `forall`) into the one loop that reads its result: `map f
//! (map g L)` is `map (f∘g) L`, and `reduce`/`foldl`/`scanl` ... of `map g
//! L` fold `g`'s result in the same step. The intermediate list (or the
//! stacked tensor a list of tensors is read as, `(stack (unstack X))`) is
//! never built, and one loop runs instead of two, over the same elements in
//! the same order, each step doing what the two steps did. Before fusing,
//! the list ops that undo one another are removed (`(stack (unstack X))`,
//! `(flatten (nest X L))`), so `forall` over a `forall` fuses too, and a
//! node that repeats an earlier one is merged into it
//! (`share_duplicates`: the parser writes a filter's operand twice). A
//! filter of a filter whose outer predicate cannot fail becomes one filter
//! (`fuse_filters`). Must not: run
//! anything, price anything (the caller, `optimize`, keeps the result only
//! when the cost model does not price it higher), or touch the e-graph.
//!
//! When it applies: the producer is a map (its sequences read at tap 0,
//! its one output mapped, forwards, no `n_steps`, no `until`, every step
//! kept) whose result has no other use; the consumer reads it as its one
//! sequence at tap 0 (forwards or backwards: a map's steps are
//! independent), with no `n_steps` and no `until`. The fused loop takes the
//! producer's sequences, so zipped lists still have their lengths checked
//! before the first step, and the step count is the same.

use crate::lang::op::{ListOp, Scalar};
use crate::lang::{Graph, LoopSig, Node, NodeId, Op, OutputInfo, Program, Scan};
use std::collections::{HashMap, HashSet};

/// `p` with every map fused into the loop that reads it (loop bodies
/// included), and how many fusions were made.
pub fn list_identities(p: &Program) -> (Program, usize) {
    let mut q = p.clone();
    let n = fuse_graph(&mut q.graph);
    (q, n)
}

/// Rewrites `g` and its loops' bodies; the count of rewrites made.
fn fuse_graph(g: &mut Graph) -> usize {
    let mut n = 0;
    for node in &mut g.nodes {
        if let Op::Scan(s) = &mut node.op {
            n += fuse_graph(&mut s.body);
        }
    }
    loop {
        let (shared, k) = share_duplicates(g);
        if k > 0 {
            *g = shared;
            n += k;
        }
        let (simpler, k) = simplify(g);
        if k > 0 {
            *g = prune(&simpler);
            n += k;
        }
        match fuse_once(g).or_else(|| fuse_filters(g)) {
            Some(fused) => {
                *g = fused;
                n += 1;
            }
            None => return n,
        }
    }
}

/// The list ops that undo one another: `(stack (unstack X))` is `X` (of
/// the same type), `(nest X (nest Y L))` is `(nest X L)` (only L's
/// nesting is read), and `(flatten (nest X L))` is `X` when L is a list of
/// lists and X a list of tensors (the tensors back in order), else `(nest
/// X (flatten L))` (one depth less). So `forall` over a `forall`'s result
/// reads the first one's map as a map over the same tensors, which
/// [`fuse_once`] then fuses. Returns the graph (dead nodes left in) and
/// how many were rewritten.
fn simplify(g: &Graph) -> (Graph, usize) {
    let mut out = Graph {
        n_params: g.n_params,
        ..Graph::default()
    };
    let mut map: Vec<NodeId> = Vec::with_capacity(g.nodes.len());
    let mut count = 0;
    for (i, src) in g.nodes.iter().enumerate() {
        let span = g.span(NodeId(i));
        let args: Vec<NodeId> = src.args.iter().map(|a| map[a.0]).collect();
        let arg = |k: usize| args.get(k).map(|a| out.node(*a));
        let replaced = match &src.op {
            Op::Stack if args.len() == 1 => arg(0)
                .filter(|u| u.op == Op::List(ListOp::Unstack))
                .and_then(|u| u.args.first().copied())
                .filter(|x| out.node(*x).ty == src.ty),
            // A nest's nesting is its second argument's.
            Op::List(ListOp::Nest) => arg(1)
                .filter(|n| n.op == Op::List(ListOp::Nest) && n.args.len() == 2)
                .map(|n| n.args[1])
                .map(|l| {
                    let node = Node {
                        args: vec![args[0], l],
                        ..src.clone()
                    };
                    out.push(node, span)
                }),
            Op::List(ListOp::Flatten) => match arg(0) {
                Some(n) if n.op == Op::List(ListOp::Nest) && n.args.len() == 2 => {
                    let (x, l) = (n.args[0], n.args[1]);
                    let lt = out.node(l).ty().clone();
                    if lt.list == 2 && out.node(x).ty == src.ty {
                        Some(x)
                    } else if lt.list >= 3 {
                        let flat = Node {
                            op: Op::List(ListOp::Flatten),
                            args: vec![l],
                            ty: vec![lt.element().strong()],
                            name: None,
                        };
                        let f = out.push(flat, span);
                        let nest = Node {
                            op: Op::List(ListOp::Nest),
                            args: vec![x, f],
                            ty: src.ty.clone(),
                            name: src.name.clone(),
                        };
                        Some(out.push(nest, span))
                    } else {
                        None
                    }
                }
                _ => None,
            },
            _ => None,
        };
        match replaced {
            Some(x) => {
                count += 1;
                map.push(x);
            }
            None => {
                let node = Node {
                    args,
                    ..src.clone()
                };
                map.push(out.push(node, span));
            }
        }
    }
    out.outputs = g.outputs.iter().map(|o| map[o.0]).collect();
    (out, count)
}

/// `g` with each node that repeats an earlier one (the same op, the same
/// arguments, the same type) replaced by that earlier one, and how many
/// were. Every op is a function of its arguments (random numbers too: they
/// read an explicit key), so the two compute the same value, and the
/// earlier one runs first: an error is raised where the written program
/// raises it. The parser writes such repeats: a filter reads its operand
/// twice, once in the mask's loop and once in `compress`, each parsed from
/// the text, so `filter p (filter q L)` computed the inner filter twice
/// and four nested filters ran fifteen loops. The e-graph merges them in
/// programs without lists; this does for list programs.
fn share_duplicates(g: &Graph) -> (Graph, usize) {
    let mut out = Graph {
        n_params: g.n_params,
        ..Graph::default()
    };
    let mut map: Vec<NodeId> = Vec::with_capacity(g.nodes.len());
    // The nodes kept so far, by op kind and arguments.
    let mut seen: HashMap<(std::mem::Discriminant<Op>, Vec<NodeId>), Vec<NodeId>> = HashMap::new();
    let mut count = 0;
    for (i, src) in g.nodes.iter().enumerate() {
        let args: Vec<NodeId> = src.args.iter().map(|a| map[a.0]).collect();
        let node = Node {
            args,
            ..src.clone()
        };
        if i < g.n_params {
            map.push(out.push(node, g.span(NodeId(i))));
            continue;
        }
        let key = (std::mem::discriminant(&node.op), node.args.clone());
        let same = seen.get(&key).and_then(|kept| {
            kept.iter()
                .copied()
                .find(|k| out.node(*k).op == node.op && out.node(*k).ty == node.ty)
        });
        match same {
            Some(k) => {
                count += 1;
                map.push(k);
            }
            None => {
                let k = out.push(node, g.span(NodeId(i)));
                seen.entry(key).or_default().push(k);
                map.push(k);
            }
        }
    }
    out.outputs = g.outputs.iter().map(|o| map[o.0]).collect();
    (out, count)
}

/// A map, as the producer of a fusion: sequences at tap 0, mapped
/// outputs, forwards, every step run and kept.
fn is_map(sig: &LoopSig) -> bool {
    !sig.sequences.is_empty()
        && sig.sequences.iter().all(|t| t == &[0])
        && sig.outputs.len() == 1
        && sig.outputs.iter().all(|o| *o == OutputInfo::Nitsot)
        && !sig.has_n_steps
        && !sig.go_backwards
        && !sig.until
        && sig.keep.iter().all(Option::is_none)
}

/// A loop that can take a map's step into its own: one sequence at tap
/// 0, every step run, no tape.
fn is_consumer(sig: &LoopSig) -> bool {
    sig.sequences.len() == 1
        && sig.sequences[0] == [0]
        && !sig.has_n_steps
        && !sig.until
        && sig.keep.iter().all(Option::is_none)
        && !sig.outputs.iter().any(OutputInfo::is_mitmot)
}

/// The map whose result `s` (a consumer's sequence) is, when nothing else
/// reads it: the map's node, and whether its step's tensor must become
/// the list of its rows (an output built as a list from a tensor).
fn producer(g: &Graph, s: NodeId, uses: &[usize]) -> Option<(NodeId, bool)> {
    let mut x = s;
    let mut restacked = false;
    // `(stack (unstack X))`: a list of tensors read as its rows.
    let n = g.node(x);
    if n.op == Op::Stack && n.args.len() == 1 && uses[x.0] == 1 {
        let u = n.args[0];
        let un = g.node(u);
        if un.op != Op::List(ListOp::Unstack) || uses[u.0] != 1 {
            return None;
        }
        x = un.args[0];
        restacked = true;
    }
    let pn = g.node(x);
    if pn.op != Op::Proj(0) || uses[x.0] != 1 {
        return None;
    }
    let a = *pn.args.first()?;
    let Op::Scan(sa) = &g.node(a).op else {
        return None;
    };
    if !is_map(&sa.sig) {
        return None;
    }
    let as_list = sa.sig.as_list.first().copied().unwrap_or(false);
    if restacked && as_list {
        return None;
    }
    let out_ty = sa.body.node(*sa.body.outputs.first()?).ty();
    Some((a, as_list && !out_ty.is_list()))
}

/// One fusion in `g`, as a new graph (the producer's nodes left out), or
/// `None` when there is none to make.
fn fuse_once(g: &Graph) -> Option<Graph> {
    let uses = g.use_counts();
    for (j, node) in g.nodes.iter().enumerate() {
        let Op::Scan(sb) = &node.op else { continue };
        if !is_consumer(&sb.sig) {
            continue;
        }
        let Some(&s) = node.args.first() else {
            continue;
        };
        let Some((a, unstack)) = producer(g, s, &uses) else {
            continue;
        };
        let Op::Scan(sa) = &g.node(a).op else {
            continue;
        };
        let (op, args) = fuse(sa, &g.node(a).args, sb, &node.args, unstack)?;
        let mut out = g.clone();
        out.nodes[j] = Node {
            op,
            args,
            ty: node.ty.clone(),
            name: node.name.clone(),
        };
        return Some(prune(&out));
    }
    None
}

/// The loop that runs `sa`'s step (outer arguments `a_args`) and then
/// `sb`'s on its result (outer arguments `b_args`), and its outer
/// arguments: the producer's sequences, the consumer's inits, the
/// producer's non-sequences, the consumer's that the producer does not
/// already take. `unstack`: the producer's step gives a tensor whose rows
/// the consumer reads as a list.
fn fuse(
    sa: &Scan,
    a_args: &[NodeId],
    sb: &Scan,
    b_args: &[NodeId],
    unstack: bool,
) -> Option<(Op, Vec<NodeId>)> {
    let (ab, bb) = (&sa.body, &sb.body);
    let n_seq = sa.sig.sequences.len();
    let k_a = sa.sig.n_non_seqs;
    let k_b = sb.sig.n_non_seqs;
    let n_inits = sb.sig.outputs.iter().filter(|o| o.is_state()).count();
    let n_state_params = bb.n_params.checked_sub(1 + k_b)?;
    if ab.n_params != n_seq + k_a || b_args.len() != 1 + n_inits + k_b {
        return None;
    }
    let a_non_seqs = &a_args[n_seq..];
    let b_non_seqs = &b_args[1 + n_inits..];
    let mut body = Graph::default();
    let mut names = HashSet::new();
    let mut a_map = vec![NodeId(0); ab.nodes.len()];
    let mut b_map = vec![NodeId(0); bb.nodes.len()];
    for (i, slot) in a_map.iter_mut().enumerate().take(n_seq) {
        *slot = copy_param(&mut body, ab, i, &mut names);
    }
    for i in 0..n_state_params {
        b_map[1 + i] = copy_param(&mut body, bb, 1 + i, &mut names);
    }
    for i in 0..k_a {
        a_map[n_seq + i] = copy_param(&mut body, ab, n_seq + i, &mut names);
    }
    let mut extra = Vec::new();
    for (i, outer) in b_non_seqs.iter().enumerate() {
        let at = 1 + n_state_params + i;
        b_map[at] = match a_non_seqs.iter().position(|x| x == outer) {
            Some(k) => a_map[n_seq + k],
            None => {
                extra.push(*outer);
                copy_param(&mut body, bb, at, &mut names)
            }
        };
    }
    body.n_params = body.nodes.len();
    copy_nodes(&mut body, ab, &mut a_map, &mut names);
    let a_out = a_map[ab.outputs.first()?.0];
    b_map[0] = if unstack {
        let node = Node {
            op: Op::List(ListOp::Unstack),
            args: vec![a_out],
            ty: bb.node(NodeId(0)).ty.clone(),
            name: None,
        };
        body.push(node, bb.span(NodeId(0)))
    } else {
        a_out
    };
    copy_nodes(&mut body, bb, &mut b_map, &mut names);
    body.outputs = bb.outputs.iter().map(|o| b_map[o.0]).collect();
    let sig = LoopSig {
        sequences: sa.sig.sequences.clone(),
        n_non_seqs: k_a + extra.len(),
        ..sb.sig.clone()
    };
    let mut args: Vec<NodeId> = a_args[..n_seq].to_vec();
    args.extend_from_slice(&b_args[1..1 + n_inits]);
    args.extend_from_slice(a_non_seqs);
    args.extend(extra);
    Some((Op::Scan(Box::new(Scan { sig, body })), args))
}

/// Filter fusion, `filter p (filter q X) = filter (q ∧ p) X`, where `p`
/// cannot fail: `(compress M2 (compress M1 X))`, `M1` the map of `q` over
/// `X` and `M2` the map of `p` over the kept rows, becomes `(compress M
/// X)`, `M` the map over `X` whose step computes both and keeps a row
/// where both hold, as `(where q p q)`. The fused loop computes `p` on the
/// rows `q` drops too, so it is made only when `p` is total
/// ([`never_fails`]): no error the written program never raises, and the
/// kept rows, their order and the values are the written ones. One loop
/// and one `compress` fewer; the first filter's rows are not built when
/// nothing else reads them. `None` when there is none to make.
fn fuse_filters(g: &Graph) -> Option<Graph> {
    for (c2, node) in g.nodes.iter().enumerate() {
        if node.op != Op::Compress {
            continue;
        }
        let [m2, y] = node.args[..] else { continue };
        let Some((loop2, sb)) = mask_loop(g, m2, y) else {
            continue;
        };
        let yn = g.node(y);
        if yn.op != Op::Compress {
            continue;
        }
        let [m1, x] = yn.args[..] else { continue };
        let Some((loop1, sa)) = mask_loop(g, m1, x) else {
            continue;
        };
        if !never_fails(&sb.body) {
            continue;
        }
        let Some((op, fused_args)) = conjoin(sa, &g.node(loop1).args, sb, &g.node(loop2).args)
        else {
            continue;
        };
        let mut out = Graph {
            n_params: g.n_params,
            ..Graph::default()
        };
        let mut map: Vec<NodeId> = Vec::with_capacity(g.nodes.len() + 2);
        for (i, src) in g.nodes.iter().enumerate() {
            let span = g.span(NodeId(i));
            let mut args: Vec<NodeId> = src.args.iter().map(|a| map[a.0]).collect();
            if i == c2 {
                // The fused mask's loop and projection, then `compress`
                // of the first filter's operand by it.
                let both = Node {
                    op: op.clone(),
                    args: fused_args.iter().map(|a| map[a.0]).collect(),
                    ty: g.node(loop1).ty.clone(),
                    name: None,
                };
                let both = out.push(both, span);
                let mask = Node {
                    op: Op::Proj(0),
                    args: vec![both],
                    ty: g.node(m1).ty.clone(),
                    name: None,
                };
                args = vec![out.push(mask, span), map[x.0]];
            }
            let node = Node {
                args,
                ..src.clone()
            };
            map.push(out.push(node, span));
        }
        out.outputs = g.outputs.iter().map(|o| map[o.0]).collect();
        return Some(prune(&out));
    }
    None
}

/// The loop whose mask `m` is, when it is a filter's: a map over `seq`
/// alone (its one sequence, at tap 0) whose step gives one bool scalar.
fn mask_loop(g: &Graph, m: NodeId, seq: NodeId) -> Option<(NodeId, &Scan)> {
    let mn = g.node(m);
    if mn.op != Op::Proj(0) {
        return None;
    }
    let l = *mn.args.first()?;
    let ln = g.node(l);
    let Op::Scan(s) = &ln.op else { return None };
    let out = s.body.node(*s.body.outputs.first()?).ty();
    let is_mask = is_map(&s.sig)
        && s.sig.sequences.len() == 1
        && ln.args.first() == Some(&seq)
        && ln.ty.len() == 1
        && s.body.outputs.len() == 1
        && out.dtype == crate::lang::DType::Bool
        && out.ndim() == 0
        && !out.is_list();
    is_mask.then_some((l, s))
}

/// The map over the first filter's operand whose step is `q`'s (loop
/// `sa`, outer arguments `a_args`) and `p`'s (loop `sb`, `b_args`) on the
/// same row, giving `(where q p q)`; and its outer arguments: the operand,
/// `q`'s captured values, then `p`'s that `q` does not already take.
fn conjoin(
    sa: &Scan,
    a_args: &[NodeId],
    sb: &Scan,
    b_args: &[NodeId],
) -> Option<(Op, Vec<NodeId>)> {
    let (ab, bb) = (&sa.body, &sb.body);
    let (k_a, k_b) = (sa.sig.n_non_seqs, sb.sig.n_non_seqs);
    if ab.n_params != 1 + k_a
        || bb.n_params != 1 + k_b
        || a_args.len() != 1 + k_a
        || b_args.len() != 1 + k_b
        || ab.node(NodeId(0)).ty != bb.node(NodeId(0)).ty
    {
        return None;
    }
    let mut body = Graph::default();
    let mut names = HashSet::new();
    let mut a_map = vec![NodeId(0); ab.nodes.len()];
    let mut b_map = vec![NodeId(0); bb.nodes.len()];
    for (i, slot) in a_map.iter_mut().enumerate().take(1 + k_a) {
        *slot = copy_param(&mut body, ab, i, &mut names);
    }
    b_map[0] = a_map[0];
    let mut extra = Vec::new();
    for (i, outer) in b_args[1..].iter().enumerate() {
        b_map[1 + i] = match a_args[1..].iter().position(|x| x == outer) {
            Some(k) => a_map[1 + k],
            None => {
                extra.push(*outer);
                copy_param(&mut body, bb, 1 + i, &mut names)
            }
        };
    }
    body.n_params = body.nodes.len();
    copy_nodes(&mut body, ab, &mut a_map, &mut names);
    copy_nodes(&mut body, bb, &mut b_map, &mut names);
    let q = a_map[ab.outputs.first()?.0];
    let p = b_map[bb.outputs.first()?.0];
    let both = Node {
        op: Op::Where,
        args: vec![q, p, q],
        ty: body.node(q).ty.clone(),
        name: None,
    };
    let span = bb.span(*bb.outputs.first()?);
    let both = body.push(both, span);
    body.outputs = vec![both];
    let sig = LoopSig {
        n_non_seqs: k_a + extra.len(),
        ..sa.sig.clone()
    };
    let mut args = a_args.to_vec();
    args.extend(extra);
    Some((Op::Scan(Box::new(Scan { sig, body })), args))
}

/// True when no node of the predicate `body` can fail at run time, on any
/// row of the right type: the ops below on operands whose sizes are all
/// known (so a broadcast was checked when the program was read), sums and
/// the like over anything (a sum over nothing is 0), `max`, `min`,
/// `argmax` and `argmin` only over known sizes above zero, `len`, `stack`
/// of a list of tensors of known sizes, and `index` by integer literals
/// within known sizes. Anything else (`take`, a loop, a solve, an index
/// into a list or a run-time size) may fail where the written program,
/// which never computes `p` on the rows `q` dropped, does not.
fn never_fails(body: &Graph) -> bool {
    use crate::lang::op::{ListOp, ReduceOp};
    use crate::lang::shape::Type;
    let known = |t: &Type| !t.is_list() && t.shape.iter().all(|d| d.as_known().is_some());
    let positive = |t: &Type| known(t) && t.shape.iter().all(|d| d.as_known() > Some(0));
    let ty = |a: &NodeId| body.node(*a).ty();
    body.nodes[body.n_params..].iter().all(|n| match &n.op {
        Op::Literal(_) | Op::Size(_) => true,
        Op::Unary(_) | Op::Binary(_) | Op::Compare(_) | Op::Where | Op::Clip | Op::Cast(_) => {
            n.args.iter().all(|a| known(ty(a)))
        }
        Op::Reduce(ReduceOp::Max | ReduceOp::Min | ReduceOp::Argmax | ReduceOp::Argmin, _) => {
            n.args.iter().all(|a| positive(ty(a)))
        }
        Op::Reduce(..) => n.args.iter().all(|a| !ty(a).is_list()),
        Op::List(ListOp::Len) => true,
        Op::Stack => {
            let t = n.ty();
            !t.is_list() && t.shape.iter().skip(1).all(|d| d.as_known().is_some())
        }
        Op::Index => match n.args.split_first() {
            Some((x, idx)) => {
                let xt = ty(x);
                known(xt)
                    && idx.len() <= xt.shape.len()
                    && idx.iter().zip(&xt.shape).all(|(i, d)| {
                        let size = d.as_known().unwrap_or(0);
                        matches!(body.node(*i).op, Op::Literal(Scalar::I64(k)) if -size <= k && k < size)
                    })
            }
            None => false,
        },
        _ => false,
    })
}

/// Appends parameter `i` of `src` to `body` as its next parameter (its
/// name made new in `names`).
fn copy_param(body: &mut Graph, src: &Graph, i: usize, names: &mut HashSet<String>) -> NodeId {
    let k = body.nodes.len();
    let n = src.node(NodeId(i));
    let node = Node {
        op: Op::Input(k),
        args: Vec::new(),
        ty: n.ty.clone(),
        name: n.name.as_ref().map(|s| unique(s, names)),
    };
    body.push(node, src.span(NodeId(i)))
}

/// Appends the nodes of `src` after its parameters to `body`, their
/// arguments through `map` (which records where each lands).
fn copy_nodes(body: &mut Graph, src: &Graph, map: &mut [NodeId], names: &mut HashSet<String>) {
    for i in src.n_params..src.nodes.len() {
        let n = src.node(NodeId(i));
        let node = Node {
            op: n.op.clone(),
            args: n.args.iter().map(|a| map[a.0]).collect(),
            ty: n.ty.clone(),
            name: n.name.as_ref().map(|s| unique(s, names)),
        };
        map[i] = body.push(node, src.span(NodeId(i)));
    }
}

/// `name`, or `name_K` with the first K that makes it new in `names`
/// (two bodies' names meet in one).
fn unique(name: &str, names: &mut HashSet<String>) -> String {
    let mut out = name.to_string();
    let mut k = 0;
    while names.contains(&out) {
        k += 1;
        out = format!("{name}_{k}");
    }
    names.insert(out.clone());
    out
}

/// `g` without the nodes nothing reads (its parameters and every
/// projection of a loop that stays are kept).
fn prune(g: &Graph) -> Graph {
    let n = g.nodes.len();
    let mut live = vec![false; n];
    live[..g.n_params].fill(true);
    for o in &g.outputs {
        live[o.0] = true;
    }
    for i in (0..n).rev() {
        if live[i] {
            for a in &g.nodes[i].args {
                live[a.0] = true;
            }
        }
    }
    for i in 0..n {
        if matches!(g.nodes[i].op, Op::Proj(_)) && g.nodes[i].args.iter().all(|a| live[a.0]) {
            live[i] = true;
        }
    }
    let mut map = vec![NodeId(0); n];
    let mut out = Graph {
        n_params: g.n_params,
        ..Graph::default()
    };
    for i in (0..n).filter(|&i| live[i]) {
        let src = g.node(NodeId(i));
        let node = Node {
            args: src.args.iter().map(|a| map[a.0]).collect(),
            ..src.clone()
        };
        map[i] = out.push(node, g.span(NodeId(i)));
    }
    out.outputs = g.outputs.iter().map(|o| map[o.0]).collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse_program;

    fn fused(src: &str) -> (Program, usize) {
        let p = parse_program(src).unwrap();
        list_identities(&p)
    }

    #[test]
    fn map_of_map_is_one_loop() {
        let (q, n) = fused(
            "(program p (input L (list (f64 3))) (input W (f64 3))
               (output (map (fn (x) (exp x)) (map (fn (x) (mul x W)) L))))",
        );
        assert!(n >= 1);
        assert_eq!(q.count_scans(), 1);
        // no (stack (unstack ...)) left between the loops
        let stacks = q.graph.nodes.iter().filter(|n| n.op == Op::Stack).count();
        assert_eq!(stacks, 1);
    }

    #[test]
    fn forall_of_forall_is_one_loop() {
        for l in ["(list (list (f64 3)))", "(list (list (list (f64 3))))"] {
            let (q, n) = fused(&format!(
                "(program p (input L {l}) (input W (f64 3))
                   (output (forall (fn (y) (exp y)) (forall (fn (x) (mul x W)) L))))"
            ));
            assert!(n >= 2, "{l}: {n}");
            assert_eq!(q.count_scans(), 1, "{l}");
            let nests = q
                .graph
                .nodes
                .iter()
                .filter(|n| n.op == Op::List(ListOp::Nest))
                .count();
            assert_eq!(nests, 1, "{l}");
            // the first forall's loop is gone, not kept for its nesting
            let scans = q.graph.nodes.iter().filter(|n| matches!(n.op, Op::Scan(_)));
            assert_eq!(scans.count(), 1, "{l}");
        }
    }

    #[test]
    fn a_map_read_twice_is_not_fused() {
        let (q, n) = fused(
            "(program p (input L (list (f64 3)))
               (let M (map (fn (x) (exp x)) L))
               (output (map (fn (x) (neg x)) M) (len M)))",
        );
        // (stack (unstack ...)) between them goes (n may be 1), the loops stay
        assert!(n <= 1);
        assert_eq!(q.count_scans(), 2);
    }
}
