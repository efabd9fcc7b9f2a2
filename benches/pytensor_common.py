"""What the PyTensor bench scripts share (pytensor_programs.py,
python_layers.py, python_convert.py): `pytensor.scan` on either side of
3.x's `return_updates` change, and the median timer."""
import inspect
import statistics
import time


def scan(fn, **kw):
    """`pytensor.scan` returning its outputs only."""
    import pytensor
    if "return_updates" in inspect.signature(pytensor.scan).parameters:
        return pytensor.scan(fn, return_updates=False, **kw)
    return pytensor.scan(fn, **kw)[0]


def scan_with_updates(fn, **kw):
    """`pytensor.scan` returning (outputs, updates)."""
    import pytensor
    if "return_updates" in inspect.signature(pytensor.scan).parameters:
        return pytensor.scan(fn, return_updates=True, **kw)
    return pytensor.scan(fn, **kw)


def median_ms(f, reps):
    """The median of `reps` timed calls of `f`, in ms, after one warm-up."""
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3
