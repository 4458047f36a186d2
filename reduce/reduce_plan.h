/* Pure host logic of reductions and scans: axis normalisation, result shapes, NumPy's result
 * and accumulation dtypes, the empty-reduction decision, output checks, and the launch plan
 * (which dimensions are kept and reduced, collapsed, and which kernel geometry serves them).
 *
 * Nothing here touches the device, so tests/reduce/test_reduce_host.c runs all of it on a
 * machine without a GPU. Every function that can fail takes the public function name `fn`
 * for its messages. */
#ifndef ND_REDUCE_PLAN_H
#define ND_REDUCE_PLAN_H

#include <stdint.h>

#include "reduce/reduce.h"
#include "src/array.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nd__rop {
  ND__R_SUM = 0,
  ND__R_PROD,
  ND__R_NANSUM,
  ND__R_MEAN,
  ND__R_NANMEAN,
  ND__R_VAR,
  ND__R_STD,
  ND__R_MIN,
  ND__R_MAX,
  ND__R_NANMIN,
  ND__R_NANMAX,
  ND__R_PTP,
  ND__R_ARGMIN,
  ND__R_ARGMAX,
  ND__R_ALL,
  ND__R_ANY,
  ND__R_COUNT_NONZERO,
  ND__R_MEDIAN,
  ND__R_QUANTILE,
  ND__R_CUMSUM,
  ND__R_CUMPROD,
  ND__R_NUM_OPS
} nd__rop;

/* Which axes a reduction removes and what is left. */
typedef struct nd__raxes {
  int ndim;          /* input ndim */
  uint64_t mask;     /* bit i set: axis i is reduced */
  int naxes;         /* number of reduced axes */
  int keepdims;
  int out_ndim;      /* ndim of the result (ndim with keepdims, else ndim - naxes) */
  int64_t out_shape[ND_MAXDIMS];
  int64_t count;     /* elements combined into each output: product of reduced lengths */
  int64_t outputs;   /* number of outputs: product of kept lengths */
} nd__raxes;

/* Normalises the axes of a reduction over an array of (ndim, shape). axes NULL with
 * naxes 0 means every axis (NumPy's axis=None); a non-NULL axes with naxes 0 means no axis
 * (axis=()). Errors: ND_ERR_AXIS ("axis 3 is out of bounds for array of dimension 2",
 * "repeated axis"), ND_ERR_INVALID_ARGUMENT (naxes < 0, ndim out of range),
 * ND_ERR_NULL_POINTER (naxes > 0 with axes NULL). */
ND_API nd_status nd__reduce_axes(const char *fn, int ndim, const int64_t *shape, int naxes,
                                 const int64_t *axes, int keepdims, nd__raxes *out);

/* The same for one axis or ND_AXIS_NONE (argmin/argmax). */
ND_API nd_status nd__reduce_axis1(const char *fn, int ndim, const int64_t *shape, int64_t axis,
                                  int keepdims, nd__raxes *out);

/* NumPy's result dtype of a reduction or scan of `in` with the requested dtype (or
 * ND_DTYPE_DEFAULT), and the accumulator kind (enum nd_kred_acc) the kernels use:
 * - sum, prod, nansum, cumsum, cumprod: bool and signed integers narrower than 64 bits give
 *   int64, unsigned ones uint64; integers accumulate in 64-bit wrapping arithmetic (U64),
 *   float16 and float32 in float32, the rest in their own type;
 * - mean, nanmean: bool and integers give float64, float16 gives float16 (accumulated in
 *   float32), others their own type;
 * - var, std: integers give float64, complex gives the real type of its precision; the
 *   accumulator is the type of the mean (complex for complex input);
 * - min, max, nanmin, nanmax, ptp: the input dtype; argmin/argmax: int64; the comparison
 *   type is I64 (signed), U64 (bool, unsigned), F32 (float16/32), F64, C128 (complex);
 * - all, any: bool; count_nonzero: int64;
 * - median, quantile: integers give float64, floats their own type, computed in F32 or F64.
 * A requested dtype is honoured where NumPy takes one (sum, prod, nansum, mean, nanmean,
 * var, std, cumsum, cumprod); var/std/nanmean need an inexact one.
 * Errors: ND_ERR_DTYPE (invalid input dtype or requested dtype, a requested dtype where the
 * operation takes none, complex median/quantile). */
