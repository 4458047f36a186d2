/* The stream ordering model (streams/order.c, streams/hazard.c) on synthetic streams, with no
 * CUDA.
 *
 * A simulator stands in for the device. Each synthetic stream is a FIFO of operations and
 * happens-before is tracked with vector clocks: record(event, s) snapshots the clock of s
 * (every operation enqueued on s so far, and everything s already waited for); wait(t, event)
 * merges the snapshot into t's clock, so every later operation on t follows it; host_wait
 * merges it into the host's clock. The tests drive the model exactly as library operations do
 * (nd__sync_init/add/begin, enqueue on the simulated stream, nd__sync_end) and compare it with
 * a reference: every pair of conflicting accesses to one buffer (RAW, WAR, WAW) must be
 * ordered by the simulated device. The binding calls are counted, so the tests also check
 * that the model orders no more than it must (no same-stream waits, readers left unordered,
 * one record and one wait per hand-off). Host only. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "streams/hazard.h"
#include "streams/stream_internal.h"
#include "tests/nd_test.h"

/* ---- the simulated device ---------------------------------------------------------------- */

#define SIM_STREAMS 48
#define SIM_OPS 512
#define SIM_ACCESSES 2048
#define SIM_BUFS 64

typedef struct sim_op {
  int stream;
  int pos; /* 1-based position in its stream's FIFO */
  int vc[SIM_STREAMS];
} sim_op;

typedef struct sim_access {
  int op;
  int buf;
  int mode;
} sim_access;

typedef struct sim_state {
  int nstreams;
  nd_stream *ns[SIM_STREAMS];     /* the test's own reference, NULL once dropped */
  const void *owner[SIM_STREAMS]; /* owning thread of a per-thread (eager) stream, or NULL */
  int clock[SIM_STREAMS][SIM_STREAMS];
  int retired[SIM_STREAMS];
  int ev_recorded[SIM_STREAMS];
  int ev_version[SIM_STREAMS]; /* how many times the event was recorded */
  int ev_pending[SIM_STREAMS]; /* recorded, and no wait has used that record yet */
  int ev_snap[SIM_STREAMS][SIM_STREAMS];
  int ev_destroyed[SIM_STREAMS];
  int records[SIM_STREAMS];                /* successful records of each stream's event */
  int waits[SIM_STREAMS][SIM_STREAMS];     /* [consumer][producer] */
  int waited_version[SIM_STREAMS][SIM_STREAMS];
  int host_waits[SIM_STREAMS];
  int host_clock[SIM_STREAMS];
  int nrecords, nwaits, nhost_waits;
  int redundant_waits; /* waits on a record this consumer had already waited on */
  int fail_record, fail_wait, fail_host_wait; /* error code for the next such call, 0: none */
  int anomalies;
  char anomaly[256];
  int nops;
  sim_op ops[SIM_OPS];
  int nacc;
  sim_access acc[SIM_ACCESSES];
} sim_state;

static sim_state sim;
static char cu_tok[SIM_STREAMS]; /* stream i's cu token is &cu_tok[i] */
static char ev_tok[SIM_STREAMS]; /* and its event token &ev_tok[i] */
static nd__hazard hz[SIM_BUFS];

static void sim_anomaly(const char *fmt, ...) {
  if (sim.anomalies++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sim.anomaly, sizeof sim.anomaly, fmt, ap);
    va_end(ap);
  }
}

static int sim_index(const void *p, const char *base) {
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
  if (a < b || a >= b + SIM_STREAMS) return -1;
  int i = (int)(a - b);
  return i < sim.nstreams ? i : -1;
}

static void clock_join(int *dst, const int *src) {
  for (int j = 0; j < SIM_STREAMS; j++)
    if (src[j] > dst[j]) dst[j] = src[j];
}

static int sim_record(void *event, void *cu, int device) {
  int e = sim_index(event, ev_tok), s = sim_index(cu, cu_tok);
  if (e < 0 || s < 0) {
    sim_anomaly("record with unknown tokens %p %p", event, cu);
    return 1;
  }
  if (device != sim.ns[s]->device)
    sim_anomaly("record on stream %d (device %d) was told device %d", s, sim.ns[s]->device, device);
  if (e != s) sim_anomaly("the event of stream %d was recorded on stream %d", e, s);
  if (sim.retired[s]) sim_anomaly("record on stream %d after it was retired", s);
  if (sim.ev_destroyed[e]) sim_anomaly("record of destroyed event %d", e);
  if (sim.owner[s] != NULL && sim.owner[s] != nd__thread_self())
    sim_anomaly("record on per-thread stream %d from a thread that does not own it", s);
  if (sim.fail_record) {
    int c = sim.fail_record;
    sim.fail_record = 0;
    return c;
  }
  memcpy(sim.ev_snap[e], sim.clock[s], sizeof sim.ev_snap[e]);
  sim.ev_recorded[e] = 1;
  sim.ev_version[e]++;
  sim.ev_pending[e] = 1;
  sim.records[e]++;
  sim.nrecords++;
  return 0;
}

static int sim_wait(void *cu, void *event, int device) {
  int t = sim_index(cu, cu_tok), e = sim_index(event, ev_tok);
  if (e < 0 || t < 0) {
    sim_anomaly("wait with unknown tokens %p %p", cu, event);
    return 1;
  }
  if (device != sim.ns[t]->device)
    sim_anomaly("wait on stream %d (device %d) was told device %d", t, sim.ns[t]->device, device);
  if (t == e) sim_anomaly("stream %d waits on its own event", t);
  if (!sim.ev_recorded[e]) sim_anomaly("stream %d waits on event %d, never recorded", t, e);
  if (sim.ev_destroyed[e]) sim_anomaly("stream %d waits on destroyed event %d", t, e);
  if (sim.retired[t]) sim_anomaly("retired stream %d waits on event %d", t, e);
  if (sim.fail_wait) {
    int c = sim.fail_wait;
    sim.fail_wait = 0;
    return c;
  }
  if (sim.waited_version[t][e] == sim.ev_version[e]) sim.redundant_waits++;
  sim.waited_version[t][e] = sim.ev_version[e];
  sim.ev_pending[e] = 0;
  clock_join(sim.clock[t], sim.ev_snap[e]);
  sim.waits[t][e]++;
  sim.nwaits++;
  return 0;
}

