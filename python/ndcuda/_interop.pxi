# Host transfers and zero-copy exchange with other GPU libraries.
#
# Ordering across the boundary. ndcuda tracks which stream last wrote each buffer. When
# another library is handed an array for use on its stream S (__dlpack__(stream=S), or the
# "stream" field of __cuda_array_interface__, which is the current stream), S must not run
# ahead of that writer: _order_before makes S wait for it through nd_array_wait (an event
# wait on the device, no host synchronisation), as the C export nd_array_to_dlpack does.
#
# Imports work the other way round: the producer's stream (the CAI "stream" field) gets an
# event recorded and the current ndcuda stream waits on it; DLPack producers are asked to
# order their work before the current ndcuda stream themselves (the stream argument).

cdef extern from "Python.h":
    int PyObject_CheckBuffer(object o)


cdef class _PushedStream:
    """with _as_stream(x): x (a Stream or stream-like) is current inside the block."""
    cdef Stream s

    def __init__(self, stream):
        self.s = stream if isinstance(stream, Stream) else Stream.from_external(stream)

    def __enter__(self):
        self.s.__enter__()
        return self.s

    def __exit__(self, *exc):
        return self.s.__exit__(*exc)


cdef _PushedStream _as_stream(object stream):
    return _PushedStream(stream)


cdef int _order_before(nd_array *a, CUstream_st *cuda_stream) except -1:
    """Makes cuda_stream (1: legacy null stream, 2: per-thread, else a cudaStream_t) wait on
    the device for the last writer of a's buffer (and, for a writeable array, which the
    consumer may write, for its readers since): nd_array_wait, no host synchronisation."""
    cdef nd_stream *s = NULL
    cdef nd_status st
    cdef int access = ND_ACCESS_READ_WRITE if (nd_array_flags(a) & ND_ARRAY_WRITEABLE) \
        else ND_ACCESS_READ
    if nd_array_size(a) == 0:
        return 0
    _check(nd_stream_from_cuda(cuda_stream, &s))
    st = nd_array_wait(a, access, s)
    nd_stream_destroy(s)
    _check(st)
    return 0


cdef int _wait_foreign_stream(object stream_value) except -1:
    """Makes the current ndcuda stream wait for work enqueued so far on a foreign stream
    (an int as CAI and DLPack use: 1 legacy, 2 per-thread, else a cudaStream_t)."""
    cdef nd_stream *foreign = NULL
    cdef nd_event *ev = NULL
    cdef nd_stream *cur
    cdef nd_status st
    cdef size_t ptr = stream_value
    cur = nd_stream_current()
    if cur == NULL:
        _require_device()
    if <size_t>nd_stream_cuda(cur) == ptr:
        return 0
    _check(nd_stream_from_cuda(<CUstream_st *>ptr, &foreign))
    st = nd_event_create(ND_EVENT_DEFAULT, &ev)
    if st == ND_OK:
        st = nd_event_record(ev, foreign)
    if st == ND_OK:
        st = nd_stream_wait_event(NULL, ev)
    nd_event_destroy(ev)
    nd_stream_destroy(foreign)
    _check(st)
    return 0


# ---- host transfers --------------------------------------------------------------------------

cdef object _to_numpy(ndarray a, object out):
    cdef Py_buffer view
    cdef nd_status st
    cdef size_t nbytes = <size_t>nd_array_nbytes(a._a)
    dt = _ND_TO_NP[<int>nd_array_dtype(a._a)]
    shape = _shape_tuple(a._a)
    if out is not None:
        if not isinstance(out, _np.ndarray) or out.shape != shape or out.dtype != dt:
            raise ValueError(f"out must be a NumPy array of shape {shape} and dtype {dt}")
        if not out.flags.c_contiguous or not out.flags.writeable:
            out[...] = _to_numpy(a, None)
            return out
        h = out
    else:
        h = _np.empty(shape, dt)
    PyObject_GetBuffer(h, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)
    try:
        with nogil:
            st = nd_array_to_host(a._a, view.buf, nbytes)
    finally:
        PyBuffer_Release(&view)
    _check(st)
    return h


