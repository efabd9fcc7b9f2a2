#!/usr/bin/env python3
"""How long eqscan takes to convert and optimize a model graph with three
scans and their gradients (issue 39: at most 100 ms), and the overhead of
`pytensor.function(..., mode="EQSCAN")` as a whole.

  python3 benches/python_convert.py [--reps 7]

The model: an AR(1) log-likelihood, a GARCH(1,1) log-likelihood and an HMM
forward pass (logsumexp), each a `pytensor.scan` as users write them, summed,
with the gradient with respect to every parameter (three backward scans).
Prints medians in ms: from_pytensor, optimize, compile of the optimized
program, and PyTensor's own default-mode compile for scale.
"""
import argparse

from pytensor_common import scan, median_ms




def model():
    import pytensor
    import pytensor.tensor as pt
    y = pt.vector("y")
    rho = pt.scalar("rho")
    sigma = pt.scalar("sigma")
    mu = scan(lambda y_tm1, rho: rho * y_tm1, sequences=y[:-1], non_sequences=rho)
    ar1 = pt.sum(-0.5 * ((y[1:] - mu) / sigma) ** 2 - pt.log(sigma))

    r = pt.vector("r")
    omega = pt.scalar("omega")
    alpha = pt.scalar("alpha")
    beta = pt.scalar("beta")
    sig = scan(lambda r_tm1, s_tm1, om, al, be: pt.sqrt(om + al * r_tm1 ** 2 + be * s_tm1 ** 2),
               sequences=r[:-1], outputs_info=pt.sqrt(omega / (1 - alpha - beta)),
               non_sequences=[omega, alpha, beta])
    garch = pt.sum(-0.5 * (r[1:] / sig) ** 2 - pt.log(sig))

    obs_logp = pt.matrix("obs_logp")
    log_P = pt.matrix("log_P")
    log_pi = pt.vector("log_pi")
    alpha_t = scan(lambda lp, a, lP: lp + pt.logsumexp(a[:, None] + lP, axis=0),
                   sequences=obs_logp[1:], outputs_info=log_pi + obs_logp[0],
                   non_sequences=log_P)
    hmm = pt.logsumexp(alpha_t[-1])

    total = ar1 + garch + hmm
    params = [rho, sigma, omega, alpha, beta, log_P, log_pi]
    inputs = [y, rho, sigma, r, omega, alpha, beta, obs_logp, log_P, log_pi]
    return inputs, [total] + pytensor.grad(total, params)




def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    import pytensor
    import eqscan
    import eqscan.pytensor  # noqa: F401

    inputs, outputs = model()
    prog = eqscan.from_pytensor(outputs, inputs)
    opt = prog.optimize()
    conv = median_ms(lambda: eqscan.from_pytensor(outputs, inputs), args.reps)
    optm = median_ms(lambda: prog.optimize(), args.reps)
    comp = median_ms(lambda: opt.compile(optimize=False), args.reps)
    eq_fn = median_ms(lambda: pytensor.function(inputs, outputs, mode="EQSCAN"), args.reps)
    pt_fn = median_ms(lambda: pytensor.function(inputs, outputs), 3)
    scans = str(prog).count("(scan")
    print(f"scans in the converted program: {scans}; in the optimized: {str(opt).count('(scan')}")
    print(f"from_pytensor {conv:.1f} ms, optimize {optm:.1f} ms, compile {comp:.1f} ms: "
          f"convert+optimize {conv + optm:.1f} ms (issue 39: <= 100)")
    print(f"pytensor.function mode=EQSCAN {eq_fn:.1f} ms; default mode {pt_fn:.1f} ms")


if __name__ == "__main__":
    main()
