/* GPU suite for the random module (needs a device; exits 77 without one).
 *
 * - Philox fills against the host reference (random_ref.h): bit for bit for uniform, integers
 *   (every dtype, full and rejecting ranges), bernoulli, permutations and choice; to a few ulp
 *   for normal, lognormal and exponential; including the counter advance between calls.
 * - The _into forms over awkward layouts (offset slices, transposed, negative strides, 0-d,
 *   zero-size, misaligned) give the values of the allocating form in C order; read-only and
 *   wrong-dtype outputs are refused.
 * - Every distribution, dtype and bit generator: mean and spread (the mean square about the
 *   true mean, see nd_st_moments_ok) within 6 standard errors and a Kolmogorov-Smirnov
 *   (continuous) or chi-square (discrete) test at a fixed seed.
 * - Reproducibility: the same seed on two streams and on two threads gives identical arrays,
 *   for all three bit generators; a stateful generator used from two streams in turn gives the
 *   numbers of one stream; different seeds differ; concurrent use of one generator from two
 *   threads hands out disjoint counters. */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "random/random_internal.h"
#include "tests/random/random_ref.h"
#include "tests/random/random_stats.h"

#define P_MIN 1e-6
#define Z_MOMENTS 6.0
#define NSTAT (1 << 19)

static const nd_bitgen all_bitgens[3] = {ND_BITGEN_PHILOX, ND_BITGEN_XORWOW, ND_BITGEN_MRG32K3A};
static const char *const bitgen_names[3] = {"philox", "xorwow", "mrg32k3a"};

/* ---- helpers ----------------------------------------------------------------------------------------- */

/* Checks over every element of a large sample are written `if (!ok) ck_abort_msg(...)`, not
 * ck_assert: each passing Check assertion records its location in Check's message file (about
 * a microsecond), and over the ~180 million elements this suite inspects that was most of its
 * run time (213 s on an H100 machine). */

static void *fetch_raw(const nd_array *a) {
  const size_t bytes = (size_t)nd_array_nbytes(a);
  void *h = malloc(bytes > 0 ? bytes : 1);
  ck_assert_ptr_nonnull(h);
  ND_ASSERT_OK(nd_array_to_host(a, h, bytes));
  return h;
}

/* The elements of a in C order, converted to double. */
static double *fetch_d(const nd_array *a) {
  const int64_t n = nd_array_size(a);
  void *raw = fetch_raw(a);
  double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
  for (int64_t i = 0; i < n; i++) {
    switch (nd_array_dtype(a)) {
      case ND_BOOL:
      case ND_UINT8: d[i] = ((const uint8_t *)raw)[i]; break;
      case ND_INT8: d[i] = ((const int8_t *)raw)[i]; break;
      case ND_INT16: d[i] = ((const int16_t *)raw)[i]; break;
      case ND_UINT16: d[i] = ((const uint16_t *)raw)[i]; break;
      case ND_INT32: d[i] = ((const int32_t *)raw)[i]; break;
      case ND_UINT32: d[i] = ((const uint32_t *)raw)[i]; break;
      case ND_INT64: d[i] = (double)((const int64_t *)raw)[i]; break;
      case ND_UINT64: d[i] = (double)((const uint64_t *)raw)[i]; break;
      case ND_FLOAT32: d[i] = ((const float *)raw)[i]; break;
      case ND_FLOAT64: d[i] = ((const double *)raw)[i]; break;
      default: ck_abort_msg("fetch_d: dtype %s", nd_dtype_name(nd_array_dtype(a)));
    }
  }
  free(raw);
  return d;
}

static nd_generator *gen_new(uint64_t seed, nd_bitgen b) {
  nd_generator *g = NULL;
  ND_ASSERT_OK(nd_generator_create(seed, b, &g));
  return g;
}

static void expect_bytes_eq(const void *got, const void *want, size_t bytes, const char *what) {
  if (memcmp(got, want, bytes) == 0) return;
  const unsigned char *g = got, *w = want;
  size_t i = 0;
  while (g[i] == w[i]) i++;
  ck_abort_msg("%s: first difference at byte %zu (got %02x, want %02x)", what, i, g[i], w[i]);
}

static void expect_close_f(const float *got, const float *want, int64_t n, double rel, const char *what) {
  for (int64_t i = 0; i < n; i++)
    if (!(fabs((double)got[i] - want[i]) <= rel * (1.0 + fabs((double)want[i]))))
      ck_abort_msg("%s[%lld]: got %.9g, want %.9g", what, (long long)i, got[i], want[i]);
}

static void expect_close_d(const double *got, const double *want, int64_t n, double rel, const char *what) {
  for (int64_t i = 0; i < n; i++)
    if (!(fabs(got[i] - want[i]) <= rel * (1.0 + fabs(want[i]))))
      ck_abort_msg("%s[%lld]: got %.17g, want %.17g", what, (long long)i, got[i], want[i]);
}

/* ---- Philox fills against the host reference --------------------------------------------------------- */

