/* GPU suite for device memory: the stream-ordered pool behind every array, its statistics,
 * the byte limit and out-of-memory reporting, pinned host memory.
 *
 * The stress tests allocate many sizes, free them in a shuffled order, interleave streams
 * and threads, and check after every step that the statistics add up (bytes in use and live
 * buffer counts return to their baseline) and that no two live arrays share memory (each is
 * filled with its own byte and read back). ND_GPU_MEMORY_LIMIT is read once per process, so
 * the limit is exercised through nd_memory_set_limit. Runs with CK_FORK=no and exits 77
 * without a device. */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/src/nd_ref.h"

#define OK(expr) ND_ASSERT_OK(expr)
#define MiB (INT64_C(1) << 20)

static nd_memory_stats stats(void) {
  nd_memory_stats s;
  OK(nd_memory_stats_get(-1, &s));
  return s;
}

/* Statistics with the cache of freed blocks handed back first. */
static nd_memory_stats settled_stats(void) {
  OK(nd_memory_release_cached(-1));
  return stats();
}

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* A live allocation: a uint8 array filled with one byte value. */
typedef struct live {
  nd_array *a;
  int64_t size;
  unsigned char value;
} live;

static nd_status make_live(int64_t size, unsigned char value, live *out) {
  nd_status st = nd_empty(1, &size, ND_UINT8, &out->a);
  if (st != ND_OK) return st;
  out->size = size;
  out->value = value;
  st = nd_array_fill(out->a, nd_scalar_int(value));
  if (st != ND_OK) nd_array_release(out->a);
  return st;
}

/* Reads bytes 0, size/2 and size-1 back; returns 1 if they all hold the fill value. */
static int probe_live(const live *l, char *why, size_t cap) {
  if (l->size == 0) return 1;
  const int64_t at[3] = {0, l->size / 2, l->size - 1};
  for (int i = 0; i < 3; i++) {
    nd_array *e = NULL;
    unsigned char b = 0;
    nd_status st = nd_array_index(l->a, 0, at[i], &e);
    if (st == ND_OK) st = nd_array_to_host(e, &b, 1);
    nd_array_release(e);
    if (st != ND_OK) {
      snprintf(why, cap, "reading byte %lld of a %lld-byte array: %s", (long long)at[i], (long long)l->size,
               nd_last_error());
      return 0;
    }
    if (b != l->value) {
      snprintf(why, cap, "byte %lld of a %lld-byte array is 0x%02x, it was filled with 0x%02x (memory "
               "shared with another live array?)", (long long)at[i], (long long)l->size, b, l->value);
      return 0;
    }
  }
  return 1;
}

static void expect_stats(const nd_memory_stats *base, int64_t extra_bytes, int64_t extra_allocs, const char *when) {
  nd_memory_stats s = stats();
  ck_assert_msg(s.bytes_in_use == base->bytes_in_use + extra_bytes && s.num_allocs == base->num_allocs + extra_allocs,
                "%s: %lld bytes in %lld buffers in use, want %lld in %lld", when, (long long)s.bytes_in_use,
                (long long)s.num_allocs, (long long)(base->bytes_in_use + extra_bytes),
                (long long)(base->num_allocs + extra_allocs));
  ck_assert_msg(s.peak_bytes_in_use >= s.bytes_in_use, "%s: peak %lld below in use %lld", when,
                (long long)s.peak_bytes_in_use, (long long)s.bytes_in_use);
}

/* ---- statistics ---------------------------------------------------------------------------- */

