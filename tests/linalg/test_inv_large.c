/* The inverse without pivoting of large row diagonally dominant matrices (linalg/inv_large.c)
 * against the host residual and against the partial-pivoting path (ND_INV_NOPIV=0) on awkward
 * inputs: dominant, row-scaled (ill-conditioned) and badly scaled matrices, orders that are and
 * are not multiples of 64 (tiles merged in equal and unequal pairs), float32 and float64,
 * transposed / offset / reversed / batched layouts, general matrices that must not take the
 * path, and singular or NaN input in checked mode (the same status and message as before). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/inv_large.h"
#include "src/config.h"
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

/* Inverts a expecting the path without pivoting to accept it (expect 0), to try it and hand it
 * to partial pivoting (1) or not to try it (2), and again with ND_INV_NOPIV=0; checks both
 * residuals (batch matrices of order n, host copy h of a in C order) and returns the largest
 * difference between the two answers relative to the largest entry of partial pivoting's. */
static double inv_both(const nd_array *a, const double *h, int64_t batch, int64_t n, int expect, nd_dtype dt) {
  const double unit = dt == ND_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
  int64_t c0[3], c1[3];
  for (int i = 0; i < 3; i++) c0[i] = nd__inv_large_count(i);
  nd_array *x = NULL, *y = NULL;
  ND_ASSERT_OK(nd_linalg_inv(a, &x));
  ck_assert_int_eq(nd_array_dtype(x), dt);
  for (int i = 0; i < 3; i++) c1[i] = nd__inv_large_count(i) - c0[i];
  ck_assert_msg(c1[expect] == 1 && c1[0] + c1[1] + c1[2] == 1,
                "order %lld batch %lld: accepted %lld, fell back %lld, not tried %lld; expected case %d", (long long)n,
                (long long)batch, (long long)c1[0], (long long)c1[1], (long long)c1[2], expect);
  nd__config_override(ND__CFG_INV_NOPIV, "0");
  ND_ASSERT_OK(nd_linalg_inv(a, &y));
  nd__config_override(ND__CFG_INV_NOPIV, NULL);
  for (int i = 0; i < 3; i++) ck_assert(nd__inv_large_count(i) - c0[i] == c1[i]);
  double *hx = fetch(x), *hy = fetch(y), diff = 0;
  for (int64_t b = 0; b < batch; b++) {
    const double r1 = rel_residual(h + b * n * n, hx + b * n * n, n);
    const double r2 = rel_residual(h + b * n * n, hy + b * n * n, n);
    /* no worse than partial pivoting's by more than 8x, and small in itself */
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

/* batch matrices uniform in [-1, 1) plus n on the diagonal (row and column dominant), each row
 * i then multiplied by rowscale(i) (which keeps row dominance only), rounded to dt. */
static double *dominant(int64_t batch, int64_t n, double lo_scale, nd_dtype dt) {
  double *h = uniform(batch * n * n);
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < n; i++) {
      const double sc = lo_scale == 1.0 ? 1.0 : pow(lo_scale, (double)i / (double)(n - 1));
      for (int64_t j = 0; j < n; j++) {
        double *e = h + (b * n + i) * n + j;
        *e = (*e + (i == j ? (double)n : 0.0)) * sc;
        if (dt == ND_FLOAT32) *e = (double)(float)*e;
      }
    }
  return h;
}

START_TEST(test_dominant_orders) {
  /* 512: no padding (8 tiles: every level batched but the last); 600: padded to 640 (10 tiles:
   * an unequal pair); 1088: 17 tiles. float32 is inverted in float64 and rounded. */
  const int64_t ns[] = {512, 600, 1088};
  for (int d = 0; d < 2; d++)
    for (int i = 0; i < 3; i++) {
      const nd_dtype dt = d ? ND_FLOAT32 : ND_FLOAT64;
      const int64_t n = ns[i];
      if (d && i == 2) continue;
      double *h = dominant(1, n, 1.0, dt);
      nd_array *a = upload(h, 2, SHAPE(n, n), dt);
      double diff = inv_both(a, h, 1, n, 0, dt);
      ck_assert_msg(diff < (d ? 1e-5 : 1e-12), "%s %lld: differs from partial pivoting by %g", nd_dtype_name(dt),
                    (long long)n, diff);
      /* unchecked mode never waits: partial pivoting, not counted */
      int64_t c0[3];
      for (int k = 0; k < 3; k++) c0[k] = nd__inv_large_count(k);
      nd_array *x = NULL;
      ND_ASSERT_OK(nd_linalg_inv_ex(a, ND_LINALG_UNCHECKED, &x, NULL));
      for (int k = 0; k < 3; k++) ck_assert(nd__inv_large_count(k) == c0[k]);
      nd_array_release(x);
      nd_array_release(a);
      free(h);
    }
}
END_TEST

START_TEST(test_layouts_and_declined) {
  const int64_t n = 521; /* padded to 576: 9 tiles */
  /* rows scaled from 1 down to 1e-3: row dominant, not column dominant */
  double *h = dominant(1, n, 1e-3, ND_FLOAT64);
  nd_array *a = upload(h, 2, SHAPE(n, n), ND_FLOAT64);
  ck_assert(inv_both(a, h, 1, n, 0, ND_FLOAT64) < 1e-12);
  /* its transpose (column dominant only): not tried, partial pivoting's answer */
  double *ht = malloc((size_t)(n * n) * 8);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) ht[i * n + j] = h[j * n + i];
  nd_array *t = NULL, *f = NULL;
  ND_ASSERT_OK(nd_array_swapaxes(a, -1, -2, &t));
  ck_assert(inv_both(t, ht, 1, n, 2, ND_FLOAT64) == 0.0);
  /* reversed rows: the diagonal moves, not dominant */
  double *hf = malloc((size_t)(n * n) * 8);
  for (int64_t i = 0; i < n; i++) memcpy(hf + i * n, h + (n - 1 - i) * n, (size_t)n * 8);
  ND_ASSERT_OK(nd_array_flip(a, 1, SHAPE(0), &f));
  ck_assert(inv_both(f, hf, 1, n, 2, ND_FLOAT64) == 0.0);
  /* an offset slice of a larger array, and the transpose of a matrix dominant both ways */
  double *big = uniform((n + 2) * (n + 3));
  for (int64_t r = 0; r < n; r++) memcpy(big + (r + 1) * (n + 3) + 2, h + r * n, (size_t)n * 8);
  nd_array *bg = upload(big, 2, SHAPE(n + 2, n + 3), ND_FLOAT64), *off = NULL;
  nd_slice s2[2] = {{1, n + 1, 1}, {2, n + 2, 1}};
  ND_ASSERT_OK(nd_array_slice(bg, 2, s2, &off));
  ck_assert(inv_both(off, h, 1, n, 0, ND_FLOAT64) < 1e-12);
  double *hd = dominant(1, n, 1.0, ND_FLOAT64);
  nd_array *ad = upload(hd, 2, SHAPE(n, n), ND_FLOAT64), *adt = NULL;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) ht[i * n + j] = hd[j * n + i];
  ND_ASSERT_OK(nd_array_swapaxes(ad, -1, -2, &adt));
  ck_assert(inv_both(adt, ht, 1, n, 0, ND_FLOAT64) < 1e-12);
  nd_array_release(adt);
  nd_array_release(ad);
  free(hd);
  nd_array_release(off);
  nd_array_release(bg);
  nd_array_release(f);
  nd_array_release(t);
  nd_array_release(a);
  free(big);
  free(hf);
  free(ht);
  free(h);
  /* batches: two dominant matrices of order 513; then one of them uniform (not tried) */
  const int64_t m = 513;
  double *hb = dominant(2, m, 1.0, ND_FLOAT64);
  nd_array *ab = upload(hb, 3, SHAPE(2, m, m), ND_FLOAT64);
  ck_assert(inv_both(ab, hb, 2, m, 0, ND_FLOAT64) < 1e-12);
  nd_array_release(ab);
  for (int64_t i = 0; i < m * m; i++) hb[m * m + i] = urand();
  ab = upload(hb, 3, SHAPE(2, m, m), ND_FLOAT64);
  ck_assert(inv_both(ab, hb, 2, m, 2, ND_FLOAT64) == 0.0);
  nd_array_release(ab);
  free(hb);
  /* a general (uniform) matrix: not tried */
  double *hu = uniform(512 * 512);
  nd_array *au = upload(hu, 2, SHAPE(512, 512), ND_FLOAT64);
  ck_assert(inv_both(au, hu, 1, 512, 2, ND_FLOAT64) == 0.0);
  nd_array_release(au);
  free(hu);
  /* order 300: below the smallest order, never counted */
  double *hs = dominant(1, 300, 1.0, ND_FLOAT32);
  nd_array *as = upload(hs, 2, SHAPE(300, 300), ND_FLOAT32), *x = NULL;
  int64_t c0[3];
  for (int k = 0; k < 3; k++) c0[k] = nd__inv_large_count(k);
  ND_ASSERT_OK(nd_linalg_inv(as, &x));
  for (int k = 0; k < 3; k++) ck_assert(nd__inv_large_count(k) == c0[k]);
  nd_array_release(x);
  nd_array_release(as);
  free(hs);
}
END_TEST

