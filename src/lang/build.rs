//! Building programs in code: a typed program builder.
//!
//! Owns: [`Builder`], which adds inputs, literals, sizes, op nodes and
//! scans to a graph and returns their [`NodeId`]s, and the type rule of a
//! scan built this way. Every node is type checked when it is added, by
//! the same rules the parser applies ([`super::infer::infer`] for ops, the
//! parser's scan checks for loops: the make_node contract), so a program
//! built here is well typed by construction; a refused node is a
//! [`LangError`]. Must not: parse, print or run; choose names (callers
//! name nodes with [`Builder::name`], or the printer invents them).
//!
//! Code that writes programs (the term → program conversion of the
//! e-graph, `rules check`'s test programs, a gradient transform) builds
//! them here rather than writing text and parsing it again.
//!
//! ```
//! use eqscan::lang::build::Builder;
//! use eqscan::lang::{print_program, BinaryOp, DType, Dim, Op, Scalar, Type, UnaryOp};
//!
//! let mut b = Builder::new("affine");
//! let x = b.input("x", Type::new(DType::F64, vec![Dim::sym("N")]))?;
//! let two = b.literal(Scalar::F64(2.0))?;
//! let y = b.op(Op::Binary(BinaryOp::Mul), &[x, two])?;
//! let z = b.op(Op::Unary(UnaryOp::Exp), &[y])?;
//! assert_eq!(b.ty(z)?.to_string(), "f64(N,)");
//! let p = b.finish(&[z])?;
//! assert_eq!(
//!     print_program(&p),
//!     "(program affine\n  (input x (f64 N))\n  (output (exp (mul x 2.0))))\n"
//! );
//! # Ok::<(), eqscan::lang::LangError>(())
//! ```
//!
//! A node that does not type-check is refused with the parser's message:
//!
//! ```
//! use eqscan::lang::build::Builder;
//! use eqscan::lang::{BinaryOp, DType, Dim, Op, Type};
//!
//! let mut b = Builder::new("bad");
//! let x = b.input("x", Type::new(DType::F64, vec![Dim::known(3)]))?;
//! let y = b.input("y", Type::new(DType::F64, vec![Dim::known(4)]))?;
//! let e = b.op(Op::Binary(BinaryOp::Add), &[x, y]).unwrap_err();
//! assert_eq!(e.to_string(), "add: shapes (3,) and (4,) do not broadcast");
//! # Ok::<(), eqscan::lang::LangError>(())
//! ```

use super::dtype::DType;
use super::error::{BuildErrorKind, LangError};
use super::infer::infer;
use super::loop_sig::{LoopSig, MAX_TAP};
use super::loop_type::{self, LoopTypeError};
use super::op::Scalar;
use super::op_table::Op;
use super::parse::is_identifier;
use super::program::{Graph, Node, NodeId, OutputInfo, Program, Scan, Span};
use super::shape::{Dim, Type};
use std::collections::{BTreeSet, HashMap};

/// Builds one graph node by node: a program, or (inside [`Builder::scan`])
/// a loop body.
///
/// Nodes are added in topological order (an argument before its users),
/// parameters first. Every method that adds a node checks it and returns
/// its id, or the [`LangError`] the parser would give for the same node.
#[derive(Debug)]
pub struct Builder {
    /// The program's name (unused for a loop body).
    program: String,
    graph: Graph,
    /// Names given so far in this graph, to refuse a second binding.
    names: HashMap<String, NodeId>,
    /// The source position recorded for the nodes added next.
    span: Span,
}

impl Builder {
    /// An empty program named `name`.
    pub fn new(name: &str) -> Builder {
        Builder {
            program: name.to_string(),
            graph: Graph::default(),
            names: HashMap::new(),
            span: Span::default(),
        }
    }

    /// Records `span` as the source position of the nodes added from now
    /// on (and of their type errors); [`Span::default`] otherwise.
    pub fn set_span(&mut self, span: Span) {
        self.span = span;
    }

    /// Declares the next input, named `name`, of type `ty`. Inputs come
    /// before every other node; the last ones may become shared variables
    /// ([`Program::shared`]).
    pub fn input(&mut self, name: &str, ty: Type) -> Result<NodeId, LangError> {
        if self.graph.nodes.len() > self.graph.n_params {
            return Err(build(BuildErrorKind::LateInput(name.to_string())));
        }
        let written = ty
            .shape
            .iter()
            .all(|d| d.as_sym().is_some() || d.as_known().is_some_and(|k| k >= 0));
        if !written {
            return Err(build(BuildErrorKind::InputType {
                name: name.to_string(),
                ty: ty.to_string(),
            }));
        }
        let k = self.graph.n_params;
        let id = self.push(Op::Input(k), vec![], vec![ty.strong()]);
        self.graph.n_params += 1;
        self.name(id, name)?;
        Ok(id)
    }

