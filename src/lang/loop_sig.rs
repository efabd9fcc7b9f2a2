//! The loop signature: what a scan is without its body.
//!
//! Owns: [`LoopSig`] (the taps of each sequence, the kind of each output,
//! the number of non-sequences, `n_steps`, the direction, the kept steps)
//! with the layout of a scan's outer arguments and of its body's
//! parameters ([`BodyParam`]); [`OutputInfo`], the kind of one output; and
//! [`TapWindow`], the one place that turns taps into rows: the window a
//! step reads, each tap's offset in it, the steps a sequence allows and
//! the past steps a state reads. Must not: type a loop (see
//! [`super::loop_type`]), hold a body, or run anything.
//!
//! Every stage that knows loops reads them through this file: the parser
//! and the program IR ([`super::program::Scan`] is a signature plus a
//! body), the e-graph (a scan e-node's head is a [`LoopSig`]), the Scan
//! rewrites and both executors. A MIT-MOT tape is one more [`OutputInfo`]
//! variant, with one body result per out tap ([`LoopSig::body_outputs`]
//! maps body results to outputs); the compiler's exhaustive matches on the
//! kinds point at every place that must learn a new one.

use std::ops::Range;

/// The largest tap, either way (the parser refuses others): tap spans and
/// step counts are then sums of a few numbers far inside `i64` (a loop
/// reaching 2^40 steps back cannot run on any machine anyway).
pub const MAX_TAP: i64 = 1 << 40;

/// The rows around a step that a set of taps reads.
///
/// A sequence read at taps `T` on step `t` reads rows `t + tap - lo` of
/// the sequence, where `lo = min(T ∪ {0})`; with `hi = max(T ∪ {0})` a
/// sequence of `len` rows allows `len - (hi - lo)` steps. A state read at
/// taps `T` (all negative) reads the `-lo` steps before the current one,
/// the first ones from its init.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TapWindow {
    /// The lowest tap, or 0.
    lo: i64,
    /// The highest tap, or 0.
    hi: i64,
}

impl TapWindow {
    /// The window of `taps` (the step itself, tap 0, is always in it).
    pub fn of(taps: &[i64]) -> TapWindow {
        TapWindow {
            lo: taps.iter().copied().min().unwrap_or(0).min(0),
            hi: taps.iter().copied().max().unwrap_or(0).max(0),
        }
    }

    /// How many more rows than steps the window needs: `hi - lo`.
    pub fn span(&self) -> i64 {
        self.hi - self.lo
    }

    /// The row read at `tap` on step 0 (on step `t`, row `t + offset`).
    pub fn offset(&self, tap: i64) -> i64 {
        tap - self.lo
    }

    /// The steps a sequence of `len` rows allows (none when it is shorter
    /// than the window).
    pub fn steps_in(&self, len: usize) -> usize {
        let len = i64::try_from(len).unwrap_or(i64::MAX);
        usize::try_from(len.saturating_sub(self.span())).unwrap_or(0)
    }

    /// The steps a sequence of static length `len` allows.
    pub fn steps_in_dim(&self, len: &super::shape::Dim) -> super::shape::Dim {
        len.sub(&super::shape::Dim::known(self.span()))
    }

    /// The bounds `(start, stop)` of the slice of a sequence that holds
    /// what `tap` reads on every step, for a sequence that allows exactly
    /// the step count (`stop` is `None`: to the end).
    pub fn tap_slice(&self, tap: i64) -> (i64, Option<i64>) {
        (self.offset(tap), (tap < self.hi).then_some(tap - self.hi))
    }

    /// How many steps before the current one the taps reach: the rows a
    /// state's history holds (a mitsot's init rows; 1 for a sitsot).
    pub fn depth(&self) -> usize {
        usize::try_from(-self.lo).unwrap_or(0)
    }
}

/// The kind of one recurrent or mapped output of a scan.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OutputInfo {
    /// A state read at tap -1; its init is one value of the step's type.
    Sitsot,
    /// A state read at several negative taps; its init holds `-min(taps)`
    /// rows, oldest first.
    Mitsot(Vec<i64>),
    /// A mapped output: no feedback, no init.
    Nitsot,
    /// A MIT-MOT tape (SPEC §1, what gradients of loops produce): its
    /// init is the whole tape (leading axis: slots), meaningful in every
    /// slot. With `m = min(in_taps)`, step `i` reads slot
    /// `(i - m + T) mod len` for each in tap `T` (one body parameter per in
    /// tap, in order) and, after the body, writes slot `i - m + S` for each
    /// out tap `S` (one body result per out tap, in order), replacing the
    /// slot's value. The output is the whole tape after the loop. Sequences
    /// going backwards do not change which slots a step reads or writes.
    Mitmot {
        /// The taps read before each step (distinct, at least one).
        in_taps: Vec<i64>,
        /// The taps written after each step (distinct, at least one, none
        /// below `min(in_taps)`).
        out_taps: Vec<i64>,
    },
}

