/* Streams on CUDA: creation, the null and per-thread streams, the current-stream stack, and
 * the CUDA binding of the ordering model.
 *
 * The current stream is kept per thread as one stack of (device, stream) entries: the current
 * stream of device d is the topmost entry for d, else d's default. One stack for all devices
 * keeps thread-local storage small; pops are per device. */
#include <pthread.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "src/device.h"
#include "streams/stream_internal.h"

#define ND__STACK_MAX 64

/* ---- the CUDA binding ------------------------------------------------------------------ */

/* Both run with the stream's device current: the legacy and per-thread handles name the
 * current device's stream, and a record on another device's stream of an event made there is
 * refused. Ordering across devices happens here, when a consumer on one device waits for a
 * producer on another (CUDA lets a stream wait on an event of any device). */
static int nd__cu_record(void *event, void *cu, int device) {
  int prev = -1;
  int e = nd__device_enter(device, &prev);
  if (e == 0) e = (int)cudaEventRecord((cudaEvent_t)event, (cudaStream_t)cu);
  nd__device_leave(prev);
  return e;
}
static int nd__cu_wait(void *cu, void *event, int device) {
  int prev = -1;
  int e = nd__device_enter(device, &prev);
  if (e == 0) e = (int)cudaStreamWaitEvent((cudaStream_t)cu, (cudaEvent_t)event, 0);
  nd__device_leave(prev);
  return e;
}
static int nd__cu_host_wait(void *event) { return (int)cudaEventSynchronize((cudaEvent_t)event); }
static void nd__cu_event_destroy(void *event) { (void)cudaEventDestroy((cudaEvent_t)event); }

static const nd__sync_binding nd__cuda_binding = {nd__cu_record, nd__cu_wait, nd__cu_host_wait,
                                                  nd__cu_event_destroy, "cuda"};

const nd__sync_binding *nd__cuda_sync_binding(void) { return &nd__cuda_binding; }

/* Installs the CUDA binding unless a test installed another one first. */
static void nd__binding_default(void) {
  if (nd__binding == NULL) nd__set_sync_binding(&nd__cuda_binding);
}

/* Creates a stream object around cu for the current device with a fresh hand-off event. */
static nd_status nd__stream_wrap(const char *fn, int kind, int device, cudaStream_t cu,
                                 nd_stream **out) {
  nd__binding_default();
  cudaEvent_t ev = NULL;
  /* The hand-off event belongs to the stream's device (a device's default stream may be
   * wanted while another device is current, e.g. to free a buffer of that device). */
  int prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(device, &prev));
  if (st == ND_OK) st = ND_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  nd__device_leave(prev);
  if (st != ND_OK) return nd__error_context(st, fn);
  nd_stream *s = malloc(sizeof *s);
  if (s == NULL) {
    (void)cudaEventDestroy(ev);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for a stream handle", fn);
  }
  nd__stream_init(s, kind, device, cu, ev);
  *out = s;
  return ND_OK;
}

/* ---- the null and per-thread streams --------------------------------------------------- */

static nd_stream *nd__null_streams[ND__MAX_DEVICES];
static pthread_mutex_t nd__null_lock = PTHREAD_MUTEX_INITIALIZER;

static nd_stream *nd__null_for(int device) {
  nd_stream *s = __atomic_load_n(&nd__null_streams[device], __ATOMIC_ACQUIRE);
  if (ND__LIKELY(s != NULL)) return s;
  pthread_mutex_lock(&nd__null_lock);
  s = nd__null_streams[device];
  if (s == NULL && nd__stream_wrap("nd_stream_null", ND__STREAM_LEGACY, device, cudaStreamLegacy,
                                   &s) == ND_OK)
    __atomic_store_n(&nd__null_streams[device], s, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&nd__null_lock);
  return s;
}

typedef struct nd__thread_state {
  nd_stream *per_thread[ND__MAX_DEVICES];
  int depth;
  int stack_device[ND__STACK_MAX];
  nd_stream *stack[ND__STACK_MAX];
} nd__thread_state;

static _Thread_local nd__thread_state *nd__ts;
static pthread_key_t nd__ts_key;
static pthread_once_t nd__ts_once = PTHREAD_ONCE_INIT;

/* At thread exit the per-thread streams die with the thread. Their eager records already
 * cover every operation, so buffers that remember them stay ordered; they are marked
 * destroyed so that nobody enqueues on them again. */
