/* Per-thread, per-device cuBLAS and cuSOLVER handles, the small products' cublasLt plans,
 * scratch memory, and the single host wait of checked mode.
 *
 * Handles are created lazily on the first call that needs them on a (thread, device) pair and
 * destroyed when the thread exits. A handle is not thread-safe to share while its stream
 * changes, so each thread has its own; before each use it is bound to the caller's current
 * stream (cublasSetStream / cusolverDnSetStream are cheap host calls). cuBLAS workspaces are
 * its own per-handle default; cuSOLVER workspaces are taken from ndcuda's stream-ordered pool
 * by the callers (nd__linalg_scratch). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include "linalg/kernels.h"
#include "src/device.h"
#include "linalg/linalg_internal.h"

#define ND__LA_MAX_DEVICES 64

/* A cublasLt plan of one product shape (see "cublasLt plans for small products" below). */
#define ND__LT_PLANS 16

typedef struct nd__lt_plan {
  int used, device;
  nd__lt_gemm key; /* shape, types and operations (the pointers are not part of it) */
  unsigned align[3];
  unsigned long long stamp;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulAlgo_t algo;
} nd__lt_plan;

static void nd__lt_plan_drop(nd__lt_plan *p);

typedef struct nd__la_thread {
  cublasHandle_t blas[ND__LA_MAX_DEVICES];
  cusolverDnHandle_t solver[ND__LA_MAX_DEVICES];
  unsigned long long *pinned; /* two words of page-locked memory for checked mode */
  nd__lt_plan plan[ND__LT_PLANS]; /* the small products' plans, any device */
  unsigned long long plan_clock;
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
  for (int i = 0; i < ND__LT_PLANS; i++) nd__lt_plan_drop(&t->plan[i]);
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

/* ---- cublasLt plans for small products -------------------------------------------------------
 *
 * cublasGemmEx chooses its algorithm on every call (host time that shows for small products);
 * a cublasLt plan keeps the matmul and layout descriptors and the heuristic's algorithm for a
 * shape, so a repeated product costs one cublasLtMatmul. Plans are kept per thread with the
 * handles (nd__la_thread, destroyed at thread exit), ND__LT_PLANS of them, the least recently
 * used replaced. The cuBLAS handle serves as the cublasLt handle (cuBLAS documents the cast). No
 * workspace: one shared across the thread's streams would need ordering of its own. */

static void nd__lt_plan_drop(nd__lt_plan *p) {
  if (p->op) (void)cublasLtMatmulDescDestroy(p->op);
  if (p->la) (void)cublasLtMatrixLayoutDestroy(p->la);
  if (p->lb) (void)cublasLtMatrixLayoutDestroy(p->lb);
  if (p->lc) (void)cublasLtMatrixLayoutDestroy(p->lc);
  memset(p, 0, sizeof *p);
}

/* The largest power of two up to 256 that divides the address (cublasLt's preference unit). */
static unsigned nd__lt_align(const void *p) {
  const uintptr_t a = (uintptr_t)p;
  unsigned al = 256;
  while (al > 1 && (a & (al - 1)) != 0) al >>= 1;
  return al;
}

static int nd__lt_same(const nd__lt_plan *p, int device, const nd__lt_gemm *g, const unsigned *al) {
  const nd__lt_gemm *k = &p->key;
  return p->used && p->device == device && k->data == g->data && k->compute == g->compute && k->op_a == g->op_a &&
         k->op_b == g->op_b && k->m == g->m && k->n == g->n && k->k == g->k && k->lda == g->lda && k->ldb == g->ldb &&
         k->ldc == g->ldc && p->align[0] == al[0] && p->align[1] == al[1] && p->align[2] == al[2];
}

/* Builds p for g (p empty); *found = 0 where the heuristic offers nothing. */
static nd_status nd__lt_plan_make(const char *fn, cublasLtHandle_t lt, nd__lt_plan *p, int device,
                                  const nd__lt_gemm *g, const unsigned *al, int *found) {
  const cudaDataType_t dt = (cudaDataType_t)g->data;
  const cublasComputeType_t ct = (cublasComputeType_t)g->compute;
  /* the scale type of each compute type, as cublasGemmEx takes alpha and beta */
  const int cplx = dt == CUDA_C_32F || dt == CUDA_C_64F;
  const cudaDataType_t scale = ct == CUBLAS_COMPUTE_64F ? (cplx ? CUDA_C_64F : CUDA_R_64F)
                                                        : (cplx ? CUDA_C_32F : CUDA_R_32F);
  const cublasOperation_t oa = (cublasOperation_t)g->op_a, ob = (cublasOperation_t)g->op_b;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t res;
  int returned = 0;
  const size_t ws = 0;
  const uint32_t a0 = al[0], a1 = al[1], a2 = al[2];
  nd_status st = ND_CUBLAS(cublasLtMatmulDescCreate(&p->op, ct, scale));
  if (st == ND_OK) st = ND_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &oa, sizeof oa));
  if (st == ND_OK) st = ND_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &ob, sizeof ob));
  /* stored shapes: op(A) is m x k, op(B) k x n, C m x n (column-major) */
  if (st == ND_OK)
    st = ND_CUBLAS(cublasLtMatrixLayoutCreate(&p->la, dt, oa == CUBLAS_OP_N ? (uint64_t)g->m : (uint64_t)g->k,
                                              oa == CUBLAS_OP_N ? (uint64_t)g->k : (uint64_t)g->m, g->lda));
  if (st == ND_OK)
    st = ND_CUBLAS(cublasLtMatrixLayoutCreate(&p->lb, dt, ob == CUBLAS_OP_N ? (uint64_t)g->k : (uint64_t)g->n,
                                              ob == CUBLAS_OP_N ? (uint64_t)g->n : (uint64_t)g->k, g->ldb));
  if (st == ND_OK) st = ND_CUBLAS(cublasLtMatrixLayoutCreate(&p->lc, dt, (uint64_t)g->m, (uint64_t)g->n, g->ldc));
  if (st == ND_OK) st = ND_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  /* no workspace; the operands' own alignments (cublasLt assumes 256 bytes otherwise) */
  const struct {
    cublasLtMatmulPreferenceAttributes_t attr;
    const void *v;
    size_t size;
  } prefs[] = {{CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws},
               {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &a0, sizeof a0},
               {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &a1, sizeof a1},
               {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &a2, sizeof a2},
               {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &a2, sizeof a2}};
  for (size_t i = 0; i < sizeof prefs / sizeof prefs[0] && st == ND_OK; i++)
    st = ND_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, prefs[i].attr, prefs[i].v, prefs[i].size));
  if (st == ND_OK) {
    /* no algorithm is not an error: the caller takes cublasGemmEx */
    const cublasStatus_t e = cublasLtMatmulAlgoGetHeuristic(lt, p->op, p->la, p->lb, p->lc, p->lc, pref, 1, &res,
                                                            &returned);
    if (e != CUBLAS_STATUS_SUCCESS && e != CUBLAS_STATUS_NOT_SUPPORTED) st = ND_CUBLAS(e);
  }
  if (pref) (void)cublasLtMatmulPreferenceDestroy(pref);
  *found = st == ND_OK && returned > 0;
  if (!*found) {
    nd__lt_plan_drop(p);
    return st == ND_OK ? ND_OK : nd__error_context(st, fn);
  }
  p->algo = res.algo;
  p->used = 1;
  p->device = device;
  p->key = *g;
  p->key.alpha = p->key.beta = p->key.a = p->key.b = NULL;
  p->key.c = NULL;
  memcpy(p->align, al, sizeof p->align);
  return ND_OK;
}

