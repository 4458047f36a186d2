/* Benchmark cases of streams and automatic cross-stream ordering (issue 4).
 *
 * - stream.tiny_fill: host time per op of a same-stream chain of nd_array_fill on a 1-element
 *   float32 array (per_op: a four-byte value, which the library writes with the driver's
 *   cuMemsetD32Async) and on a 1-element float64 array (per_op_kernel: its store kernel), next
 *   to the bare launch of an equivalent kernel (runtime <<<>>>, and the driver's cuLaunchKernel
 *   with the kernel's handle), a bare 4-byte cudaMemsetAsync and a bare cuMemsetD32Async on
 *   the same stream; the .overhead row is per_op_kernel minus the bare <<<>>> kernel, the cost
 *   of argument checks, dispatch and hazard tracking, as the median of the differences of
 *   paired batches (one of each, back to back); .overhead_vs_driver the same against the
 *   driver launch, .overhead_memset per_op against the bare cuMemsetD32Async.
 * - stream.handoff: host time per fill of a 1024-element array when consecutive fills
 *   alternate between two streams (each fill waits for the other stream's write) against the
 *   same loop on one stream; .extra is the difference, the cost of one hand-off.
 * - stream.pipeline: a host -> device -> host pipeline in chunks, on 4 streams against 1.
 *
 * Host-clock cases time batches of PER_BATCH operations with no synchronisation inside a
 * batch (a chain on the stream) and synchronise the device between batches, so the launch
 * queue never fills and the host cost, not the device's, is what is measured. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PER_BATCH 256

/* ---- tiny ops: tracking overhead ---------------------------------------------------------- */

typedef struct tiny_arg {
  nd_array *a; /* 1 float32: nd_array_fill takes the driver's cuMemsetD32Async */
  nd_array *k; /* 1 float64: an eight-byte value, nd_array_fill launches its store kernel */
  float *ptr;
} tiny_arg;

static int tiny_nd(bench_ctx *ctx, void *p) {
  tiny_arg *g = p;
  for (int i = 0; i < PER_BATCH; i++) BENCH_ND(nd_array_fill(g->a, nd_scalar_float(2.5)));
  return 0;
}
static int tiny_nd_kernel(bench_ctx *ctx, void *p) {
  tiny_arg *g = p;
  for (int i = 0; i < PER_BATCH; i++) BENCH_ND(nd_array_fill(g->k, nd_scalar_float(2.5)));
  return 0;
}
static int tiny_bare_memset_d32(bench_ctx *ctx, void *p) {
  tiny_arg *g = p;
  const float v = 2.5f;
  unsigned bits;
  memcpy(&bits, &v, sizeof bits);
  for (int i = 0; i < PER_BATCH; i++) BENCH_CU(bench_bare_memset_d32(g->ptr, 1, bits, ctx->cu));
  return 0;
}
static int tiny_bare_kernel(bench_ctx *ctx, void *p) {
  tiny_arg *g = p;
  for (int i = 0; i < PER_BATCH; i++) BENCH_CU(bench_bare_fill_f32(g->ptr, 1, 2.5f, ctx->cu));
  return 0;
}
static int tiny_bare_driver(bench_ctx *ctx, void *p) {
  tiny_arg *g = p;
  for (int i = 0; i < PER_BATCH; i++) BENCH_CU(bench_bare_fill_f32_driver(g->ptr, 1, 2.5f, ctx->cu));
  return 0;
}
static int tiny_bare_memset(bench_ctx *ctx, void *p) {
  tiny_arg *g = p;
  for (int i = 0; i < PER_BATCH; i++) BENCH_CU(cudaMemsetAsync(g->ptr, 0, sizeof(float), ctx->cu));
  return 0;
}

/* Reads every element back (float32 or float64) and compares: the fills must have happened. */
static int tiny_expect(bench_ctx *ctx, const nd_array *a, float want) {
  const int64_t n = nd_array_size(a);
  const int f64 = nd_array_dtype(a) == ND_FLOAT64;
  const size_t isz = f64 ? sizeof(double) : sizeof(float);
  void *buf = malloc((size_t)n * isz);
  if (buf == NULL) return bench_fail(ctx, "out of host memory");
  nd_status st = nd_array_to_host(a, buf, (size_t)n * isz);
  int64_t bad = -1;
  double seen = want;
  for (int64_t i = 0; st == ND_OK && i < n && bad < 0; i++) {
    const double v = f64 ? ((const double *)buf)[i] : (double)((const float *)buf)[i];
    if (v != (double)want) {
      bad = i;
      seen = v;
    }
  }
  free(buf);
  BENCH_ND(st);
  if (bad >= 0) return bench_fail(ctx, "check: element %lld is %g, expected %g", (long long)bad, seen, (double)want);
  return 0;
}

