/* Streams, events and automatic cross-stream ordering on a real device.
 *
 * The stream matrix runs each (operation family x hazard x stream pair) cell many times with
 * a spin kernel delaying the producer; with automatic ordering every trial must be right,
 * and with it turned off (the ND_AUTO_EVENTS=0 diagnostic, set here through
 * nd__set_auto_events) most trials must go wrong, which proves the cell can see the race. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "src/array.h"
#include "streams/stream_internal.h"
#include "tests/nd_test.h"

#define N (1 << 20)
#define SPIN_US 1500.0

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void spin(nd_stream *s) { ck_assert_int_eq(nd_test_spin(nd_stream_cuda(s), SPIN_US), 0); }

/* ---- the matrix ------------------------------------------------------------------------- */

enum family { FAM_FILL, FAM_D2D, FAM_H2D, FAM_D2H, FAM_RANDOM, FAM_INV, FAM_REDUCE, NFAM };
enum hazard { HZ_RAW, HZ_WAR, HZ_WAW, NHZ };
enum pair { PR_NULL_NB, PR_NB_NULL, PR_NB_NB, PR_PT_NB, PR_THREAD, NPR };
static const char *fam_name[] = {"fill/astype", "copy D2D", "copy H2D", "copy D2H", "random fill", "batched inv",
                                 "reduction"};
static const char *hz_name[] = {"RAW", "WAR", "WAW"};
static const char *pr_name[] = {"null->nb", "nb->null", "nb->nb", "per-thread->nb", "other thread"};

typedef struct cell_ctx {
  int fam;
  nd_array *x;      /* the buffer both sides touch, float32[N] */
  nd_array *y;      /* where reads land */
  nd_array *src[2]; /* device sources holding 1.0 / 2.0 for D2D writes */
  float *pin_in[2]; /* pinned host sources holding 1.0 / 2.0 for H2D writes */
  float *pin_out;   /* pinned host destination of D2H reads */
  nd_generator *gen;
  nd_array *rsrc[2]; /* reduction family: float32[RED_ROWS][N] holding 1 / RED_ROWS, 2 / RED_ROWS */
} cell_ctx;

/* Rows summed by the reduction family's reads and writes. A power of two, so that every sum
 * of equal terms is exact in float32. */
#define RED_ROWS 4

/* Writes value v (1 or 2) into x with the family's write operation on the current stream. */
static void op_write(cell_ctx *c, int v) {
  switch (c->fam) {
    case FAM_FILL:
    case FAM_D2H: ND_ASSERT_OK(nd_array_fill(c->x, nd_scalar_float(v))); break;
    case FAM_D2D: ND_ASSERT_OK(nd_copyto(c->x, c->src[v - 1], ND_CASTING_SAME_KIND)); break;
    case FAM_H2D: ND_ASSERT_OK(nd_array_from_host_async(c->x, c->pin_in[v - 1], N * sizeof(float))); break;
    /* uniform on [v, v + 1e-9): every float32 sample rounds to v, so the fill is checkable. */
    case FAM_RANDOM: ND_ASSERT_OK(nd_random_uniform_into(c->gen, v, v + 1e-9, c->x)); break;
    case FAM_INV: ND_ASSERT_OK(nd_array_fill(c->x, nd_scalar_float(v))); break;
    /* x = the column sums of a (RED_ROWS, N) array of v / RED_ROWS, written through out. */
    case FAM_REDUCE: {
      const int64_t axis0 = 0;
      ND_ASSERT_OK(nd_sum(c->rsrc[v - 1], 1, &axis0, 0, ND_DTYPE_DEFAULT, c->x, NULL));
      break;
    }
  }
}

