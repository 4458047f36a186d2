/* User-visible events: a thin wrapper over cudaEvent_t that takes nd_stream handles. */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "streams/stream_internal.h"


struct nd_event {
  cudaEvent_t ev;
  unsigned flags;
  int device; /* the current device at creation: CUDA records an event only on its device */
};

nd_status nd_event_create(unsigned flags, nd_event **out) {
  ND_CHECK_NULL("nd_event_create", out);
  if (flags & ~(unsigned)(ND_EVENT_TIMING | ND_EVENT_BLOCKING_SYNC))
    return nd__error(ND_ERR_INVALID_ARGUMENT, "nd_event_create: unknown flags 0x%x", flags);
  int d = -1;
  ND_TRY(nd__device_current("nd_event_create", &d));
  unsigned cf = (flags & ND_EVENT_TIMING) ? 0 : cudaEventDisableTiming;
  if (flags & ND_EVENT_BLOCKING_SYNC) cf |= cudaEventBlockingSync;
  nd_event *e = malloc(sizeof *e);
  if (e == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "nd_event_create: no host memory");
  nd_status st = ND_CUDA(cudaEventCreateWithFlags(&e->ev, cf));
  if (st != ND_OK) {
    free(e);
    return st;
  }
  e->flags = flags;
  e->device = d;
  *out = e;
  return ND_OK;
}

nd_status nd_event_destroy(nd_event *e) {
  if (e == NULL) return ND_OK;
  nd_status st = ND_CUDA(cudaEventDestroy(e->ev));
  free(e);
  return st;
}

static nd_status nd__stream_or_current(const char *fn, nd_stream **s) {
  if (*s != NULL) return ND_OK;
  int d = -1;
  ND_TRY(nd__device_current(fn, &d));
  *s = nd__stream_current_for(d);
  return *s ? ND_OK : nd__error(ND_ERR_CUDA, "%s: no current stream", fn);
}

nd_status nd_event_record(nd_event *e, nd_stream *s) {
  ND_CHECK_NULL("nd_event_record", e);
  ND_TRY(nd__stream_or_current("nd_event_record", &s));
  if (s->device != e->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "nd_event_record: the event belongs to device %d but "
                     "the stream to device %d (CUDA records an event only on its own device)",
                     e->device, s->device);
  /* The legacy and per-thread handles name the current device's stream: enqueue with the
   * stream's device current. */
  int prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(s->device, &prev));
  if (st == ND_OK) st = ND_CUDA(cudaEventRecord(e->ev, (cudaStream_t)s->cu));
  nd__device_leave(prev);
  return st;
}

nd_status nd_stream_wait_event(nd_stream *s, nd_event *e) {
  ND_CHECK_NULL("nd_stream_wait_event", e);
  ND_TRY(nd__stream_or_current("nd_stream_wait_event", &s));
  /* A stream may wait on an event of another device (CUDA orders across devices this way). */
  int prev = -1;
  nd_status st = ND_CUDA(nd__device_enter(s->device, &prev));
  if (st == ND_OK) st = ND_CUDA(cudaStreamWaitEvent((cudaStream_t)s->cu, e->ev, 0));
  nd__device_leave(prev);
  return st;
}

nd_status nd_event_synchronize(nd_event *e) {
  ND_CHECK_NULL("nd_event_synchronize", e);
  return ND_CUDA(cudaEventSynchronize(e->ev));
}

nd_status nd_event_query(nd_event *e, int *done) {
  ND_CHECK_NULL("nd_event_query", e);
  ND_CHECK_NULL("nd_event_query", done);
  cudaError_t r = cudaEventQuery(e->ev);
  if (r == cudaErrorNotReady) {
    *done = 0;
    return ND_OK;
  }
  *done = r == cudaSuccess;
  return ND_CUDA(r);
}

nd_status nd_event_elapsed_ms(nd_event *start, nd_event *end, float *ms) {
  ND_CHECK_NULL("nd_event_elapsed_ms", start);
  ND_CHECK_NULL("nd_event_elapsed_ms", end);
  ND_CHECK_NULL("nd_event_elapsed_ms", ms);
  if (!(start->flags & ND_EVENT_TIMING) || !(end->flags & ND_EVENT_TIMING))
    return nd__error(ND_ERR_INVALID_ARGUMENT, "nd_event_elapsed_ms: both events need "
                     "ND_EVENT_TIMING (start flags 0x%x, end flags 0x%x)", start->flags,
                     end->flags);
  return ND_CUDA(cudaEventElapsedTime(ms, start->ev, end->ev));
}

struct CUevent_st *nd_event_cuda(const nd_event *e) { return e ? (struct CUevent_st *)e->ev : NULL; }

int nd_event_device(const nd_event *e) { return e ? e->device : -1; }
