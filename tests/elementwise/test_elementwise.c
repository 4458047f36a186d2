/* GPU suite of the elementwise layer: every ufunc on every dtype it accepts, against the host
 * reference of elementwise_ref.c, and then the layouts, kernel paths, out arrays, scalars
 * and the functions built on the ufuncs (where, clip, round, nan_to_num, isclose, allclose,
 * array_equal, angle, real, imag).
 *
 * Accuracy demanded (ew_ref_ulps): integer, bool and comparison results exactly; float
 * arithmetic, rounding, sqrt, min/max, copysign, nextafter and the classification functions
 * bit-exactly (NaN matching any NaN); transcendental functions within 4 ulp of glibc for
 * float32 and float64 (8 for power and logaddexp), 1 ulp for float16 (computed in float32 and
 * rounded once on both sides); complex transcendental functions within 64 eps * |result| per
 * component (256 for power), complex arithmetic bit-exactly (NumPy's formulas on both sides).
 *
 * Exits 77 without a device. Run with CK_FORK=no (CTest sets it). */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/elementwise/elementwise_ref.h"

#define N_SWEEP 517 /* not a multiple of any vector width: the vec path's tail runs too */

/* ---- deterministic inputs ---------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  uint64_t z = *s;
  z ^= z >> 33;
  z *= 0xff51afd7ed558ccdull;
  z ^= z >> 33;
  return z;
}
static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

static nd_scalar sc_f(nd_dtype dt, double v) {
  nd_scalar s = {.dtype = ND_FLOAT64, .v.f = v};
  return nd_ref_cast(s, dt);
}
static nd_scalar sc_c(nd_dtype dt, double re, double im) {
  nd_scalar s = {.dtype = ND_COMPLEX128, .v.c = {re, im}};
  return nd_ref_cast(s, dt);
}
static nd_scalar sc_i(nd_dtype dt, int64_t v) {
  nd_scalar s = {.dtype = ND_INT64, .v.i = v};
  return nd_ref_cast(s, dt);
}

static int is_transcendental(int op) { return ew_ref_ulps(op, ND_FLOAT64) > 0 && op != ND_UFUNC_ABSOLUTE && op != ND_UFUNC_SIGN && op != ND_UFUNC_SQRT; }

/* Value number k of operand j for op on dtype dt: the first values are the special ones,
 * combined pairwise for binary ops (so every special meets every other), then random. */
static nd_scalar input_value(int op, nd_dtype dt, int j, int nin, int64_t k, uint64_t *rng) {
  static const double fspecial[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, 10.0,
                                    -7.25, 1e-3, 100.5, NAN, INFINITY, -INFINITY, 1e30, 1e-40};
  static const int64_t ispecial[] = {0, 1, -1, 2, -2, 3, 7, -7, 100, -100, INT64_MAX, INT64_MIN,
                                     127, -128, 255, 32767, -32768, 65535};
  const int nfs = (int)(sizeof fspecial / sizeof fspecial[0]);
  const int nis = (int)(sizeof ispecial / sizeof ispecial[0]);
  const char kind = nd_dtype_kind(dt);
  const int64_t w = (int64_t)(8 * nd_dtype_itemsize(dt));
  const int ns = kind == ND_KIND_BOOL ? 2 : (kind == ND_KIND_INT || kind == ND_KIND_UINT) ? nis : nfs;
  /* Pairwise specials: operand j takes digit j of k in base ns. */
  int64_t idx = -1;
  const int64_t combos = nin == 1 ? ns : (int64_t)ns * ns;
  if (k < combos) idx = j == 0 ? k % ns : (k / ns) % ns;
  switch (kind) {
    case ND_KIND_BOOL: return nd_scalar_bool(idx >= 0 ? (int)idx : (int)(rng_next(rng) & 1));
    case ND_KIND_INT:
    case ND_KIND_UINT: {
      if (j == 1 && (op == ND_UFUNC_LEFT_SHIFT || op == ND_UFUNC_RIGHT_SHIFT))
        return sc_i(dt, (int64_t)(rng_next(rng) % (uint64_t)(w + 5)) - (kind == ND_KIND_INT ? 2 : 0));
      if (j == 1 && op == ND_UFUNC_POWER)
        return sc_i(dt, (int64_t)(rng_next(rng) % 14) - (kind == ND_KIND_INT ? 2 : 0));
      if (idx >= 0) return sc_i(dt, ispecial[idx]);
      if (op == ND_KOP_ROUND) return sc_i(dt, (int64_t)(rng_next(rng) % 20000) - 10000);
      nd_scalar s = {.dtype = ND_UINT64, .v.u = rng_next(rng)};
      return nd_ref_cast(s, dt);
    }
    case ND_KIND_FLOAT: {
      if (idx >= 0) return sc_f(dt, fspecial[idx]);
      const double u = rng_unit(rng), v = rng_unit(rng);
      double x = u < 0.5 ? 8 * v - 4 : u < 0.75 ? 200 * v - 100 : 2.2 * v - 1.1;
      if (op == ND_UFUNC_ARCCOSH) x = 1 + fabs(x);
      return sc_f(dt, x);
    }
    default: {
      if (is_transcendental(op)) {
        /* Finite, moderate and off the real axis: branch cuts and special values are
         * checked separately against C99's table. */
        static const double cs[] = {0.5, -1.0, 2.0, -0.25, 1.5, 0.75};
        double re, im;
        if (k < 36 && !(op == ND_UFUNC_POWER && j == 1)) {
          re = cs[k % 6];
          im = cs[k / 6 % 6];
        } else {
          re = 6 * rng_unit(rng) - 3;
          im = 6 * rng_unit(rng) - 3;
        }
        if (op == ND_UFUNC_POWER && j == 1 && k % 4 == 0) im = 0, re = (double)(k % 7) - 2; /* small integer powers */
        return sc_c(dt, re, im);
      }
      if (idx >= 0) {
        const double re = fspecial[idx], im = fspecial[(idx * 7 + 3) % nfs];
        return sc_c(dt, re, (k / 3) % 2 ? im : 0.0);
      }
      return sc_c(dt, 8 * rng_unit(rng) - 4, 8 * rng_unit(rng) - 4);
    }
  }
}

/* ---- running one case and checking it ---------------------------------------------------- */

/* Expected result of loop L for element inputs x (already of the operands' dtypes). */
static nd_scalar expected(const nd__ufunc_loop *L, const nd_scalar *x, const nd_kparams *p) {
  nd_scalar xs[3];
  for (int j = 0; j < L->nin; j++) xs[j] = nd_ref_cast(x[L->src[j]], L->in[j]);
  if (L->action == ND__UF_COPY) return nd_ref_cast(xs[0], L->out);
  if (L->action == ND__UF_FILL) return nd_ref_cast(nd_scalar_bool(L->fill), L->out);
  return ew_ref(L, xs, p);
}

/* logaddexp(x, y) is max + log1p(exp(-|x - y|)): when the two terms nearly cancel, a 1-ulp
 * difference in the libm functions (glibc on the host, CUDA on the device) is many ulps of
 * the small result. Both sides then carry an error of a few ulps of the larger operand,
 * which is the bound accepted here (NumPy's own float32 result has the same error). */
static int logaddexp_close(const nd__ufunc_loop *L, const nd_scalar *x, nd_scalar g, nd_scalar w,
                           int ulps) {
  if ((L->kop != ND_UFUNC_LOGADDEXP && L->kop != ND_UFUNC_LOGADDEXP2) ||
      (L->key != ND_FLOAT32 && L->key != ND_FLOAT64))
    return 0;
  const double eps = L->key == ND_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
  const double a = fabs(nd_ref_cast(x[0], ND_FLOAT64).v.f), b = fabs(nd_ref_cast(x[1], ND_FLOAT64).v.f);
  const double scale = a > b ? a : b;
  if (!isfinite(scale) || !isfinite(g.v.f) || !isfinite(w.v.f)) return 0;
  return fabs(g.v.f - w.v.f) <= ulps * eps * scale;
}

/* Compares every element of the device result with the reference over the broadcast of the
 * host inputs (refs[j] may be NULL for scalar operands given in scal[j]). */
static void check_result(const char *what, const nd__ufunc_loop *L, const nd_array *res, const nd_ref *const *refs,
                         const nd_scalar *scal, const nd_kparams *p) {
  nd_ref got = nd_ref_download(res);
  ck_assert_msg(got.dtype == L->out, "%s: result dtype %s, want %s", what, nd_dtype_name(got.dtype), nd_dtype_name(L->out));
  nd_ref b[3];
  for (int j = 0; j < L->nin; j++)
    if (refs[j]) b[j] = nd_ref_broadcast(refs[j], got.ndim, got.shape);
  const int ulps = ew_ref_ulps(L->kop, L->key);
  int bad = 0;
  char msg[2048] = "";
  size_t len = 0;
  for (int64_t k = 0; k < got.size; k++) {
    nd_scalar x[3];
    for (int j = 0; j < L->nin; j++) x[j] = refs[j] ? nd_ref_get(&b[j], k) : scal[j];
    const nd_scalar want = expected(L, x, p), g = nd_ref_get(&got, k);
    char why[256];
    if (!ew_ref_close(g, want, ulps, why, sizeof why) && !logaddexp_close(L, x, g, want, ulps)) {
      if (bad++ < 6 && len < sizeof msg) {
        char in0[96], in1[96] = "";
        nd_ref_format_scalar(x[0], in0, sizeof in0);
        if (L->nin > 1) nd_ref_format_scalar(x[1], in1, sizeof in1);
        len += (size_t)snprintf(msg + len, sizeof msg - len, "\n  [%lld] (%s, %s): %s", (long long)k, in0, in1, why);
      }
    }
  }
  ck_assert_msg(bad == 0, "%s: %d of %lld elements wrong:%s", what, bad, (long long)got.size, msg);
  nd_ref_free(&got);
}

/* Runs op over nin contiguous inputs of dtype dt made by input_value, checks the result. */
static int sweep_one(int op, nd_dtype dt) {
  const int nin = nd_ufunc_nin((nd_ufunc)op);
  nd_dtype dts[3] = {dt, dt, dt};
  nd__ufunc_loop L;
  nd_clear_error();
  if (nd__ufunc_resolve("sweep", op, nin, dts, &L) != ND_OK) return 0;
  uint64_t rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(op * 131 + dt);
  const int64_t n = N_SWEEP;
  nd_ref in[3];
  const nd_ref *refs[3] = {NULL, NULL, NULL};
  nd_array *dev[3] = {NULL, NULL, NULL};
  nd_operand ops[3];
  for (int j = 0; j < nin; j++) {
    in[j] = nd_ref_new(dt, 1, &n);
    for (int64_t k = 0; k < n; k++) nd_ref_set(&in[j], k, input_value(op, dt, j, nin, k, &rng));
    dev[j] = nd_ref_upload(&in[j]);
    refs[j] = &in[j];
    ops[j] = nd_arg(dev[j]);
  }
  nd_array *res = NULL;
  ND_ASSERT_OK(nd_ufunc_call((nd_ufunc)op, nin, ops, NULL, &res));
  char what[96];
  snprintf(what, sizeof what, "%s(%s)", nd_ufunc_name((nd_ufunc)op), nd_dtype_name(dt));
  check_result(what, &L, res, refs, NULL, NULL);
  nd_array_release(res);
  for (int j = 0; j < nin; j++) {
    nd_array_release(dev[j]);
    nd_ref_free(&in[j]);
  }
  return 1;
}

