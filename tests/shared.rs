//! Shared variables and the memory rules of the library API (SPEC §1
//! "State across calls", the memory-aliasing seed).
//!
//! - A stateful RNN called three times on T steps each equals one call on
//!   3T steps (the hidden state carries over), through the library and
//!   through `eqscan run --shared ... --calls N --out DIR` (.npy round trip,
//!   optimized and not).
//! - Updates take effect together (a swap), shared values are taken over
//!   by `set_shared` and borrowed by `shared`.
//! - Aliasing: a borrowed result lives in the executor's storage, never in
//!   the caller's array, and the next call reuses that storage; an input
//!   passed by value may serve as workspace, one passed by reference is
//!   never written.

use eqscan::exec::npy::{read_npy, write_npy};
use eqscan::exec::plan::{Compiled, ValView};
use eqscan::exec::run::{run_program, Dims};
use eqscan::exec::Value;
use eqscan::lang::{parse_program, print_program, Program};
use ndarray::{s, ArrayD, IxDyn};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(name: &str) -> Program {
    let text = std::fs::read_to_string(root().join("tests/cases/shared").join(name)).unwrap();
    parse_program(&text).unwrap()
}

fn f64s(shape: &[usize], f: impl Fn(usize) -> f64) -> Value {
    let n: usize = shape.iter().product();
    Value::F64(ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(f).collect()).unwrap())
}

fn close(a: &Value, b: &Value) -> bool {
    a.allclose(b, 1e-12, 1e-12)
}

fn rnn_data(t: usize, n: usize) -> (Value, Value, Value) {
    let x = f64s(&[t, n], |i| (0.37 * i as f64).sin() * 0.5);
    let w = f64s(&[n, n], |i| (0.11 * i as f64 + 0.3).cos() * 0.4);
    let h0 = f64s(&[n], |i| 0.1 * i as f64 - 0.05);
    (x, w, h0)
}

fn rows(v: &Value, a: usize, b: usize) -> Value {
    match v {
        Value::F64(x) => Value::F64(x.slice(s![a..b, ..]).to_owned().into_dyn()),
        _ => panic!("f64 expected"),
    }
}

#[test]
fn state_carries_over_between_calls() {
    let p = load("stateful_rnn.sexp");
    assert_eq!(parse_program(&print_program(&p)).unwrap(), p);
    let (t, n) = (5, 3);
    let (x, w, h0) = rnn_data(3 * t, n);
    // One call on 3T steps, by the interpreter: inputs, then shared values.
    let long: Dims = [("T".to_string(), 3 * t as i64), ("N".to_string(), n as i64)].into();
    let all = run_program(&p, vec![x.clone(), w.clone(), h0.clone()], &long).unwrap();
    let (whole, h_end) = (&all[0], &all[1]);
    // Three calls on T steps each, compiled.
    let mut f = Compiled::new(&p, &Dims::new()).unwrap();
    f.set_shared("h", h0.clone()).unwrap();
    for k in 0..3 {
        let chunk = rows(&x, k * t, (k + 1) * t);
        let out = f.call(&[&chunk, &w]).unwrap();
        assert_eq!(out.len(), 1);
        assert!(close(
            &out.get(0).unwrap().to_value(),
            &rows(whole, k * t, (k + 1) * t)
        ));
    }
    assert!(close(f.shared("h").unwrap(), h_end));
    assert!(f.shared("nope").is_none());
    assert!(f.set_shared("h", Value::scalar_f64(1.0)).is_err());
}

#[test]
fn updates_take_effect_together() {
    let p = load("swap.sexp");
    let mut f = Compiled::new(&p, &Dims::new()).unwrap();
    let a = f64s(&[4], |i| i as f64);
    let b = f64s(&[4], |i| 100.0 + i as f64);
    let x = f64s(&[4], |_| 1.0);
    f.set_shared("a", a.clone()).unwrap();
    f.set_shared("b", b.clone()).unwrap();
    let out = f.call(&[&x]).unwrap().to_values();
    // The output reads the values from before the call.
    assert_eq!(out[0], f64s(&[4], |i| i as f64 + 10.0 * (100.0 + i as f64)));
    assert_eq!(f.shared("a").unwrap(), &b);
    assert_eq!(f.shared("b").unwrap(), &f64s(&[4], |i| i as f64 + 1.0));
    // Unset variables start as zeros; the counter counts calls.
    let p = load("accumulate.sexp");
    let mut g = Compiled::new(&p, &Dims::new()).unwrap();
    let x3 = f64s(&[3], |i| 0.5 + i as f64);
    for _ in 0..4 {
        g.call(&[&x3]).unwrap();
    }
    assert_eq!(g.shared("count").unwrap(), &Value::scalar_i64(4));
    assert_eq!(
        g.shared("total").unwrap(),
        &f64s(&[3], |i| 4.0 * (0.5 + i as f64))
    );
}

