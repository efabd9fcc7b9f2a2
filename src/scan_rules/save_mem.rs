//! `scan-save-mem` (PyTensor's ScanSaveMem): an output read only near its
//! end keeps only its last steps.
//!
//! The reader is modelled explicitly: `(index (proj k S) -m)` reads step
//! `n - m`, so it equals `(index (proj k S') -m)` where `S'` is `S` with
//! output k marked `(keep K)`, `K = max(m, the state's deepest tap)`: the
//! executor then keeps a ring buffer of K steps instead of all n. The
//! other outputs of `S` and `S'` are the same. Extraction keeps `S'` when
//! nothing else reads output k whole (the cost model counts the elements
//! a loop keeps).
//!
//! `scan-save-mem-unread` (while loops too: a state their condition reads
//! keeps the steps its taps read back) is the same trim for a state that
//! nothing reads
//! after the loop (its `proj` has no parent: PyTensor's "required orphan",
//! kept because another output's step reads it): every such state keeps
//! only the steps its taps read back, all in one variant, and the loop's
//! read outputs are unioned with the trimmed loop's. (An unread output no
//! other output reads is `scan-drop-output`'s.)
//!
//! A while loop is trimmed too (research §5.2: PyTensor's save-mem trims
//! while scans since pymc-devs/pytensor#178): its reader `-m` reads the
//! `m`-th step from the end of the steps that ran, which a ring of its
//! last K steps holds as well (or, when fewer than `m` ran, neither
//! holds: the same error). Its step count does not change, and its
//! condition is carried over unchanged ([`NewScan::like`]).
//!
//! Does not fire on: a mitmot's tape (its slots are not steps; PyTensor
//! never trims one either); a non-constant or non-negative index (reads from the
//! start need every step, or fewer steps, which is not this rule);
//! an output already keeping at most K steps; a loop whose known step
//! count is no more than K.

use super::build::NewScan;
use super::scan_node::ScanNode;
use super::{proj, union_checked, union_loop_forms, MAX_VARIANTS};
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, Lit, OpKind, TNode};
use crate::lang::Scalar;
use egg::{Applier, Id, Pattern, PatternAst, Subst, Symbol, Var};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    let lhs: Pattern<TNode> = "(index (proj ?k ?s) ?m)"
        .parse()
        .map_err(|e| format!("{e}"))?;
    egg::Rewrite::new("scan-save-mem", lhs, SaveMem { after_rows: false })
}

/// The rule for a reader of the output after rows put before it, `(index
/// (concat 0 A (proj k S)) -m)`: what a fold over a symbolic length reads
/// (`A` its init, the value after no step) and what PyTensor's untraced
/// states convert to. The last `m` rows of `(concat 0 A P)` are those of
/// `(concat 0 A P')` when `P'` holds the last `min(n, K)` of `P`'s `n`
/// rows with `K >= m`, so the same trim applies.
pub fn rewrite_after_rows() -> super::ScanRewrite {
    let lhs: Pattern<TNode> = "(index (concat ?axis ?a (proj ?k ?s)) ?m)"
        .parse()
        .map_err(|e| format!("{e}"))?;
    egg::Rewrite::new("scan-save-mem-after", lhs, SaveMem { after_rows: true })
}

/// The rule for states nothing reads after the loop.
pub fn rewrite_unread() -> super::ScanRewrite {
    super::per_scan_rule_while_too("scan-save-mem-unread", super::Reads::Context, keep_unread)
}

/// The applier of both readers: `after_rows` when the reader is `(index
/// (concat 0 A (proj k S)) -m)`, not `(index (proj k S) -m)`.
struct SaveMem {
    after_rows: bool,
}

/// True when nothing in the e-graph reads output `k` of `scan`.
fn unread(egraph: &EGraph, scan: &ScanNode, k: usize) -> bool {
    let Some(kl) = egraph.lookup(TNode::lit(Scalar::I64(k as i64))) else {
        return true;
    };
    egraph
        .lookup(TNode {
            head: Head::Op(OpKind::Proj),
            children: vec![kl, scan.class],
        })
        .is_none_or(|p| egraph[p].parents().len() == 0)
}

/// `scan` with every unread state keeping only the steps its taps read
/// back (see the module docs).
fn keep_unread(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    let Some(steps) = scan.steps(egraph) else {
        return changed;
    };
    let n = scan.sig.outputs.len();
    let trims: Vec<(usize, usize)> = (0..n)
        .filter_map(|k| {
            let info = &scan.sig.outputs[k];
            let depth = info.window().depth();
            let keep = depth.max(1);
            let trim = !info.is_mitmot()
                && depth > 0
                && scan.sig.kept(k).is_none_or(|kept| kept > keep)
                && steps.as_known().is_none_or(|s| s > keep as i64)
                && unread(egraph, scan, k);
            trim.then_some((k, keep))
        })
        .collect();
    // Every output unread: the loop itself is of no use, nothing to keep.
    if trims.is_empty() || (0..n).all(|k| unread(egraph, scan, k)) {
        return changed;
    }
    let Some(mut spec) = NewScan::like(egraph, scan) else {
        return changed;
    };
    for &(k, keep) in &trims {
        spec.outputs[k].keep = Some(keep);
    }
    let source = spec.source_of(scan);
    let Some(new) = spec.build(egraph, &[source]) else {
        return changed;
    };
    for i in (0..n).filter(|i| !trims.iter().any(|(k, _)| k == i)) {
        let old = proj(egraph, scan.class, i);
        let new_p = proj(egraph, new, i);
        if union_loop_forms(egraph, scan, rule, old, new_p) {
            changed.push(old);
        }
    }
    changed
}