START_TEST(test_uniform_exact) {
  nd_generator *g = gen_new(42, ND_BITGEN_PHILOX);
  nd_array *a;
  const int64_t n1 = 1001, s2[2] = {7, 13};
  ND_ASSERT_OK(nd_random_random(g, 1, &n1, ND_FLOAT32, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_FLOAT32);
  ck_assert_uint_eq(nd_generator_offset(g), 251);
  float *got = fetch_raw(a), want[1001];
  nd_ref_uniform_f32(42, 0, n1, 0.0f, 1.0f, want);
  expect_bytes_eq(got, want, sizeof want, "random float32");
  free(got);
  nd_array_release(a);
  /* The next call continues at counter 251. */
  ND_ASSERT_OK(nd_random_random(g, 2, s2, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_FLOAT64);
  ck_assert_uint_eq(nd_generator_offset(g), 251 + 46);
  double *gd = fetch_raw(a), wd[91];
  nd_ref_uniform_f64(42, 251, 91, 0.0, 1.0, wd);
  expect_bytes_eq(gd, wd, sizeof wd, "random float64");
  free(gd);
  nd_array_release(a);
  /* uniform(low, high): the same words, scaled (to rounding: the device may fuse a + b * u). */
  ND_ASSERT_OK(nd_random_uniform(g, -2.0, 3.0, 1, &n1, ND_FLOAT32, &a));
  got = fetch_raw(a);
  nd_ref_uniform_f32(42, 297, n1, -2.0f, 5.0f, want);
  expect_close_f(got, want, n1, 1e-6, "uniform float32");
  for (int i = 0; i < n1; i++) ck_assert(got[i] >= -2.0f && got[i] <= 3.0f);
  free(got);
  nd_array_release(a);
  ND_ASSERT_OK(nd_random_uniform(g, -2.0, 3.0, 1, &n1, ND_FLOAT64, &a));
  gd = fetch_raw(a);
  double wd2[1001];
  nd_ref_uniform_f64(42, 297 + 251, n1, -2.0, 5.0, wd2);
  expect_close_d(gd, wd2, n1, 1e-15, "uniform float64");
  free(gd);
  nd_array_release(a);
  /* Two fills of 8 use the counters of one fill of 16. */
  nd_generator *h = gen_new(9, ND_BITGEN_PHILOX), *k = gen_new(9, ND_BITGEN_PHILOX);
  const int64_t eight = 8, sixteen = 16;
  nd_array *x, *y, *z;
  ND_ASSERT_OK(nd_random_random(h, 1, &eight, ND_FLOAT32, &x));
  ND_ASSERT_OK(nd_random_random(h, 1, &eight, ND_FLOAT32, &y));
  ND_ASSERT_OK(nd_random_random(k, 1, &sixteen, ND_FLOAT32, &z));
  float fx[8], fy[8], fz[16];
  ND_ASSERT_OK(nd_array_to_host(x, fx, sizeof fx));
  ND_ASSERT_OK(nd_array_to_host(y, fy, sizeof fy));
  ND_ASSERT_OK(nd_array_to_host(z, fz, sizeof fz));
  expect_bytes_eq(fx, fz, sizeof fx, "first half");
  expect_bytes_eq(fy, fz + 8, sizeof fy, "second half");
  nd_array_release(x);
  nd_array_release(y);
  nd_array_release(z);
  nd_generator_destroy(h);
  nd_generator_destroy(k);
  nd_generator_destroy(g);
}
END_TEST

START_TEST(test_transforms_reference) {
  nd_generator *g = gen_new(7, ND_BITGEN_PHILOX);
  const int64_t n = 4099;
  float *wf = malloc(n * sizeof *wf);
  double *wd = malloc(n * sizeof *wd);
  uint64_t off = 0;
  nd_array *a;
  /* normal float32: logf and __sincosf on the device, libm here. */
  ND_ASSERT_OK(nd_random_normal(g, 1.5, 2.0, 1, &n, ND_FLOAT32, &a));
  float *gf = fetch_raw(a);
  nd_ref_normal_f32(7, off, n, 1.5f, 2.0f, 0, wf);
  expect_close_f(gf, wf, n, 2e-5, "normal float32");
  off += (n + 3) / 4;
  free(gf);
  nd_array_release(a);
  ND_ASSERT_OK(nd_random_standard_normal(g, 1, &n, ND_FLOAT64, &a));
  double *gd = fetch_raw(a);
  nd_ref_normal_f64(7, off, n, 0.0, 1.0, 0, wd);
  expect_close_d(gd, wd, n, 1e-13, "standard_normal float64");
  off += (n + 1) / 2;
  free(gd);
  nd_array_release(a);
  ND_ASSERT_OK(nd_random_lognormal(g, 0.5, 0.25, 1, &n, ND_FLOAT32, &a));
  gf = fetch_raw(a);
  nd_ref_normal_f32(7, off, n, 0.5f, 0.25f, 1, wf);
  expect_close_f(gf, wf, n, 2e-5, "lognormal float32");
  off += (n + 3) / 4;
  free(gf);
  nd_array_release(a);
  ND_ASSERT_OK(nd_random_lognormal(g, 0.5, 0.25, 1, &n, ND_FLOAT64, &a));
  gd = fetch_raw(a);
  nd_ref_normal_f64(7, off, n, 0.5, 0.25, 1, wd);
  expect_close_d(gd, wd, n, 1e-13, "lognormal float64");
  off += (n + 1) / 2;
  free(gd);
  nd_array_release(a);
  ND_ASSERT_OK(nd_random_exponential(g, 3.0, 1, &n, ND_FLOAT32, &a));
  gf = fetch_raw(a);
  nd_ref_exponential_f32(7, off, n, 3.0f, wf);
  expect_close_f(gf, wf, n, 1e-6, "exponential float32");
  off += (n + 3) / 4;
  free(gf);
  nd_array_release(a);
  ND_ASSERT_OK(nd_random_standard_exponential(g, 1, &n, ND_FLOAT64, &a));
  gd = fetch_raw(a);
  nd_ref_exponential_f64(7, off, n, 1.0, wd);
  expect_close_d(gd, wd, n, 1e-14, "standard_exponential float64");
  off += (n + 1) / 2;
  free(gd);
  nd_array_release(a);
  ck_assert_uint_eq(nd_generator_offset(g), off);
  free(wf);
  free(wd);
  nd_generator_destroy(g);
}
END_TEST

START_TEST(test_integers_exact) {
  static const struct {
    nd_dtype dtype;
    int64_t low;
    uint64_t high; /* as unsigned so that uint64's top fits */
    int endpoint;
  } cases[] = {
      {ND_BOOL, 0, 1, 1},
      {ND_INT8, -128, 127, 1},
      {ND_INT8, -3, 3, 1},
      {ND_UINT8, 0, 256, 0},
      {ND_INT16, -32768, 32767, 1},
      {ND_UINT16, 100, 60000, 0},
      {ND_INT32, INT32_MIN, INT32_MAX, 1},
      {ND_INT32, 0, 3, 0},
      {ND_UINT32, 0, 3000000000u, 0},
      {ND_UINT32, 0, UINT32_MAX, 1},
      {ND_INT64, -5, 5, 1},
      {ND_INT64, 0, UINT64_C(1) << 32, 0},
      {ND_INT64, 0, UINT64_C(1) << 32, 1},
      {ND_INT64, INT64_MIN, INT64_MAX, 1},
      {ND_UINT64, 0, UINT64_MAX, 1},
      {ND_UINT64, 0, UINT64_C(3) << 62, 0},
  };
  const int64_t shape[2] = {37, 29}; /* 1073 values: a partial last block */
  const int64_t n = 37 * 29;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    nd_generator *g = gen_new(100 + c, ND_BITGEN_PHILOX);
    nd_scalar high;
    high.dtype = ND_UINT64;
    high.v.u = cases[c].high;
    nd_array *a;
    ND_ASSERT_OK(nd_random_integers(g, nd_scalar_int(cases[c].low), high, cases[c].endpoint, 2, shape,
                                    cases[c].dtype, &a));
    ck_assert_int_eq(nd_array_dtype(a), cases[c].dtype);
    nd_krparams p;
    ND_ASSERT_OK(nd__random_int_params("t", nd_scalar_int(cases[c].low), high, cases[c].endpoint,
                                       cases[c].dtype, 1, &p));
    const int sz = (int)nd_dtype_itemsize(cases[c].dtype);
    void *got = fetch_raw(a), *want = malloc((size_t)n * sz);
    nd_ref_integers(100 + c, 0, n, &p, sz, want);
    char what[64];
    snprintf(what, sizeof what, "integers case %zu (%s)", c, nd_dtype_name(cases[c].dtype));
    expect_bytes_eq(got, want, (size_t)n * sz, what);
    ck_assert_uint_eq(nd_generator_offset(g), nd_kr_blocks(n, p.wide ? 2 : 4));
    free(got);
    free(want);
    nd_array_release(a);
    nd_generator_destroy(g);
  }
  /* Small ranges hit both endpoints. */
  nd_generator *g = gen_new(5, ND_BITGEN_PHILOX);
  nd_array *a;
  const int64_t m = 10000;
  ND_ASSERT_OK(nd_random_integers(g, nd_scalar_int(-3), nd_scalar_int(3), 1, 1, &m, ND_INT8, &a));
  double *d = fetch_d(a);
  int lo = 0, hi = 0;
  for (int i = 0; i < m; i++) {
    ck_assert(d[i] >= -3 && d[i] <= 3);
    lo |= d[i] == -3;
    hi |= d[i] == 3;
  }
  ck_assert(lo && hi);
  free(d);
  nd_array_release(a);
  /* Default dtype int64. */
  ND_ASSERT_OK(nd_random_integers(g, nd_scalar_int(0), nd_scalar_int(10), 0, 1, &m, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_INT64);
  nd_array_release(a);
  /* Nothing to draw: the bounds are not looked at (NumPy: rng.integers(1, 1, size=(0, 3))),
   * into a fresh array or an empty one; with something to draw they are. */
  const int64_t empty[2] = {0, 3};
  ND_ASSERT_OK(nd_random_integers(g, nd_scalar_int(1), nd_scalar_int(1), 0, 2, empty, ND_UINT32, &a));
  ck_assert_int_eq(nd_array_size(a), 0);
  ND_ASSERT_OK(nd_random_integers_into(g, nd_scalar_int(-1), nd_scalar_int(300), 0, a));
  nd_array_release(a);
  ND_ASSERT_FAILS(nd_random_integers(g, nd_scalar_int(1), nd_scalar_int(1), 0, 1, &m, ND_UINT32, &a), ND_ERR_VALUE,
                  "nd_random_integers: low >= high (low = 1, high = 1)");
  nd_generator_destroy(g);
}
END_TEST

START_TEST(test_bernoulli_exact) {
  const int64_t n = 3001;
  uint8_t want[3001];
  nd_ref_bernoulli(17, 0, n, 0.3, want);
  const nd_dtype dts[4] = {ND_BOOL, ND_INT8, ND_INT32, ND_FLOAT32};
  for (int t = 0; t < 4; t++) {
    nd_generator *g = gen_new(17, ND_BITGEN_PHILOX);
    nd_array *a;
    ND_ASSERT_OK(nd_random_bernoulli(g, 0.3, 1, &n, dts[t], &a));
    ck_assert_int_eq(nd_array_dtype(a), dts[t]);
    double *d = fetch_d(a);
    for (int i = 0; i < n; i++) ck_assert_msg(d[i] == want[i], "%s[%d]", nd_dtype_name(dts[t]), i);
    ck_assert_uint_eq(nd_generator_offset(g), 1501);
    free(d);
    nd_array_release(a);
    nd_generator_destroy(g);
  }
  nd_generator *g = gen_new(1, ND_BITGEN_PHILOX);
  nd_array *a;
  ND_ASSERT_OK(nd_random_bernoulli(g, 0.0, 1, &n, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_BOOL);
  double *d = fetch_d(a);
  for (int i = 0; i < n; i++) ck_assert(d[i] == 0);
  free(d);
  nd_array_release(a);
  ND_ASSERT_OK(nd_random_bernoulli(g, 1.0, 1, &n, ND_UINT64, &a));
  d = fetch_d(a);
  for (int i = 0; i < n; i++) ck_assert(d[i] == 1);
  free(d);
  nd_array_release(a);
  nd_generator_destroy(g);
}
END_TEST

/* ---- layouts of out ------------------------------------------------------------------------------------ */

/* The values nd_random_random gives a fresh generator with this seed, for `count` elements. */
static float *ref_random_f32(uint64_t seed, int64_t count) {
  float *w = calloc((size_t)(count > 0 ? count : 1), sizeof *w);
  nd_ref_uniform_f32(seed, 0, count, 0.0f, 1.0f, w);
  return w;
}

static void check_into_view(nd_array *view, uint64_t seed, const char *what) {
  nd_generator *g = gen_new(seed, ND_BITGEN_PHILOX);
  ND_ASSERT_OK(nd_random_random_into(g, view));
  const int64_t n = nd_array_size(view);
  float *got = fetch_raw(view), *want = ref_random_f32(seed, n);
  expect_bytes_eq(got, want, (size_t)n * 4, what);
  ck_assert_uint_eq(nd_generator_offset(g), nd_kr_blocks(n, 4));
  free(got);
  free(want);
  nd_generator_destroy(g);
}

START_TEST(test_into_layouts) {
  nd_array *base, *v;
  /* An offset slice: rows 1..6, columns 2..11 of an 8 x 12 array. */
  const int64_t big[2] = {8, 12};
  ND_ASSERT_OK(nd_zeros(2, big, ND_FLOAT32, &base));
  nd_slice sl[2] = {{1, 7, 1}, {2, 12, 1}};
  ND_ASSERT_OK(nd_array_slice(base, 2, sl, &v));
  check_into_view(v, 31, "offset slice");
  /* The elements outside the slice are untouched. */
  float all[96];
  ND_ASSERT_OK(nd_array_to_host(base, all, sizeof all));
  for (int r = 0; r < 8; r++)
    for (int c = 0; c < 12; c++)
      if (r < 1 || r >= 7 || c < 2) ck_assert_msg(all[r * 12 + c] == 0.0f, "(%d, %d) written", r, c);
  nd_array_release(v);
  /* Transposed. */
  ND_ASSERT_OK(nd_array_transpose(base, 0, NULL, &v));
  check_into_view(v, 32, "transposed");
  nd_array_release(v);
  /* Negative strides on both axes. */
  ND_ASSERT_OK(nd_array_flip(base, 0, NULL, &v));
  check_into_view(v, 33, "flipped");
  nd_array_release(v);
  /* Contiguous but 4 bytes past a 16-byte boundary, an odd count. */
  nd_array *flat;
  const int64_t ninety_six = 96;
  ND_ASSERT_OK(nd_array_reshape(base, 1, &ninety_six, &flat));
  nd_slice s1 = {1, 96, 1};
  ND_ASSERT_OK(nd_array_slice(flat, 1, &s1, &v));
  check_into_view(v, 34, "misaligned");
  nd_array_release(v);
  /* Every third element. */
  nd_slice s3 = {ND_NONE, ND_NONE, 3};
  ND_ASSERT_OK(nd_array_slice(flat, 1, &s3, &v));
  check_into_view(v, 35, "strided");
  nd_array_release(v);
  nd_array_release(flat);
  nd_array_release(base);
  /* 0-d and zero-size. */
  ND_ASSERT_OK(nd_empty(0, NULL, ND_FLOAT32, &v));
  check_into_view(v, 36, "0-d");
  nd_array_release(v);
  const int64_t empty[2] = {0, 5};
  ND_ASSERT_OK(nd_empty(2, empty, ND_FLOAT32, &v));
  nd_generator *g = gen_new(1, ND_BITGEN_PHILOX);
  ND_ASSERT_OK(nd_random_random_into(g, v));
  ND_ASSERT_OK(nd_random_standard_gamma_into(g, 2.0, v));
  ck_assert_uint_eq(nd_generator_offset(g), 0);
  nd_array_release(v);
  ND_ASSERT_OK(nd_random_random(g, 2, empty, ND_FLOAT64, &v));
  ck_assert_int_eq(nd_array_size(v), 0);
  ck_assert_uint_eq(nd_generator_offset(g), 0);
  nd_array_release(v);
  /* Refused outputs: a broadcast view, a wrong dtype. */
  const int64_t one = 1, four[2] = {4, 4};
  nd_array *src, *bc;
  ND_ASSERT_OK(nd_zeros(1, &one, ND_FLOAT32, &src));
  ND_ASSERT_OK(nd_array_broadcast_to(src, 2, four, &bc));
  ND_ASSERT_FAILS(nd_random_random_into(g, bc), ND_ERR_READ_ONLY, "nd_random_random_into: argument 'out' is read-only");
  ND_ASSERT_FAILS(nd_random_shuffle(g, bc, 0), ND_ERR_READ_ONLY, "nd_random_shuffle");
  nd_array *i32;
  ND_ASSERT_OK(nd_zeros(2, four, ND_INT32, &i32));
  ND_ASSERT_FAILS(nd_random_normal_into(g, 0.0, 1.0, i32), ND_ERR_DTYPE, "nd_random_normal_into: unsupported dtype int32");
  ND_ASSERT_FAILS(nd_random_poisson_into(g, 1.0, src), ND_ERR_DTYPE, "nd_random_poisson_into: unsupported dtype float32");
  ck_assert_uint_eq(nd_generator_offset(g), 0);
  nd_array_release(i32);
  nd_array_release(bc);
  nd_array_release(src);
  nd_generator_destroy(g);
}
END_TEST

START_TEST(test_into_other_kinds) {
  /* Integers into a transposed int16 view, poisson into an int32 slice, bernoulli into float64
   * (a converting copy): each equals the allocating form with the same seed. */
  const int64_t shape[2] = {9, 11}, tshape[2] = {11, 9};
  nd_array *base, *view, *ref;
  nd_generator *g1 = gen_new(8, ND_BITGEN_PHILOX), *g2 = gen_new(8, ND_BITGEN_PHILOX);
  ND_ASSERT_OK(nd_zeros(2, tshape, ND_INT16, &base));
  ND_ASSERT_OK(nd_array_transpose(base, 0, NULL, &view));
  ND_ASSERT_OK(nd_random_integers_into(g1, nd_scalar_int(-1000), nd_scalar_int(1000), 1, view));
  ND_ASSERT_OK(nd_random_integers(g2, nd_scalar_int(-1000), nd_scalar_int(1000), 1, 2, shape, ND_INT16, &ref));
  double *a = fetch_d(view), *b = fetch_d(ref);
  for (int i = 0; i < 99; i++) ck_assert_msg(a[i] == b[i], "integers into [%d]", i);
  free(a);
  free(b);
  nd_array_release(view);
  nd_array_release(base);
  nd_array_release(ref);
  const int64_t wide[2] = {9, 20};
  nd_slice sl[2] = {{ND_NONE, ND_NONE, 1}, {3, 14, 1}};
  ND_ASSERT_OK(nd_zeros(2, wide, ND_INT32, &base));
  ND_ASSERT_OK(nd_array_slice(base, 2, sl, &view));
  ND_ASSERT_OK(nd_random_poisson_into(g1, 12.5, view));
  ND_ASSERT_OK(nd_random_poisson(g2, 12.5, 2, shape, ND_INT32, &ref));
  a = fetch_d(view);
  b = fetch_d(ref);
  for (int i = 0; i < 99; i++) ck_assert_msg(a[i] == b[i], "poisson into [%d]", i);
  free(a);
  free(b);
  nd_array_release(view);
  nd_array_release(base);
  nd_array_release(ref);
  ND_ASSERT_OK(nd_zeros(2, shape, ND_FLOAT64, &base));
  ND_ASSERT_OK(nd_random_bernoulli_into(g1, 0.5, base));
  ND_ASSERT_OK(nd_random_bernoulli(g2, 0.5, 2, shape, ND_BOOL, &ref));
  a = fetch_d(base);
  b = fetch_d(ref);
  for (int i = 0; i < 99; i++) ck_assert_msg(a[i] == b[i], "bernoulli into [%d]", i);
  free(a);
  free(b);
  nd_array_release(base);
  nd_array_release(ref);
  ck_assert_uint_eq(nd_generator_offset(g1), nd_generator_offset(g2));
  nd_generator_destroy(g1);
  nd_generator_destroy(g2);
}
END_TEST

/* ---- statistics per distribution, dtype and bit generator -------------------------------------------- */

typedef double (*cdf_fn)(double, const double *);
static double cdf_uniform(double x, const double *c) {
  const double u = (x - c[0]) / (c[1] - c[0]);
  return u < 0 ? 0 : (u > 1 ? 1 : u);
}
static double cdf_normal(double x, const double *c) { return nd_st_normal_cdf((x - c[0]) / c[1]); }
static double cdf_lognormal(double x, const double *c) {
  return x <= 0 ? 0 : nd_st_normal_cdf((log(x) - c[0]) / c[1]);
}
static double cdf_expon(double x, const double *c) { return x <= 0 ? 0 : 1.0 - exp(-x / c[0]); }
static double cdf_gamma(double x, const double *c) { return x <= 0 ? 0 : nd_st_gamma_p(c[0], x / c[1]); }
static double cdf_beta(double x, const double *c) { return nd_st_beta_cdf(x, c[0], c[1]); }

/* Checks a continuous sample: moments and KS. */
static void check_continuous(nd_array *a, const char *what, double mean, double var, cdf_fn cdf,
                             const double *ctx) {
  const int64_t n = nd_array_size(a);
  double *x = fetch_d(a);
  char why[300];
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(x[i])) ck_abort_msg("%s[%lld] = %g", what, (long long)i, x[i]);
  ck_assert_msg(nd_st_moments_ok(x, n, mean, var, Z_MOMENTS, why, sizeof why), "%s: %s", what, why);
  double d;
  const double pv = nd_st_ks(x, n, cdf, ctx, &d);
  ck_assert_msg(pv > P_MIN, "%s: Kolmogorov-Smirnov D = %g, p = %g", what, d, pv);
  free(x);
}

START_TEST(test_stats_continuous) {
  const int b = _i; /* one bit generator per loop iteration */
  const int64_t n = NSTAT;
  const nd_dtype dts[2] = {ND_FLOAT32, ND_FLOAT64};
  for (int t = 0; t < 2; t++) {
    nd_generator *g = gen_new(1234 + b, all_bitgens[b]);
    char what[128];
    nd_array *a;
#define NAME(s) (snprintf(what, sizeof what, "%s %s %s", s, bitgen_names[b], nd_dtype_name(dts[t])), what)
    const double u01[2] = {0, 1}, u23[2] = {-2, 3};
    ND_ASSERT_OK(nd_random_random(g, 1, &n, dts[t], &a));
    check_continuous(a, NAME("random"), 0.5, 1.0 / 12, cdf_uniform, u01);
    nd_array_release(a);
    ND_ASSERT_OK(nd_random_uniform(g, -2, 3, 1, &n, dts[t], &a));
    check_continuous(a, NAME("uniform(-2, 3)"), 0.5, 25.0 / 12, cdf_uniform, u23);
    nd_array_release(a);
    const double n01[2] = {0, 1}, n35[2] = {3, 0.5};
    ND_ASSERT_OK(nd_random_standard_normal(g, 1, &n, dts[t], &a));
    check_continuous(a, NAME("standard_normal"), 0, 1, cdf_normal, n01);
    nd_array_release(a);
    ND_ASSERT_OK(nd_random_normal(g, 3, 0.5, 1, &n, dts[t], &a));
    check_continuous(a, NAME("normal(3, 0.5)"), 3, 0.25, cdf_normal, n35);
    nd_array_release(a);
    const double ln[2] = {0.2, 0.5};
    ND_ASSERT_OK(nd_random_lognormal(g, 0.2, 0.5, 1, &n, dts[t], &a));
    check_continuous(a, NAME("lognormal(0.2, 0.5)"), exp(0.2 + 0.125), (exp(0.25) - 1) * exp(0.4 + 0.25),
                     cdf_lognormal, ln);
    nd_array_release(a);
    const double e1[1] = {1}, e25[1] = {2.5};
    ND_ASSERT_OK(nd_random_standard_exponential(g, 1, &n, dts[t], &a));
    check_continuous(a, NAME("standard_exponential"), 1, 1, cdf_expon, e1);
    nd_array_release(a);
    ND_ASSERT_OK(nd_random_exponential(g, 2.5, 1, &n, dts[t], &a));
    check_continuous(a, NAME("exponential(2.5)"), 2.5, 6.25, cdf_expon, e25);
    nd_array_release(a);
    /* Gamma on every branch: k < 1, k = 1 (exponential), Marsaglia-Tsang small and large. */
    const double ks[4] = {0.3, 1.0, 3.5, 250.0};
    for (int i = 0; i < 4; i++) {
      const double c[2] = {ks[i], 1.0};
      char nm[64];
      snprintf(nm, sizeof nm, "standard_gamma(%g)", ks[i]);
      ND_ASSERT_OK(nd_random_standard_gamma(g, ks[i], 1, &n, dts[t], &a));
      check_continuous(a, NAME(nm), ks[i], ks[i], cdf_gamma, c);
      nd_array_release(a);
    }
    const double gc[2] = {2.5, 0.4};
    ND_ASSERT_OK(nd_random_gamma(g, 2.5, 0.4, 1, &n, dts[t], &a));
    check_continuous(a, NAME("gamma(2.5, 0.4)"), 1.0, 0.4, cdf_gamma, gc);
    nd_array_release(a);
    /* Beta: Johnk (both <= 1) and two gammas. */
    const double bs[3][2] = {{0.5, 0.5}, {0.3, 0.9}, {2.0, 5.0}};
    for (int i = 0; i < 3; i++) {
      const double A = bs[i][0], B = bs[i][1];
      char nm[64];
      snprintf(nm, sizeof nm, "beta(%g, %g)", A, B);
      ND_ASSERT_OK(nd_random_beta(g, A, B, 1, &n, dts[t], &a));
      check_continuous(a, NAME(nm), A / (A + B), A * B / ((A + B) * (A + B) * (A + B + 1)), cdf_beta, bs[i]);
      nd_array_release(a);
    }
    const double dfs[2] = {1.0, 7.5};
    for (int i = 0; i < 2; i++) {
      const double c[2] = {dfs[i] / 2, 2.0};
      char nm[64];
      snprintf(nm, sizeof nm, "chisquare(%g)", dfs[i]);
      ND_ASSERT_OK(nd_random_chisquare(g, dfs[i], 1, &n, dts[t], &a));
      check_continuous(a, NAME(nm), dfs[i], 2 * dfs[i], cdf_gamma, c);
      nd_array_release(a);
    }
#undef NAME
    nd_generator_destroy(g);
  }
}
END_TEST

/* Chi-square of an integer sample against pmf(k) for k in [0, kmax), the rest pooled. */
static void check_discrete(nd_array *a, const char *what, double mean, double var, int64_t kmin,
                           int64_t kmax, double (*pmf)(int64_t, const double *), const double *ctx) {
  const int64_t n = nd_array_size(a);
  double *x = fetch_d(a);
  char why[300];
  ck_assert_msg(nd_st_moments_ok(x, n, mean, var, Z_MOMENTS, why, sizeof why), "%s: %s", what, why);
  const int64_t k = kmax - kmin;
  int64_t *obs = calloc((size_t)k, sizeof *obs), other = 0;
  double *prob = malloc((size_t)k * sizeof *prob);
  for (int64_t i = 0; i < k; i++) prob[i] = pmf(kmin + i, ctx);
  for (int64_t i = 0; i < n; i++) {
    if (x[i] != floor(x[i])) ck_abort_msg("%s: %g is not an integer", what, x[i]);
    const int64_t v = (int64_t)x[i] - kmin;
    if (v >= 0 && v < k)
      obs[v]++;
    else
      other++;
  }
  double stat;
  int df;
  const double pv = nd_st_chi2_counts(obs, prob, k, other, n, &stat, &df);
  ck_assert_msg(pv > P_MIN, "%s: chi-square %g with %d degrees of freedom, p = %g", what, stat, df, pv);
  free(obs);
  free(prob);
  free(x);
}

static double pmf_poisson(int64_t k, const double *c) { return nd_st_poisson_pmf(k, c[0]); }
static double pmf_binomial(int64_t k, const double *c) {
  return k < 0 || k > (int64_t)c[0] ? 0.0 : nd_st_binomial_pmf(k, (int64_t)c[0], c[1]);
}
static double pmf_uniform_int(int64_t k, const double *c) {
  return k >= c[0] && k <= c[1] ? 1.0 / (c[1] - c[0] + 1) : 0.0;
}

START_TEST(test_stats_discrete) {
  const int b = _i;
  const int64_t n = NSTAT;
  const nd_dtype dts[2] = {ND_INT32, ND_INT64};
  for (int t = 0; t < 2; t++) {
    nd_generator *g = gen_new(777 + b, all_bitgens[b]);
    char what[128];
    nd_array *a;
    const double lams[7] = {0.0, 0.5, 4.0, 9.99, 10.0, 37.5, 1.0e6};
    for (int i = 0; i < 7; i++) {
      const double lam = lams[i], c[1] = {lam};
      snprintf(what, sizeof what, "poisson(%g) %s %s", lam, bitgen_names[b], nd_dtype_name(dts[t]));
      ND_ASSERT_OK(nd_random_poisson(g, lam, 1, &n, dts[t], &a));
      const double sd = sqrt(lam);
      const int64_t lo = (int64_t)fmax(0.0, floor(lam - 8 * sd)), hi = (int64_t)ceil(lam + 8 * sd) + 20;
      if (lam == 0.0) {
        double *x = fetch_d(a);
        for (int64_t j = 0; j < n; j++)
          if (x[j] != 0.0) ck_abort_msg("%s[%lld] = %g", what, (long long)j, x[j]);
        free(x);
      } else {
        check_discrete(a, what, lam, lam, lo, hi, pmf_poisson, c);
      }
      nd_array_release(a);
    }
    /* Binomial: degenerate cases, inversion (n p < 10), BTRS, and both with p > 1/2. */
    const struct {
      int64_t n;
      double p;
    } bc[] = {{0, 0.5}, {10, 0.0}, {10, 1.0}, {20, 0.3}, {1000, 0.3}, {1000, 0.97}, {100, 0.95},
              {1, 0.5}, {1000000000, 0.001}, {5000, 0.5}};
    for (size_t i = 0; i < sizeof bc / sizeof bc[0]; i++) {
      const double N = (double)bc[i].n, P = bc[i].p, c[2] = {N, P};
      snprintf(what, sizeof what, "binomial(%lld, %g) %s %s", (long long)bc[i].n, P, bitgen_names[b],
               nd_dtype_name(dts[t]));
      ND_ASSERT_OK(nd_random_binomial(g, bc[i].n, P, 1, &n, dts[t], &a));
      if (bc[i].n == 0 || P == 0.0 || P == 1.0) {
        double *x = fetch_d(a);
        for (int64_t j = 0; j < n; j++)
          if (x[j] != N * P) ck_abort_msg("%s[%lld] = %g", what, (long long)j, x[j]);
        free(x);
      } else {
        const double sd = sqrt(N * P * (1 - P));
        const int64_t lo = (int64_t)fmax(0.0, floor(N * P - 8 * sd)), hi = (int64_t)fmin(N + 1, ceil(N * P + 8 * sd) + 20);
        check_discrete(a, what, N * P, N * P * (1 - P), lo, hi, pmf_binomial, c);
      }
      nd_array_release(a);
    }
    nd_generator_destroy(g);
  }
}
END_TEST

START_TEST(test_stats_integers) {
  const int b = _i;
  const int64_t n = NSTAT;
  nd_generator *g = gen_new(99 + b, all_bitgens[b]);
  char what[128];
  nd_array *a;
  static const struct {
    nd_dtype dtype;
    int64_t low, high;
    int endpoint;
  } cases[] = {{ND_BOOL, 0, 1, 1},       {ND_INT8, -128, 127, 1},   {ND_UINT8, 0, 255, 1},
               {ND_INT16, -7, 7, 1},     {ND_UINT16, 0, 1000, 0},   {ND_INT32, -5, 1000, 0},
               {ND_UINT32, 10, 300, 1},  {ND_INT64, -300, 300, 1},  {ND_UINT64, 0, 6, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const double lo = (double)cases[i].low, hi = (double)(cases[i].high - !cases[i].endpoint);
    const double c[2] = {lo, hi}, m = hi - lo + 1;
    snprintf(what, sizeof what, "integers[%g, %g] %s %s", lo, hi, bitgen_names[b], nd_dtype_name(cases[i].dtype));
    ND_ASSERT_OK(nd_random_integers(g, nd_scalar_int(cases[i].low), nd_scalar_int(cases[i].high),
                                    cases[i].endpoint, 1, &n, cases[i].dtype, &a));
    check_discrete(a, what, (lo + hi) / 2, (m * m - 1) / 12, (int64_t)lo, (int64_t)hi + 1, pmf_uniform_int, c);
    /* Both endpoints occur. */
    double *x = fetch_d(a);
    int seen_lo = 0, seen_hi = 0;
    for (int64_t j = 0; j < n; j++) {
      seen_lo |= x[j] == lo;
      seen_hi |= x[j] == hi;
    }
    ck_assert_msg(seen_lo && seen_hi, "%s: endpoints", what);
    free(x);
    nd_array_release(a);
  }
  /* uint64 and int64 full ranges: the top byte is uniform, both signs occur. */
  nd_scalar top;
  top.dtype = ND_UINT64;
  top.v.u = UINT64_MAX;
  ND_ASSERT_OK(nd_random_integers(g, nd_scalar_int(0), top, 1, 1, &n, ND_UINT64, &a));
  uint64_t *u = fetch_raw(a);
  int64_t counts[256] = {0};
  double prob[256];
  for (int64_t j = 0; j < n; j++) counts[u[j] >> 56]++;
  for (int v = 0; v < 256; v++) prob[v] = 1.0 / 256;
  double pv = nd_st_chi2_counts(counts, prob, 256, 0, n, NULL, NULL);
  ck_assert_msg(pv > P_MIN, "uint64 full range %s: top byte p = %g", bitgen_names[b], pv);
  free(u);
  nd_array_release(a);
  ND_ASSERT_OK(nd_random_integers(g, nd_scalar_int(INT64_MIN), nd_scalar_int(INT64_MAX), 1, 1, &n, ND_INT64, &a));
  int64_t *s = fetch_raw(a), neg = 0;
  for (int64_t j = 0; j < n; j++) neg += s[j] < 0;
  ck_assert(fabs(neg - n / 2.0) < 6 * sqrt(n / 4.0));
  free(s);
  nd_array_release(a);
  /* bernoulli frequencies. */
  ND_ASSERT_OK(nd_random_bernoulli(g, 0.05, 1, &n, ND_BOOL, &a));
  double *x = fetch_d(a), ones = 0;
  for (int64_t j = 0; j < n; j++) ones += x[j];
  ck_assert_msg(fabs(ones - 0.05 * n) < 6 * sqrt(n * 0.05 * 0.95), "bernoulli(0.05) %s: %g ones", bitgen_names[b], ones);
  free(x);
  nd_array_release(a);
  nd_generator_destroy(g);
}
END_TEST

/* ---- permutations and choice -------------------------------------------------------------------------- */

static void expect_permutation(const int64_t *p, int64_t n, const char *what) {
  char *seen = calloc((size_t)n + 1, 1);
  for (int64_t i = 0; i < n; i++) {
    if (!(p[i] >= 0 && p[i] < n && !seen[p[i]]))
      ck_abort_msg("%s: entry %lld = %lld", what, (long long)i, (long long)p[i]);
    seen[p[i]] = 1;
  }
  free(seen);
}

START_TEST(test_permutation) {
  const int64_t sizes[6] = {1, 2, 3, 1000, 100003, 1 << 20};
  for (int i = 0; i < 6; i++) {
    for (int b = 0; b < 3; b++) {
      nd_generator *g = gen_new(55 + i, all_bitgens[b]);
      nd_array *a;
      ND_ASSERT_OK(nd_random_permutation(g, sizes[i], &a));
      ck_assert_int_eq(nd_array_dtype(a), ND_INT64);
      ck_assert_int_eq(nd_array_size(a), sizes[i]);
      int64_t *got = fetch_raw(a);
      char what[64];
      snprintf(what, sizeof what, "permutation(%lld) %s", (long long)sizes[i], bitgen_names[b]);
      expect_permutation(got, sizes[i], what);
      if (all_bitgens[b] == ND_BITGEN_PHILOX) {
        int64_t *want = malloc((size_t)sizes[i] * sizeof *want);
        nd_ref_permutation(55 + i, 0, sizes[i], want);
        expect_bytes_eq(got, want, (size_t)sizes[i] * 8, what);
        ck_assert_uint_eq(nd_generator_offset(g), nd_kr_blocks(sizes[i], 2));
        free(want);
      }
      if (sizes[i] >= 1000) {
        /* Not the identity, and position 0 is not biased to small indices. */
        int64_t fixed = 0;
        for (int64_t j = 0; j < sizes[i]; j++) fixed += got[j] == j;
        ck_assert_msg(fixed < 20, "%s: %lld fixed points", what, (long long)fixed);
      }
      free(got);
      nd_array_release(a);
      nd_generator_destroy(g);
    }
  }
  nd_generator *g = gen_new(1, ND_BITGEN_PHILOX);
  nd_array *a;
  ND_ASSERT_OK(nd_random_permutation(g, 0, &a));
  ck_assert_int_eq(nd_array_size(a), 0);
  ck_assert_int_eq(nd_array_ndim(a), 1);
  nd_array_release(a);
  nd_generator_destroy(g);
}
END_TEST

START_TEST(test_permutation_array_and_shuffle) {
  /* a[i][j] = 100 i + j, 5 x 7, float64. */
  double host[35];
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 7; j++) host[i * 7 + j] = 100 * i + j;
  const int64_t shape[2] = {5, 7};
  nd_array *a, *r;
  ND_ASSERT_OK(nd_array_from_host(host, sizeof host, 2, shape, ND_FLOAT64, &a));
  int64_t p5[5], p7[7];
  nd_ref_permutation(21, 0, 5, p5);
  nd_ref_permutation(22, 0, 7, p7);
  /* Along axis 0: r[i] = a[p5[i]]. */
  nd_generator *g = gen_new(21, ND_BITGEN_PHILOX);
  ND_ASSERT_OK(nd_random_permutation_array(g, a, 0, &r));
  double *x = fetch_d(r);
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 7; j++) ck_assert(x[i * 7 + j] == host[p5[i] * 7 + j]);
  free(x);
  nd_array_release(r);
  nd_generator_destroy(g);
  /* Along the last axis (-1): r[:, j] = a[:, p7[j]], C-ordered. */
  g = gen_new(22, ND_BITGEN_PHILOX);
  ND_ASSERT_OK(nd_random_permutation_array(g, a, -1, &r));
  ck_assert(nd_array_is_c_contiguous(r));
  x = fetch_d(r);
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 7; j++) ck_assert(x[i * 7 + j] == host[i * 7 + p7[j]]);
  free(x);
  nd_array_release(r);
  nd_generator_destroy(g);
  /* Of a transposed input along its axis 1 (a's rows): r[j][i] = a[p5[i]][j]. */
  nd_array *t;
  ND_ASSERT_OK(nd_array_transpose(a, 0, NULL, &t));
  g = gen_new(21, ND_BITGEN_PHILOX);
  ND_ASSERT_OK(nd_random_permutation_array(g, t, 1, &r));
  x = fetch_d(r);
  for (int j = 0; j < 7; j++)
    for (int i = 0; i < 5; i++) ck_assert(x[j * 5 + i] == host[p5[i] * 7 + j]);
  free(x);
  nd_array_release(r);
  nd_array_release(t);
  nd_generator_destroy(g);
  /* Shuffle of the transposed view along its axis 1 permutes a's rows in place. */
  ND_ASSERT_OK(nd_array_transpose(a, 0, NULL, &t));
  g = gen_new(21, ND_BITGEN_PHILOX);
  ND_ASSERT_OK(nd_random_shuffle(g, t, 1));
  x = fetch_d(a);
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 7; j++) ck_assert(x[i * 7 + j] == host[p5[i] * 7 + j]);
  free(x);
  nd_array_release(t);
  /* Errors. */
  ND_ASSERT_FAILS(nd_random_permutation_array(g, a, 2, &r), ND_ERR_AXIS, "nd_random_permutation_array");
  ND_ASSERT_FAILS(nd_random_shuffle(g, a, -3), ND_ERR_AXIS, "nd_random_shuffle");
  nd_array *zd;
  ND_ASSERT_OK(nd_empty(0, NULL, ND_FLOAT64, &zd));
  ND_ASSERT_FAILS(nd_random_shuffle(g, zd, 0), ND_ERR_SHAPE, "at least 1-dimensional");
  ND_ASSERT_FAILS(nd_random_permutation_array(g, zd, 0, &r), ND_ERR_SHAPE, "at least 1-dimensional");
  ND_ASSERT_FAILS(nd_random_choice_array(g, zd, 0, NULL, 1, NULL, &r), ND_ERR_SHAPE, "at least 1-dimensional");
  nd_array_release(zd);
  /* Zero-size arrays shuffle to themselves. */
  const int64_t zs[2] = {4, 0};
  ND_ASSERT_OK(nd_empty(2, zs, ND_INT32, &zd));
  ND_ASSERT_OK(nd_random_shuffle(g, zd, 0));
  ND_ASSERT_OK(nd_random_permutation_array(g, zd, 0, &r));
  ck_assert_int_eq(nd_array_size(r), 0);
  nd_array_release(r);
  nd_array_release(zd);
  nd_array_release(a);
  nd_generator_destroy(g);
}
END_TEST

