//! Fused groups (`src/exec/plan/fusion.rs`) against the reference
//! interpreter, bit for bit.
//!
//! Each program is built to produce one fused shape — a DAG group whose
//! inner nodes have several readers and several results (stored values and
//! sums), leaves read backwards, rows of a matrix with a broadcast operand
//! and a `where` on a mask, `f32`, a sum read back by the group's own ops —
//! and the test first checks that the plan has that shape, then runs it at
//! lengths around the block size and the pairwise summation's split points
//! (1, 7, 8, 129, 1023, 1025, 4095, 4097, 8200, 20011, 100003), on ordinary inputs and
//! on inputs mixed with extreme magnitudes (±1e300, subnormals, ±0), NaN
//! and infinities. Every result must have the interpreter's bits, on a
//! first call and on a second one that reuses the plan's storage.

use eqscan::exec::plan::fusion::{Fusion, SumOrder};
use eqscan::exec::plan::{Compiled, PlanOptions};
use eqscan::exec::run::{input_shapes, run_program, Dims};
use eqscan::exec::Value;
use eqscan::lang::{parse_program, DType, Program, UnaryOp};
use ndarray::{ArrayD, IxDyn};

const LENGTHS: [usize; 11] = [1, 7, 8, 129, 1023, 1025, 4095, 4097, 8200, 20011, 100003];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A value: ordinary (about -1..3), or with `extreme`, one time in four a
/// pick among extreme magnitudes, signed zeros, NaN and infinities.
fn value(rng: &mut Rng, extreme: bool) -> f64 {
    const SPECIAL: [f64; 12] = [
        1e300,
        -1e300,
        1e-300,
        -5e-324,
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        -1e-310,
        7e154,
    ];
    if extreme && rng.next().is_multiple_of(4) {
        SPECIAL[(rng.next() % SPECIAL.len() as u64) as usize]
    } else {
        rng.unit() * 4.0 - 1.0
    }
}

fn inputs(p: &Program, dims: &Dims, rng: &mut Rng, extreme: bool) -> Vec<Value> {
    let shapes = input_shapes(p, dims).unwrap();
    p.graph
        .params()
        .zip(shapes)
        .map(|((_, node), shape)| {
            let n: usize = shape.iter().product();
            let sh = IxDyn(&shape);
            match node.ty().dtype {
                DType::F64 => Value::F64(
                    ArrayD::from_shape_vec(sh, (0..n).map(|_| value(rng, extreme)).collect())
                        .unwrap(),
                ),
                DType::F32 => Value::F32(
                    ArrayD::from_shape_vec(
                        sh,
                        (0..n).map(|_| value(rng, extreme) as f32).collect(),
                    )
                    .unwrap(),
                ),
                DType::Bool => Value::Bool(
                    ArrayD::from_shape_vec(
                        sh,
                        (0..n).map(|_| rng.next().is_multiple_of(3)).collect(),
                    )
                    .unwrap(),
                ),
                // inputs are never keys (the parser refuses them)
                DType::I64 | DType::Key => Value::I64(
                    ArrayD::from_shape_vec(sh, (0..n).map(|_| (rng.next() % 7) as i64).collect())
                        .unwrap(),
                ),
                DType::I32 => Value::I32(
                    ArrayD::from_shape_vec(sh, (0..n).map(|_| (rng.next() % 7) as i32).collect())
                        .unwrap(),
                ),
            }
        })
        .collect()
}

fn same_bits(a: &Value, b: &Value) -> Result<(), String> {
    if a.dtype() != b.dtype() || a.shape() != b.shape() {
        return Err(format!(
            "{:?} {:?} against {:?} {:?}",
            a.dtype(),
            a.shape(),
            b.dtype(),
            b.shape()
        ));
    }
    // NaN payloads are not part of the contract (Rust and LLVM leave the
    // payload of a NaN result unspecified, and an addition may take its
    // operands in either order): any NaN equals any NaN.
    fn same<F: Copy + std::fmt::LowerExp>(
        x: &[F],
        y: &[F],
        bits: impl Fn(F) -> Option<u64>,
    ) -> Option<String> {
        x.iter()
            .zip(y)
            .position(|(&p, &q)| bits(p) != bits(q))
            .map(|k| format!("element {k}: {:e} against {:e}", x[k], y[k]))
    }
    let bad = match (a, b) {
        (Value::F64(x), Value::F64(y)) => same(
            &x.iter().copied().collect::<Vec<_>>(),
            &y.iter().copied().collect::<Vec<_>>(),
            |v: f64| (!v.is_nan()).then_some(v.to_bits()),
        ),
        (Value::F32(x), Value::F32(y)) => same(
            &x.iter().copied().collect::<Vec<_>>(),
            &y.iter().copied().collect::<Vec<_>>(),
            |v: f32| (!v.is_nan()).then_some(v.to_bits() as u64),
        ),
        _ => (a != b).then(|| "values differ".to_string()),
    };
    bad.map_or(Ok(()), Err)
}

