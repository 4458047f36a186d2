/* Host <-> device transfers and wrapping of foreign device memory.
 *
 * Host data is always C-ordered and contiguous. A device array that is not C-contiguous is
 * first copied to a C-ordered temporary on the current stream (or filled through one), so one
 * cudaMemcpyAsync moves the bytes. */
#include <string.h>

#include <cuda_runtime_api.h>

#include "src/api_scope.h"
#include "src/array.h"
#include "src/device.h"

static nd_status nd__check_host_bytes(const char *fn, const nd_array *a, size_t host_bytes, int exact) {
  int64_t need = a->size * (int64_t)nd_dtype_itemsize(a->dtype);
  if (exact ? (int64_t)host_bytes != need : (int64_t)host_bytes < need) {
    char s[ND__SHAPE_STR];
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: host buffer of %zu bytes does not match an "
                     "array of shape %s and dtype %s (%lld bytes)", fn, host_bytes,
                     nd__format_shape(s, sizeof s, a->ndim, a->shape), nd_dtype_name(a->dtype),
                     (long long)need);
  }
  return ND_OK;
}

/* Enqueues a copy between host memory and the C-contiguous array c on s, ordered by the
 * hazard tracker. Returns the stream's commit so the caller can wait for exactly this copy. */
static nd_status nd__host_copy(const char *fn, nd_array *c, void *host, int to_host, nd_stream *s) {
  if (c->size == 0) return ND_OK;
  nd__sync sync;
  nd__sync_init(&sync, s);
  ND_TRY(nd__sync_add(&sync, &c->buf->hz, to_host ? ND__READ : ND__WRITE));
  ND_TRY(nd__sync_begin(&sync));
  size_t n = (size_t)(c->size * (int64_t)nd_dtype_itemsize(c->dtype));
  char *dev = (char *)c->buf->ptr + c->offset;
  nd_status st = to_host ? ND_CUDA(cudaMemcpyAsync(host, dev, n, cudaMemcpyDeviceToHost, (cudaStream_t)s->cu))
                         : ND_CUDA(cudaMemcpyAsync(dev, host, n, cudaMemcpyHostToDevice, (cudaStream_t)s->cu));
  if (st != ND_OK) return nd__error_context(st, fn);
  return nd__sync_end(&sync);
}

nd_status nd_array_from_host(const void *host, size_t host_bytes, int ndim, const int64_t *shape,
                             nd_dtype dtype, nd_array **out) {
  const char *fn = "nd_array_from_host";
  ND_CHECK_NULL(fn, out);
  /* A NULL host pointer is reported before any device work (and whatever the device). */
  ND_TRY(nd__check_dtype(fn, "dtype", dtype));
  int64_t count, nbytes;
  ND_TRY(nd__shape_nbytes(fn, ndim, shape, (int64_t)nd_dtype_itemsize(dtype), &count, &nbytes));
  if (count > 0 && host == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: argument 'host' is NULL", fn);
  nd_array *a;
  ND_TRY(nd__array_alloc(fn, ndim, shape, dtype, 'C', &a));
  nd_status st = nd__check_host_bytes(fn, a, host_bytes, 1);
  if (st == ND_OK && a->size > 0 && host == NULL)
    st = nd__error(ND_ERR_NULL_POINTER, "%s: argument 'host' is NULL", fn);
  nd_stream *s = NULL;
  if (st == ND_OK) st = nd__array_stream(fn, a, &s);
  if (st == ND_OK) st = nd__host_copy(fn, a, (void *)host, 0, s);
  /* The caller may reuse its memory on return: a pageable source is staged by the driver
   * before cudaMemcpyAsync returns, but a pinned one is read later, so wait for the copy. */
  if (st == ND_OK && a->size > 0 && nd_host_is_pinned(host)) st = nd__hazard_host_wait(&a->buf->hz, ND__READ);
  if (st != ND_OK) {
    nd_array_release(a);
    return st;
  }
  *out = a;
  return ND_OK;
}

static nd_status nd__array_to_host(const nd_array *a, void *host, size_t host_bytes) {
  const char *fn = "nd_array_to_host";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_TRY(nd__check_host_bytes(fn, a, host_bytes, 0));
  if (a->size == 0) return ND_OK;
  ND_CHECK_NULL(fn, host);
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  nd_array *c;
  ND_TRY(nd_array_ascontiguous(a, ND_ORDER_C, &c));
  nd_status st = nd__host_copy(fn, c, host, 1, s);
  /* Wait for this copy only: the event recorded after it on s, not the device. */
  if (st == ND_OK) st = nd__stream_host_wait(s, atomic_load(&s->seq));
  nd_array_release(c);
  return st;
}

/* A host transfer is a copy: it runs on the array's device (its current stream there),
 * whichever device is current. */
nd_status nd_array_to_host(const nd_array *a, void *host, size_t host_bytes) {
  if (a == NULL) return nd__array_to_host(a, host, host_bytes);
  /* Where the device cannot be made current (none at all), the transfer reports its own
   * errors in its own order. */
  int prev = -1;
  if (nd__device_enter(a->buf->device, &prev) != 0) prev = -1;
  nd_status st = nd__array_to_host(a, host, host_bytes);
  nd__device_leave(prev);
  return st;
}

static nd_status nd__require_pinned(const char *fn, const void *p) {
  if (!nd_host_is_pinned(p))
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: host memory %p is pageable; asynchronous "
                     "copies need page-locked memory from nd_host_alloc_pinned (use the blocking "
                     "nd_array_to_host/nd_array_from_host for pageable memory)", fn, p);
  return ND_OK;
}

