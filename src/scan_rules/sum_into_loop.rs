//! `scan-sum-into-loop`: the sum of an elementwise term of a loop's trace
//! is summed step by step inside the loop (the converse of
//! `scan-to-reduction`).
//!
//! With `H` output `j` of a forward loop `F` (every step kept) and `E` a
//! term of elementwise ops over `H`, values of `H`'s type that read no
//! loop input (other traces of `T` rows, such as the `Y` of
//! `sum(H ⊙ Y)`) and values of lower rank that read none either (they
//! broadcast against each row alike), `(sum E)` is
//! `Σ_t sum(E_t)`: `E_t` is `E` with `H` replaced by the step's value of
//! output `j` and each `T`-row value by its row `t`, read as a new
//! sequence. `F` gains a mapped output of the per-step sums (`T` scalars)
//! and `(sum E)` equals `(sum (proj n F'))`.
//!
//! Its use is memory: the trace `H` is then read only where it must be,
//! and `scan-checkpoint` can drop it (a loss `sum(H ⊙ Y)` of a gradient
//! program no longer holds the forward trace). Without a memory budget the
//! form it gives is rarely cheaper (a step's sum per row instead of one
//! pass), and the cost model decides. The sum is bracketed differently (per
//! step, then over the steps), as `scan-to-reduction` already allows.
//!
//! Does not fire on: a sum over one axis (only a full sum), a loop going
//! backwards (its trace's rows are steps, its sequences read reversed),
//! an output with `keep` or a mitmot's tape, a `T`-row value that reads a
//! loop input, integer or bool sums, a term deeper than
//! [`MAX_DEPTH`] ops.

use super::body::Target;
use super::build::{NewOutput, NewScan, NewSeq};
use super::scan_node::ScanNode;
use super::{proj, projs_in, union_checked, MAX_VARIANTS};
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::{DType, OutputInfo, ReduceOp, Type};
use egg::{Applier, Id, PatternAst, Rewrite, Subst, Symbol, Var};
use std::collections::BTreeMap;

/// The rule's name.
pub const NAME: &str = "scan-sum-into-loop";

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    Rewrite::new(
        NAME,
        super::ClassesWithHead(Head::Op(OpKind::Reduce(ReduceOp::Sum))),
        SumIntoLoop,
    )
}

/// The ops of a term the rule follows, at most, from the sum down.
pub const MAX_DEPTH: usize = 6;

struct SumIntoLoop;

