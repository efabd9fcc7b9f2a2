//! The gradient transform (`eqscan::grad`): gradients of every op checked
//! against central finite differences in f64 (each expanded program also
//! prints and reads back to the same text), the tie rules, dtypes, and the
//! surface of `grad` (printing, errors with their positions).

use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::Value;
use eqscan::grad::expand;
use eqscan::lang::{parse_program, print_program, Program};

/// Runs `text` expanded: output 0 is the scalar cost, output `1 + k` the
/// gradient with respect to input `wrt[k]`; each is compared with central
/// differences of output 0. The expanded program also prints and parses
/// back to itself. Returns the expanded program.
fn check_fd(text: &str, wrt: &[&str], dims: &[(&str, i64)]) -> Program {
    check_fd_scaled(text, wrt, dims, 1.0)
}

fn check_fd_scaled(text: &str, wrt: &[&str], dims: &[(&str, i64)], scale: f64) -> Program {
    let p = parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let text0 = print_program(&p);
    let again = print_program(&parse_program(&text0).unwrap());
    assert_eq!(again, text0, "fmt round trip");
    let q = expand(&p).unwrap_or_else(|e| panic!("{e}"));
    let printed = print_program(&q);
    let back = parse_program(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(print_program(&back), printed, "expanded program round trip");
    assert!(!printed.contains("(grad "), "{printed}");
    let dims: Dims = dims.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let mut inputs = generate_inputs(&q, &dims, &Default::default()).unwrap();
    for v in &mut inputs {
        if let Value::F64(a) = v {
            a.mapv_inplace(|x| x * scale);
        }
    }
    let out = run_program(&q, inputs.clone(), &dims).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    let names: Vec<String> = q.inputs().map(|(n, _)| n.to_string()).collect();
    let cost = |ins: Vec<Value>| -> f64 {
        run_program(&q, ins, &dims).unwrap()[0]
            .to_f64_scalar()
            .unwrap()
    };
    for (k, w) in wrt.iter().enumerate() {
        let j = names.iter().position(|n| n == w).unwrap();
        let g = out[1 + k].as_f64_array();
        assert_eq!(g.shape(), inputs[j].shape(), "gradient shape for {w}");
        assert_eq!(
            out[1 + k].dtype(),
            inputs[j].dtype(),
            "gradient dtype for {w}"
        );
        let Value::F64(x) = &inputs[j] else {
            continue;
        };
        for (e, gv) in g.iter().enumerate() {
            let h = 1e-6;
            let at = |d: f64| {
                let mut ins = inputs.clone();
                if let Value::F64(a) = &mut ins[j] {
                    let s = a.as_slice_mut().unwrap();
                    s[e] = x.as_slice().unwrap()[e] + d;
                }
                cost(ins)
            };
            let fd = (at(h) - at(-h)) / (2.0 * h);
            assert!(
                (fd - gv).abs() <= 1e-5 * (1.0 + fd.abs()),
                "d/d{w}[{e}]: finite differences {fd}, gradient {gv}\n{printed}"
            );
        }
    }
    q
}

/// The outputs of `text` expanded, on generated inputs.
fn outputs(text: &str, dims: &[(&str, i64)]) -> Vec<Value> {
    let q = expand(&parse_program(text).unwrap()).unwrap();
    let dims: Dims = dims.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let inputs = generate_inputs(&q, &dims, &Default::default()).unwrap();
    run_program(&q, inputs, &dims).unwrap()
}

fn vals(v: &Value) -> Vec<f64> {
    v.as_f64_array().iter().copied().collect()
}

#[test]
fn a_layer_of_tanh() {
    check_fd(
        "(program a (input W (f64 3 4)) (input x (f64 4)) (input b (f64 3))
           (let h (tanh (add (dot W x) b)))
           (let L (sum (mul h h)))
           (let (gW gx gb) (grad L W x b))
           (output L gW gx gb))",
        &["W", "x", "b"],
        &[],
    );
}

#[test]
fn every_unary_op() {
    check_fd(
        "(program u (input x (f64 5))
           (let p (add (mul x x) 0.5))
           (let L (sum (add (add (add (neg x) (exp x)) (add (log p) (log1p p)))
                    (add (add (sqrt p) (tanh x)) (add (add (sigmoid x) (sin x))
                         (add (cos x) (add (abs x) (sign (add x 0.3)))))))))
           (output L (grad L x)))",
        &["x"],
        &[],
    );
}

