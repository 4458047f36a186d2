/* Benchmark cases of elementwise math (issue 5).
 *
 * - ew.add_f32, ew.multiply_f32: two float32 vectors of 2^28 elements, bytes 3 x 4 x n.
 *   ew.add_f32_n22: the add over 2^22 elements (48 MB, within the L2 cache of an H100 or
 *   H200; the size sweep had ndcuda 2-4% behind PyTorch there).
 * - ew.exp_f32, ew.sin_f32: one float32 vector of 2^28 elements in [-1, 1), bytes 2 x 4 x n.
 * - ew.add_row_f32: a 16384 x 16384 float32 matrix plus a (16384,) row broadcast along the
 *   rows; bytes 4 x (2 x 16384^2 + 16384) (the row is counted once).
 * - ew.add_transposed_f32: a C-ordered 16384 x 16384 float32 matrix plus the transposed view
 *   of another; bytes 3 x 4 x 16384^2.
 * - ew.add_small_host: host time per nd_add of two 1000-element float32 vectors with out NULL
 *   (the result is allocated and released in every operation), in chains of 256 on one stream.
 * - ref.exp_f32_u1/_u2/_u8, ref.sin_f32_u1/_u2/_u8: the same exp and sin through a
 *   reference kernel (bench_ref.cu: the library's vec path reduced to its loads, math and
 *   stores) with 1, 2 or 8 float4 per thread, into an output allocated once; checked as the
 *   library's. What the math reaches on the GPU at hand; CuPy and PyTorch have no such rows.
 * --quick: 2^24 elements and 4096 x 4096 matrices.
 *
 * Every device case allocates its output inside run() (out NULL, as a user's call) and releases
 * the previous repetition's output first, so the pool hands back the same memory. The second
 * operand of the vector additions and products is the square of the first (computed once in
 * setup), so that an operand read twice or in place of the other shows in the check; the
 * expected sums and products are computed in float32 on the host, which rounds exactly as the
 * device does (one IEEE operation each), so those checks are exact. bench/cupy_bench.py mirrors
 * each case under the same name. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slots in bench_state.arr. */
enum { A = 0, B = 1, OUT = 2, VIEW = 3 };

#define SMALL_N 1000
#define SMALL_BATCH 256

static int64_t ew_n(const bench_ctx *ctx) { return ctx->quick ? (int64_t)1 << 24 : (int64_t)1 << 28; }
static int64_t ew_side(const bench_ctx *ctx) { return ctx->quick ? 4096 : 16384; }

/* float32 operations on the host: the casts discard any excess precision, so each result is
 * the correctly rounded float32 value, as on the device. */
static float sq32(float x) { return (float)(x * x); }
static float add32(float x, float y) { return (float)(x + y); }
static float mul32(float x, float y) { return (float)(x * y); }

/* ---- contiguous binary: a and b = a * a ------------------------------------------------------ */

static int setup_pair_n(bench_ctx *ctx, bench_state *st, int64_t n) {
  st->n = n;
  if (bench_random_f32(ctx, 1, &st->n, &st->arr[A]) != 0) return -1;
  BENCH_ND(nd_square(st->arr[A], NULL, &st->arr[B]));
  st->bytes = 3 * st->n * 4;
  return 0;
}
static int setup_pair(bench_ctx *ctx, bench_state *st) { return setup_pair_n(ctx, st, ew_n(ctx)); }
static int setup_pair_n22(bench_ctx *ctx, bench_state *st) { return setup_pair_n(ctx, st, ew_n(ctx) >> 6); }

static int run_add(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_add(st->arr[A], st->arr[B], NULL, &st->arr[OUT]));
  return 0;
}
static double expect_add(const bench_ctx *ctx, const bench_state *st, int64_t i) {
  (void)st;
  const float x = bench_rand_value(ctx, i);
  return add32(x, sq32(x));
}
static int check_add(bench_ctx *ctx, bench_state *st) {
  return bench_check_values(ctx, st, st->arr[OUT], expect_add, 0.0, 0.0);
}

