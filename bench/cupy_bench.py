#!/usr/bin/env python3
"""The nd_bench cases in CuPy, for a side-by-side comparison on the same GPU.

    python3 bench/cupy_bench.py [--out FILE] [--filter SUBSTR[,SUBSTR...]] [--quick]
                                [--reps N] [--warmup N] [--list]

Same case names, sizes, timing method and CSV format as nd_bench (see bench/README.md):
device cases are timed with CUDA events (warm-up, then the median and minimum of --reps
runs, each between its own pair of events) on one non-blocking stream; host cases with
time.perf_counter over batches of 256 operations, the device synchronised between batches.
The copy ceiling (cudaMemcpyAsync device to device, bytes read + written) is measured first
in this process as well, so "% copy" compares each tool with its own measured ceiling.

Exit status: 0 when every case ran and passed its check, 1 when one failed or CuPy is
missing, 2 for bad arguments, 77 when there is no CUDA device.
"""

import math
import sys
import time

import numpy as np

from peer_harness import (PER_BATCH, RAND_BLOCK, Backend, CaseFailed, check, core_n, core_side, device_case, emit,
                          la_matrices_host, la_note, la_solve_report, la_solve_rows, la_solve_stack, la_unit,
                          list_cases, median_min, parse_args, red_argmax_at, red_scan_samples, run_all, time_device,
                          time_host)
from peer_harness import PIPE_CHUNKS, PIPE_ROUNDS, PIPE_STREAMS, RED_SCAN_SAMPLES  # noqa: F401 (same constants)
from peer_harness import EW_MATH_REL_TOL, EW_SMALL_N, LA_BIG_INV_REPS, RNG_INT_HIGH, RNG_SEED, rng_check_sample

cp = None  # imported in main() so that --list and --help work without CuPy


class CupyBackend(Backend):
    tool = "cupy_bench"
    lib_key = "cupy"
    lib_name = "CuPy"

    def __init__(self):
        self.version = cp.__version__

    def synchronize(self):
        cp.cuda.Device().synchronize()

    def new_stream(self):
        return cp.cuda.Stream(non_blocking=True)

    def stream_scope(self, stream):
        return stream

    def timing_event(self):
        return cp.cuda.Event()

    def record(self, event, stream):
        event.record(stream)

    def elapsed_ms(self, start, end):
        return cp.cuda.get_elapsed_time(start, end)

    def free_cached(self):
        cp.get_default_memory_pool().free_all_blocks()

    def device_info(self):
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        return name, cp.cuda.runtime.runtimeGetVersion(), cp.cuda.runtime.driverGetVersion()


def fork(ctx, streams):
    ev = cp.cuda.Event(disable_timing=True)
    ev.record(ctx.stream)
    for s in streams:
        s.wait_event(ev)


def join(ctx, streams):
    for s in streams:
        ev = cp.cuda.Event(disable_timing=True)
        ev.record(s)
        ctx.stream.wait_event(ev)


# ---- data ----------------------------------------------------------------------------------

def random_f32(ctx, shape):
    """Random float32 in [-1, 1) (never zero): the random block repeated, as nd_bench does."""
    n = int(np.prod(shape))
    out = cp.empty(n, dtype=cp.float32)
    for start in range(0, n, RAND_BLOCK):
        stop = min(n, start + RAND_BLOCK)
        out[start:stop] = ctx.block[:stop - start]
    return out.reshape(shape)


# ---- the cases: ndarray core ---------------------------------------------------------------

def case_copy(ctx):
    def setup():
        return {"a": random_f32(ctx, (core_n(ctx),)), "out": None}, 2 * core_n(ctx) * 4

    def run(st):
        st["out"] = None  # release the previous output first, as nd_bench does
        st["out"] = st["a"].copy()

    device_case(ctx, setup, run, lambda st: check(ctx, cp.array_equal(st["out"], st["a"]), "copy differs"))


def case_astype_f64(ctx):
    def setup():
        return {"a": random_f32(ctx, (core_n(ctx),)), "out": None}, core_n(ctx) * (4 + 8)

    def run(st):
        st["out"] = None
        st["out"] = st["a"].astype(cp.float64)

    device_case(ctx, setup, run,
                lambda st: check(ctx, cp.array_equal(st["out"], st["a"].astype(cp.float64)), "astype differs"))


def case_astype_f16(ctx):
    def setup():
        return {"a": random_f32(ctx, (core_n(ctx),)), "out": None}, core_n(ctx) * (4 + 2)

    def run(st):
        st["out"] = None
        st["out"] = st["a"].astype(cp.float16)

    def verify(st):
        a = st["a"].astype(cp.float64)
        err = cp.abs(st["out"].astype(cp.float64) - a)
        check(ctx, cp.all(err <= 2.0 ** -25 + 2.0 ** -11 * cp.abs(a)), "float16 rounding off by more than half an ulp")

    device_case(ctx, setup, run, verify)


def case_transpose(ctx):
    n = core_side(ctx)

    def setup():
        a = random_f32(ctx, (n, n))
        return {"a": a, "t": a.T, "out": None}, 2 * n * n * 4

    def run(st):
        st["out"] = None
        st["out"] = st["t"].copy(order="C")

    def verify(st):
        check(ctx, st["out"].flags.c_contiguous, "output not C-contiguous")
        check(ctx, cp.array_equal(st["out"], st["a"].T), "transpose differs")

    device_case(ctx, setup, run, verify)


