/* Integer-array and boolean indexing: NumPy's take, take_along_axis, put, compress, a[mask],
 * a[mask] = values, and the gather/scatter primitive behind a[i, j] and a[i, j] = v.
 *
 * Conventions for every function below:
 * - Arrays are borrowed. An `nd_array **result` receives a new reference; where an `out`
 *   array may be given instead (take, take_along_axis, compress), *result receives a new
 *   reference to out itself and may be NULL. On failure *result is left untouched and no
 *   output or destination array has been written (see "raise mode" below).
 * - Indices may be negative (counting from the end of their axis, as in NumPy). Index arrays
 *   of every integer dtype are accepted (uint64 values above INT64_MAX convert as NumPy's cast
 *   to intp does: they wrap to negative values).
 * - Out-of-range indices are ND_ERR_INDEX with NumPy's message, naming the function, the
 *   offending value, the axis and its size: "nd_take: index 7 is out of bounds for axis 0
 *   with size 6".
 * - Stream behaviour: work is enqueued on the calling thread's current stream and ordered
 *   after the arrays' producers on other streams automatically (see stream.h). Two things
 *   need a value on the host and block for it, each waiting only for the current stream up to
 *   that point (where the index or mask array's producer is ordered), never for the whole
 *   device:
 *   - raise mode (ND_INDEX_RAISE, and every function without a mode argument except where a
 *     comment says the indices are known to be valid): one check kernel over the index arrays
 *     finds the first offending position of each, and one small device-to-host copy reads
 *     the answer. Only then is the gather or scatter enqueued, so a failing call has written
 *     nothing. ND_INDEX_WRAP and ND_INDEX_CLIP do not block.
 *   - boolean masks whose selection has a data-dependent size (nd_mask_select, nd_compress,
 *     and nd_mask_assign when the values are not broadcast over the selection) read the count
 *     of true elements (nd_nonzero's blocking).
 * - Repeated indices in a scatter (nd_put, nd_index_scatter, nd_mask_assign never repeats):
 *   each such element receives one of the values aimed at it, unspecified which. NumPy, which
 *   assigns sequentially, leaves the last one; its documentation does not promise that for
 *   advanced assignment, and CuPy behaves as ndcuda does.
 * - Errors common to all: ND_ERR_NULL_POINTER (a required array or result is NULL),
 *   ND_ERR_DEVICE_MISMATCH, ND_ERR_OUT_OF_MEMORY, ND_ERR_CUDA. */
#ifndef NDCUDA_INDEXING_H
#define NDCUDA_INDEXING_H

#include <stdint.h>

#include "ndcuda/array.h"
#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NumPy's mode= for take and put. */
typedef enum nd_index_mode {
  ND_INDEX_RAISE = 0, /* out-of-range indices are an error (checked first; blocks, see above) */
  ND_INDEX_WRAP = 1,  /* indices wrap around (Python's modulo) */
  ND_INDEX_CLIP = 2   /* indices clamp to [0, n - 1]; negative indices become 0, as NumPy */
} nd_index_mode;

/* NumPy's take(a, indices, axis, out, mode): elements of a along axis at the given indices.
 * The result has shape a.shape[:axis] + indices.shape + a.shape[axis+1:], dtype of a;
 * axis ND_AXIS_NONE indexes the flattened a (C order) and the result has indices' shape. A
 * 0-d a is taken as shape (1,). indices: any integer or bool dtype (bool counts as 0/1, as
 * NumPy casts it). out, when given, must have exactly the result's shape and a dtype that
 * casts safely to a's dtype (NumPy's rule for take's out, checked in that direction); the
 * result is converted into it. out may overlap a or indices. Errors: ND_ERR_INDEX (index out
 * of range in raise mode; "cannot do a non-empty take from an empty axes." when the axis is
 * empty and indices are not, in every mode, as NumPy), ND_ERR_CASTING (indices of a float or
 * complex dtype: "Cannot cast array data from dtype('float64') to dtype('int64') according
 * to the rule 'safe'"; an out dtype that does not cast safely), ND_ERR_SHAPE (out's shape:
 * "output array does not match result of ndarray.take"), ND_ERR_AXIS, ND_ERR_READ_ONLY (out),
 * ND_ERR_INVALID_ARGUMENT (mode). Blocks in raise mode only. */
