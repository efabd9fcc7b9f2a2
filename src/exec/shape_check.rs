//! The program as written, checked with its sizes bound, before anything runs.
//!
//! Owns: [`check_program`], the check `eqscan run` applies to the program
//! as the user wrote it once the symbolic sizes are known (from the input
//! shapes and `--dim`), without computing any value. It is the parser's
//! make_node check again ([`crate::lang::infer::infer`], the same rules and
//! the same sentences), now on sizes that are numbers, plus what only the
//! bound sizes tell about loops and state:
//!
//! - every node's type with the symbols bound; a symbol a node needs and
//!   nothing binds is an error at that node (`zeros: symbolic size 'K' is
//!   not bound: give --dim K=N`), as is an input type with one;
//! - an `index` by a size expression (a literal, a symbol, `add`/`sub`/`mul`
//!   of those) is checked against the axis it indexes;
//! - each scan's step count: an `n_steps` that is a size expression is
//!   evaluated and checked against what the sequences allow, with the
//!   executor's sentence (the loop frame's `step_count`); a mitsot's
//!   init rows against its taps; each state's shape against what the body
//!   returns for it; a mapped output of a loop without steps needs a step
//!   shape known from the types;
//! - each shared variable's update against the variable's shape.
//!
//! The rule is: a program passes when it would pass the parser's check had
//! its sizes been written as numbers, and no symbolic size of a node's type
//! is negative at these sizes (a slice `x[0:-1]` has the symbolic length
//! `T-1`: the optimizer reasons with it, `(T-1)+1 = T`, which holds only
//! when `T >= 1`; at `T = 0` the program is refused in both modes). So a loop body is checked whatever
//! its step count (a body that cannot run with these sizes is an error even
//! in a loop of 0 steps, as it is with literal sizes), and so is a node no
//! output reads. The executor alone would accept both (it never runs them),
//! but an optimized program may well run them: the optimizer hoists work
//! out of loops and merges equal terms, so a body error of a 0-step loop
//! becomes an error of a loop-free program. Checking them is what makes the
//! optimized run and the run as written agree.
//!
//! An `n_steps` computed from data (an input's value, a reduction) is not a
//! size expression: the check does not know that loop's step count, and
//! sizes derived from it are unknown. Checks that involve an unknown size
//! are left to the executor, whose errors, when the optimized program
//! fails, are mapped back to the written program by [`super::map_back`].
//!
//! Errors are [`ExecError`]s located in the checked program (its nodes'
//! spans), so checking the program as parsed from the user's file names
//! places in that file. `eqscan run` applies the check in both modes, with
//! and without `--no-opt`, before optimizing: the same program gets the
//! same first error, whichever way it runs.
//!
//! The compiled executor ([`super::plan::Compiled`]) does not run this
//! check: it is handed the program to run, which after optimizing is not
//! the user's, and it must keep agreeing with the reference interpreter on
//! every result and every error (a 0-step loop's body, a node no output
//! reads: neither runs). A library user who optimizes a program checks the
//! written one with the sizes of the call, then runs the optimized one
//! through [`super::map_back::run_mapped_back`], as `eqscan run` does.
//!
//! Must not: compute values (no kernel runs, nothing is allocated beyond
//! the types), or rewrite programs.

use super::error::{ExecError, LoopError};
use super::loop_frame::step_count;
use super::run::Dims;
use crate::exec::value::shape_str as concrete_shape_str;
use crate::lang::infer::infer;
use crate::lang::loop_type;
use crate::lang::program::{Graph, NodeId, Program, Scan, Span};
use crate::lang::{AttrValue, BinaryOp, DType, Dim, InitForm, Op, Scalar, Type};

