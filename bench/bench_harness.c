/* The nd_bench harness helpers: failure reporting, CUDA-event and host-clock timing, fork and
 * join of streams, result rows, random input data and output checks. See bench.h. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- failures ------------------------------------------------------------------------------ */

static const char *bench_case_name(const bench_ctx *ctx) {
  return ctx != NULL && ctx->current != NULL ? ctx->current->name : "nd_bench";
}

int bench_fail_nd(const bench_ctx *ctx, nd_status st, const char *call, const char *file, int line) {
  fprintf(stderr, "%s: %s failed (%s:%d): %s: %s\n", bench_case_name(ctx), call, file, line,
          nd_status_name(st), nd_last_error());
  return -1;
}

int bench_fail_cuda(const bench_ctx *ctx, cudaError_t e, const char *call, const char *file, int line) {
  fprintf(stderr, "%s: %s failed (%s:%d): %s: %s\n", bench_case_name(ctx), call, file, line,
          cudaGetErrorName(e), cudaGetErrorString(e));
  (void)cudaGetLastError();
  return -1;
}

int bench_fail(const bench_ctx *ctx, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", bench_case_name(ctx));
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return -1;
}

/* ---- timing -------------------------------------------------------------------------------- */

int bench_case_number(const bench_ctx *ctx, const char *tag) {
  const char *last = NULL;
  for (const char *q = strstr(ctx->current->name, tag); q != NULL; q = strstr(q + 1, tag)) last = q;
  return last != NULL ? atoi(last + strlen(tag)) : 0;
}

double bench_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void bench_median_min(double *v, int n, double *median, double *min) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  *min = v[0];
  *median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_time_device(bench_ctx *ctx, int (*fn)(bench_ctx *, void *), void *arg, int warmup,
                      int reps, double *median_us, double *min_us) {
  if (reps < 1) reps = 1;
  int rc = -1, made = 0;
  cudaEvent_t *ev = calloc((size_t)reps * 2, sizeof *ev);
  double *t = calloc((size_t)reps, sizeof *t);
  if (ev == NULL || t == NULL) {
    bench_fail(ctx, "out of host memory");
    goto done;
  }
  for (; made < reps * 2; made++) {
    cudaError_t e = cudaEventCreate(&ev[made]);
    if (e != cudaSuccess) {
      bench_fail_cuda(ctx, e, "cudaEventCreate", __FILE__, __LINE__);
      goto done;
    }
  }
  if (cudaDeviceSynchronize() != cudaSuccess) {
    bench_fail_cuda(ctx, cudaGetLastError(), "cudaDeviceSynchronize", __FILE__, __LINE__);
    goto done;
  }
  for (int i = 0; i < warmup; i++)
    if (fn(ctx, arg) != 0) goto done;
  /* Start timing from an idle device so that warm-up work does not spill into the first
   * sample. Each repetition gets its own event pair: one synchronisation at the end. */
  if (cudaStreamSynchronize(ctx->cu) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    bench_fail_cuda(ctx, cudaGetLastError(), "synchronize after warm-up", __FILE__, __LINE__);
    goto done;
  }
  for (int i = 0; i < reps; i++) {
    cudaError_t e = cudaEventRecord(ev[2 * i], ctx->cu);
    if (e != cudaSuccess) {
      bench_fail_cuda(ctx, e, "cudaEventRecord", __FILE__, __LINE__);
      goto done;
    }
    if (fn(ctx, arg) != 0) goto done;
    e = cudaEventRecord(ev[2 * i + 1], ctx->cu);
    if (e != cudaSuccess) {
      bench_fail_cuda(ctx, e, "cudaEventRecord", __FILE__, __LINE__);
      goto done;
    }
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    bench_fail_cuda(ctx, e, "cudaDeviceSynchronize after the timed runs", __FILE__, __LINE__);
    goto done;
  }
  for (int i = 0; i < reps; i++) {
    float ms = 0;
    e = cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]);
    if (e != cudaSuccess) {
      bench_fail_cuda(ctx, e, "cudaEventElapsedTime", __FILE__, __LINE__);
      goto done;
    }
    t[i] = (double)ms * 1e3;
  }
  bench_median_min(t, reps, median_us, min_us);
  rc = 0;
done:
  if (rc != 0) (void)cudaDeviceSynchronize();
  for (int i = 0; i < made; i++) (void)cudaEventDestroy(ev[i]);
  free(ev);
  free(t);
  return rc;
}

