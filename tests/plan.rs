//! Differential tests of the compiled executor (`eqscan::exec::plan`)
//! against the reference interpreter (`eqscan::exec::run`).
//!
//! Programs: every `examples/*.sexp`; every case under `tests/cases/ops`,
//! `tests/cases/scan` and `tests/cases/scan_rules`, and the optimized form
//! of each `scan_rules` case (its insta snapshot); and the eight workloads
//! of `benches/programs` with their optimized forms
//! (`tests/snapshots/optimized__*.snap`). Sizes come from a case's
//! `; dims:` header, else small defaults. Inputs are random (a fixed seed
//! per program), so index arguments and the like may be out of range: then
//! the plan must fail with the interpreter's error.
//!
//! For each program, with in-place updates and fusion each enabled and
//! disabled: a call by
//! reference, a second call with other sizes (the slots are reshaped), a
//! third with the first sizes again, a call with inputs by value, and a
//! call returning owned values — every result within 1e-12 of the
//! interpreter's, and the caller's inputs bit for bit unchanged after each
//! call by reference.
//!
//! One trial per program, named `GROUP::STEM` (`example`, `ops`, `scan`,
//! `scan_rules`, `shared`, `bench`), and `GROUP::STEM::optimized` for an
//! optimized form: `cargo test --release --test plan -- bench::rnn`.

mod common;

use common::harness::{self, case_files, case_name, plain_trials};
use common::{compare, header, header_pairs, rel, root, stem};
use eqscan::exec::ops::product_kernel::{self, PackedWidth, ProductKernel};
use eqscan::exec::plan::{Compiled, PlanOptions};
use eqscan::exec::run::{input_shapes, run_program, Dims};
use eqscan::exec::Value;
use eqscan::lang::{parse_program, DType, OpKind, Program};
use libtest_mimic::Trial;
use ndarray::{ArrayD, IxDyn};
use std::collections::BTreeSet;

const TOL: f64 = 1e-12;

/// A program to test and the sizes to run it at.
struct Case {
    name: String,
    program: Program,
    dims: Dims,
}

/// The outputs of `p` run on the plan alone (no step tape): what the
/// tape and its machine code must give bit for bit.
fn plan_values(p: &Program, d: &Dims, refs: &[&Value]) -> Vec<Value> {
    let mut plain = Compiled::with_options(p, d, common::plan_without_tape()).unwrap();
    plain.call(refs).unwrap().to_values()
}

