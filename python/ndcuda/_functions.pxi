# Functions under NumPy's names: creation, manipulation, ufuncs, reductions, sorting,
# searching, set functions and statistics.
#
# The ufuncs are generated at import time from the C library's own table (nd_ufunc_name /
# nd_ufunc_nin), so every elementwise function the library has appears here with NumPy's
# name; reductions and scans come from the tables below.

cdef inline ndarray _arr(object x):
    """x as an ndarray (host data is copied to the device)."""
    if isinstance(x, ndarray):
        return <ndarray>x
    return asarray(x)


cdef inline nd_array *_out_ptr(object out) except? NULL:
    if out is None:
        return NULL
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("out must be a tuple of one array")
        out = out[0]
        if out is None:
            return NULL
    if not isinstance(out, ndarray):
        raise TypeError(f"out must be an ndcuda.ndarray, got {type(out).__name__}")
    return (<ndarray>out)._a


cdef inline object _result(nd_array *res, object out):
    """The Python result of a call that wrote into out (when given) or allocated res."""
    if out is not None:
        if isinstance(out, tuple):
            out = out[0]
        if out is not None:
            nd_array_release(res)
            return out
    return _wrap(res)


# ---- creation ----------------------------------------------------------------------------------

cdef int _check_device(object device) except -1:
    """The array API's device= argument: None or the current device."""
    if device is None:
        return 0
    if isinstance(device, Device):
        if (<Device>device).id != _current_device():
            raise _NotImplementedError(f"arrays on {device!r}: ndcuda allocates on the "
                                       f"current device; switch devices first")
        return 0
    raise ValueError(f"unsupported device {device!r} (ndcuda arrays live on CUDA devices)")


def empty(shape, dtype=None, order="C", *, device=None):
    _check_device(device)
    cdef int64_t buf[32]
    cdef nd_array *out
    cdef int n = _parse_shape(shape, buf)
    _check(nd_empty_order(n, buf, _nd_dtype_or(dtype, ND_FLOAT64),
                          _nd_order(_order_char(order, "CF")), &out))
    return _wrap(out)


def zeros(shape, dtype=None, order="C", *, device=None):
    _check_device(device)
    cdef int64_t buf[32]
    cdef nd_array *out
    cdef int n = _parse_shape(shape, buf)
    if order not in ("C", None):
        r = empty(shape, dtype, order)
        r.fill(0)
        return r
    _check(nd_zeros(n, buf, _nd_dtype_or(dtype, ND_FLOAT64), &out))
    return _wrap(out)


def ones(shape, dtype=None, order="C", *, device=None):
    _check_device(device)
    cdef int64_t buf[32]
    cdef nd_array *out
    cdef int n = _parse_shape(shape, buf)
    if order not in ("C", None):
        r = empty(shape, dtype, order)
        r.fill(1)
        return r
    _check(nd_ones(n, buf, _nd_dtype_or(dtype, ND_FLOAT64), &out))
    return _wrap(out)


def full(shape, fill_value, dtype=None, order="C", *, device=None):
    _check_device(device)
    cdef int64_t buf[32]
    cdef nd_array *out
    cdef nd_scalar s
    cdef int n = _parse_shape(shape, buf)
    cdef int kind = _scalar_of(fill_value, &s)
    cdef nd_dtype d
    if kind == _SCALAR and order in ("C", None):
        d = _nd_dtype(dtype)
        if s.dtype == ND_PYINT and <int>d >= 0:
            _check_pyint_fits(fill_value, d)
        _check(nd_full(n, buf, s, d, &out))
        return _wrap(out)
    v = _arr(fill_value)
    r = empty(shape, v.dtype if dtype is None else dtype, order)
    _assign(r, v)
    return r


def _like_dtype(a, dtype):
    return a.dtype if dtype is None else dtype


def empty_like(a, dtype=None, order="K", subok=None, shape=None, *, device=None):
    _check_device(device)
    cdef nd_array *out
    if shape is not None or order not in ("K", "A", None):
        return empty(a.shape if shape is None else shape, _like_dtype(a, dtype),
                     "C" if order in ("K", "A", None) else order)
    _check(nd_empty_like(_arr(a)._a, _nd_dtype(dtype), &out))
    return _wrap(out)


def zeros_like(a, dtype=None, order="K", subok=None, shape=None, *, device=None):
    _check_device(device)
    cdef nd_array *out
    if shape is not None or order not in ("K", "A", None):
        return zeros(a.shape if shape is None else shape, _like_dtype(a, dtype),
                     "C" if order in ("K", "A", None) else order)
    _check(nd_zeros_like(_arr(a)._a, _nd_dtype(dtype), &out))
    return _wrap(out)


def ones_like(a, dtype=None, order="K", subok=None, shape=None, *, device=None):
    _check_device(device)
    cdef nd_array *out
    if shape is not None or order not in ("K", "A", None):
        return ones(a.shape if shape is None else shape, _like_dtype(a, dtype),
                    "C" if order in ("K", "A", None) else order)
    _check(nd_ones_like(_arr(a)._a, _nd_dtype(dtype), &out))
    return _wrap(out)


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None, *,
              device=None):
    _check_device(device)
    cdef nd_array *out
    cdef nd_scalar s
    a = _arr(a)
    if shape is not None or order not in ("K", "A", None) or \
            _scalar_of(fill_value, &s) != _SCALAR:
        return full(a.shape if shape is None else shape, fill_value, _like_dtype(a, dtype),
                    "C" if order in ("K", "A", None) else order)
    d = _nd_dtype(dtype) if dtype is not None else nd_array_dtype((<ndarray>a)._a)
    if s.dtype == ND_PYINT:
        _check_pyint_fits(fill_value, d)
    _check(nd_full_like((<ndarray>a)._a, s, d, &out))
    return _wrap(out)


def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """NumPy's arange: exact int64 arithmetic for integer arguments, float64 otherwise."""
    cdef nd_array *out
    _check_device(device)
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    d = _nd_dtype(dtype)
    if _b.all(isinstance(x, (int, _np.integer)) and not isinstance(x, bool)
           for x in (start, stop, step)) and (dtype is None or
                                              nd_dtype_kind(d) in (b'i', b'u')):
        _check(nd_arange_int(start, stop, step, d, &out))
    else:
        for x in (start, stop, step):
            if isinstance(x, complex):
                raise TypeError("arange does not support complex arguments")
        _check(nd_arange(float(start), float(stop), float(step), d, &out))
    return _wrap(out)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    _check_device(device)
    cdef nd_array *out
    if axis != 0:
        raise NotImplementedError("linspace with axis != 0")
    if _operator.index(num) < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    _check(nd_linspace(float(start), float(stop), num, 1 if endpoint else 0,
                       _nd_dtype(dtype), &out))
    r = _wrap(out)
    if retstep:
        div = (num - 1) if endpoint else num
        step = (float(stop) - float(start)) / div if div > 0 else float("nan")
        return r, step
    return r


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    y = linspace(start, stop, num, endpoint, dtype=None, axis=axis)
    r = _UFUNCS["power"](base, y)
    return r if dtype is None else r.astype(dtype)


