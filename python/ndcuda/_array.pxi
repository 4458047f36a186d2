# The ndarray type.
#
# An ndarray owns one reference to an nd_array (a header over a reference-counted device
# buffer). Views made here share the buffer; `base` follows NumPy: the array (or foreign
# object) that owns the memory, None for an array that allocated its own.

cdef inline ndarray _wrap(nd_array *a, object base=None):
    """A new ndarray taking over the reference a."""
    cdef ndarray r = ndarray.__new__(ndarray)
    r._a = a
    r._base = base
    return r


cdef inline object _view_base(ndarray x):
    return x if x._base is None else x._base


cdef int _parse_shape(object shape, int64_t *buf) except -1:
    """Writes a shape (an int or a sequence of ints) into buf; returns its ndim."""
    cdef int n = 0
    cdef int64_t v
    try:
        v = _operator.index(shape)
        if v < 0:
            raise ValueError("negative dimensions are not allowed")
        buf[0] = v
        return 1
    except TypeError:
        pass
    try:
        seq = tuple(shape)
    except TypeError:
        raise TypeError(f"expected a sequence of integers or a single integer, got "
                        f"{type(shape).__name__!r}") from None
    if len(seq) > ND_MAXDIMS:
        raise ValueError(f"maximum supported dimension for an ndarray is currently "
                         f"{ND_MAXDIMS}, found {len(seq)}")
    for x in seq:
        try:
            v = _operator.index(x)
        except TypeError:
            raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an "
                            f"integer") from None
        if v < 0:
            raise ValueError("negative dimensions are not allowed")
        buf[n] = v
        n += 1
    return n


cdef object _shape_tuple(nd_array *a):
    cdef int n = nd_array_ndim(a)
    cdef const int64_t *s = nd_array_shape(a)
    return tuple([s[i] for i in range(n)])


cdef int _parse_axes(object axis, int64_t *buf, int64_t **axes) except -1:
    """NumPy's axis argument: None -> all axes (axes NULL, 0); an int; a tuple (possibly
    empty, which means no axis: axes non-NULL, 0). Returns naxes."""
    cdef int n = 0
    if axis is None:
        axes[0] = NULL
        return 0
    axes[0] = buf
    if isinstance(axis, tuple):
        if len(axis) > ND_MAXDIMS:
            raise AxisError(f"too many axes: {len(axis)}")
        for x in axis:
            buf[n] = _operator.index(x)
            n += 1
        return n
    buf[0] = _operator.index(axis)
    return 1


cdef object _order_char(object order, str allowed):
    if order is None:
        return "K" if "K" in allowed else "C"
    o = str(order).upper()
    if len(o) != 1 or o not in allowed:
        raise ValueError(f"order must be one of {', '.join(repr(c) for c in allowed)} "
                         f"(got {order!r})")
    return o


cdef nd_order _nd_order(str o):
    if o == "C":
        return ND_ORDER_C
    if o == "F":
        return ND_ORDER_F
    if o == "A":
        return ND_ORDER_A
    return ND_ORDER_K


class Flags:
    """array.flags: c_contiguous, f_contiguous, writeable, owndata (also as flags['C'])."""
    def __init__(self, int f):
        self.c_contiguous = bool(f & ND_ARRAY_C_CONTIGUOUS)
        self.f_contiguous = bool(f & ND_ARRAY_F_CONTIGUOUS)
        self.writeable = bool(f & ND_ARRAY_WRITEABLE)
        self.owndata = bool(f & ND_ARRAY_OWNDATA)

    _KEYS = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
             "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous",
             "WRITEABLE": "writeable", "W": "writeable", "OWNDATA": "owndata", "O": "owndata"}

    def __getitem__(self, key):
        try:
            return getattr(self, self._KEYS[str(key).upper()])
        except KeyError:
            raise KeyError(key) from None

    def __repr__(self):
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  OWNDATA : {self.owndata}\n  WRITEABLE : {self.writeable}")


cdef bint _is_advanced_key(object k):
    """Whether one entry of an index tuple is an advanced index (arrays, lists, bools)."""
    if k is None or k is Ellipsis or isinstance(k, slice):
        return False
    if isinstance(k, (bool, _np.bool_)):
        return True
    if isinstance(k, (list, tuple)):
        return True
    if isinstance(k, ndarray):
        return (<ndarray>k).ndim != 0 or (<ndarray>k).dtype.kind not in "iu"
    if isinstance(k, _np.ndarray):
        return k.ndim != 0 or k.dtype.kind not in "iu"
    if hasattr(k, "__cuda_array_interface__") or hasattr(k, "__dlpack__"):
        return True
    return False


cdef int64_t _index_int(object k) except? -1:
    try:
        return _operator.index(k)
    except TypeError:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                         "(`None`) and integer or boolean arrays are valid indices") from None
    except OverflowError:
        raise IndexError(f"index {k} is out of bounds (it does not fit in 64 bits)") from None


cdef int64_t _slice_field(object v) except? -3:
    if v is None:
        return ND_NONE
    try:
        x = _operator.index(v)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ "
                        "method") from None
    # Python clamps slice bounds to the axis, so clamping to int64 loses nothing.
    if x > 9223372036854775807:
        return 9223372036854775807
    if x < -9223372036854775807:
        return -9223372036854775807
    return x


