/* The randomised inverse of large real matrices (linalg/inv_large.c) against the host
 * residual and against the partial-pivoting path (ND_INV_RBT=0) on awkward inputs: uniform,
 * row-permuted diagonally dominant, ill-conditioned and badly scaled matrices, orders that are
 * and are not multiples of 64, float32 and float64, transposed / offset / reversed / batched
 * layouts, and singular or NaN input in checked mode (the same status and message as before). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/inv_large.h"
#include "tests/nd_test.h"

#define SHAPE(...) ((const int64_t[]){__VA_ARGS__})

static uint64_t rs = 0x2545f4914f6cdd1dull;
static double urand(void) { /* uniform in [-1, 1) */
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (double)(rs >> 11) * ldexp(1.0, -53) * 2.0 - 1.0;
}

static nd_array *upload(const double *h, int ndim, const int64_t *shape, nd_dtype dt) {
  int64_t total = 1;
  for (int i = 0; i < ndim; i++) total *= shape[i];
  nd_array *a = NULL, *a64 = NULL;
  ND_ASSERT_OK(nd_array_from_host(h, (size_t)total * 8, ndim, shape, ND_FLOAT64, &a64));
  if (dt == ND_FLOAT64) return a64;
  ND_ASSERT_OK(nd_array_astype(a64, dt, &a));
  nd_array_release(a64);
  return a;
}

/* Any array as a new C-ordered float64 host copy. */
static double *fetch(const nd_array *a) {
  nd_array *c = NULL;
  ND_ASSERT_OK(nd_array_astype(a, ND_FLOAT64, &c));
  int64_t total = nd_array_size(c);
  double *h = malloc((size_t)(total > 0 ? total : 1) * 8);
  ND_ASSERT_OK(nd_array_to_host(c, h, (size_t)total * 8));
  nd_array_release(c);
  return h;
}

/* max |A X - I| / (||A||_inf ||X||_inf) over one n x n pair, in float64 on the host. */
static double rel_residual(const double *a, const double *x, int64_t n) {
  double worst = 0, an = 0, xn = 0;
  double *row = malloc((size_t)n * 8);
  for (int64_t i = 0; i < n; i++) {
    double sa = 0, sx = 0;
    for (int64_t j = 0; j < n; j++) {
      row[j] = 0;
      sa += fabs(a[i * n + j]);
      sx += fabs(x[i * n + j]);
    }
    an = fmax(an, sa);
    xn = fmax(xn, sx);
    for (int64_t l = 0; l < n; l++) {
      const double ail = a[i * n + l];
      const double *xl = x + l * n;
      for (int64_t j = 0; j < n; j++) row[j] += ail * xl[j];
    }
    for (int64_t j = 0; j < n; j++) {
      double e = fabs(row[j] - (i == j ? 1.0 : 0.0));
      if (!(e <= worst)) worst = isnan(e) ? NAN : e;
    }
  }
  free(row);
  return worst / (an * xn);
}

/* Inverts a with the randomised path expected to take it (accepted 1) or to hand it to partial
 * pivoting (0), and again with ND_INV_RBT=0; checks both residuals (batch matrices of order n,
 * host copy h of a in C order) and returns the largest relative difference between them. */
