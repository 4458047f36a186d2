/* Small shared helpers of linalg/: contiguous converted copies, element strides, identities,
 * conjugating copies. Each enqueues on the current stream through the ordering model. */
#include <string.h>

#include "linalg/kernels.h"
#include "linalg/linalg_internal.h"

nd_status nd__linalg_contig(const char *fn, const nd_array *a, nd_dtype dtype, nd_array **out) {
  if (a->dtype == dtype && nd_array_is_c_contiguous(a)) {
    *out = nd_array_retain((nd_array *)a);
    return ND_OK;
  }
  nd_array *c;
  ND_TRY(nd__array_alloc(fn, a->ndim, a->shape, dtype, 'C', &c));
  nd_status st = nd__assign(fn, c, a);
  if (st != ND_OK) {
    nd_array_release(c);
    return st;
  }
  *out = c;
  return ND_OK;
}

int nd__elem_strides(const nd_array *a, int64_t *out) {
  const int64_t isz = (int64_t)nd_dtype_itemsize(a->dtype);
  for (int i = 0; i < a->ndim; i++) {
    if (a->strides[i] % isz != 0) return 0;
    out[i] = a->strides[i] / isz;
  }
  return 1;
}

nd_status nd__linalg_fill_identity(const char *fn, nd_array *a) {
  if (a->size == 0) return ND_OK;
  int64_t es[ND_MAXDIMS], bs;
  const int nd = a->ndim;
  if (!nd__elem_strides(a, es) || !nd__batch_single_stride(nd - 2, a->shape, a->strides, &bs))
    return nd__error(ND_ERR_INTERNAL, "%s: identity target has an unsupported layout", fn);
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  nd_lk_mat x = {(char *)a->buf->ptr + a->offset, bs / (int64_t)nd_dtype_itemsize(a->dtype), es[nd - 2], es[nd - 1]};
  int64_t batch = a->size / (a->shape[nd - 1] * a->shape[nd - 2]);
  nd__sync sync;
  nd__sync_init(&sync, s);
  ND_TRY(nd__sync_add(&sync, &a->buf->hz, ND__WRITE));
  ND_TRY(nd__sync_begin(&sync));
  nd_status st = nd_lk_identity(x, a->dtype, (int)a->shape[nd - 1], batch, s->cu);
  if (st != ND_OK) return nd__error_context(st, fn);
  return nd__sync_end(&sync);
}

nd_status nd__linalg_conj_assign(const char *fn, nd_array *dst, const nd_array *src) {
  if (src->dtype != ND_COMPLEX64 && src->dtype != ND_COMPLEX128) return nd__assign(fn, dst, src);
  if (dst->size == 0) return ND_OK;
  if (dst->dtype != src->dtype || nd__array_may_overlap(dst, src)) {
    nd_array *tmp;
    ND_TRY(nd__array_alloc(fn, src->ndim, src->shape, src->dtype, 'C', &tmp));
    nd_status st = nd__linalg_conj_assign(fn, tmp, src);
    if (st == ND_OK) st = nd__assign(fn, dst, tmp);
    nd_array_release(tmp);
    return st;
  }
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, dst, &s));
  nd__sync sync;
  nd__sync_init(&sync, s);
  ND_TRY(nd__sync_add(&sync, &src->buf->hz, ND__READ));
  ND_TRY(nd__sync_add(&sync, &dst->buf->hz, ND__WRITE));
  ND_TRY(nd__sync_begin(&sync));
  nd_kloop loop;
  nd_koperand ops[2];
  const nd_array *arr[2] = {dst, src};
  nd__array_loop(dst->ndim, dst->shape, 2, arr, &loop, ops);
  nd_status st = nd_lk_conj(&loop, &ops[0], &ops[1], s->cu);
  if (st != ND_OK) return nd__error_context(st, fn);
  return nd__sync_end(&sync);
}

nd_status nd__linalg_reduce_last(const char *fn, int op, int post, double p, const nd_array *x, nd_array *out) {
  if (out->size == 0) return ND_OK;
  const int nd = x->ndim;
  nd_array *head = NULL;
  /* x without its last axis, iterated together with out; the last axis is the inner loop. */
  ND_TRY(nd__array_view(fn, x, nd - 1, x->shape, x->strides, x->offset, 0, &head));
  nd_stream *s;
  nd_status st = nd__array_stream(fn, out, &s);
  nd__sync sync;
  nd__sync_init(&sync, s);
  if (st == ND_OK) st = nd__sync_add(&sync, &x->buf->hz, ND__READ);
  if (st == ND_OK) st = nd__sync_add(&sync, &out->buf->hz, ND__WRITE);
  if (st == ND_OK) st = nd__sync_begin(&sync);
  if (st == ND_OK) {
    nd_kloop loop;
    nd_koperand ops[2];
    const nd_array *arr[2] = {out, head};
    nd__array_loop(out->ndim, out->shape, 2, arr, &loop, ops);
    const int64_t len = nd > 0 ? x->shape[nd - 1] : 1, stride = nd > 0 ? x->strides[nd - 1] : 0;
    st = nd_lk_reduce(op, post, p, &loop, &ops[0], &ops[1], len, stride, s->cu);
    if (st != ND_OK) st = nd__error_context(st, fn);
    nd_status st2 = nd__sync_end(&sync);
    if (st == ND_OK) st = st2;
  }
  nd_array_release(head);
  return st;
}

nd_status nd__linalg_ctx(const char *fn, nd_status st) {
  if (st == ND_OK) return ND_OK;
  const size_t len = strlen(fn);
  const char *msg = nd_last_error();
  if (strncmp(msg, fn, len) == 0 && msg[len] == ':') return st;
  return nd__error_context(st, fn);
}
