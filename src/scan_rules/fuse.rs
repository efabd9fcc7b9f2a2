//! `scan-fuse` (map fusion, FractalTensor's `map f ∘ map g = map (f ∘ g)`,
//! for any loop): a loop whose sequence is another loop's output, read at
//! tap 0, with the same step count and going forward, becomes one loop in
//! which the consumer reads the producer's step value directly.
//!
//! The stacked output need not exist any more (it stays an output of the
//! fused loop, which `scan-drop-output` may then remove).
//!
//! Does not fire on: a producer or consumer with a mitmot (a tape is not
//! a per-step output, and the fused loop would interleave tape writes);
//! a consumer that reads the output at other taps, or
//! reads the producer's outputs otherwise too (as a whole, or through
//! other values); loops going backwards; different step counts.

use super::merge::{merged, union_outputs};
use super::reach::reaches;
use super::scan_node::ScanNode;
use super::{computes_any, per_scan_rule, MAX_MERGED_OUTPUTS, MAX_VARIANTS};
use crate::egraph::analysis::EGraph;
use crate::lang::BodyParam;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule("scan-fuse", super::Reads::Context, fuse)
}

fn fuse(egraph: &mut EGraph, consumer: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    // Refused with a mitmot on either side: the merged loop's body results
    // would not line up with its outputs (see `merge`).
    if consumer.sig.go_backwards || consumer.sig.has_mitmot() {
        return changed;
    }
    for (param, input) in consumer.sig.body_params().iter().enumerate() {
        let BodyParam::Sequence { seq, tap: 0 } = input else {
            continue;
        };
        if consumer.sig.sequences[*seq] != [0] {
            continue;
        }
        let outer = consumer.seq_outer(*seq);
        let producers = super::projs_in(egraph, outer);
        for (k, p) in producers {
            // The consumer may read the producer only through this sequence.
            let other_args: Vec<Id> = consumer
                .args
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != *seq)
                .map(|(_, a)| *a)
                .collect();
            if reaches(egraph, &other_args, p) {
                continue;
            }
            for producer in ScanNode::all_in(egraph, p).iter().take(MAX_VARIANTS) {
                if producer.sig.go_backwards
                    || producer.sig.has_mitmot()
                    || !producer.sig.keep.is_empty()
                    || !consumer.sig.keep.is_empty()
                    || producer.body.len() + consumer.body.len() > MAX_MERGED_OUTPUTS
                    || computes_any(egraph, producer, consumer)
                    || producer.steps(egraph) != consumer.steps(egraph)
                    || reaches(egraph, &producer.args, consumer.class)
                {
                    continue;
                }
                let Some(&body_k) = producer.body.get(k) else {
                    continue;
                };
                if let Some(m) = merged(egraph, producer, consumer, Some((param, body_k))) {
                    changed.extend(union_outputs(egraph, rule, producer, consumer, m));
                }
            }
        }
    }
    changed
}
