# dtypes and scalars.
#
# ndcuda's fourteen dtypes are NumPy's; the package hands out NumPy dtype objects. Python
# bool/int/float/complex operands are NEP 50 "weak" scalars (ND_PYINT, ...), NumPy scalars
# (np.float32(2)) and 0-d NumPy arrays are strong scalars of their dtype, as in NumPy 2.

cdef int _NDTYPES = 14

# nd_dtype value -> NumPy dtype, built from the C names so the numbering comes from the C
# library.
_ND_TO_NP = tuple(_np.dtype(nd_dtype_name(<nd_dtype>i).decode()) for i in range(14))
_NP_TO_ND = {}
for _i, _dt in enumerate(_ND_TO_NP):
    _NP_TO_ND[_dt] = _i
    _NP_TO_ND[_dt.type] = _i
    _NP_TO_ND[_dt.name] = _i
    _NP_TO_ND[_dt.str] = _i
    _NP_TO_ND[_dt.char] = _i
_NP_TO_ND[bool] = ND_BOOL
_NP_TO_ND[int] = _NP_TO_ND[_np.dtype(int)]
_NP_TO_ND[float] = ND_FLOAT64
_NP_TO_ND[complex] = ND_COMPLEX128
del _i, _dt


cdef nd_dtype _nd_dtype(object dtype) except <nd_dtype>-2:
    """nd_dtype of a dtype-like (np.dtype, type, name). None gives ND_DTYPE_DEFAULT."""
    if dtype is None:
        return ND_DTYPE_DEFAULT
    try:
        return <nd_dtype>_NP_TO_ND[dtype]
    except (KeyError, TypeError):
        pass
    dt = _np.dtype(dtype)
    if dt.byteorder == ">" or (dt.byteorder == "<" and _sys_big_endian):
        dt = dt.newbyteorder("=")
    try:
        return <nd_dtype>_NP_TO_ND[dt]
    except KeyError:
        raise TypeError(f"ndcuda does not support dtype {dt!r}: only bool, int8..int64, "
                        f"uint8..uint64, float16, float32, float64, complex64 and "
                        f"complex128") from None


import sys as _sys
cdef bint _sys_big_endian = _sys.byteorder == "big"


cdef inline object _np_dtype(nd_dtype d):
    return _ND_TO_NP[<int>d]


cdef nd_dtype _nd_dtype_or(object dtype, nd_dtype default) except <nd_dtype>-2:
    if dtype is None:
        return default
    return _nd_dtype(dtype)


def dtype_to_nd(dtype):
    """The C library's dtype number for a NumPy dtype-like (host only; raises TypeError for
    dtypes ndcuda does not support)."""
    return <int>_nd_dtype(_np.float64 if dtype is None else dtype)


def dtype_from_nd(int value):
    """The NumPy dtype for a C dtype number."""
    if value < 0 or value >= _NDTYPES:
        raise ValueError(f"{value} is not an ndcuda dtype number")
    return _ND_TO_NP[value]


_CASTING = {"no": ND_CASTING_NO, "equiv": ND_CASTING_EQUIV, "safe": ND_CASTING_SAFE,
            "same_kind": ND_CASTING_SAME_KIND, "unsafe": ND_CASTING_UNSAFE}


cdef nd_casting _nd_casting(object casting) except <nd_casting>-1:
    try:
        return <nd_casting>_CASTING[casting]
    except (KeyError, TypeError):
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                         f"'unsafe' (got {casting!r})") from None


# ---- scalars --------------------------------------------------------------------------------

# Return values of _scalar_of.
cdef enum:
    _NOT_SCALAR = 0
    _SCALAR = 1
    _BIG_INT = 2   # a Python int outside int64: the caller decides by the other operand


