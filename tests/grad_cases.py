#!/usr/bin/env python3
"""PyTensor's values for the gradient cases of eqscan (tests/cases/grad).

Each case `tests/cases/grad/NAME.sexp` is read and built as a PyTensor graph
by a small evaluator of eqscan's program language (below: every op of SPEC
§1, `scan` with every clause, `grad` as `pytensor.grad`, `stop_gradient` as
`pytensor.gradient.disconnected_grad`), then run on the inputs of eqscan's
data rule (`numpy_cases.make_inputs`, the same values `generate_inputs`
gives). The evaluator is written from the language's definition, not from
eqscan's code, so PyTensor is an independent oracle.

    /work/venv/bin/python tests/grad_cases.py            # check every case
    /work/venv/bin/python tests/grad_cases.py --only NAME ...

For every case it prints what it did:

- `wrt:` header: PyTensor's gradients are compared with central finite
  differences of PyTensor's L (the check `tests/grad_cases.rs` makes of
  eqscan), which validates the case itself: no kink or tie within reach of
  the step, gradients in the right order. A case whose PyTensor gradient
  is known to differ (`PYTENSOR_DIFFERS`: PyTensor's NaN in the cumprod
  gradient at a zero) is reported, not failed.
- Cases listed in `EXPECTED` (ties and kinks where finite differences are
  undefined, gradients with respect to let-bound values, stop_gradient,
  f32 costs, the ports of PyTensor's scan-gradient tests `pt_G*`, and the
  gradients through MIT-MOT states `mitmot_*`, whose user-written MIT-MOT
  loops pytensor.scan cannot build: `unrolled_scan` writes their steps out):
  every output is written to `NAME.expected/out_K.npy`, which
  `tests/grad_cases.rs` compares eqscan's outputs with.

Exit status 1 when a case fails to build or a check fails.
"""
import argparse
import os
import re
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy_cases  # noqa: E402  (the data rule and the s-expression reader)

os.environ.setdefault("PYTENSOR_FLAGS", "floatX=float64")
import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor.gradient import disconnected_grad  # noqa: E402

CASES = os.path.join(HERE, "cases", "grad")
MODE = pytensor.compile.mode.get_mode("FAST_RUN")

# Cases PyTensor cannot build, checked by tests/grad_cases.rs against finite
# differences only.
NO_ORACLE = {
    "op_random_draws": "eqscan's keys and Philox4x32-10 draws have no PyTensor counterpart",
    "loop_key_state": "eqscan's keys and Philox4x32-10 draws have no PyTensor counterpart",
}

# Cases whose outputs are stored as NAME.expected/out_K.npy.
EXPECTED = {
    "op_tie_maximum", "op_tie_minimum", "op_tie_max_reduce", "op_tie_min_reduce",
    "op_tie_abs_zero", "op_tie_maximum_self", "op_let_bound", "op_let_twice",
    "op_let_total", "op_stop_gradient", "op_cast_f32", "op_cast_int",
    "op_f32_cost", "op_tie_pow_zero_base", "loop_keep_last_steps",
} | {f[:-5] for f in os.listdir(os.path.join(HERE, "cases", "grad"))
     if f.startswith(("pt_G", "mitmot_")) and f.endswith(".sexp")}
# Cases where PyTensor's gradient is known to differ from the exact one
# eqscan gives (issue 13: the zero-safe cumprod gradient): finite
# differences only.
PYTENSOR_DIFFERS = {"op_cumprod_zero"}

FD_STEP, FD_RTOL, FD_ATOL, FD_ALL = 1e-5, 1e-6, 1e-6, 16
DT = {"f64": "float64", "f32": "float32", "i64": "int64", "bool": "bool"}


def is_int(tok):
    return isinstance(tok, str) and re.fullmatch(r"[+-]?\d+", tok) is not None


def literal(tok):
    """A literal token as a Python value (weak, like NEP 50 scalars), or None."""
    if not isinstance(tok, str):
        return None
    if is_int(tok):
        return int(tok)
    if tok in ("inf", "-inf", "nan"):
        return float(tok)
    if tok in ("true", "false"):
        return tok == "true"
    try:
        return float(tok)
    except ValueError:
        return None


