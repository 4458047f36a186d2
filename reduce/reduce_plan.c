/* Pure host logic of reductions and scans (see reduce_plan.h). */
#include <stdlib.h>
#include <string.h>

#include "src/convert.h"
#include "reduce/reduce_plan.h"

/* ---- axes ------------------------------------------------------------------------------- */

static void nd__raxes_finish(int ndim, const int64_t *shape, uint64_t mask, int keepdims,
                             nd__raxes *r) {
  r->ndim = ndim;
  r->mask = mask;
  r->keepdims = keepdims != 0;
  r->naxes = 0;
  r->out_ndim = 0;
  r->count = 1;
  r->outputs = 1;
  int64_t kzero = 0, rzero = 0;
  for (int i = 0; i < ndim; i++) {
    if (mask & (UINT64_C(1) << i)) {
      r->naxes++;
      if (shape[i] == 0) rzero = 1;
      else if (!rzero) r->count = r->count > INT64_MAX / shape[i] ? INT64_MAX : r->count * shape[i];
      if (keepdims) r->out_shape[r->out_ndim++] = 1;
    } else {
      if (shape[i] == 0) kzero = 1;
      else if (!kzero) r->outputs = r->outputs > INT64_MAX / shape[i] ? INT64_MAX : r->outputs * shape[i];
      r->out_shape[r->out_ndim++] = shape[i];
    }
  }
  /* Both products are bounded by the array's element count, which was checked when the
   * array was made; the saturation above only guards malformed headers. */
  if (rzero) r->count = 0;
  if (kzero) r->outputs = 0;
}

nd_status nd__reduce_axes(const char *fn, int ndim, const int64_t *shape, int naxes,
                          const int64_t *axes, int keepdims, nd__raxes *out) {
  ND_CHECK_NULL(fn, out);
  if (ndim < 0 || ndim > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: ndim %d is out of range [0, %d]", fn, ndim, ND_MAXDIMS);
  if (ndim > 0) ND_CHECK_NULL(fn, shape);
  uint64_t mask = 0;
  if (axes == NULL && naxes == 0) {
    mask = ndim == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << ndim) - 1);
  } else {
    /* nd__normalize_axes writes out[] only on success, when naxes <= ndim. */
    int tmp[ND_MAXDIMS];
    ND_TRY(nd__normalize_axes(fn, naxes, axes, ndim, tmp, &mask));
  }
  nd__raxes r;
  nd__raxes_finish(ndim, shape, mask, keepdims, &r);
  *out = r;
  return ND_OK;
}

nd_status nd__reduce_axis1(const char *fn, int ndim, const int64_t *shape, int64_t axis,
                           int keepdims, nd__raxes *out) {
  if (axis == ND_AXIS_NONE) return nd__reduce_axes(fn, ndim, shape, 0, NULL, keepdims, out);
  return nd__reduce_axes(fn, ndim, shape, 1, &axis, keepdims, out);
}

/* ---- dtypes ----------------------------------------------------------------------------- */

static int nd__is_int(nd_dtype d) { return nd_dtype_kind(d) == 'i' || nd_dtype_kind(d) == 'u'; }
static int nd__is_inexact(nd_dtype d) { return nd_dtype_kind(d) == 'f' || nd_dtype_kind(d) == 'c'; }

/* Accumulator of a sum-like result dtype. */
static int nd__sum_acc(nd_dtype res) {
  switch (res) {
    case ND_FLOAT16:
    case ND_FLOAT32: return ND_KA_F32;
    case ND_FLOAT64: return ND_KA_F64;
    case ND_COMPLEX64: return ND_KA_C64;
    case ND_COMPLEX128: return ND_KA_C128;
    default: return ND_KA_U64;
  }
}

/* Comparison type of min/max/argmin/argmax. */
static int nd__cmp_acc(nd_dtype in) {
  switch (nd_dtype_kind(in)) {
    case 'i': return ND_KA_I64;
    case 'f': return in == ND_FLOAT64 ? ND_KA_F64 : ND_KA_F32;
    case 'c': return ND_KA_C128;
    default: return ND_KA_U64; /* bool, unsigned */
  }
}

static const char *const nd__rop_names[ND__R_NUM_OPS] = {
    "sum", "prod", "nansum", "mean", "nanmean", "var", "std", "min", "max", "nanmin", "nanmax",
    "ptp", "argmin", "argmax", "all", "any", "count_nonzero", "median", "quantile", "cumsum",
    "cumprod"};