def case_fill(ctx):
    def setup():
        return {"a": random_f32(ctx, (core_n(ctx),))}, core_n(ctx) * 4

    def run(st):
        st["a"].fill(1.5)

    device_case(ctx, setup, run, lambda st: check(ctx, cp.all(st["a"] == 1.5), "fill incomplete"))


def case_alloc(ctx):
    n = 1 << 18  # float32 elements: 1 MiB
    held = []

    def pairs():
        for _ in range(PER_BATCH):
            x = cp.empty(n, dtype=cp.float32)
            del x

    def alloc_only():
        for _ in range(PER_BATCH):
            held.append(cp.empty(n, dtype=cp.float32))

    def release_all():
        held.clear()

    med, mn = time_host(ctx, pairs)
    emit(ctx, "pair", "host", med, mn, ctx.host_batches, note="cupy.empty 1 MiB + release")
    med, mn = time_host(ctx, alloc_only, post=release_all)
    emit(ctx, "alloc", "host", med, mn, ctx.host_batches, note="cupy.empty 1 MiB alone")
    times = []
    alloc_only()
    for _ in range(ctx.host_batches):
        t0 = time.perf_counter()
        release_all()
        times.append((time.perf_counter() - t0) * 1e6 / PER_BATCH)
        cp.cuda.Device().synchronize()
        alloc_only()
    release_all()
    med, mn = median_min(times)
    emit(ctx, "release", "host", med, mn, ctx.host_batches, note="release of a 1 MiB array")


# ---- the cases: streams --------------------------------------------------------------------

BARE_FILL_SRC = r"""
extern "C" __global__ void bench_bare_fill(float *p, long long n, float value) {
  for (long long i = threadIdx.x; i < n; i += blockDim.x) p[i] = value;
}
"""


def case_tiny_fill(ctx):
    a = cp.empty(1, dtype=cp.float32)
    kernel = cp.RawKernel(BARE_FILL_SRC, "bench_bare_fill")
    n1, v = np.int64(1), np.float32(2.5)
    kernel((1,), (1,), (a, n1, v))  # compile and load before timing
    ptr, sptr = a.data.ptr, ctx.stream.ptr

    def nd_like():
        for _ in range(PER_BATCH):
            a.fill(2.5)

    def bare_kernel():
        for _ in range(PER_BATCH):
            kernel((1,), (1,), (a, n1, v))

    def bare_memset():
        for _ in range(PER_BATCH):
            cp.cuda.runtime.memsetAsync(ptr, 0, 4, sptr)

    a.fill(-1.0)
    med, mn = time_host(ctx, nd_like)
    check(ctx, float(a[0]) == 2.5, "fill did not happen")
    emit(ctx, "per_op", "host", med, mn, ctx.host_batches, note="ndarray.fill on 1 float32, chains of %d" % PER_BATCH)
    a.fill(-1.0)
    k_med, k_min = time_host(ctx, bare_kernel)
    check(ctx, float(a[0]) == 2.5, "bare kernel did not run")
    emit(ctx, "bare_kernel", "host", k_med, k_min, ctx.host_batches, note="RawKernel <<<1,1>>> store of one float")
    m_med, m_min = time_host(ctx, bare_memset)
    check(ctx, float(a[0]) == 0.0, "memset did not run")
    emit(ctx, "bare_memset", "host", m_med, m_min, ctx.host_batches, note="cudaMemsetAsync of 4 bytes")
    emit(ctx, "overhead", "host", med - k_med, float("nan"), ctx.host_batches,
         note="per_op minus bare_kernel: CuPy's per-op cost over a bare launch")


def case_handoff(ctx):
    a = cp.empty(1024, dtype=cp.float32)
    s = [cp.cuda.Stream(non_blocking=True) for _ in range(2)]
    ev = cp.cuda.Event(disable_timing=True)

    def same():
        for i in range(PER_BATCH):
            with s[0]:
                a.fill(i + 1)

    # CuPy does not order streams: the user records and waits by hand, which is what ndcuda
    # does automatically. This is that hand-written equivalent.
    def cross():
        ev.record(s[1])
        for i in range(PER_BATCH):
            cur = s[i & 1]
            cur.wait_event(ev)
            with cur:
                a.fill(i + 1)
            ev.record(cur)

    med, mn = time_host(ctx, same)
    check(ctx, float(a[-1]) == PER_BATCH, "same-stream fills incomplete")
    emit(ctx, "same_stream", "host", med, mn, ctx.host_batches, note="with stream A: fill(1024 float32)")
    x_med, x_min = time_host(ctx, cross)
    check(ctx, float(a[-1]) == PER_BATCH, "cross-stream fills incomplete")
    emit(ctx, "cross_stream", "host", x_med, x_min, ctx.host_batches,
         note="alternating A and B with a hand-written event record + wait per fill")
    emit(ctx, "extra", "host", x_med - med, float("nan"), ctx.host_batches, note="cross_stream minus same_stream")


