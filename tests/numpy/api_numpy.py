#!/usr/bin/env python3
"""ndcuda against NumPy across the API, through the shared library (ctypes).

The elementwise layer has its own exhaustive check (ufunc_numpy.py); this one draws random
cases for every other family and compares each call with NumPy's:

  host (no device needed)
    names       dtype names: every spelling NumPy accepts for ndcuda's dtypes and random
                mutations of them; nd_dtype_from_name must accept exactly NumPy's, same dtype
    promotion   promote_types, result_type and can_cast (every rule) over dtype pairs
    shapes      broadcast_shapes over random shape lists, slice.indices over random slices
    badargs     creation arguments NumPy refuses (negative dimensions, arange step 0 or
                infinite bounds, linspace num < 0, eye/tri N < 0, full with a Python int out of
                the dtype's range, unknown dtype names): an error status whose message starts
                with the function's name
  device
    creation    zeros/ones/full/empty (shape, dtype), arange, linspace, eye, identity, tri,
                tril/triu, diag, the _like forms
    views       chains of reshape/transpose/swapaxes/moveaxis/expand_dims/squeeze/flip/slice/
                index/diagonal/broadcast_to/ravel/real/imag, then copy/astype/ascontiguous,
                concatenate/stack/tile/repeat, on random layouts
    reductions  sum, prod, nansum, mean, nanmean, var, std, amin, amax, nanmin, nanmax, ptp,
                all, any, count_nonzero, median, argmin, argmax over random axis sets, with
                keepdims, dtype= and out=, NaN-bearing inputs for the nan-variants
    scans       cumsum/cumprod (axis, dtype=), diff
    sorting     sort, argsort, partition, argpartition (kth in and out of range), searchsorted
                (both sides), nonzero, argwhere
    sets        unique (index, inverse, counts), isin (invert; complex operands too)
    statistics  quantile/percentile (one and several q), average (weights), histogram, bincount
    linalg      inv/solve/lstsq/pinv by residual, det/slogdet/cholesky/eigvalsh/svd values, qr by
                reconstruction, norm/cond/matrix_rank/trace/matmul/dot/outer/kron, batched and
                strided inputs, singular and indefinite matrices (NumPy's LinAlgError -> error)
    random      shapes and dtypes, ranges (uniform, integers, bernoulli, choice, permutation),
                moments of the continuous distributions within 6 standard errors

Every case whose NumPy call raises must give an error status from ndcuda with a message that
starts with the called function's name; every case NumPy answers must give NumPy's dtype,
shape and values (exactly for integers, bool, selections and orderings; within a tolerance
scaled by the dtype's epsilon and the inputs' magnitude for floating results).

Deviations documented in docs/deviations.md are not counted: percentiles of integer arrays are
compared with NumPy's result on float64 data (NumPy interpolates in the integer dtype and
wraps), and argsort is checked by the order it produces (ties may be permuted differently).
Other documented differences (zero-size quantiles and averages NumPy cannot compute, exactly
singular matrices where LAPACK pivots on roundoff) are excused case by case by a predicate
that names its row of docs/deviations.md; a row missing from the page is a failure, and the
summary counts the excused cases.

Usage: api_numpy.py LIBNDCUDA.so [--host-only] [--seed N] [--cases N] [--only F,F] [--self-check]
  --cases       cases per family (default 60; CI runs the host families with a small budget)
  --seed        the RNG seed (default: from the clock); always printed, so a failure replays
  --only        run only the named families
  --self-check  run the device families against np_standin.py (NumPy in the library's place):
                any difference found is a defect of this harness, not of ndcuda
Exit status 0 on success, 1 on a mismatch, 77 when NumPy is not installed (CTest: skipped).
"""
import ctypes as C
import math
import os
import re
import sys
import time
import warnings

try:
    import numpy as np
except ImportError:
    print("api_numpy: NumPy is not installed; skipped")
    sys.exit(77)
if int(np.__version__.split(".")[0]) < 2:
    print("api_numpy: NumPy %s is older than 2 (ndcuda follows NumPy 2's rules); skipped" % np.__version__)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(HERE, "..", "..", "include", "ndcuda")

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
DT = [np.dtype(t) for t in DTYPES]
PYINT, PYFLOAT, PYCOMPLEX = 64, 65, 66
OK, ERR_NO_DEVICE = 0, 10
DEFAULT = -1
AXIS_NONE = -(2 ** 63)
NONE64 = -(2 ** 63)
NORM_DEFAULT, NORM_FRO, NORM_NUC = 2.0 ** 1000, 2.0 ** 1001, 3 * 2.0 ** 1000


def code(dt):
    return DT.index(np.dtype(dt))


# ---- the binding, read from the public headers -------------------------------------------------

class Scalar(C.Structure):
    _fields_ = [("dtype", C.c_int), ("v", C.c_double * 2)]  # the union: 16 bytes at offset 8


class Operand(C.Structure):
    _fields_ = [("kind", C.c_int), ("array", C.c_void_p), ("scalar", Scalar)]


class Slice(C.Structure):
    _fields_ = [("start", C.c_int64), ("stop", C.c_int64), ("step", C.c_int64)]


class MemStats(C.Structure):
    _fields_ = [("f", C.c_int64 * 5)]


CTYPES = {
    "int": C.c_int, "unsigned": C.c_uint, "int64_t": C.c_int64, "uint64_t": C.c_uint64,
    "size_t": C.c_size_t, "double": C.c_double, "float": C.c_float, "char": C.c_char,
    "nd_status": C.c_int, "nd_dtype": C.c_int, "nd_order": C.c_int, "nd_casting": C.c_int,
    "nd_ufunc": C.c_int, "nd_qr_mode": C.c_int, "nd_bitgen": C.c_int, "nd_scalar": Scalar,
    "nd_operand": Operand, "nd_slice": Slice, "void": None, "const char *": C.c_char_p,
}


def ctype_of(t):
    t = " ".join(t.split())
    if t in CTYPES:
        return CTYPES[t]
    if t == "FNPTR":
        return C.c_void_p
    if "*" in t:
        base = t.replace("const", "").replace("*", "").strip()
        stars = t.count("*")
        if stars == 1 and base in ("int64_t", "int", "double", "float", "nd_dtype", "nd_scalar", "nd_slice"):
            return C.POINTER({"int64_t": C.c_int64, "int": C.c_int, "double": C.c_double, "float": C.c_float,
                              "nd_dtype": C.c_int, "nd_scalar": Scalar, "nd_slice": Slice}[base])
        if stars == 1 and base == "nd_memory_stats":
            return C.POINTER(MemStats)
        if stars == 1 and base == "nd_operand":
            return C.POINTER(Operand)
        if stars == 2 and base in ("nd_array", "nd_stream", "nd_event", "nd_generator", "void"):
            return C.POINTER(C.c_void_p)
        if stars == 2 and base == "int64_t":
            return C.POINTER(C.POINTER(C.c_int64))
        return C.c_void_p
    raise KeyError(t)


def read_headers():
    decls = {}
    for name in sorted(os.listdir(INCLUDE)):
        if not name.endswith(".h"):
            continue  # include/ndcuda/dlpack/ and anything else that is not a public header
        s = re.sub(r"/\*.*?\*/", " ", open(os.path.join(INCLUDE, name)).read(), flags=re.S)
        for m in re.finditer(r"ND_API\s+([\w\s\*]+?)\s*\b(nd_\w+)\s*\(((?:[^()]|\([^()]*\))*)\)\s*;", s):
            ret, fname, params = m.group(1).strip(), m.group(2), m.group(3).strip()
            types = []
            if params not in ("", "void"):
                for p in re.split(r",(?![^(]*\))", params):
                    p = " ".join(p.split())
                    if "(" in p:
                        types.append("FNPTR")
                        continue
                    t = re.match(r"(.*?)\s*\w+$", p).group(1)
                    types.append(re.sub(r"\s*\*\s*", " *", t).replace("* *", "**").strip())
            decls[fname] = (ret, types)
    return decls


class Lib:
    def __init__(self, path):
        self.dll = C.CDLL(path)
        self.decls = read_headers()
        self.cache = {}

    def __getattr__(self, name):
        if name.startswith("nd_"):
            f = self.cache.get(name)
            if f is None:
                ret, types = self.decls[name]
                f = getattr(self.dll, name)
                f.argtypes = [ctype_of(t) for t in types]
                f.restype = ctype_of(ret)
                self.cache[name] = f
            return f
        raise AttributeError(name)

    def err(self):
        return self.nd_last_error().decode(errors="replace")


def i64s(vals):
    vals = list(vals)
    return (C.c_int64 * max(len(vals), 1))(*vals)


def scalar(v, dt=None):
    """A weak Python scalar, or a strong one of NumPy dtype dt."""
    s = Scalar()
    if dt is None:
        if isinstance(v, bool) or isinstance(v, int):
            s.dtype = PYINT
            C.memmove(s.v, C.byref(C.c_int64(int(v))), 8)
        elif isinstance(v, float):
            s.dtype = PYFLOAT
            s.v[0] = v
        else:
            s.dtype = PYCOMPLEX
            s.v[0], s.v[1] = v.real, v.imag
        return s
    dt = np.dtype(dt)
    s.dtype = code(dt)
    if dt.kind == "b":
        C.memmove(s.v, C.byref(C.c_int(int(bool(v)))), 4)
    elif dt.kind == "i":
        C.memmove(s.v, C.byref(C.c_int64(int(v))), 8)
    elif dt.kind == "u":
        C.memmove(s.v, C.byref(C.c_uint64(int(v))), 8)
    elif dt.kind == "f":
        s.v[0] = float(v)
    else:
        s.v[0], s.v[1] = complex(v).real, complex(v).imag
    return s


# ---- the bookkeeping -------------------------------------------------------------------------------

class Tally:
    def __init__(self):
        self.cases, self.bad, self.shown, self.documented = {}, {}, {}, {}

    def case(self, fam):
        self.cases[fam] = self.cases.get(fam, 0) + 1

    def expected(self, fam, key):
        """A case that differs from NumPy as a row of docs/deviations.md says (see Deviations)."""
        self.documented[key] = self.documented.get(key, 0) + 1

    def fail(self, fam, msg):
        self.bad[fam] = self.bad.get(fam, 0) + 1
        self.shown[fam] = self.shown.get(fam, 0) + 1
        if self.shown[fam] <= 8:
            print("%s: %s" % (fam, msg))

    def summary(self):
        tot, bad = 0, 0
        for fam in self.cases:
            print("%-11s %6d cases, %d differ from NumPy" % (fam, self.cases[fam], self.bad.get(fam, 0)))
            tot += self.cases[fam]
            bad += self.bad.get(fam, 0)
        print("total       %6d cases, %d differ from NumPy" % (tot, bad))
        for key in sorted(self.documented):
            print("  (not counted: %d as documented in docs/deviations.md: '%s')" % (self.documented[key], key))
        return bad


