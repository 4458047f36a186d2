/* The stream object and the hooks through which the ordering model reaches CUDA.
 *
 * The ordering model (hazard.c) is plain host code: it only sees nd_stream objects and calls
 * two functions through nd__sync_binding to record an event on a stream and to make a stream
 * wait on an event. The CUDA binding lives in stream.c; the host test suite installs a
 * synthetic binding and drives the model with fake streams. */
#ifndef ND_STREAM_INTERNAL_H
#define ND_STREAM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "src/device.h"
#include "src/internal.h"
#include "ndcuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

enum nd__stream_kind {
  ND__STREAM_OWNED = 0,      /* created by nd_stream_create, destroyed by us */
  ND__STREAM_FOREIGN = 1,    /* wraps a caller's cudaStream_t */
  ND__STREAM_LEGACY = 2,     /* the legacy null stream of one device */
  ND__STREAM_PER_THREAD = 3, /* the per-thread default stream of one thread and device */
  ND__STREAM_SYNTHETIC = 4   /* host tests: no CUDA object behind it */
};

/* How many producer streams a consumer remembers having waited on (most recent first). A
 * miss only costs a redundant wait. */
#define ND__WAITED_SLOTS 8

typedef struct nd__waited {
  uint64_t stream_id;
  uint64_t seq;
} nd__waited;

struct nd_stream {
  atomic_long refs;     /* the user's handle (1) plus one per buffer use that names it */
  uint64_t id;          /* unique for the process lifetime, never reused */
  void *cu;             /* cudaStream_t */
  void *event;          /* cudaEvent_t re-recorded for hand-offs; covers recorded_seq */
  int device;
  int kind;
  int eager;            /* record after every tracked op (streams whose CUDA handle means a
                           different stream on each thread, so no other thread can record) */
  const void *owner;    /* thread that owns a per-thread stream */
  atomic_int destroyed; /* the user destroyed it: cu is gone, event covers everything */
  atomic_uint_fast64_t seq; /* tracked operations committed on this stream */
  pthread_mutex_t lock;     /* guards recorded_seq, recording, and waited[] */
  uint64_t recorded_seq;    /* highest seq that `event`'s last record covers */
  nd__waited waited[ND__WAITED_SLOTS];
};

/* The two operations the model needs. Each returns 0 or the vendor's error code. device is
 * the device of the stream cu (the one whose work is recorded, or the one that waits), which
 * may differ from the calling thread's current device when work crosses devices. */
typedef struct nd__sync_binding {
  int (*record)(void *event, void *cu, int device);
  int (*wait)(void *cu, void *event, int device);
  int (*host_wait)(void *event);
  void (*event_destroy)(void *event);
  const char *name;
} nd__sync_binding;

/* The active binding (CUDA unless a test replaced it). */
extern const nd__sync_binding *nd__binding;
void nd__set_sync_binding(const nd__sync_binding *binding);
const nd__sync_binding *nd__cuda_sync_binding(void);

/* Whether automatic ordering is on (ND_AUTO_EVENTS, read once; tests may override). */
int nd__auto_events(void);
void nd__set_auto_events(int on);

/* Called by nd_stream_destroy with the stream before its CUDA stream goes, so that state kept
 * per stream elsewhere can be let go while the stream still exists. The allocator registers
 * its cache flush here when it makes its first pool: streams/ does not call the allocator. One
 * hook; a later call replaces it. */
typedef void (*nd__stream_retire_hook)(nd_stream *s);
void nd__stream_set_retire_hook(nd__stream_retire_hook hook);

/* Initialises the common fields of a stream object (refs = 1, fresh id, lock). */
void nd__stream_init(nd_stream *s, int kind, int device, void *cu, void *event);

/* A host-only stream for tests of the ordering model: cu and event are the caller's tokens. */
nd_stream *nd__stream_new_synthetic(void *cu, void *event);

/* Reference counting of stream objects by the buffers that remember them. */
void nd__stream_retain(nd_stream *s);
void nd__stream_release(nd_stream *s);

/* Marks one tracked operation as enqueued on s and returns its sequence number. Call after
 * the work has been enqueued. Eager streams record their event here. */
uint64_t nd__stream_commit(nd_stream *s);

/* Makes consumer wait until producer's work up to seq has finished, recording producer's
 * event if its last record does not cover seq yet. No-op when consumer == producer, when
 * consumer already waited that far, or when automatic ordering is off. */
nd_status nd__stream_order(nd_stream *consumer, nd_stream *producer, uint64_t seq);

/* Blocks the host until producer's work up to seq has finished. */
nd_status nd__stream_host_wait(nd_stream *producer, uint64_t seq);

/* Whether the calling thread may enqueue work on s (alive, and not another thread's
 * per-thread stream). */
int nd__stream_usable_here(const nd_stream *s);


/* The calling thread's current stream for a device (NULL only if creating the default
 * stream's handle failed). */
nd_stream *nd__stream_current_for(int device);

/* An identifier of the calling thread (for per-thread stream ownership). */
const void *nd__thread_self(void);

/* Marks s destroyed after recording a final event that covers all its work. */
nd_status nd__stream_retire(nd_stream *s);

#ifdef __cplusplus
}
#endif

#endif /* ND_STREAM_INTERNAL_H */
