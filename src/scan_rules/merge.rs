//! `scan-merge` (PyTensor's ScanMerge): two independent loops with the same
//! step count become one loop computing both.
//!
//! The merged loop takes both loops' inputs (an input both take is passed
//! once, so their common step work becomes one e-class and is paid once)
//! and has both loops' outputs; each old `proj` is unioned with the merged
//! loop's. Step counts are equal when the analysis gives both loops the
//! same size (the same constant or the same symbol).
//!
//! A forward loop and a `go_backwards` one (a bidirectional RNN's two
//! halves) merge into a forward loop in which the backward loop's
//! sequences are read reversed, at their taps negated: its step `t` still
//! reads what it read, so its outputs, which are in its own step order,
//! are unchanged ([`run_forwards`]).
//!
//! Loops that keep only their last steps (`scan-save-mem` variants) are not
//! merged: their full versions are, and save-mem applies to the result.
//!
//! While loops: two while loops merge only when their conditions are one
//! term over the same inputs once both bodies are in the merged loop (the
//! same sequences at the same taps, the same non-sequences; a condition
//! that reads a state never is, each loop's states being its own), and
//! their step bounds are equal: then both stop at the same step, and the
//! merged loop runs exactly the steps each ran. A while loop and a for
//! loop never merge (research §5.2; PyTensor's `belongs_to_set`).
//!
//! Loops nested in a body merge too (catalogue E7(d)): two loops are
//! paired when both read only top-level values (the merged loop is then
//! valid anywhere), or when both read an inner input and are used in
//! exactly the same bodies ([`super::scope`]: an `(arg k)` leaf is shared
//! by every body with an input `k` of its type, so this is found by
//! walking each scan node's body, not by looking at the loops). Then the
//! merged loop's inputs, both loops', are valid in every body that can
//! use it, and it lives there: a nested while-loop pair merges under the
//! same condition rule as a top-level one. A nested loop is never paired
//! with a top-level one, nor with a loop of another body, however alike
//! their inputs look.
//!
//! Does not fire on: a loop with a mitmot (its body results do not line
//! up with its outputs; PyTensor concatenates mitmot groups, eqscan leaves
//! them alone); loops where one reads the other (directly or through
//! other values: merging would make a cycle), different step counts,
//! loops in different scopes (above), two loops whose outputs one loop
//! already computes (their merge, or the loop `scan-drop-output` split
//! them from).
//!
//! Which loops read which is computed once per application, for the whole
//! e-graph ([`super::reach::ScanReach`]), not once per pair; so are the
//! bodies nested loops are used in, when two loops read inner inputs.

use super::build::NewScan;
use super::reach::ScanReach;
use super::scan_node::ScanNode;
use super::scope::{LoopScopes, Scope};
use super::{proj, projs_in, union_loop_forms, MAX_MERGED_OUTPUTS};
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::Scalar;
use egg::{Applier, Id, PatternAst, Rewrite, Subst, Symbol, Var};
use std::collections::BTreeSet;

/// Loop variants of each class that are paired, at most.
const PAIRED_VARIANTS: usize = 1;

/// Matches once per e-graph (the root's class): the applier pairs every
/// two loops itself, so the classes valid at the top level are computed
/// once per iteration, not once per loop.
struct Once;

impl egg::Searcher<TNode, TensorAnalysis> for Once {
    fn search_eclass_with_limit(
        &self,
        egraph: &EGraph,
        eclass: Id,
        limit: usize,
    ) -> Option<egg::SearchMatches<'_, TNode>> {
        let first_scan = egraph
            .classes()
            .filter(|c| c.nodes.iter().any(|n| matches!(n.head, Head::Scan(_))))
            .map(|c| c.id)
            .min()?;
        (limit > 0 && egraph.find(eclass) == first_scan).then(|| egg::SearchMatches {
            eclass,
            substs: vec![Subst::default()],
            ast: None,
        })
    }

    fn search_with_limit(
        &self,
        egraph: &EGraph,
        limit: usize,
    ) -> Vec<egg::SearchMatches<'_, TNode>> {
        let first_scan = egraph
            .classes()
            .filter(|c| c.nodes.iter().any(|n| matches!(n.head, Head::Scan(_))))
            .map(|c| c.id)
            .min();
        match first_scan {
            Some(c) if limit > 0 => self
                .search_eclass_with_limit(egraph, c, limit)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    Rewrite::new("scan-merge", Once, Merge)
}

