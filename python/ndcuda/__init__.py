"""ndcuda: NumPy on the GPU, with the library's cross-stream ordering.

Arrays are ``ndcuda.ndarray``; functions carry NumPy's names (``ndcuda.add``,
``ndcuda.sum``, ``ndcuda.linalg.inv``, ``ndcuda.random.default_rng``). Every operation runs on
the calling thread's current stream (``with ndcuda.Stream(): ...``), and data written on one
stream is ordered before its use on another by the library, across DLPack and the CUDA array
interface too.

The package imports on a machine without a GPU; the first call that needs one raises
``ndcuda.NoDeviceError``.
"""

import numpy as _numpy

from ndcuda import _core
from ndcuda._core import (  # noqa: F401
    # arrays, conversion, interop
    ndarray, asarray, array, asnumpy, ascontiguousarray, asfortranarray, from_dlpack,
    Flags,
    # errors
    Error, CUDARuntimeError, NoDeviceError, OutOfMemoryError, AxisError,
    # devices, streams, events, memory
    Device, Stream, Event, get_current_stream, get_elapsed_time, elapsed_time, synchronize,
    is_available, get_device_count, memory_stats, set_memory_limit, release_cached_memory,
    # dtypes
    result_type, promote_types, can_cast,
    # ufunc type and the NumPy functions that are not ufuncs
    ufunc, where, clip, angle, round, around, nan_to_num, isclose, allclose, array_equal,
    array_equiv,
    # creation
    empty, zeros, ones, full, empty_like, zeros_like, ones_like, full_like, arange, linspace,
    logspace, eye, identity, tri, tril, triu, diag, diagflat, copy, meshgrid,
    # manipulation
    reshape, ravel, transpose, permute_dims, matrix_transpose, swapaxes, moveaxis, rollaxis,
    expand_dims, squeeze, broadcast_to, broadcast_shapes, broadcast_arrays, flip, fliplr,
    flipud, atleast_1d, atleast_2d, atleast_3d, concatenate, concat, stack, vstack, hstack,
    dstack, column_stack, tile, repeat, split, array_split, roll, diagonal, real, imag, ndim,
    shape, size, shares_memory, may_share_memory, unstack, astype,
    # reductions, scans, statistics
    sum, prod, nansum, mean, nanmean, var, std, amin, amax, min, max, nanmin, nanmax, ptp,
    median, all, any, argmin, argmax, cumsum, cumprod, cumulative_sum, cumulative_prod,
    count_nonzero, quantile, percentile, average, diff, cov, corrcoef,
    # sorting, searching, sets, counting
    sort, argsort, partition, argpartition, unique, unique_values, unique_counts,
    unique_inverse, unique_all, searchsorted, nonzero, argwhere, flatnonzero, isin, in1d,
    union1d, intersect1d, setdiff1d, setxor1d, extract, compress, take, take_along_axis, put,
    bincount, histogram,
    # products
    matmul, dot, vdot, inner, outer, kron, vecdot, tensordot, trace, einsum,
    # user kernels compiled at run time
    RawModule, RawKernel, In, Out, InOut, ElementwiseKernel, ReductionKernel,
    get_last_compile_log, get_kernel_cache_stats, clear_kernel_cache, prune_kernel_cache,
)

# Every elementwise function of the C library, generated from its table, under NumPy's
# name, plus NumPy's and the array API's aliases.
globals().update(_core._UFUNCS)
for _n in ("real", "imag", "angle", "clip", "where"):
    globals()[_n] = getattr(_core, _n)
for _n in ("abs", "conj", "mod", "true_divide", "pow", "acos", "asin", "atan", "atan2",
           "acosh", "asinh", "atanh", "bitwise_not", "bitwise_invert", "bitwise_left_shift",
           "bitwise_right_shift", "degrees", "radians", "fix"):
    globals()[_n] = getattr(_core, _n)
del _n

from ndcuda import linalg, random  # noqa: E402,F401