fn data_ptr(v: &ValView<'_>) -> *const f64 {
    match v {
        ValView::F64(a) => a.as_ptr(),
        _ => panic!("f64 expected"),
    }
}

#[test]
fn borrowed_results_live_in_the_executors_storage_or_borrow_the_input() {
    // Output 0 is the input itself: the result borrows the caller's array
    // (no copy; the borrow keeps the caller from writing it meanwhile).
    // Output 1 is computed into the executor's storage.
    let p = parse_program("(program id (input x (f64 N)) (output x (mul x 2.0)))").unwrap();
    let mut f = Compiled::new(&p, &Dims::new()).unwrap();
    let x = f64s(&[1000], |i| i as f64);
    let ptr_of = |v: &Value| match v {
        Value::F64(a) => a.as_ptr(),
        _ => unreachable!(),
    };
    let doubled = {
        let out = f.call(&[&x]).unwrap();
        let (a, b) = (out.get(0).unwrap(), out.get(1).unwrap());
        assert_eq!(data_ptr(a), ptr_of(&x));
        assert_eq!(a.to_value(), x);
        assert_ne!(data_ptr(b), ptr_of(&x));
        data_ptr(b)
    };
    // The next call writes its results into the same storage (which is why
    // a borrowed result is valid only until then); the borrowed output is
    // the new input.
    let y = f64s(&[1000], |i| -(i as f64));
    let out = f.call(&[&y]).unwrap();
    assert_eq!(data_ptr(out.get(0).unwrap()), ptr_of(&y));
    assert_eq!(data_ptr(out.get(1).unwrap()), doubled);
    assert_eq!(
        out.get(1).unwrap().to_value(),
        f64s(&[1000], |i| -2.0 * i as f64)
    );
    drop(out);
    assert_eq!(x, f64s(&[1000], |i| i as f64));
    // A view of an input (a reversed slice) borrows it too, with the
    // view's elements.
    let p = parse_program("(program v (input x (f64 N)) (output (slice x 2 none -1)))").unwrap();
    let mut g = Compiled::new(&p, &Dims::new()).unwrap();
    let out = g.call(&[&x]).unwrap();
    assert_eq!(
        out.get(0).unwrap().to_value(),
        f64s(&[3], |i| 2.0 - i as f64)
    );
    drop(out);
    // Owned results are the caller's to keep: they survive the next call,
    // the input one included.
    let kept = f.call_values(&[&x]).unwrap();
    f.call(&[&y]).unwrap();
    assert_eq!(kept[0], x);
    assert_eq!(kept[1], f64s(&[1000], |i| 2.0 * i as f64));
    let kept = g.call_values(&[&x]).unwrap();
    assert_eq!(kept[0], f64s(&[3], |i| 2.0 - i as f64));
}

#[test]
fn inputs_by_value_are_workspace_inputs_by_reference_are_not() {
    // exp(x) * 2 + 1: every op can run in place on x once x is dead.
    let p = parse_program("(program f (input x (f64 N)) (output (add (mul (exp x) 2.0) 1.0)))")
        .unwrap();
    let mut f = Compiled::new(&p, &Dims::new()).unwrap();
    let x = f64s(&[4096], |i| (i as f64) * 1e-3);
    let want = f.call_values(&[&x]).unwrap();
    assert_eq!(
        x,
        f64s(&[4096], |i| (i as f64) * 1e-3),
        "an input by reference was written"
    );
    let x_ptr = match &x {
        Value::F64(a) => a.as_ptr(),
        _ => unreachable!(),
    };
    // Handed over, the input's buffer holds the result: no new buffer.
    let out = f.call_owned(vec![x]).unwrap();
    let r = out.get(0).unwrap();
    assert_eq!(data_ptr(r), x_ptr);
    assert_eq!(r.to_value(), want[0]);
}

