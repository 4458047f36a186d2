/* Several devices: the device API, the device rule of every operation, copies between
 * devices (values over dtypes and layouts, and their ordering across devices) and the
 * sharding helpers, against host references and against one device.
 *
 * Needs two devices: exits 77 (skipped) with fewer. Runs with CK_FORK=no in one process, in
 * the order below: the first case copies before anything enabled peer access, which is the
 * staged path of machines whose devices cannot reach each other. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "src/array.h"
#include "streams/stream_internal.h"
#include "tests/nd_test.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static void on(int d) { ND_ASSERT_OK(nd_device_set(d)); }

static int current(void) {
  int d = -1;
  ND_ASSERT_OK(nd_device_get(&d));
  return d;
}

/* x[i] = i (mod 97) + 1 as dtype, shape given, made on device d from the host. */
static nd_array *pattern_on(int d, int ndim, const int64_t *shape, nd_dtype dt) {
  int prev = current();
  on(d);
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  double *h = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  for (int64_t i = 0; i < n; i++) h[i] = (double)(i % 97) + 1.0;
  nd_array *f = NULL, *x = NULL;
  ND_ASSERT_OK(nd_array_from_host(h, (size_t)n * sizeof(double), ndim, shape, ND_FLOAT64, &f));
  ND_ASSERT_OK(nd_array_astype(f, dt, &x));
  nd_array_release(f);
  free(h);
  on(prev);
  return x;
}

/* a's elements in C order as bytes (a may be on any device: host transfers are copies). */
static unsigned char *bytes_of(const nd_array *a) {
  size_t n = (size_t)nd_array_nbytes(a);
  unsigned char *h = malloc(n ? n : 1);
  ND_ASSERT_OK(nd_array_to_host(a, h, n));
  return h;
}

/* a as float64 values in C order (converted on a's device). */
static double *values_of(const nd_array *a) {
  int prev = current();
  on(nd_array_device(a));
  nd_array *f = NULL;
  ND_ASSERT_OK(nd_array_astype(a, ND_FLOAT64, &f));
  on(prev);
  double *h = malloc((size_t)(nd_array_size(a) > 0 ? nd_array_size(a) : 1) * sizeof(double));
  ND_ASSERT_OK(nd_array_to_host(f, h, (size_t)nd_array_size(a) * sizeof(double)));
  nd_array_release(f);
  return h;
}

static void assert_same(const nd_array *got, const nd_array *want, const char *what) {
  ck_assert_int_eq(nd_array_ndim(got), nd_array_ndim(want));
  for (int i = 0; i < nd_array_ndim(got); i++)
    ck_assert_msg(nd_array_shape(got)[i] == nd_array_shape(want)[i], "%s: shape differs on axis %d", what, i);
  ck_assert_int_eq(nd_array_dtype(got), nd_array_dtype(want));
  unsigned char *g = bytes_of(got), *w = bytes_of(want);
  ck_assert_msg(memcmp(g, w, (size_t)nd_array_nbytes(want)) == 0, "%s: values differ", what);
  free(g);
  free(w);
}

static void spin_on(nd_stream *s, double us) {
  int prev = current();
  on(nd_stream_device(s));
  ck_assert_int_eq(nd_test_spin(nd_stream_cuda(s), us), 0);
  on(prev);
}

/* ---- staged copies (first: nothing has enabled peer access yet) ------------------------------ */

START_TEST(staged_copies_without_peer_access) {
  nd__peer_set_never(1);
  on(0);
  int64_t n[1] = {(1 << 20) + 3};
  nd_array *x = pattern_on(0, 1, n, ND_FLOAT32);
  nd_array *y = NULL, *back = NULL;
  nd_status st1 = nd_array_to_device(x, 1, &y);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", nd_last_error());
  nd_status st2 = ND_ERR_INTERNAL;
  if (st1 == ND_OK && nd_empty(1, n, ND_FLOAT32, &back) == ND_OK) {
    st2 = nd_copyto(back, y, ND_CASTING_NO);
    if (st2 != ND_OK) snprintf(msg, sizeof msg, "%s", nd_last_error());
  }
  int direct = nd__peer_direct(0, 1);
  /* Before any assertion: a failure here must not leave the later cases staged too. */
  nd__peer_set_never(0);
  ck_assert_msg(st1 == ND_OK && st2 == ND_OK, "staged copies failed: %s", msg);
  ck_assert_int_eq(direct, 0);
  ck_assert_int_eq(nd_array_device(y), 1);
  ck_assert_int_eq(current(), 0);
  assert_same(y, x, "staged 0 -> 1");
  assert_same(back, x, "staged 1 -> 0");
  nd_array_release(x);
  nd_array_release(y);
  nd_array_release(back);
}
END_TEST

