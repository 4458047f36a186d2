/* The array header and the helpers every operation uses to turn arrays into kernel operands
 * and to order its buffer accesses. */
#ifndef ND_ARRAY_INTERNAL_H
#define ND_ARRAY_INTERNAL_H

#include <stdatomic.h>

#include "kernels/kernel_types.h"
#include "src/buffer.h"
#include "src/shape.h"

#ifdef __cplusplus
extern "C" {
#endif

struct nd_array {
  atomic_long refs;
  nd_dtype dtype;
  int ndim;
  int writeable;
  int owndata;
  int64_t offset; /* bytes from buf->ptr to element (0, ..., 0) */
  int64_t size;
  nd__buffer *buf; /* the root buffer: views never point at other views */
  int64_t shape[ND_MAXDIMS];
  int64_t strides[ND_MAXDIMS];
};

/* A header over buf (retained) with the given geometry; checks nothing but host memory. */
nd_status nd__array_new(const char *fn, nd__buffer *buf, nd_dtype dtype, int ndim,
                               const int64_t *shape, const int64_t *strides, int64_t offset,
                               nd_array **out);

/* A fresh array on the current stream of the current device (checks ndim, shape, dtype,
 * overflow). order 'C' or 'F'. */
nd_status nd__array_alloc(const char *fn, int ndim, const int64_t *shape, nd_dtype dtype,
                                 char order, nd_array **out);

/* A fresh array shaped like proto with NumPy's order='K' layout: strides follow the order
 * of proto's strides (by magnitude), so elementwise results keep their inputs' layout. */
nd_status nd__array_alloc_like(const char *fn, const nd_array *proto, nd_dtype dtype,
                                      nd_array **out);

/* A view of a with new geometry over the same buffer; writeable is inherited unless clear. */
nd_status nd__array_view(const char *fn, const nd_array *a, int ndim, const int64_t *shape,
                                const int64_t *strides, int64_t offset, int writeable,
                                nd_array **out);

/* The current stream for a's device. Errors: ND_ERR_DEVICE_MISMATCH when the calling thread's
 * current device is not a's (the message names both). */
nd_status nd__array_stream(const char *fn, const nd_array *a, nd_stream **out);

/* Fills a loop and operands for iterating arrays[0..n) together over shape (each array already
 * of that shape, broadcast strides allowed), collapsing dimensions. */
void nd__array_loop(int ndim, const int64_t *shape, int n, const nd_array *const *arrays,
                           nd_kloop *loop, nd_koperand *ops);

/* Whether two arrays' byte ranges intersect (same buffer and overlapping extents). */
int nd__array_may_overlap(const nd_array *a, const nd_array *b);

/* The scalar converted to dtype (unsafe, as NumPy's fill and full), as element bytes. */
void nd__scalar_to_bytes(nd_scalar v, nd_dtype dtype, nd_kscalar *out);

/* NumPy's checks on a Python scalar stored into an array of dtype (src/copy.c): a Python int
 * out of an integer dtype's range (ND_ERR_VALUE), a Python complex into a real non-bool dtype
 * unless complex_ok (fill: ND_ERR_DTYPE; full accepts it), an invalid value dtype
 * (ND_ERR_DTYPE). Messages start with fn. */
nd_status nd__fill_value_check(const char *fn, nd_scalar value, nd_dtype dtype, int complex_ok);
nd_status nd__fill(const char *fn, nd_array *a, nd_scalar value);

/* dst[...] = src[...] for arrays of the same shape (src may have broadcast strides), with
 * conversion. When the two overlap in memory without being the same view, src is copied to
 * a temporary first, so the result is as if src had been read completely before any write. */
nd_status nd__assign(const char *fn, nd_array *dst, const nd_array *src);

/* dst[...] = src[...] for dst and src on different devices (src/peer.c), after nd_copyto's
 * checks (casting, src broadcastable to dst): runs on the calling thread's current stream of
 * dst's device, ordered across devices; the current device is unchanged on return. */
nd_status nd__copyto_device(const char *fn, nd_array *dst, const nd_array *src);

/* Test hook (src/peer.c): with on, device pairs whose peer access is not enabled yet stay
 * staged through the host, as on machines without peer access. */
void nd__peer_set_never(int on);

/* Whether peer access between devices a and b has been enabled by ndcuda. */
int nd__peer_direct(int a, int b);

/* Checks that dtype is an array dtype. */
nd_status nd__check_dtype(const char *fn, const char *arg, nd_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* ND_ARRAY_INTERNAL_H */