# NumPy's scalar types and constants, so that ndcuda.float32 and ndcuda.pi work as in NumPy.
from numpy import (  # noqa: E402,F401
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32,
    float64, complex64, complex128, dtype, pi, e, inf, nan, newaxis, euler_gamma,
)
bool = _numpy.bool_
int_ = _numpy.int64
intp = _numpy.intp
float_ = _numpy.float64
complex_ = _numpy.complex128

__version__ = _core.__version__
__array_api_version__ = "2025.12"


def get_array_module(*args):
    """ndcuda if any argument is an ndcuda array, else numpy (as cupy.get_array_module)."""
    import ndcuda
    for a in args:
        if isinstance(a, ndarray):
            return ndcuda
    return _numpy


class _NamespaceInfo:
    """The array API's inspection object (``ndcuda.__array_namespace_info__()``)."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 32}

    def default_device(self):
        return Device()

    def devices(self):
        return tuple(Device(i) for i in range(get_device_count()))

    def default_dtypes(self, *, device=None):
        return {"real floating": _numpy.dtype("float64"),
                "complex floating": _numpy.dtype("complex128"),
                "integral": _numpy.dtype("int64"), "indexing": _numpy.dtype("int64")}

    _KINDS = {
        "bool": ["bool"],
        "signed integer": ["int8", "int16", "int32", "int64"],
        "unsigned integer": ["uint8", "uint16", "uint32", "uint64"],
        "real floating": ["float32", "float64"],
        "complex floating": ["complex64", "complex128"],
    }
    _KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
    _KINDS["numeric"] = (_KINDS["integral"] + _KINDS["real floating"]
                         + _KINDS["complex floating"])

    def dtypes(self, *, device=None, kind=None):
        if kind is None:
            names = self._KINDS["bool"] + self._KINDS["numeric"]
        elif isinstance(kind, str):
            names = self._KINDS[kind]
        else:
            names = [n for k in kind for n in self._KINDS[k]]
        return {n: _numpy.dtype(n) for n in dict.fromkeys(names)}


def __array_namespace_info__():
    return _NamespaceInfo()


# ---- dtype inspection (NumPy's names, array API return types) ---------------------------------

class _FInfo:
    """finfo with Python float attributes (the array API's finfo_object); NumPy's extra
    attributes come from numpy.finfo."""

    def __init__(self, np_info):
        self._np = np_info
        self.bits = int(np_info.bits)
        self.eps = float(np_info.eps)
        self.max = float(np_info.max)
        self.min = float(np_info.min)
        self.smallest_normal = float(np_info.smallest_normal)
        self.dtype = np_info.dtype

    def __getattr__(self, name):
        return getattr(self._np, name)

    def __repr__(self):
        return repr(self._np)


class _IInfo:
    def __init__(self, np_info):
        self._np = np_info
        self.bits = int(np_info.bits)
        self.max = int(np_info.max)
        self.min = int(np_info.min)
        self.dtype = np_info.dtype

    def __getattr__(self, name):
        return getattr(self._np, name)

    def __repr__(self):
        return repr(self._np)


def finfo(type):
    """numpy.finfo for a float or complex dtype or array."""
    return _FInfo(_numpy.finfo(type.dtype if isinstance(type, ndarray) else type))


def iinfo(type):
    """numpy.iinfo for an integer dtype or array."""
    return _IInfo(_numpy.iinfo(type.dtype if isinstance(type, ndarray) else type))


_ISDTYPE_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc",
}


def isdtype(dtype, kind):
    """The array API's isdtype: whether dtype is kind (a dtype, a kind name, or a tuple)."""
    dt = _numpy.dtype(dtype)
    if isinstance(kind, tuple):
        return _builtins.any(isdtype(dt, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _ISDTYPE_KINDS:
            raise ValueError(f"unknown dtype kind {kind!r}")
        return dt.kind in _ISDTYPE_KINDS[kind]
    return dt == _numpy.dtype(kind)


import builtins as _builtins  # noqa: E402