/* ---- the device API ------------------------------------------------------------------------- */

START_TEST(device_api) {
  int n = 0;
  ND_ASSERT_OK(nd_device_count(&n));
  int cn = 0;
  ck_assert_int_eq(cudaGetDeviceCount(&cn), cudaSuccess);
  ck_assert_int_eq(n, cn);
  on(1);
  ck_assert_int_eq(current(), 1);
  int cd = -1;
  cudaGetDevice(&cd);
  ck_assert_int_eq(cd, 1);
  ND_ASSERT_OK(nd_device_push(0));
  ck_assert_int_eq(current(), 0);
  ND_ASSERT_OK(nd_device_push(1));
  ND_ASSERT_OK(nd_device_pop());
  ck_assert_int_eq(current(), 0);
  ND_ASSERT_OK(nd_device_pop());
  ck_assert_int_eq(current(), 1);
  ND_ASSERT_FAILS(nd_device_pop(), ND_ERR_INVALID_ARGUMENT, "nothing was pushed");
  char want[64];
  snprintf(want, sizeof want, "process sees %d devices", n);
  ND_ASSERT_FAILS(nd_device_set(n), ND_ERR_VALUE, want);
  ND_ASSERT_FAILS(nd_device_push(n + 3), ND_ERR_VALUE, "nd_device_push");
  ck_assert_int_eq(current(), 1);
  for (int d = 0; d < n; d++) {
    nd_device_properties p;
    ND_ASSERT_OK(nd_device_get_properties(d, &p));
    struct cudaDeviceProp c;
    ck_assert_int_eq(cudaGetDeviceProperties(&c, d), cudaSuccess);
    ck_assert_str_eq(p.name, c.name);
    ck_assert_int_eq(p.sm_count, c.multiProcessorCount);
    ck_assert_int_eq(p.cc_major, c.major);
    ck_assert_int_eq(p.cc_minor, c.minor);
    ck_assert(p.total_memory == (int64_t)c.totalGlobalMem);
    ck_assert(p.l2_cache_bytes == (int64_t)c.l2CacheSize && p.l2_cache_bytes > 0);
    ck_assert_int_eq(p.pci_bus, c.pciBusID);
    printf("device %d: %s, cc %d.%d, %d SMs, %.1f GiB, L2 %.0f MiB, PCI %04x:%02x:%02x\n", d, p.name,
           p.cc_major, p.cc_minor, p.sm_count, (double)p.total_memory / (1 << 30),
           (double)p.l2_cache_bytes / (1 << 20), p.pci_domain, p.pci_bus, p.pci_device);
    for (int q = 0; q < n; q++) {
      int can = -1, ccan = 0;
      ND_ASSERT_OK(nd_device_can_access_peer(d, q, &can));
      if (d != q) cudaDeviceCanAccessPeer(&ccan, d, q);
      ck_assert_int_eq(can, ccan);
      printf("  can access peer %d: %d\n", q, can);
    }
  }
  nd_device_properties p0;
  ND_ASSERT_OK(nd_device_get_properties(-1, &p0)); /* the current device: 1 */
  nd_device_properties p1;
  ND_ASSERT_OK(nd_device_get_properties(1, &p1));
  ck_assert_int_eq(p0.pci_bus, p1.pci_bus);
  on(0);
}
END_TEST

/* The current stream is per thread and per device; streams, events and generators belong to
 * the device they were made on. */