static double inv_both(const nd_array *a, const double *h, int64_t batch, int64_t n, int accepted, nd_dtype dt) {
  const double unit = dt == ND_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
  const int64_t acc0 = nd__inv_large_count(0), fb0 = nd__inv_large_count(1);
  nd_array *x = NULL, *y = NULL;
  ND_ASSERT_OK(nd_linalg_inv(a, &x));
  ck_assert_int_eq(nd_array_dtype(x), dt);
  ck_assert_msg(nd__inv_large_count(0) - acc0 == (accepted ? batch > 0 : 0) &&
                    nd__inv_large_count(1) - fb0 == (accepted ? 0 : 1),
                "order %lld batch %lld: accepted %lld, fell back %lld, expected accepted %d", (long long)n,
                (long long)batch, (long long)(nd__inv_large_count(0) - acc0),
                (long long)(nd__inv_large_count(1) - fb0), accepted);
  nd__config_override(ND__CFG_INV_RBT, "0");
  ND_ASSERT_OK(nd_linalg_inv(a, &y));
  nd__config_override(ND__CFG_INV_RBT, NULL);
  ck_assert(nd__inv_large_count(0) - acc0 <= 1 && nd__inv_large_count(1) - fb0 <= 1);
  double *hx = fetch(x), *hy = fetch(y), diff = 0;
  for (int64_t b = 0; b < batch; b++) {
    const double r1 = rel_residual(h + b * n * n, hx + b * n * n, n);
    const double r2 = rel_residual(h + b * n * n, hy + b * n * n, n);
    /* no worse than partial pivoting's by more than 8x, and small in itself for these inputs */
    ck_assert_msg(r1 <= 8 * fmax(r2, (double)n * unit), "order %lld matrix %lld: relative residual %g, partial "
                  "pivoting %g", (long long)n, (long long)b, r1, r2);
    double mx = 0, md = 0;
    for (int64_t i = 0; i < n * n; i++) {
      mx = fmax(mx, fabs(hy[b * n * n + i]));
      md = fmax(md, fabs(hx[b * n * n + i] - hy[b * n * n + i]));
    }
    diff = fmax(diff, md / mx);
  }
  free(hx);
  free(hy);
  nd_array_release(x);
  nd_array_release(y);
  return diff;
}

static double *uniform(int64_t count) {
  double *v = malloc((size_t)count * 8);
  for (int64_t i = 0; i < count; i++) v[i] = urand();
  return v;
}

/* Diagonally dominant (n + uniform on the diagonal) with its rows permuted by a rotation and
 * a swap of neighbours, so partial pivoting has to exchange every row. */
static double *permuted_dominant(int64_t n) {
  double *a = uniform(n * n), *p = malloc((size_t)(n * n) * 8);
  for (int64_t i = 0; i < n; i++) a[i * n + i] += (double)n;
  for (int64_t i = 0; i < n; i++) {
    int64_t src = (i * 7 + 3) % n; /* n odd or coprime with 7 in the callers */
    memcpy(p + i * n, a + src * n, (size_t)n * 8);
  }
  free(a);
  return p;
}

START_TEST(test_uniform_and_orders) {
  /* 512: no padding; 600: padded to 640; float32 inverted in float64 and rounded */
  const int64_t ns[] = {512, 600};
  for (int d = 0; d < 2; d++)
    for (int i = 0; i < 2; i++) {
      const nd_dtype dt = d ? ND_FLOAT32 : ND_FLOAT64;
      const int64_t n = ns[i];
      double *h = uniform(n * n);
      if (dt == ND_FLOAT32)
        for (int64_t k = 0; k < n * n; k++) h[k] = (double)(float)h[k];
      nd_array *a = upload(h, 2, SHAPE(n, n), dt);
      double diff = inv_both(a, h, 1, n, 1, dt);
      ck_assert_msg(diff < (d ? 5e-2 : 1e-9), "%s %lld: differs from partial pivoting by %g", nd_dtype_name(dt),
                    (long long)n, diff);
      /* unchecked mode never waits: partial pivoting, not counted */
      const int64_t acc0 = nd__inv_large_count(0), fb0 = nd__inv_large_count(1);
      nd_array *x = NULL;
      ND_ASSERT_OK(nd_linalg_inv_ex(a, ND_LINALG_UNCHECKED, &x, NULL));
      ck_assert(nd__inv_large_count(0) == acc0 && nd__inv_large_count(1) == fb0);
      nd_array_release(x);
      nd_array_release(a);
      free(h);
    }
}
END_TEST