cdef ndarray _from_numpy(object h):
    """A new device array with the values of a NumPy array (blocks while it is read)."""
    cdef Py_buffer view
    cdef int64_t shape[32]
    cdef nd_array *out
    cdef nd_status st
    cdef int i, n
    cdef nd_dtype d
    dt = h.dtype
    if dt.kind not in "biufc":
        raise TypeError(f"ndcuda does not support dtype {dt!r}")
    if not dt.isnative:
        h = h.astype(dt.newbyteorder("="))
        dt = h.dtype
    d = _nd_dtype(dt)
    if not h.flags.c_contiguous:
        # (np.ascontiguousarray would turn a 0-d array into a 1-d one.)
        h = h.copy(order="C")
    n = h.ndim
    if n > ND_MAXDIMS:
        raise ValueError(f"ndcuda arrays have at most {ND_MAXDIMS} dimensions (got {n})")
    for i in range(n):
        shape[i] = h.shape[i]
    PyObject_GetBuffer(h, &view, PyBUF_SIMPLE)
    try:
        with nogil:
            st = nd_array_from_host(view.buf, <size_t>view.len, n, shape, d, &out)
    finally:
        PyBuffer_Release(&view)
    _check(st)
    return _wrap(out)


def asnumpy(a, stream=None, out=None):
    """A NumPy array with a's values (a copy for ndcuda arrays; np.asarray otherwise)."""
    if isinstance(a, ndarray):
        return (<ndarray>a).get(stream=stream, out=out)
    if out is not None:
        out[...] = a
        return out
    return _np.asarray(a)


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
    """An ndcuda array from an ndcuda array (no copy unless needed), an object with
    __cuda_array_interface__ or __dlpack__ on a CUDA device (zero copy), or host data:
    NumPy arrays, lists, tuples and scalars (copied to the device)."""
    cdef ndarray r
    _check_device(device)
    if isinstance(a, ndarray):
        r = a
        if dtype is not None and _nd_dtype(dtype) != nd_array_dtype(r._a):
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            r = r.astype(dtype)
            copy = False
        if order is not None and order in "CF" and not r._is_contig(order):
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            r = r.copy(order)
            copy = False
        if copy:
            r = r.copy("K")
        return r
    if hasattr(a, "__cuda_array_interface__"):
        r = _from_cai(a)
        return asarray(r, dtype, order, copy=True if copy else None)
    if hasattr(a, "__dlpack__") and not isinstance(a, _np.ndarray) and \
            _dlpack_device_of(a)[0] in (_kDLCUDA, _kDLCUDAManaged):
        r = from_dlpack(a)
        return asarray(r, dtype, order, copy=True if copy else None)
    if copy is False:
        raise ValueError("Unable to avoid copy while creating an array as requested: the "
                         "data is on the host.")
    if dtype is not None:
        _nd_dtype(dtype)   # refuse unsupported dtypes before NumPy converts
    if isinstance(a, (list, tuple)):
        a = _host_from_nested(a, dtype)
    h = _np.asarray(a, dtype=dtype)
    if h.dtype.kind not in "biufc":
        raise TypeError(f"ndcuda cannot hold data of dtype {h.dtype!r} (from "
                        f"{type(a).__name__})")
    r = _from_numpy(h)
    if order == "F" and nd_array_ndim(r._a) > 1:
        r = r.copy("F")
    return r


cdef object _host_from_nested(object seq, object dtype):
    """NumPy array of a list that may hold ndcuda arrays (copied to the host first)."""
    def conv(x):
        if isinstance(x, ndarray):
            return (<ndarray>x).get()
        if isinstance(x, (list, tuple)):
            return [conv(y) for y in x]
        return x
    return _np.asarray(conv(seq), dtype=dtype)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    """NumPy's array(): a copy unless copy=False and no copy is needed."""
    r = asarray(obj, dtype, None if order in ("K", "A", None) else order,
                copy=None if copy is False else (copy if isinstance(obj, ndarray) else None))
    if isinstance(obj, ndarray) and copy and r is obj:
        r = (<ndarray>r).copy("K")
    while r.ndim < ndmin:
        r = r[None]
    return r


def ascontiguousarray(a, dtype=None):
    return asarray(a, dtype, "C")


def asfortranarray(a, dtype=None):
    return asarray(a, dtype, "F")


