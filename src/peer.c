/* Copies between devices (nd_array_to_device, nd_copyto across devices) and the sharding
 * helpers built on them (device.h).
 *
 * One primitive moves bytes: nd__copy_peer copies a C-contiguous array to a C-contiguous
 * array of the same dtype and shape on another device with cudaMemcpyPeerAsync, on the
 * calling thread's current stream of the destination device. Everything else reduces to it:
 * a source that is not contiguous is gathered on its own device first, a destination that is
 * not contiguous (or needs broadcasting or a cast) receives a contiguous copy on its device
 * and is assigned from there. So the only work that crosses devices is one copy, and its
 * ordering is the hazard tracker's, across devices: the copy's stream waits on events for
 * the source's last writer (on the source's device) and the destination's readers and
 * writer, and commits a read of the source and a write of the destination, so later work on
 * either device waits for it where it must. Nothing here blocks the host.
 *
 * Peer access. cudaMemcpyPeerAsync works between any two devices; it goes directly over
 * NVLink or PCIe when peer access is enabled and is staged through host memory by the driver
 * otherwise. The first copy between two devices that can access each other enables it in
 * both directions, for the devices (cudaDeviceEnablePeerAccess) and for ndcuda's pools
 * (cudaMemPoolSetAccess: pool memory is not covered by the former), once per pair, under a
 * lock; later copies read one atomic. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "src/api_scope.h"
#include "src/array.h"
#include "src/device.h"

/* ---- peer access ------------------------------------------------------------------------------ */

enum { ND__PEER_UNKNOWN = 0, ND__PEER_ENABLED = 1, ND__PEER_STAGED = 2 };

/* State of the unordered pair {a, b}, kept at [min][max]. */
static atomic_int nd__peer_state[ND__MAX_DEVICES][ND__MAX_DEVICES];
static pthread_mutex_t nd__peer_lock = PTHREAD_MUTEX_INITIALIZER;

/* Test hook: when set, pairs not yet enabled stay staged (the path of machines without peer
 * access). */
static atomic_int nd__peer_never;

void nd__peer_set_never(int on) { atomic_store(&nd__peer_never, on != 0); }

/* Enables access from `from` to `to`'s memory, with `from` current. A pair someone else
 * enabled already (the application, another library) counts as enabled. */
static nd_status nd__peer_enable_one(const char *fn, int from, int to) {
  int prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(from, &prev));
  if (st == ND_OK) {
    cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();
    } else if (e != cudaSuccess) {
      st = nd__cuda_status((int)e, "cudaDeviceEnablePeerAccess", fn, __FILE__, __LINE__);
    }
  }
  nd__device_leave(prev);
  if (st == ND_OK) st = nd__pool_share(fn, to, from);
  return st;
}

/* Whether copies between a and b go directly (1) or are staged (0), enabling peer access
 * the first time. */
static nd_status nd__peer_ensure(const char *fn, int a, int b, int *direct) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  int state = atomic_load_explicit(&nd__peer_state[lo][hi], memory_order_acquire);
  if (ND__LIKELY(state != ND__PEER_UNKNOWN)) {
    *direct = state == ND__PEER_ENABLED;
    return ND_OK;
  }
  if (atomic_load(&nd__peer_never)) {
    *direct = 0;
    return ND_OK;
  }
  nd_status st = ND_OK;
  pthread_mutex_lock(&nd__peer_lock);
  state = atomic_load_explicit(&nd__peer_state[lo][hi], memory_order_relaxed);
  if (state == ND__PEER_UNKNOWN) {
    int ab = 0, ba = 0;
    st = ND_CUDA(cudaDeviceCanAccessPeer(&ab, lo, hi));
    if (st == ND_OK) st = ND_CUDA(cudaDeviceCanAccessPeer(&ba, hi, lo));
    if (st == ND_OK) {
      if (ab && ba) {
        st = nd__peer_enable_one(fn, lo, hi);
        if (st == ND_OK) st = nd__peer_enable_one(fn, hi, lo);
      }
      /* A failed enable is reported now and asked again next time. */
      if (st == ND_OK) {
        state = ab && ba ? ND__PEER_ENABLED : ND__PEER_STAGED;
        atomic_store_explicit(&nd__peer_state[lo][hi], state, memory_order_release);
      }
    }
  }
  pthread_mutex_unlock(&nd__peer_lock);
  *direct = state == ND__PEER_ENABLED;
  return st;
}

