/* Reductions: argument checks, NumPy's dtype rules (reduce_plan.c), output handling, and the
 * kernel passes of reduce/reduce*.cu, each ordered by the hazard tracker on the current
 * stream. */
#include <string.h>

#include <cuda_runtime_api.h>

#include "src/api_scope.h"
#include "src/convert.h"
#include "src/device.h"
#include "reduce/reduce_internal.h"

/* ---- shared machinery ----------------------------------------------------------------------- */

nd_status nd__reduce_run(const char *fn, const nd_array *a, const nd__raxes *rs,
                         const nd__rpass *ps, nd_array *dst) {
  if (rs->outputs == 0) return ND_OK;
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  if (dst->buf->device != a->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: input on device %d, output on device %d", fn,
                     a->buf->device, dst->buf->device);
  /* Output strides of the kept axes, in axis order. */
  int64_t kept[ND_MAXDIMS];
  for (int i = 0, j = 0, o = 0; i < a->ndim; i++) {
    int reduced = (rs->mask >> i) & 1;
    if (!reduced) kept[j++] = dst->strides[o];
    if (!reduced || rs->keepdims) o++;
  }
  nd_kreduce p;
  memset(&p, 0, sizeof p);
  const int64_t isz = (int64_t)nd_dtype_itemsize(a->dtype);
  /* An unreadable device plans for one multiprocessor; the launch then reports its error. */
  const nd__device_props *dp = nd__device_props_of(s->device);
  int64_t flip = nd__reduce_plan(a->ndim, a->shape, a->strides, rs->mask, kept, ps->ordered, isz,
                                 dp != NULL ? dp->sm_count : 1, &p);
  p.l2_bytes = dp != NULL ? dp->l2_bytes : 0;
  p.in = (const char *)a->buf->ptr + a->offset + flip;
  p.in_dtype = (int)a->dtype;
  p.via_dtype = ps->via;
  p.out = (char *)dst->buf->ptr + dst->offset;
  p.out_dtype = (int)dst->dtype;
  p.res_dtype = (int)ps->res;
  p.op = ps->op;
  p.acc = ps->acc;
  p.flags = ps->flags;
  p.ddof = ps->ddof;
  p.center = ps->center ? (const char *)ps->center->buf->ptr + ps->center->offset : NULL;
  size_t wsb = 0;
  ND_TRY(nd_k_reduce(&p, NULL, &wsb, NULL));
  nd__buffer *ws = NULL;
  if (wsb > 0) ND_TRY(nd__buffer_alloc(fn, s->device, s, (int64_t)wsb, &ws));
  nd__sync sync;
  nd__sync_init(&sync, s);
  nd_status st = nd__sync_add(&sync, &a->buf->hz, ND__READ);
  if (st == ND_OK) st = nd__sync_add(&sync, &dst->buf->hz, ND__WRITE);
  if (st == ND_OK && ps->center) st = nd__sync_add(&sync, &ps->center->buf->hz, ND__READ);
  if (st == ND_OK && ws) st = nd__sync_add(&sync, &ws->hz, ND__WRITE);
  if (st == ND_OK) st = nd__sync_begin(&sync);
  if (st == ND_OK) {
    st = nd_k_reduce(&p, ws ? ws->ptr : NULL, NULL, s->cu);
    if (st != ND_OK) st = nd__error_context(st, fn);
    nd_status e = nd__sync_end(&sync);
    if (st == ND_OK) st = e;
  }
  if (ws) nd__buffer_release(ws);
  return st;
}

nd_status nd__result_dst(const char *fn, const nd_array *a, const nd__raxes *rs, nd_dtype dtype,
                         nd_array *out, nd_array **dst) {
  if (out != NULL && !nd__array_may_overlap(out, a)) {
    *dst = nd_array_retain(out);
    return ND_OK;
  }
  return nd__array_alloc(fn, rs->out_ndim, rs->out_shape, out ? out->dtype : dtype, 'C', dst);
}

nd_status nd__result_finish(const char *fn, nd_array *dst, nd_array *out, nd_status st,
                            nd_array **result) {
  if (st == ND_OK && out != NULL && dst != out) st = nd__assign(fn, out, dst);
  if (st != ND_OK) {
    nd_array_release(dst);
    return st;
  }
  if (out != NULL) {
    nd_array_release(dst);
    if (result) *result = nd_array_retain(out);
  } else if (result) {
    *result = dst;
  } else {
    nd_array_release(dst);
  }
  return ND_OK;
}

