#!/usr/bin/env python3
"""ndcuda's elementwise functions against NumPy itself, through the shared library (ctypes).

Two checks:
  types   every function (nd_ufunc_call's list) with every combination of operand dtypes, the
          weak Python kinds included: nd_ufunc_result_type must give the dtype NumPy's call
          gives, or ND_ERR_DTYPE where NumPy has no loop (TypeError). Host only.
  values  (when a CUDA device is usable) every function on every supported dtype combination
          over values that include the awkward ones (NaN, +-inf, -0.0, integer extremes,
          zero divisors, shift counts past the width), arrays and weak scalars on either
          side: the result must have NumPy's dtype and NumPy's values: exactly for integer,
          bool and comparison results and for correctly rounded operations, within a few ulp
          for the transcendental ones (8 in float32 / float64, 1 in float16; power and
          logaddexp 16), NaN matching any NaN. Where NumPy raises, ndcuda must return an
          error status (and the reverse).

Usage: ufunc_numpy.py LIBNDCUDA.so [--types-only]
Exit status 0 on success, 1 on a mismatch, 77 when NumPy is not installed (CTest: skipped).
"""
import ctypes as C
import math
import struct
import sys
import warnings

try:
    import numpy as np
except ImportError:
    print("ufunc_numpy: NumPy is not installed; skipped")
    sys.exit(77)

# ---- the library ----------------------------------------------------------------------------

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
DT = [np.dtype(t) for t in DTYPES]
PYINT, PYFLOAT, PYCOMPLEX = 64, 65, 66
WEAK = {PYINT: int, PYFLOAT: float, PYCOMPLEX: complex}
OK, ERR_DTYPE, ERR_NO_DEVICE = 0, 4, 10
NUMPY_VERSION = tuple(int(p) for p in np.__version__.split(".")[:2])
OPERAND_ARRAY, OPERAND_SCALAR = 1, 2


class Scalar(C.Structure):
    _fields_ = [("dtype", C.c_int), ("v", C.c_double * 2)]  # the union: 16 bytes at offset 8


class Operand(C.Structure):
    _fields_ = [("kind", C.c_int), ("array", C.c_void_p), ("scalar", Scalar)]


def load(path):
    lib = C.CDLL(path)
    lib.nd_ufunc_name.restype = C.c_char_p
    lib.nd_ufunc_name.argtypes = [C.c_int]
    lib.nd_ufunc_nin.argtypes = [C.c_int]
    lib.nd_ufunc_result_type.argtypes = [C.c_int, C.c_int, C.POINTER(C.c_int), C.POINTER(C.c_int)]
    lib.nd_ufunc_call.argtypes = [C.c_int, C.c_int, C.POINTER(Operand), C.c_void_p, C.POINTER(C.c_void_p)]
    lib.nd_last_error.restype = C.c_char_p
    lib.nd_array_from_host.argtypes = [C.c_void_p, C.c_size_t, C.c_int, C.POINTER(C.c_int64), C.c_int,
                                       C.POINTER(C.c_void_p)]
    lib.nd_array_to_host.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t]
    lib.nd_array_dtype.argtypes = [C.c_void_p]
    lib.nd_array_ndim.argtypes = [C.c_void_p]
    lib.nd_array_shape.argtypes = [C.c_void_p]
    lib.nd_array_shape.restype = C.POINTER(C.c_int64)
    lib.nd_array_release.argtypes = [C.c_void_p]
    lib.nd_array_release.restype = None
    return lib


def functions(lib):
    out, op = [], 0
    while lib.nd_ufunc_nin(op) > 0:
        out.append((op, lib.nd_ufunc_name(op).decode(), lib.nd_ufunc_nin(op)))
        op += 1
    return out


def dname(code):
    return {PYINT: "int", PYFLOAT: "float", PYCOMPLEX: "complex"}.get(code) or DT[code].name


# ---- NumPy's side ---------------------------------------------------------------------------

def np_call(name, args):
    """NumPy's result for function `name` on args (arrays or Python scalars)."""
    if name == "clip":
        return np.clip(*args)
    if name == "where":
        return np.where(*args)
    if name in ("real", "imag", "angle"):
        return getattr(np, name)(args[0])
    return getattr(np, name)(*args)