static nd_status nd__array_to_host_async(const nd_array *a, void *host, size_t host_bytes) {
  const char *fn = "nd_array_to_host_async";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_TRY(nd__check_host_bytes(fn, a, host_bytes, 0));
  if (a->size == 0) return ND_OK;
  ND_CHECK_NULL(fn, host);
  ND_TRY(nd__require_pinned(fn, host));
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  nd_array *c;
  ND_TRY(nd_array_ascontiguous(a, ND_ORDER_C, &c));
  nd_status st = nd__host_copy(fn, c, host, 1, s);
  nd_array_release(c);
  return st;
}

/* A host transfer is a copy: it runs on the array's device (its current stream there),
 * whichever device is current. */
nd_status nd_array_to_host_async(const nd_array *a, void *host, size_t host_bytes) {
  if (a == NULL) return nd__array_to_host_async(a, host, host_bytes);
  /* Where the device cannot be made current (none at all), the transfer reports its own
   * errors in its own order. */
  int prev = -1;
  if (nd__device_enter(a->buf->device, &prev) != 0) prev = -1;
  nd_status st = nd__array_to_host_async(a, host, host_bytes);
  nd__device_leave(prev);
  return st;
}

static nd_status nd__array_from_host_async(nd_array *dst, const void *host, size_t host_bytes) {
  const char *fn = "nd_array_from_host_async";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, dst);
  ND_TRY(nd__check_host_bytes(fn, dst, host_bytes, 1));
  if (!dst->writeable) return nd__error(ND_ERR_READ_ONLY, "%s: destination array is read-only", fn);
  if (dst->size == 0) return ND_OK;
  ND_CHECK_NULL(fn, host);
  ND_TRY(nd__require_pinned(fn, host));
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, dst, &s));
  if (nd_array_is_c_contiguous(dst)) return nd__host_copy(fn, dst, (void *)host, 0, s);
  nd_array *c;
  ND_TRY(nd__array_alloc(fn, dst->ndim, dst->shape, dst->dtype, 'C', &c));
  nd_status st = nd__host_copy(fn, c, (void *)host, 0, s);
  if (st == ND_OK) st = nd__assign(fn, dst, c);
  nd_array_release(c);
  return st;
}

/* A host transfer is a copy: it runs on the array's device (its current stream there),
 * whichever device is current. */
nd_status nd_array_from_host_async(nd_array *dst, const void *host, size_t host_bytes) {
  if (dst == NULL) return nd__array_from_host_async(dst, host, host_bytes);
  /* Where the device cannot be made current (none at all), the transfer reports its own
   * errors in its own order. */
  int prev = -1;
  if (nd__device_enter(dst->buf->device, &prev) != 0) prev = -1;
  nd_status st = nd__array_from_host_async(dst, host, host_bytes);
  nd__device_leave(prev);
  return st;
}

nd_status nd_array_from_device_ptr(void *ptr, int device, int ndim, const int64_t *shape,
                                   const int64_t *strides, nd_dtype dtype,
                                   void (*release)(void *ptr, void *ctx), void *ctx, nd_array **out) {
  const char *fn = "nd_array_from_device_ptr";
  ND_CHECK_NULL(fn, out);
  ND_TRY(nd__check_dtype(fn, "dtype", dtype));
  int64_t itemsize = (int64_t)nd_dtype_itemsize(dtype), count, nbytes;
  ND_TRY(nd__shape_nbytes(fn, ndim, shape, itemsize, &count, &nbytes));
  if (count > 0 && ptr == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: argument 'ptr' is NULL", fn);
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) (void)cudaGetLastError();
  if (device < 0 || device >= n)
    return nd__error(device < 0 || n > 0 ? ND_ERR_INVALID_ARGUMENT : ND_ERR_NO_DEVICE,
                     "%s: device %d does not exist (%d devices)", fn, device, n);
  /* The kernels move an element as one access of its full size (a complex128 as a 16-byte
   * vector), so the pointer and every stride must be multiples of the itemsize: a misaligned
   * access would be a sticky CUDA error that ends the context, not a status. */
  if ((uintptr_t)ptr % (uintptr_t)itemsize != 0)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: pointer %p is not aligned to %lld bytes for "
                     "dtype %s", fn, ptr, (long long)itemsize, nd_dtype_name(dtype));
  int64_t st_[ND_MAXDIMS];
  if (strides == NULL) nd__strides_c(ndim, shape, itemsize, st_);
  else memcpy(st_, strides, (size_t)ndim * sizeof(int64_t));
  for (int i = 0; i < ndim && strides != NULL; i++)
    if (st_[i] % itemsize != 0)
      return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: stride %lld of axis %d is not a multiple of "
                       "the %lld-byte itemsize of dtype %s", fn, (long long)st_[i], i,
                       (long long)itemsize, nd_dtype_name(dtype));
  /* The element extent, recorded as the buffer's size (element 0 is at ptr itself; negative
   * strides reach below it). */
  int64_t lo = 0, hi = count > 0 ? itemsize : 0;
  for (int i = 0; i < ndim && count > 0; i++) {
    int64_t span = (shape[i] - 1) * st_[i];
    if (span < 0) lo += span;
    else hi += span;
  }
  nd__buffer *b;
  ND_TRY(nd__buffer_wrap(fn, ptr, hi - lo, device, release, ctx, &b));
  nd_status st = nd__array_new(fn, b, dtype, ndim, shape, st_, 0, out);
  if (st != ND_OK) {
    b->release = NULL; /* the caller keeps its pointer on failure */
    nd__buffer_release(b);
    return st;
  }
  nd__buffer_release(b);
  return ND_OK;
}
