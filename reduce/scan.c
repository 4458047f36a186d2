/* Scans (cumsum, cumprod, cumulative_sum, cumulative_prod) and diff.
 *
 * A scan runs on contiguous rows with the scanned axis last, in the storage dtype of
 * nd__scan_storage (64-bit integers, float32 for float16, ...). The input is used in place
 * when it already is such rows; otherwise it is gathered (and converted, through the result
 * dtype where NumPy's per-element cast demands it) by the copy kernels. The scan writes
 * straight into the result when that is contiguous rows of the storage dtype (the common
 * 1-d and last-axis cases), else into the gathered buffer, which is then scattered back. */
#include <string.h>

#include "reduce/scan.h"
#include "reduce/reduce_internal.h"

/* A view of a with axis ax moved last. */
static nd_status nd__axis_last(const char *fn, const nd_array *a, int ax, nd_array **out) {
  return nd__move_axes_last(fn, a, UINT64_C(1) << ax, out);
}

/* A view of a (axis ax last) restricted to [start, start + len) along that last axis. */
static nd_status nd__last_range(const char *fn, const nd_array *a, int64_t start, int64_t len,
                                nd_array **out) {
  int64_t shape[ND_MAXDIMS];
  memcpy(shape, a->shape, sizeof shape);
  shape[a->ndim - 1] = len;
  return nd__array_view(fn, a, a->ndim, shape, a->strides,
                        a->offset + start * a->strides[a->ndim - 1], 1, out);
}

static int nd__is_c(const nd_array *a) {
  return nd__is_c_contiguous(a->ndim, a->shape, a->strides, (int64_t)nd_dtype_itemsize(a->dtype));
}

/* dst[...] = src[...] converted through dtype `via` first when via >= 0. */
static nd_status nd__assign_via(const char *fn, nd_array *dst, const nd_array *src, int via) {
  if (via < 0 || (nd_dtype)via == dst->dtype || (nd_dtype)via == src->dtype)
    return nd__assign(fn, dst, src);
  nd_array *t;
  ND_TRY(nd__array_alloc(fn, src->ndim, src->shape, (nd_dtype)via, 'C', &t));
  nd_status st = nd__assign(fn, t, src);
  if (st == ND_OK) st = nd__assign(fn, dst, t);
  nd_array_release(t);
  return st;
}

static nd_status nd__scan_rows(const char *fn, const nd_array *x, nd_array *y, int prod,
                               int64_t rows, int64_t n) {
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, y, &s));
  const void *in = (const char *)x->buf->ptr + x->offset;
  void *outp = (char *)y->buf->ptr + y->offset;
  size_t bytes = 0;
  ND_TRY(nd_k_scan(in, outp, (int)y->dtype, prod, rows, n, NULL, &bytes, s->cu));
  nd__buffer *tmp = NULL;
  ND_TRY(nd__buffer_alloc(fn, s->device, s, (int64_t)(bytes ? bytes : 1), &tmp));
  nd__sync sync;
  nd__sync_init(&sync, s);
  nd_status st = nd__sync_add(&sync, &x->buf->hz, ND__READ);
  if (st == ND_OK) st = nd__sync_add(&sync, &y->buf->hz, ND__WRITE);
  if (st == ND_OK) st = nd__sync_add(&sync, &tmp->hz, ND__WRITE);
  if (st == ND_OK) st = nd__sync_begin(&sync);
  if (st == ND_OK) {
    st = nd_k_scan(in, outp, (int)y->dtype, prod, rows, n, tmp->ptr, &bytes, s->cu);
    if (st != ND_OK) st = nd__error_context(st, fn);
    nd_status e = nd__sync_end(&sync);
    if (st == ND_OK) st = e;
  }
  nd__buffer_release(tmp);
  return st;
}