/* Reads x with the family's read operation on the current stream. */
static void op_read(cell_ctx *c) {
  switch (c->fam) {
    case FAM_FILL: {
      nd_array *t;
      ND_ASSERT_OK(nd_array_astype(c->x, ND_FLOAT64, &t));
      ND_ASSERT_OK(nd_copyto(c->y, t, ND_CASTING_SAME_KIND));
      nd_array_release(t);
      break;
    }
    case FAM_D2D:
    case FAM_H2D:
    case FAM_RANDOM: ND_ASSERT_OK(nd_copyto(c->y, c->x, ND_CASTING_SAME_KIND)); break;
    case FAM_INV: {
      /* x as a batch of 1x1 matrices, inverted (unchecked: 1/0 is inf, not an error); the
       * check undoes the inverse, so the family reads back the value it saw. */
      int64_t shape[3] = {N, 1, 1};
      nd_array *m, *inv;
      ND_ASSERT_OK(nd_array_reshape(c->x, 3, shape, &m));
      ND_ASSERT_OK(nd_linalg_inv_ex(m, ND_LINALG_UNCHECKED, &inv, NULL));
      nd_array *flat;
      ND_ASSERT_OK(nd_array_ravel(inv, &flat));
      ND_ASSERT_OK(nd_copyto(c->y, flat, ND_CASTING_SAME_KIND));
      nd_array_release(flat);
      nd_array_release(inv);
      nd_array_release(m);
      break;
    }
    case FAM_D2H: ND_ASSERT_OK(nd_array_to_host_async(c->x, c->pin_out, N * sizeof(float))); break;
    case FAM_REDUCE: {
      /* y = the column sums of x broadcast to (RED_ROWS, N), i.e. RED_ROWS * x: a reduction
       * along axis 0 that reads every element of x RED_ROWS times. The check divides. */
      const int64_t shape[2] = {RED_ROWS, N}, axis0 = 0;
      nd_array *b;
      ND_ASSERT_OK(nd_array_broadcast_to(c->x, 2, shape, &b));
      ND_ASSERT_OK(nd_sum(b, 1, &axis0, 0, ND_DTYPE_DEFAULT, c->y, NULL));
      nd_array_release(b);
      break;
    }
  }
}

/* The value the read saw (checked after a device-wide synchronisation); -1 if mixed. */
static float read_result(cell_ctx *c) {
  static float host[N];
  const float *p = c->pin_out;
  if (c->fam != FAM_D2H) {
    ND_ASSERT_OK(nd_array_to_host(c->y, host, sizeof host));
    p = host;
  }
  for (int i = 1; i < N; i++)
    if (p[i] != p[0]) return -1;
  if (c->fam == FAM_INV) return 1.0f / p[0];
  if (c->fam == FAM_REDUCE) return p[0] / RED_ROWS;
  return p[0];
}

static float x_value(cell_ctx *c) {
  static float host[N];
  ND_ASSERT_OK(nd_array_to_host(c->x, host, sizeof host));
  for (int i = 1; i < N; i++)
    if (host[i] != host[0]) return -1;
  return host[0];
}

typedef struct producer_job {
  cell_ctx *c;
  int hazard;
} producer_job;

/* The producer side of a trial: spin, then the first access. */
static void producer(cell_ctx *c, int hazard) {
  spin(nd_stream_current());
  if (hazard == HZ_WAR) op_read(c);
  else op_write(c, 1);
}

static void *producer_thread(void *arg) {
  producer_job *j = arg;
  nd_stream *s;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
  ND_ASSERT_OK(nd_stream_push(s));
  producer(j->c, j->hazard);
  ND_ASSERT_OK(nd_stream_pop());
  ND_ASSERT_OK(nd_stream_destroy(s)); /* destroyed while x still remembers it */
  return NULL;
}

/* One trial; returns 1 when the outcome is right. */
static int trial(cell_ctx *c, int hazard, int pair, nd_stream *nb1, nd_stream *nb2) {
  /* Start from x == 0 and y == 0 with nothing pending. */
  ND_ASSERT_OK(nd_array_fill(c->x, nd_scalar_float(0)));
  ND_ASSERT_OK(nd_array_fill(c->y, nd_scalar_float(0)));
  for (int i = 0; i < N; i++) c->pin_out[i] = 0;
  ck_assert_int_eq(cudaDeviceSynchronize(), 0);

  nd_stream *p = NULL, *q = NULL;
  switch (pair) {
    case PR_NULL_NB: p = nd_stream_null(); q = nb1; break;
    case PR_NB_NULL: p = nb1; q = nd_stream_null(); break;
    case PR_NB_NB: p = nb1; q = nb2; break;
    case PR_PT_NB: p = nd_stream_per_thread(); q = nb1; break;
    case PR_THREAD: q = nb1; break;
  }
  if (pair == PR_THREAD) {
    producer_job j = {c, hazard};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, producer_thread, &j), 0);
    pthread_join(t, NULL);
  } else {
    ND_ASSERT_OK(nd_stream_push(p));
    producer(c, hazard);
    ND_ASSERT_OK(nd_stream_pop());
  }
  ND_ASSERT_OK(nd_stream_push(q));
  if (hazard == HZ_RAW) op_read(c);
  else op_write(c, 2);
  ND_ASSERT_OK(nd_stream_pop());
  ck_assert_int_eq(cudaDeviceSynchronize(), 0);

  switch (hazard) {
    case HZ_RAW: return read_result(c) == 1.0f;
    case HZ_WAR: return read_result(c) == 0.0f && x_value(c) == 2.0f;
    default: return x_value(c) == 2.0f;
  }
}

