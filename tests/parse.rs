//! Tests of the program parser through its public entry point
//! (`eqscan::lang::parse_program`): positions in errors, scan clauses,
//! closures, fold parameter order and taps.

use eqscan::lang::{parse_program, LangError, NodeId, Op};

fn err(src: &str) -> LangError {
    match parse_program(src) {
        Ok(_) => panic!("expected an error for {src}"),
        Err(e) => e,
    }
}

fn at(e: &LangError) -> (u32, u32) {
    let s = e.span().expect("a position");
    (s.line, s.col)
}

#[test]
fn errors_name_their_position() {
    let e = err("(program p\n  (input x (f64 3))\n  (output (frob x)))");
    assert!(matches!(&e, LangError::UnknownOp { name, .. } if name == "frob"));
    assert_eq!(at(&e), (3, 12));
    let e = err("(program p (input x (f64 3)) (output (add x)))");
    assert!(matches!(&e, LangError::Arity { got: 1, .. }));
    let e = err("(program p (input x (f64 3)) (output (add x y)))");
    assert!(matches!(&e, LangError::Unbound { name, .. } if name == "y"));
    assert_eq!(at(&e), (1, 45));
    let e = err("(program p (input x (f64 3)) (let x (neg x)) (output x))");
    assert!(matches!(&e, LangError::Rebound { .. }));
    let e = err("(program p (input x (f64 3)) (input y (f64 4)) (output (add x y)))");
    assert_eq!(
        e.to_string(),
        "add: shapes (3,) and (4,) do not broadcast".to_string()
    );
}

#[test]
fn scan_clauses_are_checked() {
    let e = err("(program p (input X (f64 5 2)) (output (scan (sequences X) (fn (a b) a))))");
    assert!(e.to_string().contains("takes 1 parameters"), "{e}");
    let e = err(
        "(program p (input X (f64 5 2)) (input h (f64 3))
           (output (scan (sequences X) (outputs_info (sitsot h)) (fn (x h) (add h 1.0)) (n_steps 9))))",
    );
    assert!(e.to_string().contains("n_steps is 9"), "{e}");
    let e = err("(program p (input X (f64 5 2)) (input h (f32 2))
           (output (scan (sequences X) (outputs_info (sitsot h)) (fn (x h) (add h x)))))");
    assert!(e.to_string().contains("state 0"), "{e}");
}

#[test]
fn closures_become_trailing_non_sequences() {
    let p = parse_program(
        "(program p (input X (f64 T 2)) (input w (f64 2)) (input v (f64 2))
           (output (scan (sequences X) (non_sequences v) (fn (x v2) (add (mul x w) v2)))))",
    )
    .unwrap();
    let scan = p
        .graph
        .nodes
        .iter()
        .find_map(|n| match &n.op {
            Op::Scan(s) => Some((s, n)),
            _ => None,
        })
        .unwrap();
    assert_eq!(scan.0.sig.n_non_seqs, 2);
    // arguments: X, v (declared), w (captured)
    assert_eq!(scan.1.args, vec![NodeId(0), NodeId(2), NodeId(1)]);
    let names: Vec<_> = scan
        .0
        .body
        .params()
        .map(|(_, n)| n.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["x", "v2", "w"]);
    // the output type carries the symbolic step count
    assert_eq!(
        p.graph.node(p.graph.outputs[0]).ty().to_string(),
        "f64(T, 2)"
    );
}

#[test]
fn fold_parameters_are_reordered_for_the_scan() {
    let p = parse_program(
        "(program p (input X (f64 T 2)) (output (foldl (fn (acc x) (sub acc x)) (zeros (f64 2)) X)))",
    )
    .unwrap();
    let Op::Scan(s) = &p
        .graph
        .nodes
        .iter()
        .find(|n| matches!(n.op, Op::Scan(_)))
        .unwrap()
        .op
    else {
        unreachable!()
    };
    let names: Vec<_> = s
        .body
        .params()
        .map(|(_, n)| n.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["x", "acc"]);
}

#[test]
fn sequence_taps_shorten_the_step_count() {
    let p = parse_program(
        "(program p (input X (f64 T)) (output (scan (sequences (X (taps -2 1))) (fn (a b) (add a b)))))",
    )
    .unwrap();
    assert_eq!(
        p.graph.node(p.graph.outputs[0]).ty().to_string(),
        "f64(T-3,)"
    );
}