def case_pipeline(ctx):
    import cupyx
    n = 1 << 22 if ctx.quick else 1 << 26
    chunk = n // PIPE_CHUNKS
    h_in = cupyx.empty_pinned((n,), dtype=np.float32)
    h_out = cupyx.empty_pinned((n,), dtype=np.float32)
    block = cp.asnumpy(ctx.block)
    for start in range(0, n, RAND_BLOCK):
        stop = min(n, start + RAND_BLOCK)
        h_in[start:stop] = block[:stop - start]
    streams = [cp.cuda.Stream(non_blocking=True) for _ in range(PIPE_STREAMS)]
    d_in = [cp.empty(chunk, dtype=cp.float32) for _ in range(PIPE_CHUNKS)]

    def once(nstreams):
        use = streams[:nstreams]
        fork(ctx, use)
        for c in range(PIPE_CHUNKS):
            s = use[c % nstreams]
            lo, hi = c * chunk, (c + 1) * chunk
            with s:
                d_in[c].set(h_in[lo:hi], stream=s)
                x = d_in[c]
                for _ in range(PIPE_ROUNDS):
                    y = x.astype(cp.float64)
                    x = y.astype(cp.float32)
                    del y
                x.get(stream=s, out=h_out[lo:hi], blocking=False)
                del x
        join(ctx, use)

    t = {}
    note = "%d chunks x (H2D, %d x astype f32->f64->f32, D2H) of %d float32; GB/s over the host link" % (
        PIPE_CHUNKS, PIPE_ROUNDS, chunk)
    for nstreams, name in ((1, "1stream"), (PIPE_STREAMS, "4stream")):
        med, mn = time_device(ctx, lambda: once(nstreams))
        t[name] = med
        h_out[:] = np.nan
        once(nstreams)
        cp.cuda.Device().synchronize()
        check(ctx, np.array_equal(h_out, h_in), "pipeline output differs (%d streams)" % nstreams)
        emit(ctx, name, "device", med, mn, ctx.reps, 2 * n * 4, note=note, pct=False)
    emit(ctx, "speedup", "ratio", value=t["1stream"] / t["4stream"], note="1stream / 4stream median")


# ---- the cases: linear algebra -------------------------------------------------------------
# As bench_linalg.c: inputs generated once on the host (uniform [-1, 1), plus n on the diagonal
# of matrices that are inverted or solved with) and uploaded; after timing, the residual
# (max |A X - I|, max |A x - b|, computed in float64) or Freivalds' test of the product, and the
# TFLOP/s figure from the median, go into the note. --quick divides the batch counts by 16 and
# the orders of single matrices by 4. linalg.inv_4096_f64 (seconds per run in CuPy) runs 1
# warm-up and at most 3 timed runs.

def la_matrices(seed, shape, dtype, diag):
    return cp.asarray(la_matrices_host(seed, shape, dtype, diag))


def la_inv_case(ctx, batch, n, dtype, reps=None, warmup=None):
    if ctx.quick:
        if batch:
            batch //= 16
        else:
            n //= 4
    count = batch if batch else 1
    shape = (batch, n, n) if batch else (n, n)
    st = {"a": la_matrices(1000 + n, shape, dtype, float(n)), "out": None}

    def run():
        st["out"] = None  # release the previous output first, as nd_bench does
        st["out"] = cp.linalg.inv(st["a"])

    reps = ctx.reps if reps is None else reps
    med, mn = time_device(ctx, run, warmup=warmup, reps=reps)
    r = cp.matmul(st["a"].astype(cp.float64), st["out"].astype(cp.float64))
    worst = float(cp.abs(r - cp.eye(n)).max())
    tol = 64.0 * n * la_unit(dtype)
    nbytes = 2 * count * n * n * np.dtype(dtype).itemsize if batch else 0
    note = la_note("max|AX-I|", worst, 2.0 * n ** 3 * count, med)
    emit(ctx, None, "device", med, mn, reps, nbytes, note=note)
    check(ctx, worst <= tol, "max |A X - I| = %.3g above %.3g" % (worst, tol))


def case_inv_4(ctx):
    la_inv_case(ctx, 100000, 4, np.float32)


def case_inv_8(ctx):
    la_inv_case(ctx, 100000, 8, np.float32)


def case_inv_32(ctx):
    la_inv_case(ctx, 10000, 32, np.float32)


def case_inv_32d(ctx):
    la_inv_case(ctx, 10000, 32, np.float64)


def case_inv_128(ctx):
    la_inv_case(ctx, 1000, 128, np.float32)


def case_inv_4096(ctx):
    la_inv_case(ctx, 0, 4096, np.float64, reps=min(ctx.reps, LA_BIG_INV_REPS), warmup=min(ctx.warmup, 1))


def la_big_inv(n, dtype):
    return lambda ctx: la_inv_case(ctx, 0, n, dtype, reps=min(ctx.reps, LA_BIG_INV_REPS), warmup=min(ctx.warmup, 1))


def case_solve(ctx, diag=True):
    n, k = (1024 if ctx.quick else 4096), 16
    st = {"a": la_matrices(2000, (n, n), np.float64, float(n) if diag else 0.0),
          "b": la_matrices(2001, (n, k), np.float64, 0.0), "out": None}

    def run():
        st["out"] = None
        st["out"] = cp.linalg.solve(st["a"], st["b"])

    med, mn = time_device(ctx, run)
    la_solve_report(ctx, med, mn, st["a"], st["out"], st["b"], n, k, np.float64)