def np_eval(f):
    """(result, None) or (None, exception)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(), None
        except (TypeError, ValueError, OverflowError, IndexError, ZeroDivisionError,
                np.linalg.LinAlgError, np.exceptions.AxisError) as e:
            return None, e


# ---- host families ----------------------------------------------------------------------------------

def fam_names(lib, rng, n, t):
    cands = set(k for k in np.sctypeDict if isinstance(k, str)) | set(np.typecodes["All"])
    for kind in "biufcUSV":
        for size in (1, 2, 3, 4, 8, 16, 32):
            cands.add(kind + str(size))
    base = sorted(cands)
    for k in base:
        for p in "<>=|":
            cands.add(p + k)
    names = sorted(cands)
    for _ in range(n):  # random mutations: case changes, extra characters, truncations
        s = list(base[rng.integers(len(base))])
        op = rng.integers(4)
        if op == 0 and s:
            i = rng.integers(len(s))
            s[i] = s[i].swapcase()
        elif op == 1:
            s.insert(int(rng.integers(len(s) + 1)), "<>=| _0123"[rng.integers(10)])
        elif op == 2 and len(s) > 1:
            s = s[:int(rng.integers(1, len(s)))]
        names.append("".join(s))
    for name in names:
        t.case("names")
        d, e = np_eval(lambda: np.dtype(name))
        want = None if e is not None or d not in DT or not d.isnative else code(d)
        out = C.c_int(-7)
        st = lib.nd_dtype_from_name(name.encode(), C.byref(out))
        got = out.value if st == OK else None
        if got != want:
            t.fail("names", "'%s': ndcuda %s, NumPy %s" % (name, DT[got].name if got is not None else "refused",
                                                            DT[want].name if want is not None else "refused"))
        elif st != OK and not lib.err().startswith("nd_dtype_from_name:"):
            t.fail("names", "'%s': message '%s'" % (name, lib.err()))


CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]


def fam_promotion(lib, rng, n, t):
    for a in range(14):
        for b in range(14):
            t.case("promotion")
            out = C.c_int(-7)
            st = lib.nd_promote_types(a, b, C.byref(out))
            want = np.promote_types(DT[a], DT[b])
            if st != OK or DT[out.value] != want:
                t.fail("promotion", "promote_types(%s, %s): ndcuda %s, NumPy %s" % (
                    DT[a].name, DT[b].name, DT[out.value].name if st == OK else lib.err(), want.name))
            for c, cname in enumerate(CASTINGS):
                t.case("promotion")
                got = lib.nd_can_cast(a, b, c)
                if bool(got) != np.can_cast(DT[a], DT[b], cname):
                    t.fail("promotion", "can_cast(%s, %s, %s): ndcuda %d" % (DT[a].name, DT[b].name, cname, got))
    for _ in range(n):
        k = int(rng.integers(1, 5))
        codes = [int(rng.integers(14)) for _ in range(k)]
        t.case("promotion")
        arr = (C.c_int * k)(*codes)
        out = C.c_int(-7)
        st = lib.nd_result_type(k, arr, C.byref(out))
        want = np.result_type(*[DT[c] for c in codes])
        if st != OK or DT[out.value] != want:
            t.fail("promotion", "result_type(%s): ndcuda %s, NumPy %s" % (
                [DT[c].name for c in codes], DT[out.value].name if st == OK else lib.err(), want.name))


def rand_shape(rng, maxnd=4, maxdim=5):
    return tuple(int(x) for x in rng.integers(0, maxdim + 1, size=int(rng.integers(0, maxnd + 1))))


def fam_shapes(lib, rng, n, t):
    for _ in range(n):
        k = int(rng.integers(0, 5))
        base = rand_shape(rng, 5, 4)
        shapes = []
        for _ in range(k):  # mostly compatible: drop leading axes, set some to 1, sometimes a mismatch
            s = list(base[int(rng.integers(0, len(base) + 1)):])
            for i in range(len(s)):
                if rng.random() < 0.3:
                    s[i] = 1
                elif rng.random() < 0.05:
                    s[i] = int(rng.integers(0, 7))
            shapes.append(tuple(s))
        t.case("shapes")
        want, e = np_eval(lambda: np.broadcast_shapes(*shapes))
        ndims = (C.c_int * max(k, 1))(*[len(s) for s in shapes])
        keep = [i64s(s) for s in shapes]
        ptrs = (C.POINTER(C.c_int64) * max(k, 1))(*[C.cast(x, C.POINTER(C.c_int64)) for x in keep])
        ond = C.c_int(-1)
        osh = (C.c_int64 * 32)()
        st = lib.nd_broadcast_shapes(k, ndims, ptrs, C.byref(ond), osh)
        if e is not None:
            if st == OK or not lib.err().startswith("nd_broadcast_shapes:"):
                t.fail("shapes", "broadcast_shapes%s: NumPy raises, ndcuda %s" % (shapes, st if st else "succeeds"))
        elif st != OK or tuple(osh[i] for i in range(ond.value)) != tuple(want):
            t.fail("shapes", "broadcast_shapes%s: ndcuda %s, NumPy %s" % (
                shapes, lib.err() if st else tuple(osh[i] for i in range(ond.value)), want))
    for _ in range(n):
        def part():
            return None if rng.random() < 0.3 else int(rng.integers(-12, 13))
        sl = slice(part(), part(), part())
        length = int(rng.integers(0, 10))
        t.case("shapes")
        want, e = np_eval(lambda: sl.indices(length))
        s = Slice(NONE64 if sl.start is None else sl.start, NONE64 if sl.stop is None else sl.stop,
                  NONE64 if sl.step is None else sl.step)
        a, b, c = C.c_int64(), C.c_int64(), C.c_int64()
        st = lib.nd_slice_indices(s, length, C.byref(a), C.byref(b), C.byref(c))
        if e is not None:
            if st == OK or not lib.err().startswith("nd_slice_indices:"):
                t.fail("shapes", "slice %s of %d: NumPy raises, ndcuda %s" % (sl, length, st))
        elif st != OK or (a.value, b.value, c.value) != (want[0], want[2], len(range(*want))):
            t.fail("shapes", "slice %s of %d: ndcuda %s, Python %s" % (
                sl, length, (a.value, b.value, c.value) if st == OK else lib.err(), want))


def expect_error(lib, t, fam, fname, st, what):
    if st == OK:
        t.fail(fam, "%s: NumPy raises, ndcuda succeeds" % what)
    elif st == ERR_NO_DEVICE and not lib.err().startswith(fname + ":"):
        t.fail(fam, "%s: no device, and the message '%s' does not name %s" % (what, lib.err(), fname))
    elif not lib.err().startswith(fname + ":"):
        t.fail(fam, "%s: message '%s' does not start with '%s:'" % (what, lib.err(), fname))


def fam_badargs(lib, rng, n, t):
    """Arguments NumPy refuses that ndcuda must refuse before touching a device."""
    for _ in range(n):
        out = C.c_void_p()
        kind = int(rng.integers(7))
        dt = int(rng.integers(14))
        if kind == 0:  # negative dimension
            shape = list(rand_shape(rng, 3, 4)) + [-int(rng.integers(1, 5))]
            rng.shuffle(shape)
            _, e = np_eval(lambda: np.empty(shape, DT[dt]))
            fname = ["nd_empty", "nd_zeros", "nd_ones"][int(rng.integers(3))]
            st = getattr(lib, fname)(len(shape), i64s(shape), dt, C.byref(out))
            what = "%s(%s)" % (fname, shape)
        elif kind == 1:  # arange with step 0 or a non-finite bound
            start, stop, step = [float(x) for x in rng.integers(-5, 6, 3)]
            which = int(rng.integers(3))
            if which == 0:
                step = 0.0
            else:
                stop = [math.inf, -math.inf, math.nan][int(rng.integers(3))]
            _, e = np_eval(lambda: np.arange(start, stop, step))
            fname = "nd_arange"
            st = lib.nd_arange(start, stop, step, DEFAULT, C.byref(out))
            what = "arange(%g, %g, %g)" % (start, stop, step)
        elif kind == 2:
            num = -int(rng.integers(1, 10))
            _, e = np_eval(lambda: np.linspace(0, 1, num))
            fname = "nd_linspace"
            st = lib.nd_linspace(0.0, 1.0, num, 1, DEFAULT, C.byref(out))
            what = "linspace(0, 1, %d)" % num
        elif kind == 3:
            nn = -int(rng.integers(1, 10))
            fname = ["nd_eye", "nd_tri"][int(rng.integers(2))]
            _, e = np_eval(lambda: (np.eye if fname == "nd_eye" else np.tri)(nn))
            st = getattr(lib, fname)(nn, -1, 0, DEFAULT, C.byref(out))
            what = "%s(%d)" % (fname, nn)
        elif kind == 4:  # a Python int out of an integer dtype's range
            ints = [i for i in range(1, 9)]
            dt = ints[int(rng.integers(len(ints)))]
            info = np.iinfo(DT[dt])
            v = int(info.max) + int(rng.integers(1, 1000)) if rng.random() < 0.5 else int(info.min) - int(rng.integers(1, 1000))
            if v > 2 ** 63 - 1 or v < -2 ** 63:
                continue
            _, e = np_eval(lambda: np.full(2, v, DT[dt]))
            fname = "nd_full"
            st = lib.nd_full(1, i64s([2]), scalar(v), dt, C.byref(out))
            what = "full(2, %d, %s)" % (v, DT[dt].name)
        elif kind == 5:  # a Python int out of range into the _like form
            dt = int(rng.integers(1, 9))
            info = np.iinfo(DT[dt])
            v = int(info.max) + 1 if rng.random() < 0.5 else int(info.min) - 1
            if v > 2 ** 63 - 1 or v < -2 ** 63:  # a C int64 cannot carry it
                continue
            _, e = np_eval(lambda: np.full_like(np.zeros(2), v, dtype=DT[dt]))
            fname = "nd_full"
            st = lib.nd_full(1, i64s([2]), scalar(v), dt, C.byref(out))
            what = "full(2, %r, %s)" % (v, DT[dt].name)
        else:  # an unknown dtype name
            s = "".join(chr(int(c)) for c in rng.integers(97, 123, int(rng.integers(1, 8))))
            _, e = np_eval(lambda: np.dtype(s))
            if e is None:
                continue
            fname = "nd_dtype_from_name"
            o = C.c_int()
            st = lib.nd_dtype_from_name(s.encode(), C.byref(o))
            what = "dtype('%s')" % s
        t.case("badargs")
        if e is None:
            if st == OK:
                lib.nd_array_release(out)
            continue  # NumPy accepts: the device families check the values
        expect_error(lib, t, "badargs", fname, st, what)


# ---- device arrays ----------------------------------------------------------------------------------

class Dev:
    def __init__(self, lib):
        self.lib = lib
        self.live = []

    def up(self, a):
        a = np.array(order="C", object=a)
        out = C.c_void_p()
        st = self.lib.nd_array_from_host(a.ctypes.data if a.size else None, a.nbytes, a.ndim, i64s(a.shape),
                                         code(a.dtype), C.byref(out))
        if st != OK:
            raise RuntimeError("upload: " + self.lib.err())
        self.live.append(out)
        return out

    def down(self, h):
        lib = self.lib
        nd = lib.nd_array_ndim(h)
        shp = lib.nd_array_shape(h)
        r = np.empty(tuple(shp[i] for i in range(nd)), DT[lib.nd_array_dtype(h)])
        st = lib.nd_array_to_host(h, r.ctypes.data if r.size else None, r.nbytes)
        if st != OK:
            raise RuntimeError("download: " + lib.err())
        return r

    def keep(self, h):
        if h and h.value:
            self.live.append(h)
        return h

    def free(self):
        for h in self.live:
            if h and h.value:
                self.lib.nd_array_release(h)
        self.live = []


def rand_values(rng, dt, shape, nan=False, lo=-100, hi=100):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(lo, int(info.min)), min(hi, int(info.max)) + 1, size=shape).astype(dt)
    x = rng.standard_normal(shape) * 10
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape) * 10
    if nan and x.size:
        m = rng.random(shape) < 0.2
        x = np.where(m, np.nan, x)
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(dt)


def rand_layout(rng, dev, a):
    """The same array as NumPy view v and device handle h, often with an awkward layout:
    transposed, offset, strided with negative steps."""
    lib = dev.lib
    if a.ndim == 0 or rng.random() < 0.3:
        return a, dev.up(a)
    if rng.random() < 0.5:  # a bigger base, sliced down with steps
        steps = [int(rng.choice([1, 2, -1, -2])) for _ in range(a.ndim)]
        base_shape = [max(1, s) * abs(st) + 1 for s, st in zip(a.shape, steps)]
        base = rand_values(rng, a.dtype, tuple(base_shape))
        sl = []
        for s, st, bs in zip(a.shape, steps, base_shape):
            start = 1 if st > 0 else bs - 1
            sl.append(slice(start, start + st * s if (start + st * s) >= 0 else None, st))
        view = base[tuple(sl)]
        view[...] = a  # the values the caller asked for, in the sliced layout
        arr = (Slice * a.ndim)(*[Slice(x.start, NONE64 if x.stop is None else x.stop, x.step) for x in sl])
        h = C.c_void_p()
        if lib.nd_array_slice(dev.up(base), a.ndim, arr, C.byref(h)) != OK:
            raise RuntimeError("slice: " + lib.err())
        dev.keep(h)
        return view, h
    perm = rng.permutation(a.ndim)
    inv = np.argsort(perm)
    t = np.array(order="C", object=np.transpose(a, perm))
    th = dev.up(t)
    h = C.c_void_p()
    lib.nd_array_transpose(th, a.ndim, i64s(inv), C.byref(h))
    dev.keep(h)
    return a, h


def eps_of(dt):
    dt = np.dtype(dt)
    if dt.kind == "c":
        dt = np.dtype(dt.char.lower())
    return float(np.finfo(dt).eps) if dt.kind == "f" else 0.0


def size_of(want):
    """|want| with a NaN part counted as 0, as a tolerance scale: a complex answer whose real
    part is NaN still has a finite imaginary part that is compared within the tolerance."""
    return np.abs(np.nan_to_num(np.asarray(want), nan=0.0))


def same(got, want, tol=0.0, scale=None):
    """None, or a description of the first difference. tol is relative to scale (elementwise
    or scalar; default |want|); NaN matches NaN."""
    if got.dtype != want.dtype:
        return "dtype %s, NumPy %s" % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return "shape %s, NumPy %s" % (got.shape, want.shape)
    if want.size == 0:
        return None
    if want.dtype.kind in "biu":
        bad = np.flatnonzero(got.ravel() != want.ravel())
        return None if not bad.size else "element %d: %s, NumPy %s" % (bad[0], got.ravel()[bad[0]], want.ravel()[bad[0]])
    g = got.astype(np.complex128).ravel()
    w = want.astype(np.complex128).ravel()
    sc = np.abs(w) if scale is None else np.broadcast_to(np.asarray(scale, dtype=np.float64), want.shape).ravel()
    # a NaN scale (a NaN answer) allows nothing extra; an infinite one is the largest float
    sc = np.nan_to_num(sc.astype(np.float64), nan=0.0, posinf=np.finfo(np.float64).max)
    for part in (np.real, np.imag):
        gp, wp = part(g), part(w)
        nan_ok = np.isnan(gp) == np.isnan(wp)
        inf_ok = np.where(np.isinf(wp), gp == wp, True)
        with np.errstate(all="ignore"):
            close = np.where(np.isfinite(wp), np.abs(gp - wp) <= tol * sc + 1e-300, True)
        ok = nan_ok & inf_ok & close
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            return "element %d: %r, NumPy %r" % (i, got.ravel()[i], want.ravel()[i])
    return None


class Deviations:
    """The documented deviations a case may show instead of NumPy's answer.

    A case that differs from NumPy passes only through a predicate given to run() for it,
    which names the deviation by a key: a phrase of its row in docs/deviations.md. The key is
    looked up in that page on every use; a key the page does not contain (the row was removed
    or reworded) makes the case a failure, so this harness cannot excuse what the page does
    not list. Every excused case is counted in the summary."""

    PAGE = os.path.join(HERE, "..", "..", "docs", "deviations.md")

    def __init__(self):
        try:
            with open(self.PAGE) as f:
                self.text = " ".join(f.read().split())
        except OSError:
            self.text = ""

    def excuse(self, t, fam, key, what):
        """True when key is a documented deviation (counted); else reports the case."""
        if key in self.text:
            t.expected(fam, key)
            return True
        t.fail(fam, "%s: excused as '%s', which docs/deviations.md does not list" % (what, key))
        return True  # reported here: the caller must not report it again


DEVIATIONS = None


def reduced_shape(shape, axes, keep):
    """The shape of a reduction of shape over axes (None: all), keepdims or not."""
    nd = len(shape)
    ax = set(range(nd)) if axes is None else {int(a) % nd for a in axes}
    return tuple(1 if i in ax else d for i, d in enumerate(shape) if keep or i not in ax)


# The rows of docs/deviations.md that run()'s deviation predicates name (a phrase of each).
DEV_ZERO_SIZE_QUANTILE = "zero-size array over an empty axis tuple or over two or more axes"
DEV_ZERO_SIZE_AVERAGE = "`average` of a zero-size array whose result is zero-size"
DEV_SINGULAR = "of an exactly singular matrix"


def dev_zero_size_quantile(shape, axes, keep, qdims=()):
    """NumPy's quantile, percentile and median merge the reduced axes with a -1 reshape,
    which raises for a zero-size array over () or several axes; ndcuda answers the
    zero-size result of the reduced shape."""
    def d(st, got, want, e):
        if isinstance(e, ValueError) and "cannot reshape array of size 0" in str(e) and st == OK \
                and isinstance(got, np.ndarray) and got.size == 0 \
                and got.shape == tuple(qdims) + reduced_shape(shape, axes, keep):
            return DEV_ZERO_SIZE_QUANTILE
        return None
    return d


def dev_either(*preds):
    """The first key any of the predicates (None: left out) gives."""
    def d(st, got, want, e):
        for p in (p for p in preds if p is not None):
            key = p(st, got, want, e)
            if key is not None:
                return key
        return None
    return d


def dev_zero_size_average(shape, axes):
    """NumPy's unweighted average divides the sizes, ZeroDivisionError for a zero-size
    result; ndcuda answers that zero-size result."""
    def d(st, got, want, e):
        if isinstance(e, ZeroDivisionError) and str(e) == "division by zero" and st == OK \
                and isinstance(got, np.ndarray) and got.size == 0 and got.shape == reduced_shape(shape, axes, False):
            return DEV_ZERO_SIZE_AVERAGE
        return None
    return d


DEV_COMPLEX_SPREAD = "of complex arrays with a real `dtype`"
DEV_F16_QUANTILE = "of float16 and float32 arrays with several `q`"


def dev_complex_spread(v, name, kwargs):
    """var and std of complex data with a real dtype: NumPy sums the mean in that dtype,
    which drops its imaginary part, and measures the spread about that wrong centre; ndcuda
    keeps the complex mean. The case is excused when ndcuda's answer is the spread about the
    complex mean (NumPy's own var/std without dtype=, on the data converted to the complex type
    of the dtype's precision, as ndcuda computes it)."""
    def d(st, got, want, e):
        dt = kwargs.get("dtype")
        if v.dtype.kind != "c" or dt is None or np.dtype(dt).kind == "c" or st != OK or e is not None \
                or not isinstance(got, np.ndarray):
            return None
        kw = {k: x for k, x in kwargs.items() if k != "dtype"}
        ct = np.complex128 if np.dtype(dt) == np.float64 else np.complex64
        with np.errstate(all="ignore"):
            right = getattr(np, name)(v.astype(ct), **kw)
        return DEV_COMPLEX_SPREAD if same_spread(got, right, dt) else None
    return d


def same_spread(got, right, dt):
    """got is right (a var or std) to 64 ulp of dtype dt, relative to right's largest magnitude."""
    right = np.asarray(right, np.float64)
    tol = 64 * float(np.finfo(dt).eps)
    with np.errstate(all="ignore"):
        return got.shape == right.shape and np.allclose(got.astype(np.float64), right, rtol=tol,
                                                        atol=tol * float(np.nanmax(np.abs(right), initial=0)),
                                                        equal_nan=True)


DEV_COMPLEX_MEAN = "`mean` of complex values with an infinite or NaN part"


def dev_complex_mean(v, name, kwargs):
    """mean of complex data: NumPy divides the complex sum by the count promoted to complex
    (Smith's quotient, (a + b*0) / n and (b - a*0) / n), so an infinite or NaN part turns the
    other into NaN; ndcuda divides each part by the count. Excused when ndcuda's answer is the
    sum divided part by part (to 64 ulp)."""
    def d(st, got, want, e):
        if name != "mean" or v.dtype.kind != "c" or st != OK or e is not None or not isinstance(got, np.ndarray) \
                or got.dtype.kind != "c" or got.shape != np.shape(want):
            return None
        with np.errstate(all="ignore"):
            total = np.asarray(np.sum(v, **kwargs))
            cnt = v.size / max(total.size, 1) if v.size else 0
            re, im = total.real / cnt, total.imag / cnt
        tol = 64 * float(np.finfo(got.dtype).eps)
        ok = got.shape == total.shape and all(
            np.allclose(g, r, rtol=tol, atol=tol * float(np.nanmax(np.abs(np.where(np.isfinite(r), r, 0)), initial=0)),
                        equal_nan=True)
            for g, r in ((got.real.astype(np.float64), re), (got.imag.astype(np.float64), im)))
        return DEV_COMPLEX_MEAN if ok else None
    return d


DEV_NARROW_SPREAD = "with a `dtype` narrower than the data"
DEV_EMPTY_INT_MEAN = "over an empty selection with an integer `dtype`"
DEV_F16_SCAN = "`cumsum` / `cumprod` with a float16 result"
DEV_OVERFLOW_PARTS = "a complex product that overflows"


def dev_overflow_parts(f):
    """det and cumprod of complex values whose product overflows: which parts come out inf and
    which NaN depends on the order of the products (the pivots' product for det, ndcuda's
    parallel scan for cumprod). Excused when every element that differs is non-finite on both
    sides (and the rest agree as the check asks)."""
    def d(st, got, want, e):
        if st != OK or e is not None or not isinstance(got, np.ndarray) or got.dtype.kind != "c" \
                or got.shape != np.shape(want):
            return None
        w = np.asarray(want)
        both = ~np.isfinite(got) & ~np.isfinite(w)
        if not both.any():
            return None
        g = np.where(both, w, got)
        return DEV_OVERFLOW_PARTS if f(g, w) is None else None
    return d


def dev_f16_scan(v, f, axis, rdt):
    """cumsum and cumprod with a float16 result: NumPy rounds the running value to float16
    after every step, so a prefix that overflowed stays inf (and each step's rounding
    accumulates); ndcuda carries the running value in float32 and rounds each output once.
    Excused when ndcuda's answer is NumPy's carried in float32 and rounded to float16."""
    def d(st, got, want, e):
        if st != OK or e is not None or not isinstance(got, np.ndarray) or got.dtype != np.float16:
            return None
        with np.errstate(all="ignore"):
            right = getattr(np, f)(v, axis=axis, dtype=np.float32).astype(np.float16)
        e16 = float(np.finfo(np.float16).eps)
        tol = max(64 * float(np.finfo(np.float32).eps) * max(v.size, 1), e16)
        with np.errstate(all="ignore"):
            # a running sum near zero after cancellation: within an ulp of the largest term
            big = float(np.abs(v.astype(np.complex128)).max()) if v.size else 1.0
            ok = got.shape == right.shape and np.allclose(got.astype(np.float64), right.astype(np.float64),
                                                          rtol=tol, atol=e16 * big if f == "cumsum" else 0,
                                                          equal_nan=True)
        return DEV_F16_SCAN if ok else None
    return d


def dev_narrow_spread(v, name, kwargs):
    """var and std with a dtype of less precision than the data: NumPy subtracts the mean,
    rounded to the dtype, from the data at the data's precision; ndcuda converts the data to the
    dtype first. Excused when ndcuda's answer is NumPy's on the converted data."""
    def d(st, got, want, e):
        dt = kwargs.get("dtype")
        if dt is None or v.dtype.kind not in "fc" or np.dtype(dt).kind not in "fc" or st != OK or e is not None \
                or not isinstance(got, np.ndarray) or np.finfo(dt).eps <= np.finfo(v.dtype).eps:
            return None
        with np.errstate(all="ignore"):
            right = getattr(np, name)(v.astype(dt), **kwargs)
        return DEV_NARROW_SPREAD if same_spread(got, right, dt) else None
    return d


def dev_empty_int_mean(name, shape, axes, kwargs):
    """mean (and nanmean) over an empty selection with an integer dtype: NumPy's 0 / 0 goes to
    the integer through its scalar conversion of NaN; ndcuda's through the array cast's.
    Excused when every element of ndcuda's answer is NumPy's astype of NaN to that dtype (of
    an array: NumPy's own 0-d cast takes the scalar path, 0 for uint32 where its vector loop
    gives 2147483648 on x86)."""
    def d(st, got, want, e):
        dt = kwargs.get("dtype")
        if name not in ("mean", "nanmean") or dt is None or np.dtype(dt).kind not in "iu" or st != OK or e is not None \
                or not isinstance(got, np.ndarray) or got.size == 0:
            return None
        n = int(np.prod([shape[a] for a in (range(len(shape)) if axes is None else axes)], dtype=np.int64))
        with np.errstate(all="ignore"):
            nan_as = np.full(64, np.nan).astype(dt)[0]
        if n == 0 and got.dtype == np.dtype(dt) and np.all(got == nan_as):
            return DEV_EMPTY_INT_MEAN
        return None
    return d


def dev_f16_quantile(v, f, qs, axes, keep):
    """quantile and percentile of float16 and float32 data with several q (a float64
    result): NumPy rounds b - a to the data's dtype before interpolating; ndcuda interpolates
    from the exact values. Excused when ndcuda's answer is NumPy's on the data converted to
    float64."""
    def d(st, got, want, e):
        if v.dtype not in (np.float16, np.float32) or not isinstance(qs, list) or st != OK or e is not None \
                or not isinstance(got, np.ndarray):
            return None
        with np.errstate(all="ignore"):
            right = np.asarray(getattr(np, f)(v.astype(np.float64), qs, axis=axes, keepdims=bool(keep)), np.float64)
        if got.shape == right.shape and np.allclose(got.astype(np.float64), right, rtol=1e-12, atol=0, equal_nan=True):
            return DEV_F16_QUANTILE
        return None
    return d


ND_ERR_SINGULAR = 18


def dev_singular(kind, n, f, eps, p=None):
    """For an exactly singular input (the "singular" generator only): NumPy's LAPACK may
    pivot on roundoff and answer where cuSOLVER finds an exact zero pivot, or the reverse.
    solve and inv: ndcuda's ND_ERR_SINGULAR where NumPy answers, or an answer where NumPy
    raises LinAlgError; cond: ndcuda's inf (or a value past 1/eps) where NumPy gives a finite
    number from its roundoff inverse, and any answer for the orders that take a minimum
    (p = -1, -2, -inf: the smallest column or row sum of a roundoff inverse, or the ratio of a
    roundoff singular value to the largest, are roundoff on both sides). (The generator makes
    a matrix singular by repeating its first row, so only when n > 1.)"""
    def d(st, got, want, e):
        if kind != "singular" or n < 2:
            return None
        if f in ("solve", "inv"):
            if (e is None and st == ND_ERR_SINGULAR) or (isinstance(e, np.linalg.LinAlgError) and st == OK):
                return DEV_SINGULAR
        elif f == "det" and e is None and st == OK and isinstance(got, np.ndarray) and got.shape == np.shape(want):
            # roundoff pivots whose product leaves the dtype's range: NumPy's +-inf (or a huge
            # value) where ndcuda found the exact zero pivot, or the reverse
            w = np.asarray(want)
            if np.all((got == w) | (got == 0) | (w == 0) | ~np.isfinite(got) | ~np.isfinite(w)):
                return DEV_SINGULAR
        elif f == "cond" and e is None and st == OK and isinstance(got, np.ndarray) and got.shape == want.shape:
            if p is not None and p in (-1, -2, -np.inf):
                return DEV_SINGULAR
            g = np.abs(got.astype(np.float64))
            w = np.abs(np.asarray(want, np.float64))
            with np.errstate(all="ignore"):
                if np.all(~np.isfinite(g) | (g > 1 / eps / 64) | (np.abs(g - w) <= 1e-3 * w)):
                    return DEV_SINGULAR
        return None
    return d


def run(lib, dev, t, fam, fname, np_fn, nd_fn, check, what, deviation=None):
    """NumPy's answer and ndcuda's, compared by check(got, want) -> None or message.

    deviation(st, got, want, e) -> key or None: for a case that would fail, the documented
    deviation it shows (see Deviations), if any. st is ndcuda's status (lib.err() its
    message), got its result (None on an error), want NumPy's (None when it raised e)."""
    t.case(fam)
    want, e = np_eval(np_fn)
    try:
        st, got = nd_fn()
    except RuntimeError as x:
        t.fail(fam, "%s: %s" % (what, x))
        return

    def excused():
        global DEVIATIONS
        key = deviation(st, got, want, e) if deviation is not None else None
        if key is None:
            return False
        if DEVIATIONS is None:
            DEVIATIONS = Deviations()
        return DEVIATIONS.excuse(t, fam, key, what)
    if e is not None:
        if st == OK and excused():
            return
        expect_error(lib, t, fam, fname, st, what + " [NumPy: %s: %s]" % (type(e).__name__, e))
        return
    if st != OK:
        if not excused():
            t.fail(fam, "%s: ndcuda %s, NumPy answers" % (what, lib.err()))
        return
    try:
        msg = check(got, want)
    except Exception as x:  # a defect of this harness: reported, and the run goes on
        msg = "the comparison itself failed: %s: %s" % (type(x).__name__, x)
    if msg and not excused():
        t.fail(fam, "%s: %s" % (what, msg))


def refused(lib, t, fam, fname, st, what):
    """A documented refusal (docs/deviations.md): an error status naming the function."""
    t.case(fam)
    if st == OK:
        t.fail(fam, "%s: documented as refused, but ndcuda succeeds" % what)
    elif not lib.err().startswith(fname + ":"):
        t.fail(fam, "%s: message '%s' does not start with '%s:'" % (what, lib.err(), fname))


def result_call(dev, f, *args):
    """Calls f(*args, &result), returns (status, NumPy copy of the result)."""
    out = C.c_void_p()
    st = f(*args, C.byref(out))
    if st != OK:
        return st, None
    dev.keep(out)
    return st, dev.down(out)


# ---- device families ----------------------------------------------------------------------------------

def fam_creation(lib, dev, rng, n, t):
    for _ in range(n):
        dt = int(rng.integers(14))
        shape = rand_shape(rng, 3, 4)
        k = int(rng.integers(9))
        if k == 0:
            f = ["zeros", "ones"][int(rng.integers(2))]
            run(lib, dev, t, "creation", "nd_" + f, lambda: getattr(np, f)(shape, DT[dt]),
                lambda: result_call(dev, getattr(lib, "nd_" + f), len(shape), i64s(shape), dt), same,
                "%s(%s, %s)" % (f, shape, DT[dt].name))
        elif k == 1:
            v = [int(rng.integers(-300, 300)), float(rng.standard_normal() * 100), complex(1.5, -2)][int(rng.integers(3))]
            run(lib, dev, t, "creation", "nd_full", lambda: np.full(shape, v, DT[dt]),
                lambda: result_call(dev, lib.nd_full, len(shape), i64s(shape), scalar(v), dt), same,
                "full(%s, %r, %s)" % (shape, v, DT[dt].name))
        elif k == 2:
            start, stop = float(rng.integers(-20, 20)), float(rng.integers(-20, 20))
            step = float(rng.choice([0.5, 1, 2, -1, -0.25, 3]))
            dts = [None, 3, 4, 10, 11]
            d = dts[int(rng.integers(len(dts)))]
            run(lib, dev, t, "creation", "nd_arange", lambda: np.arange(start, stop, step, dtype=None if d is None else DT[d]),
                lambda: result_call(dev, lib.nd_arange, start, stop, step, DEFAULT if d is None else d),
                lambda g, w: same(g, w, 2 * eps_of(w.dtype), np.abs(w) + abs(step)),
                "arange(%g, %g, %g, %s)" % (start, stop, step, d))
        elif k == 3:
            start, stop, num = float(rng.standard_normal() * 10), float(rng.standard_normal() * 10), int(rng.integers(0, 12))
            ep = int(rng.integers(2))
            d = [None, 10, 11, 4][int(rng.integers(4))]
            run(lib, dev, t, "creation", "nd_linspace",
                lambda: np.linspace(start, stop, num, endpoint=bool(ep), dtype=None if d is None else DT[d]),
                lambda: result_call(dev, lib.nd_linspace, start, stop, num, ep, DEFAULT if d is None else d),
                lambda g, w: same(g, w, 4 * eps_of(w.dtype), abs(start) + abs(stop)),
                "linspace(%g, %g, %d, %d, %s)" % (start, stop, num, ep, d))
        elif k == 4:
            nn, mm, kk = int(rng.integers(0, 6)), int(rng.integers(-1, 6)), int(rng.integers(-4, 5))
            f = ["eye", "tri"][int(rng.integers(2))]
            run(lib, dev, t, "creation", "nd_" + f, lambda: getattr(np, f)(nn, None if mm < 0 else mm, kk, DT[dt]),
                lambda: result_call(dev, getattr(lib, "nd_" + f), nn, mm, kk, dt), same,
                "%s(%d, %d, %d, %s)" % (f, nn, mm, kk, DT[dt].name))
        elif k == 5:
            sh = rand_shape(rng, 4, 4)
            if len(sh) < 2:
                sh = sh + (3, 4)
            a = rand_values(rng, DT[dt], sh)
            kk = int(rng.integers(-3, 4))
            f = ["tril", "triu"][int(rng.integers(2))]
            v, h = rand_layout(rng, dev, a)
            run(lib, dev, t, "creation", "nd_" + f, lambda: getattr(np, f)(v, kk),
                lambda: result_call(dev, getattr(lib, "nd_" + f), h, kk), same, "%s(%s %s, %d)" % (f, sh, DT[dt].name, kk))
        elif k == 6:
            sh = (int(rng.integers(0, 5)),) if rng.random() < 0.5 else (int(rng.integers(0, 5)), int(rng.integers(0, 5)))
            a = rand_values(rng, DT[dt], sh)
            kk = int(rng.integers(-3, 4))
            v, h = rand_layout(rng, dev, a)
            run(lib, dev, t, "creation", "nd_diag", lambda: np.diag(v, kk),
                lambda: result_call(dev, lib.nd_diag, h, kk), same, "diag(%s %s, %d)" % (sh, DT[dt].name, kk))
        elif k == 7:
            a = rand_values(rng, DT[dt], shape)
            v, h = rand_layout(rng, dev, a)
            d2 = int(rng.integers(-1, 14))
            f = ["zeros_like", "ones_like"][int(rng.integers(2))]
            run(lib, dev, t, "creation", "nd_" + f, lambda: getattr(np, f)(v, dtype=None if d2 < 0 else DT[d2]),
                lambda: result_call(dev, getattr(lib, "nd_" + f), h, d2), same,
                "%s(%s %s, %d)" % (f, shape, DT[dt].name, d2))
        else:
            nn = int(rng.integers(0, 6))
            run(lib, dev, t, "creation", "nd_identity", lambda: np.identity(nn, DT[dt]),
                lambda: result_call(dev, lib.nd_identity, nn, dt), same, "identity(%d, %s)" % (nn, DT[dt].name))
        dev.free()


def fam_views(lib, dev, rng, n, t):
    for _ in range(n):
        dt = int(rng.integers(14))
        a = rand_values(rng, DT[dt], rand_shape(rng, 4, 4))
        v, h = rand_layout(rng, dev, a)
        chain = []
        for _ in range(int(rng.integers(1, 5))):
            k = int(rng.integers(13))
            out = C.c_void_p()
            nd = v.ndim
            if k == 0 and v.size:
                new = list(v.shape)
                rng.shuffle(new)
                new = [int(np.prod(v.shape))] if rng.random() < 0.3 else new
                if rng.random() < 0.3 and new:
                    new[int(rng.integers(len(new)))] = -1
                np_fn, nd_fn, name = (lambda v=v, s=new: v.reshape(s)), (lambda s=new: lib.nd_array_reshape(h, len(s), i64s(s), C.byref(out))), "reshape%s" % (new,)
            elif k == 1:
                perm = [int(x) for x in rng.permutation(nd)] if rng.random() < 0.8 else None
                np_fn = lambda v=v, p=perm: np.transpose(v, p)
                nd_fn = lambda p=perm: lib.nd_array_transpose(h, 0 if p is None else len(p), None if p is None else i64s(p), C.byref(out))
                name = "transpose(%s)" % perm
            elif k == 2:
                a1, a2 = int(rng.integers(-nd - 1, nd + 1)), int(rng.integers(-nd - 1, nd + 1))
                np_fn, nd_fn, name = (lambda v=v: np.swapaxes(v, a1, a2)), (lambda: lib.nd_array_swapaxes(h, a1, a2, C.byref(out))), "swapaxes(%d, %d)" % (a1, a2)
            elif k == 3:
                a1, a2 = int(rng.integers(-nd - 1, nd + 1)), int(rng.integers(-nd - 1, nd + 1))
                np_fn, nd_fn, name = (lambda v=v: np.moveaxis(v, a1, a2)), (lambda: lib.nd_array_moveaxis(h, a1, a2, C.byref(out))), "moveaxis(%d, %d)" % (a1, a2)
            elif k == 4:
                ax = int(rng.integers(-nd - 2, nd + 2))
                np_fn, nd_fn, name = (lambda v=v: np.expand_dims(v, ax)), (lambda: lib.nd_array_expand_dims(h, ax, C.byref(out))), "expand_dims(%d)" % ax
            elif k == 5:
                axes = [i for i in range(nd) if v.shape[i] == 1 or rng.random() < 0.1]
                np_fn = lambda v=v: np.squeeze(v, tuple(axes)) if axes else np.squeeze(v)
                nd_fn = lambda: lib.nd_array_squeeze(h, len(axes), i64s(axes) if axes else None, C.byref(out))
                name = "squeeze(%s)" % axes
            elif k == 6:
                axes = sorted(set(int(x) for x in rng.integers(-nd, nd, size=int(rng.integers(0, nd + 1))))) if nd else []
                axes = [x for x in axes if (x % nd if nd else 0) not in [(y % nd) for y in axes if y != x]] if nd else []
                np_fn = lambda v=v: np.flip(v, tuple(axes) if axes else None)
                nd_fn = lambda: lib.nd_array_flip(h, len(axes), i64s(axes) if axes else None, C.byref(out))
                name = "flip(%s)" % axes
            elif k == 7 and nd:
                sls = []
                for i in range(int(rng.integers(1, nd + 1))):
                    def p():
                        return None if rng.random() < 0.3 else int(rng.integers(-6, 7))
                    st_ = None if rng.random() < 0.3 else int(rng.choice([1, 2, 3, -1, -2]))
                    sls.append(slice(p(), p(), st_))
                arr = (Slice * len(sls))(*[Slice(NONE64 if s.start is None else s.start, NONE64 if s.stop is None else s.stop,
                                                 NONE64 if s.step is None else s.step) for s in sls])
                np_fn, nd_fn, name = (lambda v=v: v[tuple(sls)]), (lambda: lib.nd_array_slice(h, len(sls), arr, C.byref(out))), "slice%s" % (sls,)
            elif k == 8 and nd:
                ax, ix = int(rng.integers(-nd, nd)), int(rng.integers(-6, 6))
                np_fn = lambda v=v: np.take(v, ix, axis=ax) if -v.shape[ax] <= ix < v.shape[ax] else v[(slice(None),) * (ax % nd) + (ix,)]
                nd_fn, name = (lambda: lib.nd_array_index(h, ax, ix, C.byref(out))), "index(%d, %d)" % (ax, ix)
            elif k == 9 and nd >= 2:
                off, a1, a2 = int(rng.integers(-3, 4)), int(rng.integers(-nd, nd)), int(rng.integers(-nd, nd))
                np_fn, nd_fn, name = (lambda v=v: np.diagonal(v, off, a1, a2)), (lambda: lib.nd_array_diagonal(h, off, a1, a2, C.byref(out))), "diagonal(%d, %d, %d)" % (off, a1, a2)
            elif k == 10:
                target = list(rand_shape(rng, 2, 3)) + [s if rng.random() < 0.8 else int(rng.integers(0, 4)) for s in v.shape]
                np_fn, nd_fn, name = (lambda v=v: np.broadcast_to(v, target)), (lambda: lib.nd_array_broadcast_to(h, len(target), i64s(target), C.byref(out))), "broadcast_to(%s)" % target
            elif k == 11:
                np_fn, nd_fn, name = (lambda v=v: np.ravel(v)), (lambda: lib.nd_array_ravel(h, C.byref(out))), "ravel"
            else:
                # imag of a real array is an error in ndcuda (a documented deviation: NumPy
                # returns read-only zeros), so it is drawn for complex arrays only
                which = int(rng.integers(2)) if v.dtype.kind == "c" else 0
                np_fn = lambda v=v, w=which: np.imag(v) if w else np.real(v)
                nd_fn = lambda w=which: (lib.nd_array_imag if w else lib.nd_array_real)(h, C.byref(out))
                name = ["real", "imag"][which]
            chain.append(name)
            want, e = np_eval(np_fn)
            st = nd_fn()
            t.case("views")
            what = "%s %s: %s" % (DT[dt].name, a.shape, " . ".join(chain))
            if e is not None:
                expect_error(lib, t, "views", "nd_array_" + name.split("(")[0].split("%")[0].split("[")[0], st, what)
                break
            if st != OK:
                t.fail("views", "%s: ndcuda %s, NumPy answers" % (what, lib.err()))
                break
            dev.keep(out)
            msg = same(dev.down(out), np.array(order="C", object=want))
            if msg:
                t.fail("views", "%s: %s" % (what, msg))
                break
            v, h = want, out
        # copies of whatever the chain made
        t.case("views")
        d2 = int(rng.integers(14))
        if True:  # the values are finite and moderate: every conversion is defined
            out = C.c_void_p()
            st = lib.nd_array_astype(h, d2, C.byref(out))
            if st != OK:
                t.fail("views", "astype %s -> %s: %s" % (v.dtype, DT[d2].name, lib.err()))
            else:
                dev.keep(out)
                want, _ = np_eval(lambda: v.astype(DT[d2]))
                msg = same(dev.down(out), np.array(order="C", object=want))
                if msg:
                    t.fail("views", "%s . astype(%s): %s" % (" . ".join(chain), DT[d2].name, msg))
        dev.free()
    for _ in range(n // 2):  # joining and repeating
        dt = int(rng.integers(14))
        sh = rand_shape(rng, 3, 3)
        k = int(rng.integers(4))
        if k < 2:
            m = int(rng.integers(1, 4))
            ax = int(rng.integers(-len(sh) - 1, len(sh) + 1))
            arrs = []
            for _ in range(m):
                s = list(sh)
                if k == 0 and sh and 0 <= (ax % max(len(sh), 1)) < len(sh) and rng.random() < 0.7:
                    s[ax % len(sh)] = int(rng.integers(0, 4))
                arrs.append(rand_values(rng, DT[int(rng.integers(14)) if rng.random() < 0.3 else dt], tuple(s)))
            hs = [dev.up(x) for x in arrs]
            ptr = (C.c_void_p * m)(*[x.value for x in hs])
            f = ["concatenate", "stack"][k]
            run(lib, dev, t, "views", "nd_" + f, lambda: getattr(np, f)(arrs, axis=ax),
                lambda: result_call(dev, getattr(lib, "nd_" + f), m, ptr, ax), same,
                "%s(%d x %s, axis %d)" % (f, m, sh, ax))
        elif k == 2:
            a = rand_values(rng, DT[dt], sh)
            v, h = rand_layout(rng, dev, a)
            reps = [int(x) for x in rng.integers(0, 3, size=int(rng.integers(1, 4)))]
            run(lib, dev, t, "views", "nd_tile", lambda: np.tile(v, reps),
                lambda: result_call(dev, lib.nd_tile, h, len(reps), i64s(reps)), same, "tile(%s, %s)" % (sh, reps))
        else:
            a = rand_values(rng, DT[dt], sh)
            v, h = rand_layout(rng, dev, a)
            r = int(rng.integers(0, 4))
            ax = None if rng.random() < 0.3 or not sh else int(rng.integers(-len(sh), len(sh)))
            run(lib, dev, t, "views", "nd_repeat", lambda: np.repeat(v, r, axis=ax),
                lambda: result_call(dev, lib.nd_repeat, h, r, AXIS_NONE if ax is None else ax), same,
                "repeat(%s, %d, %s)" % (sh, r, ax))
        dev.free()


RED_SUM = ["sum", "prod", "nansum", "mean", "nanmean"]
RED_PLAIN = ["amin", "amax", "nanmin", "nanmax", "ptp", "all", "any", "median"]


def rand_axes(rng, nd):
    r = rng.random()
    if r < 0.25 or nd == 0:
        return None
    if r < 0.3:
        return ()
    k = int(rng.integers(1, nd + 1))
    axes = [int(x) for x in rng.choice(nd, size=k, replace=False)]
    axes = [x - nd if rng.random() < 0.3 else x for x in axes]
    if rng.random() < 0.05:
        axes.append(int(rng.integers(nd, nd + 3)))  # out of range: NumPy's AxisError
    return tuple(axes)


def axes_args(axes):
    if axes is None:
        return 0, None
    if axes == ():
        return 0, i64s([0])
    return len(axes), i64s(axes)


def red_tol(name, a, want, axes):
    """(relative tolerance, scale) for a reduction's result."""
    dt = want.dtype
    if dt.kind not in "fc":
        return 0.0, None
    e = eps_of(dt)
    if name in ("amin", "amax", "nanmin", "nanmax", "ptp"):
        return 0.0, None
    big = float(np.nanmax(np.abs(a.astype(np.complex128)))) if a.size else 1.0
    if not math.isfinite(big):
        big = 1.0
    count = a.size if axes is None else int(np.prod([a.shape[x] for x in axes])) if axes else 1
    if name == "prod":
        return 64 * max(e, eps_of(a.dtype) if a.dtype.kind in "fc" else e) * max(count, 1), size_of(want)
    if name in ("var", "std"):
        return 32 * e * max(count, 1), size_of(want) + big * e
    return 8 * max(e, eps_of(a.dtype) if a.dtype.kind in "fc" else 0) * max(count, 1), big + size_of(want)


def fam_reductions(lib, dev, rng, n, t):
    for _ in range(n):
        dt = int(rng.integers(14))
        name = (RED_SUM + ["var", "std"] + RED_PLAIN + ["count_nonzero", "argmin", "argmax"])[int(rng.integers(18))]
        if name == "median" and DT[dt].kind == "c":
            dt = 11  # complex median is refused (docs/deviations.md)
        shape = rand_shape(rng, 4, 4)
        nanny = name.startswith("nan") or rng.random() < 0.1
        a = rand_values(rng, DT[dt], shape, nan=nanny, lo=-3 if name == "prod" else -100, hi=3 if name == "prod" else 100)
        v, h = rand_layout(rng, dev, a)
        keep = int(rng.integers(2))
        if name in ("argmin", "argmax"):
            ax = None if rng.random() < 0.3 or not shape else int(rng.integers(-len(shape), len(shape)))
            run(lib, dev, t, "reductions", "nd_" + name, lambda: getattr(np, name)(v, axis=ax, keepdims=bool(keep)),
                lambda: result_call(dev, getattr(lib, "nd_" + name), h, AXIS_NONE if ax is None else ax, keep, None), same,
                "%s(%s %s, axis=%s, keepdims=%d)" % (name, shape, DT[dt].name, ax, keep))
            dev.free()
            continue
        axes = rand_axes(rng, len(shape))
        na, ap = axes_args(axes)
        rdt = None
        if name in RED_SUM and rng.random() < 0.3:
            rdt = int(rng.integers(14))
        if name in ("var", "std") and rng.random() < 0.3:
            rdt = int(rng.choice([9, 10, 11]))
        ddof = float(rng.integers(0, 2))
        kwargs = {"axis": axes, "keepdims": bool(keep)}
        if rdt is not None:
            kwargs["dtype"] = DT[rdt]
        if name in ("var", "std"):
            kwargs["ddof"] = ddof
        np_name = {"amin": "amin", "amax": "amax"}.get(name, name)
        use_out = rng.random() < 0.25 and name != "count_nonzero"
        what = "%s(%s %s, axis=%s, keepdims=%d, dtype=%s%s)" % (name, shape, DT[dt].name, axes, keep,
                                                               None if rdt is None else DT[rdt].name, ", out" if use_out else "")

        def np_fn():
            return np.asarray(getattr(np, np_name)(v, **kwargs))

        def nd_fn():
            f = getattr(lib, "nd_" + name)
            outh = None
            if use_out:  # an out= array of NumPy's result shape and dtype
                w, e = np_eval(np_fn)
                if e is not None:
                    return C.c_int(1).value, None
                outh = C.c_void_p()
                if lib.nd_empty(w.ndim, i64s(w.shape), code(w.dtype), C.byref(outh)) != OK:
                    raise RuntimeError("out: " + lib.err())
                dev.keep(outh)
            if name in RED_SUM:
                args = (h, na, ap, keep, DEFAULT if rdt is None else rdt, outh)
            elif name in ("var", "std"):
                args = (h, na, ap, keep, DEFAULT if rdt is None else rdt, ddof, outh)
            elif name == "count_nonzero":
                args = (h, na, ap, keep)
            else:
                args = (h, na, ap, keep, outh)
            if use_out:
                st = f(*args, None)
                return st, dev.down(outh) if st == OK else None
            return result_call(dev, f, *args)

        if use_out:
            w, e = np_eval(np_fn)
            if e is not None:
                dev.free()
                continue
        wa = v

        def check(g, w):
            tol, scale = red_tol(name, wa, w, None if axes is None else tuple(x % max(len(shape), 1) for x in axes))
            return same(g, w, tol, scale)
        run(lib, dev, t, "reductions", "nd_" + name, np_fn, nd_fn, check, what,
            deviation=dev_zero_size_quantile(shape, axes, keep) if name == "median"
            else dev_either(dev_complex_spread(v, name, kwargs), dev_narrow_spread(v, name, kwargs))
            if name in ("var", "std")
            else dev_either(dev_empty_int_mean(name, shape, None if axes is None else tuple(x % max(len(shape), 1) for x in axes),
                                               kwargs), dev_complex_mean(v, name, kwargs))
            if name in ("mean", "nanmean") else None)
        dev.free()


def fam_scans(lib, dev, rng, n, t):
    for _ in range(n):
        dt = int(rng.integers(14))
        shape = rand_shape(rng, 3, 5)
        a = rand_values(rng, DT[dt], shape, lo=-3, hi=3)
        v, h = rand_layout(rng, dev, a)
        k = int(rng.integers(3))
        if k < 2:
            f = ["cumsum", "cumprod"][k]
            ax = None if rng.random() < 0.3 or not shape else int(rng.integers(-len(shape), len(shape)))
            rdt = None if rng.random() < 0.6 else int(rng.integers(14))
            big = float(np.abs(a.astype(np.complex128)).max()) if a.size else 1.0

            def check(g, w, f=f, big=big):
                e = eps_of(w.dtype)
                if f == "cumprod":
                    return same(g, w, 64 * e * max(a.size, 1))
                return same(g, w, 8 * e * max(a.size, 1), big * max(a.size, 1) + np.abs(w))
            run(lib, dev, t, "scans", "nd_" + f, lambda: getattr(np, f)(v, axis=ax, dtype=None if rdt is None else DT[rdt]),
                lambda: result_call(dev, getattr(lib, "nd_" + f), h, AXIS_NONE if ax is None else ax,
                                    DEFAULT if rdt is None else rdt, None),
                check, "%s(%s %s, axis=%s, dtype=%s)" % (f, shape, DT[dt].name, ax, None if rdt is None else DT[rdt].name),
                dev_either(dev_f16_scan(v, f, ax, rdt), dev_overflow_parts(check) if f == "cumprod" else None))
        else:
            nn = int(rng.integers(0, 4))
            ax = int(rng.integers(-len(shape) - 1, len(shape) + 1)) if shape else -1
            run(lib, dev, t, "scans", "nd_diff", lambda: np.diff(v, nn, axis=ax),
                lambda: result_call(dev, lib.nd_diff, h, nn, ax),
                lambda g, w: same(g, w, 8 * eps_of(w.dtype), np.abs(w) + 1),
                "diff(%s %s, %d, axis=%d)" % (shape, DT[dt].name, nn, ax))
        dev.free()


def sortable(rng, dt, shape):
    a = rand_values(rng, DT[dt], shape, nan=rng.random() < 0.3, lo=-5, hi=5)  # ties
    return a


def fam_sorting(lib, dev, rng, n, t):
    for _ in range(n):
        dt = int(rng.integers(14))
        shape = rand_shape(rng, 3, 6)
        a = sortable(rng, dt, shape)
        v, h = rand_layout(rng, dev, a)
        k = int(rng.integers(6))
        ax = -1 if rng.random() < 0.5 or not shape else (None if rng.random() < 0.2 else int(rng.integers(-len(shape), len(shape))))
        if k == 5:
            # partition/argpartition: NumPy leaves the order within each side unspecified, so
            # the check is that the kth element is the sorted one and each side holds the
            # sorted array's values on that side (as multisets).
            arg = int(rng.integers(2))
            f = ["partition", "argpartition"][arg]
            n_ax = v.size if ax is None else (v.shape[ax] if v.ndim else 1)
            kth = int(rng.integers(-n_ax - 1, n_ax + 1)) if rng.random() < 0.1 else (int(rng.integers(-n_ax, n_ax)) if n_ax else 0)

            def check(g, w, arg=arg, kth=kth):
                src = v.ravel() if ax is None else v
                a_ = -1 if ax is None else ax
                if g.shape != w.shape or g.dtype != w.dtype or v.ndim == 0 or src.shape[a_] == 0:
                    return same(g, w)
                vals = np.take_along_axis(src, g, axis=a_) if arg else g
                if arg:
                    m = same(np.sort(g, axis=a_), np.broadcast_to(
                        np.expand_dims(np.arange(src.shape[a_]), tuple(i for i in range(src.ndim) if i != a_ % src.ndim)), g.shape))
                    if m:
                        return "not a permutation: " + m
                srt = np.sort(src, axis=a_)
                kk = kth % src.shape[a_]
                n_ = src.shape[a_]
                for lo, hi, nm in ((0, kk, "left side"), (kk, kk + 1, "kth"), (kk + 1, n_, "right side")):
                    m = same(np.sort(np.take(vals, range(lo, hi), axis=a_), axis=a_), np.take(srt, range(lo, hi), axis=a_))
                    if m:
                        return "%s: %s" % (nm, m)
                return None
            run(lib, dev, t, "sorting", "nd_" + f, lambda: getattr(np, f)(v, kth, axis=ax),
                lambda: result_call(dev, getattr(lib, "nd_" + f), h, kth, AXIS_NONE if ax is None else ax), check,
                "%s(%s %s, kth=%d, axis=%s)" % (f, shape, DT[dt].name, kth, ax))
        elif k == 0:
            run(lib, dev, t, "sorting", "nd_sort", lambda: np.sort(v, axis=ax),
                lambda: result_call(dev, lib.nd_sort, h, AXIS_NONE if ax is None else ax), same,
                "sort(%s %s, axis=%s)" % (shape, DT[dt].name, ax))
        elif k == 1:
            def check(g, w):
                if g.shape != w.shape or g.dtype != w.dtype or v.ndim == 0:
                    return same(g, w)
                src = v.ravel() if ax is None else v
                got_sorted = np.take_along_axis(src, g, axis=-1 if ax is None else ax)
                return same(got_sorted, np.sort(src, axis=-1 if ax is None else ax))
            run(lib, dev, t, "sorting", "nd_argsort", lambda: np.argsort(v, axis=ax),
                lambda: result_call(dev, lib.nd_argsort, h, AXIS_NONE if ax is None else ax), check,
                "argsort(%s %s, axis=%s)" % (shape, DT[dt].name, ax))
        elif k == 2:
            s = np.sort(sortable(rng, dt, (int(rng.integers(0, 12)),)))
            q = sortable(rng, int(rng.integers(14)) if rng.random() < 0.3 else dt, rand_shape(rng, 2, 5))
            side = int(rng.integers(2))
            sh, qh = dev.up(s), dev.up(q)
            run(lib, dev, t, "sorting", "nd_searchsorted", lambda: np.searchsorted(s, q, side=["left", "right"][side]),
                lambda: result_call(dev, lib.nd_searchsorted, sh, qh, side), same,
                "searchsorted(%s %s, %s %s, %s)" % (s.shape, s.dtype, q.shape, q.dtype, ["left", "right"][side]))
        elif k == 3:
            def nd_nonzero():
                res = (C.c_void_p * 32)()
                st = lib.nd_nonzero(h, res, 32)
                if st != OK:
                    return st, None
                outs = []
                for i in range(max(v.ndim, 1)):
                    hh = C.c_void_p(res[i])
                    dev.keep(hh)
                    outs.append(dev.down(hh))
                return st, np.stack(outs) if outs else np.zeros((0,), np.int64)
            run(lib, dev, t, "sorting", "nd_nonzero", lambda: np.stack(np.nonzero(v)) if v.ndim else np.nonzero(v),
                nd_nonzero, same, "nonzero(%s %s)" % (shape, DT[dt].name))
        else:
            run(lib, dev, t, "sorting", "nd_argwhere", lambda: np.argwhere(v),
                lambda: result_call(dev, lib.nd_argwhere, h), same, "argwhere(%s %s)" % (shape, DT[dt].name))
        dev.free()


def fam_sets(lib, dev, rng, n, t):
    for _ in range(n):
        dt = int(rng.integers(14))
        shape = rand_shape(rng, 3, 6)
        a = sortable(rng, dt, shape)
        v, h = rand_layout(rng, dev, a)
        use_unique = rng.random() < 0.6
        if use_unique:
            def nd_unique():
                vals, idx, inv, cnt = C.c_void_p(), C.c_void_p(), C.c_void_p(), C.c_void_p()
                st = lib.nd_unique(h, C.byref(vals), C.byref(idx), C.byref(inv), C.byref(cnt))
                if st != OK:
                    return st, None
                for x in (vals, idx, inv, cnt):
                    dev.keep(x)
                return st, tuple(dev.down(x) for x in (vals, idx, inv, cnt))

            def check(g, w):
                for i, nm in enumerate(("values", "index", "inverse", "counts")):
                    gi, wi = g[i], np.asarray(w[i])
                    if nm == "inverse":
                        wi = wi.reshape(-1) if gi.ndim == 1 else wi.reshape(gi.shape)
                    m = same(gi, wi)
                    if m:
                        return nm + ": " + m
                return None
            run(lib, dev, t, "sets", "nd_unique",
                lambda: np.unique(v, return_index=True, return_inverse=True, return_counts=True, equal_nan=True),
                nd_unique, check, "unique(%s %s)" % (shape, DT[dt].name))
        else:
            b = sortable(rng, int(rng.integers(14)) if rng.random() < 0.3 else dt, rand_shape(rng, 2, 6))
            bh = dev.up(b)
            inv = int(rng.integers(2))
            run(lib, dev, t, "sets", "nd_isin", lambda: np.isin(v, b, invert=bool(inv)),
                lambda: result_call(dev, lib.nd_isin, h, bh, inv), same,
                "isin(%s %s, %s %s, invert=%d)" % (shape, DT[dt].name, b.shape, b.dtype, inv))
        dev.free()


def fam_statistics(lib, dev, rng, n, t):
    for _ in range(n):
        k = int(rng.integers(4))
        if k == 0:
            dt = int(rng.integers(1, 12))
            shape = rand_shape(rng, 3, 5)
            a = rand_values(rng, DT[dt], shape, nan=rng.random() < 0.1)
            v, h = rand_layout(rng, dev, a)
            axes = rand_axes(rng, len(shape))
            na, ap = axes_args(axes)
            keep = int(rng.integers(2))
            pct = int(rng.integers(2))
            scale = 100.0 if pct else 1.0
            several = rng.random() < 0.5
            qs = [float(x) * scale for x in rng.random(int(rng.integers(1, 4)))] if several else float(rng.random()) * scale
            if rng.random() < 0.05:
                qs = 1.5 * scale if not several else [1.5 * scale]
            # NumPy interpolates integer data in the integer dtype and can wrap (a documented
            # deviation): its answer on float64 data is the reference there.
            ref = v.astype(np.float64) if v.dtype.kind in "iu" else v
            f = ["quantile", "percentile"][pct]
            want_dt = np.float64 if several or v.dtype.kind in "iu" else v.dtype

            def np_fn():
                r = np.asarray(getattr(np, f)(ref, qs, axis=axes, keepdims=bool(keep)))
                return r.astype(want_dt)
            if several:
                qa = (C.c_double * len(qs))(*qs)
                nd_fn = lambda: result_call(dev, getattr(lib, "nd_" + f + "s"), h, len(qs), qa, na, ap, keep, None)
            else:
                nd_fn = lambda: result_call(dev, getattr(lib, "nd_" + f), h, qs, na, ap, keep, None)
            big = float(np.nanmax(np.abs(a.astype(np.float64)))) if a.size and not np.isnan(a.astype(np.float64)).all() else 1.0
            run(lib, dev, t, "statistics", "nd_" + f + ("s" if several else ""), np_fn, nd_fn,
                lambda g, w: same(g, w, 8 * eps_of(w.dtype), big + 1),
                "%s(%s %s, %s, axis=%s, keepdims=%d)" % (f, shape, DT[dt].name, qs, axes, keep),
                deviation=dev_either(dev_zero_size_quantile(shape, axes, keep, (len(qs),) if several else ()),
                                     dev_f16_quantile(v, f, qs, axes, keep)))
        elif k == 1:
            dt = int(rng.integers(1, 12))
            shape = rand_shape(rng, 3, 5)
            a = rand_values(rng, DT[dt], shape)
            v, h = rand_layout(rng, dev, a)
            ax = None if rng.random() < 0.4 or not shape else int(rng.integers(-len(shape), len(shape)))
            wts = None
            if rng.random() < 0.6:
                wts = rng.random(shape if ax is None or rng.random() < 0.5 else (shape[ax],)) + 0.1
            wh = dev.up(wts) if wts is not None else None
            na, ap = axes_args(None if ax is None else (ax,))
            big = float(np.abs(a.astype(np.float64)).max()) if a.size else 1.0

            def nd_fn():
                return result_call(dev, lambda r: lib.nd_average(h, na, ap, wh, 0, r, None))
            run(lib, dev, t, "statistics", "nd_average", lambda: np.asarray(np.average(v, axis=ax, weights=wts)), nd_fn,
                lambda g, w: same(g, w, 16 * eps_of(w.dtype) * max(a.size, 1), big + 1),
                "average(%s %s, axis=%s, weights=%s)" % (shape, DT[dt].name, ax, None if wts is None else wts.shape),
                deviation=dev_zero_size_average(shape, None if ax is None else (ax,)) if wts is None else None)
        elif k == 2:
            dt = int(rng.integers(1, 12))
            a = rand_values(rng, DT[dt], (int(rng.integers(0, 40)),))
            h = dev.up(a)
            bins = int(rng.integers(1, 12))
            rg = None if rng.random() < 0.5 else sorted(float(x) for x in rng.integers(-50, 50, 2))
            if rg is not None and rg[0] == rg[1]:
                rg[1] += 1
            ra = (C.c_double * 2)(*rg) if rg is not None else None

            def nd_fn():
                hist, edges = C.c_void_p(), C.c_void_p()
                st = lib.nd_histogram(h, bins, ra, None, C.byref(hist), C.byref(edges))
                if st != OK:
                    return st, None
                dev.keep(hist), dev.keep(edges)
                return st, (dev.down(hist), dev.down(edges))

            def check(g, w):
                return same(g[0], w[0]) or same(g[1], w[1], 4 * eps_of(w[1].dtype), np.abs(w[1]) + 1)
            run(lib, dev, t, "statistics", "nd_histogram", lambda: np.histogram(a, bins, range=rg), nd_fn, check,
                "histogram(%d %s, %d, range=%s)" % (a.size, DT[dt].name, bins, rg))
        else:
            a = rng.integers(0, 20, int(rng.integers(0, 40)))
            if rng.random() < 0.05:
                a = np.append(a, -1)
            dt = int(rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8]))
            a = a.astype(DT[dt]) if DT[dt].kind in "ib" or (a >= 0).all() else a.astype(np.int64)
            h = dev.up(a)
            ml = int(rng.integers(0, 25))
            wts = None
            if rng.random() < 0.5:  # weights of any real dtype: NumPy sums them as float64
                wdt = int(rng.integers(12))
                wts = rand_values(rng, DT[wdt], (a.size,), lo=-5, hi=5) if wdt != 11 else rng.random(a.size)
            wh = dev.up(wts) if wts is not None else None
            big = float(np.abs(wts.astype(np.float64)).sum()) + 1 if wts is not None else 1.0
            run(lib, dev, t, "statistics", "nd_bincount", lambda: np.bincount(a, weights=wts, minlength=ml),
                lambda: result_call(dev, lib.nd_bincount, h, wh, ml),
                lambda g, w: same(g, w, 8 * eps_of(w.dtype) * max(a.size, 1), big),
                "bincount(%d %s, weights=%s, minlength=%d)" % (a.size, a.dtype, None if wts is None else wts.dtype, ml))
        dev.free()