START_TEST(every_ufunc_every_dtype) {
  int ran = 0;
  for (int op = 0; op < ND_UFUNC_COUNT_; op++) {
    if (op == ND_UFUNC_WHERE || op == ND_UFUNC_CLIP) continue; /* own tests below */
    for (int d = 0; d < ND_NUM_DTYPES; d++) ran += sweep_one(op, (nd_dtype)d);
  }
  ck_assert_int_gt(ran, 600);
}
END_TEST

/* The same sweep through clip (3 operands, same dtype) and where (bool condition). */
START_TEST(clip_and_where_every_dtype) {
  for (int d = 0; d < ND_NUM_DTYPES; d++) {
    const nd_dtype dt = (nd_dtype)d;
    const int64_t n = N_SWEEP;
    uint64_t rng = 77 + (uint64_t)d;
    nd_ref a = nd_ref_new(dt, 1, &n), lo = nd_ref_new(dt, 1, &n), hi = nd_ref_new(dt, 1, &n);
    nd_ref cond = nd_ref_new(ND_BOOL, 1, &n);
    for (int64_t k = 0; k < n; k++) {
      nd_ref_set(&a, k, input_value(ND_UFUNC_MAXIMUM, dt, 0, 1, k, &rng));
      nd_ref_set(&lo, k, input_value(ND_UFUNC_MAXIMUM, dt, 0, 1, (k * 7) % n, &rng));
      nd_ref_set(&hi, k, input_value(ND_UFUNC_MAXIMUM, dt, 0, 1, (k * 11 + 3) % n, &rng));
      nd_ref_set(&cond, k, nd_scalar_bool((int)(rng_next(&rng) % 3 == 0)));
    }
    nd_array *da = nd_ref_upload(&a), *dl = nd_ref_upload(&lo), *dh = nd_ref_upload(&hi), *dc = nd_ref_upload(&cond);
    nd_dtype dts[3] = {dt, dt, dt};
    nd__ufunc_loop L;
    ND_ASSERT_OK(nd__ufunc_resolve("t", ND_UFUNC_CLIP, 3, dts, &L));
    nd_array *res;
    ND_ASSERT_OK(nd_clip(da, nd_arg(dl), nd_arg(dh), NULL, &res));
    const nd_ref *r3[3] = {&a, &lo, &hi};
    char what[64];
    snprintf(what, sizeof what, "clip(%s)", nd_dtype_name(dt));
    check_result(what, &L, res, r3, NULL, NULL);
    nd_array_release(res);
    dts[0] = ND_BOOL;
    ND_ASSERT_OK(nd__ufunc_resolve("t", ND_UFUNC_WHERE, 3, dts, &L));
    ND_ASSERT_OK(nd_where(nd_arg(dc), nd_arg(da), nd_arg(dl), NULL, &res));
    const nd_ref *w3[3] = {&cond, &a, &lo};
    snprintf(what, sizeof what, "where(%s)", nd_dtype_name(dt));
    check_result(what, &L, res, w3, NULL, NULL);
    nd_array_release(res);
    nd_array_release(da);
    nd_array_release(dl);
    nd_array_release(dh);
    nd_array_release(dc);
    nd_ref_free(&a);
    nd_ref_free(&lo);
    nd_ref_free(&hi);
    nd_ref_free(&cond);
  }
}
END_TEST

/* ---- layouts ------------------------------------------------------------------------------- */

/* Runs op over layout-made operands (and optional out), checks against the reference. */
static void run_layout_case(int op, const nd_dtype *dts, nd_array *const *arrs, const nd_ref *const *refs, nd_array *out,
                            const char *what) {
  const int nin = nd_ufunc_nin((nd_ufunc)op);
  nd__ufunc_loop L;
  ND_ASSERT_OK(nd__ufunc_resolve("t", op, nin, dts, &L));
  nd_operand in[3];
  for (int j = 0; j < nin; j++) in[j] = nd_arg(arrs[j]);
  nd_array *res = NULL;
  ND_ASSERT_OK(nd_ufunc_call((nd_ufunc)op, nin, in, out, &res));
  if (out) {
    ck_assert_ptr_eq(res, out);
    /* The result went through out's dtype: compare after the same conversion. */
    nd__ufunc_loop Lo = L;
    nd_ref got = nd_ref_download(res);
    nd_ref b[3];
    for (int j = 0; j < nin; j++) b[j] = nd_ref_broadcast(refs[j], got.ndim, got.shape);
    for (int64_t k = 0; k < got.size; k++) {
      nd_scalar x[3];
      for (int j = 0; j < nin; j++) x[j] = nd_ref_get(&b[j], k);
      nd_scalar want = nd_ref_cast(expected(&Lo, x, NULL), got.dtype), g = nd_ref_get(&got, k);
      char why[256];
      ck_assert_msg(ew_ref_close(g, want, ew_ref_ulps(L.kop, L.key) ? 8 : 0, why, sizeof why), "%s [%lld]: %s", what,
                    (long long)k, why);
    }
    nd_ref_free(&got);
  } else {
    check_result(what, &L, res, refs, NULL, NULL);
  }
  nd_array_release(res);
}

static int layouts_broadcast(const nd_ref_layout *a, const nd_ref_layout *b) {
  const int za = a->ref.ndim == 2 && a->ref.shape[0] == 0, zb = b->ref.ndim == 2 && b->ref.shape[0] == 0;
  const int sa = a->ref.ndim == 0, sb = b->ref.ndim == 0;
  return za == zb || sa || sb;
}

START_TEST(binary_ops_over_layouts) {
  static const struct {
    int op;
    nd_dtype a, b;
  } cases[] = {
      {ND_UFUNC_ADD, ND_FLOAT32, ND_FLOAT32},   {ND_UFUNC_ADD, ND_INT16, ND_INT16},
      {ND_UFUNC_ADD, ND_COMPLEX128, ND_COMPLEX128}, {ND_UFUNC_ADD, ND_FLOAT16, ND_FLOAT16},
      {ND_UFUNC_MULTIPLY, ND_UINT8, ND_UINT8},  {ND_UFUNC_DIVIDE, ND_INT32, ND_INT32},
      {ND_UFUNC_LESS, ND_FLOAT64, ND_FLOAT64},  {ND_UFUNC_LESS_EQUAL, ND_COMPLEX64, ND_COMPLEX64},
      {ND_UFUNC_MAXIMUM, ND_FLOAT32, ND_FLOAT32}, {ND_UFUNC_ARCTAN2, ND_FLOAT64, ND_FLOAT64},
      {ND_UFUNC_BITWISE_XOR, ND_INT64, ND_INT64}, {ND_UFUNC_LOGICAL_AND, ND_BOOL, ND_BOOL},
      {ND_UFUNC_SUBTRACT, ND_INT8, ND_FLOAT32}, /* mixed: input 0 is cast first */
      {ND_UFUNC_EQUAL, ND_INT64, ND_UINT64},    /* the exact mixed-sign loop */
  };
  const int64_t rows = 67, cols = 130;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (int la = 0; la < ND_REF_NUM_LAYOUTS; la++) {
      for (int lb = 0; lb < ND_REF_NUM_LAYOUTS; lb++) {
        nd_ref_layout A, B;
        nd_ref_layout_make((nd_ref_layout_kind)la, cases[c].a, rows, cols, 3, &A);
        nd_ref_layout_make((nd_ref_layout_kind)lb, cases[c].b, rows, cols, 11, &B);
        if (layouts_broadcast(&A, &B)) {
          const nd_dtype dts[2] = {cases[c].a, cases[c].b};
          nd_array *arrs[2] = {A.array, B.array};
          const nd_ref *refs[2] = {&A.ref, &B.ref};
          char what[160];
          snprintf(what, sizeof what, "%s(%s %s, %s %s)", nd_ufunc_name((nd_ufunc)cases[c].op), A.name,
                   nd_dtype_name(cases[c].a), B.name, nd_dtype_name(cases[c].b));
          run_layout_case(cases[c].op, dts, arrs, refs, NULL, what);
        }
        nd_ref_layout_free(&A);
        nd_ref_layout_free(&B);
      }
    }
  }
}
END_TEST

START_TEST(unary_ops_over_layouts) {
  static const struct {
    int op;
    nd_dtype d;
  } cases[] = {
      {ND_UFUNC_EXP, ND_FLOAT32},      {ND_UFUNC_NEGATIVE, ND_INT8},   {ND_UFUNC_ABSOLUTE, ND_COMPLEX64},
      {ND_UFUNC_ISNAN, ND_FLOAT16},    {ND_UFUNC_SQRT, ND_FLOAT64},    {ND_UFUNC_INVERT, ND_UINT16},
      {ND_UFUNC_SIN, ND_COMPLEX128},   {ND_UFUNC_FLOOR, ND_INT32},     {ND_UFUNC_SQRT, ND_INT8},
      {ND_UFUNC_ISFINITE, ND_UINT32},  {ND_UFUNC_REAL, ND_COMPLEX128}, {ND_UFUNC_LOGICAL_NOT, ND_FLOAT64},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (int la = 0; la < ND_REF_NUM_LAYOUTS; la++) {
      nd_ref_layout A;
      nd_ref_layout_make((nd_ref_layout_kind)la, cases[c].d, 67, 130, 5, &A);
      nd_array *arrs[1] = {A.array};
      const nd_ref *refs[1] = {&A.ref};
      char what[128];
      snprintf(what, sizeof what, "%s(%s %s)", nd_ufunc_name((nd_ufunc)cases[c].op), A.name, nd_dtype_name(cases[c].d));
      run_layout_case(cases[c].op, &cases[c].d, arrs, refs, NULL, what);
      nd_ref_layout_free(&A);
    }
  }
}
END_TEST

/* Outputs that are not fresh C arrays: F order, a transposed view, another dtype, a
 * non-contiguous slice. */