/* The overhead from paired batches: each round times a library batch and a bare batch back to
 * back (in alternating order) and keeps their difference, so slow drifts of the host (clock,
 * other load) that separate two medians cancel; the median difference over 4 nb + 1 rounds is
 * the figure. */
static int paired_overhead(bench_ctx *ctx, tiny_arg *g, int (*op)(bench_ctx *, void *),
                           int (*bare)(bench_ctx *, void *), int nb, double *med) {
  const int rounds = 4 * nb + 1;
  double *diff = malloc((size_t)rounds * sizeof *diff);
  if (diff == NULL) return bench_fail(ctx, "out of host memory");
  for (int r = -1; r < rounds; r++) {
    double t[2];
    for (int h = 0; h < 2; h++) {
      const int lib = (h == 0) == (r % 2 == 0);
      double t0 = bench_now_us();
      int rc = lib ? op(ctx, g) : bare(ctx, g);
      double t1 = bench_now_us();
      cudaError_t e = cudaDeviceSynchronize();
      if (rc != 0 || e != cudaSuccess) {
        free(diff);
        return rc != 0 ? -1 : bench_fail_cuda(ctx, e, "cudaDeviceSynchronize", __FILE__, __LINE__);
      }
      t[lib] = (t1 - t0) / PER_BATCH;
    }
    if (r >= 0) diff[r] = t[1] - t[0];
  }
  double mn;
  bench_median_min(diff, rounds, med, &mn);
  free(diff);
  return 0;
}

