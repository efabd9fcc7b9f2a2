"""The Python API (SPEC §4) against NumPy: values, errors, calls, memory
and threads."""

import threading
import time
from pathlib import Path

import numpy as np
import pytest

import eqscan

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def examples() -> Path:
    """The repository's examples/ folder."""
    return REPO / "examples"

CUMSUM = """(program cumsum
  (input X (f64 T 2))
  (let S (scan (sequences X) (outputs_info (sitsot (zeros (f64 2))))
               (fn (x acc) (add acc x))))
  (output S (index S -1)))
"""

NEWTON = """(program newton
  (input A (f64 N))
  (let (X K) (scan
    (outputs_info (sitsot A) (sitsot (zeros (f64))))
    (non_sequences A)
    (n_steps 1000)
    (fn (x k a)
      (let x1 (mul 0.5 (add x (div a x))))
      (outputs x1 (add k 1.0)
        (until (lt (max (div (abs (sub (mul x1 x1) a)) a)) 1e-12))))))
  (output (index X -1) (index K -1)))
"""

ACCUMULATE = """(program accumulate
  (input x (f64 N))
  (shared total (f64 N))
  (shared count (i64))
  (update total (add total x))
  (update count (add count 1))
  (output (mul total 2.0) count))
"""


def numpy_rnn(W, U, b, X, h0):
    h, hs = h0, []
    for x in X:
        h = np.tanh(W @ h + U @ x + b)
        hs.append(h)
    return np.array(hs)


