/* Streams, events and the calling thread's current stream.
 *
 * Every ndcuda operation enqueues its work on the calling thread's current stream for the
 * current device (nd_stream_current()). The default is the legacy null stream; with
 * ND_PER_THREAD_DEFAULT_STREAM=1 in the environment it is the per-thread default stream.
 * nd_stream_push()/nd_stream_pop() change it for a scope, nestably.
 *
 * The library orders data between streams: each device buffer remembers the stream that last
 * wrote it and the streams that read it since; an operation on another stream first waits on
 * an event recorded after that work. Nothing is recorded or waited on when producer and
 * consumer share a stream. ND_AUTO_EVENTS=0 turns this off; it is a diagnostic that makes the
 * races the library prevents observable, not a mode to run in.
 *
 * Handles are reference counted inside the library: destroying a stream that buffers still
 * remember is safe (the library keeps the ordering it needs and the handle's memory until
 * the last reference goes). */
#ifndef NDCUDA_STREAM_H
#define NDCUDA_STREAM_H

#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CUDA's stream and event types, declared so that this header does not need the CUDA
 * headers: struct CUstream_st * is cudaStream_t, struct CUevent_st * is cudaEvent_t. */
struct CUstream_st;
struct CUevent_st;

/* A stream on one device (opaque; see nd_stream_create). */
typedef struct nd_stream nd_stream;
/* An event on one device (opaque; see nd_event_create). */
typedef struct nd_event nd_event;

/* Stream flags for nd_stream_create. */
enum {
  ND_STREAM_DEFAULT = 0,     /* synchronises with the legacy null stream, as CUDA does */
  ND_STREAM_NON_BLOCKING = 1 /* does not synchronise with the legacy null stream */
};

/* Event flags for nd_event_create. */
enum {
  ND_EVENT_DEFAULT = 0,     /* no timing: cheapest to record and wait on */
  ND_EVENT_TIMING = 1,      /* can be used with nd_event_elapsed_ms */
  ND_EVENT_BLOCKING_SYNC = 2 /* nd_event_synchronize yields the CPU instead of spinning */
};

/* Creates a stream on the current device. priority follows CUDA (lower is higher priority;
 * it is clamped to the device's range). Returns a new handle in *out.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_INVALID_ARGUMENT (unknown flags), ND_ERR_NO_DEVICE,
 * ND_ERR_CUDA. Does not block. */
ND_API nd_status nd_stream_create(unsigned flags, int priority, nd_stream **out);

/* Wraps a stream the caller created (no ownership: nd_stream_destroy releases only the
 * wrapper; the caller destroys the CUDA stream, after nd_stream_destroy). Passing NULL or
 * cudaStreamLegacy gives the legacy null stream, cudaStreamPerThread the per-thread stream.
 * The stream's device is the current device. Errors: ND_ERR_NULL_POINTER (out),
 * ND_ERR_NO_DEVICE, ND_ERR_CUDA. */
ND_API nd_status nd_stream_from_cuda(struct CUstream_st *cuda_stream, nd_stream **out);

/* Releases a handle from nd_stream_create or nd_stream_from_cuda. Work already enqueued
 * completes; buffers that remember the stream stay correctly ordered. The stream must not be
 * on any thread's current-stream stack. Destroying the null or per-thread handles is a
 * no-op. NULL is accepted. Errors: ND_ERR_STREAM when the stream is the calling thread's
 * current stream, ND_ERR_CUDA. Does not block. */
ND_API nd_status nd_stream_destroy(nd_stream *stream);

/* The legacy null stream of the current device (one handle per device, never destroyed), or
 * NULL when no device exists. */
ND_API nd_stream *nd_stream_null(void);

/* The calling thread's per-thread default stream on the current device (a handle valid on
 * this thread only), or NULL when no device exists. */
ND_API nd_stream *nd_stream_per_thread(void);

/* The calling thread's current stream on the current device: the top of its stack, else the
 * default (see above). NULL when no device exists. Borrowed: do not destroy. */
ND_API nd_stream *nd_stream_current(void);

/* Makes stream the calling thread's current stream for its device until the matching pop.
 * Pushes nest. Borrows stream; the caller keeps it alive until it is popped.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_STREAM (another thread's per-thread stream, a destroyed
 * stream, stack deeper than 64). */
ND_API nd_status nd_stream_push(nd_stream *stream);

/* Undoes the last push on the current device. Errors: ND_ERR_STREAM (nothing pushed). */
ND_API nd_status nd_stream_pop(void);

/* Blocks until all work enqueued on the stream (of any device, whichever is current) has
 * finished. Errors: ND_ERR_NULL_POINTER,
 * ND_ERR_CUDA (an asynchronous failure of earlier work is reported here). */
ND_API nd_status nd_stream_synchronize(nd_stream *stream);

/* Writes 1 to *done if all work on the stream has finished, else 0. Does not block. */
ND_API nd_status nd_stream_query(nd_stream *stream, int *done);

/* The CUDA stream behind the handle (cudaStreamLegacy for the null stream,
 * cudaStreamPerThread for the per-thread one), for launching one's own kernels. Work the
 * caller launches there is not tracked unless it is bracketed by nd_array_wait and
 * nd_array_record (array.h). */
ND_API struct CUstream_st *nd_stream_cuda(const nd_stream *stream);

/* The device the stream belongs to, -1 for NULL. */
ND_API int nd_stream_device(const nd_stream *stream);

/* Creates an event on the current device with ND_EVENT_* flags. Errors: ND_ERR_NULL_POINTER,
 * ND_ERR_INVALID_ARGUMENT, ND_ERR_NO_DEVICE, ND_ERR_CUDA. */
ND_API nd_status nd_event_create(unsigned flags, nd_event **out);

/* Destroys an event (NULL accepted). Pending waits on it stay valid, as in CUDA. */
ND_API nd_status nd_event_destroy(nd_event *event);

/* Records the event on stream (NULL means the current stream). The stream must belong to the
 * event's device (nd_event_device): ND_ERR_DEVICE_MISMATCH otherwise, naming both; the current
 * device may be another one. Does not block. */
ND_API nd_status nd_event_record(nd_event *event, nd_stream *stream);

/* Makes stream (NULL: current) wait for the event's last record; the event may belong to
 * another device (an order between devices). Does not block the host. */
ND_API nd_status nd_stream_wait_event(nd_stream *stream, nd_event *event);

/* Blocks until the event's last record has completed. */
ND_API nd_status nd_event_synchronize(nd_event *event);

/* Writes 1 to *done when the event's last record has completed (or it was never recorded). */
ND_API nd_status nd_event_query(nd_event *event, int *done);

/* Milliseconds between two completed records of ND_EVENT_TIMING events. Errors:
 * ND_ERR_NULL_POINTER, ND_ERR_INVALID_ARGUMENT (an event without timing), ND_ERR_CUDA (not
 * yet complete, never recorded). */
ND_API nd_status nd_event_elapsed_ms(nd_event *start, nd_event *end, float *ms);

/* The CUDA event behind the handle. */
ND_API struct CUevent_st *nd_event_cuda(const nd_event *event);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_STREAM_H */