def _clamp_diagonal(k, N, M):
    """k as an index, pulled into [-(rows + 1), cols + 1]: every diagonal offset outside that
    range selects nothing, and NumPy accepts any Python int there (the C call takes int64)."""
    k = _operator.index(k)
    rows = _operator.index(N)
    cols = rows if M is None else _operator.index(M)
    lo, hi = -(_b.max(rows, 0) + 1), _b.max(cols, 0) + 1
    return lo if k < lo else hi if k > hi else k


def eye(N, M=None, k=0, dtype=None, order="C", *, device=None):
    _check_device(device)
    cdef nd_array *out
    k = _clamp_diagonal(k, N, M)
    _check(nd_eye(N, -1 if M is None else M, k, _nd_dtype_or(dtype, ND_FLOAT64), &out))
    r = _wrap(out)
    return r if order == "C" else r.copy(order)


def identity(n, dtype=None, *, device=None):
    _check_device(device)
    cdef nd_array *out
    _check(nd_identity(n, _nd_dtype_or(dtype, ND_FLOAT64), &out))
    return _wrap(out)


def tri(N, M=None, k=0, dtype=None):
    cdef nd_array *out
    _check(nd_tri(N, -1 if M is None else M, k, _nd_dtype_or(dtype, ND_FLOAT64), &out))
    return _wrap(out)


def tril(m, k=0):
    cdef nd_array *out
    _check(nd_tril(_arr(m)._a, k, &out))
    return _wrap(out)


def triu(m, k=0):
    cdef nd_array *out
    _check(nd_triu(_arr(m)._a, k, &out))
    return _wrap(out)


def diag(v, k=0):
    cdef nd_array *out
    _check(nd_diag(_arr(v)._a, k, &out))
    return _wrap(out)


def diagflat(v, k=0):
    return diag(_arr(v).ravel(), k)


def copy(a, order="K"):
    return _arr(a).copy(order)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    xs = [_arr(x).ravel() for x in xi]
    n = len(xs)
    out = []
    for i, x in enumerate(xs):
        shape = [1] * n
        shape[i] = x.size
        out.append(x.reshape(shape))
    if indexing == "xy" and n > 1:
        for i in range(n):
            s = list(out[i].shape)
            s[0], s[1] = s[1], s[0]
            out[i] = out[i].reshape(s)
    if not sparse:
        out = broadcast_arrays(*out)
        if copy:
            out = [o.copy() for o in out]
    return tuple(out)


# ---- manipulation ------------------------------------------------------------------------------

def reshape(a, shape, order="C", *, newshape=None, copy=None):
    return _arr(a).reshape(shape if newshape is None else newshape, order=order)


def ravel(a, order="C"):
    return _arr(a).ravel(order)


def transpose(a, axes=None):
    return _arr(a).transpose(axes)


def permute_dims(a, axes):
    return _arr(a).transpose(axes)


def matrix_transpose(x):
    cdef nd_array *out
    cdef ndarray a = _arr(x)
    _check(nd_matrix_transpose(a._a, &out))
    return _wrap(out, _view_base(a))


def swapaxes(a, axis1, axis2):
    return _arr(a).swapaxes(axis1, axis2)