impl Applier<TNode, TensorAnalysis> for SumIntoLoop {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        _subst: &Subst,
        _ast: Option<&PatternAst<TNode>>,
        rule: Symbol,
    ) -> Vec<Id> {
        let terms: Vec<Id> = egraph[eclass]
            .nodes
            .iter()
            .filter(|n| n.head == Head::Op(OpKind::Reduce(ReduceOp::Sum)) && n.children.len() == 1)
            .map(|n| n.children[0])
            .collect();
        let mut changed = Vec::new();
        for e in terms {
            if !egraph[e]
                .data
                .ty()
                .is_some_and(|t| matches!(t.dtype, DType::F64 | DType::F32))
            {
                continue;
            }
            for (j, s) in traces_in(egraph, e) {
                let loops: Vec<ScanNode> = ScanNode::all_in(egraph, s)
                    .into_iter()
                    .filter(|f| !f.sig.go_backwards && f.sig.keep.is_empty())
                    .filter(|f| !sums_already(egraph, f, eclass))
                    .take(MAX_VARIANTS)
                    .collect();
                for f in &loops {
                    let Some((all, last)) = sum_in_loop(egraph, f, j, e) else {
                        continue;
                    };
                    // The loop with the new output computes the old ones.
                    for k in 0..f.sig.outputs.len() {
                        let old = proj(egraph, f.class, k);
                        let new = proj(egraph, all, k);
                        if union_checked(egraph, rule, old, new) {
                            changed.push(old);
                        }
                    }
                    for new in [all, last] {
                        let out = proj(egraph, new, f.sig.outputs.len());
                        let sum = egraph.add(TNode {
                            head: Head::Op(OpKind::Reduce(ReduceOp::Sum)),
                            children: vec![out],
                        });
                        if union_checked(egraph, rule, eclass, sum) {
                            changed.push(eclass);
                        }
                    }
                }
            }
        }
        changed
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// True when a mapped output of `f` summed is already in `class` (the
/// rule built `f` itself, or a loop like it).
fn sums_already(egraph: &EGraph, f: &ScanNode, class: Id) -> bool {
    let class = egraph.find(class);
    (0..f.sig.outputs.len()).any(|k| {
        let Some(kl) = egraph.lookup(TNode::lit(crate::lang::Scalar::I64(k as i64))) else {
            return false;
        };
        let Some(p) = egraph.lookup(TNode {
            head: Head::Op(OpKind::Proj),
            children: vec![kl, f.class],
        }) else {
            return false;
        };
        egraph
            .lookup(TNode {
                head: Head::Op(OpKind::Reduce(ReduceOp::Sum)),
                children: vec![p],
            })
            .is_some_and(|s| egraph.find(s) == class)
    })
}

/// The `(proj j S)` of the term `e` (through elementwise ops, at most
/// [`MAX_DEPTH`] deep), each once.
fn traces_in(egraph: &EGraph, e: Id) -> Vec<(usize, Id)> {
    let mut found = Vec::new();
    let mut stack = vec![(egraph.find(e), 0)];
    let mut seen = Vec::new();
    while let Some((c, depth)) = stack.pop() {
        if seen.contains(&c) || depth > MAX_DEPTH {
            continue;
        }
        seen.push(c);
        for p in projs_in(egraph, c) {
            if !found.contains(&p) {
                found.push(p);
            }
        }
        for n in &egraph[c].nodes {
            if is_elementwise(n) {
                stack.extend(n.children.iter().map(|&k| (egraph.find(k), depth + 1)));
            }
        }
    }
    found
}

fn is_elementwise(n: &TNode) -> bool {
    matches!(
        n.head,
        Head::Op(OpKind::Unary(_)) | Head::Op(OpKind::Binary(_))
    )
}

/// What a class of `E` becomes in one step: a class of `F`'s body.
struct Lifter<'a> {
    f: &'a ScanNode,
    /// Output `j` of `F`, its trace class and the step's value.
    trace: Id,
    step_value: Id,
    /// The trace's type (`T` rows).
    trace_type: Type,
    /// `T`-row values read as new sequences: outer class → its position
    /// among the new sequences.
    seqs: BTreeMap<Id, usize>,
    /// Placeholder leaves standing for the new sequences' rows (replaced
    /// when the loop is built).
    placeholders: BTreeMap<Id, usize>,
}

impl Lifter<'_> {
    /// The step form of class `c`, built in `F`'s scope.
    fn lift(&mut self, egraph: &mut EGraph, c: Id, depth: usize) -> Option<Id> {
        let c = egraph.find(c);
        if c == egraph.find(self.trace) {
            return Some(self.step_value);
        }
        let ty = egraph[c].data.ty()?.clone();
        let closed = egraph[c].data.deps.is_empty();
        if closed && ty == self.trace_type && !self.reads_trace(egraph, c) {
            let k = self.seqs.len();
            let at = *self.seqs.entry(c).or_insert(k);
            // A leaf no body holds: an argument past every parameter.
            let step = Type::new(ty.dtype, ty.shape.get(1..)?.to_vec());
            let leaf = egraph.add(TNode::leaf(Head::Arg(PLACEHOLDER_BASE + at, step)));
            self.placeholders.insert(egraph.find(leaf), at);
            return Some(leaf);
        }
        if closed && ty.ndim() < self.trace_type.ndim() {
            return Some(c);
        }
        if depth >= MAX_DEPTH {
            return None;
        }
        let nodes: Vec<TNode> = egraph[c]
            .nodes
            .iter()
            .filter(|n| is_elementwise(n))
            .cloned()
            .collect();
        for n in nodes {
            let mut children = Vec::new();
            for &k in &n.children {
                match self.lift(egraph, k, depth + 1) {
                    Some(x) => children.push(x),
                    None => break,
                }
            }
            if children.len() == n.children.len() {
                return Some(egraph.add(TNode {
                    head: n.head.clone(),
                    children,
                }));
            }
        }
        None
    }

    /// True when every term of class `c` reads the trace (then it is not
    /// a sequence of its own: the loop cannot read what it computes). A
    /// class is free of the trace when one of its nodes has only free
    /// children; a cycle or a term deeper than [`MAX_FREE_DEPTH`] counts
    /// as reading it.
    fn reads_trace(&self, egraph: &EGraph, c: Id) -> bool {
        let mut memo = BTreeMap::new();
        !self.trace_free(egraph, c, 0, &mut memo)
    }

    fn trace_free(
        &self,
        egraph: &EGraph,
        c: Id,
        depth: usize,
        memo: &mut BTreeMap<Id, bool>,
    ) -> bool {
        let c = egraph.find(c);
        if let Some(&v) = memo.get(&c) {
            return v;
        }
        if c == egraph.find(self.trace) || depth > MAX_FREE_DEPTH {
            return false;
        }
        // In progress: a cycle through `c` is no term.
        memo.insert(c, false);
        let free = egraph[c].nodes.iter().any(|n| {
            let reads_loop = n.head == Head::Op(OpKind::Proj)
                && n.children.get(1).map(|s| egraph.find(*s)) == Some(self.f.class);
            !reads_loop
                && n.children
                    .iter()
                    .all(|&k| self.trace_free(egraph, k, depth + 1, memo))
        });
        memo.insert(c, free);
        free
    }
}