START_TEST(objects_belong_to_devices) {
  on(1);
  nd_stream *s1 = NULL;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s1));
  ck_assert_int_eq(nd_stream_device(s1), 1);
  nd_event *e1 = NULL;
  ND_ASSERT_OK(nd_event_create(0, &e1));
  ck_assert_int_eq(nd_event_device(e1), 1);
  nd_generator *g1 = NULL;
  ND_ASSERT_OK(nd_generator_create(7, ND_BITGEN_XORWOW, &g1));
  ck_assert_int_eq(nd_generator_device(g1), 1);
  nd_generator *gp = NULL;
  ND_ASSERT_OK(nd_generator_create(7, ND_BITGEN_PHILOX, &gp));
  ck_assert_int_eq(nd_generator_device(gp), -1);
  on(0);
  nd_stream *null0 = nd_stream_current();
  ck_assert_int_eq(nd_stream_device(null0), 0);
  /* s1 pushed while device 0 is current becomes device 1's current stream only. */
  ND_ASSERT_OK(nd_stream_push(s1));
  ck_assert_ptr_eq(nd_stream_current(), null0);
  on(1);
  ck_assert_ptr_eq(nd_stream_current(), s1);
  int64_t n[1] = {1000};
  nd_array *a = NULL;
  ND_ASSERT_OK(nd_zeros(1, n, ND_FLOAT32, &a));
  ck_assert_int_eq(nd_array_device(a), 1);
  /* The generator of device 1 fills on device 1 and is refused on device 0. */
  ND_ASSERT_OK(nd_random_uniform_into(g1, 0.0, 1.0, a));
  on(0);
  nd_array *b = NULL;
  ND_ASSERT_OK(nd_zeros(1, n, ND_FLOAT32, &b));
  ND_ASSERT_FAILS(nd_random_uniform_into(g1, 0.0, 1.0, b), ND_ERR_DEVICE_MISMATCH, "device 1");
  ND_ASSERT_OK(nd_random_uniform_into(gp, 0.0, 1.0, b)); /* Philox runs anywhere */
  /* An event records only on its device's streams; any stream may wait on it. */
  ND_ASSERT_FAILS(nd_event_record(e1, null0), ND_ERR_DEVICE_MISMATCH, "event belongs to device 1");
  ND_ASSERT_OK(nd_event_record(e1, s1)); /* s1 is device 1's, recorded from device 0 */
  ND_ASSERT_OK(nd_stream_wait_event(null0, e1));
  ND_ASSERT_OK(nd_stream_synchronize(s1));
  on(1);
  ND_ASSERT_OK(nd_stream_pop());
  ck_assert_ptr_ne(nd_stream_current(), s1);
  nd_array_release(a);
  nd_array_release(b);
  ND_ASSERT_OK(nd_generator_destroy(g1));
  ND_ASSERT_OK(nd_generator_destroy(gp));
  ND_ASSERT_OK(nd_event_destroy(e1));
  ND_ASSERT_OK(nd_stream_destroy(s1));
  on(0);
}
END_TEST

static void *thread_on_1(void *arg) {
  int *seen = arg;
  seen[0] = -1;
  if (nd_device_get(&seen[0]) != ND_OK) return NULL; /* a new thread starts on device 0 */
  if (nd_device_set(1) != ND_OK) return NULL;
  (void)nd_device_get(&seen[1]);
  return NULL;
}

START_TEST(current_device_is_per_thread) {
  on(0);
  int seen[2] = {-1, -1};
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, thread_on_1, seen), 0);
  pthread_join(t, NULL);
  ck_assert_int_eq(seen[0], 0);
  ck_assert_int_eq(seen[1], 1);
  ck_assert_int_eq(current(), 0);
}
END_TEST

/* ---- the device rule: every operation family refuses another device's array ---------------- */

