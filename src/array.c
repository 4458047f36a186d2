/* Array headers: creation over buffers, accessors, reference counting, loop setup. */
#include <stdlib.h>
#include <string.h>

#include "src/array.h"
#include "src/device.h"

nd_status nd__check_dtype(const char *fn, const char *arg, nd_dtype dtype) {
  if (!nd_dtype_is_valid(dtype))
    return nd__error(ND_ERR_DTYPE, "%s: argument '%s' is not an array dtype (value %d)", fn, arg,
                     (int)dtype);
  return ND_OK;
}

nd_status nd__array_new(const char *fn, nd__buffer *buf, nd_dtype dtype, int ndim,
                        const int64_t *shape, const int64_t *strides, int64_t offset,
                        nd_array **out) {
  nd_array *a = malloc(sizeof *a);
  if (a == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for an array header", fn);
  atomic_init(&a->refs, 1);
  a->dtype = dtype;
  a->ndim = ndim;
  a->writeable = 1;
  a->owndata = 0;
  a->offset = offset;
  a->size = 1;
  for (int i = 0; i < ndim; i++) {
    a->shape[i] = shape[i];
    a->strides[i] = strides[i];
    a->size *= shape[i];
  }
  a->buf = buf;
  nd__buffer_retain(buf);
  *out = a;
  return ND_OK;
}

nd_status nd__array_stream(const char *fn, const nd_array *a, nd_stream **out) {
  nd__sync_name(fn);
  int d = -1;
  ND_TRY(nd__device_current(fn, &d));
  if (a != NULL && a->buf->device != d)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: an array on device %d was passed to an "
                     "operation on device %d (the calling thread's current device); move it "
                     "with nd_array_to_device or nd_copyto, or make its device current with "
                     "nd_device_set", fn, a->buf->device, d);
  *out = nd__stream_current_for(d);
  if (*out == NULL) return nd__error(ND_ERR_CUDA, "%s: no current stream on device %d", fn, d);
  return ND_OK;
}

nd_status nd__array_alloc(const char *fn, int ndim, const int64_t *shape, nd_dtype dtype,
                          char order, nd_array **out) {
  ND_CHECK_NULL(fn, out);
  ND_TRY(nd__check_dtype(fn, "dtype", dtype));
  int64_t count, nbytes, itemsize = (int64_t)nd_dtype_itemsize(dtype);
  ND_TRY(nd__shape_nbytes(fn, ndim, shape, itemsize, &count, &nbytes));
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, NULL, &s));
  int d = s->device;
  nd__buffer *buf;
  ND_TRY(nd__buffer_alloc(fn, d, s, nbytes, &buf));
  int64_t strides[ND_MAXDIMS];
  if (order == 'F')
    nd__strides_f(ndim, shape, itemsize, strides);
  else
    nd__strides_c(ndim, shape, itemsize, strides);
  nd_status st = nd__array_new(fn, buf, dtype, ndim, shape, strides, 0, out);
  nd__buffer_release(buf);
  if (st == ND_OK) (*out)->owndata = 1;
  return st;
}

nd_status nd__array_alloc_like(const char *fn, const nd_array *p, nd_dtype dtype, nd_array **out) {
  int nd = p->ndim;
  int64_t itemsize = (int64_t)nd_dtype_itemsize(dtype);
  /* Sort the axes by decreasing |stride| (stable, so ties keep C order), then lay the new
   * array out C-contiguously in that axis order. */
  int perm[ND_MAXDIMS];
  for (int i = 0; i < nd; i++) perm[i] = i;
  for (int i = 1; i < nd; i++) {
    int x = perm[i], j = i - 1;
    int64_t sx = llabs(p->strides[x]);
    while (j >= 0 && llabs(p->strides[perm[j]]) < sx) {
      perm[j + 1] = perm[j];
      j--;
    }
    perm[j + 1] = x;
  }
  int64_t pshape[ND_MAXDIMS], pstrides[ND_MAXDIMS], strides[ND_MAXDIMS];
  for (int i = 0; i < nd; i++) pshape[i] = p->shape[perm[i]];
  nd__strides_c(nd, pshape, itemsize, pstrides);
  for (int i = 0; i < nd; i++) strides[perm[i]] = pstrides[i];
  nd_array *a;
  ND_TRY(nd__array_alloc(fn, nd, p->shape, dtype, 'C', &a));
  memcpy(a->strides, strides, (size_t)nd * sizeof(int64_t));
  *out = a;
  return ND_OK;
}

