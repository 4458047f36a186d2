/* Statistics built from several passes: median, quantile/percentile (sort the reduced
 * elements of each output, then read them), and average (weighted sums). */
#include <stdlib.h>
#include <string.h>

#include "src/api_scope.h"
#include "reduce/reduce_internal.h"

/* ---- median and quantiles ------------------------------------------------------------------- */

static nd_status nd__quantile_impl(const char *fn, int median, const nd_array *a, int64_t nq,
                                   const double *q, int q_is_array, double scale, int naxes,
                                   const int64_t *axes, int keepdims, nd_array *out,
                                   nd_array **result) {
  ND_CHECK_NULL(fn, a);
  ND_CHECK_RESULT(fn, out, result);
  if (!median) {
    if (nq < 0) return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: nq %lld is negative", fn, (long long)nq);
    if (nq > 0) ND_CHECK_NULL(fn, q);
    for (int64_t i = 0; i < nq; i++) {
      double v = q[i] / scale;
      if (!(v >= 0.0 && v <= 1.0))
        return nd__error(ND_ERR_VALUE, scale == 1.0 ? "%s: Quantiles must be in the range [0, 1] "
                         "(q[%lld] = %g)" : "%s: Percentiles must be in the range [0, 100] "
                         "(q[%lld] = %g)", fn, (long long)i, q[i]);
    }
  }
  nd__raxes rs;
  ND_TRY(nd__reduce_axes(fn, a->ndim, a->shape, naxes, axes, keepdims, &rs));
  nd_dtype res;
  int acc;
  nd__rop op = median ? ND__R_MEDIAN : ND__R_QUANTILE;
  ND_TRY(nd__reduce_dtypes(fn, op, a->dtype, ND_DTYPE_DEFAULT, &res, &acc));
  /* NumPy interpolates in the dtype of q and the data together: a bool array cannot be
   * subtracted (TypeError), and an array of q is float64, so several quantiles of float32 or
   * float16 data come back as float64 (one Python-float q is weak and keeps the data's dtype). */
  if (!median && a->dtype == ND_BOOL)
    return nd__error(ND_ERR_DTYPE, "%s: quantiles of a bool array are refused (NumPy: numpy boolean "
                     "subtract, the `-` operator, is not supported)", fn);
  if (q_is_array) res = ND_FLOAT64;
  ND_TRY(nd__reduce_check_empty(fn, op, rs.count));
  /* Result shape: (nq,) + the reduction's shape for an array of q. */
  nd__raxes ors = rs;
  if (q_is_array) {
    if (rs.out_ndim + 1 > ND_MAXDIMS)
      return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: the result would have more than %d dimensions",
                       fn, ND_MAXDIMS);
    ors.out_ndim = rs.out_ndim + 1;
    ors.out_shape[0] = nq;
    memcpy(ors.out_shape + 1, rs.out_shape, (size_t)rs.out_ndim * sizeof(int64_t));
  }
  if (out != NULL) {
    ND_TRY(nd__check_out(fn, out, ors.out_ndim, ors.out_shape, res, nd__reduce_out_casting(op)));
    if (out->buf->device != a->buf->device)
      return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: input on device %d, out on device %d", fn,
                       a->buf->device, out->buf->device);
  }
  nd_array *dst;
  ND_TRY(nd__result_dst(fn, a, &ors, res, out, &dst));
  nd_status st = ND_OK;
  nd_array *moved = NULL, *flat = NULL, *rows = NULL, *qdev = NULL;
  const int64_t M = rs.outputs, K = rs.count, nout = median ? M : nq * M;
  if (nout > 0) {
    /* The reduced elements of each output, contiguous and sorted: one row per output, rows
     * in the kept axes' C order. */
    int64_t shape2[2] = {M, K}, strides2[2];
    nd__strides_c(2, shape2, (int64_t)nd_dtype_itemsize(a->dtype), strides2);
    st = nd__move_axes_last(fn, a, rs.mask, &moved);
    if (st == ND_OK) st = nd__array_alloc(fn, moved->ndim, moved->shape, a->dtype, 'C', &flat);
    if (st == ND_OK) st = nd__assign(fn, flat, moved);
    if (st == ND_OK) st = nd__array_view(fn, flat, 2, shape2, strides2, flat->offset, 1, &rows);
    if (st == ND_OK && K > 1) st = nd__sort_rows(fn, rows, rows);
    if (st == ND_OK && !median) {
      double *qs = malloc((size_t)nq * sizeof(double));
      if (qs == NULL) {
        st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for %lld quantiles", fn, (long long)nq);
      } else {
        for (int64_t i = 0; i < nq; i++) qs[i] = q[i] / scale;
        st = nd_array_from_host(qs, (size_t)nq * sizeof(double), 1, &nq, ND_FLOAT64, &qdev);
        free(qs);
      }
    }
    nd_stream *s = NULL;
    if (st == ND_OK) st = nd__array_stream(fn, a, &s);
    if (st == ND_OK) {
      nd_kquantile kq;
      memset(&kq, 0, sizeof kq);
      kq.sorted = (const char *)rows->buf->ptr + rows->offset;
      kq.dtype = (int)a->dtype;
      kq.rows = M;
      kq.n = K;
      kq.q = qdev ? (const double *)((const char *)qdev->buf->ptr + qdev->offset) : NULL;
      kq.nq = median ? 1 : nq;
      kq.median = median;
      kq.out = (char *)dst->buf->ptr + dst->offset;
      kq.out_dtype = (int)dst->dtype;
      kq.res_dtype = (int)res;
      kq.qstride = q_is_array ? dst->strides[0] : 0;
      for (int i = 0, o = q_is_array ? 1 : 0; i < a->ndim; i++) {
        int reduced = (rs.mask >> i) & 1;
        if (!reduced) {
          kq.kshape[kq.nk] = a->shape[i];
          kq.kout[kq.nk++] = dst->strides[o];
        }
        if (!reduced || keepdims) o++;
      }
      nd__sync sync;
      nd__sync_init(&sync, s);
      st = nd__sync_add(&sync, &rows->buf->hz, ND__READ);
      if (st == ND_OK && qdev) st = nd__sync_add(&sync, &qdev->buf->hz, ND__READ);
      if (st == ND_OK) st = nd__sync_add(&sync, &dst->buf->hz, ND__WRITE);
      if (st == ND_OK) st = nd__sync_begin(&sync);
      if (st == ND_OK) {
        st = nd_k_quantile(&kq, s->cu);
        if (st != ND_OK) st = nd__error_context(st, fn);
        nd_status e = nd__sync_end(&sync);
        if (st == ND_OK) st = e;
      }
    }
  }
  nd_array_release(moved);
  nd_array_release(flat);
  nd_array_release(rows);
  nd_array_release(qdev);
  return nd__result_finish(fn, dst, out, st, result);
}

