/* Launchers for sorting and searching (sort/sort_keys.cu, sort_pairs.cu, sort_util.cu,
 * sort_search.cu).
 *
 * Radix sorts are CUB's (stable, least significant digit first). Two key representations:
 * - native: the dtype itself (bool as uint8), for one-row sorts of values; CUB orders -0.0
 *   and +0.0 as equal and keeps their bits, positive NaNs after +inf and NaNs with the sign
 *   bit set before -inf. The caller either sorts the keys as they are with nan_last, which
 *   moves that leading block of negative NaNs behind the rest (the one-block sort as it stores
 *   the row; after CUB's sort nd_k_sort_nanfix: two light kernels that exit at once when there
 *   is none), or sorts a copy it made anyway with every NaN made the positive quiet NaN
 *   (nd_k_sort_canon);
 * - twiddled: an unsigned integer of the dtype's width whose order is NumPy's sort order (sign
 *   bit flipped for signed integers; for floats the IEEE order trick with -0.0 mapped to +0.0
 *   and every NaN to all-ones, last), optionally with the row number above it (composite
 *   keys) so that one sort orders many rows at once. Used for argsort, multi-row sorts and
 *   unique. */
#ifndef ND_KERNELS_SORT_H
#define ND_KERNELS_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel_types.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CUB radix sorts (two-phase: temp NULL writes *temp_bytes and returns) ------------- */

/* n native keys of a real dtype, ascending, in -> out (must not overlap). With nan_last (float
 * dtypes), the NaNs with the sign bit set, which the native order puts first, end last too
 * (by the one-block sort itself, or nd_k_sort_nanfix after CUB's, in the temporary storage). */
nd_status nd_k_sort_keys(int dtype, const void *in, void *out, int64_t n, int nan_last, void *temp,
                         size_t *temp_bytes, void *stream);

/* Unsigned keys of kbytes (1, 2, 4, 8) bytes with int64 values, by key bits [0, end_bit). */
nd_status nd_k_sort_pairs_idx(int kbytes, const void *kin, void *kout, const int64_t *vin,
                              int64_t *vout, int64_t n, int end_bit, void *temp,
                              size_t *temp_bytes, void *stream);

/* Unsigned keys of kbytes (1, 2, 4, 8) bytes with uint32 values (argsort's positions in rows
 * shorter than 2^32), by key bits [0, end_bit), between two buffers each (cub::DoubleBuffer, no
 * copy of the data in the temporary storage): keys[0] and vals[0] hold the input, keys[1] and
 * vals[1] the same room, and *which (0 or 1, set on the host when the passes are enqueued) says
 * which of each pair holds the result; the other holds scratch. */
nd_status nd_k_sort_pairs_idx32(int kbytes, void *const keys[2], uint32_t *const vals[2], int64_t n,
                                int end_bit, void *temp, size_t *temp_bytes, int *which,
                                void *stream);

/* One-block sorts (sort_block.cu), which the two sorts above take for rows that fit one
 * block's tile on this device (up to 16384 keys) and where they beat CUB's device sort: true
 * when they take the row, launched when `launch` (its status in *st), else only answered. */
int nd_k_sort_block_keys(int dtype, const void *in, void *out, int64_t n, int nan_last, int launch,
                         void *stream, nd_status *st);
int nd_k_sort_block_pairs(int kbytes, const void *kin, void *kout, const int64_t *vin,
                          int64_t *vout, int64_t n, int end_bit, int launch, void *stream,
                          nd_status *st);

/* One row of n keys sorted by one cooperative launch (sort_grid.cu), for rows from where the
 * one-block sort falls behind (8193 keys; 12289 for values of 4 bytes, 3072 for argsort of
 * 1-byte keys) up to its own largest grid (2^19 keys) where the device keeps the whole grid
 * resident (asked first for one row): values of a real dtype in NumPy's order with every NaN
 * last (as nd_k_sort_keys with nan_last), or, with want_idx, argsort (int64 positions; every NaN
 * alike, in input order) of in's elements read as they are (contiguous). Two-phase like CUB's
 * sorts (temp NULL: only *temp_bytes is set). True when it takes the row (launched when temp is
 * not NULL, its status in *st), else 0 (as in a captured stream, where CUB's sort is left to
 * it). in and out must not overlap. */
int nd_k_sort_grid(int dtype, const void *in, void *out, int64_t n, int want_idx, void *temp,
                   size_t *temp_bytes, void *stream, nd_status *st);

/* rows > 1 rows of n keys each, n apart, each sorted on its own by one block of the one-block
 * sort (no temporary storage): nd_k_sort_rows_fit says whether it takes rows of dtype's keys
 * (a tile holds them; the caller asks after nd_k_sort_short_fit, which takes short rows first);
 * nd_k_sort_rows_keys fails with ND_ERR_INTERNAL where it does not, and orders and moves NaNs
 * as nd_k_sort_keys does. */
