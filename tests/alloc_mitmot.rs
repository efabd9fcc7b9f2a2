//! No heap allocation per step in a compiled loop with a MIT-MOT tape.
//!
//! The backward loop of an RNN-like recurrence (a tape of T+1 slots read at
//! in taps 0 and 1 and written at out tap 1, a sequence read backwards, a
//! non-sequence) runs compiled once; one call after a warm-up call must
//! allocate as often at 100 steps as at 5000 (the tape is copied once per
//! call into storage kept across calls; its slots are read as views and
//! written in place), and a small constant number of times. The result is
//! checked against the reference interpreter first. Uses the counting
//! allocator of `tests/common/counting_alloc.rs` (one counting test per
//! binary).

use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::Value;
use eqscan::lang::parse_program;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::count;

const BACKWARD: &str = "(program backward
  (input X (f64 T N))
  (input G (f64 T N))
  (input w (f64 N))
  (let tape (concat 0 G (zeros (f64 1 N))))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)))
    (non_sequences w)
    (go_backwards)
    (fn (x g g_next v)
      (add g_next (mul (mul v (tanh x)) g)))))
  (output R))";

/// Allocations of one steady-state call.
fn steady_call(steps: i64, n: i64) -> usize {
    let p = parse_program(BACKWARD).unwrap();
    let dims: Dims = [("T".to_string(), steps), ("N".to_string(), n)].into();
    let inputs = generate_inputs(&p, &dims, &Default::default()).unwrap();
    let refs: Vec<&Value> = inputs.iter().collect();
    let mut f = Compiled::new(&p, &dims).unwrap();
    let want = run_program(&p, inputs.clone(), &dims).unwrap();
    assert_eq!(f.call(&refs).unwrap().to_values(), want);
    // A second call starts from the input tape again, not from the first
    // call's result.
    assert_eq!(f.call(&refs).unwrap().to_values(), want);
    let (ok, allocs) = count(|| f.call(&refs).map(|o| o.len()));
    assert_eq!(ok.unwrap(), 1);
    allocs
}

#[test]
fn a_mitmot_loop_allocates_nothing_per_step() {
    let (_, one) = count(|| std::hint::black_box(Vec::<u8>::with_capacity(1)));
    assert_eq!(one, 1, "the counting allocator is not counting");
    let short = steady_call(100, 256);
    let long = steady_call(5000, 256);
    eprintln!("mitmot, N=256: {short} allocations per call at 100 steps, {long} at 5000 steps");
    assert_eq!(
        short, long,
        "allocations per call grow with the number of steps"
    );
    assert!(short <= 64, "{short} allocations per call");
}
