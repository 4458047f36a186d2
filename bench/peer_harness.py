"""The harness shared by the peer benchmarks, cupy_bench.py and torch_bench.py.

Each peer script defines its cases (the same names, sizes and checks as nd_bench) and a Backend
(how to synchronise, record CUDA events, enter a stream, drop cached memory in that library);
this module does the rest exactly as nd_bench does (see bench/README.md): CUDA events on one
non-blocking stream (warm-up runs, then the median and minimum of --reps runs, each between its
own pair of events), host cases timed with time.perf_counter over batches of PER_BATCH
operations (the device synchronised between batches, one untimed batch first), rows printed and
written to the CSV as each case ends, the copy ceiling measured first, and the exit codes
(0 every case ran and passed its check; 1 a case failed or the library is missing; 2 bad
arguments; 77 no CUDA device).
"""

import argparse
import csv
import datetime
import math
import sys
import time

import numpy as np

PER_BATCH = 256
RAND_BLOCK = 1 << 22
RAND_SEED = 20250101

COLUMNS = ["case", "kind", "median_us", "min_us", "reps", "bytes", "gbps", "pct_copy", "value", "note"]

# The note of a row whose case the library cannot express: compare.py shows such rows as
# "n/a" and leaves them out of the best-peer choice.
UNSUPPORTED = "unsupported"


class CaseFailed(Exception):
    pass


class Unsupported(Exception):
    """Raised by a case (before timing anything) when the library lacks the operation."""


class Backend:
    """What the harness needs from a GPU library. Subclasses fill these in."""

    tool = "peer_bench"   # the CSV's tool field and the prefix of messages
    lib_key = "lib"       # the CSV key that carries the library's version
    lib_name = "?"        # the library's name in the first line printed
    version = "?"

    def synchronize(self):
        raise NotImplementedError

    def new_stream(self):
        """A new non-blocking stream."""
        raise NotImplementedError

    def stream_scope(self, stream):
        """A context manager that makes stream the library's current stream."""
        raise NotImplementedError

    def timing_event(self):
        """A new event that can be recorded on a stream and timed."""
        raise NotImplementedError

    def record(self, event, stream):
        raise NotImplementedError

    def elapsed_ms(self, start, end):
        raise NotImplementedError

    def free_cached(self):
        """Returns the memory the library's pool holds to the driver (after every case)."""

    def device_info(self):
        """(device name, CUDA runtime version, driver version)."""
        raise NotImplementedError


class Ctx:
    def __init__(self, args, backend):
        self.backend = backend
        self.quick = args.quick
        self.reps = args.reps
        self.warmup = args.warmup
        self.host_batches = 11 if args.quick else 41
        self.copy_gbps = 0.0
        self.rows = []
        self.failures = 0
        self.stream = None
        self.block = None  # device copy of the random block (the peer script's array type)
        self.case = ""
        self.writer = None
        self.outfile = None


# ---- timing --------------------------------------------------------------------------------

def median_min(values):
    v = sorted(values)
    n = len(v)
    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    return med, v[0]


def time_device(ctx, fn, warmup=None, reps=None):
    """Median and min in us of fn() between two CUDA events on ctx.stream."""
    b = ctx.backend
    warmup = ctx.warmup if warmup is None else warmup
    reps = ctx.reps if reps is None else reps
    b.synchronize()
    for _ in range(warmup):
        fn()
    b.synchronize()
    events = [(b.timing_event(), b.timing_event()) for _ in range(reps)]
    for start, end in events:
        b.record(start, ctx.stream)
        fn()
        b.record(end, ctx.stream)
    b.synchronize()
    return median_min([b.elapsed_ms(s, e) * 1e3 for s, e in events])


def time_host(ctx, batch, post=None, ops=PER_BATCH, nbatches=None):
    """Median and min in us per operation of batch() (ops operations), after one untimed batch."""
    nbatches = ctx.host_batches if nbatches is None else nbatches
    times = []
    for i in range(-1, nbatches):
        t0 = time.perf_counter()
        batch()
        t1 = time.perf_counter()
        if i >= 0:
            times.append((t1 - t0) * 1e6 / ops)
        if post is not None:
            post()
        ctx.backend.synchronize()
    return median_min(times)


# ---- rows ----------------------------------------------------------------------------------