# ---- __cuda_array_interface__ ----------------------------------------------------------------

cdef void _release_pyobject(void *ptr, void *ctx) noexcept nogil:
    with gil:
        Py_DECREF(<object>ctx)


cdef ndarray _wrap_device_pointer(size_t ptr, int device, tuple shape, object strides,
                                  object dtype, object owner, bint readonly):
    """Wraps foreign device memory; owner is kept alive until ndcuda's last use is done."""
    cdef int64_t shp[32]
    cdef int64_t strd[32]
    cdef int i, n = len(shape)
    cdef nd_array *out
    cdef nd_status st
    cdef nd_dtype d = _nd_dtype(dtype)
    cdef int64_t itemsize = nd_dtype_itemsize(d)
    cdef int64_t size = 1
    if n > ND_MAXDIMS:
        raise ValueError(f"ndcuda arrays have at most {ND_MAXDIMS} dimensions (got {n})")
    for i in range(n):
        shp[i] = shape[i]
        size *= shp[i]
        if strides is not None:
            strd[i] = strides[i]
    if size == 0 or ptr == 0:
        if size != 0:
            raise ValueError("a device pointer of 0 for a non-empty array")
        _check(nd_empty(n, shp, d, &out))
        return _wrap(out)
    Py_INCREF(owner)
    st = nd_array_from_device_ptr(<void *>ptr, device, n, shp,
                                  strd if strides is not None else NULL, d,
                                  _release_pyobject, <void *>owner, &out)
    if st != ND_OK:
        Py_DECREF(owner)
        _raise(st)
    if readonly:
        nd_array_set_writeable(out, 0)
    return _wrap(out, owner)


cdef ndarray _from_cai(object obj):
    cai = obj.__cuda_array_interface__
    version = cai.get("version", 0)
    if cai.get("mask") is not None:
        raise NotImplementedError("__cuda_array_interface__ with a mask is not supported")
    shape = tuple(int(x) for x in cai["shape"])
    dt = _np.dtype(cai["typestr"])
    ptr, readonly = cai["data"]
    strides = cai.get("strides")
    if strides is not None:
        strides = tuple(int(x) for x in strides)
    stream = cai.get("stream") if version >= 3 else None
    if stream is not None:
        if stream == 0:
            raise ValueError("__cuda_array_interface__: stream 0 is not allowed (it is "
                             "ambiguous; producers use 1 for the legacy default stream)")
        _wait_foreign_stream(stream)
    return _wrap_device_pointer(ptr, _pointer_device(ptr), shape, strides, dt, obj,
                                bool(readonly))


cdef int _pointer_device(size_t ptr) except -2:
    # The interface does not say which device holds the memory: ask CUDA, and fall back on
    # the current device (where CuPy and PyTorch allocate unless told otherwise).
    cdef cudaPointerAttributes attr
    if cudaPointerGetAttributes(&attr, <const void *>ptr) == 0 and attr.device >= 0:
        return attr.device
    cudaGetLastError()
    return _current_device()


cdef object _cai_of(ndarray a):
    cdef nd_stream *cur = nd_stream_current()
    cdef int ndim = nd_array_ndim(a._a)
    if cur == NULL:
        _require_device()
    _order_before(a._a, nd_stream_cuda(cur))
    strides = None if nd_array_is_c_contiguous(a._a) else a.strides
    return {
        "shape": a.shape,
        "typestr": a.dtype.str,
        "descr": [("", a.dtype.str)],
        "data": (<size_t>nd_array_data(a._a) if nd_array_size(a._a) else 0,
                 not (nd_array_flags(a._a) & ND_ARRAY_WRITEABLE)),
        "strides": strides,
        "version": 3,
        "stream": <size_t>nd_stream_cuda(cur),
    }


# ---- DLPack ------------------------------------------------------------------------------------

cdef enum:
    _kDLCPU = 1
    _kDLCUDA = 2
    _kDLCUDAHost = 3
    _kDLCUDAManaged = 13
    _kDLInt = 0
    _kDLUInt = 1
    _kDLFloat = 2
    _kDLComplex = 5
    _kDLBool = 6
    _DLPACK_FLAG_READ_ONLY = 1
    _DLPACK_FLAG_IS_COPIED = 2