nd_status nd_median(const nd_array *a, int naxes, const int64_t *axes, int keepdims, nd_array *out,
                    nd_array **result) {
  return nd__quantile_impl("nd_median", 1, a, 0, NULL, 0, 1.0, naxes, axes, keepdims, out, result);
}

nd_status nd_quantile(const nd_array *a, double q, int naxes, const int64_t *axes, int keepdims,
                      nd_array *out, nd_array **result) {
  return nd__quantile_impl("nd_quantile", 0, a, 1, &q, 0, 1.0, naxes, axes, keepdims, out, result);
}

nd_status nd_percentile(const nd_array *a, double q, int naxes, const int64_t *axes, int keepdims,
                        nd_array *out, nd_array **result) {
  return nd__quantile_impl("nd_percentile", 0, a, 1, &q, 0, 100.0, naxes, axes, keepdims, out,
                           result);
}

nd_status nd_quantiles(const nd_array *a, int64_t nq, const double *q, int naxes,
                       const int64_t *axes, int keepdims, nd_array *out, nd_array **result) {
  return nd__quantile_impl("nd_quantiles", 0, a, nq, q, 1, 1.0, naxes, axes, keepdims, out, result);
}

nd_status nd_percentiles(const nd_array *a, int64_t nq, const double *q, int naxes,
                         const int64_t *axes, int keepdims, nd_array *out, nd_array **result) {
  return nd__quantile_impl("nd_percentiles", 0, a, nq, q, 1, 100.0, naxes, axes, keepdims, out,
                           result);
}

/* ---- average ------------------------------------------------------------------------------- */

static nd_status nd__sum_into(const char *fn, const nd_array *a, const nd__raxes *rs, nd_dtype res,
                              nd_array *dst) {
  nd__rpass ps;
  memset(&ps, 0, sizeof ps);
  nd_dtype r2;
  int acc;
  ND_TRY(nd__reduce_dtypes(fn, ND__R_SUM, a->dtype, res, &r2, &acc));
  ps.op = ND_KR_SUM;
  ps.acc = acc;
  ps.res = r2;
  ps.via = nd__reduce_via(a->dtype, r2);
  return nd__reduce_run(fn, a, rs, &ps, dst);
}

