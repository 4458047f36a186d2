/* The per-device stream-ordered pool, device buffers, limits, statistics, pinned memory.
 *
 * Each device gets its own cudaMemPool_t (not the device's default pool, so that other
 * libraries in the process keep their own settings) with an unlimited release threshold, so
 * freed memory stays with the pool. In front of it sits a small cache of freed blocks keyed
 * by size class and by the stream that used them last: an allocation on that same stream
 * takes the block back with no driver call at all, which is what keeps a warm allocation
 * under a microsecond (cudaMallocFromPoolAsync alone costs about that much). Stream order
 * makes that reuse safe without any wait: every earlier use of the block was ordered on that
 * stream when it was freed. Blocks are not cached while a stream is being captured into a
 * graph (their memory may belong to the graph). bytes_in_use counts what live buffers hold;
 * the optional limit caps it. */
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "src/buffer.h"
#include "src/device.h"


/* Size classes: 512 bytes, then four classes per power of two (2^k * 1.25, 1.5, 1.75, 2),
 * so a block is at most 25% larger than asked. Blocks above ND__CACHE_MAX_BLOCK go straight
 * to the pool, and the cache holds at most ND__CACHE_MAX_BYTES per device. */
#define ND__CACHE_MAX_BLOCK ((int64_t)256 << 20)
#define ND__CACHE_MAX_BYTES ((int64_t)2 << 30)
#define ND__CACHE_CLASSES 80

typedef struct nd__cached {
  void *ptr;
  nd_stream *stream; /* holds a reference */
  struct nd__cached *next;
} nd__cached;

typedef struct nd__device_pool {
  int ready;
  cudaMemPool_t pool;
  pthread_mutex_t cache_lock;
  nd__cached *bins[ND__CACHE_CLASSES];
  nd__cached *spare; /* recycled list nodes */
  int64_t cached_bytes;
  int64_t total_memory;
  int64_t limit; /* 0: none */
  atomic_llong in_use;
  atomic_llong peak;
  atomic_llong count;
} nd__device_pool;

static nd__device_pool nd__pools[ND__MAX_DEVICES];
static pthread_mutex_t nd__pool_lock = PTHREAD_MUTEX_INITIALIZER;