START_TEST(test_shuffle_multiset) {
  /* A large int32 array shuffled along axis 0 keeps its multiset, for every bit generator. */
  const int64_t n = 100000;
  int32_t *host = malloc(n * sizeof *host);
  for (int64_t i = 0; i < n; i++) host[i] = (int32_t)(i % 1000);
  for (int b = 0; b < 3; b++) {
    nd_array *a;
    ND_ASSERT_OK(nd_array_from_host(host, n * sizeof *host, 1, &n, ND_INT32, &a));
    nd_generator *g = gen_new(3, all_bitgens[b]);
    ND_ASSERT_OK(nd_random_shuffle(g, a, 0));
    int32_t *got = fetch_raw(a);
    int64_t counts[1000] = {0}, moved = 0;
    for (int64_t i = 0; i < n; i++) {
      if (!(got[i] >= 0 && got[i] < 1000))
        ck_abort_msg("shuffle %s: [%lld] = %d", bitgen_names[b], (long long)i, got[i]);
      counts[got[i]]++;
      moved += got[i] != host[i];
    }
    for (int v = 0; v < 1000; v++) ck_assert_int_eq(counts[v], 100);
    ck_assert_int_gt(moved, n / 2);
    free(got);
    nd_array_release(a);
    nd_generator_destroy(g);
  }
  free(host);
}
END_TEST

