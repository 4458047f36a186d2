#!/usr/bin/env python3
"""The nd_bench cases in PyTorch, for a side-by-side comparison on the same GPU.

    python3 bench/torch_bench.py [--out FILE] [--filter SUBSTR[,SUBSTR...]] [--quick]
                                 [--reps N] [--warmup N] [--list]

Same case names, sizes, timing method, CSV format and exit codes as nd_bench and cupy_bench.py
(the harness is bench/peer_harness.py, shared with cupy_bench.py): device cases timed with CUDA
events on one non-blocking stream (torch.cuda.Stream, entered with torch.cuda.stream), host
cases per operation over batches. The copy ceiling (Tensor.copy_ between two contiguous float32
tensors, which PyTorch runs as one cudaMemcpyAsync device to device) is measured first in this
process, so "% copy" compares PyTorch with its own measured ceiling.

Where PyTorch has no counterpart (a bare kernel launch, a bare memset), the row is written with
kind "error" and a note that starts with "unsupported", so that compare.py shows it as missing
for PyTorch rather than dropping it. Exit status: 0 when every case ran and passed its check
(unsupported rows are not failures), 1 when one failed or PyTorch is missing, 2 for bad
arguments, 77 when there is no CUDA device.
"""

import math
import sys
import time

import numpy as np

from peer_harness import (EW_MATH_REL_TOL, EW_SMALL_N, LA_BIG_INV_REPS, PER_BATCH, PIPE_CHUNKS, PIPE_ROUNDS,
                          PIPE_STREAMS, RAND_BLOCK, RNG_INT_HIGH, RNG_SEED, Backend, Unsupported, check, core_n,
                          core_side, device_case, emit, emit_unsupported, la_matrices_host, la_note,
                          la_solve_report, la_solve_rows, la_solve_stack, la_unit, list_cases, median_min, parse_args,
                          red_argmax_at, red_scan_samples, rng_check_sample, run_all, time_device, time_host)

torch = None  # imported in main() so that --list and --help work without PyTorch


class TorchBackend(Backend):
    tool = "torch_bench"
    lib_key = "torch"
    lib_name = "PyTorch"

    def __init__(self):
        self.version = torch.__version__

    def synchronize(self):
        torch.cuda.synchronize()

    def new_stream(self):
        # torch.cuda.Stream creates its streams with cudaStreamNonBlocking.
        return torch.cuda.Stream()

    def stream_scope(self, stream):
        return torch.cuda.stream(stream)

    def timing_event(self):
        return torch.cuda.Event(enable_timing=True)

    def record(self, event, stream):
        event.record(stream)

    def elapsed_ms(self, start, end):
        return start.elapsed_time(end)

    def free_cached(self):
        torch.cuda.empty_cache()

    def device_info(self):
        name = torch.cuda.get_device_name()
        # The same integers as the runtime's cudaRuntimeGetVersion / cudaDriverGetVersion.
        rt = getattr(torch._C, "_cuda_getCompiledVersion", lambda: torch.version.cuda)()
        drv = getattr(torch._C, "_cuda_getDriverVersion", lambda: "?")()
        return name, rt, drv


def dev():
    return torch.device("cuda")


def to_np(t):
    return t.detach().cpu().numpy()


def fork(ctx, streams):
    ev = torch.cuda.Event()
    ev.record(ctx.stream)
    for s in streams:
        s.wait_event(ev)


def join(ctx, streams):
    for s in streams:
        ev = torch.cuda.Event()
        ev.record(s)
        ctx.stream.wait_event(ev)


def random_f32(ctx, shape):
    """Random float32 in [-1, 1) (never zero): the random block repeated, as nd_bench does."""
    n = int(np.prod(shape))
    out = torch.empty(n, dtype=torch.float32, device=dev())
    for start in range(0, n, RAND_BLOCK):
        stop = min(n, start + RAND_BLOCK)
        out[start:stop] = ctx.block[:stop - start]
    return out.reshape(shape)


# ---- the cases: ndarray core ---------------------------------------------------------------

def out_case(ctx, make_input, fn, nbytes, verify):
    """A case whose timed call returns a new tensor (the previous one released first)."""
    def setup():
        return {"a": make_input(), "out": None}, nbytes

    def run(st):
        st["out"] = None
        st["out"] = fn(st["a"])

    device_case(ctx, setup, run, verify)


