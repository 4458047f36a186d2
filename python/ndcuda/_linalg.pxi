# Products and numpy.linalg. The solvers run in the library's checked mode unless
# linalg_set_checked(False) is called on the thread: singular input raises LinAlgError after
# one small host wait; unchecked calls never wait and leave inf/NaN in failing slots.

ctypedef nd_status (*_bin_fn)(const nd_array *, const nd_array *, nd_array **) noexcept nogil
ctypedef nd_status (*_un_fn)(const nd_array *, nd_array **) noexcept nogil


cdef object _binary_product(_bin_fn fn, object a, object b, object out):
    cdef nd_array *res
    cdef ndarray x = _arr(a), y = _arr(b)
    _check(fn(x._a, y._a, &res))
    r = _wrap(res)
    if out is not None:
        _check(nd_copyto(_out_ptr(out), (<ndarray>r)._a, ND_CASTING_SAME_KIND))
        return out
    return r


def matmul(x1, x2, /, out=None, *, casting="same_kind", dtype=None):
    if dtype is not None:
        x1 = _arr(x1).astype(dtype, copy=False)
        x2 = _arr(x2).astype(dtype, copy=False)
    return _binary_product(nd_matmul, x1, x2, out)


def dot(a, b, out=None):
    return _binary_product(nd_dot, a, b, out)


def vdot(a, b):
    return _binary_product(nd_vdot, a, b, None)


def inner(a, b):
    return _binary_product(nd_inner, a, b, None)


def outer(a, b, out=None):
    return _binary_product(nd_outer, a, b, out)


def kron(a, b):
    return _binary_product(nd_kron, a, b, None)


def vecdot(x1, x2, /, *, axis=-1):
    cdef nd_array *res
    _check(nd_vecdot(_arr(x1)._a, _arr(x2)._a, axis, &res))
    return _wrap(res)


def tensordot(a, b, axes=2):
    cdef int64_t aa[32]
    cdef int64_t bb[32]
    cdef nd_array *res
    cdef int n
    x, y = _arr(a), _arr(b)
    if isinstance(axes, (int, _np.integer)):
        _check(nd_tensordot((<ndarray>x)._a, (<ndarray>y)._a, axes, NULL, NULL, &res))
        return _wrap(res)
    ax_a, ax_b = axes
    if isinstance(ax_a, (int, _np.integer)):
        ax_a = (ax_a,)
    if isinstance(ax_b, (int, _np.integer)):
        ax_b = (ax_b,)
    if len(ax_a) != len(ax_b):
        raise ValueError("shape-mismatch for sum")
    if len(ax_a) > 32:
        raise ValueError("too many axes")
    for n in range(len(ax_a)):
        aa[n] = ax_a[n]
        bb[n] = ax_b[n]
    _check(nd_tensordot((<ndarray>x)._a, (<ndarray>y)._a, len(ax_a), aa, bb, &res))
    return _wrap(res)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    cdef nd_array *res
    _check(nd_trace(_arr(a)._a, offset, axis1, axis2, _nd_dtype(dtype), &res))
    r = _wrap(res)
    if out is not None:
        _check(nd_copyto(_out_ptr(out), (<ndarray>r)._a, ND_CASTING_SAME_KIND))
        return out
    return r


def einsum(subscripts, *operands, out=None, optimize=False, dtype=None, **kwargs):
    cdef const nd_array *ops[32]
    cdef nd_array *res
    cdef int i
    if not isinstance(subscripts, str):
        raise _NotImplementedError("einsum with the interleaved (operand, sublist) form")
    keep = [_arr(o) for o in operands]
    if len(keep) > 32:
        raise ValueError("too many operands")
    for i in range(len(keep)):
        ops[i] = (<ndarray>keep[i])._a
    sub = subscripts.encode()
    _check(nd_einsum(sub, len(keep), ops, &res))
    r = _wrap(res)
    if dtype is not None:
        r = r.astype(dtype)
    if out is not None:
        _check(nd_copyto(_out_ptr(out), (<ndarray>r)._a, ND_CASTING_SAME_KIND))
        return out
    return r


# ---- numpy.linalg --------------------------------------------------------------------------------

def linalg_set_checked(checked):
    """Sets the calling thread's linear-algebra mode (True: singular input raises
    LinAlgError, one small host wait per call; False: never wait). Returns the previous."""
    return bool(nd_linalg_set_checked(1 if checked else 0))


def linalg_get_checked():
    return bool(nd_linalg_get_checked())


def linalg_set_tf32(on):
    """Allows TF32 tensor-core arithmetic in float32 products on this thread (None: the
    ND_TF32 environment default). Returns the previous setting."""
    return bool(nd_linalg_set_tf32(-1 if on is None else (1 if on else 0)))


cdef object _blocking_unary(_un_fn fn, object a):
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray x = _arr(a)
    with nogil:
        st = fn(x._a, &res)
    _check(st)
    return _wrap(res)


