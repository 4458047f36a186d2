/* Allreduce bus bandwidth of nd_comm_allreduce beside a raw ncclAllReduce loop, in one process
 * on the same GPUs, the same buffers and the same streams.
 *
 *   nd_bench_comm [--ngpus N] [--min BYTES] [--max BYTES] [--out FILE.csv]
 *
 * One thread drives every GPU with group calls (ncclGroupStart/End for the raw loop,
 * nd_comm_group_start/end for ndcuda), float32 sum, out of place, as nccl-tests'
 * all_reduce_perf -g N does. For each size (x4 from 1 KiB to 1 GiB by default): warm-up, then
 * `iters` back-to-back iterations timed with CUDA events on GPU 0's stream (the collective
 * ends on every rank together), repeated 5 times; the median is reported. algbw = bytes / time,
 * busbw = algbw * 2 (n - 1) / n (nccl-tests' definition for allreduce). The host time per
 * iteration (issuing the calls, no synchronisation) is reported too: at small sizes it is the
 * per-call overhead that the library adds over NCCL. Needs two or more GPUs (exit 77
 * otherwise). */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndcuda.h"

#define MAXG 8
#define REPS 5

static int ngpus;
static nd_comm *ndc[MAXG];
static ncclComm_t raw[MAXG];
static nd_stream *streams[MAXG];
static nd_array *send[MAXG], *recv[MAXG];

#define CK(call)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)
#define NK(call)                                                                   \
  do {                                                                             \
    ncclResult_t r_ = (call);                                                      \
    if (r_ != ncclSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncclGetErrorString(r_)); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)
