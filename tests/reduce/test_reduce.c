/* GPU suite for reductions, statistics, scans, diff and nd_array_item.
 *
 * Every result is compared with a host reference computed here from the same values (the
 * nd_ref views of tests/src/nd_ref.h), over every dtype and the awkward layouts (offset,
 * transposed, negative strides, stepped, broadcast, zero-size, 0-d), all axis sets of 4-d
 * arrays, and sizes that take each kernel path (split rows, split columns, short rows, typed
 * vector loads, generic loads). Integers and bools are compared exactly; floats within a
 * tolerance that grows with the number of elements reduced (eps * (K + 2) * sum |x|); NaN
 * must match NaN, inf must match inf exactly. Exits 77 without a GPU. */
#include "tests/nd_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "reduce/reduce_plan.h"
#include "tests/src/nd_ref.h"

/* ---- host reference ---------------------------------------------------------------------- */

typedef enum {
  R_SUM, R_PROD, R_NANSUM, R_MEAN, R_NANMEAN, R_VAR, R_STD, R_MIN, R_MAX, R_NANMIN, R_NANMAX,
  R_PTP, R_ARGMIN, R_ARGMAX, R_ALL, R_ANY, R_COUNT, R_MEDIAN, R_NUM
} rop;

static const char *const rop_name[R_NUM] = {"sum", "prod", "nansum", "mean", "nanmean", "var",
                                            "std", "amin", "amax", "nanmin", "nanmax", "ptp",
                                            "argmin", "argmax", "all", "any", "count_nonzero",
                                            "median"};
static const nd__rop rop_lib[R_NUM] = {ND__R_SUM, ND__R_PROD, ND__R_NANSUM, ND__R_MEAN, ND__R_NANMEAN,
                                       ND__R_VAR, ND__R_STD, ND__R_MIN, ND__R_MAX, ND__R_NANMIN,
                                       ND__R_NANMAX, ND__R_PTP, ND__R_ARGMIN, ND__R_ARGMAX, ND__R_ALL,
                                       ND__R_ANY, ND__R_COUNT_NONZERO, ND__R_MEDIAN};

typedef struct {
  long double re, im;
} cx;

static cx to_cx(nd_scalar v) {
  cx c = {0, 0};
  switch (nd_dtype_kind(v.dtype)) {
    case 'b': c.re = v.v.b; break;
    case 'i': c.re = (long double)v.v.i; break;
    case 'u': c.re = (long double)v.v.u; break;
    case 'f': c.re = v.v.f; break;
    default: c.re = v.v.c[0]; c.im = v.v.c[1]; break;
  }
  return c;
}
static int is_nan_s(nd_scalar v) {
  cx c = to_cx(v);
  return isnan((double)c.re) || isnan((double)c.im);
}
static int is_inexact(nd_dtype d) { return nd_dtype_kind(d) == 'f' || nd_dtype_kind(d) == 'c'; }

/* NumPy's total order for the extremes: integers exactly, floats as long double, complex
 * lexicographic. Returns <0, 0, >0. NaN is handled by the callers. */
static int cmp_s(nd_scalar a, nd_scalar b) {
  char ka = nd_dtype_kind(a.dtype);
  if ((ka == 'i' || ka == 'u' || ka == 'b') && a.dtype == b.dtype) {
    if (ka == 'u') return (a.v.u > b.v.u) - (a.v.u < b.v.u);
    if (ka == 'b') return a.v.b - b.v.b;
    return (a.v.i > b.v.i) - (a.v.i < b.v.i);
  }
  cx x = to_cx(a), y = to_cx(b);
  if (x.re != y.re) return x.re < y.re ? -1 : 1;
  return (x.im > y.im) - (x.im < y.im);
}

static long double eps_of(nd_dtype d) {
  if (d == ND_FLOAT16) return 9.77e-4L;
  if (d == ND_FLOAT32 || d == ND_COMPLEX64) return 1.2e-7L;
  return 2.3e-16L;
}

static int cmp_ld(const void *a, const void *b) {
  long double x = *(const long double *)a, y = *(const long double *)b;
  return (x > y) - (x < y);
}

/* The reduction of a over mask as NumPy defines it; tol[m] receives the allowed error of
 * output m (0 for exact results). */
static nd_ref ref_reduce(const nd_ref *a, uint64_t mask, int keepdims, rop op, nd_dtype res,
                         double ddof, double *tol) {
  int64_t oshape[ND_MAXDIMS] = {0}, kshape[ND_MAXDIMS] = {0}, M = 1, K = 1;
  int on = 0, nk = 0;
  for (int i = 0; i < a->ndim; i++) {
    if (mask & (UINT64_C(1) << i)) {
      K *= a->shape[i];
      if (keepdims) oshape[on++] = 1;
    } else {
      M *= a->shape[i];
      kshape[nk++] = a->shape[i];
      oshape[on++] = a->shape[i];
    }
  }
  nd_ref out = nd_ref_new(res, on, oshape);
  nd_scalar *vals = malloc((size_t)(M * K + 1) * sizeof(nd_scalar));
  int64_t idx[ND_MAXDIMS];
  for (int64_t e = 0; e < a->size; e++) {
    nd_ref_unravel(a->ndim, a->shape, e, idx);
    int64_t m = 0, k = 0;
    for (int i = 0; i < a->ndim; i++) {
      if (mask & (UINT64_C(1) << i)) k = k * a->shape[i] + idx[i];
      else m = m * a->shape[i] + idx[i];
    }
    vals[m * K + k] = nd_ref_load(a->dtype, nd_ref_ptr(a, idx));
  }
  (void)kshape;
  (void)nk;
  const nd_dtype in = a->dtype;
  for (int64_t m = 0; m < M; m++) {
    const nd_scalar *v = vals + m * K;
    nd_scalar r;
    memset(&r, 0, sizeof r);
    double t = 0;
    switch (op) {
      case R_SUM:
      case R_NANSUM:
      case R_PROD:
      case R_MEAN: {
        const int prod = op == R_PROD;
        char rk = nd_dtype_kind(res);
        if (rk == 'b') {
          int acc = prod;
          for (int64_t k = 0; k < K; k++) {
            int b = nd_ref_cast(v[k], ND_BOOL).v.b;
            acc = prod ? (acc && b) : (acc || b);
          }
          r = nd_scalar_bool(acc);
        } else if ((rk == 'i' || rk == 'u') && op != R_MEAN) {
          uint64_t acc = prod;
          for (int64_t k = 0; k < K; k++) {
            nd_scalar c = nd_ref_cast(v[k], res);
            uint64_t x = rk == 'u' ? c.v.u : (uint64_t)c.v.i;
            acc = prod ? acc * x : acc + x;
          }
          nd_scalar s;
          s.dtype = rk == 'u' ? ND_UINT64 : ND_INT64;
          if (rk == 'u') s.v.u = acc;
          else s.v.i = (int64_t)acc;
          r = nd_ref_cast(s, res);
        } else {
          cx acc = {prod ? 1.0L : 0.0L, 0}, mag = {0, 0};
          nd_dtype cast_to = op == R_MEAN ? res : res;
          for (int64_t k = 0; k < K; k++) {
            nd_scalar c = rk == 'i' || rk == 'u' ? v[k] : nd_ref_cast(v[k], cast_to);
            if (op == R_NANSUM && is_nan_s(c)) continue;
            cx x = to_cx(c);
            if (prod) {
              cx p = {acc.re * x.re - acc.im * x.im, acc.re * x.im + acc.im * x.re};
              acc = p;
            } else {
              acc.re += x.re;
              acc.im += x.im;
            }
            mag.re += fabsl(x.re) + fabsl(x.im);
          }
          if (op == R_MEAN) {
            acc.re /= (long double)K;
            acc.im /= (long double)K;
            mag.re /= (long double)(K ? K : 1);
          }
          nd_dtype accd = res == ND_FLOAT16 ? ND_FLOAT32 : res;
          t = (double)(eps_of(accd) * (long double)(K + 2) * (prod ? fabsl(acc.re) + fabsl(acc.im) : mag.re) +
                       eps_of(res) * (fabsl(acc.re) + fabsl(acc.im)));
          nd_scalar s = nd_scalar_complex((double)acc.re, (double)acc.im);
          s.dtype = ND_COMPLEX128;
          r = nd_ref_cast(s, res);
        }
        break;
      }
      case R_NANMEAN:
      case R_VAR:
      case R_STD: {
        cx sum = {0, 0};
        int64_t n = 0;
        for (int64_t k = 0; k < K; k++) {
          if (op == R_NANMEAN && is_nan_s(v[k])) continue;
          cx x = to_cx(v[k]);
          sum.re += x.re;
          sum.im += x.im;
          n++;
        }
        cx mean = {sum.re / (long double)n, sum.im / (long double)n};
        nd_dtype accd = res == ND_FLOAT16 ? ND_FLOAT32 : res;
        if (op == R_NANMEAN) {
          nd_scalar s = nd_scalar_complex((double)mean.re, (double)mean.im);
          s.dtype = ND_COMPLEX128;
          r = nd_ref_cast(s, res);
          long double mag = 0;
          for (int64_t k = 0; k < K; k++)
            if (!is_nan_s(v[k])) mag += fabsl(to_cx(v[k]).re) + fabsl(to_cx(v[k]).im);
          t = (double)(eps_of(accd) * (long double)(K + 2) * mag / (long double)(n ? n : 1) +
                       eps_of(res) * (fabsl(mean.re) + fabsl(mean.im)));
        } else {
          long double ss = 0;
          for (int64_t k = 0; k < K; k++) {
            cx x = to_cx(v[k]);
            ss += (x.re - mean.re) * (x.re - mean.re) + (x.im - mean.im) * (x.im - mean.im);
          }
          long double rc = (long double)K - ddof;
          if (rc < 0) rc = 0;
          long double var = ss / rc;
          long double val = op == R_STD ? sqrtl(var) : var;
          nd_scalar s = nd_scalar_float((double)val);
          s.dtype = ND_FLOAT64;
          r = nd_ref_cast(s, res);
          long double scale = 0;
          for (int64_t k = 0; k < K; k++) scale += fabsl(to_cx(v[k]).re) + fabsl(to_cx(v[k]).im);
          scale = scale / (long double)(K ? K : 1);
          t = (double)(eps_of(accd) * (long double)(4 * K + 16) * (scale * scale / (rc > 0 ? rc : 1) * (long double)K) +
                       eps_of(res) * 4 * fabsl(val));
          if (op == R_STD && var > 0) t = (double)(t / (2 * sqrtl(var)) + eps_of(res) * 4 * fabsl(val));
        }
        break;
      }
      case R_MIN:
      case R_MAX:
      case R_NANMIN:
      case R_NANMAX:
      case R_PTP: {
        const int skip = op == R_NANMIN || op == R_NANMAX;
        nd_scalar lo = v[0], hi = v[0];
        int have = 0, nan = 0;
        nd_scalar nanv = v[0];
        for (int64_t k = 0; k < K; k++) {
          if (is_nan_s(v[k])) {
            if (!nan) nanv = v[k];
            nan = 1;
            continue;
          }
          if (!have || cmp_s(v[k], lo) < 0) lo = v[k];
          if (!have || cmp_s(v[k], hi) > 0) hi = v[k];
          have = 1;
        }
        if (nan && (!skip || !have)) {
          lo = hi = nanv;
        }
        if (op == R_PTP) {
          if (nd_dtype_kind(in) == 'i' || nd_dtype_kind(in) == 'u') {
            nd_scalar d;
            d.dtype = ND_UINT64;
            d.v.u = nd_dtype_kind(in) == 'u' ? hi.v.u - lo.v.u : (uint64_t)hi.v.i - (uint64_t)lo.v.i;
            r = nd_ref_cast(d, in);
          } else {
            cx x = to_cx(hi), y = to_cx(lo);
            nd_scalar d = nd_scalar_complex((double)(x.re - y.re), (double)(x.im - y.im));
            d.dtype = ND_COMPLEX128;
            r = nd_ref_cast(d, in);
            t = (double)(eps_of(in) * 2 * (fabsl(x.re - y.re) + fabsl(x.im - y.im)));
          }
        } else {
          r = (op == R_MAX || op == R_NANMAX) ? hi : lo;
        }
        break;
      }
      case R_ARGMIN:
      case R_ARGMAX: {
        int64_t best = 0;
        for (int64_t k = 0; k < K; k++) {
          if (is_nan_s(v[k])) {
            best = k;
            break;
          }
          int c = cmp_s(v[k], v[best]);
          if (op == R_ARGMAX ? c > 0 : c < 0) best = k;
        }
        r.dtype = ND_INT64;
        r.v.i = best;
        break;
      }
      case R_ALL:
      case R_ANY:
      case R_COUNT: {
        int64_t c = 0;
        for (int64_t k = 0; k < K; k++) c += nd_ref_cast(v[k], ND_BOOL).v.b;
        if (op == R_COUNT) {
          r.dtype = ND_INT64;
          r.v.i = c;
        } else {
          r = nd_scalar_bool(op == R_ALL ? c == K : c != 0);
        }
        break;
      }
      case R_MEDIAN: {
        long double *s = malloc((size_t)(K + 1) * sizeof(long double));
        int nan = 0;
        for (int64_t k = 0; k < K; k++) {
          s[k] = to_cx(v[k]).re;
          nan |= isnan((double)s[k]);
        }
        qsort(s, (size_t)K, sizeof(long double), cmp_ld);
        long double med = NAN;
        if (!nan && K > 0) med = K % 2 ? s[K / 2] : (s[K / 2 - 1] + s[K / 2]) / 2;
        free(s);
        nd_scalar d = nd_scalar_float((double)med);
        d.dtype = ND_FLOAT64;
        r = nd_ref_cast(d, res);
        t = (double)(eps_of(res) * 2 * fabsl(med));
        break;
      }
      default:
        break;
    }
    nd_ref_set(&out, m, r);
    if (tol) tol[m] = t;
  }
  free(vals);
  return out;
}