LA_DT = [3, 4, 10, 11, 12, 13]  # int32, int64, float32, float64, complex64, complex128


def la_matrix(rng, dt, batch, n, m=None, kind="general"):
    m = n if m is None else m
    shape = tuple(batch) + (n, m)
    x = rng.standard_normal(shape)
    if DT[dt].kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if kind == "spd":
        x = x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)
    elif kind == "singular" and n > 1:
        x[..., -1, :] = x[..., 0, :]
    elif kind == "indefinite":
        x = x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)
        if n:
            x[..., -1, -1] = -abs(x[..., -1, -1])
    elif kind == "general":
        x = x + 2 * n * np.eye(n, m)
    if DT[dt].kind in "iu":
        x = np.round(x)
    return x.astype(DT[dt])


def fam_linalg(lib, dev, rng, n, t):
    for _ in range(n):
        dt = LA_DT[int(rng.integers(len(LA_DT)))]
        batch = rand_shape(rng, 2, 3) if rng.random() < 0.4 else ()
        nn = int(rng.integers(0, 9)) if rng.random() < 0.8 else int(rng.choice([33, 65, 128]))
        kind = ["general", "general", "spd", "singular", "indefinite"][int(rng.integers(5))]
        a = la_matrix(rng, dt, batch, nn, kind=kind)
        v, h = rand_layout(rng, dev, a)
        cdt = np.result_type(a.dtype, np.float64) if a.dtype.kind in "iu" else a.dtype
        e = eps_of(cdt) * max(nn, 1) * 64
        f = ["inv", "solve", "det", "slogdet", "cholesky", "eigvalsh", "svd", "qr", "norm", "cond", "matrix_rank",
             "pinv", "trace", "matmul"][int(rng.integers(14))]
        what = "%s(%s %s %s)" % (f, a.shape, a.dtype, kind)
        fname = "nd_linalg_" + f if f not in ("trace", "matmul") else "nd_" + f
        if f == "inv":
            def check(g, w):
                if g.shape != w.shape or g.dtype != w.dtype:
                    return same(g, w)
                r = np.matmul(v.astype(np.complex128), g.astype(np.complex128)) - np.eye(nn)
                ok = np.abs(r).max() <= e * (1 + np.abs(v).max() * np.abs(g).max() * nn) if r.size else True
                return None if ok else "residual %g" % np.abs(r).max()
            run(lib, dev, t, "linalg", fname, lambda: np.linalg.inv(v), lambda: result_call(dev, lib.nd_linalg_inv, h), check, what,
                deviation=dev_singular(kind, nn, f, eps_of(cdt)))
        elif f == "solve":
            k = int(rng.integers(0, 3))
            bdt = LA_DT[int(rng.integers(len(LA_DT)))]
            # NumPy 2: b is a vector only when 1-d; otherwise a stack of (n, k) matrices
            b = rand_values(rng, DT[bdt], (nn,) if k == 0 else tuple(batch) + (nn, k))
            bh = dev.up(b)

            def check(g, w):
                if g.shape != w.shape or g.dtype != w.dtype:
                    return same(g, w)
                gg = g[..., None] if k == 0 else g
                bb = b[..., None] if k == 0 else b
                r = np.matmul(v.astype(np.complex128), gg.astype(np.complex128)) - bb
                ok = np.abs(r).max() <= e * (1 + np.abs(v).max() * np.abs(gg).max() * nn) * 4 if r.size else True
                return None if ok else "residual %g" % np.abs(r).max()
            run(lib, dev, t, "linalg", fname, lambda: np.linalg.solve(v, b), lambda: result_call(dev, lib.nd_linalg_solve, h, bh),
                check, what + " b %s %s" % (b.shape, b.dtype), deviation=dev_singular(kind, nn, f, eps_of(cdt)))
        elif f == "det":
            def check(g, w):
                if kind == "singular" and nn > 1:
                    # exactly singular: both dets are roundoff, below n eps times Hadamard's
                    # bound (the product of the rows' 2-norms), so within that of each other
                    hb = np.prod(np.linalg.norm(v.astype(np.complex128), axis=-1), axis=-1)
                    return same(g, w, 1.0, np.abs(w) * e * 4 + hb * eps_of(cdt) * 64 * nn)
                return same(g, w, e * 4, np.abs(w) + np.prod(np.abs(v).max(axis=-1, initial=0) + 1e-300, axis=-1) * eps_of(cdt))
            run(lib, dev, t, "linalg", fname, lambda: np.asarray(np.linalg.det(v)), lambda: result_call(dev, lib.nd_linalg_det, h),
                check, what, deviation=dev_either(dev_overflow_parts(check), dev_singular(kind, nn, f, eps_of(cdt))))
        elif f == "slogdet":
            def nd_fn():
                s, l = C.c_void_p(), C.c_void_p()
                st = lib.nd_linalg_slogdet(h, C.byref(s), C.byref(l))
                if st != OK:
                    return st, None
                dev.keep(s), dev.keep(l)
                return st, (dev.down(s), dev.down(l))

            def check(g, w):
                ws, wl = np.asarray(w[0]), np.asarray(w[1])
                # Numerically singular members (NumPy's |det| within roundoff of zero: below
                # n eps times Hadamard's bound, the product of the rows' 2-norms):
                # the sign and the log are roundoff on both sides, so both logs must be that
                # small and the signs are not compared. The others compare as usual.
                with np.errstate(divide="ignore"):
                    small = (np.sum(np.log(np.linalg.norm(v.astype(np.complex128), axis=-1) + 1e-300), axis=-1)
                             + np.log(eps_of(cdt) * 64 * max(nn, 1)))
                noise = np.asarray(wl <= small) if kind == "singular" else np.zeros(wl.shape, bool)
                if noise.any() and isinstance(g, tuple) and np.shape(g[1]) == wl.shape:
                    gl = np.asarray(g[1], np.float64)
                    if not np.all(gl[noise] <= np.asarray(small)[noise] if np.ndim(small) else gl[noise] <= small):
                        return "numerically singular member: log|det| %r, NumPy %r (roundoff scale %r)" % (
                            gl[noise].ravel()[:1], wl[noise].ravel()[:1], np.asarray(small).ravel()[:1])
                    gs, gl2 = np.array(g[0]), gl.copy()
                    gs[noise], gl2[noise] = ws[noise], wl[noise]
                    g = (gs, gl2.astype(np.asarray(g[1]).dtype))
                return same(g[0], ws, e * 8, 1) or same(g[1], wl, e * 8, np.abs(wl) + 1)
            run(lib, dev, t, "linalg", fname, lambda: np.linalg.slogdet(v), nd_fn, check, what)
        elif f == "cholesky":
            up = int(rng.integers(2))
            run(lib, dev, t, "linalg", fname, lambda: np.linalg.cholesky(v, upper=bool(up)),
                lambda: result_call(dev, lib.nd_linalg_cholesky, h, up),
                lambda g, w: same(g, w, e * 4, np.abs(w).max() + 1 if w.size else 1), what + " upper=%d" % up)
        elif f == "eigvalsh":
            run(lib, dev, t, "linalg", fname, lambda: np.linalg.eigvalsh(v), lambda: result_call(dev, lib.nd_linalg_eigvalsh, h, b"L"),
                lambda g, w: same(g, w, e * 4, np.abs(w).max() + 1 if w.size else 1), what)
        elif f == "svd":
            def nd_fn():
                s = C.c_void_p()
                st = lib.nd_linalg_svd(h, 0, 0, None, C.byref(s), None)
                if st != OK:
                    return st, None
                dev.keep(s)
                return st, dev.down(s)
            run(lib, dev, t, "linalg", fname, lambda: np.linalg.svd(v, compute_uv=False), nd_fn,
                lambda g, w: same(g, w, e * 4, np.abs(w).max() + 1 if w.size else 1), what)
        elif f == "qr":
            def nd_fn():
                q, r = C.c_void_p(), C.c_void_p()
                st = lib.nd_linalg_qr(h, 0, C.byref(q), C.byref(r))
                if st != OK:
                    return st, None
                dev.keep(q), dev.keep(r)
                return st, (dev.down(q), dev.down(r))

            def check(g, w):
                q, r = g
                if q.shape != w[0].shape or r.shape != w[1].shape or q.dtype != w[0].dtype:
                    return "shapes/dtypes %s %s %s, NumPy %s %s %s" % (q.shape, r.shape, q.dtype, w[0].shape, w[1].shape, w[0].dtype)
                if np.abs(np.tril(r, -1)).max(initial=0) != 0:
                    return "R is not upper triangular"
                rec = np.matmul(q.astype(np.complex128), r.astype(np.complex128)) - v
                ok = np.abs(rec).max(initial=0) <= e * (np.abs(v).max(initial=0) + 1)
                return None if ok else "|QR - A| = %g" % np.abs(rec).max()
            run(lib, dev, t, "linalg", fname, lambda: np.linalg.qr(v), nd_fn, check, what)
        elif f == "norm":
            ords = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]
            o = ords[int(rng.integers(len(ords)))]
            oc = {None: NORM_DEFAULT, "fro": NORM_FRO, "nuc": NORM_NUC}.get(o, o)
            axes = (-2, -1) if a.ndim >= 2 else None
            keep = int(rng.integers(2))
            na, ap = axes_args(axes)
            run(lib, dev, t, "linalg", fname, lambda: np.asarray(np.linalg.norm(v, o, axis=axes, keepdims=bool(keep))),
                lambda: result_call(dev, lib.nd_linalg_norm, h, float(oc), na, ap, keep),
                lambda g, w: same(g, w, e * 4, np.abs(w) + 1), what + " ord=%s keepdims=%d" % (o, keep))
        elif f == "cond":
            ords = [None, "fro", 1, -1, 2, -2, np.inf, -np.inf]
            o = ords[int(rng.integers(len(ords)))]
            oc = {None: NORM_DEFAULT, "fro": NORM_FRO}.get(o, o)

            def check(g, w):
                if g.shape != w.shape or g.dtype != w.dtype:
                    return same(g, w)
                big = (w > 1 / eps_of(cdt) / 64) | ~np.isfinite(w)  # ill-conditioned: both must say so
                gg = np.where(big, np.inf, g)
                ww = np.where(big, np.inf, w)
                return same(gg.astype(w.dtype), ww.astype(w.dtype), e * 64, np.abs(ww))
            run(lib, dev, t, "linalg", fname, lambda: np.asarray(np.linalg.cond(v, o)),
                lambda: result_call(dev, lib.nd_linalg_cond, h, float(oc)), check, what + " p=%s" % o,
                deviation=dev_singular(kind, nn, f, eps_of(cdt), p=o))
        elif f == "matrix_rank":
            run(lib, dev, t, "linalg", fname, lambda: np.asarray(np.linalg.matrix_rank(v)),
                lambda: result_call(dev, lib.nd_linalg_matrix_rank, h, -1.0), same, what)
        elif f == "pinv":
            run(lib, dev, t, "linalg", fname, lambda: np.linalg.pinv(v), lambda: result_call(dev, lib.nd_linalg_pinv, h, -1.0),
                lambda g, w: same(g, w, e * 64, np.abs(w).max() + 1 if w.size else 1) if kind != "singular" else
                (None if g.shape == w.shape and g.dtype == w.dtype else "shape/dtype %s %s" % (g.shape, g.dtype)), what)
        elif f == "trace":
            rdt = None if rng.random() < 0.6 else int(rng.integers(14))
            off = int(rng.integers(-2, 3))
            run(lib, dev, t, "linalg", fname, lambda: np.asarray(np.trace(v, off, -2, -1, dtype=None if rdt is None else DT[rdt])),
                lambda: result_call(dev, lib.nd_trace, h, off, -2, -1, DEFAULT if rdt is None else rdt),
                lambda g, w: same(g, w, 8 * eps_of(w.dtype) * max(nn, 1), np.abs(w) + np.abs(a).max(initial=0) + 1),
                what + " offset=%d dtype=%s" % (off, rdt))
        else:
            kk = int(rng.integers(0, 6))
            bdt = LA_DT[int(rng.integers(len(LA_DT)))]
            b = la_matrix(rng, bdt, batch[-1:] if batch and rng.random() < 0.5 else (), nn, kk)
            bv, bh = rand_layout(rng, dev, b)
            run(lib, dev, t, "linalg", fname, lambda: np.matmul(v, bv), lambda: result_call(dev, lib.nd_matmul, h, bh),
                lambda g, w: same(g, w, 16 * eps_of(w.dtype) * max(nn, 1), np.abs(w) + nn * np.abs(a).max(initial=0) * np.abs(b).max(initial=0) + 1),
                what + " @ %s %s" % (b.shape, b.dtype))
        dev.free()