START_TEST(alloc_stats_track_buffers) {
  nd_memory_stats s0 = settled_stats();
  ck_assert_msg(s0.bytes_limit > 0 && s0.bytes_in_use >= 0 && s0.num_allocs >= 0 && s0.bytes_reserved >= 0,
                "baseline: limit %lld, in use %lld, buffers %lld, reserved %lld", (long long)s0.bytes_limit,
                (long long)s0.bytes_in_use, (long long)s0.num_allocs, (long long)s0.bytes_reserved);
  static const int64_t sizes[] = {0, 1, 7, 255, 256, 511, 512, 513, 4097, 65536, MiB, 3 * MiB + 5, 64 * MiB};
  enum { N = sizeof sizes / sizeof sizes[0] };
  nd_array *a[N];
  int64_t total = 0;
  for (int i = 0; i < N; i++) {
    OK(nd_empty(1, &sizes[i], ND_UINT8, &a[i]));
    total += sizes[i];
    char when[64];
    snprintf(when, sizeof when, "after allocating %lld bytes", (long long)sizes[i]);
    expect_stats(&s0, total, i + 1, when);
  }
  /* Views and extra references allocate nothing. */
  nd_array *v, *t;
  nd_slice sl = {1, ND_NONE, 2};
  OK(nd_array_slice(a[N - 1], 1, &sl, &v));
  OK(nd_array_reshape(a[N - 2], 1, &sizes[N - 2], &t));
  nd_array_retain(a[3]);
  expect_stats(&s0, total, N, "after views and retains");
  nd_array_release(a[3]);
  nd_array_release(a[N - 1]); /* the view keeps the buffer */
  expect_stats(&s0, total, N, "with the last array alive only through a view");
  nd_array_release(v);
  total -= sizes[N - 1];
  expect_stats(&s0, total, N - 1, "after releasing the view");
  for (int i = N - 2; i >= 0; i -= 2) {
    nd_array_release(a[i]);
    total -= sizes[i];
  }
  nd_array_release(t); /* a[N - 2] itself was released above; t still held its buffer */
  for (int i = N - 3; i >= 0; i -= 2) {
    nd_array_release(a[i]);
    total -= sizes[i];
  }
  expect_stats(&s0, 0, 0, "after releasing everything");

  /* Peak: reset to the current use, then raised by exactly one 8 MiB allocation. */
  OK(nd_memory_reset_peak(-1));
  nd_memory_stats s = stats();
  ck_assert_int_eq(s.peak_bytes_in_use, s.bytes_in_use);
  int64_t eight = 8 * MiB;
  nd_array *p;
  OK(nd_zeros(1, &eight, ND_UINT8, &p));
  s = stats();
  ck_assert_msg(s.peak_bytes_in_use == s0.bytes_in_use + eight, "peak %lld, want %lld", (long long)s.peak_bytes_in_use,
                (long long)(s0.bytes_in_use + eight));
  nd_array_release(p);
  s = stats();
  ck_assert_int_eq(s.peak_bytes_in_use, s0.bytes_in_use + eight);
  ck_assert_int_eq(s.bytes_in_use, s0.bytes_in_use);

  /* Freed memory stays reserved for reuse until the cache is released. */
  nd_memory_stats s1 = settled_stats();
  ck_assert_msg(s1.bytes_reserved <= s0.bytes_reserved, "reserved %lld after release_cached, %lld at the start",
                (long long)s1.bytes_reserved, (long long)s0.bytes_reserved);

  nd_memory_stats dummy;
  ND_ASSERT_FAILS(nd_memory_stats_get(-1, NULL), ND_ERR_NULL_POINTER, "nd_memory_stats_get");
  ND_ASSERT_FAILS(nd_memory_stats_get(4096, &dummy), ND_ERR_INVALID_ARGUMENT, "nd_memory_stats_get: device 4096 does not exist");
  ND_ASSERT_FAILS(nd_memory_reset_peak(4096), ND_ERR_INVALID_ARGUMENT, "nd_memory_reset_peak");
  ND_ASSERT_FAILS(nd_memory_release_cached(4096), ND_ERR_INVALID_ARGUMENT, "nd_memory_release_cached");
  ND_ASSERT_FAILS(nd_memory_set_limit(4096, 0), ND_ERR_INVALID_ARGUMENT, "nd_memory_set_limit");
  ND_ASSERT_FAILS(nd_memory_set_limit(-1, -5), ND_ERR_INVALID_ARGUMENT, "nd_memory_set_limit: bytes must be >= 0, got -5");
}
END_TEST