START_TEST(outputs_of_every_layout) {
  const int64_t rows = 67, cols = 130;
  const int64_t shape[2] = {rows, cols}, tshape[2] = {cols, rows}, wide[2] = {rows, 2 * cols};
  for (int la = 0; la < ND_REF_NUM_LAYOUTS; la++) {
    nd_ref_layout A, B;
    nd_ref_layout_make((nd_ref_layout_kind)la, ND_FLOAT32, rows, cols, 1, &A);
    nd_ref_layout_make(ND_REF_TRANSPOSED, ND_FLOAT32, rows, cols, 2, &B);
    if (A.ref.ndim == 2 && A.ref.shape[0] == 0) {
      nd_ref_layout_free(&A);
      nd_ref_layout_free(&B);
      continue;
    }
    const nd_dtype dts[2] = {ND_FLOAT32, ND_FLOAT32};
    nd_array *arrs[2] = {A.array, B.array};
    const nd_ref *refs[2] = {&A.ref, &B.ref};
    nd_array *of, *base, *ot, *od, *bw, *os;
    ND_ASSERT_OK(nd_empty_order(2, shape, ND_FLOAT32, ND_ORDER_F, &of));
    run_layout_case(ND_UFUNC_ADD, dts, arrs, refs, of, "add into an F-ordered out");
    ND_ASSERT_OK(nd_empty(2, tshape, ND_FLOAT32, &base));
    ND_ASSERT_OK(nd_array_transpose(base, 0, NULL, &ot));
    run_layout_case(ND_UFUNC_MULTIPLY, dts, arrs, refs, ot, "multiply into a transposed out");
    ND_ASSERT_OK(nd_empty(2, shape, ND_FLOAT64, &od));
    run_layout_case(ND_UFUNC_SUBTRACT, dts, arrs, refs, od, "subtract into a float64 out");
    ND_ASSERT_OK(nd_zeros(2, wide, ND_FLOAT32, &bw));
    nd_slice sl[2] = {{ND_NONE, ND_NONE, ND_NONE}, {1, ND_NONE, 2}};
    ND_ASSERT_OK(nd_array_slice(bw, 2, sl, &os));
    run_layout_case(ND_UFUNC_ADD, dts, arrs, refs, os, "add into a stepped out");
    /* The columns the stepped out skips are untouched. */
    nd_ref wide_host = nd_ref_download(bw);
    for (int64_t k = 0; k < wide_host.size; k += 2) ck_assert(nd_ref_get(&wide_host, k).v.f == 0.0);
    nd_ref_free(&wide_host);
    nd_array_release(of);
    nd_array_release(ot);
    nd_array_release(base);
    nd_array_release(od);
    nd_array_release(os);
    nd_array_release(bw);
    nd_ref_layout_free(&A);
    nd_ref_layout_free(&B);
  }
}
END_TEST

/* ---- kernel paths at sizes that exercise them -------------------------------------------- */

static nd_array *upload_pattern(nd_dtype dt, int ndim, const int64_t *shape, int64_t seed, nd_ref *host) {
  *host = nd_ref_new(dt, ndim, shape);
  nd_ref_fill_pattern(host, seed);
  return nd_ref_upload(host);
}

static void binary_case(int op, nd_dtype dt, int nda, const int64_t *sa, int ndb, const int64_t *sb, const char *what) {
  nd_ref ha, hb;
  nd_array *a = upload_pattern(dt, nda, sa, 1, &ha), *b = upload_pattern(dt, ndb, sb, 7, &hb);
  nd_array *arrs[2] = {a, b};
  const nd_ref *refs[2] = {&ha, &hb};
  const nd_dtype dts[2] = {dt, dt};
  run_layout_case(op, dts, arrs, refs, NULL, what);
  nd_array_release(a);
  nd_array_release(b);
  nd_ref_free(&ha);
  nd_ref_free(&hb);
}

START_TEST(vector_broadcast_and_tiled_paths) {
  const int64_t big[1] = {(1 << 22) + 5};
  binary_case(ND_UFUNC_ADD, ND_FLOAT32, 1, big, 1, big, "add float32 4M+5");
  binary_case(ND_UFUNC_MULTIPLY, ND_FLOAT64, 1, big, 1, big, "multiply float64 4M+5");
  binary_case(ND_UFUNC_ADD, ND_INT8, 1, big, 1, big, "add int8 4M+5");
  binary_case(ND_UFUNC_ADD, ND_COMPLEX128, 1, big, 1, big, "add complex128 4M+5");
  const int64_t m[2] = {300, 1024}, row[1] = {1024}, col[2] = {300, 1}, odd[2] = {300, 4093}, oddrow[1] = {4093};
  binary_case(ND_UFUNC_ADD, ND_FLOAT32, 2, m, 1, row, "add float32 + row");
  binary_case(ND_UFUNC_ADD, ND_FLOAT32, 1, row, 2, m, "add row + float32");
  binary_case(ND_UFUNC_SUBTRACT, ND_FLOAT32, 2, m, 2, col, "subtract float32 - column");
  binary_case(ND_UFUNC_ADD, ND_FLOAT16, 2, odd, 1, oddrow, "add float16 + row, odd length");
  binary_case(ND_UFUNC_GREATER, ND_INT32, 2, odd, 1, oddrow, "greater int32 vs row, odd length");
  binary_case(ND_UFUNC_MULTIPLY, ND_COMPLEX64, 2, m, 1, row, "multiply complex64 by row");
  const int64_t s3a[3] = {5, 1, 7}, s3b[3] = {1, 6, 1};
  binary_case(ND_UFUNC_ADD, ND_INT64, 3, s3a, 3, s3b, "add (5,1,7) + (1,6,1)");
  const int64_t tall[2] = {100000, 3}, tcol[2] = {100000, 1};
  binary_case(ND_UFUNC_ADD, ND_FLOAT32, 2, tall, 2, tcol, "add (100000,3) + (100000,1): short rows");
  /* Transposed second operand: the tiled path, with edges that are not multiples of 32. */
  const int64_t tdims[][2] = {{100, 70}, {64, 64}, {33, 1000}, {1000, 17}};
  const nd_dtype tdt[] = {ND_FLOAT32, ND_FLOAT64, ND_INT8, ND_COMPLEX128, ND_FLOAT16};
  for (size_t t = 0; t < sizeof tdims / sizeof tdims[0]; t++) {
    for (size_t d = 0; d < sizeof tdt / sizeof tdt[0]; d++) {
      const int64_t s[2] = {tdims[t][0], tdims[t][1]}, st[2] = {tdims[t][1], tdims[t][0]};
      nd_ref ha, hb0;
      nd_array *a = upload_pattern(tdt[d], 2, s, 1, &ha), *b0 = upload_pattern(tdt[d], 2, st, 9, &hb0), *b;
      ND_ASSERT_OK(nd_array_transpose(b0, 0, NULL, &b));
      const int perm[2] = {1, 0};
      nd_ref hb = nd_ref_permute(&hb0, perm);
      const nd_dtype dts[2] = {tdt[d], tdt[d]};
      char what[128];
      snprintf(what, sizeof what, "add %s (%lld,%lld) + transposed", nd_dtype_name(tdt[d]), (long long)s[0], (long long)s[1]);
      nd_array *ab[2] = {a, b}, *ba[2] = {b, a};
      const nd_ref *rab[2] = {&ha, &hb}, *rba[2] = {&hb, &ha};
      run_layout_case(ND_UFUNC_ADD, dts, ab, rab, NULL, what);
      run_layout_case(ND_UFUNC_SUBTRACT, dts, ba, rba, NULL, what);
      nd_array_release(a);
      nd_array_release(b0);
      nd_array_release(b);
      nd_ref_free(&ha);
      nd_ref_free(&hb0);
    }
  }
}
END_TEST

/* The vec path's work units (U vectors of 256 threads along one row, U = 4 for one input):
 * long rows, many rows with a partial unit at the end of each (more units than resident
 * blocks), broadcast rows and columns, padded rows with a tail that is not a whole vector,
 * and an in-place unary op. */
static void unary_case(int op, nd_dtype dt, int nd, const int64_t *shape, const char *what) {
  nd_ref h;
  nd_array *a = upload_pattern(dt, nd, shape, 3, &h);
  nd_array *arrs[1] = {a};
  const nd_ref *refs[1] = {&h};
  run_layout_case(op, &dt, arrs, refs, NULL, what);
  nd_array_release(a);
  nd_ref_free(&h);
}

START_TEST(vector_path_units) {
  const int64_t big[1] = {(1 << 22) + 7}, odd1[1] = {4093};
  unary_case(ND_UFUNC_EXP, ND_FLOAT32, 1, big, "exp float32 4M+7");
  unary_case(ND_UFUNC_SQRT, ND_FLOAT64, 1, big, "sqrt float64 4M+7");
  unary_case(ND_UFUNC_NEGATIVE, ND_INT8, 1, big, "negative int8 4M+7");
  unary_case(ND_UFUNC_SIN, ND_FLOAT16, 1, odd1, "sin float16 4093");
  const int64_t m[2] = {700, 9000}, row[1] = {9000}, n[2] = {400, 10000}, col[2] = {400, 1};
  binary_case(ND_UFUNC_ADD, ND_FLOAT32, 2, m, 1, row, "add float32 (700,9000) + row");
  binary_case(ND_UFUNC_MULTIPLY, ND_FLOAT32, 2, n, 2, col, "multiply float32 (400,10000) by column");
  const int64_t wide[2] = {37, 70000}, wrow[1] = {70000};
  binary_case(ND_UFUNC_SUBTRACT, ND_INT16, 2, wide, 1, wrow, "subtract int16 (37,70000) - row");
  /* Padded rows (an offset view) on the vec path, unary: 4097 columns, one tail element a row. */
  {
    nd_ref h0;
    const int64_t base[2] = {301, 4104}; /* rows of 16416 bytes: 16-byte aligned */
    nd_array *a0 = upload_pattern(ND_FLOAT32, 2, base, 5, &h0), *a;
    const nd_slice sl[2] = {{1, ND_NONE, ND_NONE}, {4, 4101, ND_NONE}};
    ND_ASSERT_OK(nd_array_slice(a0, 2, sl, &a));
    nd_ref h = nd_ref_slice(&h0, 2, sl);
    const nd_dtype dt = ND_FLOAT32;
    nd_array *arrs[1] = {a};
    const nd_ref *refs[1] = {&h};
    run_layout_case(ND_UFUNC_EXP, &dt, arrs, refs, NULL, "exp float32 (300,4097) with padded rows");
    nd_array_release(a);
    nd_array_release(a0);
    nd_ref_free(&h0);
  }
  /* In place: every vector of a unit is loaded before any is stored. */
  {
    nd_ref h;
    nd_array *a = upload_pattern(ND_FLOAT32, 1, big, 9, &h), *r;
    ND_ASSERT_OK(nd_square(a, a, &r));
    ck_assert_ptr_eq(r, a);
    nd_ref got = nd_ref_download(a);
    for (int64_t k = 0; k < got.size; k++) {
      const float x = (float)nd_ref_get(&h, k).v.f, want = x * x;
      ck_assert_msg((float)nd_ref_get(&got, k).v.f == want, "square in place [%lld]: %g, want %g", (long long)k,
                    nd_ref_get(&got, k).v.f, (double)want);
    }
    nd_ref_free(&got);
    nd_array_release(r);
    nd_array_release(a);
    nd_ref_free(&h);
  }
}
END_TEST

/* Light float32 math over one contiguous row (k_flat: one float4 per thread, the last n % 4
 * elements in block 0): sizes around the vector and block widths and past one wave, views that
 * start 16 bytes in (k_flat) and 4 bytes in (not aligned: the strided path), and in place. */
