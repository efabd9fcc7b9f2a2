//! The frame of one loop run: the bookkeeping both executors share.
//!
//! Owns: [`LoopFrame`] — from a loop's signature, its sequences' lengths,
//! its `n_steps` value and its inits' shapes: the step count, the row of a
//! sequence each tap reads on each step (reversed when going backwards,
//! before the cut to `n_steps`, as `pytensor.scan` does), where a state
//! tap reads from (a row written so far, the init, or a row of the init),
//! the rows each output keeps (a ring buffer of K rows for `(keep K)`,
//! rotated to chronological order at the end), the shape each state's
//! step must have, and the shapes of a loop without steps; a mitmot's
//! tape (the slot each in tap reads, modulo the tape's length, and the slot
//! each out tap writes, without modulo, after the body; never rotated);
//! with the loop errors ([`LoopError`]) they raise. Also [`step_count`] and
//! [`check_loop_outputs`], which the sized check uses too.
//!
//! Must not: hold or copy values. The interpreter ([`super::run`]) and the
//! compiled plan ([`super::plan`]) keep only their storage strategy (owned
//! rows, or views into buffers kept across calls), so they agree on every
//! result and every error by construction.

use super::budget::{Allocation, MemoryBudget, OverBudget};
use super::error::LoopError;
use crate::lang::{BodyOutput, Dim, InitForm, LoopSig, OutputInfo, TapWindow, Type};

/// The number of steps a loop runs: its `n_steps` value when it has one
/// (`Some(None)`: the value is not an i64 scalar), which must not exceed
/// what the sequences allow; else what the sequences allow (0 without
/// sequences).
pub(crate) fn step_count(
    given: Option<Option<i64>>,
    allowed: Option<usize>,
) -> Result<usize, LoopError> {
    let Some(given) = given else {
        return Ok(allowed.unwrap_or(0));
    };
    let v = given.ok_or(LoopError::StepsNotScalar)?;
    let v = usize::try_from(v).map_err(|_| LoopError::NegativeSteps(v))?;
    match allowed {
        Some(a) if v > a => Err(LoopError::TooManySteps {
            given: v,
            allowed: a,
        }),
        _ => Ok(v),
    }
}

/// Checks a loop's outputs against the budget where their static types
/// give their sizes (every step; the loop runners check again, with the
/// sizes the steps give, when they allocate); true when every size was
/// known.
pub(crate) fn check_loop_outputs(
    tys: &[Type],
    dims: &dyn Fn(&str) -> Option<i64>,
    budget: &MemoryBudget,
) -> Result<bool, OverBudget> {
    let mut fixed = true;
    for (k, t) in tys.iter().enumerate() {
        let shape: Option<Vec<usize>> = t
            .shape
            .iter()
            .map(|d| d.eval(dims).map(|n| n as usize))
            .collect();
        match shape {
            Some(shape) => budget.check(Allocation::LoopOutput(k), t.dtype, &shape)?,
            None => fixed = false,
        }
    }
    Ok(fixed)
}

/// Checks that mitmot output `out` of kind `info`, whose tape has `slots`
/// slots, can run `steps` steps: `slots >= steps + max(taps) - min(in_taps)`.
pub(crate) fn check_tape(
    out: usize,
    info: &OutputInfo,
    steps: usize,
    slots: usize,
) -> Result<(), LoopError> {
    let OutputInfo::Mitmot { in_taps, out_taps } = info else {
        return Ok(());
    };
    let extra = info.tape_extra().unwrap_or(0);
    let needed = i64::try_from(steps)
        .unwrap_or(i64::MAX)
        .saturating_add(extra);
    if i64::try_from(slots).unwrap_or(i64::MAX) >= needed {
        return Ok(());
    }
    Err(LoopError::TapeTooShort {
        out,
        in_taps: in_taps.clone(),
        out_taps: out_taps.clone(),
        steps,
        needed: usize::try_from(needed).unwrap_or(0),
        slots,
    })
}

/// The init form of output `k` of `sig`.
fn info_form(sig: &LoopSig, k: usize) -> Option<InitForm> {
    sig.outputs.get(k)?.init_form()
}

