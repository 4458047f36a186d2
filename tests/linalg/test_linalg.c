/* GPU suite for linalg/: every routine against host references or residuals (||A inv(A) - I||,
 * ||A x - b||, ||Q R - A||, ||U S Vh - A||, ||A V - V L||) over dtypes, batch shapes, the three
 * size regimes of inv/solve/det (fused small kernel, block kernel, cuSOLVER), awkward layouts
 * (offset slices, transposed, negative strides, broadcast batches), zero sizes, singular and
 * indefinite input in checked and unchecked mode, NaN input, bad arguments, the SEEDS report 5
 * scenario across streams, graph capture and several threads. Exits 77 without a GPU. */
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "linalg/kernels.h"
#include "linalg/linalg_internal.h"
#include "tests/nd_test.h"

typedef double complex dc;

static const nd_dtype FLOATS[4] = {ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};

static int is_complex(nd_dtype dt) { return dt == ND_COMPLEX64 || dt == ND_COMPLEX128; }
static int is_single(nd_dtype dt) { return dt == ND_FLOAT32 || dt == ND_COMPLEX64; }
static double tol_of(nd_dtype dt, int64_t n) { return (is_single(dt) ? 3e-5 : 1e-12) * (double)(n + 4); }

/* ---- host helpers ------------------------------------------------------------------------ */

static uint64_t rng_state = 88172645463325252ull;
static double urand(void) { /* uniform in [-1, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 4503599627370496.0 - 1.0;
}

static int64_t prod(int ndim, const int64_t *shape) {
  int64_t p = 1;
  for (int i = 0; i < ndim; i++) p *= shape[i];
  return p;
}

/* Uploads complex values as an array of dtype dt (real part only for real dtypes). */
static nd_array *upload(const dc *v, int ndim, const int64_t *shape, nd_dtype dt) {
  int64_t n = prod(ndim, shape);
  nd_array *c = NULL, *r = NULL;
  ND_ASSERT_OK(nd_array_from_host(n ? (const void *)v : (const void *)"", (size_t)n * sizeof(dc), ndim, shape,
                                  ND_COMPLEX128, &c));
  if (dt == ND_COMPLEX128) return c;
  nd_array *re = NULL;
  if (!is_complex(dt)) {
    ND_ASSERT_OK(nd_array_real(c, &re));
    ND_ASSERT_OK(nd_array_astype(re, dt, &r));
    nd_array_release(re);
  } else {
    ND_ASSERT_OK(nd_array_astype(c, dt, &r));
  }
  nd_array_release(c);
  return r;
}

/* The elements of a (any dtype, any layout) in C order as complex doubles. */
static dc *fetch(const nd_array *a) {
  nd_array *c = NULL;
  ND_ASSERT_OK(nd_array_astype(a, ND_COMPLEX128, &c));
  int64_t n = nd_array_size(a);
  dc *h = malloc((size_t)(n ? n : 1) * sizeof(dc));
  ND_ASSERT_OK(nd_array_to_host(c, h, (size_t)(n ? n : 1) * sizeof(dc)));
  nd_array_release(c);
  return h;
}

/* Random well-conditioned matrices: R + n I (diagonally dominant) with their rows permuted, so
 * partial pivoting has work to do. */
static dc *rand_mats(int64_t batch, int64_t n, int cplx) {
  dc *v = malloc((size_t)(batch * n * n + 1) * sizeof(dc));
  for (int64_t b = 0; b < batch; b++) {
    dc *m = v + b * n * n;
    for (int64_t i = 0; i < n * n; i++) m[i] = urand() + (cplx ? urand() * I : 0);
    for (int64_t i = 0; i < n; i++) m[i * n + i] += (double)n + 1.0;
    for (int64_t i = n - 1; i > 0; i--) {
      int64_t j = (int64_t)((urand() + 1.0) * 0.5 * (double)(i + 1)) % (i + 1);
      for (int64_t c = 0; c < n; c++) {
        dc t = m[i * n + c];
        m[i * n + c] = m[j * n + c];
        m[j * n + c] = t;
      }
    }
  }
  return v;
}

static dc *rand_vals(int64_t count, int cplx) {
  dc *v = malloc((size_t)(count + 1) * sizeof(dc));
  for (int64_t i = 0; i < count; i++) v[i] = urand() + (cplx ? urand() * I : 0);
  return v;
}

/* The real parts of v[0..k) as "[a, b, ...]" (at most 12 values, then "..."). */
static void fmt_row(char *buf, size_t cap, const dc *v, int64_t k) {
  size_t at = 0;
  at += (size_t)snprintf(buf + at, cap - at, "[");
  for (int64_t i = 0; i < k && i < 12 && at < cap; i++)
    at += (size_t)snprintf(buf + at, cap - at, "%s%.9g", i ? ", " : "", creal(v[i]));
  if (at < cap) snprintf(buf + at, cap - at, "%s]", k > 12 ? ", ..." : "");
}

static void hmatmul(const dc *a, const dc *b, dc *c, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      dc s = 0;
      for (int64_t t = 0; t < k; t++) s += a[i * k + t] * b[t * n + j];
      c[i * n + j] = s;
    }
}

static double maxabs(const dc *v, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; i++)
    if (cabs(v[i]) > m || isnan(cabs(v[i]))) m = cabs(v[i]);
  return m;
}

/* max |A X - I| over a batch (A, X: host, C order). */
static double inv_residual(const dc *a, const dc *x, int64_t batch, int64_t n) {
  double worst = 0;
  dc *t = malloc((size_t)(n * n + 1) * sizeof(dc));
  for (int64_t b = 0; b < batch; b++) {
    hmatmul(a + b * n * n, x + b * n * n, t, n, n, n);
    for (int64_t i = 0; i < n; i++) t[i * n + i] -= 1.0;
    double r = maxabs(t, n * n);
    if (r > worst || isnan(r)) worst = r;
  }
  free(t);
  return worst;
}

/* Host determinant by LU with partial pivoting. */
static dc hdet(const dc *a, int64_t n) {
  dc *m = malloc((size_t)(n * n + 1) * sizeof(dc));
  memcpy(m, a, (size_t)(n * n) * sizeof(dc));
  dc d = 1;
  for (int64_t k = 0; k < n; k++) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; i++)
      if (cabs(m[i * n + k]) > cabs(m[p * n + k])) p = i;
    if (m[p * n + k] == 0) {
      free(m);
      return 0;
    }
    if (p != k) {
      for (int64_t c = 0; c < n; c++) {
        dc t = m[k * n + c];
        m[k * n + c] = m[p * n + c];
        m[p * n + c] = t;
      }
      d = -d;
    }
    d *= m[k * n + k];
    for (int64_t i = k + 1; i < n; i++) {
      dc f = m[i * n + k] / m[k * n + k];
      for (int64_t c = k; c < n; c++) m[i * n + c] -= f * m[k * n + c];
    }
  }
  free(m);
  return d;
}

static void assert_shape(const nd_array *a, int ndim, const int64_t *shape) {
  ck_assert_int_eq(nd_array_ndim(a), ndim);
  for (int i = 0; i < ndim; i++)
    ck_assert_msg(nd_array_shape(a)[i] == shape[i], "dim %d: %lld != %lld", i, (long long)nd_array_shape(a)[i],
                  (long long)shape[i]);
}

#define SHAPE(...) ((const int64_t[]){__VA_ARGS__})

/* ---- inv --------------------------------------------------------------------------------- */

/* Inverts a batch in one dtype and checks the residual against the uploaded values. */
static void check_inv(nd_dtype dt, int bnd, const int64_t *bshape, int64_t n) {
  int64_t shape[8];
  memcpy(shape, bshape, (size_t)bnd * sizeof(int64_t));
  shape[bnd] = n;
  shape[bnd + 1] = n;
  int64_t batch = prod(bnd, bshape);
  dc *h = rand_mats(batch, n, is_complex(dt));
  nd_array *a = upload(h, bnd + 2, shape, dt), *x = NULL;
  ND_ASSERT_OK(nd_linalg_inv(a, &x));
  ck_assert_int_eq(nd_array_dtype(x), dt);
  assert_shape(x, bnd + 2, shape);
  ck_assert(nd_array_is_c_contiguous(x));
  dc *ha = fetch(a), *hx = fetch(x);
  double r = inv_residual(ha, hx, batch, n);
  ck_assert_msg(r < tol_of(dt, n), "inv %s n=%lld batch=%lld: residual %g", nd_dtype_name(dt), (long long)n,
                (long long)batch, r);
  free(h);
  free(ha);
  free(hx);
  nd_array_release(a);
  nd_array_release(x);
}

START_TEST(test_inv_sizes_dtypes) {
  const int64_t ns[] = {1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 32, 33, 48, 64, 65, 100, 128, 129, 200};
  for (int d = 0; d < 4; d++)
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      int64_t n = ns[i];
      int64_t batch = n <= 32 ? 37 : n <= 128 ? 5 : 2; /* 37: several warps, a partial last one */
      check_inv(FLOATS[d], 1, &batch, n);
    }
  /* one matrix (no batch dims) and a 2-d batch */
  for (int d = 0; d < 4; d++) {
    check_inv(FLOATS[d], 0, NULL, 6);
    check_inv(FLOATS[d], 0, NULL, 150);
    check_inv(FLOATS[d], 2, SHAPE(3, 4), 7);
    check_inv(FLOATS[d], 2, SHAPE(2, 3), 40);
  }
}
END_TEST

static void check_inv_view(const nd_array *v, nd_dtype dt);

START_TEST(test_inv_large_batch) {
  /* the benchmark shapes, smaller: many matrices per launch */
  int64_t b = 20000;
  check_inv(ND_FLOAT32, 1, &b, 4);
  check_inv(ND_FLOAT32, 1, &b, 8);
  check_inv(ND_FLOAT32, 1, &b, 24); /* the one-pass grid of the 24-wide instance */
  check_inv(ND_FLOAT64, 1, &b, 16); /* resident blocks that loop over the batch */
  b = 1000;
  check_inv(ND_FLOAT32, 1, &b, 32);
  check_inv(ND_FLOAT64, 1, &b, 32);
  /* float64 32 x 32 (gj_tensor.cu) asks L2 for a later warp's matrix, a third of the resident warps
   * ahead (704 on a 132-SM H100): a batch past several waves, and every other matrix of one
   * walked backwards (batch stride -2048 elements) */
  b = 5000;
  check_inv(ND_FLOAT64, 1, &b, 32);
  {
    const int64_t nb = 4000;
    dc *h = rand_mats(nb, 32, 0);
    nd_array *a = upload(h, 3, SHAPE(nb, 32, 32), ND_FLOAT64), *sl = NULL;
    nd_slice s2[1] = {{ND_NONE, ND_NONE, -2}};
    ND_ASSERT_OK(nd_array_slice(a, 1, s2, &sl));
    ck_assert_int_eq(nd_array_strides(sl)[0], -2 * 32 * 32 * 8);
    check_inv_view(sl, ND_FLOAT64);
    nd_array_release(sl);
    nd_array_release(a);
    free(h);
  }
  /* float64 17..32 through the one-warp kernel that devices before sm_80 use */
  int dev = 0, major = 0;
  ck_assert_int_eq(cudaGetDevice(&dev), cudaSuccess);
  ck_assert_int_eq(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
  ck_assert_int_eq(nd_lk_inv_tc_ok(ND_FLOAT64, 32), major >= 8);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 32, major), major >= 8 ? ND__GJ_TC : ND__GJ_WARP);
  ck_assert_uint_eq(nd__gj_set_generic(ND__GJ_SKIP(ND__GJ_TC)), 0);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 32, major), ND__GJ_WARP);
  check_inv(ND_FLOAT64, 1, &b, 32);
  b = 37;
  check_inv(ND_FLOAT64, 1, &b, 20);
  ck_assert_uint_eq(nd__gj_set_generic(0), ND__GJ_SKIP(ND__GJ_TC));
  b = 50;
  check_inv(ND_FLOAT32, 1, &b, 128);
}
END_TEST

/* float32 orders 25..32 (gj_warp.cu's one-warp kernel k_gjw): every order, a batch of several
 * waves, and matrices with pivots near the ends of float's range (3e-38 with subnormal entries,
 * 3e37). */
START_TEST(test_inv_float32_warp) {
  for (int64_t n = 25; n <= 32; n++) {
    int64_t b = 37;
    check_inv(ND_FLOAT32, 1, &b, n);
  }
  int64_t big = 6000;
  check_inv(ND_FLOAT32, 1, &big, 32);
  check_inv(ND_FLOAT32, 1, &big, 29);
  const int64_t ns[] = {27, 32};
  const double scales[] = {1e-39, 1e36}; /* pivots near 3e-38 (some entries subnormal), 3e37 */
  for (int i = 0; i < 4; i++) {
    int64_t n = ns[i % 2], batch = 5;
    dc *h = rand_mats(batch, n, 0);
    for (int64_t e = n * n; e < 3 * n * n; e++) h[e] *= scales[i / 2]; /* matrices 1 and 2 */
    nd_array *a = upload(h, 3, SHAPE(batch, n, n), ND_FLOAT32), *x = NULL;
    ND_ASSERT_OK(nd_linalg_inv(a, &x));
    dc *ha = fetch(a), *hx = fetch(x);
    for (int64_t b = 0; b < batch; b++) {
      double r = inv_residual(ha + b * n * n, hx + b * n * n, 1, n);
      ck_assert_msg(r < tol_of(ND_FLOAT32, n), "float32 n=%lld scale %g matrix %lld: residual %g", (long long)n,
                    scales[i / 2], (long long)b, r);
    }
    free(ha);
    free(hx);
    free(h);
    nd_array_release(a);
    nd_array_release(x);
  }
}
END_TEST

/* det and slogdet of a batch of order n against the host's LU. */
static void check_det(nd_dtype dt, int64_t batch, int64_t n) {
  dc *h = rand_mats(batch, n, is_complex(dt));
  for (int64_t e = 0; e < batch * n * n; e++) h[e] /= (double)n; /* keep det in range */
  nd_array *a = upload(h, 3, SHAPE(batch, n, n), dt), *det = NULL, *sg = NULL, *lg = NULL;
  ND_ASSERT_OK(nd_linalg_det(a, &det));
  ND_ASSERT_OK(nd_linalg_slogdet(a, &sg, &lg));
  dc *A = fetch(a), *D = fetch(det), *S = fetch(sg), *L = fetch(lg);
  for (int64_t b = 0; b < batch; b++) {
    const dc ref = hdet(A + b * n * n, n);
    ck_assert_msg(cabs(D[b] - ref) / cabs(ref) < tol_of(dt, n) * 10, "det %s n=%lld matrix %lld: %g vs %g",
                  nd_dtype_name(dt), (long long)n, (long long)b, creal(D[b]), creal(ref));
    ck_assert(cabs(S[b] * exp(creal(L[b])) - ref) / cabs(ref) < tol_of(dt, n) * 10);
  }
  free(h);
  free(A);
  free(D);
  free(S);
  free(L);
  nd_array_release(a);
  nd_array_release(det);
  nd_array_release(sg);
  nd_array_release(lg);
}

/* Every row of the batched inverse's plan (linalg/plan.c) at both ends of its orders, under the
 * normal plan and under each setting of the bench hook nd__gj_set_generic (each variant's generic
 * neighbour, and the tensor-core kernel without its prefetch), so that every kernel instance
 * the plan or a comparison can launch is checked. */
static void check_solve(nd_dtype dt, int64_t batch, int64_t n, int64_t k, int vec, int bcast_b);
static void check_solve_view(nd_dtype dt, int64_t batch, int64_t n, int64_t k);

