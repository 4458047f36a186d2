/* Benchmark cases of linear algebra (issue 7): batched and single inverses, a solve with 16
 * right-hand sides, and large matmuls.
 *
 * - linalg.inv_<batch>x<n>x<n>_<dtype>: nd_linalg_inv of a stack; GB/s counts the matrices
 *   read plus the inverses written. linalg.inv_4096_f64 is one 4096 x 4096 matrix, timed over
 *   at most 10 runs (it is the slow case in CuPy, which runs it 3 times).
 * - linalg.solve_4096_f64_16rhs: nd_linalg_solve of (4096, 4096) with b (4096, 16).
 * - linalg.solve_<batch>x<n>x<n>_<dtype>: nd_linalg_solve of a stack (n on each diagonal, as
 *   the inverses') with b (batch, n, 1), unchecked as the batched inverses (and as CuPy's solve,
 *   which does not look at the factorisation's info), and once more in the default checked mode
 *   (_checked; the peers' checking calls beside it); GB/s counts A and b read plus x written.
 * - linalg.matmul_8192_<dtype>: nd_matmul of two 8192 x 8192 matrices (full float32
 *   arithmetic; TF32 stays off as the library's default). linalg.matmul_256_f32: two 256 x 256
 *   float32 matrices, where the host's share of a call shows (the size sweep's small products);
 *   linalg.matmul_256_f32_host: the host time per such nd_matmul (out NULL: allocate, cuBLAS,
 *   release), in chains of 64; ref.matmul_256_f32_cublas: the same product by cublasGemmEx
 *   straight on the harness stream with a handle of the bench's own, bound once (the floor of
 *   the library's call), ref.matmul_256_f32_cublas_setstream with cublasSetStream before
 *   every product, as the library binds its handle, and ref.matmul_256_f32_cublas_ws with a
 *   32 MiB workspace of its own set once (cublasSetWorkspace; PyTorch's method).
 *
 * Every call but the single solves and the single large inverses runs in unchecked mode
 * (nd_linalg_set_checked(0) around the call, the previous setting restored after it), so no
 * timed run waits on the host for the info array. linalg.inv_<n>_<dtype> (one matrix of order
 * 1024..8192) runs in the default checked mode, as the peers' inverses (which wait for the
 * factorisation's info), and linalg.inv_4096_f64_unchecked the same call unchecked. The solves
 * run in the default checked mode (the randomised path of linalg/inv.c is taken only there;
 * its one wait is inside the timed call), and once more unchecked (linalg.solve_..._unchecked:
 * cuSOLVER getrf + getrs). linalg.solve_..._uniform solves with
 * a matrix without the added diagonal. Inputs are
 * generated once on the host (uniform [-1, 1) from a fixed-seed xorshift, plus n on the
 * diagonal of the matrices that are inverted or solved with, so every one is well conditioned)
 * and uploaded; bench/cupy_bench.py uses the same recipe with NumPy's generator.
 *
 * After timing, check() measures the result and writes it into the case's note column with the
 * TFLOP/s figure (from the median time):
 * - inverse: max |A X - I| over all entries of all matrices, A X computed by nd_matmul in
 *   float64 from float64 copies of A and X (exact products of the stored values, rounded once);
 * - solve: max |A x - b| computed on the host in float64 from the uploaded A and b;
 * - matmul: Freivalds' test on the host: C v against A (B v) for a random +-1 vector v, every row
 *   within 32 u sqrt(n) S_i (u the unit roundoff, S_i = sqrt(sum_k a_ik^2 |B_k|^2), the size of
 *   the row's products), which a randomly signed rounding error stays far below and a wrong or
 *   missing entry of C exceeds.
 * - linalg.gj_<variant>[_solve]_<batch>x<n>x<n>_<dtype>[_<neighbour>]: the batched inverse's
 *   (and with _solve, the batched solve's, unchecked, one right-hand side) kernel
 *   variants (linalg/plan.c), each beside its generic neighbour on the same input, through the
 *   library's bench hook nd__gj_set_generic (linalg/gj_plan.h): the case without a suffix runs
 *   the normal plan, _small / _warp / _vendor leave the variant's rows out of the plan so that
 *   the next row takes its orders, _noprefetch runs the tensor-core kernel without its
 *   prefetch, _stage the one-warp and lookahead kernels' solve through their inverse instead of
 *   b carried through the elimination (ND__GJ_PLAIN). A variant stays only where its neighbour
 *   takes 15% longer or more on both the H100 and the H200: `--filter linalg.gj_` times all of
 *   them (linalg/TUNING.md).
 *
 * A result over its bound fails the case. Flop counts: 2 n^3 per inverse (getrf + getri),
 * 2/3 n^3 + 2 n^2 k per solve, 2 n^3 per matmul. --quick divides the batch counts by 16 and
 * the orders of the single matrices by 4. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "linalg/gj_plan.h"

/* Slots in bench_state.arr: the inputs, the timed output, and the check's temporaries. */
enum { A_IN = 0, B_IN = 1, OUT = 2, A64 = 3, X64 = 4, PROD = 5 };

typedef enum la_kind { LA_INV, LA_SOLVE, LA_MATMUL } la_kind;

/* One case's parameters and host copies of its inputs (st->p). */
typedef struct la_data {
  la_kind kind;
  nd_dtype dt;
  int64_t batch; /* 0: a single matrix (no batch dimension) */
  int64_t n;     /* matrix order */
  int64_t k;     /* right-hand sides (solve) */
  int checked;   /* inverse: the default checked mode instead of unchecked */
  unsigned generic; /* batched inverse or solve: nd__gj_set_generic's mask during the call (0: the normal plan) */
  void *ha;      /* host A (C order, dtype dt) */
  void *hb;      /* host b (solve) or B (matmul) */
  void *blas;    /* reference product: its cuBLAS handle (chosen by the case name in setup) */
  int rebind;    /* reference product: cublasSetStream before every product */
} la_data;

static size_t la_item(nd_dtype dt) { return dt == ND_FLOAT64 ? sizeof(double) : sizeof(float); }