START_TEST(flat_path_sizes_and_offsets) {
  static const int ops[] = {ND_UFUNC_EXP, ND_UFUNC_SIN, ND_UFUNC_SQRT, ND_UFUNC_LOG};
  static const int64_t sizes[] = {1, 3, 4, 5, 255, 1023, 1024, 1025, 3 * 1024 + 2, 4 * 65536 + 1, 5000003};
  char what[96];
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      snprintf(what, sizeof what, "ufunc %d float32 (%lld)", ops[i], (long long)sizes[k]);
      unary_case(ops[i], ND_FLOAT32, 1, &sizes[k], what);
    }
  const int64_t n0[1] = {40003};
  const int64_t starts[] = {4, 1, 8};
  for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
    nd_ref h0;
    nd_array *a0 = upload_pattern(ND_FLOAT32, 1, n0, 11, &h0), *a;
    const nd_slice sl[1] = {{starts[k], n0[0] - 3, ND_NONE}};
    ND_ASSERT_OK(nd_array_slice(a0, 1, sl, &a));
    nd_ref h = nd_ref_slice(&h0, 1, sl);
    const nd_dtype dt = ND_FLOAT32;
    nd_array *arrs[1] = {a};
    const nd_ref *refs[1] = {&h};
    snprintf(what, sizeof what, "exp float32 [%lld:%lld]", (long long)starts[k], (long long)(n0[0] - 3));
    run_layout_case(ND_UFUNC_EXP, &dt, arrs, refs, NULL, what);
    snprintf(what, sizeof what, "sin float32 [%lld:%lld]", (long long)starts[k], (long long)(n0[0] - 3));
    run_layout_case(ND_UFUNC_SIN, &dt, arrs, refs, NULL, what);
    nd_array_release(a);
    nd_array_release(a0);
    nd_ref_free(&h0);
  }
  /* In place, 4 * 300000 + 3 elements: every element equal to the sqrt of its old value. */
  {
    const int64_t n[1] = {1200003};
    nd_ref h;
    nd_array *a = upload_pattern(ND_FLOAT32, 1, n, 13, &h), *abs_a, *r;
    ND_ASSERT_OK(nd_absolute(a, a, &abs_a));
    nd_array_release(abs_a);
    nd_ref before = nd_ref_download(a);
    ND_ASSERT_OK(nd_sqrt(a, a, &r));
    ck_assert_ptr_eq(r, a);
    nd_ref got = nd_ref_download(a);
    for (int64_t k = 0; k < got.size; k++) {
      const float want = sqrtf((float)nd_ref_get(&before, k).v.f);
      ck_assert_msg((float)nd_ref_get(&got, k).v.f == want, "sqrt in place [%lld]: %g, want %g", (long long)k,
                    nd_ref_get(&got, k).v.f, (double)want);
    }
    nd_ref_free(&got);
    nd_ref_free(&before);
    nd_array_release(r);
    nd_array_release(a);
    nd_ref_free(&h);
  }
}
END_TEST

/* Float32 operations of two float32 inputs over one contiguous row (k_flat with two inputs):
 * sizes around the vector and block widths and past one wave, against a broadcast operand of
 * one element (the vec path), views of both operands starting 16 bytes in or 4 bytes in (either
 * one not aligned: the strided path), and in place. */
START_TEST(flat_path_binary) {
  static const int ops[] = {ND_UFUNC_ADD, ND_UFUNC_MULTIPLY, ND_UFUNC_SUBTRACT, ND_UFUNC_MAXIMUM, ND_UFUNC_COPYSIGN,
                            ND_UFUNC_NEXTAFTER};
  static const int64_t sizes[] = {1, 3, 4, 5, 255, 1023, 1024, 1025, 3 * 1024 + 2, 4 * 65536 + 1, 5000003};
  static const int64_t one[1] = {1};
  char what[96];
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      snprintf(what, sizeof what, "ufunc %d float32 (%lld)", ops[i], (long long)sizes[k]);
      binary_case(ops[i], ND_FLOAT32, 1, &sizes[k], 1, &sizes[k], what);
      snprintf(what, sizeof what, "ufunc %d float32 (%lld) and (1,)", ops[i], (long long)sizes[k]);
      binary_case(ops[i], ND_FLOAT32, 1, &sizes[k], 1, one, what);
    }
  const int64_t n0[1] = {40003};
  static const int64_t starts[][2] = {{4, 8}, {8, 4}, {1, 4}, {4, 1}, {1, 1}};
  for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
    nd_ref ha0, hb0;
    nd_array *a0 = upload_pattern(ND_FLOAT32, 1, n0, 11, &ha0), *b0 = upload_pattern(ND_FLOAT32, 1, n0, 17, &hb0);
    const int64_t len = n0[0] - 11;
    const nd_slice sa[1] = {{starts[k][0], starts[k][0] + len, ND_NONE}};
    const nd_slice sb[1] = {{starts[k][1], starts[k][1] + len, ND_NONE}};
    nd_array *a, *b;
    ND_ASSERT_OK(nd_array_slice(a0, 1, sa, &a));
    ND_ASSERT_OK(nd_array_slice(b0, 1, sb, &b));
    nd_ref ha = nd_ref_slice(&ha0, 1, sa), hb = nd_ref_slice(&hb0, 1, sb);
    const nd_dtype dts[2] = {ND_FLOAT32, ND_FLOAT32};
    nd_array *arrs[2] = {a, b};
    const nd_ref *refs[2] = {&ha, &hb};
    snprintf(what, sizeof what, "add float32 a[%lld:] b[%lld:]", (long long)starts[k][0], (long long)starts[k][1]);
    run_layout_case(ND_UFUNC_ADD, dts, arrs, refs, NULL, what);
    nd_array_release(a);
    nd_array_release(b);
    nd_array_release(a0);
    nd_array_release(b0);
    nd_ref_free(&ha0);
    nd_ref_free(&hb0);
  }
  /* In place, 4 * 300000 + 3 elements: a = a * b, each element the float32 product. */
  {
    const int64_t n[1] = {1200003};
    nd_ref ha, hb;
    nd_array *a = upload_pattern(ND_FLOAT32, 1, n, 13, &ha), *b = upload_pattern(ND_FLOAT32, 1, n, 19, &hb), *r;
    ND_ASSERT_OK(nd_multiply(a, b, a, &r));
    ck_assert_ptr_eq(r, a);
    nd_ref got = nd_ref_download(a);
    for (int64_t k = 0; k < got.size; k++) {
      const float want = (float)nd_ref_get(&ha, k).v.f * (float)nd_ref_get(&hb, k).v.f;
      ck_assert_msg((float)nd_ref_get(&got, k).v.f == want, "multiply in place [%lld]: %g, want %g", (long long)k,
                    nd_ref_get(&got, k).v.f, (double)want);
    }
    nd_ref_free(&got);
    nd_array_release(r);
    nd_array_release(a);
    nd_array_release(b);
    nd_ref_free(&ha);
    nd_ref_free(&hb);
  }
}
END_TEST

/* The tiled path (a transposed operand) at shapes around its tile side (32), with byte
 * offsets on both operands, a transposed operand whose rows run backwards, the transposed
 * operand on either side, and both operands transposed into a C-ordered out (two tiles in
 * shared memory). */
START_TEST(tiled_path_edges_and_offsets) {
  const int64_t dims[][2] = {{16, 16}, {64, 128}, {65, 129}, {130, 200}, {200, 63}, {17, 300}, {96, 33}};
  const nd_dtype tdt[] = {ND_FLOAT32, ND_INT16, ND_BOOL, ND_FLOAT64, ND_COMPLEX64};
  for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
    for (size_t d = 0; d < sizeof tdt / sizeof tdt[0]; d++) {
      const int64_t R = dims[t][0], C = dims[t][1];
      const nd_dtype dt = tdt[d];
      /* a = A0[1:, 2:] of a (R+1, C+2) array: a byte offset and padded rows. */
      const int64_t sa0[2] = {R + 1, C + 2};
      const nd_slice sla[2] = {{1, ND_NONE, ND_NONE}, {2, ND_NONE, ND_NONE}};
      nd_ref ha0;
      nd_array *a0 = upload_pattern(dt, 2, sa0, 1, &ha0), *a;
      ND_ASSERT_OK(nd_array_slice(a0, 2, sla, &a));
      nd_ref ha = nd_ref_slice(&ha0, 2, sla);
      /* bt = (B0[3:, 1:]).T of a (C+3, R+1) array: transposed with an offset. */
      const int64_t sb0[2] = {C + 3, R + 1};
      const nd_slice slb[2] = {{3, ND_NONE, ND_NONE}, {1, ND_NONE, ND_NONE}};
      const int perm[2] = {1, 0};
      nd_ref hb0;
      nd_array *b0 = upload_pattern(dt, 2, sb0, 7, &hb0), *bs, *bt;
      ND_ASSERT_OK(nd_array_slice(b0, 2, slb, &bs));
      ND_ASSERT_OK(nd_array_transpose(bs, 0, NULL, &bt));
      nd_ref hbs = nd_ref_slice(&hb0, 2, slb), hbt = nd_ref_permute(&hbs, perm);
      /* ct = (C0[:, ::-1]).T of a (C, R) array: transposed, rows running backwards. */
      const int64_t sc0[2] = {C, R};
      const nd_slice slc[2] = {{ND_NONE, ND_NONE, ND_NONE}, {ND_NONE, ND_NONE, -1}};
      nd_ref hc0;
      nd_array *c0 = upload_pattern(dt, 2, sc0, 13, &hc0), *cs, *ct;
      ND_ASSERT_OK(nd_array_slice(c0, 2, slc, &cs));
      ND_ASSERT_OK(nd_array_transpose(cs, 0, NULL, &ct));
      nd_ref hcs = nd_ref_slice(&hc0, 2, slc), hct = nd_ref_permute(&hcs, perm);

      const nd_dtype dts[2] = {dt, dt};
      char what[160];
      const char *dn = nd_dtype_name(dt);
      {
        nd_array *x[2] = {a, bt};
        const nd_ref *rx[2] = {&ha, &hbt};
        snprintf(what, sizeof what, "add %s (%lld,%lld) offset + transposed offset", dn, (long long)R, (long long)C);
        run_layout_case(ND_UFUNC_ADD, dts, x, rx, NULL, what);
      }
      {
        nd_array *x[2] = {bt, a};
        const nd_ref *rx[2] = {&hbt, &ha};
        snprintf(what, sizeof what, "maximum %s (%lld,%lld) transposed offset, offset", dn, (long long)R, (long long)C);
        run_layout_case(ND_UFUNC_MAXIMUM, dts, x, rx, NULL, what);
      }
      {
        nd_array *x[2] = {a, ct};
        const nd_ref *rx[2] = {&ha, &hct};
        snprintf(what, sizeof what, "less %s (%lld,%lld) offset < transposed reversed", dn, (long long)R, (long long)C);
        run_layout_case(ND_UFUNC_LESS, dts, x, rx, NULL, what);
      }
      {
        const int64_t so[2] = {R, C};
        nd_array *out;
        ND_ASSERT_OK(nd_empty(2, so, dt, &out));
        nd_array *x[2] = {bt, ct};
        const nd_ref *rx[2] = {&hbt, &hct};
        snprintf(what, sizeof what, "add %s (%lld,%lld) both transposed into a C out", dn, (long long)R, (long long)C);
        run_layout_case(ND_UFUNC_ADD, dts, x, rx, out, what);
        nd_array_release(out);
      }
      nd_array_release(a);
      nd_array_release(a0);
      nd_array_release(bs);
      nd_array_release(bt);
      nd_array_release(b0);
      nd_array_release(cs);
      nd_array_release(ct);
      nd_array_release(c0);
      nd_ref_free(&ha0);
      nd_ref_free(&hb0);
      nd_ref_free(&hc0);
    }
  }
}
END_TEST