#[test]
fn binary_ops_undo_broadcasting() {
    check_fd(
        "(program b (input A (f64 3 4)) (input r (f64 4)) (input c (f64 3 1)) (input s (f64))
           (let P (add (mul A A) 0.7))
           (let L (sum (add (add (sub (mul A r) c) (div P (add (mul r r) 1.0)))
                            (add (pow P (add s 1.5)) (add (maximum A c) (minimum r A))))))
           (let (gA gr gc gs) (grad L A r c s))
           (output L gA gr gc gs))",
        &["A", "r", "c", "s"],
        &[],
    );
}

#[test]
fn where_and_reductions() {
    check_fd(
        "(program r (input X (f64 3 4)) (input y (f64 4))
           (let L (add (add (add (sum (where (gt X 0.1) X (mul y 2.0))) (sum (mean X 0)))
                            (add (mean X) (sum (max X 1))))
                       (add (add (min X) (sum (prod X 0))) (prod (add y 1.0)))))
           (let (gX gy) (grad L X y))
           (output L gX gy))",
        &["X", "y"],
        &[],
    );
}

#[test]
fn running_sums_and_products_on_each_axis() {
    check_fd(
        "(program c (input X (f64 3 4))
           (let W (tensor (f64 3 4) 1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0 9.0 10.0 11.0 12.0))
           (let L (sum (mul W (add (add (cumsum X) (cumsum X 1)) (add (cumprod X 0) (cumprod X -1))))))
           (output L (grad L X)))",
        &["X"],
        &[],
    );
}

#[test]
fn symbolic_sizes_mean_and_cumulative() {
    check_fd(
        "(program s (input X (f64 T 3))
           (let L (add (sum (mean X 0)) (sum (mul (cumprod X 0) (cumsum X 1)))))
           (output L (grad L X)))",
        &["X"],
        &[("T", 4)],
    );
}

#[test]
fn dot_and_matmul_in_every_rank() {
    check_fd(
        "(program d (input M (f64 3 4)) (input N (f64 4 2)) (input v (f64 4)) (input w (f64 3))
                    (input B (f64 2 3 4)) (input C (f64 4 2)) (input k (f64))
           (let L (add (add (add (sum (dot M N)) (sum (dot M v))) (add (sum (dot w M)) (dot v v)))
                       (add (add (sum (matmul B C)) (sum (matmul B v))) (add (sum (matmul w B)) (sum (dot k v))))))
           (let (gM gN gv gw gB gC gk) (grad L M N v w B C k))
           (output L gM gN gv gw gB gC gk))",
        &["M", "N", "v", "w", "B", "C", "k"],
        &[],
    );
}

/// The ops of gradient programs, differentiated themselves (second use:
/// a gradient of a gradient program): sum_to, inc_index, inc_slice, flip,
/// squeeze and zeros_like, each argument against finite differences.
#[test]
fn ops_of_gradient_programs() {
    check_fd(
        "(program s (input X (f64 4 3)) (input G (f64 2 4 3)) (input r (f64 1 3)) (input y (f64 3))
           (input c (f64 4 1)) (input i (i64))
           (let W (tensor (f64 4 3) 1.0 -2.0 3.0 0.5 1.5 -1.0 2.0 2.5 0.25 -3.0 1.0 0.75))
           (let A (sum_to (mul G G) r))
           (let B (inc_index (mul X X) (mul y y) 1))
           (let C (inc_slice (mul X W) (mul r r) none none -2))
           (let D (flip (mul X W) 1))
           (let E (squeeze (mul c c) 1))
           (let Z (add (zeros_like X) (mul c X)))
           (let L (add (add (add (sum (mul A A)) (sum (mul B W)))
                            (add (sum (mul C C)) (sum (mul D (flip W)))))
                       (add (add (sum (mul E E)) (sum (mul Z Z)))
                            (sum (inc_index (mul X X) (index X i) i)))))
           (let (gX gG gr gy gc) (grad L X G r y c))
           (output L gX gG gr gy gc))",
        &["X", "G", "r", "y", "c"],
        &[],
    );
}