def rnn_inputs(rng, T=12, scale=0.05):
    return dict(
        W=rng.normal(size=(256, 256)) * scale,
        U=rng.normal(size=(256, 256)) * scale,
        b=rng.normal(size=256),
        X=rng.normal(size=(T, 256)),
        h0=rng.normal(size=256),
    )


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("scale", [0.05, 1e3])
def test_rnn_example_against_numpy(examples, optimize, scale):
    rng = np.random.default_rng(1)
    args = rnn_inputs(rng, scale=scale)
    f = eqscan.load(examples / "rnn.sexp").compile(optimize=optimize)
    H, last = f(**args)
    ref = numpy_rnn(**args)
    np.testing.assert_allclose(H, ref, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(last, ref[-1], rtol=1e-12, atol=1e-13)
    assert H.dtype == np.float64 and H.shape == (12, 256)


def test_optimized_and_as_written_agree(examples):
    rng = np.random.default_rng(2)
    args = rnn_inputs(rng, T=30)
    p = eqscan.load(examples / "rnn.sexp")
    a = p.compile()(**args)
    b = p.compile(optimize=False)(**args)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("T", [1, 7, 1000])
def test_cumsum_scan(T):
    rng = np.random.default_rng(T)
    X = rng.normal(size=(T, 2)) * np.array([1e-300, 1e300])
    S, last = eqscan.parse(CUMSUM).compile()(X)
    np.testing.assert_allclose(S, np.cumsum(X, axis=0), rtol=1e-12)
    np.testing.assert_allclose(last, X.sum(axis=0), rtol=1e-12)


def test_cumsum_overflows_as_numpy_does():
    X = np.full((4, 2), 1e308)
    S, _ = eqscan.parse(CUMSUM).compile()(X)
    with np.errstate(over="ignore"):
        ref = np.cumsum(X, axis=0)
    np.testing.assert_array_equal(S, ref)
    assert np.isinf(S[1:]).all()


def test_while_loop_stops_where_numpy_does():
    A = np.exp(np.linspace(-20.0, 20.0, 8))
    x, k = A.copy(), 0
    while True:
        x = 0.5 * (x + A / x)
        k += 1
        if np.max(np.abs(x * x - A) / A) < 1e-12 or k == 1000:
            break
    for optimize in (True, False):
        X, K = eqscan.parse(NEWTON).compile(optimize=optimize)(A)
        np.testing.assert_allclose(X, x, rtol=1e-15)
        np.testing.assert_allclose(X, np.sqrt(A), rtol=1e-14)
        assert K == k


def test_shared_variables_persist_across_calls():
    f = eqscan.parse(ACCUMULATE).compile()
    assert [s.name for s in f.shared] == ["total", "count"]
    assert f.get_shared("total") is None  # zeros of the sizes of the first call
    rng = np.random.default_rng(3)
    total, count = np.zeros(3), 0
    for _ in range(5):
        x = rng.normal(size=3)
        out, c = f(x)
        # The outputs read the state before this call's updates.
        np.testing.assert_allclose(out, 2 * total, rtol=1e-15)
        assert c == count
        total, count = total + x, count + 1
    np.testing.assert_allclose(f.get_shared("total"), total, rtol=1e-15)
    assert f.get_shared("count") == count


def test_set_shared_and_its_copy():
    f = eqscan.parse(ACCUMULATE).compile()
    start = np.array([1.0, 2.0, 3.0])
    f.set_shared("total", start)
    f.set_shared("count", np.array(10))
    out, c = f(np.ones(3))
    np.testing.assert_array_equal(out, 2 * start)
    assert c == 10
    # The caller's array is never written: the function keeps a copy.
    np.testing.assert_array_equal(start, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(f.get_shared("total"), [2.0, 3.0, 4.0])
    got = f.get_shared("total")
    got[:] = -1.0  # a copy: the state is unchanged
    np.testing.assert_array_equal(f.get_shared("total"), [2.0, 3.0, 4.0])


def test_set_shared_errors():
    f = eqscan.parse(ACCUMULATE, filename="acc.sexp").compile()
    with pytest.raises(eqscan.Error, match=r"acc.sexp:3:11: input 'total': expected \(f64 N\), got float32"):
        f.set_shared("total", np.zeros(3, np.float32))
    with pytest.raises(eqscan.Error, match="no shared variable named 'nope'"):
        f.set_shared("nope", np.zeros(3))
    with pytest.raises(eqscan.Error, match="no shared variable named 'nope'"):
        f.get_shared("nope")
    f.set_shared("total", np.zeros(4))
    with pytest.raises(eqscan.Error, match="acc.sexp:"):
        f(np.zeros(3))  # N is 4 by the shared variable, 3 by x


def test_positional_and_keyword_calls(examples):
    rng = np.random.default_rng(4)
    args = rnn_inputs(rng)
    f = eqscan.load(examples / "rnn.sexp").compile()
    assert [p.name for p in f.inputs] == ["W", "U", "b", "X", "h0"]
    pos = f(*args.values())
    mixed = f(args["W"], args["U"], h0=args["h0"], X=args["X"], b=args["b"])
    for x, y in zip(pos, mixed):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(TypeError, match="input 'h0' is not given"):
        f(args["W"], args["U"], args["b"], args["X"])
    with pytest.raises(TypeError, match="no input named 'Z'"):
        f(**args, Z=1.0)
    with pytest.raises(TypeError, match="'W' is given twice"):
        f(args["W"], W=args["W"], U=args["U"], b=args["b"], X=args["X"], h0=args["h0"])
    with pytest.raises(TypeError, match="takes 5 inputs"):
        f(*args.values(), 1.0)


def test_python_numbers_and_lists_are_converted():
    f = eqscan.parse("(program s (input a (f32 N)) (input k (i64)) (output (mul a 2.0) (add k 1)))").compile()
    a, k = f([1.0, 2.5], 41)
    assert a.dtype == np.float32 and k.dtype == np.int64
    np.testing.assert_array_equal(a, np.array([2.0, 5.0], np.float32))
    assert k == 42


def test_program_text_and_params(examples):
    p = eqscan.load(examples / "rnn.sexp")
    text = str(p)
    assert text.startswith("(program rnn")
    assert str(eqscan.parse(text)) == text  # canonical: printing is a fixed point
    assert p.name == "rnn"
    assert p.report is None
    X = p.inputs[3]
    assert (X.name, X.dtype, X.shape, X.type) == ("X", "float64", ("T", 256), "(f64 T 256)")
    assert [(o.name, o.shape) for o in p.outputs] == [("out_0", ("T", 256)), ("out_1", (256,))]


def test_optimize_report(examples):
    p = eqscan.load(examples / "rnn.sexp")
    opt = p.optimize(iter_limit=10, extractor="tree", dims={"T": 500})
    r = opt.report
    for key in ("program", "stop_reason", "rounds", "iterations", "egraph_nodes", "egraph_classes",
                "rules_applied", "cost_before", "cost_after", "scans_before", "scans_after", "time_ms"):
        assert key in r
    assert r["program"] == str(opt)
    assert r["iterations"] <= 10
    assert r["cost_after"] <= r["cost_before"]
    assert set(r["time_ms"]) >= {"parse", "saturate", "extract"}
    # The optimized program is itself a program that runs.
    rng = np.random.default_rng(5)
    args = rnn_inputs(rng)
    H, _ = eqscan.parse(str(opt)).compile(optimize=False)(**args)
    np.testing.assert_allclose(H, numpy_rnn(**args), rtol=1e-12, atol=1e-13)


def test_optimize_flags_are_checked(examples):
    p = eqscan.load(examples / "rnn.sexp")
    with pytest.raises(TypeError, match="unknown optimizer flag 'iterlimit'"):
        p.optimize(iterlimit=3)
    with pytest.raises(ValueError, match="extractor"):
        p.optimize(extractor="best")
    with pytest.raises(ValueError, match="time_limit"):
        p.optimize(time_limit=-1.0)
    with pytest.raises(ValueError, match="byte count"):
        p.optimize(memory_budget="lots")
    assert p.optimize(no_scan_rules=True, memory_budget="1G").report["scans_after"] == 1
    assert p.optimize(restarts=0).report["rounds"] == 1
    with pytest.raises(OverflowError):
        p.optimize(restarts=-1)
    with pytest.raises(eqscan.Error, match="nope.rules"):
        p.optimize(rules="nope.rules")


def test_attributes_survive_optimize(examples):
    p = eqscan.load(examples / "rnn.sexp")
    p.note = {"from": "test"}
    assert p.optimize(iter_limit=2).note == {"from": "test"}


def test_syntax_error_is_located():
    with pytest.raises(eqscan.Error, match=r"^prog.sexp:2:3: .*never closed"):
        eqscan.parse("(program p\n  (input a (f64 N)\n", filename="prog.sexp")


def test_unknown_op_is_located():
    with pytest.raises(eqscan.Error, match=r"^<string>:1:39: unknown op 'foo'"):
        eqscan.parse("(program x (input a (f64 N)) (output (foo a)))")


def test_load_errors(tmp_path):
    bad = tmp_path / "bad.sexp"
    bad.write_text("(program b\n  (input a (f64 N))\n  (output (add a b)))\n")
    with pytest.raises(eqscan.Error, match=rf"^{bad}:3:18: "):
        eqscan.load(bad)
    with pytest.raises(eqscan.Error, match="cannot read the file"):
        eqscan.load(tmp_path / "missing.sexp")


def test_wrong_shape_and_dtype_name_the_input(examples):
    rng = np.random.default_rng(6)
    args = rnn_inputs(rng)
    path = str(examples / "rnn.sexp")
    for optimize in (True, False):
        f = eqscan.load(path).compile(optimize=optimize)
        with pytest.raises(eqscan.Error, match=rf"^{path}:11:10: input 'h0': .*256.*3"):
            f(**{**args, "h0": np.zeros(3)})
        with pytest.raises(eqscan.Error, match=rf"^{path}:10:10: input 'X': expected \(f64 T 256\), got float32"):
            f(**{**args, "X": args["X"].astype(np.float32)})
        with pytest.raises(eqscan.Error, match=rf"^{path}:7:10: input 'W': expected \(f64 256 256\), got float64 of shape \(256,\)"):
            f(**{**args, "W": np.zeros(256)})


def test_symbolic_sizes_must_agree():
    f = eqscan.parse("(program s (input a (f64 N)) (input b (f64 N)) (output (add a b)))",
                     filename="s.sexp").compile()
    np.testing.assert_array_equal(f(np.ones(2), np.ones(2))[0], [2.0, 2.0])
    with pytest.raises(eqscan.Error, match=r"^s.sexp:1:"):
        f(np.ones(2), np.ones(3))
    # Another size at the next call is fine.
    np.testing.assert_array_equal(f(np.ones(5), np.ones(5))[0], np.full(5, 2.0))


def test_c_contiguous_inputs_are_read_in_place():
    f = eqscan.parse(CUMSUM).compile()
    rng = np.random.default_rng(7)
    X = rng.normal(size=(6, 2))
    before = X.copy()
    f(X)
    assert f.input_copies == []
    np.testing.assert_array_equal(X, before)  # never written
    ro = X.copy()
    ro.flags.writeable = False
    np.testing.assert_allclose(f(ro)[0], np.cumsum(X, 0))
    assert f.input_copies == []
    # Other layouts are copied, with the same results.
    for other in (np.asfortranarray(X), X[::2], np.tile(X, (1, 2))[:, ::2]):
        S, _ = f(other)
        np.testing.assert_allclose(S, np.cumsum(other, 0), rtol=1e-15)
        assert f.input_copies == ["X"]


def test_outputs_are_owned_and_independent():
    f = eqscan.parse(CUMSUM).compile()
    X = np.arange(8.0).reshape(4, 2)
    S1, last1 = f(X)
    assert S1.flags.writeable and S1.flags.c_contiguous
    S1[:] = -5.0
    S2, last2 = f(X)
    np.testing.assert_array_equal(S2, np.cumsum(X, 0))
    S3, _ = f(X * 2)
    np.testing.assert_array_equal(S2, np.cumsum(X, 0))  # the next call leaves S2 alone
    np.testing.assert_array_equal(S3, np.cumsum(2 * X, 0))
    assert not np.shares_memory(S2, S3)
    assert not np.shares_memory(S3, X)


def test_an_output_that_is_an_input_is_a_copy():
    f = eqscan.parse("(program i (input a (f64 N)) (output a (transpose a 0)))").compile(optimize=False)
    a = np.arange(3.0)
    x, y = f(a)
    np.testing.assert_array_equal(x, a)
    x[0] = 9.0
    assert a[0] == 0.0 and not np.shares_memory(x, a) and not np.shares_memory(y, a)


@pytest.mark.parametrize(
    "dtype, ty", [(np.float32, "f32"), (np.int32, "i32"), (np.int64, "i64"), (np.bool_, "bool")]
)
def test_dtypes(dtype, ty):
    f = eqscan.parse(f"(program d (input a ({ty} N)) (output a (max a)))").compile()
    a = np.array([1, 0, 1, 1], dtype=dtype)
    x, m = f(a)
    assert x.dtype == dtype and m.dtype == dtype
    np.testing.assert_array_equal(x, a)
    assert m == a.max()


def test_int32_wraps_as_numpy():
    f = eqscan.parse("(program w (input a (i32 N)) (output (add a a)))").compile()
    a = np.array([2**31 - 1, -(2**31)], dtype=np.int32)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(f(a)[0], a + a)


def test_failing_op_is_located():
    f = eqscan.parse("(program f (input a (f64 N)) (input b (f64 M))\n  (output (dot a b)))",
                     filename="f.sexp").compile(optimize=False)
    with pytest.raises(eqscan.Error, match=r"^f.sexp:2:11: "):
        f(np.ones(2), np.ones(3))


def test_the_gil_is_released_while_a_program_runs():
    long = """(program long (input W (f64 200 200)) (input h0 (f64 200))
      (let H (scan (outputs_info (sitsot h0)) (non_sequences W h0) (n_steps 20000)
                   (fn (h w b) (tanh (add (dot w h) b)))))
      (output (index H -1)))"""
    f = eqscan.parse(long).compile(optimize=False)
    rng = np.random.default_rng(8)
    W, h0 = rng.normal(size=(200, 200)) * 0.05, rng.normal(size=200)
    window = {}

    def work():
        window["start"] = time.perf_counter()
        window["out"] = f(W, h0)
        window["end"] = time.perf_counter()

    t = threading.Thread(target=work)
    ticks = []
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
    t.join()
    inside = [x for x in ticks if window["start"] < x < window["end"]]
    duration = window["end"] - window["start"]
    assert duration > 0.05, "the program ran too fast to tell"
    # With the GIL held, this thread could not tick during the call at all
    # (at most one switch interval, 5 ms, before the call).
    assert len(inside) > 100
    assert inside[-1] - inside[0] > 0.5 * duration
    h = h0
    for _ in range(20000):
        h = np.tanh(W @ h + h0)
    np.testing.assert_allclose(window["out"][0], h, rtol=1e-10, atol=1e-12)


def test_concurrent_calls_of_one_function():
    f = eqscan.parse(CUMSUM).compile()
    rng = np.random.default_rng(9)
    xs = [rng.normal(size=(200, 2)) for _ in range(8)]
    results = [None] * 8

    def work(k):
        for _ in range(20):
            results[k] = f(xs[k])[0]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, r in zip(xs, results):
        np.testing.assert_allclose(r, np.cumsum(x, 0), rtol=1e-14)