fn groups(f: &Compiled) -> Vec<Fusion> {
    f.plan()
        .nodes
        .iter()
        .filter_map(|n| n.fusion.as_deref().cloned())
        .collect()
}

/// Runs `text` at every length (`T`; `extra` fixes the other sizes) and
/// compares the fused plan with the interpreter bit for bit; `shape`
/// checks the plan's groups.
fn check(text: &str, extra: &[(&str, i64)], shape: impl Fn(&[Fusion])) {
    check_upto(usize::MAX, text, extra, shape)
}

/// [`check`] at the lengths up to `max_t`.
fn check_upto(max_t: usize, text: &str, extra: &[(&str, i64)], shape: impl Fn(&[Fusion])) {
    let p = parse_program(text).unwrap();
    let f = Compiled::with_options(&p, &Dims::new(), PlanOptions::default()).unwrap();
    shape(&groups(&f));
    let mut f = f;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for &t in LENGTHS.iter().filter(|&&t| t <= max_t) {
        let mut dims: Dims = [("T".to_string(), t as i64)].into();
        for (k, v) in extra {
            dims.insert(k.to_string(), *v);
        }
        for extreme in [false, true] {
            let all = inputs(&p, &dims, &mut rng, extreme);
            let want = run_program(&p, all.clone(), &dims).unwrap();
            let refs: Vec<&Value> = all.iter().collect();
            for call in 0..2 {
                let got = f.call(&refs).unwrap().to_values();
                assert_eq!(got.len(), want.len());
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    same_bits(g, w).unwrap_or_else(|e| {
                        panic!("T = {t}, extreme {extreme}, call {call}, output {k}: {e}")
                    });
                }
            }
        }
    }
}

/// The AR(1) gradient's shape: `e` read by four ops, a `where` making a
/// vector of ones read by three, four sums (pairwise) and a stored value,
/// all in one group.
#[test]
fn several_roots_and_shared_inner_nodes() {
    check(
        "(program ar1 (input x (f64 T)) (input y (f64 T)) (input c (f64)) (input phi (f64))
           (let e (sub (sub y c) (mul phi x)))
           (let e2 (mul -0.5 (mul e e)))
           (let k (exp (mul phi -2.0)))
           (let l (sub (mul e2 k) c))
           (let one (where true (fill (f64) 1.0) l))
           (let d (mul e (mul -0.5 (mul k one))))
           (output (sum l) (sum (add d d) 0) (sum (mul e2 one) 0) (sum one 0) (add d d)))",
        &[],
        |gs| {
            let big: Vec<&Fusion> = gs.iter().filter(|g| g.rank == 1).collect();
            assert_eq!(big.len(), 1, "{gs:#?}");
            let g = big[0];
            assert_eq!(g.sums.len(), 4);
            assert!(g.sums.iter().all(|s| s.order == SumOrder::Pairwise));
            // The four sums and `add d d`.
            assert_eq!(g.outputs.len(), 5);
            assert!(g.ops.len() >= 12, "{}", g.ops.len());
        },
    );
}

/// Reversed slices as leaves, read in place: of an input, and of a value
/// another group stores; sums over a reversed order.
#[test]
fn reversed_leaves() {
    check(
        "(program rev (input x (f64 T)) (input y (f64 T))
           (let xr (slice x none none -1))
           (let p (mul (add y y) 0.5))
           (let pr (slice (add p x) none none -1))
           (output (sum pr 0) (neg (sum (mul xr pr) 0))
                   (sum (mul (slice x 1 none 1) (sub (slice y 0 -1 1) 2.0)))))",
        &[],
        |gs| {
            assert!(gs.len() >= 2, "{gs:#?}");
            // The group of `xr * pr` reads two leaves and sums twice.
            assert!(
                gs.iter().any(|g| g.sums.len() == 2 && g.leaves.len() == 2),
                "{gs:#?}"
            );
        },
    );
}

