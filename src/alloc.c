/* The per-device stream-ordered pool, device buffers, limits, statistics, pinned memory.
 *
 * Each device gets its own cudaMemPool_t (not the device's default pool, so that other
 * libraries in the process keep their own settings) with an unlimited release threshold:
 * freed memory stays cached in the pool and the next allocation of a similar size costs no
 * driver call. bytes_in_use counts what live buffers hold; the optional limit caps it. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "src/buffer.h"

#define ND__MAX_DEVICES 64

typedef struct nd__device_pool {
  int ready;
  cudaMemPool_t pool;
  int64_t total_memory;
  int64_t limit; /* 0: none */
  atomic_llong in_use;
  atomic_llong peak;
  atomic_llong count;
} nd__device_pool;

static nd__device_pool nd__pools[ND__MAX_DEVICES];
static pthread_mutex_t nd__pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* Parses ND_GPU_MEMORY_LIMIT: "1073741824", "512M", "2G", "50%". 0 means unset or invalid
 * (an invalid value is ignored rather than failing every allocation; the limit is a safety
 * net, and an unparsable one cannot be honoured). */
static int64_t nd__parse_limit(const char *v, int64_t total) {
  if (v == NULL || *v == '\0') return 0;
  char *end = NULL;
  double x = strtod(v, &end);
  if (end == v || !(x > 0)) return 0;
  while (isspace((unsigned char)*end)) end++;
  double mult = 1;
  switch (toupper((unsigned char)*end)) {
    case '%': return (int64_t)(x / 100.0 * (double)total);
    case 'K': mult = 1024.0; break;
    case 'M': mult = 1024.0 * 1024; break;
    case 'G': mult = 1024.0 * 1024 * 1024; break;
    case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
    case '\0': break;
    default: return 0;
  }
  double bytes = x * mult;
  return bytes >= 9.2e18 ? INT64_MAX : (int64_t)bytes;
}