int nd__peer_direct(int a, int b) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  if (lo < 0 || hi >= ND__MAX_DEVICES) return 0;
  return atomic_load(&nd__peer_state[lo][hi]) == ND__PEER_ENABLED;
}

/* ---- the one cross-device copy ------------------------------------------------------------------ */

/* dst = src, both C-contiguous with the same dtype and shape, on different devices. Enqueued
 * on the calling thread's current stream of dst's device, ordered by the hazard tracker. */
static nd_status nd__copy_peer(const char *fn, nd_array *dst, const nd_array *src) {
  const int dd = dst->buf->device, sd = src->buf->device;
  const int64_t nbytes = dst->size * (int64_t)nd_dtype_itemsize(dst->dtype);
  if (nbytes == 0) return ND_OK;
  int direct = 0;
  ND_TRY(nd__peer_ensure(fn, dd, sd, &direct));
  int prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(dd, &prev));
  if (st != ND_OK) return nd__error_context(st, fn);
  nd_stream *t = nd__stream_current_for(dd);
  if (t == NULL) st = nd__error(ND_ERR_CUDA, "%s: no current stream on device %d", fn, dd);
  /* The waits: src's writer (a stream of device sd: its event is recorded there), dst's
   * readers and writer. A hazard lock is not held across the copy, as for every other
   * operation: the tracker's rules only need the commit to follow the enqueue. */
  if (st == ND_OK) st = nd__hazard_prepare(&src->buf->hz, t, ND__READ);
  if (st == ND_OK && dst->buf != src->buf) st = nd__hazard_prepare(&dst->buf->hz, t, ND__WRITE);
  if (st == ND_OK)
    st = ND_CUDA(cudaMemcpyPeerAsync((char *)dst->buf->ptr + dst->offset, dd,
                                     (const char *)src->buf->ptr + src->offset, sd, (size_t)nbytes,
                                     (cudaStream_t)t->cu));
  if (st == ND_OK) {
    uint64_t seq = nd__stream_commit(t);
    st = nd__hazard_commit(&src->buf->hz, t, seq, ND__READ);
    nd_status st2 = nd__hazard_commit(&dst->buf->hz, t, seq, ND__WRITE);
    if (st == ND_OK) st = st2;
  }
  nd__device_leave(prev);
  return st == ND_OK ? ND_OK : nd__error_context(st, fn);
}

/* ---- building blocks ---------------------------------------------------------------------------- */

/* *out = a C-contiguous copy of a made on device d (a's own device), with d current. */
static nd_status nd__copy_on(const char *fn, int d, const nd_array *a, nd_array **out) {
  int prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(d, &prev));
  if (st == ND_OK) st = nd_array_copy(a, ND_ORDER_C, out);
  nd__device_leave(prev);
  return st == ND_OK ? ND_OK : nd__error_context(st, fn);
}

/* A fresh C-ordered array on device d. */
static nd_status nd__alloc_on(const char *fn, int d, int ndim, const int64_t *shape, nd_dtype dtype,
                              nd_array **out) {
  int prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(d, &prev));
  if (st == ND_OK) st = nd__array_alloc(fn, ndim, shape, dtype, 'C', out);
  nd__device_leave(prev);
  return st;
}

