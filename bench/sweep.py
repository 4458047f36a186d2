#!/usr/bin/env python3
"""The size sweep of `nd_bench --sweep` (bench/bench_sweep.c) in CuPy and PyTorch.

    python3 bench/sweep.py [--out FILE] [--quick] [--reps N] [--warmup N] [--tools cupy,torch]
                           [--ops OP[,OP...]]

The same operations, names and sizes as bench_sweep.c (add, sum, sort and argsort of float32
vectors; sort and argsort of float32 rows; batched 8 x 8 and 32 x 32 float32 inverses; square
float32 matmul), each timed as the peer
benchmarks time their device cases (CUDA events on one non-blocking stream, warm-up first,
bench/peer_harness.py), with the number of timed runs adapted to the size as in the C sweep:
one timed call estimates it, then as many runs as fit in about 0.1 s, at least 3 and at most
--reps. Inputs are uniform random in [-1, 1); only time is measured. Both libraries run in this
one process, one after the other; a library that is not installed is left out with a message.

CSV: '# key: value' lines, then tool,op,size,median_us,min_us,reps,bytes,flops (as the C sweep,
whose file carries the copy ceiling and launch floor that bench/plot_sweep.py draws).
Exit status: 0 when every size ran, 1 when one failed or no library could be imported, 2 for
bad arguments, 77 when there is no CUDA device.
"""

import argparse
import datetime
import sys

from peer_harness import time_device

# sorts: also 2^13 and 2^15 keys, each side of ndcuda's one-block sorts' largest tile (16384)
SORT_SIZES = [1 << k for k in (10, 12, 13, 14, 15, 16, 18, 20, 22, 24, 26)]
OPS = [  # name, sizes, --quick limit (as bench_sweep.c)
    ("add_f32", [1 << k for k in range(10, 29, 2)], 1 << 22),
    ("sum_f32", [1 << k for k in range(10, 29, 2)], 1 << 22),
    ("sort_f32", SORT_SIZES, 1 << 20),
    ("argsort_f32", SORT_SIZES, 1 << 20),
    ("sort_rows_1024_f32", [10 ** k for k in range(0, 7)], 10000),
    ("sort_rows_f32", [1 << k for k in range(4, 15)], 1024),  # 10^4 rows of size keys
    ("argsort_rows_f32", [1 << k for k in range(4, 15)], 1024),
    ("inv_8x8_f32", [10 ** k for k in range(0, 7)], 10000),
    ("inv_32x32_f32", [10 ** k for k in range(0, 7)], 10000),
    ("matmul_f32", [1 << k for k in range(4, 15)], 1024),
]


def cost(op, size):
    """(bytes, flops) of one call, as sw_cost in bench_sweep.c."""
    if op == "add_f32":
        return 12 * size, 0
    if op == "sum_f32":
        return 4 * size + 4, 0
    if op == "sort_f32":
        return 8 * size, 0
    if op == "argsort_f32":
        return 12 * size, 0
    if op == "sort_rows_1024_f32":
        return 8 * 1024 * size, 0
    if op == "sort_rows_f32":
        return 8 * 10000 * size, 0
    if op == "argsort_rows_f32":
        return 12 * 10000 * size, 0
    if op == "inv_8x8_f32":
        return 2 * size * 64 * 4, 2.0 * 512 * size
    if op == "inv_32x32_f32":
        return 2 * size * 1024 * 4, 2.0 * 32768 * size
    return 12 * size * size, 2.0 * size ** 3


class SweepCtx:
    """What peer_harness.time_device needs."""

    def __init__(self, backend, stream, args):
        self.backend, self.stream = backend, stream
        self.warmup, self.reps = args.warmup, args.reps


class NoDevice(Exception):
    pass


def cupy_tool():
    import cupy as cp

    try:
        if cp.cuda.runtime.getDeviceCount() == 0:
            raise NoDevice("0 devices")
    except cp.cuda.runtime.CUDARuntimeError as e:
        raise NoDevice(str(e))

    import cupy_bench

    cupy_bench.cp = cp  # the bench module imports CuPy in its main(); the sweep brings its own

    class B(cupy_bench.CupyBackend):
        tool = "cupy"

    def rand(shape):
        return cp.random.uniform(-1.0, 1.0, shape, dtype=cp.float32)

    ops = {
        "add_f32": (lambda n: (rand(n), rand(n)), lambda a, b: a + b),
        "sum_f32": (lambda n: (rand(n), None), lambda a, b: a.sum()),
        "sort_f32": (lambda n: (rand(n), None), lambda a, b: cp.sort(a)),
        "argsort_f32": (lambda n: (rand(n), None), lambda a, b: cp.argsort(a)),
        "sort_rows_1024_f32": (lambda n: (rand((n, 1024)), None), lambda a, b: cp.sort(a, axis=-1)),
        "sort_rows_f32": (lambda n: (rand((10000, n)), None), lambda a, b: cp.sort(a, axis=-1)),
        "argsort_rows_f32": (lambda n: (rand((10000, n)), None), lambda a, b: cp.argsort(a, axis=-1)),
        "inv_8x8_f32": (lambda n: (rand((n, 8, 8)), None), lambda a, b: cp.linalg.inv(a)),
        "inv_32x32_f32": (lambda n: (rand((n, 32, 32)), None), lambda a, b: cp.linalg.inv(a)),
        "matmul_f32": (lambda n: (rand((n, n)), rand((n, n))), lambda a, b: a @ b),
    }
    return B(), ops