#define ASSERT_MISMATCH(expr, fn)                                                         \
  do {                                                                                    \
    ND_ASSERT_FAILS(expr, ND_ERR_DEVICE_MISMATCH, fn);                                    \
    ck_assert_msg(strstr(nd_last_error(), "device 1") && strstr(nd_last_error(), "device 0"), \
                  "%s: the message does not name both devices: %s", #expr, nd_last_error()); \
  } while (0)

START_TEST(mismatch_in_every_family) {
  int64_t n[1] = {64}, mn[2] = {8, 8};
  nd_array *a0 = pattern_on(0, 1, n, ND_FLOAT32), *a1 = pattern_on(1, 1, n, ND_FLOAT32);
  nd_array *m0 = pattern_on(0, 2, mn, ND_FLOAT64), *m1 = pattern_on(1, 2, mn, ND_FLOAT64);
  nd_array *i1 = pattern_on(1, 1, n, ND_INT64);
  unsigned char *before = bytes_of(a1);
  on(0);
  nd_array *r = NULL;
  const int64_t ax0 = 0;
  ASSERT_MISMATCH(nd_add(a0, a1, NULL, &r), "nd_add");
  ASSERT_MISMATCH(nd_add(a1, a1, NULL, &r), "nd_add");
  ASSERT_MISMATCH(nd_add(a0, a0, a1, NULL), "nd_add"); /* out= on device 1 */
  ASSERT_MISMATCH(nd_sum(a1, 1, &ax0, 0, ND_DTYPE_DEFAULT, NULL, &r), "nd_sum");
  ASSERT_MISMATCH(nd_cumsum(a1, 0, ND_DTYPE_DEFAULT, NULL, &r), "nd_cumsum");
  ASSERT_MISMATCH(nd_sort(a1, 0, &r), "nd_sort");
  ASSERT_MISMATCH(nd_matmul(m0, m1, &r), "nd_matmul");
  ASSERT_MISMATCH(nd_linalg_inv(m1, &r), "nd_linalg_inv");
  ASSERT_MISMATCH(nd_random_uniform_into(NULL, 0.0, 1.0, a1), "nd_random_uniform_into");
  ASSERT_MISMATCH(nd_take(a0, i1, 0, ND_INDEX_WRAP, NULL, &r), "nd_take");
  ASSERT_MISMATCH(nd_array_fill(a1, nd_scalar_float(5.0)), "nd_array_fill");
  ASSERT_MISMATCH(nd_array_astype(a1, ND_FLOAT64, &r), "nd_array_astype");
  /* a user kernel compiled for device 0 with an array of device 1 */
  nd_module *mod = NULL;
  ND_ASSERT_OK(nd_module_create("extern \"C\" __global__ void twice(float *x, int n) {\n"
                                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                "  if (i < n) x[i] *= 2.0f;\n}\n", NULL, &mod));
  nd_kernel *k = NULL;
  ND_ASSERT_OK(nd_module_get_kernel(mod, "twice", &k));
  nd_karg args[2] = {nd_karg_readwrite(a1), nd_karg_scalar(ND_INT32, nd_scalar_int(64))};
  nd_launch_config cfg = {{1, 1, 1}, {64, 1, 1}, 0};
  ASSERT_MISMATCH(nd_kernel_launch(k, cfg, 2, args), "nd_kernel_launch");
  /* Nothing was written to the arrays of device 1. */
  unsigned char *after = bytes_of(a1);
  ck_assert(memcmp(before, after, (size_t)nd_array_nbytes(a1)) == 0);
  /* The same operations on device 1 work; copies work from anywhere. */
  on(1);
  ND_ASSERT_OK(nd_add(a1, a1, NULL, &r));
  nd_array_release(r);
  on(0);
  ND_ASSERT_OK(nd_array_copy(a1, ND_ORDER_F, &r)); /* as CuPy's copy: onto the current device */
  ck_assert_int_eq(nd_array_device(r), 0);
  assert_same(r, a1, "copy from another device");
  nd_array_release(r);
  ND_ASSERT_OK(nd_copyto(a1, a0, ND_CASTING_NO));
  assert_same(a1, a0, "copyto across devices");
  free(before);
  free(after);
  nd_kernel_release(k);
  nd_module_release(mod);
  nd_array_release(a0);
  nd_array_release(a1);
  nd_array_release(m0);
  nd_array_release(m1);
  nd_array_release(i1);
}
END_TEST

/* ---- copies: values over dtypes and layouts ------------------------------------------------------ */

START_TEST(to_device_dtypes_and_layouts) {
  static const nd_dtype dts[] = {ND_FLOAT64, ND_FLOAT32, ND_INT8, ND_UINT16, ND_COMPLEX128, ND_BOOL, ND_FLOAT16};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
    for (int from = 0; from < 2; from++) {
      const int to = 1 - from;
      int64_t shape[2] = {37, 53};
      nd_array *x = pattern_on(from, 2, shape, dts[k]);
      on(from);
      nd_array *views[6] = {NULL};
      const char *names[6] = {"contiguous", "offset slice", "transposed", "negative stride", "0-d", "zero-size"};
      views[0] = nd_array_retain(x);
      nd_slice sl[2] = {{3, 30, 2}, {5, ND_NONE, 1}};
      ND_ASSERT_OK(nd_array_slice(x, 2, sl, &views[1]));
      ND_ASSERT_OK(nd_array_transpose(x, 0, NULL, &views[2]));
      const int64_t ax[1] = {1};
      ND_ASSERT_OK(nd_array_flip(x, 1, ax, &views[3]));
      ND_ASSERT_OK(nd_array_index(x, 0, 7, &views[4]));
      nd_array *row = views[4];
      ND_ASSERT_OK(nd_array_index(row, 0, 11, &views[4]));
      nd_array_release(row);
      nd_slice empty[2] = {{4, 4, 1}, {ND_NONE, ND_NONE, ND_NONE}};
      ND_ASSERT_OK(nd_array_slice(x, 2, empty, &views[5]));
      on(0); /* the current device is neither side in half of the cases */
      for (int v = 0; v < 6; v++) {
        nd_array *y = NULL;
        ND_ASSERT_OK(nd_array_to_device(views[v], to, &y));
        ck_assert_int_eq(nd_array_device(y), to);
        ck_assert(nd_array_is_c_contiguous(y));
        ck_assert_int_eq(current(), 0);
        char what[96];
        snprintf(what, sizeof what, "%s %s %d -> %d", nd_dtype_name(dts[k]), names[v], from, to);
        assert_same(y, views[v], what);
        /* and back with nd_copyto into a strided destination on the source device */
        on(from);
        nd_array *z = NULL;
        ND_ASSERT_OK(nd_empty_like(views[v], ND_DTYPE_DEFAULT, &z));
        on(to);
        ND_ASSERT_OK(nd_copyto(z, y, ND_CASTING_NO));
        assert_same(z, views[v], what);
        on(0);
        nd_array_release(y);
        nd_array_release(z);
      }
      for (int v = 0; v < 6; v++) nd_array_release(views[v]);
      nd_array_release(x);
    }
}
END_TEST

START_TEST(copyto_across_devices_casts_and_broadcasts) {
  int64_t shape[2] = {6, 5}, rshape[2] = {1, 5};
  nd_array *src = pattern_on(0, 2, rshape, ND_FLOAT32); /* broadcast along axis 0 */
  on(1);
  nd_array *big = NULL, *dst = NULL;
  int64_t tshape[2] = {5, 6};
  ND_ASSERT_OK(nd_zeros(2, tshape, ND_FLOAT64, &big));
  ND_ASSERT_OK(nd_array_transpose(big, 0, NULL, &dst)); /* (6, 5), F-ordered on device 1 */
  on(0);
  ND_ASSERT_OK(nd_copyto(dst, src, ND_CASTING_SAFE));
  ck_assert_int_eq(current(), 0);
  double *h = values_of(dst);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 5; j++) ck_assert_double_eq(h[i * 5 + j], (double)j + 1.0);
  free(h);
  /* the casting rule is checked before anything moves */
  nd_array *i32 = NULL;
  on(1);
  ND_ASSERT_OK(nd_zeros(2, shape, ND_INT32, &i32));
  on(0);
  ND_ASSERT_FAILS(nd_copyto(i32, src, ND_CASTING_SAFE), ND_ERR_CASTING, "nd_copyto");
  ND_ASSERT_OK(nd_copyto(i32, src, ND_CASTING_UNSAFE));
  h = values_of(i32);
  for (int i = 0; i < 30; i++) ck_assert_double_eq(h[i], (double)(i % 5) + 1.0);
  free(h);
  /* shapes that do not broadcast */
  int64_t bad[1] = {4};
  nd_array *b4 = pattern_on(0, 1, bad, ND_FLOAT64);
  ND_ASSERT_FAILS(nd_copyto(dst, b4, ND_CASTING_SAFE), ND_ERR_SHAPE, "nd_copyto");
  nd_array_release(b4);
  nd_array_release(i32);
  nd_array_release(src);
  nd_array_release(big);
  nd_array_release(dst);
}
END_TEST