cdef ndarray _basic_getitem(ndarray self, object key):
    """Basic indexing (ints, slices, Ellipsis, None) as a view."""
    cdef int ndim = nd_array_ndim(self._a)
    cdef nd_slice slices[32]
    cdef int i, axis, outpos, nconsume = 0, nell = 0, ni = 0, nnew = 0
    cdef int64_t int_axes[32]
    cdef int64_t int_vals[32]
    cdef int64_t new_pos[64]
    cdef bint any_slice = False
    cdef nd_array *cur
    cdef nd_array *nxt
    cdef nd_status st
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if k is Ellipsis:
            nell += 1
        elif k is not None:
            nconsume += 1
    if nell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if nconsume > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but "
                         f"{nconsume} were indexed")
    if len(key) - nconsume - nell > 64:
        raise IndexError("too many new axes in the index")
    for i in range(ndim):
        slices[i].start = ND_NONE
        slices[i].stop = ND_NONE
        slices[i].step = ND_NONE
    axis = 0
    outpos = 0
    for k in key:
        if k is None:
            new_pos[nnew] = outpos
            nnew += 1
            outpos += 1
        elif k is Ellipsis:
            axis += ndim - nconsume
            outpos += ndim - nconsume
        elif isinstance(k, slice):
            slices[axis].start = _slice_field((<slice>k).start)
            slices[axis].stop = _slice_field((<slice>k).stop)
            slices[axis].step = _slice_field((<slice>k).step)
            if slices[axis].step == 0:
                raise ValueError("slice step cannot be zero")
            any_slice = True
            axis += 1
            outpos += 1
        else:
            int_axes[ni] = axis
            int_vals[ni] = _index_int(k)
            ni += 1
            axis += 1
    if outpos + (ndim - axis) > ND_MAXDIMS:
        raise IndexError(f"the result would have more than {ND_MAXDIMS} dimensions")
    cur = nd_array_retain(self._a)
    try:
        if any_slice:
            st = nd_array_slice(cur, ndim, slices, &nxt)
            if st != ND_OK:
                _raise(st)
            nd_array_release(cur)
            cur = nxt
        for i in range(ni - 1, -1, -1):
            st = nd_array_index(cur, int_axes[i], int_vals[i], &nxt)
            if st != ND_OK:
                _raise(st)
            nd_array_release(cur)
            cur = nxt
        for i in range(nnew):
            st = nd_array_expand_dims(cur, new_pos[i], &nxt)
            if st != ND_OK:
                _raise(st)
            nd_array_release(cur)
            cur = nxt
    except BaseException:
        nd_array_release(cur)
        raise
    return _wrap(cur, _view_base(self))


cdef object _getitem(ndarray self, object key):
    cdef nd_array *out
    cdef int64_t i
    cdef nd_status st
    # Fast paths: one integer, one slice.
    if type(key) is int and nd_array_ndim(self._a) > 0:
        i = _index_int(key)
        st = nd_array_index(self._a, 0, i, &out)
        if st != ND_OK:
            _raise(st)
        return _wrap(out, _view_base(self))
    if isinstance(key, tuple):
        for k in key:
            if _is_advanced_key(k):
                return _advanced_getitem(self, key)
    elif _is_advanced_key(key):
        return _advanced_getitem(self, key)
    return _basic_getitem(self, key)


cdef ndarray _index_array(object k):
    """An advanced index entry as a device array (lists of nothing are int64, as NumPy)."""
    if isinstance(k, ndarray):
        return <ndarray>k
    if isinstance(k, (list, tuple)) and len(k) == 0:
        return asarray(_np.zeros(0, _np.int64))
    r = asarray(k)
    if r.dtype.kind not in "biu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return r


cdef object _plan_advanced(ndarray self, object key):
    """Splits an index with advanced entries into (basic view, index arrays, view axes,
    front) for nd_index_gather/nd_index_scatter, following the recipe in indexing.h: the basic
    part is applied as a view with every advanced entry kept whole; integers beside arrays
    count as advanced (0-d index arrays); boolean arrays become their nonzero coordinates;
    the broadcast index dimensions go first when the advanced entries are not adjacent."""
    cdef int ndim = nd_array_ndim(self._a)
    if not isinstance(key, tuple):
        key = (key,)
    entries = []
    nconsume = 0
    nell = 0
    for k in key:
        if k is None or isinstance(k, slice):
            entries.append(k)
            if k is not None:
                nconsume += 1
        elif k is Ellipsis:
            entries.append(k)
            nell += 1
        elif isinstance(k, (bool, _np.bool_)):
            # A boolean scalar is a 0-d boolean index: it consumes no dimension.
            entries.append(_np.bool_(k))
        elif _is_advanced_key(k) or isinstance(k, (int, _np.integer)) or hasattr(k, "__index__"):
            arr = _index_array(k) if _is_advanced_key(k) else asarray(_index_int(k))
            entries.append(arr)
            nconsume += arr.ndim if arr.dtype.kind == "b" else 1
        else:
            _index_int(k)   # raises NumPy's IndexError for other types
    if nell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if nconsume > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but "
                         f"{nconsume} were indexed")
    basic = []
    axes = []
    arrays = []
    positions = []   # entry positions of the advanced entries, for the adjacency rule
    vaxis = 0
    for pos, k in enumerate(entries):
        if k is None:
            basic.append(None)
            vaxis += 1
        elif k is Ellipsis:
            basic.append(Ellipsis)
            vaxis += ndim - nconsume
        elif isinstance(k, slice):
            basic.append(k)
            vaxis += 1
        elif isinstance(k, _np.bool_) or (k.dtype.kind == "b" and k.ndim == 0):
            # NumPy's 0-d boolean index: a new axis of length one, taken once (True) or not at
            # all (False), as an advanced index of shape (1,) or (0,) that broadcasts with the
            # other advanced entries.
            positions.append(pos)
            basic.append(None)
            axes.append(vaxis)
            arrays.append(asarray(_np.zeros(1 if _b.bool(k) else 0, _np.int64)))
            vaxis += 1
        else:
            positions.append(pos)
            if k.dtype.kind == "b":
                coords = nonzero(k)
                for c in coords:
                    basic.append(slice(None))
                    axes.append(vaxis)
                    arrays.append(c)
                    vaxis += 1
            else:
                basic.append(slice(None))
                axes.append(vaxis)
                arrays.append(k)
                vaxis += 1
    adjacent = _b.all(positions[i + 1] == positions[i] + 1 for i in range(len(positions) - 1))
    view = _basic_getitem(self, tuple(basic))
    return view, arrays, axes, 0 if adjacent else 1


