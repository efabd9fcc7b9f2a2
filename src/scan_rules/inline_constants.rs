//! `scan-inline-constants`: a constant outer input moves into the body.
//!
//! A non-sequence whose value is a constant (every element the same known
//! number, or a literal tensor) is written in the body instead of being
//! passed in; a sequence whose elements are all one number becomes that
//! number, filled to a step's shape. Constant folding then runs inside the
//! body (e.g. `c * c - 8` with `c = 3` is 1), and the input is dropped.
//!
//! Does not fire on: inputs that are computed from program inputs; states
//! (their init is a value the loop starts from, not a constant it reads).

use super::body::Target;
use super::build::NewScan;
use super::scan_node::ScanNode;
use super::{per_scan_rule, union_checked};
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::BodyParam;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule(
        "scan-inline-constants",
        super::Reads::Loop,
        inline_constants,
    )
}

/// True when class `c` is a constant with a closed form: folded to one
/// number, or holding a literal tensor.
fn is_constant(egraph: &EGraph, c: Id) -> bool {
    egraph[c].data.konst.is_some()
        || egraph[c]
            .nodes
            .iter()
            .any(|n| matches!(n.head, Head::Op(OpKind::Tensor)))
}

/// `(fill TYPE v)` for the constant `v` of class `c`, in the type `t`.
fn fill_like(egraph: &mut EGraph, c: Id, t: &crate::lang::Type) -> Option<Id> {
    let v = egraph[c].data.konst?;
    let mut dims = Vec::new();
    for d in &t.shape {
        dims.push(super::build::steps_leaf(egraph, d)?);
    }
    let ty = egraph.add(TNode {
        head: Head::Type(t.dtype),
        children: dims,
    });
    let lit = egraph.add(TNode::lit(v));
    Some(egraph.add(TNode {
        head: Head::Op(OpKind::Fill),
        children: vec![ty, lit],
    }))
}

fn inline_constants(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let Some(spec) = NewScan::like(egraph, scan) else {
        return Vec::new();
    };
    let mut source = spec.source_of(scan);
    let mut any = false;
    for (k, input) in scan.sig.body_params().iter().enumerate() {
        let target = match input {
            BodyParam::NonSequence(j) => {
                let outer = scan.non_seq_outer(*j);
                if !is_constant(egraph, outer) {
                    continue;
                }
                let Some(t) = scan.param_type(egraph, k) else {
                    continue;
                };
                // The param's own type: a weak outer scalar is filled.
                match egraph[outer].data.ty() {
                    Some(ot) if *ot == t => outer,
                    _ => match fill_like(egraph, outer, &t) {
                        Some(f) => f,
                        None => continue,
                    },
                }
            }
            BodyParam::Sequence { seq, .. } => {
                let outer = scan.seq_outer(*seq);
                if egraph[outer].data.konst.is_none() {
                    continue;
                }
                let Some(t) = scan.param_type(egraph, k) else {
                    continue;
                };
                match fill_like(egraph, outer, &t) {
                    Some(f) => f,
                    None => continue,
                }
            }
            BodyParam::State { .. } => continue,
        };
        if let Some(p) = source.params.get_mut(k) {
            *p = Some(Target::Closed(target));
            any = true;
        }
    }
    if !any {
        return Vec::new();
    }
    match spec.build(egraph, &[source]) {
        Some(new) if union_checked(egraph, rule, scan.class, new) => vec![scan.class],
        _ => Vec::new(),
    }
}