/* ---- ordering across devices ------------------------------------------------------------------- */

#define ON (1 << 22) /* 16 MiB of float32 */
#define TRIALS 100
#define SPIN_US 2000.0

/* RAW across devices: produce on device 0's non-blocking stream (late, behind a spin), copy
 * on device 1's default stream, consume on device 1's non-blocking stream. Returns the
 * number of wrong trials. */
static int raw_trials(int trials) {
  on(0);
  nd_stream *s0 = NULL, *s1 = NULL;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s0));
  on(1);
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s1));
  int64_t n[1] = {ON};
  nd_array *y = NULL;
  ND_ASSERT_OK(nd_zeros(1, n, ND_FLOAT32, &y)); /* device 1 */
  on(0);
  nd_array *x = NULL;
  ND_ASSERT_OK(nd_zeros(1, n, ND_FLOAT32, &x));
  ND_ASSERT_OK(nd_device_synchronize(0));
  ND_ASSERT_OK(nd_device_synchronize(1));
  float *h = malloc(ON * sizeof(float));
  int wrong = 0;
  for (int t = 0; t < trials; t++) {
    const float v = (float)(t % 50 + 1);
    on(0);
    ND_ASSERT_OK(nd_stream_push(s0));
    spin_on(s0, SPIN_US);
    ND_ASSERT_OK(nd_array_fill(x, nd_scalar_float(v)));
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_copyto(y, x, ND_CASTING_NO)); /* on device 1's default stream */
    on(1);
    ND_ASSERT_OK(nd_stream_push(s1));
    nd_array *z = NULL;
    ND_ASSERT_OK(nd_add(y, y, NULL, &z));
    ND_ASSERT_OK(nd_array_to_host(z, h, ON * sizeof(float)));
    ND_ASSERT_OK(nd_stream_pop());
    int bad = 0;
    for (int i = 0; i < ON; i++) bad += h[i] != 2.0f * v;
    wrong += bad != 0;
    nd_array_release(z);
    ND_ASSERT_OK(nd_device_synchronize(0));
    ND_ASSERT_OK(nd_device_synchronize(1));
  }
  free(h);
  on(0);
  nd_array_release(x);
  nd_array_release(y);
  ND_ASSERT_OK(nd_device_synchronize(0));
  ND_ASSERT_OK(nd_device_synchronize(1));
  ND_ASSERT_OK(nd_stream_destroy(s0));
  ND_ASSERT_OK(nd_stream_destroy(s1));
  return wrong;
}