/* More tile rows than the grid's y limit (65535 tiles of 32 rows). */
START_TEST(tiled_path_past_the_grid_limit) {
  const int64_t R = 65535 * 32 + 40, C = 16;
  const int64_t sa[2] = {R, C}, sb[2] = {C, R};
  nd_ref ha, hb;
  nd_array *a = upload_pattern(ND_FLOAT32, 2, sa, 3, &ha);
  nd_array *b = upload_pattern(ND_FLOAT32, 2, sb, 5, &hb), *bt;
  ND_ASSERT_OK(nd_array_transpose(b, 0, NULL, &bt));
  const int perm[2] = {1, 0};
  nd_ref hbt = nd_ref_permute(&hb, perm);
  const nd_dtype dts[2] = {ND_FLOAT32, ND_FLOAT32};
  nd_array *x[2] = {a, bt};
  const nd_ref *rx[2] = {&ha, &hbt};
  run_layout_case(ND_UFUNC_ADD, dts, x, rx, NULL, "add float32 (2097160, 16) + transposed");
  nd_array_release(bt);
  nd_array_release(b);
  nd_array_release(a);
  nd_ref_free(&ha);
  nd_ref_free(&hb);
}
END_TEST

/* ---- scalars, promotion, out ----------------------------------------------------------------- */

static nd_array *arr_f64(int64_t n, const double *v, nd_dtype dt) {
  nd_ref r = nd_ref_new(dt, 1, &n);
  for (int64_t k = 0; k < n; k++) nd_ref_set(&r, k, sc_f(dt, v[k]));
  nd_array *a = nd_ref_upload(&r);
  nd_ref_free(&r);
  return a;
}

static void expect_values(const nd_array *a, nd_dtype dt, int64_t n, const double *want, const char *what) {
  ck_assert_msg(nd_array_dtype(a) == dt, "%s: dtype %s, want %s", what, nd_dtype_name(nd_array_dtype(a)), nd_dtype_name(dt));
  ck_assert_int_eq(nd_array_size(a), n);
  nd_ref got = nd_ref_download(a);
  for (int64_t k = 0; k < n; k++) {
    nd_scalar g = nd_ref_cast(nd_ref_get(&got, k), ND_FLOAT64);
    ck_assert_msg(g.v.f == want[k] || (isnan(g.v.f) && isnan(want[k])), "%s[%lld]: got %.17g, want %.17g", what,
                  (long long)k, g.v.f, want[k]);
  }
  nd_ref_free(&got);
}

START_TEST(scalars_and_promotion) {
  const double v[4] = {1, 2, 250, 100};
  nd_array *u8 = arr_f64(4, v, ND_UINT8), *f16 = arr_f64(4, v, ND_FLOAT16), *i8 = arr_f64(4, v, ND_INT8), *r;
  /* uint8 + 10 stays uint8 and wraps; uint8 + 1.5 is float64. */
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){nd_arg(u8), nd_arg_scalar(nd_scalar_int(10))}, NULL, &r));
  expect_values(r, ND_UINT8, 4, (double[]){11, 12, 4, 110}, "uint8 + 10");
  nd_array_release(r);
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){nd_arg_scalar(nd_scalar_float(1.5)), nd_arg(u8)}, NULL, &r));
  expect_values(r, ND_FLOAT64, 4, (double[]){2.5, 3.5, 251.5, 101.5}, "1.5 + uint8");
  nd_array_release(r);
  /* float16 + 1e5 stays float16 (inf); a strong float32 scalar promotes to float32. */
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){nd_arg(f16), nd_arg_scalar(nd_scalar_float(1e5))}, NULL, &r));
  expect_values(r, ND_FLOAT16, 4, (double[]){INFINITY, INFINITY, INFINITY, INFINITY}, "float16 * 1e5");
  nd_array_release(r);
  nd_scalar s32 = {.dtype = ND_FLOAT32, .v.f = 0.5};
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){nd_arg(f16), nd_arg_scalar(s32)}, NULL, &r));
  expect_values(r, ND_FLOAT32, 4, (double[]){0.5, 1, 125, 50}, "float16 * float32(0.5)");
  nd_array_release(r);
  /* int8 (holding 1, 2, -6, 100) / 2 is float64; int8 // -3; complex scalar. */
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_DIVIDE, 2, (nd_operand[]){nd_arg(i8), nd_arg_scalar(nd_scalar_int(2))}, NULL, &r));
  expect_values(r, ND_FLOAT64, 4, (double[]){0.5, 1, -3, 50}, "int8 / 2");
  nd_array_release(r);
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_FLOOR_DIVIDE, 2, (nd_operand[]){nd_arg(i8), nd_arg_scalar(nd_scalar_int(-3))}, NULL, &r));
  expect_values(r, ND_INT8, 4, (double[]){-1, -1, 2, -34}, "int8 // -3");
  nd_array_release(r);
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){nd_arg(f16), nd_arg_scalar(nd_scalar_complex(0, 1))}, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_COMPLEX64);
  nd_array_release(r);
  /* All-scalar calls give 0-d results with the default dtypes. */
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){nd_arg_scalar(nd_scalar_int(2)), nd_arg_scalar(nd_scalar_int(3))}, NULL, &r));
  ck_assert_int_eq(nd_array_ndim(r), 0);
  expect_values(r, ND_INT64, 1, (double[]){5}, "2 + 3");
  nd_array_release(r);
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_SQRT, 1, (nd_operand[]){nd_arg_scalar(nd_scalar_int(16))}, NULL, &r));
  expect_values(r, ND_FLOAT64, 1, (double[]){4}, "sqrt(16)");
  nd_array_release(r);
  /* Comparisons with an out-of-range Python int answer by value. */
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_LESS, 2, (nd_operand[]){nd_arg(u8), nd_arg_scalar(nd_scalar_int(300))}, NULL, &r));
  expect_values(r, ND_BOOL, 4, (double[]){1, 1, 1, 1}, "uint8 < 300");
  nd_array_release(r);
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_EQUAL, 2, (nd_operand[]){nd_arg(u8), nd_arg_scalar(nd_scalar_int(-1))}, NULL, &r));
  expect_values(r, ND_BOOL, 4, (double[]){0, 0, 0, 0}, "uint8 == -1");
  nd_array_release(r);
  /* uint8 + 300 is refused and leaves out untouched. */
  nd_array *o;
  ND_ASSERT_OK(nd_full(1, (int64_t[]){4}, nd_scalar_int(9), ND_UINT8, &o));
  nd_array *keep = (nd_array *)0x1;
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){nd_arg(u8), nd_arg_scalar(nd_scalar_int(300))}, o, &keep),
                  ND_ERR_VALUE, "nd_add: Python integer 300 out of bounds for uint8");
  ck_assert_ptr_eq(keep, (nd_array *)0x1);
  expect_values(o, ND_UINT8, 4, (double[]){9, 9, 9, 9}, "out after a refused call");
  nd_array_release(o);
  /* Integer power: array exponents with negative values give the truncated power. */
  const double e[4] = {-1, -2, 3, -1};
  const double base[4] = {1, -1, 2, 5};
  nd_array *be = arr_f64(4, base, ND_INT16), *ee = arr_f64(4, e, ND_INT16);
  ND_ASSERT_OK(nd_power(be, ee, NULL, &r));
  expect_values(r, ND_INT16, 4, (double[]){1, 1, 8, 0}, "int16 power with negative exponents");
  nd_array_release(r);
  nd_array_release(be);
  nd_array_release(ee);
  /* Mixed signs: int64 vs uint64 compare exactly at the 2^63 edge. */
  nd_ref hi = nd_ref_new(ND_INT64, 1, (int64_t[]){3}), hu = nd_ref_new(ND_UINT64, 1, (int64_t[]){3});
  const int64_t iv[3] = {-1, INT64_MAX, 5};
  const uint64_t uv[3] = {UINT64_MAX, (uint64_t)INT64_MAX + 1, 5};
  for (int k = 0; k < 3; k++) {
    nd_ref_set(&hi, k, (nd_scalar){.dtype = ND_INT64, .v.i = iv[k]});
    nd_ref_set(&hu, k, (nd_scalar){.dtype = ND_UINT64, .v.u = uv[k]});
  }
  nd_array *di = nd_ref_upload(&hi), *du = nd_ref_upload(&hu);
  ND_ASSERT_OK(nd_less(di, du, NULL, &r));
  expect_values(r, ND_BOOL, 3, (double[]){1, 1, 0}, "int64 < uint64");
  nd_array_release(r);
  ND_ASSERT_OK(nd_greater_equal(du, di, NULL, &r));
  expect_values(r, ND_BOOL, 3, (double[]){1, 1, 1}, "uint64 >= int64");
  nd_array_release(r);
  ND_ASSERT_OK(nd_equal(du, di, NULL, &r));
  expect_values(r, ND_BOOL, 3, (double[]){0, 0, 1}, "uint64 == int64");
  nd_array_release(r);
  nd_array_release(di);
  nd_array_release(du);
  nd_ref_free(&hi);
  nd_ref_free(&hu);
  nd_array_release(u8);
  nd_array_release(f16);
  nd_array_release(i8);
}
END_TEST

