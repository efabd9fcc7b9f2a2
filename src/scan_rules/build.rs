//! Building a new scan in the e-graph from a description.
//!
//! Owns: [`NewScan`] (the clauses, outer arguments and body outputs of a
//! scan to build, its parameters numbered provisionally), [`NewScan::like`]
//! (the description of an existing scan, for a rule to edit) and
//! [`NewScan::build`], which also tidies what every rewrite leaves behind:
//! sequences and non-sequences that no body output reads are dropped, and
//! inputs given the same outer value (and taps) are passed once. Must not:
//! union anything — the rules decide what the new scan equals.

use super::body::{Plan, Source, Target};
use super::scan_node::ScanNode;
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, TNode};
use crate::lang::{Dim, LoopSig, OutputInfo, Scalar, TapWindow, Type};
use egg::{Id, Symbol};
use std::collections::BTreeMap;

/// A sequence of the scan to build.
#[derive(Clone, Debug)]
pub struct NewSeq {
    /// Its outer value.
    pub outer: Id,
    /// Its taps.
    pub taps: Vec<i64>,
    /// The type of one step's slice.
    pub step_type: Type,
}

/// An output of the scan to build.
#[derive(Clone, Debug)]
pub struct NewOutput {
    /// Its kind and taps.
    pub info: OutputInfo,
    /// Its outer init, for a state.
    pub init: Option<Id>,
    /// The type of one step's value (of each state tap's parameter; a
    /// mitmot's slot).
    pub step_type: Type,
    /// Its body results, each a class of a source body: one, or one per
    /// out tap of a mitmot.
    pub body: Vec<(usize, Id)>,
    /// The last steps it keeps (`None`: all).
    pub keep: Option<usize>,
}

impl NewOutput {
    /// A mapped output (`nitsot`, every step kept) of step type
    /// `step_type` whose step value is class `value` of source body 0.
    pub fn mapped(step_type: Type, value: Id) -> NewOutput {
        NewOutput {
            info: OutputInfo::Nitsot,
            init: None,
            step_type,
            body: vec![(0, value)],
            keep: None,
        }
    }
}

/// A scan to build. Provisional parameter numbers follow the layout of
/// `fn`: every sequence tap, every state tap, every non-sequence.
#[derive(Clone, Debug)]
pub struct NewScan {
    /// The sequences.
    pub sequences: Vec<NewSeq>,
    /// The outputs.
    pub outputs: Vec<NewOutput>,
    /// The non-sequences: outer value and type.
    pub non_seqs: Vec<(Id, Type)>,
    /// The outer `n_steps`, if given.
    pub n_steps: Option<Id>,
    /// Iterate from the end.
    pub go_backwards: bool,
    /// The step count (to write an `n_steps` when every sequence is dropped).
    pub steps: Dim,
    /// A while loop's condition: its body term (source, class), the
    /// body's last result.
    pub until: Option<(usize, Id)>,
    /// Conditions that must be the same term as [`Self::until`] in the
    /// built body, or nothing is built: the other loop's condition when
    /// two while loops merge (they stop at the same step only then).
    pub same_until: Vec<(usize, Id)>,
}

/// One parameter of a [`NewScan`], by provisional number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Param {
    Seq(usize, usize),
    State(usize, usize),
    NonSeq(usize),
}

