/* Sorting, searching and counting (NumPy's sort, argsort, unique, searchsorted, nonzero,
 * isin, bincount, histogram, ...).
 *
 * Conventions:
 * - Inputs are borrowed; every nd_array ** output receives a new reference (a new C-ordered
 *   array) and is left untouched on failure.
 * - Sorts are stable and follow NumPy's order for every real dtype: NaN after +inf (all NaNs
 *   tied, in input order), -0.0 and +0.0 tied. Complex arrays (sort, argsort, partition,
 *   argpartition, unique, searchsorted, isin) sort in NumPy's complex order: by real part,
 *   then imaginary part, with values that have NaN parts last, as
 *   [R + Rj, R + nanj, nan + Rj, nan + nanj] (R + nanj by R, nan + Rj by R, nan + nanj all
 *   tied); -0.0 and +0.0 parts tie. Their sorts are stable merge sorts, slower than the radix
 *   sorts of real dtypes. median and quantile refuse complex input with ND_ERR_DTYPE.
 * - A sorted result keeps every value's bits, except that a NaN may come out as the positive
 *   quiet NaN (one-row sorts of float values canonicalise NaN so that the radix sort puts it
 *   last).
 * - axis: negative counts from the end; ND_AXIS_NONE sorts the flattened array (C order).
 *   Errors: ND_ERR_AXIS ("axis 2 is out of bounds for array of dimension 2").
 * - Stream: work is enqueued on the current stream. Functions whose output size depends on
 *   the data (unique, nonzero, argwhere, where_nonzero, bincount, histogram without a range)
 *   block to read that size back; their comments say so. */
#ifndef NDCUDA_SORT_H
#define NDCUDA_SORT_H

#include <stdint.h>

#include "ndcuda/array.h"
#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NumPy's sort: a sorted copy along axis. */
ND_API nd_status nd_sort(const nd_array *a, int64_t axis, nd_array **result);

/* NumPy's argsort (kind='stable'): int64 indices along axis that sort a. As NumPy, a 0-d a
 * is taken as its 1-element ravel: axis -1, 0 and ND_AXIS_NONE give the 1-d [0], and
 * nd_argpartition does the same; nd_sort and nd_partition, as NumPy's sort, refuse every axis
 * but ND_AXIS_NONE for 0-d input (ND_ERR_AXIS). */
ND_API nd_status nd_argsort(const nd_array *a, int64_t axis, nd_array **result);

/* NumPy's partition/argpartition with one kth: the element at kth is where a sort puts it,
 * none after it is smaller, none before it larger. Implemented as a full stable sort, which
 * is one valid partition (NumPy leaves the order within each side unspecified).
 * Errors: ND_ERR_VALUE ("kth(=5) out of bounds (3)"; never for an empty a, which NumPy
 * returns before it looks at kth), and those of nd_sort. */
ND_API nd_status nd_partition(const nd_array *a, int64_t kth, int64_t axis, nd_array **result);
ND_API nd_status nd_argpartition(const nd_array *a, int64_t kth, int64_t axis, nd_array **result);

/* NumPy's unique over the flattened array: the sorted distinct values (all NaNs as one, as
 * NumPy 2's equal_nan=True; for complex input every value with a NaN part is one value, the
 * first of them in sorted order, as NumPy 2 does). Of values that tie (-0.0 and 0.0) the first
 * occurrence is kept, as NumPy's stable sort with return_index. Optional outputs (NULL to skip): index, the first occurrence
 * (flat C-order index) of each value; inverse, int64 of a's shape with each element's
 * position in values (the array API's unique_inverse shape); counts, the occurrences.
 * values must not be NULL. Blocks to read the number of distinct values. */
ND_API nd_status nd_unique(const nd_array *a, nd_array **values, nd_array **index,
                           nd_array **inverse, nd_array **counts);

/* NumPy's searchsorted: for each element of v, the index at which inserting it into the
 * sorted 1-d array a keeps a sorted, leftmost (right == 0) or rightmost (right != 0). The
 * result is int64 of v's shape. Elements compare as NumPy's promotion would (integers
 * exactly, anything with a float as float64, complex lexicographically), NaN last.
 * Errors: ND_ERR_SHAPE (a not 1-d), ND_ERR_NULL_POINTER, ND_ERR_DEVICE_MISMATCH. */