static int measure_tiny(bench_ctx *ctx, bench_state *st) {
  int64_t one = 1;
  BENCH_ND(nd_empty(1, &one, ND_FLOAT32, &st->arr[0]));
  BENCH_ND(nd_empty(1, &one, ND_FLOAT64, &st->arr[1]));
  tiny_arg g = {st->arr[0], st->arr[1], nd_array_data(st->arr[0])};
  double nd_med, nd_min, nk_med, nk_min, k_med, k_min, m_med, m_min, md_med, md_min;
  int nb = ctx->host_batches;
  char note[BENCH_NOTE_MAX];

  BENCH_ND(nd_array_fill(g.a, nd_scalar_float(-1.0)));
  if (bench_time_host(ctx, tiny_nd, NULL, &g, PER_BATCH, nb, &nd_med, &nd_min) != 0) return -1;
  if (tiny_expect(ctx, g.a, 2.5f) != 0) return -1;
  snprintf(note, sizeof note, "nd_array_fill on 1 float32 (a driver memset), chains of %d on one stream", PER_BATCH);
  bench_emit_time(ctx, "per_op", "host", nd_med, nd_min, nb, 0, note);

  BENCH_ND(nd_array_fill(g.k, nd_scalar_float(-1.0)));
  if (bench_time_host(ctx, tiny_nd_kernel, NULL, &g, PER_BATCH, nb, &nk_med, &nk_min) != 0) return -1;
  if (tiny_expect(ctx, g.k, 2.5f) != 0) return -1;
  snprintf(note, sizeof note, "nd_array_fill on 1 float64 (its store kernel), chains of %d on one stream", PER_BATCH);
  bench_emit_time(ctx, "per_op_kernel", "host", nk_med, nk_min, nb, 0, note);

  /* The bare baselines write the buffer behind the library's back: fine here, nothing else
   * uses it, and everything is on the one stream. */
  BENCH_ND(nd_array_fill(g.a, nd_scalar_float(-1.0)));
  BENCH_CU(cudaStreamSynchronize(ctx->cu));
  if (bench_time_host(ctx, tiny_bare_kernel, NULL, &g, PER_BATCH, nb, &k_med, &k_min) != 0) return -1;
  if (tiny_expect(ctx, g.a, 2.5f) != 0) return -1;
  bench_emit_time(ctx, "bare_kernel", "host", k_med, k_min, nb, 0, "<<<1,1>>> store of one float, no checks or tracking");

  if (bench_time_host(ctx, tiny_bare_memset, NULL, &g, PER_BATCH, nb, &m_med, &m_min) != 0) return -1;
  if (tiny_expect(ctx, g.a, 0.0f) != 0) return -1;
  bench_emit_time(ctx, "bare_memset", "host", m_med, m_min, nb, 0, "cudaMemsetAsync of 4 bytes");

  if (bench_time_host(ctx, tiny_bare_memset_d32, NULL, &g, PER_BATCH, nb, &md_med, &md_min) != 0) return -1;
  if (tiny_expect(ctx, g.a, 2.5f) != 0) return -1;
  bench_emit_time(ctx, "bare_memset_d32", "host", md_med, md_min, nb, 0,
                  "the driver's cuMemsetD32Async of one word, as nd_array_fill makes it");

  BENCH_ND(nd_array_fill(g.a, nd_scalar_float(-1.0)));
  BENCH_CU(cudaStreamSynchronize(ctx->cu));
  double d_med, d_min;
  if (bench_time_host(ctx, tiny_bare_driver, NULL, &g, PER_BATCH, nb, &d_med, &d_min) != 0) return -1;
  if (tiny_expect(ctx, g.a, 2.5f) != 0) return -1;
  bench_emit_time(ctx, "bare_driver", "host", d_med, d_min, nb, 0,
                  "the same kernel through cuLaunchKernel with its handle taken once");

  /* The library's own cost (checks, dispatch, hazard tracking) over the bare call of the same
   * kind: the kernel path against the bare launches, the memset path against the bare
   * driver memset. */
  double o_med, od_med, om_med;
  if (paired_overhead(ctx, &g, tiny_nd_kernel, tiny_bare_kernel, nb, &o_med) != 0) return -1;
  snprintf(note, sizeof note, "median over %d paired batches of (per_op_kernel - bare_kernel); medians "
           "apart: %.3f us (target <= 0.1 us)", 4 * nb + 1, nk_med - k_med);
  bench_emit_time(ctx, "overhead", "host", o_med, NAN, 4 * nb + 1, 0, note);
  if (paired_overhead(ctx, &g, tiny_nd_kernel, tiny_bare_driver, nb, &od_med) != 0) return -1;
  snprintf(note, sizeof note, "the same against bare_driver; medians apart: %.3f us", nk_med - d_med);
  bench_emit_time(ctx, "overhead_vs_driver", "host", od_med, NAN, 4 * nb + 1, 0, note);
  if (paired_overhead(ctx, &g, tiny_nd, tiny_bare_memset_d32, nb, &om_med) != 0) return -1;
  snprintf(note, sizeof note, "per_op (the memset path) against bare_memset_d32, paired; medians apart: %.3f us",
           nd_med - md_med);
  bench_emit_time(ctx, "overhead_memset", "host", om_med, NAN, 4 * nb + 1, 0, note);
  return 0;
}

/* ---- cross-stream hand-off ---------------------------------------------------------------- */

typedef struct handoff_arg {
  nd_array *a;
  nd_stream *s[2];
  int alternate;
} handoff_arg;

static int handoff_batch(bench_ctx *ctx, void *p) {
  handoff_arg *g = p;
  for (int i = 0; i < PER_BATCH; i++) {
    BENCH_ND(nd_stream_push(g->s[g->alternate ? i & 1 : 0]));
    nd_status st = nd_array_fill(g->a, nd_scalar_float((double)(i + 1)));
    BENCH_ND(nd_stream_pop());
    BENCH_ND(st);
  }
  return 0;
}

