//! The batching rewrite of list programs (`src/optimize/batch.rs`,
//! docs/lists.md "Batching"): its structure (a map of loops before, one
//! masked loop after, or with the lengths known length-sorted phases
//! whose batch shrinks), that `run` takes it (and not when the lengths make
//! it costlier), and its results against the per-sequence run. The values
//! themselves are checked against NumPy/JAX in `tests/list_cases.rs`
//! (`lists::batch_*`, `lists::seqs_grad`), in every mode.

use eqscan::exec::list::Item;
use eqscan::lang::{parse_program, Graph, Op, Program};
use eqscan::optimize::batch::{batch_lists, BatchCost, NotBatched};
use eqscan::session::{run_lists, OptimizerSettings, RunOptions, Source};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(rel: &str) -> Program {
    let text = std::fs::read_to_string(root().join(rel)).expect("case file");
    parse_program(&text).expect("parses")
}

/// The top-level loops of `g`, and how many of them hold a loop.
fn loops(g: &Graph) -> (usize, usize) {
    let scans: Vec<_> = g
        .nodes
        .iter()
        .filter_map(|n| match &n.op {
            Op::Scan(s) => Some(s),
            _ => None,
        })
        .collect();
    let nested = scans
        .iter()
        .filter(|s| s.body.nodes.iter().any(|n| matches!(n.op, Op::Scan(_))))
        .count();
    (scans.len(), nested)
}

#[test]
fn optimize_turns_the_map_of_loops_into_one_loop() {
    let p = load("benches/lists/elman_ragged_fwd.sexp");
    assert_eq!(
        loops(&p.graph),
        (1, 1),
        "as written: one map holding a fold"
    );
    let r = OptimizerSettings::default()
        .optimize_written(&p, &BTreeMap::new())
        .expect("optimizes");
    let q = &r.program;
    assert_eq!(
        loops(&q.graph),
        (1, 0),
        "optimized: one loop, nothing nested"
    );
    assert!(!eqscan::lang::list_type::holds_lists(q));
    let names: Vec<&str> = q.inputs().map(|(n, _)| n).collect();
    assert_eq!(names[..2], ["L_padded", "L_lengths"]);
    // The gradient: the forward loop and its backward loop, neither nested.
    let p = load("benches/lists/elman_ragged.sexp");
    let r = OptimizerSettings::default()
        .optimize_written(&p, &BTreeMap::new())
        .expect("optimizes");
    let (n, nested) = loops(&r.program.graph);
    assert_eq!(nested, 0);
    assert!(n <= 2, "{n} loops");
}

#[test]
fn both_maps_of_a_program_are_batched_with_one_padded_input() {
    let p = load("tests/cases/lists/batch_edges.sexp");
    let b = batch_lists(&p, None).expect("batches");
    assert_eq!(loops(&b.program.graph), (2, 0));
    assert_eq!(b.list_outputs, [true, true, false]);
    assert_eq!(b.lists.len(), 1);
}

#[test]
fn other_uses_of_the_list_keep_the_program_per_sequence() {
    // seqs_map_loops zips L, reads its lengths and scans over it.
    let p = load("tests/cases/lists/seqs_map_loops.sexp");
    let err = batch_lists(&p, None).expect_err("not batched");
    assert!(
        matches!(&err, NotBatched::ListUse { input } if input == "L"),
        "{err}"
    );
}

#[test]
fn the_cost_comparison_follows_the_lengths() {
    let p = load("tests/cases/lists/batch_grad.sexp");
    let with = |lens: Vec<usize>| {
        let m = BTreeMap::from([("L".to_string(), lens)]);
        batch_lists(&p, Some(&m))
    };
    // Equal lengths: batched.
    assert!(with(vec![50; 16]).is_ok());
    // One long sequence among short ones, tiny steps: padding costs more.
    let err = with(vec![1, 1, 1, 1000]).expect_err("per sequence");
    assert!(
        matches!(&err, NotBatched::Costlier { per_sequence, batched, .. } if per_sequence <= batched),
        "{err}"
    );
    // No steps at all: nothing to gain.
    assert!(with(vec![0, 0, 0]).is_err());
    let c = BatchCost {
        ops: 5.0,
        mask_ops: 3.0,
        elementwise: 10.0,
        products: 100.0,
    };
    let lens = [3, 0, 2];
    assert_eq!(c.per_sequence(&lens), 5.0 * (5.0 * 1000.0 + 110.0));
    assert_eq!(c.batched(&lens), 3.0 * (8.0 * 1000.0 + 3.0 * (10.0 + 25.0)));
}

