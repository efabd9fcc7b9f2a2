//! The type rule of `scan`: from a loop's signature and the types of its
//! outer arguments, the types of its body's parameters; with the types its
//! body returns, the types of its outputs.
//!
//! Owns: [`param_types`], [`step_count`], [`output_types`] and
//! [`LoopTypeError`]. The parser (scans and the combinators lowered to
//! them) and the e-graph's analysis type every loop through these
//! functions, so they agree on every loop. Must not: read values (the
//! caller reads `n_steps` from its own representation and passes the size
//! it found) or know where a clause is written (an error names the part of
//! the loop, [`LoopPart`], and the caller places it).
//!
//! A state's type is its init's: a sitsot's init is one step, a mitsot's
//! init holds rows of steps. What the body returns for a state must fit
//! it (same dtype, or a weak literal that takes it; same rank; no size
//! that certainly differs), and the output is then the init's step type,
//! as the executors write it. A mapped output is what the body returns.
//! A mitmot's init is its whole tape: each in tap reads one slot (the
//! tape's step type), each out tap's result must fit a slot, and the
//! output is the tape itself; a tape that is certainly shorter than
//! `n_steps + max(taps) - min(in_taps)` slots is refused here, one whose
//! length or step count is symbolic is checked when the loop runs.

use super::dtype::promote_weak;
use super::loop_sig::{LoopSig, OutputInfo};
use super::shape::{Dim, Type};

/// Which part of a loop an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopPart {
    /// Sequence `k` (its `sequences` entry).
    Sequence(usize),
    /// Output `k` (its `outputs_info` entry).
    Output(usize),
    /// The body (`fn`).
    Body,
    /// A while loop's `(until COND)`.
    Until,
    /// The loop as a whole.
    Loop,
}