fn default_dims() -> Dims {
    [("T", 8), ("D", 5), ("N", 6), ("M", 4)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

fn dims_of(text: &str) -> Dims {
    let mut d = default_dims();
    d.extend(header_pairs::<i64>(text, "dims"));
    d
}

/// The program text of an insta snapshot (after its header).
fn snapshot_program(path: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let body = text.splitn(3, "---\n").nth(2)?;
    Some(body.to_string())
}

/// The optimized program of snapshot `tests/snapshots/NAME.snap`, which
/// must exist.
fn snapshot_of(name: &str) -> String {
    let snap = root().join(format!("tests/snapshots/{name}.snap"));
    snapshot_program(&snap).unwrap_or_else(|| panic!("{}: missing or unreadable", rel(&snap)))
}

/// Every program, each with its trial name (`GROUP::STEM`, and
/// `GROUP::STEM::optimized` for an optimized form).
fn cases() -> Vec<(String, Case)> {
    let mut out = Vec::new();
    // `grad`s expanded (the gradient workloads hold them), as `eqscan run`
    // does before anything runs.
    let mut add = |trial: String, name: String, text: &str, dims: Dims| match parse_program(text)
        .map(|p| eqscan::grad::expand(&p).unwrap_or_else(|e| panic!("{name}: {e}")))
    {
        Ok(program) => out.push((
            trial,
            Case {
                name,
                program,
                dims,
            },
        )),
        Err(e) => panic!("{name}: {}", e.located(&name)),
    };
    for (dir, group) in [
        ("examples", "example"),
        ("tests/cases/ops", "ops"),
        ("tests/cases/scan", "scan"),
        ("tests/cases/scan_rules", "scan_rules"),
        ("tests/cases/shared", "shared"),
    ] {
        for path in case_files(dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            let trial = case_name(group, &path);
            add(trial.clone(), rel(&path), &text, dims_of(&text));
            // Every Scan-rule case but a known bug has an optimized form.
            if dir == "tests/cases/scan_rules" && header(&text, "known_bug").is_none() {
                let opt = snapshot_of(&format!("scan_rules__{}", stem(&path)));
                add(
                    format!("{trial}::optimized"),
                    format!("{} (optimized)", rel(&path)),
                    &opt,
                    dims_of(&text),
                );
            }
        }
    }
    for path in case_files("benches/programs") {
        let text = std::fs::read_to_string(&path).unwrap();
        let dims: Dims = [("T", 9), ("D", 5), ("N", 6), ("M", 4)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let trial = case_name("bench", &path);
        add(trial.clone(), rel(&path), &text, dims.clone());
        let opt = snapshot_of(&format!("optimized__bench__{}", stem(&path)));
        add(
            format!("{trial}::optimized"),
            format!("{} (optimized)", rel(&path)),
            &opt,
            dims,
        );
    }
    out
}

/// splitmix64: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn random_inputs(p: &Program, dims: &Dims, rng: &mut Rng) -> Result<Vec<Value>, String> {
    let shapes = input_shapes(p, dims).map_err(|e| e.to_string())?;
    Ok(p.graph
        .params()
        .zip(shapes)
        .map(|((_, node), shape)| {
            let ty = node.ty();
            let n: usize = shape.iter().product();
            let sh = IxDyn(&shape);
            match ty.dtype {
                DType::F64 => Value::F64(
                    ArrayD::from_shape_vec(sh, (0..n).map(|_| rng.unit() * 2.0 - 0.7).collect())
                        .unwrap(),
                ),
                DType::F32 => Value::F32(
                    ArrayD::from_shape_vec(
                        sh,
                        (0..n).map(|_| (rng.unit() * 2.0 - 0.7) as f32).collect(),
                    )
                    .unwrap(),
                ),
                // inputs are never keys (the parser refuses them)
                DType::I64 | DType::Key => Value::I64(
                    ArrayD::from_shape_vec(
                        sh,
                        (0..n).map(|_| (rng.next() % 5) as i64 - 1).collect(),
                    )
                    .unwrap(),
                ),
                DType::I32 => Value::I32(
                    ArrayD::from_shape_vec(
                        sh,
                        (0..n).map(|_| (rng.next() % 5) as i32 - 1).collect(),
                    )
                    .unwrap(),
                ),
                DType::Bool => Value::Bool(
                    ArrayD::from_shape_vec(
                        sh,
                        (0..n).map(|_| rng.next().is_multiple_of(2)).collect(),
                    )
                    .unwrap(),
                ),
            }
        })
        .collect())
}

/// Bitwise equality (NaN equal to itself), for "the input is unchanged".
fn same_bits(a: &Value, b: &Value) -> bool {
    a.dtype() == b.dtype()
        && a.shape() == b.shape()
        && match (a, b) {
            (Value::F64(x), Value::F64(y)) => {
                x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
            }
            (Value::F32(x), Value::F32(y)) => {
                x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
            }
            _ => a == b,
        }
}

/// [`same_bits`], except that a NaN equals any NaN: Rust leaves the sign
/// and payload of an operation's NaN result unspecified (RFC 3514), and
/// the two executors' kernels, compiled apart, may order the operands of
/// an addition or a product of two NaNs differently (a NaN in a sequence
/// meeting one from an overflow: +NaN against -NaN).
fn same_bits_but_nans(a: &Value, b: &Value) -> bool {
    let same = |p: f64, q: f64| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan());
    a.dtype() == b.dtype()
        && a.shape() == b.shape()
        && match (a, b) {
            (Value::F64(x), Value::F64(y)) => x.iter().zip(y).all(|(&p, &q)| same(p, q)),
            (Value::F32(x), Value::F32(y)) => x
                .iter()
                .zip(y)
                .all(|(&p, &q)| same(f64::from(p), f64::from(q))),
            _ => a == b,
        }
}

/// The symbols the input types mention (bound by the inputs' shapes).
fn input_symbols(p: &Program) -> BTreeSet<String> {
    p.inputs()
        .flat_map(|(_, t)| {
            t.shape
                .iter()
                .flat_map(|d| d.symbols().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn check_outputs(
    what: &str,
    got: Result<Vec<Value>, String>,
    want: &Result<Vec<Value>, String>,
) -> Result<(), String> {
    match (got, want) {
        (Ok(g), Ok(w)) => {
            if g.len() != w.len() {
                return Err(format!("{what}: {} outputs, expected {}", g.len(), w.len()));
            }
            for (k, (a, b)) in g.iter().zip(w).enumerate() {
                compare(a, b, TOL, TOL).map_err(|e| format!("{what}: output {k}: {e}"))?;
            }
            Ok(())
        }
        (Err(g), Err(w)) if &g == w => Ok(()),
        (g, w) => Err(format!(
            "{what}: got {:?}, the interpreter gave {:?}",
            g.map(|v| v.len()),
            w.as_ref().map(|v| v.len())
        )),
    }
}

/// What the interpreter says a call gives: the program's outputs, then the
/// shared variables' values after the call (the update values, cast to the
/// variable's dtype; unchanged where there is no update).
fn expected(p: &Program, all: &[Value], dims: &Dims) -> Result<Vec<Value>, String> {
    let located = |e: eqscan::exec::ExecError| e.located("prog");
    let mut outs = run_program(p, all.to_vec(), dims).map_err(located)?;
    let updates = outs.split_off(p.n_outputs());
    let n_in = p.n_inputs();
    for (j, (_, ty)) in p.shared_vars().enumerate() {
        let v = match p.shared.updates.iter().position(|&u| u == j) {
            Some(u) => updates[u].cast(ty.dtype),
            None => all[n_in + j].clone(),
        };
        outs.push(v);
    }
    Ok(outs)
}

/// The shared variables' values now.
fn state(f: &Compiled, p: &Program) -> Vec<Value> {
    p.shared_vars()
        .map(|(n, _)| f.shared(n).cloned().expect("a shared value after a call"))
        .collect()
}

/// Sets the shared variables from the tail of `all`.
fn set_state(f: &mut Compiled, p: &Program, all: &[Value]) {
    let names: Vec<String> = p.shared_vars().map(|(n, _)| n.to_string()).collect();
    for (n, v) in names.iter().zip(&all[p.n_inputs()..]) {
        f.set_shared(n, v.clone()).unwrap();
    }
}

fn run_case(c: &Case) -> Result<(), String> {
    let p = &c.program;
    let n_in = p.n_inputs();
    let mut rng = Rng(seed(&c.name));
    let all = random_inputs(p, &c.dims, &mut rng)?;
    // Other sizes for the input-bound symbols: one more each.
    let bound = input_symbols(p);
    let given: Dims = c
        .dims
        .iter()
        .filter(|(k, _)| !bound.contains(*k))
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    let mut dims2 = c.dims.clone();
    for (k, v) in dims2.iter_mut() {
        if bound.contains(k) {
            *v += 1;
        }
    }
    let all2 = random_inputs(p, &dims2, &mut rng)?;
    let located = |e: eqscan::exec::ExecError| e.located("prog");
    let want = expected(p, &all, &c.dims);
    let want2 = expected(p, &all2, &dims2);
    for (inplace, fuse) in [(true, true), (false, false), (true, false), (false, true)] {
        let opts = PlanOptions {
            inplace,
            fuse,
            ..PlanOptions::default()
        };
        let mode = format!(
            "{}, {}",
            if inplace { "in-place" } else { "no in-place" },
            if fuse { "fused" } else { "unfused" }
        );
        let mut f = Compiled::with_options(p, &given, opts).map_err(located)?;
        for (round, (all, want)) in [(&all, &want), (&all2, &want2), (&all, &want)]
            .into_iter()
            .enumerate()
        {
            let before: Vec<Value> = all.clone();
            let refs: Vec<&Value> = all[..n_in].iter().collect();
            set_state(&mut f, p, all);
            let got = f
                .call(&refs)
                .map(|o| o.to_values())
                .map(|mut o| {
                    o.extend(state(&f, p));
                    o
                })
                .map_err(located);
            check_outputs(&format!("{mode}, call {round}"), got, want)?;
            for (k, (a, b)) in all.iter().zip(&before).enumerate() {
                if !same_bits(a, b) {
                    return Err(format!("{mode}, call {round}: input {k} was modified"));
                }
            }
        }
        for (what, all, want) in [
            ("inputs by value", &all, &want),
            ("inputs by value, other sizes", &all2, &want2),
        ] {
            set_state(&mut f, p, all);
            let got = f
                .call_owned(all[..n_in].to_vec())
                .map(|o| o.to_values())
                .map(|mut o| {
                    o.extend(state(&f, p));
                    o
                })
                .map_err(located);
            check_outputs(&format!("{mode}, {what}"), got, want)?;
        }
        let refs: Vec<&Value> = all[..n_in].iter().collect();
        for what in ["owned results", "owned results again"] {
            set_state(&mut f, p, &all);
            let got = f
                .call_values(&refs)
                .map(|mut o| {
                    o.extend(state(&f, p));
                    o
                })
                .map_err(located);
            check_outputs(&format!("{mode}, {what}"), got, &want)?;
        }
    }
    step_tape_agrees(p, &given, &[&all, &all2])
}

/// The step tape gives the same bits, or the same error, as the plan with
/// it off, on both sets of inputs (twice each: the second call reuses the
/// compiled tape and its arena).
fn step_tape_agrees(p: &Program, given: &Dims, inputs: &[&[Value]]) -> Result<(), String> {
    let n_in = p.n_inputs();
    let located = |e: eqscan::exec::ExecError| e.located("prog");
    let off = common::plan_without_tape();
    let native = common::plan_native_from_first_step();
    let mut with = Compiled::new(p, given).map_err(located)?;
    let mut without = Compiled::with_options(p, given, off).map_err(located)?;
    let mut with_native = Compiled::with_options(p, given, native).map_err(located)?;
    for (round, all) in inputs.iter().chain(inputs).enumerate() {
        let refs: Vec<&Value> = all[..n_in].iter().collect();
        let call = |f: &mut Compiled| {
            set_state(f, p, all);
            f.call(&refs)
                .map(|o| o.to_values())
                .map(|mut o| {
                    o.extend(state(f, p));
                    o
                })
                .map_err(located)
        };
        let reference = call(&mut without);
        for (what, f) in [("step tape", &mut with), ("native code", &mut with_native)] {
            match (call(f), &reference) {
                (Ok(a), Ok(b)) => {
                    for (k, (x, y)) in a.iter().zip(b).enumerate() {
                        if x.shape() != y.shape() || !same_bits(x, y) {
                            return Err(format!(
                                "{what}, call {round}: output {k} differs from the plan's without the step tape"
                            ));
                        }
                    }
                }
                (Err(a), Err(b)) if a == *b => {}
                (a, b) => {
                    return Err(format!(
                        "{what}, call {round}: {:?} with it, {:?} without the step tape",
                        a.map(|v| v.len()),
                        b.as_ref().map(|v| v.len())
                    ))
                }
            }
        }
    }
    if std::env::var_os("EQSCAN_TAPE_REPORT").is_some() {
        let (on, all) = with.loops_on_tape();
        eprintln!("step tape: {on} of {all} loops");
    }
    Ok(())
}

/// In-place updates happen (the workloads' elementwise chains, unfused),
/// and the plan without them gives the same results (checked above).
fn inplace_is_planned() {
    let text =
        std::fs::read_to_string(root().join("tests/snapshots/optimized__bench__map.snap")).unwrap();
    let p = parse_program(
        &snapshot_program(&root().join("tests/snapshots/optimized__bench__map.snap"))
            .unwrap_or(text),
    )
    .unwrap();
    let unfused = PlanOptions {
        fuse: false,
        ..PlanOptions::default()
    };
    let f = Compiled::with_options(&p, &Dims::new(), unfused).unwrap();
    assert!(f.plan().n_inplace() >= 2, "{}", f.plan().n_inplace());
    let g = Compiled::with_options(
        &p,
        &Dims::new(),
        PlanOptions {
            inplace: false,
            fuse: false,
            ..PlanOptions::default()
        },
    )
    .unwrap();
    assert_eq!(g.plan().n_inplace(), 0);
}

/// An increment (`inc_index`, `inc_slice`) overwrites its operand exactly
/// when nothing reads the operand afterwards and no other argument sees it
/// through a view (`tests/cases/ops/grad_inc_inplace.sexp`: a dead
/// operand, one read again after the increment, a chain of two, and one
/// whose increment is a row of the operand itself); with and without
/// in-place updates the results equal the interpreter's.
fn increments_update_only_dead_operands() {
    let path = root().join("tests/cases/ops/grad_inc_inplace.sexp");
    let p = parse_program(&std::fs::read_to_string(path).unwrap()).unwrap();
    let dims = Dims::new();
    let inputs = eqscan::exec::run::generate_inputs(&p, &dims, &Default::default()).unwrap();
    let refs: Vec<&Value> = inputs.iter().collect();
    let want = run_program(&p, inputs.clone(), &dims).unwrap();
    for fuse in [false, true] {
        for inplace in [true, false] {
            let options = PlanOptions {
                fuse,
                inplace,
                ..PlanOptions::default()
            };
            let mut f = Compiled::with_options(&p, &dims, options).unwrap();
            let plan = f.plan();
            let decided: Vec<bool> = plan
                .order
                .iter()
                .filter(|&&i| plan.graph.nodes[i].op.name().starts_with("inc_"))
                .map(|&i| plan.nodes[i].inplace.is_some())
                .collect();
            let expect = if inplace {
                vec![true, false, true, true, false]
            } else {
                vec![false; 5]
            };
            assert_eq!(decided, expect, "fuse {fuse}, inplace {inplace}");
            for _ in 0..2 {
                let got = f.call(&refs).unwrap().to_values();
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    compare(g, w, 0.0, 0.0)
                        .unwrap_or_else(|e| panic!("output {k} (fuse {fuse}): {e}"));
                }
            }
        }
    }
}

/// The optimized `cumsum_last`, `a0 + sum(X * X, 0)`, runs fused: the
/// executor holds a block of `X * X`, never all of it (issue 6: peak memory
/// under 1.3 times the input at T = 2,000,000).
fn fused_sum_holds_a_block_not_a_copy() {
    let snap = root().join("tests/snapshots/optimized__bench__cumsum_last.snap");
    let p = parse_program(&snapshot_program(&snap).unwrap()).unwrap();
    let dims: Dims = [("T".to_string(), 200_000), ("D".to_string(), 16)].into();
    let inputs = eqscan::exec::run::generate_inputs(&p, &dims, &Default::default()).unwrap();
    let input_bytes: usize = inputs.iter().map(|v| v.len_bytes()).sum();
    let refs: Vec<&Value> = inputs.iter().collect();
    let mut f = Compiled::new(&p, &Dims::new()).unwrap();
    let got = f.call(&refs).unwrap().to_values();
    let want = run_program(&p, inputs.clone(), &dims).unwrap();
    compare(&got[0], &want[0], 0.0, 0.0).unwrap();
    assert!(
        f.peak_bytes() * 100 < input_bytes,
        "the executor held {} bytes for an input of {input_bytes}",
        f.peak_bytes()
    );
}

/// Loops whose steps compile to machine code run it once the call is
/// long enough (`PlanOptions::native_steps`), and not before: fib at N = 1
/// (a run of scalar operations) and N = 1024 (one fused loop writing its
/// row), GARCH's recurrence (staged copies, scalar operations and `log`),
/// and `native_extremes` (both kinds); each gives the plan's bits without
/// the step tape.
fn native_code_runs_long_loops() {
    let read =
        |rel: &str| parse_program(&std::fs::read_to_string(root().join(rel)).unwrap()).unwrap();
    let garch = parse_program(
        "(program garch (input r (f64 T)) (input om (f64)) (input al (f64)) (input be (f64)) (input s0 (f64))
          (let (S ell) (scan (sequences (r (taps -1 0))) (outputs_info (sitsot s0) (nitsot))
            (non_sequences om al be)
            (fn (rp rt s o a b)
              (let s1 (add (add o (mul a (mul rp rp))) (mul b s)))
              (outputs s1 (mul -0.5 (add (log s1) (div (mul rt rt) s1)))))))
          (output S ell))",
    )
    .unwrap();
    let fib = read("benches/programs/fib.sexp");
    let extremes = read("tests/cases/scan/native_extremes.sexp");
    let dims = |pairs: &[(&str, i64)]| -> Dims {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    };
    let cases = [
        (&fib, dims(&[("T", 50), ("N", 1)])),
        (&fib, dims(&[("T", 50), ("N", 1024)])),
        (&garch, dims(&[("T", 51)])),
        (&extremes, dims(&[("T", 50), ("N", 5)])),
    ];
    for (p, d) in cases {
        let inputs = eqscan::exec::run::generate_inputs(p, &d, &Default::default()).unwrap();
        let refs: Vec<&Value> = inputs.iter().collect();
        let with = |native_steps| PlanOptions {
            native_steps,
            ..PlanOptions::default()
        };
        let want = plan_values(p, &d, &refs);
        for (min, native) in [(Some(10), 1), (Some(1000), 0), (None, 0)] {
            let mut f = Compiled::with_options(p, &d, with(min)).unwrap();
            let got = f.call(&refs).unwrap().to_values();
            assert_eq!(f.loops_on_tape(), (1, 1), "{} {d:?}", p.name);
            assert_eq!(f.loops_native(), native, "{} {d:?} {min:?}", p.name);
            for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(same_bits(a, b), "{} {d:?} {min:?}: output {k}", p.name);
            }
        }
    }
}

/// While loops whose step is one run of machine code run as one native
/// function that stops at the condition (`loops_native_whole`): a
/// scalar Newton square root bounded by 10^6 steps (stops after a few),
/// the docs' power of 2 (6 steps), a numeric condition that is NaN
/// (counts as true: 12 of 20 steps), a condition that never holds
/// (every step), and a counter that stops after 3000 of 10^9 steps
/// (native chunks across the buffer's growths). Each gives the plan's bits without the step tape, and
/// its outputs the rows of the steps that ran, on the first call and on
/// the second (the compiled code and the grown buffers reused).
fn native_code_runs_whole_while_loops() {
    let read = |text: &str| parse_program(text).unwrap();
    let newton = read(
        "(program newton (input a0 (f64))
          (let a (add (abs a0) 2.0))
          (let X (scan (outputs_info (sitsot a)) (non_sequences a) (n_steps 1000000)
            (fn (x av)
              (let x1 (mul 0.5 (add x (div av x))))
              (outputs x1 (until (lt (abs (sub (mul x1 x1) av)) 1e-12))))))
          (output X))",
    );
    let power = read(
        &std::fs::read_to_string(root().join("tests/cases/scan/while_real_power_of_2.sexp"))
            .unwrap(),
    );
    // 0 * log(x + 0.35): 0 while x > -0.35, NaN from x_11 = -0.400 on
    // (the data of while_nan_cond.sexp).
    let nan = read(
        "(program nan (input X (f64 T))
          (let Y (scan (sequences X)
            (fn (x) (outputs (mul x x) (until (mul 0.0 (log (add x 0.35))))))))
          (output Y))",
    );
    let never = read(
        "(program never (input X (f64 T)) (input s0 (f64))
          (let S (scan (sequences X) (outputs_info (sitsot s0))
            (fn (x s) (let s1 (add (mul s 0.5) x)) (outputs s1 (until (gt s1 100.0))))))
          (output S))",
    );
    // 3000 steps of at most 10^9: stretches between the buffer's growths,
    // each run in native chunks of 64, 128, ... steps.
    let count = read(
        "(program count (input a (f64))
          (let K (scan (outputs_info (sitsot (zeros (f64)))) (non_sequences a) (n_steps 1000000000)
            (fn (k av) (let k1 (add k 1.0)) (outputs k1 (until (ge (add k1 (mul av 0.0)) 3000.0))))))
          (output K))",
    );
    let dims = |pairs: &[(&str, i64)]| -> Dims {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    };
    let cases = [
        (&newton, dims(&[]), None),
        (&count, dims(&[]), Some(3000)),
        (&power, dims(&[]), Some(6)),
        (&nan, dims(&[("T", 20)]), Some(12)),
        (&never, dims(&[("T", 40)]), Some(40)),
    ];
    for (p, d, rows) in cases {
        let inputs = eqscan::exec::run::generate_inputs(p, &d, &Default::default()).unwrap();
        let refs: Vec<&Value> = inputs.iter().collect();
        let want = plan_values(p, &d, &refs);
        if let Some(rows) = rows {
            assert_eq!(want[0].shape()[0], rows, "{}", p.name);
        } else {
            let n = want[0].shape()[0];
            assert!((2..=64).contains(&n), "{}: {n} steps", p.name);
        }
        let mut f = Compiled::with_options(p, &d, common::plan_native_from_first_step()).unwrap();
        for call in 0..2 {
            let got = f.call(&refs).unwrap().to_values();
            assert_eq!(f.loops_native_whole(), 1, "{} call {call}", p.name);
            for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(
                    a.shape() == b.shape() && same_bits(a, b),
                    "{} call {call}: output {k}",
                    p.name
                );
            }
        }
    }
}