cdef struct DLDevice:
    int32_t device_type
    int32_t device_id

cdef struct DLDataType:
    uint8_t code
    uint8_t bits
    uint16_t lanes

cdef struct DLTensor:
    void *data
    DLDevice device
    int32_t ndim
    DLDataType dtype
    int64_t *shape
    int64_t *strides
    uint64_t byte_offset

ctypedef struct DLManagedTensor:
    DLTensor dl_tensor
    void *manager_ctx
    void (*deleter)(DLManagedTensor *) noexcept nogil

cdef struct DLPackVersion:
    uint32_t major
    uint32_t minor

ctypedef struct DLManagedTensorVersioned:
    DLPackVersion version
    void *manager_ctx
    void (*deleter)(DLManagedTensorVersioned *) noexcept nogil
    uint64_t flags
    DLTensor dl_tensor

# One allocation per export: both header kinds (one is used), shape, strides and the array
# reference that keeps the buffer alive until the consumer calls the deleter.
ctypedef struct _DLExport:
    DLManagedTensorVersioned v
    DLManagedTensor legacy
    int64_t shape[32]
    int64_t strides[32]
    nd_array *array


cdef void _dl_delete_versioned(DLManagedTensorVersioned *m) noexcept nogil:
    cdef _DLExport *e = <_DLExport *>m.manager_ctx
    nd_array_release(e.array)
    free(e)


cdef void _dl_delete_legacy(DLManagedTensor *m) noexcept nogil:
    cdef _DLExport *e = <_DLExport *>m.manager_ctx
    nd_array_release(e.array)
    free(e)


cdef void _capsule_destructor_versioned(object cap) noexcept:
    cdef DLManagedTensorVersioned *m
    if PyCapsule_IsValid(cap, b"dltensor_versioned"):
        m = <DLManagedTensorVersioned *>PyCapsule_GetPointer(cap, b"dltensor_versioned")
        if m != NULL and m.deleter != NULL:
            m.deleter(m)


cdef void _capsule_destructor_legacy(object cap) noexcept:
    cdef DLManagedTensor *m
    if PyCapsule_IsValid(cap, b"dltensor"):
        m = <DLManagedTensor *>PyCapsule_GetPointer(cap, b"dltensor")
        if m != NULL and m.deleter != NULL:
            m.deleter(m)


cdef int _dl_dtype(nd_dtype d, DLDataType *t) except -1:
    cdef char kind = nd_dtype_kind(d)
    t.lanes = 1
    t.bits = <uint8_t>(8 * nd_dtype_itemsize(d))
    if kind == b'b':
        t.code = _kDLBool
    elif kind == b'i':
        t.code = _kDLInt
    elif kind == b'u':
        t.code = _kDLUInt
    elif kind == b'f':
        t.code = _kDLFloat
    else:
        t.code = _kDLComplex
    return 0


cdef nd_dtype _nd_from_dl(DLDataType t) except <nd_dtype>-2:
    if t.lanes != 1:
        raise BufferError(f"DLPack: vector dtypes (lanes={t.lanes}) are not supported")
    name = None
    if t.code == _kDLBool and t.bits == 8:
        name = "bool"
    elif t.code == _kDLInt and t.bits in (8, 16, 32, 64):
        name = f"int{t.bits}"
    elif t.code == _kDLUInt and t.bits in (8, 16, 32, 64):
        name = f"uint{t.bits}"
    elif t.code == _kDLFloat and t.bits in (16, 32, 64):
        name = f"float{t.bits}"
    elif t.code == _kDLComplex and t.bits in (64, 128):
        name = f"complex{t.bits}"
    if name is None:
        raise BufferError(f"DLPack: dtype code {t.code} with {t.bits} bits is not supported "
                          f"by ndcuda")
    return _nd_dtype(name)


cdef object _stream_token(object stream):
    """A DLPack/CAI stream integer from a stream-like (None: the legacy default stream)."""
    if stream is None:
        return 1
    return _stream_ptr_of(stream)


