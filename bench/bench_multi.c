/* Several devices: copies between two GPUs (device.h).
 *
 * multi.peer_copy: 1 GiB of float32 from device 0 to device 1 and back, through nd_copyto
 * (which runs on the current stream of the destination device), beside the raw
 * cudaMemcpyPeerAsync of the same buffers on the same stream in the same run: the percent
 * column is of that ceiling here, not of the local copy. GB/s counts the bytes moved once.
 * Timed with CUDA events on the destination device's stream; the first copy of each
 * direction (which enables peer access) is untimed. Skipped, with a line on stderr, when the
 * process sees fewer than two devices. */
#include <math.h>
#include <stdlib.h>

#include "bench.h"

#define PEER_BYTES ((int64_t)1 << 30)
#define PEER_REPS 10

typedef struct peer_dir {
  int from, to;
  nd_array *src, *dst;
  nd_stream *s; /* a non-blocking stream of the destination device, current there */
} peer_dir;

/* Times reps copies of one direction: through ndcuda (raw 0) or cudaMemcpyPeerAsync (raw 1). */
static int time_dir(bench_ctx *ctx, peer_dir *d, int raw, double *med, double *mn) {
  BENCH_ND(nd_device_set(d->to));
  cudaStream_t cu = (cudaStream_t)nd_stream_cuda(d->s);
  cudaEvent_t e0, e1;
  BENCH_CU(cudaEventCreate(&e0));
  BENCH_CU(cudaEventCreate(&e1));
  double t[PEER_REPS];
  int rc = 0;
  for (int r = -1; r < PEER_REPS && rc == 0; r++) {
    if (cudaEventRecord(e0, cu) != cudaSuccess) rc = -1;
    if (rc == 0 && raw) {
      if (cudaMemcpyPeerAsync(nd_array_data(d->dst), d->to, nd_array_data(d->src), d->from,
                              (size_t)PEER_BYTES, cu) != cudaSuccess)
        rc = bench_fail(ctx, "cudaMemcpyPeerAsync %d -> %d failed", d->from, d->to);
    } else if (rc == 0) {
      nd_status st = nd_copyto(d->dst, d->src, ND_CASTING_NO);
      if (st != ND_OK) rc = bench_fail_nd(ctx, st, "nd_copyto", __FILE__, __LINE__);
    }
    float ms = 0;
    if (rc == 0 && (cudaEventRecord(e1, cu) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess ||
                    cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess))
      rc = bench_fail(ctx, "timing events of %d -> %d failed", d->from, d->to);
    if (r >= 0) t[r] = ms * 1e3;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (rc == 0) bench_median_min(t, PEER_REPS, med, mn);
  return rc;
}

/* The destination holds the source's values (one value per 4 KiB page, both ends). */
static int check_dir(bench_ctx *ctx, peer_dir *d) {
  const int64_t n = PEER_BYTES / 4, step = 1024;
  float *h = malloc((size_t)PEER_BYTES);
  if (h == NULL) return bench_fail(ctx, "no host memory for the check");
  int bad = 0;
  nd_status st = nd_array_to_host(d->dst, h, (size_t)PEER_BYTES);
  for (int64_t i = 0; st == ND_OK && i < n; i += step) bad += h[i] != bench_rand_value(ctx, i);
  if (st == ND_OK) bad += h[n - 1] != bench_rand_value(ctx, n - 1);
  free(h);
  if (st != ND_OK) return bench_fail_nd(ctx, st, "nd_array_to_host", __FILE__, __LINE__);
  if (bad) return bench_fail(ctx, "%d sampled values differ after the copy %d -> %d", bad, d->from, d->to);
  return 0;
}

static int measure_peer(bench_ctx *ctx, bench_state *st) {
  int n = 0;
  BENCH_ND(nd_device_count(&n));
  if (n < 2) {
    fprintf(stderr, "nd_bench: multi.peer_copy skipped: the process sees %d device(s), it needs two\n", n);
    return 0;
  }
  int dev0 = -1;
  BENCH_ND(nd_device_get(&dev0));
  peer_dir dir[2] = {{0, 1, NULL, NULL, NULL}, {1, 0, NULL, NULL, NULL}};
  const int64_t shape[1] = {PEER_BYTES / 4};
  int rc = 0;
  for (int k = 0; k < 2 && rc == 0; k++) {
    peer_dir *d = &dir[k];
    nd_status s = nd_device_set(d->from);
    if (s == ND_OK) {
      if (d->from == 0) s = bench_random_f32(ctx, 1, shape, &d->src) == 0 ? ND_OK : ND_ERR_CUDA;
      else s = nd_array_to_device(dir[0].src, d->from, &d->src); /* enables peer access */
    }
    if (s == ND_OK) s = nd_device_set(d->to);
    if (s == ND_OK) s = nd_empty(1, shape, ND_FLOAT32, &d->dst);
    if (s == ND_OK) s = nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &d->s);
    if (s == ND_OK) s = nd_stream_push(d->s);
    if (s != ND_OK) rc = bench_fail_nd(ctx, s, "setting up the peer copy", __FILE__, __LINE__);
  }
  static const char *names[2] = {"0to1", "1to0"};
  for (int k = 0; k < 2 && rc == 0; k++) {
    double med = NAN, mn = NAN, rmed = NAN, rmn = NAN;
    rc = time_dir(ctx, &dir[k], 1, &rmed, &rmn);
    if (rc == 0) rc = time_dir(ctx, &dir[k], 0, &med, &mn);
    if (rc == 0) rc = check_dir(ctx, &dir[k]);
    if (rc != 0) break;
    char note[BENCH_NOTE_MAX];
    snprintf(note, sizeof note, "1 GiB device %d -> %d, %% of raw cudaMemcpyPeerAsync %.1f GB/s", dir[k].from,
             dir[k].to, (double)PEER_BYTES / (rmed * 1e-6) / 1e9);
    bench_result *r = bench_emit_time(ctx, names[k], "device", med, mn, PEER_REPS, PEER_BYTES, note);
    if (r != NULL) r->pct_copy = 100.0 * rmed / med;
    char raw_suffix[32];
    snprintf(raw_suffix, sizeof raw_suffix, "%s.raw", names[k]);
    r = bench_emit_time(ctx, raw_suffix, "device", rmed, rmn, PEER_REPS, PEER_BYTES,
                        "cudaMemcpyPeerAsync, the same buffers and stream");
    if (r != NULL) r->pct_copy = 100.0;
  }
  for (int k = 0; k < 2; k++) {
    peer_dir *d = &dir[k];
    if (nd_device_set(d->to) == ND_OK && d->s != NULL) {
      (void)nd_stream_pop();
      (void)nd_stream_synchronize(d->s);
      (void)nd_stream_destroy(d->s);
    }
    nd_array_release(d->src);
    nd_array_release(d->dst);
  }
  (void)nd_device_set(dev0);
  (void)st;
  return rc;
}

const bench_case bench_multi_cases[] = {
    /* name,             setup, run,  check, teardown, measure */
    {"multi.peer_copy", NULL, NULL, NULL, NULL, measure_peer},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