START_TEST(in_place_and_overlapping_out) {
  const int64_t n = 1000;
  double v[1000];
  for (int k = 0; k < n; k++) v[k] = k;
  nd_array *a = arr_f64(n, v, ND_FLOAT32), *r;
  /* a = a * a, in place. */
  ND_ASSERT_OK(nd_multiply(a, a, a, &r));
  ck_assert_ptr_eq(r, a);
  nd_array_release(r);
  double want[1000];
  for (int k = 0; k < n; k++) want[k] = (double)k * k;
  expect_values(a, ND_FLOAT32, n, want, "a *= a");
  /* With out given, result may be NULL: c = c + c. */
  nd_array *c = arr_f64(n, v, ND_FLOAT32);
  ND_ASSERT_OK(nd_add(c, c, c, NULL));
  double twice[1000];
  for (int k = 0; k < n; k++) twice[k] = 2.0 * k;
  expect_values(c, ND_FLOAT32, n, twice, "c += c (result NULL)");
  nd_array_release(c);
  /* a[1:] = a[:-1] + 1 must read every input before writing (NumPy's overlap rule). */
  nd_array *x = arr_f64(n, v, ND_FLOAT64), *hi, *lo;
  ND_ASSERT_OK(nd_array_slice(x, 1, (nd_slice[]){{1, ND_NONE, ND_NONE}}, &hi));
  ND_ASSERT_OK(nd_array_slice(x, 1, (nd_slice[]){{ND_NONE, -1, ND_NONE}}, &lo));
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){nd_arg(lo), nd_arg_scalar(nd_scalar_int(1))}, hi, &r));
  nd_array_release(r);
  for (int k = 0; k < n; k++) want[k] = k == 0 ? 0 : (double)(k - 1) + 1;
  expect_values(x, ND_FLOAT64, n, want, "x[1:] = x[:-1] + 1");
  /* Reversed view as out of its own input. */
  nd_array *rev;
  ND_ASSERT_OK(nd_array_flip(x, 0, NULL, &rev));
  ND_ASSERT_OK(nd_negative(x, rev, &r));
  nd_array_release(r);
  nd_ref hx = nd_ref_download(x);
  /* x held 0, 1, ..., n-1; x[::-1] = -x makes x[k] = -(n-1-k). */
  for (int k = 0; k < n; k++)
    ck_assert_msg(nd_ref_get(&hx, k).v.f == -(double)(n - 1 - k), "x[::-1] = -x at %d: %g", k, nd_ref_get(&hx, k).v.f);
  nd_ref_free(&hx);
  /* Out of another dtype, and inputs broadcast to a larger out. */
  nd_array *o64, *ones3, *out23;
  ND_ASSERT_OK(nd_zeros(1, &n, ND_FLOAT64, &o64));
  ND_ASSERT_OK(nd_add(a, a, o64, &r));
  nd_array_release(r);
  for (int k = 0; k < n; k++) want[k] = 2.0 * k * k;
  expect_values(o64, ND_FLOAT64, n, want, "float32 + float32 into float64 out");
  ND_ASSERT_OK(nd_ones(1, (int64_t[]){3}, ND_INT16, &ones3));
  ND_ASSERT_OK(nd_zeros(2, (int64_t[]){2, 3}, ND_INT64, &out23));
  ND_ASSERT_OK(nd_add(ones3, ones3, out23, &r));
  nd_array_release(r);
  expect_values(out23, ND_INT64, 6, (double[]){2, 2, 2, 2, 2, 2}, "(3,) + (3,) into a (2,3) out");
  /* Zero-size operands broadcast and give empty results. */
  nd_array *z, *row;
  ND_ASSERT_OK(nd_empty(2, (int64_t[]){0, 5}, ND_FLOAT32, &z));
  ND_ASSERT_OK(nd_ones(1, (int64_t[]){5}, ND_FLOAT32, &row));
  ND_ASSERT_OK(nd_add(z, row, NULL, &r));
  ck_assert_int_eq(nd_array_ndim(r), 2);
  ck_assert_int_eq(nd_array_dim(r, 0), 0);
  ck_assert_int_eq(nd_array_dim(r, 1), 5);
  nd_array_release(r);
  nd_array_release(z);
  nd_array_release(row);
  nd_array_release(o64);
  nd_array_release(ones3);
  nd_array_release(out23);
  nd_array_release(rev);
  nd_array_release(hi);
  nd_array_release(lo);
  nd_array_release(x);
  nd_array_release(a);
}
END_TEST

/* ---- the functions built on the ufuncs --------------------------------------------------- */