START_TEST(test_choice) {
  const int64_t k = 20001;
  nd_array *a;
  /* With replacement, uniform: integers(0, n). */
  nd_generator *g = gen_new(61, ND_BITGEN_PHILOX);
  ND_ASSERT_OK(nd_random_choice(g, 10, 1, &k, 1, NULL, &a));
  nd_krparams p;
  ND_ASSERT_OK(nd__random_int_params("t", nd_scalar_int(0), nd_scalar_int(10), 0, ND_INT64, 1, &p));
  int64_t *got = fetch_raw(a), *want = malloc(k * sizeof *want);
  nd_ref_integers(61, 0, k, &p, 8, want);
  expect_bytes_eq(got, want, k * 8, "choice uniform");
  free(got);
  nd_array_release(a);
  nd_generator_destroy(g);
  /* With replacement and p: inversion of the cdf; zero entries never occur. */
  const double prob[6] = {0.1, 0.0, 0.25, 0.15, 0.5, 0.0};
  double cdf[6];
  int64_t nnz, last;
  ND_ASSERT_OK(nd__random_check_p("t", prob, 6, cdf, &nnz, &last));
  g = gen_new(62, ND_BITGEN_PHILOX);
  const int64_t shape[2] = {101, 199};
  ND_ASSERT_OK(nd_random_choice(g, 6, 2, shape, 1, prob, &a));
  ck_assert_int_eq(nd_array_ndim(a), 2);
  got = fetch_raw(a);
  want = realloc(want, 101 * 199 * sizeof *want);
  nd_ref_choice_cdf(62, 0, 101 * 199, cdf, last, want);
  expect_bytes_eq(got, want, 101 * 199 * 8, "choice with p");
  ck_assert_uint_eq(nd_generator_offset(g), nd_kr_blocks(101 * 199, 2));
  int64_t counts[6] = {0};
  for (int i = 0; i < 101 * 199; i++) counts[got[i]]++;
  ck_assert(counts[1] == 0 && counts[5] == 0);
  ck_assert(nd_st_chi2_counts(counts, prob, 6, 0, 101 * 199, NULL, NULL) > P_MIN);
  free(got);
  nd_array_release(a);
  nd_generator_destroy(g);
  /* Without replacement: the head of the permutation. */
  g = gen_new(63, ND_BITGEN_PHILOX);
  const int64_t twenty = 20;
  ND_ASSERT_OK(nd_random_choice(g, 50, 1, &twenty, 0, NULL, &a));
  got = fetch_raw(a);
  int64_t perm[50];
  nd_ref_permutation(63, 0, 50, perm);
  expect_bytes_eq(got, perm, 20 * 8, "choice without replacement");
  free(got);
  nd_array_release(a);
  nd_generator_destroy(g);
  /* Zero samples. */
  g = gen_new(64, ND_BITGEN_PHILOX);
  const int64_t zero = 0;
  ND_ASSERT_OK(nd_random_choice(g, 0, 1, &zero, 0, NULL, &a));
  ck_assert_int_eq(nd_array_size(a), 0);
  nd_array_release(a);
  ck_assert_uint_eq(nd_generator_offset(g), 0);
  nd_generator_destroy(g);
  free(want);
}
END_TEST