static int sim_host_wait(void *event) {
  int e = sim_index(event, ev_tok);
  if (e < 0) {
    sim_anomaly("host wait with unknown token %p", event);
    return 1;
  }
  if (!sim.ev_recorded[e]) sim_anomaly("host waits on event %d, never recorded", e);
  if (sim.ev_destroyed[e]) sim_anomaly("host waits on destroyed event %d", e);
  if (sim.fail_host_wait) {
    int c = sim.fail_host_wait;
    sim.fail_host_wait = 0;
    return c;
  }
  sim.ev_pending[e] = 0;
  clock_join(sim.host_clock, sim.ev_snap[e]);
  sim.host_waits[e]++;
  sim.nhost_waits++;
  return 0;
}

static void sim_event_destroy(void *event) {
  int e = sim_index(event, ev_tok);
  if (e < 0) {
    sim_anomaly("destroy of unknown event %p", event);
    return;
  }
  if (sim.ev_destroyed[e]++ > 0) sim_anomaly("event %d destroyed twice", e);
}

static const nd__sync_binding sim_binding = {sim_record, sim_wait, sim_host_wait,
                                             sim_event_destroy, "simulated"};

/* A new synthetic stream; returns its index. */
static int sim_stream(void) {
  ck_assert_int_lt(sim.nstreams, SIM_STREAMS);
  int i = sim.nstreams++;
  sim.ns[i] = nd__stream_new_synthetic(&cu_tok[i], &ev_tok[i]);
  ck_assert_ptr_nonnull(sim.ns[i]);
  return i;
}

/* A per-thread (eager) synthetic stream owned by `owner`. */
static int sim_eager_stream(const void *owner) {
  ck_assert_int_lt(sim.nstreams, SIM_STREAMS);
  int i = sim.nstreams++;
  nd_stream *s = malloc(sizeof *s); /* nd__stream_release frees it */
  ck_assert_ptr_nonnull(s);
  nd__stream_init(s, ND__STREAM_PER_THREAD, 0, &cu_tok[i], &ev_tok[i]);
  s->owner = owner;
  sim.ns[i] = s;
  sim.owner[i] = owner;
  return i;
}

/* Drops the test's reference to stream i (buffers may keep it alive). */
static void sim_drop(int i) {
  ck_assert_ptr_nonnull(sim.ns[i]);
  nd__stream_release(sim.ns[i]);
  sim.ns[i] = NULL;
}

/* nd_stream_destroy's part in the model: a final record, then the stream is gone. */
static nd_status sim_retire(int i) {
  nd_status st = nd__stream_retire(sim.ns[i]);
  sim.retired[i] = 1;
  for (int e = 0; e < sim.nstreams; e++) sim.ev_pending[e] = 0; /* the final record is legit */
  return st;
}

/* Enqueues one operation on stream s of the simulated device; returns its id. */
static int sim_enqueue(int s) {
  ck_assert_msg(!sim.retired[s], "enqueue on retired stream %d", s);
  ck_assert_int_lt(sim.nops, SIM_OPS);
  sim.clock[s][s]++;
  int op = sim.nops++;
  sim.ops[op].stream = s;
  sim.ops[op].pos = sim.clock[s][s];
  memcpy(sim.ops[op].vc, sim.clock[s], sizeof sim.ops[op].vc);
  return op;
}

/* Whether operation a happens before operation b on the simulated device. */
static int hb(int a, int b) {
  return a != b && sim.ops[b].vc[sim.ops[a].stream] >= sim.ops[a].pos;
}

/* Whether the host has waited for operation a. */
static int host_covers(int a) { return sim.host_clock[sim.ops[a].stream] >= sim.ops[a].pos; }

/* The buffer was freed (its hazard record cleared): later uses of the index are a new
 * buffer for the reference. */
static void sim_forget(int buf) {
  for (int i = 0; i < sim.nacc; i++)
    if (sim.acc[i].buf == buf) sim.acc[i].buf = -1;
}

static void sim_log(int op, int buf, int mode) {
  for (int i = sim.nacc - 1; i >= 0 && sim.acc[i].op == op; i--)
    if (sim.acc[i].buf == buf) {
      sim.acc[i].mode |= mode; /* the reference merges repeated buffers itself: a write wins */
      return;
    }
  ck_assert_int_lt(sim.nacc, SIM_ACCESSES);
  sim.acc[sim.nacc++] = (sim_access){op, buf, mode};
}

/* Counts the pairs of conflicting accesses (same buffer, at least one write, in program
 * order) that the simulated device does not order; describes the first one in msg. */
static int ref_unordered(char *msg, size_t cap) {
  int bad = 0;
  for (int i = 0; i < sim.nacc; i++)
    for (int j = i + 1; j < sim.nacc; j++) {
      const sim_access *p = &sim.acc[i], *q = &sim.acc[j];
      if (p->buf != q->buf || !((p->mode | q->mode) & ND__WRITE) || p->op == q->op) continue;
      if (hb(p->op, q->op)) continue;
      if (bad++ == 0 && msg != NULL)
        snprintf(msg, cap, "buffer %d: op %d (stream %d, mode %d) and op %d (stream %d, mode %d)",
                 p->buf, p->op, sim.ops[p->op].stream, p->mode, q->op, sim.ops[q->op].stream,
                 q->mode);
    }
  return bad;
}

#define ASSERT_ORDERED()                                                                       \
  do {                                                                                         \
    char m_[256] = "";                                                                         \
    int bad_ = ref_unordered(m_, sizeof m_);                                                   \
    ck_assert_msg(bad_ == 0, "%d conflicting pairs are not ordered; first: %s", bad_, m_);    \
    ck_assert_msg(sim.anomalies == 0, "%d binding misuses; first: %s", sim.anomalies,          \
                  sim.anomaly);                                                                \
  } while (0)

/* ---- driving the model as a library operation does ---------------------------------------- */

typedef struct acc {
  int buf;
  int mode;
} acc;

#define R ND__READ
#define W ND__WRITE
#define RW (ND__READ | ND__WRITE)

static int op_n(int s, int n, const acc *a) {
  nd__sync sync;
  nd__sync_init(&sync, sim.ns[s]);
  for (int i = 0; i < n; i++) ND_ASSERT_OK(nd__sync_add(&sync, &hz[a[i].buf], a[i].mode));
  ND_ASSERT_OK(nd__sync_begin(&sync));
  /* Every record the model made for this op was used by one of its waits. */
  for (int e = 0; e < sim.nstreams; e++)
    ck_assert_msg(!sim.ev_pending[e], "event %d was recorded but nobody waited on it", e);
  int op = sim_enqueue(s);
  for (int i = 0; i < n; i++) sim_log(op, a[i].buf, a[i].mode);
  ND_ASSERT_OK(nd__sync_end(&sync));
  /* Records made at commit (eager streams) serve later hand-offs. */
  for (int e = 0; e < sim.nstreams; e++) sim.ev_pending[e] = 0;
  return op;
}