/// The depth to which [`Lifter::reads_trace`] looks for a term free of the
/// trace.
const MAX_FREE_DEPTH: usize = 24;

/// The first argument number of the placeholder leaves.
const PLACEHOLDER_BASE: usize = 1 << 20;

/// The loop `f` with a mapped output of `sum(E_t)` after its own, when
/// `e` lifts: keeping every step of `f`'s outputs, and keeping only the
/// last step of each sit-sot and mapped one (when the sum is all that is
/// read, the trace is not stored).
fn sum_in_loop(egraph: &mut EGraph, f: &ScanNode, j: usize, e: Id) -> Option<(Id, Id)> {
    if f.sig.go_backwards || !f.sig.keep.is_empty() {
        return None;
    }
    let info = f.sig.outputs.get(j)?;
    if info.is_mitmot() {
        return None;
    }
    let trace_type = f.output_types(egraph)?.get(j)?.clone();
    let trace = proj(egraph, f.class, j);
    let step_value = *f.body.get(f.sig.body_output_range(j).start)?;
    let mut lifter = Lifter {
        f,
        trace,
        step_value,
        trace_type,
        seqs: BTreeMap::new(),
        placeholders: BTreeMap::new(),
    };
    let step = lifter.lift(egraph, e, 0)?;
    let step_sum = egraph.add(TNode {
        head: Head::Op(OpKind::Reduce(ReduceOp::Sum)),
        children: vec![step],
    });
    let sum_type = egraph[step_sum].data.ty()?.clone();
    let mut spec = NewScan::like(egraph, f)?;
    let first_new = spec.sequences.len();
    let mut by_position: Vec<(usize, Id)> = lifter.seqs.iter().map(|(c, at)| (*at, *c)).collect();
    by_position.sort();
    for (_, outer) in &by_position {
        let ty = egraph[*outer].data.ty()?;
        spec.sequences.push(NewSeq {
            outer: *outer,
            taps: vec![0],
            step_type: Type::new(ty.dtype, ty.shape.get(1..)?.to_vec()),
        });
    }
    let n = spec.outputs.len();
    spec.outputs.push(NewOutput::mapped(sum_type, step_sum));
    let mut source = spec.source_of(f);
    for (leaf, at) in &lifter.placeholders {
        source
            .replace
            .insert(*leaf, Target::Param(spec.seq_param(first_new + at, 0)));
    }
    let all = spec.build(egraph, &[source.clone()])?;
    for o in spec.outputs.iter_mut().take(n) {
        if matches!(o.info, OutputInfo::Sitsot | OutputInfo::Nitsot) {
            o.keep = Some(1);
        }
    }
    let last = spec.build(egraph, &[source])?;
    Some((all, last))
}