struct Merge;

/// True when `a` and `b` are one loop that keeps different steps of its
/// outputs (save-mem variants): merging them would compute it twice.
fn same_loop(a: &ScanNode, b: &ScanNode) -> bool {
    let strip = |s: &ScanNode| {
        let mut sig = s.sig.clone();
        sig.keep.clear();
        sig
    };
    a.body == b.body && a.args == b.args && strip(a) == strip(b)
}

/// The loop classes that compute an output of `s` (a `proj` of theirs is
/// in the class of one of `s`'s), `s`'s own class included.
fn loops_computing(egraph: &EGraph, s: &ScanNode) -> BTreeSet<Id> {
    let mut loops = BTreeSet::from([s.class]);
    for k in 0..s.body.len() {
        let Some(kl) = egraph.lookup(TNode::lit(Scalar::I64(k as i64))) else {
            continue;
        };
        let Some(p) = egraph.lookup(TNode {
            head: Head::Op(OpKind::Proj),
            children: vec![kl, s.class],
        }) else {
            continue;
        };
        loops.extend(projs_in(egraph, p).into_iter().map(|(_, c)| c));
    }
    loops
}

/// The classes that have a term reading no inner input (valid at the top
/// level of a program).
pub fn closed_classes(egraph: &EGraph) -> BTreeSet<Id> {
    let mut closed = BTreeSet::new();
    loop {
        let mut grew = false;
        for class in egraph.classes() {
            if closed.contains(&class.id) {
                continue;
            }
            let ok = class.nodes.iter().any(|n| {
                !matches!(n.head, Head::Arg(..))
                    && super::body::scoped_children(n)
                        .iter()
                        .all(|c| closed.contains(&egraph.find(*c)))
            });
            if ok {
                closed.insert(class.id);
                grew = true;
            }
        }
        if !grew {
            return closed;
        }
    }
}

/// The loop computing `a`'s outputs then `b`'s; `b_seq_from_a` makes one
/// of `b`'s sequence parameters read a class of `a`'s body instead (see
/// `scan-fuse`).
pub fn merged(
    egraph: &mut EGraph,
    a: &ScanNode,
    b: &ScanNode,
    b_seq_from_a: Option<(usize, Id)>,
) -> Option<Id> {
    let mut spec = NewScan::like(egraph, a)?;
    let mut sb = NewScan::like(egraph, b)?;
    if sb.steps != spec.steps {
        return None;
    }
    // Two while loops stop at the same step only when their conditions
    // are one term over the same inputs (checked when the merged body is
    // built); a while loop and a for loop never merge.
    match (spec.until, sb.until) {
        (None, None) => {}
        (Some(_), Some((_, cb))) if b_seq_from_a.is_none() => spec.same_until.push((1, cb)),
        _ => return None,
    }
    // A forward loop and one going backwards: the merged loop goes
    // forwards, and the other reads its sequences reversed.
    if sb.go_backwards != spec.go_backwards {
        if b_seq_from_a.is_some() {
            return None;
        }
        if spec.go_backwards {
            run_forwards(egraph, &mut spec);
        } else {
            run_forwards(egraph, &mut sb);
        }
    }
    let (n_seq, n_out, n_ns) = (
        spec.sequences.len(),
        spec.outputs.len(),
        spec.non_seqs.len(),
    );
    spec.sequences.extend(sb.sequences);
    spec.outputs.extend(sb.outputs.into_iter().map(|mut o| {
        o.body.iter_mut().for_each(|b| b.0 = 1);
        o
    }));
    spec.non_seqs.extend(sb.non_seqs);
    spec.n_steps = spec.n_steps.or(sb.n_steps);
    let src_a = spec.source_of(a);
    let mut src_b = spec.source_at(b, n_seq, &|i| Some(n_out + i), n_ns);
    if let Some((param, class)) = b_seq_from_a {
        *src_b.params.get_mut(param)? = Some(super::body::Target::From(0, class));
    }
    spec.build(egraph, &[src_a, src_b])
}