def linalg_inv(a):
    return _blocking_unary(nd_linalg_inv, a)


def linalg_det(a):
    cdef nd_array *res
    _check(nd_linalg_det(_arr(a)._a, &res))
    return _wrap(res)


def linalg_solve(a, b):
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray x = _arr(a), y = _arr(b)
    with nogil:
        st = nd_linalg_solve(x._a, y._a, &res)
    _check(st)
    return _wrap(res)


_SlogdetResult = _namedtuple("SlogdetResult", ["sign", "logabsdet"])
_QRResult = _namedtuple("QRResult", ["Q", "R"])
_SVDResult = _namedtuple("SVDResult", ["U", "S", "Vh"])
_EighResult = _namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
_LstsqResult = _namedtuple("LstsqResult", ["x", "residuals", "rank", "s"])


def linalg_slogdet(a):
    cdef nd_array *sign
    cdef nd_array *logabs
    _check(nd_linalg_slogdet(_arr(a)._a, &sign, &logabs))
    return _SlogdetResult(_wrap(sign), _wrap(logabs))


def linalg_matrix_power(a, n):
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray x = _arr(a)
    cdef int64_t k = _operator.index(n)
    with nogil:
        st = nd_linalg_matrix_power(x._a, k, &res)
    _check(st)
    return _wrap(res)


def linalg_cholesky(a, /, *, upper=False):
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray x = _arr(a)
    cdef int up = 1 if upper else 0
    with nogil:
        st = nd_linalg_cholesky(x._a, up, &res)
    _check(st)
    return _wrap(res)


def linalg_qr(a, mode="reduced"):
    cdef nd_array *q = NULL
    cdef nd_array *r = NULL
    modes = {"reduced": ND_QR_REDUCED, "complete": ND_QR_COMPLETE, "r": ND_QR_R}
    if mode not in modes:
        raise ValueError(f"Unrecognized mode '{mode}'")
    cdef nd_qr_mode m = modes[mode]
    _check(nd_linalg_qr(_arr(a)._a, m, &q if m != ND_QR_R else NULL, &r))
    if m == ND_QR_R:
        return _wrap(r)
    return _QRResult(_wrap(q), _wrap(r))


def linalg_svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    cdef nd_array *u = NULL
    cdef nd_array *s = NULL
    cdef nd_array *vh = NULL
    cdef bint cuv = compute_uv
    _check(nd_linalg_svd(_arr(a)._a, 1 if full_matrices else 0, 1 if cuv else 0,
                         &u if cuv else NULL, &s, &vh if cuv else NULL))
    if not cuv:
        return _wrap(s)
    return _SVDResult(_wrap(u), _wrap(s), _wrap(vh))


def linalg_svdvals(x):
    return linalg_svd(x, compute_uv=False)


def linalg_eigh(a, UPLO="L"):
    cdef nd_array *w
    cdef nd_array *v
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    _check(nd_linalg_eigh(_arr(a)._a, ord(UPLO), &w, &v))
    return _EighResult(_wrap(w), _wrap(v))


def linalg_eigvalsh(a, UPLO="L"):
    cdef nd_array *w
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    _check(nd_linalg_eigvalsh(_arr(a)._a, ord(UPLO), &w))
    return _wrap(w)


cdef double _norm_ord(object ord) except? -1.0:
    if ord is None:
        return ND_NORM_DEFAULT
    if ord == "fro":
        return ND_NORM_FRO
    if ord == "nuc":
        return ND_NORM_NUC
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for matrices")
    return float(ord)


def linalg_norm(x, ord=None, axis=None, keepdims=False):
    cdef int64_t buf[32]
    cdef int64_t *axes
    cdef nd_array *res
    cdef int n
    if isinstance(axis, list):
        axis = tuple(axis)
    if axis == ():
        # NumPy's message; the C function would read no axes as every axis.
        raise ValueError("Improper number of dimensions to norm.")
    n = _parse_axes(axis, buf, &axes)
    _check(nd_linalg_norm(_arr(x)._a, _norm_ord(ord), n, axes, 1 if keepdims else 0, &res))
    return _wrap(res)


def linalg_vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    a = _arr(x)
    if isinstance(axis, list):
        axis = tuple(axis)
    if isinstance(axis, tuple) and len(axis) == 0:
        # No axis: the norm of each element alone, which is |x| for every order except 0
        # (the count of nonzero elements); the shape is kept, as for any reduction over ().
        rdt = _real_float_dtype(a.dtype)
        if ord == 0:
            return (a != 0).astype(rdt)
        return _UFUNCS["absolute"](a).astype(rdt)
    if axis is None:
        a = a.ravel()
        axis = 0
        if keepdims:
            r = linalg_norm(a, ord, axis)
            return r.reshape((1,) * _arr(x).ndim)
    elif isinstance(axis, tuple) and len(axis) > 1:
        # Several axes: move them to the end and flatten them into one.
        nd = a.ndim
        axs = [_normalize_axis(v, nd) for v in axis]
        rest = [i for i in range(nd) if i not in axs]
        moved = a.transpose(rest + axs)
        flat = moved.reshape(tuple(moved.shape[:len(rest)]) + (-1,))
        r = linalg_norm(flat, ord, -1)
        if keepdims:
            shp = list(a.shape)
            for v in axs:
                shp[v] = 1
            r = r.reshape(shp)
        return r
    return linalg_norm(a, ord, axis, keepdims)


