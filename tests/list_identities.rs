//! The seed's identities on list programs (`src/optimize/list_identities.rs`,
//! issue 41): the structure of the optimized program (fewer loops, no
//! intermediate list between them) and its results against the program as
//! written, bit for bit (a fused step runs the same ops on the same values
//! in the same order).

use eqscan::exec::list::Item;
use eqscan::lang::{parse_program, Graph, ListOp, Op, Program};
use eqscan::session::{run_lists, OptimizerSettings, RunOptions, Source};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn optimized(p: &Program) -> eqscan::optimize::Report {
    OptimizerSettings::default()
        .optimize_written(p, &BTreeMap::new())
        .expect("optimizes")
}

/// The top-level loops of `g`.
fn top_loops(g: &Graph) -> usize {
    g.nodes
        .iter()
        .filter(|n| matches!(n.op, Op::Scan(_)))
        .count()
}

/// `(stack (unstack X))` and `(flatten (nest X L))` pairs in `g`: an
/// intermediate list between two loops.
fn round_trips(g: &Graph) -> usize {
    g.nodes
        .iter()
        .filter(|n| {
            let inner = n.args.first().map(|a| &g.node(*a).op);
            (n.op == Op::Stack && inner == Some(&Op::List(ListOp::Unstack)))
                || (n.op == Op::List(ListOp::Flatten) && inner == Some(&Op::List(ListOp::Nest)))
        })
        .count()
}

fn run(p: &Program, optimize: bool, inputs: &[(&str, &str)]) -> Vec<Item> {
    run_from("fusion", p, optimize, inputs)
}

/// Runs `p` on inputs read from the folder of case `case`.
fn run_from(case: &str, p: &Program, optimize: bool, inputs: &[(&str, &str)]) -> Vec<Item> {
    let dir = root().join(format!("tests/cases/lists/{case}.inputs"));
    let opts = RunOptions {
        inputs: inputs
            .iter()
            .map(|(n, f)| (n.to_string(), Source::Npy(dir.join(f))))
            .collect(),
        optimizer: optimize.then(OptimizerSettings::default),
        ..RunOptions::default()
    };
    run_lists(p, &opts, &BTreeMap::new()).expect("runs").outputs
}

const INPUTS: &[(&str, &str)] = &[
    ("V", "V.npz"),
    ("L", "L.npz"),
    ("M", "M.npz"),
    ("W", "W.npy"),
];

#[test]
fn the_fusion_case_runs_one_loop_per_output_bit_for_bit() {
    let text = std::fs::read_to_string(root().join("tests/cases/lists/fusion.sexp")).unwrap();
    let p = parse_program(&text).unwrap();
    let r = optimized(&p);
    let q = &r.program;
    // Eight outputs, each two loops as written (a map feeding a map, a
    // fold, or a forall's map): one loop each once fused.
    assert!(top_loops(&p.graph) >= 16, "as written");
    assert_eq!(top_loops(&q.graph), 8, "fused");
    assert_eq!(round_trips(&p.graph), 7, "as written");
    assert_eq!(round_trips(&q.graph), 0, "no intermediate list");
    assert!(r.rules_applied.get("list-identities").copied() >= Some(8));
    assert!(
        r.cost_after <= r.cost_before,
        "{} > {}",
        r.cost_after,
        r.cost_before
    );
    // The optimized text reads back, and prints the same.
    let printed = eqscan::lang::print_program(q);
    let again = parse_program(&printed).expect("the optimized text parses");
    assert_eq!(eqscan::lang::print_program(&again), printed);
    let written = run(&p, false, INPUTS);
    let fused = run(&p, true, INPUTS);
    assert_eq!(written, fused);
}

#[test]
fn forall_of_forall_keeps_one_loop_and_the_operands_nesting() {
    let p = parse_program(
        "(program p (input M (list (list (list (f64 2))))) (input W (f64 2))
           (output (forall (fn (y) (tanh y)) (forall (fn (x) (mul x W)) M))))",
    )
    .unwrap();
    let q = optimized(&p).program;
    assert_eq!(top_loops(&q.graph), 1);
    let nest = q
        .graph
        .nodes
        .iter()
        .find(|n| n.op == Op::List(ListOp::Nest))
        .expect("a nest");
    // the nesting is read from the input itself
    assert_eq!(q.graph.node(nest.args[1]).op, Op::Input(0));
    let written = run(&p, false, &[("M", "M.npz"), ("W", "W.npy")]);
    assert_eq!(written, run(&p, true, &[("M", "M.npz"), ("W", "W.npy")]));
}