    /// A literal (a weak scalar, as `2.0` in program text).
    pub fn literal(&mut self, value: Scalar) -> Result<NodeId, LangError> {
        self.op(Op::Literal(value), &[])
    }

    /// A symbolic size used as a value (an `i64` scalar, as `T` in
    /// `(mul x T)`).
    pub fn size(&mut self, symbol: &str) -> Result<NodeId, LangError> {
        if !is_identifier(symbol) {
            return Err(build(BuildErrorKind::BadName(symbol.to_string())));
        }
        self.op(Op::Size(symbol.to_string()), &[])
    }

    /// The node `op(args...)`, after the make_node check of `op`.
    /// [`Op::Input`], [`Op::Scan`] and [`Op::Proj`] have their own methods
    /// ([`Builder::input`], [`Builder::scan`]).
    pub fn op(&mut self, op: Op, args: &[NodeId]) -> Result<NodeId, LangError> {
        if let Op::Input(_) | Op::Scan(_) | Op::Proj(_) | Op::Grad = op {
            return Err(build(BuildErrorKind::NotAnOp(op.name())));
        }
        let mut tys = Vec::with_capacity(args.len());
        let mut consts = Vec::with_capacity(args.len());
        for &a in args {
            let node = self.node(a)?;
            tys.push(node.ty());
            consts.push(match node.op {
                Op::Literal(s) => Some(s),
                _ => None,
            });
        }
        let ty = infer(&op, &tys, &consts).map_err(|msg| self.type_error(op.name(), msg))?;
        Ok(self.push(op, args.to_vec(), vec![ty]))
    }