START_TEST(test_ill_conditioned_and_scaled) {
  /* rows scaled from 1 down to 1e-9: condition number near 1e9, still row dominant */
  const int64_t n = 512;
  double *h = dominant(1, n, 1e-9, ND_FLOAT64);
  nd_array *a = upload(h, 2, SHAPE(n, n), ND_FLOAT64);
  double diff = inv_both(a, h, 1, n, 0, ND_FLOAT64);
  ck_assert_msg(diff < 1e-9, "ill-conditioned: differs from partial pivoting by %g", diff);
  nd_array_release(a);
  free(h);
  /* badly scaled: times 1e150 and 1e-150, at 576 (no padding) and 600 (padded with ones) */
  const int64_t ms[] = {576, 600};
  for (int i = 0; i < 2; i++)
    for (int s = 0; s < 2; s++) {
      const int64_t m = ms[i];
      double *hs = dominant(1, m, 1.0, ND_FLOAT64);
      for (int64_t k = 0; k < m * m; k++) hs[k] *= s ? 1e-150 : 1e150;
      nd_array *as = upload(hs, 2, SHAPE(m, m), ND_FLOAT64);
      ck_assert(inv_both(as, hs, 1, m, 0, ND_FLOAT64) < 1e-12);
      nd_array_release(as);
      free(hs);
    }
}
END_TEST