def moveaxis(a, source, destination):
    cdef nd_array *out
    cdef ndarray x = _arr(a)
    if isinstance(source, (tuple, list)) or isinstance(destination, (tuple, list)):
        src = [int(s) % x.ndim for s in (source if isinstance(source, (tuple, list))
                                         else (source,))]
        dst = [int(d) % x.ndim for d in (destination if isinstance(destination, (tuple, list))
                                         else (destination,))]
        if len(src) != len(dst):
            raise ValueError("`source` and `destination` arguments must have the same "
                             "number of elements")
        order = [n for n in range(x.ndim) if n not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return x.transpose(order)
    _check(nd_array_moveaxis(x._a, source, destination, &out))
    return _wrap(out, _view_base(x))


def rollaxis(a, axis, start=0):
    x = _arr(a)
    n = x.ndim
    axis = _normalize_axis(axis, n)
    if start < 0:
        start += n
    if not 0 <= start <= n:
        raise AxisError(f"start {start} out of range")
    if axis < start:
        start -= 1
    if axis == start:
        return x[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return x.transpose(axes)


cdef int _normalize_axis(object axis, int ndim) except? -1:
    cdef int64_t a = _operator.index(axis)
    if a < -ndim or a >= ndim:
        raise AxisError(f"axis {a} is out of bounds for array of dimension {ndim}")
    return a + ndim if a < 0 else a


def expand_dims(a, axis):
    cdef nd_array *out
    cdef ndarray x = _arr(a)
    if isinstance(axis, (tuple, list)):
        n = x.ndim + len(axis)
        axes = sorted(_normalize_axis(ax, n) for ax in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        for ax in axes:
            x = expand_dims(x, ax)
        # A new view even when no axis is added, as NumPy's expand_dims(a, ()).
        return x if axes else x[...]
    _check(nd_array_expand_dims(x._a, axis, &out))
    return _wrap(out, _view_base(x))


def squeeze(a, axis=None):
    return _arr(a).squeeze(axis)


def broadcast_to(array, shape):
    cdef int64_t buf[32]
    cdef nd_array *out
    cdef ndarray x = _arr(array)
    cdef int n = _parse_shape(shape, buf)
    _check(nd_array_broadcast_to(x._a, n, buf, &out))
    return _wrap(out, _view_base(x))


def broadcast_shapes(*shapes):
    cdef int64_t store[64][32]
    cdef const int64_t *ptrs[64]
    cdef int ndims[64]
    cdef int64_t outshape[32]
    cdef int outn, i
    if len(shapes) > 64:
        raise ValueError("broadcast_shapes takes at most 64 shapes")
    for i, s in enumerate(shapes):
        ndims[i] = _parse_shape(s, store[i])
        ptrs[i] = store[i]
    _check(nd_broadcast_shapes(len(shapes), ndims, ptrs, &outn, outshape))
    return tuple([outshape[i] for i in range(outn)])


def broadcast_arrays(*args):
    arrs = [_arr(a) for a in args]
    shape = broadcast_shapes(*[a.shape for a in arrs])
    return tuple([a if a.shape == shape else broadcast_to(a, shape) for a in arrs])


def unstack(x, /, *, axis=0):
    """The array API's unstack: a tuple of views along axis."""
    a = _arr(x)
    ax = _normalize_axis(axis, a.ndim)
    pre = (slice(None),) * ax
    return tuple(a[pre + (i,)] for i in range(a.shape[ax]))


def astype(x, dtype, /, *, copy=True, device=None):
    """The array API's astype function."""
    _check_device(device)
    return _arr(x).astype(dtype, copy=copy)


def flip(m, axis=None):
    cdef int64_t buf[32]
    cdef int64_t *axes
    cdef nd_array *out
    cdef ndarray x = _arr(m)
    cdef int n = _parse_axes(axis, buf, &axes)
    if axes != NULL and n == 0:
        return x[...]
    _check(nd_array_flip(x._a, n, axes, &out))
    return _wrap(out, _view_base(x))


def fliplr(m):
    x = _arr(m)
    if x.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(x, 1)


def flipud(m):
    x = _arr(m)
    if x.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(x, 0)


def atleast_1d(*arys):
    res = [_arr(a) if _arr(a).ndim >= 1 else _arr(a).reshape(1) for a in arys]
    return res[0] if len(res) == 1 else tuple(res)


def atleast_2d(*arys):
    res = []
    for a in arys:
        x = _arr(a)
        if x.ndim == 0:
            x = x.reshape(1, 1)
        elif x.ndim == 1:
            x = x[None, :]
        res.append(x)
    return res[0] if len(res) == 1 else tuple(res)


def atleast_3d(*arys):
    res = []
    for a in arys:
        x = _arr(a)
        if x.ndim == 0:
            x = x.reshape(1, 1, 1)
        elif x.ndim == 1:
            x = x[None, :, None]
        elif x.ndim == 2:
            x = x[:, :, None]
        res.append(x)
    return res[0] if len(res) == 1 else tuple(res)


cdef object _concat_impl(object arrays, object axis, bint stack_):
    cdef const nd_array *ptrs[1024]
    cdef nd_array *out
    cdef int i = 0
    cdef int64_t ax
    keep = [_arr(a) for a in arrays]
    if len(keep) == 0:
        raise ValueError("need at least one array to concatenate")
    if len(keep) > 1024:
        return _concat_impl([_concat_impl(keep[j:j + 1024], axis, stack_)
                             for j in range(0, len(keep), 1024)], axis, False) \
            if not stack_ else _concat_impl([expand_dims(k, axis) for k in keep], axis, False)
    for a in keep:
        ptrs[i] = (<ndarray>a)._a
        i += 1
    ax = ND_AXIS_NONE if axis is None else _operator.index(axis)
    if stack_:
        _check(nd_stack(i, ptrs, ax, &out))
    else:
        _check(nd_concatenate(i, ptrs, ax, &out))
    return _wrap(out)


def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    r = _concat_impl(arrays, axis, False)
    if dtype is not None:
        r = r.astype(dtype, casting=casting)
    if out is not None:
        _check(nd_copyto(_out_ptr(out), (<ndarray>r)._a, _nd_casting(casting)))
        return out
    return r


def concat(arrays, /, *, axis=0):
    return concatenate(arrays, axis)


def stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    r = _concat_impl(arrays, axis, True)
    if dtype is not None:
        r = r.astype(dtype, casting=casting)
    if out is not None:
        _check(nd_copyto(_out_ptr(out), (<ndarray>r)._a, _nd_casting(casting)))
        return out
    return r


def vstack(tup, dtype=None, casting="same_kind"):
    return concatenate([atleast_2d(a) for a in tup], 0, dtype=dtype, casting=casting)


def hstack(tup, dtype=None, casting="same_kind"):
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, 0 if arrs and arrs[0].ndim == 1 else 1, dtype=dtype,
                       casting=casting)


def dstack(tup):
    return concatenate([atleast_3d(a) for a in tup], 2)


def column_stack(tup):
    arrs = []
    for a in tup:
        x = _arr(a)
        arrs.append(x[:, None] if x.ndim < 2 else x)
    return concatenate(arrs, 1)


def tile(A, reps):
    cdef int64_t buf[32]
    cdef nd_array *out
    cdef int n = _parse_shape(reps, buf)
    _check(nd_tile(_arr(A)._a, n, buf, &out))
    return _wrap(out)


def repeat(a, repeats, axis=None):
    cdef nd_array *out
    x = _arr(a)
    if not isinstance(repeats, (int, _np.integer)):
        r = _arr(repeats)
        if r.ndim == 0 or r.size == 1:
            repeats = int(r.ravel()[0].item())
        else:
            # One count per element: output position p takes the element whose cumulative
            # count first exceeds p (a searchsorted over the cumulative counts), then take.
            if axis is None:
                x = x.ravel()
                axis = 0
            ax = _normalize_axis(axis, x.ndim)
            if r.ndim != 1 or r.size != x.shape[ax]:
                raise ValueError(f"operands could not be broadcast together with shape "
                                 f"({x.shape[ax]},) ({r.size},)")
            if r.dtype.kind not in "biu":
                raise TypeError("Cannot cast array data from dtype('float64') to "
                                "dtype('int64') according to the rule 'safe'")
            if r.size and amin(r).item() < 0:
                raise ValueError("repeats may not contain negative values.")
            ends = cumsum(r.astype(_np.int64))
            total = ends[-1].item() if r.size else 0
            idx = searchsorted(ends, arange(total), side="right")
            return take(x, idx, axis=ax)
    if repeats < 0:
        raise ValueError("repeats may not contain negative values.")
    _check(nd_repeat((<ndarray>x)._a, repeats, ND_AXIS_NONE if axis is None else axis, &out))
    return _wrap(out)


def split(ary, indices_or_sections, axis=0):
    x = _arr(ary)
    n = x.shape[_normalize_axis(axis, x.ndim)]
    if isinstance(indices_or_sections, (int, _np.integer)):
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(x, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    x = _arr(ary)
    ax = _normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    if isinstance(indices_or_sections, (int, _np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        key = [slice(None)] * ax + [slice(lo, hi)]
        out.append(x[tuple(key)])
    return out


def roll(a, shift, axis=None):
    if isinstance(axis, (tuple, list)):
        shifts = shift if isinstance(shift, (tuple, list)) else [shift] * len(axis)
        if len(shifts) != len(axis):
            raise ValueError(f"roll: {len(shifts)} shifts for {len(axis)} axes")
        # A new array even for axis=() (rolling along no axis), as NumPy.
        x = _arr(a).copy()
        for s, ax in zip(shifts, axis):
            x = roll(x, s, ax)
        return x
    x = _arr(a)
    if axis is None:
        return roll(x.ravel(), shift, 0).reshape(x.shape)
    ax = _normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    if n == 0:
        return x.copy()
    s = int(shift) % n
    if s == 0:
        return x.copy()
    pre = [slice(None)] * ax
    return concatenate([x[tuple(pre + [slice(n - s, None)])],
                        x[tuple(pre + [slice(0, n - s)])]], ax)


def diagonal(a, offset=0, axis1=0, axis2=1):
    return _arr(a).diagonal(offset, axis1, axis2)


def real(val):
    x = _arr(val)
    return x.real


def imag(val):
    x = _arr(val)
    return x.imag


def ndim(a):
    return _arr(a).ndim if not isinstance(a, _np.ndarray) else a.ndim


def shape(a):
    return _arr(a).shape


def size(a, axis=None):
    x = _arr(a)
    return x.size if axis is None else x.shape[axis]


def shares_memory(a, b, max_work=None):
    """Whether a and b are views of one buffer (a conservative answer, as may_share_memory)."""
    return bool(nd_array_shares_buffer(_arr(a)._a, _arr(b)._a))


may_share_memory = shares_memory


# ---- ufuncs ------------------------------------------------------------------------------------

cdef class ufunc:
    """An elementwise function of the C library with NumPy's ufunc calling convention:
    f(x1[, x2], /, out=None, *, where=True, casting='same_kind', dtype=None)."""
    cdef int _op
    cdef readonly int nin
    cdef readonly int nout
    cdef readonly str name
    cdef object __weakref__

    def __init__(self, int op, str name, int nin):
        self._op = op
        self.name = name
        self.nin = nin
        self.nout = 1

    @property
    def __name__(self):
        return self.name

    @property
    def nargs(self):
        return self.nin + 1

    @property
    def __signature__(self):
        # What __call__ accepts, for inspect.signature (array-api-tests reads it, help() shows
        # it): the inputs positional-only, out positional or keyword, the rest keywords.
        import inspect
        P = inspect.Parameter
        names = ["x"] if self.nin == 1 else [f"x{i + 1}" for i in range(self.nin)]
        ps = [P(n, P.POSITIONAL_ONLY) for n in names]
        ps.append(P("out", P.POSITIONAL_OR_KEYWORD, default=None))
        ps += [P(k, P.KEYWORD_ONLY, default=v) for k, v in
               (("where", True), ("casting", "same_kind"), ("dtype", None), ("order", "K"))]
        return inspect.Signature(ps)

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=True, casting="same_kind", dtype=None,
                 order="K"):
        cdef nd_operand ops[3]
        cdef nd_array *res
        cdef nd_array *outp
        cdef nd_status st
        cdef int i, nin = self.nin
        cdef nd_dtype peer = <nd_dtype>-1
        if len(args) == nin + 1 and out is None:
            out = args[nin]
            args = args[:nin]
        if len(args) != nin:
            raise TypeError(f"{self.__name__}() takes from {nin} to {nin + 1} positional "
                            f"arguments but {len(args)} were given")
        if dtype is not None:
            args = tuple(_arr(a).astype(dtype, casting=casting, copy=False) for a in args)
        for a in args:
            if isinstance(a, ndarray):
                peer = nd_array_dtype((<ndarray>a)._a)
                break
        keep = []
        for i in range(nin):
            k = _to_operand(args[i], &ops[i], peer)
            if k is _NOT_OPERAND:
                raise TypeError(f"{self.__name__}: unsupported operand type "
                                f"{type(args[i]).__name__}")
            keep.append(k)
        if isinstance(out, tuple):
            if len(out) != 1:
                raise ValueError(f"{self.__name__}: out must be a tuple of one array")
            out = out[0]
        if not (where is True):
            return _masked_ufunc(self, args, out, where, casting)
        if casting != "same_kind" and out is not None:
            return _ufunc_with_casting(self, args, out, casting)
        outp = _out_ptr(out)
        st = nd_ufunc_call(<nd_ufunc>self._op, nin, ops, outp, &res if outp == NULL else NULL)
        if st != ND_OK:
            _raise(st)
        if outp != NULL:
            return out
        return _wrap(res)

    def result_type(self, *dtypes):
        """The dtype this function gives for operands of these dtypes (or Python scalar
        types int/float/complex, which are weak)."""
        cdef nd_dtype buf[3]
        cdef nd_dtype out
        cdef int i
        if len(dtypes) != self.nin:
            raise TypeError(f"{self.__name__} takes {self.nin} operand dtypes")
        for i, d in enumerate(dtypes):
            if d is int:
                buf[i] = ND_PYINT
            elif d is float:
                buf[i] = ND_PYFLOAT
            elif d is complex:
                buf[i] = ND_PYCOMPLEX
            else:
                buf[i] = _nd_dtype(d)
        _check(nd_ufunc_result_type(<nd_ufunc>self._op, self.nin, buf, &out))
        return _np_dtype(out)

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False):
        f = _UFUNC_REDUCE.get(self.__name__)
        if f is None:
            raise _NotImplementedError(f"{self.__name__}.reduce is not supported")
        if f in ("all", "any", "amax", "amin"):
            return globals()[f](a, axis=axis, out=out, keepdims=keepdims)
        return globals()[f](a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def accumulate(self, a, axis=0, dtype=None, out=None):
        f = _UFUNC_ACCUMULATE.get(self.__name__)
        if f is None:
            raise _NotImplementedError(f"{self.__name__}.accumulate is not supported")
        return globals()[f](a, axis=axis, dtype=dtype, out=out)

    def outer(self, A, B, **kwargs):
        if self.nin != 2:
            raise ValueError("outer product only supported for binary functions")
        a = _arr(A)
        b = _arr(B)
        return self(a.reshape(a.shape + (1,) * b.ndim), b, **kwargs)


_UFUNC_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "amax", "minimum": "amin",
                 "logical_and": "all", "logical_or": "any"}
_UFUNC_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}


def _masked_ufunc(ufunc f not None, args, out, where, casting):
    """where=: the result where the mask is true, out's old values elsewhere (NumPy leaves
    them uninitialised when out is not given)."""
    r = f(*args)
    if out is None:
        out = empty(broadcast_shapes(r.shape, _arr(where).shape), r.dtype)
    elif casting != "unsafe" and not can_cast(r.dtype, out.dtype, casting):
        raise TypeError(f"Cannot cast ufunc '{f.__name__}' output from {r.dtype!r} to "
                        f"{out.dtype!r} with casting rule {casting!r}")
    tmp = where_(_arr(where), r, out)
    _check(nd_copyto(_out_ptr(out), (<ndarray>tmp)._a, ND_CASTING_UNSAFE))
    return out


def _ufunc_with_casting(ufunc f not None, args, out, casting):
    r = f(*args)
    if not can_cast(r.dtype, out.dtype, casting):
        raise TypeError(f"Cannot cast ufunc '{f.__name__}' output from {r.dtype!r} to "
                        f"{out.dtype!r} with casting rule {casting!r}")
    _check(nd_copyto(_out_ptr(out), (<ndarray>r)._a, _nd_casting(casting)))
    return out


def _make_ufuncs():
    """{name: ufunc} for every function of the C table."""
    out = {}
    cdef int op = 0
    cdef int nin
    while True:
        nin = nd_ufunc_nin(<nd_ufunc>op)
        if nin == 0:
            break
        name = nd_ufunc_name(<nd_ufunc>op).decode()
        out[name] = ufunc(op, name, nin)
        op += 1
    return out


_UFUNCS = _make_ufuncs()

# The ufunc table's functions that NumPy does not treat as ufuncs get NumPy's signatures
# below (real, imag, angle, clip, where); the rest are ufuncs.
for _name, _f in _UFUNCS.items():
    if _name not in ("real", "imag", "angle", "clip", "where"):
        globals()[_name] = _f
del _name, _f

where_ = _UFUNCS["where"]


def where(condition, x=None, y=None):
    """where(condition, x, y) elementwise, or where(condition) = nonzero(condition)."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return where_(condition, x, y)


def clip(a, /, min=None, max=None, out=None, *, a_min=None, a_max=None):
    """NumPy's clip with the array API's signature: the bounds are the positional or keyword
    arguments min and max (NumPy 2.1's names); NumPy's older a_min/a_max keywords work too."""
    cdef nd_operand ops[3]
    cdef nd_array *res
    cdef nd_array *outp
    cdef nd_status st
    if (a_min is not None or a_max is not None) and (min is not None or max is not None):
        raise ValueError("clip: pass the bounds as min/max or as a_min/a_max, not both")
    if min is not None or max is not None:
        a_min, a_max = min, max
    x = _arr(a)
    if a_min is None and a_max is None:
        # The array API (and NumPy 2.1) return the input's values when no bound is given.
        r = (<ndarray>x).copy("K")
        if out is not None:
            _check(nd_copyto(_out_ptr(out), (<ndarray>r)._a, ND_CASTING_SAME_KIND))
            return out
        return r
    cdef nd_dtype peer = nd_array_dtype((<ndarray>x)._a)
    keep = [_to_operand(x, &ops[0], peer)]
    for i, v in ((1, a_min), (2, a_max)):
        if v is None:
            ops[i].kind = ND_OPERAND_NONE
            ops[i].array = NULL
        else:
            k = _to_operand(v, &ops[i], peer)
            if k is _NOT_OPERAND:
                k = _to_operand(_arr(v), &ops[i], peer)
            keep.append(k)
    outp = _out_ptr(out)
    st = nd_ufunc_call(<nd_ufunc>ND_UFUNC_CLIP, 3, ops, outp, &res if outp == NULL else NULL)
    if st != ND_OK:
        _raise(st)
    return out if outp != NULL else _wrap(res)


def angle(z, deg=False):
    cdef nd_array *res
    _check(nd_angle(_arr(z)._a, 1 if deg else 0, NULL, &res))
    return _wrap(res)


def round(a, decimals=0, out=None):
    cdef nd_array *res
    cdef nd_array *outp = _out_ptr(out)
    _check(nd_round(_arr(a)._a, decimals, outp, &res if outp == NULL else NULL))
    return out if outp != NULL else _wrap(res)


around = round


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    cdef nd_array *res
    a = _arr(x)
    outp = (<ndarray>a)._a if not copy else NULL
    _check(nd_nan_to_num((<ndarray>a)._a, nan, float("nan") if posinf is None else posinf,
                         float("nan") if neginf is None else neginf, outp,
                         &res if outp == NULL else NULL))
    return a if outp != NULL else _wrap(res)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    cdef nd_array *res
    _check(nd_isclose(_arr(a)._a, _arr(b)._a, rtol, atol, 1 if equal_nan else 0, &res))
    return _wrap(res)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    cdef int ans = 0
    cdef nd_status st
    cdef ndarray x = _arr(a), y = _arr(b)
    cdef double r = rtol, t = atol
    cdef int en = 1 if equal_nan else 0
    with nogil:
        st = nd_allclose(x._a, y._a, r, t, en, &ans)
    _check(st)
    return bool(ans)


def array_equal(a1, a2, equal_nan=False):
    cdef int ans = 0
    cdef nd_status st
    cdef ndarray x = _arr(a1), y = _arr(a2)
    cdef int en = 1 if equal_nan else 0
    with nogil:
        st = nd_array_equal(x._a, y._a, en, &ans)
    _check(st)
    return bool(ans)


def array_equiv(a1, a2):
    x, y = _arr(a1), _arr(a2)
    try:
        broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return bool(all(_UFUNCS["equal"](x, y)).item())


# NumPy and array-API aliases of ufuncs.
abs = _UFUNCS["absolute"]
conj = _UFUNCS["conjugate"]
mod = _UFUNCS["remainder"]
true_divide = _UFUNCS["divide"]
pow = _UFUNCS["power"]
acos = _UFUNCS["arccos"]
asin = _UFUNCS["arcsin"]
atan = _UFUNCS["arctan"]
atan2 = _UFUNCS["arctan2"]
acosh = _UFUNCS["arccosh"]
asinh = _UFUNCS["arcsinh"]
atanh = _UFUNCS["arctanh"]
bitwise_not = _UFUNCS["invert"]
bitwise_invert = _UFUNCS["invert"]
bitwise_left_shift = _UFUNCS["left_shift"]
bitwise_right_shift = _UFUNCS["right_shift"]
degrees = _UFUNCS["rad2deg"]
radians = _UFUNCS["deg2rad"]
fix = _UFUNCS["trunc"]


# ---- reductions --------------------------------------------------------------------------------

ctypedef nd_status (*_red_dt_fn)(const nd_array *, int, const int64_t *, int, nd_dtype,
                                 nd_array *, nd_array **) noexcept nogil
ctypedef nd_status (*_red_ddof_fn)(const nd_array *, int, const int64_t *, int, nd_dtype,
                                   double, nd_array *, nd_array **) noexcept nogil
ctypedef nd_status (*_red_fn)(const nd_array *, int, const int64_t *, int, nd_array *,
                              nd_array **) noexcept nogil
ctypedef nd_status (*_arg_fn)(const nd_array *, int64_t, int, nd_array *,
                              nd_array **) noexcept nogil
ctypedef nd_status (*_scan_fn)(const nd_array *, int64_t, nd_dtype, nd_array *,
                               nd_array **) noexcept nogil
ctypedef nd_status (*_cumul_fn)(const nd_array *, int64_t, nd_dtype, int, nd_array *,
                                nd_array **) noexcept nogil

cdef enum:
    _K_DT = 0       # f(a, axis=None, dtype=None, out=None, keepdims=False)
    _K_DDOF = 1     # f(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False)
    _K_PLAIN = 2    # f(a, axis=None, out=None, keepdims=False)
    _K_ARG = 3      # f(a, axis=None, out=None, keepdims=False), one axis
    _K_SCAN = 4     # f(a, axis=None, dtype=None, out=None)
    _K_CUMUL = 5    # f(x, axis=None, dtype=None, out=None, include_initial=False)


cdef object _reduce(str name, int kind, void *fn, object a, object axis, object dtype,
                    object out, object keepdims, double ddof, object include_initial):
    """One reduction or scan of the C library (see the kinds above); the public functions
    below parse NumPy's and the array API's arguments and call this."""
    cdef int64_t buf[32]
    cdef int64_t *axes
    cdef int naxes
    cdef nd_array *res
    cdef nd_array *outp
    cdef nd_status st
    cdef nd_dtype d
    cdef int kd = 1 if keepdims else 0
    cdef int64_t ax
    cdef ndarray x
    # The arguments are checked before a is converted, so that their errors need no device.
    if kind == _K_DT or kind == _K_DDOF or kind == _K_PLAIN:
        naxes = _parse_axes(axis, buf, &axes)
        d = _nd_dtype(dtype)
        x = _arr(a)
        outp = _out_ptr(out)
        if kind == _K_DT:
            st = (<_red_dt_fn>fn)(x._a, naxes, axes, kd, d, outp, &res)
        elif kind == _K_DDOF:
            st = (<_red_ddof_fn>fn)(x._a, naxes, axes, kd, d, ddof, outp, &res)
        else:
            st = (<_red_fn>fn)(x._a, naxes, axes, kd, outp, &res)
    else:
        if axis is None:
            ax = ND_AXIS_NONE
        elif isinstance(axis, tuple):
            if len(axis) != 1:
                raise TypeError(f"{name}: axis must be an integer or None (got {axis!r})")
            ax = _operator.index(axis[0])
        else:
            ax = _operator.index(axis)
        d = _nd_dtype(dtype)
        x = _arr(a)
        outp = _out_ptr(out)
        if kind == _K_ARG:
            st = (<_arg_fn>fn)(x._a, ax, kd, outp, &res)
        elif kind == _K_SCAN:
            st = (<_scan_fn>fn)(x._a, ax, d, outp, &res)
        else:
            st = (<_cumul_fn>fn)(x._a, ax, d, 1 if include_initial else 0, outp, &res)
    if st != ND_OK:
        _raise(st)
    if outp != NULL:
        nd_array_release(res)
        return out[0] if isinstance(out, tuple) else out
    return _wrap(res)


cdef int _only_where_true(str name, object initial, object where) except -1:
    # The C reductions have no mask and no initial value; NumPy's defaults (no initial,
    # where=True) are the only values they take.
    if initial is not None:
        raise _NotImplementedError(f"{name}: initial= is not supported")
    if not (where is True or (type(where) is _np.bool_ and where)):
        raise _NotImplementedError(f"{name}: where= other than True is not supported")
    return 0


cdef double _ddof_of(str name, object ddof, object correction) except? -1.0:
    # NumPy 2 takes ddof (NumPy's name) or correction (the array API's), not both.
    if correction is not None:
        if ddof != 0:
            raise ValueError(f"{name}: ddof and correction can't be provided simultaneously.")
        return float(correction)
    return float(ddof)


# Each reduction is a plain function with NumPy's signature (which also takes the array API's
# keyword arguments), so that inspect.signature and positional arguments work as in NumPy.

def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _only_where_true("sum", initial, where)
    return _reduce("sum", _K_DT, <void *>nd_sum, a, axis, dtype, out, keepdims, 0, False)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _only_where_true("prod", initial, where)
    return _reduce("prod", _K_DT, <void *>nd_prod, a, axis, dtype, out, keepdims, 0, False)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _only_where_true("nansum", initial, where)
    return _reduce("nansum", _K_DT, <void *>nd_nansum, a, axis, dtype, out, keepdims, 0,
                   False)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    _only_where_true("mean", None, where)
    return _reduce("mean", _K_DT, <void *>nd_mean, a, axis, dtype, out, keepdims, 0, False)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    _only_where_true("nanmean", None, where)
    return _reduce("nanmean", _K_DT, <void *>nd_nanmean, a, axis, dtype, out, keepdims, 0,
                   False)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        correction=None):
    _only_where_true("var", None, where)
    return _reduce("var", _K_DDOF, <void *>nd_var, a, axis, dtype, out, keepdims,
                   _ddof_of("var", ddof, correction), False)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        correction=None):
    _only_where_true("std", None, where)
    return _reduce("std", _K_DDOF, <void *>nd_std, a, axis, dtype, out, keepdims,
                   _ddof_of("std", ddof, correction), False)


def amin(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    _only_where_true("amin", initial, where)
    return _reduce("amin", _K_PLAIN, <void *>nd_amin, a, axis, None, out, keepdims, 0, False)


def amax(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    _only_where_true("amax", initial, where)
    return _reduce("amax", _K_PLAIN, <void *>nd_amax, a, axis, None, out, keepdims, 0, False)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    _only_where_true("min", initial, where)
    return _reduce("min", _K_PLAIN, <void *>nd_amin, a, axis, None, out, keepdims, 0, False)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    _only_where_true("max", initial, where)
    return _reduce("max", _K_PLAIN, <void *>nd_amax, a, axis, None, out, keepdims, 0, False)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    _only_where_true("nanmin", initial, where)
    return _reduce("nanmin", _K_PLAIN, <void *>nd_nanmin, a, axis, None, out, keepdims, 0,
                   False)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    _only_where_true("nanmax", initial, where)
    return _reduce("nanmax", _K_PLAIN, <void *>nd_nanmax, a, axis, None, out, keepdims, 0,
                   False)


def ptp(a, axis=None, out=None, keepdims=False):
    return _reduce("ptp", _K_PLAIN, <void *>nd_ptp, a, axis, None, out, keepdims, 0, False)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    # overwrite_input only permits NumPy to use a as scratch space; the C library never does.
    return _reduce("median", _K_PLAIN, <void *>nd_median, a, axis, None, out, keepdims, 0,
                   False)


def all(a, axis=None, out=None, keepdims=False, *, where=True):
    _only_where_true("all", None, where)
    return _reduce("all", _K_PLAIN, <void *>nd_all, a, axis, None, out, keepdims, 0, False)


def any(a, axis=None, out=None, keepdims=False, *, where=True):
    _only_where_true("any", None, where)
    return _reduce("any", _K_PLAIN, <void *>nd_any, a, axis, None, out, keepdims, 0, False)


def argmin(a, axis=None, out=None, *, keepdims=False):
    return _reduce("argmin", _K_ARG, <void *>nd_argmin, a, axis, None, out, keepdims, 0,
                   False)


def argmax(a, axis=None, out=None, *, keepdims=False):
    return _reduce("argmax", _K_ARG, <void *>nd_argmax, a, axis, None, out, keepdims, 0,
                   False)


def cumsum(a, axis=None, dtype=None, out=None):
    return _reduce("cumsum", _K_SCAN, <void *>nd_cumsum, a, axis, dtype, out, False, 0, False)


def cumprod(a, axis=None, dtype=None, out=None):
    return _reduce("cumprod", _K_SCAN, <void *>nd_cumprod, a, axis, dtype, out, False, 0,
                   False)


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _reduce("cumulative_sum", _K_CUMUL, <void *>nd_cumulative_sum, x, axis, dtype, out,
                   False, 0, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _reduce("cumulative_prod", _K_CUMUL, <void *>nd_cumulative_prod, x, axis, dtype,
                   out, False, 0, include_initial)


def count_nonzero(a, axis=None, *, keepdims=False):
    cdef int64_t buf[32]
    cdef int64_t *axes
    cdef nd_array *res
    cdef int n = _parse_axes(axis, buf, &axes)
    _check(nd_count_nonzero(_arr(a)._a, n, axes, 1 if keepdims else 0, &res))
    return _wrap(res)


cdef object _quantile_impl(object a, object q, object axis, object out, bint keepdims,
                           bint percent, object method):
    cdef int64_t buf[32]
    cdef int64_t *axes
    cdef nd_array *res
    cdef nd_array *outp = _out_ptr(out)
    cdef int n = _parse_axes(axis, buf, &axes)
    cdef double qv
    cdef ndarray x = _arr(a)
    cdef double[::1] qs
    cdef nd_status st
    if method not in ("linear", None):
        raise _NotImplementedError(f"method={method!r}: only 'linear' is supported")
    if isinstance(q, ndarray):
        q = (<ndarray>q).get()
    qa = _np.asarray(q, dtype=_np.float64)
    if qa.ndim == 0:
        qv = float(qa)
        if percent:
            st = nd_percentile(x._a, qv, n, axes, 1 if keepdims else 0, outp, &res)
        else:
            st = nd_quantile(x._a, qv, n, axes, 1 if keepdims else 0, outp, &res)
    else:
        if qa.ndim != 1:
            raise _NotImplementedError("q with more than one dimension")
        qs = _np.ascontiguousarray(qa)
        if percent:
            st = nd_percentiles(x._a, qs.shape[0], &qs[0] if qs.shape[0] else NULL, n, axes,
                                1 if keepdims else 0, outp, &res)
        else:
            st = nd_quantiles(x._a, qs.shape[0], &qs[0] if qs.shape[0] else NULL, n, axes,
                              1 if keepdims else 0, outp, &res)
    _check(st)
    return _result(res, out)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    if weights is not None:
        raise _NotImplementedError("quantile with weights")
    return _quantile_impl(a, q, axis, out, keepdims, False, method)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    if weights is not None:
        raise _NotImplementedError("percentile with weights")
    return _quantile_impl(a, q, axis, out, keepdims, True, method)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    cdef int64_t buf[32]
    cdef int64_t *axes
    cdef nd_array *res
    cdef nd_array *sw = NULL
    cdef int n = _parse_axes(axis, buf, &axes)
    cdef ndarray x = _arr(a)
    cdef ndarray w = None if weights is None else _arr(weights)
    cdef nd_status st
    cdef int kd = 1 if keepdims else 0
    cdef const nd_array *wp = NULL if w is None else w._a
    cdef nd_array **swp = &sw if returned else NULL
    with nogil:
        st = nd_average(x._a, n, axes, wp, kd, &res, swp)
    _check(st)
    r = _wrap(res)
    if returned:
        if sw == NULL:
            return r, broadcast_to(asarray(x.size / _b.max(r.size, 1), r.dtype), r.shape).copy()
        return r, _wrap(sw)
    return r


def diff(a, n=1, axis=-1, prepend=None, append=None):
    cdef nd_array *res
    x = _arr(a)
    if prepend is not None or append is not None:
        parts = []
        ax = _normalize_axis(axis, x.ndim)
        for v in (prepend, x, append):
            if v is None:
                continue
            v = _arr(v)
            if v.ndim == 0:
                shp = list(x.shape)
                shp[ax] = 1
                v = broadcast_to(v, shp)
            parts.append(v)
        x = concatenate(parts, ax)
    _check(nd_diff((<ndarray>x)._a, n, axis, &res))
    return _wrap(res)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, dtype=None):
    x = atleast_2d(_arr(m))
    if not rowvar and x.shape[0] != 1:
        x = x.T
    if y is not None:
        yy = atleast_2d(_arr(y))
        if not rowvar and yy.shape[0] != 1:
            yy = yy.T
        x = concatenate((x, yy), 0)
    if dtype is None:
        dtype = result_type(x, _np.float64)
    x = x.astype(dtype)
    if ddof is None:
        ddof = 0 if bias else 1
    nobs = x.shape[1]
    fact = _b.max(nobs - ddof, 0)
    xc = x - mean(x, axis=1, keepdims=True)
    c = matmul(xc, conj(xc).T)
    return (c / fact).squeeze() if fact else (c / 0.0).squeeze()


def corrcoef(x, y=None, rowvar=True, dtype=None):
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = diagonal(c)
    stddev = _UFUNCS["sqrt"](d.real)
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    return clip(c.real, -1, 1) if c.dtype.kind != "c" else c


# ---- sorting, searching, counting, sets ---------------------------------------------------------

def _sort_kind(kind, stable):
    """NumPy's checks of sort's and argsort's kind and stable (every kind sorts stably here)."""
    if kind is None:
        return
    if not isinstance(kind, str):
        raise TypeError("sort kind must be str, not %s" % type(kind).__name__)
    if kind[:1].lower() not in ("q", "h", "m", "s"):  # NumPy reads the first letter only
        raise ValueError("sort kind must be one of 'quick', 'heap', or 'stable' (got %r)" % kind)
    if stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")


def _select_kind(kind):
    """NumPy's check of partition's and argpartition's kind."""
    if not isinstance(kind, str):
        raise TypeError("select kind must be str, not %s" % type(kind).__name__)
    if kind != "introselect":
        raise ValueError("select kind must be 'introselect' (got %r)" % kind)


def _no_order(order):
    if order is not None:
        raise ValueError("order is not supported (ndcuda has no structured dtypes)")


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    cdef nd_array *res
    _sort_kind(kind, stable)
    _no_order(order)
    _check(nd_sort(_arr(a)._a, ND_AXIS_NONE if axis is None else axis, &res))
    r = _wrap(res)
    return flip(r, -1 if axis is None else axis) if descending else r


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    cdef nd_array *res
    _sort_kind(kind, stable)
    _no_order(order)
    x = _arr(a)
    if descending:
        # Stable descending order: sort the reversed array and map the indices back.
        ax = -1 if axis is None else axis
        xr = flip(x.ravel() if axis is None else x, ax if axis is not None else 0)
        idx = argsort(xr, axis=ax if axis is not None else 0)
        n = (x.size if axis is None else x.shape[ax])
        return flip(n - 1 - idx, ax if axis is not None else 0)
    _check(nd_argsort((<ndarray>x)._a, ND_AXIS_NONE if axis is None else axis, &res))
    return _wrap(res)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    cdef nd_array *res
    _select_kind(kind)
    _no_order(order)
    _check(nd_partition(_arr(a)._a, kth, ND_AXIS_NONE if axis is None else axis, &res))
    return _wrap(res)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    cdef nd_array *res
    _select_kind(kind)
    _no_order(order)
    _check(nd_argpartition(_arr(a)._a, kth, ND_AXIS_NONE if axis is None else axis, &res))
    return _wrap(res)


def msort(a):
    return sort(a, axis=0)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):
    cdef nd_array *values
    cdef nd_array *index = NULL
    cdef nd_array *inverse = NULL
    cdef nd_array *counts = NULL
    cdef nd_status st
    cdef ndarray x = _arr(ar)
    cdef bint ri = return_index, rv = return_inverse, rc = return_counts
    if axis is not None:
        raise _NotImplementedError("unique with an axis needs the C library's take")
    if not equal_nan:
        raise _NotImplementedError("unique with equal_nan=False")
    with nogil:
        st = nd_unique(x._a, &values, &index if ri else NULL, &inverse if rv else NULL,
                       &counts if rc else NULL)
    _check(st)
    res = [_wrap(values)]
    if ri:
        res.append(_wrap(index))
    if rv:
        inv = _wrap(inverse)
        # NumPy 2 gives the inverse in the input's shape for axis=None, except that
        # NumPy 2.0/2.1 flattened it; ndcuda follows 2.2+ (the input's shape).
        res.append(inv)
    if rc:
        res.append(_wrap(counts))
    return res[0] if len(res) == 1 else tuple(res)


def unique_values(x):
    return unique(x)


def unique_counts(x):
    from collections import namedtuple
    v, c = unique(x, return_counts=True)
    return _UniqueCountsResult(v, c)


def unique_inverse(x):
    v, i = unique(x, return_inverse=True)
    return _UniqueInverseResult(v, i)


def unique_all(x):
    v, idx, inv, c = unique(x, return_index=True, return_inverse=True, return_counts=True)
    return _UniqueAllResult(v, idx, inv, c)


from collections import namedtuple as _namedtuple
_UniqueCountsResult = _namedtuple("UniqueCountsResult", ["values", "counts"])
_UniqueInverseResult = _namedtuple("UniqueInverseResult", ["values", "inverse_indices"])
_UniqueAllResult = _namedtuple("UniqueAllResult",
                               ["values", "indices", "inverse_indices", "counts"])


def searchsorted(a, v, side="left", sorter=None):
    cdef nd_array *res
    if sorter is not None:
        a = take(a, sorter)
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    _check(nd_searchsorted(_arr(a)._a, _arr(v)._a, 1 if side == "right" else 0, &res))
    return _wrap(res)


def nonzero(a):
    cdef nd_array *res[32]
    cdef nd_status st
    cdef int i, nd
    cdef ndarray x = _arr(a)
    nd = nd_array_ndim(x._a)
    with nogil:
        st = nd_nonzero(x._a, res, 32)
    _check(st)
    return tuple([_wrap(res[i]) for i in range(nd)])


def argwhere(a):
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray x = _arr(a)
    with nogil:
        st = nd_argwhere(x._a, &res)
    _check(st)
    return _wrap(res)


def flatnonzero(a):
    return nonzero(_arr(a).ravel())[0]


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    cdef nd_array *res
    _check(nd_isin(_arr(element)._a, _arr(test_elements)._a, 1 if invert else 0, &res))
    return _wrap(res)


def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    return isin(_arr(ar1).ravel(), ar2, assume_unique, invert)


def union1d(ar1, ar2):
    return unique(concatenate((_arr(ar1).ravel(), _arr(ar2).ravel())))


_INDEX_MODES = {"raise": ND_INDEX_RAISE, "wrap": ND_INDEX_WRAP, "clip": ND_INDEX_CLIP}


cdef nd_index_mode _index_mode(object mode) except <nd_index_mode>-1:
    try:
        return <nd_index_mode>_INDEX_MODES[mode]
    except (KeyError, TypeError):
        raise ValueError(f"mode must be 'raise', 'wrap' or 'clip' (got {mode!r})") from None


def _select(x, mask):
    """x[mask] for a boolean mask over x's leading dimensions (nd_mask_select)."""
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray a = _arr(x), m = _arr(mask)
    with nogil:
        st = nd_mask_select(a._a, m._a, &res)
    _check(st)
    return _wrap(res)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    if return_indices:
        raise _NotImplementedError("intersect1d with return_indices")
    a = _arr(ar1).ravel() if assume_unique else unique(ar1)
    b = _arr(ar2).ravel() if assume_unique else unique(ar2)
    aux = sort(concatenate((a, b)))
    if aux.size == 0:
        return aux
    return _select(aux[:-1], aux[1:] == aux[:-1])


def setdiff1d(ar1, ar2, assume_unique=False):
    a = _arr(ar1).ravel() if assume_unique else unique(ar1)
    return _select(a, isin(a, ar2, invert=True))


def setxor1d(ar1, ar2, assume_unique=False):
    a = _arr(ar1).ravel() if assume_unique else unique(ar1)
    b = _arr(ar2).ravel() if assume_unique else unique(ar2)
    aux = sort(concatenate((a, b)))
    if aux.size == 0:
        return aux
    flag = concatenate((asarray([True]), aux[1:] != aux[:-1], asarray([True])))
    return _select(aux, flag[1:] & flag[:-1])


def extract(condition, arr):
    return _select(_arr(arr).ravel(), _arr(condition).ravel() != 0)


def compress(condition, a, axis=None, out=None):
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray c = _arr(condition), x = _arr(a)
    cdef nd_array *outp = _out_ptr(out)
    cdef int64_t ax = ND_AXIS_NONE if axis is None else _operator.index(axis)
    with nogil:
        st = nd_compress(c._a, x._a, ax, outp, &res)
    _check(st)
    return _result(res, out)


def take(a, indices, axis=None, out=None, mode="raise"):
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray x = _arr(a), i = _index_array(indices)
    cdef nd_array *outp = _out_ptr(out)
    cdef int64_t ax = ND_AXIS_NONE if axis is None else _operator.index(axis)
    cdef nd_index_mode m = _index_mode(mode)
    with nogil:
        st = nd_take(x._a, i._a, ax, m, outp, &res)
    _check(st)
    return _result(res, out)


def take_along_axis(arr, indices, axis=-1):
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray x = _arr(arr), i = _arr(indices)
    cdef int64_t ax = ND_AXIS_NONE if axis is None else _operator.index(axis)
    with nogil:
        st = nd_take_along_axis(x._a, i._a, ax, NULL, &res)
    _check(st)
    return _wrap(res)


def put(a, ind, v, mode="raise"):
    cdef nd_status st
    cdef nd_index_mode m = _index_mode(mode)
    if not isinstance(a, ndarray):
        raise TypeError("put needs an ndcuda.ndarray (it writes in place)")
    cdef ndarray x = a, i = _arr(ind), vals = _arr(v)
    with nogil:
        st = nd_put(x._a, i._a, vals._a, m)
    _check(st)


def bincount(x, weights=None, minlength=0):
    cdef nd_array *res
    cdef nd_status st
    cdef ndarray xa = _arr(x)
    cdef ndarray w = None if weights is None else _arr(weights)
    cdef const nd_array *wp = NULL if w is None else w._a
    cdef int64_t ml = minlength
    with nogil:
        st = nd_bincount(xa._a, wp, ml, &res)
    _check(st)
    return _wrap(res)


def histogram(a, bins=10, range=None, density=None, weights=None):
    cdef nd_array *hist
    cdef nd_array *edges
    cdef double rng[2]
    cdef nd_status st
    cdef ndarray x = _arr(a)
    cdef ndarray w = None if weights is None else _arr(weights)
    cdef const nd_array *wp = NULL if w is None else w._a
    cdef int64_t nb
    if density:
        raise _NotImplementedError("histogram with density=True")
    if not isinstance(bins, (int, _np.integer)):
        raise _NotImplementedError("histogram with explicit bin edges")
    nb = bins
    if range is not None:
        rng[0] = float(range[0])
        rng[1] = float(range[1])
    with nogil:
        st = nd_histogram(x._a, nb, rng if range is not None else NULL, wp, &hist, &edges)
    _check(st)
    return _wrap(hist), _wrap(edges)