ND_API nd_status nd_searchsorted(const nd_array *a, const nd_array *v, int right,
                                 nd_array **result);

/* NumPy's nonzero: for an array of ndim >= 1, ndim int64 arrays (one per axis) holding the
 * coordinates of the nonzero elements in C order, written to results[0 .. ndim) (capacity:
 * the room in results). The arrays are views of one (ndim, count) allocation. Blocks to read
 * the count (one 8-byte device-to-host copy): it waits for the current stream up to that
 * copy, where a's producer on any other stream has been ordered by an event wait, and for
 * nothing else on the device. Errors: ND_ERR_VALUE for 0-d input ("Calling nonzero on 0d arrays is not
 * allowed"), ND_ERR_INVALID_ARGUMENT (capacity < ndim). */
ND_API nd_status nd_nonzero(const nd_array *a, nd_array **results, int capacity);

/* NumPy's where(condition) with one argument: the same as nd_nonzero. (The three-argument
 * where is nd_where in ndcuda/ufunc.h.) */
ND_API nd_status nd_where_nonzero(const nd_array *condition, nd_array **results, int capacity);

/* NumPy's argwhere: an int64 (count, ndim) array of the nonzero coordinates (0-d input gives
 * shape (count, 0), as NumPy). Blocks to read the count. */
ND_API nd_status nd_argwhere(const nd_array *a, nd_array **result);

/* NumPy's isin: a bool array of element's shape, true where the element equals some element
 * of test_elements (NaN equals nothing; a complex value with a NaN part equals nothing),
 * negated when invert != 0. Any two dtypes, complex included; values compare as NumPy's
 * promotion would (integers exactly, anything with a float or complex as float64/complex128).
 * Sorts a flat copy of test_elements (complex ones in NumPy's complex order by a merge sort),
 * then binary-searches each element. Errors: ND_ERR_NULL_POINTER, ND_ERR_DEVICE_MISMATCH. */
ND_API nd_status nd_isin(const nd_array *element, const nd_array *test_elements, int invert,
                         nd_array **result);

/* NumPy's bincount of a 1-d array of non-negative integers (bool, any integer dtype; uint64
 * values of 2**63 or more count as negative, as NumPy's cast to intp makes them): int64
 * counts, or float64 sums of weights (a real 1-d array of x's length, or NULL), of length
 * max(max(x) + 1, minlength). An empty x gives int64 zeros of length minlength whatever the
 * weights (NumPy returns before it looks at them). Blocks to read max(x) and min(x).
 * Errors: ND_ERR_SHAPE (x not 1-d: "object too deep for desired array"; weights of another
 * length: "The weights and list don't have the same length."), ND_ERR_CASTING (x of a
 * float or complex dtype), ND_ERR_VALUE (negative values: "'list' argument must have no
 * negative elements"; minlength < 0), ND_ERR_DTYPE (complex weights). */
ND_API nd_status nd_bincount(const nd_array *x, const nd_array *weights, int64_t minlength,
                             nd_array **result);

/* NumPy's histogram with `bins` uniform bins over range[0..1] (NULL: the data's min and max;
 * equal ends widen by 0.5 each way), as NumPy computes it: values outside the range are
 * ignored, the last bin includes its right edge. hist receives int64 counts, or the sums of
 * weights (an array of a's shape, or NULL) in the weights' dtype; bin_edges (may be NULL)
 * the bins + 1 edges in float64 for integer data, else in the data's dtype (NumPy's
 * linspace rules, including its float32 arithmetic for an automatic float32 range).
 * density is not supported. Blocks to read the range when none is given.
 * Errors: ND_ERR_VALUE (bins < 1; "max must be larger than min in range parameter.";
 * "supplied range of [0, inf] is not finite"; "autodetected range of [nan, nan] is not
 * finite"), ND_ERR_SHAPE (weights of another shape), ND_ERR_DTYPE (complex data or weights). */
ND_API nd_status nd_histogram(const nd_array *a, int64_t bins, const double *range,
                              const nd_array *weights, nd_array **hist, nd_array **bin_edges);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_SORT_H */