START_TEST(test_permuted_and_layouts) {
  const int64_t n = 521; /* padded to 576 */
  double *h = permuted_dominant(n);
  nd_array *a = upload(h, 2, SHAPE(n, n), ND_FLOAT64);
  ck_assert(inv_both(a, h, 1, n, 1, ND_FLOAT64) < 1e-12);
  /* the transpose (column-major), checked against the host transpose */
  double *ht = malloc((size_t)(n * n) * 8);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) ht[i * n + j] = h[j * n + i];
  nd_array *t = NULL, *f = NULL;
  ND_ASSERT_OK(nd_array_swapaxes(a, -1, -2, &t));
  ck_assert(inv_both(t, ht, 1, n, 1, ND_FLOAT64) < 1e-12);
  /* reversed rows (negative stride) */
  double *hf = malloc((size_t)(n * n) * 8);
  for (int64_t i = 0; i < n; i++) memcpy(hf + i * n, h + (n - 1 - i) * n, (size_t)n * 8);
  ND_ASSERT_OK(nd_array_flip(a, 1, SHAPE(0), &f));
  ck_assert(inv_both(f, hf, 1, n, 1, ND_FLOAT64) < 1e-12);
  /* an offset slice of a larger array */
  double *big = uniform((n + 2) * (n + 3));
  for (int64_t r = 0; r < n; r++) memcpy(big + (r + 1) * (n + 3) + 2, h + r * n, (size_t)n * 8);
  nd_array *bg = upload(big, 2, SHAPE(n + 2, n + 3), ND_FLOAT64), *off = NULL;
  nd_slice s2[2] = {{1, n + 1, 1}, {2, n + 2, 1}};
  ND_ASSERT_OK(nd_array_slice(bg, 2, s2, &off));
  ck_assert(inv_both(off, h, 1, n, 1, ND_FLOAT64) < 1e-12);
  nd_array_release(off);
  nd_array_release(bg);
  nd_array_release(f);
  nd_array_release(t);
  nd_array_release(a);
  free(big);
  free(hf);
  free(ht);
  free(h);
  /* a batch of two float32 matrices of order 300 (above 256: one at a time) */
  const int64_t m = 300;
  double *hb = uniform(2 * m * m);
  for (int64_t k = 0; k < 2 * m * m; k++) hb[k] = (double)(float)hb[k];
  nd_array *ab = upload(hb, 3, SHAPE(2, m, m), ND_FLOAT32);
  /* 300 is below the path's smallest order: partial pivoting, counted as neither */
  const int64_t acc0 = nd__inv_large_count(0), fb0 = nd__inv_large_count(1);
  nd_array *x = NULL;
  ND_ASSERT_OK(nd_linalg_inv(ab, &x));
  ck_assert(nd__inv_large_count(0) == acc0 && nd__inv_large_count(1) == fb0);
  nd_array_release(x);
  nd_array_release(ab);
  free(hb);
  const int64_t m2 = 513;
  hb = uniform(2 * m2 * m2);
  ab = upload(hb, 3, SHAPE(2, m2, m2), ND_FLOAT64);
  ck_assert(inv_both(ab, hb, 2, m2, 1, ND_FLOAT64) < 1e-9);
  nd_array_release(ab);
  free(hb);
}
END_TEST

START_TEST(test_ill_conditioned_and_scaled) {
  /* A = L D U, unit triangles with entries in [-0.1, 0.1) and D from 1 down to 1e-9: a
   * condition number near 1e9. Accepted or not, the answer must match partial pivoting's to
   * within what the conditioning allows. */
  const int64_t n = 512;
  double *l = uniform(n * n), *u = uniform(n * n), *a = calloc((size_t)(n * n), 8);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      l[i * n + j] = i > j ? 0.1 * l[i * n + j] : (i == j ? 1.0 : 0.0);
      u[i * n + j] = i < j ? 0.1 * u[i * n + j] * pow(1e-9, (double)i / (double)(n - 1))
                           : (i == j ? pow(1e-9, (double)i / (double)(n - 1)) : 0.0);
    }
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = 0; k <= i; k++) {
      const double lik = l[i * n + k];
      for (int64_t j = k; j < n; j++) a[i * n + j] += lik * u[k * n + j];
    }
  nd_array *ad = upload(a, 2, SHAPE(n, n), ND_FLOAT64);
  const int64_t acc0 = nd__inv_large_count(0);
  nd_array *x = NULL, *y = NULL;
  ND_ASSERT_OK(nd_linalg_inv(ad, &x));
  const int accepted = nd__inv_large_count(0) > acc0;
  nd_array_release(x);
  double diff = inv_both(ad, a, 1, n, accepted, ND_FLOAT64);
  ck_assert_msg(diff < 1e-4, "ill-conditioned: differs from partial pivoting by %g (accepted %d)", diff, accepted);
  nd_array_release(ad);
  /* badly scaled: the uniform matrix times 1e150 and times 1e-150 (order 576, no padding) */
  const int64_t m = 576;
  double *h = uniform(m * m);
  for (int s = 0; s < 2; s++) {
    const double scale = s ? 1e-150 : 1e150;
    double *hs = malloc((size_t)(m * m) * 8);
    for (int64_t i = 0; i < m * m; i++) hs[i] = h[i] * scale;
    nd_array *as = upload(hs, 2, SHAPE(m, m), ND_FLOAT64);
    ck_assert(inv_both(as, hs, 1, m, 1, ND_FLOAT64) < 1e-9);
    nd_array_release(as);
    free(hs);
  }
  (void)y;
  free(h);
  free(l);
  free(u);
  free(a);
}
END_TEST