def fam_random(lib, dev, rng, n, t):
    gen = C.c_void_p()
    seed = int(rng.integers(0, 2 ** 62))
    if lib.nd_generator_create(seed, 0, C.byref(gen)) != OK:
        t.case("random")
        t.fail("random", "generator_create: " + lib.err())
        return
    try:
        for _ in range(n):
            shape = rand_shape(rng, 3, 6)
            k = int(rng.integers(8))
            t.case("random")
            what = ""
            if k < 4:  # continuous: shape, dtype, range and (for a large sample) moments
                d = int(rng.choice([10, 11]))
                big = rng.random() < 0.3
                sh = (20000,) if big else shape
                name, args, mean, var, lo, hi = [
                    ("uniform", (-2.0, 3.0), 0.5, 25 / 12, -2.0, 3.0),
                    ("normal", (1.5, 2.0), 1.5, 4.0, -np.inf, np.inf),
                    ("exponential", (2.0,), 2.0, 4.0, 0.0, np.inf),
                    ("gamma", (3.0, 0.5), 1.5, 0.75, 0.0, np.inf)][k]
                what = "%s%s %s %s" % (name, args, sh, DT[d].name)
                st, g = result_call(dev, getattr(lib, "nd_random_" + name), gen, *args, len(sh), i64s(sh), d)
                if st != OK:
                    t.fail("random", "%s: %s" % (what, lib.err()))
                    continue
                if g.shape != sh or g.dtype != DT[d]:
                    t.fail("random", "%s: shape %s dtype %s" % (what, g.shape, g.dtype))
                elif g.size and not ((g >= lo) & (g <= hi)).all():
                    t.fail("random", "%s: values outside [%g, %g]: %g..%g" % (what, lo, hi, g.min(), g.max()))
                elif big:
                    m, s2 = float(g.astype(np.float64).mean()), float(g.astype(np.float64).var())
                    if abs(m - mean) > 6 * math.sqrt(var / g.size) or abs(s2 - var) > 0.1 * var:
                        t.fail("random", "%s: mean %g var %g, expected %g %g" % (what, m, s2, mean, var))
            elif k == 4:
                d = int(rng.choice([1, 2, 3, 4, 5, 6, 7, 8]))
                info = np.iinfo(DT[d])
                lo = int(rng.integers(max(int(info.min), -1000), min(int(info.max), 1000)))
                hi = lo + int(rng.integers(0, 50))
                ep = int(rng.integers(2))
                what = "integers(%d, %d, endpoint=%d, %s %s)" % (lo, hi, ep, shape, DT[d].name)
                want, e = np_eval(lambda: np.random.default_rng(0).integers(lo, hi, size=shape, dtype=DT[d], endpoint=bool(ep)))
                st, g = result_call(dev, lib.nd_random_integers, gen, scalar(lo), scalar(hi), ep, len(shape), i64s(shape), d)
                if e is not None:
                    expect_error(lib, t, "random", "nd_random_integers", st, what)
                elif st != OK:
                    t.fail("random", "%s: %s" % (what, lib.err()))
                elif g.shape != want.shape or g.dtype != want.dtype or (g.size and not ((g >= lo) & (g <= hi - (0 if ep else 1))).all()):
                    t.fail("random", "%s: shape %s dtype %s range %s..%s" % (what, g.shape, g.dtype, g.min(initial=0), g.max(initial=0)))
            elif k == 5:
                nn = int(rng.integers(0, 30))
                what = "permutation(%d)" % nn
                st, g = result_call(dev, lib.nd_random_permutation, gen, nn)
                if st != OK or g.dtype != np.int64 or sorted(g.tolist()) != list(range(nn)):
                    t.fail("random", "%s: %s" % (what, lib.err() if st else g))
            elif k == 6:
                nn = int(rng.integers(0, 20))
                rep = int(rng.integers(2))
                sh = (int(rng.integers(0, 8)),)
                p = None
                if rng.random() < 0.5 and nn:
                    p = rng.random(nn)
                    p /= p.sum()
                pa = (C.c_double * nn)(*p) if p is not None else None
                what = "choice(%d, %s, replace=%d, p=%s)" % (nn, sh, rep, p is not None)
                _, e = np_eval(lambda: np.random.default_rng(0).choice(nn, sh, replace=bool(rep), p=p))
                st, g = result_call(dev, lib.nd_random_choice, gen, nn, len(sh), i64s(sh), rep, pa)
                if e is not None:
                    expect_error(lib, t, "random", "nd_random_choice", st, what)
                elif st != OK:
                    t.fail("random", "%s: %s" % (what, lib.err()))
                elif g.shape != sh or (g.size and (g.min() < 0 or g.max() >= nn)) or (not rep and len(set(g.tolist())) != g.size) \
                        or (p is not None and g.size and (p[g] == 0).any()):
                    t.fail("random", "%s: %s" % (what, g))
            else:
                pr = float(rng.random())
                d = int(rng.choice([0, 3, 10, 11]))
                what = "bernoulli(%g, %s %s)" % (pr, shape, DT[d].name)
                st, g = result_call(dev, lib.nd_random_bernoulli, gen, pr, len(shape), i64s(shape), d)
                if st != OK or g.shape != shape or g.dtype != DT[d] or (g.size and not np.isin(g.astype(np.float64), [0, 1]).all()):
                    t.fail("random", "%s: %s" % (what, lib.err() if st else (g.shape, g.dtype)))
            dev.free()
    finally:
        lib.nd_generator_destroy(gen)