/// How a state's init holds the steps before the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitForm {
    /// The init is the one step before the first (a sitsot).
    Value,
    /// The init holds this many steps as rows, oldest first (a mitsot).
    Rows(usize),
    /// The init is the whole tape, one slot per row (a mitmot).
    Tape,
}

impl OutputInfo {
    /// The taps the body reads this output at (empty for a nitsot).
    pub fn taps(&self) -> Vec<i64> {
        match self {
            OutputInfo::Sitsot => vec![-1],
            OutputInfo::Mitsot(t) => t.clone(),
            OutputInfo::Nitsot => Vec::new(),
            OutputInfo::Mitmot { in_taps, .. } => in_taps.clone(),
        }
    }

    /// The taps a step writes this output at: a mitmot's out taps; `None`
    /// for the other kinds, whose one body result is the step's row.
    pub fn out_taps(&self) -> Option<&[i64]> {
        match self {
            OutputInfo::Mitmot { out_taps, .. } => Some(out_taps),
            _ => None,
        }
    }

    /// True for a MIT-MOT tape.
    pub fn is_mitmot(&self) -> bool {
        matches!(self, OutputInfo::Mitmot { .. })
    }

    /// How many body results this output takes: one per out tap of a
    /// mitmot, one otherwise.
    pub fn n_body_results(&self) -> usize {
        self.out_taps().map_or(1, <[i64]>::len)
    }

    /// A mitmot's base offset `-min(in_taps)`: step `i` reads and writes
    /// slots relative to slot `i + base`; `None` for other kinds.
    pub fn tape_base(&self) -> Option<i64> {
        match self {
            OutputInfo::Mitmot { in_taps, .. } => Some(-in_taps.iter().copied().min()?),
            _ => None,
        }
    }

    /// The slots a mitmot's tape needs beyond the step count:
    /// `max(in_taps ∪ out_taps) - min(in_taps)`, so a tape of
    /// `steps + extra` slots is long enough; `None` for other kinds.
    pub fn tape_extra(&self) -> Option<i64> {
        match self {
            OutputInfo::Mitmot { in_taps, out_taps } => {
                let hi = in_taps.iter().chain(out_taps).copied().max()?;
                Some(hi + self.tape_base()?)
            }
            _ => None,
        }
    }

    /// The window of the taps the body reads this output at.
    pub fn window(&self) -> TapWindow {
        TapWindow::of(&self.taps())
    }

    /// How the init holds the past steps; `None` for an output without
    /// init.
    pub fn init_form(&self) -> Option<InitForm> {
        match self {
            OutputInfo::Sitsot => Some(InitForm::Value),
            OutputInfo::Mitsot(_) => Some(InitForm::Rows(self.window().depth())),
            OutputInfo::Nitsot => None,
            OutputInfo::Mitmot { .. } => Some(InitForm::Tape),
        }
    }

    /// True for states (sitsot, mitsot and mitmot), which take an init
    /// argument.
    pub fn is_state(&self) -> bool {
        self.init_form().is_some()
    }
}

impl InitForm {
    /// The shape of one step of a state whose init has shape `init`
    /// (`None`: a rows init without rows).
    pub fn step_shape<'a, T>(&self, init: &'a [T]) -> Option<&'a [T]> {
        match self {
            InitForm::Value => Some(init),
            InitForm::Rows(_) | InitForm::Tape => init.get(1..),
        }
    }
}

/// What one parameter of a scan's body stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyParam {
    /// Sequence `seq` read at `tap`.
    Sequence {
        /// Index among the sequences.
        seq: usize,
        /// The tap.
        tap: i64,
    },
    /// Output `out` (a state) read at `tap` (negative; any sign for a
    /// mitmot's in tap).
    State {
        /// Index among the outputs (in `outputs_info` order).
        out: usize,
        /// The tap.
        tap: i64,
    },
    /// Non-sequence `k`.
    NonSequence(usize),
}