/* ---- stress ------------------------------------------------------------------------------------ */

START_TEST(alloc_stress_interleaved) {
  enum { MAXLIVE = 160, STEPS = 3000 };
  nd_memory_stats s0 = settled_stats();
  static live L[MAXLIVE];
  int n = 0;
  int64_t bytes = 0;
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  nd_stream *side;
  OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &side));
  char why[256];
  for (int step = 0; step < STEPS; step++) {
    uint64_t r = rng_next(&rng);
    int alloc = n == 0 || (n < MAXLIVE && r % 100 < 55);
    if (alloc) {
      /* Log-uniform sizes from 0 to 16 MiB, plus exact size-class edges now and then. */
      int64_t size;
      if (r % 7 == 0)
        size = (INT64_C(1) << (r >> 8) % 22) + (int64_t)((r >> 16) % 3) - 1;
      else
        size = (int64_t)((r >> 20) % ((UINT64_C(1) << ((r >> 8) % 25)) + 1));
      if (size < 0) size = 0;
      /* A third of the arrays are made and filled on the side stream. */
      int on_side = (r >> 40) % 3 == 0;
      if (on_side) OK(nd_stream_push(side));
      nd_status st = make_live(size, (unsigned char)(step * 37 + 1), &L[n]);
      if (on_side) OK(nd_stream_pop());
      ck_assert_msg(st == ND_OK, "step %d: allocating %lld bytes with %d live (%lld bytes): %s", step,
                    (long long)size, n, (long long)bytes, nd_last_error());
      bytes += size;
      n++;
    } else {
      int k = (int)((r >> 8) % (uint64_t)n);
      ck_assert_msg(probe_live(&L[k], why, sizeof why), "step %d: %s", step, why);
      /* Sometimes free on the side stream, which did not use it. */
      int on_side = (r >> 40) % 4 == 0;
      if (on_side) OK(nd_stream_push(side));
      nd_array_release(L[k].a);
      if (on_side) OK(nd_stream_pop());
      bytes -= L[k].size;
      L[k] = L[--n];
    }
    nd_memory_stats s = stats();
    ck_assert_msg(s.bytes_in_use == s0.bytes_in_use + bytes && s.num_allocs == s0.num_allocs + n,
                  "step %d: %lld bytes in %lld buffers in use, want %lld in %lld", step, (long long)s.bytes_in_use,
                  (long long)s.num_allocs, (long long)(s0.bytes_in_use + bytes), (long long)(s0.num_allocs + n));
    if (step % 500 == 499) {
      for (int k = 0; k < n; k++) ck_assert_msg(probe_live(&L[k], why, sizeof why), "step %d, array %d: %s", step, k, why);
    }
  }
  for (int k = 0; k < n; k++) {
    ck_assert_msg(probe_live(&L[k], why, sizeof why), "at the end, array %d: %s", k, why);
    nd_array_release(L[k].a);
  }
  OK(nd_stream_destroy(side));
  expect_stats(&s0, 0, 0, "after the stress run");
  nd_memory_stats s1 = settled_stats();
  ck_assert_msg(s1.bytes_reserved <= s0.bytes_reserved, "reserved %lld after release_cached, %lld at the start",
                (long long)s1.bytes_reserved, (long long)s0.bytes_reserved);
}
END_TEST

/* Reuse of freed blocks must never hand out memory that is still in use: allocate, fill, free
 * and reallocate the same sizes many times, keeping every other array alive. */