START_TEST(where_clip_and_rounding) {
  const double c[6] = {0, 1, NAN, -0.0, 2, 0};
  const double xv[6] = {1, 2, 3, 4, 5, 6};
  nd_array *cond = arr_f64(6, c, ND_FLOAT32), *x = arr_f64(6, xv, ND_INT16), *r;
  ND_ASSERT_OK(nd_where(nd_arg(cond), nd_arg(x), nd_arg_scalar(nd_scalar_float(-0.5)), NULL, &r));
  expect_values(r, ND_FLOAT64, 6, (double[]){-0.5, 2, 3, -0.5, 5, -0.5}, "where(float cond, int16, -0.5)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_where(nd_arg_scalar(nd_scalar_bool(0)), nd_arg(x), nd_arg_scalar(nd_scalar_int(7)), NULL, &r));
  expect_values(r, ND_INT16, 6, (double[]){7, 7, 7, 7, 7, 7}, "where(False, int16, 7)");
  nd_array_release(r);
  /* clip: scalars, None, arrays, NaN, lo > hi, saturated weak bounds. */
  const double cv[6] = {-5, 0.5, NAN, 3, 10, -0.0};
  nd_array *f = arr_f64(6, cv, ND_FLOAT32), *u8 = arr_f64(6, xv, ND_UINT8);
  ND_ASSERT_OK(nd_clip(f, nd_arg_scalar(nd_scalar_float(0)), nd_arg_scalar(nd_scalar_float(4)), NULL, &r));
  expect_values(r, ND_FLOAT32, 6, (double[]){0, 0.5, NAN, 3, 4, 0}, "clip(f32, 0, 4)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_clip(f, nd_arg_none(), nd_arg_scalar(nd_scalar_int(1)), NULL, &r));
  expect_values(r, ND_FLOAT32, 6, (double[]){-5, 0.5, NAN, 1, 1, -0.0}, "clip(f32, None, 1)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_clip(f, nd_arg_scalar(nd_scalar_float(3)), nd_arg_scalar(nd_scalar_float(1)), NULL, &r));
  expect_values(r, ND_FLOAT32, 6, (double[]){1, 1, NAN, 1, 1, 1}, "clip(f32, 3, 1)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_clip(u8, nd_arg_scalar(nd_scalar_int(-1)), nd_arg_scalar(nd_scalar_int(300)), NULL, &r));
  expect_values(r, ND_UINT8, 6, xv, "clip(uint8, -1, 300)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_clip(u8, nd_arg(x), nd_arg_scalar(nd_scalar_int(4)), NULL, &r));
  expect_values(r, ND_INT16, 6, (double[]){1, 2, 3, 4, 4, 4}, "clip(uint8, int16 array, 4)");
  nd_array_release(r);
  /* round. */
  const double rv[6] = {2.5, -0.125, 1.005, 1234.5678, NAN, -2.5};
  nd_array *rf = arr_f64(6, rv, ND_FLOAT32), *rd = arr_f64(6, rv, ND_FLOAT64), *rh = arr_f64(6, rv, ND_FLOAT16);
  ND_ASSERT_OK(nd_round(rf, 0, NULL, &r));
  expect_values(r, ND_FLOAT32, 6, (double[]){2, -0.0, 1, 1235, NAN, -2}, "round(f32)");
  nd_array_release(r);
  for (int d = -3; d <= 3; d++) {
    const nd_array *srcs[3] = {rf, rd, rh};
    for (int s = 0; s < 3; s++) {
      nd__ufunc_loop L;
      memset(&L, 0, sizeof L);
      L.kop = d == 0 ? ND_UFUNC_RINT : ND_KOP_ROUND;
      L.key = L.out = L.in[0] = nd_array_dtype(srcs[s]);
      L.nin = 1;
      nd_kparams p = {.i = d};
      ND_ASSERT_OK(nd_round(srcs[s], d, NULL, &r));
      nd_ref hs = nd_ref_download(srcs[s]);
      const nd_ref *refs[1] = {&hs};
      char what[64];
      snprintf(what, sizeof what, "round(%s, %d)", nd_dtype_name(L.key), d);
      check_result(what, &L, r, refs, NULL, &p);
      nd_ref_free(&hs);
      nd_array_release(r);
    }
  }
  const double iv[6] = {15, 25, -25, 125, -126, 5};
  nd_array *i32 = arr_f64(6, iv, ND_INT32), *i8 = arr_f64(6, iv, ND_INT8), *b = arr_f64(6, c, ND_BOOL);
  ND_ASSERT_OK(nd_round(i32, -1, NULL, &r));
  expect_values(r, ND_INT32, 6, (double[]){20, 20, -20, 120, -130, 0}, "round(int32, -1)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_round(i8, 2, NULL, &r));
  expect_values(r, ND_INT8, 6, iv, "round(int8, 2)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_round(b, 0, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT16);
  nd_array_release(r);
  nd_array *cpx;
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){nd_arg(rd), nd_arg_scalar(nd_scalar_complex(0, 0.25))}, NULL, &cpx));
  ND_ASSERT_OK(nd_round(cpx, 1, NULL, &r));
  nd_ref hc = nd_ref_download(r);
  ck_assert(nd_ref_get(&hc, 0).v.c[0] == 2.5 && nd_ref_get(&hc, 0).v.c[1] == 0.2);
  nd_ref_free(&hc);
  nd_array_release(r);
  nd_array_release(cpx);
  nd_array_release(cond);
  nd_array_release(x);
  nd_array_release(f);
  nd_array_release(u8);
  nd_array_release(rf);
  nd_array_release(rd);
  nd_array_release(rh);
  nd_array_release(i32);
  nd_array_release(i8);
  nd_array_release(b);
}
END_TEST

START_TEST(nan_to_num_isclose_and_equality) {
  const double v[5] = {NAN, INFINITY, -INFINITY, 1.5, -0.0};
  nd_array *h = arr_f64(5, v, ND_FLOAT16), *f = arr_f64(5, v, ND_FLOAT32), *d = arr_f64(5, v, ND_FLOAT64), *r;
  ND_ASSERT_OK(nd_nan_to_num(h, 0.0, NAN, NAN, NULL, &r));
  expect_values(r, ND_FLOAT16, 5, (double[]){0, 65504, -65504, 1.5, -0.0}, "nan_to_num(f16)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_nan_to_num(f, 0.0, NAN, NAN, NULL, &r));
  expect_values(r, ND_FLOAT32, 5, (double[]){0, FLT_MAX, -FLT_MAX, 1.5, -0.0}, "nan_to_num(f32)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_nan_to_num(d, 7.0, 1e6, -2.0, NULL, &r));
  expect_values(r, ND_FLOAT64, 5, (double[]){7, 1e6, -2, 1.5, -0.0}, "nan_to_num(f64, 7, 1e6, -2)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_nan_to_num(h, 1e6, NAN, NAN, h, &r)); /* in place; 1e6 is inf in float16 */
  nd_array_release(r);
  expect_values(h, ND_FLOAT16, 5, (double[]){INFINITY, 65504, -65504, 1.5, -0.0}, "nan_to_num(f16, nan=1e6) in place");
  /* isclose / allclose. */
  const double a[6] = {1.0, 1.0, INFINITY, NAN, 100, 0};
  const double b[6] = {1.0 + 1e-6, 1.001, INFINITY, NAN, 100.0005, 1e-9};
  nd_array *fa = arr_f64(6, a, ND_FLOAT64), *fb = arr_f64(6, b, ND_FLOAT64);
  ND_ASSERT_OK(nd_isclose(fa, fb, 1e-5, 1e-8, 0, &r));
  expect_values(r, ND_BOOL, 6, (double[]){1, 0, 1, 0, 1, 1}, "isclose");
  nd_array_release(r);
  ND_ASSERT_OK(nd_isclose(fa, fb, 1e-5, 1e-8, 1, &r));
  expect_values(r, ND_BOOL, 6, (double[]){1, 0, 1, 1, 1, 1}, "isclose equal_nan");
  nd_array_release(r);
  int ans = -1;
  ND_ASSERT_OK(nd_allclose(fa, fb, 1e-5, 1e-8, 1, &ans));
  ck_assert_int_eq(ans, 0);
  ND_ASSERT_OK(nd_allclose(fa, fb, 1e-2, 1e-8, 1, &ans));
  ck_assert_int_eq(ans, 1);
  ND_ASSERT_OK(nd_allclose(fa, fb, 1e-2, 1e-8, 0, &ans));
  ck_assert_int_eq(ans, 0);
  nd_array *ia = arr_f64(6, (double[]){1, 2, 3, 4, 5, 6}, ND_INT8), *ib = arr_f64(6, (double[]){1, 2, 3, 4, 5, 7}, ND_UINT64);
  ND_ASSERT_OK(nd_isclose(ia, ib, 0, 0, 0, &r));
  expect_values(r, ND_BOOL, 6, (double[]){1, 1, 1, 1, 1, 0}, "isclose int8 uint64");
  nd_array_release(r);
  /* array_equal: shapes, values, NaN, dtypes. */
  ND_ASSERT_OK(nd_array_equal(ia, ia, 0, &ans));
  ck_assert_int_eq(ans, 1);
  ND_ASSERT_OK(nd_array_equal(ia, ib, 0, &ans));
  ck_assert_int_eq(ans, 0);
  ND_ASSERT_OK(nd_array_equal(fa, fa, 0, &ans));
  ck_assert_int_eq(ans, 0); /* NaN != NaN */
  ND_ASSERT_OK(nd_array_equal(fa, fa, 1, &ans));
  ck_assert_int_eq(ans, 1);
  nd_array *fa32;
  ND_ASSERT_OK(nd_array_astype(ia, ND_FLOAT32, &fa32));
  ND_ASSERT_OK(nd_array_equal(ia, fa32, 0, &ans));
  ck_assert_int_eq(ans, 1);
  nd_array_release(fa32);
  /* Classification of integers is a constant; real/imag/conj/angle. */
  ND_ASSERT_OK(nd_isfinite(ia, NULL, &r));
  expect_values(r, ND_BOOL, 6, (double[]){1, 1, 1, 1, 1, 1}, "isfinite(int8)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_isnan(ia, NULL, &r));
  expect_values(r, ND_BOOL, 6, (double[]){0, 0, 0, 0, 0, 0}, "isnan(int8)");
  nd_array_release(r);
  ND_ASSERT_OK(nd_imag(fa, NULL, &r));
  expect_values(r, ND_FLOAT64, 6, (double[]){0, 0, 0, 0, 0, 0}, "imag(float64)");
  nd_array_release(r);
  nd_array *z;
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){nd_arg(fa), nd_arg_scalar(nd_scalar_complex(0, 1))}, NULL, &z));
  ND_ASSERT_OK(nd_angle(z, 1, NULL, &r));
  nd_ref hz = nd_ref_download(r);
  ck_assert_int_eq(hz.dtype, ND_FLOAT64);
  ck_assert(nd_ref_get(&hz, 0).v.f == 90.0);
  nd_ref_free(&hz);
  nd_array_release(r);
  ND_ASSERT_OK(nd_imag(z, NULL, &r));
  expect_values(r, ND_FLOAT64, 6, (double[]){1, 1, INFINITY, NAN, 100, 0}, "imag(x * 1j)");
  nd_array_release(r);
  /* angle(-0.0) is pi: arctan2(0, -0.0). */
  nd_array *mz = arr_f64(1, (double[]){-0.0}, ND_FLOAT32);
  ND_ASSERT_OK(nd_angle(mz, 0, NULL, &r));
  expect_values(r, ND_FLOAT32, 1, (double[]){(float)3.141592653589793}, "angle(-0.0)");
  nd_array_release(r);
  nd_array_release(mz);
  nd_array_release(z);
  nd_array_release(h);
  nd_array_release(f);
  nd_array_release(d);
  nd_array_release(fa);
  nd_array_release(fb);
  nd_array_release(ia);
  nd_array_release(ib);
}
END_TEST

/* C99 Annex G values on and around the branch cuts, against glibc (signs of zeros included). */
/* Complex functions at the ends of the range against the C library (what NumPy calls on
 * Linux; log2 and log10 are NumPy's log(z) / ln 2 and / ln 10), including the reported cases
 * sqrt(-0 + 5e-324j), log2 and log10 near the float maximum, arcsinh and arccosh there,
 * arctan(max - 1.18j), complex64 sin(1e-45 + 108.7j). */
static double complex cref(int op, double complex z, int single) {
  if (single) {
    const float complex f = CMPLXF((float)creal(z), (float)cimag(z));
    switch (op) {
      case ND_UFUNC_SQRT: return csqrtf(f);
      case ND_UFUNC_LOG: return clogf(f);
      case ND_UFUNC_LOG2: return clogf(f) * (float)1.4426950408889634;
      case ND_UFUNC_LOG10: return clogf(f) * (float)0.43429448190325176;
      case ND_UFUNC_ARCSINH: return casinhf(f);
      case ND_UFUNC_ARCCOSH: return cacoshf(f);
      case ND_UFUNC_ARCTAN: return catanf(f);
      case ND_UFUNC_ARCTANH: return catanhf(f);
      case ND_UFUNC_SIN: return csinf(f);
      default: return ccosf(f);
    }
  }
  switch (op) {
    case ND_UFUNC_SQRT: return csqrt(z);
    case ND_UFUNC_LOG: return clog(z);
    case ND_UFUNC_LOG2: return clog(z) * 1.4426950408889634;
    case ND_UFUNC_LOG10: return clog(z) * 0.43429448190325176;
    case ND_UFUNC_ARCSINH: return casinh(z);
    case ND_UFUNC_ARCCOSH: return cacosh(z);
    case ND_UFUNC_ARCTAN: return catan(z);
    case ND_UFUNC_ARCTANH: return catanh(z);
    case ND_UFUNC_SIN: return csin(z);
    default: return ccos(z);
  }
}

START_TEST(complex_extreme_magnitudes) {
  static const double pts[][2] = {{-0.0, 4.9406564584124654e-324}, {1e-310, -1e-310}, {1.7976931348623157e308, 1e308},
                                  {-1.7e308, 1.7e308}, {1.7976931348623157e308, -1.18}, {1e-45, 108.7},
                                  {3e38, 3e38}, {-3e38, 1}, {1e-40, -1e-40}, {0.6, 0.8}, {0.9, -0.43},
                                  {1e300, 1e-300}, {50, 720}, {-720, 3}, {1e20, 1e20}, {1.4e-45, 0.0}};
  static const int ops[] = {ND_UFUNC_SQRT, ND_UFUNC_LOG, ND_UFUNC_LOG2, ND_UFUNC_LOG10, ND_UFUNC_ARCSINH,
                            ND_UFUNC_ARCCOSH, ND_UFUNC_ARCTAN, ND_UFUNC_ARCTANH, ND_UFUNC_SIN, ND_UFUNC_COS};
  const int64_t n = (int64_t)(sizeof pts / sizeof pts[0]);
  for (int single = 0; single < 2; single++) {
    double complex h[32];
    for (int64_t k = 0; k < n; k++) h[k] = CMPLX(pts[k][0], pts[k][1]);
    nd_array *c, *a;
    ND_ASSERT_OK(nd_array_from_host(h, (size_t)n * sizeof(double complex), 1, &n, ND_COMPLEX128, &c));
    ND_ASSERT_OK(nd_array_astype(c, single ? ND_COMPLEX64 : ND_COMPLEX128, &a));
    const double eps = single ? 0x1p-23 : 0x1p-52;
    /* Subnormal results carry fewer bits: a few steps of the smallest subnormal are allowed. */
    const double tiny = 4 * (single ? 0x1p-149 : 0x1p-1074);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      nd_array *r, *r128;
      ND_ASSERT_OK(nd_ufunc_call((nd_ufunc)ops[o], 1, (nd_operand[]){nd_arg(a)}, NULL, &r));
      ND_ASSERT_OK(nd_array_astype(r, ND_COMPLEX128, &r128));
      double complex g[32];
      ND_ASSERT_OK(nd_array_to_host(r128, g, (size_t)n * sizeof(double complex)));
      for (int64_t k = 0; k < n; k++) {
        const double complex z = single ? CMPLX((float)pts[k][0], (float)pts[k][1]) : h[k];
        const double complex w = cref(ops[o], z, single);
        const double norm = fmax(fabs(creal(w)), fabs(cimag(w)));
        for (int part = 0; part < 2; part++) {
          const double gv = part ? cimag(g[k]) : creal(g[k]), wv = part ? cimag(w) : creal(w);
          const int ok = isnan(wv) ? isnan(gv) : isinf(wv) ? gv == wv
                         : isfinite(gv) && fabs(gv - wv) <= 16 * eps * fabs(wv) + 8 * eps * norm + tiny;
          ck_assert_msg(ok, "%s %s(%g%+gj): %.17g%+.17gj, C library %.17g%+.17gj", single ? "complex64" : "complex128",
                        nd_ufunc_name((nd_ufunc)ops[o]), creal(z), cimag(z), creal(g[k]), cimag(g[k]), creal(w), cimag(w));
        }
      }
      nd_array_release(r), nd_array_release(r128);
    }
    nd_array_release(c), nd_array_release(a);
  }
}
END_TEST

/* logical_and/or/xor with a Python float take the float's own truth (NumPy): 1e-310 is true
 * though it is 0 in float32; NaN is true. */
START_TEST(logical_with_weak_float_truth) {
  const int64_t n = 2;
  nd_array *z;
  ND_ASSERT_OK(nd_zeros(1, &n, ND_FLOAT32, &z));
  nd_array *o;
  ND_ASSERT_OK(nd_ones(1, &n, ND_FLOAT16, &o));
  static const struct { int op; int ones; nd_scalar s; int want; } cs[] = {
      {ND_UFUNC_LOGICAL_OR, 0, {ND_PYFLOAT, {.f = 1e-310}}, 1},  {ND_UFUNC_LOGICAL_AND, 1, {ND_PYFLOAT, {.f = 1e-8}}, 1},
      {ND_UFUNC_LOGICAL_XOR, 1, {ND_PYFLOAT, {.f = 1e-310}}, 0}, {ND_UFUNC_LOGICAL_AND, 1, {ND_PYFLOAT, {.f = 0.0}}, 0},
      {ND_UFUNC_LOGICAL_OR, 0, {ND_PYFLOAT, {.f = NAN}}, 1},     {ND_UFUNC_LOGICAL_AND, 1, {ND_PYCOMPLEX, {.c = {0, 1e-310}}}, 1}};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    nd_array *r;
    ND_ASSERT_OK(nd_ufunc_call((nd_ufunc)cs[i].op, 2, (nd_operand[]){nd_arg(cs[i].ones ? o : z), nd_arg_scalar(cs[i].s)},
                               NULL, &r));
    unsigned char b[2];
    ND_ASSERT_OK(nd_array_to_host(r, b, sizeof b));
    ck_assert_msg(b[0] == cs[i].want && b[1] == cs[i].want, "case %zu: %d, NumPy %d", i, b[0], cs[i].want);
    nd_array_release(r);
  }
  nd_array_release(z);
  nd_array_release(o);
}
END_TEST

START_TEST(complex_special_values) {
  static const double pts[][2] = {{-1, 0.0}, {-1, -0.0}, {-4, 0.0}, {-4, -0.0}, {0, 0}, {-0.0, 0.0},
                                  {0.0, -0.0}, {2, 0.0}, {2, -0.0}, {-2, 0.0}, {-2, -0.0}, {0.0, 2},
                                  {-0.0, 2}, {0.0, -2}, {-0.0, -2}, {INFINITY, 0}, {-INFINITY, 1},
                                  {INFINITY, NAN}, {NAN, INFINITY}, {1, INFINITY}, {0.5, 0.0}};
  static const int ops[] = {ND_UFUNC_SQRT, ND_UFUNC_LOG, ND_UFUNC_EXP, ND_UFUNC_ARCSIN, ND_UFUNC_ARCCOS,
                            ND_UFUNC_ARCTANH, ND_UFUNC_ARCSINH, ND_UFUNC_ARCCOSH, ND_UFUNC_ARCTAN};
  const int64_t n = (int64_t)(sizeof pts / sizeof pts[0]);
  for (int dt = ND_COMPLEX64; dt <= ND_COMPLEX128; dt++) {
    nd_ref h = nd_ref_new((nd_dtype)dt, 1, &n);
    for (int64_t k = 0; k < n; k++) nd_ref_set(&h, k, sc_c((nd_dtype)dt, pts[k][0], pts[k][1]));
    nd_array *a = nd_ref_upload(&h);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      const int op = ops[o];
      /* sqrt, log and exp everywhere; the inverse functions only at finite points. */
      nd__ufunc_loop L;
      const nd_dtype d1 = (nd_dtype)dt;
      ND_ASSERT_OK(nd__ufunc_resolve("t", op, 1, &d1, &L));
      nd_array *r;
      ND_ASSERT_OK(nd_ufunc_call((nd_ufunc)op, 1, (nd_operand[]){nd_arg(a)}, NULL, &r));
      nd_ref got = nd_ref_download(r);
      for (int64_t k = 0; k < n; k++) {
        const int finite = isfinite(pts[k][0]) && isfinite(pts[k][1]);
        if (!finite && op != ND_UFUNC_SQRT && op != ND_UFUNC_LOG && op != ND_UFUNC_EXP) continue;
        const nd_scalar x = nd_ref_get(&h, k);
        const nd_scalar want = ew_ref(&L, &x, NULL), g = nd_ref_get(&got, k);
        char why[256];
        ck_assert_msg(ew_ref_close(g, want, 64, why, sizeof why), "%s(%g%+gj) %s: %s", nd_ufunc_name((nd_ufunc)op),
                      pts[k][0], pts[k][1], nd_dtype_name(L.key), why);
        /* Which side of a cut: the signs of the imaginary parts agree (NaN aside). */
        if (!isnan(want.v.c[1]) && fabs(want.v.c[1]) > 0)
          ck_assert_msg(signbit(g.v.c[1]) == signbit(want.v.c[1]), "%s(%g%+gj): imaginary part %g, want %g",
                        nd_ufunc_name((nd_ufunc)op), pts[k][0], pts[k][1], g.v.c[1], want.v.c[1]);
      }
      nd_ref_free(&got);
      nd_array_release(r);
    }
    nd_array_release(a);
    nd_ref_free(&h);
  }
}
END_TEST

/* Complex expm1 at infinite and NaN arguments, on the device: the host reference (cexp - 1,
 * which test_cspecial_host checks against the array API's table) at every pair of
 * {+-0, 1, -1.5, 3, +-inf, NaN} with a non-finite part, zeros matching in sign. */
START_TEST(complex_expm1_special_values) {
  static const double v[] = {0.0, -0.0, 1.0, -1.5, 3.0, INFINITY, -INFINITY, NAN};
  enum { NVAL = sizeof v / sizeof v[0] };
  double pts[NVAL * NVAL][2];
  int64_t n = 0;
  for (int i = 0; i < NVAL; i++)
    for (int j = 0; j < NVAL; j++)
      if (!isfinite(v[i]) || !isfinite(v[j])) pts[n][0] = v[i], pts[n][1] = v[j], n++;
  for (int dt = ND_COMPLEX64; dt <= ND_COMPLEX128; dt++) {
    nd_ref h = nd_ref_new((nd_dtype)dt, 1, &n);
    for (int64_t k = 0; k < n; k++) nd_ref_set(&h, k, sc_c((nd_dtype)dt, pts[k][0], pts[k][1]));
    nd_array *a = nd_ref_upload(&h);
    nd__ufunc_loop L;
    const nd_dtype d1 = (nd_dtype)dt;
    ND_ASSERT_OK(nd__ufunc_resolve("t", ND_UFUNC_EXPM1, 1, &d1, &L));
    nd_array *r;
    ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_EXPM1, 1, (nd_operand[]){nd_arg(a)}, NULL, &r));
    nd_ref got = nd_ref_download(r);
    for (int64_t k = 0; k < n; k++) {
      const nd_scalar x = nd_ref_get(&h, k);
      const nd_scalar want = ew_ref(&L, &x, NULL), g = nd_ref_get(&got, k);
      char why[256];
      ck_assert_msg(ew_ref_close(g, want, 4, why, sizeof why), "expm1(%g%+gj) %s: %s", pts[k][0], pts[k][1],
                    nd_dtype_name(L.key), why);
      for (int p = 0; p < 2; p++)
        if (want.v.c[p] == 0)
          ck_assert_msg(g.v.c[p] == 0 && signbit(g.v.c[p]) == signbit(want.v.c[p]),
                        "expm1(%g%+gj) %s: part %d is %g, want %g", pts[k][0], pts[k][1], nd_dtype_name(L.key), p,
                        g.v.c[p], want.v.c[p]);
    }
    nd_ref_free(&got);
    nd_array_release(r);
    nd_array_release(a);
    nd_ref_free(&h);
  }
}
END_TEST