/// Checks the program `p` as written with the symbolic sizes bound by
/// `dims`, computing types only. The first error found, in graph order
/// (a loop's clauses before its body, its body before its states), is
/// returned with the span of the node it belongs to.
///
/// ```
/// use eqscan::exec::shape_check::check_program;
/// use eqscan::lang::parse_program;
///
/// let p = parse_program(
///     "(program p (input X (f64 N)) (input Y (f64 M)) (output (add X Y)))",
/// ).unwrap();
/// let dims = [("N".to_string(), 3), ("M".to_string(), 4)].into();
/// let e = check_program(&p, &dims).unwrap_err();
/// assert_eq!(e.to_string(), "add: shapes (3,) and (4,) do not broadcast");
/// assert!(check_program(&p, &[("N".to_string(), 3), ("M".to_string(), 3)].into()).is_ok());
/// ```
pub fn check_program(p: &Program, dims: &Dims) -> Result<(), ExecError> {
    let checker = Checker { dims };
    let mut params = Vec::with_capacity(p.graph.n_params);
    for (id, node) in p.graph.params() {
        let ty = checker
            .bind_type(node.ty())
            .map_err(|name| ExecError::UnboundDim {
                span: p.graph.span(id),
                name,
            })?;
        params.push(Fact::of(ty));
    }
    let facts = checker.graph(&p.graph, &params)?;
    // Updates: the new value must have the variable's shape.
    let names: Vec<&str> = p.shared_vars().map(|(n, _)| n).collect();
    let n_out = p.n_outputs();
    for (u, &j) in p.shared.updates.iter().enumerate() {
        let (Some(o), Some(var)) = (p.graph.outputs.get(n_out + u), params.get(p.n_inputs() + j))
        else {
            continue;
        };
        let value = &facts[o.0].tys[0];
        if let (Some(got), Some(want)) = (known_shape(&value.shape), known_shape(&var.tys[0].shape))
        {
            if got != want {
                return Err(ExecError::Op {
                    span: p.graph.span(*o),
                    op: "update".to_string(),
                    msg: format!(
                        "the new value of '{}' has shape {}, the variable has shape {}",
                        names.get(j).copied().unwrap_or("_"),
                        concrete_shape_str(&got),
                        concrete_shape_str(&want)
                    ),
                });
            }
        }
    }
    Ok(())
}

/// What the check knows of one node: its result types with the sizes
/// bound, and its value when it is an i64 size expression.
#[derive(Clone, Debug)]
struct Fact {
    tys: Vec<Type>,
    value: Option<i64>,
}

impl Fact {
    fn of(ty: Type) -> Fact {
        Fact {
            tys: vec![ty],
            value: None,
        }
    }
}

struct Checker<'a> {
    dims: &'a Dims,
}

/// The sentence the executor gives for a symbol it cannot bind.
fn unbound_msg(name: &str) -> String {
    format!("symbolic size '{name}' is not bound: give --dim {name}=N")
}

/// A shape of known sizes, or `None` when a size is unknown.
fn known_shape(shape: &[Dim]) -> Option<Vec<usize>> {
    shape
        .iter()
        .map(|d| d.as_known().and_then(|n| usize::try_from(n).ok()))
        .collect()
}