/// The shape of output `k`'s init, if it is a state.
fn init_shapes_of<'a>(sig: &LoopSig, k: usize, init_shapes: &[&'a [usize]]) -> Option<&'a [usize]> {
    let i = sig.init_index().get(k).copied().flatten()?;
    init_shapes.get(i).copied()
}

/// The rows a while loop's output that keeps every step starts with
/// (its buffer then doubles as steps run: [`LoopFrame::grow_for`]).
const FIRST_ROWS: usize = 16;

/// `i mod n` (`i` for `n = 0`), without a division when `i < n`: a loop
/// that keeps every step never wraps, and its steps place their rows
/// without one.
#[inline]
fn wrap(i: usize, n: usize) -> usize {
    if i < n {
        i
    } else {
        i % n.max(1)
    }
}

/// Where a state tap reads on a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StateRead {
    /// Row `r` of the output's buffer (a step written so far).
    Written(usize),
    /// The whole init number `i` (a sitsot's first step).
    Init(usize),
    /// Row `r` of init number `i` (a mitsot's early steps).
    InitRow(usize, usize),
}

/// The state of output `k` of a loop: which init it has and how the init
/// holds its past.
#[derive(Debug, PartialEq, Eq)]
struct StateFrame {
    /// Its position among the inits.
    init: usize,
    /// How the init holds the steps before the first.
    form: InitForm,
    /// The shape of one step.
    step_shape: Vec<usize>,
    /// For a mitmot, `-min(in_taps)`: step `t` reads and writes around
    /// slot `t + base` of its tape.
    tape_base: Option<i64>,
}

/// The bookkeeping of one run of one loop (two frames equal place every
/// read and write of every step alike).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct LoopFrame {
    /// The number of steps.
    steps: usize,
    /// Per sequence, its tap window and the steps its rows allow.
    seqs: Vec<(TapWindow, usize)>,
    /// Iterate the sequences from the end.
    go_backwards: bool,
    /// Per output, its state (`None`: a mapped output).
    states: Vec<Option<StateFrame>>,
    /// Per output, the rows its buffer holds.
    rows: Vec<usize>,
    /// A while loop (`until`): `steps` is the most it may run until
    /// [`LoopFrame::stop_after`] says how many did.
    until: bool,
    /// Per output, the steps it keeps (`(keep K)`), if not all.
    kept: Vec<Option<usize>>,
}