def la_solve_batched_case(ctx, batch, n, dtype, checked=False):
    """A stack of batch systems of order n (n on the diagonal) with one right-hand side each,
    b of shape (batch, n, 1), as nd_bench's linalg.solve_<batch>x<n>x<n>_<dtype>. CuPy's solve
    does not look at the factorisation's info unless cupyx.errstate(linalg="raise") asks it to
    (a host wait and a check of every info): the _checked rows."""
    import cupyx
    batch, a, b = la_solve_stack(ctx, batch, n, dtype, la_matrices)
    st = {"a": a, "b": b, "out": None}

    def run():
        st["out"] = None
        if checked:
            with cupyx.errstate(linalg="raise"):
                st["out"] = cp.linalg.solve(st["a"], st["b"])
        else:
            st["out"] = cp.linalg.solve(st["a"], st["b"])

    med, mn = time_device(ctx, run)
    la_solve_report(ctx, med, mn, st["a"].astype(cp.float64), st["out"].astype(cp.float64),
                    st["b"].astype(cp.float64), n, 1, dtype, batch, batch * (n * n + 2 * n) * np.dtype(dtype).itemsize)


def la_matmul_case(ctx, dtype, n=None):
    n = n or (2048 if ctx.quick else 8192)
    st = {"a": la_matrices(3000, (n, n), dtype, 0.0), "b": la_matrices(3001, (n, n), dtype, 0.0), "out": None}

    def run():
        st["out"] = None
        st["out"] = cp.matmul(st["a"], st["b"])

    med, mn = time_device(ctx, run)
    # Freivalds' test in float64 on the device: C v against A (B v), each row within
    # 32 u sqrt(n) S_i, S_i = sqrt(sum_k a_ik^2 |B_k|^2) (as bench_linalg.c).
    a, b = st["a"].astype(cp.float64), st["b"].astype(cp.float64)
    v = cp.asarray(np.where(np.random.default_rng(3002).uniform(-1.0, 1.0, n) < 0, -1.0, 1.0))
    tol = 32.0 * la_unit(dtype) * math.sqrt(n) * cp.sqrt((a * a) @ (b * b).sum(axis=1))
    worst = float((cp.abs(st["out"].astype(cp.float64) @ v - a @ (b @ v)) / tol).max())
    emit(ctx, None, "device", med, mn, ctx.reps, 0, note=la_note("Freivalds err/tol", worst, 2.0 * n ** 3, med))
    check(ctx, worst <= 1.0, "C v differs from A (B v) by %.3g x the tolerance" % worst)


def case_matmul_f32(ctx):
    la_matmul_case(ctx, np.float32)


def case_matmul_f64(ctx):
    la_matmul_case(ctx, np.float64)


# Same names, same order as the C tables (bench_core.c, bench_streams.c, bench_linalg.c).
# ---- elementwise (issue 5) ------------------------------------------------------------------

# As bench_elementwise.c: outputs allocated in every run (the previous one released first);
# the second operand of the vector add and multiply is the square of the first; sums and
# products are checked exactly against float32 arithmetic on the host, exp and sin within
# 4 ulp of the float64 value; the small add is host time per `a + b` of two 1000-element
# float32 arrays, the result dropped in every operation.

def ew_rel_check(ctx, got, want64, what):
    err = cp.abs(got.astype(cp.float64) - want64)
    check(ctx, bool(cp.all(err <= EW_MATH_REL_TOL * cp.abs(want64))), what + " off by more than 4 ulp")


def ew_pair_case(ctx, fn, what, shift=0):
    n = core_n(ctx) >> shift

    def setup():
        a = random_f32(ctx, (n,))
        return {"a": a, "b": cp.square(a), "out": None}, 3 * n * 4

    def run(st):
        st["out"] = None
        st["out"] = fn(st["a"], st["b"])

    def verify(st):
        a = cp.asnumpy(st["a"])
        want = fn(a, np.square(a))  # float32 on the host: one rounding, as on the device
        check(ctx, np.array_equal(cp.asnumpy(st["out"]), want), what + " differs")

    device_case(ctx, setup, run, verify)


def case_ew_add(ctx):
    ew_pair_case(ctx, lambda a, b: a + b, "a + b")


def case_ew_multiply(ctx):
    ew_pair_case(ctx, lambda a, b: a * b, "a * b")


def ew_unary_case(ctx, fn, ref, what):
    n = core_n(ctx)

    def setup():
        return {"a": random_f32(ctx, (n,)), "out": None}, 2 * n * 4

    def run(st):
        st["out"] = None
        st["out"] = fn(st["a"])

    device_case(ctx, setup, run, lambda st: ew_rel_check(ctx, st["out"], ref(st["a"].astype(cp.float64)), what))


def case_ew_exp(ctx):
    ew_unary_case(ctx, cp.exp, cp.exp, "exp")


def case_ew_sin(ctx):
    ew_unary_case(ctx, cp.sin, cp.sin, "sin")


def case_ew_add_row(ctx):
    n = core_side(ctx)

    def setup():
        return {"a": random_f32(ctx, (n, n)), "r": random_f32(ctx, (n,)), "out": None}, 4 * (2 * n * n + n)

    def run(st):
        st["out"] = None
        st["out"] = st["a"] + st["r"]

    def verify(st):
        want = cp.asnumpy(st["a"]) + cp.asnumpy(st["r"])  # float32 on the host
        check(ctx, np.array_equal(cp.asnumpy(st["out"]), want), "a + row differs")

    device_case(ctx, setup, run, verify)


