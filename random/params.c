/* Parameter validation that needs more than a comparison: integer bounds against a dtype (with
 * the Lemire parameters they lead to) and choice's probability vectors. Pure host code. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "random/philox.h"
#include "random/random_internal.h"

typedef __int128 nd__i128;

/* Formats a value that fits in int64 or uint64. */
static const char *nd__fmt_i128(char *buf, size_t cap, nd__i128 v) {
  if (v < 0)
    snprintf(buf, cap, "%" PRId64, (int64_t)v);
  else
    snprintf(buf, cap, "%" PRIu64, (uint64_t)v);
  return buf;
}

/* An integer or bool scalar as a 128-bit value; 0 for any other kind. */
static int nd__scalar_integer(nd_scalar s, nd__i128 *v) {
  switch (s.dtype) {
    case ND_BOOL: *v = s.v.b != 0; return 1;
    case ND_INT8:
    case ND_INT16:
    case ND_INT32:
    case ND_INT64:
    case ND_PYINT: *v = s.v.i; return 1;
    case ND_UINT8:
    case ND_UINT16:
    case ND_UINT32:
    case ND_UINT64: *v = s.v.u; return 1;
    default: return 0;
  }
}

/* The range of values of an integer dtype or bool; 0 for other dtypes. */
static int nd__int_limits(nd_dtype dt, nd__i128 *lo, nd__i128 *hi) {
  switch (dt) {
    case ND_BOOL: *lo = 0; *hi = 1; return 1;
    case ND_INT8: *lo = INT8_MIN; *hi = INT8_MAX; return 1;
    case ND_INT16: *lo = INT16_MIN; *hi = INT16_MAX; return 1;
    case ND_INT32: *lo = INT32_MIN; *hi = INT32_MAX; return 1;
    case ND_INT64: *lo = INT64_MIN; *hi = INT64_MAX; return 1;
    case ND_UINT8: *lo = 0; *hi = UINT8_MAX; return 1;
    case ND_UINT16: *lo = 0; *hi = UINT16_MAX; return 1;
    case ND_UINT32: *lo = 0; *hi = UINT32_MAX; return 1;
    case ND_UINT64: *lo = 0; *hi = UINT64_MAX; return 1;
    default: return 0;
  }
}

nd_status nd__random_int_params(const char *fn, nd_scalar low, nd_scalar high, int endpoint,
                                nd_dtype dtype, int64_t count, nd_krparams *out) {
  nd__i128 lo, hi, dmin, dmax;
  char a[32], b[32], c[32];
  if (!nd__int_limits(dtype, &dmin, &dmax))
    return nd__error(ND_ERR_DTYPE, "%s: dtype %s is not an integer dtype or bool", fn,
                     nd_dtype_name(dtype));
  if (!nd__scalar_integer(low, &lo))
    return nd__error(ND_ERR_DTYPE, "%s: argument 'low' must be an integer scalar (got a %s "
                     "scalar)", fn, nd_dtype_name(low.dtype));
  if (!nd__scalar_integer(high, &hi))
    return nd__error(ND_ERR_DTYPE, "%s: argument 'high' must be an integer scalar (got a %s "
                     "scalar)", fn, nd_dtype_name(high.dtype));
  if (count == 0) {
    /* NumPy returns an empty array before it looks at the bounds' values. */
    lo = hi = 0;
    endpoint = 1;
  }
  /* NumPy's order of checks: the bounds against the dtype, then their order. */
  const nd__i128 top = endpoint ? hi : hi - 1;
  if (lo < dmin)
    return nd__error(ND_ERR_VALUE, "%s: low is out of bounds for %s (low = %s, the smallest %s is "
                     "%s)", fn, nd_dtype_name(dtype), nd__fmt_i128(a, sizeof a, lo),
                     nd_dtype_name(dtype), nd__fmt_i128(b, sizeof b, dmin));
  if (top > dmax)
    return nd__error(ND_ERR_VALUE, "%s: high is out of bounds for %s (high = %s with endpoint = "
                     "%d, the largest %s is %s)", fn, nd_dtype_name(dtype),
                     nd__fmt_i128(a, sizeof a, hi), endpoint != 0, nd_dtype_name(dtype),
                     nd__fmt_i128(b, sizeof b, dmax));
  if (top < lo)
    return nd__error(ND_ERR_VALUE, "%s: %s (low = %s, high = %s)", fn,
                     endpoint ? "low > high" : "low >= high", nd__fmt_i128(a, sizeof a, lo),
                     nd__fmt_i128(c, sizeof c, hi));
  const nd__i128 range = top - lo + 1; /* in [1, 2^64] */
  out->dist = ND_KR_INTEGERS;
  out->low = (uint64_t)lo;
  out->wide = range > ((nd__i128)1 << 32);
  out->range = (uint64_t)range; /* 2^64 wraps to 0, the code for the full range */
  out->threshold = nd__lemire_threshold(out->range, out->wide);
  return ND_OK;
}

nd_status nd__random_check_p(const char *fn, const double *p, int64_t n, double *cdf,
                             int64_t *nonzero, int64_t *last) {
  /* Kahan summation, as NumPy's choice does. */
  double sum = 0.0, comp = 0.0;
  int64_t nnz = 0, lst = -1;
  for (int64_t i = 0; i < n; i++) {
    const double v = p[i];
    if (isnan(v))
      return nd__error(ND_ERR_VALUE, "%s: argument 'p': probabilities contain NaN (p[%" PRId64 "] = "
                       "nan)", fn, i);
    if (v < 0.0)
      return nd__error(ND_ERR_VALUE, "%s: argument 'p': probabilities are not non-negative (p[%"
                       PRId64 "] = %.17g)", fn, i, v);
    if (v > 0.0) {
      nnz++;
      lst = i;
    }
    const double y = v - comp, t = sum + y;
    comp = (t - sum) - y;
    sum = t;
  }
  /* NumPy's tolerance: sqrt of float64's machine epsilon. */
  if (!(fabs(sum - 1.0) <= sqrt(DBL_EPSILON)))
    return nd__error(ND_ERR_VALUE, "%s: argument 'p': probabilities do not sum to 1 (sum = %.17g "
                     "over %" PRId64 " entries)", fn, sum, n);
  if (cdf != NULL) {
    double run = 0.0;
    comp = 0.0;
    for (int64_t i = 0; i < n; i++) {
      const double y = p[i] - comp, t = run + y;
      comp = (t - run) - y;
      run = t;
      cdf[i] = i >= lst ? 1.0 : run / sum;
    }
  }
  if (nonzero != NULL) *nonzero = nnz;
  if (last != NULL) *last = lst;
  return ND_OK;
}