START_TEST(test_inv_plan_rows) {
  int dev = 0, major = 0;
  ck_assert_int_eq(cudaGetDevice(&dev), cudaSuccess);
  ck_assert_int_eq(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
  const unsigned masks[] = {0,
                            ND__GJ_SKIP(ND__GJ_TINY),
                            ND__GJ_SKIP(ND__GJ_TC),
                            ND__GJ_SKIP(ND__GJ_TC) | ND__GJ_SKIP(ND__GJ_WARP),
                            ND__GJ_SKIP(ND__GJ_SMALL) | ND__GJ_SKIP(ND__GJ_MEDIUM),
                            ND__GJ_PLAIN};
  for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
    ck_assert_uint_eq(nd__gj_set_generic(masks[m]), 0);
    for (int i = 0; i < nd__gj_plan_count; i++) {
      const nd__gj_plan_row *r = &nd__gj_plan_rows[i];
      if (major < r->cc_min) continue;
      const int ends[2] = {r->n_min, r->n_max};
      for (int e = 0; e < 2; e++) {
        int64_t n = ends[e], batch = n <= 32 ? 37 : 5;
        check_inv(r->dtype, 1, &batch, n);
        if (r->modes & (1u << ND_LK_DET)) check_det(r->dtype, 4, n);
        /* the solve at every row's orders: the row's kernel (tiny, one-warp, small) or, at the
         * medium rows' orders, their inverse and a product; whichever the mask leaves */
        check_solve(r->dtype, batch, n, 1, 1, 0); /* b a vector: broadcast over the batch */
        check_solve(r->dtype, batch, n, 3, 0, 0);
        check_solve(r->dtype, batch, n, 2, 0, 1);
      }
    }
    ck_assert_uint_eq(nd__gj_set_generic(0), masks[m]);
  }
  /* b carried through the elimination up to 128 right-hand sides by the lookahead kernel (orders
   * 65..128) and up to 4 by the one-warp kernel; more take the inverse's stage and a product
   * (the tensor-core kernel always) */
  check_solve(ND_FLOAT32, 3, 100, 128, 0, 0);
  check_solve(ND_FLOAT32, 3, 100, 130, 0, 0);
  check_solve(ND_FLOAT64, 2, 128, 129, 0, 1);
  check_solve(ND_FLOAT64, 4, 65, 7, 0, 0);
  check_solve(ND_FLOAT32, 37, 27, 4, 0, 0);
  check_solve(ND_FLOAT32, 37, 32, 5, 0, 0);
  check_solve(ND_FLOAT64, 37, 25, 4, 0, 0);
  check_solve(ND_FLOAT64, 37, 32, 5, 0, 1);
  /* views at every solve kernel's orders (float64 17..32 the tensor-core kernel, then k_gjw) */
  const nd_dtype vdts[] = {ND_FLOAT32, ND_FLOAT64, ND_FLOAT32, ND_FLOAT64, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64};
  const int64_t vns[] = {7, 4, 30, 25, 50, 120, 20};
  for (int t = 0; t < 7; t++) {
    check_solve_view(vdts[t], 9, vns[t], 3);
    if (vdts[t] == ND_FLOAT64 && vns[t] == 25) {
      ck_assert_uint_eq(nd__gj_set_generic(ND__GJ_SKIP(ND__GJ_TC)), 0);
      check_solve_view(ND_FLOAT64, 9, 25, 3);
      ck_assert_uint_eq(nd__gj_set_generic(0), ND__GJ_SKIP(ND__GJ_TC));
    }
  }
}
END_TEST

/* inv of a view against the residual with the view's own values. */
static void check_inv_view(const nd_array *v, nd_dtype dt) {
  nd_array *x = NULL;
  ND_ASSERT_OK(nd_linalg_inv(v, &x));
  int nd = nd_array_ndim(v);
  int64_t n = nd_array_shape(v)[nd - 1], batch = prod(nd - 2, nd_array_shape(v));
  assert_shape(x, nd, nd_array_shape(v));
  dc *hv = fetch(v), *hx = fetch(x);
  double r = inv_residual(hv, hx, batch, n);
  ck_assert_msg(r < tol_of(dt, n), "inv of a view %s n=%lld: residual %g", nd_dtype_name(dt), (long long)n, r);
  free(hv);
  free(hx);
  nd_array_release(x);
}

START_TEST(test_inv_layouts) {
  const int64_t ns[] = {3, 8, 20, 27, 32, 45, 140};
  for (int d = 0; d < 4; d++)
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      nd_dtype dt = FLOATS[d];
      int64_t n = ns[i], batch = 6;
      dc *h = rand_mats(batch, n, is_complex(dt));
      nd_array *a = upload(h, 3, SHAPE(batch, n, n), dt);
      /* transposed matrices */
      nd_array *t = NULL;
      ND_ASSERT_OK(nd_array_swapaxes(a, -1, -2, &t));
      check_inv_view(t, dt);
      /* batch transposed to the front of a permuted array: (n, batch, n) -> moveaxis */
      nd_array *p = NULL, *pb = NULL;
      ND_ASSERT_OK(nd_array_copy(t, ND_ORDER_C, &p)); /* (batch, n, n) holding A^T */
      ND_ASSERT_OK(nd_array_transpose(p, 3, SHAPE(1, 0, 2), &pb));
      nd_array *pv = NULL;
      ND_ASSERT_OK(nd_array_transpose(pb, 3, SHAPE(1, 0, 2), &pv)); /* back, through a non-trivial view */
      check_inv_view(pv, dt);
      /* negative strides: rows reversed (still invertible), every other matrix */
      nd_array *f = NULL, *sl = NULL;
      ND_ASSERT_OK(nd_array_flip(a, 1, SHAPE(1), &f));
      nd_slice s2[1] = {{ND_NONE, ND_NONE, -2}};
      ND_ASSERT_OK(nd_array_slice(f, 1, s2, &sl));
      check_inv_view(sl, dt);
      /* offset slice of a larger array */
      dc *big = rand_vals(batch * (n + 2) * (n + 3), is_complex(dt));
      for (int64_t b = 0; b < batch; b++)
        for (int64_t r = 0; r < n; r++)
          for (int64_t c = 0; c < n; c++) big[(b * (n + 2) + r + 1) * (n + 3) + c + 2] = h[(b * n + r) * n + c];
      nd_array *bg = upload(big, 3, SHAPE(batch, n + 2, n + 3), dt), *off = NULL;
      nd_slice s3[3] = {ND_SLICE_ALL, {1, n + 1, 1}, {2, n + 2, 1}};
      ND_ASSERT_OK(nd_array_slice(bg, 3, s3, &off));
      check_inv_view(off, dt);
      /* one matrix broadcast across a batch */
      nd_array *one = NULL, *bc = NULL;
      ND_ASSERT_OK(nd_array_index(a, 0, 2, &one));
      ND_ASSERT_OK(nd_array_broadcast_to(one, 3, SHAPE(5, n, n), &bc));
      check_inv_view(bc, dt);
      nd_array_release(t);
      nd_array_release(p);
      nd_array_release(pb);
      nd_array_release(pv);
      nd_array_release(f);
      nd_array_release(sl);
      nd_array_release(bg);
      nd_array_release(off);
      nd_array_release(one);
      nd_array_release(bc);
      nd_array_release(a);
      free(big);
      free(h);
    }
}
END_TEST

START_TEST(test_inv_int_promotes) {
  /* integers compute in float64, as NumPy */
  int32_t v[4] = {4, 7, 2, 6};
  nd_array *a = NULL, *x = NULL;
  ND_ASSERT_OK(nd_array_from_host(v, sizeof v, 2, SHAPE(2, 2), ND_INT32, &a));
  ND_ASSERT_OK(nd_linalg_inv(a, &x));
  ck_assert_int_eq(nd_array_dtype(x), ND_FLOAT64);
  double h[4];
  ND_ASSERT_OK(nd_array_to_host(x, h, sizeof h));
  ck_assert(fabs(h[0] - 0.6) < 1e-14 && fabs(h[1] + 0.7) < 1e-14 && fabs(h[2] + 0.2) < 1e-14 && fabs(h[3] - 0.4) < 1e-14);
  nd_array_release(a);
  nd_array_release(x);
}
END_TEST

START_TEST(test_inv_zero_sizes) {
  for (int d = 0; d < 4; d++) {
    nd_array *a = NULL, *x = NULL, *info = NULL;
    ND_ASSERT_OK(nd_empty(3, SHAPE(0, 4, 4), FLOATS[d], &a));
    ND_ASSERT_OK(nd_linalg_inv(a, &x));
    assert_shape(x, 3, SHAPE(0, 4, 4));
    nd_array_release(x);
    nd_array_release(a);
    ND_ASSERT_OK(nd_empty(2, SHAPE(0, 0), FLOATS[d], &a));
    ND_ASSERT_OK(nd_linalg_inv_ex(a, ND_LINALG_CHECKED, &x, &info));
    assert_shape(x, 2, SHAPE(0, 0));
    ck_assert_int_eq(nd_array_ndim(info), 0);
    int iv = -1;
    ND_ASSERT_OK(nd_array_to_host(info, &iv, sizeof iv));
    ck_assert_int_eq(iv, 0);
    nd_array_release(x);
    nd_array_release(info);
    nd_array_release(a);
    /* det of 0x0 is 1 */
    ND_ASSERT_OK(nd_empty(3, SHAPE(2, 0, 0), FLOATS[d], &a));
    ND_ASSERT_OK(nd_linalg_det(a, &x));
    dc *h = fetch(x);
    ck_assert(creal(h[0]) == 1.0 && creal(h[1]) == 1.0);
    free(h);
    nd_array_release(x);
    nd_array_release(a);
  }
}
END_TEST

/* A batch with matrix `bad` singular (its row 1 a copy of row 0 and column pivot chain zero). */
static nd_array *singular_batch(nd_dtype dt, int64_t batch, int64_t n, int64_t bad, int zero) {
  dc *h = rand_mats(batch, n, is_complex(dt));
  dc *m = h + bad * n * n;
  if (zero)
    for (int64_t i = 0; i < n * n; i++) m[i] = 0;
  else
    for (int64_t c = 0; c < n; c++) m[n + c] = m[c];
  nd_array *a = upload(h, 3, SHAPE(batch, n, n), dt);
  free(h);
  return a;
}

START_TEST(test_inv_singular_checked_unchecked) {
  const int64_t ns[] = {4, 24, 27, 32, 40, 200}; /* 24, 27, 32: the one-warp kernels */
  for (int d = 0; d < 4; d++)
    for (int i = 0; i < 6; i++) {
      nd_dtype dt = FLOATS[d];
      int64_t n = ns[i];
      nd_array *a = singular_batch(dt, 4, n, 2, 1), *x = NULL, *info = NULL;
      /* checked (the default): an error naming the batch index, outputs untouched */
      x = (nd_array *)0x1;
      ND_ASSERT_FAILS(nd_linalg_inv(a, &x), ND_ERR_SINGULAR, "nd_linalg_inv: matrix at batch index 2 is singular");
      ck_assert_ptr_eq(x, (nd_array *)0x1);
      ck_assert(strstr(nd_last_error(), "pivot 1") != NULL);
      /* unchecked: no error, the info array says which */
      x = NULL;
      ND_ASSERT_OK(nd_linalg_inv_ex(a, ND_LINALG_UNCHECKED, &x, &info));
      int iv[4];
      ND_ASSERT_OK(nd_array_to_host(info, iv, sizeof iv));
      ck_assert(iv[0] == 0 && iv[1] == 0 && iv[2] == 1 && iv[3] == 0);
      /* the good matrices are still inverted correctly */
      dc *ha = fetch(a), *hx = fetch(x);
      ck_assert(inv_residual(ha + 3 * n * n, hx + 3 * n * n, 1, n) < tol_of(dt, n));
      free(ha);
      free(hx);
      nd_array_release(x);
      nd_array_release(info);
      /* the thread setting */
      ck_assert_int_eq(nd_linalg_set_checked(0), 1);
      ND_ASSERT_OK(nd_linalg_inv(a, &x));
      nd_array_release(x);
      ND_ASSERT_FAILS(nd_linalg_inv_ex(a, ND_LINALG_CHECKED, &x, NULL), ND_ERR_SINGULAR, "batch index 2");
      nd_linalg_set_checked(1);
      nd_array_release(a);
      /* a rank-deficient (not all-zero) matrix: exact zero pivot later in the elimination */
      a = singular_batch(dt, 3, n, 1, 0);
      ND_ASSERT_OK(nd_linalg_inv_ex(a, ND_LINALG_UNCHECKED, &x, &info));
      int iv3[3];
      ND_ASSERT_OK(nd_array_to_host(info, iv3, sizeof iv3));
      ck_assert_msg(iv3[0] == 0 && iv3[2] == 0, "info %d %d %d", iv3[0], iv3[1], iv3[2]);
      nd_array_release(x);
      nd_array_release(info);
      nd_array_release(a);
    }
  /* a multi-dimensional batch names the index as a tuple */
  nd_array *a = singular_batch(ND_FLOAT64, 6, 3, 4, 1), *r = NULL, *x = NULL;
  ND_ASSERT_OK(nd_array_reshape(a, 4, SHAPE(2, 3, 3, 3), &r));
  ND_ASSERT_FAILS(nd_linalg_inv(r, &x), ND_ERR_SINGULAR, "batch index (1, 1)");
  nd_array_release(r);
  nd_array_release(a);
}
END_TEST

START_TEST(test_nan_inf_bounded) {
  const int64_t ns[] = {3, 27, 32, 60, 150};
  const nd_dtype dts[] = {ND_FLOAT64, ND_FLOAT32};
  for (int i = 0; i < 10; i++) {
    int64_t n = ns[i % 5];
    nd_dtype dt = dts[i / 5];
    dc *h = rand_mats(3, n, 0);
    h[0] = NAN;
    h[n * n + 1] = INFINITY;
    nd_array *a = upload(h, 3, SHAPE(3, n, n), dt), *x = NULL, *info = NULL, *d = NULL;
    ND_ASSERT_OK(nd_linalg_inv_ex(a, ND_LINALG_UNCHECKED, &x, &info));
    ND_ASSERT_OK(nd_linalg_det(a, &d));
    dc *hx = fetch(x);
    ck_assert(inv_residual(h + 2 * n * n, hx + 2 * n * n, 1, n) < tol_of(dt, n)); /* untouched neighbour */
    free(hx);
    free(h);
    nd_array_release(a);
    nd_array_release(x);
    nd_array_release(info);
    nd_array_release(d);
  }
}
END_TEST

/* ---- solve ------------------------------------------------------------------------------- */

/* max over the batch of max |A_i X_i - B_i| (n x k each; B_i at B + i * bstride), NaN kept. */
static double solve_residual(const dc *A, const dc *X, const dc *B, int64_t batch, int64_t n, int64_t k,
                             int64_t bstride) {
  dc *t = malloc((size_t)(n * k + 1) * sizeof(dc));
  double worst = 0;
  for (int64_t i = 0; i < batch; i++) {
    hmatmul(A + i * n * n, X + i * n * k, t, n, n, k);
    for (int64_t e = 0; e < n * k; e++) t[e] -= B[i * bstride + e];
    double r = maxabs(t, n * k);
    if (r > worst || isnan(r)) worst = r;
  }
  free(t);
  return worst;
}

static void check_solve(nd_dtype dt, int64_t batch, int64_t n, int64_t k, int vec, int bcast_b) {
  dc *ha = rand_mats(batch, n, is_complex(dt));
  int64_t bb = bcast_b ? 1 : batch;
  dc *hb = rand_vals(bb * n * k, is_complex(dt));
  nd_array *a = upload(ha, 3, SHAPE(batch, n, n), dt), *b = NULL, *x = NULL;
  if (vec) b = upload(hb, 1, SHAPE(n), dt);
  else if (bcast_b) b = upload(hb, 2, SHAPE(n, k), dt);
  else b = upload(hb, 3, SHAPE(batch, n, k), dt);
  ND_ASSERT_OK(nd_linalg_solve(a, b, &x));
  if (vec) assert_shape(x, 2, SHAPE(batch, n));
  else assert_shape(x, 3, SHAPE(batch, n, k));
  dc *A = fetch(a), *B = fetch(b), *X = fetch(x);
  int64_t kk = vec ? 1 : k;
  double worst = solve_residual(A, X, B, batch, n, kk, (vec || bcast_b) ? 0 : n * kk);
  ck_assert_msg(worst < tol_of(dt, n) * 4, "solve %s n=%lld k=%lld vec=%d: residual %g", nd_dtype_name(dt),
                (long long)n, (long long)k, vec, worst);
  free(A);
  free(B);
  free(X);
  free(ha);
  free(hb);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(x);
}

/* The solve of views: a column-major batch (a transposed view) and b a transposed view one row
 * into its buffer, so that the kernels read both through their strides. */
static void check_solve_view(nd_dtype dt, int64_t batch, int64_t n, int64_t k) {
  dc *ha = rand_mats(batch, n, is_complex(dt)), *hb = rand_vals(batch * (k + 1) * n, is_complex(dt));
  nd_array *a0 = upload(ha, 3, SHAPE(batch, n, n), dt), *b0 = upload(hb, 3, SHAPE(batch, k + 1, n), dt);
  nd_array *a = NULL, *b1 = NULL, *b = NULL, *x = NULL;
  ND_ASSERT_OK(nd_array_swapaxes(a0, -1, -2, &a));
  nd_slice sl[3] = {ND_SLICE_ALL, {1, k + 1, 1}, ND_SLICE_ALL};
  ND_ASSERT_OK(nd_array_slice(b0, 3, sl, &b1));
  ND_ASSERT_OK(nd_array_swapaxes(b1, -1, -2, &b)); /* (batch, n, k), element (i, c) at c * n + i */
  ND_ASSERT_OK(nd_linalg_solve(a, b, &x));
  assert_shape(x, 3, SHAPE(batch, n, k));
  dc *A = fetch(a), *B = fetch(b), *X = fetch(x);
  double worst = solve_residual(A, X, B, batch, n, k, n * k);
  ck_assert_msg(worst < tol_of(dt, n) * 4, "solve of views %s n=%lld k=%lld: residual %g", nd_dtype_name(dt),
                (long long)n, (long long)k, worst);
  free(A);
  free(B);
  free(X);
  free(ha);
  free(hb);
  nd_array_release(a0);
  nd_array_release(b0);
  nd_array_release(a);
  nd_array_release(b1);
  nd_array_release(b);
  nd_array_release(x);
}