class Program:
    """One case: its graph built in PyTensor."""

    def __init__(self, sexp, dims):
        assert sexp[0] == "program"
        self.name = sexp[1]
        self.dims = dims
        self.inputs = []      # (name, dtype, shape, variable)
        self.outputs = None
        env = {}
        for clause in sexp[2:]:
            head = clause[0]
            if head == "input":
                name, ty = clause[1], clause[2]
                shape = self.shape(ty[1:])
                v = pt.tensor(name=name, dtype=DT[ty[0]], shape=shape)
                self.inputs.append((name, ty[0], shape, v))
                env[name] = v
            elif head == "let":
                self.let(clause, env)
            elif head == "output":
                self.outputs = [self.expr(e, env) for e in clause[1:]]
            else:
                raise ValueError(f"unknown clause {head}")

    def size(self, d):
        return int(d) if is_int(d) else self.dims[d]

    def shape(self, ds):
        return tuple(self.size(d) for d in ds)

    def let(self, clause, env):
        target, e = clause[1], clause[2]
        if isinstance(target, list):
            values = self.multi(e, env)
            assert len(values) == len(target), clause
            for n, v in zip(target, values):
                env[n] = v
        else:
            env[target] = self.expr(e, env)

    def multi(self, e, env):
        """An expression with several values: scan or grad."""
        if e[0] == "scan":
            return self.scan(e[1:], env)
        if e[0] == "grad":
            return self.grad(e[1:], env)
        raise ValueError(f"{e[0]} has one value")

    def grad(self, args, env):
        cost = self.expr(args[0], env)
        wrt = [env[n] for n in args[1:]]
        gs = pytensor.grad(cost, wrt, disconnected_inputs="ignore",
                           return_disconnected="zero")
        return [pt.cast(g, w.dtype) for g, w in zip(gs, wrt)]

    def scan(self, clauses, env):
        seqs, outs, nonseqs, n_steps, backwards, fn = [], [], [], None, False, None
        keep = []
        for c in clauses:
            h = c[0]
            if h == "sequences":
                for s in c[1:]:
                    if isinstance(s, list) and len(s) == 2 and isinstance(s[1], list) \
                            and s[1] and s[1][0] == "taps":
                        seqs.append(dict(input=self.expr(s[0], env),
                                         taps=[int(t) for t in s[1][1:]]))
                    else:
                        seqs.append(dict(input=self.expr(s, env), taps=[0]))
            elif h == "outputs_info":
                for o in c[1:]:
                    # A trailing (keep K): the output is its last K steps.
                    last = o[-1]
                    if isinstance(last, list) and last and last[0] == "keep":
                        keep.append(int(last[1]))
                        o = o[:-1]
                    else:
                        keep.append(None)
                    if o[0] == "sitsot":
                        outs.append(dict(initial=self.expr(o[1], env), taps=[-1]))
                    elif o[0] == "mitsot":
                        outs.append(dict(initial=self.expr(o[1], env),
                                         taps=[int(t) for t in o[2][1:]]))
                    elif o[0] == "nitsot":
                        outs.append(None)
                    elif o[0] == "mitmot":
                        outs.append(dict(tape=self.expr(o[1], env),
                                         in_taps=[int(t) for t in o[2][1:]],
                                         out_taps=[int(t) for t in o[3][1:]]))
                    else:
                        raise ValueError(f"outputs_info {o[0]}")
            elif h == "non_sequences":
                nonseqs = [self.expr(x, env) for x in c[1:]]
            elif h == "n_steps":
                n_steps = self.expr(c[1], env)
            elif h == "go_backwards":
                backwards = True
            elif h == "fn":
                fn = c
            else:
                raise ValueError(f"scan clause {h}")
        params, body = fn[1], fn[2:]
        n_out = len(outs) if outs else None

        def step(*args):
            inner = dict(env)
            assert len(args) == len(params), (params, len(args))
            for n, a in zip(params, args):
                inner[n] = a
            for c in body[:-1]:
                self.let(c, inner)
            last = body[-1]
            if isinstance(last, list) and last and last[0] == "outputs":
                return [self.expr(x, inner) for x in last[1:]]
            return [self.expr(last, inner)]

        if any(o is not None and "tape" in o for o in outs):
            return unrolled_scan(seqs, outs, nonseqs, n_steps, backwards, step)
        if not outs:
            outs = None
        res = pytensor.scan(step, sequences=seqs, outputs_info=outs,
                            non_sequences=nonseqs, n_steps=n_steps,
                            go_backwards=backwards, return_updates=False,
                            return_list=True)
        if n_out is not None:
            assert len(res) == n_out
        return [r if k is None else r[-k:] for r, k in zip(res, keep + [None] * len(res))]

    def expr(self, e, env):
        if not isinstance(e, list):
            lit = literal(e)
            if lit is not None:
                return lit
            if e in env:
                return env[e]
            if e in self.dims:
                return pt.constant(np.int64(self.dims[e]))
            raise KeyError(e)
        head, args = e[0], e[1:]
        x = lambda i: self.expr(args[i], env)  # noqa: E731
        un = {"neg": lambda a: -a, "exp": pt.exp, "log": pt.log, "log1p": pt.log1p,
              "sqrt": pt.sqrt, "tanh": pt.tanh, "sigmoid": pt.sigmoid, "sin": pt.sin,
              "cos": pt.cos, "abs": pt.abs, "sign": pt.sign,
              "stop_gradient": disconnected_grad}
        bi = {"add": pt.add, "sub": pt.sub, "mul": pt.mul, "div": pt.true_div,
              "pow": pt.pow, "maximum": pt.maximum, "minimum": pt.minimum,
              "gt": pt.gt, "ge": pt.ge, "lt": pt.lt, "le": pt.le, "eq": pt.eq,
              "ne": pt.neq, "dot": pt.dot, "matmul": pt.matmul}
        red = {"sum": pt.sum, "mean": pt.mean, "max": pt.max, "min": pt.min,
               "prod": pt.prod}
        if head in un:
            return un[head](pt.as_tensor_variable(x(0)))
        if head in bi:
            a, b = x(0), x(1)
            if head in ("add", "sub", "mul", "div", "pow") and not hasattr(a, "type") \
                    and not hasattr(b, "type"):
                return {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b,
                        "pow": a ** b}[head]
            if head in ("add", "sub", "mul", "div", "pow", "maximum", "minimum"):
                # Weak literals take the tensor's dtype (NEP 50).
                if not hasattr(a, "type"):
                    a = pt.constant(a, dtype=self.weak(a, b))
                if not hasattr(b, "type"):
                    b = pt.constant(b, dtype=self.weak(b, a))
            return bi[head](a, b)
        if head in red:
            axis = int(args[1]) if len(args) > 1 else None
            return red[head](x(0), axis=axis)
        if head == "where":
            return pt.switch(x(0), x(1), x(2))
        if head == "transpose":
            perm = [int(a) for a in args[1:]] or None
            return pt.transpose(x(0), perm)
        if head == "reshape":
            return pt.reshape(x(0), [int(a) if is_int(a) else self.size(a) for a in args[1:]])
        if head == "expand_dims":
            return pt.expand_dims(x(0), int(args[1]))
        if head == "stack":
            return pt.stack([self.expr(a, env) for a in args])
        if head == "concat":
            return pt.concatenate([self.expr(a, env) for a in args[1:]], axis=int(args[0]))
        if head == "index":
            idx = tuple(self.expr(a, env) for a in args[1:])
            return x(0)[idx]
        if head == "slice":
            b = [None if a == "none" else int(a) for a in args[1:]]
            while len(b) < 3:
                b.append(None)
            return x(0)[b[0]:b[1]:b[2]]
        if head == "fill":
            ty = args[0]
            v = pt.cast(self.expr(args[1], env), DT[ty[0]])
            return pt.alloc(v, *self.shape(ty[1:])) if len(ty) > 1 else v
        if head in ("zeros", "ones"):
            ty = args[0]
            f = np.zeros if head == "zeros" else np.ones
            return pt.constant(f(self.shape(ty[1:]), dtype=DT[ty[0]]))
        if head == "tensor":
            ty = args[0]
            vals = [literal(a) for a in args[1:]]
            return pt.constant(np.array(vals, dtype=DT[ty[0]]).reshape(self.shape(ty[1:])))
        if head == "arange":
            return pt.arange(self.size(args[0]), dtype="int64")
        if head == "cast":
            return pt.cast(x(1), DT[args[0]])
        if head in ("cumsum", "cumprod"):
            axis = int(args[1]) if len(args) > 1 else 0
            return (pt.cumsum if head == "cumsum" else pt.cumprod)(x(0), axis=axis)
        if head == "linrec":
            # h_t = a_t * h_{t-1} + u_t over axis 0, as a PyTensor scan.
            a, u, h0 = x(0), x(1), x(2)
            a = pt.broadcast_to(a, u.shape)
            h0 = pt.broadcast_to(h0, u.shape[1:])
            dt = pytensor.scalar.upcast(a.dtype, u.dtype, h0.dtype, "float32")
            hs, _ = pytensor.scan(lambda at, ut, h: at * h + ut,
                                  sequences=[pt.cast(a, dt), pt.cast(u, dt)],
                                  outputs_info=pt.cast(h0, dt))
            return hs
        if head in ("map", "reduce", "foldl", "scanl", "foldr", "scanr"):
            return self.combinator(head, args, env)
        if head in ("scan", "grad"):
            vals = self.multi(e, env)
            assert len(vals) == 1, f"{head} with several values in one place"
            return vals[0]
        raise ValueError(f"unknown op {head}")

    def step_fn(self, fn, env):
        """A `(fn (PARAM ...) (let ...) ... BODY)` as a Python step function."""
        params, body = fn[1], fn[2:]

        def step(*args):
            inner = dict(env)
            for n, a in zip(params, args):
                inner[n] = a
            for c in body[:-1]:
                self.let(c, inner)
            last = body[-1]
            if isinstance(last, list) and last and last[0] == "outputs":
                return [self.expr(x, inner) for x in last[1:]]
            return self.expr(last, inner)
        return step

    def combinator(self, head, args, env):
        """map and the folds (SPEC §1), as pytensor.scan loops."""
        step = self.step_fn(args[0], env)
        if head == "map":
            seqs = [self.expr(a, env) for a in args[1:]]
            return pytensor.scan(step, sequences=seqs, return_updates=False)
        init, xs = self.expr(args[1], env), self.expr(args[2], env)
        backwards = head in ("foldr", "scanr")
        out = pytensor.scan(step, sequences=[xs], outputs_info=[init],
                            go_backwards=backwards, return_updates=False)
        if head in ("reduce", "foldl", "foldr"):
            return out[-1]
        return out[::-1] if head == "scanr" else out

    @staticmethod
    def weak(lit, other):
        """The dtype a weak literal takes next to `other` (NEP 50)."""
        if not hasattr(other, "type"):
            return "float64" if isinstance(lit, float) else "int64"
        od = other.dtype
        if isinstance(lit, float) and od.startswith(("int", "bool")):
            return "float64"
        return od


