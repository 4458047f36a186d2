/* Stream-to-stream ordering: sequence numbers, lazily recorded events, remembered waits.
 *
 * Plain host code; CUDA is reached only through nd__binding. The scheme:
 * - each stream counts the tracked operations committed on it (seq);
 * - a stream owns one event; when a consumer needs producer work up to seq and the event's
 *   last record does not cover it, the event is recorded again on the producer, now. A record
 *   covers every operation committed before it, because commits follow the enqueue. Reusing
 *   one event is safe: a wait captures the record current at the time of the wait, and a
 *   later record only covers more work;
 * - each consumer remembers, per producer, how far it has already waited, so a hand-off
 *   costs one record and one wait however many buffers cross it. */
#include <stdlib.h>
#include <string.h>

#include "streams/stream_internal.h"

const nd__sync_binding *nd__binding;

static atomic_uint_fast64_t nd__next_stream_id = 1;
static atomic_int nd__auto_state = -1; /* -1: not read yet */

void nd__set_sync_binding(const nd__sync_binding *binding) { nd__binding = binding; }

int nd__auto_events(void) {
  int v = atomic_load_explicit(&nd__auto_state, memory_order_relaxed);
  if (ND__UNLIKELY(v < 0)) {
    v = nd__config_flag(ND__CFG_AUTO_EVENTS);
    atomic_store(&nd__auto_state, v);
  }
  return v;
}

void nd__set_auto_events(int on) { atomic_store(&nd__auto_state, on ? 1 : 0); }

void nd__stream_init(nd_stream *s, int kind, int device, void *cu, void *event) {
  memset(s, 0, sizeof *s);
  atomic_init(&s->refs, 1);
  s->id = atomic_fetch_add(&nd__next_stream_id, 1);
  s->kind = kind;
  s->device = device;
  s->cu = cu;
  s->event = event;
  s->eager = kind == ND__STREAM_PER_THREAD;
  atomic_init(&s->destroyed, 0);
  atomic_init(&s->seq, 0);
  pthread_mutex_init(&s->lock, NULL);
}

nd_stream *nd__stream_new_synthetic(void *cu, void *event) {
  nd_stream *s = malloc(sizeof *s);
  if (s == NULL) return NULL;
  nd__stream_init(s, ND__STREAM_SYNTHETIC, 0, cu, event);
  return s;
}

void nd__stream_retain(nd_stream *s) { atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed); }

void nd__stream_release(nd_stream *s) {
  if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1) return;
  /* Last reference: nothing can name this stream any more. Its CUDA stream was destroyed by
   * nd_stream_destroy (or belongs to someone else); the event goes now. Pending waits on the
   * event stay valid, as CUDA guarantees for destroyed events. */
  if (s->event != NULL && nd__binding != NULL && nd__binding->event_destroy != NULL)
    nd__binding->event_destroy(s->event);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

/* Records the stream's event so that it covers everything committed so far. Caller holds
 * s->lock. */
static nd_status nd__stream_record_locked(nd_stream *s) {
  uint64_t upto = atomic_load_explicit(&s->seq, memory_order_acquire);
  if (s->recorded_seq >= upto) return ND_OK;
  int err = nd__binding->record(s->event, s->cu, s->device);
  if (err != 0)
    return nd__cuda_status(err, "record(event, stream)", "nd__stream_record", __FILE__, __LINE__);
  s->recorded_seq = upto;
  return ND_OK;
}

uint64_t nd__stream_commit(nd_stream *s) {
  uint64_t seq = atomic_fetch_add_explicit(&s->seq, 1, memory_order_acq_rel) + 1;
  if (s->eager && nd__auto_events()) {
    pthread_mutex_lock(&s->lock);
    /* A failure here surfaces at the next hand-off: the owner's records again, another
     * thread's reports an error (see nd__stream_cover). */
    (void)nd__stream_record_locked(s);
    pthread_mutex_unlock(&s->lock);
  }
  return seq;
}

static uint64_t nd__waited_get(nd_stream *consumer, uint64_t producer_id) {
  for (int i = 0; i < ND__WAITED_SLOTS; i++)
    if (consumer->waited[i].stream_id == producer_id) return consumer->waited[i].seq;
  return 0;
}

