//! One example expression per op head, shared by the tests that must
//! cover every op.

use eqscan::lang::{ListOp, OpKind};

/// An expression over `x`, `y` (f64 3), `m` (f64 3 3), `c` (bool 3) and,
/// for the list ops, `l` (a list of lists of vectors), whose outermost op
/// has head `k` (tests/ops_table.rs gives every op one; tests/plan.rs
/// runs each in a loop body). Matches on `OpKind` exhaustively: a new op
/// gets an example.
pub fn example(k: OpKind) -> String {
    let name = k.name();
    match k {
        OpKind::Unary(_) => format!("({name} x)"),
        OpKind::Binary(_) | OpKind::Compare(_) => format!("({name} x y)"),
        OpKind::Reduce(_) | OpKind::Cumulative(_) | OpKind::Normalize(_) => {
            format!("({name} m 1)")
        }
        OpKind::Where => "(where c x y)".into(),
        OpKind::Dot => "(dot m x)".into(),
        OpKind::Matmul => "(matmul m m)".into(),
        OpKind::Transpose => "(transpose m 1 0)".into(),
        OpKind::Reshape => "(reshape m 9)".into(),
        OpKind::ExpandDims => "(expand_dims x 0)".into(),
        OpKind::Stack => "(stack x y)".into(),
        OpKind::Concat => "(concat 0 x y)".into(),
        OpKind::Index => "(index m 1)".into(),
        OpKind::Slice => "(slice x none 1 -1)".into(),
        OpKind::Fill => "(fill (f64 2 3) 1.5)".into(),
        OpKind::Zeros => "(zeros (f64 2))".into(),
        OpKind::Ones => "(ones (i64 2 2))".into(),
        OpKind::Arange => "(arange 4)".into(),
        OpKind::Tensor => "(tensor (f64 2) 1.0 2.5)".into(),
        OpKind::Cast => "(cast i64 x)".into(),
        OpKind::ZerosLike => "(zeros_like m)".into(),
        OpKind::SumTo => "(sum_to m x)".into(),
        OpKind::LinRec => "(linrec 0.5 m x)".into(),
        OpKind::LogMatMulExp => "(logmatmulexp x m)".into(),
        OpKind::IncIndex => "(inc_index m x 1)".into(),
        OpKind::IncSlice => "(inc_slice x y 2 none -1)".into(),
        OpKind::Flip => "(flip m 1)".into(),
        OpKind::Squeeze => "(squeeze (expand_dims x 1) 1)".into(),
        OpKind::StopGradient => "(stop_gradient x)".into(),
        OpKind::Compress => "(compress c m)".into(),
        OpKind::Uncompress => "(uncompress c m)".into(),
        OpKind::Clip => "(clip m -0.5 x)".into(),
        OpKind::Eye => "(eye (f64 3 2))".into(),
        OpKind::Outer => "(outer x y)".into(),
        OpKind::SetIndex => "(set_index m x 1)".into(),
        OpKind::SetSlice => "(set_slice x y 2 none -1)".into(),
        OpKind::Take => "(take m (tensor (i64 2 2) 2 0 -1 1) 1)".into(),
        OpKind::IncTake => "(inc_take m x (tensor (i64 2) 1 1) 0)".into(),
        OpKind::SetTake => "(set_take m (expand_dims x 1) (tensor (i64 2) 1 1) -1)".into(),
        OpKind::MakeKey => "(key 7)".into(),
        OpKind::Split => "(split (key 7) 3)".into(),
        OpKind::FoldIn => "(fold_in (key 7) 2)".into(),
        OpKind::Uniform => "(uniform (key 7) (f64 3))".into(),
        OpKind::Normal => "(normal (split (key 7) 2) (f32 2 3))".into(),
        OpKind::Bernoulli => "(bernoulli (key 7) x)".into(),
        OpKind::Categorical => "(categorical (key 7) m)".into(),
        // Programs read a scan's outputs by name; the term reads them with
        // `proj`.
        OpKind::Proj => "(map (fn (r) (sum r)) m)".into(),
        OpKind::Solve => "(solve m x)".into(),
        OpKind::SolveTriangular => "(solve_triangular m m true)".into(),
        OpKind::Cholesky => "(cholesky m)".into(),
        OpKind::Inv => "(inv m)".into(),
        OpKind::Det => "(det m)".into(),
        // Programs bind both results with a destructuring `let` (see
        // `program_of`); the term reads one with `(slogdet K m)`.
        OpKind::Slogdet => "logdet".into(),
        // `l` is a list of lists of vectors (see `program_of`).
        OpKind::List(ListOp::Len) => "(len (index l -1))".into(),
        OpKind::List(ListOp::Unstack) => "(unstack m)".into(),
        OpKind::List(ListOp::Flatten) => "(flatten l)".into(),
        OpKind::List(ListOp::Nest) => "(nest (flatten l) l)".into(),
        OpKind::List(ListOp::CompressInnermost) => {
            "(compress_innermost (gt (sum (stack (flatten l)) 1) 0.0) l)".into()
        }
    }
}