def case_ew_add_transposed(ctx):
    n = core_side(ctx)

    def setup():
        a = random_f32(ctx, (n, n))
        b = random_f32(ctx, (n, n))
        return {"a": a, "b": b, "t": b.T, "out": None}, 3 * 4 * n * n

    def run(st):
        st["out"] = None
        st["out"] = st["a"] + st["t"]

    def verify(st):
        check(ctx, st["out"].flags.c_contiguous, "output not C-contiguous")
        want = cp.asnumpy(st["a"]) + cp.asnumpy(st["b"]).T  # float32 on the host
        check(ctx, np.array_equal(cp.asnumpy(st["out"]), want), "a + b.T differs")

    device_case(ctx, setup, run, verify)


def case_ew_add_small(ctx):
    a = random_f32(ctx, (EW_SMALL_N,))
    b = cp.square(a)

    def batch():
        for _ in range(PER_BATCH):
            c = a + b
            del c

    med, mn = time_host(ctx, batch)
    c = a + b
    want = cp.asnumpy(a) + cp.asnumpy(b)
    check(ctx, np.array_equal(cp.asnumpy(c), want), "small a + b differs")
    emit(ctx, None, "host", med, mn, ctx.host_batches,
         note="a + b of two %d-element float32, result dropped, chains of %d" % (EW_SMALL_N, PER_BATCH))

# ---- end elementwise ----

# ---- reductions, scans, sorts (issue 6) -----------------------------------------------------

# As bench_reduce.c: outputs allocated in every run (the previous one released first); sums
# checked against float64 host sums within 2^-24 per element summed, argmax exactly (a unique
# 2.0 planted at a known index), sampled prefix sums of the scan within 2^-23 per element before
# them plus 2^-16 of their magnitude, the sort as non-decreasing and equal to NumPy's sort of
# the input; the sort's note gives Gkeys/s.

def red_sort_n(ctx):
    return 1 << 22 if ctx.quick else 1 << 26


def red_reduce_case(ctx, shape, fn, nbytes, verify):
    def setup():
        return {"a": random_f32(ctx, shape), "out": None}, nbytes

    def run(st):
        st["out"] = None
        st["out"] = fn(st["a"])

    device_case(ctx, setup, run, verify)


def case_red_sum(ctx, shift=0):
    n = core_n(ctx) >> shift

    def verify(st):
        out = st["out"]
        check(ctx, out.ndim == 0 and out.dtype == cp.float32, "sum is not a 0-d float32 array")
        want = float(cp.asnumpy(st["a"]).astype(np.float64).sum())
        check(ctx, abs(float(out) - want) <= math.ldexp(n, -24), "sum %r, expected %r" % (float(out), want))

    red_reduce_case(ctx, (n,), lambda a: a.sum(), 4 * n + 4, verify)


def case_red_sum_n24(ctx):
    case_red_sum(ctx, 4)


def case_red_sum_n26(ctx):
    case_red_sum(ctx, 2)


def red_axis_case(ctx, axis):
    n = core_side(ctx)

    def verify(st):
        out = cp.asnumpy(st["out"])
        check(ctx, out.shape == (n,) and out.dtype == np.float32, "sums are not a float32 vector")
        want = cp.asnumpy(st["a"]).astype(np.float64).sum(axis=axis)
        # as nd_bench: n u sqrt(n), the sequential-sum bound with partial sums of size sqrt(n)
        check(ctx, np.all(np.abs(out - want) <= math.ldexp(n, -24) * math.sqrt(n)), "sums over axis %d differ" % axis)

    red_reduce_case(ctx, (n, n), lambda a: a.sum(axis=axis), 4 * n * n + 4 * n, verify)


def case_red_sum_axis0(ctx):
    red_axis_case(ctx, 0)


def case_red_sum_axis1(ctx):
    red_axis_case(ctx, 1)


def case_red_argmax(ctx):
    n = core_n(ctx)
    at = red_argmax_at(n)

    def setup():
        a = random_f32(ctx, (n,))
        a[at] = 2.0
        return {"a": a, "out": None}, 4 * n + 8

    def run(st):
        st["out"] = None
        st["out"] = cp.argmax(st["a"])

    def verify(st):
        check(ctx, int(st["out"]) == at, "argmax %d, expected %d" % (int(st["out"]), at))

    device_case(ctx, setup, run, verify)


def case_scan_cumsum(ctx):
    n = core_n(ctx)

    def verify(st):
        out = st["out"]
        check(ctx, out.shape == (n,) and out.dtype == cp.float32, "cumsum is not a float32 vector")
        k = red_scan_samples(n)
        want = np.cumsum(cp.asnumpy(st["a"]).astype(np.float64))[k]
        got = cp.asnumpy(out[cp.asarray(k)]).astype(np.float64)
        tol = np.ldexp((k + 1).astype(np.float64), -23) + np.ldexp(np.abs(want), -16)
        check(ctx, np.all(np.abs(got - want) <= tol),
              "sampled prefix sums differ")

    red_reduce_case(ctx, (n,), cp.cumsum, 2 * 4 * n, verify)