/* OP(stream, {buf, mode}, ...): one operation on stream touching the listed buffers. */
#define OP(s, ...) \
  op_n((s), (int)(sizeof((acc[]){__VA_ARGS__}) / sizeof(acc)), (acc[]){__VA_ARGS__})

/* A host access through nd__hazard_host_wait; checks that every device access the host
 * access conflicts with has finished. */
static void host_access(int buf, int mode) {
  ND_ASSERT_OK(nd__hazard_host_wait(&hz[buf], mode));
  for (int i = 0; i < sim.nacc; i++)
    if (sim.acc[i].buf == buf && ((mode | sim.acc[i].mode) & ND__WRITE))
      ck_assert_msg(host_covers(sim.acc[i].op), "host access (mode %d) to buffer %d does not "
                    "wait for op %d (mode %d)", mode, buf, sim.acc[i].op, sim.acc[i].mode);
}

/* How many hazard records name stream object s. */
static long hazard_uses(const nd_stream *s) {
  long n = 0;
  for (int b = 0; b < SIM_BUFS; b++) {
    if (hz[b].writer.stream == s) n++;
    for (int i = 0; i < hz[b].nreaders; i++) n += hz[b].readers[i].stream == s;
  }
  return n;
}

static long refs(const nd_stream *s) { return atomic_load(&s->refs); }

/* Checks each live stream's reference count, then drops every buffer record and stream and
 * checks that each stream's event was destroyed exactly once. */
static void sim_drop_all(void) {
  for (int i = 0; i < sim.nstreams; i++)
    if (sim.ns[i] != NULL)
      ck_assert_msg(refs(sim.ns[i]) == 1 + hazard_uses(sim.ns[i]), "stream %d has %ld "
                    "references for %ld buffer records", i, refs(sim.ns[i]),
                    hazard_uses(sim.ns[i]));
  for (int b = 0; b < SIM_BUFS; b++) nd__hazard_clear(&hz[b]);
  for (int i = 0; i < sim.nstreams; i++)
    if (sim.ns[i] != NULL) sim_drop(i);
  for (int i = 0; i < sim.nstreams; i++)
    ck_assert_msg(sim.ev_destroyed[i] == 1, "event of stream %d destroyed %d times", i,
                  sim.ev_destroyed[i]);
}

static void sim_reset(void) {
  memset(&sim, 0, sizeof sim);
  for (int b = 0; b < SIM_BUFS; b++) nd__hazard_init(&hz[b]);
}

static void setup(void) {
  nd__set_sync_binding(&sim_binding);
  nd__set_auto_events(1);
  sim_reset();
}

static void teardown(void) {
  for (int b = 0; b < SIM_BUFS; b++) nd__hazard_clear(&hz[b]);
  for (int i = 0; i < sim.nstreams; i++)
    if (sim.ns[i] != NULL) sim_drop(i);
  nd__set_auto_events(1);
}

enum { X = 0, Y = 1, Z = 2, V = 3 };

/* ---- directed cases ----------------------------------------------------------------------- */

START_TEST(same_stream_costs_nothing) {
  int a = sim_stream();
  (void)sim_stream();
  OP(a, {X, W});
  OP(a, {X, R}, {Y, W});
  OP(a, {Y, R}, {X, W});
  OP(a, {X, RW}, {Y, R}, {Z, W});
  for (int i = 0; i < 20; i++) OP(a, {(i % 3), (i % 2) ? R : W});
  ck_assert_int_eq(sim.nrecords, 0);
  ck_assert_int_eq(sim.nwaits, 0);
  ASSERT_ORDERED();
  /* The same buffers handed to another stream are ordered: the counters are live. */
  OP(1, {X, R}, {Y, R}, {Z, R});
  ck_assert_int_eq(sim.records[a], 1);
  ck_assert_int_eq(sim.waits[1][a], 1);
  ASSERT_ORDERED();
}
END_TEST

START_TEST(raw_war_waw_across_streams) {
  int a = sim_stream(), b = sim_stream(), c = sim_stream(), d = sim_stream();
  int w1 = OP(a, {X, W});
  int r1 = OP(b, {X, R}); /* RAW */
  ck_assert(hb(w1, r1));
  ck_assert_int_eq(sim.waits[b][a], 1);
  int w2 = OP(c, {X, W}); /* WAR on b's read, WAW on a's write */
  ck_assert(hb(r1, w2) && hb(w1, w2));
  ck_assert_int_eq(sim.waits[c][b], 1);
  ck_assert_int_eq(sim.waits[c][a], 1);
  /* The write forgot the readers before it and replaced the writer. */
  ck_assert_ptr_eq(hz[X].writer.stream, sim.ns[c]);
  ck_assert_int_eq(hz[X].nreaders, 0);
  int w3 = OP(d, {X, W}); /* WAW only: a and b are behind c already */
  ck_assert(hb(w2, w3));
  ck_assert_int_eq(sim.waits[d][c], 1);
  ck_assert_int_eq(sim.waits[d][a] + sim.waits[d][b], 0);
  ck_assert_int_eq(sim.nwaits, 4);
  ASSERT_ORDERED();
}
END_TEST

START_TEST(readers_are_not_ordered_with_each_other) {
  int a = sim_stream(), b = sim_stream(), c = sim_stream(), d = sim_stream();
  int w = OP(a, {X, W});
  int rb[3], rc[3];
  for (int i = 0; i < 3; i++) {
    rb[i] = OP(b, {X, R});
    rc[i] = OP(c, {X, R});
  }
  ck_assert_int_eq(sim.waits[b][a], 1);
  ck_assert_int_eq(sim.waits[c][a], 1);
  ck_assert_int_eq(sim.waits[b][c] + sim.waits[c][b], 0);
  ck_assert_int_eq(sim.records[b] + sim.records[c], 0);
  for (int i = 0; i < 3; i++) {
    ck_assert(hb(w, rb[i]) && hb(w, rc[i]));
    for (int j = 0; j < 3; j++) ck_assert(!hb(rb[i], rc[j]) && !hb(rc[j], rb[i]));
  }
  ck_assert_int_eq(hz[X].nreaders, 2); /* one record per reading stream, latest seq */
  ck_assert_uint_eq(hz[X].readers[0].seq, 3);
  int w2 = OP(d, {X, W});
  for (int i = 0; i < 3; i++) ck_assert(hb(rb[i], w2) && hb(rc[i], w2));
  ck_assert_int_eq(sim.waits[d][a] + sim.waits[d][b] + sim.waits[d][c], 3);
  ASSERT_ORDERED();
}
END_TEST