#[test]
fn shape_ops_stack_concat_index_slice() {
    check_fd(
        "(program s (input X (f64 4 3)) (input y (f64 3)) (input z (f64 2 3)) (input i (i64)) (input q (f64))
           (let W (tensor (f64 4 3) 1.0 -2.0 3.0 0.5 1.5 -1.0 2.0 2.5 0.25 -3.0 1.0 0.75))
           (let S (stack y (index X 1) (index X -1)))
           (let C (concat 0 X z))
           (let D (concat 1 X (transpose (reshape (mul X X) 3 4))))
           (let L (add (add (add (sum (mul S S)) (sum (mul C (index C 2))))
                            (add (sum (mul (slice X 1 none) (slice X none -1)))
                                 (sum (mul (slice X none none -1) W))))
                       (add (add (sum (mul (expand_dims y 0) X)) (sum (mul D D)))
                            (add (index X i 2) (sum (fill (f64 2 2) (mul q q)))))))
           (let (gX gy gz gq) (grad L X y z q))
           (output L gX gy gz gq))",
        &["X", "y", "z", "q"],
        &[],
    );
}

#[test]
fn concat_with_one_symbolic_part_and_negative_slices() {
    check_fd(
        "(program s (input X (f64 T 2)) (input a (f64 1 2)) (input b (f64 2 2))
           (let C (concat 0 a X b))
           (let L (add (sum (mul C C)) (sum (mul (slice C -3 -1) (slice C 1 3)))))
           (let (gX ga gb) (grad L X a b))
           (output L gX ga gb))",
        &["X", "a", "b"],
        &[("T", 4)],
    );
}

#[test]
fn second_order_through_elementwise_dot_and_reductions() {
    check_fd(
        "(program h (input W (f64 3 3)) (input x (f64 3))
           (let L (sum (tanh (dot W (mul x x)))))
           (let gW (grad L W))
           (let N (sum (mul gW gW)))
           (let (hW hx) (grad N W x))
           (output N hW hx))",
        &["W", "x"],
        &[],
    );
}

#[test]
fn let_bound_values_are_their_own_variables() {
    // d sum(z1 z2) / d z1 = z2, though z1 and z2 are the same expression.
    let o = outputs(
        "(program z (input x (f64 3))
           (let z1 (mul x 2.0))
           (let z2 (mul x 2.0))
           (let (g1 gx) (grad (sum (mul z1 z2)) z1 x))
           (output g1 z2 gx))",
        &[],
    );
    assert_eq!(vals(&o[0]), vals(&o[1]));
    let x: Vec<f64> = vals(&o[1]).iter().map(|z| z / 2.0).collect();
    let gx: Vec<f64> = x.iter().map(|v| 8.0 * v).collect();
    for (a, b) in vals(&o[2]).iter().zip(&gx) {
        assert!((a - b).abs() < 1e-12);
    }
}

#[test]
fn total_derivative_through_an_x_and_disconnected_zeros() {
    // With Wt = 0.5 W, (grad L W Wt) gives W the total derivative.
    let o = outputs(
        "(program t (input W (f64 2)) (input u (f64 2))
           (let Wt (mul 0.5 W))
           (let L (sum (add (mul W W) (mul Wt Wt))))
           (let (gW gWt gu) (grad L W Wt u))
           (output W gW gWt gu (grad (stop_gradient L) W)))",
        &[],
    );
    let w = vals(&o[0]);
    for (k, wk) in w.iter().enumerate() {
        assert!((vals(&o[1])[k] - 2.5 * wk).abs() < 1e-12);
        assert!((vals(&o[2])[k] - wk).abs() < 1e-12);
        assert_eq!(vals(&o[3])[k], 0.0);
        assert_eq!(vals(&o[4])[k], 0.0);
    }
}

