# Streams, events and devices.
#
# A Stream is the calling thread's current stream inside a `with` block (nd_stream_push /
# nd_stream_pop), so every ndcuda call in the block enqueues there; the library orders data
# between streams itself. Stream.null and Stream.ptds name the legacy null stream and the
# per-thread default stream; Stream.from_external wraps a stream someone else created (an
# int cudaStream_t, a CuPy stream's .ptr, a PyTorch stream's .cuda_stream, or any object
# with __cuda_stream__).

cdef enum:
    _STREAM_OWNED = 0
    _STREAM_NULL = 1
    _STREAM_PER_THREAD = 2
    _STREAM_EXTERNAL = 3
    _STREAM_BORROWED = 4   # a handle owned by the library (nd_stream_current's answer)


def get_device_count():
    """Number of CUDA devices (0 when there is no GPU or no driver; never raises)."""
    cdef int n = 0
    if cudaGetDeviceCount(&n) != 0:
        cudaGetLastError()
        return 0
    return n


def is_available():
    """Whether a CUDA device can be used."""
    return get_device_count() > 0


cdef int _current_device() except -2:
    cdef int d = 0
    if cudaGetDevice(&d) != 0:
        cudaGetLastError()
        if get_device_count() == 0:
            raise _exception_for(ND_ERR_NO_DEVICE, "no CUDA device is available")
        raise CUDARuntimeError("cudaGetDevice failed")
    return d


cdef int _require_device() except -1:
    if get_device_count() == 0:
        raise _exception_for(ND_ERR_NO_DEVICE, "no CUDA device is available")
    return 0


cdef class Device:
    """A CUDA device, as array.device reports it."""
    cdef readonly int id

    def __init__(self, int id=-1):
        self.id = _current_device() if id < 0 else id

    def __repr__(self):
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other):
        return isinstance(other, Device) and (<Device>other).id == self.id

    def __hash__(self):
        return hash(("ndcuda.Device", self.id))

    def synchronize(self):
        """Blocks until every stream of this device is idle (cudaDeviceSynchronize there)."""
        cdef nd_status st
        cdef int d = self.id
        with nogil:
            st = nd_device_synchronize(d)
        _check(st)

    def use(self):
        """Makes this device the calling thread's current device (as cupy.cuda.Device.use):
        arrays and streams made afterwards live there, and operations run there."""
        _check(nd_device_set(self.id))

    def __enter__(self):
        """``with ndcuda.Device(i):`` makes device i current for the block and restores the
        previous device after it (per thread, nested like streams)."""
        _check(nd_device_push(self.id))
        return self

    def __exit__(self, *exc):
        _check(nd_device_pop())
        return False


def synchronize():
    """Blocks until all work on the current device has finished."""
    Device().synchronize()


class _StreamConstant:
    """Stream.null and Stream.ptds: created on first use, so that importing the package
    needs no device."""
    def __init__(self, kind):
        self.kind = kind
        self.value = None

    def __get__(self, obj, cls):
        if self.value is None:
            self.value = _stream_of_kind(self.kind)
        return self.value


def _stream_of_kind(int kind):
    cdef Stream s = Stream.__new__(Stream)
    s._kind = kind
    return s


