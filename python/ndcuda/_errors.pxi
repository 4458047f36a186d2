# Status codes become Python exceptions.
#
# Every exception the library raises derives from ndcuda.Error and from the built-in (or
# NumPy) type that NumPy raises for the same mistake, so `except ValueError` and
# `except ndcuda.Error` both work. The message is the library's thread-local message, which
# names the C function, the argument and the values.

try:
    from numpy.exceptions import AxisError as _NpAxisError
except ImportError:  # NumPy < 1.25
    _NpAxisError = _np.AxisError


class Error(Exception):
    """Base class of every error reported by the ndcuda library.

    ``status`` holds the C status name ("ERR_SHAPE", ...)."""
    status = None


class CUDARuntimeError(Error, RuntimeError):
    """A CUDA runtime, cuBLAS, cuSOLVER, cuRAND or NVRTC failure, or invalid stream use."""


class NoDeviceError(CUDARuntimeError):
    """No CUDA device is available (raised by the first call that needs one)."""


class OutOfMemoryError(Error, MemoryError):
    """Device or pinned host memory is exhausted (or ND_GPU_MEMORY_LIMIT is reached)."""


class LinAlgError(Error, _np.linalg.LinAlgError):
    """Singular or not positive definite input to a checked linear-algebra routine.

    A subclass of numpy.linalg.LinAlgError, so NumPy code that catches that catches this."""


class AxisError(Error, _NpAxisError):
    def __init__(self, msg):
        _NpAxisError.__init__(self, msg)


class _ValueError(Error, ValueError):
    pass


class _TypeError(Error, TypeError):
    pass


class _IndexError(Error, IndexError):
    pass


class _OverflowError(Error, OverflowError):
    pass


class _ZeroDivisionError(Error, ZeroDivisionError):
    pass


class _NotImplementedError(Error, NotImplementedError):
    pass


class _OSError(Error, OSError):
    pass


class _InternalError(Error, RuntimeError):
    pass


for _c, _name in ((_ValueError, "ValueError"), (_TypeError, "TypeError"),
                  (_IndexError, "IndexError"), (_OverflowError, "OverflowError"),
                  (_ZeroDivisionError, "ZeroDivisionError"),
                  (_NotImplementedError, "NotImplementedError"), (_OSError, "OSError"),
                  (_InternalError, "RuntimeError")):
    _c.__name__ = _name
    _c.__qualname__ = _name
del _c, _name

# The Python type for each status. Statuses added to the C library later and not listed
# here become the base Error class with their own message.
_STATUS_TYPES = {
    ND_ERR_INVALID_ARGUMENT: _ValueError,
    ND_ERR_NULL_POINTER: _ValueError,
    ND_ERR_SHAPE: _ValueError,
    ND_ERR_DTYPE: _TypeError,
    ND_ERR_AXIS: AxisError,
    ND_ERR_INDEX: _IndexError,
    ND_ERR_OVERFLOW: _ValueError,
    ND_ERR_CASTING: _TypeError,
    ND_ERR_OUT_OF_MEMORY: OutOfMemoryError,
    ND_ERR_NO_DEVICE: NoDeviceError,
    ND_ERR_DEVICE_MISMATCH: _ValueError,
    ND_ERR_READ_ONLY: _ValueError,
    ND_ERR_CUDA: CUDARuntimeError,
    ND_ERR_CUBLAS: CUDARuntimeError,
    ND_ERR_CUSOLVER: CUDARuntimeError,
    ND_ERR_CURAND: CUDARuntimeError,
    ND_ERR_NVRTC: CUDARuntimeError,
    ND_ERR_SINGULAR: LinAlgError,
    ND_ERR_NOT_POSITIVE_DEFINITE: LinAlgError,
    ND_ERR_NOT_IMPLEMENTED: _NotImplementedError,
    ND_ERR_VALUE: _ValueError,
    ND_ERR_STREAM: CUDARuntimeError,
    ND_ERR_IO: _OSError,
    ND_ERR_INTERNAL: _InternalError,
    ND_ERR_COMPILE: CUDARuntimeError,
    ND_ERR_UNSUPPORTED: _NotImplementedError,
    ND_ERR_NCCL: CUDARuntimeError,
}


def _exception_for(int status, str message):
    """The exception object for a status and message (also used by the host tests)."""
    cls = _STATUS_TYPES.get(status, Error)
    if status == ND_ERR_VALUE:
        # NumPy raises OverflowError for a Python integer that does not fit the dtype and
        # ZeroDivisionError for weights that sum to zero; the C library reports both as
        # ND_ERR_VALUE with NumPy's text.
        if "Python integer" in message and "out of bounds" in message:
            cls = _OverflowError
        elif "Weights sum to zero" in message:
            cls = _ZeroDivisionError
    exc = cls(message)
    exc.status = nd_status_name(<nd_status>status).decode()
    return exc


cdef int _raise(nd_status status) except -1:
    cdef const char *msg = nd_last_error()
    text = msg.decode("utf-8", "replace") if msg != NULL else ""
    if not text:
        text = nd_status_string(status).decode()
    nd_clear_error()
    raise _exception_for(<int>status, text)


cdef inline int _check(nd_status status) except -1:
    if status != ND_OK:
        _raise(status)
    return 0


def status_name(int status):
    """The C name of a status code ("ERR_SHAPE"), "UNKNOWN" for other values."""
    return nd_status_name(<nd_status>status).decode()


def _status_codes():
    """{name: value} of every status the library knows (for tests and diagnostics)."""
    out = {}
    cdef int i
    for i in range(0, 256):
        name = nd_status_name(<nd_status>i).decode()
        if name != "UNKNOWN":
            out[name] = i
    return out