/* WAR across devices, both sides: the copy must not overwrite y (device 1) before a late
 * reader on device 1's non-blocking stream has read it, and a write to x (device 0) must not
 * land before the late copy has read x. Returns wrong trials. */
static int war_trials(int trials) {
  on(0);
  nd_stream *s0 = NULL, *s1 = NULL;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s0));
  on(1);
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s1));
  int64_t n[1] = {ON};
  nd_array *y = NULL, *z = NULL;
  ND_ASSERT_OK(nd_zeros(1, n, ND_FLOAT32, &y));
  ND_ASSERT_OK(nd_zeros(1, n, ND_FLOAT32, &z));
  on(0);
  nd_array *x = NULL;
  ND_ASSERT_OK(nd_zeros(1, n, ND_FLOAT32, &x));
  float *h = malloc(ON * sizeof(float));
  int wrong = 0;
  for (int t = 0; t < trials; t++) {
    const float u = (float)(2 * (t % 40) + 1), v = u + 1.0f, w = u + 2.0f;
    on(1);
    ND_ASSERT_OK(nd_array_fill(y, nd_scalar_float(u)));
    on(0);
    ND_ASSERT_OK(nd_array_fill(x, nd_scalar_float(v)));
    ND_ASSERT_OK(nd_device_synchronize(0));
    ND_ASSERT_OK(nd_device_synchronize(1));
    /* a late reader of y on device 1 */
    on(1);
    ND_ASSERT_OK(nd_stream_push(s1));
    spin_on(s1, SPIN_US);
    ND_ASSERT_OK(nd_copyto(z, y, ND_CASTING_NO));
    ND_ASSERT_OK(nd_stream_pop());
    /* the copy, on device 1's default stream: after the reader, then late itself */
    ND_ASSERT_OK(nd_copyto(y, x, ND_CASTING_NO));
    /* a writer of x on device 0, which must wait for the copy's read */
    on(0);
    ND_ASSERT_OK(nd_stream_push(s0));
    ND_ASSERT_OK(nd_array_fill(x, nd_scalar_float(w)));
    ND_ASSERT_OK(nd_stream_pop());
    int bad = 0;
    ND_ASSERT_OK(nd_array_to_host(z, h, ON * sizeof(float)));
    for (int i = 0; i < ON; i++) bad += h[i] != u;
    ND_ASSERT_OK(nd_array_to_host(y, h, ON * sizeof(float)));
    for (int i = 0; i < ON; i++) bad += h[i] != v;
    wrong += bad != 0;
    ND_ASSERT_OK(nd_device_synchronize(0));
    ND_ASSERT_OK(nd_device_synchronize(1));
  }
  free(h);
  nd_array_release(x);
  nd_array_release(y);
  nd_array_release(z);
  ND_ASSERT_OK(nd_device_synchronize(0));
  ND_ASSERT_OK(nd_device_synchronize(1));
  ND_ASSERT_OK(nd_stream_destroy(s0));
  ND_ASSERT_OK(nd_stream_destroy(s1));
  on(0);
  return wrong;
}

START_TEST(ordering_across_devices) {
  int raw = raw_trials(TRIALS), war = war_trials(TRIALS);
  printf("cross-device ordering, automatic: RAW %d wrong of %d, WAR %d wrong of %d\n", raw, TRIALS, war,
         TRIALS);
  ck_assert_int_eq(raw, 0);
  ck_assert_int_eq(war, 0);
  /* The ND_AUTO_EVENTS=0 diagnostic: the same programs race, so the cells can see a race. */
  nd__set_auto_events(0);
  int raw_off = raw_trials(TRIALS), war_off = war_trials(TRIALS);
  nd__set_auto_events(1);
  printf("cross-device ordering, ND_AUTO_EVENTS=0: RAW %d wrong of %d, WAR %d wrong of %d\n", raw_off,
         TRIALS, war_off, TRIALS);
  ck_assert_int_gt(raw_off, 0);
  ck_assert_int_gt(war_off, 0);
}
END_TEST