def torch_tool():
    import torch

    if not torch.cuda.is_available():
        raise NoDevice("torch.cuda.is_available() is False")

    torch.backends.cuda.matmul.allow_tf32 = False

    import torch_bench

    torch_bench.torch = torch  # as for CuPy: the bench module imports PyTorch in its main()

    class B(torch_bench.TorchBackend):
        tool = "torch"

    def rand(*shape):
        return torch.rand(*shape, device="cuda") * 2 - 1

    # inv_ex without its error check: no host wait, as ndcuda's unchecked inverse in the C sweep
    ops = {
        "add_f32": (lambda n: (rand(n), rand(n)), lambda a, b: a + b),
        "sum_f32": (lambda n: (rand(n), None), lambda a, b: a.sum()),
        "sort_f32": (lambda n: (rand(n), None), lambda a, b: torch.sort(a).values),
        "argsort_f32": (lambda n: (rand(n), None), lambda a, b: torch.argsort(a, stable=True)),
        "sort_rows_1024_f32": (lambda n: (rand(n, 1024), None), lambda a, b: torch.sort(a, dim=-1).values),
        "sort_rows_f32": (lambda n: (rand(10000, n), None), lambda a, b: torch.sort(a, dim=-1).values),
        "argsort_rows_f32": (lambda n: (rand(10000, n), None), lambda a, b: torch.argsort(a, dim=-1, stable=True)),
        "inv_8x8_f32": (lambda n: (rand(n, 8, 8), None), lambda a, b: torch.linalg.inv_ex(a).inverse),
        "inv_32x32_f32": (lambda n: (rand(n, 32, 32), None), lambda a, b: torch.linalg.inv_ex(a).inverse),
        "matmul_f32": (lambda n: (rand(n, n), rand(n, n)), lambda a, b: a @ b),
    }
    return B(), ops


def sweep_tool(name, make, args, out):
    try:
        backend, ops = make()
    except ImportError as e:
        sys.stderr.write("sweep.py: %s left out: %s\n" % (name, e))
        return None
    except NoDevice as e:
        sys.stderr.write("sweep.py: no CUDA device for %s (%s)\n" % (name, e))
        return "no device"
    stream = backend.new_stream()
    ctx = SweepCtx(backend, stream, args)
    failures = 0
    print("%s %s" % (backend.lib_name, backend.version))
    for op, sizes, quick_max in OPS:
        if op not in args.ops:
            continue
        setup, fn = ops[op]
        for size in sizes:
            if args.quick and size > quick_max:
                break
            st = {"out": None}
            try:
                with backend.stream_scope(stream):
                    a, b = setup(size)

                    def once():
                        st["out"] = None  # the previous output goes back to the pool first
                        st["out"] = fn(a, b)

                    est, _ = time_device(ctx, once, warmup=1, reps=1)
                    reps = int(max(3, min(args.reps, 1e5 / max(est, 1.0))))
                    med, mn = time_device(ctx, once, reps=reps)
            except Exception as e:  # report, go on with the next size
                sys.stderr.write("sweep.py: %s %s %d: %s: %s\n" % (name, op, size, type(e).__name__, e))
                failures += 1
                continue
            finally:
                a = b = None
                st["out"] = None
                backend.synchronize()
                backend.free_cached()
            nbytes, flops = cost(op, size)
            rate = flops / (med * 1e-6) / 1e12 if flops else nbytes / (med * 1e-6) / 1e9
            print("%-8s %-16s %12d %12.2f %12.2f %5d %10.2f" % (name, op, size, med, mn, reps, rate), flush=True)
            if out:
                out.write("%s,%s,%d,%.3f,%.3f,%d,%d,%.6g\n" % (name, op, size, med, mn, reps, nbytes, flops))
                out.flush()
    return failures


def main(argv=None):
    p = argparse.ArgumentParser(description="The nd_bench --sweep operations in CuPy and PyTorch.")
    p.add_argument("--out", help="write the results as CSV to this file")
    p.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    p.add_argument("--reps", type=int, default=25, help="at most this many timed runs per size")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs first")
    p.add_argument("--tools", default="cupy,torch", help="comma-separated: cupy, torch")
    p.add_argument("--ops", help="comma-separated operation names (default: all)")
    args = p.parse_args(argv)
    names = [op for op, _, _ in OPS]
    args.ops = names if not args.ops else [o for o in args.ops.split(",") if o]
    if any(o not in names for o in args.ops):
        p.error("--ops takes %s" % ", ".join(names))
    if args.reps < 3 or args.warmup < 0:
        p.error("--reps must be >= 3 and --warmup >= 0")
    makers = {"cupy": cupy_tool, "torch": torch_tool}
    tools = [t for t in args.tools.split(",") if t]
    if any(t not in makers for t in tools):
        p.error("--tools takes cupy and torch")
    out = open(args.out, "w") if args.out else None
    if out:
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        out.write("# tool: sweep.py\n# date: %s\n# quick: %d\n" % (date, int(args.quick)))
        out.write("tool,op,size,median_us,min_us,reps,bytes,flops\n")
    ran, failures, no_device = 0, 0, 0
    for t in tools:
        f = sweep_tool(t, makers[t], args, out)
        if f == "no device":
            no_device += 1
        elif f is not None:
            ran += 1
            failures += f
    if out:
        out.close()
    if ran == 0 and no_device:
        return 77
    if ran == 0:
        sys.stderr.write("sweep.py: neither CuPy nor PyTorch could be imported; nothing measured\n")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