nd_status nd_average(const nd_array *a, int naxes, const int64_t *axes, const nd_array *weights,
                     int keepdims, nd_array **result, nd_array **sum_of_weights) {
  const char *fn = "nd_average";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, result);
  nd__raxes rs;
  ND_TRY(nd__reduce_axes(fn, a->ndim, a->shape, naxes, axes, keepdims, &rs));
  if (weights == NULL) {
    nd_array *avg;
    ND_TRY(nd_mean(a, naxes, axes, keepdims, ND_DTYPE_DEFAULT, NULL, &avg));
    if (sum_of_weights != NULL) {
      /* NumPy returns a.size / avg.size, in the result's dtype, of the result's shape. */
      double n = (double)rs.count;
      nd_dtype rd = avg->dtype;
      nd_scalar v = nd_dtype_kind(rd) == 'c' ? nd_scalar_complex(n, 0) : nd_scalar_float(n);
      nd_status st = nd_full(rs.out_ndim, rs.out_shape, v, rd, sum_of_weights);
      if (st != ND_OK) {
        nd_array_release(avg);
        return st;
      }
    }
    *result = avg;
    return ND_OK;
  }
  /* Weights of a's shape, or 1-d along the single reduced axis (broadcast over the rest). */
  int same = weights->ndim == a->ndim;
  for (int i = 0; same && i < a->ndim; i++) same = weights->shape[i] == a->shape[i];
  int64_t wstrides[ND_MAXDIMS];
  if (same) {
    memcpy(wstrides, weights->strides, sizeof wstrides);
  } else {
    if (naxes != 1 || axes == NULL)
      return nd__error(ND_ERR_SHAPE, "%s: Axis must be specified when shapes of a and weights "
                       "differ.", fn);
    if (weights->ndim != 1)
      return nd__error(ND_ERR_SHAPE, "%s: 1D weights expected when shapes of a and weights differ.", fn);
    int ax;
    ND_TRY(nd__normalize_axis(fn, axes[0], a->ndim, &ax));
    if (weights->shape[0] != a->shape[ax])
      return nd__error(ND_ERR_SHAPE, "%s: Length of weights not compatible with specified axis "
                       "(%lld weights, axis %d has length %lld).", fn,
                       (long long)weights->shape[0], ax, (long long)a->shape[ax]);
    for (int i = 0; i < a->ndim; i++) wstrides[i] = i == ax ? weights->strides[0] : 0;
  }
  if (weights->buf->device != a->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: a on device %d, weights on device %d", fn,
                     a->buf->device, weights->buf->device);
  char k = nd_dtype_kind(a->dtype);
  nd_dtype dts[3] = {a->dtype, weights->dtype, ND_FLOAT64}, res;
  ND_TRY(nd_result_type((k == 'b' || k == 'i' || k == 'u') ? 3 : 2, dts, &res));
  nd_array *wb = NULL, *prod = NULL, *num = NULL, *scl = NULL, *avg = NULL, *zeros = NULL;
  nd_status st = nd__array_view(fn, weights, a->ndim, a->shape, wstrides, weights->offset, 0, &wb);
  if (st == ND_OK) st = nd__array_alloc(fn, a->ndim, a->shape, res, 'C', &prod);
  if (st == ND_OK) st = nd__binary(fn, ND_KB_MUL, prod, a, wb);
  if (st == ND_OK) st = nd__array_alloc(fn, rs.out_ndim, rs.out_shape, res, 'C', &num);
  if (st == ND_OK) st = nd__array_alloc(fn, rs.out_ndim, rs.out_shape, res, 'C', &scl);
  if (st == ND_OK) st = nd__sum_into(fn, prod, &rs, res, num);
  if (st == ND_OK) st = nd__sum_into(fn, wb, &rs, res, scl);
  if (st == ND_OK && rs.outputs > 0) {
    /* NumPy raises when any weight sum is zero: count the nonzero sums (blocks). */
    nd__raxes all;
    nd_scalar c;
    st = nd__reduce_axes(fn, scl->ndim, scl->shape, 0, NULL, 0, &all);
    if (st == ND_OK) st = nd__array_alloc(fn, 0, NULL, ND_INT64, 'C', &zeros);
    if (st == ND_OK) {
      nd__rpass cp;
      memset(&cp, 0, sizeof cp);
      cp.op = ND_KR_COUNT;
      cp.acc = ND_KA_U64;
      cp.res = ND_INT64;
      cp.via = -1;
      st = nd__reduce_run(fn, scl, &all, &cp, zeros);
    }
    if (st == ND_OK) st = nd_array_item(zeros, &c);
    if (st == ND_OK && c.v.i != rs.outputs)
      st = nd__error(ND_ERR_VALUE, "%s: Weights sum to zero, can't be normalized", fn);
  }
  if (st == ND_OK && !same && rs.outputs == 0) {
    /* No outputs, but NumPy sums 1-d weights over their own length (broadcast to ones
     * elsewhere) and still raises when that sum is zero: an empty axis has no weight. */
    nd_array *ws = NULL;
    nd_scalar c;
    st = nd_sum(weights, 0, NULL, 0, res, NULL, &ws);
    if (st == ND_OK) st = nd_array_item(ws, &c);
    nd_array_release(ws);
    const int zero = nd_dtype_kind(res) == 'c' ? c.v.c[0] == 0 && c.v.c[1] == 0 : c.v.f == 0;
    if (st == ND_OK && zero) st = nd__error(ND_ERR_VALUE, "%s: Weights sum to zero, can't be normalized", fn);
  }
  if (st == ND_OK) st = nd__array_alloc(fn, rs.out_ndim, rs.out_shape, res, 'C', &avg);
  if (st == ND_OK) st = nd__binary(fn, ND_KB_DIV, avg, num, scl);
  nd_array_release(wb);
  nd_array_release(prod);
  nd_array_release(num);
  nd_array_release(zeros);
  if (st != ND_OK) {
    nd_array_release(scl);
    nd_array_release(avg);
    return st;
  }
  *result = avg;
  if (sum_of_weights != NULL) *sum_of_weights = scl;
  else nd_array_release(scl);
  return ND_OK;
}