static int measure_handoff(bench_ctx *ctx, bench_state *st) {
  int64_t n = 1024;
  handoff_arg *g = calloc(1, sizeof *g);
  if (g == NULL) return bench_fail(ctx, "out of host memory");
  st->p = g;
  BENCH_ND(nd_empty(1, &n, ND_FLOAT32, &st->arr[0]));
  g->a = st->arr[0];
  for (int i = 0; i < 2; i++) BENCH_ND(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &g->s[i]));
  int nb = ctx->host_batches;
  double s_med, s_min, x_med, x_min;

  g->alternate = 0;
  if (bench_time_host(ctx, handoff_batch, NULL, g, PER_BATCH, nb, &s_med, &s_min) != 0) return -1;
  if (tiny_expect(ctx, g->a, (float)PER_BATCH) != 0) return -1;
  bench_emit_time(ctx, "same_stream", "host", s_med, s_min, nb, 0,
                  "push + nd_array_fill(1024 float32) + pop, always stream A");

  g->alternate = 1;
  if (bench_time_host(ctx, handoff_batch, NULL, g, PER_BATCH, nb, &x_med, &x_min) != 0) return -1;
  if (tiny_expect(ctx, g->a, (float)PER_BATCH) != 0) return -1;
  bench_emit_time(ctx, "cross_stream", "host", x_med, x_min, nb, 0,
                  "the same, alternating streams A and B: every fill waits for the other stream");
  bench_emit_time(ctx, "extra", "host", x_med - s_med, NAN, nb, 0,
                  "cross_stream minus same_stream: one hand-off (target <= 2 us)");
  return 0;
}

static void teardown_handoff(bench_ctx *ctx, bench_state *st) {
  (void)ctx;
  handoff_arg *g = st->p;
  if (g == NULL) return;
  nd_array_release(st->arr[0]); /* the buffer forgets the streams before they go */
  st->arr[0] = NULL;
  for (int i = 0; i < 2; i++) (void)nd_stream_destroy(g->s[i]);
  free(g);
  st->p = NULL;
}

/* ---- the multi-stream pipeline ------------------------------------------------------------
 *
 * Per chunk, on stream (chunk % nstreams): pinned H2D into a preallocated float32 array
 * (nd_array_from_host_async), PIPE_ROUNDS rounds of astype float32 -> float64 -> float32 (new
 * arrays from the pool, on that stream), then D2H of the result into pinned memory
 * (nd_array_to_host_async). The rounds give the kernels enough work to overlap with the copies
 * (at ~3 TB/s for the kernels and ~50 GB/s over PCIe, 8 rounds of 24 bytes per element take
 * roughly as long as the 4-byte H2D of the element). The output equals the input exactly. */

#define PIPE_STREAMS 4
#define PIPE_CHUNKS 16
#define PIPE_ROUNDS 8

typedef struct pipe_arg {
  int nstreams; /* 1 or PIPE_STREAMS for the current run */
  nd_stream *s[PIPE_STREAMS];
  int64_t n, chunk;
  float *h_in, *h_out;
  nd_array *d_in[PIPE_CHUNKS];
} pipe_arg;

static int pipe_chunk(bench_ctx *ctx, pipe_arg *g, int c) {
  size_t bytes = (size_t)g->chunk * sizeof(float);
  BENCH_ND(nd_array_from_host_async(g->d_in[c], g->h_in + c * g->chunk, bytes));
  nd_array *x = nd_array_retain(g->d_in[c]), *y = NULL;
  nd_status st = ND_OK;
  for (int r = 0; r < PIPE_ROUNDS && st == ND_OK; r++) {
    st = nd_array_astype(x, ND_FLOAT64, &y);
    nd_array_release(x);
    x = NULL;
    if (st == ND_OK) st = nd_array_astype(y, ND_FLOAT32, &x);
    nd_array_release(y);
    y = NULL;
  }
  if (st == ND_OK) st = nd_array_to_host_async(x, g->h_out + c * g->chunk, bytes);
  nd_array_release(x);
  BENCH_ND(st);
  return 0;
}

static int pipe_once(bench_ctx *ctx, void *p) {
  pipe_arg *g = p;
  if (bench_fork(ctx, g->nstreams, g->s) != 0) return -1;
  for (int c = 0; c < PIPE_CHUNKS; c++) {
    BENCH_ND(nd_stream_push(g->s[c % g->nstreams]));
    int rc = pipe_chunk(ctx, g, c);
    BENCH_ND(nd_stream_pop());
    if (rc != 0) return rc;
  }
  return bench_join(ctx, g->nstreams, g->s);
}