ND_API nd_status nd_take(const nd_array *a, const nd_array *indices, int64_t axis, nd_index_mode mode,
                         nd_array *out, nd_array **result);

/* NumPy's take_along_axis(a, indices, axis): indices (an integer dtype, the same ndim as a)
 * broadcast against a everywhere but along axis; the result has the broadcast shape with
 * indices' length along axis. axis ND_AXIS_NONE: indices must be 1-d and index the flattened
 * a. Always raise mode (blocks for the check). out as for nd_take. Errors: ND_ERR_VALUE
 * ("`indices` and `arr` must have the same number of dimensions"; "when axis=None, `indices`
 * must have a single dimension."), ND_ERR_INDEX (out of range; "`indices` must be an integer
 * array"; shapes that do not broadcast: "shape mismatch: indexing arrays could not be
 * broadcast together with shapes (2, 1) (3, 1)"), ND_ERR_AXIS, and out's errors as nd_take. */
ND_API nd_status nd_take_along_axis(const nd_array *a, const nd_array *indices, int64_t axis,
                                    nd_array *out, nd_array **result);

/* NumPy's put(a, indices, values, mode): a.flat[indices[k]] = values[k mod values.size] for
 * every k of the flattened indices (C order over any layout of a), values converted to a's
 * dtype as NumPy does (unsafe cast) and repeated when shorter than indices. indices: any real
 * or bool dtype (float indices truncate, as NumPy's cast to intp). Nothing happens when
 * values or indices are empty. Errors: ND_ERR_READ_ONLY (a not writeable), ND_ERR_INDEX (out
 * of range in raise mode: "index 5 is out of bounds for axis 0 with size 3"; a empty and
 * indices and values not: "cannot replace elements of an empty array"), ND_ERR_CASTING
 * (complex indices), ND_ERR_INVALID_ARGUMENT (mode). Blocks in raise mode only. */
ND_API nd_status nd_put(nd_array *a, const nd_array *indices, const nd_array *values, nd_index_mode mode);

/* NumPy's compress(condition, a, axis, out): the slices of a along axis (ND_AXIS_NONE: the
 * flattened a) where the 1-d condition is nonzero. condition may be shorter than the axis
 * (the rest is not selected); longer only if its extra entries are zero (NumPy's take then
 * raises on the first true one beyond: ND_ERR_INDEX). Blocks to read the count of nonzero
 * entries. out as for nd_take. Errors: ND_ERR_VALUE ("condition must be a 1-d array"),
 * ND_ERR_AXIS, ND_ERR_INDEX, out's errors as nd_take. */
ND_API nd_status nd_compress(const nd_array *condition, const nd_array *a, int64_t axis, nd_array *out,
                             nd_array **result);

/* a[mask] for a bool mask over a's leading mask.ndim dimensions (NumPy's boolean indexing):
 * a new C-ordered array of shape (count,) + a.shape[mask.ndim:], the selected elements in C
 * order of the mask. A 0-d mask selects a whole a as one row (shape (1,) + a.shape) or none
 * ((0,) + a.shape). Blocks to read the count. Errors: ND_ERR_DTYPE (mask not bool; integer
 * index arrays belong to nd_index_gather), ND_ERR_INDEX ("too many indices for array: array
 * is 2-dimensional, but 3 were indexed"; "boolean index did not match indexed array along
 * axis 0; size of axis is 3 but size of corresponding boolean axis is 4"). */
ND_API nd_status nd_mask_select(const nd_array *a, const nd_array *mask, nd_array **result);

/* a[mask] = values with NumPy's __setitem__ semantics (not putmask's cyclic repetition): the
 * selection is what nd_mask_select returns, values are converted to a's dtype (unsafe cast,
 * as assignment does) and broadcast to the selection's shape (count,) + a.shape[mask.ndim:]
 * after leading length-1 dimensions are dropped. When the mask covers every dimension of a
 * (mask.ndim == a.ndim >= 1), values must be 0-d or 1-d, as NumPy's fast path requires.
 * When values do not involve the count dimension (they broadcast over the selection: a scalar,
 * or a row over the trailing dimensions) the assignment is a masked elementwise select and
 * does not block; otherwise it blocks to read the count. Errors: ND_ERR_READ_ONLY, ND_ERR_DTYPE
 * (mask not bool), ND_ERR_INDEX (mask shape, as nd_mask_select), ND_ERR_SHAPE ("NumPy
 * boolean array indexing assignment cannot assign 2 input values to the 3 output values where
 * the mask is true"; "NumPy boolean array indexing assignment requires a 0 or 1-dimensional
 * input, input has 2 dimensions"; "shape mismatch: value array of shape (2,) could not be
 * broadcast to indexing result of shape (1, 3)"). */