/// A loop that does not type-check.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LoopTypeError {
    /// A sequence without an axis to iterate over.
    #[error("a sequence needs a leading axis to iterate over, got the scalar {ty}")]
    ScalarSequence {
        /// Which sequence.
        seq: usize,
        /// Its type.
        ty: Type,
    },
    /// A mitsot whose init does not hold as many rows as its taps reach.
    #[error("a mitsot with taps {taps:?} needs an init of {rows} rows (oldest first), got {init}")]
    InitRows {
        /// Which output.
        out: usize,
        /// Its taps.
        taps: Vec<i64>,
        /// The rows the taps reach.
        rows: usize,
        /// The init's type.
        init: Type,
    },
    /// The body returns a different number of values than there are
    /// outputs.
    #[error("fn returns {returned} value(s) but outputs_info has {declared} entries")]
    OutputCount {
        /// Values the body returns.
        returned: usize,
        /// Outputs declared.
        declared: usize,
    },
    /// A sequence with fewer rows than its taps span.
    #[error(
        "sequence {seq} has {rows} rows, fewer than its taps span ({span}): it allows no step"
    )]
    SequenceTooShort {
        /// Which sequence.
        seq: usize,
        /// Its rows.
        rows: i64,
        /// The rows its taps span beyond the steps: `max(taps) - min(taps)`.
        span: i64,
    },
    /// An `n_steps` larger than the sequences allow.
    #[error("n_steps is {given} but the sequences allow only {allowed} steps")]
    TooManySteps {
        /// The `n_steps` given.
        given: i64,
        /// The steps the sequences allow.
        allowed: i64,
    },
    /// An output built as a list (`(nitsot as_list)`) whose step is a
    /// scalar: a step's result becomes a list of its rows, and a scalar
    /// has none.
    #[error("output {out} is built as a list of each step's rows (as_list), but fn returns the scalar {returned} for it")]
    ScalarListOutput {
        /// Which output.
        out: usize,
        /// The type the body returns.
        returned: Type,
    },
    /// What the body returns for a state does not fit the state.
    #[error("state {state}: its init gives steps of type {init_step}, but fn returns {returned} for it (cast or reshape the init)")]
    StateType {
        /// Which output.
        out: usize,
        /// Which state (counting states only).
        state: usize,
        /// The type of a step, from the init.
        init_step: Type,
        /// The type the body returns.
        returned: Type,
    },
    /// The body returns a different number of values than a loop with a
    /// mitmot takes (one per output, one per out tap of a mitmot).
    #[error("fn returns {returned} value(s) but outputs_info asks for {declared}: one per sitsot, mitsot or nitsot and one per out tap of each mitmot")]
    BodyOutputCount {
        /// Values the body returns.
        returned: usize,
        /// Values the outputs ask for.
        declared: usize,
    },
    /// A mitmot whose tape has no slot axis.
    #[error("a mitmot's tape needs a leading axis of slots, got the scalar {ty}")]
    ScalarTape {
        /// Which output.
        out: usize,
        /// The tape's type.
        ty: Type,
    },
    /// A mitmot out tap below its lowest in tap: its slot on the first
    /// step would lie before the tape.
    #[error("a mitmot's out tap {tap} lies below its lowest in tap {lowest}: out taps must be at least min(in_taps)")]
    OutTapBelowInTaps {
        /// Which output.
        out: usize,
        /// The out tap.
        tap: i64,
        /// The lowest in tap.
        lowest: i64,
    },
    /// A mitmot tape with fewer slots than the steps and taps reach.
    #[error("a mitmot over {steps} steps needs a tape of at least {needed} slots (n_steps + max(taps) - min(in_taps)), got {tape}")]
    TapeTooShort {
        /// Which output.
        out: usize,
        /// The step count.
        steps: Dim,
        /// The slots needed: `steps + max(taps) - min(in_taps)`.
        needed: Dim,
        /// The tape's type.
        tape: Type,
    },
    /// A while loop's condition that is not a scalar.
    #[error(
        "(until COND) needs a scalar condition (bool, or a number: non-zero is true), got {ty}"
    )]
    ConditionNotScalar {
        /// The condition's type.
        ty: Type,
    },
    /// A list as a loop's state (an init): states are tensors (a loop
    /// over a list reads it as a sequence, or captures it).
    #[error(
        "argument {arg} of the loop is the list {ty}, where a state's init (a tensor) is required"
    )]
    ListArg {
        /// Which outer argument (1-based, in the loop's layout).
        arg: usize,
        /// Its type.
        ty: Type,
    },
    /// A loop node with the wrong number of outer arguments (never from
    /// the parser; a rewrite that built a malformed node).
    #[error("internal error: the clauses imply {expected} arguments, got {got}")]
    ArgCount {
        /// Arguments the signature implies.
        expected: usize,
        /// Arguments given.
        got: usize,
    },
}

impl LoopTypeError {
    /// The part of the loop the error is about.
    pub fn part(&self) -> LoopPart {
        match self {
            LoopTypeError::ScalarSequence { seq, .. }
            | LoopTypeError::SequenceTooShort { seq, .. } => LoopPart::Sequence(*seq),
            LoopTypeError::InitRows { out, .. }
            | LoopTypeError::StateType { out, .. }
            | LoopTypeError::ScalarTape { out, .. }
            | LoopTypeError::OutTapBelowInTaps { out, .. }
            | LoopTypeError::TapeTooShort { out, .. }
            | LoopTypeError::ScalarListOutput { out, .. } => LoopPart::Output(*out),
            LoopTypeError::OutputCount { .. } | LoopTypeError::BodyOutputCount { .. } => {
                LoopPart::Body
            }
            LoopTypeError::ConditionNotScalar { .. } => LoopPart::Until,
            LoopTypeError::TooManySteps { .. }
            | LoopTypeError::ArgCount { .. }
            | LoopTypeError::ListArg { .. } => LoopPart::Loop,
        }
    }
}