/// What one result of a scan's body is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyOutput {
    /// The output (in `outputs_info` order) it goes to.
    pub out: usize,
    /// For a mitmot, the out tap it writes; `None`: the step's row of a
    /// sitsot, mitsot or nitsot.
    pub tap: Option<i64>,
}

/// A loop's signature: everything about a scan but its body.
///
/// Arguments of a scan, in order: the sequences; one init per state
/// (sitsot and mitsot, in `outputs` order); the non-sequences; then
/// `n_steps` if `has_n_steps`.
///
/// Parameters of its body, in order ([`Self::body_params`]): one per tap
/// of each sequence; one per tap of each state (in `outputs` order); one
/// per non-sequence. Outputs of the body ([`Self::body_outputs`]): one
/// per entry of `outputs`, but one per out tap of a mitmot.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopSig {
    /// The taps of each sequence.
    pub sequences: Vec<Vec<i64>>,
    /// One entry per output, as in `outputs_info`.
    pub outputs: Vec<OutputInfo>,
    /// Number of non-sequence arguments.
    pub n_non_seqs: usize,
    /// Whether the last argument is `n_steps`.
    pub has_n_steps: bool,
    /// Iterate the (cut) sequences from the end.
    pub go_backwards: bool,
    /// Per output, `Some(K)` when the output holds only its last K steps
    /// (`(keep K)` in its `outputs_info` entry, written by save-mem). The
    /// list is empty when every output keeps every step (see
    /// [`Self::keep_list`]), so equal loops have equal signatures.
    pub keep: Vec<Option<usize>>,
    /// A while loop (`(until COND)`, SPEC §1): the body's last result,
    /// after every output's ([`Self::until_result`]), is a scalar that
    /// stops the loop after the step that made it true (a do-while). The
    /// step count (`n_steps`, or the sequences') is then the most steps
    /// it may run, and every output but a mitmot tape holds the steps
    /// that ran.
    pub until: bool,
    /// Per output, `true` when the output is built as a list of the steps'
    /// results instead of their stack (`(nitsot as_list)`: a `map` over a
    /// list whose `fn` returns a list, or a tensor whose leading length is
    /// known only at run time, which becomes the list of its rows; SPEC §1
    /// "Nested lists"). Empty when no output is (see [`Self::as_list_list`]).
    pub as_list: Vec<bool>,
}

impl LoopSig {
    /// The `as_list` field for per-output flags `flags`: empty when no
    /// output is built as a list.
    pub fn as_list_list(flags: Vec<bool>) -> Vec<bool> {
        if flags.iter().any(|f| *f) {
            flags
        } else {
            Vec::new()
        }
    }

    /// Whether output `k` is built as a list of the steps' results.
    pub fn is_list_output(&self, k: usize) -> bool {
        self.as_list.get(k).copied().unwrap_or(false)
    }

    /// The `keep` field for per-output kept steps `keep`: empty when no
    /// output keeps fewer than all.
    pub fn keep_list(keep: Vec<Option<usize>>) -> Vec<Option<usize>> {
        if keep.iter().any(|k| k.is_some()) {
            keep
        } else {
            Vec::new()
        }
    }

    /// The steps output `k` keeps, if not all.
    pub fn kept(&self, k: usize) -> Option<usize> {
        self.keep.get(k).copied().flatten()
    }

    /// The rows output `k` has after `steps` steps: the steps it keeps,
    /// or all when the loop ran fewer.
    pub fn kept_rows(&self, k: usize, steps: usize) -> usize {
        self.kept(k).map_or(steps, |kept| kept.min(steps))
    }

    /// The tap window of sequence `seq`.
    pub fn seq_window(&self, seq: usize) -> TapWindow {
        TapWindow::of(self.sequences.get(seq).map_or(&[], |t| t.as_slice()))
    }

    /// Number of sequences.
    pub fn n_seqs(&self) -> usize {
        self.sequences.len()
    }

    /// Number of states (outputs with an init).
    pub fn n_states(&self) -> usize {
        self.outputs.iter().filter(|o| o.is_state()).count()
    }

    /// Number of body outputs (one per output, one per out tap of a
    /// mitmot).
    pub fn n_body_outputs(&self) -> usize {
        self.outputs.iter().map(OutputInfo::n_body_results).sum()
    }

    /// Number of results the body returns: its outputs' and, in a while
    /// loop, the stop condition last.
    pub fn n_body_results(&self) -> usize {
        self.n_body_outputs() + usize::from(self.until)
    }