/* Unit roundoff of the dtype. */
static double la_unit(nd_dtype dt) { return dt == ND_FLOAT64 ? ldexp(1.0, -53) : ldexp(1.0, -24); }

/* ---- inputs ---------------------------------------------------------------------------------- */

static double la_uniform(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return (double)(x >> 11) * ldexp(1.0, -53) * 2.0 - 1.0; /* [-1, 1) */
}

/* count matrices of rows x cols in C order, uniform [-1, 1) plus diag on the diagonal of each
 * (square matrices only), as float or double. NULL when out of host memory. */
static void *la_host_matrices(nd_dtype dt, int64_t count, int64_t rows, int64_t cols, double diag,
                              uint64_t seed) {
  int64_t total = count * rows * cols;
  void *h = malloc((size_t)(total > 0 ? total : 1) * la_item(dt));
  if (h == NULL) return NULL;
  uint64_t s = seed | 1u;
  for (int64_t i = 0; i < total; i++) {
    int64_t r = (i / cols) % rows, c = i % cols;
    double v = la_uniform(&s) + (r == c ? diag : 0.0);
    if (dt == ND_FLOAT64) ((double *)h)[i] = v;
    else ((float *)h)[i] = (float)v;
  }
  return h;
}

static double la_get(nd_dtype dt, const void *h, int64_t i) {
  return dt == ND_FLOAT64 ? ((const double *)h)[i] : (double)((const float *)h)[i];
}

static int la_upload(bench_ctx *ctx, const void *h, nd_dtype dt, int ndim, const int64_t *shape,
                     nd_array **out) {
  int64_t total = 1;
  for (int i = 0; i < ndim; i++) total *= shape[i];
  BENCH_ND(nd_array_from_host(h, (size_t)total * la_item(dt), ndim, shape, dt, out));
  return 0;
}

static la_data *la_new(bench_ctx *ctx, bench_state *st, la_kind kind, nd_dtype dt) {
  la_data *d = calloc(1, sizeof *d);
  if (d == NULL) {
    bench_fail(ctx, "out of host memory");
    return NULL;
  }
  d->kind = kind;
  d->dt = dt;
  st->p = d;
  return d;
}

static void la_teardown(bench_ctx *ctx, bench_state *st) {
  (void)ctx;
  la_data *d = st->p;
  if (d != NULL) {
    free(d->ha);
    free(d->hb);
  }
  free(d);
  st->p = NULL;
}

/* ---- the timed calls (unchecked mode) ------------------------------------------------------ */

static int run_inv(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]); /* the previous output goes back to the pool first */
  st->arr[OUT] = NULL;
  const la_data *d = st->p;
  if (d->checked) {
    BENCH_ND(nd_linalg_inv_ex(st->arr[A_IN], ND_LINALG_CHECKED, &st->arr[OUT], NULL));
    return 0;
  }
  int prev = nd_linalg_set_checked(0);
  const unsigned prev_generic = d->generic ? nd__gj_set_generic(d->generic) : 0;
  nd_status s = nd_linalg_inv(st->arr[A_IN], &st->arr[OUT]);
  if (d->generic) nd__gj_set_generic(prev_generic);
  nd_linalg_set_checked(prev);
  BENCH_ND(s);
  return 0;
}

/* The solve rows run in the default checked mode (its one host wait inside the timed call):
 * large real solves take the randomised path there, which unchecked mode cannot take. */
static int run_solve(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_linalg_solve_ex(st->arr[A_IN], st->arr[B_IN], ND_LINALG_CHECKED, &st->arr[OUT], NULL));
  return 0;
}

static int run_solve_unchecked(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  const la_data *d = st->p;
  const unsigned prev_generic = d->generic ? nd__gj_set_generic(d->generic) : 0;
  nd_status s = nd_linalg_solve_ex(st->arr[A_IN], st->arr[B_IN], ND_LINALG_UNCHECKED, &st->arr[OUT], NULL);
  if (d->generic) nd__gj_set_generic(prev_generic);
  BENCH_ND(s);
  return 0;
}

static int run_matmul(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  int prev = nd_linalg_set_checked(0); /* no effect on matmul; kept so every call is alike */
  nd_status s = nd_matmul(st->arr[A_IN], st->arr[B_IN], &st->arr[OUT]);
  nd_linalg_set_checked(prev);
  BENCH_ND(s);
  return 0;
}

/* Host time per small product: chains of MM_CHAIN nd_matmul calls, each result released. */
#define MM_CHAIN 64
static int matmul_chain(bench_ctx *ctx, void *p) {
  bench_state *st = p;
  for (int i = 0; i < MM_CHAIN; i++) {
    nd_array *r = NULL;
    BENCH_ND(nd_matmul(st->arr[A_IN], st->arr[B_IN], &r));
    nd_array_release(r);
  }
  return 0;
}

/* cuBLAS called directly (reference cases): one handle for the process, and for the _ws case a
 * second one with a workspace of its own (32 MiB, cuBLAS's recommended size on Hopper) set once. */
static cublasHandle_t la_blas, la_blas_ws;
static void *la_ws;
#define LA_WS_BYTES ((size_t)32 << 20)

static int run_matmul_cublas(bench_ctx *ctx, bench_state *st) {
  la_data *d = st->p;
  const int n = (int)d->n;
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t e = CUBLAS_STATUS_SUCCESS;
  cublasHandle_t h = d->blas;
  if (d->rebind) e = cublasSetStream(h, (cudaStream_t)ctx->cu);
  /* Row-major C = A B is column-major C^T = B^T A^T. */
  if (e == CUBLAS_STATUS_SUCCESS)
    e = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, nd_array_data(st->arr[B_IN]), CUDA_R_32F, n,
                     nd_array_data(st->arr[A_IN]), CUDA_R_32F, n, &zero, nd_array_data(st->arr[OUT]), CUDA_R_32F, n,
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (e != CUBLAS_STATUS_SUCCESS) return bench_fail(ctx, "cublasGemmEx: %s", cublasGetStatusString(e));
  return 0;
}

