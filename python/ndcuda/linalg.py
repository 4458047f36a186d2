"""numpy.linalg on the GPU (and the array API's linalg extension).

Solvers run in the library's checked mode by default: singular or not positive definite
input raises ``LinAlgError`` (a subclass of ``numpy.linalg.LinAlgError``) after one small host
wait per call. ``set_checked(False)`` makes the calling thread's solvers never wait; failing
matrices then give inf/NaN in their slot of the result.
"""

from ndcuda import _core
from ndcuda._core import (  # noqa: F401
    LinAlgError, matmul, vecdot, tensordot, outer, matrix_transpose,
)

inv = _core.linalg_inv
solve = _core.linalg_solve
det = _core.linalg_det
slogdet = _core.linalg_slogdet
matrix_power = _core.linalg_matrix_power
cholesky = _core.linalg_cholesky
qr = _core.linalg_qr
svd = _core.linalg_svd
svdvals = _core.linalg_svdvals
eigh = _core.linalg_eigh
eigvalsh = _core.linalg_eigvalsh
norm = _core.linalg_norm
vector_norm = _core.linalg_vector_norm
matrix_norm = _core.linalg_matrix_norm
cond = _core.linalg_cond
matrix_rank = _core.linalg_matrix_rank
pinv = _core.linalg_pinv
lstsq = _core.linalg_lstsq
set_checked = _core.linalg_set_checked
get_checked = _core.linalg_get_checked
set_tf32 = _core.linalg_set_tf32


def multi_dot(arrays, *, out=None):
    """Products of a sequence of matrices, left to right."""
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    r = arrays[0]
    for a in arrays[1:]:
        r = _core.dot(r, a)
    if out is not None:
        out[...] = r
        return out
    return r


def diagonal(x, /, *, offset=0):
    """The array API's linalg.diagonal: the diagonals of the last two axes (a view)."""
    return _core.asarray(x).diagonal(offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """The array API's linalg.trace: sums of the diagonals of the last two axes."""
    return _core.trace(x, offset, -2, -1, dtype)


def cross(x1, x2, /, *, axis=-1):
    """Cross products of 3-vectors along axis (the other axes broadcast), from views of the
    three components."""
    a, b = _core.asarray(x1), _core.asarray(x2)
    if a.ndim == 0 or b.ndim == 0 or a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError("cross: both arrays must have length 3 along axis "
                         f"{axis} (shapes {a.shape} and {b.shape})")
    a = _core.moveaxis(a, axis, -1)
    b = _core.moveaxis(b, axis, -1)
    c = [a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
         a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
         a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]]
    return _core.moveaxis(_core.stack(c, -1), -1, axis)


def eig(a):
    raise NotImplementedError("general (non-Hermitian) eigenproblems are not in the C library")


def eigvals(a):
    raise NotImplementedError("general (non-Hermitian) eigenproblems are not in the C library")


def tensorinv(a, ind=2):
    raise NotImplementedError("tensorinv")


def tensorsolve(a, b, axes=None):
    raise NotImplementedError("tensorsolve")