impl Checker<'_> {
    fn bind(&self, s: &str) -> Option<i64> {
        self.dims.get(s).copied()
    }

    /// `d` with its symbols bound; `Err(symbol)` for an unbound one.
    /// An unknown size stays unknown.
    fn bind_dim(&self, d: &Dim) -> Result<Dim, String> {
        if *d == Dim::Unknown {
            return Ok(Dim::Unknown);
        }
        match d.eval(&|s| self.bind(s)) {
            Some(n) => Ok(Dim::known(n)),
            None => Err(d
                .symbols()
                .find(|s| self.bind(s).is_none())
                .unwrap_or("?")
                .to_string()),
        }
    }

    fn bind_type(&self, t: &Type) -> Result<Type, String> {
        let shape = t
            .shape
            .iter()
            .map(|d| self.bind_dim(d))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Type {
            dtype: t.dtype,
            shape,
            weak: t.weak,
            list: t.list,
        })
    }

    /// `op` with the sizes its attributes hold bound (created types,
    /// reshape sizes, arange's length; a reshape's `-1` is kept), or `None`
    /// when it holds none; `Err(symbol)` for an unbound one.
    fn bind_op(&self, op: &Op) -> Result<Option<Op>, String> {
        let Some((kind, attrs)) = op.parts() else {
            return Ok(None);
        };
        let holds_sizes = |a: &AttrValue| {
            matches!(
                a,
                AttrValue::Sizes(_) | AttrValue::Type(_) | AttrValue::Size(_)
            )
        };
        if !attrs.iter().any(holds_sizes) {
            return Ok(None);
        }
        let bound = attrs
            .into_iter()
            .map(|a| {
                Ok(match a {
                    AttrValue::Sizes(ds) => AttrValue::Sizes(
                        ds.iter()
                            .map(|d| match d.as_known() {
                                Some(n) => Ok(Dim::known(n)),
                                None => self.bind_dim(d),
                            })
                            .collect::<Result<Vec<_>, _>>()?,
                    ),
                    AttrValue::Type(t) => AttrValue::Type(self.bind_type(&t)?),
                    AttrValue::Size(d) => AttrValue::Size(self.bind_dim(&d)?),
                    other => other,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Op::from_parts(kind, bound))
    }

    /// The sentence for a symbolic size of `declared` (the node's type as
    /// parsed) that is negative at these sizes where the bound type `got`
    /// has a size (a slice `x[0:-1]` of a length-0 `x` has length 0, its
    /// symbolic length `T-1` says -1), or `None`. Symbolic sizes are what
    /// the optimizer reasons with (`(T-1)+1 = T`), so the sizes that make
    /// one negative are refused, in both modes, before anything runs.
    fn negative_symbolic_size(&self, declared: &Type, got: &Type) -> Option<String> {
        declared
            .shape
            .iter()
            .zip(&got.shape)
            .enumerate()
            .find_map(|(axis, (d, g))| {
                let n = d.eval_signed(&|s| self.bind(s))?;
                let at: Vec<String> = d
                    .symbols()
                    .filter_map(|s| self.bind(s).map(|v| format!("{s}={v}")))
                    .collect();
                (n < 0 && g.as_known().is_some_and(|g| i128::from(g) != n)).then(|| {
                    format!(
                        "axis {axis} has the symbolic size {d}, which is {n} at {}: \
                         sizes that make a symbolic size negative are not supported",
                        at.join(" ")
                    )
                })
            })
    }

    /// Checks graph `g` whose parameters have `params`; returns what it
    /// knows of every node.
    fn graph(&self, g: &Graph, params: &[Fact]) -> Result<Vec<Fact>, ExecError> {
        let mut facts: Vec<Fact> = Vec::with_capacity(g.nodes.len());
        for (i, node) in g.nodes.iter().enumerate() {
            let span = g.span(NodeId(i));
            let op_err = |msg: String| ExecError::Op {
                span,
                op: node.op.name().to_string(),
                msg,
            };
            let internal = |what: &str| op_err(format!("internal error: {what}"));
            let arg = |k: usize| -> Result<&Fact, ExecError> {
                node.args
                    .get(k)
                    .and_then(|a| facts.get(a.0))
                    .ok_or_else(|| internal("an argument comes after its reader"))
            };
            let fact = match &node.op {
                Op::Input(_) => params
                    .get(i)
                    .cloned()
                    .ok_or_else(|| internal("missing parameter"))?,
                Op::Proj(k) => Fact::of(
                    arg(0)?
                        .tys
                        .get(*k)
                        .cloned()
                        .ok_or_else(|| internal("missing result"))?,
                ),
                Op::Size(s) => Fact {
                    tys: vec![Type::scalar(DType::I64)],
                    value: Some(self.bind(s).ok_or_else(|| op_err(unbound_msg(s)))?),
                },
                Op::Scan(scan) => {
                    let args = (0..node.args.len())
                        .map(arg)
                        .collect::<Result<Vec<_>, _>>()?;
                    let tys = self.scan(scan, &args, &node.ty, span)?;
                    for (declared, got) in node.ty.iter().zip(&tys) {
                        if let Some(msg) = self.negative_symbolic_size(declared, got) {
                            return Err(op_err(msg));
                        }
                    }
                    Fact { tys, value: None }
                }
                op => {
                    let args = (0..node.args.len())
                        .map(arg)
                        .collect::<Result<Vec<_>, _>>()?;
                    let bound = self.bind_op(op).map_err(|s| op_err(unbound_msg(&s)))?;
                    let op = bound.as_ref().unwrap_or(op);
                    let tys: Vec<&Type> = args.iter().map(|f| &f.tys[0]).collect();
                    // Literals as the parser passes them; an index also
                    // by the value of a size expression.
                    let consts: Vec<Option<Scalar>> = node
                        .args
                        .iter()
                        .zip(&args)
                        .map(|(a, f)| match g.nodes.get(a.0).map(|n| &n.op) {
                            Some(Op::Literal(s)) => Some(*s),
                            _ if matches!(op, Op::Index | Op::IncIndex) => f.value.map(Scalar::I64),
                            _ => None,
                        })
                        .collect();
                    let ty = infer(op, &tys, &consts).map_err(&op_err)?;
                    if let Some(msg) = self.negative_symbolic_size(node.ty(), &ty) {
                        return Err(op_err(msg));
                    }
                    let value = size_value(op, &ty, &args);
                    Fact {
                        tys: vec![ty],
                        value,
                    }
                }
            };
            facts.push(fact);
        }
        Ok(facts)
    }

    /// Checks one scan whose arguments are `args` (`declared`: its result
    /// types as parsed); returns its result types with the sizes bound.
    /// The checks and sentences are the executor's, in its order: the step
    /// count, the mitsot inits, the body, the states.
    fn scan(
        &self,
        scan: &Scan,
        args: &[&Fact],
        declared: &[Type],
        span: Span,
    ) -> Result<Vec<Type>, ExecError> {
        let fail = |msg: String| ExecError::Op {
            span,
            op: "scan".to_string(),
            msg,
        };
        let ty = |k: usize| -> Result<&Type, ExecError> {
            args.get(k)
                .map(|f| &f.tys[0])
                .ok_or_else(|| fail("internal error: wrong number of arguments".to_string()))
        };
        let loop_err = |reason| ExecError::Loop { span, reason };
        let sig = &scan.sig;
        if args.len() != sig.n_args() {
            return Err(fail(
                "internal error: wrong number of arguments".to_string(),
            ));
        }
        // Steps the sequences allow: None when some length is unknown.
        let mut allowed: Option<Option<usize>> = None;
        for k in sig.seq_args() {
            let len = ty(k)?.shape.first().and_then(Dim::as_known);
            let avail = len.map(|len| {
                sig.seq_window(k)
                    .steps_in(usize::try_from(len).unwrap_or(0))
            });
            allowed = Some(match (allowed, avail) {
                (None, a) => a,
                (Some(Some(a)), Some(b)) => Some(a.min(b)),
                _ => None,
            });
        }
        // The step count: None when it depends on data or on an unknown
        // sequence length.
        let steps: Option<usize> = match sig.n_steps_arg() {
            Some(k) => match args[k].value {
                Some(v) => Some(step_count(Some(Some(v)), allowed.flatten()).map_err(loop_err)?),
                None => None,
            },
            None => match allowed {
                Some(a) => a,
                None => Some(0),
            },
        };
        // The inits, in outputs order (None for a mapped output).
        // The inits, in outputs order (None for a mapped output), and the
        // shape of each state's step.
        let mut inits: Vec<Option<Vec<Dim>>> = Vec::with_capacity(sig.outputs.len());
        for (k, (info, i)) in sig.outputs.iter().zip(sig.init_index()).enumerate() {
            let (Some(form), Some(i)) = (info.init_form(), i) else {
                inits.push(None);
                continue;
            };
            let init = ty(sig.init_args().start + i)?;
            let step = match form {
                InitForm::Value => Some(init.shape.as_slice()),
                InitForm::Rows(need) => init.shape.split_first().and_then(|(rows, step)| {
                    let wrong = rows.as_known().is_some_and(|r| r != need as i64);
                    (!wrong).then_some(step)
                }),
                InitForm::Tape => {
                    let (slots, step) = init.shape.split_first().ok_or_else(|| {
                        fail("internal error: a mitmot tape without slots".to_string())
                    })?;
                    if let (Some(n), Some(slots)) = (steps, slots.as_known()) {
                        let slots = usize::try_from(slots).unwrap_or(0);
                        let frame_check = crate::exec::loop_frame::check_tape(k, info, n, slots);
                        frame_check.map_err(loop_err)?;
                    }
                    Some(step)
                }
            };
            let Some(step) = step else {
                return Err(loop_err(LoopError::InitRows {
                    out: k,
                    taps: info.taps(),
                    rows: info.window().depth(),
                    init: init.shape.clone(),
                }));
            };
            inits.push(Some(step.to_vec()));
        }
        // The body, with its parameters' types (by the scan type rule).
        let arg_tys: Vec<&Type> = args.iter().map(|f| &f.tys[0]).collect();
        let params: Vec<Fact> = loop_type::param_types(sig, &arg_tys)
            .map_err(|e| fail(format!("internal error: {e}")))?
            .into_iter()
            .map(Fact::of)
            .collect();
        let body = self.graph(&scan.body, &params)?;
        // States keep their shape; outputs hold the steps.
        let mut out = Vec::with_capacity(sig.outputs.len());
        for (k, state) in inits.into_iter().enumerate() {
            let mut returned_all = Vec::new();
            for j in sig.body_output_range(k) {
                let returned = scan
                    .body
                    .outputs
                    .get(j)
                    .and_then(|o| body.get(o.0))
                    .map(|f| &f.tys[0])
                    .ok_or_else(|| fail("internal error: missing body output".to_string()))?;
                returned_all.push(returned);
            }
            let Some(&returned) = returned_all.first() else {
                return Err(fail("internal error: missing body output".to_string()));
            };
            let step = match state {
                Some(state) => {
                    for returned in &returned_all {
                        if let (Some(got), Some(want)) =
                            (known_shape(&returned.shape), known_shape(&state))
                        {
                            if got != want {
                                return Err(loop_err(LoopError::StateShape {
                                    out: k,
                                    returned: got,
                                    state: want,
                                }));
                            }
                        }
                    }
                    state
                }
                None => {
                    if steps == Some(0) {
                        let static_step = declared
                            .get(k)
                            .map(|t| t.shape.get(1..).unwrap_or(&[]))
                            .unwrap_or(&[]);
                        if static_step
                            .iter()
                            .any(|d| d.eval(&|s| self.bind(s)).is_none())
                        {
                            return Err(loop_err(LoopError::UnknownStepShape {
                                out: k,
                                step: static_step.to_vec(),
                            }));
                        }
                    }
                    returned.shape.clone()
                }
            };
            let tape_slots = sig
                .init_arg(k)
                .filter(|_| sig.outputs.get(k).is_some_and(|o| o.is_mitmot()))
                .and_then(|a| args.get(a))
                .and_then(|f| f.tys[0].shape.first().cloned());
            let rows = match (tape_slots, steps) {
                (Some(slots), _) => slots,
                (None, Some(n)) => Dim::known(sig.kept_rows(k, n) as i64),
                (None, None) => Dim::Unknown,
            };
            let mut shape = vec![rows];
            shape.extend(step);
            let dtype = declared.get(k).map_or(returned.dtype, |t| t.dtype);
            out.push(Type::new(dtype, shape));
        }
        Ok(out)
    }
}

/// The value of an i64 scalar computed by `op` from size expressions
/// (a literal, a symbol, `add`/`sub`/`mul` of those); `None` otherwise or
/// on overflow (the executor's arithmetic wraps; the check then does not
/// know the value).
fn size_value(op: &Op, ty: &Type, args: &[&Fact]) -> Option<i64> {
    if ty.dtype != DType::I64 || ty.ndim() != 0 {
        return None;
    }
    match op {
        Op::Literal(Scalar::I64(v)) => Some(*v),
        Op::Binary(b) => {
            let (x, y) = (args.first()?.value?, args.get(1)?.value?);
            match b {
                BinaryOp::Add => x.checked_add(y),
                BinaryOp::Sub => x.checked_sub(y),
                BinaryOp::Mul => x.checked_mul(y),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse_program;

    fn dims(pairs: &[(&str, i64)]) -> Dims {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    /// The error of checking `src` with `d`, as `LINE:COL: message`.
    fn err(src: &str, d: &[(&str, i64)]) -> String {
        let p = parse_program(src).unwrap();
        let e = check_program(&p, &dims(d)).unwrap_err();
        let s = e.span().unwrap();
        format!("{}:{}: {e}", s.line, s.col)
    }

    fn ok(src: &str, d: &[(&str, i64)]) {
        let p = parse_program(src).unwrap();
        check_program(&p, &dims(d)).unwrap();
    }

    #[test]
    fn broadcasting_with_bound_sizes() {
        let src = "(program p (input X (f64 N)) (input Y (f64 M))\n (output (add X Y)))";
        assert_eq!(
            err(src, &[("N", 3), ("M", 4)]),
            "2:10: add: shapes (3,) and (4,) do not broadcast"
        );
        ok(src, &[("N", 3), ("M", 3)]);
        ok(src, &[("N", 3), ("M", 1)]);
    }

    #[test]
    fn state_shape_against_body() {
        let src = "(program p (input X (f64 T D)) (input a0 (f64 1))
  (let A (scan (sequences X) (outputs_info (sitsot a0)) (fn (x a) (add a x))))
  (output A))";
        assert_eq!(
            err(src, &[("T", 4), ("D", 3)]),
            "2:10: scan: state 0: fn returned shape [3] but the state has shape [1]"
        );
        ok(src, &[("T", 4), ("D", 1)]);
        // checked in a loop of no steps too
        assert!(err(src, &[("T", 0), ("D", 3)]).contains("state 0"));
    }

    #[test]
    fn step_counts() {
        let src = "(program p (input X (f64 T 2))
  (let Y (scan (sequences X) (n_steps K) (fn (x) (mul x 2.0))))
  (output Y))";
        assert_eq!(
            err(src, &[("T", 4), ("K", 7)]),
            "2:10: scan: n_steps is 7 but the sequences allow only 4 steps"
        );
        ok(src, &[("T", 4), ("K", 4)]);
        assert_eq!(
            err(src, &[("T", 4)]),
            "2:39: size: symbolic size 'K' is not bound: give --dim K=N"
        );
        let neg = "(program p (input X (f64 T 2))
  (let Y (scan (sequences X) (n_steps (sub T 5)) (fn (x) (mul x 2.0))))
  (output Y))";
        assert_eq!(
            err(neg, &[("T", 4)]),
            "2:10: scan: n_steps must not be negative, got -1"
        );
        // taps shorten the sequence
        let taps = "(program p (input X (f64 T 2))
  (let Y (scan (sequences (X (taps -2 0))) (n_steps 3) (fn (a b) (add a b))))
  (output Y))";
        assert!(err(taps, &[("T", 4)]).contains("allow only 2 steps"));
        ok(taps, &[("T", 5)]);
    }

    #[test]
    fn data_dependent_step_counts_are_left_to_the_executor() {
        // n_steps is an input's value: the loop's length is unknown, and
        // the index into it is not checked here.
        let src = "(program p (input X (f64 T 2)) (input k (i64))
  (let Y (scan (sequences X) (n_steps k) (fn (x) (mul x 2.0))))
  (output (index Y 9)))";
        ok(src, &[("T", 4)]);
        // the body still is
        let body = "(program p (input X (f64 T D)) (input w (f64 M)) (input k (i64))
  (let Y (scan (sequences X) (n_steps k) (fn (x) (mul x w))))
  (output Y))";
        assert!(err(body, &[("T", 4), ("D", 3), ("M", 2)]).contains("do not broadcast"));
    }

    #[test]
    fn indices_by_size_expressions() {
        let src = "(program p (input X (f64 N 2))\n (output (index X (add N 1))))";
        assert_eq!(
            err(src, &[("N", 3)]),
            "2:10: index: index 4 is out of range for axis 0 of size 3"
        );
        ok(
            "(program p (input X (f64 N 2)) (output (index X (sub N 1))))",
            &[("N", 3)],
        );
        ok(
            "(program p (input X (f64 N 2)) (output (index X (mul N -1))))",
            &[("N", 3)],
        );
    }

    #[test]
    fn unbound_sizes_in_created_tensors_and_dead_nodes() {
        let src = "(program p (input a0 (f64 3))
  (let Z (zeros (f64 K 3)))
  (output a0))";
        assert_eq!(
            err(src, &[]),
            "2:10: zeros: symbolic size 'K' is not bound: give --dim K=N"
        );
        ok(src, &[("K", 2)]);
        let reshape = "(program p (input X (f64 N 4)) (output (reshape X M -1)))";
        assert!(err(reshape, &[("N", 3)]).contains("'M' is not bound"));
        assert!(err(reshape, &[("N", 3), ("M", 5)]).contains("cannot reshape"));
        ok(reshape, &[("N", 3), ("M", 6)]);
    }

    #[test]
    fn zero_step_bodies_are_checked() {
        // The body adds a step of X to w: with D != M it can never run,
        // whatever the step count.
        let src = "(program p (input X (f64 T D)) (input w (f64 M))
  (let Y (scan (sequences X) (fn (x) (add x w))))
  (output Y))";
        assert_eq!(
            err(src, &[("T", 0), ("D", 3), ("M", 2)]),
            "2:38: add: shapes (3,) and (2,) do not broadcast"
        );
    }

    #[test]
    fn mitsot_init_rows() {
        let src = "(program p (input h (f64 R 2))
  (let Y (scan (outputs_info (mitsot h (taps -2 -1))) (n_steps 3) (fn (a b) (add a b))))
  (output Y))";
        assert_eq!(
            err(src, &[("R", 3)]),
            "2:10: scan: output 0: a mitsot with taps [-2, -1] needs an init of 2 rows, got shape [3, 2]"
        );
        ok(src, &[("R", 2)]);
    }

    #[test]
    fn shared_updates() {
        let src = "(program p (input X (f64 N)) (shared s (f64 M))
  (update s (mul X 2.0))
  (output s))";
        assert_eq!(
            err(src, &[("N", 3), ("M", 4)]),
            "2:13: update: the new value of 's' has shape (3,), the variable has shape (4,)"
        );
        ok(src, &[("N", 3), ("M", 3)]);
    }

    #[test]
    fn nested_scans_and_kept_rows() {
        let src = "(program p (input X (f64 T N)) (input a0 (f64 N))
  (let A (scan (sequences X) (outputs_info (sitsot a0 (keep 1)))
    (fn (x a) (index (scan (sequences x) (outputs_info (sitsot a)) (fn (e s) (add s e))) -1))))
  (output (index A -1)))";
        ok(src, &[("T", 3), ("N", 4)]);
        // a kept output has min(K, steps) rows: index -1 of 0 rows fails
        assert!(err(src, &[("T", 0), ("N", 4)]).contains("out of range"));
    }
}