def case_copy(ctx):
    n = core_n(ctx)
    out_case(ctx, lambda: random_f32(ctx, (n,)), lambda a: a.clone(), 2 * n * 4,
             lambda st: check(ctx, torch.equal(st["out"], st["a"]), "copy differs"))


def case_astype_f64(ctx):
    n = core_n(ctx)
    out_case(ctx, lambda: random_f32(ctx, (n,)), lambda a: a.to(torch.float64), n * (4 + 8),
             lambda st: check(ctx, torch.equal(st["out"], st["a"].double()), "astype differs"))


def case_astype_f16(ctx):
    n = core_n(ctx)

    def verify(st):
        a = st["a"].double()
        err = (st["out"].double() - a).abs()
        check(ctx, bool(torch.all(err <= 2.0 ** -25 + 2.0 ** -11 * a.abs())),
              "float16 rounding off by more than half an ulp")

    out_case(ctx, lambda: random_f32(ctx, (n,)), lambda a: a.to(torch.float16), n * (4 + 2), verify)


def case_transpose(ctx):
    n = core_side(ctx)

    def verify(st):
        check(ctx, st["out"].is_contiguous(), "output not contiguous")
        check(ctx, torch.equal(st["out"], st["a"].t()), "transpose differs")

    out_case(ctx, lambda: random_f32(ctx, (n, n)), lambda a: a.t().contiguous(), 2 * n * n * 4, verify)


def case_fill(ctx):
    n = core_n(ctx)

    def setup():
        return {"a": random_f32(ctx, (n,))}, n * 4

    def run(st):
        st["a"].fill_(1.5)

    device_case(ctx, setup, run, lambda st: check(ctx, bool(torch.all(st["a"] == 1.5)), "fill incomplete"))


def case_alloc(ctx):
    n = 1 << 18  # float32 elements: 1 MiB
    held = []

    def pairs():
        for _ in range(PER_BATCH):
            x = torch.empty(n, dtype=torch.float32, device=dev())
            del x

    def alloc_only():
        for _ in range(PER_BATCH):
            held.append(torch.empty(n, dtype=torch.float32, device=dev()))

    def release_all():
        held.clear()

    med, mn = time_host(ctx, pairs)
    emit(ctx, "pair", "host", med, mn, ctx.host_batches, note="torch.empty 1 MiB + release")
    med, mn = time_host(ctx, alloc_only, post=release_all)
    emit(ctx, "alloc", "host", med, mn, ctx.host_batches, note="torch.empty 1 MiB alone")
    times = []
    alloc_only()
    for _ in range(ctx.host_batches):
        t0 = time.perf_counter()
        release_all()
        times.append((time.perf_counter() - t0) * 1e6 / PER_BATCH)
        torch.cuda.synchronize()
        alloc_only()
    release_all()
    med, mn = median_min(times)
    emit(ctx, "release", "host", med, mn, ctx.host_batches, note="release of a 1 MiB tensor")


# ---- the cases: streams --------------------------------------------------------------------

def case_tiny_fill(ctx):
    a = torch.empty(1, dtype=torch.float32, device=dev())

    def nd_like():
        for _ in range(PER_BATCH):
            a.fill_(2.5)

    a.fill_(-1.0)
    med, mn = time_host(ctx, nd_like)
    check(ctx, float(a[0]) == 2.5, "fill did not happen")
    emit(ctx, "per_op", "host", med, mn, ctx.host_batches, note="Tensor.fill_ on 1 float32, chains of %d" % PER_BATCH)
    # PyTorch has no way to launch a user's kernel or a bare memset without another library.
    emit_unsupported(ctx, "bare_kernel", "PyTorch has no bare kernel launch")
    emit_unsupported(ctx, "bare_memset", "PyTorch has no cudaMemsetAsync")
    emit_unsupported(ctx, "overhead", "needs bare_kernel")