/* ---- streams and 64-bit indexing -------------------------------------------------------------- */

START_TEST(ordered_across_streams) {
  nd_stream *s1, *s2;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s1));
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s2));
  const int64_t n = 1 << 24;
  nd_array *a, *b, *c;
  ND_ASSERT_OK(nd_stream_push(s1));
  ND_ASSERT_OK(nd_full(1, &n, nd_scalar_float(2.0), ND_FLOAT32, &a));
  ND_ASSERT_OK(nd_exp(a, a, &b)); /* a long producer on s1 */
  nd_array_release(b);
  ND_ASSERT_OK(nd_stream_pop());
  ND_ASSERT_OK(nd_stream_push(s2));
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){nd_arg(a), nd_arg_scalar(nd_scalar_float(2.0))}, NULL, &c));
  ND_ASSERT_OK(nd_stream_pop());
  float host[4];
  nd_array *tail;
  ND_ASSERT_OK(nd_array_slice(c, 1, (nd_slice[]){{n - 4, ND_NONE, ND_NONE}}, &tail));
  ND_ASSERT_OK(nd_array_to_host(tail, host, sizeof host));
  for (int k = 0; k < 4; k++) ck_assert_float_eq_tol(host[k], 2 * expf(2.0f), 1e-4);
  nd_array_release(tail);
  nd_array_release(a);
  nd_array_release(c);
  ND_ASSERT_OK(nd_stream_destroy(s1));
  ND_ASSERT_OK(nd_stream_destroy(s2));
}
END_TEST

START_TEST(beyond_two_to_the_31_elements) {
  const int64_t n = (INT64_C(1) << 31) + 1000;
  nd_array *a, *b, *c, *t;
  if (nd_full(1, &n, nd_scalar_int(3), ND_INT8, &a) != ND_OK) {
    fprintf(stderr, "beyond_two_to_the_31_elements: not enough device memory, skipped\n");
    return;
  }
  ND_ASSERT_OK(nd_array_slice(a, 1, (nd_slice[]){{ND_NONE, ND_NONE, -1}}, &b)); /* strided path */
  ND_ASSERT_OK(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){nd_arg(a), nd_arg_scalar(nd_scalar_int(4))}, NULL, &c));
  ND_ASSERT_OK(nd_add(b, c, c, &t)); /* c = a[::-1] + c, in place, over 2^31 + 1000 elements */
  nd_array_release(t);
  int8_t host[2000];
  nd_array *tail;
  ND_ASSERT_OK(nd_array_slice(c, 1, (nd_slice[]){{n - 2000, ND_NONE, ND_NONE}}, &tail));
  ND_ASSERT_OK(nd_array_to_host(tail, host, sizeof host));
  for (int k = 0; k < 2000; k++) ck_assert_msg(host[k] == 10, "element %lld: %d", (long long)(n - 2000 + k), host[k]);
  nd_array_release(tail);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(c);
}
END_TEST

static Suite *elementwise_suite(void) {
  Suite *s = suite_create("elementwise");
  TCase *t = tcase_create("sweep");
  tcase_set_timeout(t, 600);
  tcase_add_test(t, every_ufunc_every_dtype);
  tcase_add_test(t, clip_and_where_every_dtype);
  suite_add_tcase(s, t);
  t = tcase_create("layouts");
  tcase_set_timeout(t, 600);
  tcase_add_test(t, binary_ops_over_layouts);
  tcase_add_test(t, unary_ops_over_layouts);
  tcase_add_test(t, outputs_of_every_layout);
  tcase_add_test(t, vector_broadcast_and_tiled_paths);
  tcase_add_test(t, vector_path_units);
  tcase_add_test(t, flat_path_sizes_and_offsets);
  tcase_add_test(t, flat_path_binary);
  tcase_add_test(t, tiled_path_edges_and_offsets);
  tcase_add_test(t, tiled_path_past_the_grid_limit);
  suite_add_tcase(s, t);
  t = tcase_create("semantics");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, scalars_and_promotion);
  tcase_add_test(t, in_place_and_overlapping_out);
  tcase_add_test(t, where_clip_and_rounding);
  tcase_add_test(t, nan_to_num_isclose_and_equality);
  tcase_add_test(t, complex_special_values);
  tcase_add_test(t, complex_expm1_special_values);
  tcase_add_test(t, complex_extreme_magnitudes);
  tcase_add_test(t, logical_with_weak_float_truth);
  tcase_add_test(t, ordered_across_streams);
  tcase_add_test(t, beyond_two_to_the_31_elements);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main_gpu(elementwise_suite()); }