def case_sort(ctx):
    n = red_sort_n(ctx)

    def verify(st):
        got = cp.asnumpy(st["out"])
        check(ctx, got.shape == (n,) and got.dtype == np.float32, "sort is not a float32 vector")
        check(ctx, bool(np.all(got[1:] >= got[:-1])), "not sorted")
        check(ctx, np.array_equal(got, np.sort(cp.asnumpy(st["a"]))), "not the input's values")

    def setup():
        return {"a": random_f32(ctx, (n,)), "out": None}, 2 * 4 * n

    def run(st):
        st["out"] = None
        st["out"] = cp.sort(st["a"])

    device_case(ctx, setup, run, verify)
    row = ctx.rows[-1]
    if row["median_us"] > 0:
        row["note"] = "checked; %.1f Gkeys/s" % (n / (row["median_us"] * 1e-6) / 1e9)

# ---- end reductions ----

# ---- random (issue 8) ------------------------------------------------------------------------

# As bench_random.c: one generator per case with a fixed seed (cp.random.default_rng, CuPy's
# Generator), a preallocated output filled with out= where CuPy takes it (random,
# standard_normal) and a new array per run for integers (CuPy's integers has no out), 2^28
# values (2^24 with --quick), bytes = 4 n written. The check downloads the first and last 2^20
# values: range, and mean and variance within 5 standard errors.

def rng_check(ctx, out, lo, hi, mean, var, mu4, integer=False):
    rng_check_sample(ctx, out.size, lambda start, m: cp.asnumpy(out[start:start + m]), lo, hi, mean, var, mu4,
                     integer)


def case_rng_uniform(ctx):
    n = core_n(ctx)

    def setup():
        return {"g": cp.random.default_rng(RNG_SEED), "out": cp.full(n, cp.nan, dtype=cp.float32)}, 4 * n

    def run(st):
        st["g"].random(n, dtype=cp.float32, out=st["out"])

    device_case(ctx, setup, run, lambda st: rng_check(ctx, st["out"], 0.0, 1.0, 0.5, 1.0 / 12, 1.0 / 80))


def case_rng_normal(ctx):
    n = core_n(ctx)

    def setup():
        return {"g": cp.random.default_rng(RNG_SEED), "out": cp.full(n, cp.nan, dtype=cp.float32)}, 4 * n

    def run(st):
        st["g"].standard_normal(n, dtype=cp.float32, out=st["out"])

    # Range: finite (CuPy's normals are not bounded as Box-Muller's 6.7 sigma in nd_bench).
    device_case(ctx, setup, run, lambda st: rng_check(ctx, st["out"], -1e30, 1e30, 0.0, 1.0, 3.0))


def case_rng_integers(ctx):
    n = core_n(ctx)
    k = float(RNG_INT_HIGH)

    def setup():
        return {"g": cp.random.default_rng(RNG_SEED), "out": None}, 4 * n

    def run(st):
        st["out"] = None  # release the previous output first, as the other cases do
        st["out"] = st["g"].integers(0, RNG_INT_HIGH, n, dtype=cp.int32)

    def verify(st):
        check(ctx, st["out"].dtype == cp.int32, "dtype %s" % st["out"].dtype)
        rng_check(ctx, st["out"], 0, RNG_INT_HIGH, (k - 1) / 2, (k * k - 1) / 12,
                  (k * k - 1) * (3 * k * k - 7) / 240, integer=True)

    device_case(ctx, setup, run, verify)


# ---- end random ----


# ---- run-time compiled kernels (issue 24) ---------------------------------------------------

# As bench_jit.c: every case uses a fresh CUPY_CACHE_DIR (set here, before CuPy compiles
# anything of the case) and sources with a nonce no cache has seen.

_JIT_NONCE = [0]


def _jit_nonce():
    import os
    _JIT_NONCE[0] += 1
    return "%x" % ((os.getpid() << 32) ^ (int(time.time()) << 8) ^ _JIT_NONCE[0])


def _jit_fresh_cache_dir():
    import os
    import tempfile
    os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy-jit-bench-")


JIT_RAW_SRC = ("// nonce %s\nextern \"C\" __global__ void axpy(const float *x, const float *y, float *z, float a, int n) {\n"
               "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) z[i] = a * x[i] + y[i]; }\n")


def case_jit_compile_cold(ctx):
    _jit_fresh_cache_dir()
    x = cp.arange(1000, dtype=cp.float32)
    times = []
    for _ in range(9):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        k = cp.ElementwiseKernel("T x, T y, T a", "T z", "z = x * a + y", "axpy_cold",
                                 preamble="// nonce " + _jit_nonce())
        z = k(x, x, cp.float32(2.0))
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) * 1e6)
        check(ctx, np.array_equal(cp.asnumpy(z), 3.0 * np.arange(1000, dtype=np.float32)), "axpy differs")
    med, mn = median_min(times)
    emit(ctx, None, "host", med, mn, len(times),
         note="ElementwiseKernel axpy, new source each time, disk cache on: compile + write + load + run")


