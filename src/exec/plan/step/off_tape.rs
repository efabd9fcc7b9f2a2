//! Why a loop's steps ran on the plan rather than on its step tape.
//!
//! Owns: [`OffTape`], the one reason a body did not compile to a tape (or
//! was never offered to one), as `compile` and the loop find it, and its
//! wording in `run --json`. Must not: decide anything; the compiler and
//! the loop do, this only names what they found.

use crate::lang::{DType, OpKind};
use std::fmt;

/// Why a loop ran off its step tape: the first thing its body (or the
/// call) had that the tape does not take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OffTape {
    /// The step tape is switched off (`PlanOptions::step_tape`).
    Disabled,
    /// The call ran fewer than two steps: the plan runs every loop's
    /// first step (it sizes the buffers and checks the shapes), and the
    /// tape takes the steps after it.
    FewSteps,
    /// The steps after the first compute nothing (sequences, inits and
    /// outputs without elements), so they are not run at all.
    EmptySteps,
    /// An op of the body the tape does not compile, in the form (dtype,
    /// operands, attributes) the body has it.
    Op(OpKind),
    /// An op of the body computing a value of this dtype (the tape
    /// computes in `f64`; integers only as sizes and literals).
    DType(OpKind, DType),
    /// A literal or size of the body the tape cannot hold.
    Constant,
    /// A loop inside the body that the plan does not run as a loop of its
    /// own (no loop plan): the tape runs every other nested loop, its
    /// outputs in the arena or, when a step sets their shapes (a while
    /// loop's), held beside it (`Builder::nested`).
    NestedLoop,
    /// An op of the body the tape does not specialize, whose kernel call
    /// would copy more than `MAX_KERNEL_COPY` elements per step (its
    /// operands in, its result out): the copies cost more than the plan's
    /// views save.
    KernelCopy(OpKind),
    /// A loop inside the body whose operands and outputs together pass
    /// `MAX_KERNEL_COPY` elements: their copies in the arena, beside the
    /// inner loop's own storage, would raise the call's peak memory (a
    /// checkpointed gradient's segments are such loops).
    NestedCopy,
    /// A body parameter of this dtype whose data the tape cannot read
    /// as contiguous `f64` (a state of another dtype, a copy too large to
    /// convert).
    Param(DType),
    /// A loop output of this dtype (the tape writes `f64` rows).
    Output(DType),
    /// The body's values take more than the tape's arena holds.
    ArenaFull,
    /// A body result whose shape differs from its row's.
    Shape,
    /// The arena's regions overlap an instruction's operands (the storage
    /// plan's own limit, not the program's).
    Storage,
}

impl fmt::Display for OffTape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OffTape::Disabled => write!(f, "the step tape is off"),
            OffTape::FewSteps => write!(f, "fewer than two steps"),
            OffTape::EmptySteps => write!(f, "no elements after the first step"),
            OffTape::Op(k) => write!(f, "op {}", k.name()),
            OffTape::DType(k, d) => write!(f, "op {} computing {d}", k.name()),
            OffTape::Constant => write!(f, "a literal or size"),
            OffTape::NestedLoop => write!(f, "a nested loop"),
            OffTape::KernelCopy(k) => {
                write!(
                    f,
                    "op {} on more elements than a kernel call copies",
                    k.name()
                )
            }
            OffTape::NestedCopy => write!(f, "a nested loop too large to copy"),
            OffTape::Param(d) => write!(f, "a parameter of dtype {d}"),
            OffTape::Output(d) => write!(f, "an output of dtype {d}"),
            OffTape::ArenaFull => write!(f, "values larger than the arena"),
            OffTape::Shape => write!(f, "a result of another shape than its row"),
            OffTape::Storage => write!(f, "operands overlapping their destination"),
        }
    }
}