/* a moved to device d (a new C-contiguous array); a may be on d already. */
static nd_status nd__to_device(const char *fn, const nd_array *a, int d, nd_array **out) {
  const int sd = a->buf->device;
  if (sd == d) return nd__copy_on(fn, d, a, out);
  nd_array *gathered = NULL;
  const nd_array *src = a;
  if (!nd_array_is_c_contiguous(a)) {
    ND_TRY(nd__copy_on(fn, sd, a, &gathered));
    src = gathered;
  }
  nd_array *r = NULL;
  nd_status st = nd__alloc_on(fn, d, a->ndim, a->shape, a->dtype, &r);
  if (st == ND_OK) st = nd__copy_peer(fn, r, src);
  nd_array_release(gathered);
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *out = r;
  return ND_OK;
}

nd_status nd__copyto_device(const char *fn, nd_array *dst, const nd_array *src) {
  const int dd = dst->buf->device;
  if (dst->size == 0) return ND_OK;
  /* The common case goes straight across: same dtype and shape, both contiguous. */
  int same_shape = src->ndim == dst->ndim &&
                   !memcmp(src->shape, dst->shape, (size_t)dst->ndim * sizeof(int64_t));
  if (src->dtype == dst->dtype && same_shape && nd_array_is_c_contiguous(dst)) {
    if (nd_array_is_c_contiguous(src)) return nd__copy_peer(fn, dst, src);
    nd_array *g = NULL;
    ND_TRY(nd__copy_on(fn, src->buf->device, src, &g));
    nd_status st = nd__copy_peer(fn, dst, g);
    nd_array_release(g);
    return st;
  }
  /* Otherwise src crosses whole (broadcasting happens after, so it crosses at its own size)
   * and dst is assigned from it on its own device, with conversion. */
  nd_array *moved = NULL;
  ND_TRY(nd__to_device(fn, src, dd, &moved));
  nd_array *b = NULL;
  int prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(dd, &prev));
  if (st == ND_OK) st = nd_array_broadcast_to(moved, dst->ndim, dst->shape, &b);
  if (st == ND_OK) st = nd__assign(fn, dst, b);
  nd__device_leave(prev);
  nd_array_release(b);
  nd_array_release(moved);
  return st;
}

/* ---- public functions ---------------------------------------------------------------------------- */

nd_status nd_array_to_device(const nd_array *a, int device, nd_array **out) {
  const char *fn = "nd_array_to_device";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  int d = -1;
  ND_TRY(nd__device_arg_check(fn, "device", device, 1, &d));
  return nd__to_device(fn, a, d, out);
}

#define ND__SHARD_MAX 4096

nd_status nd_shard_split(const nd_array *a, int axis, int n, const int *devices, nd_array **out) {
  const char *fn = "nd_shard_split";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  if (n < 1 || n > ND__SHARD_MAX)
    return nd__error(ND_ERR_VALUE, "%s: argument 'n' is %d; it must be in 1..%d", fn, n, ND__SHARD_MAX);
  if (a->ndim == 0) return nd__error(ND_ERR_AXIS, "%s: a 0-d array cannot be split (axis %d)", fn, axis);
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  int *dev = malloc((size_t)n * sizeof *dev);
  nd_array **parts = calloc((size_t)n, sizeof *parts);
  nd_status st = dev != NULL && parts != NULL
                     ? ND_OK
                     : nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for %d parts", fn, n);
  for (int i = 0; i < n && st == ND_OK; i++) {
    char arg[32];
    snprintf(arg, sizeof arg, devices != NULL ? "devices[%d]" : "device of part %d", i);
    st = nd__device_arg_check(fn, arg, devices != NULL ? devices[i] : i, 0, &dev[i]);
  }
  /* array_split: the first len % n parts one longer. */
  const int64_t len = a->shape[ax], base = len / n, extra = len % n;
  int64_t start = 0;
  for (int i = 0; i < n && st == ND_OK; i++) {
    const int64_t m = base + (i < extra ? 1 : 0);
    nd_slice sl[ND_MAXDIMS];
    for (int k = 0; k < a->ndim; k++) sl[k] = ND_SLICE_ALL;
    sl[ax].start = start;
    sl[ax].stop = start + m;
    sl[ax].step = 1;
    start += m;
    nd_array *view = NULL;
    st = nd_array_slice(a, a->ndim, sl, &view);
    if (st == ND_OK) st = nd__to_device(fn, view, dev[i], &parts[i]);
    nd_array_release(view);
  }
  if (st == ND_OK) {
    memcpy(out, parts, (size_t)n * sizeof *parts);
  } else if (parts != NULL) {
    for (int i = 0; i < n; i++) nd_array_release(parts[i]);
  }
  free(parts);
  free(dev);
  return st;
}