/// A matrix-vector product whose matrix is the same on every step and
/// large enough to be packed into row blocks on the tape (at least 8192
/// elements): the plan's bits without the step tape, at a size with
/// whole blocks and chunks (128) and one past each (97 rows and columns),
/// on ordinary data and on data whose products overflow.
fn packed_matrix_products_keep_the_plans_bits() {
    let p = parse_program(
        "(program push (input W (f64 N N)) (input X (f64 T N)) (input h0 (f64 N))
          (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences W)
            (fn (x h w) (tanh (add (dot w h) x)))))
          (output H))",
    )
    .unwrap();
    for n in [128i64, 97] {
        let d: Dims = [("T".to_string(), 20), ("N".to_string(), n)].into();
        let inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        let huge: Vec<Value> = inputs
            .iter()
            .map(|v| match v {
                Value::F64(a) => Value::F64(a.mapv(|x| x * 1e300)),
                other => other.clone(),
            })
            .collect();
        for data in [&inputs, &huge] {
            let refs: Vec<&Value> = data.iter().collect();
            on_tape_with_the_plans_bits(&p, &d, &refs, &format!("N = {n}"));
        }
    }
}

/// `p`'s one loop runs on the step tape, and every output has the bits
/// of the plan without the tape (`what` names the trial).
fn on_tape_with_the_plans_bits(p: &Program, d: &Dims, refs: &[&Value], what: &str) {
    let mut plain = Compiled::with_options(p, d, common::plan_without_tape()).unwrap();
    let want = plain.call(refs).unwrap().to_values();
    let mut f = Compiled::new(p, d).unwrap();
    let got = f.call(refs).unwrap().to_values();
    assert_eq!(f.loops_on_tape(), (1, 1), "{what}");
    assert_eq!(got.len(), want.len(), "{what}");
    for (k, (a, b)) in got.iter().zip(&want).enumerate() {
        assert!(same_bits(a, b), "{what}: output {k}");
    }
}

/// Runs `p` on `refs` on the plan without the tape, which must fail,
/// then compiled with `options`: the same error (`what` names the
/// trial). The compiled program, for the caller's checks of its loops.
fn fails_as_the_plan(
    p: &Program,
    d: &Dims,
    refs: &[&Value],
    options: PlanOptions,
    what: &str,
) -> Compiled {
    let mut plain = Compiled::with_options(p, d, common::plan_without_tape()).unwrap();
    let want = plain.call(refs).map(|_| ()).unwrap_err();
    let mut f = Compiled::with_options(p, d, options).unwrap();
    let got = f.call(refs).map(|_| ()).unwrap_err();
    assert_eq!(got, want, "{what}");
    f
}

/// Products whose only reader is an elementwise instruction (the GRU's
/// gates: the product plus a sequence's row plus a bias row; the LSTM's
/// batched product in a fused pair; a difference and a product with the
/// product on the right) compute that reader as the kernel stores each
/// element: the plan's bits without the step tape, with partial tiles
/// and panels, a `k` above one block (not merged), on ordinary data, on
/// data whose products overflow (inf, and NaN from inf - inf: the
/// readers then run apart), and with NaN and infinities in a sequence
/// (NaN of either sign on both executors: see [`same_bits_but_nans`]).
fn products_with_their_readers_keep_the_plans_bits() {
    let read =
        |rel: &str| parse_program(&std::fs::read_to_string(root().join(rel)).unwrap()).unwrap();
    let right = parse_program(
        "(program right (input X (f64 T M N)) (input h0 (f64 M N)) (input U (f64 N N)) (input b (f64 N))
          (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences U b)
            (fn (x h u c) (tanh (mul x (sub c (dot h u)))))))
          (output H))",
    )
    .unwrap();
    let dims = |pairs: &[(&str, i64)]| -> Dims {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    };
    let gru = read("benches/programs/gru.sexp");
    let lstm = read("benches/programs/lstm.sexp");
    let cases = [
        (&gru, dims(&[("T", 5), ("M", 13), ("N", 40), ("D", 24)])),
        (&gru, dims(&[("T", 3), ("M", 7), ("N", 260), ("D", 9)])),
        (&lstm, dims(&[("T", 5), ("M", 11), ("N", 24), ("D", 16)])),
        (&right, dims(&[("T", 4), ("M", 9), ("N", 50)])),
    ];
    for (p, d) in cases {
        let inputs = eqscan::exec::run::generate_inputs(p, &d, &Default::default()).unwrap();
        let scaled = |f: &dyn Fn(usize, f64) -> f64| -> Vec<Value> {
            inputs
                .iter()
                .enumerate()
                .map(|(k, v)| match v {
                    Value::F64(a) => Value::F64(a.mapv(|x| f(k, x))),
                    other => other.clone(),
                })
                .collect()
        };
        let huge = scaled(&|_, x| x * 1e300);
        // The first input (the sequence) with NaN and infinities mixed in.
        let specials = scaled(&|k, x| match (k, (x.to_bits() >> 20) % 11) {
            (0, 0) => f64::NAN,
            (0, 1) => f64::INFINITY,
            (0, 2) => -f64::NAN,
            _ => x,
        });
        for (what, data) in [
            ("ordinary", &inputs),
            ("overflowing", &huge),
            ("NaN", &specials),
        ] {
            let refs: Vec<&Value> = data.iter().collect();
            let want = plan_values(p, &d, &refs);
            let mut f = Compiled::new(p, &d).unwrap();
            let got = f.call(&refs).unwrap().to_values();
            assert_eq!(f.loops_on_tape(), (1, 1), "{} {d:?}", p.name);
            for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(
                    same_bits_but_nans(a, b),
                    "{} {d:?} {what}: output {k}",
                    p.name
                );
            }
        }
    }
}

/// A clipped recurrence (gradient-clipping style: h = clip(tanh(W h +
/// x), lo, hi) with a row of lower bounds) runs on the step tape, as a
/// maximum and a minimum with the clip kernel's bits, on data that hits
/// both bounds and NaN.
fn clip_runs_on_the_tape() {
    let p = parse_program(
        "(program clipped (input W (f64 N N)) (input X (f64 T N)) (input h0 (f64 N)) (input lo (f64 N))
          (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences W lo)
            (fn (x h w l) (clip (tanh (add (dot w h) x)) (mul 0.5 l) 0.3))))
          (output H))",
    )
    .unwrap();
    for n in [3i64, 40] {
        let d: Dims = [("T".to_string(), 30), ("N".to_string(), n)].into();
        let mut inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        if let Value::F64(x) = &mut inputs[1] {
            x[[3, 1]] = f64::NAN;
        }
        let refs: Vec<&Value> = inputs.iter().collect();
        on_tape_with_the_plans_bits(&p, &d, &refs, &format!("N = {n}"));
    }
}