START_TEST(test_solve) {
  const int64_t ns[] = {1, 3, 8, 13, 32, 50, 128, 160};
  for (int d = 0; d < 4; d++)
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      int64_t n = ns[i], batch = n > 128 ? 2 : 9;
      check_solve(FLOATS[d], batch, n, 1, 1, 0);
      check_solve(FLOATS[d], batch, n, 3, 0, 0);
      check_solve(FLOATS[d], batch, n, 5, 0, 1);
    }
  /* many right-hand sides */
  check_solve(ND_FLOAT64, 3, 16, 40, 0, 0);
  check_solve(ND_FLOAT64, 1, 300, 16, 0, 0);
}
END_TEST

/* ---- large real solves: the randomised path and its fall-back ---------------------------- */

/* max over matrices and columns of ||A x - b||_inf / (||A||_inf ||x||_inf), from host copies of
 * a (batch or 1 matrices), x (batch, n, k) and b (batch or 1, n, k). */
static double solve_berr(const nd_array *a, const nd_array *x, const nd_array *b, int64_t batch, int64_t n,
                         int64_t k) {
  dc *A = fetch(a), *X = fetch(x), *B = fetch(b), *t = malloc((size_t)(n * k) * sizeof(dc));
  const int64_t ab = nd_array_size(a) / (n * n), bb = nd_array_size(b) / (n * k);
  double worst = 0;
  for (int64_t i = 0; i < batch; i++) {
    const dc *Ai = A + (ab > 1 ? i : 0) * n * n, *Bi = B + (bb > 1 ? i : 0) * n * k, *Xi = X + i * n * k;
    double an = 0;
    for (int64_t r = 0; r < n; r++) {
      double rs = 0;
      for (int64_t c = 0; c < n; c++) rs += cabs(Ai[r * n + c]);
      if (rs > an) an = rs;
    }
    hmatmul(Ai, Xi, t, n, n, k);
    for (int64_t c = 0; c < k; c++) {
      double rn = 0, xn = 0;
      for (int64_t r = 0; r < n; r++) {
        rn = fmax(rn, cabs(t[r * k + c] - Bi[r * k + c]));
        xn = fmax(xn, cabs(Xi[r * k + c]));
      }
      double e = rn / (an * xn);
      if (!(e <= worst)) worst = e;
    }
  }
  free(A);
  free(X);
  free(B);
  free(t);
  return worst;
}

/* Solves a (any layout) against b; expects the randomised path to take it (accepted = 1) or to
 * hand it to partial pivoting (accepted = 0); returns the backward error. */
static double solve_large(const nd_array *a, const nd_array *b, int accepted, int64_t batch, int64_t n, int64_t k,
                          nd_dtype want) {
  const int64_t acc0 = nd__solve_rbt_count(0), fb0 = nd__solve_rbt_count(1);
  nd_array *x = NULL;
  ND_ASSERT_OK(nd_linalg_solve(a, b, &x));
  ck_assert_int_eq(nd_array_dtype(x), want);
  ck_assert_msg(nd__solve_rbt_count(0) - acc0 == accepted && nd__solve_rbt_count(1) - fb0 == !accepted,
                "solve of order %lld, %lld right-hand sides, batch %lld: randomised path accepted %lld, fell back %lld, "
                "expected %d accepted",
                (long long)n, (long long)k, (long long)batch, (long long)(nd__solve_rbt_count(0) - acc0),
                (long long)(nd__solve_rbt_count(1) - fb0), accepted);
  nd_array *x3 = NULL, *b3 = NULL;
  ND_ASSERT_OK(nd_array_reshape(x, 3, SHAPE(batch, n, k), &x3));
  ND_ASSERT_OK(nd_array_reshape(b, 3, SHAPE(nd_array_size(b) / (n * k), n, k), &b3));
  double e = solve_berr(a, x3, b3, batch, n, k);
  nd_array_release(x);
  nd_array_release(x3);
  nd_array_release(b3);
  return e;
}

static dc *uniform_mats(int64_t count) {
  dc *v = malloc((size_t)count * sizeof(dc));
  for (int64_t i = 0; i < count; i++) v[i] = urand();
  return v;
}

/* ---- systems built to defeat the randomised solve ---------------------------------------------
 * The transforms of linalg/rbt.cu are fixed (a hash of the entry's index), so a test can build
 * A = F0^-1 D F1^-T, whose transformed matrix F0 A F1^T (what getrf factors without pivoting) is
 * a chosen D, here one with a tiny or zero leading pivot. Host copies of the transform follow;
 * F_s acts on the lanes {p, p + q, p + 2q, p + 3q} (q = np / 4) of a vector as rbt_diag::fwd. */

static unsigned rbt_mix_h(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

static double rbt_d_h(unsigned set, int idx) {
  const unsigned h = rbt_mix_h((unsigned)idx * 2u + set + 0x9e3779b9u);
  const double u = (double)(h >> 8) * (1.0 / 16777216.0) - 0.5;
  return exp(u / 10.0);
}

/* The 4 x 4 matrix G (row-major) of the lane group p of transform `set`: fwd(x) = G x. */
static void rbt_group(unsigned set, int np, int p, double G[16]) {
  const int h = np / 2, q = np / 4;
  const double c1 = rbt_d_h(set, np + p), c2 = rbt_d_h(set, np + q + p), b1 = rbt_d_h(set, np + h + p),
               b2 = rbt_d_h(set, np + h + q + p), r0a = rbt_d_h(set, p), r1a = rbt_d_h(set, h + p),
               r0b = rbt_d_h(set, p + q), r1b = rbt_d_h(set, h + p + q), s = 0.70710678118654752440;
  for (int col = 0; col < 4; col++) {
    double x[4] = {0, 0, 0, 0};
    x[col] = 1;
    const double y0 = c1 * s * (x[0] + x[1]), y1 = c2 * s * (x[0] - x[1]);
    const double y2 = b1 * s * (x[2] + x[3]), y3 = b2 * s * (x[2] - x[3]);
    G[0 * 4 + col] = r0a * s * (y0 + y2);
    G[2 * 4 + col] = r1a * s * (y0 - y2);
    G[1 * 4 + col] = r0b * s * (y1 + y3);
    G[3 * 4 + col] = r1b * s * (y1 - y3);
  }
}

/* Inverse of a 4 x 4 matrix by Gauss-Jordan with partial pivoting (the groups are well
 * conditioned: products of scaled butterflies). */
static void inv4(const double G[16], double out[16]) {
  double a[4][8];
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 8; c++) a[r][c] = c < 4 ? G[r * 4 + c] : (double)(c - 4 == r);
  for (int k = 0; k < 4; k++) {
    int pr = k;
    for (int r = k + 1; r < 4; r++)
      if (fabs(a[r][k]) > fabs(a[pr][k])) pr = r;
    for (int c = 0; c < 8; c++) {
      const double t = a[k][c];
      a[k][c] = a[pr][c];
      a[pr][c] = t;
    }
    const double d = a[k][k];
    for (int c = 0; c < 8; c++) a[k][c] /= d;
    for (int r = 0; r < 4; r++)
      if (r != k) {
        const double f = a[r][k];
        for (int c = 0; c < 8; c++) a[r][c] -= f * a[k][c];
      }
  }
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 4; c++) out[r * 4 + c] = a[r][4 + c];
}

/* m (n x n, row-major, n a multiple of 64 so that there is no padding) <- F0^-1 m F1^-T. */
static void rbt_untransform(double *m, int n) {
  const int q = n / 4;
  for (int p = 0; p < q; p++) {
    double G[16], Gi0[16], Gi1[16];
    rbt_group(0, n, p, G);
    inv4(G, Gi0);
    rbt_group(1, n, p, G);
    inv4(G, Gi1);
    /* rows: every column's lanes p + r q <- Gi0 times them */
    for (int c = 0; c < n; c++) {
      double x[4], y[4];
      for (int r = 0; r < 4; r++) x[r] = m[(int64_t)(p + r * q) * n + c];
      for (int r = 0; r < 4; r++) y[r] = Gi0[r * 4] * x[0] + Gi0[r * 4 + 1] * x[1] + Gi0[r * 4 + 2] * x[2] + Gi0[r * 4 + 3] * x[3];
      for (int r = 0; r < 4; r++) m[(int64_t)(p + r * q) * n + c] = y[r];
    }
    /* columns: m F1^-T, i.e. every row's lanes p + c q <- Gi1 times them */
    for (int r = 0; r < n; r++) {
      double x[4], y[4];
      for (int c = 0; c < 4; c++) x[c] = m[(int64_t)r * n + p + c * q];
      for (int c = 0; c < 4; c++) y[c] = Gi1[c * 4] * x[0] + Gi1[c * 4 + 1] * x[1] + Gi1[c * 4 + 2] * x[2] + Gi1[c * 4 + 3] * x[3];
      for (int c = 0; c < 4; c++) m[(int64_t)r * n + p + c * q] = y[c];
    }
  }
}

/* The transformed matrix is D = U + 2 sqrt(n) I (U uniform in [-1, 1), well conditioned) with
 * D[0][0] = lead * ||D||_F. lead = 0: the factorisation without pivoting meets a pivot of the
 * size of the transform's rounding errors; 1e-12: a pivot below the check's 1e-10 ||A||_F; 1e-9:
 * a pivot the check lets through, with a growth of about 1e9 that one refinement step does not
 * bring to the residual bound. A is nonsingular and well conditioned in each case, so partial
 * pivoting solves it: whatever the randomised path does, the answer returned must be a good one,
 * and an answer the randomised path kept must meet its own bound. */
START_TEST(test_solve_randomised_defeated) {
  const int n = 256, k = 2;
  const double eps = 2.220446049250313e-16;
  static const double leads[] = {0, 1e-12, 1e-9};
  rng_state = 0x243f6a8885a308d3ull;
  int fell_back_small = 0;
  for (size_t li = 0; li < sizeof leads / sizeof leads[0]; li++) {
    double *d = malloc((size_t)n * n * sizeof(double));
    double fro = 0;
    for (int64_t i = 0; i < (int64_t)n * n; i++) {
      d[i] = urand() + (i / n == i % n ? 2.0 * sqrt((double)n) : 0.0);
      fro += d[i] * d[i];
    }
    d[0] = leads[li] * sqrt(fro);
    rbt_untransform(d, n);
    double afro = 0, ainf = 0;
    for (int r = 0; r < n; r++) {
      double rs = 0;
      for (int c = 0; c < n; c++) {
        afro += d[(int64_t)r * n + c] * d[(int64_t)r * n + c];
        rs += fabs(d[(int64_t)r * n + c]);
      }
      ainf = fmax(ainf, rs);
    }
    afro = sqrt(afro);
    /* upload A^T in C order and pass its transposed view: the kernels then see A itself */
    dc *ht = malloc((size_t)n * n * sizeof(dc));
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) ht[(int64_t)c * n + r] = d[(int64_t)r * n + c];
    dc *hb = rand_vals((int64_t)n * k, 0);
    nd_array *t = upload(ht, 2, SHAPE(n, n), ND_FLOAT64), *a = NULL, *b = upload(hb, 2, SHAPE(n, k), ND_FLOAT64);
    ND_ASSERT_OK(nd_array_swapaxes(t, -1, -2, &a));
    const int64_t acc0 = nd__solve_rbt_count(0), fb0 = nd__solve_rbt_count(1);
    nd_array *x = NULL, *x3 = NULL, *b3 = NULL;
    ND_ASSERT_OK(nd_linalg_solve(a, b, &x));
    const int accepted = (int)(nd__solve_rbt_count(0) - acc0), fell_back = (int)(nd__solve_rbt_count(1) - fb0);
    ck_assert_int_eq(accepted + fell_back, 1);
    ND_ASSERT_OK(nd_array_reshape(x, 3, SHAPE(1, n, k), &x3));
    ND_ASSERT_OK(nd_array_reshape(b, 3, SHAPE(1, n, k), &b3));
    const double e = solve_berr(a, x3, b3, 1, n, k);
    printf("test_solve_randomised_defeated: leading pivot %g ||D||_F: %s, backward error %.3g\n", leads[li],
           accepted ? "accepted" : "fell back to partial pivoting", e);
    /* a kept answer meets the check's bound, ||r||_inf <= 16 eps ||A||_F ||x||_inf (n = 256;
     * e is measured against ||A||_inf, hence the ratio; 1.5 for the host's own rounding), and
     * partial pivoting's is a small multiple of eps */
    if (accepted)
      ck_assert_msg(e * ainf <= 1.5 * 16 * eps * afro, "leading pivot %g: accepted with backward error %g", leads[li], e);
    else
      ck_assert_msg(e < 64 * eps, "leading pivot %g: partial pivoting's backward error %g", leads[li], e);
    if (leads[li] < 1e-10) fell_back_small += fell_back;
    nd_array_release(x);
    nd_array_release(x3);
    nd_array_release(b3);
    nd_array_release(a);
    nd_array_release(t);
    nd_array_release(b);
    free(d);
    free(ht);
    free(hb);
  }
  /* a pivot at or below 1e-10 ||A||_F is refused by the check, whatever the residual */
  ck_assert_int_eq(fell_back_small, 2);
}
END_TEST