def _advanced_getitem(ndarray self not None, key):
    cdef nd_array *res
    cdef const nd_array *idx[32]
    cdef int64_t ax[32]
    cdef int i, n
    cdef nd_status st
    cdef ndarray view
    cdef ndarray m
    # a[mask] with one boolean array: the direct form.
    k = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if not isinstance(key, tuple) or len(key) == 1:
        if not isinstance(k, (bool, _np.bool_)) and _is_advanced_key(k):
            m = _index_array(k)
            if m.dtype.kind == "b" and m.ndim > 0:
                with nogil:
                    st = nd_mask_select(self._a, m._a, &res)
                _check(st)
                return _wrap(res)
    view, arrays, axes, front = _plan_advanced(self, key)
    n = len(arrays)
    if n > 32:
        raise IndexError("too many index arrays")
    for i in range(n):
        idx[i] = (<ndarray>arrays[i])._a
        ax[i] = axes[i]
    cdef int fr = front
    with nogil:
        st = nd_index_gather(view._a, n, idx, ax, fr, ND_INDEX_RAISE, &res)
    _check(st)
    return _wrap(res)


def _advanced_setitem(ndarray self not None, key, value):
    cdef const nd_array *idx[32]
    cdef int64_t ax[32]
    cdef int i, n
    cdef nd_status st
    cdef ndarray view
    cdef ndarray m
    cdef ndarray v
    k = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if not isinstance(key, tuple) or len(key) == 1:
        if not isinstance(k, (bool, _np.bool_)) and _is_advanced_key(k):
            m = _index_array(k)
            if m.dtype.kind == "b" and m.ndim > 0:
                v = _value_array(value, self)
                with nogil:
                    st = nd_mask_assign(self._a, m._a, v._a)
                _check(st)
                return
    view, arrays, axes, front = _plan_advanced(self, key)
    n = len(arrays)
    if n > 32:
        raise IndexError("too many index arrays")
    for i in range(n):
        idx[i] = (<ndarray>arrays[i])._a
        ax[i] = axes[i]
    v = _value_array(value, self)
    cdef int fr = front
    with nogil:
        st = nd_index_scatter(view._a, n, idx, ax, fr, ND_INDEX_RAISE, v._a)
    _check(st)


cdef ndarray _value_array(object value, ndarray target):
    """The right-hand side of an assignment as a device array; Python ints are checked
    against an integer target as NumPy 2 does, then take the target's dtype."""
    cdef nd_scalar s
    cdef int kind
    if isinstance(value, ndarray):
        return <ndarray>value
    kind = _scalar_of(value, &s)
    if kind != _NOT_SCALAR:
        if (kind == _BIG_INT or s.dtype == ND_PYINT) and \
                nd_dtype_kind(nd_array_dtype(target._a)) in (b'i', b'u'):
            _check_pyint_fits(value, nd_array_dtype(target._a))
        if type(value) in (int, float, complex, bool):
            return asarray(value, dtype=target.dtype)
    return asarray(value)


cdef int _assign(ndarray dst, object value) except -1:
    """dst[...] = value with NumPy's broadcasting and (unsafe) casting."""
    cdef nd_scalar s
    cdef int kind = _scalar_of(value, &s)
    cdef nd_dtype d = nd_array_dtype(dst._a)
    cdef ndarray src
    if kind == _BIG_INT or (kind == _SCALAR and s.dtype == ND_PYINT):
        if nd_dtype_kind(d) in (b'i', b'u'):
            _check_pyint_fits(value, d)
        if kind == _BIG_INT:
            if nd_dtype_kind(d) in (b'f', b'c'):
                s.dtype = ND_PYFLOAT
                s.v.f = float(value)
            else:
                s.dtype = ND_UINT64
                s.v.u = <uint64_t>value
        _check(nd_array_fill(dst._a, s))
        return 0
    if kind == _SCALAR:
        _check(nd_array_fill(dst._a, s))
        return 0
    src = value if isinstance(value, ndarray) else asarray(value)
    _check(nd_copyto(dst._a, src._a, ND_CASTING_UNSAFE))
    return 0