/// Softmax and log_softmax along a leading axis (strided lanes) run on
/// the step tape with the plan's bits, on lanes holding NaN, -inf and
/// values past exp's range (a categorical HMM's backward step takes a
/// softmax over axis 0).
fn strided_softmax_runs_on_the_tape() {
    let p = parse_program(
        "(program strided (input L (f64 N N)) (input X (f64 T N)) (input a0 (f64 N))
          (let (A S) (scan (sequences X) (outputs_info (sitsot a0) (nitsot)) (non_sequences L)
            (fn (x a l)
              (let m (add (expand_dims a 1) l))
              (outputs (add x (sum (mul (softmax m 0) l) 0)) (log_softmax (mul 300.0 m) 0)))))
          (output A S))",
    )
    .unwrap();
    for n in [3i64, 17] {
        let d: Dims = [("T".to_string(), 20), ("N".to_string(), n)].into();
        let mut inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        if let Value::F64(l) = &mut inputs[0] {
            l[[1, 2]] = f64::NAN;
            l.index_axis_mut(ndarray::Axis(1), 0)
                .fill(f64::NEG_INFINITY);
        }
        let refs: Vec<&Value> = inputs.iter().collect();
        on_tape_with_the_plans_bits(&p, &d, &refs, &format!("N = {n}"));
    }
}

/// `index` and `take` by the loop's integers (a categorical HMM's
/// observations indexing the emission matrix; two indices; negative
/// indices; take by a row of indices along an inner axis) run on the
/// step tape with the plan's bits, and an index out of range stops the
/// loop with the plan's error, at any step.
fn indexing_by_step_values_runs_on_the_tape() {
    let p = parse_program(
        "(program hmm_idx (input LA (f64 S S)) (input LB (f64 S V)) (input a0 (f64 S))
          (input O (i64 T)) (input P (i64 T 2))
          (let (A B) (scan (sequences O P) (outputs_info (sitsot a0) (nitsot)) (non_sequences LA LB)
            (fn (o p a la lb)
              (outputs
                (add (logsumexp (add (expand_dims a 1) la) 0) (take lb o 1))
                (add (index (transpose lb) o)
                     (add (sum (take lb p 1) 1) (mul (index lb -1 o) 2.0)))))))
          (output A B))",
    )
    .unwrap();
    for (s, v, t) in [(3i64, 4i64, 9i64), (5, 40, 200)] {
        let d: Dims = [("T", t), ("S", s), ("V", v)]
            .into_iter()
            .map(|(k, n)| (k.to_string(), n))
            .collect();
        let mut inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        let (tu, vu) = (t as usize, v);
        // Every index in [-V, V): negative ones from the end.
        let ints = |k: i64| (k * 7919 + 13) % (2 * vu) - vu;
        inputs[3] = Value::I64(ArrayD::from_shape_fn(IxDyn(&[tu]), |i| ints(i[0] as i64)));
        inputs[4] = Value::I64(ArrayD::from_shape_fn(IxDyn(&[tu, 2]), |i| {
            ints((i[0] * 2 + i[1]) as i64 + 5)
        }));
        if let Value::F64(lb) = &mut inputs[1] {
            lb[[0, 1]] = f64::NAN;
            lb[[1, 0]] = f64::NEG_INFINITY;
        }
        let refs: Vec<&Value> = inputs.iter().collect();
        on_tape_with_the_plans_bits(&p, &d, &refs, &format!("S = {s}, V = {v}"));
        // Out of range on a late step, in each index: the plan's error.
        for (k, at) in [
            (3usize, vec![tu - 2]),
            (4, vec![tu - 1, 1]),
            (4, vec![5, 0]),
        ] {
            let mut bad = inputs.clone();
            match &mut bad[k] {
                Value::I64(a) => a[IxDyn(&at)] = if k == 3 { v } else { -v - 1 },
                _ => unreachable!(),
            }
            let refs: Vec<&Value> = bad.iter().collect();
            for options in [
                PlanOptions::default(),
                common::plan_native_from_first_step(),
            ] {
                let f = fails_as_the_plan(&p, &d, &refs, options, &format!("input {k} at {at:?}"));
                assert_eq!(f.loops_on_tape(), (1, 1));
            }
        }
    }
    // An index past 2^53 has no exact f64: the tape holds that sequence
    // as its bits and indexes by it through the plan's kernel, so the
    // loop stays on the tape and stops with the plan's error.
    let d: Dims = [("T", 4), ("S", 2), ("V", 3)]
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    let mut inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
    inputs[3] =
        Value::I64(ArrayD::from_shape_vec(IxDyn(&[4]), vec![0, 1, 2, (1 << 53) + 1]).unwrap());
    inputs[4] = Value::I64(ArrayD::zeros(IxDyn(&[4, 2])));
    let refs: Vec<&Value> = inputs.iter().collect();
    let f = fails_as_the_plan(&p, &d, &refs, PlanOptions::default(), "an index past 2^53");
    assert_eq!(f.loops_on_tape(), (1, 1));
}

/// `flip`, `dot` with a scalar, a sum of a column and a matrix
/// broadcast together (two periods at once) and `concat` along an inner
/// axis run on the step tape with the plan's bits, on data holding NaN
/// and infinities.
fn flips_scalar_dots_and_two_way_broadcasts_run_on_the_tape() {
    let p = parse_program(
        "(program twoway (input X (f64 T N)) (input c (f64 T)) (input L (f64 N N)) (input h0 (f64 K N))
          (let (H Y) (scan (sequences X c) (outputs_info (sitsot h0) (nitsot)) (non_sequences L)
            (fn (x ct h l)
              (let m (add (expand_dims h 2) l))
              (outputs (add (flip (max m 1) 1) (dot ct x))
                       (concat -1 (flip (flip h 0) 1) h (expand_dims (sum h 1) 1))))))
          (output H Y))",
    )
    .unwrap();
    for (k, n) in [(2i64, 3i64), (3, 20)] {
        let d: Dims = [("T", 12), ("K", k), ("N", n)]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b))
            .collect();
        let mut inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        if let Value::F64(x) = &mut inputs[0] {
            x[[2, 1]] = f64::NAN;
            x[[4, 0]] = f64::INFINITY;
        }
        if let Value::F64(l) = &mut inputs[2] {
            l[[0, 1]] = f64::NEG_INFINITY;
        }
        let refs: Vec<&Value> = inputs.iter().collect();
        on_tape_with_the_plans_bits(&p, &d, &refs, &format!("K = {k}, N = {n}"));
    }
}

/// Ops the tape does not specialize run on it through the plan's own
/// kernels (`Instr::Kernel`): `inc_index` at an index computed in the
/// body (an `i64` held as its bits), `inc_slice`, `inc_take` by a row of
/// the loop's integers, `cumsum`, an `f32` `tanh`, `argmax` cast back to
/// `f64`, `any` of a comparison. The plan's bits on ordinary values,
/// NaN and infinities, huge and tiny magnitudes; an index out of range on
/// a late step stops the loop with the plan's error.
fn unspecialized_ops_run_on_the_tape_through_the_plans_kernels() {
    let p = parse_program(
        "(program generic (input X (f64 T N)) (input O (i64 T)) (input g0 (f64 N)) (input M (f64 N N))
          (let (G C) (scan (sequences X O) (outputs_info (sitsot g0) (nitsot)) (non_sequences M)
            (fn (x o g m)
              (let j (sub o 1))
              (let a (inc_index g (sum x) j))
              (let b (inc_slice a (slice x 0 2 1) 1 3 1))
              (let r (inc_take m (expand_dims x 0) (expand_dims o 0)))
              (let f (cast f64 (tanh (cast f32 b))))
              (let k (cast f64 (argmax x)))
              (let y (cast f64 (any (gt x 1.0))))
              (outputs
                (mul 0.5 (cumsum b))
                (add (add (cumsum (sum r 0)) f) (add k y))))))
          (output G C))",
    )
    .unwrap();
    for (t, n) in [(9i64, 4i64), (40, 33)] {
        let d: Dims = [("T", t), ("N", n)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let mut inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        let (tu, nu) = (t as usize, n as usize);
        inputs[1] = Value::I64(ArrayD::from_shape_fn(IxDyn(&[tu]), |i| {
            ((i[0] * 7 + 3) % nu) as i64
        }));
        for special in [false, true] {
            let mut inputs = inputs.clone();
            if special {
                if let Value::F64(x) = &mut inputs[0] {
                    x[[2, 1]] = f64::NAN;
                    x[[3, 0]] = f64::INFINITY;
                    x[[4, 2]] = f64::NEG_INFINITY;
                    x[[5, 3]] = 1e308;
                    x[[6, 0]] = -1e308;
                    x[[7, 1]] = 5e-324;
                }
                if let Value::F64(m) = &mut inputs[3] {
                    m[[0, 1]] = f64::NAN;
                    m[[1, 0]] = f64::INFINITY;
                }
            }
            let refs: Vec<&Value> = inputs.iter().collect();
            let what = format!("T = {t}, N = {n}, special values: {special}");
            on_tape_with_the_plans_bits(&p, &d, &refs, &what);
            let mut native =
                Compiled::with_options(&p, &d, common::plan_native_from_first_step()).unwrap();
            let want = plan_values(&p, &d, &refs);
            let got = native.call(&refs).unwrap().to_values();
            for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(same_bits(a, b), "{what}, native: output {k}");
            }
        }
        // An index out of range on a late step: the plan's error, with the
        // loop on the tape.
        let mut bad = inputs.clone();
        if let Value::I64(o) = &mut bad[1] {
            o[[tu - 2]] = n;
        }
        let refs: Vec<&Value> = bad.iter().collect();
        let what = format!("T = {t}, N = {n}: out of range");
        let f = fails_as_the_plan(&p, &d, &refs, PlanOptions::default(), &what);
        assert_eq!(f.loops_on_tape(), (1, 1));
    }
}