START_TEST(test_choice_weighted_without_replacement) {
  /* Sequential weighted draws: P(first = i) = p_i, P(second = j) = sum_i p_i p_j / (1 - p_i). */
  const double p[4] = {0.1, 0.2, 0.3, 0.4};
  double second[4] = {0};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      if (i != j) second[j] += p[i] * p[j] / (1 - p[i]);
  enum { TRIALS = 4000 };
  int64_t c1[4] = {0}, c2[4] = {0};
  nd_generator *g = gen_new(65, ND_BITGEN_PHILOX);
  const int64_t four = 4;
  for (int t = 0; t < TRIALS; t++) {
    nd_array *a;
    ND_ASSERT_OK(nd_random_choice(g, 4, 1, &four, 0, p, &a));
    int64_t got[4];
    ND_ASSERT_OK(nd_array_to_host(a, got, sizeof got));
    expect_permutation(got, 4, "weighted choice of all");
    c1[got[0]]++;
    c2[got[1]]++;
    nd_array_release(a);
  }
  double pv = nd_st_chi2_counts(c1, p, 4, 0, TRIALS, NULL, NULL);
  ck_assert_msg(pv > P_MIN, "first pick p = %g (%lld %lld %lld %lld)", pv, (long long)c1[0],
                (long long)c1[1], (long long)c1[2], (long long)c1[3]);
  pv = nd_st_chi2_counts(c2, second, 4, 0, TRIALS, NULL, NULL);
  ck_assert_msg(pv > P_MIN, "second pick p = %g", pv);
  /* Zero weights are never picked while non-zero ones remain. */
  const double pz[5] = {0.5, 0.0, 0.25, 0.0, 0.25};
  const int64_t three = 3;
  for (int t = 0; t < 50; t++) {
    nd_array *a;
    ND_ASSERT_OK(nd_random_choice(g, 5, 1, &three, 0, pz, &a));
    int64_t got[3];
    ND_ASSERT_OK(nd_array_to_host(a, got, sizeof got));
    for (int i = 0; i < 3; i++) ck_assert(got[i] == 0 || got[i] == 2 || got[i] == 4);
    ck_assert(got[0] != got[1] && got[1] != got[2] && got[0] != got[2]);
    nd_array_release(a);
  }
  nd_generator_destroy(g);
}
END_TEST

