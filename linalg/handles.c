/* Per-thread, per-device cuBLAS and cuSOLVER handles, scratch memory, and the single host wait
 * of checked mode.
 *
 * Handles are created lazily on the first call that needs them on a (thread, device) pair and
 * destroyed when the thread exits. A handle is not thread-safe to share while its stream
 * changes, so each thread has its own; before each use it is bound to the caller's current
 * stream (cublasSetStream / cusolverDnSetStream are cheap host calls). cuBLAS workspaces are
 * its own per-handle default; cuSOLVER workspaces are taken from ndcuda's stream-ordered pool
 * by the callers (nd__linalg_scratch). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include "linalg/kernels.h"
#include "src/device.h"
#include "linalg/linalg_internal.h"

#define ND__LA_MAX_DEVICES 64

typedef struct nd__la_thread {
  cublasHandle_t blas[ND__LA_MAX_DEVICES];
  cusolverDnHandle_t solver[ND__LA_MAX_DEVICES];
  unsigned long long *pinned; /* two words of page-locked memory for checked mode */
} nd__la_thread;

static pthread_key_t nd__la_key;
static pthread_once_t nd__la_once = PTHREAD_ONCE_INIT;
static _Thread_local nd__la_thread *nd__la_self = NULL;

/* Runs at thread exit. Destroying a handle waits for nothing of ours: every piece of work we
 * enqueued holds its buffers through the ordering model, not through the handle. */
static void nd__la_thread_free(void *p) {
  nd__la_thread *t = p;
  if (t == NULL) return;
  int cur = -1;
  (void)cudaGetDevice(&cur);
  for (int d = 0; d < ND__LA_MAX_DEVICES; d++) {
    if (t->blas[d] == NULL && t->solver[d] == NULL) continue;
    if (cudaSetDevice(d) != cudaSuccess) continue;
    if (t->blas[d] != NULL) (void)cublasDestroy(t->blas[d]);
    if (t->solver[d] != NULL) (void)cusolverDnDestroy(t->solver[d]);
  }
  if (t->pinned != NULL) (void)cudaFreeHost(t->pinned);
  if (cur >= 0) (void)cudaSetDevice(cur);
  (void)cudaGetLastError();
  free(t);
}

static void nd__la_make_key(void) { (void)pthread_key_create(&nd__la_key, nd__la_thread_free); }