/* Streams of two devices: a hand-off records on the producer's device and waits on the
 * consumer's (the binding is told each stream's own device; it reports a misuse otherwise),
 * and memory of one device is refused by a sync on the other's stream. */
START_TEST(streams_of_two_devices) {
  int a = sim_stream(), b = sim_stream();
  sim.ns[b]->device = 1;
  int w = OP(a, {X, W});
  int r = OP(b, {X, R}); /* a copy to device 1 reads X */
  ck_assert(hb(w, r));
  int w2 = OP(a, {X, W}); /* device 0 overwrites X after the copy's read */
  ck_assert(hb(r, w2));
  ck_assert_int_eq(sim.waits[b][a], 1);
  ck_assert_int_eq(sim.waits[a][b], 1);
  ASSERT_ORDERED();
  hz[Y].device = 1;
  nd__sync sync;
  nd__sync_init(&sync, sim.ns[a]);
  ND_ASSERT_FAILS(nd__sync_add(&sync, &hz[Y], ND__READ), ND_ERR_DEVICE_MISMATCH, "on device 1");
  nd__sync_init(&sync, sim.ns[b]);
  ND_ASSERT_OK(nd__sync_add(&sync, &hz[Y], ND__READ));
}
END_TEST

START_TEST(hand_off_costs_one_record_and_one_wait) {
  enum { NB = 16 };
  int a = sim_stream(), b = sim_stream(), c = sim_stream();
  for (int i = 0; i < NB; i++) OP(a, {i, W});
  acc all[NB];
  for (int i = 0; i < NB; i++) all[i] = (acc){i, R};
  op_n(b, NB, all); /* one op reading all of them */
  ck_assert_int_eq(sim.records[a], 1);
  ck_assert_int_eq(sim.waits[b][a], 1);
  for (int i = 0; i < NB; i++) OP(c, {i, R}); /* one op per buffer */
  ck_assert_int_eq(sim.records[a], 1);
  ck_assert_int_eq(sim.waits[c][a], 1);
  /* A second hand-off without new work on a costs nothing. */
  for (int i = 0; i < NB; i++) OP(b, {i, R});
  op_n(c, NB, all);
  ck_assert_int_eq(sim.nrecords, 1);
  ck_assert_int_eq(sim.nwaits, 2);
  /* b overwrites everything: WAR on c's reads, one record of c and one wait for all. */
  for (int i = 0; i < NB; i++) OP(b, {i, W});
  ck_assert_int_eq(sim.records[c], 1);
  ck_assert_int_eq(sim.waits[b][c], 1);
  ck_assert_int_eq(sim.waits[b][a], 1);
  ASSERT_ORDERED();
}
END_TEST

START_TEST(chains_and_branches) {
  int a = sim_stream(), b = sim_stream(), c = sim_stream(), d = sim_stream();
  /* Chain a -> b -> c: c only waits for b, yet follows a. */
  int wa = OP(a, {X, W});
  int wb = OP(b, {X, R}, {Y, W});
  int rc = OP(c, {Y, R});
  ck_assert(hb(wa, wb) && hb(wb, rc) && hb(wa, rc));
  ck_assert_int_eq(sim.waits[c][b], 1);
  ck_assert_int_eq(sim.waits[c][a], 0);
  ASSERT_ORDERED();

  /* Branch a -> {b, c} -> d. */
  int wa2 = OP(a, {Z, W});
  int b2 = OP(b, {Z, R}, {V, W});
  int c2 = OP(c, {Z, R}, {4, W});
  ck_assert(!hb(b2, c2) && !hb(c2, b2));
  int d2 = OP(d, {V, R}, {4, R});
  ck_assert(hb(wa2, d2) && hb(b2, d2) && hb(c2, d2));
  ck_assert_int_eq(sim.waits[d][b], 1);
  ck_assert_int_eq(sim.waits[d][c], 1);
  ck_assert_int_eq(sim.waits[d][a], 0);
  /* d overwrites Z. WAR on b's and c's reads: d waited that far already. WAW on a's write:
   * d never waited for a itself, so one wait, on the record b's hand-off made. */
  int nw = sim.nwaits, nr = sim.nrecords;
  int d3 = OP(d, {Z, W});
  ck_assert(hb(b2, d3) && hb(c2, d3));
  ck_assert_int_eq(sim.nrecords, nr);
  ck_assert_int_eq(sim.nwaits, nw + 1);
  ck_assert_int_eq(sim.waits[d][a], 1);
  ASSERT_ORDERED();
}
END_TEST

START_TEST(expired_records) {
  int a = sim_stream(), b = sim_stream(), c = sim_stream(), d = sim_stream();
  int x1 = OP(a, {X, W});
  OP(b, {X, R}); /* record a@1 */
  ck_assert_int_eq(sim.records[a], 1);
  ck_assert_int_eq(sim.waits[b][a], 1);
  int y2 = OP(a, {Y, W}); /* a moves on: the record is expired for Y */
  OP(b, {X, R});          /* b waited for a@1 already */
  ck_assert_int_eq(sim.waits[b][a], 1);
  OP(c, {Y, R}); /* needs a@2: a re-records */
  ck_assert_int_eq(sim.records[a], 2);
  ck_assert_int_eq(sim.waits[c][a], 1);
  int by = OP(b, {Y, R}); /* b needs newer work: waits, on the record c caused */
  ck_assert_int_eq(sim.records[a], 2);
  ck_assert_int_eq(sim.waits[b][a], 2);
  ck_assert(hb(y2, by));
  OP(a, {Z, W}); /* more work on a, not recorded */
  int dx = OP(d, {X, R}); /* needs a@1: the current record (a@2) covers it, no new record */
  ck_assert_int_eq(sim.records[a], 2);
  ck_assert_int_eq(sim.waits[d][a], 1);
  ck_assert(hb(x1, dx));
  OP(b, {X, R}, {Y, R}); /* nothing new for b */
  ck_assert_int_eq(sim.waits[b][a], 2);
  int bz = OP(b, {Z, R}); /* needs a@3 */
  ck_assert_int_eq(sim.records[a], 3);
  ck_assert_int_eq(sim.waits[b][a], 3);
  ck_assert_uint_eq(sim.ns[a]->recorded_seq, 3);
  (void)bz;
  ck_assert_int_eq(sim.redundant_waits, 0);
  ASSERT_ORDERED();
}
END_TEST