def np_result(name, args):
    """(dtype, values) or (exception class, None)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = np_call(name, args)
        except (TypeError, ValueError, OverflowError) as e:
            return type(e), None
    r = np.asarray(r)
    return r.dtype, r


def probe(code):
    """An operand of dtype code for the type check: a 1-element array or a weak scalar."""
    return WEAK[code](0) if code in WEAK else np.zeros(1, DT[code])


# ---- the type check -------------------------------------------------------------------------

def check_types(lib, funcs):
    bad = 0
    kinds = list(range(len(DT))) + [PYINT, PYFLOAT, PYCOMPLEX]
    total = 0
    for op, name, nin in funcs:
        combos = [[a] for a in kinds] if nin == 1 else \
                 [[a, b] for a in kinds for b in kinds] if nin == 2 else \
                 [[a, b, c] for a in kinds for b in kinds for c in kinds]
        for combo in combos:
            total += 1
            want, _ = np_result(name, [probe(c) for c in combo])
            arr = (C.c_int * nin)(*combo)
            got = C.c_int(-1)
            st = lib.nd_ufunc_result_type(op, nin, arr, C.byref(got))
            if isinstance(want, type):  # NumPy raised
                ok = st == ERR_DTYPE
                gotd = "status %d" % st if st else dname(got.value)
                wantd = want.__name__
            else:
                ok = st == OK and got.value < len(DT) and DT[got.value] == want
                gotd = dname(got.value) if st == OK else "status %d (%s)" % (st, lib.nd_last_error().decode())
                wantd = want.name
            if not ok:
                bad += 1
                if bad <= 400:
                    print("types: %s(%s): ndcuda %s, NumPy %s" % (name, ", ".join(dname(c) for c in combo), gotd, wantd))
    print("types: %d combinations of %d functions, %d differ from NumPy" % (total, len(funcs), bad))
    return bad


# ---- the value check ------------------------------------------------------------------------

def int_values(dt):
    info = np.iinfo(dt)
    v = [0, 1, 2, 3, 5, 7, 8, 13, 63, 100, info.max, info.max - 1, info.max // 3]
    if info.min < 0:
        v += [-1, -2, -3, -7, -8, -100, info.min, info.min + 1]
    bits = 8 * dt.itemsize
    v += [bits - 1, bits, bits + 1]  # shift counts at and past the width
    return sorted(set(x for x in v if info.min <= x <= info.max))


def float_values(dt):
    fi = np.finfo(dt)
    return [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, -7.25, 0.1, 0.9, 1.5, 10.0, 100.0,
            -1e3, 0.001, 3.14159, float(fi.tiny), float(fi.tiny) / 4, float(fi.max), -float(fi.max),
            float(fi.eps), math.inf, -math.inf, math.nan]


def values(dt):
    """The test values of array dtype dt (a 1-d NumPy array)."""
    if dt.kind == "b":
        return np.array([False, True], dt)
    if dt.kind in "iu":
        return np.array(int_values(dt), dt)
    if dt.kind == "f":
        with np.errstate(all="ignore"):
            return np.array(float_values(dt), dt)
    parts = [0.0, -0.0, 1.0, -1.5, 0.5, 3.0, math.inf, -math.inf, math.nan]
    return np.array([complex(r, i) for r in parts for i in parts[:6] + [math.inf, math.nan]], dt)


WEAK_VALUES = {PYINT: [0, 1, -1, 3, 127, 128, 255, 256, -129, 300, 2 ** 31, -2 ** 40],
               PYFLOAT: [0.0, -0.0, 0.5, -2.5, 1e300, math.inf, math.nan],
               PYCOMPLEX: [complex(1, 2), complex(-0.0, 0.0), complex(math.inf, math.nan)]}

# Results to be bit-exact in floating point: one correctly rounded operation or none.
EXACT = {"add", "subtract", "multiply", "divide", "negative", "positive", "absolute", "sqrt",
         "floor", "ceil", "trunc", "rint", "maximum", "minimum", "fmax", "fmin", "copysign",
         "nextafter", "signbit", "isnan", "isinf", "isfinite", "conjugate", "real", "imag",
         "clip", "where", "fmod", "remainder", "floor_divide", "reciprocal", "square", "sign",
         "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
         "logical_or", "logical_xor", "logical_not", "deg2rad", "rad2deg"}
# Complex results of these are formulas of several roundings, not one.
COMPLEX_INEXACT = {"multiply", "divide", "reciprocal", "square", "absolute", "sign"}


class Device:
    def __init__(self, lib):
        self.lib = lib

    def array(self, a):
        a = np.ascontiguousarray(a)
        shape = (C.c_int64 * max(a.ndim, 1))(*a.shape)
        out = C.c_void_p()
        code = DT.index(a.dtype)
        st = self.lib.nd_array_from_host(a.ctypes.data if a.size else None, a.nbytes, a.ndim, shape, code,
                                         C.byref(out))
        if st != OK:
            return st, None
        return OK, out

    def fetch(self, h):
        code = self.lib.nd_array_dtype(h)
        nd = self.lib.nd_array_ndim(h)
        shp = self.lib.nd_array_shape(h)
        shape = tuple(shp[i] for i in range(nd))
        r = np.empty(shape, DT[code])
        st = self.lib.nd_array_to_host(h, r.ctypes.data if r.size else None, r.nbytes)
        return st, r

    def release(self, h):
        if h:
            self.lib.nd_array_release(h)


def operand(dev, x, keep):
    """An Operand for x (NumPy array, or (weak code, value))."""
    o = Operand()
    if isinstance(x, tuple):
        code, v = x
        o.kind = OPERAND_SCALAR
        o.scalar.dtype = code
        raw = struct.pack("<q8x", v) if code == PYINT else struct.pack("<d8x", v) if code == PYFLOAT else \
            struct.pack("<dd", v.real, v.imag)
        C.memmove(o.scalar.v, raw, 16)
        return OK, o
    st, h = dev.array(x)
    if st != OK:
        return st, None
    keep.append(h)
    o.kind = OPERAND_ARRAY
    o.array = h
    return OK, o


def nd_run(dev, op, args):
    """(status, result array or message)."""
    keep = []
    try:
        ops = (Operand * len(args))()
        for i, x in enumerate(args):
            st, o = operand(dev, x, keep)
            if st != OK:
                return st, dev.lib.nd_last_error().decode()
            ops[i] = o
        res = C.c_void_p()
        st = dev.lib.nd_ufunc_call(op, len(args), ops, None, C.byref(res))
        if st != OK:
            return st, dev.lib.nd_last_error().decode()
        keep.append(res)
        st, r = dev.fetch(res)
        return st, r
    finally:
        for h in keep:
            dev.release(h)


def compare(name, got, want, args):
    """Index of the first mismatching element and the distance, or None."""
    if got.shape != want.shape:
        return ("shape", got.shape, want.shape)
    if want.dtype.kind in "biu":
        bad = np.flatnonzero(got.ravel() != want.ravel())
        return (int(bad[0]), 0) if bad.size else None
    dt = want.dtype
    real = np.dtype(dt.char.lower()) if dt.kind == "c" else dt
    cin = any(getattr(x, "dtype", np.dtype(type(x))).kind == "c" for x in args)
    if name in EXACT and not ((dt.kind == "c" or cin) and name in COMPLEX_INEXACT):
        tol = 0
    elif name in COMPLEX_INEXACT:
        tol = 2  # |z| and z / |z|: hypot within an ulp on either side
    elif dt == np.float16:
        tol = 1
    else:
        tol = 16 if name in ("power", "logaddexp", "logaddexp2") else 8
    if dt.kind == "c" and name == "power":
        # exp(b log a): both sides carry the rounding of b log a, amplified by its size
        with np.errstate(all="ignore"):
            a = np.broadcast_to(np.asarray(args[0], np.complex128), want.shape).ravel()
            b = np.broadcast_to(np.asarray(args[1], np.complex128), want.shape).ravel()
            amp = np.abs(b) * np.abs(np.log(np.where(a == 0, 1, a)))
        tol = tol * (1 + np.where(np.isfinite(amp), amp, 0))
    if dt.kind == "c" and name == "expm1":
        # docs/deviations.md: expm1 of complex +inf + 0j is inf + 0j (C99 and the array API
        # standard), where NumPy multiplies exp(inf) by sin(0) and answers inf + nanj.
        # With an infinite or NaN imaginary part the standard gives +-inf + nanj (the sign of
        # the real part unspecified) where NumPy gives nan + nanj.
        z = np.broadcast_to(np.asarray(args[0]), want.shape).ravel()
        fix = np.isposinf(z.real) & (z.imag == 0)
        fix2 = np.isposinf(z.real) & ~np.isfinite(z.imag)
        # -inf + infj and -inf + nanj: the standard's -1 +- 0j (the sign of the zero
        # unspecified), where NumPy gives nan + nanj.
        fix3 = np.isneginf(z.real) & ~np.isfinite(z.imag)
        # nan + 0j: the standard's nan + 0j (the zero's sign kept), where NumPy gives nan + nanj.
        fix4 = np.isnan(z.real) & (z.imag == 0)
        if fix.any() or fix2.any() or fix3.any() or fix4.any():
            want = want.copy().ravel()
            want[fix] = np.inf + 1j * z.imag[fix].astype(real)
            # (set part by part: inf + 1j * nan would be nan + nanj)
            gr = np.asarray(got).ravel().real
            want.real[fix2] = np.where(np.isneginf(gr[fix2]), -np.inf, np.inf)
            want.imag[fix2] = np.nan
            gi = np.asarray(got).ravel().imag
            want.real[fix3] = -1.0
            want.imag[fix3] = np.where(gi[fix3] == 0, gi[fix3], 0.0)
            want.real[fix4] = np.nan
            want.imag[fix4] = z.imag[fix4].astype(real)
            want = want.reshape(got.shape)
    if dt.kind == "c":
        g, w = got.ravel(), want.ravel()
        # each part within tol ulp of the larger finite part (complex formulas mix the two)
        with np.errstate(all="ignore"):
            scale = np.maximum(np.where(np.isfinite(w.real), np.abs(w.real), 0),
                               np.where(np.isfinite(w.imag), np.abs(w.imag), 0)).astype(real)
        d = np.maximum(near(g.real, w.real, scale, real), near(g.imag, w.imag, scale, real))
        if name == "power":
            # where b log a is so large that its rounding exceeds a radian, the phase of
            # exp(b log a) carries no information on either side: only |result| is compared
            lost = amp * float(np.finfo(real).eps) > 0.5
            with np.errstate(all="ignore"):
                same_mag = np.isinf(np.abs(g.astype(np.complex128))) == np.isinf(np.abs(w.astype(np.complex128)))
            d = np.where(lost, np.where(same_mag, 0.0, np.inf), d)
        bad = np.flatnonzero(d > np.maximum(tol, 2 if name in EXACT else tol))
        return (int(bad[0]), float(d[bad[0]])) if bad.size else None
    d = near(got.ravel(), want.ravel(), np.zeros(want.size, dt), dt)
    bad = np.flatnonzero(d > tol)
    return (int(bad[0]), float(d[bad[0]])) if bad.size else None


def near(g, w, scale, real):
    """ulp distance of g from w (as `real`) measured in ulp of max(|w|, scale); NaN matches
    NaN, infinities exactly."""
    g64, w64 = g.astype(np.float64), w.astype(np.float64)
    with np.errstate(all="ignore"):
        ref = np.maximum(np.maximum(np.abs(w64), scale.astype(np.float64)), float(np.finfo(real).tiny))
        unit = np.spacing(ref.astype(real)).astype(np.float64)
        d = np.abs(g64 - w64) / unit
    same = (np.isnan(g64) & np.isnan(w64)) | (g64 == w64)
    d = np.where(same, 0.0, d)
    return np.where(np.isnan(d), np.inf, d)


def show(x):
    return repr(x.item()) if hasattr(x, "item") else repr(x)


def check_case(dev, op, name, args, report):
    """Runs one call on both sides; returns 1 on a mismatch."""
    np_args = [x[1] if isinstance(x, tuple) else x for x in args]
    want, wv = np_result(name, np_args)
    st, got = nd_run(dev, op, args)
    desc = "%s(%s)" % (name, ", ".join(dname(x[0]) + "=" + show(x[1]) if isinstance(x, tuple) else
                                        x.dtype.name + str(list(x.shape)) for x in args))
    if isinstance(want, type):
        if name == "power" and want is ValueError and not isinstance(args[1], tuple):
            return 0  # negative integer exponents in an array: documented (not inspected)
        if st == OK:
            report("%s: NumPy raises %s, ndcuda returns %s" % (desc, want.__name__, got.dtype))
            return 1
        return 0
    if st != OK:
        if name == "where" and NUMPY_VERSION < (2, 5) and "out of bounds" in got:
            return 0  # NumPy 2.4 wrapped a weak integer here; ndcuda follows 2.5's error
        report("%s: NumPy gives %s, ndcuda fails: %s" % (desc, want, got))
        return 1
    if got.dtype != want:
        report("%s: dtype %s, NumPy %s" % (desc, got.dtype, want))
        return 1
    bad = compare(name, got, wv, np_args)
    if bad is None:
        return 0
    if bad[0] == "shape":
        report("%s: shape %s, NumPy %s" % (desc, bad[1], bad[2]))
        return 1
    k, dist = bad
    idx = np.unravel_index(k, wv.shape) if wv.ndim else ()
    ins = []
    for x in np_args:
        if isinstance(x, np.ndarray):
            b = np.broadcast_to(x, wv.shape)
            ins.append(show(b[idx]))
        else:
            ins.append(repr(x))
    report("%s at %s: inputs (%s): ndcuda %s, NumPy %s (%.3g ulp)" %
           (desc, idx, ", ".join(ins), show(got[idx]), show(wv[idx]), dist))
    return 1


def check_values(lib, funcs):
    dev = Device(lib)
    st, h = dev.array(np.zeros(1, np.float32))
    if st != OK:
        print("values: no usable CUDA device (%s); skipped" % lib.nd_last_error().decode())
        return 0, False
    dev.release(h)
    seen = {}
    calls = [0]

    def report(msg):
        key = msg.split("(")[0]
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= 6:
            print("values: " + msg)

    bad = 0
    vals = [values(d) for d in DT]
    for op, name, nin in funcs:
        if nin == 1:
            cases = [[vals[i]] for i in range(len(DT))]
        elif nin == 2:
            cases = [[vals[i][:, None], vals[j][None, :]] for i in range(len(DT)) for j in range(len(DT))]
            for i in range(len(DT)):
                for code, ws in WEAK_VALUES.items():
                    for w in ws:
                        cases.append([vals[i], (code, w)])
                        cases.append([(code, w), vals[i]])
        else:
            cases = []
            for i in range(len(DT)):
                v = vals[i]
                if name == "clip":
                    # complex bounds without NaN: NumPy's complex clip treats a NaN bound
                    # differently across versions (the comparisons changed in 2.x)
                    b = v[~np.isnan(v)] if v.dtype.kind == "c" else v
                    lo, hi = b[:, None, None], b[None, :, None]
                    cases.append([v[None, None, :], lo, hi])
                    for code, ws in WEAK_VALUES.items():
                        cases.append([v, (code, ws[1]), (code, ws[-1] if code != PYCOMPLEX else ws[0])])
                else:
                    cond = np.array([True, False, True])[:, None]
                    cases.append([cond, v[None, :], v[::-1][None, :]])
                    for j in range(len(DT)):
                        cases.append([vals[j][:, None] if vals[j].size <= 30 else vals[j][:30, None], v[None, :],
                                      v[::-1][None, :]])
                    for code, ws in WEAK_VALUES.items():
                        cases.append([cond, v[None, :], (code, ws[2])])
        for args in cases:
            calls[0] += 1
            bad += check_case(dev, op, name, args, report)
    if seen:
        print("values: mismatching calls per function: " + ", ".join("%s %d" % kv for kv in sorted(seen.items())))
    print("values: %d calls over %d functions, %d differ from NumPy" % (calls[0], len(funcs), bad))
    return bad, True


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    lib = load(sys.argv[1])
    funcs = functions(lib)
    print("NumPy %s, %d functions" % (np.__version__, len(funcs)))
    bad = check_types(lib, funcs)
    if "--types-only" not in sys.argv[2:]:
        vbad, _ = check_values(lib, funcs)
        bad += vbad
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