START_TEST(test_choice_array) {
  /* Rows of a 6 x 3 int16 array, sampled into shape (4, 5): result (4, 5, 3). */
  int16_t host[18];
  for (int i = 0; i < 18; i++) host[i] = (int16_t)(10 * (i / 3) + i % 3);
  const int64_t ashape[2] = {6, 3}, shape[2] = {4, 5};
  nd_array *a, *r, *idx;
  ND_ASSERT_OK(nd_array_from_host(host, sizeof host, 2, ashape, ND_INT16, &a));
  for (int replace = 0; replace <= 1; replace++) {
    const int64_t *sh = replace ? shape : &ashape[0];
    const int nd = replace ? 2 : 1;
    nd_generator *g1 = gen_new(70 + replace, ND_BITGEN_PHILOX), *g2 = gen_new(70 + replace, ND_BITGEN_PHILOX);
    ND_ASSERT_OK(nd_random_choice_array(g1, a, nd, sh, replace, NULL, &r));
    ND_ASSERT_OK(nd_random_choice(g2, 6, nd, sh, replace, NULL, &idx));
    ck_assert_int_eq(nd_array_ndim(r), nd + 1);
    ck_assert_int_eq(nd_array_dim(r, -1), 3);
    ck_assert_int_eq(nd_array_dtype(r), ND_INT16);
    const int64_t m = nd_array_size(idx);
    int16_t *got = fetch_raw(r);
    int64_t *ix = fetch_raw(idx);
    for (int64_t i = 0; i < m; i++)
      for (int c = 0; c < 3; c++) ck_assert(got[i * 3 + c] == host[ix[i] * 3 + c]);
    free(got);
    free(ix);
    nd_array_release(r);
    nd_array_release(idx);
    nd_generator_destroy(g1);
    nd_generator_destroy(g2);
  }
  /* A 1-d population with p, from a strided view. */
  nd_array *col;
  ND_ASSERT_OK(nd_array_index(a, 1, 2, &col)); /* a[:, 2] = 2, 12, ..., 52 */
  const double p[6] = {0, 0, 0, 1, 0, 0};
  const int64_t seven = 7;
  ND_ASSERT_OK(nd_random_choice_array(NULL, col, 1, &seven, 1, p, &r));
  double *x = fetch_d(r);
  for (int i = 0; i < 7; i++) ck_assert(x[i] == 32);
  free(x);
  nd_array_release(r);
  nd_array_release(col);
  ND_ASSERT_FAILS(nd_random_choice_array(NULL, a, 1, &seven, 0, NULL, &r), ND_ERR_VALUE,
                  "nd_random_choice_array: cannot take a larger sample than population");
  nd_array_release(a);
}
END_TEST