ND_API nd_status nd__reduce_dtypes(const char *fn, nd__rop op, nd_dtype in, nd_dtype requested,
                                   nd_dtype *result, int *acc);

/* The dtype each input element must pass through before entering the accumulator, so that
 * the result equals NumPy's "cast every element to the result dtype, then reduce": res for
 * a bool or float16 result, and for an integer result from a float or complex input; -1
 * when converting straight to the accumulator gives the same values (integer wrap-around
 * commutes with sums and products). */
ND_API int nd__reduce_via(nd_dtype in, nd_dtype res);

/* The contiguous dtype a scan is computed in for a scan result dtype: int64 for bool and
 * signed integers, uint64 for unsigned, float32 for float16, the type itself otherwise. */
ND_API nd_dtype nd__scan_storage(nd_dtype res);

/* 1 if the operation has an identity (a result for an empty reduction: sum 0, prod 1,
 * all True, any False, count 0, mean/var/median NaN), 0 if NumPy raises. */
ND_API int nd__reduce_has_identity(nd__rop op);

/* The empty-reduction decision: ND_OK when count > 0 or the op has an identity, else
 * ND_ERR_VALUE with NumPy's text ("zero-size array to reduction operation maximum which has
 * no identity", "attempt to get argmax of an empty sequence") or, for quantile,
 * ND_ERR_INDEX. As NumPy, an empty reduced axis is an error even when the result is empty. */
ND_API nd_status nd__reduce_check_empty(const char *fn, nd__rop op, int64_t count);

/* Casting rule for an `out` array: same_kind, except unsafe for the ops NumPy finishes with
 * an unsafe division (mean, nanmean, var, std, median, quantile) and safe for argmin/argmax. */
ND_API nd_casting nd__reduce_out_casting(nd__rop op);

/* Checks a caller's out array against a result of (ndim, shape, dtype): exact shape
 * (ND_ERR_SHAPE), writeable (ND_ERR_READ_ONLY), castable under `casting` (ND_ERR_CASTING).
 * Host only: reads the header. */
ND_API nd_status nd__check_out(const char *fn, const nd_array *out, int ndim, const int64_t *shape,
                               nd_dtype dtype, nd_casting casting);

/* Blocks per multiprocessor the planner aims for (256 threads each). The kernels are built
 * with __launch_bounds__(256, 4), so four are always resident: a split reduction of at most
 * 4 x SMs blocks runs in one wave, with no tail wave of idle multiprocessors. Four blocks of
 * 256 threads with four 16-byte loads in flight each keep 64 KB per SM in flight, well
 * above what covers the memory latency. */
#define ND__RED_BLOCKS_PER_SM 4

/* Fills the geometry of p (nk, nr, shapes, strides, M, K, mode, lanes, rcontig, splits,
 * chunk) for reducing an input of (ndim, shape, strides) over `mask`, writing outputs whose
 * byte strides for the kept axes, in axis order, are kept_out_strides. `ordered` keeps the
 * reduced axes in C order (argmin/argmax index semantics); otherwise they are sorted by
 * decreasing |stride| and negative reduced strides are flipped. Returns the byte offset to
 * add to the input address for the flips. Zero-size cases: K == 0 gives nr = 0 (every output
 * gets the identity); the caller skips M == 0. */
ND_API int64_t nd__reduce_plan(int ndim, const int64_t *shape, const int64_t *strides,
                               uint64_t mask, const int64_t *kept_out_strides, int ordered,
                               int64_t itemsize, int sms, nd_kreduce *p);

/* NumPy's histogram bin edges (np.linspace(first, last, bins + 1) as histogram calls it):
 * computed in the data's float dtype when the range was found from the data (auto_range),
 * else in float64, then rounded to the edge dtype (the data's float dtype, float64 for
 * integer data), which is written to *edge_dtype. Equal ends widen by 0.5 each way first.
 * edges has room for bins + 1 values. Errors: ND_ERR_VALUE for bins < 1. */
ND_API nd_status nd__histogram_edges(const char *fn, nd_dtype data, int auto_range, double first,
                                     double last, int64_t bins, nd_dtype *edge_dtype,
                                     double *edges);

#ifdef __cplusplus
}
#endif

#endif /* ND_REDUCE_PLAN_H */