def static_int(v):
    """A step count or a length known when the graph is built."""
    if isinstance(v, (int, np.integer)):
        return int(v)
    return int(pytensor.tensor.get_underlying_scalar_constant_value(v))


def static_len(x):
    n = x.type.shape[0]
    return int(n) if n is not None else static_int(x.shape[0])


def unrolled_scan(seqs, outs, nonseqs, n_steps, backwards, step):
    """A scan with a MIT-MOT state, which pytensor.scan cannot build, as
    its steps written one after the other (every length is static here),
    from SPEC §1's definition: with m = min(in_taps), step i reads slot
    (i - m + T) mod L at each in tap T, then writes slot i - m + S at each
    out tap S; the value is the whole tape. Other outputs as scan's."""
    xs = [dict(input=s["input"][::-1] if backwards else s["input"], taps=s["taps"])
          for s in seqs]
    if n_steps is not None:
        n = static_int(n_steps)
    else:
        n = min(static_len(s["input"]) - (max(s["taps"] + [0]) - min(s["taps"] + [0]))
                for s in xs)
    hist = []  # per output: rows written so far, the tape, or the init rows
    for o in outs:
        if o is None:
            hist.append([])
        elif "tape" in o:
            hist.append(o["tape"])
        elif o["taps"] == [-1]:
            hist.append([o["initial"]])
        else:
            init = o["initial"]
            hist.append([init[r] for r in range(-min(o["taps"]))])
    for i in range(n):
        args = []
        for s in xs:
            lo = min(s["taps"] + [0])
            args.extend(s["input"][i + t - lo] for t in s["taps"])
        for o, h in zip(outs, hist):
            if o is None:
                continue
            if "tape" in o:
                base, length = i - min(o["in_taps"]), static_len(o["tape"])
                args.extend(h[(base + t) % length] for t in o["in_taps"])
            else:
                args.extend(h[len(h) + t] for t in o["taps"])
        args.extend(nonseqs)
        res = list(step(*args))
        for k, o in enumerate(outs):
            if o is not None and "tape" in o:
                base = i - min(o["in_taps"])
                for t in o["out_taps"]:
                    hist[k] = pt.set_subtensor(hist[k][base + t], res.pop(0))
            else:
                hist[k].append(res.pop(0))
        assert not res
    values = []
    for o, h in zip(outs, hist):
        if o is not None and "tape" in o:
            values.append(h)
        elif o is None:
            values.append(pt.stack(h))
        else:
            values.append(pt.stack(h[len(h) - n:]))
    return values