HOST = [("names", fam_names), ("promotion", fam_promotion), ("shapes", fam_shapes), ("badargs", fam_badargs)]
DEVICE = [("creation", fam_creation), ("views", fam_views), ("reductions", fam_reductions), ("scans", fam_scans),
          ("sorting", fam_sorting), ("sets", fam_sets), ("statistics", fam_statistics), ("linalg", fam_linalg),
          ("random", fam_random)]


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    seed = int(time.time() * 1000) % (2 ** 32)
    cases, host_only, only, self_check = 60, False, None, False
    i = 2
    while i < len(argv):
        if argv[i] == "--seed":
            seed, i = int(argv[i + 1]), i + 1
        elif argv[i] == "--cases":
            cases, i = int(argv[i + 1]), i + 1
        elif argv[i] == "--host-only":
            host_only = True
        elif argv[i] == "--self-check":
            self_check = True
        elif argv[i] == "--only":
            only, i = argv[i + 1].split(","), i + 1
        i += 1
    if "ND_FUZZ_SEED" in os.environ:
        seed = int(os.environ["ND_FUZZ_SEED"])
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    lib = Lib(argv[1])
    print("api_numpy: NumPy %s, seed %d (replay: --seed %d), %d cases per family%s" % (
        np.__version__, seed, seed, cases, " (self-check: NumPy stands in for the device)" if self_check else ""))
    t = Tally()
    # Every deviation a predicate can excuse (each a module-level DEV_ phrase) must be a row of
    # docs/deviations.md (checked here too, so that a reworded row shows on the host without a
    # case that needs it).
    page = Deviations()
    for key in [v for k, v in sorted(globals().items()) if k.startswith("DEV_")]:
        t.case("deviations")
        if key not in page.text:
            t.fail("deviations", "'%s' is not a row of %s" % (key, page.PAGE))
    for fam, f in HOST:
        if (only is None or fam in only) and not self_check:
            f(lib, np.random.default_rng([seed, len(fam)]), cases, t)
    if self_check:
        sys.path.insert(0, HERE)
        import np_standin
        lib = np_standin.Standin()
    if not host_only:
        out = C.c_void_p()
        st = lib.nd_zeros(1, i64s([1]), 11, C.byref(out))
        if st != OK:
            print("api_numpy: no usable CUDA device (%s); device families skipped" % lib.err())
        else:
            lib.nd_array_release(out)
            dev = Dev(lib)
            for fam, f in DEVICE:
                if only is None or fam in only:
                    try:
                        f(lib, dev, np.random.default_rng([seed, len(fam), 7]), cases, t)
                    except Exception as x:  # a defect of this harness: counted, the others go on
                        t.case(fam)
                        t.fail(fam, "the family stopped: %s: %s" % (type(x).__name__, x))
                        dev.free()
    bad = t.summary()
    if bad:
        print("api_numpy: replay with --seed %d" % seed)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