/* The status and message of a checked inverse with and without the randomised path. */
static void same_failure(const nd_array *a, nd_status want, const char *needle) {
  char msg[512];
  nd_array *x = (nd_array *)0x1;
  const int64_t fb0 = nd__inv_large_count(1);
  ND_ASSERT_FAILS(nd_linalg_inv(a, &x), want, needle);
  ck_assert_ptr_eq(x, (nd_array *)0x1);
  ck_assert_int_eq(nd__inv_large_count(1) - fb0, 1);
  snprintf(msg, sizeof msg, "%s", nd_last_error());
  nd__config_override(ND__CFG_INV_RBT, "0");
  ND_ASSERT_FAILS(nd_linalg_inv(a, &x), want, needle);
  nd__config_override(ND__CFG_INV_RBT, NULL);
  ck_assert_msg(strcmp(msg, nd_last_error()) == 0, "messages differ: '%s' / '%s'", msg, nd_last_error());
  ck_assert_ptr_eq(x, (nd_array *)0x1);
}

START_TEST(test_singular_and_nan_checked) {
  const int64_t n = 520;
  for (int d = 0; d < 2; d++) {
    const nd_dtype dt = d ? ND_FLOAT32 : ND_FLOAT64;
    /* batch of three, the middle one all zeros */
    double *h = uniform(3 * n * n);
    memset(h + n * n, 0, (size_t)(n * n) * 8);
    nd_array *a = upload(h, 3, SHAPE(3, n, n), dt);
    same_failure(a, ND_ERR_SINGULAR, "nd_linalg_inv: matrix at batch index 1 is singular");
    /* unchecked: the info array names it */
    nd_array *x = NULL, *info = NULL;
    ND_ASSERT_OK(nd_linalg_inv_ex(a, ND_LINALG_UNCHECKED, &x, &info));
    int iv[3];
    ND_ASSERT_OK(nd_array_to_host(info, iv, sizeof iv));
    ck_assert(iv[0] == 0 && iv[1] == 1 && iv[2] == 0);
    nd_array_release(x);
    nd_array_release(info);
    nd_array_release(a);
    /* one matrix with two equal columns of zeros further in: an exact zero pivot later */
    double *g = uniform(n * n);
    for (int64_t i = 0; i < n; i++) g[i * n + 7] = g[i * n + 9] = 0.0;
    nd_array *b = upload(g, 2, SHAPE(n, n), dt);
    same_failure(b, ND_ERR_SINGULAR, "singular");
    nd_array_release(b);
    /* NaN: no error from partial pivoting either way (NaN pivots are not zero); the same answer */
    g[5 * n + 3] = NAN;
    for (int64_t i = 0; i < n; i++) g[i * n + 7] = urand(), g[i * n + 9] = urand();
    b = upload(g, 2, SHAPE(n, n), dt);
    const int64_t fb0 = nd__inv_large_count(1);
    nd_array *y = NULL;
    nd_status s1 = nd_linalg_inv(b, &x);
    ck_assert_int_eq(nd__inv_large_count(1) - fb0, 1);
    nd__config_override(ND__CFG_INV_RBT, "0");
    nd_status s2 = nd_linalg_inv(b, &y);
    nd__config_override(ND__CFG_INV_RBT, NULL);
    ck_assert_int_eq(s1, s2);
    nd_array_release(x);
    nd_array_release(y);
    nd_array_release(b);
    free(g);
    free(h);
  }
}
END_TEST

static Suite *inv_large_suite(void) {
  Suite *s = suite_create("inv_large");
  TCase *tc = tcase_create("inv_large");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_uniform_and_orders);
  tcase_add_test(tc, test_permuted_and_layouts);
  tcase_add_test(tc, test_ill_conditioned_and_scaled);
  tcase_add_test(tc, test_singular_and_nan_checked);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main_gpu(inv_large_suite()); }