def case_handoff(ctx):
    a = torch.empty(1024, dtype=torch.float32, device=dev())
    s = [torch.cuda.Stream() for _ in range(2)]
    ev = torch.cuda.Event()

    def same():
        for i in range(PER_BATCH):
            with torch.cuda.stream(s[0]):
                a.fill_(i + 1)

    # As in CuPy, streams are not ordered for the user: the hand-written event record + wait.
    def cross():
        ev.record(s[1])
        for i in range(PER_BATCH):
            cur = s[i & 1]
            cur.wait_event(ev)
            with torch.cuda.stream(cur):
                a.fill_(i + 1)
            ev.record(cur)

    med, mn = time_host(ctx, same)
    check(ctx, float(a[-1]) == PER_BATCH, "same-stream fills incomplete")
    emit(ctx, "same_stream", "host", med, mn, ctx.host_batches, note="with stream A: fill_(1024 float32)")
    x_med, x_min = time_host(ctx, cross)
    check(ctx, float(a[-1]) == PER_BATCH, "cross-stream fills incomplete")
    emit(ctx, "cross_stream", "host", x_med, x_min, ctx.host_batches,
         note="alternating A and B with a hand-written event record + wait per fill")
    emit(ctx, "extra", "host", x_med - med, float("nan"), ctx.host_batches, note="cross_stream minus same_stream")


def case_pipeline(ctx):
    n = 1 << 22 if ctx.quick else 1 << 26
    chunk = n // PIPE_CHUNKS
    h_in = torch.empty(n, dtype=torch.float32, pin_memory=True)
    h_out = torch.empty(n, dtype=torch.float32, pin_memory=True)
    block = ctx.block.cpu()
    for start in range(0, n, RAND_BLOCK):
        stop = min(n, start + RAND_BLOCK)
        h_in[start:stop] = block[:stop - start]
    streams = [torch.cuda.Stream() for _ in range(PIPE_STREAMS)]
    d_in = [torch.empty(chunk, dtype=torch.float32, device=dev()) for _ in range(PIPE_CHUNKS)]

    def once(nstreams):
        use = streams[:nstreams]
        fork(ctx, use)
        for c in range(PIPE_CHUNKS):
            s = use[c % nstreams]
            lo, hi = c * chunk, (c + 1) * chunk
            with torch.cuda.stream(s):
                d_in[c].copy_(h_in[lo:hi], non_blocking=True)
                x = d_in[c]
                for _ in range(PIPE_ROUNDS):
                    y = x.to(torch.float64)
                    x = y.to(torch.float32)
                    del y
                h_out[lo:hi].copy_(x, non_blocking=True)
                del x
        join(ctx, use)

    t = {}
    note = "%d chunks x (H2D, %d x astype f32->f64->f32, D2H) of %d float32; GB/s over the host link" % (
        PIPE_CHUNKS, PIPE_ROUNDS, chunk)
    for nstreams, name in ((1, "1stream"), (PIPE_STREAMS, "4stream")):
        med, mn = time_device(ctx, lambda: once(nstreams))
        t[name] = med
        h_out.fill_(float("nan"))
        once(nstreams)
        torch.cuda.synchronize()
        check(ctx, torch.equal(h_out, h_in), "pipeline output differs (%d streams)" % nstreams)
        emit(ctx, name, "device", med, mn, ctx.reps, 2 * n * 4, note=note, pct=False)
    emit(ctx, "speedup", "ratio", value=t["1stream"] / t["4stream"], note="1stream / 4stream median")


# ---- the cases: linear algebra -------------------------------------------------------------

def la_matrices(seed, shape, dtype, diag):
    return torch.from_numpy(la_matrices_host(seed, shape, dtype, diag)).to(dev())


def la_inv_case(ctx, batch, n, dtype, reps=None, warmup=None, unchecked=False):
    if ctx.quick:
        if batch:
            batch //= 16
        else:
            n //= 4
    count = batch if batch else 1
    shape = (batch, n, n) if batch else (n, n)
    st = {"a": la_matrices(1000 + n, shape, dtype, float(n)), "out": None}
    # torch.linalg.inv checks the factorisation's info (a host wait); inv_ex(check_errors=False)
    # does not, the counterpart of ndcuda's unchecked mode.
    inv = (lambda a: torch.linalg.inv_ex(a, check_errors=False).inverse) if unchecked else torch.linalg.inv

    def run():
        st["out"] = None  # release the previous output first, as nd_bench does
        st["out"] = inv(st["a"])

    reps = ctx.reps if reps is None else reps
    med, mn = time_device(ctx, run, warmup=warmup, reps=reps)
    r = torch.matmul(st["a"].double(), st["out"].double())
    worst = float((r - torch.eye(n, dtype=torch.float64, device=dev())).abs().max())
    tol = 64.0 * n * la_unit(dtype)
    nbytes = 2 * count * n * n * np.dtype(dtype).itemsize if batch else 0
    emit(ctx, None, "device", med, mn, reps, nbytes, note=la_note("max|AX-I|", worst, 2.0 * n ** 3 * count, med))
    check(ctx, worst <= tol, "max |A X - I| = %.3g above %.3g" % (worst, tol))