START_TEST(test_solve_randomised) {
  const double eps = 2.220446049250313e-16;
  rng_state = 0x9e3779b97f4a7c15ull; /* its own matrices, whatever the tests before it drew */
  /* uniform random and row-permuted diagonally dominant matrices (which need pivoting), C order */
  {
    const int64_t n = 512, k = 16;
    dc *ha = uniform_mats(n * n), *hb = rand_vals(n * k, 0);
    nd_array *a = upload(ha, 2, SHAPE(n, n), ND_FLOAT64), *b = upload(hb, 2, SHAPE(n, k), ND_FLOAT64);
    double e = solve_large(a, b, 1, 1, n, k, ND_FLOAT64);
    ck_assert_msg(e < 8 * eps, "uniform 512: backward error %g", e);
    /* the partial-pivoting path on the same system, for comparison */
    nd__config_override(ND__CFG_SOLVE_RBT, "0");
    nd_array *x = NULL;
    const int64_t acc0 = nd__solve_rbt_count(0), fb0 = nd__solve_rbt_count(1);
    ND_ASSERT_OK(nd_linalg_solve(a, b, &x));
    ck_assert(nd__solve_rbt_count(0) == acc0 && nd__solve_rbt_count(1) == fb0);
    double e2 = solve_berr(a, x, b, 1, n, k);
    ck_assert_msg(e2 < 64 * eps, "uniform 512, partial pivoting: backward error %g", e2);
    nd__config_override(ND__CFG_SOLVE_RBT, NULL);
    nd_array_release(x);
    /* unchecked mode never waits, so it takes partial pivoting (and does not count) */
    ND_ASSERT_OK(nd_linalg_solve_ex(a, b, ND_LINALG_UNCHECKED, &x, NULL));
    ck_assert(nd__solve_rbt_count(0) == acc0 && nd__solve_rbt_count(1) == fb0);
    nd_array_release(x);
    nd_array_release(a);
    nd_array_release(b);
    free(ha);
    free(hb);
  }
  /* the smallest orders that take this path (padded to 192 and 256), column-major */
  for (int64_t n = 130; n <= 200; n += 70) {
    const int64_t k = 3;
    dc *ha = uniform_mats(n * n), *hb = rand_vals(n * k, 0);
    nd_array *a = upload(ha, 2, SHAPE(n, n), ND_FLOAT64), *b = upload(hb, 2, SHAPE(n, k), ND_FLOAT64), *t = NULL;
    ND_ASSERT_OK(nd_array_swapaxes(a, -1, -2, &t));
    double e = solve_large(t, b, 1, 1, n, k, ND_FLOAT64);
    ck_assert_msg(e < 8 * eps, "order %lld: backward error %g", (long long)n, e);
    nd_array_release(t);
    nd_array_release(a);
    nd_array_release(b);
    free(ha);
    free(hb);
  }
  /* order 600 (padded to 640), a vector b; float32 (solved in float64, rounded) */
  for (int d = 0; d < 2; d++) {
    const nd_dtype dt = d ? ND_FLOAT32 : ND_FLOAT64;
    const int64_t n = 600;
    dc *ha = rand_mats(1, n, 0), *hb = rand_vals(n, 0);
    nd_array *a = upload(ha, 2, SHAPE(n, n), dt), *b = upload(hb, 1, SHAPE(n), dt);
    double e = solve_large(a, b, 1, 1, n, 1, dt);
    ck_assert_msg(e < (d ? 4 * 1.2e-7 : 8 * eps), "%s 600: backward error %g", nd_dtype_name(dt), e);
    nd_array_release(a);
    nd_array_release(b);
    free(ha);
    free(hb);
  }
  /* layouts: column-major matrices (the other transform order), an offset slice, reversed rows,
   * a broadcast matrix against a batch of b, 20 right-hand sides (two chunks, one partial) */
  {
    const int64_t n = 520, k = 20, batch = 2;
    dc *ha = uniform_mats(batch * n * n), *hb = rand_vals(batch * n * k, 0);
    nd_array *a = upload(ha, 3, SHAPE(batch, n, n), ND_FLOAT64), *b = upload(hb, 3, SHAPE(batch, n, k), ND_FLOAT64);
    nd_array *t = NULL, *f = NULL, *one = NULL, *bt = NULL, *btv = NULL;
    ND_ASSERT_OK(nd_array_swapaxes(a, -1, -2, &t));
    double e = solve_large(t, b, 1, batch, n, k, ND_FLOAT64);
    ck_assert_msg(e < 8 * eps, "column-major: backward error %g", e);
    ND_ASSERT_OK(nd_array_flip(a, 1, SHAPE(1), &f));
    e = solve_large(f, b, 1, batch, n, k, ND_FLOAT64);
    ck_assert_msg(e < 8 * eps, "reversed rows: backward error %g", e);
    dc *big = rand_vals((n + 2) * (n + 3), 0);
    for (int64_t r = 0; r < n; r++)
      for (int64_t c = 0; c < n; c++) big[(r + 1) * (n + 3) + c + 2] = ha[r * n + c];
    nd_array *bg = upload(big, 2, SHAPE(n + 2, n + 3), ND_FLOAT64), *off = NULL;
    nd_slice s2[2] = {{1, n + 1, 1}, {2, n + 2, 1}};
    ND_ASSERT_OK(nd_array_slice(bg, 2, s2, &off));
    /* b as the transpose of a (batch, k, n) array: strided rows */
    ND_ASSERT_OK(nd_array_reshape(b, 3, SHAPE(batch, k, n), &bt));
    ND_ASSERT_OK(nd_array_swapaxes(bt, -1, -2, &btv));
    e = solve_large(off, btv, 1, batch, n, k, ND_FLOAT64);
    ck_assert_msg(e < 8 * eps, "offset slice, broadcast: backward error %g", e);
    ND_ASSERT_OK(nd_array_index(a, 0, 1, &one));
    e = solve_large(one, b, 1, batch, n, k, ND_FLOAT64);
    ck_assert_msg(e < 8 * eps, "broadcast matrix: backward error %g", e);
    /* a singular matrix broadcast across the batch (factored once) fails at batch index 0 */
    {
      nd_array *z = NULL, *x = (nd_array *)0x1;
      ND_ASSERT_OK(nd_zeros(2, SHAPE(n, n), ND_FLOAT64, &z));
      const int64_t fb = nd__solve_rbt_count(1);
      ND_ASSERT_FAILS(nd_linalg_solve(z, b, &x), ND_ERR_SINGULAR, "nd_linalg_solve: matrix at batch index 0");
      ck_assert_ptr_eq(x, (nd_array *)0x1);
      ck_assert_int_eq(nd__solve_rbt_count(1) - fb, 1);
      nd_array_release(z);
    }
    nd_array_release(t);
    nd_array_release(f);
    nd_array_release(one);
    nd_array_release(bg);
    nd_array_release(off);
    nd_array_release(bt);
    nd_array_release(btv);
    nd_array_release(a);
    nd_array_release(b);
    free(big);
    free(ha);
    free(hb);
  }
  /* singular input (a zero matrix, then two equal rows) and NaN input: the check refuses the
   * answer and partial pivoting decides, exactly as it does with the path turned off */
  {
    const int64_t n = 576;
    nd_array *s = singular_batch(ND_FLOAT64, 3, n, 1, 1), *x = (nd_array *)0x1, *info = NULL;
    dc *hb = rand_vals(n, 0);
    nd_array *b = upload(hb, 1, SHAPE(n), ND_FLOAT64);
    const int64_t fb0 = nd__solve_rbt_count(1);
    ND_ASSERT_FAILS(nd_linalg_solve(s, b, &x), ND_ERR_SINGULAR, "nd_linalg_solve: matrix at batch index 1");
    ck_assert_ptr_eq(x, (nd_array *)0x1);
    ck_assert_int_eq(nd__solve_rbt_count(1) - fb0, 1);
    x = NULL;
    ND_ASSERT_OK(nd_linalg_solve_ex(s, b, ND_LINALG_UNCHECKED, &x, &info));
    int iv[3];
    ND_ASSERT_OK(nd_array_to_host(info, iv, sizeof iv));
    ck_assert(iv[0] == 0 && iv[1] == 1 && iv[2] == 0);
    nd_array_release(x);
    nd_array_release(info);
    nd_array_release(s);
    /* two equal rows: whether partial pivoting meets an exactly zero pivot depends on the order
     * of its sums; the status must be the one it gives with the randomised path off */
    s = singular_batch(ND_FLOAT64, 1, n, 0, 0);
    nd__config_override(ND__CFG_SOLVE_RBT, "0");
    x = NULL;
    nd_status want = nd_linalg_solve(s, b, &x);
    nd__config_override(ND__CFG_SOLVE_RBT, NULL);
    nd_array_release(x);
    x = NULL;
    const int64_t fb1 = nd__solve_rbt_count(1);
    nd_status got = nd_linalg_solve(s, b, &x);
    ck_assert_int_eq(got, want);
    ck_assert_int_eq(nd__solve_rbt_count(1) - fb1, 1);
    nd_array_release(x);
    nd_array_release(s);
    dc *ha = uniform_mats(n * n);
    ha[7 * n + 3] = NAN;
    nd_array *an = upload(ha, 2, SHAPE(n, n), ND_FLOAT64);
    const int64_t fb2 = nd__solve_rbt_count(1);
    x = NULL;
    nd_status st = nd_linalg_solve(an, b, &x);
    ck_assert(st == ND_OK || st == ND_ERR_SINGULAR);
    ck_assert_int_eq(nd__solve_rbt_count(1) - fb2, 1);
    nd_array_release(x);
    nd_array_release(an);
    nd_array_release(b);
    free(ha);
    free(hb);
  }
}
END_TEST

START_TEST(test_solve_broadcast_and_errors) {
  /* a (2, 1, 3, 3) with b (4, 3, 2): batch (2, 4); b transposed view */
  dc *ha = rand_mats(2, 3, 0), *hb = rand_vals(4 * 2 * 3, 0);
  nd_array *a0 = upload(ha, 3, SHAPE(2, 3, 3), ND_FLOAT64), *a = NULL, *b0 = upload(hb, 3, SHAPE(4, 2, 3), ND_FLOAT64);
  nd_array *b = NULL, *x = NULL;
  ND_ASSERT_OK(nd_array_reshape(a0, 4, SHAPE(2, 1, 3, 3), &a));
  ND_ASSERT_OK(nd_array_swapaxes(b0, -1, -2, &b)); /* (4, 3, 2) */
  ND_ASSERT_OK(nd_linalg_solve(a, b, &x));
  assert_shape(x, 4, SHAPE(2, 4, 3, 2));
  dc *A = fetch(a0), *B = fetch(b), *X = fetch(x);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++) {
      dc t[6];
      hmatmul(A + i * 9, X + (i * 4 + j) * 6, t, 3, 3, 2);
      for (int e = 0; e < 6; e++) ck_assert(cabs(t[e] - B[j * 6 + e]) < 1e-12);
    }
  free(A);
  free(B);
  free(X);
  nd_array_release(x);
  /* integer a and b promote to float64 */
  int64_t ia[4] = {2, 1, 1, 3}, ib[2] = {3, 5};
  nd_array *ai = NULL, *bi = NULL;
  ND_ASSERT_OK(nd_array_from_host(ia, sizeof ia, 2, SHAPE(2, 2), ND_INT64, &ai));
  ND_ASSERT_OK(nd_array_from_host(ib, sizeof ib, 1, SHAPE(2), ND_INT64, &bi));
  ND_ASSERT_OK(nd_linalg_solve(ai, bi, &x));
  ck_assert_int_eq(nd_array_dtype(x), ND_FLOAT64);
  double hx[2];
  ND_ASSERT_OK(nd_array_to_host(x, hx, sizeof hx));
  ck_assert(fabs(hx[0] - 0.8) < 1e-14 && fabs(hx[1] - 1.4) < 1e-14);
  nd_array_release(x);
  /* errors */
  ND_ASSERT_FAILS(nd_linalg_solve(NULL, bi, &x), ND_ERR_NULL_POINTER, "nd_linalg_solve");
  ND_ASSERT_FAILS(nd_linalg_solve(ai, NULL, &x), ND_ERR_NULL_POINTER, "nd_linalg_solve");
  ND_ASSERT_FAILS(nd_linalg_solve(ai, bi, NULL), ND_ERR_NULL_POINTER, "nd_linalg_solve");
  ND_ASSERT_FAILS(nd_linalg_solve(a, b0, &x), ND_ERR_SHAPE, "nd_linalg_solve"); /* b rows 2 != 3 */
  ND_ASSERT_FAILS(nd_linalg_solve(b0, bi, &x), ND_ERR_SHAPE, "square");
  /* singular solve, checked */
  nd_array *s = singular_batch(ND_FLOAT64, 3, 5, 1, 1), *sb = NULL;
  dc *hv = rand_vals(5, 0);
  sb = upload(hv, 1, SHAPE(5), ND_FLOAT64);
  ND_ASSERT_FAILS(nd_linalg_solve(s, sb, &x), ND_ERR_SINGULAR, "nd_linalg_solve: matrix at batch index 1");
  nd_array *info = NULL;
  ND_ASSERT_OK(nd_linalg_solve_ex(s, sb, ND_LINALG_UNCHECKED, &x, &info));
  int iv[3];
  ND_ASSERT_OK(nd_array_to_host(info, iv, sizeof iv));
  ck_assert(iv[0] == 0 && iv[1] == 1 && iv[2] == 0);
  nd_array_release(x);
  nd_array_release(info);
  /* the same at orders the one-thread kernel solves (float32 8, float64 4), the one-warp kernels
   * (float32 27 and 32, float64 32) and the medium kernels (float32 40, float32 and float64 100:
   * the lookahead kernel, b carried through the elimination) */
  dc *hvt = rand_vals(100, 0);
  const nd_dtype tdts[] = {ND_FLOAT32, ND_FLOAT64, ND_FLOAT32, ND_FLOAT32,
                           ND_FLOAT64, ND_FLOAT32, ND_FLOAT32, ND_FLOAT64};
  const int64_t tns[] = {8, 4, 27, 32, 32, 40, 100, 100};
  for (int t = 0; t < 8; t++) {
    const nd_dtype tdt = tdts[t];
    const int64_t tn = tns[t];
    nd_array *ts = singular_batch(tdt, 3, tn, 1, 1), *rhs = upload(hvt, 1, SHAPE(tn), tdt);
    x = (nd_array *)0x1;
    ND_ASSERT_FAILS(nd_linalg_solve(ts, rhs, &x), ND_ERR_SINGULAR, "nd_linalg_solve: matrix at batch index 1");
    ck_assert_ptr_eq(x, (nd_array *)0x1);
    x = NULL;
    ND_ASSERT_OK(nd_linalg_solve_ex(ts, rhs, ND_LINALG_UNCHECKED, &x, &info));
    ND_ASSERT_OK(nd_array_to_host(info, iv, sizeof iv));
    ck_assert_msg(iv[0] == 0 && iv[1] == 1 && iv[2] == 0, "%s order %lld: info %d %d %d", nd_dtype_name(tdt),
                  (long long)tn, iv[0], iv[1], iv[2]);
    nd_array_release(x);
    nd_array_release(info);
    nd_array_release(ts);
    nd_array_release(rhs);
  }
  free(hvt);
  free(hv);
  free(ha);
  free(hb);
  nd_array_release(s);
  nd_array_release(sb);
  nd_array_release(a0);
  nd_array_release(a);
  nd_array_release(b0);
  nd_array_release(b);
  nd_array_release(ai);
  nd_array_release(bi);
}
END_TEST

/* ---- det, slogdet ------------------------------------------------------------------------- */

START_TEST(test_det_slogdet) {
  const int64_t ns[] = {1, 2, 5, 8, 32, 40, 100, 150};
  for (int d = 0; d < 4; d++)
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      nd_dtype dt = FLOATS[d];
      int64_t n = ns[i], batch = 4;
      dc *h = rand_mats(batch, n, is_complex(dt));
      for (int64_t e = 0; e < batch * n * n; e++) h[e] /= (double)n; /* keep det in range */
      nd_array *a = upload(h, 3, SHAPE(batch, n, n), dt), *det = NULL, *sg = NULL, *lg = NULL;
      ND_ASSERT_OK(nd_linalg_det(a, &det));
      ND_ASSERT_OK(nd_linalg_slogdet(a, &sg, &lg));
      ck_assert_int_eq(nd_array_dtype(det), dt);
      ck_assert_int_eq(nd_array_dtype(lg), is_complex(dt) ? (dt == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64) : dt);
      dc *A = fetch(a), *D = fetch(det), *S = fetch(sg), *L = fetch(lg);
      for (int64_t b = 0; b < batch; b++) {
        dc ref = hdet(A + b * n * n, n);
        double rel = cabs(D[b] - ref) / cabs(ref);
        ck_assert_msg(rel < tol_of(dt, n) * 10, "det %s n=%lld: %g%+gi vs %g%+gi", nd_dtype_name(dt), (long long)n,
                      creal(D[b]), cimag(D[b]), creal(ref), cimag(ref));
        dc viaslog = S[b] * exp(creal(L[b]));
        ck_assert(cabs(viaslog - ref) / cabs(ref) < tol_of(dt, n) * 10);
        ck_assert(fabs(cabs(S[b]) - 1.0) < 1e-5);
      }
      free(A);
      free(D);
      free(S);
      free(L);
      nd_array_release(det);
      nd_array_release(sg);
      nd_array_release(lg);
      nd_array_release(a);
      /* singular: det 0, sign 0, logdet -inf, no error */
      a = singular_batch(dt, 2, n, 1, 1);
      ND_ASSERT_OK(nd_linalg_det(a, &det));
      ND_ASSERT_OK(nd_linalg_slogdet(a, &sg, &lg));
      D = fetch(det);
      S = fetch(sg);
      L = fetch(lg);
      ck_assert(D[1] == 0 && S[1] == 0 && isinf(creal(L[1])) && creal(L[1]) < 0);
      ck_assert(D[0] != 0);
      free(D);
      free(S);
      free(L);
      free(h);
      nd_array_release(det);
      nd_array_release(sg);
      nd_array_release(lg);
      nd_array_release(a);
    }
  /* sign of a permutation: det of the 3x3 anti-identity is -1 */
  dc p[9] = {0, 0, 1, 0, 1, 0, 1, 0, 0};
  nd_array *a = upload(p, 2, SHAPE(3, 3), ND_FLOAT64), *det = NULL;
  ND_ASSERT_OK(nd_linalg_det(a, &det));
  double hd;
  ND_ASSERT_OK(nd_array_to_host(det, &hd, sizeof hd));
  ck_assert(hd == -1.0);
  ck_assert_int_eq(nd_array_ndim(det), 0);
  nd_array_release(det);
  nd_array_release(a);
}
END_TEST

/* ---- bad input ---------------------------------------------------------------------------- */