    /// The position of the stop condition among the body's results
    /// (`None` for a for loop).
    pub fn until_result(&self) -> Option<usize> {
        self.until.then(|| self.n_body_outputs())
    }

    /// What each body output is for, in body output order.
    pub fn body_outputs(&self) -> Vec<BodyOutput> {
        let mut v = Vec::with_capacity(self.n_body_outputs());
        for (out, info) in self.outputs.iter().enumerate() {
            match info.out_taps() {
                Some(taps) => v.extend(taps.iter().map(|&t| BodyOutput { out, tap: Some(t) })),
                None => v.push(BodyOutput { out, tap: None }),
            }
        }
        v
    }

    /// The body outputs of output `out` (one, or one per out tap of a
    /// mitmot).
    pub fn body_output_range(&self, out: usize) -> Range<usize> {
        let start: usize = self
            .outputs
            .iter()
            .take(out)
            .map(OutputInfo::n_body_results)
            .sum();
        let n = self.outputs.get(out).map_or(0, OutputInfo::n_body_results);
        start..start + n
    }

    /// True when some output is a mitmot (its body outputs then do not
    /// line up one to one with the outputs).
    pub fn has_mitmot(&self) -> bool {
        self.outputs.iter().any(OutputInfo::is_mitmot)
    }

    /// Total number of arguments of the scan node.
    pub fn n_args(&self) -> usize {
        self.n_seqs() + self.n_states() + self.n_non_seqs + self.has_n_steps as usize
    }

    /// Argument positions of the sequences.
    pub fn seq_args(&self) -> Range<usize> {
        0..self.n_seqs()
    }

    /// Argument positions of the inits (one per state, in `outputs` order).
    pub fn init_args(&self) -> Range<usize> {
        let s = self.n_seqs();
        s..s + self.n_states()
    }

