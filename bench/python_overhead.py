#!/usr/bin/env python3
"""Per-call host overhead from Python: ndcuda beside CuPy and PyTorch, in one process.

    python3 bench/python_overhead.py [--out FILE.csv] [--markdown FILE.md]

Cases (each timed the same way for the three libraries):
  add_1000_f32      a + b, two 1000-element float32 arrays (a new result each call)
  sum_1000_f32      a.sum(), a full reduction of the same array to a 0-d array
  slice_view        a[10:500], a basic slice (a view, no device work)
  matmul_16_f32     a 16x16 float32 matrix product

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


def timeit(fn, sync):
    for _ in range(WARMUP):
        for _ in range(BATCH):
            fn()
        sync()
    times = []
    for _ in range(REPS):
        sync()
        t0 = time.perf_counter()
        for _ in range(BATCH):
            fn()
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
    try:
        import torch
        gpu = torch.cuda.get_device_name()
    except Exception:  # noqa: BLE001 - the name is informative only
        gpu = "unknown GPU"
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    names = ["add_1000_f32", "sum_1000_f32", "slice_view", "matmul_16_f32"]
    lines = [f"Python per-call overhead, {gpu}, {date}, Python {sys.version.split()[0]}",
             "", "| case | ndcuda us | CuPy us | PyTorch us | ndcuda/CuPy |",
             "|---|---|---|---|---|"]
    rows = []
    for n in names:
        nd_ = results.get(("ndcuda", n), (float("nan"),) * 2)
        cp_ = results.get(("cupy", n), (float("nan"),) * 2)
        th_ = results.get(("torch", n), (float("nan"),) * 2)
        ratio = nd_[0] / cp_[0] if cp_[0] == cp_[0] else float("nan")
        lines.append(f"| {n} | {nd_[0]:.2f} | {cp_[0]:.2f} | {th_[0]:.2f} | {ratio:.2f} |")
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