def la_big_inv(n, dtype, unchecked=False):
    return lambda ctx: la_inv_case(ctx, 0, n, dtype, reps=min(ctx.reps, LA_BIG_INV_REPS),
                                   warmup=min(ctx.warmup, 1), unchecked=unchecked)


def case_solve(ctx, diag=True, unchecked=False):
    n, k = (1024 if ctx.quick else 4096), 16
    st = {"a": la_matrices(2000, (n, n), np.float64, float(n) if diag else 0.0),
          "b": la_matrices(2001, (n, k), np.float64, 0.0), "out": None}
    if unchecked:
        def solve(a, b):
            return torch.linalg.solve_ex(a, b, check_errors=False).result
    else:
        solve = torch.linalg.solve

    def run():
        st["out"] = None
        st["out"] = solve(st["a"], st["b"])

    med, mn = time_device(ctx, run)
    la_solve_report(ctx, med, mn, st["a"], st["out"], st["b"], n, k, np.float64)


def la_solve_batched_case(ctx, batch, n, dtype, checked=False):
    """A stack of batch systems of order n (n on the diagonal) with one right-hand side each,
    b of shape (batch, n, 1), as nd_bench's linalg.solve_<batch>x<n>x<n>_<dtype>: solve_ex without
    the check of the factorisation's info (ndcuda's unchecked mode), and torch.linalg.solve, which
    checks it (a host wait), for the _checked rows."""
    batch, a, b = la_solve_stack(ctx, batch, n, dtype, la_matrices)
    st = {"a": a, "b": b, "out": None}

    def run():
        st["out"] = None
        st["out"] = (torch.linalg.solve(st["a"], st["b"]) if checked
                     else torch.linalg.solve_ex(st["a"], st["b"], check_errors=False).result)

    med, mn = time_device(ctx, run)
    la_solve_report(ctx, med, mn, st["a"].double(), st["out"].double(), st["b"].double(), n, 1, dtype, batch,
                    batch * (n * n + 2 * n) * np.dtype(dtype).itemsize)


def la_matmul_case(ctx, dtype, n=None):
    n = n or (2048 if ctx.quick else 8192)
    st = {"a": la_matrices(3000, (n, n), dtype, 0.0), "b": la_matrices(3001, (n, n), dtype, 0.0), "out": None}

    def run():
        st["out"] = None
        st["out"] = torch.matmul(st["a"], st["b"])

    med, mn = time_device(ctx, run)
    # Freivalds' test in float64 on the device (as bench_linalg.c and cupy_bench.py).
    a, b = st["a"].double(), st["b"].double()
    v = torch.from_numpy(np.where(np.random.default_rng(3002).uniform(-1.0, 1.0, n) < 0, -1.0, 1.0)).to(dev())
    tol = 32.0 * la_unit(dtype) * math.sqrt(n) * torch.sqrt((a * a) @ (b * b).sum(dim=1))
    worst = float(((st["out"].double() @ v - a @ (b @ v)).abs() / tol).max())
    emit(ctx, None, "device", med, mn, ctx.reps, 0, note=la_note("Freivalds err/tol", worst, 2.0 * n ** 3, med))
    check(ctx, worst <= 1.0, "C v differs from A (B v) by %.3g x the tolerance" % worst)


# ---- elementwise (issue 5) -----------------------------------------------------------------

def ew_rel_check(ctx, got, want64, what):
    err = (got.double() - want64).abs()
    check(ctx, bool(torch.all(err <= EW_MATH_REL_TOL * want64.abs())), what + " off by more than 4 ulp")


def ew_pair_case(ctx, fn, what, shift=0):
    n = core_n(ctx) >> shift

    def setup():
        a = random_f32(ctx, (n,))
        return {"a": a, "b": torch.square(a), "out": None}, 3 * n * 4

    def run(st):
        st["out"] = None
        st["out"] = fn(st["a"], st["b"])

    def verify(st):
        a = to_np(st["a"])
        want = fn(a, np.square(a))  # float32 on the host: one rounding, as on the device
        check(ctx, np.array_equal(to_np(st["out"]), want), what + " differs")

    device_case(ctx, setup, run, verify)


def ew_unary_case(ctx, fn, what):
    n = core_n(ctx)
    out_case(ctx, lambda: random_f32(ctx, (n,)), fn, 2 * n * 4,
             lambda st: ew_rel_check(ctx, st["out"], fn(st["a"].double()), what))