def emit(ctx, suffix, kind, median_us=float("nan"), min_us=float("nan"), reps=0, nbytes=0,
         value=float("nan"), note="", pct=True):
    name = ctx.case + ("." + suffix if suffix else "")
    gbps = pct_copy = float("nan")
    if nbytes > 0 and median_us > 0:
        gbps = nbytes / (median_us * 1e-6) / 1e9
        if pct and ctx.copy_gbps > 0:
            pct_copy = 100.0 * gbps / ctx.copy_gbps
    row = {"case": name, "kind": kind, "median_us": median_us, "min_us": min_us, "reps": reps,
           "bytes": nbytes, "gbps": gbps, "pct_copy": pct_copy, "value": value, "note": note}
    ctx.rows.append(row)
    return row


def emit_unsupported(ctx, suffix, what):
    """A row for a result this library cannot produce: kept, marked, never timed."""
    return emit(ctx, suffix, "error", note="%s: %s" % (UNSUPPORTED, what))


def fmt(v, spec):
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def write_row(ctx, row):
    if ctx.writer is not None:
        ctx.writer.writerow([row["case"], row["kind"], fmt(row["median_us"], ".3f"),
                             fmt(row["min_us"], ".3f"), row["reps"], row["bytes"],
                             fmt(row["gbps"], ".2f"), fmt(row["pct_copy"], ".1f"),
                             fmt(row["value"], ".4f"), row["note"]])
        ctx.outfile.flush()


def print_header():
    print("%-36s %-6s %12s %12s %9s %7s  %s" % ("case", "kind", "median_us", "min_us", "GB/s",
                                                "%copy", "value / note"))


def print_row(row):
    def f(v, spec):
        s = fmt(v, spec)
        return s if s else "-"
    val = fmt(row["value"], ".3f")
    print("%-36s %-6s %12s %12s %9s %7s  %s%s" % (
        row["case"], row["kind"], f(row["median_us"], ".2f"), f(row["min_us"], ".2f"),
        f(row["gbps"], ".1f"), f(row["pct_copy"], ".1f"), (val + "x ") if val else "", row["note"]),
        flush=True)


def check(ctx, ok, what):
    if not bool(ok):
        raise CaseFailed("check failed: " + what)


def random_block():
    """The host random block (float32 in [-1, 1), never zero) that the cases repeat."""
    rng = np.random.default_rng(RAND_SEED)
    block = rng.uniform(-1.0, 1.0, RAND_BLOCK).astype(np.float32)
    block[block == 0] = 0.5
    return block


def core_n(ctx):
    return 1 << 24 if ctx.quick else 1 << 28


def core_side(ctx):
    return 4096 if ctx.quick else 16384


def device_case(ctx, setup, run, verify):
    """setup() -> (state, bytes); run(state) enqueues one repetition; verify(state) checks."""
    st, nbytes = setup()
    med, mn = time_device(ctx, lambda: run(st))
    verify(st)
    emit(ctx, None, "device", med, mn, ctx.reps, nbytes, note="checked")


# ---- driver --------------------------------------------------------------------------------

def selected(filters, name):
    """As nd_bench: a substring of the case name, or a row name that starts with it."""
    if not filters:
        return True
    return any(f in name or f.startswith(name + ".") for f in filters)


def run_case(ctx, name, fn):
    ctx.case = name
    first = len(ctx.rows)
    b = ctx.backend
    try:
        with b.stream_scope(ctx.stream):
            fn(ctx)
    except Unsupported as e:  # not a failure: the library has no such operation
        if len(ctx.rows) == first:
            emit_unsupported(ctx, None, str(e))
    except Exception as e:  # report and go on with the next case, as nd_bench does
        sys.stderr.write("%s: %s: %s\n" % (name, type(e).__name__, e))
        ctx.failures += 1
        failed_msg = "CHECK FAILED" if isinstance(e, CaseFailed) else "FAILED (see stderr)"
        for row in ctx.rows[first:]:
            row["note"] = failed_msg
        if len(ctx.rows) == first:
            emit(ctx, None, "error", note=failed_msg)
    try:
        b.synchronize()
    except Exception as e:
        sys.stderr.write("%s: synchronize after the case: %s\n" % (name, e))
    b.free_cached()
    for row in ctx.rows[first:]:
        print_row(row)
        write_row(ctx, row)


