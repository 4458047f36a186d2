# cython: language_level=3, embedsignature=True, embedsignature.format=clinic
# cython: c_api_binop_methods=False, binding=False
# (embedsignature.format=clinic writes each signature where inspect.signature reads it, so that
# help(), IDEs and array-api-tests' signature checks see the real parameters.)
"""The compiled core of the ndcuda Python package.

Everything here calls the C API (include/ndcuda.h) directly. The module is split into
include files by concern; this file only orders them:

- _errors.pxi     nd_status -> Python exceptions, with the library's message
- _dtypes.pxi     dtype and scalar conversion (NumPy dtype objects, NEP 50 weak scalars)
- _stream.pxi     Stream, Event, Device, synchronisation
- _array.pxi      the ndarray type: attributes, views, copies, indexing, operators
- _interop.pxi    host transfers, __cuda_array_interface__, DLPack export and import
- _functions.pxi  creation, manipulation, ufuncs (generated from the C table), reductions,
                  sorting, statistics
- _linalg.pxi     products and numpy.linalg
- _random.pxi     Generator and the default generator
- _jit.pxi        RawModule, RawKernel, ElementwiseKernel, ReductionKernel, the kernel cache

Blocking C calls (host transfers, synchronisation, checked linear algebra, functions whose
output size depends on the data) run with the GIL released.
"""

cimport cython
from cpython.buffer cimport (PyObject_GetBuffer, PyBuffer_Release, PyBUF_WRITABLE,
                             PyBUF_C_CONTIGUOUS, PyBUF_SIMPLE)
from cpython.pycapsule cimport (PyCapsule_New, PyCapsule_GetPointer, PyCapsule_IsValid,
                                PyCapsule_SetName, PyCapsule_CheckExact)
from cpython.ref cimport Py_INCREF, Py_DECREF, PyObject
from libc.stdint cimport int64_t, uint64_t, int32_t, uint32_t, uint8_t, uint16_t, INT64_MAX, INT64_MIN
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from ndcuda._nd cimport *

import builtins as _b
import operator as _operator
import numpy as _np

include "_errors.pxi"
include "_dtypes.pxi"
include "_stream.pxi"
include "_array.pxi"
include "_interop.pxi"
include "_functions.pxi"
include "_linalg.pxi"
include "_random.pxi"
include "_jit.pxi"


__version__ = nd_version_string().decode()


def library_version():
    """The version of the C library linked into this module ("major.minor.patch")."""
    return nd_version_string().decode()