START_TEST(retired_producer) {
  int a = sim_stream(), b = sim_stream(), c = sim_stream(), d = sim_stream();
  int wx = OP(a, {X, W});
  OP(b, {X, R}); /* record a@1 */
  int wy = OP(a, {Y, W});
  int wz = OP(a, {Z, W});
  nd_stream *sa = sim.ns[a];
  ND_ASSERT_OK(sim_retire(a)); /* final record covers a@3 */
  ck_assert_int_eq(sim.records[a], 2);
  ck_assert_uint_eq(sa->recorded_seq, 3);
  ck_assert(!nd__stream_usable_here(sa));
  ck_assert_ptr_null(nd__hazard_sole_stream(&hz[Y])); /* only used on a, which is gone */
  sim_drop(a); /* the buffers keep the object and its event alive */
  ck_assert_int_eq(sim.ev_destroyed[a], 0);
  ck_assert_int_eq(refs(sa), 3);
  int ry = OP(c, {Y, R});
  int rz = OP(d, {Z, RW});
  int rx = OP(c, {X, W});
  ck_assert(hb(wy, ry) && hb(wz, rz) && hb(wx, rx));
  ck_assert_int_eq(sim.records[a], 2); /* the sim flags any record after retire too */
  ck_assert_int_eq(sim.waits[c][a], 1);
  ck_assert_int_eq(sim.waits[d][a], 1);
  /* d replaced a as Z's writer; c replaced it as X's writer: one record of a remains. */
  ck_assert_int_eq(refs(sa), 1);
  ck_assert_int_eq(sim.ev_destroyed[a], 0);
  OP(b, {Y, W}); /* the last buffer record naming a goes: so do the object and its event */
  ck_assert_int_eq(sim.ev_destroyed[a], 1);
  ASSERT_ORDERED();

  /* A stream whose record already covers everything retires with no new record. */
  int e = sim_stream();
  OP(e, {V, W});
  OP(b, {V, R});
  ck_assert_int_eq(sim.records[e], 1);
  ND_ASSERT_OK(sim_retire(e));
  ck_assert_int_eq(sim.records[e], 1);
  /* A stream with no tracked work retires with no record at all. */
  int f = sim_stream();
  ND_ASSERT_OK(sim_retire(f));
  ck_assert_int_eq(sim.records[f], 0);
  ASSERT_ORDERED();
}
END_TEST

START_TEST(retire_whose_record_fails_reports_at_hand_off) {
  int a = sim_stream(), b = sim_stream();
  OP(a, {X, W});
  sim.fail_record = 1;
  nd_status st = sim_retire(a);
  ck_assert_int_ne(st, ND_OK);
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "nd__stream_record"));
  nd__sync sync;
  nd__sync_init(&sync, sim.ns[b]);
  ND_ASSERT_OK(nd__sync_add(&sync, &hz[X], ND__READ));
  ND_ASSERT_FAILS(nd__sync_begin(&sync), ND_ERR_INTERNAL, "nd__stream_order");
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "destroyed"));
  ck_assert_int_eq(sim.nrecords + sim.nwaits, 0);
  ck_assert_int_eq(sim.anomalies, 0);
}
END_TEST

START_TEST(auto_events_off_orders_nothing) {
  int a = sim_stream(), b = sim_stream(), c = sim_stream();
  nd__set_auto_events(0);
  ck_assert_int_eq(nd__auto_events(), 0);
  OP(a, {X, W});
  OP(b, {X, R});
  int wc = OP(c, {X, W});
  ck_assert_int_eq(sim.nrecords, 0);
  ck_assert_int_eq(sim.nwaits, 0);
  /* The reference sees the races: RAW a->b, WAR b->c, WAW a->c. */
  ck_assert_int_eq(ref_unordered(NULL, 0), 3);
  /* Uses are still tracked, so turning ordering back on orders the next hand-off. */
  nd__set_auto_events(1);
  int r = OP(a, {X, R});
  ck_assert_int_eq(sim.waits[a][c], 1);
  ck_assert(hb(wc, r));
  ck_assert_int_eq(ref_unordered(NULL, 0), 3);
  ck_assert_int_eq(sim.anomalies, 0);
}
END_TEST

START_TEST(sync_add_merges_repeated_buffers) {
  int a = sim_stream(), b = sim_stream(), c = sim_stream();
  nd__sync sync;
  nd__sync_init(&sync, sim.ns[b]);
  ND_ASSERT_OK(nd__sync_add(&sync, &hz[X], ND__READ));
  ND_ASSERT_OK(nd__sync_add(&sync, &hz[Y], ND__READ));
  ND_ASSERT_OK(nd__sync_add(&sync, &hz[X], ND__WRITE));
  ND_ASSERT_OK(nd__sync_add(&sync, &hz[Y], ND__READ));
  ck_assert_int_eq(sync.n, 2);
  ck_assert_int_eq(sync.mode[0], ND__READ | ND__WRITE);
  ck_assert_int_eq(sync.mode[1], ND__READ);

  /* In place on b after a reader on c: the merged access is a write, so b waits for c. */
  int w = OP(a, {X, W});
  int rc = OP(c, {X, R});
  int ip = OP(b, {X, R}, {X, W});
  ck_assert(hb(w, ip) && hb(rc, ip));
  ck_assert_int_eq(sim.waits[b][c], 1);
  ck_assert_ptr_eq(hz[X].writer.stream, sim.ns[b]);
  ck_assert_int_eq(hz[X].nreaders, 0);
  ASSERT_ORDERED();

  /* An op that touches no buffer commits nothing. */
  uint64_t seq = atomic_load(&sim.ns[b]->seq);
  nd__sync_init(&sync, sim.ns[b]);
  ND_ASSERT_OK(nd__sync_begin(&sync));
  ND_ASSERT_OK(nd__sync_end(&sync));
  ck_assert_uint_eq(atomic_load(&sim.ns[b]->seq), seq);

  /* At most ND__SYNC_MAX distinct buffers; repeats of a known one still merge. */
  nd__sync_init(&sync, sim.ns[a]);
  for (int i = 0; i < ND__SYNC_MAX; i++) ND_ASSERT_OK(nd__sync_add(&sync, &hz[i], ND__READ));
  ND_ASSERT_FAILS(nd__sync_add(&sync, &hz[ND__SYNC_MAX], ND__READ), ND_ERR_INVALID_ARGUMENT,
                  "nd__sync_add");
  ND_ASSERT_OK(nd__sync_add(&sync, &hz[3], ND__WRITE));
  ck_assert_int_eq(sync.n, ND__SYNC_MAX);
  ck_assert_int_eq(sync.mode[3], ND__READ | ND__WRITE);
}
END_TEST