START_TEST(test_bad_input) {
  nd_array *v = NULL, *ns = NULL, *h = NULL, *out = NULL, *q = NULL, *r = NULL;
  ND_ASSERT_OK(nd_zeros(1, SHAPE(3), ND_FLOAT64, &v));
  ND_ASSERT_OK(nd_zeros(2, SHAPE(3, 4), ND_FLOAT64, &ns));
  ND_ASSERT_OK(nd_zeros(2, SHAPE(3, 3), ND_FLOAT16, &h));
  ND_ASSERT_FAILS(nd_linalg_inv(NULL, &out), ND_ERR_NULL_POINTER, "nd_linalg_inv");
  ND_ASSERT_FAILS(nd_linalg_inv(ns, NULL), ND_ERR_NULL_POINTER, "nd_linalg_inv");
  ND_ASSERT_FAILS(nd_linalg_inv(v, &out), ND_ERR_SHAPE, "nd_linalg_inv: argument 'a': 1-dimensional");
  ND_ASSERT_FAILS(nd_linalg_inv(ns, &out), ND_ERR_SHAPE, "square");
  ND_ASSERT_FAILS(nd_linalg_inv(h, &out), ND_ERR_DTYPE, "float16");
  ND_ASSERT_FAILS(nd_linalg_inv_ex(h, 1024, &out, NULL), ND_ERR_INVALID_ARGUMENT, "flags");
  ND_ASSERT_FAILS(nd_linalg_det(ns, &out), ND_ERR_SHAPE, "nd_linalg_det");
  ND_ASSERT_FAILS(nd_linalg_det(v, &out), ND_ERR_SHAPE, "nd_linalg_det");
  ND_ASSERT_FAILS(nd_linalg_slogdet(h, &out, &q), ND_ERR_DTYPE, "nd_linalg_slogdet");
  ND_ASSERT_FAILS(nd_linalg_cholesky(ns, 0, &out), ND_ERR_SHAPE, "nd_linalg_cholesky");
  ND_ASSERT_FAILS(nd_linalg_cholesky(NULL, 0, &out), ND_ERR_NULL_POINTER, "nd_linalg_cholesky");
  ND_ASSERT_FAILS(nd_linalg_qr(v, ND_QR_REDUCED, &q, &r), ND_ERR_SHAPE, "nd_linalg_qr");
  ND_ASSERT_FAILS(nd_linalg_qr(ns, (nd_qr_mode)7, &q, &r), ND_ERR_VALUE, "nd_linalg_qr");
  ND_ASSERT_FAILS(nd_linalg_svd(h, 1, 1, &q, &r, &out), ND_ERR_DTYPE, "nd_linalg_svd");
  ND_ASSERT_FAILS(nd_linalg_eigh(ns, 'L', &q, &r), ND_ERR_SHAPE, "nd_linalg_eigh");
  ND_ASSERT_FAILS(nd_linalg_eigh(h, 'X', &q, &r), ND_ERR_VALUE, "UPLO");
  ND_ASSERT_FAILS(nd_matmul(ns, ns, &out), ND_ERR_SHAPE, "nd_matmul: Input operand 1 has a mismatch");
  ND_ASSERT_FAILS(nd_matmul(NULL, ns, &out), ND_ERR_NULL_POINTER, "nd_matmul");
  ND_ASSERT_FAILS(nd_linalg_norm(ns, 3.0, 2, SHAPE(0, 1), 0, &out), ND_ERR_VALUE, "nd_linalg_norm");
  ND_ASSERT_FAILS(nd_linalg_norm(ns, 2.0, 2, SHAPE(0, 0), 0, &out), ND_ERR_VALUE, "Duplicate");
  ND_ASSERT_FAILS(nd_linalg_norm(ns, 2.0, 1, SHAPE(5), 0, &out), ND_ERR_AXIS, "nd_linalg_norm");
  ND_ASSERT_FAILS(nd_linalg_norm(v, ND_NORM_FRO, 1, SHAPE(0), 0, &out), ND_ERR_VALUE, "vectors");
  ND_ASSERT_FAILS(nd_einsum("ii->i", 1, (const nd_array *const[]){ns}, &out), ND_ERR_NOT_IMPLEMENTED, "nd_einsum");
  ND_ASSERT_FAILS(nd_tensordot(ns, ns, 1, NULL, NULL, &out), ND_ERR_SHAPE, "shape-mismatch");
  ND_ASSERT_FAILS(nd_vdot(v, ns, &out), ND_ERR_SHAPE, "nd_vdot");
  ND_ASSERT_FAILS(nd_matrix_transpose(v, &out), ND_ERR_SHAPE, "nd_matrix_transpose");
  nd_array_release(v);
  nd_array_release(ns);
  nd_array_release(h);
}
END_TEST

/* ---- SEEDS report 5: eye on the null stream, inv on a non-blocking stream ------------------ */

START_TEST(test_seeds_report5_cross_stream) {
  nd_stream *s = NULL;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
  const int64_t B = 20000, n = 4;
  for (int trial = 0; trial < 40; trial++) {
    /* On the null stream (the default): a large batch of identities, scaled by 2. */
    nd_array *e = NULL, *t = NULL, *a = NULL, *x = NULL;
    ND_ASSERT_OK(nd_eye(n, -1, 0, trial % 2 ? ND_FLOAT32 : ND_FLOAT64, &e));
    ND_ASSERT_OK(nd_tile(e, 3, SHAPE(B, 1, 1), &t));
    ND_ASSERT_OK(nd_array_reshape(t, 3, SHAPE(B, n, n), &a));
    /* On the non-blocking stream: the inverse must see the finished identities. */
    ND_ASSERT_OK(nd_stream_push(s));
    ND_ASSERT_OK(nd_linalg_inv_ex(a, ND_LINALG_UNCHECKED, &x, NULL));
    ND_ASSERT_OK(nd_stream_pop());
    dc *hx = fetch(x);
    for (int64_t b = 0; b < B; b += 997)
      for (int64_t i = 0; i < n * n; i++)
        ck_assert_msg(hx[b * n * n + i] == ((i % (n + 1)) == 0 ? 1.0 : 0.0), "trial %d matrix %lld element %lld: %g",
                      trial, (long long)b, (long long)i, creal(hx[b * n * n + i]));
    ck_assert(hx[(B - 1) * n * n] == 1.0);
    free(hx);
    nd_array_release(e);
    nd_array_release(t);
    nd_array_release(a);
    nd_array_release(x);
  }
  /* and the reverse: input produced on the non-blocking stream, checked inv on the null stream */
  for (int trial = 0; trial < 10; trial++) {
    nd_array *e = NULL, *t = NULL, *a = NULL, *x = NULL;
    ND_ASSERT_OK(nd_stream_push(s));
    ND_ASSERT_OK(nd_eye(n, -1, 0, ND_FLOAT64, &e));
    ND_ASSERT_OK(nd_tile(e, 3, SHAPE(B, 1, 1), &t));
    ND_ASSERT_OK(nd_array_reshape(t, 3, SHAPE(B, n, n), &a));
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_linalg_inv(a, &x));
    dc *hx = fetch(x);
    ck_assert(hx[(B - 1) * n * n + n * n - 1] == 1.0 && hx[1] == 0.0);
    free(hx);
    nd_array_release(e);
    nd_array_release(t);
    nd_array_release(a);
    nd_array_release(x);
  }
  ND_ASSERT_OK(nd_stream_destroy(s));
}
END_TEST

START_TEST(test_checked_under_capture) {
  nd_stream *s = NULL;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
  nd_array *a = NULL, *x = NULL;
  dc *h = rand_mats(2, 3, 0);
  a = upload(h, 3, SHAPE(2, 3, 3), ND_FLOAT64);
  ND_ASSERT_OK(nd_stream_synchronize(nd_stream_null()));
  ND_ASSERT_OK(nd_stream_push(s));
  cudaStream_t cs = (cudaStream_t)nd_stream_cuda(s);
  ck_assert_int_eq(cudaStreamBeginCapture(cs, cudaStreamCaptureModeRelaxed), cudaSuccess);
  ND_ASSERT_FAILS(nd_linalg_inv(a, &x), ND_ERR_STREAM, "nd_linalg_inv: checked mode");
  cudaGraph_t g = NULL;
  ck_assert_int_eq(cudaStreamEndCapture(cs, &g), cudaSuccess);
  if (g) cudaGraphDestroy(g);
  ND_ASSERT_OK(nd_stream_pop());
  ND_ASSERT_OK(nd_stream_destroy(s));
  free(h);
  nd_array_release(a);
}
END_TEST

static void *thread_inv(void *arg) {
  int64_t n = (int64_t)(intptr_t)arg;
  nd_stream *s = NULL;
  int ok = nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s) == ND_OK;
  ok = ok && nd_stream_push(s) == ND_OK;
  for (int it = 0; ok && it < 20; it++) {
    dc *h = rand_mats(8, n, 0);
    int64_t shape[3] = {8, n, n};
    nd_array *c = NULL, *a = NULL, *re = NULL, *x = NULL, *p = NULL;
    ok = nd_array_from_host(h, (size_t)(8 * n * n) * sizeof(dc), 3, shape, ND_COMPLEX128, &c) == ND_OK;
    ok = ok && nd_array_real(c, &re) == ND_OK && nd_array_astype(re, ND_FLOAT64, &a) == ND_OK;
    ok = ok && nd_linalg_inv(a, &x) == ND_OK && nd_matmul(a, x, &p) == ND_OK;
    double *hp = malloc((size_t)(8 * n * n) * sizeof(double));
    ok = ok && nd_array_to_host(p, hp, (size_t)(8 * n * n) * sizeof(double)) == ND_OK;
    for (int64_t e = 0; ok && e < 8 * n * n; e++) {
      int64_t i = (e / n) % n, j = e % n;
      ok = fabs(hp[e] - (i == j ? 1.0 : 0.0)) < 1e-10;
    }
    free(hp);
    free(h);
    nd_array_release(c);
    nd_array_release(re);
    nd_array_release(a);
    nd_array_release(x);
    nd_array_release(p);
  }
  if (s) {
    (void)nd_stream_pop();
    (void)nd_stream_destroy(s);
  }
  return (void *)(intptr_t)ok;
}

START_TEST(test_threads) {
  pthread_t t[4];
  const int64_t ns[4] = {5, 30, 70, 140};
  for (int i = 0; i < 4; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, thread_inv, (void *)(intptr_t)ns[i]), 0);
  for (int i = 0; i < 4; i++) {
    void *r = NULL;
    pthread_join(t[i], &r);
    ck_assert_msg((intptr_t)r == 1, "thread %d (n = %lld) failed", i, (long long)ns[i]);
  }
}
END_TEST

/* ---- products ----------------------------------------------------------------------------- */

/* matmul of uploaded values against the host product (batch broadcast handled by the caller). */
static void check_matmul(nd_dtype dt, int an, const int64_t *as, int bn, const int64_t *bs, int ton, const int64_t *ts) {
  dc *ha = rand_vals(prod(an, as), is_complex(dt)), *hb = rand_vals(prod(bn, bs), is_complex(dt));
  if (nd_dtype_kind(dt) == 'i' || nd_dtype_kind(dt) == 'u' || dt == ND_BOOL)
    for (int64_t i = 0; i < prod(an, as); i++) ha[i] = floor(creal(ha[i]) * 5 + 5);
  if (nd_dtype_kind(dt) == 'i' || nd_dtype_kind(dt) == 'u' || dt == ND_BOOL)
    for (int64_t i = 0; i < prod(bn, bs); i++) hb[i] = floor(creal(hb[i]) * 5 + 5);
  nd_array *a = upload(ha, an, as, dt), *b = upload(hb, bn, bs, dt), *c = NULL;
  ND_ASSERT_OK(nd_matmul(a, b, &c));
  assert_shape(c, ton, ts);
  ck_assert_int_eq(nd_array_dtype(c), dt);
  /* reference: promote 1-d operands and broadcast the batch on the host */
  dc *A = fetch(a), *B = fetch(b), *C = fetch(c);
  int64_t m = an == 1 ? 1 : as[an - 2], k = as[an - 1], n = bn == 1 ? 1 : bs[bn - 1];
  int64_t batch = prod(ton, ts) / (m * n);
  int64_t abatch = an > 2 ? prod(an - 2, as) : 1, bbatch = bn > 2 ? prod(bn - 2, bs) : 1;
  dc *t = malloc((size_t)(m * n + 1) * sizeof(dc));
  for (int64_t i = 0; i < batch; i++) {
    /* the tests only broadcast a batch of 1 against a full one */
    const dc *ai = A + (abatch == 1 ? 0 : i) * m * k, *bi = B + (bbatch == 1 ? 0 : i) * k * n;
    hmatmul(ai, bi, t, m, k, n);
    for (int64_t e = 0; e < m * n; e++) {
      dc want = t[e];
      if (dt == ND_BOOL) want = want != 0;
      else if (dt == ND_INT8) want = (int8_t)(int64_t)creal(want);
      else if (dt == ND_UINT8) want = (uint8_t)(int64_t)creal(want);
      double tol = dt == ND_FLOAT16 ? 2e-2 * (double)k : is_single(dt) ? 1e-5 * (double)k : 1e-12 * (double)k;
      if (nd_dtype_kind(dt) == 'i' || nd_dtype_kind(dt) == 'u' || dt == ND_BOOL) tol = 0;
      ck_assert_msg(cabs(C[i * m * n + e] - want) <= tol, "matmul %s batch %lld elem %lld: %g vs %g", nd_dtype_name(dt),
                    (long long)i, (long long)e, creal(C[i * m * n + e]), creal(want));
    }
  }
  free(t);
  free(A);
  free(B);
  free(C);
  free(ha);
  free(hb);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(c);
}

START_TEST(test_matmul) {
  const nd_dtype dts[] = {ND_FLOAT16, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128, ND_INT32, ND_INT64, ND_UINT8, ND_INT8, ND_BOOL};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
    nd_dtype dt = dts[d];
    check_matmul(dt, 2, SHAPE(3, 4), 2, SHAPE(4, 5), 2, SHAPE(3, 5));
    check_matmul(dt, 2, SHAPE(33, 17), 2, SHAPE(17, 40), 2, SHAPE(33, 40));
    check_matmul(dt, 1, SHAPE(4), 2, SHAPE(4, 5), 1, SHAPE(5));
    check_matmul(dt, 2, SHAPE(3, 4), 1, SHAPE(4), 1, SHAPE(3));
    check_matmul(dt, 1, SHAPE(7), 1, SHAPE(7), 0, NULL);
    check_matmul(dt, 3, SHAPE(6, 3, 4), 3, SHAPE(6, 4, 2), 3, SHAPE(6, 3, 2));
    check_matmul(dt, 3, SHAPE(1, 3, 4), 3, SHAPE(6, 4, 2), 3, SHAPE(6, 3, 2));
    check_matmul(dt, 2, SHAPE(3, 4), 3, SHAPE(6, 4, 2), 3, SHAPE(6, 3, 2));
    check_matmul(dt, 1, SHAPE(4), 3, SHAPE(6, 4, 2), 2, SHAPE(6, 2));
  }
  /* int8 wraps modulo 256 exactly as NumPy: 100 * 100 + 100 * 100 = 20000 -> 32 */
  int8_t av[2] = {100, 100}, bv[2] = {100, 100};
  nd_array *a = NULL, *b = NULL, *c = NULL;
  ND_ASSERT_OK(nd_array_from_host(av, 2, 1, SHAPE(2), ND_INT8, &a));
  ND_ASSERT_OK(nd_array_from_host(bv, 2, 1, SHAPE(2), ND_INT8, &b));
  ND_ASSERT_OK(nd_matmul(a, b, &c));
  int8_t r8 = 0;
  ND_ASSERT_OK(nd_array_to_host(c, &r8, 1));
  ck_assert_int_eq(r8, (int8_t)(20000 & 0xff));
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(c);
  /* mixed dtypes promote: int32 @ float32 -> float64 */
  ND_ASSERT_OK(nd_ones(2, SHAPE(2, 3), ND_INT32, &a));
  ND_ASSERT_OK(nd_ones(2, SHAPE(3, 2), ND_FLOAT32, &b));
  ND_ASSERT_OK(nd_matmul(a, b, &c));
  ck_assert_int_eq(nd_array_dtype(c), ND_FLOAT64);
  double hc[4];
  ND_ASSERT_OK(nd_array_to_host(c, hc, sizeof hc));
  ck_assert(hc[0] == 3.0 && hc[3] == 3.0);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(c);
  /* k = 0 gives zeros; zero batch gives an empty result */
  ND_ASSERT_OK(nd_empty(2, SHAPE(3, 0), ND_FLOAT32, &a));
  ND_ASSERT_OK(nd_empty(2, SHAPE(0, 2), ND_FLOAT32, &b));
  ND_ASSERT_OK(nd_matmul(a, b, &c));
  float hz[6] = {1, 1, 1, 1, 1, 1};
  ND_ASSERT_OK(nd_array_to_host(c, hz, sizeof hz));
  for (int i = 0; i < 6; i++) ck_assert(hz[i] == 0.0f);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(c);
  ND_ASSERT_OK(nd_empty(3, SHAPE(0, 3, 4), ND_FLOAT64, &a));
  ND_ASSERT_OK(nd_empty(2, SHAPE(4, 2), ND_FLOAT64, &b));
  ND_ASSERT_OK(nd_matmul(a, b, &c));
  assert_shape(c, 3, SHAPE(0, 3, 2));
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(c);
}
END_TEST