int bench_time_host(bench_ctx *ctx, int (*batch)(bench_ctx *, void *), int (*post)(bench_ctx *, void *),
                    void *arg, int ops_per_batch, int nbatches, double *median_us, double *min_us) {
  if (nbatches < 1) nbatches = 1;
  if (ops_per_batch < 1) ops_per_batch = 1;
  double *t = calloc((size_t)nbatches, sizeof *t);
  if (t == NULL) return bench_fail(ctx, "out of host memory");
  int rc = -1;
  for (int i = -1; i < nbatches; i++) {
    double t0 = bench_now_us();
    if (batch(ctx, arg) != 0) goto done;
    double t1 = bench_now_us();
    if (i >= 0) t[i] = (t1 - t0) / ops_per_batch;
    if (post != NULL && post(ctx, arg) != 0) goto done;
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      bench_fail_cuda(ctx, e, "cudaDeviceSynchronize between batches", __FILE__, __LINE__);
      goto done;
    }
  }
  bench_median_min(t, nbatches, median_us, min_us);
  rc = 0;
done:
  free(t);
  return rc;
}

int bench_fork(bench_ctx *ctx, int n, nd_stream *const *streams) {
  cudaEvent_t ev;
  BENCH_CU(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  cudaError_t e = cudaEventRecord(ev, ctx->cu);
  for (int i = 0; i < n && e == cudaSuccess; i++)
    e = cudaStreamWaitEvent((cudaStream_t)nd_stream_cuda(streams[i]), ev, 0);
  (void)cudaEventDestroy(ev); /* pending waits keep the recorded work, as CUDA specifies */
  BENCH_CU(e);
  return 0;
}

int bench_join(bench_ctx *ctx, int n, nd_stream *const *streams) {
  for (int i = 0; i < n; i++) {
    cudaEvent_t ev;
    BENCH_CU(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    cudaError_t e = cudaEventRecord(ev, (cudaStream_t)nd_stream_cuda(streams[i]));
    if (e == cudaSuccess) e = cudaStreamWaitEvent(ctx->cu, ev, 0);
    (void)cudaEventDestroy(ev);
    BENCH_CU(e);
  }
  return 0;
}

/* ---- result rows ----------------------------------------------------------------------------- */

static bench_result *bench_new_row(bench_ctx *ctx, const char *suffix) {
  if (ctx->nresults == ctx->cap) {
    int cap = ctx->cap ? 2 * ctx->cap : 64;
    bench_result *r = realloc(ctx->results, (size_t)cap * sizeof *r);
    if (r == NULL) {
      bench_fail(ctx, "out of host memory for result rows");
      return NULL;
    }
    ctx->results = r;
    ctx->cap = cap;
  }
  bench_result *r = &ctx->results[ctx->nresults++];
  memset(r, 0, sizeof *r);
  const char *base = bench_case_name(ctx);
  if (suffix != NULL && suffix[0] != '\0') snprintf(r->name, sizeof r->name, "%s.%s", base, suffix);
  else snprintf(r->name, sizeof r->name, "%s", base);
  r->median_us = r->min_us = r->gbps = r->pct_copy = r->value = NAN;
  return r;
}

bench_result *bench_emit_time(bench_ctx *ctx, const char *suffix, const char *kind, double median_us,
                              double min_us, int reps, int64_t bytes, const char *note) {
  bench_result *r = bench_new_row(ctx, suffix);
  if (r == NULL) return NULL;
  r->kind = kind;
  r->median_us = median_us;
  r->min_us = min_us;
  r->reps = reps;
  r->bytes = bytes;
  if (bytes > 0 && median_us > 0) {
    r->gbps = (double)bytes / (median_us * 1e-6) / 1e9;
    if (ctx->copy_gbps > 0) r->pct_copy = 100.0 * r->gbps / ctx->copy_gbps;
  }
  if (note != NULL) snprintf(r->note, sizeof r->note, "%s", note);
  return r;
}

bench_result *bench_emit_ratio(bench_ctx *ctx, const char *suffix, double value, const char *note) {
  bench_result *r = bench_new_row(ctx, suffix);
  if (r == NULL) return NULL;
  r->kind = "ratio";
  r->value = value;
  if (note != NULL) snprintf(r->note, sizeof r->note, "%s", note);
  return r;
}

/* ---- data ---------------------------------------------------------------------------------- */

int bench_random_f32(bench_ctx *ctx, int ndim, const int64_t *shape, nd_array **out) {
  nd_array *a = NULL, *flat = NULL, *block = NULL;
  BENCH_ND(nd_empty(ndim, shape, ND_FLOAT32, &a));
  int64_t n = nd_array_size(a);
  int rc = -1;
  nd_status st = nd_array_reshape(a, 1, &n, &flat);
  int64_t bn = n < ctx->rand_block_n ? n : ctx->rand_block_n;
  if (st == ND_OK && bn > 0)
    st = nd_array_from_host(ctx->rand_block, (size_t)bn * sizeof(float), 1, &bn, ND_FLOAT32, &block);
  /* Repeat the block with copies into slices: every element is written, the last slice may
   * be a partial block. */
  for (int64_t start = 0; st == ND_OK && start < n; start += bn) {
    int64_t len = n - start < bn ? n - start : bn;
    nd_slice dsl = {start, start + len, 1}, ssl = {0, len, 1};
    nd_array *dv = NULL, *sv = NULL;
    st = nd_array_slice(flat, 1, &dsl, &dv);
    if (st == ND_OK) st = nd_array_slice(block, 1, &ssl, &sv);
    if (st == ND_OK) st = nd_copyto(dv, sv, ND_CASTING_NO);
    nd_array_release(dv);
    nd_array_release(sv);
  }
  if (st != ND_OK) {
    bench_fail_nd(ctx, st, "bench_random_f32", __FILE__, __LINE__);
  } else {
    *out = a;
    a = NULL;
    rc = 0;
  }
  nd_array_release(block);
  nd_array_release(flat);
  nd_array_release(a);
  return rc;
}

double bench_half_to_double(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0) v = ldexp((double)man, -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = ldexp((double)(man | 0x400), exp - 25);
  return sign ? -v : v;
}

static double bench_element(nd_dtype dt, const unsigned char *p) {
  switch (dt) {
  case ND_BOOL: return *p != 0;
  case ND_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
  case ND_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
  case ND_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
  case ND_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
  case ND_UINT8: return *p;
  case ND_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
  case ND_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
  case ND_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
  case ND_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return bench_half_to_double(v); }
  case ND_FLOAT32: { float v; memcpy(&v, p, 4); return v; }
  case ND_FLOAT64: { double v; memcpy(&v, p, 8); return v; }
  default: return NAN;
  }
}

int bench_check_values(bench_ctx *ctx, const bench_state *st, const nd_array *a,
                       bench_expect_fn expect, double rel_tol, double abs_tol) {
  nd_dtype dt = nd_array_dtype(a);
  if (dt == ND_COMPLEX64 || dt == ND_COMPLEX128)
    return bench_fail(ctx, "bench_check_values: complex outputs are not supported");
  int64_t n = nd_array_size(a);
  size_t item = nd_array_itemsize(a);
  nd_array *flat = NULL;
  BENCH_ND(nd_array_reshape(a, 1, &n, &flat));
  /* Chunks of 16 Mi elements keep the host buffer small for 2^28-element outputs. */
  const int64_t chunk = (int64_t)1 << 24;
  unsigned char *host = malloc((size_t)(n < chunk ? (n > 0 ? n : 1) : chunk) * item);
  if (host == NULL) {
    nd_array_release(flat);
    return bench_fail(ctx, "bench_check_values: out of host memory");
  }
  int64_t bad = 0;
  nd_status stt = ND_OK;
  for (int64_t start = 0; start < n && stt == ND_OK; start += chunk) {
    int64_t len = n - start < chunk ? n - start : chunk;
    nd_slice sl = {start, start + len, 1};
    nd_array *v = NULL;
    stt = nd_array_slice(flat, 1, &sl, &v);
    if (stt == ND_OK) stt = nd_array_to_host(v, host, (size_t)len * item);
    nd_array_release(v);
    for (int64_t i = 0; stt == ND_OK && i < len; i++) {
      double got = bench_element(dt, host + (size_t)i * item);
      double want = expect(ctx, st, start + i);
      if (!(fabs(got - want) <= abs_tol + rel_tol * fabs(want))) {
        if (bad < 5)
          fprintf(stderr, "%s: check: element %lld is %.9g, expected %.9g\n", bench_case_name(ctx),
                  (long long)(start + i), got, want);
        bad++;
      }
    }
  }
  free(host);
  nd_array_release(flat);
  if (stt != ND_OK) return bench_fail_nd(ctx, stt, "bench_check_values: download", __FILE__, __LINE__);
  if (bad) return bench_fail(ctx, "check: %lld of %lld elements wrong", (long long)bad, (long long)n);
  return 0;
}