cdef class Stream:
    """A CUDA stream for ndcuda work.

    Stream(non_blocking=False, priority=0) creates one on the current device. As a context
    manager it is the calling thread's current stream inside the block (nestable). The
    wrapper destroys a stream it created when it is garbage collected; the library keeps
    the ordering that buffers still need."""
    cdef nd_stream *_s
    cdef int _kind
    cdef object _owner     # keeps an external stream's Python object alive
    cdef int _depth        # pushes made through this object and not popped yet

    null = _StreamConstant(_STREAM_NULL)        # the legacy null stream
    ptds = _StreamConstant(_STREAM_PER_THREAD)  # the per-thread default stream

    def __cinit__(self):
        self._s = NULL
        self._kind = _STREAM_OWNED
        self._owner = None
        self._depth = 0

    def __init__(self, null=False, non_blocking=False, int priority=0, ptds=False):
        if null:
            self._kind = _STREAM_NULL
            return
        if ptds:
            self._kind = _STREAM_PER_THREAD
            return
        cdef unsigned flags = ND_STREAM_NON_BLOCKING if non_blocking else ND_STREAM_DEFAULT
        _check(nd_stream_create(flags, priority, &self._s))

    @staticmethod
    def from_external(stream):
        """Wraps a stream created elsewhere, without taking ownership: an int cudaStream_t,
        an object with __cuda_stream__ (CUDA stream protocol), a CuPy stream (.ptr) or a
        PyTorch stream (.cuda_stream). The caller keeps the CUDA stream alive while the
        wrapper is in use."""
        cdef Stream s = Stream.__new__(Stream)
        ptr = _stream_ptr_of(stream)
        _check(nd_stream_from_cuda(<CUstream_st *><size_t>ptr, &s._s))
        s._kind = _STREAM_EXTERNAL
        s._owner = stream
        return s

    def __dealloc__(self):
        if self._s != NULL and self._kind in (_STREAM_OWNED, _STREAM_EXTERNAL):
            nd_stream_destroy(self._s)
            self._s = NULL

    cdef nd_stream *_handle(self) except NULL:
        cdef nd_stream *h
        if self._kind == _STREAM_NULL:
            h = nd_stream_null()
        elif self._kind == _STREAM_PER_THREAD:
            h = nd_stream_per_thread()
        else:
            h = self._s
        if h == NULL:
            _require_device()
            raise CUDARuntimeError("the stream is not available")
        return h

    def __enter__(self):
        _check(nd_stream_push(self._handle()))
        self._depth += 1
        return self

    def __exit__(self, *exc):
        if self._depth > 0:
            self._depth -= 1
            _check(nd_stream_pop())
        return False

    def use(self):
        """Makes this the current stream of the calling thread until the matching
        `Stream.done_using()` (a push without a with block)."""
        self.__enter__()
        return self

    def done_using(self):
        self.__exit__(None, None, None)

    def synchronize(self):
        """Blocks until all work enqueued on the stream has finished."""
        cdef nd_stream *h = self._handle()
        cdef nd_status st
        with nogil:
            st = nd_stream_synchronize(h)
        _check(st)

    def query(self):
        """True when all work on the stream has finished."""
        cdef int done = 0
        _check(nd_stream_query(self._handle(), &done))
        return bool(done)

    @property
    def done(self):
        return self.query()

    def record(self, Event event=None):
        """Records an event (a new one when None) on this stream and returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def wait_event(self, Event event not None):
        """Makes this stream wait for the event's last record (no host wait)."""
        _check(nd_stream_wait_event(self._handle(), event._e))

    @property
    def ptr(self):
        """The cudaStream_t as an int (1: the legacy null stream, 2: per-thread)."""
        return <size_t>nd_stream_cuda(self._handle())

    @property
    def cuda_stream(self):
        return self.ptr

    def __cuda_stream__(self):
        """The CUDA stream protocol: (version, cudaStream_t)."""
        return (0, self.ptr)

    @property
    def device_id(self):
        return nd_stream_device(self._handle())

    def __eq__(self, other):
        if not isinstance(other, Stream):
            return NotImplemented
        try:
            return self.ptr == other.ptr
        except Error:
            return self is other

    def __hash__(self):
        return hash((Stream, self._kind, <size_t>self._s))

    def __repr__(self):
        names = {_STREAM_NULL: "null", _STREAM_PER_THREAD: "per-thread",
                 _STREAM_EXTERNAL: "external", _STREAM_BORROWED: "current"}
        if self._kind == _STREAM_OWNED:
            return f"<ndcuda.Stream {<size_t>nd_stream_cuda(self._s):#x}>"
        return f"<ndcuda.Stream {names.get(self._kind, '')}>"