START_TEST(sole_stream) {
  int a = sim_stream(), b = sim_stream();
  ck_assert_ptr_null(nd__hazard_sole_stream(&hz[X])); /* never used */
  OP(a, {X, W});
  ck_assert_ptr_eq(nd__hazard_sole_stream(&hz[X]), sim.ns[a]);
  OP(a, {X, R});
  ck_assert_ptr_eq(nd__hazard_sole_stream(&hz[X]), sim.ns[a]);
  OP(b, {X, R});
  ck_assert_ptr_null(nd__hazard_sole_stream(&hz[X])); /* writer a, reader b */
  OP(b, {X, W});
  ck_assert_ptr_eq(nd__hazard_sole_stream(&hz[X]), sim.ns[b]);
  OP(b, {Y, R}); /* readers only */
  ck_assert_ptr_eq(nd__hazard_sole_stream(&hz[Y]), sim.ns[b]);
  OP(a, {Y, R});
  ck_assert_ptr_null(nd__hazard_sole_stream(&hz[Y]));
  OP(a, {Z, W});
  ND_ASSERT_OK(sim_retire(a));
  ck_assert_ptr_null(nd__hazard_sole_stream(&hz[Z])); /* gone */
  /* A per-thread stream is usable only on its own thread. */
  static const char other_thread;
  int e = sim_eager_stream(nd__thread_self());
  OP(e, {V, W});
  ck_assert_ptr_eq(nd__hazard_sole_stream(&hz[V]), sim.ns[e]);
  sim.ns[e]->owner = &other_thread;
  ck_assert_ptr_null(nd__hazard_sole_stream(&hz[V]));
  sim.ns[e]->owner = nd__thread_self();
  ck_assert_int_eq(sim.anomalies, 0);
}
END_TEST

START_TEST(host_wait_semantics) {
  int a = sim_stream(), b = sim_stream(), c = sim_stream();
  ND_ASSERT_OK(nd__hazard_host_wait(&hz[X], ND__WRITE)); /* never used: nothing to wait for */
  ck_assert_int_eq(sim.nhost_waits + sim.nrecords, 0);
  int w = OP(a, {X, W});
  int r = OP(b, {X, R});
  host_access(X, ND__READ); /* waits for the writer only */
  ck_assert_int_eq(sim.host_waits[a], 1);
  ck_assert_int_eq(sim.host_waits[b], 0);
  ck_assert(host_covers(w) && !host_covers(r));
  host_access(X, ND__WRITE); /* writer and readers */
  ck_assert_int_eq(sim.host_waits[b], 1);
  ck_assert(host_covers(r));

  /* A host read of an expired record re-records first, covering everything on a so far. */
  OP(a, {Y, W});
  int later = OP(a, {Z, W});
  host_access(Y, ND__READ);
  ck_assert_int_eq(sim.records[a], 2);
  ck_assert(host_covers(later));
  OP(c, {Y, R}); /* the host's record serves the next hand-off */
  ck_assert_int_eq(sim.records[a], 2);
  ck_assert_int_eq(sim.waits[c][a], 1);

  /* Host waits do not depend on ND_AUTO_EVENTS: they only block the caller. */
  nd__set_auto_events(0);
  int w2 = OP(b, {V, W});
  host_access(V, ND__READ);
  ck_assert(host_covers(w2));
  nd__set_auto_events(1);

  /* A failing host wait is reported with the model's function name. */
  sim.fail_host_wait = 1;
  ND_ASSERT_FAILS(nd__hazard_host_wait(&hz[V], ND__READ), ND_ERR_CUDA, "nd__stream_host_wait");
  ck_assert_int_eq(sim.anomalies, 0);
}
END_TEST

START_TEST(reader_array_grows) {
  enum { NR = 10 };
  ck_assert_int_gt(NR, 2 * ND__INLINE_READERS);
  int a = sim_stream();
  int rs[NR];
  for (int i = 0; i < NR; i++) rs[i] = sim_stream();
  int wv = sim_stream();
  int w = OP(a, {X, W});
  int r[NR];
  for (int i = 0; i < NR; i++) r[i] = OP(rs[i], {X, R});
  ck_assert_int_eq(hz[X].nreaders, NR);
  ck_assert_int_ge(hz[X].capreaders, NR);
  ck_assert_ptr_ne(hz[X].readers, hz[X].inline_readers);
  for (int i = 0; i < NR; i++) {
    ck_assert_ptr_eq(hz[X].readers[i].stream, sim.ns[rs[i]]); /* in arrival order, kept */
    ck_assert(hb(w, r[i]));
    ck_assert_int_eq(refs(sim.ns[rs[i]]), 2);
  }
  int again = OP(rs[3], {X, R}); /* a stream reads again: no new record, newer seq */
  ck_assert_int_eq(hz[X].nreaders, NR);
  ck_assert_uint_eq(hz[X].readers[3].seq, 2);
  int w2 = OP(wv, {X, W});
  ck_assert(hb(again, w2));
  for (int i = 0; i < NR; i++) {
    ck_assert(hb(r[i], w2));
    ck_assert_int_eq(sim.waits[wv][rs[i]], 1);
    ck_assert_int_eq(refs(sim.ns[rs[i]]), 1); /* the write dropped the reader records */
  }
  ck_assert_int_eq(sim.waits[wv][a], 1);
  ck_assert_int_eq(hz[X].nreaders, 0);
  ASSERT_ORDERED();
  nd__hazard_clear(&hz[X]);
  sim_forget(X);
  ck_assert_ptr_eq(hz[X].readers, hz[X].inline_readers);
  ck_assert_int_eq(hz[X].capreaders, ND__INLINE_READERS);
  ck_assert_ptr_null(hz[X].writer.stream);
  /* The cleared record is reusable. */
  for (int i = 0; i < NR; i++) OP(rs[i], {X, R});
  ck_assert_int_eq(hz[X].nreaders, NR);
  ASSERT_ORDERED();
}
END_TEST

