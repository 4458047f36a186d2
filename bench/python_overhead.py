#!/usr/bin/env python3
"""Per-call host overhead from Python: ndcuda beside CuPy and PyTorch, in one process.

    python3 bench/python_overhead.py [--out FILE.csv] [--markdown FILE.md]

Cases (each timed the same way for the three libraries):
  add_1000_f32      a + b, two 1000-element float32 arrays (a new result each call)
  sum_1000_f32      a.sum(), a full reduction of the same array to a 0-d array
  slice_view        a[10:500], a basic slice (a view, no device work)
  matmul_16_f32     a 16x16 float32 matrix product

Beside them, ndcuda's own C share of the add, timed in the same process by a loop in the
extension (no Python per call): `add_1000_f32 C` makes a new result and releases it as the
operator does, `add_1000_f32 C out` writes into an existing array (dispatch and launch only,
the floor of any op that launches a kernel). The operator's time less `C` is what the Python
layer adds; `C` less `C out` is the result's allocation and release.

Method: per case, 5 warm-up batches, then 21 batches of 256 calls each timed with
time.perf_counter and divided by 256; the device is synchronised between batches (not inside
one), so a batch measures what a Python loop pays per call while the GPU keeps up. The
median and minimum per-call time in microseconds are reported. The ratio column is
ndcuda / CuPy. The GPU name and date are printed first.
"""

import argparse
import csv
import datetime
import statistics
import sys
import time

import numpy as np

BATCH = 256
REPS = 21
WARMUP = 5


def timeit(fn, sync, batch_fn=None):
    """Median and minimum us per call of fn over REPS batches of BATCH calls; batch_fn(n), when
    given, makes the n calls itself (a loop in C)."""
    run = batch_fn if batch_fn is not None else lambda n: [fn() for _ in range(n)]
    for _ in range(WARMUP):
        run(BATCH)
        sync()
    times = []
    for _ in range(REPS):
        sync()
        t0 = time.perf_counter()
        run(BATCH)
        t1 = time.perf_counter()
        sync()
        times.append((t1 - t0) / BATCH * 1e6)
    return statistics.median(times), min(times)


def cases_ndcuda():
    import ndcuda as nd
    a = nd.asarray(np.random.default_rng(0).random(1000, dtype=np.float32))
    b = nd.asarray(np.random.default_rng(1).random(1000, dtype=np.float32))
    m = nd.asarray(np.random.default_rng(2).random((16, 16), dtype=np.float32))
    sync = nd.synchronize
    return sync, {
        "add_1000_f32": lambda: a + b,
        "sum_1000_f32": lambda: a.sum(),
        "slice_view": lambda: a[10:500],
        "matmul_16_f32": lambda: m @ m,
    }


def c_cases_ndcuda():
    """The C library's share of the small add, looped in the extension (see the docstring)."""
    import ndcuda as nd
    from ndcuda import _core
    a = nd.asarray(np.random.default_rng(0).random(1000, dtype=np.float32))
    b = nd.asarray(np.random.default_rng(1).random(1000, dtype=np.float32))
    c = nd.empty_like(a)
    return nd.synchronize, {
        "add_1000_f32 C": lambda n: _core._c_add_loop(a, b, None, n),
        "add_1000_f32 C out": lambda n: _core._c_add_loop(a, b, c, n),
    }


def cases_cupy():
    import cupy as cp
    a = cp.asarray(np.random.default_rng(0).random(1000, dtype=np.float32))
    b = cp.asarray(np.random.default_rng(1).random(1000, dtype=np.float32))
    m = cp.asarray(np.random.default_rng(2).random((16, 16), dtype=np.float32))
    sync = cp.cuda.Device().synchronize
    return sync, {
        "add_1000_f32": lambda: a + b,
        "sum_1000_f32": lambda: a.sum(),
        "slice_view": lambda: a[10:500],
        "matmul_16_f32": lambda: m @ m,
    }


def cases_torch():
    import torch
    a = torch.rand(1000, device="cuda", dtype=torch.float32)
    b = torch.rand(1000, device="cuda", dtype=torch.float32)
    m = torch.rand((16, 16), device="cuda", dtype=torch.float32)
    sync = torch.cuda.synchronize
    return sync, {
        "add_1000_f32": lambda: a + b,
        "sum_1000_f32": lambda: a.sum(),
        "slice_view": lambda: a[10:500],
        "matmul_16_f32": lambda: m @ m,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    import ndcuda
    if not ndcuda.is_available():
        print("python_overhead: no CUDA device", file=sys.stderr)
        return 77
    results = {}
    for lib, make in (("ndcuda", cases_ndcuda), ("cupy", cases_cupy), ("torch", cases_torch)):
        try:
            sync, cases = make()
        except ImportError as e:
            print(f"{lib}: not installed ({e})")
            continue
        for name, fn in cases.items():
            results[(lib, name)] = timeit(fn, sync)
        if lib == "ndcuda":
            sync, loops = c_cases_ndcuda()
            for name, loop in loops.items():
                results[(lib, name)] = timeit(None, sync, batch_fn=loop)
    try:
        import torch
        gpu = torch.cuda.get_device_name()
    except Exception:  # noqa: BLE001 - the name is informative only
        gpu = "unknown GPU"
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    names = ["add_1000_f32", "sum_1000_f32", "slice_view", "matmul_16_f32", "add_1000_f32 C",
             "add_1000_f32 C out"]
    lines = [f"Python per-call overhead, {gpu}, {date}, Python {sys.version.split()[0]}",
             "", "| case | ndcuda us | CuPy us | PyTorch us | ndcuda/CuPy |",
             "|---|---|---|---|---|"]
    rows = []
    for n in names:
        nd_ = results.get(("ndcuda", n), (float("nan"),) * 2)
        cp_ = results.get(("cupy", n), (float("nan"),) * 2)
        th_ = results.get(("torch", n), (float("nan"),) * 2)
        ratio = nd_[0] / cp_[0] if cp_[0] == cp_[0] else float("nan")
        fmt = lambda v: "-" if v != v else f"{v:.2f}"  # noqa: E731 - NaN: no such case
        lines.append(f"| {n} | {fmt(nd_[0])} | {fmt(cp_[0])} | {fmt(th_[0])} | {fmt(ratio)} |")
        rows.append([n, nd_[0], nd_[1], cp_[0], cp_[1], th_[0], th_[1], ratio])
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["case", "ndcuda_median_us", "ndcuda_min_us", "cupy_median_us",
                        "cupy_min_us", "torch_median_us", "torch_min_us", "ndcuda_over_cupy"])
            w.writerows(rows)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
