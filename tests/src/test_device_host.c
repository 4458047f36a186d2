/* The device API's argument checks and messages, its answers on a machine without a device,
 * and the device rule of the ordering layer (nd__sync_add), all without a GPU. On a machine
 * with devices the same cases check the range errors against the real count.
 *
 * Arrays here are headers over a fake buffer that no case reaches the device with: every
 * case fails in its argument checks first. */
#include <stdio.h>
#include <string.h>

#include "src/array.h"
#include "src/buffer.h"
#include "src/device.h"
#include "streams/hazard.h"
#include "tests/nd_test.h"

static int count(void) {
  int n = -1;
  ND_ASSERT_OK(nd_device_count(&n));
  ck_assert_int_ge(n, 0);
  return n;
}

START_TEST(count_is_not_an_error_without_devices) {
  int n = count();
  ck_assert_int_eq(n, nd_test_have_gpu() ? n : 0);
  ND_ASSERT_FAILS(nd_device_count(NULL), ND_ERR_NULL_POINTER, "nd_device_count");
}
END_TEST

START_TEST(set_get_range_and_messages) {
  const int n = count();
  ND_ASSERT_FAILS(nd_device_set(-1), ND_ERR_VALUE, "nd_device_set: argument 'device' is -1");
  ND_ASSERT_FAILS(nd_device_set(-7), ND_ERR_VALUE, "-7");
  if (n == 0) {
    ND_ASSERT_FAILS(nd_device_set(0), ND_ERR_NO_DEVICE, "nd_device_set");
    ND_ASSERT_FAILS(nd_device_set(3), ND_ERR_NO_DEVICE, "no CUDA device");
    int d = 42;
    ND_ASSERT_FAILS(nd_device_get(&d), ND_ERR_NO_DEVICE, "nd_device_get");
    ck_assert_int_eq(d, 42);
    ND_ASSERT_FAILS(nd_device_synchronize(-1), ND_ERR_NO_DEVICE, "nd_device_synchronize");
  } else {
    char want[96];
    snprintf(want, sizeof want, "argument 'device' is %d but the process sees %d device", n, n);
    ND_ASSERT_FAILS(nd_device_set(n), ND_ERR_VALUE, want);
    snprintf(want, sizeof want, "(0..%d)", n - 1);
    ND_ASSERT_FAILS(nd_device_set(n + 5), ND_ERR_VALUE, want);
  }
  ND_ASSERT_FAILS(nd_device_get(NULL), ND_ERR_NULL_POINTER, "nd_device_get");
  ND_ASSERT_FAILS(nd_device_synchronize(-2), ND_ERR_VALUE, "-1 means the current device");
}
END_TEST

START_TEST(push_pop) {
  const int n = count();
  ND_ASSERT_FAILS(nd_device_pop(), ND_ERR_INVALID_ARGUMENT, "nd_device_pop: nothing was pushed");
  ND_ASSERT_FAILS(nd_device_push(-3), ND_ERR_VALUE, "nd_device_push");
  ND_ASSERT_FAILS(nd_device_push(n), n ? ND_ERR_VALUE : ND_ERR_NO_DEVICE, "nd_device_push");
  /* a failed push leaves nothing to pop */
  ND_ASSERT_FAILS(nd_device_pop(), ND_ERR_INVALID_ARGUMENT, "nothing was pushed");
  if (n > 0) {
    int d = -1;
    ND_ASSERT_OK(nd_device_push(n - 1));
    ND_ASSERT_OK(nd_device_get(&d));
    ck_assert_int_eq(d, n - 1);
    ND_ASSERT_OK(nd_device_pop());
    ND_ASSERT_FAILS(nd_device_pop(), ND_ERR_INVALID_ARGUMENT, "nothing was pushed");
  }
}
END_TEST