START_TEST(alloc_reuse_keeps_contents_apart) {
  nd_memory_stats s0 = settled_stats();
  enum { N = 64 };
  static live keep[N];
  char why[256];
  for (int round = 0; round < 20; round++) {
    for (int i = 0; i < N; i++) {
      int64_t size = 1000 + 513 * i;
      if (round > 0) nd_array_release(keep[i].a);
      OK(make_live(size, (unsigned char)(round * N + i), &keep[i]));
      /* A short-lived array of the same size class in between. */
      live tmp;
      OK(make_live(size, 0xee, &tmp));
      nd_array_release(tmp.a);
    }
    for (int i = 0; i < N; i++) ck_assert_msg(probe_live(&keep[i], why, sizeof why), "round %d, array %d: %s", round, i, why);
  }
  for (int i = 0; i < N; i++) nd_array_release(keep[i].a);
  expect_stats(&s0, 0, 0, "after the reuse rounds");
}
END_TEST

typedef struct thread_job {
  int id;
  int failures;
  char why[256];
} thread_job;

static void *thread_body(void *arg) {
  thread_job *j = arg;
  uint64_t rng = 0x1234567ull * (uint64_t)(j->id + 1);
  live mine[8];
  int n = 0;
  for (int step = 0; step < 400 && !j->failures; step++) {
    uint64_t r = rng_next(&rng);
    if (n < 8 && (n == 0 || r % 2)) {
      int64_t size = (int64_t)((r >> 8) % (4 * MiB));
      if (make_live(size, (unsigned char)(j->id * 50 + step), &mine[n]) != ND_OK) {
        j->failures++;
        snprintf(j->why, sizeof j->why, "thread %d step %d: allocating %lld bytes: %s", j->id, step, (long long)size,
                 nd_last_error());
        break;
      }
      n++;
    } else {
      int k = (int)((r >> 8) % (uint64_t)n);
      char why[200];
      if (!probe_live(&mine[k], why, sizeof why)) {
        j->failures++;
        snprintf(j->why, sizeof j->why, "thread %d step %d: %s", j->id, step, why);
      }
      nd_array_release(mine[k].a);
      mine[k] = mine[--n];
    }
  }
  for (int k = 0; k < n; k++) nd_array_release(mine[k].a);
  return NULL;
}

START_TEST(alloc_threads) {
  nd_memory_stats s0 = settled_stats();
  enum { T = 4 };
  pthread_t th[T];
  thread_job jobs[T];
  for (int i = 0; i < T; i++) {
    jobs[i].id = i;
    jobs[i].failures = 0;
    jobs[i].why[0] = '\0';
    ck_assert(pthread_create(&th[i], NULL, thread_body, &jobs[i]) == 0);
  }
  for (int i = 0; i < T; i++) ck_assert(pthread_join(th[i], NULL) == 0);
  for (int i = 0; i < T; i++) ck_assert_msg(jobs[i].failures == 0, "%s", jobs[i].why);
  expect_stats(&s0, 0, 0, "after four threads allocated and freed");
}
END_TEST

/* ---- limits and out of memory --------------------------------------------------------------------- */

/* The limit this process started with (ND_GPU_MEMORY_LIMIT or none), restored at the end. */
static void restore_limit(int64_t original, int64_t unlimited) {
  OK(nd_memory_set_limit(-1, original == unlimited ? 0 : original));
}