cdef object _dlpack_export(ndarray self, object stream, object max_version, object dl_device,
                           object copy):
    cdef ndarray src = self
    cdef _DLExport *e
    cdef DLTensor *t
    cdef int i, ndim
    cdef int64_t itemsize
    cdef bint versioned = max_version is not None and tuple(max_version)[0] >= 1
    cdef bint copied = False
    cdef int dev = nd_array_device(self._a)
    if dl_device is not None:
        dtype_, did = dl_device
        if dtype_ == _kDLCPU:
            if copy is False:
                raise BufferError("a copy to the host is needed for dl_device=CPU")
            h = _to_numpy(self, None)
            try:
                return h.__dlpack__(max_version=max_version, copy=False) if versioned \
                    else h.__dlpack__()
            except TypeError:
                return h.__dlpack__()
        if dtype_ != _kDLCUDA or did != dev:
            raise BufferError(f"ndcuda cannot export to device {dl_device!r}")
    if stream is not None and stream == 0:
        raise ValueError("__dlpack__: stream 0 is ambiguous for CUDA (use 1 for the legacy "
                         "default stream, 2 for the per-thread one)")
    if copy:
        src = self.copy("K")
        copied = True
    if stream is None or stream != -1:
        _order_before(src._a, <CUstream_st *><size_t>_stream_token(stream))
    ndim = nd_array_ndim(src._a)
    e = <_DLExport *>malloc(sizeof(_DLExport))
    if e == NULL:
        raise MemoryError()
    memset(e, 0, sizeof(_DLExport))
    itemsize = nd_array_itemsize(src._a)
    for i in range(ndim):
        e.shape[i] = nd_array_shape(src._a)[i]
        e.strides[i] = nd_array_strides(src._a)[i] // itemsize
    e.array = nd_array_retain(src._a)
    t = &e.v.dl_tensor if versioned else &e.legacy.dl_tensor
    t.data = nd_array_data(src._a)
    t.device.device_type = _kDLCUDA
    t.device.device_id = dev
    t.ndim = ndim
    _dl_dtype(nd_array_dtype(src._a), &t.dtype)
    t.shape = e.shape
    t.strides = e.strides
    t.byte_offset = 0
    if versioned:
        e.v.version.major = 1
        e.v.version.minor = 0
        e.v.manager_ctx = e
        e.v.deleter = _dl_delete_versioned
        if not (nd_array_flags(src._a) & ND_ARRAY_WRITEABLE):
            e.v.flags |= _DLPACK_FLAG_READ_ONLY
        if copied:
            e.v.flags |= _DLPACK_FLAG_IS_COPIED
        return PyCapsule_New(&e.v, b"dltensor_versioned", _capsule_destructor_versioned)
    e.legacy.manager_ctx = e
    e.legacy.deleter = _dl_delete_legacy
    return PyCapsule_New(&e.legacy, b"dltensor", _capsule_destructor_legacy)


cdef void _release_dl_versioned(void *ptr, void *ctx) noexcept nogil:
    cdef DLManagedTensorVersioned *m = <DLManagedTensorVersioned *>ctx
    with gil:
        if m.deleter != NULL:
            m.deleter(m)


cdef void _release_dl_legacy(void *ptr, void *ctx) noexcept nogil:
    cdef DLManagedTensor *m = <DLManagedTensor *>ctx
    with gil:
        if m.deleter != NULL:
            m.deleter(m)