/// The outputs of case `name` run by `run_lists` (optimized or not), and
/// whether it ran batched.
fn run_case(name: &str, optimize: bool) -> (Vec<Item>, bool) {
    let r = run_case_result(name, optimize);
    (r.outputs, r.batched)
}

/// Case `name` run by `run_lists` (optimized or not).
fn run_case_result(name: &str, optimize: bool) -> eqscan::session::ListRunResult {
    run_case_with(name, optimize, None)
}

/// Case `name` run by `run_lists` (optimized or not), `repeat` times
/// after a warm-up when given.
fn run_case_with(
    name: &str,
    optimize: bool,
    repeat: Option<usize>,
) -> eqscan::session::ListRunResult {
    let dir = root().join("tests/cases/lists");
    let p = load(&format!("tests/cases/lists/{name}.sexp"));
    let inputs = std::fs::read_dir(dir.join(format!("{name}.inputs")))
        .expect("inputs")
        .flatten()
        .map(|e| {
            let path = e.path();
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            (stem.to_string(), Source::Npy(path.clone()))
        })
        .collect();
    let opts = RunOptions {
        inputs,
        optimizer: optimize.then(OptimizerSettings::default),
        repeat,
        ..RunOptions::default()
    };
    run_lists(&p, &opts, &BTreeMap::new()).expect("runs")
}

fn values(item: &Item) -> (Vec<f64>, Vec<Vec<i64>>) {
    match item {
        Item::Tensor(v) => (v.as_f64_array().iter().copied().collect(), Vec::new()),
        Item::List(l) => {
            let (v, s) = l.to_parts();
            (v.as_f64_array().iter().copied().collect(), s)
        }
    }
}

#[test]
fn batched_runs_give_the_per_sequence_results() {
    for name in ["batch_edges", "batch_grad", "batch_extreme", "seqs_grad"] {
        let (batched, was) = run_case(name, true);
        assert!(was, "{name}: run did not batch");
        let (written, was) = run_case(name, false);
        assert!(!was);
        for (k, (a, b)) in batched.iter().zip(&written).enumerate() {
            let ((va, sa), (vb, sb)) = (values(a), values(b));
            assert_eq!(sa, sb, "{name} out_{k}: splits");
            assert_eq!(va.len(), vb.len());
            for (x, y) in va.iter().zip(&vb) {
                assert!(x.is_finite() == y.is_finite(), "{name} out_{k}: {x} vs {y}");
                // Products re-associated (dot W x as a row of X Wᵀ): within
                // rounding, not bit for bit.
                let tol = 1e-12 * x.abs().max(y.abs()).max(1e-300);
                assert!((x - y).abs() <= tol, "{name} out_{k}: {x} vs {y}");
            }
        }
    }
}

#[test]
fn padding_keeps_each_sequence_in_its_column() {
    use eqscan::exec::list::npz::read_list_npz;
    use eqscan::exec::list::pad::pad_sequences;
    let l = read_list_npz(Path::new(
        &root().join("tests/cases/lists/batch_grad.inputs/L.npz"),
    ))
    .expect("reads");
    let (x, lens) = pad_sequences(&l).expect("pads");
    assert_eq!(x.shape(), [7, 6, 4]);
    let lens: Vec<f64> = lens.as_f64_array().iter().copied().collect();
    assert_eq!(lens, [0.0, 4.0, 0.0, 1.0, 7.0, 0.0]);
    let xa = x.as_f64_array();
    let (vals, _) = l.to_parts();
    let va = vals.as_f64_array();
    // Sequence 4 starts at row 5 of the values (0 + 4 + 0 + 1).
    for t in 0..7 {
        for j in 0..4 {
            assert_eq!(xa[[t, 4, j]], va[[5 + t, j]]);
            assert_eq!(xa[[t, 0, j]], 0.0);
        }
    }
}

#[test]
fn a_batch_of_one_runs_per_sequence_and_its_dense_form_agrees() {
    // One sequence: batching saves no dispatch, so run keeps it as written
    // and says why.
    let r = run_case_result("batch_one", true);
    assert!(!r.batched);
    let why = r.not_batched.unwrap_or_default();
    assert!(why.starts_with("per sequence costs"), "{why}");
    let written = r.outputs;
    // The dense form (as optimize prints it) on the padded batch (6, 1, 4).
    let (r, shape) = run_dense_form("batch_one", &["Wx", "Wh", "b", "h0"]);
    assert_eq!(shape, [6, 1, 4]);
    for (k, (a, w)) in r.outputs.iter().zip(&written).enumerate() {
        let (va, vb) = (a.as_f64_array(), values(w).0);
        for (x, y) in va.iter().zip(&vb) {
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                "out_{k}: {x} vs {y}"
            );
        }
    }
}

