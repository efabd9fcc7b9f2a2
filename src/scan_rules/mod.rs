//! The Scan rewrites, as saturation rules: one file each.
//!
//! Owns: every rewrite that looks inside a loop, and the machinery they
//! share — [`scan_node`] (a scan node taken apart), [`body`] (re-scoping a
//! body by extract-and-reinsert), [`build`] (adding a new scan, with unused
//! and duplicate inputs tidied away), [`vectorize`] (a step's term as a
//! term over all steps), [`reach`] and [`scope`] (which loops a value
//! reads, and which bodies a loop is used in). Must not: duplicate the e-graph analysis (types,
//! constants and dependence sets come from [`crate::egraph::analysis`]).
//!
//! A loop with a MIT-MOT tape has one body result per out tap of the tape,
//! so body results are not outputs: a rewrite either maps them through
//! [`crate::lang::LoopSig::body_outputs`] or refuses such loops (each file
//! says which; research §2.4 of the shared notes lists PyTensor's choices).
//!
//! A while loop (`until`, SPEC §1) is seen only by the rewrites that
//! decode it on purpose ([`scan_node::ScanNode::decode_while_too`]); the
//! decoding every other rewrite starts from
//! ([`scan_node::ScanNode::decode`]) refuses it, so none changes the
//! number of steps it runs, pushes an output out of it or merges it with
//! another loop. Research §5.2 lists what is allowed (hoisting invariant
//! work, trimming traces keeping the last step that ran, pushing out
//! outputs that do not feed the condition, merging identical conditions
//! over identical inputs); a rewrite that accepts while loops says so in
//! its file, with a case where it fires on one and one where it must not.
//! Today: `scan-save-mem`, `scan-save-mem-unread`, `scan-push-out-nonseq`,
//! `scan-push-out-output`, `scan-drop-output` and `scan-merge`
//! (`tests/cases/scan_rules/{eq,neg}_while_*`, `pt_e6_*`).
//!
//! Each rewrite keeps both forms in the e-graph — the loop and what it
//! becomes — so the cost model, not an order of passes, decides. A rewrite
//! unions two classes only when their types (shapes included) are equal;
//! otherwise it is counted in `rules_refused` and not applied.
//!
//! | rule | what it does |
//! |---|---|
//! | `scan-push-out-nonseq` | loop-invariant sub-terms become new non-sequences; an invariant output becomes a broadcast |
//! | `scan-push-out-seq` | sub-terms of sequences and non-sequences become new sequences computed on the whole sequence; such an output becomes that term |
//! | `scan-push-out-output` | an output computed from other outputs' step values is computed after the loop |
//! | `scan-inline-constants` | constant outer inputs move into the body |
//! | `scan-tidy-inputs` | unused sequences and non-sequences are dropped, inputs given twice passed once |
//! | `scan-drop-output` | an output no other output reads is split off |
//! | `scan-merge-outputs` | outputs with the same step term are one |
//! | `scan-merge` | independent loops with the same steps become one (a `go_backwards` one reads its sequences reversed) |
//! | `scan-fuse` | a map over another loop's output reads that loop's step value |
//! | `scan-to-reduction` | `state ⊕ f(x_t)` read only at its end is a reduction; read at every step, a cumsum / cumprod |
//! | `scan-accumulator-out` | an accumulator `acc + f_t` that the recurrence does not read becomes a stacked output, summed after the loop in the loop's order |
//! | `scan-accumulator-sum` | accumulators read only at their end leave the loop together: each is its init plus a sum over all steps of stacked operands (a weight gradient's `Σ x_tᵀ g_t` one product) |
//! | `scan-mitmot-to-carry` | a mitmot tape with in taps (0 1) and out tap (1) is a sit-sot carry and a sequence of the tape's rows |
//! | `sum-outer-products` | a sum over the step axis of stacked outer products `a_t b_tᵀ` is one matrix product `Aᵀ B` |
//! | `sum-matmul-steps` | a sum over the step axis of stacked matrix products `A_t B_t` is one matrix product over all steps |
//! | `scan-stack-factor` | the state-reading factor of a per-step product becomes a stacked output, so the product can be done after the loop |
//! | `scan-checkpoint` | a backward loop reading a forward loop's trace recomputes it segment by segment from checkpoints (added under a memory budget only) |
//! | `scan-read-trace` | a backward loop that recomputes its forward loop's step reads the forward trace instead |
//! | `scan-store-prev-products` | a product of a sit-sot's previous value, done again over all steps after the loop, is the loop's stacked product (a new mapped output) |
//! | `scan-sum-into-loop` | the sum of an elementwise term of a loop's trace is summed step by step in the loop (added under a memory budget only) |
//! | `scan-save-mem` | an output read only at `-m` from its end keeps its last steps only (`(keep K)`) |
//! | `scan-save-mem-unread` | a state nothing reads after the loop keeps only the steps its taps read back |