static nd_status nd__pool_get(const char *fn, int device, nd__device_pool **out) {
  if (device < 0 || device >= ND__MAX_DEVICES)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: device %d out of range", fn, device);
  nd__device_pool *p = &nd__pools[device];
  if (ND__LIKELY(__atomic_load_n(&p->ready, __ATOMIC_ACQUIRE))) {
    *out = p;
    return ND_OK;
  }
  pthread_mutex_lock(&nd__pool_lock);
  nd_status st = ND_OK;
  if (!p->ready) {
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    size_t free_b = 0, total_b = 0;
    int cur = -1;
    st = ND_CUDA(cudaGetDevice(&cur));
    if (st == ND_OK && cur != device) st = ND_CUDA(cudaSetDevice(device));
    if (st == ND_OK) st = ND_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (st == ND_OK) st = ND_CUDA(cudaMemPoolCreate(&p->pool, &props));
    if (st == ND_OK) {
      uint64_t threshold = UINT64_MAX;
      st = ND_CUDA(cudaMemPoolSetAttribute(p->pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    }
    if (cur >= 0 && cur != device) (void)cudaSetDevice(cur);
    if (st == ND_OK) {
      p->total_memory = (int64_t)total_b;
      p->limit = nd__parse_limit(getenv("ND_GPU_MEMORY_LIMIT"), p->total_memory);
      __atomic_store_n(&p->ready, 1, __ATOMIC_RELEASE);
    } else {
      st = nd__error_context(st, fn);
    }
  }
  pthread_mutex_unlock(&nd__pool_lock);
  *out = p;
  return st;
}

static void nd__format_bytes(char *buf, size_t cap, int64_t b) {
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double x = (double)b;
  int u = 0;
  while (x >= 1024.0 && u < 4) {
    x /= 1024.0;
    u++;
  }
  snprintf(buf, cap, u ? "%.2f %s" : "%.0f %s", x, unit[u]);
}

static nd_status nd__oom(const char *fn, nd__device_pool *p, int device, int64_t nbytes,
                         const char *why) {
  uint64_t reserved = 0;
  (void)cudaMemPoolGetAttribute(p->pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
  (void)cudaGetLastError();
  char req[32], used[32], res[32], lim[32];
  nd__format_bytes(req, sizeof req, nbytes);
  nd__format_bytes(used, sizeof used, atomic_load(&p->in_use));
  nd__format_bytes(res, sizeof res, (int64_t)reserved);
  nd__format_bytes(lim, sizeof lim, p->limit ? p->limit : p->total_memory);
  return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of memory allocating %s (%lld bytes) on "
                   "device %d: %s; in use by ndcuda %s in %lld buffers, reserved by the pool "
                   "%s, limit %s%s", fn, req, (long long)nbytes, device, why, used,
                   (long long)atomic_load(&p->count), res, lim,
                   p->limit ? " (ND_GPU_MEMORY_LIMIT)" : "");
}

nd_status nd__buffer_alloc(const char *fn, int device, nd_stream *s, int64_t nbytes,
                           nd__buffer **out) {
  nd__device_pool *p;
  ND_TRY(nd__pool_get(fn, device, &p));
  if (nbytes < 0) return nd__error(ND_ERR_INTERNAL, "%s: negative allocation %lld", fn, (long long)nbytes);
  int64_t now = atomic_fetch_add(&p->in_use, nbytes) + nbytes;
  if (p->limit && now > p->limit) {
    atomic_fetch_sub(&p->in_use, nbytes);
    return nd__oom(fn, p, device, nbytes, "the request exceeds the limit");
  }
  nd__buffer *b = malloc(sizeof *b);
  if (b == NULL) {
    atomic_fetch_sub(&p->in_use, nbytes);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for a buffer header", fn);
  }
  void *ptr = NULL;
  if (nbytes > 0) {
    cudaError_t e = cudaMallocFromPoolAsync(&ptr, (size_t)nbytes, p->pool, (cudaStream_t)s->cu);
    if (e == cudaErrorMemoryAllocation) {
      /* Memory freed on other streams may still be pending, and the pool may hold cached
       * blocks of the wrong sizes: let pending frees finish (unless the stream is being
       * captured, where that is not allowed), hand the cache back, and try once more. */
      (void)cudaGetLastError();
      enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
      (void)cudaStreamIsCapturing((cudaStream_t)s->cu, &cap);
      if (cap == cudaStreamCaptureStatusNone) (void)cudaDeviceSynchronize();
      (void)cudaMemPoolTrimTo(p->pool, 0);
      (void)cudaGetLastError();
      e = cudaMallocFromPoolAsync(&ptr, (size_t)nbytes, p->pool, (cudaStream_t)s->cu);
    }
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      atomic_fetch_sub(&p->in_use, nbytes);
      free(b);
      if (e == cudaErrorMemoryAllocation)
        return nd__oom(fn, p, device, nbytes, "the device has no room even after trimming the pool");
      return nd__error_context(nd__cuda_status((int)e, "cudaMallocFromPoolAsync", fn, __FILE__,
                                               __LINE__), fn);
    }
  }
  int64_t peak = atomic_load(&p->peak);
  while (now > peak && !atomic_compare_exchange_weak(&p->peak, &peak, now)) {
  }
  atomic_fetch_add(&p->count, 1);
  atomic_init(&b->refs, 1);
  b->ptr = ptr;
  b->nbytes = nbytes;
  b->device = device;
  b->kind = ND__BUF_POOL;
  b->release = NULL;
  b->release_ctx = NULL;
  nd__hazard_init(&b->hz);
  /* The allocation is ordered on s: a consumer on another stream must wait for it. */
  if (nbytes > 0) (void)nd__hazard_commit(&b->hz, s, nd__stream_commit(s), ND__WRITE);
  *out = b;
  return ND_OK;
}

nd_status nd__buffer_wrap(const char *fn, void *ptr, int64_t nbytes, int device,
                          nd__release_fn release, void *ctx, nd__buffer **out) {
  nd__buffer *b = malloc(sizeof *b);
  if (b == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for a buffer header", fn);
  atomic_init(&b->refs, 1);
  b->ptr = ptr;
  b->nbytes = nbytes;
  b->device = device;
  b->kind = ND__BUF_FOREIGN;
  b->release = release;
  b->release_ctx = ctx;
  nd__hazard_init(&b->hz);
  *out = b;
  return ND_OK;
}

void nd__buffer_retain(nd__buffer *b) { atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed); }

void nd__buffer_release(nd__buffer *b) {
  if (b == NULL || atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1) return;
  if (b->kind == ND__BUF_FOREIGN) {
    /* The owner may free or reuse the memory as soon as the callback runs, so every use we
     * enqueued must be finished first. */
    if (b->release != NULL) {
      (void)nd__hazard_host_wait(&b->hz, ND__WRITE);
      b->release(b->ptr, b->release_ctx);
    }
  } else if (b->ptr != NULL) {
    nd_stream *s = nd__hazard_sole_stream(&b->hz);
    if (s == NULL) {
      /* Used on several streams: free on the current stream after all of them, so the pool
       * cannot give the memory to anyone before the last use ends. */
      s = nd__stream_current_for(b->device);
      if (s != NULL) (void)nd__hazard_prepare(&b->hz, s, ND__WRITE);
    }
    if (s != NULL) (void)cudaFreeAsync(b->ptr, (cudaStream_t)s->cu);
    else (void)cudaFree(b->ptr);
    (void)cudaGetLastError();
    nd__device_pool *p = &nd__pools[b->device];
    atomic_fetch_sub(&p->in_use, b->nbytes);
    atomic_fetch_sub(&p->count, 1);
  } else {
    atomic_fetch_sub(&nd__pools[b->device].count, 1);
  }
  nd__hazard_clear(&b->hz);
  free(b);
}

static nd_status nd__device_arg(const char *fn, int device, nd__device_pool **p) {
  if (device < 0) ND_TRY(nd__device_current(fn, &device));
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    return nd__error(ND_ERR_NO_DEVICE, "%s: no CUDA device is available", fn);
  }
  if (device >= n) return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: device %d does not exist (%d devices)", fn, device, n);
  return nd__pool_get(fn, device, p);
}