nd_status nd__binary(const char *fn, int op, nd_array *dst, const nd_array *a, const nd_array *b) {
  if (dst->size == 0) return ND_OK;
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, dst, &s));
  if (a->buf->device != dst->buf->device || b->buf->device != dst->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: operands on devices %d and %d, output on device %d", fn,
                     a->buf->device, b->buf->device, dst->buf->device);
  nd__sync sync;
  nd__sync_init(&sync, s);
  ND_TRY(nd__sync_add(&sync, &a->buf->hz, ND__READ));
  ND_TRY(nd__sync_add(&sync, &b->buf->hz, ND__READ));
  ND_TRY(nd__sync_add(&sync, &dst->buf->hz, ND__WRITE));
  ND_TRY(nd__sync_begin(&sync));
  nd_kloop loop;
  nd_koperand ops[3];
  const nd_array *arr[3] = {dst, a, b};
  nd__array_loop(dst->ndim, dst->shape, 3, arr, &loop, ops);
  nd_status st = nd_k_binary(op, &loop, &ops[0], &ops[1], &ops[2], s->cu);
  if (st != ND_OK) st = nd__error_context(st, fn);
  nd_status e = nd__sync_end(&sync);
  return st != ND_OK ? st : e;
}

nd_status nd__move_axes_last(const char *fn, const nd_array *a, uint64_t mask, nd_array **out) {
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS];
  int n = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < a->ndim; i++)
      if ((int)((mask >> i) & 1) == pass) {
        shape[n] = a->shape[i];
        strides[n++] = a->strides[i];
      }
  return nd__array_view(fn, a, a->ndim, shape, strides, a->offset, 1, out);
}

/* ---- the common path of the public reductions -------------------------------------------------- */

static int nd__inexact(nd_dtype d) { return nd_dtype_kind(d) == 'f' || nd_dtype_kind(d) == 'c'; }

static nd_dtype nd__acc_dtype(int acc) {
  static const nd_dtype t[] = {ND_INT64, ND_UINT64, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};
  return t[acc];
}