START_TEST(test_matmul_layouts) {
  for (int d = 0; d < 4; d++) {
    nd_dtype dt = FLOATS[d];
    dc *ha = rand_vals(5 * 6 * 7, is_complex(dt)), *hb = rand_vals(5 * 7 * 8, is_complex(dt));
    nd_array *a = upload(ha, 3, SHAPE(5, 7, 6), dt), *b = upload(hb, 3, SHAPE(5, 8, 7), dt);
    nd_array *at = NULL, *bt = NULL, *bf = NULL, *bs = NULL, *c = NULL;
    ND_ASSERT_OK(nd_array_swapaxes(a, -1, -2, &at)); /* (5, 6, 7), column-major matrices */
    ND_ASSERT_OK(nd_array_swapaxes(b, -1, -2, &bt)); /* (5, 7, 8) */
    ND_ASSERT_OK(nd_array_flip(bt, 1, SHAPE(0), &bf)); /* negative batch stride */
    nd_slice sl[3] = {{ND_NONE, ND_NONE, 2}, ND_SLICE_ALL, {1, 8, 2}};
    ND_ASSERT_OK(nd_array_slice(bf, 3, sl, &bs)); /* (3, 7, 4), strided columns */
    nd_array *as = NULL;
    nd_slice sa[1] = {{ND_NONE, ND_NONE, 2}};
    ND_ASSERT_OK(nd_array_slice(at, 1, sa, &as));
    ND_ASSERT_OK(nd_matmul(as, bs, &c));
    assert_shape(c, 3, SHAPE(3, 6, 4));
    dc *A = fetch(as), *B = fetch(bs), *C = fetch(c), t[24];
    for (int i = 0; i < 3; i++) {
      hmatmul(A + i * 42, B + i * 28, t, 6, 7, 4);
      for (int e = 0; e < 24; e++) ck_assert(cabs(C[i * 24 + e] - t[e]) < (is_single(dt) ? 1e-5 : 1e-13) * 7);
    }
    free(A);
    free(B);
    free(C);
    free(ha);
    free(hb);
    nd_array_release(a);
    nd_array_release(b);
    nd_array_release(at);
    nd_array_release(bt);
    nd_array_release(bf);
    nd_array_release(bs);
    nd_array_release(as);
    nd_array_release(c);
  }
}
END_TEST

/* Single small products (cublasLt with a plan per shape, linalg/handles.c): more shapes than the
 * 16 plans a thread keeps, each twice (plans made, found, replaced), with operands at offsets
 * that are not 16-byte aligned, odd leading dimensions and transposed (column-major) views. */
static void check_plan_product(nd_dtype dt, int64_t m, int64_t k, int64_t n, int shift, int trans) {
  const int cx = is_complex(dt);
  dc *ha = rand_vals((m + 1) * (k + 1), cx), *hb = rand_vals((k + 1) * (n + 1), cx);
  /* a: rows of k + 1 (trans: a (k, m + 1) block transposed), from element `shift` */
  nd_array *a0 = trans ? upload(ha, 2, SHAPE(k, m + 1), dt) : upload(ha, 2, SHAPE(m, k + 1), dt);
  nd_array *b0 = upload(hb, 2, SHAPE(k, n + 1), dt), *a1 = NULL, *a = NULL, *b = NULL, *c = NULL;
  nd_slice sa[2] = {ND_SLICE_ALL, {shift, trans ? shift + m : shift + k, 1}};
  ND_ASSERT_OK(nd_array_slice(a0, 2, sa, &a1));
  if (trans) ND_ASSERT_OK(nd_array_swapaxes(a1, 0, 1, &a));
  else a = nd_array_retain(a1);
  nd_slice sb[2] = {ND_SLICE_ALL, {1 - shift, 1 - shift + n, 1}};
  ND_ASSERT_OK(nd_array_slice(b0, 2, sb, &b));
  ND_ASSERT_OK(nd_matmul(a, b, &c));
  assert_shape(c, 2, SHAPE(m, n));
  dc *A = fetch(a), *B = fetch(b), *C = fetch(c), *t = malloc((size_t)(m * n) * sizeof(dc));
  hmatmul(A, B, t, m, k, n);
  const double tol = (is_single(dt) ? 1e-5 : 1e-12) * (double)k;
  for (int64_t e = 0; e < m * n; e++)
    ck_assert_msg(cabs(C[e] - t[e]) <= tol, "product %s (%lld, %lld, %lld) shift %d trans %d: element %lld off by %g",
                  nd_dtype_name(dt), (long long)m, (long long)k, (long long)n, shift, trans, (long long)e,
                  cabs(C[e] - t[e]));
  free(A);
  free(B);
  free(C);
  free(t);
  free(ha);
  free(hb);
  nd_array_release(a0);
  nd_array_release(b0);
  nd_array_release(a1);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(c);
}

START_TEST(test_matmul_plans) {
  for (int d = 0; d < 4; d++)
    for (int round = 0; round < 2; round++)
      for (int i = 0; i < 20; i++) {
        const int64_t m = 1 + 7 * i % 37, k = 1 + 11 * i % 41, n = 1 + 5 * i % 29;
        check_plan_product(FLOATS[d], m, k, n, i & 1, (i >> 1) & 1);
      }
  /* one shape at two alignments, and one above the plans' size limit (cublasGemmEx) */
  check_plan_product(ND_FLOAT32, 64, 64, 64, 0, 0);
  check_plan_product(ND_FLOAT32, 64, 64, 64, 1, 0);
  check_plan_product(ND_FLOAT32, 600, 520, 530, 1, 1);
}
END_TEST

START_TEST(test_products_family) {
  dc ha[6] = {1, 2, 3, 4, 5, 6}, hb[6] = {1 + 1 * I, 2, 0, -1, 3 - 2 * I, 1}, hv[3] = {1, -2, 0.5};
  nd_array *a = upload(ha, 2, SHAPE(2, 3), ND_FLOAT64), *b = upload(hb, 2, SHAPE(2, 3), ND_COMPLEX128);
  nd_array *v = upload(hv, 1, SHAPE(3), ND_FLOAT64), *r = NULL;
  dc *R;
  /* dot: matrix . vector */
  ND_ASSERT_OK(nd_dot(a, v, &r));
  assert_shape(r, 1, SHAPE(2));
  R = fetch(r);
  ck_assert(cabs(R[0] - (1 - 4 + 1.5)) < 1e-14 && cabs(R[1] - (4 - 10 + 3)) < 1e-14);
  free(R);
  nd_array_release(r);
  /* dot with a 0-d operand scales */
  dc two = 2;
  nd_array *s = upload(&two, 0, NULL, ND_FLOAT64);
  ND_ASSERT_OK(nd_dot(s, a, &r));
  assert_shape(r, 2, SHAPE(2, 3));
  R = fetch(r);
  ck_assert(R[5] == 12.0);
  free(R);
  nd_array_release(r);
  /* dot of N-d with M-d: (2, 2, 3) . (4, 3, 5) -> (2, 2, 4, 5) */
  dc *h3 = rand_vals(12, 0), *h4 = rand_vals(60, 0);
  nd_array *x3 = upload(h3, 3, SHAPE(2, 2, 3), ND_FLOAT64), *x4 = upload(h4, 3, SHAPE(4, 3, 5), ND_FLOAT64);
  ND_ASSERT_OK(nd_dot(x3, x4, &r));
  assert_shape(r, 4, SHAPE(2, 2, 4, 5));
  R = fetch(r);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      for (int l = 0; l < 5; l++) {
        dc want = 0;
        for (int t = 0; t < 3; t++) want += h3[i * 3 + t] * h4[j * 15 + t * 5 + l];
        ck_assert(cabs(R[(i * 4 + j) * 5 + l] - want) < 1e-13);
      }
  free(R);
  nd_array_release(r);
  /* tensordot with axes ([1, 0], [0, 1]): (2, 2, 3) x (2, 2, 5)? use x3 (2,2,3) with itself over axes 0,1 */
  ND_ASSERT_OK(nd_tensordot(x3, x3, 2, SHAPE(0, 1), SHAPE(0, 1), &r));
  assert_shape(r, 2, SHAPE(3, 3));
  R = fetch(r);
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 3; q++) {
      dc want = 0;
      for (int t = 0; t < 4; t++) want += h3[t * 3 + p] * h3[t * 3 + q];
      ck_assert(cabs(R[p * 3 + q] - want) < 1e-13);
    }
  free(R);
  nd_array_release(r);
  /* vdot conjugates the first operand and flattens */
  ND_ASSERT_OK(nd_vdot(b, b, &r));
  ck_assert_int_eq(nd_array_ndim(r), 0);
  R = fetch(r);
  double nrm = 0;
  for (int i = 0; i < 6; i++) nrm += creal(hb[i] * conj(hb[i]));
  ck_assert(cabs(R[0] - nrm) < 1e-13);
  free(R);
  nd_array_release(r);
  /* inner: (2, 3) x (2, 3) -> (2, 2) with a's rows against b's rows, no conjugation */
  ND_ASSERT_OK(nd_inner(a, b, &r));
  assert_shape(r, 2, SHAPE(2, 2));
  ck_assert_int_eq(nd_array_dtype(r), ND_COMPLEX128);
  R = fetch(r);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      dc want = 0;
      for (int t = 0; t < 3; t++) want += ha[i * 3 + t] * hb[j * 3 + t];
      ck_assert(cabs(R[i * 2 + j] - want) < 1e-13);
    }
  free(R);
  nd_array_release(r);
  /* outer flattens */
  ND_ASSERT_OK(nd_outer(v, a, &r));
  assert_shape(r, 2, SHAPE(3, 6));
  R = fetch(r);
  ck_assert(R[1 * 6 + 4] == -10.0);
  free(R);
  nd_array_release(r);
  /* vecdot along axis 0 of a (2, 3) pair, with conjugation of the first */
  ND_ASSERT_OK(nd_vecdot(b, a, 0, &r));
  assert_shape(r, 1, SHAPE(3));
  R = fetch(r);
  for (int j = 0; j < 3; j++) ck_assert(cabs(R[j] - (conj(hb[j]) * ha[j] + conj(hb[3 + j]) * ha[3 + j])) < 1e-13);
  free(R);
  nd_array_release(r);
  /* kron of (2, 3) and (2,) -> (2, 6) */
  dc hk[2] = {1, 10};
  nd_array *k = upload(hk, 1, SHAPE(2), ND_FLOAT64);
  ND_ASSERT_OK(nd_kron(a, k, &r));
  assert_shape(r, 2, SHAPE(2, 6));
  R = fetch(r);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 6; j++) ck_assert(R[i * 6 + j] == ha[i * 3 + j / 2] * hk[j % 2]);
  free(R);
  nd_array_release(r);
  /* trace with offset, int input sums to int64 */
  int32_t hi[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  nd_array *ti = NULL;
  ND_ASSERT_OK(nd_array_from_host(hi, sizeof hi, 2, SHAPE(3, 3), ND_INT32, &ti));
  ND_ASSERT_OK(nd_trace(ti, 0, 0, 1, ND_DTYPE_DEFAULT, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_INT64);
  int64_t tr = 0;
  ND_ASSERT_OK(nd_array_to_host(r, &tr, sizeof tr));
  ck_assert_int_eq(tr, 15);
  nd_array_release(r);
  ND_ASSERT_OK(nd_trace(ti, 1, 0, 1, ND_DTYPE_DEFAULT, &r));
  ND_ASSERT_OK(nd_array_to_host(r, &tr, sizeof tr));
  ck_assert_int_eq(tr, 8);
  nd_array_release(r);
  ND_ASSERT_OK(nd_trace(x4, 0, 1, 2, ND_DTYPE_DEFAULT, &r)); /* (4, 3, 5): diagonals of the last two */
  assert_shape(r, 1, SHAPE(4));
  R = fetch(r);
  for (int i = 0; i < 4; i++) ck_assert(cabs(R[i] - (h4[i * 15] + h4[i * 15 + 6] + h4[i * 15 + 12])) < 1e-13);
  free(R);
  nd_array_release(r);
  /* matrix_transpose is a view */
  ND_ASSERT_OK(nd_matrix_transpose(x4, &r));
  assert_shape(r, 3, SHAPE(4, 5, 3));
  ck_assert(nd_array_shares_buffer(r, x4));
  nd_array_release(r);
  /* einsum */
  const nd_array *ops[2] = {x3, x4};
  ND_ASSERT_OK(nd_einsum("abk,ckl->abcl", 2, ops, &r));
  assert_shape(r, 4, SHAPE(2, 2, 4, 5));
  nd_array *r2 = NULL;
  ND_ASSERT_OK(nd_dot(x3, x4, &r2));
  dc *R2 = fetch(r2);
  R = fetch(r);
  for (int i = 0; i < 80; i++) ck_assert(cabs(R[i] - R2[i]) < 1e-13);
  free(R);
  free(R2);
  nd_array_release(r);
  nd_array_release(r2);
  const nd_array *ops2[2] = {a, a};
  ND_ASSERT_OK(nd_einsum("ij,kj->ki", 2, ops2, &r)); /* a @ a.T transposed */
  assert_shape(r, 2, SHAPE(2, 2));
  R = fetch(r);
  ck_assert(cabs(R[1] - (1 * 4 + 2 * 5 + 3 * 6)) < 1e-13 && cabs(R[0] - 14) < 1e-13);
  free(R);
  nd_array_release(r);
  const nd_array *ops1[1] = {x3};
  ND_ASSERT_OK(nd_einsum("ijk->kji", 1, ops1, &r));
  assert_shape(r, 3, SHAPE(3, 2, 2));
  R = fetch(r);
  ck_assert(R[1 * 4 + 0 * 2 + 1] == h3[1 * 6 + 0 * 3 + 1]);
  free(R);
  nd_array_release(r);
  /* batched matmul with an ellipsis */
  dc *hp = rand_vals(2 * 3 * 4, 0), *hq = rand_vals(4 * 5, 0);
  nd_array *P = upload(hp, 3, SHAPE(2, 3, 4), ND_FLOAT64), *Q = upload(hq, 2, SHAPE(4, 5), ND_FLOAT64);
  const nd_array *ops3[2] = {P, Q};
  ND_ASSERT_OK(nd_einsum("...ij,jk->...ik", 2, ops3, &r));
  ND_ASSERT_OK(nd_matmul(P, Q, &r2));
  assert_shape(r, 3, SHAPE(2, 3, 5));
  R = fetch(r);
  R2 = fetch(r2);
  for (int i = 0; i < 30; i++) ck_assert(cabs(R[i] - R2[i]) < 1e-13);
  free(R);
  free(R2);
  nd_array_release(r);
  nd_array_release(r2);
  free(hp);
  free(hq);
  nd_array_release(P);
  nd_array_release(Q);
  free(h3);
  free(h4);
  nd_array_release(x3);
  nd_array_release(x4);
  nd_array_release(k);
  nd_array_release(ti);
  nd_array_release(s);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(v);
}
END_TEST

START_TEST(test_matrix_power) {
  dc h[4] = {1, 1, 1, 0}; /* Fibonacci */
  nd_array *a = upload(h, 2, SHAPE(2, 2), ND_INT64), *r = NULL;
  ND_ASSERT_OK(nd_linalg_matrix_power(a, 10, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_INT64);
  int64_t f[4];
  ND_ASSERT_OK(nd_array_to_host(r, f, sizeof f));
  ck_assert(f[0] == 89 && f[1] == 55 && f[3] == 34);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_matrix_power(a, 0, &r));
  ND_ASSERT_OK(nd_array_to_host(r, f, sizeof f));
  ck_assert(f[0] == 1 && f[1] == 0 && f[2] == 0 && f[3] == 1);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_matrix_power(a, -2, &r)); /* inv(A)^2, float64 */
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT64);
  dc *R = fetch(r);
  /* A^-1 = [[0, 1], [1, -1]], squared = [[1, -1], [-1, 2]] */
  ck_assert(cabs(R[0] - 1) < 1e-14 && cabs(R[1] + 1) < 1e-14 && cabs(R[3] - 2) < 1e-14);
  free(R);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_matrix_power(a, 1, &r));
  ck_assert(!nd_array_shares_buffer(r, a));
  nd_array_release(r);
  nd_array_release(a);
}
END_TEST

/* ---- decompositions ----------------------------------------------------------------------- */

/* Hermitian positive definite: M M^H + n I. */
static dc *rand_hpd(int64_t batch, int64_t n, int cplx) {
  dc *m = rand_vals(batch * n * n, cplx), *h = malloc((size_t)(batch * n * n + 1) * sizeof(dc));
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        dc s = 0;
        for (int64_t t = 0; t < n; t++) s += m[b * n * n + i * n + t] * conj(m[b * n * n + j * n + t]);
        h[b * n * n + i * n + j] = s + (i == j ? (double)n : 0.0);
      }
  free(m);
  return h;
}

