/* Benchmark cases of the ndarray core (issue 3): copies, astype, transpose copy, fill, and the
 * host cost of an allocation from the warm pool.
 *
 * Sizes: 2^28 float32 elements (1 GiB) and a 16384 x 16384 float32 matrix; --quick divides
 * them by 16. Every device case allocates its output inside run(), as a user's call would, and
 * releases the previous repetition's output first, so the pool hands back the same memory
 * and one output is alive at a time. bench/cupy_bench.py mirrors each case under the same
 * name. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slots in bench_state.arr used by the cases below. */
enum { IN = 0, OUT = 1, VIEW = 2 };

static int64_t core_n(const bench_ctx *ctx) { return ctx->quick ? (int64_t)1 << 24 : (int64_t)1 << 28; }
static int64_t core_side(const bench_ctx *ctx) { return ctx->quick ? 4096 : 16384; }

/* ---- contiguous copy and astype ------------------------------------------------------------ */

static int setup_vector(bench_ctx *ctx, bench_state *st) {
  st->n = core_n(ctx);
  return bench_random_f32(ctx, 1, &st->n, &st->arr[IN]);
}

static double expect_same(const bench_ctx *ctx, const bench_state *st, int64_t i) {
  (void)st;
  return bench_rand_value(ctx, i);
}

static int setup_copy(bench_ctx *ctx, bench_state *st) {
  if (setup_vector(ctx, st) != 0) return -1;
  st->bytes = 2 * st->n * 4;
  return 0;
}
static int run_copy(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_array_copy(st->arr[IN], ND_ORDER_C, &st->arr[OUT]));
  return 0;
}
static int check_exact(bench_ctx *ctx, bench_state *st) {
  return bench_check_values(ctx, st, st->arr[OUT], expect_same, 0.0, 0.0);
}

static int setup_f64(bench_ctx *ctx, bench_state *st) {
  if (setup_vector(ctx, st) != 0) return -1;
  st->bytes = st->n * (4 + 8);
  return 0;
}
static int run_f64(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_array_astype(st->arr[IN], ND_FLOAT64, &st->arr[OUT]));
  return 0;
}

static int setup_f16(bench_ctx *ctx, bench_state *st) {
  if (setup_vector(ctx, st) != 0) return -1;
  st->bytes = st->n * (4 + 2);
  return 0;
}
static int run_f16(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_array_astype(st->arr[IN], ND_FLOAT16, &st->arr[OUT]));
  return 0;
}
/* Round to nearest: within half a float16 ulp (2^-11 relative for normal values, 2^-25
 * absolute in the subnormal range). The inputs are in [-1, 1), so nothing overflows. */
static int check_f16(bench_ctx *ctx, bench_state *st) {
  return bench_check_values(ctx, st, st->arr[OUT], expect_same, ldexp(1.0, -11), ldexp(1.0, -25));
}

/* ---- transpose copy ------------------------------------------------------------------------ */

static int setup_transpose(bench_ctx *ctx, bench_state *st) {
  st->n = core_side(ctx);
  int64_t shape[2] = {st->n, st->n};
  if (bench_random_f32(ctx, 2, shape, &st->arr[IN]) != 0) return -1;
  BENCH_ND(nd_array_transpose(st->arr[IN], 0, NULL, &st->arr[VIEW]));
  st->bytes = 2 * st->n * st->n * 4;
  return 0;
}
static int run_transpose(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_array_copy(st->arr[VIEW], ND_ORDER_C, &st->arr[OUT]));
  return 0;
}
/* out[i][j] = in[j][i]: flat index i*N + j of the output reads flat index j*N + i. */
static double expect_transposed(const bench_ctx *ctx, const bench_state *st, int64_t k) {
  int64_t n = st->n, i = k / n, j = k % n;
  return bench_rand_value(ctx, j * n + i);
}
static int check_transpose(bench_ctx *ctx, bench_state *st) {
  if (!nd_array_is_c_contiguous(st->arr[OUT]))
    return bench_fail(ctx, "check: the copy of the transposed view is not C-contiguous");
  return bench_check_values(ctx, st, st->arr[OUT], expect_transposed, 0.0, 0.0);
}

/* ---- fill ---------------------------------------------------------------------------------- */

static int setup_fill(bench_ctx *ctx, bench_state *st) {
  if (setup_vector(ctx, st) != 0) return -1; /* random contents, so a fill that skips shows */
  st->bytes = st->n * 4;
  return 0;
}
static int run_fill(bench_ctx *ctx, bench_state *st) {
  BENCH_ND(nd_array_fill(st->arr[IN], nd_scalar_float(1.5)));
  return 0;
}
static double expect_fill(const bench_ctx *ctx, const bench_state *st, int64_t i) {
  (void)ctx, (void)st, (void)i;
  return 1.5;
}
static int check_fill(bench_ctx *ctx, bench_state *st) {
  return bench_check_values(ctx, st, st->arr[IN], expect_fill, 0.0, 0.0);
}

/* ref.fill_f32_u{1,4,8}[_t128][_cs]: the same fill through bench_ref.cu's kernel (U float4 stores
 * per thread, 256 or 128 threads, plain or streaming stores): what a kernel of ours would reach
 * beside the driver's fill on the GPU at hand. */