#define ND(call)                                                                   \
  do {                                                                             \
    nd_status s_ = (call);                                                         \
    if (s_ != ND_OK) {                                                             \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nd_last_error()); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

/* One iteration: every rank's allreduce of `count` floats, grouped. */
static void step_nd(int64_t count) {
  (void)count;
  ND(nd_comm_group_start());
  for (int g = 0; g < ngpus; g++) {
    CK(cudaSetDevice(g));
    ND(nd_comm_allreduce(ndc[g], send[g], recv[g], ND_COMM_SUM));
  }
  ND(nd_comm_group_end());
}

static void step_raw(int64_t count) {
  NK(ncclGroupStart());
  for (int g = 0; g < ngpus; g++)
    NK(ncclAllReduce(nd_array_data(send[g]), nd_array_data(recv[g]), (size_t)count, ncclFloat32,
                     ncclSum, raw[g], (cudaStream_t)nd_stream_cuda(streams[g])));
  NK(ncclGroupEnd());
}

static void sync_all(void) {
  for (int g = 0; g < ngpus; g++) {
    CK(cudaSetDevice(g));
    CK(cudaStreamSynchronize((cudaStream_t)nd_stream_cuda(streams[g])));
  }
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median over REPS of (GPU us per iteration, host us per iteration). */
static void measure(void (*step)(int64_t), int64_t count, int iters, double *gpu_us, double *host_us) {
  double g[REPS], h[REPS];
  cudaEvent_t e0, e1;
  CK(cudaSetDevice(0));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  cudaStream_t s0 = (cudaStream_t)nd_stream_cuda(streams[0]);
  for (int w = 0; w < 3; w++) step(count);
  sync_all();
  for (int r = 0; r < REPS; r++) {
    CK(cudaSetDevice(0));
    CK(cudaEventRecord(e0, s0));
    double t0 = now_us();
    for (int i = 0; i < iters; i++) step(count);
    double t1 = now_us();
    CK(cudaSetDevice(0));
    CK(cudaEventRecord(e1, s0));
    sync_all();
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    g[r] = ms * 1e3 / iters;
    h[r] = (t1 - t0) / iters;
  }
  qsort(g, REPS, sizeof g[0], cmp_d);
  qsort(h, REPS, sizeof h[0], cmp_d);
  *gpu_us = g[REPS / 2];
  *host_us = h[REPS / 2];
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
}

int main(int argc, char **argv) {
  int64_t minb = 1024, maxb = (int64_t)1 << 30;
  const char *out = NULL;
  int want = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--ngpus") && i + 1 < argc) want = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--min") && i + 1 < argc) minb = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--max") && i + 1 < argc) maxb = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else {
      fprintf(stderr, "usage: nd_bench_comm [--ngpus N] [--min BYTES] [--max BYTES] [--out FILE.csv]\n");
      return 2;
    }
  }
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
    fprintf(stderr, "SKIPPED: nd_bench_comm needs 2 GPUs (found %d)\n", n);
    return 77;
  }
  ngpus = want > 0 && want < n ? want : n;
  if (ngpus > MAXG) ngpus = MAXG;
  int ver = 0;
  ND(nd_comm_nccl_version(&ver));
  ND(nd_comm_init_all(ngpus, NULL, ndc));
  int devs[MAXG];
  for (int g = 0; g < ngpus; g++) devs[g] = g;
  NK(ncclCommInitAll(raw, ngpus, devs));
  const int64_t cap[1] = {maxb / 4};
  for (int g = 0; g < ngpus; g++) {
    CK(cudaSetDevice(g));
    ND(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &streams[g]));
    ND(nd_stream_push(streams[g]));
    ND(nd_ones(1, cap, ND_FLOAT32, &send[g]));
    ND(nd_zeros(1, cap, ND_FLOAT32, &recv[g]));
  }
  sync_all();
  char name[256] = "";
  struct cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) snprintf(name, sizeof name, "%s", p.name);
  printf("nd_bench_comm: %d x %s, NCCL %d, float32 sum, out of place, one thread, grouped\n", ngpus, name, ver);
  printf("%12s %7s | %10s %9s %8s | %10s %9s %8s | %7s %9s\n", "bytes", "iters", "raw us",
         "busbw", "host us", "nd us", "busbw", "host us", "nd/raw", "d host us");
  FILE *csv = out ? fopen(out, "w") : NULL;
  if (csv)
    fprintf(csv, "bytes,iters,raw_us,raw_busbw_GBs,raw_host_us,nd_us,nd_busbw_GBs,nd_host_us\n");
  double factor = 2.0 * (ngpus - 1) / ngpus;
  for (int64_t bytes = minb; bytes <= maxb; bytes *= 4) {
    int64_t count = bytes / 4;
    /* Views of the first `count` elements: the same buffers at every size. */
    nd_array *s_full[MAXG], *r_full[MAXG];
    for (int g = 0; g < ngpus; g++) {
      CK(cudaSetDevice(g));
      s_full[g] = send[g];
      r_full[g] = recv[g];
      nd_slice sl[1] = {{0, count, 1}};
      ND(nd_array_slice(s_full[g], 1, sl, &send[g]));
      ND(nd_array_slice(r_full[g], 1, sl, &recv[g]));
    }
    int iters = bytes <= (1 << 20) ? 1000 : bytes <= (64 << 20) ? 100 : 20;
    double raw_us, raw_host, nd_us, nd_host;
    measure(step_raw, count, iters, &raw_us, &raw_host);
    measure(step_nd, count, iters, &nd_us, &nd_host);
    double raw_bw = bytes / raw_us * 1e-3 * factor, nd_bw = bytes / nd_us * 1e-3 * factor;
    printf("%12lld %7d | %10.2f %9.2f %8.2f | %10.2f %9.2f %8.2f | %6.1f%% %+9.2f\n",
           (long long)bytes, iters, raw_us, raw_bw, raw_host, nd_us, nd_bw, nd_host,
           100.0 * raw_us / nd_us, nd_host - raw_host);
    if (csv)
      fprintf(csv, "%lld,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", (long long)bytes, iters, raw_us,
              raw_bw, raw_host, nd_us, nd_bw, nd_host);
    for (int g = 0; g < ngpus; g++) {
      CK(cudaSetDevice(g));
      nd_array_release(send[g]);
      nd_array_release(recv[g]);
      send[g] = s_full[g];
      recv[g] = r_full[g];
    }
  }
  /* The result is checked once: every element is ngpus after a sum of ones. */
  step_nd(cap[0]);
  int bad = 0;
  for (int g = 0; g < ngpus; g++) {
    CK(cudaSetDevice(g));
    float h[4];
    nd_slice sl[1] = {{cap[0] - 4, cap[0], 1}};
    nd_array *t;
    ND(nd_array_slice(recv[g], 1, sl, &t));
    ND(nd_array_to_host(t, h, sizeof h));
    nd_array_release(t);
    for (int i = 0; i < 4; i++) bad |= h[i] != (float)ngpus;
  }
  printf("nd_bench_comm: busbw in GB/s; nd/raw is raw time / ndcuda time; d host us is ndcuda's "
         "extra host time per iteration (%d calls); result check %s\n", ngpus, bad ? "FAILED" : "ok");
  if (csv) fclose(csv);
  sync_all();
  for (int g = 0; g < ngpus; g++) {
    CK(cudaSetDevice(g));
    nd_array_release(send[g]);
    nd_array_release(recv[g]);
    ND(nd_stream_pop());
    ND(nd_stream_destroy(streams[g]));
    ND(nd_comm_destroy(ndc[g]));
    ncclCommDestroy(raw[g]);
  }
  return bad;
}
