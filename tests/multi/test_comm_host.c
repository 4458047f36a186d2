/* The parts of comm.h that need no GPU, in both builds: this suite is compiled twice, once
 * against the library (with NCCL when the build found it) and once with comm/comm.c compiled
 * in without NCCL (test_comm_host_nonccl), so the unsupported path is exercised on every
 * machine. What each build must do is decided by nd_comm_available().
 *
 * Covered: the unique id's text form (round trip, malformed input), NULL and out-of-range
 * arguments with messages naming the function and the values, the ND_ERR_UNSUPPORTED message
 * of a build without NCCL, group bookkeeping, and on an NCCL build without a device the
 * ND_ERR_NO_DEVICE path of nd_comm_init_all. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/nd_test.h"

START_TEST(test_id_hex_round_trip) {
  nd_comm_id id, back;
  for (int i = 0; i < ND_COMM_ID_BYTES; i++) id.bytes[i] = (unsigned char)(i * 37 + 11);
  char hex[ND_COMM_ID_HEX_CHARS + 1];
  ND_ASSERT_OK(nd_comm_id_to_hex(&id, hex, sizeof hex));
  ck_assert_uint_eq(strlen(hex), ND_COMM_ID_HEX_CHARS);
  ck_assert(strncmp(hex, "0b30557a", 8) == 0);
  memset(&back, 0, sizeof back);
  ND_ASSERT_OK(nd_comm_id_from_hex(hex, &back));
  ck_assert(memcmp(&id, &back, sizeof id) == 0);
  /* Upper case and surrounding white space (a line read from a file) are accepted. */
  char padded[ND_COMM_ID_HEX_CHARS + 8];
  snprintf(padded, sizeof padded, "  %s\n", hex);
  for (char *p = padded; *p; p++)
    if (*p >= 'a' && *p <= 'f') *p = (char)(*p - 'a' + 'A');
  memset(&back, 0, sizeof back);
  ND_ASSERT_OK(nd_comm_id_from_hex(padded, &back));
  ck_assert(memcmp(&id, &back, sizeof id) == 0);
}
END_TEST

START_TEST(test_id_hex_errors) {
  nd_comm_id id, keep;
  memset(&id, 0xAB, sizeof id);
  keep = id;
  char hex[ND_COMM_ID_HEX_CHARS + 1];
  ND_ASSERT_FAILS(nd_comm_id_to_hex(&id, hex, ND_COMM_ID_HEX_CHARS), ND_ERR_VALUE,
                  "nd_comm_id_to_hex: buffer of 256 bytes is too small (needs 257");
  ND_ASSERT_FAILS(nd_comm_id_to_hex(NULL, hex, sizeof hex), ND_ERR_NULL_POINTER, "'id'");
  ND_ASSERT_FAILS(nd_comm_id_to_hex(&id, NULL, sizeof hex), ND_ERR_NULL_POINTER, "'buf'");
  ND_ASSERT_FAILS(nd_comm_id_from_hex("abc", &id), ND_ERR_VALUE,
                  "nd_comm_id_from_hex: expected 256 hexadecimal digits, got 3 characters");
  ND_ASSERT_OK(nd_comm_id_to_hex(&id, hex, sizeof hex));
  hex[17] = 'g';
  ND_ASSERT_FAILS(nd_comm_id_from_hex(hex, &id), ND_ERR_VALUE, "character 17 ('g')");
  ck_assert(memcmp(&id, &keep, sizeof id) == 0); /* untouched on failure */
  ND_ASSERT_FAILS(nd_comm_id_from_hex(NULL, &id), ND_ERR_NULL_POINTER, "'hex'");
  ND_ASSERT_FAILS(nd_comm_id_from_hex(hex, NULL), ND_ERR_NULL_POINTER, "'id'");
}
END_TEST

/* Pointer arguments are checked first in both builds. */
START_TEST(test_null_arguments) {
  nd_comm *c;
  int v;
  ND_ASSERT_FAILS(nd_comm_init_all(2, NULL, NULL), ND_ERR_NULL_POINTER, "nd_comm_init_all: argument 'comms'");
  ND_ASSERT_FAILS(nd_comm_unique_id(NULL), ND_ERR_NULL_POINTER, "nd_comm_unique_id: argument 'id'");
  ND_ASSERT_FAILS(nd_comm_init_rank(2, NULL, 0, &c), ND_ERR_NULL_POINTER, "nd_comm_init_rank: argument 'id'");
  ND_ASSERT_FAILS(nd_comm_rank(NULL, &v), ND_ERR_NULL_POINTER, "nd_comm_rank: argument 'comm'");
  ND_ASSERT_FAILS(nd_comm_size(NULL, &v), ND_ERR_NULL_POINTER, "nd_comm_size: argument 'comm'");
  ND_ASSERT_FAILS(nd_comm_device(NULL, &v), ND_ERR_NULL_POINTER, "nd_comm_device: argument 'comm'");
  ND_ASSERT_FAILS(nd_comm_allreduce(NULL, NULL, NULL, ND_COMM_SUM), ND_ERR_NULL_POINTER, "nd_comm_allreduce: argument 'comm'");
  ND_ASSERT_FAILS(nd_comm_broadcast(NULL, NULL, 0), ND_ERR_NULL_POINTER, "nd_comm_broadcast");
  ND_ASSERT_FAILS(nd_comm_send(NULL, NULL, 0), ND_ERR_NULL_POINTER, "nd_comm_send");
  ND_ASSERT_FAILS(nd_comm_recv(NULL, NULL, 0), ND_ERR_NULL_POINTER, "nd_comm_recv");
  ND_ASSERT_FAILS(nd_comm_nccl_version(NULL), ND_ERR_NULL_POINTER, "nd_comm_nccl_version");
  ND_ASSERT_OK(nd_comm_destroy(NULL));
}
END_TEST