nd_status nd__array_view(const char *fn, const nd_array *a, int ndim, const int64_t *shape,
                         const int64_t *strides, int64_t offset, int writeable, nd_array **out) {
  nd_array *v = NULL;
  ND_TRY(nd__array_new(fn, a->buf, a->dtype, ndim, shape, strides, offset, &v));
  v->writeable = a->writeable && writeable;
  *out = v;
  return ND_OK;
}

void nd__array_loop(int ndim, const int64_t *shape, int n, const nd_array *const *arrays,
                    nd_kloop *loop, nd_koperand *ops) {
  int64_t *st[16];
  loop->count = 1;
  for (int i = 0; i < ndim; i++) {
    loop->shape[i] = shape[i];
    loop->count *= shape[i];
  }
  for (int k = 0; k < n; k++) {
    ops[k].data = (char *)arrays[k]->buf->ptr + arrays[k]->offset;
    ops[k].dtype = arrays[k]->dtype;
    memcpy(ops[k].strides, arrays[k]->strides, (size_t)ndim * sizeof(int64_t));
    st[k] = ops[k].strides;
  }
  loop->ndim = nd__collapse_dims(ndim, loop->shape, n, st);
}

/* The byte extent [lo, hi) that a's elements occupy in its buffer. */
static void nd__array_extent(const nd_array *a, int64_t *lo, int64_t *hi) {
  int64_t l = a->offset, h = a->offset;
  for (int i = 0; i < a->ndim; i++) {
    int64_t span = (a->shape[i] - 1) * a->strides[i];
    if (span < 0) l += span;
    else h += span;
  }
  *lo = l;
  *hi = h + (int64_t)nd_dtype_itemsize(a->dtype);
}

int nd__array_may_overlap(const nd_array *a, const nd_array *b) {
  if (a->buf != b->buf || a->size == 0 || b->size == 0) return 0;
  int64_t al, ah, bl, bh;
  nd__array_extent(a, &al, &ah);
  nd__array_extent(b, &bl, &bh);
  return al < bh && bl < ah;
}

/* ---- public accessors --------------------------------------------------------------------- */

nd_array *nd_array_retain(nd_array *a) {
  if (a != NULL) atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
  return a;
}

void nd_array_release(nd_array *a) {
  if (a == NULL || atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1) return;
  nd__buffer_release(a->buf);
  free(a);
}