/* ---- reproducibility across streams and threads -------------------------------------------------------- */

#define REPRO_N 100003

/* A fixed sequence of calls; returns the concatenated bytes of its results. */
static unsigned char *repro_sequence(uint64_t seed, nd_bitgen b, size_t *bytes) {
  nd_generator *g = NULL;
  if (nd_generator_create(seed, b, &g) != ND_OK) return NULL;
  const int64_t n = REPRO_N;
  nd_array *r[6] = {NULL};
  nd_status st = nd_random_standard_normal(g, 1, &n, ND_FLOAT32, &r[0]);
  if (st == ND_OK) st = nd_random_random(g, 1, &n, ND_FLOAT64, &r[1]);
  if (st == ND_OK) st = nd_random_integers(g, nd_scalar_int(-5), nd_scalar_int(5000000000), 0, 1, &n, ND_INT64, &r[2]);
  if (st == ND_OK) st = nd_random_gamma(g, 0.7, 2.0, 1, &n, ND_FLOAT64, &r[3]);
  if (st == ND_OK) st = nd_random_binomial(g, 1000, 0.4, 1, &n, ND_INT32, &r[4]);
  if (st == ND_OK) st = nd_random_permutation(g, 5000, &r[5]);
  size_t total = 0;
  for (int i = 0; i < 6 && st == ND_OK; i++) total += (size_t)nd_array_nbytes(r[i]);
  unsigned char *out = st == ND_OK ? malloc(total) : NULL;
  size_t at = 0;
  for (int i = 0; i < 6 && out != NULL; i++) {
    if (nd_array_to_host(r[i], out + at, (size_t)nd_array_nbytes(r[i])) != ND_OK) {
      free(out);
      out = NULL;
      break;
    }
    at += (size_t)nd_array_nbytes(r[i]);
  }
  for (int i = 0; i < 6; i++) nd_array_release(r[i]);
  nd_generator_destroy(g);
  *bytes = total;
  return out;
}

typedef struct repro_arg {
  uint64_t seed;
  nd_bitgen bitgen;
  unsigned char *out;
  size_t bytes;
  nd_status st;
} repro_arg;

static void *repro_thread(void *p) {
  repro_arg *a = p;
  nd_stream *s = NULL;
  a->st = nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s);
  if (a->st == ND_OK) a->st = nd_stream_push(s);
  if (a->st == ND_OK) {
    a->out = repro_sequence(a->seed, a->bitgen, &a->bytes);
    nd_stream_pop();
  }
  nd_stream_destroy(s);
  return NULL;
}

START_TEST(test_reproducible_streams_threads) {
  for (int b = 0; b < 3; b++) {
    size_t n0 = 0, n1 = 0;
    /* The default stream. */
    unsigned char *r0 = repro_sequence(2718, all_bitgens[b], &n0);
    ck_assert_ptr_nonnull(r0);
    /* A non-blocking stream pushed on this thread. */
    nd_stream *s;
    ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
    ND_ASSERT_OK(nd_stream_push(s));
    unsigned char *r1 = repro_sequence(2718, all_bitgens[b], &n1);
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_stream_destroy(s));
    ck_assert_ptr_nonnull(r1);
    /* Two other threads, each on its own stream, at the same time. */
    repro_arg ta = {2718, all_bitgens[b], NULL, 0, ND_OK}, tb = {2718, all_bitgens[b], NULL, 0, ND_OK};
    pthread_t th[2];
    ck_assert_int_eq(pthread_create(&th[0], NULL, repro_thread, &ta), 0);
    ck_assert_int_eq(pthread_create(&th[1], NULL, repro_thread, &tb), 0);
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    ck_assert_int_eq(ta.st, ND_OK);
    ck_assert_int_eq(tb.st, ND_OK);
    ck_assert_ptr_nonnull(ta.out);
    ck_assert_ptr_nonnull(tb.out);
    ck_assert(n0 == n1 && n0 == ta.bytes && n0 == tb.bytes);
    char what[64];
    snprintf(what, sizeof what, "%s: pushed stream", bitgen_names[b]);
    expect_bytes_eq(r1, r0, n0, what);
    snprintf(what, sizeof what, "%s: thread a", bitgen_names[b]);
    expect_bytes_eq(ta.out, r0, n0, what);
    snprintf(what, sizeof what, "%s: thread b", bitgen_names[b]);
    expect_bytes_eq(tb.out, r0, n0, what);
    /* Another seed gives other numbers. */
    size_t n3 = 0;
    unsigned char *r3 = repro_sequence(2719, all_bitgens[b], &n3);
    ck_assert_ptr_nonnull(r3);
    ck_assert_msg(memcmp(r3, r0, n0 / 2) != 0, "%s: seeds 2718 and 2719 agree", bitgen_names[b]);
    free(r0);
    free(r1);
    free(ta.out);
    free(tb.out);
    free(r3);
  }
  /* The bit generators differ from each other. */
  size_t na, nb;
  unsigned char *pa = repro_sequence(5, ND_BITGEN_PHILOX, &na), *pb = repro_sequence(5, ND_BITGEN_XORWOW, &nb);
  ck_assert(memcmp(pa, pb, na / 2) != 0);
  free(pa);
  free(pb);
}
END_TEST