def case_ew_add_row(ctx):
    n = core_side(ctx)

    def setup():
        return {"a": random_f32(ctx, (n, n)), "r": random_f32(ctx, (n,)), "out": None}, 4 * (2 * n * n + n)

    def run(st):
        st["out"] = None
        st["out"] = st["a"] + st["r"]

    def verify(st):
        want = to_np(st["a"]) + to_np(st["r"])
        check(ctx, np.array_equal(to_np(st["out"]), want), "a + row differs")

    device_case(ctx, setup, run, verify)


def case_ew_add_transposed(ctx):
    n = core_side(ctx)

    def setup():
        a = random_f32(ctx, (n, n))
        b = random_f32(ctx, (n, n))
        return {"a": a, "b": b, "t": b.t(), "out": None}, 3 * 4 * n * n

    def run(st):
        st["out"] = None
        st["out"] = st["a"] + st["t"]

    def verify(st):
        check(ctx, st["out"].is_contiguous(), "output not contiguous")
        want = to_np(st["a"]) + to_np(st["b"]).T
        check(ctx, np.array_equal(to_np(st["out"]), want), "a + b.T differs")

    device_case(ctx, setup, run, verify)


def case_ew_add_small(ctx):
    a = random_f32(ctx, (EW_SMALL_N,))
    b = torch.square(a)

    def batch():
        for _ in range(PER_BATCH):
            c = a + b
            del c

    med, mn = time_host(ctx, batch)
    check(ctx, np.array_equal(to_np(a + b), to_np(a) + to_np(b)), "small a + b differs")
    emit(ctx, None, "host", med, mn, ctx.host_batches,
         note="a + b of two %d-element float32, result dropped, chains of %d" % (EW_SMALL_N, PER_BATCH))


# ---- reductions, scans, sorts (issue 6) -----------------------------------------------------

def red_reduce_case(ctx, shape, fn, nbytes, verify):
    out_case(ctx, lambda: random_f32(ctx, shape), fn, nbytes, verify)


def case_red_sum(ctx, shift=0):
    n = core_n(ctx) >> shift

    def verify(st):
        out = st["out"]
        check(ctx, out.dim() == 0 and out.dtype == torch.float32, "sum is not a 0-d float32 tensor")
        want = float(to_np(st["a"]).astype(np.float64).sum())
        check(ctx, abs(float(out) - want) <= math.ldexp(n, -24), "sum %r, expected %r" % (float(out), want))

    red_reduce_case(ctx, (n,), lambda a: a.sum(), 4 * n + 4, verify)


def case_red_sum_n24(ctx):
    case_red_sum(ctx, 4)


def case_red_sum_n26(ctx):
    case_red_sum(ctx, 2)


def red_axis_case(ctx, axis):
    n = core_side(ctx)

    def verify(st):
        out = to_np(st["out"])
        check(ctx, out.shape == (n,) and out.dtype == np.float32, "sums are not a float32 vector")
        want = to_np(st["a"]).astype(np.float64).sum(axis=axis)
        check(ctx, np.all(np.abs(out - want) <= math.ldexp(n, -24) * math.sqrt(n)), "sums over axis %d differ" % axis)

    red_reduce_case(ctx, (n, n), lambda a: a.sum(dim=axis), 4 * n * n + 4 * n, verify)


def case_red_argmax(ctx):
    n = core_n(ctx)
    at = red_argmax_at(n)

    def make():
        a = random_f32(ctx, (n,))
        a[at] = 2.0
        return a

    out_case(ctx, make, torch.argmax, 4 * n + 8,
             lambda st: check(ctx, int(st["out"]) == at, "argmax %d, expected %d" % (int(st["out"]), at)))


def case_scan_cumsum(ctx):
    n = core_n(ctx)

    def verify(st):
        out = st["out"]
        check(ctx, tuple(out.shape) == (n,) and out.dtype == torch.float32, "cumsum is not a float32 vector")
        k = red_scan_samples(n)
        want = np.cumsum(to_np(st["a"]).astype(np.float64))[k]
        got = to_np(out[torch.from_numpy(k).to(dev())]).astype(np.float64)
        tol = np.ldexp((k + 1).astype(np.float64), -23) + np.ldexp(np.abs(want), -16)
        check(ctx, np.all(np.abs(got - want) <= tol), "sampled prefix sums differ")

    red_reduce_case(ctx, (n,), lambda a: torch.cumsum(a, 0), 2 * 4 * n, verify)


