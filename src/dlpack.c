/* DLPack export and import (include/ndcuda/interop.h).
 *
 * Export: one host allocation holds the managed tensor, its shape and strides, and a
 * reference to the array; the deleter drops the reference and frees the block. The consumer's
 * stream is ordered after the array's producer by the same hazard tracking every operation
 * uses (nd__hazard_prepare: event waits, no host synchronisation).
 *
 * Import: the producer's memory becomes a foreign buffer (nd__buffer_wrap) whose release
 * callback calls the tensor's deleter; the buffer layer calls it once, when the last view is
 * gone and the uses ndcuda enqueued have finished. Everything but the device count is checked
 * without touching the device, so the host suite covers the validation. */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "src/api_scope.h"
#include "src/array.h"

/* ---- dtypes -------------------------------------------------------------------------------- */

static const DLDataType nd__dl_types[ND_NUM_DTYPES] = {
    {kDLBool, 8, 1},   {kDLInt, 8, 1},    {kDLInt, 16, 1},   {kDLInt, 32, 1},      {kDLInt, 64, 1},
    {kDLUInt, 8, 1},   {kDLUInt, 16, 1},  {kDLUInt, 32, 1},  {kDLUInt, 64, 1},     {kDLFloat, 16, 1},
    {kDLFloat, 32, 1}, {kDLFloat, 64, 1}, {kDLComplex, 64, 1}, {kDLComplex, 128, 1}};

nd_status nd_dtype_to_dlpack(nd_dtype dtype, DLDataType *out) {
  ND_CHECK_NULL("nd_dtype_to_dlpack", out);
  if (!nd_dtype_is_valid(dtype))
    return nd__error(ND_ERR_DTYPE, "nd_dtype_to_dlpack: %d is not an array dtype", (int)dtype);
  *out = nd__dl_types[dtype];
  return ND_OK;
}