/* Compares got (device) with want within tol[m] for inexact dtypes, exactly otherwise. */
static void expect_close(const nd_array *got_d, const nd_ref *want, const double *tol, const char *ctx) {
  char shape_str[128], desc[256];
  ck_assert_msg(nd_array_dtype(got_d) == want->dtype, "%s: dtype %s, want %s", ctx,
                nd_dtype_name(nd_array_dtype(got_d)), nd_dtype_name(want->dtype));
  ck_assert_msg(nd_array_ndim(got_d) == want->ndim &&
                    !memcmp(nd_array_shape(got_d), want->shape, (size_t)want->ndim * sizeof(int64_t)),
                "%s: shape %s, want %s", ctx, nd_ref_describe(got_d, desc, sizeof desc),
                nd_ref_shape_str(want->ndim, want->shape, shape_str, sizeof shape_str));
  nd_ref got = nd_ref_download(got_d);
  for (int64_t k = 0; k < want->size; k++) {
    const unsigned char *g = nd_ref_flat(&got, k), *w = nd_ref_flat(want, k);
    if (nd_ref_same(want->dtype, g, w)) continue;
    int ok = 0;
    if (is_inexact(want->dtype) && tol) {
      cx a = to_cx(nd_ref_load(want->dtype, g)), b = to_cx(nd_ref_load(want->dtype, w));
      ok = !isnan((double)a.re) && !isnan((double)b.re) && !isinf((double)a.re) && !isinf((double)b.re) &&
           fabsl(a.re - b.re) <= tol[k] && fabsl(a.im - b.im) <= tol[k] &&
           (isnan((double)a.im) == isnan((double)b.im));
      /* -0.0 and 0.0 from differently ordered sums are the same result */
      if (!ok && a.re == b.re && a.im == b.im) ok = 1;
    }
    char gs[96], ws[96];
    ck_assert_msg(ok, "%s: element %lld is %s, want %s (tol %g)", ctx, (long long)k,
                  nd_ref_format(want->dtype, g, gs, sizeof gs), nd_ref_format(want->dtype, w, ws, sizeof ws),
                  tol ? tol[k] : 0.0);
  }
  nd_ref_free(&got);
}

/* Runs one reduction on the device. */
static nd_status run_op(rop op, const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_array **res) {
  switch (op) {
    case R_SUM: return nd_sum(a, naxes, axes, keepdims, ND_DTYPE_DEFAULT, NULL, res);
    case R_PROD: return nd_prod(a, naxes, axes, keepdims, ND_DTYPE_DEFAULT, NULL, res);
    case R_NANSUM: return nd_nansum(a, naxes, axes, keepdims, ND_DTYPE_DEFAULT, NULL, res);
    case R_MEAN: return nd_mean(a, naxes, axes, keepdims, ND_DTYPE_DEFAULT, NULL, res);
    case R_NANMEAN: return nd_nanmean(a, naxes, axes, keepdims, ND_DTYPE_DEFAULT, NULL, res);
    case R_VAR: return nd_var(a, naxes, axes, keepdims, ND_DTYPE_DEFAULT, 1.0, NULL, res);
    case R_STD: return nd_std(a, naxes, axes, keepdims, ND_DTYPE_DEFAULT, 0.0, NULL, res);
    case R_MIN: return nd_amin(a, naxes, axes, keepdims, NULL, res);
    case R_MAX: return nd_amax(a, naxes, axes, keepdims, NULL, res);
    case R_NANMIN: return nd_nanmin(a, naxes, axes, keepdims, NULL, res);
    case R_NANMAX: return nd_nanmax(a, naxes, axes, keepdims, NULL, res);
    case R_PTP: return nd_ptp(a, naxes, axes, keepdims, NULL, res);
    case R_ARGMIN: return nd_argmin(a, naxes ? axes[0] : ND_AXIS_NONE, keepdims, NULL, res);
    case R_ARGMAX: return nd_argmax(a, naxes ? axes[0] : ND_AXIS_NONE, keepdims, NULL, res);
    case R_ALL: return nd_all(a, naxes, axes, keepdims, NULL, res);
    case R_ANY: return nd_any(a, naxes, axes, keepdims, NULL, res);
    case R_COUNT: return nd_count_nonzero(a, naxes, axes, keepdims, res);
    case R_MEDIAN: return nd_median(a, naxes, axes, keepdims, NULL, res);
    default: return ND_ERR_INTERNAL;
  }
}

static double ddof_of(rop op) { return op == R_VAR ? 1.0 : 0.0; }

/* Checks op on (device a, host ra) over the given axes against the reference. Returns 0 when
 * the op legitimately refuses (empty reduction without identity, unsupported dtype). */
static int check_op(rop op, const nd_array *a, const nd_ref *ra, int naxes, const int64_t *axes,
                    int keepdims, const char *ctx) {
  nd__raxes rs;
  ND_ASSERT_OK(nd__reduce_axes("t", ra->ndim, ra->shape, naxes, axes, keepdims, &rs));
  nd_dtype res;
  int acc;
  if (nd__reduce_dtypes("t", rop_lib[op], ra->dtype, ND_DTYPE_DEFAULT, &res, &acc) != ND_OK) return 0;
  if (op == R_PTP && ra->dtype == ND_BOOL) return 0;
  int refuses = nd__reduce_check_empty("t", rop_lib[op], rs.count) != ND_OK;
  nd_array *got = NULL;
  nd_status st = run_op(op, a, naxes, axes, keepdims, &got);
  char buf[320];
  snprintf(buf, sizeof buf, "%s: %s of %s axes mask 0x%llx keepdims %d", ctx, rop_name[op],
           nd_dtype_name(ra->dtype), (unsigned long long)rs.mask, keepdims);
  if (refuses) {
    ck_assert_msg(st == ND_ERR_VALUE, "%s: expected ND_ERR_VALUE for an empty reduction, got %s",
                  buf, nd_status_name(st));
    ck_assert_msg(strstr(nd_last_error(), "nd_") != NULL, "%s: message '%s'", buf, nd_last_error());
    return 0;
  }
  ck_assert_msg(st == ND_OK, "%s failed: %s: %s", buf, nd_status_name(st), nd_last_error());
  double *tol = malloc((size_t)(rs.outputs + 1) * sizeof(double));
  nd_ref want = ref_reduce(ra, rs.mask, keepdims, op, res, ddof_of(op), tol);
  expect_close(got, &want, tol, buf);
  nd_ref_free(&want);
  free(tol);
  nd_array_release(got);
  return 1;
}

/* ---- every dtype x layout ---------------------------------------------------------------- */

START_TEST(test_layouts_all_dtypes) {
  for (int dt = 0; dt < ND_NUM_DTYPES; dt++) {
    for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
      nd_ref_layout l;
      nd_ref_layout_make((nd_ref_layout_kind)lk, (nd_dtype)dt, 5, 7, 3 + dt, &l);
      char ctx[96];
      snprintf(ctx, sizeof ctx, "layout %s", l.name);
      const int nd = l.ref.ndim;
      for (int op = 0; op < R_NUM; op++) {
        /* Products of inexact values over these lengths overflow, and the inf/NaN pattern of an
         * overflowed complex product depends on the order of the multiplications: covered by
         * test_prod_float over short axes instead. */
        if (op == R_PROD && (nd_dtype_kind((nd_dtype)dt) == 'f' || nd_dtype_kind((nd_dtype)dt) == 'c')) continue;
        check_op((rop)op, l.array, &l.ref, 0, NULL, 0, ctx);
        for (int ax = -nd; ax < nd; ax++) {
          int64_t axes[1] = {ax};
          check_op((rop)op, l.array, &l.ref, 1, axes, ax == -1, ctx);
        }
        int64_t all[2] = {1, 0};
        if (nd == 2 && op != R_ARGMIN && op != R_ARGMAX) check_op((rop)op, l.array, &l.ref, 2, all, 1, ctx);
      }
      nd_ref_layout_free(&l);
    }
  }
}
END_TEST