static int setup_pipeline(bench_ctx *ctx, bench_state *st) {
  pipe_arg *g = calloc(1, sizeof *g);
  if (g == NULL) return bench_fail(ctx, "out of host memory");
  st->p = g;
  g->n = ctx->quick ? (int64_t)1 << 22 : (int64_t)1 << 26;
  g->chunk = g->n / PIPE_CHUNKS;
  void *hin = NULL, *hout = NULL;
  BENCH_ND(nd_host_alloc_pinned((size_t)g->n * sizeof(float), &hin));
  g->h_in = hin;
  BENCH_ND(nd_host_alloc_pinned((size_t)g->n * sizeof(float), &hout));
  g->h_out = hout;
  for (int64_t i = 0; i < g->n; i++) g->h_in[i] = bench_rand_value(ctx, i);
  for (int i = 0; i < PIPE_STREAMS; i++) BENCH_ND(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &g->s[i]));
  for (int c = 0; c < PIPE_CHUNKS; c++) BENCH_ND(nd_empty(1, &g->chunk, ND_FLOAT32, &g->d_in[c]));
  return 0;
}

static int measure_pipeline(bench_ctx *ctx, bench_state *st) {
  pipe_arg *g = st->p;
  double t[2], mn[2];
  const int ns[2] = {1, PIPE_STREAMS};
  const char *names[2] = {"1stream", "4stream"};
  int64_t link_bytes = 2 * g->n * (int64_t)sizeof(float);
  char note[BENCH_NOTE_MAX];
  for (int v = 0; v < 2; v++) {
    g->nstreams = ns[v];
    if (bench_time_device(ctx, pipe_once, g, ctx->warmup, ctx->reps, &t[v], &mn[v]) != 0) return -1;
    snprintf(note, sizeof note, "%d chunks x (H2D, %d x astype f32->f64->f32, D2H) of %lld float32; GB/s over the host link",
             PIPE_CHUNKS, PIPE_ROUNDS, (long long)g->chunk);
    bench_result *r = bench_emit_time(ctx, names[v], "device", t[v], mn[v], ctx->reps, link_bytes, note);
    if (r != NULL) r->pct_copy = NAN; /* host link bytes: not comparable with the D2D copy */
  }
  bench_emit_ratio(ctx, "speedup", t[0] / t[1], "1stream / 4stream median (target >= 2)");
  return 0;
}

/* Runs each variant once more on poisoned output and compares with the input exactly. */
static int check_pipeline(bench_ctx *ctx, bench_state *st) {
  pipe_arg *g = st->p;
  const int ns[2] = {1, PIPE_STREAMS};
  for (int v = 0; v < 2; v++) {
    for (int64_t i = 0; i < g->n; i++) g->h_out[i] = NAN;
    g->nstreams = ns[v];
    if (pipe_once(ctx, g) != 0) return -1;
    BENCH_CU(cudaDeviceSynchronize());
    int64_t bad = 0;
    for (int64_t i = 0; i < g->n; i++)
      if (g->h_out[i] != g->h_in[i] && bad++ < 5)
        fprintf(stderr, "%s: check (%d streams): element %lld is %g, expected %g\n", ctx->current->name,
                ns[v], (long long)i, (double)g->h_out[i], (double)g->h_in[i]);
    if (bad) return bench_fail(ctx, "check (%d streams): %lld of %lld elements wrong", ns[v], (long long)bad, (long long)g->n);
  }
  return 0;
}

static void teardown_pipeline(bench_ctx *ctx, bench_state *st) {
  (void)ctx;
  pipe_arg *g = st->p;
  if (g == NULL) return;
  (void)cudaDeviceSynchronize();
  for (int c = 0; c < PIPE_CHUNKS; c++) nd_array_release(g->d_in[c]);
  for (int i = 0; i < PIPE_STREAMS; i++) (void)nd_stream_destroy(g->s[i]);
  (void)nd_host_free_pinned(g->h_in);
  (void)nd_host_free_pinned(g->h_out);
  free(g);
  st->p = NULL;
}

/* ---- the table ----------------------------------------------------------------------------- */

const bench_case bench_stream_cases[] = {
    /* name,               setup,          run,  check,          teardown,          measure */
    {"stream.tiny_fill",   NULL,           NULL, NULL,           NULL,              measure_tiny},
    {"stream.handoff",     NULL,           NULL, NULL,           teardown_handoff,  measure_handoff},
    {"stream.pipeline",    setup_pipeline, NULL, check_pipeline, teardown_pipeline, measure_pipeline},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