static int run_ref_fill(bench_ctx *ctx, bench_state *st) {
  const char *name = ctx->current->name;
  const int threads = strstr(name, "_t128") != NULL ? 128 : 256, cs = strstr(name, "_cs") != NULL;
  BENCH_CU(bench_ref_fill_f32(bench_case_number(ctx, "_u"), threads, cs, nd_array_data(st->arr[IN]), st->n, 1.5f,
                              ctx->cu));
  return 0;
}

/* ---- host cost of an allocation from the warm pool ----------------------------------------- */

#define ALLOC_BATCH 256

typedef struct alloc_arg {
  nd_array *a[ALLOC_BATCH];
  int64_t n; /* float32 elements: 1 MiB */
} alloc_arg;

static int alloc_pairs(bench_ctx *ctx, void *p) {
  alloc_arg *g = p;
  for (int i = 0; i < ALLOC_BATCH; i++) {
    nd_array *a;
    BENCH_ND(nd_empty(1, &g->n, ND_FLOAT32, &a));
    nd_array_release(a);
  }
  return 0;
}
static int alloc_only(bench_ctx *ctx, void *p) {
  alloc_arg *g = p;
  for (int i = 0; i < ALLOC_BATCH; i++) BENCH_ND(nd_empty(1, &g->n, ND_FLOAT32, &g->a[i]));
  return 0;
}
static int release_all(bench_ctx *ctx, void *p) {
  alloc_arg *g = p;
  (void)ctx;
  for (int i = 0; i < ALLOC_BATCH; i++) {
    nd_array_release(g->a[i]);
    g->a[i] = NULL;
  }
  return 0;
}

static int measure_alloc(bench_ctx *ctx, bench_state *st) {
  alloc_arg *g = calloc(1, sizeof *g);
  if (g == NULL) return bench_fail(ctx, "out of host memory");
  st->p = g;
  g->n = (int64_t)1 << 18;
  double med, mn;
  /* The untimed first batch of each measurement grows the pool to what the pattern needs, so
   * the timed batches allocate from cached memory. */
  if (bench_time_host(ctx, alloc_pairs, NULL, g, ALLOC_BATCH, ctx->host_batches, &med, &mn) != 0) return -1;
  bench_emit_time(ctx, "pair", "host", med, mn, ctx->host_batches, 0, "nd_empty 1 MiB + nd_array_release");
  if (bench_time_host(ctx, alloc_only, release_all, g, ALLOC_BATCH, ctx->host_batches, &med, &mn) != 0)
    return -1;
  bench_emit_time(ctx, "alloc", "host", med, mn, ctx->host_batches, 0, "nd_empty 1 MiB alone");
  /* Release alone: the allocations are made untimed before each timed batch. */
  if (alloc_only(ctx, g) != 0) return -1;
  double *t = calloc((size_t)ctx->host_batches, sizeof *t);
  if (t == NULL) return bench_fail(ctx, "out of host memory");
  int rc = 0;
  for (int b = 0; b < ctx->host_batches && rc == 0; b++) {
    double t0 = bench_now_us();
    release_all(ctx, g);
    t[b] = (bench_now_us() - t0) / ALLOC_BATCH;
    if (cudaDeviceSynchronize() != cudaSuccess) rc = bench_fail(ctx, "cudaDeviceSynchronize failed");
    if (rc == 0) rc = alloc_only(ctx, g);
  }
  release_all(ctx, g);
  if (rc == 0) {
    int h = ctx->host_batches;
    double mn_r;
    bench_median_min(t, h, &med, &mn_r);
    bench_emit_time(ctx, "release", "host", med, mn_r, h, 0, "nd_array_release of a 1 MiB array");
  }
  free(t);
  return rc;
}

static void teardown_alloc(bench_ctx *ctx, bench_state *st) {
  (void)ctx;
  if (st->p) release_all(ctx, st->p);
  free(st->p);
  st->p = NULL;
}

/* ---- the table ----------------------------------------------------------------------------- */

const bench_case bench_core_cases[] = {
    /* name,                      setup,           run,           check,           teardown,       measure */
    {"core.copy_f32",             setup_copy,      run_copy,      check_exact,     NULL,           NULL},
    {"core.astype_f32_f64",       setup_f64,       run_f64,       check_exact,     NULL,           NULL},
    {"core.astype_f32_f16",       setup_f16,       run_f16,       check_f16,       NULL,           NULL},
    {"core.transpose_copy_f32",   setup_transpose, run_transpose, check_transpose, NULL,           NULL},
    {"core.fill_f32",             setup_fill,      run_fill,      check_fill,      NULL,           NULL},
    {"ref.fill_f32_u1",           setup_fill,      run_ref_fill,  check_fill,      NULL,           NULL},
    {"ref.fill_f32_u4",           setup_fill,      run_ref_fill,  check_fill,      NULL,           NULL},
    {"ref.fill_f32_u8",           setup_fill,      run_ref_fill,  check_fill,      NULL,           NULL},
    {"ref.fill_f32_u4_t128",      setup_fill,      run_ref_fill,  check_fill,      NULL,           NULL},
    {"ref.fill_f32_u1_cs",        setup_fill,      run_ref_fill,  check_fill,      NULL,           NULL},
    {"ref.fill_f32_u4_cs",        setup_fill,      run_ref_fill,  check_fill,      NULL,           NULL},
    {"core.alloc_1MiB",           NULL,            NULL,          NULL,            teardown_alloc, measure_alloc},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