/// The type of one step of sequence `seq` of type `ty` (its leading axis
/// dropped; for a list, its element: SPEC "scan takes lists as
/// sequences, an element per step").
pub fn sequence_step(seq: usize, ty: &Type) -> Result<Type, LoopTypeError> {
    if ty.is_list() {
        return Ok(ty.element().strong());
    }
    match ty.shape.split_first() {
        Some((_, step)) => Ok(Type::new(ty.dtype, step.to_vec())),
        None => Err(LoopTypeError::ScalarSequence {
            seq,
            ty: ty.clone(),
        }),
    }
}

/// The type of one step of output `out` of kind `info`, a state whose
/// init has type `init`; `None` for an output without init.
pub fn state_step(
    out: usize,
    info: &OutputInfo,
    init: &Type,
) -> Result<Option<Type>, LoopTypeError> {
    match info {
        OutputInfo::Nitsot => Ok(None),
        OutputInfo::Sitsot => Ok(Some(init.clone().strong())),
        OutputInfo::Mitsot(taps) => {
            let rows = info.window().depth();
            let fits = init
                .shape
                .first()
                .is_some_and(|r| !r.provably_differs(&Dim::known(rows as i64)));
            if !fits {
                return Err(LoopTypeError::InitRows {
                    out,
                    taps: taps.clone(),
                    rows,
                    init: init.clone(),
                });
            }
            Ok(Some(Type::new(init.dtype, init.shape[1..].to_vec())))
        }
        OutputInfo::Mitmot { in_taps, out_taps } => {
            let lowest = in_taps.iter().copied().min().unwrap_or(0);
            if let Some(&tap) = out_taps.iter().find(|&&t| t < lowest) {
                return Err(LoopTypeError::OutTapBelowInTaps { out, tap, lowest });
            }
            match init.shape.split_first() {
                Some((_, step)) => Ok(Some(Type::new(init.dtype, step.to_vec()))),
                None => Err(LoopTypeError::ScalarTape {
                    out,
                    ty: init.clone(),
                }),
            }
        }
    }
}

/// Checks that mitmot output `out` of kind `info`, whose tape has type
/// `tape`, holds enough slots for `steps` steps: refused only when the
/// shortfall is certain (the sizes may be symbols; the executors check
/// the numbers).
pub fn check_tape_length(
    out: usize,
    info: &OutputInfo,
    tape: &Type,
    steps: &Dim,
) -> Result<(), LoopTypeError> {
    let (Some(extra), Some(len)) = (info.tape_extra(), tape.shape.first()) else {
        return Ok(());
    };
    if *steps == Dim::Unknown || *len == Dim::Unknown {
        return Ok(());
    }
    let needed = steps.add(&Dim::known(extra));
    if len.sub(&needed).as_known().is_some_and(|d| d < 0) {
        return Err(LoopTypeError::TapeTooShort {
            out,
            steps: steps.clone(),
            needed,
            tape: tape.clone(),
        });
    }
    Ok(())
}

fn check_arg_count(sig: &LoopSig, args: &[&Type]) -> Result<(), LoopTypeError> {
    if let Some(k) = sig
        .init_args()
        .find(|&k| args.get(k).is_some_and(|t| t.is_list()))
    {
        return Err(LoopTypeError::ListArg {
            arg: k + 1,
            ty: args[k].clone(),
        });
    }
    if args.len() == sig.n_args() {
        Ok(())
    } else {
        Err(LoopTypeError::ArgCount {
            expected: sig.n_args(),
            got: args.len(),
        })
    }
}