START_TEST(properties_and_peers) {
  const int n = count();
  nd_device_properties p;
  memset(&p, 0x5a, sizeof p);
  ND_ASSERT_FAILS(nd_device_get_properties(0, NULL), ND_ERR_NULL_POINTER, "nd_device_get_properties");
  ND_ASSERT_FAILS(nd_device_get_properties(-4, &p), ND_ERR_VALUE, "argument 'device' is -4");
  ND_ASSERT_FAILS(nd_device_get_properties(n, &p), n ? ND_ERR_VALUE : ND_ERR_NO_DEVICE,
                  "nd_device_get_properties");
  ck_assert_int_eq(((unsigned char *)&p)[0], 0x5a); /* untouched on failure */
  int can = 7;
  ND_ASSERT_FAILS(nd_device_can_access_peer(0, 0, NULL), ND_ERR_NULL_POINTER, "nd_device_can_access_peer");
  ND_ASSERT_FAILS(nd_device_can_access_peer(-1, 0, &can), ND_ERR_VALUE, "argument 'device' is -1");
  ND_ASSERT_FAILS(nd_device_can_access_peer(0, -2, &can), n ? ND_ERR_VALUE : ND_ERR_NO_DEVICE, n ? "argument 'peer' is -2" : "nd_device_can_access_peer");
  ck_assert_int_eq(can, 7);
  if (n > 0) {
    ND_ASSERT_OK(nd_device_get_properties(0, &p));
    ck_assert(p.name[0] != '\0' && p.sm_count > 0 && p.total_memory > 0 && p.cc_major > 0);
    ND_ASSERT_OK(nd_device_can_access_peer(0, 0, &can));
    ck_assert_int_eq(can, 0);
  }
  ck_assert_int_eq(nd_event_device(NULL), -1);
  ck_assert_int_eq(nd_generator_device(NULL), -1);
}
END_TEST

/* ---- copies and shards: argument checks before any device work ---------------------------- */

static nd__buffer fake_buffer;

/* A header of the given shape over the fake buffer (never dereferenced by these cases). */
static void fake_array(nd_array *a, int ndim, const int64_t *shape, nd_dtype dt, int device) {
  memset(&fake_buffer, 0, sizeof fake_buffer);
  atomic_init(&fake_buffer.refs, 1000);
  fake_buffer.device = device;
  nd__hazard_init_device(&fake_buffer.hz, device);
  memset(a, 0, sizeof *a);
  atomic_init(&a->refs, 1000);
  a->dtype = dt;
  a->ndim = ndim;
  a->writeable = 1;
  a->buf = &fake_buffer;
  a->size = 1;
  int64_t st = (int64_t)nd_dtype_itemsize(dt);
  for (int i = ndim - 1; i >= 0; i--) {
    a->shape[i] = shape[i];
    a->strides[i] = st;
    st *= shape[i];
    a->size *= shape[i];
  }
}

START_TEST(to_device_arguments) {
  const int n = count();
  nd_array a;
  int64_t shape[2] = {3, 4};
  fake_array(&a, 2, shape, ND_FLOAT32, 0);
  nd_array *out = (nd_array *)0x1;
  ND_ASSERT_FAILS(nd_array_to_device(NULL, 0, &out), ND_ERR_NULL_POINTER, "nd_array_to_device");
  ND_ASSERT_FAILS(nd_array_to_device(&a, 0, NULL), ND_ERR_NULL_POINTER, "nd_array_to_device");
  ND_ASSERT_FAILS(nd_array_to_device(&a, -2, &out), ND_ERR_VALUE, "nd_array_to_device: argument 'device' is -2");
  ND_ASSERT_FAILS(nd_array_to_device(&a, n + 1, &out), n ? ND_ERR_VALUE : ND_ERR_NO_DEVICE, "nd_array_to_device");
  if (n == 0) ND_ASSERT_FAILS(nd_array_to_device(&a, -1, &out), ND_ERR_NO_DEVICE, "nd_array_to_device");
  ck_assert_ptr_eq(out, (nd_array *)0x1);
}
END_TEST