def linalg_matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return linalg_norm(x, ord, (-2, -1), keepdims)


def linalg_cond(x, p=None):
    cdef nd_array *res
    _check(nd_linalg_cond(_arr(x)._a, _norm_ord(p), &res))
    return _wrap(res)


cdef object _real_float_dtype(object dt):
    # The real floating dtype of a norm, singular value or rank tolerance of dtype dt.
    dt = _np.dtype(dt)
    if dt.kind == "c":
        return _np.dtype(_np.float32 if dt == _np.complex64 else _np.float64)
    if dt.kind == "f":
        return dt
    return _np.dtype(_np.float64)


cdef object _relative_cutoff(object s, object rtol):
    """rtol * max(S) for singular values s (shape (..., k), k > 0), with rtol a Python scalar
    or an array broadcast against the stack shape s.shape[:-1] (the array API's rtol)."""
    smax = amax(s, axis=-1, keepdims=True)
    if isinstance(rtol, ndarray) or isinstance(rtol, _np.ndarray):
        r = asarray(rtol)
        return smax * r[..., None]
    return smax * float(rtol)


def linalg_matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """NumPy's matrix_rank (an absolute tol, the C library's) and the array API's (rtol, a
    tolerance relative to the largest singular value, a scalar or an array broadcast against
    the stack shape A.shape[:-2])."""
    cdef nd_array *res
    if rtol is None:
        _check(nd_linalg_matrix_rank(_arr(A)._a, -1.0 if tol is None else float(tol), &res))
        return _wrap(res)
    if tol is not None:
        raise ValueError("matrix_rank: `tol` and `rtol` can't be both set.")
    a = _arr(A)
    if a.ndim < 2:
        # NumPy's rule for vectors and scalars: rank 1 unless every element is zero.
        return asarray(int(not all(a == 0).item()), dtype=_np.int64)
    if a.shape[-2] == 0 or a.shape[-1] == 0:
        return zeros(a.shape[:-2], dtype=_np.int64)
    if hermitian:
        s = _UFUNCS["absolute"](linalg_eigvalsh(a))
    else:
        s = linalg_svd(a, compute_uv=False)
    return count_nonzero(s > _relative_cutoff(s, rtol), axis=-1)


def linalg_pinv(a, rcond=None, hermitian=False, *, rtol=None):
    """NumPy's pinv (rcond) and the array API's (rtol); a scalar bound goes to the C library,
    an array of bounds (one per matrix of the stack, broadcast) is applied here to the
    singular values of the C library's SVD, as NumPy does."""
    cdef nd_array *res
    if rtol is not None:
        rcond = rtol
    if not (isinstance(rcond, ndarray) or isinstance(rcond, _np.ndarray)):
        _check(nd_linalg_pinv(_arr(a)._a, -1.0 if rcond is None else float(rcond), &res))
        return _wrap(res)
    x = _arr(a)
    if x.ndim < 2:
        raise LinAlgError(f"pinv: {x.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    m, n = x.shape[-2], x.shape[-1]
    if m == 0 or n == 0:
        return zeros(x.shape[:-2] + (n, m), dtype=_real_float_dtype(x.dtype)
                     if x.dtype.kind != "c" else x.dtype)
    u, s, vh = linalg_svd(x, full_matrices=False)
    large = s > _relative_cutoff(s, rcond)
    # 1/s where s is kept, 0 elsewhere; the dropped values are replaced by 1 before dividing,
    # so that no zero is divided by.
    sinv = where(large, 1.0 / where(large, s, 1.0), 0.0).astype(s.dtype)
    vt = _UFUNCS["conjugate"](vh) if vh.dtype.kind == "c" else vh
    ut = _UFUNCS["conjugate"](u) if u.dtype.kind == "c" else u
    return matmul(vt.mT * sinv[..., None, :], ut.mT)


def linalg_lstsq(a, b, rcond=None):
    cdef nd_array *x
    cdef nd_array *resid
    cdef nd_array *s
    cdef int64_t rank = 0
    cdef nd_status st
    cdef ndarray aa = _arr(a), bb = _arr(b)
    cdef double rc = -1.0 if rcond is None else float(rcond)
    with nogil:
        st = nd_linalg_lstsq(aa._a, bb._a, rc, &x, &resid, &rank, &s)
    _check(st)
    return _LstsqResult(_wrap(x), _wrap(resid), rank, _wrap(s))