static void cell_setup(cell_ctx *c, int fam) {
  int64_t n = N;
  c->fam = fam;
  ND_ASSERT_OK(nd_empty(1, &n, ND_FLOAT32, &c->x));
  ND_ASSERT_OK(nd_empty(1, &n, ND_FLOAT32, &c->y));
  for (int v = 0; v < 2; v++) {
    ND_ASSERT_OK(nd_full(1, &n, nd_scalar_float(v + 1), ND_FLOAT32, &c->src[v]));
    ND_ASSERT_OK(nd_host_alloc_pinned(N * sizeof(float), (void **)&c->pin_in[v]));
    for (int i = 0; i < N; i++) c->pin_in[v][i] = (float)(v + 1);
  }
  ND_ASSERT_OK(nd_host_alloc_pinned(N * sizeof(float), (void **)&c->pin_out));
  ND_ASSERT_OK(nd_generator_create(42, ND_BITGEN_PHILOX, &c->gen));
  c->rsrc[0] = c->rsrc[1] = NULL;
  if (fam == FAM_REDUCE) {
    const int64_t shape[2] = {RED_ROWS, N};
    for (int v = 0; v < 2; v++)
      ND_ASSERT_OK(nd_full(2, shape, nd_scalar_float((v + 1.0) / RED_ROWS), ND_FLOAT32, &c->rsrc[v]));
  }
}

static void cell_teardown(cell_ctx *c) {
  nd_array_release(c->x);
  nd_array_release(c->y);
  for (int v = 0; v < 2; v++) {
    nd_array_release(c->src[v]);
    ND_ASSERT_OK(nd_host_free_pinned(c->pin_in[v]));
  }
  ND_ASSERT_OK(nd_host_free_pinned(c->pin_out));
  nd_generator_destroy(c->gen);
  nd_array_release(c->rsrc[0]);
  nd_array_release(c->rsrc[1]);
}

static void run_matrix(int auto_on, int trials, int wrong[NFAM][NHZ][NPR]) {
  nd__set_auto_events(auto_on);
  nd_stream *nb1, *nb2;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &nb1));
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &nb2));
  for (int f = 0; f < NFAM; f++) {
    cell_ctx c;
    cell_setup(&c, f);
    for (int h = 0; h < NHZ; h++)
      for (int p = 0; p < NPR; p++) {
        wrong[f][h][p] = 0;
        for (int t = 0; t < trials; t++) wrong[f][h][p] += !trial(&c, h, p, nb1, nb2);
      }
    cell_teardown(&c);
  }
  ND_ASSERT_OK(nd_stream_destroy(nb1));
  ND_ASSERT_OK(nd_stream_destroy(nb2));
  nd__set_auto_events(1);
}

static void print_matrix(const char *title, int trials, int wrong[NFAM][NHZ][NPR]) {
  printf("%s (wrong results out of %d trials per cell)\n%-12s %-4s", title, trials, "family", "");
  for (int p = 0; p < NPR; p++) printf(" %15s", pr_name[p]);
  printf("\n");
  for (int f = 0; f < NFAM; f++)
    for (int h = 0; h < NHZ; h++) {
      printf("%-12s %-4s", fam_name[f], hz_name[h]);
      for (int p = 0; p < NPR; p++) printf(" %15d", wrong[f][h][p]);
      printf("\n");
    }
  fflush(stdout);
}

START_TEST(stream_matrix_is_always_right) {
  static int wrong[NFAM][NHZ][NPR];
  const int trials = 200;
  run_matrix(1, trials, wrong);
  print_matrix("automatic ordering on", trials, wrong);
  for (int f = 0; f < NFAM; f++)
    for (int h = 0; h < NHZ; h++)
      for (int p = 0; p < NPR; p++)
        ck_assert_msg(wrong[f][h][p] == 0, "%s %s %s: %d of %d trials wrong", fam_name[f],
                      hz_name[h], pr_name[p], wrong[f][h][p], trials);
}
END_TEST

START_TEST(stream_matrix_detects_races_without_ordering) {
  static int wrong[NFAM][NHZ][NPR];
  const int trials = 40;
  run_matrix(0, trials, wrong);
  print_matrix("automatic ordering OFF (negative control)", trials, wrong);
  for (int f = 0; f < NFAM; f++)
    for (int h = 0; h < NHZ; h++)
      for (int p = 0; p < NPR; p++)
        ck_assert_msg(2 * wrong[f][h][p] > trials, "%s %s %s: only %d of %d trials went wrong "
                      "without ordering, so this cell cannot see the race", fam_name[f],
                      hz_name[h], pr_name[p], wrong[f][h][p], trials);
}
END_TEST