    /// Per output, the position of its init among the inits (`None` for
    /// an output without init).
    pub fn init_index(&self) -> Vec<Option<usize>> {
        let mut next = 0;
        self.outputs
            .iter()
            .map(|o| {
                o.is_state().then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    }

    /// Argument position of output `out`'s init, if it is a state.
    pub fn init_arg(&self, out: usize) -> Option<usize> {
        let i = self.init_index().get(out).copied().flatten()?;
        Some(self.init_args().start + i)
    }

    /// Argument positions of the non-sequences.
    pub fn non_seq_args(&self) -> Range<usize> {
        let s = self.n_seqs() + self.n_states();
        s..s + self.n_non_seqs
    }

    /// Argument position of `n_steps`, if given.
    pub fn n_steps_arg(&self) -> Option<usize> {
        self.has_n_steps
            .then(|| self.n_seqs() + self.n_states() + self.n_non_seqs)
    }

    /// What each body parameter stands for, in parameter order.
    pub fn body_params(&self) -> Vec<BodyParam> {
        let mut v = Vec::with_capacity(self.n_body_params());
        for (seq, taps) in self.sequences.iter().enumerate() {
            v.extend(taps.iter().map(|&tap| BodyParam::Sequence { seq, tap }));
        }
        for (out, info) in self.outputs.iter().enumerate() {
            v.extend(
                info.taps()
                    .into_iter()
                    .map(|tap| BodyParam::State { out, tap }),
            );
        }
        v.extend((0..self.n_non_seqs).map(BodyParam::NonSequence));
        v
    }

    /// The outer argument body parameter `param` reads: a sequence, a
    /// state's init, or a non-sequence (`None` for a state without init,
    /// which a well-formed signature does not have).
    pub fn arg_of(&self, param: BodyParam) -> Option<usize> {
        match param {
            BodyParam::Sequence { seq, .. } => Some(self.seq_args().start + seq),
            BodyParam::State { out, .. } => self.init_arg(out),
            BodyParam::NonSequence(k) => Some(self.non_seq_args().start + k),
        }
    }

    /// Number of body parameters the clauses imply.
    pub fn n_body_params(&self) -> usize {
        self.sequences.iter().map(|t| t.len()).sum::<usize>()
            + self.outputs.iter().map(|o| o.taps().len()).sum::<usize>()
            + self.n_non_seqs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::shape::Dim;

    #[test]
    fn a_window_covers_the_step_and_its_taps() {
        let w = TapWindow::of(&[-2, 1]);
        assert_eq!((w.span(), w.offset(-2), w.offset(1)), (3, 0, 3));
        assert_eq!(w.steps_in(10), 7);
        assert_eq!(w.steps_in(2), 0);
        assert_eq!(
            w.steps_in_dim(&Dim::sym("T")),
            Dim::sym("T").sub(&Dim::known(3))
        );
        assert_eq!(w.tap_slice(-2), (0, Some(-3)));
        assert_eq!(w.tap_slice(1), (3, None));
        // Positive taps only: the step itself still opens the window.
        let w = TapWindow::of(&[2]);
        assert_eq!((w.span(), w.offset(2), w.depth()), (2, 2, 0));
        assert_eq!(TapWindow::of(&[0]).steps_in(5), 5);
    }

    #[test]
    fn a_state_reads_as_far_back_as_its_lowest_tap() {
        assert_eq!(OutputInfo::Sitsot.window().depth(), 1);
        assert_eq!(OutputInfo::Mitsot(vec![-3, -1]).window().depth(), 3);
        assert_eq!(
            OutputInfo::Mitsot(vec![-3, -1]).init_form(),
            Some(InitForm::Rows(3))
        );
        assert_eq!(OutputInfo::Nitsot.init_form(), None);
        assert_eq!(InitForm::Rows(3).step_shape(&[3, 4]), Some(&[4][..]));
        assert_eq!(InitForm::Value.step_shape(&[4]), Some(&[4][..]));
    }

    #[test]
    fn a_mitmot_reads_its_in_taps_and_writes_one_result_per_out_tap() {
        let mm = OutputInfo::Mitmot {
            in_taps: vec![0, 3, 1],
            out_taps: vec![3, 1],
        };
        assert_eq!(mm.taps(), vec![0, 3, 1]);
        assert_eq!((mm.tape_base(), mm.tape_extra()), (Some(0), Some(3)));
        assert_eq!(mm.init_form(), Some(InitForm::Tape));
        let signed = OutputInfo::Mitmot {
            in_taps: vec![-1, 0],
            out_taps: vec![0, -1],
        };
        assert_eq!(
            (signed.tape_base(), signed.tape_extra()),
            (Some(1), Some(1))
        );
        let sig = LoopSig {
            sequences: vec![vec![0]],
            outputs: vec![OutputInfo::Sitsot, mm, OutputInfo::Nitsot],
            ..LoopSig::default()
        };
        assert_eq!(sig.n_body_outputs(), 4);
        assert_eq!(
            sig.body_outputs(),
            vec![
                BodyOutput { out: 0, tap: None },
                BodyOutput {
                    out: 1,
                    tap: Some(3)
                },
                BodyOutput {
                    out: 1,
                    tap: Some(1)
                },
                BodyOutput { out: 2, tap: None },
            ]
        );
        assert_eq!(sig.body_output_range(1), 1..3);
        assert_eq!(sig.body_output_range(2), 3..4);
        assert_eq!(sig.n_args(), 3);
        assert_eq!(sig.n_body_params(), 5);
        assert!(sig.has_mitmot());
    }

    #[test]
    fn body_parameters_follow_the_argument_layout() {
        let sig = LoopSig {
            sequences: vec![vec![-1, 0]],
            outputs: vec![
                OutputInfo::Nitsot,
                OutputInfo::Mitsot(vec![-2, -1]),
                OutputInfo::Sitsot,
            ],
            n_non_seqs: 1,
            has_n_steps: true,
            ..LoopSig::default()
        };
        assert_eq!(sig.n_args(), 5);
        assert_eq!(
            (sig.init_args(), sig.non_seq_args(), sig.n_steps_arg()),
            (1..3, 3..4, Some(4))
        );
        assert_eq!(sig.init_index(), vec![None, Some(0), Some(1)]);
        assert_eq!(
            sig.body_params(),
            vec![
                BodyParam::Sequence { seq: 0, tap: -1 },
                BodyParam::Sequence { seq: 0, tap: 0 },
                BodyParam::State { out: 1, tap: -2 },
                BodyParam::State { out: 1, tap: -1 },
                BodyParam::State { out: 2, tap: -1 },
                BodyParam::NonSequence(0),
            ]
        );
        assert_eq!(sig.n_body_params(), 6);
        let args: Vec<Option<usize>> = sig
            .body_params()
            .into_iter()
            .map(|p| sig.arg_of(p))
            .collect();
        assert_eq!(
            args,
            vec![Some(0), Some(0), Some(1), Some(1), Some(2), Some(3)]
        );
    }
}