nd_status nd__reduce_dtypes(const char *fn, nd__rop op, nd_dtype in, nd_dtype requested,
                            nd_dtype *result, int *acc) {
  ND_CHECK_NULL(fn, result);
  ND_CHECK_NULL(fn, acc);
  if ((int)op < 0 || op >= ND__R_NUM_OPS)
    return nd__error(ND_ERR_INTERNAL, "%s: unknown reduction %d", fn, (int)op);
  if (!nd_dtype_is_valid(in))
    return nd__error(ND_ERR_DTYPE, "%s: input has an invalid dtype (value %d)", fn, (int)in);
  int has_req = requested != ND_DTYPE_DEFAULT;
  if (has_req && !nd_dtype_is_valid(requested))
    return nd__error(ND_ERR_DTYPE, "%s: argument 'dtype' is not an array dtype (value %d)", fn,
                     (int)requested);
  char k = nd_dtype_kind(in);
  nd_dtype res;
  int a;
  switch (op) {
    case ND__R_SUM:
    case ND__R_PROD:
    case ND__R_NANSUM:
    case ND__R_CUMSUM:
    case ND__R_CUMPROD:
      if (has_req) res = requested;
      else if (k == 'b' || (k == 'i' && in != ND_INT64)) res = ND_INT64;
      else if (k == 'u' && in != ND_UINT64) res = ND_UINT64;
      else res = in;
      a = nd__sum_acc(res);
      break;
    case ND__R_MEAN:
    case ND__R_NANMEAN:
      if (has_req) {
        if (op == ND__R_NANMEAN && nd__is_inexact(in) && !nd__is_inexact(requested))
          return nd__error(ND_ERR_DTYPE, "%s: dtype %s is not inexact; nanmean of %s needs a "
                           "float or complex dtype", fn, nd_dtype_name(requested), nd_dtype_name(in));
        res = requested;
      } else {
        res = (k == 'b' || nd__is_int(in)) ? ND_FLOAT64 : in;
      }
      a = nd__sum_acc(res);
      break;
    case ND__R_VAR:
    case ND__R_STD:
      if (has_req) {
        if (nd_dtype_kind(requested) != 'f')
          return nd__error(ND_ERR_DTYPE, "%s: dtype %s is not a float dtype", fn,
                           nd_dtype_name(requested));
        res = requested;
      } else if (k == 'c') {
        res = in == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64;
      } else if (k == 'f') {
        res = in;
      } else {
        res = ND_FLOAT64;
      }
      if (k == 'c') a = res == ND_FLOAT64 ? ND_KA_C128 : ND_KA_C64;
      else a = res == ND_FLOAT64 ? ND_KA_F64 : ND_KA_F32;
      break;
    case ND__R_MIN:
    case ND__R_MAX:
    case ND__R_NANMIN:
    case ND__R_NANMAX:
    case ND__R_PTP:
    case ND__R_ARGMIN:
    case ND__R_ARGMAX:
      if (has_req)
        return nd__error(ND_ERR_DTYPE, "%s: %s takes no dtype argument (got %s)", fn,
                         nd__rop_names[op], nd_dtype_name(requested));
      res = (op == ND__R_ARGMIN || op == ND__R_ARGMAX) ? ND_INT64 : in;
      a = nd__cmp_acc(in);
      break;
    case ND__R_ALL:
    case ND__R_ANY:
    case ND__R_COUNT_NONZERO:
      if (has_req)
        return nd__error(ND_ERR_DTYPE, "%s: %s takes no dtype argument (got %s)", fn,
                         nd__rop_names[op], nd_dtype_name(requested));
      res = op == ND__R_COUNT_NONZERO ? ND_INT64 : ND_BOOL;
      a = ND_KA_U64;
      break;
    case ND__R_MEDIAN:
    case ND__R_QUANTILE:
      if (has_req)
        return nd__error(ND_ERR_DTYPE, "%s: %s takes no dtype argument (got %s)", fn,
                         nd__rop_names[op], nd_dtype_name(requested));
      if (k == 'c')
        return nd__error(ND_ERR_DTYPE, "%s: %s of complex input is not supported", fn,
                         nd__rop_names[op]);
      res = k == 'f' ? in : ND_FLOAT64;
      a = res == ND_FLOAT64 ? ND_KA_F64 : ND_KA_F32;
      break;
    default:
      return nd__error(ND_ERR_INTERNAL, "%s: unknown reduction %d", fn, (int)op);
  }
  *result = res;
  *acc = a;
  return ND_OK;
}

int nd__reduce_via(nd_dtype in, nd_dtype res) {
  if (in == res) return -1;
  char rk = nd_dtype_kind(res), ik = nd_dtype_kind(in);
  if (rk == 'b' || res == ND_FLOAT16) return (int)res;
  if ((rk == 'i' || rk == 'u') && (ik == 'f' || ik == 'c')) return (int)res;
  return -1;
}

