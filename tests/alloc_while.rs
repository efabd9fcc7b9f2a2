//! No heap allocation per step in a compiled while loop's steady state.
//!
//! The counting allocator of `alloc_fib.rs` (global only in this test
//! binary) counts the allocations of one call of a while loop after a
//! warm-up call: a Newton square-root iteration whose outputs are read
//! only at their end, and a loop whose outputs keep every step that ran
//! (its buffers grow as the steps run on the first call, and keep their
//! rows for the next). Each loop's condition stops it after a number of
//! steps set by an input, so one compiled program runs 50 and 5,000 steps
//! (of at most 10^9): the count must not grow with the steps that ran.

use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{run_program, Dims};
use eqscan::exec::Value;
use eqscan::lang::parse_program;
use ndarray::{arr0, ArrayD};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::count;

/// `h_t = tanh(0.5 h + x)` with a counter that stops the loop after
/// `stop` steps; read at its end only (`last`), or whole.
fn program(last: bool) -> String {
    let out = if last {
        "(output (index H -1) (index K -1))"
    } else {
        "(output H K)"
    };
    format!(
        "(program w (input x (f64 64)) (input stop (f64))
          (let (H K) (scan (outputs_info (sitsot (zeros (f64 64))) (sitsot (zeros (f64))))
            (non_sequences x stop) (n_steps 1000000000)
            (fn (h k xv s)
              (let k1 (add k 1.0))
              (outputs (tanh (add (mul h 0.5) xv)) k1 (until (ge k1 s))))))
          {out})"
    )
}

/// Allocations of one steady-state call of the loop stopping after
/// `steps`, after a warm-up call checked against the interpreter.
fn steady_allocations(last: bool, steps: usize) -> usize {
    let p = parse_program(&program(last)).unwrap();
    let dims = Dims::new();
    let x = Value::F64(ArrayD::from_shape_fn(vec![64], |i| 0.01 * i[0] as f64));
    let stop = Value::F64(arr0(steps as f64).into_dyn());
    let inputs = vec![x, stop];
    let refs: Vec<&Value> = inputs.iter().collect();
    let mut f = Compiled::new(&p, &dims).unwrap();
    let want = run_program(&p, inputs.clone(), &dims).unwrap();
    let got = f.call(&refs).unwrap().to_values();
    assert_eq!(got, want);
    assert_eq!(
        got[1].sum_f64(),
        if last {
            steps as f64
        } else {
            (steps * (steps + 1) / 2) as f64
        }
    );
    let (ok, allocs) = count(|| f.call(&refs).map(|o| o.len()));
    assert_eq!(ok.unwrap(), 2);
    allocs
}

#[test]
fn a_while_loop_allocates_nothing_per_step() {
    // The counter counts (else every count below would be 0 and pass).
    let (_, one) = count(|| std::hint::black_box(Vec::<u8>::with_capacity(1)));
    assert_eq!(one, 1, "the counting allocator is not counting");
    for last in [true, false] {
        let short = steady_allocations(last, 50);
        let long = steady_allocations(last, 5000);
        eprintln!("while loop (read at its end: {last}): {short} allocations per call at 50 steps, {long} at 5000");
        assert_eq!(
            short, long,
            "allocations per call grow with the steps that ran"
        );
        assert!(short <= 64, "{short} allocations per call");
    }
}

/// Issue 37's Newton square root bounded by 10^9 steps
/// (`tests/cases/scan/while_newton_1e9.sexp`) stops after 19 and keeps
/// only those: `run --json`'s `peak_bytes` stays under 1 MB, optimized
/// and as written.
#[test]
fn a_loop_bounded_by_a_billion_steps_keeps_the_steps_that_ran() {
    for opt in [None, Some("--no-opt")] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_eqscan"));
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["run", "tests/cases/scan/while_newton_1e9.sexp", "--gen"])
            .args(["--dim", "N=8", "--scale", "A=40.0", "--json"]);
        cmd.args(opt);
        let out = cmd.output().expect("start eqscan");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["outputs"][1]["sum"].as_f64(), Some(19.0), "{report}");
        let peak = report["peak_bytes"].as_u64().unwrap();
        assert!(peak < 1_000_000, "peak_bytes {peak}");
    }
}