/* ---- setups ---------------------------------------------------------------------------------- */

/* A stack of batch matrices of order n (batch 0: one matrix without a batch dimension). */
static int setup_inv(bench_ctx *ctx, bench_state *st, int64_t batch, int64_t n, nd_dtype dt) {
  la_data *d = la_new(ctx, st, LA_INV, dt);
  if (d == NULL) return -1;
  if (ctx->quick) {
    if (batch > 0) batch /= 16;
    else n /= 4;
  }
  d->batch = batch;
  d->n = n;
  int64_t count = batch > 0 ? batch : 1;
  d->ha = la_host_matrices(dt, count, n, n, (double)n, 0x243f6a8885a308d3ull + (uint64_t)n);
  if (d->ha == NULL) return bench_fail(ctx, "out of host memory");
  int64_t shape[3] = {batch, n, n};
  int ndim = batch > 0 ? 3 : 2;
  if (la_upload(ctx, d->ha, dt, ndim, batch > 0 ? shape : shape + 1, &st->arr[A_IN]) != 0) return -1;
  st->bytes = batch > 0 ? 2 * count * n * n * (int64_t)la_item(dt) : 0; /* GB/s for the stacks */
  return 0;
}

static int setup_inv_4(bench_ctx *ctx, bench_state *st) { return setup_inv(ctx, st, 100000, 4, ND_FLOAT32); }
static int setup_inv_8(bench_ctx *ctx, bench_state *st) { return setup_inv(ctx, st, 100000, 8, ND_FLOAT32); }
static int setup_inv_32(bench_ctx *ctx, bench_state *st) { return setup_inv(ctx, st, 10000, 32, ND_FLOAT32); }
static int setup_inv_32d(bench_ctx *ctx, bench_state *st) { return setup_inv(ctx, st, 10000, 32, ND_FLOAT64); }
static int setup_inv_128(bench_ctx *ctx, bench_state *st) { return setup_inv(ctx, st, 1000, 128, ND_FLOAT32); }
/* The kernel comparisons (linalg.gj_*): the stack that `make` (setup_inv, or for the solves
 * setup_solve_batched) sets up, run under the generic mask `mask`. */
#define GJ_CASE(name, make, batch, n, dt, mask)                    \
  static int name(bench_ctx *ctx, bench_state *st) {               \
    if (make(ctx, st, batch, n, dt) != 0) return -1;               \
    ((la_data *)st->p)->generic = mask;                            \
    return 0;                                                      \
  }
#define GJ_SETUP(name, batch, n, dt, generic) GJ_CASE(name, setup_inv, batch, n, dt, generic)
#define GJ_OFF(route) ND__GJ_SKIP(ND__GJ_##route)
GJ_SETUP(setup_gj_tiny4, 100000, 4, ND_FLOAT32, 0)
GJ_SETUP(setup_gj_tiny4_small, 100000, 4, ND_FLOAT32, GJ_OFF(TINY))
GJ_SETUP(setup_gj_tiny8, 100000, 8, ND_FLOAT32, 0)
GJ_SETUP(setup_gj_tiny8_small, 100000, 8, ND_FLOAT32, GJ_OFF(TINY))
GJ_SETUP(setup_gj_tiny4d, 100000, 4, ND_FLOAT64, 0)
GJ_SETUP(setup_gj_tiny4d_small, 100000, 4, ND_FLOAT64, GJ_OFF(TINY))
GJ_SETUP(setup_gj_warp32, 10000, 32, ND_FLOAT32, 0)
GJ_SETUP(setup_gj_warp32_small, 10000, 32, ND_FLOAT32, GJ_OFF(WARP))
GJ_SETUP(setup_gj_warp32b, 40000, 32, ND_FLOAT32, 0)
GJ_SETUP(setup_gj_warp32b_small, 40000, 32, ND_FLOAT32, GJ_OFF(WARP))
GJ_SETUP(setup_gj_tc32, 10000, 32, ND_FLOAT64, 0)
GJ_SETUP(setup_gj_tc32_noprefetch, 10000, 32, ND_FLOAT64, ND__GJ_PLAIN)
GJ_SETUP(setup_gj_tc32_warp, 10000, 32, ND_FLOAT64, GJ_OFF(TC))
GJ_SETUP(setup_gj_tc32_small, 10000, 32, ND_FLOAT64, GJ_OFF(TC) | GJ_OFF(WARP))
GJ_SETUP(setup_gj_tc32b, 40000, 32, ND_FLOAT64, 0)
GJ_SETUP(setup_gj_tc32b_noprefetch, 40000, 32, ND_FLOAT64, ND__GJ_PLAIN)
GJ_SETUP(setup_gj_tc32b_warp, 40000, 32, ND_FLOAT64, GJ_OFF(TC))
GJ_SETUP(setup_gj_tc32b_small, 40000, 32, ND_FLOAT64, GJ_OFF(TC) | GJ_OFF(WARP))
GJ_SETUP(setup_gj_la128, 1000, 128, ND_FLOAT32, 0)
GJ_SETUP(setup_gj_la128_vendor, 1000, 128, ND_FLOAT32, GJ_OFF(MEDIUM))
GJ_SETUP(setup_gj_la128d, 200, 128, ND_FLOAT64, 0)
GJ_SETUP(setup_gj_la128d_vendor, 200, 128, ND_FLOAT64, GJ_OFF(MEDIUM))

/* Single large matrices, timed in the default checked mode (as the peers, whose inverses check
 * the factorisation's info on the host); _unchecked is the same call in unchecked mode. */