def case_sort(ctx):
    n = 1 << 22 if ctx.quick else 1 << 26

    def verify(st):
        got = to_np(st["out"])
        check(ctx, got.shape == (n,) and got.dtype == np.float32, "sort is not a float32 vector")
        check(ctx, bool(np.all(got[1:] >= got[:-1])), "not sorted")
        check(ctx, np.array_equal(got, np.sort(to_np(st["a"]))), "not the input's values")

    # torch.sort always computes the permutation too (it returns values and indices).
    red_reduce_case(ctx, (n,), lambda a: torch.sort(a).values, 2 * 4 * n, verify)
    row = ctx.rows[-1]
    if row["median_us"] > 0:
        row["note"] = "checked; %.1f Gkeys/s; torch.sort also returns the indices" % (
            n / (row["median_us"] * 1e-6) / 1e9)


# ---- random (issue 8) ------------------------------------------------------------------------

def rng_case(ctx, draw, lo, hi, mean, var, mu4, integer=False):
    """draw(generator, out) fills out (or returns a new tensor when out is None)."""
    n = core_n(ctx)
    fresh = integer

    def setup():
        g = torch.Generator(device=dev())
        g.manual_seed(RNG_SEED)
        out = None if fresh else torch.full((n,), float("nan"), dtype=torch.float32, device=dev())
        return {"g": g, "out": out}, 4 * n

    def run(st):
        if fresh:
            st["out"] = None  # release the previous output first, as the other cases do
            st["out"] = draw(st["g"], None)
        else:
            draw(st["g"], st["out"])

    def verify(st):
        out = st["out"]
        if integer:
            check(ctx, out.dtype == torch.int32, "dtype %s" % out.dtype)
        rng_check_sample(ctx, out.numel(), lambda start, m: to_np(out[start:start + m]), lo, hi, mean, var, mu4,
                         integer)

    device_case(ctx, setup, run, verify)


def case_rng_uniform(ctx):
    rng_case(ctx, lambda g, out: torch.rand(out.shape, generator=g, out=out), 0.0, 1.0, 0.5, 1.0 / 12, 1.0 / 80)


def case_rng_normal(ctx):
    rng_case(ctx, lambda g, out: torch.randn(out.shape, generator=g, out=out), -1e30, 1e30, 0.0, 1.0, 3.0)


def case_rng_integers(ctx):
    n, k = core_n(ctx), float(RNG_INT_HIGH)
    rng_case(ctx, lambda g, out: torch.randint(0, RNG_INT_HIGH, (n,), generator=g, device=dev(), dtype=torch.int32),
             0, RNG_INT_HIGH, (k - 1) / 2, (k * k - 1) / 12, (k * k - 1) * (3 * k * k - 7) / 240, integer=True)


def unsupported(what):
    def case(ctx):
        raise Unsupported(what)
    return case