START_TEST(test_build_dependent_paths) {
  nd_comm_id id;
  nd_comm *comms[2];
  int version = 0;
  if (!nd_comm_available()) {
    printf("test_comm_host: checking a build without NCCL\n");
    ND_ASSERT_FAILS(nd_comm_unique_id(&id), ND_ERR_UNSUPPORTED, "nd_comm_unique_id: this ndcuda was built without NCCL");
    ck_assert(strstr(nd_last_error(), "-DNDCUDA_WITH_NCCL=ON") != NULL);
    ck_assert(strstr(nd_last_error(), "NDCUDA_NCCL_ROOT") != NULL);
    ND_ASSERT_FAILS(nd_comm_init_all(2, NULL, comms), ND_ERR_UNSUPPORTED, "nd_comm_init_all: this ndcuda was built without NCCL");
    ND_ASSERT_FAILS(nd_comm_init_rank(2, &id, 0, comms), ND_ERR_UNSUPPORTED, "nd_comm_init_rank");
    ND_ASSERT_FAILS(nd_comm_group_start(), ND_ERR_UNSUPPORTED, "nd_comm_group_start");
    ND_ASSERT_FAILS(nd_comm_group_end(), ND_ERR_UNSUPPORTED, "nd_comm_group_end");
    ND_ASSERT_FAILS(nd_comm_nccl_version(&version), ND_ERR_UNSUPPORTED, "nd_comm_nccl_version");
    /* A non-NULL handle cannot have come from this build. */
    ND_ASSERT_FAILS(nd_comm_destroy((nd_comm *)&id), ND_ERR_UNSUPPORTED, "nd_comm_destroy");
    ck_assert_str_eq(nd_status_name(ND_ERR_UNSUPPORTED), "ERR_UNSUPPORTED");
    return;
  }
#ifdef ND_TEST_EXPECT_NONCCL
  ck_abort_msg("test_comm_host_nonccl: comm/comm.c was compiled without NCCL, yet "
               "nd_comm_available() says 1 (the library's copy was linked instead)");
#endif
  printf("test_comm_host: checking a build with NCCL\n");
  ND_ASSERT_OK(nd_comm_nccl_version(&version));
  ck_assert_int_ge(version, 20000);
  /* Two ids differ, and are not all zero. */
  nd_comm_id id2;
  ND_ASSERT_OK(nd_comm_unique_id(&id));
  ND_ASSERT_OK(nd_comm_unique_id(&id2));
  ck_assert(memcmp(&id, &id2, sizeof id) != 0);
  int nonzero = 0;
  for (int i = 0; i < ND_COMM_ID_BYTES; i++) nonzero |= id.bytes[i];
  ck_assert(nonzero);
  /* Argument checks that come before any device is touched. */
  ND_ASSERT_FAILS(nd_comm_init_all(0, NULL, comms), ND_ERR_VALUE, "nd_comm_init_all: ndev must be in [1, 64] (got 0)");
  int dup[2] = {1, 1};
  ND_ASSERT_FAILS(nd_comm_init_all(2, dup, comms), ND_ERR_VALUE, "devices[0] and devices[1] are both device 1");
  int neg[2] = {0, -3};
  ND_ASSERT_FAILS(nd_comm_init_all(2, neg, comms), ND_ERR_VALUE, "devices[1] is -3");
  ND_ASSERT_FAILS(nd_comm_init_rank(0, &id, 0, comms), ND_ERR_VALUE, "nd_comm_init_rank: nranks must be at least 1 (got 0)");
  ND_ASSERT_FAILS(nd_comm_init_rank(2, &id, 2, comms), ND_ERR_VALUE, "rank 2 is out of range for 2 ranks");
  ND_ASSERT_FAILS(nd_comm_init_rank(2, &id, -1, comms), ND_ERR_VALUE, "rank -1");
  if (!nd_test_have_gpu())
    ND_ASSERT_FAILS(nd_comm_init_all(1, NULL, comms), ND_ERR_NO_DEVICE, "nd_comm_init_all: no CUDA device");
  /* Groups: an end without a start is refused; empty groups and nesting are fine. */
  ND_ASSERT_FAILS(nd_comm_group_end(), ND_ERR_STREAM, "nd_comm_group_end: no group was started");
  ND_ASSERT_OK(nd_comm_group_start());
  ND_ASSERT_OK(nd_comm_group_start());
  ND_ASSERT_OK(nd_comm_group_end());
  ND_ASSERT_OK(nd_comm_group_end());
  ND_ASSERT_FAILS(nd_comm_group_end(), ND_ERR_STREAM, "no group was started");
  ck_assert_str_eq(nd_status_name(ND_ERR_NCCL), "ERR_NCCL");
}
END_TEST

int main(void) {
  Suite *s = suite_create("comm_host");
  TCase *tc = tcase_create("host");
  tcase_add_test(tc, test_id_hex_round_trip);
  tcase_add_test(tc, test_id_hex_errors);
  tcase_add_test(tc, test_null_arguments);
  tcase_add_test(tc, test_build_dependent_paths);
  suite_add_tcase(s, tc);
  return nd_test_main(s);
}