/// Rows: axis-0 sums of a matrix, a broadcast row operand, a `where` over
/// a mask, a stored elementwise result, and a sum of an input.
#[test]
fn rows_with_broadcast_and_mask() {
    for d in [3, 16, 5000] {
        check_upto(
            if d > 100 { 129 } else { usize::MAX },
            "(program rows (input X (f64 T D)) (input w (f64 D)) (input m (bool T D))
               (let z (mul X w))
               (let s (where m (exp z) (neg z)))
               (output (sum s 0) (sum (mul s z) 0) (sin s) (sum X 0)))",
            &[("D", d)],
            |gs| {
                assert!(
                    gs.iter()
                        .any(|g| g.sums.len() == 3 && g.rank == 2 && g.outputs.len() == 4),
                    "{gs:#?}"
                );
            },
        );
    }
}

/// `f32` groups, with weak scalars.
#[test]
fn f32_groups() {
    check(
        "(program f (input x (f32 T))
           (let e (mul x 3.0))
           (output (sum (mul e e)) (sum e 0) (add e 1.0)))",
        &[],
        |gs| {
            assert_eq!(gs.len(), 1, "{gs:#?}");
            assert_eq!(gs[0].dtype, DType::F32);
            assert_eq!(gs[0].sums.len(), 2);
        },
    );
}

/// A sum read back by an op of the same shape: the op cannot be in the
/// sum's group (the sum finishes only after the last block).
#[test]
fn a_sum_read_back_stays_outside() {
    check(
        "(program back (input x (f64 T))
           (let y (mul x 2.0))
           (let z (exp y))
           (output (sub z (div (sum z 0) 3.0)) (sum y)))",
        &[],
        |gs| {
            for g in gs {
                let sums: Vec<usize> = g.sums.iter().map(|s| s.node).collect();
                for op in &g.ops {
                    for a in &op.args {
                        if let eqscan::exec::plan::fusion::Operand::Leaf(l) = a {
                            assert!(!sums.contains(&g.leaves[*l]), "{g:#?}");
                        }
                    }
                }
            }
        },
    );
}

/// The unfused plan gives the same bits (fusion changes no result).
#[test]
fn fused_and_unfused_agree() {
    let text = "(program ar1 (input x (f64 T)) (input c (f64))
           (let e (sub (slice x 1 none 1) (mul c (slice x 0 -1 1))))
           (output (sum (mul e e)) (sum (slice (mul e c) none none -1) 0)))";
    let p = parse_program(text).unwrap();
    let mut rng = Rng(7);
    let dims: Dims = [("T".to_string(), 50_001)].into();
    let all = inputs(&p, &dims, &mut rng, true);
    let refs: Vec<&Value> = all.iter().collect();
    let mut fused = Compiled::with_options(&p, &Dims::new(), PlanOptions::default()).unwrap();
    let mut plain = Compiled::with_options(
        &p,
        &Dims::new(),
        PlanOptions {
            fuse: false,
            ..PlanOptions::default()
        },
    )
    .unwrap();
    assert!(!groups(&fused).is_empty());
    let a = fused.call(&refs).unwrap().to_values();
    let b = plain.call(&refs).unwrap().to_values();
    for (x, y) in a.iter().zip(&b) {
        same_bits(x, y).unwrap();
    }
}

/// `sin` and `cos` of one operand run as one pair kernel: the planner puts
/// them next to each other (whatever their order in the program, and with
/// ops between them), and each result keeps its own bits — stored or
/// temporary, a row operand broadcast, arguments beyond the kernel's core
/// (±1e300, infinities, NaN) included; `f32` (no pair kernel) too.
#[test]
fn sin_and_cos_of_one_operand_run_as_a_pair() {
    let adjacent = |gs: &[Fusion]| {
        let g = gs.iter().find(|g| g.rank == 2).expect("a group of rank 2");
        let unary = |k: usize| match &g.ops[k].op {
            eqscan::lang::Op::Unary(u) => Some(*u),
            _ => None,
        };
        let pairs = (0..g.ops.len().saturating_sub(1))
            .filter(|&k| {
                matches!(
                    (unary(k), unary(k + 1)),
                    (Some(UnaryOp::Sin), Some(UnaryOp::Cos))
                        | (Some(UnaryOp::Cos), Some(UnaryOp::Sin))
                ) && g.ops[k].args == g.ops[k + 1].args
            })
            .count();
        assert_eq!(pairs, 1, "{g:#?}");
    };
    // Cos first, an op between the two, sin stored and read twice.
    check_upto(
        8200,
        "(program merge (input X (f64 T D)) (input w (f64 D))
           (let a (mul X 3.0))
           (let c (mul (cos a) w))
           (let s (sin a))
           (output s (add c (mul s w)) (sum s 0)))",
        &[("D", 5)],
        adjacent,
    );
    check_upto(
        8200,
        "(program merge (input X (f32 T D)) (input w (f32 D))
           (let s (sin X))
           (output (mul s w) (add s (mul (cos X) w))))",
        &[("D", 3)],
        adjacent,
    );
}