// Clone by hand: `clone_from` reuses the vectors' storage (a loop's step
// tape keeps a copy of the last frame it ran in, replaced without
// allocating when an enclosing loop runs it at other sizes each step).
impl Clone for StateFrame {
    fn clone(&self) -> Self {
        StateFrame {
            init: self.init,
            form: self.form,
            step_shape: self.step_shape.clone(),
            tape_base: self.tape_base,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.init = source.init;
        self.form = source.form;
        self.step_shape.clone_from(&source.step_shape);
        self.tape_base = source.tape_base;
    }
}

impl Clone for LoopFrame {
    fn clone(&self) -> Self {
        LoopFrame {
            steps: self.steps,
            seqs: self.seqs.clone(),
            go_backwards: self.go_backwards,
            states: self.states.clone(),
            rows: self.rows.clone(),
            until: self.until,
            kept: self.kept.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.steps = source.steps;
        self.seqs.clone_from(&source.seqs);
        self.go_backwards = source.go_backwards;
        self.states.clone_from(&source.states);
        self.rows.clone_from(&source.rows);
        self.until = source.until;
        self.kept.clone_from(&source.kept);
    }
}

impl LoopFrame {
    /// The frame of loop `sig` whose sequences have `seq_lens` rows, whose
    /// `n_steps` argument holds `n_steps` (see [`step_count`]) and whose
    /// inits have shapes `init_shapes`. Checks the step count, then each
    /// mitsot's init rows and each mitmot's tape length, in output order.
    pub(crate) fn new(
        sig: &LoopSig,
        seq_lens: &[usize],
        n_steps: Option<Option<i64>>,
        init_shapes: &[&[usize]],
    ) -> Result<LoopFrame, LoopError> {
        let seqs: Vec<(TapWindow, usize)> = (0..sig.n_seqs())
            .map(|k| {
                let w = sig.seq_window(k);
                (w, w.steps_in(seq_lens.get(k).copied().unwrap_or(0)))
            })
            .collect();
        let allowed = seqs.iter().map(|s| s.1).min();
        let steps = step_count(n_steps, allowed)?;
        let inits = sig.init_index();
        let mut states = Vec::with_capacity(sig.outputs.len());
        for (k, info) in sig.outputs.iter().enumerate() {
            let (Some(form), Some(init)) = (info.init_form(), inits[k]) else {
                states.push(None);
                continue;
            };
            let shape = *init_shapes
                .get(init)
                .ok_or(LoopError::Internal("missing init"))?;
            let step_shape = match form {
                InitForm::Value => Some(shape),
                InitForm::Rows(rows) => shape
                    .split_first()
                    .and_then(|(r, step)| (*r == rows).then_some(step)),
                InitForm::Tape => {
                    let (slots, step) = shape
                        .split_first()
                        .ok_or(LoopError::Internal("a mitmot tape without slots"))?;
                    check_tape(k, info, steps, *slots)?;
                    Some(step)
                }
            };
            let Some(step_shape) = step_shape else {
                return Err(LoopError::InitRows {
                    out: k,
                    taps: info.taps(),
                    rows: info.window().depth(),
                    init: shape.iter().map(|&n| Dim::known(n as i64)).collect(),
                });
            };
            states.push(Some(StateFrame {
                init,
                form,
                step_shape: step_shape.to_vec(),
                tape_base: info.tape_base(),
            }));
        }
        let rows = (0..sig.outputs.len())
            .map(
                |k| match (info_form(sig, k), init_shapes_of(sig, k, init_shapes)) {
                    (Some(InitForm::Tape), Some(tape)) => tape.first().copied().unwrap_or(0),
                    // A while loop's output that keeps every step starts
                    // small and grows with the steps that run.
                    _ if sig.until && sig.kept(k).is_none() => steps.min(FIRST_ROWS),
                    _ => sig.kept_rows(k, steps),
                },
            )
            .collect();
        Ok(LoopFrame {
            steps,
            seqs,
            go_backwards: sig.go_backwards,
            states,
            rows,
            until: sig.until,
            kept: (0..sig.outputs.len()).map(|k| sig.kept(k)).collect(),
        })
    }

    /// True for a while loop, whose step count is a most until it stops.
    pub(crate) fn is_while(&self) -> bool {
        self.until
    }

    /// Before step `t` of a while loop writes output `k`: the rows its
    /// buffer must grow to, when it holds fewer than the step needs (the
    /// output keeps every step, and `t` is past its rows), twice its rows
    /// and at most the step count; the frame then counts them. `None`
    /// when the buffer holds row `t` already (or is a ring or a tape).
    pub(crate) fn grow_for(&mut self, k: usize, t: usize) -> Option<usize> {
        if !self.grows(k) {
            return None;
        }
        let rows = self.rows.get_mut(k)?;
        if t < *rows {
            return None;
        }
        *rows = rows.saturating_mul(2).max(t + 1).min(self.steps);
        Some(*rows)
    }

    /// A while loop's output `k` that keeps every step starts with
    /// `rows` rows (at most the step count) instead of a few, when it
    /// has more: a buffer kept from an earlier call is then reused
    /// without growing it again.
    pub(crate) fn adopt_rows(&mut self, k: usize, rows: usize) {
        if !self.grows(k) {
            return;
        }
        if let Some(r) = self.rows.get_mut(k) {
            *r = (*r).max(rows.min(self.steps));
        }
    }

    /// The first step past `from` that some output's buffer has no row
    /// for yet (each that keeps every step of a while loop and grows:
    /// [`Self::grow_for`]), or the step count: the steps from `from` that
    /// may run without growing a buffer.
    pub(crate) fn room_from(&self, from: usize) -> usize {
        (0..self.rows.len())
            .filter(|&k| self.grows(k))
            .map(|k| self.rows[k].max(from))
            .fold(self.steps, usize::min)
    }