/* ---- SEEDS report 5: eye on the null stream, consumed on a non-blocking stream ---------- */

START_TEST(eye_on_null_stream_consumed_on_nonblocking_stream) {
  nd_stream *s;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
  static double host[64 * 64 * 16];
  for (int t = 0; t < 100; t++) {
    spin(nd_stream_null());
    nd_array *e, *b, *c;
    ND_ASSERT_OK(nd_eye(64, -1, 0, ND_FLOAT64, &e)); /* allocated and filled on the null stream */
    int64_t shape[3] = {16, 64, 64};
    ND_ASSERT_OK(nd_stream_push(s));
    ND_ASSERT_OK(nd_array_broadcast_to(e, 3, shape, &b));
    ND_ASSERT_OK(nd_array_copy(b, ND_ORDER_C, &c)); /* consumed on s */
    ND_ASSERT_OK(nd_array_to_host(c, host, sizeof host));
    ND_ASSERT_OK(nd_stream_pop());
    for (int k = 0; k < 16; k++)
      for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++)
          ck_assert_msg(host[(k * 64 + i) * 64 + j] == (i == j), "trial %d: [%d,%d,%d] = %g", t, k, i, j,
                        host[(k * 64 + i) * 64 + j]);
    nd_array_release(c);
    nd_array_release(b);
    nd_array_release(e);
  }
  ND_ASSERT_OK(nd_stream_destroy(s));
}
END_TEST

/* ---- stream and event API ---------------------------------------------------------------- */

START_TEST(stream_api_and_current_stack) {
  nd_stream *a, *b, *f;
  ck_assert_ptr_eq(nd_stream_current(), nd_stream_null());
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_DEFAULT, 1000000, &a)); /* priority clamped */
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, -1000000, &b));
  ND_ASSERT_FAILS(nd_stream_create(8, 0, &f), ND_ERR_INVALID_ARGUMENT, "nd_stream_create");
  ND_ASSERT_FAILS(nd_stream_create(0, 0, NULL), ND_ERR_NULL_POINTER, "nd_stream_create");
  ND_ASSERT_OK(nd_stream_push(a));
  ND_ASSERT_OK(nd_stream_push(b));
  ck_assert_ptr_eq(nd_stream_current(), b);
  ND_ASSERT_FAILS(nd_stream_destroy(b), ND_ERR_STREAM, "pop it first");
  ND_ASSERT_OK(nd_stream_pop());
  ck_assert_ptr_eq(nd_stream_current(), a);
  ND_ASSERT_OK(nd_stream_pop());
  ck_assert_ptr_eq(nd_stream_current(), nd_stream_null());
  ND_ASSERT_FAILS(nd_stream_pop(), ND_ERR_STREAM, "nothing was pushed");
  ND_ASSERT_FAILS(nd_stream_push(NULL), ND_ERR_NULL_POINTER, "nd_stream_push");
  /* Wrapping: NULL is the null stream, a real stream gets its own handle. */
  ND_ASSERT_OK(nd_stream_from_cuda(NULL, &f));
  ck_assert_ptr_eq(f, nd_stream_null());
  ND_ASSERT_OK(nd_stream_from_cuda(nd_stream_cuda(a), &f));
  ck_assert_ptr_ne(f, a);
  ck_assert_ptr_eq(nd_stream_cuda(f), nd_stream_cuda(a));
  ND_ASSERT_OK(nd_stream_destroy(f)); /* the wrapper only */
  int done = 0;
  ND_ASSERT_OK(nd_stream_synchronize(a));
  ND_ASSERT_OK(nd_stream_query(a, &done));
  ck_assert_int_eq(done, 1);
  spin(b);
  ND_ASSERT_OK(nd_stream_query(b, &done));
  ck_assert_int_eq(done, 0);
  ND_ASSERT_OK(nd_stream_synchronize(b));
  ND_ASSERT_OK(nd_stream_destroy(a));
  ND_ASSERT_OK(nd_stream_destroy(b));
  ND_ASSERT_OK(nd_stream_destroy(NULL));
  ND_ASSERT_OK(nd_stream_destroy(nd_stream_null())); /* no-op */
}
END_TEST

static void *push_foreign_per_thread(void *arg) {
  nd_status st = nd_stream_push((nd_stream *)arg);
  return (void *)(intptr_t)st;
}