/// Makes `spec`, a loop going backwards, the same loop going forwards:
/// each sequence reversed, read at its taps negated (in the same order, so
/// the body's parameters keep their places). Going backwards, step `t`
/// reads row `len - 1 - (hi - tap) - t` of a sequence whose taps span
/// `lo..=hi`; forwards over the reversed sequence with taps `-T` it reads
/// row `t + hi - tap` of it, the same row. The outputs are unchanged: a
/// loop's outputs are in its own step order either way, and only the
/// sequences follow the direction (a mitmot's slots do not, but loops
/// with one are not merged).
fn run_forwards(egraph: &mut EGraph, spec: &mut NewScan) {
    for s in spec.sequences.iter_mut() {
        s.outer = super::vectorize::reversed(egraph, s.outer);
        s.taps.iter_mut().for_each(|t| *t = -*t);
    }
    spec.go_backwards = false;
}

/// Unions every output of `a` and `b` with the merged loop's (for while
/// loops, whose outputs' lengths are known only at run time, the merged
/// loop stops at the same step: see [`merged`]).
pub fn union_outputs(
    egraph: &mut EGraph,
    rule: Symbol,
    a: &ScanNode,
    b: &ScanNode,
    m: Id,
) -> Vec<Id> {
    let mut changed = Vec::new();
    let pairs: Vec<(Id, usize)> = (0..a.body.len())
        .map(|k| (a.class, k))
        .chain((0..b.body.len()).map(|k| (b.class, k)))
        .collect();
    for (i, (s, k)) in pairs.into_iter().enumerate() {
        let old = proj(egraph, s, k);
        let new = proj(egraph, m, i);
        let scan = if s == a.class { a } else { b };
        if union_loop_forms(egraph, scan, rule, old, new) {
            changed.push(old);
        }
    }
    changed
}

/// Where a loop may be paired: with the loops whose inputs are all
/// top-level values, or with those used in the same bodies
/// ([`super::scope`]), an index into the distinct sets of bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Group {
    TopLevel,
    Bodies(usize),
}

/// For each loop class of `scans`, the variants that are paired
/// ([`PAIRED_VARIANTS`] at most) and the group they are paired in (`None`:
/// not paired).
///
/// A loop whose inputs are all closed (valid at the top level) is paired
/// with the others like it: their merged loop is closed too, valid
/// wherever either was. Any other loop reads an inner input of a body it
/// sits in; it is paired only with the loops used in exactly the same
/// bodies, and never at the top level (research §5.2, catalogue E7(d)).
/// Both being reachable from every body that uses either, the merged
/// loop's inputs (theirs) are valid wherever it can replace one of them,
/// and it computes nothing a body did not compute already. Loops in two
/// bodies whose inputs look alike (`(arg k)` is one leaf for every body)
/// are in different groups; so are a nested loop and a top-level one.
fn paired_variants(
    egraph: &EGraph,
    scans: &[Id],
    closed: &BTreeSet<Id>,
) -> (Vec<Vec<ScanNode>>, Vec<Option<Group>>) {
    // A loop with a mitmot is not merged: its body results do not line up
    // with its outputs, and a merged loop would interleave tapes.
    let top_level = |s: &ScanNode| !s.sig.has_mitmot() && s.args.iter().all(|a| closed.contains(a));
    let nested = |s: &ScanNode| !s.sig.has_mitmot() && !s.args.iter().all(|a| closed.contains(a));
    let mut variants = Vec::with_capacity(scans.len());
    let mut group = Vec::with_capacity(scans.len());
    for c in scans {
        let all = ScanNode::all_in_while_too(egraph, *c);
        let top: Vec<ScanNode> = all
            .iter()
            .filter(|s| top_level(s))
            .take(PAIRED_VARIANTS)
            .cloned()
            .collect();
        if top.is_empty() {
            let inner: Vec<ScanNode> = all
                .into_iter()
                .filter(nested)
                .take(PAIRED_VARIANTS)
                .collect();
            group.push(None);
            variants.push(inner);
        } else {
            group.push(Some(Group::TopLevel));
            variants.push(top);
        }
    }
    // Nested loops are grouped by the bodies they are used in; the walk is
    // made only when two of them might pair.
    let inner: Vec<usize> = (0..scans.len())
        .filter(|i| group[*i].is_none() && !variants[*i].is_empty())
        .collect();
    if inner.len() >= 2 {
        let loops: Vec<Id> = inner.iter().map(|i| scans[*i]).collect();
        let scopes = LoopScopes::new(egraph, &loops);
        let mut sets: Vec<BTreeSet<Scope>> = Vec::new();
        for i in inner {
            let Some(set) = scopes.of(egraph, scans[i]) else {
                break;
            };
            if set.is_empty() || set.contains(&Scope::Top) {
                continue;
            }
            let k = sets.iter().position(|s| *s == set).unwrap_or_else(|| {
                sets.push(set);
                sets.len() - 1
            });
            group[i] = Some(Group::Bodies(k));
        }
    }
    (variants, group)
}