pub mod accumulator;
pub mod accumulator_sum;
pub mod body;
pub mod build;
pub mod checkpoint;
pub mod drop_output;
pub mod fuse;
pub mod hoist;
pub mod inline_constants;
pub mod memo;
pub mod merge;
pub mod merge_outputs;
pub mod mitmot_carry;
pub mod outer_sum;
pub mod push_out_nonseq;
pub mod push_out_output;
pub mod push_out_seq;
pub mod reach;
pub mod read_trace;
pub mod save_mem;
pub mod scan_node;
pub mod scope;
pub mod seen;
pub mod stack_factor;
pub mod store_prev;
pub mod store_values;
pub mod sum_into_loop;
pub mod sum_matmul;
pub mod terms;
pub mod tidy_inputs;
pub mod to_linrec;
pub mod to_reduction;
pub mod translate;
pub mod vectorize;

use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::{Dim, Scalar};
use egg::{Applier, Id, PatternAst, Rewrite, SearchMatches, Searcher, Subst, Symbol, Var};

/// Matches every class holding a node with head `.0` (the applier takes
/// the nodes apart itself): `proj` for the rules that rewrite one loop
/// output, `sum` for the ones that rewrite a reduction of a loop's output.
#[derive(Clone, Debug)]
pub struct ClassesWithHead(pub Head);

impl Searcher<TNode, TensorAnalysis> for ClassesWithHead {
    fn search_eclass_with_limit(
        &self,
        egraph: &EGraph,
        eclass: Id,
        limit: usize,
    ) -> Option<SearchMatches<'_, TNode>> {
        let has = egraph[eclass].nodes.iter().any(|n| n.head == self.0);
        (limit > 0 && has).then(|| SearchMatches {
            eclass,
            substs: vec![Subst::default()],
            ast: None,
        })
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// What a per-scan rule does to one scan node: the classes it changed.
pub type ScanFn = fn(&mut EGraph, &scan_node::ScanNode, Symbol) -> Vec<Id>;

/// The applier of a rule that examines each scan node of a matched class
/// (at most [`MAX_VARIANTS`] of them).
#[derive(Clone)]
pub struct PerScan {
    /// What the rule does to one scan node.
    pub rule: ScanFn,
    /// Which loops it sees.
    pub loops: Loops,
    /// What its result depends on.
    pub reads: Reads,
}

/// What a per-scan rule's result depends on besides the scan node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// Only what the scan node reaches (its inputs and its body): the
    /// rule gives the same result on a node whose reach has not changed,
    /// so a node it has seen unchanged is skipped ([`seen`]).
    Loop,
    /// Also how the loop's outputs are used, or other loops: the rule
    /// examines the node in every iteration.
    Context,
}

/// Which loops a rule built by [`per_scan_rule`] sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loops {
    /// For loops only.
    For,
    /// While loops too (the rule keeps their step count and condition).
    WhileToo,
}