nd_dtype nd__scan_storage(nd_dtype res) {
  switch (nd_dtype_kind(res)) {
    case 'b':
    case 'i': return ND_INT64;
    case 'u': return ND_UINT64;
    default: return res == ND_FLOAT16 ? ND_FLOAT32 : res;
  }
}

int nd__reduce_has_identity(nd__rop op) {
  switch (op) {
    case ND__R_MIN:
    case ND__R_MAX:
    case ND__R_NANMIN:
    case ND__R_NANMAX:
    case ND__R_PTP:
    case ND__R_ARGMIN:
    case ND__R_ARGMAX:
    case ND__R_QUANTILE:
      return 0;
    default:
      return 1;
  }
}

nd_status nd__reduce_check_empty(const char *fn, nd__rop op, int64_t count) {
  if (count > 0 || nd__reduce_has_identity(op)) return ND_OK;
  switch (op) {
    case ND__R_ARGMIN:
    case ND__R_ARGMAX:
      return nd__error(ND_ERR_VALUE, "%s: attempt to get %s of an empty sequence", fn,
                       op == ND__R_ARGMIN ? "argmin" : "argmax");
    case ND__R_QUANTILE:
      return nd__error(ND_ERR_INDEX, "%s: cannot take a quantile of an empty sequence (index -1 "
                       "is out of bounds for axis 0 with size 0)", fn);
    default: {
      /* NumPy names the ufunc that reduces: maximum for max and ptp, fmin/fmax for nan*. */
      const char *u = op == ND__R_MIN      ? "minimum"
                      : op == ND__R_NANMIN ? "fmin"
                      : op == ND__R_NANMAX ? "fmax"
                                           : "maximum";
      return nd__error(ND_ERR_VALUE, "%s: zero-size array to reduction operation %s which has no "
                       "identity", fn, u);
    }
  }
}

nd_casting nd__reduce_out_casting(nd__rop op) {
  switch (op) {
    case ND__R_MEAN:
    case ND__R_NANMEAN:
    case ND__R_VAR:
    case ND__R_STD:
    case ND__R_MEDIAN:
    case ND__R_QUANTILE:
      return ND_CASTING_UNSAFE;
    case ND__R_ARGMIN:
    case ND__R_ARGMAX:
      return ND_CASTING_SAFE;
    default:
      return ND_CASTING_SAME_KIND;
  }
}

nd_status nd__check_out(const char *fn, const nd_array *out, int ndim, const int64_t *shape,
                        nd_dtype dtype, nd_casting casting) {
  ND_CHECK_NULL(fn, out);
  int same = out->ndim == ndim;
  for (int i = 0; same && i < ndim; i++) same = out->shape[i] == shape[i];
  if (!same) {
    char a[ND__SHAPE_STR], b[ND__SHAPE_STR];
    return nd__error(ND_ERR_SHAPE, "%s: output array has shape %s but the result has shape %s",
                     fn, nd__format_shape(a, sizeof a, out->ndim, out->shape),
                     nd__format_shape(b, sizeof b, ndim, shape));
  }
  if (!out->writeable)
    return nd__error(ND_ERR_READ_ONLY, "%s: output array is read-only (a broadcast view or "
                     "marked so)", fn);
  if (!nd_can_cast(dtype, out->dtype, casting))
    return nd__error(ND_ERR_CASTING, "%s: cannot cast the result from dtype('%s') to the output's "
                     "dtype('%s') according to the rule '%s'", fn, nd_dtype_name(dtype),
                     nd_dtype_name(out->dtype), nd_casting_name(casting));
  return ND_OK;
}

/* ---- launch plan ------------------------------------------------------------------------ */

static int64_t nd__ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