static int run_multiply(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_multiply(st->arr[A], st->arr[B], NULL, &st->arr[OUT]));
  return 0;
}
static double expect_multiply(const bench_ctx *ctx, const bench_state *st, int64_t i) {
  (void)st;
  const float x = bench_rand_value(ctx, i);
  return mul32(x, sq32(x));
}
static int check_multiply(bench_ctx *ctx, bench_state *st) {
  return bench_check_values(ctx, st, st->arr[OUT], expect_multiply, 0.0, 0.0);
}

/* ---- contiguous unary math ------------------------------------------------------------------- */

/* CUDA's expf and sinf are within 2 ulp (CUDA Math API); 4 ulp of relative slack. */
#define MATH_REL_TOL (4.0 / 8388608.0)

static int setup_unary(bench_ctx *ctx, bench_state *st) {
  st->n = ew_n(ctx);
  if (bench_random_f32(ctx, 1, &st->n, &st->arr[A]) != 0) return -1;
  st->bytes = 2 * st->n * 4;
  return 0;
}

static int run_exp(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_exp(st->arr[A], NULL, &st->arr[OUT]));
  return 0;
}
static double expect_exp(const bench_ctx *ctx, const bench_state *st, int64_t i) {
  (void)st;
  return exp((double)bench_rand_value(ctx, i));
}
static int check_exp(bench_ctx *ctx, bench_state *st) {
  return bench_check_values(ctx, st, st->arr[OUT], expect_exp, MATH_REL_TOL, 0.0);
}

static int run_sin(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_sin(st->arr[A], NULL, &st->arr[OUT]));
  return 0;
}
static double expect_sin(const bench_ctx *ctx, const bench_state *st, int64_t i) {
  (void)st;
  return sin((double)bench_rand_value(ctx, i));
}
static int check_sin(bench_ctx *ctx, bench_state *st) {
  return bench_check_values(ctx, st, st->arr[OUT], expect_sin, MATH_REL_TOL, 0.0);
}

/* ---- a matrix plus a broadcast row ------------------------------------------------------------ */

static int setup_row(bench_ctx *ctx, bench_state *st) {
  st->n = ew_side(ctx);
  int64_t shape[2] = {st->n, st->n};
  if (bench_random_f32(ctx, 2, shape, &st->arr[A]) != 0) return -1;
  if (bench_random_f32(ctx, 1, &st->n, &st->arr[B]) != 0) return -1;
  st->bytes = 4 * (2 * st->n * st->n + st->n);
  return 0;
}
/* out[i][j] = a[i][j] + row[j]. */
static double expect_row(const bench_ctx *ctx, const bench_state *st, int64_t k) {
  return add32(bench_rand_value(ctx, k), bench_rand_value(ctx, k % st->n));
}
static int check_row(bench_ctx *ctx, bench_state *st) {
  return bench_check_values(ctx, st, st->arr[OUT], expect_row, 0.0, 0.0);
}

/* ---- a matrix plus the transpose of another --------------------------------------------------- */

static int setup_transposed(bench_ctx *ctx, bench_state *st) {
  st->n = ew_side(ctx);
  int64_t shape[2] = {st->n, st->n};
  if (bench_random_f32(ctx, 2, shape, &st->arr[A]) != 0) return -1;
  if (bench_random_f32(ctx, 2, shape, &st->arr[B]) != 0) return -1;
  BENCH_ND(nd_array_transpose(st->arr[B], 0, NULL, &st->arr[VIEW]));
  st->bytes = 3 * 4 * st->n * st->n;
  return 0;
}
static int run_transposed(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_add(st->arr[A], st->arr[VIEW], NULL, &st->arr[OUT]));
  return 0;
}
/* out[i][j] = a[i][j] + b[j][i]. */
static double expect_transposed(const bench_ctx *ctx, const bench_state *st, int64_t k) {
  const int64_t n = st->n, i = k / n, j = k % n;
  return add32(bench_rand_value(ctx, k), bench_rand_value(ctx, j * n + i));
}
static int check_transposed(bench_ctx *ctx, bench_state *st) {
  if (!nd_array_is_c_contiguous(st->arr[OUT]))
    return bench_fail(ctx, "check: the sum is not C-contiguous (laid out like the first operand)");
  return bench_check_values(ctx, st, st->arr[OUT], expect_transposed, 0.0, 0.0);
}