def case_jit_disk_hit(ctx):
    import subprocess
    _jit_fresh_cache_dir()
    src = JIT_RAW_SRC % _jit_nonce()
    cp.RawKernel(src, "axpy").kernel  # compiled here, written to CUPY_CACHE_DIR
    child = ("import sys, time, cupy as cp\n"
             "cp.empty(1); cp.cuda.Device().synchronize()\n"
             "src = sys.stdin.read()\n"
             "t0 = time.perf_counter(); cp.RawKernel(src, 'axpy').kernel; t1 = time.perf_counter()\n"
             "print((t1 - t0) * 1e6)\n")
    times = []
    for _ in range(7):
        out = subprocess.run([sys.executable, "-c", child], input=src, capture_output=True, text=True, check=True)
        times.append(float(out.stdout.strip().splitlines()[-1]))
    med, mn = median_min(times)
    emit(ctx, None, "host", med, mn, len(times),
         note="RawKernel(...).kernel in a new process (context already up): disk cache hit")


def case_jit_memory_hit(ctx):
    _jit_fresh_cache_dir()
    src = JIT_RAW_SRC % _jit_nonce()
    keep = cp.RawKernel(src, "axpy")
    keep.kernel

    def batch():
        for _ in range(PER_BATCH):
            cp.RawKernel(src, "axpy").kernel

    med, mn = time_host(ctx, batch)
    emit(ctx, None, "host", med, mn, ctx.host_batches, note="RawKernel(...).kernel of a source held in memory")


def case_jit_threads(ctx):
    import threading
    _jit_fresh_cache_dir()
    times = []
    for _ in range(5):
        nonce = _jit_nonce()
        srcs = [JIT_RAW_SRC % (nonce + "_%d" % k) for k in range(4)]
        barrier = threading.Barrier(32)
        errors = []

        def work(i):
            barrier.wait()
            try:
                cp.RawKernel(srcs[i % 4], "axpy").kernel
            except Exception as e:  # noqa: BLE001 - counted and reported
                errors.append(e)

        ths = [threading.Thread(target=work, args=(i,)) for i in range(32)]
        t0 = time.perf_counter()
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        times.append((time.perf_counter() - t0) * 1e6)
        check(ctx, not errors, "%d thread(s) failed: %r" % (len(errors), errors[:1]))
    med, mn = median_min(times)
    emit(ctx, None, "host", med, mn, len(times), note="32 threads, 4 new RawKernels, wall")


def case_jit_ew_add(ctx):
    n = core_n(ctx)
    k = cp.ElementwiseKernel("T x, T y", "T z", "z = x + y", "user_add")

    def setup():
        a = random_f32(ctx, (n,))
        return {"a": a, "b": cp.square(a), "out": None}, 3 * n * 4

    def run(st):
        st["out"] = None
        st["out"] = k(st["a"], st["b"])

    def verify(st):
        a = cp.asnumpy(st["a"])
        check(ctx, np.array_equal(cp.asnumpy(st["out"]), a + np.square(a)), "user add differs")

    device_case(ctx, setup, run, verify)

def case_jit_sum(ctx):
    n = core_n(ctx)
    k = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "user_sum")

    def setup():
        return {"a": random_f32(ctx, (n,)), "out": None}, 4 * n + 4

    def run(st):
        st["out"] = None
        st["out"] = k(st["a"])

    def verify(st):
        want = float(cp.asnumpy(st["a"]).astype(np.float64).sum())
        check(ctx, abs(float(st["out"]) - want) <= n * 2.0 ** -24, "user sum differs")

    device_case(ctx, setup, run, verify)

# ---- end jit ----


# ---- several devices ---------------------------------------------------------------------------

def case_peer_copy(ctx):
    """1 GiB of float32 from device 0 to device 1 and back with cp.copyto (CuPy copies between
    devices itself), timed with CUDA events on a stream of the destination device, as
    nd_bench's multi.peer_copy. Skipped, with a line on stderr, with fewer than two devices."""
    if cp.cuda.runtime.getDeviceCount() < 2:
        sys.stderr.write("cupy_bench.py: multi.peer_copy skipped: fewer than two devices\n")
        return
    nbytes = 1 << 30
    n = nbytes // 4
    # The harness runs every case inside a stream of device 0; CuPy refuses a stream of another
    # device, so each device's work runs inside a stream of its own.
    streams, arrs = {}, {}
    for d in (0, 1):
        with cp.cuda.Device(d):
            streams[d] = cp.cuda.Stream(non_blocking=True)
    with cp.cuda.Device(0), streams[0]:
        arrs[0] = random_f32(ctx, (n,))
        streams[0].synchronize()
    with cp.cuda.Device(1), streams[1]:
        arrs[1] = cp.empty(n, dtype=cp.float32)
        streams[1].synchronize()
    reps = 10
    for src, dst, suffix in ((0, 1, "0to1"), (1, 0, "1to0")):
        s = streams[dst]
        with cp.cuda.Device(dst), s:
            times = []
            for r in range(-1, reps):
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record(s)
                cp.copyto(arrs[dst], arrs[src])
                e1.record(s)
                e1.synchronize()
                if r >= 0:
                    times.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3)
            med, mn = median_min(times)
        host = {}
        for d in (src, dst):
            with cp.cuda.Device(d), streams[d]:
                host[d] = arrs[d][::1024].get(stream=streams[d])
        check(ctx, bool(np.array_equal(host[dst], host[src])), "copy %d -> %d differs" % (src, dst))
        emit(ctx, suffix, "device", med, mn, reps, nbytes, note="cp.copyto 1 GiB device %d -> %d" % (src, dst),
             pct=False)


