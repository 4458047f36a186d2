/* Reductions, statistics and scans (NumPy's sum, mean, argmax, median, cumsum, ...).
 *
 * Conventions shared by the reductions below:
 * - a is borrowed. axes/naxes select the axes to reduce: axes NULL with naxes 0 means every
 *   axis (NumPy's axis=None); a non-NULL axes with naxes 0 means no axis (axis=()).
 *   Negative axes count from the end. Errors: ND_ERR_AXIS for an axis out of range ("axis 2
 *   is out of bounds for array of dimension 2") or repeated.
 * - keepdims != 0 keeps the reduced axes with length 1.
 * - dtype (where taken) is NumPy's dtype= argument, or ND_DTYPE_DEFAULT. Without it, sums and
 *   products of bool and integers give int64 (uint64 for unsigned), accumulated in 64-bit
 *   wrapping arithmetic; float16 accumulates in float32 and gives float16; means of bool and
 *   integers give float64. With it, every element is converted to that dtype first and the
 *   result has that dtype, as in NumPy.
 * - out: NULL, or a caller's array of exactly the result shape (ND_ERR_SHAPE), writeable
 *   (ND_ERR_READ_ONLY), with a dtype the result casts to under 'same_kind' ('unsafe' for mean,
 *   nanmean, var, std, median, quantile, percentile; 'safe' for argmin/argmax) (ND_ERR_CASTING).
 *   out may overlap a: the result is computed aside first then. On failure out is untouched.
 * - result: receives a new reference: a new array (C order), or out itself when out is given.
 *   May be NULL when out is given. Results that NumPy returns as scalars are 0-d arrays; read
 *   them with nd_array_item.
 * - Empty reductions: sum 0, prod 1, all True, any False, count 0, mean/var/std/nanmean/median
 *   NaN. min, max, nanmin, nanmax, ptp, argmin and argmax of an empty axis fail with
 *   ND_ERR_VALUE and NumPy's text; quantile/percentile with ND_ERR_INDEX.
 * - NaN: sum, prod, mean, min, max, ptp, median and quantile propagate NaN; argmin/argmax
 *   return the first NaN; the nan* functions skip NaN (an all-NaN nanmin/nanmax/nanmean is
 *   NaN). Complex min/max/argmin/argmax order lexicographically, as NumPy.
 * - Other errors: ND_ERR_NULL_POINTER (a, or both out and result NULL), ND_ERR_DTYPE,
 *   ND_ERR_DEVICE_MISMATCH, ND_ERR_OUT_OF_MEMORY, ND_ERR_CUDA.
 * - Stream: work is enqueued on the current stream; the functions return without waiting
 *   unless their comment says they block. */
#ifndef NDCUDA_REDUCE_H
#define NDCUDA_REDUCE_H

#include <stdint.h>

#include "ndcuda/array.h"
#include "ndcuda/dtype.h"
#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sums and means --------------------------------------------------------------------- */

/* NumPy's sum, prod, nansum (NaN counted as zero) and mean. */
ND_API nd_status nd_sum(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_dtype dtype, nd_array *out, nd_array **result);
ND_API nd_status nd_prod(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                         nd_dtype dtype, nd_array *out, nd_array **result);
ND_API nd_status nd_nansum(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                           nd_dtype dtype, nd_array *out, nd_array **result);
ND_API nd_status nd_mean(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                         nd_dtype dtype, nd_array *out, nd_array **result);
/* Mean of the non-NaN elements; NaN where all are NaN. A requested dtype must be inexact for
 * inexact input (ND_ERR_DTYPE). */
ND_API nd_status nd_nanmean(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                            nd_dtype dtype, nd_array *out, nd_array **result);

/* NumPy's var and std: mean of |x - mean(x)|^2 with divisor max(N - ddof, 0) (0 gives inf or
 * NaN, as NumPy). Integer input gives float64, complex gives the real type of its precision;
 * a requested dtype must be a float dtype (ND_ERR_DTYPE). Two passes: the mean, then the
 * squared deviations. */
ND_API nd_status nd_var(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_dtype dtype, double ddof, nd_array *out, nd_array **result);
ND_API nd_status nd_std(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_dtype dtype, double ddof, nd_array *out, nd_array **result);

/* NumPy's average: sum(a * weights) / sum(weights) in result_type(a, weights) (with float64
 * for integer or bool a). weights is NULL (the mean), an array of a's shape, or a 1-d array
 * of a.shape[axis] when exactly one axis is given. sum_of_weights, if not NULL, receives a new
 * array of the result shape with the weight sums (NumPy's returned=True). Errors:
 * ND_ERR_SHAPE ("Axis must be specified when shapes of a and weights differ.", "1D weights
 * expected when shapes of a and weights differ.", "Length of weights not compatible with
 * specified axis."), ND_ERR_VALUE ("Weights sum to zero, can't be normalized"; NumPy's
 * ZeroDivisionError). Blocks when weights are given: the zero check reads one count back. */
ND_API nd_status nd_average(const nd_array *a, int naxes, const int64_t *axes,
                            const nd_array *weights, int keepdims, nd_array **result,
                            nd_array **sum_of_weights);

/* ---- order statistics -------------------------------------------------------------------- */

/* NumPy's amin/amax (min/max): the input dtype. nanmin/nanmax skip NaN. ptp is max - min in
 * the input dtype (integers wrap, as NumPy; bool is refused with ND_ERR_DTYPE as NumPy's
 * boolean subtract is). */