/// A step that meets a pole on the padding (`log(x · w)` at the zero rows
/// past a sequence's end): the dense form's gradient is NaN there (a
/// masked row's zero cotangent times 1/0), while the written program's is
/// finite. `run` must give the written program's results: it discards
/// the batched run and runs per sequence.
#[test]
fn a_batched_run_that_is_not_finite_is_replaced_by_the_written_program() {
    let (dense, _) = run_dense_form("batch_pole", &["w", "a", "h0"]);
    let dense_gw = dense.outputs[1].as_f64_array();
    assert!(
        dense_gw.iter().any(|g| g.is_nan()),
        "the padding hazard this test guards against is gone: {dense_gw:?}"
    );
    let r = run_case_result("batch_pole", true);
    assert!(!r.batched, "a batched run with NaN results was kept");
    assert_eq!(
        r.not_batched.as_deref(),
        Some("the batched program's results were not all finite")
    );
    let got = r.outputs;
    let (written, _) = run_case("batch_pole", false);
    for (k, (a, w)) in got.iter().zip(&written).enumerate() {
        let (va, vw) = (values(a).0, values(w).0);
        assert!(va.iter().all(|x| x.is_finite()), "out_{k}: {va:?}");
        assert_eq!(va, vw, "out_{k}");
    }
}

/// A batched run says how its one dense loop ran: on the step tape.
#[test]
fn a_batched_run_reports_its_loops_on_the_tape() {
    let p = load("tests/cases/lists/batch_grad.sexp");
    let dir = root().join("tests/cases/lists/batch_grad.inputs");
    let inputs = ["L", "Wx", "Wh", "b", "h0"]
        .iter()
        .map(|n| {
            let ext = if *n == "L" { "npz" } else { "npy" };
            (n.to_string(), Source::Npy(dir.join(format!("{n}.{ext}"))))
        })
        .collect();
    let opts = RunOptions {
        inputs,
        optimizer: Some(OptimizerSettings::default()),
        ..RunOptions::default()
    };
    let r = run_lists(&p, &opts, &BTreeMap::new()).expect("runs");
    assert!(r.batched);
    let loops = r.loops.expect("a batched run counts its loops");
    assert!(loops.run >= 1);
    assert_eq!(loops.on_tape, loops.run, "{loops:?}");
    assert_eq!(r.to_json()["loops"]["on_tape"], loops.on_tape);
}

/// Runs the dense form of case `name` (as `optimize` prints it, without
/// lengths) on its list `L` padded and its tensor inputs `tensors`; the
/// result and the padded batch's shape.
fn run_dense_form(name: &str, tensors: &[&str]) -> (eqscan::session::RunResult, Vec<usize>) {
    use eqscan::exec::list::npz::read_list_npz;
    use eqscan::exec::list::pad::pad_sequences;
    use eqscan::exec::npy::read_npy;
    let p = load(&format!("tests/cases/lists/{name}.sexp"));
    let b = batch_lists(&p, None).expect("batches");
    let dir = root().join(format!("tests/cases/lists/{name}.inputs"));
    let l = read_list_npz(&dir.join("L.npz")).expect("reads");
    let (x, lens) = pad_sequences(&l).expect("pads");
    let shape = x.shape().to_vec();
    let mut inputs = vec![
        ("L_padded".to_string(), Source::Value(x)),
        ("L_lengths".to_string(), Source::Value(lens)),
    ];
    for n in tensors {
        let v = read_npy(&dir.join(format!("{n}.npy"))).expect("reads");
        inputs.push((n.to_string(), Source::Value(v)));
    }
    let dims = BTreeMap::from([
        ("L_steps".to_string(), shape[0] as i64),
        ("L_batch".to_string(), shape[1] as i64),
    ]);
    let r = eqscan::session::run(
        &b.program,
        &RunOptions {
            inputs,
            dims,
            ..RunOptions::default()
        },
    )
    .expect("runs");
    (r, shape)
}

/// An Elman fold (hidden 64, input 32) over ragged sequences, and the
/// gradients with respect to its weights and init: heavy enough per row
/// that known lengths run it in phases.
const ELMAN: &str = "(program elman
  (input L (list (list (f64 32))))
  (input W (f64 64 64))
  (input U (f64 64 32))
  (input b (f64 64))
  (input h0 (f64 64))
  (let hs (map (fn (s) (foldl (fn (h x) (tanh (add (add (dot W h) (dot U x)) b))) h0 s)) L))
  (let H (stack hs))
  (let cost (mul 0.5 (sum (mul H H))))
  (let (gW gU gb g0) (grad cost W U b h0))
  (output H cost gW gU gb g0))";

