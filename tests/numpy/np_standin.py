"""A stand-in for libndcuda made of NumPy itself, for api_numpy.py --self-check.

It implements, with NumPy, the functions that api_numpy.py's device families call, taking the
same ctypes arguments. Run against it, every family must find no difference: the check
exercises the harness (argument marshalling, axis and slice encodings, tolerances, the
error-path bookkeeping) on a machine without a GPU, so that a run on one reports ndcuda's
differences rather than the harness's own mistakes. Messages follow ndcuda's form ("nd_sum:
...") so the "error names the function" rule is exercised too.
"""
import ctypes as C
import warnings

import numpy as np

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
DT = [np.dtype(t) for t in DTYPES]
NONE64 = -(2 ** 63)
AXIS_NONE = NONE64
NORM = {2.0 ** 1000: None, 2.0 ** 1001: "fro", 3 * 2.0 ** 1000: "nuc"}
ERR = 21  # any non-zero status


def _ptr_value(p):
    """The object behind a ctypes byref() or pointer argument."""
    return getattr(p, "_obj", p)


def _set(out, value):
    _ptr_value(out).value = value


def _ints(p, n):
    return [int(p[i]) for i in range(n)] if p is not None else None


def _axes(n, p):
    if p is None:
        return None
    return tuple(_ints(p, n))


def _reduced(shape, axes, keep):
    nd = len(shape)
    ax = set(range(nd)) if axes is None else {int(a) % nd for a in axes}
    return tuple(1 if i in ax else d for i, d in enumerate(shape) if keep or i not in ax)


def _dtype(code, default=None):
    return default if code == -1 else DT[code]


def _scalar(s):
    if s.dtype == 64:
        return int(C.c_int64.from_buffer_copy(bytes(s.v)[:8]).value)
    if s.dtype == 65:
        return float(s.v[0])
    if s.dtype == 66:
        return complex(s.v[0], s.v[1])
    raise NotImplementedError