nd_status nd_shard_gather(int n, const nd_array *const *parts, int axis, int device, nd_array **out) {
  const char *fn = "nd_shard_gather";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, parts);
  ND_CHECK_NULL(fn, out);
  if (n < 1 || n > ND__SHARD_MAX)
    return nd__error(ND_ERR_VALUE, "%s: argument 'n' is %d; it must be in 1..%d", fn, n, ND__SHARD_MAX);
  for (int i = 0; i < n; i++)
    if (parts[i] == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: parts[%d] is NULL", fn, i);
  const nd_array *p0 = parts[0];
  if (p0->ndim == 0) return nd__error(ND_ERR_AXIS, "%s: 0-d parts cannot be joined (axis %d)", fn, axis);
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, p0->ndim, &ax));
  int64_t shape[ND_MAXDIMS];
  memcpy(shape, p0->shape, sizeof shape);
  shape[ax] = 0;
  nd_dtype *dts = malloc((size_t)n * sizeof *dts);
  if (dts == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for %d parts", fn, n);
  nd_status st = ND_OK;
  for (int i = 0; i < n && st == ND_OK; i++) {
    const nd_array *p = parts[i];
    dts[i] = p->dtype;
    if (p->ndim != p0->ndim) {
      st = nd__error(ND_ERR_SHAPE, "%s: parts[0] has %d dimension(s) but parts[%d] has %d", fn,
                     p0->ndim, i, p->ndim);
      break;
    }
    for (int k = 0; k < p->ndim && st == ND_OK; k++)
      if (k != ax && p->shape[k] != p0->shape[k])
        st = nd__error(ND_ERR_SHAPE, "%s: along dimension %d parts[0] has size %lld but parts[%d] "
                       "has size %lld (only axis %d may differ)", fn, k, (long long)p0->shape[k], i,
                       (long long)p->shape[k], ax);
    if (st == ND_OK && __builtin_add_overflow(shape[ax], p->shape[ax], &shape[ax]))
      st = nd__error(ND_ERR_OVERFLOW, "%s: the joined length of axis %d overflows", fn, ax);
  }
  nd_dtype dt = ND_DTYPE_DEFAULT;
  if (st == ND_OK) st = nd_result_type(n, dts, &dt);
  free(dts);
  int d = -1;
  if (st == ND_OK) st = nd__device_arg_check(fn, "device", device, 1, &d);
  nd_array *r = NULL;
  if (st == ND_OK) st = nd__alloc_on(fn, d, p0->ndim, shape, dt, &r);
  int64_t pos = 0;
  for (int i = 0; i < n && st == ND_OK; i++) {
    nd_slice sl[ND_MAXDIMS];
    for (int k = 0; k < p0->ndim; k++) sl[k] = ND_SLICE_ALL;
    sl[ax].start = pos;
    sl[ax].stop = pos + parts[i]->shape[ax];
    sl[ax].step = 1;
    pos += parts[i]->shape[ax];
    nd_array *place = NULL;
    st = nd_array_slice(r, p0->ndim, sl, &place);
    if (st == ND_OK) {
      if (parts[i]->buf->device == d) {
        int prev = -1;
        st = ND_CUDA(nd__device_enter(d, &prev));
        if (st == ND_OK) st = nd__assign(fn, place, parts[i]);
        nd__device_leave(prev);
      } else {
        st = nd__copyto_device(fn, place, parts[i]);
      }
    }
    nd_array_release(place);
  }
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *out = r;
  return ND_OK;
}