START_TEST(refcounts_and_event_destruction) {
  int a = sim_stream(), b = sim_stream(), c = sim_stream(), d = sim_stream();
  OP(a, {X, W});
  OP(b, {X, R});
  OP(c, {Y, R}); /* a reader of a never-written buffer */
  OP(a, {Z, W});
  OP(a, {Z, R}); /* a is Z's writer and reader: two records */
  nd_stream *sa = sim.ns[a], *sb = sim.ns[b], *sc = sim.ns[c];
  ck_assert_int_eq(refs(sa), 4);
  ck_assert_int_eq(refs(sb), 2);
  ck_assert_int_eq(refs(sc), 2);
  ck_assert_int_eq(refs(sim.ns[d]), 1);
  sim_drop(d); /* named by no buffer: goes at once */
  ck_assert_int_eq(sim.ev_destroyed[d], 1);
  sim_drop(a);
  sim_drop(b);
  sim_drop(c);
  ck_assert_int_eq(sim.ev_destroyed[a] + sim.ev_destroyed[b] + sim.ev_destroyed[c], 0);
  ck_assert_int_eq(refs(sa), 3);
  nd__hazard_clear(&hz[Y]);
  ck_assert_int_eq(sim.ev_destroyed[c], 1);
  nd__hazard_clear(&hz[X]);
  ck_assert_int_eq(sim.ev_destroyed[b], 1);
  ck_assert_int_eq(sim.ev_destroyed[a], 0);
  ck_assert_int_eq(refs(sa), 2);
  nd__hazard_clear(&hz[Z]);
  ck_assert_int_eq(sim.ev_destroyed[a], 1);
  for (int b2 = 0; b2 < SIM_BUFS; b2++) nd__hazard_clear(&hz[b2]); /* clearing twice is fine */
  for (int i = 0; i < sim.nstreams; i++) ck_assert_int_eq(sim.ev_destroyed[i], 1);
  ck_assert_int_eq(sim.anomalies, 0);
}
END_TEST

START_TEST(binding_failures_leave_the_cache_honest) {
  int a = sim_stream(), b = sim_stream();
  int w = OP(a, {X, W});
  nd__sync sync;
  /* The record fails: no wait is issued, and the next attempt records again. */
  sim.fail_record = 1;
  nd__sync_init(&sync, sim.ns[b]);
  ND_ASSERT_OK(nd__sync_add(&sync, &hz[X], ND__READ));
  ND_ASSERT_FAILS(nd__sync_begin(&sync), ND_ERR_CUDA, "nd__stream_record");
  ck_assert_int_eq(sim.nrecords + sim.nwaits, 0);
  /* The wait fails: the record stands, but b does not count as having waited. */
  sim.fail_wait = 1;
  ND_ASSERT_FAILS(nd__sync_begin(&sync), ND_ERR_CUDA, "nd__stream_order");
  ck_assert_int_eq(sim.records[a], 1);
  ck_assert_int_eq(sim.nwaits, 0);
  for (int e = 0; e < sim.nstreams; e++) sim.ev_pending[e] = 0;
  int r = OP(b, {X, R});
  ck_assert_int_eq(sim.records[a], 1);
  ck_assert_int_eq(sim.waits[b][a], 1);
  ck_assert(hb(w, r));
  ASSERT_ORDERED();
}
END_TEST

START_TEST(waited_cache_misses_only_cost_a_wait) {
  enum { NP = ND__WAITED_SLOTS + 1 };
  int t = sim_stream();
  int p[NP];
  for (int i = 0; i < NP; i++) {
    p[i] = sim_stream();
    OP(p[i], {i, W});
  }
  for (int i = 0; i < NP; i++) OP(t, {i, R});
  ck_assert_int_eq(sim.nrecords, NP);
  ck_assert_int_eq(sim.nwaits, NP);
  OP(t, {NP - 1, R}); /* the most recent producer is remembered */
  ck_assert_int_eq(sim.nwaits, NP);
  OP(t, {0, R}); /* the least recent fell out: one redundant wait, no record */
  ck_assert_int_eq(sim.waits[t][p[0]], 2);
  ck_assert_int_eq(sim.nrecords, NP);
  OP(t, {0, R}); /* and it is remembered again */
  ck_assert_int_eq(sim.waits[t][p[0]], 2);
  ASSERT_ORDERED();
}
END_TEST

START_TEST(eager_streams_record_at_commit) {
  int e = sim_eager_stream(nd__thread_self()), b = sim_stream();
  for (int i = 0; i < 3; i++) OP(e, {X, W});
  ck_assert_int_eq(sim.records[e], 3);
  OP(b, {X, R}); /* the record made at commit serves the hand-off */
  ck_assert_int_eq(sim.records[e], 3);
  ck_assert_int_eq(sim.waits[b][e], 1);
  ASSERT_ORDERED();
}
END_TEST

START_TEST(eager_stream_of_another_thread_is_never_recorded_here) {
  /* A per-thread stream's handle names a different stream on each thread, so only its owner
   * may record it. If its commit-time record is missing (ordering was off, or the record
   * failed), a consumer on another thread must get an error, not a record on its own
   * per-thread stream that orders nothing. */
  static const char owner;
  int e = sim_eager_stream(&owner), b = sim_stream();
  nd__set_auto_events(0);
  OP(e, {X, W}); /* committed by the owner thread, with no record */
  nd__set_auto_events(1);
  nd__sync sync;
  nd__sync_init(&sync, sim.ns[b]);
  ND_ASSERT_OK(nd__sync_add(&sync, &hz[X], ND__READ));
  ND_ASSERT_FAILS(nd__sync_begin(&sync), ND_ERR_INTERNAL, "nd__stream_order");
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "per-thread stream"));
  ck_assert_msg(sim.anomalies == 0, "%s", sim.anomaly);
  ck_assert_int_eq(sim.nrecords + sim.nwaits, 0);
  /* On the owner's thread the missing record is made at the hand-off. */
  sim.ns[e]->owner = nd__thread_self();
  sim.owner[e] = nd__thread_self();
  int r = OP(b, {X, R});
  ck_assert_int_eq(sim.records[e], 1);
  ck_assert(hb(0, r));
  ASSERT_ORDERED();
}
END_TEST