static int setup_inv_big(bench_ctx *ctx, bench_state *st, int64_t n, nd_dtype dt, int checked) {
  if (setup_inv(ctx, st, 0, n, dt) != 0) return -1;
  ((la_data *)st->p)->checked = checked;
  return 0;
}
static int setup_inv_4096(bench_ctx *ctx, bench_state *st) { return setup_inv_big(ctx, st, 4096, ND_FLOAT64, 1); }
static int setup_inv_4096u(bench_ctx *ctx, bench_state *st) { return setup_inv_big(ctx, st, 4096, ND_FLOAT64, 0); }
static int setup_inv_1024s(bench_ctx *ctx, bench_state *st) { return setup_inv_big(ctx, st, 1024, ND_FLOAT32, 1); }
static int setup_inv_1024d(bench_ctx *ctx, bench_state *st) { return setup_inv_big(ctx, st, 1024, ND_FLOAT64, 1); }
static int setup_inv_2048s(bench_ctx *ctx, bench_state *st) { return setup_inv_big(ctx, st, 2048, ND_FLOAT32, 1); }
static int setup_inv_2048d(bench_ctx *ctx, bench_state *st) { return setup_inv_big(ctx, st, 2048, ND_FLOAT64, 1); }
static int setup_inv_4096s(bench_ctx *ctx, bench_state *st) { return setup_inv_big(ctx, st, 4096, ND_FLOAT32, 1); }
static int setup_inv_8192s(bench_ctx *ctx, bench_state *st) { return setup_inv_big(ctx, st, 8192, ND_FLOAT32, 1); }
static int setup_inv_8192d(bench_ctx *ctx, bench_state *st) { return setup_inv_big(ctx, st, 8192, ND_FLOAT64, 1); }

/* dominant: n added to the diagonal (as the inverses), else a general matrix */
static int setup_solve_diag(bench_ctx *ctx, bench_state *st, int dominant) {
  la_data *d = la_new(ctx, st, LA_SOLVE, ND_FLOAT64);
  if (d == NULL) return -1;
  d->n = ctx->quick ? 1024 : 4096;
  d->k = 16;
  d->ha = la_host_matrices(d->dt, 1, d->n, d->n, dominant ? (double)d->n : 0.0, 0x13198a2e03707344ull);
  d->hb = la_host_matrices(d->dt, 1, d->n, d->k, 0.0, 0xa4093822299f31d0ull);
  if (d->ha == NULL || d->hb == NULL) return bench_fail(ctx, "out of host memory");
  int64_t sa[2] = {d->n, d->n}, sb[2] = {d->n, d->k};
  if (la_upload(ctx, d->ha, d->dt, 2, sa, &st->arr[A_IN]) != 0) return -1;
  if (la_upload(ctx, d->hb, d->dt, 2, sb, &st->arr[B_IN]) != 0) return -1;
  return 0;
}

static int setup_solve(bench_ctx *ctx, bench_state *st) { return setup_solve_diag(ctx, st, 1); }
/* no added diagonal: a general matrix, on which partial pivoting exchanges rows */
static int setup_solve_uniform(bench_ctx *ctx, bench_state *st) { return setup_solve_diag(ctx, st, 0); }

/* A stack of batch systems of order n with one right-hand side each: A as setup_inv makes it
 * (n on the diagonal), b (batch, n, 1) uniform [-1, 1). */
static int setup_solve_batched(bench_ctx *ctx, bench_state *st, int64_t batch, int64_t n, nd_dtype dt) {
  la_data *d = la_new(ctx, st, LA_SOLVE, dt);
  if (d == NULL) return -1;
  if (ctx->quick) batch /= 16;
  d->batch = batch;
  d->n = n;
  d->k = 1;
  d->ha = la_host_matrices(dt, batch, n, n, (double)n, 0x299f31d0082efa98ull + (uint64_t)n);
  d->hb = la_host_matrices(dt, batch, n, 1, 0.0, 0xec4e6c89452821e6ull + (uint64_t)n);
  if (d->ha == NULL || d->hb == NULL) return bench_fail(ctx, "out of host memory");
  int64_t sa[3] = {batch, n, n}, sb[3] = {batch, n, 1};
  if (la_upload(ctx, d->ha, dt, 3, sa, &st->arr[A_IN]) != 0) return -1;
  if (la_upload(ctx, d->hb, dt, 3, sb, &st->arr[B_IN]) != 0) return -1;
  st->bytes = batch * (n * n + 2 * n) * (int64_t)la_item(dt); /* A and b read, x written */
  return 0;
}
static int setup_solve_8(bench_ctx *ctx, bench_state *st) {
  return setup_solve_batched(ctx, st, 100000, 8, ND_FLOAT32);
}
static int setup_solve_32(bench_ctx *ctx, bench_state *st) {
  return setup_solve_batched(ctx, st, 10000, 32, ND_FLOAT32);
}
static int setup_solve_32d(bench_ctx *ctx, bench_state *st) {
  return setup_solve_batched(ctx, st, 10000, 32, ND_FLOAT64);
}
static int setup_solve_128(bench_ctx *ctx, bench_state *st) {
  return setup_solve_batched(ctx, st, 1000, 128, ND_FLOAT32);
}
/* The solve's kernels beside their generic neighbour (unchecked): the tiny kernel
 * (linalg.gj_tiny_solve_*) and the one-warp kernels (gj_warp_solve_*, gj_tc_solve_*) beside the
 * small kernel, the medium kernel (gj_lookahead_solve_*) beside the vendor inverse and a
 * product. */