impl NewScan {
    /// The description of `scan`, for a rule to edit.
    pub fn like(egraph: &EGraph, scan: &ScanNode) -> Option<NewScan> {
        let steps = scan.steps(egraph)?;
        let tys = scan.output_types(egraph)?;
        // A loop whose output types are not fully known could not be
        // unioned with anything (types must match exactly): leave it. A
        // while loop's outputs have a length known at run time only, and
        // so has an output keeping its last K steps of a loop that may run
        // fewer; their steps must be known.
        if tys.iter().enumerate().any(|(i, t)| {
            let from = usize::from(scan.sig.until || scan.sig.kept(i).is_some());
            t.shape.get(from..).unwrap_or(&[]).contains(&Dim::Unknown)
        }) {
            return None;
        }
        let mut k = 0;
        let next_type = |k: &mut usize| {
            let t = scan.param_type(egraph, *k);
            *k += 1;
            t
        };
        let mut sequences = Vec::new();
        for (i, taps) in scan.sig.sequences.iter().enumerate() {
            let mut step_type = None;
            for _ in taps {
                step_type = next_type(&mut k);
            }
            sequences.push(NewSeq {
                outer: scan.seq_outer(i),
                taps: taps.clone(),
                step_type: step_type?,
            });
        }
        let mut outputs = Vec::new();
        for (i, info) in scan.sig.outputs.iter().enumerate() {
            for _ in info.taps() {
                next_type(&mut k)?;
            }
            let t = tys.get(i)?;
            outputs.push(NewOutput {
                info: info.clone(),
                init: scan.init_outer(i),
                step_type: Type::new(t.dtype, t.shape.get(1..)?.to_vec()),
                body: scan
                    .body
                    .get(scan.sig.body_output_range(i))?
                    .iter()
                    .map(|b| (0, *b))
                    .collect(),
                keep: scan.sig.kept(i),
            });
        }
        let mut non_seqs = Vec::new();
        for j in 0..scan.sig.n_non_seqs {
            non_seqs.push((scan.non_seq_outer(j), next_type(&mut k)?));
        }
        Some(NewScan {
            sequences,
            outputs,
            non_seqs,
            n_steps: scan.n_steps_outer(),
            go_backwards: scan.sig.go_backwards,
            steps,
            until: scan.until.map(|c| (0, c)),
            same_until: Vec::new(),
        })
    }

    /// The source that maps the body of `scan` onto this scan, when this
    /// scan's first sequences, outputs and non-sequences are `scan`'s (in
    /// order; rules append new ones after them).
    pub fn source_of(&self, scan: &ScanNode) -> Source {
        self.source_with(scan, &|i| Some(i))
    }

    /// Like [`Self::source_of`], with `scan`'s output `i` at position
    /// `out_map(i)` of this scan (`None`: dropped; its taps may not be
    /// read).
    pub fn source_with(&self, scan: &ScanNode, out_map: &dyn Fn(usize) -> Option<usize>) -> Source {
        self.source_at(scan, 0, out_map, 0)
    }

    /// The source of `scan`'s body when its sequences start at position
    /// `seq_at` of this scan's, its output `i` is at `out_map(i)`, and its
    /// non-sequences start at `ns_at` (for merging two loops).
    pub fn source_at(
        &self,
        scan: &ScanNode,
        seq_at: usize,
        out_map: &dyn Fn(usize) -> Option<usize>,
        ns_at: usize,
    ) -> Source {
        let params = self.params();
        let position = |p: Param| params.iter().position(|q| *q == p).map(Target::Param);
        let mut out = Vec::new();
        // Each old input's type: the type of the new input it goes to (an
        // input keeps its value, so its type).
        let mut types = Vec::new();
        for (i, taps) in scan.sig.sequences.iter().enumerate() {
            out.extend((0..taps.len()).map(|t| position(Param::Seq(seq_at + i, t))));
            let t = self.sequences.get(seq_at + i).map(|s| s.step_type.clone());
            types.extend((0..taps.len()).map(|_| t.clone()));
        }
        for (i, info) in scan.sig.outputs.iter().enumerate() {
            out.extend(
                (0..info.taps().len())
                    .map(|t| out_map(i).and_then(|j| position(Param::State(j, t)))),
            );
            let t = out_map(i)
                .and_then(|j| self.outputs.get(j))
                .map(|o| o.step_type.clone());
            types.extend((0..info.taps().len()).map(|_| t.clone()));
        }
        out.extend((0..scan.sig.n_non_seqs).map(|j| position(Param::NonSeq(ns_at + j))));
        types.extend(
            (0..scan.sig.n_non_seqs).map(|j| self.non_seqs.get(ns_at + j).map(|n| n.1.clone())),
        );
        Source {
            params: out,
            param_types: types,
            replace: BTreeMap::new(),
        }
    }