ND_API nd_status nd_mask_assign(nd_array *a, const nd_array *mask, const nd_array *values);

/* ---- the advanced-indexing primitive ------------------------------------------------------- *
 *
 * NumPy's a[..., i0, ..., i1, ...] with integer index arrays i0, i1, ... (nidx >= 1) applied
 * to distinct axes axes[0] < axes[1] < ... of a (negative axes count from the end and are
 * normalised first; after normalisation they must be strictly increasing). The index arrays
 * broadcast together to a shape B; the result's shape is a's non-indexed axes in order with B
 * inserted: where the indexed axes were when they are consecutive and front == 0, else at the
 * front (NumPy's rule for index arrays separated by a slice, Ellipsis or None).
 *
 * How a Python layer maps a full NumPy index onto these calls:
 * 1. Apply the basic part (slices, Ellipsis, None, integers) as views, remembering where each
 *    advanced index (array, boolean array, or integer beside an array) sits in the result.
 *    Integers next to an array count as advanced indices in NumPy's rule: pass them as 0-d
 *    index arrays, or apply them as views and pass front = 1 when NumPy's rule (the advanced
 *    indices of the original index are not all adjacent) puts B first.
 * 2. Boolean arrays become their nd_nonzero coordinate arrays, one per dimension they cover.
 * 3. Call nd_index_gather for a get, nd_index_scatter for a set, with the axes of the view.
 * Boolean-only indices have the direct forms nd_mask_select / nd_mask_assign. */

/* The result shape of the gather described above, computed on the host (no device, no
 * arrays): a of (ndim, shape), nidx index arrays of shapes (idx_ndims[k], idx_shapes[k]) on
 * axes[k]. Writes *out_ndim and out_shape (room for ND_MAXDIMS). Errors: ND_ERR_NULL_POINTER,
 * ND_ERR_INVALID_ARGUMENT (nidx < 1 or > ndim; a result of more than ND_MAXDIMS dimensions),
 * ND_ERR_AXIS (out of range, repeated or not increasing: "axes must be strictly increasing
 * (got 2 after 2)"), ND_ERR_INDEX (index shapes that do not broadcast: "shape mismatch:
 * indexing arrays could not be broadcast together with shapes (2,) (3,)"). */
ND_API nd_status nd_index_result_shape(int ndim, const int64_t *shape, int nidx, const int *idx_ndims,
                                       const int64_t *const *idx_shapes, const int64_t *axes, int front,
                                       int *out_ndim, int64_t *out_shape);

/* The gather: a new C-ordered array of a's dtype with the shape nd_index_result_shape gives,
 * element [..., b, ...] = a[..., i0[b], ..., i1[b], ...]. indices: integer dtypes only
 * (boolean masks go through nd_nonzero first). mode as nd_take (NumPy's indexing is
 * ND_INDEX_RAISE, which blocks for the check). Errors: those of nd_index_result_shape,
 * ND_ERR_INDEX (out of range: "index 5 is out of bounds for axis 1 with size 3"; "arrays used
 * as indices must be of integer type"), ND_ERR_INVALID_ARGUMENT (mode). */
ND_API nd_status nd_index_gather(const nd_array *a, int nidx, const nd_array *const *indices,
                                 const int64_t *axes, int front, nd_index_mode mode, nd_array **result);

/* The matching scatter, a[..., i0, ..., i1, ...] = values: values (any dtype, converted to
 * a's dtype as assignment does) broadcast to the gather's result shape after leading length-1
 * dimensions are dropped; each selected element of a receives its value. values may overlap
 * a (it is read completely first). Repeated index combinations: see the conventions above.
 * Errors: those of nd_index_gather, ND_ERR_READ_ONLY, ND_ERR_SHAPE ("shape mismatch: value
 * array of shape (2,) could not be broadcast to indexing result of shape (1, 3)"). */
ND_API nd_status nd_index_scatter(nd_array *a, int nidx, const nd_array *const *indices,
                                  const int64_t *axes, int front, nd_index_mode mode,
                                  const nd_array *values);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_INDEXING_H */