/* Products of floats over short axes only, where they stay finite. */
START_TEST(test_prod_float) {
  static const nd_dtype dts[] = {ND_FLOAT16, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
    const int64_t shape[2] = {3, 4};
    nd_ref r = nd_ref_new(dts[i], 2, shape);
    for (int64_t k = 0; k < r.size; k++) {
      nd_scalar s = nd_scalar_complex(0.5 + 0.25 * (double)(k % 5), 0.125 * (double)(k % 3));
      s.dtype = ND_COMPLEX128;
      nd_ref_set(&r, k, s);
    }
    nd_array *a = nd_ref_upload(&r);
    check_op(R_PROD, a, &r, 0, NULL, 0, "prod");
    int64_t ax[1] = {1};
    check_op(R_PROD, a, &r, 1, ax, 0, "prod");
    ax[0] = 0;
    check_op(R_PROD, a, &r, 1, ax, 1, "prod");
    nd_array_release(a);
    nd_ref_free(&r);
  }
}
END_TEST

/* ---- all axis sets of 4-d arrays ------------------------------------------------------------ */

START_TEST(test_axes_4d) {
  static const nd_dtype dts[] = {ND_FLOAT32, ND_INT32, ND_FLOAT64, ND_FLOAT16, ND_UINT8, ND_COMPLEX64};
  static const rop ops[] = {R_SUM, R_MAX, R_MEAN, R_COUNT, R_ARGMAX, R_VAR, R_NANMIN};
  const int64_t bshape[4] = {6, 3, 5, 4};
  for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
    nd_ref base = nd_ref_new(dts[di], 4, bshape);
    nd_ref_fill_pattern(&base, 11);
    nd_array *dev = nd_ref_upload(&base);
    for (int variant = 0; variant < 4; variant++) {
      nd_array *a = NULL;
      nd_ref ra;
      if (variant == 0) {
        a = nd_array_retain(dev);
        ra = nd_ref_slice(&base, 0, NULL);
      } else if (variant == 1) { /* permuted */
        int64_t p64[4] = {2, 0, 3, 1};
        int perm[4] = {2, 0, 3, 1};
        ND_ASSERT_OK(nd_array_transpose(dev, 4, p64, &a));
        ra = nd_ref_permute(&base, perm);
      } else if (variant == 2) { /* negative and stepped */
        nd_slice sl[4] = {{ND_NONE, ND_NONE, -2}, ND_SLICE_ALL, {ND_NONE, ND_NONE, -1}, {1, ND_NONE, ND_NONE}};
        ND_ASSERT_OK(nd_array_slice(dev, 4, sl, &a));
        ra = nd_ref_slice(&base, 4, sl);
      } else { /* broadcast along a new axis */
        nd_array *v;
        nd_ref rv = nd_ref_index(&base, 1, 2);
        ND_ASSERT_OK(nd_array_index(dev, 1, 2, &v));
        int64_t bs[4] = {6, 2, 5, 4};
        /* (6, 5, 4) -> (6, 1, 5, 4) -> broadcast (6, 2, 5, 4) */
        nd_array *e;
        ND_ASSERT_OK(nd_array_expand_dims(v, 1, &e));
        ND_ASSERT_OK(nd_array_broadcast_to(e, 4, bs, &a));
        nd_ref tmp = nd_ref_reshape(&rv, 4, (int64_t[]){6, 1, 5, 4});
        nd_ref b2 = nd_ref_broadcast(&tmp, 4, bs);
        ra = nd_ref_copy(&b2);
        nd_ref_free(&tmp);
        nd_array_release(v);
        nd_array_release(e);
      }
      for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
        for (unsigned m = 0; m < 16; m++) {
          int64_t axes[4];
          int n = 0;
          for (int i = 0; i < 4; i++)
            if (m & (1u << i)) axes[n++] = i;
          if ((ops[oi] == R_ARGMAX) && n > 1) continue;
          char ctx[64];
          snprintf(ctx, sizeof ctx, "4-d variant %d", variant);
          if (n == 0 && ops[oi] != R_ARGMAX) check_op(ops[oi], a, &ra, 0, axes, (int)(m & 1), ctx);
          else if (n > 0) check_op(ops[oi], a, &ra, n, axes, (int)(variant & 1), ctx);
        }
        check_op(ops[oi], a, &ra, 0, NULL, 0, "4-d axis=None");
      }
      nd_ref_free(&ra);
      nd_array_release(a);
    }
    nd_array_release(dev);
    nd_ref_free(&base);
  }
}
END_TEST

/* ---- sizes that take each kernel path ----------------------------------------------------------- */

static void check_big(nd_dtype dt, int ndim, const int64_t *shape, int naxes, const int64_t *axes, rop op) {
  nd_ref r = nd_ref_new(dt, ndim, shape);
  nd_ref_fill_pattern(&r, 5);
  nd_array *a = nd_ref_upload(&r);
  char ctx[96];
  snprintf(ctx, sizeof ctx, "big %s ndim %d size %lld", nd_dtype_name(dt), ndim, (long long)r.size);
  check_op(op, a, &r, naxes, axes, 0, ctx);
  nd_array_release(a);
  nd_ref_free(&r);
}

START_TEST(test_kernel_paths) {
  const int64_t flat[1] = {(INT64_C(1) << 22) + 37};
  const int64_t tall[2] = {4096, 515}, wide[2] = {515, 4096}, skinny[2] = {100003, 3};
  const int64_t a0[1] = {0}, a1[1] = {1};
  static const nd_dtype dts[] = {ND_FLOAT32, ND_FLOAT64, ND_FLOAT16, ND_INT64, ND_INT32, ND_UINT8, ND_COMPLEX64};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
    check_big(dts[i], 1, flat, 0, NULL, R_SUM);   /* one row split over the grid */
    check_big(dts[i], 2, tall, 1, a0, R_SUM);     /* columns split over grid.y */
    check_big(dts[i], 2, wide, 1, a1, R_SUM);     /* block per row */
    check_big(dts[i], 2, skinny, 1, a1, R_SUM);   /* thread per row */
    check_big(dts[i], 2, skinny, 1, a0, R_MEAN);  /* three long columns */
  }
  check_big(ND_FLOAT32, 1, flat, 0, NULL, R_ARGMAX);
  check_big(ND_FLOAT32, 1, flat, 0, NULL, R_ARGMIN);
  check_big(ND_FLOAT64, 2, tall, 1, a0, R_ARGMAX);
  check_big(ND_FLOAT32, 2, wide, 1, a1, R_MAX);
  check_big(ND_FLOAT32, 1, flat, 0, NULL, R_NANSUM);
  check_big(ND_FLOAT32, 1, flat, 0, NULL, R_VAR);
  check_big(ND_INT16, 1, flat, 0, NULL, R_MIN);
  check_big(ND_BOOL, 1, flat, 0, NULL, R_COUNT);
  check_big(ND_FLOAT64, 2, tall, 1, a0, R_STD);
  check_big(ND_FLOAT32, 2, wide, 1, a1, R_MEDIAN);
  /* Long rows and enough of them for a block per row without splits: plain float sums of
   * contiguous rows go to CUB's segmented sum, whatever their row stride and start (the offset
   * layout: padded rows starting off the 16-byte grid); reversed rows and means take the
   * library's kernel. Sums over axis 1 and -1, each against the host. */
  static const nd_ref_layout_kind kinds[] = {ND_REF_CONTIG, ND_REF_OFFSET, ND_REF_NEGATIVE};
  static const nd_dtype fdts[] = {ND_FLOAT32, ND_FLOAT64};
  for (size_t i = 0; i < sizeof fdts / sizeof fdts[0]; i++)
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
      nd_ref_layout l;
      nd_ref_layout_make(kinds[k], fdts[i], 1031, 2053, 11, &l);
      char ctx[96];
      snprintf(ctx, sizeof ctx, "block per row, layout %s", l.name);
      const int64_t last[1] = {-1};
      check_op(R_SUM, l.array, &l.ref, 1, a1, 0, ctx);
      check_op(R_SUM, l.array, &l.ref, 1, last, 1, ctx);
      check_op(R_MEAN, l.array, &l.ref, 1, a1, 0, ctx);
      nd_ref_layout_free(&l);
    }
  /* Whole float arrays larger than the L2 cache: plain sums of contiguous ones go to CUB's sum
   * (with and without keepdims, from the start and from one element in, off the 16-byte grid);
   * reversed ones and means take the library's split kernel. Each against the host. */
  nd_device_properties dp;
  ND_ASSERT_OK(nd_device_get_properties(0, &dp));
  for (size_t i = 0; i < sizeof fdts / sizeof fdts[0]; i++) {
    const int64_t n = dp.l2_cache_bytes / (int64_t)nd_dtype_itemsize(fdts[i]) + 1031;
    nd_ref r = nd_ref_new(fdts[i], 1, &n);
    nd_ref_fill_pattern(&r, 7);
    nd_array *a = nd_ref_upload(&r);
    static const nd_slice views[3] = {{ND_NONE, ND_NONE, ND_NONE}, {1, ND_NONE, ND_NONE}, {ND_NONE, ND_NONE, -1}};
    static const char *const names[3] = {"whole", "from one in", "reversed"};
    for (int v = 0; v < 3; v++) {
      nd_array *view = NULL;
      ND_ASSERT_OK(nd_array_slice(a, 1, &views[v], &view));
      nd_ref rv = nd_ref_slice(&r, 1, &views[v]);
      char ctx[96];
      snprintf(ctx, sizeof ctx, "past L2 (%lld elements), %s", (long long)n, names[v]);
      check_op(R_SUM, view, &rv, 0, NULL, 0, ctx);
      check_op(R_SUM, view, &rv, 0, NULL, 1, ctx);
      check_op(R_MEAN, view, &rv, 0, NULL, 0, ctx);
      nd_ref_free(&rv);
      nd_array_release(view);
    }
    nd_array_release(a);
    nd_ref_free(&r);
  }
}
END_TEST

/* ---- special values ----------------------------------------------------------------------------- */

static nd_array *vec_f64(const double *v, int64_t n, nd_dtype dt) {
  nd_ref r = nd_ref_new(dt, 1, &n);
  for (int64_t k = 0; k < n; k++) nd_ref_set(&r, k, nd_scalar_float(v[k]));
  nd_array *a = nd_ref_upload(&r);
  nd_ref_free(&r);
  return a;
}

static nd_ref ref_c128(const double (*v)[2], int64_t n) {
  nd_ref r = nd_ref_new(ND_COMPLEX128, 1, &n);
  for (int64_t k = 0; k < n; k++) nd_ref_set(&r, k, nd_scalar_complex(v[k][0], v[k][1]));
  return r;
}

static double item_f(nd_array *a) {
  nd_scalar s;
  ND_ASSERT_OK(nd_array_item(a, &s));
  nd_array_release(a);
  return nd_dtype_kind(s.dtype) == 'f' ? s.v.f : nd_dtype_kind(s.dtype) == 'c' ? s.v.c[0] : (double)s.v.i;
}
static int64_t item_i(nd_array *a) {
  nd_scalar s;
  ND_ASSERT_OK(nd_array_item(a, &s));
  nd_array_release(a);
  return s.dtype == ND_BOOL ? s.v.b : s.v.i;
}

static nd_array *host_vec(const void *v, size_t bytes, int64_t n, nd_dtype dt) {
  nd_array *a = NULL;
  ND_ASSERT_OK(nd_array_from_host(v, bytes, 1, &n, dt, &a));
  return a;
}
static int64_t arg_of(nd_array *a, int max) {
  nd_array *r = NULL;
  if (max) ND_ASSERT_OK(nd_argmax(a, ND_AXIS_NONE, 0, NULL, &r));
  else ND_ASSERT_OK(nd_argmin(a, ND_AXIS_NONE, 0, NULL, &r));
  return item_i(r);
}