static nd_status nd__scan(const char *fn, int prod, const nd_array *a, int64_t axis,
                          int cumulative, nd_dtype dtype, int include_initial, nd_array *out,
                          nd_array **result) {
  ND_CHECK_NULL(fn, a);
  ND_CHECK_RESULT(fn, out, result);
  nd_dtype res;
  int acc;
  ND_TRY(nd__reduce_dtypes(fn, prod ? ND__R_CUMPROD : ND__R_CUMSUM, a->dtype, dtype, &res, &acc));
  int ax = 0;
  if (cumulative) {
    if (a->ndim == 0)
      return nd__error(ND_ERR_VALUE, "%s: cumulative operations need an array of at least one "
                       "dimension (got a 0-d array)", fn);
    if (axis == ND_AXIS_NONE && a->ndim != 1)
      return nd__error(ND_ERR_AXIS, "%s: For arrays which have more than one dimension ``axis`` "
                       "argument is required (ndim %d).", fn, a->ndim);
    if (axis != ND_AXIS_NONE) ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  } else if (axis != ND_AXIS_NONE) {
    ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  }
  nd_array *src;
  if (axis == ND_AXIS_NONE && a->ndim != 1) ND_TRY(nd_array_ravel(a, &src));
  else src = nd_array_retain((nd_array *)a);
  nd__raxes rs; /* only the result shape is used */
  memset(&rs, 0, sizeof rs);
  rs.out_ndim = src->ndim;
  memcpy(rs.out_shape, src->shape, (size_t)src->ndim * sizeof(int64_t));
  rs.out_shape[ax] += include_initial ? 1 : 0;
  nd_status st = ND_OK;
  if (out != NULL) {
    st = nd__check_out(fn, out, rs.out_ndim, rs.out_shape, res, ND_CASTING_SAME_KIND);
    if (st == ND_OK && out->buf->device != a->buf->device)
      st = nd__error(ND_ERR_DEVICE_MISMATCH, "%s: input on device %d, out on device %d", fn,
                     a->buf->device, out->buf->device);
  }
  nd_array *dst = NULL;
  if (st == ND_OK) st = nd__result_dst(fn, a, &rs, res, out, &dst);
  if (st != ND_OK) {
    nd_array_release(src);
    return st;
  }
  const nd_dtype S = nd__scan_storage(res);
  const int via = nd__reduce_via(a->dtype, res);
  const int64_t n = src->shape[ax];
  nd_array *dv = NULL, *dscan = NULL, *dinit = NULL, *sm = NULL, *x = NULL, *y = NULL;
  st = nd__axis_last(fn, dst, ax, &dv);
  if (st == ND_OK && include_initial) {
    st = nd__last_range(fn, dv, 0, 1, &dinit);
    if (st == ND_OK) st = nd_array_fill(dinit, prod ? nd_scalar_int(1) : nd_scalar_int(0));
  }
  if (st == ND_OK) st = nd__last_range(fn, dv, include_initial ? 1 : 0, n, &dscan);
  if (st == ND_OK && src->size > 0) {
    const int64_t rows = src->size / n;
    st = nd__axis_last(fn, src, ax, &sm);
    /* x: the input as contiguous rows of S. */
    if (st == ND_OK) {
      if (nd__is_c(sm) && sm->dtype == S && via < 0) {
        x = nd_array_retain(sm);
      } else {
        st = nd__array_alloc(fn, sm->ndim, sm->shape, S, 'C', &x);
        if (st == ND_OK) st = nd__assign_via(fn, x, sm, via);
      }
    }
    /* y: where the scan lands. */
    if (st == ND_OK) {
      if (nd__is_c(dscan) && dscan->dtype == S) y = nd_array_retain(dscan);
      else if (x != sm) y = nd_array_retain(x);
      else st = nd__array_alloc(fn, sm->ndim, sm->shape, S, 'C', &y);
    }
    if (st == ND_OK) st = nd__scan_rows(fn, x, y, prod, rows, n);
    if (st == ND_OK && y != dscan)
      st = nd__assign_via(fn, dscan, y, (res != S && dscan->dtype != res) ? (int)res : -1);
  }
  nd_array_release(dv);
  nd_array_release(dscan);
  nd_array_release(dinit);
  nd_array_release(sm);
  nd_array_release(x);
  nd_array_release(y);
  nd_array_release(src);
  return nd__result_finish(fn, dst, out, st, result);
}

nd_status nd_cumsum(const nd_array *a, int64_t axis, nd_dtype dtype, nd_array *out, nd_array **result) {
  return nd__scan("nd_cumsum", 0, a, axis, 0, dtype, 0, out, result);
}

nd_status nd_cumprod(const nd_array *a, int64_t axis, nd_dtype dtype, nd_array *out, nd_array **result) {
  return nd__scan("nd_cumprod", 1, a, axis, 0, dtype, 0, out, result);
}

nd_status nd_cumulative_sum(const nd_array *a, int64_t axis, nd_dtype dtype, int include_initial,
                            nd_array *out, nd_array **result) {
  return nd__scan("nd_cumulative_sum", 0, a, axis, 1, dtype, include_initial != 0, out, result);
}

nd_status nd_cumulative_prod(const nd_array *a, int64_t axis, nd_dtype dtype, int include_initial,
                             nd_array *out, nd_array **result) {
  return nd__scan("nd_cumulative_prod", 1, a, axis, 1, dtype, include_initial != 0, out, result);
}

/* ---- diff ------------------------------------------------------------------------------------ */

nd_status nd_diff(const nd_array *a, int64_t n, int64_t axis, nd_array **result) {
  const char *fn = "nd_diff";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, result);
  if (n < 0) return nd__error(ND_ERR_VALUE, "%s: order must be non-negative but got %lld", fn, (long long)n);
  /* NumPy returns the input itself for n = 0, before it looks at the axis or the dimensions. */
  if (n == 0) {
    *result = nd_array_retain((nd_array *)a);
    return ND_OK;
  }
  if (a->ndim == 0)
    return nd__error(ND_ERR_VALUE, "%s: diff requires input that is at least one dimensional", fn);
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  nd_array *cur = nd_array_retain((nd_array *)a);
  const int op = a->dtype == ND_BOOL ? ND_KB_NE : ND_KB_SUB;
  for (int64_t it = 0; it < n; it++) {
    int64_t len = cur->shape[ax], nlen = len > 0 ? len - 1 : 0;
    int64_t shape[ND_MAXDIMS];
    memcpy(shape, cur->shape, sizeof shape);
    shape[ax] = nlen;
    nd_array *hi = NULL, *lo = NULL, *nxt = NULL;
    nd_status st = nd__array_view(fn, cur, cur->ndim, shape, cur->strides,
                                  cur->offset + (nlen > 0 ? cur->strides[ax] : 0), 0, &hi);
    if (st == ND_OK) st = nd__array_view(fn, cur, cur->ndim, shape, cur->strides, cur->offset, 0, &lo);
    if (st == ND_OK) st = nd__array_alloc(fn, cur->ndim, shape, a->dtype, 'C', &nxt);
    if (st == ND_OK) st = nd__binary(fn, op, nxt, hi, lo);
    nd_array_release(hi);
    nd_array_release(lo);
    nd_array_release(cur);
    if (st != ND_OK) {
      nd_array_release(nxt);
      return st;
    }
    cur = nxt;
    if (nlen == 0) break; /* further differences stay empty */
  }
  *result = cur;
  return ND_OK;
}