class Standin:
    """Handles are integers (as c_void_p values); arrays live in self.arrays."""

    def __init__(self):
        self.arrays, self.shapes, self.next = {}, {}, 16
        self.msg = b""

    # -- plumbing --
    def nd_last_error(self):
        return self.msg

    def err(self):
        return self.msg.decode()

    def _new(self, a, out):
        a = np.asarray(a)
        if a.dtype not in DT:
            raise TypeError("dtype %s" % a.dtype)
        h = self.next
        self.next += 16
        self.arrays[h] = a
        self.shapes[h] = (C.c_int64 * max(a.ndim, 1))(*a.shape)
        _set(out, h)
        return 0

    def _get(self, h):
        return self.arrays[_ptr_value(h).value if hasattr(_ptr_value(h), "value") else h]

    def _call(self, name, f, out):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = f()
            except (TypeError, ValueError, OverflowError, IndexError, ZeroDivisionError,
                    np.linalg.LinAlgError, NotImplementedError) as e:
                self.msg = ("%s: %s" % (name, e)).encode()
                return ERR
        if out is None:
            return 0
        return self._new(r, out)

    def __getattr__(self, name):
        if name.startswith("nd_"):
            raise AttributeError("the stand-in has no %s" % name)
        raise AttributeError(name)

    # -- arrays --
    def nd_array_from_host(self, ptr, nbytes, ndim, shape, dtype, out):
        raw = C.string_at(ptr, nbytes) if nbytes else b""
        a = np.frombuffer(raw, DT[dtype]).reshape(_ints(shape, ndim) if ndim else ()).copy()
        return self._new(a, out)

    def nd_array_to_host(self, h, ptr, nbytes):
        a = np.array(order="C", object=self._get(h))
        if nbytes:
            C.memmove(ptr, a.ctypes.data, nbytes)
        return 0

    def nd_array_ndim(self, h):
        return self._get(h).ndim

    def nd_array_shape(self, h):
        return self.shapes[_ptr_value(h).value]

    def nd_array_dtype(self, h):
        return DT.index(self._get(h).dtype)

    def nd_array_release(self, h):
        k = _ptr_value(h).value
        self.arrays.pop(k, None)
        self.shapes.pop(k, None)

    def nd_empty(self, ndim, shape, dtype, out):
        return self._call("nd_empty", lambda: np.empty(_ints(shape, ndim), DT[dtype]), out)

    def nd_zeros(self, ndim, shape, dtype, out):
        return self._call("nd_zeros", lambda: np.zeros(_ints(shape, ndim), _dtype(dtype, np.float64)), out)

    def nd_ones(self, ndim, shape, dtype, out):
        return self._call("nd_ones", lambda: np.ones(_ints(shape, ndim), _dtype(dtype, np.float64)), out)

    def nd_full(self, ndim, shape, value, dtype, out):
        return self._call("nd_full", lambda: np.full(_ints(shape, ndim), _scalar(value), _dtype(dtype)), out)

    def nd_arange(self, a, b, s, dtype, out):
        return self._call("nd_arange", lambda: np.arange(a, b, s, dtype=_dtype(dtype)), out)

    def nd_linspace(self, a, b, n, ep, dtype, out):
        return self._call("nd_linspace", lambda: np.linspace(a, b, n, endpoint=bool(ep), dtype=_dtype(dtype)), out)

    def nd_eye(self, n, m, k, dtype, out):
        return self._call("nd_eye", lambda: np.eye(n, None if m < 0 else m, k, _dtype(dtype, np.float64)), out)

    def nd_tri(self, n, m, k, dtype, out):
        return self._call("nd_tri", lambda: np.tri(n, None if m < 0 else m, k, _dtype(dtype, np.float64)), out)

    def nd_identity(self, n, dtype, out):
        return self._call("nd_identity", lambda: np.identity(n, _dtype(dtype, np.float64)), out)

    def nd_tril(self, h, k, out):
        return self._call("nd_tril", lambda: np.tril(self._get(h), k), out)

    def nd_triu(self, h, k, out):
        return self._call("nd_triu", lambda: np.triu(self._get(h), k), out)

    def nd_diag(self, h, k, out):
        return self._call("nd_diag", lambda: np.diag(self._get(h), k), out)

    def nd_zeros_like(self, h, dtype, out):
        return self._call("nd_zeros_like", lambda: np.zeros_like(self._get(h), dtype=_dtype(dtype)), out)

    def nd_ones_like(self, h, dtype, out):
        return self._call("nd_ones_like", lambda: np.ones_like(self._get(h), dtype=_dtype(dtype)), out)

    # -- views and copies --
    def nd_array_slice(self, h, n, sl, out):
        def f():
            s = tuple(slice(None if sl[i].start == NONE64 else sl[i].start, None if sl[i].stop == NONE64 else sl[i].stop,
                            None if sl[i].step == NONE64 else sl[i].step) for i in range(n))
            return self._get(h)[s]
        return self._call("nd_array_slice", f, out)

    def nd_array_transpose(self, h, n, axes, out):
        return self._call("nd_array_transpose", lambda: np.transpose(self._get(h), _axes(n, axes) if n else None), out)

    def nd_array_reshape(self, h, n, shape, out):
        return self._call("nd_array_reshape", lambda: self._get(h).reshape(_ints(shape, n)), out)

    def nd_array_swapaxes(self, h, a, b, out):
        return self._call("nd_array_swapaxes", lambda: np.swapaxes(self._get(h), a, b), out)

    def nd_array_moveaxis(self, h, a, b, out):
        return self._call("nd_array_moveaxis", lambda: np.moveaxis(self._get(h), a, b), out)

    def nd_array_expand_dims(self, h, a, out):
        return self._call("nd_array_expand_dims", lambda: np.expand_dims(self._get(h), a), out)

    def nd_array_squeeze(self, h, n, axes, out):
        return self._call("nd_array_squeeze", lambda: np.squeeze(self._get(h), _axes(n, axes) if n else None), out)

    def nd_array_flip(self, h, n, axes, out):
        return self._call("nd_array_flip", lambda: np.flip(self._get(h), _axes(n, axes) if n else None), out)

    def nd_array_index(self, h, axis, i, out):
        def f():
            a = self._get(h)
            if not -a.ndim <= axis < a.ndim:
                raise IndexError("axis %d is out of bounds for array of dimension %d" % (axis, a.ndim))
            return a[(slice(None),) * (axis % a.ndim) + (i,)]
        return self._call("nd_array_index", f, out)

    def nd_array_diagonal(self, h, off, a1, a2, out):
        return self._call("nd_array_diagonal", lambda: np.diagonal(self._get(h), off, a1, a2), out)

    def nd_array_broadcast_to(self, h, n, shape, out):
        return self._call("nd_array_broadcast_to", lambda: np.broadcast_to(self._get(h), _ints(shape, n)), out)

    def nd_array_ravel(self, h, out):
        return self._call("nd_array_ravel", lambda: np.ravel(self._get(h)), out)

    def nd_array_real(self, h, out):
        return self._call("nd_array_real", lambda: np.real(self._get(h)), out)

    def nd_array_imag(self, h, out):
        def f():
            a = self._get(h)
            if a.dtype.kind != "c":
                raise TypeError("imag of a real array")
            return np.imag(a)
        return self._call("nd_array_imag", f, out)

    def nd_array_astype(self, h, dtype, out):
        return self._call("nd_array_astype", lambda: self._get(h).astype(DT[dtype]), out)

    def _list(self, n, arrs):
        return [self.arrays[arrs[i]] for i in range(n)]

    def nd_concatenate(self, n, arrs, axis, out):
        return self._call("nd_concatenate", lambda: np.concatenate(self._list(n, arrs), axis=axis), out)

    def nd_stack(self, n, arrs, axis, out):
        return self._call("nd_stack", lambda: np.stack(self._list(n, arrs), axis=axis), out)

    def nd_tile(self, h, n, reps, out):
        return self._call("nd_tile", lambda: np.tile(self._get(h), _ints(reps, n)), out)

    def nd_repeat(self, h, r, axis, out):
        return self._call("nd_repeat", lambda: np.repeat(self._get(h), r, axis=None if axis == AXIS_NONE else axis), out)

    # -- reductions and scans --
    def _reduce(self, name, h, n, axes, keep, out_h, result, **kw):
        def f():
            r = np.asarray(getattr(np, name)(self._get(h), axis=_axes(n, axes) if axes is not None else None,
                                             keepdims=bool(keep), **kw))
            if out_h:
                self.arrays[_ptr_value(out_h).value if hasattr(out_h, "value") else out_h][...] = r
            return r
        return self._call("nd_" + name, f, result)

    def _sumlike(name):
        def m(self, h, n, axes, keep, dtype, out_h, result):
            return self._reduce(name, h, n, axes, keep, out_h, result, dtype=_dtype(dtype))
        return m

    nd_sum, nd_prod, nd_nansum = _sumlike("sum"), _sumlike("prod"), _sumlike("nansum")
    nd_mean, nd_nanmean = _sumlike("mean"), _sumlike("nanmean")

    def _varlike(name):
        def m(self, h, n, axes, keep, dtype, ddof, out_h, result):
            return self._reduce(name, h, n, axes, keep, out_h, result, dtype=_dtype(dtype), ddof=ddof)
        return m

    nd_var, nd_std = _varlike("var"), _varlike("std")

    def _plain(name):
        def m(self, h, n, axes, keep, out_h, result):
            return self._reduce(name, h, n, axes, keep, out_h, result)
        return m

    nd_amin, nd_amax, nd_nanmin, nd_nanmax = _plain("amin"), _plain("amax"), _plain("nanmin"), _plain("nanmax")
    nd_ptp, nd_all, nd_any, nd_median = _plain("ptp"), _plain("all"), _plain("any"), _plain("median")

    def nd_count_nonzero(self, h, n, axes, keep, result):
        return self._reduce("count_nonzero", h, n, axes, keep, None, result)

    def _arg(name):
        def m(self, h, axis, keep, out_h, result):
            return self._call("nd_" + name, lambda: np.asarray(getattr(np, name)(
                self._get(h), axis=None if axis == AXIS_NONE else axis, keepdims=bool(keep))), result)
        return m

    nd_argmin, nd_argmax = _arg("argmin"), _arg("argmax")

    def _scan(name):
        def m(self, h, axis, dtype, out_h, result):
            return self._call("nd_" + name, lambda: getattr(np, name)(
                self._get(h), axis=None if axis == AXIS_NONE else axis, dtype=_dtype(dtype)), result)
        return m

    nd_cumsum, nd_cumprod = _scan("cumsum"), _scan("cumprod")

    def nd_diff(self, h, n, axis, result):
        return self._call("nd_diff", lambda: np.diff(self._get(h), n, axis=axis), result)

    # -- sorting, sets, statistics --
    def nd_sort(self, h, axis, result):
        def f():
            return np.sort(self._get(h), axis=None if axis == AXIS_NONE else axis)
        return self._call("nd_sort", f, result)

    def nd_argsort(self, h, axis, result):
        def f():
            return np.argsort(self._get(h), axis=None if axis == AXIS_NONE else axis, kind="stable")
        return self._call("nd_argsort", f, result)

    def nd_partition(self, h, kth, axis, result):
        def f():
            return np.partition(self._get(h), kth, axis=None if axis == AXIS_NONE else axis)
        return self._call("nd_partition", f, result)

    def nd_argpartition(self, h, kth, axis, result):
        def f():
            return np.argpartition(self._get(h), kth, axis=None if axis == AXIS_NONE else axis)
        return self._call("nd_argpartition", f, result)

    def nd_searchsorted(self, a, v, right, result):
        return self._call("nd_searchsorted", lambda: np.searchsorted(
            self._get(a), self._get(v), side="right" if right else "left"), result)

    def nd_nonzero(self, h, results, cap):
        def f():
            a = self._get(h)
            if a.ndim == 0:
                raise ValueError("Calling nonzero on 0d arrays is not allowed")
            return np.nonzero(a)
        with np.errstate(all="ignore"):
            try:
                parts = f()
            except ValueError as e:
                self.msg = ("nd_nonzero: %s" % e).encode()
                return ERR
        for i, p in enumerate(parts):
            box = C.c_void_p()
            self._new(p, C.byref(box))
            results[i] = box.value
        return 0

    def nd_argwhere(self, h, result):
        return self._call("nd_argwhere", lambda: np.argwhere(self._get(h)), result)

    def nd_unique(self, h, vals, idx, inv, cnt):
        a = self._get(h)
        u, i, v, c = np.unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=True)
        for out, x in ((vals, u), (idx, i), (inv, v.reshape(-1)), (cnt, c)):
            if out is not None:
                self._new(x, out)
        return 0

    def nd_isin(self, h, t, invert, result):
        return self._call("nd_isin", lambda: np.isin(self._get(h), self._get(t), invert=bool(invert)), result)

    def _q(name, several):
        def m(self, h, *args):
            if several:
                nq, qp, n, axes, keep, out_h, result = args
                q = [qp[i] for i in range(nq)]
            else:
                q, n, axes, keep, out_h, result = args
            a = self._get(h)

            def f():
                if a.dtype.kind == "b":
                    raise TypeError("bool")
                ref = a.astype(np.float64) if a.dtype.kind in "iu" else a
                ax = _axes(n, axes) if axes is not None else None
                try:
                    r = np.asarray(getattr(np, name)(ref, q, axis=ax, keepdims=bool(keep)))
                except ValueError as e:
                    # ndcuda's documented answer (docs/deviations.md), so that --self-check
                    # goes through the harness's excuse path too: the zero-size result
                    if a.size or "cannot reshape array of size 0" not in str(e):
                        raise
                    r = np.zeros(((len(q),) if several else ()) + _reduced(a.shape, ax, keep))
                return r.astype(np.float64 if several or a.dtype.kind in "iu" else a.dtype)
            return self._call("nd_" + name + ("s" if several else ""), f, result)
        return m

    nd_quantile, nd_quantiles = _q("quantile", False), _q("quantile", True)
    nd_percentile, nd_percentiles = _q("percentile", False), _q("percentile", True)

    def nd_average(self, h, n, axes, w, keep, result, sow):
        a = self._get(h)
        ax = _axes(n, axes)[0] if axes is not None and n == 1 else None

        def f():
            try:
                return np.asarray(np.average(a, axis=ax, weights=None if w is None else self._get(w),
                                             keepdims=bool(keep)))
            except ZeroDivisionError as e:  # ndcuda's documented zero-size answer, as in _q
                if w is not None or str(e) != "division by zero":
                    raise
                return np.zeros(_reduced(a.shape, None if ax is None else (ax,), keep), np.float64)
        return self._call("nd_average", f, result)

    def nd_histogram(self, h, bins, rng, w, hist, edges):
        def f():
            r = None if rng is None else (rng[0], rng[1])
            return np.histogram(self._get(h), bins, range=r)
        with np.errstate(all="ignore"):
            try:
                hh, ee = f()
            except ValueError as e:
                self.msg = ("nd_histogram: %s" % e).encode()
                return ERR
        self._new(hh, hist)
        if edges is not None:
            self._new(ee, edges)
        return 0

    def nd_bincount(self, h, w, ml, result):
        return self._call("nd_bincount", lambda: np.bincount(self._get(h), None if w is None else self._get(w), ml), result)

    # -- linalg --
    def nd_linalg_inv(self, h, out):
        return self._call("nd_linalg_inv", lambda: np.linalg.inv(self._get(h)), out)

    def nd_linalg_solve(self, a, b, out):
        return self._call("nd_linalg_solve", lambda: np.linalg.solve(self._get(a), self._get(b)), out)

    def nd_linalg_det(self, h, out):
        return self._call("nd_linalg_det", lambda: np.asarray(np.linalg.det(self._get(h))), out)

    def nd_linalg_slogdet(self, h, s, l):
        try:
            r = np.linalg.slogdet(self._get(h))
        except (TypeError, np.linalg.LinAlgError) as e:
            self.msg = ("nd_linalg_slogdet: %s" % e).encode()
            return ERR
        self._new(np.asarray(r[0]), s)
        self._new(np.asarray(r[1]), l)
        return 0

    def nd_linalg_cholesky(self, h, up, out):
        return self._call("nd_linalg_cholesky", lambda: np.linalg.cholesky(self._get(h), upper=bool(up)), out)

    def nd_linalg_eigvalsh(self, h, uplo, out):
        return self._call("nd_linalg_eigvalsh", lambda: np.linalg.eigvalsh(self._get(h), uplo.decode()), out)

    def nd_linalg_svd(self, h, full, uv, u, s, vh):
        return self._call("nd_linalg_svd", lambda: np.linalg.svd(self._get(h), compute_uv=False), s)

    def nd_linalg_qr(self, h, mode, q, r):
        try:
            qq, rr = np.linalg.qr(self._get(h))
        except (TypeError, np.linalg.LinAlgError) as e:
            self.msg = ("nd_linalg_qr: %s" % e).encode()
            return ERR
        self._new(qq, q)
        self._new(rr, r)
        return 0

    def nd_linalg_norm(self, h, o, n, axes, keep, out):
        return self._call("nd_linalg_norm", lambda: np.asarray(np.linalg.norm(
            self._get(h), NORM.get(o, o), axis=_axes(n, axes) if n else None, keepdims=bool(keep))), out)

    def nd_linalg_cond(self, h, p, out):
        return self._call("nd_linalg_cond", lambda: np.asarray(np.linalg.cond(self._get(h), NORM.get(p, p))), out)

    def nd_linalg_matrix_rank(self, h, tol, out):
        return self._call("nd_linalg_matrix_rank", lambda: np.asarray(np.linalg.matrix_rank(self._get(h))), out)

    def nd_linalg_pinv(self, h, rcond, out):
        return self._call("nd_linalg_pinv", lambda: np.linalg.pinv(self._get(h)), out)

    def nd_trace(self, h, off, a1, a2, dtype, out):
        return self._call("nd_trace", lambda: np.asarray(np.trace(self._get(h), off, a1, a2, dtype=_dtype(dtype))), out)

    def nd_matmul(self, a, b, out):
        return self._call("nd_matmul", lambda: np.matmul(self._get(a), self._get(b)), out)

    # -- random --
    def nd_generator_create(self, seed, bitgen, out):
        self.gen = np.random.default_rng(seed)
        _set(out, 8)
        return 0

    def nd_generator_destroy(self, g):
        return 0

    def _dist(name):
        def m(self, g, *args):
            *params, ndim, shape, dtype, out = args
            return self._call("nd_random_" + name, lambda: getattr(self.gen, name)(
                *params, size=tuple(_ints(shape, ndim))).astype(DT[dtype]), out)
        return m

    nd_random_uniform, nd_random_normal = _dist("uniform"), _dist("normal")
    nd_random_exponential, nd_random_gamma = _dist("exponential"), _dist("gamma")

    def nd_random_integers(self, g, lo, hi, ep, ndim, shape, dtype, out):
        return self._call("nd_random_integers", lambda: self.gen.integers(
            _scalar(lo), _scalar(hi), size=tuple(_ints(shape, ndim)), dtype=DT[dtype], endpoint=bool(ep)), out)

    def nd_random_permutation(self, g, n, out):
        return self._call("nd_random_permutation", lambda: self.gen.permutation(n), out)

    def nd_random_choice(self, g, n, ndim, shape, rep, p, out):
        pp = None if p is None else np.array([p[i] for i in range(n)])
        return self._call("nd_random_choice", lambda: self.gen.choice(
            n, tuple(_ints(shape, ndim)), replace=bool(rep), p=pp).astype(np.int64), out)

    def nd_random_bernoulli(self, g, p, ndim, shape, dtype, out):
        return self._call("nd_random_bernoulli", lambda: (self.gen.random(tuple(_ints(shape, ndim))) < p).astype(DT[dtype]), out)
