/* Shared pieces of the indexing functions (indexing/indexing.c, indexing/mask.c). Not installed. */
#ifndef ND_INDEXING_INTERNAL_H
#define ND_INDEXING_INTERNAL_H

#include "src/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Indices known to be in range (nonzero's coordinates): no check, no blocking. Not a public
 * nd_index_mode value. */
#define ND__INDEX_TRUSTED 3

/* The geometry of a gather/scatter: a's non-indexed axes in order, with the broadcast index
 * shape B inserted at position pos of the result. */
typedef struct nd__ixplan {
  int nidx;
  int axes[ND_MAXDIMS]; /* normalised, strictly increasing */
  int bndim;
  int64_t bshape[ND_MAXDIMS];
  int64_t bsize;
  int rndim;
  int64_t rshape[ND_MAXDIMS];
  int pos;               /* B occupies result axes [pos, pos + bndim) */
  int nrem;
  int rem[ND_MAXDIMS];   /* a's non-indexed axes, in order */
} nd__ixplan;

/* Fills plan (see nd_index_result_shape for the rules and errors). */
nd_status nd__ix_plan(const char *fn, int ndim, const int64_t *shape, int nidx, const int *idx_ndims,
                      const int64_t *const *idx_shapes, const int64_t *axes, int front, nd__ixplan *plan);

/* The gather behind nd_take, nd_index_gather and nd_mask_select. flat: a is indexed as its
 * flattened C-order self (nidx 1, axes {0}). take_rule: as np.take, indices are checked only
 * when the result is not empty (NumPy's fancy indexing checks them whenever they are not).
 * mode: an nd_index_mode or ND__INDEX_TRUSTED. out (optional): of the result's shape and any
 * dtype (validated by the caller); the result is converted into it. */
nd_status nd__gather(const char *fn, const nd_array *a, int nidx, const nd_array *const *idx,
                     const int64_t *axes, int front, int mode, int flat, int take_rule, nd_array *out,
                     nd_array **result);

/* The scatter behind nd_put, nd_index_scatter and nd_mask_assign: values (any dtype) are
 * broadcast to the gather's result shape (leading length-1 dimensions dropped first). */
nd_status nd__scatter(const char *fn, nd_array *a, int nidx, const nd_array *const *idx,
                      const int64_t *axes, int front, int mode, int flat, const nd_array *values);

/* nd_take's work after its NULL checks, with fn naming the public function (nd_compress). */
nd_status nd__take(const char *fn, const nd_array *a, const nd_array *indices, int64_t axis, int mode,
                   nd_array *out, nd_array **result);

/* out's checks for take-like functions: exact shape (ND_ERR_SHAPE with NumPy's text), a dtype
 * that casts safely to a's, writeable, same device. */
nd_status nd__check_take_out(const char *fn, const nd_array *a, const nd_array *out, int rndim,
                             const int64_t *rshape);

#ifdef __cplusplus
}
#endif

#endif /* ND_INDEXING_INTERNAL_H */
