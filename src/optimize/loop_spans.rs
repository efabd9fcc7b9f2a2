//! Source positions for the loops of a program the optimizer built.
//!
//! Owns: [`place_loops`], which gives each loop of an extracted program
//! (whose nodes carry no position: `exec::map_back` says why spans are
//! not carried through the e-graph) the position of the written loop it
//! most resembles, so that a report naming a loop (`run --json`'s
//! `loops.off_tape`) points into the user's file rather than at `0:0`.
//! Resemblance: the ops of the two bodies (nested bodies included),
//! counted by name — a loop the rules only rewrote inside keeps most of
//! its ops, a fused loop shares them with each loop it came from; ties go
//! to the loop written first. Must not: change what the program computes,
//! or place any node but a loop that has no position yet.

use crate::lang::program::NodeId;
use crate::lang::{Graph, Op, Span};
use std::collections::BTreeMap;

/// The ops of a body, counted by name.
type Census = BTreeMap<&'static str, usize>;

/// A loop of the written program.
struct Written {
    span: Span,
    ops: Census,
}

/// Adds the ops of `g` (and of the bodies of its loops) to `out`.
fn census(g: &Graph, out: &mut Census) {
    for n in &g.nodes {
        *out.entry(n.op.name()).or_default() += 1;
        if let Op::Scan(s) = &n.op {
            census(&s.body, out);
        }
    }
}

/// Every loop of `g` that has a position, outer loops first.
fn written(g: &Graph, out: &mut Vec<Written>) {
    for (i, n) in g.nodes.iter().enumerate() {
        if let Op::Scan(s) = &n.op {
            let span = g.span(NodeId(i));
            if span != Span::default() {
                let mut ops = Census::new();
                census(&s.body, &mut ops);
                out.push(Written { span, ops });
            }
            written(&s.body, out);
        }
    }
}

/// How much two bodies resemble each other: the ops they share over the
/// ops either has (1 for the same census, 0 for nothing in common).
fn resemblance(a: &Census, b: &Census) -> f64 {
    let shared: usize = a
        .iter()
        .map(|(k, &n)| n.min(b.get(k).copied().unwrap_or(0)))
        .sum();
    let total = a.values().sum::<usize>() + b.values().sum::<usize>() - shared;
    if total == 0 {
        1.0
    } else {
        shared as f64 / total as f64
    }
}

/// Gives each loop of `q` without a position (at any depth) the position
/// of the loop of the written graph `p` whose body it most resembles.
pub(crate) fn place_loops(q: &mut Graph, p: &Graph) {
    let mut loops = Vec::new();
    written(p, &mut loops);
    if !loops.is_empty() {
        place(q, &loops);
    }
}

fn place(g: &mut Graph, loops: &[Written]) {
    let n = g.nodes.len();
    if g.spans.len() < n {
        g.spans.resize(n, Span::default());
    }
    for i in 0..n {
        let Op::Scan(s) = &mut g.nodes[i].op else {
            continue;
        };
        if g.spans[i] == Span::default() {
            let mut ops = Census::new();
            census(&s.body, &mut ops);
            let mut best: Option<(f64, Span)> = None;
            for l in loops {
                let r = resemblance(&l.ops, &ops);
                if best.is_none_or(|(b, _)| r > b) {
                    best = Some((r, l.span));
                }
            }
            if let Some((_, span)) = best {
                g.spans[i] = span;
            }
        }
        place(&mut s.body, loops);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse_program;

    /// Two written loops; the extracted program has them in the other
    /// order and without positions: each gets its own loop's position.
    #[test]
    fn each_loop_gets_the_position_of_the_loop_it_resembles() {
        let written = parse_program(
            "(program w (input X (f64 T N)) (input h0 (f64 N))
  (let A (scan (sequences X) (outputs_info (sitsot h0)) (fn (x h) (tanh (add x h)))))
  (let B (scan (sequences X) (outputs_info (nitsot)) (fn (x) (sum (mul x (exp x))))))
  (output A B))",
        )
        .unwrap();
        let mut built = parse_program(
            "(program w (input X (f64 T N)) (input h0 (f64 N))
  (let B (scan (sequences X) (outputs_info (nitsot)) (fn (x) (sum (mul x (exp x))))))
  (let A (scan (sequences X) (outputs_info (sitsot h0)) (fn (x h) (tanh (add x h)))))
  (output A B))",
        )
        .unwrap();
        let scans = |g: &Graph| -> Vec<usize> {
            (0..g.nodes.len())
                .filter(|&i| matches!(g.nodes[i].op, Op::Scan(_)))
                .collect()
        };
        let (w, b) = (scans(&written.graph), scans(&built.graph));
        built
            .graph
            .spans
            .iter_mut()
            .for_each(|s| *s = Span::default());
        place_loops(&mut built.graph, &written.graph);
        let at = |g: &Graph, i: usize| g.span(NodeId(i));
        assert_eq!(at(&built.graph, b[0]), at(&written.graph, w[1]));
        assert_eq!(at(&built.graph, b[1]), at(&written.graph, w[0]));
        assert_ne!(at(&built.graph, b[0]), Span::default());
        // Nothing but loops is placed.
        let placed = (0..built.graph.nodes.len())
            .filter(|&i| at(&built.graph, i) != Span::default())
            .count();
        assert_eq!(placed, 2);
    }
}
