/* nd_bench --sweep: how the cost of a few operations grows with their size (issue 26).
 *
 * For each operation and size in the tables below (the same in bench/sweep.py, which runs the
 * CuPy and PyTorch side), the median and minimum device time of one call, timed as nd_bench's
 * device cases (CUDA events on the harness stream, warm-up first). The number of timed runs
 * adapts to the size: one timed call estimates it, then as many runs as fit in about 0.1 s,
 * at least 3 and at most --reps. Inputs are the random block (bench_random_f32); inverses run
 * in unchecked mode on random matrices, as nd_bench's batched inverse cases. The sweep only
 * times: the operations' results are checked by nd_bench's cases and the test suites.
 *
 * CSV (--out): '# key: value' lines (tool, device, date, copy_gbps: the copy ceiling measured
 * first, launch_us: the least device time of 51 empty <<<1,1>>> launches, each between two
 * events, and launch_median_us their median), then
 *   tool,op,size,median_us,min_us,reps,bytes,flops
 * with bytes the device bytes read + written by one call (0 where not meaningful) and flops
 * the arithmetic of one call (0 for the bandwidth-bound ones). bench/plot_sweep.py draws it. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum sw_kind { SW_ADD, SW_SUM, SW_SORT, SW_ARGSORT, SW_SORT_ROWS, SW_SORT_ROW_LEN, SW_ARGSORT_ROW_LEN, SW_INV8, SW_INV32, SW_MATMUL };

typedef struct sw_op {
  const char *name;
  int kind;
  const int64_t *sizes; /* ended by 0 */
  int64_t quick_max;    /* --quick: sizes up to this */
} sw_op;

static const int64_t sw_elems[] = {1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26,
                                   1 << 28, 0};
/* sorts: also 2^13 and 2^15 keys, each side of the one-block sorts' largest tile (16384) */
static const int64_t sw_sort[] = {1 << 10, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16, 1 << 18,
                                  1 << 20, 1 << 22, 1 << 24, 1 << 26, 0};
/* keys per row of 10^4 rows: each side of the one-block row sorts' threshold and tiles */
static const int64_t sw_row_len[] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 0};
static const int64_t sw_batch[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 0};
static const int64_t sw_order[] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 0};

/* The same operations, names and sizes as bench/sweep.py. */
static const sw_op sw_ops[] = {
    {"add_f32", SW_ADD, sw_elems, 1 << 22},
    {"sum_f32", SW_SUM, sw_elems, 1 << 22},
    {"sort_f32", SW_SORT, sw_sort, 1 << 20},
    {"argsort_f32", SW_ARGSORT, sw_sort, 1 << 20},
    {"sort_rows_1024_f32", SW_SORT_ROWS, sw_batch, 10000},
    {"sort_rows_f32", SW_SORT_ROW_LEN, sw_row_len, 1024},
    {"argsort_rows_f32", SW_ARGSORT_ROW_LEN, sw_row_len, 1024},
    {"inv_8x8_f32", SW_INV8, sw_batch, 10000},
    {"inv_32x32_f32", SW_INV32, sw_batch, 10000},
    {"matmul_f32", SW_MATMUL, sw_order, 1024},
};

typedef struct sw_arg {
  int kind;
  nd_array *a, *b, *out;
} sw_arg;

static int sw_once(bench_ctx *ctx, void *p) {
  sw_arg *g = p;
  nd_array_release(g->out); /* the previous output goes back to the pool first */
  g->out = NULL;
  switch (g->kind) {
    case SW_ADD: BENCH_ND(nd_add(g->a, g->b, NULL, &g->out)); break;
    case SW_SUM: BENCH_ND(nd_sum(g->a, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &g->out)); break;
    case SW_SORT:
    case SW_SORT_ROWS:
    case SW_SORT_ROW_LEN: BENCH_ND(nd_sort(g->a, -1, &g->out)); break;
    case SW_ARGSORT:
    case SW_ARGSORT_ROW_LEN: BENCH_ND(nd_argsort(g->a, -1, &g->out)); break;
    case SW_INV8:
    case SW_INV32: BENCH_ND(nd_linalg_inv_ex(g->a, ND_LINALG_UNCHECKED, &g->out, NULL)); break;
    default: BENCH_ND(nd_matmul(g->a, g->b, &g->out)); break;
  }
  return 0;
}

/* bytes and flops of one call */
static void sw_cost(int kind, int64_t size, int64_t *bytes, double *flops) {
  const double s = (double)size;
  *flops = 0;
  switch (kind) {
    case SW_ADD: *bytes = 12 * size; break;
    case SW_SUM: *bytes = 4 * size + 4; break;
    case SW_SORT: *bytes = 8 * size; break;
    case SW_ARGSORT: *bytes = 12 * size; break; /* float32 keys in, int64 indices out */
    case SW_SORT_ROWS: *bytes = 8 * 1024 * size; break;
    case SW_SORT_ROW_LEN: *bytes = 8 * 10000 * size; break;
    case SW_ARGSORT_ROW_LEN: *bytes = 12 * 10000 * size; break;
    case SW_INV8: *bytes = 2 * size * 64 * 4; *flops = 2.0 * 512 * s; break;
    case SW_INV32: *bytes = 2 * size * 1024 * 4; *flops = 2.0 * 32768 * s; break;
    default: *bytes = 12 * size * size; *flops = 2.0 * s * s * s; break;
  }
}