cdef object _stream_ptr_of(object stream):
    """cudaStream_t of the stream-like objects accepted by Stream.from_external and by the
    stream arguments of __dlpack__ / from_dlpack."""
    if isinstance(stream, Stream):
        return stream.ptr
    if isinstance(stream, int):
        return int(stream)
    if hasattr(stream, "__cuda_stream__"):
        version, ptr = stream.__cuda_stream__()
        return int(ptr)
    if hasattr(stream, "cuda_stream"):   # torch.cuda.Stream
        return int(stream.cuda_stream)
    if hasattr(stream, "ptr"):           # cupy.cuda.Stream
        return int(stream.ptr)
    raise TypeError(f"cannot use {type(stream).__name__} as a CUDA stream: pass an int "
                    f"cudaStream_t or an object with __cuda_stream__, .cuda_stream or .ptr")


def get_current_stream():
    """The calling thread's current stream (a wrapper that does not own it)."""
    cdef nd_stream *h = nd_stream_current()
    if h == NULL:
        _require_device()
        raise CUDARuntimeError("no current stream")
    if h == nd_stream_null():
        return Stream.null
    cdef Stream s = Stream.__new__(Stream)
    s._s = h
    s._kind = _STREAM_BORROWED
    return s


cdef class Event:
    """A CUDA event. Event(block=False, disable_timing=False): timing events can be passed
    to get_elapsed_time; blocking events yield the CPU in synchronize()."""
    cdef nd_event *_e

    def __cinit__(self):
        self._e = NULL

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("interprocess events are not supported")
        cdef unsigned flags = ND_EVENT_DEFAULT
        if not disable_timing:
            flags |= ND_EVENT_TIMING
        if block:
            flags |= ND_EVENT_BLOCKING_SYNC
        _check(nd_event_create(flags, &self._e))

    def __dealloc__(self):
        if self._e != NULL:
            nd_event_destroy(self._e)

    def record(self, stream=None):
        """Records the event on stream (None: the current stream)."""
        cdef nd_stream *h = NULL
        if stream is not None:
            if not isinstance(stream, Stream):
                stream = Stream.from_external(stream)
            h = (<Stream>stream)._handle()
        _check(nd_event_record(self._e, h))

    def synchronize(self):
        cdef nd_status st
        with nogil:
            st = nd_event_synchronize(self._e)
        _check(st)

    def query(self):
        cdef int done = 0
        _check(nd_event_query(self._e, &done))
        return bool(done)

    @property
    def done(self):
        return self.query()

    @property
    def ptr(self):
        return <size_t>nd_event_cuda(self._e)


def get_elapsed_time(Event start_event not None, Event end_event not None):
    """Milliseconds between two completed records of timing events."""
    cdef float ms = 0
    _check(nd_event_elapsed_ms(start_event._e, end_event._e, &ms))
    return ms


elapsed_time = get_elapsed_time


# ---- memory pool ------------------------------------------------------------------------------

def memory_stats(int device=-1):
    """The pool statistics of a device (-1: current) as a dict."""
    cdef nd_memory_stats st
    _check(nd_memory_stats_get(device, &st))
    return {"bytes_in_use": st.bytes_in_use, "peak_bytes_in_use": st.peak_bytes_in_use,
            "bytes_reserved": st.bytes_reserved, "bytes_limit": st.bytes_limit,
            "num_allocs": st.num_allocs}


def set_memory_limit(int64_t nbytes, int device=-1):
    """Caps the bytes ndcuda keeps in use on a device (0 removes the cap)."""
    _check(nd_memory_set_limit(device, nbytes))


def release_cached_memory(int device=-1):
    """Returns the pool's cached, unused memory to the driver (blocks until idle)."""
    cdef nd_status st
    with nogil:
        st = nd_memory_release_cached(device)
    _check(st)