/// The types of the body's parameters of a loop `sig` whose outer
/// arguments have types `args` (in [`LoopSig`]'s layout).
pub fn param_types(sig: &LoopSig, args: &[&Type]) -> Result<Vec<Type>, LoopTypeError> {
    check_arg_count(sig, args)?;
    let mut tys = Vec::with_capacity(sig.n_body_params());
    for (k, taps) in sig.sequences.iter().enumerate() {
        let step = sequence_step(k, args[sig.seq_args().start + k])?;
        tys.extend(taps.iter().map(|_| step.clone()));
    }
    let inits = sig.init_index();
    for (k, info) in sig.outputs.iter().enumerate() {
        let Some(i) = inits[k] else { continue };
        if let Some(step) = state_step(k, info, args[sig.init_args().start + i])? {
            tys.extend(info.taps().iter().map(|_| step.clone()));
        }
    }
    tys.extend(sig.non_seq_args().map(|k| args[k].clone().strong()));
    Ok(tys)
}

/// The number of steps of a loop `sig` whose sequences have lengths
/// `seq_lens`: the `n_steps` given (the size the caller read from its
/// argument, [`Dim::Unknown`] when it is computed from data), which must
/// not exceed what the sequences allow where both are known; else the
/// steps the shortest sequence allows ([`Dim::Unknown`] when that is not
/// known statically).
pub fn step_count(
    sig: &LoopSig,
    seq_lens: &[Dim],
    n_steps: Option<Dim>,
) -> Result<Dim, LoopTypeError> {
    let mut allowed: Option<Dim> = None;
    for (k, len) in seq_lens.iter().enumerate() {
        let d = sig.seq_window(k).steps_in_dim(len);
        // A length known here that its taps do not fit in: refused now
        // (the optimizer would otherwise reason with a negative count).
        if let (Some(rows), Some(steps)) = (len.as_known(), d.as_known()) {
            if steps < 0 {
                return Err(LoopTypeError::SequenceTooShort {
                    seq: k,
                    rows,
                    span: sig.seq_window(k).span(),
                });
            }
        }
        allowed = Some(match allowed {
            None => d,
            Some(a) if a == d => a,
            // Lengths that differ by a constant (`T` and `T - 1`): the
            // shorter one.
            Some(a) => match a.sub(&d).as_known() {
                Some(diff) if diff > 0 => d,
                Some(_) => a,
                None => Dim::Unknown,
            },
        });
    }
    let Some(given) = n_steps else {
        return Ok(allowed.unwrap_or(Dim::Unknown));
    };
    if let (Some(g), Some(a)) = (given.as_known(), allowed.as_ref().and_then(Dim::as_known)) {
        if g > a {
            return Err(LoopTypeError::TooManySteps {
                given: g,
                allowed: a,
            });
        }
    }
    Ok(given)
}

/// Whether a body's result `update` can be the next value of a state of
/// type `state`: the same dtype (a weak literal may take the state's), the
/// same number of axes, and no size that certainly differs.
pub fn update_fits_state(update: &Type, state: &Type) -> bool {
    let dtype_ok = update.dtype == state.dtype
        || (update.weak && promote_weak(state.dtype, update.dtype) == state.dtype);
    dtype_ok
        && update.ndim() == state.ndim()
        && update
            .shape
            .iter()
            .zip(&state.shape)
            .all(|(a, b)| !a.provably_differs(b))
}

