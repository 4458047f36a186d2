/* Per-buffer hazard tracking: which stream last wrote a buffer and which streams have read it
 * since, so that an operation on another stream can be ordered after them.
 *
 * Rules (RAW, WAR, WAW):
 * - a read on stream T waits for the last writer when it ran on another stream;
 * - a write on T waits for the last writer and for every reader since, on other streams;
 * - readers on different streams never wait for each other;
 * - a write forgets the readers before it (they are ordered before the write now).
 * Uses are (stream, seq) pairs: seq numbers the tracked operations of one stream. Nothing is
 * recorded when the same stream both produces and consumes. Plain host code. */
#ifndef ND_HAZARD_H
#define ND_HAZARD_H

#include <stdatomic.h>
#include <stdint.h>

#include "streams/stream_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { ND__READ = 1, ND__WRITE = 2 };

typedef struct nd__use {
  nd_stream *stream; /* holds a reference; NULL when unused */
  uint64_t seq;
} nd__use;

#define ND__INLINE_READERS 4

typedef struct nd__hazard {
  atomic_flag lock;
  int device; /* the device of the memory it guards; -1: not known (host tests) */
  nd__use writer;
  int nreaders;
  int capreaders;
  nd__use *readers; /* inline_readers or a heap array */
  nd__use inline_readers[ND__INLINE_READERS];
} nd__hazard;

/* device: where the guarded memory lives (nd__sync_add refuses a stream of another device);
 * -1 when not known. */
void nd__hazard_init(nd__hazard *h);
void nd__hazard_init_device(nd__hazard *h, int device);

/* Drops every stream reference and frees the reader array. */
void nd__hazard_clear(nd__hazard *h);

/* Before enqueueing an access of the given mode on stream s: inserts the waits the rules
 * require. The buffer is locked while this runs. */
nd_status nd__hazard_prepare(nd__hazard *h, nd_stream *s, int mode);

/* After enqueueing: records the access as (s, seq) where seq came from nd__stream_commit. */
nd_status nd__hazard_commit(nd__hazard *h, nd_stream *s, uint64_t seq, int mode);

/* The single stream that every recorded use ran on, if it is usable from this thread; NULL
 * if the buffer was used on several streams, on none, or on one that is gone. Used to free a
 * buffer on the stream that used it, with no wait. */
nd_stream *nd__hazard_sole_stream(nd__hazard *h);

/* Blocks the host until the uses a host access of `mode` conflicts with have finished: the
 * writer for a read, writer and readers for a write (or a free of a foreign pointer). */
nd_status nd__hazard_host_wait(nd__hazard *h, int mode);

/* An op's set of buffer accesses, prepared and committed together. Buffers that appear
 * twice are merged (a write wins), so in-place operations wait correctly.
 *
 * This is also where every operation's device rule is enforced, once for all operations:
 * nd__sync_add refuses memory of a device other than the stream's (ND_ERR_DEVICE_MISMATCH,
 * naming both devices and the public function). An operation runs on the current stream of
 * the current device, so an operand on another device is refused before anything is
 * launched. Copies between devices do not use nd__sync; they call nd__hazard_prepare and
 * nd__hazard_commit directly (src/peer.c). */
#define ND__SYNC_MAX 48
typedef struct nd__sync {
  nd_stream *stream;
  const char *fn; /* the public function, for messages (nd__sync_name); may be NULL */
  int n;
  nd__hazard *hz[ND__SYNC_MAX];
  int mode[ND__SYNC_MAX];
} nd__sync;

/* Names the public function whose operation the calling thread is preparing, for the
 * messages of the syncs it initialises next (nd__array_stream calls it: every operation asks
 * it for its stream first). */
void nd__sync_name(const char *fn);

void nd__sync_init(nd__sync *sync, nd_stream *stream);
nd_status nd__sync_add(nd__sync *sync, nd__hazard *h, int mode);
nd_status nd__sync_begin(nd__sync *sync);
nd_status nd__sync_end(nd__sync *sync);

#ifdef __cplusplus
}
#endif

#endif /* ND_HAZARD_H */