nd_status nd_memory_stats_get(int device, nd_memory_stats *out) {
  ND_CHECK_NULL("nd_memory_stats_get", out);
  nd__device_pool *p;
  ND_TRY(nd__device_arg("nd_memory_stats_get", device, &p));
  uint64_t reserved = 0;
  ND_TRY(ND_CUDA(cudaMemPoolGetAttribute(p->pool, cudaMemPoolAttrReservedMemCurrent, &reserved)));
  out->bytes_in_use = atomic_load(&p->in_use);
  out->peak_bytes_in_use = atomic_load(&p->peak);
  out->bytes_reserved = (int64_t)reserved;
  out->bytes_limit = p->limit ? p->limit : p->total_memory;
  out->num_allocs = atomic_load(&p->count);
  return ND_OK;
}

nd_status nd_memory_release_cached(int device) {
  nd__device_pool *p;
  ND_TRY(nd__device_arg("nd_memory_release_cached", device, &p));
  ND_TRY(ND_CUDA(cudaDeviceSynchronize()));
  return ND_CUDA(cudaMemPoolTrimTo(p->pool, 0));
}

nd_status nd_memory_set_limit(int device, int64_t bytes) {
  if (bytes < 0) return nd__error(ND_ERR_INVALID_ARGUMENT, "nd_memory_set_limit: bytes must be >= 0, got %lld", (long long)bytes);
  nd__device_pool *p;
  ND_TRY(nd__device_arg("nd_memory_set_limit", device, &p));
  p->limit = bytes;
  return ND_OK;
}

nd_status nd_memory_reset_peak(int device) {
  nd__device_pool *p;
  ND_TRY(nd__device_arg("nd_memory_reset_peak", device, &p));
  atomic_store(&p->peak, atomic_load(&p->in_use));
  return ND_OK;
}

nd_status nd_host_alloc_pinned(size_t bytes, void **out) {
  ND_CHECK_NULL("nd_host_alloc_pinned", out);
  *out = NULL;
  if (bytes == 0) return ND_OK;
  cudaError_t e = cudaMallocHost(out, bytes);
  if (e != cudaSuccess) {
    *out = NULL;
    return nd__error_context(nd__cuda_status((int)e, "cudaMallocHost", "nd_host_alloc_pinned",
                                             __FILE__, __LINE__), "nd_host_alloc_pinned");
  }
  return ND_OK;
}

nd_status nd_host_free_pinned(void *ptr) {
  if (ptr == NULL) return ND_OK;
  return ND_CUDA(cudaFreeHost(ptr));
}

int nd_host_is_pinned(const void *ptr) {
  struct cudaPointerAttributes a;
  if (ptr == NULL || cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return a.type == cudaMemoryTypeHost;
}