def parse_args(argv, description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", help="also write the results as CSV to this file")
    p.add_argument("--filter", action="append", default=[],
                   help="run only cases whose name contains this (repeatable, comma-separated)")
    p.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    p.add_argument("--reps", type=int, default=25, help="timed repetitions per device case")
    p.add_argument("--warmup", type=int, default=3, help="untimed repetitions first")
    p.add_argument("--list", action="store_true", help="print the case names and exit")
    args = p.parse_args(argv)
    args.filters = [f for item in args.filter for f in item.split(",") if f]
    if args.reps < 1 or args.warmup < 0:
        p.error("--reps must be >= 1 and --warmup >= 0")
    return args


def list_cases(args, cases):
    for name, _ in cases:
        if selected(args.filters, name):
            print(name)
    return 0


def run_all(args, backend, cases, ceiling, upload_block):
    """Runs the ceiling, then every selected case; writes the CSV. Returns the exit status.

    ceiling(ctx) measures the copy ceiling (sets ctx.copy_gbps and emits its row);
    upload_block(ctx, host_block) returns the random block as the library's device array."""
    ctx = Ctx(args, backend)
    dev_name, rt, drv = backend.device_info()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    ctx.stream = backend.new_stream()
    ctx.block = upload_block(ctx, random_block())

    print("%s: %s %s on %s, CUDA runtime %s driver %s, %s%s" % (
        backend.tool, backend.lib_name, backend.version, dev_name, rt, drv, date,
        " (quick)" if ctx.quick else ""))
    print("timing: CUDA events, %d warm-up + median of %d runs; host cases: median of %d batches\n" % (
        ctx.warmup, ctx.reps, ctx.host_batches))
    if args.out:
        ctx.outfile = open(args.out, "w", newline="")
        for key, val in (("tool", backend.tool), (backend.lib_key, backend.version), ("device", dev_name),
                         ("cuda_runtime", rt), ("cuda_driver", drv), ("date", date),
                         ("quick", int(ctx.quick)), ("reps", ctx.reps)):
            ctx.outfile.write("# %s: %s\n" % (key, val))
        ctx.writer = csv.writer(ctx.outfile, lineterminator="\n")
        ctx.writer.writerow(COLUMNS)
    print_header()

    run_case(ctx, "ceiling.memcpy_d2d", ceiling)
    for name, fn in cases:
        if selected(args.filters, name):
            run_case(ctx, name, fn)

    if ctx.outfile is not None:
        ctx.outfile.write("# copy_gbps: %.2f\n" % ctx.copy_gbps)
        ctx.outfile.close()
    print("\n%d row(s), %d failure(s)%s" % (len(ctx.rows), ctx.failures,
                                            ("; written to " + args.out) if args.out else ""))
    return 1 if ctx.failures else 0


# ---- what every peer script shares with nd_bench's C cases ---------------------------------
# The constants and host-side recipes below must match the C cases (bench_streams.c,
# bench_elementwise.c, bench_reduce.c, bench_random.c, bench_linalg.c).

PIPE_STREAMS = 4
PIPE_CHUNKS = 16
PIPE_ROUNDS = 8

EW_SMALL_N = 1000
EW_MATH_REL_TOL = 4.0 * 2.0 ** -23

RED_SCAN_SAMPLES = 4096

RNG_SEED = 20260801
RNG_SAMPLE = 1 << 20
RNG_INT_HIGH = 1000

# As bench_linalg.c: inputs generated once on the host (uniform [-1, 1), plus n on the diagonal
# of matrices that are inverted or solved with) and uploaded; after timing, the residual
# (max |A X - I|, max |A x - b|, computed in float64) or Freivalds' test of the product, and the
# TFLOP/s figure from the median, go into the note. --quick divides the batch counts by 16 and
# the orders of single matrices by 4. The single large inverses (seconds per run in the peers)
# run 1 warm-up and at most LA_BIG_INV_REPS timed runs.
LA_BIG_INV_REPS = 3


def red_argmax_at(n):
    return n - n // 3 + 12345


def red_scan_samples(n):
    """The element indices bench_reduce.c samples (scan_sample)."""
    stride = max(1, n // (RED_SCAN_SAMPLES - 64) - 3)
    out = []
    for i in range(RED_SCAN_SAMPLES + 1):
        if i < 64:
            k = min(i, n - 1)
        elif i == RED_SCAN_SAMPLES:
            k = n - 1
        else:
            k = min(64 + (i - 64) * stride + (i * 7919) % 97, n - 1)
        out.append(k)
    return np.array(out, dtype=np.int64)


def la_matrices_host(seed, shape, dtype, diag):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, shape)
    if diag:
        n = shape[-1]
        a[..., np.arange(n), np.arange(n)] += diag
    return a.astype(dtype)


def la_unit(dtype):
    return 2.0 ** -24 if dtype == np.float32 else 2.0 ** -53


def la_note(what, residual, flops, median_us):
    return "checked; %s %.2e; %.3g TFLOP/s" % (what, residual, flops / (median_us * 1e-6) / 1e12)


# The batched solves' stacks (batch, order, dtype), as nd_bench's linalg.solve_<batch>x<n>x<n>_<dtype>.
LA_SOLVE_STACKS = ((100000, 8, np.float32), (10000, 32, np.float32), (10000, 32, np.float64), (1000, 128, np.float32))


def la_solve_rows(case):
    """The batched solve rows, [(name, run)] for a peer's case(ctx, batch, n, dtype, checked): each
    stack without the check of the factorisation's info, then each with it (_checked)."""
    rows = []
    for checked in (False, True):
        for batch, n, dtype in LA_SOLVE_STACKS:
            name = "linalg.solve_%dx%dx%d_%s%s" % (batch, n, n, "f32" if dtype == np.float32 else "f64",
                                                  "_checked" if checked else "")
            rows.append((name, lambda ctx, b=batch, m=n, d=dtype, c=checked: case(ctx, b, m, d, checked=c)))
    return rows


def la_solve_stack(ctx, batch, n, dtype, make):
    """The batched solve's input, as nd_bench's: batch systems of order n (n on the diagonal) and
    one right-hand side each, b of shape (batch, n, 1), from a peer's make(seed, shape, dtype,
    diag) (la_matrices). Returns (batch, a, b), batch divided by 16 under --quick."""
    if ctx.quick:
        batch //= 16
    return batch, make(4000 + n, (batch, n, n), dtype, float(n)), make(4100 + n, (batch, n, 1), dtype, 0.0)


def la_solve_report(ctx, med, mn, a, x, b, n, k, dtype, batch=1, nbytes=0):
    """Emits a solve row (batch systems of order n with k right-hand sides) and checks it as
    nd_bench does: x of b's shape, and max |A x - b| within 64 n u, or 64 u ||A||_inf ||x||_inf if
    larger (a backward error of 64 u). a, x and b are float64 arrays of the peer's library (CuPy
    or PyTorch: only operators and methods both have), the residual formed on the device."""
    check(ctx, tuple(x.shape) == tuple(b.shape), "solution shape %s" % (tuple(x.shape),))
    worst = float(abs(a @ x - b).max())
    anorm = float(abs(a).sum(-1).max())
    xnorm = float(abs(x).max())
    tol = max(64.0 * n, 64.0 * anorm * xnorm) * la_unit(dtype)
    emit(ctx, None, "device", med, mn, ctx.reps, nbytes,
         note=la_note("max|Ax-b|", worst, (2.0 / 3.0 * n ** 3 + 2.0 * n * n * k) * batch, med))
    check(ctx, worst <= tol, "max |A x - b| = %.3g above %.3g" % (worst, tol))


def rng_check_sample(ctx, n, sample, lo, hi, mean, var, mu4, integer=False):
    """As bench_random.c: the first and last RNG_SAMPLE values (sample(start, m) returns them as
    a NumPy array) in [lo, hi), and their mean and variance within 5 standard errors."""
    m = min(n, RNG_SAMPLE)
    for start in (0, n - m):
        x = np.asarray(sample(start, m)).astype(np.float64)
        check(ctx, np.all((x >= lo) & (x < hi)), "values outside [%g, %g) at offset %d" % (lo, hi, start))
        se_mean, se_var = math.sqrt(var / m), math.sqrt((mu4 - var * var) / m)
        got_mean, got_var = float(x.mean()), float(x.var(ddof=1))
        check(ctx, abs(got_mean - mean) <= 5 * se_mean, "sample mean %.6g, expected %.6g" % (got_mean, mean))
        check(ctx, abs(got_var - var) <= 5 * se_var, "sample variance %.6g, expected %.6g" % (got_var, var))
        if integer:
            check(ctx, np.any(x == lo) and np.any(x == hi - 1), "an end of the range never drawn")