    /// A loop: `clauses` gives its sequences (with their taps), outputs,
    /// number of non-sequences, `n_steps`, direction and kept steps (its
    /// `body` is ignored), `args` its outer arguments in [`Scan`]'s layout,
    /// and `body` builds its step function. `body` is called with a builder
    /// for the step function and the ids of its parameters (one per
    /// sequence tap, per state tap, per non-sequence; unnamed, so the
    /// printer names them unless `body` does), and returns the step's
    /// results, one per output (one per out tap of a mitmot, see
    /// [`LoopSig::body_outputs`]). Returns one node per output (the loop's
    /// [`Op::Proj`] nodes).
    ///
    /// The checks are the parser's: sequences have a leading axis, taps are
    /// distinct and bounded, a mitsot's taps are negative and its init has
    /// the rows they read, `n_steps` is a non-negative `i64` scalar not
    /// above what the sequences allow, and each state's step keeps the
    /// init's type. An output's type is the step count (or its kept rows)
    /// followed by the init's step type for a state, the step result's for
    /// a nitsot.
    ///
    /// ```
    /// use eqscan::lang::build::Builder;
    /// use eqscan::lang::{BinaryOp, DType, Dim, LoopSig, Op, OutputInfo, Type};
    ///
    /// // A running sum of the rows of X.
    /// let mut b = Builder::new("running_sum");
    /// let x = b.input("X", Type::new(DType::F64, vec![Dim::sym("T"), Dim::known(3)]))?;
    /// let h0 = b.op(Op::Zeros(Type::new(DType::F64, vec![Dim::known(3)])), &[])?;
    /// let clauses = LoopSig {
    ///     sequences: vec![vec![0]],
    ///     outputs: vec![OutputInfo::Sitsot],
    ///     n_non_seqs: 0,
    ///     has_n_steps: false,
    ///     go_backwards: false,
    ///     keep: Vec::new(),
    ///     until: false,
    ///     as_list: Vec::new(),
    /// };
    /// let outs = b.scan(clauses, &[x, h0], |body, params| {
    ///     let (x_t, h_prev) = (params[0], params[1]);
    ///     Ok::<_, eqscan::lang::LangError>(vec![body.op(Op::Binary(BinaryOp::Add), &[h_prev, x_t])?])
    /// })?;
    /// assert_eq!(b.ty(outs[0])?.to_string(), "f64(T, 3)");
    /// let p = b.finish(&outs)?;
    /// assert_eq!(p.count_scans(), 1);
    /// # Ok::<(), eqscan::lang::LangError>(())
    /// ```
    ///
    /// A while loop (`until: true` in its clauses) returns its stop
    /// condition, a scalar, after the outputs' results; its outputs' leading
    /// length is then known only at run time.
    ///
    /// A MIT-MOT state ([`OutputInfo::Mitmot`]) takes its whole tape as its
    /// init argument, one body parameter per in tap and one body result per
    /// out tap; its output is the tape after the loop (the tape's type).
    /// The dual of a sitsot in a backward loop reads slots `i` and `i + 1`
    /// and writes slot `i + 1`:
    ///
    /// ```
    /// use eqscan::lang::build::Builder;
    /// use eqscan::lang::{BinaryOp, DType, Dim, LoopSig, Op, OutputInfo, Type};
    ///
    /// // G[i + 1] = G[i + 1] + w * G[i], for i = 0 .. T-1, on a tape of T+1
    /// // slots of 2 elements (the tape's slot i read at in tap 0).
    /// let mut b = Builder::new("backward");
    /// let slots = Dim::sym("T").add(&Dim::known(1));
    /// let g = b.input("G", Type::new(DType::F64, vec![Dim::sym("T"), Dim::known(2)]))?;
    /// let w = b.input("w", Type::new(DType::F64, vec![]))?;
    /// let zero = b.op(Op::Zeros(Type::new(DType::F64, vec![Dim::known(1), Dim::known(2)])), &[])?;
    /// let tape = b.op(Op::Concat(0), &[g, zero])?;
    /// assert_eq!(b.ty(tape)?.shape, vec![slots.clone(), Dim::known(2)]);
    /// let n = b.size("T")?;
    /// let clauses = LoopSig {
    ///     outputs: vec![OutputInfo::Mitmot { in_taps: vec![0, 1], out_taps: vec![1] }],
    ///     n_non_seqs: 1,
    ///     has_n_steps: true,
    ///     ..LoopSig::default()
    /// };
    /// // Arguments: the tape (the mitmot's init), the non-sequence, n_steps.
    /// let outs = b.scan(clauses, &[tape, w, n], |body, params| {
    ///     let (g_i, g_next, w) = (params[0], params[1], params[2]);
    ///     let pulled = body.op(Op::Binary(BinaryOp::Mul), &[w, g_i])?;
    ///     Ok::<_, eqscan::lang::LangError>(vec![body.op(Op::Binary(BinaryOp::Add), &[g_next, pulled])?])
    /// })?;
    /// // The output is the whole tape after the loop.
    /// assert_eq!(b.ty(outs[0])?.to_string(), "f64(T+1, 2)");
    /// # Ok::<(), eqscan::lang::LangError>(())
    /// ```
    pub fn scan<E, F>(&mut self, sig: LoopSig, args: &[NodeId], body: F) -> Result<Vec<NodeId>, E>
    where
        E: From<LangError>,
        F: FnOnce(&mut Builder, &[NodeId]) -> Result<Vec<NodeId>, E>,
    {
        let mut sig = sig;
        self.check_clauses(&mut sig, args)?;
        let param_tys = {
            let arg_tys = self.arg_types(args)?;
            loop_type::param_types(&sig, &arg_tys).map_err(|r| self.loop_error(r))?
        };
        let mut inner = Builder {
            program: String::new(),
            graph: Graph::default(),
            names: HashMap::new(),
            span: self.span,
        };
        let params: Vec<NodeId> = param_tys
            .into_iter()
            .enumerate()
            .map(|(k, t)| inner.push(Op::Input(k), vec![], vec![t]))
            .collect();
        inner.graph.n_params = params.len();
        let outputs = body(&mut inner, &params)?;
        let body = inner.finish_graph(&outputs)?;
        let out_tys = self.output_types(&sig, args, &body)?;
        let scan = Scan { sig, body };
        let id = self.push(Op::Scan(Box::new(scan)), args.to_vec(), out_tys.clone());
        Ok(out_tys
            .into_iter()
            .enumerate()
            .map(|(k, t)| self.push(Op::Proj(k), vec![id], vec![t]))
            .collect())
    }