nd_status nd__gemm_lt(const char *fn, nd_stream *s, void *handle, const nd__lt_gemm *g, int *done) {
  *done = 0;
  nd__la_thread *t = NULL;
  ND_TRY(nd__la_thread_get(fn, &t)); /* made by nd__cublas_for, which gave the handle */
  const unsigned al[3] = {nd__lt_align(g->a), nd__lt_align(g->b), nd__lt_align(g->c)};
  nd__lt_plan *p = NULL, *victim = &t->plan[0];
  for (int i = 0; i < ND__LT_PLANS; i++) {
    nd__lt_plan *q = &t->plan[i];
    if (nd__lt_same(q, s->device, g, al)) {
      p = q;
      break;
    }
    if (!q->used || (victim->used && q->stamp < victim->stamp)) victim = q;
  }
  cublasLtHandle_t lt = (cublasLtHandle_t)handle;
  if (p == NULL) {
    nd__lt_plan_drop(victim);
    int found = 0;
    ND_TRY(nd__lt_plan_make(fn, lt, victim, s->device, g, al, &found));
    if (!found) return ND_OK;
    p = victim;
  }
  p->stamp = ++t->plan_clock;
  nd_status st = ND_CUBLAS(cublasLtMatmul(lt, p->op, g->alpha, g->a, p->la, g->b, p->lb, g->beta, g->c, p->lc, g->c,
                                          p->lc, &p->algo, NULL, 0, (cudaStream_t)s->cu));
  if (st != ND_OK) return nd__error_context(st, fn);
  *done = 1;
  return ND_OK;
}