int nd_k_sort_rows_fit(int dtype, int64_t n, int64_t rows);
nd_status nd_k_sort_rows_keys(int dtype, const void *in, void *out, int64_t n, int64_t rows,
                              int nan_last, void *stream);

/* Argsort in one launch: rows rows of n keys of a real dtype (contiguous, n apart), each sorted
 * by one block in NumPy's order (stable; NaNs last) with its positions in the row written to
 * out as int64: no preparation kernel and no temporaries. nd_k_sort_arg_fit says whether it
 * takes them (rows of up to 16384 keys, 8192 of 8 bytes; the caller sends several short rows to
 * nd_k_sort_short first); nd_k_sort_arg fails with ND_ERR_INTERNAL where it does not. */
int nd_k_sort_arg_fit(int dtype, int64_t n, int64_t rows);
nd_status nd_k_sort_arg(int dtype, const void *in, int64_t *out, int64_t n, int64_t rows, void *stream);

/* rows > 1 short rows of n keys of a real dtype each (contiguous, n apart), each sorted by a few
 * threads of a warp in NumPy's order (stable; NaNs last), one launch (sort_short.cu): the
 * elements' bits to out in order, or with arg their positions in the row as int64.
 * nd_k_sort_short_fit says whether it takes them (up to 128 keys); nd_k_sort_short fails with
 * ND_ERR_INTERNAL where it does not. */
int nd_k_sort_short_fit(int dtype, int64_t n, int64_t rows);
nd_status nd_k_sort_short(int dtype, const void *in, void *out, int64_t n, int64_t rows, int arg, void *stream);

/* uint64 keys with values of vbytes (1, 2, 4) bytes, by key bits [0, end_bit). */
nd_status nd_k_sort_pairs_val(int vbytes, const uint64_t *kin, uint64_t *kout, const void *vin,
                              void *vout, int64_t n, int end_bit, void *temp, size_t *temp_bytes,
                              void *stream);

/* n contiguous complex64 or complex128 values, in place, in NumPy's complex order (NaN parts
 * last), by a merge sort (sort_complex.cu). Two-phase like the radix sorts. */
nd_status nd_k_sort_complex(int dtype, void *keys, int64_t n, void *temp, size_t *temp_bytes,
                            void *stream);

/* Stable sorts of complex elements by (row, value) in that order (sort_complex.cu), for sort,
 * argsort and unique. nd_k_sort_complex_prep writes, for element i in C order over loop (rows
 * of n elements, the sorted axis last), keys[i] = (i / n, the element) of
 * nd_k_sort_complex_key_bytes(dtype) bytes and idx[i] = i; nd_k_sort_complex_pairs then sorts
 * n keys with their int64 values in place by a merge sort (two-phase like the radix sorts), so
 * idx ends as the permutation (sorted position -> flat index); ties keep their input order. */
size_t nd_k_sort_complex_key_bytes(int dtype);
nd_status nd_k_sort_complex_prep(const nd_kloop *loop, const nd_koperand *src, int64_t n,
                                 void *keys, int64_t *idx, void *stream);
nd_status nd_k_sort_complex_pairs(int dtype, void *keys, int64_t *idx, int64_t n, void *temp,
                                  size_t *temp_bytes, void *stream);
/* unique over n sorted complex keys: flags[i] = 1 where a new value starts; every value with
 * a NaN part belongs to one group (NumPy 2's equal_nan=True). */
nd_status nd_k_unique_flags_complex(int dtype, const void *keys, int64_t n, uint64_t *flags,
                                    void *stream);

/* ---- preparation and finishing (sort_util.cu) ------------------------------------------- */

/* dst[i] = src[i] for n contiguous elements of dtype, with NaN made the positive quiet NaN
 * (float dtypes) and bool made 0/1. dst may equal src. */
nd_status nd_k_sort_canon(int dtype, const void *src, void *dst, int64_t n, void *stream);

/* NaN fix-up after CUB's sort of raw float keys (float16/32/64): rotates the leading
 * block of sign-bit-set NaNs, if any, to the end of the n sorted keys, in place, keeping every
 * bit. scratch holds nd_k_sort_nanfix_bytes(dtype, n) bytes (the sort's temporary storage,
 * free again once the sort is enqueued, will do). Enqueues two kernels; no host sync. */
size_t nd_k_sort_nanfix_bytes(int dtype, int64_t n);
nd_status nd_k_sort_nanfix(int dtype, void *keys, void *scratch, int64_t n, void *stream);

