//! `expand`: a program with every `grad` replaced by plain ops and loops.
//!
//! Owns: [`expand`], the step `run`, `optimize`, `explain` and `dot` take
//! first (the executors and the e-graph never see a `grad`), and what
//! `eqscan expand` prints. Must not: differentiate (see `crate::grad`).

use super::SessionError;
use crate::grad;
use crate::lang::Program;

/// `p` with every `grad` expanded (`p` itself, cloned, when it has none).
/// Combinators are already loops once parsed, so the result holds only
/// ops and `scan`s.
pub fn expand(p: &Program) -> Result<Program, SessionError> {
    if !grad::has_grad(&p.graph) {
        return Ok(p.clone());
    }
    grad::expand(p).map_err(SessionError::Grad)
}