static int sw_setup(bench_ctx *ctx, sw_arg *g, int64_t size) {
  int64_t shape[3];
  switch (g->kind) {
    case SW_ADD:
      shape[0] = size;
      if (bench_random_f32(ctx, 1, shape, &g->a) != 0 || bench_random_f32(ctx, 1, shape, &g->b) != 0) return -1;
      return 0;
    case SW_SUM:
    case SW_SORT:
    case SW_ARGSORT:
      shape[0] = size;
      return bench_random_f32(ctx, 1, shape, &g->a);
    case SW_SORT_ROWS: /* size rows of 1024 keys, each sorted */
      shape[0] = size;
      shape[1] = 1024;
      return bench_random_f32(ctx, 2, shape, &g->a);
    case SW_SORT_ROW_LEN: /* 10^4 rows of size keys, each sorted */
    case SW_ARGSORT_ROW_LEN:
      shape[0] = 10000;
      shape[1] = size;
      return bench_random_f32(ctx, 2, shape, &g->a);
    case SW_INV8:
    case SW_INV32:
      shape[0] = size;
      shape[1] = shape[2] = g->kind == SW_INV8 ? 8 : 32;
      return bench_random_f32(ctx, 3, shape, &g->a);
    default:
      shape[0] = shape[1] = size;
      if (bench_random_f32(ctx, 2, shape, &g->a) != 0 || bench_random_f32(ctx, 2, shape, &g->b) != 0) return -1;
      return 0;
  }
}

/* The device time of an empty one-thread launch between two events: the floor of any call. The
 * least of the runs is the floor (the median moved from 4.7 to 12.4 us between two H200 runs,
 * above the library's own calls of that run). */
typedef struct sw_bare {
  float *p;
} sw_bare;

static int sw_bare_once(bench_ctx *ctx, void *p) {
  BENCH_CU(bench_bare_fill_f32(((sw_bare *)p)->p, 0, 0.0f, ctx->cu));
  return 0;
}

/* Whether name is one of the nops names in ops (none: every name). */
static int sw_listed(const char *const *ops, int nops, const char *name) {
  for (int i = 0; i < nops; i++)
    if (strcmp(ops[i], name) == 0) return 1;
  return nops == 0;
}

int bench_sweep(bench_ctx *ctx, FILE *out, const char *const *ops, int nops) {
  int failures = 0;
  for (int i = 0; i < nops; i++) { /* every listed name must be an operation */
    int known = 0;
    for (size_t o = 0; o < sizeof sw_ops / sizeof sw_ops[0]; o++) known |= strcmp(ops[i], sw_ops[o].name) == 0;
    if (!known) {
      fprintf(stderr, "nd_bench --sweep-ops: no operation '%s'\n", ops[i]);
      failures++;
    }
  }
  double launch_median = NAN, launch_min = NAN;
  sw_bare bare = {NULL};
  if (cudaMalloc((void **)&bare.p, sizeof(float)) == cudaSuccess &&
      bench_time_device(ctx, sw_bare_once, &bare, ctx->warmup, 51, &launch_median, &launch_min) != 0)
    failures++;
  (void)cudaFree(bare.p);
  printf("launch floor (empty <<<1,1>>> between two events): %.2f us least, %.2f us median\n\n", launch_min,
         launch_median);
  printf("%-16s %12s %12s %12s %5s %10s\n", "op", "size", "median_us", "min_us", "reps", "GB/s|TF/s");
  if (out) {
    fprintf(out, "# launch_us: %.3f\n# launch_median_us: %.3f\n# copy_gbps: %.2f\n", launch_min, launch_median,
            ctx->copy_gbps);
    fprintf(out, "tool,op,size,median_us,min_us,reps,bytes,flops\n");
  }
  for (size_t o = 0; o < sizeof sw_ops / sizeof sw_ops[0]; o++) {
    const sw_op *op = &sw_ops[o];
    if (!sw_listed(ops, nops, op->name)) continue;
    for (const int64_t *sz = op->sizes; *sz; sz++) {
      if (ctx->quick && *sz > op->quick_max) break;
      sw_arg g = {op->kind, NULL, NULL, NULL};
      double med = NAN, mn = NAN, est = NAN;
      int reps = 0;
      int rc = sw_setup(ctx, &g, *sz);
      if (rc == 0) rc = bench_time_device(ctx, sw_once, &g, 1, 1, &est, &mn);
      if (rc == 0) {
        double r = 1e5 / (est > 1 ? est : 1);
        reps = r < 3 ? 3 : r > ctx->reps ? ctx->reps : (int)r;
        rc = bench_time_device(ctx, sw_once, &g, ctx->warmup, reps, &med, &mn);
      }
      nd_array_release(g.a);
      nd_array_release(g.b);
      nd_array_release(g.out);
      (void)cudaDeviceSynchronize();
      int64_t bytes;
      double flops;
      sw_cost(op->kind, *sz, &bytes, &flops);
      if (rc != 0) {
        failures++;
        fprintf(stderr, "sweep %s %lld: failed (see above)\n", op->name, (long long)*sz);
        continue;
      }
      const double rate = flops > 0 ? flops / (med * 1e-6) / 1e12 : (double)bytes / (med * 1e-6) / 1e9;
      printf("%-16s %12lld %12.2f %12.2f %5d %10.2f\n", op->name, (long long)*sz, med, mn, reps, rate);
      fflush(stdout);
      if (out) {
        fprintf(out, "ndcuda,%s,%lld,%.3f,%.3f,%d,%lld,%.6g\n", op->name, (long long)*sz, med, mn, reps,
                (long long)bytes, flops);
        fflush(out);
      }
    }
  }
  return failures;
}