/* The status and message of a checked inverse with and without the path without pivoting;
 * expect: the counter that moves (1: tried and handed on, 2: not tried). */
static void same_failure(const nd_array *a, nd_status want, const char *needle, int expect) {
  char msg[512];
  nd_array *x = (nd_array *)0x1;
  const int64_t c = nd__inv_large_count(expect);
  ND_ASSERT_FAILS(nd_linalg_inv(a, &x), want, needle);
  ck_assert_ptr_eq(x, (nd_array *)0x1);
  ck_assert_int_eq(nd__inv_large_count(expect) - c, 1);
  snprintf(msg, sizeof msg, "%s", nd_last_error());
  nd__config_override(ND__CFG_INV_NOPIV, "0");
  ND_ASSERT_FAILS(nd_linalg_inv(a, &x), want, needle);
  nd__config_override(ND__CFG_INV_NOPIV, NULL);
  ck_assert_msg(strcmp(msg, nd_last_error()) == 0, "messages differ: '%s' / '%s'", msg, nd_last_error());
  ck_assert_ptr_eq(x, (nd_array *)0x1);
}

START_TEST(test_singular_and_nan_checked) {
  const int64_t n = 520;
  for (int d = 0; d < 2; d++) {
    const nd_dtype dt = d ? ND_FLOAT32 : ND_FLOAT64;
    /* batch of three dominant matrices, the middle one all zeros (weakly dominant: tried) */
    double *h = dominant(3, n, 1.0, dt);
    memset(h + n * n, 0, (size_t)(n * n) * 8);
    nd_array *a = upload(h, 3, SHAPE(3, n, n), dt);
    same_failure(a, ND_ERR_SINGULAR, "nd_linalg_inv: matrix at batch index 1 is singular", 1);
    /* unchecked: the info array names it */
    nd_array *x = NULL, *info = NULL;
    ND_ASSERT_OK(nd_linalg_inv_ex(a, ND_LINALG_UNCHECKED, &x, &info));
    int iv[3];
    ND_ASSERT_OK(nd_array_to_host(info, iv, sizeof iv));
    ck_assert(iv[0] == 0 && iv[1] == 1 && iv[2] == 0);
    nd_array_release(x);
    nd_array_release(info);
    nd_array_release(a);
    /* one dominant matrix with row 7 all zeros: an exact zero pivot further in */
    double *g = dominant(1, n, 1.0, dt);
    for (int64_t j = 0; j < n; j++) g[7 * n + j] = 0.0;
    nd_array *b = upload(g, 2, SHAPE(n, n), dt);
    same_failure(b, ND_ERR_SINGULAR, "singular", 1);
    nd_array_release(b);
    /* NaN: not dominant, not tried; the same status as partial pivoting */
    g[7 * n + 7] = 1e6;
    g[5 * n + 3] = NAN;
    b = upload(g, 2, SHAPE(n, n), dt);
    const int64_t c2 = nd__inv_large_count(2);
    nd_array *y = NULL;
    x = NULL;
    nd_status s1 = nd_linalg_inv(b, &x);
    ck_assert_int_eq(nd__inv_large_count(2) - c2, 1);
    nd__config_override(ND__CFG_INV_NOPIV, "0");
    nd_status s2 = nd_linalg_inv(b, &y);
    nd__config_override(ND__CFG_INV_NOPIV, NULL);
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
  tcase_add_test(tc, test_dominant_orders);
  tcase_add_test(tc, test_layouts_and_declined);
  tcase_add_test(tc, test_ill_conditioned_and_scaled);
  tcase_add_test(tc, test_singular_and_nan_checked);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main_gpu(inv_large_suite()); }