#define GJ_SOLVE_SETUP(name, batch, n, dt, generic) GJ_CASE(name, setup_solve_batched, batch, n, dt, generic)
/* the rows of those cases in the table below */
#define GJ_SOLVE_ROW(name, setup) {name, setup, run_solve_unchecked, check_solve, la_teardown, NULL}
GJ_SOLVE_SETUP(setup_gjs_tiny8, 100000, 8, ND_FLOAT32, 0)
GJ_SOLVE_SETUP(setup_gjs_tiny8_small, 100000, 8, ND_FLOAT32, GJ_OFF(TINY))
GJ_SOLVE_SETUP(setup_gjs_tiny4d, 100000, 4, ND_FLOAT64, 0)
GJ_SOLVE_SETUP(setup_gjs_tiny4d_small, 100000, 4, ND_FLOAT64, GJ_OFF(TINY))
GJ_SOLVE_SETUP(setup_gjs_warp32, 10000, 32, ND_FLOAT32, 0)
GJ_SOLVE_SETUP(setup_gjs_warp32_small, 10000, 32, ND_FLOAT32, GJ_OFF(WARP))
GJ_SOLVE_SETUP(setup_gjs_warp32_stage, 10000, 32, ND_FLOAT32, ND__GJ_PLAIN)
GJ_SOLVE_SETUP(setup_gjs_tc32, 10000, 32, ND_FLOAT64, 0)
GJ_SOLVE_SETUP(setup_gjs_tc32_small, 10000, 32, ND_FLOAT64, GJ_OFF(TC) | GJ_OFF(WARP))
GJ_SOLVE_SETUP(setup_gjs_tc32_warp, 10000, 32, ND_FLOAT64, GJ_OFF(TC))
GJ_SOLVE_SETUP(setup_gjs_tc32_warp_stage, 10000, 32, ND_FLOAT64, GJ_OFF(TC) | ND__GJ_PLAIN)
GJ_SOLVE_SETUP(setup_gjs_la128, 1000, 128, ND_FLOAT32, 0)
GJ_SOLVE_SETUP(setup_gjs_la128_vendor, 1000, 128, ND_FLOAT32, GJ_OFF(MEDIUM))
GJ_SOLVE_SETUP(setup_gjs_la128_stage, 1000, 128, ND_FLOAT32, ND__GJ_PLAIN)
GJ_SOLVE_SETUP(setup_gjs_la128d, 200, 128, ND_FLOAT64, 0)
GJ_SOLVE_SETUP(setup_gjs_la128d_stage, 200, 128, ND_FLOAT64, ND__GJ_PLAIN)

static int setup_matmul(bench_ctx *ctx, bench_state *st, nd_dtype dt, int64_t n) {
  la_data *d = la_new(ctx, st, LA_MATMUL, dt);
  if (d == NULL) return -1;
  d->n = n;
  d->ha = la_host_matrices(dt, 1, d->n, d->n, 0.0, 0x082efa98ec4e6c89ull);
  d->hb = la_host_matrices(dt, 1, d->n, d->n, 0.0, 0x452821e638d01377ull);
  if (d->ha == NULL || d->hb == NULL) return bench_fail(ctx, "out of host memory");
  int64_t shape[2] = {d->n, d->n};
  if (la_upload(ctx, d->ha, dt, 2, shape, &st->arr[A_IN]) != 0) return -1;
  if (la_upload(ctx, d->hb, dt, 2, shape, &st->arr[B_IN]) != 0) return -1;
  return 0;
}

static int setup_matmul_f32(bench_ctx *ctx, bench_state *st) {
  return setup_matmul(ctx, st, ND_FLOAT32, ctx->quick ? 2048 : 8192);
}
static int setup_matmul_f64(bench_ctx *ctx, bench_state *st) {
  return setup_matmul(ctx, st, ND_FLOAT64, ctx->quick ? 2048 : 8192);
}
static int setup_matmul_256(bench_ctx *ctx, bench_state *st) { return setup_matmul(ctx, st, ND_FLOAT32, 256); }
static int setup_matmul_cublas(bench_ctx *ctx, bench_state *st) {
  if (setup_matmul(ctx, st, ND_FLOAT32, 256) != 0) return -1;
  const int64_t shape[2] = {256, 256};
  BENCH_ND(nd_empty(2, shape, ND_FLOAT32, &st->arr[OUT]));
  cublasStatus_t e = la_blas == NULL ? cublasCreate(&la_blas) : CUBLAS_STATUS_SUCCESS;
  if (e == CUBLAS_STATUS_SUCCESS) e = cublasSetStream(la_blas, (cudaStream_t)ctx->cu);
  if (e == CUBLAS_STATUS_SUCCESS && la_blas_ws == NULL) {
    BENCH_CU(cudaMalloc(&la_ws, LA_WS_BYTES));
    e = cublasCreate(&la_blas_ws);
  }
  /* cublasSetStream resets the workspace: the workspace is set after it. */
  if (e == CUBLAS_STATUS_SUCCESS) e = cublasSetStream(la_blas_ws, (cudaStream_t)ctx->cu);
  if (e == CUBLAS_STATUS_SUCCESS) e = cublasSetWorkspace(la_blas_ws, la_ws, LA_WS_BYTES);
  if (e != CUBLAS_STATUS_SUCCESS) return bench_fail(ctx, "cuBLAS handle: %s", cublasGetStatusString(e));
  la_data *d = st->p;
  d->blas = strstr(ctx->current->name, "_ws") != NULL ? la_blas_ws : la_blas;
  d->rebind = strstr(ctx->current->name, "_setstream") != NULL;
  return 0;
}

static int measure_matmul_host(bench_ctx *ctx, bench_state *st) {
  if (setup_matmul(ctx, st, ND_FLOAT32, 256) != 0) return -1;
  double med, mn;
  if (bench_time_host(ctx, matmul_chain, NULL, st, MM_CHAIN, ctx->host_batches, &med, &mn) != 0) return -1;
  char note[BENCH_NOTE_MAX];
  snprintf(note, sizeof note,
           "nd_matmul of two 256 x 256 float32, out NULL (allocate + cuBLAS + release), chains of %d", MM_CHAIN);
  bench_emit_time(ctx, NULL, "host", med, mn, ctx->host_batches, 0, note);
  /* One more, kept for the check. */
  return run_matmul(ctx, st);
}

/* ---- the single 4096 inverse: at most 10 timed runs ----------------------------------------- */

#define LA_BIG_REPS 10

static int run_inv_arg(bench_ctx *ctx, void *arg) { return run_inv(ctx, arg); }

static int measure_inv_big(bench_ctx *ctx, bench_state *st) {
  int reps = ctx->reps < LA_BIG_REPS ? ctx->reps : LA_BIG_REPS;
  int warmup = ctx->warmup < 1 ? ctx->warmup : 1;
  double med, mn;
  if (bench_time_device(ctx, run_inv_arg, st, warmup, reps, &med, &mn) != 0) return -1;
  bench_emit_time(ctx, NULL, "device", med, mn, reps, 0, NULL);
  return 0;
}