nd_dtype nd_array_dtype(const nd_array *a) { return a ? a->dtype : ND_DTYPE_DEFAULT; }
int nd_array_ndim(const nd_array *a) { return a ? a->ndim : -1; }
const int64_t *nd_array_shape(const nd_array *a) { return a ? a->shape : NULL; }
const int64_t *nd_array_strides(const nd_array *a) { return a ? a->strides : NULL; }
int64_t nd_array_dim(const nd_array *a, int axis) {
  if (a == NULL) return -1;
  if (axis < 0) axis += a->ndim;
  return axis >= 0 && axis < a->ndim ? a->shape[axis] : -1;
}
int64_t nd_array_size(const nd_array *a) { return a ? a->size : 0; }
size_t nd_array_itemsize(const nd_array *a) { return a ? nd_dtype_itemsize(a->dtype) : 0; }
int64_t nd_array_nbytes(const nd_array *a) { return a ? a->size * (int64_t)nd_dtype_itemsize(a->dtype) : 0; }
int64_t nd_array_offset(const nd_array *a) { return a ? a->offset : 0; }
int nd_array_device(const nd_array *a) { return a ? a->buf->device : -1; }
void *nd_array_data(const nd_array *a) {
  return a && a->buf->ptr ? (char *)a->buf->ptr + a->offset : NULL;
}
int nd_array_is_c_contiguous(const nd_array *a) {
  return a && nd__is_c_contiguous(a->ndim, a->shape, a->strides, (int64_t)nd_dtype_itemsize(a->dtype));
}
int nd_array_is_f_contiguous(const nd_array *a) {
  return a && nd__is_f_contiguous(a->ndim, a->shape, a->strides, (int64_t)nd_dtype_itemsize(a->dtype));
}
int nd_array_flags(const nd_array *a) {
  if (a == NULL) return 0;
  return (nd_array_is_c_contiguous(a) ? ND_ARRAY_C_CONTIGUOUS : 0) |
         (nd_array_is_f_contiguous(a) ? ND_ARRAY_F_CONTIGUOUS : 0) |
         (a->writeable ? ND_ARRAY_WRITEABLE : 0) | (a->owndata ? ND_ARRAY_OWNDATA : 0);
}
int nd_array_shares_buffer(const nd_array *a, const nd_array *b) {
  return a != NULL && b != NULL && a->buf == b->buf;
}

nd_status nd_array_set_writeable(nd_array *a, int writeable) {
  ND_CHECK_NULL("nd_array_set_writeable", a);
  if (writeable) {
    for (int i = 0; i < a->ndim; i++)
      if (a->strides[i] == 0 && a->shape[i] > 1)
        return nd__error(ND_ERR_READ_ONLY, "nd_array_set_writeable: axis %d has stride 0 "
                         "(a broadcast view repeats elements), so the array cannot be made "
                         "writeable", i);
  }
  a->writeable = writeable != 0;
  return ND_OK;
}

/* ---- the caller's own work in the ordering (array.h) ------------------------------------ */

static nd_status nd__access_args(const char *fn, const nd_array *a, int access, nd_stream **stream) {
  ND_CHECK_NULL(fn, a);
  if (access != ND_ACCESS_READ && access != ND_ACCESS_WRITE && access != ND_ACCESS_READ_WRITE)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: access must be ND_ACCESS_READ, ND_ACCESS_WRITE or "
                     "ND_ACCESS_READ_WRITE (got %d)", fn, access);
  if (*stream == NULL) return nd__array_stream(fn, a, stream);
  if (atomic_load(&(*stream)->destroyed))
    return nd__error(ND_ERR_STREAM, "%s: the stream has been destroyed", fn);
  if ((*stream)->device != a->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: array lives on device %d but the stream on device %d",
                     fn, a->buf->device, (*stream)->device);
  return ND_OK;
}

/* ND_ACCESS_* are the hazard modes themselves (ND__READ, ND__WRITE). */
_Static_assert((int)ND_ACCESS_READ == (int)ND__READ && (int)ND_ACCESS_WRITE == (int)ND__WRITE,
               "ND_ACCESS_* must match the hazard modes");

nd_status nd_array_wait(const nd_array *a, int access, nd_stream *stream) {
  const char *fn = "nd_array_wait";
  ND_TRY(nd__access_args(fn, a, access, &stream));
  nd__sync sync;
  nd__sync_init(&sync, stream);
  ND_TRY(nd__sync_add(&sync, &a->buf->hz, access));
  return nd__sync_begin(&sync);
}

nd_status nd_array_record(const nd_array *a, int access, nd_stream *stream) {
  const char *fn = "nd_array_record";
  ND_TRY(nd__access_args(fn, a, access, &stream));
  nd__sync sync;
  nd__sync_init(&sync, stream);
  ND_TRY(nd__sync_add(&sync, &a->buf->hz, access));
  return nd__sync_end(&sync);
}
