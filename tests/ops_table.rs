//! The op table, end to end: every op head parses (in a tiny program that
//! uses it), prints back to the same text, goes Program → term → Program
//! unchanged, and is priced by the cost model.
//!
//! [`example`] matches on `OpKind` exhaustively, so a new op head does not
//! compile until it has an example here; the test runs over
//! `OpKind::all()`, which the op table builds from the same declarations
//! as the enum, so no head is left out.

use egg::RecExpr;
use eqscan::egraph::analysis::{EGraph, TensorAnalysis};
use eqscan::egraph::term::{expr_to_program, program_to_expr, Head, TNode};
use eqscan::extract::CostModel;
use eqscan::lang::{parse_program, print_program, Form, ListOp, Op, OpKind, Program, Type};

/// Inputs every example may use.
const INPUTS: &str = "(input x (f64 3)) (input y (f64 3)) (input m (f64 3 3)) (input c (bool 3))";

/// An expression over [`INPUTS`] whose outermost op has head `k`.
fn example(k: OpKind) -> String {
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
    }
}

fn program_of(k: OpKind) -> String {
    let lets = match k {
        OpKind::Slogdet => "\n  (let (sign logdet) (slogdet m))",
        _ => "",
    };
    let list = match k {
        OpKind::List(_) => "\n  (input l (list (list (f64 3))))",
        _ => "",
    };
    format!(
        "(program t\n  {}{list}{lets}\n  (output {}))\n",
        INPUTS.replace(") (", ")\n  ("),
        example(k)
    )
}

fn inputs(p: &Program) -> Vec<(String, Type)> {
    p.inputs()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect()
}

/// The program the term `expr` of `p` converts back to.
fn trip(p: &Program, expr: &RecExpr<TNode>) -> Result<Program, eqscan::egraph::term::TermError> {
    expr_to_program(&p.name, &inputs(p), expr)
}

/// The cost model's price of each node with head `k` in the e-graph of
/// `expr`.
fn prices(expr: &RecExpr<TNode>, k: OpKind) -> Vec<f64> {
    let mut egraph = EGraph::new(TensorAnalysis::default());
    egraph.add_expr(expr);
    egraph.rebuild();
    let model = CostModel::default();
    egraph
        .classes()
        .flat_map(|c| c.nodes.iter())
        .filter(|n| n.head == Head::Op(k))
        .map(|n| model.node_cost(&egraph, n))
        .collect()
}

#[test]
fn every_op_parses_prints_converts_and_is_priced() {
    let kinds: Vec<OpKind> = OpKind::all().collect();
    assert!(kinds.len() >= 48, "{} op heads", kinds.len());
    for k in kinds {
        let name = k.name();
        let src = program_of(k);
        let p = parse_program(&src).unwrap_or_else(|e| panic!("{name}: {e}\n{src}"));
        // The program holds the op.
        let ops: Vec<&Op> = p.graph.nodes.iter().map(|n| &n.op).collect();
        let holds = |k: OpKind| {
            ops.iter().any(|o| o.kind() == Some(k))
                || p.graph.nodes.iter().any(|n| match &n.op {
                    Op::Scan(s) => s.body.nodes.iter().any(|b| b.op.kind() == Some(k)),
                    _ => false,
                })
        };
        assert!(holds(k), "{name}: no node with this head\n{src}");
        // It prints back to the text it was parsed from.
        let printed = print_program(&p);
        if k.in_programs() {
            assert_eq!(printed, src, "{name}");
        }
        assert_eq!(
            print_program(&parse_program(&printed).unwrap()),
            printed,
            "{name}"
        );
        // Program → term → Program gives the same program (a scan's
        // outputs come back under fresh names: compare a second trip).
        let expr = program_to_expr(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        let q = trip(&p, &expr).unwrap_or_else(|e| panic!("{name}: {e}"));
        if k.in_programs() {
            assert_eq!(print_program(&q), printed, "{name}");
        } else {
            let q_expr = program_to_expr(&q).unwrap_or_else(|e| panic!("{name}: {e}"));
            let q2 = trip(&q, &q_expr).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(print_program(&q2), print_program(&q), "{name}");
            assert_eq!(q.count_scans(), p.count_scans(), "{name}");
        }
        // The term holds the head with a term arity the table admits, and
        // the cost model prices it.
        let nodes: Vec<&TNode> = expr
            .as_ref()
            .iter()
            .filter(|n| n.head == Head::Op(k))
            .collect();
        // slogdet's example holds its two results, one node each
        let want = if k == OpKind::Slogdet { 2 } else { 1 };
        assert_eq!(nodes.len(), want, "{name}");
        assert!(
            k.arity(Form::Term).admits(nodes[0].children.len()),
            "{name}"
        );
        let costs = prices(&expr, k);
        assert_eq!(costs.len(), want, "{name}");
        let cost = costs[0];
        assert!(cost.is_finite(), "{name}: cost {cost}");
        if k == OpKind::Proj {
            // Reading a loop's output is free; the loop is priced.
            assert_eq!(cost, 0.0, "{name}");
        } else {
            assert!(cost > 0.0, "{name}: cost {cost}");
        }
    }
}

#[test]
fn arity_errors_come_from_the_table() {
    let wrong = [
        ("(neg x y)", "neg takes 1 argument, got 2"),
        ("(add x)", "add takes 2 arguments, got 1"),
        (
            "(sum m 0 1)",
            "sum takes 1 or 2 arguments (X [AXIS]), got 3",
        ),
        (
            "(slice x 1)",
            "slice takes 3 or 4 arguments (X START STOP [STEP]), got 2",
        ),
        (
            "(concat 0)",
            "concat takes 2 or more arguments (AXIS ARG ...), got 1",
        ),
        ("(zeros)", "zeros takes 1 argument, got 0"),
    ];
    for (expr, msg) in wrong {
        let src = format!("(program t {INPUTS} (output {expr}))");
        match parse_program(&src) {
            Ok(_) => panic!("{expr} parsed"),
            Err(e) => assert_eq!(e.to_string(), msg, "{expr}"),
        }
    }
    // `proj` is a term head only.
    let src = format!("(program t {INPUTS} (output (proj 0 x)))");
    assert!(parse_program(&src)
        .unwrap_err()
        .to_string()
        .contains("proj"));
}