/* For element i (C order over loop, which covers rows of n elements, the sorted axis last):
 * keys[i] = twiddled value (kbytes wide), with (i / n) << (8 * width of dtype) added when
 * composite (then kbytes is 8); idx[i] (if idx; idx_bytes 4 or 8 wide) = i % n when
 * idx_in_row, else i; vals[i] (if vals) = the element's raw bits. */
nd_status nd_k_sort_prep(const nd_kloop *loop, const nd_koperand *src, int64_t n, int composite,
                         void *keys, int kbytes, void *idx, int idx_bytes, int idx_in_row,
                         void *vals, void *stream);

/* keys[i] = idx[i] / n (row of a flat index), for the second pass of a two-pass row sort. */
nd_status nd_k_sort_row_keys(const int64_t *idx, uint64_t *keys, int64_t total, int64_t n,
                             void *stream);

enum nd_ksort_emit {
  ND_KS_EMIT_BITS = 0,    /* dst[i] = element i of `bits` (vbytes wide) */
  ND_KS_EMIT_IDX_MOD = 1, /* dst[i] = idx[i] % n (int64) */
  ND_KS_EMIT_GATHER = 2,  /* dst[i] = src[idx[i]], src addressed by its loop */
  ND_KS_EMIT_IDX32 = 3    /* dst[i] = element i of `bits` as uint32, widened to int64 */
};
/* Writes the sorted result through dst's loop (any strides; same logical C order as the
 * sorted buffer). */
nd_status nd_k_sort_emit(int mode, const nd_kloop *dloop, const nd_koperand *dst, const void *bits,
                         int vbytes, const int64_t *idx, int64_t n, const nd_kloop *sloop,
                         const nd_koperand *src, void *stream);

/* unique over sorted twiddled keys (n of kbytes) and the permutation perm (sorted position ->
 * flat input index): flags[i] = 1 where a new value starts (i == 0 or key differs). */
nd_status nd_k_unique_flags(const void *keys, int kbytes, int64_t n, uint64_t *flags, void *stream);
/* With scan = inclusive sum of those flags (group g of sorted position i is scan[i] - 1):
 * values[g] = src[perm[i]] and first[g] = perm[i] (if not NULL) at each group start;
 * inverse[perm[i]] = g (if not NULL); start[g] = i (if not NULL). */
nd_status nd_k_unique_scatter(const uint64_t *scan, const int64_t *perm, int64_t n,
                              const nd_kloop *sloop, const nd_koperand *src, char *values,
                              int64_t *first, int64_t *inverse, int64_t *start, void *stream);
/* counts[g] = (g + 1 < groups ? start[g + 1] : n) - start[g]. */
nd_status nd_k_unique_counts(const int64_t *start, int64_t groups, int64_t n, int64_t *counts,
                             void *stream);

/* ---- searching and counting (sort_search.cu) -------------------------------------------- */

/* flags[i] = a[i] != 0 (NumPy's truth value, C order over the loop). */
nd_status nd_k_nonzero_flags(const nd_kloop *loop, const nd_koperand *a, uint64_t *flags, void *stream);
/* With scan = inclusive sum of the flags over count elements of an array of (ndim, shape):
 * for each set element at flat index i, out[d * total + scan[i] - 1] = coordinate d of i. */
nd_status nd_k_nonzero_scatter(const uint64_t *scan, int64_t count, int ndim, const int64_t *shape,
                               int64_t *out, int64_t total, void *stream);

/* out[i] = insertion index of v[i] into the sorted 1-d a (na elements at a_stride bytes),
 * leftmost (right == 0) or rightmost, with NumPy's order (NaN last; complex lexicographic).
 * v and out share the loop; out is int64. */
nd_status nd_k_searchsorted(const char *a, int adtype, int64_t a_stride, int64_t na,
                            const nd_kloop *loop, const nd_koperand *out, const nd_koperand *v,
                            int right, void *stream);

/* out[i] = (x[i] == some element of the sorted contiguous test array) != invert; NaN never
 * matches. out is bool and shares x's loop. */
nd_status nd_k_isin(const nd_kloop *loop, const nd_koperand *out, const nd_koperand *x,
                    const char *sorted, int tdtype, int64_t nt, int invert, void *stream);

/* Histogram of x (weights w: NULL or sharing x's loop): counts (int64, w NULL) or weight sums
 * (double) into hist[bins], bins of NumPy's uniform rule against edges (bins + 1 values of
 * edge_dtype: float16, float32 or float64), computed in float (float16/32 edges) or double.
 * With as_bincount, x holds non-negative integers and each adds to hist[x] directly. */
nd_status nd_k_histogram(const nd_kloop *loop, const nd_koperand *x, const nd_koperand *w,
                         const void *edges, int edge_dtype, int64_t bins, int as_bincount,
                         void *hist, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_KERNELS_SORT_H */