START_TEST(test_cholesky) {
  const int64_t ns[] = {1, 4, 20, 70};
  for (int d = 0; d < 4; d++)
    for (int i = 0; i < 4; i++)
      for (int upper = 0; upper < 2; upper++) {
        nd_dtype dt = FLOATS[d];
        int64_t n = ns[i], batch = 3;
        dc *h = rand_hpd(batch, n, is_complex(dt));
        /* NumPy reads only the factor's triangle (LAPACK uplo 'L' or 'U'): the other one gets
         * values far from Hermitian, which must not change the factor. Every other size passes
         * a transposed (strided) view: the upload is of g^T, swapped back. */
        const int strided = i % 2 == 1;
        dc *g = malloc((size_t)(batch * n * n) * sizeof(dc));
        for (int64_t b = 0; b < batch; b++)
          for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++) {
              const int unread = upper ? c < r : c > r;
              const dc v = unread ? 1000.0 + (double)(r - 2 * c) + (is_complex(dt) ? 7.0 * I : 0) : h[b * n * n + r * n + c];
              g[b * n * n + (strided ? c * n + r : r * n + c)] = v;
            }
        nd_array *a = upload(g, 3, SHAPE(batch, n, n), dt), *l = NULL;
        if (strided) {
          nd_array *t = a;
          ND_ASSERT_OK(nd_array_swapaxes(t, 1, 2, &a));
          nd_array_release(t);
        }
        ND_ASSERT_OK(nd_linalg_cholesky(a, upper, &l));
        dc *A = h, *L = fetch(l);
        double worst = 0;
        for (int64_t b = 0; b < batch; b++)
          for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++) {
              const dc *F = L + b * n * n;
              if (upper ? c < r : c > r) ck_assert(F[r * n + c] == 0);
              dc s = 0; /* lower: L L^H; upper: U^H U */
              for (int64_t t = 0; t < n; t++)
                s += upper ? conj(F[t * n + r]) * F[t * n + c] : F[r * n + t] * conj(F[c * n + t]);
              double e = cabs(s - A[b * n * n + r * n + c]) / (double)n;
              if (e > worst) worst = e;
            }
        ck_assert_msg(worst < tol_of(dt, n) * 4, "cholesky %s n=%lld upper=%d strided=%d: %g", nd_dtype_name(dt),
                      (long long)n, upper, strided, worst);
        free(g);
        free(L);
        free(h);
        nd_array_release(a);
        nd_array_release(l);
      }
  /* indefinite: checked names the batch index; unchecked gives info */
  dc *h = rand_hpd(3, 5, 0);
  h[25 + 2 * 5 + 2] = -100.0;
  nd_array *a = upload(h, 3, SHAPE(3, 5, 5), ND_FLOAT64), *l = NULL, *info = NULL;
  ND_ASSERT_FAILS(nd_linalg_cholesky(a, 0, &l), ND_ERR_NOT_POSITIVE_DEFINITE,
                  "nd_linalg_cholesky: matrix at batch index 1 is not positive definite");
  ND_ASSERT_OK(nd_linalg_cholesky_ex(a, 0, ND_LINALG_UNCHECKED, &l, &info));
  int iv[3];
  ND_ASSERT_OK(nd_array_to_host(info, iv, sizeof iv));
  ck_assert(iv[0] == 0 && iv[1] > 0 && iv[2] == 0);
  nd_array_release(l);
  nd_array_release(info);
  nd_array_release(a);
  free(h);
}
END_TEST

START_TEST(test_qr) {
  const int64_t shapes[][2] = {{5, 3}, {3, 5}, {4, 4}, {40, 7}, {1, 1}};
  for (int d = 0; d < 4; d++)
    for (int si = 0; si < 5; si++)
      for (int mode = 0; mode < 3; mode++) {
        nd_dtype dt = FLOATS[d];
        int64_t m = shapes[si][0], n = shapes[si][1], k = m < n ? m : n, batch = 2;
        dc *h = rand_vals(batch * m * n, is_complex(dt));
        nd_array *a = upload(h, 3, SHAPE(batch, m, n), dt), *q = NULL, *r = NULL;
        ND_ASSERT_OK(nd_linalg_qr(a, (nd_qr_mode)mode, &q, &r));
        int64_t rr = mode == ND_QR_COMPLETE ? m : k, qc = mode == ND_QR_COMPLETE ? m : k;
        assert_shape(r, 3, SHAPE(batch, rr, n));
        dc *R = fetch(r);
        for (int64_t b = 0; b < batch; b++)
          for (int64_t i = 0; i < rr; i++)
            for (int64_t j = 0; j < n && j < i; j++) ck_assert(R[b * rr * n + i * n + j] == 0);
        if (mode != ND_QR_R) {
          assert_shape(q, 3, SHAPE(batch, m, qc));
          dc *Q = fetch(q), *t = malloc((size_t)(m * n) * sizeof(dc));
          for (int64_t b = 0; b < batch; b++) {
            hmatmul(Q + b * m * qc, R + b * rr * n, t, m, qc, n);
            for (int64_t e = 0; e < m * n; e++)
              ck_assert_msg(cabs(t[e] - h[b * m * n + e]) < tol_of(dt, m) * 4, "QR %s (%lld, %lld) mode %d", nd_dtype_name(dt),
                            (long long)m, (long long)n, mode);
            for (int64_t i = 0; i < qc; i++) /* orthonormal columns */
              for (int64_t j = 0; j < qc; j++) {
                dc s = 0;
                for (int64_t t2 = 0; t2 < m; t2++) s += conj(Q[b * m * qc + t2 * qc + i]) * Q[b * m * qc + t2 * qc + j];
                ck_assert(cabs(s - (i == j ? 1.0 : 0.0)) < tol_of(dt, m) * 4);
              }
          }
          free(Q);
          free(t);
          nd_array_release(q);
        }
        free(R);
        free(h);
        nd_array_release(r);
        nd_array_release(a);
      }
}
END_TEST

/* Cases where ndcuda differed from NumPy 2.4. */
START_TEST(test_numpy_fidelity) {
  /* cholesky of the indefinite diag(4, ..., 4, -1), both triangles, n = 8 and 128 */
  for (int64_t n = 8; n <= 128; n *= 16)
    for (int upper = 0; upper < 2; upper++) {
      dc *h = calloc((size_t)(n * n), sizeof(dc));
      for (int64_t i = 0; i < n; i++) h[i * n + i] = i == n - 1 ? -1 : 4;
      nd_array *a = upload(h, 2, SHAPE(n, n), ND_FLOAT64), *l = NULL;
      ND_ASSERT_FAILS(nd_linalg_cholesky(a, upper, &l), ND_ERR_NOT_POSITIVE_DEFINITE, "nd_linalg_cholesky");
      ck_assert_ptr_null(l);
      nd_array_release(a);
      free(h);
    }
  /* det and slogdet of complex64 matrices whose determinant overflows float: upper
   * triangular, diagonal 3 + 4i (|d| = 5, 5^65 > FLT_MAX), ones above. NumPy: a finite sign
   * p^n (p = 0.6 + 0.8i), logdet n log 5, det sign * exp(logdet) = +-inf parts. */
  for (int64_t n = 65; n <= 128; n += 63) {
    dc *h = calloc((size_t)(n * n), sizeof(dc));
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = i; j < n; j++) h[i * n + j] = i == j ? 3 + 4 * I : 1;
    nd_array *a = upload(h, 2, SHAPE(n, n), ND_COMPLEX64), *sign = NULL, *lg = NULL, *det = NULL;
    ND_ASSERT_OK(nd_linalg_slogdet(a, &sign, &lg));
    ND_ASSERT_OK(nd_linalg_det(a, &det));
    dc *s = fetch(sign), *l = fetch(lg), *d = fetch(det);
    const dc want = cpow(0.6 + 0.8 * I, (double)n);
    ck_assert_msg(cabs(s[0] - want) < 1e-4, "slogdet n=%lld sign %g%+gi, NumPy %g%+gi", (long long)n, creal(s[0]),
                  cimag(s[0]), creal(want), cimag(want));
    ck_assert_msg(fabs(creal(l[0]) - (double)n * log(5.0)) < 1e-3 * (double)n, "logdet %g", creal(l[0]));
    /* sign * (inf + 0i) in NumPy's complex product: each part an infinity with the sign's
     * sign, or NaN where the sign's other part is 0 */
    ck_assert_msg(isinf(creal(d[0])) && signbit(creal(d[0])) == signbit(creal(want)), "det n=%lld: %g%+gi",
                  (long long)n, creal(d[0]), cimag(d[0]));
    ck_assert_msg(isinf(cimag(d[0])) && signbit(cimag(d[0])) == signbit(cimag(want)), "det n=%lld: %g%+gi",
                  (long long)n, creal(d[0]), cimag(d[0]));
    free(s), free(l), free(d), free(h);
    nd_array_release(a), nd_array_release(sign), nd_array_release(lg), nd_array_release(det);
  }
  /* cond of singular matrices is inf (NumPy turns the NaN of 0/0 into inf), unless x has a NaN */
  const double ps[] = {ND_NORM_DEFAULT, 2, -2, 1, -1, INFINITY, -INFINITY, ND_NORM_FRO};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
    for (int c = 0; c < 2; c++) {
      dc z[4] = {0, 0, 0, 0};
      nd_array *a = upload(z, 2, SHAPE(2, 2), c ? ND_COMPLEX128 : ND_FLOAT64), *r = NULL;
      ND_ASSERT_OK(nd_linalg_cond(a, ps[i], &r));
      dc *v = fetch(r);
      ck_assert_msg(isinf(creal(v[0])) && creal(v[0]) > 0, "cond(zeros, %g) %s = %g", ps[i], c ? "complex" : "real",
                    creal(v[0]));
      free(v);
      nd_array_release(r);
      nd_array_release(a);
      /* NaN stays NaN; NumPy's SVD-based orders raise on it ("SVD did not converge"), so only
       * the norm-based ones are compared */
      if (ps[i] == ND_NORM_DEFAULT || fabs(ps[i]) == 2) continue;
      dc w[4] = {NAN, 0, 0, 1};
      a = upload(w, 2, SHAPE(2, 2), ND_FLOAT64);
      ND_ASSERT_OK(nd_linalg_cond(a, ps[i], &r));
      v = fetch(r);
      ck_assert_msg(isnan(creal(v[0])), "cond with a NaN entry, p = %g: %g", ps[i], creal(v[0]));
      free(v);
      nd_array_release(r);
      nd_array_release(a);
    }
  /* solve: uint8 A with float32 b is float64 (NumPy's _commonType); float16 is refused */
  {
    dc av[4] = {2, 0, 0, 4}, bv[2] = {1, 1};
    nd_array *a = upload(av, 2, SHAPE(2, 2), ND_UINT8), *b = upload(bv, 1, SHAPE(2), ND_FLOAT32), *x = NULL;
    ND_ASSERT_OK(nd_linalg_solve(a, b, &x));
    ck_assert_int_eq(nd_array_dtype(x), ND_FLOAT64);
    nd_array_release(x);
    nd_array *a16 = upload(av, 2, SHAPE(2, 2), ND_FLOAT16), *b64 = upload(bv, 1, SHAPE(2), ND_FLOAT64);
    x = NULL;
    ND_ASSERT_FAILS(nd_linalg_solve(a16, b64, &x), ND_ERR_DTYPE, "nd_linalg_solve: array type float16 is unsupported");
    ck_assert_ptr_null(x);
    nd_array_release(a), nd_array_release(b), nd_array_release(a16), nd_array_release(b64);
  }
  /* trace with a dtype converts each element first: trace([[250.7, 0], [0, .6]], dtype=uint8)
   * is 250; a uint64 diagonal stays unsigned on its way to complex128 */
  {
    dc tv[4] = {250.7, 0, 0, 0.6};
    nd_array *a = upload(tv, 2, SHAPE(2, 2), ND_FLOAT64), *r = NULL;
    ND_ASSERT_OK(nd_trace(a, 0, 0, 1, ND_UINT8, &r));
    ck_assert_int_eq(nd_array_dtype(r), ND_UINT8);
    dc *v = fetch(r);
    ck_assert_msg(creal(v[0]) == 250, "trace uint8: %g", creal(v[0]));
    free(v), nd_array_release(r), nd_array_release(a);
    const uint64_t big[4] = {UINT64_C(1) << 63, 0, 0, 1};
    ND_ASSERT_OK(nd_array_from_host(big, sizeof big, 2, SHAPE(2, 2), ND_UINT64, &a));
    ND_ASSERT_OK(nd_trace(a, 0, 0, 1, ND_COMPLEX128, &r));
    v = fetch(r);
    ck_assert_msg(creal(v[0]) == 9223372036854775809.0 && cimag(v[0]) == 0, "trace uint64 -> complex128: %g",
                  creal(v[0]));
    free(v), nd_array_release(r), nd_array_release(a);
  }
}
END_TEST

START_TEST(test_svd) {
  const int64_t shapes[][3] = {{6, 4, 3}, {4, 6, 3}, {5, 5, 1}, {40, 20, 2}, {20, 40, 1}, {3, 2, 50}};
  for (int d = 0; d < 4; d++)
    for (int si = 0; si < 6; si++)
      for (int full = 0; full < 2; full++) {
        nd_dtype dt = FLOATS[d];
        int64_t m = shapes[si][0], n = shapes[si][1], batch = shapes[si][2], k = m < n ? m : n;
        dc *h = rand_vals(batch * m * n, is_complex(dt));
        nd_array *a = upload(h, 3, SHAPE(batch, m, n), dt), *u = NULL, *s = NULL, *vh = NULL, *s2 = NULL;
        ND_ASSERT_OK(nd_linalg_svd(a, full, 1, &u, &s, &vh));
        int64_t uc = full ? m : k, vr = full ? n : k;
        assert_shape(u, 3, SHAPE(batch, m, uc));
        assert_shape(s, 2, SHAPE(batch, k));
        assert_shape(vh, 3, SHAPE(batch, vr, n));
        ck_assert_int_eq(nd_array_dtype(s), is_single(dt) ? ND_FLOAT32 : ND_FLOAT64);
        dc *U = fetch(u), *S = fetch(s), *V = fetch(vh);
        for (int64_t b = 0; b < batch; b++) {
          for (int64_t i = 0; i + 1 < k; i++)
            ck_assert_msg(creal(S[b * k + i]) >= creal(S[b * k + i + 1]),
                          "svd %s (%lld, %lld) full=%d batch %lld: S[%lld] = %.17g < S[%lld] = %.17g",
                          nd_dtype_name(dt), (long long)m, (long long)n, full, (long long)b, (long long)i,
                          creal(S[b * k + i]), (long long)(i + 1), creal(S[b * k + i + 1]));
          for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
              dc acc = 0;
              for (int64_t t = 0; t < k; t++) acc += U[b * m * uc + i * uc + t] * S[b * k + t] * V[b * vr * n + t * n + j];
              ck_assert_msg(cabs(acc - h[b * m * n + i * n + j]) < tol_of(dt, m + n) * 4,
                            "svd %s (%lld, %lld) full=%d batch %lld: (U S Vh)[%lld][%lld] off by %.3g (tol %.3g)",
                            nd_dtype_name(dt), (long long)m, (long long)n, full, (long long)b, (long long)i,
                            (long long)j, cabs(acc - h[b * m * n + i * n + j]), tol_of(dt, m + n) * 4);
            }
        }
        /* Values only: the same solver run without vectors, so the same singular values to
         * within the backward error of each run (eps ||A||, far below the tolerance). */
        ND_ASSERT_OK(nd_linalg_svd(a, full, 0, NULL, &s2, NULL));
        assert_shape(s2, 2, SHAPE(batch, k));
        dc *S2 = fetch(s2);
        for (int64_t b = 0; b < batch; b++)
          for (int64_t i = 0; i < k; i++) {
            const double tol = tol_of(dt, m + n) * 4, got = creal(S2[b * k + i]), want = creal(S[b * k + i]);
            const int sorted = i + 1 == k || got >= creal(S2[b * k + i + 1]);
            if (fabs(got - want) < tol && got >= 0 && sorted) continue;
            char row_uv[512], row_s[512];
            fmt_row(row_uv, sizeof row_uv, S + b * k, k);
            fmt_row(row_s, sizeof row_s, S2 + b * k, k);
            ck_abort_msg("svd %s (%lld, %lld) x %lld full=%d (%s): batch %lld S[%lld] = %.17g with "
                         "compute_uv=0, %.17g with compute_uv=1 (|diff| %.3g, tol %.3g%s%s); "
                         "compute_uv=1 S = %s; compute_uv=0 S = %s",
                         nd_dtype_name(dt), (long long)m, (long long)n, (long long)batch, full,
                         batch > 1 && m <= 32 && n <= 32 ? "gesvdjBatched" : "gesvdj", (long long)b, (long long)i,
                         got, want, fabs(got - want), tol, got < 0 ? ", negative" : "",
                         sorted ? "" : ", not descending", row_uv, row_s);
          }
        free(S2);
        free(U);
        free(S);
        free(V);
        free(h);
        nd_array_release(a);
        nd_array_release(u);
        nd_array_release(s);
        nd_array_release(vh);
        nd_array_release(s2);
      }
}
END_TEST