static void nd__waited_set(nd_stream *consumer, uint64_t producer_id, uint64_t seq) {
  int slot = ND__WAITED_SLOTS - 1;
  for (int i = 0; i < ND__WAITED_SLOTS; i++)
    if (consumer->waited[i].stream_id == producer_id) {
      slot = i;
      break;
    }
  if (consumer->waited[slot].stream_id == producer_id && consumer->waited[slot].seq > seq)
    seq = consumer->waited[slot].seq;
  /* Move to the front so that the least recently used producer falls off the end. */
  memmove(&consumer->waited[1], &consumer->waited[0], (size_t)slot * sizeof(nd__waited));
  consumer->waited[0].stream_id = producer_id;
  consumer->waited[0].seq = seq;
}

/* Returns producer's event after making sure its last record covers seq; writes the covered
 * sequence number. A destroyed producer recorded a final event that covers everything. */
static nd_status nd__stream_cover(nd_stream *producer, uint64_t seq, uint64_t *covered) {
  pthread_mutex_lock(&producer->lock);
  nd_status st = ND_OK;
  if (producer->recorded_seq < seq) {
    if (atomic_load(&producer->destroyed)) {
      st = nd__error(ND_ERR_INTERNAL, "nd__stream_order: destroyed stream %llu has no record "
                     "covering operation %llu", (unsigned long long)producer->id,
                     (unsigned long long)seq);
    } else if (producer->eager && producer->owner != nd__thread_self()) {
      /* A per-thread stream's handle means the calling thread's own per-thread stream, so a
       * record made here would land on another stream and order nothing. Its commits record
       * eagerly; a missing record means that one failed (or ordering was off when it
       * committed), which must be reported rather than turned into a silent race. */
      st = nd__error(ND_ERR_INTERNAL, "nd__stream_order: per-thread stream %llu of another "
                     "thread has no record covering operation %llu",
                     (unsigned long long)producer->id, (unsigned long long)seq);
    } else {
      st = nd__stream_record_locked(producer);
    }
  }
  *covered = producer->recorded_seq;
  pthread_mutex_unlock(&producer->lock);
  return st;
}

nd_status nd__stream_order(nd_stream *consumer, nd_stream *producer, uint64_t seq) {
  if (consumer == producer || producer == NULL || seq == 0 || !nd__auto_events()) return ND_OK;
  pthread_mutex_lock(&consumer->lock);
  uint64_t done = nd__waited_get(consumer, producer->id);
  pthread_mutex_unlock(&consumer->lock);
  if (done >= seq) return ND_OK;

  /* The consumer's lock is not held while the producer's is: two streams handing buffers to
   * each other from two threads must not deadlock. */
  uint64_t covered = 0;
  ND_TRY(nd__stream_cover(producer, seq, &covered));
  int err = nd__binding->wait(consumer->cu, producer->event, consumer->device);
  if (err != 0)
    return nd__cuda_status(err, "wait(stream, event)", "nd__stream_order", __FILE__, __LINE__);
  pthread_mutex_lock(&consumer->lock);
  nd__waited_set(consumer, producer->id, covered);
  pthread_mutex_unlock(&consumer->lock);
  return ND_OK;
}

nd_status nd__stream_host_wait(nd_stream *producer, uint64_t seq) {
  if (producer == NULL || seq == 0) return ND_OK;
  uint64_t covered = 0;
  ND_TRY(nd__stream_cover(producer, seq, &covered));
  int err = nd__binding->host_wait(producer->event);
  if (err != 0)
    return nd__cuda_status(err, "host_wait(event)", "nd__stream_host_wait", __FILE__, __LINE__);
  return ND_OK;
}

/* Identifies the calling thread: the address of a thread-local object is unique among live
 * threads. */
static _Thread_local char nd__thread_marker;
const void *nd__thread_self(void) { return &nd__thread_marker; }

int nd__stream_usable_here(const nd_stream *s) {
  if (s == NULL || atomic_load(&s->destroyed)) return 0;
  return s->kind != ND__STREAM_PER_THREAD || s->owner == nd__thread_self();
}

nd_status nd__stream_retire(nd_stream *s) {
  pthread_mutex_lock(&s->lock);
  nd_status st = nd__stream_record_locked(s);
  atomic_store(&s->destroyed, 1);
  pthread_mutex_unlock(&s->lock);
  return st;
}