START_TEST(test_stateful_across_streams) {
  /* A stateful generator used on two streams in turn, with no synchronisation in between, gives
   * the numbers it gives on one stream: the state buffer is a tracked write. */
  for (int b = 1; b < 3; b++) {
    const int64_t n = 1 << 20;
    nd_generator *g1 = gen_new(31, all_bitgens[b]), *g2 = gen_new(31, all_bitgens[b]);
    nd_array *x[4], *y[4];
    for (int i = 0; i < 4; i++) ND_ASSERT_OK(nd_random_standard_normal(g1, 1, &n, ND_FLOAT32, &x[i]));
    nd_stream *s[2];
    ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s[0]));
    ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s[1]));
    for (int i = 0; i < 4; i++) {
      ND_ASSERT_OK(nd_stream_push(s[i % 2]));
      ND_ASSERT_OK(nd_random_standard_normal(g2, 1, &n, ND_FLOAT32, &y[i]));
      ND_ASSERT_OK(nd_stream_pop());
    }
    for (int i = 0; i < 4; i++) {
      float *a = fetch_raw(x[i]), *c = fetch_raw(y[i]);
      char what[64];
      snprintf(what, sizeof what, "%s fill %d", bitgen_names[b], i);
      expect_bytes_eq(c, a, (size_t)n * 4, what);
      free(a);
      free(c);
      nd_array_release(x[i]);
      nd_array_release(y[i]);
    }
    /* Destroying the generator while its last fill may still run is safe. */
    nd_generator_destroy(g1);
    nd_generator_destroy(g2);
    ND_ASSERT_OK(nd_stream_destroy(s[0]));
    ND_ASSERT_OK(nd_stream_destroy(s[1]));
  }
}
END_TEST

#define SHARE_CALLS 50
#define SHARE_N 1000

typedef struct share_arg {
  nd_generator *g;
  float *out[SHARE_CALLS];
  nd_status st;
} share_arg;

static void *share_thread(void *p) {
  share_arg *a = p;
  nd_stream *s = NULL;
  a->st = nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s);
  if (a->st == ND_OK) a->st = nd_stream_push(s);
  const int64_t n = SHARE_N;
  for (int i = 0; i < SHARE_CALLS && a->st == ND_OK; i++) {
    nd_array *r = NULL;
    a->st = nd_random_random(a->g, 1, &n, ND_FLOAT32, &r);
    a->out[i] = malloc(SHARE_N * sizeof(float));
    if (a->st == ND_OK) a->st = nd_array_to_host(r, a->out[i], SHARE_N * sizeof(float));
    nd_array_release(r);
  }
  nd_stream_pop();
  nd_stream_destroy(s);
  return NULL;
}

START_TEST(test_shared_generator_threads) {
  /* Two threads share one Philox generator: every fill gets its own 250 counters, so the 100
   * arrays are exactly the reference at offsets 0, 250, ..., 24750, each once. */
  nd_generator *g = gen_new(88, ND_BITGEN_PHILOX);
  static share_arg a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.g = b.g = g;
  pthread_t th[2];
  ck_assert_int_eq(pthread_create(&th[0], NULL, share_thread, &a), 0);
  ck_assert_int_eq(pthread_create(&th[1], NULL, share_thread, &b), 0);
  pthread_join(th[0], NULL);
  pthread_join(th[1], NULL);
  ck_assert_int_eq(a.st, ND_OK);
  ck_assert_int_eq(b.st, ND_OK);
  ck_assert_uint_eq(nd_generator_offset(g), 2 * SHARE_CALLS * 250);
  float want[SHARE_N];
  for (int k = 0; k < 2 * SHARE_CALLS; k++) {
    nd_ref_uniform_f32(88, 250 * (uint64_t)k, SHARE_N, 0.0f, 1.0f, want);
    int found = 0;
    for (int t = 0; t < 2 && !found; t++) {
      share_arg *s = t == 0 ? &a : &b;
      for (int i = 0; i < SHARE_CALLS; i++)
        if (!memcmp(s->out[i], want, sizeof want)) found = 1;
    }
    ck_assert_msg(found, "no fill used offset %d", 250 * k);
  }
  for (int i = 0; i < SHARE_CALLS; i++) {
    free(a.out[i]);
    free(b.out[i]);
  }
  nd_generator_destroy(g);
}
END_TEST

START_TEST(test_default_generator_gpu) {
  /* nd_random_seed makes the thread's default generator reproducible; NULL means it. */
  ND_ASSERT_OK(nd_random_seed(5));
  const int64_t n = 333;
  nd_array *a;
  ND_ASSERT_OK(nd_random_random(NULL, 1, &n, ND_FLOAT32, &a));
  float *got = fetch_raw(a), want[333];
  nd_ref_uniform_f32(5, 0, n, 0.0f, 1.0f, want);
  expect_bytes_eq(got, want, sizeof want, "default generator");
  free(got);
  nd_array_release(a);
  ck_assert_uint_eq(nd_generator_offset(NULL), 84);
}
END_TEST

START_TEST(test_large) {
  /* Many blocks per thread (grid-stride loops), for each bit generator; 2^24 float32 normals
   * and int32 integers. */
  const int64_t n = 1 << 24;
  for (int b = 0; b < 3; b++) {
    nd_generator *g = gen_new(4242, all_bitgens[b]);
    nd_array *a;
    char why[300];
    ND_ASSERT_OK(nd_random_standard_normal(g, 1, &n, ND_FLOAT32, &a));
    double *x = fetch_d(a);
    ck_assert_msg(nd_st_moments_ok(x, n, 0.0, 1.0, Z_MOMENTS, why, sizeof why), "%s: %s", bitgen_names[b], why);
    /* The tails: |z| > 4 has probability 6.334e-5. */
    int64_t tail = 0;
    for (int64_t i = 0; i < n; i++) tail += fabs(x[i]) > 4.0;
    ck_assert_msg(fabs(tail - 6.334e-5 * n) < 6 * sqrt(6.334e-5 * n), "%s: %lld beyond 4 sigma", bitgen_names[b], (long long)tail);
    free(x);
    nd_array_release(a);
    ND_ASSERT_OK(nd_random_integers(g, nd_scalar_int(0), nd_scalar_int(INT32_MAX), 1, 1, &n, ND_INT32, &a));
    int32_t *v = fetch_raw(a);
    int64_t counts[256] = {0};
    double prob[256];
    for (int64_t i = 0; i < n; i++) {
      if (v[i] < 0) ck_abort_msg("%s: integers[0, 2^31 - 1] gave %d at %lld", bitgen_names[b], v[i], (long long)i);
      counts[v[i] >> 23]++;
    }
    for (int k = 0; k < 256; k++) prob[k] = 1.0 / 256;
    const double pv = nd_st_chi2_counts(counts, prob, 256, 0, n, NULL, NULL);
    ck_assert_msg(pv > P_MIN, "%s: int32 top bits p = %g", bitgen_names[b], pv);
    free(v);
    nd_array_release(a);
    nd_generator_destroy(g);
  }
}
END_TEST

static Suite *random_suite(void) {
  Suite *s = suite_create("random");
  TCase *tc = tcase_create("philox");
  tcase_add_test(tc, test_uniform_exact);
  tcase_add_test(tc, test_transforms_reference);
  tcase_add_test(tc, test_integers_exact);
  tcase_add_test(tc, test_bernoulli_exact);
  tcase_add_test(tc, test_into_layouts);
  tcase_add_test(tc, test_into_other_kinds);
  tcase_add_test(tc, test_default_generator_gpu);
  suite_add_tcase(s, tc);
  tc = tcase_create("statistics");
  tcase_add_loop_test(tc, test_stats_continuous, 0, 3);
  tcase_add_loop_test(tc, test_stats_discrete, 0, 3);
  tcase_add_loop_test(tc, test_stats_integers, 0, 3);
  tcase_add_test(tc, test_large);
  suite_add_tcase(s, tc);
  tc = tcase_create("permutations");
  tcase_add_test(tc, test_permutation);
  tcase_add_test(tc, test_permutation_array_and_shuffle);
  tcase_add_test(tc, test_shuffle_multiset);
  tcase_add_test(tc, test_choice);
  tcase_add_test(tc, test_choice_weighted_without_replacement);
  tcase_add_test(tc, test_choice_array);
  suite_add_tcase(s, tc);
  tc = tcase_create("reproducibility");
  tcase_add_test(tc, test_reproducible_streams_threads);
  tcase_add_test(tc, test_stateful_across_streams);
  tcase_add_test(tc, test_shared_generator_threads);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main_gpu(random_suite()); }
