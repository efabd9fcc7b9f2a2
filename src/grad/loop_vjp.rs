//! The gradient of a loop: the backward loop.
//!
//! Owns: [`scan_vjp`]. Must not: differentiate ops outside a loop body
//! (see [`super::vjp`]).

use super::emit::Emit;
use super::error::{GradError, Unsupported};
use crate::lang::NodeId;

/// The cotangent contributions of loop `node`'s outer arguments, given the
/// cotangent of each of its outputs (`None`: the cost does not depend on
/// it); one entry per argument, `None` where none flows or `wanted` is
/// false.
pub fn scan_vjp(
    e: &mut Emit,
    node: NodeId,
    out_cots: &[Option<NodeId>],
    wanted: &[bool],
) -> Result<Vec<Option<NodeId>>, GradError> {
    let _ = (node, out_cots, wanted);
    Err(e.unsupported("scan", Unsupported::Loop("loops")))
}