/* ---- checks: residuals into the note -------------------------------------------------------- */

/* The row this case emitted (the last one with its name), or NULL. */
static bench_result *la_row(bench_ctx *ctx) {
  for (int i = ctx->nresults - 1; i >= 0; i--)
    if (strcmp(ctx->results[i].name, ctx->current->name) == 0) return &ctx->results[i];
  return NULL;
}

/* Writes "checked; <what> <residual>; <TFLOP/s>" into the case's row. */
static void la_note(bench_ctx *ctx, const char *what, double residual, double flops) {
  bench_result *r = la_row(ctx);
  if (r == NULL) return;
  double tflops = r->median_us > 0 ? flops / (r->median_us * 1e-6) / 1e12 : NAN;
  snprintf(r->note, sizeof r->note, "checked; %s %.2e; %.3g TFLOP/s", what, residual, tflops);
}

/* Downloads a float64 array into a new host buffer (NULL on failure, after printing why). */
static double *la_download_f64(bench_ctx *ctx, const nd_array *a) {
  int64_t n = nd_array_size(a);
  double *h = malloc((size_t)(n > 0 ? n : 1) * sizeof *h);
  if (h == NULL) {
    bench_fail(ctx, "out of host memory");
    return NULL;
  }
  nd_array *a64 = NULL; /* a float64 copy of any other dtype */
  const char *what = "nd_array_astype";
  nd_status s = nd_array_dtype(a) == ND_FLOAT64 ? ND_OK : nd_array_astype(a, ND_FLOAT64, &a64);
  if (s == ND_OK) {
    what = "nd_array_to_host";
    s = nd_array_to_host(a64 ? a64 : a, h, (size_t)n * sizeof *h);
  }
  nd_array_release(a64);
  if (s != ND_OK) {
    bench_fail_nd(ctx, s, what, __FILE__, __LINE__);
    free(h);
    return NULL;
  }
  return h;
}

/* max |A X - I| with A X from nd_matmul of float64 copies (batched over the stack). */
static int check_inv(bench_ctx *ctx, bench_state *st) {
  la_data *d = st->p;
  int64_t n = d->n, count = d->batch > 0 ? d->batch : 1;
  BENCH_ND(nd_array_astype(st->arr[A_IN], ND_FLOAT64, &st->arr[A64]));
  BENCH_ND(nd_array_astype(st->arr[OUT], ND_FLOAT64, &st->arr[X64]));
  BENCH_ND(nd_matmul(st->arr[A64], st->arr[X64], &st->arr[PROD]));
  if (nd_array_size(st->arr[PROD]) != count * n * n)
    return bench_fail(ctx, "check: A X has %lld elements, expected %lld", (long long)nd_array_size(st->arr[PROD]),
                      (long long)(count * n * n));
  double *r = la_download_f64(ctx, st->arr[PROD]);
  if (r == NULL) return -1;
  double worst = 0.0;
  int64_t at = 0;
  for (int64_t i = 0; i < count * n * n; i++) {
    int64_t row = (i / n) % n, col = i % n;
    double e = fabs(r[i] - (row == col ? 1.0 : 0.0));
    if (!(e <= worst)) { /* NaN is the worst */
      worst = e;
      at = i;
      if (isnan(e)) break;
    }
  }
  free(r);
  double tol = 64.0 * (double)n * la_unit(d->dt);
  la_note(ctx, "max|AX-I|", worst, 2.0 * (double)n * (double)n * (double)n * (double)count);
  if (!(worst <= tol))
    return bench_fail(ctx, "check: max |A X - I| = %.3g at matrix %lld entry (%lld, %lld), above %.3g", worst,
                      (long long)(at / (n * n)), (long long)((at / n) % n), (long long)(at % n), tol);
  return 0;
}

/* max |A x - b| on the host, in float64, from the uploaded A and b. */
static int check_solve(bench_ctx *ctx, bench_state *st) {
  la_data *d = st->p;
  int64_t n = d->n, k = d->k, count = d->batch > 0 ? d->batch : 1;
  const int64_t *shp = nd_array_shape(st->arr[OUT]);
  const int nb = d->batch > 0;
  if (nd_array_ndim(st->arr[OUT]) != 2 + nb || (nb && shp[0] != d->batch) || shp[nb] != n || shp[nb + 1] != k)
    return bench_fail(ctx, "check: the solution does not have shape (%s%lld, %lld)", nb ? "batch, " : "",
                      (long long)n, (long long)k);
  double *x = la_download_f64(ctx, st->arr[OUT]);
  double *acc = calloc((size_t)k, sizeof *acc);
  if (x == NULL || acc == NULL) {
    free(x);
    free(acc);
    return x == NULL ? -1 : bench_fail(ctx, "out of host memory");
  }
  /* A and b as uploaded (dtype dt), x downloaded as float64; each system of the stack in turn */
  double worst = 0.0, anorm = 0.0, xnorm = 0.0;
  for (int64_t m = 0; m < count && !isnan(worst); m++) {
    const int64_t ao = m * n * n, bo = m * n * k;
    const double *xm = x + bo;
    for (int64_t i = 0; i < n; i++) {
      for (int64_t j = 0; j < k; j++) acc[j] = -la_get(d->dt, d->hb, bo + i * k + j);
      double rs = 0.0;
      for (int64_t l = 0; l < n; l++) {
        double ail = la_get(d->dt, d->ha, ao + i * n + l);
        rs += fabs(ail);
        const double *xl = xm + l * k;
        for (int64_t j = 0; j < k; j++) acc[j] += ail * xl[j];
      }
      anorm = fmax(anorm, rs);
      for (int64_t j = 0; j < k; j++)
        if (!(fabs(acc[j]) <= worst)) worst = isnan(acc[j]) ? NAN : fabs(acc[j]);
      if (isnan(worst)) break;
    }
  }
  for (int64_t i = 0; i < count * n * k; i++) xnorm = fmax(xnorm, fabs(x[i]));
  free(x);
  free(acc);
  double nn = (double)n;
  la_note(ctx, "max|Ax-b|", worst, (2.0 / 3.0 * nn * nn * nn + 2.0 * nn * nn * (double)k) * (double)count);
  /* 64 n u absolute, or 64 u ||A||_inf ||x||_inf (a backward error of 64 u) if larger */
  double tol = fmax(64.0 * nn, 64.0 * anorm * xnorm) * la_unit(d->dt);
  if (!(worst <= tol)) return bench_fail(ctx, "check: max |A x - b| = %.3g, above %.3g", worst, tol);
  return 0;
}