START_TEST(per_thread_stream_belongs_to_its_thread) {
  nd_stream *pt = nd_stream_per_thread();
  ck_assert_ptr_nonnull(pt);
  ck_assert_ptr_ne(pt, nd_stream_null());
  pthread_t t;
  void *r;
  pthread_create(&t, NULL, push_foreign_per_thread, pt);
  pthread_join(t, &r);
  ck_assert_int_eq((int)(intptr_t)r, ND_ERR_STREAM);
}
END_TEST

START_TEST(events_record_wait_and_time) {
  nd_event *e0, *e1, *nt;
  ND_ASSERT_OK(nd_event_create(ND_EVENT_TIMING, &e0));
  ND_ASSERT_OK(nd_event_create(ND_EVENT_TIMING | ND_EVENT_BLOCKING_SYNC, &e1));
  ND_ASSERT_OK(nd_event_create(ND_EVENT_DEFAULT, &nt));
  ND_ASSERT_FAILS(nd_event_create(64, &nt), ND_ERR_INVALID_ARGUMENT, "nd_event_create");
  nd_stream *s;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
  ND_ASSERT_OK(nd_event_record(e0, s));
  spin(s);
  ND_ASSERT_OK(nd_event_record(e1, s));
  int done = 1;
  ND_ASSERT_OK(nd_event_query(e1, &done));
  ck_assert_int_eq(done, 0);
  ND_ASSERT_OK(nd_stream_wait_event(NULL, e1)); /* the null stream waits for s */
  ND_ASSERT_OK(nd_event_record(nt, NULL));
  ND_ASSERT_OK(nd_event_synchronize(nt));
  ND_ASSERT_OK(nd_event_query(e1, &done));
  ck_assert_int_eq(done, 1);
  float ms = 0;
  ND_ASSERT_OK(nd_event_elapsed_ms(e0, e1, &ms));
  ck_assert_msg(ms > 0.5 * SPIN_US / 1000 && ms < 100, "elapsed %g ms", ms);
  ND_ASSERT_FAILS(nd_event_elapsed_ms(e0, nt, &ms), ND_ERR_INVALID_ARGUMENT, "ND_EVENT_TIMING");
  ND_ASSERT_OK(nd_event_destroy(e0));
  ND_ASSERT_OK(nd_event_destroy(e1));
  ND_ASSERT_OK(nd_event_destroy(nt));
  ND_ASSERT_OK(nd_stream_destroy(s));
}
END_TEST

/* ---- lifetime cases ---------------------------------------------------------------------- */

START_TEST(destroyed_producer_stream_stays_ordered) {
  static float host[N];
  int64_t n = N;
  for (int t = 0; t < 50; t++) {
    nd_stream *p, *q;
    nd_array *x, *y;
    ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &p));
    ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &q));
    ND_ASSERT_OK(nd_stream_push(p));
    ND_ASSERT_OK(nd_empty(1, &n, ND_FLOAT32, &x));
    spin(p);
    ND_ASSERT_OK(nd_array_fill(x, nd_scalar_float(7)));
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_stream_destroy(p)); /* x still remembers p */
    ND_ASSERT_OK(nd_stream_push(q));
    ND_ASSERT_OK(nd_array_copy(x, ND_ORDER_C, &y));
    ND_ASSERT_OK(nd_array_to_host(y, host, sizeof host));
    ND_ASSERT_OK(nd_stream_pop());
    ck_assert_msg(host[0] == 7 && host[N - 1] == 7, "trial %d: %g %g", t, host[0], host[N - 1]);
    nd_array_release(x);
    nd_array_release(y);
    ND_ASSERT_OK(nd_stream_destroy(q));
  }
}
END_TEST

START_TEST(buffer_freed_while_read_elsewhere_is_not_reused_early) {
  static float host[N];
  int64_t n = N;
  nd_stream *p, *q;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &p));
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &q));
  for (int t = 0; t < 50; t++) {
    nd_array *x, *y, *z;
    ND_ASSERT_OK(nd_stream_push(p));
    ND_ASSERT_OK(nd_full(1, &n, nd_scalar_float(3), ND_FLOAT32, &x));
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_stream_push(q));
    spin(q);
    ND_ASSERT_OK(nd_array_copy(x, ND_ORDER_C, &y)); /* reads x on q, late */
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_stream_push(p));
    nd_array_release(x); /* freed while q may still read it */
    ND_ASSERT_OK(nd_full(1, &n, nd_scalar_float(-1), ND_FLOAT32, &z)); /* may reuse the block */
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_stream_push(q));
    ND_ASSERT_OK(nd_array_to_host(y, host, sizeof host));
    ND_ASSERT_OK(nd_stream_pop());
    ck_assert_msg(host[0] == 3 && host[N - 1] == 3, "trial %d: read %g after free", t, host[0]);
    nd_array_release(y);
    nd_array_release(z);
  }
  ND_ASSERT_OK(nd_stream_destroy(p));
  ND_ASSERT_OK(nd_stream_destroy(q));
}
END_TEST

