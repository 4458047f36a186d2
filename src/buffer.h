/* Reference-counted device buffers with hazard tracking, and the per-device pool. */
#ifndef ND_BUFFER_H
#define ND_BUFFER_H

#include <stdatomic.h>
#include <stdint.h>

#include "src/internal.h"
#include "streams/hazard.h"

#ifdef __cplusplus
extern "C" {
#endif

enum nd__buffer_kind {
  ND__BUF_POOL = 0,   /* from the stream-ordered pool; freed with cudaFreeAsync */
  ND__BUF_FOREIGN = 1 /* a caller's pointer; the release callback runs when unused */
};

typedef void (*nd__release_fn)(void *ptr, void *ctx);

typedef struct nd__buffer {
  atomic_long refs;
  void *ptr;
  int64_t nbytes;
  int64_t capacity; /* bytes actually reserved (a size class), 0 when not cacheable */
  int device;
  int kind;
  nd__release_fn release;
  void *release_ctx;
  nd__hazard hz;
} nd__buffer;

/* Allocates nbytes on device from the pool, in stream order on s (the allocation counts as a
 * write on s, so first use on another stream waits for it). nbytes may be 0. fn names the
 * public function in messages. Errors: ND_ERR_OUT_OF_MEMORY (after trimming the pool and one
 * retry; the message gives the request and the pool state), ND_ERR_CUDA. */
nd_status nd__buffer_alloc(const char *fn, int device, nd_stream *s, int64_t nbytes,
                                  nd__buffer **out);

/* Wraps a caller's device pointer (not owned). release(ptr, ctx), if given, is called once
 * every use enqueued by ndcuda has finished, when the last reference goes. */
nd_status nd__buffer_wrap(const char *fn, void *ptr, int64_t nbytes, int device,
                                 nd__release_fn release, void *ctx, nd__buffer **out);

void nd__buffer_retain(nd__buffer *b);

/* Drops a reference; the last one frees the memory on the stream that used it (or, if several
 * streams used it, on the current stream after waiting for all of them), so the pool cannot
 * hand the memory out again before those uses finish. */
void nd__buffer_release(nd__buffer *b);

/* Lets device peer reach the memory of owner's pool directly (cudaMemPoolSetAccess; pool
 * memory is not covered by cudaDeviceEnablePeerAccess). Every allocation of the pool, past
 * and future, becomes accessible. Creates owner's pool if needed. Errors: ND_ERR_CUDA. */
nd_status nd__pool_share(const char *fn, int owner, int peer);

#ifdef __cplusplus
}
#endif

#endif /* ND_BUFFER_H */