/// Loop outputs of every dtype run on the tape, its rows typed (a
/// shadow in `f64` of each buffer that is not `f64`, written back row by
/// row): an `argmax` per step (`i64`), comparisons (`bool`), an `i32`
/// counter and an `i64` one that wrap past their largest value, an `f32`
/// state computed in `f32`, a row of the loop's integers returned as it
/// is, an `i64` state of magnitude past 2^53 (held as its bits). The
/// plan's bits on ordinary values, and with NaN, infinities, huge and
/// tiny magnitudes in the data.
fn typed_outputs_run_on_the_tape() {
    let p = parse_program(
        "(program typed (input X (f64 T N)) (input O (i64 T 2)) (input c0 (i32)) (input n0 (i64))
          (input s0 (f32 N))
          (let (A B E C K S P) (scan (sequences X O)
            (outputs_info (nitsot) (nitsot) (nitsot) (sitsot (add c0 2147483640)) (sitsot n0)
              (sitsot s0) (nitsot))
            (fn (x o c n s)
              (outputs
                (argmax x)
                (gt x 0.5)
                (lt (sum x) 0.0)
                (add c 3)
                (add (mul n 3) (index o 0))
                (add (mul s (cast f32 x)) (cast f32 1.5))
                o))))
          (output A B E C K S P))",
    )
    .unwrap();
    for (t, n) in [(7i64, 3i64), (30, 17)] {
        let d: Dims = [("T", t), ("N", n)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let mut inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        let tu = t as usize;
        inputs[1] = Value::I64(ArrayD::from_shape_fn(IxDyn(&[tu, 2]), |i| {
            (i[0] as i64 * 7 - 11) * (1 << 20) + i[1] as i64
        }));
        inputs[2] = Value::I32(ndarray::arr0(5).into_dyn());
        inputs[3] = Value::I64(ndarray::arr0((1i64 << 61) + 12345).into_dyn());
        for special in [false, true] {
            let mut inputs = inputs.clone();
            if special {
                if let Value::F64(x) = &mut inputs[0] {
                    x[[1, 0]] = f64::NAN;
                    x[[2, 1]] = f64::INFINITY;
                    x[[3, 2]] = f64::NEG_INFINITY;
                    x[[4, 0]] = 1e308;
                    x[[5, 1]] = -5e-324;
                    x[[6, 2]] = 1e-300;
                }
            }
            let refs: Vec<&Value> = inputs.iter().collect();
            let what = format!("T = {t}, N = {n}, special values: {special}");
            on_tape_with_the_plans_bits(&p, &d, &refs, &what);
            let want = plan_values(&p, &d, &refs);
            // The counters wrapped (the plan's wrapping arithmetic), and
            // the i64 state passed 2^53.
            match (&want[3], &want[4]) {
                (Value::I32(c), Value::I64(k)) => {
                    assert!(c.iter().any(|&c| c < 0), "{what}: the i32 counter wraps");
                    assert!(k.iter().any(|&k| k.unsigned_abs() > 1 << 53), "{what}");
                    assert!(
                        k.iter().zip(k.iter().skip(1)).any(|(a, b)| b < a),
                        "{what}: the i64 state wraps"
                    );
                }
                _ => panic!("{what}: dtypes"),
            }
            let mut native =
                Compiled::with_options(&p, &d, common::plan_native_from_first_step()).unwrap();
            let got = native.call(&refs).unwrap().to_values();
            for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(same_bits(a, b), "{what}, native: output {k}");
            }
        }
    }
}

/// Random keys in the loop's data: a key state (split each step, held as
/// its 64 bits in an `i64` buffer) and a key non-sequence past 2^53
/// (held as its bits): the plan's draws and keys.
fn keys_run_on_the_tape() {
    let p = parse_program(
        "(program keys (input x (f64 N))
          (let kk (index (split (key 9) 2) 1))
          (let (S K) (scan
            (outputs_info (sitsot x) (sitsot (key 5)))
            (n_steps T)
            (non_sequences kk)
            (fn (s k k2)
              (let two (split k 2))
              (outputs
                (add (mul s (uniform (index two 1) (f64 N))) (normal (fold_in k2 3) (f64 N)))
                (index two 0)))))
          (output S K))",
    )
    .unwrap();
    for (t, n) in [(2i64, 3i64), (25, 40)] {
        let d: Dims = [("T", t), ("N", n)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        let refs: Vec<&Value> = inputs.iter().collect();
        on_tape_with_the_plans_bits(&p, &d, &refs, &format!("T = {t}, N = {n}"));
    }
}

/// `take` by a literal index (gate k of a packed (M, 4, N)
/// pre-activation, along axis 1; a row along axis 0) runs on the tape as
/// a view of its operand, at sizes whose whole operand the generic kernel
/// call would not copy: the plan's bits, with NaN and infinities in the
/// gates.
fn take_by_a_literal_index_runs_on_the_tape() {
    let p = parse_program(
        "(program gates (input P (f64 T M 4 N)) (input h0 (f64 M N))
          (let H (scan (sequences P) (outputs_info (sitsot h0))
            (fn (p h)
              (let f (sigmoid (take p 1 1)))
              (let g (tanh (take p 3 -2)))
              (let r (take (take p 2 1) 0 0))
              (add (add (mul f h) (mul (sub 1.0 f) g)) r))))
          (output H))",
    )
    .unwrap();
    for (t, m, n) in [(4i64, 2i64, 3i64), (6, 64, 64)] {
        let d: Dims = [("T", t), ("M", m), ("N", n)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        for special in [false, true] {
            let mut inputs = inputs.clone();
            if special {
                if let Value::F64(x) = &mut inputs[0] {
                    x[[1, 0, 1, 0]] = f64::NAN;
                    x[[2, 1, 3, 2]] = f64::INFINITY;
                    x[[3, 1, 1, 1]] = f64::NEG_INFINITY;
                    x[[2, 0, 2, 1]] = 1e308;
                }
            }
            let refs: Vec<&Value> = inputs.iter().collect();
            let what = format!("T = {t}, M = {m}, N = {n}, special values: {special}");
            on_tape_with_the_plans_bits(&p, &d, &refs, &what);
        }
    }
}

/// Rows without elements (width 0): a map returning its row, one
/// computing on it, and a state of width 0 beside a row with elements,
/// run on the tape (nothing to read or compute for the empty ones) with
/// the plan's results.
fn rows_without_elements_run_on_the_tape() {
    let p = parse_program(
        "(program zero_width (input X (f64 T 0)) (input Y (f64 T 3)) (input z0 (f64 0))
          (let A (scan (sequences X) (fn (x) x)))
          (let B (scan (sequences X) (fn (x) (mul x 2.0))))
          (let (Z W) (scan (sequences X Y) (outputs_info (sitsot z0) (nitsot))
            (fn (x y z) (outputs (add z x) (add (sum x) (mul y 2.0))))))
          (output A B Z W))",
    )
    .unwrap();
    let d: Dims = [("T", 5)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
    let refs: Vec<&Value> = inputs.iter().collect();
    let want = plan_values(&p, &d, &refs);
    let mut f = Compiled::new(&p, &d).unwrap();
    let got = f.call(&refs).unwrap().to_values();
    // A and B, whose sequences and outputs all have no elements, stop
    // after their first step (`LoopFrame::later_steps_are_empty`: the
    // later steps compute nothing); the third loop runs on the tape.
    assert_eq!(f.loops_on_tape(), (1, 3));
    assert_eq!(got.len(), want.len());
    for (k, (a, b)) in got.iter().zip(&want).enumerate() {
        assert!(same_bits(a, b), "output {k}");
    }
}

/// A nested loop runs on the outer loop's tape (an instruction calling
/// the plan's loop runner, the inner loop on its own tape): its final
/// state, its `i64` output and its outputs' sums, with NaN and infinities
/// in the data, both executors' bits; an index out of range inside the
/// inner loop on a late outer step stops the program with the plan's
/// error.
fn nested_loops_run_on_the_outer_tape() {
    let p = parse_program(
        "(program nested (input X (f64 T S N)) (input O (i64 T S)) (input W (f64 N N)) (input h0 (f64 N))
          (let (H C K) (scan (sequences X O) (outputs_info (sitsot h0) (nitsot) (nitsot)) (non_sequences W)
            (fn (x o h w)
              (let (G J L) (scan (sequences x o) (outputs_info (sitsot h) (nitsot) (nitsot))
                (non_sequences w)
                (fn (xi oi g ww)
                  (outputs (tanh (add (dot ww g) xi)) (add (index g oi) 0.5) (mul oi 3)))))
              (outputs (index G -1) (sum J) (sum L)))))
          (output H C K))",
    )
    .unwrap();
    for (t, s, n) in [(3i64, 2i64, 3i64), (12, 9, 20)] {
        let d: Dims = [("T", t), ("S", s), ("N", n)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let mut inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        let (tu, su, nu) = (t as usize, s as usize, n as usize);
        inputs[1] = Value::I64(ArrayD::from_shape_fn(IxDyn(&[tu, su]), |i| {
            ((i[0] * 5 + i[1] * 3) % nu) as i64
        }));
        for special in [false, true] {
            let mut inputs = inputs.clone();
            if special {
                if let Value::F64(x) = &mut inputs[0] {
                    x[[1, 0, 0]] = f64::NAN;
                    x[[1, 1, 1]] = f64::INFINITY;
                    x[[2, 0, 2]] = f64::NEG_INFINITY;
                    x[[2, 1, 0]] = 1e308;
                }
            }
            let refs: Vec<&Value> = inputs.iter().collect();
            let what = format!("T = {t}, S = {s}, N = {n}, special values: {special}");
            let want = plan_values(&p, &d, &refs);
            for options in [
                PlanOptions::default(),
                common::plan_native_from_first_step(),
            ] {
                let mut f = Compiled::with_options(&p, &d, options).unwrap();
                let got = f.call(&refs).unwrap().to_values();
                assert_eq!(f.loops_on_tape(), (2, 2), "{what}");
                assert_eq!(got.len(), want.len(), "{what}");
                for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                    assert!(same_bits(a, b), "{what}: output {k}");
                }
            }
        }
        let mut bad = inputs.clone();
        if let Value::I64(o) = &mut bad[1] {
            o[[tu - 1, su - 1]] = n;
        }
        let refs: Vec<&Value> = bad.iter().collect();
        let what = format!("T = {t}: out of range");
        let f = fails_as_the_plan(&p, &d, &refs, PlanOptions::default(), &what);
        assert_eq!(f.loops_on_tape().0, 2, "{what}");
    }
}