/* argmin and argmax where an order is easy to get wrong: the ends of the integer ranges,
 * signed zeros, all-infinite ranges and complex ties, each on a short array (one thread's
 * scalar loop), and far-apart ties inside a long float32 row (the 16-byte loads and split
 * rows). The first index wins every tie. */
START_TEST(test_arg_order_edges) {
  const int64_t i64[5] = {3, INT64_MAX, INT64_MIN, INT64_MIN, INT64_MAX};
  nd_array *a = host_vec(i64, sizeof i64, 5, ND_INT64);
  ck_assert_int_eq(arg_of(a, 0), 2);
  ck_assert_int_eq(arg_of(a, 1), 1);
  nd_array_release(a);
  const uint64_t u64[4] = {7, UINT64_MAX, 0, 0};
  a = host_vec(u64, sizeof u64, 4, ND_UINT64);
  ck_assert_int_eq(arg_of(a, 0), 2);
  ck_assert_int_eq(arg_of(a, 1), 1);
  nd_array_release(a);
  const uint8_t u8[4] = {255, 0, 255, 0};
  a = host_vec(u8, sizeof u8, 4, ND_UINT8);
  ck_assert_int_eq(arg_of(a, 0), 1);
  ck_assert_int_eq(arg_of(a, 1), 0);
  nd_array_release(a);
  const uint8_t b[3] = {1, 0, 0};
  a = host_vec(b, sizeof b, 3, ND_BOOL);
  ck_assert_int_eq(arg_of(a, 0), 1);
  ck_assert_int_eq(arg_of(a, 1), 0);
  nd_array_release(a);
  /* -0 and +0 are equal: the first wins either way */
  const double z1[3] = {1, 0.0, -0.0}, z2[3] = {-1, -0.0, 0.0};
  static const nd_dtype fdts[] = {ND_FLOAT16, ND_FLOAT32, ND_FLOAT64};
  for (size_t d = 0; d < 3; d++) {
    a = vec_f64(z1, 3, fdts[d]);
    ck_assert_int_eq(arg_of(a, 0), 1);
    nd_array_release(a);
    a = vec_f64(z2, 3, fdts[d]);
    ck_assert_int_eq(arg_of(a, 1), 1);
    nd_array_release(a);
    const double pinf[3] = {INFINITY, INFINITY, INFINITY}, ninf[3] = {-INFINITY, -INFINITY, -INFINITY};
    a = vec_f64(pinf, 3, fdts[d]);
    ck_assert_int_eq(arg_of(a, 0), 0);
    ck_assert_int_eq(arg_of(a, 1), 0);
    nd_array_release(a);
    a = vec_f64(ninf, 3, fdts[d]);
    ck_assert_int_eq(arg_of(a, 0), 0);
    ck_assert_int_eq(arg_of(a, 1), 0);
    nd_array_release(a);
  }
  /* complex: equal real parts, the imaginary parts decide; equal values, the first */
  const double cv[4][2] = {{2, 1}, {2, -1}, {2, -1}, {2, 1}};
  nd_ref c = ref_c128(cv, 4);
  a = nd_ref_upload(&c);
  ck_assert_int_eq(arg_of(a, 0), 1);
  ck_assert_int_eq(arg_of(a, 1), 0);
  nd_array_release(a);
  nd_ref_free(&c);
  /* a long float32 row (vector loads, split over many blocks): ties of the extreme values
   * placed far apart, the first must win */
  const int64_t big = 3 << 20;
  float *h = malloc((size_t)big * sizeof *h);
  ck_assert_ptr_nonnull(h);
  for (int64_t k = 0; k < big; k++) h[k] = (float)((k * 7919) % 1000) - 500.0f;
  h[1234567] = h[2999999] = -1e30f;
  h[777777] = h[3000001] = 1e30f;
  h[2000000] = -0.0f;
  a = host_vec(h, (size_t)big * sizeof *h, big, ND_FLOAT32);
  ck_assert_int_eq(arg_of(a, 0), 1234567);
  ck_assert_int_eq(arg_of(a, 1), 777777);
  nd_array_release(a);
  for (int64_t k = 0; k < big; k++) h[k] = -INFINITY;
  a = host_vec(h, (size_t)big * sizeof *h, big, ND_FLOAT32);
  ck_assert_int_eq(arg_of(a, 1), 0);
  nd_array_release(a);
  free(h);
}
END_TEST