    /// True for an output whose buffer grows as the steps run: a while
    /// loop's that keeps every step (not a ring, not a tape).
    fn grows(&self, k: usize) -> bool {
        self.until && !self.is_tape(k) && self.kept.get(k).is_some_and(|kept| kept.is_none())
    }

    /// A while loop stopped after step `t` (its condition held): from now
    /// on the frame counts `t + 1` steps, and each output's rows are what
    /// those steps leave (each buffer's first [`Self::rows`] rows, to be
    /// rotated by [`Self::oldest_row`]).
    pub(crate) fn stop_after(&mut self, t: usize) {
        self.steps = (t + 1).min(self.steps);
        for k in 0..self.rows.len() {
            if self.is_tape(k) {
                continue;
            }
            self.rows[k] = match self.kept[k] {
                Some(kept) => kept.min(self.steps),
                None => self.steps,
            };
        }
    }

    /// True when the steps after the first compute nothing: a for loop
    /// whose sequences, inits and output buffers (sized by the first step)
    /// all have no elements. Each later step would run the same body on
    /// the same values (empty rows, the same non-sequences; a body cannot
    /// read its step number) and write nothing, so its errors are the
    /// first step's; the executors stop after it. Without this a loop of
    /// 2^62 steps over rows of width 0 ran for ever (a fuzz finding:
    /// `tests/cases/scan/map_zero_width.sexp` with `--dim T=2^62`).
    pub(crate) fn later_steps_are_empty(&self, elements: impl IntoIterator<Item = usize>) -> bool {
        !self.until && self.steps > 1 && elements.into_iter().all(|n| n == 0)
    }

    /// The number of steps.
    pub(crate) fn steps(&self) -> usize {
        self.steps
    }

    /// The rows output `k`'s buffer holds (all steps, or the last K).
    pub(crate) fn rows(&self, k: usize) -> usize {
        self.rows.get(k).copied().unwrap_or(0)
    }

    /// The row of sequence `seq` that tap `tap` reads on step `t`.
    pub(crate) fn seq_row(&self, seq: usize, tap: i64, t: usize) -> Option<usize> {
        let (window, avail) = *self.seqs.get(seq)?;
        let i = if self.go_backwards {
            avail.checked_sub(1 + t)?
        } else {
            t
        };
        usize::try_from(i as i64 + window.offset(tap)).ok()
    }

    /// True when output `k` is a mitmot tape: its buffer starts as a copy
    /// of its init and holds `rows(k)` slots.
    pub(crate) fn is_tape(&self, k: usize) -> bool {
        matches!(self.states.get(k), Some(Some(s)) if s.form == InitForm::Tape)
    }

    /// Where state output `out` read at `tap` (negative; any sign for a
    /// mitmot) reads on step `t`. A mitmot reads its buffer at slot
    /// `(t - min(in_taps) + tap) mod slots`.
    pub(crate) fn state_read(&self, out: usize, tap: i64, t: usize) -> Option<StateRead> {
        let state = self.states.get(out)?.as_ref()?;
        if let Some(base) = state.tape_base {
            let slots = i64::try_from(self.rows(out)).ok()?.max(1);
            let slot = (t as i64 + base + tap).rem_euclid(slots);
            return Some(StateRead::Written(usize::try_from(slot).ok()?));
        }
        let at = t as i64 + tap;
        if at >= 0 {
            return Some(StateRead::Written(wrap(at as usize, self.rows(out))));
        }
        Some(match state.form {
            InitForm::Value => StateRead::Init(state.init),
            InitForm::Rows(rows) => {
                StateRead::InitRow(state.init, usize::try_from(rows as i64 + at).ok()?)
            }
            InitForm::Tape => return None,
        })
    }

    /// The shape each step of output `k` must have, if it is a state.
    pub(crate) fn state_shape(&self, k: usize) -> Option<&[usize]> {
        self.states
            .get(k)?
            .as_ref()
            .map(|s| s.step_shape.as_slice())
    }