#[test]
fn tie_rules() {
    let o = outputs(
        "(program t (input unused (f64))
           (let x (tensor (f64 4) 0.0 1.0 3.0 3.0))
           (let y (tensor (f64 4) 1.0 1.0 2.0 3.0))
           (let p (tensor (f64 3) 2.0 0.0 3.0))
           (let q (tensor (f64 3) 2.0 0.0 0.0))
           (let (ga) (grad (sum (abs x)) x))
           (let (gx gy) (grad (sum (maximum x y)) x y))
           (let (mx my) (grad (sum (minimum x y)) x y))
           (let gm (grad (max x) x))
           (let gp (grad (prod p) p))
           (let gq (grad (prod q) q))
           (let gc (grad (sum (cumprod p)) p))
           (output ga gx gy mx my gm gp gq gc))",
        &[],
    );
    let v: Vec<Vec<f64>> = o.iter().map(vals).collect();
    assert_eq!(v[0], [0.0, 1.0, 1.0, 1.0]); // abs at 0 -> 0
    assert_eq!(v[1], [0.0, 1.0, 1.0, 1.0]); // maximum: a tie goes to x
    assert_eq!(v[2], [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(v[3], [1.0, 1.0, 0.0, 1.0]); // minimum: a tie goes to x
    assert_eq!(v[4], [0.0, 0.0, 1.0, 0.0]);
    assert_eq!(v[5], [0.0, 0.0, 1.0, 1.0]); // max: every tie gets all of g
    assert_eq!(v[6], [0.0, 6.0, 0.0]); // prod with one zero
    assert_eq!(v[7], [0.0, 0.0, 0.0]); // prod with two zeros
                                       // cumprod [2, 0, 0]: d/dp of 2 + 2 p1 + 2 p1 p2 at (2, 0, 3) = (1, 8, 0).
    assert_eq!(v[8], [1.0, 8.0, 0.0]);
}

#[test]
fn gradients_have_the_dtype_of_x() {
    let o = outputs(
        "(program f (input x (f32 3)) (input y (f64 3))
           (let L (sum (mul (cast f64 x) y)))
           (let (gx gy) (grad L x y))
           (let M (sum (mul x x)))
           (output gx gy (grad M x)))",
        &[],
    );
    assert_eq!(o[0].dtype(), eqscan::lang::DType::F32);
    assert_eq!(o[1].dtype(), eqscan::lang::DType::F64);
    assert_eq!(o[2].dtype(), eqscan::lang::DType::F32);
}

#[test]
fn grad_prints_and_reads_back() {
    let text = "(program p
  (input W (f64 3))
  (input x (f64 3))
  (let L (sum (mul W x)))
  (let (gW gx) (grad L W x))
  (output (grad (sum (mul gW gx)) W) (stop_gradient gx)))
";
    let p = parse_program(text).unwrap();
    assert_eq!(print_program(&p), text);
}

#[test]
fn grad_errors_name_the_place() {
    let err = |t: &str| parse_program(t).unwrap_err();
    let e = err("(program p (input x (i64 3))\n  (output (grad (sum (cast f64 x)) x)))");
    assert_eq!(
        e.located("f"),
        "f:2:36: grad: only f64 and f32 values have gradients, got a value of type i64(3,)"
    );
    let e = err("(program p (input x (f64 3))\n  (output (grad (mul x 2.0) x)))");
    assert_eq!(
        e.located("f"),
        "f:2:17: grad: the cost must be a scalar of dtype f64 or f32, got f64(3,)"
    );
    let e = err("(program p (input x (f64 3))\n  (output (grad (sum x) y)))");
    assert_eq!(e.located("f"), "f:2:25: unbound name 'y'");
    let e = err("(program p (input x (i64 3))\n  (output (grad (sum x) x)))");
    assert!(e
        .to_string()
        .contains("the cost must be a scalar of dtype f64 or f32"));
    let e = err("(program p (input x (f64 3))\n  (output (grad (sum x) (mul x 2.0))))");
    assert_eq!(
        e.located("f"),
        "f:2:25: grad: expected the name of a value to differentiate with respect to"
    );
    let e = err("(program p (input x (f64 3))\n  (output (grad (sum x))))");
    assert_eq!(
        e.located("f"),
        "f:2:11: grad takes a cost and 1 or more names, got 1"
    );
}