START_TEST(test_nan_inf) {
  const double nan = NAN, inf = INFINITY;
  static const nd_dtype dts[] = {ND_FLOAT16, ND_FLOAT32, ND_FLOAT64};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
    nd_dtype dt = dts[i];
    const double v1[6] = {1, nan, 3, -2, nan, 0.5};
    nd_array *a = vec_f64(v1, 6, dt), *r;
    ND_ASSERT_OK(nd_sum(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
    ck_assert(isnan(item_f(r)));
    ND_ASSERT_OK(nd_nansum(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
    ck_assert(item_f(r) == 2.5);
    ND_ASSERT_OK(nd_amax(a, 0, NULL, 0, NULL, &r));
    ck_assert(isnan(item_f(r)));
    ND_ASSERT_OK(nd_amin(a, 0, NULL, 0, NULL, &r));
    ck_assert(isnan(item_f(r)));
    ND_ASSERT_OK(nd_nanmax(a, 0, NULL, 0, NULL, &r));
    ck_assert(item_f(r) == 3);
    ND_ASSERT_OK(nd_nanmin(a, 0, NULL, 0, NULL, &r));
    ck_assert(item_f(r) == -2);
    ND_ASSERT_OK(nd_argmax(a, ND_AXIS_NONE, 0, NULL, &r));
    ck_assert_int_eq(item_i(r), 1); /* the first NaN */
    ND_ASSERT_OK(nd_argmin(a, ND_AXIS_NONE, 0, NULL, &r));
    ck_assert_int_eq(item_i(r), 1);
    ND_ASSERT_OK(nd_nanmean(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
    ck_assert(fabs(item_f(r) - 0.625) < 1e-3);
    ND_ASSERT_OK(nd_ptp(a, 0, NULL, 0, NULL, &r));
    ck_assert(isnan(item_f(r)));
    ND_ASSERT_OK(nd_any(a, 0, NULL, 0, NULL, &r));
    ck_assert_int_eq(item_i(r), 1);
    ND_ASSERT_OK(nd_count_nonzero(a, 0, NULL, 0, &r));
    ck_assert_int_eq(item_i(r), 6); /* NaN is true */
    ND_ASSERT_OK(nd_median(a, 0, NULL, 0, NULL, &r));
    ck_assert(isnan(item_f(r)));
    nd_array_release(a);

    const double v2[4] = {inf, -inf, 2, 1};
    a = vec_f64(v2, 4, dt);
    ND_ASSERT_OK(nd_sum(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
    ck_assert(isnan(item_f(r)));
    ND_ASSERT_OK(nd_amax(a, 0, NULL, 0, NULL, &r));
    ck_assert(item_f(r) == inf);
    ND_ASSERT_OK(nd_argmin(a, ND_AXIS_NONE, 0, NULL, &r));
    ck_assert_int_eq(item_i(r), 1);
    nd_array_release(a);

    const double v3[3] = {nan, nan, nan};
    a = vec_f64(v3, 3, dt);
    ND_ASSERT_OK(nd_nanmax(a, 0, NULL, 0, NULL, &r));
    ck_assert(isnan(item_f(r))); /* all-NaN slice: NaN (NumPy warns) */
    ND_ASSERT_OK(nd_nanmean(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
    ck_assert(isnan(item_f(r)));
    ND_ASSERT_OK(nd_nansum(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
    ck_assert(item_f(r) == 0);
    nd_array_release(a);

    const double v4[4] = {2, 5, 5, 1};
    a = vec_f64(v4, 4, dt);
    ND_ASSERT_OK(nd_argmax(a, ND_AXIS_NONE, 0, NULL, &r));
    ck_assert_int_eq(item_i(r), 1); /* first of the ties */
    nd_array_release(a);
  }
  /* complex: lexicographic order, NaN in either part propagates */
  const double cv[3][2] = {{1, 5}, {2, -1}, {2, -3}};
  nd_ref c = ref_c128(cv, 3);
  nd_array *a = nd_ref_upload(&c), *r;
  nd_scalar s;
  ND_ASSERT_OK(nd_amax(a, 0, NULL, 0, NULL, &r));
  ND_ASSERT_OK(nd_array_item(r, &s));
  ck_assert(s.v.c[0] == 2 && s.v.c[1] == -1);
  nd_array_release(r);
  ND_ASSERT_OK(nd_argmin(a, ND_AXIS_NONE, 0, NULL, &r));
  ck_assert_int_eq(item_i(r), 0);
  nd_array_release(a);
  nd_ref_set(&c, 0, nd_scalar_complex(1, NAN));
  a = nd_ref_upload(&c);
  ND_ASSERT_OK(nd_amax(a, 0, NULL, 0, NULL, &r));
  ND_ASSERT_OK(nd_array_item(r, &s));
  ck_assert(isnan(s.v.c[1]));
  nd_array_release(r);
  nd_array_release(a);
  nd_ref_free(&c);
}
END_TEST

/* ---- empty reductions ------------------------------------------------------------------------- */

START_TEST(test_empty) {
  const int64_t z[1] = {0}, z2[2] = {3, 0};
  nd_array *e, *e2, *r;
  ND_ASSERT_OK(nd_empty(1, z, ND_FLOAT32, &e));
  ND_ASSERT_OK(nd_empty(2, z2, ND_INT32, &e2));
  ND_ASSERT_OK(nd_sum(e, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
  ck_assert(item_f(r) == 0);
  ND_ASSERT_OK(nd_prod(e, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
  ck_assert(item_f(r) == 1);
  ND_ASSERT_OK(nd_mean(e, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
  ck_assert(isnan(item_f(r)));
  ND_ASSERT_OK(nd_var(e, 0, NULL, 0, ND_DTYPE_DEFAULT, 0, NULL, &r));
  ck_assert(isnan(item_f(r)));
  ND_ASSERT_OK(nd_all(e, 0, NULL, 0, NULL, &r));
  ck_assert_int_eq(item_i(r), 1);
  ND_ASSERT_OK(nd_any(e, 0, NULL, 0, NULL, &r));
  ck_assert_int_eq(item_i(r), 0);
  ND_ASSERT_OK(nd_count_nonzero(e, 0, NULL, 0, &r));
  ck_assert_int_eq(item_i(r), 0);
  ND_ASSERT_OK(nd_median(e, 0, NULL, 0, NULL, &r));
  ck_assert(isnan(item_f(r)));
  ND_ASSERT_FAILS(nd_amax(e, 0, NULL, 0, NULL, &r), ND_ERR_VALUE,
                  "nd_amax: zero-size array to reduction operation maximum which has no identity");
  ND_ASSERT_FAILS(nd_nanmin(e, 0, NULL, 0, NULL, &r), ND_ERR_VALUE, "nd_nanmin: zero-size array");
  ND_ASSERT_FAILS(nd_argmax(e, ND_AXIS_NONE, 0, NULL, &r), ND_ERR_VALUE,
                  "nd_argmax: attempt to get argmax of an empty sequence");
  ND_ASSERT_FAILS(nd_quantile(e, 0.5, 0, NULL, 0, NULL, &r), ND_ERR_INDEX, "nd_quantile");
  int64_t ax1[1] = {1}, ax0[1] = {0};
  ND_ASSERT_FAILS(nd_amin(e2, 1, ax1, 0, NULL, &r), ND_ERR_VALUE, "nd_amin");
  /* reducing a non-empty axis of an empty array gives an empty result */
  ND_ASSERT_OK(nd_amin(e2, 1, ax0, 0, NULL, &r));
  ck_assert_int_eq(nd_array_size(r), 0);
  ck_assert_int_eq(nd_array_dim(r, 0), 0);
  nd_array_release(r);
  /* sum over the empty axis: zeros of the kept shape (3,) */
  ND_ASSERT_OK(nd_sum(e2, 1, ax1, 0, ND_DTYPE_DEFAULT, NULL, &r));
  nd_ref want = nd_ref_new(ND_INT64, 1, (int64_t[]){3});
  nd_ref_expect(r, &want, "sum over an empty axis");
  nd_ref_free(&want);
  nd_array_release(r);
  nd_array_release(e);
  nd_array_release(e2);
}
END_TEST

/* ---- dtype= ----------------------------------------------------------------------------------- */

START_TEST(test_dtype_argument) {
  nd_array *r;
  const double i8[3] = {100, 100, 100};
  nd_array *a = vec_f64(i8, 3, ND_INT8);
  ND_ASSERT_OK(nd_sum(a, 0, NULL, 0, ND_INT8, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_INT8);
  ck_assert_int_eq(item_i(r), 44); /* 300 wraps in int8 */
  ND_ASSERT_OK(nd_sum(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_INT64);
  ck_assert_int_eq(item_i(r), 300);
  ND_ASSERT_OK(nd_mean(a, 0, NULL, 0, ND_FLOAT32, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT32);
  ck_assert(item_f(r) == 100);
  nd_array_release(a);
  const double f[2] = {1.5, 2.5};
  a = vec_f64(f, 2, ND_FLOAT64);
  ND_ASSERT_OK(nd_sum(a, 0, NULL, 0, ND_INT32, NULL, &r));
  ck_assert_int_eq(item_i(r), 3); /* each element truncated first */
  nd_array_release(a);
  const double pm[2] = {2, -2};
  a = vec_f64(pm, 2, ND_INT32);
  ND_ASSERT_OK(nd_sum(a, 0, NULL, 0, ND_BOOL, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_BOOL);
  ck_assert_int_eq(item_i(r), 1); /* [True, True] summed */
  nd_array_release(a);
  const double u[3] = {200, 200, 200};
  a = vec_f64(u, 3, ND_UINT8);
  ND_ASSERT_OK(nd_sum(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_UINT64);
  ck_assert_int_eq(item_i(r), 600);
  ND_ASSERT_OK(nd_prod(a, 0, NULL, 0, ND_UINT8, NULL, &r));
  ck_assert_int_eq(item_i(r), (200 * 200 * 200) % 256);
  nd_array_release(a);
  const double h[3] = {2048, 1, 1};
  a = vec_f64(h, 3, ND_FLOAT16);
  ND_ASSERT_OK(nd_sum(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
  ck_assert(item_f(r) == 2050); /* accumulated in float32, then rounded once */
  nd_array_release(a);
}
END_TEST

/* ---- out= ------------------------------------------------------------------------------------- */

START_TEST(test_out_argument) {
  const int64_t shape[2] = {4, 6};
  nd_ref ra = nd_ref_new(ND_FLOAT32, 2, shape);
  nd_ref_fill_pattern(&ra, 2);
  nd_array *a = nd_ref_upload(&ra), *out, *res;
  const int64_t ax0[1] = {0}, ax1[1] = {1}, s6[1] = {6}, s4[1] = {4};
  double tol[8];
  /* float64 out for a float32 sum (same_kind) */
  ND_ASSERT_OK(nd_zeros(1, s6, ND_FLOAT64, &out));
  ND_ASSERT_OK(nd_sum(a, 1, ax0, 0, ND_DTYPE_DEFAULT, out, &res));
  ck_assert_ptr_eq(res, out);
  nd_array_release(res);
  nd_ref want = ref_reduce(&ra, 1, 0, R_SUM, ND_FLOAT32, 0, tol);
  nd_ref want64 = nd_ref_astype(&want, ND_FLOAT64);
  expect_close(out, &want64, tol, "sum into float64 out");
  /* result NULL is fine when out is given */
  ND_ASSERT_OK(nd_amax(a, 1, ax0, 0, out, NULL));
  nd_ref_free(&want);
  nd_ref_free(&want64);
  /* a strided out: every other element of a (12,) array */
  nd_array *big, *strided;
  const int64_t s12[1] = {12};
  ND_ASSERT_OK(nd_zeros(1, s12, ND_FLOAT32, &big));
  nd_slice sl = {0, ND_NONE, 2};
  ND_ASSERT_OK(nd_array_slice(big, 1, &sl, &strided));
  ND_ASSERT_OK(nd_mean(a, 1, ax0, 0, ND_DTYPE_DEFAULT, strided, NULL));
  want = ref_reduce(&ra, 1, 0, R_MEAN, ND_FLOAT32, 0, tol);
  expect_close(strided, &want, tol, "mean into a strided out");
  nd_ref_free(&want);
  /* out overlapping the input: a[0] = a.sum(axis=0) */
  nd_array *row0;
  ND_ASSERT_OK(nd_array_index(a, 0, 0, &row0));
  want = ref_reduce(&ra, 1, 0, R_SUM, ND_FLOAT32, 0, tol);
  ND_ASSERT_OK(nd_sum(a, 1, ax0, 0, ND_DTYPE_DEFAULT, row0, NULL));
  expect_close(row0, &want, tol, "sum into a row of its own input");
  nd_ref_free(&want);
  /* failures leave out untouched */
  nd_array *o4;
  ND_ASSERT_OK(nd_full(1, s4, nd_scalar_float(7), ND_FLOAT32, &o4));
  nd_ref sevens = nd_ref_new(ND_FLOAT32, 1, s4);
  nd_ref_fill(&sevens, nd_scalar_float(7));
  ND_ASSERT_FAILS(nd_sum(a, 1, ax0, 0, ND_DTYPE_DEFAULT, o4, &res), ND_ERR_SHAPE,
                  "nd_sum: output array has shape (4,) but the result has shape (6,)");
  nd_ref_expect(o4, &sevens, "out after a shape error");
  nd_array *i4;
  ND_ASSERT_OK(nd_zeros(1, s4, ND_INT32, &i4));
  ND_ASSERT_FAILS(nd_sum(a, 1, ax1, 0, ND_DTYPE_DEFAULT, i4, &res), ND_ERR_CASTING, "nd_sum");
  ND_ASSERT_FAILS(nd_argmax(a, 1, 0, o4, &res), ND_ERR_CASTING, "nd_argmax");
  nd_ref_expect(o4, &sevens, "out after a casting error");
  ND_ASSERT_FAILS(nd_sum(a, 1, (int64_t[]){5}, 0, ND_DTYPE_DEFAULT, o4, &res), ND_ERR_AXIS,
                  "nd_sum: axis 5 is out of bounds for array of dimension 2");
  nd_ref_expect(o4, &sevens, "out after an axis error");
  nd_array *ro;
  ND_ASSERT_OK(nd_array_broadcast_to(o4, 1, s4, &ro));
  ND_ASSERT_FAILS(nd_sum(a, 1, ax1, 0, ND_DTYPE_DEFAULT, ro, &res), ND_ERR_READ_ONLY, "nd_sum");
  /* mean into an int out is allowed (unsafe, as NumPy's true_divide(out=...)) */
  ND_ASSERT_OK(nd_mean(a, 1, ax1, 0, ND_DTYPE_DEFAULT, i4, NULL));
  nd_array_release(ro);
  nd_ref_free(&sevens);
  nd_array_release(i4);
  nd_array_release(o4);
  nd_array_release(row0);
  nd_array_release(strided);
  nd_array_release(big);
  nd_array_release(out);
  nd_array_release(a);
  nd_ref_free(&ra);
}
END_TEST

START_TEST(test_bad_inputs) {
  nd_array *a, *r = NULL;
  const int64_t s[2] = {2, 3};
  ND_ASSERT_OK(nd_ones(2, s, ND_FLOAT32, &a));
  ND_ASSERT_FAILS(nd_sum(NULL, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r), ND_ERR_NULL_POINTER, "nd_sum");
  ND_ASSERT_FAILS(nd_mean(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, NULL), ND_ERR_NULL_POINTER, "nd_mean");
  ND_ASSERT_FAILS(nd_prod(a, 2, (int64_t[]){0, -2}, 0, ND_DTYPE_DEFAULT, NULL, &r), ND_ERR_AXIS,
                  "nd_prod: repeated axis");
  ND_ASSERT_FAILS(nd_amin(a, 1, (int64_t[]){-3}, 0, NULL, &r), ND_ERR_AXIS,
                  "nd_amin: axis -3 is out of bounds for array of dimension 2");
  ND_ASSERT_FAILS(nd_argmin(a, 2, 0, NULL, &r), ND_ERR_AXIS, "nd_argmin");
  ND_ASSERT_FAILS(nd_sum(a, 0, NULL, 0, (nd_dtype)42, NULL, &r), ND_ERR_DTYPE, "nd_sum");
  ND_ASSERT_FAILS(nd_var(a, 0, NULL, 0, ND_INT32, 0, NULL, &r), ND_ERR_DTYPE, "nd_var");
  ND_ASSERT_FAILS(nd_quantile(a, 1.5, 0, NULL, 0, NULL, &r), ND_ERR_VALUE,
                  "nd_quantile: Quantiles must be in the range [0, 1]");
  ND_ASSERT_FAILS(nd_percentile(a, -1, 0, NULL, 0, NULL, &r), ND_ERR_VALUE,
                  "nd_percentile: Percentiles must be in the range [0, 100]");
  ND_ASSERT_FAILS(nd_quantile(a, NAN, 0, NULL, 0, NULL, &r), ND_ERR_VALUE, "nd_quantile");
  nd_array *b, *c;
  ND_ASSERT_OK(nd_ones(2, s, ND_BOOL, &b));
  ND_ASSERT_FAILS(nd_ptp(b, 0, NULL, 0, NULL, &r), ND_ERR_DTYPE, "nd_ptp");
  ND_ASSERT_OK(nd_ones(2, s, ND_COMPLEX64, &c));
  ND_ASSERT_FAILS(nd_median(c, 0, NULL, 0, NULL, &r), ND_ERR_DTYPE, "nd_median");
  ND_ASSERT_FAILS(nd_count_nonzero(a, 0, NULL, 0, NULL), ND_ERR_NULL_POINTER, "nd_count_nonzero");
  nd_scalar sc;
  ND_ASSERT_FAILS(nd_array_item(a, &sc), ND_ERR_VALUE,
                  "nd_array_item: can only convert an array of size 1 to a Python scalar");
  ND_ASSERT_FAILS(nd_array_item(NULL, &sc), ND_ERR_NULL_POINTER, "nd_array_item");
  ck_assert_ptr_null(r);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(c);
}
END_TEST

/* ---- var, std, median, quantiles, average --------------------------------------------------------- */

START_TEST(test_var_std) {
  static const nd_dtype dts[] = {ND_FLOAT32, ND_FLOAT64, ND_INT16, ND_FLOAT16, ND_COMPLEX64, ND_COMPLEX128};
  const int64_t shape[3] = {4, 5, 6};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
    nd_ref r = nd_ref_new(dts[i], 3, shape);
    nd_ref_fill_pattern(&r, 9);
    nd_array *a = nd_ref_upload(&r);
    for (int ddof = 0; ddof < 3; ddof++) {
      for (int ax = -1; ax < 3; ax++) {
        int64_t axes[1] = {ax};
        nd__raxes rs;
        ND_ASSERT_OK(nd__reduce_axes("t", 3, shape, ax < 0 ? 0 : 1, ax < 0 ? NULL : axes, 0, &rs));
        nd_dtype res;
        int acc;
        ND_ASSERT_OK(nd__reduce_dtypes("t", ND__R_VAR, dts[i], ND_DTYPE_DEFAULT, &res, &acc));
        for (int sd = 0; sd < 2; sd++) {
          nd_array *got;
          if (sd) ND_ASSERT_OK(nd_std(a, ax < 0 ? 0 : 1, ax < 0 ? NULL : axes, 0, ND_DTYPE_DEFAULT, ddof, NULL, &got));
          else ND_ASSERT_OK(nd_var(a, ax < 0 ? 0 : 1, ax < 0 ? NULL : axes, 0, ND_DTYPE_DEFAULT, ddof, NULL, &got));
          double *tol = malloc((size_t)rs.outputs * sizeof(double));
          nd_ref want = ref_reduce(&r, rs.mask, 0, sd ? R_STD : R_VAR, res, ddof, tol);
          char ctx[96];
          snprintf(ctx, sizeof ctx, "%s %s ddof %d axis %d", sd ? "std" : "var", nd_dtype_name(dts[i]), ddof, ax);
          expect_close(got, &want, tol, ctx);
          nd_ref_free(&want);
          free(tol);
          nd_array_release(got);
        }
      }
    }
    nd_array_release(a);
    nd_ref_free(&r);
  }
  /* ddof >= N: NumPy divides by zero (inf or NaN) */
  const double v[2] = {1, 3};
  nd_array *a = vec_f64(v, 2, ND_FLOAT64), *r;
  ND_ASSERT_OK(nd_var(a, 0, NULL, 0, ND_DTYPE_DEFAULT, 2, NULL, &r));
  ck_assert(isinf(item_f(r)));
  nd_array_release(a);
}
END_TEST

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

START_TEST(test_quantiles) {
  /* NumPy's linear method on sorted rows, checked per row. */
  const int64_t shape[2] = {7, 9};
  static const nd_dtype dts[] = {ND_FLOAT64, ND_FLOAT32, ND_INT32, ND_UINT8, ND_FLOAT16};
  const double qs[5] = {0, 0.25, 0.5, 0.9, 1};
  for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
    nd_ref r = nd_ref_new(dts[di], 2, shape);
    nd_ref_fill_pattern(&r, 4);
    nd_array *a = nd_ref_upload(&r), *got;
    /* An array of q is float64 in NumPy's promotion: several quantiles are float64 whatever
     * the data (np.quantile(float32 data, [0.25, 0.5]).dtype is float64). */
    nd_dtype res = ND_FLOAT64;
    const int64_t ax1[1] = {1};
    ND_ASSERT_OK(nd_quantiles(a, 5, qs, 1, ax1, 0, NULL, &got));
    ck_assert_int_eq(nd_array_ndim(got), 2);
    ck_assert_int_eq(nd_array_dim(got, 0), 5);
    ck_assert_int_eq(nd_array_dim(got, 1), 7);
    nd_ref g = nd_ref_download(got);
    for (int64_t row = 0; row < 7; row++) {
      double s[9];
      for (int64_t j = 0; j < 9; j++) s[j] = to_cx(nd_ref_get(&r, row * 9 + j)).re;
      qsort(s, 9, sizeof(double), cmp_d);
      for (int qi = 0; qi < 5; qi++) {
        double vi = qs[qi] * 8, lo = floor(vi), gmm = vi - lo;
        int64_t i0 = (int64_t)lo, i1 = i0 + 1 < 9 ? i0 + 1 : 8;
        double d = s[i1] - s[i0];
        double want = gmm >= 0.5 ? s[i1] - d * (1 - gmm) : s[i0] + d * gmm;
        double gv = to_cx(nd_ref_get(&g, qi * 7 + row)).re;
        ck_assert_msg(fabs(gv - want) <= (double)eps_of(res) * 4 * (fabs(want) + 1),
                      "quantile %g of %s row %lld: %g, want %g", qs[qi], nd_dtype_name(dts[di]),
                      (long long)row, gv, want);
      }
    }
    ck_assert_int_eq(nd_array_dtype(got), res);
    nd_ref_free(&g);
    nd_array_release(got);
    /* percentile == quantile * 100; a scalar q has no leading axis */
    nd_array *p, *q;
    ND_ASSERT_OK(nd_percentile(a, 25, 0, NULL, 1, NULL, &p));
    ND_ASSERT_OK(nd_quantile(a, 0.25, 0, NULL, 1, NULL, &q));
    ck_assert_int_eq(nd_array_ndim(p), 2);
    nd_ref pq = nd_ref_download(q);
    nd_ref_expect(p, &pq, "percentile 25 vs quantile 0.25");
    nd_ref_free(&pq);
    nd_array_release(p);
    nd_array_release(q);
    /* median over each axis */
    for (int ax = 0; ax < 2; ax++) {
      int64_t axes[1] = {ax};
      check_op(R_MEDIAN, a, &r, 1, axes, ax, "median");
    }
    nd_array_release(a);
    nd_ref_free(&r);
  }
}
END_TEST

/* Values NumPy 2.4 gives where ndcuda differed: nansum with an integer dtype replaces NaN
 * before the cast, mean with a narrow integer dtype accumulates (and wraps) in it, and one
 * Python-float q keeps float32 data float32. */
static nd_array *up_f64(int ndim, const int64_t *shape, const double *v) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  nd_array *a;
  ND_ASSERT_OK(nd_array_from_host(v, (size_t)n * sizeof(double), ndim, shape, ND_FLOAT64, &a));
  return a;
}
static double scalar_of(nd_array *r) {
  double v[8];
  nd_array *d;
  ND_ASSERT_OK(nd_array_astype(r, ND_FLOAT64, &d));
  ck_assert_int_le(nd_array_size(d), 8);
  ND_ASSERT_OK(nd_array_to_host(d, v, sizeof v));
  nd_array_release(d);
  return v[0];
}
static void values_of(nd_array *r, double *v, int n) {
  nd_array *d;
  ND_ASSERT_OK(nd_array_astype(r, ND_FLOAT64, &d));
  ck_assert_int_eq(nd_array_size(d), n);
  ND_ASSERT_OK(nd_array_to_host(d, v, (size_t)n * sizeof(double)));
  nd_array_release(d);
}

START_TEST(test_numpy_dtype_semantics) {
  const int64_t n3 = 3;
  nd_array *x = up_f64(1, &n3, (const double[]){0.5, -143, NAN}), *r;
  /* np.nansum([.5, -143, nan], dtype=...) */
  static const struct { nd_dtype dt; double want; } ns[] = {
      {ND_INT32, -143}, {ND_INT64, -143}, {ND_INT8, 113}, {ND_UINT8, 113}, {ND_INT16, -143}, {ND_FLOAT32, -142.5}};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    ND_ASSERT_OK(nd_nansum(x, 0, NULL, 0, ns[i].dt, NULL, &r));
    ck_assert_int_eq(nd_array_dtype(r), ns[i].dt);
    ck_assert_msg(scalar_of(r) == ns[i].want, "nansum dtype %s: %g, NumPy %g", nd_dtype_name(ns[i].dt), scalar_of(r),
                  ns[i].want);
    nd_array_release(r);
  }
  nd_array_release(x);
  /* np.mean([100, 100, 100, -7], dtype=...), whole and per row of the 2 x 2 reshape */
  const int64_t s4 = 4, s22[2] = {2, 2}, ax1 = 1;
  const int64_t iv[4] = {100, 100, 100, -7};
  nd_array *xi, *x2;
  ND_ASSERT_OK(nd_array_from_host(iv, sizeof iv, 1, &s4, ND_INT64, &xi));
  ND_ASSERT_OK(nd_array_reshape(xi, 2, s22, &x2));
  static const struct { nd_dtype dt; double all, row0, row1; } ms[] = {
      {ND_INT8, 9, -28, 46}, {ND_UINT8, 9, 100, 46}, {ND_INT16, 73, 100, 46}, {ND_INT32, 73, 100, 46},
      {ND_INT64, 73, 100, 46}, {ND_FLOAT16, 73.25, 100, 46.5}};
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
    ND_ASSERT_OK(nd_mean(xi, 0, NULL, 0, ms[i].dt, NULL, &r));
    ck_assert_int_eq(nd_array_dtype(r), ms[i].dt);
    ck_assert_msg(scalar_of(r) == ms[i].all, "mean dtype %s: %g, NumPy %g", nd_dtype_name(ms[i].dt), scalar_of(r),
                  ms[i].all);
    nd_array_release(r);
    ND_ASSERT_OK(nd_mean(x2, 1, &ax1, 0, ms[i].dt, NULL, &r));
    double v[2];
    values_of(r, v, 2);
    ck_assert_msg(v[0] == ms[i].row0 && v[1] == ms[i].row1, "mean rows dtype %s: %g %g, NumPy %g %g",
                  nd_dtype_name(ms[i].dt), v[0], v[1], ms[i].row0, ms[i].row1);
    nd_array_release(r);
  }
  /* nanmean of an integer array with an integer dtype is mean (NumPy: the same function). */
  ND_ASSERT_OK(nd_nanmean(xi, 0, NULL, 0, ND_INT8, NULL, &r));
  ck_assert(scalar_of(r) == 9);
  nd_array_release(r);
  nd_array_release(x2);
  nd_array_release(xi);
  /* one q keeps float32, several give float64 */
  nd_array *f, *f32;
  f = up_f64(1, &s4, (const double[]){0, 1, 2, 3});
  ND_ASSERT_OK(nd_array_astype(f, ND_FLOAT32, &f32));
  ND_ASSERT_OK(nd_quantile(f32, 0.5, 0, NULL, 0, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT32);
  nd_array_release(r);
  const double q2[2] = {0.25, 0.5};
  ND_ASSERT_OK(nd_percentiles(f32, 2, (const double[]){25, 50}, 0, NULL, 0, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT64);
  double v[2];
  values_of(r, v, 2);
  ck_assert(v[0] == 0.75 && v[1] == 1.5);
  nd_array_release(r);
  ND_ASSERT_OK(nd_quantiles(f32, 2, q2, 0, NULL, 0, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT64);
  nd_array_release(r);
  nd_array_release(f32);
  nd_array_release(f);
}
END_TEST

START_TEST(test_average) {
  const int64_t shape[2] = {3, 4};
  nd_ref ra = nd_ref_new(ND_INT32, 2, shape), rw = nd_ref_new(ND_FLOAT32, 2, shape);
  nd_ref_fill_pattern(&ra, 1);
  for (int64_t k = 0; k < 12; k++) nd_ref_set(&rw, k, nd_scalar_float(0.5 + (double)(k % 4)));
  nd_array *a = nd_ref_upload(&ra), *w = nd_ref_upload(&rw), *avg, *sw;
  const int64_t ax1[1] = {1};
  ND_ASSERT_OK(nd_average(a, 1, ax1, w, 0, &avg, &sw));
  ck_assert_int_eq(nd_array_dtype(avg), ND_FLOAT64); /* result_type(int32, float32, f8) */
  nd_ref ga = nd_ref_download(avg), gs = nd_ref_download(sw);
  for (int64_t i = 0; i < 3; i++) {
    double num = 0, den = 0;
    for (int64_t j = 0; j < 4; j++) {
      double x = (double)nd_ref_get(&ra, i * 4 + j).v.i, wt = nd_ref_get(&rw, i * 4 + j).v.f;
      num += x * wt;
      den += wt;
    }
    ck_assert(fabs(nd_ref_get(&ga, i).v.f - num / den) < 1e-9 * (fabs(num / den) + 1));
    ck_assert(fabs(nd_ref_get(&gs, i).v.f - den) < 1e-9);
  }
  nd_ref_free(&ga);
  nd_ref_free(&gs);
  nd_array_release(avg);
  nd_array_release(sw);
  /* 1-d weights along the axis */
  nd_array *w1;
  const double wv[4] = {1, 0, 0, 1};
  w1 = vec_f64(wv, 4, ND_FLOAT64);
  ND_ASSERT_OK(nd_average(a, 1, ax1, w1, 1, &avg, NULL));
  ck_assert_int_eq(nd_array_ndim(avg), 2);
  ga = nd_ref_download(avg);
  for (int64_t i = 0; i < 3; i++)
    ck_assert(fabs(nd_ref_get(&ga, i).v.f -
                   ((double)nd_ref_get(&ra, i * 4).v.i + (double)nd_ref_get(&ra, i * 4 + 3).v.i) / 2) < 1e-9);
  nd_ref_free(&ga);
  nd_array_release(avg);
  /* no weights: the mean */
  ND_ASSERT_OK(nd_average(a, 0, NULL, NULL, 0, &avg, &sw));
  ck_assert(fabs(item_f(sw) - 12) == 0);
  check_op(R_MEAN, a, &ra, 0, NULL, 0, "average without weights");
  nd_array_release(avg);
  /* errors */
  const double zv[4] = {0, 0, 0, 0};
  nd_array *wz = vec_f64(zv, 4, ND_FLOAT64);
  ND_ASSERT_FAILS(nd_average(a, 1, ax1, wz, 0, &avg, NULL), ND_ERR_VALUE,
                  "nd_average: Weights sum to zero, can't be normalized");
  ND_ASSERT_FAILS(nd_average(a, 0, NULL, w1, 0, &avg, NULL), ND_ERR_SHAPE,
                  "nd_average: Axis must be specified when shapes of a and weights differ.");
  ND_ASSERT_FAILS(nd_average(a, 1, (int64_t[]){0}, w1, 0, &avg, NULL), ND_ERR_SHAPE,
                  "Length of weights not compatible with specified axis");
  /* With no outputs (a (0, 0) array over its last axis) NumPy still sums the 1-d weights, and
   * empty weights sum to zero: it raises, and so must this. */
  {
    nd_array *e, *we;
    int64_t e_shape[2] = {0, 0}, zero = 0;
    ND_ASSERT_OK(nd_empty(2, e_shape, ND_FLOAT32, &e));
    ND_ASSERT_OK(nd_empty(1, &zero, ND_FLOAT32, &we));
    avg = NULL;
    ND_ASSERT_FAILS(nd_average(e, 1, (int64_t[]){-1}, we, 0, &avg, NULL), ND_ERR_VALUE,
                    "nd_average: Weights sum to zero, can't be normalized");
    ck_assert_ptr_null(avg);
    nd_array_release(we);
    nd_array_release(e);
  }
  nd_array_release(wz);
  nd_array_release(w1);
  nd_array_release(w);
  nd_array_release(a);
  nd_ref_free(&ra);
  nd_ref_free(&rw);
}
END_TEST

/* ---- scans ------------------------------------------------------------------------------------- */

/* Reference cumsum/cumprod of r along axis ax (-1 with flat: flattened) in dtype res. */
static nd_ref ref_scan(const nd_ref *r, int ax, int prod, nd_dtype res, int include_initial, double *maxtol) {
  nd_ref src = ax < 0 ? nd_ref_reshape(r, 1, (int64_t[]){r->size}) : nd_ref_copy(r);
  if (ax < 0) ax = 0;
  int64_t shape[ND_MAXDIMS];
  memcpy(shape, src.shape, sizeof shape);
  shape[ax] += include_initial;
  nd_ref out = nd_ref_new(res, src.ndim, shape);
  int64_t n = src.shape[ax], inner = 1, outer = 1;
  for (int i = ax + 1; i < src.ndim; i++) inner *= src.shape[i];
  for (int i = 0; i < ax; i++) outer *= src.shape[i];
  const int64_t on = shape[ax];
  char rk = nd_dtype_kind(res);
  *maxtol = 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      uint64_t iacc = prod;
      cx acc = {prod, 0};
      long double mag = 0;
      if (include_initial) {
        nd_scalar s;
        s.dtype = ND_INT64;
        s.v.i = prod;
        nd_ref_set(&out, (o * on) * inner + in, nd_ref_cast(s, res));
      }
      for (int64_t j = 0; j < n; j++) {
        nd_scalar x = nd_ref_cast(nd_ref_get(&src, (o * n + j) * inner + in), res);
        nd_scalar y;
        if (rk == 'i' || rk == 'u' || rk == 'b') {
          uint64_t v = rk == 'u' ? x.v.u : rk == 'b' ? (uint64_t)x.v.b : (uint64_t)x.v.i;
          iacc = prod ? iacc * v : iacc + v;
          y.dtype = ND_UINT64;
          y.v.u = iacc;
        } else {
          cx v = to_cx(x);
          if (prod) {
            cx p = {acc.re * v.re - acc.im * v.im, acc.re * v.im + acc.im * v.re};
            acc = p;
          } else {
            acc.re += v.re;
            acc.im += v.im;
          }
          mag += fabsl(v.re) + fabsl(v.im);
          y = nd_scalar_complex((double)acc.re, (double)acc.im);
          y.dtype = ND_COMPLEX128;
          double t = (double)(eps_of(res == ND_FLOAT16 ? ND_FLOAT32 : res) * (long double)(j + 2) *
                              (prod ? fabsl(acc.re) + fabsl(acc.im) : mag) +
                              eps_of(res) * (fabsl(acc.re) + fabsl(acc.im)));
          if (t > *maxtol) *maxtol = t;
        }
        nd_ref_set(&out, (o * on + j + include_initial) * inner + in, nd_ref_cast(y, res));
      }
    }
  nd_ref_free(&src);
  return out;
}

static void check_scan(const nd_array *a, const nd_ref *ra, int64_t axis, int prod, int cumulative,
                       int include_initial, const char *ctx) {
  nd_dtype res;
  int acc;
  ND_ASSERT_OK(nd__reduce_dtypes("t", prod ? ND__R_CUMPROD : ND__R_CUMSUM, ra->dtype, ND_DTYPE_DEFAULT, &res, &acc));
  nd_array *got;
  nd_status st;
  if (cumulative)
    st = prod ? nd_cumulative_prod(a, axis, ND_DTYPE_DEFAULT, include_initial, NULL, &got)
              : nd_cumulative_sum(a, axis, ND_DTYPE_DEFAULT, include_initial, NULL, &got);
  else
    st = prod ? nd_cumprod(a, axis, ND_DTYPE_DEFAULT, NULL, &got) : nd_cumsum(a, axis, ND_DTYPE_DEFAULT, NULL, &got);
  ck_assert_msg(st == ND_OK, "%s: %s", ctx, nd_last_error());
  int ax = axis == ND_AXIS_NONE ? (ra->ndim == 1 ? 0 : -1) : (int)(axis < 0 ? axis + ra->ndim : axis);
  double maxtol;
  nd_ref want = ref_scan(ra, ax, prod, res, include_initial, &maxtol);
  double *tol = malloc((size_t)(want.size + 1) * sizeof(double));
  for (int64_t k = 0; k < want.size; k++) tol[k] = maxtol;
  char buf[160];
  snprintf(buf, sizeof buf, "%s: %s of %s axis %lld initial %d", ctx, prod ? "cumprod" : "cumsum",
           nd_dtype_name(ra->dtype), (long long)axis, include_initial);
  expect_close(got, &want, tol, buf);
  free(tol);
  nd_ref_free(&want);
  nd_array_release(got);
}

START_TEST(test_scans_layouts) {
  for (int dt = 0; dt < ND_NUM_DTYPES; dt++) {
    for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
      nd_ref_layout l;
      nd_ref_layout_make((nd_ref_layout_kind)lk, (nd_dtype)dt, 5, 6, 2 + dt, &l);
      const int fl = nd_dtype_kind((nd_dtype)dt) == 'f' || nd_dtype_kind((nd_dtype)dt) == 'c';
      check_scan(l.array, &l.ref, ND_AXIS_NONE, 0, 0, 0, l.name);
      for (int ax = 0; ax < l.ref.ndim; ax++) {
        check_scan(l.array, &l.ref, ax, 0, 0, 0, l.name);
        if (!fl) check_scan(l.array, &l.ref, ax, 1, 0, 0, l.name);
        check_scan(l.array, &l.ref, ax - l.ref.ndim, 0, 1, 1, l.name);
      }
      nd_ref_layout_free(&l);
    }
  }
}
END_TEST

START_TEST(test_scans_sizes_and_args) {
  /* one long row (DeviceScan) and many rows (scan by key), both orientations */
  const int64_t flat[1] = {(INT64_C(1) << 20) + 5}, sq[2] = {300, 517};
  static const nd_dtype dts[] = {ND_FLOAT32, ND_FLOAT64, ND_INT32, ND_INT64, ND_UINT16, ND_COMPLEX64};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
    nd_ref r = nd_ref_new(dts[i], 1, flat);
    nd_ref_fill_pattern(&r, 1);
    nd_array *a = nd_ref_upload(&r);
    check_scan(a, &r, 0, 0, 0, 0, "long row");
    nd_array_release(a);
    nd_ref_free(&r);
    r = nd_ref_new(dts[i], 2, sq);
    nd_ref_fill_pattern(&r, 3);
    a = nd_ref_upload(&r);
    check_scan(a, &r, 0, 0, 0, 0, "rows");
    check_scan(a, &r, 1, 0, 0, 0, "rows");
    check_scan(a, &r, 1, 0, 1, 1, "rows");
    nd_array_release(a);
    nd_ref_free(&r);
  }
  /* one float32 row around the scan's tile (128 x 64 items on sm_90, 128 x 24 elsewhere) */
  static const int64_t around[] = {3071, 3072, 3073, 8191, 8192, 8193, 3 * 8192 + 1};
  for (size_t i = 0; i < sizeof around / sizeof around[0]; i++) {
    nd_ref r = nd_ref_new(ND_FLOAT32, 1, &around[i]);
    nd_ref_fill_pattern(&r, 5);
    nd_array *a = nd_ref_upload(&r);
    check_scan(a, &r, 0, 0, 0, 0, "float32 row around the tile");
    nd_array_release(a);
    nd_ref_free(&r);
  }
  /* prod of small values, dtype=, out=, errors */
  const double v[5] = {1, 2, 3, 4, 5};
  nd_array *a = vec_f64(v, 5, ND_INT8), *res, *out;
  ND_ASSERT_OK(nd_cumprod(a, 0, ND_DTYPE_DEFAULT, NULL, &res));
  nd_ref want = nd_ref_new(ND_INT64, 1, (int64_t[]){5});
  const int64_t pv[5] = {1, 2, 6, 24, 120};
  for (int k = 0; k < 5; k++) {
    nd_scalar s;
    s.dtype = ND_INT64;
    s.v.i = pv[k];
    nd_ref_set(&want, k, s);
  }
  nd_ref_expect(res, &want, "cumprod int8");
  nd_array_release(res);
  ND_ASSERT_OK(nd_cumprod(a, 0, ND_INT8, NULL, &res));
  ck_assert_int_eq(nd_array_dtype(res), ND_INT8); /* 120 fits; wrap is int8 arithmetic */
  nd_array_release(res);
  ND_ASSERT_OK(nd_zeros(1, (int64_t[]){5}, ND_FLOAT64, &out));
  ND_ASSERT_OK(nd_cumprod(a, 0, ND_DTYPE_DEFAULT, out, NULL));
  nd_ref w64 = nd_ref_astype(&want, ND_FLOAT64);
  nd_ref_expect(out, &w64, "cumprod into float64 out");
  nd_ref_free(&w64);
  nd_ref_free(&want);
  ND_ASSERT_FAILS(nd_cumsum(a, 1, ND_DTYPE_DEFAULT, NULL, &res), ND_ERR_AXIS,
                  "nd_cumsum: axis 1 is out of bounds for array of dimension 1");
  nd_array *o3;
  ND_ASSERT_OK(nd_zeros(1, (int64_t[]){3}, ND_FLOAT64, &o3));
  ND_ASSERT_FAILS(nd_cumsum(a, 0, ND_DTYPE_DEFAULT, o3, &res), ND_ERR_SHAPE, "nd_cumsum");
  nd_array *m2;
  ND_ASSERT_OK(nd_ones(2, (int64_t[]){2, 2}, ND_FLOAT32, &m2));
  ND_ASSERT_FAILS(nd_cumulative_sum(m2, ND_AXIS_NONE, ND_DTYPE_DEFAULT, 0, NULL, &res), ND_ERR_AXIS,
                  "nd_cumulative_sum");
  nd_array *z;
  ND_ASSERT_OK(nd_zeros(0, NULL, ND_FLOAT32, &z));
  ND_ASSERT_FAILS(nd_cumulative_prod(z, ND_AXIS_NONE, ND_DTYPE_DEFAULT, 0, NULL, &res), ND_ERR_VALUE,
                  "nd_cumulative_prod");
  /* cumsum of a 0-d array is 1-d of length 1 */
  ND_ASSERT_OK(nd_cumsum(z, ND_AXIS_NONE, ND_DTYPE_DEFAULT, NULL, &res));
  ck_assert_int_eq(nd_array_ndim(res), 1);
  ck_assert_int_eq(nd_array_size(res), 1);
  nd_array_release(res);
  nd_array_release(z);
  nd_array_release(m2);
  nd_array_release(o3);
  nd_array_release(out);
  nd_array_release(a);
}
END_TEST

START_TEST(test_diff) {
  const int64_t shape[2] = {4, 5};
  static const nd_dtype dts[] = {ND_FLOAT32, ND_INT16, ND_UINT8, ND_BOOL, ND_COMPLEX128};
  for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
    nd_ref r = nd_ref_new(dts[di], 2, shape);
    nd_ref_fill_pattern(&r, 6);
    nd_array *a = nd_ref_upload(&r), *got;
    for (int ax = -2; ax < 2; ax++) {
      for (int64_t n = 0; n < 6; n++) {
        ND_ASSERT_OK(nd_diff(a, n, ax, &got));
        /* reference: apply the first difference n times */
        nd_ref cur = nd_ref_copy(&r);
        int a2 = ax < 0 ? ax + 2 : ax;
        for (int64_t it = 0; it < n && cur.shape[a2] > 0; it++) {
          int64_t ns[2] = {cur.shape[0], cur.shape[1]};
          ns[a2] -= 1;
          nd_ref nx = nd_ref_new(dts[di], 2, ns);
          for (int64_t i = 0; i < ns[0]; i++)
            for (int64_t j = 0; j < ns[1]; j++) {
              nd_scalar hi = nd_ref_get(&cur, (i + (a2 == 0)) * cur.shape[1] + j + (a2 == 1));
              nd_scalar lo = nd_ref_get(&cur, i * cur.shape[1] + j), d;
              char k = nd_dtype_kind(dts[di]);
              if (k == 'b') d = nd_scalar_bool(hi.v.b != lo.v.b);
              else if (k == 'i') { d.dtype = ND_UINT64; d.v.u = (uint64_t)hi.v.i - (uint64_t)lo.v.i; }
              else if (k == 'u') { d.dtype = ND_UINT64; d.v.u = hi.v.u - lo.v.u; }
              else { d = nd_scalar_complex(hi.v.c[0] - lo.v.c[0], hi.v.c[1] - lo.v.c[1]); d.dtype = ND_COMPLEX128;
                     if (k == 'f') { d = nd_scalar_float(hi.v.f - lo.v.f); d.dtype = ND_FLOAT64; } }
              nd_ref_set(&nx, i * ns[1] + j, nd_ref_cast(d, dts[di]));
            }
          nd_ref_free(&cur);
          cur = nx;
        }
        char ctx[64];
        snprintf(ctx, sizeof ctx, "diff %s n %lld axis %d", nd_dtype_name(dts[di]), (long long)n, ax);
        nd_ref_expect(got, &cur, "%s", ctx);
        nd_ref_free(&cur);
        nd_array_release(got);
      }
    }
    nd_array_release(a);
    nd_ref_free(&r);
  }
  nd_array *a, *got;
  ND_ASSERT_OK(nd_zeros(0, NULL, ND_FLOAT32, &a));
  ND_ASSERT_FAILS(nd_diff(a, 1, -1, &got), ND_ERR_VALUE,
                  "nd_diff: diff requires input that is at least one dimensional");
  nd_array_release(a);
  ND_ASSERT_OK(nd_zeros(1, (int64_t[]){3}, ND_FLOAT32, &a));
  ND_ASSERT_FAILS(nd_diff(a, -1, -1, &got), ND_ERR_VALUE, "nd_diff: order must be non-negative but got -1");
  ND_ASSERT_FAILS(nd_diff(a, 1, 1, &got), ND_ERR_AXIS, "nd_diff");
  nd_array_release(a);
}
END_TEST

/* ---- streams and item -------------------------------------------------------------------------- */

START_TEST(test_cross_stream) {
  /* Produced on one stream, reduced on a non-blocking other: the library orders them. */
  nd_stream *s1, *s2;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s1));
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s2));
  for (int rep = 0; rep < 20; rep++) {
    const int64_t n[1] = {1 << 22};
    nd_array *a, *r;
    ND_ASSERT_OK(nd_stream_push(s1));
    ND_ASSERT_OK(nd_full(1, n, nd_scalar_float(0.5), ND_FLOAT32, &a));
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_stream_push(s2));
    ND_ASSERT_OK(nd_sum(a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &r));
    ND_ASSERT_OK(nd_stream_pop());
    ck_assert(item_f(r) == (double)(1 << 21));
    nd_array_release(a);
  }
  ND_ASSERT_OK(nd_stream_destroy(s1));
  ND_ASSERT_OK(nd_stream_destroy(s2));
}
END_TEST

START_TEST(test_item) {
  nd_array *a;
  nd_scalar s;
  ND_ASSERT_OK(nd_full(2, (int64_t[]){1, 1}, nd_scalar_int(-7), ND_INT16, &a));
  ND_ASSERT_OK(nd_array_item(a, &s));
  ck_assert(s.dtype == ND_INT16 && s.v.i == -7);
  nd_array_release(a);
  ND_ASSERT_OK(nd_full(0, NULL, nd_scalar_float(1.5), ND_FLOAT16, &a));
  ND_ASSERT_OK(nd_array_item(a, &s));
  ck_assert(s.dtype == ND_FLOAT16 && s.v.f == 1.5);
  nd_array_release(a);
  ND_ASSERT_OK(nd_full(1, (int64_t[]){1}, nd_scalar_complex(1, -2), ND_COMPLEX64, &a));
  ND_ASSERT_OK(nd_array_item(a, &s));
  ck_assert(s.dtype == ND_COMPLEX64 && s.v.c[0] == 1 && s.v.c[1] == -2);
  nd_array_release(a);
  ND_ASSERT_OK(nd_full(1, (int64_t[]){1}, nd_scalar_int(3000000000LL), ND_UINT32, &a));
  ND_ASSERT_OK(nd_array_item(a, &s));
  ck_assert(s.dtype == ND_UINT32 && s.v.u == 3000000000ULL);
  nd_array_release(a);
}
END_TEST

static Suite *reduce_suite(void) {
  Suite *s = suite_create("reduce");
  TCase *t = tcase_create("reductions");
  tcase_add_test(t, test_layouts_all_dtypes);
  tcase_add_test(t, test_prod_float);
  tcase_add_test(t, test_axes_4d);
  tcase_add_test(t, test_kernel_paths);
  tcase_add_test(t, test_nan_inf);
  tcase_add_test(t, test_arg_order_edges);
  tcase_add_test(t, test_empty);
  tcase_add_test(t, test_dtype_argument);
  tcase_add_test(t, test_out_argument);
  tcase_add_test(t, test_bad_inputs);
  suite_add_tcase(s, t);
  t = tcase_create("statistics");
  tcase_add_test(t, test_var_std);
  tcase_add_test(t, test_quantiles);
  tcase_add_test(t, test_average);
  tcase_add_test(t, test_numpy_dtype_semantics);
  suite_add_tcase(s, t);
  t = tcase_create("scans");
  tcase_add_test(t, test_scans_layouts);
  tcase_add_test(t, test_scans_sizes_and_args);
  tcase_add_test(t, test_diff);
  suite_add_tcase(s, t);
  t = tcase_create("misc");
  tcase_add_test(t, test_cross_stream);
  tcase_add_test(t, test_item);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main_gpu(reduce_suite()); }