START_TEST(test_eigh) {
  const int64_t ns[][2] = {{4, 3}, {16, 5}, {40, 2}, {1, 1}};
  for (int d = 0; d < 4; d++)
    for (int si = 0; si < 4; si++)
      for (int lo = 0; lo < 2; lo++) {
        nd_dtype dt = FLOATS[d];
        int64_t n = ns[si][0], batch = ns[si][1];
        dc *h = rand_hpd(batch, n, is_complex(dt));
        /* spoil the triangle that must not be read */
        dc *g = malloc((size_t)(batch * n * n) * sizeof(dc));
        memcpy(g, h, (size_t)(batch * n * n) * sizeof(dc));
        for (int64_t b = 0; b < batch; b++)
          for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++)
              if (lo ? j > i : j < i) g[b * n * n + i * n + j] = 1e3;
        nd_array *a = upload(g, 3, SHAPE(batch, n, n), dt), *w = NULL, *v = NULL, *w2 = NULL;
        ND_ASSERT_OK(nd_linalg_eigh(a, lo ? 'L' : 'U', &w, &v));
        ND_ASSERT_OK(nd_linalg_eigvalsh(a, lo ? 'L' : 'U', &w2));
        assert_shape(w, 2, SHAPE(batch, n));
        dc *W = fetch(w), *V = fetch(v), *W2 = fetch(w2);
        for (int64_t b = 0; b < batch; b++) {
          for (int64_t i = 0; i + 1 < n; i++) ck_assert(creal(W[b * n + i]) <= creal(W[b * n + i + 1]));
          for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) { /* (A V)_ij = V_ij w_j */
              dc av = 0;
              for (int64_t t = 0; t < n; t++) av += h[b * n * n + i * n + t] * V[b * n * n + t * n + j];
              ck_assert_msg(cabs(av - V[b * n * n + i * n + j] * W[b * n + j]) < tol_of(dt, n) * 8 * (double)n,
                            "eigh %s n=%lld %c", nd_dtype_name(dt), (long long)n, lo ? 'L' : 'U');
            }
          for (int64_t i = 0; i < n; i++) ck_assert(cabs(W2[b * n + i] - W[b * n + i]) < tol_of(dt, n) * (double)n);
        }
        free(W);
        free(V);
        free(W2);
        free(h);
        free(g);
        nd_array_release(a);
        nd_array_release(w);
        nd_array_release(v);
        nd_array_release(w2);
      }
}
END_TEST

/* ---- norms and friends -------------------------------------------------------------------- */

static double scalar_of(const nd_array *r) {
  dc *R = fetch(r);
  double v = creal(R[0]);
  free(R);
  return v;
}

/* A minimum over an axis of length 0 raises, as in NumPy (np.linalg.norm(np.zeros((0, 0)), -1)
 * is "zero-size array to reduction operation minimum which has no identity"); the other
 * orders of empty matrices, and minima over non-empty axes of them, are 0 or empty. */
START_TEST(test_norm_empty_minimum) {
  static const struct {
    int nd;
    int64_t shape[3];
    double ord;
    int fails;
  } C[] = {
      {2, {0, 0}, -1.0, 1},      {2, {0, 0}, -2.0, 1},     {2, {0, 0}, -INFINITY, 1},
      {2, {0, 3}, -1.0, 0},      {2, {0, 3}, -2.0, 1},     {2, {0, 3}, -INFINITY, 1},
      {2, {3, 0}, -1.0, 1},      {2, {3, 0}, -2.0, 1},     {2, {3, 0}, -INFINITY, 0},
      {3, {2, 0, 0}, -1.0, 1},   {3, {0, 3, 3}, -1.0, 0},  {3, {0, 3, 3}, -INFINITY, 0},
      {2, {0, 0}, 1.0, 0},       {2, {0, 0}, 2.0, 0},      {2, {0, 0}, INFINITY, 0},
      {2, {3, 0}, ND_NORM_NUC, 0},
  };
  for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
    nd_array *x = NULL, *r = NULL;
    ND_ASSERT_OK(nd_zeros(C[i].nd, C[i].shape, ND_FLOAT64, &x));
    const int64_t axes[2] = {C[i].nd - 2, C[i].nd - 1};
    nd_status st = nd_linalg_norm(x, C[i].ord, 2, axes, 0, &r);
    if (C[i].fails) {
      ck_assert_msg(st == ND_ERR_VALUE, "case %zu: status %d", i, (int)st);
      ck_assert(strstr(nd_last_error(), "nd_linalg_norm") != NULL);
      ck_assert(strstr(nd_last_error(), "minimum") != NULL);
      ck_assert(r == NULL);
    } else {
      ck_assert_msg(st == ND_OK, "case %zu: %s", i, nd_last_error());
      ck_assert_int_eq(nd_array_size(r), C[i].nd == 3 ? 0 : 1);
      if (nd_array_size(r) == 1) ck_assert(scalar_of(r) == 0.0);
    }
    nd_array_release(r);
    nd_array_release(x);
  }
  /* a vector: -inf is a minimum over its one axis */
  nd_array *v = NULL, *r = NULL;
  ND_ASSERT_OK(nd_zeros(1, SHAPE(0), ND_FLOAT64, &v));
  ND_ASSERT_FAILS(nd_linalg_norm(v, -INFINITY, 0, NULL, 0, &r), ND_ERR_VALUE, "minimum");
  ND_ASSERT_OK(nd_linalg_norm(v, INFINITY, 0, NULL, 0, &r));
  ck_assert(scalar_of(r) == 0.0);
  nd_array_release(r);
  nd_array_release(v);
}
END_TEST

START_TEST(test_norm) {
  dc h[6] = {3, -4, 0, 1, 2 * I, -2};
  nd_array *x = upload(h, 2, SHAPE(2, 3), ND_COMPLEX128), *r = NULL;
  double fro = sqrt(9 + 16 + 0 + 1 + 4 + 4);
  ND_ASSERT_OK(nd_linalg_norm(x, ND_NORM_DEFAULT, 0, NULL, 0, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT64);
  ck_assert_int_eq(nd_array_ndim(r), 0);
  ck_assert(fabs(scalar_of(r) - fro) < 1e-14);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_norm(x, ND_NORM_FRO, 0, NULL, 1, &r));
  assert_shape(r, 2, SHAPE(1, 1));
  ck_assert(fabs(scalar_of(r) - fro) < 1e-14);
  nd_array_release(r);
  /* induced norms: 1 = max column sum, inf = max row sum */
  ND_ASSERT_OK(nd_linalg_norm(x, 1.0, 0, NULL, 0, &r));
  ck_assert(fabs(scalar_of(r) - 6.0) < 1e-14); /* col 1: 4 + 2 */
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_norm(x, INFINITY, 0, NULL, 0, &r));
  ck_assert(fabs(scalar_of(r) - 7.0) < 1e-14); /* row 0: 3 + 4 */
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_norm(x, -INFINITY, 0, NULL, 0, &r));
  ck_assert(fabs(scalar_of(r) - 5.0) < 1e-14);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_norm(x, -1.0, 0, NULL, 0, &r));
  ck_assert(fabs(scalar_of(r) - 2.0) < 1e-14);
  nd_array_release(r);
  /* vector norms along an axis */
  ND_ASSERT_OK(nd_linalg_norm(x, ND_NORM_DEFAULT, 1, SHAPE(1), 0, &r));
  assert_shape(r, 1, SHAPE(2));
  dc *R = fetch(r);
  ck_assert(fabs(creal(R[0]) - 5.0) < 1e-14 && fabs(creal(R[1]) - 3.0) < 1e-14);
  free(R);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_norm(x, 0.0, 1, SHAPE(0), 1, &r));
  assert_shape(r, 2, SHAPE(1, 3));
  R = fetch(r);
  ck_assert(creal(R[0]) == 2 && creal(R[1]) == 2 && creal(R[2]) == 1);
  free(R);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_norm(x, 3.0, 1, SHAPE(-1), 0, &r));
  R = fetch(r);
  ck_assert(fabs(creal(R[0]) - cbrt(27 + 64)) < 1e-13);
  free(R);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_norm(x, -INFINITY, 1, SHAPE(1), 0, &r));
  R = fetch(r);
  ck_assert(creal(R[0]) == 0 && creal(R[1]) == 1);
  free(R);
  nd_array_release(r);
  /* 2-norm and nuclear norm against the SVD of a diagonal matrix */
  dc dg[9] = {3, 0, 0, 0, -5, 0, 0, 0, 1};
  nd_array *dm = upload(dg, 2, SHAPE(3, 3), ND_FLOAT32);
  ND_ASSERT_OK(nd_linalg_norm(dm, 2.0, 0, NULL, 0, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT32);
  ck_assert(fabs(scalar_of(r) - 5.0) < 1e-5);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_norm(dm, -2.0, 0, NULL, 0, &r));
  ck_assert(fabs(scalar_of(r) - 1.0) < 1e-5);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_norm(dm, ND_NORM_NUC, 0, NULL, 0, &r));
  ck_assert(fabs(scalar_of(r) - 9.0) < 1e-5);
  nd_array_release(r);
  /* integer input gives float64; a batch of matrix norms over axes (0, 2) */
  int32_t iv[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  nd_array *xi = NULL;
  ND_ASSERT_OK(nd_array_from_host(iv, sizeof iv, 3, SHAPE(2, 3, 2), ND_INT32, &xi));
  ND_ASSERT_OK(nd_linalg_norm(xi, ND_NORM_FRO, 2, SHAPE(0, 2), 0, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT64);
  assert_shape(r, 1, SHAPE(3));
  R = fetch(r);
  ck_assert(fabs(creal(R[0]) - sqrt(1 + 4 + 49 + 64)) < 1e-13);
  free(R);
  nd_array_release(r);
  nd_array_release(xi);
  nd_array_release(dm);
  nd_array_release(x);
}
END_TEST

START_TEST(test_cond_rank_pinv_lstsq) {
  dc dg[9] = {4, 0, 0, 0, -2, 0, 0, 0, 0.5};
  nd_array *d = upload(dg, 2, SHAPE(3, 3), ND_FLOAT64), *r = NULL;
  ND_ASSERT_OK(nd_linalg_cond(d, ND_NORM_DEFAULT, &r));
  ck_assert(fabs(scalar_of(r) - 8.0) < 1e-12);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_cond(d, -2.0, &r));
  ck_assert(fabs(scalar_of(r) - 0.125) < 1e-12);
  nd_array_release(r);
  ND_ASSERT_OK(nd_linalg_cond(d, 1.0, &r));
  ck_assert(fabs(scalar_of(r) - 8.0) < 1e-12); /* 4 * 2 */
  nd_array_release(r);
  /* rank: a (2, 4, 3) batch, one full rank, one of rank 1 */
  dc h[24];
  for (int i = 0; i < 12; i++) h[i] = urand();
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) h[12 + i * 3 + j] = (i + 1) * (j + 2);
  nd_array *a = upload(h, 3, SHAPE(2, 4, 3), ND_FLOAT64);
  ND_ASSERT_OK(nd_linalg_matrix_rank(a, -1.0, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_INT64);
  int64_t rk[2];
  ND_ASSERT_OK(nd_array_to_host(r, rk, sizeof rk));
  ck_assert(rk[0] == 3 && rk[1] == 1);
  nd_array_release(r);
  /* pinv: A pinv(A) A = A for both, including the rank-deficient one */
  nd_array *p = NULL, *ap = NULL, *apa = NULL;
  ND_ASSERT_OK(nd_linalg_pinv(a, 1e-10, &p));
  assert_shape(p, 3, SHAPE(2, 3, 4));
  ND_ASSERT_OK(nd_matmul(a, p, &ap));
  ND_ASSERT_OK(nd_matmul(ap, a, &apa));
  dc *H = fetch(apa);
  for (int i = 0; i < 24; i++) ck_assert(cabs(H[i] - h[i]) < 1e-10);
  free(H);
  /* pinv of matrices with no elements: an empty (..., n, m) of the input's own dtype, as NumPy */
  {
    nd_array *e = NULL, *pe = NULL;
    ND_ASSERT_OK(nd_empty(3, SHAPE(2, 0, 3), ND_INT32, &e));
    ND_ASSERT_OK(nd_linalg_pinv(e, -1.0, &pe));
    assert_shape(pe, 3, SHAPE(2, 3, 0));
    ck_assert_int_eq(nd_array_dtype(pe), ND_INT32);
    nd_array_release(pe);
    nd_array_release(e);
  }
  /* lstsq of an overdetermined full-rank system against the normal equations' residual */
  nd_array *a0 = NULL, *b = NULL, *x = NULL, *res = NULL, *s = NULL;
  ND_ASSERT_OK(nd_array_index(a, 0, 0, &a0));
  dc hb[4] = {1, 2, -1, 0.5};
  b = upload(hb, 1, SHAPE(4), ND_FLOAT64);
  int64_t rank = -1;
  ND_ASSERT_OK(nd_linalg_lstsq(a0, b, -1.0, &x, &res, &rank, &s));
  ck_assert_int_eq(rank, 3);
  assert_shape(x, 1, SHAPE(3));
  assert_shape(res, 1, SHAPE(1));
  assert_shape(s, 1, SHAPE(3));
  dc *X = fetch(x), *RS = fetch(res);
  /* residual r = A x - b must be orthogonal to A's columns, and |r|^2 the reported residual */
  dc rr[4];
  hmatmul(h, X, rr, 4, 3, 1);
  double sq = 0;
  for (int i = 0; i < 4; i++) {
    rr[i] -= hb[i];
    sq += creal(rr[i] * conj(rr[i]));
  }
  for (int j = 0; j < 3; j++) {
    dc dotv = 0;
    for (int i = 0; i < 4; i++) dotv += h[i * 3 + j] * rr[i];
    ck_assert(cabs(dotv) < 1e-10);
  }
  ck_assert(fabs(creal(RS[0]) - sq) < 1e-10);
  free(X);
  free(RS);
  nd_array_release(x);
  nd_array_release(res);
  nd_array_release(s);
  nd_array_release(a0);
  nd_array_release(b);
  nd_array_release(p);
  nd_array_release(ap);
  nd_array_release(apa);
  nd_array_release(a);
  nd_array_release(d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("linalg");
  TCase *tc = tcase_create("inv_solve");
  tcase_add_test(tc, test_inv_sizes_dtypes);
  tcase_add_test(tc, test_inv_large_batch);
  tcase_add_test(tc, test_inv_layouts);
  tcase_add_test(tc, test_inv_int_promotes);
  tcase_add_test(tc, test_inv_zero_sizes);
  tcase_add_test(tc, test_inv_singular_checked_unchecked);
  tcase_add_test(tc, test_nan_inf_bounded);
  tcase_add_test(tc, test_inv_float32_warp);
  tcase_add_test(tc, test_inv_plan_rows);
  tcase_add_test(tc, test_solve);
  tcase_add_test(tc, test_solve_broadcast_and_errors);
  tcase_add_test(tc, test_solve_randomised);
  tcase_add_test(tc, test_solve_randomised_defeated);
  tcase_add_test(tc, test_det_slogdet);
  tcase_add_test(tc, test_bad_input);
  tcase_add_test(tc, test_seeds_report5_cross_stream);
  tcase_add_test(tc, test_checked_under_capture);
  tcase_add_test(tc, test_threads);
  suite_add_tcase(s, tc);
  TCase *tp = tcase_create("products");
  tcase_add_test(tp, test_matmul);
  tcase_add_test(tp, test_matmul_layouts);
  tcase_add_test(tp, test_matmul_plans);
  tcase_add_test(tp, test_products_family);
  tcase_add_test(tp, test_matrix_power);
  suite_add_tcase(s, tp);
  TCase *td = tcase_create("decompositions");
  tcase_add_test(td, test_cholesky);
  tcase_add_test(td, test_qr);
  tcase_add_test(td, test_svd);
  tcase_add_test(td, test_eigh);
  tcase_add_test(td, test_norm);
  tcase_add_test(td, test_norm_empty_minimum);
  tcase_add_test(td, test_cond_rank_pinv_lstsq);
  tcase_add_test(td, test_numpy_fidelity);
  suite_add_tcase(s, td);
  return s;
}

int main(void) { return nd_test_main_gpu(suite()); }