START_TEST(alloc_limit_out_of_memory) {
  nd_memory_stats s0 = settled_stats();
  OK(nd_memory_set_limit(-1, 0));
  int64_t unlimited = stats().bytes_limit;
  int64_t limit = s0.bytes_in_use + MiB;
  OK(nd_memory_set_limit(-1, limit));
  ck_assert_int_eq(stats().bytes_limit, limit);

  int64_t half = MiB / 2, full = MiB, quarter = MiB / 4;
  live a;
  OK(make_live(half, 0x11, &a));
  nd_array *o = (nd_array *)(uintptr_t)0x5e71;
  ND_ASSERT_FAILS(nd_empty(1, &full, ND_UINT8, &o), ND_ERR_OUT_OF_MEMORY, "nd_empty: out of memory allocating 1.00 MiB (1048576 bytes)");
  ck_assert_msg(strstr(nd_last_error(), "exceeds the limit") != NULL, "message '%s' does not name the limit", nd_last_error());
  ck_assert(o == (nd_array *)(uintptr_t)0x5e71);
  expect_stats(&s0, half, 1, "after a refused allocation");
  /* Every allocating function reports it under its own name. */
  ND_ASSERT_FAILS(nd_zeros(1, &full, ND_INT8, &o), ND_ERR_OUT_OF_MEMORY, "nd_zeros");
  ND_ASSERT_FAILS(nd_array_astype(a.a, ND_FLOAT64, &o), ND_ERR_OUT_OF_MEMORY, "nd_array_astype");
  ND_ASSERT_FAILS(nd_array_astype(a.a, ND_FLOAT64, &o), ND_ERR_OUT_OF_MEMORY, "(4194304 bytes)");
  unsigned char *host = calloc((size_t)full, 1);
  ck_assert(host != NULL);
  ND_ASSERT_FAILS(nd_array_from_host(host, (size_t)full, 1, &full, ND_UINT8, &o), ND_ERR_OUT_OF_MEMORY, "nd_array_from_host");
  ND_ASSERT_FAILS(nd_arange_int(0, full, 1, ND_UINT8, &o), ND_ERR_OUT_OF_MEMORY, "nd_arange_int");
  ck_assert(o == (nd_array *)(uintptr_t)0x5e71);
  expect_stats(&s0, half, 1, "after refused allocations in several functions");
  /* Up to the limit exactly is allowed, one byte more is not. */
  live b;
  OK(make_live(half, 0x22, &b));
  int64_t one = 1;
  ND_ASSERT_FAILS(nd_empty(1, &one, ND_UINT8, &o), ND_ERR_OUT_OF_MEMORY, "(1 bytes)");
  nd_array *z;
  int64_t zero = 0;
  OK(nd_empty(1, &zero, ND_UINT8, &z)); /* zero bytes always fit */
  nd_array_release(z);
  char why[256];
  ck_assert_msg(probe_live(&a, why, sizeof why) && probe_live(&b, why, sizeof why), "%s", why);
  nd_array_release(b.a);
  /* After the failure, the next allocation works. */
  live c;
  OK(make_live(quarter, 0x33, &c));
  ck_assert_msg(probe_live(&c, why, sizeof why), "%s", why);
  nd_array_release(c.a);
  nd_array_release(a.a);
  expect_stats(&s0, 0, 0, "after the limit test");
  /* Removing the limit lets the refused size through. */
  OK(nd_memory_set_limit(-1, 0));
  ck_assert_int_eq(stats().bytes_limit, unlimited);
  OK(nd_array_from_host(host, (size_t)full, 1, &full, ND_UINT8, &o));
  nd_array_release(o);
  free(host);
  restore_limit(s0.bytes_limit, unlimited);
}
END_TEST