static nd_status nd__reduce(const char *fn, nd__rop op, const nd_array *a, int naxes,
                            const int64_t *axes, int one_axis, int64_t axis, int keepdims,
                            nd_dtype dtype, double ddof, nd_array *out, nd_array **result) {
  ND_CHECK_NULL(fn, a);
  ND_CHECK_RESULT(fn, out, result);
  nd__raxes rs;
  if (one_axis) ND_TRY(nd__reduce_axis1(fn, a->ndim, a->shape, axis, keepdims, &rs));
  else ND_TRY(nd__reduce_axes(fn, a->ndim, a->shape, naxes, axes, keepdims, &rs));
  nd_dtype res;
  int acc;
  ND_TRY(nd__reduce_dtypes(fn, op, a->dtype, dtype, &res, &acc));
  if (op == ND__R_PTP && a->dtype == ND_BOOL)
    return nd__error(ND_ERR_DTYPE, "%s: numpy boolean subtract, the `-` operator, is not "
                     "supported; ptp of a bool array is refused", fn);
  ND_TRY(nd__reduce_check_empty(fn, op, rs.count));
  if (out != NULL) {
    ND_TRY(nd__check_out(fn, out, rs.out_ndim, rs.out_shape, res, nd__reduce_out_casting(op)));
    if (out->buf->device != a->buf->device)
      return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: input on device %d, out on device %d", fn,
                       a->buf->device, out->buf->device);
  }
  /* nan* of exact types are their plain forms (and keep the typed fast paths). */
  int inexact = nd__inexact(a->dtype);
  if (!inexact) {
    if (op == ND__R_NANSUM) op = ND__R_SUM;
    else if (op == ND__R_NANMEAN) op = ND__R_MEAN;
    else if (op == ND__R_NANMIN) op = ND__R_MIN;
    else if (op == ND__R_NANMAX) op = ND__R_MAX;
  }
  nd__rpass ps;
  memset(&ps, 0, sizeof ps);
  ps.acc = acc;
  ps.res = res;
  ps.via = -1;
  switch (op) {
    case ND__R_SUM:
    case ND__R_PROD:
    case ND__R_NANSUM:
    case ND__R_MEAN:
      ps.op = ND_KR_SUM;
      ps.flags = op == ND__R_PROD ? ND_KRF_PROD : op == ND__R_NANSUM ? ND_KRF_NANSKIP
                 : op == ND__R_MEAN ? ND_KRF_MEAN : 0;
      ps.via = nd__reduce_via(a->dtype, res);
      break;
    case ND__R_NANMEAN:
      ps.op = ND_KR_NANMEAN;
      break;
    case ND__R_VAR:
    case ND__R_STD:
      ps.op = ND_KR_SQDEV;
      ps.flags = op == ND__R_STD ? ND_KRF_SQRT : 0;
      ps.ddof = ddof;
      break;
    case ND__R_MIN:
    case ND__R_MAX:
    case ND__R_NANMIN:
    case ND__R_NANMAX:
    case ND__R_PTP:
      ps.op = ND_KR_EXTREMA;
      ps.flags = (op == ND__R_MAX || op == ND__R_NANMAX ? ND_KRF_MAX : 0) |
                 (op == ND__R_PTP ? ND_KRF_PTP : 0) |
                 (op == ND__R_NANMIN || op == ND__R_NANMAX ? ND_KRF_NANSKIP : 0);
      break;
    case ND__R_ARGMIN:
    case ND__R_ARGMAX:
      ps.op = ND_KR_ARG;
      ps.flags = op == ND__R_ARGMAX ? ND_KRF_MAX : 0;
      ps.ordered = 1;
      break;
    case ND__R_ALL:
    case ND__R_ANY:
    case ND__R_COUNT_NONZERO:
      ps.op = ND_KR_COUNT;
      ps.flags = op == ND__R_ALL ? ND_KRF_ALL : op == ND__R_ANY ? ND_KRF_ANY : 0;
      break;
    default:
      return nd__error(ND_ERR_INTERNAL, "%s: reduction %d has no kernel pass", fn, (int)op);
  }
  nd_array *dst;
  ND_TRY(nd__result_dst(fn, a, &rs, res, out, &dst));
  nd_status st = ND_OK;
  nd_array *center = NULL;
  if (ps.op == ND_KR_SQDEV && rs.outputs > 0) {
    /* First pass: the means, contiguous in the kept axes' C order (which is the order in
     * which the second pass enumerates its outputs). */
    nd_dtype cdt = nd__acc_dtype(acc);
    st = nd__array_alloc(fn, rs.out_ndim, rs.out_shape, cdt, 'C', &center);
    if (st == ND_OK) {
      nd__rpass mp;
      memset(&mp, 0, sizeof mp);
      mp.op = ND_KR_SUM;
      mp.acc = acc;
      mp.flags = ND_KRF_MEAN;
      mp.res = cdt;
      mp.via = -1;
      st = nd__reduce_run(fn, a, &rs, &mp, center);
    }
    ps.center = center;
  }
  if (st == ND_OK) st = nd__reduce_run(fn, a, &rs, &ps, dst);
  nd_array_release(center);
  return nd__result_finish(fn, dst, out, st, result);
}

/* ---- public functions -------------------------------------------------------------------------- */