CASES = [
    ("core.copy_f32", case_copy),
    ("core.astype_f32_f64", case_astype_f64),
    ("core.astype_f32_f16", case_astype_f16),
    ("core.transpose_copy_f32", case_transpose),
    ("core.fill_f32", case_fill),
    ("core.alloc_1MiB", case_alloc),
    ("ew.add_f32", lambda ctx: ew_pair_case(ctx, lambda a, b: a + b, "a + b")),
    ("ew.multiply_f32", lambda ctx: ew_pair_case(ctx, lambda a, b: a * b, "a * b")),
    ("ew.add_f32_n22", lambda ctx: ew_pair_case(ctx, lambda a, b: a + b, "a + b", 6)),
    ("ew.exp_f32", lambda ctx: ew_unary_case(ctx, torch.exp, "exp")),
    ("ew.sin_f32", lambda ctx: ew_unary_case(ctx, torch.sin, "sin")),
    ("ew.add_row_f32", case_ew_add_row),
    ("ew.add_transposed_f32", case_ew_add_transposed),
    ("ew.add_small_host", case_ew_add_small),
    ("red.sum_f32", case_red_sum),
    ("red.sum_f32_n24", case_red_sum_n24),
    ("red.sum_f32_n26", case_red_sum_n26),
    ("red.sum_axis0_f32", lambda ctx: red_axis_case(ctx, 0)),
    ("red.sum_axis1_f32", lambda ctx: red_axis_case(ctx, 1)),
    ("red.argmax_f32", case_red_argmax),
    ("scan.cumsum_f32", case_scan_cumsum),
    ("sort.sort_f32", case_sort),
    ("rng.uniform_f32", case_rng_uniform),
    ("rng.normal_f32", case_rng_normal),
    ("rng.integers_i32", case_rng_integers),
    ("stream.tiny_fill", case_tiny_fill),
    ("stream.handoff", case_handoff),
    ("stream.pipeline", case_pipeline),
    ("linalg.inv_100000x4x4_f32", lambda ctx: la_inv_case(ctx, 100000, 4, np.float32)),
    ("linalg.inv_100000x8x8_f32", lambda ctx: la_inv_case(ctx, 100000, 8, np.float32)),
    ("linalg.inv_10000x32x32_f32", lambda ctx: la_inv_case(ctx, 10000, 32, np.float32)),
    ("linalg.inv_10000x32x32_f64", lambda ctx: la_inv_case(ctx, 10000, 32, np.float64)),
    ("linalg.inv_1000x128x128_f32", lambda ctx: la_inv_case(ctx, 1000, 128, np.float32)),
    ("linalg.inv_4096_f64", la_big_inv(4096, np.float64)),
    ("linalg.inv_4096_f64_unchecked", la_big_inv(4096, np.float64, unchecked=True)),
    ("linalg.inv_1024_f32", la_big_inv(1024, np.float32)),
    ("linalg.inv_1024_f64", la_big_inv(1024, np.float64)),
    ("linalg.inv_2048_f32", la_big_inv(2048, np.float32)),
    ("linalg.inv_2048_f64", la_big_inv(2048, np.float64)),
    ("linalg.inv_4096_f32", la_big_inv(4096, np.float32)),
    ("linalg.inv_8192_f32", la_big_inv(8192, np.float32)),
    ("linalg.inv_8192_f64", la_big_inv(8192, np.float64)),
    *la_solve_rows(la_solve_batched_case),
    ("linalg.solve_4096_f64_16rhs", case_solve),
    ("linalg.solve_4096_f64_16rhs_uniform", lambda ctx: case_solve(ctx, diag=False)),
    ("linalg.solve_4096_f64_16rhs_unchecked", lambda ctx: case_solve(ctx, unchecked=True)),
    ("linalg.matmul_8192_f32", lambda ctx: la_matmul_case(ctx, np.float32)),
    ("linalg.matmul_8192_f64", lambda ctx: la_matmul_case(ctx, np.float64)),
    ("linalg.matmul_256_f32", lambda ctx: la_matmul_case(ctx, np.float32, 256)),
]


def measure_ceiling(ctx):
    n = (64 if ctx.quick else 256) << 20
    src = random_f32(ctx, (n,))
    dst = torch.empty_like(src)
    nbytes = n * 4
    med, mn = time_device(ctx, lambda: dst.copy_(src))
    check(ctx, torch.equal(dst, src), "the copy differs")
    ctx.copy_gbps = 2.0 * nbytes / (med * 1e-6) / 1e9
    emit(ctx, None, "device", med, mn, ctx.reps, 2 * nbytes,
         note="Tensor.copy_ (cudaMemcpyAsync D2D) of %d MiB: the 100%% reference" % (nbytes >> 20))
    ctx.case = "ceiling.memset"
    emit_unsupported(ctx, None, "PyTorch has no cudaMemsetAsync")


def main(argv=None):
    global torch
    args = parse_args(sys.argv[1:] if argv is None else argv, "The nd_bench cases in PyTorch (see bench/README.md).")
    if args.list:
        return list_cases(args, CASES)
    try:
        import torch as torch_module
    except ImportError as e:
        sys.stderr.write("torch_bench.py: PyTorch is not installed here (import torch: %s); it needs PyTorch "
                         "with CUDA. Nothing measured.\n" % e)
        return 1
    torch = torch_module
    if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
        sys.stderr.write("torch_bench.py: no CUDA device available; nothing to measure, skipping\n")
        return 77
    # Full float32 arithmetic in products, as ndcuda and CuPy (PyTorch's default; set anyway).
    torch.backends.cuda.matmul.allow_tf32 = False
    return run_all(args, TorchBackend(), CASES, measure_ceiling,
                   lambda ctx, block: torch.from_numpy(block).to(dev()))


if __name__ == "__main__":
    sys.exit(main())