static nd_status nd__la_thread_get(const char *fn, nd__la_thread **out) {
  if (ND__LIKELY(nd__la_self != NULL)) {
    *out = nd__la_self;
    return ND_OK;
  }
  (void)pthread_once(&nd__la_once, nd__la_make_key);
  nd__la_thread *t = calloc(1, sizeof *t);
  if (t == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for linalg handles", fn);
  (void)pthread_setspecific(nd__la_key, t);
  nd__la_self = t;
  *out = t;
  return ND_OK;
}

nd_status nd__cublas_for(const char *fn, nd_stream *s, void **handle) {
  nd__la_thread *t = NULL;
  ND_TRY(nd__la_thread_get(fn, &t));
  int d = s->device;
  if (d < 0 || d >= ND__LA_MAX_DEVICES)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: device %d out of range", fn, d);
  if (t->blas[d] == NULL) {
    cublasHandle_t h;
    nd_status st = ND_CUBLAS(cublasCreate(&h));
    if (st != ND_OK) return nd__error_context(st, fn);
    t->blas[d] = h;
  }
  nd_status st = ND_CUBLAS(cublasSetStream(t->blas[d], (cudaStream_t)s->cu));
  if (st != ND_OK) return nd__error_context(st, fn);
  *handle = t->blas[d];
  return ND_OK;
}

nd_status nd__cusolver_for(const char *fn, nd_stream *s, void **handle) {
  nd__la_thread *t = NULL;
  ND_TRY(nd__la_thread_get(fn, &t));
  int d = s->device;
  if (d < 0 || d >= ND__LA_MAX_DEVICES)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: device %d out of range", fn, d);
  if (t->solver[d] == NULL) {
    cusolverDnHandle_t h;
    nd_status st = ND_CUSOLVER(cusolverDnCreate(&h));
    if (st != ND_OK) return nd__error_context(st, fn);
    t->solver[d] = h;
  }
  nd_status st = ND_CUSOLVER(cusolverDnSetStream(t->solver[d], (cudaStream_t)s->cu));
  if (st != ND_OK) return nd__error_context(st, fn);
  *handle = t->solver[d];
  return ND_OK;
}

nd_status nd__linalg_scratch(const char *fn, nd_stream *s, int64_t nbytes, nd__buffer **out) {
  return nd__buffer_alloc(fn, s->device, s, nbytes, out);
}

nd_status nd__linalg_begin_writes(nd__sync *sync, int n, nd__buffer *const *bufs) {
  for (int i = 0; i < n; i++)
    if (bufs[i] != NULL) ND_TRY(nd__sync_add(sync, &bufs[i]->hz, ND__WRITE));
  return nd__sync_begin(sync);
}

nd_status nd__linalg_check_capture(const char *fn, nd_stream *s) {
  if (nd__stream_capturing(s->cu) > 0) /* an unanswered query lets the call go on */
    return nd__error(ND_ERR_STREAM, "%s: checked mode waits on the host for the info array, which "
                     "is not allowed while the current stream is captured into a graph; use "
                     "nd_linalg_set_checked(0) or ND_LINALG_UNCHECKED and read the info array", fn);
  return ND_OK;
}

static void nd__format_index(char *buf, size_t cap, int64_t flat, int ndim, const int64_t *shape) {
  if (ndim <= 1) {
    snprintf(buf, cap, "%lld", (long long)flat);
    return;
  }
  int64_t idx[ND_MAXDIMS];
  for (int i = ndim - 1; i >= 0; i--) {
    idx[i] = shape[i] ? flat % shape[i] : 0;
    flat = shape[i] ? flat / shape[i] : 0;
  }
  nd__format_shape(buf, cap, ndim, idx);
}

nd_status nd__linalg_read_first(const char *fn, nd_stream *s, const void *first, unsigned long long *out) {
  nd__la_thread *t = NULL;
  ND_TRY(nd__la_thread_get(fn, &t));
  if (t->pinned == NULL) {
    nd_status st = ND_CUDA(cudaMallocHost((void **)&t->pinned, 2 * sizeof(unsigned long long)));
    if (st != ND_OK) return nd__error_context(st, fn);
  }
  cudaStream_t cs = (cudaStream_t)s->cu;
  /* The one host wait of checked mode: only this stream, up to the copy of 8 bytes. */
  nd_status st = ND_CUDA(cudaMemcpyAsync(t->pinned, first, sizeof(unsigned long long), cudaMemcpyDeviceToHost, cs));
  if (st == ND_OK) st = ND_CUDA(cudaStreamSynchronize(cs));
  if (st != ND_OK) return nd__error_context(st, fn);
  *out = t->pinned[0];
  return ND_OK;
}

nd_status nd__linalg_wait_first(const char *fn, nd_stream *s, const void *first, const int *info,
                                int batch_ndim, const int64_t *batch_shape, nd_status fail_status) {
  unsigned long long idx;
  ND_TRY(nd__linalg_read_first(fn, s, first, &idx));
  if (idx == ~0ull) return ND_OK;
  nd__la_thread *t = NULL;
  ND_TRY(nd__la_thread_get(fn, &t));
  cudaStream_t cs = (cudaStream_t)s->cu;
  nd_status st;
  int value = 0;
  if (info != NULL) {
    st = ND_CUDA(cudaMemcpyAsync(&t->pinned[1], info + idx, sizeof(int), cudaMemcpyDeviceToHost, cs));
    if (st == ND_OK) st = ND_CUDA(cudaStreamSynchronize(cs));
    if (st != ND_OK) return nd__error_context(st, fn);
    memcpy(&value, &t->pinned[1], sizeof value);
  }
  char where[ND__SHAPE_STR];
  nd__format_index(where, sizeof where, (int64_t)idx, batch_ndim, batch_shape);
  if (fail_status == ND_ERR_NOT_POSITIVE_DEFINITE)
    return nd__error(fail_status, "%s: matrix at batch index %s is not positive definite (the "
                     "leading minor of order %d is not positive)", fn, where, value);
  return nd__error(fail_status, "%s: matrix at batch index %s is singular (pivot %d is exactly "
                   "zero)", fn, where, value);
}
