//! The op table, end to end: every op head parses (in a tiny program that
//! uses it), prints back to the same text, goes Program → term → Program
//! unchanged, and is priced by the cost model.
//!
//! [`example`] matches on `OpKind` exhaustively, so a new op head does not
//! compile until it has an example here; the test runs over
//! `OpKind::all()`, which the op table builds from the same declarations
//! as the enum, so no head is left out.

mod common;

use common::op_examples::example;
use egg::RecExpr;
use eqscan::egraph::analysis::{EGraph, TensorAnalysis};
use eqscan::egraph::term::{expr_to_program, program_to_expr, Head, TNode};
use eqscan::extract::CostModel;
use eqscan::lang::{parse_program, print_program, Form, Op, OpKind, Program, Type};

/// Inputs every example may use.
const INPUTS: &str = "(input x (f64 3)) (input y (f64 3)) (input m (f64 3 3)) (input c (bool 3))";

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
