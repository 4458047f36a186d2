/* Benchmark cases of random numbers (issue 8): bandwidth-bound fills from a Philox generator.
 *
 * - rng.uniform_f32: nd_random_random_into, 2^28 float32 uniform on [0, 1);
 * - rng.normal_f32: nd_random_standard_normal_into, 2^28 float32 standard normal;
 * - rng.integers_i32: nd_random_integers_into, 2^28 int32 uniform on [0, 1000).
 * --quick: 2^24. bytes = 4 n (written; nothing is read).
 *
 * Each case creates one Philox generator (the default bit generator) with a fixed seed in setup
 * and fills a preallocated C-contiguous output, so a run is one fill and no allocation. Every
 * repetition advances the generator, as consecutive calls of a user's code do. The output is
 * first filled with a value no fill can produce (NaN, or -1 for the integers), so that an
 * element a fill skipped is caught. check() downloads the first and the last 2^20 values and
 * tests the range (every value in [0, 1), finite normals within Box-Muller's reach of 6.7
 * sigma, integers in [0, 1000) with both ends hit), and the sample mean and variance within
 * 5 standard errors of the distribution's. bench/cupy_bench.py mirrors each case. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slot in bench_state.arr. */
enum { OUT = 0 };

#define RNG_SEED UINT64_C(20260801)
#define RNG_SAMPLE ((int64_t)1 << 20)
#define RNG_INT_HIGH 1000

typedef enum rng_kind { RNG_UNIFORM, RNG_NORMAL, RNG_INTEGERS } rng_kind;

static int64_t rng_n(const bench_ctx *ctx) { return ctx->quick ? (int64_t)1 << 24 : (int64_t)1 << 28; }

static int rng_setup(bench_ctx *ctx, bench_state *st, nd_dtype dt) {
  nd_generator *gen = NULL;
  BENCH_ND(nd_generator_create(RNG_SEED, ND_BITGEN_PHILOX, &gen));
  st->p = gen;
  st->n = rng_n(ctx);
  st->bytes = st->n * 4;
  BENCH_ND(nd_empty(1, &st->n, dt, &st->arr[OUT]));
  BENCH_ND(nd_array_fill(st->arr[OUT], dt == ND_INT32 ? nd_scalar_int(-1) : nd_scalar_float(NAN)));
  return 0;
}

static int setup_uniform(bench_ctx *ctx, bench_state *st) { return rng_setup(ctx, st, ND_FLOAT32); }
static int setup_normal(bench_ctx *ctx, bench_state *st) { return rng_setup(ctx, st, ND_FLOAT32); }
static int setup_integers(bench_ctx *ctx, bench_state *st) { return rng_setup(ctx, st, ND_INT32); }

static void rng_teardown(bench_ctx *ctx, bench_state *st) {
  (void)ctx;
  nd_generator_destroy(st->p);
  st->p = NULL;
}

static int run_uniform(bench_ctx *ctx, bench_state *st) {
  BENCH_ND(nd_random_random_into(st->p, st->arr[OUT]));
  return 0;
}
static int run_normal(bench_ctx *ctx, bench_state *st) {
  BENCH_ND(nd_random_standard_normal_into(st->p, st->arr[OUT]));
  return 0;
}
static int run_integers(bench_ctx *ctx, bench_state *st) {
  BENCH_ND(nd_random_integers_into(st->p, nd_scalar_int(0), nd_scalar_int(RNG_INT_HIGH), 0, st->arr[OUT]));
  return 0;
}

/* ---- checks -------------------------------------------------------------------------------- */

/* Downloads out[start, start + count) (4-byte elements) into host. */
static int rng_fetch(bench_ctx *ctx, const nd_array *out, int64_t start, int64_t count, void *host) {
  nd_slice s = {start, start + count, 1};
  nd_array *view = NULL;
  BENCH_ND(nd_array_slice(out, 1, &s, &view));
  nd_status rc = nd_array_to_host(view, host, (size_t)count * 4);
  nd_array_release(view);
  BENCH_ND(rc);
  return 0;
}

/* Mean and variance of the sample against the distribution's (mean mu, variance var, fourth
 * central moment mu4): within 5 standard errors, sqrt(var / m) for the mean and
 * sqrt((mu4 - var^2) / m) for the variance. */
