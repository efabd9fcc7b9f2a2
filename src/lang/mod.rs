//! The language: ops, types and shapes, the program IR, reading, parsing
//! with type and shape inference (the make_node contract), and printing.
//!
//! Must not: know about rules, extraction or execution.

pub mod build;
pub mod dot;
pub mod dtype;
pub mod error;
pub mod infer;
pub(crate) mod linalg_type;
pub mod list_type;
pub mod loop_sig;
pub mod loop_type;
pub mod op;
pub mod op_table;
pub mod parse;
pub mod print;
pub mod program;
pub mod sexp;
pub mod shape;

pub use build::Builder;
pub use dtype::DType;
pub use error::{BuildErrorKind, LangError};
pub use loop_sig::{BodyOutput, BodyParam, InitForm, LoopSig, TapWindow};
pub use op::{
    BinaryOp, CompareOp, CumOp, ExactInt, ListOp, NormOp, ReduceOp, Scalar, UnaryDType, UnaryOp,
    Work,
};
pub use op_table::{Arity, AttrKind, AttrValue, Elements, Form, Op, OpKind, Slot, Storage};
pub use parse::parse_program;
pub use print::print_program;
pub use program::{Graph, Node, NodeId, OutputInfo, Program, Scan, SharedVars, Span};
pub use shape::{Dim, Shape, Type};