cdef ndarray _dlpack_import_capsule(object cap):
    """Takes ownership of a DLPack capsule (renaming it "used_...") and wraps its memory."""
    cdef DLManagedTensorVersioned *mv = NULL
    cdef DLManagedTensor *ml = NULL
    cdef DLTensor *t
    cdef int64_t shp[32]
    cdef int64_t strd[32]
    cdef int i
    cdef int64_t size = 1
    cdef nd_dtype d
    cdef nd_array *out
    cdef nd_status st
    cdef bint readonly = False
    if not PyCapsule_CheckExact(cap):
        raise TypeError(f"expected a DLPack capsule, got {type(cap).__name__}")
    if PyCapsule_IsValid(cap, b"dltensor_versioned"):
        mv = <DLManagedTensorVersioned *>PyCapsule_GetPointer(cap, b"dltensor_versioned")
        if mv.version.major > 1:
            raise BufferError(f"DLPack version {mv.version.major}.{mv.version.minor} is not "
                              f"supported (ndcuda reads 1.x)")
        t = &mv.dl_tensor
        readonly = (mv.flags & _DLPACK_FLAG_READ_ONLY) != 0
    elif PyCapsule_IsValid(cap, b"dltensor"):
        ml = <DLManagedTensor *>PyCapsule_GetPointer(cap, b"dltensor")
        t = &ml.dl_tensor
    else:
        raise ValueError("the DLPack capsule was already consumed (or is not a DLPack "
                         "capsule)")
    if t.device.device_type not in (_kDLCUDA, _kDLCUDAManaged):
        raise BufferError(f"DLPack: device type {t.device.device_type} is not a CUDA device")
    if t.ndim > ND_MAXDIMS or t.ndim < 0:
        raise BufferError(f"DLPack: {t.ndim} dimensions (ndcuda allows {ND_MAXDIMS})")
    d = _nd_from_dl(t.dtype)
    for i in range(t.ndim):
        shp[i] = t.shape[i]
        size *= shp[i]
        if t.strides != NULL:
            strd[i] = t.strides[i] * <int64_t>nd_dtype_itemsize(d)
    # From here on the capsule's memory is ours: rename it so its destructor leaves it alone.
    PyCapsule_SetName(cap, b"used_dltensor_versioned" if mv != NULL else b"used_dltensor")
    if size == 0 or t.data == NULL:
        try:
            _check(nd_empty(t.ndim, shp, d, &out))
        finally:
            if mv != NULL:
                if mv.deleter != NULL:
                    mv.deleter(mv)
            elif ml.deleter != NULL:
                ml.deleter(ml)
        return _wrap(out)
    st = nd_array_from_device_ptr(<void *>(<char *>t.data + t.byte_offset), t.device.device_id,
                                  t.ndim, shp, strd if t.strides != NULL else NULL, d,
                                  _release_dl_versioned if mv != NULL else _release_dl_legacy,
                                  <void *>mv if mv != NULL else <void *>ml, &out)
    if st != ND_OK:
        if mv != NULL:
            if mv.deleter != NULL:
                mv.deleter(mv)
        elif ml.deleter != NULL:
            ml.deleter(ml)
        _raise(st)
    if readonly:
        nd_array_set_writeable(out, 0)
    return _wrap(out)


cdef tuple _dlpack_device_of(object x):
    try:
        dev = x.__dlpack_device__()
        return (int(dev[0]), int(dev[1]))
    except AttributeError:
        return (-1, -1)


def from_dlpack(x, *, device=None, copy=None):
    """An ndcuda array sharing memory with a DLPack producer on a CUDA device (CuPy,
    PyTorch, ...), or a device copy of a host producer (NumPy). A bare DLPack capsule (the
    legacy protocol) is accepted too. The producer is asked to order its pending work
    before the current ndcuda stream."""
    _check_device(device)
    if isinstance(x, ndarray):
        return (<ndarray>x).copy("K") if copy else x
    if PyCapsule_CheckExact(x):
        r = _dlpack_import_capsule(x)
        return r.copy("K") if copy else r
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"{type(x).__name__} does not support the DLPack protocol "
                        f"(no __dlpack__)")
    dev_type, dev_id = _dlpack_device_of(x)
    if dev_type in (_kDLCPU, _kDLCUDAHost):
        if copy is False:
            raise BufferError("from_dlpack: the data is on the host; a copy to the device "
                              "is needed (copy=False)")
        return _from_numpy(_np.from_dlpack(x))
    if dev_type not in (_kDLCUDA, _kDLCUDAManaged):
        raise BufferError(f"from_dlpack: device type {dev_type} is not supported")
    cur = nd_stream_current()
    if cur == NULL:
        _require_device()
    token = <size_t>nd_stream_cuda(cur)
    kwargs = {"stream": token, "max_version": (1, 0)}
    if copy is not None:
        kwargs["copy"] = copy
    try:
        cap = x.__dlpack__(**kwargs)
    except TypeError:
        # A producer that predates the versioned protocol (no max_version or copy).
        if copy:
            return from_dlpack(x, copy=None).copy("K")
        cap = x.__dlpack__(stream=token)
    return _dlpack_import_capsule(cap)