cdef int _scalar_of(object x, nd_scalar *s) except -1:
    """Fills s for a Python or NumPy scalar and returns _SCALAR, _BIG_INT, or _NOT_SCALAR."""
    cdef type t = type(x)
    cdef nd_dtype d
    if t is float:
        s.dtype = ND_PYFLOAT
        s.v.f = <double>x
        return _SCALAR
    if t is int:
        if -9223372036854775808 <= x <= 9223372036854775807:
            s.dtype = ND_PYINT
            s.v.i = <int64_t>x
            return _SCALAR
        return _BIG_INT
    if t is bool:
        s.dtype = ND_BOOL
        s.v.b = 1 if x else 0
        return _SCALAR
    if t is complex:
        s.dtype = ND_PYCOMPLEX
        s.v.c[0] = (<complex>x).real
        s.v.c[1] = (<complex>x).imag
        return _SCALAR
    if isinstance(x, _np.generic) or (isinstance(x, _np.ndarray) and (<object>x).ndim == 0):
        dt = x.dtype
        try:
            d = <nd_dtype>_NP_TO_ND[dt]
        except KeyError:
            return _NOT_SCALAR
        _strong_scalar(x, d, s)
        return _SCALAR
    if isinstance(x, bool):
        s.dtype = ND_BOOL
        s.v.b = 1 if x else 0
        return _SCALAR
    if isinstance(x, int):
        return _scalar_of(int(x), s)
    if isinstance(x, float):
        return _scalar_of(float(x), s)
    if isinstance(x, complex):
        return _scalar_of(complex(x), s)
    return _NOT_SCALAR


cdef int _strong_scalar(object x, nd_dtype d, nd_scalar *s) except -1:
    """s = x as a strong scalar of dtype d."""
    cdef char kind = nd_dtype_kind(d)
    s.dtype = d
    if kind == b'b':
        s.v.b = 1 if x else 0
    elif kind == b'i':
        s.v.i = <int64_t>int(x)
    elif kind == b'u':
        s.v.u = <uint64_t>int(x)
    elif kind == b'f':
        s.v.f = <double>float(x)
    else:
        z = complex(x)
        s.v.c[0] = z.real
        s.v.c[1] = z.imag
    return 0


cdef object _scalar_to_py(nd_scalar *s):
    """The Python value of a scalar read back from the device (ndarray.item())."""
    cdef char kind = nd_dtype_kind(s.dtype)
    if kind == b'b':
        return s.v.b != 0
    if kind == b'i':
        return s.v.i
    if kind == b'u':
        return s.v.u
    if kind == b'f':
        return s.v.f
    return complex(s.v.c[0], s.v.c[1])


_INT_BOUNDS = {}
for _i in range(14):
    _dt = _ND_TO_NP[_i]
    if _dt.kind in "iu":
        _ii = _np.iinfo(_dt)
        _INT_BOUNDS[_i] = (int(_ii.min), int(_ii.max))
del _i, _dt, _ii


cdef int _check_pyint_fits(object value, nd_dtype d) except -1:
    """NumPy 2 refuses to store a Python int that does not fit an integer dtype."""
    bounds = _INT_BOUNDS.get(<int>d)
    if bounds is not None and not (bounds[0] <= value <= bounds[1]):
        raise OverflowError(f"Python integer {value} out of bounds for {_np_dtype(d).name}")
    return 0


def result_type(*arrays_and_dtypes):
    """NumPy 2's result_type over arrays, dtypes and Python scalars (weak), computed by the
    C library (nd_result_type)."""
    cdef nd_dtype buf[64]
    cdef nd_scalar s
    cdef int n = 0
    cdef nd_dtype out
    if len(arrays_and_dtypes) == 0:
        raise ValueError("at least one array or dtype is required")
    if len(arrays_and_dtypes) > 64:
        raise ValueError("result_type takes at most 64 arguments")
    for x in arrays_and_dtypes:
        if isinstance(x, ndarray):
            buf[n] = nd_array_dtype((<ndarray>x)._a)
        elif type(x) in (bool, int, float, complex):
            if _scalar_of(x, &s) == _BIG_INT:
                s.dtype = ND_PYINT
            buf[n] = s.dtype
        elif isinstance(x, (_np.ndarray, _np.generic)):
            buf[n] = _nd_dtype(x.dtype)
        else:
            buf[n] = _nd_dtype(x)
        n += 1
    _check(nd_result_type(n, buf, &out))
    return _np_dtype(out)


def promote_types(type1, type2):
    """NumPy's promote_types (nd_promote_types)."""
    cdef nd_dtype out
    _check(nd_promote_types(_nd_dtype(type1), _nd_dtype(type2), &out))
    return _np_dtype(out)


def can_cast(from_, to, casting="safe"):
    """NumPy's can_cast for dtypes and arrays (nd_can_cast)."""
    cdef nd_dtype a
    if isinstance(from_, ndarray):
        a = nd_array_dtype((<ndarray>from_)._a)
    elif type(from_) in (bool, int, float, complex):
        raise TypeError("can_cast() does not support Python ints, floats, and complex "
                        "because the result used to depend on the value.")
    else:
        a = _nd_dtype(from_)
    return bool(nd_can_cast(a, _nd_dtype(to), _nd_casting(casting)))