/// Lengths with an empty sequence, a sequence of one step, ties and
/// gaps.
const RAGGED: [usize; 10] = [200, 0, 37, 200, 150, 1, 90, 12, 180, 60];

/// With the lengths known, the fold runs in phases over the sequences
/// sorted longest first: the rows still running shrink phase by phase,
/// one loop each, and the rows of work come close to `Σ T_i` instead of
/// `T_max · B`. Without lengths (`optimize`), one masked loop.
#[test]
fn known_lengths_run_the_fold_in_shrinking_phases() {
    let p = load("benches/lists/elman_ragged_fwd.sexp");
    let text = std::fs::read_to_string(root().join("benches/lists/elman_ragged.lengths"))
        .expect("lengths");
    let lens: Vec<usize> = text
        .trim()
        .split(',')
        .map(|t| t.parse().expect("a length"))
        .collect();
    let m = BTreeMap::from([("L".to_string(), lens.clone())]);
    let b = batch_lists(&p, Some(&m)).expect("batches");
    let plan = &b.lists[0].phases.as_ref().expect("phased").plan;
    let n = plan.phases();
    assert!(n > 1, "{plan:?}");
    assert_eq!(plan.rows[0], 64);
    assert!(plan.rows.windows(2).all(|w| w[0] > w[1]), "{plan:?}");
    assert_eq!(plan.bounds.last(), Some(&494));
    assert_eq!(loops(&b.program.graph), (n, 0));
    let work: usize = (0..n).map(|q| plan.steps(q) * plan.rows[q]).sum();
    let steps: usize = lens.iter().sum();
    assert!(
        work >= steps && (work as f64) < 1.2 * steps as f64,
        "{work} vs {steps}"
    );
    assert!(work < 494 * 64 * 2 / 3);
    // Each sequence ends in exactly one phase, at its sorted row.
    let mut seen = vec![0; lens.len()];
    for q in 0..n {
        for r in plan.ended(q) {
            let s = plan.order[r];
            seen[s] += 1;
            assert!(lens[s] > plan.bounds[q] && lens[s] <= plan.bounds[q + 1]);
        }
    }
    assert!(seen.iter().all(|&c| c == 1), "{seen:?}");
    let b = batch_lists(&p, None).expect("batches");
    assert!(b.lists[0].phases.is_none());
    assert_eq!(loops(&b.program.graph), (1, 0));
}

/// The default optimizer without its time limit (ten minutes instead of
/// five seconds): the Elman gradient over 7 phases takes 2.6 s to
/// optimize on an idle development machine, and CI's loaded one reached
/// the time limit and ran another program (18 loops instead of 14, the
/// results the same). The loop counts asserted here are the program's,
/// not the machine's.
fn unhurried() -> OptimizerSettings {
    let mut s = OptimizerSettings::default();
    s.limits.time_limit = std::time::Duration::from_secs(600);
    s
}

/// Runs the program `text` (over `L`, as `ELMAN`) on generated inputs,
/// `L` with `RAGGED` lengths scaled by `scale`, optimized (without a
/// time limit that binds: [`unhurried`]) or not.
fn run_fold(text: &str, optimize: bool, scale: f64) -> eqscan::session::ListRunResult {
    let p = parse_program(text).expect("parses");
    let spec: Vec<String> = RAGGED.iter().map(|t| t.to_string()).collect();
    let lengths = BTreeMap::from([("L".to_string(), spec.join(","))]);
    let opts = RunOptions {
        gen: true,
        scales: BTreeMap::from([("L".to_string(), scale)]),
        optimizer: optimize.then(unhurried),
        ..RunOptions::default()
    };
    run_lists(&p, &opts, &lengths).expect("runs")
}

/// The phased run against the per-sequence run, forward and gradient, at
/// ordinary and extreme magnitudes: within rounding of a re-associated
/// sum, finite where the written program is.
#[test]
fn phased_runs_give_the_per_sequence_results() {
    phased_runs_agree(ELMAN);
}