/// The output types of a loop `sig` whose outer arguments have types
/// `args`, whose `n_steps` argument (if any) has the size `n_steps` (see
/// [`step_count`]), and whose body returns values of types `body`: each
/// output holds one row per step (or per kept step) of its step type.
///
/// Checks, in order: the number of body results, the step count, then
/// each output (a state's init and what the body returns for it).
pub fn output_types(
    sig: &LoopSig,
    args: &[&Type],
    n_steps: Option<Dim>,
    body: &[&Type],
) -> Result<Vec<Type>, LoopTypeError> {
    check_arg_count(sig, args)?;
    let body = match sig.until_result() {
        Some(c) if body.len() == c + 1 => {
            let cond = body[c];
            if cond.ndim() != 0 {
                return Err(LoopTypeError::ConditionNotScalar { ty: cond.clone() });
            }
            &body[..c]
        }
        _ => body,
    };
    if body.len() != sig.n_body_outputs() {
        return Err(if sig.has_mitmot() {
            LoopTypeError::BodyOutputCount {
                returned: body.len(),
                declared: sig.n_body_outputs(),
            }
        } else {
            LoopTypeError::OutputCount {
                returned: body.len(),
                declared: sig.outputs.len(),
            }
        });
    }
    let mut seq_lens = Vec::with_capacity(sig.n_seqs());
    for k in sig.seq_args() {
        match args[k].shape.first() {
            // A list's length is known only at run time.
            _ if args[k].is_list() => seq_lens.push(Dim::Unknown),
            Some(len) => seq_lens.push(len.clone()),
            None => {
                return Err(LoopTypeError::ScalarSequence {
                    seq: k,
                    ty: args[k].clone(),
                })
            }
        }
    }
    let steps = step_count(sig, &seq_lens, n_steps)?;
    let inits = sig.init_index();
    let mut out = Vec::with_capacity(sig.outputs.len());
    let mut state = 0;
    for (k, info) in sig.outputs.iter().enumerate() {
        let init = inits[k].map(|i| args[sig.init_args().start + i]);
        let results = &body[sig.body_output_range(k)];
        if let (OutputInfo::Mitmot { .. }, Some(tape)) = (info, init) {
            let Some(step) = state_step(k, info, tape)? else {
                continue;
            };
            for returned in results {
                if !update_fits_state(returned, &step) {
                    return Err(LoopTypeError::StateType {
                        out: k,
                        state,
                        init_step: step,
                        returned: (*returned).clone(),
                    });
                }
            }
            check_tape_length(k, info, tape, &steps)?;
            state += 1;
            out.push(tape.clone().strong());
            continue;
        }
        let Some(returned) = results.first() else {
            continue;
        };
        let step = match init {
            Some(init) => match state_step(k, info, init)? {
                Some(step) => {
                    if !update_fits_state(returned, &step) {
                        return Err(LoopTypeError::StateType {
                            out: k,
                            state,
                            init_step: step,
                            returned: (*returned).clone(),
                        });
                    }
                    state += 1;
                    step
                }
                None => (*returned).clone().strong(),
            },
            None => (*returned).clone().strong(),
        };
        if sig.is_list_output(k) {
            if !step.is_list() && step.ndim() == 0 {
                return Err(LoopTypeError::ScalarListOutput {
                    out: k,
                    returned: step,
                });
            }
            out.push(list_output(&step));
            continue;
        }
        let rows = match sig.kept(k) {
            // A while loop's outputs hold the steps that ran (of those
            // kept): known only once it has run.
            _ if sig.until => Dim::Unknown,
            // The last `kept` steps, or every step when fewer ran: `kept`
            // rows only when the loop runs at least that many (a size
            // that may be smaller is known only at run time).
            Some(kept) => match (steps.as_known(), steps.least()) {
                (Some(n), _) => Dim::known(n.min(kept as i64)),
                (None, least) if least >= kept as i64 => Dim::known(kept as i64),
                _ => Dim::Unknown,
            },
            None => steps.clone(),
        };
        let mut shape = Vec::with_capacity(step.ndim() + 1);
        shape.push(rows);
        shape.extend(step.shape);
        out.push(Type::new(step.dtype, shape));
    }
    Ok(out)
}