/* Freivalds' test of C = A B on the host (see the top of the file). */
static int check_matmul(bench_ctx *ctx, bench_state *st) {
  la_data *d = st->p;
  int64_t n = d->n;
  nd_dtype dt = d->dt;
  if (nd_array_dtype(st->arr[OUT]) != dt || nd_array_size(st->arr[OUT]) != n * n)
    return bench_fail(ctx, "check: the product has the wrong dtype or size");
  BENCH_ND(nd_array_astype(st->arr[OUT], ND_FLOAT64, &st->arr[X64]));
  double *c = la_download_f64(ctx, st->arr[X64]);
  double *v = malloc((size_t)n * sizeof *v), *bv = calloc((size_t)n, sizeof *bv),
         *bnorm2 = calloc((size_t)n, sizeof *bnorm2);
  int rc = 0;
  if (c == NULL || v == NULL || bv == NULL || bnorm2 == NULL) {
    rc = c == NULL ? -1 : bench_fail(ctx, "out of host memory");
    goto done;
  }
  uint64_t s = 0x3f84d5b5b5470917ull;
  for (int64_t j = 0; j < n; j++) v[j] = la_uniform(&s) < 0.0 ? -1.0 : 1.0;
  /* B v and the squared row norms of B, one pass over B. */
  for (int64_t kk = 0; kk < n; kk++) {
    double sum = 0.0, sq = 0.0;
    for (int64_t j = 0; j < n; j++) {
      double b = la_get(dt, d->hb, kk * n + j);
      sum += b * v[j];
      sq += b * b;
    }
    bv[kk] = sum;
    bnorm2[kk] = sq;
  }
  double worst = 0.0; /* max over rows of |C v - A (B v)| / tolerance */
  int64_t at = 0;
  double tol_at = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double cv = 0.0, abv = 0.0, s2 = 0.0;
    for (int64_t j = 0; j < n; j++) cv += c[i * n + j] * v[j];
    for (int64_t kk = 0; kk < n; kk++) {
      double a = la_get(dt, d->ha, i * n + kk);
      abv += a * bv[kk];
      s2 += a * a * bnorm2[kk];
    }
    double tol = 32.0 * la_unit(dt) * sqrt((double)n) * sqrt(s2);
    double e = fabs(cv - abv) / tol;
    if (!(e <= worst)) {
      worst = e;
      at = i;
      tol_at = tol;
      if (isnan(e)) break;
    }
  }
  double nn = (double)n;
  la_note(ctx, "Freivalds err/tol", worst, 2.0 * nn * nn * nn);
  if (!(worst <= 1.0))
    rc = bench_fail(ctx, "check: row %lld of C v differs from A (B v) by %.3g x its tolerance %.3g", (long long)at,
                    worst, tol_at);
done:
  free(c);
  free(v);
  free(bv);
  free(bnorm2);
  return rc;
}

/* ---- the table ----------------------------------------------------------------------------- */