/// `text`'s fold runs in phases with `RAGGED` lengths, a forward and a
/// backward loop per phase, and its outputs (forward and gradient, at 1,
/// 1e300 and 1e-300) are the per-sequence run's within rounding of a
/// re-associated sum.
fn phased_runs_agree(text: &str) {
    let p = parse_program(text).expect("parses");
    let m = BTreeMap::from([("L".to_string(), RAGGED.to_vec())]);
    let b = batch_lists(&p, Some(&m)).expect("batches");
    let phases = b.lists[0].phases.as_ref().expect("phased").plan.phases();
    assert!(phases > 1);
    for scale in [1.0, 1e300, 1e-300] {
        let got = run_fold(text, true, scale);
        assert!(got.batched, "{scale}: {:?}", got.not_batched);
        // A forward and a backward loop per phase.
        let ran = got.loops.expect("loops").run;
        assert_eq!(ran, 2 * phases, "{scale}");
        let want = run_fold(text, false, scale);
        assert!(!want.batched);
        for (k, (a, w)) in got.outputs.iter().zip(&want.outputs).enumerate() {
            let ((va, _), (vw, _)) = (values(a), values(w));
            assert_eq!(va.len(), vw.len());
            // A gradient's element is a sum over every step of every
            // sequence, re-associated by the phases: within rounding of
            // its own size, or of the output's largest element where the
            // terms cancel.
            let largest = vw.iter().fold(0.0f64, |m, y| m.max(y.abs()));
            for (x, y) in va.iter().zip(&vw) {
                assert!(
                    y.is_finite() && x.is_finite(),
                    "{scale} out_{k}: {x} vs {y}"
                );
                let tol = (1e-11 * x.abs().max(y.abs()) + 1e-13 * largest).max(1e-300);
                assert!((x - y).abs() <= tol, "{scale} out_{k}: {x} vs {y}");
            }
        }
    }
}

/// The Elman cost averaged over the sequences, `(len L)` read beside the
/// map: the length of the list is the batch's size, so the program is
/// still batched (it ran per sequence, 7× slower, before `len` was
/// allowed), and its results, the count included, are the per-sequence
/// run's.
#[test]
fn the_length_of_a_batched_list_is_its_batch_size() {
    let text = ELMAN
        .replace(
            "(let cost (mul 0.5 (sum (mul H H))))",
            "(let n (len L))\n  (let cost (div (mul 0.5 (sum (mul H H))) (cast f64 n)))",
        )
        .replace("(output H cost", "(output n H cost");
    assert!(text.contains("(len L)") && text.contains("(output n H cost"));
    phased_runs_agree(&text);
    let got = run_fold(&text, true, 1.0);
    let (count, _) = values(&got.outputs[0]);
    assert_eq!(count, [RAGGED.len() as f64]);
}

/// A backward fold (`foldr`) starts at each sequence's end, so its phases
/// run last first and the batch grows: the longest sequences start alone,
/// and each earlier phase adds the rows whose sequences end in it, from
/// the init. One loop per phase, as forwards; the results, forward and
/// gradient, are the per-sequence run's (the empty sequence keeps h0, the
/// one-step sequence runs only in the first phase).
#[test]
fn a_backward_fold_runs_in_phases_whose_batch_grows() {
    let text = ELMAN.replace("(foldl ", "(foldr ");
    let p = parse_program(&text).expect("parses");
    let m = BTreeMap::from([("L".to_string(), RAGGED.to_vec())]);
    let b = batch_lists(&p, Some(&m)).expect("batches");
    let n = b.lists[0].phases.as_ref().expect("phased").plan.phases();
    assert!(n > 1);
    assert_eq!(loops(&b.program.graph), (n, 0));
    assert!(b.program.graph.nodes.iter().all(|node| match &node.op {
        Op::Scan(s) => s.sig.go_backwards,
        _ => true,
    }));
    phased_runs_agree(&text);
}

/// A repeated batched run pads its lists once per run and reports one time
/// per timed run (the warm-up's not counted), each at least as long as a
/// run needs, and the outputs of a single run.
#[test]
fn repeated_batched_runs_time_every_run() {
    let name = "batch_grad";
    let repeated = run_case_with(name, true, Some(4));
    assert!(repeated.batched, "{:?}", repeated.not_batched);
    assert_eq!(repeated.execute_ms.len(), 4);
    assert!(repeated
        .execute_ms
        .iter()
        .all(|&ms| ms > 0.0 && ms.is_finite()));
    let once = run_case_result(name, true);
    assert_eq!(once.execute_ms.len(), 1);
    for (k, (a, b)) in repeated.outputs.iter().zip(&once.outputs).enumerate() {
        let ((va, sa), (vb, sb)) = (values(a), values(b));
        assert_eq!(sa, sb, "output {k}: splits");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&va), bits(&vb), "output {k}");
    }
}