int64_t nd__reduce_plan(int ndim, const int64_t *shape, const int64_t *strides, uint64_t mask,
                        const int64_t *kept_out_strides, int ordered, int64_t itemsize, int sms,
                        nd_kreduce *p) {
  int64_t flip = 0, M = 1, K = 1;
  int nk = 0, nr = 0, j = 0;
  for (int i = 0; i < ndim; i++) {
    if (mask & (UINT64_C(1) << i)) {
      K *= shape[i];
      if (shape[i] != 1) {
        p->rshape[nr] = shape[i];
        p->rin[nr] = strides[i];
        nr++;
      }
    } else {
      M *= shape[i];
      if (shape[i] != 1) {
        p->kshape[nk] = shape[i];
        p->kin[nk] = strides[i];
        p->kout[nk] = kept_out_strides[j];
        nk++;
      }
      j++;
    }
  }
  if (K == 0) nr = 0;
  int64_t *ks[2] = {p->kin, p->kout};
  nk = M == 0 ? 0 : nd__collapse_dims(nk, p->kshape, 2, ks);
  if (!ordered) {
    /* Reduction order does not matter here: walk every reduced axis forwards, and put the
     * smallest stride innermost so that consecutive k are neighbours in memory. */
    for (int d = 0; d < nr; d++)
      if (p->rin[d] < 0) {
        flip += (p->rshape[d] - 1) * p->rin[d];
        p->rin[d] = -p->rin[d];
      }
    for (int a = 1; a < nr; a++) {
      int64_t s = p->rshape[a], t = p->rin[a];
      int b = a - 1;
      while (b >= 0 && p->rin[b] < t) {
        p->rshape[b + 1] = p->rshape[b];
        p->rin[b + 1] = p->rin[b];
        b--;
      }
      p->rshape[b + 1] = s;
      p->rin[b + 1] = t;
    }
  }
  int64_t *rs[1] = {p->rin};
  nr = nd__collapse_dims(nr, p->rshape, 1, rs);
  p->nk = nk;
  p->nr = nr;
  p->M = M;
  p->K = K;
  p->rcontig = nr == 1 && p->rin[0] == itemsize;

  int64_t rmin = INT64_MAX;
  for (int d = 0; d < nr; d++) rmin = llabs(p->rin[d]) < rmin ? llabs(p->rin[d]) : rmin;
  const int64_t target = (int64_t)(sms > 0 ? sms : 1) * ND__RED_BLOCKS_PER_SM;
  p->splits = 1;
  p->chunk = K;
  p->lanes = 1;
  if (nk > 0 && (nr == 0 || llabs(p->kin[nk - 1]) < rmin)) {
    /* Consecutive outputs are neighbours in memory: one thread per output, coalesced across
     * the warp; split the k range over grid.y when there are too few column blocks. */
    p->mode = ND_KRM_COLS;
    int64_t colblocks = nd__ceil_div(M, 256);
    if (K > 1 && colblocks < target) {
      /* Rounded down so that all colblocks * splits blocks fit in one wave. */
      int64_t s = target / colblocks, cap = nd__ceil_div(K, 32);
      if (s > cap) s = cap;
      if (s > 65535) s = 65535;
      if (s > 1) {
        p->chunk = nd__ceil_div(K, s);
        p->splits = nd__ceil_div(K, p->chunk);
      }
    }
  } else {
    p->mode = ND_KRM_ROWS;
    if (K < 2048) {
      int64_t want = nd__ceil_div(K > 0 ? K : 1, 8);
      int lanes = 1;
      while (lanes < 32 && lanes < want) lanes *= 2;
      p->lanes = lanes;
    } else {
      p->lanes = 256;
      if (M < target) {
        int64_t s = target / M, cap = nd__ceil_div(K, 4096);
        if (s > cap) s = cap;
        if (s > 1) {
          /* Chunks of a multiple of 64 elements keep every chunk start 16-byte aligned when
           * the row start is. */
          int64_t c = nd__ceil_div(K, s);
          c = nd__ceil_div(c, 64) * 64;
          p->chunk = c;
          p->splits = nd__ceil_div(K, c);
        }
      }
    }
  }
  return flip;
}

/* ---- histogram edges ---------------------------------------------------------------------- */

/* x rounded to the precision of dtype d (float16, float32 or float64). */
static double nd__round_to(nd_dtype d, double x) {
  if (d == ND_FLOAT16) return nd__half_to_double(nd__double_to_half(x));
  if (d == ND_FLOAT32) return (double)(float)x;
  return x;
}

nd_status nd__histogram_edges(const char *fn, nd_dtype data, int auto_range, double first,
                              double last, int64_t bins, nd_dtype *edge_dtype, double *edges) {
  if (bins < 1)
    return nd__error(ND_ERR_VALUE, "%s: `bins` must be positive, when an integer (got %lld)", fn,
                     (long long)bins);
  const int fdata = nd_dtype_kind(data) == 'f';
  /* NumPy's linspace computes in the dtype of its ends: the data's float dtype for an
   * automatic range (a.min(), a.max() are scalars of it), float64 for Python numbers. */
  const nd_dtype P = auto_range && fdata ? data : ND_FLOAT64;
  const nd_dtype E = fdata ? data : ND_FLOAT64;
  if (first == last) {
    first = nd__round_to(P, first - 0.5);
    last = nd__round_to(P, last + 0.5);
  }
  const double delta = nd__round_to(P, last - first);
  const double step = nd__round_to(P, delta / (double)bins);
  for (int64_t i = 0; i <= bins; i++) {
    double y;
    if (step == 0) y = nd__round_to(P, nd__round_to(P, (double)i / (double)bins) * delta);
    else y = nd__round_to(P, nd__round_to(P, (double)i) * step);
    y = nd__round_to(P, y + first);
    if (i == bins) y = last;
    edges[i] = nd__round_to(E, y);
  }
  *edge_dtype = E;
  return ND_OK;
}
