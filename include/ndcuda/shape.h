/* Shapes, slices and broadcasting: the public part of the pure host shape logic. */
#ifndef NDCUDA_SHAPE_H
#define NDCUDA_SHAPE_H

#include <stdint.h>

#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most dimensions an array may have (NumPy 2 allows 64; 32 keeps headers small). */
#define ND_MAXDIMS 32

/* Marks an omitted slice field, Python's None. */
#define ND_NONE INT64_MIN

/* A Python slice start:stop:step. Any field may be ND_NONE; step must not be 0. */
typedef struct nd_slice {
  int64_t start;
  int64_t stop;
  int64_t step;
} nd_slice;

/* The full slice ":" */
#define ND_SLICE_ALL ((nd_slice){ND_NONE, ND_NONE, ND_NONE})

/* NumPy's broadcast_shapes over n shapes (n >= 0). shapes[i] has ndims[i] entries. Writes
 * the result's ndim and shape (ND_MAXDIMS entries of room). Borrows everything.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_INVALID_ARGUMENT (ndim < 0 or > ND_MAXDIMS, negative
 * dimension), ND_ERR_SHAPE with NumPy's text ("shape mismatch: objects cannot be broadcast to
 * a single shape.  Mismatch is between arg 0 with shape (3,4) and arg 1 with shape (5,).") */
ND_API nd_status nd_broadcast_shapes(int n, const int *ndims, const int64_t *const *shapes,
                                     int *out_ndim, int64_t *out_shape);

/* Python's slice.indices(length): normalises s against an axis of the given length with
 * Python's clamping, and writes start, step and the number of selected elements.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE for step == 0, ND_ERR_INVALID_ARGUMENT for a
 * negative length. */
ND_API nd_status nd_slice_indices(nd_slice s, int64_t length, int64_t *start, int64_t *step,
                                  int64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_SHAPE_H */