static void nd__cache_forget_stream(nd_stream *s);

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
    if (st == ND_OK) pthread_mutex_init(&p->cache_lock, NULL);
    if (st == ND_OK) {
      uint64_t threshold = UINT64_MAX;
      st = ND_CUDA(cudaMemPoolSetAttribute(p->pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    }
    if (st == ND_OK) {
      /* By default the pool may hand memory freed on one stream to another by making the
       * second wait for the first (a hidden dependency that serialises independent streams).
       * The library orders its own uses, so the pool reuses only what is known to be free
       * (completed or ordered by an event wait) and otherwise takes fresh memory. */
      int no = 0;
      st = ND_CUDA(cudaMemPoolSetAttribute(p->pool, cudaMemPoolReuseAllowInternalDependencies, &no));
    }
    if (cur >= 0 && cur != device) (void)cudaSetDevice(cur);
    if (st == ND_OK) {
      p->total_memory = (int64_t)total_b;
      p->limit = nd__config_size(ND__CFG_GPU_MEMORY_LIMIT, p->total_memory);
      /* from now on a stream may hold cached blocks of this pool */
      nd__stream_set_retire_hook(nd__cache_forget_stream);
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

/* The size class of a request: its index and the bytes a block of that class holds. */
static int nd__size_class(int64_t n, int64_t *size) {
  if (n <= 512) {
    *size = 512;
    return 0;
  }
  int k = 63 - __builtin_clzll((unsigned long long)(n - 1)); /* 2^k < n <= 2^(k+1) */
  int64_t base = (int64_t)1 << k, step = base >> 2;
  int64_t q = (n - base + step - 1) / step; /* 1..4 */
  *size = base + q * step;
  return (k - 9) * 4 + (int)q;
}

static int64_t nd__class_bytes(int cls) {
  if (cls == 0) return 512;
  int k = (cls - 1) / 4 + 9, q = (cls - 1) % 4 + 1;
  int64_t base = (int64_t)1 << k;
  return base + q * (base >> 2);
}

static int nd__capturing(nd_stream *s) {
  /* The legacy null stream cannot be captured (CUDA refuses to begin a capture on it), which
   * spares the most common case the query (some 60 ns, paid twice per temporary). */
  if (s->kind == ND__STREAM_LEGACY) return 0;
  return nd__stream_capturing(s->cu) != 0; /* unknown (-1): be safe */
}

/* Takes a block of class cls last used on s, or returns NULL. */
static void *nd__cache_take(nd__device_pool *p, int cls, int64_t size, nd_stream *s) {
  void *ptr = NULL;
  nd_stream *old = NULL;
  pthread_mutex_lock(&p->cache_lock);
  for (nd__cached **pp = &p->bins[cls]; *pp != NULL; pp = &(*pp)->next)
    if ((*pp)->stream == s) {
      nd__cached *c = *pp;
      *pp = c->next;
      ptr = c->ptr;
      old = c->stream;
      c->next = p->spare;
      p->spare = c;
      p->cached_bytes -= size;
      break;
    }
  pthread_mutex_unlock(&p->cache_lock);
  if (old != NULL) nd__stream_release(old);
  return ptr;
}

/* Keeps a freed block for reuse on s; returns 0 when the cache is full. */
static int nd__cache_put(nd__device_pool *p, int cls, int64_t size, void *ptr, nd_stream *s) {
  int kept = 0;
  pthread_mutex_lock(&p->cache_lock);
  if (p->cached_bytes + size <= ND__CACHE_MAX_BYTES) {
    nd__cached *c = p->spare;
    if (c != NULL) p->spare = c->next;
    else c = malloc(sizeof *c);
    if (c != NULL) {
      nd__stream_retain(s);
      c->ptr = ptr;
      c->stream = s;
      c->next = p->bins[cls];
      p->bins[cls] = c;
      p->cached_bytes += size;
      kept = 1;
    }
  }
  pthread_mutex_unlock(&p->cache_lock);
  return kept;
}

/* Returns cached blocks to the pool: those of stream `only` (freed on it), or all of them
 * when only is NULL (the caller has synchronised the device, so the legacy stream will do). */
static void nd__cache_flush(nd__device_pool *p, nd_stream *only) {
  nd__cached *drop = NULL;
  pthread_mutex_lock(&p->cache_lock);
  for (int cls = 0; cls < ND__CACHE_CLASSES; cls++)
    for (nd__cached **pp = &p->bins[cls]; *pp != NULL;) {
      nd__cached *c = *pp;
      if (only == NULL || c->stream == only) {
        *pp = c->next;
        c->next = drop;
        drop = c;
        p->cached_bytes -= nd__class_bytes(cls);
      } else {
        pp = &c->next;
      }
    }
  pthread_mutex_unlock(&p->cache_lock);
  while (drop != NULL) {
    nd__cached *c = drop;
    drop = c->next;
    (void)cudaFreeAsync(c->ptr, only != NULL ? (cudaStream_t)c->stream->cu : cudaStreamLegacy);
    (void)cudaGetLastError();
    nd__stream_release(c->stream);
    free(c);
  }
}

/* Frees the cached blocks that were last used on s (the streams' retire hook: called before s
 * is destroyed). */
static void nd__cache_forget_stream(nd_stream *s) {
  if (s->device >= 0 && s->device < ND__MAX_DEVICES && nd__pools[s->device].ready)
    nd__cache_flush(&nd__pools[s->device], s);
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
  int64_t capacity = 0, request = nbytes;
  int cls = -1;
  if (nbytes > 0 && nbytes <= ND__CACHE_MAX_BLOCK && !nd__capturing(s)) {
    cls = nd__size_class(nbytes, &capacity);
    request = capacity;
    ptr = nd__cache_take(p, cls, capacity, s);
  }
  if (nbytes > 0 && ptr == NULL) {
    cudaError_t e = cudaMallocFromPoolAsync(&ptr, (size_t)request, p->pool, (cudaStream_t)s->cu);
    if (e == cudaErrorMemoryAllocation) {
      /* Memory freed on other streams may still be pending, and the pool may hold cached
       * blocks of the wrong sizes: let pending frees finish (unless the stream is being
       * captured, where that is not allowed), hand the cache back, and try once more. */
      (void)cudaGetLastError();
      if (nd__stream_capturing(s->cu) <= 0) { /* not captured, or not known to be */
        (void)cudaDeviceSynchronize();
        nd__cache_flush(p, NULL);
      }
      (void)cudaMemPoolTrimTo(p->pool, 0);
      (void)cudaGetLastError();
      e = cudaMallocFromPoolAsync(&ptr, (size_t)request, p->pool, (cudaStream_t)s->cu);
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
  b->capacity = capacity;
  b->device = device;
  b->kind = ND__BUF_POOL;
  b->release = NULL;
  b->release_ctx = NULL;
  nd__hazard_init_device(&b->hz, device);
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
  b->capacity = 0;
  b->device = device;
  b->kind = ND__BUF_FOREIGN;
  b->release = release;
  b->release_ctx = ctx;
  nd__hazard_init_device(&b->hz, device);
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
    /* The free is enqueued with the buffer's device current: the stream handles below may be
     * that device's legacy or per-thread stream, which name the current device's. */
    int prev = -1;
    if (nd__device_enter(b->device, &prev) != 0) prev = -1;
    nd_stream *s = nd__hazard_sole_stream(&b->hz);
    /* A stream of another device (a copy to a peer read the buffer) cannot free it. */
    if (s != NULL && s->device != b->device) s = NULL;
    if (s == NULL) {
      /* Used on several streams: free on the current stream after all of them, so the pool
       * cannot give the memory to anyone before the last use ends. */
      s = nd__stream_current_for(b->device);
      if (s != NULL) (void)nd__hazard_prepare(&b->hz, s, ND__WRITE);
    }
    nd__device_pool *p = &nd__pools[b->device];
    int64_t size = 0;
    int kept = 0;
    if (s != NULL && b->capacity > 0 && !nd__capturing(s))
      kept = nd__cache_put(p, nd__size_class(b->capacity, &size), b->capacity, b->ptr, s);
    if (!kept) {
      if (s != NULL) (void)cudaFreeAsync(b->ptr, (cudaStream_t)s->cu);
      else (void)cudaFree(b->ptr);
      (void)cudaGetLastError();
    }
    atomic_fetch_sub(&p->in_use, b->nbytes);
    atomic_fetch_sub(&p->count, 1);
    nd__device_leave(prev);
  } else {
    atomic_fetch_sub(&nd__pools[b->device].count, 1);
  }
  nd__hazard_clear(&b->hz);
  free(b);
}

static nd_status nd__device_arg(const char *fn, int device, nd__device_pool **p) {
  /* -1 is the documented "current device"; other negative numbers are mistakes, not aliases. */
  if (device < -1)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: device %d does not exist (use -1 for the current "
                     "device)", fn, device);
  if (device == -1) ND_TRY(nd__device_current(fn, &device));
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
  /* The synchronisations and the legacy stream of the flush are the pool's device's. */
  int d = (int)(p - nd__pools), prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(d, &prev));
  if (st == ND_OK) st = ND_CUDA(cudaDeviceSynchronize());
  if (st == ND_OK) {
    nd__cache_flush(p, NULL);
    st = ND_CUDA(cudaDeviceSynchronize());
  }
  if (st == ND_OK) st = ND_CUDA(cudaMemPoolTrimTo(p->pool, 0));
  nd__device_leave(prev);
  return st;
}

nd_status nd__pool_share(const char *fn, int owner, int peer) {
  nd__device_pool *p = NULL;
  ND_TRY(nd__pool_get(fn, owner, &p));
  struct cudaMemAccessDesc desc;
  memset(&desc, 0, sizeof desc);
  desc.location.type = cudaMemLocationTypeDevice;
  desc.location.id = peer;
  desc.flags = cudaMemAccessFlagsProtReadWrite;
  return ND_CUDA(cudaMemPoolSetAccess(p->pool, &desc, 1));
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
    /* One prefix, the request and CUDA's reason; no source location, which names a path on
     * the machine that built the library and tells the caller nothing. */
    (void)cudaGetLastError();
    return nd__error(e == cudaErrorMemoryAllocation ? ND_ERR_OUT_OF_MEMORY
                     : nd__cuda_no_device(e)          ? ND_ERR_NO_DEVICE
                                                      : ND_ERR_CUDA,
                     "nd_host_alloc_pinned: cudaMallocHost of %zu bytes failed: %s (%s)", bytes,
                     cudaGetErrorName(e), cudaGetErrorString(e));
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