    /// Checks what the body returned for output `k` against its state's
    /// shape (a mapped output may have any shape).
    pub(crate) fn check_returned(&self, k: usize, returned: &[usize]) -> Result<(), LoopError> {
        match self.state_shape(k) {
            Some(state) if state != returned => Err(LoopError::StateShape {
                out: k,
                returned: returned.to_vec(),
                state: state.to_vec(),
            }),
            _ => Ok(()),
        }
    }

    /// The row of output `k`'s buffer that step `t` writes.
    pub(crate) fn buffer_row(&self, k: usize, t: usize) -> usize {
        wrap(t, self.rows(k))
    }

    /// The row that body result `result` of step `t` is written to, in
    /// its output's buffer: the step's row, or for a mitmot's out tap `S`
    /// slot `t - min(in_taps) + S` (no modulo: the tape's length was
    /// checked when the frame was made). `None` only for a result that
    /// does not fit its signature.
    pub(crate) fn result_row(&self, result: BodyOutput, t: usize) -> Option<usize> {
        let Some(tap) = result.tap else {
            return Some(self.buffer_row(result.out, t));
        };
        let base = self.states.get(result.out)?.as_ref()?.tape_base?;
        let slot = usize::try_from(t as i64 + base + tap).ok()?;
        (slot < self.rows(result.out)).then_some(slot)
    }

    /// The row of output `k`'s buffer that holds its oldest kept step once
    /// the loop has run (0 unless a ring buffer wrapped around; 0 for a
    /// mitmot's tape, which is never rotated).
    pub(crate) fn oldest_row(&self, k: usize) -> usize {
        if self.is_tape(k) {
            return 0;
        }
        self.steps % self.rows(k).max(1)
    }