START_TEST(host_read_waits_for_producer_only) {
  nd_stream *busy, *p;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &busy));
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &p));
  int64_t n = 1000;
  nd_array *x;
  ND_ASSERT_OK(nd_stream_push(p));
  ND_ASSERT_OK(nd_full(1, &n, nd_scalar_float(5), ND_FLOAT32, &x));
  ND_ASSERT_OK(nd_stream_synchronize(p));
  ck_assert_int_eq(nd_test_spin(nd_stream_cuda(busy), 300000.0), 0); /* 300 ms elsewhere */
  float h[1000];
  double t0 = now_s();
  ND_ASSERT_OK(nd_array_to_host(x, h, sizeof h));
  double dt = now_s() - t0;
  ND_ASSERT_OK(nd_stream_pop());
  ck_assert_msg(dt < 0.1, "to_host took %g s: it waited for an unrelated stream", dt);
  ck_assert(h[0] == 5 && h[999] == 5);
  ND_ASSERT_OK(nd_stream_synchronize(busy));
  nd_array_release(x);
  ND_ASSERT_OK(nd_stream_destroy(busy));
  ND_ASSERT_OK(nd_stream_destroy(p));
}
END_TEST

/* Work the caller launches on the raw CUDA stream takes part in the ordering when bracketed by
 * nd_array_wait / nd_array_record (array.h): a raw write on one stream delayed by a spin is
 * seen by an ndcuda read on another (read after write), and an ndcuda write on another stream
 * waits for a raw read (write after read). Without the bracket both races are there to see. */
START_TEST(raw_stream_work_takes_part_in_ordering) {
  nd_stream *p, *q;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &p));
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &q));
  const int64_t n = 1 << 16;
  nd_array *x, *y;
  ND_ASSERT_OK(nd_zeros(1, &n, ND_UINT8, &x));
  ND_ASSERT_OK(nd_stream_synchronize(nd_stream_current()));
  /* Read after write: a raw memset on p, an ndcuda copy on q. */
  ND_ASSERT_OK(nd_array_wait(x, ND_ACCESS_WRITE, p));
  spin(p);
  ck_assert_int_eq(cudaMemsetAsync(nd_array_data(x), 7, (size_t)n, (cudaStream_t)nd_stream_cuda(p)), 0);
  ND_ASSERT_OK(nd_array_record(x, ND_ACCESS_WRITE, p));
  ND_ASSERT_OK(nd_stream_push(q));
  ND_ASSERT_OK(nd_array_copy(x, ND_ORDER_C, &y));
  ND_ASSERT_OK(nd_stream_pop());
  static unsigned char h[1 << 16];
  ND_ASSERT_OK(nd_array_to_host(y, h, sizeof h));
  ck_assert_int_eq(h[0], 7);
  ck_assert_int_eq(h[n - 1], 7);
  /* Write after read: a raw copy out of x on p, then an ndcuda fill of x on q. */
  void *scratch;
  ck_assert_int_eq(cudaMalloc(&scratch, (size_t)n), 0);
  ND_ASSERT_OK(nd_stream_synchronize(p));
  ND_ASSERT_OK(nd_stream_synchronize(q));
  ND_ASSERT_OK(nd_array_wait(x, ND_ACCESS_READ, p));
  spin(p);
  ck_assert_int_eq(cudaMemcpyAsync(scratch, nd_array_data(x), (size_t)n, cudaMemcpyDeviceToDevice,
                                   (cudaStream_t)nd_stream_cuda(p)), 0);
  ND_ASSERT_OK(nd_array_record(x, ND_ACCESS_READ, p));
  ND_ASSERT_OK(nd_stream_push(q));
  ND_ASSERT_OK(nd_array_fill(x, nd_scalar_int(9)));
  ND_ASSERT_OK(nd_stream_pop());
  ND_ASSERT_OK(nd_stream_synchronize(p));
  ND_ASSERT_OK(nd_stream_synchronize(q));
  ck_assert_int_eq(cudaMemcpy(h, scratch, (size_t)n, cudaMemcpyDeviceToHost), 0);
  ck_assert_int_eq(h[0], 7);
  ck_assert_int_eq(h[n - 1], 7);
  ND_ASSERT_OK(nd_array_to_host(x, h, sizeof h));
  ck_assert_int_eq(h[n - 1], 9);
  /* Argument errors. */
  ND_ASSERT_FAILS(nd_array_wait(x, 4, p), ND_ERR_INVALID_ARGUMENT, "nd_array_wait: access must be");
  ND_ASSERT_FAILS(nd_array_record(NULL, ND_ACCESS_READ, p), ND_ERR_NULL_POINTER, "nd_array_record");
  ck_assert_int_eq(cudaFree(scratch), 0);
  nd_array_release(x);
  nd_array_release(y);
  ND_ASSERT_OK(nd_stream_destroy(p));
  ND_ASSERT_OK(nd_stream_destroy(q));
}
END_TEST