    /// Names node `id` (as `let` does); the printer writes it under this
    /// name. A name is bound once per graph.
    pub fn name(&mut self, id: NodeId, name: &str) -> Result<(), LangError> {
        self.node(id)?;
        if !is_identifier(name) {
            return Err(build(BuildErrorKind::BadName(name.to_string())));
        }
        if let Some(first) = self.names.get(name) {
            return Err(LangError::Rebound {
                span: self.span,
                name: name.to_string(),
                first: self.graph.span(*first),
            });
        }
        self.names.insert(name.to_string(), id);
        self.graph.nodes[id.0].name = Some(name.to_string());
        Ok(())
    }

    /// The type of node `id`.
    pub fn ty(&self, id: NodeId) -> Result<&Type, LangError> {
        Ok(self.node(id)?.ty())
    }

    /// The graph built so far (to read nodes back, as a program transform
    /// that extends what it has built does).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The program, with `outputs` as its outputs (in order).
    pub fn finish(self, outputs: &[NodeId]) -> Result<Program, LangError> {
        let name = self.program.clone();
        Ok(Program {
            name,
            graph: self.finish_graph(outputs)?,
            shared: Default::default(),
        })
    }

    // ------------------------------------------------------------ internals

    fn node(&self, id: NodeId) -> Result<&Node, LangError> {
        self.graph
            .nodes
            .get(id.0)
            .ok_or_else(|| build(BuildErrorKind::UnknownNode(id)))
    }

    fn push(&mut self, op: Op, args: Vec<NodeId>, ty: Vec<Type>) -> NodeId {
        let node = Node {
            op,
            args,
            ty,
            name: None,
        };
        self.graph.push(node, self.span)
    }

    fn type_error(&self, op: &str, msg: impl Into<String>) -> LangError {
        LangError::Type {
            span: self.span,
            op: op.to_string(),
            msg: msg.into(),
        }
    }

    fn finish_graph(mut self, outputs: &[NodeId]) -> Result<Graph, LangError> {
        if outputs.is_empty() {
            return Err(build(BuildErrorKind::NoOutputs));
        }
        for &o in outputs {
            self.node(o)?;
        }
        self.graph.outputs = outputs.to_vec();
        Ok(self.graph)
    }

    /// The checks of a scan's clauses and outer arguments that do not need
    /// its body; normalizes `keep` (empty when no output keeps fewer
    /// steps, as the parser stores it).
    fn check_clauses(&self, scan: &mut LoopSig, args: &[NodeId]) -> Result<(), LangError> {
        if scan.n_args() != args.len() {
            return Err(build(BuildErrorKind::ScanArgs {
                expected: scan.n_args(),
                got: args.len(),
            }));
        }
        for &a in args {
            self.node(a)?;
        }
        if scan.outputs.is_empty() {
            return Err(self.type_error("scan", "a scan needs at least one output"));
        }
        if scan.sequences.is_empty() && !scan.has_n_steps {
            return Err(self.type_error("scan", "a scan without sequences needs (n_steps N)"));
        }
        let state_taps = scan.outputs.iter().flat_map(|o| match o {
            OutputInfo::Mitsot(t) => vec![t],
            OutputInfo::Mitmot { in_taps, out_taps } => vec![in_taps, out_taps],
            _ => Vec::new(),
        });
        for taps in scan.sequences.iter().chain(state_taps) {
            self.check_taps(taps)?;
        }
        if scan.keep.iter().all(|k| k.is_none()) {
            scan.keep = Vec::new();
        } else if scan.keep.len() != scan.outputs.len() {
            return Err(self.type_error(
                "scan",
                format!(
                    "keep has {} entries for {} outputs",
                    scan.keep.len(),
                    scan.outputs.len()
                ),
            ));
        }
        for (k, info) in scan.outputs.iter().enumerate() {
            let kept = scan.kept(k);
            if kept == Some(0) {
                return Err(self.type_error("scan", "an output keeps at least 1 step, got 0"));
            }
            if info.is_mitmot() && kept.is_some() {
                return Err(self.type_error(
                    "scan",
                    "a mitmot keeps its whole tape: (keep K) does not apply",
                ));
            }
            if let OutputInfo::Mitsot(taps) = info {
                if let Some(t) = taps.iter().find(|&&t| t >= 0) {
                    return Err(self.type_error(
                        "scan",
                        format!("a mitsot reads past values: taps must be negative, got {t}"),
                    ));
                }
                let rows = -taps.iter().min().copied().unwrap_or(-1);
                if let Some(kept) = kept.filter(|k| (*k as i64) < rows) {
                    return Err(self.type_error(
                        "scan",
                        format!(
                            "a mitsot with taps {taps:?} must keep at least {rows} steps, got (keep {kept})"
                        ),
                    ));
                }
            }
        }
        if let Some(k) = scan.n_steps_arg() {
            let n = self.node(args[k])?;
            let t = n.ty();
            if t.dtype != DType::I64 || t.ndim() != 0 {
                return Err(
                    self.type_error("scan", format!("n_steps must be an i64 scalar, got {t}"))
                );
            }
            // A negative step count is the run-time error of the shape
            // check (located there), even when it is a literal: the
            // optimizer folds `(neg 3)` to `-3`, and the optimized program
            // must fail where the written one fails, not here.
        }
        Ok(())
    }