/// A while loop nested in a loop: its outputs, whose lengths only its
/// run tells, are held outside the arena for the kernel calls and the
/// nested for loop that read them, and the outer loop runs on the tape
/// with the plan's bits. Inner loops that stop at their first step, at
/// their second, at their limit, and run no step at all (`n_steps` 0);
/// rows of NaN, ±inf, 1e308 (whose double overflows: the condition holds
/// at once), subnormals and -0; in both orders (the plan runs the outer
/// loop's first step, the tape the rest), with and without native code.
/// An empty inner result indexed at -1 fails with the plan's error.
fn nested_while_loops_run_on_the_outer_tape() {
    let body = |tail: &str| {
        format!(
            "(program nested_while (input X (f64 T N)) (input L (i64 T)) (input c (f64))
              (let (S P Q) (scan (sequences X L) (outputs_info (nitsot) (nitsot) (nitsot)) (non_sequences c)
                (fn (x l cc)
                  (let Z (scan (outputs_info (sitsot x)) (n_steps l) (non_sequences cc)
                    (fn (z k)
                      (let z1 (add (mul z 2.0) k))
                      (outputs z1 (until (gt (sum z1) 100.0))))))
                  (let A (scan (sequences Z) (outputs_info (sitsot x))
                    (fn (r a) (outputs (add (mul a 0.5) r)))))
                  (outputs {tail}))))
              (output S P Q))"
        )
    };
    // The last output counts A's elements through a sum of ones.
    let p = parse_program(&body(
        "(sum Z 0) (sum (mul Z (sub Z 1.0))) (add (sum A 0) (sum (add (mul A 0.0) 1.0)))",
    ))
    .unwrap();
    // Per outer step: its row and the inner loop's bound.
    let rows: [([f64; 2], i64); 9] = [
        ([60.0, 60.0], 6),                       // stops at its first step
        ([20.0, 20.0], 6),                       // at its second
        ([0.0, -0.0], 5),                        // runs to its limit
        ([1.0, 1.0], 0),                         // runs no step
        ([f64::NAN, 1.0], 4),                    // NaN: never holds, to the limit
        ([f64::INFINITY, f64::NEG_INFINITY], 3), // inf - inf: NaN sums
        ([1e308, 1e308], 4),                     // 2e308 overflows: holds at once
        ([5e-324, -5e-324], 2),                  // subnormals, to the limit
        ([f64::INFINITY, 1.0], 3),               // +inf: holds at once
    ];
    let d: Dims = [("T".to_string(), rows.len() as i64), ("N".to_string(), 2)].into();
    for reversed in [false, true] {
        let mut order: Vec<_> = rows.to_vec();
        if reversed {
            order.reverse();
        }
        let x: Vec<f64> = order.iter().flat_map(|(r, _)| *r).collect();
        let l: Vec<i64> = order.iter().map(|(_, l)| *l).collect();
        let inputs = [
            Value::F64(ArrayD::from_shape_vec(IxDyn(&[order.len(), 2]), x).unwrap()),
            Value::I64(ArrayD::from_shape_vec(IxDyn(&[order.len()]), l).unwrap()),
            Value::F64(ArrayD::from_elem(IxDyn(&[]), 0.25)),
        ];
        let refs: Vec<&Value> = inputs.iter().collect();
        let what = format!("reversed: {reversed}");
        let want = plan_values(&p, &d, &refs);
        for options in [
            PlanOptions::default(),
            common::plan_native_from_first_step(),
        ] {
            let mut f = Compiled::with_options(&p, &d, options).unwrap();
            for call in 0..2 {
                let got = f.call(&refs).unwrap().to_values();
                let off: Vec<String> = f
                    .loops_off_tape()
                    .iter()
                    .map(|(at, why)| format!("{at}: {why}"))
                    .collect();
                // The outer loop is on its tape; an inner loop whose last
                // run had fewer than two steps is not.
                assert!(
                    off.iter().all(|o| o.ends_with("fewer than two steps")),
                    "{what}, call {call}: {off:?}"
                );
                assert!(f.loops_on_tape().0 >= 1, "{what}, call {call}");
                assert_eq!(got.len(), want.len(), "{what}");
                for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                    assert!(same_bits(a, b), "{what}, call {call}: output {k}");
                }
            }
        }
    }
    // The last row of an inner loop without steps: the plan's error, on
    // the tape (the empty loop is the outer loop's third step).
    let p = parse_program(&body("(index Z -1) (sum Z) (sum A)")).unwrap();
    let d: Dims = [("T".to_string(), 4), ("N".to_string(), 2)].into();
    let inputs = [
        Value::F64(ArrayD::from_shape_fn(IxDyn(&[4, 2]), |i| i[0] as f64 + 0.5)),
        Value::I64(ArrayD::from_shape_vec(IxDyn(&[4]), vec![3, 2, 0, 1]).unwrap()),
        Value::F64(ArrayD::from_elem(IxDyn(&[]), 0.25)),
    ];
    let refs: Vec<&Value> = inputs.iter().collect();
    let what = "an empty inner result indexed";
    let f = fails_as_the_plan(&p, &d, &refs, PlanOptions::default(), what);
    assert!(
        f.loops_off_tape()
            .iter()
            .all(|(_, why)| why.to_string() == "fewer than two steps"),
        "{:?}",
        f.loops_off_tape()
    );
}

/// Sequences whose rows are each row-major but not the whole (a reversed
/// trace, every other row, a matrix's column: rows one element, `N`
/// apart), in a loop run forwards and one run backwards, are read in
/// place: the plan's bits without the tape, with and without native
/// code, over two calls (the second reuses the tape and its layouts), on
/// ordinary values and on extreme ones (1e308, whose products overflow,
/// subnormals, NaN, infinities); and the tape holds no copy of them (its
/// peak is the plan's, give or take the tape's own arena).
fn strided_and_reversed_sequences_are_read_in_place() {
    let p = parse_program(
        "(program strided_seqs (input X (f64 T N)) (input Z (f64 S N)) (input h0 (f64 N))
          (let R (slice X none none -1))
          (let E (slice Z 0 none 2))
          (let C (index (transpose X 1 0) 1))
          (let (H Y) (scan (sequences R E C) (outputs_info (sitsot h0) (nitsot))
            (fn (r e c h)
              (let h1 (tanh (add (mul h 0.5) (mul r c))))
              (outputs h1 (add e (mul (sum h1) c))))))
          (let (G Q) (scan (sequences E R) (outputs_info (sitsot h0) (nitsot)) (go_backwards)
            (fn (e r g)
              (let g1 (add (mul g 0.25) (mul e r)))
              (outputs g1 (sub r (sum g1))))))
          (output H Y G Q))",
    )
    .unwrap();
    let (t, n) = (40usize, 8usize);
    let d: Dims = [
        ("T".to_string(), t as i64),
        ("S".to_string(), 2 * t as i64),
        ("N".to_string(), n as i64),
    ]
    .into();
    let ordinary = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
    let extreme: Vec<Value> = ordinary
        .iter()
        .map(|v| match v {
            Value::F64(a) => {
                let specials = [1e308, -1e308, 5e-324, f64::NAN, f64::INFINITY, -0.0];
                Value::F64(ndarray::ArrayD::from_shape_fn(a.raw_dim(), |i| {
                    let k: usize = ndarray::Dimension::slice(&i).iter().sum();
                    if k.is_multiple_of(5) {
                        specials[(k / 5) % specials.len()]
                    } else {
                        a[&i]
                    }
                }))
            }
            v => v.clone(),
        })
        .collect();
    for (what, data) in [("ordinary", &ordinary), ("extreme", &extreme)] {
        let refs: Vec<&Value> = data.iter().collect();
        let mut plain = Compiled::with_options(&p, &d, common::plan_without_tape()).unwrap();
        let want = plain.call(&refs).unwrap().to_values();
        for options in [
            PlanOptions::default(),
            common::plan_native_from_first_step(),
        ] {
            let mut f = Compiled::with_options(&p, &d, options).unwrap();
            for call in 0..2 {
                let got = f.call(&refs).unwrap().to_values();
                assert_eq!(f.loops_on_tape(), (2, 2), "{what}, call {call}");
                assert_eq!(got.len(), want.len(), "{what}");
                for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                    assert!(same_bits(a, b), "{what}, call {call}: output {k}");
                }
            }
            // A copy of the three sequences would be 2·T·N + T elements.
            let copies = (2 * t * n + t) * std::mem::size_of::<f64>();
            assert!(
                f.peak_bytes() < plain.peak_bytes() + copies / 2,
                "{what}: peak {} on the tape, {} on the plan",
                f.peak_bytes(),
                plain.peak_bytes()
            );
        }
    }
}

/// A loop body that uses op `k` on the step's rows `x`, `y` (f64 3), `m`
/// (f64 3 3) and `c` (bool 3), with its result as the step's output (of
/// a shape every step shares); `None` for the list ops (lists are not
/// loop values). An op not listed runs its example
/// (`common::op_examples::example`, exhaustive over `OpKind`).
fn op_in_a_loop(k: OpKind) -> Option<String> {
    Some(match k {
        OpKind::Fill => "(add x (fill (f64 3) 1.5))".into(),
        OpKind::Zeros => "(add x (zeros (f64 3)))".into(),
        OpKind::Ones => "(add m (ones (i64 3 3)))".into(),
        OpKind::Arange => "(mul x (arange 3))".into(),
        OpKind::Tensor => "(mul (slice x 0 2 1) (tensor (f64 2) 1.0 2.5))".into(),
        OpKind::Cast => "(cast i64 (mul x 1e3))".into(),
        OpKind::ZerosLike => "(add (zeros_like m) x)".into(),
        // Its result's length is the number of true elements of `c`: held
        // outside the arena, then summed.
        OpKind::Compress => "(sum (compress c m) 0)".into(),
        OpKind::Uncompress => "(uncompress c (compress c m))".into(),
        OpKind::Eye => "(add m (eye (f64 3 3)))".into(),
        OpKind::FoldIn => "(fold_in (key 7) (cast i64 (sum c)))".into(),
        OpKind::Uniform => "(add x (uniform (fold_in (key 7) (cast i64 (sum c))) (f64 3)))".into(),
        OpKind::Normal => "(add x (normal (key 7) (f64 3)))".into(),
        OpKind::Bernoulli => "(bernoulli (key 7) (sigmoid x))".into(),
        // Well conditioned: m m^T + 3 I.
        OpKind::Solve => {
            "(solve (add (matmul m (transpose m 1 0)) (mul 3.0 (eye (f64 3 3)))) x)".into()
        }
        OpKind::SolveTriangular => {
            "(solve_triangular (add m (mul 3.0 (eye (f64 3 3)))) m true)".into()
        }
        OpKind::Cholesky => {
            "(cholesky (add (matmul m (transpose m 1 0)) (mul 3.0 (eye (f64 3 3)))))".into()
        }
        OpKind::Inv => "(inv (add m (mul 3.0 (eye (f64 3 3)))))".into(),
        OpKind::Slogdet => "(let (sign logdet) (slogdet m)) (mul sign logdet)".into(),
        OpKind::List(_) => return None,
        _ => common::op_examples::example(k),
    })
}