ND_API nd_status nd_amin(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                         nd_array *out, nd_array **result);
ND_API nd_status nd_amax(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                         nd_array *out, nd_array **result);
ND_API nd_status nd_min(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_array *out, nd_array **result);
ND_API nd_status nd_max(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_array *out, nd_array **result);
ND_API nd_status nd_nanmin(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                           nd_array *out, nd_array **result);
ND_API nd_status nd_nanmax(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                           nd_array *out, nd_array **result);
ND_API nd_status nd_ptp(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_array *out, nd_array **result);

/* NumPy's argmin/argmax along one axis, or over the flattened array (C order) with
 * axis = ND_AXIS_NONE: int64 indices of the first minimum/maximum, or of the first NaN. */
ND_API nd_status nd_argmin(const nd_array *a, int64_t axis, int keepdims, nd_array *out,
                           nd_array **result);
ND_API nd_status nd_argmax(const nd_array *a, int64_t axis, int keepdims, nd_array *out,
                           nd_array **result);

/* NumPy's median: the middle element, or the mean of the two middle ones, of each sorted
 * slice; integers give float64. Sorts a copy of the reduced elements (see nd_sort), so it
 * needs that copy's memory twice over. Complex input is refused (ND_ERR_DTYPE). */
ND_API nd_status nd_median(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                           nd_array *out, nd_array **result);

/* NumPy's quantile/percentile with method='linear' for one q (quantile: 0 <= q <= 1,
 * percentile: 0 <= q <= 100, else ND_ERR_VALUE "Quantiles must be in the range [0, 1]").
 * Float input keeps its dtype (computed in its precision, float16 in float32), integers give
 * float64. */
ND_API nd_status nd_quantile(const nd_array *a, double q, int naxes, const int64_t *axes,
                             int keepdims, nd_array *out, nd_array **result);
ND_API nd_status nd_percentile(const nd_array *a, double q, int naxes, const int64_t *axes,
                               int keepdims, nd_array *out, nd_array **result);
/* The same for nq values q[0..nq) (host memory, borrowed): the result has a leading axis of
 * length nq, as NumPy's quantile with a 1-d q, and is float64 for every input dtype (an array
 * of q is float64 and takes part in NumPy's promotion). Bool input is refused (ND_ERR_DTYPE),
 * here and in nd_quantile/nd_percentile. Blocks while q is copied to the device. */
ND_API nd_status nd_quantiles(const nd_array *a, int64_t nq, const double *q, int naxes,
                              const int64_t *axes, int keepdims, nd_array *out, nd_array **result);
ND_API nd_status nd_percentiles(const nd_array *a, int64_t nq, const double *q, int naxes,
                                const int64_t *axes, int keepdims, nd_array *out,
                                nd_array **result);

/* ---- truth and counting ------------------------------------------------------------------ */

/* NumPy's all and any (bool results; NaN counts as true). */
ND_API nd_status nd_all(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_array *out, nd_array **result);
ND_API nd_status nd_any(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_array *out, nd_array **result);
/* NumPy's count_nonzero: int64 counts. */
ND_API nd_status nd_count_nonzero(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                                  nd_array **result);

/* ---- scans -------------------------------------------------------------------------------- */

/* NumPy's cumsum/cumprod along axis, or over the flattened array (C order) with
 * axis = ND_AXIS_NONE. dtype and out follow the reduction conventions above (the result has
 * a's shape, or (size,) when flattened). float16 scans accumulate in float32 and round each
 * output once, so they can be more accurate than NumPy's element-by-element float16 loop.
 * Errors: ND_ERR_AXIS, ND_ERR_SHAPE (out), ND_ERR_CASTING, ND_ERR_DTYPE. */
ND_API nd_status nd_cumsum(const nd_array *a, int64_t axis, nd_dtype dtype, nd_array *out,
                           nd_array **result);
ND_API nd_status nd_cumprod(const nd_array *a, int64_t axis, nd_dtype dtype, nd_array *out,
                            nd_array **result);

/* NumPy 2's cumulative_sum/cumulative_prod: as cumsum/cumprod, but axis = ND_AXIS_NONE is
 * only allowed for 1-d input (ND_ERR_AXIS otherwise, and ND_ERR_VALUE for 0-d), and
 * include_initial != 0 prepends the identity (0 or 1) along axis, making it one longer. */
ND_API nd_status nd_cumulative_sum(const nd_array *a, int64_t axis, nd_dtype dtype,
                                   int include_initial, nd_array *out, nd_array **result);
ND_API nd_status nd_cumulative_prod(const nd_array *a, int64_t axis, nd_dtype dtype,
                                    int include_initial, nd_array *out, nd_array **result);

/* NumPy's diff: the n-th discrete difference along axis (a[1:] - a[:-1], n times), in a's
 * dtype (integers wrap; bool uses !=, as NumPy). n = 0 returns a new reference to a itself.
 * Errors: ND_ERR_VALUE (n < 0: "order must be non-negative but got -1"; 0-d input:
 * "diff requires input that is at least one dimensional"), ND_ERR_AXIS. */
ND_API nd_status nd_diff(const nd_array *a, int64_t n, int64_t axis, nd_array **result);

/* ---- reading a result ---------------------------------------------------------------------- */

/* The single element of a (any ndim, size 1) as a scalar of a's dtype (float16 is widened to
 * double in out->v.f). Blocks until the value is on the host, waiting only for the work that
 * produces a. Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE ("can only convert an array of size 1
 * to a Python scalar"), ND_ERR_CUDA. */
ND_API nd_status nd_array_item(const nd_array *a, nd_scalar *out);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_REDUCE_H */