    fn check_taps(&self, taps: &[i64]) -> Result<(), LangError> {
        if taps.is_empty() {
            return Err(self.type_error("scan", "expected (taps T ...)"));
        }
        if let Some(v) = taps
            .iter()
            .find(|v| v.unsigned_abs() > MAX_TAP.unsigned_abs())
        {
            return Err(self.type_error(
                "scan",
                format!("a tap must lie within -{MAX_TAP}..{MAX_TAP}, got {v}"),
            ));
        }
        let distinct: BTreeSet<_> = taps.iter().collect();
        if distinct.len() != taps.len() {
            return Err(self.type_error("scan", "taps must be distinct"));
        }
        Ok(())
    }

    /// The types of `args`, each checked to be a node.
    fn arg_types(&self, args: &[NodeId]) -> Result<Vec<&Type>, LangError> {
        args.iter().map(|a| self.ty(*a)).collect()
    }

    /// A loop type error at the builder's current span.
    fn loop_error(&self, reason: LoopTypeError) -> LangError {
        LangError::Loop {
            span: self.span,
            op: "scan".to_string(),
            reason: Box::new(reason),
        }
    }

    /// The types of a loop's outputs, its body built, by the scan type
    /// rule ([`loop_type::output_types`]); `n_steps` is a literal or a size
    /// symbol, or unknown statically.
    fn output_types(
        &self,
        sig: &LoopSig,
        args: &[NodeId],
        body: &Graph,
    ) -> Result<Vec<Type>, LangError> {
        let arg_tys = self.arg_types(args)?;
        let n_steps = match sig.n_steps_arg() {
            Some(k) => Some(match &self.node(args[k])?.op {
                Op::Literal(Scalar::I64(v)) => Dim::known(*v),
                Op::Size(s) => Dim::sym(s),
                _ => Dim::Unknown,
            }),
            None => None,
        };
        let body_tys: Vec<&Type> = body.outputs.iter().map(|o| body.node(*o).ty()).collect();
        loop_type::output_types(sig, &arg_tys, n_steps, &body_tys).map_err(|r| self.loop_error(r))
    }
}