static nd_status nd__dtype_from_dl(const char *fn, DLDataType t, nd_dtype *out) {
  for (int d = 0; d < ND_NUM_DTYPES; d++)
    if (nd__dl_types[d].code == t.code && nd__dl_types[d].bits == t.bits && t.lanes == 1) {
      *out = (nd_dtype)d;
      return ND_OK;
    }
  return nd__error(ND_ERR_DTYPE, "%s: DLPack type (code %u, bits %u, lanes %u) has no ndcuda dtype",
                   fn, (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes);
}

nd_status nd_dtype_from_dlpack(DLDataType dtype, nd_dtype *out) {
  ND_CHECK_NULL("nd_dtype_from_dlpack", out);
  return nd__dtype_from_dl("nd_dtype_from_dlpack", dtype, out);
}

/* ---- export -------------------------------------------------------------------------------- */

typedef struct nd__dl_block {
  union {
    struct DLManagedTensorVersioned v;
    DLManagedTensor legacy;
  } m;
  nd_array *ref;
  int64_t shape[ND_MAXDIMS];
  int64_t strides[ND_MAXDIMS];
} nd__dl_block;

static void nd__dl_delete_versioned(struct DLManagedTensorVersioned *self) {
  if (self == NULL) return;
  nd__dl_block *e = (nd__dl_block *)self->manager_ctx;
  nd_array_release(e->ref);
  free(e);
}

static void nd__dl_delete_legacy(DLManagedTensor *self) {
  if (self == NULL) return;
  nd__dl_block *e = (nd__dl_block *)self->manager_ctx;
  nd_array_release(e->ref);
  free(e);
}

/* Makes the consumer stream wait for a's producer (and readers, when the consumer may write). */
static nd_status nd__dl_order(const char *fn, const nd_array *a, int64_t stream) {
  if (stream == ND_DLPACK_STREAM_NONE) return ND_OK;
  if (stream == 0 || stream < -1)
    return nd__error(ND_ERR_VALUE, "%s: stream %lld is not valid for a CUDA array (-1: no "
                     "synchronisation, 1: legacy default, 2: per-thread default, else a "
                     "cudaStream_t; 0 is disallowed as ambiguous)", fn, (long long)stream);
  nd_stream *cur;
  ND_TRY(nd__array_stream(fn, a, &cur)); /* the current device must be a's */
  nd_stream *consumer = NULL;
  int wrapped = 0;
  if (stream == ND_DLPACK_STREAM_LEGACY) consumer = nd_stream_null();
  else if (stream == ND_DLPACK_STREAM_PER_THREAD) consumer = nd_stream_per_thread();
  else {
    nd_status st = nd_stream_from_cuda((struct CUstream_st *)(uintptr_t)stream, &consumer);
    if (st != ND_OK) return nd__error_context(st, fn);
    wrapped = 1;
  }
  if (consumer == NULL) return nd__error(ND_ERR_CUDA, "%s: the default stream is unavailable", fn);
  nd_status st = nd__hazard_prepare(&a->buf->hz, consumer, a->writeable ? ND__WRITE : ND__READ);
  if (st != ND_OK) st = nd__error_context(st, fn);
  if (wrapped) {
    nd_status e = nd_stream_destroy(consumer);
    if (st == ND_OK) st = e;
  }
  return st;
}

static nd_status nd__dl_export(const char *fn, const nd_array *a, int64_t stream, nd__dl_block **out) {
  const int64_t item = (int64_t)nd_dtype_itemsize(a->dtype);
  for (int i = 0; i < a->ndim; i++)
    if (a->strides[i] % item != 0)
      return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: stride %lld of axis %d is not a multiple of the "
                       "%lld-byte itemsize; DLPack strides count elements", fn,
                       (long long)a->strides[i], i, (long long)item);
  ND_TRY(nd__dl_order(fn, a, stream));
  nd__dl_block *e = calloc(1, sizeof *e);
  if (e == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for the tensor", fn);
  e->ref = nd_array_retain((nd_array *)a);
  for (int i = 0; i < a->ndim; i++) {
    e->shape[i] = a->shape[i];
    e->strides[i] = a->strides[i] / item;
  }
  *out = e;
  return ND_OK;
}

static void nd__dl_fill(const nd_array *a, nd__dl_block *e, DLTensor *t) {
  t->data = a->size > 0 ? (char *)a->buf->ptr + a->offset : NULL;
  t->device.device_type = kDLCUDA;
  t->device.device_id = a->buf->device;
  t->ndim = a->ndim;
  t->dtype = nd__dl_types[a->dtype];
  t->shape = e->shape;
  t->strides = e->strides;
  t->byte_offset = 0;
}

nd_status nd_array_to_dlpack(const nd_array *a, int64_t stream, struct DLManagedTensorVersioned **out) {
  const char *fn = "nd_array_to_dlpack";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  nd__dl_block *e;
  ND_TRY(nd__dl_export(fn, a, stream, &e));
  struct DLManagedTensorVersioned *m = &e->m.v;
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  m->manager_ctx = e;
  m->deleter = nd__dl_delete_versioned;
  m->flags = a->writeable ? 0 : DLPACK_FLAG_BITMASK_READ_ONLY;
  nd__dl_fill(a, e, &m->dl_tensor);
  *out = m;
  return ND_OK;
}

nd_status nd_array_to_dlpack_legacy(const nd_array *a, int64_t stream, DLManagedTensor **out) {
  const char *fn = "nd_array_to_dlpack_legacy";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  nd__dl_block *e;
  ND_TRY(nd__dl_export(fn, a, stream, &e));
  DLManagedTensor *m = &e->m.legacy;
  m->manager_ctx = e;
  m->deleter = nd__dl_delete_legacy;
  nd__dl_fill(a, e, &m->dl_tensor);
  *out = m;
  return ND_OK;
}

/* ---- import -------------------------------------------------------------------------------- */

static void nd__dl_release_versioned(void *ptr, void *ctx) {
  (void)ptr;
  struct DLManagedTensorVersioned *m = ctx;
  if (m->deleter != NULL) m->deleter(m);
}

static void nd__dl_release_legacy(void *ptr, void *ctx) {
  (void)ptr;
  DLManagedTensor *m = ctx;
  if (m->deleter != NULL) m->deleter(m);
}

static const char *nd__dl_device_name(int32_t type) {
  switch (type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLROCM: return "kDLROCM";
    case kDLCUDAManaged: return "kDLCUDAManaged";
    default: return "another device type";
  }
}

static nd_status nd__dl_import(const char *fn, const DLTensor *t, int read_only, nd__release_fn release,
                               void *ctx, nd_array **out) {
  if (t->device.device_type != kDLCUDA && t->device.device_type != kDLCUDAManaged)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: device type %d (%s) is not supported (CUDA device "
                     "or managed memory expected)", fn, (int)t->device.device_type,
                     nd__dl_device_name((int32_t)t->device.device_type));
  nd_dtype dt = ND_BOOL;
  ND_TRY(nd__dtype_from_dl(fn, t->dtype, &dt));
  if (t->ndim < 0 || t->ndim > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside [0, %d]", fn, (int)t->ndim, ND_MAXDIMS);
  if (t->ndim > 0 && t->shape == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: the tensor's shape is NULL", fn);
  const int ndim = t->ndim;
  const int64_t item = (int64_t)nd_dtype_itemsize(dt);
  int64_t count, nbytes, strides[ND_MAXDIMS];
  ND_TRY(nd__shape_nbytes(fn, ndim, t->shape, item, &count, &nbytes));
  if (t->strides == NULL) {
    nd__strides_c(ndim, t->shape, item, strides);
  } else {
    for (int i = 0; i < ndim; i++)
      if (__builtin_mul_overflow(t->strides[i], item, &strides[i]))
        return nd__error(ND_ERR_OVERFLOW, "%s: stride %lld of axis %d overflows in bytes", fn,
                         (long long)t->strides[i], i);
  }
  char *ptr = (char *)t->data + t->byte_offset;
  if (count > 0 && t->data == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: the tensor's data is NULL", fn);
  if ((uintptr_t)ptr % (uintptr_t)item != 0)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: data + byte_offset = %p is not aligned to the %lld-byte "
                     "itemsize of %s", fn, (void *)ptr, (long long)item, nd_dtype_name(dt));
  /* The extent reached from element 0 (negative strides reach below it). */
  int64_t lo = 0, hi = count > 0 ? item : 0;
  for (int i = 0; i < ndim && count > 0; i++) {
    int64_t span;
    if (__builtin_mul_overflow(t->shape[i] - 1, strides[i], &span) ||
        (span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi)))
      return nd__error(ND_ERR_OVERFLOW, "%s: the tensor's extent overflows", fn);
  }
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) (void)cudaGetLastError();
  if (t->device.device_id < 0 || t->device.device_id >= n)
    return nd__error(n > 0 ? ND_ERR_INVALID_ARGUMENT : ND_ERR_NO_DEVICE, "%s: device %d does not exist "
                     "(%d devices)", fn, (int)t->device.device_id, n);
  /* The buffer starts at the lowest element, so its extent is [0, hi - lo). */
  nd__buffer *b;
  ND_TRY(nd__buffer_wrap(fn, ptr + lo, hi - lo, (int)t->device.device_id, release, ctx, &b));
  nd_status st = nd__array_new(fn, b, dt, ndim, t->shape, strides, -lo, out);
  if (st != ND_OK) b->release = NULL; /* not consumed: the caller keeps the tensor */
  nd__buffer_release(b);
  if (st == ND_OK && read_only) (*out)->writeable = 0;
  return st;
}

nd_status nd_array_from_dlpack(struct DLManagedTensorVersioned *tensor, nd_array **out) {
  const char *fn = "nd_array_from_dlpack";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, tensor);
  ND_CHECK_NULL(fn, out);
  if (tensor->version.major != DLPACK_MAJOR_VERSION)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: DLPack version %u.%u is not supported (major version "
                     "%d expected)", fn, tensor->version.major, tensor->version.minor, DLPACK_MAJOR_VERSION);
  return nd__dl_import(fn, &tensor->dl_tensor, (tensor->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0,
                       nd__dl_release_versioned, tensor, out);
}

nd_status nd_array_from_dlpack_legacy(DLManagedTensor *tensor, nd_array **out) {
  const char *fn = "nd_array_from_dlpack_legacy";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, tensor);
  ND_CHECK_NULL(fn, out);
  return nd__dl_import(fn, &tensor->dl_tensor, 0, nd__dl_release_legacy, tensor, out);
}