START_TEST(ops_work_under_graph_capture) {
  nd_stream *s;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
  int64_t n = 4096;
  nd_array *in;
  ND_ASSERT_OK(nd_stream_push(s));
  ND_ASSERT_OK(nd_arange(0, 4096, 1, ND_FLOAT32, &in)); /* produced on s before capture */
  cudaStream_t cs = (cudaStream_t)nd_stream_cuda(s);
  ck_assert_int_eq(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal), 0);
  nd_array *a, *b;
  ND_ASSERT_OK(nd_empty(1, &n, ND_FLOAT64, &a));
  ND_ASSERT_OK(nd_copyto(a, in, ND_CASTING_SAME_KIND));
  nd_slice rev = {ND_NONE, ND_NONE, -1};
  nd_array *r;
  ND_ASSERT_OK(nd_array_slice(a, 1, &rev, &r));
  ND_ASSERT_OK(nd_array_copy(r, ND_ORDER_C, &b));
  cudaGraph_t g;
  ck_assert_int_eq(cudaStreamEndCapture(cs, &g), 0);
  cudaGraphExec_t ge;
  ck_assert_int_eq(cudaGraphInstantiate(&ge, g, 0), 0);
  ck_assert_int_eq(cudaGraphLaunch(ge, cs), 0);
  ck_assert_int_eq(cudaStreamSynchronize(cs), 0);
  static double h[4096];
  ND_ASSERT_OK(nd_array_to_host(b, h, sizeof h));
  for (int i = 0; i < 4096; i++) ck_assert_msg(h[i] == 4095 - i, "b[%d] = %g", i, h[i]);
  ND_ASSERT_OK(nd_stream_pop());
  nd_array_release(r);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(in);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  ND_ASSERT_OK(nd_stream_destroy(s));
}
END_TEST

/* ---- many threads -------------------------------------------------------------------------- */

#define STRESS_N 4099
static nd_array *shared_src; /* produced on the null stream by the main thread */

typedef struct stress_arg {
  int id;
  int failures;
  char msg[256];
} stress_arg;