def read_program(path):
    inputs, dims, scales = numpy_cases.read_case(path)
    text = open(path, encoding="utf-8").read()
    (sexp,) = numpy_cases.read_sexp(numpy_cases.tokenize(text))
    wrt = []
    for line in text.splitlines():
        m = re.match(r"\s*;\s*wrt:(.*)$", line)
        if m:
            wrt = m.group(1).split()
            break
    return sexp, inputs, dims, scales, wrt


def fd_positions(n):
    if n <= FD_ALL:
        return list(range(n))
    return [j * (n - 1) // (FD_ALL - 1) for j in range(FD_ALL)]


def fd_check(f, values, names, wrt, outs):
    """The Rust harness's check, on PyTensor's function: a list of problems."""
    problems = []
    cost = float(outs[0])
    for j, w in enumerate(wrt):
        k = names.index(w)
        g = np.asarray(outs[1 + j]).ravel()
        x = values[k]
        fds = []
        for pos in fd_positions(x.size):
            h = FD_STEP * max(1.0, abs(float(x.ravel()[pos])))
            vals = []
            for d in (h, -h):
                moved = [v.copy() for v in values]
                moved[k].reshape(-1)[pos] += d
                vals.append(float(f(*moved)[0]))
            fds.append((pos, (vals[0] - vals[1]) / (2 * h)))
        scale = max([abs(cost), 1.0] + [abs(v) for _, v in fds])
        for pos, fd in fds:
            if not abs(g[pos] - fd) <= FD_RTOL * abs(fd) + FD_ATOL * scale:
                problems.append(f"d/d{w}[{pos}]: pytensor {g[pos]!r}, fd {fd!r}")
    return problems


def run_case(path, write):
    name = os.path.basename(path)[:-5]
    sexp, inputs, dims, scales, wrt = read_program(path)
    values = list(numpy_cases.make_inputs(inputs, dims, scales).values())
    prog = Program(sexp, dims)
    f = pytensor.function([v for *_, v in prog.inputs], prog.outputs, mode=MODE,
                          on_unused_input="ignore")
    outs = [np.asarray(o) for o in f(*values)]
    problems = []
    if wrt:
        problems = fd_check(f, values, [n for n, *_ in prog.inputs], wrt, outs)
    exp_dir = path[:-5] + ".expected"
    if name in EXPECTED:
        if write:
            shutil.rmtree(exp_dir, ignore_errors=True)
            os.makedirs(exp_dir)
            for k, o in enumerate(outs):
                np.save(os.path.join(exp_dir, f"out_{k}.npy"), o)
    elif os.path.isdir(exp_dir) and write and "; reference: jax" not in open(path).read():
        # (a `; reference: jax` case's expected outputs are JAX's:
        # tests/jax_models.py writes them)
        shutil.rmtree(exp_dir)
    return name, problems, outs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="+", metavar="NAME")
    p.add_argument("--no-write", action="store_true", help="check only")
    a = p.parse_args(argv)
    files = sorted(f for f in os.listdir(CASES) if f.endswith(".sexp"))
    failed = 0
    for fname in files:
        name = fname[:-5]
        if a.only and name not in a.only:
            continue
        if name in NO_ORACLE:
            print(f"{name}: skipped: {NO_ORACLE[name]}")
            continue
        try:
            name, problems, outs = run_case(os.path.join(CASES, fname), not a.no_write)
        except Exception as e:  # report every case, then fail
            print(f"{name}: ERROR {type(e).__name__}: {e}")
            failed += 1
            continue
        tag = "expected written" if name in EXPECTED else ""
        if problems and name in PYTENSOR_DIFFERS:
            print(f"{name}: pytensor differs from fd as known ({len(problems)}): {problems[0]}")
        elif problems:
            print(f"{name}: FAIL {len(problems)} fd mismatches: " + "; ".join(problems[:3]))
            failed += 1
        else:
            print(f"{name}: ok {tag}")
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