/* ---- host time of a small add ----------------------------------------------------------------- */

typedef struct small_arg {
  nd_array *a, *b;
} small_arg;

static int small_batch(bench_ctx *ctx, void *p) {
  small_arg *g = p;
  for (int i = 0; i < SMALL_BATCH; i++) {
    nd_array *r = NULL;
    BENCH_ND(nd_add(g->a, g->b, NULL, &r));
    nd_array_release(r);
  }
  return 0;
}

static int measure_small(bench_ctx *ctx, bench_state *st) {
  if (setup_pair_n(ctx, st, SMALL_N) != 0) return -1;
  st->bytes = 0;
  small_arg g = {st->arr[A], st->arr[B]};
  double med, mn;
  if (bench_time_host(ctx, small_batch, NULL, &g, SMALL_BATCH, ctx->host_batches, &med, &mn) != 0) return -1;
  char note[BENCH_NOTE_MAX];
  snprintf(note, sizeof note, "nd_add of two %d-element float32, out NULL (allocate + launch + release), "
           "chains of %d", SMALL_N, SMALL_BATCH);
  bench_emit_time(ctx, NULL, "host", med, mn, ctx->host_batches, 0, note);
  /* One more, kept for the check. */
  BENCH_ND(nd_add(g.a, g.b, NULL, &st->arr[OUT]));
  return 0;
}

/* ---- the table -------------------------------------------------------------------------------- */

/* ---- reference kernels (bench_ref.cu) -------------------------------------------------------- */

/* The function (0 exp, 1 sin) of a reference case, from its name. */
static int ref_fn(const bench_ctx *ctx) { return strstr(ctx->current->name, "sin") != NULL; }
static int setup_ref(bench_ctx *ctx, bench_state *st) {
  if (setup_unary(ctx, st) != 0) return -1;
  BENCH_ND(nd_empty(1, &st->n, ND_FLOAT32, &st->arr[OUT]));
  return 0;
}
static int run_ref(bench_ctx *ctx, bench_state *st) {
  BENCH_CU(bench_ref_math_f32(ref_fn(ctx), bench_case_number(ctx, "_u"), nd_array_data(st->arr[A]), nd_array_data(st->arr[OUT]),
                              st->n, ctx->cu));
  return 0;
}

const bench_case bench_elementwise_cases[] = {
    /* name,                   setup,            run,            check,            teardown, measure */
    {"ew.add_f32",             setup_pair,       run_add,        check_add,        NULL,     NULL},
    {"ew.multiply_f32",        setup_pair,       run_multiply,   check_multiply,   NULL,     NULL},
    {"ew.add_f32_n22",         setup_pair_n22,   run_add,        check_add,        NULL,     NULL},
    {"ew.exp_f32",             setup_unary,      run_exp,        check_exp,        NULL,     NULL},
    {"ew.sin_f32",             setup_unary,      run_sin,        check_sin,        NULL,     NULL},
    {"ew.add_row_f32",         setup_row,        run_add,        check_row,        NULL,     NULL},
    {"ew.add_transposed_f32",  setup_transposed, run_transposed, check_transposed, NULL,     NULL},
    {"ew.add_small_host",      NULL,             NULL,           check_add,        NULL,     measure_small},
    {"ref.exp_f32_u1",      setup_ref,        run_ref,        check_exp,        NULL,     NULL},
    {"ref.exp_f32_u2",      setup_ref,        run_ref,        check_exp,        NULL,     NULL},
    {"ref.exp_f32_u8",      setup_ref,        run_ref,        check_exp,        NULL,     NULL},
    {"ref.sin_f32_u1",      setup_ref,        run_ref,        check_sin,        NULL,     NULL},
    {"ref.sin_f32_u2",      setup_ref,        run_ref,        check_sin,        NULL,     NULL},
    {"ref.sin_f32_u8",      setup_ref,        run_ref,        check_sin,        NULL,     NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