fn eqscan(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_eqscan"))
        .args(args)
        .output()
        .expect("run eqscan");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("eqscan-shared-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn run_shared_and_calls_round_trip_through_npy() {
    let prog = root().join("tests/cases/shared/stateful_rnn.sexp");
    let prog = path_str(&prog);
    let (t, n) = (4usize, 3usize);
    let (x, w, h0) = rnn_data(3 * t, n);
    let dir = scratch("rnn");
    let xs: Vec<PathBuf> = (0..3)
        .map(|k| {
            let p = dir.join(format!("x{k}.npy"));
            write_npy(&p, &rows(&x, 0, t)).unwrap();
            p
        })
        .collect();
    let wp = dir.join("w.npy");
    write_npy(&wp, &w).unwrap();
    let hp = dir.join("h0.npy");
    write_npy(&hp, &h0).unwrap();
    // The same input chunk three times: --calls 3 equals three runs, each
    // starting from the shared value the previous one wrote.
    let same_x = rows(&x, 0, t);
    let long = Value::F64(match &same_x {
        Value::F64(a) => {
            ndarray::concatenate(ndarray::Axis(0), &[a.view(), a.view(), a.view()]).unwrap()
        }
        _ => unreachable!(),
    });
    let p = parse_program(&std::fs::read_to_string(prog).unwrap()).unwrap();
    let dims: Dims = [("T".to_string(), 3 * t as i64), ("N".to_string(), n as i64)].into();
    let want = run_program(&p, vec![long, w.clone(), h0.clone()], &dims).unwrap();
    for opt in [false, true] {
        let out3 = dir.join(format!("calls3-{opt}"));
        let xin = format!("X={}", path_str(&xs[0]));
        let win = format!("W={}", path_str(&wp));
        let hin = format!("h={}", path_str(&hp));
        let mut args = vec![
            "run", prog, "--input", &xin, "--input", &win, "--shared", &hin,
        ];
        args.extend(["--calls", "3", "--out", path_str(&out3)]);
        if !opt {
            args.push("--no-opt");
        }
        let (ok, _, err) = eqscan(&args);
        assert!(ok, "{err}");
        let h3 = read_npy(&out3.join("shared_h.npy")).unwrap();
        assert!(close(&h3, &want[1]), "optimized: {opt}");
        let o = read_npy(&out3.join("out_0.npy")).unwrap();
        assert!(close(&o, &rows(&want[0], 2 * t, 3 * t)));
        // One call at a time, passing the state on through .npy files.
        let mut state = hp.clone();
        for k in 0..3 {
            let step = dir.join(format!("step{k}-{opt}"));
            let hin = format!("h={}", path_str(&state));
            let mut args = vec![
                "run", prog, "--input", &xin, "--input", &win, "--shared", &hin,
            ];
            args.extend(["--out", path_str(&step)]);
            if !opt {
                args.push("--no-opt");
            }
            let (ok, _, err) = eqscan(&args);
            assert!(ok, "{err}");
            state = step.join("shared_h.npy");
        }
        assert!(close(&read_npy(&state).unwrap(), &want[1]));
    }
    // Without --shared the state starts at zeros; --json reports it.
    let xin = format!("X={}", path_str(&xs[0]));
    let win = format!("W={}", path_str(&wp));
    let (ok, out, err) = eqscan(&["run", prog, "--input", &xin, "--input", &win, "--json"]);
    assert!(ok, "{err}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(j["shared"]["h"]["shape"], serde_json::json!([n]));
    // Bad uses are errors with a message, not panics.
    let (ok, _, err) = eqscan(&[
        "run", prog, "--input", &xin, "--input", &win, "--shared", "g=x.npy",
    ]);
    assert!(!ok && err.contains("no shared variable named 'g'"), "{err}");
    let (ok, _, err) = eqscan(&[
        "run", prog, "--input", &xin, "--input", &win, "--calls", "0",
    ]);
    assert!(!ok, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