/// An add, sub or mul read once by another one is computed inside it, in
/// either argument position, with array and scalar operands, `f64` and
/// `f32`; each sum runs right after the op it reads, so block buffers are
/// reused early. Bits as the interpreter's.
#[test]
fn ops_computed_inside_their_reader() {
    for dt in ["f64", "f32"] {
        check(
            &format!(
                "(program m (input x ({dt} T)) (input y ({dt} T)) (input c ({dt}))
                   (let a (sub (mul x c) y))
                   (let b (mul c (add x y)))
                   (let d (sub y (sub c x)))
                   (let e (add (mul x y) (sub x c)))
                   (output (sum (mul a b)) (add (sub d a) (mul b e))
                           (sum (sub (mul e c) d) 0)))"
            ),
            &[],
            |gs| {
                assert_eq!(gs.len(), 1, "{gs:#?}");
                let g = &gs[0];
                let inlined = g.ops.iter().filter(|o| o.inlined).count();
                let inner: Vec<usize> = g
                    .ops
                    .iter()
                    .filter_map(|o| o.inner.map(|i| i.pos))
                    .collect();
                // mul x c, add x y, sub c x, mul x y, sub d a, mul e c.
                assert_eq!(inlined, 6, "{g:#?}");
                assert_eq!(inner.len(), 6);
                assert!(inner.contains(&0) && inner.contains(&1), "{inner:?}");
                // Each sum right after the op it reads.
                for s in &g.sums {
                    match s.arg {
                        eqscan::exec::plan::fusion::Operand::Op(k) => assert_eq!(s.after, k + 1),
                        eqscan::exec::plan::fusion::Operand::Leaf(_) => assert_eq!(s.after, 0),
                    }
                }
            },
        );
    }
}

/// A pass split in two halves run on two threads (`split_work`) gives the
/// bits of one thread's pass and of the unfused plan: forward and reversed
/// sums, a leaf read backwards, a broadcast leaf, `f32`, at lengths whose
/// halves cut the reversed sums' leaves anywhere, extreme values included.
#[test]
fn split_passes_keep_their_bits() {
    let programs = [
        "(program ar1 (input x (f64 T)) (input c (f64)) (input phi (f64))
           (let e (sub (sub (slice x 1 none 1) c) (mul phi (slice x 0 -1 1))))
           (let g (mul e (mul -0.5 c)))
           (output (sum (mul e e)) (sum (slice (add g g) none none -1) 0)
                   (sum (slice (mul g (slice x 0 -1 1)) none none -1) 0)))",
        "(program rev (input x (f64 T)) (input y (f64 T))
           (output (sum (slice (mul (slice x none none -1) (exp y)) none none -1) 0)))",
        "(program fwd (input x (f32 T)) (input b (f32 1))
           (output (sum (tanh (add x b))) (sum (mul x x))))",
    ];
    for text in programs {
        let p = parse_program(text).unwrap();
        for t in [2049usize, 4097, 50_001, 65_543] {
            let mut rng = Rng(t as u64);
            let dims: Dims = [("T".to_string(), t as i64)].into();
            for extreme in [false, true] {
                let all = inputs(&p, &dims, &mut rng, extreme);
                let refs: Vec<&Value> = all.iter().collect();
                let with = |split_work, fuse| {
                    let options = PlanOptions {
                        split_work,
                        fuse,
                        ..PlanOptions::default()
                    };
                    let mut f = Compiled::with_options(&p, &Dims::new(), options).unwrap();
                    if fuse {
                        assert!(groups(&f).iter().all(|g| g.split_work == split_work));
                        assert!(!groups(&f).is_empty(), "{text}");
                    }
                    f.call(&refs).unwrap().to_values()
                };
                let split = with(Some(0), true);
                for other in [with(None, true), with(None, false)] {
                    for (x, y) in split.iter().zip(&other) {
                        same_bits(x, y).unwrap_or_else(|e| panic!("T = {t}: {e}\n{text}"));
                    }
                }
            }
        }
    }
}
