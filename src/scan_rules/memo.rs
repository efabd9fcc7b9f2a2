//! Not doing the same work twice: the Scan rewrites remember which loops
//! they have examined, and in what state of the e-graph.
//!
//! Owns: [`ScanMemo`] (kept in [`crate::rules::analysis::TensorAnalysis`]),
//! [`Reads`] (what of the e-graph a per-scan rule looks at), the
//! fingerprints of those parts, and the body plans shared within an
//! iteration. Must not: decide what a rule does.
//!
//! A per-scan rule ([`super::PerScan`]) is a function of the scan e-node
//! it is given and of the parts of the e-graph it reads. Most read only the
//! loop's body (the classes its body outputs reach in the body's scope,
//! with their nodes and analysis data) and the analysis data of the loop's
//! outer arguments. When none of that has changed since the rule last ran
//! on the same node, running it again adds nothing: the terms it builds
//! are hash-consed to the ones it built before, and the unions it makes
//! are already made. The memo keeps, per rule and scan node, a fingerprint
//! (a hash) of what the rule read, and the rule is skipped while the
//! fingerprint stays the same.
//!
//! Skipping is always sound (a rewrite not applied cannot make anything
//! unequal); a hash collision could only make a rule miss a rewrite.
//!
//! Every loop of a chain may share one body class (bodies are written over
//! positional parameters), so the body's fingerprint, and the term plans
//! the rules make of it ([`Plan::shared`]), are computed once per
//! saturation iteration: the runner starts a new generation before each
//! ([`ScanMemo::next_generation`]). Within an iteration the rules change
//! the e-graph, so a body fingerprint cached earlier in it may be stale; a
//! rule may then be skipped once too often in that iteration, and runs in
//! the next (whose fresh fingerprint differs from the stale one it
//! recorded). Without a runner (generation 0) nothing is cached.

use super::body::{scoped_children, Plan, Source};
use super::scan_node::ScanNode;
use crate::lang::egraph::{Head, OpName, ScanSig};
use crate::lang::Scalar;
use crate::rules::analysis::{ClassData, EGraph, Kind};
use egg::{Id, Symbol};
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// What of the e-graph a per-scan rule reads, besides the scan node.
#[derive(Clone, Copy)]
pub enum Reads {
    /// The loop's body (every class its outputs reach in the body's
    /// scope) and the analysis data of the loop's class and of its outer
    /// arguments (types, constants, and whether an argument holds a
    /// literal tensor).
    Local,
    /// What [`Reads::Local`] covers, and what this function hashes.
    LocalAnd(fn(&EGraph, &ScanNode) -> u64),
    /// Anything (e.g. other loops): the rule is never skipped.
    Anything,
}

/// A scan e-node as a memo key: rule, class, clauses, body outputs and
/// outer arguments (all canonical when taken).
type NodeKey = (Symbol, Id, ScanSig, Vec<Id>, Vec<Id>);

/// Body plans as memo keys: the sources and the roots (canonical).
type PlanKey = (Vec<Source>, Vec<(usize, Id)>);

/// The memo of the per-scan rules (see the module docs).
#[derive(Debug, Default)]
pub struct ScanMemo {
    /// The saturation iteration (0: no runner counts them, nothing is
    /// cached across rule applications).
    generation: u64,
    /// Per rule and scan node, the fingerprint of what the rule read the
    /// last time it ran on that node.
    done: HashMap<NodeKey, u64>,
    /// Per tuple of body outputs, the generation its fingerprint was
    /// taken in, and the fingerprint.
    bodies: HashMap<Vec<Id>, (u64, u64)>,
    /// The body plans made in this generation, by sources and roots.
    plans: HashMap<PlanKey, Arc<Plan>>,
    /// Rule applications skipped because nothing they read had changed.
    pub skipped: usize,
    /// Rule applications run.
    pub ran: usize,
}

impl ScanMemo {
    /// Starts a new saturation iteration: body fingerprints are taken
    /// afresh.
    pub fn next_generation(&mut self) {
        self.generation += 1;
        self.bodies.clear();
        self.plans.clear();
    }

    /// The plan made for `sources` and `roots` in this generation, if any.
    pub fn plan(&self, sources: &[Source], roots: &[(usize, Id)]) -> Option<Arc<Plan>> {
        if self.generation == 0 {
            return None;
        }
        self.plans.get(&(sources.to_vec(), roots.to_vec())).cloned()
    }