static void *stress_thread(void *p) {
  stress_arg *arg = p;
  unsigned seed = 1234u + (unsigned)arg->id;
  nd_stream *s;
  if (nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s) != ND_OK || nd_stream_push(s) != ND_OK) {
    arg->failures++;
    return NULL;
  }
  static _Thread_local double ref[STRESS_N], got[STRESS_N];
  nd_array *x = NULL;
  /* Start from the shared array: a cross-thread, cross-stream read. */
  if (nd_array_astype(shared_src, ND_FLOAT64, &x) != ND_OK) arg->failures++;
  for (int i = 0; i < STRESS_N; i++) ref[i] = i * 0.5;
  for (int step = 0; step < 150 && x; step++) {
    int op = rand_r(&seed) % 5;
    nd_array *y = NULL, *v = NULL;
    nd_status st = ND_OK;
    if (op == 0) { /* x = fill k */
      double k = rand_r(&seed) % 100;
      st = nd_array_fill(x, nd_scalar_float(k));
      for (int i = 0; i < STRESS_N; i++) ref[i] = k;
    } else if (op == 1) { /* x = x[::-1] */
      nd_slice sl = {ND_NONE, ND_NONE, -1};
      st = nd_array_slice(x, 1, &sl, &v);
      if (st == ND_OK) st = nd_array_copy(v, ND_ORDER_C, &y);
      for (int i = 0; i < STRESS_N / 2; i++) {
        double t = ref[i];
        ref[i] = ref[STRESS_N - 1 - i];
        ref[STRESS_N - 1 - i] = t;
      }
    } else if (op == 2) { /* x[1:] = x[:-1] (overlapping) */
      nd_slice a = {1, ND_NONE, 1}, b = {ND_NONE, -1, 1};
      nd_array *va;
      st = nd_array_slice(x, 1, &a, &va);
      if (st == ND_OK) st = nd_array_slice(x, 1, &b, &v);
      if (st == ND_OK) st = nd_copyto(va, v, ND_CASTING_SAME_KIND);
      nd_array_release(va);
      for (int i = STRESS_N - 1; i > 0; i--) ref[i] = ref[i - 1];
    } else if (op == 3) { /* x = float32(x) back to float64 */
      st = nd_array_astype(x, ND_FLOAT32, &v);
      if (st == ND_OK) st = nd_array_astype(v, ND_FLOAT64, &y);
      for (int i = 0; i < STRESS_N; i++) ref[i] = (double)(float)ref[i];
    } else { /* x = concatenate(x[2:], x[:2]) */
      nd_slice a = {2, ND_NONE, 1}, b = {ND_NONE, 2, 1};
      nd_array *pa, *pb;
      st = nd_array_slice(x, 1, &a, &pa);
      if (st == ND_OK) st = nd_array_slice(x, 1, &b, &pb);
      const nd_array *parts[2] = {pa, pb};
      if (st == ND_OK) st = nd_concatenate(2, parts, 0, &y);
      nd_array_release(pa);
      nd_array_release(pb);
      double t0 = ref[0], t1 = ref[1];
      for (int i = 0; i < STRESS_N - 2; i++) ref[i] = ref[i + 2];
      ref[STRESS_N - 2] = t0;
      ref[STRESS_N - 1] = t1;
    }
    nd_array_release(v);
    if (st != ND_OK) {
      arg->failures++;
      snprintf(arg->msg, sizeof arg->msg, "op %d failed: %s", op, nd_last_error());
      break;
    }
    if (y) {
      nd_array_release(x);
      x = y;
    }
  }
  if (x && nd_array_to_host(x, got, sizeof got) == ND_OK) {
    for (int i = 0; i < STRESS_N; i++)
      if (got[i] != ref[i]) {
        arg->failures++;
        snprintf(arg->msg, sizeof arg->msg, "thread %d: x[%d] = %g, expected %g", arg->id, i, got[i], ref[i]);
        break;
      }
  }
  nd_array_release(x);
  nd_stream_pop();
  nd_stream_destroy(s);
  return NULL;
}

START_TEST(sixteen_threads_with_their_own_streams) {
  spin(nd_stream_null());
  /* Produced on the null stream while it is busy; every thread starts by reading it. */
  ND_ASSERT_OK(nd_arange(0, STRESS_N * 0.5, 0.5, ND_FLOAT32, &shared_src));
  pthread_t t[16];
  stress_arg args[16];
  for (int i = 0; i < 16; i++) {
    args[i].id = i;
    args[i].failures = 0;
    args[i].msg[0] = 0;
    pthread_create(&t[i], NULL, stress_thread, &args[i]);
  }
  for (int i = 0; i < 16; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 16; i++) ck_assert_msg(args[i].failures == 0, "thread %d: %s", i, args[i].msg);
  nd_array_release(shared_src);
}
END_TEST

int main(void) {
  Suite *s = suite_create("streams");
  TCase *api = tcase_create("api");
  tcase_add_test(api, stream_api_and_current_stack);
  tcase_add_test(api, per_thread_stream_belongs_to_its_thread);
  tcase_add_test(api, events_record_wait_and_time);
  suite_add_tcase(s, api);
  TCase *life = tcase_create("lifetime");
  tcase_add_test(life, destroyed_producer_stream_stays_ordered);
  tcase_add_test(life, buffer_freed_while_read_elsewhere_is_not_reused_early);
  tcase_add_test(life, host_read_waits_for_producer_only);
  tcase_add_test(life, raw_stream_work_takes_part_in_ordering);
  tcase_add_test(life, ops_work_under_graph_capture);
  tcase_add_test(life, eye_on_null_stream_consumed_on_nonblocking_stream);
  tcase_add_test(life, sixteen_threads_with_their_own_streams);
  suite_add_tcase(s, life);
  TCase *mx = tcase_create("matrix");
  tcase_set_timeout(mx, 900);
  tcase_add_test(mx, stream_matrix_is_always_right);
  tcase_add_test(mx, stream_matrix_detects_races_without_ordering);
  suite_add_tcase(s, mx);
  return nd_test_main_gpu(s);
}