static void nd__ts_destroy(void *p) {
  nd__thread_state *ts = p;
  for (int d = 0; d < ND__MAX_DEVICES; d++)
    if (ts->per_thread[d] != NULL) {
      atomic_store(&ts->per_thread[d]->destroyed, 1);
      nd__stream_release(ts->per_thread[d]);
    }
  free(ts);
}
static void nd__ts_key_init(void) { (void)pthread_key_create(&nd__ts_key, nd__ts_destroy); }

static nd__thread_state *nd__thread_state_get(void) {
  if (ND__LIKELY(nd__ts != NULL)) return nd__ts;
  pthread_once(&nd__ts_once, nd__ts_key_init);
  nd__ts = calloc(1, sizeof *nd__ts);
  if (nd__ts != NULL) (void)pthread_setspecific(nd__ts_key, nd__ts);
  return nd__ts;
}

static nd_stream *nd__per_thread_for(int device) {
  nd__thread_state *ts = nd__thread_state_get();
  if (ts == NULL) return NULL;
  if (ts->per_thread[device] == NULL) {
    nd_stream *s = NULL;
    if (nd__stream_wrap("nd_stream_per_thread", ND__STREAM_PER_THREAD, device,
                        cudaStreamPerThread, &s) != ND_OK)
      return NULL;
    s->owner = nd__thread_self();
    ts->per_thread[device] = s;
  }
  return ts->per_thread[device];
}

nd_stream *nd_stream_null(void) {
  int d = -1;
  if (nd__device_current("nd_stream_null", &d) != ND_OK) return NULL;
  return nd__null_for(d);
}

nd_stream *nd_stream_per_thread(void) {
  int d = -1;
  if (nd__device_current("nd_stream_per_thread", &d) != ND_OK) return NULL;
  return nd__per_thread_for(d);
}

nd_stream *nd__stream_current_for(int device) {
  nd__thread_state *ts = nd__ts;
  if (ts != NULL)
    for (int i = ts->depth - 1; i >= 0; i--)
      if (ts->stack_device[i] == device) return ts->stack[i];
  return nd__config_flag(ND__CFG_PER_THREAD_DEFAULT_STREAM) ? nd__per_thread_for(device) : nd__null_for(device);
}

nd_stream *nd_stream_current(void) {
  int d = -1;
  if (nd__device_current("nd_stream_current", &d) != ND_OK) return NULL;
  return nd__stream_current_for(d);
}

/* ---- public stream API ----------------------------------------------------------------- */

nd_status nd_stream_create(unsigned flags, int priority, nd_stream **out) {
  ND_CHECK_NULL("nd_stream_create", out);
  if (flags & ~(unsigned)ND_STREAM_NON_BLOCKING)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "nd_stream_create: unknown flags 0x%x", flags);
  int d = -1;
  ND_TRY(nd__device_current("nd_stream_create", &d));
  int lo = 0, hi = 0;
  ND_TRY(ND_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi)));
  /* CUDA's range is [greatest, least] with greatest numerically smaller. */
  if (priority < hi) priority = hi;
  if (priority > lo) priority = lo;
  cudaStream_t cu = NULL;
  unsigned cflags = (flags & ND_STREAM_NON_BLOCKING) ? cudaStreamNonBlocking : cudaStreamDefault;
  ND_TRY(ND_CUDA(cudaStreamCreateWithPriority(&cu, cflags, priority)));
  nd_status st = nd__stream_wrap("nd_stream_create", ND__STREAM_OWNED, d, cu, out);
  if (st != ND_OK) (void)cudaStreamDestroy(cu);
  return st;
}

nd_status nd_stream_from_cuda(struct CUstream_st *cuda_stream, nd_stream **out) {
  ND_CHECK_NULL("nd_stream_from_cuda", out);
  int d = -1;
  ND_TRY(nd__device_current("nd_stream_from_cuda", &d));
  cudaStream_t cu = (cudaStream_t)cuda_stream;
  if (cu == NULL || cu == cudaStreamLegacy) {
    *out = nd__null_for(d);
    return *out ? ND_OK : nd__error(ND_ERR_CUDA, "nd_stream_from_cuda: null stream unavailable");
  }
  if (cu == cudaStreamPerThread) {
    *out = nd__per_thread_for(d);
    return *out ? ND_OK : nd__error(ND_ERR_CUDA, "nd_stream_from_cuda: per-thread stream unavailable");
  }
  return nd__stream_wrap("nd_stream_from_cuda", ND__STREAM_FOREIGN, d, cu, out);
}