cdef class ndarray:
    """An N-dimensional array in GPU memory, with NumPy's attributes and operators.

    ndarray(shape, dtype=float, order='C') allocates an uninitialised array on the current
    device; most arrays come from ndcuda.asarray, the creation functions and operations."""
    cdef nd_array *_a
    cdef object _base
    cdef object __weakref__

    __array_priority__ = 100.0
    # NumPy defers binary operators with an ndcuda operand to ndcuda's reflected methods.
    __array_ufunc__ = None

    def __cinit__(self):
        self._a = NULL

    def __init__(self, shape, dtype=float, order="C"):
        cdef int64_t buf[32]
        cdef int n = _parse_shape(shape, buf)
        cdef nd_array *a
        o = _order_char(order, "CF")
        _check(nd_empty_order(n, buf, _nd_dtype(dtype), _nd_order(o), &a))
        nd_array_release(self._a)   # __init__ called again on a live array
        self._a = a

    def __dealloc__(self):
        if self._a != NULL:
            nd_array_release(self._a)
            self._a = NULL

    # ---- attributes -------------------------------------------------------------------------

    @property
    def shape(self):
        return _shape_tuple(self._a)

    @property
    def strides(self):
        cdef int n = nd_array_ndim(self._a)
        cdef const int64_t *s = nd_array_strides(self._a)
        return tuple([s[i] for i in range(n)])

    @property
    def ndim(self):
        return nd_array_ndim(self._a)

    @property
    def size(self):
        return nd_array_size(self._a)

    @property
    def itemsize(self):
        return nd_array_itemsize(self._a)

    @property
    def nbytes(self):
        return nd_array_nbytes(self._a)

    @property
    def dtype(self):
        return _ND_TO_NP[<int>nd_array_dtype(self._a)]

    @property
    def flags(self):
        return Flags(nd_array_flags(self._a))

    @property
    def device(self):
        return Device(nd_array_device(self._a))

    @property
    def base(self):
        return self._base

    @property
    def data_ptr(self):
        """Device address of the first element (an int)."""
        return <size_t>nd_array_data(self._a)

    @property
    def T(self):
        return self.transpose()

    @property
    def mT(self):
        cdef nd_array *out
        if nd_array_ndim(self._a) < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        _check(nd_array_swapaxes(self._a, -1, -2, &out))
        return _wrap(out, _view_base(self))

    @property
    def real(self):
        cdef nd_array *out
        _check(nd_array_real(self._a, &out))
        if out == self._a:
            return _wrap(out, self._base)
        return _wrap(out, _view_base(self))

    @property
    def imag(self):
        cdef nd_array *out
        if nd_dtype_kind(nd_array_dtype(self._a)) == b'c':
            _check(nd_array_imag(self._a, &out))
            return _wrap(out, _view_base(self))
        # NumPy gives a read-only array of zeros for real input.
        r = zeros_like(self)
        _check(nd_array_set_writeable((<ndarray>r)._a, 0))
        return r

    @property
    def __cuda_array_interface__(self):
        """Version 3 of the CUDA array interface. Reading it orders the array's pending
        writes before the current stream, which is the one it names as "stream"."""
        return _cai_of(self)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule (versioned when max_version >= (1, 0)). The consumer's stream
        (an int: 1 legacy default, 2 per-thread, else a cudaStream_t; None means the
        legacy default stream; -1 asks for no ordering) is made to wait for this array's
        last writer, with no host synchronisation."""
        return _dlpack_export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return (2, nd_array_device(self._a))   # (kDLCUDA, device id)

    def __array_namespace__(self, *, api_version=None):
        # The standard's versions this namespace satisfies; any other is a ValueError.
        if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12",
                                                           "2024.12", "2025.12"):
            raise ValueError(f"ndcuda does not implement array API version {api_version!r}")
        import ndcuda
        return ndcuda

    def to_device(self, device, /, *, stream=None):
        """The array on device (a Device, or its number): self when it already lives there,
        else a copy made there (peer to peer where the devices allow), ordered after the
        work that produces self without blocking the host."""
        cdef nd_array *out
        cdef int d
        cdef nd_status st
        if isinstance(device, str) and device == "cpu":
            raise ValueError("ndcuda arrays live on CUDA devices; use .get() for a NumPy copy")
        if isinstance(device, Device):
            d = (<Device>device).id
        elif isinstance(device, (int, _np.integer)) and not isinstance(device, (bool, _np.bool_)):
            d = int(device)
        else:
            raise ValueError(f"unsupported device {device!r}")
        if d == nd_array_device(self._a):
            return self
        if stream is not None:
            raise NotImplementedError("to_device(stream=...): the copy runs on the current "
                                      "stream of the destination device")
        with nogil:
            st = nd_array_to_device(self._a, d, &out)
        _check(st)
        return _wrap(out)

    # ---- conversion ---------------------------------------------------------------------------

    def get(self, stream=None, out=None, order="C", blocking=True):
        """A NumPy copy (blocks until the data is on the host; waits only for the work that
        produces this array). `out`, if given, is a NumPy array of the same shape."""
        if stream is not None:
            with _as_stream(stream):
                return _to_numpy(self, out)
        return _to_numpy(self, out)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        "`.get()` or `ndcuda.asnumpy()` to construct a NumPy array "
                        "explicitly.")

    def item(self, *args):
        """The element as a Python scalar (blocks)."""
        cdef nd_scalar s
        cdef nd_status st
        cdef ndarray x = self
        if args:
            x = self.ravel()[_operator.index(args[0]) if len(args) == 1 else
                             _flat_index(self.shape, args)]
        with nogil:
            st = nd_array_item(x._a, &s)
        _check(st)
        return _scalar_to_py(&s)

    def tolist(self):
        return _to_numpy(self, None).tolist()

    def __len__(self):
        if nd_array_ndim(self._a) <= 0:   # (-1 for an ndarray made with __new__ alone)
            raise TypeError("len() of unsized object")
        return nd_array_shape(self._a)[0]

    def __iter__(self):
        if nd_array_ndim(self._a) <= 0:
            raise TypeError("iteration over a 0-d array")
        return _iter_rows(self, nd_array_shape(self._a)[0])

    def __bool__(self):
        cdef int64_t n = nd_array_size(self._a)
        if n == 0:
            raise ValueError("The truth value of an empty array is ambiguous. Use "
                             "`array.size > 0` to check that an array is not empty.")
        if n > 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self.item())

    def __float__(self):
        return float(self._item_scalar("float"))

    def __int__(self):
        return int(self._item_scalar("int"))

    def __complex__(self):
        return complex(self._item_scalar("complex"))

    def __index__(self):
        if nd_dtype_kind(nd_array_dtype(self._a)) not in (b'i', b'u') or \
                nd_array_ndim(self._a) != 0:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return self.item()

    def _item_scalar(self, what):
        if nd_array_size(self._a) != 1:
            raise TypeError(f"only length-1 arrays can be converted to Python scalars")
        v = self.item()
        if what != "complex" and isinstance(v, complex):
            raise TypeError(f"can't convert complex to {what}")
        return v

    def __repr__(self):
        return repr(_to_numpy(self, None))

    def __str__(self):
        return str(_to_numpy(self, None))

    def __format__(self, spec):
        if nd_array_ndim(self._a) == 0:
            return format(self.item(), spec)
        return format(_to_numpy(self, None), spec)

    def __reduce__(self):
        return (asarray, (_to_numpy(self, None),))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # ---- copies and views ---------------------------------------------------------------------

    def copy(self, order="C"):
        cdef nd_array *out
        o = _order_char(order, "CFAK")
        _check(nd_array_copy(self._a, _nd_order(o), &out))
        return _wrap(out)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        cdef nd_array *out
        cdef nd_dtype d = _nd_dtype(dtype)
        cdef nd_dtype mine = nd_array_dtype(self._a)
        o = _order_char(order, "CFAK")
        if not nd_can_cast(mine, d, _nd_casting(casting)):
            raise TypeError(f"Cannot cast array data from {_np_dtype(mine)!r} to "
                            f"{_np_dtype(d)!r} according to the rule {casting!r}")
        if d == mine and not copy:
            if o == "K" or (o == "C" and nd_array_is_c_contiguous(self._a)) or \
                    (o == "F" and nd_array_is_f_contiguous(self._a)):
                return self
        if o in ("C", "F"):
            if d == mine:
                _check(nd_array_copy(self._a, _nd_order(o), &out))
                return _wrap(out)
            r = self.astype(dtype)
            return r.copy(order=o) if not (<ndarray>r)._is_contig(o) else r
        _check(nd_array_astype(self._a, d, &out))
        return _wrap(out)

    cdef bint _is_contig(self, str o):
        if o == "F":
            return nd_array_is_f_contiguous(self._a)
        return nd_array_is_c_contiguous(self._a)

    def view(self, dtype=None):
        cdef nd_array *out
        if dtype is None or _nd_dtype(dtype) == nd_array_dtype(self._a):
            _check(nd_array_reshape(self._a, nd_array_ndim(self._a), nd_array_shape(self._a),
                                    &out))
            return _wrap(out, _view_base(self))
        raise NotImplementedError("views with another dtype are not supported")

    def reshape(self, *shape, order="C"):
        cdef int64_t buf[32]
        cdef int n
        cdef nd_array *out
        if len(shape) == 1:
            shape = shape[0]
        o = _order_char(order, "CFA")
        if o == "F" or (o == "A" and nd_array_is_f_contiguous(self._a)
                        and not nd_array_is_c_contiguous(self._a)):
            # Fortran-order reshape is the C-order reshape of the reversed axes.
            if isinstance(shape, int):
                shape = (shape,)
            return self.T.reshape(tuple(shape)[::-1]).T
        n = _parse_shape_allow_neg(shape, buf)
        _check(nd_array_reshape(self._a, n, buf, &out))
        if nd_array_shares_buffer(out, self._a):
            return _wrap(out, _view_base(self))
        return _wrap(out)

    def ravel(self, order="C"):
        cdef nd_array *out
        o = _order_char(order, "CFAK")
        if o == "F" or (o in "AK" and nd_array_is_f_contiguous(self._a)
                        and not nd_array_is_c_contiguous(self._a)):
            return self.T.ravel()
        _check(nd_array_ravel(self._a, &out))
        if nd_array_shares_buffer(out, self._a):
            return _wrap(out, _view_base(self))
        return _wrap(out)

    def flatten(self, order="C"):
        cdef nd_array *out
        r = self.ravel(order)
        if (<ndarray>r)._base is None:
            return r
        _check(nd_array_copy((<ndarray>r)._a, ND_ORDER_C, &out))
        return _wrap(out)

    def transpose(self, *axes):
        cdef int64_t buf[32]
        cdef int n = 0
        cdef nd_array *out
        # An explicit empty permutation, transpose(()), is one of no axes, as NumPy reads it:
        # valid for a 0-d array only (the C function's naxes 0 would reverse the axes).
        cdef bint explicit = len(axes) > 0 and not (len(axes) == 1 and axes[0] is None)
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = () if axes[0] is None else tuple(axes[0])
        if len(axes) > 32 or (explicit and len(axes) == 0 and self.ndim != 0):
            raise ValueError("axes don't match array")
        for x in axes:
            buf[n] = _operator.index(x)
            n += 1
        _check(nd_array_transpose(self._a, n, buf if n else NULL, &out))
        return _wrap(out, _view_base(self))

    def swapaxes(self, axis1, axis2):
        cdef nd_array *out
        _check(nd_array_swapaxes(self._a, axis1, axis2, &out))
        return _wrap(out, _view_base(self))

    def squeeze(self, axis=None):
        cdef int64_t buf[32]
        cdef int64_t *axes
        cdef nd_array *out
        cdef int n = _parse_axes(axis, buf, &axes)
        if axes != NULL and n == 0:
            # axis=() names no axis, so nothing is squeezed (the C function's naxes 0 would
            # squeeze every length-1 axis, NumPy's axis=None).
            return self[...]
        _check(nd_array_squeeze(self._a, n, axes, &out))
        return _wrap(out, _view_base(self))

    def diagonal(self, offset=0, axis1=0, axis2=1):
        cdef nd_array *out
        _check(nd_array_diagonal(self._a, offset, axis1, axis2, &out))
        return _wrap(out, _view_base(self))

    def fill(self, value):
        _fill(self, value)

    # ---- indexing -----------------------------------------------------------------------------

    def __getitem__(self, key):
        return _getitem(self, key)

    def __setitem__(self, key, value):
        if isinstance(key, tuple):
            for k in key:
                if _is_advanced_key(k):
                    _advanced_setitem(self, key, value)
                    return
        elif _is_advanced_key(key):
            _advanced_setitem(self, key, value)
            return
        cdef ndarray view
        if key is Ellipsis or (isinstance(key, slice) and key == slice(None)):
            view = self
        else:
            view = _basic_getitem(self, key)
        if isinstance(value, ndarray) and _same_view(view, <ndarray>value):
            # `a[k] += b` assigns the view it just updated back to itself: nothing to do.
            return
        _assign(view, value)

    # ---- operators ----------------------------------------------------------------------------

    def __add__(self, other):
        return _binop(ND_UFUNC_ADD, self, other, False)

    def __radd__(self, other):
        return _binop(ND_UFUNC_ADD, self, other, True)

    def __iadd__(self, other):
        return _inplace(ND_UFUNC_ADD, self, other)

    def __sub__(self, other):
        return _binop(ND_UFUNC_SUBTRACT, self, other, False)

    def __rsub__(self, other):
        return _binop(ND_UFUNC_SUBTRACT, self, other, True)

    def __isub__(self, other):
        return _inplace(ND_UFUNC_SUBTRACT, self, other)

    def __mul__(self, other):
        return _binop(ND_UFUNC_MULTIPLY, self, other, False)

    def __rmul__(self, other):
        return _binop(ND_UFUNC_MULTIPLY, self, other, True)

    def __imul__(self, other):
        return _inplace(ND_UFUNC_MULTIPLY, self, other)

    def __truediv__(self, other):
        return _binop(ND_UFUNC_DIVIDE, self, other, False)

    def __rtruediv__(self, other):
        return _binop(ND_UFUNC_DIVIDE, self, other, True)

    def __itruediv__(self, other):
        return _inplace(ND_UFUNC_DIVIDE, self, other)

    def __floordiv__(self, other):
        return _binop(ND_UFUNC_FLOOR_DIVIDE, self, other, False)

    def __rfloordiv__(self, other):
        return _binop(ND_UFUNC_FLOOR_DIVIDE, self, other, True)

    def __ifloordiv__(self, other):
        return _inplace(ND_UFUNC_FLOOR_DIVIDE, self, other)

    def __mod__(self, other):
        return _binop(ND_UFUNC_REMAINDER, self, other, False)

    def __rmod__(self, other):
        return _binop(ND_UFUNC_REMAINDER, self, other, True)

    def __imod__(self, other):
        return _inplace(ND_UFUNC_REMAINDER, self, other)

    def __divmod__(self, other):
        q = _binop(ND_UFUNC_FLOOR_DIVIDE, self, other, False)
        if q is NotImplemented:
            return q
        return q, _binop(ND_UFUNC_REMAINDER, self, other, False)

    def __rdivmod__(self, other):
        q = _binop(ND_UFUNC_FLOOR_DIVIDE, self, other, True)
        if q is NotImplemented:
            return q
        return q, _binop(ND_UFUNC_REMAINDER, self, other, True)

    def __pow__(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        cdef int fast = _pow_fast_op(nd_array_dtype(self._a), other)
        if fast >= 0:
            return _unop(fast, self)
        return _binop(ND_UFUNC_POWER, self, other, False)

    def __rpow__(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        return _binop(ND_UFUNC_POWER, self, other, True)

    def __ipow__(self, other):
        cdef int fast = _pow_fast_op(nd_array_dtype(self._a), other)
        if fast >= 0:
            return _inplace_unop(fast, self)
        return _inplace(ND_UFUNC_POWER, self, other)

    def __matmul__(self, other):
        return _matmul_op(self, other, False)

    def __rmatmul__(self, other):
        return _matmul_op(self, other, True)

    def __imatmul__(self, other):
        r = _matmul_op(self, other, False)
        if r is NotImplemented:
            return r
        if (<ndarray>r).shape != self.shape:
            raise ValueError(f"matmul: in-place result of shape {r.shape} does not fit "
                             f"{self.shape}")
        _check(nd_copyto(self._a, (<ndarray>r)._a, ND_CASTING_SAME_KIND))
        return self

    def __and__(self, other):
        return _binop(ND_UFUNC_BITWISE_AND, self, other, False)

    def __rand__(self, other):
        return _binop(ND_UFUNC_BITWISE_AND, self, other, True)

    def __iand__(self, other):
        return _inplace(ND_UFUNC_BITWISE_AND, self, other)

    def __or__(self, other):
        return _binop(ND_UFUNC_BITWISE_OR, self, other, False)

    def __ror__(self, other):
        return _binop(ND_UFUNC_BITWISE_OR, self, other, True)

    def __ior__(self, other):
        return _inplace(ND_UFUNC_BITWISE_OR, self, other)

    def __xor__(self, other):
        return _binop(ND_UFUNC_BITWISE_XOR, self, other, False)

    def __rxor__(self, other):
        return _binop(ND_UFUNC_BITWISE_XOR, self, other, True)

    def __ixor__(self, other):
        return _inplace(ND_UFUNC_BITWISE_XOR, self, other)

    def __lshift__(self, other):
        return _binop(ND_UFUNC_LEFT_SHIFT, self, other, False)

    def __rlshift__(self, other):
        return _binop(ND_UFUNC_LEFT_SHIFT, self, other, True)

    def __ilshift__(self, other):
        return _inplace(ND_UFUNC_LEFT_SHIFT, self, other)

    def __rshift__(self, other):
        return _binop(ND_UFUNC_RIGHT_SHIFT, self, other, False)

    def __rrshift__(self, other):
        return _binop(ND_UFUNC_RIGHT_SHIFT, self, other, True)

    def __irshift__(self, other):
        return _inplace(ND_UFUNC_RIGHT_SHIFT, self, other)

    def __neg__(self):
        return _unop(ND_UFUNC_NEGATIVE, self)

    def __pos__(self):
        return _unop(ND_UFUNC_POSITIVE, self)

    def __abs__(self):
        return _unop(ND_UFUNC_ABSOLUTE, self)

    def __invert__(self):
        return _unop(ND_UFUNC_INVERT, self)

    def __eq__(self, other):
        return _binop(ND_UFUNC_EQUAL, self, other, False)

    def __ne__(self, other):
        return _binop(ND_UFUNC_NOT_EQUAL, self, other, False)

    def __lt__(self, other):
        return _binop(ND_UFUNC_LESS, self, other, False)

    def __le__(self, other):
        return _binop(ND_UFUNC_LESS_EQUAL, self, other, False)

    def __gt__(self, other):
        return _binop(ND_UFUNC_GREATER, self, other, False)

    def __ge__(self, other):
        return _binop(ND_UFUNC_GREATER_EQUAL, self, other, False)

    __hash__ = None

    # ---- methods that are functions -----------------------------------------------------------

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return var(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return std(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return amin(self, axis=axis, out=out, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return amax(self, axis=axis, out=out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        return argmin(self, axis=axis, out=out, keepdims=keepdims)

    def argmax(self, axis=None, out=None, keepdims=False):
        return argmax(self, axis=axis, out=out, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return all(self, axis=axis, out=out, keepdims=keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        return any(self, axis=axis, out=out, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return cumsum(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return cumprod(self, axis=axis, dtype=dtype, out=out)

    def clip(self, min=None, max=None, out=None):
        return clip(self, min, max, out=out)

    def round(self, decimals=0, out=None):
        return round(self, decimals, out=out)

    def conj(self):
        return _UFUNCS["conjugate"](self)

    def conjugate(self):
        return _UFUNCS["conjugate"](self)

    def dot(self, b, out=None):
        return dot(self, b, out=out)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return trace(self, offset, axis1, axis2, dtype, out)

    def nonzero(self):
        return nonzero(self)

    def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
        return argsort(self, axis=axis, kind=kind, order=order, stable=stable)

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        """Sorts in place (a sorted copy written back)."""
        r = sort(self, axis=axis, kind=kind, order=order, stable=stable)
        _check(nd_copyto(self._a, (<ndarray>r)._a, ND_CASTING_NO))

    def searchsorted(self, v, side="left", sorter=None):
        return searchsorted(self, v, side=side, sorter=sorter)

    def repeat(self, repeats, axis=None):
        return repeat(self, repeats, axis)

    def take(self, indices, axis=None, out=None, mode="raise"):
        return take(self, indices, axis=axis, out=out, mode=mode)

    def compress(self, condition, axis=None, out=None):
        return compress(condition, self, axis=axis, out=out)

    def put(self, indices, values, mode="raise"):
        put(self, indices, values, mode)


def _iter_rows(ndarray a not None, int64_t n):
    cdef int64_t i
    for i in range(n):
        yield a[i]


cdef bint _same_view(ndarray a, ndarray b):
    cdef int i, n = nd_array_ndim(a._a)
    if a is b:
        return True
    if nd_array_data(a._a) != nd_array_data(b._a) or n != nd_array_ndim(b._a) or \
            nd_array_dtype(a._a) != nd_array_dtype(b._a):
        return False
    for i in range(n):
        if nd_array_shape(a._a)[i] != nd_array_shape(b._a)[i] or \
                nd_array_strides(a._a)[i] != nd_array_strides(b._a)[i]:
            return False
    return True


cdef int _parse_shape_allow_neg(object shape, int64_t *buf) except -1:
    """A reshape target: like _parse_shape but one -1 is allowed (the C call checks)."""
    cdef int n = 0
    try:
        buf[0] = _operator.index(shape)
        return 1
    except TypeError:
        pass
    seq = tuple(shape)
    if len(seq) > ND_MAXDIMS:
        raise ValueError(f"maximum supported dimension for an ndarray is currently "
                         f"{ND_MAXDIMS}, found {len(seq)}")
    for x in seq:
        buf[n] = _operator.index(x)
        n += 1
    return n


def _flat_index(shape, args):
    if len(args) != len(shape):
        raise ValueError("incorrect number of indices for array")
    flat = 0
    for i, n in zip(args, shape):
        i = _operator.index(i)
        if i < -n or i >= n:
            raise IndexError(f"index {i} is out of bounds for size {n}")
        flat = flat * n + (i % n if n else 0)
    return flat


cdef int _fill(ndarray a, object value) except -1:
    cdef nd_scalar s
    cdef int kind = _scalar_of(value, &s)
    if kind == _NOT_SCALAR:
        if isinstance(value, ndarray) and (<ndarray>value).ndim == 0:
            value = (<ndarray>value).item()
            kind = _scalar_of(value, &s)
        else:
            raise TypeError(f"fill() needs a scalar, got {type(value).__name__}")
    return _assign(a, value)


# ---- operator plumbing ---------------------------------------------------------------------------

cdef object _NOT_OPERAND = object()


cdef object _to_operand(object x, nd_operand *op, nd_dtype peer):
    """Fills op for x and returns the object that keeps op.array alive (None for scalars),
    or _NOT_OPERAND for a type the operators do not accept. peer is the dtype of the array
    operand, which decides how a Python int beyond int64 is taken."""
    cdef int kind
    cdef char pk
    if isinstance(x, ndarray):
        op.kind = ND_OPERAND_ARRAY
        op.array = (<ndarray>x)._a
        return x
    kind = _scalar_of(x, &op.scalar)
    if kind == _SCALAR:
        op.kind = ND_OPERAND_SCALAR
        op.array = NULL
        return None
    if kind == _BIG_INT:
        pk = nd_dtype_kind(peer) if <int>peer >= 0 else 0
        op.kind = ND_OPERAND_SCALAR
        op.array = NULL
        if pk == b'f' or pk == b'c':
            # A weak int takes a float array's dtype exactly as a weak float does.
            op.scalar.dtype = ND_PYFLOAT
            op.scalar.v.f = float(x)
            return None
        if peer == ND_UINT64 and 0 <= x <= 18446744073709551615:
            op.scalar.dtype = ND_UINT64
            op.scalar.v.u = <uint64_t>x
            return None
        name = _np_dtype(peer).name if <int>peer >= 0 else "int64"
        raise OverflowError(f"Python integer {x} out of bounds for {name}")
    if isinstance(x, (list, tuple, _np.ndarray)) or hasattr(x, "__cuda_array_interface__") \
            or hasattr(x, "__dlpack__"):
        arr = asarray(x)
        op.kind = ND_OPERAND_ARRAY
        op.array = (<ndarray>arr)._a
        return arr
    return _NOT_OPERAND


cdef object _binop(int op, ndarray self, object other, bint reflected):
    cdef nd_operand ops[2]
    cdef nd_array *res
    cdef nd_status st
    cdef int i = 0 if reflected else 1
    ops[1 - i].kind = ND_OPERAND_ARRAY
    ops[1 - i].array = self._a
    keep = _to_operand(other, &ops[i], nd_array_dtype(self._a))
    if keep is _NOT_OPERAND:
        return NotImplemented
    st = nd_ufunc_call(<nd_ufunc>op, 2, ops, NULL, &res)
    if st != ND_OK:
        _raise(st)
    return _wrap(res)


cdef object _inplace(int op, ndarray self, object other):
    cdef nd_operand ops[2]
    cdef nd_status st
    ops[0].kind = ND_OPERAND_ARRAY
    ops[0].array = self._a
    keep = _to_operand(other, &ops[1], nd_array_dtype(self._a))
    if keep is _NOT_OPERAND:
        return NotImplemented
    st = nd_ufunc_call(<nd_ufunc>op, 2, ops, self._a, NULL)
    if st != ND_OK:
        _raise(st)
    return self


cdef int _pow_fast_op(nd_dtype d, object exponent):
    """NumPy's `a ** e` is not always power(a, e): its fast_scalar_power
    (numpy/_core/src/multiarray/number.c) takes an exact Python int 2 as square(a) for every
    dtype (so bool ** 2 is int8, where power(bool, 2) is int64), and, for float and complex
    arrays, an exact Python int 1 as positive(a) and an exact Python float 0.5 as sqrt(a)
    (float16 ** 0.5 of -0.0 is -0.0, power gives 0.0). Returns that unary op, or -1 for
    power itself. A reflected `e ** a` is always power."""
    cdef char k = nd_dtype_kind(d)
    cdef bint inexact = k == b'f' or k == b'c'
    if type(exponent) is int:
        if exponent == 2:
            return ND_UFUNC_SQUARE
        if exponent == 1 and inexact:
            return ND_UFUNC_POSITIVE
    elif type(exponent) is float and exponent == 0.5 and inexact:
        return ND_UFUNC_SQRT
    return -1


def _pow_operator_dtype(dtype, exponent):
    """The dtype of `a ** exponent` for an array a of dtype (host only; for tests)."""
    cdef nd_dtype d = _nd_dtype(dtype)
    cdef int fast = _pow_fast_op(d, exponent)
    if fast >= 0:
        return _UFUNCS[nd_ufunc_name(<nd_ufunc>fast).decode()].result_type(_np_dtype(d))
    t = type(exponent)
    if t is bool:
        other = _np.dtype(bool)
    elif t in (int, float, complex):
        other = t
    else:
        other = _np.asarray(exponent).dtype
    return _UFUNCS["power"].result_type(_np_dtype(d), other)


cdef object _inplace_unop(int op, ndarray self):
    cdef nd_operand o
    o.kind = ND_OPERAND_ARRAY
    o.array = self._a
    _check(nd_ufunc_call(<nd_ufunc>op, 1, &o, self._a, NULL))
    return self


cdef object _unop(int op, ndarray self):
    cdef nd_operand o
    cdef nd_array *res
    o.kind = ND_OPERAND_ARRAY
    o.array = self._a
    _check(nd_ufunc_call(<nd_ufunc>op, 1, &o, NULL, &res))
    return _wrap(res)


cdef object _matmul_op(ndarray self, object other, bint reflected):
    cdef nd_array *res
    cdef ndarray o
    if isinstance(other, ndarray):
        o = other
    elif isinstance(other, (list, tuple, _np.ndarray, _np.generic, int, float, complex, bool)) \
            or hasattr(other, "__cuda_array_interface__"):
        o = asarray(other)
    else:
        return NotImplemented
    if reflected:
        _check(nd_matmul(o._a, self._a, &res))
    else:
        _check(nd_matmul(self._a, o._a, &res))
    return _wrap(res)


def _c_add_loop(ndarray a not None, ndarray b not None, ndarray out, Py_ssize_t n):
    """Runs a + b n times from C, as `a + b` does from Python (a new result each time, released
    at once) or, with out given, into out (no allocation): the C library's share of the
    operator's cost, timed by bench/python_overhead.py in the same process. Not public."""
    cdef nd_operand ops[2]
    cdef nd_array *res
    cdef nd_array *o = NULL if out is None else out._a
    cdef nd_status st = ND_OK
    cdef Py_ssize_t i
    ops[0].kind = ND_OPERAND_ARRAY
    ops[0].array = a._a
    ops[1].kind = ND_OPERAND_ARRAY
    ops[1].array = b._a
    for i in range(n):
        res = NULL
        st = nd_ufunc_call(ND_UFUNC_ADD, 2, ops, o, NULL if o != NULL else &res)
        if st != ND_OK:
            break
        nd_array_release(res)
    if st != ND_OK:
        _raise(st)
