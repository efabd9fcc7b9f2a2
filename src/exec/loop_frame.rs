//! The frame of one loop run: the bookkeeping both executors share.
//!
//! Owns: [`LoopFrame`] — from a loop's signature, its sequences' lengths,
//! its `n_steps` value and its inits' shapes: the step count, the row of a
//! sequence each tap reads on each step (reversed when going backwards,
//! before the cut to `n_steps`, as `pytensor.scan` does), where a state
//! tap reads from (a row written so far, the init, or a row of the init),
//! the rows each output keeps (a ring buffer of K rows for `(keep K)`,
//! rotated to chronological order at the end), the shape each state's
//! step must have, and the shapes of a loop without steps; with the loop
//! errors ([`LoopError`]) they raise. Also [`step_count`] and
//! [`check_loop_outputs`], which the sized check uses too.
//!
//! Must not: hold or copy values. The interpreter ([`super::run`]) and the
//! compiled plan ([`super::plan`]) keep only their storage strategy (owned
//! rows, or views into buffers kept across calls), so they agree on every
//! result and every error by construction.

use super::budget::{Allocation, MemoryBudget, OverBudget};
use super::error::LoopError;
use crate::lang::{Dim, InitForm, LoopSig, TapWindow, Type};

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
#[derive(Clone, Debug)]
struct StateFrame {
    /// Its position among the inits.
    init: usize,
    /// How the init holds the steps before the first.
    form: InitForm,
    /// The shape of one step.
    step_shape: Vec<usize>,
}

/// The bookkeeping of one run of one loop.
#[derive(Clone, Debug)]
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
}

impl LoopFrame {
    /// The frame of loop `sig` whose sequences have `seq_lens` rows, whose
    /// `n_steps` argument holds `n_steps` (see [`step_count`]) and whose
    /// inits have shapes `init_shapes`. Checks the step count, then each
    /// mitsot's init rows, in output order.
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
            }));
        }
        let rows = (0..sig.outputs.len())
            .map(|k| sig.kept_rows(k, steps))
            .collect();
        Ok(LoopFrame {
            steps,
            seqs,
            go_backwards: sig.go_backwards,
            states,
            rows,
        })
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

    /// Where state output `out` read at `tap` (negative) reads on step `t`.
    pub(crate) fn state_read(&self, out: usize, tap: i64, t: usize) -> Option<StateRead> {
        let state = self.states.get(out)?.as_ref()?;
        let at = t as i64 + tap;
        if at >= 0 {
            return Some(StateRead::Written(at as usize % self.rows(out).max(1)));
        }
        Some(match state.form {
            InitForm::Value => StateRead::Init(state.init),
            InitForm::Rows(rows) => {
                StateRead::InitRow(state.init, usize::try_from(rows as i64 + at).ok()?)
            }
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
        t % self.rows(k).max(1)
    }

    /// The row of output `k`'s buffer that holds its oldest kept step once
    /// the loop has run (0 unless a ring buffer wrapped around).
    pub(crate) fn oldest_row(&self, k: usize) -> usize {
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
    use crate::lang::OutputInfo;

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