/* ---- randomised sequences ------------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int rng(uint64_t *s, int n) { return (int)(rng_next(s) % (uint64_t)n); }

typedef struct rand_cfg {
  int nstreams, nbufs, nops;
  int read_pct;   /* share of accesses that only read */
  int host_pct;   /* share of steps that are host accesses */
  int retire_pct; /* share of steps that retire a stream and replace it */
} rand_cfg;

static long rand_waits; /* waits issued over all random sequences */

/* Runs one random sequence; returns the number of unordered conflicting pairs and describes
 * the first in msg. */
static int run_random(uint64_t seed, const rand_cfg *cfg, char *msg, size_t cap) {
  sim_reset();
  uint64_t s = seed;
  int slot[16];
  for (int i = 0; i < cfg->nstreams; i++) slot[i] = sim_stream();
  int cur = slot[0];
  for (int k = 0; k < cfg->nops; k++) {
    int roll = rng(&s, 100);
    if (roll < cfg->host_pct) {
      host_access(rng(&s, cfg->nbufs), rng(&s, 2) ? ND__READ : ND__WRITE);
      continue;
    }
    if (roll < cfg->host_pct + cfg->retire_pct && sim.nstreams < SIM_STREAMS) {
      int i = rng(&s, cfg->nstreams);
      ND_ASSERT_OK(sim_retire(slot[i]));
      sim_drop(slot[i]);
      if (cur == slot[i]) cur = -1;
      slot[i] = sim_stream();
      continue;
    }
    if (cur < 0 || rng(&s, 2)) cur = slot[rng(&s, cfg->nstreams)];
    acc a[8];
    int n = 0, m = 1 + rng(&s, 3);
    for (int i = 0; i < m; i++) {
      int b = rng(&s, cfg->nbufs), r = rng(&s, 100);
      int mode = r < cfg->read_pct ? R : r < cfg->read_pct + (100 - cfg->read_pct) * 3 / 4 ? W : RW;
      a[n++] = (acc){b, mode};
      if (rng(&s, 8) == 0) a[n++] = (acc){b, rng(&s, 2) ? R : W}; /* the same buffer again */
    }
    op_n(cur, n, a);
  }
  int bad = ref_unordered(msg, cap);
  rand_waits += sim.nwaits;
  ck_assert_msg(sim.anomalies == 0, "seed %llu: %s", (unsigned long long)seed, sim.anomaly);
  if (sim.nstreams <= ND__WAITED_SLOTS)
    ck_assert_msg(sim.redundant_waits == 0, "seed %llu: %d waits on a record already waited on",
                  (unsigned long long)seed, sim.redundant_waits);
  sim_drop_all();
  return bad;
}

static void run_many(uint64_t base, int count, const rand_cfg *cfg) {
  for (int i = 0; i < count; i++) {
    uint64_t seed = base + (uint64_t)i;
    char m[256] = "";
    int bad = run_random(seed, cfg, m, sizeof m);
    if (bad != 0) {
      ck_abort_msg("seed %llu: %d conflicting pairs not ordered (%s)", (unsigned long long)seed,
                   bad, m);
    }
  }
}

START_TEST(random_four_streams) {
  rand_cfg cfg = {4, 6, 50, 50, 5, 2};
  run_many(1000, 2000, &cfg);
}
END_TEST

START_TEST(random_more_streams_than_waited_slots) {
  rand_cfg cfg = {12, 6, 60, 50, 3, 2};
  run_many(50000, 400, &cfg);
}
END_TEST

START_TEST(random_many_readers) {
  rand_cfg cfg = {10, 2, 60, 85, 3, 0};
  run_many(90000, 400, &cfg);
}
END_TEST

START_TEST(random_checker_is_sensitive) {
  /* With ordering off, the same sequences race, and the reference must say so. */
  rand_cfg cfg = {4, 6, 50, 50, 0, 0};
  nd__set_auto_events(0);
  int racy = 0;
  rand_waits = 0;
  for (int i = 0; i < 200; i++) racy += run_random(1000 + (uint64_t)i, &cfg, NULL, 0) > 0;
  nd__set_auto_events(1);
  ck_assert_int_eq(rand_waits, 0);
  ck_assert_msg(racy >= 190, "only %d of 200 unordered sequences were flagged", racy);
  /* And the same sequences with ordering on issue waits and are all ordered. */
  for (int i = 0; i < 200; i++) ck_assert_int_eq(run_random(1000 + (uint64_t)i, &cfg, NULL, 0), 0);
  ck_assert_int_gt(rand_waits, 0);
}
END_TEST

static Suite *ordering_suite(void) {
  Suite *s = suite_create("ordering");
  TCase *tc = tcase_create("directed");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, same_stream_costs_nothing);
  tcase_add_test(tc, raw_war_waw_across_streams);
  tcase_add_test(tc, readers_are_not_ordered_with_each_other);
  tcase_add_test(tc, hand_off_costs_one_record_and_one_wait);
  tcase_add_test(tc, streams_of_two_devices);
  tcase_add_test(tc, chains_and_branches);
  tcase_add_test(tc, expired_records);
  tcase_add_test(tc, retired_producer);
  tcase_add_test(tc, retire_whose_record_fails_reports_at_hand_off);
  tcase_add_test(tc, auto_events_off_orders_nothing);
  tcase_add_test(tc, sync_add_merges_repeated_buffers);
  tcase_add_test(tc, sole_stream);
  tcase_add_test(tc, host_wait_semantics);
  tcase_add_test(tc, reader_array_grows);
  tcase_add_test(tc, refcounts_and_event_destruction);
  tcase_add_test(tc, binding_failures_leave_the_cache_honest);
  tcase_add_test(tc, waited_cache_misses_only_cost_a_wait);
  tcase_add_test(tc, eager_streams_record_at_commit);
  tcase_add_test(tc, eager_stream_of_another_thread_is_never_recorded_here);
  suite_add_tcase(s, tc);
  TCase *tr = tcase_create("random");
  tcase_add_checked_fixture(tr, setup, teardown);
  tcase_set_timeout(tr, 120);
  tcase_add_test(tr, random_four_streams);
  tcase_add_test(tr, random_more_streams_than_waited_slots);
  tcase_add_test(tr, random_many_readers);
  tcase_add_test(tr, random_checker_is_sensitive);
  suite_add_tcase(s, tr);
  return s;
}

int main(void) { return nd_test_main(ordering_suite()); }