impl Applier<TNode, TensorAnalysis> for Merge {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        _eclass: Id,
        _subst: &Subst,
        _ast: Option<&PatternAst<TNode>>,
        rule: Symbol,
    ) -> Vec<Id> {
        let scans: Vec<Id> = egraph
            .classes()
            .filter(|c| c.nodes.iter().any(|n| matches!(n.head, Head::Scan(_))))
            .map(|c| c.id)
            .collect();
        if scans.len() < 2 {
            return Vec::new();
        }
        let closed = closed_classes(egraph);
        let reach = ScanReach::new(egraph);
        // Whether `to` is reachable from one of `from`; a class the table
        // does not know of is assumed reachable (no merge).
        let reads =
            |egraph: &EGraph, from: &[Id], to: Id| reach.reaches(egraph, from, to).unwrap_or(true);
        let (variants, group) = paired_variants(egraph, &scans, &closed);
        // Per variant, the loops computing one of its outputs: two loops
        // one loop already computes outputs of are not merged again (it
        // is their merge, or more; e.g. when `scan-drop-output` split it).
        let computing: Vec<Vec<BTreeSet<Id>>> = variants
            .iter()
            .map(|vs| vs.iter().map(|s| loops_computing(egraph, s)).collect())
            .collect();
        let steps: Vec<Vec<Option<crate::lang::Dim>>> = variants
            .iter()
            .map(|vs| vs.iter().map(|s| s.steps(egraph)).collect())
            .collect();
        // Every pair that may merge; the one with the most outputs is
        // merged (one merge per iteration, largest first, so n loops merge
        // in a chain instead of into every subset).
        let mut pairs: Vec<(usize, ScanNode, ScanNode)> = Vec::new();
        // The cheap tests first: many loops of one body may share a group
        // (a checkpointed loop's bodies hold hundreds).
        for (i, mine) in variants.iter().enumerate() {
            if group[i].is_none() {
                continue;
            }
            for (ai, a) in mine.iter().enumerate() {
                if !a.sig.keep.is_empty() {
                    continue;
                }
                for (j, theirs) in variants.iter().enumerate().skip(i + 1) {
                    if group[i] != group[j] {
                        continue;
                    }
                    let mut a_reads_j = None;
                    for (bi, b) in theirs.iter().enumerate() {
                        let size = a.body.len() + b.body.len();
                        if steps[i][ai] != steps[j][bi]
                            || !b.sig.keep.is_empty()
                            || size > MAX_MERGED_OUTPUTS
                            || same_loop(a, b)
                            || !computing[i][ai].is_disjoint(&computing[j][bi])
                        {
                            continue;
                        }
                        if egraph.analysis.out_of_time() {
                            return Vec::new();
                        }
                        if *a_reads_j.get_or_insert_with(|| reads(egraph, &a.args, scans[j]))
                            || reads(egraph, &b.args, a.class)
                        {
                            continue;
                        }
                        pairs.push((size, a.clone(), b.clone()));
                    }
                }
            }
        }
        // Stable sort: among equal sizes, the first pair found.
        pairs.sort_by_key(|p| std::cmp::Reverse(p.0));
        for (_, a, b) in pairs {
            if let Some(m) = merged(egraph, &a, &b, None) {
                let changed = union_outputs(egraph, rule, &a, &b, m);
                if !changed.is_empty() {
                    return changed;
                }
            }
        }
        Vec::new()
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}
