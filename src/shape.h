/* Pure host shape logic: sizes, strides, broadcasting, axes, slices, reshape, collapsing.
 *
 * Nothing here touches the device. Every function that can fail takes the public function
 * name `fn` for its messages ("nd_add: ...") and returns an nd_status. Shapes and strides are
 * int64_t; strides are in bytes and may be negative or zero. */
#ifndef ND_SHAPE_INTERNAL_H
#define ND_SHAPE_INTERNAL_H

#include <stdint.h>

#include "src/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks 0 <= ndim <= ND_MAXDIMS and that no dimension is negative, and writes the element
 * count. Errors: ND_ERR_INVALID_ARGUMENT (bad ndim, negative dimension), ND_ERR_OVERFLOW
 * (count exceeds INT64_MAX), ND_ERR_NULL_POINTER (shape NULL while ndim > 0). A zero
 * dimension gives a count of 0 even if the other dimensions would overflow, as in NumPy. */
nd_status nd__shape_count(const char *fn, int ndim, const int64_t *shape, int64_t *count);

/* As nd__shape_count, and also the byte count count * itemsize, overflow-checked. */
nd_status nd__shape_nbytes(const char *fn, int ndim, const int64_t *shape,
                                  int64_t itemsize, int64_t *count, int64_t *nbytes);

/* C-order (row-major) and Fortran-order strides in bytes. Dimensions of size 0 or 1 get the
 * stride the formula gives (NumPy does the same). The shape must have been checked. */
void nd__strides_c(int ndim, const int64_t *shape, int64_t itemsize, int64_t *strides);
void nd__strides_f(int ndim, const int64_t *shape, int64_t itemsize, int64_t *strides);

/* Contiguity as NumPy computes its flags: dimensions of size 1 are ignored and any array with
 * a zero dimension is both C- and F-contiguous. */
int nd__is_c_contiguous(int ndim, const int64_t *shape, const int64_t *strides,
                               int64_t itemsize);
int nd__is_f_contiguous(int ndim, const int64_t *shape, const int64_t *strides,
                               int64_t itemsize);

/* Broadcasting of n shapes (see nd_broadcast_shapes, which is this with fn set). */
nd_status nd__broadcast_shapes(const char *fn, int n, const int *ndims,
                                      const int64_t *const *shapes, int *out_ndim,
                                      int64_t *out_shape);

/* Strides that view an operand (ndim, shape, strides) as out_ndim/out_shape: leading new
 * axes and broadcast axes get stride 0. Errors: ND_ERR_SHAPE with NumPy's text
 * ("operands could not be broadcast together with remapped shapes ..." is not used; we say
 * "cannot broadcast shape (3,) to (4, 5)") when the operand does not broadcast. */
nd_status nd__broadcast_strides(const char *fn, int ndim, const int64_t *shape,
                                       const int64_t *strides, int out_ndim,
                                       const int64_t *out_shape, int64_t *out_strides);

/* Normalises one axis against ndim (negative counts from the end). Errors: ND_ERR_AXIS with
 * NumPy's text "axis 3 is out of bounds for array of dimension 2". */
nd_status nd__normalize_axis(const char *fn, int64_t axis, int ndim, int *out);

/* Normalises naxes axes; duplicates give ND_ERR_AXIS ("repeated axis"). Writes out[naxes]
 * and, if mask is not NULL, a bit mask of the selected axes (bit i = axis i). */
nd_status nd__normalize_axes(const char *fn, int naxes, const int64_t *axes, int ndim,
                                    int *out, uint64_t *mask);

/* Python slice.indices semantics (see nd_slice_indices). */
nd_status nd__slice_normalize(const char *fn, nd_slice s, int64_t length,
                                     int64_t *start, int64_t *step, int64_t *count);

/* Resolves a requested shape with at most one -1 against `count` elements and writes the
 * concrete shape. Errors: ND_ERR_INVALID_ARGUMENT for more than one -1 or another negative
 * dimension, ND_ERR_SHAPE with NumPy's text "cannot reshape array of size 6 into shape
 * (4,)" when the counts differ. */
nd_status nd__reshape_infer(const char *fn, int64_t count, int ndim,
                                   const int64_t *shape_in, int64_t *shape_out);

/* NumPy's _attempt_nocopy_reshape: can an array with (ndim, shape, strides) be viewed as
 * (new_ndim, new_shape) in the given order ('C' or 'F') without copying? Returns 1 and writes
 * new_strides if so, 0 if a copy is needed. Counts must match (checked by the caller). */
int nd__reshape_strides(int ndim, const int64_t *shape, const int64_t *strides,
                               int new_ndim, const int64_t *new_shape, char order,
                               int64_t itemsize, int64_t *new_strides);

/* Dimension collapsing for kernels. On entry: ndim, shape, and nops stride arrays (each
 * ndim entries, in bytes) describing operands that are iterated together in C order. Drops
 * size-1 dimensions and merges each pair of adjacent dimensions that is contiguous for every
 * operand (stride[i] == stride[i+1] * shape[i+1]). Rewrites shape and strides in place and
 * returns the new ndim (0 when every dimension had size 1; the count is then 1, or 0 if a
 * dimension was 0 - callers check the count first). Order of iteration is preserved. */
int nd__collapse_dims(int ndim, int64_t *shape, int nops, int64_t *const *strides);

#ifdef __cplusplus
}
#endif

#endif /* ND_SHAPE_INTERNAL_H */