/// Issue 40: "an instruction the tape does not specialize calls the
/// reference kernel on arena memory, so no loop falls back to the plan
/// for lack of one op". Every op of the table in a loop body (see
/// [`op_in_a_loop`]) runs on the tape, with the plan's bits (or its
/// error), over rows with NaN, ±inf, 1e308 and subnormals; and every loop
/// off the tape (none here) has a reason in `run --json`.
fn every_op_runs_on_the_tape() {
    let d: Dims = [("T".to_string(), 6)].into();
    let (mut bodies, mut failed) = (0, 0);
    for k in OpKind::all() {
        let Some(e) = op_in_a_loop(k) else { continue };
        bodies += 1;
        let text = format!(
            "(program op (input X (f64 T 3)) (input Y (f64 T 3)) (input M (f64 T 3 3)) (input C (bool T 3))
              (let R (scan (sequences X Y M C) (outputs_info (nitsot)) (fn (x y m c) {e})))
              (output R))"
        );
        let name = k.name();
        let p = parse_program(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        let mut inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        for special in [false, true] {
            if special {
                if let Value::F64(x) = &mut inputs[0] {
                    x[[2, 1]] = f64::NAN;
                    x[[3, 0]] = f64::INFINITY;
                    x[[3, 2]] = f64::NEG_INFINITY;
                    x[[4, 1]] = 1e308;
                    x[[5, 0]] = 5e-324;
                }
                if let Value::F64(m) = &mut inputs[2] {
                    m[[4, 0, 1]] = 1e308;
                    m[[5, 2, 2]] = -5e-324;
                }
            }
            let refs: Vec<&Value> = inputs.iter().collect();
            let what = format!("{name}, special values: {special}");
            let mut plain = Compiled::with_options(&p, &d, common::plan_without_tape()).unwrap();
            let want = plain.call(&refs).map(|o| o.to_values());
            let mut f = Compiled::new(&p, &d).unwrap();
            let got = f.call(&refs).map(|o| o.to_values());
            match (&got, &want) {
                (Ok(got), Ok(want)) => {
                    assert_eq!(got.len(), want.len(), "{what}");
                    for (j, (a, b)) in got.iter().zip(want).enumerate() {
                        assert!(same_bits(a, b), "{what}: output {j}");
                    }
                }
                (got, want) => assert_eq!(
                    got.as_ref().map(|_| ()),
                    want.as_ref().map(|_| ()),
                    "{what}"
                ),
            }
            let (on, all) = f.loops_on_tape();
            let off: Vec<String> = f
                .loops_off_tape()
                .iter()
                .map(|(at, why)| format!("{at}: {why}"))
                .collect();
            assert_eq!(
                all - on,
                off.len(),
                "{what}: a loop off the tape without a reason"
            );
            // The outer loop ran on its tape (a nested map of one op
            // runs on its own, or is too short to).
            assert!(
                off.iter().all(|o| o.ends_with("fewer than two steps")),
                "{what}: {off:?}"
            );
            assert!(on >= 1 || want.is_err(), "{what}");
            if let Err(e) = &want {
                eprintln!("{what}: the plan's error, and the tape's: {e}");
                failed += 1;
            }
        }
    }
    // Every body runs (an error would be the plan's and the tape's alike,
    // but would leave the steps after it untried).
    assert_eq!(failed, 0, "bodies that failed");
    // Rows of 70 and matrices of 4,900 elements: a kernel call reads its
    // `f64` operands in place (the matrix) and copies the others (the
    // mask's 70 elements): on the tape, with the plan's bits; but a result
    // of 4,900 elements would be copied out of the call each step (more
    // than MAX_KERNEL_COPY), and its loop stays on the plan, saying so.
    let big = |body: &str| {
        let text = format!(
            "(program big (input M (f64 T 70 70)) (input C (bool T 70))
              (let R (scan (sequences M C) (outputs_info (nitsot)) (fn (m c) {body})))
              (output R))"
        );
        let p = parse_program(&text).unwrap();
        let inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        (p, inputs)
    };
    let (p, inputs) = big("(cumsum (sum (compress c m) 0))");
    let refs: Vec<&Value> = inputs.iter().collect();
    on_tape_with_the_plans_bits(&p, &d, &refs, "compress of a 70 x 70 matrix");
    let (p, inputs) = big("(inc_slice m (slice m 0 1 1) 1 2 1)");
    let refs: Vec<&Value> = inputs.iter().collect();
    let mut f = Compiled::new(&p, &d).unwrap();
    f.call(&refs).unwrap();
    let off: Vec<String> = f
        .loops_off_tape()
        .iter()
        .map(|(_, w)| w.to_string())
        .collect();
    assert_eq!(
        off,
        ["op inc_slice on more elements than a kernel call copies"]
    );
    assert!(bodies >= 60, "{bodies} ops");
}

/// Why a loop may still run its steps on the plan, by the reason `run
/// --json` gives (`loops.off_tape[].reason`), each with why it is
/// allowed. A reason not listed fails [`every_loop_runs_on_the_tape`]:
/// a new way to fall off the tape is a choice to make here, not a
/// silent slowdown.
const OFF_TAPE_ALLOWED: &[(&str, &str)] = &[
    // The plan runs every loop's first step (it sizes the buffers and
    // checks each shape); a loop of zero or one step has nothing left.
    ("fewer than two steps", "no step after the first to run"),
    // A for loop whose sequences, inits and outputs have no elements: its
    // steps after the first compute nothing and are not run
    // (`LoopFrame::later_steps_are_empty`).
    (
        "no elements after the first step",
        "no step after the first to run",
    ),
    // A nested loop whose operands and outputs pass MAX_KERNEL_COPY
    // elements: the tape would hold copies of them beside the inner
    // loop's own storage every step, raising the call's peak memory (the
    // memory-budget checkpointing's segments, tests/memory_budget.rs).
    (
        "a nested loop too large to copy",
        "its copies would raise the peak memory",
    ),
];

/// Every program of `tests/cases/{scan,grad,scan_rules,ops}`,
/// `examples`, `benches/programs` and `benches/programs/held` (and the
/// optimized forms of the scan_rules cases, the benchmarks and the held
/// programs), with inputs as `run --gen`
/// makes them: each loop that runs does so on the step tape, or for a
/// reason allowed above: `on_tape == run` but for those. (The tape took,
/// in turn: `index` and `take` by the loop's integers, `flip`, `dot` with
/// a scalar, operands broadcast with two periods at once, `concat` along
/// any axis; then every op through the plan's kernels (`Instr::Kernel`):
/// `inc_index`, `inc_take`, `inc_slice`, `cumsum`, integer arithmetic and
/// layout, `fold_in`; then outputs of every dtype (typed rows), random
/// keys and integers past 2^53 (held as their bits), `take` by a literal
/// index, rows without elements; then nested loops whose outputs' shapes
/// the sizes fix, run by the plan's loop runner; then nested while loops,
/// their outputs held outside the arena.) Prints the tally of reasons
/// (`--nocapture`).
fn every_loop_runs_on_the_tape() {
    let mut programs: Vec<(String, String, String)> = Vec::new();
    for dir in [
        "tests/cases/scan",
        "tests/cases/grad",
        "tests/cases/scan_rules",
        "tests/cases/ops",
        "examples",
        "benches/programs",
        "benches/programs/held",
    ] {
        for path in case_files(dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            programs.push((rel(&path), text.clone(), text.clone()));
            let snap = if dir == "tests/cases/scan_rules" && header(&text, "known_bug").is_none() {
                Some(format!("scan_rules__{}", stem(&path)))
            } else if dir == "benches/programs" {
                Some(format!("optimized__bench__{}", stem(&path)))
            } else if dir == "benches/programs/held" {
                Some(format!("optimized__held__{}", stem(&path)))
            } else {
                None
            };
            if let Some(snap) = snap {
                programs.push((
                    format!("{} (optimized)", rel(&path)),
                    snapshot_of(&snap),
                    text,
                ));
            }
        }
    }
    let (mut run, mut on_tape, mut failed) = (0usize, 0usize, 0usize);
    let mut tally: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (name, text, header_text) in &programs {
        let p = parse_program(text)
            .map(|p| eqscan::grad::expand(&p).unwrap_or_else(|e| panic!("{name}: {e}")))
            .unwrap_or_else(|e| panic!("{}", e.located(name)));
        let dims = dims_of(header_text);
        let scales: std::collections::BTreeMap<String, f64> = header_pairs(header_text, "scale");
        let inputs = eqscan::exec::run::generate_inputs(&p, &dims, &scales)
            .unwrap_or_else(|e| panic!("{}", e.located(name)));
        let refs: Vec<&Value> = inputs.iter().collect();
        let mut f = Compiled::new(&p, &dims).unwrap_or_else(|e| panic!("{}", e.located(name)));
        // A program whose generated inputs it refuses (an index out of
        // range) runs its loops up to the error: still counted.
        failed += usize::from(f.call(&refs).is_err());
        let (on, all) = f.loops_on_tape();
        let off = f.loops_off_tape();
        assert_eq!(
            all - on,
            off.len(),
            "{name}: every loop off the tape has a reason"
        );
        run += all;
        on_tape += on;
        for (span, why) in off {
            tally
                .entry(why.to_string())
                .or_default()
                .push(format!("{name}:{span}"));
        }
    }
    eprintln!(
        "step tape coverage: {on_tape} of {run} loops on the tape over {} programs ({failed} stopped by an error of their generated inputs)",
        programs.len()
    );
    for (why, at) in &tally {
        eprintln!("  {:4}  {why}  (e.g. {})", at.len(), at[0]);
    }
    let unexpected: Vec<String> = tally
        .iter()
        .filter(|(why, _)| !OFF_TAPE_ALLOWED.iter().any(|(a, _)| a == why))
        .map(|(why, at)| format!("{why}: {}", at.join(", ")))
        .collect();
    assert!(
        unexpected.is_empty(),
        "loops off the step tape for a reason not allowed:\n{}",
        unexpected.join("\n")
    );
}

fn main() {
    if std::env::var_os(PROBE_VAR).is_some() {
        print!("{}", kernel_probe());
        return;
    }
    let cases = cases();
    assert!(cases.len() > 300, "only {} programs found", cases.len());
    let mut trials = plain_trials![
        inplace_is_planned,
        increments_update_only_dead_operands,
        fused_sum_holds_a_block_not_a_copy,
        native_code_runs_long_loops,
        native_code_runs_whole_while_loops,
        packed_matrix_products_keep_the_plans_bits,
        products_with_their_readers_keep_the_plans_bits,
        the_recurrent_cells_steps_keep_their_fusions,
        both_product_kernels_give_the_same_bits,
        the_packed_products_keep_their_bits_at_each_width,
        clip_runs_on_the_tape,
        strided_softmax_runs_on_the_tape,
        indexing_by_step_values_runs_on_the_tape,
        flips_scalar_dots_and_two_way_broadcasts_run_on_the_tape,
        unspecialized_ops_run_on_the_tape_through_the_plans_kernels,
        typed_outputs_run_on_the_tape,
        keys_run_on_the_tape,
        take_by_a_literal_index_runs_on_the_tape,
        rows_without_elements_run_on_the_tape,
        nested_loops_run_on_the_outer_tape,
        nested_while_loops_run_on_the_outer_tape,
        strided_and_reversed_sequences_are_read_in_place,
        every_op_runs_on_the_tape,
        where_with_broadcast_masks_runs_on_the_tape_with_the_plans_bits,
        transposes_in_a_step_run_on_the_tape_with_the_plans_bits,
        every_loop_runs_on_the_tape
    ];
    for (trial, case) in cases {
        trials.push(Trial::test(trial, move || {
            run_case(&case).map_err(|e| format!("{}: {e}", case.name).into())
        }));
    }
    harness::run(trials);
}