    /// The step shape of output `k` (of static type `ty`) in a loop that
    /// ran no step: a state's from its init, a mapped output's from its
    /// type with the sizes bound by `dims`.
    pub(crate) fn zero_step_shape(
        &self,
        k: usize,
        ty: &Type,
        dims: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<Vec<usize>, LoopError> {
        if let Some(s) = self.state_shape(k) {
            return Ok(s.to_vec());
        }
        let step = ty.shape.get(1..).unwrap_or(&[]);
        step.iter()
            .map(|d| d.eval(dims).and_then(|n| usize::try_from(n).ok()))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| LoopError::UnknownStepShape {
                out: k,
                step: step.to_vec(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig() -> LoopSig {
        LoopSig {
            sequences: vec![vec![-1, 1]],
            outputs: vec![
                OutputInfo::Mitsot(vec![-2, -1]),
                OutputInfo::Nitsot,
                OutputInfo::Sitsot,
            ],
            has_n_steps: true,
            keep: vec![Some(2), None, None],
            ..LoopSig::default()
        }
    }

    #[test]
    fn a_frame_places_every_read() {
        let f = LoopFrame::new(&sig(), &[6], Some(Some(4)), &[&[2, 3], &[]]).unwrap();
        assert_eq!(f.steps(), 4);
        // Taps -1 and 1 over 6 rows: step t reads rows t and t + 2.
        assert_eq!(
            (f.seq_row(0, -1, 0), f.seq_row(0, 1, 3)),
            (Some(0), Some(5))
        );
        assert_eq!(f.state_read(0, -2, 0), Some(StateRead::InitRow(0, 0)));
        assert_eq!(f.state_read(0, -1, 0), Some(StateRead::InitRow(0, 1)));
        assert_eq!(f.state_read(0, -2, 3), Some(StateRead::Written(1)));
        assert_eq!(f.state_read(2, -1, 0), Some(StateRead::Init(1)));
        assert_eq!(f.state_read(1, -1, 0), None);
        assert_eq!(
            (f.rows(0), f.rows(1), f.buffer_row(0, 3), f.oldest_row(0)),
            (2, 4, 1, 0)
        );
        assert_eq!(f.state_shape(0), Some(&[3][..]));
        assert!(f.check_returned(1, &[7]).is_ok());
        assert_eq!(
            f.check_returned(2, &[1]).unwrap_err().to_string(),
            "state 2: fn returned shape [1] but the state has shape []"
        );
    }

    #[test]
    fn a_mitmot_reads_around_its_base_and_writes_after_without_modulo() {
        let sig = LoopSig {
            sequences: vec![vec![0]],
            outputs: vec![
                OutputInfo::Sitsot,
                OutputInfo::Mitmot {
                    in_taps: vec![-1, 0],
                    out_taps: vec![0, -1],
                },
            ],
            go_backwards: true,
            ..LoopSig::default()
        };
        // 4 steps at taps (-1 0): base 1, slots 0..=4 needed.
        let f = LoopFrame::new(&sig, &[4], None, &[&[], &[5, 2]]).unwrap();
        assert!(f.is_tape(1) && !f.is_tape(0));
        assert_eq!(f.rows(1), 5);
        assert_eq!(f.state_read(1, -1, 0), Some(StateRead::Written(0)));
        assert_eq!(f.state_read(1, 0, 3), Some(StateRead::Written(4)));
        // Going backwards reverses the sequence, not the tape.
        assert_eq!(f.seq_row(0, 0, 0), Some(3));
        let w = |tap| BodyOutput {
            out: 1,
            tap: Some(tap),
        };
        assert_eq!(
            (f.result_row(w(0), 3), f.result_row(w(-1), 0)),
            (Some(4), Some(0))
        );
        assert_eq!(f.result_row(BodyOutput { out: 0, tap: None }, 2), Some(2));
        assert_eq!(f.oldest_row(1), 0);
        assert_eq!(f.state_shape(1), Some(&[2][..]));
        let e = LoopFrame::new(&sig, &[4], None, &[&[], &[4, 2]]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "output 1: a mitmot with in taps [-1, 0] and out taps [0, -1] over 4 steps needs a tape of at least 5 slots, got 4"
        );
        // Without steps the tape still needs the slots its taps reach
        // (SPEC: n_steps + max(taps) - min(in_taps)).
        assert!(LoopFrame::new(&sig, &[0], None, &[&[], &[1, 2]]).is_ok());
        assert!(LoopFrame::new(&sig, &[0], None, &[&[], &[0, 2]]).is_err());
    }

    #[test]
    fn going_backwards_reads_the_allowed_rows_from_the_end() {
        let mut s = sig();
        s.go_backwards = true;
        s.has_n_steps = false;
        let f = LoopFrame::new(&s, &[6], None, &[&[2, 3], &[]]).unwrap();
        assert_eq!(f.steps(), 4);
        assert_eq!(
            (f.seq_row(0, -1, 0), f.seq_row(0, 1, 3)),
            (Some(3), Some(2))
        );
    }

    #[test]
    fn loop_errors_are_the_executors_sentences() {
        let e = LoopFrame::new(&sig(), &[6], Some(Some(5)), &[&[2, 3], &[]]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "n_steps is 5 but the sequences allow only 4 steps"
        );
        let e = LoopFrame::new(&sig(), &[6], Some(None), &[&[2, 3], &[]]).unwrap_err();
        assert_eq!(e, LoopError::StepsNotScalar);
        let e = LoopFrame::new(&sig(), &[6], Some(Some(-1)), &[&[2, 3], &[]]).unwrap_err();
        assert_eq!(e, LoopError::NegativeSteps(-1));
        let e = LoopFrame::new(&sig(), &[6], Some(Some(1)), &[&[3, 3], &[]]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "output 0: a mitsot with taps [-2, -1] needs an init of 2 rows, got shape [3, 3]"
        );
        let f = LoopFrame::new(&sig(), &[1], Some(Some(0)), &[&[2, 3], &[]]).unwrap();
        let ty = Type::new(crate::lang::DType::F64, vec![Dim::known(0), Dim::sym("K")]);
        assert_eq!(f.zero_step_shape(0, &ty, &|_| None).unwrap(), vec![3]);
        assert_eq!(f.zero_step_shape(1, &ty, &|_| Some(5)).unwrap(), vec![5]);
        assert_eq!(
            f.zero_step_shape(1, &ty, &|_| None)
                .unwrap_err()
                .to_string(),
            "output 1 has no steps and its step shape (K,) is not known statically"
        );
    }
}