impl Applier<TNode, TensorAnalysis> for PerScan {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        _subst: &Subst,
        _ast: Option<&PatternAst<TNode>>,
        rule: Symbol,
    ) -> Vec<Id> {
        if applications_stopped(egraph) {
            return Vec::new();
        }
        let scans = match self.loops {
            Loops::For => scan_node::ScanNode::all_in(egraph, eclass),
            Loops::WhileToo => scan_node::ScanNode::all_in_while_too(egraph, eclass),
        };
        let mut changed = Vec::new();
        for s in scans.iter().take(MAX_VARIANTS) {
            if egraph.analysis.out_of_time() {
                break;
            }
            let key = (self.reads == Reads::Loop).then(|| seen::Key::of(egraph, rule, s));
            if key
                .as_ref()
                .is_some_and(|k| seen::unchanged_since_seen(egraph, k))
            {
                continue;
            }
            changed.extend((self.rule)(egraph, s, rule));
            if let Some(k) = key {
                seen::record(egraph, k);
            }
        }
        changed
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// Unions output `j` of `new` with output `j` of `scan` for every `j` of
/// `outputs` (positions the two loops share); returns the classes that
/// changed.
pub fn union_outputs(
    egraph: &mut EGraph,
    rule: Symbol,
    scan: Id,
    new: Id,
    outputs: impl Iterator<Item = usize>,
) -> Vec<Id> {
    let mut changed = Vec::new();
    for j in outputs {
        let old = proj(egraph, scan, j);
        let value = proj(egraph, new, j);
        if union_checked(egraph, rule, old, value) {
            changed.push(old);
        }
    }
    changed
}

pub use crate::egraph::runner::applications_stopped;

/// A rewrite; egg refuses one only when the applier needs pattern
/// variables the searcher does not bind, and these bind none.
pub type ScanRewrite = Result<Rewrite<TNode, TensorAnalysis>, String>;

/// A rule named `name` that runs `f` on every scan node (for loops only);
/// `reads` says what its result depends on.
pub fn per_scan_rule(name: &str, reads: Reads, f: ScanFn) -> ScanRewrite {
    let applier = PerScan {
        rule: f,
        loops: Loops::For,
        reads,
    };
    Rewrite::new(name, ScanClasses, applier)
}

/// [`per_scan_rule`] for a rule that handles while loops too.
pub fn per_scan_rule_while_too(name: &str, reads: Reads, f: ScanFn) -> ScanRewrite {
    let applier = PerScan {
        rule: f,
        loops: Loops::WhileToo,
        reads,
    };
    Rewrite::new(name, ScanClasses, applier)
}

/// Every Scan rewrite, in a fixed order.
pub fn scan_rewrites() -> Vec<Rewrite<TNode, TensorAnalysis>> {
    [
        push_out_nonseq::rewrite(),
        push_out_seq::rewrite(),
        push_out_output::rewrite(),
        inline_constants::rewrite(),
        tidy_inputs::rewrite(),
        drop_output::rewrite(),
        merge_outputs::rewrite(),
        merge::rewrite(),
        fuse::rewrite(),
        to_reduction::rewrite(),
        to_reduction::rewrite_every_step(),
        accumulator::rewrite(),
        accumulator_sum::rewrite(),
        to_linrec::rewrite(),
        save_mem::rewrite(),
        save_mem::rewrite_after_rows(),
        save_mem::rewrite_unread(),
        mitmot_carry::rewrite(),
        outer_sum::rewrite(),
        sum_matmul::rewrite(),
        stack_factor::rewrite(),
        read_trace::rewrite(),
        store_prev::rewrite(),
        store_values::rewrite(),
    ]
    .into_iter()
    .filter_map(Result::ok)
    .collect()
}

/// Matches every class that holds a scan node (the applier takes the
/// nodes apart itself).
#[derive(Clone, Debug, Default)]
pub struct ScanClasses;

impl Searcher<TNode, TensorAnalysis> for ScanClasses {
    fn search_eclass_with_limit(
        &self,
        egraph: &EGraph,
        eclass: Id,
        limit: usize,
    ) -> Option<SearchMatches<'_, TNode>> {
        if limit == 0
            || !egraph[eclass]
                .nodes
                .iter()
                .any(|n| matches!(n.head, Head::Scan(_)))
        {
            return None;
        }
        Some(SearchMatches {
            eclass,
            substs: vec![Subst::default()],
            ast: None,
        })
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

pub use crate::egraph::union::union_checked;

/// Unions `matched` with `new`, two forms of values of loop `scan` (its
/// outputs, or the loop itself) that a rule keeps the same: the checked
/// union, or for a while loop, whose outputs' lengths are known only at
/// run time and equal in both forms (same steps, same condition),
/// [`crate::egraph::union::union_checked_same_loop`]; the same for an
/// output keeping its last K steps of a loop that may run fewer (its row
/// count is `min(K, steps)`, unknown until it runs, and the same in both
/// forms).
pub fn union_loop_forms(
    egraph: &mut EGraph,
    scan: &scan_node::ScanNode,
    rule: Symbol,
    matched: Id,
    new: Id,
) -> bool {
    let rows_unknown = |c: Id| match &egraph[c].data.kind {
        crate::egraph::analysis::Kind::Value(t) => t.shape.first() == Some(&Dim::Unknown),
        crate::egraph::analysis::Kind::Multi(ts) => {
            ts.iter().any(|t| t.shape.first() == Some(&Dim::Unknown))
        }
        _ => false,
    };
    let kept_rows_unknown = rows_unknown(matched) || rows_unknown(new);
    if scan.sig.until || kept_rows_unknown {
        crate::egraph::union::union_checked_same_loop(egraph, rule, matched, new)
    } else {
        union_checked(egraph, rule, matched, new)
    }
}

/// Every `(proj k S)` node of `class`: the output index and the scan class.
pub fn projs_in(egraph: &EGraph, class: Id) -> Vec<(usize, Id)> {
    egraph[class]
        .nodes
        .iter()
        .filter(|n| n.head == Head::Op(OpKind::Proj) && n.children.len() == 2)
        .filter_map(|n| {
            let k = egraph[n.children[0]]
                .nodes
                .iter()
                .find_map(|m| match m.head {
                    Head::Lit(crate::egraph::term::Lit(Scalar::I64(k))) if k >= 0 => {
                        Some(k as usize)
                    }
                    _ => None,
                })?;
            Some((k, egraph.find(n.children[1])))
        })
        .collect()
}

/// The class of `(proj k scan)`.
pub fn proj(egraph: &mut EGraph, scan: Id, k: usize) -> Id {
    let kl = egraph.add(TNode::lit(Scalar::I64(k as i64)));
    egraph.add(TNode {
        head: Head::Op(OpKind::Proj),
        children: vec![kl, scan],
    })
}

/// True when `a` already computes one of `b`'s outputs (a `proj` of each
/// is in one class): merging or fusing them again would only grow loops.
pub fn computes_any(egraph: &EGraph, a: &scan_node::ScanNode, b: &scan_node::ScanNode) -> bool {
    let projs = |s: &scan_node::ScanNode| -> Vec<Id> {
        (0..s.body.len())
            .filter_map(|k| {
                let kl = egraph.lookup(TNode::lit(Scalar::I64(k as i64)))?;
                egraph.lookup(TNode {
                    head: Head::Op(OpKind::Proj),
                    children: vec![kl, s.class],
                })
            })
            .collect()
    };
    let pa = projs(a);
    projs(b).iter().any(|p| pa.contains(p))
}

/// Outputs a merged or fused loop may have, at most.
pub const MAX_MERGED_OUTPUTS: usize = 8;

/// Scans whose nodes a rule examines per class, at most: a class gathers
/// one variant per rewrite that applied to it, and rules that pair scans
/// would grow with the square of that.
pub const MAX_VARIANTS: usize = 3;