/// The type of an output built as a list of the steps' results
/// (`(nitsot as_list)`): a list one depth deeper than a step's list, or,
/// for a step's tensor, the list of lists of its rows.
fn list_output(step: &Type) -> Type {
    if step.is_list() {
        return step.clone().listed();
    }
    let mut rows = Type::new(step.dtype, step.shape.iter().skip(1).cloned().collect());
    rows.list = 2;
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::dtype::DType;

    fn t(dtype: DType, dims: &[i64]) -> Type {
        Type::new(dtype, dims.iter().map(|&d| Dim::known(d)).collect())
    }

    fn weak(dtype: DType) -> Type {
        Type {
            dtype,
            shape: Vec::new(),
            weak: true,
            list: 0,
        }
    }

    fn sitsot_over_one_sequence() -> LoopSig {
        LoopSig {
            sequences: vec![vec![-1, 0]],
            outputs: vec![OutputInfo::Sitsot, OutputInfo::Nitsot],
            ..LoopSig::default()
        }
    }

    #[test]
    fn a_state_takes_its_inits_type_even_when_the_body_returns_a_weak_literal() {
        let sig = sitsot_over_one_sequence();
        let (x, h0) = (t(DType::F64, &[5, 2]), t(DType::F32, &[]));
        let params = param_types(&sig, &[&x, &h0]).unwrap();
        assert_eq!(
            params,
            vec![t(DType::F64, &[2]), t(DType::F64, &[2]), t(DType::F32, &[])]
        );
        let out = output_types(
            &sig,
            &[&x, &h0],
            None,
            &[&weak(DType::F64), &t(DType::I64, &[3])],
        )
        .unwrap();
        assert_eq!(out, vec![t(DType::F32, &[4]), t(DType::I64, &[4, 3])]);
    }

    #[test]
    fn errors_name_the_part_of_the_loop() {
        let sig = sitsot_over_one_sequence();
        let (x, h0) = (t(DType::F64, &[5, 2]), t(DType::F64, &[]));
        let e = output_types(&sig, &[&x, &h0], None, &[&t(DType::F64, &[2]), &x]).unwrap_err();
        assert_eq!(e.part(), LoopPart::Output(0));
        assert_eq!(
            e.to_string(),
            format!(
                "state 0: its init gives steps of type {h0}, but fn returns {} for it (cast or reshape the init)",
                t(DType::F64, &[2])
            )
        );
        let e = output_types(&sig, &[&x, &h0], Some(Dim::known(5)), &[&h0, &h0]).unwrap_err();
        assert_eq!(
            e,
            LoopTypeError::TooManySteps {
                given: 5,
                allowed: 4
            }
        );
        let e = output_types(&sig, &[&x, &h0], None, &[&h0]).unwrap_err();
        assert_eq!(e.part(), LoopPart::Body);
        let scalar = t(DType::F64, &[]);
        let e = param_types(&sig, &[&scalar, &h0]).unwrap_err();
        assert_eq!(e.part(), LoopPart::Sequence(0));
    }

    #[test]
    fn a_mitsot_init_holds_as_many_rows_as_its_taps_reach() {
        let sig = LoopSig {
            outputs: vec![OutputInfo::Mitsot(vec![-3, -1])],
            has_n_steps: true,
            ..LoopSig::default()
        };
        let n = Type::scalar(DType::I64);
        let good = t(DType::F64, &[3, 2]);
        assert_eq!(param_types(&sig, &[&good, &n]).unwrap().len(), 2);
        let out = output_types(
            &sig,
            &[&good, &n],
            Some(Dim::sym("T")),
            &[&t(DType::F64, &[2])],
        );
        assert_eq!(
            out.unwrap(),
            vec![Type::new(DType::F64, vec![Dim::sym("T"), Dim::known(2)])]
        );
        let bad = t(DType::F64, &[2, 2]);
        assert!(matches!(
            param_types(&sig, &[&bad, &n]),
            Err(LoopTypeError::InitRows { rows: 3, .. })
        ));
    }

    #[test]
    fn a_mitmot_is_its_tape_and_its_tape_must_be_long_enough() {
        let mm = |in_taps: Vec<i64>, out_taps: Vec<i64>| LoopSig {
            sequences: vec![vec![0]],
            outputs: vec![OutputInfo::Mitmot { in_taps, out_taps }],
            ..LoopSig::default()
        };
        let sig = mm(vec![0, 3, 1], vec![3, 1]);
        let x = Type::new(DType::F64, vec![Dim::sym("T")]);
        let tape = Type::new(
            DType::F64,
            vec![Dim::sym("T").add(&Dim::known(3)), Dim::known(2)],
        );
        let slot = t(DType::F64, &[2]);
        assert_eq!(
            param_types(&sig, &[&x, &tape]).unwrap(),
            vec![
                Type::scalar(DType::F64),
                slot.clone(),
                slot.clone(),
                slot.clone()
            ]
        );
        // One result per out tap; the output is the tape.
        let out = output_types(&sig, &[&x, &tape], None, &[&slot, &slot]).unwrap();
        assert_eq!(out, vec![tape.clone()]);
        // A slot of scalars takes a weak literal, as a state does.
        let scalars = Type::new(DType::F32, vec![Dim::known(5)]);
        let one = mm(vec![0, 1], vec![1]);
        let x4 = t(DType::F64, &[4]);
        let out = output_types(&one, &[&x4, &scalars], None, &[&weak(DType::F64)]).unwrap();
        assert_eq!(out, vec![scalars.clone()]);
        let e = output_types(&sig, &[&x, &tape], None, &[&slot]).unwrap_err();
        assert_eq!(
            e,
            LoopTypeError::BodyOutputCount {
                returned: 1,
                declared: 2
            }
        );
        let e = output_types(&sig, &[&x, &tape], None, &[&slot, &t(DType::F64, &[3])]).unwrap_err();
        assert_eq!(e.part(), LoopPart::Output(0));
        // T + 2 slots are one too few for T steps at taps up to 3; a
        // symbolic length that may fit is left to the executors.
        let short = Type::new(
            DType::F64,
            vec![Dim::sym("T").add(&Dim::known(2)), Dim::known(2)],
        );
        let e = output_types(&sig, &[&x, &short], None, &[&slot, &slot]).unwrap_err();
        assert!(matches!(e, LoopTypeError::TapeTooShort { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "a mitmot over T steps needs a tape of at least T+3 slots (n_steps + max(taps) - min(in_taps)), got f64(T+2, 2)"
        );
        let maybe = Type::new(DType::F64, vec![Dim::sym("S"), Dim::known(2)]);
        assert!(output_types(&sig, &[&x, &maybe], None, &[&slot, &slot]).is_ok());
        // Signed taps: in (-1 0), out (0 -1) need T + 1 slots.
        let signed = mm(vec![-1, 0], vec![0, -1]);
        let plus1 = Type::new(
            DType::F64,
            vec![Dim::sym("T").add(&Dim::known(1)), Dim::known(2)],
        );
        assert!(output_types(&signed, &[&x, &plus1], None, &[&slot, &slot]).is_ok());
        let e = param_types(&mm(vec![0, 1], vec![-1]), &[&x, &plus1]).unwrap_err();
        assert_eq!(
            e,
            LoopTypeError::OutTapBelowInTaps {
                out: 0,
                tap: -1,
                lowest: 0
            }
        );
        let scalar = Type::scalar(DType::F64);
        assert!(matches!(
            param_types(&mm(vec![0, 1], vec![1]), &[&x, &scalar]),
            Err(LoopTypeError::ScalarTape { .. })
        ));
    }

    #[test]
    fn the_shortest_sequence_sets_the_step_count() {
        let sig = LoopSig {
            sequences: vec![vec![0], vec![-2, 0]],
            outputs: vec![OutputInfo::Nitsot],
            ..LoopSig::default()
        };
        let lens = [Dim::known(5), Dim::known(6)];
        assert_eq!(step_count(&sig, &lens, None).unwrap(), Dim::known(4));
        let sym = [Dim::sym("T"), Dim::sym("T").add(&Dim::known(2))];
        assert_eq!(step_count(&sig, &sym, None).unwrap(), Dim::sym("T"));
        let mixed = [Dim::sym("T"), Dim::known(6)];
        assert_eq!(step_count(&sig, &mixed, None).unwrap(), Dim::Unknown);
    }
}