/// The GRU and the LSTM at their medium widths, optimized as `run` does
/// (`x·W` of every step pushed out of the loop as one product, read by
/// the step's gate products), with their inputs: what the census test and
/// the kernel probe run.
fn recurrent_cells() -> Vec<(Program, Dims, Vec<Value>)> {
    let read =
        |rel: &str| parse_program(&std::fs::read_to_string(root().join(rel)).unwrap()).unwrap();
    let dims = |pairs: &[(&str, i64)]| -> Dims {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    };
    let rewrites = eqscan::optimize::default_rewrites().unwrap();
    [
        (
            read("benches/programs/gru.sexp"),
            dims(&[("T", 50), ("M", 80), ("N", 128), ("D", 128)]),
        ),
        (
            read("benches/programs/lstm.sexp"),
            dims(&[("T", 100), ("M", 64), ("N", 64), ("D", 64)]),
        ),
    ]
    .into_iter()
    .map(|(p, d)| {
        let model = eqscan::extract::CostModel::with_dims(d.clone());
        let limits = eqscan::egraph::runner::Limits::default();
        let p = eqscan::optimize::optimize(&p, &rewrites, &limits, &model)
            .unwrap()
            .program;
        let inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        (p, d, inputs)
    })
    .collect()
}

/// The census each cell's step must have under `kernel`. With the packed
/// kernel each gate product computes its readers (`x·W` of the step and
/// the bias row) as it stores each element; with matrixmultiply alone
/// (`portable`) those readers are passes of their own. Either way the
/// passes left pair up, the LSTM's masked updates (its mask one value per
/// row) included.
fn expected_census(name: &str, kernel: ProductKernel) -> eqscan::exec::plan::StepCensus {
    use eqscan::exec::plan::StepCensus;
    let census = |products, product_stages, passes, fused_pairs| StepCensus {
        products,
        product_stages,
        passes,
        fused_pairs,
    };
    match (name, kernel) {
        // z, r, candidate: three products with two stages each; sigmoid
        // twice, r·h, tanh, and the update as two pairs.
        ("gru", ProductKernel::Packed) => census(3, 6, 6, 2),
        // The same six passes, and each product's two readers as one
        // fused pair more per product.
        ("gru", ProductKernel::Portable) => census(3, 0, 9, 5),
        // The four gates as one product with two stages; three sigmoids
        // and two tanh; f·c, i·g + f·c, o·tanh(c) and the masked updates
        // m·h~ + (1 − m)·h and m·c~ + (1 − m)·c: ten binary ops in six
        // passes, four of them pairs.
        ("lstm", ProductKernel::Packed) => census(1, 2, 11, 4),
        ("lstm", ProductKernel::Portable) => census(1, 0, 12, 5),
        _ => panic!("no census for {name}"),
    }
}

/// The structure of the GRU's and the LSTM's steps on the tape under the
/// kernel this process runs ([`expected_census`]). A change that loses a
/// fusion shows here before it shows in a timing.
fn the_recurrent_cells_steps_keep_their_fusions() {
    let kernel = product_kernel::selected();
    for (p, d, inputs) in recurrent_cells() {
        let refs: Vec<&Value> = inputs.iter().collect();
        let mut f = Compiled::new(&p, &d).unwrap();
        f.call(&refs).unwrap();
        let got = f.step_census();
        assert_eq!(
            got,
            vec![expected_census(&p.name, kernel)],
            "{} ({kernel:?})",
            p.name
        );
    }
}

/// The environment variable that makes this test binary print
/// [`kernel_probe`]'s report instead of running its trials.
const PROBE_VAR: &str = "EQSCAN_PLAN_KERNEL_PROBE";

/// What the probe prints for this process's kernel: per cell, its census
/// and the bits of every output (FNV-1a over the `f64` bit patterns).
fn kernel_probe() -> String {
    let mut report = String::new();
    for (p, d, inputs) in recurrent_cells() {
        let refs: Vec<&Value> = inputs.iter().collect();
        let mut f = Compiled::new(&p, &d).unwrap();
        let outs = f.call(&refs).unwrap().to_values();
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        for v in &outs {
            for x in v.as_f64_array().iter() {
                for byte in x.to_bits().to_le_bytes() {
                    hash = (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
                }
            }
        }
        let c = &f.step_census()[0];
        report += &format!(
            "{} census {} {} {} {} bits {hash:016x}\n",
            p.name, c.products, c.product_stages, c.passes, c.fused_pairs
        );
    }
    report
}

/// [`packed_matrix_products_keep_the_plans_bits`] and
/// [`products_with_their_readers_keep_the_plans_bits`] again in a process
/// of their own for each width of the packed kernel this machine has
/// (`EQSCAN_PACKED_WIDTH` forced): the step tape's products, with and
/// without the readers they compute as they store, keep the plan's bits
/// with 256-bit registers and with 512-bit ones, whichever this process
/// selected.
fn the_packed_products_keep_their_bits_at_each_width() {
    let mut widths = vec![PackedWidth::Avx2];
    if product_kernel::machine_width() == PackedWidth::Avx512 {
        widths.push(PackedWidth::Avx512);
    }
    for width in widths {
        for trial in [
            "packed_matrix_products_keep_the_plans_bits",
            "products_with_their_readers_keep_the_plans_bits",
        ] {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", trial])
                .env(product_kernel::WIDTH_VAR, width.name())
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && text.contains("1 passed"),
                "{trial} at {width:?}:\n{text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// Both product kernels on this machine (`portable` alone where the
/// packed one cannot run), each forced with `EQSCAN_PRODUCT_KERNEL` in a
/// process of its own running [`kernel_probe`]: the GRU's and the LSTM's
/// outputs have the same bits down both paths, and each path's steps
/// have its census. On an AVX-512 machine the packed kernel runs twice,
/// its width forced with `EQSCAN_PACKED_WIDTH`: 512-bit registers and
/// 256-bit ones give the same bits too.
fn both_product_kernels_give_the_same_bits() {
    // Each kernel, and the packed one with each width the machine has.
    let mut kernels = vec![(ProductKernel::Portable, PackedWidth::Avx2)];
    if product_kernel::machine() == ProductKernel::Packed {
        kernels.push((ProductKernel::Packed, PackedWidth::Avx2));
    }
    if product_kernel::machine_width() == PackedWidth::Avx512 {
        kernels.push((ProductKernel::Packed, PackedWidth::Avx512));
    }
    let mut bits: Vec<Vec<String>> = Vec::new();
    for (kernel, width) in kernels {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .env(product_kernel::KERNEL_VAR, kernel.name())
            .env(product_kernel::WIDTH_VAR, width.name())
            .env(PROBE_VAR, "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let mut these = Vec::new();
        for line in text.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(w.len(), 8, "probe line: {line}");
            let n: Vec<usize> = w[2..6].iter().map(|x| x.parse().unwrap()).collect();
            let want = expected_census(w[0], kernel);
            assert_eq!(
                (n[0], n[1], n[2], n[3]),
                (
                    want.products,
                    want.product_stages,
                    want.passes,
                    want.fused_pairs
                ),
                "{} under {kernel:?} ({width:?})",
                w[0]
            );
            these.push(format!("{} {}", w[0], w[7]));
        }
        assert_eq!(these.len(), 2, "probe output: {text}");
        bits.push(these);
    }
    for other in &bits[1..] {
        assert_eq!(other, &bits[0], "the kernels' outputs differ");
    }
}

/// `where` with a row mask broadcast along its rows, a column mask
/// repeated on every row, a full mask, a scalar branch and nested
/// conditions: each reads its operands in place on the tape, with the
/// plan's bits, at ordinary and extreme magnitudes.
fn where_with_broadcast_masks_runs_on_the_tape_with_the_plans_bits() {
    let text = "(program w (input X (f64 T 5 6)) (input Y (f64 T 5 6)) (input R (bool T 5 1))
        (input F (bool T 5 6)) (input K (bool 6))
        (let A (scan (sequences X Y R F) (outputs_info (nitsot)) (non_sequences K)
          (fn (x y r f k)
            (add (add (where r x y) (where k x 2.5))
                 (add (where f x y) (where r (where k y x) (neg x)))))))
        (output A))";
    on_tape_at_every_scale(text, &[2, 7]);
}

/// `text`'s one loop on the tape with the plan's bits for each step count
/// `T` of `steps`, its `f64` inputs generated and scaled by 1, 1e300 and
/// 1e-300.
fn on_tape_at_every_scale(text: &str, steps: &[i64]) {
    let p = parse_program(text).unwrap();
    for &t in steps {
        let d: Dims = [("T".to_string(), t)].into();
        let inputs = eqscan::exec::run::generate_inputs(&p, &d, &Default::default()).unwrap();
        for scale in [1.0, 1e300, 1e-300] {
            let data: Vec<Value> = inputs
                .iter()
                .map(|v| match v {
                    Value::F64(a) => Value::F64(a.mapv(|x| x * scale)),
                    other => other.clone(),
                })
                .collect();
            let refs: Vec<&Value> = data.iter().collect();
            on_tape_with_the_plans_bits(&p, &d, &refs, &format!("T = {t}, scale {scale}"));
        }
    }
}

/// Transposes in a step (a matrix, the last two axes of a batch of them,
/// and the `hᵀ·g` of a weight gradient) run on the tape as tiled
/// transposes, with the plan's bits, at ordinary and extreme magnitudes.
fn transposes_in_a_step_run_on_the_tape_with_the_plans_bits() {
    let text = "(program t (input X (f64 T 9 13)) (input Y (f64 T 9 4)) (input Z (f64 T 2 3 17))
        (let (A B C) (scan (sequences X Y Z) (outputs_info (nitsot) (nitsot) (nitsot))
          (fn (x y z) (outputs (transpose x) (dot (transpose x) y) (transpose z 0 2 1)))))
        (output A B C))";
    on_tape_at_every_scale(text, &[2, 5]);
}
