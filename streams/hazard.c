/* Per-buffer hazard tracking (see hazard.h for the rules). Plain host code. */
#include <stdlib.h>
#include <string.h>

#include "streams/hazard.h"

static inline void nd__hz_lock(nd__hazard *h) {
  while (atomic_flag_test_and_set_explicit(&h->lock, memory_order_acquire)) {
  }
}
static inline void nd__hz_unlock(nd__hazard *h) {
  atomic_flag_clear_explicit(&h->lock, memory_order_release);
}

void nd__hazard_init(nd__hazard *h) { nd__hazard_init_device(h, -1); }

void nd__hazard_init_device(nd__hazard *h, int device) {
  atomic_flag_clear(&h->lock);
  h->device = device;
  h->writer.stream = NULL;
  h->writer.seq = 0;
  h->nreaders = 0;
  h->capreaders = ND__INLINE_READERS;
  h->readers = h->inline_readers;
}

static void nd__use_set(nd__use *u, nd_stream *s, uint64_t seq) {
  if (u->stream != s) {
    nd__stream_retain(s);
    if (u->stream != NULL) nd__stream_release(u->stream);
    u->stream = s;
  }
  u->seq = seq;
}

static void nd__readers_clear(nd__hazard *h) {
  for (int i = 0; i < h->nreaders; i++) nd__stream_release(h->readers[i].stream);
  h->nreaders = 0;
}

void nd__hazard_clear(nd__hazard *h) {
  nd__readers_clear(h);
  if (h->writer.stream != NULL) nd__stream_release(h->writer.stream);
  h->writer.stream = NULL;
  if (h->readers != h->inline_readers) free(h->readers);
  h->readers = h->inline_readers;
  h->capreaders = ND__INLINE_READERS;
}

nd_status nd__hazard_prepare(nd__hazard *h, nd_stream *s, int mode) {
  nd_status st = ND_OK;
  nd__hz_lock(h);
  if (h->writer.stream != NULL) st = nd__stream_order(s, h->writer.stream, h->writer.seq);
  if (st == ND_OK && (mode & ND__WRITE))
    for (int i = 0; i < h->nreaders && st == ND_OK; i++)
      st = nd__stream_order(s, h->readers[i].stream, h->readers[i].seq);
  nd__hz_unlock(h);
  return st;
}

nd_status nd__hazard_commit(nd__hazard *h, nd_stream *s, uint64_t seq, int mode) {
  nd_status st = ND_OK;
  nd__hz_lock(h);
  if (mode & ND__WRITE) {
    /* Everything read before this write is ordered before it now (prepare waited). */
    nd__readers_clear(h);
    nd__use_set(&h->writer, s, seq);
  } else {
    int i = 0;
    while (i < h->nreaders && h->readers[i].stream != s) i++;
    if (i == h->nreaders) {
      if (h->nreaders == h->capreaders) {
        int cap = h->capreaders * 2;
        nd__use *r = malloc((size_t)cap * sizeof *r);
        if (r == NULL) {
          nd__hz_unlock(h);
          return nd__error(ND_ERR_OUT_OF_MEMORY, "nd__hazard_commit: no host memory for %d "
                           "reader records", cap);
        }
        memcpy(r, h->readers, (size_t)h->nreaders * sizeof *r);
        if (h->readers != h->inline_readers) free(h->readers);
        h->readers = r;
        h->capreaders = cap;
      }
      h->readers[i].stream = NULL;
      h->nreaders++;
    }
    nd__use_set(&h->readers[i], s, seq);
  }
  nd__hz_unlock(h);
  return st;
}

nd_stream *nd__hazard_sole_stream(nd__hazard *h) {
  nd_stream *s = h->writer.stream;
  for (int i = 0; i < h->nreaders; i++) {
    if (s == NULL) s = h->readers[i].stream;
    if (h->readers[i].stream != s) return NULL;
  }
  return nd__stream_usable_here(s) ? s : NULL;
}

nd_status nd__hazard_host_wait(nd__hazard *h, int mode) {
  nd_status st = ND_OK;
  nd__hz_lock(h);
  if (h->writer.stream != NULL) st = nd__stream_host_wait(h->writer.stream, h->writer.seq);
  if (st == ND_OK && (mode & ND__WRITE))
    for (int i = 0; i < h->nreaders && st == ND_OK; i++)
      st = nd__stream_host_wait(h->readers[i].stream, h->readers[i].seq);
  nd__hz_unlock(h);
  return st;
}

static _Thread_local const char *nd__sync_fn;

void nd__sync_name(const char *fn) { nd__sync_fn = fn; }

void nd__sync_init(nd__sync *sync, nd_stream *stream) {
  sync->stream = stream;
  sync->fn = nd__sync_fn;
  sync->n = 0;
}

nd_status nd__sync_add(nd__sync *sync, nd__hazard *h, int mode) {
  if (ND__UNLIKELY(h->device >= 0 && h->device != sync->stream->device))
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: an array on device %d was passed to an operation "
                     "on device %d (the calling thread's current device); move it with "
                     "nd_array_to_device or nd_copyto, or make its device current with nd_device_set",
                     sync->fn != NULL ? sync->fn : "nd__sync_add", h->device, sync->stream->device);
  for (int i = 0; i < sync->n; i++)
    if (sync->hz[i] == h) {
      sync->mode[i] |= mode;
      return ND_OK;
    }
  if (sync->n == ND__SYNC_MAX)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "nd__sync_add: an operation may touch at most "
                     "%d distinct buffers", ND__SYNC_MAX);
  sync->hz[sync->n] = h;
  sync->mode[sync->n] = mode;
  sync->n++;
  return ND_OK;
}

nd_status nd__sync_begin(nd__sync *sync) {
  for (int i = 0; i < sync->n; i++) ND_TRY(nd__hazard_prepare(sync->hz[i], sync->stream, sync->mode[i]));
  return ND_OK;
}

nd_status nd__sync_end(nd__sync *sync) {
  if (sync->n == 0) return ND_OK;
  uint64_t seq = nd__stream_commit(sync->stream);
  nd_status st = ND_OK;
  for (int i = 0; i < sync->n; i++) {
    nd_status s2 = nd__hazard_commit(sync->hz[i], sync->stream, seq, sync->mode[i]);
    if (st == ND_OK) st = s2;
  }
  return st;
}