fn build(kind: BuildErrorKind) -> LangError {
    LangError::Build { kind }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::op::{BinaryOp, ReduceOp, UnaryOp};
    use crate::lang::{parse_program, print_program};

    fn f64_of(dims: &[Dim]) -> Type {
        Type::new(DType::F64, dims.to_vec())
    }

    fn clauses(sequences: Vec<Vec<i64>>, outputs: Vec<OutputInfo>, n_non_seqs: usize) -> LoopSig {
        LoopSig {
            sequences,
            outputs,
            n_non_seqs,
            has_n_steps: false,
            go_backwards: false,
            keep: Vec::new(),
            until: false,
            as_list: Vec::new(),
        }
    }

    #[test]
    fn a_built_program_equals_the_parsed_one() {
        // The same program as text, with the same node order and names.
        let text = "(program p
  (input X (f64 T 3))
  (input h0 (f64 2 3))
  (input w (f64 3))
  (let (H Y) (scan
    (sequences (X (taps -1 0)))
    (outputs_info (mitsot h0 (taps -2 -1)) (nitsot))
    (non_sequences w)
    (fn (x_prev x h_2 h_1 v)
      (let s (add (mul x v) h_1))
      (outputs s (sum (sub x_prev h_2) 0)))))
  (output (index H -1) Y))
";
        let parsed = parse_program(text).unwrap();
        let mut b = Builder::new("p");
        let x = b
            .input("X", f64_of(&[Dim::sym("T"), Dim::known(3)]))
            .unwrap();
        let h0 = b
            .input("h0", f64_of(&[Dim::known(2), Dim::known(3)]))
            .unwrap();
        let w = b.input("w", f64_of(&[Dim::known(3)])).unwrap();
        let sig = clauses(
            vec![vec![-1, 0]],
            vec![OutputInfo::Mitsot(vec![-2, -1]), OutputInfo::Nitsot],
            1,
        );
        let outs = b
            .scan(sig, &[x, h0, w], |body, ps| {
                for (p, n) in ps.iter().zip(["x_prev", "x", "h_2", "h_1", "v"]) {
                    body.name(*p, n)?;
                }
                let xv = body.op(Op::Binary(BinaryOp::Mul), &[ps[1], ps[4]])?;
                let s = body.op(Op::Binary(BinaryOp::Add), &[xv, ps[3]])?;
                body.name(s, "s")?;
                let d = body.op(Op::Binary(BinaryOp::Sub), &[ps[0], ps[2]])?;
                let r = body.op(Op::Reduce(ReduceOp::Sum, Some(0)), &[d])?;
                Ok::<_, LangError>(vec![s, r])
            })
            .unwrap();
        b.name(outs[0], "H").unwrap();
        b.name(outs[1], "Y").unwrap();
        let last = b.literal(Scalar::I64(-1)).unwrap();
        let h = b.op(Op::Index, &[outs[0], last]).unwrap();
        assert_eq!(b.ty(outs[0]).unwrap().to_string(), "f64(T-1, 3)");
        assert_eq!(b.ty(outs[1]).unwrap().to_string(), "f64(T-1,)");
        let built = b.finish(&[h, outs[1]]).unwrap();
        assert_eq!(built, parsed);
        assert_eq!(print_program(&built), text);
    }

    #[test]
    fn misuse_is_refused_with_its_kind() {
        let mut b = Builder::new("p");
        let x = b.input("x", f64_of(&[Dim::known(3)])).unwrap();
        let kind = |e: LangError| match e {
            LangError::Build { kind } => kind,
            other => panic!("not a build error: {other}"),
        };
        assert_eq!(
            kind(b.input("bad name", f64_of(&[])).unwrap_err()),
            BuildErrorKind::BadName("bad name".into())
        );
        assert!(matches!(
            b.input("x", f64_of(&[])).unwrap_err(),
            LangError::Rebound { name, .. } if name == "x"
        ));
        assert_eq!(
            kind(
                b.input("y", f64_of(&[Dim::sym("T").sub(&Dim::known(1))]))
                    .unwrap_err()
            ),
            BuildErrorKind::InputType {
                name: "y".into(),
                ty: "f64(T-1,)".into()
            }
        );
        assert_eq!(
            kind(b.op(Op::Unary(UnaryOp::Neg), &[NodeId(7)]).unwrap_err()),
            BuildErrorKind::UnknownNode(NodeId(7))
        );
        assert_eq!(
            kind(b.op(Op::Proj(0), &[x]).unwrap_err()),
            BuildErrorKind::NotAnOp("proj")
        );
        let n = b.op(Op::Unary(UnaryOp::Neg), &[x]).unwrap();
        assert_eq!(
            kind(b.input("late", f64_of(&[])).unwrap_err()),
            BuildErrorKind::LateInput("late".into())
        );
        let e = b
            .scan(
                clauses(vec![vec![0]], vec![OutputInfo::Nitsot], 0),
                &[x, n],
                |_, ps| Ok::<_, LangError>(ps.to_vec()),
            )
            .unwrap_err();
        assert_eq!(
            kind(e),
            BuildErrorKind::ScanArgs {
                expected: 1,
                got: 2
            }
        );
        assert_eq!(kind(b.finish(&[]).unwrap_err()), BuildErrorKind::NoOutputs);
    }

    #[test]
    fn type_errors_are_the_parsers() {
        // Each program is refused by the parser and by the builder with
        // the same sentence.
        let parse_err = |text: &str| parse_program(text).unwrap_err().to_string();
        let mut b = Builder::new("p");
        let x = b
            .input("X", f64_of(&[Dim::known(5), Dim::known(2)]))
            .unwrap();
        let h = b
            .input("h", Type::new(DType::F32, vec![Dim::known(2)]))
            .unwrap();
        let state = clauses(vec![vec![0]], vec![OutputInfo::Sitsot], 0);
        let e = b
            .scan(state, &[x, h], |body, ps| {
                Ok::<_, LangError>(vec![body.op(Op::Binary(BinaryOp::Add), &[ps[1], ps[0]])?])
            })
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            parse_err(
                "(program p (input X (f64 5 2)) (input h (f32 2))
                   (output (scan (sequences X) (outputs_info (sitsot h)) (fn (x h) (add h x)))))"
            )
        );
        let mitsot = clauses(vec![], vec![OutputInfo::Mitsot(vec![-3, -1])], 0);
        let e = b
            .scan(
                LoopSig {
                    has_n_steps: true,
                    ..mitsot
                },
                &[x, x],
                |_, ps| Ok::<_, LangError>(vec![ps[0]]),
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "scan: n_steps must be an i64 scalar, got f64(5, 2)"
        );
        let nine = b.literal(Scalar::I64(9)).unwrap();
        let seq = LoopSig {
            has_n_steps: true,
            ..clauses(vec![vec![0]], vec![OutputInfo::Nitsot], 0)
        };
        let e = b
            .scan(seq, &[x, nine], |_, ps| Ok::<_, LangError>(vec![ps[0]]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            parse_err(
                "(program p (input X (f64 5 2))
                   (output (scan (sequences X) (fn (x) x) (n_steps 9))))"
            )
        );
        let e = b
            .scan(
                clauses(vec![vec![0, 0]], vec![OutputInfo::Nitsot], 0),
                &[x],
                |_, ps| Ok::<_, LangError>(vec![ps[0]]),
            )
            .unwrap_err();
        assert_eq!(e.to_string(), "scan: taps must be distinct");
        let scalar = b.literal(Scalar::F64(1.0)).unwrap();
        let e = b
            .scan(
                clauses(vec![vec![0]], vec![OutputInfo::Nitsot], 0),
                &[scalar],
                |_, ps| Ok::<_, LangError>(vec![ps[0]]),
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "scan: a sequence needs a leading axis to iterate over, got the scalar f64()"
        );
    }

    #[test]
    fn a_kept_output_has_its_rows_and_spans_are_recorded() {
        let mut b = Builder::new("p");
        let x = b.input("X", f64_of(&[Dim::sym("T")])).unwrap();
        let z = b.literal(Scalar::F64(0.0)).unwrap();
        let sig = LoopSig {
            keep: vec![Some(1)],
            ..clauses(vec![vec![0]], vec![OutputInfo::Sitsot], 0)
        };
        let at = Span { line: 3, col: 7 };
        b.set_span(at);
        let s = b
            .scan(sig, &[x, z], |body, ps| {
                Ok::<_, LangError>(vec![body.op(Op::Binary(BinaryOp::Add), &[ps[0], ps[1]])?])
            })
            .unwrap();
        // T may be 0: the kept rows are min(1, T), known once it runs.
        assert_eq!(b.ty(s[0]).unwrap().to_string(), "f64(?,)");
        // 2 steps keep 1 row; 0 steps none.
        for (steps, rows) in [(Dim::known(2), "f64(1,)"), (Dim::known(0), "f64(0,)")] {
            let mut b = Builder::new("q");
            let x = b.input("X", f64_of(&[steps])).unwrap();
            let z = b.literal(Scalar::F64(0.0)).unwrap();
            let sig = LoopSig {
                keep: vec![Some(1)],
                ..clauses(vec![vec![0]], vec![OutputInfo::Sitsot], 0)
            };
            let s = b
                .scan(sig, &[x, z], |body, ps| {
                    Ok::<_, LangError>(vec![body.op(Op::Binary(BinaryOp::Add), &[ps[0], ps[1]])?])
                })
                .unwrap();
            assert_eq!(b.ty(s[0]).unwrap().to_string(), rows);
        }
        let p = b.finish(&s).unwrap();
        assert_eq!(p.graph.span(s[0]), at);
        // The sitsot state is typed from its init (weak 0.0 made strong).
        assert_eq!(
            print_program(&p),
            "(program p
  (input X (f64 T))
  (output (scan
    (sequences X)
    (outputs_info (sitsot 0.0 (keep 1)))
    (fn (_v0 _v1)
      (add _v0 _v1)))))
"
        );
        let e = Builder::new("q")
            .op(Op::Binary(BinaryOp::Add), &[NodeId(0), NodeId(0)])
            .unwrap_err();
        assert_eq!(e.span(), None);
    }
}
