/* Internal interfaces shared by the reduction, scan and sort files (reduce/reduce*.c, scan.c,
 * sort*.c). Not installed. */
#ifndef ND_REDUCE_INTERNAL_H
#define ND_REDUCE_INTERNAL_H

#include "reduce/reduce_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel pass of a reduction (see reduce/reduce.h for op/acc/flags). */
typedef struct nd__rpass {
  int op, acc, flags;
  nd_dtype res;            /* NumPy's result dtype (the value is formed in it) */
  int via;                 /* nd__reduce_via, or -1 */
  int ordered;             /* keep reduced axes in C order (argmin/argmax) */
  double ddof;             /* SQDEV */
  const nd_array *center;  /* SQDEV: contiguous means, one per output, in C order */
} nd__rpass;

/* Reduces a over rs->mask into dst, an array of the result shape (rs->out_shape: with the
 * kept axes in order, plus length-1 axes where rs->keepdims) and any dtype; dst must not
 * overlap a. Enqueues on the current stream with hazard tracking; allocates the split
 * workspace from the pool. M == 0 does nothing. */
nd_status nd__reduce_run(const char *fn, const nd_array *a, const nd__raxes *rs,
                         const nd__rpass *ps, nd_array *dst);

/* Where a reduction writes: out itself, or (out NULL, or overlapping a) a fresh C-ordered
 * array of the result shape, in out's dtype if out is given, else `dtype`. */
nd_status nd__result_dst(const char *fn, const nd_array *a, const nd__raxes *rs, nd_dtype dtype,
                         nd_array *out, nd_array **dst);

/* Finishes a reduction that wrote dst: copies into out when dst is a temporary, and hands the
 * result to *result (a new reference, if result is not NULL). Releases dst's reference on
 * every path. */
nd_status nd__result_finish(const char *fn, nd_array *dst, nd_array *out, nd_status st,
                            nd_array **result);

/* dst = a OP b (reduce/reduce.h nd_k_binary) for arrays of dst's shape (a and b may be
 * broadcast views), on the current stream with hazard tracking. */
nd_status nd__binary(const char *fn, int op, nd_array *dst, const nd_array *a, const nd_array *b);

/* Sorts every row of the C-contiguous 2-d array src (rows x n, any real dtype) into dst, a
 * C-contiguous array of the same shape and dtype (dst may be src). NaN last, stable. */
nd_status nd__sort_rows(const char *fn, const nd_array *src, nd_array *dst);

/* A view of a with the axes in `mask` moved to the end (kept axes first, both in order). */
nd_status nd__move_axes_last(const char *fn, const nd_array *a, uint64_t mask, nd_array **out);

#ifdef __cplusplus
}
#endif

#endif /* ND_REDUCE_INTERNAL_H */