#[test]
fn a_map_read_twice_or_with_a_gradient_is_not_fused() {
    let p = parse_program(
        "(program p (input V (list (f64 2))) (input W (f64 2))
           (let M (map (fn (x) (mul x W)) V))
           (let c (sum (stack (map (fn (x) (exp x)) M))))
           (output (len M) c (grad c W)))",
    )
    .unwrap();
    let before = top_loops(&eqscan::session::expand(&p).unwrap().graph);
    let r = optimized(&p);
    assert_eq!(top_loops(&r.program.graph), before);
}

/// Filter fusion and the operand a filter reads twice: the case's four
/// outputs are 3 + 15 + 3 + 3 loops as written (each filter's operand
/// parsed twice, so four nested filters are fifteen loops) and five
/// optimized, one each but the last's two: the first three outer
/// predicates cannot fail and fuse
/// into one loop (a `where` keeps a row where both hold), the fourth's
/// `(index s 0)` would fail on the empty sequence the inner filter drops,
/// so it keeps its own loop over the inner filter's rows, whose operand is
/// computed once. The kept rows are the written ones, bit for bit.
#[test]
fn filters_of_filters_fuse_when_the_outer_predicate_cannot_fail() {
    let text =
        std::fs::read_to_string(root().join("tests/cases/lists/filter_fusion.sexp")).unwrap();
    let p = parse_program(&text).unwrap();
    let r = optimized(&p);
    let q = &r.program;
    assert_eq!(top_loops(&p.graph), 24, "as written");
    assert_eq!(top_loops(&q.graph), 5, "fused");
    let wheres = |g: &Graph| {
        g.nodes
            .iter()
            .filter_map(|n| match &n.op {
                Op::Scan(s) => Some(s.body.nodes.iter().filter(|m| m.op == Op::Where).count()),
                _ => None,
            })
            .sum::<usize>()
    };
    // 1 + 3 + 1 conjunctions: the four nested filters' three fusions
    // nest into one step
    assert_eq!(wheres(&q.graph), 5);
    let printed = eqscan::lang::print_program(q);
    let again = parse_program(&printed).expect("the optimized text parses");
    assert_eq!(eqscan::lang::print_program(&again), printed);
    let inputs = [("L", "L.npz"), ("V", "V.npz"), ("t", "t.npy")];
    let written = run_from("filter_fusion", &p, false, &inputs);
    let fused = run_from("filter_fusion", &p, true, &inputs);
    assert_eq!(written, fused);
}

/// A filter whose outer predicate may fail is not fused, whatever else it
/// reads: `take` by a data index, a loop, an index into a row of run-time
/// length. The written program never computes it on the rows the inner
/// filter drops.
#[test]
fn a_predicate_that_may_fail_is_not_fused() {
    let sums = "(gt (sum x) 0.0)";
    let lengths = "(gt (len x) 0)";
    for (list, inner, pred) in [
        (
            "(list (f64 3))",
            sums,
            "(gt (sum (take x (tensor (i64 1) 5))) 0.0)",
        ),
        (
            "(list (f64 3))",
            sums,
            "(gt (sum (map (fn (y) (exp y)) x)) 0.0)",
        ),
        (
            "(list (list (f64 2)))",
            lengths,
            "(gt (index (index x 0) 1) 0.0)",
        ),
        ("(list (list (f64 2)))", lengths, "(gt (max (stack x)) 0.0)"),
    ] {
        let p = parse_program(&format!(
            "(program p (input V {list})
               (output (filter (fn (x) {pred}) (filter (fn (x) {inner}) V))))"
        ));
        let p = match p {
            Ok(p) => p,
            Err(e) => panic!("{pred}: {e}"),
        };
        let q = optimized(&p).program;
        assert_eq!(top_loops(&q.graph), 2, "{pred}");
    }
}