START_TEST(shard_split_arguments) {
  const int n = count();
  nd_array a, z;
  int64_t shape[2] = {5, 4};
  fake_array(&a, 2, shape, ND_FLOAT64, 0);
  fake_array(&z, 0, shape, ND_FLOAT64, 0);
  nd_array *out[4] = {(nd_array *)0x1, (nd_array *)0x1, (nd_array *)0x1, (nd_array *)0x1};
  ND_ASSERT_FAILS(nd_shard_split(NULL, 0, 2, NULL, out), ND_ERR_NULL_POINTER, "nd_shard_split");
  ND_ASSERT_FAILS(nd_shard_split(&a, 0, 2, NULL, NULL), ND_ERR_NULL_POINTER, "nd_shard_split");
  ND_ASSERT_FAILS(nd_shard_split(&a, 0, 0, NULL, out), ND_ERR_VALUE, "argument 'n' is 0");
  ND_ASSERT_FAILS(nd_shard_split(&a, 0, -3, NULL, out), ND_ERR_VALUE, "1..4096");
  ND_ASSERT_FAILS(nd_shard_split(&a, 0, 5000, NULL, out), ND_ERR_VALUE, "5000");
  ND_ASSERT_FAILS(nd_shard_split(&a, 2, 2, NULL, out), ND_ERR_AXIS, "nd_shard_split");
  ND_ASSERT_FAILS(nd_shard_split(&a, -3, 2, NULL, out), ND_ERR_AXIS, "nd_shard_split");
  ND_ASSERT_FAILS(nd_shard_split(&z, 0, 2, NULL, out), ND_ERR_AXIS, "0-d");
  ND_ASSERT_FAILS(nd_shard_split(&a, 0, 2, (const int[]){0, -1}, out), n ? ND_ERR_VALUE : ND_ERR_NO_DEVICE,
                  n ? "devices[1]" : "nd_shard_split");
  /* devices NULL: part i on device i, so more parts than devices is a range error */
  ND_ASSERT_FAILS(nd_shard_split(&a, 0, n + 1, NULL, out), n ? ND_ERR_VALUE : ND_ERR_NO_DEVICE, "nd_shard_split");
  for (int i = 0; i < 4; i++) ck_assert_ptr_eq(out[i], (nd_array *)0x1);
}
END_TEST

START_TEST(shard_gather_arguments) {
  nd_array a, b, c, z;
  int64_t sa[2] = {5, 4}, sb[2] = {2, 4}, sc[2] = {2, 3};
  fake_array(&a, 2, sa, ND_FLOAT64, 0);
  fake_array(&b, 2, sb, ND_FLOAT32, 0);
  fake_array(&c, 2, sc, ND_FLOAT64, 0);
  fake_array(&z, 1, sc, ND_FLOAT64, 0);
  nd_array *out = (nd_array *)0x1;
  const nd_array *ok[2] = {&a, &b};
  ND_ASSERT_FAILS(nd_shard_gather(2, NULL, 0, 0, &out), ND_ERR_NULL_POINTER, "nd_shard_gather");
  ND_ASSERT_FAILS(nd_shard_gather(2, ok, 0, 0, NULL), ND_ERR_NULL_POINTER, "nd_shard_gather");
  ND_ASSERT_FAILS(nd_shard_gather(0, ok, 0, 0, &out), ND_ERR_VALUE, "argument 'n' is 0");
  ND_ASSERT_FAILS(nd_shard_gather(2, (const nd_array *[]){&a, NULL}, 0, 0, &out), ND_ERR_NULL_POINTER,
                  "parts[1] is NULL");
  ND_ASSERT_FAILS(nd_shard_gather(2, ok, 2, 0, &out), ND_ERR_AXIS, "nd_shard_gather");
  ND_ASSERT_FAILS(nd_shard_gather(2, (const nd_array *[]){&a, &c}, 0, 0, &out), ND_ERR_SHAPE,
                  "along dimension 1 parts[0] has size 4 but parts[1] has size 3");
  ND_ASSERT_FAILS(nd_shard_gather(2, (const nd_array *[]){&a, &z}, 0, 0, &out), ND_ERR_SHAPE,
                  "parts[0] has 2 dimension(s) but parts[1] has 1");
  ND_ASSERT_FAILS(nd_shard_gather(2, ok, 0, -5, &out), ND_ERR_VALUE, "argument 'device' is -5");
  ck_assert_ptr_eq(out, (nd_array *)0x1);
}
END_TEST