const bench_case bench_linalg_cases[] = {
    /* name,                          setup,            run,        check,        teardown,    measure */
    {"linalg.inv_100000x4x4_f32",     setup_inv_4,      run_inv,    check_inv,    la_teardown, NULL},
    {"linalg.inv_100000x8x8_f32",     setup_inv_8,      run_inv,    check_inv,    la_teardown, NULL},
    {"linalg.inv_10000x32x32_f32",    setup_inv_32,     run_inv,    check_inv,    la_teardown, NULL},
    {"linalg.inv_10000x32x32_f64",    setup_inv_32d,    run_inv,    check_inv,    la_teardown, NULL},
    {"linalg.inv_1000x128x128_f32",   setup_inv_128,    run_inv,    check_inv,    la_teardown, NULL},
    {"linalg.gj_tiny_100000x4x4_f32",       setup_gj_tiny4,            run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tiny_100000x4x4_f32_small", setup_gj_tiny4_small,      run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tiny_100000x8x8_f32",       setup_gj_tiny8,            run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tiny_100000x8x8_f32_small", setup_gj_tiny8_small,      run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tiny_100000x4x4_f64",       setup_gj_tiny4d,           run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tiny_100000x4x4_f64_small", setup_gj_tiny4d_small,     run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_warp_10000x32x32_f32",      setup_gj_warp32,           run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_warp_10000x32x32_f32_small", setup_gj_warp32_small,    run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_warp_40000x32x32_f32",      setup_gj_warp32b,          run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_warp_40000x32x32_f32_small", setup_gj_warp32b_small,   run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tc_10000x32x32_f64",        setup_gj_tc32,             run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tc_10000x32x32_f64_noprefetch", setup_gj_tc32_noprefetch, run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tc_10000x32x32_f64_warp",   setup_gj_tc32_warp,        run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tc_10000x32x32_f64_small",  setup_gj_tc32_small,       run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tc_40000x32x32_f64",        setup_gj_tc32b,            run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tc_40000x32x32_f64_noprefetch", setup_gj_tc32b_noprefetch, run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tc_40000x32x32_f64_warp",   setup_gj_tc32b_warp,       run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_tc_40000x32x32_f64_small",  setup_gj_tc32b_small,      run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_lookahead_1000x128x128_f32", setup_gj_la128,           run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_lookahead_1000x128x128_f32_vendor", setup_gj_la128_vendor, run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_lookahead_200x128x128_f64", setup_gj_la128d,           run_inv, check_inv, la_teardown, NULL},
    {"linalg.gj_lookahead_200x128x128_f64_vendor", setup_gj_la128d_vendor, run_inv, check_inv, la_teardown, NULL},
    GJ_SOLVE_ROW("linalg.gj_tiny_solve_100000x8x8_f32", setup_gjs_tiny8),
    GJ_SOLVE_ROW("linalg.gj_tiny_solve_100000x8x8_f32_small", setup_gjs_tiny8_small),
    GJ_SOLVE_ROW("linalg.gj_tiny_solve_100000x4x4_f64", setup_gjs_tiny4d),
    GJ_SOLVE_ROW("linalg.gj_tiny_solve_100000x4x4_f64_small", setup_gjs_tiny4d_small),
    GJ_SOLVE_ROW("linalg.gj_warp_solve_10000x32x32_f32", setup_gjs_warp32),
    GJ_SOLVE_ROW("linalg.gj_warp_solve_10000x32x32_f32_small", setup_gjs_warp32_small),
    GJ_SOLVE_ROW("linalg.gj_warp_solve_10000x32x32_f32_stage", setup_gjs_warp32_stage),
    GJ_SOLVE_ROW("linalg.gj_tc_solve_10000x32x32_f64", setup_gjs_tc32),
    GJ_SOLVE_ROW("linalg.gj_tc_solve_10000x32x32_f64_small", setup_gjs_tc32_small),
    GJ_SOLVE_ROW("linalg.gj_tc_solve_10000x32x32_f64_warp", setup_gjs_tc32_warp),
    GJ_SOLVE_ROW("linalg.gj_tc_solve_10000x32x32_f64_warp_stage", setup_gjs_tc32_warp_stage),
    GJ_SOLVE_ROW("linalg.gj_lookahead_solve_1000x128x128_f32", setup_gjs_la128),
    GJ_SOLVE_ROW("linalg.gj_lookahead_solve_1000x128x128_f32_vendor", setup_gjs_la128_vendor),
    GJ_SOLVE_ROW("linalg.gj_lookahead_solve_1000x128x128_f32_stage", setup_gjs_la128_stage),
    GJ_SOLVE_ROW("linalg.gj_lookahead_solve_200x128x128_f64", setup_gjs_la128d),
    GJ_SOLVE_ROW("linalg.gj_lookahead_solve_200x128x128_f64_stage", setup_gjs_la128d_stage),
    {"linalg.inv_4096_f64",           setup_inv_4096,   NULL,       check_inv,    la_teardown, measure_inv_big},
    {"linalg.inv_4096_f64_unchecked", setup_inv_4096u,  NULL,       check_inv,    la_teardown, measure_inv_big},
    {"linalg.inv_1024_f32",           setup_inv_1024s,  NULL,       check_inv,    la_teardown, measure_inv_big},
    {"linalg.inv_1024_f64",           setup_inv_1024d,  NULL,       check_inv,    la_teardown, measure_inv_big},
    {"linalg.inv_2048_f32",           setup_inv_2048s,  NULL,       check_inv,    la_teardown, measure_inv_big},
    {"linalg.inv_2048_f64",           setup_inv_2048d,  NULL,       check_inv,    la_teardown, measure_inv_big},
    {"linalg.inv_4096_f32",           setup_inv_4096s,  NULL,       check_inv,    la_teardown, measure_inv_big},
    {"linalg.inv_8192_f32",           setup_inv_8192s,  NULL,       check_inv,    la_teardown, measure_inv_big},
    {"linalg.inv_8192_f64",           setup_inv_8192d,  NULL,       check_inv,    la_teardown, measure_inv_big},
    {"linalg.solve_100000x8x8_f32", setup_solve_8, run_solve_unchecked, check_solve, la_teardown, NULL},
    {"linalg.solve_10000x32x32_f32", setup_solve_32, run_solve_unchecked, check_solve, la_teardown, NULL},
    {"linalg.solve_10000x32x32_f64", setup_solve_32d, run_solve_unchecked, check_solve, la_teardown, NULL},
    {"linalg.solve_1000x128x128_f32", setup_solve_128, run_solve_unchecked, check_solve, la_teardown, NULL},
    {"linalg.solve_100000x8x8_f32_checked", setup_solve_8, run_solve, check_solve, la_teardown, NULL},
    {"linalg.solve_10000x32x32_f32_checked", setup_solve_32, run_solve, check_solve, la_teardown, NULL},
    {"linalg.solve_10000x32x32_f64_checked", setup_solve_32d, run_solve, check_solve, la_teardown, NULL},
    {"linalg.solve_1000x128x128_f32_checked", setup_solve_128, run_solve, check_solve, la_teardown, NULL},
    {"linalg.solve_4096_f64_16rhs",   setup_solve,      run_solve,  check_solve,  la_teardown, NULL},
    {"linalg.solve_4096_f64_16rhs_uniform", setup_solve_uniform, run_solve, check_solve, la_teardown, NULL},
    {"linalg.solve_4096_f64_16rhs_unchecked", setup_solve, run_solve_unchecked, check_solve, la_teardown, NULL},
    {"linalg.matmul_8192_f32",        setup_matmul_f32, run_matmul, check_matmul, la_teardown, NULL},
    {"linalg.matmul_8192_f64",        setup_matmul_f64, run_matmul, check_matmul, la_teardown, NULL},
    {"linalg.matmul_256_f32",         setup_matmul_256, run_matmul, check_matmul, la_teardown, NULL},
    {"linalg.matmul_256_f32_host",    NULL,             NULL,       check_matmul, la_teardown, measure_matmul_host},
    {"ref.matmul_256_f32_cublas",     setup_matmul_cublas, run_matmul_cublas, check_matmul, la_teardown, NULL},
    {"ref.matmul_256_f32_cublas_setstream", setup_matmul_cublas, run_matmul_cublas, check_matmul, la_teardown, NULL},
    {"ref.matmul_256_f32_cublas_ws",  setup_matmul_cublas, run_matmul_cublas, check_matmul, la_teardown, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