    fn params(&self) -> Vec<Param> {
        let mut v = Vec::new();
        for (i, s) in self.sequences.iter().enumerate() {
            v.extend((0..s.taps.len()).map(|t| Param::Seq(i, t)));
        }
        for (i, o) in self.outputs.iter().enumerate() {
            v.extend((0..o.info.taps().len()).map(|t| Param::State(i, t)));
        }
        v.extend((0..self.non_seqs.len()).map(Param::NonSeq));
        v
    }

    /// The provisional number of non-sequence `k` (for a rule that adds
    /// one and points a class at it).
    pub fn non_seq_param(&self, k: usize) -> usize {
        self.params()
            .iter()
            .position(|p| *p == Param::NonSeq(k))
            .unwrap_or(usize::MAX)
    }

    /// The provisional number of tap `t` (index in its taps) of sequence `i`.
    pub fn seq_param(&self, i: usize, t: usize) -> usize {
        self.params()
            .iter()
            .position(|p| *p == Param::Seq(i, t))
            .unwrap_or(usize::MAX)
    }

    /// Adds the scan to the e-graph; `None` when a body output has no term
    /// over the parameters its source may read, or the step count cannot
    /// be written.
    pub fn build(&self, egraph: &mut EGraph, sources: &[Source]) -> Option<Id> {
        // The outputs' body terms, then a while loop's condition.
        let roots: Vec<(usize, Id)> = self
            .outputs
            .iter()
            .flat_map(|o| o.body.iter().copied())
            .chain(self.until)
            .map(|(s, c)| (s, egraph.find(c)))
            .collect();
        // The conditions that must rebuild to the condition's term are
        // planned with the roots (their terms must exist over what the
        // built loop reads), but are not results.
        let planned: Vec<(usize, Id)> = roots
            .iter()
            .copied()
            .chain(self.same_until.iter().map(|(s, c)| (*s, egraph.find(*c))))
            .collect();
        let plan = Plan::shared(egraph, sources, &planned);
        if !planned.iter().all(|(s, c)| plan.has_term(egraph, *s, *c)) {
            return None;
        }
        let read = plan.params_read(egraph, &planned);
        let params = self.params();
        let is_read = |p: Param| {
            params
                .iter()
                .position(|q| *q == p)
                .is_some_and(|v| read.contains(&v))
        };
        // Sequences: keep the read ones, once per (outer, taps).
        let mut seq_final: Vec<Option<usize>> = vec![None; self.sequences.len()];
        let mut kept_seqs: Vec<usize> = Vec::new();
        for (i, s) in self.sequences.iter().enumerate() {
            if !(0..s.taps.len()).any(|t| is_read(Param::Seq(i, t))) {
                continue;
            }
            let same = kept_seqs.iter().position(|&j| {
                let o = &self.sequences[j];
                egraph.find(o.outer) == egraph.find(s.outer) && o.taps == s.taps
            });
            seq_final[i] = Some(match same {
                Some(p) => p,
                None => {
                    kept_seqs.push(i);
                    kept_seqs.len() - 1
                }
            });
        }
        let mut ns_final: Vec<Option<usize>> = vec![None; self.non_seqs.len()];
        let mut kept_ns: Vec<usize> = Vec::new();
        for (j, (outer, _)) in self.non_seqs.iter().enumerate() {
            if !is_read(Param::NonSeq(j)) {
                continue;
            }
            let same = kept_ns
                .iter()
                .position(|&q| egraph.find(self.non_seqs[q].0) == egraph.find(*outer));
            ns_final[j] = Some(match same {
                Some(p) => p,
                None => {
                    kept_ns.push(j);
                    kept_ns.len() - 1
                }
            });
        }
        // Final parameter positions.
        let seq_taps_before: Vec<usize> = kept_seqs
            .iter()
            .scan(0, |acc, &i| {
                let here = *acc;
                *acc += self.sequences[i].taps.len();
                Some(here)
            })
            .collect();
        let n_seq_params: usize = kept_seqs
            .iter()
            .map(|&i| self.sequences[i].taps.len())
            .sum();
        let state_before: Vec<usize> = self
            .outputs
            .iter()
            .scan(n_seq_params, |acc, o| {
                let here = *acc;
                *acc += o.info.taps().len();
                Some(here)
            })
            .collect();
        let n_state_params: usize = self.outputs.iter().map(|o| o.info.taps().len()).sum();
        let final_of = |v: usize| -> Option<(usize, Type)> {
            match *params.get(v)? {
                Param::Seq(i, t) => {
                    let p = seq_final[i]?;
                    Some((seq_taps_before[p] + t, self.sequences[i].step_type.clone()))
                }
                Param::State(i, t) => {
                    Some((state_before[i] + t, self.outputs[i].step_type.clone()))
                }
                Param::NonSeq(j) => Some((
                    n_seq_params + n_state_params + ns_final[j]?,
                    self.non_seqs[j].1.clone(),
                )),
            }
        };
        let mut memo = BTreeMap::new();
        let mut children = Vec::new();
        for (s, c) in &roots {
            children.push(plan.rebuild(egraph, *s, *c, &final_of, &mut memo)?);
        }
        if !self.same_until.is_empty() {
            // The condition is the last root.
            let cond = match self.until {
                Some(_) => *children.last()?,
                None => return None,
            };
            for &(s, c) in &self.same_until {
                let other = plan.rebuild(egraph, s, egraph.find(c), &final_of, &mut memo)?;
                if egraph.find(other) != egraph.find(cond) {
                    return None;
                }
            }
        }
        for &i in &kept_seqs {
            children.push(self.sequences[i].outer);
        }
        for o in &self.outputs {
            if o.info.is_state() {
                children.push(o.init?);
            }
        }
        for &j in &kept_ns {
            children.push(self.non_seqs[j].0);
        }
        // Without `n_steps`, the kept sequences must still give the step
        // count; otherwise it is written out.
        let seqs_give_steps = !kept_seqs.is_empty()
            && kept_seqs.iter().all(|&i| {
                let s = &self.sequences[i];
                egraph[s.outer]
                    .data
                    .ty()
                    .and_then(|t| t.shape.first())
                    .is_some_and(|len| TapWindow::of(&s.taps).steps_in_dim(len) == self.steps)
            });
        let n_steps = match self.n_steps {
            Some(n) => Some(n),
            None if seqs_give_steps => None,
            None => Some(steps_leaf(egraph, &self.steps)?),
        };
        if let Some(n) = n_steps {
            children.push(n);
        }
        let sig = LoopSig {
            sequences: kept_seqs
                .iter()
                .map(|&i| self.sequences[i].taps.clone())
                .collect(),
            outputs: self.outputs.iter().map(|o| o.info.clone()).collect(),
            n_non_seqs: kept_ns.len(),
            has_n_steps: n_steps.is_some(),
            go_backwards: self.go_backwards,
            keep: LoopSig::keep_list(self.outputs.iter().map(|o| o.keep).collect()),
            until: self.until.is_some(),
            as_list: Vec::new(),
        };
        Some(egraph.add(TNode {
            head: Head::Scan(sig),
            children,
        }))
    }
}

/// A size as a value leaf: an integer literal or a size symbol.
pub fn steps_leaf(egraph: &mut EGraph, d: &Dim) -> Option<Id> {
    if let Some(k) = d.as_known() {
        Some(egraph.add(TNode::lit(Scalar::I64(k))))
    } else {
        d.as_sym()
            .map(|s| egraph.add(TNode::leaf(Head::Size(Symbol::from(s)))))
    }
}