fn int_of(egraph: &EGraph, c: Id) -> Option<i64> {
    egraph[c].nodes.iter().find_map(|n| match n.head {
        Head::Lit(Lit(Scalar::I64(v))) => Some(v),
        _ => None,
    })
}

impl Applier<TNode, TensorAnalysis> for SaveMem {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        subst: &Subst,
        _ast: Option<&PatternAst<TNode>>,
        rule: Symbol,
    ) -> Vec<Id> {
        let var = |v: &str| v.parse::<Var>().ok().and_then(|v| subst.get(v).copied());
        let (Some(k), Some(s), Some(m)) = (var("?k"), var("?s"), var("?m")) else {
            return Vec::new();
        };
        let (Some(k), Some(m)) = (int_of(egraph, k), int_of(egraph, m)) else {
            return Vec::new();
        };
        if k < 0 || m >= 0 {
            return Vec::new();
        }
        let (k, back) = (k as usize, (-m) as usize);
        // Rows before the output: only along the leading axis.
        let before = if self.after_rows {
            let (Some(axis), Some(a)) = (var("?axis"), var("?a")) else {
                return Vec::new();
            };
            if int_of(egraph, axis) != Some(0) {
                return Vec::new();
            }
            Some((axis, a))
        } else {
            None
        };
        let reader = Reader {
            k,
            back,
            m,
            before,
            class: eclass,
        };
        let mut changed = Vec::new();
        for scan in ScanNode::all_in_while_too(egraph, s)
            .iter()
            .take(MAX_VARIANTS)
        {
            changed.extend(keep_last(egraph, scan, &reader, rule));
        }
        changed
    }

    fn vars(&self) -> Vec<Var> {
        let vars: &[&str] = if self.after_rows {
            &["?axis", "?a", "?k", "?s", "?m"]
        } else {
            &["?k", "?s", "?m"]
        };
        vars.iter().filter_map(|v| v.parse().ok()).collect()
    }
}

/// A read of output `k`'s row `-m` (`back = -m` rows from the end), in
/// e-class `class`, after the rows `before` (`(axis, A)`) when the reader
/// is `(index (concat axis A (proj k S)) -m)`.
struct Reader {
    k: usize,
    back: usize,
    m: i64,
    before: Option<(Id, Id)>,
    class: Id,
}

fn keep_last(egraph: &mut EGraph, scan: &ScanNode, reader: &Reader, rule: Symbol) -> Vec<Id> {
    let (k, back, m) = (reader.k, reader.back, reader.m);
    let mut changed = Vec::new();
    let Some(info) = scan.sig.outputs.get(k) else {
        return changed;
    };
    // A mitmot's tape is never trimmed (its slots are not steps).
    if info.is_mitmot() {
        return changed;
    }
    // A state keeps at least the steps its taps read back.
    let need = info.window().depth().max(1);
    let keep = back.max(need);
    if scan.sig.kept(k).is_some_and(|kept| kept <= keep) {
        return changed;
    }
    let Some(steps) = scan.steps(egraph) else {
        return changed;
    };
    if steps.as_known().is_some_and(|n| n <= keep as i64) {
        return changed;
    }
    let Some(mut spec) = NewScan::like(egraph, scan) else {
        return changed;
    };
    spec.outputs[k].keep = Some(keep);
    let source = spec.source_of(scan);
    let Some(new) = spec.build(egraph, &[source]) else {
        return changed;
    };
    let mut p = proj(egraph, new, k);
    if let Some((axis, a)) = reader.before {
        p = egraph.add(TNode {
            head: Head::Op(OpKind::Concat),
            children: vec![axis, a, p],
        });
    }
    let ml = egraph.add(TNode::lit(Scalar::I64(m)));
    let read = egraph.add(TNode {
        head: Head::Op(OpKind::Index),
        children: vec![p, ml],
    });
    if union_checked(egraph, rule, reader.class, read) {
        changed.push(reader.class);
    }
    for i in 0..scan.sig.outputs.len() {
        if i != k {
            let old = proj(egraph, scan.class, i);
            let new_p = proj(egraph, new, i);
            if union_loop_forms(egraph, scan, rule, old, new_p) {
                changed.push(old);
            }
        }
    }
    changed
}