static nd__stream_retire_hook nd__retire_hook;

void nd__stream_set_retire_hook(nd__stream_retire_hook hook) {
  __atomic_store_n(&nd__retire_hook, hook, __ATOMIC_RELEASE);
}

nd_status nd_stream_destroy(nd_stream *s) {
  if (s == NULL || s->kind == ND__STREAM_LEGACY || s->kind == ND__STREAM_PER_THREAD) return ND_OK;
  nd__thread_state *ts = nd__ts;
  if (ts != NULL)
    for (int i = 0; i < ts->depth; i++)
      if (ts->stack[i] == s)
        return nd__error(ND_ERR_STREAM, "nd_stream_destroy: stream %llu is on the calling "
                         "thread's current-stream stack (depth %d); pop it first",
                         (unsigned long long)s->id, i + 1);
  /* Cached blocks last used on s go back to the pool while s still exists (the allocator's
   * hook). The final record covers all work, so buffers that remember the stream can still be
   * ordered after it once the CUDA stream is gone. */
  /* With the stream's device current, as for every other use of its handle. */
  int prev = -1;
  if (nd__device_enter(s->device, &prev) != 0) prev = -1;
  const nd__stream_retire_hook hook = __atomic_load_n(&nd__retire_hook, __ATOMIC_ACQUIRE);
  if (hook != NULL) hook(s);
  nd_status st = nd__stream_retire(s);
  if (s->kind == ND__STREAM_OWNED) {
    nd_status st2 = ND_CUDA(cudaStreamDestroy((cudaStream_t)s->cu));
    if (st == ND_OK) st = st2;
  }
  nd__device_leave(prev);
  nd__stream_release(s);
  return st;
}

nd_status nd_stream_push(nd_stream *s) {
  ND_CHECK_NULL("nd_stream_push", s);
  if (!nd__stream_usable_here(s))
    return nd__error(ND_ERR_STREAM, "nd_stream_push: stream %llu is destroyed or is another "
                     "thread's per-thread stream", (unsigned long long)s->id);
  nd__thread_state *ts = nd__thread_state_get();
  if (ts == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "nd_stream_push: no host memory");
  if (ts->depth == ND__STACK_MAX)
    return nd__error(ND_ERR_STREAM, "nd_stream_push: stack is full (%d pushes without a pop)",
                     ND__STACK_MAX);
  ts->stack_device[ts->depth] = s->device;
  ts->stack[ts->depth] = s;
  ts->depth++;
  return ND_OK;
}

nd_status nd_stream_pop(void) {
  int d = -1;
  ND_TRY(nd__device_current("nd_stream_pop", &d));
  nd__thread_state *ts = nd__ts;
  for (int i = ts ? ts->depth - 1 : -1; i >= 0; i--)
    if (ts->stack_device[i] == d) {
      for (int j = i + 1; j < ts->depth; j++) {
        ts->stack_device[j - 1] = ts->stack_device[j];
        ts->stack[j - 1] = ts->stack[j];
      }
      ts->depth--;
      return ND_OK;
    }
  return nd__error(ND_ERR_STREAM, "nd_stream_pop: nothing was pushed on device %d", d);
}

nd_status nd_stream_synchronize(nd_stream *s) {
  ND_CHECK_NULL("nd_stream_synchronize", s);
  if (atomic_load(&s->destroyed))
    return nd__error(ND_ERR_STREAM, "nd_stream_synchronize: stream %llu was destroyed",
                     (unsigned long long)s->id);
  int prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(s->device, &prev));
  if (st == ND_OK) st = ND_CUDA(cudaStreamSynchronize((cudaStream_t)s->cu));
  nd__device_leave(prev);
  return st;
}

nd_status nd_stream_query(nd_stream *s, int *done) {
  ND_CHECK_NULL("nd_stream_query", s);
  ND_CHECK_NULL("nd_stream_query", done);
  int prev = -1;
  ND_TRY(ND_CUDA(nd__device_enter(s->device, &prev)));
  cudaError_t e = cudaStreamQuery((cudaStream_t)s->cu);
  nd__device_leave(prev);
  if (e == cudaErrorNotReady) {
    *done = 0;
    return ND_OK;
  }
  *done = e == cudaSuccess;
  return ND_CUDA(e);
}

struct CUstream_st *nd_stream_cuda(const nd_stream *s) { return s ? (struct CUstream_st *)s->cu : NULL; }

int nd_stream_device(const nd_stream *s) { return s ? s->device : -1; }