CASES = [
    ("core.copy_f32", case_copy),
    ("core.astype_f32_f64", case_astype_f64),
    ("core.astype_f32_f16", case_astype_f16),
    ("core.transpose_copy_f32", case_transpose),
    ("core.fill_f32", case_fill),
    ("core.alloc_1MiB", case_alloc),
    # elementwise cases
    ("ew.add_f32", case_ew_add),
    ("ew.multiply_f32", case_ew_multiply),
    ("ew.add_f32_n22", lambda ctx: ew_pair_case(ctx, lambda a, b: a + b, "a + b", 6)),
    ("ew.exp_f32", case_ew_exp),
    ("ew.sin_f32", case_ew_sin),
    ("ew.add_row_f32", case_ew_add_row),
    ("ew.add_transposed_f32", case_ew_add_transposed),
    ("ew.add_small_host", case_ew_add_small),
    # end elementwise cases
    # reduction cases
    ("red.sum_f32", case_red_sum),
    ("red.sum_f32_n24", case_red_sum_n24),
    ("red.sum_f32_n26", case_red_sum_n26),
    ("red.sum_axis0_f32", case_red_sum_axis0),
    ("red.sum_axis1_f32", case_red_sum_axis1),
    ("red.argmax_f32", case_red_argmax),
    ("scan.cumsum_f32", case_scan_cumsum),
    ("sort.sort_f32", case_sort),
    # end reduction cases
    # random cases
    ("rng.uniform_f32", case_rng_uniform),
    ("rng.normal_f32", case_rng_normal),
    ("rng.integers_i32", case_rng_integers),
    # end random cases
    ("stream.tiny_fill", case_tiny_fill),
    ("stream.handoff", case_handoff),
    ("stream.pipeline", case_pipeline),
    ("linalg.inv_100000x4x4_f32", case_inv_4),
    ("linalg.inv_100000x8x8_f32", case_inv_8),
    ("linalg.inv_10000x32x32_f32", case_inv_32),
    ("linalg.inv_10000x32x32_f64", case_inv_32d),
    ("linalg.inv_1000x128x128_f32", case_inv_128),
    ("linalg.inv_4096_f64", case_inv_4096),
    # CuPy has one inverse: the same call stands beside ndcuda's unchecked mode
    ("linalg.inv_4096_f64_unchecked", case_inv_4096),
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
    ("linalg.solve_4096_f64_16rhs_unchecked", case_solve),
    ("linalg.matmul_8192_f32", case_matmul_f32),
    ("linalg.matmul_8192_f64", case_matmul_f64),
    ("linalg.matmul_256_f32", lambda ctx: la_matmul_case(ctx, np.float32, 256)),
    # jit cases
    ("jit.compile_cold", case_jit_compile_cold),
    ("jit.disk_hit_new_process", case_jit_disk_hit),
    ("jit.memory_hit", case_jit_memory_hit),
    ("jit.threads_32x4_cold", case_jit_threads),
    ("jit.ew_add_f32", case_jit_ew_add),
    ("jit.sum_f32", case_jit_sum),
    # end jit cases
    ("multi.peer_copy", case_peer_copy),
]


# ---- driver --------------------------------------------------------------------------------

def measure_ceiling(ctx):
    n = (64 if ctx.quick else 256) << 20
    src = random_f32(ctx, (n,))
    dst = cp.empty_like(src)
    nbytes = n * 4

    def once():
        cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes,
                                    cp.cuda.runtime.memcpyDeviceToDevice, ctx.stream.ptr)

    med, mn = time_device(ctx, once)
    ctx.copy_gbps = 2.0 * nbytes / (med * 1e-6) / 1e9
    emit(ctx, None, "device", med, mn, ctx.reps, 2 * nbytes,
         note="cudaMemcpyAsync D2D of %d MiB: the 100%% reference" % (nbytes >> 20))

    # The write rate (the fill's ceiling), as nd_bench: cudaMemsetAsync of the same buffer.
    def memset():
        cp.cuda.runtime.memsetAsync(dst.data.ptr, 0x3f, nbytes, ctx.stream.ptr)

    med, mn = time_device(ctx, memset)
    ctx.case = "ceiling.memset"
    emit(ctx, None, "device", med, mn, ctx.reps, nbytes,
         note="cudaMemsetAsync of %d MiB: the write rate" % (nbytes >> 20))


def main(argv=None):
    global cp
    args = parse_args(sys.argv[1:] if argv is None else argv, "The nd_bench cases in CuPy (see bench/README.md).")
    if args.list:
        return list_cases(args, CASES)
    try:
        import cupy
    except ImportError as e:
        sys.stderr.write("cupy_bench.py: CuPy is not installed here (import cupy: %s); it needs CuPy "
                         "and a CUDA GPU (e.g. pip install cupy-cuda13x). Nothing measured.\n" % e)
        return 1
    cp = cupy
    try:
        ndev = cp.cuda.runtime.getDeviceCount()
    except Exception as e:
        ndev, err = 0, e
    else:
        err = "0 devices"
    if ndev == 0:
        sys.stderr.write("cupy_bench.py: no CUDA device available (%s); nothing to measure, skipping\n" % err)
        return 77
    return run_all(args, CupyBackend(), CASES, measure_ceiling, lambda ctx, block: cp.asarray(block))


if __name__ == "__main__":
    sys.exit(main())