static int rng_moments(bench_ctx *ctx, const char *what, const double *x, int64_t m, double mu,
                       double var, double mu4) {
  double sum = 0.0;
  for (int64_t i = 0; i < m; i++) sum += x[i];
  const double mean = sum / (double)m;
  double ss = 0.0;
  for (int64_t i = 0; i < m; i++) ss += (x[i] - mean) * (x[i] - mean);
  const double v = ss / (double)(m - 1);
  const double se_mean = sqrt(var / (double)m), se_var = sqrt((mu4 - var * var) / (double)m);
  if (!(fabs(mean - mu) <= 5.0 * se_mean))
    return bench_fail(ctx, "check: %s: sample mean %.6g, expected %.6g within %.3g", what, mean, mu,
                      5.0 * se_mean);
  if (!(fabs(v - var) <= 5.0 * se_var))
    return bench_fail(ctx, "check: %s: sample variance %.6g, expected %.6g within %.3g", what, v, var,
                      5.0 * se_var);
  return 0;
}

static int rng_check(bench_ctx *ctx, bench_state *st, rng_kind kind) {
  const int64_t n = st->n, m = n < RNG_SAMPLE ? n : RNG_SAMPLE;
  const int64_t starts[2] = {0, n - m};
  void *raw = malloc((size_t)m * 4);
  double *x = malloc((size_t)m * sizeof *x);
  int rc = raw != NULL && x != NULL ? 0 : bench_fail(ctx, "check: out of host memory");
  for (int part = 0; part < 2 && rc == 0; part++) {
    const char *where = part == 0 ? "first values" : "last values";
    rc = rng_fetch(ctx, st->arr[OUT], starts[part], m, raw);
    if (rc != 0) break;
    int64_t lo_hits = 0, hi_hits = 0;
    for (int64_t i = 0; i < m && rc == 0; i++) {
      int ok;
      if (kind == RNG_INTEGERS) {
        const int32_t v = ((const int32_t *)raw)[i];
        ok = v >= 0 && v < RNG_INT_HIGH;
        lo_hits += v == 0;
        hi_hits += v == RNG_INT_HIGH - 1;
        x[i] = v;
      } else {
        const float v = ((const float *)raw)[i];
        ok = kind == RNG_UNIFORM ? v >= 0.0f && v < 1.0f : fabsf(v) <= 6.8f; /* NaN fails both */
        x[i] = v;
      }
      if (!ok)
        rc = bench_fail(ctx, "check: element %lld = %.9g is outside the distribution's range",
                        (long long)(starts[part] + i), x[i]);
    }
    if (rc != 0) break;
    if (kind == RNG_UNIFORM) {
      rc = rng_moments(ctx, where, x, m, 0.5, 1.0 / 12.0, 1.0 / 80.0);
    } else if (kind == RNG_NORMAL) {
      rc = rng_moments(ctx, where, x, m, 0.0, 1.0, 3.0);
    } else {
      /* Discrete uniform on k values: variance (k^2 - 1) / 12, fourth central moment
       * (k^2 - 1)(3 k^2 - 7) / 240. With 2^20 draws each end is expected ~1000 times. */
      const double k = RNG_INT_HIGH;
      rc = rng_moments(ctx, where, x, m, (k - 1.0) / 2.0, (k * k - 1.0) / 12.0,
                       (k * k - 1.0) * (3.0 * k * k - 7.0) / 240.0);
      if (rc == 0 && (lo_hits == 0 || hi_hits == 0))
        rc = bench_fail(ctx, "check: %s: 0 drawn %lld times and %d drawn %lld times", where,
                        (long long)lo_hits, RNG_INT_HIGH - 1, (long long)hi_hits);
    }
  }
  free(raw);
  free(x);
  return rc;
}

static int check_uniform(bench_ctx *ctx, bench_state *st) { return rng_check(ctx, st, RNG_UNIFORM); }
static int check_normal(bench_ctx *ctx, bench_state *st) { return rng_check(ctx, st, RNG_NORMAL); }
static int check_integers(bench_ctx *ctx, bench_state *st) { return rng_check(ctx, st, RNG_INTEGERS); }

/* ---- the table ----------------------------------------------------------------------------- */

const bench_case bench_random_cases[] = {
    /* name,               setup,          run,          check,          teardown,     measure */
    {"rng.uniform_f32",    setup_uniform,  run_uniform,  check_uniform,  rng_teardown, NULL},
    {"rng.normal_f32",     setup_normal,   run_normal,   check_normal,   rng_teardown, NULL},
    {"rng.integers_i32",   setup_integers, run_integers, check_integers, rng_teardown, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