/* ---- the device rule in the ordering layer ---------------------------------------------------- */

static int sim_record(void *event, void *cu, int device) { return 0; }
static int sim_wait(void *cu, void *event, int device) { return 0; }
static int sim_host_wait(void *event) { return 0; }
static void sim_destroy(void *event) {}
static const nd__sync_binding sim = {sim_record, sim_wait, sim_host_wait, sim_destroy, "host test"};

START_TEST(sync_refuses_memory_of_another_device) {
  nd__set_sync_binding(&sim);
  static char cu[2], ev[2];
  nd_stream *s0 = nd__stream_new_synthetic(&cu[0], &ev[0]);
  nd_stream *s1 = nd__stream_new_synthetic(&cu[1], &ev[1]);
  s1->device = 1;
  nd__hazard h0, h1, hx;
  nd__hazard_init_device(&h0, 0);
  nd__hazard_init_device(&h1, 1);
  nd__hazard_init(&hx); /* device not known: accepted anywhere */
  nd__sync_name("nd_frobnicate");
  nd__sync sync;
  nd__sync_init(&sync, s0);
  ND_ASSERT_OK(nd__sync_add(&sync, &h0, ND__READ));
  ND_ASSERT_OK(nd__sync_add(&sync, &hx, ND__WRITE));
  ND_ASSERT_FAILS(nd__sync_add(&sync, &h1, ND__READ), ND_ERR_DEVICE_MISMATCH,
                  "nd_frobnicate: an array on device 1 was passed to an operation on device 0");
  ck_assert_int_eq(sync.n, 2); /* the refused buffer was not added */
  nd__sync_init(&sync, s1);
  ND_ASSERT_FAILS(nd__sync_add(&sync, &h0, ND__WRITE), ND_ERR_DEVICE_MISMATCH,
                  "an array on device 0 was passed to an operation on device 1");
  ND_ASSERT_OK(nd__sync_add(&sync, &h1, ND__WRITE));
  /* A copy between devices orders through the hazards directly: a reader on device 1 of
   * memory of device 0, then a writer on device 0 waits for it. */
  ND_ASSERT_OK(nd__hazard_prepare(&h0, s1, ND__READ));
  ND_ASSERT_OK(nd__hazard_commit(&h0, s1, nd__stream_commit(s1), ND__READ));
  ck_assert_int_eq(h0.nreaders, 1);
  nd__sync_init(&sync, s0);
  ND_ASSERT_OK(nd__sync_add(&sync, &h0, ND__WRITE));
  ND_ASSERT_OK(nd__sync_begin(&sync));
  ND_ASSERT_OK(nd__sync_end(&sync));
  ck_assert_int_eq(h0.nreaders, 0);
  nd__hazard_clear(&h0);
  nd__hazard_clear(&h1);
  nd__hazard_clear(&hx);
  nd__stream_release(s0);
  nd__stream_release(s1);
}
END_TEST

static Suite *device_host_suite(void) {
  Suite *s = suite_create("device_host");
  TCase *tc = tcase_create("devices");
  tcase_add_test(tc, count_is_not_an_error_without_devices);
  tcase_add_test(tc, set_get_range_and_messages);
  tcase_add_test(tc, push_pop);
  tcase_add_test(tc, properties_and_peers);
  tcase_add_test(tc, to_device_arguments);
  tcase_add_test(tc, shard_split_arguments);
  tcase_add_test(tc, shard_gather_arguments);
  tcase_add_test(tc, sync_refuses_memory_of_another_device);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main(device_host_suite()); }