#define ND__SUMLIKE(name, op)                                                                     \
  nd_status name(const nd_array *a, int naxes, const int64_t *axes, int keepdims, nd_dtype dtype, \
                 nd_array *out, nd_array **result) {                                              \
    return nd__reduce(#name, op, a, naxes, axes, 0, 0, keepdims, dtype, 0, out, result);          \
  }
ND__SUMLIKE(nd_sum, ND__R_SUM)
ND__SUMLIKE(nd_prod, ND__R_PROD)
ND__SUMLIKE(nd_nansum, ND__R_NANSUM)
ND__SUMLIKE(nd_mean, ND__R_MEAN)
ND__SUMLIKE(nd_nanmean, ND__R_NANMEAN)
#undef ND__SUMLIKE

nd_status nd_var(const nd_array *a, int naxes, const int64_t *axes, int keepdims, nd_dtype dtype,
                 double ddof, nd_array *out, nd_array **result) {
  return nd__reduce("nd_var", ND__R_VAR, a, naxes, axes, 0, 0, keepdims, dtype, ddof, out, result);
}

nd_status nd_std(const nd_array *a, int naxes, const int64_t *axes, int keepdims, nd_dtype dtype,
                 double ddof, nd_array *out, nd_array **result) {
  return nd__reduce("nd_std", ND__R_STD, a, naxes, axes, 0, 0, keepdims, dtype, ddof, out, result);
}

#define ND__PLAIN(name, op)                                                                  \
  nd_status name(const nd_array *a, int naxes, const int64_t *axes, int keepdims, nd_array *out, \
                 nd_array **result) {                                                        \
    return nd__reduce(#name, op, a, naxes, axes, 0, 0, keepdims, ND_DTYPE_DEFAULT, 0, out,   \
                      result);                                                               \
  }
ND__PLAIN(nd_amin, ND__R_MIN)
ND__PLAIN(nd_amax, ND__R_MAX)
ND__PLAIN(nd_min, ND__R_MIN)
ND__PLAIN(nd_max, ND__R_MAX)
ND__PLAIN(nd_nanmin, ND__R_NANMIN)
ND__PLAIN(nd_nanmax, ND__R_NANMAX)
ND__PLAIN(nd_ptp, ND__R_PTP)
ND__PLAIN(nd_all, ND__R_ALL)
ND__PLAIN(nd_any, ND__R_ANY)
#undef ND__PLAIN

nd_status nd_count_nonzero(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                           nd_array **result) {
  ND_CHECK_NULL("nd_count_nonzero", result);
  return nd__reduce("nd_count_nonzero", ND__R_COUNT_NONZERO, a, naxes, axes, 0, 0, keepdims,
                    ND_DTYPE_DEFAULT, 0, NULL, result);
}

nd_status nd_argmin(const nd_array *a, int64_t axis, int keepdims, nd_array *out, nd_array **result) {
  return nd__reduce("nd_argmin", ND__R_ARGMIN, a, 0, NULL, 1, axis, keepdims, ND_DTYPE_DEFAULT, 0,
                    out, result);
}

nd_status nd_argmax(const nd_array *a, int64_t axis, int keepdims, nd_array *out, nd_array **result) {
  return nd__reduce("nd_argmax", ND__R_ARGMAX, a, 0, NULL, 1, axis, keepdims, ND_DTYPE_DEFAULT, 0,
                    out, result);
}

/* ---- item -------------------------------------------------------------------------------------- */

nd_status nd_array_item(const nd_array *a, nd_scalar *out) {
  const char *fn = "nd_array_item";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  if (a->size != 1)
    return nd__error(ND_ERR_VALUE, "%s: can only convert an array of size 1 to a Python scalar "
                     "(size %lld)", fn, (long long)a->size);
  unsigned char b[16];
  memset(b, 0, sizeof b);
  ND_TRY(nd_array_to_host(a, b, sizeof b));
  nd_scalar s;
  memset(&s, 0, sizeof s);
  s.dtype = a->dtype;
  switch (a->dtype) {
    case ND_BOOL: s.v.b = b[0] != 0; break;
    case ND_INT8: { int8_t x; memcpy(&x, b, 1); s.v.i = x; break; }
    case ND_INT16: { int16_t x; memcpy(&x, b, 2); s.v.i = x; break; }
    case ND_INT32: { int32_t x; memcpy(&x, b, 4); s.v.i = x; break; }
    case ND_INT64: memcpy(&s.v.i, b, 8); break;
    case ND_UINT8: s.v.u = b[0]; break;
    case ND_UINT16: { uint16_t x; memcpy(&x, b, 2); s.v.u = x; break; }
    case ND_UINT32: { uint32_t x; memcpy(&x, b, 4); s.v.u = x; break; }
    case ND_UINT64: memcpy(&s.v.u, b, 8); break;
    case ND_FLOAT16: { uint16_t x; memcpy(&x, b, 2); s.v.f = nd__half_to_double(x); break; }
    case ND_FLOAT32: { float x; memcpy(&x, b, 4); s.v.f = x; break; }
    case ND_FLOAT64: memcpy(&s.v.f, b, 8); break;
    case ND_COMPLEX64: { float x[2]; memcpy(x, b, 8); s.v.c[0] = x[0]; s.v.c[1] = x[1]; break; }
    case ND_COMPLEX128: memcpy(s.v.c, b, 16); break;
    default: return nd__error(ND_ERR_INTERNAL, "%s: array has an invalid dtype %d", fn, (int)a->dtype);
  }
  *out = s;
  return ND_OK;
}