/* ---- sharding ---------------------------------------------------------------------------------- */

START_TEST(shard_split_and_gather) {
  on(0);
  int64_t shape[2] = {7, 10};
  nd_array *a = pattern_on(0, 2, shape, ND_FLOAT64);
  double *ha = values_of(a);
  /* axis 0 over devices 0 and 1: rows 0..3 and 4..6 */
  nd_array *p[3] = {NULL};
  ND_ASSERT_OK(nd_shard_split(a, 0, 2, NULL, p));
  ck_assert_int_eq(nd_array_device(p[0]), 0);
  ck_assert_int_eq(nd_array_device(p[1]), 1);
  ck_assert_int_eq(nd_array_dim(p[0], 0), 4);
  ck_assert_int_eq(nd_array_dim(p[1], 0), 3);
  for (int k = 0; k < 2; k++) {
    double *h = values_of(p[k]);
    for (int64_t i = 0; i < nd_array_size(p[k]); i++) ck_assert_double_eq(h[i], ha[(k ? 40 : 0) + i]);
    free(h);
  }
  nd_array *g = NULL;
  ND_ASSERT_OK(nd_shard_gather(2, (const nd_array *const *)p, 0, 1, &g));
  ck_assert_int_eq(nd_array_device(g), 1);
  assert_same(g, a, "gather axis 0");
  nd_array_release(g);
  nd_array_release(p[0]);
  nd_array_release(p[1]);
  /* axis -1 over devices {1, 0, 1}: widths 4, 3, 3; gathered on device 0 */
  const int devs[3] = {1, 0, 1};
  ND_ASSERT_OK(nd_shard_split(a, -1, 3, devs, p));
  const int64_t w[3] = {4, 3, 3}, c0[3] = {0, 4, 7};
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(nd_array_device(p[k]), devs[k]);
    ck_assert_int_eq(nd_array_dim(p[k], 1), w[k]);
    double *h = values_of(p[k]);
    for (int i = 0; i < 7; i++)
      for (int j = 0; j < w[k]; j++) ck_assert_double_eq(h[i * w[k] + j], ha[i * 10 + c0[k] + j]);
    free(h);
  }
  ND_ASSERT_OK(nd_shard_gather(3, (const nd_array *const *)p, -1, 0, &g));
  assert_same(g, a, "gather axis 1");
  nd_array_release(g);
  /* mixed dtypes promote as nd_concatenate does */
  nd_array *f32 = NULL;
  on(1);
  ND_ASSERT_OK(nd_array_astype(p[2], ND_FLOAT32, &f32));
  on(0);
  nd_array *mixed[3] = {p[0], p[1], f32};
  ND_ASSERT_OK(nd_shard_gather(3, (const nd_array *const *)mixed, 1, 1, &g));
  ck_assert_int_eq(nd_array_dtype(g), ND_FLOAT64);
  assert_same(g, a, "gather mixed dtypes");
  nd_array_release(g);
  nd_array_release(f32);
  for (int k = 0; k < 3; k++) nd_array_release(p[k]);
  /* more parts than entries: the last is empty */
  int64_t two[1] = {2};
  nd_array *s = pattern_on(1, 1, two, ND_INT32);
  ND_ASSERT_OK(nd_shard_split(s, 0, 3, (const int[]){0, 1, 0}, p));
  ck_assert_int_eq(nd_array_size(p[2]), 0);
  ND_ASSERT_OK(nd_shard_gather(3, (const nd_array *const *)p, 0, 0, &g));
  assert_same(g, s, "gather with an empty part");
  nd_array_release(g);
  for (int k = 0; k < 3; k++) nd_array_release(p[k]);
  nd_array_release(s);
  /* errors: bad device in the list, shapes that do not match */
  ND_ASSERT_FAILS(nd_shard_split(a, 0, 2, (const int[]){0, 5}, p), ND_ERR_VALUE, "devices[1]");
  ND_ASSERT_FAILS(nd_shard_split(a, 2, 2, NULL, p), ND_ERR_AXIS, "nd_shard_split");
  nd_array *parts2[2] = {a, NULL};
  int64_t other[2] = {3, 9};
  parts2[1] = pattern_on(1, 2, other, ND_FLOAT64);
  ND_ASSERT_FAILS(nd_shard_gather(2, (const nd_array *const *)parts2, 0, 0, &g), ND_ERR_SHAPE, "dimension 1");
  nd_array_release(parts2[1]);
  free(ha);
  nd_array_release(a);
}
END_TEST