START_TEST(alloc_device_out_of_memory) {
  nd_memory_stats s0 = settled_stats();
  OK(nd_memory_set_limit(-1, 0));
  int64_t total = stats().bytes_limit; /* the device's memory when no limit is set */
  /* More than the whole device in one request. */
  int64_t huge = total + 1024 * MiB;
  nd_array *o = NULL;
  char needle[64];
  snprintf(needle, sizeof needle, "(%lld bytes)", (long long)huge);
  ND_ASSERT_FAILS(nd_empty(1, &huge, ND_UINT8, &o), ND_ERR_OUT_OF_MEMORY, needle);
  ck_assert_msg(strstr(nd_last_error(), "nd_empty: out of memory allocating") != NULL, "message: %s", nd_last_error());
  expect_stats(&s0, 0, 0, "after a request larger than the device");
  /* Fill the device in 1 GiB pieces until it refuses, then free them: the next allocation
   * works and the statistics return to the baseline. */
  enum { MAXP = 1024 };
  static nd_array *pieces[MAXP];
  int n = 0;
  int64_t gib = 1024 * MiB;
  nd_status st = ND_OK;
  while (n < MAXP && (st = nd_empty(1, &gib, ND_UINT8, &pieces[n])) == ND_OK) n++;
  ck_assert_msg(st == ND_ERR_OUT_OF_MEMORY, "after %d GiB: %s: %s", n, nd_status_name(st), nd_last_error());
  ck_assert_msg(strstr(nd_last_error(), "1073741824 bytes") != NULL, "message: %s", nd_last_error());
  expect_stats(&s0, n * gib, n, "with the device full");
  for (int i = 0; i < n; i++) nd_array_release(pieces[i]);
  live a;
  OK(make_live(64 * MiB, 0x5a, &a));
  char why[256];
  ck_assert_msg(probe_live(&a, why, sizeof why), "%s", why);
  nd_array_release(a.a);
  expect_stats(&s0, 0, 0, "after freeing the pieces");
  nd_memory_stats s1 = settled_stats();
  ck_assert_msg(s1.bytes_reserved <= s0.bytes_reserved, "reserved %lld after release_cached, %lld at the start",
                (long long)s1.bytes_reserved, (long long)s0.bytes_reserved);
  restore_limit(s0.bytes_limit, total);
}
END_TEST

/* ---- pinned host memory ----------------------------------------------------------------------------- */

START_TEST(alloc_pinned_host) {
  static const size_t sizes[] = {1, 4096, 3 * 1024 * 1024 + 7};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    void *p = NULL;
    OK(nd_host_alloc_pinned(sizes[i], &p));
    ck_assert(p != NULL);
    ck_assert_int_eq(nd_host_is_pinned(p), 1);
    memset(p, 0x7c, sizes[i]);
    /* The blocking upload from pinned memory must have read it before returning: change the
     * memory at once and the device must still hold the old bytes. */
    int64_t n = (int64_t)sizes[i];
    nd_array *a;
    OK(nd_array_from_host(p, sizes[i], 1, &n, ND_UINT8, &a));
    memset(p, 0x00, sizes[i]);
    live l = {a, n, 0x7c};
    char why[256];
    ck_assert_msg(probe_live(&l, why, sizeof why), "upload from pinned memory of %zu bytes: %s", sizes[i], why);
    /* And the blocking download into pinned memory has arrived when it returns. */
    OK(nd_array_to_host(a, p, sizes[i]));
    ck_assert(((unsigned char *)p)[0] == 0x7c && ((unsigned char *)p)[sizes[i] - 1] == 0x7c);
    nd_array_release(a);
    OK(nd_host_free_pinned(p));
  }
  void *p = (void *)1;
  OK(nd_host_alloc_pinned(0, &p));
  ck_assert(p == NULL);
  ND_ASSERT_FAILS(nd_host_alloc_pinned(8, NULL), ND_ERR_NULL_POINTER, "nd_host_alloc_pinned");
  OK(nd_host_free_pinned(NULL));
  int on_stack = 0;
  ck_assert_int_eq(nd_host_is_pinned(&on_stack), 0);
}
END_TEST

static Suite *alloc_suite(void) {
  Suite *s = suite_create("alloc");
  TCase *tc = tcase_create("pool");
  tcase_add_test(tc, alloc_stats_track_buffers);
  tcase_add_test(tc, alloc_stress_interleaved);
  tcase_add_test(tc, alloc_reuse_keeps_contents_apart);
  tcase_add_test(tc, alloc_threads);
  tcase_add_test(tc, alloc_limit_out_of_memory);
  tcase_add_test(tc, alloc_device_out_of_memory);
  tcase_add_test(tc, alloc_pinned_host);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main_gpu(alloc_suite()); }