    /// Keeps `plan`, made for `sources` and `roots`, for the rest of this
    /// generation.
    pub fn keep_plan(&mut self, sources: &[Source], roots: &[(usize, Id)], plan: Arc<Plan>) {
        if self.generation != 0 {
            self.plans.insert((sources.to_vec(), roots.to_vec()), plan);
        }
    }

    fn key(rule: Symbol, scan: &ScanNode) -> NodeKey {
        (
            rule,
            scan.class,
            scan.sig.clone(),
            scan.body.clone(),
            scan.args.clone(),
        )
    }

    /// True when `rule` last ran on `scan` with the e-graph in the state
    /// `fingerprint` describes.
    pub fn unchanged(&self, rule: Symbol, scan: &ScanNode, fingerprint: u64) -> bool {
        self.done.get(&Self::key(rule, scan)) == Some(&fingerprint)
    }

    /// Records that `rule` ran on `scan` with the e-graph in the state
    /// `fingerprint` describes.
    pub fn record(&mut self, rule: Symbol, scan: &ScanNode, fingerprint: u64) {
        self.done.insert(Self::key(rule, scan), fingerprint);
    }
}

/// Hashes a constant.
fn hash_scalar(s: &Option<Scalar>, h: &mut impl Hasher) {
    match s {
        None => 0u8.hash(h),
        Some(Scalar::Bool(b)) => (1u8, *b).hash(h),
        Some(Scalar::I64(i)) => (2u8, *i).hash(h),
        Some(Scalar::F64(x)) => (3u8, x.to_bits()).hash(h),
    }
}

/// Hashes a class's analysis data: its kind, constant and dependence set.
fn hash_data(d: &ClassData, h: &mut impl Hasher) {
    match &d.kind {
        Kind::Value(t) => (0u8, t).hash(h),
        Kind::Multi(ts) => (1u8, ts).hash(h),
        Kind::Attr => 2u8.hash(h),
        Kind::Invalid(m) => (3u8, m).hash(h),
    }
    hash_scalar(&d.konst, h);
    d.deps.hash(h);
}

/// The fingerprint of the body whose outputs are `body`: every class they
/// reach in the body's scope, with its nodes (children canonical) and its
/// analysis data.
fn body_fingerprint(egraph: &EGraph, body: &[Id]) -> u64 {
    let mut h = DefaultHasher::new();
    let mut seen: HashSet<Id> = HashSet::new();
    let mut stack: Vec<Id> = body.iter().rev().map(|c| egraph.find(*c)).collect();
    while let Some(c) = stack.pop() {
        if !seen.insert(c) {
            continue;
        }
        let class = &egraph[c];
        c.hash(&mut h);
        hash_data(&class.data, &mut h);
        class.nodes.len().hash(&mut h);
        for n in &class.nodes {
            n.head.hash(&mut h);
            for ch in &n.children {
                egraph.find(*ch).hash(&mut h);
            }
            for ch in scoped_children(n).iter().rev() {
                stack.push(egraph.find(*ch));
            }
        }
    }
    h.finish()
}

/// The fingerprint of what a rule that `reads` this reads of `scan`; `None`
/// for [`Reads::Anything`].
pub fn fingerprint(egraph: &mut EGraph, scan: &ScanNode, reads: Reads) -> Option<u64> {
    let extra = match reads {
        Reads::Anything => return None,
        Reads::Local => None,
        Reads::LocalAnd(f) => Some(f(egraph, scan)),
    };
    let generation = egraph.analysis.scan_memo.generation;
    let cached = match egraph.analysis.scan_memo.bodies.get(&scan.body) {
        Some((g, fp)) if *g == generation && generation != 0 => Some(*fp),
        _ => None,
    };
    let body = match cached {
        Some(fp) => fp,
        None => {
            let fp = body_fingerprint(egraph, &scan.body);
            if generation != 0 {
                egraph
                    .analysis
                    .scan_memo
                    .bodies
                    .insert(scan.body.clone(), (generation, fp));
            }
            fp
        }
    };
    let mut h = DefaultHasher::new();
    body.hash(&mut h);
    extra.hash(&mut h);
    hash_data(&egraph[scan.class].data, &mut h);
    for a in &scan.args {
        let class = &egraph[*a];
        hash_data(&class.data, &mut h);
        class
            .nodes
            .iter()
            .any(|n| matches!(n.head, Head::Op(OpName::Tensor)))
            .hash(&mut h);
    }
    scan.steps(egraph).hash(&mut h);
    Some(h.finish())
}