/* A distributed sum: each device sums its shard on its own non-blocking stream, the partial
 * sums meet on device 0, against the sum on one device. */
START_TEST(sharded_sum_matches_one_device) {
  on(0);
  int64_t n[1] = {(1 << 22) + 5};
  nd_array *x = pattern_on(0, 1, n, ND_FLOAT64);
  nd_array *one = NULL;
  const int64_t ax0 = 0;
  ND_ASSERT_OK(nd_sum(x, 1, &ax0, 0, ND_DTYPE_DEFAULT, NULL, &one));
  nd_array *p[2] = {NULL};
  ND_ASSERT_OK(nd_shard_split(x, 0, 2, NULL, p));
  nd_stream *s[2] = {NULL};
  nd_array *part[2] = {NULL}, *moved[2] = {NULL};
  for (int d = 0; d < 2; d++) {
    on(d);
    ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s[d]));
    ND_ASSERT_OK(nd_stream_push(s[d]));
    ND_ASSERT_OK(nd_sum(p[d], 1, &ax0, 0, ND_DTYPE_DEFAULT, NULL, &part[d]));
    ND_ASSERT_OK(nd_stream_pop());
  }
  on(0);
  for (int d = 0; d < 2; d++) ND_ASSERT_OK(nd_array_to_device(part[d], 0, &moved[d]));
  nd_array *total = NULL;
  ND_ASSERT_OK(nd_add(moved[0], moved[1], NULL, &total));
  double a = 0, b = 0;
  ND_ASSERT_OK(nd_array_to_host(total, &a, sizeof a));
  ND_ASSERT_OK(nd_array_to_host(one, &b, sizeof b));
  ck_assert_double_eq(a, b); /* integers: exact in float64 */
  for (int d = 0; d < 2; d++) {
    nd_array_release(p[d]);
    nd_array_release(part[d]);
    nd_array_release(moved[d]);
  }
  ND_ASSERT_OK(nd_device_synchronize(0));
  ND_ASSERT_OK(nd_device_synchronize(1));
  for (int d = 0; d < 2; d++) ND_ASSERT_OK(nd_stream_destroy(s[d]));
  nd_array_release(total);
  nd_array_release(one);
  nd_array_release(x);
}
END_TEST

/* Freeing an array of device 1 while device 0 is current returns it to device 1's pool, and
 * memory statistics stay per device. */
START_TEST(release_on_another_device) {
  on(1);
  nd_memory_stats m1;
  ND_ASSERT_OK(nd_memory_stats_get(1, &m1));
  int64_t n[1] = {1 << 20};
  nd_array *a = NULL;
  ND_ASSERT_OK(nd_ones(1, n, ND_FLOAT64, &a));
  nd_memory_stats m1b;
  ND_ASSERT_OK(nd_memory_stats_get(1, &m1b));
  ck_assert(m1b.bytes_in_use == m1.bytes_in_use + (8 << 20));
  on(0);
  nd_array_release(a);
  nd_memory_stats m1c;
  ND_ASSERT_OK(nd_memory_stats_get(1, &m1c));
  ck_assert(m1c.bytes_in_use == m1.bytes_in_use);
  ND_ASSERT_OK(nd_memory_release_cached(1));
  ck_assert_int_eq(current(), 0);
  ND_ASSERT_OK(nd_device_synchronize(1));
  ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
}
END_TEST

static Suite *multi_suite(void) {
  Suite *s = suite_create("multi_device");
  TCase *tc = tcase_create("devices");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, staged_copies_without_peer_access);
  tcase_add_test(tc, device_api);
  tcase_add_test(tc, objects_belong_to_devices);
  tcase_add_test(tc, current_device_is_per_thread);
  tcase_add_test(tc, mismatch_in_every_family);
  tcase_add_test(tc, to_device_dtypes_and_layouts);
  tcase_add_test(tc, copyto_across_devices_casts_and_broadcasts);
  tcase_add_test(tc, shard_split_and_gather);
  tcase_add_test(tc, sharded_sum_matches_one_device);
  tcase_add_test(tc, release_on_another_device);
  tcase_add_test(tc, ordering_across_devices);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int n = 0;
  if (nd_device_count(&n) != ND_OK || n < 2) {
    fprintf(stderr, "SKIPPED: %d CUDA device(s); this suite needs two\n", n);
    srunner_free(srunner_create(multi_suite()));
    return ND_TEST_SKIP;
  }
  return nd_test_main_gpu(multi_suite());
}