#[test]
fn the_expand_command_prints_a_program_that_runs_like_the_original() {
    use std::process::Command;
    let bin = env!("CARGO_BIN_EXE_eqscan");
    let dir = std::env::temp_dir().join(format!("eqscan_expand_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("p.sexp");
    std::fs::write(
        &prog,
        "(program p (input W (f64 3 3)) (input x (f64 3))
           (let L (sum (tanh (dot W x))))
           (let (gW gx) (grad L W x))
           (output L gW (grad (sum (mul gx gx)) x)))",
    )
    .unwrap();
    let out = |args: &[&str]| {
        let o = Command::new(bin).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let p = prog.to_str().unwrap();
    let expanded = out(&["expand", p]);
    assert!(!expanded.contains("(grad "));
    let want = print_program(
        &expand(&parse_program(&std::fs::read_to_string(&prog).unwrap()).unwrap()).unwrap(),
    );
    assert_eq!(expanded, want);
    let e = dir.join("e.sexp");
    std::fs::write(&e, &expanded).unwrap();
    let ep = e.to_str().unwrap();
    assert_eq!(out(&["fmt", ep]), expanded);
    let written = out(&["run", p, "--gen", "--no-opt"]);
    assert_eq!(out(&["run", ep, "--gen", "--no-opt"]), written);
    assert_eq!(out(&["run", ep, "--gen"]).lines().count(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_rnn_through_a_backward_loop() {
    // research §1.13: both losses (every step, last step).
    for cost in ["(sum H)", "(sum (mul (index H -1) (index H -1)))"] {
        let text = format!(
            "(program rnn (input W (f64 3 3)) (input U (f64 3 2)) (input b (f64 3))
               (input X (f64 T 2)) (input h0 (f64 3))
               (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences W U b)
                 (fn (x_t h_prev w u bias) (tanh (add (add (dot w h_prev) (dot u x_t)) bias)))))
               (let L {cost})
               (let (gW gU gb gX gh0) (grad L W U b X h0))
               (output L gW gU gb gX gh0))"
        );
        let q = check_fd(&text, &["W", "U", "b", "X", "h0"], &[("T", 5)]);
        let printed = print_program(&q);
        assert!(printed.contains("(mitmot ") && printed.contains("(in_taps 0 1) (out_taps 1)"));
    }
}

#[test]
fn mitsot_sequence_taps_and_mapped_outputs() {
    check_fd(
        "(program m (input X (f64 T 2)) (input y0 (f64 3 2)) (input a (f64 2))
           (let (Y Z) (scan (sequences (X (taps -1 0 1)))
                 (outputs_info (mitsot y0 (taps -3 -1)) (nitsot))
                 (non_sequences a)
                 (fn (xm x xp y3 y1 w)
                   (let s (add (mul (add y3 y1) (tanh w)) (mul xm (mul x xp))))
                   (outputs (sin s) (mul s w)))))
           (let L (add (sum (mul Y Y)) (sum (mul Z (index Y 0)))))
           (let (gX gy0 ga) (grad L X y0 a))
           (output L gX gy0 ga))",
        &["X", "y0", "a"],
        &[("T", 7)],
    );
}

#[test]
fn go_backwards_and_n_steps_without_sequences() {
    check_fd(
        "(program g (input X (f64 T 2)) (input h0 (f64 2)) (input c (f64 2))
           (let H (scan (sequences (X (taps 0 1))) (outputs_info (sitsot h0)) (go_backwards)
                 (fn (x xn h) (mul (add h x) (cos xn)))))
           (let (Kc Ky) (scan (outputs_info (sitsot c) (nitsot)) (n_steps 4)
                 (fn (k) (outputs (sin (add k 0.5)) (mul k k)))))
           (let L (add (sum (mul H (index H 0))) (add (sum Kc) (sum Ky))))
           (let (gX gh0 gc) (grad L X h0 c))
           (output L gX gh0 gc))",
        &["X", "h0", "c"],
        &[("T", 5)],
    );
}

#[test]
fn nested_loops_and_grad_inside_a_fn() {
    check_fd(
        "(program n (input X (f64 T 3)) (input w (f64 3))
           (let S (map (fn (row)
                     (let P (scanl (fn (acc v) (add (mul acc 0.5) (mul v v))) 0.0 (mul row w)))
                     (sum (sin P)))
                   X))
           (let G (map (fn (row) (grad (sum (tanh (mul row w))) row)) X))
           (let L (add (sum (mul S S)) (sum (mul G G))))
           (let (gX gw) (grad L X w))
           (output L gX gw))",
        &["X", "w"],
        &[("T", 4)],
    );
}
